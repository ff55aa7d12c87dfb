/* Submits and the host-side scheduler: checks a submit (ids, seqno order, BO table, envelope,
 * in-fences), validates it into shadow copies (validated contexts), sends it to the kernel at
 * once when nothing holds it back, or keeps a copy until its in-fences (queues of the same
 * context) have signaled. Per queue, order is kept: a submit behind a held one is held too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"

struct held_in_fence {
	struct host_queue *q; /* NULL once that queue is gone (its work had all retired) */
	uint32_t seqno;
};

struct held_submit {
	struct list link;
	struct ferry_msm_submit s; /* arrays point into this allocation */
	struct host_bo **bos;      /* one reference each */
	struct held_in_fence *in;
	uint32_t nr_in;
	struct shadow_set *shadows; /* validated contexts: made when the message came; queued */
	bool is_v3d;                /* a V3D job (v3d_core.c): s carries only seqno, flags, nr_bos */
	struct v3d_job_desc v3d;
};

int ctx_reserve_scratch(struct host_ctx *ctx, uint32_t nr)
{
	if (nr <= ctx->scratch_cap)
		return 0;
	uint32_t want = ctx->scratch_cap ? ctx->scratch_cap : 64;
	while (want < nr)
		want *= 2;
	struct msm_submit_bo_ref *refs = realloc(ctx->refs, (size_t)want * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	ctx->refs = refs;
	struct host_bo **ptrs = realloc(ctx->bo_ptrs, (size_t)want * sizeof(*ptrs));
	if (!ptrs)
		return -ENOMEM;
	ctx->bo_ptrs = ptrs;
	ctx->scratch_cap = want;
	return 0;
}

/* memcpy that tolerates the NULL array a decoder may give for an empty vector. */
static void *copy_array(void *dst, const void *src, size_t len)
{
	if (len)
		memcpy(dst, src, len);
	return dst;
}

static struct held_submit *hold(struct host_ctx *ctx, const struct ferry_msm_submit *s, uint32_t nr_in)
{
	/* Counts were checked against the FERRY_MAX_SUBMIT_* limits, so these sizes are small. */
	size_t sz = sizeof(struct held_submit);
	size_t off_relocs = sz;
	sz += (size_t)s->nr_relocs * sizeof(*s->relocs);
	size_t off_ptrs = sz;
	sz += (size_t)s->nr_bos * sizeof(struct host_bo *);
	size_t off_in = sz;
	sz += (size_t)nr_in * sizeof(struct held_in_fence);
	size_t off_bos = sz;
	sz += (size_t)s->nr_bos * sizeof(*s->bos);
	size_t off_cmds = sz;
	sz += (size_t)s->nr_cmds * sizeof(*s->cmds);

	char *mem = calloc(1, sz);
	if (!mem)
		return NULL;
	struct held_submit *hs = (struct held_submit *)mem;
	hs->s = *s;
	hs->s.relocs = copy_array(mem + off_relocs, s->relocs, (size_t)s->nr_relocs * sizeof(*s->relocs));
	hs->bos = (struct host_bo **)(mem + off_ptrs);
	hs->in = (struct held_in_fence *)(mem + off_in);
	hs->s.bos = copy_array(mem + off_bos, s->bos, (size_t)s->nr_bos * sizeof(*s->bos));
	hs->s.cmds = copy_array(mem + off_cmds, s->cmds, (size_t)s->nr_cmds * sizeof(*s->cmds));
	hs->s.in_fences = NULL;
	hs->s.nr_in_fences = 0;
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		hs->bos[i] = ctx->bo_ptrs[i];
		bo_ref(hs->bos[i]);
		hs->bos[i]->held++;
	}
	return hs;
}

static void held_free(struct host_ctx *ctx, struct held_submit *hs)
{
	list_del(&hs->link);
	ctx->nr_held--;
	for (uint32_t i = 0; i < hs->s.nr_bos; i++) {
		hs->bos[i]->held--;
		bo_unref(hs->bos[i]);
	}
	free(hs);
}

