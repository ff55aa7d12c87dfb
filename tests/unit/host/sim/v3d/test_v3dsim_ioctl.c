/* The simulated v3d kernel's ioctls one by one: GET_PARAM of both models, BOs in the one global
 * address space, MMAP/GET_BO_OFFSET/GEM_CLOSE/PRIME, WAIT_BO, syncobjs, and the 6.1 argument
 * checks of the three submit ioctls with their errnos. */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "v3dsim_util.h"

static int get_param(struct kdev *kd, uint32_t param, uint64_t *value)
{
	struct drm_v3d_get_param p = { .param = param };
	int ret = kdev_ioctl(kd, DRM_IOCTL_V3D_GET_PARAM, &p);
	*value = p.value;
	return ret;
}

static void test_params(void)
{
	static const struct {
		const char *model;
		int ver;
		uint32_t ident[7];
	} want[] = {
		{ "v3d-4.2", 42, { 0x45, 0x000e1124, 0x100, 0xe00, 0x04443356, 0x81001422, 0x40078121 } },
		{ "v3d-7.1", 71, { 0x45, 0x00081117, 0x1900, 0x00020a00, 0x07443356, 0x81001431, 0xc0078101 } },
	};
	for (size_t m = 0; m < 2; m++) {
		struct sim_v3d_device *dev;
		REQUIRE(sim_v3d_device_create(want[m].model, &dev) == 0);
		CHECK(!strcmp(sim_v3d_model(dev), want[m].model));
		CHECK_EQ(sim_v3d_version(dev), want[m].ver);
		struct kdev *kd = sim_v3d_open(dev);
		REQUIRE(kd);
		uint64_t v;
		for (uint32_t p = 0; p < 7; p++) {
			CHECK_EQ(get_param(kd, p, &v), 0);
			CHECK_EQ(v, want[m].ident[p]);
		}
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_V3D_CORE0_IDENT0, &v), 0);
		/* Mesa's version rule: IDENT0.VER * 10 + IDENT1.REV. */
		uint64_t id1;
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_V3D_CORE0_IDENT1, &id1), 0);
		CHECK_EQ((v >> 24) * 10 + (id1 & 0xf), want[m].ver);
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_SUPPORTS_TFU, &v), 0);
		CHECK_EQ(v, 1);
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_SUPPORTS_CSD, &v), 0);
		CHECK_EQ(v, 1);
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_SUPPORTS_CACHE_FLUSH, &v), 0);
		CHECK_EQ(v, 1);
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT, &v), 0);
		CHECK_EQ(v, 1);
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_SUPPORTS_PERFMON, &v), 0);
		CHECK_EQ(v, 0); /* not modelled */
		/* Params newer than 6.1 and unknown ones: -EINVAL. */
		CHECK_EQ(get_param(kd, DRM_V3D_PARAM_SUPPORTS_CPU_QUEUE, &v), -EINVAL);
		CHECK_EQ(get_param(kd, 1000, &v), -EINVAL);
		/* pad MBZ; a register param must come in with value 0. */
		struct drm_v3d_get_param p = { .param = 0, .pad = 1 };
		CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_GET_PARAM, &p), -EINVAL);
		p = (struct drm_v3d_get_param){ .param = DRM_V3D_PARAM_V3D_HUB_IDENT1, .value = 5 };
		CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_GET_PARAM, &p), -EINVAL);
		kd->ops->close(kd);
		sim_v3d_device_destroy(dev);
	}
	struct sim_v3d_device *dev = NULL;
	CHECK_EQ(sim_v3d_device_create("v3d-3.3", &dev), -EINVAL);
	CHECK(dev == NULL);
	CHECK(!strcmp(sim_v3d_models[0], "v3d-4.2") && !strcmp(sim_v3d_models[1], "v3d-7.1") && !sim_v3d_models[2]);
}

