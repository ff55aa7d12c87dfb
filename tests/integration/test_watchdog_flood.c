/* The fence-signal watchdog against a client that holds a lot: many queues, each with held
 * submits waiting on many in-fences, all overdue at once. ferryd writes one dump for that
 * client (rate limit), bounded in bytes with a line saying what it left out, counts the other
 * overdue fences as suppressed, and another client's round trips keep being answered meanwhile. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "cmd_output.h"
#include "test.h"

#define NR_QUEUES    64  /* queue 0 blocked in the GPU, 1..63 holding submits */
#define NR_HELD      256 /* held submits over queues 1..63 */
#define NR_IN        32  /* in-fences per held submit */
#define TIMEOUT_MS   "300"
/* One dump: 64 KiB of dump text (the default --fence-dump-max-kib) plus ferryd's line prefixes
 * and the header; far below what an unbounded dump of this state writes. */
#define LOG_GROWTH_MAX (160 * 1024)

static struct ferryd_proc ferryd;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long log_size(void)
{
	struct stat st;
	return stat(ferryd.log, &st) == 0 ? (long)st.st_size : -1;
}

static int log_count(const char *needle)
{
	FILE *f = fopen(ferryd.log, "r");
	if (!f)
		return 0;
	char line[8192];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

static unsigned long long status_value(const char *key)
{
	const char *ferry = getenv("FERRY");
	REQUIRE(ferry && ferry[0]);
	char *out;
	test_cmd_output(&out, "'%s' status --control '%s'", ferry, ferryd.control);
	REQUIRE(out);
	unsigned long long v = ~0ull;
	size_t klen = strlen(key);
	char *save;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtoull(line + klen + 1, NULL, 10);
	free(out);
	return v;
}

/* The other client: round trips (a submit and its wait) until told to stop. */
struct bystander {
	struct itest_client c;
	atomic_bool stop;
	atomic_int rounds;
	int64_t worst_ms;
	bool failed;
};

static void *bystander_main(void *arg)
{
	struct bystander *b = arg;
	for (uint32_t i = 0; !atomic_load(&b->stop) && i < 100000; i++) {
		int64_t t = now_ms();
		if (!itest_client_works(&b->c, 0xb0000000u + i)) {
			b->failed = true;
			break;
		}
		int64_t took = now_ms() - t;
		if (took > b->worst_ms)
			b->worst_ms = took;
		atomic_fetch_add(&b->rounds, 1);
	}
	return NULL;
}

static void test_flood_dump_is_bounded(void)
{
	struct ferry_device *dev = NULL;
	struct ferry_context *ctx = NULL;
	REQUIRE(ferry_device_open(ferryd.uri, &dev) == 0);
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx) == 0);
	static struct ferry_queue *q[NR_QUEUES];
	for (int i = 0; i < NR_QUEUES; i++)
		REQUIRE(ferry_queue_create(ctx, 0, &q[i]) == 0);
	struct itest_bo wait_ib, nop_ib, sync;
	REQUIRE(itest_bo_new(ctx, 4096, &wait_ib) == 0);
	REQUIRE(itest_bo_new(ctx, 4096, &nop_ib) == 0);
	REQUIRE(itest_bo_new(ctx, 4096, &sync) == 0);
	sync.cpu[0] = 0;
	struct pm4_builder b;
	pm4_builder_init(&b, wait_ib.cpu, 1024);
	pm4_wait_mem(&b, WRITE_EQ, sync.iova, 1, 0xffffffffu);
	REQUIRE(pm4_builder_ok(&b));
	uint32_t wait_bytes = pm4_builder_bytes(&b);
	pm4_builder_init(&b, nop_ib.cpu, 1024);
	pm4_nop(&b, 4);
	REQUIRE(pm4_builder_ok(&b));
	uint32_t nop_bytes = pm4_builder_bytes(&b);

	long log_before = log_size();
	REQUIRE(log_before >= 0);

	/* Queue 0: a GPU wait nothing satisfies until the test says so. */
	struct ferry_submit_bo w = { sync.bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd wait_cmd = { .bo = wait_ib.bo, .size = wait_bytes };
	struct ferry_submit ws = { .cmds = &wait_cmd, .nr_cmds = 1, .bos = &w, .nr_bos = 1 };
	uint32_t blocker;
	REQUIRE(ferry_submit(q[0], &ws, &blocker) == 0);

	/* Every other queue's first submit waits for queue 0; later ones for NR_IN queues' first. */
	static uint32_t first[NR_QUEUES];
	struct ferry_cmd nop_cmd = { .bo = nop_ib.bo, .size = nop_bytes };
	struct ferry_fence_ref in[NR_IN];
	in[0] = (struct ferry_fence_ref){ .queue_id = ferry_queue_id(q[0]), .seqno = blocker };
	struct ferry_submit hs = { .cmds = &nop_cmd, .nr_cmds = 1, .in_fences = in, .nr_in_fences = 1 };
	for (int i = 1; i < NR_QUEUES; i++)
		REQUIRE(ferry_submit(q[i], &hs, &first[i]) == 0);
	uint32_t last[NR_QUEUES] = { 0 };
	for (int k = NR_QUEUES - 1; k < NR_HELD; k++) {
		int qi = 1 + k % (NR_QUEUES - 1);
		for (int j = 0; j < NR_IN; j++) {
			int from = 1 + (qi + j) % (NR_QUEUES - 1);
			in[j] = (struct ferry_fence_ref){ .queue_id = ferry_queue_id(q[from]), .seqno = first[from] };
		}
		hs.nr_in_fences = NR_IN;
		REQUIRE(ferry_submit(q[qi], &hs, &last[qi]) == 0);
	}

	/* The bystander runs through the fences going overdue and the dump being written. */
	static struct bystander by;
	REQUIRE(itest_client_open(ferryd.uri, &by.c) == 0);
	pthread_t th;
	REQUIRE(pthread_create(&th, NULL, bystander_main, &by) == 0);

	/* Every queue is overdue once: each either dumped or counted as suppressed. */
	unsigned long long dumps = 0, suppressed = 0;
	for (int64_t end = now_ms() + 20000; now_ms() < end;) {
		dumps = status_value("watchdog-dumps");
		suppressed = status_value("watchdog-dumps-suppressed");
		if (dumps != ~0ull && suppressed != ~0ull && dumps + suppressed >= NR_QUEUES)
			break;
		usleep(50 * 1000);
	}
	int rounds_at_dump = atomic_load(&by.rounds);
	/* Let the bystander go on a little past the dump. */
	for (int64_t end = now_ms() + 5000; atomic_load(&by.rounds) < rounds_at_dump + 5 && now_ms() < end;)
		usleep(10 * 1000);
	atomic_store(&by.stop, true);
	pthread_join(th, NULL);
	long log_after = log_size();

	fprintf(stderr, "dumps %llu, suppressed %llu; log grew %ld bytes; bystander %d round trips, worst %lld ms\n",
		dumps, suppressed, log_after - log_before, atomic_load(&by.rounds), (long long)by.worst_ms);
	CHECK_EQ(dumps, 1);
	CHECK_EQ(dumps + suppressed, NR_QUEUES);
	CHECK_EQ(log_count("fence-signal timeout"), 1);
	CHECK_EQ(log_count(" more queues / "), 1);
	CHECK_EQ(log_count(" more submits not shown"), 1);
	CHECK(log_after - log_before <= LOG_GROWTH_MAX);
	CHECK(!by.failed);
	CHECK(atomic_load(&by.rounds) > rounds_at_dump);
	/* A sanity bound, not a measurement: a served round trip takes milliseconds. */
	CHECK(by.worst_ms < 2000);

	/* `ferry status --sync` on request: bounded too, and says so. */
	const char *ferry = getenv("FERRY");
	char *out;
	test_cmd_output(&out, "'%s' status --control '%s' --sync", ferry, ferryd.control);
	REQUIRE(out);
	size_t bytes = strlen(out);
	int fence_waits = 0;
	for (const char *at = out; (at = strstr(at, "cmd:FENCE_WAIT")) != NULL; at++)
		fence_waits++;
	free(out);
	CHECK(fence_waits > 0);
	CHECK(bytes <= (1u << 20) + 4096);

	/* Unblock: everything drains. */
	sync.cpu[0] = 1;
	CHECK_EQ(ferry_fence_wait(q[0], blocker, ITEST_WAIT_NS), 0);
	for (int i = 1; i < NR_QUEUES; i++)
		CHECK_EQ(ferry_fence_wait(q[i], last[i] ? last[i] : first[i], ITEST_WAIT_NS), 0);

	itest_client_close(&by.c);
	ferry_bo_close(wait_ib.bo);
	ferry_bo_close(nop_ib.bo);
	ferry_bo_close(sync.bo);
	for (int i = 0; i < NR_QUEUES; i++)
		ferry_queue_close(q[i]);
	ferry_context_destroy(ctx);
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
	const char *const extra[] = { "--hangcheck-ms", "60000", "--fence-timeout-ms", TIMEOUT_MS, NULL };
	if (ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) < 0)
		return 1;
	RUN_TEST(test_flood_dump_is_bounded);
	if (test_failures)
		ferryd_dump_log(&ferryd, 20);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
