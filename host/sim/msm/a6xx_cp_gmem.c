/* CP model: GMEM and CP_EVENT_WRITE(BLIT), the resolve engine of a GMEM render pass - clears of
 * a GMEM attachment, loads (system memory -> GMEM) and stores (GMEM -> linear, TILE6_3 or UBWC
 * system memory), programmed through RB_BLIT_* as Turnip's tu_emit_blit /
 * clear_gmem_attachment and freedreno's fd6_gmem.c do.
 *
 * The GMEM a submit sees is its own (allocated at its first BLIT, zeroed, freed with it): real
 * GMEM contents do not survive a submit usefully, and sharing it would leak one context's pixels
 * to another. Its internal layout is invisible to software, so the model picks a simple one: an
 * attachment at RB_BLIT_BASE_GMEM holds the current bin (RB_BIN_CONTROL2 BINW x BINH texels,
 * whose screen origin is RB_WINDOW_OFFSET2) row by row at BINW * cpp bytes per row - the space
 * Turnip and freedreno reserve for it.
 *
 * Modeled: single-sample attachments of any format the 2D model knows the texel size of; the
 * rectangle RB_BLIT_SCISSOR_TL/BR (inclusive, screen coordinates) clipped to the bin; clears of the
 * packed value in RB_BLIT_CLEAR_COLOR_DW0.. (the first cpp bytes) under their mask (whole
 * channels; D24S8's depth is its low three bytes, stencil the top one); loads and stores moving
 * texels as they are, R and B exchanged for a WXYZ memory format (GMEM is always WZYX).
 * RB_BLIT_DST_INFO's format gives the texel size on both sides. Not executed, counted in
 * skipped[CP_EVENT_WRITE], nothing written: MSAA, masks of packed formats, STORE_AND_CLEAR,
 * ZYXW / XYZW swaps, a bin outside GMEM, surfaces the 2D model refuses. */
#include <stdlib.h>
#include <string.h>

#include "a6xx_cp_internal.h"
#include "ferry/hw/a6xx_regs.h"

struct gmem_op {
	uint32_t type, cpp, x0, y0, w, h;
	uint64_t gmem_off, gmem_pitch; /* byte offset of texel (x0, y0) in GMEM, bytes per row */
	uint8_t keep[16];              /* clear: bytes of each texel the mask preserves (0xff) */
	uint32_t swap_rb_bytes;        /* load / store: memory is WXYZ, GMEM WZYX */
	struct cp_surf surf;           /* load / store */
};

/* The bytes of each texel a clear keeps, from RB_BLIT_INFO. With DEPTH (freedreno) the mask is
 * depth (1) and stencil (2); without it (Turnip, and colour) it is per channel, which for D24S8
 * means 0x7 depth and 0x8 stencil. */
static const char *clear_mask(uint32_t info, uint32_t fmt, struct gmem_op *op)
{
	uint32_t mask = A6XX_RB_BLIT_INFO_GET_CLEAR_MASK(info);
	if (info & A6XX_RB_BLIT_INFO_DEPTH) {
		if (!cp_is_d24s8(fmt))
			return mask ? NULL : "depth clear without a mask";
		if (!(mask & 0x1))
			memset(op->keep, 0xff, 3);
		if (!(mask & 0x2))
			op->keep[3] = 0xff;
		return NULL;
	}
	if (mask == 0xf)
		return NULL;
	uint32_t channels, bytes;
	if (!cp_format_channels(fmt, &channels, &bytes))
		return "partial clear of a packed format";
	for (uint32_t c = 0; c < channels; c++)
		if (!(mask & (1u << c)))
			memset(op->keep + c * bytes, 0xff, bytes);
	return NULL;
}

