/* The texture formatting unit (TFU) of the simulated V3D 4.2 / 7.1: decodes the registers the
 * kernel writes from drm_v3d_submit_tfu and executes the job through the GPU's MMU.
 *
 * Executed for real: level 0 (NUMMM 0) of the same-format byte-per-pixel texture types (R8 ...
 * RGBA32F/UI, the ones Mesa uses for copies and uploads), byte-exact, from any of RASTER,
 * LINEARTILE, UBLINEAR 1/2 columns, UIF (XOR or not) to any of them (v3d_tiling.h). Input: IIS is
 * the raster stride in pixels or the UIF padded height in UIF blocks. Output: raster stride on 7.1
 * IOC.STRIDE (pixels), on 4.2 the width; UIF padded height on 7.1 IOC.STRIDE (blocks), on 4.2 the
 * height rounded up to UIF blocks plus ICFG.OPAD. DIMTW (skip level 0) writes nothing. The whole
 * input and output footprints (base to last byte) are checked before a byte moves, so a fault
 * writes nothing.
 * Not modelled, the job ends with V3D_TFU_ERROR naming the field (counted in the device's
 * job_errors): SAND input, the reserved format codes, mipmap generation (NUMMM > 0: Mesa's v3d
 * glGenerateMipmap path; v3dv's copies and uploads do not use it), YUV conversion
 * (COEF0.USECOEF), compressed or depth texture types, pixel sizes with no utile in a tiled layout.
 * 4.2's IOA carries flags in its low 6 bits (DIMTW b0, FORMAT [5:3]): the output address is
 * IOA & ~0x3f there, and its FORMAT field value 0 (not one Mesa's v3d_tfu.h names) is taken as
 * raster. */
#ifndef FERRY_SIM_V3D_TFU_H
#define FERRY_SIM_V3D_TFU_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/hw/v3d_cl.h" /* struct v3d_tfu_regs */
#include "v3d_cle.h" /* struct v3d_cle_mem: the MMU interface */

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

#endif
