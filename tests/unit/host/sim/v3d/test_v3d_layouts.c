/* Tiled surfaces across the two image engines of the simulated V3D (v3d_tfu.c and the CLE's tile
 * buffer, over fake memory): a raster source uploaded by the TFU into LINEARTILE / UBLINEAR /
 * UIF (XOR and not) and read back through the TLB into raster equals the source; the TLB storing
 * the same layout from raster and the TFU reading it back to raster equals it too, and both
 * engines write the very same tiled bytes. Also: the tile buffer's poison between jobs, depth /
 * stencil clears and copies, and hostile strides / heights / addresses faulting without writing. */
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "v3d_cl_builder.h"
#include "v3d_fake_mem.h"
#include "v3d_tfu.h"
#include "ferry/hw/v3d_tiling.h"
#include "v3d_tlb.h"

#define RCL_ADDR 0x00100000u
#define IND_ADDR 0x00200000u
#define BCL_ADDR 0x00300000u
#define TA_ADDR 0x00400000u
#define SRC_ADDR 0x01000000u
#define TILED_ADDR 0x02000000u /* TFU-written image */
#define TILED2_ADDR 0x03000000u /* TLB-written image */
#define DST_ADDR 0x04000000u
#define DST2_ADDR 0x05000000u
#define CL_BO_SIZE 0x20000u
#define TA_SIZE 0x40000u

static uint32_t round_page(uint64_t n) { return (uint32_t)((n + 4095) & ~4095ull); }

/* One bin + render job of the builder's v3dv shape, on CLEs that live across jobs as the
 * simulator's do. */
struct rig {
	int ver;
	struct fake_mem mem;
	struct v3d_cle_mem iface;
	uint8_t *rcl, *ind, *bcl;
	struct v3d_cle *bin, *render;
};

static void rig_init(struct rig *r, int ver)
{
	memset(r, 0, sizeof(*r));
	r->ver = ver;
	r->rcl = fake_bo_add(&r->mem, RCL_ADDR, CL_BO_SIZE);
	r->ind = fake_bo_add(&r->mem, IND_ADDR, CL_BO_SIZE);
	r->bcl = fake_bo_add(&r->mem, BCL_ADDR, CL_BO_SIZE);
	fake_bo_add(&r->mem, TA_ADDR, TA_SIZE);
	r->iface = fake_mem_iface(&r->mem);
	r->bin = v3d_cle_create(ver);
	r->render = v3d_cle_create(ver);
	REQUIRE(r->bin && r->render);
}

static void rig_free(struct rig *r)
{
	v3d_cle_destroy(r->bin);
	v3d_cle_destroy(r->render);
	fake_mem_free(&r->mem);
}

static enum v3d_cle_status rig_run(struct rig *r, struct v3d_clb_raster_job *job)
{
	job->tile_alloc_addr = TA_ADDR;
	REQUIRE(v3d_clb_raster_tile_alloc_size(r->ver, job) <= TA_SIZE - 16384);
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, r->ver, r->bcl, CL_BO_SIZE, BCL_ADDR);
	v3d_clb_init(&rcl, r->ver, r->rcl, CL_BO_SIZE, RCL_ADDR);
	v3d_clb_init(&ind, r->ver, r->ind, CL_BO_SIZE, IND_ADDR);
	REQUIRE(v3d_clb_raster_bin(&bcl, job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, job));
	struct v3d_cle_semaphore sem = { 0 };
	struct v3d_cle_bin_regs regs = { .qma = TA_ADDR, .qms = v3d_clb_raster_tile_alloc_size(r->ver, job) };
	v3d_cle_start(r->bin, V3D_CLE_BIN, BCL_ADDR, v3d_clb_gpu_addr(&bcl), &regs, &sem);
	v3d_cle_start(r->render, V3D_CLE_RENDER, RCL_ADDR, v3d_clb_gpu_addr(&rcl), NULL, &sem);
	if (run_until_stop(r->bin, &r->iface, 64, 100) != V3D_CLE_DONE)
		return V3D_CLE_ERROR;
	return run_until_stop(r->render, &r->iface, 256, 100000);
}

