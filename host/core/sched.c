/* What every family's submit goes through: the envelope check (context, queue, seqno order, BO
 * table, in-fences) and the host-side scheduler, which keeps a submit whose in-fences (queues of
 * the same context) have not signaled and hands it to the family's held_run once they have. Per
 * queue, order is kept: a submit behind a held one is held too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "family.h"
#include "host_log.h"
#include "host_context.h"
#include "host_external_fence.h"
#include "host_queue.h"
#include "sched.h"
#include "fault_log.h"
#include "trace_host.h"

int ctx_reserve_scratch(struct host_ctx *ctx, uint32_t nr)
{
	return FERRY_ARRAY_RESERVE(ctx->bo_ptrs, ctx->scratch_cap, nr, 64);
}

int submit_envelope_begin(struct ferry_host_client *c, struct submit_envelope *e, char *why, size_t n)
{
	static const char *const kind_names[] = { "default", "CL", "TFU", "CSD" };
	if (c->host->trace.on && !c->resuming)
		trace_note(c->host, c->id, e->ctx_id, e->queue_id, TRACE_SUBMIT, e->seqno, 0);
	struct host_ctx *ctx = client_lookup_ctx(c, e->ctx_id, why, n);
	if (!ctx)
		return -ENOENT;
	if (ctx->family != e->family)
		HOST_FAIL(-EINVAL, "context %u is not %s", e->ctx_id, e->family_hint);
	if (ctx->lost)
		HOST_FAIL(-EIO, "%s; create a new context", ctx_lost_reason(ctx));
	struct host_queue *q = queue_find(ctx, e->queue_id);
	if (!q || q->closing)
		HOST_FAIL(-ENOENT, "queue %u does not exist in context %u", e->queue_id, e->ctx_id);
	if (q->kind == FERRY_QUEUE_KIND_EXTERNAL)
		HOST_FAIL(-EINVAL, "queue %u is an external queue: it takes ExternalFence, not submits", e->queue_id);
	if (q->kind != e->kind)
		HOST_FAIL(-EINVAL, "queue %u is a %s queue, not a %s queue", e->queue_id,
			  q->kind < 4 ? kind_names[q->kind] : "?", e->kind < 4 ? kind_names[e->kind] : "?");
	if (e->flags & ~e->allowed_flags)
		HOST_FAIL(-EINVAL, "submit flags 0x%x: unknown bits", e->flags);
	int sret = timeline_check_new(&q->tl, e->seqno, why, n);
	if (sret)
		return sret;
	if (e->nr_bos == 0 && e->bos_required)
		HOST_FAIL(-EINVAL, "a %s job must list the BOs it uses (bos is empty)", c->host->fam->name);
	if (e->nr_bos > FERRY_MAX_SUBMIT_BOS)
		HOST_FAIL(-EINVAL, "nr_bos %u exceeds %u", e->nr_bos, FERRY_MAX_SUBMIT_BOS);
	if (e->nr_in > FERRY_MAX_SUBMIT_IN_FENCES)
		HOST_FAIL(-EINVAL, "nr_in_fences %u exceeds %u", e->nr_in, FERRY_MAX_SUBMIT_IN_FENCES);
	if (ctx_reserve_scratch(ctx, e->nr_bos) < 0)
		HOST_FAIL(-ENOMEM, "out of memory");

	uint64_t mark = ++ctx->submit_mark;
	for (uint32_t i = 0; i < e->nr_bos; i++) {
		uint32_t id = *(const uint32_t *)((const char *)e->bo_ids + (size_t)i * e->bo_id_stride);
		struct host_bo *bo = bo_table_find(&ctx->bos, id);
		if (!bo)
			HOST_FAIL(-ENOENT, "bos[%u]: bo %u does not exist in context %u", i, id, e->ctx_id);
		if (bo->submit_mark == mark)
			HOST_FAIL(-EINVAL, "bos[%u]: bo %u is listed twice", i, id);
		bo->submit_mark = mark;
		ctx->bo_ptrs[i] = bo;
	}
	e->ctx = ctx;
	e->q = q;
	e->bos = ctx->bo_ptrs;
	return 0;
}

int submit_envelope_fences(struct submit_envelope *e, char *why, size_t n)
{
	struct host_ctx *ctx = e->ctx;
	uint32_t unsignaled = 0;
	for (uint32_t i = 0; i < e->nr_in; i++) {
		const struct ferry_fence_ref *f = &e->in[i];
		struct host_queue *fq = queue_find(ctx, f->queue_id);
		if (!fq)
			HOST_FAIL(-ENOENT, "in_fences[%u]: queue %u does not exist in context %u", i, f->queue_id, e->ctx_id);
		if (!timeline_submitted(&fq->tl, f->seqno))
			HOST_FAIL(-EINVAL, "in_fences[%u]: seqno %u was never submitted on queue %u (last %u): it could never signal",
				  i, f->seqno, f->queue_id, fq->tl.last_submitted);
		/* The kernel runs one queue in order, so a fence of the same queue needs no hold. */
		if (fq != e->q && !queue_fence_done(fq, f->seqno))
			unsignaled++;
	}
	e->held = unsignaled != 0 || !list_empty(&e->q->held);
	if (e->held && ctx->nr_held >= HOST_MAX_HELD_PER_CTX)
		HOST_FAIL(-EAGAIN, "too many submits waiting for in-fences (max %u)", HOST_MAX_HELD_PER_CTX);
	return 0;
}

