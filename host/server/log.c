/* ferryd's log: one line per message on stderr, with UTC timestamp, pid and level, and the
 * one-line-a-second limit for what clients can make happen at will. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

int ferryd_log_level = FERRY_LOG_WARN;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

static void emit(int level, const char *msg)
{
	if (level > ferryd_log_level)
		return;
	if (level < 0 || level > FERRY_LOG_DEBUG)
		level = FERRY_LOG_DEBUG;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	char when[32];
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ldZ ferryd[%d] %s: %s\n", when, ts.tv_nsec / 1000000, (int)getpid(),
		level_names[level], msg);
}

void ferryd_log(int level, const char *fmt, ...)
{
	if (level > ferryd_log_level)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(level, msg);
}

void ferryd_host_log_sink(void *cookie, int level, const char *msg)
{
	emit(level, msg);
}

bool log_limit_pass(struct log_limit *l, unsigned long *suppressed_since)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec == l->sec) {
		l->suppressed++;
		return false;
	}
	*suppressed_since = l->suppressed;
	l->sec = now.tv_sec;
	l->suppressed = 0;
	return true;
}
