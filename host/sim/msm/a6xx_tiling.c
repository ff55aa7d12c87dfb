/* a6xx TILE6_3 texel addressing and the model's UBWC flag-buffer representation.
 *
 * TILE6_3, from the public description of the layout (Mesa's fd6_tiled_memcpy.cc, fd6_layout.c
 * and the kernel's a6xx UBWC configuration), in four levels:
 *  1. A 256-byte block of 32x8 (cpp 1), 32x4 (2), 16x4 (4), 8x4 (8) or 4x4 (16) texels. Inside
 *     it the texel index interleaves coordinate bits, low to high: x0 y0 x1 y1 x2 x3 x4 y2 (only
 *     as many bits as the block has).
 *  2. Blocks pair into 2 KiB half-macrotiles of 2x4 blocks, the block's 3-bit index being
 *     b0 = x0^y1, b1 = x0^y0^y1, b2 = x0^y0 (block coordinates), and for cpp < 16 in the
 *     4-channel macrotile mode the a630 uses, b1 ^= x1. Half-macrotiles follow each other along
 *     the row: bx >> 1 counts them in units of 2 KiB.
 *  3. Rows of macrotiles (4 blocks high) follow at pitch * 4 block heights.
 *  4. Bank swizzle: when the number of 4 KiB macrotiles per row is a multiple of
 *     2^(hbb - 12) (level 2) or 2^(hbb - 11) (level 3) (one more for cpp 1), bit 0 resp. bit 1
 *     of the macrotile row index is XORed into byte-offset bit hbb - 1 resp. hbb; the a630 runs
 *     with hbb = 15 and levels 2 and 3 (UBWC 2.0 dropped level 1).
 * The R8G8-with-UBWC 16x8 block special case of real hardware is not reproduced: the model
 * stores every cpp-2 surface with the generic 32x4 block, which only the model itself reads.
 *
 * UBWC: real compression is proprietary. The model stores a UBWC surface uncompressed, in the
 * TILE6_3 layout at its base (where real hardware puts the data of an uncompressed block too),
 * and writes A6XX_UBWC_FLAG_UNCOMPRESSED into the flag byte of every block it writes. Its flag
 * buffer layout is its own: one byte per UBWC block, row-major at the *_FLAGS_PITCH pitch, which
 * stays inside the area fd6_layout allocates (pitch x rows aligned to 16). A read meeting any
 * other flag value meets data the model cannot decode: the blit is counted, not executed. */
#include "a6xx_tiling.h"

static bool block_log2(uint32_t cpp, uint32_t *w, uint32_t *h)
{
	switch (cpp) {
	case 1: *w = 5; *h = 3; return true;
	case 2: *w = 5; *h = 2; return true;
	case 4: *w = 4; *h = 2; return true;
	case 8: *w = 3; *h = 2; return true;
	case 16: *w = 2; *h = 2; return true;
	default: return false;
	}
}

uint32_t a6xx_tile3_pitch_align(uint32_t cpp)
{
	uint32_t w, h;
	if (!block_log2(cpp, &w, &h))
		return 0;
	return (4u << w) * cpp;
}

bool a6xx_tile3_init(struct a6xx_tile3 *t, uint32_t cpp, uint64_t pitch)
{
	uint32_t w, h;
	if (!block_log2(cpp, &w, &h))
		return false;
	uint32_t granule = (4u << w) * cpp;
	if (pitch == 0 || pitch % granule)
		return false;
	/* Macrotiles (4 KiB) per row; cpp 1 needs twice the alignment for each level. */
	uint64_t stride = pitch / granule;
	uint32_t extra = cpp == 1 ? 1 : 0, hbb = A6XX_SIM_HIGHEST_BANK_BIT;
	uint32_t mask = 0;
	if ((A6XX_SIM_BANK_SWIZZLE_LEVELS & 0x2) && stride % (1ull << (hbb - 12 + extra)) == 0)
		mask |= 1;
	if ((A6XX_SIM_BANK_SWIZZLE_LEVELS & 0x4) && stride % (1ull << (hbb - 11 + extra)) == 0)
		mask |= 2;
	if ((A6XX_SIM_BANK_SWIZZLE_LEVELS & 0x1) && stride % (1ull << (hbb - 10 + extra)) == 0)
		mask |= 4;
	*t = (struct a6xx_tile3){ .cpp = cpp, .bw_log2 = w, .bh_log2 = h, .pitch = pitch,
				  .mt_row_bytes = pitch << (h + 2), .bank_mask = mask };
	return true;
}

uint64_t a6xx_tile3_offset(const struct a6xx_tile3 *t, uint32_t x, uint32_t y)
{
	uint32_t bx = x >> t->bw_log2, by = y >> t->bh_log2;
	uint32_t px = x & ((1u << t->bw_log2) - 1), py = y & ((1u << t->bh_log2) - 1);
	uint32_t texel = (px & 1) | (py & 1) << 1 | (px >> 1 & 1) << 2 | (py >> 1 & 1) << 3 | (px >> 2 & 7) << 4 |
			 (py >> 2 & 1) << 7;
	uint32_t x0 = bx & 1, x1 = bx >> 1 & 1, y0 = by & 1, y1 = by >> 1 & 1;
	uint32_t b0 = x0 ^ y1, b1 = x0 ^ y0 ^ y1, b2 = x0 ^ y0;
	if (t->cpp < 16)
		b1 ^= x1;
	uint64_t mt_row = by >> 2;
	uint64_t in_row = ((uint64_t)(bx >> 1) << 11 | (uint64_t)(b0 | b1 << 1 | b2 << 2) << 8) ^
			  ((mt_row & t->bank_mask) << (A6XX_SIM_HIGHEST_BANK_BIT - 1));
	return mt_row * t->mt_row_bytes + in_row + (uint64_t)texel * t->cpp;
}

bool a6xx_ubwc_block(uint32_t cpp, uint32_t *w, uint32_t *h)
{
	switch (cpp) {
	case 1: case 2: case 4: *w = 16; *h = 4; return true;
	case 8: *w = 8; *h = 4; return true;
	case 16: *w = 4; *h = 4; return true;
	default: return false;
	}
}

uint64_t a6xx_ubwc_flag_offset(uint32_t cpp, uint64_t flag_pitch, uint32_t x, uint32_t y)
{
	uint32_t w = 16, h = 4;
	a6xx_ubwc_block(cpp, &w, &h);
	return (uint64_t)(y / h) * flag_pitch + x / w;
}
