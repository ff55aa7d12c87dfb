/* CP model: GMEM clears, loads and stores through CP_EVENT_WRITE(BLIT) and RB_BLIT_*, shaped
 * like Turnip's tile loop (tu6_emit_tile_select's bin registers, clear_gmem_attachment,
 * tu_emit_blit for loads and stores), to linear, TILE6_3 and UBWC memory. */
#include <stdlib.h>
#include <string.h>

#include "cp_fixture.h"
#include "ferry/hw/a6xx_regs.h"
#include "sim/msm/a6xx_tiling.h"

static struct sim_msm_device *dev;

#define BO_SIZE (128u * 1024u)
#define UNTOUCHED 0xee
#define RGBA8 FMT6_8_8_8_8_UNORM

struct env {
	struct fixture f;
	struct tbo src, dst;
};

static void env_init(struct env *e)
{
	fx_init(dev, &e->f);
	e->src = tbo_new(e->f.k, BO_SIZE);
	e->dst = tbo_new(e->f.k, BO_SIZE);
	uint32_t seed = 99;
	for (uint32_t i = 0; i < BO_SIZE; i++) {
		seed = seed * 1664525u + 1013904223u;
		((uint8_t *)e->src.cpu)[i] = (uint8_t)(seed >> 24);
	}
	memset(e->dst.cpu, UNTOUCHED, BO_SIZE);
}

static void env_run(struct env *e)
{
	REQUIRE(pm4_builder_ok(&e->f.b));
	const struct tbo *bos[2] = { &e->src, &e->dst };
	uint32_t fence;
	REQUIRE(submit_ib_bos(e->f.k, 0, &e->f.cmd, e->f.b.len, bos, 2, &fence) == 0);
	CHECK_EQ(wait_fence_ms(e->f.k, 0, fence, 20000), 0);
	fx_reset(&e->f);
}

static void env_fini(struct env *e)
{
	tbo_free(e->f.k, &e->src);
	tbo_free(e->f.k, &e->dst);
	fx_fini(&e->f);
}

static uint64_t skipped_events(void)
{
	struct sim_msm_cp_stats st;
	sim_msm_get_cp_stats(dev, &st);
	return st.skipped[CP_EVENT_WRITE];
}

/* tu6_emit_tile_select: the bin's size and origin. */
static void bin(struct pm4_builder *b, uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
	pm4_set_marker(b, RM6_BIN_RENDER_START);
	PM4_PKT4(b, REG_A6XX_RB_BIN_CONTROL2, A6XX_RB_BIN_CONTROL2(w, h));
	PM4_PKT4(b, REG_A6XX_RB_WINDOW_OFFSET, A6XX_REG_XY(x, y));
	PM4_PKT4(b, REG_A6XX_RB_WINDOW_OFFSET2, A6XX_REG_XY(x, y));
}

static void scissor(struct pm4_builder *b, uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
	PM4_PKT4(b, REG_A6XX_RB_BLIT_SCISSOR_TL, A6XX_REG_XY(x, y), A6XX_REG_XY(x + w - 1, y + h - 1));
}

/* clear_gmem_attachment(). */
static void gmem_clear(struct pm4_builder *b, uint32_t fmt, uint32_t mask, bool depth, uint32_t gmem_offset,
		       const uint32_t *dw)
{
	PM4_PKT4(b, REG_A6XX_RB_BLIT_DST_INFO, A6XX_RB_BLIT_DST_INFO_COLOR_FORMAT(fmt));
	PM4_PKT4(b, REG_A6XX_RB_BLIT_INFO,
		 A6XX_RB_BLIT_INFO_GMEM | A6XX_RB_BLIT_INFO_CLEAR_MASK(mask) | (depth ? A6XX_RB_BLIT_INFO_DEPTH : 0));
	PM4_PKT4(b, REG_A6XX_RB_BLIT_BASE_GMEM, gmem_offset);
	PM4_PKT4(b, REG_A6XX_RB_UNKNOWN_88D0, 0);
	PM4_PKT4(b, REG_A6XX_RB_BLIT_CLEAR_COLOR_DW0, dw[0], dw[1], dw[2], dw[3]);
	pm4_event_write(b, BLIT);
}

