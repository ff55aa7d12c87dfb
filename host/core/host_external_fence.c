/* EXTERNAL queues: fences the guest adds and signals itself, for what the host cannot name (a
 * sync file of another process). Submits wait on them as on any queue's; they retire in order. */
#include <errno.h>
#include <stdio.h>

#include "host_context.h"
#include "host_external_fence.h"
#include "host_queue.h"

/* The ring's seqnos increase (within a 2^31 window, timeline_check_new), with gaps where an add
 * was refused: a binary search, since held submits ask this on every release pass. */
static struct pending_fence *find_pending(const struct host_queue *q, uint32_t seqno)
{
	uint32_t lo = 0, hi = q->tl.count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if ((int32_t)(q->tl.ring[(q->tl.head + mid) % q->tl.cap].seqno - seqno) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == q->tl.count)
		return NULL;
	struct pending_fence *pf = &q->tl.ring[(q->tl.head + lo) % q->tl.cap];
	return pf->seqno == seqno ? pf : NULL;
}

bool queue_fence_done(const struct host_queue *q, uint32_t seqno)
{
	return q->kind == FERRY_QUEUE_KIND_EXTERNAL ? external_fence_signaled(q, seqno) : timeline_passed(&q->tl, seqno);
}

bool external_fence_signaled(const struct host_queue *q, uint32_t seqno)
{
	if (timeline_passed(&q->tl, seqno))
		return true;
	const struct pending_fence *pf = find_pending(q, seqno);
	return pf && !pf->external;
}

/* What the context's external queues hold, signaled or not: a signaled fence waits on the ring
 * for the earlier ones, and that memory is the client's to bound too. */
static uint32_t external_entries(const struct host_ctx *ctx)
{
	uint32_t n = 0;
	const struct host_queue *q;
	ctx_for_each_queue(ctx, q)
		if (q->kind == FERRY_QUEUE_KIND_EXTERNAL)
			n += q->tl.count;
	return n;
}

int external_fence_handle(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_external_fence *e = &m->u.external_fence;
	struct host_ctx *ctx;
	struct host_queue *q = client_lookup_queue(c, e->ctx_id, e->queue_id, false, &ctx, why, n);
	if (!q)
		return -ENOENT;
	if (q->kind != FERRY_QUEUE_KIND_EXTERNAL)
		HOST_FAIL(-EINVAL, "queue %u is not an external queue", e->queue_id);
	if (e->op == FERRY_EXTERNAL_FENCE_ADD) {
		if (e->status)
			HOST_FAIL(-EINVAL, "an added external fence carries no status (got %d)", e->status);
		int ret = timeline_check_new(&q->tl, e->seqno, why, n);
		if (ret < 0)
			return ret;
		if (external_entries(ctx) >= HOST_MAX_EXTERNAL_PER_CTX)
			HOST_FAIL(-EAGAIN, "too many external fences not yet retired (max %u per context)",
				  HOST_MAX_EXTERNAL_PER_CTX);
		if (timeline_push(&q->tl, e->seqno, 0, 0, false) < 0)
			HOST_FAIL(-ENOMEM, "out of memory");
		q->tl.ring[(q->tl.head + q->tl.count - 1) % q->tl.cap].external = true;
		q->tl.last_submitted = e->seqno;
		/* Not in nr_inflight: nothing here for the host's poll timer to look at. */
		return 0;
	}
	if (e->op != FERRY_EXTERNAL_FENCE_SIGNAL)
		HOST_FAIL(-EINVAL, "external fence op %u is neither add (0) nor signal (1)", e->op);
	if (e->status > 0 || e->status < -4095)
		HOST_FAIL(-EINVAL, "external fence status %d is not 0 or a negative errno", e->status);
	struct pending_fence *pf = find_pending(q, e->seqno);
	if (!pf || !pf->external)
		HOST_FAIL(-EINVAL, "external fence %u of queue %u is not pending", e->seqno, e->queue_id);
	pf->external = false;
	pf->status = e->status;
	ctx_progress(ctx);
	return 0;
}

void external_fence_cancel(struct host_queue *q)
{
	for (uint32_t i = 0; i < q->tl.count; i++) {
		struct pending_fence *pf = &q->tl.ring[(q->tl.head + i) % q->tl.cap];
		if (pf->external) {
			pf->external = false;
			pf->status = -ECANCELED;
		}
	}
}
