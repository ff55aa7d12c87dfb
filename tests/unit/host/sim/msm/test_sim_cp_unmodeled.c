/* Work the CP model does not execute: counted per submit by kind and reported through the open's
 * callback (draws, CP_EXEC_CS, state loads, other skipped packets, each naming the first packet);
 * in strict mode every kind but state faults the submit at its packet (MSM_PARAM_FAULTS, an
 * "unmodeled:" devcoredump), state loads still pass. */
#include <stdio.h>
#include <string.h>

#include "cp_fixture.h"
#include "ferry/hw/a6xx_regs.h"

static struct sim_msm_device *dev;

struct seen {
	uint64_t n[SIM_UNMODELED_KINDS];
	const char *what[SIM_UNMODELED_KINDS];
};

static void note(void *cookie, unsigned kind, uint64_t count, const char *what)
{
	struct seen *s = cookie;
	REQUIRE(kind < SIM_UNMODELED_KINDS);
	s->n[kind] += count;
	s->what[kind] = what;
}

static bool what_is(const struct seen *s, unsigned kind, const char *name)
{
	return s->what[kind] && strcmp(s->what[kind], name) == 0;
}

static void test_counted(void)
{
	struct fixture f;
	fx_init(dev, &f);
	struct seen seen = { 0 };
	sim_msm_set_unmodeled_cb(f.k, note, &seen);
	PM4_PKT7(&f.b, CP_LOAD_STATE6, 0, 0, 0);
	pm4_draw_auto_index(&f.b, DI_PT_TRILIST, 3, 1);
	pm4_draw_auto_index(&f.b, DI_PT_TRILIST, 6, 1);
	PM4_PKT7(&f.b, CP_EXEC_CS, 0, 1, 1, 1);
	PM4_PKT7(&f.b, CP_SET_PSEUDO_REG, 0, 0, 0);
	pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 7 }, 1);
	fx_run(&f); /* its WAIT_FENCE is the ioctl that reports */
	CHECK_EQ(seen.n[SIM_UNMODELED_DRAW], 2);
	CHECK(what_is(&seen, SIM_UNMODELED_DRAW, "CP_DRAW_INDX_OFFSET"));
	CHECK_EQ(seen.n[SIM_UNMODELED_DISPATCH], 1);
	CHECK(what_is(&seen, SIM_UNMODELED_DISPATCH, "CP_EXEC_CS"));
	CHECK_EQ(seen.n[SIM_UNMODELED_STATE], 1);
	CHECK(what_is(&seen, SIM_UNMODELED_STATE, "CP_LOAD_STATE6"));
	CHECK_EQ(seen.n[SIM_UNMODELED_PACKET], 1);
	CHECK(what_is(&seen, SIM_UNMODELED_PACKET, "CP_SET_PSEUDO_REG"));
	CHECK_EQ(seen.n[SIM_UNMODELED_ENGINE], 0);
	CHECK_EQ(f.data.cpu[0], 7u); /* counted, not failed: the stream ran on */
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	/* Nothing is reported twice. */
	fx_reset(&f);
	pm4_nop(&f.b, 1);
	fx_run(&f);
	CHECK_EQ(seen.n[SIM_UNMODELED_DRAW], 2);
	fx_fini(&f);
}

static void test_strict(void)
{
	sim_msm_set_strict(dev, true);
	struct fixture f;
	fx_init(dev, &f);
	struct seen seen = { 0 };
	sim_msm_set_unmodeled_cb(f.k, note, &seen);
	/* State loads pass; the draw faults before anything of it runs. */
	PM4_PKT7(&f.b, CP_LOAD_STATE6, 0, 0, 0);
	pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 1 }, 1);
	pm4_draw_auto_index(&f.b, DI_PT_TRILIST, 3, 1);
	pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 2 }, 1);
	fx_run(&f);
	CHECK_EQ(f.data.cpu[0], 1u);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 1);
	CHECK_EQ(seen.n[SIM_UNMODELED_DRAW], 1);
	CHECK_EQ(seen.n[SIM_UNMODELED_STATE], 1);
	char text[64 * 1024];
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "unmodeled:\n  - reason=draw skipped: the simulated GPU does not execute shaders\n"));
	CHECK(strstr(text, "  packet: CP_DRAW_INDX_OFFSET (0x38)\n"));
	/* A compute dispatch, and any other skipped packet, too. */
	static const uint32_t ops[2][5] = { { CP_EXEC_CS, 0, 1, 1, 1 }, { CP_SET_PSEUDO_REG, 0, 0, 0, 0 } };
	for (int i = 0; i < 2; i++) {
		fx_reset(&f);
		pm4_pkt7(&f.b, ops[i][0], ops[i] + 1, i == 0 ? 4 : 3);
		pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 3 }, 1);
		fx_run(&f);
		CHECK_EQ(f.data.cpu[0], 1u);
		CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 2u + (unsigned)i);
		fx_dump(&f, text, sizeof(text));
		CHECK(strstr(text, i == 0 ? "reason=compute dispatch skipped" : "reason=packet skipped"));
	}
	fx_fini(&f);
	sim_msm_set_strict(dev, false);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_counted);
	RUN_TEST(test_strict);
	sim_msm_device_destroy(dev);
	return test_finish();
}
