/* libferry against a scripted fake ferryd on a private socket: handshake, cached device query,
 * replies routed by seq (out of order), asynchronous ERRORs tied to their fence, fault events,
 * fence waits that time out without spinning, several threads waiting on one context, and a
 * server that hangs up. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ferry/cpu_relax.h"
#include "ferry/fence_page.h"
#include "ferry/ferry.h"
#include "test.h"

#define DEFER_SIZE 12345u   /* BO_CREATE of this size is answered after the next BO_CREATE */
#define FAIL_CMD_SIZE 8u    /* a submit whose first cmd has this size gets an ERROR */
#define FAULT_PREP_OP 0x80u /* BO_CPU_PREP with this op makes the server send fault events */
#define BAD_BATCH_SIZE 20480u    /* BO_CREATE_BATCH of this size gets a malformed reply */
#define REFUSED_BATCH_SIZE 24576u /* ... this one an ERROR -EDQUOT */

static struct {
	char dir[48], path[64];
	int listen_fd, conn;
	pthread_t thread;
	struct ferry_fence_page *page; /* the server's own mapping */
	uint32_t page_version;         /* the next context's page says this version */
	int event_fd;
	atomic_int device_queries;
	atomic_int submits;
	uint32_t last_submit_seqno, last_submit_nr_bos, first_bo_flags;
	atomic_int hangup;
	atomic_int batches, bo_creates;
	/* deferred BO_CREATED */
	bool deferred;
	struct ferry_msg deferred_msg;
	int deferred_fd;
} srv;

static void send_msg(struct ferry_msg *m, const int *fds, int nfds)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	if (ferry_wire_encode(m, &b) == 0)
		ferry_frame_send(srv.conn, b.data, b.len, fds, nfds);
	ferry_buf_free(&b);
}

static void send_bo_created(const struct ferry_msg *req)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATED, .seq = req->seq };
	uint64_t size = (req->u.bo_create.size + 4095) & ~4095ull;
	m.u.bo_created = (struct ferry_bo_created){ req->u.bo_create.ctx_id, req->u.bo_create.bo_id,
						    size, 0x100000000ull + req->u.bo_create.bo_id * 0x100000ull };
	int fd = memfd_create("bo", MFD_CLOEXEC);
	if (ftruncate(fd, (off_t)size) < 0)
		return;
	send_msg(&m, &fd, 1);
	close(fd);
}

static void send_batch_created(const struct ferry_msg *req)
{
	const struct ferry_bo_create_batch *b = &req->u.bo_create_batch;
	struct ferry_msg m = { .kind = FERRY_MSG_BO_BATCH_CREATED, .seq = req->seq };
	uint64_t size = (b->size + 4095) & ~4095ull;
	m.u.bo_batch_created = (struct ferry_bo_batch_created){ b->ctx_id, b->first_bo_id, size, b->count, { 0 } };
	int fds[FERRY_MAX_BO_BATCH];
	uint32_t n = b->count <= FERRY_MAX_BO_BATCH ? b->count : 0;
	for (uint32_t i = 0; i < n; i++) {
		m.u.bo_batch_created.iova[i] = 0x100000000ull + (b->first_bo_id + i) * 0x100000ull;
		fds[i] = memfd_create("bo", MFD_CLOEXEC);
		if (ftruncate(fds[i], (off_t)size) < 0)
			return;
	}
	if (b->size == BAD_BATCH_SIZE)
		n--; /* one fd short of its count */
	send_msg(&m, fds, (int)n);
	for (uint32_t i = 0; i < b->count && i < FERRY_MAX_BO_BATCH; i++)
		close(fds[i]);
}

