/* Framing tests over socketpairs: partial reads, batched frames, fd passing and its failure
 * modes, size limits, EOF semantics, and sending into a full socket; the callback-fed reader
 * (a TLS session's bytes) with the same limits. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ferry/wire.h"
#include "test.h"

static int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	REQUIRE(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

static void make_pair(int sv[2], int nonblocking_reader)
{
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	if (nonblocking_reader)
		REQUIRE(fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) == 0);
}

static int make_memfd(const char *content)
{
	int fd = memfd_create("ferry-test", MFD_CLOEXEC);
	REQUIRE(fd >= 0);
	size_t n = strlen(content);
	REQUIRE(write(fd, content, n) == (ssize_t)n);
	return fd;
}

/* True if fd is a file holding exactly content (read through the fd itself). */
static int fd_holds(int fd, const char *content)
{
	char buf[64] = { 0 };
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	return n == (ssize_t)strlen(content) && memcmp(buf, content, (size_t)n) == 0;
}

/* A frame of len payload bytes, each byte a function of its index and tag. */
static uint8_t *make_frame(uint32_t len, uint8_t tag, size_t *frame_len)
{
	uint8_t *f = malloc(FERRY_FRAME_HDR_SIZE + len + 1);
	REQUIRE(f);
	f[0] = (uint8_t)len;
	f[1] = (uint8_t)(len >> 8);
	f[2] = (uint8_t)(len >> 16);
	f[3] = (uint8_t)(len >> 24);
	for (uint32_t i = 0; i < len; i++)
		f[FERRY_FRAME_HDR_SIZE + i] = (uint8_t)(i * 7 + tag);
	*frame_len = FERRY_FRAME_HDR_SIZE + len;
	return f;
}

static int payload_matches(const struct ferry_frame_reader *r, uint32_t len, uint8_t tag)
{
	if (r->len != len)
		return 0;
	for (uint32_t i = 0; i < len; i++)
		if (r->payload[i] != (uint8_t)(i * 7 + tag))
			return 0;
	return 1;
}

static void close_frame_fds(struct ferry_frame_reader *r)
{
	for (int i = 0; i < r->nfds; i++)
		close(r->fds[i]);
}

static void test_partial_reads(void)
{
	int sv[2];
	make_pair(sv, 1);
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 0);

	struct ferry_msg m;
	memset(&m, 0, sizeof(m));
	m.kind = FERRY_MSG_BO_CREATED;
	m.seq = 9;
	m.u.bo_created.bo_id = 5;
	m.u.bo_created.size = 4096;
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(&m, &b) == 0);

	/* The fd rides on the first byte; every other byte arrives on its own. */
	int memfd = make_memfd("bo pages");
	CHECK_EQ(ferry_frame_send_some(sv[1], b.data, 1, &memfd, 1), 1);
	close(memfd);
	for (size_t i = 1; i < b.len; i++) {
		CHECK_EQ(ferry_frame_read(sv[0], &r), 0);
		REQUIRE(send(sv[1], b.data + i, 1, MSG_NOSIGNAL) == 1);
	}
	REQUIRE(ferry_frame_read(sv[0], &r) == 1);
	CHECK_EQ(r.len, b.len - FERRY_FRAME_HDR_SIZE);
	CHECK(memcmp(r.payload, b.data + FERRY_FRAME_HDR_SIZE, r.len) == 0);
	CHECK_EQ((uintptr_t)r.payload % 8, 0);
	REQUIRE(r.nfds == 1);
	CHECK(fd_holds(r.fds[0], "bo pages"));

	/* The payload decodes in place: no copy needed. */
	struct ferry_msg out;
	CHECK_EQ(ferry_wire_decode(r.payload, r.len, &out, NULL), 0);
	CHECK_EQ(out.kind, FERRY_MSG_BO_CREATED);
	CHECK_EQ(out.u.bo_created.size, 4096);

	/* Reading again before next() hands back the same frame. */
	CHECK_EQ(ferry_frame_read(sv[0], &r), 1);
	close_frame_fds(&r);
	ferry_frame_reader_next(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 0);

	ferry_buf_free(&b);
	ferry_frame_reader_fini(&r);
	close(sv[0]);
	close(sv[1]);
}

