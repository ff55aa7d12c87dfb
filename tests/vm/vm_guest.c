/* A guest program for the VM tests (it runs against ferryd over a unix socket too): libferry on
 * whatever transport it finds (in a VM: virtio-gpu), with checked results.
 *   vm_guest pipelined N   N CP_MEM_WRITE submits without waiting, then every value checked
 *   vm_guest waits         fence waits with timeouts: one that must time out, one that must not
 *   vm_guest two-procs     two processes with contexts of their own: a GPU fault in one while
 *                          the other's 200 submits complete with the right bytes
 *   vm_guest killed        a child that makes BOs and submits is killed mid-way; the parent goes on
 *   vm_guest hostile       (virtio-gpu only) while this process pipelines submits, children send
 *                          the device random bytes, frames announced past the limit and cut short,
 *                          BINDs of resources that are not theirs, out-of-range transfers and
 *                          submit rings whose tail lies past the ring (their context refused);
 *                          the good context keeps its results and the device keeps answering
 * Each prints "vm_guest: <case> PASS" or "... FAIL" and exits 0 only on PASS. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/mman.h>

#include <virtgpu_drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/ferry.h"
#include "ferry/fence_page.h"
#include "ferry/submit_ring.h"
#include "ferry/virtio.h"
#include "ferry/wire.h"
#include "pm4_builder.h"
#include "transport.h"

#define WAIT_NS (20ll * 1000 * 1000 * 1000)
#define SLOTS 1024u

static int failures;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	if (ok)
		return;
	failures++;
	va_list ap;
	va_start(ap, fmt);
	printf("vm_guest: CHECK FAILED: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

struct gbo {
	struct ferry_bo *bo;
	uint32_t *cpu;
	uint64_t iova;
};

static int gbo_new(struct ferry_context *ctx, uint64_t size, struct gbo *b)
{
	void *p = NULL;
	int r = ferry_bo_new(ctx, size, MSM_BO_WC, &b->bo);
	if (r == 0)
		r = ferry_bo_map(b->bo, &p);
	if (r == 0)
		r = ferry_bo_iova(b->bo, &b->iova);
	b->cpu = p;
	return r;
}

/* One context with a queue, an IB BO (one 256-byte slot per submit in flight) and a data BO. */
struct env {
	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *q;
	struct gbo ib, data;
};

static int env_open_policy(struct env *e, uint32_t policy)
{
	memset(e, 0, sizeof(*e));
	int r = ferry_device_open(NULL, &e->dev);
	if (r == 0)
		r = ferry_context_create(e->dev, FERRY_FAMILY_MSM, policy, &e->ctx);
	if (r == 0)
		r = ferry_queue_create(e->ctx, 0, &e->q);
	if (r == 0)
		r = gbo_new(e->ctx, SLOTS * 256, &e->ib);
	if (r == 0)
		r = gbo_new(e->ctx, SLOTS * 4, &e->data);
	if (r < 0)
		printf("vm_guest: cannot set up: %s (%s)\n", strerror(-r), e->dev ? ferry_device_last_error(e->dev) : "no device");
	return r;
}

static int env_open(struct env *e)
{
	return env_open_policy(e, FERRY_POLICY_VALIDATED);
}

static void env_close(struct env *e)
{
	if (e->data.bo)
		ferry_bo_close(e->data.bo);
	if (e->ib.bo)
		ferry_bo_close(e->ib.bo);
	if (e->q)
		ferry_queue_close(e->q);
	if (e->ctx)
		ferry_context_destroy(e->ctx);
	if (e->dev)
		ferry_device_close(e->dev);
}

/* A submit writing value into data[slot], its commands in IB slot ib_slot; the seqno in *seqno. */
static int write_job(struct env *e, uint32_t ib_slot, uint32_t slot, uint32_t value, uint64_t target, uint32_t *seqno)
{
	struct pm4_builder b;
	pm4_builder_init(&b, e->ib.cpu + ib_slot * 64, 64);
	pm4_mem_write(&b, target ? target : e->data.iova + slot * 4, &value, 1);
	if (!pm4_builder_ok(&b))
		return -EINVAL;
	struct ferry_cmd cmd = { e->ib.bo, ib_slot * 256, pm4_builder_bytes(&b), MSM_SUBMIT_CMD_BUF };
	struct ferry_submit_bo bo = { e->data.bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &bo, .nr_bos = 1 };
	return ferry_submit(e->q, &s, seqno);
}

