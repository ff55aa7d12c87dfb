/* A buffer and its fence between two unrelated processes, as a compositor and its client share
 * them: the parent renders into a BO, exports it (PRIME) and hands the dma-buf and the render's
 * sync file over a unix socket to a second process (this program run again, with its own open of
 * the node and nothing of the parent's memory). That one polls and queries the file, merges it,
 * waits on it through a submit's FENCE_FD_IN and a syncobj's IMPORT_SYNC_FILE, and checks the
 * bytes. A file of a lost context reports its error there. msm: FENCE_FD_OUT; V3D: the out-syncobj
 * exported with EXPORT_SYNC_FILE. "Not yet" is made certain by a CP wait on a word the CPU writes,
 * which the parent writes only once the child said it looked.
 * Opaque syncobj fds (Vulkan's OPAQUE_FD semaphores and fences) are shared the same way, before
 * anything is submitted to them: each process sees the other's submits, resets and signals. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "pm4_builder.h"
#include "shim_test.h"
#include "test.h"

static struct st_env env;

/* Words of the shared msm BO. */
enum { GATE = 0, NEVER = 1, PRODUCED = 8, COPIED = 12, PRODUCED_N = 4 };
#define PATTERN 0x5ba2ed00u
#define WAIT_MS ((int)(ST_WAIT_NS / 1000000))

/* One msm submit of the PM4 in ib at dword `at` over ib and shared. */
static int msm_submit(int node, uint32_t ib, uint32_t shared, uint32_t at, uint32_t bytes, uint32_t flags,
		      int *fence_fd)
{
	struct drm_msm_gem_submit_bo sb[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = ib },
		{ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE, .handle = shared },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_offset = at * 4, .size = bytes };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | flags, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)sb,
		.cmds = (uintptr_t)&cmd, .fence_fd = *fence_fd,
	};
	int r = st_ioctl(node, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	if (r == 0 && (flags & MSM_SUBMIT_FENCE_FD_OUT))
		*fence_fd = s.fence_fd;
	return r;
}

