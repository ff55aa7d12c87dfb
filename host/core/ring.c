/* Submit rings on the host (docs/protocol.md "Submit rings"): RingCreate (a sealed memfd and a
 * doorbell eventfd) or an embedder's attached memory, and taking records: before each socket
 * frame those written before it, in ferry_host_dispatch a bounded batch from rings whose doorbell
 * rang or whose context's work moved. A record is copied out (ferry_ring_next), decoded, must be
 * a reply-less request of the ring's own context, and is handled as a socket frame is. A broken
 * ring loses its context, nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ferry/submit_ring.h>

#include "host_bo.h"
#include "host_client.h"
#include "host_context.h"
#include "host_log.h"
#include "ring.h"

/* Records one ring gives per dispatch pass, so one busy ring cannot starve the others. */
#define RING_BATCH 64u
/* An idle context's records go before the busy rings', a few per pass (more go to the tail). */
#define RING_BATCH_IDLE 8u

struct host_ring {
	struct host_ctx *ctx;
	struct ferry_ring_consumer cons;
	void *mem;
	size_t len;
	bool ours;       /* mem is our mapping of the memfd (else the embedder's) */
	int doorbell_fd; /* -1 for an attached ring: the embedder kicks */
	bool broken;
	bool armed;
	bool queued;     /* on h->ring_work or h->ring_work_idle */
	bool woken;      /* on h->ring_work_idle */
	bool stalled;    /* its next record waits for socket frames (c->rings_stalled counts it) */
	struct list link;      /* h->rings */
	struct list work_link; /* h->ring_work */
	struct ferry_host_ring_stats stats;
};

void ring_host_init(struct ferry_host *h)
{
	list_init(&h->rings);
	list_init(&h->ring_work);
	list_init(&h->ring_work_idle);
}

void ring_host_fini(struct ferry_host *h)
{
	free(h->ring_buf);
	h->ring_buf = NULL;
}

static void ring_queue(struct host_ring *r)
{
	struct ferry_host *h = r->ctx->client->host;
	if (r->queued || r->broken)
		return;
	r->queued = true;
	list_add_tail(&h->ring_work, &r->work_link);
}

/* A ring that asked for its doorbell (it ran dry) of a context with nothing in flight: a client
 * waiting on each submit, whose latency is one pass, not a turn behind every busy ring. */
static void ring_queue_woken(struct host_ring *r)
{
	struct ferry_host *h = r->ctx->client->host;
	if (r->queued || r->broken)
		return;
	if (!r->armed || r->ctx->nr_inflight) {
		ring_queue(r);
		return;
	}
	r->queued = r->woken = true;
	list_add_tail(&h->ring_work_idle, &r->work_link);
}

static void ring_unqueue(struct host_ring *r)
{
	if (!r->queued)
		return;
	r->queued = r->woken = false;
	list_del(&r->work_link);
}

static void doorbell_unregister(struct host_ring *r)
{
	if (r->doorbell_fd < 0)
		return;
	struct ferry_host *h = r->ctx->client->host;
	epoll_ctl(h->epfd, EPOLL_CTL_DEL, r->doorbell_fd, NULL);
	close(r->doorbell_fd);
	r->doorbell_fd = -1;
	client_fds_add(r->ctx->client, -(int)HOST_FDS_PER_RING);
}

static void ring_destroy(struct host_ring *r)
{
	struct ferry_host *h = r->ctx->client->host;
	if (r->stalled)
		r->ctx->client->rings_stalled--;
	ring_unqueue(r);
	doorbell_unregister(r);
	if (r->ours && r->mem) {
		munmap(r->mem, r->len);
		r->ctx->client->bo_bytes -= r->len;
	}
	list_del(&r->link);
	h->stats.rings--;
	r->ctx->ring = NULL;
	free(r);
}

void ring_free(struct host_ctx *ctx)
{
	if (ctx->ring)
		ring_destroy(ctx->ring);
}

/* The guest broke the ring: it stops being read, and its context is lost with the reason. */
static void ring_break(struct host_ring *r, int err, const char *what)
{
	struct host_ctx *ctx = r->ctx;
	struct ferry_host *h = ctx->client->host;
	r->broken = true;
	r->stats.error = err;
	h->stats.rings_broken++;
	ferry_ring_fail(&r->cons, err);
	ring_unqueue(r);
	doorbell_unregister(r);
	host_log(h, FERRY_LOG_WARN, "%s: context %u: submit ring broken: %s; the context is lost", ctx->client->peer,
		 ctx->id, what);
	if (!ctx->lost) {
		snprintf(ctx->lost_why, sizeof(ctx->lost_why), "context %u lost: its submit ring broke (%s)", ctx->id,
			 what);
		ctx_mark_lost(ctx);
	}
	ctx_progress(ctx); /* publishes the loss: the guest's waits end */
}