/* N submits without a wait between them (an IB slot is reused only after its submit retired). */
static int pipelined(struct env *e, uint32_t n, uint32_t base)
{
	uint32_t seqnos[SLOTS] = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = i % SLOTS;
		if (i >= SLOTS && ferry_fence_wait(e->q, seqnos[k], WAIT_NS) != 0) {
			check(false, "submit %u did not retire", i - SLOTS);
			return -1;
		}
		int r = write_job(e, k, k, base + i, 0, &seqnos[k]);
		if (r < 0) {
			check(false, "submit %u: %s (%s)", i, strerror(-r), ferry_device_last_error(e->dev));
			return r;
		}
	}
	uint32_t last = seqnos[(n - 1) % SLOTS];
	check(ferry_fence_wait(e->q, last, WAIT_NS) == 0, "the last of %u submits did not signal", n);
	uint32_t bad = 0;
	for (uint32_t k = 0; k < SLOTS && k < n; k++) {
		uint32_t want = base + k + ((n - 1 - k) / SLOTS) * SLOTS; /* the last submit that wrote slot k */
		if (e->data.cpu[k] != want && bad++ < 4)
			printf("vm_guest: slot %u is %u, wanted %u\n", k, e->data.cpu[k], want);
	}
	check(bad == 0, "%u of %u slots wrong after %u pipelined submits", bad, n < SLOTS ? n : SLOTS, n);
	return bad ? -1 : 0;
}

static int case_pipelined(uint32_t n)
{
	struct env e;
	if (env_open(&e) < 0)
		return 1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pipelined(&e, n, 0x10000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("vm_guest: %u pipelined submits in %.1f ms\n", n,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	env_close(&e);
	return 0;
}

static int case_waits(void)
{
	struct env e;
	if (env_open(&e) < 0)
		return 1;
	uint32_t seqno;
	check(write_job(&e, 0, 0, 7, 0, &seqno) == 0, "submit");
	check(ferry_fence_wait(e.q, seqno, WAIT_NS) == 0, "a submitted job's fence within the timeout");
	check(e.data.cpu[0] == 7, "its value: %u", e.data.cpu[0]);
	/* A seqno nothing will signal: the wait ends at its timeout, and soon after it. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int r = ferry_fence_wait(e.q, seqno + 5, 50ll * 1000 * 1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	check(r == -ETIMEDOUT, "a wait for a seqno never submitted: %d", r);
	printf("vm_guest: a 50 ms wait returned %d after %.1f ms\n", r, ms);
	check(ferry_fence_wait(e.q, seqno + 5, 0) == -ETIMEDOUT, "a poll of it");
	check(ferry_fence_signaled(e.q, seqno), "the first fence reads signaled");
	env_close(&e);
	return 0;
}

/* A child faults (a write to an address no BO has) while this process's submits go on. */
static int case_two_procs(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		/* Passthrough, so the stray write reaches the GPU (a validated context is refused it
		 * at submit): the host must allow passthrough contexts. The top 64 KiB of the VA
		 * range are far above anything allocated. */
		struct env e;
		if (env_open_policy(&e, FERRY_POLICY_PASSTHROUGH) < 0)
			_exit(1);
		uint64_t va_start = 0, va_size = 0;
		ferry_device_param(e.dev, MSM_PARAM_VA_START, &va_start);
		ferry_device_param(e.dev, MSM_PARAM_VA_SIZE, &va_size);
		uint32_t seqno;
		int r = write_job(&e, 0, 0, 1, va_start + va_size - 0x10000, &seqno);
		int w = r == 0 ? ferry_fence_wait(e.q, seqno, WAIT_NS) : r;
		printf("vm_guest: child's faulting job: submit %d, wait %d, context %s\n", r, w,
		       ferry_context_lost(e.ctx) ? "lost" : "alive");
		fflush(stdout);
		int ok = w < 0 && ferry_context_lost(e.ctx);
		env_close(&e);
		_exit(ok ? 0 : 1);
	}
	struct env e;
	int st = -1;
	if (pid > 0 && env_open(&e) == 0) {
		pipelined(&e, 200, 0x20000);
		check(!ferry_context_lost(e.ctx), "this process's context was lost");
		env_close(&e);
	}
	check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child saw its fault (status 0x%x)", st);
	return 0;
}

/* A child with BOs and submits in flight is killed; this process's work is unaffected. */
static int case_killed(void)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		return 1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		struct env e;
		if (env_open(&e) < 0)
			_exit(1);
		struct gbo extra[16];
		for (int i = 0; i < 16; i++)
			if (gbo_new(e.ctx, 64 * 1024, &extra[i]) < 0)
				_exit(1);
		(void)!write(pfd[1], "r", 1);
		for (uint32_t i = 0;; i++) {
			uint32_t seqno;
			if (write_job(&e, i % SLOTS, i % SLOTS, i, 0, &seqno) < 0)
				_exit(1);
		}
	}
	close(pfd[1]);
	char c;
	bool ready = pid > 0 && read(pfd[0], &c, 1) == 1;
	close(pfd[0]);
	check(ready, "the child set up");
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	if (pid > 0)
		kill(pid, SIGKILL);
	int st;
	check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st), "the child was killed");
	struct env e;
	if (env_open(&e) == 0) {
		pipelined(&e, 100, 0x30000);
		env_close(&e);
	}
	printf("vm_guest: killed a child with 18 BOs and submits in flight\n");
	return 0;
}

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* One hostile process: its own virtio-gpu context (an open of the node), round's kind of abuse,
 * each EXECBUFFER waited for on its out-fence (the device must complete them). */
