/* `ferry bench`: the same three workloads through a spawned ferryd and through the simulator
 * called in-process (no boundary), with the ratio, plus the socket round-trip floor; then PM4
 * validation: its in-process copy+validate throughput, and the submit cost of a realistic
 * stream through ferryd in a validated vs a passthrough context. Figures from one run on one
 * machine; nothing here passes or fails. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "backend/kdev.h"
#include "ferry/uapi/msm_drm.h"
#include "bench_isolation.h"
#include "bench_network.h"
#include "bench_scale.h"
#include "bench_v3d.h"
#include "bench_vulkan.h"
#include "ferry/ferry.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferryd_spawn.h"
#include "pm4_workload.h"
#include "sim/msm/sim_msm.h"
#include "bench_cpu.h"
#include "bench_ferry.h"
#include "bench_stats.h"
#include "subcommands.h"

static const char *fmt(char *buf, size_t len, const char *f, double v)
{
	snprintf(buf, len, f, v);
	return buf;
}

/* ---- in-process: the simulated kernel driver through struct kdev ---- */

struct native {
	struct sim_msm_device *sim;
	struct kdev *kd;
	uint32_t queue;
};

static int native_bo_new(struct native *n, uint64_t size, uint32_t *handle, uint64_t *iova,
			 void **map)
{
	struct drm_msm_gem_new gn = { .size = size, .flags = MSM_BO_WC };
	int r = kdev_ioctl(n->kd, DRM_IOCTL_MSM_GEM_NEW, &gn);
	if (r < 0)
		return r;
	*handle = gn.handle;
	struct drm_msm_gem_info gi = { .handle = gn.handle, .info = MSM_INFO_GET_IOVA };
	if (iova) {
		r = kdev_ioctl(n->kd, DRM_IOCTL_MSM_GEM_INFO, &gi);
		if (r < 0)
			return r;
		*iova = gi.value;
	}
	gi = (struct drm_msm_gem_info){ .handle = gn.handle, .info = MSM_INFO_GET_OFFSET };
	r = kdev_ioctl(n->kd, DRM_IOCTL_MSM_GEM_INFO, &gi);
	if (r < 0)
		return r;
	void *m = n->kd->ops->mmap(n->kd, size, PROT_READ | PROT_WRITE, MAP_SHARED, gi.value);
	if (m == MAP_FAILED)
		return -errno;
	*map = m;
	return 0;
}

static void native_bo_close(struct native *n, uint32_t handle, void *map, uint64_t size)
{
	n->kd->ops->munmap(n->kd, map, size);
	struct drm_gem_close gc = { .handle = handle };
	kdev_ioctl(n->kd, DRM_IOCTL_GEM_CLOSE, &gc);
}

static int native_submit(struct native *n, uint32_t handle, uint32_t size, uint32_t *fence)
{
	struct drm_msm_gem_submit_bo bo = { .flags = MSM_SUBMIT_BO_READ, .handle = handle };
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0,
					      .submit_offset = 0, .size = size };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0,
		.nr_bos = 1,
		.nr_cmds = 1,
		.bos = (uintptr_t)&bo,
		.cmds = (uintptr_t)&cmd,
		.queueid = n->queue,
	};
	/* As ferryd's submits: an idle simulated GPU runs it in this thread (kdev submit_here),
	 * so that both sides of a ratio get the same simulator. */
	int r = kdev_submit_ioctl(n->kd, DRM_IOCTL_MSM_GEM_SUBMIT, &s, true, NULL);
	*fence = s.fence;
	return r;
}

static int native_wait(struct native *n, uint32_t fence)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	struct drm_msm_wait_fence w = { .fence = fence, .queueid = n->queue,
					.timeout = { ts.tv_sec + 10, ts.tv_nsec } };
	return kdev_ioctl(n->kd, DRM_IOCTL_MSM_WAIT_FENCE, &w);
}

