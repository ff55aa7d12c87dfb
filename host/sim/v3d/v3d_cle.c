/* The V3D control-list executor: packet fetch with the hardware's read-ahead, control flow (branch,
 * one-level sub-lists, the supertile / generic / implicit tile-list walk, semaphores), the PTB's
 * tile-list terminators, and the tile buffer with its raster loads, stores and clears.
 * Packet facts come from ferry/hw/v3d_cl.h; what is and is not modeled is stated in v3d_cle.h. */
#include "v3d_cle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/v3d_cl.h"
#include "v3d_tlb.h"

#define PAGE 4096u
#define MAX_RTS V3D_TLB_MAX_RTS
#define TILE_LIST_SETS 16u  /* Tile List Set Number is 4 bits */
#define FETCH_MAX 1024u     /* the largest read-ahead (7.1) */

struct v3d_cle {
	int ver;
	uint32_t readahead;
	enum v3d_cle_kind kind;
	enum v3d_cle_status status;
	uint32_t pc, end;
	struct v3d_cle_fault fault;
	struct v3d_cle_semaphore own_sem, *sem;
	struct v3d_cle_bin_regs bin_regs;
	struct v3d_cle_stats stats;

	/* the prefetch buffer: bytes [fetch_addr, fetch_addr + fetch_len) of the list */
	uint8_t fetch[FETCH_MAX];
	uint32_t fetch_addr, fetch_len;

	/* CTnRA: the single return-address register */
	bool ra_valid;
	uint32_t ra;

	/* tile-list walk of the render list */
	bool generic_valid;
	uint32_t generic_start, generic_end;
	bool walking;                 /* running the generic list for a tile of a supertile */
	uint32_t walk_x0, walk_x1, walk_y0, walk_y1, walk_x, walk_y;
	uint32_t walk_return;         /* the packet after SUPERTILE_COORDINATES */
	bool tile_valid;
	uint32_t tile_x, tile_y;
	unsigned buffer_index;        /* double buffering alternates tile buffers per tile */
	uint32_t tile_list_base[TILE_LIST_SETS];
	uint16_t tile_list_base_set;  /* bit n: set n configured */
	uint32_t tile_list_block;     /* bytes of the first block of each tile list */

	/* render frame config (TILE_RENDERING_MODE_CFG, MULTICORE_RENDERING_SUPERTILE_CFG) */
	bool common_valid;
	uint32_t image_w, image_h, num_rts, tile_w, tile_h;
	bool msaa, double_buffer;
	uint32_t supertile_w, supertile_h, frame_tiles_x, frame_tiles_y;
	bool frame_tiles_valid;
	struct v3d_tlb *tlb;          /* the tile buffer: allocated once, poisoned per render job */

	/* binning (TILE_BINNING_MODE_CFG, NUMBER_OF_LAYERS, START_TILE_BINNING) */
	bool tbm_valid, binning;
	uint32_t bin_tiles_x, bin_tiles_y, bin_layers, bin_block;
};

/* ---- lifecycle ----------------------------------------------------------------------------- */

struct v3d_cle *v3d_cle_create(int ver)
{
	if (!v3d_ver_valid(ver))
		return NULL;
	struct v3d_cle *cle = calloc(1, sizeof(*cle));
	if (!cle)
		return NULL;
	cle->tlb = calloc(1, sizeof(*cle->tlb));
	if (!cle->tlb) {
		free(cle);
		return NULL;
	}
	cle->ver = ver;
	cle->readahead = v3d_cle_readahead(ver);
	cle->status = V3D_CLE_DONE;
	cle->sem = &cle->own_sem;
	return cle;
}

void v3d_cle_destroy(struct v3d_cle *cle)
{
	if (!cle)
		return;
	v3d_tlb_free(cle->tlb);
	free(cle->tlb);
	free(cle);
}

void v3d_cle_start(struct v3d_cle *cle, enum v3d_cle_kind kind, uint32_t start, uint32_t end,
		   const struct v3d_cle_bin_regs *bin_regs, struct v3d_cle_semaphore *sem)
{
	/* Everything but the stats and the tile-buffer allocations starts over, as after a reset. */
	struct v3d_tlb *tlb = cle->tlb;
	struct v3d_cle_stats stats = cle->stats;
	int ver = cle->ver;
	memset(cle, 0, sizeof(*cle));
	cle->ver = ver;
	cle->readahead = v3d_cle_readahead(ver);
	cle->stats = stats;
	cle->tlb = tlb;
	if (kind == V3D_CLE_RENDER)
		v3d_tlb_reset(tlb); /* nothing carries from one job to the next */
	cle->kind = kind;
	cle->pc = start;
	cle->end = end;
	cle->stats.current_addr = start;
	cle->status = V3D_CLE_YIELD;
	cle->sem = sem ? sem : &cle->own_sem;
	if (kind == V3D_CLE_BIN && bin_regs)
		cle->bin_regs = *bin_regs;
	cle->tile_list_block = 64;
	cle->bin_layers = 1;
}

