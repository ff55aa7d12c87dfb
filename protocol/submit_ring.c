/* The submit ring's two ends (ferry/submit_ring.h). The consumer trusts nothing in shared memory:
 * it keeps its own head and size, checks the guest's tail and every record header against them,
 * and copies a record out before anyone reads it. */
#include <errno.h>
#include <string.h>

#include "ferry/submit_ring.h"

static uint32_t align_up(uint32_t v)
{
	return (v + FERRY_RING_ALIGN - 1) & ~(FERRY_RING_ALIGN - 1);
}

static int ring_map(void *mem, size_t len, bool init, struct ferry_ring_header **hdr,
		    uint8_t **data, uint32_t *size)
{
	if (!mem || len < FERRY_RING_HDR_SIZE || !ferry_ring_size_ok(len - FERRY_RING_HDR_SIZE))
		return -EINVAL;
	struct ferry_ring_header *h = mem;
	uint32_t data_size = (uint32_t)(len - FERRY_RING_HDR_SIZE);
	if (init) {
		memset(h, 0, sizeof(*h));
		h->magic = FERRY_RING_MAGIC;
		h->version = FERRY_RING_VERSION;
		h->data_size = data_size;
	} else if (h->magic != FERRY_RING_MAGIC || h->version != FERRY_RING_VERSION ||
		   h->data_size != data_size) {
		return -EINVAL;
	}
	*hdr = h;
	*data = (uint8_t *)mem + FERRY_RING_HDR_SIZE;
	*size = data_size;
	return 0;
}

int ferry_ring_producer_init(struct ferry_ring_producer *p, void *mem, size_t len, bool init)
{
	memset(p, 0, sizeof(*p));
	int r = ring_map(mem, len, init, &p->hdr, &p->data, &p->size);
	if (r < 0)
		return r;
	p->tail = atomic_load_explicit(&p->hdr->tail, memory_order_relaxed);
	return 0;
}

uint32_t ferry_ring_used(const struct ferry_ring_producer *p)
{
	return p->tail - atomic_load_explicit(&p->hdr->head, memory_order_acquire);
}

void *ferry_ring_reserve(struct ferry_ring_producer *p, uint32_t len, uint32_t sock_seq, int *err)
{
	*err = 0;
	if (len > ferry_ring_max_payload(p->size)) {
		*err = -EMSGSIZE;
		return NULL;
	}
	uint32_t rec = align_up((uint32_t)sizeof(struct ferry_ring_record) + len);
	uint32_t off = p->tail & (p->size - 1);
	uint32_t to_end = p->size - off;
	uint32_t need = rec + (to_end < rec ? to_end : 0);
	uint32_t used = ferry_ring_used(p);
	if (used > p->size || p->size - used < need) {
		*err = -EAGAIN;
		return NULL;
	}
	if (to_end < rec) {
		/* Records never wrap: pad to the end. to_end is a multiple of the alignment, so the
		 * padding record's header fits. */
		struct ferry_ring_record pad = { to_end, FERRY_RING_REC_PAD, sock_seq, 0 };
		memcpy(p->data + off, &pad, sizeof(pad));
		p->tail += to_end;
		off = 0;
	}
	struct ferry_ring_record r = { rec, FERRY_RING_REC_FRAME, sock_seq, len };
	memcpy(p->data + off, &r, sizeof(r));
	p->pending = rec;
	return p->data + off + sizeof(r);
}

bool ferry_ring_publish(struct ferry_ring_producer *p)
{
	p->tail += p->pending;
	p->pending = 0;
	atomic_store_explicit(&p->hdr->tail, p->tail, memory_order_release);
	/* Pairs with the host's arm: either it sees the new tail, or we see its wakeup flag. */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&p->hdr->wakeup, memory_order_relaxed))
		return false;
	return atomic_exchange_explicit(&p->hdr->wakeup, 0, memory_order_acq_rel) != 0;
}

int ferry_ring_consumer_init(struct ferry_ring_consumer *c, void *mem, size_t len, bool init)
{
	memset(c, 0, sizeof(*c));
	struct ferry_ring_header *hdr;
	uint8_t *data;
	int r = ring_map(mem, len, init, &hdr, &data, &c->size);
	if (r < 0)
		return r;
	c->hdr = hdr;
	c->data = data;
	c->head = 0;
	c->next = 0;
	if (!init) {
		/* A ring the guest made starts where its indices say, but both must agree. */
		c->head = atomic_load_explicit(&hdr->head, memory_order_relaxed);
		if (atomic_load_explicit(&hdr->tail, memory_order_relaxed) != c->head)
			return -EINVAL;
		c->next = c->head;
	}
	c->published = c->tail_seen = c->head;
	return 0;
}

