/* The decoders on thousands of random and mutated inputs (meant to run under ASan/UBSan): PM4
 * streams of random dwords and of valid-looking headers with IBs pointing back into themselves,
 * mutated fault reports and mutated .rd files. Every call must return normally with consistent
 * statistics; the sanitizers catch any out-of-bounds read. */
#include "decode_test_util.h"
#include "fault_report.h"
#include "pm4_builder.h"
#include "rd_file.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

#define BASE 0x100000000ull

/* A dword that is usually a valid header (right parity) so the payload decoders get exercised. */
static uint32_t plausible_dword(uint32_t n)
{
	static const uint32_t ops[] = { CP_NOP, CP_INDIRECT_BUFFER, CP_MEM_WRITE, CP_EVENT_WRITE, CP_REG_TO_MEM,
					CP_MEM_TO_REG, CP_MEMCPY, CP_WAIT_REG_MEM, CP_WAIT_MEM_GTE, CP_SET_DRAW_STATE,
					CP_DRAW_INDX_OFFSET, CP_SET_MARKER, CP_REG_RMW, CP_MEM_TO_MEM, CP_COND_REG_EXEC,
					CP_SET_AMBLE, CP_SMMU_TABLE_UPDATE, CP_INDIRECT_BUFFER_CHAIN, 0x7f };
	switch (rnd() % 6) {
	case 0: return pm4_type7_hdr(ops[rnd() % (sizeof(ops) / sizeof(ops[0]))], rnd() % 12);
	case 1: return pm4_type4_hdr(rnd() & 0x3ffff, rnd() % 8);
	case 2: return (uint32_t)(BASE >> 32);                   /* an address hi */
	case 3: return 4 * (rnd() % (n + 4));                      /* an address lo inside the buffer */
	case 4: return rnd() % 64;                                  /* a small count / size */
	default: return rnd();
	}
}

static void test_random_streams(void)
{
	FILE *null = fopen("/dev/null", "w");
	REQUIRE(null);
	for (int iter = 0; iter < 20000; iter++) {
		uint32_t n = rnd() % 300;
		uint32_t *w = malloc(n ? n * 4 : 4); /* exact size: ASan sees any over-read */
		REQUIRE(w);
		bool plausible = iter % 2;
		for (uint32_t i = 0; i < n; i++)
			w[i] = plausible ? plausible_dword(n) : rnd();
		/* The buffer is its own BO, with contents that may end early or be absent. */
		uint32_t contents_len = n ? (rnd() % 3 == 0 ? 4 * (rnd() % n) + rnd() % 4 : 4 * n) : 0;
		struct pm4_decode_bo bos[2] = {
			{ .iova = BASE, .size = 4ull * n + (rnd() % 64), .id = 0, .contents = w,
			  .contents_len = contents_len },
			{ .iova = UINT64_MAX - 0xff, .size = 0x100, .id = 1 },
		};
		struct pm4_decode_options o = { .bos = bos, .nr_bos = 2, .follow_ibs = true,
						.max_depth = rnd() % 10, .max_dwords = 1 + rnd() % 20000,
						.mark = true, .mark_iova = BASE + 4 * (rnd() % (n + 1)) };
		struct pm4_decode_stats st;
		CHECK_EQ(pm4_decode(null, w, n, BASE, &o, &st), 0);
		/* Every header or skipped dword costs budget: the total is bounded by it. */
		CHECK(st.packets + st.bad_dwords <= o.max_dwords);
		CHECK(st.bad_dwords <= n * (st.ibs_followed + 1));
		CHECK(st.truncated <= st.ibs_followed + 1);
		free(w);
	}
	fclose(null);
}

