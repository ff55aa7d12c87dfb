/* Helpers of the shim / fake-kernel tests (see shim_test.h). */
#include "shim_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "pm4_builder.h"
#include "test.h"
#include "v3d_cl_builder.h"

#define CL_SIZE 16384u
#define V3D_JOB_W 8u
#define V3D_JOB_H 8u
#define MSM_JOB_INDEX 5u

static const char *arg_value(int argc, char **argv, const char *name)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return argv[i + 1];
	return NULL;
}

/* The library that answers ioctl() in this process must be the one the mode names: a test run
 * without the preload would otherwise talk to the real kernel (or to nothing). */
static void require_preloaded(const char *lib)
{
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "ioctl");
	bool ok = sym && dladdr(sym, &info) && info.dli_fname && strstr(info.dli_fname, lib);
	if (!ok)
		fprintf(stderr, "ioctl() is not %s's (LD_PRELOAD=%s)\n", lib,
			getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
	REQUIRE(ok);
}

void st_setup(int argc, char **argv, struct st_env *e)
{
	memset(e, 0, sizeof(*e));
	const char *mode = arg_value(argc, argv, "--mode");
	const char *gpu = arg_value(argc, argv, "--gpu");
	REQUIRE(mode && gpu);
	REQUIRE(strcmp(mode, "shim") == 0 || strcmp(mode, "fakekernel") == 0);
	e->mode = strcmp(mode, "shim") == 0 ? ST_MODE_SHIM : ST_MODE_FAKEKERNEL;
	e->gpu = gpu;
	e->msm = strncmp(gpu, "v3d-", 4) != 0;
	ssize_t n = readlink("/proc/self/exe", e->self, sizeof(e->self) - 1);
	REQUIRE(n > 0);
	e->self[n] = '\0';
	const char *pre = getenv("LD_PRELOAD");
	snprintf(e->preload, sizeof(e->preload), "%s", pre ? pre : "");
	require_preloaded(e->mode == ST_MODE_SHIM ? "libferry-shim.so" : "libferry-fakekernel.so");

	if (e->mode == ST_MODE_FAKEKERNEL) {
		REQUIRE(setenv("FERRY_GPU", gpu, 1) == 0);
		return;
	}
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	/* ferryd must not run with the shim in it: the preload is read at exec time, so dropping
	 * it from the environment around the spawn is enough. */
	unsetenv("LD_PRELOAD");
	/* One extra ferryd argument a test's meson entry asks for (e.g. shared V3D tenancy). */
	const char *arg = getenv("ST_FERRYD_ARG");
	const char *extra[] = { arg && *arg ? arg : NULL, NULL, NULL, NULL };
	/* ST_FERRYD_TCP=1: the shim reaches ferryd over tcp on 127.0.0.1 (no memory shared,
	 * docs/network.md). */
	bool tcp = getenv("ST_FERRYD_TCP") != NULL;
	if (tcp) {
		extra[extra[0] ? 1 : 0] = "--insecure";
		REQUIRE(setenv("FERRY_INSECURE", "1", 1) == 0); /* the shim's side of --insecure */
	}
	/* tcp: the listener is bound by the spawner and passed to ferryd (no port race). */
	int r = tcp ? ferryd_spawn_tcp(path, gpu, extra, true, 30000, &e->ferryd)
		    : ferryd_spawn(path, gpu, extra[0] ? extra : NULL, true, 30000, &e->ferryd);
	if (e->preload[0])
		setenv("LD_PRELOAD", e->preload, 1);
	REQUIRE(r == 0);
	e->has_ferryd = true;
	REQUIRE(setenv("FERRY_SOCKET", tcp ? e->ferryd.tcp_uri : e->ferryd.uri, 1) == 0);
}

void st_teardown(struct st_env *e)
{
	if (!e->has_ferryd)
		return;
	int st = ferryd_stop(&e->ferryd, 20000);
	bool clean = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!clean)
		ferryd_dump_log(&e->ferryd, 40);
	CHECK(clean);
	e->has_ferryd = false;
}

void st_render_path(char *buf, size_t len)
{
	drmDevicePtr devs[16];
	int n = drmGetDevices2(0, devs, 16);
	REQUIRE(n > 0);
	int found = 0;
	for (int i = 0; i < n; i++) {
		if (devs[i]->available_nodes & (1 << DRM_NODE_RENDER)) {
			snprintf(buf, len, "%s", devs[i]->nodes[DRM_NODE_RENDER]);
			found++;
		}
	}
	drmFreeDevices(devs, n);
	REQUIRE(found == 1);
}

