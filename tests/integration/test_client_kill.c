/* A client killed in the middle of its work leaves nothing behind: 1000 cycles of fork, connect,
 * context + BOs, submits (some stalled on the GPU, some cut off mid-frame) and SIGKILL, while
 * ferryd's fd count and RSS are measured before and after. A watcher client must keep being
 * served throughout. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

#ifndef CYCLES
#define CYCLES 1000
#endif

#if defined(__SANITIZE_ADDRESS__)
/* ASan's allocator keeps freed chunks in quarantine and per-thread caches: allow more. */
#define RSS_BOUND_KIB (48 * 1024)
#else
#define RSS_BOUND_KIB (8 * 1024)
#endif

static struct ferryd_proc ferryd;

enum phase {
	PHASE_CONNECTED,  /* handshake done */
	PHASE_OBJECTS,    /* context + BOs requested (maybe not yet created) */
	PHASE_SUBMITTED,  /* submits in flight */
	PHASE_MID_FRAME,  /* half of a submit frame written */
	PHASE_STALLED,    /* a submit stalled in CP_WAIT_REG_MEM on the GPU */
	PHASE_UNSYNCED,   /* killed after a random delay, wherever it is */
};

static void tell(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(3);
}

/* The child: never returns. */
static void child(int ready_fd, enum phase phase)
{
	struct itest_client c;
	struct ferry_device *dev;
	if (ferry_device_open(ferryd.uri, &dev) < 0)
		_exit(2);
	if (phase == PHASE_CONNECTED)
		tell(ready_fd, 'c');
	c.dev = dev;
	if (ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c.ctx) < 0 ||
	    ferry_queue_create(c.ctx, 0, &c.q) < 0)
		_exit(2);
	struct ferry_bo *extra[4];
	for (int i = 0; i < 4; i++)
		if (ferry_bo_new(c.ctx, 65536, MSM_BO_WC, &extra[i]) < 0)
			_exit(2);
	if (phase == PHASE_OBJECTS)
		tell(ready_fd, 'o');
	struct itest_bo ib, data;
	if (itest_bo_new(c.ctx, 4096, &ib) < 0 || itest_bo_new(c.ctx, 4096, &data) < 0)
		_exit(2);
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	if (phase == PHASE_STALLED)
		pm4_wait_mem(&b, WRITE_EQ, data.iova, 0x1234, 0xffffffffu);
	for (int i = 0; i < 32; i++)
		pm4_mem_write(&b, data.iova + 4 + (uint32_t)i * 4, (const uint32_t[]){ 7 }, 1);
	uint32_t seqno;
	for (int i = 0; i < 16; i++)
		if (itest_submit(&c, ib.bo, 0, pm4_builder_bytes(&b), &data.bo, 1, &seqno) < 0)
			_exit(2);
	if (phase == PHASE_SUBMITTED || phase == PHASE_STALLED)
		tell(ready_fd, 's');
	if (phase == PHASE_MID_FRAME) {
		/* A submit frame cut in half, straight onto a second connection's socket. */
		struct ferry_msg m = { .kind = FERRY_MSG_HELLO, .seq = 1 };
		m.u.hello.version = FERRY_PROTOCOL_VERSION;
		struct ferry_buf buf;
		ferry_buf_init(&buf);
		ferry_wire_encode(&m, &buf);
		struct ferry_msm_submit_bo sb = { 1, MSM_SUBMIT_BO_READ };
		struct ferry_msm_submit_cmd sc = { 1, 0, 0, 4 };
		struct ferry_msg s = { .kind = FERRY_MSG_MSM_SUBMIT, .seq = 2 };
		s.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 0, .seqno = 1,
							    .nr_bos = 1, .nr_cmds = 1, .bos = &sb,
							    .cmds = &sc };
		size_t hello_len = buf.len;
		ferry_wire_encode(&s, &buf);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un addr = { .sun_family = AF_UNIX };
		snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", ferryd.socket);
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
			size_t half = hello_len + (buf.len - hello_len) / 2;
			if (write(fd, buf.data, half) < 0)
				_exit(3);
		}
		tell(ready_fd, 'm');
	}
	for (;;)
		pause();
}

