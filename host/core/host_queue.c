/* Submit queues: QUEUE_CREATE / QUEUE_CLOSE, and retiring a queue's seqnos in order — with the
 * fault check after each one (SUBMITQUEUE_QUERY FAULTS went up: fault_log.c reports it), and
 * publishing each retired seqno to the guest. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "host_log.h"
#include "host_client.h"
#include "host_context.h"
#include "host_external_fence.h"
#include "host_queue.h"
#include "sched.h"
#include "wait.h"
#include "trace_host.h"

struct host_queue *queue_find(struct host_ctx *ctx, uint32_t id)
{
	return id < FERRY_FENCE_PAGE_QUEUES ? ctx->queues[id] : NULL;
}

struct host_queue *client_lookup_queue(struct ferry_host_client *c, uint32_t ctx_id, uint32_t queue_id,
				       bool closing_ok, struct host_ctx **ctx_out, char *why, size_t n)
{
	struct host_ctx *ctx = client_lookup_ctx(c, ctx_id, why, n);
	if (!ctx)
		return NULL;
	struct host_queue *q = queue_find(ctx, queue_id);
	if (!q || (q->closing && !closing_ok)) {
		snprintf(why, n, "queue %u does not exist in context %u", queue_id, ctx_id);
		return NULL;
	}
	*ctx_out = ctx;
	return q;
}

/* The timeline's retired callback: publishes seqno to the guest (fence page slot, eventfd through
 * the context, FENCE_SIGNALED event when asked for or failed). */
static void queue_fence_retired(void *arg, uint32_t seqno, uint32_t flags, int32_t status)
{
	struct host_queue *q = arg;
	struct host_ctx *ctx = q->ctx;
	struct ferry_fence_slot *slot = &ctx->page->slots[q->id];
	trace_queue_event(q, TRACE_RETIRE, seqno, status);
	/* The kernel is done with this submit's shadow copies: back to the pool. */
	ctx->client->host->fam->shadows_retired(ctx, q->id, seqno);
	/* The slot holds one error: a failing tail's seqnos stay unsignaled in it, and the lost
	 * context (published at the end of this pass) fails every one of those. */
	if (!timeline_in_fail_tail(&q->tl, seqno)) {
		if (status) {
			/* Error first, so a guest that sees the new signaled value also sees its error. */
			atomic_store(&slot->error, status);
			atomic_store(&slot->error_seqno, seqno);
		}
		atomic_store(&slot->signaled, seqno);
	}
	ctx->wake = true;

	if (status || (flags & FERRY_SUBMIT_NOTIFY)) {
		struct ferry_msg ev = { .kind = FERRY_MSG_FENCE_SIGNALED, .seq = 0 };
		ev.u.fence_signaled = (struct ferry_fence_signaled){
			.ctx_id = ctx->id, .queue_id = q->id, .seqno = seqno, .status = status,
		};
		client_send(ctx->client, &ev, NULL, 0);
	}
}

