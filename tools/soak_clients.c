/* `ferry soak`: the well-behaved and the hostile Adreno clients. Each runs in its own process
 * until the deadline and records what it did, and anything it should not have seen, in its slot. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "pm4_builder.h"
#include "soak.h"

#define WAIT_NS (10ll * 1000 * 1000 * 1000)
#define PATTERN_DWORDS 8

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* xorshift: each worker its own reproducible stream. */
static uint32_t next_rand(uint32_t *state)
{
	uint32_t x = *state ? *state : 0x9e3779b9u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/* One msm client: a device, a context of the given policy, a queue, an IB BO and a data BO. */
struct client {
	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *q, *q2; /* q2: a second timeline, for in-fences across queues */
	struct ferry_bo *ib, *data;
	uint32_t *ib_cpu, *data_cpu;
	uint64_t ib_iova, data_iova;
};

static int map_bo(struct ferry_context *ctx, uint64_t size, struct ferry_bo **bo, uint32_t **cpu, uint64_t *iova)
{
	void *p = NULL;
	int r = ferry_bo_new(ctx, size, MSM_BO_WC, bo);
	if (r == 0)
		r = ferry_bo_map(*bo, &p);
	if (r == 0)
		r = ferry_bo_iova(*bo, iova);
	*cpu = p;
	return r;
}

static void client_close(struct client *c)
{
	if (c->ib)
		ferry_bo_close(c->ib);
	if (c->data)
		ferry_bo_close(c->data);
	if (c->q)
		ferry_queue_close(c->q);
	if (c->q2)
		ferry_queue_close(c->q2);
	if (c->ctx)
		ferry_context_destroy(c->ctx);
	if (c->dev)
		ferry_device_close(c->dev);
	memset(c, 0, sizeof(*c));
}

/* On an existing device: a context of policy, its queue and two 4 KiB BOs. */
static int client_context(struct client *c, uint32_t policy)
{
	int r = ferry_context_create(c->dev, FERRY_FAMILY_MSM, policy, &c->ctx);
	if (r == 0)
		r = ferry_queue_create(c->ctx, 0, &c->q);
	if (r == 0)
		r = ferry_queue_create(c->ctx, 1, &c->q2);
	if (r == 0)
		r = map_bo(c->ctx, 4096, &c->ib, &c->ib_cpu, &c->ib_iova);
	if (r == 0)
		r = map_bo(c->ctx, 4096, &c->data, &c->data_cpu, &c->data_iova);
	return r;
}

static int client_open(const struct soak_env *env, uint32_t policy, struct client *c)
{
	memset(c, 0, sizeof(*c));
	int r = ferry_device_open(env->uri, &c->dev);
	if (r == 0)
		r = client_context(c, policy);
	return r;
}

/* Submits the IB bytes at ib offset on q, after in (if not NULL). Every submit in flight needs
 * its own IB slice: ferryd reads (and validates) it only when it handles the message. */
static int client_submit_on(struct client *c, struct ferry_queue *q, uint32_t offset, uint32_t bytes,
			    const struct ferry_fence_ref *in, uint32_t *seqno)
{
	struct ferry_submit_bo bo = { c->data, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd cmd = { .bo = c->ib, .offset = offset, .size = bytes };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &bo, .nr_bos = 1, .in_fences = in,
				  .nr_in_fences = in ? 1 : 0 };
	return ferry_submit(q, &s, seqno);
}

static int client_submit(struct client *c, uint32_t bytes, uint32_t *seqno)
{
	return client_submit_on(c, c->q, 0, bytes, NULL, seqno);
}

#define SLICE_DWORDS 64u /* 16 IB slices in the 4 KiB IB BO */
#define PIPE_SUBMITS 8u
#define PIPE_DATA 64u    /* dword of the data BO where pipelined rounds write */

/* PIPE_SUBMITS submits on q each write one dword, then one on q2, held by ferryd until the
 * last of them signaled, copies those dwords further on; waited for together and checked. */
static int pipelined_round(struct client *c, uint32_t seed)
{
	uint32_t seqno = 0, copy_seqno = 0;
	for (uint32_t i = 0; i < 2 * PIPE_SUBMITS; i++)
		c->data_cpu[PIPE_DATA + i] = 0;
	for (uint32_t i = 0; i <= PIPE_SUBMITS; i++) {
		struct pm4_builder b;
		pm4_builder_init(&b, c->ib_cpu + (i + 1) * SLICE_DWORDS, SLICE_DWORDS);
		if (i < PIPE_SUBMITS)
			pm4_mem_write(&b, c->data_iova + 4ull * (PIPE_DATA + i), (const uint32_t[]){ seed + i }, 1);
		else
			pm4_memcpy(&b, c->data_iova + 4ull * (PIPE_DATA + PIPE_SUBMITS), c->data_iova + 4ull * PIPE_DATA,
				   PIPE_SUBMITS);
		if (!pm4_builder_ok(&b))
			return -EINVAL;
		struct ferry_fence_ref after = { ferry_queue_id(c->q), seqno };
		int r = client_submit_on(c, i < PIPE_SUBMITS ? c->q : c->q2, (i + 1) * SLICE_DWORDS * 4,
					 pm4_builder_bytes(&b), i < PIPE_SUBMITS ? NULL : &after,
					 i < PIPE_SUBMITS ? &seqno : &copy_seqno);
		if (r < 0)
			return r;
	}
	struct ferry_fence_point all[2] = { { c->q, seqno }, { c->q2, copy_seqno } };
	int r = ferry_fence_wait_many(all, 2, true, WAIT_NS, NULL);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < PIPE_SUBMITS; i++)
		if (c->data_cpu[PIPE_DATA + i] != seed + i || c->data_cpu[PIPE_DATA + PIPE_SUBMITS + i] != seed + i)
			return 1;
	return 0;
}

