/* The V3D decoder on arbitrary input (meant to run under ASan/UBSan): thousands of random lists,
 * and lists of valid packets whose branches, sub-lists, tile lists and shader records point at
 * random places in a table of buffers (overlapping, at the top of the address space, with
 * contents shorter than their size). Every buffer is malloc'd at its exact length, so a read past
 * it is caught; every decode must finish, stay within its budgets and count what it printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/v3d_cl.h"
#include "test.h"
#include "v3d_decode.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

#define NR_BUFS 4

struct table {
	struct v3d_decode_buffer bufs[NR_BUFS];
	uint8_t *mem[NR_BUFS];
};

static uint32_t pick_addr(const struct table *t)
{
	const struct v3d_decode_buffer *b = &t->bufs[rnd() % NR_BUFS];
	switch (rnd() % 4) {
	case 0: return rnd();                                  /* anywhere */
	case 1: return b->addr + (b->size ? rnd() % b->size : 0); /* inside a buffer */
	case 2: return b->addr + b->contents_len;                  /* just past the known bytes */
	default: return b->addr;
	}
}

/* A packet of `ver` with random fields, written at p (room bytes free); its length or 0. */
static uint32_t random_packet(int ver, uint8_t *p, uint32_t room, const struct table *t)
{
	static const uint8_t interesting[] = {
		V3D_CL_BRANCH, V3D_CL_BRANCH_TO_SUB_LIST, V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST,
		V3D_CL_RETURN_FROM_SUB_LIST, V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST, V3D_CL_GL_SHADER_STATE,
		V3D_CL_GL_SHADER_STATE_INCLUDING_GS, V3D_CL_TRANSFORM_FEEDBACK_SPECS, V3D_CL_TILE_RENDERING_MODE_CFG,
		V3D_CL_STORE_TILE_BUFFER_GENERAL, V3D_CL_HALT, V3D_CL_NOP,
	};
	uint8_t op = rnd() % 8 ? interesting[rnd() % sizeof(interesting)] : (uint8_t)rnd();
	uint32_t len = v3d_cl_fixed_length(ver, op);
	if (len == 0 || len > room)
		return 0;
	p[0] = op;
	for (uint32_t i = 1; i < len; i++)
		p[i] = (uint8_t)rnd();
	if (op == V3D_CL_TRANSFORM_FEEDBACK_SPECS) {
		uint32_t n = rnd() % 4;
		if (2 + 2 * n > room)
			n = 0;
		p[1] = (uint8_t)(n | 0x80);
		for (uint32_t i = 2; i < 2 + 2 * n; i++)
			p[i] = (uint8_t)rnd();
		return 2 + 2 * n;
	}
	const struct v3d_cl_addr_field *af;
	size_t nf = v3d_cl_address_fields(ver, op, &af);
	for (size_t i = 0; i < nf; i++)
		v3d_cl_set_address(p + 1, af[i].start, af[i].size, pick_addr(t));
	return len;
}

static void free_table(struct table *t)
{
	for (int i = 0; i < NR_BUFS; i++)
		free(t->mem[i]);
	memset(t, 0, sizeof(*t));
}

static void make_table(struct table *t, int ver, bool structured)
{
	memset(t, 0, sizeof(*t));
	static const uint32_t bases[] = { 0x1000, 0x10000, 0xfffff000u, 0x20000 };
	for (int i = 0; i < NR_BUFS; i++) {
		uint32_t size = 1 + rnd() % 512;
		uint32_t addr = rnd() % 5 == 0 ? rnd() : bases[i];
		if ((uint64_t)addr + size > (1ull << 32))
			size = (uint32_t)((1ull << 32) - addr);
		/* contents shorter than the buffer, or claiming more than its size (the size bounds them) */
		uint32_t clen = rnd() % 4 == 0 ? rnd() % (size + 64) : size;
		uint8_t *m = malloc(clen ? clen : 1);
		REQUIRE(m);
		for (uint32_t k = 0; k < clen; k++)
			m[k] = (uint8_t)rnd();
		t->mem[i] = m;
		t->bufs[i] = (struct v3d_decode_buffer){ addr, size, rnd() % 3 ? "buf" : NULL, rnd() % 8 ? m : NULL,
							 clen };
	}
	if (!structured)
		return;
	for (int i = 0; i < NR_BUFS; i++) {
		uint32_t clen = t->bufs[i].contents_len, pos = 0;
		while (pos < clen) {
			uint32_t n = random_packet(ver, t->mem[i] + pos, clen - pos, t);
			if (n == 0)
				break;
			pos += n;
		}
	}
}

