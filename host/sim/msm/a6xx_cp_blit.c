/* CP model: CP_BLIT(BLIT_OP_SCALE), the a6xx 2D engine behind Turnip's vkCmdCopyBuffer,
 * vkCmdFillBuffer, vkCmdUpdateBuffer and its r2d image copies and clears (tu_clear_blit.c).
 *
 * The blit takes everything from registers (a6xx.xml names as Mesa 22.3 has them):
 * RB_2D_BLIT_CNTL / GRAS_2D_BLIT_CNTL (solid-color bit, format, channel mask, intermediate
 * format), RB_2D_UNKNOWN_8C01 (channels a D24S8 write preserves), RB_2D_DST_INFO / RB_2D_DST /
 * RB_2D_DST_PITCH / RB_2D_DST_FLAGS*, SP_PS_2D_SRC_INFO / _SIZE / SP_PS_2D_SRC / _PITCH /
 * _FLAGS*, the inclusive rectangles GRAS_2D_DST_TL/BR and GRAS_2D_SRC_TL_X..BR_Y, and for a fill
 * the per-channel clear value RB_2D_SRC_SOLID_C0..C3.
 *
 * Modeled: single-sample linear, TILE6_3 and UBWC surfaces (a6xx_cp_surface.c; UBWC in the model's
 * uncompressed representation, see a6xx_tiling.c), 64-byte aligned bases, no rotation or
 * scissor, and either
 *   - a copy between surfaces of the same format and sRGB-ness with equal rectangles: each
 *     texel's bytes move as they are (the conversion through the intermediate format is lossless
 *     when both ends agree), R and B trading places when one end is WZYX and the other WXYZ
 *     (a BGRA buffer against a tiled image, which is always WZYX), or
 *   - a solid fill: each channel's clear value as the intermediate format carries it (8-bit
 *     channels through R2D_UNORM8 / _SRGB / INT8, 16-bit through FLOAT16 / INT16, 32-bit through
 *     FLOAT32 / INT32), or converted from FLOAT32 to 16-bit UNORM / SNORM (Turnip's path for those
 *     and for D16), in the order the WZYX or WXYZ swap puts them. Turnip packs the values itself
 *     (r2d_clear_value, sRGB-encoding them for sRGB formats), so the engine stores them.
 * D24S8 (FMT6_Z24_UNORM_S8_UINT and its _AS_R8G8B8A8 form) is four bytes, depth in the low
 * three: the two RB_2D_UNKNOWN_8C01 values Turnip writes to clear one aspect keep the other.
 * Anything else (scaling, format conversion in copies, MSAA, other channel masks, rotation,
 * ops other than BLIT_OP_SCALE, UBWC blocks the model did not write) is not executed: the packet
 * is counted as skipped, like other packets the model cannot reproduce, and memory is left
 * untouched.
 *
 * Every byte the blit reads or writes is checked through the context's address space before the
 * first byte moves, so a blit that runs outside its buffer objects is a GPU fault that wrote
 * nothing. Rows are the unit of work: a large blit spans slices. */
#include <math.h>
#include <string.h>

#include "a6xx_cp_internal.h"
#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"

enum channel_type { CH_UNORM, CH_SNORM, CH_UINT, CH_SINT, CH_FLOAT, CH_OTHER };

/* What the model needs of a format: its texel size and, for uniform formats, its channels. */
struct format_layout {
	uint32_t cpp;
	uint32_t channels;     /* 0: packed / mixed channels (copyable, not fillable) */
	uint32_t channel_bits;
	enum channel_type type;
};

/* The registers of the 2D engine's state (GRAS_2D_*, RB_2D_*, SP_2D_DST_FORMAT,
 * SP_PS_2D_SRC_*) and of the GMEM resolve engine's (RB_BLIT_*, the bin size and origin it
 * clips to), which a submit keeps across slices (cp_blit_state_save / _restore). */
