/* V3D control-list builder: packs each packet into a local buffer, checking every field's range
 * and every address's alignment, then commits it whole; plus v3dv-shaped raster copy/fill jobs. */
#include "v3d_cl_builder.h"

#include <string.h>

#define PACKET_MAX 64u /* the longest packet: TRANSFORM_FEEDBACK_SPECS with 31 specs */

struct pk {
	uint8_t bytes[PACKET_MAX];
	uint32_t len;
	bool invalid;
};

static void pk_begin(struct pk *k, const struct v3d_clb *b, uint8_t opcode)
{
	memset(k, 0, sizeof(*k));
	k->len = v3d_cl_fixed_length(b->ver, opcode);
	k->invalid = k->len == 0;
	k->bytes[0] = opcode;
}

static void pk_set(struct pk *k, unsigned start, unsigned size, uint64_t value)
{
	if (size < 64 && (value >> size) != 0)
		k->invalid = true;
	else
		v3d_cl_set(k->bytes + 1, start, size, value);
}

/* An address field of `size` bits needs the low 32 - size bits of the address clear. */
static void pk_addr(struct pk *k, unsigned start, unsigned size, uint32_t addr)
{
	if (size < 32 && (addr & ((1u << (32 - size)) - 1u)))
		k->invalid = true;
	else
		v3d_cl_set_address(k->bytes + 1, start, size, addr);
}

static bool commit(struct v3d_clb *b, const struct pk *k)
{
	if (b->error)
		return false;
	if (k->invalid) {
		b->error = V3D_CLB_INVALID;
		return false;
	}
	return v3d_clb_raw(b, k->bytes, k->len);
}

void v3d_clb_init(struct v3d_clb *b, int ver, void *buf, uint32_t cap, uint32_t gpu_base)
{
	*b = (struct v3d_clb){ .ver = ver, .buf = buf, .cap = cap, .gpu_base = gpu_base };
	if (!v3d_ver_valid(ver) || (!buf && cap))
		b->error = V3D_CLB_INVALID;
}

bool v3d_clb_raw(struct v3d_clb *b, const void *bytes, uint32_t len)
{
	if (b->error)
		return false;
	if (len > b->cap - b->len) {
		b->error = V3D_CLB_OVERFLOW;
		return false;
	}
	memcpy(b->buf + b->len, bytes, len);
	b->len += len;
	return true;
}

bool v3d_clb_op(struct v3d_clb *b, uint8_t opcode)
{
	struct pk k;
	pk_begin(&k, b, opcode);
	return commit(b, &k);
}

bool v3d_clb_branch(struct v3d_clb *b, uint32_t addr)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_BRANCH);
	pk_addr(&k, V3D_CL_BRANCH_ADDRESS, addr);
	return commit(b, &k);
}

bool v3d_clb_branch_to_sub_list(struct v3d_clb *b, uint32_t addr)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_BRANCH_TO_SUB_LIST);
	pk_addr(&k, V3D_CL_BRANCH_ADDRESS, addr);
	return commit(b, &k);
}

bool v3d_clb_generic_tile_list(struct v3d_clb *b, uint32_t start, uint32_t end)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST);
	pk_addr(&k, V3D_CL_GENERIC_TILE_LIST_START, start);
	pk_addr(&k, V3D_CL_GENERIC_TILE_LIST_END, end);
	return commit(b, &k);
}

bool v3d_clb_branch_to_implicit_tile_list(struct v3d_clb *b, uint32_t set)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST);
	pk_set(&k, V3D_CL_IMPLICIT_TILE_LIST_SET, set);
	return commit(b, &k);
}

bool v3d_clb_supertile_coordinates(struct v3d_clb *b, uint32_t column, uint32_t row)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_SUPERTILE_COORDINATES);
	pk_set(&k, V3D_CL_SUPERTILE_COLUMN, column);
	pk_set(&k, V3D_CL_SUPERTILE_ROW, row);
	return commit(b, &k);
}

bool v3d_clb_tile_coordinates(struct v3d_clb *b, uint32_t column, uint32_t row)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_TILE_COORDINATES);
	pk_set(&k, V3D_CL_TILE_COLUMN, column);
	pk_set(&k, V3D_CL_TILE_ROW, row);
	return commit(b, &k);
}