const struct v3d_cle_fault *v3d_cle_fault(const struct v3d_cle *cle)
{
	return cle->status == V3D_CLE_FAULT || cle->status == V3D_CLE_ERROR ? &cle->fault : NULL;
}

const struct v3d_cle_stats *v3d_cle_stats(const struct v3d_cle *cle) { return &cle->stats; }
void v3d_cle_reset_stats(struct v3d_cle *cle)
{
	memset(&cle->stats, 0, sizeof(cle->stats));
	cle->stats.current_addr = cle->pc;
}
int v3d_cle_version(const struct v3d_cle *cle) { return cle->ver; }

/* ---- stopping ------------------------------------------------------------------------------ */

static enum v3d_cle_status stop_fault(struct v3d_cle *cle, uint32_t addr, bool write, uint32_t packet,
				      uint8_t opcode, const char *what)
{
	cle->fault = (struct v3d_cle_fault){ addr, write, packet, opcode, what };
	return cle->status = V3D_CLE_FAULT;
}

static enum v3d_cle_status stop_error(struct v3d_cle *cle, uint32_t packet, uint8_t opcode,
				      const char *what)
{
	cle->fault = (struct v3d_cle_fault){ packet, false, packet, opcode, what };
	return cle->status = V3D_CLE_ERROR;
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* (The MMU splits accesses per 4 KiB page: v3d_mem_access in v3d_tlb.c.) */

/* Makes [pc, pc + need) available in the prefetch buffer. A refill reads the read-ahead window
 * from pc, as the CLE's prefetcher does: bytes past the packet must be mapped too. */
static enum v3d_cle_status fetch(struct v3d_cle *cle, const struct v3d_cle_mem *mem, uint32_t need,
				 const uint8_t **out)
{
	uint32_t off = cle->pc - cle->fetch_addr; /* wraps to huge when pc < fetch_addr */
	if (cle->fetch_len && off < cle->fetch_len && need <= cle->fetch_len - off) {
		*out = cle->fetch + off;
		return V3D_CLE_YIELD;
	}
	uint32_t fault_addr;
	cle->fetch_len = 0;
	if (v3d_mem_access(mem, cle->pc, cle->fetch, cle->readahead, false, &fault_addr)) {
		/* Name the packet when its own bytes are missing, the prefetch when only bytes past it are. */
		uint8_t opcode = 0;
		uint32_t packet_len = need;
		if (fault_addr != cle->pc && mem->read(mem->ctx, cle->pc, &opcode, 1) == 0) {
			uint32_t fixed = v3d_cl_fixed_length(cle->ver, opcode);
			if (fixed > packet_len)
				packet_len = fixed;
		}
		const char *what = fault_addr - cle->pc < packet_len ? "CL fetch" : "CL read-ahead";
		return stop_fault(cle, fault_addr, false, cle->pc, opcode, what);
	}
	cle->fetch_addr = cle->pc;
	cle->fetch_len = cle->readahead;
	*out = cle->fetch;
	return V3D_CLE_YIELD;
}

static void jump(struct v3d_cle *cle, uint32_t target)
{
	cle->pc = target;
	cle->fetch_len = 0; /* the prefetcher restarts at the target */
}

/* ---- tile buffer ------------------------------------------------------------------------------ */

static uint32_t channel_bits_of_type(int ver, uint32_t type)
{
	if (ver == V3D_VER_42) {
		switch (type) {
		case V3D_INTERNAL_TYPE_8I: case V3D_INTERNAL_TYPE_8UI: case V3D_INTERNAL_TYPE_8: return 8;
		case V3D_INTERNAL_TYPE_16I: case V3D_INTERNAL_TYPE_16UI: case V3D_INTERNAL_TYPE_16F: return 16;
		case V3D_INTERNAL_TYPE_32I: case V3D_INTERNAL_TYPE_32UI: case V3D_INTERNAL_TYPE_32F: return 32;
		default: return 0;
		}
	}
	if (type >= 24 && type <= 27)
		return 16; /* the 16f clamp variants */
	if (type >= 16 && type < 24)
		type -= 16; /* the integer clamp variants */
	switch (type) {
	case V3D71_RT_8I: case V3D71_RT_8UI: case V3D71_RT_8: return 8;
	case V3D71_RT_16I: case V3D71_RT_16UI: case V3D71_RT_16F: return 16;
	case V3D71_RT_32I: case V3D71_RT_32UI: case V3D71_RT_32F: return 32;
	default: return 0;
	}
}

/* LOAD_TILE_BUFFER_GENERAL / STORE_TILE_BUFFER_GENERAL of the current tile (v3d_tlb.c). */
static enum v3d_cle_status load_store(struct v3d_cle *cle, const struct v3d_cle_mem *mem,
				      const uint8_t *pkt, bool store)
{
	const uint8_t *p = pkt + 1;
	if (v3d_cl_get(p, V3D_CL_LS_BUFFER) == V3D_CL_BUFFER_NONE)
		return V3D_CLE_YIELD;
	if (!cle->tile_valid)
		return stop_error(cle, cle->pc, pkt[0], "load/store outside a tile");
	if (!cle->common_valid) {
		cle->stats.unmodeled++;
		return V3D_CLE_YIELD;
	}
	uint64_t x0 = (uint64_t)cle->tile_x * cle->tile_w, y0 = (uint64_t)cle->tile_y * cle->tile_h;
	if (x0 >= cle->image_w || y0 >= cle->image_h)
		return V3D_CLE_YIELD; /* the tile lies outside the image: nothing is touched */
	struct v3d_tlb_tile tile = {
		.x0 = (uint32_t)x0, .y0 = (uint32_t)y0,
		.w = (uint32_t)(cle->image_w - x0 < cle->tile_w ? cle->image_w - x0 : cle->tile_w),
		.h = (uint32_t)(cle->image_h - y0 < cle->tile_h ? cle->image_h - y0 : cle->tile_h),
		.index = cle->buffer_index, .num_rts = cle->num_rts, .msaa = cle->msaa,
	};
	uint32_t fault_addr = 0;
	uint64_t bytes = 0;
	switch (v3d_tlb_load_store(cle->tlb, mem, p, store, &tile, &fault_addr, &bytes)) {
	case V3D_TLB_OK:
		break;
	case V3D_TLB_UNMODELED:
		cle->stats.unmodeled++;
		break;
	case V3D_TLB_FAULT:
		return stop_fault(cle, fault_addr, store, cle->pc, pkt[0], store ? "store tile buffer" : "load tile buffer");
	case V3D_TLB_NOMEM:
		return stop_error(cle, cle->pc, pkt[0], "out of memory for the tile buffer");
	}
	if (store)
		cle->stats.bytes_stored += bytes;
	else
		cle->stats.bytes_loaded += bytes;
	return V3D_CLE_YIELD;
}

/* CLEAR_TILE_BUFFERS (4.2: flags) / CLEAR_RENDER_TARGETS (7.1): the configured render targets of
 * the current buffer take their clear values. The Z/S buffer is not stored by this model. */
static enum v3d_cle_status clear_buffers(struct v3d_cle *cle, const uint8_t *pkt)
{
	bool rts = cle->ver >= V3D_VER_71 || v3d_cl_get(pkt + 1, V3D_CL_CLEAR_ALL_RENDER_TARGETS);
	if (cle->ver == V3D_VER_42 && v3d_cl_get(pkt + 1, V3D_CL_CLEAR_Z_STENCIL) &&
	    !v3d_tlb_clear_zs(cle->tlb, cle->buffer_index))
		return stop_error(cle, cle->pc, pkt[0], "out of memory for the tile buffer");
	if (!rts)
		return V3D_CLE_YIELD;
	for (unsigned n = 0; n < MAX_RTS; n++) {
		if (cle->tlb->rt[n].configured && n < cle->num_rts && !v3d_tlb_clear_rt(cle->tlb, n, cle->buffer_index))
			return stop_error(cle, cle->pc, pkt[0], "out of memory for the tile buffer");
	}
	return V3D_CLE_YIELD;
}

/* 7.1 log2 tile sizes: codes 0..3 are 8..64 px; 4..7 are not defined, clamped to the largest. */
static uint32_t tile_size_from_log2(uint64_t code)
{
	return 8u << (code > 3 ? 3 : code);
}

static void set_clear_bits(struct v3d_tlb_rt *rt, unsigned start, unsigned size, uint64_t value)
{
	v3d_cl_set(rt->clear, start, size, value);
}

static void zs_clear_values(struct v3d_cle *cle, const uint8_t *p)
{
	cle->tlb->z_clear = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_Z_CLEAR);
	cle->tlb->s_clear = (uint8_t)v3d_cl_get(p, V3D_CL_RMC_STENCIL_CLEAR);
}

