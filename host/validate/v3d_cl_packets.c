/* The V3D packet rules: the default allow-lists, the frame state the render and bin lists build
 * (rendering / binning config, tile list bases), the extent of every address field, and the
 * end-of-job checks of the binner's tile memory. The walker (v3d_cl_walk.c) calls in per packet. */
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "v3d_val_internal.h"

/* ---- policy ----------------------------------------------------------------------------------- */

/* Packets that exist for both lists in the xml but are refused: nothing Mesa emits into a driver
 * list, and each either points at commands the walker does not follow (auto-chained and explicit
 * supertile lists), or at layouts it does not bound (tessellation state), or flushes caches by
 * address (L2T, GFXH-1888) or starts GPU-written lists (serial numbers). */
static const uint8_t deny_everywhere[] = {
	V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST, V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE,
	V3D_CL_GL_SHADER_STATE_INCLUDING_TS, V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS,
	V3D_CL_L2T_CACHE_FLUSH_CONTROL, V3D_CL_SERIAL_NUMBER_LIST_START,
};
/* Render-side packets the xml leaves in both lists. */
static const uint8_t deny_bin[] = {
	V3D_CL_WAIT_ON_SEMAPHORE, V3D_CL_END_OF_RENDERING, V3D_CL_SUPERTILE_COORDINATES,
	V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST, V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST,
	V3D_CL_TILE_COORDINATES, V3D_CL_TILE_COORDINATES_IMPLICIT, V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE,
};
/* Bin-side packets the xml leaves in both lists: binning, draw state the binner copies into the
 * tile lists, and the feedback / query writers. */
static const uint8_t deny_render[] = {
	V3D_CL_TILE_BINNING_MODE_CFG, V3D_CL_START_TILE_BINNING, V3D_CL_INCREMENT_SEMAPHORE,
	V3D_CL_NUMBER_OF_LAYERS, V3D_CL_GL_SHADER_STATE, V3D_CL_GL_SHADER_STATE_INCLUDING_GS,
	V3D_CL_PRIMITIVE_COUNTS_FEEDBACK, V3D_CL_TRANSFORM_FEEDBACK_BUFFER, V3D_CL_OCCLUSION_QUERY_COUNTER,
};

/* Packets the xml marks cl="B" that the render list takes too. The cl= attribute is Mesa's note of
 * the list a packet normally goes in (Mesa's own decoder and pack-header generator do not read it),
 * not a hardware rule: the render-mode CLE executes the binner's tile lists, which carry draw state.
 * Set InstanceID: the primitives in the tile lists are replayed with the instance id the binner
 * assumed, 0, and the hardware does not reset it, so v3d (v3dx_rcl.c) and v3dv
 * (v3dvx_cmd_buffer.c) put Set InstanceID 0 in every generic tile list before Branch to Implicit
 * Tile List. It carries a plain 32-bit value and no address. */
static const uint8_t allow_render[] = {
	V3D_CL_SET_INSTANCEID,
};

void v3dval_policy_default(struct v3dval_policy *p, int ver)
{
	memset(p, 0, sizeof(*p));
	p->ver = ver;
	p->max_walk_bytes = 64ull << 20;
	p->max_segments = 4096;
	p->max_blocks = 65536;
	p->require_end_of_rendering = true;
	p->shadow_tile_memory = true;
	p->max_tile_memory = 64u << 20;
	for (unsigned op = 0; op < 256; op++) {
		uint32_t lists = v3d_cl_packet_lists(ver, (uint8_t)op);
		v3dval_policy_allow(p, V3DVAL_LIST_BIN, (uint8_t)op, lists & V3D_CL_IN_BIN);
		v3dval_policy_allow(p, V3DVAL_LIST_RENDER, (uint8_t)op, lists & V3D_CL_IN_RENDER);
	}
	for (size_t i = 0; i < sizeof(allow_render); i++)
		v3dval_policy_allow(p, V3DVAL_LIST_RENDER, allow_render[i], true);
	for (size_t i = 0; i < sizeof(deny_everywhere); i++) {
		v3dval_policy_allow(p, V3DVAL_LIST_BIN, deny_everywhere[i], false);
		v3dval_policy_allow(p, V3DVAL_LIST_RENDER, deny_everywhere[i], false);
	}
	for (size_t i = 0; i < sizeof(deny_bin); i++)
		v3dval_policy_allow(p, V3DVAL_LIST_BIN, deny_bin[i], false);
	for (size_t i = 0; i < sizeof(deny_render); i++)
		v3dval_policy_allow(p, V3DVAL_LIST_RENDER, deny_render[i], false);
}

