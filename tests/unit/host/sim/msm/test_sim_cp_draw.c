/* CP model: render mode, CP_SET_DRAW_STATE groups (modes, pending/DIRTY, DISABLE,
 * DISABLE_ALL_GROUPS, LOAD_IMMED) run at draws, and the draw packets' index / indirect / count
 * buffer reads with their bounds and faults. */
#include <stdio.h>
#include <string.h>

#include "cp_fixture.h"
#include "ferry/hw/a6xx_regs.h"

static struct sim_msm_device *dev;

/* Writes at ib2 dword offset `at` a group buffer that adds `add` to SCRATCH(reg); returns its
 * size in dwords. */
static uint32_t group_buffer(struct fixture *f, uint32_t at, uint32_t reg, uint32_t add)
{
	struct pm4_builder g;
	pm4_builder_init(&g, f->ib2.cpu + at, 64);
	pm4_reg_rmw(&g, REG_A6XX_CP_SCRATCH_REG(reg), 0xffffffff, add, 0, true);
	REQUIRE(pm4_builder_ok(&g));
	return g.len;
}

static void test_draw_state_groups(void)
{
	struct fixture f;
	fx_init(dev, &f);
	struct sim_msm_cp_stats before, after;
	sim_msm_get_cp_stats(dev, &before);
	const uint32_t all = CP_SET_DRAW_STATE_0_SYSMEM | CP_SET_DRAW_STATE_0_GMEM | CP_SET_DRAW_STATE_0_BINNING;
	uint64_t ib2 = f.ib2.iova;
	uint32_t n0 = group_buffer(&f, 0, 0, 1), n1 = group_buffer(&f, 64, 1, 1), n2 = group_buffer(&f, 128, 2, 1);
	uint32_t n3 = group_buffer(&f, 192, 3, 1), n4 = group_buffer(&f, 256, 4, 1);
	struct pm4_builder *b = &f.b;
	PM4_PKT4(b, REG_A6XX_CP_SCRATCH_REG(0), 0, 0, 0, 0, 0);
	pm4_set_draw_state(b, 0, all, 0, ib2, n0);
	pm4_set_draw_state(b, 1, CP_SET_DRAW_STATE_0_SYSMEM, 0, ib2 + 256, n1);
	pm4_set_draw_state(b, 2, CP_SET_DRAW_STATE_0_BINNING, 0, ib2 + 512, n2);
	pm4_set_draw_state(b, 3, CP_SET_DRAW_STATE_0_GMEM, 0, ib2 + 768, n3);
	pm4_set_marker(b, RM6_DIRECT_RENDER);
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* groups 0, 1 run: 1 1 0 0 */
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* nothing pending */
	pm4_set_marker(b, RM6_BIN_VISIBILITY);
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* group 2: 1 1 1 0 */
	pm4_set_marker(b, RM6_BIN_RENDER_START);
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* group 3: 1 1 1 1 */
	/* Set again to the buffer it last ran: skipped unless DIRTY. */
	pm4_set_draw_state(b, 0, all, 0, ib2, n0);
	pm4_set_draw_state(b, 1, CP_SET_DRAW_STATE_0_SYSMEM, CP_SET_DRAW_STATE_0_DIRTY, ib2 + 256, n1);
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* gmem: group 1 waits for sysmem */
	pm4_set_marker(b, RM6_DIRECT_RENDER);
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* group 1: 1 2 1 1 */
	/* DISABLE and DISABLE_ALL_GROUPS drop pending groups. */
	pm4_set_draw_state(b, 0, all, CP_SET_DRAW_STATE_0_DIRTY, ib2, n0);
	pm4_set_draw_state(b, 3, 0, CP_SET_DRAW_STATE_0_DISABLE, 0, 0);
	pm4_set_draw_state_disable_all(b);
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* nothing */
	/* After a disable the same buffer counts as new again. */
	pm4_set_draw_state(b, 3, all, 0, ib2 + 768, n3);
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1); /* group 3: 1 2 1 2 */
	/* LOAD_IMMED runs at once, in any mode, and is not kept. */
	pm4_set_draw_state(b, 5, 0, CP_SET_DRAW_STATE_0_LOAD_IMMED, ib2 + 1024, n4);
	pm4_reg_to_mem(b, REG_A6XX_CP_SCRATCH_REG(4), 1, f.data.iova + 64, false); /* 1 already */
	pm4_draw_auto_index(b, DI_PT_TRILIST, 3, 1);
	pm4_reg_to_mem(b, REG_A6XX_CP_SCRATCH_REG(0), 5, f.data.iova, false);
	fx_run(&f);
	sim_msm_get_cp_stats(dev, &after);
	const uint32_t want[5] = { 1, 2, 1, 2, 1 };
	for (int i = 0; i < 5; i++)
		CHECK_EQ(f.data.cpu[i], want[i]);
	CHECK_EQ(f.data.cpu[16], 1);
	CHECK_EQ(after.draws - before.draws, 9);
	CHECK_EQ(after.draw_state_runs - before.draw_state_runs, 7);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);
	fx_fini(&f);
}

