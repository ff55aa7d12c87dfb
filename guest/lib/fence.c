/* libferry fences: "signaled?" is a read of the shared fence page; waiting announces itself in
 * the page (the seqno it sleeps for, or any signal) so the host writes the context eventfd, and
 * sleeps in the message pump, which also keeps handling events and ERRORs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ferry/cpu_relax.h"

#include "internal.h"

static bool page_signaled(struct ferry_queue *q, uint32_t seqno);

/* A lost context's fences are all over: every one the host has not signaled counts as failed, so
 * no wait on it outlives the loss. The page's word, not the fault report: the host sets it once
 * the failing fence's own status is in its slot, so that one keeps its error (-ETIMEDOUT for a
 * hang). A lost connection ends them too: no one is left to signal (dev->lock held). */
static bool ctx_lost_locked(const struct ferry_context *ctx)
{
	return atomic_load(&ctx->page->lost) != 0 || ctx->dev->dead != 0;
}

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
	if (!page_signaled(q, seqno) && atomic_load(&q->ctx->page->lost) != 0)
		return -EIO;
	/* Not signaled, context not lost on the host: the connection ended (-EPIPE). */
	if (!page_signaled(q, seqno) && q->ctx->dev->dead)
		return q->ctx->dev->dead;
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
	/* No shared page: its news come as frames. A program polling a fence (vkGetFenceStatus in a
	 * loop) must see them without anyone else reading the socket; a reader already at it will. */
	if (dev->transport->no_shared_memory) {
		ferry_pump_drain_if_idle(dev);
		if (page_signaled(q, seqno))
			return true;
	}
	pthread_mutex_lock(&dev->lock);
	bool r = rejected(q, seqno) || ctx_lost_locked(q->ctx);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

static bool fence_done(void *arg)
{
	const struct ferry_fence_point *p = arg;
	return page_signaled(p->q, p->seqno) || rejected(p->q, p->seqno) || ctx_lost_locked(p->q->ctx);
}

/* The page's wake_at for q: the earliest seqno its waiters sleep for, or out of reach. */
static void publish_wake_at(struct ferry_queue *q)
{
	struct ferry_fence_slot *slot = &q->ctx->page->slots[q->id];
	const struct ferry_seqno_waiter *w = q->seqno_waiters;
	uint32_t at = w ? w->seqno : ferry_fence_slot_never(slot);
	for (; w; w = w->next)
		if (!ferry_seqno_passed(w->seqno, at))
			at = w->seqno;
	atomic_store(&slot->wake_at, at);
}

/* A wait for one seqno sleeps until its queue reaches the earliest seqno any thread waits for
 * there, not until any signal: a client throttling on an older submit is woken once per wait,
 * not once per retire. The wake_at store, then the seq_cst increment, then the re-check inside
 * the pump: the host stores the slot and then reads the words, so either we see the new slot
 * or it sees us and writes the eventfd (dev->lock held). */
static void seqno_waiter_add(struct ferry_queue *q, struct ferry_seqno_waiter *w)
{
	struct ferry_fence_page *page = q->ctx->page;
	if (!q->ctx->seqno_wake) { /* an older host: any signal wakes */
		atomic_fetch_add(&page->waiters, 1);
		return;
	}
	w->next = q->seqno_waiters;
	q->seqno_waiters = w;
	publish_wake_at(q);
	atomic_fetch_add(&page->seqno_waiters, 1);
}

static void seqno_waiter_remove(struct ferry_queue *q, struct ferry_seqno_waiter *w)
{
	struct ferry_fence_page *page = q->ctx->page;
	if (!q->ctx->seqno_wake) {
		atomic_fetch_sub(&page->waiters, 1);
		return;
	}
	atomic_fetch_sub(&page->seqno_waiters, 1);
	struct ferry_seqno_waiter **pw = &q->seqno_waiters;
	while (*pw != w)
		pw = &(*pw)->next;
	*pw = w->next;
	publish_wake_at(q);
}