static int ring_setup(struct ferry_host_client *c, struct host_ctx *ctx, void *mem, size_t len, bool ours,
		      int doorbell_fd, struct host_ring **out)
{
	struct ferry_host *h = c->host;
	if (!h->ring_buf) {
		h->ring_buf = aligned_alloc(8, FERRY_RING_MAX_DATA / 4);
		if (!h->ring_buf)
			return -ENOMEM;
	}
	struct host_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	int ret = ferry_ring_consumer_init(&r->cons, mem, len, true);
	if (ret < 0) {
		free(r);
		return ret;
	}
	r->ctx = ctx;
	r->mem = mem;
	r->len = len;
	r->ours = ours;
	r->doorbell_fd = -1;
	list_init(&r->work_link);
	if (doorbell_fd >= 0) {
		/* Edge-triggered: every write to an eventfd is an edge, so the count is never read
		 * back (one syscall less per doorbell). It only grows: a guest that writes it to
		 * its ceiling silences its own doorbell, no one else's. */
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
					  .data.ptr = (void *)((uintptr_t)r | RING_EPOLL_TAG) };
		if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, doorbell_fd, &ev) < 0) {
			ret = -errno;
			free(r);
			return ret;
		}
		r->doorbell_fd = doorbell_fd;
		client_fds_add(c, (int)HOST_FDS_PER_RING);
	}
	/* An empty ring with nothing in flight: the guest's first record rings. */
	r->armed = ferry_ring_arm(&r->cons);
	if (ours)
		c->bo_bytes += len; /* ring_handle_create admitted it */
	list_add_tail(&h->rings, &r->link);
	h->stats.rings++;
	ctx->ring = r;
	*out = r;
	return 0;
}

int ring_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_ring_create *q = &m->u.ring_create;
	struct ferry_host *h = c->host;
	if (h->cfg.no_submit_ring)
		HOST_FAIL(-EOPNOTSUPP, "submit rings are off on this server (ferryd --no-submit-ring)");
	struct host_ctx *ctx = client_lookup_ctx(c, q->ctx_id, why, n);
	if (!ctx)
		return -ENOENT;
	if (ctx->ring)
		HOST_FAIL(-EEXIST, "context %u has a submit ring already", q->ctx_id);
	if (!ferry_ring_size_ok(q->data_size))
		HOST_FAIL(-EINVAL, "ring data size %u is not a power of two in %u..%u", q->data_size,
			  FERRY_RING_MIN_DATA, FERRY_RING_MAX_DATA);
	size_t len = (size_t)FERRY_RING_HDR_SIZE + q->data_size;
	/* Memory the guest made us allocate, as a BO's: without this a client's contexts could
	 * hold up to a MiB each outside every quota. */
	if (len > bo_bytes_room(c))
		HOST_FAIL(-EDQUOT, "client quota: at most %u MiB of BOs and submit rings (ferryd --max-client-bo-mib); "
			  "%llu bytes in use, a ring of %zu asked", h->cfg.max_client_bo_mib,
			  (unsigned long long)c->bo_bytes, len);
	int ret = client_fds_admit(c, HOST_FDS_RING_CREATE, why, n);
	if (ret < 0)
		return ret;
	const char *step = "memfd";
	void *mem = MAP_FAILED;
	int doorbell = -1;
	int fd = memfd_create("ferry-submit-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		goto fail;
	step = "memfd size";
	if (ftruncate(fd, (off_t)len) < 0)
		goto fail;
	/* As the fence page: the guest must not shrink the file under the host's mapping. */
	step = "memfd seals";
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	step = "mmap";
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		goto fail;
	step = "eventfd";
	doorbell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (doorbell < 0)
		goto fail;
	struct host_ring *r;
	ret = ring_setup(c, ctx, mem, len, true, doorbell, &r);
	if (ret < 0) {
		errno = -ret;
		step = "ring setup";
		goto fail;
	}
	struct ferry_msg reply = { .kind = FERRY_MSG_RING_CREATED, .seq = m->seq };
	reply.u.ring_created = (struct ferry_ring_created){ q->ctx_id, q->data_size, c->sock_seq };
	int fds[2] = { fd, doorbell };
	client_send(c, &reply, fds, 2);
	close(fd); /* the mapping stays */
	return 0;
fail:
	ret = -errno;
	if (mem != MAP_FAILED)
		munmap(mem, len);
	if (doorbell >= 0)
		close(doorbell);
	if (fd >= 0)
		close(fd);
	HOST_FAIL(ret, "could not make a submit ring for context %u: %s: %s", q->ctx_id, step, strerror(-ret));
}

