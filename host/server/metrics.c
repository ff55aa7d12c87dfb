/* ferryd's metrics endpoint (--metrics ADDR, or the "metrics" socket from the service manager):
 * a minimal HTTP/1.x server inside the epoll loop answering GET /metrics in Prometheus text
 * format (version 0.0.4). Requests are bounded in size, each connection has a deadline, and few
 * are served at once, so a scraper (or anyone who can reach the address) never stalls GPU
 * clients: everything is non-blocking and a response is built in one go from counters. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ferry/text.h"
#include "remote.h"
#include "service.h"

#define METRICS_MAX_REQUEST 4096u  /* request line + headers */
#define METRICS_MAX_CONNS 8u
#define METRICS_DEADLINE_MS 5000   /* to send the request and take the response */
#define METRICS_ACCEPTS_PER_PASS 8u

struct metrics_conn {
	struct metrics_conn *next;
	int fd;
	char in[METRICS_MAX_REQUEST + 1];
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	bool writing, dead;
	bool drain; /* the request was cut short: read the rest away before closing (no RST) */
	bool draining;
	int64_t deadline_ms;
};

struct metrics {
	struct server *srv;
	int listen_fd;
	char listen_tag;
	bool unlink_on_exit;
	char path[FERRY_URI_PATH_MAX];
	char name[FERRY_URI_PATH_MAX + 8];
	struct metrics_conn *conns;
	unsigned nr_conns;
	uint64_t requests, refused, timeouts;
	int64_t started_ms;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the exposition ---- */

static void family(struct ferry_text *t, const char *name, const char *type, const char *help)
{
	ferry_text_put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(struct ferry_text *t, const char *name, const char *type, const char *help, unsigned long long v)
{
	family(t, name, type, help);
	ferry_text_put(t, "%s %llu\n", name, v);
}

static void histogram(struct ferry_text *t, struct ferry_host *host, unsigned kind, const char *name, const char *help)
{
	struct ferry_host_latency l;
	if (ferry_host_get_latency(host, kind, &l) < 0)
		return;
	family(t, name, "histogram", help);
	uint64_t cum = 0;
	for (unsigned i = 0; i < FERRY_HOST_LATENCY_BUCKETS; i++) {
		cum += l.count[i];
		if (l.le_ns[i] == UINT64_MAX)
			ferry_text_put(t, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
		else
			ferry_text_put(t, "%s_bucket{le=\"%g\"} %llu\n", name, (double)l.le_ns[i] / 1e9, (unsigned long long)cum);
	}
	ferry_text_put(t, "%s_sum %.9f\n%s_count %llu\n", name, (double)l.sum_ns / 1e9, name, (unsigned long long)l.total);
}

static void by_transport(struct ferry_text *t, const char *name, const char *help, const uint64_t *v)
{
	family(t, name, "counter", help);
	ferry_text_put(t, "%s{transport=\"unix\"} %llu\n%s{transport=\"tcp\"} %llu\n", name,
		       (unsigned long long)v[FERRYD_XPORT_UNIX], name, (unsigned long long)v[FERRYD_XPORT_TCP]);
}

/* A label value as the text format wants it: backslash, double quote and newline escaped (the
 * device name comes from the kernel's driver). */
static void put_label_value(struct ferry_text *t, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			ferry_text_put(t, "\\%c", *v);
		else if (*v == '\n')
			ferry_text_put(t, "\\n");
		else
			ferry_text_put(t, "%c", *v);
	}
}

static void compose(struct metrics *m, struct ferry_text *t)
{
	struct server *srv = m->srv;
	struct ferry_host_stats st;
	ferry_host_get_stats(srv->host, &st);
	family(t, "ferry_build_info", "gauge", "ferryd's version and the device it serves.");
	ferry_text_put(t, "ferry_build_info{version=\"%s\",device=\"", FERRY_VERSION);
	put_label_value(t, ferry_host_device_name(srv->host));
	ferry_text_put(t, "\"} 1\n");
	one(t, "ferry_uptime_seconds", "gauge", "Seconds since ferryd started serving.",
	    (unsigned long long)((now_ms() - m->started_ms) / 1000));
	one(t, "ferry_clients", "gauge", "Connected clients.", st.clients);
	one(t, "ferry_contexts", "gauge", "Live GPU contexts.", st.contexts);
	one(t, "ferry_queues", "gauge", "Live submit queues.", st.queues);
	one(t, "ferry_bos", "gauge", "Live buffer objects.", st.bos);
	one(t, "ferry_bo_bytes", "gauge", "Bytes of the live buffer objects.", (unsigned long long)st.bo_bytes);
	one(t, "ferry_submits_total", "counter", "Submits accepted.", (unsigned long long)st.submits);
	one(t, "ferry_fences_signaled_total", "counter", "GPU queue fences signaled (with an error or not).",
	    (unsigned long long)st.fences_signaled);
	one(t, "ferry_validation_refusals_total", "counter", "Submits refused by the command stream validator.",
	    (unsigned long long)st.validation_rejects);
	one(t, "ferry_shadow_quota_refusals_total", "counter", "Submits refused because the client's shadow quota was spent.",
	    (unsigned long long)st.shadow_quota_refusals);
	one(t, "ferry_faults_total", "counter", "GPU faults other than hangs (page faults, CP errors).",
	    (unsigned long long)(st.faults - st.hangs));
	one(t, "ferry_hangs_total", "counter", "GPU hangs (a submit without progress past the hangcheck).",
	    (unsigned long long)st.hangs);
	one(t, "ferry_bad_messages_total", "counter", "Malformed frames from clients.", (unsigned long long)st.bad_messages);
	one(t, "ferry_watchdog_dumps_total", "counter", "Sync-state dumps the fence-signal watchdog wrote.",
	    (unsigned long long)st.watchdog_dumps);
	one(t, "ferry_watchdog_dumps_suppressed_total", "counter", "Overdue fences not dumped (rate limits).",
	    (unsigned long long)st.watchdog_dumps_suppressed);
	family(t, "ferry_unmodeled_work_total", "counter", "Work the simulated GPU did not execute, by kind.");
	for (unsigned k = 0; k < FERRY_UNMODELED_KINDS; k++)
		ferry_text_put(t, "ferry_unmodeled_work_total{kind=\"%s\"} %llu\n", ferry_host_unmodeled_kind_name(k),
			       (unsigned long long)st.unmodeled[k]);
	histogram(t, srv->host, FERRY_HOST_LATENCY_SUBMIT, "ferry_submit_latency_seconds",
		  "From a submit's acceptance to its fence signaling, for submits that reached the GPU.");
	histogram(t, srv->host, FERRY_HOST_LATENCY_FENCE_WAIT, "ferry_fence_wait_latency_seconds",
		  "From a FENCE_WAIT request to its reply (0 when answered at once).");
	const struct ferryd_counters *c = &srv->counters;
	by_transport(t, "ferry_wire_received_bytes_total", "Frame bytes read from clients.", c->bytes_in);
	by_transport(t, "ferry_wire_sent_bytes_total", "Frame bytes written to clients.", c->bytes_out);
	by_transport(t, "ferry_connections_accepted_total", "Client connections served.", c->accepted);
	by_transport(t, "ferry_connections_refused_total", "Client connections refused (limits, out of fds).", c->refused);
	one(t, "ferry_remote_mirror_slices_total", "counter",
	    "Loop passes a tcp client's BO diff work ran (FERRYD_MIRROR_SLICE_BYTES compared each at most).",
	    (unsigned long long)remote_mirror_slices_total());
	one(t, "ferry_metrics_requests_total", "counter", "Requests to this endpoint.", (unsigned long long)m->requests);
	one(t, "ferry_metrics_dropped_total", "counter",
	    "Metrics connections dropped: over the connection cap or past their deadline.",
	    (unsigned long long)(m->refused + m->timeouts));
}

/* ---- HTTP ---- */

static void respond(struct metrics *m, struct metrics_conn *c, int code, const char *type, const char *body,
		    size_t body_len, bool head);

static void set_events(struct metrics *m, struct metrics_conn *c, unsigned events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };
	if (epoll_ctl(m->srv->epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0)
		c->dead = true;
}

static void flush(struct metrics *m, struct metrics_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!c->writing)
				set_events(m, c, EPOLLOUT);
			c->writing = true;
			return;
		}
		if (n <= 0) {
			c->dead = true;
			return;
		}
		c->out_off += (size_t)n;
	}
	if (!c->drain) {
		c->dead = true; /* Connection: close */
		return;
	}
	/* Closing with unread input would reset the connection, and the peer could lose the
	 * response: say we are done, and take what it still sends until it closes (or the
	 * deadline). */
	shutdown(c->fd, SHUT_WR);
	c->draining = true;
	set_events(m, c, EPOLLIN);
}

