/* `ferry soak` on a V3D ferryd: clients that copy a pattern with a render CL, then with the TFU,
 * and check the bytes; now and then a passthrough store to an unmapped address, which must fault. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ferry/ferry.h"
#include "soak.h"
#include "v3d_cl_builder.h"

#define WAIT_NS (10ll * 1000 * 1000 * 1000)
#define LIST_BYTES 16384u
#define W 32u
#define H 16u
#define IMG_BYTES (W * H * 4u)
#define FAULT_EVERY 500u

struct vbo {
	struct ferry_bo *bo;
	uint8_t *cpu;
	uint32_t addr;
};

struct vclient {
	int ver;
	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *cl, *tfu;
	struct vbo lists, ta, src, dst, out;
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
	return r;
}

static void vclient_close(struct vclient *v)
{
	struct vbo *bos[] = { &v->lists, &v->ta, &v->src, &v->dst, &v->out };
	for (size_t i = 0; i < 5; i++)
		if (bos[i]->bo)
			ferry_bo_close(bos[i]->bo);
	if (v->cl)
		ferry_queue_close(v->cl);
	if (v->tfu)
		ferry_queue_close(v->tfu);
	if (v->ctx)
		ferry_context_destroy(v->ctx);
	if (v->dev)
		ferry_device_close(v->dev);
	int ver = v->ver;
	memset(v, 0, sizeof(*v));
	v->ver = ver;
}

static int vclient_open(const struct soak_env *env, uint32_t policy, struct vclient *v)
{
	int r = ferry_device_open(env->uri, &v->dev);
	if (r == 0)
		r = ferry_context_create(v->dev, FERRY_FAMILY_V3D, policy, &v->ctx);
	if (r == 0)
		r = ferry_queue_create_kind(v->ctx, FERRY_QUEUE_KIND_V3D_CL, 0, &v->cl);
	if (r == 0)
		r = ferry_queue_create_kind(v->ctx, FERRY_QUEUE_KIND_V3D_TFU, 0, &v->tfu);
	if (r == 0)
		r = vbo_new(v->ctx, 3 * LIST_BYTES, &v->lists);
	if (r == 0)
		r = vbo_new(v->ctx, 64 * 1024, &v->ta);
	if (r == 0)
		r = vbo_new(v->ctx, IMG_BYTES, &v->src);
	if (r == 0)
		r = vbo_new(v->ctx, IMG_BYTES, &v->dst);
	if (r == 0)
		r = vbo_new(v->ctx, IMG_BYTES, &v->out);
	return r;
}

/* A raster copy src -> dst_addr (or a fill when clear is set) through bin + render lists. */
static int raster_cl(struct vclient *v, uint32_t dst_addr, const uint32_t *clear, uint32_t *seqno)
{
	struct v3d_clb_raster_job job = {
		.width = W, .height = H, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = v->ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = clear ? 0 : v->src.addr, .src_stride = W * 4, .dst_addr = dst_addr, .dst_stride = W * 4,
		.clear_color = clear, .tile_alloc_addr = v->ta.addr,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(v->ver, &job);
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, v->ver, v->lists.cpu, LIST_BYTES, v->lists.addr);
	v3d_clb_init(&rcl, v->ver, v->lists.cpu + LIST_BYTES, LIST_BYTES, v->lists.addr + LIST_BYTES);
	v3d_clb_init(&ind, v->ver, v->lists.cpu + 2 * LIST_BYTES, LIST_BYTES, v->lists.addr + 2 * LIST_BYTES);
	if (qms + 16384 > 64 * 1024 || !v3d_clb_raster_bin(&bcl, &job) || !v3d_clb_raster_render(&rcl, &ind, &job))
		return -EINVAL;
	struct ferry_bo *bos[4] = { v->lists.bo, v->ta.bo, v->dst.bo, v->src.bo };
	struct ferry_v3d_cl s = {
		.bcl_start = v->lists.addr, .bcl_end = v3d_clb_gpu_addr(&bcl),
		.rcl_start = v->lists.addr + LIST_BYTES, .rcl_end = v3d_clb_gpu_addr(&rcl),
		.qma = v->ta.addr, .qms = qms, .qts = v->ta.addr, .bos = bos, .nr_bos = clear ? 3 : 4,
	};
	return ferry_v3d_submit_cl(v->cl, &s, seqno);
}

static int tfu_copy(struct vclient *v, uint32_t *seqno)
{
	struct ferry_bo *bos[] = { v->out.bo, v->dst.bo };
	struct ferry_v3d_tfu t = { .iia = v->dst.addr, .iis = W, .ioa = v->out.addr, .ios = V3D_TFU_IOS(W, H),
				   .bos = bos, .nr_bos = 2 };
	if (v->ver >= 71) {
		t.icfg = V3D71_TFU_ICFG_OTYPE_SET(4); /* rgba8 */
		t.v71_ioc = V3D71_TFU_IOC_STRIDE_SET(W);
	} else {
		t.icfg = V3D42_TFU_ICFG_TTYPE_SET(4);
	}
	return ferry_v3d_submit_tfu(v->tfu, &t, seqno);
}

