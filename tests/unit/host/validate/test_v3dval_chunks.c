/* The V3D walker copies a list out of its BO ahead of the walk, in chunks, never past the BO's
 * end. Held here on hostile lists (a v3dv-shaped job with random bytes changed): the same list
 * in a BO that ends where the job ends (allocated to the byte: ASan builds catch a read past it)
 * and in one with random slack after it must validate the same way - accepted with the same
 * shadows, or refused with the same rule and message - unless the answer is about the BO's end
 * or an address the slack makes valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "v3d_workload.h"
#include "validate/v3d_validate.h"

#define SLACK 8192u
#define POOL_ADDR 0xc0000000u

struct pool {
	uint8_t *mem;
	uint32_t size, used;
};

static int pool_alloc(void *ctx, uint32_t size, struct v3dval_shadow *out)
{
	struct pool *p = ctx;
	uint32_t aligned = (size + V3DVAL_SHADOW_ALIGN - 1u) & ~(V3DVAL_SHADOW_ALIGN - 1u);
	if (aligned < size || aligned > p->size - p->used)
		return -1;
	out->addr = POOL_ADDR + p->used;
	out->map = p->mem + p->used;
	p->used += aligned;
	return 0;
}

struct outcome {
	int r;
	struct v3dval_cl_result res;
	struct v3dval_error err;
	uint32_t used;
};

static void run(struct v3dval *v, const struct v3d_workload *w, const struct v3d_workload_sizes *sz,
		const struct v3d_workload_job *job, const uint8_t *cl, uint32_t cl_size, struct pool *pool,
		struct outcome *o)
{
	const struct v3dval_bo bos[] = {
		{ w->cl_addr, cl_size, cl, 1 },
		{ w->data_addr, sz->data_bytes, w->data, 2 },
		{ w->ta_addr, sz->ta_bytes, NULL, 3 },
		{ w->dst_addr, V3D_WORKLOAD_DST_BYTES, NULL, 4 },
	};
	const struct v3dval_cl_submit s = {
		.bos = bos, .nr_bos = 4, .bcl_start = job->bcl_start, .bcl_end = job->bcl_end,
		.rcl_start = job->rcl_start, .rcl_end = job->rcl_end, .qma = job->qma, .qms = job->qms, .qts = job->qts,
	};
	const struct v3dval_shadow_allocator a = { pool_alloc, pool };
	pool->used = 0;
	memset(pool->mem, 0, pool->size);
	memset(o, 0, sizeof(*o));
	o->r = v3dval_validate_cl(v, &s, &a, &o->res, &o->err);
	o->used = pool->used;
}

/* Answers a BO that goes on past the job may legitimately change. */
static bool depends_on_bo_end(const struct outcome *o, uint32_t end)
{
	switch (o->err.rule) {
	case V3DVAL_ERR_NO_END:
	case V3DVAL_ERR_TARGET:
	case V3DVAL_ERR_ADDRESS:
	case V3DVAL_ERR_READAHEAD:
		return true;
	default:
		return o->err.bad_addr >= end && o->err.bad_addr - end < SLACK;
	}
}

static void check_version(int ver)
{
	struct v3d_workload_sizes sz;
	v3d_workload_sizes(ver, 150, &sz); /* a bin list over 4 KiB: chunk edges inside it */
	struct v3d_workload w = { .ver = ver, .draws = 150, .cl = calloc(1, sz.cl_bytes), .cl_addr = 0x00100000u,
				  .data = calloc(1, sz.data_bytes) };
	REQUIRE(w.cl && w.data);
	w.data_addr = (w.cl_addr + sz.cl_bytes + SLACK + 0xffffu) & ~0xffffu;
	w.ta_addr = (w.data_addr + sz.data_bytes + 0xffffu) & ~0xffffu;
	w.dst_addr = (w.ta_addr + sz.ta_bytes + 0xffffu) & ~0xffffu;
	struct v3d_workload_job job;
	REQUIRE(v3d_workload_build(&w, &job));
	uint8_t *exact = malloc(sz.cl_bytes), *slack = malloc(sz.cl_bytes + SLACK);
	struct pool pa = { .size = 4u << 20 }, pb = { .size = 4u << 20 };
	pa.mem = malloc(pa.size);
	pb.mem = malloc(pb.size);
	struct v3dval_policy policy;
	v3dval_policy_default(&policy, ver);
	struct v3dval *va = v3dval_create(&policy), *vb = v3dval_create(&policy);
	REQUIRE(exact && slack && pa.mem && pb.mem && va && vb);
	struct outcome a, b;
	uint32_t end = w.cl_addr + sz.cl_bytes;
	unsigned accepted = 0, refused = 0, compared = 0;
	for (int round = 0; round < 1000; round++) {
		memcpy(exact, w.cl, sz.cl_bytes);
		/* round 0 as built; then 1..6 random bytes of the lists, an opcode now and then */
		unsigned n = round ? 1u + (unsigned)rand() % 6u : 0;
		for (unsigned i = 0; i < n; i++) {
			/* inside what the walk reads: the bin list, the render list, the start of the
			 * generic tile list that follows the render list's 16 KiB */
			uint32_t bin = job.bcl_end - job.bcl_start, render = job.rcl_end - job.rcl_start;
			uint32_t pick = (uint32_t)rand() % 10u, at;
			if (pick < 5)
				at = job.bcl_start - w.cl_addr + (uint32_t)rand() % bin;
			else if (pick < 8)
				at = job.rcl_start - w.cl_addr + (uint32_t)rand() % render;
			else
				at = job.rcl_start - w.cl_addr + 16384u + (uint32_t)rand() % 256u;
			exact[at] = rand() % 3 ? (uint8_t)rand() : (uint8_t)(rand() % 128);
		}
		memcpy(slack, exact, sz.cl_bytes);
		for (uint32_t i = 0; i < SLACK; i++)
			slack[sz.cl_bytes + i] = (uint8_t)rand();
		run(va, &w, &sz, &job, exact, sz.cl_bytes, &pa, &a);
		run(vb, &w, &sz, &job, slack, sz.cl_bytes + SLACK, &pb, &b);
		if (round == 0)
			CHECK_EQ(a.r, 0);
		if (a.r == 0) {
			accepted++;
			CHECK_EQ(b.r, 0);
			CHECK(memcmp(&a.res, &b.res, sizeof(a.res)) == 0);
			CHECK_EQ(a.used, b.used);
			CHECK(memcmp(pa.mem, pb.mem, a.used) == 0);
			continue;
		}
		refused++;
		if (depends_on_bo_end(&a, end))
			continue;
		compared++;
		CHECK_EQ(b.r, -1);
		CHECK_EQ(b.err.rule, a.err.rule);
		if (strcmp(a.err.msg, b.err.msg))
			fprintf(stderr, "  differs:\n    %s\n    %s\n", a.err.msg, b.err.msg);
		CHECK(strcmp(a.err.msg, b.err.msg) == 0);
	}
	/* the mutations reach both ways */
	CHECK(accepted > 20 && compared > 50);
	printf("  v%d: %u accepted, %u refused, %u compared\n", ver, accepted, refused, compared);
	v3dval_destroy(va);
	v3dval_destroy(vb);
	free(exact);
	free(slack);
	free(pa.mem);
	free(pb.mem);
	free(w.cl);
	free(w.data);
}

static void test_v42(void) { check_version(42); }
static void test_v71(void) { check_version(71); }

int main(void)
{
	srand(16);
	RUN_TEST(test_v42);
	RUN_TEST(test_v71);
	return test_finish();
}
