/* Relocation into shadow copies: relocs land in the shadow and never in the guest BO, IB and
 * draw-state targets point at shadows holding exactly the validated dwords, a target used twice
 * is copied once, and rewriting the guest BO after validation changes nothing (TOCTOU). */
#include "pm4v_harness.h"

static void test_relocs_into_shadow(void)
{
	struct harness h;
	harness_init(&h);
	/* CP_MEM_WRITE whose address the relocs fill in: bo2 + 0x40. */
	PM4_PKT7(&h.b, CP_MEM_WRITE, 0, 0, 0x1234);
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, pm4_builder_bytes(&h.b) };
	struct ferry_msm_submit_reloc relocs[] = {
		{ .cmd_index = 0, .submit_offset = 4, .shift = 0, .bo_index = BO_DATA, .bo_offset = 0x40 },
		{ .cmd_index = 0, .submit_offset = 8, .shift = -32, .bo_index = BO_DATA, .bo_offset = 0x40 },
	};
	uint32_t guest[4];
	memcpy(guest, h.mem[BO_CMD], sizeof(guest));
	CHECK_EQ(harness_submit(&h, &cmd, 1, relocs, 2), 0);
	CHECK_EQ(h.res.relocs_applied, 2);
	uint32_t *sh = shadow_ptr(&h, h.res.cmds[0].iova);
	CHECK_EQ(dw_addr(sh + 1), DATA_IOVA + 0x40);
	CHECK_EQ(sh[3], 0x1234);
	CHECK(memcmp(guest, h.mem[BO_CMD], sizeof(guest)) == 0); /* the guest BO is untouched */

	/* Relocs are applied before validation: a relocated address outside the BOs is refused. */
	relocs[0].bo_offset = relocs[1].bo_offset = DATA_SIZE;
	CHECK_EQ(harness_submit(&h, &cmd, 1, relocs, 2), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_ADDRESS);

	/* Shift and or: ((iova + off) << 2) | 3, and a later reloc of the same dword wins. */
	struct ferry_msm_submit_reloc r2[] = {
		{ .cmd_index = 0, .submit_offset = 12, .shift = 2, .or_value = 3, .bo_index = BO_DATA },
		{ .cmd_index = 0, .submit_offset = 4, .shift = 0, .bo_index = BO_DATA, .bo_offset = 0x40 },
		{ .cmd_index = 0, .submit_offset = 8, .shift = -32, .bo_index = BO_DATA },
		{ .cmd_index = 0, .submit_offset = 12, .shift = 70, .or_value = 0x55, .bo_index = BO_DATA },
	};
	CHECK_EQ(harness_submit(&h, &cmd, 1, r2, 4), 0);
	sh = shadow_ptr(&h, h.res.cmds[0].iova);
	CHECK_EQ(sh[3], 0x55); /* shift >= 64 gives 0, then | or */
	r2[3].cmd_index = 0;
	r2[3].submit_offset = 0; /* now they no longer collide */
	r2[3].shift = 0;
	r2[3].or_value = 0;
	r2[3].bo_index = BO_CMD;
	r2[3].bo_offset = 0;
	CHECK_EQ(harness_submit(&h, &cmd, 1, r2, 4), -1); /* dword 0 became a non-PM4 value */
	CHECK_EQ(h.err.rule, PM4V_ERR_BAD_TYPE);
	CHECK_EQ(harness_submit(&h, &cmd, 1, r2, 3), 0);
	sh = shadow_ptr(&h, h.res.cmds[0].iova);
	CHECK_EQ(sh[3], (uint32_t)(DATA_IOVA << 2) | 3u);
	harness_fini(&h);
}

static void test_reloc_errors(void)
{
	struct harness h;
	harness_init(&h);
	PM4_PKT7(&h.b, CP_MEM_WRITE, LO(DATA_IOVA), HI(DATA_IOVA), 1);
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, pm4_builder_bytes(&h.b) };
	struct ferry_msm_submit_reloc bad[] = {
		{ .cmd_index = 1, .submit_offset = 4, .bo_index = BO_DATA },
		{ .cmd_index = 0, .submit_offset = 4, .bo_index = NR_BOS },
		{ .cmd_index = 0, .submit_offset = 6, .bo_index = BO_DATA },
		{ .cmd_index = 0, .submit_offset = 16, .bo_index = BO_DATA }, /* past the cmd */
		{ .cmd_index = 0, .submit_offset = 0xfffffffcu, .bo_index = BO_DATA },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(harness_submit(&h, &cmd, 1, &bad[i], 1), -1);
		CHECK_EQ(h.err.rule, PM4V_ERR_RELOC);
	}
	harness_fini(&h);
}

