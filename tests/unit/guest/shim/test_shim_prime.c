/* PRIME between processes: the parent's GPU writes a BO, the parent exports it and sends the
 * dma-buf fd over a unix socket to a child (this program run again) that opened the render node
 * itself; the child imports it and reads the parent's bytes. msm: the child's GPU writes it
 * through the child's own iova and the parent reads that back. V3D (ferryd with shared tenancy):
 * the child sees the BO at the parent's global address (through ferryd; the fake kernel's child
 * has a simulator of its own) with the GPU's bytes, and the child's CPU store reaches the parent. The child also checks the refusals: a memfd that is not an exported buffer, a closed
 * fd, and a second import giving the same handle. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "pm4_builder.h"
#include "shim_test.h"
#include "test.h"

#define PARENT_WORD 5u  /* st_job's CP_MEM_WRITE target index */
#define CHILD_WORD 9u
#define CHILD_PATTERN 0xc41d0009u

static struct st_env env;

/* Both children's end: the refusals (not an exported buffer: a memfd of the right size, and a
 * closed fd), then the imported BO and the node go. The exit status and the line the parent
 * looks for. */
static int child_finish(int node, int buf_fd, uint32_t handle)
{
	int mfd = memfd_create("not-a-bo", MFD_CLOEXEC);
	REQUIRE(mfd >= 0 && ftruncate(mfd, 4096) == 0);
	struct drm_prime_handle bad = { .fd = mfd };
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_PRIME_FD_TO_HANDLE, &bad), -EINVAL);
	close(mfd);
	bad.fd = mfd;
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_PRIME_FD_TO_HANDLE, &bad), -EBADF);
	struct drm_gem_close gc = { .handle = handle };
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_GEM_CLOSE, &gc), 0);
	close(buf_fd);
	close(node);
	fprintf(stderr, "child: done, %d failed\n", test_failures);
	return test_failures ? 1 : 0;
}

/* The child: its own open of the node, the BO imported from the parent's fd. */
static int child_import(int sock)
{
	int buf_fd;
	struct drm_prime_handle p = { 0 };
	int node = st_child_import(sock, &buf_fd, &p.handle);
	/* The same buffer again: the handle this open has for it. */
	struct drm_prime_handle again = { .fd = buf_fd };
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_PRIME_FD_TO_HANDLE, &again), 0);
	CHECK_EQ(again.handle, p.handle);

	struct drm_msm_gem_info iova = { .handle = p.handle, .info = MSM_INFO_GET_IOVA };
	struct drm_msm_gem_info off = { .handle = p.handle, .info = MSM_INFO_GET_OFFSET };
	REQUIRE(st_ioctl(node, DRM_IOCTL_MSM_GEM_INFO, &iova) == 0 && iova.value);
	REQUIRE(st_ioctl(node, DRM_IOCTL_MSM_GEM_INFO, &off) == 0);
	uint32_t *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, node, (off_t)off.value);
	REQUIRE(map != MAP_FAILED);
	fprintf(stderr, "child: read=0x%08x\n", map[PARENT_WORD]);

	/* This process's GPU writes the shared BO at this open's iova. */
	struct st_bo ib;
	st_bo_new(node, true, 4096, &ib);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 1024);
	uint32_t v = CHILD_PATTERN;
	pm4_mem_write(&b, iova.value + CHILD_WORD * 4, &v, 1);
	REQUIRE(pm4_builder_ok(&b));
	struct drm_msm_gem_submit_bo bos[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = ib.handle },
		{ .flags = MSM_SUBMIT_BO_WRITE, .handle = p.handle },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .size = pm4_builder_bytes(&b) };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)bos, .cmds = (uintptr_t)&cmd,
	};
	REQUIRE(st_ioctl(node, DRM_IOCTL_MSM_GEM_SUBMIT, &s) == 0);
	int64_t end = st_now_ns() + ST_WAIT_NS;
	struct drm_msm_wait_fence w = { .fence = s.fence, .timeout = { end / ST_NS_PER_SEC, end % ST_NS_PER_SEC } };
	REQUIRE(st_ioctl(node, DRM_IOCTL_MSM_WAIT_FENCE, &w) == 0);
	fprintf(stderr, "child: wrote=0x%08x\n", map[CHILD_WORD]);

	munmap(map, 4096);
	st_bo_free(node, &ib);
	return child_finish(node, buf_fd, p.handle);
}

