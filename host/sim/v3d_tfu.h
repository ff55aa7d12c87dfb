/* The texture formatting unit (TFU) of the simulated V3D 4.2 / 7.1: decodes the registers the
 * kernel writes from drm_v3d_submit_tfu and executes the job through the GPU's MMU.
 *
 * Executed for real: RASTER input to RASTER output of one mip level (NUMMM 0) in the
 * same-format byte-per-pixel texture types (R8 ... RGBA32F/UI, the ones Mesa uses for copies),
 * row by row with the input stride (IIS, pixels) and the output stride (7.1: IOC.STRIDE, pixels;
 * 4.2, which has no raster output stride register: the width), byte-exact. DIMTW (skip level 0)
 * writes nothing.
 * Not modelled, the job ends with V3D_TFU_ERROR naming the field: tiled input (SAND, LINEARTILE,
 * UBLINEAR, UIF) or tiled output (LINEARTILE, UBLINEAR, UIF: what Mesa's image uploads use),
 * mipmap generation, YUV conversion (COEF0.USECOEF), compressed or depth texture types.
 * 4.2's IOA carries flags in its low 6 bits (DIMTW b0, FORMAT [5:3]): the output address is
 * IOA & ~0x3f there, and its FORMAT field value 0 (not one Mesa's v3d_tfu.h names) is taken as
 * raster. */
#ifndef FERRY_SIM_V3D_TFU_H
#define FERRY_SIM_V3D_TFU_H

#include <stdbool.h>
#include <stdint.h>

#include "v3d_cle.h" /* struct v3d_cle_mem: the MMU interface */

struct v3d_tfu_regs {
	uint32_t icfg, iia, iis, ica, iua, ioa, ios;
	uint32_t coef[4];
	uint32_t ioc; /* 7.1 only */
};

enum v3d_tfu_status {
	V3D_TFU_DONE,
	V3D_TFU_FAULT, /* an access outside every BO: addr, write, reg */
	V3D_TFU_ERROR, /* a configuration the model does not execute: reg, reason */
};

struct v3d_tfu_result {
	enum v3d_tfu_status status;
	uint32_t addr;       /* FAULT: first unmapped address (page granular) */
	bool write;
	const char *reg;     /* "IIA", "IOA", "ICFG", "IOC", "COEF0" */
	const char *reason;  /* static text */
	uint64_t bytes_written;
};

/* ver: 42 or 71. Runs the whole job. */
void v3d_tfu_run(int ver, const struct v3d_tfu_regs *regs, const struct v3d_cle_mem *mem,
		 struct v3d_tfu_result *res);

/* Bytes per pixel of a texture data type the TFU copies byte-exactly, 0 for others. */
uint32_t v3d_tfu_type_bpp(uint32_t ttype);

#endif