/* Writes PATTERN_DWORDS values with the GPU and checks them. Returns 0, a negative errno, or 1
 * when the bytes came back wrong. *us gets the submit+wait time. */
static int write_pattern(struct client *c, uint32_t seed, uint64_t *us)
{
	uint32_t vals[PATTERN_DWORDS];
	for (uint32_t k = 0; k < PATTERN_DWORDS; k++) {
		vals[k] = seed * 2654435761u + k * 40503u + 1;
		c->data_cpu[k] = 0;
	}
	struct pm4_builder b;
	pm4_builder_init(&b, c->ib_cpu, 1024);
	pm4_mem_write(&b, c->data_iova, vals, PATTERN_DWORDS);
	if (!pm4_builder_ok(&b))
		return -EINVAL;
	uint32_t seqno;
	uint64_t t0 = soak_now_us();
	int r = client_submit(c, pm4_builder_bytes(&b), &seqno);
	if (r == 0)
		r = ferry_fence_wait(c->q, seqno, WAIT_NS);
	if (us)
		*us = soak_now_us() - t0;
	if (r < 0)
		return r;
	return memcmp(c->data_cpu, vals, sizeof(vals)) ? 1 : 0;
}

void soak_run_good(const struct soak_env *env, struct soak_slot *s)
{
	struct client c;
	uint32_t rnd = env->seed ^ (s->index * 7919u + 1);
	while (!soak_should_stop(env)) {
		s->requests++;
		int r = client_open(env, FERRY_POLICY_VALIDATED, &c);
		if (r < 0) {
			soak_fail(s, "connect/context: %s (%s)", strerror(-r),
				  c.dev ? ferry_device_last_error(c.dev) : "no device");
			client_close(&c);
			sleep_ms(100);
			continue;
		}
		/* A few thousand rounds per connection, so connects and teardowns are part of the mix. */
		unsigned rounds = 500 + next_rand(&rnd) % 3000;
		for (unsigned i = 0; i < rounds && !soak_should_stop(env); i++) {
			uint64_t us = 0;
			s->requests++;
			r = write_pattern(&c, next_rand(&rnd), &us);
			if (r < 0) {
				soak_fail(s, "submit+wait: %s (%s)", strerror(-r), ferry_device_last_error(c.dev));
				break;
			}
			soak_hist_add(&s->lat, us);
			if (r == 1) {
				s->wrong_bytes++;
				soak_fail(s, "wrong bytes after submit %u", i);
				continue;
			}
			s->rounds++;
			if (i % 16 == 15) {
				s->requests += PIPE_SUBMITS + 1;
				r = pipelined_round(&c, next_rand(&rnd));
				if (r < 0) {
					soak_fail(s, "pipelined submits: %s (%s)", strerror(-r), ferry_device_last_error(c.dev));
					break;
				}
				if (r == 1) {
					s->wrong_bytes++;
					soak_fail(s, "wrong bytes after pipelined submits (round %u)", i);
				}
			}
			if (i % 64 == 63) {
				/* BO churn: create, map, touch, close. */
				struct ferry_bo *bo;
				uint32_t *cpu;
				uint64_t iova;
				s->requests++;
				r = map_bo(c.ctx, 65536, &bo, &cpu, &iova);
				if (r == 0)
					cpu[0] = i;
				else
					soak_fail(s, "BO create: %s (%s)", strerror(-r), ferry_device_last_error(c.dev));
				if (bo)
					ferry_bo_close(bo);
			}
		}
		/* A third of the connections end with submits still in flight. */
		if (r >= 0 && next_rand(&rnd) % 3 == 0) {
			uint32_t seqno;
			for (uint32_t k = 0; k < 4; k++) {
				struct pm4_builder b;
				pm4_builder_init(&b, c.ib_cpu + (k + 1) * SLICE_DWORDS, SLICE_DWORDS);
				pm4_mem_write(&b, c.data_iova + 4ull * (PIPE_DATA + k), (const uint32_t[]){ k }, 1);
				s->requests++;
				client_submit_on(&c, k % 2 ? c.q2 : c.q, (k + 1) * SLICE_DWORDS * 4, pm4_builder_bytes(&b),
						 NULL, &seqno);
			}
		}
		client_close(&c);
	}
}