static void handle(const struct ferry_msg *req, int *fds, int nfds)
{
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	struct ferry_msg m = { .seq = req->seq };
	switch (req->kind) {
	case FERRY_MSG_HELLO:
		m.kind = FERRY_MSG_HELLO_REPLY;
		m.u.hello_reply = (struct ferry_hello_reply){ FERRY_PROTOCOL_VERSION,
							      FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM |
								      FERRY_FEATURE_BO_BATCH,
							      "fake ferryd" };
		send_msg(&m, NULL, 0);
		break;
	case FERRY_MSG_DEVICE_QUERY: {
		atomic_fetch_add(&srv.device_queries, 1);
		static const struct ferry_param params[] = { { 1, 0, 630 }, { 3, 0, 0x06030001 } };
		m.kind = FERRY_MSG_DEVICE_INFO;
		m.u.device_info = (struct ferry_device_info){ FERRY_FAMILY_MSM, "a630", 2, params };
		send_msg(&m, NULL, 0);
		break;
	}
	case FERRY_MSG_CONTEXT_CREATE: {
		/* Only the newest context's page and eventfd are the server's to drive. */
		if (srv.page)
			munmap(srv.page, FERRY_FENCE_PAGE_SIZE);
		if (srv.event_fd > 0)
			close(srv.event_fd);
		int pfd = memfd_create("fence", MFD_CLOEXEC);
		if (ftruncate(pfd, FERRY_FENCE_PAGE_SIZE) < 0)
			break;
		srv.page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
		ferry_fence_page_init(srv.page);
		srv.page->version = srv.page_version;
		srv.event_fd = eventfd(0, EFD_CLOEXEC);
		m.kind = FERRY_MSG_CONTEXT_CREATED;
		m.u.context_created.ctx_id = req->u.context_create.ctx_id;
		int f[2] = { pfd, srv.event_fd };
		send_msg(&m, f, 2);
		close(pfd);
		break;
	}
	case FERRY_MSG_BO_CREATE_BATCH:
		atomic_fetch_add(&srv.batches, 1);
		if (req->u.bo_create_batch.size == REFUSED_BATCH_SIZE) {
			m.kind = FERRY_MSG_ERROR;
			m.u.error = (struct ferry_error){ FERRY_MSG_BO_CREATE_BATCH, -EDQUOT, "client quota (scripted)" };
			send_msg(&m, NULL, 0);
		} else {
			send_batch_created(req);
		}
		break;
	case FERRY_MSG_BO_CREATE:
		atomic_fetch_add(&srv.bo_creates, 1);
		if (req->u.bo_create.size == DEFER_SIZE) {
			srv.deferred = true;
			srv.deferred_msg = *req;
			break;
		}
		send_bo_created(req);
		if (srv.deferred) {
			srv.deferred = false;
			send_bo_created(&srv.deferred_msg);
		}
		break;
	case FERRY_MSG_MSM_SUBMIT:
		srv.last_submit_seqno = req->u.msm_submit.seqno;
		srv.last_submit_nr_bos = req->u.msm_submit.nr_bos;
		srv.first_bo_flags = req->u.msm_submit.nr_bos ? req->u.msm_submit.bos[0].flags : 0;
		atomic_fetch_add(&srv.submits, 1);
		if (req->u.msm_submit.nr_cmds && req->u.msm_submit.cmds[0].size == FAIL_CMD_SIZE) {
			m.kind = FERRY_MSG_ERROR;
			m.u.error = (struct ferry_error){ FERRY_MSG_MSM_SUBMIT, -EINVAL, "scripted reject" };
			send_msg(&m, NULL, 0);
		}
		break;
	case FERRY_MSG_BO_CPU_PREP:
		if (req->u.bo_cpu_prep.op == FAULT_PREP_OP) {
			/* Events for the last submit, before the reply the guest waits for. */
			struct ferry_msg e = { .kind = FERRY_MSG_FAULT_REPORT };
			e.u.fault_report = (struct ferry_fault_report){
				.ctx_id = req->u.bo_cpu_prep.ctx_id, .queue_id = 0,
				.seqno = srv.last_submit_seqno, .flags = FERRY_FAULT_WRITE,
				.iova = 0xdead000, .ib_iova = 0x100100000ull, .ib_dword = 4,
				.ib_level = 1, .opcode = 0x3d, .text = "scripted fault" };
			send_msg(&e, NULL, 0);
			e = (struct ferry_msg){ .kind = FERRY_MSG_FENCE_SIGNALED };
			e.u.fence_signaled = (struct ferry_fence_signaled){
				req->u.bo_cpu_prep.ctx_id, 0, srv.last_submit_seqno, -EIO };
			send_msg(&e, NULL, 0);
		}
		/* fall through */
	case FERRY_MSG_FENCE_WAIT:
		m.kind = FERRY_MSG_STATUS_REPLY;
		m.u.status_reply.error = 0;
		send_msg(&m, NULL, 0);
		break;
	default:
		break;
	}
}