int sched_handle_submit(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_msm_submit *s = &m->u.msm_submit;
	if (c->host->trace.on && !c->resuming)
		trace_note(c->host, c->id, s->ctx_id, s->queue_id, TRACE_SUBMIT, s->seqno, 0);
	struct host_ctx *ctx = client_lookup_ctx(c, s->ctx_id, why, n);
	if (!ctx)
		return -ENOENT;
	if (ctx->family != FERRY_FAMILY_MSM)
		HOST_FAIL(-EINVAL, "context %u is not an msm context: use the V3D submits", s->ctx_id);
	if (ctx->lost)
		HOST_FAIL(-EIO, "%s; create a new context", ctx_lost_reason(ctx));
	struct host_queue *q = queue_find(ctx, s->queue_id);
	if (!q || q->closing)
		HOST_FAIL(-ENOENT, "queue %u does not exist in context %u", s->queue_id, s->ctx_id);
	if (q->kind == FERRY_QUEUE_KIND_EXTERNAL)
		HOST_FAIL(-EINVAL, "queue %u is an external queue: it takes ExternalFence, not submits", s->queue_id);
	if (s->flags & ~FERRY_SUBMIT_FLAGS)
		HOST_FAIL(-EINVAL, "submit flags 0x%x: unknown bits", s->flags);
	int sret = timeline_check_new(&q->tl, s->seqno, why, n);
	if (sret)
		return sret;
	if (s->nr_bos > FERRY_MAX_SUBMIT_BOS)
		HOST_FAIL(-EINVAL, "nr_bos %u exceeds %u", s->nr_bos, FERRY_MAX_SUBMIT_BOS);
	if (s->nr_in_fences > FERRY_MAX_SUBMIT_IN_FENCES)
		HOST_FAIL(-EINVAL, "nr_in_fences %u exceeds %u", s->nr_in_fences, FERRY_MAX_SUBMIT_IN_FENCES);
	if (ctx_reserve_scratch(ctx, s->nr_bos) < 0)
		HOST_FAIL(-ENOMEM, "out of memory");

	uint64_t mark = ++ctx->submit_mark;
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		struct host_bo *bo = bo_table_find(&ctx->bos, s->bos[i].bo_id);
		if (!bo)
			HOST_FAIL(-ENOENT, "bos[%u]: bo %u does not exist in context %u", i, s->bos[i].bo_id, s->ctx_id);
		if (bo->submit_mark == mark)
			HOST_FAIL(-EINVAL, "bos[%u]: bo %u is listed twice", i, s->bos[i].bo_id);
		bo->submit_mark = mark;
		ctx->refs[i] = (struct msm_submit_bo_ref){ .handle = bo->handle, .size = bo->size };
		ctx->bo_ptrs[i] = bo;
	}
	int ret = msm_submit_prepare(msm_hctx(ctx)->msm, s, ctx->refs, why, n);
	if (ret < 0)
		return ret;

	uint32_t unsignaled = 0;
	for (uint32_t i = 0; i < s->nr_in_fences; i++) {
		const struct ferry_fence_ref *f = &s->in_fences[i];
		struct host_queue *fq = queue_find(ctx, f->queue_id);
		if (!fq)
			HOST_FAIL(-ENOENT, "in_fences[%u]: queue %u does not exist in context %u", i, f->queue_id, s->ctx_id);
		if (!timeline_submitted(&fq->tl, f->seqno))
			HOST_FAIL(-EINVAL, "in_fences[%u]: seqno %u was never submitted on queue %u (last %u): it could never signal",
			     i, f->seqno, f->queue_id, fq->tl.last_submitted);
		/* The kernel runs one queue in order, so a fence of the same queue needs no hold. */
		if (fq != q && !queue_fence_done(fq, f->seqno))
			unsignaled++;
	}
	bool held = unsignaled != 0 || !list_empty(&q->held);
	if (held && ctx->nr_held >= HOST_MAX_HELD_PER_CTX)
		HOST_FAIL(-EAGAIN, "too many submits waiting for in-fences (max %u)", HOST_MAX_HELD_PER_CTX);

	/* Last of the checks, as it is the costly one; a rejection leaves everything as it was
	 * (the seqno is not taken: the guest's library completes that fence with the error). */
	struct shadow_set *shadows = NULL;
	if (msm_hctx(ctx)->val) {
		ret = validation_submit(ctx, s, ctx->bo_ptrs, &shadows, why, n);
		if (ret == -EINPROGRESS) /* this frame comes again (client.c): nothing taken yet */
			return ret;
		trace_queue_event(q, ret < 0 ? TRACE_REJECTED : TRACE_VALIDATED, s->seqno, ret < 0 ? ret : 0);
		if (ret < 0 && ctx->refused)
			ctx_submit_refused(q, s->seqno, ret, why);
		if (ret < 0)
			return ret;
	}

	if (c->host->capture)
		capture_submit(q, s, ctx->bo_ptrs);

	if (!held) {
		ret = shadows ? validation_use_shadows(ctx, shadows) : 0;
		if (ret == 0)
			ret = timeline_push(&q->tl, s->seqno, s->flags, 0, true);
		if (ret < 0) {
			if (shadows)
				validation_release(ctx, shadows);
			HOST_FAIL(ret, "out of memory");
		}
		/* Noted before the call: the GPU may start it before the call returns. */
		trace_queue_event(q, TRACE_KERNEL_SUBMIT, s->seqno, 0);
		ret = msm_submit_flush(msm_hctx(ctx)->msm, q->kernel_id, s->seqno);
		if (ret < 0) {
			trace_queue_event(q, TRACE_REJECTED, s->seqno, ret);
			q->tl.count--; /* un-push: the kernel did not take it */
			if (shadows)
				validation_release(ctx, shadows);
			HOST_FAIL(ret, "kernel rejected the submit (%s)", strerror(-ret));
		}
		if (shadows)
			validation_queue(ctx, shadows, q->id, s->seqno);
	} else {
		struct held_submit *hs = hold(ctx, s, unsignaled);
		if (!hs) {
			if (shadows)
				validation_release(ctx, shadows);
			HOST_FAIL(-ENOMEM, "out of memory");
		}
		/* Recycled when this seqno retires, however it retires (run, refused, cancelled). */
		hs->shadows = shadows;
		if (shadows)
			validation_queue(ctx, shadows, q->id, s->seqno);
		for (uint32_t i = 0; i < s->nr_in_fences; i++) {
			const struct ferry_fence_ref *f = &s->in_fences[i];
			struct host_queue *fq = queue_find(ctx, f->queue_id);
			if (fq != q && !queue_fence_done(fq, f->seqno))
				hs->in[hs->nr_in++] = (struct held_in_fence){ .q = fq, .seqno = f->seqno };
		}
		list_add_tail(&q->held, &hs->link);
		ctx->nr_held++;
		trace_queue_event(q, TRACE_HELD, s->seqno, 0);
	}
	q->tl.last_submitted = s->seqno;
	ctx->nr_inflight++;
	c->host->stats.submits++;
	return 0;
}

