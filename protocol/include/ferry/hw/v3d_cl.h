/* Broadcom V3D 4.2 (RPi4) / 7.1 (RPi5) control-list packets: opcodes, lengths per version, field
 * layouts and the address fields of every packet. The one place these facts live; the CL builder,
 * the simulated CLE, the validator and the decoder all include it.
 *
 * Source: Mesa src/broadcom/cle/v3d_packet.xml (<vcxml gen="3.3" min_ver="42" max_ver="71">),
 * read field by field; shared/reference/kernel-uapi-msm-v3d.md §5. Conventions of that file:
 * byte 0 is the opcode; a field's `start` is a bit offset from the first payload byte (packets are
 * little-endian bit streams); length = 1 + ceil(max(start + size) / 8). An address field narrower
 * than 32 bits holds the top `size` bits of a 2^(32-size)-aligned address, the low bits of that
 * word being other fields (e.g. GL Shader State: address[31:5] | number of attribute arrays[4:0]).
 * A field is written here as a `start, size` pair so that it can be passed straight to
 * v3d_cl_get()/v3d_cl_set(): `v3d_cl_get(payload, V3D_CL_STORE_ADDRESS)`. */
#ifndef FERRY_HW_V3D_CL_H
#define FERRY_HW_V3D_CL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- versions and CLE facts ------------------------------------------------------------- */

#define V3D_VER_42 42
#define V3D_VER_71 71
static inline bool v3d_ver_valid(int ver) { return ver == V3D_VER_42 || ver == V3D_VER_71; }

/* The CLE prefetches past the packet it executes (Mesa v3d_device_info.c: cle_readahead 256 on
 * 4.2, 1024 on 7.1; cle_buffer_min_size 4096 / 16384), so every byte up to that far past the end
 * of a control list must be mapped. */
static inline uint32_t v3d_cle_readahead(int ver) { return ver >= V3D_VER_71 ? 1024u : 256u; }
static inline uint32_t v3d_cl_buffer_min_size(int ver) { return ver >= V3D_VER_71 ? 16384u : 4096u; }

/* ---- opcodes (v3d_packet.xml <packet code=...>) ------------------------------------------ */

enum v3d_cl_opcode {
	V3D_CL_HALT = 0,
	V3D_CL_NOP = 1,
	V3D_CL_FLUSH = 4,
	V3D_CL_FLUSH_ALL_STATE = 5,
	V3D_CL_START_TILE_BINNING = 6,
	V3D_CL_INCREMENT_SEMAPHORE = 7,
	V3D_CL_WAIT_ON_SEMAPHORE = 8,
	V3D_CL_WAIT_FOR_PREVIOUS_FRAME = 9,
	V3D_CL_ENABLE_Z_ONLY = 10,                  /* R */
	V3D_CL_DISABLE_Z_ONLY = 11,                 /* R */
	V3D_CL_END_OF_Z_ONLY = 12,
	V3D_CL_END_OF_RENDERING = 13,
	V3D_CL_WAIT_FOR_TRANSFORM_FEEDBACK = 14,    /* B */
	V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST = 15,
	V3D_CL_BRANCH = 16,
	V3D_CL_BRANCH_TO_SUB_LIST = 17,
	V3D_CL_RETURN_FROM_SUB_LIST = 18,
	V3D_CL_FLUSH_VCD_CACHE = 19,
	V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST = 20,
	V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST = 21,
	V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE = 22,
	V3D_CL_SUPERTILE_COORDINATES = 23,
	V3D_CL_CLEAR_TILE_BUFFERS = 25,             /* R; 4.2: 2 B "Clear Tile Buffers", 7.1: 1 B "Clear Render Targets" */
	V3D_CL_END_OF_LOADS = 26,                   /* R */
	V3D_CL_END_OF_TILE_MARKER = 27,             /* R */
	V3D_CL_STORE_TILE_BUFFER_GENERAL = 29,      /* R */
	V3D_CL_LOAD_TILE_BUFFER_GENERAL = 30,       /* R */
	V3D_CL_TRANSFORM_FEEDBACK_FLUSH_AND_COUNT = 31,
	V3D_CL_INDEXED_PRIM_LIST = 32,              /* B */
	V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST = 33, /* B */
	V3D_CL_INDEXED_INSTANCED_PRIM_LIST = 34,    /* B */
	V3D_CL_VERTEX_ARRAY_PRIMS = 36,             /* B */
	V3D_CL_INDIRECT_VERTEX_ARRAY_INSTANCED_PRIMS = 37, /* B */
	V3D_CL_VERTEX_ARRAY_INSTANCED_PRIMS = 38,   /* B */
	V3D_CL_VERTEX_ARRAY_SINGLE_INSTANCE_PRIMS = 39, /* B */
	V3D_CL_BASE_VERTEX_BASE_INSTANCE = 43,      /* B */
	V3D_CL_INDEX_BUFFER_SETUP = 44,             /* B */
	V3D_CL_SET_INSTANCEID = 54,                 /* B */
	V3D_CL_SET_PRIMITIVEID = 55,                /* B */
	V3D_CL_PRIM_LIST_FORMAT = 56,
	V3D_CL_SERIAL_NUMBER_LIST_START = 57,
	V3D_CL_GL_SHADER_STATE = 64,
	V3D_CL_GL_SHADER_STATE_INCLUDING_TS = 65,
	V3D_CL_GL_SHADER_STATE_INCLUDING_GS = 66,
	V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS = 67,
	V3D_CL_VCM_CACHE_SIZE = 71,
	V3D_CL_PRIMITIVE_COUNTS_FEEDBACK = 72,
	V3D_CL_TRANSFORM_FEEDBACK_BUFFER = 73,
	V3D_CL_TRANSFORM_FEEDBACK_SPECS = 74,       /* variable: 2 + 2 * N */
	V3D_CL_FLUSH_TRANSFORM_FEEDBACK_DATA = 75,
	V3D_CL_L1_CACHE_FLUSH_CONTROL = 76,
	V3D_CL_L2T_CACHE_FLUSH_CONTROL = 77,
	V3D_CL_STENCIL_CFG = 80,
	V3D_CL_BLEND_ENABLES = 83,
	V3D_CL_BLEND_CFG = 84,
	V3D_CL_BLEND_CONSTANT_COLOR = 86,
	V3D_CL_COLOR_WRITE_MASKS = 87,
	V3D_CL_ZERO_ALL_CENTROID_FLAGS = 88,
	V3D_CL_CENTROID_FLAGS = 89,
	V3D_CL_SAMPLE_STATE = 91,
	V3D_CL_OCCLUSION_QUERY_COUNTER = 92,
	V3D_CL_DEPTH_BOUNDS_TEST_LIMITS = 93,       /* 7.1 only */
	V3D_CL_CFG_BITS = 96,
	V3D_CL_ZERO_ALL_FLAT_SHADE_FLAGS = 97,
	V3D_CL_FLAT_SHADE_FLAGS = 98,
	V3D_CL_ZERO_ALL_NON_PERSPECTIVE_FLAGS = 99,
	V3D_CL_NON_PERSPECTIVE_FLAGS = 100,
	V3D_CL_POINT_SIZE = 104,
	V3D_CL_LINE_WIDTH = 105,
	V3D_CL_DEPTH_OFFSET = 106,
	V3D_CL_CLIP_WINDOW = 107,
	V3D_CL_VIEWPORT_OFFSET = 108,
	V3D_CL_CLIPPER_Z_MIN_MAX_CLIPPING_PLANES = 109,
	V3D_CL_CLIPPER_XY_SCALING = 110,            /* B */
	V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET = 111,    /* B */
	V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET_NO_GUARDBAND = 112, /* B, 7.1 only */
	V3D_CL_NUMBER_OF_LAYERS = 119,
	V3D_CL_TILE_BINNING_MODE_CFG = 120,
	V3D_CL_TILE_RENDERING_MODE_CFG = 121,       /* R; sub-id in the low bits of the payload */
	V3D_CL_MULTICORE_RENDERING_SUPERTILE_CFG = 122, /* R */
	V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE = 123, /* R */
	V3D_CL_TILE_COORDINATES = 124,
	V3D_CL_TILE_COORDINATES_IMPLICIT = 125,
	V3D_CL_TILE_LIST_INITIAL_BLOCK_SIZE = 126,
};