static void test_bo_global_space(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-4.2", &dev) == 0);
	struct kdev *a = sim_v3d_open(dev), *b = sim_v3d_open(dev);
	REQUIRE(a && b);
	struct drm_v3d_create_bo c1 = { .size = 100 }, c2 = { .size = 4096 }, c3 = { .size = 200000 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_CREATE_BO, &c1), 0);
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_V3D_CREATE_BO, &c2), 0);
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_CREATE_BO, &c3), 0);
	/* Handles are per open; offsets come from ONE space: never 0, 128 KiB aligned, disjoint
	 * across opens. */
	CHECK_EQ(c1.handle, 1);
	CHECK_EQ(c2.handle, 1);
	CHECK_EQ(c3.handle, 2);
	CHECK(c1.offset != 0 && c2.offset != 0 && c3.offset != 0);
	CHECK_EQ(c1.offset % (128 * 1024), 0);
	CHECK_EQ(c2.offset % (128 * 1024), 0);
	CHECK(c1.offset != c2.offset);
	CHECK(c2.offset >= c1.offset + 4096 || c1.offset >= c2.offset + 4096);
	CHECK(c3.offset >= c2.offset + 4096 || c2.offset >= c3.offset + 200704);
	struct drm_v3d_get_bo_offset go = { .handle = 2 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_GET_BO_OFFSET, &go), 0);
	CHECK_EQ(go.offset, c3.offset);
	go.handle = 2;
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_V3D_GET_BO_OFFSET, &go), -ENOENT);

	/* CREATE_BO errors. */
	struct drm_v3d_create_bo bad = { .size = 4096, .flags = 1 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_CREATE_BO, &bad), -EINVAL);
	bad = (struct drm_v3d_create_bo){ .size = 0 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_CREATE_BO, &bad), -EINVAL);
	/* Two BOs of 3 GiB do not fit in the 4 GiB space: the second gets -ENOSPC. */
	struct drm_v3d_create_bo big = { .size = 3u << 30 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_CREATE_BO, &big), 0);
	struct drm_v3d_create_bo big2 = { .size = 3u << 30 };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_V3D_CREATE_BO, &big2), -ENOSPC);
	struct drm_gem_close gc = { .handle = big.handle };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_GEM_CLOSE, &gc), 0);
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_V3D_CREATE_BO, &big2), 0); /* the space came back */
	gc.handle = big2.handle;
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_GEM_CLOSE, &gc), 0);

	/* MMAP_BO + kdev mmap: both mappings see the same pages. */
	struct drm_v3d_mmap_bo m = { .handle = c1.handle };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_MMAP_BO, &m), 0);
	uint8_t *p1 = a->ops->mmap(a, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m.offset);
	uint8_t *p2 = a->ops->mmap(a, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m.offset);
	REQUIRE(p1 != MAP_FAILED && p2 != MAP_FAILED);
	p1[10] = 0x5a;
	CHECK_EQ(p2[10], 0x5a);
	CHECK(a->ops->mmap(a, 8192, PROT_READ, MAP_SHARED, m.offset) == MAP_FAILED); /* past the BO */
	CHECK(b->ops->mmap(b, 4096, PROT_READ, MAP_SHARED, m.offset) == MAP_FAILED); /* not b's BO */
	m = (struct drm_v3d_mmap_bo){ .handle = c1.handle, .flags = 1 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_MMAP_BO, &m), -EINVAL);
	m = (struct drm_v3d_mmap_bo){ .handle = 99 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_MMAP_BO, &m), -ENOENT);

	/* PRIME export: a sealed memfd of the same pages. */
	struct drm_prime_handle ph = { .handle = c1.handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
	REQUIRE(ph.fd >= 0);
	uint8_t byte = 0;
	CHECK_EQ(pread(ph.fd, &byte, 1, 10), 1);
	CHECK_EQ(byte, 0x5a);
	CHECK(ftruncate(ph.fd, 0) < 0); /* F_SEAL_SHRINK */
	int seals = fcntl(ph.fd, F_GET_SEALS);
	CHECK((seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
	close(ph.fd);
	ph = (struct drm_prime_handle){ .handle = 77 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), -ENOENT);
	ph = (struct drm_prime_handle){ .handle = c1.handle, .flags = 0x100 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), -EINVAL);

	/* GEM_CLOSE: the mapping outlives the handle; a second close is -EINVAL. */
	gc.handle = c1.handle;
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_GEM_CLOSE, &gc), 0);
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_GEM_CLOSE, &gc), -EINVAL);
	CHECK_EQ(p1[10], 0x5a);
	a->ops->munmap(a, p1, 4096);
	a->ops->munmap(a, p2, 4096);

	/* Unknown ioctls: driver range -EINVAL, elsewhere -ENOTTY. */
	uint32_t dummy[8] = { 0 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOWR(DRM_COMMAND_BASE + 0x20, uint32_t[8]), dummy), -EINVAL);
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_V3D_PERFMON_CREATE, dummy), -EINVAL);
	CHECK_EQ(kdev_ioctl(a, _IOWR('x', 1, uint32_t), dummy), -ENOTTY);
	a->ops->close(a);
	b->ops->close(b);
	sim_v3d_device_destroy(dev);
}

