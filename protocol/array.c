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

static int grow(void **arr, size_t cap, size_t n, size_t elem)
{
	if (n == 0)
		return -ENOMEM;
	char *p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	memset(p + cap * elem, 0, (n - cap) * elem);
	*arr = p;
	return 0;
}

int ferry_array_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
	if (need <= *cap)
		return 0;
	size_t n = grown_cap(*cap, need, elem, min_cap, SIZE_MAX);
	int r = grow(arr, *cap, n, elem);
	if (r == 0)
		*cap = n;
	return r;
}

int ferry_array_grow_u32(void **arr, uint32_t *cap, size_t need, size_t elem, size_t min_cap)
{
	if (need <= *cap)
		return 0;
	size_t n = grown_cap(*cap, need, elem, min_cap, UINT32_MAX);
	int r = grow(arr, *cap, n, elem);
	if (r == 0)
		*cap = (uint32_t)n;
	return r;
}
