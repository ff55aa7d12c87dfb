/* A realistic V3D job for benchmarks: a v3dv-shaped bin list of N draws (per draw the state
 * packets v3dv re-emits, a GL shader state block of its own, a non-indexed draw) and the render
 * list of a one-render-target frame; and the in-process validation rate of it. Used by
 * `ferry bench --gpu v3d-*`. */
#ifndef FERRY_TOOLS_V3D_WORKLOAD_H
#define FERRY_TOOLS_V3D_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The frame: 256 x 256 RGBA8, one layer. */
#define V3D_WORKLOAD_WIDTH  256u
#define V3D_WORKLOAD_HEIGHT 256u
#define V3D_WORKLOAD_DST_BYTES (V3D_WORKLOAD_WIDTH * V3D_WORKLOAD_HEIGHT * 4u)

/* Where the job lives: four BOs at global V3D addresses, with host mappings for cl and data.
 * Sizes from v3d_workload_sizes(). */
struct v3d_workload {
	int ver;            /* 42 or 71 */
	uint32_t draws;     /* >= 1 */
	uint8_t *cl;        /* bin list, render list, its generic tile list */
	uint32_t cl_addr;
	uint8_t *data;      /* shader state blocks, shader code, uniforms, vertices */
	uint32_t data_addr;
	uint32_t ta_addr;   /* tile allocation memory and tile state (qma = qts) */
	uint32_t dst_addr;  /* the render target, V3D_WORKLOAD_DST_BYTES */
};

struct v3d_workload_sizes {
	uint32_t cl_bytes, data_bytes, ta_bytes, qms;
};
void v3d_workload_sizes(int ver, uint32_t draws, struct v3d_workload_sizes *out);

/* What a SUBMIT_CL of the job names. */
struct v3d_workload_job {
	uint32_t bcl_start, bcl_end, rcl_start, rcl_end, qma, qms, qts;
};
/* Writes the lists and blocks; false if a list did not fit (a bug). */
bool v3d_workload_build(const struct v3d_workload *w, struct v3d_workload_job *out);

/* v3dval_validate_cl (copy + validate into shadow memory, in process, no kernel) of a job of
 * `draws` draws, repeated for `seconds`; and, as the baseline, a plain memcpy of the same bytes
 * (every list segment and shader state block the validator copied) into the same shadow memory. */
struct v3d_workload_rate {
	uint64_t bytes;         /* copied per job: list bytes walked + shader state blocks */
	uint32_t segments, blocks, packets;
	double us_per_job;
	double mb_per_s;        /* bytes / validation time */
	double copy_mb_per_s;   /* bytes / memcpy time */
};
/* 0, -ENOMEM, or -EINVAL if the validator refused the job (its message on stderr). */
int v3d_workload_validate_rate(int ver, uint32_t draws, double seconds, struct v3d_workload_rate *out);

#endif
