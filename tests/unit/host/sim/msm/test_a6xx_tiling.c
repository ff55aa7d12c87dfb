/* TILE6_3 addressing and the UBWC flag layout (host/sim/msm/a6xx_tiling.c), against offsets worked
 * out by hand from the layout's description, and as a whole: every surface maps its texels one
 * to one onto its bytes. */
#include <stdlib.h>

#include "sim/msm/a6xx_tiling.h"
#include "test.h"

static uint64_t off(uint32_t cpp, uint64_t pitch, uint32_t x, uint32_t y)
{
	struct a6xx_tile3 t;
	REQUIRE(a6xx_tile3_init(&t, cpp, pitch));
	return a6xx_tile3_offset(&t, x, y);
}

/* Worked examples for cpp 4 (16x4 blocks, 256-byte pitch granule). */
static void test_cpp4_offsets(void)
{
	CHECK_EQ(off(4, 256, 0, 0), 0);
	CHECK_EQ(off(4, 256, 1, 0), 4);       /* x0 -> texel bit 0 */
	CHECK_EQ(off(4, 256, 0, 1), 8);       /* y0 -> bit 1 */
	CHECK_EQ(off(4, 256, 2, 0), 16);      /* x1 -> bit 2 */
	CHECK_EQ(off(4, 256, 0, 2), 32);      /* y1 -> bit 3 */
	CHECK_EQ(off(4, 256, 4, 0), 64);      /* x2 -> bit 4 */
	CHECK_EQ(off(4, 256, 15, 3), 63 * 4);       /* the block's last texel */
	CHECK_EQ(off(4, 256, 16, 0), 7 * 256); /* block x0: b0 b1 b2 */
	CHECK_EQ(off(4, 256, 0, 4), 6 * 256);  /* block y0: b1 b2 */
	CHECK_EQ(off(4, 256, 0, 8), 3 * 256);  /* block y1: b0 b1 */
	CHECK_EQ(off(4, 256, 0, 12), 5 * 256); /* y0 and y1: b0 b2 */
	CHECK_EQ(off(4, 256, 32, 0), 2048 + 2 * 256); /* next half-macrotile; x1 into b1 */
	CHECK_EQ(off(4, 256, 0, 16), 256 * 16);       /* next macrotile row */
	CHECK_EQ(off(4, 512, 5, 17), 512 * 16 + (1 + 2 + 16) * 4);
}

/* cpp 16 has no x1 term in b1; cpp 1 has 32x8 blocks with y2 at texel bit 7. */
static void test_other_cpps(void)
{
	CHECK_EQ(off(16, 256, 4, 0), 7 * 256);
	CHECK_EQ(off(16, 256, 8, 0), 2048);   /* b1 keeps x0^y0^y1 = 0 */
	CHECK_EQ(off(8, 256, 16, 0), 2048 + 512);
	CHECK_EQ(off(1, 128, 0, 4), 128);     /* y2 */
	CHECK_EQ(off(1, 128, 31, 0), 1 + 4 + 16 + 32 + 64);
	CHECK_EQ(off(1, 128, 32, 0), 7 * 256);
	CHECK_EQ(off(1, 128, 0, 32), 128 * 32);
	CHECK_EQ(off(2, 256, 31, 3), 2 * (1 + 2 + 4 + 8 + 16 + 32 + 64));
}

/* Bank swizzle: with 8 macrotiles per row (2048 bytes at cpp 4) bit 0 of the macrotile row goes
 * into byte bit 14; with 16, bit 1 also into bit 15. cpp 1 needs twice the width. */
static void test_bank_swizzle(void)
{
	CHECK_EQ(off(4, 1792, 0, 16), 1792 * 16);          /* 7 macrotiles: none */
	CHECK_EQ(off(4, 2048, 0, 16), 2048 * 16 + 16384);
	CHECK_EQ(off(4, 2048, 0, 32), 2048 * 32);           /* row 2: level 3 needs 16 */
	CHECK_EQ(off(4, 4096, 0, 32), 4096 * 32 + 32768);
	CHECK_EQ(off(4, 4096, 0, 48), 4096 * 48 + 32768 + 16384);
	CHECK_EQ(off(4, 4096, 64, 16), 4096 * 16 + 2 * 2048 + 16384); /* block x 4: x1 = 0 */
	CHECK_EQ(off(1, 1024, 0, 32), 1024 * 32);           /* 8 macrotiles of cpp 1: none */
	CHECK_EQ(off(1, 2048, 0, 32), 2048 * 32 + 16384);
}

