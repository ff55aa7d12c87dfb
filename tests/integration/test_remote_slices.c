/* ferryd diffs a tcp client's mapped BOs in slices (FERRYD_MIRROR_SLICE_BYTES a loop pass,
 * docs/network.md): a GPU write into a 64 MiB BO still arrives whole and before the fence says
 * so (FenceUpdate, FENCE_SIGNALED and a FENCE_WAIT reply, checked frame by frame on a raw
 * connection), and while a 256 MiB diff is pending a unix client's submit+wait is served. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control_client.h"
#include "ferry/bo_mirror.h"
#include "ferry/wire.h"
#include "itest.h"
#include "itest_raw.h"
#include "test.h"
#include "transport.h"

static struct ferryd_proc ferryd;
static char tcp_uri[64];
static struct itest_client a; /* tcp: mirrored memory */

/* remote-mirror-slices from the control socket (fast: no process started). */
static uint64_t slices(void)
{
	char *ans = NULL;
	REQUIRE(control_request(ferryd.control, "status", 5000, &ans) == 0);
	const char *p = ans ? strstr(ans, "remote-mirror-slices: ") : NULL;
	CHECK(p != NULL);
	uint64_t n = p ? strtoull(p + strlen("remote-mirror-slices: "), NULL, 10) : 0;
	free(ans);
	return n;
}

/* One GPU submit on c writing vals[i] at word offs[i] of dst (listed WRITE), NOTIFY asked. */
static int submit_writes(struct itest_client *c, struct itest_bo *ib, struct itest_bo *dst, const uint64_t *offs,
			 const uint32_t *vals, unsigned n, uint32_t *seqno)
{
	struct pm4_builder b;
	pm4_builder_init(&b, ib->cpu, 1024);
	for (unsigned i = 0; i < n; i++)
		pm4_mem_write(&b, dst->iova + offs[i] * 4, &vals[i], 1);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_submit_bo sb = { dst->bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd cmd = { .bo = ib->bo, .offset = 0, .size = pm4_builder_bytes(&b) };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &sb, .nr_bos = 1, .flags = FERRY_SUBMIT_NOTIFY };
	return ferry_submit(c->q, &s, seqno);
}

/* Exactly the words written, every other word still zero. */
static bool exact(const struct itest_bo *b, uint64_t words, const uint64_t *offs, const uint32_t *vals, unsigned n)
{
	unsigned nonzero = 0;
	for (uint64_t i = 0; i < words; i++)
		nonzero += b->cpu[i] != 0;
	bool ok = true;
	for (unsigned i = 0; i < n; i++)
		ok &= b->cpu[offs[i]] == vals[i];
	return ok && nonzero == n;
}

/* 64 MiB written by the GPU in 17 places (the last word too): after FENCE_WAIT's reply, after
 * the fence polled signaled (FenceUpdate) and after BO_CPU_PREP, the guest has exactly them. */
