/* CP model: CP_BLIT with TILE6_3 and UBWC ends, and the fill conversions Turnip's clears use.
 * Tiled bytes are checked against host/sim/msm/a6xx_tiling.c (itself tested by hand-worked offsets
 * in test_a6xx_tiling) and round trips through the engine against linear copies. */
#include <stdlib.h>
#include <string.h>

#include "cp_fixture.h"
#include "ferry/hw/a6xx_regs.h"
#include "sim/msm/a6xx_tiling.h"

static struct sim_msm_device *dev;

#define BO_SIZE (256u * 1024u)
#define UNTOUCHED 0xee

struct surf {
	uint32_t info; /* RB_2D_DST_INFO / SP_PS_2D_SRC_INFO */
	uint64_t va;
	uint32_t pitch;
	uint64_t flags;
	uint32_t flag_pitch;
};

struct blit {
	uint32_t fmt, ifmt;
	bool fill;
	uint32_t clear[4];
	struct surf src, dst;
	uint32_t sx, sy, dx, dy, w, h;
	uint32_t unknown_8c01; /* RB_2D_UNKNOWN_8C01: D24S8 aspect preserved */
};

static uint32_t info_of(uint32_t fmt, uint32_t tile, bool ubwc)
{
	return A6XX_2D_SURF_INFO_COLOR_FORMAT(fmt) | A6XX_2D_SURF_INFO_TILE_MODE(tile) |
	       A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX) | (ubwc ? A6XX_2D_SURF_INFO_FLAGS : 0);
}

/* Turnip's r2d_setup / r2d_src / r2d_dst / r2d_coords / r2d_run, in one. */
static void emit_blit(struct pm4_builder *b, const struct blit *bl)
{
	pm4_set_marker(b, RM6_BLIT2DSCALE);
	PM4_PKT4(b, REG_A6XX_RB_2D_UNKNOWN_8C01, bl->unknown_8c01);
	uint32_t cntl = A6XX_2D_BLIT_CNTL_COLOR_FORMAT(bl->fmt) | A6XX_2D_BLIT_CNTL_MASK(0xf) |
			A6XX_2D_BLIT_CNTL_IFMT(bl->ifmt) | (bl->fill ? A6XX_2D_BLIT_CNTL_SOLID_COLOR : 0);
	PM4_PKT4(b, REG_A6XX_RB_2D_BLIT_CNTL, cntl);
	PM4_PKT4(b, REG_A6XX_GRAS_2D_BLIT_CNTL, cntl);
	PM4_PKT4(b, REG_A6XX_RB_2D_SRC_SOLID_C0, bl->clear[0], bl->clear[1], bl->clear[2], bl->clear[3]);
	if (!bl->fill) {
		PM4_PKT4(b, REG_A6XX_SP_PS_2D_SRC_INFO, bl->src.info,
			 A6XX_SP_PS_2D_SRC_SIZE_WIDTH(bl->sx + bl->w) | A6XX_SP_PS_2D_SRC_SIZE_HEIGHT(bl->sy + bl->h),
			 (uint32_t)bl->src.va, (uint32_t)(bl->src.va >> 32), A6XX_SP_PS_2D_SRC_PITCH_PITCH(bl->src.pitch));
		PM4_PKT4(b, REG_A6XX_SP_PS_2D_SRC_FLAGS, (uint32_t)bl->src.flags, (uint32_t)(bl->src.flags >> 32),
			 A6XX_FLAG_BUFFER_PITCH_PITCH(bl->src.flag_pitch));
		PM4_PKT4(b, REG_A6XX_GRAS_2D_SRC_TL_X, A6XX_GRAS_2D_SRC_COORD(bl->sx),
			 A6XX_GRAS_2D_SRC_COORD(bl->sx + bl->w - 1), A6XX_GRAS_2D_SRC_COORD(bl->sy),
			 A6XX_GRAS_2D_SRC_COORD(bl->sy + bl->h - 1));
	}
	PM4_PKT4(b, REG_A6XX_RB_2D_DST_INFO, bl->dst.info, (uint32_t)bl->dst.va, (uint32_t)(bl->dst.va >> 32),
		 A6XX_RB_2D_DST_PITCH_PITCH(bl->dst.pitch));
	PM4_PKT4(b, REG_A6XX_RB_2D_DST_FLAGS, (uint32_t)bl->dst.flags, (uint32_t)(bl->dst.flags >> 32),
		 A6XX_FLAG_BUFFER_PITCH_PITCH(bl->dst.flag_pitch));
	PM4_PKT4(b, REG_A6XX_GRAS_2D_DST_TL, A6XX_REG_XY(bl->dx, bl->dy),
		 A6XX_REG_XY(bl->dx + bl->w - 1, bl->dy + bl->h - 1));
	pm4_wait_for_idle(b);
	PM4_PKT7(b, CP_BLIT, CP_BLIT_0_OP(BLIT_OP_SCALE));
	pm4_wait_for_idle(b);
}