/* tu_emit_blit(): a load (resolve = false) or a store. */
static void gmem_blit(struct pm4_builder *b, bool store, uint32_t fmt, uint32_t tile, bool ubwc, uint64_t va,
		      uint32_t pitch, uint64_t flags, uint32_t flag_pitch, uint32_t gmem_offset)
{
	PM4_PKT4(b, REG_A6XX_RB_MSAA_CNTL, 0);
	PM4_PKT4(b, REG_A6XX_RB_BLIT_INFO, store ? 0 : A6XX_RB_BLIT_INFO_UNK0 | A6XX_RB_BLIT_INFO_GMEM);
	PM4_PKT4(b, REG_A6XX_RB_BLIT_DST_INFO,
		 A6XX_RB_BLIT_DST_INFO_TILE_MODE(tile) | A6XX_RB_BLIT_DST_INFO_COLOR_FORMAT(fmt) |
			 (ubwc ? A6XX_RB_BLIT_DST_INFO_FLAGS : 0),
		 (uint32_t)va, (uint32_t)(va >> 32), A6XX_RB_BLIT_DST_PITCH_PITCH(pitch), 0, (uint32_t)flags,
		 (uint32_t)(flags >> 32), A6XX_FLAG_BUFFER_PITCH_PITCH(flag_pitch));
	PM4_PKT4(b, REG_A6XX_RB_BLIT_BASE_GMEM, gmem_offset);
	pm4_event_write(b, BLIT);
}

static const uint32_t color[4] = { 0x44332211u, 0, 0, 0 };

/* Clear a rectangle in GMEM, store it linear: exactly the rectangle gets the colour. */
static void test_clear_store_linear(void)
{
	struct env e;
	env_init(&e);
	struct pm4_builder *b = &e.f.b;
	uint64_t skipped0 = skipped_events();
	bin(b, 0, 0, 64, 32);
	scissor(b, 2, 3, 40, 18);
	gmem_clear(b, RGBA8, 0xf, false, 0x4000, color);
	gmem_blit(b, true, RGBA8, TILE6_LINEAR, false, e.dst.iova, 256, 0, 0, 0x4000);
	env_run(&e);
	CHECK_EQ(skipped_events(), skipped0);
	const uint8_t *d = (const uint8_t *)e.dst.cpu;
	bool ok = true;
	for (uint32_t y = 0; y < 32; y++)
		for (uint32_t x = 0; x < 64; x++) {
			bool in = x >= 2 && x < 42 && y >= 3 && y < 21;
			const uint8_t *t = d + y * 256 + x * 4;
			static const uint8_t want[4] = { 0x11, 0x22, 0x33, 0x44 };
			ok = ok && (in ? memcmp(t, want, 4) == 0 : t[0] == UNTOUCHED && t[3] == UNTOUCHED);
		}
	CHECK(ok);
	CHECK_EQ(queue_faults(e.f.k, 0), 0);
	env_fini(&e);
}

/* Load from memory into a bin off the origin, store to tiled and UBWC surfaces and back to
 * linear through the 2D engine's layout function: the source texels come back. */
