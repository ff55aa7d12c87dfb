/* CP model: CP_BLIT(BLIT_OP_SCALE), the 2D engine, driven by command streams shaped like Turnip's
 * (Mesa 22.3 tu_clear_blit.c: r2d_setup, r2d_clear_value, r2d_src / r2d_src_buffer, r2d_dst /
 * r2d_dst_buffer, r2d_coords, r2d_run; copy_buffer and tu_CmdFillBuffer split at 0x4000
 * texels). Every test compares the whole destination buffer object with the expected image, so
 * a byte written outside the rectangle fails it as much as a wrong byte inside. */
#include <stdlib.h>
#include <string.h>

#include "cp_fixture.h"
#include "ferry/hw/a6xx_regs.h"

static struct sim_msm_device *dev;

#define BO_SIZE (128u * 1024u)
#define UNTOUCHED 0xee

/* A Turnip-shaped stream over its own source, destination and scratch buffer objects. */
struct blit_test {
	struct fixture f;
	struct tbo src, dst, scratch;
	uint8_t *expect; /* what dst must hold afterwards */
	unsigned runs;   /* CP_BLITs emitted */
};

static uint32_t lcg(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

static void bt_init(struct blit_test *t)
{
	fx_init(dev, &t->f);
	t->src = tbo_new(t->f.k, BO_SIZE);
	t->dst = tbo_new(t->f.k, BO_SIZE);
	t->scratch = tbo_new(t->f.k, 4096);
	uint32_t seed = 12345;
	uint8_t *s = (uint8_t *)t->src.cpu;
	for (uint32_t i = 0; i < BO_SIZE; i++)
		s[i] = (uint8_t)lcg(&seed);
	memset(t->dst.cpu, UNTOUCHED, BO_SIZE);
	t->expect = malloc(BO_SIZE);
	REQUIRE(t->expect);
	memset(t->expect, UNTOUCHED, BO_SIZE);
	t->runs = 0;
}

static void bt_fini(struct blit_test *t)
{
	free(t->expect);
	tbo_free(t->f.k, &t->src);
	tbo_free(t->f.k, &t->dst);
	tbo_free(t->f.k, &t->scratch);
	fx_fini(&t->f);
}

static void bt_submit(struct blit_test *t, uint32_t queue, uint32_t *fence)
{
	REQUIRE(pm4_builder_ok(&t->f.b));
	const struct tbo *bos[3] = { &t->src, &t->dst, &t->scratch };
	REQUIRE(submit_ib_bos(t->f.k, queue, &t->f.cmd, t->f.b.len, bos, 3, fence) == 0);
}

static void bt_run(struct blit_test *t)
{
	uint32_t fence;
	bt_submit(t, 0, &fence);
	CHECK_EQ(wait_fence_ms(t->f.k, 0, fence, 20000), 0);
}

/* The first differing byte of dst against the expected image, or -1. */
static long bt_first_diff(const struct blit_test *t)
{
	const uint8_t *d = (const uint8_t *)t->dst.cpu;
	for (uint32_t i = 0; i < BO_SIZE; i++)
		if (d[i] != t->expect[i])
			return (long)i;
	return -1;
}

static uint64_t skipped_blits(void)
{
	struct sim_msm_cp_stats st;
	sim_msm_get_cp_stats(dev, &st);
	return st.skipped[CP_BLIT];
}

/* tu_emit_cache_flush_ccu() switching the CCU to sysmem, and CP_SET_MARKER(RM6_BLIT2DSCALE). */
static void emit_enter_2d(struct blit_test *t)
{
	struct pm4_builder *b = &t->f.b;
	pm4_event_write_ts(b, PC_CCU_FLUSH_COLOR_TS, t->scratch.iova, 1);
	pm4_event_write_ts(b, PC_CCU_FLUSH_DEPTH_TS, t->scratch.iova + 4, 1);
	pm4_event_write(b, PC_CCU_INVALIDATE_COLOR);
	pm4_event_write(b, PC_CCU_INVALIDATE_DEPTH);
	pm4_wait_for_idle(b);
	PM4_PKT4(b, REG_A6XX_RB_CCU_CNTL, 0x10000000u);
	pm4_set_marker(b, RM6_BLIT2DSCALE);
}

/* The barrier after a transfer: flush the color CCU, invalidate caches. */
static void emit_leave_2d(struct blit_test *t)
{
	pm4_event_write_ts(&t->f.b, PC_CCU_FLUSH_COLOR_TS, t->scratch.iova + 8, 2);
	pm4_event_write(&t->f.b, CACHE_INVALIDATE);
	pm4_wait_for_idle(&t->f.b);
}

/* r2d_setup_common(). */
static void r2d_setup(struct pm4_builder *b, uint32_t fmt, uint32_t ifmt, bool clear, bool is_uint)
{
	PM4_PKT4(b, REG_A6XX_RB_2D_UNKNOWN_8C01, 0);
	uint32_t cntl = A6XX_2D_BLIT_CNTL_COLOR_FORMAT(fmt) | A6XX_2D_BLIT_CNTL_MASK(0xf) |
			A6XX_2D_BLIT_CNTL_IFMT(ifmt) | (clear ? A6XX_2D_BLIT_CNTL_SOLID_COLOR : 0);
	PM4_PKT4(b, REG_A6XX_RB_2D_BLIT_CNTL, cntl);
	PM4_PKT4(b, REG_A6XX_GRAS_2D_BLIT_CNTL, cntl);
	PM4_PKT4(b, REG_A6XX_SP_2D_DST_FORMAT,
		 A6XX_SP_2D_DST_FORMAT_COLOR_FORMAT(fmt) | A6XX_SP_2D_DST_FORMAT_MASK(0xf) |
			 (is_uint ? A6XX_SP_2D_DST_FORMAT_UINT : 0));
}

static void r2d_clear_value(struct pm4_builder *b, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3)
{
	PM4_PKT4(b, REG_A6XX_RB_2D_SRC_SOLID_C0, c0, c1, c2, c3);
}

/* r2d_src_buffer() / r2d_src(): info is the whole SP_PS_2D_SRC_INFO. */
static void r2d_src(struct pm4_builder *b, uint32_t info, uint64_t va, uint32_t pitch, uint32_t width,
		    uint32_t height)
{
	PM4_PKT4(b, REG_A6XX_SP_PS_2D_SRC_INFO, info,
		 A6XX_SP_PS_2D_SRC_SIZE_WIDTH(width) | A6XX_SP_PS_2D_SRC_SIZE_HEIGHT(height), (uint32_t)va,
		 (uint32_t)(va >> 32), A6XX_SP_PS_2D_SRC_PITCH_PITCH(pitch));
}

static uint32_t buffer_src_info(uint32_t fmt)
{
	return A6XX_2D_SURF_INFO_COLOR_FORMAT(fmt) | A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX) | A6XX_2D_SURF_INFO_UNK20 |
	       A6XX_2D_SURF_INFO_UNK22;
}

