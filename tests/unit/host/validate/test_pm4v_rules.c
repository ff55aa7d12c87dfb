/* Every rule of the PM4 validator, each with an accepting and a rejecting stream: headers,
 * counts, targets, depth, privileged packets, protected registers, memory operands, draw state,
 * conditional skips, limits, input checks, overflow edges and the error message. */
#include "ferry/hw/a6xx_regs.h"
#include "pm4v_harness.h"

static void raw(struct harness *h, uint32_t dw) { h->b.buf[h->b.len++] = dw; }

/* A stream at IB2 level for targets: bo1 holds it from offset 0. */
static uint32_t put_cmd2(struct harness *h, const uint32_t *dws, uint32_t n)
{
	memcpy(h->mem[BO_CMD2], dws, n * 4u);
	return n;
}

static void test_accept_plain_stream(void)
{
	struct harness h;
	harness_init(&h);
	pm4_nop(&h.b, 2);
	PM4_PKT4(&h.b, 0x8800, 0x10, 0x20); /* RB context registers: not protected */
	pm4_wait_for_idle(&h.b);
	pm4_event_write(&h.b, CACHE_INVALIDATE);
	PM4_PKT7(&h.b, 0x7a, 1, 2, 3); /* unknown to ferry: passes */
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_cmds, 1);
	CHECK_EQ(h.res.cmds[0].size, pm4_builder_bytes(&h.b));
	CHECK_EQ(h.res.cmds[0].type, MSM_SUBMIT_CMD_BUF);
	CHECK(memcmp(shadow_ptr(&h, h.res.cmds[0].iova), h.mem[BO_CMD], pm4_builder_bytes(&h.b)) == 0);
	CHECK_EQ(h.res.nr_streams, 1);
	CHECK_EQ(h.res.dwords, h.b.len);
	harness_fini(&h);
}

static void test_bad_type(void)
{
	struct harness h;
	harness_init(&h);
	pm4_nop(&h.b, 1);
	raw(&h, 0x80000000u); /* type 2 */
	EXPECT_RULE(&h, PM4V_ERR_BAD_TYPE);
	CHECK_EQ(h.err.offset, 8);
	harness_reset(&h);
	raw(&h, 0x00000000u); /* type 0 */
	EXPECT_RULE(&h, PM4V_ERR_BAD_TYPE);
	harness_reset(&h);
	raw(&h, 0xc0001000u); /* type 3 (a5xx-): not on a6xx */
	EXPECT_RULE(&h, PM4V_ERR_BAD_TYPE);
	harness_fini(&h);
}

static void test_parity(void)
{
	struct harness h;
	harness_init(&h);
	raw(&h, pm4_type7_hdr(CP_NOP, 1) ^ (1u << 15)); /* count parity flipped */
	raw(&h, 0);
	EXPECT_RULE(&h, PM4V_ERR_PARITY);
	harness_reset(&h);
	raw(&h, pm4_type7_hdr(CP_NOP, 1) ^ (1u << 23)); /* opcode parity flipped */
	raw(&h, 0);
	EXPECT_RULE(&h, PM4V_ERR_PARITY);
	harness_reset(&h);
	raw(&h, pm4_type4_hdr(0x8800, 1) ^ (1u << 27)); /* register parity flipped */
	raw(&h, 0);
	EXPECT_RULE(&h, PM4V_ERR_PARITY);
	harness_reset(&h);
	raw(&h, pm4_type4_hdr(0x8800, 1) ^ (1u << 7));
	raw(&h, 0);
	EXPECT_RULE(&h, PM4V_ERR_PARITY);
	harness_fini(&h);
}

static void test_count_past_end(void)
{
	struct harness h;
	harness_init(&h);
	pm4_nop(&h.b, 3);
	EXPECT_OK(&h); /* exactly fills the cmd */

	/* The same packet in a cmd one dword shorter: the count runs past the end. */
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, 12 };
	CHECK_EQ(harness_submit(&h, &cmd, 1, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_COUNT_OVERRUN);

	harness_reset(&h);
	raw(&h, pm4_type4_hdr(0x8800, 4));
	raw(&h, 1);
	EXPECT_RULE(&h, PM4V_ERR_COUNT_OVERRUN);

	harness_reset(&h);
	raw(&h, pm4_type7_hdr(CP_NOP, PM4_TYPE7_MAX_COUNT)); /* largest count, nothing after */
	EXPECT_RULE(&h, PM4V_ERR_COUNT_OVERRUN);

	/* Count 0: a header alone (Turnip's SP_FS_OUTPUT_REG for a fragment shader without outputs),
	 * then the next packet; not at a protected register. */
	harness_reset(&h);
	raw(&h, pm4_type4_hdr(0xa98e, 0));
	pm4_nop(&h.b, 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	raw(&h, pm4_type4_hdr(0x0800, 0));
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	harness_fini(&h);
}

static void test_ib_targets(void)
{
	struct harness h;
	harness_init(&h);
	uint32_t nop[4] = { pm4_type7_hdr(CP_NOP, 3), 0, 0, 0 };
	uint32_t n = put_cmd2(&h, nop, 4);

	pm4_ib(&h.b, CMD2_IOVA, n);
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_streams, 2);

	harness_reset(&h);
	pm4_ib(&h.b, FOREIGN_IOVA, 4); /* another context's range */
	EXPECT_RULE(&h, PM4V_ERR_TARGET);
	CHECK_EQ(h.err.addr, FOREIGN_IOVA);

	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA + CMD_SIZE - 8, 4); /* straddles bo1's end (bo1 is followed by a gap) */
	EXPECT_RULE(&h, PM4V_ERR_TARGET);

	harness_reset(&h);
	pm4_ib(&h.b, CMD_IOVA + CMD_SIZE - 8, 4); /* bo0 ends where bo1 starts: still two BOs */
	EXPECT_RULE(&h, PM4V_ERR_TARGET);

	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA + 2, 2); /* not dword aligned */
	EXPECT_RULE(&h, PM4V_ERR_TARGET);

	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA, 0); /* empty IB: nothing fetched, nothing copied */
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_streams, 1);

	/* A BO the host cannot read cannot hold commands. */
	harness_reset(&h);
	h.bos[BO_CMD2].map = NULL;
	pm4_ib(&h.b, CMD2_IOVA, 4);
	EXPECT_RULE(&h, PM4V_ERR_TARGET);
	h.bos[BO_CMD2].map = h.mem[BO_CMD2];

	harness_reset(&h);
	raw(&h, pm4_type7_hdr(CP_INDIRECT_BUFFER, 2)); /* IB without its size dword */
	raw(&h, LO(CMD2_IOVA));
	raw(&h, HI(CMD2_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	harness_fini(&h);
}

static void test_ib_size_limit(void)
{
	struct harness h;
	harness_init(&h);
	/* 0xFFFFF dwords of NOPs in the 4 MiB data BO: the largest IB is accepted. */
	uint32_t total = 0xfffffu, at = 0;
	while (at < total) {
		uint32_t cnt = total - at - 1 > PM4_TYPE7_MAX_COUNT ? PM4_TYPE7_MAX_COUNT : total - at - 1;
		h.mem[BO_DATA][at] = pm4_type7_hdr(CP_NOP, cnt);
		at += 1 + cnt;
	}
	pm4_ib(&h.b, DATA_IOVA, total);
	EXPECT_OK(&h);
	CHECK_EQ(h.res.dwords, total + h.b.len);

	harness_reset(&h);
	PM4_PKT7(&h.b, CP_INDIRECT_BUFFER, LO(DATA_IOVA), HI(DATA_IOVA), 0x100000u);
	EXPECT_RULE(&h, PM4V_ERR_IB_SIZE);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_INDIRECT_BUFFER, LO(DATA_IOVA), HI(DATA_IOVA), 0xffffffffu);
	EXPECT_RULE(&h, PM4V_ERR_IB_SIZE);

	/* A top-level cmd above the IB size limit is refused before any walk. */
	struct ferry_msm_submit_cmd big = { MSM_SUBMIT_CMD_BUF, BO_DATA, 0, DATA_SIZE };
	CHECK_EQ(harness_submit(&h, &big, 1, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_IB_SIZE);
	harness_fini(&h);
}

static void test_nesting_depth(void)
{
	struct harness h;
	harness_init(&h);
	/* bo1: an IB2 that itself calls an IB: IB3 does not exist on a6xx. */
	uint32_t ib2[8] = { pm4_type7_hdr(CP_INDIRECT_BUFFER, 3), LO(CMD2_IOVA + 0x100),
			    HI(CMD2_IOVA + 0x100), 2, pm4_type7_hdr(CP_NOP, 0) };
	put_cmd2(&h, ib2, 5);
	h.mem[BO_CMD2][0x40] = pm4_type7_hdr(CP_NOP, 1);
	pm4_ib(&h.b, CMD2_IOVA + 16, 1); /* just the NOP: fine */
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA, 5);
	EXPECT_RULE(&h, PM4V_ERR_DEPTH);
	CHECK_EQ(h.err.level, 2);
	CHECK_EQ(h.err.bo_id, h.bos[BO_CMD2].id);
	CHECK_EQ(h.err.offset, 0);

	/* A CHAIN stays at its level, so an IB2 may chain to another IB2. */
	uint32_t chain[4] = { pm4_type7_hdr(CP_INDIRECT_BUFFER_CHAIN, 3), LO(CMD2_IOVA + 0x100),
			      HI(CMD2_IOVA + 0x100), 2 };
	put_cmd2(&h, chain, 4);
	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA, 4);
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_streams, 3);

	/* A chain must end its stream: the CP never comes back to what follows (fuzz finding,
	 * tests/fuzz/regress/pm4/chain-not-last). */
	uint32_t chain_then[5] = { pm4_type7_hdr(CP_INDIRECT_BUFFER_CHAIN, 3), LO(CMD2_IOVA + 0x100),
				   HI(CMD2_IOVA + 0x100), 2, pm4_type7_hdr(CP_NOP, 0) };
	put_cmd2(&h, chain_then, 5);
	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA, 5);
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);

	/* With a policy of depth 1, even IB2 is refused. */
	struct pm4v_policy p;
	pm4v_policy_a6xx(&p, 630);
	p.max_ib_depth = 1;
	struct harness h1;
	harness_init_policy(&h1, &p);
	pm4_ib(&h1.b, CMD2_IOVA + 16, 1);
	EXPECT_RULE(&h1, PM4V_ERR_DEPTH);
	harness_fini(&h1);
	harness_fini(&h);
}