/* TILE_RENDERING_MODE_CFG, one sub-packet. */
static enum v3d_cle_status rendering_mode(struct v3d_cle *cle, const uint8_t *pkt)
{
	const uint8_t *p = pkt + 1;
	if (cle->ver == V3D_VER_42) {
		switch (v3d_cl_get(p, V3D42_CL_RMC_SUB_ID)) {
		case V3D42_RMC_COMMON: {
			cle->common_valid = true;
			cle->num_rts = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_NUMBER_OF_RENDER_TARGETS) + 1;
			cle->image_w = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_IMAGE_WIDTH);
			cle->image_h = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_IMAGE_HEIGHT);
			cle->msaa = v3d_cl_get(p, V3D_CL_RMC_MULTISAMPLE_4X);
			cle->double_buffer = v3d_cl_get(p, V3D_CL_RMC_DOUBLE_BUFFER);
			cle->tlb->depth_type = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_INTERNAL_DEPTH_TYPE);
			v3d42_tile_size(cle->num_rts, (uint32_t)v3d_cl_get(p, V3D42_CL_RMC_MAX_BPP), cle->msaa,
					cle->double_buffer, &cle->tile_w, &cle->tile_h);
			return V3D_CLE_YIELD;
		}
		case V3D42_RMC_COLOR:
			for (unsigned n = 0; n < 4; n++) {
				cle->tlb->rt[n].configured = true;
				cle->tlb->rt[n].bpp_bytes = v3d_internal_bpp_bytes((uint32_t)v3d_cl_get(p, V3D42_CL_RMC_RT_BPP(n)));
				cle->tlb->rt[n].channel_bits =
					channel_bits_of_type(cle->ver, (uint32_t)v3d_cl_get(p, V3D42_CL_RMC_RT_TYPE(n)));
			}
			return V3D_CLE_YIELD;
		case V3D42_RMC_ZS_CLEAR_VALUES:
			zs_clear_values(cle, p);
			return V3D_CLE_YIELD;
		case V3D42_RMC_CLEAR_COLORS_PART1:
		case V3D42_RMC_CLEAR_COLORS_PART2:
		case V3D42_RMC_CLEAR_COLORS_PART3: {
			/* The three parts carry bits 0..55, 56..111 and 112..127 of one RT's clear color. */
			uint64_t sub = v3d_cl_get(p, V3D42_CL_RMC_SUB_ID);
			if (v3d_cl_get(p, V3D42_CL_RMC_CLEAR_RT) > 3)
				return stop_error(cle, cle->pc, pkt[0], "Clear Colors: render target number > 3");
			struct v3d_tlb_rt *rt = &cle->tlb->rt[v3d_cl_get(p, V3D42_CL_RMC_CLEAR_RT)];
			if (sub == V3D42_RMC_CLEAR_COLORS_PART1) {
				set_clear_bits(rt, 0, 32, v3d_cl_get(p, V3D42_CL_RMC_CLEAR1_LOW32));
				set_clear_bits(rt, 32, 24, v3d_cl_get(p, V3D42_CL_RMC_CLEAR1_NEXT24));
			} else if (sub == V3D42_RMC_CLEAR_COLORS_PART2) {
				set_clear_bits(rt, 56, 32, v3d_cl_get(p, V3D42_CL_RMC_CLEAR2_MIDLOW32));
				set_clear_bits(rt, 88, 24, v3d_cl_get(p, V3D42_CL_RMC_CLEAR2_MIDHIGH24));
			} else {
				set_clear_bits(rt, 112, 16, v3d_cl_get(p, V3D42_CL_RMC_CLEAR3_HIGH16));
			}
			return V3D_CLE_YIELD;
		}
		default:
			return stop_error(cle, cle->pc, pkt[0], "Tile Rendering Mode Cfg: invalid sub-id");
		}
	}
	switch (v3d_cl_get(p, V3D71_CL_RMC_SUB_ID)) {
	case V3D71_RMC_COMMON:
		cle->common_valid = true;
		cle->num_rts = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_NUMBER_OF_RENDER_TARGETS) + 1;
		cle->image_w = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_IMAGE_WIDTH);
		cle->image_h = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_IMAGE_HEIGHT);
		cle->msaa = v3d_cl_get(p, V3D_CL_RMC_MULTISAMPLE_4X);
		cle->double_buffer = v3d_cl_get(p, V3D_CL_RMC_DOUBLE_BUFFER);
		cle->tlb->depth_type = (uint32_t)v3d_cl_get(p, V3D_CL_RMC_INTERNAL_DEPTH_TYPE);
		cle->tile_w = tile_size_from_log2(v3d_cl_get(p, V3D71_CL_RMC_LOG2_TILE_WIDTH));
		cle->tile_h = tile_size_from_log2(v3d_cl_get(p, V3D71_CL_RMC_LOG2_TILE_HEIGHT));
		return V3D_CLE_YIELD;
	case V3D71_RMC_ZS_CLEAR_VALUES:
		zs_clear_values(cle, p);
		return V3D_CLE_YIELD;
	case V3D71_RMC_RENDER_TARGET_PART1: {
		struct v3d_tlb_rt *rt = &cle->tlb->rt[v3d_cl_get(p, V3D71_CL_RMC_RT)];
		rt->configured = true;
		rt->bpp_bytes = v3d_internal_bpp_bytes((uint32_t)v3d_cl_get(p, V3D71_CL_RMC_RT1_BPP));
		rt->channel_bits = channel_bits_of_type(cle->ver, (uint32_t)v3d_cl_get(p, V3D71_CL_RMC_RT1_TYPE_CLAMP));
		set_clear_bits(rt, 0, 32, v3d_cl_get(p, V3D71_CL_RMC_RT1_CLEAR_LOW32));
		return V3D_CLE_YIELD;
	}
	case V3D71_RMC_RENDER_TARGET_PART2:
		set_clear_bits(&cle->tlb->rt[v3d_cl_get(p, V3D71_CL_RMC_RT)], 32, 40, v3d_cl_get(p, V3D71_CL_RMC_RT2_CLEAR_MID40));
		return V3D_CLE_YIELD;
	case V3D71_RMC_RENDER_TARGET_PART3:
		set_clear_bits(&cle->tlb->rt[v3d_cl_get(p, V3D71_CL_RMC_RT)], 72, 56, v3d_cl_get(p, V3D71_CL_RMC_RT3_CLEAR_TOP56));
		return V3D_CLE_YIELD;
	default:
		return stop_error(cle, cle->pc, pkt[0], "Tile Rendering Mode Cfg: invalid sub-id");
	}
}

