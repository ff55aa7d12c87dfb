/* A connection flood up to ferryd's fd limit (a small RLIMIT_NOFILE, so it is quick) must not
 * break a client already connected: while the flood holds every connection ferryd would take,
 * the good client's BO creates and submits (whose shadow copies need new kernel BOs, i.e. new
 * fds) keep working, or fail with an error naming EMFILE - never the old "-ENOSPC, shadow
 * allocation failed". The flood is refused with an error once ferryd's fd reserve is reached. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

/* ferryd's (and this test's) fd limit. */
#define FD_LIMIT 256
/* Flood processes, each opening connections until its own fds run out. */
#define FLOODERS 2
/* Streams submitted during the flood: 8 KiB .. 512 KiB, one for each shadow size class above the
 * first, so every one needs a new shadow BO. */
#define NR_STREAMS 4

static struct ferryd_proc ferryd;
static const char *flood_socket; /* the ferryd flood_one connects to */

struct flood_result {
	int served;  /* HELLO answered */
	int refused; /* an ERROR frame, then closed */
	int closed;  /* closed without a word (shed) or no answer */
	int last_error;
};

/* One connection: HELLO, then the first frame back (bounded wait). */
static int flood_one(struct flood_result *r)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", flood_socket);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno; /* our own fds are used up: the flood is as big as it gets */
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO, .seq = 1 };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	struct ferry_buf b;
	ferry_buf_init(&b);
	if (ferry_wire_encode(&m, &b) < 0) {
		ferry_buf_free(&b);
		r->closed++;
		close(fd);
		return 0;
	}
	/* A refusal may come (and the server close) before the hello is sent: the send then fails
	 * with EPIPE, and the refusal is still there to read. */
	(void)send(fd, b.data, b.len, MSG_NOSIGNAL);
	ferry_buf_free(&b);
	struct ferry_frame_reader rd;
	ferry_frame_reader_init(&rd);
	int got = 0;
	for (int tries = 0; tries < 100 && got == 0; tries++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 100) < 0)
			break;
		got = ferry_frame_read(fd, &rd);
	}
	struct ferry_msg reply;
	const char *why;
	if (got == 1 && ferry_wire_decode(rd.payload, rd.len, &reply, &why) == 0 &&
	    reply.kind == FERRY_MSG_HELLO_REPLY) {
		r->served++;
		ferry_frame_reader_fini(&rd);
		return fd; /* kept open: the flood holds it */
	}
	if (got == 1 && ferry_wire_decode(rd.payload, rd.len, &reply, &why) == 0 && reply.kind == FERRY_MSG_ERROR) {
		r->refused++;
		r->last_error = reply.u.error.error;
	} else {
		r->closed++;
	}
	ferry_frame_reader_fini(&rd);
	close(fd);
	return 0;
}

