/* The tcp: transport's stream: frames over a connected TCP socket, plain (FERRY_INSECURE=1) or
 * in a TLS session (tls.c). No fds cross it and no memory is shared. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "stream.h"

static __thread char open_error[400];

const char *ferry_transport_open_error(void)
{
	return open_error;
}

void ferry_transport_set_open_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(open_error, sizeof(open_error), fmt, ap);
	va_end(ap);
}

int64_t ferry_stream_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* > 0 ready, 0 timeout (deadline_ns < 0: none), negative errno. */
int ferry_stream_wait(int fd, short events, int64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		int ms = -1;
		if (deadline_ns >= 0) {
			int64_t left = deadline_ns - ferry_stream_now_ns();
			ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
		}
		int r = poll(&pfd, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 ? -errno : r;
	}
}

static int stream_send(struct ferry_transport *t, const void *frame, size_t len, const int *fds, int nfds)
{
	struct stream *s = (struct stream *)t;
	(void)fds;
	if (nfds > 0)
		return -EOPNOTSUPP; /* a network peer takes no fds */
	const uint8_t *p = frame;
	while (len > 0) {
		ssize_t n;
		if (s->tls) {
			n = ferry_tls_send(s, p, len);
			if (n < 0)
				return (int)n;
		} else {
			n = send(s->sock, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				return -errno;
			if (n < 0)
				n = 0;
		}
		if (n == 0) {
			/* As the unix transport: let the owner read replies while ferryd waits for us to. */
			bool reading = t->send_blocked && t->send_blocked(t->send_blocked_arg);
			int64_t deadline = t->send_blocked && !reading ? ferry_stream_now_ns() + 10 * 1000 * 1000 : -1;
			int r = ferry_stream_wait(s->sock, POLLOUT | (reading ? POLLIN : 0), deadline);
			if (r < 0)
				return r;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static long plain_read(void *arg, void *buf, size_t len)
{
	struct stream *s = arg;
	ssize_t n = recv(s->sock, buf, len, MSG_DONTWAIT);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (long)n;
}

static int stream_recv(struct ferry_transport *t, int64_t timeout_ns, struct ferry_transport_frame *out)
{
	struct stream *s = (struct stream *)t;
	int64_t deadline = timeout_ns < 0 ? -1 : ferry_stream_now_ns() + timeout_ns;
	if (s->frame_pending) {
		ferry_frame_reader_next(&s->reader);
		s->frame_pending = 0;
	}
	for (;;) {
		/* Reads also what GnuTLS decrypted already, which the socket does not poll for. */
		int r = ferry_frame_read_from(&s->reader, s->tls ? ferry_tls_read : plain_read, s);
		if (!s->tls && !s->first_checked && s->reader.hdr_got >= 2) {
			s->first_checked = true;
			/* A TLS alert or handshake record (0x15/0x16, version 3.x) where a frame's length
			 * should be: the server speaks TLS. */
			if ((s->reader.hdr[0] == 0x15 || s->reader.hdr[0] == 0x16) && s->reader.hdr[1] == 0x03) {
				snprintf(t->error, sizeof(t->error), "the server at %.180s expects TLS (unset FERRY_INSECURE)",
					 s->name);
				return -EPROTO;
			}
		}
		if (r == 1) {
			out->payload = s->reader.payload;
			out->len = s->reader.len;
			out->nfds = 0;
			for (int i = 0; i < FERRY_MAX_FRAME_FDS; i++)
				out->fds[i] = -1;
			s->frame_pending = 1;
			return 1;
		}
		if (r < 0)
			return r;
		if (timeout_ns == 0)
			return 0;
		r = ferry_stream_wait(s->sock, POLLIN, deadline);
		if (r <= 0)
			return r;
	}
}

static int stream_poll_fd(const struct ferry_transport *t)
{
	return ((const struct stream *)t)->sock;
}

void ferry_stream_free(struct stream *s)
{
	ferry_tls_free(s);
	ferry_frame_reader_fini(&s->reader);
	if (s->sock >= 0)
		close(s->sock);
	free(s);
}

static void stream_destroy(struct ferry_transport *t)
{
	ferry_stream_free((struct stream *)t);
}

static const struct ferry_transport_ops stream_ops = {
	.send = stream_send,
	.recv = stream_recv,
	.poll_fd = stream_poll_fd,
	.destroy = stream_destroy,
};

struct stream *ferry_stream_new(int fd, const char *name)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return NULL;
	struct stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->base.ops = &stream_ops;
	s->sock = fd;
	s->first_byte = -1;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->base.name = s->name;
	ferry_frame_reader_init(&s->reader);
	return s;
}

int ferry_stream_plain(int fd, const char *name, struct ferry_transport **out)
{
	*out = NULL;
	struct stream *s = ferry_stream_new(fd, name);
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	*out = &s->base;
	return 0;
}

