/* Scheduling on the simulated V3D: bin before render, syncobj chains across the queues (CL ->
 * TFU -> CSD) proven by trace order and timestamps, the multisync extension, implicit BO sync,
 * CSD dispatch records, an MMU fault and a hang in one open while another keeps completing,
 * per-open wakeups and cancel-on-close. Control lists here are NOP runs and BRANCHes: the CLE's
 * packets are tested by its own suite. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ferry/hw/v3d_cl.h"
#include "v3dsim_util.h"

#define MAX_EV 4096

/* nops NOP packets at the start of the BO (its end address is returned). */
static uint32_t cl_nops(struct tbo *cl, uint32_t at, uint32_t nops)
{
	memset(cl->map + at, V3D_CL_NOP, nops);
	return cl->offset + at + nops;
}

/* A BRANCH packet at `at` to target. Returns the end address. */
static uint32_t cl_branch(struct tbo *cl, uint32_t at, uint32_t target)
{
	cl->map[at] = V3D_CL_BRANCH;
	memcpy(cl->map + at + 1, &target, 4);
	return cl->offset + at + 5;
}

static struct drm_v3d_submit_cl cl_submit(uint32_t bcl, uint32_t bcl_end, uint32_t rcl, uint32_t rcl_end,
					  const uint32_t *handles, uint32_t n)
{
	return (struct drm_v3d_submit_cl){ .bcl_start = bcl, .bcl_end = bcl_end, .rcl_start = rcl, .rcl_end = rcl_end,
					   .bo_handles = (uint64_t)(uintptr_t)handles, .bo_handle_count = n };
}

struct env {
	struct sim_v3d_device *dev;
	struct kdev *kd;
	struct tbo cl;   /* 256 KiB of control lists */
	struct tbo data; /* 64 KiB of data */
	uint32_t handles[2];
	struct sim_v3d_trace_event ev[MAX_EV];
	size_t nev;
};

static void env_init(struct env *e, const char *model)
{
	memset(e, 0, sizeof(*e));
	REQUIRE(sim_v3d_device_create(model, &e->dev) == 0);
	e->kd = sim_v3d_open(e->dev);
	REQUIRE(e->kd);
	e->cl = tbo_new(e->kd, 256 * 1024);
	e->data = tbo_new(e->kd, 64 * 1024);
	e->handles[0] = e->cl.handle;
	e->handles[1] = e->data.handle;
}

static void env_fini(struct env *e)
{
	tbo_free(e->kd, &e->cl);
	tbo_free(e->kd, &e->data);
	e->kd->ops->close(e->kd);
	sim_v3d_device_destroy(e->dev);
}

static void env_trace(struct env *e)
{
	e->nev = trace_all(e->dev, e->ev, MAX_EV);
}

/* Index of the n-th (0-based) event of kind on queue; -1 if none. */
static long find_q(const struct env *e, uint32_t kind, uint32_t queue, int nth)
{
	for (size_t i = 0; i < e->nev; i++)
		if (e->ev[i].kind == kind && e->ev[i].queue == queue && nth-- == 0)
			return (long)i;
	return -1;
}

/* a happened before b: serial order and CLOCK_MONOTONIC timestamps agree. */
static bool before(const struct env *e, long a, long b)
{
	return a >= 0 && b >= 0 && a < b && e->ev[a].ts_ns <= e->ev[b].ts_ns;
}

