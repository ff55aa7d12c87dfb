/* The walk's runs of plain packets (pm4_stream.c) against the rules they skip: a packet that needs
 * a rule, put among hundreds that need none, across the 8 KiB copy chunks, under budgets and
 * inside open conditional ranges, is refused at its place with the same report by a fresh
 * validator and by one that has learned its opcodes; accepted streams are copied unchanged. */
#include <stdio.h>

#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"
#include "pm4v_harness.h"

#define RUN_PACKETS 800 /* about 2500 dwords: past the first copy chunk */

/* Packet i of a run: register writes no rule looks at (1 to 8 values), CP_NOPs of any length,
 * CP_WAIT_FOR_IDLE. */
static void plain_packet(struct pm4_builder *b, uint32_t i)
{
	const uint32_t vals[8] = { i, 1, 2, 3, 4, 5, 6, 7 };
	switch (i % 4u) {
	case 0: pm4_pkt4(b, 0xa800 + i % 32u, vals, 1 + i % 8u); break;
	case 1: pm4_nop(b, i % 5u); break;
	case 2: pm4_wait_for_idle(b); break;
	default: pm4_pkt4(b, 0x9100 + i % 16u, vals, 1 + i % 3u); break;
	}
}

static void raw(struct pm4_builder *b, uint32_t dw)
{
	REQUIRE(b->len < b->capacity);
	b->buf[b->len++] = dw;
}

/* The packets that must stop a run, each refused by one rule. */
enum bad { BAD_PROTECTED, BAD_INTO_PROTECTED, BAD_SPAN_LAST, BAD_SPAN_MIDDLE, BAD_DENIED, BAD_PARITY4, BAD_PARITY7, BAD_TYPE, BAD_ADDRESS,
	   BAD_UNWRITTEN, BAD_RO_WRITE, NR_BAD };
static const enum pm4v_rule bad_rule[NR_BAD] = {
	PM4V_ERR_PROTECTED_REG, PM4V_ERR_PROTECTED_REG, PM4V_ERR_PROTECTED_REG, PM4V_ERR_PROTECTED_REG,
	PM4V_ERR_PRIVILEGED, PM4V_ERR_PARITY, PM4V_ERR_PARITY,
	PM4V_ERR_BAD_TYPE, PM4V_ERR_ADDRESS, PM4V_ERR_UNWRITTEN_REG, PM4V_ERR_READONLY,
};

static void bad_packet(struct pm4_builder *b, enum bad what)
{
	static const uint32_t vals[PM4_TYPE4_MAX_COUNT] = { 1, 2, 3, 4 };
	switch (what) {
	case BAD_PROTECTED: pm4_pkt4(b, 0x0010, vals, 1); break;
	case BAD_INTO_PROTECTED: pm4_pkt4(b, 0xa62e, vals, 4); break; /* RW from 0xa630 on a630 */
	/* The summary's 64-register blocks: clean ones, then 0xf000 on (RW) in the third. */
	case BAD_SPAN_LAST: pm4_pkt4(b, 0xef90, vals, PM4_TYPE4_MAX_COUNT); break;
	/* Clean first and last blocks, 0xb604 (RW) in the middle one. */
	case BAD_SPAN_MIDDLE: pm4_pkt4(b, 0xb5f0, vals, 0x60); break;
	case BAD_DENIED: PM4_PKT7(b, CP_ME_INIT, 0); break;
	case BAD_PARITY4: raw(b, pm4_type4_hdr(0xa800, 1) ^ (1u << 7)); raw(b, 0); break;
	case BAD_PARITY7: raw(b, pm4_type7_hdr(CP_NOP, 1) ^ (1u << 23)); raw(b, 0); break;
	case BAD_TYPE: raw(b, 0x20000000u); break;
	case BAD_ADDRESS: pm4_mem_write(b, FOREIGN_IOVA, vals, 1); break;
	case BAD_UNWRITTEN: pm4_reg_to_mem(b, 0x0883, 1, DATA_IOVA, false); break;
	case BAD_RO_WRITE: pm4_mem_write(b, RO_IOVA, vals, 1); break;
	default: REQUIRE(0);
	}
}

/* A run with the bad packet after `before` plain packets (none if before < 0), or starting at
 * dword `at` (padded to it with a CP_NOP) when at != 0. Returns the bad packet's dword. */
