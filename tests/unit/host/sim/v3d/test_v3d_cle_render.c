/* Render lists that move memory: v3dv-shaped raster copies (several sizes, strides, formats,
 * partial edge tiles) and fills, run bin then render through the CLE over fake memory and checked
 * byte by byte; explicit tile lists with Y flip; MMU faults of loads and stores; unmodeled
 * surfaces left untouched. Both V3D versions. */
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "v3d_cl_builder.h"
#include "v3d_fake_mem.h"

#define RCL_ADDR 0x00100000u
#define IND_ADDR 0x00200000u
#define BCL_ADDR 0x00300000u
#define TA_ADDR 0x00400000u
#define SRC_ADDR 0x01000000u
#define DST_ADDR 0x02000000u
#define CL_BO_SIZE 0x20000u

static uint32_t round_page(uint64_t n) { return (uint32_t)((n + 4095) & ~4095ull); }

struct job_mem {
	struct fake_mem mem;
	struct v3d_cle_mem iface;
	uint8_t *rcl, *ind, *bcl, *src, *dst;
	uint32_t qms;
};

static void job_mem_init(struct job_mem *m, int ver, const struct v3d_clb_raster_job *job,
			 uint32_t src_size, uint32_t dst_size)
{
	memset(m, 0, sizeof(*m));
	m->rcl = fake_bo_add(&m->mem, RCL_ADDR, CL_BO_SIZE);
	m->ind = fake_bo_add(&m->mem, IND_ADDR, CL_BO_SIZE);
	m->bcl = fake_bo_add(&m->mem, BCL_ADDR, CL_BO_SIZE);
	m->qms = v3d_clb_raster_tile_alloc_size(ver, job);
	/* the implicit tile lists are fetched with read-ahead too: map slack past the blocks */
	fake_bo_add(&m->mem, TA_ADDR, round_page((uint64_t)m->qms + 16384));
	if (src_size)
		m->src = fake_bo_add(&m->mem, SRC_ADDR, src_size);
	m->dst = fake_bo_add(&m->mem, DST_ADDR, dst_size);
	m->iface = fake_mem_iface(&m->mem);
}

/* Builds the v3dv-shaped bin and render lists and runs them; returns the render status. */
static enum v3d_cle_status run_raster_job(int ver, struct job_mem *m, const struct v3d_clb_raster_job *job,
					  struct v3d_cle **render_out)
{
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, ver, m->bcl, CL_BO_SIZE, BCL_ADDR);
	v3d_clb_init(&rcl, ver, m->rcl, CL_BO_SIZE, RCL_ADDR);
	v3d_clb_init(&ind, ver, m->ind, CL_BO_SIZE, IND_ADDR);
	REQUIRE(v3d_clb_raster_bin(&bcl, job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, job));

	struct v3d_cle *bin = v3d_cle_create(ver), *render = v3d_cle_create(ver);
	REQUIRE(bin && render);
	struct v3d_cle_semaphore sem = { 0 };
	struct v3d_cle_bin_regs regs = { .qma = TA_ADDR, .qms = m->qms };
	v3d_cle_start(bin, V3D_CLE_BIN, BCL_ADDR, v3d_clb_gpu_addr(&bcl), &regs, &sem);
	v3d_cle_start(render, V3D_CLE_RENDER, RCL_ADDR, v3d_clb_gpu_addr(&rcl), NULL, &sem);
	CHECK_EQ(run_until_stop(bin, &m->iface, 64, 100), V3D_CLE_DONE);
	CHECK_EQ(sem.count, 0); /* v3dv's lists use no semaphore */
	enum v3d_cle_status st = run_until_stop(render, &m->iface, 256, 100000);
	v3d_cle_destroy(bin);
	*render_out = render;
	return st;
}

struct copy_case {
	uint32_t w, h, format, cpp, bpp, type42, type71, src_pad, dst_pad;
};

