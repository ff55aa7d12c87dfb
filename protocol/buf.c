/* ferry_buf: the growable byte buffer frames are encoded into and sent from.
 * Capacity only grows, so a connection's output buffer stops allocating once it is warm. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/wire.h"

void ferry_buf_init(struct ferry_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void ferry_buf_free(struct ferry_buf *b)
{
	free(b->data);
	ferry_buf_init(b);
}

void ferry_buf_reset(struct ferry_buf *b)
{
	b->len = 0;
}

void ferry_buf_consume(struct ferry_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

int ferry_buf_reserve(struct ferry_buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len)
		return -ENOMEM;
	return FERRY_ARRAY_RESERVE(b->data, b->cap, b->len + extra, 256);
}

int ferry_buf_append(struct ferry_buf *b, const void *data, size_t n)
{
	if (n == 0)
		return 0;
	int err = ferry_buf_reserve(b, n);
	if (err)
		return err;
	memcpy(b->data + b->len, data, n);
	b->len += n;
	return 0;
}
