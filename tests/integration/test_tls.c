/* TLS and client authentication on ferryd's tcp: listeners, through libferry's tcp: transport:
 * certificates made here with certtool (a temp dir, removed after), a good certificate, a good
 * token, and every refusal with the words the client reports; after each, a good client still
 * completes HELLO + DEVICE_QUERY and ferryd holds no more fds than before. A client that connects
 * and never speaks is dropped after --auth-timeout-ms while others are served. Frames pipelined
 * many to a TLS record (GnuTLS holds the rest decrypted, the socket stays quiet) and replies piling
 * up faster than they are read (ferryd's output queue over TLS) all come back, in order. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

#include <gnutls/gnutls.h>

#include "itest.h"
#include "itest_certs.h"
#include "test.h"

#define GOOD_TOKEN ITEST_GOOD_TOKEN
#define AUTH_TIMEOUT_MS 1500

static char dir[64]; /* the temp dir: certs, tokens, client credential dirs */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The shared set (ca, server, client; srv/, good/, nocert/, tokens, good_token) and the certificates
 * only this test refuses. */
static void make_creds(void)
{
	itest_certs_make(dir);
	itest_make_cert(dir, "ca2", NULL, "cn = another CA\nca\ncert_signing_key\nexpiration_days = 2\n");
	itest_make_cert(dir, "expired", "ca", "cn = expired client\ntls_www_client\nsigning_key\n"
			"activation_date = \"2020-01-01 00:00:00\"\nexpiration_date = \"2020-02-01 00:00:00\"\n");
	itest_make_cert(dir, "stranger", "ca2", "cn = client of another CA\ntls_www_client\nsigning_key\n"
			"expiration_days = 2\n");
	itest_client_creds_dir(dir, "expired_dir", "ca", "expired");
	itest_client_creds_dir(dir, "stranger_dir", "ca", "stranger");
	itest_client_creds_dir(dir, "untrusting", "ca2", NULL);
	REQUIRE(itest_sh("mkdir -p %s/empty", dir) == 0);
	itest_write_file(dir, "wrong_token", "wrong-token-0123456789\n");
	/* A client certificate without its key, and with a key nobody may read. */
	itest_client_creds_dir(dir, "nokey", "ca", "client");
	REQUIRE(itest_sh("rm %s/nokey/client-key.pem", dir) == 0);
	itest_client_creds_dir(dir, "lockedkey", "ca", "client");
	REQUIRE(itest_sh("chmod 000 %s/lockedkey/client-key.pem", dir) == 0);
}

static int free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	REQUIRE(s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(s, (struct sockaddr *)&a, &l) == 0);
	close(s);
	return ntohs(a.sin_port);
}

struct server {
	struct ferryd_proc p;
	char uri[64];
	int base_fds;
};

static void start(struct server *s, const char *mode)
{
	char path[PATH_MAX], listen[64], creds[128], tokens[128], timeout[32];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	snprintf(listen, sizeof(listen), "tcp:127.0.0.1:%d", free_port());
	snprintf(s->uri, sizeof(s->uri), "%s", listen);
	snprintf(creds, sizeof(creds), "%s/srv", dir);
	snprintf(tokens, sizeof(tokens), "%s/tokens", dir);
	snprintf(timeout, sizeof(timeout), "%d", AUTH_TIMEOUT_MS);
	const char *tls_tok[] = { "--listen", listen, "--tls-creds", creds, "--auth-tokens", tokens,
				  "--auth-timeout-ms", timeout, NULL };
	const char *tls_only[] = { "--listen", listen, "--tls-creds", creds, "--auth-timeout-ms", timeout, NULL };
	const char *insecure[] = { "--listen", listen, "--insecure", "--auth-timeout-ms", timeout, NULL };
	const char *tls_few[] = { "--listen", listen, "--tls-creds", creds, "--auth-timeout-ms", "20000",
				  "--max-clients", "4", NULL };
	const char *const *extra = !strcmp(mode, "tls+tokens") ? tls_tok : !strcmp(mode, "tls") ? tls_only :
				   !strcmp(mode, "tls-few") ? tls_few : insecure;
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &s->p) == 0);
	s->base_fds = 0;
}

/* Opens uri with the client environment given (NULL: unset), does DEVICE_QUERY, closes. 0 on
 * success; else the reason libferry printed goes to msg. */