static void test_load_store_tiled_ubwc(void)
{
	for (int ubwc = 0; ubwc < 2; ubwc++) {
		struct env e;
		env_init(&e);
		struct pm4_builder *b = &e.f.b;
		uint64_t skipped0 = skipped_events();
		uint64_t flags = e.dst.iova + 96 * 1024;
		bin(b, 64, 32, 64, 32);
		scissor(b, 64, 32, 64, 32);
		gmem_blit(b, false, RGBA8, TILE6_LINEAR, false, e.src.iova, 512, 0, 0, 0x10000);
		gmem_blit(b, true, RGBA8, TILE6_3, ubwc, e.dst.iova, 512, flags, 64, 0x10000);
		env_run(&e);
		CHECK_EQ(skipped_events(), skipped0);
		struct a6xx_tile3 t;
		REQUIRE(a6xx_tile3_init(&t, 4, 512));
		bool ok = true;
		for (uint32_t y = 32; y < 64; y++)
			for (uint32_t x = 64; x < 128; x++)
				ok = ok && memcmp((uint8_t *)e.dst.cpu + a6xx_tile3_offset(&t, x, y),
						  (uint8_t *)e.src.cpu + y * 512 + x * 4, 4) == 0;
		CHECK(ok);
		CHECK(((uint8_t *)e.dst.cpu)[a6xx_tile3_offset(&t, 63, 32)] == UNTOUCHED);
		const uint8_t *fl = (const uint8_t *)e.dst.cpu + 96 * 1024;
		if (ubwc) {
			/* Blocks 16x4: x 64..127 -> 4..7, y 32..63 -> 8..15. */
			CHECK_EQ(fl[8 * 64 + 4], A6XX_UBWC_FLAG_UNCOMPRESSED);
			CHECK_EQ(fl[15 * 64 + 7], A6XX_UBWC_FLAG_UNCOMPRESSED);
			CHECK_EQ(fl[8 * 64 + 3], UNTOUCHED);
			CHECK_EQ(fl[7 * 64 + 4], UNTOUCHED);
		} else {
			CHECK_EQ(fl[8 * 64 + 4], UNTOUCHED);
		}
		/* And loaded back from there into GMEM, stored linear elsewhere. */
		memset(e.src.cpu, UNTOUCHED, 64 * 1024);
		bin(b, 64, 32, 64, 32);
		scissor(b, 64, 32, 64, 32);
		gmem_blit(b, false, RGBA8, TILE6_3, ubwc, e.dst.iova, 512, flags, 64, 0);
		gmem_blit(b, true, RGBA8, TILE6_LINEAR, false, e.src.iova, 512, 0, 0, 0);
		env_run(&e);
		CHECK_EQ(skipped_events(), skipped0);
		ok = true;
		for (uint32_t y = 32; y < 64; y++)
			for (uint32_t x = 64; x < 128; x++)
				ok = ok && memcmp((uint8_t *)e.dst.cpu + a6xx_tile3_offset(&t, x, y),
						  (uint8_t *)e.src.cpu + y * 512 + x * 4, 4) == 0;
		CHECK(ok);
		CHECK_EQ(queue_faults(e.f.k, 0), 0);
		env_fini(&e);
	}
}

/* Depth / stencil clears of Z24S8 keep the other aspect's bytes. */
static void test_depth_stencil_clear(void)
{
	struct env e;
	env_init(&e);
	struct pm4_builder *b = &e.f.b;
	bin(b, 0, 0, 32, 16);
	scissor(b, 0, 0, 32, 16);
	const uint32_t both[4] = { 0x07aabbccu }, depth[4] = { 0x00112233u }, stencil[4] = { 0x5a000000u };
	gmem_clear(b, FMT6_Z24_UNORM_S8_UINT, 0x3, true, 0, both);
	scissor(b, 0, 0, 16, 16);
	gmem_clear(b, FMT6_Z24_UNORM_S8_UINT, 0x1, true, 0, depth);
	scissor(b, 8, 0, 24, 16);
	gmem_clear(b, FMT6_Z24_UNORM_S8_UINT, 0x2, true, 0, stencil);
	scissor(b, 0, 0, 32, 1);
	gmem_blit(b, true, FMT6_Z24_UNORM_S8_UINT, TILE6_LINEAR, false, e.dst.iova, 128, 0, 0, 0);
	env_run(&e);
	const uint32_t *d = (const uint32_t *)e.dst.cpu;
	CHECK_EQ(d[0], 0x07112233u);
	CHECK_EQ(d[8], 0x5a112233u);
	CHECK_EQ(d[16], 0x5aaabbccu);
	CHECK_EQ(d[31], 0x5aaabbccu);
	env_fini(&e);
}

/* Turnip's tile loop: one scissor (the render area) for every bin; each clear and store only
 * touches its own bin's part, at the bin's place in memory. A 48x24 image in 32x16 bins. */