static uint64_t unmapped_iova(struct ferry_device *dev)
{
	uint64_t start = 0, size = 0;
	if (ferry_device_param(dev, MSM_PARAM_VA_START, &start) < 0 ||
	    ferry_device_param(dev, MSM_PARAM_VA_SIZE, &size) < 0 || size < 0x20000)
		return 0x100000000ull + 0xfff00000ull - 0x10000;
	return start + size - 0x10000; /* far above anything allocated */
}

/* Waits (polling events) until ctx is marked lost; false after 10 s. */
static bool await_lost(struct ferry_device *dev, struct ferry_context *ctx)
{
	for (long long end = soak_now_ms() + 10000; soak_now_ms() < end;) {
		ferry_device_poll_events(dev);
		if (ferry_context_lost(ctx) && ferry_context_fault(ctx, 0))
			return true;
		sleep_ms(2);
	}
	return false;
}

void soak_run_fault(const struct soak_env *env, struct soak_slot *s)
{
	bool passthrough_ok = true;
	uint32_t rnd = env->seed ^ (s->index * 104729u + 3);
	while (!soak_should_stop(env)) {
		struct client c;
		uint64_t failed_before = s->unexpected;
		s->requests++;
		int r = client_open(env, FERRY_POLICY_VALIDATED, &c);
		if (r < 0) {
			soak_fail(s, "connect/context: %s", strerror(-r));
			client_close(&c);
			sleep_ms(100);
			continue;
		}
		uint64_t bad = unmapped_iova(c.dev);
		/* Validated: the stray write is refused at submit; the context lives on and works. */
		struct pm4_builder b;
		pm4_builder_init(&b, c.ib_cpu, 1024);
		pm4_nop(&b, 2);
		pm4_mem_write(&b, bad, (const uint32_t[]){ 0xDEAD }, 1);
		uint32_t seqno;
		s->requests++;
		r = client_submit(&c, pm4_builder_bytes(&b), &seqno);
		if (r == 0)
			r = ferry_fence_wait(c.q, seqno, WAIT_NS);
		if (r != -EINVAL)
			soak_fail(s, "validated stray write: %d, want -EINVAL (%s)", r, ferry_device_last_error(c.dev));
		else if (ferry_context_lost(c.ctx))
			soak_fail(s, "a refused submit lost its context");
		s->requests++;
		r = write_pattern(&c, next_rand(&rnd), NULL);
		if (r != 0) {
			if (r == 1)
				s->wrong_bytes++;
			soak_fail(s, "validated context after a refusal: %d (%s)", r, ferry_device_last_error(c.dev));
		}
		/* Passthrough: the write reaches the GPU, faults, and the context is lost. */
		struct ferry_bo *ib = c.ib, *data = c.data;
		ferry_bo_close(ib);
		ferry_bo_close(data);
		ferry_queue_close(c.q);
		ferry_context_destroy(c.ctx);
		c.ib = c.data = NULL;
		c.q = NULL;
		c.ctx = NULL;
		r = passthrough_ok ? client_context(&c, FERRY_POLICY_PASSTHROUGH) : -EPERM;
		if (r == -EPERM) {
			/* ferryd without --allow-passthrough: only the refusal half is possible. */
			passthrough_ok = false;
			s->skipped++;
		} else if (r < 0) {
			soak_fail(s, "passthrough context: %s (%s)", strerror(-r), ferry_device_last_error(c.dev));
		} else {
			pm4_builder_init(&b, c.ib_cpu, 1024);
			pm4_nop(&b, 3);
			pm4_mem_write(&b, bad, (const uint32_t[]){ 0xDEAD }, 1);
			s->requests++;
			r = client_submit(&c, pm4_builder_bytes(&b), &seqno);
			/* Work queued behind the fault must complete (with an error), not hang. */
			uint32_t behind = seqno;
			for (uint32_t k = 1; r == 0 && k <= 3; k++) {
				struct pm4_builder ok;
				pm4_builder_init(&ok, c.ib_cpu + k * SLICE_DWORDS, SLICE_DWORDS);
				pm4_mem_write(&ok, c.data_iova, (const uint32_t[]){ k }, 1);
				s->requests++;
				client_submit_on(&c, c.q, k * SLICE_DWORDS * 4, pm4_builder_bytes(&ok), NULL, &behind);
			}
			if (r == 0)
				r = ferry_fence_wait(c.q, seqno, WAIT_NS);
			if (r >= 0 || !ferry_fence_signaled(c.q, seqno))
				soak_fail(s, "GPU fault: fence %d, want an error", r);
			else if (ferry_fence_wait(c.q, behind, WAIT_NS) == -ETIMEDOUT && !ferry_fence_signaled(c.q, behind))
				soak_fail(s, "GPU fault: the submits queued behind it never completed");
			else if (!await_lost(c.dev, c.ctx))
				soak_fail(s, "GPU fault: no fault report / lost context within 10 s");
		}
		if (s->unexpected == failed_before)
			s->rounds++;
		client_close(&c);
		/* Faults are logged and reported: a steady trickle, not a log flood. */
		sleep_ms(40);
	}
}

