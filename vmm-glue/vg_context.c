/* A virtio-gpu context as a ferry client: the packets of each EXECBUFFER (docs/vm.md), the frame
 * stream they carry into the ferry host, and the replies it sends back through the guest-backed
 * reply ring. Everything the guest wrote is checked before use; a context that breaks the rules
 * is refused alone, with the reason in the ring's error word and the log. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ferry/array.h"
#include "vg_ctx_priv.h"

static int reply(void *cookie, const void *frame, size_t len, const int *fds, int nfds);
static const struct ferry_host_client_ops client_ops = { .send = reply };

struct vg_ctx *vg_ctx_new(struct ferry_host *host, uint32_t id, uint64_t key, bool blobs)
{
	struct vg_ctx *c = calloc(1, sizeof(*c));
	if (c) {
		c->id = id;
		c->key = key;
		c->host = host;
		c->blobs = blobs;
	}
	return c;
}

uint32_t vg_ctx_id(const struct vg_ctx *c)
{
	return c->id;
}

uint64_t vg_ctx_merged_bytes(const struct vg_ctx *c)
{
	return c->merged_bytes;
}

static void free_client(struct vg_ctx *c)
{
	vg_ring_free_all(c); /* the rings' pages are read no more */
	if (c->client)
		ferry_host_client_free(c->client);
	c->client = NULL;
	vg_sync_free(c);
}

void vg_ctx_free(struct vg_ctx *c)
{
	free_client(c);
	free(c->backlog);
	free(c->acc);
	free(c->frame_buf);
	free(c);
}

struct vg_res *vg_ctx_res_locked(const struct vg_ctx *c, uint32_t res, uint64_t len)
{
	struct vg_res *r = vg_res_find_locked(res);
	if (!r || !vg_res_attached_locked(r, c->key) || r->iov_bytes < len)
		return NULL;
	return r;
}

/* The ring's header words the host owns, each written alone through the guest's pages: never
 * read_pos, which the guest's reader may store meanwhile. */
static void write_header_locked(struct vg_ctx *c, struct vg_res *r, int error)
{
	uint32_t id[2] = { FERRY_VIRTIO_RING_MAGIC, c->ring_size };
	uint32_t gen = c->page_gen, err = (uint32_t)error;
	vg_res_write_locked(r, offsetof(struct ferry_virtio_ring, magic), id, sizeof(id));
	vg_res_write_locked(r, offsetof(struct ferry_virtio_ring, page_gen), &gen, sizeof(gen));
	if (error)
		vg_res_write_locked(r, offsetof(struct ferry_virtio_ring, error), &err, sizeof(err));
	/* The data before write_pos, write_pos before the guest may read it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	vg_res_write_locked(r, offsetof(struct ferry_virtio_ring, write_pos), &c->write_pos, sizeof(c->write_pos));
}

void vg_ctx_fail(struct vg_ctx *c, int err, const char *why)
{
	if (c->state == VG_REFUSED)
		return;
	/* A ring freed before its context is a guest process that went away (killed): no news. */
	vg_log(err == -EFAULT ? FERRY_LOG_INFO : FERRY_LOG_WARN, "virtio-gpu context %u: %s (%s): refused from now on",
	       c->id, why, strerror(-err));
	if (c->state == VG_FERRY) {
		pthread_mutex_lock(&vg_mem_lock);
		struct vg_res *r = vg_ctx_res_locked(c, c->ring_res, (uint64_t)FERRY_VIRTIO_RING_HEADER);
		if (r)
			write_header_locked(c, r, err);
		pthread_mutex_unlock(&vg_mem_lock);
	}
	c->state = VG_REFUSED;
	c->broken = true;
}

