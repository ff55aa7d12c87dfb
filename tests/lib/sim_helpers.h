/* Helpers for the simulated msm kernel tests (and the debug tests that fault it): BOs with a CPU
 * mapping and an iova, one-IB submits, fence waits. Each helper REQUIREs success, so a test reads
 * as the scenario it checks. */
#ifndef FERRY_TEST_SIM_HELPERS_H
#define FERRY_TEST_SIM_HELPERS_H

#include <errno.h>
#include <sys/mman.h>
#include <time.h>

#include "backend/kdev.h"
#include "ferry/uapi/msm_drm.h"
#include "pm4_builder.h"
#include "sim/msm/sim_msm.h"
#include "test.h"

struct tbo {
	uint32_t handle;
	uint64_t iova;
	uint64_t size;
	uint32_t *cpu; /* mapped through the kdev mmap */
};

static inline struct drm_msm_timespec abs_timeout_ms(int64_t ms)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ns = now.tv_nsec + (ms % 1000) * 1000000;
	struct drm_msm_timespec t = { .tv_sec = now.tv_sec + ms / 1000 + ns / 1000000000,
				      .tv_nsec = ns % 1000000000 };
	return t;
}

static inline uint64_t get_param(struct kdev *kd, uint32_t param)
{
	struct drm_msm_param p = { .pipe = MSM_PIPE_3D0, .param = param };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_MSM_GET_PARAM, &p) == 0);
	return p.value;
}

static inline struct tbo tbo_new_flags(struct kdev *kd, uint64_t size, uint32_t flags)
{
	struct tbo b = { .size = size };
	struct drm_msm_gem_new n = { .size = size, .flags = flags };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_MSM_GEM_NEW, &n) == 0);
	b.handle = n.handle;
	struct drm_msm_gem_info i = { .handle = b.handle, .info = MSM_INFO_GET_IOVA };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_MSM_GEM_INFO, &i) == 0);
	b.iova = i.value;
	i = (struct drm_msm_gem_info){ .handle = b.handle, .info = MSM_INFO_GET_OFFSET };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_MSM_GEM_INFO, &i) == 0);
	b.cpu = kd->ops->mmap(kd, size, PROT_READ | PROT_WRITE, MAP_SHARED, i.value);
	REQUIRE(b.cpu != MAP_FAILED);
	return b;
}

static inline struct tbo tbo_new(struct kdev *kd, uint64_t size)
{
	return tbo_new_flags(kd, size, MSM_BO_WC);
}

static inline void tbo_free(struct kdev *kd, struct tbo *b)
{
	kd->ops->munmap(kd, b->cpu, b->size);
	struct drm_gem_close c = { .handle = b->handle };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_GEM_CLOSE, &c), 0);
}

static inline uint32_t new_queue(struct kdev *kd, uint32_t prio)
{
	struct drm_msm_submitqueue q = { .prio = prio };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q) == 0);
	return q.id;
}

/* Submits size_dw dwords at the start of cmd as one BUF, listing extra BOs too. Returns the
 * ioctl's result; *fence gets the seqno. */
static inline int submit_ib_bos(struct kdev *kd, uint32_t queue, const struct tbo *cmd, uint32_t size_dw,
				const struct tbo *const *extra, unsigned nr_extra, uint32_t *fence)
{
	struct drm_msm_gem_submit_bo bos[16] = { { .flags = MSM_SUBMIT_BO_READ, .handle = cmd->handle } };
	REQUIRE(nr_extra < 16);
	for (unsigned i = 0; i < nr_extra; i++)
		bos[1 + i] = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE,
							     .handle = extra[i]->handle };
	struct drm_msm_gem_submit_cmd c = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0, .size = size_dw * 4 };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0, .nr_bos = 1 + nr_extra, .nr_cmds = 1,
		.bos = (uintptr_t)bos, .cmds = (uintptr_t)&c, .queueid = queue,
	};
	int ret = kdev_ioctl(kd, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	if (fence)
		*fence = s.fence;
	return ret;
}

static inline uint32_t submit_ib(struct kdev *kd, uint32_t queue, const struct tbo *cmd, uint32_t size_dw)
{
	uint32_t fence = 0;
	REQUIRE(submit_ib_bos(kd, queue, cmd, size_dw, NULL, 0, &fence) == 0);
	return fence;
}

static inline int wait_fence_ms(struct kdev *kd, uint32_t queue, uint32_t fence, int64_t ms)
{
	struct drm_msm_wait_fence w = { .fence = fence, .timeout = abs_timeout_ms(ms), .queueid = queue };
	return kdev_ioctl(kd, DRM_IOCTL_MSM_WAIT_FENCE, &w);
}

static inline uint32_t queue_faults(struct kdev *kd, uint32_t queue)
{
	uint32_t faults = 0xffffffffu;
	struct drm_msm_submitqueue_query q = { .data = (uintptr_t)&faults, .id = queue,
					       .param = MSM_SUBMITQUEUE_PARAM_FAULTS, .len = 4 };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &q) == 0);
	return faults;
}

#endif
