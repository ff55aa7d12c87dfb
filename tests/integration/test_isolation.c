/* One client cannot take ferryd's event loop from the others: while a hostile client's
 * maximum-cost submits are being validated, or its 16 contexts loop the GPU, a good client's
 * HELLO and submit+wait are served. Checked by the order in which ferryd served things (its
 * submit counter when the good client's wait returned), never by timing; the waits' timeouts
 * are hang guards only. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_client.h"
#include "ferry/hw/adreno_pm4.h"
#include "itest.h"
#include "test.h"

#define GUARD_NS (20ll * 1000 * 1000 * 1000) /* hang guard, not a speed requirement */

static struct ferryd_proc ferryd;

static void start(const char *const *extra)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) == 0);
}

/* ferryd's count of submits it accepted (validated and sent to the GPU, or held). */
static long submits_accepted(void)
{
	char *ans = NULL;
	REQUIRE(control_request(ferryd.control, "status", 20000, &ans) == 0);
	const char *at = strstr(ans, "\nsubmits: ");
	REQUIRE(at);
	long n = strtol(at + 10, NULL, 10);
	free(ans);
	return n;
}

/* The good client: a small stream writing `value`, submitted and waited for. */
struct good {
	struct itest_client c;
	struct itest_bo ib, data;
	uint32_t bytes;
};

static void good_open(struct good *g)
{
	REQUIRE(itest_client_open(ferryd.uri, &g->c) == 0);
	REQUIRE(itest_bo_new(g->c.ctx, 4096, &g->ib) == 0);
	REQUIRE(itest_bo_new(g->c.ctx, 4096, &g->data) == 0);
}

static int good_submit_wait(struct good *g, uint32_t value)
{
	struct pm4_builder b;
	pm4_builder_init(&b, g->ib.cpu, 1024);
	pm4_mem_write(&b, g->data.iova, &value, 1);
	REQUIRE(pm4_builder_ok(&b));
	uint32_t seqno;
	int r = itest_submit(&g->c, g->ib.bo, 0, pm4_builder_bytes(&b), &g->data.bo, 1, &seqno);
	if (r == 0)
		r = ferry_fence_wait(g->c.q, seqno, GUARD_NS);
	return r == 0 && g->data.cpu[0] == value ? 0 : -EIO;
}

static void good_close(struct good *g)
{
	ferry_bo_close(g->ib.bo);
	ferry_bo_close(g->data.bo);
	itest_client_close(&g->c);
}

/* A fresh connection's handshake (ferry_device_open sends HELLO and waits for the reply). */
static int hello(void)
{
	struct ferry_device *d;
	int r = ferry_device_open(ferryd.uri, &d);
	if (r == 0)
		ferry_device_close(d);
	return r;
}

/* Three submits of 16 cmds of ~1 Mi dwords of type-4 writes each, sent back to back: seconds
 * of validation in all. The good client, asking after them, is served before the first of
 * them is done: it was not made to wait for a whole submit's validation. */