static int child_import_v3d(int sock)
{
	int buf_fd;
	struct drm_prime_handle p = { 0 };
	int node = st_child_import(sock, &buf_fd, &p.handle);
	struct drm_prime_handle again = { .fd = buf_fd };
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_PRIME_FD_TO_HANDLE, &again), 0);
	CHECK_EQ(again.handle, p.handle);
	struct drm_v3d_get_bo_offset o = { .handle = p.handle };
	REQUIRE(st_ioctl(node, DRM_IOCTL_V3D_GET_BO_OFFSET, &o) == 0);
	struct drm_v3d_mmap_bo m = { .handle = p.handle };
	REQUIRE(st_ioctl(node, DRM_IOCTL_V3D_MMAP_BO, &m) == 0);
	uint8_t *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, node, (off_t)m.offset);
	REQUIRE(map != MAP_FAILED);
	fprintf(stderr, "child: addr=0x%08x sum=0x%08x\n", o.offset, st_fnv(map, 4096));
	map[4000] = 0x5c; /* past the copied rows: the parent checks it */

	munmap(map, 4096);
	return child_finish(node, buf_fd, p.handle);
}

static void test_import_in_other_process_v3d(void)
{
	int node = st_open_render();
	struct st_job j;
	st_job_build(node, false, 0x7e57a11u, &j);
	REQUIRE(st_job_submit(node, &j, 0, 0, NULL) == 0);
	struct drm_v3d_wait_bo w = { .handle = j.bos[3].handle, .timeout_ns = ST_WAIT_NS };
	REQUIRE(st_ioctl(node, DRM_IOCTL_V3D_WAIT_BO, &w) == 0);
	REQUIRE(st_job_done(&j));
	REQUIRE(j.bos[3].size == 4096);

	struct drm_prime_handle p = { .handle = j.bos[3].handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	REQUIRE(st_ioctl(node, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p) == 0);
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	REQUIRE(st_send_fd(sv[0], p.fd) == 0);
	close(p.fd);

	char arg[16], out[8192], want[64];
	snprintf(arg, sizeof(arg), "%d", sv[1]);
	/* Through ferryd the one GPU's global address; the fake kernel's child runs a simulator of
	 * its own, where the pages sit at an address of that one: only the bytes are compared. */
	if (env.mode == ST_MODE_SHIM)
		snprintf(want, sizeof(want), "child: addr=0x%08x sum=0x%08x\n", (uint32_t)j.bos[3].gpu_addr,
			 st_fnv(j.bos[3].map, 4096));
	else
		snprintf(want, sizeof(want), " sum=0x%08x\n", st_fnv(j.bos[3].map, 4096));
	const char *args[] = { "--child-import-v3d", arg, NULL };
	int st = st_rerun(&env, args, NULL, out, sizeof(out));
	close(sv[1]);
	close(sv[0]);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, want) != NULL); /* the same global address, the GPU's bytes */
	CHECK(strstr(out, "child: done, 0 failed\n") != NULL);
	CHECK_EQ(j.bos[3].map[4000], 0x5c);
	if (test_failures)
		fprintf(stderr, "wanted %schild's stderr:\n%s\n", want, out);
	st_job_free(node, &j);
	close(node);
}

static void test_import_in_other_process(void)
{
	int node = st_open_render();
	struct st_job j;
	st_job_build(node, true, 0x9a4e7005u, &j);
	uint32_t fence = 0;
	REQUIRE(st_job_submit(node, &j, 0, 0, &fence) == 0);
	int64_t end = st_now_ns() + ST_WAIT_NS;
	struct drm_msm_wait_fence w = { .fence = fence, .timeout = { end / ST_NS_PER_SEC, end % ST_NS_PER_SEC } };
	REQUIRE(st_ioctl(node, DRM_IOCTL_MSM_WAIT_FENCE, &w) == 0);
	REQUIRE(st_job_done(&j));
	uint32_t *dst = (uint32_t *)j.bos[1].map;
	dst[CHILD_WORD] = 0;

	struct drm_prime_handle p = { .handle = j.bos[1].handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	REQUIRE(st_ioctl(node, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p) == 0);
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	REQUIRE(st_send_fd(sv[0], p.fd) == 0);
	/* The parent keeps no fd: the one in flight is the only way to the buffer but its handle. */
	close(p.fd);

	char arg[16], out[8192];
	snprintf(arg, sizeof(arg), "%d", sv[1]);
	const char *args[] = { "--child-import", arg, NULL };
	int st = st_rerun(&env, args, NULL, out, sizeof(out));
	close(sv[1]);
	close(sv[0]);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, "child: read=0x9a4e7005\n") != NULL);
	CHECK(strstr(out, "child: wrote=0xc41d0009\n") != NULL);
	CHECK(strstr(out, "child: done, 0 failed\n") != NULL);
	/* The child's GPU wrote the parent's BO. */
	CHECK_EQ(dst[CHILD_WORD], CHILD_PATTERN);
	CHECK_EQ(dst[PARENT_WORD], 0x9a4e7005u);
	if (test_failures)
		fprintf(stderr, "child's stderr:\n%s\n", out);
	st_job_free(node, &j);
	close(node);
}

