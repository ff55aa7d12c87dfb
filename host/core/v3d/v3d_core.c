/* The V3D family's submits: CL / TFU / CSD with their envelope checks, retiring through
 * out-syncobjs, and fault reports from the kernel's (sim's) report text. The device, tenancy and
 * the rest of the family's ops are v3d_family.c's.
 * Queues, fence timelines, the fence page, held submits and lost contexts are the family-neutral
 * ones of host_queue.c / sched.c / fence_timeline.c. Validated contexts also run the V3D validator
 * (v3d_validation.c) when a job goes to the kernel; passthrough ones get the envelope only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/kdev.h"
#include "backend/shadow_pool.h"
#include "core/host_context.h"
#include "core/sched.h"
#include "core/fault_log.h"
#include "core/v3d/v3d_validation.h"
#include "core/trace_host.h"
#include "core/host_capture.h"
#include "validate/v3d_validate.h"
#include "ferry/array.h"

/* ---- submits ---- */

/* What every V3D submit shares: the family-neutral envelope (sched.c), checked for one job kind. */
struct v3d_submit_env {
	struct submit_envelope e;
	struct host_bo **bos; /* ctx->bo_ptrs */
	uint32_t nr_bos;
};

static int submit_begin(struct ferry_host_client *c, uint32_t ctx_id, uint32_t queue_id, uint32_t kind,
			uint32_t seqno, uint32_t flags, uint32_t allowed_flags, const uint32_t *bo_ids,
			uint32_t nr_bos, const struct ferry_fence_ref *in, uint32_t nr_in, struct v3d_submit_env *env,
			char *why, size_t n)
{
	env->e = (struct submit_envelope){
		.ctx_id = ctx_id, .queue_id = queue_id, .seqno = seqno, .flags = flags, .allowed_flags = allowed_flags,
		.family = FERRY_FAMILY_V3D, .family_hint = "a V3D context", .kind = kind, .bo_ids = bo_ids,
		.bo_id_stride = sizeof(*bo_ids), .nr_bos = nr_bos, .bos_required = true, .in = in, .nr_in = nr_in,
	};
	int ret = submit_envelope_begin(c, &env->e, why, n);
	if (ret == 0)
		ret = submit_envelope_fences(&env->e, why, n);
	env->bos = env->e.bos;
	env->nr_bos = nr_bos;
	return ret;
}

/* The listed BO holding [addr, addr + len), or -1. */
static int bo_holding(const struct v3d_submit_env *env, uint64_t addr, uint64_t len)
{
	for (uint32_t i = 0; i < env->nr_bos; i++) {
		const struct host_bo *bo = env->bos[i];
		if (addr >= bo->iova && len <= bo->size && addr - bo->iova <= bo->size - len)
			return (int)i;
	}
	return -1;
}

static int check_cl_range(const struct v3d_submit_env *env, const char *what, uint32_t start, uint32_t end,
			  char *why, size_t n)
{
	if (end <= start)
		HOST_FAIL(-EINVAL, "%s: end 0x%x is not after start 0x%x", what, end, start);
	if (bo_holding(env, start, (uint64_t)end - start) < 0)
		HOST_FAIL(-EINVAL, "%s 0x%x..0x%x is not inside one BO listed in bos[]", what, start, end);
	return 0;
}

static int check_addr(const struct v3d_submit_env *env, const char *what, uint32_t addr, char *why, size_t n)
{
	if (bo_holding(env, addr, 1) < 0)
		HOST_FAIL(-EINVAL, "%s address 0x%x is not inside a BO listed in bos[]", what, addr);
	return 0;
}

int v3d_job_prepare(struct host_ctx *ctx, const struct v3d_job_desc *job, struct host_bo *const *bos,
		    uint32_t nr_bos, struct v3d_job_desc *run, struct shadow_set **set, char *why, size_t n)
{
	*run = *job;
	*set = NULL;
	if (ctx->policy != FERRY_POLICY_VALIDATED)
		return 0;
	return v3d_validate_job(ctx, run, bos, nr_bos, set, why, n);
}

