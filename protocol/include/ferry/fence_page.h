/* The per-context fence page shared between ferryd and the guest: the host publishes the last
 * signaled seqno of every queue here, so "is it signaled" is a memory read with no round trip. */
#ifndef FERRY_FENCE_PAGE_H
#define FERRY_FENCE_PAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define FERRY_FENCE_PAGE_SIZE   4096u
#define FERRY_FENCE_PAGE_MAGIC  0x46525946u /* "FYRF" */
#define FERRY_FENCE_PAGE_QUEUES 128u        /* queue ids are 0..127 */
/* Version 2: the host honors seqno_waiters and the slots' wake_at. A guest that finds 1 (an
 * older host) keeps to waiters, which every version honors. */
#define FERRY_FENCE_PAGE_VERSION 2u

struct ferry_fence_slot {
	_Atomic uint32_t signaled;    /* last seqno that completed (in order) */
	_Atomic uint32_t error_seqno; /* last seqno that completed with an error */
	_Atomic int32_t error;        /* that error (negative errno) */
	/* Written by the guest: the earliest seqno a seqno waiter of this queue sleeps for. A
	 * guest with no such waiter leaves it half the seqno space ahead (never due). */
	_Atomic uint32_t wake_at;
};

struct ferry_fence_page {
	uint32_t magic;
	uint32_t version;
	/* Guests increment before sleeping on the context's eventfd and decrement after; the host
	 * writes the eventfd only when it is non-zero (seq_cst on both sides, so no lost wakeup). */
	_Atomic uint32_t waiters;
	/* Bumped when the context is lost (fault, hang): later submits fail. */
	_Atomic uint32_t lost;
	/* Guests sleeping until one slot reaches its wake_at (version 2): the host writes the
	 * eventfd for them only when a slot's signaled passes its wake_at, or the context is lost,
	 * so a client throttling on an old fence is not woken by every retire before it. */
	_Atomic uint32_t seqno_waiters;
	uint32_t reserved[3];
	struct ferry_fence_slot slots[FERRY_FENCE_PAGE_QUEUES];
};

_Static_assert(sizeof(struct ferry_fence_slot) == 16, "fence slot is 16 bytes");
_Static_assert(sizeof(struct ferry_fence_page) <= FERRY_FENCE_PAGE_SIZE, "fence page fits a page");

/* Wrap-aware "a is at or after b" for per-queue u32 seqnos. */
static inline bool ferry_seqno_passed(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

/* Whether slot's signaled seqno has reached the wake_at its guest wrote (seq_cst loads: the
 * host stored signaled before, the guest stores wake_at before raising seqno_waiters). */
static inline bool ferry_fence_slot_wake_due(const struct ferry_fence_slot *slot)
{
	return ferry_seqno_passed(atomic_load(&slot->signaled), atomic_load(&slot->wake_at));
}

/* The wake_at that is never due while signaled advances less than 2^31 seqnos. */
static inline uint32_t ferry_fence_slot_never(const struct ferry_fence_slot *slot)
{
	return atomic_load(&slot->signaled) + 0x80000000u;
}

/* A new (zeroed) page as its owner publishes it: no slot due before a guest asks. */
static inline void ferry_fence_page_init(struct ferry_fence_page *page)
{
	page->magic = FERRY_FENCE_PAGE_MAGIC;
	page->version = FERRY_FENCE_PAGE_VERSION;
	for (uint32_t i = 0; i < FERRY_FENCE_PAGE_QUEUES; i++)
		atomic_store_explicit(&page->slots[i].wake_at, 0x80000000u, memory_order_relaxed);
}

#endif
