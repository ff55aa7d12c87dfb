/* `ferry bench --gpu v3d-4.2|v3d-7.1`: the V3D submit round trip — bin + render of a minimal
 * v3dv-shaped CL (a 1x1 fill) submitted and waited for, through ferryd (validated and
 * passthrough contexts) and in process on the simulated kernel (no boundary); the CL validator's
 * in-process throughput on a realistic job of many draws (v3d_workload.c) against a plain copy,
 * and that job's submit+wait through ferryd, validated vs passthrough. Figures, not a test. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "backend/kdev.h"
#include "ferry/uapi/v3d_drm.h"
#include "bench_stats.h"
#include "bench_v3d.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "sim/v3d/sim_v3d.h"
#include "v3d_cl_builder.h"
#include "v3d_workload.h"

#define LIST_BYTES 4096u

struct rt {
	double median_us, p99_us;
};

static void summarize(double *lat, int n, struct rt *out)
{
	out->median_us = bench_percentile(lat, n, 50);
	out->p99_us = bench_percentile(lat, n, 99);
}

/* The lists of a 1x1 fill at the given addresses: lists BO holds bcl, rcl, tile list. */
struct fill_cl {
	uint32_t bcl_end, rcl_start, rcl_end, qms;
};

static bool build_fill(int ver, uint8_t *lists, uint32_t lists_addr, uint32_t ta_addr, uint32_t dst_addr,
		       struct fill_cl *out)
{
	static const uint32_t color[4] = { 0xdeadbeefu, 0, 0, 0 };
	struct v3d_clb_raster_job job = {
		.width = 1, .height = 1, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI, .dst_addr = dst_addr, .dst_stride = 4,
		.clear_color = color, .tile_alloc_addr = ta_addr,
	};
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, ver, lists, LIST_BYTES, lists_addr);
	v3d_clb_init(&rcl, ver, lists + LIST_BYTES, LIST_BYTES, lists_addr + LIST_BYTES);
	v3d_clb_init(&ind, ver, lists + 2 * LIST_BYTES, LIST_BYTES, lists_addr + 2 * LIST_BYTES);
	if (!v3d_clb_raster_bin(&bcl, &job) || !v3d_clb_raster_render(&rcl, &ind, &job))
		return false;
	*out = (struct fill_cl){ .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = lists_addr + LIST_BYTES,
				 .rcl_end = v3d_clb_gpu_addr(&rcl), .qms = v3d_clb_raster_tile_alloc_size(ver, &job) };
	return true;
}

/* ---- in process: the simulated kernel through its uAPI ---- */

struct native_bo {
	uint32_t handle, addr;
	uint8_t *map;
};

static int native_bo(struct kdev *kd, uint32_t size, struct native_bo *b)
{
	struct drm_v3d_create_bo c = { .size = size };
	int r = kdev_ioctl(kd, DRM_IOCTL_V3D_CREATE_BO, &c);
	struct drm_v3d_mmap_bo m = { .handle = c.handle };
	if (r == 0)
		r = kdev_ioctl(kd, DRM_IOCTL_V3D_MMAP_BO, &m);
	if (r < 0)
		return r;
	void *p = kd->ops->mmap(kd, size, PROT_READ | PROT_WRITE, MAP_SHARED, m.offset);
	if (p == MAP_FAILED)
		return -errno;
	*b = (struct native_bo){ .handle = c.handle, .addr = c.offset, .map = p };
	return 0;
}

static int bench_native(const char *gpu, int iters, struct rt *out)
{
	struct sim_v3d_device *dev;
	int r = sim_v3d_device_create(gpu, &dev);
	if (r < 0)
		return r;
	int ver = sim_v3d_version(dev);
	struct kdev *kd = sim_v3d_open(dev);
	if (!kd) {
		sim_v3d_device_destroy(dev);
		return -ENOMEM;
	}
	struct native_bo lists, ta, dst;
	struct fill_cl cl;
	r = native_bo(kd, 3 * LIST_BYTES, &lists);
	if (r == 0)
		r = native_bo(kd, 32768, &ta);
	if (r == 0)
		r = native_bo(kd, 4096, &dst);
	if (r == 0 && !build_fill(ver, lists.map, lists.addr, ta.addr, dst.addr, &cl))
		r = -EINVAL;
	struct drm_syncobj_create sc = { 0 };
	if (r == 0)
		r = kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_CREATE, &sc);
	double *lat = calloc((size_t)iters, sizeof(*lat));
	if (!lat)
		r = -ENOMEM;
	uint32_t handles[3] = { lists.handle, ta.handle, dst.handle };
	for (int i = 0; i < iters && r == 0; i++) {
		double t0 = bench_now_us();
		struct drm_v3d_submit_cl s = {
			.bcl_start = lists.addr, .bcl_end = cl.bcl_end, .rcl_start = cl.rcl_start, .rcl_end = cl.rcl_end,
			.out_sync = sc.handle, .qma = ta.addr, .qms = cl.qms, .qts = ta.addr,
			.bo_handles = (uintptr_t)handles, .bo_handle_count = 3,
		};
		r = kdev_ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &s);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		struct drm_syncobj_wait w = { .handles = (uintptr_t)&sc.handle, .count_handles = 1,
					      .timeout_nsec = (int64_t)(ts.tv_sec + 10) * 1000000000 + ts.tv_nsec };
		if (r == 0)
			r = kdev_ioctl(kd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
		lat[i] = bench_now_us() - t0;
	}
	if (r == 0)
		summarize(lat, iters, out);
	free(lat);
	kd->ops->close(kd); /* closes handles and syncobjs; the mappings go with the process */
	sim_v3d_device_destroy(dev);
	return r;
}

