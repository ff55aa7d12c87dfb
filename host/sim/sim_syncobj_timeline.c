/* Timeline syncobjs of the simulated kernels (see sim_syncobj_timeline.h): a syncobj's fence may
 * be a chain node (dma_fence_chain of 6.1) holding one fence at one point and the node before.
 * A node is signaled once its fence and every node before it are; signaled predecessors are
 * dropped from the chain as the kernel's chain walk drops them, so a query or a point lookup
 * here sees the chain the kernel's walk would. */
#include "sim_syncobj_timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_worker.h"

struct sim_chain {
	struct sim_sync_dev *sd;
	struct sim_fence *base;  /* the node's own fence (base->chain == this) */
	struct sim_fence *fence; /* the fence it holds */
	struct sim_fence *prev;  /* the node before (or a plain fence), NULL once all signaled */
	uint64_t seqno, prev_seqno, context;
	struct sim_chain *older, *newer; /* sd's list; newer doubles as the free list's link */
};

static struct sim_fence *signaled_stub(void)
{
	struct sim_fence *f = sim_fence_new();
	if (f)
		f->signaled = true;
	return f;
}

/* dma_fence_chain_walk's garbage collection: predecessors whose own fence signaled go. */
static void collect(struct sim_chain *c)
{
	while (c->prev) {
		struct sim_fence *p = c->prev;
		struct sim_fence *replacement;
		if (p->chain) {
			if (!p->chain->fence->signaled)
				return;
			replacement = p->chain->prev ? sim_fence_get(p->chain->prev) : NULL;
		} else {
			if (!p->signaled)
				return;
			replacement = NULL;
		}
		c->prev = replacement;
		sim_fence_put(p);
	}
}

void sim_chain_update(struct sim_sync_dev *sd)
{
	if (sd->chains_updating)
		return; /* signaling a node below comes back here */
	sd->chains_updating = true;
	bool changed;
	do {
		changed = false;
		/* Oldest first: a node signals in the same pass as the nodes it waits for. Freeing
		 * only ever reaches nodes older than the one at hand. */
		for (struct sim_chain *c = sd->chains_oldest; c; c = c->newer) {
			collect(c);
			if (!c->base->signaled && !c->prev && c->fence->signaled) {
				sim_fence_signal(sd, c->base, 0);
				changed = true;
			}
		}
	} while (changed);
	sd->chains_updating = false;
}

static void unlink_chain(struct sim_chain *c)
{
	struct sim_sync_dev *sd = c->sd;
	if (c->older)
		c->older->newer = c->newer;
	else
		sd->chains_oldest = c->newer;
	if (c->newer)
		c->newer->older = c->older;
	else
		sd->chains_newest = c->older;
}

/* Iterative: a long chain (or chains holding chains, as TRANSFER makes) must not recurse. */
void sim_chain_free(struct sim_fence *f)
{
	struct sim_chain *todo = f->chain;
	unlink_chain(todo);
	todo->newer = NULL;
	while (todo) {
		struct sim_chain *c = todo;
		todo = c->newer;
		struct sim_fence *held[2] = { c->fence, c->prev };
		for (int i = 0; i < 2; i++) {
			struct sim_fence *h = held[i];
			if (!h || --h->refs)
				continue;
			if (h->chain) {
				unlink_chain(h->chain);
				h->chain->newer = todo;
				todo = h->chain;
			} else {
				free(h);
			}
		}
		free(c->base);
		free(c);
	}
}

int sim_fence_find_point(struct sim_fence *f, uint64_t point, struct sim_fence **out)
{
	*out = NULL;
	if (!f)
		return -EINVAL;
	if (!point) {
		*out = sim_fence_get(f);
		return 0;
	}
	struct sim_chain *head = f->chain;
	if (!head || head->seqno < point)
		return -EINVAL;
	/* Back through the head's context while the node before still covers the point. */
	struct sim_fence *it = f;
	while (it && it->chain && it->chain->context == head->context && it->chain->prev_seqno >= point)
		it = it->chain->prev;
	*out = it ? sim_fence_get(it) : signaled_stub();
	return *out ? 0 : -ENOMEM;
}

