/* `ferry bench --isolation`: how well one ferryd keeps clients apart. A good client's submit+wait
 * and connect+HELLO latencies, alone and while another client in turn loops the GPU in 16
 * contexts, sends maximum-cost validation submits, floods connections and stops reading its
 * replies; all in one run against one ferryd, as figures and ratios to "alone". Nothing passes or
 * fails here. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uri.h"
#include "transport.h"
#include "bench_isolation.h"
#include "bench_stats.h"
#include "ferry/ferry.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/wire.h"
#include "pm4_builder.h"
#include "pm4_workload.h"

#define GOOD_STREAM_BYTES (16u << 10)
#define HELLO_SAMPLES     30
#define HOSTILE_CONTEXTS  16
#define FLOOD_THREADS     4
#define FLOOD_OPEN        64 /* connections each flood thread keeps open */
#define MAXCOST_CMDS      16
#define MAXCOST_CMD_DW    0xffffeu /* an even count of dwords: type-4 pairs up to the IB size cap */

/* ---- the hostile client ---- */

enum hostile_kind { H_NONE, H_GPU_WAIT, H_GPU_SPIN, H_MAXCOST, H_FLOOD, H_NOREAD, H_COUNT };

static const char *const scenario_names[H_COUNT] = {
	[H_NONE] = "alone",
	[H_GPU_WAIT] = "16 ctx loop GPU: CP_WAIT_REG_MEM",
	[H_GPU_SPIN] = "16 ctx loop GPU: IB chain spin",
	[H_MAXCOST] = "max-cost validation submits",
	[H_FLOOD] = "connection flood (4 x 64 tries)",
	[H_NOREAD] = "client not reading replies",
};

/* Shared (MAP_SHARED) with the child process the hostile threads run in: another program to
 * ferryd (its own peer pid, as a real neighbour is), with stop and the counters in common. */
struct hostile {
	const char *uri;
	enum hostile_kind kind;
	atomic_bool stop;
	atomic_ulong ops;    /* the hostile's work done: submits, connections, frames */
	atomic_ulong resets; /* contexts lost to hangcheck and re-made, disconnects */
	pthread_t threads[FLOOD_THREADS]; /* the child's */
	int nr_threads;
	pid_t child;
};

struct hctx {
	struct ferry_context *ctx;
	struct ferry_queue *q;
	struct ferry_bo *cmd, *data;
	uint32_t bytes, seqno;
};

static void hctx_free(struct hctx *c)
{
	ferry_bo_close(c->cmd);
	ferry_bo_close(c->data);
	ferry_queue_close(c->q);
	ferry_context_destroy(c->ctx);
	memset(c, 0, sizeof(*c));
}

/* A context whose one cmd never finishes: a wait on memory that stays 0, or an IB that chains to
 * itself. Either is ended by hangcheck, which marks the context lost. */
static int hctx_make(struct ferry_device *dev, bool spin, struct hctx *c)
{
	memset(c, 0, sizeof(*c));
	void *map;
	uint64_t cmd_iova, data_iova;
	int r = ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &c->ctx);
	if (r == 0)
		r = ferry_queue_create(c->ctx, 0, &c->q);
	if (r == 0)
		r = ferry_bo_new(c->ctx, 64 << 10, MSM_BO_WC, &c->cmd);
	if (r == 0)
		r = ferry_bo_new(c->ctx, 4096, MSM_BO_WC, &c->data);
	if (r == 0)
		r = ferry_bo_map(c->cmd, &map);
	if (r == 0)
		r = ferry_bo_iova(c->cmd, &cmd_iova);
	if (r == 0)
		r = ferry_bo_iova(c->data, &data_iova);
	if (r < 0) {
		hctx_free(c);
		return r;
	}
	struct pm4_builder b;
	pm4_builder_init(&b, map, (64 << 10) / 4);
	if (spin) {
		for (int i = 0; i < 8000; i++)
			pm4_nop(&b, 0);
		pm4_ib_chain(&b, cmd_iova, 8004);
	} else {
		pm4_wait_mem(&b, WRITE_EQ, data_iova, 1, 0xffffffff);
	}
	c->bytes = pm4_builder_bytes(&b);
	return pm4_builder_ok(&b) ? 0 : -EINVAL;
}