static int abuse(const char *node, uint32_t round)
{
	int fd = ferry_virtio_open_node(node);
	if (fd < 0)
		return 1;
	uint32_t gem = 0, res = 0;
	uint32_t buf[256];
	size_t len = sizeof(buf);
	for (uint32_t i = 0; i < 256; i++)
		buf[i] = rnd();
	if (round % 4 != 0 && ferry_virtio_resource_new(fd, FERRY_VIRTIO_RING_HEADER + (2u << 20), &gem, &res) == 0) {
		/* A ferry context first, then its abuse. */
		struct ferry_virtio_packet p = { FERRY_VIRTIO_HELLO, sizeof(struct ferry_virtio_hello) };
		struct ferry_virtio_hello h = { FERRY_VIRTIO_CAPS_MAGIC, FERRY_VIRTIO_VERSION, res, 2u << 20 };
		memcpy(buf, &p, sizeof(p));
		memcpy(buf + 2, &h, sizeof(h));
		struct ferry_virtio_packet q = { FERRY_VIRTIO_STREAM, 16 };
		memcpy(buf + 6, &q, sizeof(q));
		if (round % 4 == 1)
			buf[8] = FERRY_MAX_FRAME_SIZE + 1; /* a frame past the limit */
		else if (round % 4 == 2)
			buf[8] = 4096; /* a frame cut short: its context goes with it */
		else { /* a BIND of resource ids that are not its own */
			struct ferry_virtio_packet b = { FERRY_VIRTIO_BIND, sizeof(struct ferry_virtio_bind) };
			struct ferry_virtio_bind bd = { FERRY_VIRTIO_BIND_BO, 1 + rnd() % 64, 1, 1 };
			memcpy(buf + 6, &b, sizeof(b));
			memcpy(buf + 8, &bd, sizeof(bd));
		}
		len = 64;
	}
	int fence = -1, bad = 0;
	if (ferry_virtio_execbuffer(fd, buf, len, &fence) == 0 && fence >= 0) {
		struct pollfd pfd = { .fd = fence, .events = POLLIN };
		if (poll(&pfd, 1, 10000) != 1)
			bad = 1; /* the device never completed it */
		close(fence);
	}
	if (gem && !bad) {
		/* The host refused the context and says so in its ring. */
		struct drm_virtgpu_map mp = { .handle = gem };
		void *m = ioctl(fd, DRM_IOCTL_VIRTGPU_MAP, &mp) == 0
				  ? mmap(NULL, FERRY_VIRTIO_RING_HEADER, PROT_READ, MAP_SHARED, fd, (off_t)mp.offset)
				  : MAP_FAILED;
		uint32_t err = 0;
		for (int i = 0; m != MAP_FAILED && i < 1000 && !err; i++) {
			err = __atomic_load_n(&((struct ferry_virtio_ring *)m)->error, __ATOMIC_ACQUIRE);
			if (!err)
				usleep(1000);
		}
		if (m != MAP_FAILED)
			munmap(m, FERRY_VIRTIO_RING_HEADER);
		if (!err) {
			printf("vm_guest: round %u: the host did not refuse the context\n", round);
			bad = 1;
		}
	}
	if (gem) {
		/* Transfers out of the resource's range: refused, nothing else. */
		struct drm_virtgpu_3d_transfer_to_host t = { .bo_handle = gem, .offset = 0xfffff000u };
		t.box.w = 0x7fffffffu;
		t.box.h = 1;
		t.box.d = 1;
		ioctl(fd, DRM_IOCTL_VIRTGPU_TRANSFER_TO_HOST, &t);
	}
	close(fd);
	return bad;
}