void sim_syncobj_notify_waiters(struct sim_syncobj *s)
{
	for (struct sim_point_waiter **pw = &s->waiters; *pw;) {
		struct sim_point_waiter *w = *pw;
		if (sim_fence_find_point(s->fence, w->point, &w->fence) == 0) {
			*pw = w->next;
			w->next = NULL;
		} else {
			pw = &w->next;
		}
	}
}

static void waiter_remove(struct sim_syncobj *s, struct sim_point_waiter *w)
{
	for (struct sim_point_waiter **pw = &s->waiters; *pw; pw = &(*pw)->next)
		if (*pw == w) {
			*pw = w->next;
			return;
		}
}

int sim_syncobj_add_point(struct sim_sync_dev *sd, struct sim_syncobj *s, struct sim_fence *fence, uint64_t point)
{
	struct sim_fence *base = sim_fence_new();
	struct sim_chain *c = calloc(1, sizeof(*c));
	if (!base || !c) {
		free(base);
		free(c);
		return -ENOMEM;
	}
	struct sim_fence *prev = s->fence ? sim_fence_get(s->fence) : NULL;
	/* dma_fence_chain_init: a later point continues the previous node's context; an earlier
	 * or equal one (or a first node) starts a context, keeping the timeline from going back. */
	if (prev && prev->chain && point > prev->chain->seqno) {
		c->context = prev->chain->context;
		c->prev_seqno = prev->chain->seqno;
		c->seqno = point;
	} else {
		c->context = ++sd->next_context;
		c->seqno = prev && prev->chain && prev->chain->seqno > point ? prev->chain->seqno : point;
	}
	c->sd = sd;
	c->base = base;
	c->fence = sim_fence_get(fence);
	c->prev = prev;
	base->chain = c;
	c->older = sd->chains_newest;
	if (sd->chains_newest)
		sd->chains_newest->newer = c;
	else
		sd->chains_oldest = c;
	sd->chains_newest = c;
	collect(c);
	if (!c->prev && c->fence->signaled)
		base->signaled = true; /* nobody can be waiting on it yet */
	sim_syncobj_replace(sd, s, base);
	sim_fence_put(base);
	return 0;
}

int sim_syncobj_find_fence(struct sim_syncobj_table *t, uint32_t handle, uint64_t point, struct sim_fence **out)
{
	struct sim_syncobj *s = sim_syncobj_lookup(t, handle);
	if (!s)
		return -ENOENT;
	return sim_fence_find_point(s->fence, point, out);
}

/* The user's points array (NULL: all 0, as the kernel takes it). */
static int copy_points(uint64_t ptr, uint32_t count, uint64_t **out)
{
	uint64_t *p = calloc(count, sizeof(*p)); /* count is bounded by sim_syncobj_find_array */
	if (!p)
		return -ENOMEM;
	if (ptr)
		memcpy(p, (const void *)(uintptr_t)ptr, (size_t)count * sizeof(*p));
	*out = p;
	return 0;
}

/* drm_syncobj_array_wait_timeout with points: each entry keeps the node of its point it first
 * found, or (WAIT_FOR_SUBMIT) the first one put in later; WAIT_AVAILABLE counts an entry done
 * once it has one. SYNCOBJ_WAIT comes here too (sim_syncobj_wait). A wait for a fence a lost or
 * failed open will never submit ends -EIO at the table's stranded_ns. */
