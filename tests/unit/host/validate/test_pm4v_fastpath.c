/* The PM4 validator's shortcuts against plain oracles on random and hostile input: the register
 * summaries (protected ranges, write areas) and the last-BO hint of the memory checks must give
 * exactly the answer (rule, register, address) a naive search of the policy and the BO table
 * gives, for registers and addresses around every boundary. */
#include <stdio.h>

#include "ferry/hw/adreno_pm4.h"
#include "pm4v_harness.h"

static uint32_t rnd(void)
{
	return (uint32_t)rand() << 16 ^ (uint32_t)rand();
}

/* The lowest write-protected register in [first, last], or UINT32_MAX. */
static uint32_t naive_protected(const struct pm4v_policy *p, uint32_t first, uint32_t last)
{
	uint32_t best = UINT32_MAX;
	for (uint32_t i = 0; i < p->nr_protected_regs; i++) {
		const struct pm4v_reg_range *r = &p->protected_regs[i];
		if (r->last < first || r->first > last)
			continue;
		uint32_t lo = r->first > first ? r->first : first;
		best = lo < best ? lo : best;
	}
	return best;
}

/* Whether a type-4 write of cnt zero values from first sets a write area's address (checked
 * as memory: address 0 is in no BO, unless the area takes 0 as unused). */
static bool naive_area_hit(const struct pm4v_policy *p, uint32_t first, uint32_t cnt)
{
	for (uint32_t i = 0; i < p->nr_write_areas; i++) {
		const struct pm4v_write_area *a = &p->write_areas[i];
		if (a->addr >= first && (uint64_t)a->addr + 1 < (uint64_t)first + cnt && !a->zero_unused)
			return true;
	}
	return false;
}

/* A register near something interesting: a protected range's edge, a write area, or anywhere. */
static uint32_t pick_reg(const struct pm4v_policy *p)
{
	uint32_t jitter = rnd() % 140u;
	switch (rnd() % 4u) {
	case 0: {
		const struct pm4v_reg_range *r = &p->protected_regs[rnd() % p->nr_protected_regs];
		uint32_t edge = rnd() % 2u ? r->first : r->last;
		edge = edge > 70u ? edge - 70u + jitter : jitter;
		return edge & PM4_TYPE4_REG_MASK;
	}
	case 1: {
		uint32_t a = p->write_areas[rnd() % p->nr_write_areas].addr;
		return a > 130u ? a - 130u + jitter : jitter;
	}
	case 2:
		return rnd() % 0x10000u;
	default:
		return PM4_TYPE4_REG_MASK - rnd() % 0x100u; /* counts running past the last register */
	}
}

static void test_type4_writes(void)
{
	struct harness h;
	harness_init(&h);
	static const uint32_t zeros[128];
	unsigned protected = 0, areas = 0, ok = 0;
	for (int i = 0; i < 20000; i++) {
		uint32_t reg = pick_reg(&h.policy), cnt = rnd() % 128u;
		harness_reset(&h);
		/* by hand: the builder refuses count 0 and registers running past the mask */
		h.b.buf[h.b.len++] = pm4_type4_hdr(reg, cnt);
		memcpy(h.b.buf + h.b.len, zeros, cnt * 4u);
		h.b.len += cnt;
		uint32_t want_reg = naive_protected(&h.policy, reg, reg + (cnt ? cnt - 1 : 0));
		int r = harness_run(&h);
		if (want_reg != UINT32_MAX) {
			CHECK_EQ(r, -1);
			CHECK_EQ(h.err.rule, PM4V_ERR_PROTECTED_REG);
			CHECK_EQ(h.err.reg, want_reg);
			protected++;
		} else if (naive_area_hit(&h.policy, reg, cnt)) {
			CHECK_EQ(r, -1);
			CHECK_EQ(h.err.rule, PM4V_ERR_ADDRESS);
			areas++;
		} else {
			if (r)
				fprintf(stderr, "  reg 0x%x cnt %u: %s\n", reg, cnt, h.err.msg);
			CHECK_EQ(r, 0);
			ok++;
		}
	}
	/* every kind of answer came up many times */
	CHECK(protected > 1000 && areas > 100 && ok > 1000);
	harness_fini(&h);
}