int v3d_job_run(struct host_ctx *ctx, uint32_t queue_id, uint32_t seqno, const struct v3d_job_desc *job,
		struct shadow_set *set, bool set_queued, struct host_bo *const *bos, uint32_t nr_bos, uint32_t *sync,
		char *why, size_t n)
{
	struct v3d_job_desc run = *job;
	/* The kernel's bo_handles: this open's handles from the host's own BO table, then the
	 * shadow BOs the validated lists live in. */
	uint32_t nr_shadows = set ? set->nr_chunks : 0;
	struct v3d_host_ctx *vctx = v3d_hctx(ctx);
	/* nr_bos <= FERRY_MAX_SUBMIT_BOS and a handful of chunks: the sum cannot wrap. */
	if (FERRY_ARRAY_RESERVE(vctx->job_handles, vctx->cap_job_handles, nr_bos + nr_shadows, 16)) {
		if (set && !set_queued)
			v3d_shadows_release(ctx, set);
		HOST_FAIL(-ENOMEM, "out of memory");
	}
	uint32_t *handles = vctx->job_handles;
	for (uint32_t i = 0; i < nr_bos; i++)
		handles[i] = bos[i]->handle;
	for (uint32_t i = 0; i < nr_shadows; i++)
		handles[nr_bos + i] = set->handles[i];
	uint32_t nr = nr_bos + nr_shadows;
	/* All the context has in flight (a held job counts itself): the simulator may run it here. */
	bool alone = ctx->nr_inflight == 0, done_here = false;
	int ret;
	switch (run.kind) {
	case FERRY_QUEUE_KIND_V3D_CL:
		ret = v3d_submit_cl(v3d_hctx(ctx)->v3d, &run.u.cl, handles, nr, sync, alone, &done_here);
		break;
	case FERRY_QUEUE_KIND_V3D_TFU: ret = v3d_submit_tfu(v3d_hctx(ctx)->v3d, &run.u.tfu, handles, nr, sync); break;
	case FERRY_QUEUE_KIND_V3D_CSD: ret = v3d_submit_csd(v3d_hctx(ctx)->v3d, &run.u.csd, handles, nr, sync); break;
	default: ret = -EINVAL; break;
	}
	/* In the kernel's job: the shadows are reused only once it retired (v3d_fence_retire). A set
	 * queued when the job was held goes back when its seqno retires, run or not. */
	if (set && !set_queued) {
		if (ret < 0)
			v3d_shadows_release(ctx, set);
		else
			v3d_shadows_queue(ctx, set, queue_id, seqno);
	}
	if (ret < 0)
		HOST_FAIL(ret, "kernel rejected the V3D job (%s)", strerror(-ret));
	if (done_here)
		ctx_done_here(ctx);
	return 0;
}

int v3d_job_flush(struct host_ctx *ctx, uint32_t queue_id, uint32_t seqno, const struct v3d_job_desc *job,
		  struct host_bo *const *bos, uint32_t nr_bos, uint32_t *sync, char *why, size_t n)
{
	struct v3d_job_desc run;
	struct shadow_set *set;
	int ret = v3d_job_prepare(ctx, job, bos, nr_bos, &run, &set, why, n);
	if (ret < 0)
		return ret;
	return v3d_job_run(ctx, queue_id, seqno, &run, set, false, bos, nr_bos, sync, why, n);
}

