/* EXTERNAL queues: fences the guest adds and signals itself, for what the host cannot name (a
 * sync file of another process). Submits wait on them as on any queue's; they retire in order. */
#include <errno.h>
#include <stdio.h>

#include "host_internal.h"

static struct pending_fence *find_pending(struct host_queue *q, uint32_t seqno)
{
	for (uint32_t i = 0; i < q->tl.count; i++) {
		struct pending_fence *pf = &q->tl.ring[(q->tl.head + i) % q->tl.cap];
		if (pf->seqno == seqno)
			return pf;
	}
	return NULL;
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
		if (ctx->nr_external >= HOST_MAX_EXTERNAL_PER_CTX)
			HOST_FAIL(-EAGAIN, "too many unsignaled external fences (max %u)", HOST_MAX_EXTERNAL_PER_CTX);
		if (timeline_push(&q->tl, e->seqno, 0, 0, false) < 0)
			HOST_FAIL(-ENOMEM, "out of memory");
		q->tl.ring[(q->tl.head + q->tl.count - 1) % q->tl.cap].external = true;
		q->tl.last_submitted = e->seqno;
		ctx->nr_external++;
		ctx->nr_inflight++;
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
	ctx->nr_external--;
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
			q->ctx->nr_external--;
		}
	}
}