/* The second process, msm: the parent's file is pending until this one says it looked. */
static int child_msm(int sock)
{
	int buf_fd;
	uint32_t h = 0;
	int node = st_child_import(sock, &buf_fd, &h);
	int f = st_recv_fd(sock);
	REQUIRE(f >= 0);
	struct drm_msm_gem_info iova = { .handle = h, .info = MSM_INFO_GET_IOVA };
	struct drm_msm_gem_info off = { .handle = h, .info = MSM_INFO_GET_OFFSET };
	REQUIRE(st_ioctl(node, DRM_IOCTL_MSM_GEM_INFO, &iova) == 0 && st_ioctl(node, DRM_IOCTL_MSM_GEM_INFO, &off) == 0);
	volatile uint32_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, node, (off_t)off.value);
	REQUIRE(shared != MAP_FAILED);

	/* Pending here as in the parent. */
	struct sync_file_info i;
	struct sync_fence_info fi[2];
	CHECK(!st_sync_ready(f, 0));
	CHECK_EQ(st_sync_info(f, &i, NULL, 0), 0);
	CHECK_EQ(i.status, 0);
	CHECK_EQ(i.num_fences, 1);
	CHECK_EQ(st_sync_info(f, &i, fi, 2), 0);
	CHECK_EQ(i.status, 0);
	CHECK_EQ(fi[0].status, 0);
	int m = -1;
	CHECK_EQ(st_sync_merge(f, f, "share", &m), 0);
	CHECK(m >= 0 && !st_sync_ready(m, 0));
	CHECK_EQ(st_sync_info(m, &i, NULL, 0), 0);
	CHECK_EQ(i.num_fences, 1); /* the same file twice is one fence, as in the kernel */

	/* A submit here that copies the parent's words once the file signaled. */
	struct st_bo ib;
	st_bo_new(node, true, 4096, &ib);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 1024);
	pm4_memcpy(&b, iova.value + COPIED * 4, iova.value + PRODUCED * 4, PRODUCED_N);
	REQUIRE(pm4_builder_ok(&b));
	/* Neither the submit nor the import waits for the file (the GPU does, as on the kernel):
	 * both return while the parent's gate is still shut. */
	int g = f;
	CHECK_EQ(msm_submit(node, ib.handle, h, 0, pm4_builder_bytes(&b), MSM_SUBMIT_FENCE_FD_IN | MSM_SUBMIT_FENCE_FD_OUT,
			    &g), 0);
	CHECK(g >= 0 && g != f);
	uint32_t pending = 0;
	REQUIRE(drmSyncobjCreate(node, 0, &pending) == 0);
	CHECK_EQ(drmSyncobjImportSyncFile(node, pending, f), 0);
	CHECK(!st_sync_ready(g, 0));
	CHECK_EQ(drmSyncobjWait(node, &pending, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) < 0 ? -errno : 0, -ETIME);
	CHECK(!st_sync_ready(f, 0));
	CHECK_EQ(write(sock, "l", 1), 1); /* looked: the parent opens its gate */
	CHECK(st_sync_ready(f, WAIT_MS));
	CHECK_EQ(drmSyncobjWait(node, &pending, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK_EQ(drmSyncobjDestroy(node, pending), 0);
	CHECK(st_sync_ready(m, WAIT_MS));
	CHECK(st_sync_ready(g, WAIT_MS));
	CHECK_EQ(st_sync_info(f, &i, fi, 1), 0);
	CHECK_EQ(i.status, 1);
	CHECK_EQ(fi[0].status, 1);
	CHECK_EQ(st_sync_info(m, &i, NULL, 0), 0);
	CHECK_EQ(i.status, 1);
	for (uint32_t k = 0; k < PRODUCED_N; k++) {
		CHECK_EQ(shared[PRODUCED + k], PATTERN + k);
		CHECK_EQ(shared[COPIED + k], PATTERN + k);
	}

	/* Into a syncobj of this open: signaled, as the file. */
	uint32_t so = 0;
	REQUIRE(drmSyncobjCreate(node, 0, &so) == 0);
	CHECK_EQ(drmSyncobjImportSyncFile(node, so, f), 0);
	CHECK_EQ(drmSyncobjWait(node, &so, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);

	/* A socket that is not a sync file is refused as the kernel refuses it. */
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	CHECK_EQ(st_sync_info(sv[0], &i, NULL, 0), -ENOTTY);
	CHECK_EQ(drmSyncobjImportSyncFile(node, so, sv[0]) < 0 ? -errno : 0, -EINVAL);
	int bad = sv[0];
	CHECK_EQ(msm_submit(node, ib.handle, h, 0, pm4_builder_bytes(&b), MSM_SUBMIT_FENCE_FD_IN, &bad), -EINVAL);
	CHECK_EQ(st_sync_merge(f, sv[0], "share", &bad), -ENOENT);
	close(sv[0]);
	close(sv[1]);

	CHECK_EQ(drmSyncobjDestroy(node, so), 0);
	CHECK_EQ(close(g), 0);
	CHECK_EQ(close(m), 0);
	CHECK_EQ(close(f), 0);
	st_bo_free(node, &ib);
	munmap((void *)shared, 4096);
	struct drm_gem_close gc = { .handle = h };
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_GEM_CLOSE, &gc), 0);
	close(buf_fd);
	close(node);
	fprintf(stderr, "child: done, %d failed\n", test_failures);
	return test_failures ? 1 : 0;
}

struct gatekeeper {
	int sock;
	volatile uint32_t *gate;
};

