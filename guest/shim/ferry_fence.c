/* libferry fences as sync file fences (sync_file.h) for libferry-shim.so: a waiter thread of the
 * sync file code waits on (queue, seqno) in slices, so that closing the open that owns the queue
 * (whose queues then go) never races a wait in progress. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim_ferry.h"
#include "sync_file.h"

struct ferry_fence_obj {
	struct ferry_queue *q;
	uint32_t seqno;
	struct shim_dev *owner;
	bool orphaned;    /* the owner closed: its queues are gone */
	int orphan_error; /* what the fence counts as from then on */
	bool inflight;    /* a libferry wait on it is running */
	struct ferry_fence_obj *next;
};

static pthread_mutex_t ff_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ff_cond = PTHREAD_COND_INITIALIZER;
static struct ferry_fence_obj *objs;

/* Long enough to cost nothing, short enough that a close waits little for a slice to end. */
#define SLICE_NS (20ll * 1000 * 1000)

static int obj_wait(void *p)
{
	struct ferry_fence_obj *o = p;
	int r;
	pthread_mutex_lock(&ff_lock);
	for (;;) {
		if (o->orphaned) {
			r = o->orphan_error;
			break;
		}
		o->inflight = true;
		pthread_mutex_unlock(&ff_lock);
		int w = ferry_fence_wait(o->q, o->seqno, SLICE_NS);
		/* -ETIMEDOUT is also a hung fence's own error: the slice ended only if unsignaled. */
		bool over = w != -ETIMEDOUT || ferry_fence_signaled(o->q, o->seqno);
		pthread_mutex_lock(&ff_lock);
		o->inflight = false;
		pthread_cond_broadcast(&ff_cond);
		if (over) {
			r = w;
			break;
		}
	}
	pthread_mutex_unlock(&ff_lock);
	return r;
}

static void obj_release(void *p)
{
	struct ferry_fence_obj *o = p;
	pthread_mutex_lock(&ff_lock);
	struct ferry_fence_obj **pp = &objs;
	while (*pp != o)
		pp = &(*pp)->next;
	*pp = o->next;
	pthread_mutex_unlock(&ff_lock);
	free(o);
}

const struct shim_fence_ops shim_ferry_fence_ops = {
	.driver = "ferry",
	.wait = obj_wait,
	.release = obj_release,
};

struct shim_fence *shim_ferry_fence(struct shim_dev *dev, struct ferry_queue *q, uint32_t seqno, uint32_t queue_id)
{
	char name[32];
	snprintf(name, sizeof(name), "queue%u", queue_id);
	if (ferry_fence_signaled(q, seqno)) /* ready at once, as the kernel's file of a signaled fence */
		return shim_fence_new_signaled(&shim_ferry_fence_ops, (uint64_t)(uintptr_t)q, seqno, name,
					       ferry_fence_wait(q, seqno, 0));
	struct ferry_fence_obj *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->q = q;
	o->seqno = seqno;
	o->owner = dev;
	pthread_mutex_lock(&ff_lock);
	o->next = objs;
	objs = o;
	pthread_mutex_unlock(&ff_lock);
	struct shim_fence *f = shim_fence_new(&shim_ferry_fence_ops, o, (uint64_t)(uintptr_t)q, seqno, name);
	if (!f)
		obj_release(o);
	return f;
}

bool shim_ferry_fence_src(struct shim_fence *f, struct shim_dev *dev, struct shim_fence_src *src)
{
	struct ferry_fence_obj *o = shim_fence_obj(f, &shim_ferry_fence_ops);
	pthread_mutex_lock(&ff_lock);
	bool ok = o && (!dev || o->owner == dev) && !o->orphaned;
	if (ok)
		*src = (struct shim_fence_src){ o->q, o->seqno, o->owner };
	pthread_mutex_unlock(&ff_lock);
	return ok;
}

void shim_ferry_fences_release(struct shim_dev *dev, struct ferry_queue *q)
{
	pthread_mutex_lock(&ff_lock);
	for (struct ferry_fence_obj *o = objs; o; o = o->next) {
		if (o->owner != dev || (q && o->q != q) || o->orphaned)
			continue;
		/* The context goes with the open, and its unfinished work with it. */
		int w = ferry_fence_wait(o->q, o->seqno, 0);
		o->orphan_error = w == -ETIMEDOUT && !ferry_fence_signaled(o->q, o->seqno) ? -ECANCELED : w;
		o->orphaned = true;
	}
	for (;;) {
		bool busy = false;
		for (struct ferry_fence_obj *o = objs; o && !busy; o = o->next)
			busy = o->owner == dev && (!q || o->q == q) && o->inflight;
		if (!busy)
			break;
		pthread_cond_wait(&ff_cond, &ff_lock);
	}
	pthread_mutex_unlock(&ff_lock);
}
