/* The tcp wrapper (guest/transport/remote.c) against a scripted server on a socketpair: what it
 * does with a broken server's BoData, which local fds it holds after requests fail, and whose words
 * reach libferry when the stream under it fails. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ferry/wire.h"
#include "test.h"
#include "stream.h"
#include "transport.h"

struct pair {
	struct ferry_transport *t; /* the guest's wrapped transport */
	int srv;                   /* the server's end */
	struct ferry_frame_reader reader;
	bool frame_held; /* reader holds the last frame read */
	uint32_t seq;
};

static void pair_open(struct pair *p)
{
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	struct ferry_transport *inner;
	REQUIRE(ferry_transport_unix_from_fd(sv[0], "tcp:fake:1", &inner) == 0);
	REQUIRE(ferry_transport_remote_wrap(inner, &p->t) == 0);
	p->srv = sv[1];
	p->seq = 1;
	p->frame_held = false;
	ferry_frame_reader_init(&p->reader);
}

static void pair_close(struct pair *p)
{
	ferry_transport_destroy(p->t);
	ferry_frame_reader_fini(&p->reader);
	close(p->srv);
}

/* The server sends m. */
static void srv_send(struct pair *p, const struct ferry_msg *m)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	REQUIRE(ferry_frame_send(p->srv, b.data, b.len, NULL, 0) == 0);
	ferry_buf_free(&b);
}

/* The server reads the next frame into *m (valid until the next read). */
static void srv_recv(struct pair *p, struct ferry_msg *m)
{
	if (p->frame_held)
		ferry_frame_reader_next(&p->reader);
	p->frame_held = false;
	for (int i = 0; i < 200; i++) {
		int r = ferry_frame_read(p->srv, &p->reader);
		REQUIRE(r >= 0);
		if (r == 1) {
			p->frame_held = true;
			REQUIRE(ferry_wire_decode(p->reader.payload, p->reader.len, m, NULL) == 0);
			return;
		}
		usleep(10 * 1000);
	}
	REQUIRE(!"the guest sent nothing in 2 s");
}

/* The guest sends m with fds. */
static int guest_send(struct pair *p, struct ferry_msg *m, const int *fds, int nfds)
{
	m->seq = p->seq++;
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	int r = ferry_transport_send(p->t, b.data, b.len, fds, nfds);
	ferry_buf_free(&b);
	return r;
}

/* A BoCreated from the server, received by the guest: the local memfd it was handed. */
static int make_bo(struct pair *p, uint32_t ctx_id, uint32_t bo_id, uint64_t size)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATED, .seq = 0 };
	m.u.bo_created = (struct ferry_bo_created){ .ctx_id = ctx_id, .bo_id = bo_id, .size = size };
	srv_send(p, &m);
	struct ferry_transport_frame f;
	REQUIRE(ferry_transport_recv(p->t, 2000ll * 1000 * 1000, &f) == 1);
	REQUIRE(f.nfds == 1);
	return f.fds[0];
}

/* Open fds of this process that are the wrapper's BO memfds. */
static int bo_memfds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++) {
		char path[64], target[PATH_MAX];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t l = readlink(path, target, sizeof(target) - 1);
		if (l <= 0)
			continue;
		target[l] = '\0';
		if (strstr(target, "memfd:ferry-bo"))
			n++;
	}
	return n;
}

/* A BoData that does not fit the BO it names (a broken or hostile server) ends the connection
 * with a reason: dropping it would leave the guest's copy stale while the fence says done. */
static void test_bad_bo_data_is_an_error(void)
{
	static const struct {
		uint64_t offset;
		uint32_t flags;
		const char *what;
	} cases[] = {
		{ 8192, 0, "range past the end" },
		{ 4090, 0, "range across the end" },
		{ 0, FERRY_BO_DATA_ZSTD, "not zstd" },
	};
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct pair p;
		pair_open(&p);
		int fd = make_bo(&p, 1, 1, 4096);
		struct ferry_msg m = { .kind = FERRY_MSG_BO_MAP };
		m.u.bo_map = (struct ferry_bo_map){ 1, 1 };
		REQUIRE(guest_send(&p, &m, NULL, 0) == 0);
		srv_recv(&p, &m);
		CHECK_EQ(m.kind, FERRY_MSG_BO_MAP);

		uint8_t data[16];
		memset(data, 0x5a, sizeof(data));
		struct ferry_bo_range rg = { .offset = cases[c].offset, .len = sizeof(data) };
		struct ferry_msg d = { .kind = FERRY_MSG_BO_DATA };
		d.u.bo_data = (struct ferry_bo_data){ .ctx_id = 1, .bo_id = 1, .flags = cases[c].flags, .nr_ranges = 1,
						      .ranges = &rg, .raw_len = sizeof(data), .data_len = sizeof(data),
						      .data = data };
		srv_send(&p, &d);
		struct ferry_transport_frame f;
		int r = ferry_transport_recv(p.t, 300ll * 1000 * 1000, &f);
		fprintf(stderr, "  %s: recv %d, \"%s\"\n", cases[c].what, r, p.t->error);
		CHECK(r < 0);
		CHECK(strstr(p.t->error, "BoData") != NULL);
		close(fd);
		pair_close(&p);
	}
}