static int bench_native(const char *gpu, int iters, struct figures *f)
{
	struct native n = { 0 };
	int r = sim_msm_device_create(gpu, &n.sim);
	if (r < 0)
		return r;
	n.kd = sim_msm_open(n.sim);
	if (!n.kd) {
		sim_msm_device_destroy(n.sim);
		return -ENOMEM;
	}
	struct drm_msm_submitqueue sq = { .prio = 0 };
	r = kdev_ioctl(n.kd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &sq);
	n.queue = sq.id;
	uint32_t ib = 0;
	void *map = NULL;
	if (r == 0)
		r = native_bo_new(&n, 4096, &ib, NULL, &map);
	if (r < 0)
		goto out;
	((uint32_t *)map)[0] = pm4_type7_hdr(CP_NOP, 0);

	double *lat = calloc((size_t)iters, sizeof(double));
	for (int i = 0; i < iters && r == 0; i++) {
		uint32_t fence;
		double t0 = bench_now_us();
		r = native_submit(&n, ib, 4, &fence);
		if (r == 0)
			r = native_wait(&n, fence);
		lat[i] = bench_now_us() - t0;
	}
	if (r == 0) {
		f->rt_p99_us = bench_percentile(lat, iters, 99);
		f->rt_median_us = bench_percentile(lat, iters, 50);
	}
	free(lat);

	int burst = iters * 4;
	uint32_t fence = 0;
	struct bench_cpu c0, c1;
	bool cpu = bench_cpu_sample(0, &c0) == 0;
	double t0 = bench_now_us();
	for (int i = 0; i < burst && r == 0; i++)
		r = native_submit(&n, ib, 4, &fence);
	if (r == 0)
		r = native_wait(&n, fence);
	f->pipelined_per_s = burst / ((bench_now_us() - t0) / 1e6);
	if (cpu && bench_cpu_sample(0, &c1) == 0) {
		bench_cpu_per(&c0, &c1, burst, &f->cpu_sim_us, &f->cpu_host_us);
		f->cpu_ok = true;
	}

	t0 = bench_now_us();
	for (int i = 0; i < iters && r == 0; i++) {
		uint32_t h;
		uint64_t iova;
		void *m;
		r = native_bo_new(&n, 65536, &h, &iova, &m);
		if (r == 0) {
			((volatile uint32_t *)m)[0] = 1; /* touch it, as a real user would */
			native_bo_close(&n, h, m, 65536);
		}
	}
	f->bo_cycles_per_s = iters / ((bench_now_us() - t0) / 1e6);
	native_bo_close(&n, ib, map, 4096);
out:
	n.kd->ops->close(n.kd);
	sim_msm_device_destroy(n.sim);
	return r;
}

/* ---- through ferryd ---- */

/* (c): 64 KiB BO create+map+touch+close, iters times. */
static int bo_cycles(struct ferry_context *ctx, int iters, double *per_s)
{
	int r = 0;
	double t0 = bench_now_us();
	for (int i = 0; i < iters && r == 0; i++) {
		struct ferry_bo *bo;
		void *m;
		r = ferry_bo_new(ctx, 65536, MSM_BO_WC, &bo);
		if (r == 0) {
			r = ferry_bo_map(bo, &m);
			if (r == 0)
				((volatile uint32_t *)m)[0] = 1;
			ferry_bo_close(bo);
		}
	}
	*per_s = iters / ((bench_now_us() - t0) / 1e6);
	return r;
}

/* (c) on a connection whose libferry keeps no BO stash: every create a BoCreate round trip. */
static int bo_cycles_nostash(const char *uri, int iters, double *per_s)
{
	const char *old = getenv("FERRY_BO_STASH");
	char *saved = old ? strdup(old) : NULL;
	setenv("FERRY_BO_STASH", "0", 1);
	struct ferry_device *dev;
	struct ferry_context *ctx = NULL;
	int r = ferry_device_open(uri, &dev);
	if (saved)
		setenv("FERRY_BO_STASH", saved, 1);
	else
		unsetenv("FERRY_BO_STASH");
	free(saved);
	if (r < 0)
		return r;
	r = ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx);
	if (r == 0)
		r = bo_cycles(ctx, iters, per_s);
	if (r < 0)
		fprintf(stderr, "bench: %s\n", ferry_device_last_error(dev));
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	return r;
}

int bench_ferry(const char *uri, int iters, struct figures *f)
{
	struct ferry_device *dev;
	struct ferry_context *ctx = NULL;
	struct ferry_queue *q = NULL;
	struct ferry_bo *ib = NULL;
	int r = ferry_device_open(uri, &dev);
	if (r < 0)
		return r;
	r = ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx);
	if (r == 0)
		r = ferry_queue_create(ctx, 0, &q);
	if (r == 0)
		r = ferry_bo_new(ctx, 4096, MSM_BO_WC, &ib);
	void *map = NULL;
	if (r == 0)
		r = ferry_bo_map(ib, &map);
	if (r < 0) {
		fprintf(stderr, "bench: %s\n", ferry_device_last_error(dev));
		goto out;
	}
	((uint32_t *)map)[0] = pm4_type7_hdr(CP_NOP, 0);
	struct ferry_cmd cmd = { .bo = ib, .offset = 0, .size = 4 };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };

	if (f->mark)
		f->mark(f->mark_arg, dev, false);
	double *lat = calloc((size_t)iters, sizeof(double));
	for (int i = 0; i < iters && r == 0; i++) {
		uint32_t seqno;
		double t0 = bench_now_us();
		r = ferry_submit(q, &s, &seqno);
		if (r == 0)
			r = ferry_fence_wait(q, seqno, 10000000000ll);
		lat[i] = bench_now_us() - t0;
	}
	if (r == 0) {
		f->rt_p99_us = bench_percentile(lat, iters, 99);
		f->rt_median_us = bench_percentile(lat, iters, 50);
	}
	free(lat);

	int burst = iters * 4;
	uint32_t seqno = 0;
	struct bench_cpu c0, c1;
	bool cpu = f->cpu_pid > 0 && bench_cpu_sample(f->cpu_pid, &c0) == 0;
	double t0 = bench_now_us();
	for (int i = 0; i < burst && r == 0; i++)
		r = ferry_submit(q, &s, &seqno);
	if (r == 0)
		r = ferry_fence_wait(q, seqno, 30000000000ll);
	f->pipelined_per_s = burst / ((bench_now_us() - t0) / 1e6);
	if (cpu && bench_cpu_sample(f->cpu_pid, &c1) == 0) {
		bench_cpu_per(&c0, &c1, burst, &f->cpu_sim_us, &f->cpu_host_us);
		f->cpu_ok = true;
	}
	if (f->mark && r == 0)
		f->mark(f->mark_arg, dev, true);
	ferry_context_ring_stats(ctx, &f->ring);
	f->submits = (uint64_t)iters + (uint64_t)burst;

	if (r == 0)
		r = bo_cycles(ctx, iters, &f->bo_cycles_per_s);
	if (r < 0)
		fprintf(stderr, "bench: %s\n", ferry_device_last_error(dev));
	if (r == 0 && f->measure_nostash)
		r = bo_cycles_nostash(uri, iters, &f->bo_cycles_nostash_per_s);
