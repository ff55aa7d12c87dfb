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

struct ferry_fence_slot {
	_Atomic uint32_t signaled;    /* last seqno that completed (in order) */
	_Atomic uint32_t error_seqno; /* last seqno that completed with an error */
	_Atomic int32_t error;        /* that error (negative errno) */
	uint32_t reserved;
};

struct ferry_fence_page {
	uint32_t magic;
	uint32_t version;
	/* Guests increment before sleeping on the context's eventfd and decrement after; the host
	 * writes the eventfd only when it is non-zero (seq_cst on both sides, so no lost wakeup). */
	_Atomic uint32_t waiters;
	/* Bumped when the context is lost (fault, hang): later submits fail. */
	_Atomic uint32_t lost;
	uint32_t reserved[4];
	struct ferry_fence_slot slots[FERRY_FENCE_PAGE_QUEUES];
};

_Static_assert(sizeof(struct ferry_fence_slot) == 16, "fence slot is 16 bytes");
_Static_assert(sizeof(struct ferry_fence_page) <= FERRY_FENCE_PAGE_SIZE, "fence page fits a page");

/* Wrap-aware "a is at or after b" for per-queue u32 seqnos. */
static inline bool ferry_seqno_passed(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

#endif
