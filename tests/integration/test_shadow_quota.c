/* Shadow copies cannot amplify host memory: one client, three validated contexts with about
 * 1 MiB of BOs each, holds many submits of a ~1 MiB command stream behind a blocked queue.
 * ferryd's shadow bytes (`ferry status`) stay within --max-client-shadow-mib + ratio x BO bytes,
 * the submits past it are refused with -EDQUOT naming that quota, and once everything retired
 * the shadows are given back (shadow bytes and ferryd's RSS drop) while the client stays. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

#define NR_CTX        3
#define HELD_PER_CTX  40 /* 120 MiB of shadows wanted, about 70 MiB allowed */
#define BIG_IB_BYTES  ((1u << 20) - 4096u) /* one 1 MiB shadow chunk each */
/* ferryd's defaults: --max-client-shadow-mib 64, --max-client-shadow-ratio 2. */
#define SHADOW_MIB    64u
#define SHADOW_RATIO  2u

static struct ferryd_proc ferryd;

static char *ferry_status(const char *args)
{
	return itest_ferry_status(&ferryd, args, NULL);
}

static unsigned long long status_value(const char *key)
{
	char *text = ferry_status("");
	char want[64];
	snprintf(want, sizeof(want), "\n%s: ", key);
	const char *at = strstr(text, want);
	unsigned long long v = at ? strtoull(at + strlen(want), NULL, 10) : ~0ull;
	if (!at)
		fprintf(stderr, "no '%s' in ferry status:\n%s", key, text);
	free(text);
	return v;
}

struct shadow_ctx {
	struct ferry_context *ctx;
	struct ferry_queue *blocked, *held;
	struct itest_bo big, wait_ib, sync;
	uint32_t blocker;
	uint32_t last_ok; /* last held seqno the host took, 0 if none */
};

static void ctx_open(struct ferry_device *dev, struct shadow_ctx *s)
{
	memset(s, 0, sizeof(*s));
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &s->ctx) == 0);
	REQUIRE(ferry_queue_create(s->ctx, 0, &s->blocked) == 0);
	REQUIRE(ferry_queue_create(s->ctx, 0, &s->held) == 0);
	REQUIRE(itest_bo_new(s->ctx, 1u << 20, &s->big) == 0);
	REQUIRE(itest_bo_new(s->ctx, 4096, &s->wait_ib) == 0);
	REQUIRE(itest_bo_new(s->ctx, 4096, &s->sync) == 0);
	/* A stream of CP_NOPs: cheap for the GPU, but every dword is copied into a shadow. */
	struct pm4_builder b;
	pm4_builder_init(&b, s->big.cpu, BIG_IB_BYTES / 4);
	while (b.len + 16001 <= BIG_IB_BYTES / 4)
		pm4_nop(&b, 16000);
	pm4_nop(&b, BIG_IB_BYTES / 4 - b.len - 1);
	REQUIRE(pm4_builder_ok(&b) && pm4_builder_bytes(&b) == BIG_IB_BYTES);
	/* The blocker: a GPU wait for a value the test writes at the end (hangcheck is far away). */
	s->sync.cpu[0] = 0;
	pm4_builder_init(&b, s->wait_ib.cpu, 1024);
	pm4_wait_mem(&b, WRITE_EQ, s->sync.iova, 1, 0xffffffffu);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_submit_bo w = { s->sync.bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd cmd = { .bo = s->wait_ib.bo, .size = pm4_builder_bytes(&b) };
	struct ferry_submit sub = { .cmds = &cmd, .nr_cmds = 1, .bos = &w, .nr_bos = 1 };
	REQUIRE(ferry_submit(s->blocked, &sub, &s->blocker) == 0);
}

/* HELD_PER_CTX submits of the big stream, each held for the blocker: seqnos first..first+n-1. */
static uint32_t submit_held(struct shadow_ctx *s)
{
	struct ferry_fence_ref in = { .queue_id = ferry_queue_id(s->blocked), .seqno = s->blocker };
	struct ferry_cmd cmd = { .bo = s->big.bo, .size = BIG_IB_BYTES };
	struct ferry_submit sub = { .cmds = &cmd, .nr_cmds = 1, .in_fences = &in, .nr_in_fences = 1 };
	uint32_t first = 0, seqno;
	for (int i = 0; i < HELD_PER_CTX; i++) {
		REQUIRE(ferry_submit(s->held, &sub, &seqno) == 0);
		if (!first)
			first = seqno;
	}
	return first;
}

