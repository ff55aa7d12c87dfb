/* The msm backend: device probe, BOs, submit queues, submits and fence polling over struct kdev,
 * with every kernel-visible array rebuilt in host memory from checked guest values. */
#include "msm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ferry/array.h"
#include "kdev.h"
#include "shadow_pool.h"
#include "ferry/uapi/msm_drm.h"

/* The CP_INDIRECT_BUFFER size field is 20 bits of dwords. */
#define MSM_MAX_CMD_DWORDS 0xfffffu

struct msm_ctx {
	struct kdev *kd;
	/* Per-open scratch reused by every submit, so steady-state submits do not allocate. */
	struct drm_msm_gem_submit_bo *k_bos;
	struct drm_msm_gem_submit_cmd *k_cmds;
	struct drm_msm_gem_submit_reloc *k_relocs;
	uint32_t *reloc_fill; /* per-cmd fill cursor while grouping relocs by cmd */
	uint32_t cap_bos, cap_cmds, cap_relocs, cap_fill;
	uint32_t nr_bos, nr_cmds; /* the prepared submit */
	bool prepared;
};

static const uint32_t probed_params[] = {
	MSM_PARAM_GPU_ID,    MSM_PARAM_GMEM_SIZE, MSM_PARAM_CHIP_ID,  MSM_PARAM_MAX_FREQ,
	MSM_PARAM_GMEM_BASE, MSM_PARAM_PRIORITIES, MSM_PARAM_VA_START, MSM_PARAM_VA_SIZE,
};

static int get_param(struct kdev *kd, uint32_t param, uint64_t *value)
{
	struct drm_msm_param p = { .pipe = MSM_PIPE_3D0, .param = param };
	int ret = kdev_ioctl(kd, DRM_IOCTL_MSM_GET_PARAM, &p);
	if (ret == 0)
		*value = p.value;
	return ret;
}

int msm_timestamp(struct msm_ctx *mc, uint64_t *ticks)
{
	return get_param(mc->kd, MSM_PARAM_TIMESTAMP, ticks);
}

int msm_probe(struct kdev *kd, struct msm_dev_info *out)
{
	memset(out, 0, sizeof(*out));
	out->priorities = 1;
	for (size_t i = 0; i < sizeof(probed_params) / sizeof(probed_params[0]); i++) {
		uint64_t v = 0;
		int ret = get_param(kd, probed_params[i], &v);
		if (ret == -EINVAL)
			continue; /* the kernel does not know this one: leave it out */
		if (ret < 0)
			return ret;
		out->params[out->nr_params++] = (struct ferry_param){ .id = probed_params[i], .value = v };
		switch (probed_params[i]) {
		case MSM_PARAM_PRIORITIES: out->priorities = v ? (uint32_t)v : 1; break;
		case MSM_PARAM_VA_START: out->va_start = v; break;
		case MSM_PARAM_VA_SIZE: out->va_size = v; break;
		case MSM_PARAM_GPU_ID: out->gpu_id = v; break;
		case MSM_PARAM_CHIP_ID: out->chip_id = v; break;
		}
	}
	if (out->nr_params == 0)
		return -ENODEV;
	return 0;
}

int msm_ctx_create(struct kdev *kd, struct msm_ctx **out)
{
	struct msm_ctx *mc = calloc(1, sizeof(*mc));
	if (!mc) {
		kd->ops->close(kd);
		return -ENOMEM;
	}
	mc->kd = kd;
	*out = mc;
	return 0;
}

void msm_ctx_destroy(struct msm_ctx *mc)
{
	if (!mc)
		return;
	mc->kd->ops->close(mc->kd);
	free(mc->k_bos);
	free(mc->k_cmds);
	free(mc->k_relocs);
	free(mc->reloc_fill);
	free(mc);
}

int msm_ctx_poll_fd(struct msm_ctx *mc)
{
	return mc->kd->ops->poll_fd ? mc->kd->ops->poll_fd(mc->kd) : -1;
}

void msm_ctx_poll_ack(struct msm_ctx *mc)
{
	if (mc->kd->ops->poll_ack)
		mc->kd->ops->poll_ack(mc->kd);
}

uint64_t msm_bo_round_size(uint64_t size)
{
	if (size > MSM_BO_MAX_SIZE)
		return 0;
	return (size + 0xfffu) & ~(uint64_t)0xfffu;
}