/* A fence wait first looks at the page for up to FERRY_WAIT_SPIN_US (default 10), as i915
 * busy-waits on a request about to complete: an answer within it costs the waiter no sleep and
 * the host no eventfd write. Only with a second CPU to run on (the host runs meanwhile) and a
 * page the host writes itself; 0 turns it off. */
#define WAIT_SPIN_US_DEFAULT 10
#define WAIT_SPIN_US_MAX     1000
/* After a spin in vain the next waits of the device sleep at once, 16 of them and twice as
 * many after each further one, up to 1024: a client whose waits keep outlasting the spin
 * (throttled behind other clients, long jobs, the host on this same CPU) stops paying for it. */
#define WAIT_SPIN_SKIP_FIRST 16u
#define WAIT_SPIN_SKIP_MAX   1024u

int64_t ferry_wait_spin_setting(void)
{
	long us = WAIT_SPIN_US_DEFAULT;
	const char *e = getenv("FERRY_WAIT_SPIN_US");
	if (e && e[0]) {
		char *end;
		errno = 0;
		long v = strtol(e, &end, 10);
		if (errno || *end || v < 0 || v > WAIT_SPIN_US_MAX)
			fprintf(stderr, "ferry: FERRY_WAIT_SPIN_US=%s is not a whole number of microseconds "
				"in 0..%d; using %ld\n", e, WAIT_SPIN_US_MAX, us);
		else
			us = v;
	}
	return ferry_cpus_usable() > 1 ? (int64_t)us * 1000 : 0;
}

static bool points_signaled(const struct ferry_fence_point *f, uint32_t count, bool wait_all)
{
	for (uint32_t i = 0; i < count; i++) {
		bool d = page_signaled(f[i].q, f[i].seqno);
		if (d != wait_all)
			return d;
	}
	return wait_all;
}

/* Looks at the pages until the fences are signaled (true) or the spin or deadline ends. Only
 * the page: errors, rejections and losses are the sleeping wait's to notice. */
static bool wait_spin(struct ferry_device *dev, const struct ferry_fence_point *f, uint32_t count,
		      bool wait_all, int64_t deadline)
{
	if (dev->wait_spin_ns == 0 || dev->transport->no_shared_memory)
		return false;
	uint32_t skip = atomic_load_explicit(&dev->spin_skip, memory_order_relaxed);
	if (skip) {
		atomic_store_explicit(&dev->spin_skip, skip - 1, memory_order_relaxed);
		return false;
	}
	int64_t until = ferry_now_ns() + dev->wait_spin_ns;
	bool cut = deadline >= 0 && deadline < until;
	if (cut)
		until = deadline;
	atomic_fetch_add_explicit(&dev->wait_spins, 1, memory_order_relaxed);
	for (unsigned i = 1;; i++) {
		if (points_signaled(f, count, wait_all)) {
			atomic_fetch_add_explicit(&dev->wait_spin_hits, 1, memory_order_relaxed);
			atomic_store_explicit(&dev->spin_backoff, 0, memory_order_relaxed);
			return true;
		}
		if ((i & 31) == 0 && ferry_now_ns() >= until)
			break;
		ferry_cpu_relax();
	}
	if (cut) /* the caller's deadline ended it: says nothing of the next waits */
		return false;
	uint32_t b = atomic_load_explicit(&dev->spin_backoff, memory_order_relaxed);
	b = b == 0 ? WAIT_SPIN_SKIP_FIRST : b < WAIT_SPIN_SKIP_MAX ? 2 * b : WAIT_SPIN_SKIP_MAX;
	atomic_store_explicit(&dev->spin_backoff, b, memory_order_relaxed);
	atomic_store_explicit(&dev->spin_skip, b, memory_order_relaxed);
	return false;
}

void ferry_device_wait_stats(struct ferry_device *dev, struct ferry_wait_stats *out)
{
	*out = (struct ferry_wait_stats){
		.spins = atomic_load_explicit(&dev->wait_spins, memory_order_relaxed),
		.spin_hits = atomic_load_explicit(&dev->wait_spin_hits, memory_order_relaxed),
	};
}