static void test_served_during_maximum_cost_validation(void)
{
	start(NULL);
	struct good g;
	good_open(&g);
	CHECK_EQ(good_submit_wait(&g, 1), 0);

	struct itest_client h;
	REQUIRE(itest_client_open(ferryd.uri, &h) == 0);
	const uint64_t stride = 4u << 20;
	struct itest_bo cmd;
	REQUIRE(itest_bo_new(h.ctx, 16 * stride, &cmd) == 0);
	for (uint64_t i = 0; i + 1 < 16 * stride / 4; i += 2) {
		cmd.cpu[i] = pm4_type4_hdr(0x8000, 1);
		cmd.cpu[i + 1] = (uint32_t)i;
	}
	struct ferry_cmd cmds[16];
	for (int i = 0; i < 16; i++)
		cmds[i] = (struct ferry_cmd){ .bo = cmd.bo, .offset = (uint32_t)(stride * (uint64_t)i),
					      .size = 0xffffeu * 4 };
	struct ferry_submit s = { .cmds = cmds, .nr_cmds = 16 };
	long before = submits_accepted();
	CHECK_EQ(before, 1);
	uint32_t hseq[3];
	for (int i = 0; i < 3; i++)
		REQUIRE(ferry_submit(h.q, &s, &hseq[i]) == 0);
	/* The operator's control request is served meanwhile too. */
	CHECK_EQ(submits_accepted(), before);

	CHECK_EQ(hello(), 0);
	CHECK_EQ(good_submit_wait(&g, 2), 0);
	/* Only the good client's second submit was accepted since: the hostile's first is still
	 * being validated (before the fix, the loop validated it whole before serving anyone). */
	long after = submits_accepted();
	if (after != before + 1)
		fprintf(stderr, "  %ld submits accepted meanwhile, %ld of them the hostile's\n", after - before,
			after - before - 1);
	CHECK_EQ(after, before + 1);

	/* The hostile's submits are all accepted in the end and complete (the simulator may call
	 * running 8 Mi register writes a hang on a slow build: that is the GPU's verdict, not
	 * ferryd's, and also completes the fence — with -ETIMEDOUT, the hang's status, which is why
	 * "completed" is asked of the fence and not read off the wait's result). */
	for (int i = 0; i < 3; i++) {
		int r = ferry_fence_wait(h.q, hseq[i], 300ll * 1000 * 1000 * 1000);
		CHECK(r != -ETIMEDOUT || ferry_fence_signaled(h.q, hseq[i]));
	}
	CHECK_EQ(submits_accepted(), before + 4);
	ferry_bo_close(cmd.bo);
	itest_client_close(&h);
	good_close(&g);
	CHECK(itest_stop_ferryd(&ferryd));
}

/* 16 contexts of one client whose submits wait forever on memory that never matches (the
 * hangcheck is long, so they loop throughout): another client's HELLO and submit+wait still
 * complete, repeatedly. */
static void test_served_while_gpu_loops(void)
{
	static const char *const extra[] = { "--hangcheck-ms", "60000", NULL };
	start(extra);
	struct good g;
	good_open(&g);
	struct ferry_device *hd;
	REQUIRE(ferry_device_open(ferryd.uri, &hd) == 0);
	struct ferry_context *hctx[16];
	struct ferry_queue *hq[16];
	struct itest_bo hbo[16];
	for (int i = 0; i < 16; i++) {
		REQUIRE(ferry_context_create(hd, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &hctx[i]) == 0);
		REQUIRE(ferry_queue_create(hctx[i], 0, &hq[i]) == 0);
		REQUIRE(itest_bo_new(hctx[i], 4096, &hbo[i]) == 0);
		struct pm4_builder b;
		pm4_builder_init(&b, hbo[i].cpu, 512);
		pm4_wait_mem(&b, WRITE_EQ, hbo[i].iova + 2048, 1, 0xffffffff);
		REQUIRE(pm4_builder_ok(&b));
		struct ferry_cmd c = { .bo = hbo[i].bo, .offset = 0, .size = pm4_builder_bytes(&b) };
		struct ferry_submit s = { .cmds = &c, .nr_cmds = 1 };
		uint32_t seqno;
		REQUIRE(ferry_submit(hq[i], &s, &seqno) == 0);
	}
	for (uint32_t i = 0; i < 20; i++) {
		CHECK_EQ(hello(), 0);
		CHECK_EQ(good_submit_wait(&g, 100 + i), 0);
	}
	/* Let them go: the memory they wait on now matches. */
	for (int i = 0; i < 16; i++)
		__atomic_store_n(&hbo[i].cpu[512], 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 16; i++) {
		ferry_bo_close(hbo[i].bo);
		ferry_queue_close(hq[i]);
		ferry_context_destroy(hctx[i]);
	}
	ferry_device_close(hd);
	good_close(&g);
	CHECK(itest_stop_ferryd(&ferryd));
}

int main(void)
{
	RUN_TEST(test_served_during_maximum_cost_validation);
	RUN_TEST(test_served_while_gpu_loops);
	return test_finish();
}
