/* Submit rings through a real ferryd, from a raw unix client that writes the ring itself
 * (docs/protocol.md "Submit rings"): the ordering rule against the socket, wrapping, and every
 * way a guest can break its ring — each answered by losing (or stalling) that context only,
 * while another context and another client of the same ferryd are still served. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ferry/fence_page.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/submit_ring.h"
#include "itest.h"
#include "test.h"

#define RING_DATA FERRY_RING_MIN_DATA

/* ---- a raw unix client ---- */

struct raw {
	int fd;
	struct ferry_frame_reader rd;
	uint32_t seq;
	uint32_t sent; /* frames sent, RingCreate not counted */
};

struct raw_ctx {
	uint32_t id;
	struct ferry_fence_page *page;
	int event_fd;
	uint32_t bo_id;
	uint32_t seqno; /* queue 0's last */
	/* its ring */
	struct ferry_ring_producer ring;
	void *ring_mem;
	int doorbell;
	uint32_t seq_base, sent_at;
};

static void raw_connect(struct raw *r, const char *uri)
{
	memset(r, 0, sizeof(*r));
	r->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(r->fd >= 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", strncmp(uri, "unix:", 5) == 0 ? uri + 5 : uri);
	REQUIRE(connect(r->fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	ferry_frame_reader_init(&r->rd);
}

static uint32_t raw_send(struct raw *r, struct ferry_msg *m)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	m->seq = ++r->seq;
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	REQUIRE(ferry_frame_send(r->fd, b.data, b.len, NULL, 0) == 0);
	ferry_buf_free(&b);
	if (m->kind != FERRY_MSG_RING_CREATE)
		r->sent++;
	return m->seq;
}

/* The reply to seq (events and other replies skipped; fds of the reply into fds[]). */
static bool raw_reply(struct raw *r, uint32_t seq, struct ferry_msg *m, int *fds, int *nfds)
{
	for (int i = 0; i < 20000; i++) {
		int g = ferry_frame_read(r->fd, &r->rd);
		if (g < 0)
			return false;
		if (g == 0) {
			usleep(1000);
			continue;
		}
		bool ok = ferry_wire_decode(r->rd.payload, r->rd.len, m, NULL) == 0;
		bool mine = ok && m->seq == seq && m->kind != FERRY_MSG_FENCE_SIGNALED;
		for (int k = 0; k < r->rd.nfds; k++) {
			if (mine && fds && k < 4)
				fds[k] = r->rd.fds[k];
			else
				close(r->rd.fds[k]);
		}
		if (nfds)
			*nfds = mine ? r->rd.nfds : 0;
		r->rd.nfds = 0;
		if (mine)
			return true; /* the payload stays valid until the next read */
		ferry_frame_reader_next(&r->rd);
	}
	return false;
}

static void raw_next(struct raw *r)
{
	ferry_frame_reader_next(&r->rd);
}

static void raw_hello(struct raw *r)
{
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	m.u.hello.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM | FERRY_FEATURE_SUBMIT_RING;
	uint32_t s = raw_send(r, &m);
	REQUIRE(raw_reply(r, s, &m, NULL, NULL));
	REQUIRE(m.kind == FERRY_MSG_HELLO_REPLY);
	CHECK(m.u.hello_reply.features & FERRY_FEATURE_SUBMIT_RING);
	raw_next(r);
}

/* A context with queue 0 and a 4 KiB BO holding one CP_NOP; with a ring when ring is true. */
static void raw_ctx_new(struct raw *r, struct raw_ctx *c, uint32_t id, bool ring)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->doorbell = -1;
	int fds[4], n = 0;
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ id, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED };
	uint32_t s = raw_send(r, &m);
	REQUIRE(raw_reply(r, s, &m, fds, &n));
	REQUIRE(m.kind == FERRY_MSG_CONTEXT_CREATED && n == 2);
	raw_next(r);
	c->page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	REQUIRE(c->page != MAP_FAILED);
	close(fds[0]);
	c->event_fd = fds[1];

	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = id, .queue_id = 0 };
	raw_send(r, &m);

	c->bo_id = 1;
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = id, .bo_id = 1, .size = 4096, .flags = MSM_BO_WC };
	s = raw_send(r, &m);
	REQUIRE(raw_reply(r, s, &m, fds, &n));
	REQUIRE(m.kind == FERRY_MSG_BO_CREATED && n == 1);
	raw_next(r);
	uint32_t *ib = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	REQUIRE(ib != MAP_FAILED);
	for (unsigned i = 0; i < 1024; i++)
		ib[i] = pm4_type7_hdr(CP_NOP, 0); /* submits run 4 bytes of it, or cmd_bytes */
	munmap(ib, 4096);
	close(fds[0]);
	if (!ring)
		return;

	m = (struct ferry_msg){ .kind = FERRY_MSG_RING_CREATE };
	m.u.ring_create = (struct ferry_ring_create){ id, RING_DATA };
	c->sent_at = r->sent;
	s = raw_send(r, &m);
	REQUIRE(raw_reply(r, s, &m, fds, &n));
	REQUIRE(m.kind == FERRY_MSG_RING_CREATED && n == 2);
	c->seq_base = m.u.ring_created.sock_seq;
	CHECK_EQ(c->seq_base, c->sent_at); /* this client counts from its first frame, as the host */
	raw_next(r);
	size_t len = FERRY_RING_HDR_SIZE + RING_DATA;
	c->ring_mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	REQUIRE(c->ring_mem != MAP_FAILED);
	close(fds[0]);
	c->doorbell = fds[1];
	REQUIRE(ferry_ring_producer_init(&c->ring, c->ring_mem, len, false) == 0);
	/* The seals hold: the guest cannot shrink the ring under the host's mapping. */
}