static bool allowed(const struct v3dval *v, enum v3dval_list list, uint8_t op)
{
	return v->policy.allow[list & 1][op >> 5] & (1u << (op & 31));
}

/* Packets that configure or drive the whole frame: only the top-level list may hold them. */
static bool frame_level(uint8_t op)
{
	switch (op) {
	case V3D_CL_TILE_RENDERING_MODE_CFG: case V3D_CL_MULTICORE_RENDERING_SUPERTILE_CFG:
	case V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE: case V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE:
	case V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST: case V3D_CL_SUPERTILE_COORDINATES:
	case V3D_CL_TILE_BINNING_MODE_CFG: case V3D_CL_NUMBER_OF_LAYERS: case V3D_CL_START_TILE_BINNING:
	case V3D_CL_END_OF_RENDERING:
		return true;
	default:
		return false;
	}
}

/* ---- helpers ---------------------------------------------------------------------------------- */

static int check_range(struct v3dval *v, const struct v3dval_where *w, const char *field, uint32_t addr,
		       uint64_t len)
{
	if (v3dval_find_range_hint(v, addr, len) >= 0)
		return 0;
	return v3dval_fail(v, w, V3DVAL_ERR_ADDRESS, addr, "%s 0x%08x (+0x%llx bytes) outside the context's buffers",
			   field, addr, (unsigned long long)(len ? len : 1));
}

static uint32_t tile_from_log2(uint64_t code) { return 8u << code; }

static void frame_tiles(const struct v3dval_frame *f, uint32_t *x, uint32_t *y)
{
	if (f->supertile_cfg) {
		*x = f->frame_tiles_x;
		*y = f->frame_tiles_y;
	} else {
		*x = (f->width + f->tile_w - 1) / f->tile_w;
		*y = (f->height + f->tile_h - 1) / f->tile_h;
	}
}

/* Bytes per pixel of a load/store image format; 0 for values the xml does not define. */
static uint32_t image_format_bytes(uint32_t fmt)
{
	switch (fmt) {
	case V3D_CL_FMT_R8: case V3D_CL_FMT_R8I: case V3D_CL_FMT_R8UI: case V3D_CL_FMT_S8:
		return 1;
	case V3D_CL_FMT_ABGR1555: case V3D_CL_FMT_ALPHA_MASKED_ABGR1555: case V3D_CL_FMT_ABGR4444:
	case V3D_CL_FMT_BGR565: case V3D_CL_FMT_R16F: case V3D_CL_FMT_R16I: case V3D_CL_FMT_R16UI:
	case V3D_CL_FMT_RG8: case V3D_CL_FMT_RG8I: case V3D_CL_FMT_RG8UI: case V3D_CL_FMT_D16:
	case V3D_CL_FMT_RGBA5551:
		return 2;
	case V3D_CL_FMT_RGB8:
		return 3;
	case V3D_CL_FMT_SRGB8_ALPHA8: case V3D_CL_FMT_SRGB: case V3D_CL_FMT_RGB10_A2UI: case V3D_CL_FMT_RGB10_A2:
	case V3D_CL_FMT_R11F_G11F_B10F: case V3D_CL_FMT_R32F: case V3D_CL_FMT_R32I: case V3D_CL_FMT_R32UI:
	case V3D_CL_FMT_RG16F: case V3D_CL_FMT_RG16I: case V3D_CL_FMT_RG16UI: case V3D_CL_FMT_RGBA8:
	case V3D_CL_FMT_RGBA8I: case V3D_CL_FMT_RGBA8UI: case V3D_CL_FMT_D32F: case V3D_CL_FMT_D24:
	case V3D_CL_FMT_D24S8:
		return 4;
	case V3D_CL_FMT_RG32F: case V3D_CL_FMT_RG32I: case V3D_CL_FMT_RG32UI: case V3D_CL_FMT_RGBA16F:
	case V3D_CL_FMT_RGBA16I: case V3D_CL_FMT_RGBA16UI:
		return 8;
	case V3D_CL_FMT_RGBA32F: case V3D_CL_FMT_RGBA32I: case V3D_CL_FMT_RGBA32UI:
	case V3D_CL_FMT_BSTC8: /* block-compressed: bounded as the widest pixel */
		return 16;
	default:
		return 0;
	}
}

