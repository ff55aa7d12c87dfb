/* Overflow-safe array growth (ferry/array.h). */
#include "ferry/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The new capacity for need elements, or 0 when no capacity up to max_cap holds them. */
static size_t grown_cap(size_t cap, size_t need, size_t elem, size_t min_cap, size_t max_cap)
{
	if (elem == 0)
		return 0;
	size_t max = SIZE_MAX / elem < max_cap ? SIZE_MAX / elem : max_cap;
	if (need > max)
		return 0;
	size_t n = cap ? cap : (min_cap ? min_cap : 1);
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	return n < max ? n : max;
}

/* Grows to a capacity of at most max_cap elements (the capacity's own type). */
static int grow(void **arr, size_t *cap, size_t need, size_t elem, size_t min_cap, size_t max_cap)
{
	if (need <= *cap)
		return 0;
	size_t n = grown_cap(*cap, need, elem, min_cap, max_cap);
	if (n == 0)
		return -ENOMEM;
	char *p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	memset(p + *cap * elem, 0, (n - *cap) * elem);
	*arr = p;
	*cap = n;
	return 0;
}

int ferry_array_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
	return grow(arr, cap, need, elem, min_cap, SIZE_MAX);
}

int ferry_array_grow_u32(void **arr, uint32_t *cap, size_t need, size_t elem, size_t min_cap)
{
	size_t c = *cap;
	int r = grow(arr, &c, need, elem, min_cap, UINT32_MAX);
	*cap = (uint32_t)c;
	return r;
}