/* The list a packet normally goes in (v3d_packet.xml cl="B"/"R"; neither = both). The attribute
 * is Mesa's annotation, read by none of its tools (v3d_decoder.c, gen_pack_header.py), not a
 * rule the CLE enforces: the render-mode CLE runs the binner's tile lists, which carry bin-side
 * state, and v3d / v3dv put Set InstanceID (cl="B") in every generic tile list. */
#define V3D_CL_IN_BIN 1u
#define V3D_CL_IN_RENDER 2u
#define V3D_CL_IN_BOTH (V3D_CL_IN_BIN | V3D_CL_IN_RENDER)

/* Fixed length in bytes (opcode included) of `opcode` on `ver`, 0 if the opcode does not exist
 * on that version. TRANSFORM_FEEDBACK_SPECS returns its minimum, 2: use v3d_cl_packet_length(). */
uint32_t v3d_cl_fixed_length(int ver, uint8_t opcode);
/* The length of the packet starting at `p` (avail bytes readable, >= 1): the fixed length, or for
 * TRANSFORM_FEEDBACK_SPECS 2 + 2 * N with N its bits[4:0]. 0 for an unknown opcode; if the length
 * needs a byte beyond avail, returns the minimum length (> avail) so the caller fetches more. */
uint32_t v3d_cl_packet_length(int ver, const uint8_t *p, uint32_t avail);
/* "Tile Rendering Mode Cfg (Common)" style names, NULL for an unknown opcode. */
const char *v3d_cl_opcode_name(int ver, uint8_t opcode);
/* V3D_CL_IN_BIN / V3D_CL_IN_RENDER / both; 0 for an unknown opcode. */
uint32_t v3d_cl_packet_lists(int ver, uint8_t opcode);

/* ---- field access (little-endian bit streams; fields up to 64 bits) ---------------------- */

/* A field touches bytes [start / 8, (start + size - 1) / 8] and nothing past them (a packet may
 * end its buffer). Those bytes are loaded once and shifted, not read bit by bit; with a constant
 * `start, size` (the layout macros below) the loops fold into a load or two. A field spanning 9
 * bytes (over 56 bits, not byte-aligned) takes the out-of-line path. */
uint64_t v3d_cl_get_wide(const uint8_t *payload, unsigned start, unsigned size);
void v3d_cl_set_wide(uint8_t *payload, unsigned start, unsigned size, uint64_t value);