static const struct {
	uint32_t first, count;
} state_2d[] = {
	{ REG_A6XX_GRAS_2D_BLIT_CNTL, REG_A6XX_GRAS_2D_DST_BR - REG_A6XX_GRAS_2D_BLIT_CNTL + 1 },
	{ REG_A6XX_RB_2D_BLIT_CNTL, REG_A6XX_RB_2D_SRC_SOLID_C3 - REG_A6XX_RB_2D_BLIT_CNTL + 1 },
	{ REG_A6XX_SP_2D_DST_FORMAT, 1 },
	{ REG_A6XX_SP_PS_2D_SRC_INFO, REG_A6XX_SP_PS_2D_SRC_FLAGS_PITCH - REG_A6XX_SP_PS_2D_SRC_INFO + 1 },
	{ REG_A6XX_RB_UNKNOWN_88D0, REG_A6XX_RB_BLIT_INFO - REG_A6XX_RB_UNKNOWN_88D0 + 1 },
};
_Static_assert(REG_A6XX_GRAS_2D_DST_BR - REG_A6XX_GRAS_2D_BLIT_CNTL + 1 +
		       REG_A6XX_RB_2D_SRC_SOLID_C3 - REG_A6XX_RB_2D_BLIT_CNTL + 1 + 1 +
		       REG_A6XX_SP_PS_2D_SRC_FLAGS_PITCH - REG_A6XX_SP_PS_2D_SRC_INFO + 1 +
		       REG_A6XX_RB_BLIT_INFO - REG_A6XX_RB_UNKNOWN_88D0 + 1 ==
	       CP_2D_STATE_REGS, "CP_2D_STATE_REGS covers the 2D and GMEM blit ranges");

void cp_blit_state_restore(struct cp_device *cp, const struct cp_exec *x)
{
	if (!x->regs_2d_saved)
		return; /* a submit's first slice starts from the registers as they are */
	uint32_t n = 0;
	for (size_t i = 0; i < sizeof(state_2d) / sizeof(state_2d[0]); i++) {
		memcpy(&cp->regs[state_2d[i].first], &x->regs_2d[n], state_2d[i].count * sizeof(uint32_t));
		n += state_2d[i].count;
	}
}

void cp_blit_state_save(const struct cp_device *cp, struct cp_exec *x)
{
	uint32_t n = 0;
	for (size_t i = 0; i < sizeof(state_2d) / sizeof(state_2d[0]); i++) {
		memcpy(&x->regs_2d[n], &cp->regs[state_2d[i].first], state_2d[i].count * sizeof(uint32_t));
		n += state_2d[i].count;
	}
	x->regs_2d_saved = true;
}

static enum channel_type type_of_suffix(uint32_t index)
{
	/* The a6xx_format groups list UNORM, SNORM, (FLOAT,) UINT, SINT in this order. */
	static const enum channel_type order[] = { CH_UNORM, CH_SNORM, CH_UINT, CH_SINT };
	return index < 4 ? order[index] : CH_OTHER;
}