/* Texture types and TLB formats of one pixel size, as Mesa pairs them for copies. */
struct fmt {
	uint32_t cpp, ttype, tlb_format, bpp, type42, type71;
};
static const struct fmt fmts[] = {
	{ 1, 97, V3D_CL_FMT_R8UI, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, V3D71_RT_8UI },
	{ 2, 98, V3D_CL_FMT_RG8UI, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, V3D71_RT_8UI },
	{ 4, 4, V3D_CL_FMT_RGBA8, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8, V3D71_RT_8 },
	{ 8, 18, V3D_CL_FMT_RGBA16F, V3D_INTERNAL_BPP_64, V3D_INTERNAL_TYPE_16F, V3D71_RT_16F },
	{ 16, 113, V3D_CL_FMT_RGBA32UI, V3D_INTERNAL_BPP_128, V3D_INTERNAL_TYPE_32UI, V3D71_RT_32UI },
};

/* TFU registers of a level-0 copy between two surfaces (IIS / output stride as the drivers set). */
static struct v3d_tfu_regs tfu_regs(int ver, const struct fmt *f, uint32_t src, const struct v3d_surface *in,
				    uint32_t dst, const struct v3d_surface *out, uint32_t w, uint32_t h)
{
	struct v3d_tfu_regs t = { .iia = src, .ioa = dst, .ios = (h << 16) | w };
	uint32_t ifmt = in->layout == V3D_CL_MEMORY_RASTER ? 0 : 10 + in->layout;
	uint32_t ofmt = out->layout == V3D_CL_MEMORY_RASTER ? 0 : 2 + out->layout;
	bool in_uif = in->layout >= V3D_CL_MEMORY_UIF_NO_XOR, out_uif = out->layout >= V3D_CL_MEMORY_UIF_NO_XOR;
	t.iis = in_uif ? in->uif_height_ub : in->layout == V3D_CL_MEMORY_RASTER ? in->stride / f->cpp : 0;
	if (ver >= 71) {
		t.icfg = (f->ttype << 16) | (ifmt << 23);
		uint32_t stride = out_uif ? out->uif_height_ub : out->layout == V3D_CL_MEMORY_RASTER ? out->stride / f->cpp : 0;
		t.ioc = (ofmt << 12) | (stride << 16);
	} else {
		uint32_t ub_h = 2 * v3d_utile_height(f->cpp);
		uint32_t opad = out_uif ? out->uif_height_ub - (h + ub_h - 1) / ub_h : 0;
		t.icfg = (f->ttype << 9) | (ifmt << 18) | (opad << 22);
		t.ioa |= ofmt << 3;
	}
	return t;
}

