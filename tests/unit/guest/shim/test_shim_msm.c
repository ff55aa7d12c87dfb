/* The msm uAPI (Linux 6.1, driver 1.9) as Turnip and freedreno use it: params, GEM_NEW /
 * GEM_INFO / mmap of the fake offset, GEM_SUBMIT of a PM4 IB with out- and in-syncobjs (a chain
 * across two submitqueues held back by a CP wait on a CPU-written word), empty submits (no cmds:
 * a fence in the queue's order), WAIT_FENCE, the submitqueue ioctls, and the errnos the kernel
 * gives for malformed submits. On the fake kernel: a draw it does not execute is warned about
 * once per process, and with FERRY_SIM_STRICT=1 it is a GPU fault (MSM_PARAM_FAULTS) that stops
 * the submit at the draw and loses the context. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "pm4_builder.h"
#include "shim_test.h"
#include "test.h"

static struct st_env env;
static int fd = -1;

static struct drm_msm_timespec abs_timeout(int64_t rel_ns)
{
	int64_t t = st_now_ns() + rel_ns;
	return (struct drm_msm_timespec){ t / ST_NS_PER_SEC, t % ST_NS_PER_SEC };
}

static int get_param(uint32_t pipe, uint32_t param, uint64_t *value)
{
	struct drm_msm_param p = { .pipe = pipe, .param = param };
	int r = st_ioctl(fd, DRM_IOCTL_MSM_GET_PARAM, &p);
	*value = p.value;
	return r;
}

static void test_params(void)
{
	uint64_t v = 0;
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_GPU_ID, &v), 0);
	CHECK_EQ(v, strcmp(env.gpu, "a660") == 0 ? 660 : 630);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_CHIP_ID, &v), 0);
	CHECK(v != 0);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_GMEM_SIZE, &v), 0);
	CHECK(v >= 512 * 1024);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_PRIORITIES, &v), 0);
	CHECK(v >= 1);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(get_param(MSM_PIPE_2D0, MSM_PARAM_GPU_ID, &v), -EINVAL);
	CHECK_EQ(get_param(MSM_PIPE_3D0, 0x77, &v), -EINVAL);
	/* The always-on counter runs at 19.2 MHz on both paths (through the shim, read on the
	 * host): 2 ms later it has moved by at least 38400 ticks, and by less than a minute's. */
	uint64_t t0 = 0, t1 = 0;
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_TIMESTAMP, &t0), 0);
	st_sleep_ms(2);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_TIMESTAMP, &t1), 0);
	CHECK(t0 != 0);
	CHECK(t1 >= t0 + 38400);
	CHECK(t1 - t0 < 60ull * 19200000);
}

static void test_gem(void)
{
	struct drm_msm_gem_new n = { .size = 8192, .flags = MSM_BO_WC };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_NEW, &n), 0);
	uint32_t h = n.handle;
	CHECK(h != 0);
	n = (struct drm_msm_gem_new){ .size = 4096, .flags = 0x100 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_NEW, &n), -EINVAL);
	n = (struct drm_msm_gem_new){ .size = 0, .flags = MSM_BO_WC };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_NEW, &n), -EINVAL);

	struct drm_msm_gem_info i = { .handle = h, .info = MSM_INFO_GET_IOVA };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i), 0);
	uint64_t iova = i.value;
	CHECK(iova != 0 && (iova & 4095) == 0);
	i = (struct drm_msm_gem_info){ .handle = h, .info = MSM_INFO_GET_OFFSET };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i), 0);
	uint64_t off = i.value;
	CHECK((off & 4095) == 0);

	/* A second BO gets its own, non-overlapping iova and offset. */
	struct st_bo other;
	st_bo_new(fd, true, 4096, &other);
	CHECK(other.gpu_addr >= iova + 8192 || other.gpu_addr + 4096 <= iova);
	CHECK(other.mmap_offset != off);

	/* Two mappings of the fake offset share the pages. */
	uint32_t *a = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	uint32_t *b = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	REQUIRE(a != MAP_FAILED && b != MAP_FAILED);
	a[2047] = 0x600dcafe;
	CHECK_EQ(b[2047], 0x600dcafe);
	munmap(a, 8192);
	munmap(b, 8192);
	/* drm_gem_mmap: only a BO's own offset, for no more than its size. */
	errno = 0;
	CHECK(mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, fd, (off_t)off) == MAP_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)(off + 4096)) == MAP_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)(0x7700000000ull)) == MAP_FAILED &&
	      errno == EINVAL);

	i = (struct drm_msm_gem_info){ .handle = 999, .info = MSM_INFO_GET_IOVA };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i), -ENOENT);
	i = (struct drm_msm_gem_info){ .handle = h, .info = 0x77 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i), -EINVAL);
	struct drm_msm_gem_cpu_prep prep = { .handle = h, .op = MSM_PREP_READ, .timeout = abs_timeout(ST_WAIT_NS) };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_CPU_PREP, &prep), 0);
	prep.handle = 999;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_CPU_PREP, &prep), -ENOENT);
	struct drm_msm_gem_madvise m = { .handle = h, .madv = MSM_MADV_WILLNEED };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_MADVISE, &m), 0);
	CHECK_EQ(m.retained, 1);

	struct drm_gem_close c = { .handle = h };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c), 0);
	i = (struct drm_msm_gem_info){ .handle = h, .info = MSM_INFO_GET_IOVA };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i), -ENOENT);
	st_bo_free(fd, &other);
}