static bool format_layout(uint32_t fmt, struct format_layout *l)
{
	switch (fmt) {
	case FMT6_8_UNORM: case FMT6_8_SNORM: case FMT6_8_UINT: case FMT6_8_SINT:
		*l = (struct format_layout){ 1, 1, 8, type_of_suffix(fmt - FMT6_8_UNORM) };
		return true;
	case FMT6_8_8_UNORM: case FMT6_8_8_SNORM: case FMT6_8_8_UINT: case FMT6_8_8_SINT:
		*l = (struct format_layout){ 2, 2, 8, type_of_suffix(fmt - FMT6_8_8_UNORM) };
		return true;
	case FMT6_8_8_8_UNORM: case FMT6_8_8_8_SNORM: case FMT6_8_8_8_UINT: case FMT6_8_8_8_SINT:
		*l = (struct format_layout){ 3, 3, 8, type_of_suffix(fmt - FMT6_8_8_8_UNORM) };
		return true;
	case FMT6_8_8_8_8_UNORM:
	case FMT6_8_8_8_X8_UNORM:
	case FMT6_Z24_UNORM_S8_UINT_AS_R8G8B8A8: /* D24S8 / X8D24 as bytes: Turnip's clear values */
	case FMT6_Z24_UNORM_S8_UINT:              /* are the depth bytes and the stencil */
		*l = (struct format_layout){ 4, 4, 8, CH_UNORM };
		return true;
	case FMT6_8_8_8_8_SNORM: case FMT6_8_8_8_8_UINT: case FMT6_8_8_8_8_SINT:
		*l = (struct format_layout){ 4, 4, 8, type_of_suffix(fmt - FMT6_8_8_8_8_SNORM + 1) };
		return true;
	case FMT6_4_4_4_4_UNORM: case FMT6_5_5_5_1_UNORM: case FMT6_1_5_5_5_UNORM: case FMT6_5_6_5_UNORM:
		*l = (struct format_layout){ 2, 0, 0, CH_OTHER };
		return true;
	case FMT6_9_9_9_E5_FLOAT: case FMT6_10_10_10_2_UNORM: case FMT6_10_10_10_2_SNORM:
	case FMT6_10_10_10_2_UINT: case FMT6_10_10_10_2_SINT: case FMT6_11_11_10_FLOAT:
	case FMT6_10_10_10_2_UNORM_DEST:
		*l = (struct format_layout){ 4, 0, 0, CH_OTHER };
		return true;
	default:
		break;
	}
	/* The 16- and 32-bit groups: UNORM, SNORM, FLOAT, UINT, SINT in a row (32-bit: + FIXED,
	 * and 32_32_32 orders UINT, SINT before FLOAT). */
	static const struct { uint32_t first; uint32_t channels, bits; } groups[] = {
		{ FMT6_16_UNORM, 1, 16 }, { FMT6_16_16_UNORM, 2, 16 }, { FMT6_16_16_16_UNORM, 3, 16 },
		{ FMT6_16_16_16_16_UNORM, 4, 16 }, { FMT6_32_UNORM, 1, 32 }, { FMT6_32_32_UNORM, 2, 32 },
		{ FMT6_32_32_32_32_UNORM, 4, 32 },
	};
	static const enum channel_type group_order[] = { CH_UNORM, CH_SNORM, CH_FLOAT, CH_UINT, CH_SINT };
	for (unsigned i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (fmt >= groups[i].first && fmt < groups[i].first + 5) {
			*l = (struct format_layout){ groups[i].channels * groups[i].bits / 8, groups[i].channels,
						     groups[i].bits, group_order[fmt - groups[i].first] };
			return true;
		}
	}
	if (fmt >= FMT6_32_32_32_UNORM && fmt <= FMT6_32_32_32_FLOAT) {
		static const enum channel_type order_96[] = { CH_UNORM, CH_SNORM, CH_UINT, CH_SINT, CH_FLOAT };
		*l = (struct format_layout){ 12, 3, 32, order_96[fmt - FMT6_32_32_32_UNORM] };
		return true;
	}
	return false; /* compressed, YUV, depth-as-color, X8, ..._DEST: not modeled */
}

uint32_t cp_format_cpp(uint32_t fmt)
{
	struct format_layout l;
	return format_layout(fmt, &l) ? l.cpp : 0;
}

bool cp_format_channels(uint32_t fmt, uint32_t *channels, uint32_t *channel_bytes)
{
	struct format_layout l;
	if (!format_layout(fmt, &l) || !l.channels)
		return false;
	*channels = l.channels;
	*channel_bytes = l.channel_bits / 8;
	return true;
}

uint32_t cp_format_swap_rb_bytes(uint32_t fmt)
{
	struct format_layout l;
	if (!format_layout(fmt, &l) || l.channels < 3)
		return 0;
	return l.channel_bits / 8;
}

