/* libferry fences: "signaled?" is a read of the shared fence page; waiting announces itself in
 * the page's waiters word (so the host writes the context eventfd) and sleeps in the message
 * pump, which also keeps handling events and ERRORs. */
#include <errno.h>

#include "internal.h"

/* The error a completed fence ended with, 0 if none is known (dev->lock held). */
static int fence_error(struct ferry_queue *q, uint32_t seqno)
{
	uint32_t n = q->nr_errors < FERRY_FENCE_ERRORS ? q->nr_errors : FERRY_FENCE_ERRORS;
	for (uint32_t i = 0; i < n; i++) {
		const struct ferry_fence_error *e =
			&q->errors[(q->nr_errors - 1 - i) % FERRY_FENCE_ERRORS];
		if (e->seqno == seqno)
			return e->error;
	}
	const struct ferry_fence_slot *slot = &q->ctx->page->slots[q->id];
	if (atomic_load(&slot->error_seqno) == seqno)
		return atomic_load(&slot->error);
	return 0;
}

static bool page_signaled(struct ferry_queue *q, uint32_t seqno)
{
	uint32_t done = atomic_load(&q->ctx->page->slots[q->id].signaled);
	return ferry_seqno_passed(done, seqno);
}

/* A submit the host rejected never reaches the timeline; its ERROR ends the wait instead. */
static bool rejected(struct ferry_queue *q, uint32_t seqno)
{
	uint32_t n = q->nr_errors < FERRY_FENCE_ERRORS ? q->nr_errors : FERRY_FENCE_ERRORS;
	for (uint32_t i = 0; i < n; i++)
		if (q->errors[(q->nr_errors - 1 - i) % FERRY_FENCE_ERRORS].seqno == seqno)
			return true;
	return false;
}

bool ferry_fence_signaled(struct ferry_queue *q, uint32_t seqno)
{
	if (page_signaled(q, seqno))
		return true;
	struct ferry_device *dev = q->ctx->dev;
	pthread_mutex_lock(&dev->lock);
	bool r = rejected(q, seqno);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

struct fence_wait_arg {
	struct ferry_queue *q;
	uint32_t seqno;
};

static bool fence_done(void *arg)
{
	struct fence_wait_arg *a = arg;
	return page_signaled(a->q, a->seqno) || rejected(a->q, a->seqno);
}

int ferry_fence_wait(struct ferry_queue *q, uint32_t seqno, int64_t timeout_ns)
{
	struct ferry_context *ctx = q->ctx;
	struct ferry_device *dev = ctx->dev;
	int64_t deadline = ferry_deadline(timeout_ns);
	struct fence_wait_arg arg = { q, seqno };

	if (page_signaled(q, seqno)) {
		pthread_mutex_lock(&dev->lock);
		int err = fence_error(q, seqno);
		pthread_mutex_unlock(&dev->lock);
		return err;
	}
	pthread_mutex_lock(&dev->lock);
	/* seq_cst increment before the re-check inside the pump: the host bumps the slot and then
	 * reads waiters, so either we see the new slot or it sees us and writes the eventfd. */
	atomic_fetch_add(&ctx->page->waiters, 1);
	int r = ferry_pump_wait(dev, fence_done, &arg, deadline);
	atomic_fetch_sub(&ctx->page->waiters, 1);
	if (r == 0)
		r = fence_error(q, seqno);
	pthread_mutex_unlock(&dev->lock);
	return r;
}