int sim_syncobj_timeline_wait(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_timeline_wait *a)
{
	const uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
			       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	if (a->flags & ~known)
		return -EINVAL;
	if (a->count_handles == 0)
		return -EINVAL;
	uint32_t n = a->count_handles;
	struct sim_syncobj **objs;
	int ret = sim_syncobj_find_array(t, a->handles, n, &objs);
	if (ret)
		return ret;
	uint64_t *points = NULL;
	struct sim_fence **fences = calloc(n, sizeof(*fences));
	struct sim_point_waiter *waiters = calloc(n, sizeof(*waiters));
	ret = fences && waiters ? copy_points(a->points, n, &points) : -ENOMEM;
	if (ret)
		goto out_free;
	bool wait_all = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	bool for_submit = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	bool available = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	uint32_t first = UINT32_MAX, done = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (sim_fence_find_point(objs[i]->fence, points[i], &fences[i])) {
			if (!for_submit) {
				ret = -EINVAL;
				goto out_free;
			}
			continue;
		}
		if ((available || fences[i]->signaled) && done++ == 0)
			first = i;
	}
	if (done == n || (done && !wait_all))
		goto out_free;
	for (uint32_t i = 0; i < n; i++) {
		if (fences[i])
			continue;
		waiters[i].point = points[i];
		waiters[i].next = objs[i]->waiters;
		objs[i]->waiters = &waiters[i];
	}
	uint64_t deadline = a->timeout_nsec > 0 ? (uint64_t)a->timeout_nsec : 0;
	struct timespec abs = sim_abs_timespec(deadline);
	int64_t pause = SIM_SHARED_POLL_FIRST_NS;
	for (;;) {
		done = 0;
		bool unsubmitted = false, shared = false;
		for (uint32_t i = 0; i < n; i++) {
			/* Another process's submit to a shared syncobj wakes nothing here: look. */
			if (!fences[i])
				shared |= sim_syncobj_pull(objs[i]);
			if (!fences[i] && waiters[i].fence) {
				fences[i] = waiters[i].fence;
				waiters[i].fence = NULL;
			}
			unsubmitted |= !fences[i];
			if (!fences[i] || (!available && !fences[i]->signaled && !t->lost))
				continue;
			if (!wait_all) {
				first = i;
				goto out_unqueue;
			}
			done++;
		}
		if (done == n)
			break;
		uint64_t now = sim_now_ns();
		/* Not the kernel's: it would sleep on (see sim_syncobj_strand, lose_on_fault). */
		if (unsubmitted && t->stranded_ns && now >= (uint64_t)t->stranded_ns) {
			ret = -EIO;
			break;
		}
		if (now >= deadline) {
			ret = -ETIME;
			break;
		}
		struct timespec until = abs;
		if (unsubmitted && t->stranded_ns && (uint64_t)t->stranded_ns < deadline)
			until = sim_abs_timespec((uint64_t)t->stranded_ns);
		if (shared && deadline - now > (uint64_t)pause) {
			struct timespec soon = sim_abs_timespec(now + (uint64_t)pause);
			if (soon.tv_sec < until.tv_sec || (soon.tv_sec == until.tv_sec && soon.tv_nsec < until.tv_nsec))
				until = soon;
			if (pause < SIM_SHARED_POLL_LAST_NS)
				pause *= 2;
		}
		pthread_cond_timedwait(sd->done_cond, sd->lock, &until);
	}
out_unqueue:
	for (uint32_t i = 0; i < n; i++) {
		waiter_remove(objs[i], &waiters[i]);
		sim_fence_put(waiters[i].fence);
	}
out_free:
	if (!ret)
		a->first_signaled = first;
	for (uint32_t i = 0; fences && i < n; i++)
		sim_fence_put(fences[i]);
	free(fences);
	free(waiters);
	free(points);
	sim_syncobj_put_array(objs, n);
	return ret;
}

/* drm_syncobj_query_ioctl: the last signaled point of the head's context, or with
 * LAST_SUBMITTED the head's point; 0 for a syncobj whose fence is not a chain. */
int sim_syncobj_query(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_timeline_array *a)
{
	(void)sd;
	if (a->flags & ~(uint32_t)DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)
		return -EINVAL;
	if (a->count_handles == 0)
		return -EINVAL;
	struct sim_syncobj **objs;
	int ret = sim_syncobj_find_array(t, a->handles, a->count_handles, &objs);
	if (ret)
		return ret;
	uint64_t *out = (uint64_t *)(uintptr_t)a->points;
	for (uint32_t i = 0; i < a->count_handles && !ret; i++) {
		struct sim_fence *f = objs[i]->fence;
		uint64_t point = 0;
		if (f && f->chain && (a->flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)) {
			point = f->chain->seqno;
		} else if (f && f->chain) {
			struct sim_fence *last = f;
			for (struct sim_fence *it = f->chain->prev; it && it->chain && it->chain->context == f->chain->context;
			     it = it->chain->prev)
				last = it;
			point = last->signaled ? last->chain->seqno : last->chain->prev_seqno;
		}
		if (!out)
			ret = -EFAULT; /* copy_to_user */
		else
			memcpy(&out[i], &point, sizeof(point));
	}
	sim_syncobj_put_array(objs, a->count_handles);
	return ret;
}