static void test_several_frames_in_one_write(void)
{
	int sv[2];
	make_pair(sv, 1);
	struct ferry_buf b;
	ferry_buf_init(&b);
	const enum ferry_msg_kind kinds[3] = { FERRY_MSG_FENCE_SIGNALED, FERRY_MSG_STATUS_REPLY, FERRY_MSG_BO_CLOSE };
	for (int i = 0; i < 3; i++) {
		struct ferry_msg m;
		memset(&m, 0, sizeof(m));
		m.kind = kinds[i];
		m.seq = (uint32_t)i + 1;
		REQUIRE(ferry_wire_encode(&m, &b) == 0);
	}
	/* One extra zero-length frame at the end: legal framing, rejected later by the decoder. */
	REQUIRE(ferry_buf_append(&b, "\0\0\0\0", 4) == 0);
	CHECK_EQ(ferry_frame_send(sv[1], b.data, b.len, NULL, 0), 0);

	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	uint8_t *first_payload = NULL;
	for (int i = 0; i < 3; i++) {
		REQUIRE(ferry_frame_read(sv[0], &r) == 1);
		CHECK_EQ(r.nfds, 0);
		if (i == 0)
			first_payload = r.payload;
		CHECK(r.payload == first_payload); /* the buffer is reused, not reallocated */
		struct ferry_msg out;
		CHECK_EQ(ferry_wire_decode(r.payload, r.len, &out, NULL), 0);
		CHECK_EQ(out.kind, kinds[i]);
		CHECK_EQ(out.seq, i + 1);
		ferry_frame_reader_next(&r);
	}
	REQUIRE(ferry_frame_read(sv[0], &r) == 1);
	CHECK_EQ(r.len, 0);
	struct ferry_msg out;
	CHECK_EQ(ferry_wire_decode(r.payload, r.len, &out, NULL), -EBADMSG);
	ferry_frame_reader_next(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 0);

	ferry_buf_free(&b);
	ferry_frame_reader_fini(&r);
	close(sv[0]);
	close(sv[1]);
}

static void test_fd_passing(void)
{
	int baseline = count_open_fds();
	int sv[2];
	make_pair(sv, 1);
	size_t len;
	uint8_t *frame = make_frame(40, 1, &len);

	/* Four frames queued before the reader looks: each must get exactly its own fds. */
	int a = make_memfd("A"), b = make_memfd("B"), c = make_memfd("C"), d = make_memfd("D");
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, &a, 1), 0);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, &b, 1), 0);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, NULL, 0), 0);
	int cd[2] = { c, d };
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, cd, 2), 0);
	close(a);
	close(b);
	close(c);
	close(d);

	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	const char *expect[4][2] = { { "A", NULL }, { "B", NULL }, { NULL, NULL }, { "C", "D" } };
	for (int i = 0; i < 4; i++) {
		REQUIRE(ferry_frame_read(sv[0], &r) == 1);
		CHECK(payload_matches(&r, 40, 1));
		int want = expect[i][1] ? 2 : expect[i][0] ? 1 : 0;
		REQUIRE(r.nfds == want);
		for (int j = 0; j < r.nfds; j++) {
			CHECK(fd_holds(r.fds[j], expect[i][j]));
			CHECK(fcntl(r.fds[j], F_GETFD) & FD_CLOEXEC);
		}
		close_frame_fds(&r);
		ferry_frame_reader_next(&r);
	}
	CHECK_EQ(ferry_frame_read(sv[0], &r), 0);
	ferry_frame_reader_fini(&r);
	free(frame);
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(count_open_fds(), baseline);
}

/* Sends bytes with nfds memfds attached through a raw sendmsg (ferry_frame_send refuses more
 * than FERRY_MAX_FRAME_FDS), closing the sender's copies. */
static void raw_send_with_fds(int sock, const void *bytes, size_t len, int nfds)
{
	int fds[16];
	REQUIRE(nfds <= 16);
	for (int i = 0; i < nfds; i++)
		fds[i] = make_memfd("x");
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 16)];
	} control;
	memset(&control, 0, sizeof(control));
	struct iovec iov = { .iov_base = (void *)bytes, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	REQUIRE(sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}

static void test_fds_dropped_on_truncated_control(void)
{
	int baseline = count_open_fds();
	int sv[2];
	make_pair(sv, 1);
	size_t len;
	uint8_t *frame = make_frame(16, 2, &len);

	/* More fds than the control buffer holds: MSG_CTRUNC, and none of them may stay open. */
	raw_send_with_fds(sv[1], frame, len, FERRY_MAX_FRAME_FDS + 1);
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), -EBADMSG);
	CHECK_EQ(r.nfds, 0);
	ferry_frame_reader_fini(&r);
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(count_open_fds(), baseline);

	/* Fds on the header and more on the payload add up past the limit: all are closed. */
	make_pair(sv, 1);
	raw_send_with_fds(sv[1], frame, FERRY_FRAME_HDR_SIZE, 3);
	raw_send_with_fds(sv[1], frame + FERRY_FRAME_HDR_SIZE, len - FERRY_FRAME_HDR_SIZE, 3);
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), -EBADMSG);
	CHECK_EQ(r.nfds, 0);
	ferry_frame_reader_fini(&r);
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(count_open_fds(), baseline);

	/* The same split within the limit is one frame with all its fds. */
	make_pair(sv, 1);
	raw_send_with_fds(sv[1], frame, FERRY_FRAME_HDR_SIZE, 2);
	raw_send_with_fds(sv[1], frame + FERRY_FRAME_HDR_SIZE, len - FERRY_FRAME_HDR_SIZE, 2);
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 1);
	CHECK_EQ(r.nfds, 4);
	CHECK(payload_matches(&r, 16, 2));
	ferry_frame_reader_fini(&r); /* closes the fds nobody took */
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(count_open_fds(), baseline);
	free(frame);
}

