/* Deferred replies: FENCE_WAIT and BO_CPU_PREP are answered (STATUS_REPLY) when their condition
 * holds — checked whenever their context made progress — or with -ETIMEDOUT at their deadline.
 * The host never blocks for them. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "family.h"
#include "host_log.h"
#include "host_client.h"
#include "host_context.h"
#include "host_bo.h"
#include "host_queue.h"
#include "sched.h"

static int64_t deadline_of(int64_t timeout_ns)
{
	if (timeout_ns < 0)
		return INT64_MAX;
	int64_t now = host_now_ns();
	return timeout_ns > INT64_MAX - now ? INT64_MAX : now + timeout_ns;
}

/* 1 when the wait is satisfied (*status = its result), 0 when not yet. */
static int wait_ready(struct host_wait *w, int32_t *status)
{
	if (w->kind == FERRY_MSG_FENCE_WAIT) {
		if (!w->queue || timeline_passed(&w->queue->tl, w->seqno)) {
			*status = w->queue ? timeline_status(&w->queue->tl, w->seqno) : 0;
			return 1;
		}
		return 0;
	}
	/* A submit still held host-side will use the BO, though the kernel has not seen it yet. */
	if (sched_bo_held(w->ctx, w->bo))
		return 0;
	int ret = w->ctx->client->host->fam->bo_wait_poll(w->ctx, w->bo, w->op);
	if (ret == -EBUSY)
		return 0;
	*status = ret;
	return 1;
}

/* ---- the deadline heap ---- */

static bool heap_before(const struct ferry_host *h, uint32_t a, uint32_t b)
{
	return h->wait_heap[a]->deadline_ns < h->wait_heap[b]->deadline_ns;
}

static void heap_swap(struct ferry_host *h, uint32_t a, uint32_t b)
{
	struct host_wait *t = h->wait_heap[a];
	h->wait_heap[a] = h->wait_heap[b];
	h->wait_heap[b] = t;
	h->wait_heap[a]->heap_idx = a;
	h->wait_heap[b]->heap_idx = b;
}

