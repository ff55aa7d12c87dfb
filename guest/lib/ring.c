/* libferry's submit rings (docs/protocol.md "Submit rings"): RingCreate after a context is made,
 * and the send path that puts a context's reply-less frames into its ring instead of the socket,
 * ringing the doorbell when the host asked for it, and before a wait on records it has not
 * taken. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static bool rings_wanted(struct ferry_device *dev)
{
	const char *env = getenv("FERRY_RING");
	if (env && strcmp(env, "0") == 0)
		return false;
	/* Shared memory: a unix socket, or virtio-gpu, whose transport makes the ring a guest-backed
	 * resource and hands over its dma-buf and a doorbell as a socket's RingCreated carries them
	 * (docs/vm.md "Submit rings"). A tcp connection has none. */
	return (dev->server_features & FERRY_FEATURE_SUBMIT_RING) && !dev->transport->no_shared_memory &&
	       (strncmp(dev->transport->name, "unix:", 5) == 0 || strncmp(dev->transport->name, "virtio:", 7) == 0);
}

void ferry_ring_setup(struct ferry_context *ctx)
{
	struct ferry_device *dev = ctx->dev;
	ctx->ring_doorbell = -1;
	if (!rings_wanted(dev))
		return;
	struct ferry_msg msg = { .kind = FERRY_MSG_RING_CREATE };
	msg.u.ring_create.ctx_id = ctx->id;
	msg.u.ring_create.data_size = FERRY_RING_DEFAULT_DATA;
	struct ferry_pending *p;
	uint32_t sock_at = 0;
	if (ferry_request_at(dev, &msg, &p, &sock_at) < 0)
		return;
	pthread_mutex_lock(&dev->lock);
	const struct ferry_ring_created *rc = &p->msg.u.ring_created;
	void *mem = MAP_FAILED;
	size_t len = 0;
	if (p->kind == FERRY_MSG_RING_CREATED && p->nfds == 2 && rc->ctx_id == ctx->id &&
	    ferry_ring_size_ok(rc->data_size)) {
		len = (size_t)FERRY_RING_HDR_SIZE + rc->data_size;
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, p->fds[0], 0);
	}
	if (mem != MAP_FAILED && ferry_ring_producer_init(&ctx->ring, mem, len, false) == 0) {
		ctx->ring_mem = mem;
		ctx->ring_len = len;
		ctx->ring_doorbell = p->fds[1];
		p->fds[1] = -1;
		ctx->ring_seq_base = rc->sock_seq;
		ctx->ring_sock_at = sock_at;
		ctx->has_ring = true;
		ctx->ring_stats.active = true;
	} else if (mem != MAP_FAILED) {
		munmap(mem, len);
	}
	/* Without a ring the context works as before; a ring the host made but we cannot use
	 * costs it an fd until the context goes. */
	ferry_pending_free(dev, p);
	pthread_mutex_unlock(&dev->lock);
}

void ferry_ring_teardown(struct ferry_context *ctx)
{
	if (ctx->ring_mem)
		munmap(ctx->ring_mem, ctx->ring_len);
	if (ctx->ring_doorbell >= 0)
		close(ctx->ring_doorbell);
	ctx->ring_mem = NULL;
	ctx->ring_doorbell = -1;
	ctx->has_ring = false;
}

void ferry_context_ring_stats(struct ferry_context *ctx, struct ferry_ring_stats *out)
{
	pthread_mutex_lock(&ctx->dev->send_lock);
	*out = ctx->ring_stats;
	pthread_mutex_unlock(&ctx->dev->send_lock);
}

static bool ring_doorbell_rang(struct ferry_context *ctx)
{
	uint64_t one = 1;
	bool rang;
	/* A transport that rings from this thread (virtio-gpu: no hop through its notifier). */
	struct ferry_transport *t = ctx->dev->transport;
	if (t->ops->ring_doorbell)
		rang = t->ops->ring_doorbell(t, ctx->id) >= 0;
	else /* EAGAIN: the counter is full, the host has a wakeup coming anyway. */
		rang = write(ctx->ring_doorbell, &one, sizeof(one)) == (ssize_t)sizeof(one) || errno == EAGAIN;
	if (rang) {
		ctx->ring_stats.doorbells++;
		ctx->ring_rung = true;
		ctx->ring_rung_tail = ctx->ring.tail;
	}
	return rang;
}

static void ring_doorbell(struct ferry_context *ctx)
{
	if (ring_doorbell_rang(ctx))
		return;
	/* The publish took the host's wakeup flag: give it back, so the next record rings again
	 * rather than leaving the host asleep on records it was never told about. */
	atomic_store_explicit(&ctx->ring.hdr->wakeup, 1, memory_order_release);
}