static void test_privileged_packets(void)
{
	static const uint32_t denied[] = {
		CP_SMMU_TABLE_UPDATE, CP_SET_PROTECTED_MODE, CP_SET_SECURE_MODE, CP_BOOTSTRAP_UCODE,
		CP_ME_INIT, CP_CONTEXT_SWITCH, CP_WHERE_AM_I, CP_REG_WR_NO_CTXT, CP_START_BIN,
	};
	struct harness h;
	harness_init(&h);
	for (unsigned i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		harness_reset(&h);
		pm4_nop(&h.b, 0);
		PM4_PKT7(&h.b, denied[i], 0, 0, 0, 0);
		EXPECT_RULE(&h, PM4V_ERR_PRIVILEGED);
		CHECK_EQ(h.err.opcode, denied[i]);
		CHECK_EQ(h.err.pkt_type, 7);
		CHECK_EQ(h.err.offset, 4);
	}

	/* CP_SET_AMBLE: the KMD type is the kernel's; a user preamble is followed like an IB. */
	uint32_t pre[2] = { pm4_type7_hdr(CP_NOP, 1), 0 };
	put_cmd2(&h, pre, 2);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_AMBLE, LO(CMD2_IOVA), HI(CMD2_IOVA), 2u | (3u << 20));
	EXPECT_RULE(&h, PM4V_ERR_PRIVILEGED);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_AMBLE, LO(CMD2_IOVA), HI(CMD2_IOVA), 2u | (0u << 20));
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_streams, 2);
	CHECK(dw_addr(shadow_ptr(&h, h.res.cmds[0].iova) + 1) >= POOL_IOVA);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_AMBLE, LO(FOREIGN_IOVA), HI(FOREIGN_IOVA), 2u | (2u << 20));
	EXPECT_RULE(&h, PM4V_ERR_TARGET);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_AMBLE, 0, 0, 0); /* disables the amble */
	EXPECT_OK(&h);

	/* CP_SET_PSEUDO_REG: preemption records are the kernel's; VSC / bindless ones are not. */
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_PSEUDO_REG, 8, LO(DATA_IOVA), HI(DATA_IOVA));
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_PSEUDO_REG, 8, 0, 0, 1 /* NON_SECURE_SAVE_ADDR */, 0, 0);
	EXPECT_RULE(&h, PM4V_ERR_PRIVILEGED);

	/* CP_SET_MARKER: render modes pass, the kernel's IB1LIST markers do not. */
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_MARKER, 4 /* RM6_BIN_RENDER_START */);
	PM4_PKT7(&h.b, CP_SET_MARKER, 0x101 /* IFPC disable */);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_MARKER, 13 /* RM6_IB1LIST_START */);
	EXPECT_RULE(&h, PM4V_ERR_PRIVILEGED);
	harness_fini(&h);

	/* The deny list is policy: lifting CP_WHERE_AM_I lets it through. */
	struct pm4v_policy p;
	pm4v_policy_a6xx(&p, 630);
	pm4v_policy_deny(&p, CP_WHERE_AM_I, false);
	harness_init_policy(&h, &p);
	PM4_PKT7(&h.b, CP_WHERE_AM_I, 0, 0);
	EXPECT_OK(&h);
	harness_fini(&h);
}

