/* The v3d backend: device probe, BOs, CL / TFU / CSD submits with an out-syncobj each, fence
 * polling and fault reports, over struct kdev only. Every kernel-visible array is built here from
 * handles the core resolved; nothing guest-supplied is ever used as a pointer. */
#include "v3d.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kdev.h"
#include "shadow_pool.h"
#include "ferry/uapi/v3d_drm.h"

/* Out-syncobjs of retired jobs kept for the next submits: a job costs no SYNCOBJ_CREATE and
 * DESTROY. A kept one needs no SYNCOBJ_RESET either: a submit that succeeds replaces its fence
 * with the job's (v3d_attach_fences_and_unlock_reservation), and only such a submit's syncobj is
 * ever polled. The kernel frees those left at close. */
#define V3D_SYNC_POOL 32

struct v3d_ctx {
	struct kdev *kd;
	uint32_t nr_pool;
	uint32_t pool[V3D_SYNC_POOL];
};

static const uint32_t probed_params[] = {
	DRM_V3D_PARAM_V3D_UIFCFG,         DRM_V3D_PARAM_V3D_HUB_IDENT1,      DRM_V3D_PARAM_V3D_HUB_IDENT2,
	DRM_V3D_PARAM_V3D_HUB_IDENT3,     DRM_V3D_PARAM_V3D_CORE0_IDENT0,    DRM_V3D_PARAM_V3D_CORE0_IDENT1,
	DRM_V3D_PARAM_V3D_CORE0_IDENT2,   DRM_V3D_PARAM_SUPPORTS_TFU,        DRM_V3D_PARAM_SUPPORTS_CSD,
	DRM_V3D_PARAM_SUPPORTS_CACHE_FLUSH, DRM_V3D_PARAM_SUPPORTS_PERFMON,  DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT,
	DRM_V3D_PARAM_SUPPORTS_CPU_QUEUE, DRM_V3D_PARAM_MAX_PERF_COUNTERS,
};
_Static_assert(sizeof(probed_params) / sizeof(probed_params[0]) <= V3D_INFO_MAX_PARAMS, "params fit");

int v3d_probe(struct kdev *kd, struct v3d_dev_info *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t ident0 = 0, ident1 = 0;
	for (size_t i = 0; i < sizeof(probed_params) / sizeof(probed_params[0]); i++) {
		struct drm_v3d_get_param p = { .param = probed_params[i] };
		int ret = kdev_ioctl(kd, DRM_IOCTL_V3D_GET_PARAM, &p);
		if (ret == -EINVAL)
			continue; /* an older kernel: leave it out */
		if (ret < 0)
			return ret;
		out->params[out->nr_params++] = (struct ferry_param){ .id = probed_params[i], .value = p.value };
		switch (probed_params[i]) {
		case DRM_V3D_PARAM_V3D_CORE0_IDENT0: ident0 = p.value; break;
		case DRM_V3D_PARAM_V3D_CORE0_IDENT1: ident1 = p.value; break;
		case DRM_V3D_PARAM_SUPPORTS_TFU: out->has_tfu = p.value != 0; break;
		case DRM_V3D_PARAM_SUPPORTS_CSD: out->has_csd = p.value != 0; break;
		case DRM_V3D_PARAM_SUPPORTS_CACHE_FLUSH: out->has_cache_flush = p.value != 0; break;
		default: break;
		}
	}
	/* IDENT0[31:24] = VER, IDENT1[3:0] = REV (as Mesa's v3d_get_device_info). */
	out->ver = (uint32_t)((ident0 >> 24) & 0xff) * 10 + (uint32_t)(ident1 & 0xf);
	return 0;
}

int v3d_ctx_create(struct kdev *kd, struct v3d_ctx **out)
{
	struct v3d_ctx *vc = calloc(1, sizeof(*vc));
	if (!vc) {
		kd->ops->close(kd);
		return -ENOMEM;
	}
	vc->kd = kd;
	*out = vc;
	return 0;
}

void v3d_ctx_destroy(struct v3d_ctx *vc)
{
	if (!vc)
		return;
	vc->kd->ops->close(vc->kd);
	free(vc);
}

int v3d_ctx_poll_fd(struct v3d_ctx *vc)
{
	return vc->kd->ops->poll_fd ? vc->kd->ops->poll_fd(vc->kd) : -1;
}

void v3d_ctx_poll_ack(struct v3d_ctx *vc)
{
	if (vc->kd->ops->poll_ack)
		vc->kd->ops->poll_ack(vc->kd);
}

uint64_t v3d_bo_round_size(uint64_t size)
{
	if (size == 0 || size > V3D_BO_MAX_SIZE)
		return 0;
	return (size + 0xfffull) & ~0xfffull;
}