static char *sample_report(size_t *len)
{
	uint32_t cmd[6] = { pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0), pm4_type7_hdr(CP_MEM_WRITE, 3), 0x1000, 1, 5,
			    pm4_type7_hdr(CP_NOP, 0) };
	struct bytes b = { 0 };
	bytes_str(&b, "---\nkernel: 6.1.0-ferry-sim\nmodule: msm\ncomm: t\nrevision: 630 (6.3.0.2)\n"
		      "pagefault-info:\n  - iova=0x0000000100001000\n  - dir=WRITE\n  - type=TRANSLATION\n"
		      "  - source=CP\nsubmit:\n  queue: 1\n  fence: 2\n  prio: 1\ncrash-location:\n  ib-level: 1\n"
		      "  ib-iova: 0x0000000100000000\n  ib-size: 6\n  dword: 1\n  packet: CP_MEM_WRITE (0x3d)\n"
		      "  header: 0x703d8003\n  frame: ib\nlast-packets:\n"
		      "  - { iova: 0x0000000100000000, level: 1, dword: 0, header: 0x70268000, packet: CP_WAIT_FOR_IDLE }\n"
		      "cp-state:\n  render-mode: sysmem\n  draws: 0\nregisters:\n  - { offset: 0x0024a0, value: 0x00001000, name: CP_IB1_BASE }\n"
		      "bos:\n  - iova: 0x0000000100000000\n    size: 4096\n    data: !!ascii85 |\n      ");
	ascii85_put(&b, cmd, 6);
	bytes_str(&b, "\npacket-dump:\n  - iova: 0x0000000100000000\n    dwords: [0x70268000, 0x703d8003]\n");
	*len = b.len;
	return (char *)b.p;
}

static void test_mutated_reports(void)
{
	size_t len;
	char *orig = sample_report(&len);
	FILE *null = fopen("/dev/null", "w");
	REQUIRE(null);
	struct fault_report r;
	char err[256];
	REQUIRE(fault_report_parse(orig, len, &r, err, sizeof(err)) == 0);
	fault_report_free(&r);
	for (int iter = 0; iter < 4000; iter++) {
		size_t n = rnd() % (len + 1); /* truncate, then flip some bytes */
		char *m = malloc(n ? n : 1);
		REQUIRE(m);
		memcpy(m, orig, n);
		for (int k = rnd() % 6; k > 0 && n; k--)
			m[rnd() % n] = (char)(rnd() % 3 ? "0123456789abcdefxz:-= {}!\n"[rnd() % 26] : (char)rnd());
		err[0] = '\0';
		int ret = fault_report_parse(m, n, &r, err, sizeof(err));
		CHECK(ret == 0 || ret == -1);
		if (ret == 0) {
			CHECK_EQ(fault_report_print(null, &r, true), 0);
			fault_report_free(&r);
		} else {
			CHECK(err[0] != '\0');
		}
		free(m);
	}
	fclose(null);
	free(orig);
}

static void test_mutated_rd(void)
{
	uint32_t cmd[8] = { pm4_type7_hdr(CP_INDIRECT_BUFFER, 3), 0x00000020, 1, 3, pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0),
			    pm4_type7_hdr(CP_NOP, 0), 0, 0 };
	struct bytes b = { 0 };
	rd_put_dwords(&b, RD_GPU_ID, (const uint32_t[]){ 630 }, 1);
	rd_put(&b, RD_CMD, "fuzz", 4);
	rd_put_dwords(&b, RD_GPUADDR, (const uint32_t[]){ 0, 32, 1 }, 3);
	rd_put_dwords(&b, RD_BUFFER_CONTENTS, cmd, 8);
	rd_put_dwords(&b, RD_CMDSTREAM_ADDR, (const uint32_t[]){ 0, 8, 1 }, 3);
	FILE *null = fopen("/dev/null", "w");
	REQUIRE(null);
	char err[256];
	REQUIRE(rd_decode(null, b.p, b.len, NULL, err, sizeof(err)) == 0);
	for (int iter = 0; iter < 4000; iter++) {
		size_t n = rnd() % (b.len + 1);
		unsigned char *m = malloc(n ? n : 1);
		REQUIRE(m);
		memcpy(m, b.p, n);
		for (int k = rnd() % 5; k > 0 && n; k--)
			m[rnd() % n] = (unsigned char)(rnd() % 2 ? rnd() : rnd() % 20);
		(void)rd_detect(m, n);
		err[0] = '\0';
		int ret = rd_decode(null, m, n, NULL, err, sizeof(err));
		CHECK(ret == 0 || (ret == -1 && err[0]));
		uint8_t *out = NULL;
		size_t out_len = 0;
		if (rd_gunzip(m, n, 1 << 20, &out, &out_len, err, sizeof(err)) == 0)
			free(out);
		free(m);
	}
	fclose(null);
	free(b.p);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rng_state = strtoull(argv[1], NULL, 0) | 1;
	RUN_TEST(test_random_streams);
	RUN_TEST(test_mutated_reports);
	RUN_TEST(test_mutated_rd);
	return test_finish();
}