void soak_run_hang(const struct soak_env *env, struct soak_slot *s)
{
	while (!soak_should_stop(env)) {
		struct client c;
		s->requests++;
		int r = client_open(env, FERRY_POLICY_VALIDATED, &c);
		if (r < 0) {
			soak_fail(s, "connect/context: %s", strerror(-r));
			client_close(&c);
			sleep_ms(100);
			continue;
		}
		c.data_cpu[0] = 1;
		struct pm4_builder b;
		pm4_builder_init(&b, c.ib_cpu, 1024);
		pm4_nop(&b, 1);
		pm4_wait_mem(&b, WRITE_EQ, c.data_iova, 0xdead, 0xffffffffu); /* nobody writes it */
		uint32_t seqno;
		s->requests++;
		r = client_submit(&c, pm4_builder_bytes(&b), &seqno);
		/* A submit on the other queue, held by ferryd for the hung one: it must be released
		 * (with an error) when the hang is resolved. */
		uint32_t held = 0;
		struct ferry_fence_ref after = { ferry_queue_id(c.q), seqno };
		struct pm4_builder h;
		pm4_builder_init(&h, c.ib_cpu + SLICE_DWORDS, SLICE_DWORDS);
		pm4_mem_write(&h, c.data_iova + 4, (const uint32_t[]){ 5 }, 1);
		if (r == 0) {
			s->requests++;
			r = client_submit_on(&c, c.q2, SLICE_DWORDS * 4, pm4_builder_bytes(&h), &after, &held);
		}
		int64_t wait_ns = (int64_t)env->hangcheck_ms * 20 * 1000 * 1000 + WAIT_NS;
		if (r == 0)
			r = ferry_fence_wait(c.q, seqno, wait_ns);
		if (r != -ETIMEDOUT || !ferry_fence_signaled(c.q, seqno))
			soak_fail(s, "hang: fence %d%s, want -ETIMEDOUT from the hangcheck", r,
				  ferry_fence_signaled(c.q, seqno) ? "" : " (never completed)");
		else if (!await_lost(c.dev, c.ctx))
			soak_fail(s, "hang: no report / lost context within 10 s");
		else if (ferry_fence_wait(c.q2, held, WAIT_NS) == -ETIMEDOUT && !ferry_fence_signaled(c.q2, held))
			soak_fail(s, "hang: the submit held for the hung one was never released");
		else
			s->rounds++;
		client_close(&c);
		sleep_ms(100);
	}
}

/* ---- killed clients ---- */

enum victim_phase { V_CONNECTED, V_OBJECTS, V_SUBMITTED, V_MID_FRAME, V_STALLED, V_HELD, V_UNSYNCED };

