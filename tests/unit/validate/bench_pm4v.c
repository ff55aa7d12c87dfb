/* Throughput of pm4v_validate (copy + relocate + validate into shadow) on a Turnip-like draw
 * stream of 64 KiB and 1 MiB. A benchmark, not a test: it prints figures and checks nothing
 * but that the stream is accepted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/uapi_msm.h"
#include "pm4_builder.h"
#include "pm4_validate.h"

#define CMD_IOVA   0x100000000ull
#define STATE_IOVA 0x100400000ull
#define DATA_IOVA  0x100800000ull
#define CMD_BYTES  (2u << 20)
#define STATE_BYTES (64u << 10)
#define DATA_BYTES (4u << 20)
#define NR_STATES  64u
#define STATE_DWORDS 32u

struct pool {
	uint8_t *mem;
	uint32_t used, size;
};

static int pool_alloc(void *ctx, uint32_t size, struct pm4v_shadow *out)
{
	struct pool *p = ctx;
	uint32_t aligned = (size + 63u) & ~63u;
	if (aligned > p->size - p->used)
		return -1;
	out->iova = 0x800000000ull + p->used;
	out->map = p->mem + p->used;
	p->used += aligned;
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* State objects: register writes, as Turnip's draw-state groups hold. */
static void build_states(uint32_t *mem)
{
	for (uint32_t s = 0; s < NR_STATES; s++) {
		struct pm4_builder b;
		pm4_builder_init(&b, mem + s * STATE_DWORDS, STATE_DWORDS);
		uint32_t vals[8] = { s, 1, 2, 3, 4, 5, 6, 7 };
		pm4_pkt4(&b, 0xa800 + s, vals, 8);
		pm4_pkt4(&b, 0x9100 + s, vals, 6);
		pm4_pkt4(&b, 0x8000 + s, vals, 8);
		pm4_nop(&b, STATE_DWORDS - b.len - 1);
	}
}

static uint32_t build_stream(uint32_t *buf, uint32_t bytes)
{
	struct pm4_builder b;
	pm4_builder_init(&b, buf, bytes / 4u);
	uint32_t draw = 0;
	const uint32_t en = CP_SET_DRAW_STATE_0_SYSMEM | CP_SET_DRAW_STATE_0_GMEM |
			    CP_SET_DRAW_STATE_0_BINNING;
	while (b.len + 128 < bytes / 4u) {
		uint64_t s0 = STATE_IOVA + (draw % NR_STATES) * STATE_DWORDS * 4u;
		uint64_t s1 = STATE_IOVA + ((draw * 7u + 3u) % NR_STATES) * STATE_DWORDS * 4u;
		PM4_PKT7(&b, CP_SET_DRAW_STATE,
			 CP_SET_DRAW_STATE_0_COUNT(STATE_DWORDS) | en | CP_SET_DRAW_STATE_0_GROUP_ID(1),
			 (uint32_t)s0, (uint32_t)(s0 >> 32),
			 CP_SET_DRAW_STATE_0_COUNT(STATE_DWORDS) | en | CP_SET_DRAW_STATE_0_GROUP_ID(2),
			 (uint32_t)s1, (uint32_t)(s1 >> 32),
			 CP_SET_DRAW_STATE_0_DISABLE | CP_SET_DRAW_STATE_0_GROUP_ID(3), 0, 0);
		PM4_PKT4(&b, 0x8800, draw, 1, 2);
		PM4_PKT4(&b, 0x9b00, draw);
		uint32_t consts[17] = { (1u << 14) | (0u << 16) | (8u << 18) | (4u << 22), 0 };
		pm4_pkt7(&b, CP_LOAD_STATE6_GEOM, consts, 17); /* 4 vec4 constants inline */
		uint64_t ib = DATA_IOVA + (draw % 1024u) * 64u;
		PM4_PKT7(&b, CP_DRAW_INDX_OFFSET, (1u << 10) | 4u, 1, 36, 0, (uint32_t)ib,
			 (uint32_t)(ib >> 32), 36);
		if (draw % 16 == 15) {
			pm4_event_write_ts(&b, RB_DONE_TS, DATA_IOVA + DATA_BYTES - 64, draw);
			pm4_wait_for_idle(&b);
		}
		draw++;
	}
	return pm4_builder_bytes(&b);
}

static void run(uint32_t stream_bytes)
{
	uint32_t *cmd = calloc(1, CMD_BYTES), *state = calloc(1, STATE_BYTES);
	uint32_t *data = calloc(1, DATA_BYTES);
	struct pool pool = { .mem = malloc(64u << 20), .size = 64u << 20 };
	if (!cmd || !state || !data || !pool.mem) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	build_states(state);
	uint32_t bytes = build_stream(cmd, stream_bytes);

	struct pm4v_bo bos[] = {
		{ CMD_IOVA, CMD_BYTES, cmd, 1, 0 },
		{ STATE_IOVA, STATE_BYTES, state, 2, 0 },
		{ DATA_IOVA, DATA_BYTES, data, 3, 0 },
	};
	uint32_t submit_bos[] = { 0, 1, 2 };
	struct ferry_msm_submit_cmd c = { MSM_SUBMIT_CMD_BUF, 0, 0, bytes };
	struct pm4v_submit s = { bos, 3, submit_bos, 3, &c, 1, NULL, 0 };
	struct pm4v_shadow_allocator a = { pool_alloc, &pool };
	struct pm4v_policy policy;
	pm4v_policy_a6xx(&policy, 630);
	struct pm4v_validator *v = pm4v_create(&policy);
	struct pm4v_result res;
	struct pm4v_error err;

	unsigned iters = 0;
	double t0 = now(), t1;
	do {
		pool.used = 0;
		if (pm4v_validate(v, &s, &a, &res, &err)) {
			fprintf(stderr, "rejected: %s\n", err.msg);
			exit(1);
		}
		iters++;
		t1 = now();
	} while (t1 - t0 < 0.5);
	double per = (t1 - t0) / iters;
	printf("stream %7u bytes: %8.1f us/submit, %7.0f MB/s of command stream, %7.0f MB/s of all "
	       "streams walked (%u streams, %llu dwords)\n",
	       bytes, per * 1e6, bytes / per / 1e6, (double)res.dwords * 4.0 / per / 1e6,
	       res.nr_streams, (unsigned long long)res.dwords);
	pm4v_destroy(v);
	free(cmd);
	free(state);
	free(data);
	free(pool.mem);
}

int main(void)
{
	run(64u << 10);
	run(1u << 20);
	return 0;
}