static uint32_t build(struct harness *h, int before, uint32_t at, enum bad what)
{
	harness_reset(h);
	uint32_t where = UINT32_MAX;
	for (uint32_t i = 0; i < RUN_PACKETS; i++) {
		if (before >= 0 && i == (uint32_t)before && !at) {
			where = h->b.len;
			bad_packet(&h->b, what);
		}
		if (at && where == UINT32_MAX && h->b.len + 9 >= at) { /* a plain packet is <= 9 dwords */
			pm4_nop(&h->b, at - h->b.len - 1);
			where = h->b.len;
			bad_packet(&h->b, what);
		}
		plain_packet(&h->b, i);
	}
	return where;
}

/* Everything a report says, compared with a fresh validator's. */
static void check_same_report(const struct pm4v_error *a, const struct pm4v_error *b)
{
	CHECK_EQ(a->rule, b->rule);
	CHECK_EQ(a->offset, b->offset);
	CHECK_EQ(a->header, b->header);
	CHECK_EQ(a->reg, b->reg);
	CHECK_EQ(a->addr, b->addr);
	CHECK(strcmp(a->msg, b->msg) == 0);
	if (strcmp(a->msg, b->msg))
		fprintf(stderr, "  \"%s\" != \"%s\"\n", a->msg, b->msg);
}

static void test_bad_packet_in_run(void)
{
	struct harness warm;
	harness_init(&warm);
	/* Every plain opcode seen, several times over, so the warm validator takes them in runs;
	 * and the bad packets' opcodes accepted once, so learning one of them as plain (wrongly)
	 * would show below. */
	const uint32_t vals[2] = { 1, 2 };
	for (int i = 0; i < 3; i++) {
		build(&warm, -1, 0, BAD_PROTECTED);
		pm4_mem_write(&warm.b, DATA_IOVA, vals, 2);
		pm4_reg_to_mem(&warm.b, 0xa800, 1, DATA_IOVA, false);
		EXPECT_OK(&warm);
	}
	const int befores[] = { 0, 1, 2, 3, 5, 255, 256, 257, RUN_PACKETS - 1 };
	/* Headers on both sides of a copy chunk's end (2048 dwords, 1024 before) and payloads
	 * across it. */
	const uint32_t ats[] = { 1020, 1022, 1023, 1024, 1025, 2047, 2048 };
	for (enum bad what = 0; what < NR_BAD; what++) {
		for (size_t j = 0; j < sizeof(befores) / sizeof(befores[0]) + sizeof(ats) / sizeof(ats[0]); j++) {
			bool by_pos = j < sizeof(befores) / sizeof(befores[0]);
			int before = by_pos ? befores[j] : -1;
			uint32_t at = by_pos ? 0 : ats[j - sizeof(befores) / sizeof(befores[0])];
			struct harness fresh;
			harness_init(&fresh);
			uint32_t where = build(&fresh, before, at, what);
			REQUIRE(where != UINT32_MAX);
			EXPECT_RULE(&fresh, bad_rule[what]);
			CHECK_EQ(fresh.err.offset, (uint64_t)where * 4u);
			build(&warm, before, at, what);
			EXPECT_RULE(&warm, bad_rule[what]);
			check_same_report(&warm.err, &fresh.err);
			harness_fini(&fresh);
		}
	}
	harness_fini(&warm);
}

/* A payload that runs past the stream's end, right after a run. */
static void test_overrun_after_run(void)
{
	struct harness h;
	harness_init(&h);
	for (int pass = 0; pass < 2; pass++) { /* the second with every opcode learned */
		for (uint32_t past = 1; past < 4; past++) {
			harness_reset(&h);
			for (uint32_t i = 0; i < RUN_PACKETS; i++)
				plain_packet(&h.b, i);
			uint32_t where = h.b.len;
			raw(&h.b, pm4_type7_hdr(CP_NOP, 2 + past));
			raw(&h.b, 0);
			raw(&h.b, 0);
			EXPECT_RULE(&h, PM4V_ERR_COUNT_OVERRUN);
			CHECK_EQ(h.err.offset, (uint64_t)where * 4u);
			harness_reset(&h);
			for (uint32_t i = 0; i < RUN_PACKETS; i++)
				plain_packet(&h.b, i);
			raw(&h.b, pm4_type4_hdr(0xa800, 1 + past));
			raw(&h.b, 0);
			EXPECT_RULE(&h, PM4V_ERR_COUNT_OVERRUN);
		}
	}
	harness_fini(&h);
}