/* r2d_dst_buffer() / r2d_dst(): RB_2D_DST_INFO, RB_2D_DST, RB_2D_DST_PITCH in one packet. */
static void r2d_dst(struct pm4_builder *b, uint32_t info, uint64_t va, uint32_t pitch)
{
	PM4_PKT4(b, REG_A6XX_RB_2D_DST_INFO, info, (uint32_t)va, (uint32_t)(va >> 32),
		 A6XX_RB_2D_DST_PITCH_PITCH(pitch));
}

/* r2d_coords(): inclusive rectangles; no source rectangle for a clear. */
static void r2d_coords(struct pm4_builder *b, uint32_t dx, uint32_t dy, const uint32_t *src_xy, uint32_t w,
		       uint32_t h)
{
	PM4_PKT4(b, REG_A6XX_GRAS_2D_DST_TL, A6XX_REG_XY(dx, dy), A6XX_REG_XY(dx + w - 1, dy + h - 1));
	if (src_xy)
		PM4_PKT4(b, REG_A6XX_GRAS_2D_SRC_TL_X, A6XX_GRAS_2D_SRC_COORD(src_xy[0]),
			 A6XX_GRAS_2D_SRC_COORD(src_xy[0] + w - 1), A6XX_GRAS_2D_SRC_COORD(src_xy[1]),
			 A6XX_GRAS_2D_SRC_COORD(src_xy[1] + h - 1));
}