static int raw_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (!path || strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Sends what the socket takes within ms; the bytes sent, or -errno when the peer is gone. */
static long raw_write(int fd, const void *data, size_t len, int ms)
{
	const uint8_t *p = data;
	size_t done = 0;
	long long end = soak_now_ms() + ms;
	while (done < len) {
		ssize_t n = send(fd, p + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return done ? (long)done : -errno;
		long long left = end - soak_now_ms();
		if (left <= 0)
			break;
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		poll(&pfd, 1, (int)left);
	}
	return (long)done;
}

/* Appends one encoded frame of m to b. */
static void encode(struct ferry_buf *b, enum ferry_msg_kind kind, uint32_t seq, struct ferry_msg *m)
{
	m->kind = kind;
	m->seq = seq;
	ferry_wire_encode(m, b);
}

static void encode_hello(struct ferry_buf *b, uint32_t seq)
{
	struct ferry_msg m = { 0 };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	encode(b, FERRY_MSG_HELLO, seq, &m);
}

static void tell(int fd, char ch)
{
	if (write(fd, &ch, 1) != 1)
		_exit(3);
}

/* The victim: does the work of its phase, says so, and waits to be killed. Never returns. */
static void victim(const struct soak_env *env, int ready, enum victim_phase phase)
{
	struct client c;
	if (ferry_device_open(env->uri, &c.dev) < 0)
		_exit(2);
	if (phase == V_CONNECTED)
		tell(ready, 'c');
	if (ferry_context_create(c.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c.ctx) < 0 ||
	    ferry_queue_create(c.ctx, 0, &c.q) < 0 || ferry_queue_create(c.ctx, 1, &c.q2) < 0)
		_exit(2);
	struct ferry_bo *extra[4];
	for (int i = 0; i < 4; i++)
		if (ferry_bo_new(c.ctx, 65536, MSM_BO_WC, &extra[i]) < 0)
			_exit(2);
	if (phase == V_OBJECTS)
		tell(ready, 'o');
	if (map_bo(c.ctx, 4096, &c.ib, &c.ib_cpu, &c.ib_iova) < 0 ||
	    map_bo(c.ctx, 4096, &c.data, &c.data_cpu, &c.data_iova) < 0)
		_exit(2);
	struct pm4_builder b;
	pm4_builder_init(&b, c.ib_cpu, 1024);
	if (phase == V_STALLED || phase == V_HELD)
		pm4_wait_mem(&b, WRITE_EQ, c.data_iova, 0x1234, 0xffffffffu);
	for (uint32_t i = 0; i < 32; i++)
		pm4_mem_write(&b, c.data_iova + 4 + i * 4, (const uint32_t[]){ 7 }, 1);
	uint32_t seqno;
	for (int i = 0; i < 16; i++)
		if (client_submit(&c, pm4_builder_bytes(&b), &seqno) < 0)
			_exit(2);
	if (phase == V_HELD) {
		/* Submits ferryd holds for the stalled queue: freed with the client, never run. */
		struct ferry_fence_ref after = { ferry_queue_id(c.q), seqno };
		uint32_t held;
		for (int i = 0; i < 64; i++)
			if (client_submit_on(&c, c.q2, 0, pm4_builder_bytes(&b), &after, &held) < 0)
				_exit(2);
	}
	if (phase == V_SUBMITTED || phase == V_STALLED || phase == V_HELD)
		tell(ready, 's');
	if (phase == V_MID_FRAME) {
		/* Half of a submit frame on a second connection. */
		struct ferry_buf buf;
		ferry_buf_init(&buf);
		encode_hello(&buf, 1);
		size_t hello_len = buf.len;
		struct ferry_msm_submit_bo sb = { 1, MSM_SUBMIT_BO_READ };
		struct ferry_msm_submit_cmd sc = { 1, 0, 0, 4 };
		struct ferry_msg m = { 0 };
		m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .seqno = 1, .nr_bos = 1, .bos = &sb,
							    .nr_cmds = 1, .cmds = &sc };
		encode(&buf, FERRY_MSG_MSM_SUBMIT, 2, &m);
		int fd = raw_connect(env->socket_path);
		if (fd >= 0)
			raw_write(fd, buf.data, hello_len + (buf.len - hello_len) / 2, 1000);
		tell(ready, 'm');
	}
	for (;;)
		pause();
}

void soak_run_kill(const struct soak_env *env, struct soak_slot *s)
{
	static const enum victim_phase phases[] = { V_CONNECTED, V_OBJECTS, V_SUBMITTED, V_MID_FRAME,
						    V_UNSYNCED, V_SUBMITTED, V_OBJECTS, V_MID_FRAME };
	uint32_t rnd = env->seed ^ (s->index * 31337u + 5);
	for (unsigned i = 0; !soak_should_stop(env); i++) {
		enum victim_phase phase = phases[i % 8];
		if (i % 50 == 25)
			phase = i % 100 == 25 ? V_STALLED : V_HELD; /* few: each holds its queue until cancelled */
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0) {
			soak_fail(s, "pipe: %s", strerror(errno));
			break;
		}
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			soak_fail(s, "fork: %s", strerror(errno));
			close(p[0]);
			close(p[1]);
			sleep_ms(100);
			continue;
		}
		if (pid == 0) {
			close(p[0]);
			if (!strncmp(env->gpu, "v3d-", 4))
				soak_v3d_victim(env, p[1], phase == V_CONNECTED ? 0 : 1);
			victim(env, p[1], phase);
		}
		close(p[1]);
		s->requests++;
		if (phase == V_UNSYNCED) {
			nanosleep(&(struct timespec){ 0, (long)(next_rand(&rnd) % 5000) * 1000 }, NULL);
			s->rounds++;
		} else {
			struct pollfd pfd = { .fd = p[0], .events = POLLIN };
			char ch;
			if (poll(&pfd, 1, 20000) == 1 && read(p[0], &ch, 1) == 1)
				s->rounds++;
			else
				soak_fail(s, "victim in phase %d failed or stalled before it was killed", phase);
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(p[0]);
	}
}

