/* One client connection of ferryd: the frame reader feeding libferry-host, and a non-blocking
 * output queue (frames with their fds) drained on EPOLLOUT; a client that stops reading is cut
 * off once its queue passes FERRYD_OUT_CAP. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

struct out_frame {
	struct out_frame *next;
	size_t len, off;
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds; /* fds still to send: only before the frame's first byte went out */
	uint8_t data[];
};

struct conn {
	struct server *srv;
	struct conn *prev, *next;
	int fd;
	struct ferry_frame_reader reader;
	struct ferry_host_client *client;
	struct out_frame *out_head, *out_tail;
	size_t out_bytes;
	bool want_out;
	bool dead;
	char name[64];
};

static void set_dead(struct conn *c, const char *why)
{
	if (!c->dead)
		ferryd_log(FERRY_LOG_INFO, "%s: closing (%s)", c->name, why);
	c->dead = true;
}

static void update_epoll(struct conn *c, bool want_out)
{
	if (c->want_out == want_out || c->dead)
		return;
	struct epoll_event ev = { .events = EPOLLIN | (want_out ? EPOLLOUT : 0), .data.ptr = c };
	if (epoll_ctl(c->srv->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->want_out = want_out;
}

static void out_frame_free(struct out_frame *f)
{
	for (int i = 0; i < f->nfds; i++)
		close(f->fds[i]);
	free(f);
}

/* Sends queued frames until the socket is full. */
static void flush_out(struct conn *c)
{
	while (c->out_head && !c->dead) {
		struct out_frame *f = c->out_head;
		long n = ferry_frame_send_some(c->fd, f->data + f->off, f->len - f->off, f->fds, f->nfds);
		if (n < 0) {
			set_dead(c, strerror((int)-n));
			return;
		}
		if (n == 0)
			break;
		for (int i = 0; i < f->nfds; i++)
			close(f->fds[i]); /* they went with the first byte */
		f->nfds = 0;
		f->off += (size_t)n;
		c->out_bytes -= (size_t)n;
		if (f->off < f->len)
			break;
		c->out_head = f->next;
		if (!c->out_head)
			c->out_tail = NULL;
		free(f);
	}
	update_epoll(c, c->out_head != NULL);
}

/* libferry-host's send callback. */
static int conn_send(void *cookie, const void *frame, size_t len, const int *fds, int nfds)
{
	struct conn *c = cookie;
	if (c->dead)
		return -1;
	size_t sent = 0;
	if (!c->out_head) {
		long n = ferry_frame_send_some(c->fd, frame, len, fds, nfds);
		if (n < 0) {
			set_dead(c, strerror((int)-n));
			return -1;
		}
		sent = (size_t)n;
		if (sent == len)
			return 0;
	}
	size_t rest = len - sent;
	if (c->out_bytes + rest > FERRYD_OUT_CAP) {
		set_dead(c, "output queue over its cap: the client stopped reading");
		return -1;
	}
	struct out_frame *f = malloc(sizeof(*f) + rest);
	if (!f) {
		set_dead(c, "out of memory");
		return -1;
	}
	f->next = NULL;
	f->len = rest;
	f->off = 0;
	f->nfds = 0;
	memcpy(f->data, (const uint8_t *)frame + sent, rest);
	/* The caller lends the fds; if none went out yet, keep our own copies for later. */
	for (int i = 0; sent == 0 && i < nfds && i < FERRY_MAX_FRAME_FDS; i++) {
		int d = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);
		if (d < 0) {
			out_frame_free(f);
			set_dead(c, "cannot duplicate an fd");
			return -1;
		}
		f->fds[f->nfds++] = d;
	}
	if (c->out_tail)
		c->out_tail->next = f;
	else
		c->out_head = f;
	c->out_tail = f;
	c->out_bytes += rest;
	update_epoll(c, true);
	return 0;
}

static const struct ferry_host_client_ops conn_ops = { .send = conn_send };

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void read_frames(struct conn *c)
{
	int64_t slice_end = now_ns() + FERRYD_CLIENT_SLICE_NS;
	for (int i = 0; i < FERRYD_FRAMES_PER_WAKEUP && !c->dead && (i == 0 || now_ns() < slice_end); i++) {
		int r = ferry_frame_read(c->fd, &c->reader);
		if (r == 0)
			return;
		if (r < 0) {
			set_dead(c, r == -EPIPE ? "client closed the connection" : strerror(-r));
			return;
		}
		int fds[FERRY_MAX_FRAME_FDS];
		int nfds = c->reader.nfds;
		memcpy(fds, c->reader.fds, sizeof(fds));
		int ret = ferry_host_client_handle(c->client, c->reader.payload, c->reader.len, fds, nfds);
		ferry_frame_reader_next(&c->reader);
		if (ret < 0)
			set_dead(c, ret == -EPIPE ? "client gone" : "protocol violations");
	}
}

void conn_event(struct conn *c, unsigned events)
{
	if (events & EPOLLOUT)
		flush_out(c);
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		read_frames(c);
}

static struct conn *conn_new(struct server *srv, int fd)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->srv = srv;
	c->fd = fd;
	ferry_frame_reader_init(&c->reader);
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	unsigned id = ++srv->next_conn_id;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0)
		snprintf(c->name, sizeof(c->name), "client %u (pid %d uid %u)", id, (int)cred.pid, (unsigned)cred.uid);
	else
		snprintf(c->name, sizeof(c->name), "client %u", id);
	c->client = ferry_host_client_new(srv->host, &conn_ops, c, c->name);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	if (!c->client || epoll_ctl(srv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		ferry_host_client_free(c->client);
		ferry_frame_reader_fini(&c->reader);
		free(c);
		return NULL;
	}
	c->next = srv->conns;
	if (srv->conns)
		srv->conns->prev = c;
	srv->conns = c;
	return c;
}