int msm_bo_check_flags(uint32_t flags, const char **why)
{
	if (flags & ~(uint32_t)MSM_BO_FLAGS) {
		*why = "bo flags: unknown bits (allowed: SCANOUT, GPU_READONLY, one cache mode)";
		return -EINVAL;
	}
	uint32_t cache = flags & MSM_BO_CACHE_MASK;
	if (cache != MSM_BO_CACHED && cache != MSM_BO_WC && cache != MSM_BO_UNCACHED &&
	    cache != MSM_BO_CACHED_COHERENT) {
		*why = "bo flags: exactly one cache mode (CACHED, WC, UNCACHED, CACHED_COHERENT) is required";
		return -EINVAL;
	}
	return 0;
}

int msm_bo_new(struct msm_ctx *mc, uint64_t size, uint32_t flags, uint32_t *handle, uint64_t *iova)
{
	struct drm_msm_gem_new req = { .size = size, .flags = flags };
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_NEW, &req);
	if (ret < 0)
		return ret;
	struct drm_msm_gem_info info = { .handle = req.handle, .info = MSM_INFO_GET_IOVA };
	ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_INFO, &info);
	if (ret < 0) {
		msm_bo_close(mc, req.handle);
		return ret;
	}
	*handle = req.handle;
	*iova = info.value;
	return 0;
}

int msm_bo_new_at(struct msm_ctx *mc, uint64_t size, uint32_t flags, uint64_t iova, uint32_t *handle)
{
	struct drm_msm_gem_new req = { .size = size, .flags = flags };
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_NEW, &req);
	if (ret < 0)
		return ret;
	struct drm_msm_gem_info info = { .handle = req.handle, .info = MSM_INFO_SET_IOVA, .value = iova };
	ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_INFO, &info);
	if (ret < 0) {
		msm_bo_close(mc, req.handle);
		return ret;
	}
	*handle = req.handle;
	return 0;
}

int msm_bo_export(struct msm_ctx *mc, uint32_t handle, int *fd)
{
	struct drm_prime_handle req = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR, .fd = -1 };
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &req);
	if (ret < 0)
		return ret;
	if (req.fd < 0)
		return -EIO;
	*fd = req.fd;
	return 0;
}

int msm_bo_import(struct msm_ctx *mc, int fd, uint32_t *handle, uint64_t *iova)
{
	struct drm_prime_handle req = { .fd = fd };
	*handle = 0;
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &req);
	if (ret < 0)
		return ret;
	*handle = req.handle;
	/* Each open has its own address space: the BO gets this open's own iova. */
	struct drm_msm_gem_info info = { .handle = req.handle, .info = MSM_INFO_GET_IOVA };
	ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_INFO, &info);
	if (ret < 0)
		return ret;
	*iova = info.value;
	return 0;
}

void msm_bo_close(struct msm_ctx *mc, uint32_t handle)
{
	struct drm_gem_close req = { .handle = handle };
	kdev_ioctl(mc->kd, DRM_IOCTL_GEM_CLOSE, &req);
}

int msm_bo_map(struct msm_ctx *mc, uint32_t handle, uint64_t size, bool writable, void **map)
{
	if (size == 0 || (uint64_t)(size_t)size != size)
		return -EINVAL;
	struct drm_msm_gem_info info = { .handle = handle, .info = MSM_INFO_GET_OFFSET };
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_INFO, &info);
	if (ret < 0)
		return ret;
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);
	void *p = mc->kd->ops->mmap(mc->kd, (size_t)size, prot, MAP_SHARED, info.value);
	if (p == MAP_FAILED)
		return errno ? -errno : -ENOMEM;
	*map = p;
	return 0;
}

void msm_bo_unmap(struct msm_ctx *mc, void *map, uint64_t size)
{
	if (map)
		mc->kd->ops->munmap(mc->kd, map, (size_t)size);
}

static int shadow_bo_create(void *dev, uint32_t size, uint32_t *handle, uint64_t *gpu_addr, void **map)
{
	struct msm_ctx *mc = dev;
	/* GPU read-only: shaders and register-programmed writes (which the validator cannot bound)
	 * fault instead of changing validated commands. WC: the host writes, the GPU reads once. */
	int ret = msm_bo_new(mc, size, MSM_BO_GPU_READONLY | MSM_BO_WC, handle, gpu_addr);
	if (ret < 0)
		return ret;
	ret = msm_bo_map(mc, *handle, size, true, map);
	if (ret < 0)
		msm_bo_close(mc, *handle);
	return ret;
}