static void test_bin_before_render(void)
{
	const char *models[] = { "v3d-4.2", "v3d-7.1" };
	for (int m = 0; m < 2; m++) {
		struct env e;
		env_init(&e, models[m]);
		uint32_t out = syncobj_new(e.kd, false);
		/* A long bin list (many slices) and a one-packet render list: if render did not wait
		 * for its bin it would finish first. */
		uint32_t bend = cl_nops(&e.cl, 0, 100000);
		uint32_t rstart = e.cl.offset + 128 * 1024;
		uint32_t rend = cl_nops(&e.cl, 128 * 1024, 1);
		struct drm_v3d_submit_cl s = cl_submit(e.cl.offset, bend, rstart, rend, e.handles, 2);
		s.out_sync = out;
		s.qma = e.data.offset;
		s.qms = 4096;
		s.qts = e.data.offset + 8192;
		CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
		CHECK_EQ(syncobj_wait1(e.kd, out), 0);
		env_trace(&e);
		long ioctl = find_q(&e, SIM_V3D_TRACE_SUBMIT_CL_IOCTL, V3D_BIN, 0);
		long bstart = find_q(&e, SIM_V3D_TRACE_SUBMIT_CL, V3D_BIN, 0);
		long birq = find_q(&e, SIM_V3D_TRACE_BCL_IRQ, V3D_BIN, 0);
		long rs = find_q(&e, SIM_V3D_TRACE_SUBMIT_CL, V3D_RENDER, 0);
		long rirq = find_q(&e, SIM_V3D_TRACE_RCL_IRQ, V3D_RENDER, 0);
		CHECK(before(&e, ioctl, bstart));
		CHECK(before(&e, bstart, birq));
		CHECK(before(&e, birq, rs));
		CHECK(before(&e, rs, rirq));
		REQUIRE(bstart >= 0 && rs >= 0 && ioctl >= 0);
		CHECK_EQ(e.ev[ioctl].a, rstart);
		CHECK_EQ(e.ev[ioctl].b, rend);
		CHECK_EQ(e.ev[bstart].a, e.cl.offset);
		CHECK_EQ(e.ev[bstart].b, bend);
		CHECK_EQ(e.ev[rs].a, rstart);
		CHECK_EQ(e.ev[bstart].seqno, 1);
		CHECK_EQ(e.ev[rs].seqno, 1);
		CHECK_EQ(e.ev[rs].client, sim_v3d_client_id(e.kd));
		CHECK(!strcmp(sim_v3d_trace_kind_name(e.ev[birq].kind), "v3d_bcl_irq"));
		struct sim_v3d_stats st;
		sim_v3d_get_stats(e.dev, &st);
		CHECK(st.cle_packets >= 100001);
		CHECK_EQ(st.jobs_done[V3D_BIN], 1);
		CHECK_EQ(st.jobs_done[V3D_RENDER], 1);
		/* A second submit without a bin list, with FLUSH_CACHE: render then cache_clean. */
		s = cl_submit(0, 0, rstart, rend, e.handles, 2);
		s.flags = DRM_V3D_SUBMIT_CL_FLUSH_CACHE;
		s.out_sync = out;
		CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
		CHECK_EQ(syncobj_wait1(e.kd, out), 0);
		env_trace(&e);
		CHECK(find_q(&e, SIM_V3D_TRACE_SUBMIT_CL, V3D_BIN, 1) < 0);
		long r2 = find_q(&e, SIM_V3D_TRACE_RCL_IRQ, V3D_RENDER, 1);
		long cb = find_q(&e, SIM_V3D_TRACE_CACHE_CLEAN_BEGIN, V3D_CACHE_CLEAN, 0);
		long ce = find_q(&e, SIM_V3D_TRACE_CACHE_CLEAN_END, V3D_CACHE_CLEAN, 0);
		CHECK(before(&e, r2, cb));
		CHECK(before(&e, cb, ce));
		REQUIRE(r2 >= 0);
		CHECK_EQ(e.ev[r2].seqno, 2);
		env_fini(&e);
	}
}

/* CL (out s1) -> TFU (in s1, out s2) -> CSD (in s2, out s3), all queued while the GPU is paused,
 * then run: each queue starts only after the previous one's IRQ. */
