/* The simulated GPU's dispatcher, modeled on KGSL's adreno dispatcher (seed 003): every context
 * (a submitqueue) has a drawqueue; the dispatcher issues from the drawqueues onto one ringbuffer
 * per priority (at most MSMS_CONTEXT_INFLIGHT per context, MSMS_RING_SIZE per ring), the CP serves
 * the highest priority ring that has a ready submit and, within it, the context that ran least
 * (round-robin among equals), one slice at a time. Around each submit the ring writes the context's start-of-pipe and
 * end-of-pipe timestamps into its memstore slot (kgsl_devmemstore), and submits retire when
 * the eoptimestamp has reached theirs (retire_obj / adreno_dispatch_retire_drawqueue).
 * A context's submits run in order; a submit stalled in a CP wait is not ready until its next
 * poll, so it yields the CP to others (as a preempting CP would). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim_msm_priv.h"

/* Wrap-aware "timestamp a has reached b" (timestamp_cmp() >= 0). */
static bool ts_reached(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

static struct msms_memstore_slot *slot_of(const struct msms_submit *s)
{
	return &s->queue->memstore;
}

void msms_dispatch_sop(struct msms_submit *s, uint64_t now_ns)
{
	if (!s->sop_written) {
		__atomic_store_n(&slot_of(s)->soptimestamp, s->timestamp, __ATOMIC_RELEASE);
		msms_trace_record(s, KDEV_TRACE_BEGIN, now_ns);
	}
	s->sop_written = true;
}

void msms_dispatch_eop(struct msms_submit *s, uint64_t now_ns)
{
	__atomic_store_n(&slot_of(s)->eoptimestamp, s->timestamp, __ATOMIC_RELEASE);
	msms_trace_record(s, KDEV_TRACE_END, now_ns);
}

/* The issuable list of a priority: contexts with a submit not issued yet and fewer than
 * MSMS_CONTEXT_INFLIGHT on the ring, in round-robin order (a context that issues goes to the
 * back). The dispatcher takes from it without walking the contexts that have nothing to issue:
 * with 64 busy contexts that walk, after every retire, was a fifth of ferryd's time. */
static bool issuable(const struct msms_queue *q)
{
	return q->next_unissued && q->inflight < MSMS_CONTEXT_INFLIGHT;
}

static void issue_list_add(struct sim_msm_device *dev, struct msms_queue *q)
{
	struct msms_issue_list *l = &dev->issuable[q->prio];
	q->issue_next = NULL;
	q->issue_prev = l->tail;
	if (l->tail)
		l->tail->issue_next = q;
	else
		l->head = q;
	l->tail = q;
	l->count++;
	q->on_issue_list = true;
}

static void issue_list_del(struct sim_msm_device *dev, struct msms_queue *q)
{
	struct msms_issue_list *l = &dev->issuable[q->prio];
	if (q->issue_prev)
		q->issue_prev->issue_next = q->issue_next;
	else
		l->head = q->issue_next;
	if (q->issue_next)
		q->issue_next->issue_prev = q->issue_prev;
	else
		l->tail = q->issue_prev;
	q->issue_next = q->issue_prev = NULL;
	l->count--;
	q->on_issue_list = false;
}

/* On the list exactly when issuable, after anything that may have changed that. */
static void issue_list_update(struct sim_msm_device *dev, struct msms_queue *q)
{
	if (issuable(q) && !q->on_issue_list)
		issue_list_add(dev, q);
	else if (!issuable(q) && q->on_issue_list)
		issue_list_del(dev, q);
}

void msms_dispatch_queued(struct sim_msm_device *dev, struct msms_submit *s)
{
	struct msms_queue *q = s->queue;
	if (!q->next_unissued)
		q->next_unissued = s;
	issue_list_update(dev, q);
}

void msms_dispatch_forget_queue(struct sim_msm_device *dev, struct msms_queue *q)
{
	if (q->on_issue_list)
		issue_list_del(dev, q);
}

/* s (not issued) leaves its drawqueue without being issued. */
void msms_dispatch_drop_unissued(struct sim_msm_device *dev, struct msms_submit *s)
{
	if (s->issued)
		return;
	struct msms_queue *q = s->queue;
	if (q->next_unissued == s)
		q->next_unissued = s->next;
	issue_list_update(dev, q);
}

void msms_dispatch_issue(struct sim_msm_device *dev)
{
	for (uint32_t prio = 0; prio < MSMS_NR_PRIORITIES; prio++) {
		struct msms_ring *ring = &dev->rings[prio];
		struct msms_issue_list *l = &dev->issuable[prio];
		/* One submit per context per turn, until the ring is full or every context left on
		 * the list waits for in-fences (drm_sched dependencies: its later submits wait too). */
		uint32_t blocked = 0;
		while (ring->count < MSMS_RING_SIZE && l->head && blocked < l->count) {
			struct msms_queue *q = l->head;
			struct msms_submit *s = q->next_unissued;
			issue_list_del(dev, q);
			dev->issue_looks++;
			if (!msms_submit_deps_ready(s)) {
				/* Nothing here says when its in-fences signal: looked at again each call. */
				issue_list_add(dev, q);
				blocked++;
				continue;
			}
			blocked = 0;
			s->issued = true;
			q->next_unissued = s->next;
			s->ring_next = NULL;
			s->ring_prev = ring->tail;
			if (ring->tail)
				ring->tail->ring_next = s;
			else
				ring->head = s;
			ring->tail = s;
			ring->count++;
			q->inflight++;
			if (issuable(q))
				issue_list_add(dev, q);
		}
	}
}

/* Where q stands in the fair order: its own work, but at most one slice behind the ring's
 * clock, so a context that idled gets ahead of busy ones by a slice, not by all it did not run. */
static uint64_t fair_key(const struct sim_msm_device *dev, const struct msms_ring *ring, const struct msms_queue *q)
{
	uint64_t floor = ring->vclock > dev->slice_budget ? ring->vclock - dev->slice_budget : 0;
	return q->vrun > floor ? q->vrun : floor;
}

struct msms_submit *msms_dispatch_pick(struct sim_msm_device *dev, uint64_t now,
				       uint64_t *next_wake)
{
	for (uint32_t prio = 0; prio < MSMS_NR_PRIORITIES; prio++) {
		struct msms_ring *ring = &dev->rings[prio];
		/* The context that ran least goes first (CFS-like), so a context with a little work is
		 * not made to wait for every busy context's slice; ties in round-robin order. */
		struct msms_submit *best = NULL;
		uint64_t best_key = 0;
		bool best_wraps = false;
		for (struct msms_submit *s = ring->head; s; s = s->ring_next) {
			/* Only a context's oldest submit runs: contexts execute in order. */
			if (s != s->queue->head)
				continue;
			if (s->stalled && s->next_poll_ns > now && s->poll_gen == dev->wake_gen) {
				if (s->next_poll_ns < *next_wake)
					*next_wake = s->next_poll_ns;
				continue;
			}
			uint64_t key = fair_key(dev, ring, s->queue);
			bool wraps = s->queue->seq <= ring->rr_last;
			if (!best || key < best_key ||
			    (key == best_key && (wraps < best_wraps ||
						 (wraps == best_wraps && s->queue->seq < best->queue->seq)))) {
				best = s;
				best_key = key;
				best_wraps = wraps;
			}
		}
		if (best) {
			ring->rr_last = best->queue->seq;
			best->queue->vrun = best_key;
			if (best_key > ring->vclock)
				ring->vclock = best_key;
			return best;
		}
	}
	return NULL;
}

void msms_dispatch_unlink(struct sim_msm_device *dev, struct msms_submit *s)
{
	if (!s->issued)
		return;
	struct msms_ring *ring = &dev->rings[s->queue->prio];
	if (s->ring_prev)
		s->ring_prev->ring_next = s->ring_next;
	else
		ring->head = s->ring_next;
	if (s->ring_next)
		s->ring_next->ring_prev = s->ring_prev;
	else
		ring->tail = s->ring_prev;
	s->ring_next = s->ring_prev = NULL;
	ring->count--;
	s->queue->inflight--;
	s->issued = false;
	issue_list_update(dev, s->queue); /* under the context's limit again; room on the ring */
}

void msms_dispatch_retire(struct sim_msm_device *dev, struct msms_queue *q)
{
	bool any = false;
	/* In context order: only the context's head can have completed. */
	for (struct msms_submit *s = q->head; s && s->issued; s = q->head) {
		if (!ts_reached(slot_of(s)->eoptimestamp, s->timestamp))
			break;
		msms_dispatch_unlink(dev, s);
		q->head = s->next;
		if (!q->head)
			q->tail = NULL;
		msms_submit_retired(s);
		msms_submit_free(s);
		dev->retired++;
		/* The open whose GEM_SUBMIT runs this step learns of it from done_here. */
		if (q->open == dev->here_open)
			q->open->done_here = true;
		else
			sim_wakeup_notify(&q->open->wakeup, "sim-msm");
		any = true;
	}
	if (any) {
		msms_queue_maybe_free(q); /* last: it may free q */
		pthread_cond_broadcast(&dev->done_cond);
	}
}

void msms_dispatch_wake_stalled(struct sim_msm_device *dev)
{
	/* Every submit stalled before now is due (pick compares its poll_gen), without a walk. */
	dev->wake_gen++;
}
