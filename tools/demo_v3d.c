/* `ferry demo --gpu v3d-4.2|v3d-7.1`: a checked V3D guest workload through ferryd — BOs at global
 * addresses, a v3dv-shaped render CL copying an image, a render CL clearing one, a TFU copy
 * chained after the CL through an in-fence, and a store to an unmapped address in a second
 * (passthrough) client: its fault report arrives and only that context is lost. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ferry/uapi/v3d_drm.h"
#include "demo_v3d.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "v3d_cl_builder.h"

#define WAIT_NS (10ll * 1000 * 1000 * 1000)
#define LIST_BYTES 16384u

static int checks, failures;

static void check(bool ok, const char *what)
{
	checks++;
	if (!ok) {
		failures++;
		printf("    CHECK FAILED: %s\n", what);
	}
}

struct vbo {
	struct ferry_bo *bo;
	uint8_t *cpu;
	uint32_t addr, size;
};

static int vbo_new(struct ferry_context *ctx, uint32_t size, struct vbo *b)
{
	void *p = NULL;
	uint64_t iova = 0;
	int r = ferry_bo_new(ctx, size, 0, &b->bo);
	if (r == 0)
		r = ferry_bo_map(b->bo, &p);
	if (r == 0)
		r = ferry_bo_iova(b->bo, &iova);
	b->cpu = p;
	b->addr = (uint32_t)iova;
	b->size = size;
	return r;
}

struct vctx {
	struct ferry_context *ctx;
	struct ferry_queue *cl, *tfu;
	struct vbo lists, ta;
	int ver;
};

static int vctx_new(struct ferry_device *dev, uint32_t policy, int ver, struct vctx *v)
{
	memset(v, 0, sizeof(*v));
	v->ver = ver;
	int r = ferry_context_create(dev, FERRY_FAMILY_V3D, policy, &v->ctx);
	if (r == 0)
		r = ferry_queue_create_kind(v->ctx, FERRY_QUEUE_KIND_V3D_CL, 0, &v->cl);
	if (r == 0)
		r = ferry_queue_create_kind(v->ctx, FERRY_QUEUE_KIND_V3D_TFU, 0, &v->tfu);
	if (r == 0)
		r = vbo_new(v->ctx, 3 * LIST_BYTES, &v->lists);
	if (r == 0)
		r = vbo_new(v->ctx, 64 * 1024, &v->ta);
	return r;
}

/* Builds and submits a raster copy (clear_color NULL) or fill of w x h RGBA8UI. */
static int raster_cl(struct vctx *v, uint32_t w, uint32_t h, const struct vbo *src, uint32_t dst_addr,
		     const struct vbo *dst, const uint32_t *clear_color, uint32_t *seqno)
{
	struct v3d_clb_raster_job job = {
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = v->ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = src ? src->addr : 0, .src_stride = w * 4, .dst_addr = dst_addr, .dst_stride = w * 4,
		.clear_color = clear_color, .tile_alloc_addr = v->ta.addr,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(v->ver, &job);
	if ((uint64_t)qms + 16384 > v->ta.size)
		return -E2BIG;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, v->ver, v->lists.cpu, LIST_BYTES, v->lists.addr);
	v3d_clb_init(&rcl, v->ver, v->lists.cpu + LIST_BYTES, LIST_BYTES, v->lists.addr + LIST_BYTES);
	v3d_clb_init(&ind, v->ver, v->lists.cpu + 2 * LIST_BYTES, LIST_BYTES, v->lists.addr + 2 * LIST_BYTES);
	if (!v3d_clb_raster_bin(&bcl, &job) || !v3d_clb_raster_render(&rcl, &ind, &job))
		return -EINVAL;
	struct ferry_bo *bos[4] = { v->lists.bo, v->ta.bo, dst->bo, src ? src->bo : NULL };
	struct ferry_v3d_cl s = {
		.bcl_start = v->lists.addr, .bcl_end = v3d_clb_gpu_addr(&bcl),
		.rcl_start = v->lists.addr + LIST_BYTES, .rcl_end = v3d_clb_gpu_addr(&rcl),
		.qma = v->ta.addr, .qms = qms, .qts = v->ta.addr, .bos = bos, .nr_bos = src ? 4 : 3,
	};
	return ferry_v3d_submit_cl(v->cl, &s, seqno);
}