int sim_syncobj_timeline_signal(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_timeline_array *a)
{
	if (a->flags != 0)
		return -EINVAL;
	if (a->count_handles == 0)
		return -EINVAL;
	struct sim_syncobj **objs;
	int ret = sim_syncobj_find_array(t, a->handles, a->count_handles, &objs);
	if (ret)
		return ret;
	uint64_t *points = NULL;
	struct sim_fence *stub = signaled_stub();
	ret = stub ? copy_points(a->points, a->count_handles, &points) : -ENOMEM;
	for (uint32_t i = 0; !ret && i < a->count_handles; i++)
		ret = sim_syncobj_add_point(sd, objs[i], stub, points[i]);
	sim_fence_put(stub);
	free(points);
	sim_syncobj_put_array(objs, a->count_handles);
	pthread_cond_signal(sd->work_cond); /* jobs gated on these points may run */
	return ret;
}

/* drm_syncobj_find_fence with the caller's flags: WAIT_FOR_SUBMIT waits up to the kernel's 5 s
 * (DRM_SYNCOBJ_WAIT_FOR_SUBMIT_TIMEOUT) for the point to be submitted, -ETIME after; a lost or
 * failed open's wait ends -EIO as the waits do. Other flag bits are ignored, as 6.1 does. */
#define SIM_WAIT_FOR_SUBMIT_NS 5000000000ull
static int find_fence_waiting(struct sim_sync_dev *sd, struct sim_syncobj_table *t, uint32_t handle, uint64_t point,
			      uint32_t flags, struct sim_fence **out)
{
	struct sim_syncobj *s = sim_syncobj_lookup(t, handle);
	if (!s)
		return -ENOENT;
	int ret = sim_fence_find_point(s->fence, point, out);
	if (ret != -EINVAL || !(flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
		return ret;
	sim_syncobj_get(s);
	struct sim_point_waiter w = { .point = point, .next = s->waiters };
	s->waiters = &w;
	uint64_t deadline = sim_now_ns() + SIM_WAIT_FOR_SUBMIT_NS;
	ret = 0;
	while (!w.fence) {
		uint64_t now = sim_now_ns();
		if (t->stranded_ns && now >= (uint64_t)t->stranded_ns) {
			ret = -EIO;
			break;
		}
		if (now >= deadline) {
			ret = -ETIME;
			break;
		}
		uint64_t until = t->stranded_ns && (uint64_t)t->stranded_ns < deadline ? (uint64_t)t->stranded_ns : deadline;
		struct timespec ts = sim_abs_timespec(until);
		pthread_cond_timedwait(sd->done_cond, sd->lock, &ts);
	}
	waiter_remove(s, &w);
	if (ret)
		sim_fence_put(w.fence);
	else
		*out = w.fence;
	sim_syncobj_put(s);
	return ret;
}

/* drm_syncobj_transfer_ioctl: the fence at src_point goes into dst, as a new point (dst_point
 * non-zero) or replacing dst's fence (binary). */
int sim_syncobj_transfer(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_transfer *a)
{
	if (a->pad)
		return -EINVAL;
	struct sim_syncobj *dst = sim_syncobj_lookup(t, a->dst_handle);
	if (!dst)
		return -ENOENT;
	sim_syncobj_get(dst); /* the wait below drops the lock: dst's handle may go meanwhile */
	struct sim_fence *f = NULL;
	int ret = find_fence_waiting(sd, t, a->src_handle, a->src_point, a->flags, &f);
	if (!ret && a->dst_point)
		ret = sim_syncobj_add_point(sd, dst, f, a->dst_point);
	else if (!ret)
		sim_syncobj_replace(sd, dst, f);
	sim_fence_put(f);
	sim_syncobj_put(dst);
	pthread_cond_signal(sd->work_cond);
	return ret;
}