/* Opens the GPU's gate once the child said it looked at the pending file. */
static void *gatekeeper(void *p)
{
	struct gatekeeper *g = p;
	char c;
	if (read(g->sock, &c, 1) != 1)
		fprintf(stderr, "parent: the child never said it looked\n");
	__atomic_store_n(g->gate, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static int run_child(const char *mode, int sock, char *out, size_t len)
{
	char arg[16];
	snprintf(arg, sizeof(arg), "%d", sock);
	const char *args[] = { mode, arg, NULL };
	return st_rerun(&env, args, NULL, out, len);
}

static void test_msm_share(void)
{
	int node = st_open_render();
	struct st_bo ib, shared;
	st_bo_new(node, true, 4096, &ib);
	st_bo_new(node, true, 4096, &shared);
	uint32_t *w = (uint32_t *)shared.map;
	memset(w, 0, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 1024);
	pm4_wait_mem_gte(&b, shared.gpu_addr + GATE * 4, 1);
	uint32_t v[PRODUCED_N];
	for (uint32_t k = 0; k < PRODUCED_N; k++)
		v[k] = PATTERN + k;
	pm4_mem_write(&b, shared.gpu_addr + PRODUCED * 4, v, PRODUCED_N);
	REQUIRE(pm4_builder_ok(&b));
	int f = -1;
	REQUIRE(msm_submit(node, ib.handle, shared.handle, 0, pm4_builder_bytes(&b), MSM_SUBMIT_FENCE_FD_OUT, &f) == 0);
	int buf_fd = -1;
	REQUIRE(drmPrimeHandleToFD(node, shared.handle, DRM_CLOEXEC | DRM_RDWR, &buf_fd) == 0);

	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	REQUIRE(st_send_fd(sv[0], buf_fd) == 0 && st_send_fd(sv[0], f) == 0);
	close(buf_fd);
	struct gatekeeper gk = { sv[0], &w[GATE] };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, gatekeeper, &gk) == 0);
	char out[8192];
	int st = run_child("--child-msm", sv[1], out, sizeof(out));
	close(sv[1]); /* the gatekeeper's read ends if the child never wrote */
	pthread_join(t, NULL);
	close(sv[0]);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, "child: done, 0 failed\n") != NULL);
	CHECK(st_sync_ready(f, WAIT_MS));
	for (uint32_t k = 0; k < PRODUCED_N; k++)
		CHECK_EQ(w[COPIED + k], PATTERN + k); /* the child's GPU, after the parent's */
	if (test_failures)
		fprintf(stderr, "child's stderr:\n%s\n", out);
	CHECK_EQ(close(f), 0);
	st_bo_free(node, &ib);
	st_bo_free(node, &shared);
	close(node);
}

/* The second process with a lost context's file: the error it reports there, kept through a
 * merge with a pending file and through a syncobj's import and export, as the kernel keeps
 * the fence. */
