/* The submit ring: shared memory in which a guest context queues frames (submits and other
 * reply-less requests) for the host, so a pipelined submit costs no syscall and no wakeup.
 * The layout, and the producer's and consumer's steps; docs/protocol.md "Submit rings". */
#ifndef FERRY_SUBMIT_RING_H
#define FERRY_SUBMIT_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FERRY_RING_MAGIC   0x474e5246u /* "FRNG" */
#define FERRY_RING_VERSION 1u
/* The header takes the first page; the data area follows it. */
#define FERRY_RING_HDR_SIZE 4096u
/* Data area sizes: a power of two in [MIN, MAX]. */
#define FERRY_RING_MIN_DATA     (16u * 1024u)
#define FERRY_RING_MAX_DATA     (1u << 20)
#define FERRY_RING_DEFAULT_DATA (64u * 1024u)
/* Records start and end on this boundary, so the room left before the end of the data area is
 * always 0 or enough for a record header (a padding record fills it). */
#define FERRY_RING_ALIGN 16u

/* What a record holds. */
#define FERRY_RING_REC_FRAME 1u /* a frame payload, as it would follow the length prefix */
#define FERRY_RING_REC_PAD   2u /* nothing: skips to the start of the data area */

/* Each side writes only its own cache line; the other side's words are read, never trusted. */
struct ferry_ring_header {
	uint32_t magic;
	uint32_t version;
	uint32_t data_size; /* written by whoever made the ring; the host keeps its own copy */
	uint32_t reserved0[13];
	/* Guest's line. */
	_Atomic uint32_t tail;             /* bytes published, free-running (wraps at 2^32) */
	_Atomic uint32_t producer_waiting; /* non-zero: the guest sleeps for room (see below) */
	uint32_t reserved1[14];
	/* Host's line. */
	_Atomic uint32_t head;   /* bytes consumed, free-running */
	_Atomic uint32_t wakeup; /* 1: the host sleeps; the guest that sees it takes it (exchange
				  * to 0) and rings the doorbell once */
	_Atomic int32_t error;   /* negative errno once the host stopped reading this ring */
	_Atomic uint32_t consumed; /* records taken so far (statistics) */
	uint32_t reserved2[12];
};

struct ferry_ring_record {
	uint32_t size;     /* of the record with this header, a multiple of FERRY_RING_ALIGN */
	uint32_t kind;     /* FERRY_RING_REC_* */
	uint32_t sock_seq; /* ordering against the socket: docs/protocol.md "Submit rings" */
	uint32_t len;      /* payload bytes after the header (FRAME), 0 for PAD */
};

_Static_assert(sizeof(struct ferry_ring_header) == 192, "three cache lines");
_Static_assert(sizeof(struct ferry_ring_record) == FERRY_RING_ALIGN, "one alignment unit");

/* True for a data size the ring accepts. */
static inline bool ferry_ring_size_ok(uint64_t data_size)
{
	return data_size >= FERRY_RING_MIN_DATA && data_size <= FERRY_RING_MAX_DATA &&
	       (data_size & (data_size - 1)) == 0;
}

/* The largest payload one record may carry in a ring of data_size bytes: a quarter of it, so a
 * record never waits for more than the ring can hold. */
static inline uint32_t ferry_ring_max_payload(uint32_t data_size)
{
	return data_size / 4u - (uint32_t)sizeof(struct ferry_ring_record);
}

/* Whether a guest waiting for room (producer_waiting) may go on with used bytes not yet taken:
 * half the ring free, so that the largest record fits and a guest faster than the host wakes
 * once per half ring. The guest waits for it and the host wakes the guest only then, as an
 * eventfd write per record or per drain pass would cost both sides syscalls for no room. */
static inline bool ferry_ring_room_enough(uint32_t used, uint32_t data_size)
{
	return used <= data_size / 2u;
}

/* ---- guest: the producer ---- */

struct ferry_ring_producer {
	struct ferry_ring_header *hdr;
	uint8_t *data;
	uint32_t size;     /* data area */
	uint32_t tail;     /* private: what the next publish stores */
	uint32_t pending;  /* bytes reserved but not yet published */
};

/* mem: the whole ring (header page + data). Initializes the header when init is true (the
 * side that made the ring). 0 or -EINVAL for a bad size or header. */
int ferry_ring_producer_init(struct ferry_ring_producer *p, void *mem, size_t len, bool init);
/* Room for a record of len payload bytes: a pointer to write them to, NULL when the ring is
 * full (errno-style *err = -EAGAIN) or the payload too large for this ring (-EMSGSIZE). Nothing
 * is visible to the host until ferry_ring_publish. One reservation at a time. */
void *ferry_ring_reserve(struct ferry_ring_producer *p, uint32_t len, uint32_t sock_seq, int *err);
/* Publishes the reserved record. Returns true when the host asked to be woken (the caller
 * rings the doorbell: an eventfd write, or an EXECBUFFER in a VM). */
bool ferry_ring_publish(struct ferry_ring_producer *p);
/* Bytes the host has not taken yet. */
uint32_t ferry_ring_used(const struct ferry_ring_producer *p);

/* ---- host: the consumer ---- */

struct ferry_ring_consumer {
	struct ferry_ring_header *hdr;
	const uint8_t *data;
	uint32_t size;    /* the host's copy: never reread from shared memory */
	uint32_t head;    /* private */
	uint32_t next;    /* head after the record ferry_ring_next returned */
	uint32_t records; /* taken */
	uint32_t published; /* the head the guest was last told */
	uint32_t tail_seen; /* the guest's tail when last read (checked then) */
};

/* mem/len as for the producer; init writes magic, version and size (the host made it). */
int ferry_ring_consumer_init(struct ferry_ring_consumer *c, void *mem, size_t len, bool init);
/* Copies the next record out of shared memory, checked, into buf (cap bytes): returns 1 with
 * *len and *sock_seq, 0 when the ring is empty, or a negative errno when the guest broke the
 * ring (-EPROTO: indices or a record header out of bounds; -EMSGSIZE: payload over cap). The
 * record stays in the ring until ferry_ring_consume, so a caller that must not take it yet can
 * leave it. Padding records are skipped and consumed here. */
int ferry_ring_next(struct ferry_ring_consumer *c, void *buf, uint32_t cap, uint32_t *len,
		    uint32_t *sock_seq);
/* Takes the record ferry_ring_next returned: publishes the new head. Returns true when the guest
 * waits for room and now has enough (ferry_ring_room_enough; the caller wakes it). */
bool ferry_ring_consume(struct ferry_ring_consumer *c);
/* The same, telling the guest only once an eighth of the ring was taken since it was last told:
 * the caller calls ferry_ring_tell_head when it stops taking (before it arms or sleeps). */
bool ferry_ring_consume_deferred(struct ferry_ring_consumer *c);
/* Tells the guest the head, when it moved since it was last told; returns as ferry_ring_consume. */
bool ferry_ring_tell_head(struct ferry_ring_consumer *c);
/* Before sleeping: asks the guest for a doorbell. Returns false when records arrived meanwhile
 * (the flag is taken back; drain instead of sleeping). */
bool ferry_ring_arm(struct ferry_ring_consumer *c);
/* The host will look at the ring anyway (it has work in flight): no doorbell needed. */
void ferry_ring_disarm(struct ferry_ring_consumer *c);
/* Stops reading: tells the guest why (negative errno in the header). */
void ferry_ring_fail(struct ferry_ring_consumer *c, int err);

/* Wrap-aware "a is at or before b" for sock_seq counts. */
static inline bool ferry_ring_seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) >= 0;
}

#endif