/* r2d_run(): RB_DBG_ECO_CNTL switched around the blit (a6xx magic.RB_DBG_ECO_CNTL_blit). */
static void r2d_run_op(struct blit_test *t, uint32_t op)
{
	struct pm4_builder *b = &t->f.b;
	pm4_wait_for_idle(b);
	PM4_PKT4(b, REG_A6XX_RB_DBG_ECO_CNTL, 0x04100000u);
	PM4_PKT7(b, CP_BLIT, CP_BLIT_0_OP(op));
	pm4_wait_for_idle(b);
	PM4_PKT4(b, REG_A6XX_RB_DBG_ECO_CNTL, 0);
	t->runs++;
}

static void r2d_run(struct blit_test *t)
{
	r2d_run_op(t, BLIT_OP_SCALE);
}

/* Turnip's copy_buffer(): R8_UNORM (block 1) or R32_UINT (block 4), bases aligned down to 64
 * bytes, x = (va & 63) / block, at most 0x4000 texels per run. */
static void copy_buffer(struct blit_test *t, uint64_t dst_va, uint64_t src_va, uint64_t size, uint32_t block)
{
	struct pm4_builder *b = &t->f.b;
	uint32_t fmt = block == 4 ? FMT6_32_UINT : FMT6_8_UNORM;
	emit_enter_2d(t);
	r2d_setup(b, fmt, block == 4 ? R2D_INT32 : R2D_UNORM8, false, block == 4);
	for (uint64_t blocks = size / block; blocks;) {
		uint32_t src_x = (uint32_t)(src_va & 63) / block, dst_x = (uint32_t)(dst_va & 63) / block;
		uint64_t width = blocks;
		if (width > 0x4000u - src_x)
			width = 0x4000u - src_x;
		if (width > 0x4000u - dst_x)
			width = 0x4000u - dst_x;
		r2d_src(b, buffer_src_info(fmt), src_va & ~63ull, 0, src_x + (uint32_t)width, 1);
		r2d_dst(b, A6XX_2D_SURF_INFO_COLOR_FORMAT(fmt) | A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX), dst_va & ~63ull, 0);
		r2d_coords(b, dst_x, 0, (const uint32_t[]){ src_x, 0 }, (uint32_t)width, 1);
		r2d_run(t);
		src_va += width * block;
		dst_va += width * block;
		blocks -= width;
	}
	emit_leave_2d(t);
}

/* tu_CmdFillBuffer(): R32_UINT solid fills of size / 4 dwords. */
static void fill_buffer(struct blit_test *t, uint64_t dst_va, uint64_t size, uint32_t data)
{
	struct pm4_builder *b = &t->f.b;
	emit_enter_2d(t);
	r2d_setup(b, FMT6_32_UINT, R2D_INT32, true, true);
	r2d_clear_value(b, data, 0, 0, 0);
	for (uint64_t blocks = size / 4; blocks;) {
		uint32_t dst_x = (uint32_t)(dst_va & 63) / 4;
		uint64_t width = blocks < 0x4000u - dst_x ? blocks : 0x4000u - dst_x;
		r2d_dst(b, A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_32_UINT) | A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX),
			dst_va & ~63ull, 0);
		r2d_coords(b, dst_x, 0, NULL, (uint32_t)width, 1);
		r2d_run(t);
		dst_va += width * 4;
		blocks -= width;
	}
	emit_leave_2d(t);
}

static void test_copy_buffer_sizes(void)
{
	static const struct { uint32_t size, src_off, dst_off; unsigned min_runs; } cases[] = {
		{ 1, 5, 63, 1 }, { 3, 61, 2, 1 }, { 64, 7, 33, 1 }, { 1000, 100, 3, 1 },
		{ 70000, 13, 51, 5 }, /* 70000 texels: 16384 - 51, then 16384s, minus the source shift */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct blit_test t;
		bt_init(&t);
		uint64_t skipped0 = skipped_blits();
		copy_buffer(&t, t.dst.iova + cases[i].dst_off, t.src.iova + cases[i].src_off, cases[i].size, 1);
		bt_run(&t);
		memcpy(t.expect + cases[i].dst_off, (const uint8_t *)t.src.cpu + cases[i].src_off, cases[i].size);
		CHECK_EQ(bt_first_diff(&t), -1);
		CHECK(t.runs >= cases[i].min_runs);
		CHECK_EQ(skipped_blits(), skipped0);
		CHECK_EQ(queue_faults(t.f.k, 0), 0);
		bt_fini(&t);
	}
}

/* tu_CmdUpdateBuffer(): the data staged 64-byte aligned, copied as R32_UINT to a 4-byte aligned
 * destination. */