static int child_lost(int sock)
{
	int f = st_recv_fd(sock);
	REQUIRE(f >= 0);
	CHECK(st_sync_ready(f, WAIT_MS));
	struct sync_file_info i;
	struct sync_fence_info fi;
	CHECK_EQ(st_sync_info(f, &i, &fi, 1), 0);
	CHECK_EQ(fi.status, i.status);
	CHECK(i.status < 0);
	fprintf(stderr, "child: status=%d\n", i.status);

	int node = st_open_render();
	uint32_t so = 0;
	REQUIRE(drmSyncobjCreate(node, 0, &so) == 0);
	CHECK_EQ(drmSyncobjImportSyncFile(node, so, f), 0);
	CHECK_EQ(drmSyncobjWait(node, &so, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	int back = -1;
	CHECK_EQ(drmSyncobjExportSyncFile(node, so, &back), 0);
	struct sync_file_info bi;
	CHECK(back >= 0 && st_sync_info(back, &bi, NULL, 0) == 0);
	CHECK_EQ(bi.status, i.status);
	fprintf(stderr, "child: exported status=%d\n", bi.status);
	if (back >= 0)
		close(back);
	CHECK_EQ(drmSyncobjDestroy(node, so), 0);
	close(node);
	CHECK_EQ(close(f), 0);
	fprintf(stderr, "child: done, %d failed\n", test_failures);
	return test_failures ? 1 : 0;
}

/* A submit that never finishes: the context is lost (ferry's hang check, the fake kernel's), its
 * fence fails, and a file of it fails with the same error in the other process. */
static void test_msm_lost_context(void)
{
	int node = st_open_render();
	struct st_bo ib, data;
	st_bo_new(node, true, 4096, &ib);
	st_bo_new(node, true, 4096, &data);
	memset(data.map, 0, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 1024);
	pm4_wait_mem_gte(&b, data.gpu_addr + NEVER * 4, 1);
	REQUIRE(pm4_builder_ok(&b));
	int f = -1;
	REQUIRE(msm_submit(node, ib.handle, data.handle, 0, pm4_builder_bytes(&b), MSM_SUBMIT_FENCE_FD_OUT, &f) == 0);
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	REQUIRE(st_send_fd(sv[0], f) == 0);
	char out[8192];
	int st = run_child("--child-lost", sv[1], out, sizeof(out));
	close(sv[0]);
	close(sv[1]);
	CHECK(st_sync_ready(f, 0));
	struct sync_file_info i;
	CHECK_EQ(st_sync_info(f, &i, NULL, 0), 0);
	CHECK(i.status < 0);
	char want[64], want2[64];
	snprintf(want, sizeof(want), "child: status=%d\n", i.status);
	snprintf(want2, sizeof(want2), "child: exported status=%d\n", i.status);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, want) != NULL);
	CHECK(strstr(out, want2) != NULL);
	if (!strstr(out, want))
		fprintf(stderr, "wanted %schild's stderr:\n%s\n", want, out);
	CHECK_EQ(close(f), 0);
	st_bo_free(node, &ib);
	st_bo_free(node, &data);
	close(node);
}

/* The second process, V3D: the parent's copy job's file, then a job of its own after it. */
static int child_v3d(int sock)
{
	int buf_fd;
	uint32_t h = 0;
	int node = st_child_import(sock, &buf_fd, &h);
	int f = st_recv_fd(sock);
	REQUIRE(f >= 0);
	struct drm_v3d_mmap_bo mo = { .handle = h };
	REQUIRE(st_ioctl(node, DRM_IOCTL_V3D_MMAP_BO, &mo) == 0);
	volatile uint8_t *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, node, (off_t)mo.offset);
	REQUIRE(map != MAP_FAILED);
	/* The parent's job may still run: a syncobj of this open waits for the file. */
	uint32_t so = 0;
	REQUIRE(drmSyncobjCreate(node, 0, &so) == 0);
	CHECK_EQ(drmSyncobjImportSyncFile(node, so, f), 0);
	struct st_job j;
	st_job_build(node, false, 0x0c4117du, &j);
	CHECK_EQ(st_job_submit(node, &j, so, 0, NULL), 0);
	CHECK(st_sync_ready(f, WAIT_MS));
	struct sync_file_info i;
	CHECK_EQ(st_sync_info(f, &i, NULL, 0), 0);
	CHECK_EQ(i.status, 1);
	fprintf(stderr, "child: sum=0x%08x\n", st_fnv(map, 4096));
	struct drm_v3d_wait_bo w = { .handle = j.bos[3].handle, .timeout_ns = ST_WAIT_NS };
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_V3D_WAIT_BO, &w), 0);
	CHECK(st_job_done(&j));
	st_job_free(node, &j);
	CHECK_EQ(drmSyncobjDestroy(node, so), 0);
	CHECK_EQ(close(f), 0);
	munmap((void *)map, 4096);
	struct drm_gem_close gc = { .handle = h };
	CHECK_EQ(st_ioctl(node, DRM_IOCTL_GEM_CLOSE, &gc), 0);
	close(buf_fd);
	close(node);
	fprintf(stderr, "child: done, %d failed\n", test_failures);
	return test_failures ? 1 : 0;
}