static void raw_ctx_free(struct raw_ctx *c)
{
	if (c->ring_mem)
		munmap(c->ring_mem, FERRY_RING_HDR_SIZE + RING_DATA);
	if (c->doorbell >= 0)
		close(c->doorbell);
	munmap(c->page, FERRY_FENCE_PAGE_SIZE);
	close(c->event_fd);
}

static void raw_close(struct raw *r)
{
	ferry_frame_reader_fini(&r->rd);
	close(r->fd);
}

static void doorbell(struct raw_ctx *c)
{
	uint64_t one = 1;
	CHECK(write(c->doorbell, &one, sizeof(one)) == sizeof(one));
}

/* Bytes of the NOP IB each submit runs. */
static uint32_t cmd_bytes = 4;

/* A submit of the context's NOP IB as a message (name: the context it names). */
static struct ferry_msg submit_msg(struct raw_ctx *c, uint32_t name, uint32_t seqno, uint32_t nr_cmds)
{
	static struct ferry_msm_submit_bo bo;
	static struct ferry_msm_submit_cmd cmds[FERRY_MAX_SUBMIT_CMDS];
	bo = (struct ferry_msm_submit_bo){ c->bo_id, MSM_SUBMIT_BO_READ };
	for (uint32_t i = 0; i < FERRY_MAX_SUBMIT_CMDS; i++)
		cmds[i] = (struct ferry_msm_submit_cmd){ MSM_SUBMIT_CMD_BUF, 0, 0, cmd_bytes };
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT, .seq = 0 };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = name, .queue_id = 0, .seqno = seqno, .nr_bos = 1,
						    .nr_cmds = nr_cmds, .bos = &bo, .cmds = cmds };
	return m;
}

/* Puts m into c's ring (waiting for room, ringing when asked unless quiet). False when the host
 * broke the ring or took nothing for 3 s. */
static bool ring_put(struct raw *r, struct raw_ctx *c, const struct ferry_msg *m, uint32_t sock_seq_delta, bool quiet)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	uint32_t len = (uint32_t)b.len - FERRY_FRAME_HDR_SIZE;
	uint32_t seq = c->seq_base + (r->sent - c->sent_at) + sock_seq_delta;
	int err;
	void *dst;
	for (int i = 0; !(dst = ferry_ring_reserve(&c->ring, len, seq, &err)); i++) {
		REQUIRE(err == -EAGAIN);
		if (i == 3000 || atomic_load(&c->ring.hdr->error)) {
			ferry_buf_free(&b);
			return false;
		}
		doorbell(c); /* a full ring: ask the host to take some */
		usleep(1000);
	}
	memcpy(dst, b.data + FERRY_FRAME_HDR_SIZE, len);
	if (ferry_ring_publish(&c->ring) && !quiet)
		doorbell(c);
	ferry_buf_free(&b);
	return true;
}