out:
	ferry_bo_close(ib);
	ferry_queue_close(q);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	return r;
}

/* ---- validated vs passthrough: a realistic 64 KiB stream through ferryd ---- */

#define STREAM_BYTES (64u << 10)
#define STREAM_BURST 128 /* pipelined submits in flight at most: 257 KiB of shadow copies each, half the 64 MiB quota */

struct stream_figures {
	bool ok;
	double median_us;       /* submit + wait */
	double pipelined_per_s;
};

static int bench_stream(const char *uri, uint32_t policy, int iters, struct stream_figures *f)
{
	struct ferry_device *dev;
	struct ferry_context *ctx = NULL;
	struct ferry_queue *q = NULL;
	struct ferry_bo *cmd = NULL, *state = NULL, *data = NULL;
	void *cmd_map = NULL, *state_map = NULL;
	uint64_t state_iova = 0, data_iova = 0;
	int r = ferry_device_open(uri, &dev);
	if (r < 0)
		return r;
	r = ferry_context_create(dev, FERRY_FAMILY_MSM, policy, &ctx);
	if (r == 0)
		r = ferry_queue_create(ctx, 0, &q);
	if (r == 0)
		r = ferry_bo_new(ctx, STREAM_BYTES, MSM_BO_WC, &cmd);
	if (r == 0)
		r = ferry_bo_new(ctx, PM4_WORKLOAD_STATE_BYTES, MSM_BO_WC, &state);
	if (r == 0)
		r = ferry_bo_new(ctx, PM4_WORKLOAD_DATA_MIN_BYTES, MSM_BO_WC, &data);
	if (r == 0)
		r = ferry_bo_map(cmd, &cmd_map);
	if (r == 0)
		r = ferry_bo_map(state, &state_map);
	if (r == 0)
		r = ferry_bo_iova(state, &state_iova);
	if (r == 0)
		r = ferry_bo_iova(data, &data_iova);
	if (r < 0) {
		fprintf(stderr, "bench: %s context: %s\n", policy ? "passthrough" : "validated",
			ferry_device_last_error(dev));
		goto out;
	}
	pm4_workload_states(state_map);
	const struct pm4_workload w = { state_iova, data_iova, PM4_WORKLOAD_DATA_MIN_BYTES };
	uint32_t bytes = pm4_workload_stream(&w, cmd_map, STREAM_BYTES);
	struct ferry_cmd c = { .bo = cmd, .offset = 0, .size = bytes };
	struct ferry_submit_bo bos[] = { { state, MSM_SUBMIT_BO_READ }, { data, MSM_SUBMIT_BO_WRITE } };
	struct ferry_submit s = { .cmds = &c, .nr_cmds = 1, .bos = bos, .nr_bos = 2 };

	int n = iters / 10 > 20 ? iters / 10 : 20;
	double *lat = calloc((size_t)n, sizeof(double));
	if (!lat) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n && r == 0; i++) {
		uint32_t seqno;
		double t0 = bench_now_us();
		r = ferry_submit(q, &s, &seqno);
		if (r == 0)
			r = ferry_fence_wait(q, seqno, 10000000000ll);
		lat[i] = bench_now_us() - t0;
	}
	if (r == 0)
		f->median_us = bench_percentile(lat, n, 50);
	free(lat);

	/* Two bursts, the second timed: the first grows the shadow pool to this depth, as any
	 * steady workload would once. */
	for (int round = 0; round < 2 && r == 0; round++) {
		uint32_t seqno = 0;
		double t0 = bench_now_us();
		for (int i = 0; i < STREAM_BURST && r == 0; i++)
			r = ferry_submit(q, &s, &seqno);
		if (r == 0)
			r = ferry_fence_wait(q, seqno, 60000000000ll);
		f->pipelined_per_s = STREAM_BURST / ((bench_now_us() - t0) / 1e6);
	}
	if (r < 0)
		fprintf(stderr, "bench: %s stream: %s\n", policy ? "passthrough" : "validated",
			ferry_device_last_error(dev));
	f->ok = r == 0;