static void one_cycle(unsigned i)
{
	static const enum phase phases[] = { PHASE_CONNECTED, PHASE_OBJECTS, PHASE_SUBMITTED,
					     PHASE_MID_FRAME, PHASE_UNSYNCED, PHASE_SUBMITTED,
					     PHASE_OBJECTS, PHASE_MID_FRAME };
	enum phase phase = phases[i % 8];
	if (i % 100 == 50)
		phase = PHASE_STALLED; /* few of them: each holds the GPU until it is cancelled */
	int p[2];
	REQUIRE(pipe(p) == 0);
	fflush(NULL);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child(p[1], phase);
	}
	close(p[1]);
	if (phase == PHASE_UNSYNCED) {
		nanosleep(&(struct timespec){ 0, (long)(rand() % 3000) * 1000 }, NULL);
	} else {
		char c;
		ssize_t n = read(p[0], &c, 1);
		if (n != 1)
			fprintf(stderr, "cycle %u: child failed before phase %d\n", i, phase);
		CHECK_EQ(n, 1);
	}
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	close(p[0]);
}

/* Waits until ferryd's fd count is back to want (disconnects are handled asynchronously). */
static int settle_fds(int want)
{
	int n = -1;
	for (int t = 0; t < 400; t++) {
		n = itest_proc_fd_count(ferryd.pid);
		if (n == want)
			return n;
		nanosleep(&(struct timespec){ 0, 25 * 1000 * 1000 }, NULL);
	}
	return n;
}

static void test_kill_cycles(void)
{
	struct itest_client watcher;
	REQUIRE(itest_client_open(ferryd.uri, &watcher) == 0);
	CHECK(itest_client_works(&watcher, 0x1));

	/* Warm up (lazy allocations, thread stacks), then take the baseline. */
	for (unsigned i = 0; i < 16; i++)
		one_cycle(i);
	int fds_before = itest_proc_fd_count(ferryd.pid);
	fds_before = settle_fds(fds_before);
	nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
	fds_before = itest_proc_fd_count(ferryd.pid);
	long rss_before = itest_proc_rss_kib(ferryd.pid);
	CHECK(fds_before > 0 && rss_before > 0);

	for (unsigned i = 16; i < CYCLES; i++) {
		one_cycle(i);
		if (i % 100 == 0) {
			CHECK(itest_proc_alive(ferryd.pid));
			CHECK(itest_client_works(&watcher, 0x100 + i));
		}
	}
	int fds_after = settle_fds(fds_before);
	long rss_after = itest_proc_rss_kib(ferryd.pid);
	fprintf(stderr, "ferryd after %d kill cycles: fds %d -> %d, VmRSS %ld -> %ld KiB\n", CYCLES,
		fds_before, fds_after, rss_before, rss_after);
	CHECK_EQ(fds_after, fds_before);
	CHECK(rss_after - rss_before < RSS_BOUND_KIB);
	CHECK(itest_client_works(&watcher, 0xE0D));
	itest_client_close(&watcher);
}

int main(void)
{
	/* ferryd's fd count is compared across a long-lived client's BO churn: libferry's BO stash
	 * (BOs created ahead, a few per size) would move it by what it holds (test_bo_stash covers it). */
	setenv("FERRY_BO_STASH", "0", 1);
	/* Keep ASan's quarantine small in ferryd so RSS reflects leaks, not the allocator. */
	const char *asan = getenv("ASAN_OPTIONS");
	char opts[512];
	snprintf(opts, sizeof(opts), "%s%squarantine_size_mb=8", asan ? asan : "",
		 asan && asan[0] ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
	srand(12345);
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_kill_cycles);
	CHECK(itest_proc_alive(ferryd.pid));
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