/* LOAD/STORE_TILE_BUFFER_GENERAL: the surface the TLB reads or writes for the whole frame (the
 * frame's width x height, clipped by the hardware as the simulator does). */
static int check_load_store(struct v3dval *v, const struct v3dval_where *w, const uint8_t *p)
{
	if (v3d_cl_get(p, V3D_CL_LS_BUFFER) == V3D_CL_BUFFER_NONE)
		return 0; /* nothing is touched (v3dv's dummy tiles carry address 0) */
	const struct v3dval_frame *f = &v->frame;
	if (!f->common)
		return v3dval_fail(v, w, V3DVAL_ERR_STATE, 0, "load/store before Tile Rendering Mode Cfg (Common)");
	uint32_t fmt = (uint32_t)v3d_cl_get(p, V3D_CL_LS_IMAGE_FORMAT);
	uint32_t cpp = image_format_bytes(fmt);
	if (!cpp)
		return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "image format %u undefined", fmt);
	uint64_t width = f->width, height = f->height;
	if (v3d_cl_get(p, V3D_CL_LS_DECIMATE_MODE) == 3) { /* all samples: 2x2 per pixel */
		width *= 2;
		height *= 2;
	}
	uint32_t stride = (uint32_t)v3d_cl_get(p, V3D_CL_LS_STRIDE);
	uint32_t flip_h = (uint32_t)v3d_cl_get(p, V3D_CL_LS_HEIGHT);
	bool flip = v3d_cl_get(p, V3D_CL_LS_FLIP_Y);
	if (flip && flip_h < height)
		return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "Flip Y height %u below the frame's %llu rows", flip_h,
				   (unsigned long long)height);
	uint64_t rows = flip ? flip_h : height; /* flipped rows run from height - 1 down */
	uint64_t extent;
	uint32_t memfmt = (uint32_t)v3d_cl_get(p, V3D_CL_LS_MEMORY_FORMAT);
	enum v3dval_layout layout;
	if (memfmt > V3D_CL_MEMORY_UIF_XOR || !v3dval_layout_of((int)memfmt, &layout))
		return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "memory format %u undefined", memfmt);
	if (layout == V3DVAL_LAYOUT_RASTER) {
		extent = (rows - 1) * stride + width * cpp;
		return check_range(v, w, "Address", v3d_cl_get_address(p, V3D_CL_LS_ADDRESS), extent);
	}
	uint32_t tiled_cpp = cpp == 3 ? 4 : cpp; /* tiled layouts only take power-of-two pixels */
	extent = v3dval_tiled_bytes(layout, (uint32_t)width, (uint32_t)rows, tiled_cpp,
				    (layout == V3DVAL_LAYOUT_UIF || layout == V3DVAL_LAYOUT_UIF_XOR) ? stride : 0);
	return check_range(v, w, "Address", v3d_cl_get_address(p, V3D_CL_LS_ADDRESS), extent);
}

/* The frame geometry must not change once tiles were walked with it. */
static int geometry_change(struct v3dval *v, const struct v3dval_where *w, bool differs)
{
	if (v->frame.frozen && differs)
		return v3dval_fail(v, w, V3DVAL_ERR_STATE, 0, "frame geometry changes after tile work started");
	return 0;
}