void conn_reserve_fd_open(struct server *srv)
{
	srv->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* At most one line a second, so a persistent failure cannot flood the log. */
static void log_accept_failure(struct server *srv, int err)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec == srv->accept_log_sec) {
		srv->accept_log_suppressed++;
		return;
	}
	if (srv->accept_log_suppressed)
		ferryd_log(FERRY_LOG_WARN, "accept: %s (%lu more accept failures not logged)", strerror(err),
			   srv->accept_log_suppressed);
	else
		ferryd_log(FERRY_LOG_WARN, "accept: %s", strerror(err));
	srv->accept_log_sec = now.tv_sec;
	srv->accept_log_suppressed = 0;
}

/* Out of fds: the listen fd is level-triggered, so leaving the connection pending would wake us
 * forever. Free the reserve fd, accept the connection and close it at once (the client sees its
 * connection closed), then take the reserve back. Returns false when nothing could be shed. */
static bool shed_one(struct server *srv)
{
	if (srv->reserve_fd < 0)
		conn_reserve_fd_open(srv); /* fds may have been freed since */
	if (srv->reserve_fd < 0)
		return false;
	close(srv->reserve_fd);
	srv->reserve_fd = -1;
	int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0)
		close(fd);
	conn_reserve_fd_open(srv);
	return fd >= 0;
}

int conn_accept_all(struct server *srv)
{
	for (;;) {
		int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			int err = errno;
			if (err == EAGAIN || err == EINTR || err == ECONNABORTED)
				return 0;
			log_accept_failure(srv, err);
			if ((err == EMFILE || err == ENFILE) && shed_one(srv))
				continue;
			return -err;
		}
		if (!conn_new(srv, fd)) {
			ferryd_log(FERRY_LOG_WARN, "cannot set up a new client");
			close(fd);
		}
	}
}

static void conn_free(struct conn *c)
{
	struct server *srv = c->srv;
	if (c->prev)
		c->prev->next = c->next;
	else
		srv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	ferry_host_client_free(c->client);
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	ferry_frame_reader_fini(&c->reader);
	while (c->out_head) {
		struct out_frame *f = c->out_head;
		c->out_head = f->next;
		out_frame_free(f);
	}
	free(c);
}

void conn_reap_dead(struct server *srv)
{
	struct conn *c = srv->conns;
	while (c) {
		struct conn *next = c->next;
		if (c->dead)
			conn_free(c);
		c = next;
	}
}

void conn_free_all(struct server *srv)
{
	while (srv->conns)
		conn_free(srv->conns);
}
