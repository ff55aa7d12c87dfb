/* The buffer transfers of /work/notes/v3dv-buffer-cl.md (vkCmdCopyBuffer, vkCmdFillBuffer,
 * vkCmdUpdateBuffer) split into jobs the way Mesa 22.3's v3dv does (v3dvx_meta_common.c
 * meta_copy_buffer / meta_fill_buffer), for the CLE tests in tests/unit/host/sim/v3d and the
 * validator tests in tests/unit/host/validate. The expected frames were worked out by hand from
 * Mesa's algorithm. */
#ifndef FERRY_TEST_V3DV_BUFFER_CASES_H
#define FERRY_TEST_V3DV_BUFFER_CASES_H

#include <stdbool.h>
#include <stdint.h>

#include "v3d_cl_builder.h"

#define V3DV_XFER_MAX_JOBS 2u

struct v3dv_xfer {
	const char *name;
	bool fill;                 /* vkCmdFillBuffer of `data`; else a copy (update: a copy from offset 0) */
	uint32_t src_off, dst_off; /* offsets into the source / destination BOs */
	uint32_t size;             /* bytes */
	uint32_t data;
	uint32_t item;             /* expected bytes per pixel */
	uint32_t nr_jobs;          /* expected jobs and their frames */
	uint32_t frames[V3DV_XFER_MAX_JOBS][2];
};

static const struct v3dv_xfer v3dv_xfers[] = {
	/* a copy at byte offsets: R8UI, 1000 = 125 x 8 */
	{ "copy 1000 B at src+1 / dst+3", false, 1, 3, 1000, 0, 1, 1, { { 125, 8 } } },
	/* the same at 2-byte offsets: RG8UI, 500 = 125 x 4 */
	{ "copy 1000 B at src+2 / dst+6", false, 2, 6, 1000, 0, 2, 1, { { 125, 4 } } },
	/* 75000 items: 9375 x 8 is odd and too wide, so 4687 x 16 -> 2343 x 32 (74976), then 24 = 6 x 4 */
	{ "copy 300000 B to dst+8", false, 0, 8, 300000, 0, 4, 2, { { 2343, 32 }, { 6, 4 } } },
	{ "fill 4096 B of 0xdeadbeef at +4", true, 0, 4, 4096, 0xdeadbeefu, 4, 1, { { 32, 32 } } },
	/* vkCmdUpdateBuffer: the data goes into a fresh BO, copied from its offset 0 */
	{ "update 256 B at +64", false, 0, 64, 256, 0, 4, 1, { { 8, 8 } } },
	/* 1000 x 1024 pixels: 16 x 16 tiles, so supertiles of 1 x 2 tiles (256 is not below 256) */
	{ "fill 4096000 B of 0x01020304", true, 0, 0, 4096000, 0x01020304u, 4, 1, { { 1000, 1024 } } },
};
#define V3DV_NR_XFERS (sizeof(v3dv_xfers) / sizeof(v3dv_xfers[0]))

struct v3dv_xfer_job {
	uint32_t width, height, item;
	uint32_t src_off, dst_off; /* this job's offsets */
};

/* The jobs v3dv records for x, in order (at most max); returns how many it needs. */
static inline uint32_t v3dv_xfer_plan(const struct v3dv_xfer *x, struct v3dv_xfer_job *jobs, uint32_t max)
{
	uint32_t item = x->fill ? 4u : v3d_clb_v3dv_copy_item_size(x->src_off, x->dst_off, x->size);
	uint32_t items = x->size / item, src = x->src_off, dst = x->dst_off, n = 0;
	while (items > 0) {
		uint32_t w, h;
		v3d_clb_v3dv_frame(items, &w, &h);
		if (n < max)
			jobs[n] = (struct v3dv_xfer_job){ w, h, item, src, dst };
		n++;
		items -= w * h;
		src += w * h * item;
		dst += w * h * item;
	}
	return n;
}

/* The raster job of one of them: RT0 8UI / 32 bpp, stride width x item, as v3dv sets it up. */
static inline struct v3d_clb_raster_job v3dv_xfer_raster_job(int ver, const struct v3dv_xfer *x,
							     const struct v3dv_xfer_job *j, uint32_t src_bo,
							     uint32_t dst_bo, uint32_t tile_alloc,
							     const uint32_t clear_color[4])
{
	uint32_t stride = j->width * j->item;
	return (struct v3d_clb_raster_job){
		.width = j->width, .height = j->height, .format = v3d_clb_v3dv_item_format(j->item),
		.bpp = V3D_INTERNAL_BPP_32, .type = ver == V3D_VER_42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = x->fill ? 0 : src_bo + j->src_off, .src_stride = x->fill ? 0 : stride,
		.dst_addr = dst_bo + j->dst_off, .dst_stride = stride,
		.clear_color = x->fill ? clear_color : NULL, .tile_alloc_addr = tile_alloc,
	};
}

/* The byte the destination holds at offset i (inside the transfer) afterwards. */
static inline uint8_t v3dv_xfer_expected(const struct v3dv_xfer *x, const uint8_t *src, uint32_t i)
{
	return x->fill ? (uint8_t)(x->data >> (8 * (i % 4))) : src[x->src_off + i];
}

#endif