/* A BoImport of a local BO that ferryd refuses: the wrapper's hold on the source's pages (kept
 * for the BoCreated that never comes) must go with the refusal, not stay until disconnect. */
static void test_refused_import_frees_its_fd(void)
{
	CHECK_EQ(bo_memfds(), 0);
	struct pair p;
	pair_open(&p);
	int fd = make_bo(&p, 1, 1, 4096);
	for (int i = 0; i < 3; i++) {
		struct ferry_msg m = { .kind = FERRY_MSG_BO_IMPORT };
		m.u.bo_import = (struct ferry_bo_import){ .ctx_id = 1, .bo_id = 10 + (uint32_t)i };
		REQUIRE(guest_send(&p, &m, &fd, 1) == 0);
		uint32_t seq = m.seq;
		srv_recv(&p, &m);
		CHECK_EQ(m.kind, FERRY_MSG_BO_IMPORT);
		CHECK_EQ(m.u.bo_import.src_bo_id, 1);
		struct ferry_msg e = { .kind = FERRY_MSG_ERROR, .seq = seq };
		e.u.error = (struct ferry_error){ .request_kind = FERRY_MSG_BO_IMPORT, .error = -ENOENT,
						  .message = "BoImport: refused" };
		srv_send(&p, &e);
		struct ferry_transport_frame f;
		CHECK_EQ(ferry_transport_recv(p.t, 2000ll * 1000 * 1000, &f), 1);
	}
	/* An import whose context goes first: its pending hold goes with the context. */
	struct ferry_msg m = { .kind = FERRY_MSG_BO_IMPORT };
	m.u.bo_import = (struct ferry_bo_import){ .ctx_id = 1, .bo_id = 20 };
	REQUIRE(guest_send(&p, &m, &fd, 1) == 0);
	srv_recv(&p, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy.ctx_id = 1;
	REQUIRE(guest_send(&p, &m, NULL, 0) == 0);
	srv_recv(&p, &m);
	close(fd);
	int left = bo_memfds();
	fprintf(stderr, "  BO memfds held after the refusals and the context's end: %d\n", left);
	CHECK_EQ(left, 0);
	pair_close(&p);
}

/* The stream under the wrapper knows why it failed ("the server ... expects TLS"); libferry reads
 * the reason from the transport it holds, the wrapper, so the wrapper must pass it on. */
static void test_inner_reason_passed_on(void)
{
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	struct ferry_transport *inner, *t;
	REQUIRE(ferry_stream_plain(sv[0], "tcp:fake:1", &inner) == 0);
	REQUIRE(ferry_transport_remote_wrap(inner, &t) == 0);
	/* A TLS alert where a frame's length should be. */
	REQUIRE(write(sv[1], "\x15\x03\x01\x00\x02\x02\x28", 7) == 7);
	struct ferry_transport_frame f;
	int r = ferry_transport_recv(t, 1000ll * 1000 * 1000, &f);
	fprintf(stderr, "  recv %d, \"%s\"\n", r, t->error);
	CHECK(r < 0);
	CHECK(strstr(t->error, "expects TLS") != NULL);
	ferry_transport_destroy(t);
	close(sv[1]);
}

/* A server machine that vanishes (power, network) sends no FIN: without keepalive a guest waiting
 * on a fence would wait forever on a connection nobody is at. */
static void test_tcp_keepalive(void)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	REQUIRE(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0);
	REQUIRE(getsockname(l, (struct sockaddr *)&a, &al) == 0);
	char port[8];
	snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
	int fd = ferry_tcp_connect("127.0.0.1", port);
	REQUIRE(fd >= 0);
	int on = 0, idle = 0, intvl = 0, cnt = 0;
	socklen_t n = sizeof(int);
	CHECK(getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &n) == 0 && on);
	CHECK(getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, &n) == 0);
	CHECK(getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, &n) == 0);
	CHECK(getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, &n) == 0);
	fprintf(stderr, "  keepalive %d: idle %d s, every %d s, %d probes\n", on, idle, intvl, cnt);
	/* Found out within a minute, not the kernel's default two hours. */
	CHECK(idle + intvl * cnt <= 60);
	close(fd);
	close(l);
}

/* A malformed tcp: address says what is wrong with it (libferry prints the open error). */
static void test_bad_address_says_why(void)
{
	struct ferry_transport *t = NULL;
	CHECK_EQ(ferry_transport_open("tcp:::1:7120", &t), -EINVAL);
	CHECK(t == NULL);
	fprintf(stderr, "  \"%s\"\n", ferry_transport_open_error());
	CHECK(strstr(ferry_transport_open_error(), "[ADDR]:PORT") != NULL);
	CHECK_EQ(ferry_transport_open("tcp:board7", &t), -EINVAL);
	CHECK(strstr(ferry_transport_open_error(), "tcp:HOST:PORT") != NULL);
}

int main(void)
{
	RUN_TEST(test_bad_bo_data_is_an_error);
	RUN_TEST(test_refused_import_frees_its_fd);
	RUN_TEST(test_inner_reason_passed_on);
	RUN_TEST(test_tcp_keepalive);
	RUN_TEST(test_bad_address_says_why);
	return test_finish();
}
