/* The V3D surface layouts on their own (protocol/hw/v3d_tiling.c): offsets worked out by hand from
 * the layout rules, every layout a one-to-one map of an odd-sized image into its span, runs that
 * really are contiguous, and the drivers' UIF padding / XOR choice. */
#include <stdint.h>
#include <stdlib.h>

#include "test.h"
#include "ferry/hw/v3d_tiling.h"

static uint64_t off(enum v3d_cl_memory_format layout, uint32_t cpp, uint32_t stride_or_ub, uint32_t x, uint32_t y)
{
	struct v3d_surface s = { layout, cpp, stride_or_ub, stride_or_ub };
	return v3d_surface_offset(&s, x, y);
}

static void test_utile_sizes(void)
{
	const uint32_t cpps[] = { 1, 2, 4, 8, 16 }, w[] = { 8, 8, 4, 4, 2 }, h[] = { 8, 4, 4, 2, 2 };
	for (unsigned i = 0; i < 5; i++) {
		CHECK_EQ(v3d_utile_width(cpps[i]), w[i]);
		CHECK_EQ(v3d_utile_height(cpps[i]), h[i]);
		CHECK_EQ(w[i] * h[i] * cpps[i], 64);
	}
	CHECK_EQ(v3d_utile_width(3), 0);
	struct v3d_surface rgb = { V3D_CL_MEMORY_UIF_XOR, 3, 0, 4 };
	CHECK(!v3d_surface_valid(&rgb));
	rgb.layout = V3D_CL_MEMORY_RASTER;
	CHECK(v3d_surface_valid(&rgb));
	struct v3d_surface bad = { (enum v3d_cl_memory_format)6, 4, 0, 0 };
	CHECK(!v3d_surface_valid(&bad));
}

static void test_hand_offsets(void)
{
	CHECK_EQ(off(V3D_CL_MEMORY_RASTER, 4, 100, 3, 2), 212);
	/* 32 bpp: 4x4 utiles, 8x8 UIF blocks */
	CHECK_EQ(off(V3D_CL_MEMORY_LINEARTILE, 4, 0, 5, 0), 64 + 4);
	CHECK_EQ(off(V3D_CL_MEMORY_LINEARTILE, 4, 0, 0, 5), 64 + 16);
	CHECK_EQ(off(V3D_CL_MEMORY_UBLINEAR_2, 4, 0, 4, 0), 64);
	CHECK_EQ(off(V3D_CL_MEMORY_UBLINEAR_2, 4, 0, 0, 4), 128);
	CHECK_EQ(off(V3D_CL_MEMORY_UBLINEAR_2, 4, 0, 9, 9), 3 * 256 + 20);
	CHECK_EQ(off(V3D_CL_MEMORY_UBLINEAR_1, 4, 0, 1, 9), 256 + 20);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 4, 2, 8, 8), 5 * 256);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 4, 2, 32, 0), 8 * 256);     /* column 1 after 2 x 4 blocks */
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 4, 2, 39, 15), (8 + 4) * 256 + 192 + 60);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_XOR, 4, 32, 0, 0), 0);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_XOR, 4, 32, 32, 0), (32 * 4 + 16 * 4) * 256); /* row 0 -> 16 */
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_XOR, 4, 32, 32, 16 * 8), (32 * 4) * 256);   /* row 16 -> 0 */
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_XOR, 4, 32, 64, 0), (2 * 32 * 4) * 256);    /* even: no XOR */
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_XOR, 4, 32, 31, 8), 4 * 256 + 3 * 256 + 64 + 12);
	/* 8 bpp: 8x8 utiles, 16x16 blocks; 128 bpp: 2x2 utiles, 4x4 blocks */
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 1, 4, 16, 0), 256);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 1, 4, 0, 16), 1024);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 1, 4, 9, 10), 192 + 2 * 8 + 1);
	CHECK_EQ(off(V3D_CL_MEMORY_LINEARTILE, 16, 0, 2, 0), 64);
	CHECK_EQ(off(V3D_CL_MEMORY_LINEARTILE, 16, 0, 1, 1), 48);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 16, 1, 16, 0), 1 * 4 * 256);
	/* 16 bpp: 8x4 utiles, 16x8 blocks; 64 bpp: 4x2 utiles, 8x4 blocks */
	CHECK_EQ(off(V3D_CL_MEMORY_UBLINEAR_1, 2, 0, 7, 9), 256 + (8 + 7) * 2);
	CHECK_EQ(off(V3D_CL_MEMORY_UIF_NO_XOR, 8, 3, 5, 3), 192 + 1 * 32 + 8);
}

/* Every pixel of a w x h image lands on its own cpp-aligned bytes inside the span, and each run
 * of pixels is contiguous. */