/* ---- tile lists ------------------------------------------------------------------------------- */

static uint32_t frame_tiles_x(const struct v3d_cle *cle)
{
	if (cle->frame_tiles_valid)
		return cle->frame_tiles_x;
	return cle->tile_w ? (cle->image_w + cle->tile_w - 1) / cle->tile_w : 0;
}

static uint32_t frame_tiles_y(const struct v3d_cle *cle)
{
	if (cle->frame_tiles_valid)
		return cle->frame_tiles_y;
	return cle->tile_h ? (cle->image_h + cle->tile_h - 1) / cle->tile_h : 0;
}

/* Enters the generic tile list for the walk's current tile. */
static void enter_walk_tile(struct v3d_cle *cle)
{
	cle->tile_x = cle->walk_x;
	cle->tile_y = cle->walk_y;
	cle->tile_valid = true;
	jump(cle, cle->generic_start);
}

/* The generic list of one tile ended (RETURN or its end address): next tile, or leave the walk. */
static void walk_next(struct v3d_cle *cle)
{
	if (++cle->walk_x >= cle->walk_x1) {
		cle->walk_x = cle->walk_x0;
		cle->walk_y++;
	}
	if (cle->walk_y >= cle->walk_y1) {
		cle->walking = false;
		jump(cle, cle->walk_return);
		return;
	}
	enter_walk_tile(cle);
}