static inline uint64_t v3d_cl_get(const uint8_t *payload, unsigned start, unsigned size)
{
	unsigned shift = start & 7u, nbytes = (shift + size + 7u) >> 3;
	if (size == 0 || nbytes > 8u)
		return size ? v3d_cl_get_wide(payload, start, size) : 0;
	const uint8_t *p = payload + (start >> 3);
	uint64_t v = 0;
	if (nbytes == 4) /* every address field: one load where the compiler merges the bytes */
		v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	else
		for (unsigned i = 0; i < nbytes; i++)
			v |= (uint64_t)p[i] << (8u * i);
	v >>= shift;
	return size < 64u ? v & ((1ull << size) - 1u) : v;
}

/* ORs nothing outside the field: the field's bits are replaced, the rest of the bytes kept. */
static inline void v3d_cl_set(uint8_t *payload, unsigned start, unsigned size, uint64_t value)
{
	unsigned shift = start & 7u, nbytes = (shift + size + 7u) >> 3;
	if (size == 0 || nbytes > 8u) {
		if (size)
			v3d_cl_set_wide(payload, start, size, value);
		return;
	}
	uint8_t *p = payload + (start >> 3);
	uint64_t fmask = size < 64u ? (1ull << size) - 1u : ~0ull;
	uint64_t w = 0;
	if (nbytes == 4) { /* every address field, as in v3d_cl_get */
		w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		w = (w & ~(fmask << shift)) | ((value & fmask) << shift);
		p[0] = (uint8_t)w;
		p[1] = (uint8_t)(w >> 8);
		p[2] = (uint8_t)(w >> 16);
		p[3] = (uint8_t)(w >> 24);
		return;
	}
	for (unsigned i = 0; i < nbytes; i++)
		w |= (uint64_t)p[i] << (8u * i);
	w = (w & ~(fmask << shift)) | ((value & fmask) << shift);
	/* GCC 12 at -O3 inlines this into callers with a 4-byte buffer and an address field and
	 * warns for this loop, which nbytes == 4 never reaches there (the branch above). */
#if defined(__GNUC__) && !defined(__clang__) /* clang has no such warning */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
	for (unsigned i = 0; i < nbytes; i++)
		p[i] = (uint8_t)(w >> (8u * i));
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}

/* An address field of `size` bits holds address >> (32 - size). */
static inline uint32_t v3d_cl_get_address(const uint8_t *payload, unsigned start, unsigned size)
{
	return (uint32_t)(v3d_cl_get(payload, start, size) << (32u - size));
}
static inline void v3d_cl_set_address(uint8_t *payload, unsigned start, unsigned size, uint32_t addr)
{
	v3d_cl_set(payload, start, size, (uint64_t)addr >> (32u - size));
}

/* ---- field layouts (payload bit offsets; `start, size`) ---------------------------------- */

/* BRANCH / BRANCH_TO_SUB_LIST / BRANCH_TO_AUTO_CHAINED_SUB_LIST */
#define V3D_CL_BRANCH_ADDRESS 0, 32
/* START_ADDRESS_OF_GENERIC_TILE_LIST */
#define V3D_CL_GENERIC_TILE_LIST_START 0, 32
#define V3D_CL_GENERIC_TILE_LIST_END 32, 32
/* BRANCH_TO_IMPLICIT_TILE_LIST */
#define V3D_CL_IMPLICIT_TILE_LIST_SET 0, 8
/* BRANCH_TO_EXPLICIT_SUPERTILE */
#define V3D_CL_EXPLICIT_SUPERTILE_COLUMN 0, 8
#define V3D_CL_EXPLICIT_SUPERTILE_ROW 8, 8
#define V3D_CL_EXPLICIT_SUPERTILE_NUMBER 16, 8
#define V3D_CL_EXPLICIT_SUPERTILE_ADDRESS 24, 32
/* SUPERTILE_COORDINATES */
#define V3D_CL_SUPERTILE_COLUMN 0, 8
#define V3D_CL_SUPERTILE_ROW 8, 8
/* CLEAR_TILE_BUFFERS (4.2 only; 7.1's CLEAR_RENDER_TARGETS has no payload) */
#define V3D_CL_CLEAR_ALL_RENDER_TARGETS 0, 1
#define V3D_CL_CLEAR_Z_STENCIL 1, 1

/* STORE_TILE_BUFFER_GENERAL (29) and LOAD_TILE_BUFFER_GENERAL (30), 13 B, both versions. */
#define V3D_CL_LS_BUFFER 0, 4              /* enum v3d_cl_tile_buffer */
#define V3D_CL_LS_MEMORY_FORMAT 4, 3       /* enum v3d_cl_memory_format */
#define V3D_CL_LS_FLIP_Y 7, 1
#define V3D_CL_STORE_DITHER_MODE 8, 2      /* store only */
#define V3D_CL_LS_DECIMATE_MODE 10, 2      /* 0 sample 0, 1 4x, 3 all samples */
#define V3D_CL_LS_IMAGE_FORMAT 12, 6       /* enum v3d_cl_image_format */
#define V3D_CL_STORE_CLEAR_BUFFER 18, 1    /* store: clear the buffer being stored */
#define V3D_CL_LOAD_FORCE_ALPHA_1 18, 1    /* load */
#define V3D_CL_LS_CHANNEL_REVERSE 19, 1
#define V3D_CL_LS_RB_SWAP 20, 1
#define V3D_CL_LS_STRIDE 28, 20            /* raster: byte stride; UIF: height in UIF blocks */
#define V3D_CL_LS_HEIGHT 48, 16            /* used for the Y flip */
#define V3D_CL_LS_ADDRESS 64, 32