/* A draw-state group from an IB2 draw runs at level 3; a fault in it is located there. */
static void test_draw_state_fault_location(void)
{
	struct fixture f;
	fx_init(dev, &f);
	struct pm4_builder g, b2;
	pm4_builder_init(&g, f.ib2.cpu + 2048, 64);
	pm4_nop(&g, 1);
	pm4_mem_write(&g, 0x1fff00000ull, (const uint32_t[]){ 1 }, 1); /* dword 2 */
	pm4_builder_init(&b2, f.ib2.cpu, 256);
	pm4_set_draw_state(&b2, 3, CP_SET_DRAW_STATE_0_SYSMEM, 0, f.ib2.iova + 8192, g.len);
	pm4_draw_auto_index(&b2, DI_PT_TRILIST, 3, 1);
	PM4_PKT4(&f.b, 0x8800, 0x1234); /* RB_BIN_CONTROL: outside the dump's fixed list */
	pm4_set_marker(&f.b, RM6_DIRECT_RENDER);
	pm4_ib(&f.b, f.ib2.iova, b2.len);
	fx_run(&f);
	char text[65536], want[160];
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "  - iova=0x00000001fff00000\n  - dir=WRITE\n"));
	snprintf(want, sizeof(want), "crash-location:\n  ib-level: 3\n  ib-iova: 0x%016llx\n  ib-size: %u\n  dword: 2\n",
		 (unsigned long long)(f.ib2.iova + 8192), g.len);
	CHECK(strstr(text, want));
	CHECK(strstr(text, "  packet: CP_MEM_WRITE (0x3d)\n"));
	CHECK(strstr(text, "  frame: draw-state group 3\n"));
	/* last-packets: oldest first, ending with the faulting packet. */
	const char *lp = strstr(text, "last-packets:\n");
	REQUIRE(lp);
	const char *sds = strstr(lp, "packet: CP_SET_DRAW_STATE }");
	const char *draw = strstr(lp, "packet: CP_DRAW_INDX_OFFSET }");
	snprintf(want, sizeof(want), "  - { iova: 0x%016llx, level: 3, dword: 2, header: 0x703d8003, packet: CP_MEM_WRITE, frame: draw-state }\ncp-state:",
		 (unsigned long long)(f.ib2.iova + 8192 + 8));
	const char *last = strstr(lp, want);
	CHECK(sds && draw && last && sds < draw && draw < last);
	CHECK(strstr(text, "  render-mode: sysmem\n  marker: 1\n  draws: 0\n"));
	CHECK(strstr(text, "  draw-state: 3:6@0x"));
	CHECK(strstr(text, "offset: 0x022000, value: 0x00001234, name: RB_BIN_CONTROL }"));
	CHECK(strstr(text, "name: CP_IB2_BASE }"));
	fx_fini(&f);
}

static void test_draw_packets(void)
{
	struct fixture f;
	fx_init(dev, &f);
	struct sim_msm_cp_stats before, after;
	sim_msm_get_cp_stats(dev, &before);
	uint32_t *m = f.data.cpu;
	uint64_t d = f.data.iova;
	/* VkDrawIndirectCommand at 0x100, VkDrawIndexedIndirectCommand at 0x200, 3 indirect draws at
	 * 0x300 (stride 32), a draw count of 2 at 0x400, an xfb byte counter at 0x500. */
	m[0x100 / 4] = 3;
	m[0x200 / 4] = 6, m[0x200 / 4 + 1] = 1, m[0x200 / 4 + 2] = 10;
	for (int i = 0; i < 3; i++) {
		m[0x300 / 4 + 8 * i] = 3;
		m[0x300 / 4 + 8 * i + 1] = 1;
		m[0x300 / 4 + 8 * i + 2] = (uint32_t)i;
	}
	m[0x400 / 4] = 2;
	m[0x500 / 4] = 96;
	struct pm4_builder *b = &f.b;
	pm4_draw_indexed(b, DI_PT_TRILIST, 2, 6, 0, d + 0x1000, 6);
	/* MAX_INDICES bounds the fetch: indices past it are not read, even far outside the BO. */
	pm4_draw_indexed(b, DI_PT_TRILIST, 4, 1000000, 0, d + 0x1000, 16);
	pm4_draw_indexed(b, DI_PT_TRILIST, 4, 10, 100, 0x1fff00000ull, 50); /* first >= max: no fetch */
	pm4_draw_indirect(b, DI_PT_TRILIST, d + 0x100);
	pm4_draw_indx_indirect(b, DI_PT_TRILIST, 2, d + 0x1000, 64, d + 0x200);
	pm4_draw_indirect_multi(b, DI_PT_TRILIST, 3, d + 0x300, 32, 0);       /* 3 draws */
	pm4_draw_indirect_multi(b, DI_PT_TRILIST, 3, d + 0x300, 32, d + 0x400); /* min(3, 2) */
	pm4_draw_indirect_multi_indexed(b, DI_PT_TRILIST, 2, d + 0x1000, 64, 3, d + 0x300, 32, 0);
	pm4_draw_auto(b, DI_PT_TRILIST, 1, d + 0x500, 0, 16);
	pm4_mem_write(b, d, (const uint32_t[]){ 0xd }, 1);
	fx_run(&f);
	sim_msm_get_cp_stats(dev, &after);
	CHECK_EQ(m[0], 0xd);
	CHECK_EQ(after.draws - before.draws, 3 + 1 + 1 + 3 + 2 + 3 + 1);
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), 0);

	/* A multi-draw of 100000 draws spans many small slices and resumes where it stopped. */
	sim_msm_set_slice_budget(dev, 512);
	sim_msm_get_cp_stats(dev, &before);
	fx_reset(&f);
	pm4_draw_indirect_multi(b, DI_PT_TRILIST, 100000, d + 0x300, 0, 0);
	fx_run(&f);
	sim_msm_get_cp_stats(dev, &after);
	CHECK_EQ(after.draws - before.draws, 100000);
	sim_msm_set_slice_budget(dev, 0);
	fx_fini(&f);
}

