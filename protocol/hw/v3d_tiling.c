/* V3D surface layouts: pixel offsets in RASTER / LINEARTILE / UBLINEAR / UIF (XOR, no XOR) and the
 * drivers' UIF padding rule. The facts are stated in v3d_tiling.h. */
#include "ferry/hw/v3d_tiling.h"

uint32_t v3d_utile_width(uint32_t cpp)
{
	switch (cpp) {
	case 1: case 2: return 8;
	case 4: case 8: return 4;
	case 16: return 2;
	default: return 0;
	}
}

uint32_t v3d_utile_height(uint32_t cpp)
{
	switch (cpp) {
	case 1: return 8;
	case 2: case 4: return 4;
	case 8: case 16: return 2;
	default: return 0;
	}
}

bool v3d_surface_valid(const struct v3d_surface *s)
{
	switch (s->layout) {
	case V3D_CL_MEMORY_RASTER:
		return s->cpp >= 1 && s->cpp <= 16;
	case V3D_CL_MEMORY_LINEARTILE: case V3D_CL_MEMORY_UBLINEAR_1: case V3D_CL_MEMORY_UBLINEAR_2:
	case V3D_CL_MEMORY_UIF_NO_XOR: case V3D_CL_MEMORY_UIF_XOR:
		return v3d_utile_width(s->cpp) != 0;
	default:
		return false;
	}
}

/* Offset inside a utile: its pixels are in raster order. */
static uint32_t in_utile(uint32_t cpp, uint32_t uw, uint32_t uh, uint32_t x, uint32_t y)
{
	return ((y % uh) * uw + (x % uw)) * cpp;
}

/* Offset inside a UIF block (2x2 utiles, the right utile 64 B on, the bottom row 128 B on). */
static uint32_t in_block(uint32_t cpp, uint32_t uw, uint32_t uh, uint32_t x, uint32_t y)
{
	uint32_t bx = x % (2 * uw), by = y % (2 * uh);
	return (by >= uh ? 2 * V3D_UTILE_BYTES : 0) + (bx >= uw ? V3D_UTILE_BYTES : 0) + in_utile(cpp, uw, uh, x, y);
}

uint64_t v3d_surface_offset(const struct v3d_surface *s, uint32_t x, uint32_t y)
{
	uint32_t uw = v3d_utile_width(s->cpp), uh = v3d_utile_height(s->cpp);
	switch (s->layout) {
	case V3D_CL_MEMORY_LINEARTILE:
		return ((uint64_t)x / uw + y / uh) * V3D_UTILE_BYTES + in_utile(s->cpp, uw, uh, x, y);
	case V3D_CL_MEMORY_UBLINEAR_1:
	case V3D_CL_MEMORY_UBLINEAR_2: {
		uint64_t columns = s->layout == V3D_CL_MEMORY_UBLINEAR_1 ? 1 : 2;
		uint64_t block = (uint64_t)(y / (2 * uh)) * columns + x / (2 * uw);
		return block * V3D_UIF_BLOCK_BYTES + in_block(s->cpp, uw, uh, x, y);
	}
	case V3D_CL_MEMORY_UIF_NO_XOR:
	case V3D_CL_MEMORY_UIF_XOR: {
		uint32_t bx = x / (2 * uw), by = y / (2 * uh);
		uint32_t column = bx / V3D_UIF_COLUMN_BLOCKS;
		if (s->layout == V3D_CL_MEMORY_UIF_XOR && (column & 1u))
			by ^= V3D_UIF_XOR_BLOCK_ROW_BIT;
		uint64_t block = (uint64_t)column * s->uif_height_ub * V3D_UIF_COLUMN_BLOCKS +
				 (uint64_t)by * V3D_UIF_COLUMN_BLOCKS + bx % V3D_UIF_COLUMN_BLOCKS;
		return block * V3D_UIF_BLOCK_BYTES + in_block(s->cpp, uw, uh, x, y);
	}
	case V3D_CL_MEMORY_RASTER:
	default:
		return (uint64_t)y * s->stride + (uint64_t)x * s->cpp;
	}
}

