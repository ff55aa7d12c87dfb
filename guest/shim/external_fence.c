/* Fences ferryd cannot name — another process's sync file, another open's fence — as seqnos of
 * the open's external queue (FERRY_QUEUE_KIND_EXTERNAL): a thread waits for the fence and tells
 * ferryd, which holds the submits that wait on the seqno, so FENCE_FD_IN, IMPORT_SYNC_FILE and
 * in-syncobjs never block the caller on them, as the kernel lets the GPU wait instead. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim_ferry.h"
#include "sync_file.h"
#include "sim/sim_thread.h"

struct shim_external {
	pthread_mutex_t lock; /* held while a waiter signals, so the queue cannot close under it */
	unsigned refs;        /* the open's, and one per waiter */
	struct ferry_queue *q; /* NULL once the open closed */
};

struct ext_wait {
	struct shim_external *ext;
	uint32_t seqno;
	struct shim_fence **fs;
	uint32_t n;
};

static void ext_put(struct shim_external *e)
{
	pthread_mutex_lock(&e->lock);
	bool last = --e->refs == 0;
	pthread_mutex_unlock(&e->lock);
	if (last) {
		pthread_mutex_destroy(&e->lock);
		free(e);
	}
}

/* The open's external state with a reference for a waiter, made on first use (its queue too). */
/* A reference to dev's state if it has one (dev->lock, then the state's lock). */
static struct shim_external *ext_ref(struct shim_dev *dev)
{
	pthread_mutex_lock(&dev->lock);
	struct shim_external *e = dev->external;
	if (e) {
		pthread_mutex_lock(&e->lock);
		e->refs++;
		pthread_mutex_unlock(&e->lock);
	}
	pthread_mutex_unlock(&dev->lock);
	return e;
}

static struct shim_external *ext_get(struct shim_dev *dev)
{
	struct shim_external *e = ext_ref(dev);
	while (!e) {
		struct ferry_queue *q;
		if (ferry_queue_create_kind(dev->ctx, FERRY_QUEUE_KIND_EXTERNAL, 0, &q) < 0)
			return NULL;
		struct shim_external *made = calloc(1, sizeof(*made));
		if (!made) {
			ferry_queue_close(q);
			return NULL;
		}
		pthread_mutex_init(&made->lock, NULL);
		made->refs = 1;
		made->q = q;
		/* Two threads may race here: one wins, the other's goes. */
		pthread_mutex_lock(&dev->lock);
		if (!dev->external) {
			dev->external = made;
			made = NULL;
		}
		pthread_mutex_unlock(&dev->lock);
		if (made) {
			ferry_queue_close(q);
			ext_put(made);
		}
		e = ext_ref(dev);
	}
	return e;
}

static void ext_signal(struct ext_wait *w, int err)
{
	pthread_mutex_lock(&w->ext->lock);
	int r = w->ext->q ? ferry_external_fence_signal(w->ext->q, w->seqno, err) : 0;
	pthread_mutex_unlock(&w->ext->lock);
	if (r < 0) /* ferryd is gone: the open's context with it, and what waited on this */
		shim_log(true, "external fence %u: could not tell ferryd it signaled (%s)", w->seqno, strerror(-r));
}

static int wait_all(struct shim_fence **fs, uint32_t n)
{
	int err = 0;
	for (uint32_t i = 0; i < n; i++) {
		int e = shim_fence_wait(fs[i]);
		if (e < 0 && err == 0)
			err = e;
	}
	return err;
}

static void *waiter(void *p)
{
	struct ext_wait *w = p;
	int err = wait_all(w->fs, w->n);
	shim_sync_file_fences_free(w->fs, w->n);
	ext_signal(w, err);
	ext_put(w->ext);
	free(w);
	return NULL;
}

/* ferryd keeps HOST_MAX_EXTERNAL_PER_CTX (1024) external fences per context until they retire
 * in order; past that it refuses the add, and the submit naming it would be refused as a GPU
 * failure. Near it (one fence that never signals holds the rest), the shim waits instead. */
#define EXTERNAL_ROOM 1000u

int shim_external_fence(struct shim_dev *dev, struct shim_fence **fs, uint32_t n, struct shim_fence_src *out)
{
	struct shim_external *e = ext_get(dev);
	struct ext_wait *w = e ? malloc(sizeof(*w)) : NULL;
	if (!w) {
		if (e)
			ext_put(e);
		shim_sync_file_fences_free(fs, n);
		return -ENOMEM;
	}
	*w = (struct ext_wait){ .ext = e, .fs = fs, .n = n };
	pthread_mutex_lock(&e->lock);
	uint32_t next = e->q ? ferry_queue_next_seqno(e->q) : 0;
	if (e->q && next > EXTERNAL_ROOM && !ferry_fence_signaled(e->q, next - EXTERNAL_ROOM)) {
		pthread_mutex_unlock(&e->lock);
		static bool said;
		if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
			shim_log(true, "external fences: %u wait behind one that has not signaled; this and later "
				 "foreign fences are waited for in the ioctl until it does", EXTERNAL_ROOM);
		wait_all(fs, n);
		shim_sync_file_fences_free(fs, n);
		free(w);
		ext_put(e);
		return 1;
	}
	int r = e->q ? ferry_external_fence_add(e->q, &w->seqno) : -ENODEV;
	struct ferry_queue *q = e->q;
	pthread_mutex_unlock(&e->lock);
	if (r < 0) {
		shim_sync_file_fences_free(fs, n);
		free(w);
		ext_put(e);
		return r;
	}
	*out = (struct shim_fence_src){ q, w->seqno, dev };
	if (sim_thread_spawn_detached(waiter, w) != 0)
		waiter(w); /* no thread: wait here, as before external fences */
	return 0;
}

void shim_external_close(struct shim_dev *dev)
{
	pthread_mutex_lock(&dev->lock);
	struct shim_external *e = dev->external;
	dev->external = NULL;
	pthread_mutex_unlock(&dev->lock);
	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	struct ferry_queue *q = e->q;
	e->q = NULL;
	pthread_mutex_unlock(&e->lock);
	/* ferryd fails what the queue still has (-ECANCELED) and releases what waited on it. */
	ferry_queue_close(q);
	ext_put(e);
}
