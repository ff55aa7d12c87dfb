/* Work the simulated V3D does not execute, reported through the open's callback: a draw packet in
 * a bin list and a CSD dispatch are counted by kind (each once, on the ioctl after the job ended,
 * naming the first of its kind); with strict mode the bin job and the submit's render job end in
 * a job error whose report says strict mode failed it, and the open's fault count goes up. */
#include <stdio.h>
#include <stdlib.h>

#include "ferry/hw/v3d_cl.h"
#include "v3dsim_util.h"

struct seen {
	uint64_t n[SIM_UNMODELED_KINDS];
	const char *what[SIM_UNMODELED_KINDS];
	unsigned calls;
};

static void note(void *cookie, unsigned kind, uint64_t count, const char *what)
{
	struct seen *s = cookie;
	REQUIRE(kind < SIM_UNMODELED_KINDS);
	s->n[kind] += count;
	s->what[kind] = what;
	s->calls++;
}

struct env {
	struct sim_v3d_device *dev;
	struct kdev *kd;
	struct tbo cl, data;
	uint32_t handles[2];
	uint32_t bcl, bcl_end, rcl, rcl_end;
};

/* A bin list of NOPs around one VERTEX_ARRAY_PRIMS (recorded, not drawn), a one-NOP render list. */
static void env_init(struct env *e, struct seen *seen)
{
	memset(e, 0, sizeof(*e));
	REQUIRE(sim_v3d_device_create("v3d-4.2", &e->dev) == 0);
	e->kd = sim_v3d_open(e->dev);
	REQUIRE(e->kd);
	e->cl = tbo_new(e->kd, 64 * 1024);
	e->data = tbo_new(e->kd, 64 * 1024);
	e->handles[0] = e->cl.handle;
	e->handles[1] = e->data.handle;
	uint32_t len = v3d_cl_fixed_length(42, V3D_CL_VERTEX_ARRAY_PRIMS);
	REQUIRE(len > 1);
	memset(e->cl.map, V3D_CL_NOP, 64);
	e->cl.map[16] = V3D_CL_VERTEX_ARRAY_PRIMS;
	memset(e->cl.map + 17, 0, len - 1);
	e->bcl = e->cl.offset;
	e->bcl_end = e->cl.offset + 64;
	e->cl.map[4096] = V3D_CL_NOP;
	e->rcl = e->cl.offset + 4096;
	e->rcl_end = e->rcl + 1;
	sim_v3d_set_unmodeled_cb(e->kd, note, seen);
}

static void env_fini(struct env *e)
{
	tbo_free(e->kd, &e->cl);
	tbo_free(e->kd, &e->data);
	e->kd->ops->close(e->kd);
	sim_v3d_device_destroy(e->dev);
}

static int submit_draw(struct env *e, uint32_t out)
{
	struct drm_v3d_submit_cl s = {
		.bcl_start = e->bcl, .bcl_end = e->bcl_end, .rcl_start = e->rcl, .rcl_end = e->rcl_end,
		.bo_handles = (uint64_t)(uintptr_t)e->handles, .bo_handle_count = 2, .out_sync = out,
		.qma = e->data.offset, .qms = 4096, .qts = e->data.offset + 8192,
	};
	int r = kdev_ioctl(e->kd, DRM_IOCTL_V3D_SUBMIT_CL, &s);
	return r ? r : syncobj_wait1(e->kd, out);
}

static int submit_dispatch(struct env *e, uint32_t out)
{
	uint32_t h = e->data.handle;
	struct drm_v3d_submit_csd c = {
		.cfg = { 1u << 16, 1u << 16, 1u << 16, 16u, 0, e->data.offset, e->data.offset + 256 },
		.bo_handles = (uint64_t)(uintptr_t)&h, .bo_handle_count = 1, .out_sync = out,
	};
	int r = kdev_ioctl(e->kd, DRM_IOCTL_V3D_SUBMIT_CSD, &c);
	return r ? r : syncobj_wait1(e->kd, out);
}