bool v3d_clb_clear(struct v3d_clb *b, bool render_targets, bool z_stencil)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_CLEAR_TILE_BUFFERS);
	if (b->ver == V3D_VER_42) {
		pk_set(&k, V3D_CL_CLEAR_ALL_RENDER_TARGETS, render_targets);
		pk_set(&k, V3D_CL_CLEAR_Z_STENCIL, z_stencil);
	}
	return commit(b, &k);
}

/* 7.1 tile sizes are coded log2(size / 8): 8, 16, 32, 64 px. */
static bool log2_tile(uint32_t size, uint32_t *code)
{
	for (uint32_t c = 0; c < 4; c++) {
		if ((8u << c) == size) {
			*code = c;
			return true;
		}
	}
	return false;
}

bool v3d_clb_tile_binning_mode_cfg(struct v3d_clb *b, const struct v3d_clb_binning *cfg)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_TILE_BINNING_MODE_CFG);
	if (cfg->width == 0 || cfg->height == 0)
		k.invalid = true;
	pk_set(&k, V3D_CL_TBM_WIDTH, cfg->width - 1u);
	pk_set(&k, V3D_CL_TBM_HEIGHT, cfg->height - 1u);
	pk_set(&k, V3D_CL_TBM_INITIAL_BLOCK_SIZE, cfg->initial_block_code);
	pk_set(&k, V3D_CL_TBM_BLOCK_SIZE, cfg->block_code);
	if (b->ver == V3D_VER_42) {
		if (cfg->num_rts == 0)
			k.invalid = true;
		pk_set(&k, V3D42_CL_TBM_NUMBER_OF_RENDER_TARGETS, cfg->num_rts - 1u);
		pk_set(&k, V3D42_CL_TBM_MAX_BPP, cfg->max_bpp);
		pk_set(&k, V3D42_CL_TBM_MULTISAMPLE_4X, cfg->msaa);
		pk_set(&k, V3D42_CL_TBM_DOUBLE_BUFFER, cfg->double_buffer);
	} else {
		uint32_t lw = 0, lh = 0;
		if (!log2_tile(cfg->tile_w, &lw) || !log2_tile(cfg->tile_h, &lh))
			k.invalid = true;
		pk_set(&k, V3D71_CL_TBM_LOG2_TILE_WIDTH, lw);
		pk_set(&k, V3D71_CL_TBM_LOG2_TILE_HEIGHT, lh);
	}
	return commit(b, &k);
}

bool v3d_clb_number_of_layers(struct v3d_clb *b, uint32_t layers)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_NUMBER_OF_LAYERS);
	if (layers == 0)
		k.invalid = true;
	pk_set(&k, V3D_CL_NUMBER_OF_LAYERS_FIELD, layers - 1u);
	return commit(b, &k);
}

bool v3d_clb_rendering_mode_common(struct v3d_clb *b, const struct v3d_clb_rendering *cfg)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
	if (cfg->num_rts == 0)
		k.invalid = true;
	pk_set(&k, V3D_CL_RMC_NUMBER_OF_RENDER_TARGETS, cfg->num_rts - 1u);
	pk_set(&k, V3D_CL_RMC_IMAGE_WIDTH, cfg->width);
	pk_set(&k, V3D_CL_RMC_IMAGE_HEIGHT, cfg->height);
	pk_set(&k, V3D_CL_RMC_MULTISAMPLE_4X, cfg->msaa);
	pk_set(&k, V3D_CL_RMC_DOUBLE_BUFFER, cfg->double_buffer);
	pk_set(&k, V3D_CL_RMC_EARLY_Z_DISABLE, cfg->early_z_disable);
	pk_set(&k, V3D_CL_RMC_INTERNAL_DEPTH_TYPE, cfg->internal_depth_type);
	if (b->ver == V3D_VER_42) {
		pk_set(&k, V3D42_CL_RMC_SUB_ID, V3D42_RMC_COMMON);
		pk_set(&k, V3D42_CL_RMC_MAX_BPP, cfg->max_bpp);
	} else {
		uint32_t lw = 0, lh = 0;
		if (!log2_tile(cfg->tile_w, &lw) || !log2_tile(cfg->tile_h, &lh))
			k.invalid = true;
		pk_set(&k, V3D71_CL_RMC_SUB_ID, V3D71_RMC_COMMON);
		pk_set(&k, V3D71_CL_RMC_LOG2_TILE_WIDTH, lw);
		pk_set(&k, V3D71_CL_RMC_LOG2_TILE_HEIGHT, lh);
	}
	return commit(b, &k);
}

