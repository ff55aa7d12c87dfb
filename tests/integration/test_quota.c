/* Per-client quotas through ferryd: a client flooding BOs hits --max-client-bos with -EDQUOT,
 * a second client still gets a context and a working submit, and ferryd's fds return to their
 * baseline once the flooder disconnects. Likewise --max-client-fds, on a second ferryd. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

#define FLOOD_BO_CAP 256
#define FD_CAP 48

static struct ferryd_proc ferryd;

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void test_flooder_hits_bo_cap(void)
{
	/* On the fake kernel's node, its sync-file watcher (and its wake pipe) starts with the first
	 * job ferryd submits and stays for the process: start it before the count is taken. */
	if (itest_render_node()) {
		struct itest_client warm;
		REQUIRE(itest_client_open(ferryd.uri, &warm) == 0);
		CHECK(itest_client_works(&warm, 0x3a7e));
		itest_client_close(&warm);
	}
	/* The count ferryd settles at: a connection of an earlier test may still be closing. */
	int baseline = -1;
	for (int tries = 0, same = 0; tries < 100 && same < 3; tries++) {
		int now = itest_proc_fd_count(ferryd.pid);
		same = now == baseline ? same + 1 : 0;
		baseline = now;
		sleep_ms(20);
	}
	REQUIRE(baseline > 0);

	struct ferry_device *flood_dev = NULL;
	struct ferry_context *flood_ctx = NULL;
	REQUIRE(ferry_device_open(ferryd.uri, &flood_dev) == 0);
	REQUIRE(ferry_context_create(flood_dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &flood_ctx) == 0);
	/* BO_CREATE is pipelined: the refusal shows when the BO is first mapped. */
	static struct itest_bo bos[FLOOD_BO_CAP + 1];
	int n = 0, err = 0;
	while (n <= FLOOD_BO_CAP) {
		err = itest_bo_new(flood_ctx, 4096, &bos[n]);
		if (err < 0)
			break;
		n++;
	}
	CHECK_EQ(n, FLOOD_BO_CAP);
	CHECK_EQ(err, -EDQUOT);
	const char *why = ferry_device_last_error(flood_dev);
	CHECK(why && strstr(why, "client quota") && strstr(why, "--max-client-bos"));
	if (why && !strstr(why, "client quota"))
		fprintf(stderr, "flooder's last error: %s\n", why);
	CHECK(itest_proc_fd_count(ferryd.pid) > baseline);

	/* A second client is served while the flooder holds its whole quota. */
	struct itest_client other;
	REQUIRE(itest_client_open(ferryd.uri, &other) == 0);
	CHECK(itest_client_works(&other, 0x51a7e001));
	itest_client_close(&other);

	for (int i = 0; i <= n && i <= FLOOD_BO_CAP; i++)
		if (bos[i].bo)
			ferry_bo_close(bos[i].bo);
	ferry_context_destroy(flood_ctx);
	ferry_device_close(flood_dev);

	/* ferryd frees the flooder's BOs and context as it sees the disconnect. */
	int fds = -1;
	for (int tries = 0; tries < 200; tries++) {
		fds = itest_proc_fd_count(ferryd.pid);
		if (fds <= baseline)
			break;
		sleep_ms(50);
	}
	/* Fewer is fine (something of the baseline was still closing); more is a leak. */
	CHECK(fds <= baseline);
	if (fds > baseline)
		fprintf(stderr, "ferryd holds %d fds after the flooder left, %d before it came\n", fds, baseline);
	CHECK(itest_proc_alive(ferryd.pid));
}

/* Each BO costs the simulator's ferryd an fd: the fd quota stops the flood first, with -EDQUOT
 * naming the option, and nothing else changes: closing BOs makes room again. */
static void test_fd_quota(const char *ferryd_path)
{
	static struct ferryd_proc fdd;
	char cap[16];
	snprintf(cap, sizeof(cap), "%d", FD_CAP);
	const char *const extra[] = { "--max-client-fds", cap, NULL };
	REQUIRE(ferryd_spawn(ferryd_path, "a630", extra, true, 30000, &fdd) == 0);
	struct itest_client c;
	REQUIRE(itest_client_open(fdd.uri, &c) == 0);
	static struct itest_bo bos[FD_CAP];
	int n = 0, err = 0;
	while (n < FD_CAP) {
		err = itest_bo_new(c.ctx, 4096, &bos[n]);
		if (err < 0)
			break;
		n++;
	}
	const char *why = ferry_device_last_error(c.dev);
	fprintf(stderr, "--max-client-fds %d: %d BOs, then %d (%s)\n", FD_CAP, n, err, why ? why : "");
	CHECK(n > 0 && n < FD_CAP);
	CHECK_EQ(err, -EDQUOT);
	CHECK(why && strstr(why, "--max-client-fds"));
	/* The refused BO left nothing behind: with a few BOs closed, the client is fully served. */
	for (int i = 0; i < 4 && i < n; i++) {
		ferry_bo_close(bos[i].bo);
		bos[i].bo = NULL;
	}
	CHECK(itest_client_works(&c, 0xfd0a0001));
	for (int i = 0; i <= n && i < FD_CAP; i++)
		if (bos[i].bo)
			ferry_bo_close(bos[i].bo);
	itest_client_close(&c);
	if (test_failures)
		ferryd_dump_log(&fdd, 20);
	CHECK(ferryd_stop(&fdd, 20000) == 0);
}

int main(void)
{
	char path[PATH_MAX];
	if (ferryd_locate(NULL, path, sizeof(path)) < 0) {
		fprintf(stderr, "cannot find ferryd: set $FERRYD\n");
		return 1;
	}
	char cap[16];
	snprintf(cap, sizeof(cap), "%d", FLOOD_BO_CAP);
	const char *const extra[] = { "--max-client-bos", cap, NULL };
	if (ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) < 0)
		return 1;
	RUN_TEST(test_flooder_hits_bo_cap);
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	test_fd_quota(path);
	return test_finish();
}