static void shadow_bo_destroy(void *dev, uint32_t handle, void *map, uint32_t size)
{
	msm_bo_unmap(dev, map, size);
	msm_bo_close(dev, handle);
}

const struct shadow_bo_ops msm_shadow_bo_ops = { .create = shadow_bo_create, .destroy = shadow_bo_destroy };

/* An absolute CLOCK_MONOTONIC timeout already past: the wait ioctls poll (msm's
 * timeout_to_jiffies gives 0 for any time not after now), without a clock read per retire. */
static const struct drm_msm_timespec poll_timespec = { 0, 0 };

int msm_bo_cpu_prep_poll(struct msm_ctx *mc, uint32_t handle, uint32_t op)
{
	struct drm_msm_gem_cpu_prep req = {
		.handle = handle,
		.op = (op & (MSM_PREP_READ | MSM_PREP_WRITE)) | MSM_PREP_NOSYNC,
		.timeout = poll_timespec,
	};
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_CPU_PREP, &req);
	return ret == -ETIMEDOUT ? -EBUSY : ret;
}

int msm_queue_new(struct msm_ctx *mc, uint32_t prio, uint32_t *kernel_id)
{
	struct drm_msm_submitqueue req = { .flags = 0, .prio = prio };
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &req);
	if (ret == 0)
		*kernel_id = req.id;
	return ret;
}

void msm_queue_close(struct msm_ctx *mc, uint32_t kernel_id)
{
	uint32_t id = kernel_id;
	kdev_ioctl(mc->kd, DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id);
}

int msm_queue_faults(struct msm_ctx *mc, uint32_t kernel_id, uint32_t *faults)
{
	uint32_t value = 0;
	struct drm_msm_submitqueue_query q = {
		.data = (uint64_t)(uintptr_t)&value,
		.id = kernel_id,
		.param = MSM_SUBMITQUEUE_PARAM_FAULTS,
		.len = sizeof(value),
	};
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &q);
	if (ret == 0)
		*faults = value;
	return ret;
}

int msm_fence_poll(struct msm_ctx *mc, uint32_t kernel_id, uint32_t seqno)
{
	struct drm_msm_wait_fence req = { .fence = seqno, .timeout = poll_timespec, .queueid = kernel_id };
	int ret = kdev_ioctl(mc->kd, DRM_IOCTL_MSM_WAIT_FENCE, &req);
	if (ret == -ETIMEDOUT || ret == -EBUSY)
		return -EBUSY;
	return ret;
}

#define FAIL(...)                                        \
	do {                                             \
		snprintf(why, why_len, __VA_ARGS__);     \
		return -EINVAL;                          \
	} while (0)