int ferry_ring_next(struct ferry_ring_consumer *c, void *buf, uint32_t cap, uint32_t *len,
		    uint32_t *sock_seq)
{
	for (;;) {
		/* The tail is read again only once the records it covered were taken: the guest writes
		 * its line with every record, and one read per record would fetch it every time. */
		uint32_t avail = c->tail_seen - c->head;
		if (avail == 0) {
			c->tail_seen = atomic_load_explicit(&c->hdr->tail, memory_order_acquire);
			avail = c->tail_seen - c->head;
			if (avail == 0)
				return 0;
		}
		if (avail > c->size || avail % FERRY_RING_ALIGN)
			return -EPROTO;
		uint32_t off = c->head & (c->size - 1);
		struct ferry_ring_record r;
		memcpy(&r, c->data + off, sizeof(r));
		/* From here on only the copy is read: the guest may rewrite the ring meanwhile. */
		if (r.size < sizeof(r) || r.size % FERRY_RING_ALIGN || r.size > avail ||
		    r.size > c->size - off)
			return -EPROTO;
		if (r.kind == FERRY_RING_REC_PAD) {
			/* A producer pads only from the middle to the end (at offset 0 every record
			 * fits), so the record after a padding one is never padding: this loop turns
			 * at most twice however fast the guest moves its tail. */
			if (r.len != 0 || off == 0 || off + r.size != c->size)
				return -EPROTO;
			c->head += r.size;
			c->next = c->head;
			c->published = c->head;
			atomic_store_explicit(&c->hdr->head, c->head, memory_order_release);
			continue;
		}
		if (r.kind != FERRY_RING_REC_FRAME || r.len > r.size - sizeof(r) ||
		    r.size - sizeof(r) - r.len >= FERRY_RING_ALIGN)
			return -EPROTO;
		if (r.len > cap)
			return -EMSGSIZE;
		memcpy(buf, c->data + off + sizeof(r), r.len);
		*len = r.len;
		*sock_seq = r.sock_seq;
		c->next = c->head + r.size;
		return 1;
	}
}

bool ferry_ring_consume(struct ferry_ring_consumer *c)
{
	c->head = c->next;
	c->records++;
	return ferry_ring_tell_head(c);
}

bool ferry_ring_consume_deferred(struct ferry_ring_consumer *c)
{
	c->head = c->next;
	c->records++;
	if (c->head - c->published < c->size / 8u)
		return false;
	return ferry_ring_tell_head(c);
}

bool ferry_ring_tell_head(struct ferry_ring_consumer *c)
{
	if (c->head == c->published)
		return false;
	c->published = c->head;
	atomic_store_explicit(&c->hdr->head, c->head, memory_order_release);
	atomic_store_explicit(&c->hdr->consumed, c->records, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&c->hdr->producer_waiting, memory_order_relaxed))
		return false;
	/* The guest's tail only decides whether to wake it: a wrong one costs the guest its own
	 * wakeup (it looks again every millisecond), nothing here. */
	uint32_t tail = atomic_load_explicit(&c->hdr->tail, memory_order_relaxed);
	return ferry_ring_room_enough(tail - c->head, c->size);
}

bool ferry_ring_arm(struct ferry_ring_consumer *c)
{
	atomic_store_explicit(&c->hdr->wakeup, 1, memory_order_seq_cst);
	/* Pairs with the producer's fence after its tail store. */
	if (atomic_load_explicit(&c->hdr->tail, memory_order_seq_cst) == c->head)
		return true;
	atomic_store_explicit(&c->hdr->wakeup, 0, memory_order_relaxed);
	return false;
}

void ferry_ring_disarm(struct ferry_ring_consumer *c)
{
	if (atomic_load_explicit(&c->hdr->wakeup, memory_order_relaxed))
		atomic_store_explicit(&c->hdr->wakeup, 0, memory_order_relaxed);
}

void ferry_ring_fail(struct ferry_ring_consumer *c, int err)
{
	atomic_store_explicit(&c->hdr->error, err, memory_order_release);
}