/* ---- through ferryd ---- */

/* draws == 0: the minimal fill; else the v3d_workload job of that many draws. */
static int bench_ferry(const char *uri, uint32_t policy, uint32_t draws, int iters, struct rt *out)
{
	struct ferry_device *dev;
	int r = ferry_device_open(uri, &dev);
	if (r < 0)
		return r;
	struct ferry_context *ctx = NULL;
	struct ferry_queue *q = NULL;
	struct ferry_bo *bo[4] = { NULL, NULL, NULL, NULL };
	uint32_t sizes[4] = { 3 * LIST_BYTES, 32768, 4096, 0 };
	uint32_t nr_bos = 3;
	void *maps[4] = { NULL, NULL, NULL, NULL };
	uint64_t addr[4] = { 0, 0, 0, 0 };
	uint64_t ident0 = 0;
	r = ferry_device_param(dev, DRM_V3D_PARAM_V3D_CORE0_IDENT0, &ident0);
	int ver = (ident0 >> 24) == 7 ? 71 : 42;
	struct v3d_workload_sizes wsz;
	if (draws) {
		/* cl, tile memory, render target, data: the order the minimal fill's first three keep */
		v3d_workload_sizes(ver, draws, &wsz);
		sizes[0] = wsz.cl_bytes;
		sizes[1] = wsz.ta_bytes;
		sizes[2] = V3D_WORKLOAD_DST_BYTES;
		sizes[3] = wsz.data_bytes;
		nr_bos = 4;
	}
	if (r == 0)
		r = ferry_context_create(dev, FERRY_FAMILY_V3D, policy, &ctx);
	if (r == 0)
		r = ferry_queue_create_kind(ctx, FERRY_QUEUE_KIND_V3D_CL, 0, &q);
	for (uint32_t i = 0; i < nr_bos && r == 0; i++) {
		r = ferry_bo_new(ctx, sizes[i], 0, &bo[i]);
		if (r == 0)
			r = ferry_bo_map(bo[i], &maps[i]);
		if (r == 0)
			r = ferry_bo_iova(bo[i], &addr[i]);
	}
	struct ferry_v3d_cl s = { .bos = bo, .nr_bos = nr_bos };
	if (r == 0 && draws) {
		const struct v3d_workload w = {
			.ver = ver, .draws = draws, .cl = maps[0], .cl_addr = (uint32_t)addr[0], .data = maps[3],
			.data_addr = (uint32_t)addr[3], .ta_addr = (uint32_t)addr[1], .dst_addr = (uint32_t)addr[2],
		};
		struct v3d_workload_job job;
		if (!v3d_workload_build(&w, &job))
			r = -EINVAL;
		s = (struct ferry_v3d_cl){ .bcl_start = job.bcl_start, .bcl_end = job.bcl_end,
					   .rcl_start = job.rcl_start, .rcl_end = job.rcl_end, .qma = job.qma,
					   .qms = job.qms, .qts = job.qts, .bos = bo, .nr_bos = nr_bos };
	} else if (r == 0) {
		struct fill_cl cl;
		if (!build_fill(ver, maps[0], (uint32_t)addr[0], (uint32_t)addr[1], (uint32_t)addr[2], &cl))
			r = -EINVAL;
		s = (struct ferry_v3d_cl){ .bcl_start = (uint32_t)addr[0], .bcl_end = cl.bcl_end,
					   .rcl_start = cl.rcl_start, .rcl_end = cl.rcl_end, .qma = (uint32_t)addr[1],
					   .qms = cl.qms, .qts = (uint32_t)addr[1], .bos = bo, .nr_bos = nr_bos };
	}
	double *lat = calloc((size_t)iters, sizeof(*lat));
	if (!lat)
		r = -ENOMEM;
	for (int i = 0; i < iters && r == 0; i++) {
		double t0 = bench_now_us();
		uint32_t seqno;
		r = ferry_v3d_submit_cl(q, &s, &seqno);
		if (r == 0)
			r = ferry_fence_wait(q, seqno, 10ll * 1000 * 1000 * 1000);
		lat[i] = bench_now_us() - t0;
	}
	if (r == 0)
		summarize(lat, iters, out);
	free(lat);
	ferry_device_close(dev); /* frees the context, queue and BOs */
	return r;
}

/* Draws of the realistic job: a light and a heavy v3dv frame. */
static const uint32_t workload_draws[2] = { 100, 2000 };