struct env {
	struct fixture f;
	struct tbo a, b, c; /* three surfaces' BOs */
};

static void env_init(struct env *e)
{
	fx_init(dev, &e->f);
	e->a = tbo_new(e->f.k, BO_SIZE);
	e->b = tbo_new(e->f.k, BO_SIZE);
	e->c = tbo_new(e->f.k, BO_SIZE);
	uint32_t seed = 777;
	for (uint32_t i = 0; i < BO_SIZE; i++) {
		seed = seed * 1664525u + 1013904223u;
		((uint8_t *)e->a.cpu)[i] = (uint8_t)(seed >> 24);
	}
	memset(e->b.cpu, UNTOUCHED, BO_SIZE);
	memset(e->c.cpu, UNTOUCHED, BO_SIZE);
}

static void env_run(struct env *e)
{
	REQUIRE(pm4_builder_ok(&e->f.b));
	const struct tbo *bos[3] = { &e->a, &e->b, &e->c };
	uint32_t fence;
	REQUIRE(submit_ib_bos(e->f.k, 0, &e->f.cmd, e->f.b.len, bos, 3, &fence) == 0);
	CHECK_EQ(wait_fence_ms(e->f.k, 0, fence, 20000), 0);
	fx_reset(&e->f);
}

static void env_fini(struct env *e)
{
	tbo_free(e->f.k, &e->a);
	tbo_free(e->f.k, &e->b);
	tbo_free(e->f.k, &e->c);
	fx_fini(&e->f);
}

static uint64_t skipped_blits(void)
{
	struct sim_msm_cp_stats st;
	sim_msm_get_cp_stats(dev, &st);
	return st.skipped[CP_BLIT];
}

/* A tiled fill writes exactly the texels a6xx_tile3_offset names; copied tiled -> linear it
 * equals the same fill done linear. */
