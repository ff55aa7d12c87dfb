/* Timeline syncobjs in the guest, as Linux 6.1's drm_syncobj.c and dma-fence-chain have them: a
 * syncobj's fence may be a chain node (a point, the ferry fences it waits for, the node before),
 * and every wait, binary or timeline, is the one here. A node counts as signaled once its fences
 * and every node before it are; predecessors whose own fences are done drop out as the kernel's
 * chain walk drops them, so a lookup or query sees the chain the kernel would. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry/array.h"
#include "ferry/uapi/msm_drm.h" /* <drm.h>: DRM_SYNCOBJ_* flags */
#include "shim_ferry.h"
#include "syncobj_priv.h"
#include "sync_file.h"

/* A fence as a syncobj holds it: the ferry fences still pending that it waits for (a node's
 * own, flattened when it was itself taken from a chain), and for a chain node its point and the
 * node (or plain fence) before it. No leaves and no prev: signaled. */
struct shim_tfence {
	unsigned refs;
	struct shim_fence_src *leaves;
	uint32_t nr_leaves;
	bool chain;
	struct shim_tfence *prev;
	uint64_t seqno, prev_seqno, context;
	struct shim_tfence *all_next, **all_pprev; /* every live tfence, for resolve */
};

/* A timeline wait for a point not submitted yet (drm_syncobj's cb_list): handed the fence of its
 * point when one is put in; tf NULL with got set means already signaled. */
struct point_waiter {
	struct shim_syncobj *s;
	uint64_t point;
	bool got;
	struct shim_tfence *tf;
	struct point_waiter *next;
};

static struct shim_tfence *all_tfences;
static struct point_waiter *waiters;
static uint64_t next_context;

/* 5 s: drm_syncobj_find_fence's DRM_SYNCOBJ_WAIT_FOR_SUBMIT_TIMEOUT (TRANSFER's wait). */
#define WAIT_FOR_SUBMIT_NS 5000000000ll

static struct shim_tfence *tf_new(void)
{
	struct shim_tfence *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->refs = 1;
	t->all_next = all_tfences;
	if (all_tfences)
		all_tfences->all_pprev = &t->all_next;
	t->all_pprev = &all_tfences;
	all_tfences = t;
	return t;
}

static struct shim_tfence *tf_get(struct shim_tfence *t)
{
	if (t)
		t->refs++;
	return t;
}

/* Iterative: a long chain must not recurse. */
static void tf_put(struct shim_tfence *t)
{
	while (t && --t->refs == 0) {
		struct shim_tfence *prev = t->prev;
		*t->all_pprev = t->all_next;
		if (t->all_next)
			t->all_next->all_pprev = t->all_pprev;
		free(t->leaves);
		free(t);
		t = prev;
	}
}

static bool leaf_done(const struct shim_fence_src *f)
{
	return ferry_fence_signaled(f->q, f->seqno);
}

/* Drops the leaves that signaled. */
static void prune(struct shim_tfence *t)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < t->nr_leaves; i++)
		if (!leaf_done(&t->leaves[i]))
			t->leaves[k++] = t->leaves[i];
	t->nr_leaves = k;
}

/* dma_fence_chain_walk's garbage collection on t's predecessors. */
static void collect(struct shim_tfence *t)
{
	while (t->prev) {
		struct shim_tfence *p = t->prev;
		prune(p);
		if (p->nr_leaves || (!p->chain && p->prev))
			return;
		t->prev = tf_get(p->chain ? p->prev : NULL);
		tf_put(p);
	}
}

/* NULL is a signaled fence. */
static bool tf_signaled(struct shim_tfence *t)
{
	if (!t)
		return true;
	prune(t);
	collect(t);
	return !t->nr_leaves && !t->prev;
}

