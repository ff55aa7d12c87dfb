/* ferryd's remote layer (remote.h): per tcp client, the fence pages and BO fds libferry-host
 * handed out, the guest-mapped BOs' snapshots of what the guest holds, and the submits whose
 * retirement sends GPU-written bytes back. docs/network.md has the model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ferry/fence_page.h>

#include "remote.h"

#define BO_BUCKETS 256u
/* Submits (and BO ids in them) remembered for their written BOs; past this the oldest is
 * forgotten and every fence change re-reads every mapped BO from then on (slower, never wrong). */
#define MAX_WRITES 16384u
#define MAX_WRITE_IDS (256u * 1024u)
#define MSM_BO_WRITE 0x0002u /* MSM_SUBMIT_BO_WRITE */

static uint64_t mirror_slices; /* remote_mirror_slices_total */

struct remote_bo {
	struct remote_bo *next;
	uint32_t ctx_id, bo_id;
	int fd;
	uint64_t size;
	uint8_t *map;  /* the host's pages, once the guest mapped the BO */
	uint8_t *snap; /* what the guest holds: non-NULL = mirrored */
};

struct remote_ctx {
	struct remote_ctx *next;
	struct remote *r;
	uint32_t id;
	int page_fd, event_fd;
	struct ferry_fence_page *page;
	struct ferry_fence_slot_update sent[FERRY_FENCE_PAGE_QUEUES]; /* what the guest has */
	uint32_t sent_lost;
	/* write_all: the fence state every mapped BO was last queued for, so a re-sync of the
	 * same state does not queue them all again. */
	uint32_t pushed[FERRY_FENCE_PAGE_QUEUES];
	uint32_t pushed_lost;
	bool pushed_valid;
};

/* A mapped BO whose diff is due (looked up by id at each slice: it may be gone by then). */
struct remote_job {
	struct remote_job *next;
	uint32_t ctx_id, bo_id, seq;
};

/* A frame for the client held while diff work is pending: nothing may overtake the BoData. */
struct remote_held {
	struct remote_held *next;
	size_t len;
	uint8_t data[];
};

/* A submit that may write these mapped BOs, until its seqno retires. */
struct remote_write {
	struct remote_write *next;
	uint32_t ctx_id, queue_id, seqno, n;
	uint32_t bo_ids[];
};

struct remote {
	int epfd;
	struct remote_ops ops;
	void *cookie;
	char name[96];
	struct remote_ctx *ctxs;
	struct remote_bo *bos[BO_BUCKETS];
	struct remote_write *writes, **writes_tail;
	unsigned nr_writes, nr_write_ids;
	bool write_all; /* a submit was forgotten (MAX_WRITES) */
	unsigned held_fds;
	struct ferry_wire_counters tx, rx;
	bool hello_pending; /* a Hello went to the host: its reply gets FERRY_FEATURE_REMOTE_MEMORY */
	uint32_t hello_seq;
	struct ferry_buf hello;
	struct ferry_buf out;
	uint8_t *scratch; /* 8-aligned copy of an outgoing payload, for decoding */
	size_t scratch_cap;
	/* Diff work still to do (remote_resume), the head's next offset, and the frames held
	 * behind it, in order. */
	struct remote_job *jobs, **jobs_tail;
	uint64_t job_off;
	struct remote_held *held, **held_tail;
	size_t held_bytes;
};

static unsigned bucket(uint32_t ctx_id, uint32_t bo_id)
{
	return (ctx_id * 2654435761u ^ bo_id * 40503u) % BO_BUCKETS;
}

static struct remote_bo **find_bo(struct remote *r, uint32_t ctx_id, uint32_t bo_id)
{
	struct remote_bo **pp = &r->bos[bucket(ctx_id, bo_id)];
	while (*pp && !((*pp)->ctx_id == ctx_id && (*pp)->bo_id == bo_id))
		pp = &(*pp)->next;
	return pp;
}

static void bo_free(struct remote *r, struct remote_bo *b)
{
	if (b->map)
		munmap(b->map, b->size);
	free(b->snap);
	close(b->fd);
	r->held_fds--;
	free(b);
}