int queue_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_queue_create *r = &m->u.queue_create;
	struct ferry_host *h = c->host;
	struct host_ctx *ctx = client_lookup_ctx(c, r->ctx_id, why, n);
	if (!ctx)
		return -ENOENT;
	if (r->queue_id >= FERRY_FENCE_PAGE_QUEUES)
		HOST_FAIL(-EINVAL, "queue id %u must be < %u", r->queue_id, FERRY_FENCE_PAGE_QUEUES);
	struct host_queue *old = ctx->queues[r->queue_id];
	if (old && old->closing)
		HOST_FAIL(-EBUSY, "queue %u is still closing (work in flight)", r->queue_id);
	if (old)
		HOST_FAIL(-EEXIST, "queue %u already exists in context %u", r->queue_id, r->ctx_id);
	if (r->flags)
		HOST_FAIL(-EINVAL, "queue flags 0x%x must be 0", r->flags);
	uint32_t kind = r->kind;
	if (kind == FERRY_QUEUE_KIND_EXTERNAL) {
		if (r->priority)
			HOST_FAIL(-EINVAL, "queue priority %u: an external queue has none (must be 0)", r->priority);
	} else {
		int ret = h->fam->queue_check(ctx, r, &kind, why, n);
		if (ret < 0)
			return ret;
	}

	struct host_queue *q = calloc(1, sizeof(*q));
	if (!q)
		HOST_FAIL(-ENOMEM, "out of memory");
	q->kind = kind;
	timeline_init(&q->tl, queue_fence_retired, q);
	q->ctx = ctx;
	q->id = r->queue_id;
	q->prio = r->priority;
	list_init(&q->held);
	if (kind == FERRY_QUEUE_KIND_EXTERNAL)
		q->kernel_id = UINT32_MAX; /* none: never matches a kernel queue's trace events */
	int ret = kind == FERRY_QUEUE_KIND_EXTERNAL ? 0 : h->fam->queue_new(q);
	if (ret < 0) {
		free(q);
		HOST_FAIL(ret, "kernel refused a queue of priority %u", r->priority);
	}
	/* A previous queue with this id may have left values in the slot. */
	struct ferry_fence_slot *slot = &ctx->page->slots[q->id];
	atomic_store(&slot->error, 0);
	atomic_store(&slot->error_seqno, 0);
	atomic_store(&slot->signaled, 0);
	ctx->queues[q->id] = q;
	ctx->queue_mask[q->id / 64] |= 1ull << (q->id % 64);
	h->stats.queues++;
	return 0;
}

int queue_handle_close(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_queue_close *r = &m->u.queue_close;
	struct host_ctx *ctx;
	struct host_queue *q = client_lookup_queue(c, r->ctx_id, r->queue_id, false, &ctx, why, n);
	if (!q)
		return -ENOENT;
	/* Work in flight still retires (and signals) in order; the queue goes when it drained. */
	q->closing = true;
	if (q->kind == FERRY_QUEUE_KIND_EXTERNAL) {
		external_fence_cancel(q);
		ctx_progress(ctx); /* frees it once retired */
	} else if (!queue_pending(q)) {
		queue_free(q);
	}
	return 0;
}

void queue_free(struct host_queue *q)
{
	struct host_ctx *ctx = q->ctx;
	sched_forget_queue(q);
	wait_queue_gone(q);
	sched_free_queue(q);
	const struct host_family_ops *fam = ctx->client->host->fam;
	fam->shadows_queue_gone(ctx, q->id);
	if (q->kind != FERRY_QUEUE_KIND_EXTERNAL) {
		ctx->nr_inflight -= q->tl.count;
		fam->queue_close(q);
	}
	timeline_fini(&q->tl);
	ctx->queues[q->id] = NULL;
	ctx->queue_mask[q->id / 64] &= ~(1ull << (q->id % 64));
	ctx->client->host->stats.queues--;
	free(q);
}

bool queue_pending(const struct host_queue *q)
{
	return q->tl.count || !list_empty(&q->held);
}

/* The most fences one clean-prefix search vouches for (a stack array); more take another. */
#define RETIRE_BATCH 256

/* Whether the first n in-kernel fences of the leading run (none external) are done: the i-th of
 * them lies at pos[i]. */
static int polled_done(struct host_queue *q, const uint32_t *pos, uint32_t n)
{
	return q->ctx->client->host->fam->fence_poll(q, timeline_at(&q->tl, pos[n - 1]));
}

/* How many of the oldest in-kernel fences retired without a fault, in O(log done) kernel calls
 * instead of a fence poll and a fault query per fence: the kernel retires a queue in order, so
 * the done ones are a prefix (the newest is polled first, then the prefix is found by galloping
 * and bisecting), and one fault query after the polls vouches for all of them. A fault (or any
 * error) answers 0: the caller then goes fence by fence, reporting the fault against the fence it
 * always did. *busy: the in-kernel fence after the ones counted was polled not done (the caller
 * stops there; its completion wakes the poll fd again). */