uint32_t v3d_surface_run(const struct v3d_surface *s, uint32_t x)
{
	if (s->layout == V3D_CL_MEMORY_RASTER)
		return UINT32_MAX;
	uint32_t uw = v3d_utile_width(s->cpp);
	return uw - x % uw;
}

uint64_t v3d_surface_span(const struct v3d_surface *s, uint32_t w, uint32_t h)
{
	if (!w || !h)
		return 0;
	uint32_t uw = v3d_utile_width(s->cpp), uh = v3d_utile_height(s->cpp);
	switch (s->layout) {
	case V3D_CL_MEMORY_LINEARTILE:
		/* the last utile along the row plus the last along the column */
		return ((uint64_t)(w - 1) / uw + (h - 1) / uh + 1) * V3D_UTILE_BYTES;
	case V3D_CL_MEMORY_UBLINEAR_1:
	case V3D_CL_MEMORY_UBLINEAR_2: {
		uint64_t columns = s->layout == V3D_CL_MEMORY_UBLINEAR_1 ? 1 : 2;
		uint64_t rows = (h + 2 * uh - 1) / (2 * uh);
		uint64_t last_row_blocks = (w + 2 * uw - 1) / (2 * uw);
		return ((rows - 1) * columns + last_row_blocks) * V3D_UIF_BLOCK_BYTES;
	}
	case V3D_CL_MEMORY_UIF_NO_XOR:
	case V3D_CL_MEMORY_UIF_XOR: {
		/* The highest block is in the last column, or with XOR possibly in the last odd column
		 * (its rows move 16 down): look at every block row of both. */
		uint32_t last_col = (w - 1) / (2 * uw * V3D_UIF_COLUMN_BLOCKS), rows = (h - 1) / (2 * uh) + 1;
		uint32_t last_bx = ((w - 1) / (2 * uw)) % V3D_UIF_COLUMN_BLOCKS;
		bool do_xor = s->layout == V3D_CL_MEMORY_UIF_XOR;
		uint64_t max = 0;
		for (unsigned i = 0; i < 2; i++) {
			uint32_t col = last_col, bx = last_bx;
			if (i == 1) {
				if (!do_xor || last_col == 0 || (last_col & 1u))
					break; /* no other column can reach higher */
				col = last_col - 1;
				bx = V3D_UIF_COLUMN_BLOCKS - 1;
			}
			for (uint32_t by = 0; by < rows; by++) {
				uint32_t row = do_xor && (col & 1u) ? by ^ V3D_UIF_XOR_BLOCK_ROW_BIT : by;
				uint64_t end = ((uint64_t)col * s->uif_height_ub * V3D_UIF_COLUMN_BLOCKS +
						(uint64_t)row * V3D_UIF_COLUMN_BLOCKS + bx + 1) * V3D_UIF_BLOCK_BYTES;
				if (end > max)
					max = end;
			}
		}
		return max;
	}
	case V3D_CL_MEMORY_RASTER:
	default:
		return (uint64_t)(h - 1) * s->stride + (uint64_t)w * s->cpp;
	}
}

uint32_t v3d_uif_pad_blocks(uint32_t cpp, uint32_t height)
{
	uint32_t ub_h = 2 * v3d_utile_height(cpp);
	if (!ub_h)
		return 0;
	uint32_t height_ub = height / ub_h;
	uint32_t in_pc = height_ub % V3D_PAGE_CACHE_UB_ROWS;
	uint32_t one_and_half_page = V3D_PAGE_UB_ROWS + V3D_PAGE_UB_ROWS / 2;
	if (in_pc == 0)
		return 0; /* already a page-cache multiple: XOR does the rest */
	if (in_pc < one_and_half_page)
		return height_ub < V3D_PAGE_CACHE_UB_ROWS ? 0 : one_and_half_page - in_pc;
	if (in_pc > V3D_PAGE_CACHE_UB_ROWS - one_and_half_page)
		return V3D_PAGE_CACHE_UB_ROWS - in_pc; /* round up to the page cache and use XOR */
	return 0;
}

bool v3d_uif_wants_xor(uint32_t padded_height_ub)
{
	return padded_height_ub % V3D_PAGE_CACHE_UB_ROWS == 0;
}
