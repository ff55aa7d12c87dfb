/* V3D 4.2 / 7.1 control-list builder for tools and tests: packs packets bit-exactly (layouts from
 * ferry/hw/v3d_cl.h) into a caller-provided buffer that the GPU sees at a known address, and
 * builds the bin + render lists of a raster copy or fill the way Mesa's v3dv meta operations do.
 * A packet that does not fit, or a field value out of its field's range (or an address not
 * aligned as its field requires), is not written at all and makes the error sticky, so a sequence
 * of emits is checked once at the end with v3d_clb_ok(). No host dependencies. */
#ifndef FERRY_CS_V3D_CL_BUILDER_H
#define FERRY_CS_V3D_CL_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/hw/v3d_cl.h"

enum v3d_clb_error {
	V3D_CLB_OK = 0,
	V3D_CLB_OVERFLOW, /* a packet did not fit */
	V3D_CLB_INVALID,  /* a field value out of range, a misaligned address, a bad version */
};

struct v3d_clb {
	int ver;           /* 42 or 71 */
	uint8_t *buf;      /* CPU view of the list's memory */
	uint32_t cap;      /* bytes available at buf */
	uint32_t len;      /* bytes emitted */
	uint32_t gpu_base; /* GPU address of buf[0] */
	enum v3d_clb_error error;
};

void v3d_clb_init(struct v3d_clb *b, int ver, void *buf, uint32_t cap, uint32_t gpu_base);
static inline bool v3d_clb_ok(const struct v3d_clb *b) { return b->error == V3D_CLB_OK; }
/* The GPU address of the next byte to be emitted (a branch target, a list end). */
static inline uint32_t v3d_clb_gpu_addr(const struct v3d_clb *b) { return b->gpu_base + b->len; }

/* Appends raw bytes (a packet packed elsewhere); false (and the error set) if they do not fit. */
bool v3d_clb_raw(struct v3d_clb *b, const void *bytes, uint32_t len);
/* Any packet of fixed length with no payload fields set (HALT, NOP, FLUSH, END_OF_TILE_MARKER...). */
bool v3d_clb_op(struct v3d_clb *b, uint8_t opcode);

/* control flow */
bool v3d_clb_branch(struct v3d_clb *b, uint32_t addr);
bool v3d_clb_branch_to_sub_list(struct v3d_clb *b, uint32_t addr);
bool v3d_clb_generic_tile_list(struct v3d_clb *b, uint32_t start, uint32_t end);
bool v3d_clb_branch_to_implicit_tile_list(struct v3d_clb *b, uint32_t set);
bool v3d_clb_supertile_coordinates(struct v3d_clb *b, uint32_t column, uint32_t row);
bool v3d_clb_tile_coordinates(struct v3d_clb *b, uint32_t column, uint32_t row);
/* 4.2: CLEAR_TILE_BUFFERS with the two flags; 7.1: CLEAR_RENDER_TARGETS (the flags are ignored). */
bool v3d_clb_clear(struct v3d_clb *b, bool render_targets, bool z_stencil);

/* binning */
struct v3d_clb_binning {
	uint32_t width, height;      /* pixels, >= 1 */
	uint32_t num_rts;            /* 4.2: 1..4 */
	uint32_t max_bpp;            /* 4.2: enum v3d_internal_bpp */
	bool msaa, double_buffer;    /* 4.2 */
	uint32_t tile_w, tile_h;     /* 7.1: 8, 16, 32 or 64 */
	uint32_t initial_block_code; /* 0 64 B, 1 128 B, 2 256 B */
	uint32_t block_code;
};
bool v3d_clb_tile_binning_mode_cfg(struct v3d_clb *b, const struct v3d_clb_binning *cfg);
bool v3d_clb_number_of_layers(struct v3d_clb *b, uint32_t layers);