static void *server_thread(void *arg)
{
	srv.conn = accept4(srv.listen_fd, NULL, NULL, SOCK_CLOEXEC);
	struct ferry_frame_reader r;
	ferry_frame_reader_init(&r);
	while (srv.conn >= 0 && !atomic_load(&srv.hangup)) {
		struct pollfd p = { srv.conn, POLLIN, 0 };
		if (poll(&p, 1, 20) <= 0)
			continue;
		int e = ferry_frame_read(srv.conn, &r);
		if (e < 0)
			break;
		if (e == 0)
			continue;
		struct ferry_msg m;
		const char *why;
		int fds[FERRY_MAX_FRAME_FDS];
		int nfds = r.nfds;
		memcpy(fds, r.fds, sizeof(fds));
		if (ferry_wire_decode(r.payload, r.len, &m, &why) == 0)
			handle(&m, fds, nfds);
		else
			for (int i = 0; i < nfds; i++)
				close(fds[i]);
		ferry_frame_reader_next(&r);
	}
	ferry_frame_reader_fini(&r);
	if (srv.conn >= 0)
		close(srv.conn);
	return NULL;
}

/* What the host does on retire: publish, then wake only if someone sleeps for it. */
static _Atomic int eventfd_writes;
static void retire(uint32_t queue, uint32_t seqno)
{
	atomic_store(&srv.page->slots[queue].signaled, seqno);
	if (atomic_load(&srv.page->waiters) != 0 ||
	    (atomic_load(&srv.page->seqno_waiters) != 0 &&
	     ferry_fence_slot_wake_due(&srv.page->slots[queue]))) {
		atomic_fetch_add(&eventfd_writes, 1);
		uint64_t one = 1;
		if (write(srv.event_fd, &one, sizeof(one)) != sizeof(one))
			perror("eventfd");
	}
}

static double cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* Until a waiter thread has reached its sleep (a loaded machine may take long to run it), at
 * most 10 s; then the test's checks say what is wrong. */
static void await_count(_Atomic uint32_t *v, uint32_t want)
{
	for (int i = 0; i < 10000 && atomic_load(v) != want; i++)
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
}

static struct ferry_device *dev;
static struct ferry_context *ctx;
static struct ferry_queue *q;
static struct ferry_bo *ib;

static void test_open_and_query(void)
{
	char uri[160];
	snprintf(uri, sizeof(uri), "unix:%s", srv.path);
	REQUIRE(ferry_device_open(uri, &dev) == 0);
	uint32_t family;
	const char *name;
	CHECK_EQ(ferry_device_info(dev, &family, &name), 0);
	CHECK_EQ(family, FERRY_FAMILY_MSM);
	CHECK(strcmp(name, "a630") == 0);
	uint64_t v = 0;
	CHECK_EQ(ferry_device_param(dev, 1, &v), 0);
	CHECK_EQ(v, 630);
	CHECK_EQ(ferry_device_param(dev, 3, &v), 0);
	CHECK_EQ(v, 0x06030001);
	CHECK_EQ(ferry_device_param(dev, 99, &v), -EINVAL);
	CHECK_EQ(atomic_load(&srv.device_queries), 1); /* cached */
}

static void test_default_path(void)
{
	char buf[256];
	setenv("FERRY_SOCKET", "unix:/x/y.sock", 1);
	CHECK_EQ(ferry_default_socket_path(buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "/x/y.sock") == 0);
	unsetenv("FERRY_SOCKET");
	setenv("XDG_RUNTIME_DIR", "/run/user/7", 1);
	CHECK_EQ(ferry_default_socket_path(buf, sizeof(buf)), 0);
	CHECK(strcmp(buf, "/run/user/7/ferry/ferryd.sock") == 0);
	unsetenv("XDG_RUNTIME_DIR");
	CHECK_EQ(ferry_default_socket_path(buf, sizeof(buf)), 0);
	char want[64];
	snprintf(want, sizeof(want), "/tmp/ferry-%u/ferryd.sock", (unsigned)getuid());
	CHECK(strcmp(buf, want) == 0);
	CHECK_EQ(ferry_default_socket_path(buf, 5), -ENAMETOOLONG);
}