static void test_syncobj_chain_across_queues(void)
{
	struct env e;
	env_init(&e, "v3d-7.1");
	sim_v3d_set_paused(e.dev, true);
	uint32_t s1 = syncobj_new(e.kd, false), s2 = syncobj_new(e.kd, false), s3 = syncobj_new(e.kd, false);
	uint32_t rend = cl_nops(&e.cl, 0, 50000); /* a long render list */
	struct drm_v3d_submit_cl cl = cl_submit(0, 0, e.cl.offset, rend, e.handles, 1);
	cl.out_sync = s1;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl), 0);
	memcpy(e.data.map, "chained copy....", 16);
	struct drm_v3d_submit_tfu t = tfu_copy(71, 0, e.data.offset, 16, e.data.offset + 4096, 16, 16, 1);
	t.in_sync = s1;
	t.out_sync = s2;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	uint32_t data_handle = e.data.handle;
	struct drm_v3d_submit_csd c = {
		.cfg = { 4u << 16, 2u << 16, 1u << 16, (1u << 8) | 64u, 16, e.data.offset + 8192 + 5, e.data.offset + 12288 },
		.bo_handles = (uint64_t)(uintptr_t)&data_handle, .bo_handle_count = 1, .in_sync = s2, .out_sync = s3,
	};
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), 0);
	/* Nothing ran while paused. */
	struct drm_syncobj_wait w = { .handles = (uint64_t)(uintptr_t)&s1, .count_handles = 1,
				      .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, .timeout_nsec = now_ns() + 20000000 };
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), -ETIME);
	sim_v3d_set_paused(e.dev, false);
	uint32_t all[3] = { s1, s2, s3 };
	CHECK_EQ(syncobj_wait(e.kd, all, 3, 10 * NS_PER_SEC), 0);
	CHECK(!memcmp(e.data.map + 4096, "chained copy....", 16));
	env_trace(&e);
	long rirq = find_q(&e, SIM_V3D_TRACE_RCL_IRQ, V3D_RENDER, 0);
	long tsub = find_q(&e, SIM_V3D_TRACE_SUBMIT_TFU, V3D_TFU, 0);
	long tirq = find_q(&e, SIM_V3D_TRACE_TFU_IRQ, V3D_TFU, 0);
	long csub = find_q(&e, SIM_V3D_TRACE_SUBMIT_CSD, V3D_CSD, 0);
	long cirq = find_q(&e, SIM_V3D_TRACE_CSD_IRQ, V3D_CSD, 0);
	long cce = find_q(&e, SIM_V3D_TRACE_CACHE_CLEAN_END, V3D_CACHE_CLEAN, 0);
	CHECK(before(&e, rirq, tsub));
	CHECK(before(&e, tsub, tirq));
	CHECK(before(&e, tirq, csub));
	CHECK(before(&e, csub, cirq));
	CHECK(before(&e, cirq, cce));
	long cioctl = find_q(&e, SIM_V3D_TRACE_SUBMIT_CSD_IOCTL, V3D_CSD, 0);
	REQUIRE(cioctl >= 0);
	CHECK_EQ(e.ev[cioctl].a, e.data.offset + 8192 + 5);
	CHECK_EQ(e.ev[cioctl].b, e.data.offset + 12288);

	/* The dispatch was recorded, not executed. 7.1.10 takes the batch count in cfg[4]:
	 * 4*2*1 workgroups of 64 invocations = 8 * 4 = 32 batches. */
	struct sim_v3d_csd_dispatch d[4];
	uint64_t cur = 0;
	REQUIRE(sim_v3d_csd_read(e.dev, &cur, d, 4) == 1);
	CHECK_EQ(cur, 1);
	CHECK_EQ(d[0].num_wgs[0], 4);
	CHECK_EQ(d[0].num_wgs[1], 2);
	CHECK_EQ(d[0].num_wgs[2], 1);
	CHECK_EQ(d[0].wg_size, 64);
	CHECK_EQ(d[0].wgs_per_sg, 1);
	CHECK_EQ(d[0].batches, 16);
	CHECK_EQ(d[0].expected_batches, 32);
	CHECK(!d[0].valid); /* 16 != 32: recorded as inconsistent */
	CHECK_EQ(d[0].shader_addr, e.data.offset + 8192);
	CHECK_EQ(d[0].shader_flags, 5);
	CHECK_EQ(d[0].uniforms_addr, e.data.offset + 12288);
	CHECK(!d[0].skipped);
	CHECK_EQ(d[0].client, sim_v3d_client_id(e.kd));
	env_fini(&e);
}

