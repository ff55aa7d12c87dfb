/* A range allocator for one GPU virtual address space: first-fit allocation with alignment,
 * reservation of caller-chosen ranges (MSM_INFO_SET_IOVA), free, and lookup of the range that
 * holds an address (the sim's page-table walk). All arithmetic is overflow-checked. */
#ifndef FERRY_SIM_IOVA_ALLOC_H
#define FERRY_SIM_IOVA_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct iova_range {
	uint64_t start;
	uint64_t size;
	void *owner; /* what the range maps (a BO); opaque here */
};

struct iova_alloc {
	uint64_t base;
	uint64_t size;            /* the space is [base, base + size) */
	struct iova_range *ranges; /* sorted by start, non-overlapping */
	size_t count;
	size_t capacity;
};

/* [base, base + size) must not wrap; returns -EINVAL if it does or size is 0. */
int iova_alloc_init(struct iova_alloc *a, uint64_t base, uint64_t size);
void iova_alloc_fini(struct iova_alloc *a);

/* Lowest free range of size bytes aligned to align (a power of two, >= 1).
 * -EINVAL bad size/align, -ENOSPC no room, -ENOMEM. */
int iova_alloc_alloc(struct iova_alloc *a, uint64_t size, uint64_t align, void *owner, uint64_t *out);
/* Claims exactly [start, start + size). -EINVAL size 0 or wrap, -ERANGE outside the space,
 * -EBUSY overlaps an existing range, -ENOMEM. */
int iova_alloc_reserve(struct iova_alloc *a, uint64_t start, uint64_t size, void *owner);
/* Frees the range starting at start. -ENOENT if no range starts there. */
int iova_alloc_free(struct iova_alloc *a, uint64_t start);
/* The range containing iova, or NULL. */
const struct iova_range *iova_alloc_find(const struct iova_alloc *a, uint64_t iova);

#endif