/* n submits of c into its ring; returns the last seqno. */
static uint32_t ring_submits(struct raw *r, struct raw_ctx *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct ferry_msg m = submit_msg(c, c->id, ++c->seqno, 1);
		CHECK(ring_put(r, c, &m, 0, false));
	}
	return c->seqno;
}

/* A FENCE_WAIT on the socket: its status (or INT32_MIN on an ERROR reply / none). */
static int32_t raw_wait(struct raw *r, struct raw_ctx *c, uint32_t seqno)
{
	struct ferry_msg m = { .kind = FERRY_MSG_FENCE_WAIT };
	m.u.fence_wait = (struct ferry_fence_wait){ c->id, 0, seqno, ITEST_WAIT_NS };
	uint32_t s = raw_send(r, &m);
	if (!raw_reply(r, s, &m, NULL, NULL))
		return INT32_MIN;
	int32_t st = m.kind == FERRY_MSG_STATUS_REPLY ? m.u.status_reply.error : INT32_MIN;
	if (m.kind == FERRY_MSG_ERROR)
		fprintf(stderr, "  fence wait %u: %s\n", seqno, m.u.error.message);
	raw_next(r);
	return st;
}

static bool lost_soon(struct raw_ctx *c)
{
	for (int i = 0; i < 5000; i++) {
		if (atomic_load(&c->page->lost))
			return true;
		usleep(1000);
	}
	return false;
}

/* The rest of the ferryd is served: a second context of this client by socket, a new client by
 * libferry (with its own ring unless FERRY_RING=0). */
static void others_served(struct raw *r, struct raw_ctx *other, const char *uri)
{
	struct ferry_msg m = submit_msg(other, other->id, ++other->seqno, 1);
	raw_send(r, &m);
	CHECK_EQ(raw_wait(r, other, other->seqno), 0);
	CHECK(!atomic_load(&other->page->lost));
	struct itest_client c;
	REQUIRE(itest_client_open(uri, &c) == 0);
	CHECK(itest_client_works(&c, 0x5eed0000u + other->seqno));
	itest_client_close(&c);
}

struct fixture {
	struct ferryd_proc p;
	struct raw r;
	struct raw_ctx a, b; /* a: with a ring; b: without */
};

static void setup_with(struct fixture *f, const char *const *extra)
{
	f->p = (struct ferryd_proc){ .pid = -1 };
	if (extra) {
		char path[PATH_MAX];
		REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
		REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &f->p) == 0);
	} else {
		itest_start_ferryd(&f->p);
	}
	raw_connect(&f->r, f->p.uri);
	raw_hello(&f->r);
	raw_ctx_new(&f->r, &f->b, 2, false);
	raw_ctx_new(&f->r, &f->a, 1, true);
}

static void setup(struct fixture *f)
{
	setup_with(f, NULL);
}

static void teardown(struct fixture *f)
{
	raw_ctx_free(&f->a);
	raw_ctx_free(&f->b);
	raw_close(&f->r);
	CHECK(itest_proc_alive(f->p.pid));
	CHECK(itest_stop_ferryd(&f->p));
}

/* ---- the tests ---- */

