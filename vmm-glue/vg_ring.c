/* Submit rings in a VM (docs/vm.md, "Submit rings"): a ferry context's ring is a guest-backed
 * resource the guest bound (FERRY_VIRTIO_BIND_RING), read in place through a linear view of its
 * pages. The glue is the ring's consumer itself (ferry/submit_ring.h), so each record's frame goes
 * through the same path as a stream frame: BO pages merged before a submit and after it retired.
 * Records are ordered against the EXECBUFFER stream by sock_seq, as on a socket. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry/submit_ring.h"
#include "vg_ctx_priv.h"

/* Records taken in one opportunistic pass of a ring, so one busy guest cannot hold the worker
 * (before a stream frame every record written before it is taken, however many). */
#define RING_BATCH 256u

/* Lingering: for a while after it last took a record a ring stays unarmed and the worker looks
 * at it every RING_TICK_NS instead (FERRY_VG_RING_LINGER_US, docs/vm.md "Submit rings"). A
 * guest that pipelines submits writes its next record within microseconds, but a ring armed the
 * moment it ran dry makes that record ring the doorbell: a KICK EXECBUFFER, which holds the
 * submitting thread far longer than a record takes (~250 us under TCG). Meanwhile the host takes
 * the record, runs dry and arms again, so the next record rings too: the two sides then move in
 * lockstep at the doorbell's rate, a record or two per doorbell (measured: 800 pipelined
 * submits, ~320 doorbells, a quarter of the rate of the runs that escaped it). The worker sleeps
 * between looks (no spin). A guest about to wait for a submit rings for it itself (libferry's
 * fence waits), so a lone submit is not left for the next look. */
#define RING_TICK_NS 100000ull
static uint64_t linger_ns = VG_RING_LINGER_DEFAULT_US * 1000ull;

void vg_ring_set_linger(uint32_t us)
{
	linger_ns = (uint64_t)us * 1000u;
}

uint64_t vg_ring_tick_ns(void)
{
	return linger_ns < RING_TICK_NS ? linger_ns : RING_TICK_NS;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct vg_sring {
	uint32_t ctx_id;
	uint32_t res;
	uint32_t data_size;
	uint64_t gen;      /* the linear view of res the consumer points into */
	struct ferry_ring_consumer cons;
	uint64_t *buf;     /* one record's payload, 8-byte aligned for the decoder */
	uint32_t buf_cap;
	uint64_t kicks;
	uint64_t stalls; /* passes that found a record ahead of the stream */
	uint64_t last_take_ns; /* when it last took a record (0: never), for lingering */
	struct vg_sring *next;
};

static struct vg_sring *find(struct vg_ctx *c, uint32_t ctx_id)
{
	for (struct vg_sring *s = c->srings; s; s = s->next)
		if (s->ctx_id == ctx_id)
			return s;
	return NULL;
}

static void sring_free(struct vg_sring *s)
{
	free(s->buf);
	free(s);
}

static void log_ring(const struct vg_ctx *c, const struct vg_sring *s, const char *what)
{
	vg_log(FERRY_LOG_INFO, "virtio-gpu context %u: submit ring of ferry context %u %s (%u records taken, %llu "
	       "doorbells, %llu stalls)", c->id, s->ctx_id, what, s->cons.records, (unsigned long long)s->kicks,
	       (unsigned long long)s->stalls);
}

void vg_ring_drop(struct vg_ctx *c, uint32_t ctx_id)
{
	for (struct vg_sring **pp = &c->srings; *pp; pp = &(*pp)->next) {
		if ((*pp)->ctx_id == ctx_id) {
			struct vg_sring *s = *pp;
			*pp = s->next;
			log_ring(c, s, "closed");
			sring_free(s);
			return;
		}
	}
}

void vg_ring_free_all(struct vg_ctx *c)
{
	while (c->srings)
		vg_ring_drop(c, c->srings->ctx_id);
}

/* The answer to a RingCreate: RingCreated, or an Error the guest takes as "no ring here". */
static void answer(struct vg_ctx *c, const struct ferry_msg *req, int err, const char *why)
{
	struct ferry_msg m = { .seq = req->seq };
	if (err) {
		m.kind = FERRY_MSG_ERROR;
		m.u.error = (struct ferry_error){ FERRY_MSG_RING_CREATE, err, why };
		vg_log(FERRY_LOG_INFO, "virtio-gpu context %u: no submit ring for ferry context %u: %s", c->id,
		       req->u.ring_create.ctx_id, why);
	} else {
		m.kind = FERRY_MSG_RING_CREATED;
		m.u.ring_created = (struct ferry_ring_created){ req->u.ring_create.ctx_id, req->u.ring_create.data_size,
								c->sock_seq };
	}
	struct ferry_buf out;
	ferry_buf_init(&out);
	if (ferry_wire_encode(&m, &out) == 0)
		vg_ctx_reply(c, out.data, out.len);
	else
		vg_ctx_fail(c, -ENOMEM, "no memory for a reply");
	ferry_buf_free(&out);
}

void vg_ring_create(struct vg_ctx *c, const struct ferry_msg *m)
{
	uint32_t ctx_id = m->u.ring_create.ctx_id, size = m->u.ring_create.data_size;
	/* The bind goes whatever the answer, so a refused ring leaves nothing behind. */
	uint32_t res = vg_ctx_take_bind(c, FERRY_VIRTIO_BIND_RING, ctx_id, 0);
	if (c->blobs) {
		answer(c, m, -EOPNOTSUPP, "submit rings of blob contexts are not made here");
		return;
	}
	if (!ferry_ring_size_ok(size)) {
		answer(c, m, -EINVAL, "a ring size it cannot have");
		return;
	}
	if (!vg_ctx_has_fctx(c, ctx_id)) {
		answer(c, m, -ENOENT, "no such ferry context");
		return;
	}
	if (find(c, ctx_id)) {
		answer(c, m, -EEXIST, "the context has a ring");
		return;
	}
	if (!res) {
		answer(c, m, -EINVAL, "no ring resource bound before it");
		return;
	}
	struct vg_sring *s = calloc(1, sizeof(*s));
	uint32_t cap = ferry_ring_max_payload(size);
	if (s)
		s->buf = malloc(((size_t)cap + 7) & ~(size_t)7);
	if (!s || !s->buf) {
		if (s)
			sring_free(s);
		answer(c, m, -ENOMEM, "no memory for a ring");
		return;
	}
	s->ctx_id = ctx_id;
	s->res = res;
	s->data_size = size;
	s->buf_cap = cap;
	size_t len = (size_t)FERRY_RING_HDR_SIZE + size;
	int err = -EINVAL;
	const char *why = "its ring resource is not its own or too small";
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, res, len);
	void *map = NULL;
	if (r && (err = vg_res_linear_locked(r, len, &map, &s->gen)) < 0)
		why = err == -EXDEV ? "its ring's pages are scattered and guest RAM is not shared memory"
				     : "its ring resource cannot be mapped";
	/* The host writes the header: the guest's producer then checks it as on a socket. */
	if (r && err == 0)
		err = ferry_ring_consumer_init(&s->cons, map, len, true);
	pthread_mutex_unlock(&vg_mem_lock);
	if (err < 0) {
		sring_free(s);
		answer(c, m, err, why);
		return;
	}
	s->next = c->srings;
	c->srings = s;
	answer(c, m, 0, NULL);
	vg_log(FERRY_LOG_INFO, "virtio-gpu context %u: submit ring of ferry context %u (resource %u, %u bytes)", c->id,
	       ctx_id, res, size);
}