/* The context a reply-less request names; false for kinds a ring may not carry. */
static bool ring_kind_ctx(const struct ferry_msg *m, uint32_t *ctx_id)
{
	switch (m->kind) {
	case FERRY_MSG_MSM_SUBMIT: *ctx_id = m->u.msm_submit.ctx_id; return true;
	case FERRY_MSG_V3D_SUBMIT_CL: *ctx_id = m->u.v3d_submit_cl.ctx_id; return true;
	case FERRY_MSG_V3D_SUBMIT_TFU: *ctx_id = m->u.v3d_submit_tfu.ctx_id; return true;
	case FERRY_MSG_V3D_SUBMIT_CSD: *ctx_id = m->u.v3d_submit_csd.ctx_id; return true;
	case FERRY_MSG_BO_CLOSE: *ctx_id = m->u.bo_close.ctx_id; return true;
	case FERRY_MSG_QUEUE_CREATE: *ctx_id = m->u.queue_create.ctx_id; return true;
	case FERRY_MSG_QUEUE_CLOSE: *ctx_id = m->u.queue_close.ctx_id; return true;
	case FERRY_MSG_EXTERNAL_FENCE: *ctx_id = m->u.external_fence.ctx_id; return true;
	default: return false;
	}
}

enum drain_end { DRAIN_EMPTY, DRAIN_STALLED, DRAIN_BUDGET, DRAIN_BROKEN, DRAIN_BUSY, DRAIN_GONE };

static enum drain_end ring_take_one(struct host_ring *r, bool *wake_producer);

/* Takes up to budget records written at or before the client's socket count, and none after
 * deadline (host_now_ns; 0 for none) once one was taken. */
