/* The guest side of memory over the network (docs/network.md): wraps a transport that carries
 * no fds (tcp) so libferry still gets a fence page + eventfd per context and a memfd per BO, all
 * local. FenceUpdate and BoData from ferryd are applied here; BOs the guest mapped go to ferryd
 * as BoData (dirty ranges against a snapshot) before each submit that lists them. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ferry/bo_mirror.h"
#include "ferry/fence_page.h"
#include "transport.h"

#define BO_BUCKETS 256u
/* A BoCreated larger than this from a confused server is passed up without pages. */
#define MAX_BO_SIZE (1ull << 36)

struct rbo {
	struct rbo *next;
	uint32_t ctx_id, bo_id;
	int fd;
	uint64_t size;
	dev_t dev;
	ino_t ino;
	uint8_t *map;
	uint8_t *snap; /* what ferryd holds; non-NULL = mirrored (the guest mapped it) */
};

struct rctx {
	struct rctx *next;
	uint32_t id;
	int page_fd, event_fd;
	struct ferry_fence_page *page;
};

/* A BoImport rewritten to name its source: the reply's BO shares the source's local pages. */
struct rimport {
	struct rimport *next;
	uint32_t ctx_id, bo_id;
	uint32_t seq; /* the BoImport's: a refusal answers it */
	int fd;
};

struct remote_transport {
	struct ferry_transport base;
	struct ferry_transport *inner;
	/* Guards the tables against a concurrent recv; never held while the socket blocks. */
	pthread_mutex_t lock;
	struct rctx *ctxs;
	struct rbo *bos[BO_BUCKETS];
	struct rimport *imports;
	struct ferry_wire_counters tx, rx;
	struct ferry_buf out;
	uint8_t *scratch;
	size_t scratch_cap;
};

static unsigned bucket(uint32_t ctx_id, uint32_t bo_id)
{
	return (ctx_id * 2654435761u ^ bo_id * 40503u) % BO_BUCKETS;
}

static struct rbo **find_bo(struct remote_transport *rt, uint32_t ctx_id, uint32_t bo_id)
{
	struct rbo **pp = &rt->bos[bucket(ctx_id, bo_id)];
	while (*pp && !((*pp)->ctx_id == ctx_id && (*pp)->bo_id == bo_id))
		pp = &(*pp)->next;
	return pp;
}

static void bo_free(struct rbo *b)
{
	if (b->map)
		munmap(b->map, b->size);
	free(b->snap);
	close(b->fd);
	free(b);
}

static void drop_bo(struct remote_transport *rt, uint32_t ctx_id, uint32_t bo_id)
{
	struct rbo **pp = find_bo(rt, ctx_id, bo_id);
	struct rbo *b = *pp;
	if (b) {
		*pp = b->next;
		bo_free(b);
	}
}

/* Imports waiting for a BoCreated that will not come: refused (seq) or their context gone. */
static void drop_imports(struct remote_transport *rt, uint32_t ctx_id, uint32_t seq)
{
	struct rimport **pp = &rt->imports;
	while (*pp) {
		struct rimport *imp = *pp;
		if ((seq && imp->seq == seq) || (!seq && imp->ctx_id == ctx_id)) {
			*pp = imp->next;
			close(imp->fd);
			free(imp);
		} else {
			pp = &imp->next;
		}
	}
}

static void drop_ctx(struct remote_transport *rt, uint32_t ctx_id)
{
	drop_imports(rt, ctx_id, 0);
	for (struct rctx **pp = &rt->ctxs; *pp; pp = &(*pp)->next) {
		struct rctx *c = *pp;
		if (c->id != ctx_id)
			continue;
		*pp = c->next;
		munmap(c->page, FERRY_FENCE_PAGE_SIZE);
		close(c->page_fd);
		close(c->event_fd);
		free(c);
		break;
	}
	for (unsigned i = 0; i < BO_BUCKETS; i++) {
		struct rbo **pp = &rt->bos[i];
		while (*pp) {
			struct rbo *b = *pp;
			if (b->ctx_id == ctx_id) {
				*pp = b->next;
				bo_free(b);
			} else {
				pp = &b->next;
			}
		}
	}
}

