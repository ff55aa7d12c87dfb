/* The benchmark V3D job (v3d_workload.h): N draws the way v3dv bins them, a fill-and-store render
 * list, and its in-process validation rate against a plain copy. */
#include "bench_clock.h"
#include "v3d_workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "v3d_cl_builder.h"
#include "validate/v3d_validate.h"

#define ATTRS         2u     /* attribute records per shader state block */
#define BLOCK_ALIGN   32u    /* GL_SHADER_STATE holds the block address >> 5 */
#define PER_DRAW_MAX  96u    /* bin list bytes one draw takes at most */
#define RENDER_BYTES  16384u /* the render list, then its generic tile list, each */
#define CODE_BYTES    4096u  /* shader code, then uniforms, then vertices in the data BO */

/* The state packets v3dv re-emits around a draw (zero payloads: the validator checks what these
 * carry only for addresses, and they have none). */
static const uint8_t draw_state_ops[] = {
	V3D_CL_CFG_BITS, V3D_CL_CLIP_WINDOW, V3D_CL_VIEWPORT_OFFSET, V3D_CL_CLIPPER_XY_SCALING,
	V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET,
};

static uint32_t round_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static uint32_t block_stride(int ver)
{
	return round_up(v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD) + 16u * ATTRS, BLOCK_ALIGN);
}

static uint32_t bin_bytes(uint32_t draws)
{
	return round_up(256u + draws * PER_DRAW_MAX, 4096u);
}

static void raster_job(int ver, const struct v3d_workload *w, struct v3d_clb_raster_job *job)
{
	static const uint32_t color[4] = { 0xff336699u, 0, 0, 0 };
	*job = (struct v3d_clb_raster_job){
		.width = V3D_WORKLOAD_WIDTH, .height = V3D_WORKLOAD_HEIGHT, .format = V3D_CL_FMT_RGBA8UI,
		.bpp = V3D_INTERNAL_BPP_32, .type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.dst_addr = w ? w->dst_addr : 0, .dst_stride = V3D_WORKLOAD_WIDTH * 4u, .clear_color = color,
		.tile_alloc_addr = w ? w->ta_addr : 0,
	};
}

void v3d_workload_sizes(int ver, uint32_t draws, struct v3d_workload_sizes *out)
{
	struct v3d_clb_raster_job job;
	raster_job(ver, NULL, &job);
	uint32_t qms = v3d_clb_raster_tile_alloc_size(ver, &job);
	*out = (struct v3d_workload_sizes){
		.cl_bytes = bin_bytes(draws) + 2u * RENDER_BYTES,
		.data_bytes = round_up(draws * block_stride(ver), 4096u) + 3u * CODE_BYTES,
		/* the tile state array (256 B per tile) shares the BO, as v3dv's */
		.ta_bytes = round_up(qms * 5u + 4096u, 4096u), .qms = qms,
	};
}

/* One shader state block: the GL record's code addresses at the shared code, its other address
 * fields at the uniforms, and ATTRS attribute records at the vertices. */
static void write_block(int ver, uint8_t *block, uint32_t code, uint32_t uniforms, uint32_t vertices)
{
	const struct v3d_cl_addr_field *f;
	size_t nf = v3d_cl_struct_address_fields(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, &f);
	for (size_t i = 0; i < nf; i++)
		v3d_cl_set_address(block, f[i].start, f[i].size, f[i].size < 32 ? code : uniforms);
	uint32_t gl = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
	for (uint32_t a = 0; a < ATTRS; a++)
		v3d_cl_set_address(block + gl + 16u * a, 0, 32, vertices + 256u * a);
}