static void test_protected_registers(void)
{
	struct harness h;
	harness_init(&h);
	PM4_PKT4(&h.b, 0x8600, 1, 2, 3);     /* ends before 0x8630 */
	PM4_PKT4(&h.b, 0x0883, 5);           /* CP_SCRATCH_REG(0): not protected */
	EXPECT_OK(&h);

	harness_reset(&h);
	PM4_PKT4(&h.b, 0x0800, 1);           /* CP range, NORDWR */
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	CHECK_EQ(h.err.reg, 0x800);
	CHECK_EQ(h.err.pkt_type, 4);

	harness_reset(&h);
	uint32_t vals[0x20] = { 0 };
	pm4_pkt4(&h.b, 0x8620, vals, 0x20);  /* 0x8620..0x863f runs into 0x8630 */
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	CHECK_EQ(h.err.reg, 0x8630);

	harness_reset(&h);
	PM4_PKT4(&h.b, 0x0000, 1);           /* RBBM, write-protected (RDONLY) */
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);

	harness_reset(&h);
	PM4_PKT4(&h.b, 0x12000, 1);          /* beyond a630's last, unbounded entry */
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);

	/* CP_REG_RMW: destination read and written, register sources read. */
	harness_reset(&h);
	PM4_PKT4(&h.b, 0x8800, 0);
	PM4_PKT7(&h.b, CP_REG_RMW, 0x8800, 0xffff, 0x1);
	PM4_PKT7(&h.b, CP_REG_RMW, 0x8800 | (1u << 31), 0x0980 /* RDONLY: readable */, 0x1);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_RMW, 0x0800, 0xffff, 0x1);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	harness_reset(&h);
	PM4_PKT4(&h.b, 0x8800, 0);
	PM4_PKT7(&h.b, CP_REG_RMW, 0x8800 | (1u << 31), 0x0900 /* NORDWR */, 0x1);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);

	/* CP_MEM_TO_REG writes registers. */
	harness_reset(&h);
	pm4_mem_to_reg(&h.b, 0x8800, 4, DATA_IOVA);
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_mem_to_reg(&h.b, 0x087e, 4, DATA_IOVA); /* 0x87e..0x881 */
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	CHECK_EQ(h.err.reg, 0x87e);

	/* CP_REG_WRITE and CP_SCRATCH_TO_REG. */
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_WRITE, 2, 0x8801, 0x10);
	PM4_PKT7(&h.b, CP_SCRATCH_TO_REG, 0x8800 | (1u << 24));
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_WRITE, 2, 0x050e, 0x10);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SCRATCH_TO_REG, 0x0880 | (3u << 24)); /* 0x880..0x883 */
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);

	/* Reads: CP_REG_TO_MEM of a readable counter passes, of a NORDWR register does not. */
	harness_reset(&h);
	pm4_reg_to_mem(&h.b, 0x0980, 2, DATA_IOVA, true);
	pm4_wait_reg(&h.b, WRITE_EQ, 0x0980, 1, 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_reg_to_mem(&h.b, 0x0900, 1, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	harness_reset(&h);
	pm4_wait_reg(&h.b, WRITE_EQ, 0x0901, 1, 1);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	harness_fini(&h);

	/* The a660 table differs: 0x12000 is not protected there. */
	struct pm4v_policy p;
	pm4v_policy_a6xx(&p, 660);
	harness_init_policy(&h, &p);
	PM4_PKT4(&h.b, 0x12000, 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT4(&h.b, 0x1f8c0 + 0x100, 1); /* a660's unbounded last entry */
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	harness_fini(&h);
}

/* For each memory operand: inside a BO passes; one byte past the BO end or in another
 * context's range is refused. */
/* Registers keep the last context's values (the kernel resets nothing between processes), so
 * every packet that reads a register by number may read only what this submit wrote before it
 * in execution order, GPU-global counters, and write-protected registers; read-protected ones
 * never - whatever the packet (issue: CP_REG_TO_MEM of 0x883 / 0xa800 left by another client,
 * CP_COND_WRITE5 POLL_SCRATCH copying CP_IB1_BASE out). */
static void test_register_reads(void)
{
	struct harness h;
	harness_init(&h);
	uint32_t nop[4] = { pm4_type7_hdr(CP_NOP, 3), 0, 0, 0 };
	const uint32_t poll_scratch = CP_WAIT_REG_MEM_0_FUNCTION(WRITE_EQ) | CP_WAIT_REG_MEM_0_POLL(POLL_SCRATCH);
	const uint32_t poll_on_chip = CP_WAIT_REG_MEM_0_FUNCTION(WRITE_EQ) | CP_WAIT_REG_MEM_0_POLL(POLL_ON_CHIP);

	/* Not written by this submit: refused, by every reading packet. */
	harness_reset(&h);
	pm4_reg_to_mem(&h.b, 0x0883, 1, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	CHECK_EQ(h.err.reg, 0x883);
	harness_reset(&h);
	pm4_reg_to_mem(&h.b, 0xa800, 1, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_WRITE5, poll_scratch | CP_WAIT_REG_MEM_0_WRITE_MEMORY, 0x0883, 0, 0, 0,
		 LO(DATA_IOVA), HI(DATA_IOVA), 1);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_TO_SCRATCH, 0xa800);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_TO_MEM_OFFSET_REG, CP_REG_TO_MEM_0_REG(0xa800), LO(DATA_IOVA), HI(DATA_IOVA),
		 CP_REG_TO_MEM_OFFSET_REG_3_SCRATCH);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_TO_MEM_OFFSET_MEM, CP_REG_TO_MEM_0_REG(0xa800), LO(DATA_IOVA), HI(DATA_IOVA),
		 LO(DATA_IOVA), HI(DATA_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_TEST, 0xa800);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_WAIT_TWO_REGS, 0xa800, 0xa801, 0);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);

	/* Read-protected: refused whichever source the poll names (the CP model reads dw1 as a
	 * register for SCRATCH and ON_CHIP too). */
	const uint32_t prot[] = { 0x0800, 0x0928 /* CP_IB1_BASE: a host-private shadow address */ };
	for (unsigned i = 0; i < 2; i++) {
		harness_reset(&h);
		PM4_PKT7(&h.b, CP_COND_WRITE5, poll_scratch | CP_WAIT_REG_MEM_0_WRITE_MEMORY, prot[i], 0, 0, 0,
			 LO(DATA_IOVA), HI(DATA_IOVA), 1);
		EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
		CHECK_EQ(h.err.reg, prot[i]);
		harness_reset(&h);
		PM4_PKT7(&h.b, CP_WAIT_REG_MEM, poll_scratch, prot[i], 0, 1, ~0u, 0);
		EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
		harness_reset(&h);
		PM4_PKT7(&h.b, CP_WAIT_REG_MEM, poll_on_chip, prot[i], 0, 1, ~0u, 0);
		EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
		harness_reset(&h);
		PM4_PKT7(&h.b, CP_REG_TO_MEM_OFFSET_REG, CP_REG_TO_MEM_0_REG(prot[i]), LO(DATA_IOVA),
			 HI(DATA_IOVA), CP_REG_TO_MEM_OFFSET_REG_3_SCRATCH);
		EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	}

	/* Written first in the same stream, a counter, or write-protected (RBBM perf counters): ok. */
	harness_reset(&h);
	PM4_PKT4(&h.b, 0xa800, 1, 2);
	PM4_PKT4(&h.b, 0x0883, 3);
	pm4_reg_to_mem(&h.b, 0xa800, 2, DATA_IOVA, false);
	PM4_PKT7(&h.b, CP_COND_WRITE5, poll_scratch | CP_WAIT_REG_MEM_0_WRITE_MEMORY, 0x0883, 0, 0, 0,
		 LO(DATA_IOVA), HI(DATA_IOVA), 1);
	pm4_reg_to_mem(&h.b, REG_A6XX_CP_ALWAYS_ON_COUNTER, 2, DATA_IOVA, true);
	pm4_reg_to_mem(&h.b, 0x0400, 8, DATA_IOVA, true);
	EXPECT_OK(&h);
	/* A range is allowed only if every register in it is. */
	harness_reset(&h);
	PM4_PKT4(&h.b, 0xa800, 1);
	pm4_reg_to_mem(&h.b, 0xa800, 2, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	CHECK_EQ(h.err.reg, 0xa801);
	/* Before its write in execution order: refused. */
	harness_reset(&h);
	pm4_reg_to_mem(&h.b, 0xa800, 1, DATA_IOVA, false);
	PM4_PKT4(&h.b, 0xa800, 1);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	/* A write the CP may skip does not count: inside a conditional range, or a COND_WRITE5
	 * register write (only done when its test passes). */
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, CP_COND_REG_EXEC_0_MODE(RENDER_MODE) | CP_COND_REG_EXEC_0_GMEM, 2);
	PM4_PKT4(&h.b, 0xa800, 1);
	pm4_reg_to_mem(&h.b, 0xa800, 1, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_WRITE5, CP_WAIT_REG_MEM_0_FUNCTION(WRITE_EQ) | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY),
		 LO(DATA_IOVA), HI(DATA_IOVA), 0, ~0u, 0xa800, 0, 1);
	pm4_reg_to_mem(&h.b, 0xa800, 1, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);

	/* Across streams: an IB2 may read what its IB1 wrote before calling it and what it wrote
	 * itself; not what the IB1 writes after the call, nor may the IB1 read what an IB2 wrote
	 * (an IB2 may be skipped). */
	uint32_t ib2[8];
	uint32_t n = 0;
	ib2[n++] = pm4_type7_hdr(CP_REG_TO_MEM, 3);
	ib2[n++] = CP_REG_TO_MEM_0_REG(0xa800) | CP_REG_TO_MEM_0_CNT(1);
	ib2[n++] = LO(DATA_IOVA);
	ib2[n++] = HI(DATA_IOVA);
	put_cmd2(&h, ib2, n);
	harness_reset(&h);
	PM4_PKT4(&h.b, 0xa800, 1);
	pm4_ib(&h.b, CMD2_IOVA, n);
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA, n);
	PM4_PKT4(&h.b, 0xa800, 1);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	n = 0;
	ib2[n++] = pm4_type4_hdr(0xa900, 1);
	ib2[n++] = 7;
	ib2[n++] = pm4_type7_hdr(CP_REG_TO_MEM, 3);
	ib2[n++] = CP_REG_TO_MEM_0_REG(0xa900) | CP_REG_TO_MEM_0_CNT(1);
	ib2[n++] = LO(DATA_IOVA);
	ib2[n++] = HI(DATA_IOVA);
	put_cmd2(&h, ib2, n);
	harness_reset(&h);
	pm4_ib(&h.b, CMD2_IOVA, n);
	EXPECT_OK(&h);
	pm4_reg_to_mem(&h.b, 0xa900, 1, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	/* More writes before the reads than an IB2 keeps pending (pm4_stream.c): the first and the
	 * last still count, a register written only after the read does not. */
	for (int late = 0; late < 2; late++) {
		uint32_t ib2w[2 * 40 + 12];
		n = 0;
		for (uint32_t i = 0; i < 40; i++) {
			ib2w[n++] = pm4_type4_hdr(0xa900 + i, 1);
			ib2w[n++] = i;
		}
		uint32_t regs[3] = { 0xa900, 0xa900 + 39, late ? 0xa900 + 40 : 0xa900 + 20 };
		for (int i = 0; i < 3; i++) {
			ib2w[n++] = pm4_type7_hdr(CP_REG_TO_MEM, 3);
			ib2w[n++] = CP_REG_TO_MEM_0_REG(regs[i]) | CP_REG_TO_MEM_0_CNT(1);
			ib2w[n++] = LO(DATA_IOVA);
			ib2w[n++] = HI(DATA_IOVA);
		}
		put_cmd2(&h, ib2w, n);
		harness_reset(&h);
		pm4_ib(&h.b, CMD2_IOVA, n);
		if (late)
			EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
		else
			EXPECT_OK(&h);
	}

	/* Across top-level cmds: cmd 1 may read what cmd 0 wrote, not the other way round. */
	harness_reset(&h);
	PM4_PKT4(&h.b, 0xa800, 1);
	uint32_t first = pm4_builder_bytes(&h.b);
	pm4_reg_to_mem(&h.b, 0xa800, 1, DATA_IOVA, false);
	REQUIRE(pm4_builder_ok(&h.b));
	struct ferry_msm_submit_cmd cmds[2] = {
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, 0, first },
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, first, pm4_builder_bytes(&h.b) - first },
	};
	CHECK_EQ(harness_submit(&h, cmds, 2, NULL, 0), 0);
	struct ferry_msm_submit_cmd swapped[2] = { cmds[1], cmds[0] };
	CHECK_EQ(harness_submit(&h, swapped, 2, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_UNWRITTEN_REG);
	/* Each submit starts with nothing written. */
	harness_reset(&h);
	pm4_reg_to_mem(&h.b, 0xa800, 1, DATA_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);

	/* Validated in budgeted steps, a stream keeps what it wrote across the stops (and a
	 * chain stays a chain), and a new submit still starts with nothing written. */
	for (int order = 0; order < 2; order++) {
		/* In an IB2, where only the stream's own writes count. */
		struct pm4_builder b2;
		memset(h.mem[BO_CMD2], 0, CMD_SIZE);
		pm4_builder_init(&b2, h.mem[BO_CMD2], CMD_SIZE / 4u);
		if (order == 0)
			PM4_PKT4(&b2, 0xa800, 1);
		for (int i = 0; i < 64; i++)
			pm4_nop(&b2, 3);
		pm4_reg_to_mem(&b2, 0xa800, 1, DATA_IOVA, false);
		REQUIRE(pm4_builder_ok(&b2));
		harness_reset(&h);
		pm4_ib(&h.b, CMD2_IOVA, b2.len);
		REQUIRE(pm4_builder_ok(&h.b));
		struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, pm4_builder_bytes(&h.b) };
		struct pm4v_submit sub = {
			.bos = h.bos, .nr_bos = NR_BOS, .submit_bos = h.submit_bos, .nr_submit_bos = NR_BOS,
			.cmds = &cmd, .nr_cmds = 1,
		};
		struct pm4v_shadow_allocator a = { harness_alloc, &h };
		h.pool_used = 0;
		int r, steps = 0;
		while ((r = pm4v_validate_step(h.v, &sub, &a, 16, &h.res, &h.err)) == 1)
			steps++;
		CHECK(steps > 4);
		CHECK_EQ(r, order == 0 ? 0 : -1);
		if (order == 1)
			CHECK_EQ(h.err.rule, PM4V_ERR_UNWRITTEN_REG);
	}
	(void)nop;
	harness_fini(&h);
}