bool v3d42_clb_rendering_mode_color(struct v3d_clb *b, const struct v3d_clb_rt42 rts[4])
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
	if (b->ver != V3D_VER_42)
		k.invalid = true;
	pk_set(&k, V3D42_CL_RMC_SUB_ID, V3D42_RMC_COLOR);
	for (unsigned n = 0; n < 4; n++) {
		pk_set(&k, V3D42_CL_RMC_RT_BPP(n), rts[n].bpp);
		pk_set(&k, V3D42_CL_RMC_RT_TYPE(n), rts[n].type);
		pk_set(&k, V3D42_CL_RMC_RT_CLAMP(n), rts[n].clamp);
	}
	return commit(b, &k);
}

bool v3d42_clb_clear_color(struct v3d_clb *b, uint32_t rt, uint32_t bpp, const uint32_t color[4])
{
	struct pk k;
	bool ok = true;
	pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
	if (b->ver != V3D_VER_42 || rt > 3)
		k.invalid = true;
	pk_set(&k, V3D42_CL_RMC_SUB_ID, V3D42_RMC_CLEAR_COLORS_PART1);
	pk_set(&k, V3D42_CL_RMC_CLEAR_RT, rt & 15u);
	pk_set(&k, V3D42_CL_RMC_CLEAR1_LOW32, color[0]);
	pk_set(&k, V3D42_CL_RMC_CLEAR1_NEXT24, color[1] & 0xffffffu);
	ok = commit(b, &k);
	if (bpp >= V3D_INTERNAL_BPP_64) {
		pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
		pk_set(&k, V3D42_CL_RMC_SUB_ID, V3D42_RMC_CLEAR_COLORS_PART2);
		pk_set(&k, V3D42_CL_RMC_CLEAR_RT, rt & 15u);
		pk_set(&k, V3D42_CL_RMC_CLEAR2_MIDLOW32, (color[1] >> 24) | ((uint64_t)color[2] << 8 & 0xffffffffu));
		pk_set(&k, V3D42_CL_RMC_CLEAR2_MIDHIGH24, (color[2] >> 24) | ((color[3] & 0xffffu) << 8));
		ok = commit(b, &k) && ok;
	}
	if (bpp >= V3D_INTERNAL_BPP_128) {
		pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
		pk_set(&k, V3D42_CL_RMC_SUB_ID, V3D42_RMC_CLEAR_COLORS_PART3);
		pk_set(&k, V3D42_CL_RMC_CLEAR_RT, rt & 15u);
		pk_set(&k, V3D42_CL_RMC_CLEAR3_HIGH16, color[3] >> 16);
		ok = commit(b, &k) && ok;
	}
	return ok;
}

