/* CP model packets beyond plain register and memory writes: CP_EVENT_WRITE variants,
 * CP_REG_RMW, CP_MEM_TO_MEM, CP_WAIT_MEM_GTE, conditional execution (CP_COND_REG_EXEC in its
 * three modes, CP_REG_TEST, CP_COND_EXEC, CP_COND_WRITE5), CP_INDIRECT_BUFFER_CHAIN and
 * CP_SKIP_IB2_ENABLE_*. Each test checks the effect on memory, registers or control flow. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cp_fixture.h"
#include "ferry/hw/a6xx_regs.h"

static struct sim_msm_device *dev;

static uint64_t aon_now(void)
{
	uint32_t lo = sim_msm_read_reg(dev, REG_A6XX_CP_ALWAYS_ON_COUNTER);
	uint32_t hi = sim_msm_read_reg(dev, REG_A6XX_CP_ALWAYS_ON_COUNTER_HI);
	return (uint64_t)hi << 32 | lo;
}

static void test_event_write_variants(void)
{
	struct fixture f;
	fx_init(dev, &f);
	struct sim_msm_cp_stats before, after;
	sim_msm_get_cp_stats(dev, &before);
	f.data.cpu[4] = 0x5555;
	uint64_t t0 = aon_now();
	/* A *_TS event without TIMESTAMP writes the packet's value. */
	pm4_event_write_ts(&f.b, CACHE_FLUSH_TS, f.data.iova, 0xabc);
	/* TIMESTAMP writes the 64-bit GPU timestamp instead of the value. */
	pm4_event_write_gpu_ts(&f.b, RB_DONE_TS, f.data.iova + 8);
	/* IRQ raises an interrupt (counted) besides the write. */
	PM4_PKT7(&f.b, CP_EVENT_WRITE, CACHE_FLUSH_TS | CP_EVENT_WRITE_0_IRQ, (uint32_t)(f.data.iova + 20),
		 (uint32_t)((f.data.iova + 20) >> 32), 0x77);
	/* A non-timestamp event with an address writes nothing. */
	PM4_PKT7(&f.b, CP_EVENT_WRITE, CACHE_INVALIDATE, (uint32_t)(f.data.iova + 16),
		 (uint32_t)((f.data.iova + 16) >> 32), 0x99);
	fx_run(&f);
	uint64_t t1 = aon_now();
	sim_msm_get_cp_stats(dev, &after);
	CHECK_EQ(f.data.cpu[0], 0xabc);
	uint64_t ts = (uint64_t)f.data.cpu[3] << 32 | f.data.cpu[2];
	CHECK(ts >= t0 && ts <= t1);
	CHECK_EQ(f.data.cpu[5], 0x77);
	CHECK_EQ(f.data.cpu[4], 0x5555);
	CHECK_EQ(after.irqs - before.irqs, 1);
	fx_fini(&f);
}

static void test_reg_rmw(void)
{
	struct fixture f;
	fx_init(dev, &f);
	PM4_PKT4(&f.b, REG_A6XX_CP_SCRATCH_REG(0), 0xf0f01234, 5, 0x80000001, 0xff00ff00, 0x0000000f, 0xffffffff);
	pm4_reg_rmw(&f.b, REG_A6XX_CP_SCRATCH_REG(0), 0x0000ffff, 0x1, 4, false); /* (x & m) rotl 4 | 1 */
	pm4_reg_rmw(&f.b, REG_A6XX_CP_SCRATCH_REG(1), 0xffffffff, 10, 0, true);   /* + 10 */
	pm4_reg_rmw(&f.b, REG_A6XX_CP_SCRATCH_REG(2), 0xffffffff, 0, 1, false);   /* rotate wraps */
	/* Register sources: SCRATCH5 = (SCRATCH5 & SCRATCH3) | SCRATCH4. */
	PM4_PKT7(&f.b, CP_REG_RMW,
		 CP_REG_RMW_0_DST_REG(REG_A6XX_CP_SCRATCH_REG(5)) | CP_REG_RMW_0_SRC0_IS_REG | CP_REG_RMW_0_SRC1_IS_REG,
		 REG_A6XX_CP_SCRATCH_REG(3), REG_A6XX_CP_SCRATCH_REG(4));
	fx_run(&f);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(0)), 0x12341);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(1)), 15);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(2)), 3);
	CHECK_EQ(sim_msm_read_reg(dev, REG_A6XX_CP_SCRATCH_REG(5)), 0xff00ff0f);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