static enum v3d_cle_status supertile(struct v3d_cle *cle, const uint8_t *pkt, uint32_t next)
{
	if (!cle->generic_valid)
		return stop_error(cle, cle->pc, pkt[0], "Supertile Coordinates without a generic tile list");
	if (!cle->common_valid)
		return stop_error(cle, cle->pc, pkt[0], "Supertile Coordinates without Tile Rendering Mode Cfg");
	if (cle->walking)
		return stop_error(cle, cle->pc, pkt[0], "Supertile Coordinates inside a tile list");
	uint32_t sw = cle->supertile_w ? cle->supertile_w : 1, sh = cle->supertile_h ? cle->supertile_h : 1;
	uint64_t x0 = v3d_cl_get(pkt + 1, V3D_CL_SUPERTILE_COLUMN) * (uint64_t)sw;
	uint64_t y0 = v3d_cl_get(pkt + 1, V3D_CL_SUPERTILE_ROW) * (uint64_t)sh;
	uint64_t x1 = x0 + sw, y1 = y0 + sh;
	if (x1 > frame_tiles_x(cle))
		x1 = frame_tiles_x(cle);
	if (y1 > frame_tiles_y(cle))
		y1 = frame_tiles_y(cle);
	if (x0 >= x1 || y0 >= y1) {
		jump(cle, next); /* a supertile outside the frame renders nothing */
		return V3D_CLE_YIELD;
	}
	cle->walk_x0 = cle->walk_x = (uint32_t)x0;
	cle->walk_x1 = (uint32_t)x1;
	cle->walk_y0 = cle->walk_y = (uint32_t)y0;
	cle->walk_y1 = (uint32_t)y1;
	cle->walk_return = next;
	cle->walking = true;
	enter_walk_tile(cle);
	return V3D_CLE_YIELD;
}

/* A call through CTnRA: the hardware has one return-address register per thread, so a second
 * call before the RETURN would lose the first return address; the model stops with an error. */
static enum v3d_cle_status call(struct v3d_cle *cle, const uint8_t *pkt, uint32_t target, uint32_t next)
{
	if (cle->ra_valid)
		return stop_error(cle, cle->pc, pkt[0], "sub-list nested in a sub-list (one return register)");
	cle->ra_valid = true;
	cle->ra = next;
	jump(cle, target);
	return V3D_CLE_YIELD;
}

