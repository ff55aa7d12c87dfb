/* TOCTOU through a real ferryd: the guest submits an IB that writes pattern A, the GPU is held
 * behind a CP_WAIT_REG_MEM gate in an earlier submit on the same queue, and the guest rewrites
 * its command BO to write pattern B before releasing the gate. A validated context runs the
 * shadow copy made at submit time (A); a passthrough context (ferryd --allow-passthrough) runs
 * the guest's BO as it is at execution time (B) — so the difference is real. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "itest.h"
#include "test.h"

#define PATTERN_A 0xaaaa0001u
#define PATTERN_B 0xbbbb0002u
#define RESULT_DW 16u /* data dword the payload writes */
#define PAYLOAD_DW 256u /* where the payload stream sits in the command BO */

static bool submit_ok(struct ferry_queue *q, struct ferry_bo *cmd, uint32_t offset, uint32_t bytes,
		      struct ferry_bo *data, uint32_t *seqno)
{
	struct ferry_submit_bo bo = { data, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd c = { .bo = cmd, .offset = offset, .size = bytes };
	struct ferry_submit s = { .cmds = &c, .nr_cmds = 1, .bos = &bo, .nr_bos = 1 };
	return ferry_submit(q, &s, seqno) == 0;
}

/* Runs the scenario on a fresh context of the given policy; returns what the GPU wrote. */
static uint32_t run_scenario(const char *uri, uint32_t policy)
{
	struct ferry_device *dev = NULL;
	struct ferry_context *ctx = NULL;
	struct ferry_queue *q = NULL;
	REQUIRE(ferry_device_open(uri, &dev) == 0);
	int r = ferry_context_create(dev, FERRY_FAMILY_MSM, policy, &ctx);
	if (r < 0)
		fprintf(stderr, "context: %s\n", ferry_device_last_error(dev));
	REQUIRE(r == 0);
	REQUIRE(ferry_queue_create(ctx, 0, &q) == 0);
	struct itest_bo cmd, data;
	REQUIRE(itest_bo_new(ctx, 4096, &cmd) == 0);
	REQUIRE(itest_bo_new(ctx, 4096, &data) == 0);

	struct pm4_builder b;
	pm4_builder_init(&b, cmd.cpu, PAYLOAD_DW);
	pm4_wait_mem(&b, WRITE_GE, data.iova, 1, 0xffffffffu); /* the gate: data[0] >= 1 */
	uint32_t gate_bytes = pm4_builder_bytes(&b);
	pm4_builder_init(&b, cmd.cpu + PAYLOAD_DW, 64);
	pm4_mem_write(&b, data.iova + RESULT_DW * 4, (const uint32_t[]){ PATTERN_A }, 1);
	uint32_t payload_bytes = pm4_builder_bytes(&b);
	uint32_t *value = &cmd.cpu[PAYLOAD_DW + 3]; /* CP_MEM_WRITE: header, addr lo, hi, value */
	REQUIRE(*value == PATTERN_A);

	uint32_t gate_seqno, payload_seqno;
	REQUIRE(submit_ok(q, cmd.bo, 0, gate_bytes, data.bo, &gate_seqno));
	REQUIRE(submit_ok(q, cmd.bo, PAYLOAD_DW * 4, payload_bytes, data.bo, &payload_seqno));
	/* A round trip: ferryd has handled (validated, queued) both submits once it answers. */
	r = ferry_bo_cpu_prep(data.bo, MSM_PREP_READ, 0);
	CHECK(r == -EBUSY);
	CHECK(!ferry_fence_signaled(q, payload_seqno));

	__atomic_store_n(value, PATTERN_B, __ATOMIC_SEQ_CST);     /* the guest changes its mind */
	__atomic_store_n(&data.cpu[0], 1, __ATOMIC_SEQ_CST);      /* and opens the gate */
	r = ferry_fence_wait(q, payload_seqno, ITEST_WAIT_NS);
	if (r != 0)
		fprintf(stderr, "wait: %d (%s)\n", r, ferry_device_last_error(dev));
	CHECK_EQ(r, 0);
	uint32_t written = __atomic_load_n(&data.cpu[RESULT_DW], __ATOMIC_SEQ_CST);

	ferry_bo_close(cmd.bo);
	ferry_bo_close(data.bo);
	ferry_queue_close(q);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	return written;
}

static void test_validated_runs_what_was_validated(void)
{
	struct ferryd_proc p = { .pid = -1 };
	itest_start_ferryd(&p);
	CHECK_EQ(run_scenario(p.uri, FERRY_POLICY_VALIDATED), PATTERN_A);

	/* This ferryd was not started with --allow-passthrough: asking for it is refused. */
	struct ferry_device *dev = NULL;
	struct ferry_context *ctx = NULL;
	REQUIRE(ferry_device_open(p.uri, &dev) == 0);
	CHECK_EQ(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_PASSTHROUGH, &ctx), -EPERM);
	CHECK(strstr(ferry_device_last_error(dev), "--allow-passthrough") != NULL);
	ferry_device_close(dev);
	CHECK(itest_stop_ferryd(&p));
}

static void test_passthrough_runs_the_rewrite(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	struct ferryd_proc p = { .pid = -1 };
	const char *const extra[] = { "--allow-passthrough", NULL };
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &p) == 0);
	CHECK_EQ(run_scenario(p.uri, FERRY_POLICY_PASSTHROUGH), PATTERN_B);
	/* The same server still validates contexts that do not ask for passthrough. */
	CHECK_EQ(run_scenario(p.uri, FERRY_POLICY_VALIDATED), PATTERN_A);
	CHECK(itest_stop_ferryd(&p));
}

int main(void)
{
	RUN_TEST(test_validated_runs_what_was_validated);
	RUN_TEST(test_passthrough_runs_the_rewrite);
	return test_finish();
}