static void drain(struct metrics_conn *c)
{
	char buf[4096];
	for (int i = 0; i < 16; i++) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			c->dead = true;
			return;
		}
	}
}

static const char *reason(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

static void respond(struct metrics *m, struct metrics_conn *c, int code, const char *type, const char *body,
		    size_t body_len, bool head)
{
	struct ferry_text r = { 0 };
	ferry_text_put(&r, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
		       code, reason(code), type, body_len, code == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (!head && body_len)
		ferry_text_put(&r, "%.*s", (int)body_len, body);
	if (r.failed) {
		ferry_text_free(&r);
		c->dead = true;
		return;
	}
	c->out = r.buf;
	c->out_len = r.len;
	flush(m, c);
}

static void error_page(struct metrics *m, struct metrics_conn *c, int code, const char *text)
{
	c->drain = true; /* a refused request may have more coming (a body, the rest of its headers) */
	respond(m, c, code, "text/plain; charset=utf-8", text, strlen(text), false);
}

/* The request line and headers are in c->in (NUL-terminated). */
static void handle(struct metrics *m, struct metrics_conn *c)
{
	m->requests++;
	char *line_end = strpbrk(c->in, "\r\n");
	if (line_end)
		*line_end = '\0';
	/* METHOD SP TARGET SP HTTP/1.x, nothing else. */
	char *sp1 = strchr(c->in, ' ');
	char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strchr(sp2 + 1, ' ') || strncmp(sp2 + 1, "HTTP/1.", 7) || strlen(sp2 + 1) != 8 ||
	    sp2 == sp1 + 1 || sp1[1] != '/') {
		error_page(m, c, 400, "bad request: want GET /metrics HTTP/1.1\n");
		return;
	}
	*sp1 = *sp2 = '\0';
	const char *method = c->in, *target = sp1 + 1;
	bool head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		error_page(m, c, 405, "only GET and HEAD\n");
		return;
	}
	size_t tlen = strcspn(target, "?#");
	if (tlen != 8 || strncmp(target, "/metrics", 8)) {
		error_page(m, c, 404, "not found: the metrics are at /metrics\n");
		return;
	}
	struct ferry_text t = { 0 };
	compose(m, &t);
	if (t.failed) {
		ferry_text_free(&t);
		error_page(m, c, 503, "out of memory\n");
		return;
	}
	respond(m, c, 200, "text/plain; version=0.0.4; charset=utf-8", t.buf ? t.buf : "", t.len, head);
	ferry_text_free(&t);
}

