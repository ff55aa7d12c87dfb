/* `ferry status` against a running ferryd: counters, the sync-state dump of a queue stalled in a
 * CP_WAIT_REG_MEM (the WAIT_REG_MEM line with its address, live and wanted values), the
 * fence-signal watchdog writing that dump to ferryd's log and being turned off at run time, and
 * the control socket's robustness (bad requests get an error line; ferryd stays up). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control_client.h"
#include "itest.h"
#include "test.h"

static struct ferryd_proc ferryd;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs `ferry status ARGS`; returns its stdout+stderr (malloc'd) and exit status in *status. */
static char *ferry_status(const char *args, int *status)
{
	return itest_ferry_status(&ferryd, args, status);
}

static void test_status_sync_and_watchdog(void)
{
	struct stat st;
	REQUIRE(stat(ferryd.control, &st) == 0);
	CHECK(S_ISSOCK(st.st_mode));
	CHECK_EQ(st.st_mode & 0777, 0600);

	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct itest_bo ib, sync, out;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &sync) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &out) == 0);
	sync.cpu[3] = 5;
	out.cpu[0] = 0;
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	pm4_wait_mem(&b, WRITE_EQ, sync.iova + 12, 0x60, 0xffffffffu);
	pm4_mem_write(&b, out.iova, (const uint32_t[]){ 0x5747 }, 1);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_bo *w[] = { sync.bo, out.bo };
	uint32_t seqno;
	int64_t t0 = now_ms();
	REQUIRE(itest_submit(&c, ib.bo, 0, pm4_builder_bytes(&b), w, 2, &seqno) == 0);

	/* Status counters. */
	int rc;
	char *text = ferry_status("", &rc);
	CHECK_EQ(rc, 0);
	CHECK(strstr(text, "clients: 1\n") && strstr(text, "contexts: 1\n") && strstr(text, "queues: 1\n"));
	CHECK(strstr(text, "hangcheck-ms: 60000\n") && strstr(text, "fence-timeout-ms: 400\n"));
	CHECK(strstr(text, itest_render_node() ? "device: /dev/dri/renderD128 (msm 1.9.0)\n" : "device: sim a630\n"));
	free(text);

	/* The dump shows the stalled wait (the GPU reports it once it polled). */
	char want[256];
	snprintf(want, sizeof(want),
		 "exec:S cmd:WAIT_REG_MEM seqno:%u obj:0x%016llx live_value:0x0000000000000005 | op:eq "
		 "arg_value:0x0000000000000060 mask:0xffffffff\n",
		 seqno, (unsigned long long)(sync.iova + 12));
	/* What the CP is polling comes from the kernel's debug state. */
	bool cp_state = !itest_sim_only("sync dump: the CP's wait", "the msm kernel gives no debug state");
	text = NULL;
	for (int64_t end = now_ms() + 20000; now_ms() < end;) {
		free(text);
		text = ferry_status("--sync", &rc);
		if (!cp_state || strstr(text, want))
			break;
		usleep(10000);
	}
	CHECK_EQ(rc, 0);
	CHECK(!cp_state || strstr(text, want) != NULL);
	CHECK(strstr(text, "queue:GPU-1-") != NULL);
	snprintf(want, sizeof(want), "exec:P cmd:SIGNAL seqno:%u obj:GPU-1-", seqno);
	CHECK(strstr(text, want) != NULL);
	if (test_failures)
		fprintf(stderr, "ferry status --sync:\n%s", text);
	free(text);

	/* The watchdog (--fence-timeout-ms 400) writes the dump to the log, once: the header line,
	 * then the dump's lines (the SIGNAL line is the dump's last). */
	snprintf(want, sizeof(want), "sync: queue:GPU-1-1-0 exec:P cmd:SIGNAL seqno:%u", seqno);
	while (itest_log_count(&ferryd, want) == 0 && now_ms() - t0 < 20000)
		usleep(10000);
	CHECK(now_ms() - t0 >= 400);
	CHECK_EQ(itest_log_count(&ferryd, "fence-signal timeout"), 1);
	CHECK_EQ(itest_log_count(&ferryd, want), 1);
	snprintf(want, sizeof(want), "sync: queue:GPU-1-1-0 exec:S cmd:WAIT_REG_MEM seqno:%u obj:0x%016llx live_value:0x0000000000000005",
		 seqno, (unsigned long long)(sync.iova + 12));
	CHECK_EQ(itest_log_count(&ferryd, want), cp_state ? 1 : 0);

	/* Off at run time, then a new timeout: re-timed, logged again. */
	text = ferry_status("--watchdog off", &rc);
	CHECK_EQ(rc, 0);
	CHECK(!strcmp(text, "fence-timeout-ms: off\n"));
	free(text);
	text = ferry_status("", &rc);
	CHECK(strstr(text, "fence-timeout-ms: off\n"));
	free(text);
	usleep(600 * 1000);
	CHECK_EQ(itest_log_count(&ferryd, "fence-signal timeout"), 1);
	text = ferry_status("--watchdog 200", &rc);
	CHECK_EQ(rc, 0);
	CHECK(!strcmp(text, "fence-timeout-ms: 200\n"));
	free(text);
	for (int64_t end = now_ms() + 20000; itest_log_count(&ferryd, "fence-signal timeout") < 2 && now_ms() < end;)
		usleep(10000);
	CHECK_EQ(itest_log_count(&ferryd, "fence-signal timeout"), 2);
	text = ferry_status("--watchdog on", &rc);
	CHECK(!strcmp(text, "fence-timeout-ms: 200\n"));
	free(text);
	text = ferry_status("--watchdog soon", &rc);
	CHECK_EQ(rc, 1);
	CHECK(strstr(text, "error: watchdog takes on, off or a timeout"));
	free(text);

	/* Released: the submit completes normally and nothing is pending. */
	__atomic_store_n(&sync.cpu[3], 0x60, __ATOMIC_SEQ_CST);
	CHECK_EQ(ferry_fence_wait(c.q, seqno, ITEST_WAIT_NS), 0);
	CHECK_EQ(out.cpu[0], 0x5747);
	text = ferry_status("--sync", &rc);
	CHECK(strstr(text, "(no pending operations)\n"));
	free(text);

	ferry_bo_close(ib.bo);
	ferry_bo_close(sync.bo);
	ferry_bo_close(out.bo);
	itest_client_close(&c);
}

