/* Overflow-safe growth of heap arrays (the `T *v; n, cap;` pattern): one place that doubles a
 * capacity, checks every multiplication and zeroes the new elements. */
#ifndef FERRY_ARRAY_H
#define FERRY_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* Makes *arr (room for *cap elements of elem bytes) hold at least need elements: the capacity
 * doubles (from min_cap when it is 0) until it does, and the new elements are zeroed. 0, or
 * -ENOMEM (the size overflows, or realloc failed) with *arr and *cap unchanged. */
int ferry_array_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t min_cap);
/* The same for a uint32_t capacity, which never passes UINT32_MAX. */
int ferry_array_grow_u32(void **arr, uint32_t *cap, size_t need, size_t elem, size_t min_cap);

/* Room already: no call (hot paths reserve per submit and almost never grow). */
static inline int ferry_array_reserve(void **arr, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
	return need <= *cap ? 0 : ferry_array_grow(arr, cap, need, elem, min_cap);
}

static inline int ferry_array_reserve_u32(void **arr, uint32_t *cap, size_t need, size_t elem, size_t min_cap)
{
	return need <= *cap ? 0 : ferry_array_grow_u32(arr, cap, need, elem, min_cap);
}

/* FERRY_ARRAY_RESERVE(v, cap, need, min_cap) for `T *v` and a size_t or uint32_t cap. */
#define FERRY_ARRAY_RESERVE(arr, cap, need, min_cap)                                          \
	_Generic((cap), uint32_t: ferry_array_reserve_u32, default: ferry_array_reserve)(        \
		(void **)&(arr), &(cap), (need), sizeof(*(arr)), (min_cap))

#endif