int msm_submit_prepare(struct msm_ctx *mc, const struct ferry_msm_submit *s,
		       const struct msm_submit_bo_ref *refs, char *why, size_t why_len)
{
	mc->prepared = false;
	if (s->nr_bos > FERRY_MAX_SUBMIT_BOS)
		FAIL("nr_bos %u exceeds %u", s->nr_bos, FERRY_MAX_SUBMIT_BOS);
	/* No cmds is valid (the kernel takes it: a fence in the ring's order, e.g. a vkQueueSubmit
	 * without command buffers). */
	if (s->nr_cmds > FERRY_MAX_SUBMIT_CMDS)
		FAIL("nr_cmds %u exceeds %u", s->nr_cmds, FERRY_MAX_SUBMIT_CMDS);
	if (s->nr_relocs > FERRY_MAX_SUBMIT_RELOCS)
		FAIL("nr_relocs %u exceeds %u", s->nr_relocs, FERRY_MAX_SUBMIT_RELOCS);

	if (FERRY_ARRAY_RESERVE(mc->k_bos, mc->cap_bos, s->nr_bos ? s->nr_bos : 1, 16) ||
	    FERRY_ARRAY_RESERVE(mc->k_cmds, mc->cap_cmds, s->nr_cmds ? s->nr_cmds : 1, 16) ||
	    FERRY_ARRAY_RESERVE(mc->reloc_fill, mc->cap_fill, s->nr_cmds ? s->nr_cmds : 1, 16) ||
	    FERRY_ARRAY_RESERVE(mc->k_relocs, mc->cap_relocs, s->nr_relocs ? s->nr_relocs : 1, 16)) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}

	for (uint32_t i = 0; i < s->nr_bos; i++) {
		uint32_t f = s->bos[i].flags;
		if (f & ~(uint32_t)MSM_SUBMIT_BO_FLAGS)
			FAIL("bos[%u].flags 0x%x: unknown bits (allowed READ|WRITE|DUMP)", i, f);
		if (!(f & (MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE)))
			FAIL("bos[%u].flags 0x%x: READ or WRITE is required", i, f);
		mc->k_bos[i] = (struct drm_msm_gem_submit_bo){ .flags = f, .handle = refs[i].handle };
	}

	for (uint32_t i = 0; i < s->nr_cmds; i++) {
		const struct ferry_msm_submit_cmd *c = &s->cmds[i];
		if (c->type != MSM_SUBMIT_CMD_BUF && c->type != MSM_SUBMIT_CMD_IB_TARGET_BUF &&
		    c->type != MSM_SUBMIT_CMD_CTX_RESTORE_BUF)
			FAIL("cmds[%u].type %u is not BUF, IB_TARGET_BUF or CTX_RESTORE_BUF", i, c->type);
		if (c->bo_index >= s->nr_bos)
			FAIL("cmds[%u].bo_index %u out of range (nr_bos %u)", i, c->bo_index, s->nr_bos);
		if (c->size == 0 || c->size % 4)
			FAIL("cmds[%u].size %u must be a non-zero multiple of 4", i, c->size);
		if (c->size / 4 > MSM_MAX_CMD_DWORDS)
			FAIL("cmds[%u].size %u exceeds the IB limit of %u dwords", i, c->size, MSM_MAX_CMD_DWORDS);
		if (c->offset % 4)
			FAIL("cmds[%u].offset %u is not 4-byte aligned", i, c->offset);
		/* Both are u32, so the sum cannot overflow u64. */
		if ((uint64_t)c->offset + c->size > refs[c->bo_index].size)
			FAIL("cmds[%u]: offset %u + size %u exceeds bo %u size %llu", i, c->offset, c->size,
			     c->bo_index, (unsigned long long)refs[c->bo_index].size);
		mc->k_cmds[i] = (struct drm_msm_gem_submit_cmd){
			.type = c->type, .submit_idx = c->bo_index, .submit_offset = c->offset, .size = c->size,
		};
		mc->reloc_fill[i] = 0;
	}

	/* Count relocs per cmd, then place them grouped by cmd (stable), as the kernel takes one
	 * array per cmd. */
	for (uint32_t i = 0; i < s->nr_relocs; i++) {
		const struct ferry_msm_submit_reloc *r = &s->relocs[i];
		if (r->cmd_index >= s->nr_cmds)
			FAIL("relocs[%u].cmd_index %u out of range (nr_cmds %u)", i, r->cmd_index, s->nr_cmds);
		if (r->bo_index >= s->nr_bos)
			FAIL("relocs[%u].bo_index %u out of range (nr_bos %u)", i, r->bo_index, s->nr_bos);
		if (r->submit_offset % 4)
			FAIL("relocs[%u].submit_offset %u is not 4-byte aligned", i, r->submit_offset);
		uint64_t cmd_bo_size = refs[s->cmds[r->cmd_index].bo_index].size;
		if ((uint64_t)r->submit_offset + 4 > cmd_bo_size)
			FAIL("relocs[%u].submit_offset %u outside cmd %u's bo (size %llu)", i, r->submit_offset,
			     r->cmd_index, (unsigned long long)cmd_bo_size);
		if (r->shift < -63 || r->shift > 63)
			FAIL("relocs[%u].shift %d out of range -63..63", i, r->shift);
		mc->k_cmds[r->cmd_index].nr_relocs++;
	}
	uint32_t start = 0;
	for (uint32_t i = 0; i < s->nr_cmds; i++) {
		mc->reloc_fill[i] = start;
		start += mc->k_cmds[i].nr_relocs;
	}
	for (uint32_t i = 0; i < s->nr_relocs; i++) {
		const struct ferry_msm_submit_reloc *r = &s->relocs[i];
		uint32_t at = mc->reloc_fill[r->cmd_index]++;
		mc->k_relocs[at] = (struct drm_msm_gem_submit_reloc){
			.submit_offset = r->submit_offset, .or = r->or_value, .shift = r->shift,
			.reloc_idx = r->bo_index, .reloc_offset = r->bo_offset,
		};
	}
	start = 0;
	for (uint32_t i = 0; i < s->nr_cmds; i++) {
		uint32_t n = mc->k_cmds[i].nr_relocs;
		for (uint32_t j = 1; j < n; j++)
			if (mc->k_relocs[start + j].submit_offset < mc->k_relocs[start + j - 1].submit_offset)
				FAIL("relocs of cmd %u are not sorted by submit_offset (%u after %u)", i,
				     mc->k_relocs[start + j].submit_offset, mc->k_relocs[start + j - 1].submit_offset);
		/* Host pointer into host scratch: the only addresses the kernel ever dereferences. */
		mc->k_cmds[i].relocs = n ? (uint64_t)(uintptr_t)&mc->k_relocs[start] : 0;
		start += n;
	}
	mc->nr_bos = s->nr_bos;
	mc->nr_cmds = s->nr_cmds;
	mc->prepared = true;
	return 0;
}