static void test_tiled_fill(void)
{
	static const uint32_t cpps[] = { 1, 2, 4, 8, 16 };
	static const uint32_t fmts[] = { FMT6_8_UINT, FMT6_16_UINT, FMT6_32_UINT, FMT6_32_32_UINT,
					 FMT6_32_32_32_32_UINT };
	static const uint32_t ifmts[] = { R2D_INT8, R2D_INT16, R2D_INT32, R2D_INT32, R2D_INT32 };
	for (unsigned c = 0; c < 5; c++) {
		struct env e;
		env_init(&e);
		uint32_t cpp = cpps[c], pitch = a6xx_tile3_pitch_align(cpp) * 2, w = 37, h = 21, x0 = 5, y0 = 3;
		struct blit fill = { .fmt = fmts[c], .ifmt = ifmts[c], .fill = true,
				     .clear = { 0x11223344u, 0x55667788u, 0x99aabbccu, 0xddeeff01u },
				     .dst = { info_of(fmts[c], TILE6_3, false), e.b.iova, pitch, 0, 0 },
				     .dx = x0, .dy = y0, .w = w, .h = h };
		emit_blit(&e.f.b, &fill);
		struct blit lin = fill;
		lin.dst = (struct surf){ info_of(fmts[c], TILE6_LINEAR, false), e.c.iova, pitch, 0, 0 };
		lin.dst.va = e.c.iova + 8192;
		emit_blit(&e.f.b, &lin);
		struct blit back = { .fmt = fmts[c], .ifmt = ifmts[c], .src = fill.dst,
				     .dst = { info_of(fmts[c], TILE6_LINEAR, false), e.c.iova, pitch, 0, 0 },
				     .sx = x0, .sy = y0, .dx = x0, .dy = y0, .w = w, .h = h };
		emit_blit(&e.f.b, &back);
		uint64_t skipped0 = skipped_blits();
		env_run(&e);
		CHECK_EQ(skipped_blits(), skipped0);

		uint8_t texel[16];
		for (uint32_t i = 0; i < cpp; i++)
			texel[i] = (uint8_t)(fill.clear[0] >> (8 * (i % 4)));
		if (cpp >= 8)
			for (uint32_t i = 0; i < cpp; i++)
				texel[i] = (uint8_t)(fill.clear[i / 4] >> (8 * (i % 4)));
		uint8_t *expect = malloc(BO_SIZE);
		REQUIRE(expect);
		memset(expect, UNTOUCHED, BO_SIZE);
		struct a6xx_tile3 t;
		REQUIRE(a6xx_tile3_init(&t, cpp, pitch));
		for (uint32_t y = y0; y < y0 + h; y++)
			for (uint32_t x = x0; x < x0 + w; x++)
				memcpy(expect + a6xx_tile3_offset(&t, x, y), texel, cpp);
		CHECK(memcmp(e.b.cpu, expect, BO_SIZE) == 0);
		/* Linear read-back == linear fill, row by row. */
		const uint8_t *cb = (const uint8_t *)e.c.cpu;
		for (uint32_t y = y0; y < y0 + h; y++)
			CHECK(memcmp(cb + y * pitch + x0 * cpp, cb + 8192 + y * pitch + x0 * cpp, w * cpp) == 0);
		CHECK(memcmp(cb + y0 * pitch + x0 * cpp, texel, cpp) == 0);
		free(expect);
		CHECK_EQ(queue_faults(e.f.k, 0), 0);
		env_fini(&e);
	}
}

/* linear -> tiled -> tiled (another offset) -> linear reproduces the source texels; the tiled
 * copy holds them where a6xx_tile3_offset says. Pitches wide enough for the bank swizzle. */
static void test_tiled_copies(void)
{
	static const uint32_t pitches[] = { 512, 2048, 4096 };
	for (unsigned i = 0; i < 3; i++) {
		struct env e;
		env_init(&e);
		uint32_t pitch = pitches[i], w = pitch / 4 - 8, h = 16384 / pitch * 2 + 17;
		uint32_t fmt = FMT6_8_8_8_8_UNORM;
		struct surf lin_a = { info_of(fmt, TILE6_LINEAR, false), e.a.iova, pitch, 0, 0 };
		struct surf til_b = { info_of(fmt, TILE6_3, false), e.b.iova, pitch, 0, 0 };
		struct surf lin_c = { info_of(fmt, TILE6_LINEAR, false), e.c.iova, pitch, 0, 0 };
		struct blit up = { .fmt = fmt, .ifmt = R2D_UNORM8, .src = lin_a, .dst = til_b, .sx = 0, .sy = 0,
				   .dx = 3, .dy = 1, .w = w, .h = h };
		struct blit down = { .fmt = fmt, .ifmt = R2D_UNORM8, .src = til_b, .dst = lin_c, .sx = 3, .sy = 1,
				     .dx = 0, .dy = 0, .w = w, .h = h };
		emit_blit(&e.f.b, &up);
		emit_blit(&e.f.b, &down);
		env_run(&e);
		struct a6xx_tile3 t;
		REQUIRE(a6xx_tile3_init(&t, 4, pitch));
		bool placed = true;
		for (uint32_t y = 0; y < h && placed; y++)
			for (uint32_t x = 0; x < w; x++)
				if (memcmp((uint8_t *)e.b.cpu + a6xx_tile3_offset(&t, x + 3, y + 1),
					   (uint8_t *)e.a.cpu + y * pitch + x * 4, 4)) {
					placed = false;
					break;
				}
		CHECK(placed);
		for (uint32_t y = 0; y < h; y++) {
			CHECK(memcmp((uint8_t *)e.c.cpu + y * pitch, (uint8_t *)e.a.cpu + y * pitch, w * 4) == 0);
			CHECK(((uint8_t *)e.c.cpu)[y * pitch + w * 4] == UNTOUCHED);
		}
		CHECK_EQ(queue_faults(e.f.k, 0), 0);
		env_fini(&e);
	}
}

