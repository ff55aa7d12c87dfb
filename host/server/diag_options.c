/* ferryd's hang/fault diagnostics options (--hangcheck-ms, --fence-timeout-ms, the
 * --fence-dump-* bounds, --crash-dir, --max-reports, --control): parsing and checking, and the
 * control socket's default path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"

/* A decimal in [lo, hi]; false (with a message) for anything else. */
static bool parse_ms(const char *opt, const char *s, unsigned long lo, unsigned long hi, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = s[0] >= '0' && s[0] <= '9' ? strtoul(s, &end, 10) : 0;
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "ferryd: --%s takes a number %lu..%lu, not '%s'\n", opt, lo, hi, s);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

int parse_diag_option(int which, const char *arg, struct diag_options *d)
{
	switch (which) {
	case DIAG_OPT_HANGCHECK:
		return parse_ms("hangcheck-ms", arg, 1, 600000, &d->hangcheck_ms) ? 0 : -EINVAL;
	case DIAG_OPT_FENCE_TIMEOUT:
		return parse_ms("fence-timeout-ms", arg, 0, 3600000, &d->fence_timeout_ms) ? 0 : -EINVAL;
	case DIAG_OPT_MAX_REPORTS:
		return parse_ms("max-reports", arg, 1, 1024, &d->max_reports) ? 0 : -EINVAL;
	case DIAG_OPT_FENCE_DUMP_MAX_KIB:
		return parse_ms("fence-dump-max-kib", arg, 1, 16384, &d->fence_dump_max_kib) ? 0 : -EINVAL;
	case DIAG_OPT_FENCE_DUMP_INTERVAL:
		return parse_ms("fence-dump-interval-ms", arg, 1, 3600000, &d->fence_dump_interval_ms) ? 0 : -EINVAL;
	case DIAG_OPT_FENCE_DUMP_HOST_INTERVAL:
		return parse_ms("fence-dump-host-interval-ms", arg, 1, 3600000, &d->fence_dump_host_interval_ms) ? 0
														: -EINVAL;
	case DIAG_OPT_CRASH_DIR: {
		struct stat st;
		if (stat(arg, &st) < 0 || !S_ISDIR(st.st_mode) || access(arg, W_OK | X_OK) < 0) {
			fprintf(stderr, "ferryd: --crash-dir %s is not a writable directory\n", arg);
			return -EINVAL;
		}
		d->crash_dir = arg;
		return 0;
	}
	case DIAG_OPT_CONTROL:
		if (strlen(arg) >= 108) {
			fprintf(stderr, "ferryd: --control path too long\n");
			return -ENAMETOOLONG;
		}
		d->control = arg;
		return 0;
	}
	return -EINVAL;
}

bool control_path_for(const struct diag_options *d, const char *socket_path, char *buf, size_t len)
{
	int n;
	if (d->control && !strcmp(d->control, "none"))
		n = snprintf(buf, len, "%s", "");
	else if (d->control)
		n = snprintf(buf, len, "%s", d->control);
	else
		n = snprintf(buf, len, "%s.ctl", socket_path);
	if (n < 0 || (size_t)n >= len) {
		ferryd_log(FERRY_LOG_ERROR, "control socket path too long (socket %s); use --control", socket_path);
		return false;
	}
	return true;
}