static void test_update_buffer(void)
{
	struct blit_test t;
	bt_init(&t);
	copy_buffer(&t, t.dst.iova + 4 * 7, t.src.iova + 64 * 3, 4 * 5000, 4);
	bt_run(&t);
	memcpy(t.expect + 4 * 7, (const uint8_t *)t.src.cpu + 64 * 3, 4 * 5000);
	CHECK_EQ(bt_first_diff(&t), -1);
	bt_fini(&t);
}

static void test_fill_buffer(void)
{
	static const struct { uint32_t off, size, value; } cases[] = {
		{ 0, 4, 0x01020304u }, { 12, 40, 0xdeadbeefu }, { 60, 4 * 20000, 0xa5a55a5au }, { 4, 64, 0 },
	};
	struct blit_test t;
	bt_init(&t);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t base = 20000u * i; /* disjoint ranges */
		fill_buffer(&t, t.dst.iova + base + cases[i].off, cases[i].size, cases[i].value);
		for (uint32_t o = 0; o < cases[i].size; o += 4)
			memcpy(t.expect + base + cases[i].off + o, &cases[i].value, 4);
	}
	/* The 80000-byte fill needs two runs; the others one each. */
	CHECK_EQ(t.runs, 5);
	bt_run(&t);
	CHECK_EQ(bt_first_diff(&t), -1);
	bt_fini(&t);
}

/* An R8G8B8A8_UNORM linear image copy (tu_copy_image_to_image with both images linear): a 50x7
 * region from (3, 2) of a 100x20 image with a 448-byte pitch to (10, 5) of one with 512. */
static void test_rgba8_image_copy(void)
{
	struct blit_test t;
	bt_init(&t);
	struct pm4_builder *b = &t.f.b;
	const uint32_t sp = 448, dp = 512, w = 50, h = 7;
	uint32_t info = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_8_8_8_8_UNORM) | A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX);
	emit_enter_2d(&t);
	r2d_setup(b, FMT6_8_8_8_8_UNORM, R2D_UNORM8, false, false);
	r2d_coords(b, 10, 5, (const uint32_t[]){ 3, 2 }, w, h);
	r2d_src(b, info, t.src.iova + 4096, sp, 100, 20);
	r2d_dst(b, info, t.dst.iova + 8192, dp);
	r2d_run(&t);
	emit_leave_2d(&t);
	bt_run(&t);
	for (uint32_t y = 0; y < h; y++)
		memcpy(t.expect + 8192 + (5 + y) * dp + 10 * 4,
		       (const uint8_t *)t.src.cpu + 4096 + (2 + y) * sp + 3 * 4, w * 4);
	CHECK_EQ(bt_first_diff(&t), -1);
	bt_fini(&t);
}

/* clear_image() of linear images: B8G8R8A8 (WXYZ swap) with its UNORM8 channel values, and
 * R16G16B16A16_SFLOAT with half-float channels. */
static void test_image_clears(void)
{
	struct blit_test t;
	bt_init(&t);
	struct pm4_builder *b = &t.f.b;
	emit_enter_2d(&t);
	r2d_setup(b, FMT6_8_8_8_8_UNORM, R2D_UNORM8, true, false);
	r2d_clear_value(b, 0x11, 0x22, 0x33, 0x44); /* R, G, B, A */
	r2d_coords(b, 0, 0, NULL, 16, 4);
	r2d_dst(b, A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_8_8_8_8_UNORM) | A6XX_2D_SURF_INFO_COLOR_SWAP(WXYZ),
		t.dst.iova, 128);
	r2d_run(&t);
	r2d_setup(b, FMT6_16_16_16_16_FLOAT, R2D_FLOAT16, true, false);
	r2d_clear_value(b, 0x3c00, 0xbc00, 0x3800, 0x7bff); /* 1.0, -1.0, 0.5, 65504 */
	r2d_coords(b, 2, 1, NULL, 3, 2);
	r2d_dst(b, A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_16_16_16_16_FLOAT) | A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX),
		t.dst.iova + 4096, 64);
	r2d_run(&t);
	emit_leave_2d(&t);
	bt_run(&t);
	for (uint32_t y = 0; y < 4; y++)
		for (uint32_t x = 0; x < 16; x++)
			memcpy(t.expect + y * 128 + x * 4, (const uint8_t[]){ 0x33, 0x22, 0x11, 0x44 }, 4);
	for (uint32_t y = 1; y < 3; y++)
		for (uint32_t x = 2; x < 5; x++)
			memcpy(t.expect + 4096 + y * 64 + x * 8,
			       (const uint8_t[]){ 0x00, 0x3c, 0x00, 0xbc, 0x00, 0x38, 0xff, 0x7b }, 8);
	CHECK_EQ(bt_first_diff(&t), -1);
	bt_fini(&t);
}