/* UBWC: linear -> UBWC writes the data tiled and flags the blocks "uncompressed"; UBWC -> linear
 * reads it back. A flag the model did not write makes a read unmodeled: counted, nothing
 * written. */
static void test_ubwc(void)
{
	struct env e;
	env_init(&e);
	uint32_t fmt = FMT6_8_8_8_8_UNORM, pitch = 256, w = 48, h = 12, fpitch = 64;
	uint64_t flags = e.b.iova + 128 * 1024;
	struct surf lin_a = { info_of(fmt, TILE6_LINEAR, false), e.a.iova, pitch, 0, 0 };
	struct surf ubwc = { info_of(fmt, TILE6_3, true), e.b.iova, pitch, flags, fpitch };
	struct surf lin_c = { info_of(fmt, TILE6_LINEAR, false), e.c.iova, pitch, 0, 0 };
	struct blit up = { .fmt = fmt, .ifmt = R2D_UNORM8, .src = lin_a, .dst = ubwc, .dx = 16, .dy = 4, .w = w, .h = h };
	struct blit down = { .fmt = fmt, .ifmt = R2D_UNORM8, .src = ubwc, .dst = lin_c, .sx = 16, .sy = 4, .w = w, .h = h };
	emit_blit(&e.f.b, &up);
	emit_blit(&e.f.b, &down);
	uint64_t skipped0 = skipped_blits();
	env_run(&e);
	CHECK_EQ(skipped_blits(), skipped0);
	const uint8_t *fl = (const uint8_t *)e.b.cpu + 128 * 1024;
	for (uint32_t fy = 0; fy < 8; fy++)
		for (uint32_t fx = 0; fx < 8; fx++) {
			bool touched = fy >= 1 && fy < 4 && fx >= 1 && fx < 4;
			CHECK_EQ(fl[fy * fpitch + fx], touched ? A6XX_UBWC_FLAG_UNCOMPRESSED : UNTOUCHED);
		}
	for (uint32_t y = 0; y < h; y++)
		CHECK(memcmp((uint8_t *)e.c.cpu + y * pitch, (uint8_t *)e.a.cpu + y * pitch, w * 4) == 0);

	/* A block compressed by someone else: the read is counted and writes nothing. */
	memset(e.c.cpu, UNTOUCHED, BO_SIZE);
	((uint8_t *)e.b.cpu)[128 * 1024 + 2 * fpitch + 2] = 0x35;
	emit_blit(&e.f.b, &down);
	env_run(&e);
	CHECK_EQ(skipped_blits(), skipped0 + 1);
	uint8_t *none = calloc(1, BO_SIZE);
	REQUIRE(none);
	memset(none, UNTOUCHED, BO_SIZE);
	CHECK(memcmp(e.c.cpu, none, BO_SIZE) == 0);
	/* Overwriting that block whole is fine; a partial write of it is not. */
	struct blit part = up;
	part.w = 8;
	part.dx = 32;
	part.dy = 8;
	part.h = 4;
	emit_blit(&e.f.b, &part);
	env_run(&e);
	CHECK_EQ(skipped_blits(), skipped0 + 2);
	CHECK_EQ(fl[2 * fpitch + 2], 0x35);
	part.w = 16;
	emit_blit(&e.f.b, &part);
	env_run(&e);
	CHECK_EQ(skipped_blits(), skipped0 + 2);
	CHECK_EQ(fl[2 * fpitch + 2], A6XX_UBWC_FLAG_UNCOMPRESSED);
	free(none);
	CHECK_EQ(queue_faults(e.f.k, 0), 0);
	env_fini(&e);
}