int ferry_fence_wait(struct ferry_queue *q, uint32_t seqno, int64_t timeout_ns)
{
	struct ferry_context *ctx = q->ctx;
	struct ferry_device *dev = ctx->dev;
	int64_t deadline = ferry_deadline(timeout_ns);
	struct ferry_fence_point arg = { q, seqno };

	bool signaled = page_signaled(q, seqno);
	if (!signaled && timeout_ns != 0) { /* a poll does not sleep */
		ferry_ring_kick_untaken(ctx);
		signaled = wait_spin(dev, &arg, 1, true, deadline);
	}
	pthread_mutex_lock(&dev->lock);
	int r = 0;
	if (!signaled) {
		struct ferry_seqno_waiter w = { .seqno = seqno };
		seqno_waiter_add(q, &w);
		r = ferry_pump_wait(dev, fence_done, &arg, deadline);
		seqno_waiter_remove(q, &w);
	}
	if (r == 0)
		r = fence_error(q, seqno);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

struct fence_many_arg {
	const struct ferry_fence_point *f;
	uint32_t count;
	bool wait_all;
	uint32_t first;
};

static bool many_done(void *arg)
{
	struct fence_many_arg *a = arg;
	for (uint32_t i = 0; i < a->count; i++) {
		bool d = fence_done((void *)&a->f[i]);
		if (!a->wait_all && d) {
			a->first = i;
			return true;
		}
		if (a->wait_all && !d)
			return false;
	}
	a->first = 0;
	return a->wait_all;
}

/* Whether f[i] is the first of f[0..i] in its context: what is done per context, once. */
static bool first_of_ctx(const struct ferry_fence_point *f, uint32_t i)
{
	for (uint32_t j = 0; j < i; j++)
		if (f[j].q->ctx == f[i].q->ctx)
			return false;
	return true;
}

/* The waiters word of every context involved, once each (dev->lock held). */
static void many_waiters(const struct ferry_fence_point *f, uint32_t count, int delta)
{
	for (uint32_t i = 0; i < count; i++)
		if (first_of_ctx(f, i))
			atomic_fetch_add(&f[i].q->ctx->page->waiters, delta);
}

int ferry_fence_wait_many(const struct ferry_fence_point *fences, uint32_t count, bool wait_all,
			  int64_t timeout_ns, uint32_t *first)
{
	if (count == 0) {
		if (first)
			*first = 0;
		return 0;
	}
	struct ferry_device *dev = fences[0].q->ctx->dev;
	for (uint32_t i = 1; i < count; i++)
		if (fences[i].q->ctx->dev != dev)
			return -EINVAL;
	int64_t deadline = ferry_deadline(timeout_ns);
	struct fence_many_arg arg = { fences, count, wait_all, 0 };
	/* Each context once (ferry_ring_kick_untaken), before dev->lock; not for a poll. */
	for (uint32_t i = 0; i < count && timeout_ns != 0; i++)
		if (first_of_ctx(fences, i))
			ferry_ring_kick_untaken(fences[i].q->ctx);
	if (timeout_ns != 0)
		wait_spin(dev, fences, count, wait_all, deadline);

	pthread_mutex_lock(&dev->lock);
	int r = 0;
	if (!many_done(&arg)) {
		many_waiters(fences, count, 1);
		r = ferry_pump_wait(dev, many_done, &arg, deadline);
		many_waiters(fences, count, -1);
	}
	if (r == 0) {
		/* The error of the fence that ended the wait; for "all", the first failed one. */
		for (uint32_t i = wait_all ? 0 : arg.first; i < (wait_all ? count : arg.first + 1) && r == 0; i++)
			r = fence_error(fences[i].q, fences[i].seqno);
	}
	pthread_mutex_unlock(&dev->lock);
	if (first)
		*first = arg.first;
	return r;
}
