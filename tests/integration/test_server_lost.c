/* A server that dies under its clients (a farm's board gone): ferryd is SIGKILLed while one
 * thread sleeps in a fence wait on a stalled submit, another in a wait on several fences and a
 * third in a request's round trip. Each must end within a second with an error, the contexts
 * count as lost, every later call fails at once, and the error text says the connection to the
 * server was lost. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct waiter {
	struct ferry_queue *q, *q2;
	uint32_t seqno, seqno2;
	int kind; /* 0 fence wait, 1 wait many, 2 request round trips */
	struct ferry_context *ctx;
	int result;
	int64_t ended_ns;
};

static void *wait_thread(void *p)
{
	struct waiter *w = p;
	if (w->kind == 0) {
		w->result = ferry_fence_wait(w->q, w->seqno, -1);
	} else if (w->kind == 1) {
		struct ferry_fence_point f[2] = { { w->q, w->seqno }, { w->q2, w->seqno2 } };
		w->result = ferry_fence_wait_many(f, 2, true, -1, NULL);
	} else {
		uint64_t ticks;
		do
			w->result = ferry_context_timestamp(w->ctx, &ticks);
		while (w->result == 0);
	}
	w->ended_ns = now_ns();
	return NULL;
}

static void test_server_killed(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	/* No hangcheck within the test: the stalled submit stays pending until the kill. */
	const char *extra[] = { "--hangcheck-ms", "600000", "--fence-timeout-ms", "0", NULL };
	struct ferryd_proc ferryd;
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) == 0);

	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct itest_bo ib, sync;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &sync) == 0);
	sync.cpu[0] = 0;
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	pm4_wait_mem(&b, WRITE_EQ, sync.iova, 0x60, 0xffffffffu); /* never written */
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_bo *w[] = { sync.bo };
	uint32_t seqno, seqno2;
	REQUIRE(itest_submit(&c, ib.bo, 0, pm4_builder_bytes(&b), w, 1, &seqno) == 0);
	seqno2 = seqno - 1; /* signaled long ago (or 0): wait-many mixes a done and a pending fence */
	CHECK_EQ(ferry_fence_wait(c.q, seqno, 50 * 1000 * 1000), -ETIMEDOUT);

	enum { W = 3 };
	struct waiter ws[W];
	pthread_t th[W];
	for (int i = 0; i < W; i++) {
		ws[i] = (struct waiter){ .q = c.q, .q2 = c.q, .seqno = seqno, .seqno2 = seqno2,
					 .kind = i, .ctx = c.ctx, .result = 1 };
		REQUIRE(pthread_create(&th[i], NULL, wait_thread, &ws[i]) == 0);
	}
	nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	CHECK(!ferry_context_lost(c.ctx));

	int64_t t_kill = now_ns();
	REQUIRE(kill(ferryd.pid, SIGKILL) == 0);
	int st;
	REQUIRE(waitpid(ferryd.pid, &st, 0) == ferryd.pid);
	for (int i = 0; i < W; i++) {
		pthread_join(th[i], NULL);
		int64_t ms = (ws[i].ended_ns - t_kill) / 1000000;
		fprintf(stderr, "waiter %d (%s) ended after %lld ms: %s\n", i,
			i == 0 ? "fence wait" : i == 1 ? "wait many" : "round trips", (long long)ms,
			strerror(-ws[i].result));
		CHECK(ws[i].result < 0);
		CHECK(ms < 1000);
	}
	const char *err = ferry_device_last_error(c.dev);
	fprintf(stderr, "last error: %s\n", err);
	CHECK(strstr(err, "connection to the server") != NULL);
	CHECK(strstr(err, "was lost") != NULL);
	CHECK(ferry_context_lost(c.ctx));
	CHECK(ferry_fence_signaled(c.q, seqno)); /* over: failed, not pending forever */
	CHECK_EQ(ferry_fence_wait(c.q, seqno, -1), -EPIPE);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(ws[i].result, -EPIPE);
	CHECK(ferry_device_poll_events(c.dev) < 0);
	uint64_t ticks;
	int64_t t0 = now_ns();
	CHECK(ferry_context_timestamp(c.ctx, &ticks) < 0);
	uint32_t s3;
	CHECK(itest_submit(&c, ib.bo, 0, pm4_builder_bytes(&b), w, 1, &s3) < 0);
	struct ferry_queue *q3 = NULL;
	(void)ferry_queue_create(c.ctx, 0, &q3); /* may queue locally; must not hang */
	CHECK(now_ns() - t0 < 1000ll * 1000 * 1000);

	if (q3)
		ferry_queue_close(q3);
	ferry_bo_close(ib.bo);
	ferry_bo_close(sync.bo);
	itest_client_close(&c);
	ferryd.pid = 0;
	ferryd_stop(&ferryd, 1000); /* removes its directory */
}

int main(void)
{
	RUN_TEST(test_server_killed);
	return test_finish();
}