bool v3d_workload_build(const struct v3d_workload *w, struct v3d_workload_job *out)
{
	struct v3d_workload_sizes sz;
	v3d_workload_sizes(w->ver, w->draws, &sz);
	struct v3d_clb_raster_job job;
	raster_job(w->ver, w, &job);
	uint32_t blocks_bytes = sz.data_bytes - 3u * CODE_BYTES;
	uint32_t code = w->data_addr + blocks_bytes, uniforms = code + CODE_BYTES, vertices = uniforms + CODE_BYTES;
	memset(w->data, 0, sz.data_bytes);
	struct v3d_clb bcl, rcl, ind;
	uint32_t bin = bin_bytes(w->draws);
	v3d_clb_init(&bcl, w->ver, w->cl, bin, w->cl_addr);
	v3d_clb_init(&rcl, w->ver, w->cl + bin, RENDER_BYTES, w->cl_addr + bin);
	v3d_clb_init(&ind, w->ver, w->cl + bin + RENDER_BYTES, RENDER_BYTES, w->cl_addr + bin + RENDER_BYTES);

	struct v3d_clb_binning cfg = {
		.width = V3D_WORKLOAD_WIDTH, .height = V3D_WORKLOAD_HEIGHT, .num_rts = 1, .max_bpp = job.bpp,
	};
	v3d_clb_raster_tile_size(w->ver, job.bpp, &cfg.tile_w, &cfg.tile_h);
	v3d_clb_number_of_layers(&bcl, 1);
	v3d_clb_tile_binning_mode_cfg(&bcl, &cfg);
	v3d_clb_op(&bcl, V3D_CL_FLUSH_VCD_CACHE);
	v3d_clb_op(&bcl, V3D_CL_START_TILE_BINNING);
	uint8_t zeros[32] = { 0 };
	for (uint32_t d = 0; d < w->draws; d++) {
		for (size_t i = 0; i < sizeof(draw_state_ops); i++) {
			uint32_t len = v3d_cl_fixed_length(w->ver, draw_state_ops[i]);
			if (len == 0 || len > sizeof(zeros))
				return false;
			zeros[0] = draw_state_ops[i];
			v3d_clb_raw(&bcl, zeros, len);
		}
		uint32_t block = d * block_stride(w->ver);
		write_block(w->ver, w->data + block, code, uniforms, vertices);
		v3d_clb_gl_shader_state(&bcl, w->data_addr + block, ATTRS);
		v3d_clb_vertex_array_prims(&bcl, 4 /* triangles */, 3, 0);
	}
	v3d_clb_op(&bcl, V3D_CL_FLUSH);
	if (!v3d_clb_ok(&bcl) || !v3d_clb_raster_render(&rcl, &ind, &job))
		return false;
	*out = (struct v3d_workload_job){
		.bcl_start = w->cl_addr, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = w->cl_addr + bin,
		.rcl_end = v3d_clb_gpu_addr(&rcl), .qma = w->ta_addr, .qms = sz.qms, .qts = w->ta_addr,
	};
	return true;
}

/* ---- in-process rate ---- */

#define RATE_CL_ADDR     0x00100000u
#define RATE_SHADOW_ADDR 0xc0000000u

/* The validator's allocator for the rate: bump allocation in one host buffer. */
struct rate_pool {
	uint8_t *mem;
	uint32_t size, used;
};

static int rate_alloc(void *ctx, uint32_t size, struct v3dval_shadow *out)
{
	struct rate_pool *p = ctx;
	uint32_t aligned = round_up(size, V3DVAL_SHADOW_ALIGN);
	if (aligned < size || aligned > p->size - p->used)
		return -ENOSPC;
	out->addr = RATE_SHADOW_ADDR + p->used;
	out->map = p->mem + p->used;
	p->used += aligned;
	return 0;
}

/* One validation of the job, or one plain copy of its bytes (the baseline), as rate steps. */
struct rate_run {
	struct v3dval *v;
	const struct v3dval_cl_submit *s;
	const struct v3dval_shadow_allocator *a;
	struct rate_pool *pool;
	struct v3dval_cl_result res;
	const void *list, *blocks;
	uint64_t list_bytes, block_bytes;
};

static bool validate_once(void *arg)
{
	struct rate_run *r = arg;
	struct v3dval_error err;
	r->pool->used = 0;
	if (v3dval_validate_cl(r->v, r->s, r->a, &r->res, &err) == 0)
		return true;
	fprintf(stderr, "v3d workload rejected: %s\n", err.msg);
	return false;
}

