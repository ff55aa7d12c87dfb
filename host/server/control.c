/* ferryd's control socket (<socket>.ctl, mode 0600: the operator's, never a guest's): one text
 * request line per connection, answered with "ok" or "error: <reason>", the body, and EOF.
 * Requests (docs/debugging.md):
 *   status                   server, device and counters as "key: value" lines (then one
 *                            "context: ..." line per context with unmodeled work)
 *   sync                     the sync-state dump
 *   watchdog [on|off|MS]     show / set the fence-signal watchdog
 *   reports                  the fault reports kept in memory, one line each
 *   report N                 fault report N in full
 *   trace [start|stop|clear|status]  the trace as Chrome-trace JSON, or switch / show it
 *   capture start [opts] | stop | status  submit capture (capture_ctl.c)
 *   help
 * Bad input gets an error line; a peer that sends nothing in time, or more than a line, is
 * dropped. Everything is non-blocking inside ferryd's epoll loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ferry/text.h"
#include "remote.h"
#include "server.h"

#define CONTROL_MAX_LINE 256u
#define CONTROL_MAX_CONNS 16u
#define CONTROL_DEADLINE_MS 10000

struct control_conn {
	struct control_conn *next;
	int fd;
	char in[CONTROL_MAX_LINE];
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	bool want_out;
	bool dead;
	int64_t deadline_ms;
};

struct control {
	struct server *srv;
	int listen_fd;
	char listen_tag; /* its address is the listening socket's epoll tag */
	char path[108];
	bool unlink_on_exit; /* a socket file ferryd made (not a service manager's) */
	struct control_conn *conns;
	unsigned nr_conns;
	struct control_info info;
	int64_t started_ms;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Takes listen_fd (closed on failure) into a new control at path. */
static int control_start(struct server *srv, int listen_fd, const char *path, bool unlink_on_exit,
			 const struct control_info *info)
{
	struct control *ctl = calloc(1, sizeof(*ctl));
	if (!ctl) {
		close(listen_fd);
		return -ENOMEM;
	}
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	ctl->unlink_on_exit = unlink_on_exit;
	ctl->srv = srv;
	ctl->info = *info;
	ctl->started_ms = now_ms();
	ctl->listen_fd = listen_fd;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &ctl->listen_tag };
	if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, ctl->listen_fd, &ev) < 0) {
		int ret = -errno;
		close(ctl->listen_fd);
		if (unlink_on_exit)
			unlink(path);
		free(ctl);
		return ret;
	}
	srv->control = ctl;
	return 0;
}