/* A server that asks for peer credentials gets them on every read, next to the fds. */
static void test_fds_with_passcred(void)
{
	int baseline = count_open_fds();
	int sv[2];
	make_pair(sv, 1);
	int on = 1;
	REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) == 0);
	size_t len;
	uint8_t *frame = make_frame(24, 8, &len);
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);

	raw_send_with_fds(sv[1], frame, len, FERRY_MAX_FRAME_FDS);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 1);
	CHECK_EQ(r.nfds, FERRY_MAX_FRAME_FDS);
	CHECK(payload_matches(&r, 24, 8));
	for (int i = 0; i < r.nfds; i++)
		CHECK(fd_holds(r.fds[i], "x"));
	close_frame_fds(&r);
	ferry_frame_reader_next(&r);

	raw_send_with_fds(sv[1], frame, len, FERRY_MAX_FRAME_FDS + 1);
	CHECK_EQ(ferry_frame_read(sv[0], &r), -EBADMSG);
	ferry_frame_reader_fini(&r);
	free(frame);
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(count_open_fds(), baseline);
}

static void test_oversize_header(void)
{
	int sv[2];
	make_pair(sv, 1);
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	uint32_t big = FERRY_MAX_FRAME_SIZE + 1;
	uint8_t hdr[4] = { (uint8_t)big, (uint8_t)(big >> 8), (uint8_t)(big >> 16), (uint8_t)(big >> 24) };
	REQUIRE(send(sv[1], hdr, 4, MSG_NOSIGNAL) == 4);
	CHECK_EQ(ferry_frame_read(sv[0], &r), -EMSGSIZE);
	CHECK(r.payload_cap < big); /* refused before allocating */
	ferry_frame_reader_fini(&r);
	close(sv[0]);
	close(sv[1]);

	make_pair(sv, 1);
	ferry_frame_reader_init(&r);
	r.max_len = 64;
	size_t len;
	uint8_t *frame = make_frame(64, 3, &len);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, NULL, 0), 0);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 1);
	CHECK(payload_matches(&r, 64, 3));
	ferry_frame_reader_next(&r);
	free(frame);
	frame = make_frame(65, 3, &len);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, NULL, 0), 0);
	CHECK_EQ(ferry_frame_read(sv[0], &r), -EMSGSIZE);
	free(frame);
	ferry_frame_reader_fini(&r);
	close(sv[0]);
	close(sv[1]);
}

static void test_eof(void)
{
	int baseline = count_open_fds();
	size_t len;
	uint8_t *frame = make_frame(32, 4, &len);
	struct ferry_frame_reader r;
	int sv[2];

	/* At a frame boundary: an orderly goodbye. */
	make_pair(sv, 1);
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, NULL, 0), 0);
	close(sv[1]);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 1);
	ferry_frame_reader_next(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), -EPIPE);
	ferry_frame_reader_fini(&r);
	close(sv[0]);

	/* Inside the header, and inside the payload (with an fd already received). */
	const size_t cuts[3] = { 2, FERRY_FRAME_HDR_SIZE, FERRY_FRAME_HDR_SIZE + 10 };
	for (int i = 0; i < 3; i++) {
		make_pair(sv, 1);
		ferry_frame_reader_init(&r);
		int memfd = make_memfd("lost");
		CHECK_EQ(ferry_frame_send_some(sv[1], frame, cuts[i], &memfd, 1), (long)cuts[i]);
		close(memfd);
		CHECK_EQ(ferry_frame_read(sv[0], &r), 0);
		close(sv[1]);
		CHECK_EQ(ferry_frame_read(sv[0], &r), -ECONNRESET);
		CHECK_EQ(r.nfds, 0);
		ferry_frame_reader_fini(&r);
		close(sv[0]);
	}
	free(frame);
	CHECK_EQ(count_open_fds(), baseline);
}

