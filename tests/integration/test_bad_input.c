/* Hostile bytes over a raw socket: truncated frames, lying length headers, overflowing counts,
 * wrapping offsets, unknown ids, another client's ids, stray fds, random bytes. Each must get an
 * ERROR reply or a clean disconnect of that client only; a well-behaved client is checked after
 * every case, and ferryd must still be running at the end and exit 0 on SIGTERM. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"
#include "transport.h"

static struct ferryd_proc ferryd;
static struct itest_client good;
static unsigned good_round;

enum outcome { GOT_ERROR, GOT_DISCONNECT, GOT_TIMEOUT, GOT_OTHER };

struct raw {
	int fd; /* owned by t */
	struct ferry_transport *t;
	uint32_t seq;
};

static int raw_open(struct raw *r)
{
	memset(r, 0, sizeof(*r));
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", ferryd.socket);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -errno;
	}
	r->fd = fd;
	r->seq = 1;
	return ferry_transport_unix_from_fd(fd, "raw", &r->t);
}

static void raw_close(struct raw *r)
{
	ferry_transport_destroy(r->t);
	r->t = NULL;
}

static void raw_write(struct raw *r, const void *data, size_t len)
{
	const uint8_t *p = data;
	while (len) {
		ssize_t n = send(r->fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN) {
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
			continue;
		}
		if (n <= 0)
			return; /* the server may already have hung up: that is allowed */
		p += n;
		len -= (size_t)n;
	}
}

static int raw_send(struct raw *r, struct ferry_msg *m, const int *fds, int nfds)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	if (!m->seq)
		m->seq = r->seq++;
	int e = ferry_wire_encode(m, &b);
	if (e == 0)
		e = ferry_transport_send(r->t, b.data, b.len, fds, nfds);
	ferry_buf_free(&b);
	return e;
}

/* Reads until an ERROR, a reply of kind want, EOF or 10 s. Closes any fds received. */
static enum outcome raw_expect(struct raw *r, enum ferry_msg_kind want, struct ferry_msg *out)
{
	for (int i = 0; i < 64; i++) {
		struct ferry_transport_frame f;
		int e = ferry_transport_recv(r->t, 10ll * 1000 * 1000 * 1000, &f);
		if (e == 0)
			return GOT_TIMEOUT;
		if (e < 0)
			return GOT_DISCONNECT;
		for (int k = 0; k < f.nfds; k++)
			close(f.fds[k]);
		struct ferry_msg m;
		const char *why;
		if (ferry_wire_decode(f.payload, f.len, &m, &why) < 0)
			return GOT_OTHER;
		if (m.kind == FERRY_MSG_ERROR) {
			if (out)
				*out = m;
			return GOT_ERROR;
		}
		if (want != FERRY_MSG_NONE && m.kind == want) {
			if (out)
				*out = m;
			return GOT_OTHER;
		}
		/* events and stale replies: keep reading */
	}
	return GOT_OTHER;
}

static bool error_or_disconnect(struct raw *r)
{
	enum outcome o = raw_expect(r, FERRY_MSG_NONE, NULL);
	return o == GOT_ERROR || o == GOT_DISCONNECT;
}

static void check_good_client(const char *after)
{
	bool alive = itest_proc_alive(ferryd.pid);
	bool works = alive && itest_client_works(&good, 0xC0DE0000u + ++good_round);
	if (!works)
		fprintf(stderr, "after '%s': ferryd %s, good client %s\n", after,
			alive ? "alive" : "DEAD", works ? "ok" : "NOT SERVED");
	CHECK(alive);
	CHECK(works);
}

