/* CP model: CP_BLIT(BLIT_OP_SCALE), the a6xx 2D engine behind Turnip's vkCmdCopyBuffer,
 * vkCmdFillBuffer, vkCmdUpdateBuffer and its r2d image copies and clears (tu_clear_blit.c).
 *
 * The blit takes everything from registers (a6xx.xml names as Mesa 22.3 has them):
 * RB_2D_BLIT_CNTL / GRAS_2D_BLIT_CNTL (solid-color bit, format, channel mask, intermediate
 * format), RB_2D_DST_INFO / RB_2D_DST / RB_2D_DST_PITCH, SP_PS_2D_SRC_INFO / _SIZE / SP_PS_2D_SRC /
 * _PITCH, the inclusive rectangles GRAS_2D_DST_TL/BR and GRAS_2D_SRC_TL_X..BR_Y, and for a fill
 * the per-channel clear value RB_2D_SRC_SOLID_C0..C3.
 *
 * Modeled: linear (TILE6_LINEAR), single-sample surfaces without UBWC flags, 64-byte aligned
 * bases, no rotation, scissor or channel masking, and either
 *   - a copy between surfaces of the same format, swap and sRGB-ness with equal source and
 *     destination rectangles: each texel's bytes move as they are (the format conversion the
 *     engine does through its intermediate format is lossless when both ends agree), or
 *   - a solid fill of a format with equal-width channels whose width the intermediate format
 *     carries as it is (8-bit channels: R2D_UNORM8 / _SRGB / INT8, 16-bit: FLOAT16 / INT16,
 *     32-bit: FLOAT32 / INT32): each channel's clear value truncated to the channel, in the
 *     order the WZYX (R, G, B, A) or WXYZ (B, G, R, A) swap puts them. Turnip packs those values
 *     itself (r2d_clear_value), sRGB-encoding them for sRGB formats, so the engine stores them.
 * Anything else (tiled or UBWC surfaces, scaling, format conversion, MSAA, partial channel
 * writes, CP_BLIT ops other than BLIT_OP_SCALE) is not executed: the packet is counted as
 * skipped, like other packets the model cannot reproduce, and memory is left untouched.
 *
 * Every row the blit reads or writes is checked through the context's address space before the
 * first byte moves, so a blit that runs outside its buffer objects is a GPU fault that wrote
 * nothing. Rows are the unit of work: a large blit spans slices. */
#include <string.h>

#include "cp_internal.h"
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
 * SP_PS_2D_SRC_*). */
static const struct {
	uint32_t first, count;
} state_2d[] = {
	{ REG_A6XX_GRAS_2D_BLIT_CNTL, REG_A6XX_GRAS_2D_DST_BR - REG_A6XX_GRAS_2D_BLIT_CNTL + 1 },
	{ REG_A6XX_RB_2D_BLIT_CNTL, REG_A6XX_RB_2D_SRC_SOLID_C3 - REG_A6XX_RB_2D_BLIT_CNTL + 1 },
	{ REG_A6XX_SP_2D_DST_FORMAT, 1 },
	{ REG_A6XX_SP_PS_2D_SRC_INFO, REG_A6XX_SP_PS_2D_SRC_FLAGS_PITCH - REG_A6XX_SP_PS_2D_SRC_INFO + 1 },
};
_Static_assert(REG_A6XX_GRAS_2D_DST_BR - REG_A6XX_GRAS_2D_BLIT_CNTL + 1 +
		       REG_A6XX_RB_2D_SRC_SOLID_C3 - REG_A6XX_RB_2D_BLIT_CNTL + 1 + 1 +
		       REG_A6XX_SP_PS_2D_SRC_FLAGS_PITCH - REG_A6XX_SP_PS_2D_SRC_INFO + 1 ==
	       CP_2D_STATE_REGS, "CP_2D_STATE_REGS covers the 2D ranges");

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
	case FMT6_Z24_UNORM_S8_UINT:
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
	bool carried;
	switch (l->channel_bits) {
	case 8:
		carried = is_int ? ifmt == R2D_INT8 : (ifmt == R2D_UNORM8 || ifmt == R2D_UNORM8_SRGB);
		break;
	case 16:
		carried = is_int ? ifmt == R2D_INT16 : (l->type == CH_FLOAT && ifmt == R2D_FLOAT16);
		break;
	default:
		carried = is_int ? ifmt == R2D_INT32 : (l->type == CH_FLOAT && ifmt == R2D_FLOAT32);
		break;
	}
	if (!carried)
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
		for (uint32_t b = 0; b < bytes; b++)
			texel[slot_of[c] * bytes + b] = (uint8_t)(v >> (8 * b));
	}
	return NULL;
}