static int hctx_submit(struct hostile *h, struct hctx *c)
{
	struct ferry_cmd cmd = { .bo = c->cmd, .offset = 0, .size = c->bytes };
	struct ferry_submit_bo bo = { c->data, MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &bo, .nr_bos = 1 };
	int r = ferry_submit(c->q, &s, &c->seqno);
	if (r == 0)
		atomic_fetch_add(&h->ops, 1);
	return r;
}

/* Keeps 16 contexts' GPU work looping: a context whose submit hung (lost) is made again. */
static void *gpu_loop_thread(void *p)
{
	struct hostile *h = p;
	struct ferry_device *dev;
	if (ferry_device_open(h->uri, &dev) < 0)
		return NULL;
	bool spin = h->kind == H_GPU_SPIN;
	struct hctx c[HOSTILE_CONTEXTS] = { 0 };
	while (!atomic_load(&h->stop)) {
		usleep(1000);
		for (int i = 0; i < HOSTILE_CONTEXTS && !atomic_load(&h->stop); i++) {
			if (!c[i].ctx) {
				if (hctx_make(dev, spin, &c[i]) < 0 || hctx_submit(h, &c[i]) < 0) {
					hctx_free(&c[i]);
					continue;
				}
			}
			if (!ferry_fence_signaled(c[i].q, c[i].seqno))
				continue;
			ferry_fence_wait(c[i].q, c[i].seqno, 1000000000); /* collects the hang's error */
			/* Done (hung and recovered): the context is lost; make it again. */
			hctx_free(&c[i]);
			atomic_fetch_add(&h->resets, 1);
		}
	}
	for (int i = 0; i < HOSTILE_CONTEXTS; i++)
		hctx_free(&c[i]);
	ferry_device_close(dev);
	return NULL;
}

/* Submits of 16 cmds of ~1 Mi dwords of type-4 register writes each: the most validation work
 * one legal submit may ask for. Two in flight. */
static void *maxcost_thread(void *p)
{
	struct hostile *h = p;
	struct ferry_device *dev;
	struct ferry_context *ctx = NULL;
	struct ferry_queue *q = NULL;
	struct ferry_bo *bo = NULL;
	void *map;
	const uint64_t stride = 4u << 20;
	if (ferry_device_open(h->uri, &dev) < 0)
		return NULL;
	int r = ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx);
	if (r == 0)
		r = ferry_queue_create(ctx, 0, &q);
	if (r == 0)
		r = ferry_bo_new(ctx, stride * MAXCOST_CMDS, MSM_BO_WC, &bo);
	if (r == 0)
		r = ferry_bo_map(bo, &map);
	if (r == 0) {
		uint32_t *d = map;
		for (uint64_t i = 0; i + 1 < stride * MAXCOST_CMDS / 4; i += 2) {
			d[i] = pm4_type4_hdr(0x8000, 1);
			d[i + 1] = (uint32_t)i;
		}
		struct ferry_cmd cmds[MAXCOST_CMDS];
		for (int i = 0; i < MAXCOST_CMDS; i++)
			cmds[i] = (struct ferry_cmd){ .bo = bo, .offset = (uint32_t)(stride * (uint64_t)i),
						      .size = MAXCOST_CMD_DW * 4 };
		struct ferry_submit s = { .cmds = cmds, .nr_cmds = MAXCOST_CMDS };
		uint32_t prev = 0, seqno;
		while (!atomic_load(&h->stop)) {
			if (ferry_submit(q, &s, &seqno) < 0)
				break;
			atomic_fetch_add(&h->ops, 1);
			if (prev && ferry_fence_wait(q, prev, 30000000000ll) < 0)
				atomic_fetch_add(&h->resets, 1);
			prev = seqno;
		}
		if (prev)
			ferry_fence_wait(q, prev, 30000000000ll);
	}
	ferry_bo_close(bo);
	ferry_queue_close(q);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	return NULL;
}

/* Keeps FLOOD_OPEN connections open, closing the oldest and opening a new one (connect +
 * handshake) in a loop. */