/* The memory operands of the draw packets the CP reads through (issue: CP_DRAW_INDIRECT_MULTI
 * and CP_DRAW_AUTO outside the context's BOs were accepted). */
/* The hardware binner's per-pipe results (VSC_STATE / _PRIM_STRM_SIZE / _DRAW_STRM_SIZE), as
 * Turnip's emit_vsc_overflow_test and freedreno's fd6_gmem.c read them after a binning pass:
 * readable after this submit's own binning-mode CP_SET_MODE, for a pipe whose config it wrote. */
static void vsc_overflow_test(struct harness *h, uint32_t pipe)
{
	PM4_PKT7(&h->b, CP_COND_WRITE5, CP_WAIT_REG_MEM_0_FUNCTION(WRITE_GE) | CP_WAIT_REG_MEM_0_WRITE_MEMORY,
		 REG_A6XX_VSC_DRAW_STRM_SIZE_REG(pipe), 0, 0x1000, ~0u, LO(DATA_IOVA), HI(DATA_IOVA), 0x1040);
	PM4_PKT7(&h->b, CP_COND_WRITE5, CP_WAIT_REG_MEM_0_FUNCTION(WRITE_GE) | CP_WAIT_REG_MEM_0_WRITE_MEMORY,
		 REG_A6XX_VSC_PRIM_STRM_SIZE_REG(pipe), 0, 0x1000, ~0u, LO(DATA_IOVA), HI(DATA_IOVA), 0x1040);
}

static void binning_pass(struct harness *h, uint32_t pipes)
{
	PM4_PKT7(&h->b, CP_SET_MODE, CP_SET_MODE_0_BINNING);
	uint32_t config[A6XX_VSC_PIPES] = { 0 };
	pm4_pkt4(&h->b, REG_A6XX_VSC_PIPE_CONFIG_REG(0), config, pipes);
	PM4_PKT7(&h->b, CP_NOP, 0); /* the draws */
}