static void test_send_some_full_socket(void)
{
	int sv[2];
	make_pair(sv, 1);
	int small = 4096;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));

	size_t len;
	uint8_t *frame = make_frame(256 * 1024, 5, &len);
	int memfd = make_memfd("big");
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);

	size_t off = 0;
	int saw_full = 0, got = 0, rounds = 0;
	while (!got && rounds++ < 1000000) {
		/* Fill the socket until it refuses, then let the reader drain what is there. */
		while (off < len) {
			long n = ferry_frame_send_some(sv[1], frame + off, len - off, off == 0 ? &memfd : NULL,
						       off == 0 ? 1 : 0);
			REQUIRE(n >= 0);
			if (n == 0) {
				saw_full = 1;
				break;
			}
			off += (size_t)n;
		}
		int rc = ferry_frame_read(sv[0], &r);
		REQUIRE(rc >= 0);
		got = rc == 1;
	}
	close(memfd);
	CHECK(saw_full);
	REQUIRE(got);
	CHECK_EQ(off, len);
	CHECK(payload_matches(&r, 256 * 1024, 5));
	REQUIRE(r.nfds == 1);
	CHECK(fd_holds(r.fds[0], "big"));
	close_frame_fds(&r);
	ferry_frame_reader_next(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 0);

	/* A zero-length send is a no-op. */
	CHECK_EQ(ferry_frame_send_some(sv[1], frame, 0, NULL, 0), 0);
	ferry_frame_reader_fini(&r);
	free(frame);
	close(sv[0]);
	close(sv[1]);
}

struct big_send {
	int sock;
	const uint8_t *frame;
	size_t len;
	int fd;
	int result;
};

static void *big_send_thread(void *arg)
{
	struct big_send *s = arg;
	s->result = ferry_frame_send(s->sock, s->frame, s->len, &s->fd, 1);
	return NULL;
}

static void test_blocking_send_of_a_large_frame(void)
{
	int sv[2];
	make_pair(sv, 0); /* both ends blocking: the reader loops inside ferry_frame_read */
	size_t len;
	uint32_t payload_len = FERRY_MAX_FRAME_SIZE;
	uint8_t *frame = make_frame(payload_len, 6, &len);
	struct big_send s = { .sock = sv[1], .frame = frame, .len = len, .fd = make_memfd("large"), .result = 1 };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, big_send_thread, &s) == 0);

	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read(sv[0], &r), 1);
	REQUIRE(pthread_join(t, NULL) == 0);
	CHECK_EQ(s.result, 0);
	CHECK(payload_matches(&r, payload_len, 6));
	REQUIRE(r.nfds == 1);
	CHECK(fd_holds(r.fds[0], "large"));
	close_frame_fds(&r);
	ferry_frame_reader_fini(&r);
	close(s.fd);
	free(frame);
	close(sv[0]);
	close(sv[1]);
}

static void test_send_errors(void)
{
	int sv[2];
	make_pair(sv, 1);
	size_t len;
	uint8_t *frame = make_frame(8, 7, &len);
	int fds[FERRY_MAX_FRAME_FDS + 1] = { 0 };
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, fds, FERRY_MAX_FRAME_FDS + 1), -EINVAL);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, fds, -1), -EINVAL);
	CHECK_EQ(ferry_frame_send(sv[1], frame, 0, fds, 1), -EINVAL);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, NULL, 1), -EINVAL);
	CHECK_EQ(ferry_frame_send_some(sv[1], frame, len, fds, FERRY_MAX_FRAME_FDS + 1), -EINVAL);

	/* A vanished peer is an error code, not a SIGPIPE that kills the process. */
	close(sv[0]);
	CHECK_EQ(ferry_frame_send(sv[1], frame, len, NULL, 0), -EPIPE);
	CHECK_EQ(ferry_frame_send_some(sv[1], frame, len, NULL, 0), -EPIPE);
	close(sv[1]);
	free(frame);

	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read(-1, &r), -EBADF);
	ferry_frame_reader_fini(&r);
}

/* The callback-fed reader: bytes from a buffer, at most `chunk` a call, -EAGAIN between calls
 * when `stutter` (as a non-blocking TLS session with nothing decrypted yet). */
