/* The validator copies a stream in and walks it through a small window (pm4_validate.c's run):
 * packets that straddle the window's chunks at every offset, packets longer than a chunk up to
 * the longest one, relocs and rewritten targets inside them must give the shadow a whole copy
 * would, validated at once or stepped under any budget, and a refusal the same report. A packet
 * is read from the guest once: rewriting the guest BO while the walk is inside it changes
 * nothing. The chunk size is not assumed: the layouts cover boundaries every 256 dwords. */
#include <stdio.h>

#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"
#include "pm4v_harness.h"

#define STEP 256u /* boundaries tried: every multiple of it (any power-of-two chunk from here) */
#define DS_IOVA (CMD2_IOVA + 0x100)
#define IB_DWORDS 3u
#define DS_DWORDS 3u

static const uint64_t budgets[] = { 1, 2, 5, 100, 255, 1023, 1024, 1025, 2047, 2049, 4097, 70000 };
#define NR_BUDGETS (sizeof(budgets) / sizeof(budgets[0]))

/* The IB and draw-state targets, in bo1. */
static void targets(struct harness *h)
{
	uint32_t *t = h->mem[BO_CMD2];
	t[0] = pm4_type7_hdr(CP_NOP, 1);
	t[1] = 0;
	t[2] = pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0);
	uint32_t *ds = t + (DS_IOVA - CMD2_IOVA) / 4u;
	ds[0] = pm4_type4_hdr(0xa800, 2);
	ds[1] = 1;
	ds[2] = 2;
}

/* NOPs up to dword at (a single header when one dword is missing). */
static void pad_to(struct pm4_builder *b, uint32_t at)
{
	while (b->len < at) {
		uint32_t left = at - b->len - 1u;
		pm4_nop(b, left < 0x3fffu ? left : 0x3fffu);
	}
}

/* What one validation gave, to compare another with. */
struct outcome {
	int r;
	struct pm4v_error err;
	uint32_t nr_cmds, nr_streams, relocs_applied;
	uint64_t dwords;
	uint32_t used;
	uint8_t *pool;
};

/* Validates sub at once (budget 0) or in steps of budget; pool filled with zeros first. */
static void validate(struct harness *h, const struct pm4v_submit *sub,
		     const struct pm4v_shadow_allocator *a, uint64_t budget, struct outcome *o)
{
	memset(h->pool, 0, h->pool_used + 64u);
	h->pool_used = 0;
	memset(&h->err, 0, sizeof(h->err));
	memset(&h->res, 0, sizeof(h->res));
	int r;
	if (!budget) {
		r = pm4v_validate(h->v, sub, a, &h->res, &h->err);
	} else {
		uint32_t calls = 0;
		while ((r = pm4v_validate_step(h->v, sub, a, budget, &h->res, &h->err)) == 1)
			REQUIRE(++calls < 10000000u);
	}
	*o = (struct outcome){ .r = r, .err = h->err, .nr_cmds = h->res.nr_cmds,
			       .nr_streams = h->res.nr_streams,
			       .relocs_applied = h->res.relocs_applied, .dwords = h->res.dwords,
			       .used = h->pool_used };
	o->pool = malloc(h->pool_used + 1u);
	REQUIRE(o->pool);
	memcpy(o->pool, h->pool, h->pool_used);
}

static void check_same(const struct outcome *got, const struct outcome *want, uint64_t budget)
{
	int bad = 0;
#define SAME(x) do { CHECK_EQ(got->x, want->x); bad |= got->x != want->x; } while (0)
	SAME(r);
	if (want->r) {
		SAME(err.rule);
		SAME(err.offset);
		SAME(err.header);
		SAME(err.bo_id);
		SAME(err.level);
		SAME(err.reg);
		SAME(err.addr);
		CHECK(strcmp(got->err.msg, want->err.msg) == 0);
		bad |= strcmp(got->err.msg, want->err.msg) != 0;
	} else {
		SAME(nr_cmds);
		SAME(nr_streams);
		SAME(relocs_applied);
		SAME(dwords);
		SAME(used);
		CHECK(got->used != want->used || memcmp(got->pool, want->pool, want->used) == 0);
		bad |= got->used == want->used && memcmp(got->pool, want->pool, want->used) != 0;
	}
#undef SAME
	if (bad)
		fprintf(stderr, "  with budget %llu: \"%s\", not \"%s\"\n",
			(unsigned long long)budget, got->err.msg, want->err.msg);
}

