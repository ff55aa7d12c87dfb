/* External fences: a queue of kind EXTERNAL whose seqnos the guest adds and signals. A submit
 * naming one in its in-fences is held until that one signaled (an earlier one still pending does
 * not hold it), while the queue's seqnos retire in order on the guest's fence page;
 * misuse (signal twice, signal what was never added, submit to the queue, a positive status) is
 * refused with the reason and changes nothing; closing the queue fails what is left with
 * -ECANCELED and releases the submits held on it. */
#include <errno.h>
#include <string.h>

#include "itest.h"
#include "test.h"

static struct ferryd_proc ferryd;

#define SHORT_NS (50ll * 1000 * 1000)

/* A submit on c->q that writes value to data[word] once the in-fence (eq, eseqno) signaled. */
static uint32_t gated_write(struct itest_client *c, struct itest_bo *ib, uint32_t slot, struct itest_bo *data,
			    uint32_t word, uint32_t value, struct ferry_queue *eq, uint32_t eseqno)
{
	struct pm4_builder b;
	pm4_builder_init(&b, ib->cpu + slot * 64, 64);
	pm4_mem_write(&b, data->iova + word * 4, &value, 1);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_cmd cmd = { ib->bo, slot * 256, pm4_builder_bytes(&b), 0 };
	struct ferry_submit_bo wb = { data->bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_fence_ref in = { ferry_queue_id(eq), eseqno };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &wb, .nr_bos = 1, .in_fences = &in,
				  .nr_in_fences = 1 };
	uint32_t seqno = 0;
	REQUIRE(ferry_submit(c->q, &s, &seqno) == 0);
	return seqno;
}

/* A client with an external queue, a command BO and a zeroed data BO. */
static void fixture_open(struct itest_client *c, struct ferry_queue **eq, struct itest_bo *ib, struct itest_bo *data)
{
	REQUIRE(itest_client_open(ferryd.uri, c) == 0);
	REQUIRE(ferry_queue_create_kind(c->ctx, FERRY_QUEUE_KIND_EXTERNAL, 0, eq) == 0);
	REQUIRE(itest_bo_new(c->ctx, 64 * 1024, ib) == 0);
	REQUIRE(itest_bo_new(c->ctx, 4096, data) == 0);
	memset(data->cpu, 0, 4096);
}

/* A round trip, so the host's answers to everything sent before have arrived. */
static void sync_with_host(struct itest_client *c)
{
	uint64_t t;
	CHECK_EQ(ferry_context_timestamp(c->ctx, &t), 0);
}

static void test_external_fences(void)
{
	struct itest_client c;
	struct ferry_queue *eq;
	struct itest_bo ib, data;
	fixture_open(&c, &eq, &ib, &data);

	uint32_t e1 = 0, e2 = 0;
	CHECK_EQ(ferry_external_fence_add(eq, &e1), 0);
	CHECK_EQ(ferry_external_fence_add(eq, &e2), 0);
	CHECK_EQ(e2, e1 + 1);
	uint32_t s = gated_write(&c, &ib, 0, &data, 5, 0xe7e7e701u, eq, e2);
	uint32_t s1 = gated_write(&c, &ib, 1, &data, 4, 0xe7e7e700u, eq, e1);
	/* Nothing can run them before their fences signaled. */
	CHECK_EQ(ferry_fence_wait(c.q, s, SHORT_NS), -ETIMEDOUT);
	CHECK(!ferry_fence_signaled(eq, e1));
	CHECK_EQ(data.cpu[5], 0);
	CHECK_EQ(ferry_external_fence_signal(eq, e2, 0), 0);
	/* e2's submit is free; its queue's next one waits for e1, as do e2 on the fence page. */
	CHECK_EQ(ferry_fence_wait(c.q, s, ITEST_WAIT_NS), 0);
	CHECK_EQ(data.cpu[5], 0xe7e7e701u);
	CHECK_EQ(ferry_fence_wait(c.q, s1, SHORT_NS), -ETIMEDOUT);
	CHECK(!ferry_fence_signaled(eq, e2));
	CHECK_EQ(ferry_external_fence_signal(eq, e1, -EPIPE), 0);
	CHECK_EQ(ferry_fence_wait(c.q, s1, ITEST_WAIT_NS), 0);
	CHECK_EQ(data.cpu[4], 0xe7e7e700u);
	/* The guest sees them as any fence: e1 with its error, e2 clean. */
	CHECK_EQ(ferry_fence_wait(eq, e1, 0), -EPIPE);
	CHECK_EQ(ferry_fence_wait(eq, e2, 0), 0);

	/* Misuse: refused with the reason, nothing else changes. */
	CHECK_EQ(ferry_external_fence_signal(eq, e2, 0), 0); /* sent; the host refuses it */
	sync_with_host(&c);
	CHECK(strstr(ferry_device_last_error(c.dev), "is not pending") != NULL);
	CHECK_EQ(ferry_external_fence_signal(eq, e2 + 7, 0), 0);
	sync_with_host(&c);
	CHECK(strstr(ferry_device_last_error(c.dev), "is not pending") != NULL);
	uint32_t e3 = 0;
	CHECK_EQ(ferry_external_fence_add(eq, &e3), 0);
	CHECK_EQ(ferry_external_fence_signal(eq, e3, 5), 0); /* libferry sends 0 for a positive one */
	CHECK_EQ(ferry_fence_wait(eq, e3, ITEST_WAIT_NS), 0);
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu + 64, 64);
	uint32_t v = 1;
	pm4_mem_write(&b, data.iova, &v, 1);
	struct ferry_cmd cmd = { ib.bo, 256, pm4_builder_bytes(&b), 0 };
	struct ferry_submit sub = { .cmds = &cmd, .nr_cmds = 1 };
	uint32_t bad = 0;
	CHECK_EQ(ferry_submit(eq, &sub, &bad), 0); /* sent; refused: the fence fails */
	CHECK(ferry_fence_wait(eq, bad, ITEST_WAIT_NS) < 0);
	CHECK(strstr(ferry_device_last_error(c.dev), "external queue") != NULL);
	CHECK(!ferry_context_lost(c.ctx));

	/* Closing the queue fails what it still has and releases the submits held on it. */
	uint32_t e4 = 0;
	CHECK_EQ(ferry_external_fence_add(eq, &e4), 0);
	uint32_t s2 = gated_write(&c, &ib, 2, &data, 6, 0xe7e7e702u, eq, e4);
	CHECK_EQ(ferry_fence_wait(c.q, s2, SHORT_NS), -ETIMEDOUT);
	ferry_queue_close(eq);
	CHECK_EQ(ferry_fence_wait(c.q, s2, ITEST_WAIT_NS), 0); /* in-fence errors do not fail a job */
	CHECK_EQ(data.cpu[6], 0xe7e7e702u);
	CHECK(itest_client_works(&c, 0x0e7e0e7eu));

	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&c);
}