static bool held_ready(const struct held_submit *hs)
{
	for (uint32_t i = 0; i < hs->nr_in; i++) {
		const struct host_queue *fq = hs->in[i].q;
		if (fq && !queue_fence_done(fq, hs->in[i].seqno))
			return false;
	}
	return true;
}

/* Moves a held submit onto the timeline: into the kernel, or as an already-failed entry. */
static void release_one(struct host_queue *q, struct held_submit *hs, int32_t status)
{
	struct host_ctx *ctx = q->ctx;
	bool in_kernel = false;
	uint32_t syncobj = 0;
	char why[320];
	if (status == 0 && hs->is_v3d) {
		trace_queue_event(q, TRACE_RELEASED, hs->s.seqno, 0);
		trace_queue_event(q, TRACE_KERNEL_SUBMIT, hs->s.seqno, 0);
		int ret = v3d_job_run(ctx, q->id, hs->s.seqno, &hs->v3d, hs->shadows, true, hs->bos, hs->s.nr_bos,
				      &syncobj, why, sizeof(why));
		if (ret < 0) {
			host_log(ctx->client->host, FERRY_LOG_WARN, "context %u queue %u seqno %u: held V3D job failed: %s",
				 ctx->id, q->id, hs->s.seqno, why);
			status = ret;
		} else {
			in_kernel = true;
		}
	} else if (status == 0) {
		int ret = ctx_reserve_scratch(ctx, hs->s.nr_bos);
		for (uint32_t i = 0; ret == 0 && i < hs->s.nr_bos; i++)
			ctx->refs[i] = (struct msm_submit_bo_ref){ .handle = hs->bos[i]->handle, .size = hs->bos[i]->size };
		if (ret == 0)
			ret = msm_submit_prepare(msm_hctx(ctx)->msm, &hs->s, ctx->refs, why, sizeof(why));
		if (ret == 0 && hs->shadows)
			ret = validation_use_shadows(ctx, hs->shadows);
		if (ret == 0) {
			trace_queue_event(q, TRACE_RELEASED, hs->s.seqno, 0);
			trace_queue_event(q, TRACE_KERNEL_SUBMIT, hs->s.seqno, 0);
			ret = msm_submit_flush(msm_hctx(ctx)->msm, q->kernel_id, hs->s.seqno);
		}
		if (ret < 0) {
			host_log(ctx->client->host, FERRY_LOG_WARN, "context %u queue %u seqno %u: held submit failed: %d",
				 ctx->id, q->id, hs->s.seqno, ret);
			status = ret;
		} else {
			in_kernel = true;
		}
	}
	if (status)
		trace_queue_event(q, TRACE_RELEASED, hs->s.seqno, status);
	if (timeline_push(&q->tl, hs->s.seqno, hs->s.flags, status, in_kernel) == 0) {
		timeline_set_last_syncobj(&q->tl, syncobj);
	} else {
		/* Out of memory: signal now rather than never (a V3D job's syncobj is the kernel's
		 * to forget when the open closes). */
		ctx->nr_inflight--;
		timeline_retire(&q->tl, hs->s.seqno, hs->s.flags, in_kernel ? 0 : status ? status : -ENOMEM);
	}
	held_free(ctx, hs);
}