int control_open(struct server *srv, const char *path, const struct control_info *info)
{
	if (strlen(path) >= sizeof(((struct control *)0)->path)) {
		ferryd_log(FERRY_LOG_ERROR, "control socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	/* Same rules as the guests' socket: private directory, 0600, no stealing a live one. */
	int fd = ferryd_listen(path);
	if (fd < 0)
		return fd;
	return control_start(srv, fd, path, true, info);
}

int control_adopt(struct server *srv, int fd, const char *path, const struct control_info *info)
{
	/* The unit's SocketMode= guards it: ferryd did not make the file, so it does not chmod it. */
	return control_start(srv, fd, path, false, info);
}

static void conn_close(struct control *ctl, struct control_conn *c)
{
	for (struct control_conn **pc = &ctl->conns; *pc; pc = &(*pc)->next) {
		if (*pc == c) {
			*pc = c->next;
			break;
		}
	}
	epoll_ctl(ctl->srv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->out);
	free(c);
	ctl->nr_conns--;
}

void control_close(struct server *srv)
{
	struct control *ctl = srv->control;
	if (!ctl)
		return;
	while (ctl->conns)
		conn_close(ctl, ctl->conns);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, ctl->listen_fd, NULL);
	close(ctl->listen_fd);
	if (ctl->unlink_on_exit)
		unlink(ctl->path);
	free(ctl);
	srv->control = NULL;
}

/* ---- the response ---- */

/* Appends text as is (it may be large and contain '%'). */
static void put_text(struct ferry_text *r, const char *text)
{
	ferry_text_put(r, "%s", text);
	if (text[0] && text[strlen(text) - 1] != '\n')
		ferry_text_put(r, "\n");
}

/* One line per context with work the simulator did not execute:
 *   context: <client>-<ctx> unmodeled-draw=N unmodeled-dispatch=N ... (every kind)
 * (the ids as sync-state dumps name them: GPU-<client>-<ctx>-<queue>). */
static void put_context(void *arg, const struct ferry_host_ctx_stats *s)
{
	struct ferry_text *r = arg;
	bool any = false;
	for (unsigned k = 0; k < FERRY_UNMODELED_KINDS; k++)
		any |= s->unmodeled[k] != 0;
	if (!any)
		return;
	ferry_text_put(r, "context: %u-%u", s->client, s->ctx);
	for (unsigned k = 0; k < FERRY_UNMODELED_KINDS; k++)
		ferry_text_put(r, " unmodeled-%s=%llu", ferry_host_unmodeled_kind_name(k), (unsigned long long)s->unmodeled[k]);
	ferry_text_put(r, "\n");
}

static void do_status(struct control *ctl, struct ferry_text *r)
{
	struct ferry_host *host = ctl->srv->host;
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	unsigned wd = ferry_host_fence_timeout(host);
	ferry_text_put(r, "ok\n");
	ferry_text_put(r, "server: ferryd %s\npid: %d\nuptime-s: %lld\ndevice: %s\nsocket: %s\n", FERRY_VERSION, (int)getpid(),
	    (long long)((now_ms() - ctl->started_ms) / 1000), ferry_host_device_name(host), ctl->info.socket);
	ferry_text_put(r, "hangcheck-ms: %u\n", ctl->info.hangcheck_ms);
	if (wd)
		ferry_text_put(r, "fence-timeout-ms: %u\n", wd);
	else
		ferry_text_put(r, "fence-timeout-ms: off\n");
	ferry_text_put(r, "clients: %u\ncontexts: %u\nqueues: %u\nbos: %u\nbo-bytes: %llu\nsubmits: %llu\nfaults: %llu\n"
	       "bad-messages: %llu\nreports-kept: %u\n",
	    st.clients, st.contexts, st.queues, st.bos, (unsigned long long)st.bo_bytes, (unsigned long long)st.submits,
	    (unsigned long long)st.faults, (unsigned long long)st.bad_messages, ferry_host_nr_fault_reports(host));
	ferry_text_put(r, "hangs: %llu\nfences-signaled: %llu\n", (unsigned long long)st.hangs,
	    (unsigned long long)st.fences_signaled);
	ferry_text_put(r, "watchdog-dumps: %llu\nwatchdog-dumps-suppressed: %llu\n", (unsigned long long)st.watchdog_dumps,
	    (unsigned long long)st.watchdog_dumps_suppressed);
	ferry_text_put(r, "shadow-bytes: %llu\nshadow-bos-created: %llu\nshadow-quota-refusals: %llu\n",
	    (unsigned long long)st.shadow_bytes, (unsigned long long)st.shadow_bos_created,
	    (unsigned long long)st.shadow_quota_refusals);
	ferry_text_put(r, "validation-rejects: %llu\nvalidation-pauses: %llu\nclient-fds: %llu\n",
	    (unsigned long long)st.validation_rejects, (unsigned long long)st.validation_pauses,
	    (unsigned long long)st.client_fds);
	if (ctl->info.crash_dir)
		ferry_text_put(r, "crash-dir: %s\n", ctl->info.crash_dir);
	ferry_text_put(r, "sim-strict: %s\n", ctl->info.sim_strict ? "on" : "off");
	ferry_text_put(r, "remote-mirror-slices: %llu\n", (unsigned long long)remote_mirror_slices_total());
	for (unsigned k = 0; k < FERRY_UNMODELED_KINDS; k++)
		ferry_text_put(r, "unmodeled-%s: %llu\n", ferry_host_unmodeled_kind_name(k), (unsigned long long)st.unmodeled[k]);
	ferry_host_visit_contexts(host, put_context, r);
}

static void do_sync(struct control *ctl, struct ferry_text *r)
{
	char *text = NULL;
	if (ferry_host_sync_dump(ctl->srv->host, &text) < 0) {
		ferry_text_put(r, "error: out of memory\n");
		return;
	}
	ferry_text_put(r, "ok\n");
	put_text(r, text);
	free(text);
}

/* Parses a decimal in [lo, hi]; false for anything else (signs, junk, overflow). */
static bool parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return false;
	unsigned long v = strtoul(s, NULL, 10);
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static void do_watchdog(struct control *ctl, struct ferry_text *r, const char *arg)
{
	struct ferry_host *host = ctl->srv->host;
	unsigned long ms;
	if (!arg) {
		/* show */
	} else if (!strcmp(arg, "off")) {
		if (ferry_host_fence_timeout(host))
			ctl->info.last_fence_timeout_ms = ferry_host_fence_timeout(host);
		ferry_host_set_fence_timeout(host, 0);
		ferryd_log(FERRY_LOG_INFO, "control: fence-signal watchdog off");
	} else if (!strcmp(arg, "on")) {
		if (!ferry_host_fence_timeout(host))
			ferry_host_set_fence_timeout(host, ctl->info.last_fence_timeout_ms);
		ferryd_log(FERRY_LOG_INFO, "control: fence-signal watchdog on (%u ms)", ferry_host_fence_timeout(host));
	} else if (parse_uint(arg, 0, 3600u * 1000u, &ms)) {
		if (ms)
			ctl->info.last_fence_timeout_ms = (unsigned)ms;
		ferry_host_set_fence_timeout(host, (unsigned)ms);
		ferryd_log(FERRY_LOG_INFO, "control: fence-signal watchdog timeout %lu ms", ms);
	} else {
		ferry_text_put(r, "error: watchdog takes on, off or a timeout in ms (0..3600000), not '%.64s'\n", arg);
		return;
	}
	unsigned now = ferry_host_fence_timeout(host);
	ferry_text_put(r, "ok\n");
	if (now)
		ferry_text_put(r, "fence-timeout-ms: %u\n", now);
	else
		ferry_text_put(r, "fence-timeout-ms: off\n");
}

/* "event:" value of a report's header, for the one-line listing. */
static void report_event(const char *text, char *buf, size_t len)
{
	snprintf(buf, len, "?");
	const char *e = strstr(text, "\nevent: ");
	const char *w = strstr(text, "\nESTIMATED CRASH LOCATION: ");
	if (e) {
		e += 8;
		size_t n = strcspn(e, "\n");
		int used = snprintf(buf, len, "%.*s", (int)n, e);
		if (w && used > 0 && (size_t)used < len) {
			w += 27;
			snprintf(buf + used, len - (size_t)used, " at %.*s", (int)strcspn(w, "\n"), w);
		}
	}
}

static void do_reports(struct control *ctl, struct ferry_text *r)
{
	struct ferry_host *host = ctl->srv->host;
	ferry_text_put(r, "ok\n");
	unsigned n = ferry_host_nr_fault_reports(host);
	for (unsigned i = 0; i < n; i++) {
		uint64_t number = 0;
		const char *text = ferry_host_fault_report(host, i, &number);
		char ev[200];
		report_event(text, ev, sizeof(ev));
		ferry_text_put(r, "report %llu: %zu bytes: %s\n", (unsigned long long)number, strlen(text), ev);
	}
}

static void do_report(struct control *ctl, struct ferry_text *r, const char *arg)
{
	struct ferry_host *host = ctl->srv->host;
	unsigned long want;
	if (!arg || !parse_uint(arg, 1, 0xffffffffu, &want)) {
		ferry_text_put(r, "error: report takes a report number (see `reports`)\n");
		return;
	}
	unsigned n = ferry_host_nr_fault_reports(host);
	for (unsigned i = 0; i < n; i++) {
		uint64_t number = 0;
		const char *text = ferry_host_fault_report(host, i, &number);
		if (number == want) {
			ferry_text_put(r, "ok\n");
			put_text(r, text);
			return;
		}
	}
	ferry_text_put(r, "error: report %lu is not kept (there are %u; see `reports`)\n", want, n);
}

static void do_trace(struct control *ctl, struct ferry_text *r, const char *arg)
{
	struct ferry_host *host = ctl->srv->host;
	if (!arg) {
		char *json = NULL;
		size_t len = 0;
		if (ferry_host_trace_json(host, &json, &len) < 0) {
			ferry_text_put(r, "error: out of memory\n");
			return;
		}
		ferry_text_put(r, "ok\n");
		ferry_text_put(r, "%s", json);
		free(json);
		return;
	}
	if (!strcmp(arg, "start") || !strcmp(arg, "stop")) {
		if (ferry_host_trace_enable(host, arg[2] == 'a') < 0) {
			ferry_text_put(r, "error: out of memory for the trace ring\n");
			return;
		}
		ferryd_log(FERRY_LOG_INFO, "control: trace %s", ferry_host_trace_enabled(host) ? "on" : "off");
	} else if (!strcmp(arg, "clear")) {
		ferry_host_trace_clear(host);
	} else if (strcmp(arg, "status")) {
		ferry_text_put(r, "error: trace takes start, stop, clear or status, not '%.32s'\n", arg);
		return;
	}
	uint64_t events, dropped;
	ferry_host_trace_counts(host, &events, &dropped);
	ferry_text_put(r, "ok\ntrace: %s\nevents: %llu\ndropped: %llu\n", ferry_host_trace_enabled(host) ? "on" : "off",
	    (unsigned long long)events, (unsigned long long)dropped);
}

static void handle_request(struct control *ctl, char *line, struct ferry_text *r)
{
	/* capture takes options of its own (capture_ctl.c). */
	if (!strncmp(line, "capture", 7) && (!line[7] || line[7] == ' ' || line[7] == '\t' || line[7] == '\r')) {
		char *text = capture_ctl_request(ctl->srv, line + 7);
		if (text)
			put_text(r, text);
		else
			ferry_text_put(r, "error: out of memory\n");
		free(text);
		return;
	}
	/* Words separated by spaces/tabs; a trailing '\r' (telnet, socat crlf) is tolerated. */
	char *save = NULL;
	char *cmd = strtok_r(line, " \t\r", &save);
	char *arg = cmd ? strtok_r(NULL, " \t\r", &save) : NULL;
	char *extra = arg ? strtok_r(NULL, " \t\r", &save) : NULL;
	bool takes_arg = cmd && (!strcmp(cmd, "watchdog") || !strcmp(cmd, "report") || !strcmp(cmd, "trace"));
	if (!cmd) {
		ferry_text_put(r, "error: empty request (try `help`)\n");
	} else if (extra || (arg && !takes_arg)) {
		ferry_text_put(r, "error: too many words for '%.32s' (try `help`)\n", cmd);
	} else if (!strcmp(cmd, "status")) {
		do_status(ctl, r);
	} else if (!strcmp(cmd, "sync")) {
		do_sync(ctl, r);
	} else if (!strcmp(cmd, "watchdog")) {
		do_watchdog(ctl, r, arg);
	} else if (!strcmp(cmd, "reports")) {
		do_reports(ctl, r);
	} else if (!strcmp(cmd, "report")) {
		do_report(ctl, r, arg);
	} else if (!strcmp(cmd, "trace")) {
		do_trace(ctl, r, arg);
	} else if (!strcmp(cmd, "help")) {
		ferry_text_put(r, "ok\nstatus\nsync\nwatchdog [on|off|MS]\nreports\nreport N\ntrace [start|stop|clear|status]\n"
		       "capture start [--client N] [--context N] [--count N|-1] [--full] [--combined] [--gzip] "
		       "[--dir DIR] [--format rd|session|both]\ncapture stop|status\nhelp\n");
	} else {
		ferry_text_put(r, "error: unknown request '%.32s' (try `help`)\n", cmd);
	}
}

/* ---- connections ---- */

static void set_events(struct control *ctl, struct control_conn *c, bool want_out)
{
	if (c->want_out == want_out)
		return;
	struct epoll_event ev = { .events = want_out ? EPOLLOUT : EPOLLIN, .data.ptr = c };
	if (epoll_ctl(ctl->srv->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->want_out = want_out;
	else
		c->dead = true;
}

static void flush(struct control *ctl, struct control_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_events(ctl, c, true);
			return;
		}
		if (n <= 0) {
			c->dead = true;
			return;
		}
		c->out_off += (size_t)n;
	}
	c->dead = true; /* all said: EOF ends the response */
}

static void respond(struct control *ctl, struct control_conn *c)
{
	c->in[c->in_len] = '\0';
	struct ferry_text r = { 0 };
	handle_request(ctl, c->in, &r);
	if (r.failed) {
		free(r.buf);
		static const char oom[] = "error: out of memory\n";
		r.buf = strdup(oom);
		r.len = r.buf ? sizeof(oom) - 1 : 0;
	}
	c->out = r.buf;
	c->out_len = r.len;
	c->in_len = sizeof(c->in); /* no more input is taken */
	flush(ctl, c);
}

static void reject(struct control *ctl, struct control_conn *c, const char *why)
{
	c->out = strdup(why);
	c->out_len = c->out ? strlen(c->out) : 0;
	c->in_len = sizeof(c->in);
	flush(ctl, c);
}

static void read_request(struct control *ctl, struct control_conn *c)
{
	while (c->in_len < sizeof(c->in) - 1) {
		ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			/* EOF before a newline: treat what came as the request, if anything did. */
			if (n == 0 && c->in_len)
				respond(ctl, c);
			else
				c->dead = true;
			return;
		}
		char *nl = memchr(c->in + c->in_len, '\n', (size_t)n);
		if (memchr(c->in + c->in_len, '\0', (size_t)n)) {
			reject(ctl, c, "error: NUL byte in the request\n");
			return;
		}
		c->in_len += (size_t)n;
		if (nl) {
			c->in_len = (size_t)(nl - c->in);
			respond(ctl, c);
			return;
		}
	}
	reject(ctl, c, "error: request line too long\n");
}