static void test_context_and_bos(void)
{
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx) == 0);
	REQUIRE(ferry_queue_create(ctx, 0, &q) == 0);
	CHECK_EQ(ferry_queue_next_seqno(q), 1);
	struct ferry_bo *late, *early;
	/* The first one's reply is held back until the second is created: map must still get
	 * each BO its own answer. */
	REQUIRE(ferry_bo_new(ctx, DEFER_SIZE, 0x20000, &late) == 0);
	REQUIRE(ferry_bo_new(ctx, 4096, 0x20000, &early) == 0);
	CHECK(ferry_bo_id(late) != ferry_bo_id(early) && ferry_bo_id(late) != 0);
	void *pe, *pl;
	uint64_t ie, il;
	CHECK_EQ(ferry_bo_map(early, &pe), 0);
	CHECK_EQ(ferry_bo_map(late, &pl), 0);
	CHECK_EQ(ferry_bo_iova(early, &ie), 0);
	CHECK_EQ(ferry_bo_iova(late, &il), 0);
	CHECK_EQ(ie, 0x100000000ull + ferry_bo_id(early) * 0x100000ull);
	CHECK_EQ(il, 0x100000000ull + ferry_bo_id(late) * 0x100000ull);
	CHECK_EQ(ferry_bo_size(late), 16384);
	memset(pl, 0xab, 16384); /* the whole rounded size is mapped */
	void *again;
	CHECK_EQ(ferry_bo_map(late, &again), 0);
	CHECK(again == pl);
	CHECK_EQ(ferry_bo_cpu_prep(early, 1, 1000000), 0);
	ferry_bo_close(late);
	ib = early;
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	REQUIRE(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool zeroed(const uint8_t *p, uint64_t size)
{
	for (uint64_t i = 0; i < size; i++)
		if (p[i])
			return false;
	return true;
}

/* A size made again comes from the stash: batches, not one BO_CREATE each; zeroed, distinct. A
 * malformed or refused batch costs the caller nothing: its BO is made alone, no fd is left over. */
static void test_bo_stash(void)
{
	/* ctx itself: the fake server drives only its newest context's fence page. */
	struct ferry_bo *bos[16];
	void *maps[16];
	int fds_before = open_fds();
	for (int k = 0; k < 2; k++) {
		uint64_t size = k ? REFUSED_BATCH_SIZE : BAD_BATCH_SIZE;
		int creates0 = atomic_load(&srv.bo_creates), batches0 = atomic_load(&srv.batches);
		for (int i = 0; i < 3; i++) {
			REQUIRE(ferry_bo_new(ctx, size, 0x20000, &bos[i]) == 0);
			CHECK_EQ(ferry_bo_map(bos[i], &maps[i]), 0);
			CHECK(maps[i] && zeroed(maps[i], size));
		}
		/* The first alone, then each from a failed batch alone again. */
		CHECK_EQ(atomic_load(&srv.bo_creates) - creates0, 3);
		CHECK_EQ(atomic_load(&srv.batches) - batches0, 2);
		for (int i = 0; i < 3; i++)
			ferry_bo_close(bos[i]);
	}
	/* A round trip: no reply is still on its way. Nothing of the failed batches is left. */
	CHECK_EQ(ferry_bo_cpu_prep(ib, 1, 1000000), 0);
	CHECK_EQ(open_fds(), fds_before);

	int creates0 = atomic_load(&srv.bo_creates), batches0 = atomic_load(&srv.batches);
	for (int i = 0; i < 16; i++) {
		REQUIRE(ferry_bo_new(ctx, 8192, 0x20000, &bos[i]) == 0);
		REQUIRE(ferry_bo_map(bos[i], &maps[i]) == 0);
		CHECK_EQ(ferry_bo_size(bos[i]), 8192);
		CHECK(zeroed(maps[i], 8192));
		memset(maps[i], 0x5a, 8192);
		for (int j = 0; j < i; j++)
			CHECK(ferry_bo_id(bos[i]) != ferry_bo_id(bos[j]) && maps[i] != maps[j]);
		uint64_t iova;
		CHECK_EQ(ferry_bo_iova(bos[i], &iova), 0);
		CHECK_EQ(iova, 0x100000000ull + ferry_bo_id(bos[i]) * 0x100000ull);
	}
	CHECK_EQ(atomic_load(&srv.bo_creates) - creates0, 1); /* the first of its size only */
	int batches = atomic_load(&srv.batches) - batches0;
	CHECK(batches >= 4 && batches <= 6);
	for (int i = 0; i < 16; i++)
		ferry_bo_close(bos[i]);
}

static void test_submit_and_fences(void)
{
	struct ferry_cmd cmd = { ib, 0, 4, 0 };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };
	uint32_t s1, s2, s3;
	CHECK_EQ(ferry_submit(q, &s, &s1), 0);
	CHECK_EQ(ferry_submit(q, &s, &s2), 0);
	CHECK_EQ(ferry_submit(q, &s, &s3), 0);
	CHECK_EQ(s1, 1);
	CHECK_EQ(s2, 2);
	CHECK_EQ(s3, 3);
	cmd.size = 8192; /* outside the BO */
	CHECK_EQ(ferry_submit(q, &s, NULL), -EINVAL);
	cmd.size = 4;

	/* Times out, and sleeps rather than spins while doing so. */
	double c0 = cpu_ms();
	CHECK_EQ(ferry_fence_wait(q, s1, 300 * 1000 * 1000), -ETIMEDOUT);
	CHECK(cpu_ms() - c0 < 100);
	CHECK(!ferry_fence_signaled(q, s1));
	CHECK_EQ(atomic_load(&srv.submits), 3);
	CHECK_EQ(srv.last_submit_nr_bos, 1);
	CHECK_EQ(srv.first_bo_flags, 1); /* the command BO, READ */
	retire(0, s1);
	CHECK(ferry_fence_signaled(q, s1));
	CHECK(!ferry_fence_signaled(q, s2));
	CHECK_EQ(ferry_fence_wait(q, s1, 0), 0);
}