int sched_hold_v3d(struct host_queue *q, uint32_t seqno, uint32_t flags, const struct v3d_job_desc *job,
		   struct shadow_set *set, struct host_bo *const *bos, uint32_t nr_bos, const struct ferry_fence_ref *in,
		   uint32_t nr_in)
{
	struct host_ctx *ctx = q->ctx;
	if (ctx->nr_held >= HOST_MAX_HELD_PER_CTX)
		return -EAGAIN;
	/* nr_bos <= FERRY_MAX_SUBMIT_BOS, nr_in <= FERRY_MAX_SUBMIT_IN_FENCES: small sizes. */
	size_t sz = sizeof(struct held_submit) + (size_t)nr_bos * sizeof(struct host_bo *) +
		    (size_t)nr_in * sizeof(struct held_in_fence);
	char *mem = calloc(1, sz);
	if (!mem)
		return -ENOMEM;
	struct held_submit *hs = (struct held_submit *)mem;
	hs->bos = (struct host_bo **)(mem + sizeof(*hs));
	hs->in = (struct held_in_fence *)(mem + sizeof(*hs) + (size_t)nr_bos * sizeof(struct host_bo *));
	hs->s.ctx_id = ctx->id;
	hs->s.queue_id = q->id;
	hs->s.seqno = seqno;
	hs->s.flags = flags;
	hs->s.nr_bos = nr_bos;
	hs->is_v3d = true;
	hs->v3d = *job;
	hs->shadows = set;
	for (uint32_t i = 0; i < nr_bos; i++) {
		hs->bos[i] = bos[i];
		bo_ref(bos[i]);
		bos[i]->held++;
	}
	for (uint32_t i = 0; i < nr_in; i++) {
		struct host_queue *fq = queue_find(ctx, in[i].queue_id);
		if (fq && fq != q && !queue_fence_done(fq, in[i].seqno))
			hs->in[hs->nr_in++] = (struct held_in_fence){ .q = fq, .seqno = in[i].seqno };
	}
	list_add_tail(&q->held, &hs->link);
	ctx->nr_held++;
	return 0;
}