static void fill_random(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

struct layout_case {
	enum v3d_cl_memory_format layout;
	uint32_t w_utiles_x2, h_utiles_x2; /* size in half utiles, + the odd extra below */
	uint32_t w_extra, h_extra;
};

/* Sizes as the drivers pick layouts: LT one utile wide or high, UBLINEAR up to 1 / 2 blocks
 * wide, UIF anything (XOR when the padded height is a page-cache multiple). */
static const struct layout_case cases[] = {
	{ V3D_CL_MEMORY_LINEARTILE, 2, 13, 0, 1 },  /* one utile column, odd height */
	{ V3D_CL_MEMORY_LINEARTILE, 9, 1, 1, 0 },   /* one utile row (a small mip level) */
	{ V3D_CL_MEMORY_LINEARTILE, 0, 0, 1, 1 },   /* 1x1 */
	{ V3D_CL_MEMORY_UBLINEAR_1, 3, 11, 1, 1 },
	{ V3D_CL_MEMORY_UBLINEAR_2, 7, 9, 1, 0 },
	{ V3D_CL_MEMORY_UIF_NO_XOR, 27, 19, 1, 1 },
	{ V3D_CL_MEMORY_UIF_NO_XOR, 40, 70, 0, 0 },
	{ V3D_CL_MEMORY_UIF_XOR, 33, 121, 1, 1 },   /* 31 block rows: padded to 32, XOR */
	{ V3D_CL_MEMORY_UIF_XOR, 18, 128, 0, 0 },
};

/* Builds the tiled surface of a case the way the drivers lay it out. */
static struct v3d_surface case_surface(const struct layout_case *c, const struct fmt *f, uint32_t *w, uint32_t *h)
{
	uint32_t uw = v3d_utile_width(f->cpp), uh = v3d_utile_height(f->cpp);
	*w = c->w_utiles_x2 * uw / 2 + c->w_extra;
	*h = c->h_utiles_x2 * uh / 2 + c->h_extra;
	struct v3d_surface s = { c->layout, f->cpp, 0, 0 };
	if (c->layout >= V3D_CL_MEMORY_UIF_NO_XOR) {
		uint32_t ub = (*h + 2 * uh - 1) / (2 * uh);
		ub += v3d_uif_pad_blocks(f->cpp, ub * 2 * uh);
		if (c->layout == V3D_CL_MEMORY_UIF_XOR && !v3d_uif_wants_xor(ub))
			ub = (ub + V3D_PAGE_CACHE_UB_ROWS - 1) / V3D_PAGE_CACHE_UB_ROWS * V3D_PAGE_CACHE_UB_ROWS;
		s.uif_height_ub = ub;
	}
	return s;
}

static void test_tfu_tlb_round_trips(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		for (unsigned fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++) {
			const struct fmt *f = &fmts[fi];
			for (unsigned ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
				uint32_t w, h;
				struct v3d_surface tiled = case_surface(&cases[ci], f, &w, &h);
				struct v3d_surface raster = { V3D_CL_MEMORY_RASTER, f->cpp, (w + 3) * f->cpp, 0 };
				struct v3d_surface out_raster = raster;
				if (ver == 42)
					out_raster.stride = w * f->cpp; /* 4.2's TFU writes raster at the width */
				uint32_t tiled_size = round_page(v3d_surface_span(&tiled, w, h));
				uint32_t raster_size = round_page(v3d_surface_span(&raster, w, h));
				struct rig r;
				rig_init(&r, ver);
				uint8_t *src = fake_bo_add(&r.mem, SRC_ADDR, raster_size);
				uint8_t *t1 = fake_bo_add(&r.mem, TILED_ADDR, tiled_size);
				uint8_t *t2 = fake_bo_add(&r.mem, TILED2_ADDR, tiled_size);
				uint8_t *d1 = fake_bo_add(&r.mem, DST_ADDR, raster_size);
				uint8_t *d2 = fake_bo_add(&r.mem, DST2_ADDR, raster_size);
				fill_random(src, raster_size, ver * 100 + fi * 10 + ci);

				/* upload raster -> tiled through the TFU */
				struct v3d_tfu_regs regs = tfu_regs(ver, f, SRC_ADDR, &raster, TILED_ADDR, &tiled, w, h);
				struct v3d_tfu_result res;
				v3d_tfu_run(ver, &regs, &r.iface, &res);
				CHECK_EQ(res.status, V3D_TFU_DONE);
				/* TLB: load tiled, store raster */
				struct v3d_clb_raster_job job = {
					.width = w, .height = h, .format = f->tlb_format, .bpp = f->bpp,
					.type = ver == 42 ? f->type42 : f->type71,
					.src_addr = TILED_ADDR, .src_stride = tiled.uif_height_ub, .src_memory_format = tiled.layout,
					.dst_addr = DST_ADDR, .dst_stride = raster.stride,
				};
				CHECK_EQ(rig_run(&r, &job), V3D_CLE_DONE);
				CHECK_EQ(v3d_cle_stats(r.render)->unmodeled, 0);
				/* TLB: load raster, store tiled; then TFU tiled -> raster */
				job.src_addr = SRC_ADDR;
				job.src_stride = raster.stride;
				job.src_memory_format = V3D_CL_MEMORY_RASTER;
				job.dst_addr = TILED2_ADDR;
				job.dst_stride = tiled.uif_height_ub;
				job.dst_memory_format = tiled.layout;
				CHECK_EQ(rig_run(&r, &job), V3D_CLE_DONE);
				regs = tfu_regs(ver, f, TILED2_ADDR, &tiled, DST2_ADDR, &out_raster, w, h);
				v3d_tfu_run(ver, &regs, &r.iface, &res);
				CHECK_EQ(res.status, V3D_TFU_DONE);

				unsigned bad1 = 0, bad2 = 0;
				for (uint32_t y = 0; y < h; y++) {
					const uint8_t *s = src + (size_t)y * raster.stride;
					bad1 += memcmp(d1 + (size_t)y * raster.stride, s, (size_t)w * f->cpp) != 0;
					bad2 += memcmp(d2 + (size_t)y * out_raster.stride, s, (size_t)w * f->cpp) != 0;
				}
				if (bad1 || bad2 || memcmp(t1, t2, tiled_size))
					fprintf(stderr, "ver %d cpp %u case %u (%ux%u layout %d): rows bad %u / %u\n", ver,
						f->cpp, ci, w, h, tiled.layout, bad1, bad2);
				CHECK_EQ(bad1, 0);
				CHECK_EQ(bad2, 0);
				CHECK(memcmp(t1, t2, tiled_size) == 0); /* both engines lay out the same bytes */
				/* the tiled image really is tiled: pixel (w-1, h-1) sits where the layout says */
				uint64_t o = v3d_surface_offset(&tiled, w - 1, h - 1);
				CHECK(memcmp(t1 + o, src + (size_t)(h - 1) * raster.stride + (size_t)(w - 1) * f->cpp, f->cpp) == 0);
				rig_free(&r);
			}
		}
	}
}