void cp_texel_swap_rb(uint8_t *texel, uint32_t channel_bytes)
{
	for (uint32_t b = 0; b < channel_bytes; b++) {
		uint8_t t = texel[b];
		texel[b] = texel[2 * channel_bytes + b];
		texel[2 * channel_bytes + b] = t;
	}
}

bool cp_is_d24s8(uint32_t fmt)
{
	return fmt == FMT6_Z24_UNORM_S8_UINT || fmt == FMT6_Z24_UNORM_S8_UINT_AS_R8G8B8A8;
}

/* A FLOAT32 intermediate value into an n-bit normalized channel: clamped, then rounded to the
 * nearest step (ties to even); NaN becomes 0. */
static uint32_t float_to_norm(uint32_t bits, uint32_t n, bool is_signed)
{
	float f;
	memcpy(&f, &bits, sizeof(f));
	if (f != f)
		return 0;
	float lo = is_signed ? -1.0f : 0.0f;
	f = f < lo ? lo : f > 1.0f ? 1.0f : f;
	float scale = (float)((1u << (is_signed ? n - 1 : n)) - 1);
	return (uint32_t)(int32_t)lrintf(f * scale) & ((1u << n) - 1);
}

/* The clear value of a fill as one packed texel; NULL, or why the fill is not modeled. */
static const char *pack_fill(struct cp_device *cp, uint32_t blit_cntl, uint32_t dst_info,
			     const struct format_layout *l, uint8_t *texel)
{
	uint32_t ifmt = A6XX_2D_BLIT_CNTL_GET_IFMT(blit_cntl);
	bool srgb = dst_info & A6XX_2D_SURF_INFO_SRGB;
	bool is_int = l->type == CH_UINT || l->type == CH_SINT;
	if (!l->channels)
		return "fill of a packed format";
	if (srgb != (ifmt == R2D_UNORM8_SRGB))
		return "sRGB destination and intermediate format disagree";
	bool carried, to_norm = false;
	switch (l->channel_bits) {
	case 8:
		carried = is_int ? ifmt == R2D_INT8 : (ifmt == R2D_UNORM8 || ifmt == R2D_UNORM8_SRGB);
		break;
	case 16:
		carried = is_int ? ifmt == R2D_INT16 : (l->type == CH_FLOAT && ifmt == R2D_FLOAT16);
		/* Turnip clears 16-bit UNORM / SNORM (D16 too) through FLOAT32. */
		to_norm = (l->type == CH_UNORM || l->type == CH_SNORM) && ifmt == R2D_FLOAT32;
		break;
	default:
		carried = is_int ? ifmt == R2D_INT32 : (l->type == CH_FLOAT && ifmt == R2D_FLOAT32);
		break;
	}
	if (!carried && !to_norm)
		return "fill converts between the intermediate and the destination format";
	uint32_t slot_of[4] = { 0, 1, 2, 3 };
	switch (A6XX_2D_SURF_INFO_GET_COLOR_SWAP(dst_info)) {
	case WZYX:
		break;
	case WXYZ:
		if (l->channels < 3)
			return "fill with a channel swap of a one- or two-channel format";
		slot_of[0] = 2;
		slot_of[2] = 0;
		break;
	default:
		return "fill with a ZYXW / XYZW channel swap";
	}
	uint32_t bytes = l->channel_bits / 8;
	for (uint32_t c = 0; c < l->channels; c++) {
		uint32_t v = cp->regs[REG_A6XX_RB_2D_SRC_SOLID_C0 + c];
		if (to_norm)
			v = float_to_norm(v, l->channel_bits, l->type == CH_SNORM);
		for (uint32_t b = 0; b < bytes; b++)
			texel[slot_of[c] * bytes + b] = (uint8_t)(v >> (8 * b));
	}
	return NULL;
}