static int try_client(const char *uri, const char *creds, const char *token, bool insecure, char *msg, size_t n)
{
	char path[PATH_MAX];
	msg[0] = '\0';
	if (creds) {
		snprintf(path, sizeof(path), "%s/%s", dir, creds);
		setenv("FERRY_TLS_CREDS", path, 1);
	} else {
		/* Nothing from the user's own config: a directory without ca-cert.pem. */
		snprintf(path, sizeof(path), "%s/empty", dir);
		setenv("FERRY_TLS_CREDS", path, 1);
	}
	if (token) {
		snprintf(path, sizeof(path), "%s/%s", dir, token);
		setenv("FERRY_AUTH_TOKEN_FILE", path, 1);
	} else {
		unsetenv("FERRY_AUTH_TOKEN_FILE");
	}
	if (insecure)
		setenv("FERRY_INSECURE", "1", 1);
	else
		unsetenv("FERRY_INSECURE");
	/* libferry says why on stderr when it has no device to hold the message: catch it. */
	char errpath[PATH_MAX];
	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	fflush(stderr);
	int saved = dup(2);
	int ef = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	REQUIRE(saved >= 0 && ef >= 0);
	dup2(ef, 2);
	close(ef);
	struct ferry_device *dev = NULL;
	int64_t t0 = now_ms();
	int r = ferry_device_open(uri, &dev);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(errpath, "r");
	if (f) {
		size_t got = fread(msg, 1, n - 1, f);
		msg[got] = '\0';
		fclose(f);
	}
	if (r == 0) {
		uint32_t family = 0;
		const char *name = NULL;
		r = ferry_device_info(dev, &family, &name);
		if (r < 0)
			snprintf(msg, n, "DEVICE_QUERY: %s", ferry_device_last_error(dev));
		else if (!name || !name[0])
			r = -EPROTO;
		ferry_device_close(dev);
	}
	printf("  %s creds=%s token=%s%s: %d in %lld ms %s", uri, creds ? creds : "-", token ? token : "-",
	       insecure ? " FERRY_INSECURE=1" : "", r, (long long)(now_ms() - t0), msg[0] ? msg : "\n");
	return r;
}

/* The host clients ferryd has (`ferry status`): a refused connection never got one. */
static int host_clients(struct server *s)
{
	char *out = itest_ferry_status(&s->p, "", NULL);
	const char *c = strstr(out, "clients: ");
	int n = c ? atoi(c + 9) : -1;
	free(out);
	return n;
}

/* ferryd's fds back to what they were with no client, and no host client left (up to 3 s: it
 * closes connections as it learns they are done). */
static bool fds_settle(struct server *s)
{
	int n = -1, clients = -1;
	for (int i = 0; i < 60; i++) {
		n = itest_proc_fd_count(s->p.pid);
		if (n <= s->base_fds && (clients = host_clients(s)) == 0)
			return true;
		usleep(50 * 1000);
	}
	fprintf(stderr, "ferryd holds %d fds (%d before), %d host clients\n", n, s->base_fds, clients);
	return false;
}

static void good_client_still_works(struct server *s)
{
	char msg[512];
	CHECK_EQ(try_client(s->uri, "good", NULL, false, msg, sizeof(msg)), 0);
	CHECK(fds_settle(s));
}

static void refused(struct server *s, const char *creds, const char *token, bool insecure, const char *needle)
{
	char msg[512];
	int r = try_client(s->uri, creds, token, insecure, msg, sizeof(msg));
	CHECK(r < 0);
	if (!strstr(msg, needle)) {
		fprintf(stderr, "FAIL: expected \"%s\" in: %s\n", needle, msg);
		CHECK(false);
	}
	good_client_still_works(s);
}