/* Fills `addr` (UIF, 32 bpp, w x h) with `color` in one job. */
static void fill_uif(struct rig *r, uint32_t addr, uint32_t w, uint32_t h, uint32_t ub, uint32_t color)
{
	const uint32_t c[4] = { color, 0, 0, 0 };
	struct v3d_clb_raster_job job = {
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = r->ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI, .clear_color = c,
		.dst_addr = addr, .dst_stride = ub, .dst_memory_format = V3D_CL_MEMORY_UIF_NO_XOR,
	};
	CHECK_EQ(rig_run(r, &job), V3D_CLE_DONE);
}

/* Clear A to colour 1, B to colour 2 in two jobs, then load A and store it raster in a third:
 * colour 1. A fourth job stores a tile nothing loaded or cleared: the poison. */
static void test_no_carry_between_jobs(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct rig r;
		rig_init(&r, ver);
		const uint32_t w = 40, h = 24, ub = 3;
		uint8_t *a = fake_bo_add(&r.mem, TILED_ADDR, 16384);
		fake_bo_add(&r.mem, TILED2_ADDR, 16384);
		uint8_t *d = fake_bo_add(&r.mem, DST_ADDR, 16384);
		fill_uif(&r, TILED_ADDR, w, h, ub, 0x11111111u);
		fill_uif(&r, TILED2_ADDR, w, h, ub, 0x22222222u);
		CHECK_EQ(a[0], 0x11);
		struct v3d_clb_raster_job job = {
			.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
			.type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
			.src_addr = TILED_ADDR, .src_stride = ub, .src_memory_format = V3D_CL_MEMORY_UIF_NO_XOR,
			.dst_addr = DST_ADDR, .dst_stride = w * 4,
		};
		CHECK_EQ(rig_run(&r, &job), V3D_CLE_DONE);
		unsigned bad = 0;
		for (uint32_t i = 0; i < w * h; i++) {
			uint32_t v;
			memcpy(&v, d + i * 4, 4);
			bad += v != 0x11111111u;
		}
		CHECK_EQ(bad, 0);

		/* a job that only stores: the tile buffer holds the poison */
		struct v3d_clb b;
		v3d_clb_init(&b, ver, r.rcl, CL_BO_SIZE, RCL_ADDR);
		struct v3d_clb_rendering common = { .width = 8, .height = 2, .num_rts = 1, .tile_w = 64, .tile_h = 64 };
		v3d_clb_rendering_mode_common(&b, &common);
		if (ver == 42) {
			struct v3d_clb_rt42 rts[4] = { { V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, 0 } };
			v3d42_clb_rendering_mode_color(&b, rts);
		} else {
			v3d71_clb_render_target(&b, 0, V3D_INTERNAL_BPP_32, V3D71_RT_8UI, 64, NULL);
		}
		v3d_clb_tile_coordinates(&b, 0, 0);
		struct v3d_clb_ls st = { .buffer = 0, .image_format = V3D_CL_FMT_RGBA8UI, .stride = 32, .addr = DST_ADDR };
		v3d_clb_store(&b, &st);
		v3d_clb_op(&b, V3D_CL_END_OF_TILE_MARKER);
		REQUIRE(v3d_clb_ok(&b));
		v3d_cle_start(r.render, V3D_CLE_RENDER, RCL_ADDR, v3d_clb_gpu_addr(&b), NULL, NULL);
		CHECK_EQ(run_until_stop(r.render, &r.iface, 100, 10), V3D_CLE_DONE);
		for (uint32_t i = 0; i < 16; i++) {
			uint32_t v;
			memcpy(&v, d + i * 4, 4);
			bad += v != V3D_TLB_POISON;
		}
		CHECK_EQ(bad, 0);
		rig_free(&r);
	}
}