/* IB1 (bo0) -> IB2 (bo1): the submitted cmd is the IB1 shadow, whose IB packet points at the
 * IB2 shadow, which holds exactly the guest's IB2 dwords. */
static void test_targets_rewritten(void)
{
	struct harness h;
	harness_init(&h);
	uint32_t ib2[6] = { pm4_type4_hdr(0x8800, 1), 7, pm4_type7_hdr(CP_MEM_WRITE, 3),
			    LO(DATA_IOVA), HI(DATA_IOVA), 9 };
	memcpy(h.mem[BO_CMD2] + 16, ib2, sizeof(ib2));
	pm4_nop(&h.b, 1);
	pm4_ib(&h.b, CMD2_IOVA + 64, 6);
	pm4_wait_for_idle(&h.b);
	pm4_ib(&h.b, CMD2_IOVA + 64, 6); /* the same target again */
	pm4_ib(&h.b, CMD2_IOVA + 64, 2); /* a different size is a different stream */
	uint32_t guest[32];
	memcpy(guest, h.mem[BO_CMD], sizeof(guest));
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_cmds, 1);
	CHECK_EQ(h.res.nr_streams, 3);
	CHECK_EQ(h.allocs, 3);

	uint32_t *ib1 = shadow_ptr(&h, h.res.cmds[0].iova);
	uint64_t t1 = dw_addr(ib1 + 3), t2 = dw_addr(ib1 + 8), t3 = dw_addr(ib1 + 12);
	CHECK_EQ(t1, t2);
	CHECK(t3 != t1);
	CHECK(t1 >= POOL_IOVA && t3 >= POOL_IOVA);
	CHECK_EQ(ib1[5], 6);
	CHECK(memcmp(shadow_ptr(&h, t1), ib2, sizeof(ib2)) == 0);
	CHECK(memcmp(shadow_ptr(&h, t3), ib2, 8) == 0);
	/* everything but the rewritten addresses is the guest's stream */
	CHECK_EQ(ib1[0], guest[0]);
	CHECK_EQ(ib1[2], guest[2]);
	CHECK_EQ(ib1[5], guest[5]);
	CHECK_EQ(ib1[6], guest[6]);
	CHECK(memcmp(guest, h.mem[BO_CMD], sizeof(guest)) == 0);
	harness_fini(&h);
}

/* The guest rewrites its IB2 and its IB1 right after submitting: the shadows still hold what
 * was validated, and the same bytes validated again would now be refused. */