/* Whether a record's frame may come through the ring of ctx_id: a request of that context that
 * makes no object (those need a bind and an fd in their reply). */
static bool ring_may_carry(const struct ferry_msg *m, uint32_t ctx_id)
{
	switch (m->kind) {
	case FERRY_MSG_CONTEXT_DESTROY: case FERRY_MSG_QUEUE_CREATE: case FERRY_MSG_QUEUE_CLOSE:
	case FERRY_MSG_BO_CLOSE: case FERRY_MSG_BO_INFO: case FERRY_MSG_BO_CPU_PREP: case FERRY_MSG_MSM_SUBMIT:
	case FERRY_MSG_FENCE_WAIT: case FERRY_MSG_V3D_SUBMIT_CL: case FERRY_MSG_V3D_SUBMIT_TFU:
	case FERRY_MSG_V3D_SUBMIT_CSD: case FERRY_MSG_TIMESTAMP_QUERY: case FERRY_MSG_EXTERNAL_FENCE:
		break;
	default:
		return false;
	}
	/* Every request above opens with its ctx_id. */
	uint32_t id;
	memcpy(&id, &m->u, sizeof(id));
	return id == ctx_id;
}

/* The ring broke a rule: it is read no more, the guest learns why from its error word, and the
 * virtio-gpu context (that guest process's connection) is refused; other guests go on. */
static void ring_broken(struct vg_ctx *c, struct vg_sring *s, int err, const char *why)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, s->res, 0);
	if (vg_res_linear_alive_locked(r, s->gen))
		ferry_ring_fail(&s->cons, err);
	pthread_mutex_unlock(&vg_mem_lock);
	vg_ctx_fail(c, err, why);
}

/* Takes up to max records of s that the stream frames handled so far allow. Returns false once
 * the context failed or the ring went; *left: the batch ended with records left; *stalled: the
 * next record waits for a stream frame. */