/* An explicit one-tile render list at RCL_ADDR: common config (internal depth type), RT0 8UI,
 * then the caller's packets. */
static void begin_tile(struct rig *r, struct v3d_clb *b, uint32_t w, uint32_t h, uint32_t depth_type)
{
	v3d_clb_init(b, r->ver, r->rcl, CL_BO_SIZE, RCL_ADDR);
	struct v3d_clb_rendering common = { .width = w, .height = h, .num_rts = 1, .tile_w = 64, .tile_h = 64,
					    .internal_depth_type = depth_type };
	v3d_clb_rendering_mode_common(b, &common);
	if (r->ver == 42) {
		struct v3d_clb_rt42 rts[4] = { { V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, 0 } };
		v3d42_clb_rendering_mode_color(b, rts);
	} else {
		v3d71_clb_render_target(b, 0, V3D_INTERNAL_BPP_32, V3D71_RT_8UI, 64, NULL);
	}
}

static enum v3d_cle_status end_tile(struct rig *r, struct v3d_clb *b)
{
	v3d_clb_op(b, V3D_CL_END_OF_TILE_MARKER);
	REQUIRE(v3d_clb_ok(b));
	v3d_cle_start(r->render, V3D_CLE_RENDER, RCL_ADDR, v3d_clb_gpu_addr(b), NULL, NULL);
	return run_until_stop(r->render, &r->iface, 100, 10);
}

/* 4.2 depth / stencil: a Z/S clear stored as D24S8 in UIF (depth in bits 31:8, stencil in 7:0),
 * as D32F and as D16; a depth-only store keeps the stencil bytes; a D24S8 image loaded into the
 * Z/S buffer and stored again is the same bytes (v3dv's depth image copies). */
