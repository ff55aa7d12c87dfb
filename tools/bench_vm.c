/* `ferry bench --vm`, run inside a guest whose virtio-gpu device is ferry's renderer (docs/vm.md):
 * libferry's submit+wait, pipelined submits and BO create+map+close over virtio-gpu, against the
 * floor measured in the same run: one bare EXECBUFFER whose out-fence the guest waits for; and
 * the same with submit rings off (FERRY_RING=0), so the ring's gain is a ratio of one run. Under
 * TCG absolute times mean little; the ratios are the figures. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_ferry.h"
#include "bench_stats.h"
#include "ferry/ferry.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/uapi/msm_drm.h"
#include "ferry/virtio.h"
#include "transport.h"

/* A ferry context of its own on the node (HELLO and a reply ring), so the empty EXECBUFFERs it
 * times are a ferry client's, then iters of them, each waited for on its out-fence. */
static int floor_rt(const char *path, int iters, double *median_us, double *p99_us)
{
	int fd = ferry_virtio_open_node(path);
	if (fd < 0)
		return fd;
	uint32_t gem, res;
	const uint32_t ring = FERRY_MAX_FRAME_SIZE * 2;
	int r = ferry_virtio_resource_new(fd, FERRY_VIRTIO_RING_HEADER + ring, &gem, &res);
	struct {
		struct ferry_virtio_packet p;
		struct ferry_virtio_hello h;
	} hello = { { FERRY_VIRTIO_HELLO, sizeof(struct ferry_virtio_hello) },
		    { FERRY_VIRTIO_CAPS_MAGIC, FERRY_VIRTIO_VERSION, res, ring } };
	if (r == 0)
		r = ferry_virtio_execbuffer(fd, &hello, sizeof(hello), NULL);
	double *lat = calloc((size_t)iters, sizeof(*lat));
	if (!lat)
		r = -ENOMEM;
	struct ferry_virtio_packet empty = { FERRY_VIRTIO_STREAM, 0 };
	for (int i = 0; i < iters && r == 0; i++) {
		int fence = -1;
		double t0 = bench_now_us();
		r = ferry_virtio_execbuffer(fd, &empty, sizeof(empty), &fence);
		if (r == 0) {
			struct pollfd pfd = { .fd = fence, .events = POLLIN };
			if (poll(&pfd, 1, 10000) != 1)
				r = -ETIMEDOUT;
			close(fence);
		}
		lat[i] = bench_now_us() - t0;
	}
	if (r == 0) {
		*p99_us = bench_percentile(lat, iters, 99);
		*median_us = bench_percentile(lat, iters, 50);
	}
	free(lat);
	close(fd); /* the resource goes with the open */
	return r;
}

/* Pipelined submits once more, timing the guest's side alone: how fast ferry_submit returns
 * (rings: a record; without: an EXECBUFFER) against the rate including the host's work, which
 * tells which side bounds (b). */
static int enqueue_rate(const char *uri, int burst, double *enqueue_per_s, double *total_per_s)
{
	struct ferry_device *dev;
	struct ferry_context *ctx = NULL;
	struct ferry_queue *q = NULL;
	struct ferry_bo *ib = NULL;
	void *map = NULL;
	int r = ferry_device_open(uri, &dev);
	if (r < 0)
		return r;
	r = ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx);
	if (r == 0)
		r = ferry_queue_create(ctx, 0, &q);
	if (r == 0)
		r = ferry_bo_new(ctx, 4096, MSM_BO_WC, &ib);
	if (r == 0)
		r = ferry_bo_map(ib, &map);
	if (r == 0) {
		((uint32_t *)map)[0] = pm4_type7_hdr(CP_NOP, 0);
		struct ferry_cmd cmd = { .bo = ib, .offset = 0, .size = 4 };
		struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };
		uint32_t seqno = 0;
		double t0 = bench_now_us();
		for (int i = 0; i < burst && r == 0; i++)
			r = ferry_submit(q, &s, &seqno);
		double t1 = bench_now_us();
		if (r == 0)
			r = ferry_fence_wait(q, seqno, 30000000000ll);
		double t2 = bench_now_us();
		*enqueue_per_s = burst / ((t1 - t0) / 1e6);
		*total_per_s = burst / ((t2 - t0) / 1e6);
	}
	if (ib)
		ferry_bo_close(ib);
	if (ctx)
		ferry_context_destroy(ctx);
	ferry_device_close(dev);
	return r;
}