bool v3d71_clb_render_target(struct v3d_clb *b, uint32_t rt, uint32_t bpp, uint32_t type_clamp,
			     uint32_t tile_w, const uint32_t color[4])
{
	struct pk k;
	bool ok;
	pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
	if (b->ver != V3D_VER_71 || rt > 7 || bpp > V3D_INTERNAL_BPP_128)
		k.invalid = true;
	/* The TLB row stride in 128-bit units covers two rows (Mesa v3d_compute_rt_row_row_stride_128_bits). */
	uint32_t stride = tile_w * (v3d_internal_bpp_bytes(bpp) / 4u) / 2u;
	if (stride == 0)
		k.invalid = true;
	pk_set(&k, V3D71_CL_RMC_SUB_ID, V3D71_RMC_RENDER_TARGET_PART1);
	pk_set(&k, V3D71_CL_RMC_RT, rt & 7u);
	pk_set(&k, V3D71_CL_RMC_RT1_BPP, bpp & 3u);
	pk_set(&k, V3D71_CL_RMC_RT1_TYPE_CLAMP, type_clamp);
	pk_set(&k, V3D71_CL_RMC_RT1_STRIDE, stride - 1u);
	pk_set(&k, V3D71_CL_RMC_RT1_BASE_ADDRESS, 0);
	if (color)
		pk_set(&k, V3D71_CL_RMC_RT1_CLEAR_LOW32, color[0]);
	ok = commit(b, &k);
	if (color && bpp >= V3D_INTERNAL_BPP_64) {
		pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
		pk_set(&k, V3D71_CL_RMC_SUB_ID, V3D71_RMC_RENDER_TARGET_PART2);
		pk_set(&k, V3D71_CL_RMC_RT, rt & 7u);
		pk_set(&k, V3D71_CL_RMC_RT2_CLEAR_MID40, (uint64_t)color[1] | ((uint64_t)(color[2] & 0xffu) << 32));
		ok = commit(b, &k) && ok;
	}
	if (color && bpp >= V3D_INTERNAL_BPP_128) {
		pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
		pk_set(&k, V3D71_CL_RMC_SUB_ID, V3D71_RMC_RENDER_TARGET_PART3);
		pk_set(&k, V3D71_CL_RMC_RT, rt & 7u);
		pk_set(&k, V3D71_CL_RMC_RT3_CLEAR_TOP56, ((uint64_t)(color[2] & 0xffffff00u) >> 8) | ((uint64_t)color[3] << 24));
		ok = commit(b, &k) && ok;
	}
	return ok;
}

bool v3d_clb_zs_clear_values(struct v3d_clb *b, float z, uint32_t stencil)
{
	uint32_t zbits;
	memcpy(&zbits, &z, sizeof(zbits));
	return v3d_clb_zs_clear_bits(b, zbits, stencil);
}

bool v3d_clb_zs_clear_bits(struct v3d_clb *b, uint32_t zbits, uint32_t stencil)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_TILE_RENDERING_MODE_CFG);
	if (b->ver == V3D_VER_42)
		pk_set(&k, V3D42_CL_RMC_SUB_ID, V3D42_RMC_ZS_CLEAR_VALUES);
	else
		pk_set(&k, V3D71_CL_RMC_SUB_ID, V3D71_RMC_ZS_CLEAR_VALUES);
	pk_set(&k, V3D_CL_RMC_Z_CLEAR, zbits);
	pk_set(&k, V3D_CL_RMC_STENCIL_CLEAR, stencil);
	return commit(b, &k);
}

bool v3d_clb_tile_list_initial_block_size(struct v3d_clb *b, uint32_t code, bool auto_chained)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE);
	pk_set(&k, V3D_CL_TLIBS_SIZE, code);
	pk_set(&k, V3D_CL_TLIBS_AUTO_CHAINED, auto_chained);
	return commit(b, &k);
}

bool v3d_clb_tile_list_set_base(struct v3d_clb *b, uint32_t addr, uint32_t set)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE);
	pk_addr(&k, V3D_CL_TLSB_ADDRESS, addr);
	pk_set(&k, V3D_CL_TLSB_SET_NUMBER, set);
	return commit(b, &k);
}

bool v3d_clb_supertile_cfg(struct v3d_clb *b, const struct v3d_clb_supertiles *cfg)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_MULTICORE_RENDERING_SUPERTILE_CFG);
	if (cfg->supertile_w == 0 || cfg->supertile_h == 0 || cfg->bin_tile_lists == 0)
		k.invalid = true;
	pk_set(&k, V3D_CL_MRS_SUPERTILE_WIDTH, cfg->supertile_w - 1u);
	pk_set(&k, V3D_CL_MRS_SUPERTILE_HEIGHT, cfg->supertile_h - 1u);
	pk_set(&k, V3D_CL_MRS_FRAME_WIDTH_SUPERTILES, cfg->frame_w_supertiles);
	pk_set(&k, V3D_CL_MRS_FRAME_HEIGHT_SUPERTILES, cfg->frame_h_supertiles);
	pk_set(&k, V3D_CL_MRS_FRAME_WIDTH_TILES, cfg->frame_w_tiles);
	pk_set(&k, V3D_CL_MRS_FRAME_HEIGHT_TILES, cfg->frame_h_tiles);
	pk_set(&k, V3D_CL_MRS_NUMBER_OF_BIN_TILE_LISTS, cfg->bin_tile_lists - 1u);
	return commit(b, &k);
}