static int wait_fence(uint32_t queue, uint32_t fence, int64_t rel_ns)
{
	struct drm_msm_wait_fence w = { .fence = fence, .timeout = abs_timeout(rel_ns), .queueid = queue };
	return st_ioctl(fd, DRM_IOCTL_MSM_WAIT_FENCE, &w);
}

static void test_submit_write(void)
{
	struct st_job job;
	st_job_build(fd, true, 0xc0ffee01, &job);
	uint32_t out = 0, fence = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &out) == 0);
	CHECK_EQ(st_job_submit(fd, &job, 0, out, &fence), 0);
	CHECK(fence != 0);
	CHECK_EQ(drmSyncobjWait(fd, &out, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK_EQ(wait_fence(0, fence, ST_WAIT_NS), 0);
	CHECK(st_job_done(&job)); /* read through the GEM mapping */
	/* A fence never handed out. */
	CHECK_EQ(wait_fence(0, fence + 1000, 0), -EINVAL);
	CHECK_EQ(wait_fence(77, fence, 0), -ENOENT);

	/* The next submit's fence is later on the same queue. */
	uint32_t fence2 = 0;
	CHECK_EQ(st_job_submit(fd, &job, 0, 0, &fence2), 0);
	CHECK((int32_t)(fence2 - fence) > 0);
	CHECK_EQ(wait_fence(0, fence2, ST_WAIT_NS), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, out), 0);
	st_job_free(fd, &job);
}

/* One GEM_SUBMIT of ib's bytes (READ) and bos (READ|WRITE). Without ib, a submit with
 * nr_cmds = 0 (Turnip's vkQueueSubmit without command buffers; GStreamer signals fences so). */
static int submit_ib(uint32_t queue, const struct st_bo *ib, uint32_t ib_off, uint32_t bytes,
		     const struct st_bo *const *bos, uint32_t nr, uint32_t in, uint32_t in_flags, uint32_t out,
		     uint32_t *fence)
{
	struct drm_msm_gem_submit_bo sb[4] = { { 0 } };
	uint32_t nr_bos = 0;
	if (ib)
		sb[nr_bos++] = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ, .handle = ib->handle };
	for (uint32_t i = 0; i < nr; i++)
		sb[nr_bos++] = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE,
							       .handle = bos[i]->handle };
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_offset = ib_off, .size = bytes };
	struct drm_msm_gem_submit_syncobj sin = { .handle = in, .flags = in_flags }, sout = { .handle = out };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | (in ? MSM_SUBMIT_SYNCOBJ_IN : 0) | (out ? MSM_SUBMIT_SYNCOBJ_OUT : 0),
		.nr_bos = nr_bos, .nr_cmds = ib ? 1 : 0, .bos = nr_bos ? (uintptr_t)sb : 0,
		.cmds = ib ? (uintptr_t)&cmd : 0, .queueid = queue,
		.in_syncobjs = (uintptr_t)&sin, .out_syncobjs = (uintptr_t)&sout,
		.nr_in_syncobjs = in ? 1 : 0, .nr_out_syncobjs = out ? 1 : 0, .syncobj_stride = sizeof(sin),
	};
	int r = st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	if (fence)
		*fence = s.fence;
	return r;
}

