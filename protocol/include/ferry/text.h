/* Growable text built by printf-appends, for reports, replies and dumps: the first failure sticks,
 * so a writer puts line after line and looks once at the end. */
#ifndef FERRY_TEXT_H
#define FERRY_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct ferry_text {
	char *buf;   /* NUL-terminated once anything was put; NULL before */
	size_t len;  /* bytes before the NUL */
	size_t cap;
	bool failed; /* out of memory or a bad format: the text is incomplete, puts do nothing */
};

void ferry_text_put(struct ferry_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ferry_text_vput(struct ferry_text *t, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Frees the text; t is empty (and not failed) again. */
void ferry_text_free(struct ferry_text *t);

#endif