/* A BGRA buffer (WXYZ) copied into a tiled image (always WZYX) lands with R and B exchanged,
 * and comes back unchanged; the same for 16-bit channels. */
static void test_swap_copies(void)
{
	static const uint32_t fmts[] = { FMT6_8_8_8_8_UNORM, FMT6_16_16_16_16_FLOAT };
	for (unsigned f = 0; f < 2; f++) {
		struct env e;
		env_init(&e);
		uint32_t fmt = fmts[f], cpp = f ? 8 : 4, ch = cpp / 4, pitch = 512, w = 40, h = 9;
		uint32_t bgra = A6XX_2D_SURF_INFO_COLOR_FORMAT(fmt) | A6XX_2D_SURF_INFO_COLOR_SWAP(WXYZ);
		struct surf lin_a = { bgra, e.a.iova, pitch, 0, 0 };
		struct surf til_b = { info_of(fmt, TILE6_3, false), e.b.iova, pitch, 0, 0 };
		struct surf lin_c = { bgra, e.c.iova, pitch, 0, 0 };
		uint32_t ifmt = f ? R2D_FLOAT16 : R2D_UNORM8;
		struct blit up = { .fmt = fmt, .ifmt = ifmt, .src = lin_a, .dst = til_b, .w = w, .h = h };
		struct blit down = { .fmt = fmt, .ifmt = ifmt, .src = til_b, .dst = lin_c, .w = w, .h = h };
		uint64_t skipped0 = skipped_blits();
		emit_blit(&e.f.b, &up);
		emit_blit(&e.f.b, &down);
		env_run(&e);
		CHECK_EQ(skipped_blits(), skipped0);
		struct a6xx_tile3 t;
		REQUIRE(a6xx_tile3_init(&t, cpp, pitch));
		bool ok = true;
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				const uint8_t *src = (const uint8_t *)e.a.cpu + y * pitch + x * cpp;
				const uint8_t *til = (const uint8_t *)e.b.cpu + a6xx_tile3_offset(&t, x, y);
				ok = ok && memcmp(til, src + 2 * ch, ch) == 0 && memcmp(til + ch, src + ch, ch) == 0 &&
				     memcmp(til + 2 * ch, src, ch) == 0 && memcmp(til + 3 * ch, src + 3 * ch, ch) == 0;
			}
		CHECK(ok);
		for (uint32_t y = 0; y < h; y++)
			CHECK(memcmp((uint8_t *)e.c.cpu + y * pitch, (uint8_t *)e.a.cpu + y * pitch, w * cpp) == 0);
		env_fini(&e);
	}
}

/* D24S8 aspect clears (Turnip: FMT6_Z24_UNORM_S8_UINT through UNORM8, RB_2D_UNKNOWN_8C01
 * keeping the other aspect), on a tiled surface. */
static void test_d24s8_aspect_fills(void)
{
	struct env e;
	env_init(&e);
	uint32_t fmt = FMT6_Z24_UNORM_S8_UINT, pitch = 256;
	struct blit f = { .fmt = fmt, .ifmt = R2D_UNORM8, .fill = true, .clear = { 0x33, 0x22, 0x11, 0x07 },
			  .dst = { info_of(fmt, TILE6_3, false), e.b.iova, pitch, 0, 0 }, .w = 16, .h = 4 };
	emit_blit(&e.f.b, &f);
	f.clear[0] = 0xcc, f.clear[1] = 0xbb, f.clear[2] = 0xaa, f.clear[3] = 0x99;
	f.w = 8;
	f.unknown_8c01 = A6XX_RB_2D_UNKNOWN_8C01_KEEP_STENCIL; /* depth only */
	emit_blit(&e.f.b, &f);
	f.dx = 8;
	f.clear[3] = 0x5a;
	f.unknown_8c01 = A6XX_RB_2D_UNKNOWN_8C01_KEEP_DEPTH; /* stencil only */
	emit_blit(&e.f.b, &f);
	uint64_t skipped0 = skipped_blits();
	env_run(&e);
	CHECK_EQ(skipped_blits(), skipped0);
	struct a6xx_tile3 t;
	REQUIRE(a6xx_tile3_init(&t, 4, pitch));
	uint32_t a, b;
	memcpy(&a, (uint8_t *)e.b.cpu + a6xx_tile3_offset(&t, 0, 0), 4);
	memcpy(&b, (uint8_t *)e.b.cpu + a6xx_tile3_offset(&t, 8, 3), 4);
	CHECK_EQ(a, 0x07aabbccu);
	CHECK_EQ(b, 0x5a112233u);
	env_fini(&e);
}