static const char *decode(const struct cp_device *cp, struct gmem_op *op)
{
	const uint32_t *r = cp->regs;
	uint32_t info = r[REG_A6XX_RB_BLIT_INFO], dst_info = r[REG_A6XX_RB_BLIT_DST_INFO];
	*op = (struct gmem_op){ .type = A6XX_RB_BLIT_INFO_GET_TYPE(info) };
	if (op->type == BLIT_EVENT_STORE_AND_CLEAR)
		return "store and clear";
	if (A6XX_RB_BLIT_DST_INFO_GET_SAMPLES(dst_info) != MSAA_ONE ||
	    A6XX_RB_MSAA_CNTL_GET_SAMPLES(r[REG_A6XX_RB_MSAA_CNTL]) != MSAA_ONE)
		return "multisampled GMEM blit";
	uint32_t fmt = A6XX_RB_BLIT_DST_INFO_GET_COLOR_FORMAT(dst_info);
	op->cpp = cp_format_cpp(fmt);
	if (!op->cpp)
		return "format not modeled";

	uint32_t bin = r[REG_A6XX_RB_BIN_CONTROL2], win = r[REG_A6XX_RB_WINDOW_OFFSET2];
	uint32_t bw = A6XX_RB_BIN_CONTROL2_GET_BINW(bin), bh = A6XX_RB_BIN_CONTROL2_GET_BINH(bin);
	uint32_t wx = A6XX_REG_XY_GET_X(win), wy = A6XX_REG_XY_GET_Y(win);
	uint32_t tl = r[REG_A6XX_RB_BLIT_SCISSOR_TL], br = r[REG_A6XX_RB_BLIT_SCISSOR_BR];
	uint32_t x0 = A6XX_REG_XY_GET_X(tl), y0 = A6XX_REG_XY_GET_Y(tl);
	uint32_t x1 = A6XX_REG_XY_GET_X(br), y1 = A6XX_REG_XY_GET_Y(br);
	/* The hardware clips the blit to the bin: drivers set the scissor to the render area for
	 * every bin of the pass. */
	if (bw == 0 || bh == 0)
		return NULL; /* an empty bin: nothing to do (w = h = 0) */
	uint32_t bx1 = wx + bw - 1, by1 = wy + bh - 1; /* at most 2^14 + 2^11: no wrap */
	x0 = x0 > wx ? x0 : wx;
	y0 = y0 > wy ? y0 : wy;
	x1 = x1 < bx1 ? x1 : bx1;
	y1 = y1 < by1 ? y1 : by1;
	if (x1 < x0 || y1 < y0)
		return NULL; /* the scissor misses this bin */
	/* bw <= 2016, bh <= 2032, cpp <= 16: the bin's bytes fit 32 bits. */
	uint64_t base = A6XX_RB_BLIT_BASE_GMEM_GET(r[REG_A6XX_RB_BLIT_BASE_GMEM]);
	op->gmem_pitch = (uint64_t)bw * op->cpp;
	if (base + op->gmem_pitch * bh > cp->gmem_size)
		return "bin outside GMEM";
	op->x0 = x0;
	op->y0 = y0;
	op->w = x1 - x0 + 1;
	op->h = y1 - y0 + 1;
	op->gmem_off = base + (uint64_t)(y0 - wy) * op->gmem_pitch + (uint64_t)(x0 - wx) * op->cpp;

	if (op->type == BLIT_EVENT_CLEAR)
		return clear_mask(info, fmt, op);
	switch (A6XX_RB_BLIT_DST_INFO_GET_COLOR_SWAP(dst_info)) {
	case WZYX:
		break;
	case WXYZ: /* GMEM holds R first; memory B first */
		op->swap_rb_bytes = cp_format_swap_rb_bytes(fmt);
		if (op->swap_rb_bytes)
			break;
		return "channel swap of this format";
	default:
		return "ZYXW / XYZW channel swap";
	}
	uint64_t dst = hw_addr64(r[REG_A6XX_RB_BLIT_DST], r[REG_A6XX_RB_BLIT_DST_HI]);
	const char *why = cp_surf_init(&op->surf, A6XX_RB_BLIT_DST_INFO_GET_TILE_MODE(dst_info),
				       dst_info & A6XX_RB_BLIT_DST_INFO_FLAGS, dst,
				       A6XX_RB_BLIT_DST_PITCH_GET_PITCH(r[REG_A6XX_RB_BLIT_DST_PITCH]), op->cpp,
				       hw_addr64(r[REG_A6XX_RB_BLIT_FLAG_DST], r[REG_A6XX_RB_BLIT_FLAG_DST_HI]),
				       A6XX_FLAG_BUFFER_PITCH_GET_PITCH(r[REG_A6XX_RB_BLIT_FLAG_DST_PITCH]));
	if (why)
		return why;
	if (cp_surf_wraps(&op->surf, x0, y0, op->w, op->h))
		return "GMEM blit surface wraps the address space";
	return NULL;
}