static bool drain_one(struct vg_ctx *c, struct vg_sring *s, uint32_t max, bool *left, bool *stalled, bool *waiter)
{
	*left = *stalled = false;
	for (uint32_t taken = 0; c->state == VG_FERRY; taken++) {
		if (taken == max) {
			*left = true;
			return true;
		}
		uint32_t len = 0, seq = 0;
		int rc;
		pthread_mutex_lock(&vg_mem_lock);
		struct vg_res *r = vg_ctx_res_locked(c, s->res, 0);
		if (!vg_res_linear_alive_locked(r, s->gen)) {
			rc = -EFAULT;
		} else if ((rc = ferry_ring_next(&s->cons, s->buf, s->buf_cap, &len, &seq)) == 1) {
			/* A record that lies ahead of the stream waits for it: the stream frame it
			 * follows is on its way, and takes it (the ring alone stalls meanwhile). */
			if (!ferry_ring_seq_le(seq, c->sock_seq)) {
				rc = 0;
				*stalled = true;
				if (s->stalls++ == 0)
					vg_log(FERRY_LOG_DEBUG, "virtio-gpu context %u: a record of ferry context %u "
					       "follows stream frame %u, the host is at %u", c->id, s->ctx_id, seq,
					       c->sock_seq);
			}
			else if (ferry_ring_consume(&s->cons))
				*waiter = true;
		}
		pthread_mutex_unlock(&vg_mem_lock);
		if (rc == 0)
			return true;
		if (rc == -EFAULT) {
			/* The guest let the ring's pages go (as it does right after a ContextDestroy):
			 * what was left in it goes with them. */
			vg_ring_drop(c, s->ctx_id);
			return false;
		}
		if (rc < 0) {
			ring_broken(c, s, rc, rc == -EMSGSIZE ? "a submit ring record larger than the ring allows"
							      : "its submit ring's indices or records are out of bounds");
			return false;
		}
		struct ferry_msg m;
		if (ferry_wire_decode(s->buf, len, &m, NULL) != 0) {
			ring_broken(c, s, -EBADMSG, "a submit ring record that is no frame");
			return false;
		}
		if (!ring_may_carry(&m, s->ctx_id)) {
			ring_broken(c, s, -EPROTO, "a submit ring record of another context or kind");
			return false;
		}
		uint32_t ctx_id = s->ctx_id;
		vg_ctx_handle_frame(c, s->buf, len, &m);
		if (find(c, ctx_id) != s)
			return false; /* a ContextDestroy through the ring ended it */
	}
	return false;
}

bool vg_ring_drain(struct vg_ctx *c, bool all)
{
	bool more = false, waiter = false;
	c->ring_watch = c->ring_linger = false;
	for (struct vg_sring *s = c->srings, *next; s && c->state == VG_FERRY; s = next) {
		next = s->next;
		for (int pass = 0;; pass++) {
			bool left, stalled;
			uint32_t head = s->cons.head;
			/* all: at most what the ring holds, so a vCPU that keeps writing cannot keep
			 * this thread here; the rest is taken as a batch later (ring_more). */
			if (!drain_one(c, s, all ? s->cons.size / FERRY_RING_ALIGN : RING_BATCH, &left, &stalled,
				       &waiter)) {
				/* The list may have changed: the rings not looked at are looked at
				 * again at once (each may be unarmed, waiting for a look). */
				more = true;
				goto out;
			}
			if (s->cons.head != head) /* once per pass that took records, not per record */
				s->last_take_ns = now_ns();
			if (left || pass == 2) {
				more = true;
				break;
			}
			if (stalled)
				break;
			/* Nothing left to take now. Right after it took records the worker looks
			 * again every tick for a while (lingering: the guest's next record would
			 * otherwise ring); while its context has work in flight it looks again when
			 * that work retires, and at least every millisecond (the running work may
			 * wait for a record, an external fence's signal); else the guest is asked for
			 * a doorbell, and a record that arrived meanwhile is taken at once. */
			bool linger = s->last_take_ns && now_ns() - s->last_take_ns < linger_ns;
			pthread_mutex_lock(&vg_mem_lock);
			struct vg_res *r = vg_ctx_res_locked(c, s->res, 0);
			bool alive = vg_res_linear_alive_locked(r, s->gen), armed = true;
			if (alive && (linger || vg_ctx_fctx_busy(c, s->ctx_id))) {
				ferry_ring_disarm(&s->cons);
				if (linger)
					c->ring_linger = true;
				else
					c->ring_watch = true;
			} else if (alive) {
				armed = ferry_ring_arm(&s->cons);
			}
			pthread_mutex_unlock(&vg_mem_lock);
			if (armed)
				break;
		}
	}
out:
	/* A producer sleeps for room on its context's eventfd, which the guest's notifier signals
	 * when page_gen moves. */
	if (waiter)
		vg_ctx_poke(c);
	return more && c->state == VG_FERRY;
}

void vg_ring_kick(struct vg_ctx *c, const uint8_t *p, uint32_t len)
{
	struct ferry_virtio_kick k;
	if (len != sizeof(k)) {
		vg_ctx_fail(c, -EPROTO, "a KICK of the wrong size");
		return;
	}
	memcpy(&k, p, sizeof(k));
	/* A kick may race the ring's end (a ContextDestroy, a refused RingCreate): nothing to do. */
	struct vg_sring *s = k.ctx_id == FERRY_VIRTIO_KICK_ALL ? c->srings : find(c, k.ctx_id);
	if (!s)
		return;
	s->kicks++;
	c->ring_more |= vg_ring_drain(c, false);
}

uint64_t vg_ring_records(const struct vg_ctx *c, uint64_t *kicks)
{
	uint64_t n = 0;
	*kicks = 0;
	for (const struct vg_sring *s = c->srings; s; s = s->next) {
		n += s->cons.records;
		*kicks += s->kicks;
	}
	return n;
}
