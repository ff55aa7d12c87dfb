/* The input layout of fuzz_v3d, shared by the target and the seed generator: a 32-byte header
 * (version, job kind, reloc count, the SUBMIT_CL addresses), the relocs, then the bytes of the
 * command BO. A TFU job takes its registers, a CSD job its cfg[8], from those bytes. */
#ifndef FERRY_FUZZ_V3D_INPUT_H
#define FERRY_FUZZ_V3D_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "v3d_validate.h"

/* The context: the command BO (the input's bytes), a data BO (tile memory, surfaces), and a BO the
 * host cannot read; nothing else is mapped but the validator's shadows. */
enum { FV_BO_CL, FV_BO_DATA, FV_BO_NOMAP, FV_NR_BOS };
#define FV_CL_ADDR    0x00010000u
#define FV_CL_SIZE    0x00010000u
#define FV_DATA_ADDR  0x00100000u
#define FV_DATA_SIZE  0x00100000u
#define FV_NOMAP_ADDR 0x00300000u
#define FV_NOMAP_SIZE 0x00001000u
#define FV_MAX_RELOCS 8u

enum fv_job { FV_JOB_CL = 0, FV_JOB_TFU = 1, FV_JOB_CSD = 2 };

struct fv_header {
	uint8_t ver71;     /* bit 0: V3D 7.1, else 4.2 */
	uint8_t job;       /* enum fv_job (mod 3) */
	uint8_t nr_relocs; /* mod FV_MAX_RELOCS + 1 */
	uint8_t pad;
	uint32_t bcl_start, bcl_end, rcl_start, rcl_end, qma, qms, qts;
};

struct fv_input {
	struct fv_header h;
	int ver;
	enum fv_job job;
	struct v3dval_reloc relocs[FV_MAX_RELOCS];
	uint32_t nr_relocs;
	const uint8_t *cl;
	size_t cl_len; /* <= FV_CL_SIZE */
};

static inline int fv_parse(const uint8_t *data, size_t size, struct fv_input *in)
{
	if (size < sizeof(struct fv_header))
		return -1;
	memset(in, 0, sizeof(*in));
	memcpy(&in->h, data, sizeof(in->h));
	in->ver = in->h.ver71 & 1 ? 71 : 42;
	in->job = (enum fv_job)(in->h.job % 3);
	in->nr_relocs = in->h.nr_relocs % (FV_MAX_RELOCS + 1);
	size_t pos = sizeof(in->h);
	size_t need = pos + in->nr_relocs * sizeof(in->relocs[0]);
	if (size < need || size - need > FV_CL_SIZE)
		return -1;
	memcpy(in->relocs, data + pos, in->nr_relocs * sizeof(in->relocs[0]));
	in->cl = data + need;
	in->cl_len = size - need;
	return 0;
}

#endif
