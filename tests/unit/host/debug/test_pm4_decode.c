/* The PM4 disassembler on streams built with the guest PM4 builder: the key fields of every
 * packet it decodes, IB and draw-state following with BO annotation, resynchronisation after bad
 * headers, truncated packets, the crash mark, and the depth / output bounds. */
#include "decode_test_util.h"
#include "ferry/hw/a6xx_regs.h"
#include "pm4_builder.h"

#define CMD_IOVA   0x100000000ull
#define DATA_IOVA  0x100001000ull
#define IB_IOVA    0x100002000ull
#define STATE_IOVA 0x100003000ull

static const struct pm4_decode_bo table[] = {
	{ .iova = CMD_IOVA, .size = 0x1000, .id = 0, .name = "cmd" },
	{ .iova = DATA_IOVA, .size = 0x1000, .id = 1, .name = "data" },
	{ .iova = IB_IOVA, .size = 0x1000, .id = 2, .name = "ib" },
	{ .iova = STATE_IOVA, .size = 0x1000, .id = 3 },
};

static uint32_t lo(uint64_t v) { return (uint32_t)v; }
static uint32_t hi(uint64_t v) { return (uint32_t)(v >> 32); }

static void test_each_packet(void)
{
	uint32_t buf[512];
	struct pm4_builder b;
	pm4_builder_init(&b, buf, 512);
	PM4_PKT4(&b, REG_A6XX_CP_SCRATCH_REG(0), 1, 2);
	pm4_nop(&b, 2);
	PM4_PKT7(&b, CP_NOP, CP_NOP_MESG, 0x6c6c6568, 0x6f77206f, 0x00646c72); /* "hello world" */
	pm4_ib(&b, IB_IOVA, 16);
	pm4_mem_write(&b, DATA_IOVA, (const uint32_t[]){ 5, 6 }, 2);
	PM4_PKT7(&b, CP_EVENT_WRITE, CACHE_FLUSH_TS | CP_EVENT_WRITE_0_TIMESTAMP, lo(DATA_IOVA + 0x10),
		 hi(DATA_IOVA + 0x10), 42);
	pm4_event_write(&b, RB_DONE_TS);
	pm4_reg_to_mem(&b, REG_A6XX_CP_ALWAYS_ON_COUNTER, 2, DATA_IOVA + 0x20, true);
	pm4_mem_to_reg(&b, REG_A6XX_CP_SCRATCH_REG(2), 3, DATA_IOVA + 0x40);
	pm4_memcpy(&b, DATA_IOVA + 0x100, DATA_IOVA + 0x80, 8);
	pm4_wait_mem(&b, WRITE_GE, DATA_IOVA + 0x200, 7, 0xff);
	pm4_wait_reg(&b, WRITE_EQ, REG_A6XX_CP_SCRATCH_REG(3), 1, 0xffffffff);
	PM4_PKT7(&b, CP_WAIT_MEM_GTE, 0, lo(DATA_IOVA + 0x240), hi(DATA_IOVA + 0x240), 9);
	PM4_PKT7(&b, CP_SET_DRAW_STATE,
		 CP_SET_DRAW_STATE_0_COUNT(4) | CP_SET_DRAW_STATE_0_DIRTY | CP_SET_DRAW_STATE_0_GMEM |
			 CP_SET_DRAW_STATE_0_SYSMEM | CP_SET_DRAW_STATE_0_GROUP_ID(1),
		 lo(STATE_IOVA), hi(STATE_IOVA), CP_SET_DRAW_STATE_0_DISABLE | CP_SET_DRAW_STATE_0_GROUP_ID(2), 0, 0);
	PM4_PKT7(&b, CP_DRAW_INDX_OFFSET,
		 CP_DRAW_INITIATOR_PRIM_TYPE(DI_PT_TRILIST) | CP_DRAW_INITIATOR_INDEX_SIZE(INDEX4_SIZE_32_BIT), 1, 3,
		 0, lo(DATA_IOVA + 0x300), hi(DATA_IOVA + 0x300), 3);
	PM4_PKT7(&b, CP_SET_MARKER, 4u | CP_SET_MARKER_0_USES_GMEM);
	PM4_PKT7(&b, CP_REG_RMW, REG_A6XX_CP_SCRATCH_REG(4) | CP_REG_RMW_0_SRC1_ADD, 0xffff0000, 0x12);
	PM4_PKT7(&b, CP_MEM_TO_MEM, CP_MEM_TO_MEM_0_NEG_B | CP_MEM_TO_MEM_0_DOUBLE, lo(DATA_IOVA + 0x400),
		 hi(DATA_IOVA + 0x400), lo(DATA_IOVA + 0x408), hi(DATA_IOVA + 0x408), lo(DATA_IOVA + 0x410),
		 hi(DATA_IOVA + 0x410));
	PM4_PKT7(&b, CP_COND_REG_EXEC, CP_COND_REG_EXEC_0_MODE(RENDER_MODE) | CP_COND_REG_EXEC_0_SYSMEM, 5);
	PM4_PKT7(&b, CP_COND_REG_EXEC, CP_COND_REG_EXEC_0_MODE(REG_COMPARE) | REG_A6XX_CP_SCRATCH_REG(5),
		 REG_A6XX_CP_SCRATCH_REG(6), 9);
	PM4_PKT7(&b, CP_SMMU_TABLE_UPDATE, 0x12345000, (7u << 16) | 0x1, 0, 0);
	PM4_PKT7(&b, CP_SET_PROTECTED_MODE, 1);
	PM4_PKT7(&b, CP_SET_MARKER, RM6_IB1LIST_START);
	PM4_PKT7(&b, 0x7b, 1, 2);
	REQUIRE(pm4_builder_ok(&b));

	struct pm4_decode_options o = { .bos = table, .nr_bos = 4 };
	struct pm4_decode_stats st;
	char *t = decode_str(buf, b.len, CMD_IOVA, &o, &st);
	CHECK_EQ(st.packets, 24);
	CHECK_EQ(st.bad_dwords, 0);
	CHECK_EQ(st.truncated, 0);
	CHECK_EQ(st.privileged, 3);
	CHECK(strncmp(t, "0x0000000100000000 dw 0     48088302  PKT4 CP_SCRATCH_REG(0) (2 regs)\n", 66) == 0);
	CHECK_HAS(t, "CP_SCRATCH_REG(0) (0x0883) = 0x00000001");
	CHECK_HAS(t, "CP_SCRATCH_REG(1) (0x0884) = 0x00000002");
	CHECK_HAS(t, "0x000000010000000c dw 3     70100002  CP_NOP (2 dwords)");
	CHECK_HAS(t, "2 dwords of zero padding");
	CHECK_HAS(t, "marker: MESG");
	CHECK_HAS(t, "text: \"hello world\"");
	CHECK_HAS(t, "CP_INDIRECT_BUFFER (3 dwords)");
	CHECK_HAS(t, "ib: 0x100002000 (bo 2 ib +0x0)");
	CHECK_HAS(t, "size: 16 dwords");
	CHECK_HAS(t, "CP_MEM_WRITE (4 dwords)");
	CHECK_HAS(t, "addr: 0x100001000 (bo 1 data +0x0)");
	CHECK_HAS(t, "data[1]: 0x00000006");
	CHECK_HAS(t, "event: CACHE_FLUSH_TS (0x04) TIMESTAMP");
	CHECK_HAS(t, "addr: 0x100001010 (bo 1 data +0x10)");
	CHECK_HAS(t, "value: 0x0000002a (42)");
	CHECK_HAS(t, "event: RB_DONE_TS (0x16)\n");
	CHECK_HAS(t, "reg: CP_ALWAYS_ON_COUNTER (0x0980)");
	CHECK_HAS(t, "cnt: 2 64B");
	CHECK_HAS(t, "dest: 0x100001020 (bo 1 data +0x20)");
	CHECK_HAS(t, "reg: CP_SCRATCH_REG(2) (0x0885)");
	CHECK_HAS(t, "cnt: 3\n");
	CHECK_HAS(t, "src: 0x100001040 (bo 1 data +0x40)");
	CHECK_HAS(t, "dwords: 8");
	CHECK_HAS(t, "src: 0x100001080 (bo 1 data +0x80)");
	CHECK_HAS(t, "dst: 0x100001100 (bo 1 data +0x100)");
	CHECK_HAS(t, "function: GE poll: MEMORY");
	CHECK_HAS(t, "poll_addr: 0x100001200 (bo 1 data +0x200)");
	CHECK_HAS(t, "ref: 0x00000007 mask: 0x000000ff");
	CHECK_HAS(t, "function: EQ poll: REGISTER");
	CHECK_HAS(t, "poll_reg: CP_SCRATCH_REG(3) (0x0886)");
	CHECK_HAS(t, "poll_addr: 0x100001240 (bo 1 data +0x240)");
	CHECK_HAS(t, "ref: 0x00000009 (wait until *poll_addr >= ref, signed)");
	CHECK_HAS(t, "group 1: count 4 DIRTY GMEM SYSMEM addr 0x100003000 (bo 3 +0x0)");
	CHECK_HAS(t, "group 2: count 0 DISABLE addr 0x0 (no bo)");
	CHECK_HAS(t, "initiator: prim_type 4 source_select DMA vis_cull 0 index_size 32_BIT patch_type 0");
	CHECK_HAS(t, "num_instances: 1 num_indices: 3");
	CHECK_HAS(t, "indx_base: 0x100001300 (bo 1 data +0x300)");
	CHECK_HAS(t, "max_indices: 3");
	CHECK_HAS(t, "mode: RM6_BIN_RENDER_START (4) USES_GMEM");
	CHECK_HAS(t, "dst_reg: CP_SCRATCH_REG(4) (0x0887)");
	CHECK_HAS(t, "src0 (and-mask): 0xffff0000");
	CHECK_HAS(t, "src1 (add): 0x00000012");
	CHECK_HAS(t, "flags: NEG_B DOUBLE");
	CHECK_HAS(t, "dst: 0x100001400 (bo 1 data +0x400)");
	CHECK_HAS(t, "src_a: 0x100001408 (bo 1 data +0x408)");
	CHECK_HAS(t, "src_b: 0x100001410 (bo 1 data +0x410)");
	CHECK_HAS(t, "mode: RENDER_MODE passes for: SYSMEM");
	CHECK_HAS(t, "conditionally executes the next 5 dwords");
	CHECK_HAS(t, "mode: REG_COMPARE reg0: CP_SCRATCH_REG(5) (0x0888)");
	CHECK_HAS(t, "reg1: CP_SCRATCH_REG(6) (0x0889)");
	CHECK_HAS(t, "conditionally executes the next 9 dwords");
	CHECK_HAS(t, "CP_SMMU_TABLE_UPDATE (4 dwords)\n        !! privileged packet");
	CHECK_HAS(t, "ttbr0: 0x000112345000 asid: 7");
	CHECK_HAS(t, "protected mode: on");
	CHECK_HAS(t, "!! privileged marker: only the kernel sets it");
	CHECK_HAS(t, "UNKNOWN_OPCODE_0x7b (2 dwords)");
	CHECK_HAS(t, "[0] 00000001 00000002");
	free(t);
}

