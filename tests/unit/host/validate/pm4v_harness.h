/* Test harness for the PM4 validator: a fake context (BOs in plain memory at fixed iovas), a
 * shadow pool with a bump allocator, and helpers to run one submit and look at its output. */
#ifndef FERRY_TEST_PM4V_HARNESS_H
#define FERRY_TEST_PM4V_HARNESS_H

#include <stdlib.h>
#include <string.h>

#include "ferry/uapi/msm_drm.h"
#include "pm4_builder.h"
#include "pm4_validate.h"
#include "test.h"

/* The context: bo0 and bo1 hold commands, bo2 is a 4 MiB data BO, bo3 is GPU read-only.
 * 0x1_0040_0000.. is not in the context ("another context's range"). */
enum { BO_CMD, BO_CMD2, BO_DATA, BO_RO, NR_BOS };
#define CMD_IOVA   0x100000000ull
#define CMD2_IOVA  0x100010000ull
#define DATA_IOVA  0x100100000ull
#define RO_IOVA    0x100580000ull
#define FOREIGN_IOVA 0x100600000ull
#define CMD_SIZE   0x10000u
#define DATA_SIZE  0x400000u
#define RO_SIZE    0x1000u
#define POOL_IOVA  0x800000000ull
#define POOL_SIZE  (64u << 20)

struct harness {
	struct pm4v_bo bos[NR_BOS];
	uint32_t *mem[NR_BOS];
	uint32_t submit_bos[NR_BOS];
	uint8_t *pool;
	uint32_t pool_used;
	uint32_t allocs;
	bool fail_alloc;
	struct pm4v_policy policy;
	struct pm4v_validator *v;
	struct pm4v_result res;
	struct pm4v_error err;
	struct pm4_builder b; /* writes into bo0 from offset 0 */
};

static inline int harness_alloc(void *ctx, uint32_t size, struct pm4v_shadow *out)
{
	struct harness *h = ctx;
	uint32_t aligned = (size + 63u) & ~63u;
	if (h->fail_alloc || aligned > POOL_SIZE - h->pool_used)
		return -1;
	out->iova = POOL_IOVA + h->pool_used;
	out->map = h->pool + h->pool_used;
	h->pool_used += aligned;
	h->allocs++;
	return 0;
}

static inline void harness_init_policy(struct harness *h, const struct pm4v_policy *policy)
{
	static const uint64_t iova[NR_BOS] = { CMD_IOVA, CMD2_IOVA, DATA_IOVA, RO_IOVA };
	static const uint64_t size[NR_BOS] = { CMD_SIZE, CMD_SIZE, DATA_SIZE, RO_SIZE };
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < NR_BOS; i++) {
		h->mem[i] = calloc(1, size[i]);
		REQUIRE(h->mem[i]);
		h->bos[i] = (struct pm4v_bo){ .iova = iova[i], .size = size[i], .map = h->mem[i],
					      .id = 3u + (uint32_t)i,
					      .flags = i == BO_RO ? PM4V_BO_GPU_READONLY : 0 };
		h->submit_bos[i] = (uint32_t)i;
	}
	h->pool = calloc(1, POOL_SIZE);
	REQUIRE(h->pool);
	h->policy = *policy;
	h->v = pm4v_create(policy);
	REQUIRE(h->v);
	pm4_builder_init(&h->b, h->mem[BO_CMD], CMD_SIZE / 4u);
}

static inline void harness_init(struct harness *h)
{
	struct pm4v_policy p;
	pm4v_policy_a6xx(&p, 630);
	harness_init_policy(h, &p);
}

static inline void harness_fini(struct harness *h)
{
	pm4v_destroy(h->v);
	for (int i = 0; i < NR_BOS; i++)
		free(h->mem[i]);
	free(h->pool);
}

static inline struct pm4v_submit harness_submit_of(struct harness *h, const struct ferry_msm_submit_cmd *cmds,
						      uint32_t nr_cmds, const struct ferry_msm_submit_reloc *relocs,
						      uint32_t nr_relocs)
{
	return (struct pm4v_submit){
		.bos = h->bos, .nr_bos = NR_BOS, .submit_bos = h->submit_bos, .nr_submit_bos = NR_BOS,
		.cmds = cmds, .nr_cmds = nr_cmds, .relocs = relocs, .nr_relocs = nr_relocs,
	};
}

static inline int harness_submit(struct harness *h, const struct ferry_msm_submit_cmd *cmds,
			  uint32_t nr_cmds, const struct ferry_msm_submit_reloc *relocs,
			  uint32_t nr_relocs)
{
	struct pm4v_submit s = harness_submit_of(h, cmds, nr_cmds, relocs, nr_relocs);
	struct pm4v_shadow_allocator a = { harness_alloc, h };
	h->pool_used = 0;
	h->allocs = 0;
	memset(&h->err, 0, sizeof(h->err));
	memset(&h->res, 0, sizeof(h->res));
	int r = pm4v_validate(h->v, &s, &a, &h->res, &h->err);
	if (r)
		CHECK(h->err.msg[0] != '\0');
	return r;
}

/* Validates what the builder wrote into bo0 as one MSM_SUBMIT_CMD_BUF. */
static inline int harness_run(struct harness *h)
{
	REQUIRE(pm4_builder_ok(&h->b));
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, BO_CMD, 0, pm4_builder_bytes(&h->b) };
	return harness_submit(h, &cmd, 1, NULL, 0);
}

/* Starts a new stream in bo0. */
static inline void harness_reset(struct harness *h)
{
	memset(h->mem[BO_CMD], 0, CMD_SIZE);
	pm4_builder_init(&h->b, h->mem[BO_CMD], CMD_SIZE / 4u);
}

/* Host pointer of a shadow iova. */
static inline uint32_t *shadow_ptr(struct harness *h, uint64_t iova)
{
	REQUIRE(iova >= POOL_IOVA && iova - POOL_IOVA < POOL_SIZE);
	return (uint32_t *)(h->pool + (iova - POOL_IOVA));
}

static inline uint64_t dw_addr(const uint32_t *p) { return p[0] | (uint64_t)p[1] << 32; }

#define LO(a) ((uint32_t)(a))
#define HI(a) ((uint32_t)((a) >> 32))

/* Expect acceptance / rejection with a rule, printing the message on a mismatch. */
#define EXPECT_OK(h)                                                                          \
	do {                                                                                  \
		int _r = harness_run(h);                                                      \
		if (_r)                                                                       \
			fprintf(stderr, "  unexpected rejection: %s\n", (h)->err.msg);        \
		CHECK_EQ(_r, 0);                                                              \
	} while (0)
#define EXPECT_RULE(h, want)                                                                  \
	do {                                                                                  \
		int _r = harness_run(h);                                                      \
		CHECK_EQ(_r, -1);                                                             \
		if (_r == -1 && (h)->err.rule != (want))                                      \
			fprintf(stderr, "  wrong rule: %s\n", (h)->err.msg);                  \
		CHECK_EQ((h)->err.rule, want);                                                \
	} while (0)

#endif