static void check_layout(enum v3d_cl_memory_format layout, uint32_t cpp, uint32_t w, uint32_t h, uint32_t ub)
{
	struct v3d_surface s = { layout, cpp, (w + 3) * cpp, ub };
	REQUIRE(v3d_surface_valid(&s));
	uint64_t span = v3d_surface_span(&s, w, h);
	REQUIRE(span > 0 && span < (64u << 20));
	uint8_t *seen = calloc(1, span);
	REQUIRE(seen);
	unsigned bad = 0;
	uint64_t max_end = 0;
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++) {
			uint64_t o = v3d_surface_offset(&s, x, y);
			if (o % cpp || o + cpp > span) {
				bad++;
				continue;
			}
			if (o + cpp > max_end)
				max_end = o + cpp;
			for (uint32_t b = 0; b < cpp; b++)
				bad += seen[o + b]++ != 0;
			uint32_t run = v3d_surface_run(&s, x);
			if (run > 1 && x + 1 < w && v3d_surface_offset(&s, x + 1, y) != o + cpp)
				bad++;
		}
	}
	if (bad)
		fprintf(stderr, "layout %d cpp %u %ux%u ub %u: %u bad\n", layout, cpp, w, h, ub, bad);
	CHECK_EQ(bad, 0);
	/* the span is tight up to the last block / utile the image touches */
	CHECK(span - max_end < (layout == V3D_CL_MEMORY_RASTER ? 1u : layout == V3D_CL_MEMORY_LINEARTILE ? 64u : 256u));
	free(seen);
}

static void test_one_to_one(void)
{
	const uint32_t cpps[] = { 1, 2, 4, 8, 16 };
	for (unsigned i = 0; i < 5; i++) {
		uint32_t cpp = cpps[i], uw = v3d_utile_width(cpp), uh = v3d_utile_height(cpp);
		check_layout(V3D_CL_MEMORY_RASTER, cpp, 37, 23, 0);
		check_layout(V3D_CL_MEMORY_LINEARTILE, cpp, 3 * uw + 1, uh - 1, 0);   /* one utile row */
		check_layout(V3D_CL_MEMORY_LINEARTILE, cpp, uw, 5 * uh + 3, 0);       /* one utile column */
		check_layout(V3D_CL_MEMORY_UBLINEAR_1, cpp, 2 * uw - 1, 9 * uh + 1, 0);
		check_layout(V3D_CL_MEMORY_UBLINEAR_2, cpp, 4 * uw - 1, 7 * uh + 1, 0);
		uint32_t h = 19 * uh + 1, ub = (h + 2 * uh - 1) / (2 * uh);
		check_layout(V3D_CL_MEMORY_UIF_NO_XOR, cpp, 21 * uw + 3, h, ub);
		check_layout(V3D_CL_MEMORY_UIF_NO_XOR, cpp, 9 * uw, h, ub + 5); /* padded */
		/* XOR needs the padded height at a page-cache multiple (32 block rows) */
		check_layout(V3D_CL_MEMORY_UIF_XOR, cpp, 17 * uw + 1, 2 * uh * 30 + 1, 32);
		check_layout(V3D_CL_MEMORY_UIF_XOR, cpp, 16 * uw, 2 * uh * 64, 64);
		check_layout(V3D_CL_MEMORY_UIF_XOR, cpp, 8 * uw + 2, 2 * uh * 3, 32);
	}
}

static void test_uif_padding_rule(void)
{
	/* 32 bpp: 8-pixel block rows */
	CHECK_EQ(v3d_uif_pad_blocks(4, 512), 0);     /* 64 rows: a page-cache multiple */
	CHECK(v3d_uif_wants_xor(64));
	CHECK_EQ(v3d_uif_pad_blocks(4, 33 * 8), 5);  /* 1 row past: pad to 1.5 pages past */
	CHECK(!v3d_uif_wants_xor(38));
	CHECK_EQ(v3d_uif_pad_blocks(4, 30 * 8), 2);  /* close below: round up and XOR */
	CHECK(v3d_uif_wants_xor(32));
	CHECK_EQ(v3d_uif_pad_blocks(4, 20 * 8), 0);  /* far from both */
	CHECK_EQ(v3d_uif_pad_blocks(4, 3 * 8), 0);   /* inside one page cache */
	CHECK_EQ(v3d_uif_pad_blocks(1, 70 * 16), 0); /* 70 % 32 = 6: not below 1.5 pages */
	CHECK_EQ(v3d_uif_pad_blocks(16, 37 * 4), 1); /* 37 % 32 = 5 */
	CHECK_EQ(v3d_uif_pad_blocks(3, 100), 0);
}

int main(void)
{
	RUN_TEST(test_utile_sizes);
	RUN_TEST(test_hand_offsets);
	RUN_TEST(test_one_to_one);
	RUN_TEST(test_uif_padding_rule);
	return test_finish();
}
