/* The GPU address-space range allocator: a sorted array searched by binary search, which is
 * plenty for the few thousand BOs a context maps. */
#include "iova_alloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"

int iova_alloc_init(struct iova_alloc *a, uint64_t base, uint64_t size)
{
	memset(a, 0, sizeof(*a));
	if (size == 0 || base + size - 1 < base)
		return -EINVAL;
	a->base = base;
	a->size = size;
	return 0;
}

void iova_alloc_fini(struct iova_alloc *a)
{
	free(a->ranges);
	memset(a, 0, sizeof(*a));
}

/* Last address of the space; base + size may be 2^64 itself, so work with inclusive ends. */
static uint64_t space_last(const struct iova_alloc *a)
{
	return a->base + (a->size - 1);
}

/* Index of the first range whose start is > iova. */
static size_t upper_bound(const struct iova_alloc *a, uint64_t iova)
{
	size_t lo = 0, hi = a->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->ranges[mid].start <= iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int insert_at(struct iova_alloc *a, size_t idx, uint64_t start, uint64_t size, void *owner)
{
	if (FERRY_ARRAY_RESERVE(a->ranges, a->capacity, a->count + 1, 16))
		return -ENOMEM;
	memmove(&a->ranges[idx + 1], &a->ranges[idx], (a->count - idx) * sizeof(*a->ranges));
	a->ranges[idx] = (struct iova_range){ .start = start, .size = size, .owner = owner };
	a->count++;
	return 0;
}

/* Aligns v up to align; false if that passes 2^64. */
static bool align_up(uint64_t v, uint64_t align, uint64_t *out)
{
	uint64_t mask = align - 1;
	if (v > UINT64_MAX - mask)
		return false;
	*out = (v + mask) & ~mask;
	return true;
}

int iova_alloc_alloc(struct iova_alloc *a, uint64_t size, uint64_t align, void *owner, uint64_t *out)
{
	if (size == 0 || align == 0 || (align & (align - 1)) != 0)
		return -EINVAL;
	uint64_t last = space_last(a);
	uint64_t cursor = a->base; /* first address not known to be taken */
	for (size_t i = 0; i <= a->count; i++) {
		uint64_t start;
		if (!align_up(cursor, align, &start) || start > last)
			return -ENOSPC;
		/* The gap before range i is [start, gap_last]; it is empty if range i starts at or
		 * below start (inclusive ends keep 2^64-sized spaces representable). */
		bool gap = i == a->count || start < a->ranges[i].start;
		uint64_t gap_last = i < a->count ? a->ranges[i].start - 1 : last;
		if (gap && gap_last - start >= size - 1) {
			int ret = insert_at(a, i, start, size, owner);
			if (ret)
				return ret;
			*out = start;
			return 0;
		}
		if (i == a->count)
			break;
		uint64_t range_last = a->ranges[i].start + (a->ranges[i].size - 1);
		if (range_last == UINT64_MAX)
			return -ENOSPC;
		cursor = range_last + 1;
	}
	return -ENOSPC;
}

int iova_alloc_reserve(struct iova_alloc *a, uint64_t start, uint64_t size, void *owner)
{
	if (size == 0 || start + (size - 1) < start)
		return -EINVAL;
	uint64_t req_last = start + (size - 1);
	if (start < a->base || req_last > space_last(a))
		return -ERANGE;
	size_t idx = upper_bound(a, start);
	/* The range before idx starts at or below start: it must end before start. */
	if (idx > 0) {
		const struct iova_range *prev = &a->ranges[idx - 1];
		if (prev->start + (prev->size - 1) >= start)
			return -EBUSY;
	}
	if (idx < a->count && a->ranges[idx].start <= req_last)
		return -EBUSY;
	return insert_at(a, idx, start, size, owner);
}

int iova_alloc_free(struct iova_alloc *a, uint64_t start)
{
	size_t idx = upper_bound(a, start);
	if (idx == 0 || a->ranges[idx - 1].start != start)
		return -ENOENT;
	idx--;
	memmove(&a->ranges[idx], &a->ranges[idx + 1], (a->count - idx - 1) * sizeof(*a->ranges));
	a->count--;
	return 0;
}

const struct iova_range *iova_alloc_find(const struct iova_alloc *a, uint64_t iova)
{
	size_t idx = upper_bound(a, iova);
	if (idx == 0)
		return NULL;
	const struct iova_range *r = &a->ranges[idx - 1];
	return iova - r->start <= r->size - 1 ? r : NULL;
}