static int rendering_mode(struct v3dval *v, const struct v3dval_where *w, const uint8_t *p)
{
	struct v3dval_frame *f = &v->frame;
	int ver = v->policy.ver;
	uint32_t sub = (uint32_t)(ver == V3D_VER_42 ? v3d_cl_get(p, V3D42_CL_RMC_SUB_ID) : v3d_cl_get(p, V3D71_CL_RMC_SUB_ID));
	if (sub > (ver == V3D_VER_42 ? (uint32_t)V3D42_RMC_CLEAR_COLORS_PART3 : (uint32_t)V3D71_RMC_RENDER_TARGET_PART3))
		return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "sub-packet id %u undefined", sub);
	if (sub != 0)
		return 0; /* colors, clear values: no geometry, no addresses */
	uint32_t width = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_IMAGE_WIDTH);
	uint32_t height = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_IMAGE_HEIGHT);
	uint32_t tw, th;
	if (ver == V3D_VER_42) {
		v3d42_tile_size((uint32_t)v3d_cl_get(p, V3D_CL_RMC_NUMBER_OF_RENDER_TARGETS) + 1,
				(uint32_t)v3d_cl_get(p, V3D42_CL_RMC_MAX_BPP), v3d_cl_get(p, V3D_CL_RMC_MULTISAMPLE_4X),
				v3d_cl_get(p, V3D_CL_RMC_DOUBLE_BUFFER), &tw, &th);
	} else {
		uint64_t lw = v3d_cl_get(p, V3D71_CL_RMC_LOG2_TILE_WIDTH), lh = v3d_cl_get(p, V3D71_CL_RMC_LOG2_TILE_HEIGHT);
		if (lw > 3 || lh > 3)
			return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "tile size code above 64 pixels");
		tw = tile_from_log2(lw);
		th = tile_from_log2(lh);
	}
	if (width == 0 || height == 0)
		return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "empty frame");
	if (geometry_change(v, w, !f->common || f->width != width || f->height != height || f->tile_w != tw ||
					  f->tile_h != th))
		return -1;
	f->common = true;
	f->width = width;
	f->height = height;
	f->tile_w = tw;
	f->tile_h = th;
	return 0;
}

static int supertile_cfg(struct v3dval *v, const struct v3dval_where *w, const uint8_t *p)
{
	struct v3dval_frame *f = &v->frame;
	uint32_t x = (uint32_t)v3d_cl_get(p, V3D_CL_MRS_FRAME_WIDTH_TILES);
	uint32_t y = (uint32_t)v3d_cl_get(p, V3D_CL_MRS_FRAME_HEIGHT_TILES);
	if (geometry_change(v, w, !f->supertile_cfg || f->frame_tiles_x != x || f->frame_tiles_y != y))
		return -1;
	f->supertile_cfg = true;
	f->frame_tiles_x = x;
	f->frame_tiles_y = y;
	return 0;
}

static int binning_mode(struct v3dval *v, const struct v3dval_where *w, const uint8_t *p)
{
	struct v3dval_frame *f = &v->frame;
	uint32_t width = (uint32_t)v3d_cl_get(p, V3D_CL_TBM_WIDTH) + 1, height = (uint32_t)v3d_cl_get(p, V3D_CL_TBM_HEIGHT) + 1;
	uint32_t tw, th;
	if (v->policy.ver == V3D_VER_42) {
		v3d42_tile_size((uint32_t)v3d_cl_get(p, V3D42_CL_TBM_NUMBER_OF_RENDER_TARGETS) + 1,
				(uint32_t)v3d_cl_get(p, V3D42_CL_TBM_MAX_BPP), v3d_cl_get(p, V3D42_CL_TBM_MULTISAMPLE_4X),
				v3d_cl_get(p, V3D42_CL_TBM_DOUBLE_BUFFER), &tw, &th);
	} else {
		uint64_t lw = v3d_cl_get(p, V3D71_CL_TBM_LOG2_TILE_WIDTH), lh = v3d_cl_get(p, V3D71_CL_TBM_LOG2_TILE_HEIGHT);
		if (lw > 3 || lh > 3)
			return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "tile size code above 64 pixels");
		tw = tile_from_log2(lw);
		th = tile_from_log2(lh);
	}
	uint64_t code = v3d_cl_get(p, V3D_CL_TBM_INITIAL_BLOCK_SIZE);
	if (code > 2 || v3d_cl_get(p, V3D_CL_TBM_BLOCK_SIZE) > 2)
		return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "reserved tile list block size");
	/* Several configs: the job's tile memory is checked against the largest. */
	uint32_t tx = (width + tw - 1) / tw, ty = (height + th - 1) / th, block = v3d_tile_block_bytes((uint32_t)code);
	if (!f->tbm || (uint64_t)tx * ty * block > (uint64_t)f->bin_tiles_x * f->bin_tiles_y * f->bin_block) {
		f->bin_tiles_x = tx;
		f->bin_tiles_y = ty;
		f->bin_block = block;
	}
	f->tbm = true;
	return 0;
}