enum v3d_cl_tile_buffer {
	V3D_CL_BUFFER_RT0 = 0, /* RT n = n; RT4..7 exist on 7.1 only */
	V3D_CL_BUFFER_NONE = 8,
	V3D_CL_BUFFER_Z = 9,
	V3D_CL_BUFFER_STENCIL = 10,
	V3D_CL_BUFFER_ZS = 11,
};

enum v3d_cl_memory_format {
	V3D_CL_MEMORY_RASTER = 0,
	V3D_CL_MEMORY_LINEARTILE = 1,
	V3D_CL_MEMORY_UBLINEAR_1 = 2,
	V3D_CL_MEMORY_UBLINEAR_2 = 3,
	V3D_CL_MEMORY_UIF_NO_XOR = 4,
	V3D_CL_MEMORY_UIF_XOR = 5,
};

/* "Output Image Format" (also the load's input format), channels named low bits first. */
enum v3d_cl_image_format {
	V3D_CL_FMT_SRGB8_ALPHA8 = 0, V3D_CL_FMT_SRGB = 1, V3D_CL_FMT_RGB10_A2UI = 2,
	V3D_CL_FMT_RGB10_A2 = 3, V3D_CL_FMT_ABGR1555 = 4, V3D_CL_FMT_ALPHA_MASKED_ABGR1555 = 5,
	V3D_CL_FMT_ABGR4444 = 6, V3D_CL_FMT_BGR565 = 7, V3D_CL_FMT_R11F_G11F_B10F = 8,
	V3D_CL_FMT_RGBA32F = 9, V3D_CL_FMT_RG32F = 10, V3D_CL_FMT_R32F = 11,
	V3D_CL_FMT_RGBA32I = 12, V3D_CL_FMT_RG32I = 13, V3D_CL_FMT_R32I = 14,
	V3D_CL_FMT_RGBA32UI = 15, V3D_CL_FMT_RG32UI = 16, V3D_CL_FMT_R32UI = 17,
	V3D_CL_FMT_RGBA16F = 18, V3D_CL_FMT_RG16F = 19, V3D_CL_FMT_R16F = 20,
	V3D_CL_FMT_RGBA16I = 21, V3D_CL_FMT_RG16I = 22, V3D_CL_FMT_R16I = 23,
	V3D_CL_FMT_RGBA16UI = 24, V3D_CL_FMT_RG16UI = 25, V3D_CL_FMT_R16UI = 26,
	V3D_CL_FMT_RGBA8 = 27, V3D_CL_FMT_RGB8 = 28, V3D_CL_FMT_RG8 = 29, V3D_CL_FMT_R8 = 30,
	V3D_CL_FMT_RGBA8I = 31, V3D_CL_FMT_RG8I = 32, V3D_CL_FMT_R8I = 33,
	V3D_CL_FMT_RGBA8UI = 34, V3D_CL_FMT_RG8UI = 35, V3D_CL_FMT_R8UI = 36,
	V3D_CL_FMT_BSTC8 = 39, V3D_CL_FMT_D32F = 40, V3D_CL_FMT_D24 = 41, V3D_CL_FMT_D16 = 42,
	V3D_CL_FMT_D24S8 = 43, V3D_CL_FMT_S8 = 44, V3D_CL_FMT_RGBA5551 = 45,
};

/* TILE_RENDERING_MODE_CFG (121), 9 B. The sub-id selects the layout: 4 bits on 4.2, 3 on 7.1. */
#define V3D42_CL_RMC_SUB_ID 0, 4
#define V3D71_CL_RMC_SUB_ID 0, 3
enum v3d42_rmc_sub_id {
	V3D42_RMC_COMMON = 0, V3D42_RMC_COLOR = 1, V3D42_RMC_ZS_CLEAR_VALUES = 2,
	V3D42_RMC_CLEAR_COLORS_PART1 = 3, V3D42_RMC_CLEAR_COLORS_PART2 = 4, V3D42_RMC_CLEAR_COLORS_PART3 = 5,
};
enum v3d71_rmc_sub_id {
	V3D71_RMC_COMMON = 0, V3D71_RMC_ZS_CLEAR_VALUES = 1,
	V3D71_RMC_RENDER_TARGET_PART1 = 2, V3D71_RMC_RENDER_TARGET_PART2 = 3, V3D71_RMC_RENDER_TARGET_PART3 = 4,
};
/* Common (both versions unless marked) */
#define V3D_CL_RMC_NUMBER_OF_RENDER_TARGETS 4, 4 /* minus one */
#define V3D_CL_RMC_IMAGE_WIDTH 8, 16
#define V3D_CL_RMC_IMAGE_HEIGHT 24, 16
#define V3D42_CL_RMC_MAX_BPP 40, 2               /* 4.2 only: enum v3d_internal_bpp */
#define V3D_CL_RMC_MULTISAMPLE_4X 42, 1
#define V3D_CL_RMC_DOUBLE_BUFFER 43, 1
#define V3D71_CL_RMC_DEPTH_BUFFER_DISABLE 44, 1
#define V3D_CL_RMC_EARLY_Z_DIRECTION 45, 1
#define V3D_CL_RMC_EARLY_Z_DISABLE 46, 1
#define V3D_CL_RMC_INTERNAL_DEPTH_TYPE 47, 4
#define V3D_CL_RMC_EARLY_DS_CLEAR 51, 1
#define V3D71_CL_RMC_LOG2_TILE_WIDTH 52, 3       /* 0 = 8 px .. 3 = 64 px */
#define V3D71_CL_RMC_LOG2_TILE_HEIGHT 55, 3
/* 4.2 Color: RT n at 4 + 8n: bpp 2 bits, internal type 4 bits, clamp 2 bits */
#define V3D42_CL_RMC_RT_BPP(n) (4u + 8u * (n)), 2
#define V3D42_CL_RMC_RT_TYPE(n) (6u + 8u * (n)), 4
#define V3D42_CL_RMC_RT_CLAMP(n) (10u + 8u * (n)), 2
/* ZS clear values (both versions) */
#define V3D_CL_RMC_STENCIL_CLEAR 8, 8
#define V3D_CL_RMC_Z_CLEAR 16, 32                /* float bits */
/* 4.2 clear colors: the 128-bit clear value is [0,32) part1 low, [32,56) part1 next,
 * [56,88) part2 mid-low, [88,112) part2 mid-high, [112,128) part3 high */
