/* libferry's message pump: one thread at a time (the reader) sleeps in ppoll() on the socket,
 * a wake eventfd and every context's fence eventfd; it routes replies to their waiters by seq,
 * handles events (fence errors, fault reports) and ERRORs of asynchronous requests, and
 * broadcasts so the other waiters re-check their condition. Nobody spins. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void drain_eventfd(int fd)
{
	uint64_t v;
	/* Non-blocking: the host may have written again since poll said readable, or not. */
	ssize_t n = read(fd, &v, sizeof(v));
	(void)n;
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

#define POLL_STACK 16

/* One turn as the reader: poll everything until something happens or the deadline. */
static void read_once(struct ferry_device *dev, int64_t deadline_ns)
{
	struct pollfd stack_pfd[POLL_STACK];
	uint32_t stack_ids[POLL_STACK];
	struct pollfd *pfd = stack_pfd;
	uint32_t *ids = stack_ids;
	size_t n = 2;
	for (struct ferry_context *c = dev->contexts; c; c = c->next)
		n++;
	if (n > POLL_STACK) {
		pfd = calloc(n, sizeof(*pfd));
		ids = calloc(n, sizeof(*ids));
		if (!pfd || !ids) {
			/* Fall back to the socket alone: fence waits still see the page on the
			 * next wakeup, just later. */
			free(pfd);
			free(ids);
			pfd = stack_pfd;
			ids = stack_ids;
			n = 2;
		}
	}
	pfd[0] = (struct pollfd){ .fd = ferry_transport_poll_fd(dev->transport), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = dev->wake_fd, .events = POLLIN };
	size_t i = 2;
	for (struct ferry_context *c = dev->contexts; c && i < n; c = c->next, i++) {
		pfd[i] = (struct pollfd){ .fd = c->event_fd, .events = POLLIN };
		ids[i] = c->id;
	}
	n = i;

	struct timespec ts, *tsp = NULL;
	if (deadline_ns >= 0) {
		int64_t left = deadline_ns - ferry_now_ns();
		if (left < 0)
			left = 0;
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		tsp = &ts;
	}
	pthread_mutex_unlock(&dev->lock);
	int r = ppoll(pfd, n, tsp, NULL);
	int err = errno;
	pthread_mutex_lock(&dev->lock);

	if (r < 0 && err != EINTR) {
		dev->dead = -err;
		ferry_set_error(dev, "poll failed: %s", strerror(err));
	} else if (r > 0) {
		if (pfd[1].revents)
			drain_eventfd(dev->wake_fd);
		/* A context may have been destroyed (and its fd number reused) while we slept:
		 * only drain fds that still belong to the context they were polled for. */
		for (i = 2; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			struct ferry_context *c = ferry_find_context(dev, ids[i]);
			if (c && c->event_fd == pfd[i].fd)
				drain_eventfd(c->event_fd);
		}
		if (pfd[0].revents)
			drain_socket(dev);
	}
	if (pfd != stack_pfd) {
		free(pfd);
		free(ids);
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