static const char *surface_unmodeled(uint32_t info, uint64_t base)
{
	if (A6XX_2D_SURF_INFO_GET_TILE_MODE(info) != TILE6_LINEAR)
		return "tiled surface";
	if (info & A6XX_2D_SURF_INFO_FLAGS)
		return "UBWC surface";
	if (A6XX_2D_SURF_INFO_GET_SAMPLES(info) != MSAA_ONE)
		return "multisampled surface";
	if (base & 63u)
		return "surface base not 64-byte aligned";
	return NULL;
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
	if (cntl & A6XX_2D_BLIT_CNTL_D24S8)
		return "D24S8 blit";
	if (A6XX_2D_BLIT_CNTL_GET_MASK(cntl) != 0xfu || r[REG_A6XX_RB_2D_UNKNOWN_8C01] != 0)
		return "partial channel write";
	uint32_t fmt = A6XX_2D_SURF_INFO_GET_COLOR_FORMAT(dst_info);
	if (A6XX_2D_BLIT_CNTL_GET_COLOR_FORMAT(cntl) != fmt)
		return "blit format differs from the destination's";
	struct format_layout l;
	if (!format_layout(fmt, &l))
		return "destination format not modeled";
	uint64_t dst_base = addr64(r[REG_A6XX_RB_2D_DST], r[REG_A6XX_RB_2D_DST_HI]);
	const char *why = surface_unmodeled(dst_info, dst_base);
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
		src_base = addr64(r[REG_A6XX_SP_PS_2D_SRC], r[REG_A6XX_SP_PS_2D_SRC_HI]);
		why = surface_unmodeled(src_info, src_base);
		if (why)
			return why;
		if (A6XX_2D_SURF_INFO_GET_COLOR_FORMAT(src_info) != fmt)
			return "copy converts formats";
		if (A6XX_2D_SURF_INFO_GET_COLOR_SWAP(src_info) != A6XX_2D_SURF_INFO_GET_COLOR_SWAP(dst_info))
			return "copy swaps channels";
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
		src_pitch = A6XX_SP_PS_2D_SRC_PITCH_GET_PITCH(r[REG_A6XX_SP_PS_2D_SRC_PITCH]);
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

/* Every row the blit will touch, checked before the first write. */
static bool probe(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	const struct cp_blit_job *j = &x->blit;
	for (uint32_t row = 0; row < j->rows; row++) {
		if (!j->fill && !cp_mem_probe(m, x, p, j->src + row * j->src_pitch, j->row_bytes, false))
			return false;
		if (!cp_mem_probe(m, x, p, j->dst + row * j->dst_pitch, j->row_bytes, true))
			return false;
	}
	return true;
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
		if (!probe(m, x, p))
			return CP_RESULT_FAULT;
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
		bool ok = j->fill ? fill_row(m, x, p, pattern, chunk, dst, j->row_bytes)
				  : copy_row(m, x, p, dst, j->src + *rows_done * j->src_pitch, j->row_bytes);
		if (!ok)
			return CP_RESULT_FAULT;
		(*rows_done)++;
		*cost += 1 + j->row_bytes / 4;
	}
	return CP_RESULT_DONE;
}