static void test_refused_submit_is_a_fault(void)
{
	if (env.mode != ST_MODE_SHIM)
		return; /* the fake kernel has no validator */
	struct st_bo ib;
	st_bo_new(fd, true, 4096, &ib);
	struct pm4_builder pb;
	pm4_builder_init(&pb, (uint32_t *)ib.map, 1024);
	PM4_PKT7(&pb, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0); /* privileged */
	REQUIRE(pm4_builder_ok(&pb));
	uint64_t faults0 = 0, faults1 = 0;
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &faults0), 0);
	uint32_t out = 0, fence = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &out) == 0);
	CHECK_EQ(submit_ib(0, &ib, 0, pm4_builder_bytes(&pb), NULL, 0, 0, 0, out, &fence), 0);
	CHECK_EQ(drmSyncobjWait(fd, &out, 1, st_now_ns() + ST_WAIT_NS,
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), 0);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &faults1), 0);
	CHECK_EQ(faults1, faults0 + 1);
	CHECK_EQ(drmSyncobjDestroy(fd, out), 0);
	st_bo_free(fd, &ib);
}

/* After a hang the open is lost, through the shim (ferryd's lost context) and on the fake kernel
 * alike: FAULTS counts it, a later submit fails EIO, and a wait for a fence yet to be submitted
 * ends EIO at once instead of sleeping out its timeout. Its own fd: the lost one is closed. */
static void test_lost_after_hang(void)
{
	int keep = fd;
	fd = st_open_render();
	struct st_bo ib, data;
	st_bo_new(fd, true, 4096, &ib);
	st_bo_new(fd, true, 4096, &data);
	memset(data.map, 0, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 64);
	pm4_wait_mem_gte(&b, data.gpu_addr, 1); /* nobody writes it: a hang */
	REQUIRE(pm4_builder_ok(&b));
	uint64_t faults0 = 0, faults1 = 0;
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &faults0), 0);
	uint32_t out = 0, empty = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &out) == 0);
	REQUIRE(drmSyncobjCreate(fd, 0, &empty) == 0);
	const struct st_bo *bos[] = { &data };
	CHECK_EQ(submit_ib(0, &ib, 0, pm4_builder_bytes(&b), bos, 1, 0, 0, out, NULL), 0);
	CHECK_EQ(drmSyncobjWait(fd, &out, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &faults1), 0);
	CHECK_EQ(faults1, faults0 + 1);
	CHECK_EQ(submit_ib(0, &ib, 0, pm4_builder_bytes(&b), bos, 1, 0, 0, 0, NULL), -EIO);
	CHECK_EQ(drmSyncobjWait(fd, &empty, 1, st_now_ns() + ST_WAIT_NS,
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), -EIO);
	/* Timeline points alike: one submitted passes, one never to be submitted ends EIO (a wait,
	 * or a TRANSFER waiting for it), instead of sleeping out the timeout. */
	uint64_t one = 1, two = 2;
	CHECK_EQ(drmSyncobjTimelineSignal(fd, &empty, &one, 1), 0);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &empty, &one, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					NULL),
		 0);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &empty, &two, 1, st_now_ns() + ST_WAIT_NS,
					DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL),
		 -EIO);
	struct drm_syncobj_transfer tr = { .src_handle = empty, .src_point = 2, .dst_handle = out,
					   .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &tr), -EIO);
	CHECK_EQ(drmSyncobjDestroy(fd, out), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, empty), 0);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &data);
	CHECK_EQ(close(fd), 0);
	fd = keep;
}

/* A point whose fence is still pending: QUERY reads the point before it, LAST_SUBMITTED the
 * new one, a wait polls -ETIME and WAIT_AVAILABLE passes; once the job (a CP_WAIT_MEM_GTE the
 * test releases by writing its word) retires, the point signals. */