static void read_request(struct metrics *m, struct metrics_conn *c)
{
	for (;;) {
		size_t room = METRICS_MAX_REQUEST - c->in_len;
		if (room == 0) {
			error_page(m, c, 431, "request too large\n");
			return;
		}
		ssize_t n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			c->dead = true; /* gone before a whole request */
			return;
		}
		if (memchr(c->in + c->in_len, '\0', (size_t)n)) {
			error_page(m, c, 400, "bad request: NUL byte\n");
			return;
		}
		c->in_len += (size_t)n;
		c->in[c->in_len] = '\0';
		/* The blank line ends the headers (bare LFs tolerated, as curl -0 / nc users send). */
		if (strstr(c->in, "\r\n\r\n") || strstr(c->in, "\n\n")) {
			handle(m, c);
			return;
		}
	}
}

/* ---- connections ---- */

static void conn_close(struct metrics *m, struct metrics_conn *c)
{
	for (struct metrics_conn **pc = &m->conns; *pc; pc = &(*pc)->next) {
		if (*pc == c) {
			*pc = c->next;
			break;
		}
	}
	epoll_ctl(m->srv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->out);
	free(c);
	m->nr_conns--;
}

static void accept_some(struct metrics *m)
{
	for (unsigned i = 0; i < METRICS_ACCEPTS_PER_PASS; i++) {
		int fd = accept4(m->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				ferryd_log(FERRY_LOG_DEBUG, "metrics accept: %s", strerror(errno));
			return;
		}
		struct metrics_conn *c = m->nr_conns < METRICS_MAX_CONNS ? calloc(1, sizeof(*c)) : NULL;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
		if (!c || epoll_ctl(m->srv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				ferryd_log(FERRY_LOG_DEBUG, "metrics: %s", strerror(errno));
			m->refused++;
			free(c);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->deadline_ms = now_ms() + METRICS_DEADLINE_MS;
		c->next = m->conns;
		m->conns = c;
		m->nr_conns++;
	}
}

bool metrics_event(struct server *srv, void *tag, unsigned events)
{
	struct metrics *m = srv->metrics;
	if (!m)
		return false;
	if (tag == &m->listen_tag) {
		accept_some(m);
		return true;
	}
	for (struct metrics_conn *c = m->conns; c; c = c->next) {
		if (c != tag)
			continue;
		if (c->draining)
			drain(c);
		else if (c->out)
			flush(m, c);
		else if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			read_request(m, c);
		if (c->dead)
			conn_close(m, c);
		return true;
	}
	return false;
}

int metrics_timeout_ms(const struct server *srv, int timeout_ms)
{
	const struct metrics *m = srv->metrics;
	if (!m || !m->conns)
		return timeout_ms;
	int64_t first = INT64_MAX;
	for (const struct metrics_conn *c = m->conns; c; c = c->next)
		if (c->deadline_ms < first)
			first = c->deadline_ms;
	int64_t left = first - now_ms();
	int mine = left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
	return timeout_ms < 0 || mine < timeout_ms ? mine : timeout_ms;
}

void metrics_expire(struct server *srv)
{
	struct metrics *m = srv->metrics;
	if (!m || !m->conns)
		return;
	int64_t now = now_ms();
	struct metrics_conn *c = m->conns;
	while (c) {
		struct metrics_conn *next = c->next;
		if (!c->dead && c->deadline_ms <= now)
			m->timeouts++;
		if (c->dead || c->deadline_ms <= now)
			conn_close(m, c);
		c = next;
	}
}

/* ---- the listening socket ---- */

static int start(struct server *srv, int fd, const char *name, const char *path, bool unlink_on_exit)
{
	struct metrics *m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		return -ENOMEM;
	}
	m->srv = srv;
	m->listen_fd = fd;
	m->unlink_on_exit = unlink_on_exit;
	m->started_ms = now_ms();
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->path, sizeof(m->path), "%s", path);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &m->listen_tag };
	if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int ret = -errno;
		if (unlink_on_exit)
			unlink(path);
		close(fd);
		free(m);
		return ret;
	}
	srv->metrics = m;
	ferryd_log(FERRY_LOG_INFO, "metrics on %s (GET /metrics)", name);
	return 0;
}