static bool all_bytes(const void *p, size_t n, uint8_t value)
{
	for (size_t i = 0; i < n; i++)
		if (((const uint8_t *)p)[i] != value)
			return false;
	return true;
}

/* Blits that run out of their buffer objects fault like any CP access, before writing anything:
 * a destination whose last rows pass the end of its BO into unmapped memory, a source likewise,
 * and a destination the GPU may only read. */
static void test_blit_outside_bo_faults(void)
{
	struct blit_test t;
	bt_init(&t);
	const uint32_t tail_size = 64 * 1024, pitch = 4096;
	struct tbo ro = tbo_new_flags(t.f.k, 4096, MSM_BO_WC | MSM_BO_GPU_READONLY);
	struct tbo tail = tbo_new(t.f.k, tail_size);
	/* What follows tail in the address space is freed again: unmapped. */
	struct tbo after = tbo_new(t.f.k, 64 * 1024);
	REQUIRE(after.iova == tail.iova + tail_size);
	uint64_t hole = after.iova;
	tbo_free(t.f.k, &after);
	memset(ro.cpu, UNTOUCHED, 4096);
	memset(tail.cpu, UNTOUCHED, tail_size);
	struct pm4_builder *b = &t.f.b;
	uint32_t info = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_8_8_8_8_UNORM) | A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX);
	uint64_t faults0 = get_param(t.f.k, MSM_PARAM_FAULTS);
	char text[32768], want[64];

	/* Rows 4..23 of an image at a 4096-byte pitch in a 16-row BO: rows 4..15 are inside. */
	emit_enter_2d(&t);
	r2d_setup(b, FMT6_8_8_8_8_UNORM, R2D_UNORM8, false, false);
	r2d_coords(b, 0, 4, (const uint32_t[]){ 0, 0 }, 64, 20);
	r2d_src(b, info, t.src.iova, pitch, 64, 20);
	r2d_dst(b, info, tail.iova, pitch);
	r2d_run(&t);
	bt_run(&t);
	CHECK(all_bytes(tail.cpu, tail_size, UNTOUCHED));
	CHECK_EQ(get_param(t.f.k, MSM_PARAM_FAULTS), faults0 + 1);
	fx_dump(&t.f, text, sizeof(text));
	snprintf(want, sizeof(want), "  - iova=0x%016llx\n  - dir=WRITE\n", (unsigned long long)hole);
	CHECK(strstr(text, want));
	CHECK(strstr(text, "packet: CP_BLIT"));

	/* A source whose second half is past the end of tail. */
	fx_reset(&t.f);
	emit_enter_2d(&t);
	r2d_setup(b, FMT6_8_UNORM, R2D_UNORM8, false, false);
	r2d_coords(b, 0, 0, (const uint32_t[]){ 0, 0 }, 128, 1);
	r2d_src(b, buffer_src_info(FMT6_8_UNORM), hole - 64, 0, 128, 1);
	r2d_dst(b, A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_8_UNORM), t.dst.iova, 0);
	r2d_run(&t);
	bt_run(&t);
	CHECK_EQ(bt_first_diff(&t), -1);
	CHECK_EQ(get_param(t.f.k, MSM_PARAM_FAULTS), faults0 + 2);
	fx_dump(&t.f, text, sizeof(text));
	snprintf(want, sizeof(want), "  - iova=0x%016llx\n  - dir=READ\n", (unsigned long long)hole);
	CHECK(strstr(text, want));

	/* A fill of a GPU-read-only BO: a permission fault. */
	fx_reset(&t.f);
	fill_buffer(&t, ro.iova + 64, 256, 0x12345678u);
	bt_run(&t);
	CHECK_EQ(get_param(t.f.k, MSM_PARAM_FAULTS), faults0 + 3);
	CHECK(all_bytes(ro.cpu, 4096, UNTOUCHED));
	fx_dump(&t.f, text, sizeof(text));
	CHECK(strstr(text, "  - type=PERMISSION\n"));

	/* The same first blit inside the BO writes. */
	fx_reset(&t.f);
	emit_enter_2d(&t);
	r2d_setup(b, FMT6_8_8_8_8_UNORM, R2D_UNORM8, false, false);
	r2d_coords(b, 0, 4, (const uint32_t[]){ 0, 0 }, 64, 12);
	r2d_src(b, info, t.src.iova, pitch, 64, 20);
	r2d_dst(b, info, tail.iova, pitch);
	r2d_run(&t);
	bt_run(&t);
	CHECK_EQ(get_param(t.f.k, MSM_PARAM_FAULTS), faults0 + 3);
	CHECK(all_bytes(tail.cpu, 4 * pitch, UNTOUCHED));
	for (uint32_t y = 0; y < 12; y++) {
		const uint8_t *row = (const uint8_t *)tail.cpu + (4 + y) * pitch;
		CHECK(memcmp(row, (const uint8_t *)t.src.cpu + y * pitch, 256) == 0);
		CHECK(all_bytes(row + 256, pitch - 256, UNTOUCHED));
	}
	tbo_free(t.f.k, &tail);
	tbo_free(t.f.k, &ro);
	bt_fini(&t);
}