static void test_v3d_share(void)
{
	int node = st_open_render();
	struct st_job j;
	st_job_build(node, false, 0x7e57a11u, &j);
	uint32_t so = 0;
	REQUIRE(drmSyncobjCreate(node, 0, &so) == 0);
	REQUIRE(st_job_submit(node, &j, 0, so, NULL) == 0);
	int f = -1, buf_fd = -1;
	REQUIRE(drmSyncobjExportSyncFile(node, so, &f) == 0);
	REQUIRE(drmPrimeHandleToFD(node, j.bos[3].handle, DRM_CLOEXEC | DRM_RDWR, &buf_fd) == 0);
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	REQUIRE(st_send_fd(sv[0], buf_fd) == 0 && st_send_fd(sv[0], f) == 0);
	close(buf_fd);
	char out[8192], want[64];
	int st = run_child("--child-v3d", sv[1], out, sizeof(out));
	close(sv[0]);
	close(sv[1]);
	CHECK(st_sync_ready(f, 0));
	CHECK(st_job_done(&j));
	snprintf(want, sizeof(want), "child: sum=0x%08x\n", st_fnv(j.bos[3].map, 4096));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, want) != NULL); /* the job's bytes, seen there once the file signaled */
	CHECK(strstr(out, "child: done, 0 failed\n") != NULL);
	if (test_failures)
		fprintf(stderr, "wanted %schild's stderr:\n%s\n", want, out);
	CHECK_EQ(close(f), 0);
	CHECK_EQ(drmSyncobjDestroy(node, so), 0);
	st_job_free(node, &j);
	close(node);
}

static void say(int sock, char c)
{
	CHECK_EQ(write(sock, &c, 1), 1);
}

static char hear(int sock)
{
	char c = 0;
	struct pollfd p = { .fd = sock, .events = POLLIN };
	if (poll(&p, 1, WAIT_MS) != 1 || read(sock, &c, 1) != 1)
		return 0;
	return c;
}