static void test_bins_clip_scissor(void)
{
	struct env e;
	env_init(&e);
	struct pm4_builder *b = &e.f.b;
	for (uint32_t by = 0; by < 24; by += 16)
		for (uint32_t bx = 0; bx < 48; bx += 32) {
			uint32_t c[4] = { 0x01000000u * (1 + bx / 32 + by / 8) | 0x00aabbccu };
			bin(b, bx, by, 32, 16);
			PM4_PKT7(b, CP_SET_VISIBILITY_OVERRIDE, 1);
			scissor(b, 0, 0, 48, 24);
			gmem_clear(b, RGBA8, 0xf, false, 0, c);
			pm4_set_marker(b, RM6_BIN_RESOLVE);
			gmem_blit(b, true, RGBA8, TILE6_LINEAR, false, e.dst.iova, 256, 0, 0, 0);
		}
	uint64_t skipped_vis0;
	struct sim_msm_cp_stats st;
	sim_msm_get_cp_stats(dev, &st);
	skipped_vis0 = st.skipped[CP_SET_VISIBILITY_OVERRIDE];
	uint64_t skipped0 = skipped_events();
	env_run(&e);
	CHECK_EQ(skipped_events(), skipped0);
	sim_msm_get_cp_stats(dev, &st);
	CHECK_EQ(st.skipped[CP_SET_VISIBILITY_OVERRIDE], skipped_vis0);
	bool ok = true;
	for (uint32_t y = 0; y < 32; y++)
		for (uint32_t x = 0; x < 64; x++) {
			uint32_t v;
			memcpy(&v, (uint8_t *)e.dst.cpu + y * 256 + x * 4, 4);
			uint32_t want = x < 48 && y < 24 ? (0x01000000u * (1 + x / 32 + (y / 16) * 2)) | 0x00aabbccu
							 : 0xeeeeeeeeu;
			ok = ok && v == want;
		}
	CHECK(ok);
	env_fini(&e);
}

/* Turnip's form of the same: no DEPTH bit, channel masks 0x7 (depth) and 0x8 (stencil). */
static void test_d24s8_channel_masks(void)
{
	struct env e;
	env_init(&e);
	struct pm4_builder *b = &e.f.b;
	bin(b, 0, 0, 32, 16);
	scissor(b, 0, 0, 32, 16);
	const uint32_t both[4] = { 0x07aabbccu }, depth[4] = { 0x00112233u }, stencil[4] = { 0x5a000000u };
	gmem_clear(b, FMT6_Z24_UNORM_S8_UINT, 0xf, false, 0, both);
	scissor(b, 0, 0, 16, 16);
	gmem_clear(b, FMT6_Z24_UNORM_S8_UINT, 0x7, false, 0, depth);
	scissor(b, 8, 0, 24, 16);
	gmem_clear(b, FMT6_Z24_UNORM_S8_UINT, 0x8, false, 0, stencil);
	scissor(b, 0, 0, 32, 1);
	gmem_blit(b, true, FMT6_Z24_UNORM_S8_UINT, TILE6_3, false, e.dst.iova, 256, 0, 0, 0);
	env_run(&e);
	struct a6xx_tile3 t;
	REQUIRE(a6xx_tile3_init(&t, 4, 256));
	uint32_t v[3];
	memcpy(&v[0], (uint8_t *)e.dst.cpu + a6xx_tile3_offset(&t, 0, 0), 4);
	memcpy(&v[1], (uint8_t *)e.dst.cpu + a6xx_tile3_offset(&t, 8, 0), 4);
	memcpy(&v[2], (uint8_t *)e.dst.cpu + a6xx_tile3_offset(&t, 31, 0), 4);
	CHECK_EQ(v[0], 0x07112233u);
	CHECK_EQ(v[1], 0x5a112233u);
	CHECK_EQ(v[2], 0x5aaabbccu);
	env_fini(&e);
}