/* The valid copy each unmodeled variant starts from: R8G8B8A8, 32x4 at (0, 0) of both. */
struct variant {
	const char *what;
	uint32_t op;
	uint32_t fmt, ifmt, src_info, dst_info, cntl_or;
	uint32_t src_w;   /* source rectangle width */
	bool clear;
};

static void emit_variant(struct blit_test *t, const struct variant *v)
{
	struct pm4_builder *b = &t->f.b;
	emit_enter_2d(t);
	r2d_setup(b, v->fmt, v->ifmt, v->clear, false);
	if (v->cntl_or) {
		uint32_t cntl = A6XX_2D_BLIT_CNTL_COLOR_FORMAT(v->fmt) | A6XX_2D_BLIT_CNTL_MASK(0xf) |
				A6XX_2D_BLIT_CNTL_IFMT(v->ifmt) | v->cntl_or;
		PM4_PKT4(b, REG_A6XX_RB_2D_BLIT_CNTL, cntl);
	}
	r2d_clear_value(b, 1, 2, 3, 4);
	PM4_PKT4(b, REG_A6XX_GRAS_2D_DST_TL, A6XX_REG_XY(0, 0), A6XX_REG_XY(31, 3));
	PM4_PKT4(b, REG_A6XX_GRAS_2D_SRC_TL_X, A6XX_GRAS_2D_SRC_COORD(0), A6XX_GRAS_2D_SRC_COORD(v->src_w - 1),
		 A6XX_GRAS_2D_SRC_COORD(0), A6XX_GRAS_2D_SRC_COORD(3));
	r2d_src(b, v->src_info, t->src.iova, 256, 64, 4);
	r2d_dst(b, v->dst_info, t->dst.iova, 256);
	r2d_run_op(t, v->op);
	emit_leave_2d(t);
}

/* What the model does not reproduce is counted as a skipped CP_BLIT and writes nothing; the
 * same stream without the one difference does write. */