static void accept_all(struct control *ctl)
{
	for (;;) {
		int fd = accept4(ctl->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				ferryd_log(FERRY_LOG_WARN, "control accept: %s", strerror(errno));
			return;
		}
		if (ctl->nr_conns >= CONTROL_MAX_CONNS) {
			static const char busy[] = "error: too many control connections\n";
			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				ferryd_log(FERRY_LOG_DEBUG, "control: %s", strerror(errno));
			close(fd);
			continue;
		}
		struct control_conn *c = calloc(1, sizeof(*c));
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
		if (!c || epoll_ctl(ctl->srv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			free(c);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->deadline_ms = now_ms() + CONTROL_DEADLINE_MS;
		c->next = ctl->conns;
		ctl->conns = c;
		ctl->nr_conns++;
	}
}

bool control_event(struct server *srv, void *tag, unsigned events)
{
	struct control *ctl = srv->control;
	if (!ctl)
		return false;
	if (tag == &ctl->listen_tag) {
		accept_all(ctl);
		return true;
	}
	for (struct control_conn *c = ctl->conns; c; c = c->next) {
		if (c != tag)
			continue;
		if (c->out)
			flush(ctl, c);
		else if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			read_request(ctl, c);
		if (c->dead)
			conn_close(ctl, c);
		return true;
	}
	return false;
}

int control_timeout_ms(const struct server *srv, int timeout_ms)
{
	const struct control *ctl = srv->control;
	if (!ctl || !ctl->conns)
		return timeout_ms;
	int64_t now = now_ms(), first = INT64_MAX;
	for (const struct control_conn *c = ctl->conns; c; c = c->next)
		if (c->deadline_ms < first)
			first = c->deadline_ms;
	int64_t left = first - now;
	int mine = left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
	return timeout_ms < 0 || mine < timeout_ms ? mine : timeout_ms;
}

void control_expire(struct server *srv)
{
	struct control *ctl = srv->control;
	if (!ctl || !ctl->conns)
		return;
	int64_t now = now_ms();
	struct control_conn *c = ctl->conns;
	while (c) {
		struct control_conn *next = c->next;
		if (c->dead || c->deadline_ms <= now)
			conn_close(ctl, c);
		c = next;
	}
}