static void test_syncobjs(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-7.1", &dev) == 0);
	struct kdev *kd = sim_v3d_open(dev);
	REQUIRE(kd);
	uint32_t s_unsig = syncobj_new(kd, false), s_sig = syncobj_new(kd, true);
	struct drm_syncobj_create bad_create = { .flags = 2 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_CREATE, &bad_create), -EINVAL);

	/* WAIT: a fence-less syncobj is -EINVAL without WAIT_FOR_SUBMIT, -ETIME with it. */
	uint32_t hs[2] = { s_sig, s_unsig };
	struct drm_syncobj_wait w = { .handles = (uint64_t)(uintptr_t)hs, .count_handles = 2,
				      .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, .timeout_nsec = now_ns() };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), -EINVAL);
	w.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	w.timeout_nsec = now_ns() + 20000000; /* 20 ms */
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), -ETIME);
	/* WAIT_ANY: the signaled one answers, at index 0. */
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	w.first_signaled = 99;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), 0);
	CHECK_EQ(w.first_signaled, 0);
	/* SIGNAL then WAIT_ALL succeeds; RESET makes it fence-less again. */
	struct drm_syncobj_array arr = { .handles = (uint64_t)(uintptr_t)&s_unsig, .count_handles = 1 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_SIGNAL, &arr), 0);
	CHECK_EQ(syncobj_wait(kd, hs, 2, 0), 0);
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_RESET, &arr), 0);
	w = (struct drm_syncobj_wait){ .handles = (uint64_t)(uintptr_t)&s_unsig, .count_handles = 1,
				       .timeout_nsec = now_ns() };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), -EINVAL);
	/* Argument errors. */
	w.count_handles = 0;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), -EINVAL);
	w.count_handles = 1;
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), -EINVAL);
	uint32_t nothing = 999;
	arr = (struct drm_syncobj_array){ .handles = (uint64_t)(uintptr_t)&nothing, .count_handles = 1 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_SIGNAL, &arr), -ENOENT);
	arr.count_handles = 0;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_RESET, &arr), -EINVAL);
	arr = (struct drm_syncobj_array){ .handles = (uint64_t)(uintptr_t)&s_sig, .count_handles = 1, .pad = 1 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_RESET, &arr), -EINVAL);
	struct drm_syncobj_destroy d = { .handle = s_sig };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_DESTROY, &d), 0);
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_DESTROY, &d), -EINVAL);
	d = (struct drm_syncobj_destroy){ .handle = s_unsig, .pad = 1 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_DESTROY, &d), -EINVAL);
	kd->ops->close(kd); /* s_unsig is freed by the close */
	sim_v3d_device_destroy(dev);
}

/* Submit argument checks (6.1 v3d_gem.c order and errnos). Nothing here may run a job. */
static void test_submit_errors(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-4.2", &dev) == 0);
	sim_v3d_set_paused(dev, true);
	struct kdev *kd = sim_v3d_open(dev);
	REQUIRE(kd);
	struct tbo bo = tbo_new(kd, 65536);
	uint32_t handles[1] = { bo.handle };
	uint32_t fenceless = syncobj_new(kd, false);
	struct drm_v3d_submit_cl base = { .rcl_start = bo.offset, .rcl_end = bo.offset + 16,
					  .bo_handles = (uint64_t)(uintptr_t)handles, .bo_handle_count = 1 };
	struct drm_v3d_submit_cl cl = base;
	cl.pad = 1;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);
	cl = base;
	cl.flags = 4;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);
	cl = base;
	cl.bo_handle_count = 0; /* "Rendering requires BOs" */
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);
	uint32_t bad_handles[2] = { bo.handle, 42 };
	cl = base;
	cl.bo_handles = (uint64_t)(uintptr_t)bad_handles;
	cl.bo_handle_count = 2;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -ENOENT);
	cl = base;
	cl.perfmon_id = 1;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -ENOENT);
	cl = base;
	cl.in_sync_rcl = fenceless; /* a syncobj with no fence: -EINVAL */
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);
	/* Extensions: unknown id, empty multisync, multisync pad, unknown out syncobj. */
	struct drm_v3d_extension unknown = { .id = 9 };
	cl = base;
	cl.flags = DRM_V3D_SUBMIT_EXTENSION;
	cl.extensions = (uint64_t)(uintptr_t)&unknown;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);
	struct drm_v3d_multi_sync ms = { .base.id = DRM_V3D_EXT_ID_MULTI_SYNC };
	cl.extensions = (uint64_t)(uintptr_t)&ms;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);
	struct drm_v3d_sem out = { .handle = 555 };
	ms.out_syncs = (uint64_t)(uintptr_t)&out;
	ms.out_sync_count = 1;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);
	out.handle = fenceless;
	ms.pad = 1;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), -EINVAL);

	/* TFU: flags without EXTENSION, a bad BO handle, a fence-less in_sync. */
	struct drm_v3d_submit_tfu tfu = tfu_copy(42, 0, bo.offset, 16, bo.offset + 4096, 16, 16, 1);
	tfu.flags = 1;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_TFU, &tfu), -EINVAL);
	tfu.flags = 0;
	tfu.bo_handles[0] = 9;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_TFU, &tfu), -ENOENT);
	tfu.bo_handles[0] = bo.handle;
	tfu.in_sync = fenceless;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_TFU, &tfu), -EINVAL);

	/* CSD: flags, pad, no BOs, bad BO, perfmon. */
	struct drm_v3d_submit_csd csd = { .cfg = { 1 << 16, 1 << 16, 1 << 16, 16, 0, bo.offset, bo.offset },
					  .bo_handles = (uint64_t)(uintptr_t)handles, .bo_handle_count = 1 };
	struct drm_v3d_submit_csd c = csd;
	c.flags = 1;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), -EINVAL);
	c = csd;
	c.pad = 1;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), -EINVAL);
	c = csd;
	c.bo_handle_count = 0;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), -EINVAL);
	c = csd;
	c.bo_handles = (uint64_t)(uintptr_t)bad_handles;
	c.bo_handle_count = 2;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), -ENOENT);
	c = csd;
	c.perfmon_id = 3;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), -ENOENT);

	/* No job was queued by any of these: the trace holds only ioctl events. */
	struct sim_v3d_trace_event ev[64];
	size_t n = trace_all(dev, ev, 64);
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++)
		CHECK(ev[i].kind == SIM_V3D_TRACE_SUBMIT_CL_IOCTL || ev[i].kind == SIM_V3D_TRACE_SUBMIT_TFU_IOCTL ||
		      ev[i].kind == SIM_V3D_TRACE_SUBMIT_CSD_IOCTL);
	/* And the BO is idle. */
	struct drm_v3d_wait_bo wb = { .handle = bo.handle };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_WAIT_BO, &wb), 0);
	tbo_free(kd, &bo);
	kd->ops->close(kd);
	sim_v3d_device_destroy(dev);
}

