/* The `validated` context policy: each context's BOs kept sorted by iova (the validator's BO
 * table, maintained on BO create/close) with read-only host mappings made at the first submit
 * after a BO came, and the submit step that
 * runs the PM4 validator into the context's shadow pool. Validation happens when the submit
 * message is handled, before it may be held for in-fences: the guest learns of a rejection at
 * once, and what runs later is the shadow made now, whatever the guest writes afterwards. With a
 * validation budget, a long submit is validated over several calls (validation_submit returns
 * -EINPROGRESS; the client's frame is handled again and continues where it stopped). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "backend/shadow_pool.h"
#include "core/msm/msm_validation.h"
#include "core/shadow_quota.h"
#include "ferry/uapi/msm_drm.h"
#include "validate/pm4_validate.h"

/* Shadow memory one context may hold (in flight plus recycled): 64 full-size IB1 copies. */
#define HOST_SHADOW_MAX_BYTES (256ull << 20)

struct ctx_validation {
	struct pm4v_bo *bos;      /* every BO of the context, sorted by iova */
	struct host_bo **owners;  /* owners[i] is bos[i]'s BO */
	uint32_t nr, cap;
	uint32_t unmapped;        /* how many of bos[] have no host mapping yet (validation_map_all) */
	uint32_t *submit_bos;     /* per-submit scratch: submit bo i -> index into bos[] */
	uint32_t cap_submit_bos;
	struct shadow_pool *pool;
};

int validation_ctx_init(struct host_ctx *ctx)
{
	struct ferry_host *h = ctx->client->host;
	struct ctx_validation *v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* Copies start on a 16-byte boundary (the CP fetches in small bursts; 4 would do). */
	struct shadow_pool_config cfg = {
		.ops = &msm_shadow_bo_ops, .dev = msm_hctx(ctx)->msm, .nr_queues = FERRY_FENCE_PAGE_QUEUES,
		.max_bytes = HOST_SHADOW_MAX_BYTES, .align = 16, .oversize = false,
		.counters = { .chunks_created = &h->stats.shadow_bos_created, .bytes = &h->stats.shadow_bytes },
	};
	shadow_quota_setup(ctx, &cfg);
	int ret = shadow_pool_create(&cfg, &v->pool);
	if (ret < 0) {
		free(v);
		return ret;
	}
	msm_hctx(ctx)->val = v;
	return 0;
}

void validation_ctx_fini(struct host_ctx *ctx)
{
	struct ctx_validation *v = msm_hctx(ctx)->val;
	if (!v)
		return;
	if (ctx->client->submit_ctx == ctx)
		validation_cancel(ctx->client);
	shadow_pool_destroy(v->pool);
	free(v->bos);
	free(v->owners);
	free(v->submit_bos);
	free(v);
	msm_hctx(ctx)->val = NULL;
}

void validation_host_fini(struct ferry_host *h)
{
	pm4v_destroy(msm_host(h)->validator);
	msm_host(h)->validator = NULL;
}

/* A validator a client held while its submit was stopped goes back to being the host's (one is
 * kept; the host needs only one at a time). */
static void give_back(struct ferry_host_client *c)
{
	struct ferry_host *h = c->host;
	if (!msm_host(h)->validator)
		msm_host(h)->validator = c->submit_pending;
	else
		pm4v_destroy(c->submit_pending);
	c->submit_pending = NULL;
	c->submit_ctx = NULL;
}

void validation_cancel(struct ferry_host_client *c)
{
	if (!c->submit_pending)
		return;
	pm4v_validate_cancel(c->submit_pending);
	if (c->submit_ctx && msm_hctx(c->submit_ctx)->val)
		shadow_pool_abort(msm_hctx(c->submit_ctx)->val->pool);
	give_back(c);
}