static void test_mem_to_mem(void)
{
	struct fixture f;
	fx_init(dev, &f);
	uint64_t d = f.data.iova;
	uint32_t *m = f.data.cpu;
	m[0] = 100, m[1] = 50, m[2] = 20;         /* result += end - start */
	m[16] = 0xffffffff, m[17] = 0, m[18] = 1, m[19] = 0; /* 64-bit with a carry */
	m[24] = 1, m[25] = 2, m[26] = 3, m[27] = 4;
	m[32] = 5, m[33] = 7;
	pm4_mem_to_mem(&f.b, d + 12, (const uint64_t[]){ d, d + 4, d + 8 }, 3, CP_MEM_TO_MEM_0_NEG_C, false);
	pm4_mem_to_mem(&f.b, d + 80, (const uint64_t[]){ d + 64, d + 72 }, 2, 0, true);
	pm4_mem_to_mem(&f.b, d + 112, (const uint64_t[]){ d + 96, d + 100, d + 104, d + 108 }, 4, 0, false);
	pm4_mem_to_mem(&f.b, d + 136, (const uint64_t[]){ d + 128, d + 132 }, 2, CP_MEM_TO_MEM_0_NEG_A, false);
	fx_run(&f);
	CHECK_EQ(m[3], 130);
	CHECK_EQ(m[20], 0);
	CHECK_EQ(m[21], 1);
	CHECK_EQ(m[28], 10);
	CHECK_EQ(m[34], 2);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	/* A payload that is not whole addresses is a CP error, and a source out of the address
	 * space a read fault. */
	fx_reset(&f);
	PM4_PKT7(&f.b, CP_MEM_TO_MEM, 0, (uint32_t)d, (uint32_t)(d >> 32), (uint32_t)d);
	fx_run(&f);
	char text[32768];
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "cp-error:\n  - reason=CP_MEM_TO_MEM"));
	fx_reset(&f);
	pm4_mem_to_mem(&f.b, d, (const uint64_t[]){ 0x1fff00000ull }, 1, 0, false);
	fx_run(&f);
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "  - iova=0x00000001fff00000\n  - dir=READ\n"));
	CHECK(strstr(text, "  packet: CP_MEM_TO_MEM (0x73)\n"));
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 2);
	fx_fini(&f);
}