static void test_pending_point(void)
{
	struct st_bo ib, data;
	st_bo_new(fd, true, 4096, &ib);
	st_bo_new(fd, true, 4096, &data);
	memset(data.map, 0, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 64);
	pm4_wait_mem_gte(&b, data.gpu_addr, 1);
	REQUIRE(pm4_builder_ok(&b));
	uint32_t h = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &h) == 0);
	uint64_t three = 3, four = 4, five = 5, got = 0;
	CHECK_EQ(drmSyncobjTimelineSignal(fd, &h, &three, 1), 0);
	struct drm_msm_gem_submit_bo sb[2] = { { .flags = MSM_SUBMIT_BO_READ, .handle = ib.handle },
					       { .flags = MSM_SUBMIT_BO_READ, .handle = data.handle } };
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .size = pm4_builder_bytes(&b) };
	struct drm_msm_gem_submit_syncobj sout = { .handle = h, .point = 5 };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | MSM_SUBMIT_SYNCOBJ_OUT, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)sb,
		.cmds = (uintptr_t)&cmd, .out_syncobjs = (uintptr_t)&sout, .nr_out_syncobjs = 1,
		.syncobj_stride = sizeof(sout),
	};
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(drmSyncobjQuery2(fd, &h, &got, 1, 0), 0);
	CHECK_EQ(got, 3);
	CHECK_EQ(drmSyncobjQuery2(fd, &h, &got, 1, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 0);
	CHECK_EQ(got, 5);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &h, &three, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &h, &four, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), -ETIME);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &h, &five, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, NULL), 0);
	CHECK_EQ(drmSyncobjWait(fd, &h, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), -ETIME); /* the head */
	/* Points taken from points, back and forth 2000 times while the job runs: each holds the
	 * one before, nested 2000 deep; they all signal with the job, and go without recursing. */
	uint32_t g = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &g) == 0);
	uint64_t p = 5;
	for (int i = 0; i < 2000; i++, p++) {
		struct drm_syncobj_transfer tr = { .src_handle = i % 2 ? g : h, .src_point = p,
						   .dst_handle = i % 2 ? h : g, .dst_point = p + 1 };
		CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &tr), 0);
	}
	CHECK_EQ(drmSyncobjQuery2(fd, &h, &got, 1, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 0);
	CHECK_EQ(got, p); /* 2005: the last transfer went into h */
	CHECK_EQ(drmSyncobjQuery2(fd, &g, &got, 1, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 0);
	CHECK_EQ(got, p - 1);
	CHECK_EQ(drmSyncobjQuery2(fd, &g, &got, 1, 0), 0);
	CHECK_EQ(got, 0);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &h, &p, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), -ETIME);
	uint32_t one = 1;
	__atomic_store_n((uint32_t *)data.map, one, __ATOMIC_RELEASE);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &h, &five, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					NULL),
		 0);
	CHECK_EQ(drmSyncobjTimelineWait(fd, &h, &p, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL),
		 0);
	CHECK_EQ(drmSyncobjQuery2(fd, &h, &got, 1, 0), 0);
	CHECK_EQ(got, p);
	CHECK_EQ(drmSyncobjQuery2(fd, &g, &got, 1, 0), 0);
	CHECK_EQ(got, p - 1);
	CHECK_EQ(drmSyncobjDestroy(fd, g), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, h), 0);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &data);
}

static uint32_t queue_new(uint32_t prio)
{
	struct drm_msm_submitqueue q = { .prio = prio };
	REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q) == 0);
	CHECK(q.id != 0);
	return q.id;
}

static int queue_close(uint32_t id)
{
	return st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id);
}

/* A on queue 1 waits in the CP until the CPU writes the gate, then writes a value; B on queue 2
 * waits for A's out-syncobj and copies that value. B must not run before the gate opens. */
static void test_syncobj_chain(void)
{
	struct st_bo ib, data;
	st_bo_new(fd, true, 4096, &ib);
	st_bo_new(fd, true, 4096, &data);
	uint32_t *d = (uint32_t *)data.map;
	memset(d, 0, 4096);
	uint32_t q1 = queue_new(0), q2 = queue_new(0);
	CHECK(q1 != q2);

	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 64);
	pm4_wait_mem_gte(&b, data.gpu_addr, 1); /* d[0]: the gate */
	uint32_t value = 0xa11ce5;
	pm4_mem_write(&b, data.gpu_addr + 4, &value, 1);
	REQUIRE(pm4_builder_ok(&b));
	uint32_t a_bytes = pm4_builder_bytes(&b);
	pm4_builder_init(&b, (uint32_t *)ib.map + 256, 64);
	pm4_memcpy(&b, data.gpu_addr + 8, data.gpu_addr + 4, 1);
	REQUIRE(pm4_builder_ok(&b));
	uint32_t b_bytes = pm4_builder_bytes(&b);

	uint32_t s_a = 0, s_b = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &s_a) == 0);
	REQUIRE(drmSyncobjCreate(fd, 0, &s_b) == 0);
	const struct st_bo *bos[] = { &data };
	uint32_t fa = 0, fb = 0;
	CHECK_EQ(submit_ib(q1, &ib, 0, a_bytes, bos, 1, 0, 0, s_a, &fa), 0);
	CHECK_EQ(submit_ib(q2, &ib, 1024, b_bytes, bos, 1, s_a, MSM_SUBMIT_SYNCOBJ_RESET, s_b, &fb), 0);
	/* The in-syncobj was reset once B was queued. */
	CHECK_EQ(drmSyncobjWait(fd, &s_a, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), -EINVAL);

	st_sleep_ms(100);
	CHECK_EQ(drmSyncobjWait(fd, &s_b, 1, st_now_ns() + 20 * 1000 * 1000, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL),
		 -ETIME);
	CHECK_EQ(wait_fence(q2, fb, 20 * 1000 * 1000), -ETIMEDOUT);
	CHECK_EQ(wait_fence(q1, fa, 0), -ETIMEDOUT);
	CHECK_EQ(d[1], 0);
	CHECK_EQ(d[2], 0);

	__atomic_store_n(&d[0], 1, __ATOMIC_SEQ_CST); /* open the gate */
	CHECK_EQ(drmSyncobjWait(fd, &s_b, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK_EQ(wait_fence(q1, fa, ST_WAIT_NS), 0);
	CHECK_EQ(wait_fence(q2, fb, ST_WAIT_NS), 0);
	CHECK_EQ(d[1], value);
	CHECK_EQ(d[2], value); /* B ran after A */

	CHECK_EQ(drmSyncobjDestroy(fd, s_a), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, s_b), 0);
	CHECK_EQ(queue_close(q1), 0);
	CHECK_EQ(queue_close(q2), 0);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &data);
}