static void heap_up(struct ferry_host *h, uint32_t i)
{
	while (i && heap_before(h, i, (i - 1) / 2)) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct ferry_host *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->nr_waits && heap_before(h, l, m))
			m = l;
		if (r < h->nr_waits && heap_before(h, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static int heap_push(struct ferry_host *h, struct host_wait *w)
{
	if (h->nr_waits == h->cap_waits) {
		uint32_t cap = h->cap_waits ? h->cap_waits * 2 : 16;
		struct host_wait **n = realloc(h->wait_heap, (size_t)cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		h->wait_heap = n;
		h->cap_waits = cap;
	}
	w->heap_idx = h->nr_waits;
	h->wait_heap[h->nr_waits++] = w;
	heap_up(h, w->heap_idx);
	return 0;
}

static void heap_remove(struct ferry_host *h, struct host_wait *w)
{
	uint32_t i = w->heap_idx, last = --h->nr_waits;
	if (i == last)
		return;
	h->wait_heap[i] = h->wait_heap[last];
	h->wait_heap[i]->heap_idx = i;
	heap_up(h, i);
	heap_down(h, h->wait_heap[i]->heap_idx);
}

/* A guest's wait loop defers a wait per round trip: ended ones are kept, so that costs no
 * malloc and free each time. */
#define WAIT_FREE_KEEP 64

static struct host_wait *wait_alloc(struct ferry_host *h)
{
	struct host_wait *w = h->wait_free;
	if (!w)
		return malloc(sizeof(*w));
	h->wait_free = (struct host_wait *)w->queue;
	h->nr_wait_free--;
	return w;
}

static void wait_release(struct ferry_host *h, struct host_wait *w)
{
	if (h->nr_wait_free >= WAIT_FREE_KEEP) {
		free(w);
		return;
	}
	w->queue = (struct host_queue *)h->wait_free; /* the free list's link: the wait is over */
	h->wait_free = w;
	h->nr_wait_free++;
}

void wait_host_fini(struct ferry_host *h)
{
	while (h->wait_free) {
		struct host_wait *w = h->wait_free;
		h->wait_free = (struct host_wait *)w->queue;
		free(w);
	}
	h->nr_wait_free = 0;
	free(h->wait_heap);
	h->wait_heap = NULL;
	h->nr_waits = h->cap_waits = 0;
}

static void wait_end(struct host_wait *w, bool reply, int32_t status)
{
	struct ferry_host *h = w->client->host;
	if (reply)
		client_send_status(w->client, w->seq, status);
	if (reply && w->kind == FERRY_MSG_FENCE_WAIT)
		latency_observe(&w->client->host->latency[FERRY_HOST_LATENCY_FENCE_WAIT], host_now_ns() - w->started_ns);
	list_del(&w->link);
	heap_remove(h, w);
	w->client->nr_waits--;
	if (w->bo)
		bo_unref(w->bo);
	wait_release(h, w);
}

/* Answers at once when possible (or when no waiting was asked for), else queues the wait. */
static int start_wait(struct ferry_host_client *c, struct host_wait *tmpl, int64_t timeout_ns, int32_t poll_status)
{
	int32_t status;
	bool answered = true;
	if (wait_ready(tmpl, &status))
		client_send_status(c, tmpl->seq, status);
	else if (timeout_ns == 0)
		client_send_status(c, tmpl->seq, poll_status);
	else
		answered = false;
	if (answered) {
		if (tmpl->kind == FERRY_MSG_FENCE_WAIT)
			latency_observe(&c->host->latency[FERRY_HOST_LATENCY_FENCE_WAIT], 0);
		return 0;
	}
	if (c->nr_waits >= HOST_MAX_WAITS_PER_CLIENT)
		return -EAGAIN;
	struct host_wait *w = wait_alloc(c->host);
	if (!w)
		return -ENOMEM;
	*w = *tmpl;
	w->deadline_ns = deadline_of(timeout_ns);
	w->started_ns = host_now_ns();
	if (heap_push(c->host, w) < 0) {
		wait_release(c->host, w);
		return -ENOMEM;
	}
	c->nr_waits++;
	if (w->bo)
		bo_ref(w->bo);
	list_add_tail(&w->ctx->waits, &w->link);
	return 0;
}

int wait_handle_fence(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_fence_wait *r = &m->u.fence_wait;
	struct host_ctx *ctx;
	/* A closing queue still retires its work, so waits on it are answered. */
	struct host_queue *q = client_lookup_queue(c, r->ctx_id, r->queue_id, true, &ctx, why, n);
	if (!q)
		return -ENOENT;
	if (!timeline_submitted(&q->tl, r->seqno))
		HOST_FAIL(-EINVAL, "seqno %u was never submitted on queue %u (last %u)", r->seqno, r->queue_id,
		     q->tl.last_submitted);
	ctx_progress(ctx); /* answer from the freshest state */
	if (!queue_find(ctx, r->queue_id)) {
		client_send_status(c, m->seq, 0); /* the queue drained and was reaped */
		return 0;
	}
	struct host_wait w = {
		.client = c, .ctx = ctx, .kind = FERRY_MSG_FENCE_WAIT, .seq = m->seq, .queue = q, .seqno = r->seqno,
	};
	int ret = start_wait(c, &w, r->timeout_ns, -ETIMEDOUT);
	if (ret < 0)
		HOST_FAIL(ret, ret == -EAGAIN ? "too many pending waits (max %u)" : "out of memory",
			  HOST_MAX_WAITS_PER_CLIENT);
	return 0;
}

int wait_handle_cpu_prep(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_bo_cpu_prep *r = &m->u.bo_cpu_prep;
	struct host_ctx *ctx;
	struct host_bo *bo = client_lookup_bo(c, r->ctx_id, r->bo_id, &ctx, why, n);
	if (!bo)
		return -ENOENT;
	if (r->op & ~FERRY_CPU_PREP_OPS)
		HOST_FAIL(-EINVAL, "cpu_prep op 0x%x: unknown bits", r->op);
	ctx_progress(ctx);
	struct host_wait w = {
		.client = c, .ctx = ctx, .kind = FERRY_MSG_BO_CPU_PREP, .seq = m->seq, .bo = bo, .op = r->op,
	};
	/* NOSYNC never waits, as in the kernel. */
	int64_t timeout = (r->op & FERRY_CPU_PREP_NOSYNC) ? 0 : r->timeout_ns;
	int ret = start_wait(c, &w, timeout, -EBUSY);
	if (ret < 0)
		HOST_FAIL(ret, ret == -EAGAIN ? "too many pending waits (max %u)" : "out of memory",
			  HOST_MAX_WAITS_PER_CLIENT);
	return 0;
}

void wait_check_ctx(struct host_ctx *ctx)
{
	struct list *l, *tmp;
	list_for_each_safe(l, tmp, &ctx->waits) {
		struct host_wait *w = list_entry(l, struct host_wait, link);
		int32_t status;
		if (wait_ready(w, &status))
			wait_end(w, true, status);
	}
}

void wait_expire(struct ferry_host *h, int64_t now_ns)
{
	while (h->nr_waits && h->wait_heap[0]->deadline_ns <= now_ns) {
		struct host_wait *w = h->wait_heap[0];
		int32_t status;
		if (!wait_ready(w, &status))
			status = -ETIMEDOUT;
		wait_end(w, true, status);
	}
}

void wait_drop_ctx(struct host_ctx *ctx, bool reply, int32_t status)
{
	struct list *l, *tmp;
	list_for_each_safe(l, tmp, &ctx->waits)
		wait_end(list_entry(l, struct host_wait, link), reply, status);
}

void wait_queue_gone(struct host_queue *q)
{
	struct list *l, *tmp;
	list_for_each_safe(l, tmp, &q->ctx->waits) {
		struct host_wait *w = list_entry(l, struct host_wait, link);
		if (w->queue == q) {
			int32_t status = timeline_status(&q->tl, w->seqno);
			wait_end(w, true, status);
		}
	}
}

int64_t wait_next_deadline(const struct ferry_host *h)
{
	return h->nr_waits ? h->wait_heap[0]->deadline_ns : INT64_MAX;
}