static const struct copy_case copy_cases[] = {
	{ 100, 70, V3D_CL_FMT_RGBA8UI, 4, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, V3D71_RT_8UI, 12, 0 },
	{ 64, 64, V3D_CL_FMT_R32UI, 4, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_32UI, V3D71_RT_32UI, 0, 0 },
	{ 33, 129, V3D_CL_FMT_RGBA32UI, 16, V3D_INTERNAL_BPP_128, V3D_INTERNAL_TYPE_32UI, V3D71_RT_32UI, 16, 48 },
	{ 1, 1, V3D_CL_FMT_R8UI, 1, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, V3D71_RT_8UI, 3, 7 },
	{ 130, 5, V3D_CL_FMT_RG16UI, 4, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_16UI, V3D71_RT_16UI, 4, 4 },
	{ 65, 33, V3D_CL_FMT_RGBA16UI, 8, V3D_INTERNAL_BPP_64, V3D_INTERNAL_TYPE_16UI, V3D71_RT_16UI, 0, 8 },
	/* wide enough for several supertile columns: 4096 px of R8UI = 64 tiles */
	{ 4096, 3, V3D_CL_FMT_R8UI, 1, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, V3D71_RT_8UI, 0, 0 },
};

static void test_raster_copy(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		for (unsigned c = 0; c < sizeof(copy_cases) / sizeof(copy_cases[0]); c++) {
			const struct copy_case *cc = &copy_cases[c];
			uint32_t src_stride = cc->w * cc->cpp + cc->src_pad, dst_stride = cc->w * cc->cpp + cc->dst_pad;
			struct v3d_clb_raster_job job = {
				.width = cc->w, .height = cc->h, .format = cc->format, .bpp = cc->bpp,
				.type = ver == 42 ? cc->type42 : cc->type71,
				.src_addr = SRC_ADDR, .src_stride = src_stride,
				.dst_addr = DST_ADDR, .dst_stride = dst_stride, .tile_alloc_addr = TA_ADDR,
			};
			uint32_t src_size = round_page((uint64_t)src_stride * cc->h);
			uint32_t dst_size = round_page((uint64_t)dst_stride * cc->h);
			struct job_mem m;
			job_mem_init(&m, ver, &job, src_size, dst_size);
			uint32_t seed = 0x12345u + c;
			for (uint32_t i = 0; i < src_size; i++) {
				seed = seed * 1103515245u + 12345u;
				m.src[i] = (uint8_t)(seed >> 16);
			}
			memset(m.dst, 0xab, dst_size);

			struct v3d_cle *render;
			CHECK_EQ(run_raster_job(ver, &m, &job, &render), V3D_CLE_DONE);
			const struct v3d_cle_stats *s = v3d_cle_stats(render);
			uint32_t tw, th;
			v3d_clb_raster_tile_size(ver, cc->bpp, &tw, &th);
			uint32_t tiles = ((cc->w + tw - 1) / tw) * ((cc->h + th - 1) / th);
			CHECK_EQ(s->tiles, tiles + 2); /* + the two GFXH-1742 dummy tiles */
			CHECK_EQ(s->bytes_stored, (uint64_t)cc->w * cc->cpp * cc->h);
			CHECK_EQ(s->bytes_loaded, (uint64_t)cc->w * cc->cpp * cc->h);
			CHECK_EQ(s->unmodeled, 0);
			unsigned bad = 0;
			for (uint32_t y = 0; y < cc->h; y++) {
				if (memcmp(m.dst + (size_t)y * dst_stride, m.src + (size_t)y * src_stride, cc->w * cc->cpp))
					bad++;
				for (uint32_t x = cc->w * cc->cpp; x < dst_stride; x++)
					if (m.dst[(size_t)y * dst_stride + x] != 0xab)
						bad++; /* the padding is not written */
			}
			for (uint64_t i = (uint64_t)dst_stride * cc->h; i < dst_size; i++)
				if (m.dst[i] != 0xab)
					bad++;
			CHECK_EQ(bad, 0);
			if (bad)
				fprintf(stderr, "  ver %d case %u (%ux%u)\n", ver, c, cc->w, cc->h);
			v3d_cle_destroy(render);
			fake_mem_free(&m.mem);
		}
	}
}