int st_open_render(void)
{
	char path[256];
	st_render_path(path, sizeof(path));
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "open %s: %s\n", path, strerror(errno));
	REQUIRE(fd >= 0);
	return fd;
}

int st_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) == 0 ? 0 : -errno;
}

int64_t st_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * ST_NS_PER_SEC + ts.tv_nsec;
}

void st_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int st_rerun(const struct st_env *e, const char *const *args, const char *env, char *buf, size_t len)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (env)
			putenv((char *)env);
		const char *argv[16] = { e->self };
		int n = 1;
		for (; args && args[n - 1] && n < 15; n++)
			argv[n] = args[n - 1];
		argv[n] = NULL;
		execv(e->self, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	size_t got = 0;
	for (;;) {
		ssize_t r = read(p[0], buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == len - 1)
			break;
	}
	buf[got] = '\0';
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* ---- BOs ---- */

static uint32_t page_round(uint64_t n)
{
	return (uint32_t)((n + 4095) & ~4095ull);
}

void st_bo_new(int fd, bool msm, uint32_t size, struct st_bo *b)
{
	memset(b, 0, sizeof(*b));
	b->size = size;
	if (msm) {
		struct drm_msm_gem_new n = { .size = size, .flags = MSM_BO_WC };
		REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_GEM_NEW, &n) == 0);
		b->handle = n.handle;
		struct drm_msm_gem_info i = { .handle = n.handle, .info = MSM_INFO_GET_IOVA };
		REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i) == 0);
		b->gpu_addr = i.value;
		i = (struct drm_msm_gem_info){ .handle = n.handle, .info = MSM_INFO_GET_OFFSET };
		REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i) == 0);
		b->mmap_offset = i.value;
	} else {
		struct drm_v3d_create_bo c = { .size = size };
		REQUIRE(st_ioctl(fd, DRM_IOCTL_V3D_CREATE_BO, &c) == 0);
		b->handle = c.handle;
		b->gpu_addr = c.offset;
		struct drm_v3d_mmap_bo m = { .handle = c.handle };
		REQUIRE(st_ioctl(fd, DRM_IOCTL_V3D_MMAP_BO, &m) == 0);
		b->mmap_offset = m.offset;
	}
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)b->mmap_offset);
	REQUIRE(p != MAP_FAILED);
	b->map = p;
}

void st_bo_free(int fd, struct st_bo *b)
{
	if (!b->handle)
		return;
	if (b->map)
		munmap(b->map, b->size);
	struct drm_gem_close c = { .handle = b->handle };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c), 0);
	memset(b, 0, sizeof(*b));
}

int st_v3d_ver(int fd)
{
	struct drm_v3d_get_param p0 = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT0 };
	struct drm_v3d_get_param p1 = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT1 };
	REQUIRE(st_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p0) == 0);
	REQUIRE(st_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p1) == 0);
	return (int)((p0.value >> 24) & 0xff) * 10 + (int)(p1.value & 0xf);
}

/* ---- jobs ---- */

static void msm_job_build(int fd, struct st_job *j)
{
	st_bo_new(fd, true, 4096, &j->bos[0]); /* IB */
	st_bo_new(fd, true, 4096, &j->bos[1]); /* destination */
	j->nr_bos = 2;
	memset(j->bos[1].map, 0, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)j->bos[0].map, 1024);
	pm4_mem_write(&b, j->bos[1].gpu_addr + MSM_JOB_INDEX * 4, &j->pattern, 1);
	REQUIRE(pm4_builder_ok(&b));
	j->ib_bytes = pm4_builder_bytes(&b);
}

