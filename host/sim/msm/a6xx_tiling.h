/* a6xx surface addressing: where the TILE6_3 layout puts a texel, and where the model keeps a
 * UBWC surface's per-block flag byte (a6xx_tiling.c says what is hardware fact and what is the
 * model's own choice). Pure functions, shared by the 2D engine and GMEM resolves. */
#ifndef FERRY_SIM_A6XX_TILING_H
#define FERRY_SIM_A6XX_TILING_H

#include <stdbool.h>
#include <stdint.h>

/* The simulated a630's UBWC / bank configuration (the kernel's a6xx defaults for it): highest
 * bank bit 15, bank swizzle levels 2 and 3 (UBWC 2.0 has no level 1), 4-channel macrotiles. */
#define A6XX_SIM_HIGHEST_BANK_BIT 15u
#define A6XX_SIM_BANK_SWIZZLE_LEVELS 0x6u

/* The flag byte the model writes for a block it stored uncompressed (see a6xx_tiling.c). */
#define A6XX_UBWC_FLAG_UNCOMPRESSED 0x00u

/* A TILE6_3 surface of one sample: texel size and row pitch, decoded once. */
struct a6xx_tile3 {
	uint32_t cpp;
	uint32_t bw_log2, bh_log2; /* the 256-byte block, in texels */
	uint64_t pitch;            /* bytes per texel row */
	uint64_t mt_row_bytes;     /* one row of macrotiles: pitch * 4 block heights */
	uint32_t bank_mask;        /* bits of the macrotile row index XORed at the highest bank bit */
};

/* Sets up t; false (t untouched) when the TILE6_3 layout has no form for this texel size (only
 * 1, 2, 4, 8 and 16 bytes) or the pitch is not a whole number of macrotiles (4 blocks) wide. */
bool a6xx_tile3_init(struct a6xx_tile3 *t, uint32_t cpp, uint64_t pitch);
/* The pitch granule: one macrotile's width in bytes (128 for cpp 1, else 256); 0 if cpp has no
 * TILE6_3 form. */
uint32_t a6xx_tile3_pitch_align(uint32_t cpp);
/* Byte offset of texel (x, y) from the surface base. The texel's cpp bytes are contiguous. */
uint64_t a6xx_tile3_offset(const struct a6xx_tile3 *t, uint32_t x, uint32_t y);

/* The UBWC block one flag byte covers (fd6_layout's ubwc block): 16x4 for cpp 1, 2, 4; 8x4 for
 * 8; 4x4 for 16. false for other sizes. */
bool a6xx_ubwc_block(uint32_t cpp, uint32_t *w, uint32_t *h);
/* Offset of the flag byte of the block holding texel (x, y) from the flag buffer base, with
 * flag_pitch bytes per row of blocks (the *_FLAGS_PITCH register's PITCH). */
uint64_t a6xx_ubwc_flag_offset(uint32_t cpp, uint64_t flag_pitch, uint32_t x, uint32_t y);

#endif