#define V3D42_CL_RMC_CLEAR_RT 4, 4
#define V3D42_CL_RMC_CLEAR1_LOW32 8, 32
#define V3D42_CL_RMC_CLEAR1_NEXT24 40, 24
#define V3D42_CL_RMC_CLEAR2_MIDLOW32 8, 32
#define V3D42_CL_RMC_CLEAR2_MIDHIGH24 40, 24
#define V3D42_CL_RMC_CLEAR3_HIGH16 8, 16
#define V3D42_CL_RMC_CLEAR3_RASTER_STRIDE 24, 16
#define V3D42_CL_RMC_CLEAR3_UIF_PADDED_HEIGHT 40, 13
/* 7.1 render target parts: clear value [0,32) part1, [32,72) part2, [72,128) part3 */
#define V3D71_CL_RMC_RT 3, 3
#define V3D71_CL_RMC_RT1_BASE_ADDRESS 7, 11      /* TLB offset in 512-bit units, not a GPU address */
#define V3D71_CL_RMC_RT1_STRIDE 18, 7            /* minus one */
#define V3D71_CL_RMC_RT1_BPP 25, 2
#define V3D71_CL_RMC_RT1_TYPE_CLAMP 27, 5        /* enum "Render Target Type Clamp" */
#define V3D71_CL_RMC_RT1_CLEAR_LOW32 32, 32
#define V3D71_CL_RMC_RT2_CLEAR_MID40 24, 40
#define V3D71_CL_RMC_RT3_CLEAR_TOP56 8, 56

enum v3d_internal_bpp { V3D_INTERNAL_BPP_32 = 0, V3D_INTERNAL_BPP_64 = 1, V3D_INTERNAL_BPP_128 = 2 };
/* 4.2 "Internal Type" */
enum v3d_internal_type {
	V3D_INTERNAL_TYPE_8I = 0, V3D_INTERNAL_TYPE_8UI = 1, V3D_INTERNAL_TYPE_8 = 2,
	V3D_INTERNAL_TYPE_16I = 4, V3D_INTERNAL_TYPE_16UI = 5, V3D_INTERNAL_TYPE_16F = 6,
	V3D_INTERNAL_TYPE_32I = 8, V3D_INTERNAL_TYPE_32UI = 9, V3D_INTERNAL_TYPE_32F = 10,
};
/* 7.1 "Render Target Type Clamp": 0 8i, 1 16i, 2 32i, 4 8ui, 5 16ui, 6 32ui, 8 8, 9 16f, 10 32f,
 * +16 the clamped variants, 24..27 16f clamps, 32 invalid. */
enum v3d71_rt_type_clamp {
	V3D71_RT_8I = 0, V3D71_RT_16I = 1, V3D71_RT_32I = 2, V3D71_RT_8UI = 4, V3D71_RT_16UI = 5,
	V3D71_RT_32UI = 6, V3D71_RT_8 = 8, V3D71_RT_16F = 9, V3D71_RT_32F = 10, V3D71_RT_INVALID = 32,
};

/* "Internal Depth Type" (TILE_RENDERING_MODE_CFG common): how the Z tile buffer holds depth. */
enum v3d_internal_depth_type { V3D_INTERNAL_DEPTH_32F = 0, V3D_INTERNAL_DEPTH_24 = 1, V3D_INTERNAL_DEPTH_16 = 2 };

/* TILE_BINNING_MODE_CFG (120), 9 B */
#define V3D_CL_TBM_INITIAL_BLOCK_SIZE 2, 2   /* 0 64 B, 1 128 B, 2 256 B */
#define V3D_CL_TBM_BLOCK_SIZE 4, 2
#define V3D42_CL_TBM_NUMBER_OF_RENDER_TARGETS 8, 4 /* minus one */
#define V3D42_CL_TBM_MAX_BPP 12, 2
#define V3D42_CL_TBM_MULTISAMPLE_4X 14, 1
#define V3D42_CL_TBM_DOUBLE_BUFFER 15, 1
#define V3D71_CL_TBM_LOG2_TILE_WIDTH 8, 3
#define V3D71_CL_TBM_LOG2_TILE_HEIGHT 11, 3
#define V3D_CL_TBM_WIDTH 32, 16              /* minus one */
#define V3D_CL_TBM_HEIGHT 48, 16             /* minus one */