static bool load_store(struct v3d_clb *b, uint8_t opcode, const struct v3d_clb_ls *ls)
{
	struct pk k;
	pk_begin(&k, b, opcode);
	pk_set(&k, V3D_CL_LS_BUFFER, ls->buffer);
	pk_set(&k, V3D_CL_LS_MEMORY_FORMAT, ls->memory_format);
	pk_set(&k, V3D_CL_LS_FLIP_Y, ls->flip_y);
	if (opcode == V3D_CL_STORE_TILE_BUFFER_GENERAL)
		pk_set(&k, V3D_CL_STORE_DITHER_MODE, ls->dither);
	else if (ls->dither)
		k.invalid = true;
	pk_set(&k, V3D_CL_LS_DECIMATE_MODE, ls->decimate);
	pk_set(&k, V3D_CL_LS_IMAGE_FORMAT, ls->image_format);
	pk_set(&k, V3D_CL_STORE_CLEAR_BUFFER, ls->clear_or_force_alpha); /* same bit as force alpha 1 */
	pk_set(&k, V3D_CL_LS_CHANNEL_REVERSE, ls->channel_reverse);
	pk_set(&k, V3D_CL_LS_RB_SWAP, ls->rb_swap);
	pk_set(&k, V3D_CL_LS_STRIDE, ls->stride);
	pk_set(&k, V3D_CL_LS_HEIGHT, ls->height);
	pk_addr(&k, V3D_CL_LS_ADDRESS, ls->addr);
	return commit(b, &k);
}

bool v3d_clb_load(struct v3d_clb *b, const struct v3d_clb_ls *ls)
{
	return load_store(b, V3D_CL_LOAD_TILE_BUFFER_GENERAL, ls);
}

bool v3d_clb_store(struct v3d_clb *b, const struct v3d_clb_ls *ls)
{
	return load_store(b, V3D_CL_STORE_TILE_BUFFER_GENERAL, ls);
}

bool v3d_clb_gl_shader_state(struct v3d_clb *b, uint32_t record_addr, uint32_t num_attributes)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_GL_SHADER_STATE);
	pk_addr(&k, V3D_CL_GL_SHADER_ADDRESS, record_addr);
	pk_set(&k, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, num_attributes);
	return commit(b, &k);
}

bool v3d_clb_vertex_array_prims(struct v3d_clb *b, uint32_t mode, uint32_t count, uint32_t first)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_VERTEX_ARRAY_PRIMS);
	pk_set(&k, V3D_CL_VERTEX_ARRAY_MODE, mode);
	pk_set(&k, V3D_CL_VERTEX_ARRAY_LENGTH, count);
	pk_set(&k, V3D_CL_VERTEX_ARRAY_FIRST, first);
	return commit(b, &k);
}

bool v3d_clb_transform_feedback_specs(struct v3d_clb *b, bool enable, uint32_t count,
				      const uint16_t *specs)
{
	struct pk k;
	pk_begin(&k, b, V3D_CL_TRANSFORM_FEEDBACK_SPECS);
	pk_set(&k, V3D_CL_TF_SPECS_ENABLE, enable);
	pk_set(&k, V3D_CL_TF_SPECS_COUNT, count);
	if (!k.invalid) {
		for (uint32_t i = 0; i < count; i++) {
			k.bytes[2 + 2 * i] = (uint8_t)specs[i];
			k.bytes[3 + 2 * i] = (uint8_t)(specs[i] >> 8);
		}
		k.len = 2 + 2 * count;
	}
	return commit(b, &k);
}

/* ---- v3dv-shaped raster jobs ---------------------------------------------------------------- */

void v3d_clb_raster_tile_size(int ver, uint32_t bpp, uint32_t *tile_w, uint32_t *tile_h)
{
	/* 7.1 may choose larger tiles, but these fit its TLB too and keep both versions alike. */
	(void)ver;
	v3d42_tile_size(1, bpp, false, false, tile_w, tile_h);
}

struct raster_tiling {
	uint32_t tile_w, tile_h, tiles_x, tiles_y;
	uint32_t st_w, st_h, st_x, st_y; /* supertile size in tiles, frame size in supertiles */
};