static enum drain_end ring_drain(struct host_ring *r, unsigned budget, int64_t deadline)
{
	struct host_ctx *ctx = r->ctx;
	struct ferry_host_client *c = ctx->client;
	struct ferry_host *h = c->host;
	r->stats.drains++;
	enum drain_end end = DRAIN_BUDGET;
	bool wake_producer = false;
	for (unsigned i = 0; i < budget && end == DRAIN_BUDGET; i++) {
		end = ring_take_one(r, &wake_producer);
		/* After the first record and every 8th: a record takes microseconds, the pass a
		 * millisecond, and a clock read after each record of a burst is time for nothing. */
		if (deadline && end == DRAIN_BUDGET && (i & 7) == 0 && host_now_ns() >= deadline)
			break;
	}
	/* Records are taken with the head told to the guest once per pass (or eighth of the ring),
	 * not per record: each telling pulls the header line from the guest and fences. */
	if (end != DRAIN_GONE && end != DRAIN_BROKEN && ferry_ring_tell_head(&r->cons))
		wake_producer = true;
	if (wake_producer) {
		/* Once per pass, not per record: the guest waits for room on the context's eventfd. */
		uint64_t one = 1;
		if (write(ctx->event_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			host_log(h, FERRY_LOG_WARN, "eventfd write: %s", strerror(errno));
	}
	return end;
}

/* One record: DRAIN_BUDGET when it was taken and handled and more may follow. */
static enum drain_end ring_take_one(struct host_ring *r, bool *wake_producer)
{
	struct host_ctx *ctx = r->ctx;
	struct ferry_host_client *c = ctx->client;
	struct ferry_host *h = c->host;
	if (r->broken)
		return DRAIN_BROKEN;
	uint32_t len = 0, seq = 0;
	int got = ferry_ring_next(&r->cons, h->ring_buf, ferry_ring_max_payload(r->cons.size), &len, &seq);
	if (got == 0)
		return DRAIN_EMPTY;
	if (got < 0) {
		ring_break(r, got, got == -EMSGSIZE ? "a record larger than a quarter of the ring" :
				   "its indices or a record header are out of bounds");
		return DRAIN_BROKEN;
	}
	if (!ferry_ring_seq_le(seq, c->sock_seq)) {
		/* Written after socket frames not handled yet: looked at again once one is. */
		if (!r->stalled) {
			r->stalled = true;
			c->rings_stalled++;
		}
		return DRAIN_STALLED;
	}
	struct ferry_msg m;
	const char *why = NULL;
	char what[200];
	uint32_t ctx_id;
	if (ferry_wire_decode(h->ring_buf, len, &m, &why) < 0) {
		snprintf(what, sizeof(what), "a record that does not decode: %s", why ? why : "malformed");
		ring_break(r, -EBADMSG, what);
		return DRAIN_BROKEN;
	}
	if (!ring_kind_ctx(&m, &ctx_id)) {
		snprintf(what, sizeof(what), "a %s record: only reply-less requests go in a ring",
			 ferry_msg_kind_name(m.kind));
		ring_break(r, -EPROTO, what);
		return DRAIN_BROKEN;
	}
	if (ctx_id != ctx->id) {
		snprintf(what, sizeof(what), "a %s record names context %u", ferry_msg_kind_name(m.kind),
			 ctx_id);
		ring_break(r, -EPROTO, what);
		return DRAIN_BROKEN;
	}
	if (ferry_ring_consume_deferred(&r->cons))
		*wake_producer = true;
	r->stats.records++;
	h->stats.ring_records++;
	int ret = client_handle_msg(c, &m, h->ring_buf, len);
	if (ret == FERRY_HOST_IN_PROGRESS) {
		c->rings_blocked = true;
		return DRAIN_BUSY;
	}
	if (ret == -EPROTO) {
		ring_break(r, -EPROTO, "too many failing requests in a row");
		return DRAIN_BROKEN;
	}
	if (ret < 0)
		return DRAIN_GONE;
	return DRAIN_BUDGET;
}

/* After a drain that emptied the ring: ask for a doorbell before the host sleeps. Also while the
 * context has work in flight: waiting for its retire instead would leave a record the running
 * work depends on (a submit on another queue that releases it) untaken — a deadlock — and the
 * GPU idle between a long job and the next. */
static void ring_settle(struct host_ring *r)
{
	struct ferry_host *h = r->ctx->client->host;
	if (ferry_ring_arm(&r->cons)) {
		r->armed = true;
		r->stats.arms++;
		h->stats.ring_arms++;
	} else {
		ring_queue(r); /* records came meanwhile */
	}
}

int ring_drain_client(struct ferry_host_client *c)
{
	for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
		struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
		struct host_ring *r = ctx->ring;
		if (!r || r->broken)
			continue;
		/* At most what the ring can hold: every record written before the frame is in it
		 * now, and a guest that keeps writing meanwhile must not hold the frame (and this
		 * thread) forever. What is left is taken in ferry_host_dispatch. */
		enum drain_end e = ring_drain(r, r->cons.size / FERRY_RING_ALIGN, 0);
		if (e == DRAIN_BUDGET)
			ring_queue(r);
		if (e == DRAIN_BUSY)
			return FERRY_HOST_IN_PROGRESS;
		if (e == DRAIN_GONE)
			return -EPIPE;
		if (e == DRAIN_EMPTY) {
			/* Settled here too: what it took may have finished at once (no retire to
			 * come), and the guest must know to ring. */
			ring_unqueue(r);
			ring_settle(r);
		}
	}
	return 0;
}

void ring_client_counted(struct ferry_host_client *c)
{
	if (!c->rings_stalled)
		return;
	for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
		struct host_ring *r = list_entry(l, struct host_ctx, link)->ring;
		if (r && r->stalled) {
			r->stalled = false;
			ring_queue(r);
		}
	}
	c->rings_stalled = 0;
}

void ring_client_unblocked(struct ferry_host_client *c)
{
	for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
		struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
		if (ctx->ring)
			ring_queue(ctx->ring);
	}
}

void ring_doorbell(struct ferry_host *h, void *tagged)
{
	struct host_ring *r = (struct host_ring *)((uintptr_t)tagged & ~RING_EPOLL_TAG);
	r->stats.doorbells++;
	h->stats.ring_doorbells++;
	ring_queue_woken(r);
	r->armed = false;
}

void ring_ctx_progress(struct host_ctx *ctx)
{
	struct host_ring *r = ctx->ring;
	if (r && !r->armed)
		ring_queue(r);
}