static void drop_bo(struct remote *r, uint32_t ctx_id, uint32_t bo_id)
{
	struct remote_bo **pp = find_bo(r, ctx_id, bo_id);
	struct remote_bo *b = *pp;
	if (b) {
		*pp = b->next;
		bo_free(r, b);
	}
}

static void ctx_free(struct remote *r, struct remote_ctx *c)
{
	epoll_ctl(r->epfd, EPOLL_CTL_DEL, c->event_fd, NULL);
	munmap(c->page, FERRY_FENCE_PAGE_SIZE);
	close(c->page_fd);
	close(c->event_fd);
	r->held_fds -= 2;
	free(c);
}

static void drop_ctx(struct remote *r, uint32_t ctx_id)
{
	for (struct remote_ctx **pp = &r->ctxs; *pp; pp = &(*pp)->next) {
		if ((*pp)->id == ctx_id) {
			struct remote_ctx *c = *pp;
			*pp = c->next;
			ctx_free(r, c);
			break;
		}
	}
	for (unsigned i = 0; i < BO_BUCKETS; i++) {
		struct remote_bo **pp = &r->bos[i];
		while (*pp) {
			struct remote_bo *b = *pp;
			if (b->ctx_id == ctx_id) {
				*pp = b->next;
				bo_free(r, b);
			} else {
				pp = &b->next;
			}
		}
	}
	struct remote_write **wp = &r->writes;
	r->writes_tail = &r->writes;
	while (*wp) {
		struct remote_write *w = *wp;
		if (w->ctx_id == ctx_id) {
			*wp = w->next;
			r->nr_writes--;
			r->nr_write_ids -= w->n;
			free(w);
		} else {
			r->writes_tail = &w->next;
			wp = &w->next;
		}
	}
}

struct remote *remote_new(int epfd, const struct remote_ops *ops, void *cookie, const char *name)
{
	struct remote *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->epfd = epfd;
	r->ops = *ops;
	r->cookie = cookie;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->writes_tail = &r->writes;
	r->jobs_tail = &r->jobs;
	r->held_tail = &r->held;
	ferry_buf_init(&r->out);
	ferry_buf_init(&r->hello);
	return r;
}

void remote_free(struct remote *r)
{
	if (!r)
		return;
	while (r->ctxs)
		drop_ctx(r, r->ctxs->id);
	for (unsigned i = 0; i < BO_BUCKETS; i++)
		while (r->bos[i]) {
			struct remote_bo *b = r->bos[i];
			r->bos[i] = b->next;
			bo_free(r, b);
		}
	while (r->writes) {
		struct remote_write *w = r->writes;
		r->writes = w->next;
		free(w);
	}
	while (r->jobs) {
		struct remote_job *j = r->jobs;
		r->jobs = j->next;
		free(j);
	}
	while (r->held) {
		struct remote_held *h = r->held;
		r->held = h->next;
		free(h);
	}
	ferry_buf_free(&r->out);
	ferry_buf_free(&r->hello);
	free(r->scratch);
	free(r);
}

static int raw_send(void *arg, const void *frame, size_t len)
{
	struct remote *r = arg;
	r->tx.frames++;
	r->tx.bytes += len;
	return r->ops.send(r->cookie, frame, len) == 0 ? 0 : -EPIPE;
}

bool remote_pending(const struct remote *r)
{
	return r && r->jobs;
}

/* A frame other than BoData: held behind pending diff work (and behind frames held already),
 * else sent at once. */
static int emit(struct remote *r, const void *frame, size_t len)
{
	if (!r->jobs && !r->held)
		return r->ops.send_frame(r->cookie, frame, len) == 0 ? 0 : -1;
	if (len > r->ops.held_cap || r->held_bytes > r->ops.held_cap - len)
		return -1; /* the client stopped reading: as over its output cap */
	struct remote_held *h = malloc(sizeof(*h) + len);
	if (!h)
		return -1;
	h->next = NULL;
	h->len = len;
	memcpy(h->data, frame, len);
	*r->held_tail = h;
	r->held_tail = &h->next;
	r->held_bytes += len;
	return 0;
}

