/* Per-queue fence timelines: the ring of submitted-but-unretired seqnos, and publishing a retired
 * seqno to the guest (fence page slot, eventfd through the context, FENCE_SIGNALED event). */
#include <errno.h>
#include <stdlib.h>

#include "host_internal.h"

void timeline_fini(struct fence_timeline *tl)
{
	free(tl->ring);
	tl->ring = NULL;
	tl->cap = tl->count = tl->head = 0;
}

int timeline_push(struct fence_timeline *tl, uint32_t seqno, uint32_t flags, int32_t status, bool in_kernel)
{
	if (tl->count == tl->cap) {
		/* Grows rarely (in-flight depth only), then the ring is reused. */
		uint32_t ncap = tl->cap ? tl->cap * 2 : 16;
		struct pending_fence *r = malloc((size_t)ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		for (uint32_t i = 0; i < tl->count; i++)
			r[i] = tl->ring[(tl->head + i) % tl->cap];
		free(tl->ring);
		tl->ring = r;
		tl->cap = ncap;
		tl->head = 0;
	}
	tl->ring[(tl->head + tl->count) % tl->cap] = (struct pending_fence){
		.seqno = seqno, .flags = flags, .status = status, .in_kernel = in_kernel,
	};
	tl->count++;
	return 0;
}

struct pending_fence *timeline_head(struct fence_timeline *tl)
{
	return tl->count ? &tl->ring[tl->head] : NULL;
}

void timeline_pop(struct fence_timeline *tl)
{
	tl->head = (tl->head + 1) % tl->cap;
	tl->count--;
}

bool timeline_passed(const struct fence_timeline *tl, uint32_t seqno)
{
	return ferry_seqno_passed(tl->signaled, seqno);
}

bool timeline_submitted(const struct fence_timeline *tl, uint32_t seqno)
{
	return ferry_seqno_passed(tl->last_submitted, seqno);
}

int timeline_check_new(const struct fence_timeline *tl, uint32_t seqno, char *why, size_t n)
{
	if (seqno == 0)
		HOST_FAIL(-EINVAL, "seqno 0 is reserved");
	if ((int32_t)(seqno - tl->last_submitted) <= 0)
		HOST_FAIL(-EINVAL, "seqno %u is not after the queue's last seqno %u", seqno, tl->last_submitted);
	/* Every seqno not yet retired lies in (signaled, last_submitted]. Keeping that window under
	 * 2^31 wide is what makes every wrap-aware comparison of them agree (ours, the kernel's
	 * fence_after(), the guest's): a seqno 2^31 past the oldest unretired one would make the
	 * kernel call that older fence "invalid" and a waiter think it had passed, while its
	 * submit - and the shadow copy it runs from - may still be on the GPU. */
	if (seqno - tl->signaled > (uint32_t)INT32_MAX)
		HOST_FAIL(-EINVAL, "seqno %u is 2^31 or more ahead of the queue's oldest unretired seqno %u: "
			  "wait for earlier submits to retire first", seqno, tl->signaled + 1);
	return 0;
}

void timeline_signal(struct host_queue *q, uint32_t seqno, uint32_t flags, int32_t status)
{
	struct host_ctx *ctx = q->ctx;
	struct ferry_fence_slot *slot = &ctx->page->slots[q->id];
	trace_queue_event(q, TRACE_RETIRE, seqno, status);
	q->tl.signaled = seqno;
	/* The kernel is done with this submit's shadow copies: back to the pool. */
	validation_retired(ctx, q->id, seqno);
	v3d_shadows_retired(ctx, q->id, seqno);
	if (status) {
		q->tl.error_seqno = seqno;
		q->tl.error = status;
		/* Error first, so a guest that sees the new signaled value also sees its error. */
		atomic_store(&slot->error, status);
		atomic_store(&slot->error_seqno, seqno);
	}
	atomic_store(&slot->signaled, seqno);
	ctx->wake = true;

	if (status || (flags & FERRY_SUBMIT_NOTIFY)) {
		struct ferry_msg ev = { .kind = FERRY_MSG_FENCE_SIGNALED, .seq = 0 };
		ev.u.fence_signaled = (struct ferry_fence_signaled){
			.ctx_id = ctx->id, .queue_id = q->id, .seqno = seqno, .status = status,
		};
		client_send(ctx->client, &ev, NULL, 0);
	}
}

void timeline_set_last_syncobj(struct fence_timeline *tl, uint32_t syncobj)
{
	if (tl->count)
		tl->ring[(tl->head + tl->count - 1) % tl->cap].syncobj = syncobj;
}