/* Raw bytes to the control socket: the first line of the answer. */
static void raw_request(const void *data, size_t len, char *first, size_t first_len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(fd >= 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", ferryd.control);
	REQUIRE(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	if (len && send(fd, data, len, MSG_NOSIGNAL) < 0)
		fprintf(stderr, "send: %s\n", strerror(errno));
	shutdown(fd, SHUT_WR);
	struct timeval tv = { 10, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	size_t got = 0;
	ssize_t n;
	while (got + 1 < first_len && (n = recv(fd, first + got, first_len - 1 - got, 0)) > 0)
		got += (size_t)n;
	first[got] = '\0';
	char *nl = strchr(first, '\n');
	if (nl)
		*nl = '\0';
	close(fd);
}

static void test_bad_requests(void)
{
	char first[256];
	raw_request("frobnicate\n", 11, first, sizeof(first));
	CHECK(!strncmp(first, "error: unknown request", 22));
	raw_request("\n", 1, first, sizeof(first));
	CHECK(!strncmp(first, "error: empty request", 20));
	raw_request("status now\n", 11, first, sizeof(first));
	CHECK(!strncmp(first, "error: too many words", 21));
	raw_request("report x\n", 9, first, sizeof(first));
	CHECK(!strncmp(first, "error: report takes", 19));
	raw_request("report 99\n", 10, first, sizeof(first));
	CHECK(!strncmp(first, "error: report 99 is not kept", 28));
	raw_request("sta\0tus\n", 8, first, sizeof(first));
	CHECK(!strncmp(first, "error: NUL byte", 15));
	char big[1000];
	memset(big, 'a', sizeof(big));
	raw_request(big, sizeof(big), first, sizeof(first));
	CHECK(!strncmp(first, "error: request line too long", 28));
	raw_request("", 0, first, sizeof(first)); /* connect, say nothing, hang up */
	CHECK(!strcmp(first, ""));
	raw_request("help", 4, first, sizeof(first)); /* no newline: EOF ends the line */
	CHECK(!strcmp(first, "ok"));
	/* Still serving both sockets. */
	CHECK(itest_proc_alive(ferryd.pid));
	char *answer = NULL;
	REQUIRE(control_request(ferryd.control, "status", 10000, &answer) == 0);
	CHECK(!strncmp(answer, "ok\n", 3));
	free(answer);
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	CHECK(itest_client_works(&c, 0x1234));
	itest_client_close(&c);
}

/* A submit the validator refuses: the guest's fence fails with the rule's errno, ferryd warns
 * (with the reason, by default log level), `ferry status` counts it, the context stays usable. */
static void test_refusal_is_loud(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0); /* validated: the default policy */
	struct itest_bo ib;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	PM4_PKT7(&b, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0); /* privileged */
	REQUIRE(pm4_builder_ok(&b));
	int before = itest_log_count(&ferryd, "submit refused, Operation not permitted (EPERM)");
	uint32_t seqno;
	REQUIRE(itest_submit(&c, ib.bo, 0, pm4_builder_bytes(&b), NULL, 0, &seqno) == 0);
	CHECK_EQ(ferry_fence_wait(c.q, seqno, ITEST_WAIT_NS), -EPERM);
	CHECK(!ferry_context_lost(c.ctx));
	int rc;
	char *text = ferry_status("", &rc);
	CHECK_EQ(rc, 0);
	CHECK(text && strstr(text, "validation-rejects: 1\n"));
	free(text);
	/* The warning is written by the time ferryd answered the status request after it. */
	CHECK_EQ(itest_log_count(&ferryd, "submit refused, Operation not permitted (EPERM)"), before + 1);
	CHECK_EQ(itest_log_count(&ferryd, "CP_SMMU_TABLE_UPDATE"), 1);
	CHECK(itest_client_works(&c, 0x5151));
	ferry_bo_close(ib.bo);
	itest_client_close(&c);
}

int main(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	/* Hangcheck far away: the stalled wait must stay a wait, not become a hang. */
	const char *extra[] = { "--hangcheck-ms", "60000", "--fence-timeout-ms", "400", NULL };
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) == 0);
	RUN_TEST(test_status_sync_and_watchdog);
	RUN_TEST(test_bad_requests);
	RUN_TEST(test_refusal_is_loud);
	if (test_failures)
		ferryd_dump_log(&ferryd, 60);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