static int send_msg(struct remote *r, const struct ferry_msg *m)
{
	ferry_buf_reset(&r->out);
	if (ferry_wire_encode(m, &r->out) != 0)
		return -1;
	r->tx.frames++;
	r->tx.bytes += r->out.len;
	return emit(r, r->out.data, r->out.len);
}

static int send_error(struct remote *r, uint32_t seq, enum ferry_msg_kind kind, int err, const char *why)
{
	struct ferry_msg m = { .kind = FERRY_MSG_ERROR, .seq = seq };
	m.u.error = (struct ferry_error){ .request_kind = kind, .error = err, .message = why };
	return send_msg(r, &m);
}

/* The BO's diff, queued for remote_resume: a large BO is compared over several passes. Out of
 * memory for the job, it is done at once (slow, never wrong). */
static int push_bo(struct remote *r, struct remote_bo *b, uint32_t seq)
{
	if (!b->snap)
		return 0;
	struct remote_job *j = malloc(sizeof(*j));
	if (!j) {
		int e = ferry_bo_mirror_push(b->ctx_id, b->bo_id, seq, b->map, b->snap, b->size, raw_send, r,
					     &r->tx);
		return e == 0 || e == -ENOMEM ? 0 : -1;
	}
	*j = (struct remote_job){ .ctx_id = b->ctx_id, .bo_id = b->bo_id, .seq = seq };
	*r->jobs_tail = j;
	r->jobs_tail = &j->next;
	return 0;
}

/* Every mapped BO of ctx_id (or of every context) read back: the conservative path. */
static int push_all(struct remote *r, uint32_t ctx_id, bool any_ctx)
{
	for (unsigned i = 0; i < BO_BUCKETS; i++)
		for (struct remote_bo *b = r->bos[i]; b; b = b->next)
			if ((any_ctx || b->ctx_id == ctx_id) && push_bo(r, b, 0) < 0)
				return -1;
	return 0;
}

static int sync_ctx(struct remote *r, struct remote_ctx *c)
{
	struct ferry_fence_slot_update upd[FERRY_FENCE_PAGE_QUEUES];
	uint32_t now[FERRY_FENCE_PAGE_QUEUES];
	uint32_t n = 0;
	for (uint32_t q = 0; q < FERRY_FENCE_PAGE_QUEUES; q++) {
		const struct ferry_fence_slot *s = &c->page->slots[q];
		/* signaled first: the host stores the error before it, so the error read after
		 * belongs to a seqno at or before the one read. */
		uint32_t sig = atomic_load(&s->signaled);
		struct ferry_fence_slot_update u = { .queue_id = q, .signaled = sig,
						     .error_seqno = atomic_load(&s->error_seqno),
						     .error = atomic_load(&s->error) };
		now[q] = sig;
		if (memcmp(&u, &c->sent[q], sizeof(u)) != 0)
			upd[n++] = u;
	}
	uint32_t lost = atomic_load(&c->page->lost);
	if (n == 0 && lost == c->sent_lost)
		return 0;
	/* The bytes first: a guest that sees the fence signaled must see what the GPU wrote. */
	struct remote_write **wp = &r->writes;
	r->writes_tail = &r->writes;
	while (*wp) {
		struct remote_write *w = *wp;
		if (w->ctx_id != c->id || w->queue_id >= FERRY_FENCE_PAGE_QUEUES ||
		    !(lost || ferry_seqno_passed(now[w->queue_id], w->seqno))) {
			r->writes_tail = &w->next;
			wp = &w->next;
			continue;
		}
		for (uint32_t i = 0; i < w->n; i++) {
			struct remote_bo *b = *find_bo(r, w->ctx_id, w->bo_ids[i]);
			if (b && push_bo(r, b, 0) < 0)
				return -1;
		}
		*wp = w->next;
		r->nr_writes--;
		r->nr_write_ids -= w->n;
		free(w);
	}
	if (r->write_all && !(c->pushed_valid && lost == c->pushed_lost && !memcmp(now, c->pushed, sizeof(now)))) {
		if (push_all(r, 0, true) < 0)
			return -1;
		memcpy(c->pushed, now, sizeof(now));
		c->pushed_lost = lost;
		c->pushed_valid = true;
	}
	/* Diff work pending: the update waits for it (remote_resume syncs again once it is done,
	 * when the fences may have moved on). */
	if (r->jobs)
		return 0;
	struct ferry_msg m = { .kind = FERRY_MSG_FENCE_UPDATE, .seq = 0 };
	m.u.fence_update = (struct ferry_fence_update){ .ctx_id = c->id, .lost = lost, .nr_slots = n, .slots = upd };
	/* Straight out, ahead of frames held behind the work just finished: they were made after
	 * fence states at or before this one, as when nothing is held. */
	ferry_buf_reset(&r->out);
	if (ferry_wire_encode(&m, &r->out) != 0)
		return -1;
	r->tx.frames++;
	r->tx.bytes += r->out.len;
	if (r->ops.send_frame(r->cookie, r->out.data, r->out.len) != 0)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		c->sent[upd[i].queue_id] = upd[i];
	c->sent_lost = lost;
	return 0;
}