static uint32_t retire_clean_prefix(struct host_queue *q, bool *busy)
{
	*busy = false;
	const struct host_family_ops *fam = q->ctx->client->host->fam;
	if (!fam->fence_poll || !fam->faults_moved)
		return 0;
	uint32_t pos[RETIRE_BATCH], m = 0;
	for (uint32_t i = 0; i < q->tl.count && m < RETIRE_BATCH; i++) {
		const struct pending_fence *f = timeline_at(&q->tl, i);
		if (f->external)
			break;
		if (f->in_kernel)
			pos[m++] = i;
	}
	if (m < 2)
		return 0; /* one poll and one query either way */
	uint32_t done = 0, bad = m + 1; /* a prefix length polled not done, the least known */
	/* The newest first: a host that looks less often than the GPU retires (a busy one) finds the
	 * whole batch done, in one poll instead of a gallop through it. */
	int ret = polled_done(q, pos, m);
	if (ret < 0 && ret != -EBUSY)
		return 0;
	if (ret == -EBUSY)
		bad = m;
	else
		done = m;
	for (uint32_t step = 1; step < bad && done < m; step *= 2) {
		ret = polled_done(q, pos, step);
		if (ret == -EBUSY) {
			bad = step;
			break;
		}
		if (ret < 0)
			return 0;
		done = step;
	}
	while (bad <= m && bad - done > 1) {
		uint32_t mid = done + (bad - done) / 2;
		ret = polled_done(q, pos, mid);
		if (ret == -EBUSY)
			bad = mid;
		else if (ret < 0)
			return 0;
		else
			done = mid;
	}
	if (!done) {
		*busy = true;
		return 0;
	}
	/* After the polls: a fault of any fence polled done has counted by now. */
	if (fam->faults_moved(q) != 0)
		return 0;
	*busy = bad <= m;
	return done;
}

void queue_retire(struct host_queue *q)
{
	struct host_ctx *ctx = q->ctx;
	uint32_t clean = 0;
	bool search = true, busy = false;
	int64_t now = 0; /* one clock read for the fences retired together */
	struct pending_fence *head;
	while ((head = timeline_head(&q->tl))) {
		/* Copy: reporting a fault may cancel held submits, which pushes onto this ring. */
		struct pending_fence done = *head;
		if (done.external)
			break; /* the guest has not said it signaled */
		if (done.in_kernel && !clean && busy)
			break;
		if (done.in_kernel && !clean && search) {
			clean = retire_clean_prefix(q, &busy);
			search = clean == RETIRE_BATCH && !busy;
			if (!clean && busy)
				break;
		}
		if (done.in_kernel && clean) {
			clean--;
		} else if (done.in_kernel) {
			int ret = ctx->client->host->fam->fence_retire(q, &done, &done.status);
			if (ret == -EBUSY)
				break;
			if (ret < 0) {
				/* The kernel did not say the submit is done, so its shadows may still be
				 * on the GPU: it stays pending (the watchdog reports it if it never
				 * ends); an error is never taken for completion. Nothing was reported
				 * on this path, so head is still the ring's. */
				if (!head->poll_error_logged)
					host_log(ctx->client->host, FERRY_LOG_WARN,
						 "queue %u seqno %u: the kernel's fence poll failed: %s; keeping it pending",
						 q->id, done.seqno, strerror(-ret));
				head->poll_error_logged = true;
				break;
			}
		}
		timeline_pop(&q->tl);
		if (q->kind != FERRY_QUEUE_KIND_EXTERNAL) {
			struct ferry_host *h = ctx->client->host;
			ctx->nr_inflight--;
			h->stats.fences_signaled++;
			if (done.in_kernel) {
				if (!now)
					now = host_now_ns();
				latency_observe(&h->latency[FERRY_HOST_LATENCY_SUBMIT], now - done.submitted_ns);
			}
		}
		timeline_retire(&q->tl, done.seqno, done.flags, done.status);
	}
}