/* Main stream -> IB2 (with contents) -> a draw-state group, plus an IB whose target is unknown. */
static void test_follow_ibs(void)
{
	uint32_t ib[64], state[16], cmd[64];
	struct pm4_builder bi, bs, bc;
	pm4_builder_init(&bs, state, 16);
	PM4_PKT4(&bs, REG_A6XX_CP_SCRATCH_REG(7), 0x77);
	pm4_builder_init(&bi, ib, 64);
	pm4_mem_write(&bi, DATA_IOVA + 8, (const uint32_t[]){ 0xabc }, 1);
	PM4_PKT7(&bi, CP_SET_DRAW_STATE, CP_SET_DRAW_STATE_0_COUNT(bs.len) | CP_SET_DRAW_STATE_0_GROUP_ID(3),
		 lo(STATE_IOVA), hi(STATE_IOVA));
	pm4_builder_init(&bc, cmd, 64);
	pm4_wait_for_idle(&bc);
	pm4_ib(&bc, IB_IOVA, bi.len);
	pm4_ib(&bc, 0x200000000ull, 4);          /* no BO there */
	pm4_ib(&bc, IB_IOVA + 4 * bi.len, 100);   /* runs past the contents */
	REQUIRE(pm4_builder_ok(&bi) && pm4_builder_ok(&bs) && pm4_builder_ok(&bc));
	struct pm4_decode_bo bos[] = {
		{ .iova = CMD_IOVA, .size = 0x1000, .id = 0, .name = "cmd", .contents = cmd, .contents_len = bc.len * 4 },
		{ .iova = DATA_IOVA, .size = 0x1000, .id = 1, .name = "data" },
		/* Two zero dwords after the IB are in the contents: the over-long IB decodes them. */
		{ .iova = IB_IOVA, .size = 0x1000, .id = 2, .contents = ib, .contents_len = bi.len * 4 + 8 },
		{ .iova = STATE_IOVA, .size = 0x1000, .id = 3, .contents = state, .contents_len = bs.len * 4 },
	};
	ib[bi.len] = ib[bi.len + 1] = 0;
	struct pm4_decode_options o = { .bos = bos, .nr_bos = 4, .follow_ibs = true };
	struct pm4_decode_stats st;
	char *t = decode_str(cmd, bc.len, CMD_IOVA, &o, &st);
	CHECK_HAS(t, "        --- IB2 at 0x100002000, 8 dwords ---\n    0x0000000100002000 dw 0     703d8003  CP_MEM_WRITE");
	CHECK_HAS(t, "            addr: 0x100001008 (bo 1 data +0x8)");
	CHECK_HAS(t, "            --- draw state group 3 at 0x100003000, 2 dwords ---\n"
		     "        0x0000000100003000 dw 0     48088a01  PKT4 CP_SCRATCH_REG(7) (1 regs)");
	CHECK_HAS(t, "                CP_SCRATCH_REG(7) (0x088a) = 0x00000077");
	CHECK_HAS(t, "--- end of draw state group 3 ---");
	CHECK_HAS(t, "        --- end of IB2 ---");
	CHECK_HAS(t, "ib: 0x200000000 (no bo)");
	CHECK_HAS(t, "(IB2 not followed: contents of 0x200000000 not available)");
	CHECK_HAS(t, "(only 2 of 100 dwords are available in bo 2)");
	CHECK_HAS(t, "?? not a PM4 type-4/type-7 header: skipped");
	CHECK_EQ(st.ibs_followed, 3);
	CHECK_EQ(st.ibs_unavailable, 1);
	free(t);

	/* Without following, the IB is named but not entered. */
	o.follow_ibs = false;
	t = decode_str(cmd, bc.len, CMD_IOVA, &o, &st);
	CHECK_LACKS(t, "--- IB2");
	CHECK_EQ(st.ibs_followed, 0);
	free(t);
}