/* Every budget gives the answer validation at once gives (*whole, kept for the caller). */
static void check_budgets(struct harness *h, const struct pm4v_submit *sub, struct outcome *whole)
{
	struct pm4v_shadow_allocator a = { harness_alloc, h };
	validate(h, sub, &a, 0, whole);
	for (size_t i = 0; i < NR_BUDGETS; i++) {
		struct outcome o;
		validate(h, sub, &a, budgets[i], &o);
		check_same(&o, whole, budgets[i]);
		free(o.pool);
	}
}

static uint64_t shadow_of(const struct harness *h, uint64_t guest_iova, bool draw_state)
{
	for (uint32_t i = 0; i < h->res.nr_streams; i++) {
		const struct pm4v_stream_copy *c = &h->res.streams[i];
		if (c->guest_iova == guest_iova && c->draw_state == draw_state)
			return c->shadow_iova;
	}
	REQUIRE(0);
	return 0;
}

/* Packets of every kind that has dwords to rewrite, starting 0 to 9 dwords before each
 * boundary, between NOPs of up to the longest packet: the shadow is the stream with the relocs
 * and the target addresses in it, and every budget gives the same shadows. */
static void test_straddling(void)
{
	struct harness h;
	harness_init(&h);
	targets(&h);
	enum { DW = 400000, MAX_RELOCS = 2048, MAX_PATCH = 4096 };
	struct pm4_builder b;
	pm4_builder_init(&b, h.mem[BO_DATA], DW);
	static struct ferry_msm_submit_reloc relocs[MAX_RELOCS];
	static uint32_t patch_at[MAX_PATCH], patch_kind[MAX_PATCH];
	uint32_t nr = 0, nr_patch = 0;
	enum { P_RELOC_LO, P_RELOC_HI, P_IB, P_DS };
	const uint32_t vals[7] = { 1, 2, 3, 4, 5, 6, 7 };
	const uint32_t longs[] = { STEP - 1u, STEP, 2047, 2048, 2049, 4095, 4096, 8191, 0x3fff };
	uint32_t n = 0;
	for (uint32_t at = 2 * STEP; at < DW - 0x8000; at += STEP, n++) {
		uint32_t before = n % 10u;
		if (at - before < b.len)
			continue; /* a long packet went past it */
		pad_to(&b, at - before);
		uint32_t p = b.len;
		switch (n % 6u) {
		case 0: /* a relocated write: both address dwords patched in the copy */
			if (nr + 2 > MAX_RELOCS || nr_patch + 2 > MAX_PATCH)
				break;
			pm4_mem_write(&b, 0, vals, 1 + n % 7u);
			relocs[nr++] = (struct ferry_msm_submit_reloc){
				.submit_offset = (p + 1) * 4, .bo_index = BO_DATA,
				.bo_offset = 0x40 + 4 * n };
			relocs[nr++] = (struct ferry_msm_submit_reloc){
				.submit_offset = (p + 2) * 4, .bo_index = BO_DATA,
				.bo_offset = 0x40 + 4 * n, .shift = -32 };
			patch_at[nr_patch] = p + 1;
			patch_kind[nr_patch++] = P_RELOC_LO | n << 2;
			patch_at[nr_patch] = p + 2;
			patch_kind[nr_patch++] = P_RELOC_HI | n << 2;
			break;
		case 1:
			if (nr_patch + 1 > MAX_PATCH)
				break;
			pm4_ib(&b, CMD2_IOVA, IB_DWORDS);
			patch_at[nr_patch] = p + 1;
			patch_kind[nr_patch++] = P_IB;
			break;
		case 2:
			if (nr_patch + 1 > MAX_PATCH)
				break;
			pm4_set_draw_state(&b, n % 8u, CP_SET_DRAW_STATE_0_SYSMEM, 0, DS_IOVA,
					   DS_DWORDS);
			patch_at[nr_patch] = p + 2;
			patch_kind[nr_patch++] = P_DS;
			break;
		case 3:
			pm4_pkt4(&b, 0xa800 + n % 64u, vals, 1 + n % 7u);
			break;
		case 4: /* longer than a chunk, over several boundaries */
			pm4_nop(&b, longs[(n / 6u) % (sizeof(longs) / sizeof(longs[0]))]);
			break;
		default: { /* a conditional range ending on a packet start past the next boundary */
			uint32_t end = p + 7u + STEP + 3u;
			PM4_PKT7(&b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA), LO(DATA_IOVA),
				 HI(DATA_IOVA), 0, end - p - 7u);
			pad_to(&b, end);
			break;
		}
		}
	}
	pm4_wait_for_idle(&b);
	REQUIRE(pm4_builder_ok(&b));
	REQUIRE(nr > 100 && nr_patch > 300);
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_DATA, 0, b.len * 4u };
	struct pm4v_submit sub = harness_submit_of(&h, &cmd, 1, relocs, nr);
	struct outcome whole;
	check_budgets(&h, &sub, &whole);
	if (whole.r)
		fprintf(stderr, "  rejected: %s\n", whole.err.msg);
	REQUIRE(whole.r == 0);
	CHECK_EQ(whole.relocs_applied, nr);

	/* The shadow against the guest's stream, dword by dword. */
	const uint32_t *guest = h.mem[BO_DATA];
	const uint32_t *sh = (const uint32_t *)(whole.pool + (h.res.cmds[0].iova - POOL_IOVA));
	uint64_t ib = shadow_of(&h, CMD2_IOVA, false), ds = shadow_of(&h, DS_IOVA, true);
	uint32_t mismatches = 0;
	for (uint32_t i = 0, j = 0; i < b.len; i++) {
		uint32_t want = guest[i];
		if (j < nr_patch && patch_at[j] == i) {
			uint64_t reloc = DATA_IOVA + 0x40 + 4ull * (patch_kind[j] >> 2);
			switch (patch_kind[j] & 3u) {
			case P_RELOC_LO: want = LO(reloc); break;
			case P_RELOC_HI: want = HI(reloc); break;
			case P_IB: want = LO(ib); break;
			default: want = LO(ds); break;
			}
			if ((patch_kind[j] & 3u) >= P_IB) { /* the address's high dword next */
				mismatches += sh[i] != want;
				i++;
				want = (patch_kind[j] & 3u) == P_IB ? HI(ib) : HI(ds);
			}
			j++;
		}
		if (sh[i] != want && mismatches++ < 5)
			fprintf(stderr, "  shadow dword %u: 0x%08x, not 0x%08x\n", i, sh[i], want);
	}
	CHECK_EQ(mismatches, 0);
	free(whole.pool);
	harness_fini(&h);
}

