/* The validated policy for V3D contexts: read-only host mappings of the context's BOs, and each
 * job run through host/validate's V3D validator when it goes to the kernel — control lists copied
 * into host-private shadow BOs of the context's pool (so the guest cannot change them after the
 * check; recycled when the job retires), TFU and CSD registers checked against the listed BOs.
 * The guest sends absolute V3D addresses (the one global address space), so there are no
 * relocation entries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/shadow_pool.h"
#include "core/shadow_quota.h"
#include "core/v3d/v3d_validation.h"
#include "validate/v3d_validate.h"
#include "ferry/array.h"

int v3d_bo_added(struct host_ctx *ctx, struct host_bo *bo)
{
	if (ctx->policy != FERRY_POLICY_VALIDATED)
		return 0;
	return v3d_bo_map(v3d_hctx(ctx)->v3d, bo->handle, bo->size, false, &bo->host_map);
}

void v3d_bo_unmap_host(struct host_bo *bo)
{
	if (bo->host_map && v3d_hctx(bo->ctx)->v3d)
		v3d_bo_unmap(v3d_hctx(bo->ctx)->v3d, bo->host_map, bo->size);
	bo->host_map = NULL;
}

/* Shadow memory one V3D context may hold (in flight plus recycled): four jobs with the largest
 * tile memory the default policy shadows (64 MiB). */
#define V3D_SHADOW_MAX_BYTES (256ull << 20)

static int pool_get(struct host_ctx *ctx, struct shadow_pool **out)
{
	if (!v3d_hctx(ctx)->pool) {
		struct ferry_host *h = ctx->client->host;
		/* V3DVAL_SHADOW_ALIGN: the validator's contract. The CLE read-ahead slack is already in
		 * the sizes it asks for (and it zeroes it), so a shadow ending a chunk stays inside it.
		 * Oversize: tile memory (qms) may exceed the largest class. */
		struct shadow_pool_config cfg = {
			.ops = &v3d_shadow_bo_ops, .dev = v3d_hctx(ctx)->v3d, .nr_queues = FERRY_FENCE_PAGE_QUEUES,
			.max_bytes = V3D_SHADOW_MAX_BYTES, .align = V3DVAL_SHADOW_ALIGN, .oversize = true,
			.counters = { .chunks_created = &h->stats.shadow_bos_created, .bytes = &h->stats.shadow_bytes },
			};
		shadow_quota_setup(ctx, &cfg);
		int ret = shadow_pool_create(&cfg, &v3d_hctx(ctx)->pool);
		if (ret < 0)
			return ret;
	}
	*out = v3d_hctx(ctx)->pool;
	return 0;
}

/* The validator's allocator: carves the current job's shadows out of the pool. */
static int shadow_alloc(void *arg, uint32_t size, struct v3dval_shadow *out)
{
	uint64_t addr;
	void *map;
	int ret = shadow_pool_carve(arg, size, &addr, &map);
	if (ret < 0)
		return ret;
	/* V3D addresses are 32-bit; the kernel never places a BO above 4 GiB. */
	if (addr > UINT32_MAX || size > UINT32_MAX - addr)
		return -ERANGE;
	out->addr = (uint32_t)addr;
	out->map = map;
	return 0;
}

void v3d_shadows_queue(struct host_ctx *ctx, struct shadow_set *set, uint32_t queue, uint32_t seqno)
{
	shadow_pool_queue(v3d_hctx(ctx)->pool, set, queue, seqno);
}

void v3d_shadows_release(struct host_ctx *ctx, struct shadow_set *set)
{
	shadow_pool_release(v3d_hctx(ctx)->pool, set);
}

void v3d_shadows_retired(struct host_ctx *ctx, uint32_t queue, uint32_t seqno)
{
	if (v3d_hctx(ctx)->pool)
		shadow_pool_retire(v3d_hctx(ctx)->pool, queue, seqno);
}

void v3d_shadows_queue_gone(struct host_ctx *ctx, uint32_t queue)
{
	if (v3d_hctx(ctx)->pool)
		shadow_pool_drop_queue(v3d_hctx(ctx)->pool, queue);
}

void v3d_shadows_fini(struct host_ctx *ctx)
{
	/* The kernel keeps the BOs of jobs still in flight alive itself. */
	shadow_pool_destroy(v3d_hctx(ctx)->pool);
	v3d_hctx(ctx)->pool = NULL;
}