/* An IB that calls itself stops at the nesting limit; a budget stops any output explosion. */
static void test_bounds(void)
{
	uint32_t cmd[8];
	struct pm4_builder b;
	pm4_builder_init(&b, cmd, 8);
	pm4_ib(&b, CMD_IOVA, 4);
	pm4_wait_for_idle(&b);
	REQUIRE(pm4_builder_ok(&b));
	struct pm4_decode_bo self = { .iova = CMD_IOVA, .size = 0x1000, .contents = cmd, .contents_len = sizeof(cmd) };
	struct pm4_decode_options o = { .bos = &self, .nr_bos = 1, .follow_ibs = true };
	struct pm4_decode_stats st;
	char *t = decode_str(cmd, b.len, CMD_IOVA, &o, &st);
	CHECK_EQ(st.ibs_followed, 3);
	CHECK_HAS(t, "(IB5 not followed: nesting limit 3 reached)");
	free(t);
	o.max_depth = 100; /* capped at 8 */
	t = decode_str(cmd, b.len, CMD_IOVA, &o, &st);
	CHECK_EQ(st.ibs_followed, 8);
	free(t);
	o.max_dwords = 10;
	t = decode_str(cmd, b.len, CMD_IOVA, &o, &st);
	CHECK(st.budget_exhausted);
	CHECK_HAS(t, "(output budget exhausted");
	free(t);
}

