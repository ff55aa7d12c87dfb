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
	uint32_t id;
	uint32_t ctx;   /* a NOTIFY's virtio-gpu context */
	bool notify;
	enum state state;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* A ring of the fences not yet written back, oldest at head. */
static struct fence *ring;
static uint32_t cap, head, count;
static int event_fd = -1;
static guint source;
static void (*write_fence_cb)(void *cookie, uint32_t fence);
static void *cookie_cb;

static struct fence *at(uint32_t i)
{
	return &ring[(head + i) % cap];
}

static gboolean on_event(gint fd, GIOCondition cond, gpointer data)
{
	(void)fd;
	(void)cond;
	(void)data;
	vg_fence_poll();
	return G_SOURCE_CONTINUE;
}

int vg_fence_init(void (*write_fence)(void *cookie, uint32_t fence), void *cookie)
{
	event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (event_fd < 0)
		return -errno;
	write_fence_cb = write_fence;
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
	free(ring);
	ring = NULL;
	cap = head = count = 0;
	pthread_mutex_unlock(&lock);
}

int vg_fence_create(uint32_t fence_id, bool notify, uint32_t notify_ctx)
{
	pthread_mutex_lock(&lock);
	if (count == cap) {
		uint32_t ncap = cap ? cap * 2 : 64;
		struct fence *n = ncap > cap ? malloc(ncap * sizeof(*n)) : NULL;
		if (!n) {
			pthread_mutex_unlock(&lock);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < count; i++)
			n[i] = *at(i);
		free(ring);
		ring = n;
		cap = ncap;
		head = 0;
	}
	ring[(head + count++) % cap] = (struct fence){ fence_id, notify_ctx, notify, PENDING };
	pthread_mutex_unlock(&lock);
	vg_log(FERRY_LOG_DEBUG, "fence %u%s", fence_id, notify ? " (NOTIFY)" : "");
	return 0;
}

static void wake_main(void)
{
	uint64_t one = 1;
	if (event_fd >= 0)
		(void)!write(event_fd, &one, sizeof(one));
}

void vg_fence_done(uint32_t fence_id)
{
	pthread_mutex_lock(&lock);
	bool later = false;
	/* From the newest back: this one is done; a NOTIFY held before it is due now, as its fence
	 * would otherwise hold this one back. */
	for (uint32_t i = count; i-- > 0;) {
		struct fence *f = at(i);
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
	for (uint32_t i = 0; i < count; i++) {
		struct fence *f = at(i);
		if (f->state == HELD && (ctx == 0 || f->ctx == ctx)) {
			f->state = DONE;
			any = true;
		}
	}
	pthread_mutex_unlock(&lock);
	if (any)
		wake_main();
	return any;
}

void vg_fence_poll(void)
{
	if (event_fd >= 0) {
		uint64_t v;
		(void)!read(event_fd, &v, sizeof(v));
	}
	pthread_mutex_lock(&lock);
	bool any = false;
	uint32_t last = 0;
	while (count && at(0)->state == DONE) {
		last = at(0)->id;
		any = true;
		head = (head + 1) % cap;
		count--;
	}
	uint32_t waiting = count ? at(0)->id : 0;
	int why = count ? (int)at(0)->state : -1;
	pthread_mutex_unlock(&lock);
	if (any)
		vg_log(FERRY_LOG_DEBUG, "fences up to %u retired (oldest still out: %u, %s)", last, waiting,
		       why == HELD ? "a held NOTIFY" : why == PENDING ? "pending" : "none");
	if (any && write_fence_cb)
		write_fence_cb(cookie_cb, last);
}