static bool copy_once(void *arg)
{
	struct rate_run *r = arg;
	memcpy(r->pool->mem, r->list, r->list_bytes);
	memcpy(r->pool->mem + r->list_bytes, r->blocks, r->block_bytes);
	__asm__ volatile("" : : "r"(r->pool->mem) : "memory"); /* keep the copies */
	return true;
}

int v3d_workload_validate_rate(int ver, uint32_t draws, double seconds, struct v3d_workload_rate *out)
{
	if (draws == 0 || draws > 100000)
		return -EINVAL;
	struct v3d_workload_sizes sz;
	v3d_workload_sizes(ver, draws, &sz);
	struct v3d_workload w = {
		.ver = ver, .draws = draws, .cl = calloc(1, sz.cl_bytes), .cl_addr = RATE_CL_ADDR,
		.data = calloc(1, sz.data_bytes),
	};
	w.data_addr = round_up(w.cl_addr + sz.cl_bytes, 1u << 16);
	w.ta_addr = round_up(w.data_addr + sz.data_bytes, 1u << 16);
	w.dst_addr = round_up(w.ta_addr + sz.ta_bytes, 1u << 16);
	struct rate_pool pool = { .size = 2u * (sz.cl_bytes + sz.data_bytes + sz.ta_bytes) + (1u << 20) };
	pool.mem = malloc(pool.size);
	struct v3dval_policy policy;
	v3dval_policy_default(&policy, ver);
	struct v3dval *v = v3dval_create(&policy);
	int ret = 0;
	if (!w.cl || !w.data || !pool.mem || !v) {
		ret = -ENOMEM;
		goto out;
	}
	struct v3d_workload_job job;
	if (!v3d_workload_build(&w, &job)) {
		fprintf(stderr, "v3d workload: the lists did not fit\n");
		ret = -EINVAL;
		goto out;
	}
	/* tile memory and the render target need no host mapping: the validator only bounds them */
	const struct v3dval_bo bos[] = {
		{ w.cl_addr, sz.cl_bytes, w.cl, 1 },
		{ w.data_addr, sz.data_bytes, w.data, 2 },
		{ w.ta_addr, sz.ta_bytes, NULL, 3 },
		{ w.dst_addr, V3D_WORKLOAD_DST_BYTES, NULL, 4 },
	};
	const struct v3dval_cl_submit s = {
		.bos = bos, .nr_bos = 4, .bcl_start = job.bcl_start, .bcl_end = job.bcl_end,
		.rcl_start = job.rcl_start, .rcl_end = job.rcl_end, .qma = job.qma, .qms = job.qms, .qts = job.qts,
	};
	const struct v3dval_shadow_allocator a = { rate_alloc, &pool };
	struct rate_run run = { .v = v, .s = &s, .a = &a, .pool = &pool, .list = w.cl, .blocks = w.data };
	double per = bench_cpu_per_step(seconds, validate_once, &run);
	if (per < 0) {
		ret = -EINVAL;
		goto out;
	}
	const struct v3dval_cl_result res = run.res;
	uint32_t block_bytes = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD) + 16u * ATTRS;
	uint64_t list_bytes = res.bytes < sz.cl_bytes ? res.bytes : sz.cl_bytes;
	uint64_t blocks = (uint64_t)res.nr_blocks * block_bytes;
	uint64_t bytes = list_bytes + blocks;
	/* The baseline: the same bytes copied into the same (warm) shadow memory, nothing checked. */
	run.list_bytes = list_bytes;
	run.block_bytes = blocks;
	double copy_per = bench_cpu_per_step(seconds / 4, copy_once, &run);
	*out = (struct v3d_workload_rate){
		.bytes = bytes, .segments = res.nr_segments, .blocks = res.nr_blocks, .packets = res.packets,
		.us_per_job = per * 1e6, .mb_per_s = (double)bytes / per / 1e6,
		.copy_mb_per_s = (double)bytes / copy_per / 1e6,
	};
out:
	v3dval_destroy(v);
	free(w.cl);
	free(w.data);
	free(pool.mem);
	return ret;
}