static void test_toctou(void)
{
	struct harness h;
	harness_init(&h);
	uint32_t ib2[3] = { pm4_type7_hdr(CP_NOP, 1), 0, pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0) };
	memcpy(h.mem[BO_CMD2], ib2, sizeof(ib2));
	pm4_ib(&h.b, CMD2_IOVA, 3);
	EXPECT_OK(&h);
	uint32_t *ib1 = shadow_ptr(&h, h.res.cmds[0].iova);
	uint32_t *sh2 = shadow_ptr(&h, dw_addr(ib1 + 1));
	uint32_t ib1_before[4], ib2_before[3];
	memcpy(ib1_before, ib1, sizeof(ib1_before));
	memcpy(ib2_before, sh2, sizeof(ib2_before));

	h.mem[BO_CMD2][0] = pm4_type7_hdr(CP_SMMU_TABLE_UPDATE, 1);
	h.mem[BO_CMD][1] = LO(FOREIGN_IOVA);
	CHECK(memcmp(ib1, ib1_before, sizeof(ib1_before)) == 0);
	CHECK(memcmp(sh2, ib2_before, sizeof(ib2_before)) == 0);
	CHECK(memcmp(sh2, ib2, sizeof(ib2)) == 0);

	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, 16 };
	CHECK_EQ(harness_submit(&h, &cmd, 1, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_TARGET);
	h.mem[BO_CMD][1] = LO(CMD2_IOVA);
	CHECK_EQ(harness_submit(&h, &cmd, 1, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_PRIVILEGED);
	harness_fini(&h);
}

/* An IB_TARGET_BUF cmd is not submitted, but its relocs apply where an IB reaches it; a
 * CTX_RESTORE_BUF keeps its type. */
static void test_cmd_types_and_target_relocs(void)
{
	struct harness h;
	harness_init(&h);
	uint32_t ib2[4] = { pm4_type7_hdr(CP_MEM_WRITE, 3), 0, 0, 5 };
	memcpy(h.mem[BO_CMD2], ib2, sizeof(ib2));
	pm4_ib(&h.b, CMD2_IOVA, 4);
	uint32_t n = h.b.len;
	pm4_nop(&h.b, 0); /* the context-restore cmd: one NOP */
	struct ferry_msm_submit_cmd cmds[] = {
		{ MSM_SUBMIT_CMD_CTX_RESTORE_BUF, BO_CMD, n * 4u, 4 },
		{ MSM_SUBMIT_CMD_IB_TARGET_BUF, BO_CMD2, 0, 16 },
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, 0, n * 4u },
	};
	struct ferry_msm_submit_reloc relocs[] = {
		{ .cmd_index = 1, .submit_offset = 4, .shift = 0, .bo_index = BO_DATA, .bo_offset = 8 },
		{ .cmd_index = 1, .submit_offset = 8, .shift = -32, .bo_index = BO_DATA, .bo_offset = 8 },
	};
	CHECK_EQ(harness_submit(&h, cmds, 3, relocs, 2), 0);
	CHECK_EQ(h.res.nr_cmds, 2);
	CHECK_EQ(h.res.cmds[0].type, MSM_SUBMIT_CMD_CTX_RESTORE_BUF);
	CHECK_EQ(h.res.cmds[0].size, 4);
	CHECK_EQ(h.res.cmds[1].type, MSM_SUBMIT_CMD_BUF);
	uint32_t *ib1 = shadow_ptr(&h, h.res.cmds[1].iova);
	uint32_t *sh2 = shadow_ptr(&h, dw_addr(ib1 + 1));
	CHECK_EQ(dw_addr(sh2 + 1), DATA_IOVA + 8);
	CHECK_EQ(h.mem[BO_CMD2][1], 0); /* guest copy unpatched */

	/* Without the relocs the IB2 writes to address 0: refused. */
	CHECK_EQ(harness_submit(&h, cmds, 3, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_ADDRESS);
	CHECK_EQ(h.err.level, 2);
	harness_fini(&h);
}

/* IB2s chaining to each other in a cycle: each is copied once and the walk ends. */
static void test_chain_cycle(void)
{
	struct harness h;
	harness_init(&h);
	uint32_t a[4] = { pm4_type7_hdr(CP_INDIRECT_BUFFER_CHAIN, 3), LO(CMD2_IOVA + 0x100),
			  HI(CMD2_IOVA + 0x100), 4 };
	uint32_t b[4] = { pm4_type7_hdr(CP_INDIRECT_BUFFER_CHAIN, 3), LO(CMD2_IOVA), HI(CMD2_IOVA), 4 };
	memcpy(h.mem[BO_CMD2], a, sizeof(a));
	memcpy(h.mem[BO_CMD2] + 0x40, b, sizeof(b));
	pm4_ib(&h.b, CMD2_IOVA, 4);
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_streams, 3);
	uint32_t *ib1 = shadow_ptr(&h, h.res.cmds[0].iova);
	uint64_t sa = dw_addr(ib1 + 1);
	uint64_t sb = dw_addr(shadow_ptr(&h, sa) + 1);
	CHECK_EQ(dw_addr(shadow_ptr(&h, sb) + 1), sa);
	harness_fini(&h);
}

/* The same validator serves many submits: identical output each time, and a rejected submit in
 * between leaves it usable. */
static void test_reuse(void)
{
	struct harness h;
	harness_init(&h);
	h.mem[BO_CMD2][0] = pm4_type7_hdr(CP_NOP, 0);
	for (int i = 0; i < 64; i++)
		pm4_ib(&h.b, CMD2_IOVA, 1);
	uint32_t first_streams = 0;
	for (int round = 0; round < 200; round++) {
		EXPECT_OK(&h);
		if (!round)
			first_streams = h.res.nr_streams;
		CHECK_EQ(h.res.nr_streams, first_streams);
		if (round == 100) {
			struct ferry_msm_submit_cmd bad = { 9, BO_CMD, 0, 4 };
			CHECK_EQ(harness_submit(&h, &bad, 1, NULL, 0), -1);
		}
	}
	CHECK_EQ(first_streams, 2);
	harness_fini(&h);
}

/* Validated in budgeted steps (pm4v_validate_step), a long stream with relocs, a conditional
 * skip and an IB spread over it gives the same shadows and result as validated whole. */
/* Validates the stream b wrote into BO_DATA with its relocs whole (it must pass); *sub is the
 * same submit, to step through after. */
