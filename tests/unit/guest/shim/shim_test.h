/* Helpers for the native tests of the guest uAPI shim (libferry-shim.so + a private ferryd) and
 * of the fake kernel (libferry-fakekernel.so): each test program runs with one of them in
 * LD_PRELOAD and reaches the node the way Mesa does, through libdrm and plain libc calls. */
#ifndef FERRY_TEST_SHIM_TEST_H
#define FERRY_TEST_SHIM_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ferryd_spawn.h"

#define ST_NS_PER_SEC 1000000000ll
/* Generous: ASan builds on a loaded 2-core machine. */
#define ST_WAIT_NS (20 * ST_NS_PER_SEC)

enum st_mode { ST_MODE_SHIM, ST_MODE_FAKEKERNEL };

struct st_env {
	enum st_mode mode;
	const char *gpu; /* ferryd's --gpu / FERRY_GPU name */
	bool msm;        /* else V3D */
	struct ferryd_proc ferryd;
	bool has_ferryd;
	char self[4096]; /* this program, for re-running it in a child */
	char preload[4096];
};

/* Parses "--mode shim|fakekernel --gpu NAME", checks the right library is preloaded (REQUIRE),
 * and in shim mode starts ferryd (without the preload, with $ST_FERRYD_ARG as one extra argument
 * when set) and points FERRY_SOCKET at it. Must run
 * before anything touches /dev/dri: the shim identifies its GPU once per process. */
void st_setup(int argc, char **argv, struct st_env *e);
/* Stops ferryd (CHECKs a clean exit). */
void st_teardown(struct st_env *e);

/* The render node's path as drmGetDevices2 reports it (REQUIREs exactly one), and an open of it. */
void st_render_path(char *buf, size_t len);
int st_open_render(void);

/* ioctl through libdrm: 0 or -errno. */
int st_ioctl(int fd, unsigned long request, void *arg);
int64_t st_now_ns(void);
void st_sleep_ms(unsigned ms);

/* Runs this program again (argv[0] = self) with extra args and env var `env` ("NAME=value", may
 * be NULL), stderr captured into buf. Returns the exit status (waitpid's) or -1. */
int st_rerun(const struct st_env *e, const char *const *args, const char *env, char *buf, size_t len);

/* One fd over a unix socket (SCM_RIGHTS, one byte of data): 0 or -errno; the fd received
 * (O_CLOEXEC) or -1. */
int st_send_fd(int sock, int fd);
int st_recv_fd(int sock);
/* A second process's start: its own open of the node, and the BO whose dma-buf comes first on
 * sock imported into it (REQUIREd). Returns the open; *buf_fd the dma-buf. */
int st_child_import(int sock, int *buf_fd, uint32_t *handle);

/* ---- sync files (linux/sync_file.h) ---- */
struct sync_file_info;
struct sync_fence_info;
/* poll() says POLLIN within timeout_ms. */
bool st_sync_ready(int fd, int timeout_ms);
/* SYNC_IOC_FILE_INFO with room for n fences: 0 or -errno. */
int st_sync_info(int fd, struct sync_file_info *i, struct sync_fence_info *fences, uint32_t n);
/* SYNC_IOC_MERGE of a and b named name: 0 and *out, or -errno. */
int st_sync_merge(int a, int b, const char *name, int *out);
/* FNV-1a of n bytes: a process reports what it sees, another compares with its own view. */
uint32_t st_fnv(const volatile uint8_t *p, size_t n);

/* ---- BOs ---- */
struct st_bo {
	uint32_t handle;
	uint64_t gpu_addr; /* msm iova, V3D address */
	uint64_t mmap_offset;
	uint32_t size;
	uint8_t *map;
};
/* A mapped BO of the node's family (msm: GEM_NEW WC + GEM_INFO; V3D: CREATE_BO + MMAP_BO).
 * REQUIREs success. */
void st_bo_new(int fd, bool msm, uint32_t size, struct st_bo *b);
void st_bo_free(int fd, struct st_bo *b);

/* ---- one small GPU job per family, checkable afterwards ----
 * msm: an IB writing `pattern` (CP_MEM_WRITE) into a second BO; V3D: a v3dv-shaped raster copy
 * of 8 x 8 RGBA8UI pixels (bin + render CL). */
struct st_job {
	bool msm;
	int ver; /* V3D: 42 or 71 */
	struct st_bo bos[4];
	unsigned nr_bos;
	uint32_t pattern;
	uint32_t ib_bytes; /* msm */
	/* V3D */
	uint32_t bcl_end, rcl_start, rcl_end, qms;
};
void st_job_build(int fd, bool msm, uint32_t pattern, struct st_job *j);
/* Submits it with an optional in- and out-syncobj (0 = none). 0 or -errno. */
int st_job_submit(int fd, struct st_job *j, uint32_t in_syncobj, uint32_t out_syncobj, uint32_t *msm_fence);
/* Submits it with an in- and an out-syncobj at points (msm: drm_msm_gem_submit_syncobj.point;
 * V3D: the multisync extension's drm_v3d_sem.point, waited at the bin stage). 0 or -errno. */
int st_job_submit_points(int fd, struct st_job *j, uint32_t in_syncobj, uint64_t in_point, uint32_t out_syncobj,
			 uint64_t out_point);
/* The job's result is in its destination BO. */
bool st_job_done(const struct st_job *j);
void st_job_free(int fd, struct st_job *j);

/* V3D: ((IDENT0 >> 24) & 0xff) * 10 + IDENT1 & 0xf -> 42 or 71. */
int st_v3d_ver(int fd);

#endif