static void test_resync_after_garbage(void)
{
	/* Exact-size heap buffer so ASan catches any read past the end. */
	uint32_t *w = malloc(8 * 4);
	REQUIRE(w);
	w[0] = 0xdeadbeef;                                 /* not PM4 */
	w[1] = pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0);
	w[2] = pm4_type7_hdr(CP_NOP, 0) ^ (1u << 15);      /* count parity flipped */
	w[3] = pm4_type4_hdr(0x883, 1) ^ (1u << 27);       /* register parity flipped */
	w[4] = pm4_type7_hdr(CP_MEM_WRITE, 3);
	w[5] = (uint32_t)DATA_IOVA;
	w[6] = (uint32_t)(DATA_IOVA >> 32);
	w[7] = 0x5eed;
	struct pm4_decode_options o = { .bos = table, .nr_bos = 4 };
	struct pm4_decode_stats st;
	char *t = decode_str(w, 8, CMD_IOVA, &o, &st);
	CHECK_HAS(t, "0x0000000100000000 dw 0     deadbeef  ?? not a PM4 type-4/type-7 header: skipped");
	CHECK_HAS(t, "dw 1     70268000  CP_WAIT_FOR_IDLE (0 dwords)");
	CHECK_HAS(t, "dw 2     70100000  ?? type-7 header with bad parity: skipped");
	CHECK_HAS(t, "?? type-4 header with bad parity: skipped");
	CHECK_HAS(t, "dw 4     703d8003  CP_MEM_WRITE (3 dwords)");
	CHECK_HAS(t, "data[0]: 0x00005eed");
	CHECK_EQ(st.bad_dwords, 3);
	CHECK_EQ(st.packets, 2);
	free(t);
	free(w);
}