out:
	ferry_bo_close(cmd);
	ferry_bo_close(state);
	ferry_bo_close(data);
	ferry_queue_close(q);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	return r;
}

/* ---- the floor: a small frame ping-ponged over a unix socketpair between two threads ---- */

struct pong_arg {
	int sock;
	int iters;
};

static void *pong_thread(void *p)
{
	struct pong_arg *a = p;
	char buf[64];
	for (int i = 0; i < a->iters; i++) {
		if (recv(a->sock, buf, sizeof(buf), MSG_WAITALL) != (ssize_t)sizeof(buf))
			break;
		if (send(a->sock, buf, sizeof(buf), MSG_NOSIGNAL) != (ssize_t)sizeof(buf))
			break;
	}
	return NULL;
}

static int bench_floor(int iters, double *median_us, double *p99_us)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	struct pong_arg a = { sv[1], iters };
	pthread_t th;
	if (pthread_create(&th, NULL, pong_thread, &a) != 0) {
		close(sv[0]);
		close(sv[1]);
		return -EAGAIN;
	}
	double *lat = calloc((size_t)iters, sizeof(double));
	char buf[64] = { 0 };
	int r = 0;
	for (int i = 0; i < iters; i++) {
		double t0 = bench_now_us();
		if (send(sv[0], buf, sizeof(buf), MSG_NOSIGNAL) != (ssize_t)sizeof(buf) ||
		    recv(sv[0], buf, sizeof(buf), MSG_WAITALL) != (ssize_t)sizeof(buf)) {
			r = -EIO;
			break;
		}
		lat[i] = bench_now_us() - t0;
	}
	shutdown(sv[0], SHUT_RDWR);
	pthread_join(th, NULL);
	close(sv[0]);
	close(sv[1]);
	if (r == 0) {
		*p99_us = bench_percentile(lat, iters, 99);
		*median_us = bench_percentile(lat, iters, 50);
	}
	free(lat);
	return r;
}

/* ---- rounds ---- */

/* The machine's speed swings between runs (other guests on the host); ferryd and in-process
 * taken minutes apart could land on either side of a swing, so they alternate, round by round,
 * and each ratio is the median of the rounds' own. */
#define BENCH_ROUNDS 3

struct round {
	struct figures fe, na;
	double floor_med, floor_p99;
};

/* The double at byte offset field of a round's ferryd (ferry) or in-process figures. */
static double field_of(const struct round *r, size_t field, bool ferry)
{
	const struct figures *f = ferry ? &r->fe : &r->na;
	double v;
	memcpy(&v, (const char *)f + field, sizeof(v));
	return v;
}

static double median_of(const struct round *rd, int n, size_t field, bool ferry)
{
	double v[BENCH_ROUNDS];
	for (int i = 0; i < n; i++)
		v[i] = field_of(&rd[i], field, ferry);
	return bench_percentile(v, n, 50);
}

/* Medians of every figure over the rounds (the ring counters and CPU flags summed / of all). */
static void figures_median(const struct round *rd, int n, bool ferry, struct figures *out)
{
	static const size_t fields[] = {
		offsetof(struct figures, rt_median_us), offsetof(struct figures, rt_p99_us),
		offsetof(struct figures, pipelined_per_s), offsetof(struct figures, bo_cycles_per_s),
		offsetof(struct figures, bo_cycles_nostash_per_s), offsetof(struct figures, cpu_host_us),
		offsetof(struct figures, cpu_sim_us),
	};
	const struct figures *first = ferry ? &rd[0].fe : &rd[0].na;
	*out = *first;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		double m = median_of(rd, n, fields[i], ferry);
		memcpy((char *)out + fields[i], &m, sizeof(m));
	}
	out->ring = (struct ferry_ring_stats){ 0 };
	out->submits = 0;
	for (int i = 0; i < n; i++) {
		const struct figures *f = ferry ? &rd[i].fe : &rd[i].na;
		out->cpu_ok = out->cpu_ok && f->cpu_ok;
		out->ring.active = out->ring.active || f->ring.active;
		out->ring.records += f->ring.records;
		out->ring.doorbells += f->ring.doorbells;
		out->ring.full_waits += f->ring.full_waits;
		out->submits += f->submits;
	}
}

/* Median, least and largest of the rounds' ratios v[0..n). */
struct spread {
	double med, lo, hi;
};

static struct spread spread_of(double *v, int n)
{
	struct spread sp = { 0, 0, 0 };
	for (int i = 0; i < n; i++) {
		if (i == 0 || v[i] < sp.lo)
			sp.lo = v[i];
		if (i == 0 || v[i] > sp.hi)
			sp.hi = v[i];
	}
	sp.med = bench_percentile(v, n, 50);
	return sp;
}