struct waiter {
	uint32_t seqno;
	int result;
};

static void *wait_thread(void *p)
{
	struct waiter *w = p;
	w->result = ferry_fence_wait(q, w->seqno, 20ll * 1000 * 1000 * 1000);
	return NULL;
}

/* Six threads on seqnos 2 and 3 (version 2 page): the page asks to be woken at the earliest,
 * then at the later once the first three are gone; nothing is left asked for at the end. */
static void test_many_waiters(void)
{
	enum { W = 6 };
	struct waiter ws[W];
	pthread_t th[W];
	struct ferry_fence_slot *slot = &srv.page->slots[0];
	for (int i = 0; i < W; i++) {
		ws[i] = (struct waiter){ 3 - (uint32_t)(i % 2), 1 };
		REQUIRE(pthread_create(&th[i], NULL, wait_thread, &ws[i]) == 0);
	}
	await_count(&srv.page->seqno_waiters, W);
	CHECK_EQ(atomic_load(&srv.page->seqno_waiters), (uint32_t)W);
	CHECK_EQ(atomic_load(&srv.page->waiters), 0);
	CHECK_EQ(atomic_load(&slot->wake_at), 2);
	retire(0, 2);
	for (int i = 1; i < W; i += 2) {
		pthread_join(th[i], NULL);
		CHECK_EQ(ws[i].result, 0);
	}
	CHECK_EQ(atomic_load(&srv.page->seqno_waiters), (uint32_t)W / 2);
	CHECK_EQ(atomic_load(&slot->wake_at), 3);
	CHECK(!ferry_fence_slot_wake_due(slot));
	retire(0, 3);
	for (int i = 0; i < W; i += 2) {
		pthread_join(th[i], NULL);
		CHECK_EQ(ws[i].result, 0);
	}
	CHECK_EQ(atomic_load(&srv.page->seqno_waiters), 0);
	CHECK(!ferry_fence_slot_wake_due(slot));
}