static void test_wait_mem_gte(void)
{
	struct fixture f;
	fx_init(dev, &f);
	uint32_t qa = new_queue(f.k, 1), qb = new_queue(f.k, 1);
	f.data.cpu[0] = 0xffffffff; /* -1 >= -2: the compare is signed */
	f.data.cpu[1] = 5;
	pm4_wait_mem_gte(&f.b, f.data.iova, (uint32_t)-2);
	pm4_wait_mem_gte(&f.b, f.data.iova + 4, 5);
	pm4_wait_mem_gte(&f.b, f.data.iova + 8, 3); /* satisfied by queue B below */
	pm4_mem_write(&f.b, f.data.iova + 12, (const uint32_t[]){ 0xaa }, 1);
	const struct tbo *extra[1] = { &f.data };
	uint32_t fa, fb;
	REQUIRE(submit_ib_bos(f.k, qa, &f.cmd, f.b.len, extra, 1, &fa) == 0);
	CHECK_EQ(wait_fence_ms(f.k, qa, fa, 20), -ETIMEDOUT);
	CHECK_EQ(f.data.cpu[3], 0);
	struct pm4_builder b2;
	pm4_builder_init(&b2, f.ib2.cpu, 1024);
	pm4_mem_write(&b2, f.data.iova + 8, (const uint32_t[]){ 2 }, 1); /* 2 < 3: still waiting */
	pm4_mem_write(&b2, f.data.iova + 8, (const uint32_t[]){ 4 }, 1);
	REQUIRE(submit_ib_bos(f.k, qb, &f.ib2, b2.len, extra, 1, &fb) == 0);
	CHECK_EQ(wait_fence_ms(f.k, qb, fb, 10000), 0);
	CHECK_EQ(wait_fence_ms(f.k, qa, fa, 10000), 0);
	CHECK_EQ(f.data.cpu[3], 0xaa);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

static void test_conditional_execution(void)
{
	struct fixture f;
	fx_init(dev, &f);
	uint64_t d = f.data.iova;
	struct sim_msm_cp_stats before, after;
	sim_msm_get_cp_stats(dev, &before);
	const uint32_t one[1] = { 1 };
	PM4_PKT4(&f.b, REG_A6XX_CP_SCRATCH_REG(0), 7, 7, 8, 0x4);
	/* REG_COMPARE: equal registers run the next 4 dwords (one CP_MEM_WRITE), unequal skip them. */
	pm4_cond_exec_reg_compare(&f.b, REG_A6XX_CP_SCRATCH_REG(0), REG_A6XX_CP_SCRATCH_REG(1), 4);
	pm4_mem_write(&f.b, d + 0, one, 1);
	pm4_cond_exec_reg_compare(&f.b, REG_A6XX_CP_SCRATCH_REG(0), REG_A6XX_CP_SCRATCH_REG(2), 4);
	pm4_mem_write(&f.b, d + 4, one, 1);
	/* RENDER_MODE follows CP_SET_MARKER. */
	pm4_set_marker(&f.b, RM6_DIRECT_RENDER);
	pm4_cond_exec_render_mode(&f.b, CP_COND_REG_EXEC_0_SYSMEM, 4);
	pm4_mem_write(&f.b, d + 8, one, 1);
	pm4_cond_exec_render_mode(&f.b, CP_COND_REG_EXEC_0_GMEM | CP_COND_REG_EXEC_0_BINNING, 4);
	pm4_mem_write(&f.b, d + 12, one, 1);
	pm4_set_marker(&f.b, RM6_BIN_RENDER_START);
	pm4_cond_exec_render_mode(&f.b, CP_COND_REG_EXEC_0_GMEM, 4);
	pm4_mem_write(&f.b, d + 16, one, 1);
	/* PRED_TEST reads the predicate bit CP_REG_TEST set from a register bit. */
	pm4_reg_test(&f.b, REG_A6XX_CP_SCRATCH_REG(3), 2, 0);
	pm4_cond_exec_predicate(&f.b, 0, 4);
	pm4_mem_write(&f.b, d + 20, one, 1);
	pm4_reg_test(&f.b, REG_A6XX_CP_SCRATCH_REG(3), 0, 1);
	pm4_cond_exec_predicate(&f.b, 1, 4);
	pm4_mem_write(&f.b, d + 24, one, 1);
	/* CP_COND_EXEC: *BOOL != 0 and ACTIVE_TIMESTAMP not behind *TIMESTAMP. */
	f.data.cpu[32] = 1;
	f.data.cpu[33] = 10;
	f.data.cpu[34] = 0;
	PM4_PKT7(&f.b, CP_COND_EXEC, (uint32_t)(d + 128), (uint32_t)((d + 128) >> 32), (uint32_t)(d + 132),
		 (uint32_t)((d + 132) >> 32), 10, 4);
	pm4_mem_write(&f.b, d + 28, one, 1);
	PM4_PKT7(&f.b, CP_COND_EXEC, (uint32_t)(d + 128), (uint32_t)((d + 128) >> 32), (uint32_t)(d + 132),
		 (uint32_t)((d + 132) >> 32), 9, 4);
	pm4_mem_write(&f.b, d + 32, one, 1);
	PM4_PKT7(&f.b, CP_COND_EXEC, (uint32_t)(d + 136), (uint32_t)((d + 136) >> 32), (uint32_t)(d + 132),
		 (uint32_t)((d + 132) >> 32), 10, 4);
	pm4_mem_write(&f.b, d + 36, one, 1);
	/* CP_COND_WRITE5: compare like CP_WAIT_REG_MEM, then write memory if true. */
	f.data.cpu[40] = 5;
	PM4_PKT7(&f.b, CP_COND_WRITE5,
		 CP_WAIT_REG_MEM_0_FUNCTION(WRITE_EQ) | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY) |
			 CP_WAIT_REG_MEM_0_WRITE_MEMORY,
		 (uint32_t)(d + 160), (uint32_t)((d + 160) >> 32), 5, 0xffffffff, (uint32_t)(d + 164),
		 (uint32_t)((d + 164) >> 32), 0x77);
	PM4_PKT7(&f.b, CP_COND_WRITE5,
		 CP_WAIT_REG_MEM_0_FUNCTION(WRITE_NE) | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY) |
			 CP_WAIT_REG_MEM_0_WRITE_MEMORY,
		 (uint32_t)(d + 160), (uint32_t)((d + 160) >> 32), 5, 0xffffffff, (uint32_t)(d + 168),
		 (uint32_t)((d + 168) >> 32), 0x88);
	pm4_mem_write(&f.b, d + 44, (const uint32_t[]){ 0xdd }, 1);
	fx_run(&f);
	sim_msm_get_cp_stats(dev, &after);
	const uint32_t want[12] = { 1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0xdd };
	for (int i = 0; i < 12; i++)
		CHECK_EQ(f.data.cpu[i], want[i]);
	CHECK_EQ(f.data.cpu[41], 0x77);
	CHECK_EQ(f.data.cpu[42], 0);
	CHECK_EQ(after.cond_skips - before.cond_skips, 5);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	/* A skip past the end of the IB is a CP error. */
	fx_reset(&f);
	pm4_cond_exec_reg_compare(&f.b, REG_A6XX_CP_SCRATCH_REG(0), REG_A6XX_CP_SCRATCH_REG(2), 100);
	pm4_nop(&f.b, 2);
	fx_run(&f);
	char text[32768];
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "skips past the end of its IB"));
	CHECK(strstr(text, "  packet: CP_COND_REG_EXEC (0x47)\n"));
	fx_fini(&f);
}