/* Runs the job now, or holds it for its in-fences; takes the seqno. */
static int submit_finish(struct ferry_host_client *c, const struct ferry_msg *m, struct v3d_submit_env *env,
			 uint32_t seqno, uint32_t flags, const struct v3d_job_desc *job, char *why, size_t n)
{
	struct host_ctx *ctx = env->e.ctx;
	struct host_queue *q = env->e.q;
	int ret;
	/* Before the kernel can run it: the snapshots are what the job will read. */
	if (c->host->capture)
		capture_submit(q, seqno, m, env->bos, env->nr_bos);
	if (env->e.held) {
		/* Validated now, as msm submits are: the guest hears of a refusal in answer to this
		 * message, and what runs later is the shadow made now. */
		struct v3d_job_desc run;
		struct shadow_set *set;
		ret = v3d_job_prepare(ctx, job, env->bos, env->nr_bos, &run, &set, why, n);
		if (ret < 0) {
			trace_queue_event(q, TRACE_REJECTED, seqno, ret);
			if (ctx->refused)
				ctx_submit_refused(q, seqno, ret, why);
			return ret;
		}
		struct held_submit *hs = sched_hold(&env->e, sizeof(run), set);
		if (!hs) {
			if (set)
				v3d_shadows_release(ctx, set);
			HOST_FAIL(-ENOMEM, "out of memory");
		}
		memcpy(hs->job, &run, sizeof(run));
		if (set) /* recycled when this seqno retires, however it retires */
			v3d_shadows_queue(ctx, set, q->id, seqno);
	} else {
		ret = timeline_push(&q->tl, seqno, flags, 0, true);
		if (ret < 0)
			HOST_FAIL(ret, "out of memory");
		uint32_t sync = 0;
		trace_queue_event(q, TRACE_KERNEL_SUBMIT, seqno, 0);
		ret = v3d_job_flush(ctx, q->id, seqno, job, env->bos, env->nr_bos, &sync, why, n);
		if (ret < 0) {
			trace_queue_event(q, TRACE_REJECTED, seqno, ret);
			q->tl.count--; /* un-push: the validator or the kernel did not take it */
			if (ctx->refused)
				ctx_submit_refused(q, seqno, ret, why);
			return ret;
		}
		timeline_set_last_syncobj(&q->tl, sync);
	}
	submit_accepted(c, &env->e);
	return 0;
}

int v3d_held_run(struct host_queue *q, struct held_submit *hs, uint32_t *syncobj, char *why, size_t n)
{
	/* Validated when it was held: the kernel call is all that is left. */
	trace_queue_event(q, TRACE_RELEASED, hs->seqno, 0);
	trace_queue_event(q, TRACE_KERNEL_SUBMIT, hs->seqno, 0);
	return v3d_job_run(q->ctx, q->id, hs->seqno, hs->job, hs->shadows, true, hs->bos, hs->nr_bos, syncobj, why, n);
}

int v3d_handle_submit_cl(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_v3d_submit_cl *s = &m->u.v3d_submit_cl;
	struct v3d_submit_env env;
	int ret = submit_begin(c, s->ctx_id, s->queue_id, FERRY_QUEUE_KIND_V3D_CL, s->seqno, s->flags,
			       FERRY_V3D_SUBMIT_CL_FLAGS, s->bo_ids, s->nr_bos, s->in_fences, s->nr_in_fences, &env,
			       why, n);
	if (ret < 0)
		return ret;
	if (s->bcl_start != s->bcl_end && (ret = check_cl_range(&env, "BCL", s->bcl_start, s->bcl_end, why, n)) < 0)
		return ret;
	if ((ret = check_cl_range(&env, "RCL", s->rcl_start, s->rcl_end, why, n)) < 0)
		return ret;
	if ((s->flags & FERRY_V3D_SUBMIT_FLUSH_CACHE) && !v3d_host(c->host)->dev.has_cache_flush)
		HOST_FAIL(-EINVAL, "this V3D kernel has no cache-flush support");
	struct v3d_job_desc job = { .kind = FERRY_QUEUE_KIND_V3D_CL };
	job.u.cl = (struct v3d_cl_job){
		.bcl_start = s->bcl_start, .bcl_end = s->bcl_end, .rcl_start = s->rcl_start, .rcl_end = s->rcl_end,
		.qma = s->qma, .qms = s->qms, .qts = s->qts,
		.flush_cache = (s->flags & FERRY_V3D_SUBMIT_FLUSH_CACHE) != 0,
	};
	return submit_finish(c, m, &env, s->seqno, s->flags & FERRY_SUBMIT_FLAGS, &job, why, n);
}