/* The fill conversions Turnip's r2d_clear_value relies on, one row per format class: the
 * packed clear registers and what one texel must hold. */
static void test_fill_conversions(void)
{
	static const struct {
		const char *what;
		uint32_t fmt, ifmt, swap;
		uint32_t c[4];
		uint32_t cpp;
		uint8_t texel[16];
	} cases[] = {
		{ "8_8_8_8_UNORM", FMT6_8_8_8_8_UNORM, R2D_UNORM8, WZYX, { 0xff, 0x80, 0x01, 0x00 }, 4, { 0xff, 0x80, 0x01, 0 } },
		{ "8_8_8_8_UNORM BGRA", FMT6_8_8_8_8_UNORM, R2D_UNORM8, WXYZ, { 0x10, 0x20, 0x30, 0x40 }, 4, { 0x30, 0x20, 0x10, 0x40 } },
		{ "8_8_SNORM", FMT6_8_8_SNORM, R2D_UNORM8, WZYX, { (uint32_t)-127, 127 }, 2, { 0x81, 0x7f } },
		{ "8_8_8_8_SINT", FMT6_8_8_8_8_SINT, R2D_INT8, WZYX, { (uint32_t)-1, 2, (uint32_t)-128, 127 }, 4, { 0xff, 2, 0x80, 0x7f } },
		{ "16_UNORM 0.5", FMT6_16_UNORM, R2D_FLOAT32, WZYX, { 0x3f000000u }, 2, { 0x00, 0x80 } },
		{ "16_UNORM 2.0 clamps", FMT6_16_UNORM, R2D_FLOAT32, WZYX, { 0x40000000u }, 2, { 0xff, 0xff } },
		{ "16_16_SNORM -1 1", FMT6_16_16_SNORM, R2D_FLOAT32, WZYX, { 0xbf800000u, 0x3f800000u }, 4, { 0x01, 0x80, 0xff, 0x7f } },
		{ "16_16_16_16_FLOAT", FMT6_16_16_16_16_FLOAT, R2D_FLOAT16, WZYX, { 0x3c00, 0xc000, 0x7bff, 0 }, 8, { 0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0, 0 } },
		{ "16_16_UINT", FMT6_16_16_UINT, R2D_INT16, WZYX, { 0xbeef, 0x1234 }, 4, { 0xef, 0xbe, 0x34, 0x12 } },
		{ "32_FLOAT (D32F)", FMT6_32_FLOAT, R2D_FLOAT32, WZYX, { 0x3f400000u }, 4, { 0, 0, 0x40, 0x3f } },
		{ "32_32_SINT", FMT6_32_32_SINT, R2D_INT32, WZYX, { 0x80000000u, 7 }, 8, { 0, 0, 0, 0x80, 7, 0, 0, 0 } },
		{ "D16 (16_UNORM) 1.0", FMT6_16_UNORM, R2D_FLOAT32, WZYX, { 0x3f800000u }, 2, { 0xff, 0xff } },
		{ "S8 (8_UINT)", FMT6_8_UINT, R2D_INT8, WZYX, { 0x5a }, 1, { 0x5a } },
		{ "Z24S8 as 8_8_8_8", FMT6_Z24_UNORM_S8_UINT_AS_R8G8B8A8, R2D_UNORM8, WZYX, { 0xcc, 0xbb, 0xaa, 0x07 }, 4, { 0xcc, 0xbb, 0xaa, 0x07 } },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct env e;
		env_init(&e);
		uint32_t info = A6XX_2D_SURF_INFO_COLOR_FORMAT(cases[i].fmt) | A6XX_2D_SURF_INFO_COLOR_SWAP(cases[i].swap);
		struct blit f = { .fmt = cases[i].fmt, .ifmt = cases[i].ifmt, .fill = true,
				  .dst = { info, e.b.iova, 256, 0, 0 }, .dx = 1, .dy = 1, .w = 3, .h = 2 };
		memcpy(f.clear, cases[i].c, sizeof(f.clear));
		uint64_t skipped0 = skipped_blits();
		emit_blit(&e.f.b, &f);
		env_run(&e);
		CHECK_EQ(skipped_blits(), skipped0);
		const uint8_t *d = (const uint8_t *)e.b.cpu;
		bool ok = d[256 + 0] == UNTOUCHED && d[256 + 4 * cases[i].cpp] == UNTOUCHED;
		for (uint32_t y = 1; y < 3; y++)
			for (uint32_t x = 1; x < 4; x++)
				ok = ok && memcmp(d + y * 256 + x * cases[i].cpp, cases[i].texel, cases[i].cpp) == 0;
		if (!ok)
			fprintf(stderr, "  %s: wrong texels\n", cases[i].what);
		CHECK(ok);
		env_fini(&e);
	}
}