static void test_truncated_and_short(void)
{
	uint32_t *w = malloc(3 * 4);
	REQUIRE(w);
	w[0] = pm4_type7_hdr(CP_EVENT_WRITE, 1);
	w[1] = CACHE_INVALIDATE;
	w[2] = pm4_type7_hdr(CP_SET_DRAW_STATE, 3); /* its three payload dwords are missing */
	struct pm4_decode_stats st;
	char *t = decode_str(w, 3, CMD_IOVA, NULL, &st);
	CHECK_HAS(t, "event: CACHE_INVALIDATE (0x31)");
	CHECK_HAS(t, "CP_SET_DRAW_STATE (3 dwords)\n        !! truncated: 0 of 3 payload dwords present");
	CHECK_EQ(st.truncated, 1);
	free(t);
	free(w);

	uint32_t *v = malloc(3 * 4);
	REQUIRE(v);
	v[0] = pm4_type4_hdr(0x883, 5);
	v[1] = 1;
	v[2] = 2;
	t = decode_str(v, 3, 0, NULL, &st);
	CHECK_HAS(t, "!! truncated: 2 of 5 payload dwords present");
	CHECK_HAS(t, "[0] 00000001 00000002");
	free(t);
	free(v);

	/* Complete packets whose payload is too short for their fields. */
	uint32_t s[4] = { pm4_type7_hdr(CP_MEM_WRITE, 1), 0x1000, pm4_type7_hdr(CP_MEMCPY, 1), 4 };
	t = decode_str(s, 4, 0, NULL, &st);
	CHECK_HAS(t, "!! short payload: 1 dwords, this packet needs at least 2");
	CHECK_HAS(t, "!! short payload: 1 dwords, this packet needs at least 5");
	CHECK_EQ(st.truncated, 0);
	free(t);

	t = decode_str(NULL, 0, 0, NULL, &st);
	CHECK_EQ(st.packets, 0);
	free(t);
}