/* Whether host is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x) or "localhost". */
static bool loopback_host(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (!strcmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

int metrics_open(struct server *srv, const char *uri, bool allow_remote)
{
	struct ferry_uri u;
	char why[200];
	if (ferry_uri_parse(uri, &u, why, sizeof(why)) < 0 || u.kind == FERRY_URI_VIRTIO) {
		ferryd_log(FERRY_LOG_ERROR, "--metrics %s", u.kind == FERRY_URI_VIRTIO ? "takes unix:PATH or tcp:HOST:PORT" : why);
		return -EINVAL;
	}
	if (u.kind == FERRY_URI_UNIX) {
		int fd = ferryd_listen(u.path);
		if (fd < 0)
			return fd;
		char name[FERRY_URI_PATH_MAX + 8];
		snprintf(name, sizeof(name), "unix:%s", u.path);
		return start(srv, fd, name, u.path, true);
	}
	if (!loopback_host(u.host)) {
		if (!allow_remote) {
			ferryd_log(FERRY_LOG_ERROR, "--metrics %s: not a loopback address; the metrics tell anyone who can "
				   "reach them about this server's clients (--metrics-allow-remote serves them there anyway)",
				   uri);
			return -EPERM;
		}
		ferryd_log(FERRY_LOG_WARN, "--metrics %s: a non-loopback address (--metrics-allow-remote): anyone who "
			   "can reach it reads this server's counters", uri);
	}
	struct listener l;
	int ret = ferryd_listen_tcp(&u, &l);
	if (ret < 0)
		return ret;
	return start(srv, l.fd, l.name, "", false);
}

int metrics_adopt(struct server *srv, int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char name[FERRY_URI_PATH_MAX + 8] = "the service manager's socket";
	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)&ss;
		if (un->sun_path[0])
			snprintf(name, sizeof(name), "unix:%.*s", (int)strnlen(un->sun_path, sizeof(un->sun_path)), un->sun_path);
	} else if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
		char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
		snprintf(name, sizeof(name), ss.ss_family == AF_INET6 ? "tcp:[%s]:%s" : "tcp:%s:%s", host, port);
		if (!loopback_host(host))
			ferryd_log(FERRY_LOG_WARN, "metrics socket %s is not on a loopback address: anyone who can reach "
				   "it reads this server's counters", name);
	}
	return start(srv, fd, name, "", false);
}

void metrics_close(struct server *srv)
{
	struct metrics *m = srv->metrics;
	if (!m)
		return;
	while (m->conns)
		conn_close(m, m->conns);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, m->listen_fd, NULL);
	close(m->listen_fd);
	if (m->unlink_on_exit)
		unlink(m->path);
	free(m);
	srv->metrics = NULL;
}

const char *metrics_address(const struct server *srv)
{
	return srv->metrics ? srv->metrics->name : NULL;
}