static void test_ib_chain(void)
{
	struct fixture f;
	fx_init(dev, &f);
	struct sim_msm_cp_stats before, after;
	sim_msm_get_cp_stats(dev, &before);
	struct pm4_builder a, bb;
	pm4_builder_init(&bb, f.ib2.cpu + 1024, 1024);
	pm4_mem_write(&bb, f.data.iova + 8, (const uint32_t[]){ 22 }, 1);
	pm4_builder_init(&a, f.ib2.cpu, 1024);
	pm4_mem_write(&a, f.data.iova + 4, (const uint32_t[]){ 2 }, 1);
	pm4_ib_chain(&a, f.ib2.iova + 4096, bb.len);
	pm4_mem_write(&f.b, f.data.iova, (const uint32_t[]){ 1 }, 1);
	pm4_ib(&f.b, f.ib2.iova, a.len);
	/* The chain replaced the IB2: its end returns to IB1. */
	pm4_mem_write(&f.b, f.data.iova + 12, (const uint32_t[]){ 3 }, 1);
	fx_run(&f);
	sim_msm_get_cp_stats(dev, &after);
	CHECK_EQ(f.data.cpu[0], 1);
	CHECK_EQ(f.data.cpu[1], 2);
	CHECK_EQ(f.data.cpu[2], 22);
	CHECK_EQ(f.data.cpu[3], 3);
	CHECK_EQ(after.ib_chains - before.ib_chains, 1);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	/* A chain must end its IB. */
	pm4_builder_init(&a, f.ib2.cpu, 1024);
	pm4_ib_chain(&a, f.ib2.iova + 4096, bb.len);
	pm4_nop(&a, 0);
	fx_reset(&f);
	pm4_ib(&f.b, f.ib2.iova, a.len);
	fx_run(&f);
	char text[32768];
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "CP_INDIRECT_BUFFER_CHAIN is not the last packet of its IB"));
	fx_fini(&f);
}

static void test_skip_ib2_enable(void)
{
	struct fixture f;
	fx_init(dev, &f);
	struct pm4_builder b2;
	pm4_builder_init(&b2, f.ib2.cpu, 1024);
	pm4_mem_write(&b2, f.data.iova, (const uint32_t[]){ 5 }, 1);
	pm4_skip_ib2_enable(&f.b, true, 1);
	pm4_skip_ib2_enable(&f.b, false, 1);
	pm4_set_marker(&f.b, RM6_BIN_RENDER_START);
	/* Binning is not modeled, so the visibility stream is never known to be empty and the IB2
	 * still runs. */
	pm4_ib(&f.b, f.ib2.iova, b2.len);
	pm4_mem_write(&f.b, 0x1fff00000ull, (const uint32_t[]){ 1 }, 1); /* fault: dump the CP state */
	fx_run(&f);
	CHECK_EQ(f.data.cpu[0], 5);
	char text[32768];
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "cp-state:\n  render-mode: gmem\n  marker: 4\n"));
	CHECK(strstr(text, "  skip-ib2: 1 1\n"));
	fx_fini(&f);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_event_write_variants);
	RUN_TEST(test_reg_rmw);
	RUN_TEST(test_mem_to_mem);
	RUN_TEST(test_wait_mem_gte);
	RUN_TEST(test_conditional_execution);
	RUN_TEST(test_ib_chain);
	RUN_TEST(test_skip_ib2_enable);
	sim_msm_device_destroy(dev);
	return test_finish();
}
