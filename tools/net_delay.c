/* The bench's delay line: one thread, poll(), and per direction a queue of chunks each sent when
 * its due time has come, so latency grows by the delay and throughput is not capped. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net_delay.h"

#define NET_DELAY_MAX_PAIRS 64
#define NET_DELAY_CHUNK 65536
/* Bytes one direction may hold in flight before the relay stops reading it (back-pressure). */
#define NET_DELAY_MAX_QUEUED (8u << 20)

struct chunk {
	struct chunk *next;
	int64_t due_ns;
	size_t len, off;
	uint8_t data[];
};

struct pipe_dir {
	int from, to;
	struct chunk *head, *tail;
	size_t queued;
	bool eof;
	bool blocked; /* the last send found the peer's buffer full: wait for POLLOUT */
};

struct pair {
	bool used;
	struct pipe_dir dir[2]; /* 0: client -> server, 1: server -> client */
};

struct net_delay {
	pthread_t thread;
	int listen_fd, stop_fd;
	int64_t delay_ns;
	char host[256], port[8];
	struct pair pairs[NET_DELAY_MAX_PAIRS];
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *res;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -EHOSTUNREACH;
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return -ECONNREFUSED;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void pair_close(struct pair *p)
{
	for (int d = 0; d < 2; d++) {
		while (p->dir[d].head) {
			struct chunk *c = p->dir[d].head;
			p->dir[d].head = c->next;
			free(c);
		}
	}
	close(p->dir[0].from);
	close(p->dir[0].to);
	memset(p, 0, sizeof(*p));
}

static void accept_one(struct net_delay *d)
{
	int c = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	int s = connect_to(d->host, d->port);
	struct pair *p = NULL;
	for (int i = 0; i < NET_DELAY_MAX_PAIRS && !p; i++)
		if (!d->pairs[i].used)
			p = &d->pairs[i];
	if (s < 0 || !p) {
		close(c);
		if (s >= 0)
			close(s);
		return;
	}
	int one = 1;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	p->used = true;
	p->dir[0] = (struct pipe_dir){ .from = c, .to = s };
	p->dir[1] = (struct pipe_dir){ .from = s, .to = c };
}

/* Reads what arrived into a chunk due delay_ns from now. false when the pair is done. */
static bool pump_in(struct net_delay *d, struct pipe_dir *pd)
{
	struct chunk *c = malloc(sizeof(*c) + NET_DELAY_CHUNK);
	if (!c)
		return false;
	ssize_t n = recv(pd->from, c->data, NET_DELAY_CHUNK, MSG_DONTWAIT);
	if (n <= 0) {
		free(c);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		pd->eof = true; /* forwarded as a shutdown once the queue drained */
		return true;
	}
	c->next = NULL;
	c->len = (size_t)n;
	c->off = 0;
	c->due_ns = now_ns() + d->delay_ns;
	if (pd->tail)
		pd->tail->next = c;
	else
		pd->head = c;
	pd->tail = c;
	pd->queued += (size_t)n;
	return true;
}

/* Sends the chunks that are due. false on a write error. */
static bool pump_out(struct pipe_dir *pd, int64_t now)
{
	while (pd->head && pd->head->due_ns <= now) {
		struct chunk *c = pd->head;
		ssize_t n = send(pd->to, c->data + c->off, c->len - c->off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			pd->blocked = errno == EAGAIN;
			return errno == EAGAIN || errno == EINTR;
		}
		pd->blocked = false;
		c->off += (size_t)n;
		pd->queued -= (size_t)n;
		if (c->off < c->len)
			return true;
		pd->head = c->next;
		if (!pd->head)
			pd->tail = NULL;
		free(c);
	}
	if (!pd->head && pd->eof)
		shutdown(pd->to, SHUT_WR);
	return true;
}

static void *relay_thread(void *arg)
{
	struct net_delay *d = arg;
	struct pollfd pfd[2 + 4 * NET_DELAY_MAX_PAIRS];
	for (;;) {
		int64_t now = now_ns(), next_due = -1;
		int n = 0;
		pfd[n++] = (struct pollfd){ .fd = d->stop_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = d->listen_fd, .events = POLLIN };
		for (int i = 0; i < NET_DELAY_MAX_PAIRS; i++) {
			struct pair *p = &d->pairs[i];
			if (!p->used)
				continue;
			for (int k = 0; k < 2; k++) {
				struct pipe_dir *pd = &p->dir[k];
				if (!pump_out(pd, now)) {
					pair_close(p);
					break;
				}
				if (pd->head && !pd->blocked && (next_due < 0 || pd->head->due_ns < next_due))
					next_due = pd->head->due_ns;
			}
			if (!p->used)
				continue;
			if (p->dir[0].eof && p->dir[1].eof && !p->dir[0].head && !p->dir[1].head) {
				pair_close(p);
				continue;
			}
			for (int k = 0; k < 2; k++) {
				struct pipe_dir *pd = &p->dir[k];
				bool want_in = !pd->eof && pd->queued < NET_DELAY_MAX_QUEUED;
				pfd[n++] = (struct pollfd){ .fd = want_in ? pd->from : -1, .events = POLLIN };
				pfd[n++] = (struct pollfd){ .fd = pd->blocked ? pd->to : -1, .events = POLLOUT };
			}
		}
		int timeout = -1;
		if (next_due >= 0) {
			int64_t left = next_due - now_ns();
			timeout = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
			/* poll's millisecond timeout would round a 1 ms delay to 2: spin the last stretch. */
			if (left < 1000000)
				timeout = 0;
		}
		int r = poll(pfd, (nfds_t)n, timeout);
		if (r < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		int k = 2;
		for (int i = 0; i < NET_DELAY_MAX_PAIRS && k < n; i++) {
			struct pair *p = &d->pairs[i];
			if (!p->used)
				continue;
			for (int j = 0; j < 2 && k + 1 < n; j++, k += 2) {
				if (pfd[k].fd >= 0 && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
					pump_in(d, &p->dir[j]);
				if (pfd[k + 1].fd >= 0 && pfd[k + 1].revents)
					p->dir[j].blocked = false; /* room again: pump_out tries next pass */
			}
		}
		/* Last: a new pair must not shift the slots the loop above maps to pfd[]. */
		if (pfd[1].revents & POLLIN)
			accept_one(d);
	}
	return NULL;
}

int net_delay_start(const char *listen_host, const char *target_host, const char *target_port,
		    unsigned delay_us, struct net_delay **out, unsigned *port)
{
	struct net_delay *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->delay_ns = (int64_t)delay_us * 1000;
	snprintf(d->host, sizeof(d->host), "%s", target_host);
	snprintf(d->port, sizeof(d->port), "%s", target_port);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res;
	if (getaddrinfo(listen_host, "0", &hints, &res) != 0) {
		free(d);
		return -EADDRNOTAVAIL;
	}
	d->listen_fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = 0;
	if (d->listen_fd < 0 || bind(d->listen_fd, res->ai_addr, res->ai_addrlen) < 0 || listen(d->listen_fd, 64) < 0)
		err = -errno;
	freeaddrinfo(res);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char ps[8] = "0";
	if (!err && getsockname(d->listen_fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, NULL, 0, ps, sizeof(ps), NI_NUMERICSERV);
	d->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (!err && d->stop_fd < 0)
		err = -errno;
	if (!err) {
		err = -pthread_create(&d->thread, NULL, relay_thread, d);
	}
	if (err) {
		if (d->listen_fd >= 0)
			close(d->listen_fd);
		if (d->stop_fd >= 0)
			close(d->stop_fd);
		free(d);
		return err;
	}
	*port = (unsigned)atoi(ps);
	*out = d;
	return 0;
}

void net_delay_stop(struct net_delay *d)
{
	if (!d)
		return;
	uint64_t one = 1;
	if (write(d->stop_fd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(d->thread);
	pthread_join(d->thread, NULL);
	for (int i = 0; i < NET_DELAY_MAX_PAIRS; i++)
		if (d->pairs[i].used)
			pair_close(&d->pairs[i]);
	close(d->listen_fd);
	close(d->stop_fd);
	free(d);
}