/* ---- slow readers and flooders (raw sockets) ---- */

/* ferryd's fds beyond its BOs' own (each holds one fd), as a range: the fd count is read before
 * and after the status that gives the BO count, and another client creating or closing BOs
 * meanwhile (the greedy one makes 4096) moves the fds between the two reads. A few tries look
 * for a reading where they did not move (exact); else the last try's range. The lower end is
 * what ferryd surely held, the higher what it may have held. false: no reading. */
static bool fds_beyond_bos(const struct soak_env *env, long long *low, long long *high)
{
	bool got = false;
	for (int t = 0; t < 5 && env->ferryd_pid > 0; t++) {
		struct soak_probe p;
		if (soak_probe(env->control, env->ferryd_pid, &p, NULL) < 0 || p.fds < 0 || p.bos < 0)
			return got;
		long long after = ferryd_proc_fd_count(env->ferryd_pid);
		if (after < 0)
			return got;
		*low = (p.fds < after ? p.fds : after) - p.bos;
		*high = (p.fds > after ? p.fds : after) - p.bos;
		got = true;
		if (*low == *high)
			break;
	}
	return got;
}

void soak_run_slow(const struct soak_env *env, struct soak_slot *s)
{
	while (!soak_should_stop(env)) {
		int fd = raw_connect(env->socket_path);
		if (fd < 0) {
			soak_fail(s, "connect: %s", strerror(-fd));
			sleep_ms(100);
			continue;
		}
		/* What ferryd may have held before us, against what it surely holds after. */
		long long before = 0, before_low;
		bool measured = fds_beyond_bos(env, &before_low, &before);
		struct ferry_buf buf;
		ferry_buf_init(&buf);
		encode_hello(&buf, 1);
		struct ferry_msg m = { 0 };
		bool v3d = !strncmp(env->gpu, "v3d-", 4);
		m.u.context_create = (struct ferry_context_create){ 1, v3d ? FERRY_FAMILY_V3D : FERRY_FAMILY_MSM,
								    FERRY_POLICY_VALIDATED };
		encode(&buf, FERRY_MSG_CONTEXT_CREATE, 2, &m);
		for (uint32_t i = 1; i <= SOAK_SLOW_BOS; i++) {
			memset(&m, 0, sizeof(m));
			m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = i, .size = 4096,
								  .flags = v3d ? 0 : MSM_BO_WC };
			encode(&buf, FERRY_MSG_BO_CREATE, 2 + i, &m);
		}
		/* All at once, never reading: ferryd must stop reading us or drop us, not wait on us. */
		long sent = raw_write(fd, buf.data, buf.len, 3000);
		s->requests += SOAK_SLOW_BOS + 2;
		ferry_buf_free(&buf);
		if (sent < 0 && sent != -EPIPE && sent != -ECONNRESET)
			soak_fail(s, "send: %s", strerror((int)-sent));
		/* Hold the connection a second. What ferryd keeps beyond BO fds *throughout* (the least
		 * over the samples: other clients' replies in flight come and go) is pinned for us. */
		long long least = -1;
		sleep_ms(100);
		for (int t = 0; t < 10 && !soak_should_stop(env) && measured; t++) {
			long long now, now_high;
			if (fds_beyond_bos(env, &now, &now_high) && (least < 0 || now - before < least))
				least = now - before > 0 ? now - before : 0;
			sleep_ms(100);
		}
		if (least > (long long)s->pinned_fds)
			s->pinned_fds = (uint64_t)least;
		close(fd);
		s->rounds++;
		sleep_ms(200);
	}
}

/* Reads (and drops) until EOF; false if the peer has not hung up within ms. */
static bool await_hangup(int fd, int ms)
{
	char sink[4096];
	for (long long end = soak_now_ms() + ms;;) {
		long long left = end - soak_now_ms();
		if (left <= 0)
			return false;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return true;
	}
}