static void test_crash_mark(void)
{
	uint32_t w[4] = { pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0), pm4_type7_hdr(CP_NOP, 1), 0,
			  pm4_type7_hdr(CP_WAIT_FOR_ME, 0) };
	struct pm4_decode_options o = { .mark = true, .mark_iova = CMD_IOVA + 4 };
	struct pm4_decode_stats st;
	char *t = decode_str(w, 4, CMD_IOVA, &o, &st);
	CHECK_HAS(t, "ESTIMATED CRASH LOCATION!\n0x0000000100000004 dw 1     70100001  CP_NOP");
	CHECK(st.marked);
	free(t);
	o.mark_iova = CMD_IOVA + 8; /* inside a payload: not a packet boundary */
	t = decode_str(w, 4, CMD_IOVA, &o, &st);
	CHECK(!st.marked);
	CHECK_LACKS(t, "ESTIMATED");
	free(t);
}

static void test_addresses_and_names(void)
{
	char a[160];
	pm4_decode_format_addr(a, sizeof(a), table, 4, DATA_IOVA + 0xfff);
	CHECK(strcmp(a, "0x100001fff (bo 1 data +0xfff)") == 0);
	pm4_decode_format_addr(a, sizeof(a), table, 4, DATA_IOVA + 0x3000);
	CHECK(strcmp(a, "0x100004000 (no bo)") == 0);
	pm4_decode_format_addr(a, sizeof(a), NULL, 0, 0x1234);
	CHECK(strcmp(a, "0x1234") == 0);
	/* A BO at the very top of the address space: no overflow in the bounds check. */
	struct pm4_decode_bo top = { .iova = UINT64_MAX - 0xfff, .size = 0x1000, .id = 9 };
	CHECK(pm4_decode_find_bo(&top, 1, UINT64_MAX) == &top);
	CHECK(pm4_decode_find_bo(&top, 1, 0) == NULL);
	char nb[48];
	CHECK(strcmp(a6xx_reg_name(REG_A6XX_CP_IB1_BASE, nb, sizeof(nb)), "CP_IB1_BASE") == 0);
	CHECK(strcmp(a6xx_reg_name(0x821, nb, sizeof(nb)), "CP_HW_FAULT") == 0);
	CHECK(a6xx_reg_name(0x7ffff, nb, sizeof(nb)) == NULL);
	/* The GMEM resolve registers, by their a6xx.xml offsets. */
	CHECK(strcmp(a6xx_reg_name(0x88e3, nb, sizeof(nb)), "RB_BLIT_INFO") == 0);
	CHECK(strcmp(a6xx_reg_name(0x88d6, nb, sizeof(nb)), "RB_BLIT_BASE_GMEM") == 0);
	CHECK(strcmp(a6xx_reg_name(0x88df, nb, sizeof(nb)), "RB_BLIT_CLEAR_COLOR_DW0") == 0);
	CHECK(strcmp(a6xx_reg_name(0x88d3, nb, sizeof(nb)), "RB_BIN_CONTROL2") == 0);
	CHECK(strcmp(pm4_decode_event_name(PC_CCU_FLUSH_COLOR_TS), "PC_CCU_FLUSH_COLOR_TS") == 0);
	CHECK(pm4_decode_event_name(0xff) == NULL);
	CHECK(pm4_opcode_kernel_only(CP_SET_PROTECTED_MODE));
	CHECK(!pm4_opcode_kernel_only(CP_MEM_WRITE));
}