/* Hostile tiled surfaces: a macrotile row past the BO faults before anything is written; a
 * pitch that is not whole macrotiles is not modeled (counted, nothing written). */
static void test_tiled_hostile(void)
{
	struct env e;
	env_init(&e);
	uint32_t fmt = FMT6_32_UINT;
	uint64_t faults0 = get_param(e.f.k, MSM_PARAM_FAULTS);
	/* Rows 0..15 fit; the last macrotile row (rows 48..63 at pitch 64K) lies past the BO. */
	struct blit f = { .fmt = fmt, .ifmt = R2D_INT32, .fill = true, .clear = { 1 },
			  .dst = { info_of(fmt, TILE6_3, false), e.b.iova, 65536 - 256, 0, 0 },
			  .dx = 0, .dy = 0, .w = 16, .h = 64 };
	emit_blit(&e.f.b, &f);
	env_run(&e);
	CHECK_EQ(get_param(e.f.k, MSM_PARAM_FAULTS), faults0 + 1);
	uint8_t *none = malloc(BO_SIZE);
	REQUIRE(none);
	memset(none, UNTOUCHED, BO_SIZE);
	CHECK(memcmp(e.b.cpu, none, BO_SIZE) == 0);
	/* A UBWC flag buffer outside every BO faults too. */
	f.h = 4;
	f.dst.info = info_of(fmt, TILE6_3, true);
	f.dst.flags = 0xdead0000000ull;
	f.dst.flag_pitch = 64;
	emit_blit(&e.f.b, &f);
	env_run(&e);
	CHECK_EQ(get_param(e.f.k, MSM_PARAM_FAULTS), faults0 + 2);
	CHECK(memcmp(e.b.cpu, none, BO_SIZE) == 0);
	/* Pitch of 1.5 macrotiles. */
	uint64_t skipped0 = skipped_blits();
	f.dst = (struct surf){ info_of(fmt, TILE6_3, false), e.b.iova, 384, 0, 0 };
	emit_blit(&e.f.b, &f);
	env_run(&e);
	CHECK_EQ(skipped_blits(), skipped0 + 1);
	CHECK(memcmp(e.b.cpu, none, BO_SIZE) == 0);
	free(none);
	env_fini(&e);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_tiled_fill);
	RUN_TEST(test_tiled_copies);
	RUN_TEST(test_ubwc);
	RUN_TEST(test_swap_copies);
	RUN_TEST(test_d24s8_aspect_fills);
	RUN_TEST(test_fill_conversions);
	RUN_TEST(test_tiled_hostile);
	sim_msm_device_destroy(dev);
	return test_finish();
}