/* Moves what fits of the backlog into the ring. */
static void flush(struct vg_ctx *c)
{
	if (c->state != VG_FERRY)
		return;
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, c->ring_res, (uint64_t)FERRY_VIRTIO_RING_HEADER + c->ring_size);
	struct ferry_virtio_ring h;
	int err = 0;
	if (!r || !vg_res_read_locked(r, 0, &h, sizeof(h))) {
		err = -EFAULT;
	} else if (h.read_pos > c->write_pos || c->write_pos - h.read_pos > c->ring_size) {
		err = -EPROTO; /* a read position the host never made possible */
	} else if (c->backlog_len) {
		uint64_t room = c->ring_size - (c->write_pos - h.read_pos);
		size_t n = room < c->backlog_len ? (size_t)room : c->backlog_len;
		size_t at = (size_t)(c->write_pos & (c->ring_size - 1));
		size_t first = c->ring_size - at < n ? c->ring_size - at : n;
		vg_res_write_locked(r, FERRY_VIRTIO_RING_HEADER + at, c->backlog, first);
		vg_res_write_locked(r, FERRY_VIRTIO_RING_HEADER, c->backlog + first, n - first);
		memmove(c->backlog, c->backlog + n, c->backlog_len - n);
		c->backlog_len -= n;
		c->write_pos += n;
		write_header_locked(c, r, 0);
	}
	pthread_mutex_unlock(&vg_mem_lock);
	if (err)
		vg_ctx_fail(c, err, err == -EFAULT ? "its reply ring is gone" : "its reply ring's read position is impossible");
}

/* The host's reply or event: its fds are taken in here (fence page, BO pages), the frame goes to
 * the ring. */
static int reply(void *cookie, const void *frame, size_t len, const int *fds, int nfds)
{
	struct vg_ctx *c = cookie;
	if (c->broken)
		return -EPIPE;
	if (len > FERRY_FRAME_HDR_SIZE) {
		/* The decoder wants an 8-byte aligned payload. */
		size_t plen = len - FERRY_FRAME_HDR_SIZE;
		uint64_t *aligned = malloc((plen + 7) & ~(size_t)7);
		struct ferry_msg m;
		if (aligned) {
			memcpy(aligned, (const uint8_t *)frame + FERRY_FRAME_HDR_SIZE, plen);
			if (ferry_wire_decode(aligned, plen, &m, NULL) == 0) {
				if (nfds)
					vg_sync_reply(c, &m, fds, nfds);
				/* A wait's answer or a fence event says work retired: its BOs and the
				 * fence page reach the guest before the guest reads the answer. */
				if (m.kind == FERRY_MSG_STATUS_REPLY || m.kind == FERRY_MSG_FENCE_SIGNALED ||
				    m.kind == FERRY_MSG_FAULT_REPORT)
					vg_ctx_publish_pages(c);
			}
			free(aligned);
		}
	}
	if (len > VG_MAX_BACKLOG - c->backlog_len) {
		vg_ctx_fail(c, -ENOBUFS, "its replies pile up unread");
		return -ENOBUFS;
	}
	if (FERRY_ARRAY_RESERVE(c->backlog, c->backlog_cap, c->backlog_len + len, 4096)) {
		vg_ctx_fail(c, -ENOMEM, "no memory for its replies");
		return -ENOMEM;
	}
	memcpy(c->backlog + c->backlog_len, frame, len);
	c->backlog_len += len;
	flush(c);
	return 0;
}

