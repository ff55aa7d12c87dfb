/* virtio-gpu fences for QEMU 7.2: one ordered sequence per device, where write_fence(id) retires
 * every fence up to id. The worker marks fences done; completion reaches QEMU's main thread
 * through an eventfd on GLib's default main context (QEMU's own poll runs only after a batch of
 * commands and on a 10 ms timer), never from inside create_fence. */
#include <errno.h>
#include <glib-unix.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vg.h"

enum state { PENDING, HELD, DONE };

struct fence {
	uint64_t id;
	uint32_t ctx;   /* a NOTIFY's virtio-gpu context */
	bool notify;
	enum state state;
};

/* One ordered sequence: the device's (QEMU 7.2: ctx 0) or one ring of a context (context
 * fences, where a VMM offers them). A ring of the fences not yet written back, oldest at head. */
struct timeline {
	uint32_t ctx, ring_idx;
	struct fence *ring;
	uint32_t cap, head, count;
	struct timeline *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct timeline *timelines;
static int event_fd = -1;
static guint source;
static void (*write_fence_cb)(void *cookie, uint32_t fence);
static void (*write_context_fence_cb)(void *cookie, uint32_t ctx, uint32_t ring_idx, uint64_t fence);
static void *cookie_cb;

static struct fence *at(struct timeline *t, uint32_t i)
{
	return &t->ring[(t->head + i) % t->cap];
}

static struct timeline *find(uint32_t ctx, uint32_t ring_idx, bool make)
{
	struct timeline *t = timelines;
	while (t && (t->ctx != ctx || t->ring_idx != ring_idx))
		t = t->next;
	if (!t && make && (t = calloc(1, sizeof(*t)))) {
		t->ctx = ctx;
		t->ring_idx = ring_idx;
		t->next = timelines;
		timelines = t;
	}
	return t;
}

static gboolean on_event(gint fd, GIOCondition cond, gpointer data)
{
	(void)fd;
	(void)cond;
	(void)data;
	vg_fence_poll();
	return G_SOURCE_CONTINUE;
}

int vg_fence_init(void (*write_fence)(void *cookie, uint32_t fence),
		  void (*write_context_fence)(void *cookie, uint32_t ctx, uint32_t ring_idx, uint64_t fence), void *cookie)
{
	event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (event_fd < 0)
		return -errno;
	write_fence_cb = write_fence;
	write_context_fence_cb = write_context_fence;
	cookie_cb = cookie;
	source = g_unix_fd_add(event_fd, G_IO_IN, on_event, NULL);
	return 0;
}

void vg_fence_fini(void)
{
	if (source)
		g_source_remove(source);
	source = 0;
	if (event_fd >= 0)
		close(event_fd);
	event_fd = -1;
	pthread_mutex_lock(&lock);
	while (timelines) {
		struct timeline *t = timelines;
		timelines = t->next;
		free(t->ring);
		free(t);
	}
	pthread_mutex_unlock(&lock);
}

int vg_fence_create(uint32_t ctx, uint32_t ring_idx, uint64_t fence_id, bool notify, uint32_t notify_ctx)
{
	pthread_mutex_lock(&lock);
	struct timeline *t = find(ctx, ring_idx, true);
	if (t && t->count == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 64;
		struct fence *n = ncap > t->cap ? malloc(ncap * sizeof(*n)) : NULL;
		if (n) {
			for (uint32_t i = 0; i < t->count; i++)
				n[i] = *at(t, i);
			free(t->ring);
			t->ring = n;
			t->cap = ncap;
			t->head = 0;
		}
	}
	if (!t || t->count == t->cap) {
		pthread_mutex_unlock(&lock);
		return -ENOMEM;
	}
	t->ring[(t->head + t->count++) % t->cap] = (struct fence){ fence_id, notify_ctx, notify, PENDING };
	pthread_mutex_unlock(&lock);
	vg_log(FERRY_LOG_DEBUG, "fence %llu of sequence %u.%u%s", (unsigned long long)fence_id, ctx, ring_idx,
	       notify ? " (NOTIFY)" : "");
	return 0;
}

static void wake_main(void)
{
	uint64_t one = 1;
	if (event_fd >= 0)
		(void)!write(event_fd, &one, sizeof(one));
}

void vg_fence_done(uint32_t ctx, uint32_t ring_idx, uint64_t fence_id)
{
	pthread_mutex_lock(&lock);
	struct timeline *t = find(ctx, ring_idx, false);
	bool later = false;
	/* From the newest back: this one is done; a NOTIFY held before it on its sequence is due
	 * now, as its fence would otherwise hold this one back. */
	for (uint32_t i = t ? t->count : 0; i-- > 0;) {
		struct fence *f = at(t, i);
		if (f->id == fence_id && f->state == PENDING) {
			f->state = f->notify ? HELD : DONE;
			later = f->state == DONE;
			if (!later)
				break;
		} else if (later && f->state == HELD) {
			f->state = DONE;
		}
	}
	pthread_mutex_unlock(&lock);
	wake_main();
}

bool vg_fence_release_notify(uint32_t ctx)
{
	pthread_mutex_lock(&lock);
	bool any = false;
	for (struct timeline *t = timelines; t; t = t->next) {
		for (uint32_t i = 0; i < t->count; i++) {
			struct fence *f = at(t, i);
			if (f->state == HELD && (ctx == 0 || f->ctx == ctx)) {
				f->state = DONE;
				any = true;
			}
		}
	}
	pthread_mutex_unlock(&lock);
	if (any)
		wake_main();
	return any;
}

struct done {
	uint32_t ctx, ring_idx;
	uint64_t id;
};

void vg_fence_poll(void)
{
	if (event_fd >= 0) {
		uint64_t v;
		(void)!read(event_fd, &v, sizeof(v));
	}
	struct done done[64];
	uint32_t n = 0;
	pthread_mutex_lock(&lock);
	for (struct timeline *t = timelines; t && n < 64; t = t->next) {
		bool any = false;
		uint64_t last = 0;
		while (t->count && at(t, 0)->state == DONE) {
			last = at(t, 0)->id;
			any = true;
			t->head = (t->head + 1) % t->cap;
			t->count--;
		}
		if (any) {
			done[n++] = (struct done){ t->ctx, t->ring_idx, last };
			/* What holds the sequence back now, for FERRY_VG_LOG_LEVEL=3. */
			int why = t->count ? (int)at(t, 0)->state : -1;
			vg_log(FERRY_LOG_DEBUG, "sequence %u.%u: fences up to %llu retired (oldest still out: %llu, %s)",
			       t->ctx, t->ring_idx, (unsigned long long)last,
			       (unsigned long long)(t->count ? at(t, 0)->id : 0),
			       why == HELD ? "a held NOTIFY" : why == PENDING ? "pending" : "none");
		}
	}
	/* A context's sequences go once empty (a later fence makes them again): a guest that makes
	 * and destroys contexts does not grow this list. */
	for (struct timeline **pp = &timelines; *pp;) {
		struct timeline *t = *pp;
		if (t->ctx != 0 && t->count == 0) {
			*pp = t->next;
			free(t->ring);
			free(t);
		} else {
			pp = &t->next;
		}
	}
	pthread_mutex_unlock(&lock);
	for (uint32_t i = 0; i < n; i++) {
		if (done[i].ctx == 0 && write_fence_cb)
			write_fence_cb(cookie_cb, (uint32_t)done[i].id);
		else if (done[i].ctx != 0 && write_context_fence_cb)
			write_context_fence_cb(cookie_cb, done[i].ctx, done[i].ring_idx, done[i].id);
	}
	if (n == 64)
		wake_main(); /* more timelines than one pass takes */
}
