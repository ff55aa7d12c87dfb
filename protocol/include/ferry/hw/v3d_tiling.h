/* V3D 4.2 / 7.1 surface memory layouts shared by the TLB (tile load/store general) and the TFU:
 * where pixel (x, y) of a surface lies in memory for RASTER, LINEARTILE, UBLINEAR (1 and 2
 * columns) and UIF (with and without the bank XOR), and the UIF padding / XOR choice the drivers
 * make. The layouts, in the hardware's terms:
 *   - utile: 64 bytes of pixels in raster order; 8x8 at 1 byte per pixel, 8x4 at 2, 4x4 at 4,
 *     4x2 at 8, 2x2 at 16.
 *   - LINEARTILE: utiles one after the other along a single row or a single column of utiles
 *     (utile index = x / utile width + y / utile height): the drivers pick it only for surfaces
 *     one utile wide or one utile high.
 *   - UIF block: 2x2 utiles, 256 bytes: top-left, top-right, bottom-left, bottom-right.
 *   - UBLINEAR: UIF blocks in raster order, rows 1 or 2 blocks wide.
 *   - UIF: columns 4 blocks wide; inside a column, rows of 4 blocks one after the other, for the
 *     padded height of the surface (in blocks); columns one after the other. With XOR, odd
 *     columns have bit 4 of their block row flipped (16 block rows = 16 KiB, half the 8-bank x
 *     4 KiB page cache), so vertically adjacent columns start in other banks.
 * Source: Mesa src/broadcom/common/v3d_tiling.c, v3d_resource.c and v3dv_image.c (read for the
 * facts only). */
#ifndef FERRY_HW_V3D_TILING_H
#define FERRY_HW_V3D_TILING_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/hw/v3d_cl.h" /* enum v3d_cl_memory_format: the layout codes */

#define V3D_UTILE_BYTES 64u
#define V3D_UIF_BLOCK_BYTES 256u
#define V3D_UIF_COLUMN_BLOCKS 4u          /* a UIF column is 4 blocks wide */
#define V3D_UIF_XOR_BLOCK_ROW_BIT 0x10u   /* the block-row bit odd columns flip */
#define V3D_PAGE_CACHE_UB_ROWS 32u        /* 8 banks x 4 KiB / 1 KiB per row of 4 blocks */
#define V3D_PAGE_UB_ROWS 4u               /* 4 KiB / 1 KiB */

/* Utile size in pixels for 1, 2, 4, 8, 16 bytes per pixel; 0 for another size. */
uint32_t v3d_utile_width(uint32_t cpp);
uint32_t v3d_utile_height(uint32_t cpp);

struct v3d_surface {
	enum v3d_cl_memory_format layout;
	uint32_t cpp;           /* bytes per pixel */
	uint32_t stride;        /* RASTER: bytes per row */
	uint32_t uif_height_ub; /* UIF: padded height in UIF blocks (the column height) */
};

/* True when the layout can hold pixels of this size (tiled layouts need a utile size). */
bool v3d_surface_valid(const struct v3d_surface *s);

/* Byte offset of pixel (x, y) from the surface base. 64-bit: the caller decides what an offset
 * past 4 GiB does. The surface must be valid. */
uint64_t v3d_surface_offset(const struct v3d_surface *s, uint32_t x, uint32_t y);

/* How many pixels from (x, y) along the row are contiguous in memory (at least 1). */
uint32_t v3d_surface_run(const struct v3d_surface *s, uint32_t x);

/* Bytes a w x h surface spans from its base (the largest offset + cpp), 0 when w or h is 0. */
uint64_t v3d_surface_span(const struct v3d_surface *s, uint32_t w, uint32_t h);

/* The drivers' UIF slice choice (Mesa v3d_setup_slices / v3dv's image layout) for a level whose
 * height is already aligned to UIF blocks: the extra block rows they pad with to keep pages of
 * one bank apart across columns, and whether the padded height asks for the XOR layout (a
 * multiple of the page cache height). */
uint32_t v3d_uif_pad_blocks(uint32_t cpp, uint32_t height);
bool v3d_uif_wants_xor(uint32_t padded_height_ub);

#endif