static int by_addr(const void *a, const void *b)
{
	const struct v3dval_bo *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int v3d_validate_job(struct host_ctx *ctx, struct v3d_job_desc *job, struct host_bo *const *bos, uint32_t nr_bos,
		     struct shadow_set **set, char *why, size_t n)
{
	struct ferry_host *h = ctx->client->host;
	struct shadow_pool *pool;
	if (pool_get(ctx, &pool) < 0 || shadow_pool_begin(pool) < 0)
		HOST_FAIL(-ENOMEM, "out of memory");
	/* The validator wants the BOs sorted by address (they never overlap: the kernel's). */
	struct v3d_host_ctx *vctx = v3d_hctx(ctx);
	if (FERRY_ARRAY_RESERVE(vctx->job_vbos, vctx->cap_job_vbos, nr_bos, 16)) {
		shadow_pool_abort(pool);
		HOST_FAIL(-ENOMEM, "out of memory");
	}
	struct v3dval_bo *vb = vctx->job_vbos;
	for (uint32_t i = 0; i < nr_bos; i++)
		vb[i] = (struct v3dval_bo){ .addr = (uint32_t)bos[i]->iova, .size = (uint32_t)bos[i]->size,
					    .map = bos[i]->host_map, .id = bos[i]->id };
	qsort(vb, nr_bos, sizeof(*vb), by_addr);
	struct v3dval_error err;
	memset(&err, 0, sizeof(err));
	int ret = 0;
	int ver = (int)v3d_host(h)->dev.ver;
	switch (job->kind) {
	case FERRY_QUEUE_KIND_V3D_CL: {
		struct v3d_cl_job *cl = &job->u.cl;
		struct v3dval_cl_submit s = {
			.bos = vb, .nr_bos = nr_bos, .bcl_start = cl->bcl_start, .bcl_end = cl->bcl_end,
			.rcl_start = cl->rcl_start, .rcl_end = cl->rcl_end, .qma = cl->qma, .qms = cl->qms, .qts = cl->qts,
		};
		struct v3dval_shadow_allocator alloc = { .alloc = shadow_alloc, .ctx = pool };
		struct v3dval_cl_result res;
		ret = v3dval_validate_cl(v3d_host(h)->val, &s, &alloc, &res, &err);
		if (ret == 0) {
			cl->bcl_start = res.bcl_start;
			cl->bcl_end = res.bcl_end;
			cl->rcl_start = res.rcl_start;
			cl->rcl_end = res.rcl_end;
			cl->qma = res.qma;
			cl->qms = res.qms;
			cl->qts = res.qts;
		}
		break;
	}
	case FERRY_QUEUE_KIND_V3D_TFU: {
		struct v3d_tfu_job *t = &job->u.tfu;
		struct v3d_tfu_regs in = { .icfg = t->icfg, .iia = t->iia, .iis = t->iis, .ica = t->ica, .iua = t->iua,
					      .ioa = t->ioa, .ios = t->ios, .ioc = t->v71_ioc }, out;
		memcpy(in.coef, t->coef, sizeof(in.coef));
		ret = v3dval_validate_tfu(ver, vb, nr_bos, &in, NULL, 0, &out, &err);
		if (ret == 0) {
			t->icfg = out.icfg;
			t->iia = out.iia;
			t->iis = out.iis;
			t->ica = out.ica;
			t->iua = out.iua;
			t->ioa = out.ioa;
			t->ios = out.ios;
			memcpy(t->coef, out.coef, sizeof(t->coef));
			t->v71_ioc = out.ioc;
		}
		break;
	}
	case FERRY_QUEUE_KIND_V3D_CSD: {
		uint32_t cfg[8] = { 0 }, out[8];
		memcpy(cfg, job->u.csd.cfg, sizeof(job->u.csd.cfg));
		ret = v3dval_validate_csd(ver, vb, nr_bos, cfg, NULL, 0, out, &err);
		if (ret == 0)
			memcpy(job->u.csd.cfg, out, sizeof(job->u.csd.cfg));
		break;
	}
	default:
		ret = -1;
		snprintf(err.msg, sizeof(err.msg), "unknown job kind %u", job->kind);
		break;
	}
	if (ret == 0) {
		if (shadow_pool_take(pool, set) == 0)
			return 0;
		shadow_pool_abort(pool);
		HOST_FAIL(-ENOMEM, "out of memory");
	}
	/* A rejected job, or an allocator failure part-way: its shadows go back to the pool. */
	const char *cause;
	int alloc_err = shadow_pool_last_error(pool, &cause);
	shadow_pool_abort(pool);
	/* What the pool ran out of (fds, its cap, the client's quota, memory), with its errno:
	 * not the guest's fault, so not a rejection. */
	if (err.rule == V3DVAL_ERR_SHADOW && alloc_err < 0)
		HOST_FAIL(alloc_err, "%s; job not run (%s)", cause, err.msg);
	h->stats.validation_rejects++;
	ctx->refused = true;
	HOST_FAIL(err.rule == V3DVAL_ERR_NOMEM ? -ENOMEM : -EINVAL, "V3D validation: %s",
		  err.msg[0] ? err.msg : v3dval_rule_text(err.rule));
}
