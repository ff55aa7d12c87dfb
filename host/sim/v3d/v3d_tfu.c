/* TFU job execution for the simulated V3D: register decoding for 4.2 and 7.1 (Mesa v3d_tfu.h
 * field layout, reference §6.2) and raster-to-raster copies through the MMU. See v3d_tfu.h for
 * what is and is not modelled. */
#include "v3d_tfu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/v3d_cl.h"
#include "ferry/hw/v3d_tiling.h"
#include "v3d_tlb.h" /* v3d_mem_access */


static void error(struct v3d_tfu_result *res, const char *reg, const char *reason)
{
	res->status = V3D_TFU_ERROR;
	res->reg = reg;
	res->reason = reason;
}

/* The first unmapped page of [addr, addr + len) (the access already failed as a whole). */
static uint32_t first_unmapped(const struct v3d_cle_mem *mem, uint32_t addr, uint32_t len)
{
	uint8_t b;
	uint64_t a = addr;
	uint64_t end = (uint64_t)addr + len;
	while (a < end) {
		if (mem->read(mem->ctx, (uint32_t)a, &b, 1))
			return (uint32_t)a;
		a = (a | 0xfffu) + 1; /* next page */
	}
	return (uint32_t)end; /* all mapped: the access failed where it wrapped past 4 GiB */
}

static void fault(struct v3d_tfu_result *res, const struct v3d_cle_mem *mem, uint64_t addr, uint32_t len,
		  bool write, const char *reg)
{
	res->status = V3D_TFU_FAULT;
	res->write = write;
	res->reg = reg;
	res->reason = write ? "write outside every BO" : "read outside every BO";
	/* Past 4 GiB there are no PTEs: the fault is where the access wraps. */
	if (addr >= (1ull << 32)) {
		res->addr = (uint32_t)addr;
		return;
	}
	uint64_t room = (1ull << 32) - addr;
	res->addr = first_unmapped(mem, (uint32_t)addr, len < room ? len : (uint32_t)room);
}

/* The whole footprint [addr, addr + span) must be mapped (checked page by page) before the job
 * moves a byte, so a fault writes nothing. */
static bool footprint_mapped(const struct v3d_cle_mem *mem, struct v3d_tfu_result *res, uint32_t addr,
			     uint64_t span, bool write, const char *reg)
{
	if (span == 0)
		return true;
	if ((uint64_t)addr + span > (1ull << 32)) {
		fault(res, mem, addr, (uint32_t)((1ull << 32) - addr), write, reg);
		return false;
	}
	uint8_t b;
	for (uint64_t a = addr & ~0xfffull; a < (uint64_t)addr + span; a += 0x1000) {
		uint32_t at = a < addr ? addr : (uint32_t)a;
		if (mem->read(mem->ctx, at, &b, 1)) {
			fault(res, mem, at, 1, write, reg);
			return false;
		}
	}
	return true;
}

/* Moves one row of `w` pixels between `row` and a surface, a contiguous run at a time. */
static int row_io(const struct v3d_cle_mem *mem, const struct v3d_surface *s, uint32_t base, uint32_t y,
		  uint32_t w, uint8_t *row, bool write)
{
	uint32_t fault_addr;
	for (uint32_t x = 0; x < w;) {
		uint32_t run = v3d_surface_run(s, x);
		if (run > w - x)
			run = w - x;
		uint32_t addr = base + (uint32_t)v3d_surface_offset(s, x, y);
		if (v3d_mem_access(mem, addr, row + (size_t)x * s->cpp, run * s->cpp, write, &fault_addr))
			return -EFAULT;
		x += run;
	}
	return 0;
}

void v3d_tfu_run(int ver, const struct v3d_tfu_regs *r, const struct v3d_cle_mem *mem, struct v3d_tfu_result *res)
{
	memset(res, 0, sizeof(*res));
	bool v71 = ver >= V3D_VER_71;
	struct v3d_tfu_fields f;
	v3d_tfu_fields(v71, r->icfg, r->ioa, r->ioc, r->ios, &f);
	uint32_t width = f.width, height = f.height, out_addr = f.out_addr;
	/* 4.2 has no output stride: rows are the width apart. */
	uint32_t out_stride_px = v71 ? f.stride : width;
	const char *cfg_reg = v71 ? "IOC" : "IOA";
	int in_layout = v3d_tfu_iformat_memory(f.iformat), out_layout = v3d_tfu_oformat_memory(f.oformat);
	if (in_layout < 0)
		return error(res, "ICFG", "input format not modelled (SAND or a reserved code)");
	if (out_layout < 0)
		return error(res, cfg_reg, "output format not modelled (a reserved code)");
	if (f.nummm != 0)
		return error(res, v71 ? "IOC" : "ICFG", "mipmap generation not modelled");
	if (r->coef[0] & V3D_TFU_COEF0_USECOEF)
		return error(res, "COEF0", "YUV conversion not modelled");
	uint32_t bpp = v3d_texture_type_tfu_copy_bytes(f.ttype);
	if (!bpp)
		return error(res, "ICFG", "texture type not modelled (only same-format byte copies)");
	if (f.dimtw || !width || !height)
		return; /* level 0 not written and no further levels: nothing to do */

	/* Input: IIS is the raster stride in pixels or the UIF padded height in blocks; LINEARTILE
	 * and UBLINEAR need neither. */
	struct v3d_surface in = { (enum v3d_cl_memory_format)in_layout, bpp, r->iis * bpp, r->iis };
	/* Output: 4.2 pads UIF by OPAD blocks past the height rounded up to blocks; 7.1 gives the
	 * padded height (UIF, blocks) or the stride (raster, pixels) in IOC.STRIDE. */
	uint32_t ub_h = 2 * v3d_utile_height(bpp);
	uint32_t out_ub = v71 ? f.stride : (height + ub_h - 1) / ub_h + f.opad;
	struct v3d_surface out = { (enum v3d_cl_memory_format)out_layout, bpp, (uint32_t)((uint64_t)out_stride_px * bpp),
				   out_ub };
	if ((uint64_t)r->iis * bpp > UINT32_MAX || (uint64_t)out_stride_px * bpp > UINT32_MAX)
		return error(res, "IIS", "stride overflows 32 bits");
	if (!v3d_surface_valid(&in) || !v3d_surface_valid(&out))
		return error(res, "ICFG", "texture type has no utile for a tiled layout");
	if (!footprint_mapped(mem, res, r->iia, v3d_surface_span(&in, width, height), false, "IIA") ||
	    !footprint_mapped(mem, res, out_addr, v3d_surface_span(&out, width, height), true, "IOA"))
		return;

	uint8_t *row = malloc((size_t)width * bpp);
	if (!row)
		return error(res, "ICFG", "out of memory");
	for (uint32_t y = 0; y < height; y++) {
		/* the footprints were checked: a failure here is a BO freed under the job */
		if (row_io(mem, &in, r->iia, y, width, row, false)) {
			fault(res, mem, r->iia, 1, false, "IIA");
			break;
		}
		if (row_io(mem, &out, out_addr, y, width, row, true)) {
			fault(res, mem, out_addr, 1, true, "IOA");
			break;
		}
		res->bytes_written += (uint64_t)width * bpp;
	}
	free(row);
}