/* A refused packet 0 to 3 dwords before a boundary, after a run of long packets: the same
 * report at once and stepped. */
enum bad { BAD_ADDRESS, BAD_TARGET, BAD_TYPE, BAD_OVERRUN, BAD_SKIP_INTO_LONG, BAD_PROTECTED,
	   NR_BAD };
static const enum pm4v_rule bad_rule[NR_BAD] = {
	PM4V_ERR_ADDRESS, PM4V_ERR_TARGET, PM4V_ERR_BAD_TYPE, PM4V_ERR_COUNT_OVERRUN,
	PM4V_ERR_COND_SKIP, PM4V_ERR_PROTECTED_REG,
};

static void test_refusals(void)
{
	struct harness h;
	harness_init(&h);
	targets(&h);
	const uint32_t vals[4] = { 1, 2, 3, 4 };
	for (int what = 0; what < NR_BAD; what++) {
		for (uint32_t at = 0x4000 + 3 * STEP; at <= 0x4000 + 24 * STEP; at += 7 * STEP) {
			for (uint32_t before = 0; before < 4; before++) {
				struct pm4_builder b;
				pm4_builder_init(&b, h.mem[BO_DATA], 0x20000);
				pm4_nop(&b, 0x3fff);
				pad_to(&b, at - before);
				uint32_t p = b.len;
				switch (what) {
				case BAD_ADDRESS: pm4_mem_write(&b, FOREIGN_IOVA, vals, 4); break;
				case BAD_TARGET: pm4_ib(&b, FOREIGN_IOVA, 16); break;
				case BAD_TYPE: b.buf[b.len++] = 0x20000000u; break;
				case BAD_OVERRUN: break; /* below: one dword too long */
				case BAD_SKIP_INTO_LONG:
					PM4_PKT7(&b, CP_COND_EXEC, LO(DATA_IOVA), HI(DATA_IOVA),
						 LO(DATA_IOVA), HI(DATA_IOVA), 0, 1 + STEP);
					pm4_nop(&b, 0x3fff); /* the skip resumes inside it */
					break;
				default: pm4_pkt4(&b, 0x0010, vals, 1); break;
				}
				pm4_nop(&b, 3000);
				REQUIRE(pm4_builder_ok(&b));
				struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_DATA, 0,
								    b.len * 4u };
				if (what == BAD_OVERRUN) /* the stream ends one dword short of it */
					b.buf[p] = pm4_type7_hdr(CP_NOP, 3000u + 1u);
				struct pm4v_submit sub = harness_submit_of(&h, &cmd, 1, NULL, 0);
				struct outcome whole;
				check_budgets(&h, &sub, &whole);
				CHECK_EQ(whole.r, -1);
				CHECK_EQ(whole.err.rule, bad_rule[what]);
				CHECK_EQ(whole.err.offset, p * 4ull);
				free(whole.pool);
			}
		}
	}
	harness_fini(&h);
}