/* rendering config */
struct v3d_clb_rendering {
	uint32_t width, height, num_rts;
	uint32_t max_bpp;            /* 4.2 */
	bool msaa, double_buffer, early_z_disable;
	uint32_t internal_depth_type;
	uint32_t tile_w, tile_h;     /* 7.1 */
};
bool v3d_clb_rendering_mode_common(struct v3d_clb *b, const struct v3d_clb_rendering *cfg);
/* 4.2 COLOR sub-packet: bpp / internal type / clamp of RT0..3 (unused RTs: zeros). */
struct v3d_clb_rt42 { uint32_t bpp, type, clamp; };
bool v3d42_clb_rendering_mode_color(struct v3d_clb *b, const struct v3d_clb_rt42 rts[4]);
/* 4.2 CLEAR_COLORS parts 1..3 as many as the bpp needs (Mesa's split of the 128-bit value). */
bool v3d42_clb_clear_color(struct v3d_clb *b, uint32_t rt, uint32_t bpp, const uint32_t color[4]);
/* 7.1 RENDER_TARGET parts: part 1 always (bpp, type+clamp, TLB stride for tile_w, clear low bits),
 * parts 2/3 for 64/128 bpp when color is given. */
bool v3d71_clb_render_target(struct v3d_clb *b, uint32_t rt, uint32_t bpp, uint32_t type_clamp,
			     uint32_t tile_w, const uint32_t color[4]);
bool v3d_clb_zs_clear_values(struct v3d_clb *b, float z, uint32_t stencil);
/* The same with the Z value given as its bit pattern (v3dv's fills alias it to the fill word). */
bool v3d_clb_zs_clear_bits(struct v3d_clb *b, uint32_t z_bits, uint32_t stencil);
bool v3d_clb_tile_list_initial_block_size(struct v3d_clb *b, uint32_t code, bool auto_chained);
bool v3d_clb_tile_list_set_base(struct v3d_clb *b, uint32_t addr, uint32_t set);
struct v3d_clb_supertiles {
	uint32_t supertile_w, supertile_h;   /* tiles */
	uint32_t frame_w_supertiles, frame_h_supertiles;
	uint32_t frame_w_tiles, frame_h_tiles;
	uint32_t bin_tile_lists;             /* >= 1 */
};
bool v3d_clb_supertile_cfg(struct v3d_clb *b, const struct v3d_clb_supertiles *cfg);

/* LOAD/STORE_TILE_BUFFER_GENERAL */
struct v3d_clb_ls {
	uint32_t buffer;        /* enum v3d_cl_tile_buffer */
	uint32_t memory_format; /* enum v3d_cl_memory_format */
	uint32_t image_format;  /* enum v3d_cl_image_format */
	uint32_t stride;        /* raster: bytes per row (20 bits) */
	uint32_t height;        /* for Y flip */
	uint32_t addr;
	uint32_t decimate, dither;
	bool flip_y, rb_swap, channel_reverse;
	bool clear_or_force_alpha; /* store: clear the buffer stored; load: force alpha 1 */
};
bool v3d_clb_load(struct v3d_clb *b, const struct v3d_clb_ls *ls);
bool v3d_clb_store(struct v3d_clb *b, const struct v3d_clb_ls *ls);

/* a few bin packets for tests and tools (recorded, not executed, by the simulator) */
bool v3d_clb_gl_shader_state(struct v3d_clb *b, uint32_t record_addr, uint32_t num_attributes);
bool v3d_clb_vertex_array_prims(struct v3d_clb *b, uint32_t mode, uint32_t count, uint32_t first);
bool v3d_clb_transform_feedback_specs(struct v3d_clb *b, bool enable, uint32_t count,
				      const uint16_t *specs);

/* ---- whole jobs: v3dv's meta copy / fill shape ---------------------------------------------- */

/* An image of width x height pixels, `format` bytes-per-pixel cpp, copied or filled through
 * render target 0 of internal `bpp` / `type` (4.2 Internal Type, 7.1 Type Clamp). The memory
 * formats default to RASTER (0); for UIF the stride is the padded height in UIF blocks, for
 * LINEARTILE / UBLINEAR it is unused. */