/* NUMBER_OF_LAYERS (119) */
#define V3D_CL_NUMBER_OF_LAYERS_FIELD 0, 8   /* minus one */

/* MULTICORE_RENDERING_SUPERTILE_CFG (122), 9 B */
#define V3D_CL_MRS_SUPERTILE_WIDTH 0, 8      /* minus one, in tiles */
#define V3D_CL_MRS_SUPERTILE_HEIGHT 8, 8     /* minus one */
#define V3D_CL_MRS_FRAME_WIDTH_SUPERTILES 16, 8
#define V3D_CL_MRS_FRAME_HEIGHT_SUPERTILES 24, 8
#define V3D_CL_MRS_FRAME_WIDTH_TILES 32, 12
#define V3D_CL_MRS_FRAME_HEIGHT_TILES 44, 12
#define V3D_CL_MRS_MULTICORE_ENABLE 56, 1
#define V3D_CL_MRS_SUPERTILE_RASTER_ORDER 60, 1
#define V3D_CL_MRS_NUMBER_OF_BIN_TILE_LISTS 61, 3 /* minus one */

/* MULTICORE_RENDERING_TILE_LIST_SET_BASE (123), 5 B: address[31:6] | set number[3:0] */
#define V3D_CL_TLSB_SET_NUMBER 0, 4
#define V3D_CL_TLSB_ADDRESS 6, 26

/* TILE_COORDINATES (124), 4 B */
#define V3D_CL_TILE_COLUMN 0, 12
#define V3D_CL_TILE_ROW 12, 12

/* TILE_LIST_INITIAL_BLOCK_SIZE (126), 2 B */
#define V3D_CL_TLIBS_SIZE 0, 2               /* 0 64 B, 1 128 B, 2 256 B */
#define V3D_CL_TLIBS_AUTO_CHAINED 2, 1

/* GL_SHADER_STATE* (64..67), 5 B: record address[31:5] | number of attribute arrays[4:0] */
#define V3D_CL_GL_SHADER_NUM_ATTRIBUTES 0, 5
#define V3D_CL_GL_SHADER_ADDRESS 5, 27

/* TRANSFORM_FEEDBACK_SPECS (74): 2 B then N 16-bit "Output Data Spec"s */
#define V3D_CL_TF_SPECS_COUNT 0, 5
#define V3D_CL_TF_SPECS_ENABLE 7, 1

/* Draw packets: the fields a validator bounds */
#define V3D_CL_INDEXED_PRIM_MODE 0, 6
#define V3D_CL_INDEXED_PRIM_INDEX_TYPE 6, 2   /* 0 8-bit, 1 16-bit, 2 32-bit */
#define V3D_CL_INDEXED_PRIM_LENGTH 8, 31
#define V3D_CL_INDEXED_PRIM_RESTART 39, 1
#define V3D_CL_INDEXED_PRIM_INDEX_OFFSET 40, 32
#define V3D_CL_VERTEX_ARRAY_MODE 0, 8
#define V3D_CL_VERTEX_ARRAY_LENGTH 8, 32
#define V3D_CL_VERTEX_ARRAY_FIRST 40, 32
#define V3D_CL_INDEX_BUFFER_ADDRESS 0, 32
#define V3D_CL_INDEX_BUFFER_SIZE 32, 32
#define V3D_CL_INDIRECT_COUNT 8, 31           /* 33: records (31 bits); 37 uses 8, 32 */
#define V3D_CL_INDIRECT_ADDRESS 40, 32
#define V3D_CL_INDIRECT_STRIDE_WORDS 72, 8

/* ---- address fields, for validation and relocation ---------------------------------------- */

struct v3d_cl_addr_field {
	uint16_t start; /* payload bit offset */
	uint8_t size;   /* bits; the address is value << (32 - size) */
	const char *name;
};

/* The address fields of `opcode` on `ver` (packets only). Returns how many (0: none), *fields
 * points at a static array. The low bits below a narrow field belong to other fields: relocate
 * with v3d_cl_set_address(), which keeps them. */
size_t v3d_cl_address_fields(int ver, uint8_t opcode, const struct v3d_cl_addr_field **fields);

/* Out-of-line structures with GPU addresses (bit offsets from the structure's first byte). */
enum v3d_cl_struct {
	V3D_CL_STRUCT_GL_SHADER_STATE_RECORD,   /* 36 B on 4.2, 32 B on 7.1 */
	V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD, /* 16 B */
	V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD,   /* 16 B */
	V3D_CL_STRUCT_TESSELLATION_SHADER_RECORD, /* 32 B */
	V3D_CL_STRUCT_TEXTURE_SHADER_STATE,     /* 24 B (7.1: Cb/Cr pointers are uint fields, see .c) */
};
uint32_t v3d_cl_struct_size(int ver, enum v3d_cl_struct s);
size_t v3d_cl_struct_address_fields(int ver, enum v3d_cl_struct s,
				    const struct v3d_cl_addr_field **fields);

