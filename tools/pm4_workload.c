/* The benchmark command stream: see pm4_workload.h. Index buffers are left zero (index 0 is
 * valid for any draw); the simulator checks their bounds, nothing reads vertices. */
#include "bench_clock.h"
#include "pm4_workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry/uapi/msm_drm.h"
#include "pm4_builder.h"
#include "pm4_validate.h"

void pm4_workload_states(uint32_t *mem)
{
	for (uint32_t s = 0; s < PM4_WORKLOAD_STATES; s++) {
		struct pm4_builder b;
		pm4_builder_init(&b, mem + s * PM4_WORKLOAD_STATE_DWORDS, PM4_WORKLOAD_STATE_DWORDS);
		uint32_t vals[8] = { s, 1, 2, 3, 4, 5, 6, 7 };
		pm4_pkt4(&b, 0xa800 + s, vals, 8);
		pm4_pkt4(&b, 0x9100 + s, vals, 6);
		pm4_pkt4(&b, 0x8000 + s, vals, 8);
		pm4_nop(&b, PM4_WORKLOAD_STATE_DWORDS - b.len - 1);
	}
}

uint32_t pm4_workload_stream(const struct pm4_workload *w, uint32_t *buf, uint32_t bytes)
{
	struct pm4_builder b;
	pm4_builder_init(&b, buf, bytes / 4u);
	uint32_t draw = 0;
	const uint32_t en = CP_SET_DRAW_STATE_0_SYSMEM | CP_SET_DRAW_STATE_0_GMEM |
			    CP_SET_DRAW_STATE_0_BINNING;
	const uint32_t state_bytes = PM4_WORKLOAD_STATE_DWORDS * 4u;
	while (b.len + 128 < bytes / 4u) {
		uint64_t s0 = w->state_iova + (draw % PM4_WORKLOAD_STATES) * state_bytes;
		uint64_t s1 = w->state_iova + ((draw * 7u + 3u) % PM4_WORKLOAD_STATES) * state_bytes;
		PM4_PKT7(&b, CP_SET_DRAW_STATE,
			 CP_SET_DRAW_STATE_0_COUNT(PM4_WORKLOAD_STATE_DWORDS) | en | CP_SET_DRAW_STATE_0_GROUP_ID(1),
			 (uint32_t)s0, (uint32_t)(s0 >> 32),
			 CP_SET_DRAW_STATE_0_COUNT(PM4_WORKLOAD_STATE_DWORDS) | en | CP_SET_DRAW_STATE_0_GROUP_ID(2),
			 (uint32_t)s1, (uint32_t)(s1 >> 32),
			 CP_SET_DRAW_STATE_0_DISABLE | CP_SET_DRAW_STATE_0_GROUP_ID(3), 0, 0);
		PM4_PKT4(&b, 0x8800, draw, 1, 2);
		PM4_PKT4(&b, 0x9b00, draw);
		uint32_t consts[17] = { (1u << 14) | (0u << 16) | (8u << 18) | (4u << 22), 0 };
		pm4_pkt7(&b, CP_LOAD_STATE6_GEOM, consts, 17); /* 4 vec4 constants inline */
		uint64_t ib = w->data_iova + (draw % 1024u) * 64u;
		PM4_PKT7(&b, CP_DRAW_INDX_OFFSET, (1u << 10) | 4u, 1, 36, 0, (uint32_t)ib,
			 (uint32_t)(ib >> 32), 36);
		if (draw % 16 == 15) {
			pm4_event_write_ts(&b, RB_DONE_TS, w->data_iova + w->data_bytes - 64, draw);
			pm4_wait_for_idle(&b);
		}
		draw++;
	}
	return pm4_builder_bytes(&b);
}

/* In-process validation: BOs in plain memory at fixed iovas, shadows bump-allocated. */
#define RATE_CMD_IOVA    0x100000000ull
#define RATE_STATE_IOVA  0x100400000ull
#define RATE_DATA_IOVA   0x100800000ull
#define RATE_CMD_BYTES   (2u << 20)
#define RATE_DATA_BYTES  (4u << 20)
#define RATE_POOL_BYTES  (64u << 20)

struct rate_pool {
	uint8_t *mem;
	uint32_t used, size;
};