/* WAIT_BO: relative timeout, written back; -ETIME on a busy BO; pad and handle checks. */
static void test_wait_bo(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-7.1", &dev) == 0);
	sim_v3d_set_paused(dev, true); /* the job stays queued: the BO stays busy */
	struct kdev *kd = sim_v3d_open(dev);
	REQUIRE(kd);
	struct tbo bo = tbo_new(kd, 8192);
	struct drm_v3d_submit_tfu t = tfu_copy(71, 0, bo.offset, 64, bo.offset + 4096, 64, 64, 4);
	t.bo_handles[0] = bo.handle;
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	struct drm_v3d_wait_bo wb = { .handle = bo.handle, .timeout_ns = 0 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_WAIT_BO, &wb), -ETIME);
	CHECK_EQ(wb.timeout_ns, 0);
	int64_t t0 = now_ns();
	wb.timeout_ns = 30000000; /* 30 ms */
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_WAIT_BO, &wb), -ETIME);
	CHECK(now_ns() - t0 >= 30000000);
	CHECK_EQ(wb.timeout_ns, 0); /* all of it was used */
	wb = (struct drm_v3d_wait_bo){ .handle = bo.handle, .pad = 1 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_WAIT_BO, &wb), -EINVAL);
	wb = (struct drm_v3d_wait_bo){ .handle = 77 };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_WAIT_BO, &wb), -EINVAL);
	/* Resume: the wait returns 0 and leaves time on the clock. */
	sim_v3d_set_paused(dev, false);
	wb = (struct drm_v3d_wait_bo){ .handle = bo.handle, .timeout_ns = 10 * NS_PER_SEC };
	CHECK_EQ(kdev_ioctl(kd, DRM_IOCTL_V3D_WAIT_BO, &wb), 0);
	CHECK(wb.timeout_ns > 0 && wb.timeout_ns < 10ull * NS_PER_SEC);
	/* The completion woke the open's poll fd; poll_ack drains it. */
	struct pollfd pfd = { .fd = kd->ops->poll_fd(kd), .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 5000), 1);
	kd->ops->poll_ack(kd);
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	tbo_free(kd, &bo);
	kd->ops->close(kd);
	sim_v3d_device_destroy(dev);
}

int main(void)
{
	RUN_TEST(test_params);
	RUN_TEST(test_bo_global_space);
	RUN_TEST(test_syncobjs);
	RUN_TEST(test_submit_errors);
	RUN_TEST(test_wait_bo);
	return test_finish();
}