int v3d_handle_submit_tfu(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_v3d_submit_tfu *s = &m->u.v3d_submit_tfu;
	if (s->nr_bos > FERRY_V3D_MAX_TFU_BOS)
		HOST_FAIL(-EINVAL, "a TFU job names at most %u BOs (got %u)", FERRY_V3D_MAX_TFU_BOS, s->nr_bos);
	if (v3d_host(c->host)->dev.ver < 71 && s->v71_ioc)
		HOST_FAIL(-EINVAL, "v71_ioc 0x%x: V3D %u has no IOC register", s->v71_ioc, v3d_host(c->host)->dev.ver);
	struct v3d_submit_env env;
	int ret = submit_begin(c, s->ctx_id, s->queue_id, FERRY_QUEUE_KIND_V3D_TFU, s->seqno, s->flags,
			       FERRY_SUBMIT_FLAGS, s->bo_ids, s->nr_bos, s->in_fences, s->nr_in_fences, &env, why, n);
	if (ret < 0)
		return ret;
	if ((ret = check_addr(&env, "TFU input (IIA)", s->iia, why, n)) < 0)
		return ret;
	/* IOA's low bits are flags on 4.2; the output must be in bos[0], as the kernel's rule. */
	uint32_t out = s->ioa & ~0xfu;
	const struct host_bo *ob = env.bos[0];
	if (out < ob->iova || out - ob->iova >= ob->size)
		HOST_FAIL(-EINVAL, "TFU output (IOA) 0x%x is not inside bos[0] (bo %u)", out, ob->id);
	struct v3d_job_desc job = { .kind = FERRY_QUEUE_KIND_V3D_TFU };
	job.u.tfu = (struct v3d_tfu_job){
		.icfg = s->icfg, .iia = s->iia, .iis = s->iis, .ica = s->ica, .iua = s->iua, .ioa = s->ioa,
		.ios = s->ios, .v71_ioc = s->v71_ioc,
	};
	memcpy(job.u.tfu.coef, s->coef, sizeof(job.u.tfu.coef));
	return submit_finish(c, m, &env, s->seqno, s->flags, &job, why, n);
}

int v3d_handle_submit_csd(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_v3d_submit_csd *s = &m->u.v3d_submit_csd;
	struct v3d_submit_env env;
	int ret = submit_begin(c, s->ctx_id, s->queue_id, FERRY_QUEUE_KIND_V3D_CSD, s->seqno, s->flags,
			       FERRY_SUBMIT_FLAGS, s->bo_ids, s->nr_bos, s->in_fences, s->nr_in_fences, &env, why, n);
	if (ret < 0)
		return ret;
	if ((ret = check_addr(&env, "CSD shader (CFG5)", s->cfg[5] & ~7u, why, n)) < 0)
		return ret;
	if (s->cfg[6] && (ret = check_addr(&env, "CSD uniforms (CFG6)", s->cfg[6], why, n)) < 0)
		return ret;
	struct v3d_job_desc job = { .kind = FERRY_QUEUE_KIND_V3D_CSD };
	memcpy(job.u.csd.cfg, s->cfg, sizeof(job.u.csd.cfg));
	return submit_finish(c, m, &env, s->seqno, s->flags, &job, why, n);
}

/* ---- retire and faults ---- */

static const char *fault_kind_name(enum v3d_fault_kind k)
{
	switch (k) {
	case V3D_FAULT_MMU: return "MMU fault";
	case V3D_FAULT_HANG: return "hang";
	case V3D_FAULT_JOB_ERROR: return "job error";
	default: return "fault";
	}
}

static uint32_t fault_source(const struct v3d_fault *f)
{
	if (strcmp(f->unit, "TFU") == 0)
		return FERRY_FAULT_SOURCE_V3D_TFU;
	if (strcmp(f->unit, "CSD") == 0)
		return FERRY_FAULT_SOURCE_V3D_CSD;
	return FERRY_FAULT_SOURCE_V3D_CLE;
}

/* The kernel's report is about a job of this open that has completed by now; the submit retiring
 * when it is read gets it unless the report names another (the context is lost either way). */