void cp_exec_fini(struct cp_exec *x)
{
	free(x->gmem);
	x->gmem = NULL;
}

static enum cp_result unmodeled(struct cp_device *cp, struct cp_exec *x, const struct pkt *p)
{
	cp->skipped[p->opcode]++;
	return cp_unmodeled(cp, x, p, SIM_UNMODELED_ENGINE, "CP_EVENT_WRITE(BLIT)");
}

enum cp_result cp_exec_gmem_blit(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				 const struct pkt *p, uint32_t *cost)
{
	struct gmem_op op;
	if (decode(cp, &op))
		return unmodeled(cp, x, p);
	if (!op.w)
		return CP_RESULT_DONE;
	if (!x->gmem) {
		x->gmem = calloc(1, cp->gmem_size);
		if (!x->gmem)
			return unmodeled(cp, x, p);
	}
	uint8_t *g = x->gmem + op.gmem_off;
	if (op.type == BLIT_EVENT_CLEAR) {
		uint32_t dw[4];
		for (unsigned i = 0; i < 4; i++)
			dw[i] = cp->regs[REG_A6XX_RB_BLIT_CLEAR_COLOR_DW0 + i];
		uint8_t texel[16];
		memcpy(texel, dw, sizeof(texel)); /* little-endian host: the dwords' bytes in order */
		for (uint32_t y = 0; y < op.h; y++) {
			uint8_t *row = g + y * op.gmem_pitch;
			for (uint32_t i = 0; i < op.w; i++)
				for (uint32_t b = 0; b < op.cpp; b++)
					row[i * op.cpp + b] = (uint8_t)((row[i * op.cpp + b] & op.keep[b]) |
									(texel[b] & ~op.keep[b]));
		}
		*cost += (uint32_t)(op.w * op.h * op.cpp / 4);
		return CP_RESULT_DONE;
	}
	bool store = op.type == BLIT_EVENT_STORE;
	if (!cp_surf_probe(m, x, p, &op.surf, op.x0, op.y0, op.w, op.h, store))
		return CP_RESULT_FAULT;
	int flags = cp_surf_flags_check(m, x, p, &op.surf, op.x0, op.y0, op.w, op.h, store);
	if (flags < 0)
		return CP_RESULT_FAULT;
	if (flags == 0)
		return unmodeled(cp, x, p); /* UBWC blocks the model did not write */
	for (uint32_t y = 0; y < op.h; y++) {
		uint8_t *row = g + y * op.gmem_pitch;
		for (uint32_t i = 0; i < op.w; i++) {
			uint64_t at = cp_surf_texel(&op.surf, op.x0 + i, op.y0 + y);
			uint8_t texel[16];
			if (store) {
				memcpy(texel, row + i * op.cpp, op.cpp);
				if (op.swap_rb_bytes)
					cp_texel_swap_rb(texel, op.swap_rb_bytes);
				if (!cp_mem_write(m, x, p, at, texel, op.cpp))
					return CP_RESULT_FAULT;
			} else {
				if (!cp_mem_read(m, x, p, at, texel, op.cpp))
					return CP_RESULT_FAULT;
				if (op.swap_rb_bytes)
					cp_texel_swap_rb(texel, op.swap_rb_bytes);
				memcpy(row + i * op.cpp, texel, op.cpp);
			}
		}
		if (store && !cp_surf_flags_mark(m, x, p, &op.surf, op.x0, op.y0 + y, op.w))
			return CP_RESULT_FAULT;
	}
	*cost += (uint32_t)(op.w * op.h * op.cpp / 4);
	return CP_RESULT_DONE;
}