bool sched_release(struct host_ctx *ctx)
{
	bool progressed = false;
	for (uint32_t id = 0; id < FERRY_FENCE_PAGE_QUEUES; id++) {
		struct host_queue *q = ctx->queues[id];
		while (q && !list_empty(&q->held)) {
			struct held_submit *hs = list_entry(q->held.next, struct held_submit, link);
			if (!held_ready(hs))
				break;
			release_one(q, hs, ctx->lost ? -ECANCELED : 0);
			progressed = true;
		}
	}
	return progressed;
}

void sched_cancel(struct host_ctx *ctx, int32_t status)
{
	for (uint32_t id = 0; id < FERRY_FENCE_PAGE_QUEUES; id++) {
		struct host_queue *q = ctx->queues[id];
		while (q && !list_empty(&q->held))
			release_one(q, list_entry(q->held.next, struct held_submit, link), status);
	}
}

void sched_free_queue(struct host_queue *q)
{
	while (!list_empty(&q->held)) {
		held_free(q->ctx, list_entry(q->held.next, struct held_submit, link));
		q->ctx->nr_inflight--;
	}
}

void sched_forget_queue(struct host_queue *gone)
{
	struct host_ctx *ctx = gone->ctx;
	for (uint32_t id = 0; id < FERRY_FENCE_PAGE_QUEUES; id++) {
		struct host_queue *q = ctx->queues[id];
		if (!q)
			continue;
		for (struct list *l = q->held.next; l != &q->held; l = l->next) {
			struct held_submit *hs = list_entry(l, struct held_submit, link);
			for (uint32_t i = 0; i < hs->nr_in; i++)
				if (hs->in[i].q == gone)
					hs->in[i].q = NULL;
		}
	}
}

bool sched_bo_held(struct host_ctx *ctx, const struct host_bo *bo)
{
	(void)ctx;
	return bo->held != 0;
}

uint32_t sched_visit_held(const struct host_queue *q, uint32_t max,
			  void (*fn)(void *arg, const struct sched_held_view *v), void *arg)
{
	struct sched_held_view v;
	uint32_t n = 0;
	for (const struct list *l = q->held.next; l != &q->held; l = l->next) {
		/* Past max only counted: a dump's cost follows what it shows, not what is held. */
		if (n++ >= max)
			continue;
		const struct held_submit *hs = list_entry(l, struct held_submit, link);
		v.seqno = hs->s.seqno;
		v.nr_in = 0;
		for (uint32_t i = 0; i < hs->nr_in && v.nr_in < FERRY_MAX_SUBMIT_IN_FENCES; i++) {
			if (!hs->in[i].q || queue_fence_done(hs->in[i].q, hs->in[i].seqno))
				continue;
			v.in_q[v.nr_in] = hs->in[i].q;
			v.in_seqno[v.nr_in++] = hs->in[i].seqno;
		}
		fn(arg, &v);
	}
	return n;
}
