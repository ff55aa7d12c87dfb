/* Growable printf text (ferry/text.h). */
#include "ferry/text.h"

#include <stdio.h>
#include <stdlib.h>

#include "ferry/array.h"

void ferry_text_vput(struct ferry_text *t, const char *fmt, va_list ap)
{
	if (t->failed)
		return;
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
	if (n >= 0 && (!t->buf || (size_t)n >= t->cap - t->len)) {
		/* Did not fit: grow to the exact need (plus the NUL) and format again. */
		if (FERRY_ARRAY_RESERVE(t->buf, t->cap, t->len + (size_t)n + 1, 256) == 0)
			n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, again);
		else
			n = -1;
	}
	va_end(again);
	if (n < 0)
		t->failed = true;
	else
		t->len += (size_t)n;
}

void ferry_text_put(struct ferry_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ferry_text_vput(t, fmt, ap);
	va_end(ap);
}

void ferry_text_free(struct ferry_text *t)
{
	free(t->buf);
	*t = (struct ferry_text){ 0 };
}