static void *flood_thread(void *p)
{
	struct hostile *h = p;
	struct ferry_device *open[FLOOD_OPEN] = { 0 };
	for (unsigned i = 0; !atomic_load(&h->stop); i = (i + 1) % FLOOD_OPEN) {
		if (open[i]) {
			ferry_device_close(open[i]);
			open[i] = NULL;
		}
		if (ferry_device_open(h->uri, &open[i]) == 0) {
			atomic_fetch_add(&h->ops, 1);
		} else {
			open[i] = NULL;
			atomic_fetch_add(&h->resets, 1);
		}
	}
	for (int i = 0; i < FLOOD_OPEN; i++)
		if (open[i])
			ferry_device_close(open[i]);
	return NULL;
}

/* A raw connection for the hostile clients that misbehave below libferry: unix or tcp, as the
 * good client's (a never-reading peer costs ferryd the same over either). */
static int raw_connect(const char *uri)
{
	struct ferry_uri u;
	if (ferry_uri_parse(uri, &u, NULL, 0) < 0)
		return -EINVAL;
	if (u.kind == FERRY_URI_TCP)
		return ferry_tcp_connect(u.host, u.port);
	if (u.kind != FERRY_URI_UNIX)
		return -EPROTONOSUPPORT;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, u.path, strlen(u.path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* Sends DEVICE_QUERY requests (the largest reply) and never reads: ferryd queues the replies
 * until its cap and cuts the connection; then again. */
static void *noread_thread(void *p)
{
	struct hostile *h = p;
	struct ferry_msg m = { .kind = FERRY_MSG_DEVICE_QUERY, .seq = 1 };
	struct ferry_buf frame;
	ferry_buf_init(&frame);
	if (ferry_wire_encode(&m, &frame) < 0)
		return NULL;
	while (!atomic_load(&h->stop)) {
		int fd = raw_connect(h->uri);
		if (fd < 0) {
			usleep(1000);
			continue;
		}
		size_t off = 0;
		while (!atomic_load(&h->stop)) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			if (poll(&pfd, 1, 100) <= 0)
				continue;
			if (pfd.revents & (POLLERR | POLLHUP))
				break;
			ssize_t n = send(fd, frame.data + off, frame.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				break;
			off += (size_t)n;
			if (off == frame.len) {
				off = 0;
				atomic_fetch_add(&h->ops, 1);
			}
		}
		close(fd);
		atomic_fetch_add(&h->resets, 1);
	}
	ferry_buf_free(&frame);
	return NULL;
}

static int hostile_start(struct hostile *h)
{
	void *(*fn)(void *) = NULL;
	int n = 1;
	switch (h->kind) {
	case H_NONE: return 0;
	case H_GPU_WAIT:
	case H_GPU_SPIN: fn = gpu_loop_thread; break;
	case H_MAXCOST: fn = maxcost_thread; break;
	case H_FLOOD: fn = flood_thread; n = FLOOD_THREADS; break;
	case H_NOREAD: fn = noread_thread; break;
	case H_COUNT: return -EINVAL;
	}
	h->child = fork();
	if (h->child < 0)
		return -errno;
	if (h->child == 0) {
		for (int i = 0; i < n; i++) {
			if (pthread_create(&h->threads[i], NULL, fn, h) != 0)
				break;
			h->nr_threads++;
		}
		for (int i = 0; i < h->nr_threads; i++)
			pthread_join(h->threads[i], NULL);
		_exit(h->nr_threads == n ? 0 : 1);
	}
	/* Until it is at work (its first submits, connections or frames), at most 10 s. */
	unsigned long want = h->kind == H_GPU_WAIT || h->kind == H_GPU_SPIN ? HOSTILE_CONTEXTS
			     : h->kind == H_MAXCOST ? 2 : h->kind == H_FLOOD ? 2 * FLOOD_OPEN : 10000;
	for (int i = 0; i < 1000 && atomic_load(&h->ops) < want; i++)
		usleep(10000);
	return 0;
}

static void hostile_stop(struct hostile *h)
{
	atomic_store(&h->stop, true);
	if (h->child > 0) {
		int st;
		while (waitpid(h->child, &st, 0) < 0 && errno == EINTR)
			;
		h->child = 0;
	}
}

/* ---- the good client ---- */

struct good {
	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *q;
	struct ferry_bo *cmd, *state, *data;
	struct ferry_submit_bo bos[2];
	struct ferry_cmd c;
	struct ferry_submit s;
	uint32_t bytes;
};

static int good_open(const char *uri, struct good *g)
{
	memset(g, 0, sizeof(*g));
	void *cmd_map, *state_map;
	uint64_t state_iova, data_iova;
	int r = ferry_device_open(uri, &g->dev);
	if (r < 0)
		return r;
	r = ferry_context_create(g->dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &g->ctx);
	if (r == 0)
		r = ferry_queue_create(g->ctx, 0, &g->q);
	if (r == 0)
		r = ferry_bo_new(g->ctx, GOOD_STREAM_BYTES, MSM_BO_WC, &g->cmd);
	if (r == 0)
		r = ferry_bo_new(g->ctx, PM4_WORKLOAD_STATE_BYTES, MSM_BO_WC, &g->state);
	if (r == 0)
		r = ferry_bo_new(g->ctx, PM4_WORKLOAD_DATA_MIN_BYTES, MSM_BO_WC, &g->data);
	if (r == 0)
		r = ferry_bo_map(g->cmd, &cmd_map);
	if (r == 0)
		r = ferry_bo_map(g->state, &state_map);
	if (r == 0)
		r = ferry_bo_iova(g->state, &state_iova);
	if (r == 0)
		r = ferry_bo_iova(g->data, &data_iova);
	if (r < 0) {
		fprintf(stderr, "bench: good client: %s\n", ferry_device_last_error(g->dev));
		return r;
	}
	pm4_workload_states(state_map);
	const struct pm4_workload w = { state_iova, data_iova, PM4_WORKLOAD_DATA_MIN_BYTES };
	g->bytes = pm4_workload_stream(&w, cmd_map, GOOD_STREAM_BYTES);
	g->c = (struct ferry_cmd){ .bo = g->cmd, .offset = 0, .size = g->bytes };
	g->bos[0] = (struct ferry_submit_bo){ g->state, MSM_SUBMIT_BO_READ };
	g->bos[1] = (struct ferry_submit_bo){ g->data, MSM_SUBMIT_BO_WRITE };
	g->s = (struct ferry_submit){ .cmds = &g->c, .nr_cmds = 1, .bos = g->bos, .nr_bos = 2 };
	return 0;
}

static void good_close(struct good *g)
{
	ferry_bo_close(g->cmd);
	ferry_bo_close(g->state);
	ferry_bo_close(g->data);
	ferry_queue_close(g->q);
	ferry_context_destroy(g->ctx);
	ferry_device_close(g->dev);
}

struct result {
	bool ok;
	int failures;
	int samples;
	double med_us, p99_us, max_us;        /* submit+wait */
	double hello_med_us, hello_p99_us;    /* connect + HELLO (ferry_device_open) */
	unsigned long hostile_ops, hostile_resets;
};

/* At least iters submit+waits and at least MEASURE_MIN_US, so that the hostile has time to do
 * what it does (hangcheck needs 500 ms to end a loop) while the good client is measured. */
#define MEASURE_MIN_US 3e6
#define MAX_SAMPLES    200000

static void measure(const char *uri, struct good *g, int iters, struct result *res)
{
	double *lat = calloc(MAX_SAMPLES, sizeof(double));
	double hello[HELLO_SAMPLES];
	int n = 0, nh = 0;
	if (!lat)
		return;
	double start = bench_now_us(), next_hello = start;
	for (int i = 0; n < MAX_SAMPLES && (i < iters || bench_now_us() - start < MEASURE_MIN_US); i++) {
		uint32_t seqno;
		double t0 = bench_now_us();
		int r = ferry_submit(g->q, &g->s, &seqno);
		if (r == 0)
			r = ferry_fence_wait(g->q, seqno, 10000000000ll);
		if (r < 0) {
			res->failures++;
			continue;
		}
		lat[n++] = bench_now_us() - t0;
		/* A handshake now and then, spread over the measurement. */
		if (nh < HELLO_SAMPLES && t0 >= next_hello) {
			struct ferry_device *d;
			next_hello = t0 + MEASURE_MIN_US / HELLO_SAMPLES;
			t0 = bench_now_us();
			if (ferry_device_open(uri, &d) == 0) {
				hello[nh++] = bench_now_us() - t0;
				ferry_device_close(d);
			} else {
				res->failures++;
			}
		}
	}
	res->samples = n;
	res->ok = n > 0;
	res->med_us = bench_percentile(lat, n, 50);
	res->p99_us = bench_percentile(lat, n, 99);
	res->max_us = bench_percentile(lat, n, 100);
	res->hello_med_us = bench_percentile(hello, nh, 50);
	res->hello_p99_us = bench_percentile(hello, nh, 99);
	free(lat);
}

int bench_isolation(const char *uri, int iters)
{
	struct good g;
	if (good_open(uri, &g) < 0)
		return 1;
	/* Warm up (shadow pool, caches) before anything is measured. */
	for (int i = 0; i < 20; i++) {
		uint32_t seqno;
		if (ferry_submit(g.q, &g.s, &seqno) == 0)
			ferry_fence_wait(g.q, seqno, 10000000000ll);
	}
	struct result res[H_COUNT] = { 0 };
	for (int k = 0; k < H_COUNT; k++) {
		struct hostile *h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (h == MAP_FAILED) {
			fprintf(stderr, "bench: cannot map the hostile client's counters: %s\n", strerror(errno));
			continue;
		}
		*h = (struct hostile){ .uri = uri, .kind = (enum hostile_kind)k };
		if (hostile_start(h) < 0) {
			hostile_stop(h);
			munmap(h, sizeof(*h));
			fprintf(stderr, "bench: cannot start the hostile client for '%s'\n", scenario_names[k]);
			continue;
		}
		measure(uri, &g, iters, &res[k]);
		res[k].hostile_ops = atomic_load(&h->ops);
		res[k].hostile_resets = atomic_load(&h->resets);
		hostile_stop(h);
		munmap(h, sizeof(*h));
		/* Let the GPU and ferryd drain what the hostile left before the next scenario. */
		usleep(300000);
	}
	good_close(&g);

	const struct result *a = &res[H_NONE];
	printf("ferry bench --isolation: one ferryd; a good client's submit+wait of a %u-byte validated\n"
	       "Turnip-like stream (at least %d iterations and %.0f s per scenario) and connect+HELLO (%d\n"
	       "samples), alone and while another client misbehaves. Figures from one run on this machine\n"
	       "(the hostile client is a child process: it shares the CPUs), not pass/fail.\n\n",
	       g.bytes, iters, MEASURE_MIN_US / 1e6, HELLO_SAMPLES);
	printf("%-34s %7s %9s %9s %9s %8s %8s %10s %10s %6s\n", "scenario", "samples", "median", "p99", "max",
	       "med x", "p99 x", "HELLO med", "HELLO p99", "fails");
	printf("%-34s %7s %9s %9s %9s %8s %8s %10s %10s %6s\n", "", "", "(us)", "(us)", "(us)", "alone", "alone", "(us)",
	       "(us)", "");
	for (int k = 0; k < H_COUNT; k++) {
		const struct result *r = &res[k];
		if (!r->ok) {
			printf("%-34s %9s\n", scenario_names[k], "failed");
			continue;
		}
		printf("%-34s %7d %9.0f %9.0f %9.0f %7.1fx %7.1fx %10.0f %10.0f %6d\n", scenario_names[k], r->samples, r->med_us,
		       r->p99_us, r->max_us, a->ok ? r->med_us / a->med_us : 0, a->ok ? r->p99_us / a->p99_us : 0,
		       r->hello_med_us, r->hello_p99_us, r->failures);
	}
	printf("\nhostile activity during each measurement:\n");
	static const char *const what[H_COUNT] = {
		[H_GPU_WAIT] = "submits hanging in CP_WAIT_REG_MEM, %lu contexts lost to hangcheck and re-made",
		[H_GPU_SPIN] = "submits spinning in an IB chain, %lu contexts lost to hangcheck and re-made",
		[H_MAXCOST] = "submits of 16 x 1 Mi dwords of type-4 writes (%lu fence errors)",
		[H_FLOOD] = "connections opened with a handshake (%lu refused)",
		[H_NOREAD] = "DEVICE_QUERY frames sent, never reading; %lu times cut off by ferryd",
	};
	for (int k = 1; k < H_COUNT; k++)
		if (res[k].ok) {
			printf("  %-34s %lu ", scenario_names[k], res[k].hostile_ops);
			printf(what[k], res[k].hostile_resets);
			printf("\n");
		}
	printf("x alone = figure / the same figure alone (1.0 = no effect)\n");
	return 0;
}