void ring_dispatch(struct ferry_host *h)
{
	/* One pass over what is queued now, woken idle contexts first, for at most dispatch_pass_us:
	 * rings with records left go to the back, rings not reached this time to the front. */
	struct list pass;
	list_init(&pass);
	list_splice_tail_init(&pass, &h->ring_work_idle);
	list_splice_tail_init(&pass, &h->ring_work);
	if (list_empty(&pass))
		return;
	int64_t deadline = host_now_ns() + (int64_t)h->cfg.dispatch_pass_us * 1000;
	while (!list_empty(&pass)) {
		struct host_ring *r = list_entry(pass.next, struct host_ring, work_link);
		bool woken = r->woken;
		ring_unqueue(r);
		struct ferry_host_client *c = r->ctx->client;
		if (c->gone || c->pending || c->deferred)
			continue; /* ferry_host_client_resume requeues it */
		enum drain_end e = ring_drain(r, woken ? RING_BATCH_IDLE : RING_BATCH, deadline);
		if (e == DRAIN_BUSY) {
			if (c->ops.busy) {
				c->ops.busy(c->cookie);
				continue;
			}
			/* An embedder that cannot resume later: the record is finished now. */
			int ret;
			do
				ret = ferry_host_client_resume(c);
			while (ret == FERRY_HOST_IN_PROGRESS);
			ring_queue(r);
		} else if (e == DRAIN_BUDGET) {
			ring_queue(r);
		} else if (e == DRAIN_EMPTY) {
			ring_settle(r);
		}
		if (!list_empty(&pass) && host_now_ns() >= deadline) { /* none left: no need to ask */
			/* Their turn comes first next pass; rings queued meanwhile after them. */
			list_splice_tail_init(&pass, &h->ring_work);
			list_splice_tail_init(&h->ring_work, &pass);
			break;
		}
	}
}

bool ring_work_pending(const struct ferry_host *h)
{
	return !list_empty(&h->ring_work) || !list_empty(&h->ring_work_idle);
}

bool ferry_host_rings_poll(struct ferry_host *h)
{
	bool any = false;
	for (struct list *l = h->rings.next; l != &h->rings; l = l->next) {
		struct host_ring *r = list_entry(l, struct host_ring, link);
		const struct ferry_host_client *c = r->ctx->client;
		/* Records a dispatch pass would leave where they are do not count as work, or an
		 * embedder polling for it would spin: a stalled ring waits for a socket frame, a
		 * busy client for ferry_host_client_resume (which requeues its rings). */
		if (r->broken || r->queued || r->stalled || c->gone || c->pending || c->deferred)
			continue;
		if (atomic_load_explicit(&r->cons.hdr->tail, memory_order_acquire) != r->cons.head) {
			ring_queue(r);
			any = true;
		}
	}
	return any || ring_work_pending(h);
}

static struct host_ring *client_ring(const struct ferry_host_client *c, uint32_t ctx_id)
{
	struct host_ctx *ctx = ctx_find((struct ferry_host_client *)c, ctx_id);
	return ctx ? ctx->ring : NULL;
}

int ferry_host_client_ring_attach(struct ferry_host_client *c, uint32_t ctx_id, void *mem, size_t len,
				  uint32_t *sock_seq)
{
	if (c->host->cfg.no_submit_ring)
		return -EOPNOTSUPP;
	struct host_ctx *ctx = ctx_find(c, ctx_id);
	if (!ctx)
		return -ENOENT;
	if (ctx->ring)
		return -EEXIST;
	struct host_ring *r;
	int ret = ring_setup(c, ctx, mem, len, false, -1, &r);
	if (ret < 0)
		return ret;
	if (sock_seq)
		*sock_seq = c->sock_seq;
	return 0;
}

void ferry_host_client_ring_kick(struct ferry_host_client *c, uint32_t ctx_id)
{
	struct host_ring *r = client_ring(c, ctx_id);
	if (!r)
		return;
	r->stats.doorbells++;
	c->host->stats.ring_doorbells++;
	ring_queue_woken(r);
	r->armed = false;
}

void ferry_host_client_ring_detach(struct ferry_host_client *c, uint32_t ctx_id)
{
	struct host_ring *r = client_ring(c, ctx_id);
	if (r)
		ring_destroy(r);
}

int ferry_host_client_ring_stats(const struct ferry_host_client *c, uint32_t ctx_id,
				 struct ferry_host_ring_stats *out)
{
	const struct host_ring *r = client_ring(c, ctx_id);
	if (!r)
		return -ENOENT;
	*out = r->stats;
	return 0;
}