/* ---- per packet ------------------------------------------------------------------------------- */

int v3dval_check_packet(struct v3dval *v, const struct v3dval_where *w, const uint8_t *pkt, uint32_t len)
{
	(void)len;
	const struct v3dval_seg *s = &v->segs[w->seg];
	enum v3dval_list list = (enum v3dval_list)s->list;
	uint8_t op = pkt[0];
	const uint8_t *p = pkt + 1;
	struct v3dval_frame *f = &v->frame;

	if (!allowed(v, list, op) || op == V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST ||
	    op == V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE)
		return v3dval_fail(v, w, V3DVAL_ERR_FORBIDDEN, 0, "not allowed in the %s list",
				   list == V3DVAL_LIST_BIN ? "bin" : "render");
	if (s->level != V3DVAL_LEVEL_TOP && frame_level(op))
		return v3dval_fail(v, w, V3DVAL_ERR_LEVEL, 0, "frame-level packet inside a %s",
				   s->level == V3DVAL_LEVEL_TILE_LIST ? "generic tile list" : "sub-list");

	switch (op) {
	case V3D_CL_START_TILE_BINNING:
		/* Without this job's own binning config the binner would run on whatever config the
		 * hardware still holds (another context's), and qms/qts would bound nothing. */
		if (!f->tbm)
			return v3dval_fail(v, w, V3DVAL_ERR_STATE, 0, "Start Tile Binning without a Tile Binning Mode Cfg before it");
		return 0;
	case V3D_CL_TILE_RENDERING_MODE_CFG:
		return rendering_mode(v, w, p);
	case V3D_CL_MULTICORE_RENDERING_SUPERTILE_CFG:
		return supertile_cfg(v, w, p);
	case V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE: {
		uint64_t code = v3d_cl_get(p, V3D_CL_TLIBS_SIZE);
		if (code > 2)
			return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "reserved tile list block size");
		uint32_t block = v3d_tile_block_bytes((uint32_t)code);
		uint32_t current = f->block_size_set ? f->block : 64;
		if (geometry_change(v, w, block != current))
			return -1;
		f->block_size_set = true;
		f->block = block;
		return 0;
	}
	case V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE: {
		if (FERRY_ARRAY_RESERVE(v->tlsbs, v->cap_tlsbs, (size_t)v->nr_tlsbs + 1, 16))
			return v3dval_fail(v, w, V3DVAL_ERR_NOMEM, 0, NULL);
		v->tlsbs[v->nr_tlsbs++] = (struct v3dval_tlsb){ v3d_cl_get_address(p, V3D_CL_TLSB_ADDRESS), w->seg, w->pos };
		f->tlsb_sets |= (uint16_t)(1u << v3d_cl_get(p, V3D_CL_TLSB_SET_NUMBER));
		return 0;
	}
	case V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST:
	case V3D_CL_SUPERTILE_COORDINATES:
	case V3D_CL_TILE_COORDINATES_IMPLICIT:
		f->frozen = true;
		return 0;
	case V3D_CL_TILE_COORDINATES: {
		f->frozen = true;
		if (!f->common)
			return v3dval_fail(v, w, V3DVAL_ERR_STATE, 0, "tile coordinates before Tile Rendering Mode Cfg (Common)");
		uint32_t tx, ty, col = (uint32_t)v3d_cl_get(p, V3D_CL_TILE_COLUMN), row = (uint32_t)v3d_cl_get(p, V3D_CL_TILE_ROW);
		frame_tiles(f, &tx, &ty);
		if (col >= tx || row >= ty)
			return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "tile (%u, %u) outside the frame's %ux%u tiles", col,
					   row, tx, ty);
		return 0;
	}
	case V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST: {
		f->frozen = true;
		uint32_t set = (uint32_t)v3d_cl_get(p, V3D_CL_IMPLICIT_TILE_LIST_SET);
		if (v->in->bcl_start == v->in->bcl_end)
			return v3dval_fail(v, w, V3DVAL_ERR_STATE, 0, "implicit tile list in a job without a bin list");
		if (!f->common)
			return v3dval_fail(v, w, V3DVAL_ERR_STATE, 0, "implicit tile list before Tile Rendering Mode Cfg (Common)");
		if (set >= V3DVAL_MAX_TILE_LIST_SETS || !(f->tlsb_sets & (1u << set)))
			return v3dval_fail(v, w, V3DVAL_ERR_STATE, 0, "tile list set %u has no base", set);
		f->implicit = true;
		return 0;
	}
	case V3D_CL_LOAD_TILE_BUFFER_GENERAL:
	case V3D_CL_STORE_TILE_BUFFER_GENERAL:
		f->frozen = true;
		return check_load_store(v, w, p);
	case V3D_CL_TILE_BINNING_MODE_CFG:
		return binning_mode(v, w, p);
	case V3D_CL_NUMBER_OF_LAYERS: {
		uint32_t layers = (uint32_t)v3d_cl_get(p, V3D_CL_NUMBER_OF_LAYERS_FIELD) + 1;
		if (layers > f->bin_layers)
			f->bin_layers = layers;
		return 0;
	}
	case V3D_CL_INDEX_BUFFER_SETUP:
		return check_range(v, w, "Index buffer", v3d_cl_get_address(p, V3D_CL_INDEX_BUFFER_ADDRESS),
				   v3d_cl_get(p, V3D_CL_INDEX_BUFFER_SIZE));
	case V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST:
	case V3D_CL_INDIRECT_VERTEX_ARRAY_INSTANCED_PRIMS: {
		/* VkDrawIndexedIndirectCommand is 5 words, VkDrawIndirectCommand 4 */
		uint64_t count = op == V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST ? v3d_cl_get(p, V3D_CL_INDIRECT_COUNT)
										  : v3d_cl_get(p, 8, 32);
		uint64_t record = op == V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST ? 20 : 16;
		uint64_t stride = v3d_cl_get(p, V3D_CL_INDIRECT_STRIDE_WORDS) * 4u;
		if (count == 0)
			return 0;
		return check_range(v, w, "Indirect records", v3d_cl_get_address(p, V3D_CL_INDIRECT_ADDRESS),
				   (count - 1) * stride + record);
	}
	case V3D_CL_TRANSFORM_FEEDBACK_BUFFER:
		return check_range(v, w, "Buffer Address", v3d_cl_get_address(p, 32, 32), v3d_cl_get(p, 2, 30) * 4u);
	case V3D_CL_PRIMITIVE_COUNTS_FEEDBACK:
		/* 7 counter words, or 4 buffer-state pairs; the 64-byte flag doubles it */
		return check_range(v, w, "address", v3d_cl_get_address(p, 5, 27), v3d_cl_get(p, 4, 1) ? 64 : 32);
	case V3D_CL_OCCLUSION_QUERY_COUNTER: {
		uint32_t addr = v3d_cl_get_address(p, 0, 32);
		return addr ? check_range(v, w, "address", addr, 4) : 0; /* 0: counting disabled */
	}
	case V3D_CL_BRANCH:
	case V3D_CL_BRANCH_TO_SUB_LIST:
	case V3D_CL_GL_SHADER_STATE:
	case V3D_CL_GL_SHADER_STATE_INCLUDING_TS:
	case V3D_CL_GL_SHADER_STATE_INCLUDING_GS:
	case V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS:
		/* the walker follows these: nothing here but the tests above, which it passed */
		v->plain[list == V3DVAL_LIST_RENDER][s->level == V3DVAL_LEVEL_TOP][op >> 5] |= 1u << (op & 31);
		return 0;
	default: {
		/* any other address field a policy lets through: at least inside the context */
		const struct v3d_cl_addr_field *fields = v->op_fields[op];
		size_t n = v->op_nr_fields[op];
		if (n == 0) /* nothing but the tests above, which it passed here */
			v->plain[list == V3DVAL_LIST_RENDER][s->level == V3DVAL_LEVEL_TOP][op >> 5] |= 1u << (op & 31);
		for (size_t i = 0; i < n; i++)
			if (check_range(v, w, fields[i].name, v3d_cl_get_address(p, fields[i].start, fields[i].size), 1))
				return -1;
		return 0;
	}
	}
}