/* A 2D surface from its INFO register, base, pitch and flag registers. */
static const char *surface(struct cp_surf *surf, uint32_t info, uint64_t base, uint64_t pitch, uint32_t cpp,
			   uint64_t flags, uint32_t flag_pitch_reg)
{
	if (A6XX_2D_SURF_INFO_GET_SAMPLES(info) != MSAA_ONE)
		return "multisampled surface";
	return cp_surf_init(surf, A6XX_2D_SURF_INFO_GET_TILE_MODE(info), info & A6XX_2D_SURF_INFO_FLAGS, base, pitch,
			    cpp, flags, A6XX_FLAG_BUFFER_PITCH_GET_PITCH(flag_pitch_reg));
}

static const char wraps[] = "2D surface wraps the address space";

/* Decodes the 2D registers into x->blit. NULL when the blit is modeled (rows may be 0: an empty
 * rectangle), `wraps` for a malformed one, else why it is not modeled. */
static const char *decode(struct cp_device *cp, struct cp_exec *x)
{
	const uint32_t *r = cp->regs;
	uint32_t cntl = r[REG_A6XX_RB_2D_BLIT_CNTL], gras_cntl = r[REG_A6XX_GRAS_2D_BLIT_CNTL];
	uint32_t dst_info = r[REG_A6XX_RB_2D_DST_INFO];
	struct cp_blit_job *j = &x->blit;
	*j = (struct cp_blit_job){ .fill = cntl & A6XX_2D_BLIT_CNTL_SOLID_COLOR };

	if (A6XX_2D_BLIT_CNTL_GET_ROTATE(cntl) != ROTATE_0 || A6XX_2D_BLIT_CNTL_GET_ROTATE(gras_cntl) != ROTATE_0)
		return "rotation";
	if ((cntl | gras_cntl) & A6XX_2D_BLIT_CNTL_SCISSOR)
		return "scissor";
	uint32_t fmt = A6XX_2D_SURF_INFO_GET_COLOR_FORMAT(dst_info);
	if ((cntl & A6XX_2D_BLIT_CNTL_D24S8) && fmt != FMT6_Z24_UNORM_S8_UINT_AS_R8G8B8A8)
		return "D24S8 bit on another format";
	if (A6XX_2D_BLIT_CNTL_GET_MASK(cntl) != 0xfu)
		return "partial channel write";
	switch (r[REG_A6XX_RB_2D_UNKNOWN_8C01]) {
	case 0:
		break;
	case A6XX_RB_2D_UNKNOWN_8C01_KEEP_STENCIL:
	case A6XX_RB_2D_UNKNOWN_8C01_KEEP_DEPTH:
		if (!cp_is_d24s8(fmt))
			return "partial channel write";
		if (r[REG_A6XX_RB_2D_UNKNOWN_8C01] == A6XX_RB_2D_UNKNOWN_8C01_KEEP_STENCIL)
			j->keep[3] = 0xff;
		else
			memset(j->keep, 0xff, 3);
		j->partial = true;
		break;
	default:
		return "partial channel write";
	}
	if (A6XX_2D_BLIT_CNTL_GET_COLOR_FORMAT(cntl) != fmt)
		return "blit format differs from the destination's";
	struct format_layout l;
	if (!format_layout(fmt, &l))
		return "destination format not modeled";
	uint64_t dst_base = hw_addr64(r[REG_A6XX_RB_2D_DST], r[REG_A6XX_RB_2D_DST_HI]);
	const char *why = surface(&j->dsurf, dst_info, dst_base, A6XX_RB_2D_DST_PITCH_GET_PITCH(r[REG_A6XX_RB_2D_DST_PITCH]),
				  l.cpp, hw_addr64(r[REG_A6XX_RB_2D_DST_FLAGS], r[REG_A6XX_RB_2D_DST_FLAGS_HI]),
				  r[REG_A6XX_RB_2D_DST_FLAGS_PITCH]);
	if (why)
		return why;

	uint32_t tl = r[REG_A6XX_GRAS_2D_DST_TL], br = r[REG_A6XX_GRAS_2D_DST_BR];
	uint32_t x0 = A6XX_REG_XY_GET_X(tl), y0 = A6XX_REG_XY_GET_Y(tl);
	uint32_t x1 = A6XX_REG_XY_GET_X(br), y1 = A6XX_REG_XY_GET_Y(br);
	if (x1 < x0 || y1 < y0)
		return NULL; /* an empty rectangle: nothing to draw */
	uint32_t width = x1 - x0 + 1, height = y1 - y0 + 1;

	uint64_t src_base = 0, src_pitch = 0;
	int32_t sx0 = 0, sy0 = 0;
	if (j->fill) {
		why = pack_fill(cp, cntl, dst_info, &l, j->texel);
		if (why)
			return why;
	} else {
		uint32_t src_info = r[REG_A6XX_SP_PS_2D_SRC_INFO];
		src_base = hw_addr64(r[REG_A6XX_SP_PS_2D_SRC], r[REG_A6XX_SP_PS_2D_SRC_HI]);
		src_pitch = A6XX_SP_PS_2D_SRC_PITCH_GET_PITCH(r[REG_A6XX_SP_PS_2D_SRC_PITCH]);
		why = surface(&j->ssurf, src_info, src_base, src_pitch, l.cpp,
			      hw_addr64(r[REG_A6XX_SP_PS_2D_SRC_FLAGS], r[REG_A6XX_SP_PS_2D_SRC_FLAGS_HI]),
			      r[REG_A6XX_SP_PS_2D_SRC_FLAGS_PITCH]);
		if (why)
			return why;
		if (A6XX_2D_SURF_INFO_GET_COLOR_FORMAT(src_info) != fmt)
			return "copy converts formats";
		uint32_t ss = A6XX_2D_SURF_INFO_GET_COLOR_SWAP(src_info), ds = A6XX_2D_SURF_INFO_GET_COLOR_SWAP(dst_info);
		if (ss != ds) {
			j->swap_rb_bytes = cp_format_swap_rb_bytes(fmt);
			if (!j->swap_rb_bytes || ss > WXYZ || ds > WXYZ)
				return "copy swaps channels";
		}
		if ((src_info ^ dst_info) & A6XX_2D_SURF_INFO_SRGB)
			return "copy between sRGB and linear";
		sx0 = a6xx_gras_2d_src_coord_get(r[REG_A6XX_GRAS_2D_SRC_TL_X]);
		sy0 = a6xx_gras_2d_src_coord_get(r[REG_A6XX_GRAS_2D_SRC_TL_Y]);
		int32_t sx1 = a6xx_gras_2d_src_coord_get(r[REG_A6XX_GRAS_2D_SRC_BR_X]);
		int32_t sy1 = a6xx_gras_2d_src_coord_get(r[REG_A6XX_GRAS_2D_SRC_BR_Y]);
		if (sx0 < 0 || sy0 < 0 || sx1 < sx0 || sy1 < sy0)
			return "negative or flipped source rectangle";
		if ((uint32_t)(sx1 - sx0) + 1 != width || (uint32_t)(sy1 - sy0) + 1 != height)
			return "scaling";
		uint32_t size = r[REG_A6XX_SP_PS_2D_SRC_SIZE];
		if ((uint32_t)sx1 >= A6XX_SP_PS_2D_SRC_SIZE_GET_WIDTH(size) ||
		    (uint32_t)sy1 >= A6XX_SP_PS_2D_SRC_SIZE_GET_HEIGHT(size))
			return "source rectangle outside the source surface (edge clamping)";
	}

	j->cpp = l.cpp;
	j->row_bytes = width * l.cpp;
	j->rows = height;
	j->dst_pitch = A6XX_RB_2D_DST_PITCH_GET_PITCH(r[REG_A6XX_RB_2D_DST_PITCH]);
	j->src_pitch = src_pitch;
	/* Coordinates are at most 2^17, pitches below 2^22, texels 16 bytes: the offsets of the
	 * last byte fit 64 bits with room; only the bases can make an address wrap. */
	uint64_t dst_off = (uint64_t)y0 * j->dst_pitch + (uint64_t)x0 * l.cpp;
	uint64_t dst_span = dst_off + (uint64_t)(height - 1) * j->dst_pitch + j->row_bytes;
	uint64_t src_off = (uint64_t)sy0 * src_pitch + (uint64_t)sx0 * l.cpp;
	uint64_t src_span = src_off + (uint64_t)(height - 1) * src_pitch + j->row_bytes;
	if (dst_base > UINT64_MAX - dst_span || (!j->fill && src_base > UINT64_MAX - src_span))
		return wraps;
	j->dst = dst_base + dst_off;
	j->src = j->fill ? 0 : src_base + src_off;
	j->texelwise = j->dsurf.tiled || (!j->fill && j->ssurf.tiled) || j->swap_rb_bytes || j->partial;
	j->dx0 = x0;
	j->dy0 = y0;
	j->sx0 = (uint32_t)sx0;
	j->sy0 = (uint32_t)sy0;
	j->width = width;
	if (j->texelwise && (cp_surf_wraps(&j->dsurf, x0, y0, width, height) ||
			     (!j->fill && cp_surf_wraps(&j->ssurf, j->sx0, j->sy0, width, height))))
		return wraps;
	return NULL;
}

