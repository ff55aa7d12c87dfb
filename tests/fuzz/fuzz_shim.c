/* libFuzzer target for the shim's ioctl argument handling on the fake kernel: every ioctl of the
 * render node (size and direction of the user struct varied) through shim_backend_ioctl, which
 * is drm_ioctl's copy-in / copy-out and the simulated msm or v3d kernel's argument decoding. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "shim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The harness is the process's identity (identity.c is not linked): the family switches per
 * input, while both simulated devices live as long as the process, as a kernel does. */
static struct shim_identity ident;

const struct shim_identity *shim_identity(void)
{
	return &ident;
}

void shim_log(bool error, const char *fmt, ...)
{
	(void)error;
	(void)fmt;
}

/* What the kernel would find behind the user pointers inside an argument: four regions of a
 * buffer the input fills, with every count clamped to its region, as a well-behaved caller's
 * pointers are (a wild pointer is the caller's own crash, in the shim as in any library). */
#define REGION 256u
enum { R_BOS, R_CMDS, R_RELOCS, R_SYNCS, NR_REGIONS };
static uint64_t blob[NR_REGIONS * REGION / 8];
#define REGION_PTR(r) ((uint64_t)(uintptr_t)((uint8_t *)blob + (r) * REGION))

/* fds the input got from the node (PRIME / syncobj exports): later imports take one of them,
 * never a number the input chose (that would be any fd of the process). */
#define MAX_FDS 8
static int fds[MAX_FDS];
static int nr_fds;

static void keep_fd(int fd)
{
	if (fd < 0)
		return;
	if (nr_fds < MAX_FDS)
		fds[nr_fds++] = fd;
	else
		close(fd);
}

static int pick_fd(int32_t sel)
{
	return nr_fds ? fds[(uint32_t)sel % (uint32_t)nr_fds] : -1;
}

static uint32_t clamp(uint32_t n, uint32_t max)
{
	return n < max ? n : max;
}

/* The fuzzer's memory budget, not a kernel rule: the node (like the kernel) makes BOs of any
 * size memory allows, and a copy or fill the simulated GPU runs into a 1.7 GB BO touches all of
 * it, which would end the run at libFuzzer's 2 GB RSS limit without finding anything. */
#define MAX_BO_SIZE (16u << 20)

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits are bounded to a millisecond from now: a wait for a fence nothing will signal is not
 * a finding. */
static int64_t clamp_abs_ns(int64_t abs)
{
	int64_t limit = now_ns() + 1000000;
	return abs > limit ? limit : abs;
}

static void clamp_timespec(struct drm_msm_timespec *t)
{
	int64_t limit = now_ns() + 1000000;
	if (t->tv_sec > limit / 1000000000 || t->tv_sec < 0 || t->tv_nsec < 0 || t->tv_nsec >= 1000000000 ||
	    t->tv_sec * 1000000000 + t->tv_nsec > limit) {
		t->tv_sec = limit / 1000000000;
		t->tv_nsec = limit % 1000000000;
	}
}

enum fix {
	FIX_NONE, FIX_MSM_GEM_NEW, FIX_V3D_CREATE_BO, FIX_MSM_PARAM, FIX_MSM_GEM_INFO, FIX_MSM_SUBMIT, FIX_MSM_QUERY, FIX_MSM_CPU_PREP, FIX_MSM_WAIT,
	FIX_V3D_CL, FIX_V3D_CSD, FIX_V3D_TFU, FIX_V3D_WAIT, FIX_VERSION, FIX_PRIME_IMPORT, FIX_PRIME_EXPORT,
	FIX_SYNC_WAIT, FIX_SYNC_ARRAY, FIX_SYNC_IMPORT, FIX_SYNC_EXPORT, FIX_TL_WAIT, FIX_TL_ARRAY, FIX_TRANSFER,
};

/* Driver ioctl numbers overlap between msm and v3d, so each open gets its family's list and the
 * DRM core's (family 0). */
struct req {
	unsigned long request;
	enum fix fix;
	enum shim_family family;
};

