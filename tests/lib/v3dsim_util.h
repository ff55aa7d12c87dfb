/* Helpers for the simulated v3d kernel tests: ioctl wrappers that return the kernel's errno, BO
 * creation with a CPU mapping, syncobjs and trace lookups. */
#ifndef FERRY_TEST_V3DSIM_UTIL_H
#define FERRY_TEST_V3DSIM_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "backend/kdev.h"
#include "ferry/uapi/v3d_drm.h"
#include "sim/v3d/sim_v3d.h"
#include "test.h"

#define NS_PER_SEC 1000000000ll

struct tbo {
	uint32_t handle;
	uint32_t offset; /* GPU address */
	uint32_t size;
	uint8_t *map;
};

static inline struct tbo tbo_new(struct kdev *kd, uint32_t size)
{
	struct tbo b = { .size = size };
	struct drm_v3d_create_bo c = { .size = size };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_V3D_CREATE_BO, &c) == 0);
	b.handle = c.handle;
	b.offset = c.offset;
	struct drm_v3d_mmap_bo m = { .handle = c.handle };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_V3D_MMAP_BO, &m) == 0);
	b.map = kd->ops->mmap(kd, size, PROT_READ | PROT_WRITE, MAP_SHARED, m.offset);
	REQUIRE(b.map != MAP_FAILED);
	return b;
}

static inline void tbo_free(struct kdev *kd, struct tbo *b)
{
	kd->ops->munmap(kd, b->map, b->size);
	struct drm_gem_close c = { .handle = b->handle };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_GEM_CLOSE, &c), 0);
}

static inline uint32_t syncobj_new(struct kdev *kd, bool signaled)
{
	struct drm_syncobj_create c = { .flags = signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0 };
	REQUIRE(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_CREATE, &c) == 0);
	return c.handle;
}

static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* Waits (generously: 10 s) for every handle; returns the ioctl's result. */
static inline int syncobj_wait(struct kdev *kd, const uint32_t *handles, uint32_t n, int64_t timeout_ns)
{
	struct drm_syncobj_wait w = {
		.handles = (uint64_t)(uintptr_t)handles,
		.timeout_nsec = now_ns() + timeout_ns,
		.count_handles = n,
		.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
	};
	return kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

static inline int syncobj_wait1(struct kdev *kd, uint32_t h)
{
	return syncobj_wait(kd, &h, 1, 10 * NS_PER_SEC);
}

/* A raster-to-raster TFU copy in the register layout of ver (byte-per-pixel type ttype). */
static inline struct drm_v3d_submit_tfu tfu_copy(int ver, uint32_t ttype, uint32_t src, uint32_t src_stride_px,
						 uint32_t dst, uint32_t dst_stride_px, uint32_t w, uint32_t h)
{
	struct drm_v3d_submit_tfu t = { .iia = src, .iis = src_stride_px, .ioa = dst, .ios = (h << 16) | w };
	if (ver >= 71) {
		t.icfg = ttype << 16;          /* OTYPE; IFORMAT 0 = RASTER */
		t.v71.ioc = dst_stride_px << 16; /* FORMAT 0 = RASTER, STRIDE */
	} else {
		t.icfg = ttype << 9;           /* TTYPE; FORMAT 0 = RASTER */
		(void)dst_stride_px;           /* 4.2: the output stride is the width */
	}
	return t;
}

/* Every trace event so far. Returns the count. */
static inline size_t trace_all(struct sim_v3d_device *dev, struct sim_v3d_trace_event *ev, size_t max)
{
	uint64_t cursor = 0;
	return sim_v3d_trace_read(dev, &cursor, ev, max);
}

/* The first event of kind (and queue/client if not ~0u) at or after index from; -1 if none. */
static inline long trace_find(const struct sim_v3d_trace_event *ev, size_t n, size_t from, uint32_t kind,
			      uint32_t client)
{
	for (size_t i = from; i < n; i++)
		if (ev[i].kind == kind && (client == ~0u || ev[i].client == client))
			return (long)i;
	return -1;
}

#endif