static void expect_read_fault(struct fixture *f, uint64_t iova, const char *packet)
{
	char text[65536], want[96];
	fx_run(f);
	fx_dump(f, text, sizeof(text));
	snprintf(want, sizeof(want), "  - iova=0x%016llx\n  - dir=READ\n", (unsigned long long)iova);
	CHECK(strstr(text, want));
	snprintf(want, sizeof(want), "  packet: %s\n", packet);
	CHECK(strstr(text, want));
	if (!strstr(text, want))
		fprintf(stderr, "%s\n", text);
}

static void test_draw_faults(void)
{
	struct fixture f;
	fx_init(dev, &f);
	uint64_t d = f.data.iova, end = d + f.data.size;
	f.data.cpu[0x200 / 4] = 64; /* an indexed indirect draw of 64 indices from index 0 */
	uint64_t faults = get_param(f.k, MSM_PARAM_FAULTS);
	/* An index buffer running past its BO: the fetch faults where the BO ends. */
	pm4_draw_indexed(&f.b, DI_PT_TRILIST, 4, 64, 0, end - 64, 64);
	expect_read_fault(&f, end, "CP_DRAW_INDX_OFFSET (0x38)");
	fx_reset(&f);
	pm4_draw_indirect(&f.b, DI_PT_TRILIST, 0x1fff00000ull);
	expect_read_fault(&f, 0x1fff00000ull, "CP_DRAW_INDIRECT (0x28)");
	fx_reset(&f);
	pm4_draw_indx_indirect(&f.b, DI_PT_TRILIST, 2, end - 16, 1000, d + 0x200);
	expect_read_fault(&f, end, "CP_DRAW_INDX_INDIRECT (0x29)");
	fx_reset(&f);
	pm4_draw_indirect_multi(&f.b, DI_PT_TRILIST, 4, d, 0, 0x1fff00000ull);
	expect_read_fault(&f, 0x1fff00000ull, "CP_DRAW_INDIRECT_MULTI (0x2a)");
	fx_reset(&f);
	pm4_draw_auto(&f.b, DI_PT_TRILIST, 1, 0x1fff00000ull, 0, 4);
	expect_read_fault(&f, 0x1fff00000ull, "CP_DRAW_AUTO (0x24)");
	CHECK_EQ(get_param(f.k, MSM_PARAM_FAULTS), faults + 5);
	/* Malformed: an indexed draw without its index buffer, a reserved index size, a draw
	 * inside a draw-state group. */
	char text[65536];
	fx_reset(&f);
	PM4_PKT7(&f.b, CP_DRAW_INDX_OFFSET, CP_DRAW_INITIATOR_SOURCE_SELECT(DI_SRC_SEL_DMA), 1, 3);
	fx_run(&f);
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "indexed CP_DRAW_INDX_OFFSET without an index buffer"));
	fx_reset(&f);
	PM4_PKT7(&f.b, CP_DRAW_INDX_OFFSET, CP_DRAW_INITIATOR_SOURCE_SELECT(DI_SRC_SEL_DMA) | CP_DRAW_INITIATOR_INDEX_SIZE(3),
		 1, 3, 0, (uint32_t)d, (uint32_t)(d >> 32), 3);
	fx_run(&f);
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "reserved index size"));
	struct pm4_builder g;
	pm4_builder_init(&g, f.ib2.cpu, 64);
	pm4_draw_auto_index(&g, DI_PT_TRILIST, 3, 1);
	fx_reset(&f);
	pm4_set_draw_state(&f.b, 0, CP_SET_DRAW_STATE_0_SYSMEM, 0, f.ib2.iova, g.len);
	pm4_draw_auto_index(&f.b, DI_PT_TRILIST, 3, 1);
	fx_run(&f);
	fx_dump(&f, text, sizeof(text));
	CHECK(strstr(text, "draw packet inside a draw-state group"));
	CHECK(strstr(text, "  frame: draw-state group 0\n"));
	fx_fini(&f);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a660", &dev) == 0);
	RUN_TEST(test_draw_state_groups);
	RUN_TEST(test_draw_state_fault_location);
	RUN_TEST(test_draw_packets);
	RUN_TEST(test_draw_faults);
	sim_msm_device_destroy(dev);
	return test_finish();
}