struct v3d_clb_raster_job {
	uint32_t width, height;
	uint32_t format;           /* enum v3d_cl_image_format, e.g. V3D_CL_FMT_RGBA8UI */
	uint32_t bpp, type;        /* render target 0 */
	uint32_t src_addr, src_stride; /* copy only */
	uint32_t dst_addr, dst_stride;
	const uint32_t *clear_color;   /* fill only: the 128-bit value the tile buffer is cleared to */
	uint32_t tile_alloc_addr;      /* the bin job's qma */
	uint32_t src_memory_format, dst_memory_format; /* enum v3d_cl_memory_format */
};
/* Tile size both versions use for one render target of `bpp` (no MSAA, no double buffer). */
void v3d_clb_raster_tile_size(int ver, uint32_t bpp, uint32_t *tile_w, uint32_t *tile_h);
/* The bin list (v3dv's binning prolog + flush): NUMBER_OF_LAYERS, TILE_BINNING_MODE_CFG,
 * FLUSH_VCD_CACHE, START_TILE_BINNING, FLUSH. The qms it needs is
 * v3d_clb_raster_tile_alloc_size() (64 B initial block per tile). */
bool v3d_clb_raster_bin(struct v3d_clb *bcl, const struct v3d_clb_raster_job *job);
uint32_t v3d_clb_raster_tile_alloc_size(int ver, const struct v3d_clb_raster_job *job);
/* The render list (rcl) and its generic tile list (in `indirect`): the prologue (rendering mode,
 * clear colors, ZS clear, initial block size), the frame setup (tile list base, supertile cfg,
 * the GFXH-1742 dummy tiles, clearing when filling), the per-tile list (load unless filling,
 * BRANCH_TO_IMPLICIT_TILE_LIST, store, END_OF_TILE_MARKER, RETURN), every supertile, and
 * END_OF_RENDERING. job->clear_color set = a fill, else a copy. A fill's Z/S clear values are
 * clear_color[0]'s bits and clear_color[1]'s low byte, as v3dv's clear-value union makes them. */
bool v3d_clb_raster_render(struct v3d_clb *rcl, struct v3d_clb *indirect, const struct v3d_clb_raster_job *job);

/* ---- how v3dv (Mesa 22.3, v3dvx_meta_common.c) splits a buffer copy / fill into such jobs ----
 * vkCmdCopyBuffer / vkCmdUpdateBuffer (a copy from a fresh BO at offset 0) and vkCmdFillBuffer
 * render a frame of `items` 32 bpp 8UI pixels, one item per pixel, raster in and out with a stride
 * of width x item size: a job covers width x height items and the next job the rest. */

/* Copy item size: the largest of 4, 2, 1 dividing both BO offsets and the size. Fills use 4. */
uint32_t v3d_clb_v3dv_copy_item_size(uint64_t src_offset, uint64_t dst_offset, uint64_t size);
/* Load/store format of an item size: 4 RGBA8UI, 2 RG8UI, 1 R8UI. */
uint32_t v3d_clb_v3dv_item_format(uint32_t item_size);
/* The frame of the job for `items` (>= 1) remaining items: 4096 x 4096 when more, else width
 * halved and height doubled from items x 1 while the width is above 4096 or even and above twice
 * the height (so width x height <= items). */
void v3d_clb_v3dv_frame(uint32_t items, uint32_t *width, uint32_t *height);
/* The qms (tile allocation BO size) v3dv gives such a job: 64 B per tile rounded up to 4 KiB,
 * plus 8 KiB for the PTB's first chunks and 512 KiB of headroom; and its TSDA (qts) size. */
uint32_t v3d_clb_v3dv_tile_alloc_size(int ver, const struct v3d_clb_raster_job *job);
uint32_t v3d_clb_v3dv_tile_state_size(int ver, const struct v3d_clb_raster_job *job);

#endif
