/* The validated policy for V3D contexts: read-only host mappings of the context's BOs, and each
 * job run through host/validate's V3D validator when it goes to the kernel — control lists copied
 * into host-private shadow BOs (so the guest cannot change them after the check), TFU and CSD
 * registers checked against the listed BOs. The guest sends absolute V3D addresses (the one
 * global address space), so there are no relocation entries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "validate/v3d_validate.h"

int v3d_bo_added(struct host_ctx *ctx, struct host_bo *bo)
{
	if (ctx->policy != FERRY_POLICY_VALIDATED)
		return 0;
	return v3d_bo_map(ctx->v3d, bo->handle, bo->size, false, &bo->v3d_map);
}

void v3d_bo_unmap_host(struct host_bo *bo)
{
	if (bo->v3d_map && bo->ctx->v3d)
		v3d_bo_unmap(bo->ctx->v3d, bo->v3d_map, bo->size);
	bo->v3d_map = NULL;
}

void v3d_shadows_release(struct v3d_shadows *sh)
{
	for (uint32_t i = 0; i < sh->count; i++) {
		v3d_bo_unmap(sh->vc, sh->items[i].map, sh->items[i].size);
		v3d_bo_close(sh->vc, sh->items[i].handle);
	}
	free(sh->items);
	sh->items = NULL;
	sh->count = sh->cap = 0;
}

/* The validator's allocator: one fresh BO per shadow (kept simple: a pool would save the
 * create/map per submit, as the msm shadow pool does). */
static int shadow_alloc(void *arg, uint32_t size, struct v3dval_shadow *out)
{
	struct v3d_shadows *sh = arg;
	if (sh->count == sh->cap) {
		uint32_t ncap = sh->cap ? sh->cap * 2 : 4;
		struct v3d_shadow_bo *items = realloc(sh->items, (size_t)ncap * sizeof(*items));
		if (!items)
			return -ENOMEM;
		sh->items = items;
		sh->cap = ncap;
	}
	uint64_t bytes = v3d_bo_round_size(size);
	if (!bytes)
		return -EINVAL;
	struct v3d_shadow_bo *it = &sh->items[sh->count];
	uint64_t addr = 0;
	int ret = v3d_bo_new(sh->vc, bytes, &it->handle, &addr);
	if (ret < 0)
		return ret;
	ret = v3d_bo_map(sh->vc, it->handle, bytes, true, &it->map);
	if (ret < 0) {
		v3d_bo_close(sh->vc, it->handle);
		return ret;
	}
	it->size = (uint32_t)bytes;
	sh->count++;
	out->addr = (uint32_t)addr;
	out->map = it->map;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct v3dval_bo *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int v3d_validate_job(struct host_ctx *ctx, struct v3d_job_desc *job, struct host_bo *const *bos, uint32_t nr_bos,
		     struct v3d_shadows *sh, char *why, size_t n)
{
	struct ferry_host *h = ctx->client->host;
	/* The validator wants the BOs sorted by address (they never overlap: the kernel's). */
	struct v3dval_bo *vb = malloc((size_t)nr_bos * sizeof(*vb));
	if (!vb)
		HOST_FAIL(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nr_bos; i++)
		vb[i] = (struct v3dval_bo){ .addr = (uint32_t)bos[i]->iova, .size = (uint32_t)bos[i]->size,
					    .map = bos[i]->v3d_map, .id = bos[i]->id };
	qsort(vb, nr_bos, sizeof(*vb), by_addr);
	struct v3dval_error err;
	memset(&err, 0, sizeof(err));
	int ret = 0;
	int ver = (int)h->v3d_dev.ver;
	switch (job->kind) {
	case FERRY_QUEUE_KIND_V3D_CL: {
		struct v3d_cl_job *cl = &job->u.cl;
		struct v3dval_cl_submit s = {
			.bos = vb, .nr_bos = nr_bos, .bcl_start = cl->bcl_start, .bcl_end = cl->bcl_end,
			.rcl_start = cl->rcl_start, .rcl_end = cl->rcl_end, .qma = cl->qma, .qms = cl->qms, .qts = cl->qts,
		};
		struct v3dval_shadow_allocator alloc = { .alloc = shadow_alloc, .ctx = sh };
		struct v3dval_cl_result res;
		ret = v3dval_validate_cl(h->v3dval, &s, &alloc, &res, &err);
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
		struct v3dval_tfu_regs in = { .icfg = t->icfg, .iia = t->iia, .iis = t->iis, .ica = t->ica, .iua = t->iua,
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
	free(vb);
	if (ret == 0)
		return 0;
	h->stats.validation_rejects++;
	HOST_FAIL(err.rule == V3DVAL_ERR_NOMEM ? -ENOMEM : -EINVAL, "V3D validation: %s",
		  err.msg[0] ? err.msg : v3dval_rule_text(err.rule));
}