/* The PTB's part of a bin job that draws nothing: when binning ends (FLUSH), every tile's list in
 * the tile allocation memory is terminated, so the render list's implicit tile lists return at
 * once. Layout (a model choice, matching Mesa's tile_alloc_offset = 64 * layer * tiles): the
 * initial block of tile (x, y) of layer l is at qma + ((l * tiles_y + y) * tiles_x + x) * block. */
static enum v3d_cle_status terminate_tile_lists(struct v3d_cle *cle, const struct v3d_cle_mem *mem,
						uint8_t opcode)
{
	uint64_t bytes = (uint64_t)cle->bin_tiles_x * cle->bin_tiles_y * cle->bin_layers * cle->bin_block;
	if (bytes > cle->bin_regs.qms)
		return stop_error(cle, cle->pc, opcode, "tile allocation memory smaller than the initial tile-list blocks");
	uint8_t chunk[PAGE];
	uint32_t addr = cle->bin_regs.qma, fault_addr;
	uint64_t done = 0;
	while (done < bytes) {
		uint32_t len = (uint32_t)(bytes - done < PAGE ? bytes - done : PAGE);
		memset(chunk, 0, len);
		/* blocks are 64 B multiples and chunks start at block multiples of the region */
		for (uint32_t off = 0; off < len; off += cle->bin_block)
			chunk[off] = V3D_CL_RETURN_FROM_SUB_LIST;
		if (v3d_mem_access(mem, addr + (uint32_t)done, chunk, len, true, &fault_addr))
			return stop_fault(cle, fault_addr, true, cle->pc, opcode, "PTB tile list write");
		done += len;
	}
	return V3D_CLE_YIELD;
}

static enum v3d_cle_status binning_mode(struct v3d_cle *cle, const uint8_t *pkt)
{
	const uint8_t *p = pkt + 1;
	uint32_t w = (uint32_t)v3d_cl_get(p, V3D_CL_TBM_WIDTH) + 1, h = (uint32_t)v3d_cl_get(p, V3D_CL_TBM_HEIGHT) + 1;
	uint32_t tw, th;
	if (cle->ver == V3D_VER_42) {
		v3d42_tile_size((uint32_t)v3d_cl_get(p, V3D42_CL_TBM_NUMBER_OF_RENDER_TARGETS) + 1,
				(uint32_t)v3d_cl_get(p, V3D42_CL_TBM_MAX_BPP), v3d_cl_get(p, V3D42_CL_TBM_MULTISAMPLE_4X),
				v3d_cl_get(p, V3D42_CL_TBM_DOUBLE_BUFFER), &tw, &th);
	} else {
		tw = tile_size_from_log2(v3d_cl_get(p, V3D71_CL_TBM_LOG2_TILE_WIDTH));
		th = tile_size_from_log2(v3d_cl_get(p, V3D71_CL_TBM_LOG2_TILE_HEIGHT));
	}
	cle->bin_tiles_x = (w + tw - 1) / tw;
	cle->bin_tiles_y = (h + th - 1) / th;
	cle->bin_block = v3d_tile_block_bytes((uint32_t)v3d_cl_get(p, V3D_CL_TBM_INITIAL_BLOCK_SIZE));
	cle->tbm_valid = true;
	return V3D_CLE_YIELD;
}

/* ---- the packet loop --------------------------------------------------------------------------- */

static bool is_draw(uint8_t op)
{
	switch (op) {
	case V3D_CL_INDEXED_PRIM_LIST: case V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST:
	case V3D_CL_INDEXED_INSTANCED_PRIM_LIST: case V3D_CL_VERTEX_ARRAY_PRIMS:
	case V3D_CL_INDIRECT_VERTEX_ARRAY_INSTANCED_PRIMS: case V3D_CL_VERTEX_ARRAY_INSTANCED_PRIMS:
	case V3D_CL_VERTEX_ARRAY_SINGLE_INSTANCE_PRIMS:
		return true;
	default:
		return false;
	}
}