static void test_random(bool structured, int rounds)
{
	FILE *null = fopen("/dev/null", "w");
	REQUIRE(null);
	uint64_t packets = 0, lists = 0, cycles = 0, unknown = 0, truncated = 0, records = 0, budget = 0;
	for (int r = 0; r < rounds; r++) {
		int ver = r & 1 ? V3D_VER_71 : V3D_VER_42;
		struct table t;
		make_table(&t, ver, structured);
		struct v3d_decode_options o = {
			.ver = ver, .buffers = t.bufs, .nr_buffers = NR_BUFS, .follow = rnd() % 8 != 0,
			.max_depth = rnd() % 6, .max_bytes = rnd() % 4 ? 0 : 1 + rnd() % 200,
			.max_lists = rnd() % 4 ? 0 : 1 + rnd() % 8,
		};
		const struct v3d_decode_buffer *b = &t.bufs[rnd() % NR_BUFS];
		uint32_t known = b->contents_len < b->size ? b->contents_len : b->size;
		/* structured lists are decoded from their first packet, mostly */
		uint32_t start = b->addr + (known && (!structured || rnd() % 4 == 0) ? rnd() % known : 0);
		uint32_t end = rnd() % 3 ? 0 : pick_addr(&t);
		struct v3d_decode_stats st;
		int ret = v3d_decode_cl(null, &o, start, end, &st);
		if (!b->contents || !known) {
			/* start may still be inside another buffer with contents */
			CHECK(ret == 0 || ret == -2);
		} else {
			CHECK_EQ(ret, 0);
		}
		if (ret == 0) {
			uint64_t max_lists = o.max_lists ? o.max_lists : 4096;
			CHECK(st.lists >= 1 && st.lists <= max_lists);
			if (o.max_bytes)
				CHECK(st.packets <= o.max_bytes);
			if (!o.follow)
				CHECK(st.lists == 1 && st.records == 0);
		}
		packets += st.packets;
		lists += st.lists;
		cycles += st.cycles;
		unknown += st.unknown;
		truncated += st.truncated;
		records += st.records;
		budget += st.budget_exhausted;
		/* the version guess and the name of whatever sits there, on the same bytes */
		if (b->contents && known) {
			bool sure;
			int g = v3d_decode_guess_version(b->contents, known, &sure);
			CHECK(g == V3D_VER_42 || g == V3D_VER_71);
			char name[96];
			v3d_decode_packet_name(name, sizeof(name), ver, b->contents, known);
			CHECK(name[0] != '\0');
		}
		struct v3d_tfu_regs tfu = { rnd(), rnd(), rnd(), rnd(), rnd(), rnd(), rnd(), { rnd(), rnd(), rnd(), rnd() }, rnd() };
		uint32_t cfg[7] = { rnd(), rnd(), rnd(), rnd(), rnd(), rnd(), rnd() };
		CHECK_EQ(v3d_decode_tfu(null, &o, &tfu), 0);
		CHECK_EQ(v3d_decode_csd(null, &o, cfg), 0);
		free_table(&t);
	}
	fclose(null);
	fprintf(stderr, "  %s: %d rounds, %llu packets, %llu lists, %llu cycles, %llu unknown, %llu truncated, "
		"%llu records, %llu budget stops\n", structured ? "structured" : "random bytes", rounds,
		(unsigned long long)packets, (unsigned long long)lists, (unsigned long long)cycles,
		(unsigned long long)unknown, (unsigned long long)truncated, (unsigned long long)records,
		(unsigned long long)budget);
	/* the structured inputs must actually exercise following */
	if (structured) {
		CHECK(lists > (uint64_t)rounds);
		CHECK(cycles > 0);
		CHECK(records > 0);
	}
	CHECK(unknown > 0 && truncated > 0);
}

static void test_random_bytes(void) { test_random(false, 20000); }
static void test_structured(void) { test_random(true, 20000); }

/* Every byte value as the first byte of a list of every length up to 16, on both versions. */
static void test_short_lists(void)
{
	FILE *null = fopen("/dev/null", "w");
	REQUIRE(null);
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42)
		for (unsigned op = 0; op < 256; op++)
			for (uint32_t len = 1; len <= 16; len++) {
				uint8_t *m = malloc(len);
				REQUIRE(m);
				m[0] = (uint8_t)op;
				for (uint32_t i = 1; i < len; i++)
					m[i] = (uint8_t)rnd();
				struct v3d_decode_buffer b = { 0xfffffff0u, 16, "top", m, len };
				struct v3d_decode_options o = { .ver = ver, .buffers = &b, .nr_buffers = 1, .follow = true };
				CHECK_EQ(v3d_decode_cl(null, &o, 0xfffffff0u, 0, NULL), 0);
				free(m);
			}
	fclose(null);
}

int main(void)
{
	RUN_TEST(test_random_bytes);
	RUN_TEST(test_structured);
	RUN_TEST(test_short_lists);
	return test_finish();
}