/* A waiter for seqno 5 sleeps through the retires of 4 earlier ones (no eventfd write). */
static void test_waiter_sleeps_through_earlier_retires(void)
{
	uint32_t base = atomic_load(&srv.page->slots[0].signaled);
	struct waiter w = { base + 5, 1 };
	pthread_t th;
	atomic_store(&eventfd_writes, 0);
	REQUIRE(pthread_create(&th, NULL, wait_thread, &w) == 0);
	await_count(&srv.page->seqno_waiters, 1);
	for (uint32_t i = 1; i <= 4; i++)
		retire(0, base + i);
	CHECK_EQ(atomic_load(&eventfd_writes), 0);
	retire(0, base + 5);
	pthread_join(th, NULL);
	CHECK_EQ(w.result, 0);
	CHECK_EQ(atomic_load(&eventfd_writes), 1);
	/* libferry's epoll took the write as an edge and left the count (one read less). */
	uint64_t count = 0;
	CHECK(read(srv.event_fd, &count, sizeof(count)) == sizeof(count) && count >= 1);
	/* Those seqnos were never submitted: the next tests' submits start from base again. */
	atomic_store(&srv.page->slots[0].signaled, base);
	atomic_store(&srv.page->slots[0].wake_at, base + 0x80000000u);
}

/* Waits that cannot spin (1 ns timeouts) until earlier tests' spins in vain are paid off: such
 * a wait uses up one skip, or spins cut by its deadline, which sets no new skips. */
static void spend_spin_skips(uint32_t seqno)
{
	for (int i = 0; i < 1100; i++)
		CHECK_EQ(ferry_fence_wait(q, seqno, 1), -ETIMEDOUT);
}

struct late_retire {
	uint32_t seqno;
	uint64_t spins0;
	atomic_bool running;
};

/* Retires once the wait has begun its spin. Already running when the wait starts: a thread
 * started or woken then (a fixed 100 us sleep) could come after the spin in a loaded VM. */
static void *retire_later(void *p)
{
	struct late_retire *lr = p;
	struct ferry_wait_stats st;
	atomic_store(&lr->running, true);
	for (int i = 0; i < 5 * 1000 * 1000; i++) {
		ferry_device_wait_stats(dev, &st);
		if (st.spins > lr->spins0)
			break;
		ferry_cpu_relax();
	}
	retire(0, lr->seqno);
	return NULL;
}

/* A fence retired while a wait spins (FERRY_WAIT_SPIN_US=1000, set in main): whether the spin
 * saw it (a waiter preempted past its spin may not: tried again, for up to 10 s), and the
 * eventfd writes then. A hit also clears the backoff of earlier spins in vain. */
static bool one_spin_hit(int *writes)
{
	uint32_t base = atomic_load(&srv.page->slots[0].signaled);
	bool hit = false;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; !hit; i++) {
		/* 40 tries, and on for up to 10 s while a loaded machine keeps preempting the waiter. */
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (i >= 40 && t.tv_sec - t0.tv_sec >= 10)
			break;
		spend_spin_skips(base + 1);
		struct ferry_wait_stats st0, st;
		ferry_device_wait_stats(dev, &st0);
		atomic_store(&eventfd_writes, 0);
		struct late_retire lr = { base + 1, st0.spins, false };
		pthread_t th;
		REQUIRE(pthread_create(&th, NULL, retire_later, &lr) == 0);
		while (!atomic_load(&lr.running))
			ferry_cpu_relax();
		CHECK_EQ(ferry_fence_wait(q, base + 1, 5ll * 1000 * 1000 * 1000), 0);
		pthread_join(th, NULL);
		ferry_device_wait_stats(dev, &st);
		hit = st.spin_hits > st0.spin_hits;
		*writes = atomic_load(&eventfd_writes);
		/* Never submitted: the next tests' seqnos start from base again. */
		atomic_store(&srv.page->slots[0].signaled, base);
	}
	return hit;
}

/* The spin sees the fence: no sleep, no eventfd write. */
static void test_wait_spin_hits(void)
{
	if (ferry_cpus_usable() < 2) {
		printf("skip test_wait_spin_hits: one CPU, no spin\n");
		return;
	}
	int writes = -1;
	CHECK(one_spin_hit(&writes));
	CHECK_EQ(writes, 0);
}

/* A spin in vain makes the next 16 waits sleep at once, the one after spins again, then 32 are
 * skipped. */