int demo_v3d(const char *gpu, int ver, const char *server, const char *ferryd_path)
{
	struct ferryd_proc proc = { .pid = -1 };
	const char *uri = server;
	if (!uri) {
		/* Shared tenancy so the second client is admitted beside the first; passthrough so
		 * its bad store gets past the validator and faults on the GPU. */
		const char *const extra[] = { "--v3d-tenancy=shared", "--allow-passthrough", NULL };
		if (ferryd_spawn(ferryd_path, gpu, extra, true, 10000, &proc) < 0)
			return 1;
		uri = proc.uri;
		printf("[1] ferryd --gpu %s --v3d-tenancy=shared, pid %d\n", gpu, (int)proc.pid);
	}
	struct ferry_device *dev = NULL, *dev_b = NULL;
	struct vctx a = { 0 }, b = { 0 };
	struct vbo src = { 0 }, dst = { 0 }, out = { 0 };
	int r = ferry_device_open(uri, &dev);
	check(r == 0, "connect");
	if (r < 0)
		goto out;
	uint64_t ident0 = 0, tfu = 0;
	ferry_device_param(dev, DRM_V3D_PARAM_V3D_CORE0_IDENT0, &ident0);
	ferry_device_param(dev, DRM_V3D_PARAM_SUPPORTS_TFU, &tfu);
	printf("[2] device %s: CORE0_IDENT0 0x%08" PRIx64 " (V3D %" PRIu64 ".x), TFU %s\n", gpu, ident0, ident0 >> 24,
	       tfu ? "yes" : "no");
	check(ident0 >> 24 == (uint64_t)ver / 10, "ident version");

	const uint32_t w = 96, h = 48, bytes = w * h * 4;
	r = vctx_new(dev, FERRY_POLICY_VALIDATED, ver, &a);
	if (r == 0)
		r = vbo_new(a.ctx, bytes, &src);
	if (r == 0)
		r = vbo_new(a.ctx, bytes, &dst);
	if (r == 0)
		r = vbo_new(a.ctx, bytes, &out);
	check(r == 0, "context A and its BOs");
	if (r < 0)
		goto out;
	printf("[3] context A (validated): lists 0x%08x, tile alloc 0x%08x, src 0x%08x, dst 0x%08x, out 0x%08x\n",
	       a.lists.addr, a.ta.addr, src.addr, dst.addr, out.addr);
	for (uint32_t i = 0; i < bytes; i++)
		src.cpu[i] = (uint8_t)(i * 13 + 7);

	uint32_t seqno = 0;
	r = raster_cl(&a, w, h, &src, dst.addr, &dst, NULL, &seqno);
	check(r == 0 && ferry_fence_wait(a.cl, seqno, WAIT_NS) == 0, "copy CL completes");
	check(memcmp(dst.cpu, src.cpu, bytes) == 0, "copy CL: dst == src");
	printf("[4] render CL copy %ux%u RGBA8UI (bin then render): %s\n", w, h,
	       memcmp(dst.cpu, src.cpu, bytes) ? "WRONG" : "byte-exact");

	/* The TFU copies dst -> out on its own queue, held by ferryd until the copy CL signaled. */
	struct ferry_fence_ref after_copy = { .queue_id = ferry_queue_id(a.cl), .seqno = seqno };
	struct ferry_bo *tfu_bos[] = { out.bo, dst.bo };
	struct ferry_v3d_tfu t = { .iia = dst.addr, .iis = w, .ioa = out.addr, .ios = V3D_TFU_IOS(w, h),
				   .bos = tfu_bos, .nr_bos = 2, .in_fences = &after_copy, .nr_in_fences = 1 };
	if (ver >= 71) {
		t.icfg = V3D71_TFU_ICFG_OTYPE_SET(4); /* rgba8 */
		t.v71_ioc = V3D71_TFU_IOC_STRIDE_SET(w);
	} else {
		t.icfg = V3D42_TFU_ICFG_TTYPE_SET(4);
	}
	uint32_t tfu_seqno = 0;
	r = ferry_v3d_submit_tfu(a.tfu, &t, &tfu_seqno);
	check(r == 0 && ferry_fence_wait(a.tfu, tfu_seqno, WAIT_NS) == 0, "TFU completes");
	check(memcmp(out.cpu, src.cpu, bytes) == 0, "TFU: out == src");
	printf("[5] TFU raster copy dst -> out (in-fence: the copy CL): %s\n",
	       memcmp(out.cpu, src.cpu, bytes) ? "WRONG" : "byte-exact");

	const uint32_t color[4] = { 0x11223344u, 0, 0, 0 };
	r = raster_cl(&a, w, h, NULL, dst.addr, &dst, color, &seqno);
	check(r == 0 && ferry_fence_wait(a.cl, seqno, WAIT_NS) == 0, "clear CL completes");
	unsigned wrong = 0;
	for (uint32_t i = 0; i < w * h; i++)
		wrong += memcmp(dst.cpu + 4 * i, &color[0], 4) != 0;
	check(wrong == 0, "clear CL: every pixel 0x11223344");
	printf("[6] render CL clear to 0x%08x: %u wrong pixels\n", color[0], wrong);

	r = ferry_device_open(uri, &dev_b);
	if (r == 0)
		r = vctx_new(dev_b, FERRY_POLICY_PASSTHROUGH, ver, &b);
	check(r == 0, "client B (passthrough)");
	if (r < 0)
		goto out;
	struct vbo bdst = { 0 };
	r = vbo_new(b.ctx, 4096, &bdst);
	uint32_t bad_seqno = 0;
	if (r == 0)
		r = raster_cl(&b, 16, 16, NULL, 0xf0000000u, &bdst, color, &bad_seqno);
	int st = r == 0 ? ferry_fence_wait(b.cl, bad_seqno, WAIT_NS) : r;
	check(st == -EIO, "B's store to 0xf0000000 faults (-EIO)");
	const struct ferry_fault_info *fi = NULL;
	for (int i = 0; i < 1000 && !fi; i++) {
		ferry_device_poll_events(dev_b);
		fi = ferry_context_fault(b.ctx, 0);
		if (!fi)
			usleep(2000);
	}
	check(fi != NULL, "B got a fault report");
	check(ferry_context_lost(b.ctx), "B's context is lost");
	printf("[7] client B (passthrough) clears 16x16 at unmapped 0xf0000000: fence %d, report %s\n", st,
	       fi ? "received" : "MISSING");
	if (fi) {
		printf("    fault at 0x%08" PRIx64 " (%s), packet 0x%08" PRIx64 "; report:\n", fi->iova,
		       fi->flags & FERRY_FAULT_WRITE ? "write" : "read", fi->ib_iova);
		const char *line = fi->text;
		for (int n = 0; line && *line && n < 12; n++) {
			const char *end = strchr(line, '\n');
			int len = end ? (int)(end - line) : (int)strlen(line);
			printf("      | %.*s\n", len, line);
			line = end ? end + 1 : NULL;
		}
	}
	r = raster_cl(&a, w, h, &src, dst.addr, &dst, NULL, &seqno);
	check(r == 0 && ferry_fence_wait(a.cl, seqno, WAIT_NS) == 0 && memcmp(dst.cpu, src.cpu, bytes) == 0,
	      "A unaffected");
	check(!ferry_context_lost(a.ctx), "A not lost");
	printf("[8] client A copies again after B's fault: %s\n", failures ? "see failures" : "ok");
out:
	if (dev_b)
		ferry_device_close(dev_b);
	if (dev)
		ferry_device_close(dev);
	if (proc.pid > 0) {
		if (failures)
			ferryd_dump_log(&proc, 30);
		int ws = ferryd_stop(&proc, 10000);
		check(ws >= 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "ferryd exits 0");
	}
	printf("\ndemo %s: %d checks, %d failed\n", failures ? "FAILED" : "passed", checks, failures);
	return failures ? 1 : 0;
}