/* Executes the packet at cle->pc (len bytes at pkt). Returns YIELD to go on. */
static enum v3d_cle_status execute(struct v3d_cle *cle, const struct v3d_cle_mem *mem, const uint8_t *pkt,
				   uint32_t len)
{
	uint8_t op = pkt[0];
	const uint8_t *p = pkt + 1;
	uint32_t next = cle->pc + len;
	bool render = cle->kind == V3D_CLE_RENDER;

	/* A packet of the other list (cl="B" in a render list, "R" in a bin list) is not acted on. */
	if (!(v3d_cl_packet_lists(cle->ver, op) & (render ? V3D_CL_IN_RENDER : V3D_CL_IN_BIN))) {
		cle->stats.recorded[op]++;
		cle->pc = next;
		return V3D_CLE_YIELD;
	}

	switch (op) {
	case V3D_CL_HALT:
		cle->pc = next;
		return cle->status = V3D_CLE_DONE;
	case V3D_CL_FLUSH:
		if (!render && cle->binning) {
			cle->binning = false;
			if (terminate_tile_lists(cle, mem, op) != V3D_CLE_YIELD)
				return cle->status;
		}
		break;
	case V3D_CL_START_TILE_BINNING:
		if (!render) {
			if (!cle->tbm_valid)
				return stop_error(cle, cle->pc, op, "Start Tile Binning without Tile Binning Mode Cfg");
			cle->binning = true;
		}
		break;
	case V3D_CL_INCREMENT_SEMAPHORE:
		if (cle->sem->count != UINT32_MAX)
			cle->sem->count++;
		break;
	case V3D_CL_WAIT_ON_SEMAPHORE: /* v3d_cle_run checked that the count is not 0 */
		cle->sem->count--;
		break;
	case V3D_CL_BRANCH:
		jump(cle, v3d_cl_get_address(p, V3D_CL_BRANCH_ADDRESS));
		return V3D_CLE_YIELD;
	case V3D_CL_BRANCH_TO_SUB_LIST:
	case V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST: /* modeled as a sub-list call through CTnRA */
		return call(cle, pkt, v3d_cl_get_address(p, V3D_CL_BRANCH_ADDRESS), next);
	case V3D_CL_RETURN_FROM_SUB_LIST:
		if (cle->ra_valid) {
			cle->ra_valid = false;
			jump(cle, cle->ra);
		} else if (cle->walking) {
			walk_next(cle);
		} else {
			return stop_error(cle, cle->pc, op, "Return from sub-list with no sub-list");
		}
		return V3D_CLE_YIELD;
	case V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST:
		cle->generic_valid = true;
		cle->generic_start = v3d_cl_get_address(p, V3D_CL_GENERIC_TILE_LIST_START);
		cle->generic_end = v3d_cl_get_address(p, V3D_CL_GENERIC_TILE_LIST_END);
		break;
	case V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST: {
		uint32_t set = (uint32_t)v3d_cl_get(p, V3D_CL_IMPLICIT_TILE_LIST_SET);
		if (!cle->tile_valid)
			return stop_error(cle, cle->pc, op, "Branch to Implicit Tile List outside a tile");
		if (set >= TILE_LIST_SETS || !(cle->tile_list_base_set & (1u << set)))
			return stop_error(cle, cle->pc, op, "Branch to Implicit Tile List: tile list set has no base");
		uint32_t index = cle->tile_y * frame_tiles_x(cle) + cle->tile_x;
		return call(cle, pkt, cle->tile_list_base[set] + index * cle->tile_list_block, next);
	}
	case V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE:
		cle->stats.unmodeled++;
		return stop_error(cle, cle->pc, op, "Branch to Explicit Supertile is not modeled");
	case V3D_CL_SUPERTILE_COORDINATES:
		return supertile(cle, pkt, next);
	case V3D_CL_TILE_COORDINATES:
		cle->tile_x = (uint32_t)v3d_cl_get(p, V3D_CL_TILE_COLUMN);
		cle->tile_y = (uint32_t)v3d_cl_get(p, V3D_CL_TILE_ROW);
		cle->tile_valid = true;
		break;
	case V3D_CL_TILE_COORDINATES_IMPLICIT:
		if (!cle->walking)
			return stop_error(cle, cle->pc, op, "Tile Coordinates Implicit outside a supertile");
		cle->tile_x = cle->walk_x;
		cle->tile_y = cle->walk_y;
		cle->tile_valid = true;
		break;
	case V3D_CL_END_OF_TILE_MARKER:
		cle->stats.tiles++;
		if (cle->double_buffer && !cle->msaa)
			cle->buffer_index ^= 1u;
		break;
	case V3D_CL_CLEAR_TILE_BUFFERS:
		if (clear_buffers(cle, pkt) != V3D_CLE_YIELD)
			return cle->status;
		break;
	case V3D_CL_LOAD_TILE_BUFFER_GENERAL:
	case V3D_CL_STORE_TILE_BUFFER_GENERAL:
		if (load_store(cle, mem, pkt, op == V3D_CL_STORE_TILE_BUFFER_GENERAL) != V3D_CLE_YIELD)
			return cle->status;
		break;
	case V3D_CL_TILE_RENDERING_MODE_CFG:
		if (rendering_mode(cle, pkt) != V3D_CLE_YIELD)
			return cle->status;
		break;
	case V3D_CL_MULTICORE_RENDERING_SUPERTILE_CFG:
		cle->supertile_w = (uint32_t)v3d_cl_get(p, V3D_CL_MRS_SUPERTILE_WIDTH) + 1;
		cle->supertile_h = (uint32_t)v3d_cl_get(p, V3D_CL_MRS_SUPERTILE_HEIGHT) + 1;
		cle->frame_tiles_x = (uint32_t)v3d_cl_get(p, V3D_CL_MRS_FRAME_WIDTH_TILES);
		cle->frame_tiles_y = (uint32_t)v3d_cl_get(p, V3D_CL_MRS_FRAME_HEIGHT_TILES);
		cle->frame_tiles_valid = true;
		break;
	case V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE: {
		uint32_t set = (uint32_t)v3d_cl_get(p, V3D_CL_TLSB_SET_NUMBER);
		cle->tile_list_base[set] = v3d_cl_get_address(p, V3D_CL_TLSB_ADDRESS);
		cle->tile_list_base_set |= (uint16_t)(1u << set);
		break;
	}
	case V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE:
		cle->tile_list_block = v3d_tile_block_bytes((uint32_t)v3d_cl_get(p, V3D_CL_TLIBS_SIZE));
		break;
	case V3D_CL_TILE_BINNING_MODE_CFG:
		if (!render)
			binning_mode(cle, pkt);
		break;
	case V3D_CL_NUMBER_OF_LAYERS:
		cle->bin_layers = (uint32_t)v3d_cl_get(p, V3D_CL_NUMBER_OF_LAYERS_FIELD) + 1;
		break;
	case V3D_CL_NOP: case V3D_CL_FLUSH_ALL_STATE: case V3D_CL_WAIT_FOR_PREVIOUS_FRAME:
	case V3D_CL_ENABLE_Z_ONLY: case V3D_CL_DISABLE_Z_ONLY: case V3D_CL_END_OF_Z_ONLY:
	case V3D_CL_END_OF_RENDERING: case V3D_CL_FLUSH_VCD_CACHE: case V3D_CL_END_OF_LOADS:
	case V3D_CL_WAIT_FOR_TRANSFORM_FEEDBACK:
		break; /* nothing to model: no caches, no pipeline to drain */
	default:
		/* draws and state: decoded by their length, recorded, not executed */
		if (is_draw(op))
			cle->stats.draws++;
		cle->stats.recorded[op]++;
		break;
	}
	cle->pc = next;
	return V3D_CLE_YIELD;
}

