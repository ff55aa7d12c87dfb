/* The input layout of fuzz_host, shared by the target and the seed generator: one byte choosing
 * the simulated GPU, then frames, each a u16 little-endian length and that many payload bytes
 * (a wire frame without its u32 length prefix). */
#ifndef FERRY_FUZZ_HOST_INPUT_H
#define FERRY_FUZZ_HOST_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "v3d_cl_builder.h"

static const char *const fh_gpus[] = { "a630", "v3d-4.2" };
#define FH_NR_GPUS 2u
#define FH_MAX_FRAMES 64u

/* The next frame at *pos: 1 with *payload and *len set, 0 at the end (a truncated frame ends the input). */
static inline int fh_next_frame(const uint8_t *data, size_t size, size_t *pos, const uint8_t **payload, size_t *len)
{
	if (size - *pos < 2)
		return 0;
	size_t n = (size_t)data[*pos] | (size_t)data[*pos + 1] << 8;
	if (size - *pos - 2 < n)
		return 0;
	*payload = data + *pos + 2;
	*len = n;
	*pos += 2 + n;
	return 1;
}

/* What every V3D BO of fuzz_host starts with, as the guest would have written it (the input
 * cannot write BOs): a render list of a 16 x 16 frame that does nothing, so a submit's rcl can
 * point at it and pass validation. Returns its length (0 if it does not fit). */
static inline uint32_t fh_v3d_rcl(uint8_t *p, uint32_t cap)
{
	struct v3d_clb b;
	v3d_clb_init(&b, 42, p, cap, 0);
	struct v3d_clb_rendering common = { .width = 16, .height = 16, .num_rts = 1, .early_z_disable = true,
					    .tile_w = 64, .tile_h = 64 };
	struct v3d_clb_rt42 rts[4] = { { 0, V3D_INTERNAL_TYPE_8UI, 0 } };
	v3d_clb_rendering_mode_common(&b, &common);
	v3d42_clb_rendering_mode_color(&b, rts);
	v3d_clb_op(&b, V3D_CL_END_OF_RENDERING);
	return v3d_clb_ok(&b) ? b.len : 0;
}

#endif