/* Empty submits are accepted as the kernel accepts them: on queue 1, E after A (held in the CP
 * by a gate) gets the next fence and signals its out-syncobj only once A is done; on queue 2, F
 * (BOs, no cmds) waits for E's syncobj and signals in turn. */
static void test_empty_submit(void)
{
	struct st_bo ib, data;
	st_bo_new(fd, true, 4096, &ib);
	st_bo_new(fd, true, 4096, &data);
	uint32_t *d = (uint32_t *)data.map;
	memset(d, 0, 4096);
	uint32_t q1 = queue_new(0), q2 = queue_new(0);

	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 64);
	pm4_wait_mem_gte(&b, data.gpu_addr, 1); /* d[0]: the gate */
	uint32_t value = 0xe3e7;
	pm4_mem_write(&b, data.gpu_addr + 4, &value, 1);
	REQUIRE(pm4_builder_ok(&b));

	uint32_t s_e = 0, s_f = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &s_e) == 0);
	REQUIRE(drmSyncobjCreate(fd, 0, &s_f) == 0);
	const struct st_bo *bos[] = { &data };
	uint32_t fa = 0, fe = 0, ff = 0;
	CHECK_EQ(submit_ib(q1, &ib, 0, pm4_builder_bytes(&b), bos, 1, 0, 0, 0, &fa), 0);
	CHECK_EQ(submit_ib(q1, NULL, 0, 0, NULL, 0, 0, 0, s_e, &fe), 0);
	CHECK((int32_t)(fe - fa) > 0);
	CHECK_EQ(submit_ib(q2, NULL, 0, 0, bos, 1, s_e, MSM_SUBMIT_SYNCOBJ_RESET, s_f, &ff), 0);
	CHECK(ff != 0);
	CHECK_EQ(drmSyncobjWait(fd, &s_e, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), -EINVAL); /* reset */

	/* The gate is closed: nothing behind A has signaled. */
	CHECK_EQ(drmSyncobjWait(fd, &s_f, 1, st_now_ns() + 20 * 1000 * 1000, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL),
		 -ETIME);
	CHECK_EQ(wait_fence(q1, fe, 20 * 1000 * 1000), -ETIMEDOUT);
	CHECK_EQ(wait_fence(q2, ff, 0), -ETIMEDOUT);
	CHECK_EQ(d[1], 0);

	__atomic_store_n(&d[0], 1, __ATOMIC_SEQ_CST); /* open the gate */
	CHECK_EQ(drmSyncobjWait(fd, &s_f, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK_EQ(wait_fence(q1, fe, 0), 0);
	CHECK_EQ(wait_fence(q1, fa, 0), 0); /* E signaled only after A */
	CHECK_EQ(wait_fence(q2, ff, ST_WAIT_NS), 0);
	CHECK_EQ(d[1], value);

	CHECK_EQ(drmSyncobjDestroy(fd, s_e), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, s_f), 0);
	CHECK_EQ(queue_close(q1), 0);
	CHECK_EQ(queue_close(q2), 0);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &data);
}