/* Which BO holds [addr, addr + len), or -1; its flags through *ro. */
static int naive_bo(const struct harness *h, uint64_t addr, uint64_t len, bool *ro)
{
	for (int i = 0; i < NR_BOS; i++) {
		const struct pm4v_bo *b = &h->bos[i];
		if (addr >= b->iova && addr + len <= b->iova + b->size) {
			*ro = b->flags & PM4V_BO_GPU_READONLY;
			return i;
		}
	}
	return -1;
}

/* An address around a BO's start or end (or far away). */
static uint64_t pick_addr(const struct harness *h)
{
	const struct pm4v_bo *b = &h->bos[rnd() % NR_BOS];
	uint64_t jitter = (rnd() % 64u) * 4u;
	switch (rnd() % 3u) {
	case 0: return b->iova - 128u + jitter;
	case 1: return b->iova + b->size - 128u + jitter;
	default: return b->iova + (rnd() % (b->size / 4u)) * 4u;
	}
}

/* Streams of memory writes and reads hopping between BOs, so that the hint is often stale. */
static void test_memory_operands(void)
{
	struct harness h;
	harness_init(&h);
	unsigned rejected = 0, accepted = 0;
	for (int i = 0; i < 5000; i++) {
		harness_reset(&h);
		int want = 0;
		enum pm4v_rule want_rule = PM4V_ERR_ADDRESS;
		uint64_t want_addr = 0;
		unsigned n = 1 + rnd() % 6u;
		for (unsigned j = 0; j < n; j++) {
			uint64_t addr = pick_addr(&h);
			uint32_t dwords = 1 + rnd() % 8u;
			bool write = rnd() % 2u, ro = false;
			uint32_t vals[8] = { 0 };
			if (write)
				pm4_mem_write(&h.b, addr, vals, dwords);
			else
				PM4_PKT7(&h.b, CP_WAIT_MEM_GTE, 0, LO(addr), HI(addr), 0, 0);
			uint64_t len = write ? dwords * 4u : 4u;
			if (want)
				continue;
			if (naive_bo(&h, addr, len, &ro) < 0) {
				want = -1;
				want_rule = PM4V_ERR_ADDRESS;
				want_addr = addr;
			} else if (write && ro) {
				want = -1;
				want_rule = PM4V_ERR_READONLY;
				want_addr = addr;
			}
		}
		int r = harness_run(&h);
		CHECK_EQ(r, want);
		if (r && want) {
			CHECK_EQ(h.err.rule, want_rule);
			CHECK_EQ(h.err.addr, want_addr);
			rejected++;
		} else if (!r) {
			accepted++;
		}
	}
	CHECK(rejected > 500 && accepted > 500);
	harness_fini(&h);
}

/* The header parity predicates (ferry/hw/adreno_pm4.h) against their definition: each parity
 * bit is the odd-parity bit of its field, folded here bit by bit. */
static uint32_t odd_bit(uint32_t v)
{
	uint32_t ones = 0;
	for (; v; v >>= 1)
		ones += v & 1u;
	return (ones & 1u) ^ 1u;
}

static void test_header_parity(void)
{
	unsigned bad = 0, ok4 = 0, ok7 = 0;
	for (int i = 0; i < 200000; i++) {
		uint32_t h = rnd();
		if (i % 2) /* half of them well-formed, then one bit flipped now and then */
			h = i % 4 == 1 ? pm4_type4_hdr(h >> 7, h & 0x7fu) : pm4_type7_hdr(h >> 14, h & 0x3fffu);
		if (i % 8 == 3)
			h ^= 1u << (rnd() % 32u);
		bool want4 = ((h >> 7) & 1u) == odd_bit(h & 0x7fu) && ((h >> 27) & 1u) == odd_bit((h >> 8) & 0x7ffffu);
		bool want7 = ((h >> 15) & 1u) == odd_bit(h & 0x3fffu) && ((h >> 23) & 1u) == odd_bit((h >> 16) & 0x7fu);
		bad += pm4_type4_parity_ok(h) != want4 || pm4_type7_parity_ok(h) != want7;
		ok4 += want4;
		ok7 += want7;
	}
	CHECK_EQ(bad, 0u);
	CHECK(ok4 > 50000 && ok7 > 50000);
}

int main(void)
{
	srand(16);
	RUN_TEST(test_header_parity);
	RUN_TEST(test_type4_writes);
	RUN_TEST(test_memory_operands);
	return test_finish();
}