static void note_packet(struct v3d_cle *cle, uint32_t addr)
{
	struct v3d_cle_stats *s = &cle->stats;
	s->packets++;
	s->last_packets[s->last_packet_head] = addr;
	s->last_packet_head = (s->last_packet_head + 1) % V3D_CLE_LAST_PACKETS;
	if (s->last_packet_count < V3D_CLE_LAST_PACKETS)
		s->last_packet_count++;
}

enum v3d_cle_status v3d_cle_run(struct v3d_cle *cle, const struct v3d_cle_mem *mem, uint32_t budget_packets)
{
	if (cle->status == V3D_CLE_DONE || cle->status == V3D_CLE_FAULT || cle->status == V3D_CLE_ERROR)
		return cle->status;
	if (budget_packets == 0)
		budget_packets = 1;
	cle->status = V3D_CLE_YIELD;
	for (; budget_packets; budget_packets--) {
		cle->stats.current_addr = cle->pc;
		/* the end address (CTnEA) ends the list at top level; a generic tile list ends at its own */
		if (cle->walking && !cle->ra_valid && cle->pc == cle->generic_end) {
			walk_next(cle);
			continue;
		}
		if (!cle->walking && !cle->ra_valid && cle->pc == cle->end)
			return cle->status = V3D_CLE_DONE;

		const uint8_t *pkt;
		if (fetch(cle, mem, 1, &pkt) != V3D_CLE_YIELD)
			return cle->status;
		uint8_t op = pkt[0];
		uint32_t len = v3d_cl_packet_length(cle->ver, pkt, cle->fetch_len - (cle->pc - cle->fetch_addr));
		if (len == 0) {
			cle->stats.unknown[op]++;
			return stop_error(cle, cle->pc, op, "unknown opcode");
		}
		if (fetch(cle, mem, len, &pkt) != V3D_CLE_YIELD)
			return cle->status;
		len = v3d_cl_packet_length(cle->ver, pkt, len);
		/* a wait that cannot pass is not an executed packet: it is retried by the next run */
		if (op == V3D_CL_WAIT_ON_SEMAPHORE && cle->sem->count == 0)
			return cle->status = V3D_CLE_WAIT_SEMAPHORE;
		note_packet(cle, cle->pc);
		cle->stats.by_opcode[op]++;
		enum v3d_cle_status st = execute(cle, mem, pkt, len);
		cle->stats.current_addr = cle->pc;
		if (st != V3D_CLE_YIELD)
			return cle->status = st;
	}
	return cle->status = V3D_CLE_YIELD;
}