static void test_binning_results(void)
{
	struct harness h;
	harness_init(&h);
	/* Turnip's order: CP_SET_MODE 1, the pipes' config, the draws, the overflow test. */
	harness_reset(&h);
	binning_pass(&h, A6XX_VSC_PIPES);
	for (uint32_t i = 0; i < A6XX_VSC_PIPES; i++)
		vsc_overflow_test(&h, i);
	PM4_PKT7(&h.b, CP_SET_MODE, 0);
	pm4_reg_to_mem(&h.b, REG_A6XX_VSC_STATE_REG(0), 1, DATA_IOVA, false);
	EXPECT_OK(&h);
	/* Without a binning pass of its own: whatever the last context's pass left. */
	harness_reset(&h);
	uint32_t config = 0;
	pm4_pkt4(&h.b, REG_A6XX_VSC_PIPE_CONFIG_REG(0), &config, 1);
	vsc_overflow_test(&h, 0);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	CHECK_EQ(h.err.reg, REG_A6XX_VSC_DRAW_STRM_SIZE_REG(0));
	/* CP_SET_MODE 0 is no binning pass. */
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_MODE, 0);
	pm4_pkt4(&h.b, REG_A6XX_VSC_PIPE_CONFIG_REG(0), &config, 1);
	vsc_overflow_test(&h, 0);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	/* A pipe the submit did not configure. */
	harness_reset(&h);
	binning_pass(&h, 2);
	vsc_overflow_test(&h, 1);
	vsc_overflow_test(&h, 2);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	CHECK_EQ(h.err.reg, REG_A6XX_VSC_DRAW_STRM_SIZE_REG(2));
	/* Read before the pass, or after a pass that may be skipped. */
	harness_reset(&h);
	vsc_overflow_test(&h, 0);
	binning_pass(&h, 1);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, CP_COND_REG_EXEC_0_MODE(RENDER_MODE) | CP_COND_REG_EXEC_0_GMEM, 2);
	PM4_PKT7(&h.b, CP_SET_MODE, CP_SET_MODE_0_BINNING);
	pm4_pkt4(&h.b, REG_A6XX_VSC_PIPE_CONFIG_REG(0), &config, 1);
	vsc_overflow_test(&h, 0);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	/* Written by the submit itself, a result reads back as any register: Turnip's GMEM pass
	 * without binning sets VSC_STATE_REG(0) to all ones, then tests its bits per tile. */
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_STATE_REG(0), 0xffffffffu);
	PM4_PKT7(&h.b, CP_REG_TEST, REG_A6XX_VSC_STATE_REG(0));
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_REG_TEST, REG_A6XX_VSC_STATE_REG(0));
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	/* a binning pass does not make a result readable for a pipe the submit did not configure,
	 * even if it configured it after the read */
	harness_reset(&h);
	binning_pass(&h, 1);
	PM4_PKT7(&h.b, CP_REG_TEST, REG_A6XX_VSC_STATE_REG(1));
	PM4_PKT4(&h.b, REG_A6XX_VSC_PIPE_CONFIG_REG(1), 0);
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	harness_fini(&h);
}

/* Memory the GPU writes at a register-programmed address, checked when a packet programs it: the
 * VSC streams (Turnip's and freedreno's update_vsc_pipe: 32 pipes; freedreno writes address, pitch
 * and limit in one packet) and the GMEM resolve destination. */
static void test_write_areas(void)
{
	struct harness h;
	harness_init(&h);
	const uint64_t end = DATA_IOVA + DATA_SIZE;
	/* 31 pitches and the last pipe's limit plus 64 bytes of overrun: exactly to the BO's end */
	uint64_t a = end - (31u * 0x1000u + 0xfc0u + 64u);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_PRIM_STRM_ADDRESS, LO(a), HI(a), 0x1000, 0xfc0);
	PM4_PKT4(&h.b, REG_A6XX_VSC_DRAW_STRM_ADDRESS, LO(a), HI(a), 0x1000, 0xfc0);
	PM4_PKT4(&h.b, REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS, LO(end - 128), HI(end - 128));
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_PRIM_STRM_ADDRESS, LO(a + 4), HI(a + 4), 0x1000, 0xfc0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	CHECK(strstr(h.err.msg, "VSC_PRIM_STRM_ADDRESS") != NULL);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_DRAW_STRM_ADDRESS, LO(a), HI(a), 0x1000, 0xfc4); /* a larger limit */
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS, LO(end - 124), HI(end - 124));
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	/* without the limit in the packet: 32 whole pitches */
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_PRIM_STRM_ADDRESS, LO(end - 0x20000), HI(end - 0x20000), 0x1000);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_PRIM_STRM_ADDRESS, LO(end - 0x1f000), HI(end - 0x1f000), 0x1000);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	/* the GPU writes there: not into a GPU-read-only BO; nor outside the context */
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS, LO(RO_IOVA), HI(RO_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_READONLY);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS, LO(FOREIGN_IOVA), HI(FOREIGN_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	/* GMEM resolves: RB_BLIT_DST and RB_BLIT_FLAG_DST, as Turnip's tu_emit_blit writes them with
	 * RB_BLIT_DST_INFO and the pitches; the start is checked */
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_RB_BLIT_DST_INFO, 0, LO(end - 1), HI(end - 1), 4, 0);
	PM4_PKT4(&h.b, REG_A6XX_RB_BLIT_FLAG_DST, LO(DATA_IOVA), HI(DATA_IOVA), 0);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_RB_BLIT_DST_INFO, 0, LO(end), HI(end), 4, 0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	CHECK(strstr(h.err.msg, "RB_BLIT_DST") != NULL);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_RB_BLIT_FLAG_DST, LO(RO_IOVA), HI(RO_IOVA), 0);
	EXPECT_RULE(&h, PM4V_ERR_READONLY);
	/* freedreno's flag address for a surface without UBWC: 0, unused; not so for the pixels */
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_RB_BLIT_FLAG_DST, 0, 0, 0);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_RB_BLIT_DST, 0, 0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	/* CP_SET_BIN_DATA5 (freedreno's per-bin visibility): three streams the CP reads */
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_BIN_DATA5, 0x10000, LO(DATA_IOVA), HI(DATA_IOVA), LO(end - 4), HI(end - 4), LO(RO_IOVA),
		 HI(RO_IOVA));
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_BIN_DATA5, 0x10000, LO(DATA_IOVA), HI(DATA_IOVA), LO(end - 3), HI(end - 3), LO(DATA_IOVA),
		 HI(DATA_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	CHECK(strstr(h.err.msg, "BIN_SIZE_ADDRESS") != NULL);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_BIN_DATA5, 0x10000, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA), HI(DATA_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	/* only the low half in this packet: not an address the validator knows */
	harness_reset(&h);
	PM4_PKT4(&h.b, REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS, LO(FOREIGN_IOVA));
	EXPECT_OK(&h);
	harness_fini(&h);
}

static void test_draw_operands(void)
{
	struct harness h;
	harness_init(&h);
	harness_reset(&h);
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 4, DATA_IOVA, 32, 0);
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 4, DATA_IOVA, 32, DATA_IOVA + 0x100);
	pm4_draw_indirect_multi_indexed(&h.b, DI_PT_TRILIST, 2, DATA_IOVA, 64, 3, DATA_IOVA + 0x200, 20, 0);
	pm4_draw_indirect_multi_indexed(&h.b, DI_PT_TRILIST, 4, DATA_IOVA, 64, 3, DATA_IOVA + 0x200, 20,
					DATA_IOVA + 0x300);
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 0, FOREIGN_IOVA, 32, 0); /* no draw: nothing read */
	pm4_draw_auto(&h.b, DI_PT_TRILIST, 1, DATA_IOVA, 0, 4);
	EXPECT_OK(&h);

	harness_reset(&h); /* the last record runs past the BO */
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 3, DATA_IOVA + DATA_SIZE - 80, 32, 0);
	EXPECT_OK(&h); /* 2 * 32 + 16 bytes: fits exactly */
	harness_reset(&h);
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 3, DATA_IOVA + DATA_SIZE - 76, 32, 0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 0xffffffffu, DATA_IOVA, 0xffffffffu, 0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 1, FOREIGN_IOVA, 16, 0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_draw_indirect_multi(&h.b, DI_PT_TRILIST, 1, DATA_IOVA, 16, FOREIGN_IOVA);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_draw_indirect_multi_indexed(&h.b, DI_PT_TRILIST, 2, FOREIGN_IOVA, 64, 1, DATA_IOVA, 20, 0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_draw_indirect_multi_indexed(&h.b, DI_PT_TRILIST, 4, DATA_IOVA + DATA_SIZE - 16, 8, 1, DATA_IOVA, 20, 0);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_draw_indirect_multi_indexed(&h.b, DI_PT_TRILIST, 2, DATA_IOVA, 64, 1, DATA_IOVA, 20, FOREIGN_IOVA);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_draw_auto(&h.b, DI_PT_TRILIST, 1, FOREIGN_IOVA, 0, 4);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h); /* shorter than its opcode's layout */
	PM4_PKT7(&h.b, CP_DRAW_INDIRECT_MULTI, 0, CP_DRAW_INDIRECT_MULTI_1_OPCODE(INDIRECT_OP_INDEXED), 1,
		 LO(DATA_IOVA), HI(DATA_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_DRAW_INDIRECT_MULTI, 0, 0x9, 1);
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	harness_fini(&h);
}