static void validate_whole(struct harness *h, const struct pm4_builder *b, struct ferry_msm_submit_cmd *cmd,
			   const struct ferry_msm_submit_reloc *relocs, uint32_t nr, struct pm4v_submit *sub)
{
	REQUIRE(pm4_builder_ok(b));
	*cmd = (struct ferry_msm_submit_cmd){ MSM_SUBMIT_CMD_BUF, BO_DATA, 0, b->len * 4 };
	*sub = harness_submit_of(h, cmd, 1, relocs, nr);
	int w = harness_submit(h, cmd, 1, relocs, nr);
	if (w)
		fprintf(stderr, "  %s\n", h->err.msg);
	REQUIRE(w == 0);
}

static void test_steps_equal_whole(void)
{
	struct harness h;
	harness_init(&h);
	enum { DW = 600000 };
	uint32_t *d = h.mem[BO_DATA];
	struct pm4_builder b;
	pm4_builder_init(&b, h.mem[BO_CMD], 64);
	pm4_mem_write(&b, DATA_IOVA + (DW + 16) * 4ull, (const uint32_t[]){ 7 }, 1);
	uint32_t ib_dw = b.len;
	pm4_builder_init(&b, d, DW);
	struct ferry_msm_submit_reloc relocs[16];
	uint32_t nr = 0;
	while (b.len < DW - 64) {
		if (b.len % 70000 < 2 && nr < 16) {
			uint32_t at = b.len;
			uint64_t off = (DW + 32 + nr) * 4ull;
			pm4_mem_write(&b, 0, (const uint32_t[]){ at }, 1);
			relocs[nr++] = (struct ferry_msm_submit_reloc){ .submit_offset = (at + 1) * 4, .bo_index = BO_DATA,
									.bo_offset = off };
			relocs[nr++] = (struct ferry_msm_submit_reloc){ .submit_offset = (at + 2) * 4, .bo_index = BO_DATA,
									.bo_offset = off, .shift = -32 };
		} else if (b.len % 100000 == 50) {
			PM4_PKT7(&b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA), HI(DATA_IOVA), 0, 20000);
		} else if (b.len % 150000 == 7) {
			pm4_ib(&b, CMD_IOVA, ib_dw);
		} else {
			pm4_nop(&b, 0);
		}
	}
	struct ferry_msm_submit_cmd cmd;
	struct pm4v_submit sub;
	validate_whole(&h, &b, &cmd, relocs, nr, &sub);
	struct pm4v_shadow_allocator a = { harness_alloc, &h };
	struct pm4v_result whole = h.res;
	uint32_t used = h.pool_used;
	uint8_t *pool = malloc(used);
	REQUIRE(pool);
	memcpy(pool, h.pool, used);

	memset(h.pool, 0, POOL_SIZE);
	h.pool_used = 0;
	int r, calls = 0;
	while ((r = pm4v_validate_step(h.v, &sub, &a, 1000, &h.res, &h.err)) == 1) {
		calls++;
		CHECK(pm4v_validate_in_progress(h.v));
	}
	CHECK_EQ(r, 0);
	CHECK(calls > 500);
	CHECK(!pm4v_validate_in_progress(h.v));
	CHECK_EQ(h.pool_used, used);
	CHECK(memcmp(h.pool, pool, used) == 0);
	CHECK_EQ(h.res.nr_cmds, whole.nr_cmds);
	CHECK_EQ(h.res.nr_streams, whole.nr_streams);
	CHECK_EQ(h.res.dwords, whole.dwords);
	CHECK_EQ(h.res.relocs_applied, whole.relocs_applied);
	CHECK_EQ(h.res.relocs_applied, nr);

	/* Stopped half-way and cancelled, then whole again: as if never started. */
	for (int i = 0; i < 50; i++)
		REQUIRE(pm4v_validate_step(h.v, &sub, &a, 1000, &h.res, &h.err) == 1);
	pm4v_validate_cancel(h.v);
	h.pool_used = 0;
	REQUIRE(pm4v_validate(h.v, &sub, &a, &h.res, &h.err) == 0);
	CHECK(memcmp(h.pool, pool, used) == 0);
	free(pool);
	harness_fini(&h);
}

/* Packets of every size laid over the boundaries of the chunks an unbudgeted walk copies in
 * (big NOPs, register bursts, relocated writes, a skip over several chunks): validated whole
 * they give the shadow stepped validation gives, and a packet that overruns the stream or a
 * skip that lands inside a packet far past the first chunk is refused where it is. */
