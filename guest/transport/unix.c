/* The unix-socket transport: a SOCK_STREAM connection to ferryd with SCM_RIGHTS fd passing,
 * framed by protocol/'s frame reader and sender. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "transport.h"

struct unix_transport {
	struct ferry_transport base;
	int sock;
	struct ferry_frame_reader reader;
	/* The reader keeps the current frame until the next recv asks for another. */
	int frame_pending;
	char name[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for events on fd; returns > 0 ready, 0 timeout, negative errno. */
static int wait_fd(int fd, short events, int64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		struct timespec ts, *tsp = NULL;
		if (deadline_ns >= 0) {
			int64_t left = deadline_ns - now_ns();
			if (left < 0)
				left = 0;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			tsp = &ts;
		}
		int r = ppoll(&pfd, 1, tsp, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		return r;
	}
}

static int unix_send(struct ferry_transport *t, const void *frame, size_t len, const int *fds,
		     int nfds)
{
	struct unix_transport *u = (struct unix_transport *)t;
	const uint8_t *p = frame;
	/* The socket is non-blocking (so recv can drain without blocking); a send waits for room
	 * with poll instead. The fds ride on the first byte that goes out. */
	while (len > 0) {
		long n = ferry_frame_send_some(u->sock, p, len, fds, nfds);
		if (n < 0)
			return (int)n;
		if (n == 0) {
			/* Full: let the owner take in replies meanwhile, else ferryd (waiting for us to
			 * read them before it reads on) and we would wait for each other. When another
			 * thread is the reader, look again now and then until it has drained. */
			bool reading = t->send_blocked && t->send_blocked(t->send_blocked_arg);
			int64_t deadline = t->send_blocked && !reading ? now_ns() + 10 * 1000 * 1000 : -1;
			int r = wait_fd(u->sock, POLLOUT | (reading ? POLLIN : 0), deadline);
			if (r < 0)
				return r;
			continue;
		}
		p += n;
		len -= (size_t)n;
		fds = NULL;
		nfds = 0;
	}
	return 0;
}

static int unix_recv(struct ferry_transport *t, int64_t timeout_ns,
		     struct ferry_transport_frame *out)
{
	struct unix_transport *u = (struct unix_transport *)t;
	int64_t deadline = timeout_ns < 0 ? -1 : now_ns() + timeout_ns;

	if (u->frame_pending) {
		ferry_frame_reader_next(&u->reader);
		u->frame_pending = 0;
	}
	for (;;) {
		int r = ferry_frame_read(u->sock, &u->reader);
		if (r == 1) {
			out->payload = u->reader.payload;
			out->len = u->reader.len;
			out->nfds = u->reader.nfds;
			memcpy(out->fds, u->reader.fds, sizeof(out->fds));
			u->reader.nfds = 0; /* the caller owns them now */
			u->frame_pending = 1;
			return 1;
		}
		if (r < 0)
			return r;
		if (timeout_ns == 0)
			return 0;
		r = wait_fd(u->sock, POLLIN, deadline);
		if (r < 0)
			return r;
		if (r == 0)
			return 0;
	}
}

static int unix_poll_fd(const struct ferry_transport *t)
{
	return ((const struct unix_transport *)t)->sock;
}

static void unix_destroy(struct ferry_transport *t)
{
	struct unix_transport *u = (struct unix_transport *)t;
	ferry_frame_reader_fini(&u->reader);
	close(u->sock);
	free(u);
}

static const struct ferry_transport_ops unix_ops = {
	.send = unix_send,
	.recv = unix_recv,
	.poll_fd = unix_poll_fd,
	.destroy = unix_destroy,
};

int ferry_transport_unix_from_fd(int fd, const char *name, struct ferry_transport **out)
{
	*out = NULL;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	struct unix_transport *u = calloc(1, sizeof(*u));
	if (!u) {
		close(fd);
		return -ENOMEM;
	}
	u->base.ops = &unix_ops;
	u->sock = fd;
	/* A tcp: connection rides this transport too: its name keeps its own scheme. */
	bool has_scheme = name && strncmp(name, "tcp:", 4) == 0;
	snprintf(u->name, sizeof(u->name), "%s%s", has_scheme ? "" : "unix:", name ? name : "");
	u->base.name = u->name;
	u->base.passes_fds = true;
	ferry_frame_reader_init(&u->reader);
	*out = &u->base;
	return 0;
}

int ferry_transport_unix_open(const char *path, struct ferry_transport **out)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	*out = NULL;
	if (!path || !path[0] || strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);

	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	return ferry_transport_unix_from_fd(fd, path, out);
}