static int32_t fault_report(struct host_queue *q, uint32_t seqno, const struct v3d_fault *f, const char *kernel_text)
{
	struct host_fault hf = {
		.kind = fault_kind_name(f->kind), .status = f->kind == V3D_FAULT_HANG ? -ETIMEDOUT : -EIO,
		.kernel_text = kernel_text, .where_in_parens = true,
	};
	uint64_t number = fault_log_next_number(q->ctx->client->host);
	if (f->have_packet)
		snprintf(hf.where, sizeof(hf.where), "%s packet at 0x%llx (opcode %u)", f->queue[0] ? f->queue : "CL",
			 (unsigned long long)f->packet, f->opcode);
	else
		snprintf(hf.where, sizeof(hf.where), "%s job", f->unit[0] ? f->unit : "V3D");
	if (f->have_address)
		snprintf(hf.address_line, sizeof(hf.address_line), "fault-address: 0x%08llx (%s, %s)\n",
			 (unsigned long long)f->address, f->write ? "write" : "read", f->unit);
	snprintf(hf.at, sizeof(hf.at), " at 0x%llx", (unsigned long long)f->address);
	hf.wire = (struct ferry_fault_report){
		.flags = (f->kind == V3D_FAULT_HANG ? FERRY_FAULT_HANG : 0) |
			 (f->have_address && f->write ? FERRY_FAULT_WRITE : 0),
		.iova = f->address, .ib_iova = f->packet, .opcode = f->opcode, .source = fault_source(f),
	};
	return fault_log_report(q, seqno, number, &hf);
}

/* The queue of ctx whose unretired in-kernel job signals syncobj (its seqno in *seqno), or NULL. */
static struct host_queue *pending_job(struct host_ctx *ctx, uint32_t syncobj, uint32_t *seqno)
{
	struct host_queue *oq;
	ctx_for_each_queue(ctx, oq) {
		for (uint32_t i = 0; i < oq->tl.count; i++) {
			const struct pending_fence *pf = timeline_at(&oq->tl, i);
			if (pf->in_kernel && pf->syncobj == syncobj) {
				*seqno = pf->seqno;
				return oq;
			}
		}
	}
	return NULL;
}

int v3d_fence_retire(struct host_queue *q, const struct pending_fence *pf, int32_t *status)
{
	struct host_ctx *ctx = q->ctx;
	int ret = v3d_sync_poll(v3d_hctx(ctx)->v3d, pf->syncobj);
	if (ret == -EBUSY)
		return -EBUSY;
	if (ret < 0) /* not known to be done: its shadows stay (queue_retire) */
		return ret;
	/* The job is over (done, failed or cancelled): its shadows go back to the pool when the
	 * timeline retires it (the family's shadows_retired). */
	v3d_sync_free(v3d_hctx(ctx)->v3d, pf->syncobj);
	if (!ctx->fault_text)
		ctx->fault_text = malloc(HOST_FAULT_TEXT_MAX);
	if (!ctx->fault_text)
		return 0;
	struct v3d_fault f;
	if (v3d_read_fault(v3d_hctx(ctx)->v3d, &f, ctx->fault_text, HOST_FAULT_TEXT_MAX) < 0)
		return 0;
	/* Several jobs may have ended before the host looked: the one the report names by its
	 * out-syncobj carries it when it is still pending, on whichever of the context's queues. */
	struct host_queue *fq = NULL;
	uint32_t fseqno = 0;
	if (f.out_sync && f.out_sync != pf->syncobj)
		fq = pending_job(ctx, f.out_sync, &fseqno);
	if (!fq) {
		*status = fault_report(q, pf->seqno, &f, ctx->fault_text);
		return 0;
	}
	/* Looked up again: reporting may cancel held submits, which pushes onto timelines. */
	int32_t st = fault_report(fq, fseqno, &f, ctx->fault_text);
	if (!timeline_set_status(&fq->tl, fseqno, st))
		*status = st; /* never dropped */
	return 0;
}