static void print_rates(const char *gpu)
{
	int ver = strcmp(gpu, "v3d-7.1") == 0 ? 71 : 42;
	printf("\nV3D CL validation in process (copy + validate into shadow memory; a v3dv-shaped job:\n"
	       "bin list of N draws, each with its state packets and shader state block, + render list):\n");
	printf("%-12s %10s %9s %9s %11s %12s %12s %7s\n", "draws", "bytes", "segments", "blocks", "us / job",
	       "valid. MB/s", "memcpy MB/s", "ratio");
	for (int i = 0; i < 2; i++) {
		struct v3d_workload_rate rate;
		int r = v3d_workload_validate_rate(ver, workload_draws[i], 0.3, &rate);
		if (r < 0) {
			printf("%-12u failed: %s\n", workload_draws[i], strerror(-r));
			continue;
		}
		printf("%-12u %10llu %9u %9u %11.1f %12.0f %12.0f %6.3fx\n", workload_draws[i],
		       (unsigned long long)rate.bytes, rate.segments, rate.blocks, rate.us_per_job, rate.mb_per_s,
		       rate.copy_mb_per_s, rate.mb_per_s / rate.copy_mb_per_s);
	}
	printf("  bytes = list bytes walked + shader state blocks copied; ratio = validation MB/s / memcpy\n"
	       "  MB/s of the same bytes into the same shadow memory (validation = 0.01x memcpy: 100 times\n"
	       "  slower; higher = less checking cost); both per second of the thread's CPU time\n");
}

int bench_v3d(const char *gpu, const char *server, const char *ferryd_path, int iters)
{
	struct ferryd_proc proc = { .pid = -1 };
	const char *uri = server;
	if (!uri) {
		const char *const extra[] = { "--allow-passthrough", NULL };
		if (ferryd_spawn(ferryd_path, gpu, extra, true, 10000, &proc) < 0)
			return 1;
		uri = proc.uri;
	}
	struct rt val = { 0 }, pt = { 0 }, na = { 0 }, wval[2], wpt[2];
	int rv = bench_ferry(uri, FERRY_POLICY_VALIDATED, 0, iters, &val);
	int rp = bench_ferry(uri, FERRY_POLICY_PASSTHROUGH, 0, iters, &pt);
	int rn = bench_native(gpu, iters, &na);
	/* The realistic job runs longer on the simulator: fewer rounds. */
	int witers = iters / 4 > 10 ? iters / 4 : 10;
	int rwv[2], rwp[2];
	for (int i = 0; i < 2; i++) {
		rwv[i] = bench_ferry(uri, FERRY_POLICY_VALIDATED, workload_draws[i], witers, &wval[i]);
		rwp[i] = rp == 0 ? bench_ferry(uri, FERRY_POLICY_PASSTHROUGH, workload_draws[i], witers, &wpt[i]) : rp;
	}
	if (proc.pid > 0)
		ferryd_stop(&proc, 5000);
	if (rv < 0 || rn < 0) {
		fprintf(stderr, "bench: a V3D measurement failed (ferryd %s, in-process %s)\n", strerror(-rv),
			strerror(-rn));
		return 1;
	}
	printf("ferry bench: simulated %s, %d iterations (one run on this machine; figures, not pass/fail)\n\n",
	       gpu, iters);
	printf("V3D submit+wait of a minimal CL (bin + render of a 1x1 fill):\n");
	printf("%-34s %12s %12s %9s\n", "", "median (us)", "p99 (us)", "ratio");
	printf("%-34s %12.1f %12.1f %8.1fx\n", "in-process (sim kernel uAPI)", na.median_us, na.p99_us, 1.0);
	printf("%-34s %12.1f %12.1f %8.1fx\n", "ferryd, validated context", val.median_us, val.p99_us,
	       val.median_us / na.median_us);
	if (rp == 0)
		printf("%-34s %12.1f %12.1f %8.1fx\n", "ferryd, passthrough context", pt.median_us, pt.p99_us,
		       pt.median_us / na.median_us);
	else
		printf("%-34s %12s\n", "ferryd, passthrough context", "refused");
	printf("ratio = median through ferryd / median in process (higher = more overhead)\n");
	print_rates(gpu);
	printf("\nV3D submit+wait of the realistic job through ferryd (%d iterations):\n", witers);
	printf("%-12s %14s %14s %14s %14s %7s\n", "draws", "valid. median", "valid. p99", "passth. median",
	       "passth. p99", "ratio");
	for (int i = 0; i < 2; i++) {
		if (rwv[i] < 0) {
			printf("%-12u validated context failed: %s\n", workload_draws[i], strerror(-rwv[i]));
			continue;
		}
		if (rwp[i] < 0) {
			printf("%-12u %14.1f %14.1f %14s\n", workload_draws[i], wval[i].median_us, wval[i].p99_us, "refused");
			continue;
		}
		printf("%-12u %14.1f %14.1f %14.1f %14.1f %6.2fx\n", workload_draws[i], wval[i].median_us,
		       wval[i].p99_us, wpt[i].median_us, wpt[i].p99_us, wval[i].median_us / wpt[i].median_us);
	}
	printf("  (us) ratio = validated median / passthrough median (higher = more validation overhead)\n");
	return 0;
}