static void test_order_and_wrap(void)
{
	struct fixture f;
	setup(&f);
	/* A socket FENCE_WAIT after ring submits sees them (else: "never submitted"). */
	uint32_t last = ring_submits(&f.r, &f.a, 5);
	CHECK_EQ(raw_wait(&f.r, &f.a, last), 0);
	/* Many records across the end of a 16 KiB ring. */
	for (int round = 0; round < 20; round++) {
		last = ring_submits(&f.r, &f.a, 100);
		CHECK_EQ(raw_wait(&f.r, &f.a, last), 0);
	}
	CHECK(atomic_load(&f.a.ring.hdr->consumed) == 2005);
	CHECK(f.a.ring.tail > 2 * RING_DATA);
	/* A submit too large for a record goes on the socket between ring submits: seqnos stay in
	 * order (the host refuses an out-of-order seqno). */
	CHECK(ferry_ring_max_payload(RING_DATA) < 256 * 16);
	for (int i = 0; i < 4; i++) {
		ring_submits(&f.r, &f.a, 3);
		struct ferry_msg big = submit_msg(&f.a, f.a.id, ++f.a.seqno, FERRY_MAX_SUBMIT_CMDS);
		raw_send(&f.r, &big);
		ring_submits(&f.r, &f.a, 3);
	}
	CHECK_EQ(raw_wait(&f.r, &f.a, f.a.seqno), 0);
	CHECK_EQ(atomic_load(&f.a.ring.hdr->error), 0);
	CHECK(!atomic_load(&f.a.page->lost));
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

/* Breaks a's ring with how(), rings, and checks a is lost with the ring's error set, b and
 * another client served. */
static void broken_by(void (*how)(struct fixture *f), int32_t want_error)
{
	struct fixture f;
	setup(&f);
	uint32_t last = ring_submits(&f.r, &f.a, 3);
	CHECK_EQ(raw_wait(&f.r, &f.a, last), 0);
	how(&f);
	doorbell(&f.a);
	CHECK(lost_soon(&f.a));
	int32_t err = atomic_load(&f.a.ring.hdr->error);
	CHECK(err < 0);
	if (want_error)
		CHECK_EQ(err, want_error);
	CHECK_EQ(itest_log_count(&f.p, "submit ring broken"), 1);
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

static void tail_past_end(struct fixture *f)
{
	atomic_store(&f->a.ring.hdr->tail, f->a.ring.tail + RING_DATA + 16);
}

static void tail_misaligned(struct fixture *f)
{
	atomic_store(&f->a.ring.hdr->tail, f->a.ring.tail + 8);
}

static void record_oversized(struct fixture *f)
{
	/* A record whose header claims more than the ring holds. */
	struct ferry_ring_record rec = { RING_DATA * 2, FERRY_RING_REC_FRAME, f->a.seq_base, RING_DATA };
	memcpy(f->a.ring.data + (f->a.ring.tail & (RING_DATA - 1)), &rec, sizeof(rec));
	atomic_store(&f->a.ring.hdr->tail, f->a.ring.tail + 64);
}

static void record_bad_kind(struct fixture *f)
{
	struct ferry_ring_record rec = { 64, 7, f->a.seq_base, 48 };
	memcpy(f->a.ring.data + (f->a.ring.tail & (RING_DATA - 1)), &rec, sizeof(rec));
	atomic_store(&f->a.ring.hdr->tail, f->a.ring.tail + 64);
}

static void record_garbage(struct fixture *f)
{
	uint8_t *dst = ferry_ring_reserve(&f->a.ring, 48, f->a.seq_base + (f->r.sent - f->a.sent_at), &(int){ 0 });
	REQUIRE(dst);
	memset(dst, 0xa5, 48);
	ferry_ring_publish(&f->a.ring);
}

static void record_names_other(struct fixture *f)
{
	struct ferry_msg m = submit_msg(&f->b, f->b.id, f->b.seqno + 1, 1);
	CHECK(ring_put(&f->r, &f->a, &m, 0, true));
}

static void record_with_reply(struct fixture *f)
{
	struct ferry_msg m = { .kind = FERRY_MSG_FENCE_WAIT, .seq = 99 };
	m.u.fence_wait = (struct ferry_fence_wait){ f->a.id, 0, 1, 0 };
	CHECK(ring_put(&f->r, &f->a, &m, 0, true));
}

static void test_tail_past_end(void) { broken_by(tail_past_end, -EPROTO); }
static void test_tail_misaligned(void) { broken_by(tail_misaligned, -EPROTO); }
static void test_record_oversized(void) { broken_by(record_oversized, -EPROTO); }
static void test_record_bad_kind(void) { broken_by(record_bad_kind, -EPROTO); }
static void test_record_garbage(void) { broken_by(record_garbage, -EBADMSG); }
static void test_record_names_other_context(void) { broken_by(record_names_other, -EPROTO); }
static void test_record_awaiting_reply(void) { broken_by(record_with_reply, -EPROTO); }

/* A thread scribbles over the ring's data while the host drains it: whatever the host reads, it
 * copies before it checks; the context may end lost, ferryd and the others are untouched. */
struct scribble {
	uint8_t *data;
	_Atomic bool stop;
};

static void *scribbler(void *arg)
{
	struct scribble *s = arg;
	uint32_t x = 12345;
	while (!atomic_load(&s->stop)) {
		x = x * 1103515245u + 12345u;
		s->data[(x >> 8) % RING_DATA] = (uint8_t)x;
	}
	return NULL;
}

static void test_record_changed_while_read(void)
{
	struct fixture f;
	setup(&f);
	struct scribble s = { f.a.ring.data, false };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, scribbler, &s) == 0);
	/* A scribbled sock_seq may stall the ring instead: ring_put then gives up. */
	for (int i = 0; i < 2000; i++) {
		struct ferry_msg m = submit_msg(&f.a, f.a.id, ++f.a.seqno, 1);
		if (!ring_put(&f.r, &f.a, &m, 0, false))
			break;
	}
	atomic_store(&s.stop, true);
	pthread_join(t, NULL);
	/* Either the host took garbage and broke the ring, or every record came through. */
	if (atomic_load(&f.a.ring.hdr->error))
		CHECK(lost_soon(&f.a));
	CHECK(itest_proc_alive(f.p.pid));
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

static long proc_cpu_ticks(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	long utime = 0, stime = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime, &stime) != 2)
		return -1;
	return utime + stime;
}

