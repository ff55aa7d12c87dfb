/* Report text for the simulators' devcoredumps (see sim_report_text.h). */
#include "sim_report_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void sim_text_put(struct sim_text *t, const char *fmt, ...)
{
	if (t->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->buf && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap - t->len <= (size_t)n)
			cap *= 2;
		char *nb = realloc(t->buf, cap);
		if (!nb) {
			t->failed = true;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
}

void sim_text_put_header(struct sim_text *t, const char *module)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	sim_text_put(t, "---\nkernel: 6.1.0-ferry-sim\nmodule: %s\n", module);
	sim_text_put(t, "time: %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
}

void sim_text_publish(struct sim_text *t, char **slot)
{
	if (t->failed) {
		free(t->buf);
	} else {
		free(*slot);
		*slot = t->buf;
	}
	*t = (struct sim_text){ 0 };
}