struct feed {
	const uint8_t *data;
	size_t len, off, chunk;
	bool stutter, again_next;
	size_t max_asked; /* the most one call asked for */
	size_t asked_past; /* calls that asked beyond the current frame's end (must stay 0) */
	size_t frame_end;
};

static long feed_read(void *arg, void *buf, size_t len)
{
	struct feed *f = arg;
	if (len > f->max_asked)
		f->max_asked = len;
	if (f->off + len > f->frame_end)
		f->asked_past++;
	if (f->stutter && (f->again_next = !f->again_next))
		return -EAGAIN;
	if (f->off == f->len)
		return f->stutter ? -EAGAIN : 0;
	size_t n = len < f->chunk ? len : f->chunk;
	if (n > f->len - f->off)
		n = f->len - f->off;
	memcpy(buf, f->data + f->off, n);
	f->off += n;
	return (long)n;
}

static void test_read_from_callback(void)
{
	/* Two frames back to back: 5 bytes and 3000 bytes of payload. */
	static uint8_t stream[4 + 5 + 4 + 3000];
	stream[0] = 5;
	memcpy(stream + 4, "hello", 5);
	stream[9] = 3000 & 0xff;
	stream[10] = 3000 >> 8;
	for (int i = 0; i < 3000; i++)
		stream[13 + i] = (uint8_t)i;
	for (size_t chunk = 1; chunk <= 4096; chunk *= 7) {
		struct feed f = { .data = stream, .len = sizeof(stream), .chunk = chunk, .stutter = chunk == 1,
				  .frame_end = 9 };
		struct ferry_frame_reader r;
		ferry_frame_reader_init(&r);
		int got;
		while ((got = ferry_frame_read_from(&r, feed_read, &f)) == 0)
			;
		CHECK_EQ(got, 1);
		CHECK_EQ(r.len, 5u);
		CHECK(memcmp(r.payload, "hello", 5) == 0);
		CHECK_EQ(r.nfds, 0);
		ferry_frame_reader_next(&r);
		f.frame_end = sizeof(stream);
		while ((got = ferry_frame_read_from(&r, feed_read, &f)) == 0)
			;
		CHECK_EQ(got, 1);
		CHECK_EQ(r.len, 3000u);
		CHECK(memcmp(r.payload, stream + 13, 3000) == 0);
		/* Never a byte asked for past the frame: what follows stays in the session's buffer. */
		CHECK_EQ(f.asked_past, 0u);
		ferry_frame_reader_next(&r);
		if (!f.stutter)
			CHECK_EQ(ferry_frame_read_from(&r, feed_read, &f), -EPIPE);
		ferry_frame_reader_fini(&r);
	}
}

static void test_read_from_limits(void)
{
	/* A header over max_len: -EMSGSIZE, nothing allocated for it. */
	uint8_t big[4] = { 0x01, 0x10, 0x00, 0x00 }; /* 4097 */
	struct feed f = { .data = big, .len = 4, .chunk = 4, .frame_end = 4 };
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	r.max_len = 4096;
	CHECK_EQ(ferry_frame_read_from(&r, feed_read, &f), -EMSGSIZE);
	ferry_frame_reader_fini(&r);

	uint8_t huge[4] = { 0x01, 0x00, 0x10, 0x00 }; /* 1 MiB + 1: over FERRY_MAX_FRAME_SIZE */
	f = (struct feed){ .data = huge, .len = 4, .chunk = 4, .frame_end = 4 };
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read_from(&r, feed_read, &f), -EMSGSIZE);
	ferry_frame_reader_fini(&r);

	/* EOF inside a frame. */
	uint8_t cut[6] = { 10, 0, 0, 0, 'a', 'b' };
	f = (struct feed){ .data = cut, .len = 6, .chunk = 6, .frame_end = 14 };
	ferry_frame_reader_init(&r);
	CHECK_EQ(ferry_frame_read_from(&r, feed_read, &f), -ECONNRESET);
	ferry_frame_reader_fini(&r);
}

int main(void)
{
	RUN_TEST(test_partial_reads);
	RUN_TEST(test_several_frames_in_one_write);
	RUN_TEST(test_fd_passing);
	RUN_TEST(test_fds_dropped_on_truncated_control);
	RUN_TEST(test_fds_with_passcred);
	RUN_TEST(test_oversize_header);
	RUN_TEST(test_eof);
	RUN_TEST(test_send_some_full_socket);
	RUN_TEST(test_blocking_send_of_a_large_frame);
	RUN_TEST(test_send_errors);
	RUN_TEST(test_read_from_callback);
	RUN_TEST(test_read_from_limits);
	return test_finish();
}