static void test_depth_stencil(void)
{
	struct rig r;
	rig_init(&r, 42);
	const uint32_t w = 20, h = 10; /* 32 bpp UIF: 3 block columns, 2 block rows */
	uint8_t *zs = fake_bo_add(&r.mem, TILED_ADDR, 16384);
	uint8_t *zs2 = fake_bo_add(&r.mem, TILED2_ADDR, 16384);
	uint8_t *d = fake_bo_add(&r.mem, DST_ADDR, 16384);
	struct v3d_surface uif = { V3D_CL_MEMORY_UIF_NO_XOR, 4, 0, 2 };
	struct v3d_clb b;
	begin_tile(&r, &b, w, h, V3D_INTERNAL_DEPTH_24);
	v3d_clb_zs_clear_values(&b, 0.5f, 0x5a);
	v3d_clb_tile_coordinates(&b, 0, 0);
	v3d_clb_clear(&b, false, true);
	struct v3d_clb_ls st = { .buffer = V3D_CL_BUFFER_ZS, .memory_format = V3D_CL_MEMORY_UIF_NO_XOR,
				 .image_format = V3D_CL_FMT_D24S8, .stride = 2, .addr = TILED_ADDR };
	v3d_clb_store(&b, &st);
	struct v3d_clb_ls st32 = { .buffer = V3D_CL_BUFFER_Z, .image_format = V3D_CL_FMT_D32F, .stride = w * 4, .addr = DST_ADDR };
	v3d_clb_store(&b, &st32);
	struct v3d_clb_ls st16 = { .buffer = V3D_CL_BUFFER_Z, .image_format = V3D_CL_FMT_D16, .stride = w * 2,
				   .addr = DST_ADDR + 4096 };
	v3d_clb_store(&b, &st16);
	CHECK_EQ(end_tile(&r, &b), V3D_CLE_DONE);
	CHECK_EQ(v3d_cle_stats(r.render)->unmodeled, 0);
	unsigned bad = 0;
	/* the Z buffer holds 24-bit unorm (the internal depth type): D32F gets that value back */
	const float half = (float)(8388608.0 / 16777215.0);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint32_t v;
			memcpy(&v, zs + v3d_surface_offset(&uif, x, y), 4);
			bad += v != ((0x800000u << 8) | 0x5au); /* round(0.5 * (2^24 - 1)) */
			bad += memcmp(d + (y * w + x) * 4, &half, 4) != 0;
			uint16_t v16;
			memcpy(&v16, d + 4096 + (y * w + x) * 2, 2);
			bad += v16 != 0x8000u;
		}
	CHECK_EQ(bad, 0);

	/* copy: load ZS (D24S8, UIF) from a pattern, store to another image */
	fill_random(zs, 16384, 77);
	memset(zs2, 0xc3, 16384);
	begin_tile(&r, &b, w, h, V3D_INTERNAL_DEPTH_24);
	v3d_clb_tile_coordinates(&b, 0, 0);
	struct v3d_clb_ls ld = st;
	v3d_clb_load(&b, &ld);
	v3d_clb_op(&b, V3D_CL_END_OF_LOADS);
	st.addr = TILED2_ADDR;
	v3d_clb_store(&b, &st);
	CHECK_EQ(end_tile(&r, &b), V3D_CLE_DONE);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint64_t o = v3d_surface_offset(&uif, x, y);
			bad += memcmp(zs + o, zs2 + o, 4) != 0;
		}
	CHECK_EQ(bad, 0);

	/* depth only into D24S8: the stencil bytes stay */
	memset(zs2, 0xc3, 16384);
	begin_tile(&r, &b, w, h, V3D_INTERNAL_DEPTH_24);
	v3d_clb_zs_clear_values(&b, 1.0f, 0);
	v3d_clb_tile_coordinates(&b, 0, 0);
	v3d_clb_clear(&b, false, true);
	st.buffer = V3D_CL_BUFFER_Z;
	v3d_clb_store(&b, &st);
	CHECK_EQ(end_tile(&r, &b), V3D_CLE_DONE);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint32_t v;
			memcpy(&v, zs2 + v3d_surface_offset(&uif, x, y), 4);
			bad += v != 0xffffffc3u;
		}
	CHECK_EQ(bad, 0);
	rig_free(&r);
}