/* A flood process: connects until its fds run out, reports, holds everything until told. */
static void flooder(int report_fd, int hold_fd)
{
	struct flood_result r = { 0 };
	for (int i = 0; i < FD_LIMIT; i++) {
		int ret = flood_one(&r);
		if (ret < 0)
			break;
	}
	if (write(report_fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	char c;
	ssize_t n = read(hold_fd, &c, 1); /* EOF when the parent is done (or dies) */
	(void)n;
	_exit(0);
}

/* A stream of bytes: CP_NOP padding, then one CP_MEM_WRITE of pattern into data. Submitted
 * and waited for; returns the fence's status (0, or the ERROR reply's errno). */
static int submit_stream(struct itest_client *c, struct itest_bo *ib, struct itest_bo *data, uint32_t bytes,
			 uint32_t pattern)
{
	struct pm4_builder b;
	pm4_builder_init(&b, ib->cpu, (uint32_t)(ib->size / 4));
	uint32_t want = bytes / 4 - 8;
	while (b.len < want) {
		uint32_t pad = want - b.len - 1;
		pm4_nop(&b, pad > 1000 ? 1000 : pad);
	}
	pm4_mem_write(&b, data->iova, &pattern, 1);
	if (!pm4_builder_ok(&b))
		return -EINVAL;
	data->cpu[0] = 0;
	uint32_t seqno;
	int r = itest_submit(c, ib->bo, 0, pm4_builder_bytes(&b), &data->bo, 1, &seqno);
	if (r == 0)
		r = ferry_fence_wait(c->q, seqno, ITEST_WAIT_NS);
	if (r == 0 && data->cpu[0] != pattern)
		r = -EIO;
	return r;
}

static void test_flood_spares_connected_client(void)
{
	struct itest_client good;
	REQUIRE(itest_client_open(ferryd.uri, &good) == 0);
	struct itest_bo ib, data;
	REQUIRE(itest_bo_new(good.ctx, 1 << 20, &ib) == 0);
	REQUIRE(itest_bo_new(good.ctx, 4096, &data) == 0);
	CHECK_EQ(submit_stream(&good, &ib, &data, 1024, 0xf100d000), 0);

	int report[2], hold[2];
	REQUIRE(pipe(report) == 0 && pipe(hold) == 0);
	pid_t pids[FLOODERS];
	for (int i = 0; i < FLOODERS; i++) {
		fflush(NULL);
		pids[i] = fork();
		REQUIRE(pids[i] >= 0);
		if (pids[i] == 0) {
			close(report[0]);
			close(hold[1]);
			flooder(report[1], hold[0]);
		}
	}
	close(report[1]);
	close(hold[0]);
	struct flood_result total = { 0 };
	for (int i = 0; i < FLOODERS; i++) {
		struct flood_result r;
		CHECK_EQ(read(report[0], &r, sizeof(r)), sizeof(r));
		total.served += r.served;
		total.refused += r.refused;
		total.closed += r.closed;
		if (r.last_error)
			total.last_error = r.last_error;
	}
	fprintf(stderr, "flood: %d connections served, %d refused (last error %d), %d closed; ferryd holds %d fds "
		"of %d\n", total.served, total.refused, total.last_error, total.closed,
		itest_proc_fd_count(ferryd.pid), FD_LIMIT);
	/* The flood reached the limit: ferryd turned some connections away. */
	CHECK(total.refused + total.closed > 0);

	/* Each stream needs a shadow BO of a size class not used before: a new fd in ferryd. */
	int ok = 0;
	for (int i = 0; i < NR_STREAMS; i++) {
		uint32_t bytes = 8192u << (2 * i);
		int r = submit_stream(&good, &ib, &data, bytes, 0xf100d100 + (uint32_t)i);
		const char *why = ferry_device_last_error(good.dev);
		if (r == 0) {
			ok++;
			continue;
		}
		fprintf(stderr, "submit of a %u-byte stream during the flood: %d (%s)\n", bytes, r, why ? why : "");
		CHECK(r != -ENOSPC);
		CHECK_EQ(r, -EMFILE);
		CHECK(why && strstr(why, "EMFILE"));
	}
	fprintf(stderr, "%d of %d submits needing new shadow BOs succeeded during the flood\n", ok, NR_STREAMS);
	/* A BO create and a submit as well. */
	bool works = itest_client_works(&good, 0xf100d200);
	if (!works)
		fprintf(stderr, "good client during the flood: %s\n", ferry_device_last_error(good.dev));
	CHECK(works || strstr(ferry_device_last_error(good.dev), "EMFILE"));

	close(hold[1]);
	for (int i = 0; i < FLOODERS; i++) {
		int st;
		CHECK_EQ(waitpid(pids[i], &st, 0), pids[i]);
	}
	close(report[0]);
	CHECK(itest_proc_alive(ferryd.pid));
	/* ferryd sees the flood's hang-ups asynchronously: allow it a moment (bounded). */
	bool after = false;
	for (int tries = 0; tries < 50 && !after; tries++) {
		after = itest_client_works(&good, 0xf100d300 + (uint32_t)tries);
		if (!after)
			nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	}
	CHECK(after);
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&good);
}

/* One process cannot take every connection slot (--max-connections-per-process): its next
 * connection is refused with -EUSERS naming the option, while another process still gets in,
 * and a slot it gives back is its again. */
static void test_connections_per_process(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	struct ferryd_proc capped;
	const char *const extra[] = { "--max-connections-per-process", "4", NULL };
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &capped) == 0);
	flood_socket = capped.socket;
	struct flood_result r = { 0 };
	int held[4];
	for (int i = 0; i < 4; i++) {
		held[i] = flood_one(&r);
		CHECK(held[i] > 0);
	}
	CHECK_EQ(r.served, 4);
	CHECK_EQ(flood_one(&r), 0);
	CHECK_EQ(r.refused, 1);
	CHECK_EQ(r.last_error, -EUSERS);

	pid_t child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		struct flood_result cr = { 0 };
		int fd = flood_one(&cr);
		_exit(fd > 0 && cr.served == 1 ? 0 : 1);
	}
	int st;
	CHECK_EQ(waitpid(child, &st, 0), child);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	close(held[0]);
	int again = -1;
	for (int tries = 0; tries < 50 && again <= 0; tries++) { /* ferryd notices the close first */
		again = flood_one(&r);
		if (again <= 0)
			nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	CHECK(again > 0);
	if (again > 0)
		close(again);
	for (int i = 1; i < 4; i++)
		if (held[i] > 0)
			close(held[i]);
	CHECK(itest_proc_alive(capped.pid));
	CHECK(itest_stop_ferryd(&capped));
	flood_socket = ferryd.socket;
}

int main(void)
{
	/* ferryd raises its soft limit to the hard one: lower both, for it and for the flooders. */
	struct rlimit rl = { FD_LIMIT, FD_LIMIT };
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("setrlimit");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	/* Two flood processes must be able to fill the fd table here: no per-process cap. */
	char path[PATH_MAX];
	if (ferryd_locate(NULL, path, sizeof(path)) < 0) {
		fprintf(stderr, "cannot find ferryd: set $FERRYD\n");
		return 1;
	}
	const char *const extra[] = { "--max-connections-per-process", "100000", NULL };
	if (ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) < 0)
		return 1;
	flood_socket = ferryd.socket;
	RUN_TEST(test_flood_spares_connected_client);
	RUN_TEST(test_connections_per_process);
	CHECK(itest_proc_alive(ferryd.pid));
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