static struct rctx *find_ctx(struct remote_transport *rt, uint32_t id)
{
	struct rctx *c = rt->ctxs;
	while (c && c->id != id)
		c = c->next;
	return c;
}

/* Sends one frame with the lock released: a send that waits for room may have to let a reader
 * (another thread's pump, or this thread's send_blocked hook) apply what ferryd sent meanwhile,
 * and that reader needs the lock. Only sends (serialised by libferry) change what a send walks. */
/* libferry reads a failure's words from the transport it holds, this one: pass the stream's on. */
static void pass_reason(struct remote_transport *rt)
{
	if (rt->inner->error[0])
		memcpy(rt->base.error, rt->inner->error, sizeof(rt->base.error));
}

static int inner_send(void *arg, const void *frame, size_t len)
{
	struct remote_transport *rt = arg;
	rt->inner->send_blocked = rt->base.send_blocked;
	rt->inner->send_blocked_arg = rt->base.send_blocked_arg;
	pthread_mutex_unlock(&rt->lock);
	int r = ferry_transport_send(rt->inner, frame, len, NULL, 0);
	pthread_mutex_lock(&rt->lock);
	if (r == 0) {
		rt->tx.frames++;
		rt->tx.bytes += len;
	} else {
		pass_reason(rt);
	}
	return r;
}

static int push_listed(struct remote_transport *rt, uint32_t ctx_id, const uint32_t *ids, uint32_t n,
		       const struct ferry_msm_submit_bo *msm, uint32_t nmsm)
{
	for (uint32_t i = 0; i < n + nmsm; i++) {
		uint32_t id = i < n ? ids[i] : msm[i - n].bo_id;
		struct rbo *b = *find_bo(rt, ctx_id, id);
		if (!b || !b->snap)
			continue;
		int r = ferry_bo_mirror_push(ctx_id, id, 0, b->map, b->snap, b->size, inner_send, rt, &rt->tx);
		if (r < 0)
			return r;
	}
	return 0;
}

static struct rbo *find_by_inode(struct remote_transport *rt, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return NULL;
	for (unsigned i = 0; i < BO_BUCKETS; i++)
		for (struct rbo *b = rt->bos[i]; b; b = b->next)
			if (b->dev == st.st_dev && b->ino == st.st_ino)
				return b;
	return NULL;
}

/* BoImport of a local BO's memfd becomes an import by name; anything else has no way across. */
static int rewrite_import(struct remote_transport *rt, struct ferry_msg *m, const int *fds, int nfds)
{
	struct rbo *src = nfds == 1 ? find_by_inode(rt, fds[0]) : NULL;
	if (!src)
		return -EOPNOTSUPP;
	struct rimport *imp = calloc(1, sizeof(*imp));
	if (!imp)
		return -ENOMEM;
	imp->fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0);
	if (imp->fd < 0) {
		free(imp);
		return -errno;
	}
	imp->ctx_id = m->u.bo_import.ctx_id;
	imp->bo_id = m->u.bo_import.bo_id;
	imp->seq = m->seq;
	imp->next = rt->imports;
	rt->imports = imp;
	m->u.bo_import.src_ctx_id = src->ctx_id;
	m->u.bo_import.src_bo_id = src->bo_id;
	ferry_buf_reset(&rt->out);
	return ferry_wire_encode(m, &rt->out);
}