int remote_resume(struct remote *r)
{
	if (!r->jobs)
		return 0;
	mirror_slices++;
	uint64_t budget = FERRYD_MIRROR_SLICE_BYTES;
	while (r->jobs && budget) {
		struct remote_job *j = r->jobs;
		struct remote_bo *b = *find_bo(r, j->ctx_id, j->bo_id);
		bool done = true;
		if (b && b->snap && b->map && r->job_off < b->size) {
			uint64_t next, raw0 = r->tx.bo_data_raw;
			int e = ferry_bo_mirror_push_slice(b->ctx_id, b->bo_id, j->seq, b->map, b->snap, b->size,
							   r->job_off, budget, raw_send, r, &r->tx, &next);
			if (e < 0 && e != -ENOMEM)
				return -1;
			/* as push_slice counts it: a byte sent weighs 4 compared ones */
			uint64_t cost = (next > r->job_off ? next - r->job_off : 4096) + 3 * (r->tx.bo_data_raw - raw0);
			budget = cost < budget ? budget - cost : 0;
			done = e < 0 || next >= b->size;
			r->job_off = next;
		} else {
			/* a BO gone (closed, its context destroyed) or never mapped: nothing to send */
			budget = budget > 4096 ? budget - 4096 : 0;
		}
		if (!done)
			break;
		r->jobs = j->next;
		if (!r->jobs)
			r->jobs_tail = &r->jobs;
		r->job_off = 0;
		free(j);
	}
	if (r->jobs)
		return 0;
	/* Done: the fences as they are now (their BoData queued, and sent first if they moved
	 * on), then what was held, in order. */
	if (remote_sync(r) < 0)
		return -1;
	if (r->jobs)
		return 0;
	while (r->held) {
		struct remote_held *h = r->held;
		r->held = h->next;
		r->held_bytes -= h->len;
		int e = r->ops.send_frame(r->cookie, h->data, h->len);
		free(h);
		if (e != 0)
			return -1;
	}
	r->held_tail = &r->held;
	return 0;
}

uint64_t remote_mirror_slices_total(void)
{
	return mirror_slices;
}

int remote_sync(struct remote *r)
{
	for (struct remote_ctx *c = r->ctxs; c; c = c->next)
		if (sync_ctx(r, c) < 0)
			return -1;
	return 0;
}

void remote_events(int epfd)
{
	struct epoll_event evs[64];
	int n = epoll_wait(epfd, evs, 64, 0);
	for (int i = 0; i < n; i++) {
		struct remote_ctx *c = evs[i].data.ptr;
		uint64_t v;
		if (read(c->event_fd, &v, sizeof(v)) < 0) {
			/* EAGAIN: already drained; the sync below reads the page anyway */
		}
		remote_sync(c->r);
	}
}

/* ---- the host's frames with fds ---- */