static void test_tls_with_tokens(void)
{
	struct server s;
	start(&s, "tls+tokens");
	s.base_fds = itest_proc_fd_count(s.p.pid);
	char msg[512];
	/* A certificate, a token: both let in. */
	CHECK_EQ(try_client(s.uri, "good", NULL, false, msg, sizeof(msg)), 0);
	CHECK_EQ(try_client(s.uri, "nocert", "good_token", false, msg, sizeof(msg)), 0);
	CHECK(fds_settle(&s));
	refused(&s, "nocert", "wrong_token", false, "ferryd refused the connection: wrong token");
	refused(&s, "nocert", NULL, false, "ferryd refused the connection: client certificate or token required");
	/* A certificate presented must be good, even with a good token beside it. */
	refused(&s, "expired_dir", "good_token", false, "ferryd refused the connection: client certificate expired");
	refused(&s, "stranger_dir", NULL, false, "ferryd refused the connection: client certificate not signed by ferryd's CA");
	refused(&s, "good", NULL, true, "the server expects TLS");
	refused(&s, "untrusting", NULL, false, "TLS handshake with tcp:127.0.0.1:");
	refused(&s, "untrusting", NULL, false, "failed: certificate not trusted (signer unknown)");
	refused(&s, NULL, "good_token", false, "needs the CA that signed ferryd's certificate");
	CHECK(itest_log_count(&s.p, "refused: wrong token") >= 1);

	/* Silent clients: one that never speaks, one stuck in the middle of its ClientHello. Both
	 * are dropped at the deadline; meanwhile a good client is served. */
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	a.sin_port = htons((uint16_t)atoi(strrchr(s.uri, ':') + 1));
	int silent[2];
	for (int i = 0; i < 2; i++) {
		silent[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		REQUIRE(silent[i] >= 0 && connect(silent[i], (struct sockaddr *)&a, sizeof(a)) == 0);
	}
	REQUIRE(write(silent[1], "\x16\x03\x01\x01", 4) == 4);
	int64_t t0 = now_ms();
	CHECK_EQ(try_client(s.uri, "good", NULL, false, msg, sizeof(msg)), 0);
	CHECK(now_ms() - t0 < AUTH_TIMEOUT_MS);
	for (int i = 0; i < 2; i++) {
		struct pollfd pfd = { .fd = silent[i], .events = POLLIN };
		CHECK(poll(&pfd, 1, AUTH_TIMEOUT_MS * 4) == 1);
		char b[64];
		ssize_t n = read(silent[i], b, sizeof(b));
		int64_t took = now_ms() - t0;
		printf("  silent client %d: closed after %lld ms (read %zd)\n", i, (long long)took, n);
		CHECK(n <= 0);
		CHECK(took >= AUTH_TIMEOUT_MS - 200);
		close(silent[i]);
	}
	CHECK(itest_log_count(&s.p, "no TLS handshake and HELLO within --auth-timeout-ms") >= 1);
	good_client_still_works(&s);
	CHECK(itest_proc_alive(s.p.pid));
	CHECK(itest_stop_ferryd(&s.p));
}

static void test_tls_cert_required(void)
{
	struct server s;
	start(&s, "tls");
	s.base_fds = itest_proc_fd_count(s.p.pid);
	refused(&s, "nocert", "good_token", false, "ferryd refused the connection: client certificate required");
	/* Half a client credential is the client's mistake, said as such (not the server's "required"). */
	refused(&s, "nokey", NULL, false, "client-key.pem");
	if (geteuid() != 0) /* root reads a mode-000 file */
		refused(&s, "lockedkey", NULL, false, "client-key.pem");
	CHECK(itest_stop_ferryd(&s.p));
}

static void test_insecure(void)
{
	struct server s;
	start(&s, "insecure");
	s.base_fds = itest_proc_fd_count(s.p.pid);
	char msg[512];
	CHECK_EQ(try_client(s.uri, NULL, NULL, true, msg, sizeof(msg)), 0);
	CHECK(try_client(s.uri, "good", NULL, false, msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "the server at tcp:127.0.0.1:") && strstr(msg, "speaks plain TCP (ferryd --insecure); set FERRY_INSECURE=1"));
	if (!strstr(msg, "speaks plain TCP"))
		fprintf(stderr, "FAIL: %s\n", msg);
	CHECK_EQ(try_client(s.uri, NULL, NULL, true, msg, sizeof(msg)), 0);
	int n = -1;
	for (int i = 0; i < 60 && (n = itest_proc_fd_count(s.p.pid)) > s.base_fds; i++)
		usleep(50 * 1000);
	CHECK(n <= s.base_fds);
	CHECK(itest_stop_ferryd(&s.p));
}

/* Peers that connect to the tcp: port and never speak hold at most half the --max-clients slots
 * (the rest are refused at once): the unix socket's clients still get in while they wait out
 * their --auth-timeout-ms. */
static void test_silent_peers_leave_room(void)
{
	struct server s;
	start(&s, "tls-few");
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	a.sin_port = htons((uint16_t)atoi(strrchr(s.uri, ':') + 1));
	int silent[4];
	for (int i = 0; i < 4; i++) {
		silent[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		REQUIRE(silent[i] >= 0 && connect(silent[i], (struct sockaddr *)&a, sizeof(a)) == 0);
	}
	/* The refused ones see their connection closed: at least two of them, within 2 s. */
	int closed = 0;
	bool gone[4] = { false };
	for (int t = 0; t < 60 && closed < 2; t++) {
		usleep(50 * 1000);
		for (int i = 0; i < 4; i++) {
			struct pollfd pf = { .fd = silent[i], .events = POLLIN };
			char c;
			if (!gone[i] && poll(&pf, 1, 0) == 1 && recv(silent[i], &c, 1, MSG_DONTWAIT) <= 0) {
				gone[i] = true;
				closed++;
			}
		}
	}
	printf("  %d of 4 silent peers closed at once\n", closed);
	CHECK(closed >= 2);
	char msg[512];
	CHECK_EQ(try_client(s.p.uri, NULL, NULL, false, msg, sizeof(msg)), 0);
	for (int i = 0; i < 4; i++)
		close(silent[i]);
	CHECK(itest_stop_ferryd(&s.p));
}

/* A raw TLS client (GnuTLS directly): the good client certificate, blocking socket. */
struct raw {
	int fd;
	gnutls_session_t s;
	gnutls_certificate_credentials_t creds;
	uint32_t next_seq; /* sender's */
	int chunks, per_chunk;
	int send_err;
};

static void raw_open(struct raw *c, const char *uri)
{
	memset(c, 0, sizeof(*c));
	char ca[PATH_MAX], cert[PATH_MAX], key[PATH_MAX];
	snprintf(ca, sizeof(ca), "%s/good/ca-cert.pem", dir);
	snprintf(cert, sizeof(cert), "%s/good/client-cert.pem", dir);
	snprintf(key, sizeof(key), "%s/good/client-key.pem", dir);
	REQUIRE(gnutls_certificate_allocate_credentials(&c->creds) == 0);
	REQUIRE(gnutls_certificate_set_x509_trust_file(c->creds, ca, GNUTLS_X509_FMT_PEM) > 0);
	REQUIRE(gnutls_certificate_set_x509_key_file(c->creds, cert, key, GNUTLS_X509_FMT_PEM) == 0);
	REQUIRE(gnutls_init(&c->s, GNUTLS_CLIENT) == 0);
	REQUIRE(gnutls_set_default_priority(c->s) == 0);
	REQUIRE(gnutls_credentials_set(c->s, GNUTLS_CRD_CERTIFICATE, c->creds) == 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	a.sin_port = htons((uint16_t)atoi(strrchr(uri, ':') + 1));
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(c->fd >= 0 && connect(c->fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	gnutls_transport_set_int(c->s, c->fd);
	gnutls_handshake_set_timeout(c->s, 10000);
	gnutls_record_set_timeout(c->s, 10000);
	int r;
	do
		r = gnutls_handshake(c->s);
	while (r < 0 && !gnutls_error_is_fatal(r));
	REQUIRE(r == 0);
	c->next_seq = 1;
}

static void raw_close(struct raw *c)
{
	gnutls_deinit(c->s);
	gnutls_certificate_free_credentials(c->creds);
	close(c->fd);
}

/* n frames in one buffer, so in one or a few TLS records: HELLO first (seq 1), then DEVICE_QUERYs. */
static int raw_send_chunk(struct raw *c, int n)
{
	struct ferry_buf all, one;
	ferry_buf_init(&all);
	ferry_buf_init(&one);
	for (int i = 0; i < n; i++) {
		struct ferry_msg m = { .seq = c->next_seq };
		if (c->next_seq == 1) {
			m.kind = FERRY_MSG_HELLO;
			m.u.hello.version = FERRY_PROTOCOL_VERSION;
		} else {
			m.kind = FERRY_MSG_DEVICE_QUERY;
			m.u.device_query.family = FERRY_FAMILY_NONE;
		}
		c->next_seq++;
		ferry_buf_reset(&one);
		REQUIRE(ferry_wire_encode(&m, &one) == 0);
		REQUIRE(ferry_buf_append(&all, one.data, one.len) == 0);
	}
	size_t off = 0;
	int err = 0;
	while (off < all.len) {
		ssize_t r = gnutls_record_send(c->s, all.data + off, all.len - off);
		if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
			continue;
		if (r < 0) {
			err = (int)r;
			break;
		}
		off += (size_t)r;
	}
	ferry_buf_free(&all);
	ferry_buf_free(&one);
	return err;
}

static long raw_read(void *arg, void *buf, size_t len)
{
	ssize_t r = gnutls_record_recv(arg, buf, len);
	if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
		return -EINTR;
	return r < 0 ? -ETIMEDOUT : r;
}

/* n replies, seq expected.. in order: HELLO_REPLY for seq 1, DEVICE_INFO for the rest. */
static bool raw_expect(struct raw *c, uint32_t *expected, int n)
{
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	bool ok = true;
	for (int i = 0; i < n && ok; i++) {
		int got = ferry_frame_read_from(&r, raw_read, c->s);
		struct ferry_msg m;
		const char *why;
		if (got != 1 || ferry_wire_decode(r.payload, r.len, &m, &why) < 0) {
			fprintf(stderr, "reply %d (seq %u expected): read %d\n", i, *expected, got);
			ok = false;
			break;
		}
		uint32_t want_kind = *expected == 1 ? FERRY_MSG_HELLO_REPLY : FERRY_MSG_DEVICE_INFO;
		if (m.seq != *expected || m.kind != want_kind) {
			fprintf(stderr, "reply seq %u kind %u, expected seq %u kind %u\n", m.seq, m.kind, *expected, want_kind);
			ok = false;
		}
		(*expected)++;
		ferry_frame_reader_next(&r);
	}
	ferry_frame_reader_fini(&r);
	return ok;
}

static void *raw_sender(void *arg)
{
	struct raw *c = arg;
	for (int i = 0; i < c->chunks && !c->send_err; i++)
		c->send_err = raw_send_chunk(c, c->per_chunk);
	return NULL;
}

static void test_pipelined_over_tls(void)
{
	struct server s;
	start(&s, "tls+tokens");
	s.base_fds = itest_proc_fd_count(s.p.pid);
	struct raw c;
	raw_open(&c, s.uri);
	uint32_t expected = 1;
	/* 100 frames a record, well over the 16 ferryd reads a wakeup: the rest waits decrypted in
	 * GnuTLS, and must be read with no further byte on the socket. */
	for (int i = 0; i < 5; i++) {
		CHECK_EQ(raw_send_chunk(&c, 100), 0);
		CHECK(raw_expect(&c, &expected, 100));
	}
	/* 4000 requests sent by a thread while nobody reads for a while: the replies (hundreds of
	 * KiB) overflow the socket, queue in ferryd and go out over TLS as room comes; ferryd stops
	 * reading while they pile up. All arrive, in order. */
	c.chunks = 40;
	c.per_chunk = 100;
	pthread_t th;
	REQUIRE(pthread_create(&th, NULL, raw_sender, &c) == 0);
	usleep(500 * 1000);
	CHECK(raw_expect(&c, &expected, c.chunks * c.per_chunk));
	pthread_join(th, NULL);
	CHECK_EQ(c.send_err, 0);
	CHECK_EQ(expected, 501u + 4000u);
	raw_close(&c);
	CHECK(fds_settle(&s));
	good_client_still_works(&s);
	CHECK(itest_stop_ferryd(&s.p));
}

/* ferryd refuses to start a tcp: listener with neither TLS credentials nor --insecure. */
static void test_startup_errors(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	CHECK(itest_sh("%s --listen tcp:127.0.0.1:0 --control none 2>%s/start.log", path, dir) != 0);
	CHECK(itest_sh("grep -q 'needs --tls-creds DIR' %s/start.log", dir) == 0);
	CHECK(itest_sh("%s --listen tcp:127.0.0.1:0 --tls-creds %s/nocert --control none 2>%s/start.log", path, dir, dir) != 0);
	CHECK(itest_sh("grep -q 'server-cert.pem' %s/start.log", dir) == 0);
	itest_write_file(dir, "short_tokens", "tooshort\n");
	CHECK(itest_sh("%s --listen tcp:127.0.0.1:0 --tls-creds %s/srv --auth-tokens %s/short_tokens --control none "
		 "2>%s/start.log", path, dir, dir, dir) != 0);
	CHECK(itest_sh("grep -q 'line 1' %s/start.log", dir) == 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!itest_have_certtool()) {
		printf("SKIP: certtool (gnutls-bin) is not installed\n");
		return 77;
	}
	snprintf(dir, sizeof(dir), "/tmp/ferry-tls-test-XXXXXX");
	REQUIRE(mkdtemp(dir));
	make_creds();
	RUN_TEST(test_startup_errors);
	RUN_TEST(test_tls_with_tokens);
	RUN_TEST(test_tls_cert_required);
	RUN_TEST(test_silent_peers_leave_room);
	RUN_TEST(test_pipelined_over_tls);
	RUN_TEST(test_insecure);
	itest_sh("rm -rf %s", dir);
	return test_finish();
}
