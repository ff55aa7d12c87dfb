/* Host logging: level filtering and the embedder's sink (stderr when it gives none). */
#include <stdio.h>
#include <time.h>

#include "watchdog.h"

static const char *const level_names[] = { "error", "warn", "info", "debug" };

void host_log(struct ferry_host *h, int level, const char *fmt, ...)
{
	if (level > h->cfg.log_level)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (h->cfg.log) {
		h->cfg.log(h->cfg.log_cookie, level, msg);
		return;
	}
	if (level < 0 || level > FERRY_LOG_DEBUG)
		level = FERRY_LOG_DEBUG;
	fprintf(stderr, "ferry-host %s: %s\n", level_names[level], msg);
}

int64_t host_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