static int adopt_context(struct remote *r, uint32_t ctx_id, const int *fds, int nfds)
{
	if (nfds != 2)
		return -1;
	struct remote_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->r = r;
	c->id = ctx_id;
	c->page_fd = fcntl(fds[0], F_DUPFD_CLOEXEC, 0);
	c->event_fd = fcntl(fds[1], F_DUPFD_CLOEXEC, 0);
	c->page = MAP_FAILED;
	if (c->page_fd >= 0 && c->event_fd >= 0)
		c->page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c->page_fd, 0);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	if (c->page == MAP_FAILED || epoll_ctl(r->epfd, EPOLL_CTL_ADD, c->event_fd, &ev) < 0) {
		if (c->page != MAP_FAILED)
			munmap(c->page, FERRY_FENCE_PAGE_SIZE);
		if (c->page_fd >= 0)
			close(c->page_fd);
		if (c->event_fd >= 0)
			close(c->event_fd);
		free(c);
		return -1;
	}
	/* A waiter forever: the host then writes the eventfd on every signal, and this layer
	 * forwards the change at once. */
	atomic_store(&c->page->waiters, 1);
	r->held_fds += 2;
	c->next = r->ctxs;
	r->ctxs = c;
	return 0;
}

static int adopt_bo(struct remote *r, const struct ferry_bo_created *bc, const int *fds, int nfds)
{
	if (nfds != 1)
		return -1;
	drop_bo(r, bc->ctx_id, bc->bo_id);
	struct remote_bo *b = calloc(1, sizeof(*b));
	if (!b)
		return -1;
	b->fd = fcntl(fds[0], F_DUPFD_CLOEXEC, 0);
	if (b->fd < 0) {
		free(b);
		return -1;
	}
	b->ctx_id = bc->ctx_id;
	b->bo_id = bc->bo_id;
	b->size = bc->size;
	struct remote_bo **pp = &r->bos[bucket(b->ctx_id, b->bo_id)];
	b->next = *pp;
	*pp = b;
	r->held_fds++;
	return 0;
}

/* The frame's payload decoded from an 8-aligned copy. 0 or -1. */
static int decode_out(struct remote *r, const void *frame, size_t len, struct ferry_msg *m)
{
	if (len < FERRY_FRAME_HDR_SIZE)
		return -1;
	size_t plen = len - FERRY_FRAME_HDR_SIZE;
	if (plen > r->scratch_cap) {
		free(r->scratch);
		r->scratch = aligned_alloc(8, (plen + 7) & ~(size_t)7);
		r->scratch_cap = r->scratch ? plen : 0;
		if (!r->scratch)
			return -1;
	}
	memcpy(r->scratch, (const uint8_t *)frame + FERRY_FRAME_HDR_SIZE, plen);
	return ferry_wire_decode(r->scratch, plen, m, NULL) == 0 ? 0 : -1;
}

int remote_out(struct remote *r, const void *frame, size_t len, const int *fds, int nfds, const void **out,
	       size_t *out_len)
{
	*out = frame;
	*out_len = len;
	if (remote_sync(r) < 0)
		return -1;
	struct ferry_msg m;
	if (r->hello_pending && nfds == 0 && decode_out(r, frame, len, &m) == 0 &&
	    (m.kind == FERRY_MSG_HELLO_REPLY || m.kind == FERRY_MSG_ERROR) && m.seq == r->hello_seq) {
		r->hello_pending = false;
		if (m.kind == FERRY_MSG_HELLO_REPLY) {
			/* Tells the guest its memory is mirrored: a server without this layer would
			 * leave its local fence pages unsignaled forever. */
			m.u.hello_reply.features |= FERRY_FEATURE_REMOTE_MEMORY;
			/* Its BoBatchCreated fds would have no copy here (adopt_bo takes one BO a frame). */
			m.u.hello_reply.features &= ~FERRY_FEATURE_BO_BATCH;
			/* A ring is shared memory: there is none over tcp. */
			m.u.hello_reply.features &= ~FERRY_FEATURE_SUBMIT_RING;
			ferry_buf_reset(&r->hello);
			if (ferry_wire_encode(&m, &r->hello) != 0)
				return -1;
			*out = r->hello.data;
			*out_len = r->hello.len;
		}
	}
	r->tx.frames++;
	r->tx.bytes += *out_len;
	if (nfds) {
		/* Only ContextCreated and BoCreated carry fds. */
		if (decode_out(r, frame, len, &m) != 0)
			return -1;
		int e = m.kind == FERRY_MSG_CONTEXT_CREATED ? adopt_context(r, m.u.context_created.ctx_id, fds, nfds)
			: m.kind == FERRY_MSG_BO_CREATED    ? adopt_bo(r, &m.u.bo_created, fds, nfds)
							    : -1;
		if (e < 0)
			return -1;
	}
	if (!r->jobs && !r->held)
		return 0;
	/* Behind diff work: held here, sent by remote_resume once the BoData before it went. */
	if (emit(r, *out, *out_len) < 0)
		return -1;
	*out = NULL;
	*out_len = 0;
	return 0;
}

