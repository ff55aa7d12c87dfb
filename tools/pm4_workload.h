/* A realistic Adreno command stream for benchmarks: Turnip-like draws (two draw-state groups and
 * a disabled one, a few context registers, inline constants, an indexed draw) with a timestamp
 * and an idle every 16 draws; and the in-process validation rate of it. Shared by `ferry bench`
 * and the validator's benchmark. */
#ifndef FERRY_TOOLS_PM4_WORKLOAD_H
#define FERRY_TOOLS_PM4_WORKLOAD_H

#include <stdint.h>

/* The state BO holds PM4_WORKLOAD_STATES groups of PM4_WORKLOAD_STATE_DWORDS register writes. */
#define PM4_WORKLOAD_STATES       64u
#define PM4_WORKLOAD_STATE_DWORDS 32u
#define PM4_WORKLOAD_STATE_BYTES  (PM4_WORKLOAD_STATES * PM4_WORKLOAD_STATE_DWORDS * 4u)
/* The data BO: index buffers in the first 64 KiB, a timestamp slot in its last 64 bytes. */
#define PM4_WORKLOAD_DATA_MIN_BYTES (128u << 10)

struct pm4_workload {
	uint64_t state_iova; /* PM4_WORKLOAD_STATE_BYTES */
	uint64_t data_iova;
	uint64_t data_bytes; /* >= PM4_WORKLOAD_DATA_MIN_BYTES */
};

/* Fills the state BO's contents. */
void pm4_workload_states(uint32_t *state_mem);
/* Writes draws into buf until about `bytes` (a multiple of 4, >= 1 KiB) are used; returns the
 * stream's size in bytes. */
uint32_t pm4_workload_stream(const struct pm4_workload *w, uint32_t *buf, uint32_t bytes);

/* pm4v_validate (copy + relocate + validate into shadow memory, in process, no kernel) of a
 * stream of about stream_bytes (<= 2 MiB), repeated for `seconds`. */
struct pm4_workload_rate {
	uint32_t stream_bytes;  /* the stream's exact size */
	double us_per_submit;
	double mb_per_s;        /* of the submitted stream */
	double walked_mb_per_s; /* of every stream walked (IB1 plus the draw-state groups) */
	uint32_t streams;       /* copies made per submit */
	uint64_t dwords;        /* dwords walked per submit */
	double copy_mb_per_s;   /* memcpy of the submitted stream into the same shadow memory */
};
/* 0, -ENOMEM, or -EINVAL if the validator refused the stream (its message on stderr). */
int pm4_workload_validate_rate(uint32_t stream_bytes, double seconds, struct pm4_workload_rate *out);

#endif