/* ---- end of job ------------------------------------------------------------------------------- */

int v3dval_check_job(struct v3dval *v)
{
	const struct v3dval_cl_submit *in = v->in;
	const struct v3dval_frame *f = &v->frame;
	bool bin = in->bcl_start != in->bcl_end;
	if (bin) {
		/* The PTB writes the tile lists into [qma, qma + qms) and the tile state into qts. */
		uint64_t layers = f->bin_layers ? f->bin_layers : 1;
		uint64_t tiles = f->tbm ? (uint64_t)f->bin_tiles_x * f->bin_tiles_y * layers : 0;
		if (in->qms && v3dval_find_range(v->bos, v->nr_bos, in->qma, in->qms) < 0)
			return v3dval_fail(v, NULL, V3DVAL_ERR_ADDRESS, in->qma,
					   "tile allocation memory qma 0x%08x (+0x%x bytes) outside the context's buffers",
					   in->qma, in->qms);
		if (tiles * (f->tbm ? f->bin_block : 0) > in->qms)
			return v3dval_fail(v, NULL, V3DVAL_ERR_ADDRESS, in->qma,
					   "qms 0x%x below the binning config's %llu initial tile list blocks", in->qms,
					   (unsigned long long)tiles);
		if (v->policy.shadow_tile_memory && (in->qms > v->policy.max_tile_memory || in->qms > UINT32_MAX - 4096u))
			return v3dval_fail(v, NULL, V3DVAL_ERR_LIMIT, in->qma, "qms 0x%x above the 0x%x bytes of tile memory allowed",
					   in->qms, v->policy.max_tile_memory);
		if (tiles * 256u > v->policy.max_tile_memory)
			return v3dval_fail(v, NULL, V3DVAL_ERR_LIMIT, in->qts, "tile state of %llu tiles", (unsigned long long)tiles);
		v->tile_state_bytes = (uint32_t)(tiles * 256u);
		if (in->qts && v3dval_find_range(v->bos, v->nr_bos, in->qts, tiles * 256u) < 0)
			return v3dval_fail(v, NULL, V3DVAL_ERR_ADDRESS, in->qts,
					   "tile state qts 0x%08x (+0x%llx bytes) outside the context's buffers", in->qts,
					   (unsigned long long)(tiles * 256u));
	}
	if (!f->implicit)
		return 0;
	/* The render list runs the binner's tile lists at base + tile index x block: all inside this
	 * job's tile allocation memory, and the prefetch past the last one inside its BO. */
	uint32_t tx, ty;
	frame_tiles(f, &tx, &ty);
	uint64_t tiles = (uint64_t)tx * ty, block = f->block_size_set ? f->block : 64;
	for (uint32_t i = 0; i < v->nr_tlsbs; i++) {
		const struct v3dval_tlsb *t = &v->tlsbs[i];
		uint64_t ext = tiles ? tiles * block : 1;
		int op = V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE;
		if (!bin || t->addr < in->qma || (uint64_t)t->addr + ext > (uint64_t)in->qma + in->qms)
			return v3dval_fail_at(v, t->seg, t->pos, op, V3DVAL_ERR_ADDRESS, t->addr,
					      "tile lists 0x%08x (+0x%llx bytes) outside the bin job's tile allocation memory",
					      t->addr, (unsigned long long)ext);
		uint64_t prefetch = (tiles ? (tiles - 1) * block : 0) + v->readahead;
		if (!v->policy.shadow_tile_memory && v3dval_find_range(v->bos, v->nr_bos, t->addr, prefetch) < 0)
			return v3dval_fail_at(v, t->seg, t->pos, op, V3DVAL_ERR_READAHEAD, t->addr,
					      "CLE read-ahead (%u bytes) past the last tile list at 0x%08x leaves its buffer",
					      v->readahead, (uint32_t)(t->addr + prefetch - v->readahead));
	}
	return 0;
}