/* Bytes moved per memory access: a multiple of every texel size up to 16 bytes but 3 and its
 * multiples, which get the largest multiple below it. */
#define CHUNK 4096u

static bool copy_row(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t dst, uint64_t src,
		     uint32_t bytes)
{
	uint8_t buf[CHUNK];
	for (uint32_t done = 0; done < bytes;) {
		uint32_t n = bytes - done < CHUNK ? bytes - done : CHUNK;
		if (!cp_mem_read(m, x, p, src + done, buf, n) || !cp_mem_write(m, x, p, dst + done, buf, n))
			return false;
		done += n;
	}
	return true;
}

static bool fill_row(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, const uint8_t *pattern,
		     uint32_t chunk, uint64_t dst, uint32_t bytes)
{
	for (uint32_t done = 0; done < bytes;) {
		uint32_t n = bytes - done < chunk ? bytes - done : chunk;
		if (!cp_mem_write(m, x, p, dst + done, pattern, n))
			return false;
		done += n;
	}
	return true;
}

/* Every byte the blit will touch, checked before the first write. */
static bool probe(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	const struct cp_blit_job *j = &x->blit;
	if (j->texelwise) {
		return (j->fill || cp_surf_probe(m, x, p, &j->ssurf, j->sx0, j->sy0, j->width, j->rows, false)) &&
		       cp_surf_probe(m, x, p, &j->dsurf, j->dx0, j->dy0, j->width, j->rows, true);
	}
	for (uint32_t row = 0; row < j->rows; row++) {
		if (!j->fill && !cp_mem_probe(m, x, p, j->src + row * j->src_pitch, j->row_bytes, false))
			return false;
		if (!cp_mem_probe(m, x, p, j->dst + row * j->dst_pitch, j->row_bytes, true))
			return false;
	}
	return true;
}