/* The second process with two opaque syncobj fds of the parent's, empty when they came. */
static int child_syncobj(int sock)
{
	int fa = st_recv_fd(sock), fb = st_recv_fd(sock);
	REQUIRE(fa >= 0 && fb >= 0);
	int node = st_open_render();
	uint32_t a = 0, b = 0;
	CHECK_EQ(drmSyncobjFDToHandle(node, fa, &a), 0);
	CHECK_EQ(drmSyncobjFDToHandle(node, fb, &b), 0);
	/* Nothing submitted yet: without WAIT_FOR_SUBMIT the kernel refuses the wait. */
	CHECK_EQ(drmSyncobjWait(node, &a, 1, st_now_ns(), 0, NULL), -EINVAL);
	say(sock, 'r');
	/* The parent submits to a a while after this wait began. */
	int r = drmSyncobjWait(node, &a, 1, st_now_ns() + ST_WAIT_NS,
			       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	CHECK_EQ(r, 0);
	fprintf(stderr, "child: waited for the parent's submit: %d\n", r);
	say(sock, 'w');
	/* A job of this process after the parent's fence, signaling b for the parent. */
	struct st_job j;
	drmVersionPtr v = drmGetVersion(node);
	REQUIRE(v != NULL);
	bool msm = strcmp(v->name, "msm") == 0;
	drmFreeVersion(v);
	st_job_build(node, msm, 0x5eb0b0u, &j);
	CHECK_EQ(st_job_submit(node, &j, a, b, NULL), 0);
	/* Waited for here before the parent hears of it: the parent resets b once it saw it. */
	CHECK_EQ(drmSyncobjWait(node, &b, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK(st_job_done(&j));
	say(sock, 's');
	/* The parent resets b: this process sees no fence there any more, then signals it. */
	CHECK_EQ(hear(sock), 'x');
	CHECK_EQ(drmSyncobjWait(node, &b, 1, st_now_ns(), 0, NULL), -EINVAL);
	CHECK_EQ(drmSyncobjSignal(node, &b, 1), 0);
	st_job_free(node, &j);
	CHECK_EQ(drmSyncobjDestroy(node, a), 0);
	CHECK_EQ(drmSyncobjDestroy(node, b), 0);
	close(node);
	close(fa);
	close(fb);
	fprintf(stderr, "child: done, %d failed\n", test_failures);
	return test_failures ? 1 : 0;
}

/* A socket that is no syncobj fd, or one whose record is garbage: refused, nothing made. */
static bool refused(int node, int fd)
{
	uint32_t h = 0;
	int r = drmSyncobjFDToHandle(node, fd, &h); /* libdrm: -1 and errno */
	return r == -1 && errno == EINVAL && h == 0;
}

static void check_refused_fds(int node)
{
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
	CHECK(refused(node, sv[0]));
	close(sv[0]);
	close(sv[1]);
	int d = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(addr);
	REQUIRE(d >= 0 && bind(d, (struct sockaddr *)&addr, sizeof(sa_family_t)) == 0 &&
		getsockname(d, (struct sockaddr *)&addr, &len) == 0 && connect(d, (struct sockaddr *)&addr, len) == 0);
	CHECK(refused(node, d)); /* empty: no record */
	CHECK_EQ(send(d, "not a syncobj state", 19, 0), 19);
	CHECK(refused(node, d));
	/* A record of the right shape with generation 0, which no library writes. */
	char drain[64];
	CHECK_EQ(recv(d, drain, sizeof(drain), MSG_DONTWAIT), 19);
	struct {
		uint32_t magic, has_fence;
		uint64_t gen;
	} rec = { 0x4e595346u, 0, 0 };
	CHECK_EQ(send(d, &rec, sizeof(rec), 0), (ssize_t)sizeof(rec));
	CHECK(refused(node, d));
	close(d);
}

/* An export that fails after the socket was made (no fd left for the caller's copy) leaves the
 * syncobj as it was. */
static void check_failed_export(int node)
{
	uint32_t h = 0;
	REQUIRE(drmSyncobjCreate(node, DRM_SYNCOBJ_CREATE_SIGNALED, &h) == 0);
	struct rlimit old, tight;
	REQUIRE(getrlimit(RLIMIT_NOFILE, &old) == 0);
	int fill[1024], nf = 0, x;
	tight = (struct rlimit){ 256, old.rlim_max };
	REQUIRE(setrlimit(RLIMIT_NOFILE, &tight) == 0);
	while (nf < 1024 && (x = dup(0)) >= 0)
		fill[nf++] = x;
	if (nf)
		close(fill[--nf]); /* one free slot: the socket takes it, the caller's copy fails */
	int fd = -1;
	int r = drmSyncobjHandleToFD(node, h, &fd);
	int e = errno;
	while (nf)
		close(fill[--nf]);
	REQUIRE(setrlimit(RLIMIT_NOFILE, &old) == 0);
	CHECK(r == -1 && e == EMFILE);
	if (r == 0)
		close(fd);
	CHECK_EQ(drmSyncobjWait(node, &h, 1, st_now_ns(), 0, NULL), 0); /* still signaled */
	CHECK_EQ(drmSyncobjDestroy(node, h), 0);
}

struct syncobj_parent {
	int node, sock;
	uint32_t a, b;
	struct st_job j;
};

/* The parent's half of the exchange, while the child runs. */
static void *syncobj_parent(void *p)
{
	struct syncobj_parent *sp = p;
	CHECK_EQ(hear(sp->sock), 'r');
	st_sleep_ms(50); /* the child's wait for a submit has begun */
	CHECK_EQ(st_job_submit(sp->node, &sp->j, 0, sp->a, NULL), 0);
	CHECK_EQ(hear(sp->sock), 'w');
	CHECK(st_job_done(&sp->j)); /* the child's wait ended only once this job had */
	CHECK_EQ(hear(sp->sock), 's');
	CHECK_EQ(drmSyncobjWait(sp->node, &sp->b, 1, st_now_ns() + ST_WAIT_NS,
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), 0);
	CHECK_EQ(drmSyncobjReset(sp->node, &sp->b, 1), 0);
	say(sp->sock, 'x');
	return NULL;
}

static void test_syncobj_share(void)
{
	struct syncobj_parent sp = { .node = st_open_render() };
	int node = sp.node;
	check_refused_fds(node);
	check_failed_export(node);
	REQUIRE(drmSyncobjCreate(node, 0, &sp.a) == 0 && drmSyncobjCreate(node, 0, &sp.b) == 0);
	int fa = -1, fb = -1;
	REQUIRE(drmSyncobjHandleToFD(node, sp.a, &fa) == 0 && drmSyncobjHandleToFD(node, sp.b, &fb) == 0);
	st_job_build(node, env.msm, 0xa11ce5u, &sp.j);
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	REQUIRE(st_send_fd(sv[0], fa) == 0 && st_send_fd(sv[0], fb) == 0);
	sp.sock = sv[0];
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, syncobj_parent, &sp) == 0);
	char out[8192];
	int st = run_child("--child-syncobj", sv[1], out, sizeof(out));
	close(sv[1]); /* the parent's half hears nothing more if the child died */
	pthread_join(t, NULL);
	close(sv[0]);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, "child: done, 0 failed\n") != NULL);
	if (test_failures)
		fprintf(stderr, "child's stderr:\n%s\n", out);
	uint32_t a = sp.a, b = sp.b;
	/* The child signaled b and left: the state outlives it, as the kernel's syncobj its file. */
	CHECK_EQ(drmSyncobjWait(node, &b, 1, st_now_ns(), 0, NULL), 0);
	/* The fd comes back here as the same syncobj; with every handle gone it keeps the state. */
	uint32_t a2 = 0;
	CHECK_EQ(drmSyncobjFDToHandle(node, fa, &a2), 0);
	CHECK(a2 != 0 && a2 != a);
	CHECK_EQ(drmSyncobjReset(node, &a2, 1), 0);
	CHECK_EQ(drmSyncobjWait(node, &a, 1, st_now_ns(), 0, NULL), -EINVAL);
	CHECK_EQ(drmSyncobjSignal(node, &a, 1), 0);
	CHECK_EQ(drmSyncobjDestroy(node, a), 0);
	CHECK_EQ(drmSyncobjDestroy(node, a2), 0);
	CHECK_EQ(drmSyncobjFDToHandle(node, fa, &a), 0);
	CHECK_EQ(drmSyncobjWait(node, &a, 1, st_now_ns(), 0, NULL), 0);
	CHECK_EQ(drmSyncobjDestroy(node, a), 0);
	CHECK_EQ(drmSyncobjDestroy(node, b), 0);
	CHECK_EQ(close(fa), 0);
	CHECK_EQ(close(fb), 0);
	st_job_free(node, &sp.j);
	close(node);
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--child-msm") == 0)
		return child_msm(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "--child-lost") == 0)
		return child_lost(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "--child-v3d") == 0)
		return child_v3d(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "--child-syncobj") == 0)
		return child_syncobj(atoi(argv[2]));
	st_setup(argc, argv, &env);
	RUN_TEST(test_syncobj_share);
	if (env.msm) {
		RUN_TEST(test_msm_share);
		RUN_TEST(test_msm_lost_context);
	} else {
		RUN_TEST(test_v3d_share);
	}
	st_teardown(&env);
	return test_finish();
}