static void hello(struct vg_ctx *c, const uint8_t *p, uint32_t len)
{
	struct ferry_virtio_hello h;
	if (len != sizeof(h)) {
		vg_ctx_fail(c, -EPROTO, "a HELLO of the wrong size");
		return;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != FERRY_VIRTIO_CAPS_MAGIC || h.version != FERRY_VIRTIO_VERSION) {
		vg_ctx_fail(c, -EPROTONOSUPPORT, "a HELLO of another version");
		return;
	}
	/* A power of two (positions wrap with a mask), room for the largest frame. */
	if (h.ring_size < FERRY_MAX_FRAME_SIZE + FERRY_FRAME_HDR_SIZE || h.ring_size > (64u << 20) ||
	    (h.ring_size & (h.ring_size - 1))) {
		vg_ctx_fail(c, -EINVAL, "a reply ring of a size it cannot have");
		return;
	}
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, h.ring_res, (uint64_t)FERRY_VIRTIO_RING_HEADER + h.ring_size);
	if (r) {
		c->ring_res = h.ring_res;
		c->ring_size = h.ring_size;
		struct ferry_virtio_ring z = { 0 };
		vg_res_write_locked(r, 0, &z, sizeof(z));
		write_header_locked(c, r, 0);
	}
	pthread_mutex_unlock(&vg_mem_lock);
	if (!r) {
		vg_ctx_fail(c, -EINVAL, "a reply ring that is not its resource or too small");
		return;
	}
	char name[48];
	snprintf(name, sizeof(name), "virtio-gpu context %u", c->id);
	c->client = ferry_host_client_new(c->host, &client_ops, c, name);
	if (!c->client) {
		vg_ctx_fail(c, -ENOMEM, "no memory for a client");
		return;
	}
	c->state = VG_FERRY;
	vg_log(FERRY_LOG_INFO, "virtio-gpu context %u speaks ferry (reply ring: resource %u, %u bytes)", c->id,
	       c->ring_res, c->ring_size);
}

static void bind(struct vg_ctx *c, const uint8_t *p, uint32_t len)
{
	struct ferry_virtio_bind b;
	if (len != sizeof(b)) {
		vg_ctx_fail(c, -EPROTO, "a BIND of the wrong size");
		return;
	}
	memcpy(&b, p, sizeof(b));
	uint64_t need = b.kind == FERRY_VIRTIO_BIND_FENCE_PAGE ? FERRY_FENCE_PAGE_SIZE : 1;
	if (b.kind != FERRY_VIRTIO_BIND_FENCE_PAGE && b.kind != FERRY_VIRTIO_BIND_BO && b.kind != FERRY_VIRTIO_BIND_RING) {
		vg_ctx_fail(c, -EINVAL, "a BIND of an unknown kind");
		return;
	}
	pthread_mutex_lock(&vg_mem_lock);
	bool ok = vg_ctx_res_locked(c, b.res, need) != NULL;
	pthread_mutex_unlock(&vg_mem_lock);
	if (!ok) {
		vg_ctx_fail(c, -EINVAL, "a BIND of a resource that is not its own or too small");
		return;
	}
	(void)vg_ctx_take_bind(c, b.kind, b.ctx_id, b.bo_id); /* a newer bind of the same object wins */
	if (c->nr_binds == VG_MAX_BINDS) {
		memmove(c->binds, c->binds + 1, (VG_MAX_BINDS - 1) * sizeof(c->binds[0]));
		c->nr_binds--;
	}
	c->binds[c->nr_binds++] = b;
}

uint32_t vg_ctx_take_bind(struct vg_ctx *c, uint32_t kind, uint32_t ctx_id, uint32_t bo_id)
{
	for (uint32_t i = 0; i < c->nr_binds; i++) {
		struct ferry_virtio_bind *b = &c->binds[i];
		if (b->kind == kind && b->ctx_id == ctx_id && (kind != FERRY_VIRTIO_BIND_BO || b->bo_id == bo_id)) {
			uint32_t res = b->res;
			memmove(b, b + 1, (c->nr_binds - i - 1) * sizeof(*b));
			c->nr_binds--;
			return res;
		}
	}
	return 0;
}