/* ---- the guest's frames ---- */

static int bo_map(struct remote *r, const struct ferry_msg *m)
{
	const struct ferry_bo_map *q = &m->u.bo_map;
	struct remote_bo *b = *find_bo(r, q->ctx_id, q->bo_id);
	if (!b)
		return send_error(r, m->seq, m->kind, -ENOENT, "BoMap: no such BO in this context");
	if (!b->map) {
		void *p = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
		if (p == MAP_FAILED)
			return send_error(r, m->seq, m->kind, -errno, "BoMap: the host cannot map this BO");
		b->map = p;
	}
	if (!b->snap) {
		/* Bounded by the client's BO quota: one snapshot per BO, its size. */
		b->snap = calloc(1, b->size ? b->size : 1);
		if (!b->snap)
			return send_error(r, m->seq, m->kind, -ENOMEM, "BoMap: no memory for the BO's mirror");
	}
	/* The reply is held behind the diff (emit), which remote_resume does in slices. */
	if (push_bo(r, b, m->seq) < 0)
		return -1;
	struct ferry_msg rep = { .kind = FERRY_MSG_STATUS_REPLY, .seq = m->seq };
	return send_msg(r, &rep);
}

static int bo_data(struct remote *r, const struct ferry_msg *m)
{
	const struct ferry_bo_data *d = &m->u.bo_data;
	struct remote_bo *b = *find_bo(r, d->ctx_id, d->bo_id);
	if (!b)
		return send_error(r, m->seq, m->kind, -ENOENT, "BoData: no such BO in this context");
	if (!b->snap)
		return send_error(r, m->seq, m->kind, -EINVAL, "BoData for a BO the guest has not mapped (BoMap)");
	const char *why = NULL;
	int e = ferry_bo_mirror_apply(d, b->map, b->snap, b->size, &why);
	r->rx.bo_data_frames++;
	r->rx.bo_data_raw += d->raw_len;
	r->rx.bo_data_wire += d->data_len;
	if (e < 0)
		return send_error(r, m->seq, m->kind, e, why);
	return 0;
}

static void remember_writes(struct remote *r, uint32_t ctx_id, uint32_t queue_id, uint32_t seqno,
			    const uint32_t *ids, uint32_t n, const struct ferry_msm_submit_bo *msm, uint32_t nmsm)
{
	uint32_t count = 0;
	for (uint32_t i = 0; i < nmsm; i++)
		count += (msm[i].flags & MSM_BO_WRITE) != 0;
	count += n;
	if (!count)
		return;
	struct remote_write *w = malloc(sizeof(*w) + (size_t)count * sizeof(uint32_t));
	if (!w) {
		r->write_all = true;
		return;
	}
	*w = (struct remote_write){ .ctx_id = ctx_id, .queue_id = queue_id, .seqno = seqno };
	for (uint32_t i = 0; i < nmsm; i++)
		if (msm[i].flags & MSM_BO_WRITE)
			w->bo_ids[w->n++] = msm[i].bo_id;
	for (uint32_t i = 0; i < n; i++)
		w->bo_ids[w->n++] = ids[i];
	while (r->writes && (r->nr_writes >= MAX_WRITES || r->nr_write_ids + w->n > MAX_WRITE_IDS)) {
		struct remote_write *old = r->writes;
		r->writes = old->next;
		if (!r->writes)
			r->writes_tail = &r->writes;
		r->nr_writes--;
		r->nr_write_ids -= old->n;
		free(old);
		r->write_all = true;
	}
	*r->writes_tail = w;
	r->writes_tail = &w->next;
	r->nr_writes++;
	r->nr_write_ids += w->n;
}