/* cl: bin list, render list, its generic tile list; ta: tile alloc + state; src; dst. */
static void v3d_job_build(int fd, struct st_job *j)
{
	j->ver = st_v3d_ver(fd);
	REQUIRE(j->ver == 42 || j->ver == 71);
	uint32_t src_stride = V3D_JOB_W * 4 + 12, dst_stride = V3D_JOB_W * 4 + 4;
	st_bo_new(fd, false, 3 * CL_SIZE, &j->bos[0]);
	st_bo_new(fd, false, page_round((uint64_t)src_stride * V3D_JOB_H), &j->bos[2]);
	st_bo_new(fd, false, page_round((uint64_t)dst_stride * V3D_JOB_H), &j->bos[3]);
	struct v3d_clb_raster_job job = {
		.width = V3D_JOB_W, .height = V3D_JOB_H, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = j->ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = (uint32_t)j->bos[2].gpu_addr, .src_stride = src_stride,
		.dst_addr = (uint32_t)j->bos[3].gpu_addr, .dst_stride = dst_stride,
	};
	j->qms = v3d_clb_raster_tile_alloc_size(j->ver, &job);
	/* The implicit tile lists are fetched with read-ahead: slack past the blocks. */
	st_bo_new(fd, false, page_round((uint64_t)j->qms + 16384), &j->bos[1]);
	j->nr_bos = 4;
	job.tile_alloc_addr = (uint32_t)j->bos[1].gpu_addr;
	uint32_t cl = (uint32_t)j->bos[0].gpu_addr;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, j->ver, j->bos[0].map, CL_SIZE, cl);
	v3d_clb_init(&rcl, j->ver, j->bos[0].map + CL_SIZE, CL_SIZE, cl + CL_SIZE);
	v3d_clb_init(&ind, j->ver, j->bos[0].map + 2 * CL_SIZE, CL_SIZE, cl + 2 * CL_SIZE);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	j->bcl_end = v3d_clb_gpu_addr(&bcl);
	j->rcl_start = cl + CL_SIZE;
	j->rcl_end = v3d_clb_gpu_addr(&rcl);
	uint32_t seed = j->pattern;
	for (uint32_t i = 0; i < j->bos[2].size; i++) {
		seed = seed * 1103515245u + 12345u;
		j->bos[2].map[i] = (uint8_t)(seed >> 16);
	}
	memset(j->bos[3].map, 0xab, j->bos[3].size);
}

void st_job_build(int fd, bool msm, uint32_t pattern, struct st_job *j)
{
	memset(j, 0, sizeof(*j));
	j->msm = msm;
	j->pattern = pattern;
	if (msm)
		msm_job_build(fd, j);
	else
		v3d_job_build(fd, j);
}

/* The msm job as one GEM_SUBMIT with an optional in- and out-syncobj at points. */
static int msm_job_submit(int fd, struct st_job *j, uint32_t in_syncobj, uint64_t in_point, uint32_t out_syncobj,
			  uint64_t out_point, uint32_t *fence)
{
	struct drm_msm_gem_submit_bo bos[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = j->bos[0].handle },
		{ .flags = MSM_SUBMIT_BO_WRITE, .handle = j->bos[1].handle },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0, .size = j->ib_bytes };
	struct drm_msm_gem_submit_syncobj in = { .handle = in_syncobj, .point = in_point },
					  out = { .handle = out_syncobj, .point = out_point };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | (in_syncobj ? MSM_SUBMIT_SYNCOBJ_IN : 0) |
			 (out_syncobj ? MSM_SUBMIT_SYNCOBJ_OUT : 0),
		.nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)bos, .cmds = (uintptr_t)&cmd,
		.in_syncobjs = (uintptr_t)&in, .out_syncobjs = (uintptr_t)&out,
		.nr_in_syncobjs = in_syncobj ? 1 : 0, .nr_out_syncobjs = out_syncobj ? 1 : 0,
		.syncobj_stride = sizeof(in),
	};
	int r = st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	if (r == 0 && fence)
		*fence = s.fence;
	return r;
}