static void test_csd_records(void)
{
	struct env e;
	env_init(&e, "v3d-4.2");
	uint32_t out = syncobj_new(e.kd, false);
	uint32_t data_handle = e.data.handle;
	struct drm_v3d_submit_csd c = {
		/* 3x1x1 workgroups of 20 invocations: 2 batches each, 6 in all, "minus one" on 4.2. */
		.cfg = { 3u << 16, 1u << 16, 1u << 16, 20u, 5, e.data.offset | 1, e.data.offset + 256 },
		.bo_handles = (uint64_t)(uintptr_t)&data_handle, .bo_handle_count = 1, .out_sync = out,
	};
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), 0);
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	/* A zero workgroup count: the kernel does not start it, the fence still signals. */
	c.cfg[1] = 0;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), 0);
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	/* An unmapped shader address: an MMU fault of the CSD, reported. */
	c.cfg[1] = 1u << 16;
	c.cfg[5] = 0x7ff00000u;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), 0);
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	struct sim_v3d_csd_dispatch d[8];
	uint64_t cur = 0;
	REQUIRE(sim_v3d_csd_read(e.dev, &cur, d, 8) == 3);
	CHECK_EQ(d[0].batches, 6);
	CHECK_EQ(d[0].expected_batches, 6);
	CHECK(d[0].valid);
	CHECK_EQ(d[0].shader_flags, 1);
	CHECK_EQ(d[0].serial, 0);
	CHECK(d[1].skipped && !d[1].valid);
	CHECK(!d[2].valid && !d[2].skipped);
	CHECK_EQ(sim_v3d_csd_read(e.dev, &cur, d, 8), 0);
	char report[4096];
	REQUIRE(e.kd->ops->coredump(e.kd, report, sizeof(report)) > 0);
	CHECK(strstr(report, "unit=CSD") != NULL);
	CHECK(strstr(report, "register: CFG5") != NULL);
	CHECK(strstr(report, "address=0x7ff00000") != NULL);
	CHECK(strstr(report, "queue: csd") != NULL);
	struct sim_v3d_stats st;
	sim_v3d_get_stats(e.dev, &st);
	CHECK_EQ(st.csd_dispatches, 3);
	CHECK_EQ(st.jobs_done[V3D_CSD], 3);
	CHECK_EQ(st.jobs_done[V3D_CACHE_CLEAN], 3);
	env_fini(&e);
}