/* One row of a blit with a tiled end, a texel at a time; UBWC destinations get their blocks
 * marked as stored uncompressed. */
static bool texel_row(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t row)
{
	const struct cp_blit_job *j = &x->blit;
	uint8_t texel[16], old[16];
	for (uint32_t i = 0; i < j->width; i++) {
		uint64_t at = cp_surf_texel(&j->dsurf, j->dx0 + i, j->dy0 + row);
		if (j->fill)
			memcpy(texel, j->texel, j->cpp);
		else if (!cp_mem_read(m, x, p, cp_surf_texel(&j->ssurf, j->sx0 + i, j->sy0 + row), texel, j->cpp))
			return false;
		if (j->swap_rb_bytes)
			cp_texel_swap_rb(texel, j->swap_rb_bytes);
		if (j->partial) {
			if (!cp_mem_read(m, x, p, at, old, j->cpp))
				return false;
			for (uint32_t b = 0; b < j->cpp; b++)
				texel[b] = (uint8_t)((old[b] & j->keep[b]) | (texel[b] & ~j->keep[b]));
		}
		if (!cp_mem_write(m, x, p, at, texel, j->cpp))
			return false;
	}
	return cp_surf_flags_mark(m, x, p, &j->dsurf, j->dx0, j->dy0 + row, j->width);
}