static void test_unmodeled_blits(void)
{
	const uint32_t rgba = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_8_8_8_8_UNORM) | A6XX_2D_SURF_INFO_COLOR_SWAP(WZYX);
	const struct variant base = { "modeled copy", BLIT_OP_SCALE, FMT6_8_8_8_8_UNORM, R2D_UNORM8, rgba, rgba, 0,
				      32, false };
	struct variant v[] = { base, base, base, base, base, base, base, base, base, base };
	v[1].what = "TILE6_2 destination";
	v[1].dst_info |= A6XX_2D_SURF_INFO_TILE_MODE(TILE6_2);
	v[2].what = "UBWC flags on a linear source";
	v[2].src_info |= A6XX_2D_SURF_INFO_FLAGS;
	v[3].what = "scaling 16 -> 32 texels";
	v[3].src_w = 16;
	v[4].what = "format conversion";
	v[4].src_info = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_32_UINT);
	v[5].what = "MSAA source";
	v[5].src_info |= A6XX_2D_SURF_INFO_SAMPLES(MSAA_FOUR);
	v[6].what = "BLIT_OP_COPY";
	v[6].op = BLIT_OP_COPY;
	v[7].what = "XYZW channel swap in a copy";
	v[7].dst_info = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_8_8_8_8_UNORM) | A6XX_2D_SURF_INFO_COLOR_SWAP(XYZW);
	v[8].what = "10_10_10_2 fill through FLOAT16";
	v[8].fmt = FMT6_10_10_10_2_UNORM;
	v[8].ifmt = R2D_FLOAT16;
	v[8].dst_info = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_10_10_10_2_UNORM);
	v[8].clear = true;
	v[9].what = "rotation";
	v[9].cntl_or = A6XX_2D_BLIT_CNTL_ROTATE(ROTATE_90);

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct blit_test t;
		bt_init(&t);
		uint64_t skipped0 = skipped_blits();
		emit_variant(&t, &v[i]);
		bt_run(&t);
		if (i == 0) {
			for (uint32_t y = 0; y < 4; y++)
				memcpy(t.expect + y * 256, (const uint8_t *)t.src.cpu + y * 256, 128);
			CHECK_EQ(skipped_blits(), skipped0);
		} else {
			CHECK_EQ(skipped_blits(), skipped0 + 1);
		}
		long diff = bt_first_diff(&t);
		if (diff != -1)
			fprintf(stderr, "  %s: dst byte %ld differs\n", v[i].what, diff);
		CHECK_EQ(diff, -1);
		CHECK_EQ(queue_faults(t.f.k, 0), 0);
		bt_fini(&t);
	}
}

/* A blit larger than a slice spans slices; with two queues taking turns, the other queue's
 * 2D register writes land between them and must not change the blit in flight. */
static void test_blits_across_slices(void)
{
	struct blit_test a, b;
	bt_init(&a);
	bt_init(&b);
	uint32_t qa = new_queue(a.f.k, 1), qb = new_queue(b.f.k, 1);
	sim_msm_set_slice_budget(dev, 256);
	sim_msm_set_paused(dev, true);
	/* a: 30 rows of 4096 bytes filled; b: 25 rows copied, at another pitch and format. */
	emit_enter_2d(&a);
	r2d_setup(&a.f.b, FMT6_32_UINT, R2D_INT32, true, true);
	r2d_clear_value(&a.f.b, 0xc0ffee00u, 0, 0, 0);
	r2d_coords(&a.f.b, 0, 0, NULL, 1024, 30);
	r2d_dst(&a.f.b, A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_32_UINT), a.dst.iova, 4096);
	r2d_run(&a);
	emit_leave_2d(&a);
	uint32_t info = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_16_16_UINT);
	emit_enter_2d(&b);
	r2d_setup(&b.f.b, FMT6_16_16_UINT, R2D_INT16, false, true);
	r2d_coords(&b.f.b, 8, 1, (const uint32_t[]){ 2, 3 }, 1000, 25);
	r2d_src(&b.f.b, info, b.src.iova, 4032, 1008, 28);
	r2d_dst(&b.f.b, info, b.dst.iova, 3072);
	r2d_run(&b);
	emit_leave_2d(&b);
	uint32_t fa, fb;
	bt_submit(&a, qa, &fa);
	bt_submit(&b, qb, &fb);
	sim_msm_set_paused(dev, false);
	CHECK_EQ(wait_fence_ms(a.f.k, qa, fa, 20000), 0);
	CHECK_EQ(wait_fence_ms(b.f.k, qb, fb, 20000), 0);
	sim_msm_set_slice_budget(dev, 0);
	for (uint32_t y = 0; y < 30; y++)
		for (uint32_t x = 0; x < 1024; x++)
			memcpy(a.expect + y * 4096 + x * 4, &(uint32_t){ 0xc0ffee00u }, 4);
	for (uint32_t y = 0; y < 25; y++)
		memcpy(b.expect + (1 + y) * 3072 + 8 * 4, (const uint8_t *)b.src.cpu + (3 + y) * 4032 + 2 * 4, 4000);
	CHECK_EQ(bt_first_diff(&a), -1);
	CHECK_EQ(bt_first_diff(&b), -1);
	bt_fini(&a);
	bt_fini(&b);
}

/* Another context's submit runs between this one's 2D setup and its CP_BLIT (the slice ends
 * in the NOP): the blit must still use this submit's own 2D state, not the other's. */
