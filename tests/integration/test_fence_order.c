/* Fence order per queue: seqnos retire in order, and "signaled" for one seqno implies every
 * earlier seqno of that queue is signaled too; two queues of one context are independent. A
 * submit without cmds takes its place in that order like any other. */
#include <errno.h>
#include <string.h>

#include "itest.h"
#include "test.h"

static struct ferryd_proc ferryd;

static void test_in_order(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct ferry_queue *q2;
	REQUIRE(ferry_queue_create(c.ctx, 0, &q2) == 0);
	CHECK(ferry_queue_id(q2) != ferry_queue_id(c.q));

	struct itest_bo ib, data;
	REQUIRE(itest_bo_new(c.ctx, 128 * 1024, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &data) == 0);
	enum { N = 300, SLOT = 64, LAST = 1000 /* dword: the index of the submit that ran last */ };
	uint32_t seq[N];
	uint32_t first_expected = ferry_queue_next_seqno(c.q);
	for (uint32_t i = 0; i < N; i++) {
		/* Submits of varying length, so the GPU's retire pace varies. */
		struct pm4_builder b;
		pm4_builder_init(&b, ib.cpu + i * SLOT, SLOT);
		uint32_t v = i;
		for (uint32_t k = 0; k <= i % 8; k++)
			pm4_mem_write(&b, data.iova + (i % 512) * 4, &v, 1);
		pm4_mem_write(&b, data.iova + LAST * 4, &v, 1);
		REQUIRE(pm4_builder_ok(&b));
		struct ferry_queue *q = c.q;
		struct ferry_cmd cmd = { ib.bo, i * SLOT * 4, pm4_builder_bytes(&b), 0 };
		struct ferry_submit_bo wb = { data.bo, MSM_SUBMIT_BO_WRITE };
		struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &wb, .nr_bos = 1 };
		CHECK_EQ(ferry_submit(q, &s, &seq[i]), 0);
		if (i > 0)
			CHECK_EQ(seq[i], seq[i - 1] + 1);
		else
			CHECK_EQ(seq[0], first_expected);

		/* Sample the timeline while it runs: signaled must be a prefix. */
		int last_signaled = -1;
		for (uint32_t k = 0; k <= i; k++)
			if (ferry_fence_signaled(q, seq[k]))
				last_signaled = (int)k;
		for (int k = 0; k < last_signaled; k++)
			CHECK(ferry_fence_signaled(q, seq[k]));
	}
	/* Waiting for a middle one: that submit and every one before it has run (its write is in
	 * memory), not only been reported signaled; the last one to run is at least that far. */
	CHECK_EQ(ferry_fence_wait(c.q, seq[N / 2], ITEST_WAIT_NS), 0);
	for (uint32_t k = 0; k <= N / 2; k++) {
		CHECK(ferry_fence_signaled(c.q, seq[k]));
		CHECK_EQ(data.cpu[k], k);
	}
	CHECK(data.cpu[LAST] >= N / 2 && data.cpu[LAST] < N);
	CHECK_EQ(ferry_fence_wait(c.q, seq[N - 1], ITEST_WAIT_NS), 0);
	for (uint32_t k = 0; k < N; k++) {
		CHECK(ferry_fence_signaled(c.q, seq[k]));
		CHECK_EQ(data.cpu[k], k);
	}
	/* Run in submission order: the submit that wrote LAST last is the last one submitted. */
	CHECK_EQ(data.cpu[LAST], N - 1);

	/* The second queue's timeline is its own: nothing submitted there is signaled. */
	uint32_t q2_next = ferry_queue_next_seqno(q2);
	CHECK(!ferry_fence_signaled(q2, q2_next));
	CHECK_EQ(ferry_fence_wait(q2, q2_next, 50 * 1000 * 1000), -ETIMEDOUT);
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, SLOT);
	pm4_nop(&b, 0);
	uint32_t s2;
	struct ferry_cmd cmd = { ib.bo, 0, pm4_builder_bytes(&b), 0 };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };
	CHECK_EQ(ferry_submit(q2, &s, &s2), 0);
	CHECK_EQ(s2, q2_next);
	CHECK_EQ(ferry_fence_wait(q2, s2, ITEST_WAIT_NS), 0);

	ferry_queue_close(q2);
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&c);
}

/* Empty submits (nr_cmds = 0, Turnip's vkQueueSubmit without command buffers) through libferry
 * and ferryd: behind a submit the CP holds at a gate, they get the next seqnos and signal only
 * after it; one on a second queue waits for the first queue's empty one through an in-fence. */
static void test_empty_submit_order(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct ferry_queue *q2;
	REQUIRE(ferry_queue_create(c.ctx, 0, &q2) == 0);
	struct itest_bo ib, data;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &data) == 0);
	data.cpu[0] = 0;
	data.cpu[1] = 0;
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 64);
	pm4_wait_mem_gte(&b, data.iova, 1); /* data[0]: the gate */
	uint32_t value = 0xe3e7f00d;
	pm4_mem_write(&b, data.iova + 4, &value, 1);
	REQUIRE(pm4_builder_ok(&b));

	struct ferry_cmd cmd = { ib.bo, 0, pm4_builder_bytes(&b), 0 };
	struct ferry_submit_bo wb = { data.bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_submit gated = { .cmds = &cmd, .nr_cmds = 1, .bos = &wb, .nr_bos = 1 };
	uint32_t sa = 0, se = 0, sb = 0, s2 = 0;
	REQUIRE(ferry_submit(c.q, &gated, &sa) == 0);
	struct ferry_submit empty = { .flags = FERRY_SUBMIT_NOTIFY };
	CHECK_EQ(ferry_submit(c.q, &empty, &se), 0);
	CHECK_EQ(se, sa + 1);
	struct ferry_submit empty_bos = { .bos = &wb, .nr_bos = 1 }; /* BOs but no cmds */
	CHECK_EQ(ferry_submit(c.q, &empty_bos, &sb), 0);
	CHECK_EQ(sb, se + 1);
	struct ferry_fence_ref in = { .queue_id = ferry_queue_id(c.q), .seqno = se };
	struct ferry_submit chained = { .in_fences = &in, .nr_in_fences = 1, .flags = FERRY_SUBMIT_NOTIFY };
	CHECK_EQ(ferry_submit(q2, &chained, &s2), 0);

	/* The gate is closed: nothing behind the gated submit has signaled. */
	CHECK_EQ(ferry_fence_wait(c.q, se, 50 * 1000 * 1000), -ETIMEDOUT);
	CHECK(!ferry_fence_signaled(c.q, sa));
	CHECK(!ferry_fence_signaled(c.q, sb));
	CHECK(!ferry_fence_signaled(q2, s2));
	CHECK_EQ(data.cpu[1], 0);

	__atomic_store_n(&data.cpu[0], 1, __ATOMIC_SEQ_CST); /* open the gate */
	CHECK_EQ(ferry_fence_wait(q2, s2, ITEST_WAIT_NS), 0);
	CHECK(ferry_fence_signaled(c.q, se));
	CHECK(ferry_fence_signaled(c.q, sa)); /* the empty one signaled only after it */
	CHECK_EQ(data.cpu[1], value);
	CHECK_EQ(ferry_fence_wait(c.q, sb, ITEST_WAIT_NS), 0);
	/* The context still works: no error marked it lost. */
	CHECK(itest_client_works(&c, 0xe3e7beefu));

	ferry_queue_close(q2);
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&c);
}

int main(void)
{
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_in_order);
	RUN_TEST(test_empty_submit_order);
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