static void test_chunk_boundaries(void)
{
	struct harness h;
	harness_init(&h);
	enum { DW = 200000 };
	struct pm4_builder b;
	pm4_builder_init(&b, h.mem[BO_DATA], DW);
	struct ferry_msm_submit_reloc relocs[64];
	uint32_t nr = 0, vals[127] = { 0 };
	srand(7);
	while (b.len < DW - 20000) {
		switch (rand() % 5) {
		case 0:
			pm4_nop(&b, (uint32_t)rand() % 0x4000u); /* up to the longest packet */
			break;
		case 1:
			pm4_pkt4(&b, 0x8800, vals, 1u + (uint32_t)rand() % 127u);
			break;
		case 2:
			if (nr < 64) {
				uint32_t at = b.len;
				pm4_mem_write(&b, 0, (const uint32_t[]){ at }, 1);
				relocs[nr++] = (struct ferry_msm_submit_reloc){ .submit_offset = (at + 1) * 4,
										.bo_index = BO_DATA, .bo_offset = 64 };
				relocs[nr++] = (struct ferry_msm_submit_reloc){ .submit_offset = (at + 2) * 4,
										.bo_index = BO_DATA, .bo_offset = 64,
										.shift = -32 };
			}
			break;
		case 3: {
			uint32_t skip = 3000u + (uint32_t)rand() % 3000u, end = b.len + 7u + skip;
			PM4_PKT7(&b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA), HI(DATA_IOVA), 0, skip);
			while (b.len < end) /* whole packets up to the target */
				pm4_nop(&b, end - b.len - 1u < 300u ? end - b.len - 1u : (uint32_t)rand() % 300u);
			break;
		}
		default:
			pm4_wait_for_idle(&b);
			break;
		}
	}
	struct ferry_msm_submit_cmd cmd;
	struct pm4v_submit sub;
	validate_whole(&h, &b, &cmd, relocs, nr, &sub);
	struct pm4v_shadow_allocator a = { harness_alloc, &h };
	uint32_t used = h.pool_used;
	uint32_t *shadow = malloc(b.len * 4u);
	REQUIRE(shadow);
	memcpy(shadow, h.pool, b.len * 4u);
	CHECK_EQ(h.res.relocs_applied, nr);
	REQUIRE(nr > 0);
	CHECK(memcmp(shadow, h.mem[BO_DATA], relocs[0].submit_offset) == 0); /* the copy, up to a reloc */
	memset(h.pool, 0, POOL_SIZE);
	h.pool_used = 0;
	int r;
	while ((r = pm4v_validate_step(h.v, &sub, &a, 700, &h.res, &h.err)) == 1)
		;
	CHECK_EQ(r, 0);
	CHECK_EQ(h.pool_used, used);
	CHECK(memcmp(h.pool, shadow, b.len * 4u) == 0);
	free(shadow);

	/* The last packet claims one dword more than the stream holds. */
	uint32_t *d = h.mem[BO_DATA];
	uint32_t last = b.len;
	pm4_nop(&b, 5000);
	REQUIRE(pm4_builder_ok(&b));
	cmd.size = (b.len - 1u) * 4u;
	h.pool_used = 0;
	CHECK_EQ(pm4v_validate(h.v, &sub, &a, &h.res, &h.err), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_COUNT_OVERRUN);
	CHECK_EQ(h.err.offset, last * 4ull);

	/* A skip that resumes one dword into a NOP straddling a chunk boundary. */
	pm4_builder_init(&b, d, DW);
	pm4_nop(&b, 5000);
	PM4_PKT7(&b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA), HI(DATA_IOVA), 0, 2000 + 2);
	pm4_nop(&b, 2000);
	pm4_nop(&b, 3000);
	REQUIRE(pm4_builder_ok(&b));
	cmd.size = b.len * 4u;
	sub.nr_relocs = 0;
	h.pool_used = 0;
	CHECK_EQ(pm4v_validate(h.v, &sub, &a, &h.res, &h.err), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_COND_SKIP);
	CHECK_EQ(h.err.offset, 5001ull * 4u);
	harness_fini(&h);
}

int main(void)
{
	RUN_TEST(test_relocs_into_shadow);
	RUN_TEST(test_steps_equal_whole);
	RUN_TEST(test_chunk_boundaries);
	RUN_TEST(test_reloc_errors);
	RUN_TEST(test_targets_rewritten);
	RUN_TEST(test_toctou);
	RUN_TEST(test_cmd_types_and_target_relocs);
	RUN_TEST(test_chain_cycle);
	RUN_TEST(test_reuse);
	return test_finish();
}
