/* A client that never reads its replies cannot pin ferryd's fds: it creates BOs as fast as it
 * can (each BO_CREATED reply carries an fd) and reads nothing. ferryd must stop reading it, so
 * its fd count stays bounded; a good client keeps working meanwhile; and the stuck client is
 * cut off in the end, giving every fd back. A libferry client that pipelines thousands of BO
 * creates before reading a reply is not mistaken for one: libferry reads while it sends. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

/* BO_CREATEs the bad client tries to send; without back-pressure ferryd creates every one and
 * queues a dup of each reply's fd: about two fds per request. */
#define FLOOD_BOS 4000
/* What ferryd may hold for the bad client with back-pressure: the BOs of the replies the socket
 * buffer took before ferryd stopped reading (a few hundred), plus the throttle's queued fds. */
#define FD_BOUND 1024

static struct ferryd_proc ferryd;

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL);
}

/* ferryd's fd count once it stops changing (it handles disconnects and frames asynchronously). */
static int settled_fds(void)
{
	int last = -1;
	for (int tries = 0, same = 0; tries < 200 && same < 4; tries++) {
		int now = itest_proc_fd_count(ferryd.pid);
		same = now == last ? same + 1 : 0;
		last = now;
		sleep_ms(25);
	}
	return last;
}

/* Writes one frame; false when the socket stayed full for timeout_ms (ferryd stopped reading us)
 * or broke. */
static bool send_frame(int fd, struct ferry_msg *m, int timeout_ms)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	bool ok = ferry_wire_encode(m, &b) == 0;
	size_t off = 0;
	while (ok && off < b.len) {
		ssize_t n = send(fd, b.data + off, b.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			ok = false;
			break;
		}
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		if (poll(&p, 1, timeout_ms) <= 0)
			ok = false;
	}
	ferry_buf_free(&b);
	return ok;
}

static int connect_raw(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", ferryd.socket);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void test_unread_replies_bounded(void)
{
	struct itest_client good;
	REQUIRE(itest_client_open(ferryd.uri, &good) == 0);
	CHECK(itest_client_works(&good, 0xbead0001));
	int baseline = settled_fds();
	REQUIRE(baseline > 0);

	int bad = connect_raw();
	REQUIRE(bad >= 0);
	uint32_t seq = 1;
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO, .seq = seq++ };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	REQUIRE(send_frame(bad, &m, 5000));
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE, .seq = seq++ };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM,
							    .policy = FERRY_POLICY_VALIDATED };
	REQUIRE(send_frame(bad, &m, 5000));
	int sent = 0;
	for (uint32_t id = 1; id <= FLOOD_BOS; id++, sent++) {
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE, .seq = seq++ };
		m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = id, .size = 4096, .flags = MSM_BO_WC };
		/* Blocked for 2 s: ferryd is not reading us any more. That is the point. */
		if (!send_frame(bad, &m, 2000))
			break;
	}
	int during = settled_fds();
	fprintf(stderr, "bad client sent %d of %d BO_CREATEs without reading; ferryd fds %d -> %d (bound +%d)\n",
		sent, FLOOD_BOS, baseline, during, FD_BOUND);
	CHECK(during - baseline <= FD_BOUND);
	CHECK(itest_proc_alive(ferryd.pid));

	/* The good client is served while the bad one sits on its unread replies. */
	CHECK(itest_client_works(&good, 0xbead0002));
	struct itest_client other;
	CHECK(itest_client_open(ferryd.uri, &other) == 0);
	if (other.dev) {
		CHECK(itest_client_works(&other, 0xbead0003));
		itest_client_close(&other);
	}

	/* Still not reading: ferryd cuts it off once it is stuck, and gives its fds back. Bounded:
	 * the cut-off comes after ferryd's stuck timeout (10 s), this waits up to 60 s. */
	int after = -1;
	for (int tries = 0; tries < 600; tries++) {
		after = itest_proc_fd_count(ferryd.pid);
		if (after <= baseline)
			break;
		sleep_ms(100);
	}
	fprintf(stderr, "stuck client cut off: ferryd fds %d (baseline %d)\n", after, baseline);
	CHECK(after <= baseline);
	close(bad);
	CHECK(itest_client_works(&good, 0xbead0004));
	itest_client_close(&good);
}

#define PIPELINED_BOS 3000

static void test_pipelined_libferry_client(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	static struct ferry_bo *bos[PIPELINED_BOS];
	int made = 0;
	/* BO_CREATE does not wait for its reply: all of them go out before anything is read. */
	for (; made < PIPELINED_BOS; made++)
		if (ferry_bo_new(c.ctx, 4096, MSM_BO_WC, &bos[made]) < 0)
			break;
	CHECK_EQ(made, PIPELINED_BOS);
	int mapped = 0;
	for (int i = 0; i < made; i++) {
		void *p;
		if (ferry_bo_map(bos[i], &p) == 0)
			mapped++;
	}
	fprintf(stderr, "pipelined libferry client: %d BOs created, %d mapped\n", made, mapped);
	CHECK_EQ(mapped, PIPELINED_BOS);
	for (int i = 0; i < made; i++)
		ferry_bo_close(bos[i]);
	CHECK(itest_client_works(&c, 0xbead0005));
	itest_client_close(&c);
}

int main(void)
{
	/* ferryd's fd count is compared across a long-lived client's BO churn: libferry's BO stash
	 * (BOs created ahead, a few per size) would move it by what it holds (test_bo_stash covers it). */
	setenv("FERRY_BO_STASH", "0", 1);
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_pipelined_libferry_client);
	RUN_TEST(test_unread_replies_bounded);
	CHECK(itest_proc_alive(ferryd.pid));
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