/* Index of the first BO whose iova is >= iova. */
static uint32_t lower_bound(const struct ctx_validation *v, uint64_t iova)
{
	uint32_t lo = 0, hi = v->nr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->bos[mid].iova < iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int validation_bo_added(struct host_ctx *ctx, struct host_bo *bo)
{
	struct ctx_validation *v = msm_hctx(ctx)->val;
	if (!v)
		return 0;
	/* bos[] and owners[] grow together: one capacity, which moves only when both did. */
	uint32_t cap = v->cap;
	if (FERRY_ARRAY_RESERVE(v->bos, cap, v->nr + 1, 64))
		return -ENOMEM;
	cap = v->cap;
	if (FERRY_ARRAY_RESERVE(v->owners, cap, v->nr + 1, 64))
		return -ENOMEM;
	v->cap = cap;
	/* Unmapped until a submit of the context: many BOs are made and closed (or only ever
	 * written by the guest) between submits, and an mmap + munmap of each is most of what
	 * ferryd spends on such a BO beyond the kernel's own work. */
	bo->host_map = NULL;
	uint32_t at = lower_bound(v, bo->iova);
	memmove(&v->bos[at + 1], &v->bos[at], (size_t)(v->nr - at) * sizeof(*v->bos));
	memmove(&v->owners[at + 1], &v->owners[at], (size_t)(v->nr - at) * sizeof(*v->owners));
	v->bos[at] = (struct pm4v_bo){
		.iova = bo->iova, .size = bo->size, .map = NULL, .id = bo->id,
		.flags = (bo->flags & MSM_BO_GPU_READONLY) ? PM4V_BO_GPU_READONLY : 0,
	};
	v->owners[at] = bo;
	v->nr++;
	v->unmapped++;
	return 0;
}

void validation_bo_removed(struct host_ctx *ctx, struct host_bo *bo)
{
	struct ctx_validation *v = msm_hctx(ctx)->val;
	if (!v)
		return;
	uint32_t at = lower_bound(v, bo->iova);
	if (at >= v->nr || v->owners[at] != bo)
		return;
	if (!v->bos[at].map)
		v->unmapped--;
	memmove(&v->bos[at], &v->bos[at + 1], (size_t)(v->nr - at - 1) * sizeof(*v->bos));
	memmove(&v->owners[at], &v->owners[at + 1], (size_t)(v->nr - at - 1) * sizeof(*v->owners));
	v->nr--;
}

void validation_bo_unmap(struct host_bo *bo)
{
	if (bo->host_map)
		msm_bo_unmap(msm_hctx(bo->ctx)->msm, bo->host_map, bo->size);
	bo->host_map = NULL;
}

/* Gives every BO of the context its read-only host mapping (the host only ever reads guest
 * memory, once per stream), from the first submit after the BO came. */
static int map_all(struct host_ctx *ctx, struct ctx_validation *v, char *why, size_t n)
{
	for (uint32_t i = 0; i < v->nr && v->unmapped; i++) {
		if (v->bos[i].map)
			continue;
		struct host_bo *bo = v->owners[i];
		void *map;
		int ret = msm_bo_map(msm_hctx(ctx)->msm, bo->handle, bo->size, false, &map);
		if (ret < 0) {
			char e[80];
			HOST_FAIL(ret, "bo %u: host mapping (mmap) for validation: %s", bo->id,
				  ferry_errno_text(ret, e, sizeof(e)));
		}
		bo->host_map = map;
		v->bos[i].map = map;
		v->unmapped--;
	}
	return 0;
}

/* The errno a rejection is reported with: privilege violations are -EPERM, the rest -EINVAL.
 * Shadow allocation failures are not the guest's fault and carry the pool's own errno (see
 * validation_submit). */
static int rule_errno(enum pm4v_rule rule)
{
	switch (rule) {
	case PM4V_ERR_PRIVILEGED:
	case PM4V_ERR_PROTECTED_REG:
	case PM4V_ERR_UNWRITTEN_REG: return -EPERM;
	case PM4V_ERR_SHADOW: return -ENOSPC;
	case PM4V_ERR_NOMEM: return -ENOMEM;
	case PM4V_ERR_LIMIT: return -E2BIG;
	default: return -EINVAL;
	}
}

int validation_submit(struct host_ctx *ctx, const struct ferry_msm_submit *s, struct host_bo *const *bos,
		      struct shadow_set **set, char *why, size_t n)
{
	struct ctx_validation *v = msm_hctx(ctx)->val;
	struct ferry_host_client *c = ctx->client;
	struct ferry_host *h = c->host;
	/* A stopped submit continues only with its own context (the client's frames wait). */
	if (c->submit_pending && c->submit_ctx != ctx)
		validation_cancel(c);
	/* No cmds, nothing the GPU reads: no shadow set, and the kernel gets the empty submit. */
	if (s->nr_cmds == 0) {
		*set = NULL;
		return 0;
	}
	bool resuming = c->submit_pending != NULL;
	if (!resuming && !msm_host(h)->validator) {
		struct pm4v_policy policy;
		pm4v_policy_a6xx(&policy, (uint32_t)msm_host(h)->dev.gpu_id);
		msm_host(h)->validator = pm4v_create(&policy);
		if (!msm_host(h)->validator)
			HOST_FAIL(-ENOMEM, "out of memory (validator)");
	}
	struct pm4v_validator *val = resuming ? c->submit_pending : msm_host(h)->validator;
	/* The validator may follow an IB to any BO of the context, not only the submit's. */
	int mret = map_all(ctx, v, why, n);
	if (mret < 0) {
		if (resuming)
			validation_cancel(c);
		return mret;
	}
	if (FERRY_ARRAY_RESERVE(v->submit_bos, v->cap_submit_bos, s->nr_bos ? s->nr_bos : 1, 64))
		HOST_FAIL(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		uint32_t at = lower_bound(v, bos[i]->iova);
		if (at >= v->nr || v->owners[at] != bos[i])
			HOST_FAIL(-EIO, "bos[%u]: bo %u missing from the validation table", i, bos[i]->id);
		v->submit_bos[i] = at;
	}
	const struct pm4v_submit sub = {
		.bos = v->bos, .nr_bos = v->nr,
		.submit_bos = v->submit_bos, .nr_submit_bos = s->nr_bos,
		.cmds = s->cmds, .nr_cmds = s->nr_cmds,
		.relocs = s->relocs, .nr_relocs = s->nr_relocs,
	};
	if (!resuming && shadow_pool_begin(v->pool) < 0)
		HOST_FAIL(-ENOMEM, "out of memory");
	const struct pm4v_shadow_allocator alloc = { .alloc = shadow_pool_alloc, .ctx = v->pool };
	struct pm4v_result res;
	struct pm4v_error err;
	int r = pm4v_validate_step(val, &sub, &alloc, h->cfg.validate_slice_dwords, &res, &err);
	if (r > 0) {
		/* Stopped at the budget: the client keeps this validator (and the pool its open
		 * shadow set) until the submit is done; others get a fresh one meanwhile. */
		if (!resuming) {
			c->submit_pending = val;
			c->submit_ctx = ctx;
			msm_host(h)->validator = NULL;
		}
		h->stats.validation_pauses++;
		return -EINPROGRESS;
	}
	/* res points into the validator: it goes back (or away) only once res was used. */
	int ret = 0;
	if (r < 0) {
		const char *cause;
		int alloc_err = shadow_pool_last_error(v->pool, &cause);
		shadow_pool_abort(v->pool);
		/* The validator only knows an allocation failed: report what the pool ran out of, with
		 * its errno (-EMFILE, -ENOSPC for a full pool, -EDQUOT, -ENOMEM), not a rejection. */
		if (err.rule == PM4V_ERR_SHADOW && alloc_err < 0) {
			snprintf(why, n, "%s; submit not run (%s)", cause, err.msg);
			ret = alloc_err;
		} else {
			h->stats.validation_rejects++;
			ctx->refused = true;
			snprintf(why, n, "rejected by validation: %s", err.msg);
			ret = rule_errno(err.rule);
		}
	} else if (shadow_pool_finish(v->pool, res.cmds, res.nr_cmds, set) < 0) {
		shadow_pool_abort(v->pool);
		snprintf(why, n, "out of memory (shadow cmds)");
		ret = -ENOMEM;
	} else if (shadow_pool_keep_streams(*set, res.streams, res.nr_streams) < 0) {
		/* Kept with the in-flight set so a fault report can name the guest's addresses. */
		shadow_pool_release(v->pool, *set);
		*set = NULL;
		snprintf(why, n, "out of memory (shadow streams)");
		ret = -ENOMEM;
	}
	if (resuming)
		give_back(c);
	return ret;
}

struct shadow_pool *validation_shadow_pool(const struct host_ctx *ctx)
{
	return msm_hctx(ctx)->val ? msm_hctx(ctx)->val->pool : NULL;
}

const struct pm4v_stream_copy *validation_guest_stream(const struct host_ctx *ctx, uint64_t shadow_iova)
{
	return msm_hctx(ctx)->val ? shadow_pool_lookup(msm_hctx(ctx)->val->pool, shadow_iova) : NULL;
}

int validation_use_shadows(struct host_ctx *ctx, const struct shadow_set *set)
{
	return msm_submit_use_shadows(msm_hctx(ctx)->msm, set->handles, set->nr_chunks, set->cmds, set->nr_cmds);
}

void validation_queue(struct host_ctx *ctx, struct shadow_set *set, uint32_t queue, uint32_t seqno)
{
	shadow_pool_queue(msm_hctx(ctx)->val->pool, set, queue, seqno);
}

void validation_release(struct host_ctx *ctx, struct shadow_set *set)
{
	shadow_pool_release(msm_hctx(ctx)->val->pool, set);
}

void validation_retired(struct host_ctx *ctx, uint32_t queue, uint32_t seqno)
{
	if (msm_hctx(ctx)->val)
		shadow_pool_retire(msm_hctx(ctx)->val->pool, queue, seqno);
}

void validation_queue_gone(struct host_ctx *ctx, uint32_t queue)
{
	if (msm_hctx(ctx)->val)
		shadow_pool_drop_queue(msm_hctx(ctx)->val->pool, queue);
}