static void test_submit_errnos(void)
{
	struct st_job job;
	st_job_build(fd, true, 0xbad, &job);
	struct drm_msm_gem_submit_bo sb[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = job.bos[0].handle },
		{ .flags = MSM_SUBMIT_BO_WRITE, .handle = job.bos[1].handle },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .size = job.ib_bytes };
	struct drm_msm_gem_submit ok = {
		.flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)sb, .cmds = (uintptr_t)&cmd,
	};
	struct drm_msm_gem_submit s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0); /* the baseline is fine */

	sb[1].handle = 999; /* "invalid handle" */
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	sb[1].handle = job.bos[1].handle;
	sb[1].flags = 0x100; /* unknown BO flag */
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	sb[1].flags = MSM_SUBMIT_BO_WRITE;

	s = ok;
	s.queueid = 99;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -ENOENT);
	s = ok;
	s.flags |= 0x01000000; /* no such submit flag */
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	s = ok;
	s.flags = MSM_PIPE_2D0;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	s = ok;
	s.flags |= MSM_SUBMIT_SUDO;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	s = ok;
	s.pad = 1;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);

	struct drm_msm_gem_submit_cmd good = cmd;
	cmd.size = job.ib_bytes + 2; /* unaligned */
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	cmd = good;
	cmd.size = 0;
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	cmd = good;
	cmd.submit_offset = 4096 - 4; /* runs past the BO */
	cmd.size = 8;
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	cmd = good;
	cmd.submit_idx = 2;
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	cmd = good;
	cmd.type = 7;
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	cmd = good;
	{
		/* Relocs are not offered (every driver since msm 1.4 uses none), on either path. */
		struct drm_msm_gem_submit_reloc rel = { .submit_offset = 0, .reloc_idx = 1 };
		cmd.nr_relocs = 1;
		cmd.relocs = (uintptr_t)&rel;
		s = ok;
		CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EOPNOTSUPP);
		cmd = good;
	}

	/* Syncobjs: an in-syncobj without a fence, or naming nothing; an out-syncobj naming nothing. */
	uint32_t empty = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &empty) == 0);
	struct drm_msm_gem_submit_syncobj so = { .handle = empty };
	s = ok;
	s.flags |= MSM_SUBMIT_SYNCOBJ_IN;
	s.in_syncobjs = (uintptr_t)&so;
	s.nr_in_syncobjs = 1;
	s.syncobj_stride = sizeof(so);
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	so.handle = 999;
	s.fence = 0;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -ENOENT);
	so = (struct drm_msm_gem_submit_syncobj){ .handle = empty, .flags = 0x10 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	so = (struct drm_msm_gem_submit_syncobj){ .handle = 999 };
	s = ok;
	s.flags |= MSM_SUBMIT_SYNCOBJ_OUT;
	s.out_syncobjs = (uintptr_t)&so;
	s.nr_out_syncobjs = 1;
	s.syncobj_stride = sizeof(so);
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	/* None of the failures left a fence in the out-syncobj. */
	CHECK_EQ(drmSyncobjWait(fd, &empty, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), -EINVAL);
	/* An out-syncobj with a point gets the submit's fence at that point. */
	so = (struct drm_msm_gem_submit_syncobj){ .handle = empty, .point = 5 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	uint64_t last = 0;
	CHECK_EQ(drmSyncobjQuery2(fd, &empty, &last, 1, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED), 0);
	CHECK_EQ(last, 5);

	CHECK_EQ(drmSyncobjDestroy(fd, empty), 0);
	CHECK_EQ(wait_fence(0, 0x7fffffff, 0), -EINVAL);
	st_job_free(fd, &job);
}

static void test_submitqueues(void)
{
	uint64_t prios = 0;
	REQUIRE(get_param(MSM_PIPE_3D0, MSM_PARAM_PRIORITIES, &prios) == 0);
	uint32_t id = queue_new((uint32_t)prios - 1);
	struct drm_msm_submitqueue q = { .prio = (uint32_t)prios };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q), -EINVAL);
	q = (struct drm_msm_submitqueue){ .flags = 1 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q), -EINVAL);

	uint32_t faults = 77;
	struct drm_msm_submitqueue_query qq = { .param = MSM_SUBMITQUEUE_PARAM_FAULTS, .id = id };
	/* len 0 asks for the size; the ioctl is _IOW, so the kernel never copies len back. */
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), 0);
	CHECK_EQ(faults, 77);
	qq.len = sizeof(faults);
	qq.data = (uintptr_t)&faults;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), 0);
	CHECK_EQ(faults, 0);
	qq.param = 5;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), -EINVAL);
	qq = (struct drm_msm_submitqueue_query){ .param = MSM_SUBMITQUEUE_PARAM_FAULTS, .id = 99 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), -ENOENT);

	/* A job on the new queue, then the queue goes. */
	struct st_job job;
	st_job_build(fd, true, 0x9001, &job);
	struct drm_msm_gem_submit_bo sb[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = job.bos[0].handle },
		{ .flags = MSM_SUBMIT_BO_WRITE, .handle = job.bos[1].handle },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .size = job.ib_bytes };
	struct drm_msm_gem_submit s = { .flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)sb,
					.cmds = (uintptr_t)&cmd, .queueid = id };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(wait_fence(id, s.fence, ST_WAIT_NS), 0);
	CHECK(st_job_done(&job));

	CHECK_EQ(queue_close(id), 0);
	CHECK_EQ(queue_close(id), -ENOENT);
	CHECK_EQ(queue_close(0), -ENOENT); /* the default queue stays */
	s.fence = 0;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -ENOENT);
	qq = (struct drm_msm_submitqueue_query){ .param = MSM_SUBMITQUEUE_PARAM_FAULTS, .id = id };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), -ENOENT);
	st_job_free(fd, &job);
}