static const struct req reqs[] = {
	{ DRM_IOCTL_MSM_GET_PARAM, FIX_MSM_PARAM, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_SET_PARAM, FIX_MSM_PARAM, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_GEM_NEW, FIX_MSM_GEM_NEW, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_GEM_INFO, FIX_MSM_GEM_INFO, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_GEM_CPU_PREP, FIX_MSM_CPU_PREP, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_GEM_CPU_FINI, FIX_NONE, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_GEM_SUBMIT, FIX_MSM_SUBMIT, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_WAIT_FENCE, FIX_MSM_WAIT, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_GEM_MADVISE, FIX_NONE, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_SUBMITQUEUE_NEW, FIX_NONE, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, FIX_NONE, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, FIX_MSM_QUERY, SHIM_FAMILY_MSM },
	{ DRM_IOCTL_V3D_SUBMIT_CL, FIX_V3D_CL, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_V3D_WAIT_BO, FIX_V3D_WAIT, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_V3D_CREATE_BO, FIX_V3D_CREATE_BO, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_V3D_MMAP_BO, FIX_NONE, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_V3D_GET_PARAM, FIX_NONE, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_V3D_GET_BO_OFFSET, FIX_NONE, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_V3D_SUBMIT_TFU, FIX_V3D_TFU, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_V3D_SUBMIT_CSD, FIX_V3D_CSD, SHIM_FAMILY_V3D },
	{ DRM_IOCTL_VERSION, FIX_VERSION, 0 },
	{ DRM_IOCTL_GET_CAP, FIX_NONE, 0 },
	{ DRM_IOCTL_GEM_CLOSE, FIX_NONE, 0 },
	{ DRM_IOCTL_PRIME_HANDLE_TO_FD, FIX_PRIME_EXPORT, 0 },
	{ DRM_IOCTL_PRIME_FD_TO_HANDLE, FIX_PRIME_IMPORT, 0 },
	{ DRM_IOCTL_SYNCOBJ_CREATE, FIX_NONE, 0 },
	{ DRM_IOCTL_SYNCOBJ_DESTROY, FIX_NONE, 0 },
	{ DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, FIX_SYNC_EXPORT, 0 },
	{ DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, FIX_SYNC_IMPORT, 0 },
	{ DRM_IOCTL_SYNCOBJ_WAIT, FIX_SYNC_WAIT, 0 },
	{ DRM_IOCTL_SYNCOBJ_RESET, FIX_SYNC_ARRAY, 0 },
	{ DRM_IOCTL_SYNCOBJ_SIGNAL, FIX_SYNC_ARRAY, 0 },
	{ DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, FIX_TL_WAIT, 0 },
	{ DRM_IOCTL_SYNCOBJ_QUERY, FIX_TL_ARRAY, 0 },
	{ DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, FIX_TL_ARRAY, 0 },
	{ DRM_IOCTL_SYNCOBJ_TRANSFER, FIX_TRANSFER, 0 },
	/* refused before their argument is read: an unknown driver nr, not DRM */
	{ DRM_IOWR(DRM_COMMAND_BASE + 0x1f, struct drm_msm_param), FIX_NONE, 0 },
	{ _IOWR('x', 1, struct drm_msm_param), FIX_NONE, 0 },
};
#define NR_REQS (sizeof(reqs) / sizeof(reqs[0]))

/* The request whose ioctl number is sel (how seeds name them), else the sel-th of the family's. */
static const struct req *pick_req(uint8_t sel)
{
	const struct req *mine[NR_REQS];
	unsigned n = 0;
	for (unsigned i = 0; i < NR_REQS; i++)
		if (!reqs[i].family || reqs[i].family == ident.family) {
			if (_IOC_NR(reqs[i].request) == sel && _IOC_TYPE(reqs[i].request) == DRM_IOCTL_BASE)
				return &reqs[i];
			mine[n++] = &reqs[i];
		}
	return mine[sel % n];
}