/* The registers Turnip and freedreno program, as `ferry decode` prints their writes: the names
 * and offsets of Mesa's a6xx.xml (RB_BLIT_* for GMEM clears / resolves, the bin and VSC state,
 * GRAS scissors, SP / HLSQ shader state, arrays with their index, 64-bit halves). */
static void test_driver_register_names(void)
{
	static const struct { uint32_t reg; const char *name; } want[] = {
		{ 0x88d1, "RB_BLIT_SCISSOR_TL" }, { 0x88d6, "RB_BLIT_BASE_GMEM" }, { 0x88d7, "RB_BLIT_DST_INFO" },
		{ 0x88d8, "RB_BLIT_DST" }, { 0x88d9, "RB_BLIT_DST_HI" }, { 0x88e3, "RB_BLIT_INFO" },
		{ 0x88df, "RB_BLIT_CLEAR_COLOR_DW0" }, { 0x8800, "RB_BIN_CONTROL" }, { 0x80a1, "GRAS_BIN_CONTROL" },
		{ 0x0c02, "VSC_BIN_SIZE" }, { 0x0c10, "VSC_PIPE_CONFIG_REG(0)" }, { 0x0c2f, "VSC_PIPE_CONFIG_REG(31)" },
		{ 0x0c35, "VSC_DRAW_STRM_ADDRESS_HI" }, { 0x80f0, "GRAS_SC_WINDOW_SCISSOR_TL" },
		{ 0x80b3, "GRAS_SC_SCREEN_SCISSOR_BR(1)" }, { 0x8016 + 5, "GRAS_CL_VPORT_ZSCALE(1)" },
		{ 0x8822, "RB_MRT_BUF_INFO(0)" }, { 0x8820 + 8 * 7 + 6, "RB_MRT_BASE_HI(7)" },
		{ 0x8820 + 8 * 3 + 7, "RB_MRT_BASE_GMEM(3)" }, { 0x8905, "RB_MRT_FLAG_BUFFER_PITCH(0)" },
		{ 0x8875, "RB_DEPTH_BUFFER_BASE" }, { 0x8e07, "RB_CCU_CNTL" }, { 0x9802, "PC_TESS_CNTL" },
		{ 0xa010 + 4 * 31 + 3, "VFD_FETCH_STRIDE(31)" }, { 0xa980, "SP_FS_CTRL_REG0" },
		{ 0xa9b0, "SP_CS_CTRL_REG0" }, { 0xab11, "SP_BINDLESS_BASE_ADDR_HI(0)" }, { 0xb987, "HLSQ_CS_CNTL" },
		{ 0xbb08, "HLSQ_INVALIDATE_CMD" }, { 0xb4c0, "SP_PS_2D_SRC_INFO" }, { 0x8c17, "RB_2D_DST_INFO" },
		{ 0x0e19, "UCHE_CLIENT_PF" }, { 0xd601, "CP_EVENT_END" },
	};
	char nb[48];
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *n = a6xx_reg_name(want[i].reg, nb, sizeof(nb));
		if (!n || strcmp(n, want[i].name) != 0)
			fprintf(stderr, "0x%04x: want %s, got %s\n", want[i].reg, want[i].name, n ? n : "(none)");
		CHECK(n && strcmp(n, want[i].name) == 0);
	}
	/* The last member of an array, past it, and gaps a6xx.xml calls invalid. */
	CHECK(strcmp(a6xx_reg_name(0x885f, nb, sizeof(nb)), "RB_MRT_BASE_GMEM(7)") == 0);
	CHECK(strcmp(a6xx_reg_name(0x0c97, nb, sizeof(nb)), "VSC_DRAW_STRM_SIZE_REG(31)") == 0);
	CHECK(a6xx_reg_name(0x0c98, nb, sizeof(nb)) == NULL);
	CHECK(a6xx_reg_name(0x8866, nb, sizeof(nb)) == NULL);
	CHECK(a6xx_reg_name(0x8093, nb, sizeof(nb)) == NULL);

	/* Every entry of the list reads back under its own name: no offset is named twice with two
	 * names (the explicit table would win), no array overlaps another entry. */
	static const struct a6xx_reg_name_entry all[] = { A6XX_REG_NAME_ENTRIES };
	unsigned bad = 0, named = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		unsigned members = all[i].stride ? all[i].count : 1;
		for (unsigned m = 0; m < members; m++) {
			for (unsigned h = 0; h <= all[i].is64; h++) {
				uint32_t reg = all[i].offset + m * all[i].stride + h;
				char want_name[48], got_buf[48];
				a6xx_reg_name_format(all[i].name, h, all[i].stride != 0, m, want_name, sizeof(want_name));
				const char *got = a6xx_reg_name(reg, got_buf, sizeof(got_buf));
				bad += !got || strcmp(got, want_name) != 0;
				named++;
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(named > 1300);

	/* And in the decoder's output. */
	uint32_t buf[32];
	struct pm4_builder b;
	pm4_builder_init(&b, buf, 32);
	PM4_PKT4(&b, 0x88d7, 0x3u << 7 | 0x3u);
	PM4_PKT4(&b, 0x88d8, 0x1000, 0x1);
	PM4_PKT4(&b, 0x8822, 0x30);
	REQUIRE(pm4_builder_ok(&b));
	struct pm4_decode_options o = { 0 };
	char *t = decode_str(buf, b.len, CMD_IOVA, &o, NULL);
	CHECK_HAS(t, "RB_BLIT_DST_INFO (0x88d7) = 0x00000183");
	CHECK_HAS(t, "RB_BLIT_DST (0x88d8) = 0x00001000");
	CHECK_HAS(t, "RB_BLIT_DST_HI (0x88d9) = 0x00000001");
	CHECK_HAS(t, "RB_MRT_BUF_INFO(0) (0x8822) = 0x00000030");
	CHECK_HAS(t, "PKT4 RB_BLIT_DST (2 regs)");
	free(t);
}

/* Raw encodings from Mesa's adreno_pm4.xml, written as numbers so the header's enums are checked
 * too: a4xx+ INDEX_SIZE (not the a2xx/a3xx order 16, 32, 8), and a6xx event names. */
static void test_mesa_encodings(void)
{
	static const char *const index_size[4] = { "index_size 8_BIT ", "index_size 16_BIT ", "index_size 32_BIT ",
						   "index_size INVALID " };
	for (uint32_t size = 0; size < 4; size++) {
		uint32_t buf[8];
		struct pm4_builder b;
		pm4_builder_init(&b, buf, 8);
		PM4_PKT7(&b, CP_DRAW_INDX_OFFSET, 4u | size << 10 | 2u << 6 /* AUTO_INDEX */, 1, 3);
		REQUIRE(pm4_builder_ok(&b));
		struct pm4_decode_options o = { 0 };
		char *t = decode_str(buf, b.len, CMD_IOVA, &o, NULL);
		CHECK_HAS(t, index_size[size]);
		free(t);
	}
	CHECK(strcmp(pm4_decode_event_name(0x1e), "BLIT") == 0);
	CHECK(strcmp(pm4_decode_event_name(0x3f), "LABEL") == 0);
	CHECK(strcmp(pm4_decode_event_name(0x1a), "PC_CCU_RESOLVE_TS") == 0);
	CHECK(pm4_decode_event_name(0x17) == NULL);
}

int main(void)
{
	RUN_TEST(test_each_packet);
	RUN_TEST(test_follow_ibs);
	RUN_TEST(test_bounds);
	RUN_TEST(test_resync_after_garbage);
	RUN_TEST(test_truncated_and_short);
	RUN_TEST(test_crash_mark);
	RUN_TEST(test_addresses_and_names);
	RUN_TEST(test_mesa_encodings);
	RUN_TEST(test_driver_register_names);
	return test_finish();
}