void vg_ctx_handle_frame(struct vg_ctx *c, const void *payload, uint32_t plen, const struct ferry_msg *m)
{
	c->frame_no++;
	if (m)
		vg_sync_before_frame(c, m);
	int r = ferry_host_client_handle(c->client, payload, plen, NULL, 0);
	if (m && r >= 0)
		vg_sync_after_frame(c, m);
	/* A ring goes with its context. */
	if (m && r >= 0 && m->kind == FERRY_MSG_CONTEXT_DESTROY)
		vg_ring_drop(c, m->u.context_destroy.ctx_id);
	if (r < 0)
		vg_ctx_fail(c, r, "the host dropped the client");
}

/* One whole frame (length prefix included) from the guest's stream. */
static void frame(struct vg_ctx *c, const uint8_t *f, uint32_t plen)
{
	if (FERRY_ARRAY_RESERVE(c->frame_buf, c->frame_cap, ((size_t)plen + 7) / 8, 1024)) {
		vg_ctx_fail(c, -ENOMEM, "no memory for a frame");
		return;
	}
	uint64_t *payload = c->frame_buf;
	memcpy(payload, f + FERRY_FRAME_HDR_SIZE, plen);
	struct ferry_msg m;
	bool decoded = ferry_wire_decode(payload, plen, &m, NULL) == 0;
	if (decoded && m.kind == FERRY_MSG_RING_CREATE) {
		/* The glue's own: the ring is guest memory it reads (not counted as a stream frame,
		 * as the host does not count it on a socket). */
		vg_ring_create(c, &m);
		return;
	}
	/* Every ring record the guest wrote before this frame is taken before it. */
	if (c->srings)
		c->ring_more |= vg_ring_drain(c, true);
	if (c->state != VG_FERRY)
		return;
	c->sock_seq++;
	vg_ctx_handle_frame(c, payload, plen, decoded ? &m : NULL);
}

static void stream(struct vg_ctx *c, const uint8_t *p, uint32_t len)
{
	/* What is kept is less than one frame, so this bounds the buffer. */
	if (len > FERRY_VIRTIO_MAX_EXECBUFFER) {
		vg_ctx_fail(c, -EMSGSIZE, "a stream packet larger than an EXECBUFFER may be");
		return;
	}
	if (FERRY_ARRAY_RESERVE(c->acc, c->acc_cap, c->acc_len + len, 4096)) {
		vg_ctx_fail(c, -ENOMEM, "no memory for its frames");
		return;
	}
	memcpy(c->acc + c->acc_len, p, len);
	c->acc_len += len;
	size_t off = 0;
	while (c->state == VG_FERRY && c->acc_len - off >= FERRY_FRAME_HDR_SIZE) {
		uint32_t plen;
		memcpy(&plen, c->acc + off, sizeof(plen));
		if (plen == 0 || plen > FERRY_MAX_FRAME_SIZE) {
			vg_ctx_fail(c, -EMSGSIZE, "a frame length the protocol does not allow");
			return;
		}
		if (c->acc_len - off - FERRY_FRAME_HDR_SIZE < plen)
			break;
		frame(c, c->acc + off, plen);
		off += FERRY_FRAME_HDR_SIZE + plen;
	}
	memmove(c->acc, c->acc + off, c->acc_len - off);
	c->acc_len -= off;
}

static void notify(struct vg_ctx *c, const uint8_t *p, uint32_t len)
{
	struct ferry_virtio_notify n;
	if (len != sizeof(n)) {
		vg_ctx_fail(c, -EPROTO, "a NOTIFY of the wrong size");
		return;
	}
	memcpy(&n, p, sizeof(n));
	c->notify_armed = true;
	c->notify_pos = n.read_pos;
	c->notify_gen = n.page_gen;
}