void submit_accepted(struct ferry_host_client *c, const struct submit_envelope *e)
{
	e->q->tl.last_submitted = e->seqno;
	e->ctx->nr_inflight++;
	c->host->stats.submits++;
}

struct held_submit *sched_hold(const struct submit_envelope *e, size_t job_size, struct shadow_set *shadows)
{
	struct host_ctx *ctx = e->ctx;
	/* nr_bos <= FERRY_MAX_SUBMIT_BOS, nr_in <= FERRY_MAX_SUBMIT_IN_FENCES: small sizes. */
	size_t off_bos = sizeof(struct held_submit);
	size_t off_in = off_bos + (size_t)e->nr_bos * sizeof(struct host_bo *);
	size_t off_job = off_in + (size_t)e->nr_in * sizeof(struct held_in_fence);
	off_job = (off_job + 15) & ~(size_t)15;
	char *mem = calloc(1, off_job + job_size);
	if (!mem)
		return NULL;
	struct held_submit *hs = (struct held_submit *)mem;
	hs->seqno = e->seqno;
	hs->flags = e->flags & FERRY_SUBMIT_FLAGS;
	hs->nr_bos = e->nr_bos;
	hs->bos = (struct host_bo **)(mem + off_bos);
	hs->in = (struct held_in_fence *)(mem + off_in);
	hs->job = mem + off_job;
	hs->shadows = shadows;
	hs->submitted_ns = host_now_ns();
	for (uint32_t i = 0; i < e->nr_bos; i++) {
		hs->bos[i] = e->bos[i];
		bo_ref(hs->bos[i]);
		hs->bos[i]->held++;
	}
	for (uint32_t i = 0; i < e->nr_in; i++) {
		struct host_queue *fq = queue_find(ctx, e->in[i].queue_id);
		if (fq && fq != e->q && !queue_fence_done(fq, e->in[i].seqno))
			hs->in[hs->nr_in++] = (struct held_in_fence){ .q = fq, .seqno = e->in[i].seqno };
	}
	list_add_tail(&e->q->held, &hs->link);
	ctx->nr_held++;
	trace_queue_event(e->q, TRACE_HELD, e->seqno, 0);
	return hs;
}

static void held_free(struct host_ctx *ctx, struct held_submit *hs)
{
	list_del(&hs->link);
	ctx->nr_held--;
	for (uint32_t i = 0; i < hs->nr_bos; i++) {
		hs->bos[i]->held--;
		bo_unref(hs->bos[i]);
	}
	free(hs);
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

/* Moves a held submit onto the timeline: into the kernel (the family's held_run), or as an
 * already-failed entry. Its shadows were queued for its seqno when it was held, so they go back
 * when it retires, run or not. */
static void release_one(struct host_queue *q, struct held_submit *hs, int32_t status)
{
	struct host_ctx *ctx = q->ctx;
	bool in_kernel = false;
	uint32_t syncobj = 0;
	char why[320] = "";
	if (status == 0) {
		/* held_run traces RELEASED and KERNEL_SUBMIT right before its kernel call, so a job
		 * that fails its last preparation never shows as submitted. */
		int ret = ctx->client->host->fam->held_run(q, hs, &syncobj, why, sizeof(why));
		if (ret < 0) {
			host_log(ctx->client->host, FERRY_LOG_WARN, "context %u queue %u seqno %u: held submit failed: %s",
				 ctx->id, q->id, hs->seqno, why[0] ? why : strerror(-ret));
			status = ret;
		} else {
			in_kernel = true;
		}
	}
	if (status)
		trace_queue_event(q, TRACE_RELEASED, hs->seqno, status);
	if (timeline_push(&q->tl, hs->seqno, hs->flags, status, in_kernel) == 0) {
		timeline_set_last_syncobj(&q->tl, syncobj);
		timeline_set_last_submitted_ns(&q->tl, hs->submitted_ns);
	} else {
		/* Out of memory: signal now rather than never (a V3D job's syncobj is the kernel's
		 * to forget when the open closes). */
		ctx->nr_inflight--;
		ctx->client->host->stats.fences_signaled++;
		timeline_retire(&q->tl, hs->seqno, hs->flags, in_kernel ? 0 : status ? status : -ENOMEM);
	}
	held_free(ctx, hs);
}

bool sched_release(struct host_ctx *ctx)
{
	bool progressed = false;
	if (!ctx->nr_held)
		return false;
	struct host_queue *q;
	ctx_for_each_queue(ctx, q) {
		while (!list_empty(&q->held)) {
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
	struct host_queue *q;
	ctx_for_each_queue(ctx, q) {
		while (!list_empty(&q->held))
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
	struct host_queue *q;
	ctx_for_each_queue(ctx, q) {
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
		v.seqno = hs->seqno;
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