/* A BGRA (WXYZ) attachment: GMEM holds R first, so a store puts B first and a load undoes it. */
static void test_bgra_store_load(void)
{
	struct env e;
	env_init(&e);
	struct pm4_builder *b = &e.f.b;
	bin(b, 0, 0, 32, 16);
	scissor(b, 0, 0, 32, 16);
	gmem_clear(b, RGBA8, 0xf, false, 0, color); /* R 0x11 G 0x22 B 0x33 A 0x44 */
	PM4_PKT4(b, REG_A6XX_RB_BLIT_DST_INFO, A6XX_RB_BLIT_DST_INFO_COLOR_FORMAT(RGBA8) |
						   A6XX_RB_BLIT_DST_INFO_COLOR_SWAP(WXYZ));
	PM4_PKT4(b, REG_A6XX_RB_BLIT_DST, (uint32_t)e.dst.iova, (uint32_t)(e.dst.iova >> 32),
		 A6XX_RB_BLIT_DST_PITCH_PITCH(128));
	PM4_PKT4(b, REG_A6XX_RB_BLIT_INFO, 0);
	pm4_event_write(b, BLIT);
	/* Load it back into another attachment and store that as RGBA. */
	PM4_PKT4(b, REG_A6XX_RB_BLIT_INFO, A6XX_RB_BLIT_INFO_UNK0 | A6XX_RB_BLIT_INFO_GMEM);
	PM4_PKT4(b, REG_A6XX_RB_BLIT_BASE_GMEM, 0x8000);
	pm4_event_write(b, BLIT);
	gmem_blit(b, true, RGBA8, TILE6_LINEAR, false, e.dst.iova + 4096, 128, 0, 0, 0x8000);
	env_run(&e);
	static const uint8_t bgra[4] = { 0x33, 0x22, 0x11, 0x44 }, rgba[4] = { 0x11, 0x22, 0x33, 0x44 };
	CHECK(memcmp(e.dst.cpu, bgra, 4) == 0);
	CHECK(memcmp((uint8_t *)e.dst.cpu + 15 * 128 + 31 * 4, bgra, 4) == 0);
	CHECK(memcmp((uint8_t *)e.dst.cpu + 4096 + 15 * 128 + 31 * 4, rgba, 4) == 0);
	env_fini(&e);
}

/* Another context's submit runs between this one's RB_BLIT_* setup and its BLIT event (the
 * slice ends in the NOP) and programs its own: each blit must use its own submit's registers. */
static void test_setup_then_slice_then_event(void)
{
	struct env a, b;
	env_init(&a);
	env_init(&b);
	uint32_t qa = new_queue(a.f.k, 1), qb = new_queue(b.f.k, 1);
	sim_msm_set_slice_budget(dev, 256);
	sim_msm_set_paused(dev, true);
	const uint32_t ca[4] = { 0x0a0a0a0au }, cb[4] = { 0x0b0b0b0bu };
	struct env *e[2] = { &a, &b };
	for (int i = 0; i < 2; i++) {
		struct pm4_builder *pb = &e[i]->f.b;
		bin(pb, 0, 0, 32, 16);
		scissor(pb, i ? 8 : 0, 0, 8, 4);
		PM4_PKT4(pb, REG_A6XX_RB_BLIT_DST_INFO, A6XX_RB_BLIT_DST_INFO_COLOR_FORMAT(RGBA8));
		PM4_PKT4(pb, REG_A6XX_RB_BLIT_INFO, A6XX_RB_BLIT_INFO_GMEM | A6XX_RB_BLIT_INFO_CLEAR_MASK(0xf));
		PM4_PKT4(pb, REG_A6XX_RB_BLIT_BASE_GMEM, i ? 0x2000 : 0);
		const uint32_t *c = i ? cb : ca;
		PM4_PKT4(pb, REG_A6XX_RB_BLIT_CLEAR_COLOR_DW0, c[0], c[1], c[2], c[3]);
		pm4_nop(pb, 400);
		pm4_event_write(pb, BLIT);
		gmem_blit(pb, true, RGBA8, TILE6_LINEAR, false, e[i]->dst.iova, 128, 0, 0, i ? 0x2000 : 0);
	}
	uint32_t fa, fb;
	const struct tbo *bos[2][2] = { { &a.src, &a.dst }, { &b.src, &b.dst } };
	REQUIRE(submit_ib_bos(a.f.k, qa, &a.f.cmd, a.f.b.len, bos[0], 2, &fa) == 0);
	REQUIRE(submit_ib_bos(b.f.k, qb, &b.f.cmd, b.f.b.len, bos[1], 2, &fb) == 0);
	sim_msm_set_paused(dev, false);
	CHECK_EQ(wait_fence_ms(a.f.k, qa, fa, 20000), 0);
	CHECK_EQ(wait_fence_ms(b.f.k, qb, fb, 20000), 0);
	sim_msm_set_slice_budget(dev, 0);
	bool ok = true;
	for (uint32_t y = 0; y < 16; y++)
		for (uint32_t x = 0; x < 32; x++) {
			uint32_t va, vb;
			memcpy(&va, (uint8_t *)a.dst.cpu + y * 128 + x * 4, 4);
			memcpy(&vb, (uint8_t *)b.dst.cpu + y * 128 + x * 4, 4);
			ok = ok && va == (x < 8 && y < 4 ? 0x0a0a0a0au : 0xeeeeeeeeu);
			ok = ok && vb == (x >= 8 && x < 16 && y < 4 ? 0x0b0b0b0bu : 0xeeeeeeeeu);
		}
	CHECK(ok);
	env_fini(&a);
	env_fini(&b);
}