/* ---- TFU registers (drm_v3d_submit_tfu; Mesa v3d_tfu.h; reference §6.2) ------------------------ */

#define V3D_TFU_ICFG_IOC_IRQ 0x1u                      /* interrupt on completion */
#define V3D42_TFU_ICFG_NUMMM(v) (((v) >> 5) & 0xfu)    /* mip levels to generate */
#define V3D42_TFU_ICFG_TTYPE(v) (((v) >> 9) & 0x7fu)   /* texture data type */
#define V3D42_TFU_ICFG_IFORMAT(v) (((v) >> 18) & 0xfu) /* enum v3d_tfu_iformat */
#define V3D42_TFU_ICFG_OPAD(v) ((v) >> 22)             /* UIF output padding, in UIF blocks */
#define V3D42_TFU_IOA_DIMTW 0x1u                       /* skip writing level 0 */
#define V3D42_TFU_IOA_FORMAT(v) (((v) >> 3) & 0x7u)    /* enum v3d_tfu_oformat */
#define V3D42_TFU_IOA_FLAGS_MASK 0x3fu                 /* IOA's address is IOA & ~0x3f */
#define V3D71_TFU_ICFG_OTYPE(v) (((v) >> 16) & 0x7fu)
#define V3D71_TFU_ICFG_IFORMAT(v) (((v) >> 23) & 0xfu)
#define V3D71_TFU_IOC_DIMTW 0x1u
#define V3D71_TFU_IOC_NUMMM(v) (((v) >> 4) & 0xfu)
#define V3D71_TFU_IOC_FORMAT(v) (((v) >> 12) & 0xfu)
#define V3D71_TFU_IOC_STRIDE(v) ((v) >> 16)           /* raster: pixels; UIF: padded height in UIF blocks */
#define V3D_TFU_IOS_WIDTH(v) ((v) & 0xffffu)
#define V3D_TFU_IOS_HEIGHT(v) ((v) >> 16)
#define V3D_TFU_COEF0_USECOEF (1u << 31)
/* Encoders for the fields a job's author sets (the macros above read them). */
#define V3D42_TFU_ICFG_TTYPE_SET(t) (((t) & 0x7fu) << 9)
#define V3D71_TFU_ICFG_OTYPE_SET(t) (((t) & 0x7fu) << 16)
#define V3D71_TFU_IOC_STRIDE_SET(s) ((uint32_t)(s) << 16)
#define V3D_TFU_IOS(width, height) ((uint32_t)(height) << 16 | ((width) & 0xffffu))

enum v3d_tfu_iformat {
	V3D_TFU_IFORMAT_RASTER = 0, V3D_TFU_IFORMAT_SAND_128 = 1, V3D_TFU_IFORMAT_SAND_256 = 2,
	V3D_TFU_IFORMAT_LINEARTILE = 11, V3D_TFU_IFORMAT_UBLINEAR_1 = 12, V3D_TFU_IFORMAT_UBLINEAR_2 = 13,
	V3D_TFU_IFORMAT_UIF_NO_XOR = 14, V3D_TFU_IFORMAT_UIF_XOR = 15,
};
/* 0 is not named by Mesa's v3d_tfu.h; ferry's simulator takes it as raster output. */
enum v3d_tfu_oformat {
	V3D_TFU_OFORMAT_RASTER = 0, V3D_TFU_OFORMAT_LINEARTILE = 3, V3D_TFU_OFORMAT_UBLINEAR_1 = 4,
	V3D_TFU_OFORMAT_UBLINEAR_2 = 5, V3D_TFU_OFORMAT_UIF_NO_XOR = 6, V3D_TFU_OFORMAT_UIF_XOR = 7,
};

/* The registers of a TFU job, as drm_v3d_submit_tfu carries them (ioc: 7.1 only). */
struct v3d_tfu_regs {
	uint32_t icfg, iia, iis, ica, iua, ioa, ios;
	uint32_t coef[4];
	uint32_t ioc; /* 7.1's drm_v3d_submit_tfu.v71.ioc; 0 on 4.2 (the validator refuses others) */
};

/* A TFU job's fields, decoded from its registers for one version: 4.2 keeps the output format and
 * DIMTW in IOA's low bits and NUMMM / OPAD in ICFG; 7.1 moved them and an output stride to IOC.
 * The simulator, the validator and the decoder read the registers only through this. */
struct v3d_tfu_fields {
	uint32_t ttype;    /* texture data type ("Texture Data Formats", v3d_texture_type_*) */
	uint32_t iformat;  /* enum v3d_tfu_iformat */
	uint32_t oformat;  /* enum v3d_tfu_oformat */
	uint32_t nummm;    /* mip levels to generate below level 0 */
	bool dimtw;        /* level 0 is not written */
	uint32_t out_addr; /* the output image: IOA without 4.2's flag bits */
	uint32_t stride;   /* 7.1 IOC.STRIDE: raster pixels per row, UIF padded height in blocks; 4.2: 0 */
	uint32_t opad;     /* 4.2 ICFG.OPAD: UIF blocks of padding below the image; 7.1: 0 */
	uint32_t width, height; /* IOS */
};

