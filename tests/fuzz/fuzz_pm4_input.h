/* The input layout of fuzz_pm4, shared by the target and the seed generator: a 4-byte header
 * (cmd count, reloc count, GPU), the cmds, the relocs, then the bytes of the command BOs. */
#ifndef FERRY_FUZZ_PM4_INPUT_H
#define FERRY_FUZZ_PM4_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ferry/wire.h"

/* The context: two command BOs (the input's bytes, in order), a data BO and a GPU-read-only BO. */
enum { FP_BO_CMD, FP_BO_CMD2, FP_BO_DATA, FP_BO_RO, FP_NR_BOS };
#define FP_CMD_IOVA  0x100000000ull
#define FP_CMD2_IOVA 0x100010000ull
#define FP_DATA_IOVA 0x100100000ull
#define FP_RO_IOVA   0x100580000ull
#define FP_CMD_SIZE  0x10000u
#define FP_DATA_SIZE 0x40000u
#define FP_RO_SIZE   0x1000u
#define FP_MAX_CMDS   4u
#define FP_MAX_RELOCS 8u

struct fp_input {
	struct ferry_msm_submit_cmd cmds[FP_MAX_CMDS];
	uint32_t nr_cmds;
	struct ferry_msm_submit_reloc relocs[FP_MAX_RELOCS];
	uint32_t nr_relocs;
	int gpu_660; /* else a630 */
	const uint8_t *stream;
	size_t stream_len; /* <= 2 * FP_CMD_SIZE */
};

/* 0, or -1 when the input is too short or too long to be one. */
static inline int fp_parse(const uint8_t *data, size_t size, struct fp_input *in)
{
	if (size < 4)
		return -1;
	memset(in, 0, sizeof(*in));
	in->nr_cmds = data[0] % (FP_MAX_CMDS + 1);
	in->nr_relocs = data[1] % (FP_MAX_RELOCS + 1);
	in->gpu_660 = data[2] & 1;
	size_t pos = 4;
	size_t need = pos + in->nr_cmds * sizeof(in->cmds[0]) + in->nr_relocs * sizeof(in->relocs[0]);
	if (size < need || size - need > 2u * FP_CMD_SIZE)
		return -1;
	memcpy(in->cmds, data + pos, in->nr_cmds * sizeof(in->cmds[0]));
	pos += in->nr_cmds * sizeof(in->cmds[0]);
	memcpy(in->relocs, data + pos, in->nr_relocs * sizeof(in->relocs[0]));
	pos += in->nr_relocs * sizeof(in->relocs[0]);
	in->stream = data + pos;
	in->stream_len = size - pos;
	return 0;
}

#endif