static void test_refused(void)
{
	struct a6xx_tile3 t = { .cpp = 99 };
	CHECK(!a6xx_tile3_init(&t, 3, 768));
	CHECK(!a6xx_tile3_init(&t, 12, 3072));
	CHECK(!a6xx_tile3_init(&t, 32, 512));
	CHECK(!a6xx_tile3_init(&t, 4, 0));
	CHECK(!a6xx_tile3_init(&t, 4, 320));  /* not whole macrotiles */
	CHECK(!a6xx_tile3_init(&t, 1, 192));
	CHECK_EQ(t.cpp, 99);
	CHECK_EQ(a6xx_tile3_pitch_align(1), 128);
	CHECK_EQ(a6xx_tile3_pitch_align(8), 256);
	CHECK_EQ(a6xx_tile3_pitch_align(3), 0);
}

/* Every texel of a surface lands on its own cpp bytes inside pitch x (rows aligned to a
 * macrotile row): the layout is a permutation of the surface's bytes. */
static void test_bijection(void)
{
	static const uint32_t cpps[] = { 1, 2, 4, 8, 16 };
	static const uint32_t granules[] = { 1, 3, 8, 16, 32 };
	for (unsigned c = 0; c < 5; c++) {
		for (unsigned g = 0; g < 5; g++) {
			uint32_t cpp = cpps[c];
			uint64_t pitch = (uint64_t)a6xx_tile3_pitch_align(cpp) * granules[g];
			struct a6xx_tile3 t;
			REQUIRE(a6xx_tile3_init(&t, cpp, pitch));
			uint32_t w = (uint32_t)(pitch / cpp), h = 4u << t.bh_log2 << 2; /* 4 macrotile rows */
			uint64_t size = pitch * h;
			uint8_t *seen = calloc(size / cpp, 1);
			REQUIRE(seen);
			bool ok = true;
			for (uint32_t y = 0; y < h && ok; y++) {
				for (uint32_t x = 0; x < w; x++) {
					uint64_t o = a6xx_tile3_offset(&t, x, y);
					if (o % cpp || o >= size || seen[o / cpp]++) {
						ok = false;
						fprintf(stderr, "  cpp %u pitch %llu: (%u, %u) -> %llu\n", cpp,
							(unsigned long long)pitch, x, y, (unsigned long long)o);
						break;
					}
				}
			}
			CHECK(ok);
			free(seen);
		}
	}
}

static void test_ubwc_flags(void)
{
	uint32_t w, h;
	CHECK(a6xx_ubwc_block(2, &w, &h) && w == 16 && h == 4);
	CHECK(a6xx_ubwc_block(8, &w, &h) && w == 8 && h == 4);
	CHECK(a6xx_ubwc_block(16, &w, &h) && w == 4 && h == 4);
	CHECK(!a6xx_ubwc_block(3, &w, &h));
	CHECK_EQ(a6xx_ubwc_flag_offset(4, 64, 0, 0), 0);
	CHECK_EQ(a6xx_ubwc_flag_offset(4, 64, 15, 3), 0);
	CHECK_EQ(a6xx_ubwc_flag_offset(4, 64, 16, 3), 1);
	CHECK_EQ(a6xx_ubwc_flag_offset(4, 64, 17, 4), 65);
	CHECK_EQ(a6xx_ubwc_flag_offset(16, 128, 9, 9), 2 * 128 + 2);
}

int main(void)
{
	RUN_TEST(test_cpp4_offsets);
	RUN_TEST(test_other_cpps);
	RUN_TEST(test_bank_swizzle);
	RUN_TEST(test_refused);
	RUN_TEST(test_bijection);
	RUN_TEST(test_ubwc_flags);
	return test_finish();
}