static int add_leaf(struct shim_tfence *t, const struct shim_fence_src *f)
{
	if (leaf_done(f))
		return 0;
	for (uint32_t i = 0; i < t->nr_leaves; i++)
		if (t->leaves[i].q == f->q && t->leaves[i].seqno == f->seqno)
			return 0;
	if (t->nr_leaves == UINT32_MAX)
		return -ENOMEM;
	struct shim_fence_src *l = realloc(t->leaves, ((size_t)t->nr_leaves + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	t->leaves = l;
	t->leaves[t->nr_leaves++] = *f;
	return 0;
}

/* Every leaf of src and its predecessors into dst (a chain taken as one fence). */
static int add_all_leaves(struct shim_tfence *dst, struct shim_tfence *src)
{
	for (struct shim_tfence *n = src; n; n = n->prev) {
		collect(n);
		prune(n);
		for (uint32_t i = 0; i < n->nr_leaves; i++) {
			int r = add_leaf(dst, &n->leaves[i]);
			if (r)
				return r;
		}
	}
	return 0;
}

/* The syncobj's fence (a reference; NULL signaled): 0, or -EINVAL when it has none. */
static int current_fence(struct shim_syncobj *s, struct shim_tfence **out)
{
	*out = NULL;
	if (s->tl) {
		*out = tf_get(s->tl);
		return 0;
	}
	if (s->signaled || (s->has_fence && leaf_done(&s->fence)))
		return 0;
	if (!s->has_fence)
		return -EINVAL;
	struct shim_tfence *t = tf_new();
	if (!t || add_leaf(t, &s->fence)) {
		tf_put(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

/* drm_syncobj_find_fence without waiting: the node of point (NULL: signaled), or -EINVAL when
 * the syncobj has no fence, or it is not a chain and point is not 0, or the point is later than
 * the chain's last (dma_fence_chain_find_seqno). */
static int find_point(struct shim_syncobj *s, uint64_t point, struct shim_tfence **out)
{
	struct shim_tfence *head;
	int r = current_fence(s, &head);
	*out = NULL;
	if (r)
		return r;
	if (!point) {
		*out = head;
		return 0;
	}
	if (!head || !head->chain || head->seqno < point) {
		tf_put(head);
		/* A signaled plain fence (head NULL) is no chain either. */
		return -EINVAL;
	}
	struct shim_tfence *it = head;
	while (it && it->chain && it->context == head->context && it->prev_seqno >= point) {
		collect(it);
		it = it->prev;
	}
	*out = tf_get(it);
	tf_put(head);
	return 0;
}

static void notify_locked(struct shim_syncobj *s)
{
	for (struct point_waiter *w = waiters; w; w = w->next)
		if (w->s == s && !w->got && find_point(s, w->point, &w->tf) == 0)
			w->got = true;
}

void shim_timeline_installed_locked(struct shim_syncobj *s)
{
	tf_put(s->tl);
	s->tl = NULL;
	notify_locked(s);
}

void shim_timeline_free_locked(struct shim_syncobj *s)
{
	tf_put(s->tl);
	s->tl = NULL;
}

void shim_timeline_resolve_locked(struct shim_dev *dev, struct ferry_queue *q)
{
	for (struct shim_tfence *t = all_tfences; t; t = t->all_next) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < t->nr_leaves; i++)
			if (t->leaves[i].owner != dev || (q && t->leaves[i].q != q))
				t->leaves[k++] = t->leaves[i];
		t->nr_leaves = k;
	}
}

/* Sets s's fence to t (a reference taken), and the binary fields to its summary. */
static void set_fence_locked(struct shim_syncobj *s, struct shim_tfence *t)
{
	struct shim_tfence *old = s->tl;
	s->tl = tf_get(t);
	tf_put(old);
	bool sig = tf_signaled(t);
	s->signaled = sig;
	s->has_fence = false;
	for (struct shim_tfence *n = t; !sig && n && !s->has_fence; n = n->prev)
		if (n->nr_leaves) {
			s->has_fence = true;
			s->fence = n->leaves[n->nr_leaves - 1];
		}
	if (!sig && !s->has_fence)
		s->signaled = true; /* every leaf ended meanwhile */
	notify_locked(s);
	pthread_cond_broadcast(&shim_sync_cond);
}

/* drm_syncobj_add_point: a new chain node at point holding fence's leaves (fence NULL:
 * signaled). */
static int add_point_locked(struct shim_syncobj *s, struct shim_tfence *fence, uint64_t point)
{
	struct shim_tfence *prev;
	int r = current_fence(s, &prev);
	if (r == -ENOMEM)
		return r;
	struct shim_tfence *c = tf_new();
	if (!c || add_all_leaves(c, fence)) {
		tf_put(c);
		tf_put(prev);
		return -ENOMEM;
	}
	c->chain = true;
	/* dma_fence_chain_init: a later point continues the previous node's context; an earlier or
	 * equal one (or a first node) starts one, and the timeline does not go back. */
	if (prev && prev->chain && point > prev->seqno) {
		c->context = prev->context;
		c->prev_seqno = prev->seqno;
		c->seqno = point;
	} else {
		c->context = ++next_context;
		c->seqno = prev && prev->chain && prev->seqno > point ? prev->seqno : point;
	}
	c->prev = prev; /* the reference current_fence took */
	collect(c);
	set_fence_locked(s, c);
	tf_put(c);
	return 0;
}

static int attach_point(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f, uint64_t point);

/* A submit's out-syncobj (both families' submits come here): another process holding it as a
 * shared syncobj sees the new fence. */
int shim_syncobj_attach_point(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f, uint64_t point)
{
	int r = attach_point(dev, handle, f, point);
	shim_syncobj_push(dev, handle);
	return r;
}

static int attach_point(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f, uint64_t point)
{
	if (!point)
		return shim_syncobj_attach(dev, handle, f);
	struct shim_syncobj *s = shim_syncobj_ref(dev, handle);
	if (!s)
		return -ENOENT;
	shim_syncobj_lock_init();
	pthread_mutex_lock(&shim_sync_lock);
	struct shim_tfence *t = tf_new();
	int r = t ? add_leaf(t, &f) : -ENOMEM;
	if (!r)
		r = add_point_locked(s, t, point);
	tf_put(t);
	shim_syncobj_unref_locked(s);
	pthread_mutex_unlock(&shim_sync_lock);
	return r;
}

int shim_fence_list_add(struct shim_fence_list *l, struct ferry_fence_ref f)
{
	if (FERRY_ARRAY_RESERVE(l->v, l->cap, (size_t)l->n + 1, 8))
		return -ENOMEM;
	l->v[l->n++] = f;
	return 0;
}

int shim_syncobj_in_fences(struct shim_dev *dev, uint32_t handle, uint64_t point, struct shim_fence_list *l)
{
	shim_syncobj_pull(dev, handle); /* a shared syncobj: what another process put in it */
	struct shim_syncobj *s = shim_syncobj_ref(dev, handle);
	if (!s)
		return -ENOENT;
	shim_syncobj_lock_init();
	pthread_mutex_lock(&shim_sync_lock);
	struct shim_tfence *t, *all = NULL;
	int r = find_point(s, point, &t);
	if (!r && t) {
		all = tf_new();
		r = all ? add_all_leaves(all, t) : -ENOMEM;
		tf_put(t);
	}
	shim_syncobj_unref_locked(s);
	uint32_t n = all ? all->nr_leaves : 0;
	struct shim_fence_src *leaves = NULL;
	if (!r && n) {
		leaves = malloc(n * sizeof(*leaves));
		if (leaves)
			memcpy(leaves, all->leaves, n * sizeof(*leaves));
		else
			r = -ENOMEM;
	}
	for (uint32_t i = 0; !r && i < n; i++)
		if (leaves[i].owner != dev)
			leaves[i].owner->fence_users++;
	tf_put(all);
	pthread_mutex_unlock(&shim_sync_lock);
	/* Another open's queue is another ferry context: no in-fence can name it, so its fences
	 * wait as one fence of this open's external queue. */
	struct shim_fence **other = NULL;
	uint32_t nother = 0;
	for (uint32_t i = 0; !r && i < n; i++) {
		if (leaves[i].owner == dev) {
			r = shim_fence_list_add(l, (struct ferry_fence_ref){ ferry_queue_id(leaves[i].q), leaves[i].seqno });
			continue;
		}
		if (ferry_fence_signaled(leaves[i].q, leaves[i].seqno))
			continue;
		if (!other && !(other = calloc(n, sizeof(*other)))) {
			r = -ENOMEM;
			break;
		}
		other[nother] = shim_ferry_fence(leaves[i].owner, leaves[i].q, leaves[i].seqno, ferry_queue_id(leaves[i].q));
		if (!other[nother])
			r = -ENOMEM;
		else
			nother++;
	}
	if (!r && nother) {
		struct shim_fence_src ext;
		r = shim_external_fence(dev, other, nother, &ext);
		if (r == 0)
			r = shim_fence_list_add(l, (struct ferry_fence_ref){ ferry_queue_id(ext.q), ext.seqno });
		else if (r == 1)
			r = 0;
	} else if (other) {
		shim_sync_file_fences_free(other, nother);
	}
	if (n && leaves) {
		pthread_mutex_lock(&shim_sync_lock);
		for (uint32_t i = 0; i < n; i++)
			if (leaves[i].owner != dev)
				leaves[i].owner->fence_users--;
		pthread_cond_broadcast(&shim_sync_cond);
		pthread_mutex_unlock(&shim_sync_lock);
	}
	free(leaves);
	return r;
}

/* The pending ferry fences of t and its predecessors into pts, their owners' fence_users
 * counted (sync_lock held). */
static int gather_points(struct shim_tfence *t, struct ferry_fence_point **pts, struct shim_dev ***users,
			 uint32_t *n, uint32_t *cap)
{
	for (struct shim_tfence *it = t; it; it = it->prev) {
		for (uint32_t i = 0; i < it->nr_leaves; i++) {
			/* Both arrays grow alike, so one capacity stands for both. */
			uint32_t cap_pts = *cap, cap_users = *cap;
			if (FERRY_ARRAY_RESERVE(*pts, cap_pts, (size_t)*n + 1, 16) ||
			    FERRY_ARRAY_RESERVE(*users, cap_users, (size_t)*n + 1, 16))
				return -ENOMEM;
			*cap = cap_pts;
			(*users)[*n] = it->leaves[i].owner;
			it->leaves[i].owner->fence_users++;
			(*pts)[(*n)++] = (struct ferry_fence_point){ it->leaves[i].q, it->leaves[i].seqno };
		}
	}
	return 0;
}

/* drm_syncobj_array_wait_timeout with points (NULL: all 0): all or any; WAIT_FOR_SUBMIT lets a
 * point not submitted yet count as "not yet" instead of -EINVAL; WAIT_AVAILABLE counts a point
 * done once submitted; -ETIME when the absolute CLOCK_MONOTONIC deadline passes; first_signaled
 * is the first done at entry, or for "any" the one that ended the wait. A failed fence counts as
 * signaled (the error reaches the driver through its own fault queries). */
int shim_syncobj_timeline_wait(struct shim_dev *dev, const uint32_t *handles, const uint64_t *points, uint32_t count,
			       int64_t abs_timeout_ns, uint32_t flags, uint32_t *first)
{
	shim_syncobj_lock_init();
	bool wait_all = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	bool for_submit = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	bool available = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	struct shim_syncobj **objs = calloc(count, sizeof(*objs));
	struct point_waiter *ws = calloc(count, sizeof(*ws));
	struct ferry_fence_point *pts = NULL;
	struct shim_dev **users = NULL;
	uint32_t cap = 0, got = 0, first_done = UINT32_MAX;
	int r = 0;
	if (!objs || !ws) {
		r = -ENOMEM;
		goto out;
	}
	for (; got < count; got++) {
		objs[got] = shim_syncobj_ref(dev, handles[got]);
		if (!objs[got]) {
			r = -ENOENT;
			goto out;
		}
	}
	pthread_mutex_lock(&shim_sync_lock);
	uint32_t done = 0;
	for (uint32_t i = 0; i < count; i++) {
		ws[i].s = objs[i];
		ws[i].point = points ? points[i] : 0;
		int f = find_point(objs[i], ws[i].point, &ws[i].tf);
		if (f == -ENOMEM) {
			r = f;
			break;
		}
		if (f) {
			if (!for_submit) {
				r = -EINVAL;
				break;
			}
			continue;
		}
		ws[i].got = true;
		if ((available || tf_signaled(ws[i].tf)) && done++ == 0)
			first_done = i;
	}
	bool queued = false;
	if (!r && !(done == count || (done && !wait_all))) {
		for (uint32_t i = 0; i < count; i++) {
			ws[i].next = waiters;
			waiters = &ws[i];
		}
		queued = true;
	}
	pthread_mutex_unlock(&shim_sync_lock);
	if (r || !queued)
		goto out;
	uint32_t result = first_done;
	for (;;) {
		pthread_mutex_lock(&shim_sync_lock);
		uint32_t npts = 0, unknown = 0;
		int64_t any = -1;
		done = 0;
		for (uint32_t i = 0; i < count && r == 0; i++) {
			if (!ws[i].got) {
				unknown++;
			} else if (available || tf_signaled(ws[i].tf)) {
				done++;
				if (any < 0)
					any = i;
			} else {
				r = gather_points(ws[i].tf, &pts, &users, &npts, &cap);
			}
		}
		bool over = wait_all ? done == count : done > 0;
		int64_t left = shim_timeout_from_abs(abs_timeout_ns);
		/* A point still waiting to be submitted, on a lost context, will get no fence; after
		 * a failed submit it may be the failed one's. Either way the wait ends (-EIO), whatever
		 * its timeout, SHIM_STRANDED_GRACE_NS after the failure or the loss was first seen
		 * (shim.h says why the grace). Stronger than the kernel, which would sleep for ever
		 * (docs/guest-shim.md); fences already in count as failed: libferry ends them. */
		int64_t now = shim_now_ns();
		if (unknown && !dev->submit_failed_ns && ferry_context_lost(dev->ctx))
			dev->submit_failed_ns = now;
		bool stranded = unknown && dev->submit_failed_ns;
		int64_t stranded_end = stranded ? dev->submit_failed_ns + SHIM_STRANDED_GRACE_NS : INT64_MAX;
		bool lost = !over && unknown && now >= stranded_end;
		if (r || over || left == 0 || lost) {
			for (uint32_t k = 0; k < npts; k++)
				users[k]->fence_users--;
			pthread_cond_broadcast(&shim_sync_cond);
			pthread_mutex_unlock(&shim_sync_lock);
			if (r)
				break;
			if (over && !wait_all && result == UINT32_MAX)
				result = (uint32_t)any;
			r = over ? 0 : lost ? -EIO : -ETIME;
			break;
		}
		if (unknown || npts == 0) {
			for (uint32_t k = 0; k < npts; k++)
				users[k]->fence_users--;
			/* Something must be submitted first; fences already there are re-checked every
			 * couple of ms meanwhile. */
			int64_t slice = npts ? 2000000 : left;
			if (slice > left)
				slice = left;
			int64_t until = slice > INT64_MAX - now ? INT64_MAX : now + slice;
			if (until > stranded_end)
				until = stranded_end;
			struct timespec ts = { until / 1000000000, until % 1000000000 };
			pthread_cond_timedwait(&shim_sync_cond, &shim_sync_lock, &ts);
			pthread_mutex_unlock(&shim_sync_lock);
			continue;
		}
		pthread_mutex_unlock(&shim_sync_lock);
		int w = ferry_fence_wait_many(pts, npts, wait_all, left, NULL);
		pthread_mutex_lock(&shim_sync_lock);
		for (uint32_t k = 0; k < npts; k++)
			users[k]->fence_users--;
		pthread_cond_broadcast(&shim_sync_cond);
		pthread_mutex_unlock(&shim_sync_lock);
		/* 0, -ETIMEDOUT (the loop says -ETIME), or the error a fence completed with (a fault,
		 * a refusal: that fence is done, as the kernel's signaled-with-error): the loop
		 * re-checks. An error with no fence done is the connection gone: said, not spun on. */
		bool any_done = false;
		for (uint32_t k = 0; w < 0 && w != -ETIMEDOUT && k < npts && !any_done; k++)
			any_done = ferry_fence_signaled(pts[k].q, pts[k].seqno);
		if (w < 0 && w != -ETIMEDOUT && !any_done) {
			r = w;
			break;
		}
	}
	if (r == 0)
		first_done = result;
	pthread_mutex_lock(&shim_sync_lock);
	for (struct point_waiter **pw = &waiters; *pw;) {
		if (*pw >= ws && *pw < ws + count)
			*pw = (*pw)->next;
		else
			pw = &(*pw)->next;
	}
	pthread_mutex_unlock(&shim_sync_lock);
out:
	if (r == 0 && first)
		*first = first_done;
	pthread_mutex_lock(&shim_sync_lock);
	for (uint32_t i = 0; ws && i < count; i++)
		tf_put(ws[i].tf);
	for (uint32_t i = 0; i < got; i++)
		shim_syncobj_unref_locked(objs[i]);
	pthread_mutex_unlock(&shim_sync_lock);
	free(objs);
	free(ws);
	free(pts);
	free(users);
	return r;
}

/* drm_syncobj_query_ioctl: the last signaled point of the head's context (or, LAST_SUBMITTED,
 * the head's point); 0 for a syncobj whose fence is not a chain. */
int shim_syncobj_query(struct shim_dev *dev, const uint32_t *handles, uint64_t *points, uint32_t count, uint32_t flags)
{
	for (uint32_t i = 0; i < count; i++)
		if (!shim_syncobj_exists(dev, handles[i]))
			return -ENOENT;
	for (uint32_t i = 0; i < count; i++) {
		struct shim_syncobj *s = shim_syncobj_ref(dev, handles[i]);
		if (!s)
			return -ENOENT; /* destroyed meanwhile by another thread */
		pthread_mutex_lock(&shim_sync_lock);
		struct shim_tfence *h = s->tl;
		uint64_t point = 0;
		if (h && h->chain && (flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)) {
			point = h->seqno;
		} else if (h && h->chain) {
			struct shim_tfence *last = h;
			collect(h);
			for (struct shim_tfence *it = h->prev; it && it->chain && it->context == h->context; it = it->prev) {
				collect(it);
				last = it;
			}
			point = tf_signaled(last) ? last->seqno : last->prev_seqno;
		}
		shim_syncobj_unref_locked(s);
		pthread_mutex_unlock(&shim_sync_lock);
		memcpy(&points[i], &point, sizeof(point));
	}
	return 0;
}

int shim_syncobj_timeline_signal(struct shim_dev *dev, const uint32_t *handles, const uint64_t *points, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		if (!shim_syncobj_exists(dev, handles[i]))
			return -ENOENT;
	shim_syncobj_lock_init();
	int r = 0;
	for (uint32_t i = 0; i < count && !r; i++) {
		struct shim_syncobj *s = shim_syncobj_ref(dev, handles[i]);
		if (!s)
			continue; /* destroyed meanwhile: the kernel held it; nobody can see it now */
		pthread_mutex_lock(&shim_sync_lock);
		r = add_point_locked(s, NULL, points ? points[i] : 0);
		shim_syncobj_unref_locked(s);
		pthread_mutex_unlock(&shim_sync_lock);
	}
	return r;
}

/* drm_syncobj_find_fence with WAIT_FOR_SUBMIT: up to 5 s for the point to be submitted (-ETIME
 * after); a lost or failed context ends it -EIO as the waits do (sync_lock held). */
static int find_point_waiting(struct shim_dev *dev, struct shim_syncobj *s, uint64_t point, struct shim_tfence **out)
{
	int r = find_point(s, point, out);
	if (r != -EINVAL)
		return r;
	struct point_waiter w = { .s = s, .point = point, .next = waiters };
	waiters = &w;
	int64_t deadline = shim_now_ns() + WAIT_FOR_SUBMIT_NS;
	r = 0;
	while (!w.got) {
		int64_t now = shim_now_ns();
		if (!dev->submit_failed_ns && ferry_context_lost(dev->ctx))
			dev->submit_failed_ns = now;
		int64_t end = deadline;
		if (dev->submit_failed_ns && dev->submit_failed_ns + SHIM_STRANDED_GRACE_NS < end)
			end = dev->submit_failed_ns + SHIM_STRANDED_GRACE_NS;
		if (now >= end) {
			r = end == deadline ? -ETIME : -EIO;
			break;
		}
		struct timespec ts = { end / 1000000000, end % 1000000000 };
		pthread_cond_timedwait(&shim_sync_cond, &shim_sync_lock, &ts);
	}
	for (struct point_waiter **pw = &waiters; *pw; pw = &(*pw)->next)
		if (*pw == &w) {
			*pw = w.next;
			break;
		}
	if (r)
		tf_put(w.tf);
	else
		*out = w.tf;
	return r;
}

/* drm_syncobj_transfer_ioctl: the fence at src_point goes into dst, as a new point (dst_point
 * non-zero) or replacing dst's fence. Only WAIT_FOR_SUBMIT of flags means anything (6.1 passes
 * them to drm_syncobj_find_fence, which looks at that bit only). */
int shim_syncobj_transfer(struct shim_dev *dev, uint32_t src, uint64_t src_point, uint32_t dst, uint64_t dst_point,
			  uint32_t flags)
{
	shim_syncobj_lock_init();
	struct shim_syncobj *d = shim_syncobj_ref(dev, dst);
	if (!d)
		return -ENOENT;
	struct shim_syncobj *s = shim_syncobj_ref(dev, src);
	if (!s) {
		shim_syncobj_unref(d);
		return -ENOENT;
	}
	pthread_mutex_lock(&shim_sync_lock);
	struct shim_tfence *t = NULL;
	int r = (flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT) ? find_point_waiting(dev, s, src_point, &t)
								 : find_point(s, src_point, &t);
	if (!r && dst_point) {
		r = add_point_locked(d, t, dst_point);
	} else if (!r) {
		set_fence_locked(d, t); /* a chain node stays one: a query on d sees its points */
	}
	tf_put(t);
	shim_syncobj_unref_locked(s);
	shim_syncobj_unref_locked(d);
	pthread_mutex_unlock(&shim_sync_lock);
	return r;
}