/* A mapping of a guest resource of this open (for the raw clients below), or MAP_FAILED. */
static void *map_res(int fd, uint32_t gem, size_t len)
{
	struct drm_virtgpu_map mp = { .handle = gem };
	if (ioctl(fd, DRM_IOCTL_VIRTGPU_MAP, &mp) != 0)
		return MAP_FAILED;
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mp.offset);
}

/* Appends a packet, a frame's bytes in a STREAM packet when m is given. */
static size_t put(uint8_t *buf, size_t at, uint32_t op, const void *data, uint32_t len)
{
	struct ferry_virtio_packet p = { op, len };
	memcpy(buf + at, &p, sizeof(p));
	memcpy(buf + at + sizeof(p), data, len);
	memset(buf + at + sizeof(p) + len, 0, ferry_virtio_padded(len) - len);
	return at + sizeof(p) + ferry_virtio_padded(len);
}

static size_t put_msg(uint8_t *buf, size_t at, const struct ferry_msg *m)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	if (ferry_wire_encode(m, &b) == 0)
		at = put(buf, at, FERRY_VIRTIO_STREAM, b.data, (uint32_t)b.len);
	ferry_buf_free(&b);
	return at;
}

static bool wait_word(const _Atomic uint32_t *w, bool (*ok)(uint32_t))
{
	for (int i = 0; i < 10000; i++) {
		if (ok(atomic_load(w)))
			return true;
		usleep(1000);
	}
	return false;
}

static bool is_ring_magic(uint32_t v)
{
	return v == FERRY_RING_MAGIC;
}

static bool nonzero(uint32_t v)
{
	return v != 0;
}

/* A raw client whose submit ring's tail points past the ring: the host must stop reading it,
 * say why in the ring and refuse this client's virtio-gpu context, and nobody else's. */