void vg_ctx_submit(struct vg_ctx *c, const uint8_t *buf, size_t len)
{
	size_t off = 0;
	while (c->state != VG_REFUSED && off < len) {
		struct ferry_virtio_packet p;
		if (len - off < sizeof(p)) {
			vg_ctx_fail(c, -EPROTO, "a truncated packet header");
			return;
		}
		memcpy(&p, buf + off, sizeof(p));
		off += sizeof(p);
		if (c->state == VG_NEW && p.op != FERRY_VIRTIO_HELLO) {
			/* A virgl command stream, or anything else: not ours. */
			vg_ctx_fail(c, -EPROTONOSUPPORT, "not a ferry context (its first command is no ferry HELLO)");
			return;
		}
		if (p.len > len - off || ferry_virtio_padded(p.len) > len - off) {
			vg_ctx_fail(c, -EPROTO, "a packet longer than its EXECBUFFER");
			return;
		}
		const uint8_t *body = buf + off;
		off += ferry_virtio_padded(p.len);
		switch (p.op) {
		case FERRY_VIRTIO_HELLO:
			if (c->state != VG_NEW)
				vg_ctx_fail(c, -EPROTO, "a second HELLO");
			else
				hello(c, body, p.len);
			break;
		case FERRY_VIRTIO_STREAM: stream(c, body, p.len); break;
		case FERRY_VIRTIO_BIND: bind(c, body, p.len); break;
		case FERRY_VIRTIO_NOTIFY: notify(c, body, p.len); break;
		case FERRY_VIRTIO_KICK: vg_ring_kick(c, body, p.len); break;
		default: vg_ctx_fail(c, -EPROTO, "an unknown packet"); return;
		}
	}
}

void vg_ctx_reply(struct vg_ctx *c, const void *frame, size_t len)
{
	(void)reply(c, frame, len, NULL, 0);
}

void vg_ctx_poke(struct vg_ctx *c)
{
	if (c->state != VG_FERRY)
		return;
	c->page_gen++;
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, c->ring_res, (uint64_t)FERRY_VIRTIO_RING_HEADER);
	if (r)
		write_header_locked(c, r, 0);
	pthread_mutex_unlock(&vg_mem_lock);
}

void vg_ctx_publish_pages(struct vg_ctx *c)
{
	c->frame_no++;
	if (!vg_sync_pages(c))
		return;
	c->page_gen++;
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, c->ring_res, (uint64_t)FERRY_VIRTIO_RING_HEADER);
	if (r)
		write_header_locked(c, r, 0);
	pthread_mutex_unlock(&vg_mem_lock);
}

void vg_ctx_update(struct vg_ctx *c)
{
	if (c->state != VG_FERRY) {
		if (c->broken && c->client)
			free_client(c);
		return;
	}
	vg_ctx_publish_pages(c);
	flush(c);
	/* Rings of contexts whose work just retired are looked at now: a guest that pipelines
	 * submits rings no doorbell while the host has its work. */
	c->ring_more = c->srings && vg_ring_drain(c, false);
	if (c->broken && c->client)
		free_client(c);
}

bool vg_ctx_ring_more(const struct vg_ctx *c)
{
	return c->state == VG_FERRY && c->ring_more;
}

uint64_t vg_ctx_ring_look_ns(const struct vg_ctx *c)
{
	if (c->state != VG_FERRY)
		return 0;
	if (c->ring_linger)
		return vg_ring_tick_ns();
	return c->ring_watch ? 1000000u : 0;
}

bool vg_ctx_notify_due(const struct vg_ctx *c)
{
	if (c->state != VG_FERRY)
		return true; /* nothing more will come: never hold the guest */
	return c->notify_armed && (c->write_pos != c->notify_pos || c->page_gen != c->notify_gen);
}

void vg_ctx_notify_disarm(struct vg_ctx *c)
{
	c->notify_armed = false;
}

bool vg_ctx_backlogged(const struct vg_ctx *c)
{
	return c->state == VG_FERRY && c->backlog_len > 0;
}

int vg_ctx_event_fds(const struct vg_ctx *c, int *fds, int max)
{
	int n = 0;
	for (const struct vg_fctx *f = c->fctxs; f && n < max; f = f->next)
		if (f->event_fd >= 0)
			fds[n++] = f->event_fd;
	return n;
}