/* Two opens of the node in one process (two ferry contexts through the shim): a BO of one
 * imports into the other as a new handle over the same memory, outlives its exporter's handle,
 * and on V3D has the same global address in both. */
static void test_two_opens(void)
{
	int a = st_open_render(), b = st_open_render();
	struct st_bo bo;
	st_bo_new(a, env.msm, 8192, &bo);
	((uint32_t *)bo.map)[3] = 0xa11ce000u;
	int pfd = -1;
	REQUIRE(drmPrimeHandleToFD(a, bo.handle, DRM_CLOEXEC | DRM_RDWR, &pfd) == 0);
	uint32_t h = 0;
	int r = drmPrimeFDToHandle(b, pfd, &h);
	CHECK_EQ(r, 0);
	if (r != 0) { /* nothing below can run: fail without leaving anything behind */
		close(pfd);
		st_bo_free(a, &bo);
		close(a);
		close(b);
		return;
	}
	uint32_t h2 = 0;
	CHECK_EQ(drmPrimeFDToHandle(b, pfd, &h2), 0);
	CHECK_EQ(h2, h);
	uint64_t off = 0;
	if (env.msm) {
		struct drm_msm_gem_info i = { .handle = h, .info = MSM_INFO_GET_OFFSET };
		CHECK_EQ(st_ioctl(b, DRM_IOCTL_MSM_GEM_INFO, &i), 0);
		off = i.value;
		i = (struct drm_msm_gem_info){ .handle = h, .info = MSM_INFO_GET_IOVA };
		CHECK_EQ(st_ioctl(b, DRM_IOCTL_MSM_GEM_INFO, &i), 0);
		CHECK(i.value != 0);
	} else {
		struct drm_v3d_get_bo_offset o = { .handle = h };
		CHECK_EQ(st_ioctl(b, DRM_IOCTL_V3D_GET_BO_OFFSET, &o), 0);
		CHECK_EQ(o.offset, bo.gpu_addr); /* one device, one global address space */
		struct drm_v3d_mmap_bo m = { .handle = h };
		CHECK_EQ(st_ioctl(b, DRM_IOCTL_V3D_MMAP_BO, &m), 0);
		off = m.offset;
	}
	uint32_t *map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, b, (off_t)off);
	REQUIRE(map != MAP_FAILED);
	CHECK_EQ(map[3], 0xa11ce000u);
	map[2047] = 0xb0b0u;
	CHECK_EQ(((uint32_t *)bo.map)[2047], 0xb0b0u);
	/* The exporter lets go: the importer's handle and memory stay. */
	CHECK_EQ(close(pfd), 0);
	st_bo_free(a, &bo);
	CHECK_EQ(map[3], 0xa11ce000u);
	munmap(map, 8192);
	struct drm_gem_close c = { .handle = h };
	CHECK_EQ(st_ioctl(b, DRM_IOCTL_GEM_CLOSE, &c), 0);
	CHECK_EQ(st_ioctl(b, DRM_IOCTL_GEM_CLOSE, &c), -EINVAL);
	close(a);
	close(b);
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--child-import") == 0)
		return child_import(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "--child-import-v3d") == 0)
		return child_import_v3d(atoi(argv[2]));
	st_setup(argc, argv, &env);
	RUN_TEST(test_two_opens);
	if (env.msm)
		RUN_TEST(test_import_in_other_process);
	else
		RUN_TEST(test_import_in_other_process_v3d);
	st_teardown(&env);
	return test_finish();
}