/* Runs under a budget: every budget gives the unbudgeted answer and the same shadow. */
static void test_budgets(void)
{
	struct harness h;
	harness_init(&h);
	for (int bad = 0; bad < 2; bad++) {
		build(&h, bad ? 400 : -1, 0, BAD_UNWRITTEN);
		pm4_reg_to_mem(&h.b, 0xa805, 1, DATA_IOVA, false); /* written by packet 4 of the run */
		int want = harness_run(&h);
		CHECK_EQ(want, bad ? -1 : 0);
		struct pm4v_error want_err = h.err;
		uint32_t bytes = pm4_builder_bytes(&h.b);
		const uint64_t budgets[] = { 1, 2, 7, 64, 333, 1000, 5000 };
		for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
			struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, bytes };
			struct pm4v_submit sub = harness_submit_of(&h, &cmd, 1, NULL, 0);
			struct pm4v_shadow_allocator a = { harness_alloc, &h };
			h.pool_used = 0;
			memset(h.pool, 0, bytes + 64u);
			int r, steps = 0;
			while ((r = pm4v_validate_step(h.v, &sub, &a, budgets[i], &h.res, &h.err)) == 1)
				steps++;
			CHECK_EQ(r, want);
			if (budgets[i] < 1000)
				CHECK(steps > 0);
			if (r)
				check_same_report(&h.err, &want_err);
			else
				CHECK(memcmp(shadow_ptr(&h, h.res.cmds[0].iova), h.mem[BO_CMD], bytes) == 0);
		}
	}
	harness_fini(&h);
}

/* A conditional range closing inside a run: its end must be a packet start, and the writes in
 * it do not count for the read rule. */
static void test_skip_in_run(void)
{
	struct harness h;
	harness_init(&h);
	for (int pass = 0; pass < 2; pass++) {
		/* Ends at every dword of the run's first packets: refused unless on a packet start. */
		for (uint32_t skip = 1; skip < 40; skip++) {
			harness_reset(&h);
			PM4_PKT7(&h.b, CP_COND_REG_EXEC, CP_COND_REG_EXEC_0_MODE(PRED_TEST), skip);
			uint32_t start = h.b.len;
			bool on_start = false;
			for (uint32_t i = 0; i < RUN_PACKETS; i++) {
				on_start |= h.b.len - start == skip;
				plain_packet(&h.b, i);
			}
			int r = harness_run(&h);
			CHECK_EQ(r, on_start ? 0 : -1);
			if (!on_start) {
				CHECK_EQ(h.err.rule, PM4V_ERR_COND_SKIP);
				CHECK_EQ(h.err.offset, 0u);
			}
		}
		/* 0x9b00 written only inside the range, then read after it: refused; written again
		 * after the range: accepted. */
		for (int again = 0; again < 2; again++) {
			harness_reset(&h);
			PM4_PKT7(&h.b, CP_COND_REG_EXEC, CP_COND_REG_EXEC_0_MODE(PRED_TEST), 0);
			uint32_t cond = h.b.len - 1;
			for (uint32_t i = 0; i < 40; i++)
				plain_packet(&h.b, i);
			PM4_PKT4(&h.b, 0x9b00, 1);
			for (uint32_t i = 40; i < 80; i++)
				plain_packet(&h.b, i);
			h.b.buf[cond] = h.b.len - cond - 1;
			for (uint32_t i = 80; i < 120; i++)
				plain_packet(&h.b, i);
			if (again)
				PM4_PKT4(&h.b, 0x9b00, 1);
			pm4_reg_to_mem(&h.b, 0x9b00, 1, DATA_IOVA, false);
			if (again) {
				EXPECT_OK(&h);
			} else {
				EXPECT_RULE(&h, PM4V_ERR_UNWRITTEN_REG);
				CHECK_EQ(h.err.reg, 0x9b00u);
			}
		}
	}
	harness_fini(&h);
}

/* Accepted: the shadow holds the stream as written, for streams ending anywhere in a chunk. */
static void test_copies(void)
{
	struct harness h;
	harness_init(&h);
	for (uint32_t n = 1; n < 1200; n += 37) {
		harness_reset(&h);
		for (uint32_t i = 0; i < n; i++)
			plain_packet(&h.b, i);
		EXPECT_OK(&h);
		CHECK(memcmp(shadow_ptr(&h, h.res.cmds[0].iova), h.mem[BO_CMD], pm4_builder_bytes(&h.b)) == 0);
	}
	harness_fini(&h);
}

int main(void)
{
	RUN_TEST(test_bad_packet_in_run);
	RUN_TEST(test_overrun_after_run);
	RUN_TEST(test_budgets);
	RUN_TEST(test_skip_in_run);
	RUN_TEST(test_copies);
	return test_finish();
}