static int remote_send(struct ferry_transport *t, const void *frame, size_t len, const int *fds, int nfds)
{
	struct remote_transport *rt = (struct remote_transport *)t;
	if (len < FERRY_FRAME_HDR_SIZE)
		return -EINVAL;
	size_t plen = len - FERRY_FRAME_HDR_SIZE;
	pthread_mutex_lock(&rt->lock);
	int r = 0;
	if (plen > rt->scratch_cap) {
		free(rt->scratch);
		rt->scratch = aligned_alloc(8, (plen + 7) & ~(size_t)7);
		rt->scratch_cap = rt->scratch ? plen : 0;
		if (!rt->scratch)
			r = -ENOMEM;
	}
	struct ferry_msg m;
	if (r == 0) {
		memcpy(rt->scratch, (const uint8_t *)frame + FERRY_FRAME_HDR_SIZE, plen);
		if (ferry_wire_decode(rt->scratch, plen, &m, NULL) != 0)
			m.kind = FERRY_MSG_NONE; /* goes as it is: ferryd says what is wrong with it */
	}
	if (r == 0) {
		switch (m.kind) {
		case FERRY_MSG_BO_MAP: {
			struct rbo *b = *find_bo(rt, m.u.bo_map.ctx_id, m.u.bo_map.bo_id);
			if (b && b->map && !b->snap) {
				/* ferryd's snapshot starts as zeros too; its BoData reply fills both. */
				b->snap = calloc(1, b->size ? b->size : 1);
				if (!b->snap)
					r = -ENOMEM;
			}
			break;
		}
		case FERRY_MSG_MSM_SUBMIT:
			r = push_listed(rt, m.u.msm_submit.ctx_id, NULL, 0, m.u.msm_submit.bos, m.u.msm_submit.nr_bos);
			break;
		case FERRY_MSG_V3D_SUBMIT_CL:
			r = push_listed(rt, m.u.v3d_submit_cl.ctx_id, m.u.v3d_submit_cl.bo_ids, m.u.v3d_submit_cl.nr_bos,
					NULL, 0);
			break;
		case FERRY_MSG_V3D_SUBMIT_TFU:
			r = push_listed(rt, m.u.v3d_submit_tfu.ctx_id, m.u.v3d_submit_tfu.bo_ids,
					m.u.v3d_submit_tfu.nr_bos, NULL, 0);
			break;
		case FERRY_MSG_V3D_SUBMIT_CSD:
			r = push_listed(rt, m.u.v3d_submit_csd.ctx_id, m.u.v3d_submit_csd.bo_ids,
					m.u.v3d_submit_csd.nr_bos, NULL, 0);
			break;
		case FERRY_MSG_BO_CLOSE:
			drop_bo(rt, m.u.bo_close.ctx_id, m.u.bo_close.bo_id);
			break;
		case FERRY_MSG_CONTEXT_DESTROY:
			drop_ctx(rt, m.u.context_destroy.ctx_id);
			break;
		case FERRY_MSG_BO_IMPORT:
			if (nfds) {
				r = rewrite_import(rt, &m, fds, nfds);
				if (r == 0) {
					frame = rt->out.data;
					len = rt->out.len;
					nfds = 0;
				}
			}
			break;
		default:
			break;
		}
	}
	if (r == 0 && nfds)
		r = -EOPNOTSUPP; /* no fd crosses a network */
	if (r == 0)
		r = inner_send(rt, frame, len);
	pthread_mutex_unlock(&rt->lock);
	return r;
}

static int new_memfd(const char *name, uint64_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Gives libferry a fence page and eventfd of its own, which FenceUpdate keeps current. */
static void adopt_context(struct remote_transport *rt, uint32_t id, struct ferry_transport_frame *out)
{
	if (find_ctx(rt, id))
		return; /* a confused server: libferry fails the create for want of fds */
	struct rctx *c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->id = id;
	c->page_fd = new_memfd("ferry-fence-page", FERRY_FENCE_PAGE_SIZE);
	c->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->page = MAP_FAILED;
	if (c->page_fd >= 0)
		c->page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c->page_fd, 0);
	int a = -1, b = -1;
	if (c->page != MAP_FAILED && c->event_fd >= 0) {
		a = fcntl(c->page_fd, F_DUPFD_CLOEXEC, 0);
		b = fcntl(c->event_fd, F_DUPFD_CLOEXEC, 0);
	}
	if (a < 0 || b < 0) {
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
		if (c->page != MAP_FAILED)
			munmap(c->page, FERRY_FENCE_PAGE_SIZE);
		if (c->page_fd >= 0)
			close(c->page_fd);
		if (c->event_fd >= 0)
			close(c->event_fd);
		free(c);
		return; /* libferry sees a ContextCreated without fds and fails the create */
	}
	ferry_fence_page_init(c->page);
	c->next = rt->ctxs;
	rt->ctxs = c;
	out->fds[0] = a;
	out->fds[1] = b;
	out->nfds = 2;
}