static void test_wait_spin_backs_off(void)
{
	if (ferry_cpus_usable() < 2)
		return;
	int writes;
	REQUIRE(one_spin_hit(&writes)); /* no backoff left */
	uint32_t never = atomic_load(&srv.page->slots[0].signaled) + 100;
	struct ferry_wait_stats st0, st;
	ferry_device_wait_stats(dev, &st0);
	const int64_t ms5 = 5 * 1000 * 1000; /* past the 1 ms spin: a full spin in vain */
	CHECK_EQ(ferry_fence_wait(q, never, ms5), -ETIMEDOUT);
	ferry_device_wait_stats(dev, &st);
	CHECK_EQ(st.spins, st0.spins + 1);
	CHECK_EQ(st.spin_hits, st0.spin_hits);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(ferry_fence_wait(q, never, ms5), -ETIMEDOUT);
	ferry_device_wait_stats(dev, &st);
	CHECK_EQ(st.spins, st0.spins + 1);
	CHECK_EQ(ferry_fence_wait(q, never, ms5), -ETIMEDOUT);
	ferry_device_wait_stats(dev, &st);
	CHECK_EQ(st.spins, st0.spins + 2);
	for (int i = 0; i < 32; i++)
		CHECK_EQ(ferry_fence_wait(q, never, 1000), -ETIMEDOUT); /* skips, not spins */
	ferry_device_wait_stats(dev, &st);
	CHECK_EQ(st.spins, st0.spins + 2);
}

static void test_async_error_and_fault(void)
{
	struct ferry_cmd cmd = { ib, 0, FAIL_CMD_SIZE, 0 };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };
	uint32_t bad;
	CHECK_EQ(ferry_submit(q, &s, &bad), 0);
	/* The host never retires it; its ERROR ends the wait. */
	CHECK_EQ(ferry_fence_wait(q, bad, 10ll * 1000 * 1000 * 1000), -EINVAL);
	CHECK(strstr(ferry_device_last_error(dev), "scripted reject") != NULL);
	CHECK_EQ(ferry_context_refusals(ctx, 0, false), 1);
	CHECK_EQ(ferry_context_refusals(ctx, ferry_queue_id(q), true), 1);
	CHECK_EQ(ferry_context_refusals(ctx, ferry_queue_id(q) + 1, true), 0);

	/* Submitted before the loss on another queue, and never retired by the host. */
	struct ferry_queue *q2;
	REQUIRE(ferry_queue_create(ctx, 0, &q2) == 0);
	cmd.size = 16;
	uint32_t pending;
	CHECK_EQ(ferry_submit(q2, &s, &pending), 0);

	CHECK(ferry_context_fault(ctx, 0) == NULL);
	CHECK(!ferry_context_lost(ctx));
	cmd.size = 4;
	uint32_t faulting;
	CHECK_EQ(ferry_submit(q, &s, &faulting), 0);
	CHECK_EQ(ferry_bo_cpu_prep(ib, FAULT_PREP_OP, 0), 0);
	const struct ferry_fault_info *f = ferry_context_fault(ctx, 0);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(f->seqno, faulting);
		CHECK_EQ(f->iova, 0xdead000);
		CHECK(f->flags & FERRY_FAULT_WRITE);
		CHECK_EQ(f->ib_dword, 4);
		CHECK(strcmp(f->text, "scripted fault") == 0);
	}
	CHECK(ferry_context_fault(ctx, 1) == NULL);
	CHECK(ferry_context_lost(ctx));
	retire(0, faulting); /* the host retires it with the error */
	atomic_store(&srv.page->lost, 1); /* and then says the context is lost */
	CHECK_EQ(ferry_fence_wait(q, faulting, 1000000000ll), -EIO);
	/* A lost context refuses submits locally. */
	CHECK_EQ(ferry_submit(q, &s, NULL), -EIO);
	/* Its pending fences are over at once, failed, whatever the timeout. */
	CHECK(ferry_fence_signaled(q2, pending));
	CHECK_EQ(ferry_fence_wait(q2, pending, 10ll * 1000 * 1000 * 1000), -EIO);
	struct ferry_fence_point pt = { q2, pending };
	CHECK_EQ(ferry_fence_wait_many(&pt, 1, true, 10ll * 1000 * 1000 * 1000, NULL), -EIO);
	ferry_queue_close(q2);
}

struct waiter_on {
	struct ferry_queue *q;
	uint32_t seqno;
	int result;
};