static void test_setup_then_slice_then_blit(void)
{
	struct blit_test a, b;
	bt_init(&a);
	bt_init(&b);
	uint32_t qa = new_queue(a.f.k, 1), qb = new_queue(b.f.k, 1);
	sim_msm_set_slice_budget(dev, 256);
	sim_msm_set_paused(dev, true);
	emit_enter_2d(&a);
	r2d_setup(&a.f.b, FMT6_32_UINT, R2D_INT32, true, true);
	r2d_clear_value(&a.f.b, 0x5eed0001u, 0, 0, 0);
	pm4_nop(&a.f.b, 400);
	r2d_coords(&a.f.b, 0, 0, NULL, 16, 1);
	r2d_dst(&a.f.b, A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_32_UINT), a.dst.iova, 64);
	r2d_run(&a);
	emit_leave_2d(&a);
	/* b: a copy whose setup (not a fill, its own source) lands inside a's NOP gap. */
	uint32_t info = A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_32_UINT);
	emit_enter_2d(&b);
	r2d_setup(&b.f.b, FMT6_32_UINT, R2D_INT32, false, true);
	r2d_coords(&b.f.b, 0, 0, (const uint32_t[]){ 0, 0 }, 16, 1);
	r2d_src(&b.f.b, info, b.src.iova, 64, 16, 1);
	pm4_nop(&b.f.b, 400);
	r2d_dst(&b.f.b, info, b.dst.iova, 64);
	r2d_run(&b);
	emit_leave_2d(&b);
	uint32_t fa, fb;
	bt_submit(&a, qa, &fa);
	bt_submit(&b, qb, &fb);
	sim_msm_set_paused(dev, false);
	CHECK_EQ(wait_fence_ms(a.f.k, qa, fa, 20000), 0);
	CHECK_EQ(wait_fence_ms(b.f.k, qb, fb, 20000), 0);
	sim_msm_set_slice_budget(dev, 0);
	for (uint32_t x = 0; x < 16; x++)
		memcpy(a.expect + x * 4, &(uint32_t){ 0x5eed0001u }, 4);
	memcpy(b.expect, b.src.cpu, 64);
	CHECK_EQ(bt_first_diff(&a), -1);
	CHECK_EQ(bt_first_diff(&b), -1);
	bt_fini(&a);
	bt_fini(&b);
}

/* A blit whose every row lands on the same bytes (pitch 0) passes the bounds checks but moves
 * 2 GiB per packet: hangcheck on the submit's own run time ends it, as the kernel's would. */
static void test_endless_blits_hang(void)
{
	struct blit_test a;
	bt_init(&a);
	sim_msm_set_hangcheck_ms(dev, 25);
	uint32_t qa = new_queue(a.f.k, 1);
	emit_enter_2d(&a);
	r2d_setup(&a.f.b, FMT6_32_32_32_32_UINT, R2D_INT32, true, true);
	r2d_clear_value(&a.f.b, 1, 2, 3, 4);
	r2d_coords(&a.f.b, 0, 0, NULL, BO_SIZE / 16, 0x4000); /* each row: the whole BO */
	r2d_dst(&a.f.b, A6XX_2D_SURF_INFO_COLOR_FORMAT(FMT6_32_32_32_32_UINT), a.dst.iova, 0);
	for (int i = 0; i < 64; i++)
		r2d_run(&a);
	emit_leave_2d(&a);
	uint32_t fa;
	bt_submit(&a, qa, &fa);
	CHECK_EQ(wait_fence_ms(a.f.k, qa, fa, 60000), 0); /* retired by recovery */
	CHECK_EQ(queue_faults(a.f.k, qa), 1);
	char text[16384];
	CHECK(a.f.k->ops->coredump(a.f.k, text, sizeof(text)) > 0 && strstr(text, "submit ran too long"));
	sim_msm_set_hangcheck_ms(dev, 0);
	bt_fini(&a);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_copy_buffer_sizes);
	RUN_TEST(test_update_buffer);
	RUN_TEST(test_fill_buffer);
	RUN_TEST(test_rgba8_image_copy);
	RUN_TEST(test_image_clears);
	RUN_TEST(test_blit_outside_bo_faults);
	RUN_TEST(test_unmodeled_blits);
	RUN_TEST(test_blits_across_slices);
	RUN_TEST(test_setup_then_slice_then_blit);
	RUN_TEST(test_endless_blits_hang);
	sim_msm_device_destroy(dev);
	return test_finish();
}