static void adopt_bo(struct remote_transport *rt, const struct ferry_bo_created *bc, struct ferry_transport_frame *out)
{
	/* A BO already known keeps its pages: a send may be walking them right now. */
	if (bc->size == 0 || bc->size > MAX_BO_SIZE || *find_bo(rt, bc->ctx_id, bc->bo_id))
		return;
	int fd = -1;
	for (struct rimport **pp = &rt->imports; *pp; pp = &(*pp)->next) {
		if ((*pp)->ctx_id == bc->ctx_id && (*pp)->bo_id == bc->bo_id) {
			struct rimport *imp = *pp;
			*pp = imp->next;
			fd = imp->fd; /* the source's pages: an import shares them */
			free(imp);
			break;
		}
	}
	if (fd < 0)
		fd = new_memfd("ferry-bo", bc->size);
	if (fd < 0)
		return;
	struct rbo *b = calloc(1, sizeof(*b));
	struct stat st;
	void *map = MAP_FAILED;
	int up = -1;
	if (b && fstat(fd, &st) == 0 && (uint64_t)st.st_size >= bc->size)
		map = mmap(NULL, bc->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map != MAP_FAILED)
		up = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (up < 0) {
		if (map != MAP_FAILED)
			munmap(map, bc->size);
		close(fd);
		free(b);
		return;
	}
	*b = (struct rbo){ .ctx_id = bc->ctx_id, .bo_id = bc->bo_id, .fd = fd, .size = bc->size,
			   .dev = st.st_dev, .ino = st.st_ino, .map = map };
	struct rbo **pp = &rt->bos[bucket(b->ctx_id, b->bo_id)];
	b->next = *pp;
	*pp = b;
	out->fds[0] = up;
	out->nfds = 1;
}