static void test_raster_fill(void)
{
	const uint32_t sizes[][2] = { { 100, 70 }, { 64, 64 }, { 1, 1 }, { 257, 2 } };
	for (int ver = 42; ver <= 71; ver += 29) {
		for (unsigned c = 0; c < 4; c++) {
			uint32_t w = sizes[c][0], h = sizes[c][1], stride = w * 4 + 8;
			const uint32_t color[4] = { 0xdeadbeefu + c, 0, 0, 0 };
			struct v3d_clb_raster_job job = {
				.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
				.type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
				.dst_addr = DST_ADDR, .dst_stride = stride, .clear_color = color,
				.tile_alloc_addr = TA_ADDR,
			};
			uint32_t dst_size = round_page((uint64_t)stride * h);
			struct job_mem m;
			job_mem_init(&m, ver, &job, 0, dst_size);
			memset(m.dst, 0x11, dst_size);
			struct v3d_cle *render;
			CHECK_EQ(run_raster_job(ver, &m, &job, &render), V3D_CLE_DONE);
			CHECK_EQ(v3d_cle_stats(render)->bytes_loaded, 0);
			unsigned bad = 0;
			for (uint32_t y = 0; y < h; y++) {
				for (uint32_t x = 0; x < w; x++) {
					uint32_t v;
					memcpy(&v, m.dst + (size_t)y * stride + x * 4, 4);
					if (v != color[0])
						bad++;
				}
				for (uint32_t x = w * 4; x < stride; x++)
					if (m.dst[(size_t)y * stride + x] != 0x11)
						bad++;
			}
			CHECK_EQ(bad, 0);
			v3d_cle_destroy(render);
			fake_mem_free(&m.mem);
		}
	}
}

/* A copy whose destination BO is too small: the store of the first row past it faults. */
static void test_store_and_load_faults(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		for (int which = 0; which < 2; which++) {
			uint32_t w = 64, h = 64, stride = 256;
			struct v3d_clb_raster_job job = {
				.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
				.type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
				.src_addr = SRC_ADDR, .src_stride = stride,
				.dst_addr = DST_ADDR, .dst_stride = stride, .tile_alloc_addr = TA_ADDR,
			};
			/* which 0: the destination holds 16 rows; which 1: the source does */
			struct job_mem m;
			job_mem_init(&m, ver, &job, which ? 4096 : stride * h, which ? stride * h : 4096);
			struct v3d_cle *render;
			CHECK_EQ(run_raster_job(ver, &m, &job, &render), V3D_CLE_FAULT);
			const struct v3d_cle_fault *f = v3d_cle_fault(render);
			REQUIRE(f);
			CHECK_EQ(f->addr, (which ? SRC_ADDR : DST_ADDR) + 4096);
			CHECK_EQ(f->write, which == 0);
			CHECK_EQ(f->opcode, which ? V3D_CL_LOAD_TILE_BUFFER_GENERAL : V3D_CL_STORE_TILE_BUFFER_GENERAL);
			CHECK(f->packet_addr >= IND_ADDR && f->packet_addr < IND_ADDR + 64); /* in the tile list */
			CHECK(strcmp(f->what, which ? "load tile buffer" : "store tile buffer") == 0);
			v3d_cle_destroy(render);
			fake_mem_free(&m.mem);
		}
	}
}

/* An explicit-tile render list: load with Y flip and R/B swap, store plain; then an unmodeled
 * store (RGB8 in UIF: no utile of 3-byte pixels) leaves memory alone. */
