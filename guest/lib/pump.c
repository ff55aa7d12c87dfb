/* libferry's message pump: one thread at a time (the reader) sleeps in epoll on the socket, a
 * wake eventfd and every context's fence eventfd; it routes replies to their waiters by seq,
 * handles events (fence errors, fault reports) and ERRORs of asynchronous requests, and
 * broadcasts so the other waiters re-check their condition. Nobody spins. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int64_t ferry_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t ferry_deadline(int64_t timeout_ns)
{
	if (timeout_ns < 0)
		return -1;
	int64_t now = ferry_now_ns();
	if (timeout_ns > INT64_MAX - now)
		return -1;
	return now + timeout_ns;
}

static void close_fds(int *fds, int nfds)
{
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

struct ferry_pending *ferry_pending_add(struct ferry_device *dev, uint32_t seq,
					enum ferry_msg_kind request)
{
	struct ferry_pending *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->seq = seq;
	p->request = request;
	p->next = dev->pending;
	dev->pending = p;
	return p;
}

void ferry_pending_free(struct ferry_device *dev, struct ferry_pending *p)
{
	for (struct ferry_pending **pp = &dev->pending; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	close_fds(p->fds, p->nfds);
	free(p->text);
	free(p->params);
	free(p);
}

void ferry_async_note(struct ferry_device *dev, uint32_t seq, enum ferry_msg_kind kind,
		      uint32_t ctx_id, uint32_t queue_id, uint32_t seqno)
{
	struct ferry_async_req *a = &dev->async[dev->async_head % FERRY_ASYNC_RING];
	dev->async_head++;
	*a = (struct ferry_async_req){ seq, kind, ctx_id, queue_id, seqno };
}

void ferry_wake_reader(struct ferry_device *dev)
{
	uint64_t one = 1;
	/* Only fails when the counter would overflow, and then the reader is awake anyway. */
	ssize_t n = write(dev->wake_fd, &one, sizeof(one));
	(void)n;
}

static bool is_reply(enum ferry_msg_kind k)
{
	return (k >= FERRY_MSG_HELLO_REPLY && k <= FERRY_MSG_ERROR) || k == FERRY_MSG_BO_BATCH_CREATED ||
	       k == FERRY_MSG_RING_CREATED;
}

static void copy_reply(struct ferry_pending *p, const struct ferry_msg *m, int *fds, int nfds)
{
	p->kind = m->kind;
	p->msg = *m;
	const char *s = NULL;
	switch (m->kind) {
	case FERRY_MSG_HELLO_REPLY:
		s = m->u.hello_reply.server;
		p->msg.u.hello_reply.server = NULL;
		break;
	case FERRY_MSG_DEVICE_INFO:
		s = m->u.device_info.name;
		p->msg.u.device_info.name = NULL;
		p->msg.u.device_info.params = NULL;
		if (m->u.device_info.nr_params) {
			p->params = calloc(m->u.device_info.nr_params, sizeof(*p->params));
			if (p->params)
				memcpy(p->params, m->u.device_info.params,
				       m->u.device_info.nr_params * sizeof(*p->params));
			else
				p->msg.u.device_info.nr_params = 0;
		}
		break;
	case FERRY_MSG_ERROR:
		s = m->u.error.message;
		p->msg.u.error.message = NULL;
		break;
	default:
		break;
	}
	if (s)
		p->text = strdup(s);
	/* Fds are kept only where the reply is defined to carry them. */
	if (m->kind == FERRY_MSG_CONTEXT_CREATED || m->kind == FERRY_MSG_BO_CREATED ||
	    m->kind == FERRY_MSG_BO_BATCH_CREATED || m->kind == FERRY_MSG_RING_CREATED) {
		memcpy(p->fds, fds, (size_t)nfds * sizeof(int));
		p->nfds = nfds;
	} else {
		close_fds(fds, nfds);
	}
	p->done = true;
}

static void async_error(struct ferry_device *dev, const struct ferry_msg *m)
{
	const char *text = m->u.error.message ? m->u.error.message : "";
	const char *req = ferry_msg_kind_name(m->u.error.request_kind);
	ferry_set_error(dev, "%s (seq %u) failed: %s (%s)", req ? req : "request", m->seq, text,
			strerror(-m->u.error.error));
	if (m->seq == 0) {
		if (m->u.error.request_kind == FERRY_MSG_NONE)
			snprintf(dev->refusal, sizeof(dev->refusal), "%s", text);
		return;
	}
	for (uint32_t i = 0; i < FERRY_ASYNC_RING && i < dev->async_head; i++) {
		const struct ferry_async_req *a =
			&dev->async[(dev->async_head - 1 - i) % FERRY_ASYNC_RING];
		if (a->seq != m->seq)
			continue;
		struct ferry_context *ctx = ferry_find_context(dev, a->ctx_id);
		if (!ctx)
			return;
		snprintf(ctx->last_error, sizeof(ctx->last_error), "%s", dev->last_error);
		if (a->kind == FERRY_MSG_EXTERNAL_FENCE) {
			/* A refused add: its seqno fails (the host never had it). */
			struct ferry_queue *q = ferry_find_queue(ctx, a->queue_id);
			if (q)
				ferry_queue_record_error(q, a->seqno, m->u.error.error ? m->u.error.error : -EIO, false);
		} else if (a->kind == FERRY_MSG_MSM_SUBMIT || a->kind == FERRY_MSG_V3D_SUBMIT_CL ||
		    a->kind == FERRY_MSG_V3D_SUBMIT_TFU || a->kind == FERRY_MSG_V3D_SUBMIT_CSD) {
			struct ferry_queue *q = ferry_find_queue(ctx, a->queue_id);
			/* A refused submit is a failure the driver must hear of, as it would a GPU
			 * fault: counted for its fault queries (MSM_PARAM_FAULTS through the shim). */
			ctx->nr_refused++;
			if (q) {
				q->nr_refused++;
				ferry_queue_record_error(q, a->seqno,
							 m->u.error.error ? m->u.error.error : -EIO, true);
			}
		}
		return;
	}
}