int bench_vm(const char *uri, int iters)
{
	char path[64] = "";
	const char *given = uri && strncmp(uri, "virtio:", 7) == 0 ? uri + 7 : NULL;
	if (given && given[0])
		snprintf(path, sizeof(path), "%s", given);
	else if (ferry_virtio_find_node(path, sizeof(path)) < 0) {
		fprintf(stderr, "bench --vm: no virtio-gpu node served by ferry (is this a VM with ferry's renderer?)\n");
		return 1;
	}
	char full[80];
	snprintf(full, sizeof(full), "virtio:%s", path);
	double fl_med = 0, fl_p99 = 0;
	int rf = floor_rt(path, iters, &fl_med, &fl_p99);
	/* The same loops twice in one run: libferry with submit rings off (FERRY_RING=0: an
	 * EXECBUFFER per submit) and as configured (rings where the host offers them). */
	const char *was = getenv("FERRY_RING");
	char *saved = was ? strdup(was) : NULL;
	setenv("FERRY_RING", "0", 1);
	struct figures fo = { 0 }, fe = { 0 };
	int ro = bench_ferry(full, iters, &fo);
	double enq_off = 0, tot_off = 0, enq_on = 0, tot_on = 0;
	int qo = enqueue_rate(full, iters * 4, &enq_off, &tot_off);
	if (saved)
		setenv("FERRY_RING", saved, 1);
	else
		unsetenv("FERRY_RING");
	int re = bench_ferry(full, iters, &fe);
	int qe = enqueue_rate(full, iters * 4, &enq_on, &tot_on);
	free(saved);
	if (rf < 0 || re < 0 || ro < 0 || qo < 0 || qe < 0) {
		fprintf(stderr, "bench --vm: a measurement failed (floor %s, rings off %s / %s, rings on %s / %s)\n",
			strerror(-rf), strerror(-ro), strerror(-qo), strerror(-re), strerror(-qe));
		return 1;
	}
	printf("ferry bench --vm (%s, %d iterations; TCG: compare ratios, not times)\n", full, iters);
	printf("  floor: EXECBUFFER + out-fence round trip   median %8.1f us   p99 %8.1f us\n", fl_med, fl_p99);
	printf("  (a) submit+wait of a CP_NOP IB           median %8.1f us   p99 %8.1f us   %.2fx the floor\n",
	       fe.rt_median_us, fe.rt_p99_us, fe.rt_median_us / fl_med);
	printf("      without submit rings                 median %8.1f us   p99 %8.1f us   %.2fx the floor\n",
	       fo.rt_median_us, fo.rt_p99_us, fo.rt_median_us / fl_med);
	printf("  (b) pipelined submits                    %10.0f /s   (floor rate %.0f /s: %.2fx)\n", fe.pipelined_per_s,
	       1e6 / fl_med, fe.pipelined_per_s / (1e6 / fl_med));
	printf("      without submit rings (EXECBUFFER each) %8.0f /s   rings: %.2fx that\n", fo.pipelined_per_s,
	       fe.pipelined_per_s / fo.pipelined_per_s);
	printf("      guest side alone: ferry_submit returns at %.0f /s with rings, %.0f /s without (a burst of %d "
	       "then one wait: %.0f /s and %.0f /s)\n", enq_on, enq_off, iters * 4, tot_on, tot_off);
	if (fe.ring.active && fe.submits)
		printf("      submit ring: per submit of (a)+(b): %.2f records, %.3f doorbells, %.3f waits for room\n",
		       (double)fe.ring.records / fe.submits, (double)fe.ring.doorbells / fe.submits,
		       (double)fe.ring.full_waits / fe.submits);
	else
		printf("      submit ring: not used (FERRY_RING=0, or the host refused it: docs/vm.md)\n");
	printf("  (c) BO create+map+close (64 KiB)         %10.0f /s   (%.2f floor round trips each)\n",
	       fe.bo_cycles_per_s, (1e6 / fe.bo_cycles_per_s) / fl_med);
	return 0;
}