/* One round: new pattern in src; CL copy src -> dst; TFU copy dst -> out; both checked. */
static void good_round(struct vclient *v, struct soak_slot *s, uint32_t seed)
{
	for (uint32_t i = 0; i < IMG_BYTES; i++)
		v->src.cpu[i] = (uint8_t)(seed + i * 13u);
	memset(v->dst.cpu, 0, IMG_BYTES);
	memset(v->out.cpu, 0, IMG_BYTES);
	uint32_t seqno = 0;
	uint64_t t0 = soak_now_us();
	s->requests++;
	int r = raster_cl(v, v->dst.addr, NULL, &seqno);
	if (r == 0)
		r = ferry_fence_wait(v->cl, seqno, WAIT_NS);
	soak_hist_add(&s->lat, soak_now_us() - t0);
	if (r < 0) {
		soak_fail(s, "CL copy: %s (%s)", strerror(-r), ferry_device_last_error(v->dev));
		return;
	}
	t0 = soak_now_us();
	s->requests++;
	r = tfu_copy(v, &seqno);
	if (r == 0)
		r = ferry_fence_wait(v->tfu, seqno, WAIT_NS);
	soak_hist_add(&s->lat, soak_now_us() - t0);
	if (r < 0) {
		soak_fail(s, "TFU copy: %s (%s)", strerror(-r), ferry_device_last_error(v->dev));
		return;
	}
	if (memcmp(v->dst.cpu, v->src.cpu, IMG_BYTES) || memcmp(v->out.cpu, v->src.cpu, IMG_BYTES)) {
		s->wrong_bytes++;
		soak_fail(s, "V3D copy: wrong bytes");
		return;
	}
	s->rounds++;
}

/* A passthrough client's store to an unmapped address: -EIO, a report, a lost context. */
static void fault_round(const struct soak_env *env, struct soak_slot *s, int ver)
{
	struct vclient b = { .ver = ver };
	s->requests++;
	int r = vclient_open(env, FERRY_POLICY_PASSTHROUGH, &b);
	if (r == -EPERM || r == -EBUSY) {
		s->skipped++; /* no --allow-passthrough, or exclusive tenancy */
		vclient_close(&b);
		return;
	}
	const uint32_t color[4] = { 0xbad, 0, 0, 0 };
	uint32_t seqno = 0;
	if (r == 0)
		r = raster_cl(&b, 0xf0000000u, color, &seqno);
	if (r == 0)
		r = ferry_fence_wait(b.cl, seqno, WAIT_NS);
	if (r != -EIO) {
		soak_fail(s, "V3D fault: fence %d, want -EIO", r);
	} else {
		bool lost = false;
		for (long long end = soak_now_ms() + 10000; !lost && soak_now_ms() < end;) {
			ferry_device_poll_events(b.dev);
			lost = ferry_context_lost(b.ctx) && ferry_context_fault(b.ctx, 0);
			if (!lost)
				nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
		}
		if (!lost)
			soak_fail(s, "V3D fault: no report / lost context within 10 s");
	}
	vclient_close(&b);
}

void soak_run_v3d(const struct soak_env *env, struct soak_slot *s)
{
	struct vclient v = { .ver = !strcmp(env->gpu, "v3d-7.1") ? 71 : 42 };
	uint32_t seed = env->seed ^ (s->index * 2246822519u);
	while (!soak_should_stop(env)) {
		s->requests++;
		int r = vclient_open(env, FERRY_POLICY_VALIDATED, &v);
		if (r == -EBUSY) {
			/* Exclusive tenancy on a ferryd we did not start: one V3D client at a time. */
			s->skipped++;
			vclient_close(&v);
			nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
			continue;
		}
		if (r < 0) {
			soak_fail(s, "connect/context: %s (%s)", strerror(-r), v.dev ? ferry_device_last_error(v.dev) : "");
			vclient_close(&v);
			nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
			continue;
		}
		unsigned rounds = 200 + (seed = seed * 1664525u + 1013904223u) % 1000;
		for (unsigned i = 0; i < rounds && !soak_should_stop(env); i++) {
			good_round(&v, s, seed + i);
			if (s->index % 2 == 1 && i % FAULT_EVERY == FAULT_EVERY / 2)
				fault_round(env, s, v.ver);
		}
		vclient_close(&v);
	}
}

void soak_v3d_victim(const struct soak_env *env, int ready, int phase)
{
	struct vclient v = { .ver = !strcmp(env->gpu, "v3d-7.1") ? 71 : 42 };
	char ch = 'v';
	int r = vclient_open(env, FERRY_POLICY_VALIDATED, &v);
	if (r == -EBUSY) {
		/* Exclusive tenancy, held by another client: being refused is this victim's work. */
		if (write(ready, &ch, 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	if (r < 0)
		_exit(2);
	if (phase == 0 && write(ready, &ch, 1) != 1)
		_exit(3);
	/* A CL copy and a TFU copy held by ferryd for it (an in-fence across queues), a few times. */
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t seqno = 0, tfu_seqno = 0;
		if (raster_cl(&v, v.dst.addr, NULL, &seqno) < 0)
			_exit(2);
		struct ferry_fence_ref after = { ferry_queue_id(v.cl), seqno };
		struct ferry_bo *bos[] = { v.out.bo, v.dst.bo };
		struct ferry_v3d_tfu t = { .iia = v.dst.addr, .iis = W, .ioa = v.out.addr, .ios = V3D_TFU_IOS(W, H),
					   .bos = bos, .nr_bos = 2, .in_fences = &after, .nr_in_fences = 1 };
		t.icfg = v.ver >= 71 ? V3D71_TFU_ICFG_OTYPE_SET(4) : V3D42_TFU_ICFG_TTYPE_SET(4); /* rgba8 */
		t.v71_ioc = v.ver >= 71 ? V3D71_TFU_IOC_STRIDE_SET(W) : 0;
		if (ferry_v3d_submit_tfu(v.tfu, &t, &tfu_seqno) < 0)
			_exit(2);
	}
	if (phase != 0 && write(ready, &ch, 1) != 1)
		_exit(3);
	for (;;)
		pause();
}