static void handle_event(struct ferry_device *dev, const struct ferry_msg *m)
{
	if (m->kind == FERRY_MSG_FENCE_SIGNALED) {
		const struct ferry_fence_signaled *f = &m->u.fence_signaled;
		struct ferry_context *ctx = ferry_find_context(dev, f->ctx_id);
		struct ferry_queue *q = ctx ? ferry_find_queue(ctx, f->queue_id) : NULL;
		if (q && f->status != 0)
			ferry_queue_record_error(q, f->seqno, f->status, false);
	} else if (m->kind == FERRY_MSG_FAULT_REPORT) {
		struct ferry_context *ctx = ferry_find_context(dev, m->u.fault_report.ctx_id);
		if (ctx)
			ferry_context_add_fault(ctx, &m->u.fault_report);
	}
}

/* Routes one received frame; takes ownership of fds. */
static void dispatch(struct ferry_device *dev, const struct ferry_transport_frame *f)
{
	struct ferry_msg m;
	const char *why = NULL;
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds = f->nfds;
	memcpy(fds, f->fds, sizeof(fds));

	if (ferry_wire_decode(f->payload, f->len, &m, &why) < 0) {
		ferry_set_error(dev, "undecodable frame from server: %s", why ? why : "?");
		close_fds(fds, nfds);
		return;
	}
	if (m.seq != 0 && is_reply(m.kind)) {
		for (struct ferry_pending *p = dev->pending; p; p = p->next) {
			if (p->seq != m.seq || p->done)
				continue;
			copy_reply(p, &m, fds, nfds);
			if (m.kind == FERRY_MSG_ERROR)
				ferry_set_error(dev, "%s failed: %s (%s)",
						ferry_msg_kind_name(p->request),
						p->text ? p->text : "", strerror(-m.u.error.error));
			if (p->abandoned)
				ferry_pending_free(dev, p);
			return;
		}
	}
	close_fds(fds, nfds);
	if (m.kind == FERRY_MSG_ERROR)
		async_error(dev, &m);
	else if (m.kind == FERRY_MSG_FENCE_SIGNALED || m.kind == FERRY_MSG_FAULT_REPORT)
		handle_event(dev, &m);
}

/* Reads and dispatches every whole frame available now. Returns 0 or the connection error. */
static int drain_socket(struct ferry_device *dev)
{
	for (;;) {
		struct ferry_transport_frame f;
		int r = ferry_transport_recv(dev->transport, 0, &f);
		if (r == 0)
			return 0;
		if (r < 0) {
			dev->dead = r == -EPIPE || r == -ECONNRESET ? -EPIPE : r;
			ferry_set_connection_lost(dev, r);
			return dev->dead;
		}
		dispatch(dev, &f);
	}
}

int ferry_device_poll_events(struct ferry_device *dev)
{
	int r = 0;
	pthread_mutex_lock(&dev->lock);
	if (!dev->reader_active && !dev->dead) {
		r = drain_socket(dev);
		pthread_cond_broadcast(&dev->cond);
	} else if (dev->dead) {
		r = dev->dead;
	}
	pthread_mutex_unlock(&dev->lock);
	return r;
}

bool ferry_pump_drain_if_idle(void *arg)
{
	struct ferry_device *dev = arg;
	pthread_mutex_lock(&dev->lock);
	bool reader = !dev->reader_active && !dev->dead;
	if (reader) {
		drain_socket(dev);
		pthread_cond_broadcast(&dev->cond);
	}
	pthread_mutex_unlock(&dev->lock);
	return reader;
}

/* The reader's epoll set (dev->epfd): the transport's fd level-triggered, the wake eventfd and
 * every context's eventfd edge-triggered. An eventfd write is an edge even while its count is
 * not zero, so those counts are never read back: a fence wakeup costs the reader one
 * epoll_wait, where a poll over every fd also had to read the eventfd that fired. */
enum { PUMP_TRANSPORT = 1, PUMP_EVENT = 2 };