/* Points the argument's user pointers into the regions, clamps counts and timeouts, swaps fds. */
static void fix_arg(enum fix fix, void *arg)
{
	switch (fix) {
	case FIX_NONE:
	case FIX_PRIME_EXPORT:
	case FIX_SYNC_EXPORT:
		break;
	case FIX_MSM_GEM_NEW:
		((struct drm_msm_gem_new *)arg)->size %= MAX_BO_SIZE + 1;
		break;
	case FIX_V3D_CREATE_BO:
		((struct drm_v3d_create_bo *)arg)->size %= MAX_BO_SIZE + 1;
		break;
	case FIX_MSM_PARAM: {
		struct drm_msm_param *a = arg;
		if (a->len) {
			a->value = REGION_PTR(R_BOS);
			a->len = clamp(a->len, REGION);
		}
		break;
	}
	case FIX_MSM_GEM_INFO: {
		struct drm_msm_gem_info *a = arg;
		if (a->info == MSM_INFO_SET_NAME || a->info == MSM_INFO_GET_NAME) {
			a->value = REGION_PTR(R_BOS);
			a->len = clamp(a->len, REGION);
		}
		break;
	}
	case FIX_MSM_SUBMIT: {
		struct drm_msm_gem_submit *a = arg;
		a->bos = REGION_PTR(R_BOS);
		a->nr_bos = clamp(a->nr_bos, REGION / sizeof(struct drm_msm_gem_submit_bo));
		a->cmds = REGION_PTR(R_CMDS);
		a->nr_cmds = clamp(a->nr_cmds, REGION / sizeof(struct drm_msm_gem_submit_cmd));
		struct drm_msm_gem_submit_cmd *cmds = (void *)(uintptr_t)a->cmds;
		for (uint32_t i = 0; i < a->nr_cmds; i++) {
			cmds[i].relocs = REGION_PTR(R_RELOCS);
			cmds[i].nr_relocs = clamp(cmds[i].nr_relocs, REGION / sizeof(struct drm_msm_gem_submit_reloc));
		}
		a->in_syncobjs = a->out_syncobjs = REGION_PTR(R_SYNCS);
		uint32_t max = a->syncobj_stride ? REGION / a->syncobj_stride : 64;
		a->nr_in_syncobjs = clamp(a->nr_in_syncobjs, clamp(max, 64));
		a->nr_out_syncobjs = clamp(a->nr_out_syncobjs, clamp(max, 64));
		break;
	}
	case FIX_MSM_QUERY: {
		struct drm_msm_submitqueue_query *a = arg;
		a->data = REGION_PTR(R_BOS);
		a->len = clamp(a->len, REGION);
		break;
	}
	case FIX_MSM_CPU_PREP:
		clamp_timespec(&((struct drm_msm_gem_cpu_prep *)arg)->timeout);
		break;
	case FIX_MSM_WAIT:
		clamp_timespec(&((struct drm_msm_wait_fence *)arg)->timeout);
		break;
	case FIX_V3D_CL: {
		struct drm_v3d_submit_cl *a = arg;
		a->bo_handles = REGION_PTR(R_BOS);
		a->bo_handle_count = clamp(a->bo_handle_count, REGION / 4);
		a->extensions = 0; /* the chain is not modeled here */
		break;
	}
	case FIX_V3D_CSD: {
		struct drm_v3d_submit_csd *a = arg;
		a->bo_handles = REGION_PTR(R_BOS);
		a->bo_handle_count = clamp(a->bo_handle_count, REGION / 4);
		a->extensions = 0;
		break;
	}
	case FIX_V3D_TFU:
		((struct drm_v3d_submit_tfu *)arg)->extensions = 0;
		break;
	case FIX_V3D_WAIT: {
		struct drm_v3d_wait_bo *a = arg;
		if (a->timeout_ns > 1000000)
			a->timeout_ns = 1000000;
		break;
	}
	case FIX_VERSION: {
		struct drm_version *a = arg;
		a->name = (char *)(uintptr_t)REGION_PTR(R_BOS);
		a->name_len = clamp((uint32_t)a->name_len, REGION);
		a->date = (char *)(uintptr_t)REGION_PTR(R_CMDS);
		a->date_len = clamp((uint32_t)a->date_len, REGION);
		a->desc = (char *)(uintptr_t)REGION_PTR(R_RELOCS);
		a->desc_len = clamp((uint32_t)a->desc_len, REGION);
		break;
	}
	case FIX_PRIME_IMPORT: {
		struct drm_prime_handle *a = arg;
		a->fd = pick_fd(a->fd);
		break;
	}
	case FIX_SYNC_IMPORT: {
		struct drm_syncobj_handle *a = arg;
		a->fd = pick_fd(a->fd);
		break;
	}
	case FIX_SYNC_WAIT: {
		struct drm_syncobj_wait *a = arg;
		a->handles = REGION_PTR(R_BOS);
		a->count_handles = clamp(a->count_handles, REGION / 4);
		a->timeout_nsec = clamp_abs_ns(a->timeout_nsec);
		break;
	}
	case FIX_SYNC_ARRAY: {
		struct drm_syncobj_array *a = arg;
		a->handles = REGION_PTR(R_BOS);
		a->count_handles = clamp(a->count_handles, REGION / 4);
		break;
	}
	case FIX_TL_WAIT: {
		struct drm_syncobj_timeline_wait *a = arg;
		a->handles = REGION_PTR(R_BOS);
		a->points = a->points ? REGION_PTR(R_SYNCS) : 0; /* NULL points: all 0, as the kernel */
		a->count_handles = clamp(a->count_handles, REGION / 8);
		a->timeout_nsec = clamp_abs_ns(a->timeout_nsec);
		break;
	}
	case FIX_TL_ARRAY: {
		struct drm_syncobj_timeline_array *a = arg;
		a->handles = REGION_PTR(R_BOS);
		a->points = a->points ? REGION_PTR(R_SYNCS) : 0;
		a->count_handles = clamp(a->count_handles, REGION / 8);
		break;
	}
	case FIX_TRANSFER:
		/* WAIT_FOR_SUBMIT waits the kernel's 5 s for a point nothing submits: not a finding. */
		((struct drm_syncobj_transfer *)arg)->flags &= ~(uint32_t)DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
		break;
	}
}