static void test_address_fields(void)
{
	const uint64_t end = DATA_IOVA + DATA_SIZE;
	struct harness h;
	harness_init(&h);

	pm4_mem_write(&h.b, end - 8, (const uint32_t[]){ 1, 2 }, 2);
	pm4_event_write_ts(&h.b, CACHE_FLUSH_TS, end - 4, 7);     /* writes the 32-bit value */
	pm4_event_write_gpu_ts(&h.b, RB_DONE_TS, end - 8);        /* writes a 64-bit timestamp */
	pm4_reg_to_mem(&h.b, 0x0980, 2, end - 8, true);
	pm4_mem_to_reg(&h.b, 0x8800, 2, end - 8);
	pm4_memcpy(&h.b, DATA_IOVA, end - 16, 4);
	pm4_wait_mem(&h.b, WRITE_GE, end - 4, 1, 0xffffffff);
	pm4_wait_mem_gte(&h.b, end - 4, 1);
	PM4_PKT7(&h.b, CP_MEM_TO_MEM, 0, LO(DATA_IOVA), HI(DATA_IOVA), LO(end - 4), HI(end - 4),
		 LO(RO_IOVA), HI(RO_IOVA));
	/* indexed draw, 16-bit indices: 4 of them end exactly at the BO end */
	PM4_PKT7(&h.b, CP_DRAW_INDX_OFFSET, (1u << 10) | 4, 1, 4, 0, LO(end - 8), HI(end - 8), 4);
	PM4_PKT7(&h.b, CP_DRAW_INDX_OFFSET, (2u << 6) | 4, 1, 3); /* auto-index: no buffer */
	PM4_PKT7(&h.b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA), HI(DATA_IOVA), 1, 0);
	EXPECT_OK(&h);

#define REJECT(rule, ...)                                                                     \
	do {                                                                                  \
		harness_reset(&h);                                                            \
		__VA_ARGS__;                                                                  \
		EXPECT_RULE(&h, rule);                                                        \
	} while (0)

	REJECT(PM4V_ERR_ADDRESS, pm4_mem_write(&h.b, end - 4, (const uint32_t[]){ 1, 2 }, 2));
	CHECK_EQ(h.err.addr, end - 4);
	REJECT(PM4V_ERR_ADDRESS, pm4_mem_write(&h.b, FOREIGN_IOVA, (const uint32_t[]){ 1 }, 1));
	REJECT(PM4V_ERR_ADDRESS, pm4_event_write_ts(&h.b, CACHE_FLUSH_TS, end, 7));
	REJECT(PM4V_ERR_ADDRESS, pm4_event_write_gpu_ts(&h.b, RB_DONE_TS, end - 4));
	REJECT(PM4V_ERR_ADDRESS, pm4_reg_to_mem(&h.b, 0x0980, 2, end - 4, false));
	REJECT(PM4V_ERR_ADDRESS, pm4_mem_to_reg(&h.b, 0x8800, 2, end - 4));
	REJECT(PM4V_ERR_ADDRESS, pm4_memcpy(&h.b, DATA_IOVA, end - 12, 4));    /* src */
	REJECT(PM4V_ERR_ADDRESS, pm4_memcpy(&h.b, end - 12, DATA_IOVA, 4));    /* dst */
	REJECT(PM4V_ERR_ADDRESS, pm4_wait_mem(&h.b, WRITE_GE, end, 1, 1));
	REJECT(PM4V_ERR_ADDRESS, PM4_PKT7(&h.b, CP_WAIT_MEM_GTE, 0, LO(end), HI(end), 1));
	REJECT(PM4V_ERR_ADDRESS, PM4_PKT7(&h.b, CP_MEM_TO_MEM, 0, LO(end), HI(end), LO(DATA_IOVA),
					  HI(DATA_IOVA)));
	REJECT(PM4V_ERR_ADDRESS, PM4_PKT7(&h.b, CP_MEM_TO_MEM, 0, LO(DATA_IOVA), HI(DATA_IOVA),
					  LO(DATA_IOVA), HI(DATA_IOVA), LO(FOREIGN_IOVA),
					  HI(FOREIGN_IOVA)));
	/* DOUBLE makes the destination 8 bytes */
	REJECT(PM4V_ERR_ADDRESS, PM4_PKT7(&h.b, CP_MEM_TO_MEM, 1u << 29, LO(end - 4), HI(end - 4),
					  LO(DATA_IOVA), HI(DATA_IOVA)));
	/* 32-bit indices: 4 of them from end - 8 overrun by 8 bytes */
	REJECT(PM4V_ERR_ADDRESS, PM4_PKT7(&h.b, CP_DRAW_INDX_OFFSET, (2u << 10) | 4, 1, 4, 0,
					  LO(end - 8), HI(end - 8), 4));
	REJECT(PM4V_ERR_MALFORMED, PM4_PKT7(&h.b, CP_DRAW_INDX_OFFSET, 4, 1, 3)); /* DMA, no base */
	REJECT(PM4V_ERR_ADDRESS, PM4_PKT7(&h.b, CP_COND_EXEC, LO(FOREIGN_IOVA), HI(FOREIGN_IOVA),
					  LO(DATA_IOVA), HI(DATA_IOVA), 1, 0));
	REJECT(PM4V_ERR_ADDRESS, PM4_PKT7(&h.b, CP_DRAW_INDIRECT, 4, LO(end - 8), HI(end - 8)));
	REJECT(PM4V_ERR_MALFORMED, PM4_PKT7(&h.b, CP_EVENT_WRITE, CACHE_FLUSH_TS, LO(DATA_IOVA)));
	REJECT(PM4V_ERR_MALFORMED, PM4_PKT7(&h.b, CP_MEM_TO_MEM, 0, LO(DATA_IOVA), HI(DATA_IOVA),
					    LO(DATA_IOVA)));
	harness_fini(&h);
}