/* What the library lets a caller get wrong: an add on a queue of another kind, a status that
 * is no errno (ferryd refuses it; libferry passes what it is given within int32). */
static void test_refusals(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct ferry_queue *eq;
	REQUIRE(ferry_queue_create_kind(c.ctx, FERRY_QUEUE_KIND_EXTERNAL, 0, &eq) == 0);
	uint32_t e = 0;
	/* On a queue of another kind. */
	CHECK_EQ(ferry_external_fence_add(c.q, &e), 0);
	CHECK(ferry_fence_wait(c.q, e, ITEST_WAIT_NS) < 0); /* the add was refused: the seqno failed */
	CHECK(strstr(ferry_device_last_error(c.dev), "not an external queue") != NULL);
	CHECK_EQ(ferry_external_fence_add(eq, &e), 0);
	CHECK_EQ(ferry_external_fence_signal(eq, e, -100000), 0); /* sent as -EIO */
	CHECK_EQ(ferry_fence_wait(eq, e, ITEST_WAIT_NS), -EIO);
	CHECK(itest_client_works(&c, 0x0e7e0e7fu));
	itest_client_close(&c);
}

/* At most 1024 external fences per context wait to retire, signaled or not; a submit waiting
 * on one that signaled runs even while an earlier one of its queue is still pending; closing the
 * queue gives the room back. */
static void test_cap_and_order(void)
{
	enum { CAP = 1024 };
	struct itest_client c;
	struct ferry_queue *eq;
	struct itest_bo ib, data;
	fixture_open(&c, &eq, &ib, &data);
	uint32_t first = 0, last = 0, over = 0;
	for (uint32_t i = 0; i < CAP; i++)
		CHECK_EQ(ferry_external_fence_add(eq, i ? &last : &first), 0);
	CHECK_EQ(ferry_external_fence_add(eq, &over), 0);
	CHECK_EQ(ferry_fence_wait(eq, over, ITEST_WAIT_NS), -EAGAIN); /* refused: the seqno failed */
	CHECK(strstr(ferry_device_last_error(c.dev), "too many external fences") != NULL);
	/* Signaled behind the pending first one: still on the ring, still counted. */
	for (uint32_t s = first + 1; s != last + 1; s++)
		CHECK_EQ(ferry_external_fence_signal(eq, s, 0), 0);
	CHECK_EQ(ferry_external_fence_add(eq, &over), 0);
	CHECK_EQ(ferry_fence_wait(eq, over, ITEST_WAIT_NS), -EAGAIN);
	CHECK(!ferry_fence_signaled(eq, last)); /* in order on the guest's page */
	/* A submit waits on its own fence only. */
	uint32_t s = gated_write(&c, &ib, 0, &data, 7, 0xe7e7e703u, eq, last);
	CHECK_EQ(ferry_fence_wait(c.q, s, ITEST_WAIT_NS), 0);
	CHECK_EQ(data.cpu[7], 0xe7e7e703u);
	uint32_t s2 = gated_write(&c, &ib, 1, &data, 8, 0xe7e7e704u, eq, first);
	CHECK_EQ(ferry_fence_wait(c.q, s2, SHORT_NS), -ETIMEDOUT);
	ferry_queue_close(eq); /* first fails -ECANCELED; everything retires */
	CHECK_EQ(ferry_fence_wait(c.q, s2, ITEST_WAIT_NS), 0);
	CHECK_EQ(data.cpu[8], 0xe7e7e704u);
	struct ferry_queue *eq2;
	REQUIRE(ferry_queue_create_kind(c.ctx, FERRY_QUEUE_KIND_EXTERNAL, 0, &eq2) == 0);
	uint32_t e = 0;
	CHECK_EQ(ferry_external_fence_add(eq2, &e), 0);
	CHECK_EQ(ferry_external_fence_signal(eq2, e, 0), 0);
	CHECK_EQ(ferry_fence_wait(eq2, e, ITEST_WAIT_NS), 0);
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&c);
}

int main(void)
{
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_external_fences);
	RUN_TEST(test_refusals);
	RUN_TEST(test_cap_and_order);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