/* An allocator that, when the walk reaches the draw-state target (the second shadow), rewrites
 * the guest's stream up to the end of the packet pointing at it, as a guest could meanwhile. */
struct rewriter {
	struct harness *h;
	uint32_t *guest;
	uint32_t dwords;
	uint32_t allocs;
};

static int rewrite_alloc(void *ctx, uint32_t size, struct pm4v_shadow *out)
{
	struct rewriter *w = ctx;
	if (++w->allocs == 2)
		for (uint32_t i = 0; i < w->dwords; i++)
			w->guest[i] = pm4_type7_hdr(CP_ME_INIT, 0);
	return harness_alloc(w->h, size, out);
}

/* A CP_SET_DRAW_STATE of 1500 groups (longer than a chunk) over several boundaries, its one
 * enabled group last: the walk meets the target when the whole packet was copied in; what the
 * guest writes over it then is not seen, at once or stepped. */
static void test_long_packet_read_once(void)
{
	struct harness h;
	harness_init(&h);
	targets(&h);
	enum { GROUPS = 1500 };
	for (uint32_t start = STEP - 3u; start < 4 * STEP; start += STEP + 1u) {
		for (size_t i = 0; i <= NR_BUDGETS; i++) {
			uint64_t budget = i < NR_BUDGETS ? budgets[i] : 0;
			struct pm4_builder b;
			pm4_builder_init(&b, h.mem[BO_DATA], 0x10000);
			pad_to(&b, start);
			uint32_t p = b.len;
			REQUIRE(b.len + 1u + GROUPS * 3u < b.capacity);
			b.buf[b.len++] = pm4_type7_hdr(CP_SET_DRAW_STATE, GROUPS * 3u);
			for (uint32_t g = 0; g < GROUPS - 1u; g++) { /* count 0: no address used */
				b.buf[b.len++] = CP_SET_DRAW_STATE_0_GROUP_ID(g % 8u);
				b.buf[b.len++] = 0xdead0000u | g;
				b.buf[b.len++] = 0xbeef0000u | g;
			}
			b.buf[b.len++] = CP_SET_DRAW_STATE_0_COUNT(DS_DWORDS) |
					 CP_SET_DRAW_STATE_0_SYSMEM;
			b.buf[b.len++] = LO(DS_IOVA);
			b.buf[b.len++] = HI(DS_IOVA);
			uint32_t end = b.len;
			pm4_nop(&b, 100);
			REQUIRE(pm4_builder_ok(&b));
			uint32_t *want = malloc(b.len * 4u);
			REQUIRE(want);
			memcpy(want, b.buf, b.len * 4u);

			struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_DATA, 0,
							    b.len * 4u };
			struct pm4v_submit sub = harness_submit_of(&h, &cmd, 1, NULL, 0);
			struct rewriter w = { &h, h.mem[BO_DATA], end, 0 };
			struct pm4v_shadow_allocator a = { rewrite_alloc, &w };
			struct outcome o;
			validate(&h, &sub, &a, budget, &o);
			CHECK_EQ(o.r, 0);
			if (o.r)
				fprintf(stderr, "  budget %llu: %s\n", (unsigned long long)budget,
					o.err.msg);
			CHECK_EQ(w.allocs, 2);
			if (!o.r) {
				uint64_t at = h.res.cmds[0].iova - POOL_IOVA;
				const uint32_t *sh = (const uint32_t *)(o.pool + at);
				uint64_t ds = shadow_of(&h, DS_IOVA, true);
				want[end - 2] = LO(ds);
				want[end - 1] = HI(ds);
				CHECK(memcmp(sh, want, b.len * 4u) == 0);
				CHECK_EQ(sh[p], pm4_type7_hdr(CP_SET_DRAW_STATE, GROUPS * 3u));
			}
			free(o.pool);
			free(want);
		}
	}
	harness_fini(&h);
}

int main(void)
{
	RUN_TEST(test_straddling);
	RUN_TEST(test_refusals);
	RUN_TEST(test_long_packet_read_once);
	return test_finish();
}