static void *wait_on_thread(void *p)
{
	struct waiter_on *w = p;
	w->result = ferry_fence_wait(w->q, w->seqno, 20ll * 1000 * 1000 * 1000);
	return NULL;
}

/* A context whose page says version 1 (an older host): its waiters raise waiters, and any
 * retire wakes them. (Its page becomes the one the server drives.) */
static void test_older_host_any_signal_wakes(void)
{
	srv.page_version = 1;
	struct ferry_context *c1;
	struct ferry_queue *q1;
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c1) == 0);
	REQUIRE(ferry_queue_create(c1, 0, &q1) == 0);
	REQUIRE(ferry_queue_id(q1) == 0);
	atomic_store(&eventfd_writes, 0);
	struct waiter_on w = { q1, 2, 1 };
	pthread_t th;
	REQUIRE(pthread_create(&th, NULL, wait_on_thread, &w) == 0);
	await_count(&srv.page->waiters, 1);
	CHECK_EQ(atomic_load(&srv.page->waiters), 1);
	CHECK_EQ(atomic_load(&srv.page->seqno_waiters), 0);
	retire(0, 1);
	CHECK_EQ(atomic_load(&eventfd_writes), 1);
	retire(0, 2);
	pthread_join(th, NULL);
	CHECK_EQ(w.result, 0);
	CHECK_EQ(atomic_load(&srv.page->waiters), 0);
	ferry_queue_close(q1);
	ferry_context_destroy(c1);
	srv.page_version = FERRY_FENCE_PAGE_VERSION;
}

static void *hangup_later(void *arg)
{
	nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	atomic_store(&srv.hangup, 1);
	return NULL;
}

static void test_hangup(void)
{
	/* A context that is not lost, so the wait sleeps until the hangup. */
	struct ferry_context *c1;
	struct ferry_queue *q1;
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c1) == 0);
	REQUIRE(ferry_queue_create(c1, 0, &q1) == 0);
	pthread_t th;
	REQUIRE(pthread_create(&th, NULL, hangup_later, NULL) == 0);
	int r = ferry_fence_wait(q1, 1000, 10ll * 1000 * 1000 * 1000);
	CHECK_EQ(r, -EPIPE);
	pthread_join(th, NULL);
	struct ferry_context *c2;
	CHECK(ferry_context_create(dev, FERRY_FAMILY_MSM, 0, &c2) < 0);
	ferry_queue_close(q1);
	ferry_context_destroy(c1);
}

int main(void)
{
	/* Long enough for test_wait_spin_hits to retire within it from another thread. */
	setenv("FERRY_WAIT_SPIN_US", "1000", 1);
	srv.page_version = FERRY_FENCE_PAGE_VERSION;
	snprintf(srv.dir, sizeof(srv.dir), "/tmp/ferry-ut-XXXXXX");
	REQUIRE(mkdtemp(srv.dir));
	snprintf(srv.path, sizeof(srv.path), "%s/s", srv.dir);
	srv.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", srv.path);
	REQUIRE(bind(srv.listen_fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	REQUIRE(listen(srv.listen_fd, 4) == 0);
	REQUIRE(pthread_create(&srv.thread, NULL, server_thread, NULL) == 0);

	RUN_TEST(test_default_path);
	RUN_TEST(test_open_and_query);
	RUN_TEST(test_context_and_bos);
	RUN_TEST(test_bo_stash);
	RUN_TEST(test_submit_and_fences);
	RUN_TEST(test_many_waiters);
	RUN_TEST(test_waiter_sleeps_through_earlier_retires);
	RUN_TEST(test_wait_spin_hits);
	RUN_TEST(test_wait_spin_backs_off);
	RUN_TEST(test_async_error_and_fault);
	RUN_TEST(test_older_host_any_signal_wakes);
	RUN_TEST(test_hangup);

	pthread_join(srv.thread, NULL);
	ferry_bo_close(ib);
	ferry_queue_close(q);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	if (srv.page)
		munmap(srv.page, FERRY_FENCE_PAGE_SIZE);
	if (srv.event_fd > 0)
		close(srv.event_fd);
	close(srv.listen_fd);
	unlink(srv.path);
	rmdir(srv.dir);
	return test_finish();
}