static void raster_tiling(int ver, const struct v3d_clb_raster_job *job, struct raster_tiling *t)
{
	v3d_clb_raster_tile_size(ver, job->bpp, &t->tile_w, &t->tile_h);
	t->tiles_x = (job->width + t->tile_w - 1) / t->tile_w;
	t->tiles_y = (job->height + t->tile_h - 1) / t->tile_h;
	/* grow supertiles until there are fewer than 256 of them, as v3dv does */
	t->st_w = t->st_h = 1;
	for (;;) {
		t->st_x = (t->tiles_x + t->st_w - 1) / t->st_w;
		t->st_y = (t->tiles_y + t->st_h - 1) / t->st_h;
		if (t->st_x * t->st_y < 256)
			break;
		if (t->st_w < t->st_h)
			t->st_w++;
		else
			t->st_h++;
	}
}

uint32_t v3d_clb_raster_tile_alloc_size(int ver, const struct v3d_clb_raster_job *job)
{
	struct raster_tiling t;
	raster_tiling(ver, job, &t);
	return t.tiles_x * t.tiles_y * 64u;
}

bool v3d_clb_raster_bin(struct v3d_clb *bcl, const struct v3d_clb_raster_job *job)
{
	struct raster_tiling t;
	raster_tiling(bcl->ver, job, &t);
	struct v3d_clb_binning cfg = {
		.width = job->width, .height = job->height, .num_rts = 1, .max_bpp = job->bpp,
		.tile_w = t.tile_w, .tile_h = t.tile_h,
	};
	v3d_clb_number_of_layers(bcl, 1);
	v3d_clb_tile_binning_mode_cfg(bcl, &cfg);
	v3d_clb_op(bcl, V3D_CL_FLUSH_VCD_CACHE);
	v3d_clb_op(bcl, V3D_CL_START_TILE_BINNING);
	/* no draws; v3dv ends a bin list with FLUSH alone (the kernel orders render after bin) */
	v3d_clb_op(bcl, V3D_CL_FLUSH);
	return v3d_clb_ok(bcl);
}

static void raster_prologue(struct v3d_clb *rcl, const struct v3d_clb_raster_job *job,
			    const struct raster_tiling *t)
{
	struct v3d_clb_rendering common = {
		.width = job->width, .height = job->height, .num_rts = 1, .max_bpp = job->bpp,
		.early_z_disable = true, .tile_w = t->tile_w, .tile_h = t->tile_h,
	};
	v3d_clb_rendering_mode_common(rcl, &common);
	if (rcl->ver == V3D_VER_42) {
		if (job->clear_color)
			v3d42_clb_clear_color(rcl, 0, job->bpp, job->clear_color);
		struct v3d_clb_rt42 rts[4] = { { job->bpp, job->type, 0 } };
		v3d42_clb_rendering_mode_color(rcl, rts);
	} else {
		v3d71_clb_render_target(rcl, 0, job->bpp, job->type, t->tile_w, job->clear_color);
	}
	/* v3dv's clear value is a union of color[4] and {float z; uint8_t s}: a copy clears Z to 1.0,
	 * a fill to its color word's bits (never used: nothing stores Z). */
	if (job->clear_color)
		v3d_clb_zs_clear_bits(rcl, job->clear_color[0], job->clear_color[1] & 0xffu);
	else
		v3d_clb_zs_clear_values(rcl, 1.0f, 0);
	v3d_clb_tile_list_initial_block_size(rcl, 0, true);
}

static void raster_frame_setup(struct v3d_clb *rcl, const struct v3d_clb_raster_job *job,
			       const struct raster_tiling *t)
{
	v3d_clb_tile_list_set_base(rcl, job->tile_alloc_addr, 0);
	struct v3d_clb_supertiles st = {
		.supertile_w = t->st_w, .supertile_h = t->st_h,
		.frame_w_supertiles = t->st_x, .frame_h_supertiles = t->st_y,
		.frame_w_tiles = t->tiles_x, .frame_h_tiles = t->tiles_y, .bin_tile_lists = 1,
	};
	v3d_clb_supertile_cfg(rcl, &st);
	/* GFXH-1742: two dummy tiles first; a fill clears the tile buffer in them and every later
	 * tile stores that cleared buffer. */
	for (int i = 0; i < 2; i++) {
		v3d_clb_tile_coordinates(rcl, 0, 0);
		v3d_clb_op(rcl, V3D_CL_END_OF_LOADS);
		struct v3d_clb_ls none = { .buffer = V3D_CL_BUFFER_NONE };
		v3d_clb_store(rcl, &none);
		if (job->clear_color && i == 0)
			v3d_clb_clear(rcl, true, true);
		v3d_clb_op(rcl, V3D_CL_END_OF_TILE_MARKER);
	}
	v3d_clb_op(rcl, V3D_CL_FLUSH_VCD_CACHE);
}