int remote_in(struct remote *r, const void *payload, size_t len, int *fds, int *nfds)
{
	r->rx.frames++;
	r->rx.bytes += len + FERRY_FRAME_HDR_SIZE;
	struct ferry_msg m;
	if (ferry_wire_decode(payload, len, &m, NULL) != 0)
		return 1; /* the host answers it with its own reason */
	switch (m.kind) {
	case FERRY_MSG_HELLO:
		r->hello_pending = true;
		r->hello_seq = m.seq;
		return 1;
	case FERRY_MSG_BO_MAP:
		return bo_map(r, &m) < 0 ? -EPIPE : 0;
	case FERRY_MSG_RING_CREATE:
		return send_error(r, m.seq, m.kind, -EOPNOTSUPP, "RingCreate: a submit ring needs shared memory; "
				  "there is none over tcp") < 0 ? -EPIPE : 0;
	case FERRY_MSG_BO_DATA:
		return bo_data(r, &m) < 0 ? -EPIPE : 0;
	case FERRY_MSG_BO_IMPORT: {
		const struct ferry_bo_import *q = &m.u.bo_import;
		if (!q->src_bo_id || *nfds)
			return 1;
		struct remote_bo *b = *find_bo(r, q->src_ctx_id, q->src_bo_id);
		if (!b)
			return send_error(r, m.seq, m.kind, -ENOENT, "BoImport: no such source BO in this client")
				< 0 ? -EPIPE : 0;
		int d = fcntl(b->fd, F_DUPFD_CLOEXEC, 0);
		if (d < 0)
			return send_error(r, m.seq, m.kind, -EMFILE, "BoImport: ferryd is out of fds") < 0 ? -EPIPE : 0;
		fds[0] = d;
		*nfds = 1;
		return 1;
	}
	case FERRY_MSG_BO_CLOSE:
		drop_bo(r, m.u.bo_close.ctx_id, m.u.bo_close.bo_id);
		return 1;
	case FERRY_MSG_CONTEXT_DESTROY:
		drop_ctx(r, m.u.context_destroy.ctx_id);
		return 1;
	case FERRY_MSG_MSM_SUBMIT: {
		const struct ferry_msm_submit *s = &m.u.msm_submit;
		remember_writes(r, s->ctx_id, s->queue_id, s->seqno, NULL, 0, s->bos, s->nr_bos);
		return 1;
	}
	case FERRY_MSG_V3D_SUBMIT_CL: {
		const struct ferry_v3d_submit_cl *s = &m.u.v3d_submit_cl;
		remember_writes(r, s->ctx_id, s->queue_id, s->seqno, s->bo_ids, s->nr_bos, NULL, 0);
		return 1;
	}
	case FERRY_MSG_V3D_SUBMIT_TFU: {
		const struct ferry_v3d_submit_tfu *s = &m.u.v3d_submit_tfu;
		remember_writes(r, s->ctx_id, s->queue_id, s->seqno, s->bo_ids, s->nr_bos, NULL, 0);
		return 1;
	}
	case FERRY_MSG_V3D_SUBMIT_CSD: {
		const struct ferry_v3d_submit_csd *s = &m.u.v3d_submit_csd;
		remember_writes(r, s->ctx_id, s->queue_id, s->seqno, s->bo_ids, s->nr_bos, NULL, 0);
		return 1;
	}
	default:
		return 1;
	}
}

unsigned remote_held_fds(const struct remote *r)
{
	return r ? r->held_fds : 0;
}

void remote_get_counters(const struct remote *r, struct ferry_wire_counters *tx, struct ferry_wire_counters *rx)
{
	if (tx)
		*tx = r->tx;
	if (rx)
		*rx = r->rx;
}