/* The rounds' ratio of field through ferryd to in-process, or for a rate (higher is better)
 * in-process to ferryd, so that either reads as overhead. */
static struct spread ratio_spread(const struct round *rd, int n, size_t field, bool rate)
{
	double v[BENCH_ROUNDS];
	for (int i = 0; i < n; i++)
		v[i] = rate ? field_of(&rd[i], field, false) / field_of(&rd[i], field, true)
			    : field_of(&rd[i], field, true) / field_of(&rd[i], field, false);
	return spread_of(v, n);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry bench [--iterations N] [--gpu a630|a660|v3d-4.2|v3d-7.1] [--server URI] "
		   "[--ferryd PATH] [--json (msm only)]\n"
		   "       ferry bench --isolation [--iterations N (default 300)] [--gpu a630|a660] [--server URI] "
		   "[--ferryd PATH]\n"
		   "       ferry bench --vulkan [--cross-dir DIR] [--gpu a630|v3d-4.2] [--iterations N] [--ferryd PATH]\n"
		   "       ferry bench --vm [--server virtio:[/dev/dri/renderDN]] [--iterations N (default 500)]\n"
		   "       ferry bench --network [--iterations N (default 1000)] [--delay-ms D (default 1)] [--vulkan]\n"
		   "                   [--cross-dir DIR] [--ferryd PATH]\n"
		   "       ferry bench --clients N (default 64) [--duration-ms MS (default 2000)] [--gpu a630|a660]\n"
		   "                   [--ferryd PATH]\n"
		   "  Measures, through ferryd and in-process on the simulator (no boundary; both ask an\n"
		   "  idle simulated GPU to run each submit in the submitting thread, kdev submit_here):\n"
		   "  (a) submit+wait round trip of a CP_NOP IB (median, p99), (b) pipelined submits\n"
		   "  per second and CPU per submit (the spawned ferryd's or this process's threads, from\n"
		   "  /proc/PID/task/*/schedstat: the simulated GPU's ferry-sim-gpu thread apart; not with\n"
		   "  --server), (c) BO create+map+close per second; and the unix-socket round-trip\n"
		   "  floor. Then PM4 validation: (d) copy+validate throughput in process for a\n"
		   "  realistic stream of 64 KiB and 1 MiB against a plain memcpy of it, (e) submit+wait\n"
		   "  and pipelined submits of a 64 KiB stream through ferryd, validated vs passthrough\n"
		   "  context (a spawned ferryd allows passthrough; with --server the server must). Figures, not a test: nothing\n"
		   "  passes or fails. With --gpu v3d-*: the V3D submit+wait round trip of a minimal CL\n"
		   "  through ferryd (validated, passthrough) vs in process; CL validation throughput in\n"
		   "  process for a v3dv-shaped job of 100 and 2000 draws vs a plain copy; and that\n"
		   "  job's submit+wait through ferryd, validated vs passthrough.\n"
		   "  With --vulkan: Debian's arm64 Turnip (a630) or v3dv (v3d-4.2) under qemu-aarch64 runs\n"
		   "  the e2e program's vkQueueSubmit + vkWaitForFences loop and pipelined submits on the\n"
		   "  fake kernel (baseline) and through the shim and ferryd (validated, passthrough).\n"
		   "  DIR is the aarch64 cross build (default $FERRY_CROSS_BUILD, else build-a64).\n"
		   "  With --vm (inside a guest of `ferry qemu`): (a), (b) and (c) over virtio-gpu against the\n"
		   "  guest's bare EXECBUFFER + out-fence round trip measured in the same run.\n"
		   "  With --network: (a) and (b) and the wire bytes per submit over a unix socket, tcp+TLS and\n"
		   "  plain tcp on loopback, and tcp+TLS across a veth pair between two network namespaces\n"
		   "  (root only) through a delay line of D ms each way (standing in for netem); with --vulkan\n"
		   "  also the e2e program's Vulkan loop over them; ratios to the unix row (docs/network.md).\n"
		   "  With --isolation: a good client's submit+wait of a 16 KiB validated stream and its\n"
		   "  connect+HELLO (median, p99), alone and while another client of the same ferryd loops\n"
		   "  the GPU in 16 contexts (waits that never end; IB chain spins), sends maximum-cost\n"
		   "  validation submits, floods connections, or stops reading its replies; ratios to alone.\n"
		   "  With --clients: N client processes of one spawned ferryd: its memory per idle client\n"
		   "  (HELLO, a context and a queue each; smaps_rollup Rss), one client's pipelined CP_NOP\n"
		   "  rate against N pipelining at once for MS each (aggregate, per-client min/median/max,\n"
		   "  min / fair share), and another client's submit+wait (median, p99) alone and beside them.\n");
}