static void test_explicit_tile_flip(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct fake_mem mem = { 0 };
		uint8_t *rcl_mem = fake_bo_add(&mem, RCL_ADDR, CL_BO_SIZE);
		uint8_t *src = fake_bo_add(&mem, SRC_ADDR, 4096);
		uint8_t *dst = fake_bo_add(&mem, DST_ADDR, 4096);
		struct v3d_cle_mem iface = fake_mem_iface(&mem);
		const uint32_t w = 16, h = 4, stride = w * 4;
		for (uint32_t i = 0; i < stride * h; i++)
			src[i] = (uint8_t)i;

		struct v3d_clb b;
		v3d_clb_init(&b, ver, rcl_mem, CL_BO_SIZE, RCL_ADDR);
		struct v3d_clb_rendering common = { .width = w, .height = h, .num_rts = 1, .tile_w = 64, .tile_h = 64 };
		v3d_clb_rendering_mode_common(&b, &common);
		if (ver == 42) {
			struct v3d_clb_rt42 rts[4] = { { V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, 0 } };
			v3d42_clb_rendering_mode_color(&b, rts);
		} else {
			v3d71_clb_render_target(&b, 0, V3D_INTERNAL_BPP_32, V3D71_RT_8UI, 64, NULL);
		}
		v3d_clb_tile_coordinates(&b, 0, 0);
		struct v3d_clb_ls ld = { .buffer = 0, .image_format = V3D_CL_FMT_RGBA8UI, .stride = stride,
					 .height = h, .flip_y = true, .rb_swap = true, .addr = SRC_ADDR };
		v3d_clb_load(&b, &ld);
		v3d_clb_op(&b, V3D_CL_END_OF_LOADS);
		struct v3d_clb_ls st = { .buffer = 0, .image_format = V3D_CL_FMT_RGBA8UI, .stride = stride, .addr = DST_ADDR };
		v3d_clb_store(&b, &st);
		struct v3d_clb_ls uif = st;
		uif.memory_format = V3D_CL_MEMORY_UIF_XOR;
		uif.image_format = V3D_CL_FMT_RGB8; /* 3-byte pixels have no utile: not modeled */
		uif.addr = DST_ADDR + 2048;
		v3d_clb_store(&b, &uif);
		v3d_clb_op(&b, V3D_CL_END_OF_TILE_MARKER);
		v3d_clb_op(&b, V3D_CL_END_OF_RENDERING);
		REQUIRE(v3d_clb_ok(&b));

		struct v3d_cle *cle = v3d_cle_create(ver);
		REQUIRE(cle);
		v3d_cle_start(cle, V3D_CLE_RENDER, RCL_ADDR, v3d_clb_gpu_addr(&b), NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_DONE);
		CHECK_EQ(v3d_cle_stats(cle)->unmodeled, 1);
		unsigned bad = 0;
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				const uint8_t *s = src + (h - 1 - y) * stride + x * 4, *d = dst + y * stride + x * 4;
				if (d[0] != s[2] || d[1] != s[1] || d[2] != s[0] || d[3] != s[3])
					bad++;
			}
		CHECK_EQ(bad, 0);
		for (uint32_t i = 2048; i < 4096; i++)
			if (dst[i])
				bad++;
		CHECK_EQ(bad, 0);
		/* a load outside any tile is an invalid list */
		v3d_clb_init(&b, ver, rcl_mem, CL_BO_SIZE, RCL_ADDR);
		v3d_clb_rendering_mode_common(&b, &common);
		v3d_clb_load(&b, &ld);
		v3d_cle_start(cle, V3D_CLE_RENDER, RCL_ADDR, v3d_clb_gpu_addr(&b), NULL, NULL);
		CHECK_EQ(v3d_cle_run(cle, &iface, 100), V3D_CLE_ERROR);
		v3d_cle_destroy(cle);
		fake_mem_free(&mem);
	}
}

int main(void)
{
	RUN_TEST(test_raster_copy);
	RUN_TEST(test_raster_fill);
	RUN_TEST(test_store_and_load_faults);
	RUN_TEST(test_explicit_tile_flip);
	return test_finish();
}