/* Multisync: in_syncs gate only the job on wait_stage; every out_sync gets the last fence. */
static void test_multisync(void)
{
	struct env e;
	env_init(&e, "v3d-4.2");
	sim_v3d_set_paused(e.dev, true);
	uint32_t st = syncobj_new(e.kd, false), o1 = syncobj_new(e.kd, false), o2 = syncobj_new(e.kd, false);
	uint32_t unused_single = syncobj_new(e.kd, false);
	struct drm_v3d_submit_tfu t = tfu_copy(42, 0, e.data.offset, 64, e.data.offset + 4096, 64, 64, 64);
	t.out_sync = st;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	uint32_t bend = cl_nops(&e.cl, 0, 8);
	uint32_t rend = cl_nops(&e.cl, 4096, 8);
	struct drm_v3d_sem in[1] = { { .handle = st } }, out[2] = { { .handle = o1 }, { .handle = o2 } };
	struct drm_v3d_multi_sync ms = {
		.base.id = DRM_V3D_EXT_ID_MULTI_SYNC,
		.in_syncs = (uint64_t)(uintptr_t)in, .in_sync_count = 1,
		.out_syncs = (uint64_t)(uintptr_t)out, .out_sync_count = 2,
		.wait_stage = V3D_RENDER,
	};
	struct drm_v3d_submit_cl s = cl_submit(e.cl.offset, bend, e.cl.offset + 4096, rend, e.handles, 1);
	s.flags = DRM_V3D_SUBMIT_EXTENSION;
	s.extensions = (uint64_t)(uintptr_t)&ms;
	s.out_sync = unused_single; /* ignored with multisync */
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
	sim_v3d_set_paused(e.dev, false);
	uint32_t both[2] = { o1, o2 };
	CHECK_EQ(syncobj_wait(e.kd, both, 2, 10 * NS_PER_SEC), 0);
	struct drm_syncobj_wait w = { .handles = (uint64_t)(uintptr_t)&unused_single, .count_handles = 1,
				      .timeout_nsec = now_ns() };
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_SYNCOBJ_WAIT, &w), -EINVAL); /* still fence-less */
	env_trace(&e);
	CHECK(before(&e, find_q(&e, SIM_V3D_TRACE_TFU_IRQ, V3D_TFU, 0), find_q(&e, SIM_V3D_TRACE_SUBMIT_CL, V3D_RENDER, 0)));

	/* The in_syncs are looked up only for the job on wait_stage: naming a fence-less syncobj is
	 * -EINVAL for stage RENDER, but with stage BIN on a submit without a bin list the waits are
	 * dropped unread (6.1) and the job runs. */
	uint32_t fenceless = syncobj_new(e.kd, false);
	in[0].handle = fenceless;
	s = cl_submit(0, 0, e.cl.offset + 4096, rend, e.handles, 1);
	s.flags = DRM_V3D_SUBMIT_EXTENSION;
	s.extensions = (uint64_t)(uintptr_t)&ms;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), -EINVAL);
	ms.wait_stage = V3D_BIN;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
	CHECK_EQ(syncobj_wait(e.kd, both, 2, 10 * NS_PER_SEC), 0);
	/* With a bin list, stage BIN gates the bin job: the same fence-less syncobj fails it. */
	s.bcl_start = e.cl.offset;
	s.bcl_end = bend;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), -EINVAL);
	env_fini(&e);
}

/* Implicit sync: a TFU job listing a BO waits for the earlier CSD submit that listed it (whose
 * cache_clean job carries the BO fence, as in 6.1). */
static void test_implicit_bo_sync(void)
{
	struct env e;
	env_init(&e, "v3d-7.1");
	sim_v3d_set_paused(e.dev, true);
	uint32_t out = syncobj_new(e.kd, false);
	uint32_t data_handle = e.data.handle;
	struct drm_v3d_submit_csd c = {
		.cfg = { 1u << 16, 1u << 16, 1u << 16, 16u, 1, e.data.offset, e.data.offset },
		.bo_handles = (uint64_t)(uintptr_t)&data_handle, .bo_handle_count = 1,
	};
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c), 0);
	struct drm_v3d_submit_tfu t = tfu_copy(71, 0, e.data.offset, 64, e.data.offset + 4096, 64, 64, 1);
	t.bo_handles[0] = e.data.handle;
	t.out_sync = out;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	sim_v3d_set_paused(e.dev, false);
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	struct drm_v3d_wait_bo wb = { .handle = e.data.handle, .timeout_ns = 10ull * NS_PER_SEC };
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_WAIT_BO, &wb), 0);
	env_trace(&e);
	CHECK(before(&e, find_q(&e, SIM_V3D_TRACE_CACHE_CLEAN_END, V3D_CACHE_CLEAN, 0),
		     find_q(&e, SIM_V3D_TRACE_SUBMIT_TFU, V3D_TFU, 0)));
	env_fini(&e);
}

/* Open A's render list branches into unmapped memory: an MMU fault of the CLE, reported to A.
 * Open B keeps submitting and completing jobs, and sees no report and no wakeup from A. */