int v3d_bo_new(struct v3d_ctx *vc, uint64_t size, uint32_t *handle, uint64_t *offset)
{
	if (size == 0 || size > V3D_BO_MAX_SIZE)
		return -EINVAL;
	struct drm_v3d_create_bo c = { .size = (uint32_t)size };
	int ret = kdev_ioctl(vc->kd, DRM_IOCTL_V3D_CREATE_BO, &c);
	if (ret < 0)
		return ret;
	*handle = c.handle;
	*offset = c.offset;
	return 0;
}

int v3d_bo_import(struct v3d_ctx *vc, int fd, uint32_t *handle, uint64_t *offset)
{
	struct drm_prime_handle p = { .fd = fd };
	*handle = 0;
	int ret = kdev_ioctl(vc->kd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);
	if (ret < 0)
		return ret;
	*handle = p.handle;
	struct drm_v3d_get_bo_offset o = { .handle = p.handle };
	ret = kdev_ioctl(vc->kd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o);
	if (ret < 0)
		return ret;
	*offset = o.offset;
	return 0;
}

int v3d_bo_export(struct v3d_ctx *vc, uint32_t handle, int *fd)
{
	struct drm_prime_handle p = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR, .fd = -1 };
	int ret = kdev_ioctl(vc->kd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);
	if (ret < 0)
		return ret;
	*fd = p.fd;
	return 0;
}

void v3d_bo_close(struct v3d_ctx *vc, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };
	kdev_ioctl(vc->kd, DRM_IOCTL_GEM_CLOSE, &c);
}

int v3d_bo_map(struct v3d_ctx *vc, uint32_t handle, uint64_t size, bool writable, void **map)
{
	struct drm_v3d_mmap_bo m = { .handle = handle };
	int ret = kdev_ioctl(vc->kd, DRM_IOCTL_V3D_MMAP_BO, &m);
	if (ret < 0)
		return ret;
	void *p = vc->kd->ops->mmap(vc->kd, size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, m.offset);
	if (p == MAP_FAILED)
		return -errno;
	*map = p;
	return 0;
}

void v3d_bo_unmap(struct v3d_ctx *vc, void *map, uint64_t size)
{
	if (map)
		vc->kd->ops->munmap(vc->kd, map, size);
}

static int shadow_bo_create(void *dev, uint32_t size, uint32_t *handle, uint64_t *gpu_addr, void **map)
{
	struct v3d_ctx *vc = dev;
	int ret = v3d_bo_new(vc, size, handle, gpu_addr);
	if (ret < 0)
		return ret;
	ret = v3d_bo_map(vc, *handle, size, true, map);
	if (ret < 0)
		v3d_bo_close(vc, *handle);
	return ret;
}

static void shadow_bo_destroy(void *dev, uint32_t handle, void *map, uint32_t size)
{
	v3d_bo_unmap(dev, map, size);
	v3d_bo_close(dev, handle);
}

const struct shadow_bo_ops v3d_shadow_bo_ops = { .create = shadow_bo_create, .destroy = shadow_bo_destroy };

int v3d_bo_wait_poll(struct v3d_ctx *vc, uint32_t handle)
{
	struct drm_v3d_wait_bo w = { .handle = handle, .timeout_ns = 0 };
	int ret = kdev_ioctl(vc->kd, DRM_IOCTL_V3D_WAIT_BO, &w);
	return ret == -ETIME || ret == -ETIMEDOUT ? -EBUSY : ret;
}

static int sync_new(struct v3d_ctx *vc, uint32_t *sync)
{
	if (vc->nr_pool) {
		*sync = vc->pool[--vc->nr_pool];
		return 0;
	}
	struct drm_syncobj_create c = { .flags = 0 };
	int ret = kdev_ioctl(vc->kd, DRM_IOCTL_SYNCOBJ_CREATE, &c);
	if (ret == 0)
		*sync = c.handle;
	return ret;
}

