/* libferry queues: client-chosen ids (they index the fence page), created without a round
 * trip; each is a timeline of guest-chosen increasing seqnos. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ferry_queue *ferry_find_queue(struct ferry_context *ctx, uint32_t queue_id)
{
	for (struct ferry_queue *q = ctx->queues; q; q = q->next)
		if (q->id == queue_id)
			return q;
	return NULL;
}

int ferry_queue_create(struct ferry_context *ctx, uint32_t priority, struct ferry_queue **out)
{
	return ferry_queue_create_kind(ctx, FERRY_QUEUE_KIND_DEFAULT, priority, out);
}

int ferry_queue_create_kind(struct ferry_context *ctx, uint32_t kind, uint32_t priority, struct ferry_queue **out)
{
	struct ferry_device *dev = ctx->dev;
	*out = NULL;
	struct ferry_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->ctx = ctx;
	struct ferry_msg msg = { .kind = FERRY_MSG_QUEUE_CREATE, .seq = ferry_next_seq(dev) };

	pthread_mutex_lock(&dev->lock);
	uint32_t id = 0;
	while (id < FERRY_FENCE_PAGE_QUEUES && ctx->queue_used[id])
		id++;
	if (id == FERRY_FENCE_PAGE_QUEUES) {
		pthread_mutex_unlock(&dev->lock);
		free(q);
		ferry_set_error(dev, "context %u has no free queue id", ctx->id);
		return -ENOSPC;
	}
	ctx->queue_used[id] = 1;
	q->id = id;
	/* Continue the timeline the fence page shows (a reused id starts after its last seqno). */
	q->last_seqno = atomic_load(&ctx->page->slots[id].signaled);
	q->next = ctx->queues;
	ctx->queues = q;
	ferry_async_note(dev, msg.seq, msg.kind, ctx->id, id, 0);
	pthread_mutex_unlock(&dev->lock);

	msg.u.queue_create.ctx_id = ctx->id;
	msg.u.queue_create.queue_id = id;
	msg.u.queue_create.priority = priority;
	msg.u.queue_create.kind = kind;
	int r = ferry_send(dev, &msg);
	if (r < 0) {
		pthread_mutex_lock(&dev->lock);
		for (struct ferry_queue **pp = &ctx->queues; *pp; pp = &(*pp)->next) {
			if (*pp == q) {
				*pp = q->next;
				break;
			}
		}
		ferry_queue_free(q);
		pthread_mutex_unlock(&dev->lock);
		return r;
	}
	*out = q;
	return 0;
}

/* Local release (dev->lock held, already unlinked). */
void ferry_queue_free(struct ferry_queue *q)
{
	q->ctx->queue_used[q->id] = 0;
	free(q);
}

void ferry_queue_close(struct ferry_queue *q)
{
	if (!q)
		return;
	struct ferry_context *ctx = q->ctx;
	struct ferry_device *dev = ctx->dev;
	struct ferry_msg msg = { .kind = FERRY_MSG_QUEUE_CLOSE, .seq = ferry_next_seq(dev) };
	msg.u.queue_close.ctx_id = ctx->id;
	msg.u.queue_close.queue_id = q->id;
	pthread_mutex_lock(&dev->lock);
	for (struct ferry_queue **pp = &ctx->queues; *pp; pp = &(*pp)->next) {
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	}
	ferry_async_note(dev, msg.seq, msg.kind, ctx->id, q->id, 0);
	ferry_queue_free(q);
	pthread_mutex_unlock(&dev->lock);
	if (!dev->dead)
		ferry_send(dev, &msg);
}

uint32_t ferry_queue_id(const struct ferry_queue *q)
{
	return q->id;
}

int ferry_external_fence_add(struct ferry_queue *q, uint32_t *seqno)
{
	struct ferry_device *dev = q->ctx->dev;
	struct ferry_msg msg = { .kind = FERRY_MSG_EXTERNAL_FENCE, .seq = ferry_next_seq(dev) };
	msg.u.external_fence = (struct ferry_external_fence){ .ctx_id = q->ctx->id, .queue_id = q->id,
							      .op = FERRY_EXTERNAL_FENCE_ADD };
	/* Taken and sent under one lock, as a submit's seqno. */
	pthread_mutex_lock(&dev->send_lock);
	msg.u.external_fence.seqno = q->last_seqno + 1;
	pthread_mutex_lock(&dev->lock);
	ferry_async_note(dev, msg.seq, msg.kind, q->ctx->id, q->id, msg.u.external_fence.seqno);
	pthread_mutex_unlock(&dev->lock);
	int r = ferry_send_locked(dev, &msg, NULL, 0);
	if (r == 0) {
		q->last_seqno = msg.u.external_fence.seqno;
		*seqno = q->last_seqno;
	} else {
		ferry_set_send_error(dev, FERRY_MSG_EXTERNAL_FENCE, r);
	}
	pthread_mutex_unlock(&dev->send_lock);
	return r;
}

int ferry_external_fence_signal(struct ferry_queue *q, uint32_t seqno, int32_t status)
{
	struct ferry_device *dev = q->ctx->dev;
	struct ferry_msg msg = { .kind = FERRY_MSG_EXTERNAL_FENCE, .seq = ferry_next_seq(dev) };
	msg.u.external_fence = (struct ferry_external_fence){
		.ctx_id = q->ctx->id, .queue_id = q->id, .seqno = seqno, .op = FERRY_EXTERNAL_FENCE_SIGNAL,
		.status = status > 0 ? 0 : status < -4095 ? -EIO : status, /* ferryd takes errnos only */
	};
	return ferry_send(dev, &msg);
}

uint32_t ferry_queue_next_seqno(const struct ferry_queue *q)
{
	struct ferry_device *dev = q->ctx->dev;
	pthread_mutex_lock(&dev->send_lock);
	uint32_t next = q->last_seqno + 1;
	pthread_mutex_unlock(&dev->send_lock);
	return next;
}

void ferry_queue_record_error(struct ferry_queue *q, uint32_t seqno, int32_t error, bool refused)
{
	q->errors[q->nr_errors % FERRY_FENCE_ERRORS] = (struct ferry_fence_error){ seqno, error, refused };
	q->nr_errors++;
}

int ferry_queue_confirm(struct ferry_queue *q, uint32_t seqno)
{
	struct ferry_device *dev = q->ctx->dev;
	/* Any request with a reply would do: the host handles a client's frames in order, so the
	 * submit's ERROR, if any, is handled before this reply. A zero-timeout fence wait costs the
	 * host nothing (its answer, even an ERROR for a refused seqno, is not looked at). */
	struct ferry_msg msg = { .kind = FERRY_MSG_FENCE_WAIT, .seq = ferry_next_seq(dev) };
	msg.u.fence_wait = (struct ferry_fence_wait){
		.ctx_id = q->ctx->id, .queue_id = q->id, .seqno = seqno, .timeout_ns = 0,
	};
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&dev->lock);
	ferry_pending_free(dev, p);
	uint32_t n = q->nr_errors < FERRY_FENCE_ERRORS ? q->nr_errors : FERRY_FENCE_ERRORS;
	for (uint32_t i = 0; i < n && r == 0; i++) {
		const struct ferry_fence_error *e = &q->errors[(q->nr_errors - 1 - i) % FERRY_FENCE_ERRORS];
		if (e->seqno == seqno && e->refused)
			r = e->error;
	}
	pthread_mutex_unlock(&dev->lock);
	return r;
}