/* Drivers create and close submitqueues for every VkDevice on one fd: the closed queues must
 * go (libferry has a bounded number of queue ids per context). */
static void test_submitqueue_cycles(void)
{
	for (int i = 0; i < 300; i++) {
		struct drm_msm_submitqueue q = { .prio = 0 };
		int r = st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q);
		CHECK_EQ(r, 0);
		if (r)
			break;
		CHECK_EQ(queue_close(q.id), 0);
	}
}

/* A fork()ed child that closes its copy of the node fd leaves the parent's open alone, and
 * for the child the node does not exist. */
static void test_fork_child_close(void)
{
	struct drm_msm_gem_new n = { .size = 4096, .flags = MSM_BO_WC };
	REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_GEM_NEW, &n) == 0);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		close(fd);
		_exit(open("/dev/dri/renderD128", O_RDWR) < 0 && errno == ENOENT ? 0 : 1);
	}
	int st = -1;
	REQUIRE(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct drm_msm_gem_info i = { .handle = n.handle, .info = MSM_INFO_GET_IOVA };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &i), 0);
	struct drm_gem_close c = { .handle = n.handle };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c), 0);
}

/* The child of test_fake_kernel_draws (the environment decides strict or not): two submits of
 * [draw, CP_MEM_WRITE]; prints what the faults counter and the written word say. */
static int child_draws(void)
{
	fd = st_open_render();
	struct st_bo ib, out;
	st_bo_new(fd, true, 4096, &ib);
	st_bo_new(fd, true, 4096, &out);
	memset(out.map, 0, 4);
	for (uint32_t i = 1; i <= 2; i++) {
		struct pm4_builder b;
		pm4_builder_init(&b, (uint32_t *)ib.map, 1024);
		pm4_draw_auto_index(&b, DI_PT_TRILIST, 3, 1);
		pm4_mem_write(&b, out.gpu_addr, &i, 1);
		REQUIRE(pm4_builder_ok(&b));
		const struct st_bo *w[] = { &out };
		uint32_t fence = 0;
		int r = submit_ib(0, &ib, 0, pm4_builder_bytes(&b), w, 1, 0, 0, 0, &fence);
		if (r != 0) { /* a context lost to a fault refuses what comes after, as msm does */
			fprintf(stderr, "child: submit %u: %s\n", i, strerror(-r));
			break;
		}
		REQUIRE(wait_fence(0, fence, ST_WAIT_NS) == 0);
	}
	uint64_t faults = 0;
	REQUIRE(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &faults) == 0);
	uint32_t written;
	memcpy(&written, out.map, 4);
	fprintf(stderr, "child: faults=%llu written=%u\n", (unsigned long long)faults, written);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &out);
	close(fd);
	return 0;
}

static void test_fake_kernel_draws(void)
{
	if (env.mode != ST_MODE_FAKEKERNEL)
		return; /* through ferryd: tests/integration/test_unmodeled.c */
	char out[8192];
	const char *args[] = { "--child-draws", NULL };
	int st = st_rerun(&env, args, "FERRY_SIM_STRICT=0", out, sizeof(out));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strstr(out, "child: faults=0 written=2\n") != NULL);
	/* Two draws, one warning. */
	const char *warn = "draw skipped: the simulated GPU does not execute shaders";
	const char *first = strstr(out, warn);
	CHECK(first && !strstr(first + 1, warn));
	if (test_failures)
		fprintf(stderr, "child's stderr:\n%s\n", out);

	st = st_rerun(&env, args, "FERRY_SIM_STRICT=1", out, sizeof(out));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The first submit faulted at its draw (nothing after it ran) and lost the context: the
	 * second is refused. */
	CHECK(strstr(out, "child: submit 2: Input/output error\n") != NULL);
	CHECK(strstr(out, "child: faults=1 written=0\n") != NULL);
	if (test_failures)
		fprintf(stderr, "child's stderr:\n%s\n", out);
}