int cmd_bench(int argc, char **argv)
{
	int iters = 2000;
	const char *gpu = "a630", *server = NULL, *ferryd_opt = NULL;
	bool json = false, vulkan = false, isolation = false, iters_given = false, vm = false, network = false;
	int delay_ms = 1, clients = 0, duration_ms = BENCH_SCALE_DEFAULT_MS;
	const char *cross_dir = getenv("FERRY_CROSS_BUILD");
	static const struct option opts[] = {
		{ "vulkan", no_argument, NULL, 'V' },
		{ "isolation", no_argument, NULL, 'I' },
		{ "vm", no_argument, NULL, 'M' },
		{ "network", no_argument, NULL, 'N' },
		{ "delay-ms", required_argument, NULL, 'D' },
		{ "clients", optional_argument, NULL, 'K' },
		{ "duration-ms", required_argument, NULL, 'T' },
		{ "cross-dir", required_argument, NULL, 'C' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "server", required_argument, NULL, 's' },
		{ "ferryd", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			iters = atoi(optarg);
			iters_given = true;
			break;
		case 'I':
			isolation = true;
			break;
		case 'M':
			vm = true;
			break;
		case 'N':
			network = true;
			break;
		case 'D':
			delay_ms = atoi(optarg);
			if (delay_ms < 0 || delay_ms > 1000) {
				fprintf(stderr, "bench: --delay-ms must be in [0, 1000]\n");
				return 2;
			}
			break;
		case 'K':
			/* "--clients", "--clients=N" and "--clients N" */
			if (!optarg && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
				optarg = argv[optind++];
			clients = optarg ? atoi(optarg) : 64;
			if (clients < 1 || clients > BENCH_SCALE_MAX_CLIENTS) {
				fprintf(stderr, "bench: --clients must be in [1, %d]\n", BENCH_SCALE_MAX_CLIENTS);
				return 2;
			}
			break;
		case 'T':
			duration_ms = atoi(optarg);
			if (duration_ms < 100 || duration_ms > 600000) {
				fprintf(stderr, "bench: --duration-ms must be in [100, 600000]\n");
				return 2;
			}
			break;
		case 'g':
			gpu = optarg;
			break;
		case 's':
			server = optarg;
			break;
		case 'f':
			ferryd_opt = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'V':
			vulkan = true;
			break;
		case 'C':
			cross_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (iters < 10 || iters > 10000000) {
		fprintf(stderr, "bench: --iterations must be in [10, 10000000]\n");
		return 2;
	}
	if (clients) {
		char path[PATH_MAX];
		if (ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "bench: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		return bench_scale(path, gpu, clients, duration_ms);
	}
	if (vm)
		return bench_vm(server, iters_given ? iters : 500);
	if (network) {
		char path[PATH_MAX] = "";
		if (json || server || isolation) {
			fprintf(stderr, "bench: --network spawns its own ferryd and prints text only\n");
			return 2;
		}
		if (strcmp(gpu, "a630") && strcmp(gpu, "a660")) {
			fprintf(stderr, "bench: --network measures the msm loop: --gpu a630 or a660\n");
			return 2;
		}
		if (ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "bench: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		return bench_network(path, gpu, iters_given ? iters : 1000, delay_ms, vulkan,
				     cross_dir && *cross_dir ? cross_dir : "build-a64");
	}
	if (vulkan) {
		char path[PATH_MAX] = "";
		if (json || server) {
			fprintf(stderr, "bench: --vulkan spawns its own ferryd and prints text only\n");
			return 2;
		}
		if (ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "bench: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		return bench_vulkan(gpu, path, cross_dir && *cross_dir ? cross_dir : "build-a64", iters);
	}
	if (isolation) {
		if (json || vulkan) {
			fprintf(stderr, "bench: --isolation prints text figures on its own\n");
			return 2;
		}
		struct ferryd_proc iso = { .pid = -1 };
		if (!server) {
			char path[PATH_MAX];
			if (ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
				fprintf(stderr, "bench: cannot find ferryd (use --ferryd or $FERRYD)\n");
				return 1;
			}
			if (ferryd_spawn(path, gpu, NULL, true, 10000, &iso) < 0)
				return 1;
		}
		int ret = bench_isolation(server ? server : iso.uri, iters_given ? iters : 300);
		if (iso.pid > 0)
			ferryd_stop(&iso, 10000);
		return ret;
	}
	if (!strcmp(gpu, "v3d-4.2") || !strcmp(gpu, "v3d-7.1")) {
		if (json) {
			fprintf(stderr, "bench: --json is not available for V3D yet (text figures only)\n");
			return 2;
		}
		char path[PATH_MAX] = "";
		if (!server && ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "bench: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		return bench_v3d(gpu, server, path, iters);
	}

	struct ferryd_proc proc = { .pid = -1 };
	const char *uri = server;
	if (!uri) {
		char path[PATH_MAX];
		if (ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "bench: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		const char *const extra[] = { "--allow-passthrough", NULL }; /* for (e) */
		if (ferryd_spawn(path, gpu, extra, true, 10000, &proc) < 0)
			return 1;
		uri = proc.uri;
	}

	struct round rd[BENCH_ROUNDS];
	int rf = 0, rn = 0, rs = 0, nr = 0;
	for (; nr < BENCH_ROUNDS && rf == 0 && rn == 0 && rs == 0; nr++) {
		rd[nr] = (struct round){ .fe = { .cpu_pid = proc.pid, .measure_nostash = true } };
		rf = bench_ferry(uri, iters, &rd[nr].fe);
		if (rf == 0)
			rn = bench_native(gpu, iters, &rd[nr].na);
		if (rf == 0 && rn == 0)
			rs = bench_floor(iters, &rd[nr].floor_med, &rd[nr].floor_p99);
	}
	struct figures fe, na;
	figures_median(rd, nr, true, &fe);
	figures_median(rd, nr, false, &na);
	double floor_v[BENCH_ROUNDS], floor_p99_v[BENCH_ROUNDS], vs_floor[BENCH_ROUNDS];
	for (int i = 0; i < nr; i++) {
		floor_v[i] = rd[i].floor_med;
		floor_p99_v[i] = rd[i].floor_p99;
		vs_floor[i] = rd[i].fe.rt_median_us / rd[i].floor_med;
	}
	double floor_med = bench_percentile(floor_v, nr, 50), floor_p99 = bench_percentile(floor_p99_v, nr, 50);
	struct spread sp_floor = spread_of(vs_floor, nr);
	struct spread sp_rt = ratio_spread(rd, nr, offsetof(struct figures, rt_median_us), false);
	struct spread sp_pipe = ratio_spread(rd, nr, offsetof(struct figures, pipelined_per_s), true);
	struct spread sp_cpu = ratio_spread(rd, nr, offsetof(struct figures, cpu_host_us), false);
	struct spread sp_bo = ratio_spread(rd, nr, offsetof(struct figures, bo_cycles_per_s), true);
	struct pm4_workload_rate rate64 = { 0 }, rate1m = { 0 };
	int rv = pm4_workload_validate_rate(64u << 10, 0.3, &rate64);
	if (rv == 0)
		rv = pm4_workload_validate_rate(1u << 20, 0.3, &rate1m);
	struct stream_figures sv = { 0 }, sp = { 0 };
	bench_stream(uri, FERRY_POLICY_VALIDATED, iters, &sv);
	bench_stream(uri, FERRY_POLICY_PASSTHROUGH, iters, &sp);
	if (proc.pid > 0)
		ferryd_stop(&proc, 5000);
	if (rf < 0 || rn < 0 || rs < 0 || rv < 0 || !sv.ok) {
		fprintf(stderr, "bench: a measurement failed (ferryd %s, in-process %s, floor %s, "
			"validation %s, validated stream %s)\n", strerror(-rf), strerror(-rn),
			strerror(-rs), strerror(-rv), sv.ok ? "ok" : "failed");
		return 1;
	}

	char pt_med[32], pt_pipe[32];
	if (json) {
		printf("{\"gpu\":\"%s\",\"iterations\":%d,\n"
		       " \"roundtrip_us\":{\"ferry\":{\"median\":%.2f,\"p99\":%.2f},"
		       "\"native\":{\"median\":%.2f,\"p99\":%.2f}},\n"
		       " \"pipelined_submits_per_s\":{\"ferry\":%.0f,\"native\":%.0f},\n"
		       " \"bo_cycles_per_s\":{\"ferry\":%.0f,\"native\":%.0f,\"ferry_nostash\":%.0f},\n"
		       " \"socket_floor_us\":{\"median\":%.2f,\"p99\":%.2f},\n"
		       " \"pm4_validate_mb_per_s\":{\"64k\":%.0f,\"1m\":%.0f},\n"
		       " \"pm4_memcpy_mb_per_s\":{\"64k\":%.0f,\"1m\":%.0f},\n"
		       " \"stream64k_submit_wait_median_us\":{\"validated\":%.2f,\"passthrough\":%s},\n"
		       " \"stream64k_pipelined_per_s\":{\"validated\":%.0f,\"passthrough\":%s}}\n",
		       gpu, iters, fe.rt_median_us, fe.rt_p99_us, na.rt_median_us, na.rt_p99_us,
		       fe.pipelined_per_s, na.pipelined_per_s, fe.bo_cycles_per_s,
		       na.bo_cycles_per_s, fe.bo_cycles_nostash_per_s, floor_med, floor_p99, rate64.mb_per_s,
		       rate1m.mb_per_s, rate64.copy_mb_per_s, rate1m.copy_mb_per_s,
		       sv.median_us, sp.ok ? fmt(pt_med, sizeof(pt_med), "%.2f", sp.median_us) : "null",
		       sv.pipelined_per_s, sp.ok ? fmt(pt_pipe, sizeof(pt_pipe), "%.0f", sp.pipelined_per_s) : "null");
		return 0;
	}
	printf("ferry bench: simulated %s, %d iterations, %d rounds of ferryd and in-process alternated "
	       "(one run on this machine; figures, not pass/fail)\n\n", gpu, iters, nr);
	printf("%-40s %12s %12s %9s  %s\n", "", "ferryd", "in-process", "ratio", "rounds");
	printf("%-40s %12.1f %12.1f %8.1fx  %.1f-%.1f\n", "(a) submit+wait CP_NOP IB, median (us)",
	       fe.rt_median_us, na.rt_median_us, sp_rt.med, sp_rt.lo, sp_rt.hi);
	printf("%-40s %12.1f %12.1f %8.1fx\n", "    p99 (us)", fe.rt_p99_us, na.rt_p99_us,
	       fe.rt_p99_us / na.rt_p99_us);
	printf("%-40s %12.0f %12.0f %8.2fx  %.2f-%.2f\n", "(b) pipelined submits per second",
	       fe.pipelined_per_s, na.pipelined_per_s, sp_pipe.med, sp_pipe.lo, sp_pipe.hi);
	if (fe.cpu_ok && na.cpu_ok) {
		printf("%-40s %12.2f %12.2f %8.1fx  %.1f-%.1f\n", "    host CPU/submit, outside sim GPU (us)",
		       fe.cpu_host_us, na.cpu_host_us, sp_cpu.med, sp_cpu.lo, sp_cpu.hi);
		/* None on either side when every submit ran in the submitting thread (submit_here). */
		if (na.cpu_sim_us > 0)
			printf("%-40s %12.2f %12.2f %8.1fx\n", "    CPU/submit in the simulated GPU (us)",
			       fe.cpu_sim_us, na.cpu_sim_us, fe.cpu_sim_us / na.cpu_sim_us);
		else
			printf("%-40s %12.2f %12.2f %9s\n", "    CPU/submit in the simulated GPU (us)", fe.cpu_sim_us,
			       na.cpu_sim_us, "-");
	}
	printf("%-40s %12.0f %12.0f %8.2fx  %.2f-%.2f\n", "(c) BO create+map+close per second",
	       fe.bo_cycles_per_s, na.bo_cycles_per_s, sp_bo.med, sp_bo.lo, sp_bo.hi);
	printf("%-40s %12.0f %12s %8.1fx\n", "    without the BO stash (FERRY_BO_STASH=0)", fe.bo_cycles_nostash_per_s, "",
	       na.bo_cycles_per_s / fe.bo_cycles_nostash_per_s);
	if (fe.ring.active && fe.submits)
		printf("    submit ring: on; per submit of (a)+(b): %.2f records, %.3f doorbells, %.3f waits "
		       "for room\n", (double)fe.ring.records / fe.submits, (double)fe.ring.doorbells / fe.submits,
		       (double)fe.ring.full_waits / fe.submits);
	else
		printf("    submit ring: off (FERRY_RING=0, or the server offers none): every submit on the socket\n");
	printf("\nsocket round-trip floor (64-byte ping-pong over a unix socketpair, two threads):\n"
	       "  median %.1f us, p99 %.1f us; (a) through ferryd / floor %.2fx (rounds %.2f-%.2f)\n",
	       floor_med, floor_p99, sp_floor.med, sp_floor.lo, sp_floor.hi);
	printf("figures = medians of the rounds; ratio = cost through ferryd / cost in-process (higher =\n"
	       "more overhead), the median of the rounds' own ratios, each round's in \"rounds\"\n");

	printf("\nPM4 validation (copy + relocate + validate into shadow copies):\n");
	printf("  (d) in process, Turnip-like stream:\n");
	const struct pm4_workload_rate *rates[] = { &rate64, &rate1m };
	for (int i = 0; i < 2; i++)
		printf("      %7u bytes %7.0f MB/s (%.1f us), memcpy %7.0f MB/s, validation = %.2fx memcpy\n",
		       rates[i]->stream_bytes, rates[i]->mb_per_s, rates[i]->us_per_submit, rates[i]->copy_mb_per_s,
		       rates[i]->mb_per_s / rates[i]->copy_mb_per_s);
	printf("      memcpy = the same bytes from the same BO into the same shadow memory, unchecked;\n"
	       "      both per second of the thread's CPU time (time given to other processes not counted)\n");
	printf("  (e) through ferryd, %u-byte stream      %12s %12s %9s\n", rate64.stream_bytes,
	       "validated", "passthrough", "ratio");
	if (sp.ok) {
		printf("      submit+wait, median (us)            %12.1f %12.1f %8.2fx\n", sv.median_us,
		       sp.median_us, sv.median_us / sp.median_us);
		printf("      pipelined submits per second        %12.0f %12.0f %8.2fx\n",
		       sv.pipelined_per_s, sp.pipelined_per_s, sp.pipelined_per_s / sv.pipelined_per_s);
	} else {
		printf("      submit+wait, median (us)            %12.1f %12s\n", sv.median_us, "refused");
		printf("      pipelined submits per second        %12.0f %12s\n", sv.pipelined_per_s, "refused");
		printf("      (the server does not allow passthrough contexts)\n");
	}
	printf("  ratio = validated cost / passthrough cost (higher = more validation overhead)\n");
	return 0;
}