/* A raw client with a handshake, context 1, queue 0 and BO 1 (4 KiB). */
static void raw_setup(struct raw *r)
{
	REQUIRE(raw_open(r) == 0);
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	m.u.hello.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM;
	REQUIRE(raw_send(r, &m, NULL, 0) == 0);
	REQUIRE(raw_expect(r, FERRY_MSG_HELLO_REPLY, NULL) == GOT_OTHER);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ 1, FERRY_FAMILY_MSM, 0 };
	REQUIRE(raw_send(r, &m, NULL, 0) == 0);
	REQUIRE(raw_expect(r, FERRY_MSG_CONTEXT_CREATED, NULL) == GOT_OTHER);
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ 1, 0, 0, 0, 0 };
	REQUIRE(raw_send(r, &m, NULL, 0) == 0);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ 1, 1, 4096, MSM_BO_WC, 0 };
	REQUIRE(raw_send(r, &m, NULL, 0) == 0);
	REQUIRE(raw_expect(r, FERRY_MSG_BO_CREATED, NULL) == GOT_OTHER);
}

static void test_framing_attacks(void)
{
	struct raw r;
	uint8_t junk[256];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37 + 11);

	/* Truncated frame, then close. */
	REQUIRE(raw_open(&r) == 0);
	uint32_t len = 64;
	raw_write(&r, &len, 4);
	raw_write(&r, junk, 10);
	raw_close(&r);
	check_good_client("truncated frame + close");

	/* A valid HELLO whose header claims more than follows, then close. */
	REQUIRE(raw_open(&r) == 0);
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO, .seq = 1 };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(&m, &b) == 0);
	uint32_t lie = (uint32_t)(b.len - 4 + 1000);
	memcpy(b.data, &lie, 4);
	raw_write(&r, b.data, b.len);
	ferry_buf_free(&b);
	raw_close(&r);
	check_good_client("length bigger than data + close");

	/* Bigger than FERRY_MAX_FRAME_SIZE. */
	REQUIRE(raw_open(&r) == 0);
	len = FERRY_MAX_FRAME_SIZE + 1;
	raw_write(&r, &len, 4);
	raw_write(&r, junk, sizeof(junk));
	CHECK(error_or_disconnect(&r));
	raw_close(&r);
	check_good_client("length > FERRY_MAX_FRAME_SIZE");

	REQUIRE(raw_open(&r) == 0);
	len = 0xffffffffu;
	raw_write(&r, &len, 4);
	CHECK(error_or_disconnect(&r));
	raw_close(&r);
	check_good_client("length 0xffffffff");

	/* Empty frame. */
	REQUIRE(raw_open(&r) == 0);
	len = 0;
	raw_write(&r, &len, 4);
	raw_write(&r, &len, 4);
	CHECK(error_or_disconnect(&r));
	raw_close(&r);
	check_good_client("zero-length frame");

	/* Random payloads with honest lengths, and a random stream. */
	srand(4242);
	for (int round = 0; round < 40; round++) {
		REQUIRE(raw_open(&r) == 0);
		uint8_t payload[512];
		uint32_t n = 8 + (uint32_t)(rand() % 500);
		for (uint32_t i = 0; i < n; i++)
			payload[i] = (uint8_t)rand();
		if (round % 2) { /* keep a plausible FlatBuffers root offset */
			payload[0] = 8;
			payload[1] = payload[2] = payload[3] = 0;
		}
		raw_write(&r, &n, 4);
		raw_write(&r, payload, n);
		CHECK(error_or_disconnect(&r));
		raw_close(&r);
	}
	check_good_client("random payloads");

	REQUIRE(raw_open(&r) == 0);
	for (int k = 0; k < 64; k++) {
		uint8_t chunk[1024];
		for (size_t i = 0; i < sizeof(chunk); i++)
			chunk[i] = (uint8_t)rand();
		raw_write(&r, chunk, sizeof(chunk));
	}
	CHECK(error_or_disconnect(&r));
	raw_close(&r);
	check_good_client("64 KiB random stream");
}

/* Sends m, wants an ERROR or a disconnect; reconnects (and sets up again) after a disconnect so
 * the next case starts from a served client. */
