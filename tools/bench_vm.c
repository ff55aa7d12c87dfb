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
	if (saved)
		setenv("FERRY_RING", saved, 1);
	else
		unsetenv("FERRY_RING");
	free(saved);
	int re = bench_ferry(full, iters, &fe);
	if (rf < 0 || re < 0 || ro < 0) {
		fprintf(stderr, "bench --vm: a measurement failed (floor %s, rings off %s, rings on %s)\n", strerror(-rf),
			strerror(-ro), strerror(-re));
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
	printf("  (c) BO create+map+close (64 KiB)         %10.0f /s   (%.2f floor round trips each)\n",
	       fe.bo_cycles_per_s, (1e6 / fe.bo_cycles_per_s) / fl_med);
	return 0;
}