void soak_run_flood(const struct soak_env *env, struct soak_slot *s)
{
	uint32_t rnd = env->seed ^ (s->index * 65599u + 7);
	uint8_t junk[4096];
	for (unsigned i = 0; !soak_should_stop(env); i++) {
		int fd = raw_connect(env->socket_path);
		s->requests++;
		if (fd < 0) {
			/* A full fd table sheds connections by design; anything else is unexpected. */
			if (fd != -ECONNREFUSED && fd != -EAGAIN)
				soak_fail(s, "connect: %s", strerror(-fd));
			sleep_ms(10);
			continue;
		}
		for (size_t k = 0; k < sizeof(junk); k++)
			junk[k] = (uint8_t)next_rand(&rnd);
		struct ferry_buf buf;
		ferry_buf_init(&buf);
		switch (i % 6) {
		case 0: /* connect and drop */
			break;
		case 1: /* hello, then drop without reading the reply */
			encode_hello(&buf, 1);
			break;
		case 2: /* hello, then more malformed frames than ferryd tolerates */
			encode_hello(&buf, 1);
			for (int f = 0; f < 80; f++) {
				uint32_t len = 16 + next_rand(&rnd) % 48;
				ferry_buf_append(&buf, &len, 4);
				ferry_buf_append(&buf, junk + f * 48, len);
			}
			break;
		case 3: { /* a header announcing more than the frame limit */
			uint32_t len = 0xfffffff0u;
			ferry_buf_append(&buf, &len, 4);
			break;
		}
		case 4: { /* hello and half of a context-create frame */
			encode_hello(&buf, 1);
			struct ferry_msg m = { 0 };
			m.u.context_create = (struct ferry_context_create){ 1, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED };
			size_t before = buf.len;
			encode(&buf, FERRY_MSG_CONTEXT_CREATE, 2, &m);
			buf.len = before + (buf.len - before) / 2;
			break;
		}
		default: /* raw noise */
			ferry_buf_append(&buf, junk, sizeof(junk));
			break;
		}
		long sent = buf.len ? raw_write(fd, buf.data, buf.len, 200) : 0;
		ferry_buf_free(&buf);
		/* Closing at once would often make ferryd drop us on its hello reply (EPIPE) before it
		 * reads the junk: stay until it hangs up, as it must after 64 malformed frames. */
		if (i % 6 == 2 && sent > 0 && !await_hangup(fd, 5000))
			soak_fail(s, "ferryd kept a client that sent 80 malformed frames for 5 s");
		close(fd);
		s->rounds++;
		sleep_ms(2);
	}
}

/* ---- heavy submits ---- */

#define HEAVY_IB2_BYTES (256u * 1024u)
#define HEAVY_IB2_REFS 32u
#define HEAVY_IN_FLIGHT 4u

/* Submits ferryd must work hard to validate and then refuses: an IB1 that calls a 256 KiB IB2 of
 * one-dword CP_MEM_WRITEs 32 times (512 Ki packets walked, 8 MiB copied) and ends in a privileged
 * packet. The GPU never sees them, so what the good clients feel is ferryd's loop, not GPU time.
 * A few in flight, then one checked write. */