static int rate_pool_alloc(void *ctx, uint32_t size, struct pm4v_shadow *out)
{
	struct rate_pool *p = ctx;
	uint32_t aligned = (size + 63u) & ~63u;
	if (aligned > p->size - p->used)
		return -1;
	out->iova = 0x800000000ull + p->used;
	out->map = p->mem + p->used;
	p->used += aligned;
	return 0;
}

/* One validation of the stream, or one plain copy of it (the baseline), as rate steps. */
struct rate_run {
	struct pm4v_validator *v;
	const struct pm4v_submit *s;
	const struct pm4v_shadow_allocator *a;
	struct rate_pool *pool;
	struct pm4v_result res;
	const void *src;
	uint32_t bytes;
};

static bool validate_once(void *arg)
{
	struct rate_run *r = arg;
	struct pm4v_error err;
	r->pool->used = 0;
	if (pm4v_validate(r->v, r->s, r->a, &r->res, &err) == 0)
		return true;
	fprintf(stderr, "pm4 workload rejected: %s\n", err.msg);
	return false;
}

static bool copy_once(void *arg)
{
	struct rate_run *r = arg;
	memcpy(r->pool->mem, r->src, r->bytes);
	__asm__ volatile("" : : "r"(r->pool->mem) : "memory"); /* keep the copies */
	return true;
}

int pm4_workload_validate_rate(uint32_t stream_bytes, double seconds, struct pm4_workload_rate *out)
{
	if (stream_bytes < 1024 || stream_bytes > RATE_CMD_BYTES)
		return -EINVAL;
	uint32_t *cmd = calloc(1, RATE_CMD_BYTES), *state = calloc(1, PM4_WORKLOAD_STATE_BYTES);
	uint32_t *data = calloc(1, RATE_DATA_BYTES);
	struct rate_pool pool = { .mem = malloc(RATE_POOL_BYTES), .size = RATE_POOL_BYTES };
	struct pm4v_policy policy;
	pm4v_policy_a6xx(&policy, 630);
	struct pm4v_validator *v = pm4v_create(&policy);
	int ret = 0;
	if (!cmd || !state || !data || !pool.mem || !v) {
		ret = -ENOMEM;
		goto out;
	}
	pm4_workload_states(state);
	const struct pm4_workload w = { RATE_STATE_IOVA, RATE_DATA_IOVA, RATE_DATA_BYTES };
	uint32_t bytes = pm4_workload_stream(&w, cmd, stream_bytes);
	const struct pm4v_bo bos[] = {
		{ RATE_CMD_IOVA, RATE_CMD_BYTES, cmd, 1, 0 },
		{ RATE_STATE_IOVA, PM4_WORKLOAD_STATE_BYTES, state, 2, 0 },
		{ RATE_DATA_IOVA, RATE_DATA_BYTES, data, 3, 0 },
	};
	const uint32_t submit_bos[] = { 0, 1, 2 };
	const struct ferry_msm_submit_cmd c = { MSM_SUBMIT_CMD_BUF, 0, 0, bytes };
	const struct pm4v_submit s = { bos, 3, submit_bos, 3, &c, 1, NULL, 0 };
	const struct pm4v_shadow_allocator a = { rate_pool_alloc, &pool };
	struct rate_run run = { .v = v, .s = &s, .a = &a, .pool = &pool, .src = cmd, .bytes = bytes };
	double per = bench_cpu_per_step(seconds, validate_once, &run);
	if (per < 0) {
		ret = -EINVAL;
		goto out;
	}
	/* The baseline in the same conditions: the same bytes from the same BO into the same (warm)
	 * shadow memory, nothing checked. */
	double copy_per = bench_cpu_per_step(seconds / 4, copy_once, &run);
	const struct pm4v_result res = run.res;
	*out = (struct pm4_workload_rate){
		.stream_bytes = bytes,
		.us_per_submit = per * 1e6,
		.mb_per_s = bytes / per / 1e6,
		.walked_mb_per_s = (double)res.dwords * 4.0 / per / 1e6,
		.streams = res.nr_streams,
		.dwords = res.dwords,
		.copy_mb_per_s = bytes / copy_per / 1e6,
	};
out:
	pm4v_destroy(v);
	free(cmd);
	free(state);
	free(data);
	free(pool.mem);
	return ret;
}