static inline void v3d_tfu_fields(bool v71, uint32_t icfg, uint32_t ioa, uint32_t ioc, uint32_t ios,
				  struct v3d_tfu_fields *f)
{
	f->width = V3D_TFU_IOS_WIDTH(ios);
	f->height = V3D_TFU_IOS_HEIGHT(ios);
	if (v71) {
		f->ttype = V3D71_TFU_ICFG_OTYPE(icfg);
		f->iformat = V3D71_TFU_ICFG_IFORMAT(icfg);
		f->oformat = V3D71_TFU_IOC_FORMAT(ioc);
		f->nummm = V3D71_TFU_IOC_NUMMM(ioc);
		f->dimtw = ioc & V3D71_TFU_IOC_DIMTW;
		f->out_addr = ioa;
		f->stride = V3D71_TFU_IOC_STRIDE(ioc);
		f->opad = 0;
	} else {
		f->ttype = V3D42_TFU_ICFG_TTYPE(icfg);
		f->iformat = V3D42_TFU_ICFG_IFORMAT(icfg);
		f->oformat = V3D42_TFU_IOA_FORMAT(ioa);
		f->nummm = V3D42_TFU_ICFG_NUMMM(icfg);
		f->dimtw = ioa & V3D42_TFU_IOA_DIMTW;
		f->out_addr = ioa & ~V3D42_TFU_IOA_FLAGS_MASK;
		f->stride = 0;
		f->opad = V3D42_TFU_ICFG_OPAD(icfg);
	}
}

/* The TFU format codes name the TLB's memory layouts (enum v3d_cl_memory_format, above);
 * -1 for SAND input and the reserved codes. Names as in Mesa's v3d_tfu.h, lower case; NULL for an
 * unnamed code. Defined in protocol/hw/v3d_texture.c. */
int v3d_tfu_iformat_memory(uint32_t iformat);
int v3d_tfu_oformat_memory(uint32_t oformat);
const char *v3d_tfu_iformat_name(uint32_t iformat);
const char *v3d_tfu_oformat_name(uint32_t oformat);

/* "Texture Data Formats" (v3d_packet.xml), 7 bits. Bytes per texel of a type with whole-byte
 * texels, 0 for the others (sub-byte, compressed, unknown); its name in lower case, NULL for an
 * unnamed value; and the bytes per texel of the types the simulated TFU copies byte for byte
 * (uncompressed colour: not depth, stencil, YCbCr or A1_RGB5), 0 for the others. */
uint32_t v3d_texture_type_bytes(uint32_t ttype);
const char *v3d_texture_type_name(uint32_t ttype);
uint32_t v3d_texture_type_tfu_copy_bytes(uint32_t ttype);

/* ---- CSD cfg[0..6] (V3D_CSD_QUEUED_CFG0..6; reference §6.1) ----------------------------------- */

#define V3D_CSD_CFG012_WG_COUNT(v) ((v) >> 16)        /* NUM_WGS_X/Y/Z; 0 reads as 65536 */
#define V3D_CSD_CFG012_WG_OFFSET(v) ((v) & 0xffffu)
#define V3D_CSD_CFG3_WG_SIZE(v) ((v) & 0xffu)          /* 0 = 256 */
#define V3D_CSD_CFG3_WGS_PER_SG(v) (((v) >> 8) & 0xfu) /* 0 = 16 */
#define V3D_CSD_CFG3_BATCHES_PER_SG_M1(v) (((v) >> 12) & 0xffu)
#define V3D_CSD_CFG3_MAX_SG_ID(v) (((v) >> 20) & 0x3fu)
#define V3D_CSD_CFG3_OVERLAP_WITH_PREV (1u << 26)
#define V3D_CSD_CFG5_FLAGS_MASK 0x7u                   /* THREADING b0, SINGLE_SEG b1, PROPAGATE_NANS b2 */

/* ---- tile geometry ------------------------------------------------------------------------- */

/* 4.2 derives the tile size from the render / binning config (Mesa v3d_choose_tile_size(), which
 * mirrors the hardware rule): index = (RTs > 2 ? 2 : RTs > 1 ? 1 : 0) + (MSAA ? 2 : double
 * buffer ? 1 : 0) + max bpp into {64x64, 64x32, 32x32, 32x16, 16x16, 16x8, 8x8}. */
static inline void v3d42_tile_size(uint32_t num_rts, uint32_t max_bpp, bool msaa, bool double_buffer,
				   uint32_t *width, uint32_t *height)
{
	static const uint8_t sizes[][2] = { { 64, 64 }, { 64, 32 }, { 32, 32 }, { 32, 16 },
					    { 16, 16 }, { 16, 8 }, { 8, 8 } };
	uint32_t idx = (num_rts > 2 ? 2u : num_rts > 1 ? 1u : 0u) + (msaa ? 2u : double_buffer ? 1u : 0u) +
		       (max_bpp > 2 ? 2u : max_bpp);
	if (idx > 6)
		idx = 6;
	*width = sizes[idx][0];
	*height = sizes[idx][1];
}

/* Bytes per pixel of an internal bpp code (32/64/128 bits). */
static inline uint32_t v3d_internal_bpp_bytes(uint32_t bpp) { return 4u << (bpp > 2 ? 2 : bpp); }

/* Tile-list block sizes coded 0/1/2 (64/128/256 B); 3 is reserved. */
static inline uint32_t v3d_tile_block_bytes(uint32_t code) { return 64u << (code > 2 ? 2 : code); }

#endif