static void send_expect_error(struct raw *r, struct ferry_msg *m, const char *what)
{
	int e = raw_send(r, m, NULL, 0);
	if (e < 0) {
		/* The encoder itself refused (or the server hung up): nothing reached ferryd
		 * as such, which is fine; note it. */
		fprintf(stderr, "  (%s: not sent: %s)\n", what, strerror(-e));
		check_good_client(what);
		return;
	}
	enum outcome o = raw_expect(r, FERRY_MSG_NONE, NULL);
	if (o != GOT_ERROR && o != GOT_DISCONNECT)
		fprintf(stderr, "%s: no ERROR (outcome %d)\n", what, o);
	CHECK(o == GOT_ERROR || o == GOT_DISCONNECT);
	check_good_client(what);
	if (o == GOT_DISCONNECT) {
		raw_close(r);
		raw_setup(r);
	}
}

static void test_message_attacks(void)
{
	struct raw r;
	raw_setup(&r);
	struct ferry_msg m;

	/* nr_bos over the limit (a real array, so it encodes). */
	uint32_t huge = FERRY_MAX_SUBMIT_BOS + 100;
	struct ferry_msm_submit_bo *bos = calloc(huge, sizeof(*bos));
	REQUIRE(bos);
	for (uint32_t i = 0; i < huge; i++)
		bos[i] = (struct ferry_msm_submit_bo){ 1, MSM_SUBMIT_BO_READ };
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, 0, 0, 4 };
	m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 0, .seqno = 1,
						    .nr_bos = huge, .nr_cmds = 1, .bos = bos,
						    .cmds = &cmd };
	send_expect_error(&r, &m, "nr_bos over the limit");
	free(bos);

	struct ferry_msm_submit_bo one = { 1, MSM_SUBMIT_BO_READ };
	uint32_t seqno = 10;