struct lost_waiter {
	uint32_t fence;
	int result;
	int64_t ended_ns;
};

static void *lost_wait_thread(void *p)
{
	struct lost_waiter *w = p;
	w->result = wait_fence(0, w->fence, ST_WAIT_NS);
	w->ended_ns = st_now_ns();
	return NULL;
}

/* ferryd dies under the driver (a farm's board gone): a WAIT_FENCE in progress ends within a
 * second — 0, as the kernel's for a fence that ended in an error — and FAULTS counts the loss,
 * which is how Turnip's check after a wait reports VK_ERROR_DEVICE_LOST; later submits fail and
 * a wait for a point never to be submitted ends at once. The last test: ferryd stays dead. */
static void test_server_lost(void)
{
	if (env.mode != ST_MODE_SHIM)
		return;
	struct st_bo ib, data;
	st_bo_new(fd, true, 4096, &ib);
	st_bo_new(fd, true, 4096, &data);
	memset(data.map, 0, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)ib.map, 64);
	pm4_wait_mem_gte(&b, data.gpu_addr, 1); /* nobody writes it: pending until the kill */
	REQUIRE(pm4_builder_ok(&b));
	uint64_t faults0 = 0, faults1 = 0;
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &faults0), 0);
	uint32_t empty = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &empty) == 0);
	const struct st_bo *bos[] = { &data };
	struct lost_waiter w = { 0 };
	CHECK_EQ(submit_ib(0, &ib, 0, pm4_builder_bytes(&b), bos, 1, 0, 0, 0, &w.fence), 0);
	pthread_t th;
	REQUIRE(pthread_create(&th, NULL, lost_wait_thread, &w) == 0);
	st_sleep_ms(50); /* well inside the 500 ms hangcheck */

	int64_t t_kill = st_now_ns();
	REQUIRE(kill(env.ferryd.pid, SIGKILL) == 0);
	int st;
	REQUIRE(waitpid(env.ferryd.pid, &st, 0) == env.ferryd.pid);
	pthread_join(th, NULL);
	fprintf(stderr, "WAIT_FENCE ended %lld ms after the kill: %s\n",
		(long long)((w.ended_ns - t_kill) / 1000000), strerror(-w.result));
	CHECK(w.result != -ETIMEDOUT);
	CHECK(w.ended_ns - t_kill < ST_NS_PER_SEC);
	CHECK_EQ(get_param(MSM_PIPE_3D0, MSM_PARAM_FAULTS, &faults1), 0);
	CHECK(faults1 > faults0);
	int64_t t0 = st_now_ns();
	CHECK(submit_ib(0, &ib, 0, pm4_builder_bytes(&b), bos, 1, 0, 0, 0, NULL) < 0);
	int r = drmSyncobjWait(fd, &empty, 1, st_now_ns() + ST_WAIT_NS,
			       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	CHECK(r < 0 && r != -ETIME);
	CHECK_EQ(drmSyncobjDestroy(fd, empty), 0);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &data);
	CHECK(st_now_ns() - t0 < ST_NS_PER_SEC);
	/* Reaped: teardown has nothing to stop, only ferryd's directory to remove. */
	env.ferryd.pid = -1;
	ferryd_stop(&env.ferryd, 0);
	env.has_ferryd = false;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--child-draws") == 0)
		return child_draws();
	st_setup(argc, argv, &env);
	REQUIRE(env.msm);
	fd = st_open_render();
	RUN_TEST(test_params);
	RUN_TEST(test_gem);
	RUN_TEST(test_submit_write);
	RUN_TEST(test_syncobj_chain);
	RUN_TEST(test_empty_submit);
	RUN_TEST(test_submit_errnos);
	RUN_TEST(test_refused_submit_is_a_fault);
	RUN_TEST(test_pending_point);
	RUN_TEST(test_lost_after_hang);
	RUN_TEST(test_submitqueues);
	RUN_TEST(test_submitqueue_cycles);
	RUN_TEST(test_fork_child_close);
	RUN_TEST(test_fake_kernel_draws);
	RUN_TEST(test_server_lost);
	CHECK_EQ(close(fd), 0);
	st_teardown(&env);
	return test_finish();
}
