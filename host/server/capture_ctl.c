/* ferryd's side of submit capture: the `capture` request of the control socket (the operator's:
 * the socket is mode 0600) and the --capture-trigger file. The trigger file is polled with
 * stat() at most every 100 ms (the epoll timeout is lowered to that while a trigger is set): a
 * change of its mtime/ctime/size/inode makes ferryd read it — a positive N captures the next N
 * submits, -1 captures until disabled, 0 stops — like Mesa's FD_RD_DUMP=trigger file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

#define TRIGGER_POLL_MS 100

struct capture_ctl {
	char dir[PATH_MAX];
	char trigger[PATH_MAX];
	bool have_trigger;
	bool seen;             /* the trigger's stat below is valid */
	struct stat last;
	int64_t next_poll_ms;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int capture_ctl_init(struct server *srv, const char *dir, const char *trigger)
{
	struct capture_ctl *cc = calloc(1, sizeof(*cc));
	if (!cc)
		return -ENOMEM;
	int n;
	if (dir) {
		n = snprintf(cc->dir, sizeof(cc->dir), "%s", dir);
	} else {
		const char *run = getenv("XDG_RUNTIME_DIR");
		if (run && run[0])
			n = snprintf(cc->dir, sizeof(cc->dir), "%s/ferry/captures", run);
		else
			n = snprintf(cc->dir, sizeof(cc->dir), "/tmp/ferry-%u/captures", (unsigned)getuid());
	}
	if (n < 0 || (size_t)n >= sizeof(cc->dir) - 128 ||
	    (trigger && snprintf(cc->trigger, sizeof(cc->trigger), "%s", trigger) >= (int)sizeof(cc->trigger))) {
		free(cc);
		ferryd_log(FERRY_LOG_ERROR, "capture directory or trigger path too long");
		return -ENAMETOOLONG;
	}
	cc->have_trigger = trigger != NULL;
	srv->capture = cc;
	return 0;
}

void capture_ctl_fini(struct server *srv)
{
	free(srv->capture);
	srv->capture = NULL;
}

int capture_ctl_timeout_ms(const struct server *srv, int timeout_ms)
{
	const struct capture_ctl *cc = srv->capture;
	if (!cc || !cc->have_trigger)
		return timeout_ms;
	return timeout_ms < 0 || timeout_ms > TRIGGER_POLL_MS ? TRIGGER_POLL_MS : timeout_ms;
}

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void trigger_apply(struct server *srv, const char *text)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	while (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t')
		end++;
	if (end == text || *end || errno || v < -1) {
		ferryd_log(FERRY_LOG_WARN, "capture trigger %s: '%.20s' is not N, -1 or 0", srv->capture->trigger, text);
		return;
	}
	if (v == 0) {
		if (ferry_host_capture_stop(srv->host))
			ferryd_log(FERRY_LOG_INFO, "capture trigger: stopped");
		return;
	}
	struct ferry_host_capture_params p = { .count = v, .dir = srv->capture->dir };
	char why[256];
	if (ferry_host_capture_start(srv->host, &p, why, sizeof(why)) < 0)
		ferryd_log(FERRY_LOG_WARN, "capture trigger: %s", why);
	else
		ferryd_log(FERRY_LOG_INFO, "capture trigger: capturing %lld submits into %s", v, srv->capture->dir);
}