void v3d_sync_free(struct v3d_ctx *vc, uint32_t sync)
{
	if (vc->nr_pool < V3D_SYNC_POOL) {
		vc->pool[vc->nr_pool++] = sync;
		return;
	}
	struct drm_syncobj_destroy d = { .handle = sync };
	kdev_ioctl(vc->kd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

int v3d_sync_poll(struct v3d_ctx *vc, uint32_t sync)
{
	/* The timeout is absolute CLOCK_MONOTONIC: 0 has passed, so this never sleeps. */
	struct drm_syncobj_wait w = {
		.handles = (uint64_t)(uintptr_t)&sync, .count_handles = 1, .timeout_nsec = 0,
		.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
	};
	int ret = kdev_ioctl(vc->kd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
	return ret == -ETIME || ret == -ETIMEDOUT ? -EBUSY : ret;
}

int v3d_submit_cl(struct v3d_ctx *vc, const struct v3d_cl_job *job, const uint32_t *handles, uint32_t nr,
		  uint32_t *out_sync, bool alone, bool *done_here)
{
	uint32_t sync = 0;
	int ret = sync_new(vc, &sync);
	if (ret < 0)
		return ret;
	struct drm_v3d_submit_cl s = {
		.bcl_start = job->bcl_start, .bcl_end = job->bcl_end,
		.rcl_start = job->rcl_start, .rcl_end = job->rcl_end,
		.out_sync = sync,
		.qma = job->qma, .qms = job->qms, .qts = job->qts,
		.bo_handles = (uint64_t)(uintptr_t)handles, .bo_handle_count = nr,
		.flags = job->flush_cache ? DRM_V3D_SUBMIT_CL_FLUSH_CACHE : 0,
	};
	ret = kdev_submit_ioctl(vc->kd, DRM_IOCTL_V3D_SUBMIT_CL, &s, alone, done_here);
	if (ret < 0) {
		v3d_sync_free(vc, sync);
		return ret;
	}
	*out_sync = sync;
	return 0;
}

int v3d_submit_tfu(struct v3d_ctx *vc, const struct v3d_tfu_job *job, const uint32_t *handles, uint32_t nr,
		   uint32_t *out_sync)
{
	if (nr == 0 || nr > 4)
		return -EINVAL;
	uint32_t sync = 0;
	int ret = sync_new(vc, &sync);
	if (ret < 0)
		return ret;
	struct drm_v3d_submit_tfu s = {
		.icfg = job->icfg, .iia = job->iia, .iis = job->iis, .ica = job->ica, .iua = job->iua,
		.ioa = job->ioa, .ios = job->ios, .out_sync = sync,
	};
	memcpy(s.coef, job->coef, sizeof(s.coef));
	memcpy(s.bo_handles, handles, nr * sizeof(*handles));
	s.v71.ioc = job->v71_ioc;
	ret = kdev_ioctl(vc->kd, DRM_IOCTL_V3D_SUBMIT_TFU, &s);
	if (ret < 0) {
		v3d_sync_free(vc, sync);
		return ret;
	}
	*out_sync = sync;
	return 0;
}

int v3d_submit_csd(struct v3d_ctx *vc, const struct v3d_csd_job *job, const uint32_t *handles, uint32_t nr,
		   uint32_t *out_sync)
{
	uint32_t sync = 0;
	int ret = sync_new(vc, &sync);
	if (ret < 0)
		return ret;
	struct drm_v3d_submit_csd s = {
		.bo_handles = (uint64_t)(uintptr_t)handles, .bo_handle_count = nr, .out_sync = sync,
	};
	memcpy(s.cfg, job->cfg, sizeof(s.cfg));
	ret = kdev_ioctl(vc->kd, DRM_IOCTL_V3D_SUBMIT_CSD, &s);
	if (ret < 0) {
		v3d_sync_free(vc, sync);
		return ret;
	}
	*out_sync = sync;
	return 0;
}

/* The value after "key" on the line where it appears, as hex/decimal. */
static bool find_u64(const char *text, const char *key, uint64_t *v)
{
	const char *p = strstr(text, key);
	if (!p)
		return false;
	char *end;
	unsigned long long x = strtoull(p + strlen(key), &end, 0);
	if (end == p + strlen(key))
		return false;
	*v = x;
	return true;
}

static void find_word(const char *text, const char *key, char *out, size_t len)
{
	out[0] = '\0';
	const char *p = strstr(text, key);
	if (!p)
		return;
	p += strlen(key);
	size_t n = strcspn(p, " \n");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

void v3d_parse_report(const char *text, struct v3d_fault *f)
{
	memset(f, 0, sizeof(*f));
	if (strstr(text, "\nmmu-fault:"))
		f->kind = V3D_FAULT_MMU;
	else if (strstr(text, "\nhang:"))
		f->kind = V3D_FAULT_HANG;
	else if (strstr(text, "\njob-error:"))
		f->kind = V3D_FAULT_JOB_ERROR;
	f->have_address = find_u64(text, "- address=", &f->address);
	f->write = strstr(text, "- dir=WRITE") != NULL;
	find_word(text, "- unit=", f->unit, sizeof(f->unit));
	find_word(text, "  queue: ", f->queue, sizeof(f->queue));
	f->have_packet = find_u64(text, "  packet: ", &f->packet);
	uint64_t op;
	if (find_u64(text, "  opcode: ", &op))
		f->opcode = (uint32_t)op;
	uint64_t sync;
	if (find_u64(text, "  out-sync: ", &sync) && sync <= UINT32_MAX)
		f->out_sync = (uint32_t)sync;
}

int v3d_read_fault(struct v3d_ctx *vc, struct v3d_fault *f, char *text, size_t text_len)
{
	memset(f, 0, sizeof(*f));
	if (text_len)
		text[0] = '\0';
	if (!vc->kd->ops->coredump || text_len == 0)
		return -ENOENT;
	ssize_t n = vc->kd->ops->coredump(vc->kd, text, text_len);
	if (n < 0)
		return (int)n;
	v3d_parse_report(text, f);
	return 0;
}