#define SUBMIT_CASE(what, ...)                                                                   \
	do {                                                                                      \
		struct ferry_msm_submit_cmd c = { MSM_SUBMIT_CMD_BUF, 0, 0, 4 };                  \
		struct ferry_msm_submit_reloc rl = { 0 };                                         \
		m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT };                           \
		m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 0,           \
							    .seqno = seqno++, .nr_bos = 1,        \
							    .nr_cmds = 1, .bos = &one,            \
							    .cmds = &c };                         \
		__VA_ARGS__;                                                                      \
		send_expect_error(&r, &m, what);                                                  \
		(void)rl;                                                                         \
	} while (0)

	SUBMIT_CASE("cmd offset+size wraps u32", c.offset = 0xfffffff0u, c.size = 0x20);
	SUBMIT_CASE("cmd size beyond the BO", c.size = 8192);
	SUBMIT_CASE("cmd bo_index out of range", c.bo_index = 7);
	SUBMIT_CASE("cmd bo_index wraps", c.bo_index = 0xffffffffu);
	SUBMIT_CASE("reloc offset wraps u64", rl.bo_offset = 0xfffffffffffffff0ull,
		    rl.submit_offset = 0xfffffffcu, m.u.msm_submit.nr_relocs = 1,
		    m.u.msm_submit.relocs = &rl);
	SUBMIT_CASE("reloc bo_index out of range", rl.bo_index = 1000,
		    m.u.msm_submit.nr_relocs = 1, m.u.msm_submit.relocs = &rl);
	SUBMIT_CASE("unknown context", m.u.msm_submit.ctx_id = 77);
	SUBMIT_CASE("unknown queue", m.u.msm_submit.queue_id = 5);
	SUBMIT_CASE("queue id beyond the fence page", m.u.msm_submit.queue_id = 100000);
	SUBMIT_CASE("unknown BO id in the list", one.bo_id = 999);
	one.bo_id = 1;
	SUBMIT_CASE("another client's BO id", one.bo_id = 3);
	one.bo_id = 1;
	SUBMIT_CASE("unknown submit flags", m.u.msm_submit.flags = 0x80000000u);

	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ 1, 2, 0xffffffffffffffffull, MSM_BO_WC, 0 };
	send_expect_error(&r, &m, "BO size wraps on page rounding");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ 1, 2, 0, MSM_BO_WC, 0 };
	send_expect_error(&r, &m, "BO size 0");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ 1, 1, 4096, MSM_BO_WC, 0 };
	send_expect_error(&r, &m, "duplicate BO id");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ 1, 0, 4096, MSM_BO_WC, 0 };
	send_expect_error(&r, &m, "BO id 0");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_INFO };
	m.u.bo_info = (struct ferry_bo_info){ 1, 999 };
	send_expect_error(&r, &m, "BO_INFO unknown id");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_INFO };
	m.u.bo_info = (struct ferry_bo_info){ 1, 3 };
	send_expect_error(&r, &m, "BO_INFO of another client's BO id");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_INFO };
	m.u.bo_info = (struct ferry_bo_info){ 2, 1 };
	send_expect_error(&r, &m, "BO_INFO in another client's context id");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CLOSE };
	m.u.bo_close = (struct ferry_bo_close){ 1, 12345 };
	send_expect_error(&r, &m, "BO_CLOSE unknown id");
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ 1, 500, 0, 0, 0 };
	send_expect_error(&r, &m, "queue id >= FERRY_FENCE_PAGE_QUEUES");
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ 1, 0, 0, 0, 0 };
	send_expect_error(&r, &m, "duplicate queue id");
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ 1, 9, 1000, 0, 0 };
	send_expect_error(&r, &m, "queue priority out of range");
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CLOSE };
	m.u.queue_close = (struct ferry_queue_close){ 1, 77 };
	send_expect_error(&r, &m, "QUEUE_CLOSE unknown");
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ 1, FERRY_FAMILY_MSM, 0 };
	send_expect_error(&r, &m, "duplicate context id");
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ 9, 99, 0 };
	send_expect_error(&r, &m, "unknown family");
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy = (struct ferry_context_destroy){ 77 };
	send_expect_error(&r, &m, "CONTEXT_DESTROY unknown");
	m = (struct ferry_msg){ .kind = FERRY_MSG_FENCE_WAIT };
	m.u.fence_wait = (struct ferry_fence_wait){ 77, 0, 1, 0 };
	send_expect_error(&r, &m, "FENCE_WAIT unknown context");
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CPU_PREP };
	m.u.bo_cpu_prep = (struct ferry_bo_cpu_prep){ 1, 999, MSM_PREP_READ, 0 };
	send_expect_error(&r, &m, "CPU_PREP unknown BO");
	m = (struct ferry_msg){ .kind = FERRY_MSG_STATUS_REPLY };
	m.u.status_reply.error = 0;
	send_expect_error(&r, &m, "a host->guest message sent to the host");
	raw_close(&r);
}

static void test_stray_fds(void)
{
	struct raw r;
	REQUIRE(raw_open(&r) == 0);
	int fds[8];
	for (int i = 0; i < 8; i++)
		fds[i] = memfd_create("stray", MFD_CLOEXEC);
	/* Fds on a message that takes none: the host must close them (counted at the end). */
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	REQUIRE(raw_send(&r, &m, fds, 3) == 0);
	enum outcome o = raw_expect(&r, FERRY_MSG_HELLO_REPLY, NULL);
	CHECK(o == GOT_OTHER || o == GOT_ERROR || o == GOT_DISCONNECT);
	raw_close(&r);
	check_good_client("fds on HELLO");

	/* More fds than a frame may carry. */
	REQUIRE(raw_open(&r) == 0);
	struct ferry_buf b;
	ferry_buf_init(&b);
	m.seq = 1;
	REQUIRE(ferry_wire_encode(&m, &b) == 0);
	char cbuf[CMSG_SPACE(sizeof(int) * 8)];
	memset(cbuf, 0, sizeof(cbuf));
	struct iovec iov = { b.data, b.len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * 8);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * 8);
	CHECK(sendmsg(r.fd, &mh, MSG_NOSIGNAL) == (ssize_t)b.len);
	ferry_buf_free(&b);
	o = raw_expect(&r, FERRY_MSG_HELLO_REPLY, NULL);
	CHECK(o == GOT_ERROR || o == GOT_DISCONNECT);
	raw_close(&r);
	for (int i = 0; i < 8; i++)
		close(fds[i]);
	check_good_client("too many fds");
}