/* A submit's GMEM starts zeroed: nothing of another submit's clear shows through. */
static void test_gmem_per_submit(void)
{
	struct env e;
	env_init(&e);
	struct pm4_builder *b = &e.f.b;
	bin(b, 0, 0, 32, 16);
	scissor(b, 0, 0, 32, 16);
	gmem_clear(b, RGBA8, 0xf, false, 0, color);
	env_run(&e);
	bin(b, 0, 0, 32, 16);
	scissor(b, 0, 0, 32, 16);
	gmem_blit(b, true, RGBA8, TILE6_LINEAR, false, e.dst.iova, 128, 0, 0, 0);
	env_run(&e);
	uint8_t zeros[128] = { 0 };
	CHECK(memcmp(e.dst.cpu, zeros, sizeof(zeros)) == 0);
	env_fini(&e);
}

/* Hostile: a bin past the end of GMEM and MSAA are refused (counted, nothing written); a store
 * outside the BOs faults before writing. */
static void test_gmem_hostile(void)
{
	struct env e;
	env_init(&e);
	struct pm4_builder *b = &e.f.b;
	uint64_t skipped0 = skipped_events(), faults0 = get_param(e.f.k, MSM_PARAM_FAULTS);
	bin(b, 0, 0, 2016, 2032);
	scissor(b, 0, 0, 16, 16);
	gmem_blit(b, true, RGBA8, TILE6_LINEAR, false, e.dst.iova, 256, 0, 0, 0xff000); /* 16 MB bin */
	bin(b, 0, 0, 32, 16);
	scissor(b, 0, 0, 32, 16);
	PM4_PKT4(b, REG_A6XX_RB_MSAA_CNTL, A6XX_RB_MSAA_CNTL_SAMPLES(MSAA_FOUR));
	PM4_PKT4(b, REG_A6XX_RB_BLIT_INFO, 0);
	pm4_event_write(b, BLIT);
	env_run(&e);
	CHECK_EQ(skipped_events(), skipped0 + 2);
	uint8_t *none = malloc(BO_SIZE);
	REQUIRE(none);
	memset(none, UNTOUCHED, BO_SIZE);
	CHECK(memcmp(e.dst.cpu, none, BO_SIZE) == 0);
	/* The last rows of the store lie past the destination BO. */
	bin(b, 0, 0, 32, 16);
	scissor(b, 0, 0, 32, 16);
	gmem_blit(b, true, RGBA8, TILE6_LINEAR, false, e.dst.iova + BO_SIZE - 8 * 8192, 8192, 0, 0, 0);
	env_run(&e);
	CHECK_EQ(get_param(e.f.k, MSM_PARAM_FAULTS), faults0 + 1);
	CHECK(memcmp(e.dst.cpu, none, BO_SIZE) == 0);
	free(none);
	env_fini(&e);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_clear_store_linear);
	RUN_TEST(test_load_store_tiled_ubwc);
	RUN_TEST(test_depth_stencil_clear);
	RUN_TEST(test_bins_clip_scissor);
	RUN_TEST(test_d24s8_channel_masks);
	RUN_TEST(test_bgra_store_load);
	RUN_TEST(test_gmem_per_submit);
	RUN_TEST(test_setup_then_slice_then_event);
	RUN_TEST(test_gmem_hostile);
	sim_msm_device_destroy(dev);
	return test_finish();
}