static void fence_update(struct remote_transport *rt, const struct ferry_fence_update *u)
{
	struct rctx *c = find_ctx(rt, u->ctx_id);
	if (!c)
		return;
	for (uint32_t i = 0; i < u->nr_slots; i++) {
		struct ferry_fence_slot *s = &c->page->slots[u->slots[i].queue_id];
		/* The host's order: the error before the seqno that carries it. */
		atomic_store(&s->error, u->slots[i].error);
		atomic_store(&s->error_seqno, u->slots[i].error_seqno);
		atomic_store(&s->signaled, u->slots[i].signaled);
	}
	bool lost = u->lost != atomic_load(&c->page->lost);
	if (lost)
		atomic_store(&c->page->lost, u->lost);
	/* The host's rule (ctx_wake_guest), for this copy of the page. */
	bool due = atomic_load(&c->page->waiters) != 0;
	if (!due && atomic_load(&c->page->seqno_waiters) != 0) {
		due = lost;
		for (uint32_t i = 0; i < u->nr_slots && !due; i++)
			due = ferry_fence_slot_wake_due(&c->page->slots[u->slots[i].queue_id]);
	}
	if (due) {
		uint64_t one = 1;
		ssize_t n = write(c->event_fd, &one, sizeof(one));
		(void)n; /* EAGAIN: already readable */
	}
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int remote_recv(struct ferry_transport *t, int64_t timeout_ns, struct ferry_transport_frame *out)
{
	struct remote_transport *rt = (struct remote_transport *)t;
	int64_t deadline = timeout_ns > 0 ? now_ns() + timeout_ns : timeout_ns;
	for (;;) {
		int64_t left = deadline;
		if (deadline > 0) {
			left = deadline - now_ns();
			if (left < 0)
				left = 0;
		}
		int r = ferry_transport_recv(rt->inner, left, out);
		if (r < 0)
			pass_reason(rt);
		if (r <= 0)
			return r;
		struct ferry_msg m;
		pthread_mutex_lock(&rt->lock);
		rt->rx.frames++;
		rt->rx.bytes += out->len + FERRY_FRAME_HDR_SIZE;
		bool consumed = false;
		if (ferry_wire_decode(out->payload, out->len, &m, NULL) == 0) {
			switch (m.kind) {
			case FERRY_MSG_CONTEXT_CREATED:
				if (out->nfds == 0)
					adopt_context(rt, m.u.context_created.ctx_id, out);
				break;
			case FERRY_MSG_BO_CREATED:
				if (out->nfds == 0)
					adopt_bo(rt, &m.u.bo_created, out);
				break;
			case FERRY_MSG_HELLO_REPLY:
				if (!(m.u.hello_reply.features & FERRY_FEATURE_REMOTE_MEMORY)) {
					/* A ferryd that would never update the local fence pages:
					 * every wait would hang. */
					pthread_mutex_unlock(&rt->lock);
					return -EPROTONOSUPPORT;
				}
				break;
			case FERRY_MSG_ERROR:
			case FERRY_MSG_STATUS_REPLY:
				if (m.seq)
					drop_imports(rt, 0, m.seq);
				break;
			case FERRY_MSG_FENCE_UPDATE:
				fence_update(rt, &m.u.fence_update);
				consumed = true;
				break;
			case FERRY_MSG_BO_DATA: {
				const struct ferry_bo_data *d = &m.u.bo_data;
				struct rbo *b = *find_bo(rt, d->ctx_id, d->bo_id);
				rt->rx.bo_data_frames++;
				rt->rx.bo_data_raw += d->raw_len;
				rt->rx.bo_data_wire += d->data_len;
				/* A BO closed meanwhile: its bytes have nowhere to go. */
				const char *why = NULL;
				if (b && b->map && ferry_bo_mirror_apply(d, b->map, b->snap, b->size, &why) < 0) {
					/* Dropped, the GPU's bytes would be missing once the fence says
					 * done: a server that sends such a thing is not to be trusted on. */
					snprintf(rt->base.error, sizeof(rt->base.error),
						 "bad BoData from the server for BO %u of context %u: %s", d->bo_id,
						 d->ctx_id, why);
					pthread_mutex_unlock(&rt->lock);
					return -EPROTO;
				}
				consumed = true;
				break;
			}
			default:
				break;
			}
		}
		pthread_mutex_unlock(&rt->lock);
		if (!consumed)
			return 1;
		if (timeout_ns == 0)
			deadline = 0;
	}
}

static int remote_poll_fd(const struct ferry_transport *t)
{
	const struct remote_transport *rt = (const struct remote_transport *)t;
	return ferry_transport_poll_fd(rt->inner);
}

static void remote_destroy(struct ferry_transport *t)
{
	struct remote_transport *rt = (struct remote_transport *)t;
	while (rt->ctxs)
		drop_ctx(rt, rt->ctxs->id);
	for (unsigned i = 0; i < BO_BUCKETS; i++)
		while (rt->bos[i]) {
			struct rbo *b = rt->bos[i];
			rt->bos[i] = b->next;
			bo_free(b);
		}
	while (rt->imports) {
		struct rimport *imp = rt->imports;
		rt->imports = imp->next;
		close(imp->fd);
		free(imp);
	}
	ferry_transport_destroy(rt->inner);
	ferry_buf_free(&rt->out);
	free(rt->scratch);
	pthread_mutex_destroy(&rt->lock);
	free(rt);
}

static const struct ferry_transport_ops remote_ops = {
	.send = remote_send,
	.recv = remote_recv,
	.poll_fd = remote_poll_fd,
	.destroy = remote_destroy,
};

int ferry_transport_remote_wrap(struct ferry_transport *inner, struct ferry_transport **out)
{
	*out = NULL;
	struct remote_transport *rt = calloc(1, sizeof(*rt));
	if (!rt) {
		ferry_transport_destroy(inner);
		return -ENOMEM;
	}
	pthread_mutex_init(&rt->lock, NULL);
	rt->base.ops = &remote_ops;
	rt->base.name = inner->name;
	rt->base.no_shared_memory = true;
	rt->inner = inner;
	ferry_buf_init(&rt->out);
	*out = &rt->base;
	return 0;
}

int ferry_transport_wire_counters(struct ferry_transport *t, struct ferry_wire_counters *tx,
				  struct ferry_wire_counters *rx)
{
	if (!t || t->ops != &remote_ops)
		return -EINVAL;
	struct remote_transport *rt = (struct remote_transport *)t;
	pthread_mutex_lock(&rt->lock);
	if (tx)
		*tx = rt->tx;
	if (rx)
		*rx = rt->rx;
	pthread_mutex_unlock(&rt->lock);
	return 0;
}
