/* CP model: surfaces as the 2D engine and GMEM resolves address them - linear, TILE6_3 and UBWC
 * (TILE6_3 plus a flag buffer, in the model's own representation: see a6xx_tiling.c) - and the
 * checks a blit makes on them before its first write. */
#include <stddef.h>

#include "a6xx_cp_internal.h"
#include "ferry/hw/a6xx_regs.h"

const char *cp_surf_init(struct cp_surf *s, uint32_t tile_mode, bool ubwc, uint64_t base, uint64_t pitch,
			 uint32_t cpp, uint64_t flags, uint64_t flag_pitch)
{
	*s = (struct cp_surf){ .base = base, .pitch = pitch, .cpp = cpp };
	if (base & 63u)
		return "surface base not 64-byte aligned";
	if (tile_mode == TILE6_LINEAR)
		return ubwc ? "UBWC flags on a linear surface" : NULL;
	if (tile_mode != TILE6_3)
		return "tile mode other than TILE6_3";
	if (!a6xx_tile3_init(&s->t, cpp, pitch))
		return "tiled surface of this texel size or pitch";
	s->tiled = true;
	if (ubwc) {
		uint32_t bw, bh;
		if (!a6xx_ubwc_block(cpp, &bw, &bh) || flag_pitch == 0)
			return "UBWC surface without a flag layout";
		s->ubwc = true;
		s->flags = flags;
		s->flag_pitch = flag_pitch;
		s->ubwc_bw = bw;
		s->ubwc_bh = bh;
	}
	return NULL;
}

uint64_t cp_surf_texel(const struct cp_surf *s, uint32_t x, uint32_t y)
{
	if (!s->tiled)
		return s->base + (uint64_t)y * s->pitch + (uint64_t)x * s->cpp;
	return s->base + a6xx_tile3_offset(&s->t, x, y);
}

/* Tiled surfaces are checked a whole macrotile row at a time: a texel's bytes lie inside its
 * macrotile row (the bank swizzle only applies when the row is wide enough to hold it). */
static uint64_t first_mt_row(const struct cp_surf *s, uint32_t y)
{
	return (uint64_t)(y >> s->t.bh_log2 >> 2);
}

bool cp_surf_wraps(const struct cp_surf *s, uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
	uint64_t end;
	if (!s->tiled)
		end = (uint64_t)(y + h - 1) * s->pitch + (uint64_t)(x + w) * s->cpp;
	else
		end = (first_mt_row(s, y + h - 1) + 1) * s->t.mt_row_bytes;
	if (s->base > UINT64_MAX - end)
		return true;
	if (s->ubwc) {
		uint64_t fend = (uint64_t)((y + h - 1) / s->ubwc_bh) * s->flag_pitch + (x + w - 1) / s->ubwc_bw + 1;
		if (s->flags > UINT64_MAX - fend)
			return true;
	}
	return false;
}

bool cp_surf_probe(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, const struct cp_surf *s,
		   uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, bool write)
{
	if (!s->tiled) {
		for (uint32_t row = 0; row < h; row++)
			if (!cp_mem_probe(m, x, p, cp_surf_texel(s, x0, y0 + row), (uint64_t)w * s->cpp, write))
				return false;
		return true;
	}
	for (uint64_t r = first_mt_row(s, y0); r <= first_mt_row(s, y0 + h - 1); r++)
		if (!cp_mem_probe(m, x, p, s->base + r * s->t.mt_row_bytes, s->t.mt_row_bytes, write))
			return false;
	if (s->ubwc) {
		uint32_t fx0 = x0 / s->ubwc_bw, fx1 = (x0 + w - 1) / s->ubwc_bw;
		for (uint32_t fy = y0 / s->ubwc_bh; fy <= (y0 + h - 1) / s->ubwc_bh; fy++)
			if (!cp_mem_probe(m, x, p, s->flags + fy * s->flag_pitch + fx0, fx1 - fx0 + 1, write))
				return false;
	}
	return true;
}

int cp_surf_flags_check(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, const struct cp_surf *s,
			uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, bool overwrite)
{
	if (!s->ubwc)
		return 1;
	uint8_t row[1024];
	uint32_t fx0 = x0 / s->ubwc_bw, fx1 = (x0 + w - 1) / s->ubwc_bw;
	for (uint32_t fy = y0 / s->ubwc_bh; fy <= (y0 + h - 1) / s->ubwc_bh; fy++) {
		bool full_y = fy * s->ubwc_bh >= y0 && (fy + 1) * s->ubwc_bh <= y0 + h;
		for (uint32_t fx = fx0; fx <= fx1; fx += sizeof(row)) {
			uint32_t n = fx1 - fx + 1 < sizeof(row) ? fx1 - fx + 1 : (uint32_t)sizeof(row);
			if (!cp_mem_read(m, x, p, s->flags + fy * s->flag_pitch + fx, row, n))
				return -1;
			for (uint32_t i = 0; i < n; i++) {
				uint32_t bx = fx + i;
				bool full = full_y && bx * s->ubwc_bw >= x0 && (bx + 1) * s->ubwc_bw <= x0 + w;
				/* A block written over entirely needs nothing of what it held. */
				if (row[i] != A6XX_UBWC_FLAG_UNCOMPRESSED && !(overwrite && full))
					return 0;
			}
		}
	}
	return 1;
}

bool cp_surf_flags_mark(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, const struct cp_surf *s,
			uint32_t x0, uint32_t y, uint32_t w)
{
	if (!s->ubwc)
		return true;
	static const uint8_t marks[1024] = { A6XX_UBWC_FLAG_UNCOMPRESSED };
	_Static_assert(A6XX_UBWC_FLAG_UNCOMPRESSED == 0, "marks[] is all flag values");
	uint32_t fx0 = x0 / s->ubwc_bw, fx1 = (x0 + w - 1) / s->ubwc_bw;
	uint64_t at = s->flags + (uint64_t)(y / s->ubwc_bh) * s->flag_pitch;
	for (uint32_t fx = fx0; fx <= fx1; fx += sizeof(marks)) {
		uint32_t n = fx1 - fx + 1 < sizeof(marks) ? fx1 - fx + 1 : (uint32_t)sizeof(marks);
		if (!cp_mem_write(m, x, p, at + fx, marks, n))
			return false;
	}
	return true;
}
