/* V3D end to end through ferryd (--gpu v3d-4.2 and v3d-7.1) and libferry: device params, a
 * v3dv-shaped render CL copying a raster image byte-exactly (bin then render), a TFU copy, a
 * CL -> TFU -> CSD chain across queues through in-fences, envelope rejections, exclusive and
 * shared tenancy, and an MMU fault in one client while another keeps completing jobs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ferry/uapi/v3d_drm.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "itest.h"
#include "test.h"
#include "v3d_cl_builder.h"

#define WAIT_NS (20ll * 1000 * 1000 * 1000)
#define CL_SIZE 16384u

static char ferryd_path[4096];

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void start(struct ferryd_proc *p, const char *gpu, bool shared)
{
	/* Shared tenancy is also where a passthrough client gets its fault past the validator. */
	const char *shared_args[] = { "--v3d-tenancy=shared", "--allow-passthrough", NULL };
	/* Generous: ASan builds start slowly on a loaded 2-core machine. */
	REQUIRE(ferryd_spawn(ferryd_path, gpu, shared ? shared_args : NULL, true, 30000, p) == 0);
}

static void stop(struct ferryd_proc *p)
{
	int st = ferryd_stop(p, 20000);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

struct vbo {
	struct ferry_bo *bo;
	uint8_t *cpu;
	uint32_t addr; /* V3D GPU address */
	uint32_t size;
};

static int vbo_new(struct ferry_context *ctx, uint32_t size, struct vbo *b)
{
	memset(b, 0, sizeof(*b));
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

/* One client: a V3D context with a CL, a TFU and a CSD queue. */
struct vclient {
	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *cl, *tfu, *csd;
	int ver;
};

static int vclient_open_policy(const char *uri, uint32_t policy, struct vclient *c)
{
	memset(c, 0, sizeof(*c));
	int r = ferry_device_open(uri, &c->dev);
	if (r < 0)
		return r;
	r = ferry_context_create(c->dev, FERRY_FAMILY_V3D, policy, &c->ctx);
	if (r == 0)
		r = ferry_queue_create_kind(c->ctx, FERRY_QUEUE_KIND_V3D_CL, 0, &c->cl);
	if (r == 0)
		r = ferry_queue_create_kind(c->ctx, FERRY_QUEUE_KIND_V3D_TFU, 0, &c->tfu);
	if (r == 0)
		r = ferry_queue_create_kind(c->ctx, FERRY_QUEUE_KIND_V3D_CSD, 0, &c->csd);
	uint64_t ident0 = 0, ident1 = 0;
	if (r == 0)
		r = ferry_device_param(c->dev, DRM_V3D_PARAM_V3D_CORE0_IDENT0, &ident0);
	if (r == 0)
		r = ferry_device_param(c->dev, DRM_V3D_PARAM_V3D_CORE0_IDENT1, &ident1);
	c->ver = (int)((ident0 >> 24) & 0xff) * 10 + (int)(ident1 & 0xf);
	return r;
}

static int vclient_open(const char *uri, struct vclient *c)
{
	return vclient_open_policy(uri, FERRY_POLICY_VALIDATED, c);
}

static void vclient_close(struct vclient *c)
{
	if (c->ctx)
		ferry_context_destroy(c->ctx);
	if (c->dev)
		ferry_device_close(c->dev);
	memset(c, 0, sizeof(*c));
}

/* BOs of one raster copy: CL lists, tile alloc + state, source, destination. */
struct copy_job {
	struct vbo cl, ta, src, dst;
	struct v3d_clb_raster_job job;
	uint32_t bcl_end, rcl_start, rcl_end;
	uint32_t w, h, src_stride, dst_stride;
};

static uint32_t page_round(uint64_t n)
{
	return (uint32_t)((n + 4095) & ~4095ull);
}

/* Builds a copy of w x h RGBA8UI from src to dst_addr (0 = the job's own dst BO). */
static void copy_job_build(struct vclient *c, struct copy_job *j, uint32_t w, uint32_t h, uint32_t dst_addr)
{
	j->w = w;
	j->h = h;
	j->src_stride = w * 4 + 12;
	j->dst_stride = w * 4 + 4;
	REQUIRE(vbo_new(c->ctx, 3 * CL_SIZE, &j->cl) == 0);
	REQUIRE(vbo_new(c->ctx, page_round((uint64_t)j->src_stride * h), &j->src) == 0);
	REQUIRE(vbo_new(c->ctx, page_round((uint64_t)j->dst_stride * h), &j->dst) == 0);
	j->job = (struct v3d_clb_raster_job){
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = c->ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = j->src.addr, .src_stride = j->src_stride,
		.dst_addr = dst_addr ? dst_addr : j->dst.addr, .dst_stride = j->dst_stride,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(c->ver, &j->job);
	/* The implicit tile lists are fetched with read-ahead: slack past the blocks. */
	REQUIRE(vbo_new(c->ctx, page_round((uint64_t)qms + 16384), &j->ta) == 0);
	j->job.tile_alloc_addr = j->ta.addr;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, c->ver, j->cl.cpu, CL_SIZE, j->cl.addr);
	v3d_clb_init(&rcl, c->ver, j->cl.cpu + CL_SIZE, CL_SIZE, j->cl.addr + CL_SIZE);
	v3d_clb_init(&ind, c->ver, j->cl.cpu + 2 * CL_SIZE, CL_SIZE, j->cl.addr + 2 * CL_SIZE);
	REQUIRE(v3d_clb_raster_bin(&bcl, &j->job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &j->job));
	j->bcl_end = v3d_clb_gpu_addr(&bcl);
	j->rcl_start = j->cl.addr + CL_SIZE;
	j->rcl_end = v3d_clb_gpu_addr(&rcl);
	uint32_t seed = 0x9e3779b9u ^ w ^ (h << 8);
	for (uint32_t i = 0; i < j->src.size; i++) {
		seed = seed * 1103515245u + 12345u;
		j->src.cpu[i] = (uint8_t)(seed >> 16);
	}
	memset(j->dst.cpu, 0xab, j->dst.size);
}

static int copy_job_submit(struct vclient *c, struct copy_job *j, uint32_t *seqno)
{
	struct ferry_bo *bos[] = { j->cl.bo, j->ta.bo, j->src.bo, j->dst.bo };
	struct ferry_v3d_cl s = {
		.bcl_start = j->cl.addr, .bcl_end = j->bcl_end, .rcl_start = j->rcl_start, .rcl_end = j->rcl_end,
		.qma = j->ta.addr, .qms = v3d_clb_raster_tile_alloc_size(c->ver, &j->job), .qts = j->ta.addr,
		.bos = bos, .nr_bos = 4, .flags = FERRY_SUBMIT_NOTIFY,
	};
	return ferry_v3d_submit_cl(c->cl, &s, seqno);
}

/* Rows equal the source, the padding and the tail keep 0xab. */
static unsigned copy_job_bad_bytes(const struct copy_job *j)
{
	unsigned bad = 0;
	for (uint32_t y = 0; y < j->h; y++) {
		if (memcmp(j->dst.cpu + (size_t)y * j->dst_stride, j->src.cpu + (size_t)y * j->src_stride, j->w * 4))
			bad++;
		for (uint32_t x = j->w * 4; x < j->dst_stride; x++)
			bad += j->dst.cpu[(size_t)y * j->dst_stride + x] != 0xab;
	}
	for (uint64_t i = (uint64_t)j->dst_stride * j->h; i < j->dst.size; i++)
		bad += j->dst.cpu[i] != 0xab;
	return bad;
}

static void copy_job_free(struct copy_job *j)
{
	ferry_bo_close(j->cl.bo);
	ferry_bo_close(j->ta.bo);
	ferry_bo_close(j->src.bo);
	ferry_bo_close(j->dst.bo);
}

static void test_device_and_copy(const char *gpu, int want_ver)
{
	struct ferryd_proc p;
	start(&p, gpu, false);
	struct vclient c;
	REQUIRE(vclient_open(p.uri, &c) == 0);
	uint32_t family = 0;
	const char *name = NULL;
	CHECK_EQ(ferry_device_info(c.dev, &family, &name), 0);
	CHECK_EQ(family, FERRY_FAMILY_V3D);
	CHECK(name && strcmp(name, gpu) == 0);
	CHECK_EQ(c.ver, want_ver);
	uint64_t v = 0;
	CHECK_EQ(ferry_device_param(c.dev, DRM_V3D_PARAM_SUPPORTS_TFU, &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(ferry_device_param(c.dev, DRM_V3D_PARAM_SUPPORTS_CSD, &v), 0);
	CHECK_EQ(v, 1);

	/* An msm context on a V3D server is refused with the reason. */
	struct ferry_context *msm = NULL;
	CHECK_EQ(ferry_context_create(c.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &msm), -ENODEV);
	/* V3D has no always-on counter parameter: the query is refused, the context stays. */
	CHECK_EQ(ferry_context_timestamp(c.ctx, &v), -EINVAL);
	CHECK(!ferry_context_lost(c.ctx));

	/* The render list reads the tile lists the bin list wrote: a right result means render ran
	 * after its bin. Two sizes, one spanning several tiles both ways. */
	const uint32_t sizes[][2] = { { 100, 70 }, { 1, 1 }, { 257, 33 } };
	for (unsigned i = 0; i < 3; i++) {
		struct copy_job j;
		copy_job_build(&c, &j, sizes[i][0], sizes[i][1], 0);
		uint32_t seqno = 0;
		CHECK_EQ(copy_job_submit(&c, &j, &seqno), 0);
		CHECK_EQ(ferry_fence_wait(c.cl, seqno, WAIT_NS), 0);
		unsigned bad = copy_job_bad_bytes(&j);
		CHECK_EQ(bad, 0);
		if (bad)
			fprintf(stderr, "  %s copy %ux%u: %u bad\n", gpu, sizes[i][0], sizes[i][1], bad);
		copy_job_free(&j);
	}

	/* Envelope: an RCL outside the listed BOs is refused; the seqno completes with the error. */
	struct copy_job j;
	copy_job_build(&c, &j, 8, 8, 0);
	struct ferry_bo *only_src[] = { j.src.bo };
	struct ferry_v3d_cl bad = {
		.rcl_start = j.rcl_start, .rcl_end = j.rcl_end, .bos = only_src, .nr_bos = 1,
	};
	uint32_t seqno = 0;
	CHECK_EQ(ferry_v3d_submit_cl(c.cl, &bad, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(c.cl, seqno, WAIT_NS), -EINVAL);
	CHECK(strstr(ferry_device_last_error(c.dev), "RCL") != NULL);
	/* A CL on the TFU queue is refused too. */
	CHECK_EQ(ferry_v3d_submit_cl(c.tfu, &bad, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(c.tfu, seqno, WAIT_NS), -EINVAL);
	CHECK(!ferry_context_lost(c.ctx));
	/* ... and the context still works. */
	CHECK_EQ(copy_job_submit(&c, &j, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(c.cl, seqno, WAIT_NS), 0);
	CHECK_EQ(copy_job_bad_bytes(&j), 0);
	copy_job_free(&j);

	vclient_close(&c);
	stop(&p);
}

/* TFU raster copy of w x h 4-byte pixels (TTYPE/OTYPE 4 = 32 bpp), output stride = width. */
static struct ferry_v3d_tfu tfu_copy(int ver, uint32_t src, uint32_t src_stride_px, uint32_t dst, uint32_t w,
				     uint32_t h)
{
	struct ferry_v3d_tfu t = { .iia = src, .iis = src_stride_px, .ioa = dst, .ios = (h << 16) | w };
	if (ver >= 71) {
		t.icfg = 4u << 16;    /* OTYPE; IFORMAT 0 = raster */
		t.v71_ioc = w << 16; /* FORMAT 0 = raster, STRIDE */
	} else {
		t.icfg = 4u << 9;     /* TTYPE; FORMAT 0 = raster */
	}
	return t;
}

static void test_tfu_and_chain(const char *gpu)
{
	struct ferryd_proc p;
	start(&p, gpu, false);
	struct vclient c;
	REQUIRE(vclient_open(p.uri, &c) == 0);

	/* CL copies src -> dst; TFU (waiting for it) copies dst -> out; CSD waits for the TFU. */
	const uint32_t w = 200, h = 64;
	struct copy_job j;
	copy_job_build(&c, &j, w, h, 0);
	struct vbo out, shader;
	REQUIRE(vbo_new(c.ctx, page_round((uint64_t)w * 4 * h), &out) == 0);
	REQUIRE(vbo_new(c.ctx, 4096, &shader) == 0);
	memset(out.cpu, 0xcd, out.size);

	uint32_t cl_seqno = 0, tfu_seqno = 0, csd_seqno = 0;
	CHECK_EQ(copy_job_submit(&c, &j, &cl_seqno), 0);
	struct ferry_fence_ref after_cl = { .queue_id = ferry_queue_id(c.cl), .seqno = cl_seqno };
	struct ferry_bo *tfu_bos[] = { out.bo, j.dst.bo };
	struct ferry_v3d_tfu t = tfu_copy(c.ver, j.dst.addr, j.dst_stride / 4, out.addr, w, h);
	t.bos = tfu_bos;
	t.nr_bos = 2;
	t.in_fences = &after_cl;
	t.nr_in_fences = 1;
	CHECK_EQ(ferry_v3d_submit_tfu(c.tfu, &t, &tfu_seqno), 0);
	struct ferry_fence_ref after_tfu = { .queue_id = ferry_queue_id(c.tfu), .seqno = tfu_seqno };
	struct ferry_bo *csd_bos[] = { shader.bo };
	struct ferry_v3d_csd d = {
		/* 1x1x1 workgroups of 16 invocations: one batch (CFG4 = batches - 1 before 7.1.6). */
		.cfg = { 1u << 16, 1u << 16, 1u << 16, 16, 0, shader.addr, shader.addr + 256 },
		.bos = csd_bos, .nr_bos = 1, .in_fences = &after_tfu, .nr_in_fences = 1,
	};
	CHECK_EQ(ferry_v3d_submit_csd(c.csd, &d, &csd_seqno), 0);

	CHECK_EQ(ferry_fence_wait(c.csd, csd_seqno, WAIT_NS), 0);
	/* The CSD signaled last in the chain: everything before it had. */
	CHECK(ferry_fence_signaled(c.tfu, tfu_seqno));
	CHECK(ferry_fence_signaled(c.cl, cl_seqno));
	CHECK_EQ(copy_job_bad_bytes(&j), 0);
	unsigned bad = 0;
	for (uint32_t y = 0; y < h; y++)
		bad += memcmp(out.cpu + (size_t)y * w * 4, j.src.cpu + (size_t)y * j.src_stride, w * 4) != 0;
	CHECK_EQ(bad, 0);

	/* A lone TFU copy, 7.1 with a wider output stride too. */
	memset(out.cpu, 0, out.size);
	struct ferry_bo *lone_bos[] = { out.bo, j.src.bo };
	t = tfu_copy(c.ver, j.src.addr, j.src_stride / 4, out.addr, 33, 17);
	t.bos = lone_bos;
	t.nr_bos = 2;
	CHECK_EQ(ferry_v3d_submit_tfu(c.tfu, &t, &tfu_seqno), 0);
	CHECK_EQ(ferry_fence_wait(c.tfu, tfu_seqno, WAIT_NS), 0);
	bad = 0;
	for (uint32_t y = 0; y < 17; y++)
		bad += memcmp(out.cpu + (size_t)y * 33 * 4, j.src.cpu + (size_t)y * j.src_stride, 33 * 4) != 0;
	CHECK_EQ(bad, 0);
	CHECK(!ferry_context_lost(c.ctx));

	ferry_bo_close(out.bo);
	ferry_bo_close(shader.bo);
	copy_job_free(&j);
	vclient_close(&c);
	stop(&p);
}

/* Retries a V3D context create refused with -EBUSY until the holder's release got through. */
static bool create_within(struct ferry_device *dev, struct ferry_context **out)
{
	*out = NULL;
	for (int64_t end = now_ms() + 20000; now_ms() < end;) {
		int r = ferry_context_create(dev, FERRY_FAMILY_V3D, FERRY_POLICY_VALIDATED, out);
		if (r != -EBUSY)
			return r == 0;
		usleep(5000);
	}
	return false;
}

static void test_exclusive_tenancy(void)
{
	struct ferryd_proc p;
	start(&p, "v3d-4.2", false);
	struct vclient a;
	REQUIRE(vclient_open(p.uri, &a) == 0);
	struct ferry_device *b = NULL;
	REQUIRE(ferry_device_open(p.uri, &b) == 0);
	struct ferry_context *bctx = NULL;
	CHECK_EQ(ferry_context_create(b, FERRY_FAMILY_V3D, FERRY_POLICY_VALIDATED, &bctx), -EBUSY);
	const char *why = ferry_device_last_error(b);
	CHECK(strstr(why, "held by client") && strstr(why, "exclusive tenancy"));
	/* The holder may have several contexts; the device is free when the last one goes. */
	struct ferry_context *a2 = NULL;
	CHECK_EQ(ferry_context_create(a.dev, FERRY_FAMILY_V3D, FERRY_POLICY_VALIDATED, &a2), 0);
	ferry_context_destroy(a.ctx);
	a.ctx = NULL;
	CHECK_EQ(ferry_context_create(b, FERRY_FAMILY_V3D, FERRY_POLICY_VALIDATED, &bctx), -EBUSY);
	ferry_context_destroy(a2);
	/* The destroy is asynchronous and rides another connection: b may be served first. */
	CHECK(create_within(b, &bctx));
	/* Now a is the one refused; a client disconnecting also releases the device. */
	struct ferry_context *again = NULL;
	CHECK_EQ(ferry_context_create(a.dev, FERRY_FAMILY_V3D, FERRY_POLICY_VALIDATED, &again), -EBUSY);
	ferry_device_close(b);
	CHECK(create_within(a.dev, &again));
	if (again)
		ferry_context_destroy(again);
	vclient_close(&a);
	stop(&p);
}

/* Far above anything the 4 GiB space hands out to these small BOs: a store there faults. */
#define UNMAPPED 0xf0000000u

/* Shared tenancy: both clients are admitted. In a validated context a store to an unmapped
 * address is refused before it runs; in a passthrough one it runs and faults a's job (report
 * delivered, context lost) while b keeps completing copies. */
static void test_shared_fault(const char *gpu)
{
	struct ferryd_proc p;
	start(&p, gpu, true);
	struct vclient a, b;
	REQUIRE(vclient_open_policy(p.uri, FERRY_POLICY_PASSTHROUGH, &a) == 0);
	REQUIRE(vclient_open(p.uri, &b) == 0);

	struct copy_job bj;
	copy_job_build(&b, &bj, 64, 32, 0);
	uint32_t seqno = 0;
	CHECK_EQ(copy_job_submit(&b, &bj, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(b.cl, seqno, WAIT_NS), 0);

	struct copy_job vj;
	copy_job_build(&b, &vj, 16, 16, UNMAPPED);
	CHECK_EQ(copy_job_submit(&b, &vj, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(b.cl, seqno, WAIT_NS), -EINVAL);
	CHECK(strstr(ferry_device_last_error(b.dev), "V3D validation") != NULL);
	CHECK(!ferry_context_lost(b.ctx));
	copy_job_free(&vj);

	struct copy_job aj;
	copy_job_build(&a, &aj, 16, 16, UNMAPPED);
	uint32_t fault_seqno = 0;
	CHECK_EQ(copy_job_submit(&a, &aj, &fault_seqno), 0);

	unsigned b_done = 0;
	for (int i = 0; i < 20; i++) {
		memset(bj.dst.cpu, 0xab, bj.dst.size);
		CHECK_EQ(copy_job_submit(&b, &bj, &seqno), 0);
		if (ferry_fence_wait(b.cl, seqno, WAIT_NS) == 0 && copy_job_bad_bytes(&bj) == 0)
			b_done++;
	}
	CHECK_EQ(b_done, 20);

	if (itest_sim_only("V3D MMU fault report, lost context",
			   "the v3d kernel reports no MMU faults: the job's fence does not fail")) {
		copy_job_free(&aj);
		copy_job_free(&bj);
		vclient_close(&a);
		vclient_close(&b);
		stop(&p);
		return;
	}
	CHECK_EQ(ferry_fence_wait(a.cl, fault_seqno, WAIT_NS), -EIO);
	const struct ferry_fault_info *fi = itest_await_fault(a.dev, a.ctx);
	REQUIRE(fi);
	CHECK_EQ(fi->seqno, fault_seqno);
	CHECK_EQ(fi->queue_id, ferry_queue_id(a.cl));
	CHECK(fi->flags & FERRY_FAULT_WRITE);
	CHECK(fi->iova >= UNMAPPED && fi->iova < UNMAPPED + 16 * 64);
	CHECK(fi->text && strstr(fi->text, "mmu-fault") && strstr(fi->text, "ESTIMATED CRASH LOCATION"));
	CHECK(ferry_context_lost(a.ctx));
	/* Later submits of a fail at once; b is unaffected. */
	CHECK(copy_job_submit(&a, &aj, &seqno) == -EIO);
	CHECK(!ferry_context_lost(b.ctx));
	CHECK_EQ(copy_job_submit(&b, &bj, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(b.cl, seqno, WAIT_NS), 0);

	copy_job_free(&aj);
	copy_job_free(&bj);
	vclient_close(&a);
	vclient_close(&b);
	stop(&p);
}

/* Shared tenancy: a BO one client made, imported by another through its pages fd, is the same
 * GPU object at the same global address: each client's GPU writes what the other reads. */
static void test_shared_import(void)
{
	struct ferryd_proc p;
	start(&p, "v3d-4.2", true);
	struct vclient a, b;
	REQUIRE(vclient_open(p.uri, &a) == 0);
	REQUIRE(vclient_open(p.uri, &b) == 0);
	struct copy_job ja;
	copy_job_build(&a, &ja, 16, 16, 0);
	uint32_t seqno = 0;
	CHECK_EQ(copy_job_submit(&a, &ja, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(a.cl, seqno, WAIT_NS), 0);
	CHECK_EQ(copy_job_bad_bytes(&ja), 0);

	struct ferry_bo *imp = NULL;
	REQUIRE(ferry_bo_import(b.ctx, ferry_bo_fd(ja.dst.bo), &imp) == 0);
	uint64_t addr = 0;
	void *map = NULL;
	CHECK_EQ(ferry_bo_iova(imp, &addr), 0);
	CHECK_EQ(addr, ja.dst.addr); /* one global address space */
	REQUIRE(ferry_bo_map(imp, &map) == 0);
	CHECK(memcmp(map, ja.dst.cpu, ja.dst.size) == 0);

	/* B's GPU copies its own source into the imported BO; A reads it in its mapping. */
	struct copy_job jb;
	copy_job_build(&b, &jb, 16, 16, (uint32_t)addr);
	struct ferry_bo *bos[] = { jb.cl.bo, jb.ta.bo, jb.src.bo, imp };
	struct ferry_v3d_cl s = {
		.bcl_start = jb.cl.addr, .bcl_end = jb.bcl_end, .rcl_start = jb.rcl_start, .rcl_end = jb.rcl_end,
		.qma = jb.ta.addr, .qms = v3d_clb_raster_tile_alloc_size(b.ver, &jb.job), .qts = jb.ta.addr,
		.bos = bos, .nr_bos = 4, .flags = FERRY_SUBMIT_NOTIFY,
	};
	CHECK_EQ(ferry_v3d_submit_cl(b.cl, &s, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(b.cl, seqno, WAIT_NS), 0);
	unsigned bad = 0;
	for (uint32_t y = 0; y < 16; y++)
		bad += memcmp(ja.dst.cpu + (size_t)y * jb.dst_stride, jb.src.cpu + (size_t)y * jb.src_stride, 16 * 4) != 0;
	CHECK_EQ(bad, 0);

	ferry_bo_close(imp);
	copy_job_free(&jb);
	copy_job_free(&ja);
	vclient_close(&b);
	vclient_close(&a);
	stop(&p);
}

static void test_v42(void)
{
	test_device_and_copy("v3d-4.2", 42);
	test_tfu_and_chain("v3d-4.2");
}

static void test_v71(void)
{
	test_device_and_copy("v3d-7.1", 71);
	test_tfu_and_chain("v3d-7.1");
}

/* A passthrough client pipelines 40 copies, the 26th storing to an unmapped address: the host
 * may find several jobs done when it reads the report, which must still land on the faulting
 * job's seqno (named by its out-syncobj), the jobs before it reading done. */
static void test_fault_mid_pipeline(const char *gpu)
{
	struct ferryd_proc p;
	start(&p, gpu, true);
	struct vclient a;
	REQUIRE(vclient_open_policy(p.uri, FERRY_POLICY_PASSTHROUGH, &a) == 0);
	struct copy_job good, badj;
	copy_job_build(&a, &good, 16, 16, 0);
	copy_job_build(&a, &badj, 16, 16, UNMAPPED);
	enum { N = 40, BAD = 25 };
	uint32_t seqno[N];
	for (int i = 0; i < N; i++)
		CHECK_EQ(copy_job_submit(&a, i == BAD ? &badj : &good, &seqno[i]), 0);
	if (!itest_sim_only("V3D MMU fault report, lost context",
			    "the v3d kernel reports no MMU faults: the job's fence does not fail")) {
		for (int i = 0; i < BAD; i++)
			CHECK_EQ(ferry_fence_wait(a.cl, seqno[i], WAIT_NS), 0);
		CHECK_EQ(ferry_fence_wait(a.cl, seqno[BAD], WAIT_NS), -EIO);
		const struct ferry_fault_info *fi = itest_await_fault(a.dev, a.ctx);
		REQUIRE(fi);
		CHECK_EQ(fi->seqno, seqno[BAD]);
		CHECK(fi->iova >= UNMAPPED && fi->iova < UNMAPPED + 16 * 64);
	}
	copy_job_free(&good);
	copy_job_free(&badj);
	vclient_close(&a);
	stop(&p);
}

static void test_fault_mid_pipeline_v42(void)
{
	test_fault_mid_pipeline("v3d-4.2");
}

static void test_fault_mid_pipeline_v71(void)
{
	test_fault_mid_pipeline("v3d-7.1");
}

static void test_fault_v42(void)
{
	test_shared_fault("v3d-4.2");
}

static void test_fault_v71(void)
{
	test_shared_fault("v3d-7.1");
}

int main(void)
{
	if (ferryd_locate(NULL, ferryd_path, sizeof(ferryd_path)) < 0) {
		fprintf(stderr, "cannot find ferryd: set $FERRYD\n");
		return 1;
	}
	RUN_TEST(test_v42);
	RUN_TEST(test_v71);
	RUN_TEST(test_exclusive_tenancy);
	RUN_TEST(test_shared_import);
	RUN_TEST(test_fault_v42);
	RUN_TEST(test_fault_mid_pipeline_v42);
	RUN_TEST(test_fault_mid_pipeline_v71);
	RUN_TEST(test_fault_v71);
	return test_finish();
}