/* An export's fd belongs to the caller now. */
static void take_fds(enum fix fix, const void *arg, int ret)
{
	if (ret != 0)
		return;
	if (fix == FIX_PRIME_EXPORT)
		keep_fd(((const struct drm_prime_handle *)arg)->fd);
	else if (fix == FIX_SYNC_EXPORT)
		keep_fd(((const struct drm_syncobj_handle *)arg)->fd);
}

static void fuzz_init(void)
{
	/* Both simulated devices, made the way the fake kernel makes them (FERRY_GPU). */
	struct shim_identity id;
	/* Everything the node can offer, timeline syncobjs included (off by default). */
	if (setenv("FERRY_SYNCOBJ_TIMELINE", "1", 1) || setenv("FERRY_GPU", "a630", 1) || shim_backend_identify(&id) ||
	    setenv("FERRY_GPU", "v3d-4.2", 1) || shim_backend_identify(&id))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static uint64_t argbuf[512 / 8];
	if (!ready) {
		fuzz_init();
		ready = true;
	}
	if (size < 1)
		return 0;
	ident.family = data[0] & 1 ? SHIM_FAMILY_V3D : SHIM_FAMILY_MSM;
	snprintf(ident.gpu, sizeof(ident.gpu), "%s", data[0] & 1 ? "v3d-4.2" : "a630");
	struct shim_dev *dev;
	if (shim_backend_open(&dev) != 0)
		abort();
	nr_fds = 0;

	/* Records: u8 which (an ioctl number), i8 size change, u8 argument bytes, u16 pointed-to
	 * bytes (fuzz_seeds writes them), then both. */
	size_t pos = 1;
	for (int n = 0; n < 64 && size - pos >= 5; n++) {
		const struct req *r = pick_req(data[pos]);
		int delta = (int8_t)data[pos + 1];
		size_t arg_len = data[pos + 2];
		size_t blob_len = (size_t)data[pos + 3] | (size_t)data[pos + 4] << 8;
		pos += 5;
		arg_len = arg_len < size - pos ? arg_len : size - pos;
		blob_len = blob_len < sizeof(blob) ? blob_len : sizeof(blob);
		memset(argbuf, 0, sizeof(argbuf));
		memcpy(argbuf, data + pos, arg_len);
		pos += arg_len;
		blob_len = blob_len < size - pos ? blob_len : size - pos;
		memset(blob, 0, sizeof(blob));
		memcpy(blob, data + pos, blob_len);
		pos += blob_len;

		/* The caller's struct may be shorter or longer than the kernel's (older / newer
		 * headers): the request's size field says how long. */
		long usize = (long)_IOC_SIZE(r->request) + delta;
		if (usize < 0)
			usize = 0;
		if (usize > (long)sizeof(argbuf))
			usize = sizeof(argbuf);
		/* A struct cut inside a user pointer would hand the kernel half a pointer, which
		 * the simulated kernel (in process, without copy_from_user) cannot refuse: cut
		 * structs with pointers only between fields (they are 8-byte aligned). */
		if (r->fix != FIX_NONE && usize < (long)_IOC_SIZE(r->request))
			usize &= ~7l;
		unsigned long request = _IOC(_IOC_DIR(r->request), _IOC_TYPE(r->request), _IOC_NR(r->request),
					     (unsigned long)usize);
		fix_arg(r->fix, argbuf);
		/* Past the caller's struct is the caller's other memory: nothing may write there. */
		memset((uint8_t *)argbuf + usize, 0xa5, sizeof(argbuf) - (size_t)usize);
		int ret = shim_backend_ioctl(dev, request, argbuf);
		if (getenv("FERRY_FUZZ_VERBOSE")) /* to check what the seeds reach */
			fprintf(stderr, "ioctl nr 0x%02x size %ld: %d\n", (unsigned)_IOC_NR(request), usize, ret);
		if (ret > 0)
			abort(); /* 0 or -errno */
		for (size_t i = (size_t)usize; i < sizeof(argbuf); i++)
			if (((uint8_t *)argbuf)[i] != 0xa5)
				abort();
		take_fds(r->fix, argbuf, ret);
	}
	for (int i = 0; i < nr_fds; i++)
		close(fds[i]);
	shim_backend_close(dev);
	return 0;
}