int st_job_submit_points(int fd, struct st_job *j, uint32_t in_syncobj, uint64_t in_point, uint32_t out_syncobj,
			 uint64_t out_point)
{
	if (j->msm)
		return msm_job_submit(fd, j, in_syncobj, in_point, out_syncobj, out_point, NULL);
	uint32_t handles[4];
	for (unsigned i = 0; i < 4; i++)
		handles[i] = j->bos[i].handle;
	struct drm_v3d_sem in = { .handle = in_syncobj, .point = in_point },
			   out = { .handle = out_syncobj, .point = out_point };
	struct drm_v3d_multi_sync ms = {
		.base = { .id = DRM_V3D_EXT_ID_MULTI_SYNC },
		.in_syncs = (uintptr_t)&in, .out_syncs = (uintptr_t)&out,
		.in_sync_count = in_syncobj ? 1 : 0, .out_sync_count = out_syncobj ? 1 : 0,
		.wait_stage = V3D_BIN,
	};
	struct drm_v3d_submit_cl s = {
		.bcl_start = (uint32_t)j->bos[0].gpu_addr, .bcl_end = j->bcl_end,
		.rcl_start = j->rcl_start, .rcl_end = j->rcl_end,
		.qma = (uint32_t)j->bos[1].gpu_addr, .qms = j->qms, .qts = (uint32_t)j->bos[1].gpu_addr,
		.bo_handles = (uintptr_t)handles, .bo_handle_count = 4,
		.flags = DRM_V3D_SUBMIT_EXTENSION, .extensions = (uintptr_t)&ms,
	};
	return st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s);
}

int st_job_submit(int fd, struct st_job *j, uint32_t in_syncobj, uint32_t out_syncobj, uint32_t *msm_fence)
{
	if (j->msm)
		return msm_job_submit(fd, j, in_syncobj, 0, out_syncobj, 0, msm_fence);
	uint32_t handles[4];
	for (unsigned i = 0; i < 4; i++)
		handles[i] = j->bos[i].handle;
	struct drm_v3d_submit_cl s = {
		.bcl_start = (uint32_t)j->bos[0].gpu_addr, .bcl_end = j->bcl_end,
		.rcl_start = j->rcl_start, .rcl_end = j->rcl_end,
		.in_sync_bcl = in_syncobj, .out_sync = out_syncobj,
		.qma = (uint32_t)j->bos[1].gpu_addr, .qms = j->qms, .qts = (uint32_t)j->bos[1].gpu_addr,
		.bo_handles = (uintptr_t)handles, .bo_handle_count = 4,
	};
	return st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s);
}

bool st_job_done(const struct st_job *j)
{
	if (j->msm)
		return ((const uint32_t *)j->bos[1].map)[MSM_JOB_INDEX] == j->pattern;
	uint32_t src_stride = V3D_JOB_W * 4 + 12, dst_stride = V3D_JOB_W * 4 + 4;
	for (uint32_t y = 0; y < V3D_JOB_H; y++) {
		if (memcmp(j->bos[3].map + (size_t)y * dst_stride, j->bos[2].map + (size_t)y * src_stride, V3D_JOB_W * 4))
			return false;
		for (uint32_t x = V3D_JOB_W * 4; x < dst_stride; x++)
			if (j->bos[3].map[(size_t)y * dst_stride + x] != 0xab)
				return false;
	}
	return true;
}

void st_job_free(int fd, struct st_job *j)
{
	for (unsigned i = 0; i < j->nr_bos; i++)
		st_bo_free(fd, &j->bos[i]);
	j->nr_bos = 0;
}

/* ---- fds between processes ---- */

int st_send_fd(int sock, int fd)
{
	char byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	memset(&u, 0, sizeof(u));
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int st_recv_fd(int sock)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* ---- sync files ---- */

bool st_sync_ready(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

int st_sync_info(int fd, struct sync_file_info *i, struct sync_fence_info *fences, uint32_t n)
{
	memset(i, 0, sizeof(*i));
	i->num_fences = n;
	i->sync_fence_info = (uintptr_t)fences;
	return ioctl(fd, SYNC_IOC_FILE_INFO, i) < 0 ? -errno : 0;
}

int st_sync_merge(int a, int b, const char *name, int *out)
{
	struct sync_merge_data m = { .fd2 = b };
	snprintf(m.name, sizeof(m.name), "%s", name);
	int r = ioctl(a, SYNC_IOC_MERGE, &m) < 0 ? -errno : 0;
	*out = m.fence;
	return r;
}

uint32_t st_fnv(const volatile uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

int st_child_import(int sock, int *buf_fd, uint32_t *handle)
{
	int node = st_open_render();
	*buf_fd = st_recv_fd(sock);
	REQUIRE(*buf_fd >= 0);
	struct drm_prime_handle p = { .fd = *buf_fd };
	int r = st_ioctl(node, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);
	if (r != 0)
		fprintf(stderr, "child: import: %s\n", strerror(-r));
	REQUIRE(r == 0);
	*handle = p.handle;
	return node;
}