/* UBWC ends: 1 when the model can read the source's blocks and write the destination's. */
static int check_flags(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	const struct cp_blit_job *j = &x->blit;
	int ok = j->fill ? 1 : cp_surf_flags_check(m, x, p, &j->ssurf, j->sx0, j->sy0, j->width, j->rows, false);
	if (ok == 1)
		ok = cp_surf_flags_check(m, x, p, &j->dsurf, j->dx0, j->dy0, j->width, j->rows, !j->partial);
	return ok;
}

enum cp_result cp_exec_blit(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x, const struct pkt *p,
			    uint32_t budget, uint32_t *cost)
{
	struct cp_blit_job *j = &x->blit;
	uint64_t *rows_done = &p->frame->progress;
	if (!p->frame->started) {
		uint32_t d0;
		if (p->count < 1)
			return cp_opcode_fault(x, p, "CP_BLIT without an operation");
		if (!cp_payload(m, x, p, 0, 1, &d0))
			return CP_RESULT_FAULT;
		/* Only the a6xx form is modeled: BLIT_OP_SCALE with its state in registers. */
		const char *why = CP_BLIT_0_GET_OP(d0) != BLIT_OP_SCALE ? "not BLIT_OP_SCALE"
				  : p->count != 1                   ? "a5xx-style rectangles in the packet"
								    : decode(cp, x);
		if (why == wraps)
			return cp_opcode_fault(x, p, wraps);
		if (why) {
			cp->skipped[p->opcode]++;
			return cp_unmodeled(cp, x, p, SIM_UNMODELED_ENGINE, "CP_BLIT");
		}
		if (j->rows && !probe(m, x, p))
			return CP_RESULT_FAULT;
		int flags_ok = j->rows ? check_flags(m, x, p) : 1;
		if (flags_ok < 0)
			return CP_RESULT_FAULT;
		if (flags_ok == 0) {
			cp->skipped[p->opcode]++; /* UBWC data the model did not write: compressed */
			return cp_unmodeled(cp, x, p, SIM_UNMODELED_ENGINE, "CP_BLIT of compressed UBWC blocks");
		}
		*rows_done = 0;
	}
	if (!j->rows)
		return CP_RESULT_DONE; /* an empty rectangle */
	uint8_t pattern[CHUNK];
	uint32_t chunk = CHUNK;
	if (j->fill) {
		chunk -= CHUNK % j->cpp;
		for (uint32_t i = 0; i < chunk; i += j->cpp)
			memcpy(pattern + i, j->texel, j->cpp);
	}
	while (*rows_done < j->rows) {
		if (*cost >= budget)
			return CP_RESULT_BUDGET;
		uint64_t dst = j->dst + *rows_done * j->dst_pitch;
		bool ok = j->texelwise ? texel_row(m, x, p, (uint32_t)*rows_done)
			  : j->fill    ? fill_row(m, x, p, pattern, chunk, dst, j->row_bytes)
				       : copy_row(m, x, p, dst, j->src + *rows_done * j->src_pitch, j->row_bytes);
		if (!ok)
			return CP_RESULT_FAULT;
		(*rows_done)++;
		*cost += 1 + j->row_bytes / 4;
	}
	return CP_RESULT_DONE;
}