static void test_fault_isolated_to_open(void)
{
	struct env a, b;
	env_init(&a, "v3d-4.2");
	/* b shares a's device: a second open. */
	b = (struct env){ .dev = a.dev };
	b.kd = sim_v3d_open(a.dev);
	REQUIRE(b.kd);
	b.cl = tbo_new(b.kd, 64 * 1024);
	b.data = tbo_new(b.kd, 64 * 1024);
	b.handles[0] = b.cl.handle;
	b.handles[1] = b.data.handle;
	uint32_t sa = syncobj_new(a.kd, false), sb = syncobj_new(b.kd, false);

	uint32_t nops_end = cl_nops(&a.cl, 0, 3);
	uint32_t rend = cl_branch(&a.cl, 3, 0x7fff0000u);
	struct drm_v3d_submit_cl s = cl_submit(0, 0, a.cl.offset, rend, a.handles, 1);
	s.out_sync = sa;
	CHECK_EQ(kdev_ioctl(a.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
	uint32_t brend = cl_nops(&b.cl, 0, 64);
	for (int i = 0; i < 20; i++) {
		struct drm_v3d_submit_cl sbj = cl_submit(0, 0, b.cl.offset, brend, b.handles, 2);
		sbj.out_sync = sb;
		CHECK_EQ(kdev_ioctl(b.kd, DRM_IOCTL_V3D_SUBMIT_CL, &sbj), 0);
		struct drm_v3d_submit_tfu t = tfu_copy(42, 4, b.data.offset, 16, b.data.offset + 4096, 16, 16, 16);
		t.bo_handles[0] = b.data.handle;
		t.out_sync = sb;
		CHECK_EQ(kdev_ioctl(b.kd, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	}
	CHECK_EQ(syncobj_wait1(a.kd, sa), 0); /* the faulting job completes */
	CHECK_EQ(syncobj_wait1(b.kd, sb), 0);
	char report[8192];
	ssize_t n = a.kd->ops->coredump(a.kd, report, sizeof(report));
	REQUIRE(n > 0);
	CHECK(strstr(report, "mmu-fault:") != NULL);
	CHECK(strstr(report, "unit=CLE") != NULL);
	CHECK(strstr(report, "address=0x7fff0000") != NULL);
	CHECK(strstr(report, "queue: render") != NULL);
	CHECK(strstr(report, "last-packets:") != NULL);
	char want[64];
	snprintf(want, sizeof(want), "client: %u", sim_v3d_client_id(a.kd));
	CHECK(strstr(report, want) != NULL);
	snprintf(want, sizeof(want), "cl: 0x%08x..0x%08x", a.cl.offset, rend);
	CHECK(strstr(report, want) != NULL);
	CHECK_EQ(b.kd->ops->coredump(b.kd, report, sizeof(report)), -ENOENT);
	CHECK_EQ(sim_v3d_open_faults(a.kd), 1);
	CHECK_EQ(sim_v3d_open_faults(b.kd), 0);
	struct sim_v3d_stats st;
	sim_v3d_get_stats(a.dev, &st);
	CHECK_EQ(st.mmu_faults, 1);
	CHECK_EQ(st.jobs_done[V3D_RENDER], 21);
	CHECK_EQ(st.jobs_done[V3D_TFU], 20);
	/* Wakeups are per open: drain both, then only A's job wakes A. */
	a.kd->ops->poll_ack(a.kd);
	b.kd->ops->poll_ack(b.kd);
	s.rcl_end = nops_end;
	CHECK_EQ(kdev_ioctl(a.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
	CHECK_EQ(syncobj_wait1(a.kd, sa), 0);
	struct pollfd pa = { .fd = a.kd->ops->poll_fd(a.kd), .events = POLLIN };
	struct pollfd pb = { .fd = b.kd->ops->poll_fd(b.kd), .events = POLLIN };
	CHECK_EQ(poll(&pa, 1, 5000), 1);
	CHECK_EQ(poll(&pb, 1, 0), 0);
	tbo_free(b.kd, &b.cl);
	tbo_free(b.kd, &b.data);
	b.kd->ops->close(b.kd);
	env_fini(&a);
}

/* A render list branching to itself never ends: hangcheck aborts it, reports a hang, and the
 * other open's work goes on. */
static void test_hangcheck(void)
{
	struct env e;
	env_init(&e, "v3d-7.1");
	sim_v3d_set_hangcheck_ms(e.dev, 100);
	struct kdev *other = sim_v3d_open(e.dev);
	REQUIRE(other);
	struct tbo obo = tbo_new(other, 8192);
	uint32_t so = syncobj_new(other, false), sh = syncobj_new(e.kd, false);
	uint32_t rend = cl_branch(&e.cl, 0, e.cl.offset); /* BRANCH to itself */
	struct drm_v3d_submit_cl s = cl_submit(0, 0, e.cl.offset, rend, e.handles, 1);
	s.out_sync = sh;
	int64_t t0 = now_ns();
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
	struct drm_v3d_submit_tfu t = tfu_copy(71, 0, obo.offset, 64, obo.offset + 4096, 64, 64, 1);
	t.out_sync = so;
	CHECK_EQ(kdev_ioctl(other, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	CHECK_EQ(syncobj_wait1(other, so), 0);
	CHECK_EQ(syncobj_wait1(e.kd, sh), 0);
	CHECK(now_ns() - t0 >= 100000000); /* not before the period */
	char report[8192];
	REQUIRE(e.kd->ops->coredump(e.kd, report, sizeof(report)) > 0);
	CHECK(strstr(report, "hang:") != NULL);
	CHECK(strstr(report, "unit=CLE") != NULL);
	env_trace(&e);
	long rb = find_q(&e, SIM_V3D_TRACE_RESET_BEGIN, V3D_RENDER, 0);
	long re = find_q(&e, SIM_V3D_TRACE_RESET_END, V3D_RENDER, 0);
	CHECK(before(&e, rb, re));
	/* The TFU of the other open did not wait for the hang to clear. */
	CHECK(before(&e, find_q(&e, SIM_V3D_TRACE_TFU_IRQ, V3D_TFU, 0), rb));
	struct sim_v3d_stats st;
	sim_v3d_get_stats(e.dev, &st);
	CHECK_EQ(st.hangs, 1);
	tbo_free(other, &obo);
	other->ops->close(other);
	env_fini(&e);
}

/* Closing an open with queued jobs cancels them; other opens' jobs still run. */
static void test_close_cancels(void)
{
	struct env e;
	env_init(&e, "v3d-4.2");
	sim_v3d_set_paused(e.dev, true);
	struct kdev *doomed = sim_v3d_open(e.dev);
	REQUIRE(doomed);
	struct tbo dbo = tbo_new(doomed, 8192);
	for (int i = 0; i < 5; i++) {
		struct drm_v3d_submit_tfu t = tfu_copy(42, 0, dbo.offset, 64, dbo.offset + 4096, 64, 64, 1);
		t.bo_handles[0] = dbo.handle;
		CHECK_EQ(kdev_ioctl(doomed, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	}
	uint32_t out = syncobj_new(e.kd, false);
	struct drm_v3d_submit_tfu t = tfu_copy(42, 0, e.data.offset, 64, e.data.offset + 4096, 64, 64, 1);
	t.out_sync = out;
	CHECK_EQ(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_TFU, &t), 0);
	doomed->ops->munmap(doomed, dbo.map, dbo.size);
	doomed->ops->close(doomed); /* BOs and jobs go with it */
	sim_v3d_set_paused(e.dev, false);
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	struct sim_v3d_stats st;
	sim_v3d_get_stats(e.dev, &st);
	CHECK_EQ(st.jobs_done[V3D_TFU], 1);
	env_fini(&e);
}

/* kdev submit_here on the simulated V3D: with the worker idle, a small SUBMIT_CL (bin and render
 * lists of a few packets) has completed when the ioctl returns, 50 times in a row; done_here says
 * so once and the poll fd stays quiet. A bin list longer than the inline slices is finished by
 * the worker, which wakes the poll fd; a TFU job is never run in the submitting thread. */
static void test_submit_here(void)
{
	struct env e;
	env_init(&e, "v3d-4.2");
	uint32_t out = syncobj_new(e.kd, false);
	uint32_t bend = cl_nops(&e.cl, 0, 8);
	uint32_t rstart = e.cl.offset + 4096, rend = cl_nops(&e.cl, 4096, 8);
	struct drm_v3d_submit_cl s = cl_submit(e.cl.offset, bend, rstart, rend, e.handles, 2);
	s.out_sync = out;
	/* Until the worker sleeps idle (a loaded machine may not run it for a while). */
	bool settled = false;
	for (int i = 0; i < 1000 && !settled; i++) {
		e.kd->ops->submit_here(e.kd);
		REQUIRE(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s) == 0);
		settled = syncobj_wait(e.kd, &out, 1, 0) == 0;
		(void)e.kd->ops->done_here(e.kd);
		if (!settled) {
			CHECK_EQ(syncobj_wait1(e.kd, out), 0);
			usleep(2000);
		}
	}
	REQUIRE(settled);
	struct pollfd pfd = { .fd = e.kd->ops->poll_fd(e.kd), .events = POLLIN };
	for (int i = 0; i < 50; i++) {
		e.kd->ops->poll_ack(e.kd);
		e.kd->ops->submit_here(e.kd);
		REQUIRE(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &s) == 0);
		CHECK_EQ(syncobj_wait(e.kd, &out, 1, 0), 0);
		CHECK(e.kd->ops->done_here(e.kd));
		CHECK(!e.kd->ops->done_here(e.kd)); /* told once */
		CHECK_EQ(poll(&pfd, 1, 0), 0);
	}
	/* 100000 NOPs: past the inline steps' slices; the worker goes on and wakes the poll fd. */
	e.kd->ops->poll_ack(e.kd);
	struct drm_v3d_submit_cl big = cl_submit(e.cl.offset, cl_nops(&e.cl, 0, 100000), rstart, rend, e.handles, 2);
	big.out_sync = out;
	e.kd->ops->submit_here(e.kd);
	REQUIRE(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_CL, &big) == 0);
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	CHECK_EQ(poll(&pfd, 1, 5000), 1);
	(void)e.kd->ops->done_here(e.kd);
	/* A TFU job after submit_here (which only SUBMIT_CL takes) runs in the worker. */
	e.kd->ops->poll_ack(e.kd);
	usleep(2000);
	e.kd->ops->submit_here(e.kd);
	struct drm_v3d_submit_tfu t = tfu_copy(42, 0, e.data.offset, 64, e.data.offset + 32768, 64, 64, 4);
	t.bo_handles[0] = e.data.handle;
	t.out_sync = out;
	REQUIRE(kdev_ioctl(e.kd, DRM_IOCTL_V3D_SUBMIT_TFU, &t) == 0);
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	CHECK_EQ(poll(&pfd, 1, 5000), 1);
	CHECK(!e.kd->ops->done_here(e.kd));
	env_fini(&e);
}

int main(void)
{
	RUN_TEST(test_bin_before_render);
	RUN_TEST(test_syncobj_chain_across_queues);
	RUN_TEST(test_csd_records);
	RUN_TEST(test_multisync);
	RUN_TEST(test_implicit_bo_sync);
	RUN_TEST(test_fault_isolated_to_open);
	RUN_TEST(test_hangcheck);
	RUN_TEST(test_close_cancels);
	RUN_TEST(test_submit_here);
	return test_finish();
}
