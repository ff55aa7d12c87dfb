/* Wait timeout: a submit stalls in CP_WAIT_REG_MEM on a word the guest sets later by CPU write;
 * ferry_fence_wait returns -ETIMEDOUT meanwhile, and completes once the word is written. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "itest.h"
#include "test.h"

static struct ferryd_proc ferryd;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct waiter {
	struct ferry_queue *q;
	uint32_t seqno;
	int result;
};

static void *wait_thread(void *p)
{
	struct waiter *w = p;
	w->result = ferry_fence_wait(w->q, w->seqno, ITEST_WAIT_NS);
	return NULL;
}

static void test_timeout_then_complete(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct itest_bo ib, sync, out;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &sync) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &out) == 0);
	sync.cpu[0] = 0;
	out.cpu[0] = 0;

	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	pm4_wait_mem(&b, WRITE_EQ, sync.iova, 0x60, 0xffffffffu);
	pm4_mem_write(&b, out.iova, (const uint32_t[]){ 0xD0E }, 1);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_bo *w[] = { sync.bo, out.bo };
	uint32_t seqno;
	CHECK_EQ(itest_submit(&c, ib.bo, 0, pm4_builder_bytes(&b), w, 2, &seqno), 0);

	int64_t t0 = now_ns();
	/* Well inside the simulator's 500 ms hangcheck, which would end the stall as a hang. */
	CHECK_EQ(ferry_fence_wait(c.q, seqno, 100 * 1000 * 1000), -ETIMEDOUT);
	int64_t took = now_ns() - t0;
	CHECK(took >= 95 * 1000 * 1000);
	CHECK(!ferry_fence_signaled(c.q, seqno));
	CHECK_EQ(ferry_fence_wait(c.q, seqno, 0), -ETIMEDOUT);
	CHECK_EQ(out.cpu[0], 0);

	/* Several threads wait on the same fence (one reads the eventfd, the others are woken by
	 * it): all must see it complete once the guest writes the word. */
	enum { W = 4 };
	struct waiter ws[W];
	pthread_t th[W];
	for (int i = 0; i < W; i++) {
		ws[i] = (struct waiter){ c.q, seqno, 1 };
		REQUIRE(pthread_create(&th[i], NULL, wait_thread, &ws[i]) == 0);
	}
	nanosleep(&(struct timespec){ 0, 30 * 1000 * 1000 }, NULL);
	__atomic_store_n(&sync.cpu[0], 0x60, __ATOMIC_SEQ_CST);
	t0 = now_ns();
	CHECK_EQ(ferry_fence_wait(c.q, seqno, ITEST_WAIT_NS), 0);
	for (int i = 0; i < W; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ(ws[i].result, 0);
	}
	CHECK(now_ns() - t0 < 15ll * 1000 * 1000 * 1000);
	CHECK_EQ(out.cpu[0], 0xD0E);
	CHECK(ferry_fence_signaled(c.q, seqno));

	ferry_bo_close(ib.bo);
	ferry_bo_close(sync.bo);
	ferry_bo_close(out.bo);
	itest_client_close(&c);
}

int main(void)
{
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_timeout_then_complete);
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