static void test_gpu_readonly(void)
{
	struct harness h;
	harness_init(&h);
	pm4_mem_to_reg(&h.b, 0x8800, 1, RO_IOVA);   /* reading it is fine */
	pm4_memcpy(&h.b, DATA_IOVA, RO_IOVA, 4);
	pm4_wait_mem(&h.b, WRITE_EQ, RO_IOVA, 0, 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_mem_write(&h.b, RO_IOVA, (const uint32_t[]){ 1 }, 1);
	EXPECT_RULE(&h, PM4V_ERR_READONLY);
	CHECK_EQ(h.err.addr, RO_IOVA);
	harness_reset(&h);
	pm4_memcpy(&h.b, RO_IOVA, DATA_IOVA, 4);
	EXPECT_RULE(&h, PM4V_ERR_READONLY);
	harness_reset(&h);
	pm4_event_write_ts(&h.b, RB_DONE_TS, RO_IOVA, 1);
	EXPECT_RULE(&h, PM4V_ERR_READONLY);
	harness_reset(&h);
	pm4_reg_to_mem(&h.b, 0x0980, 1, RO_IOVA, false);
	EXPECT_RULE(&h, PM4V_ERR_READONLY);
	harness_fini(&h);
}

static void test_draw_state(void)
{
	struct harness h;
	harness_init(&h);
	uint32_t grp[4] = { pm4_type4_hdr(0x8800, 1), 5, pm4_type7_hdr(CP_NOP, 0) };
	put_cmd2(&h, grp, 3);
	const uint32_t en = CP_SET_DRAW_STATE_0_SYSMEM | CP_SET_DRAW_STATE_0_GMEM;
	PM4_PKT7(&h.b, CP_SET_DRAW_STATE,
		 CP_SET_DRAW_STATE_0_COUNT(3) | en | CP_SET_DRAW_STATE_0_GROUP_ID(1), LO(CMD2_IOVA),
		 HI(CMD2_IOVA),
		 /* disabled group: its address is not used, garbage is fine */
		 CP_SET_DRAW_STATE_0_DISABLE | CP_SET_DRAW_STATE_0_GROUP_ID(2), 0xdeadbeef, 0xffffffff,
		 CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS, 0, 0,
		 CP_SET_DRAW_STATE_0_COUNT(0) | CP_SET_DRAW_STATE_0_GROUP_ID(3), 0, 0);
	EXPECT_OK(&h);
	CHECK_EQ(h.res.nr_streams, 2);
	uint32_t *sh = shadow_ptr(&h, h.res.cmds[0].iova);
	uint64_t g = dw_addr(sh + 2);
	CHECK(g >= POOL_IOVA);
	CHECK(memcmp(shadow_ptr(&h, g), grp, 12) == 0);
	CHECK_EQ(dw_addr(sh + 5), 0xffffffffdeadbeefull); /* disabled group left alone */

	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_DRAW_STATE, CP_SET_DRAW_STATE_0_COUNT(3) | en, LO(FOREIGN_IOVA),
		 HI(FOREIGN_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_TARGET);

	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_DRAW_STATE, CP_SET_DRAW_STATE_0_COUNT(4) | en, LO(CMD2_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);

	/* Inside a group: no IB, no nested draw state, and the packet rules still hold. */
	uint32_t bad_ib[4] = { pm4_type7_hdr(CP_INDIRECT_BUFFER, 3), LO(CMD2_IOVA + 64),
			       HI(CMD2_IOVA + 64), 1 };
	put_cmd2(&h, bad_ib, 4);
	h.mem[BO_CMD2][16] = pm4_type7_hdr(CP_NOP, 0);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_DRAW_STATE, CP_SET_DRAW_STATE_0_COUNT(4) | en, LO(CMD2_IOVA),
		 HI(CMD2_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_DEPTH);
	CHECK(h.err.draw_state);

	uint32_t nested[4] = { pm4_type7_hdr(CP_SET_DRAW_STATE, 3), CP_SET_DRAW_STATE_0_COUNT(1) | en,
			       LO(CMD2_IOVA + 64), HI(CMD2_IOVA + 64) };
	put_cmd2(&h, nested, 4);
	EXPECT_RULE(&h, PM4V_ERR_DEPTH);

	uint32_t priv[2] = { pm4_type7_hdr(CP_SMMU_TABLE_UPDATE, 0), 0 };
	memset(h.mem[BO_CMD2], 0, 16);
	put_cmd2(&h, priv, 1);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_DRAW_STATE, CP_SET_DRAW_STATE_0_COUNT(1) | en, LO(CMD2_IOVA),
		 HI(CMD2_IOVA));
	EXPECT_RULE(&h, PM4V_ERR_PRIVILEGED);
	CHECK(strcmp(h.err.msg, "CP_SMMU_TABLE_UPDATE at bo 4 +0x0 (IB2 draw state): privileged packet") == 0);
	harness_fini(&h);
}

static void test_conditional_skips(void)
{
	struct harness h;
	harness_init(&h);
	const uint32_t render_gmem = (3u << 28) | (1u << 26);
	/* skip exactly the following 4-dword packet */
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, render_gmem, 4);
	PM4_PKT7(&h.b, CP_NOP, 0, 0, 0);
	pm4_nop(&h.b, 0);
	EXPECT_OK(&h);

	harness_reset(&h); /* resumes two dwords into the NOP's payload */
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, render_gmem, 2);
	PM4_PKT7(&h.b, CP_NOP, pm4_type7_hdr(CP_SMMU_TABLE_UPDATE, 0), 0, 0);
	pm4_nop(&h.b, 0);
	EXPECT_RULE(&h, PM4V_ERR_COND_SKIP);
	CHECK_EQ(h.err.opcode, CP_COND_REG_EXEC);
	CHECK_EQ(h.err.offset, 0);

	harness_reset(&h); /* past the end */
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, render_gmem, 5);
	PM4_PKT7(&h.b, CP_NOP, 0, 0, 0);
	EXPECT_RULE(&h, PM4V_ERR_COND_SKIP);

	harness_reset(&h); /* ends inside the last packet */
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, render_gmem, 3);
	PM4_PKT7(&h.b, CP_NOP, 0, 0, 0);
	EXPECT_RULE(&h, PM4V_ERR_COND_SKIP);

	harness_reset(&h); /* REG_COMPARE: DWORDS in dw2, both registers read */
	PM4_PKT4(&h.b, 0x8800, 0, 0);
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, (2u << 28) | 0x8800, 0x8801, 1);
	pm4_nop(&h.b, 0);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT4(&h.b, 0x8800, 0);
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, (2u << 28) | 0x8800, 0x0900, 1);
	pm4_nop(&h.b, 0);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);

	harness_reset(&h); /* CP_COND_EXEC: DWORDS is dw5 */
	PM4_PKT7(&h.b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA + 4),
		 HI(DATA_IOVA + 4), 1, 2);
	pm4_nop(&h.b, 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA + 4),
		 HI(DATA_IOVA + 4), 1, 1);
	pm4_nop(&h.b, 1);
	EXPECT_RULE(&h, PM4V_ERR_COND_SKIP);

	harness_reset(&h); /* unknown compare mode */
	PM4_PKT7(&h.b, CP_COND_REG_EXEC, 9u << 28, 0);
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	harness_fini(&h);
}

static void test_error_message(void)
{
	struct harness h;
	harness_init(&h);
	pm4_nop(&h.b, 15); /* 16 dwords: the next header is at +0x40 */
	PM4_PKT7(&h.b, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0);
	EXPECT_RULE(&h, PM4V_ERR_PRIVILEGED);
	CHECK(strcmp(h.err.msg, "CP_SMMU_TABLE_UPDATE at bo 3 +0x40 (IB1): privileged packet") == 0);
	CHECK_EQ(h.err.bo_id, 3);
	CHECK_EQ(h.err.offset, 0x40);
	CHECK_EQ(h.err.level, 1);

	harness_reset(&h);
	PM4_PKT4(&h.b, 0x0800, 1);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	CHECK(strcmp(h.err.msg, "PKT4 0x00800 at bo 3 +0x0 (IB1): protected register: write to 0x00800") == 0);

	harness_reset(&h);
	pm4_mem_write(&h.b, FOREIGN_IOVA, (const uint32_t[]){ 1 }, 1);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	CHECK(strcmp(h.err.msg, "CP_MEM_WRITE at bo 3 +0x0 (IB1): address outside the context's BOs: "
				"ADDR 0x100600000 + 0x4") == 0);
	harness_fini(&h);
}