/* Records without a doorbell sit in the ring (the host sleeps; it does not spin on it) until a
 * socket frame of the client makes the host take what was written before it. */
static void test_guest_never_rings(void)
{
	struct fixture f;
	setup(&f);
	uint32_t head0 = atomic_load(&f.a.ring.hdr->head);
	long cpu0 = proc_cpu_ticks(f.p.pid);
	for (int i = 0; i < 10; i++) {
		struct ferry_msg m = submit_msg(&f.a, f.a.id, ++f.a.seqno, 1);
		CHECK(ring_put(&f.r, &f.a, &m, 0, true));
	}
	usleep(500 * 1000);
	CHECK_EQ(atomic_load(&f.a.ring.hdr->head), head0);
	long cpu1 = proc_cpu_ticks(f.p.pid);
	CHECK(cpu0 >= 0 && cpu1 - cpu0 < 25); /* well under half of the 0.5 s (100 ticks/s) */
	CHECK_EQ(raw_wait(&f.r, &f.a, f.a.seqno), 0);
	CHECK(atomic_load(&f.a.ring.hdr->head) != head0);
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

/* The host takes a doorbell as an edge and leaves its count alone (no read per doorbell). A
 * guest that writes the count to its ceiling silences only its own doorbell: its records wait
 * for its next socket frame, as a guest's that never rings. */
static void test_doorbell_count_left_to_the_guest(void)
{
	struct fixture f;
	setup(&f);
	uint64_t v = 0;
	for (int round = 0; round < 3; round++) {
		uint32_t last = ring_submits(&f.r, &f.a, 5);
		CHECK_EQ(raw_wait(&f.r, &f.a, last), 0);
	}
	CHECK(read(f.a.doorbell, &v, sizeof(v)) == sizeof(v) && v >= 3);
	uint64_t ceiling = UINT64_MAX - 1;
	CHECK(write(f.a.doorbell, &ceiling, sizeof(ceiling)) == sizeof(ceiling));
	uint64_t one = 1;
	CHECK(write(f.a.doorbell, &one, sizeof(one)) < 0 && errno == EAGAIN);
	usleep(100 * 1000); /* the host has settled: asleep, asking for a doorbell */
	uint32_t head0 = atomic_load(&f.a.ring.hdr->head);
	for (int i = 0; i < 5; i++) {
		struct ferry_msg m = submit_msg(&f.a, f.a.id, ++f.a.seqno, 1);
		CHECK(ring_put(&f.r, &f.a, &m, 0, true));
	}
	usleep(100 * 1000);
	CHECK_EQ(atomic_load(&f.a.ring.hdr->head), head0);
	CHECK_EQ(raw_wait(&f.r, &f.a, f.a.seqno), 0);
	CHECK(!atomic_load(&f.a.page->lost));
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

/* A record written after socket frames the host never got stalls its ring alone. */
static void test_stalled_sock_seq(void)
{
	struct fixture f;
	setup(&f);
	uint32_t head0 = atomic_load(&f.a.ring.hdr->head);
	struct ferry_msg m = submit_msg(&f.a, f.a.id, f.a.seqno + 1, 1);
	CHECK(ring_put(&f.r, &f.a, &m, 1000, false));
	doorbell(&f.a);
	usleep(200 * 1000);
	CHECK_EQ(atomic_load(&f.a.ring.hdr->head), head0);
	others_served(&f.r, &f.b, f.p.uri); /* socket frames: still short of 1000 */
	CHECK_EQ(atomic_load(&f.a.ring.hdr->head), head0);
	CHECK_EQ(atomic_load(&f.a.ring.hdr->error), 0);
	teardown(&f);
}

/* The doorbell rung without end: the other clients' submits and waits still complete. */
struct flood {
	int fd;
	_Atomic bool stop;
};

static void *flooder(void *arg)
{
	struct flood *fl = arg;
	uint64_t one = 1;
	while (!atomic_load(&fl->stop))
		if (write(fl->fd, &one, sizeof(one)) < 0)
			sched_yield();
	return NULL;
}

static void test_guest_rings_forever(void)
{
	struct fixture f;
	setup(&f);
	struct flood fl = { f.a.doorbell, false };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, flooder, &fl) == 0);
	struct itest_client c;
	REQUIRE(itest_client_open(f.p.uri, &c) == 0);
	for (int i = 0; i < 20; i++)
		CHECK(itest_client_works(&c, 0xf100d000u + (uint32_t)i));
	itest_client_close(&c);
	/* The flooding client's own contexts still work too. */
	uint32_t last = ring_submits(&f.r, &f.a, 10);
	CHECK_EQ(raw_wait(&f.r, &f.a, last), 0);
	atomic_store(&fl.stop, true);
	pthread_join(t, NULL);
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

/* A thread keeps a's ring full of valid records, all written "before" the socket's next frame,
 * for as long as the main thread asks: the host takes at most a ring's worth of them ahead of each
 * socket frame, so the client's own socket requests are answered while the flood goes on. */
struct refill {
	struct raw_ctx *c;
	uint32_t sock_seq;
	_Atomic bool stop;
	_Atomic unsigned records;
};

static void *refiller(void *arg)
{
	struct refill *rf = arg;
	struct ferry_msm_submit_bo bo = { rf->c->bo_id, MSM_SUBMIT_BO_READ };
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, 0, 0, 4 };
	struct ferry_buf b;
	ferry_buf_init(&b);
	uint32_t seqno = rf->c->seqno;
	/* Bounded: were the host held, the main thread's waits would end first (ITEST_WAIT_NS). */
	for (unsigned i = 0; i < 2000000 && !atomic_load(&rf->stop); i++) {
		struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
		m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = rf->c->id, .seqno = ++seqno, .nr_bos = 1,
							    .nr_cmds = 1, .bos = &bo, .cmds = &cmd };
		ferry_buf_reset(&b);
		if (ferry_wire_encode(&m, &b) != 0)
			break;
		uint32_t len = (uint32_t)b.len - FERRY_FRAME_HDR_SIZE;
		int err;
		void *dst;
		while (!(dst = ferry_ring_reserve(&rf->c->ring, len, rf->sock_seq, &err)) && err == -EAGAIN &&
		       !atomic_load(&rf->stop) && !atomic_load(&rf->c->ring.hdr->error))
			sched_yield();
		if (!dst)
			break;
		memcpy(dst, b.data + FERRY_FRAME_HDR_SIZE, len);
		if (ferry_ring_publish(&rf->c->ring))
			doorbell(rf->c);
		atomic_fetch_add(&rf->records, 1);
	}
	ferry_buf_free(&b);
	return NULL;
}