/* Hostile fields fault and write nothing: a UIF padded height that puts column 1 past the BO, a
 * store address outside every BO, a TFU input height or stride running past the BO. */
static void test_hostile_values_write_nothing(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct rig r;
		rig_init(&r, ver);
		uint8_t *dst = fake_bo_add(&r.mem, TILED_ADDR, 8192);
		uint8_t *src = fake_bo_add(&r.mem, SRC_ADDR, 8192);
		memset(dst, 0x77, 8192);
		/* 40 px of RGBA8 in UIF = 2 columns; column 1 starts padded height x 1 KiB on */
		const uint32_t heights[] = { 0xfffffu, 8, 0x80000u };
		for (unsigned i = 0; i < 3; i++) {
			struct v3d_clb b;
			begin_tile(&r, &b, 40, 8, V3D_INTERNAL_DEPTH_32F);
			v3d_clb_tile_coordinates(&b, 0, 0);
			struct v3d_clb_ls st = { .buffer = 0, .memory_format = V3D_CL_MEMORY_UIF_XOR,
						 .image_format = V3D_CL_FMT_RGBA8UI, .stride = heights[i],
						 .addr = i == 1 ? 0x7ff00000u : TILED_ADDR };
			v3d_clb_store(&b, &st);
			CHECK_EQ(end_tile(&r, &b), V3D_CLE_FAULT);
			const struct v3d_cle_fault *f = v3d_cle_fault(r.render);
			REQUIRE(f);
			CHECK(f->write);
			CHECK_EQ(f->opcode, V3D_CL_STORE_TILE_BUFFER_GENERAL);
		}
		unsigned bad = 0;
		for (uint32_t i = 0; i < 8192; i++)
			bad += dst[i] != 0x77;
		CHECK_EQ(bad, 0);

		/* TFU: UIF input whose padded height runs the second column off the BO; raster input
		 * whose stride does; output UIF at an address outside every BO */
		const struct fmt *f = &fmts[2];
		struct v3d_surface in_uif = { V3D_CL_MEMORY_UIF_NO_XOR, 4, 0, 0x10000u };
		struct v3d_surface in_raster = { V3D_CL_MEMORY_RASTER, 4, 0x100000u, 0 };
		struct v3d_surface out = { V3D_CL_MEMORY_UIF_NO_XOR, 4, 0, 2 };
		struct v3d_tfu_regs regs[3] = {
			tfu_regs(ver, f, SRC_ADDR, &in_uif, TILED_ADDR, &out, 40, 8),
			tfu_regs(ver, f, SRC_ADDR, &in_raster, TILED_ADDR, &out, 40, 8),
			tfu_regs(ver, f, SRC_ADDR, &out, 0x7ff00000u, &out, 40, 8),
		};
		for (unsigned i = 0; i < 3; i++) {
			struct v3d_tfu_result res;
			v3d_tfu_run(ver, &regs[i], &r.iface, &res);
			CHECK_EQ(res.status, V3D_TFU_FAULT);
			CHECK_EQ(res.write, i == 2);
			CHECK_EQ(res.bytes_written, 0);
		}
		for (uint32_t i = 0; i < 8192; i++)
			bad += dst[i] != 0x77;
		CHECK_EQ(bad, 0);
		(void)src;
		rig_free(&r);
	}
}

int main(void)
{
	RUN_TEST(test_tfu_tlb_round_trips);
	RUN_TEST(test_no_carry_between_jobs);
	RUN_TEST(test_depth_stencil);
	RUN_TEST(test_hostile_values_write_nothing);
	return test_finish();
}