static int abuse_ring(const char *node)
{
	int fd = ferry_virtio_open_node(node);
	if (fd < 0)
		return 1;
	const uint32_t reply = 2u << 20, data = FERRY_RING_MIN_DATA;
	uint32_t rgem = 0, rres = 0, pgem = 0, pres = 0, sgem = 0, sres = 0;
	int bad = ferry_virtio_resource_new(fd, FERRY_VIRTIO_RING_HEADER + reply, &rgem, &rres) < 0 ||
		  ferry_virtio_resource_new(fd, FERRY_FENCE_PAGE_SIZE, &pgem, &pres) < 0 ||
		  ferry_virtio_resource_new(fd, FERRY_RING_HDR_SIZE + data, &sgem, &sres) < 0;
	static uint8_t buf[4096];
	size_t at = 0;
	struct ferry_virtio_hello h = { FERRY_VIRTIO_CAPS_MAGIC, FERRY_VIRTIO_VERSION, rres, reply };
	at = put(buf, at, FERRY_VIRTIO_HELLO, &h, sizeof(h));
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO, .seq = 1 };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	m.u.hello.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM | FERRY_FEATURE_SUBMIT_RING;
	at = put_msg(buf, at, &m);
	struct ferry_virtio_bind bp = { FERRY_VIRTIO_BIND_FENCE_PAGE, pres, 1, 0 };
	at = put(buf, at, FERRY_VIRTIO_BIND, &bp, sizeof(bp));
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE, .seq = 2 };
	m.u.context_create = (struct ferry_context_create){ 1, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED };
	at = put_msg(buf, at, &m);
	struct ferry_virtio_bind bs = { FERRY_VIRTIO_BIND_RING, sres, 1, 0 };
	at = put(buf, at, FERRY_VIRTIO_BIND, &bs, sizeof(bs));
	m = (struct ferry_msg){ .kind = FERRY_MSG_RING_CREATE, .seq = 3 };
	m.u.ring_create = (struct ferry_ring_create){ 1, data };
	at = put_msg(buf, at, &m);
	uint8_t *ring = bad ? MAP_FAILED : map_res(fd, sgem, FERRY_RING_HDR_SIZE + data);
	uint8_t *rep = bad ? MAP_FAILED : map_res(fd, rgem, FERRY_VIRTIO_RING_HEADER);
	bad = bad || ring == MAP_FAILED || rep == MAP_FAILED || ferry_virtio_execbuffer(fd, buf, at, NULL) < 0;
	struct ferry_ring_header *rh = (struct ferry_ring_header *)ring;
	if (!bad && !wait_word((const _Atomic uint32_t *)&rh->magic, is_ring_magic)) {
		printf("vm_guest: the host made no submit ring (is guest RAM shared memory? docs/vm.md)\n");
		bad = 1;
	}
	if (!bad) {
		atomic_store(&rh->tail, atomic_load(&rh->head) + 3 * data);
		struct ferry_virtio_kick k = { 1, 0 };
		at = put(buf, 0, FERRY_VIRTIO_KICK, &k, sizeof(k));
		bad = ferry_virtio_execbuffer(fd, buf, at, NULL) < 0;
	}
	if (!bad && (!wait_word((const _Atomic uint32_t *)&((struct ferry_virtio_ring *)rep)->error, nonzero) ||
		     atomic_load(&rh->error) >= 0)) {
		printf("vm_guest: a ring tail past the ring did not end the context\n");
		bad = 1;
	}
	if (ring != MAP_FAILED)
		munmap(ring, FERRY_RING_HDR_SIZE + data);
	if (rep != MAP_FAILED)
		munmap(rep, FERRY_VIRTIO_RING_HEADER);
	close(fd);
	return bad;
}

static int case_hostile(void)
{
	char node[64];
	if (ferry_virtio_find_node(node, sizeof(node)) < 0) {
		printf("vm_guest: hostile needs a virtio-gpu node served by ferry\n");
		return 1;
	}
	struct env e;
	if (env_open(&e) < 0)
		return 1;
	fflush(stdout);
	int children = 0, bad = 0;
	for (uint32_t round = 0; round < 32; round++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(round % 8 == 7 ? abuse_ring(node) : abuse(node, round));
		if (pid > 0)
			children++;
		/* The good context's work goes on between the abuse. */
		pipelined(&e, 50, 0x40000 + round * 64);
	}
	for (int i = 0; i < children; i++) {
		int st;
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	check(bad == 0, "%d hostile processes saw an EXECBUFFER never complete or were not refused", bad);
	check(!ferry_context_lost(e.ctx), "the good context was lost");
	pipelined(&e, 200, 0x50000); /* and still works afterwards */
	env_close(&e);
	printf("vm_guest: %d hostile processes came and went\n", children);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	int r;
	if (strcmp(what, "pipelined") == 0)
		r = case_pipelined(argc > 2 ? (uint32_t)atoi(argv[2]) : 1000);
	else if (strcmp(what, "waits") == 0)
		r = case_waits();
	else if (strcmp(what, "two-procs") == 0)
		r = case_two_procs();
	else if (strcmp(what, "killed") == 0)
		r = case_killed();
	else if (strcmp(what, "hostile") == 0)
		r = case_hostile();
	else {
		fprintf(stderr, "usage: vm_guest pipelined [N] | waits | two-procs | killed | hostile\n");
		return 2;
	}
	bool pass = r == 0 && failures == 0;
	printf("vm_guest: %s %s\n", what, pass ? "PASS" : "FAIL");
	return pass ? 0 : 1;
}