static void test_counted(void)
{
	struct seen seen = { 0 };
	struct env e;
	env_init(&e, &seen);
	uint32_t out = syncobj_new(e.kd, false);
	CHECK_EQ(submit_draw(&e, out), 0);
	CHECK_EQ(seen.n[SIM_UNMODELED_DRAW], 1);
	CHECK(seen.what[SIM_UNMODELED_DRAW] && !strcmp(seen.what[SIM_UNMODELED_DRAW], "draw packet in a bin list"));
	CHECK_EQ(seen.n[SIM_UNMODELED_STATE], 0); /* NOPs are executed, not recorded */
	CHECK_EQ(submit_dispatch(&e, out), 0);
	CHECK_EQ(seen.n[SIM_UNMODELED_DISPATCH], 1);
	CHECK(seen.what[SIM_UNMODELED_DISPATCH] && !strcmp(seen.what[SIM_UNMODELED_DISPATCH], "CSD job"));
	/* Reported once: more ioctls bring nothing new. */
	unsigned calls = seen.calls;
	CHECK_EQ(syncobj_wait1(e.kd, out), 0);
	CHECK_EQ(seen.calls, calls);
	CHECK_EQ(seen.n[SIM_UNMODELED_DRAW], 1);
	/* Counted, not failed: no fault, no report. */
	CHECK_EQ(sim_v3d_open_faults(e.kd), 0);
	CHECK_EQ(e.kd->ops->coredump(e.kd, NULL, 0), -ENOENT);
	env_fini(&e);
}

/* State packets the CLE records (no effect of their own) are counted as "state" and pass strict. */
static void test_state_passes_strict(void)
{
	struct seen seen = { 0 };
	struct env e;
	env_init(&e, &seen);
	sim_v3d_set_strict(e.dev, true);
	uint32_t len = v3d_cl_fixed_length(42, V3D_CL_CFG_BITS);
	REQUIRE(len > 1);
	memset(e.cl.map, V3D_CL_NOP, 64); /* the draw replaced by a state packet */
	e.cl.map[16] = V3D_CL_CFG_BITS;
	memset(e.cl.map + 17, 0, len - 1);
	uint32_t out = syncobj_new(e.kd, false);
	CHECK_EQ(submit_draw(&e, out), 0);
	CHECK_EQ(seen.n[SIM_UNMODELED_STATE], 1);
	CHECK_EQ(seen.n[SIM_UNMODELED_DRAW], 0);
	CHECK_EQ(sim_v3d_open_faults(e.kd), 0);
	env_fini(&e);
}

static void test_strict(void)
{
	struct seen seen = { 0 };
	struct env e;
	env_init(&e, &seen);
	sim_v3d_set_strict(e.dev, true);
	uint32_t out = syncobj_new(e.kd, false);
	CHECK_EQ(submit_draw(&e, out), 0);
	CHECK_EQ(seen.n[SIM_UNMODELED_DRAW], 1); /* still counted */
	CHECK_EQ(sim_v3d_open_faults(e.kd), 1);
	char report[8192];
	REQUIRE(e.kd->ops->coredump(e.kd, report, sizeof(report)) > 0);
	CHECK(strstr(report, "job-error:") != NULL);
	CHECK(strstr(report, "reason=draw skipped: the simulated GPU does not execute shaders") != NULL);
	CHECK(strstr(report, "mode=strict") != NULL);
	CHECK(strstr(report, "queue: bin") != NULL);
	CHECK_EQ(submit_dispatch(&e, out), 0);
	CHECK_EQ(sim_v3d_open_faults(e.kd), 2);
	REQUIRE(e.kd->ops->coredump(e.kd, report, sizeof(report)) > 0);
	CHECK(strstr(report, "compute dispatch skipped") != NULL);
	CHECK(strstr(report, "unit=CSD") != NULL);
	struct sim_v3d_stats st;
	sim_v3d_get_stats(e.dev, &st);
	CHECK_EQ(st.job_errors, 2);
	env_fini(&e);
}

int main(void)
{
	RUN_TEST(test_counted);
	RUN_TEST(test_strict);
	RUN_TEST(test_state_passes_strict);
	return test_finish();
}