int ferry_pump_setup(struct ferry_device *dev)
{
	dev->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (dev->epfd < 0)
		return -errno;
	struct epoll_event t = { .events = EPOLLIN, .data.u32 = PUMP_TRANSPORT };
	if (epoll_ctl(dev->epfd, EPOLL_CTL_ADD, ferry_transport_poll_fd(dev->transport), &t) < 0)
		return -errno;
	return ferry_pump_watch(dev, dev->wake_fd);
}

int ferry_pump_watch(struct ferry_device *dev, int event_fd)
{
	struct epoll_event e = { .events = EPOLLIN | EPOLLET, .data.u32 = PUMP_EVENT };
	return epoll_ctl(dev->epfd, EPOLL_CTL_ADD, event_fd, &e) < 0 ? -errno : 0;
}

void ferry_pump_unwatch(struct ferry_device *dev, int event_fd)
{
	/* Before the close: the host holds the same eventfd, so closing ours alone would leave
	 * it in the set. */
	epoll_ctl(dev->epfd, EPOLL_CTL_DEL, event_fd, NULL);
}

/* epoll_pwait2 for a deadline finer than a millisecond; where the kernel, qemu-user (7.2) or a
 * seccomp filter does not have it, epoll_wait with the timeout rounded up. */
static int pump_epoll_wait(int epfd, struct epoll_event *evs, int n, int64_t deadline_ns)
{
	static _Atomic int no_pwait2;
	int64_t left = -1;
	if (deadline_ns >= 0) {
		left = deadline_ns - ferry_now_ns();
		if (left < 0)
			left = 0;
	}
	if (!atomic_load_explicit(&no_pwait2, memory_order_relaxed)) {
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		int r = epoll_pwait2(epfd, evs, n, left >= 0 ? &ts : NULL, NULL);
		if (r >= 0 || (errno != ENOSYS && errno != EPERM))
			return r;
		atomic_store_explicit(&no_pwait2, 1, memory_order_relaxed);
	}
	int ms = left < 0 ? -1 : left > (int64_t)INT32_MAX * 1000000 ? INT32_MAX : (int)((left + 999999) / 1000000);
	return epoll_wait(epfd, evs, n, ms);
}

/* One turn as the reader: waits until something happens or the deadline. A context's eventfd
 * needs nothing more: its waiters look at their pages when woken. */
static void read_once(struct ferry_device *dev, int64_t deadline_ns)
{
	struct epoll_event evs[8];
	pthread_mutex_unlock(&dev->lock);
	int r = pump_epoll_wait(dev->epfd, evs, 8, deadline_ns);
	int err = errno;
	pthread_mutex_lock(&dev->lock);

	if (r < 0 && err != EINTR) {
		dev->dead = -err;
		ferry_set_error(dev, "poll failed: %s", strerror(err));
		return;
	}
	for (int i = 0; i < r; i++) {
		if (evs[i].data.u32 == PUMP_TRANSPORT) {
			drain_socket(dev);
			break;
		}
	}
}

int ferry_pump_wait(struct ferry_device *dev, bool (*done)(void *arg), void *arg,
		    int64_t deadline_ns)
{
	for (;;) {
		if (done(arg))
			return 0;
		if (dev->dead)
			return dev->dead;
		if (deadline_ns >= 0 && ferry_now_ns() >= deadline_ns)
			return -ETIMEDOUT;
		if (dev->reader_active) {
			if (deadline_ns < 0) {
				pthread_cond_wait(&dev->cond, &dev->lock);
			} else {
				struct timespec ts = { deadline_ns / 1000000000,
						       deadline_ns % 1000000000 };
				pthread_cond_timedwait(&dev->cond, &dev->lock, &ts);
			}
			continue;
		}
		dev->reader_active = true;
		read_once(dev, deadline_ns);
		dev->reader_active = false;
		pthread_cond_broadcast(&dev->cond);
	}
}

static bool pending_done(void *arg)
{
	return ((struct ferry_pending *)arg)->done;
}

int ferry_request(struct ferry_device *dev, struct ferry_msg *msg, struct ferry_pending **out)
{
	return ferry_request_at(dev, msg, out, NULL);
}

int ferry_request_at(struct ferry_device *dev, struct ferry_msg *msg, struct ferry_pending **out,
		     uint32_t *sock_at)
{
	*out = NULL;
	msg->seq = ferry_next_seq(dev);
	pthread_mutex_lock(&dev->lock);
	if (dev->dead) {
		int d = dev->dead;
		pthread_mutex_unlock(&dev->lock);
		return d;
	}
	/* Registered before sending: the reply may be read by another thread at once. */
	struct ferry_pending *p = ferry_pending_add(dev, msg->seq, msg->kind);
	pthread_mutex_unlock(&dev->lock);
	if (!p)
		return -ENOMEM;

	pthread_mutex_lock(&dev->send_lock);
	if (sock_at)
		*sock_at = dev->sock_frames;
	int r = ferry_send_locked(dev, msg, NULL, 0);
	pthread_mutex_unlock(&dev->send_lock);
	pthread_mutex_lock(&dev->lock);
	if (r == 0)
		r = ferry_pump_wait(dev, pending_done, p, -1);
	if (r < 0)
		ferry_pending_free(dev, p);
	else
		*out = p;
	pthread_mutex_unlock(&dev->lock);
	return r;
}