static void test_limits_and_shadow_failure(void)
{
	struct pm4v_policy p;
	pm4v_policy_a6xx(&p, 630);
	p.max_walk_dwords = 8;
	struct harness h;
	harness_init_policy(&h, &p);
	pm4_nop(&h.b, 6);
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_nop(&h.b, 8);
	EXPECT_RULE(&h, PM4V_ERR_LIMIT);
	harness_fini(&h);

	pm4v_policy_a6xx(&p, 630);
	p.max_targets = 2;
	harness_init_policy(&h, &p);
	h.mem[BO_CMD2][0] = pm4_type7_hdr(CP_NOP, 0);
	h.mem[BO_CMD2][1] = pm4_type7_hdr(CP_NOP, 0);
	pm4_ib(&h.b, CMD2_IOVA, 1);
	pm4_ib(&h.b, CMD2_IOVA, 1); /* same target: no new stream */
	EXPECT_OK(&h);
	pm4_ib(&h.b, CMD2_IOVA + 4, 1);
	EXPECT_RULE(&h, PM4V_ERR_LIMIT);

	harness_reset(&h);
	pm4_nop(&h.b, 0);
	h.fail_alloc = true;
	EXPECT_RULE(&h, PM4V_ERR_SHADOW);
	harness_fini(&h);
}

static void test_input_checks(void)
{
	struct harness h;
	harness_init(&h);
	pm4_nop(&h.b, 0);
	struct ferry_msm_submit_cmd c = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, 4 };
	CHECK_EQ(harness_submit(&h, &c, 1, NULL, 0), 0);

	struct ferry_msm_submit_cmd bad[] = {
		{ 7, BO_CMD, 0, 4 },                                    /* type */
		{ MSM_SUBMIT_CMD_BUF, NR_BOS, 0, 4 },                   /* bo index */
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, 0, 0 },                   /* empty */
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, 0, 6 },                   /* not whole dwords */
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, 2, 4 },                   /* misaligned */
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, CMD_SIZE - 4, 8 },        /* past the BO end */
		{ MSM_SUBMIT_CMD_BUF, BO_CMD, 0xfffffffcu, 8 },         /* offset + size wraps u32 */
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(harness_submit(&h, &bad[i], 1, NULL, 0), -1);
		CHECK_EQ(h.err.rule, PM4V_ERR_CMD);
	}

	/* BO table out of order, overlapping, or wrapping around 2^64. */
	struct pm4v_bo saved = h.bos[BO_CMD2];
	h.bos[BO_CMD2].iova = CMD_IOVA + 0x1000;
	CHECK_EQ(harness_submit(&h, &c, 1, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_INPUT);
	h.bos[BO_CMD2] = saved;
	h.submit_bos[BO_RO] = 99;
	CHECK_EQ(harness_submit(&h, &c, 1, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_INPUT);
	h.submit_bos[BO_RO] = BO_RO;
	h.bos[BO_RO].size = UINT64_MAX - RO_IOVA + 2;
	CHECK_EQ(harness_submit(&h, &c, 1, NULL, 0), -1);
	CHECK_EQ(h.err.rule, PM4V_ERR_INPUT);
	h.bos[BO_RO].size = RO_SIZE;
	CHECK_EQ(harness_submit(&h, &c, 1, NULL, 0), 0);
	harness_fini(&h);
}

/* A BO at the very top of the address space: ranges ending exactly at 2^64 are inside, one
 * dword more wraps and is refused; huge counts do not overflow. */
static void test_overflow_edges(void)
{
	struct harness h;
	harness_init(&h);
	const uint64_t top = 0xffffffffffff0000ull;
	uint32_t *topmem = calloc(1, 0x10000);
	REQUIRE(topmem);
	h.bos[BO_RO] = (struct pm4v_bo){ .iova = top, .size = 0x10000, .map = topmem, .id = 9 };
	for (int i = 0; i < 4; i++)
		topmem[0x10000 / 4 - 4 + i] = pm4_type7_hdr(CP_NOP, 0);

	pm4_ib(&h.b, 0xfffffffffffffff0ull, 4); /* the last 16 bytes */
	pm4_mem_write(&h.b, 0xfffffffffffffffcull, (const uint32_t[]){ 1 }, 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_ib(&h.b, 0xfffffffffffffff0ull, 5);
	EXPECT_RULE(&h, PM4V_ERR_TARGET);
	harness_reset(&h);
	pm4_mem_write(&h.b, 0xfffffffffffffffcull, (const uint32_t[]){ 1, 2 }, 2);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	pm4_memcpy(&h.b, DATA_IOVA, DATA_IOVA, 0xffffffffu);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_DRAW_INDX_OFFSET, (2u << 10) | 4, 1, 4, 0, LO(DATA_IOVA), HI(DATA_IOVA),
		 0xffffffffu);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_SET_DRAW_STATE, CP_SET_DRAW_STATE_0_COUNT(0xffff) | CP_SET_DRAW_STATE_0_SYSMEM,
		 LO(top), HI(top));
	EXPECT_RULE(&h, PM4V_ERR_TARGET);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA), HI(DATA_IOVA), 1,
		 0xffffffffu);
	EXPECT_RULE(&h, PM4V_ERR_COND_SKIP);
	harness_fini(&h);
	free(topmem);
}

/* The read rule across submits and a growing stream table: a register written by an earlier
 * submit stays unwritten for this one, and one this submit wrote stays written, also after the
 * table of streams grew mid-submit (more than 64 distinct IB targets). */
static void test_read_rule_table_growth(void)
{
	struct harness h;
	harness_init(&h);
	harness_reset(&h);
	PM4_PKT4(&h.b, 0xa800, 1);
	EXPECT_OK(&h);

	/* 80 one-NOP IBs in bo1, each a distinct stream */
	struct pm4_builder ib;
	pm4_builder_init(&ib, h.mem[BO_CMD2], CMD_SIZE / 4u);
	for (unsigned i = 0; i < 80; i++)
		pm4_nop(&ib, 0);
	REQUIRE(pm4_builder_ok(&ib));
	harness_reset(&h);
	PM4_PKT4(&h.b, 0xa900, 1);
	for (unsigned i = 0; i < 80; i++)
		pm4_ib(&h.b, CMD2_IOVA + 4u * i, 1);
	pm4_reg_to_mem(&h.b, 0xa800, 1, DATA_IOVA, false); /* written by the submit before only */
	EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
	CHECK_EQ(h.err.reg, 0xa800u);

	harness_reset(&h);
	PM4_PKT4(&h.b, 0xa900, 1);
	for (unsigned i = 0; i < 80; i++)
		pm4_ib(&h.b, CMD2_IOVA + 4u * i, 1);
	pm4_reg_to_mem(&h.b, 0xa900, 1, DATA_IOVA, false); /* written before the table grew */
	EXPECT_OK(&h);
	harness_fini(&h);
}

int main(void)
{
	RUN_TEST(test_accept_plain_stream);
	RUN_TEST(test_bad_type);
	RUN_TEST(test_parity);
	RUN_TEST(test_count_past_end);
	RUN_TEST(test_ib_targets);
	RUN_TEST(test_ib_size_limit);
	RUN_TEST(test_nesting_depth);
	RUN_TEST(test_privileged_packets);
	RUN_TEST(test_protected_registers);
	RUN_TEST(test_register_reads);
	RUN_TEST(test_binning_results);
	RUN_TEST(test_write_areas);
	RUN_TEST(test_draw_operands);
	RUN_TEST(test_address_fields);
	RUN_TEST(test_gpu_readonly);
	RUN_TEST(test_draw_state);
	RUN_TEST(test_conditional_skips);
	RUN_TEST(test_error_message);
	RUN_TEST(test_limits_and_shadow_failure);
	RUN_TEST(test_input_checks);
	RUN_TEST(test_overflow_edges);
	RUN_TEST(test_read_rule_table_growth);
	return test_finish();
}