void ferry_ring_kick_untaken(struct ferry_context *ctx)
{
	struct ferry_device *dev = ctx->dev;
	/* Never waits for the lock: its holder sends (and rings when the host asks), or sleeps
	 * for ring room, having rung; a waiter must not sit behind either beyond its timeout. */
	if (pthread_mutex_trylock(&dev->send_lock) != 0)
		return;
	/* A doorbell the host did not ask for only makes it look: nothing to give back if it
	 * cannot ring (the host takes the records at its next look anyway). None when the last
	 * record already rang it (ferryd asks at once when idle): the host is on its way. */
	if (ctx->has_ring && ferry_ring_used(&ctx->ring) != 0 &&
	    !(ctx->ring_rung && ctx->ring_rung_tail == ctx->ring.tail))
		(void)ring_doorbell_rang(ctx);
	pthread_mutex_unlock(&dev->send_lock);
}

static int ring_broken(struct ferry_context *ctx)
{
	int32_t err = atomic_load_explicit(&ctx->ring.hdr->error, memory_order_acquire);
	if (err == 0 && atomic_load(&ctx->page->lost) == 0)
		return 0;
	ferry_set_error(ctx->dev, "context %u is lost%s", ctx->id,
			err ? ": the host stopped reading its submit ring" : "");
	return -EIO;
}

/* The ring is full: ask the host to say when it took records (it writes the context's eventfd)
 * and sleep until half the ring is free, so a guest faster than the host wakes once per half
 * ring rather than once per record; looks again every millisecond at most, as the reader thread
 * may take the eventfd's wakeup. Gives up when the host broke the ring, lost the context or the
 * connection died. */
static int ring_wait_room(struct ferry_context *ctx)
{
	struct ferry_device *dev = ctx->dev;
	struct ferry_ring_producer *p = &ctx->ring;
	ctx->ring_stats.full_waits++;
	atomic_store_explicit(&p->hdr->producer_waiting, 1, memory_order_seq_cst);
	ring_doorbell(ctx);
	int r = 0;
	for (;;) {
		uint32_t used = ferry_ring_used(p);
		if (used > p->size) {
			/* The host's head is not one it could have written: reserving would fail for
			 * ever. */
			ferry_set_error(dev, "context %u: the host's submit ring head is out of bounds", ctx->id);
			r = -EIO;
			break;
		}
		if (ferry_ring_room_enough(used, p->size))
			break;
		if ((r = ring_broken(ctx)) < 0)
			break;
		/* With no reader thread at the socket, nobody else would notice the host going. */
		ferry_pump_drain_if_idle(dev);
		pthread_mutex_lock(&dev->lock);
		r = dev->dead;
		pthread_mutex_unlock(&dev->lock);
		if (r < 0)
			break;
		struct pollfd pfd = { .fd = ctx->event_fd, .events = POLLIN };
		if (poll(&pfd, 1, 1) > 0) {
			uint64_t v;
			if (read(ctx->event_fd, &v, sizeof(v)) == sizeof(v))
				ferry_wake_reader(dev); /* the reader may have wanted it for a fence */
		}
	}
	atomic_store_explicit(&p->hdr->producer_waiting, 0, memory_order_relaxed);
	return r;
}

int ferry_send_ctx_locked(struct ferry_context *ctx, const struct ferry_msg *msg)
{
	struct ferry_device *dev = ctx->dev;
	if (!ctx->has_ring)
		return ferry_send_locked(dev, msg, NULL, 0);
	struct ferry_ring_producer *p = &ctx->ring;
	ferry_buf_reset(&dev->send_buf);
	int r = ferry_wire_encode(msg, &dev->send_buf);
	if (r < 0)
		return r;
	const uint8_t *payload = dev->send_buf.data + FERRY_FRAME_HDR_SIZE;
	uint32_t len = (uint32_t)(dev->send_buf.len - FERRY_FRAME_HDR_SIZE);
	if (len > ferry_ring_max_payload(p->size)) {
		/* The ordering rule keeps it in its place among the ring's records. */
		ctx->ring_stats.socket_frames++;
		return ferry_send_locked(dev, msg, NULL, 0);
	}
	if ((r = ring_broken(ctx)) < 0)
		return r;
	uint32_t seq = ctx->ring_seq_base + (dev->sock_frames - ctx->ring_sock_at);
	void *dst;
	for (;;) {
		dst = ferry_ring_reserve(p, len, seq, &r);
		if (dst)
			break;
		if (r != -EAGAIN)
			return r;
		if ((r = ring_wait_room(ctx)) < 0)
			return r;
	}
	memcpy(dst, payload, len);
	ctx->ring_stats.records++;
	if (ferry_ring_publish(p))
		ring_doorbell(ctx);
	if (dev->capture)
		ferry_capture_frame(dev, msg, dev->send_buf.data, dev->send_buf.len);
	return 0;
}