static void test_big_write_exact(void)
{
	enum { BIG = 64 << 20 };
	struct itest_bo ib, big;
	REQUIRE(itest_bo_new(a.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(a.ctx, BIG, &big) == 0);
	uint64_t offs[17];
	uint32_t vals[17];
	for (unsigned k = 0; k < 16; k++) {
		offs[k] = (uint64_t)k * (4u << 20) / 4 + 1023 + k; /* in every slice, off page starts */
		vals[k] = 0xa5000000u + k;
	}
	offs[16] = BIG / 4 - 1;
	vals[16] = 0x5a5a5a5au;
	uint64_t s0 = slices();
	uint32_t seqno;
	CHECK_EQ(submit_writes(&a, &ib, &big, offs, vals, 17, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(a.q, seqno, ITEST_WAIT_NS), 0);
	CHECK(exact(&big, BIG / 4, offs, vals, 17));
	uint64_t s1 = slices();
	fprintf(stderr, "64 MiB written: %llu slices\n", (unsigned long long)(s1 - s0));
	CHECK(s1 - s0 >= BIG / (4u << 20));

	/* Again, polled: the fence reads signaled only once the bytes are in. */
	for (unsigned k = 0; k < 17; k++)
		vals[k] ^= 0x00ff00ffu;
	CHECK_EQ(submit_writes(&a, &ib, &big, offs, vals, 17, &seqno), 0);
	int64_t spins = 0;
	while (!ferry_fence_signaled(a.q, seqno) && spins++ < 20000)
		usleep(500);
	CHECK(ferry_fence_signaled(a.q, seqno));
	CHECK(exact(&big, BIG / 4, offs, vals, 17));
	CHECK_EQ(ferry_bo_cpu_prep(big.bo, MSM_PREP_READ, 1000000000ll), 0);
	CHECK(exact(&big, BIG / 4, offs, vals, 17));
	ferry_bo_close(ib.bo);
	ferry_bo_close(big.bo);
	CHECK(itest_client_works(&a, 0x64646464u));
}

/* While the tcp client's 256 MiB diff is pending (slices counted, its fence not yet reported),
 * a unix client's submit+wait completes: ordering of events, not time. A few attempts, as the
 * whole diff takes only tens of ms. */
static void test_other_client_served(void)
{
	enum { BIG = 256 << 20 };
	struct itest_client u;
	REQUIRE(itest_client_open(ferryd.uri, &u) == 0);
	struct itest_bo ib, big, uib, ubo;
	REQUIRE(itest_bo_new(a.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(a.ctx, BIG, &big) == 0);
	REQUIRE(itest_bo_new(u.ctx, 4096, &uib) == 0);
	REQUIRE(itest_bo_new(u.ctx, 4096, &ubo) == 0);
	uint64_t s_start = slices();
	bool proven = false;
	unsigned served_during = 0, attempts = 0;
	for (attempts = 0; attempts < 5 && !proven; attempts++) {
		uint64_t off = BIG / 4 - 1 - attempts;
		uint32_t val = 0x77000000u + attempts, seqno;
		uint64_t s0 = slices();
		CHECK_EQ(submit_writes(&a, &ib, &big, &off, &val, 1, &seqno), 0);
		bool pending_seen = false;
		for (int i = 0; i < 5000 && !proven; i++) {
			uint32_t useq;
			uint64_t uoff = (uint64_t)i % 1024;
			uint32_t uval = 0x1000u + (uint32_t)i;
			/* pending_seen was observed before this round trip began */
			bool during = pending_seen;
			CHECK_EQ(submit_writes(&u, &uib, &ubo, &uoff, &uval, 1, &useq), 0);
			CHECK_EQ(ferry_fence_wait(u.q, useq, ITEST_WAIT_NS), 0);
			CHECK_EQ(ubo.cpu[uoff], uval);
			bool reported = ferry_fence_signaled(a.q, seqno);
			if (during && !reported) {
				served_during++;
				proven = true;
				break;
			}
			if (reported)
				break;
			pending_seen = slices() > s0;
		}
		CHECK_EQ(ferry_fence_wait(a.q, seqno, ITEST_WAIT_NS), 0);
		CHECK_EQ(big.cpu[off], val);
	}
	uint64_t s_end = slices();
	fprintf(stderr, "256 MiB diffs: %llu slices over %u attempt(s); unix round trips served during one: %u\n",
		(unsigned long long)(s_end - s_start), attempts, served_during);
	CHECK(proven);
	CHECK(s_end - s_start >= BIG / (4u << 20));
	ferry_bo_close(ib.bo);
	ferry_bo_close(big.bo);
	ferry_bo_close(uib.bo);
	ferry_bo_close(ubo.bo);
	itest_client_close(&u);
}

/* ---- the same on a raw connection: the order of frames as they arrive ---- */

/* The reply to seq, skipping events (and applying BoData to mirror, size bytes, for bo_id). */
static enum ferry_msg_kind raw_reply(struct itest_raw *r, uint32_t seq, struct ferry_msg *m)
{
	while (itest_raw_next(r, m))
		if (m->seq == seq && m->kind != FERRY_MSG_BO_DATA && m->kind != FERRY_MSG_FENCE_UPDATE &&
		    m->kind != FERRY_MSG_FENCE_SIGNALED)
			return m->kind;
	return FERRY_MSG_NONE;
}

/* A GPU write into a 64 MiB BO with a NOTIFY and a FENCE_WAIT in flight: every BoData of it
 * arrives before the FenceUpdate, the FENCE_SIGNALED and the wait's reply. */
static void test_raw_order(void)
{
	enum { BIG = 64 << 20 };
	struct itest_raw r;
	REQUIRE(itest_raw_connect(&r, tcp_uri));
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO }, rep;
	m.u.hello = (struct ferry_hello){ .version = FERRY_PROTOCOL_VERSION, .features = FERRY_FEATURE_MSM };
	CHECK_EQ(raw_reply(&r, itest_raw_send(&r, &m), &rep), FERRY_MSG_HELLO_REPLY);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM };
	CHECK_EQ(raw_reply(&r, itest_raw_send(&r, &m), &rep), FERRY_MSG_CONTEXT_CREATED);
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = 1, .queue_id = 0 };
	itest_raw_send(&r, &m); /* answered only when refused (ERROR) */
	uint64_t iova[3] = { 0 };
	for (uint32_t id = 1; id <= 2; id++) {
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
		m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = id, .size = id == 1 ? 4096 : BIG,
							  .flags = MSM_BO_WC };
		CHECK_EQ(raw_reply(&r, itest_raw_send(&r, &m), &rep), FERRY_MSG_BO_CREATED);
		iova[id] = rep.u.bo_created.iova;
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_MAP };
		m.u.bo_map = (struct ferry_bo_map){ .ctx_id = 1, .bo_id = id };
		CHECK_EQ(raw_reply(&r, itest_raw_send(&r, &m), &rep), FERRY_MSG_STATUS_REPLY);
	}
	/* The IB: a word in every 4 MiB and the last one. */
	uint32_t ib[1024];
	struct pm4_builder b;
	pm4_builder_init(&b, ib, 1024);
	uint64_t offs[17];
	uint32_t vals[17];
	for (unsigned k = 0; k < 17; k++) {
		offs[k] = k < 16 ? (uint64_t)k * (1u << 20) + 7 : BIG / 4 - 1;
		vals[k] = 0xc0de0000u + k;
		pm4_mem_write(&b, iova[2] + offs[k] * 4, &vals[k], 1);
	}
	REQUIRE(pm4_builder_ok(&b));
	uint32_t ib_bytes = pm4_builder_bytes(&b);
	struct ferry_bo_range rg = { .offset = 0, .len = ib_bytes };
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_DATA };
	m.u.bo_data = (struct ferry_bo_data){ .ctx_id = 1, .bo_id = 1, .nr_ranges = 1, .ranges = &rg,
					      .raw_len = ib_bytes, .data_len = ib_bytes, .data = (uint8_t *)ib };
	itest_raw_send(&r, &m);
	struct ferry_msm_submit_bo sbo[2] = { { 1, MSM_SUBMIT_BO_READ }, { 2, MSM_SUBMIT_BO_WRITE } };
	struct ferry_msm_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .bo_index = 0, .offset = 0, .size = ib_bytes };
	m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 0, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY,
						    .nr_bos = 2, .nr_cmds = 1, .bos = sbo, .cmds = &cmd };
	itest_raw_send(&r, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_FENCE_WAIT };
	m.u.fence_wait = (struct ferry_fence_wait){ .ctx_id = 1, .queue_id = 0, .seqno = 1, .timeout_ns = -1 };
	uint32_t wait_seq = itest_raw_send(&r, &m);
	uint8_t *mirror = calloc(1, BIG);
	REQUIRE(mirror);
	bool got_update = false, got_signaled = false, got_reply = false;
	unsigned complete_at_update = 0, complete_at_signaled = 0, complete_at_reply = 0;
	while (!(got_update && got_signaled && got_reply) && itest_raw_next(&r, &m)) {
		unsigned complete = 0;
		if (m.kind == FERRY_MSG_BO_DATA && m.u.bo_data.bo_id == 2) {
			CHECK_EQ(ferry_bo_mirror_apply(&m.u.bo_data, mirror, NULL, BIG, NULL), 0);
			continue;
		}
		for (unsigned k = 0; k < 17; k++)
			complete += ((uint32_t *)mirror)[offs[k]] == vals[k];
		if (m.kind == FERRY_MSG_FENCE_UPDATE && !got_update) {
			for (uint32_t i = 0; i < m.u.fence_update.nr_slots; i++)
				if (m.u.fence_update.slots[i].queue_id == 0 && m.u.fence_update.slots[i].signaled >= 1) {
					got_update = true;
					complete_at_update = complete;
				}
		} else if (m.kind == FERRY_MSG_FENCE_SIGNALED) {
			got_signaled = true;
			complete_at_signaled = complete;
		} else if (m.seq == wait_seq) {
			CHECK_EQ(m.kind, FERRY_MSG_STATUS_REPLY);
			got_reply = true;
			complete_at_reply = complete;
		}
	}
	CHECK(got_update && got_signaled && got_reply);
	CHECK_EQ(complete_at_update, 17);
	CHECK_EQ(complete_at_signaled, 17);
	CHECK_EQ(complete_at_reply, 17);
	free(mirror);
	itest_raw_close(&r);
	CHECK(itest_proc_alive(ferryd.pid));
}

int main(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	const char *const extra[] = { "--insecure", NULL };
	REQUIRE(setenv("FERRY_INSECURE", "1", 1) == 0);
	/* The listener is bound by the spawner and passed to ferryd: no port race. */
	REQUIRE(ferryd_spawn_tcp(path, "a630", extra, true, 30000, &ferryd) == 0);
	snprintf(tcp_uri, sizeof(tcp_uri), "%s", ferryd.tcp_uri);
	REQUIRE(itest_client_open(tcp_uri, &a) == 0);
	RUN_TEST(test_big_write_exact);
	RUN_TEST(test_other_client_served);
	RUN_TEST(test_raw_order);
	itest_client_close(&a);
	CHECK(itest_proc_alive(ferryd.pid));
	if (test_failures)
		ferryd_dump_log(&ferryd, 60);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
