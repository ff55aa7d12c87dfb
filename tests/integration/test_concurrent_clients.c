/* 8 concurrent clients (threads, each its own connection, context and BOs) submitting and
 * checking their own results; then 4 threads sharing one device and context, each waiting on
 * its own fences (the shared-eventfd path). */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "itest.h"
#include "test.h"

static struct ferryd_proc ferryd;

enum { CLIENTS = 8, ROUNDS = 60, PER_ROUND = 4 };

struct client_result {
	int id;
	int errors;
	int wrong;
	char why[160];
};

static void *client_thread(void *p)
{
	struct client_result *res = p;
	struct itest_client c;
	if (itest_client_open(ferryd.uri, &c) < 0) {
		res->errors++;
		snprintf(res->why, sizeof(res->why), "open failed");
		return NULL;
	}
	struct itest_bo ib, data;
	if (itest_bo_new(c.ctx, 64 * 1024, &ib) < 0 || itest_bo_new(c.ctx, 4096, &data) < 0) {
		res->errors++;
		snprintf(res->why, sizeof(res->why), "bo: %s", ferry_device_last_error(c.dev));
		itest_client_close(&c);
		return NULL;
	}
	memset(data.cpu, 0, 4096);
	for (uint32_t r = 0; r < ROUNDS; r++) {
		uint32_t last = 0;
		for (uint32_t k = 0; k < PER_ROUND; k++) {
			uint32_t i = r * PER_ROUND + k;
			uint32_t slot = i % 128; /* 128 x 128 dwords of IB space, reused after a wait */
			struct pm4_builder b;
			pm4_builder_init(&b, ib.cpu + slot * 128, 128);
			uint32_t v = ((uint32_t)res->id << 24) | i;
			pm4_mem_write(&b, data.iova + (i % 1024) * 4, &v, 1);
			if (itest_submit(&c, ib.bo, slot * 128 * 4, pm4_builder_bytes(&b), &data.bo, 1,
					 &last) < 0) {
				res->errors++;
				snprintf(res->why, sizeof(res->why), "submit: %s",
					 ferry_device_last_error(c.dev));
			}
		}
		int w = ferry_fence_wait(c.q, last, ITEST_WAIT_NS);
		if (w != 0) {
			res->errors++;
			snprintf(res->why, sizeof(res->why), "wait: %d", w);
			break;
		}
		for (uint32_t k = 0; k < PER_ROUND; k++) {
			uint32_t i = r * PER_ROUND + k;
			if (data.cpu[i % 1024] != (((uint32_t)res->id << 24) | i))
				res->wrong++;
		}
	}
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&c);
	return NULL;
}

static void test_eight_clients(void)
{
	pthread_t th[CLIENTS];
	struct client_result res[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		res[i] = (struct client_result){ .id = i + 1 };
		REQUIRE(pthread_create(&th[i], NULL, client_thread, &res[i]) == 0);
	}
	for (int i = 0; i < CLIENTS; i++) {
		pthread_join(th[i], NULL);
		if (res[i].errors)
			fprintf(stderr, "client %d: %s\n", res[i].id, res[i].why);
		CHECK_EQ(res[i].errors, 0);
		CHECK_EQ(res[i].wrong, 0);
	}
}

/* ---- one device, several threads ---- */

struct shared_ctx {
	struct itest_client *c;
	struct itest_bo *ib, *data;
	pthread_mutex_t ib_lock;
	uint32_t next_slot;
};

struct shared_thread {
	struct shared_ctx *s;
	int id;
	int bad;
};

static void *shared_thread(void *p)
{
	struct shared_thread *t = p;
	struct shared_ctx *s = t->s;
	struct ferry_queue *q;
	if (ferry_queue_create(s->c->ctx, 0, &q) < 0) {
		t->bad++;
		return NULL;
	}
	for (uint32_t i = 0; i < 50; i++) {
		pthread_mutex_lock(&s->ib_lock);
		uint32_t slot = s->next_slot++ % 256;
		pthread_mutex_unlock(&s->ib_lock);
		struct pm4_builder b;
		pm4_builder_init(&b, s->ib->cpu + slot * 64, 64);
		uint32_t v = ((uint32_t)t->id << 16) | i;
		pm4_mem_write(&b, s->data->iova + (uint32_t)t->id * 4, &v, 1);
		struct ferry_cmd cmd = { s->ib->bo, slot * 64 * 4, pm4_builder_bytes(&b), 0 };
		struct ferry_submit_bo wb = { s->data->bo, MSM_SUBMIT_BO_WRITE };
		struct ferry_submit sub = { .cmds = &cmd, .nr_cmds = 1, .bos = &wb, .nr_bos = 1 };
		uint32_t seqno;
		if (ferry_submit(q, &sub, &seqno) < 0 ||
		    ferry_fence_wait(q, seqno, ITEST_WAIT_NS) != 0 ||
		    __atomic_load_n(&s->data->cpu[t->id], __ATOMIC_SEQ_CST) != v)
			t->bad++;
	}
	ferry_queue_close(q);
	return NULL;
}

static void test_threads_share_a_device(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct itest_bo ib, data;
	REQUIRE(itest_bo_new(c.ctx, 64 * 1024, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &data) == 0);
	struct shared_ctx s = { &c, &ib, &data, PTHREAD_MUTEX_INITIALIZER, 0 };
	enum { T = 4 };
	pthread_t th[T];
	struct shared_thread ts[T];
	for (int i = 0; i < T; i++) {
		ts[i] = (struct shared_thread){ &s, i, 0 };
		REQUIRE(pthread_create(&th[i], NULL, shared_thread, &ts[i]) == 0);
	}
	for (int i = 0; i < T; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ(ts[i].bad, 0);
	}
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&c);
}

int main(void)
{
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_eight_clients);
	RUN_TEST(test_threads_share_a_device);
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