static void test_shadow_quota_and_give_back(void)
{
	long rss_before = itest_proc_rss_kib(ferryd.pid);
	struct ferry_device *dev = NULL;
	REQUIRE(ferry_device_open(ferryd.uri, &dev) == 0);
	static struct shadow_ctx ctxs[NR_CTX];
	uint32_t first[NR_CTX];
	for (int i = 0; i < NR_CTX; i++)
		ctx_open(dev, &ctxs[i]);
	for (int i = 0; i < NR_CTX; i++)
		first[i] = submit_held(&ctxs[i]);
	/* A round trip: every submit's ERROR (if any) came in before its reply. (Not the BO's
	 * create: libferry may have made it ahead, in its stash.) */
	struct itest_bo probe;
	REQUIRE(itest_bo_new(ctxs[0].ctx, 4096, &probe) == 0);
	REQUIRE(ferry_bo_cpu_prep(probe.bo, MSM_PREP_READ, 1000000000ll) == 0);

	/* Refused submits are done (with their error); taken ones are held. */
	unsigned refused = 0;
	int refusal_error = 0;
	for (int i = 0; i < NR_CTX; i++) {
		for (uint32_t k = 0; k < HELD_PER_CTX; k++) {
			uint32_t seqno = first[i] + k;
			if (ferry_fence_signaled(ctxs[i].held, seqno)) {
				refused++;
				refusal_error = ferry_fence_wait(ctxs[i].held, seqno, 0);
			} else {
				ctxs[i].last_ok = seqno;
			}
		}
	}
	const char *why = ferry_device_last_error(dev);
	unsigned long long shadow_peak = status_value("shadow-bytes");
	unsigned long long bo_bytes = status_value("bo-bytes");
	unsigned long long bound = ((unsigned long long)SHADOW_MIB << 20) + SHADOW_RATIO * bo_bytes;
	long rss_peak = itest_proc_rss_kib(ferryd.pid);
	fprintf(stderr, "held %u, refused %u of %u submits; shadow bytes %llu (bound %llu, BO bytes %llu); "
		"RSS %ld -> %ld KiB\n", NR_CTX * HELD_PER_CTX - refused, refused, NR_CTX * HELD_PER_CTX, shadow_peak,
		bound, bo_bytes, rss_before, rss_peak);
	CHECK(shadow_peak <= bound);
	CHECK(refused > 0);
	CHECK_EQ(refusal_error, -EDQUOT);
	CHECK(why && strstr(why, "client quota") && strstr(why, "--max-client-shadow-mib"));
	if (why && !strstr(why, "--max-client-shadow-mib"))
		fprintf(stderr, "last error: %s\n", why);
	CHECK(status_value("shadow-quota-refusals") == refused);
	/* Every context got some: the quota is the client's, not first come first served per ctx. */
	CHECK(ctxs[0].last_ok != 0);

	/* Unblock: everything held runs and retires. */
	for (int i = 0; i < NR_CTX; i++)
		ctxs[i].sync.cpu[0] = 1;
	for (int i = 0; i < NR_CTX; i++) {
		CHECK_EQ(ferry_fence_wait(ctxs[i].blocked, ctxs[i].blocker, ITEST_WAIT_NS), 0);
		if (ctxs[i].last_ok)
			CHECK_EQ(ferry_fence_wait(ctxs[i].held, ctxs[i].last_ok, ITEST_WAIT_NS), 0);
	}

	/* The shadows come back while the client stays connected: at most a small reserve per
	 * context stays recycled (polled: they go once idle for a while). */
	unsigned long long shadow_after = ~0ull;
	const unsigned long long reserve = NR_CTX * (4ull << 20);
	for (int tries = 0; tries < 200; tries++) {
		shadow_after = status_value("shadow-bytes");
		if (shadow_after <= reserve)
			break;
		usleep(50 * 1000);
	}
	long rss_after = itest_proc_rss_kib(ferryd.pid);
	fprintf(stderr, "after retirement: shadow bytes %llu, RSS %ld KiB\n", shadow_after, rss_after);
	CHECK(shadow_after <= reserve);
	/* Secondary: most of what the shadows held shows in ferryd's RSS too. */
	if (shadow_peak > shadow_after)
		CHECK(rss_after <= rss_peak - (long)((shadow_peak - shadow_after) / 2 / 1024));

	/* The client still works (a submit needs shadows again). */
	struct itest_client other = { .dev = dev, .ctx = ctxs[1].ctx, .q = ctxs[1].held };
	CHECK(itest_client_works(&other, 0x5ad0a001));

	ferry_bo_close(probe.bo);
	for (int i = 0; i < NR_CTX; i++) {
		ferry_bo_close(ctxs[i].big.bo);
		ferry_bo_close(ctxs[i].wait_ib.bo);
		ferry_bo_close(ctxs[i].sync.bo);
		ferry_queue_close(ctxs[i].blocked);
		ferry_queue_close(ctxs[i].held);
		ferry_context_destroy(ctxs[i].ctx);
	}
	ferry_device_close(dev);
	CHECK(itest_proc_alive(ferryd.pid));
}

int main(void)
{
	char path[PATH_MAX];
	if (ferryd_locate(NULL, path, sizeof(path)) < 0) {
		fprintf(stderr, "cannot find ferryd: set $FERRYD\n");
		return 1;
	}
	const char *const extra[] = { "--hangcheck-ms", "60000", "--fence-timeout-ms", "0", NULL };
	if (ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) < 0)
		return 1;
	RUN_TEST(test_shadow_quota_and_give_back);
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