static void test_frame_not_held_by_refilled_ring(void)
{
	struct fixture f;
	setup(&f);
	struct ferry_msg m = submit_msg(&f.b, f.b.id, ++f.b.seqno, 1);
	raw_send(&f.r, &m);
	struct refill rf = { &f.a, f.a.seq_base + (f.r.sent - f.a.sent_at), false, 0 };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, refiller, &rf) == 0);
	while (atomic_load(&rf.records) < 1000)
		usleep(1000);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(raw_wait(&f.r, &f.b, f.b.seqno), 0);
	unsigned during = atomic_load(&rf.records);
	atomic_store(&rf.stop, true);
	pthread_join(t, NULL);
	CHECK(during < 2000000u); /* the answers came while the flood still ran */
	CHECK_EQ(atomic_load(&f.a.ring.hdr->error), 0);
	if (atomic_load(&f.a.ring.hdr->error))
		ferryd_dump_log(&f.p, 400);
	CHECK(itest_proc_alive(f.p.pid));
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

/* With a small validation budget a ring record stops part-way (ferryd resumes it later, as a
 * socket frame's); a socket frame arriving meanwhile waits for it, and the order holds. */
static void test_record_in_progress(void)
{
	struct fixture f;
	const char *const extra[] = { "--validate-slice", "64", NULL };
	setup_with(&f, extra);
	cmd_bytes = 4096; /* 1024 NOPs: 16 slices each */
	for (int round = 0; round < 5; round++) {
		uint32_t last = ring_submits(&f.r, &f.a, 8);
		/* Sent while the host is likely still inside those: it must wait for all of them. */
		CHECK_EQ(raw_wait(&f.r, &f.a, last), 0);
		struct ferry_msg big = submit_msg(&f.a, f.a.id, ++f.a.seqno, FERRY_MAX_SUBMIT_CMDS);
		raw_send(&f.r, &big); /* on the socket, between ring records */
		last = ring_submits(&f.r, &f.a, 4);
		CHECK_EQ(raw_wait(&f.r, &f.a, last), 0);
	}
	cmd_bytes = 4;
	CHECK_EQ(atomic_load(&f.a.ring.hdr->error), 0);
	CHECK(!atomic_load(&f.a.page->lost));
	CHECK(itest_log_count(&f.p, "embedder bug") == 0);
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

/* libferry itself: a context gets a ring unless FERRY_RING=0, and its submits use it. */
static void test_libferry_uses_ring(void)
{
	struct ferryd_proc p = { .pid = -1 };
	itest_start_ferryd(&p);
	struct itest_client c;
	REQUIRE(itest_client_open(p.uri, &c) == 0);
	CHECK(itest_client_works(&c, 0x71a6u));
	struct ferry_ring_stats st;
	ferry_context_ring_stats(c.ctx, &st);
	const char *env = getenv("FERRY_RING");
	bool want = !(env && strcmp(env, "0") == 0);
	CHECK_EQ(st.active, want);
	CHECK(want ? st.records > 0 : st.records == 0);
	itest_client_close(&c);
	CHECK(itest_stop_ferryd(&p));
}

/* A ring's memory counts against the client's BO memory quota; once it goes, so does its
 * charge. */
static bool ring_create(struct raw *r, uint32_t ctx_id, uint32_t data_size, struct ferry_msg *m)
{
	int fds[4], n = 0;
	*m = (struct ferry_msg){ .kind = FERRY_MSG_RING_CREATE };
	m->u.ring_create = (struct ferry_ring_create){ ctx_id, data_size };
	uint32_t s = raw_send(r, m);
	REQUIRE(raw_reply(r, s, m, fds, &n));
	for (int i = 0; i < n && i < 4; i++)
		close(fds[i]);
	return m->kind == FERRY_MSG_RING_CREATED;
}

static void test_ring_memory_quota(void)
{
	struct fixture f;
	const char *const extra[] = { "--max-client-bo-mib", "1", NULL };
	setup_with(&f, extra);
	/* Two 4 KiB BOs and a's ring are charged: a MiB more does not fit. */
	struct ferry_msg m;
	CHECK(!ring_create(&f.r, f.b.id, FERRY_RING_MAX_DATA, &m));
	CHECK(m.kind == FERRY_MSG_ERROR && m.u.error.error == -EDQUOT);
	CHECK(m.kind == FERRY_MSG_ERROR && strstr(m.u.error.message, "--max-client-bo-mib"));
	raw_next(&f.r);
	/* A BO that fits only without a's ring: refused while the ring is there. */
	uint32_t big = (1u << 20) - 2 * 4096 - 2 * 4096;
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = f.b.id, .bo_id = 7, .size = big, .flags = MSM_BO_WC };
	int fds[4], n = 0;
	uint32_t s = raw_send(&f.r, &m);
	REQUIRE(raw_reply(&f.r, s, &m, fds, &n));
	CHECK(m.kind == FERRY_MSG_ERROR && m.u.error.error == -EDQUOT);
	raw_next(&f.r);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	/* Once a and its ring are gone, the same BO fits. */
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy = (struct ferry_context_destroy){ f.a.id };
	raw_send(&f.r, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = f.b.id, .bo_id = 7, .size = big, .flags = MSM_BO_WC };
	s = raw_send(&f.r, &m);
	n = 0;
	REQUIRE(raw_reply(&f.r, s, &m, fds, &n));
	CHECK_EQ(m.kind, FERRY_MSG_BO_CREATED);
	raw_next(&f.r);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CLOSE };
	m.u.bo_close = (struct ferry_bo_close){ .ctx_id = f.b.id, .bo_id = 7 };
	raw_send(&f.r, &m);
	/* A small ring still fits; the others are served. */
	CHECK(ring_create(&f.r, f.b.id, FERRY_RING_MIN_DATA, &m));
	raw_next(&f.r);
	others_served(&f.r, &f.b, f.p.uri);
	teardown(&f);
}