bool v3d_clb_raster_render(struct v3d_clb *rcl, struct v3d_clb *indirect, const struct v3d_clb_raster_job *job)
{
	struct raster_tiling t;
	raster_tiling(rcl->ver, job, &t);
	raster_prologue(rcl, job, &t);
	raster_frame_setup(rcl, job, &t);

	uint32_t list_start = v3d_clb_gpu_addr(indirect);
	v3d_clb_op(indirect, V3D_CL_TILE_COORDINATES_IMPLICIT);
	if (!job->clear_color) {
		struct v3d_clb_ls load = { .buffer = V3D_CL_BUFFER_RT0, .memory_format = job->src_memory_format,
					   .image_format = job->format, .stride = job->src_stride,
					   .addr = job->src_addr };
		v3d_clb_load(indirect, &load);
	}
	v3d_clb_op(indirect, V3D_CL_END_OF_LOADS);
	v3d_clb_branch_to_implicit_tile_list(indirect, 0);
	struct v3d_clb_ls store = { .buffer = V3D_CL_BUFFER_RT0, .memory_format = job->dst_memory_format,
				    .image_format = job->format, .stride = job->dst_stride,
				    .addr = job->dst_addr };
	v3d_clb_store(indirect, &store);
	v3d_clb_op(indirect, V3D_CL_END_OF_TILE_MARKER);
	v3d_clb_op(indirect, V3D_CL_RETURN_FROM_SUB_LIST);
	v3d_clb_generic_tile_list(rcl, list_start, v3d_clb_gpu_addr(indirect));

	for (uint32_t y = 0; y < t.st_y; y++)
		for (uint32_t x = 0; x < t.st_x; x++)
			v3d_clb_supertile_coordinates(rcl, x, y);
	v3d_clb_op(rcl, V3D_CL_END_OF_RENDERING);
	return v3d_clb_ok(rcl) && v3d_clb_ok(indirect);
}

/* ---- v3dv's buffer transfer jobs --------------------------------------------------------------- */

uint32_t v3d_clb_v3dv_copy_item_size(uint64_t src_offset, uint64_t dst_offset, uint64_t size)
{
	uint32_t item = 4;
	while (item > 1 && (src_offset % item || dst_offset % item))
		item /= 2;
	while (item > 1 && size % item)
		item /= 2;
	return item;
}

uint32_t v3d_clb_v3dv_item_format(uint32_t item_size)
{
	return item_size == 4 ? V3D_CL_FMT_RGBA8UI : item_size == 2 ? V3D_CL_FMT_RG8UI : V3D_CL_FMT_R8UI;
}

void v3d_clb_v3dv_frame(uint32_t items, uint32_t *width, uint32_t *height)
{
	const uint32_t max_dim = 4096; /* V3D_MAX_IMAGE_DIMENSION */
	uint32_t w = items ? items : 1, h = 1;
	if (items > max_dim * max_dim) {
		w = h = max_dim;
	} else {
		while (w > max_dim || (w % 2 == 0 && w > 2 * h)) {
			w >>= 1;
			h <<= 1;
		}
	}
	*width = w;
	*height = h;
}

uint32_t v3d_clb_v3dv_tile_alloc_size(int ver, const struct v3d_clb_raster_job *job)
{
	uint32_t initial = v3d_clb_raster_tile_alloc_size(ver, job); /* 64 B per tile */
	return ((initial + 4095u) & ~4095u) + 8192u + 512u * 1024u;
}

uint32_t v3d_clb_v3dv_tile_state_size(int ver, const struct v3d_clb_raster_job *job)
{
	return v3d_clb_raster_tile_alloc_size(ver, job) / 64u * 256u;
}