void capture_ctl_poll(struct server *srv)
{
	struct capture_ctl *cc = srv->capture;
	if (!cc || !cc->have_trigger)
		return;
	int64_t now = now_ms();
	if (now < cc->next_poll_ms)
		return;
	cc->next_poll_ms = now + TRIGGER_POLL_MS;
	struct stat st;
	if (stat(cc->trigger, &st) < 0) {
		cc->seen = false;
		return;
	}
	if (cc->seen && same_stat(&st, &cc->last))
		return;
	cc->last = st;
	cc->seen = true;
	int fd = open(cc->trigger, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	char buf[32];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return; /* empty: being written; its next change is seen */
	buf[n] = '\0';
	trigger_apply(srv, buf);
}

/* ---- the control request: capture start [options] | stop | status ---- */

static char *reply(const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(fmt) + (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 1;
	char *out = malloc(len);
	if (out)
		snprintf(out, len, fmt, a ? a : "", b ? b : "");
	return out;
}

static bool parse_num(const char *s, long long lo, long long hi, long long *out)
{
	if (!s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static char *do_start(struct server *srv, char **save)
{
	struct ferry_host_capture_params p = { .count = -1, .dir = srv->capture->dir };
	char *w;
	while ((w = strtok_r(NULL, " \t\r", save))) {
		long long v;
		if (!strcmp(w, "--full")) {
			p.full = true;
		} else if (!strcmp(w, "--combined")) {
			p.combined = true;
		} else if (!strcmp(w, "--gzip")) {
			p.gzip = true;
		} else if (!strcmp(w, "--client") || !strcmp(w, "--context") || !strcmp(w, "--count")) {
			char *arg = strtok_r(NULL, " \t\r", save);
			bool count = w[3] == 'o' && w[4] == 'u';
			if (!parse_num(arg, count ? -1 : 0, count ? INT64_MAX : UINT32_MAX, &v) || (count && v == 0))
				return reply("error: %s needs %s\n", w, count ? "a positive count or -1" : "an id");
			if (count)
				p.count = v;
			else if (w[3] == 'l')
				p.client = (uint32_t)v;
			else
				p.context = (uint32_t)v;
		} else if (!strcmp(w, "--dir")) {
			p.dir = strtok_r(NULL, " \t\r", save);
			if (!p.dir || p.dir[0] != '/')
				return reply("error: --dir needs an absolute path%s%s\n", NULL, NULL);
		} else if (!strcmp(w, "--format")) {
			char *f = strtok_r(NULL, " \t\r", save);
			if (f && !strcmp(f, "rd"))
				p.formats = FERRY_CAPTURE_RD;
			else if (f && !strcmp(f, "session"))
				p.formats = FERRY_CAPTURE_SESSION;
			else if (f && !strcmp(f, "both"))
				p.formats = FERRY_CAPTURE_RD | FERRY_CAPTURE_SESSION;
			else
				return reply("error: --format takes rd, session or both%s%s\n", NULL, NULL);
		} else {
			return reply("error: unknown capture option '%.40s'%s\n", w, NULL);
		}
	}
	char why[256];
	if (ferry_host_capture_start(srv->host, &p, why, sizeof(why)) < 0)
		return reply("error: %s%s\n", why, NULL);
	ferryd_log(FERRY_LOG_INFO, "control: capture started");
	char *status = ferry_host_capture_status(srv->host);
	char *out = status ? reply("ok\n%s%s", status, NULL) : NULL;
	free(status);
	return out;
}

char *capture_ctl_request(struct server *srv, char *args)
{
	char *save = NULL;
	char *verb = strtok_r(args, " \t\r", &save);
	if (!srv->capture)
		return reply("error: capture is not set up%s%s\n", NULL, NULL);
	if (verb && !strcmp(verb, "start"))
		return do_start(srv, &save);
	if (verb && strtok_r(NULL, " \t\r", &save))
		return reply("error: capture %s takes no options%s\n", verb, NULL);
	if (verb && !strcmp(verb, "stop"))
		ferry_host_capture_stop(srv->host);
	else if (verb && strcmp(verb, "status"))
		return reply("error: capture takes start, stop or status, not '%.32s'%s\n", verb, NULL);
	else if (!verb)
		return reply("error: capture takes start, stop or status%s%s\n", NULL, NULL);
	char *status = ferry_host_capture_status(srv->host);
	char *out = status ? reply("ok\n%s%s", status, NULL) : NULL;
	free(status);
	return out;
}