/* ferryd stops reading (SIGSTOP) until libferry's ring is full, then dies: the submit waiting
 * for room learns it from the socket, though no thread of the program reads it, and fails. */
struct stuffer {
	struct itest_client *c;
	struct ferry_bo *ib;
	_Atomic unsigned sent;
	_Atomic int result;
	_Atomic bool done;
};

static void *stuffer(void *arg)
{
	struct stuffer *st = arg;
	int r = 0;
	for (unsigned i = 0; i < 1000000 && r == 0; i++) {
		uint32_t seqno;
		r = itest_submit(st->c, st->ib, 0, 4, NULL, 0, &seqno);
		atomic_fetch_add(&st->sent, 1);
	}
	atomic_store(&st->result, r);
	atomic_store(&st->done, true);
	return NULL;
}

static void test_libferry_full_ring_host_gone(void)
{
	struct ferryd_proc p = { .pid = -1 };
	itest_start_ferryd(&p);
	struct itest_client c;
	REQUIRE(itest_client_open(p.uri, &c) == 0);
	struct itest_bo ib;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	ib.cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	REQUIRE(kill(p.pid, SIGSTOP) == 0);
	struct stuffer st = { &c, ib.bo, 0, 0, false };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, stuffer, &st) == 0);
	/* Full: no submit got through for 300 ms. */
	unsigned last = UINT32_MAX;
	for (int i = 0; i < 100 && atomic_load(&st.sent) != last; i++) {
		last = atomic_load(&st.sent);
		usleep(300 * 1000);
	}
	CHECK(!atomic_load(&st.done));
	REQUIRE(kill(p.pid, SIGKILL) == 0);
	bool done = false;
	for (int i = 0; i < 1000 && !(done = atomic_load(&st.done)); i++)
		usleep(10 * 1000);
	CHECK(done);
	if (!done) {
		fprintf(stderr, "  the submit still waits for room 10 s after ferryd died\n");
		exit(1); /* its thread cannot be joined */
	}
	pthread_join(t, NULL);
	CHECK(atomic_load(&st.result) < 0);
	ferry_bo_close(ib.bo);
	itest_client_close(&c);
	ferryd_stop(&p, 1000);
}

int main(void)
{
	RUN_TEST(test_order_and_wrap);
	RUN_TEST(test_tail_past_end);
	RUN_TEST(test_tail_misaligned);
	RUN_TEST(test_record_oversized);
	RUN_TEST(test_record_bad_kind);
	RUN_TEST(test_record_garbage);
	RUN_TEST(test_record_names_other_context);
	RUN_TEST(test_record_awaiting_reply);
	RUN_TEST(test_record_changed_while_read);
	RUN_TEST(test_guest_never_rings);
	RUN_TEST(test_stalled_sock_seq);
	RUN_TEST(test_doorbell_count_left_to_the_guest);
	RUN_TEST(test_guest_rings_forever);
	RUN_TEST(test_frame_not_held_by_refilled_ring);
	RUN_TEST(test_record_in_progress);
	RUN_TEST(test_libferry_uses_ring);
	RUN_TEST(test_libferry_full_ring_host_gone);
	RUN_TEST(test_ring_memory_quota);
	return test_finish();
}