void soak_run_heavy(const struct soak_env *env, struct soak_slot *s)
{
	uint32_t rnd = env->seed ^ (s->index * 48271u + 11);
	while (!soak_should_stop(env)) {
		struct client c;
		struct ferry_bo *ib2 = NULL;
		uint32_t *ib2_cpu = NULL;
		uint64_t ib2_iova = 0;
		s->requests++;
		int r = client_open(env, FERRY_POLICY_VALIDATED, &c);
		if (r == 0)
			r = map_bo(c.ctx, HEAVY_IB2_BYTES, &ib2, &ib2_cpu, &ib2_iova);
		if (r < 0) {
			soak_fail(s, "connect/context/BOs: %s", strerror(-r));
			if (ib2)
				ferry_bo_close(ib2);
			client_close(&c);
			sleep_ms(100);
			continue;
		}
		struct pm4_builder b;
		pm4_builder_init(&b, ib2_cpu, HEAVY_IB2_BYTES / 4);
		for (uint32_t k = 0; b.len + 4 <= HEAVY_IB2_BYTES / 4 - 16; k++)
			pm4_mem_write(&b, c.data_iova + 4ull * (k % 32), (const uint32_t[]){ k }, 1);
		uint32_t ib2_dwords = b.len;
		/* The refused packet sits in an IB2 of its own, called last: everything before it is
		 * walked first, whatever order the validator takes the IB1 and its IB2s in. */
		PM4_PKT7(&b, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0);
		uint64_t bad_iova = ib2_iova + 4ull * ib2_dwords;
		uint32_t bad_dwords = b.len - ib2_dwords;
		unsigned rounds = 20 + next_rand(&rnd) % 40;
		for (unsigned i = 0; i < rounds && !soak_should_stop(env) && r >= 0; i++) {
			uint32_t seqno = 0;
			uint64_t t0 = soak_now_us();
			for (uint32_t k = 0; k < HEAVY_IN_FLIGHT && r >= 0; k++) {
				pm4_builder_init(&b, c.ib_cpu + k * SLICE_DWORDS * 3, SLICE_DWORDS * 3);
				/* Each call starts one packet later: distinct streams, each walked and copied. */
				for (uint32_t j = 0; j < HEAVY_IB2_REFS; j++)
					pm4_ib(&b, ib2_iova + 16ull * j, ib2_dwords - 4 * j);
				pm4_ib(&b, bad_iova, bad_dwords);
				s->requests++;
				r = pm4_builder_ok(&b) ? client_submit_on(&c, c.q, k * SLICE_DWORDS * 12, pm4_builder_bytes(&b),
									  NULL, &seqno)
						       : -EINVAL;
				if (r == 0)
					r = ferry_fence_wait(c.q, seqno, WAIT_NS * 3);
				if (r == -EPERM)
					r = 0; /* refused, as it must be */
				else if (r == 0)
					r = -EPROTO;
			}
			s->requests++;
			if (r == 0)
				r = write_pattern(&c, next_rand(&rnd), NULL);
			soak_hist_add(&s->lat, soak_now_us() - t0);
			if (r < 0) {
				soak_fail(s, "heavy submits: %s (%s)", strerror(-r), ferry_device_last_error(c.dev));
				break;
			}
			if (r == 1) {
				s->wrong_bytes++;
				soak_fail(s, "heavy client: wrong bytes after its refused submits");
			} else {
				s->rounds++;
			}
		}
		ferry_bo_close(ib2);
		client_close(&c);
	}
}

/* ---- greedy clients ---- */

#define GREEDY_MAX_CONTEXTS 64
#define GREEDY_BOS 4096

/* Takes what its quotas allow: contexts (each with a queue) until ferryd says -EDQUOT, then
 * thousands of BOs in one of them; checks one still works, and lets it all go at once. */
void soak_run_greedy(const struct soak_env *env, struct soak_slot *s)
{
	static struct ferry_bo *bos[GREEDY_BOS];
	uint32_t rnd = env->seed ^ (s->index * 69069u + 13);
	while (!soak_should_stop(env)) {
		struct client c;
		struct ferry_context *ctxs[GREEDY_MAX_CONTEXTS];
		struct ferry_queue *qs[GREEDY_MAX_CONTEXTS];
		unsigned n = 0, nbos = 0;
		s->requests++;
		int r = client_open(env, FERRY_POLICY_VALIDATED, &c);
		for (; r == 0 && n < GREEDY_MAX_CONTEXTS; n++) {
			s->requests++;
			r = ferry_context_create(c.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctxs[n]);
			if (r == 0 && ferry_queue_create(ctxs[n], 0, &qs[n]) < 0)
				qs[n] = NULL;
			if (r < 0)
				break;
		}
		if (r != -EDQUOT) {
			soak_fail(s, "context %u: %s, want -EDQUOT at the quota (%s)", n, strerror(-r),
				  c.dev ? ferry_device_last_error(c.dev) : "");
		} else {
			/* BO creation is pipelined: a refusal (a BO quota lower than ours) shows on map. */
			for (; nbos < GREEDY_BOS; nbos++) {
				s->requests++;
				if (ferry_bo_new(c.ctx, 4096, MSM_BO_WC, &bos[nbos]) < 0)
					break;
			}
			void *p;
			r = nbos ? ferry_bo_map(bos[nbos - 1], &p) : 0;
			if (r < 0 && r != -EDQUOT)
				soak_fail(s, "%u BOs: %s (%s)", nbos, strerror(-r), ferry_device_last_error(c.dev));
			s->requests++;
			r = write_pattern(&c, next_rand(&rnd), NULL);
			if (r == 1)
				s->wrong_bytes++;
			if (r != 0)
				soak_fail(s, "after taking its quota: %d (%s)", r, ferry_device_last_error(c.dev));
			else
				s->rounds++;
		}
		/* Half the time close everything one by one; else just hang up. */
		if (next_rand(&rnd) % 2) {
			for (unsigned i = 0; i < nbos; i++)
				ferry_bo_close(bos[i]);
			for (unsigned i = 0; i < n; i++) {
				if (qs[i])
					ferry_queue_close(qs[i]);
				ferry_context_destroy(ctxs[i]);
			}
		} else {
			/* ferry_device_close frees what is left, client side as host side. */
		}
		client_close(&c);
		sleep_ms(100);
	}
}