/* A guest that shrinks (or grows) its BO's pages and then has the GPU touch them must not take
 * the host down (an unsealed memfd would SIGBUS ferryd on the GPU's access). */
static void test_truncated_bo(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct itest_bo ib, target;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 65536, &target) == 0);
	/* Reach the fd behind the guest's mapping the way a hostile guest would: /proc/self/fd. */
	int truncated = 0;
	char path[64], link[128];
	for (int fd = 3; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strstr(link, "ferry-msm-bo") && ftruncate(fd, 0) == 0)
			truncated++;
	}
	CHECK_EQ(truncated, 0);
	struct pm4_builder pb;
	pm4_builder_init(&pb, ib.cpu, 1024);
	pm4_mem_write(&pb, target.iova + 65536 - 4, (uint32_t[]){ 0x5eed }, 1);
	uint32_t seqno;
	REQUIRE(itest_submit(&c, ib.bo, 0, pm4_builder_bytes(&pb), &target.bo, 1, &seqno) == 0);
	CHECK_EQ(ferry_fence_wait(c.q, seqno, ITEST_WAIT_NS), 0);
	CHECK_EQ(target.cpu[65536 / 4 - 1], 0x5eed);
	ferry_bo_close(ib.bo);
	ferry_bo_close(target.bo);
	itest_client_close(&c);
	check_good_client("truncated BO fd");
}

int main(void)
{
	/* ferryd's fd count is compared across a long-lived client's BO churn: libferry's BO stash
	 * (BOs created ahead, a few per size) would move it by what it holds (test_bo_stash covers it). */
	setenv("FERRY_BO_STASH", "0", 1);
	itest_start_ferryd(&ferryd);
	REQUIRE(itest_client_open(ferryd.uri, &good) == 0);
	/* Give the good client BOs 1..3 and context 1, so "another client's ids" exist. */
	struct ferry_bo *keep[3];
	for (int i = 0; i < 3; i++)
		REQUIRE(ferry_bo_new(good.ctx, 4096, MSM_BO_WC, &keep[i]) == 0);
	CHECK(itest_client_works(&good, 0x5EED));
	/* A round trip after the BO_CLOSEs of itest_client_works: they are handled (and their
	 * fds gone) before the baseline is taken. */
	CHECK_EQ(ferry_bo_cpu_prep(keep[0], MSM_PREP_READ, 1000000000ll), 0);
	int fds_before = itest_proc_fd_count(ferryd.pid);

	RUN_TEST(test_framing_attacks);
	RUN_TEST(test_message_attacks);
	RUN_TEST(test_stray_fds);
	RUN_TEST(test_truncated_bo);

	/* Everything the bad clients sent is gone again (disconnects are asynchronous). */
	CHECK_EQ(ferry_bo_cpu_prep(keep[0], MSM_PREP_READ, 1000000000ll), 0);
	int fds_after = -1;
	for (int t = 0; t < 200; t++) {
		fds_after = itest_proc_fd_count(ferryd.pid);
		if (fds_after <= fds_before)
			break;
		nanosleep(&(struct timespec){ 0, 25 * 1000 * 1000 }, NULL);
	}
	/* More is a leak. Fewer is the baseline's doing: a BO the kernel still held for a submit
	 * that had signaled but was not freed yet (its worker preempted on a loaded machine). */
	CHECK(fds_after <= fds_before);
	if (fds_after != fds_before)
		fprintf(stderr, "note: ferryd has %d fds now, %d at the baseline\n", fds_after, fds_before);
	CHECK(itest_proc_alive(ferryd.pid));
	for (int i = 0; i < 3; i++)
		ferry_bo_close(keep[i]);
	itest_client_close(&good);
	if (test_failures)
		ferryd_dump_log(&ferryd, 60);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