int msm_submit_use_shadows(struct msm_ctx *mc, const uint32_t *handles, uint32_t nr_handles,
			   const struct msm_shadow_cmd *cmds, uint32_t nr_cmds)
{
	if (!mc->prepared || nr_cmds == 0 || nr_cmds > mc->cap_cmds || nr_handles > UINT32_MAX - mc->nr_bos)
		return -EINVAL;
	uint32_t first = mc->nr_bos;
	if (FERRY_ARRAY_RESERVE(mc->k_bos, mc->cap_bos, first + nr_handles, 16))
		return -ENOMEM;
	for (uint32_t i = 0; i < nr_cmds; i++)
		if (cmds[i].bo >= nr_handles)
			return -EINVAL;
	for (uint32_t i = 0; i < nr_handles; i++)
		mc->k_bos[first + i] = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ, .handle = handles[i] };
	for (uint32_t i = 0; i < nr_cmds; i++)
		mc->k_cmds[i] = (struct drm_msm_gem_submit_cmd){
			.type = cmds[i].type, .submit_idx = first + cmds[i].bo,
			.submit_offset = cmds[i].offset, .size = cmds[i].size,
		};
	mc->nr_bos = first + nr_handles;
	mc->nr_cmds = nr_cmds;
	return 0;
}

int msm_submit_flush(struct msm_ctx *mc, uint32_t kernel_id, uint32_t seqno, bool here, bool *done_here)
{
	if (done_here)
		*done_here = false;
	if (!mc->prepared)
		return -EINVAL;
	mc->prepared = false;
	/* SUDO is never set: guest commands must not run from the privileged ring. */
	struct drm_msm_gem_submit req = {
		.flags = MSM_PIPE_3D0 | MSM_SUBMIT_FENCE_SN_IN,
		.fence = seqno,
		.nr_bos = mc->nr_bos,
		.nr_cmds = mc->nr_cmds,
		.bos = (uint64_t)(uintptr_t)mc->k_bos,
		.cmds = (uint64_t)(uintptr_t)mc->k_cmds,
		.fence_fd = -1,
		.queueid = kernel_id,
	};
	return kdev_submit_ioctl(mc->kd, DRM_IOCTL_MSM_GEM_SUBMIT, &req, here, done_here);
}

int msm_read_fault(struct msm_ctx *mc, struct msm_fault *f, char *text, size_t text_len)
{
	memset(f, 0, sizeof(*f));
	if (text_len)
		text[0] = '\0';
	if (!mc->kd->ops->coredump || text_len == 0)
		return -ENOENT;
	ssize_t n = mc->kd->ops->coredump(mc->kd, text, text_len);
	if (n < 0) {
		text[0] = '\0';
		return (int)n;
	}
	text[text_len - 1] = '\0';
	msm_parse_coredump(text, f);
	return 0;
}

ssize_t msm_debug_state(struct msm_ctx *mc, char *buf, size_t len)
{
	if (!mc->kd->ops->debug_state)
		return -ENOTSUP;
	return mc->kd->ops->debug_state(mc->kd, buf, len);
}
