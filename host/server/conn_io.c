/* A client connection's byte stream: the plain socket (frames with SCM_RIGHTS fds) or a TLS
 * session over it, both non-blocking, for client_conn.c's frame reader and output queue. */
#include <errno.h>
#include <unistd.h>

#include "conn_io.h"

long conn_io_send(struct conn_io *io, const void *frame, size_t len, const int *fds, int nfds)
{
	if (!io->tls)
		return ferry_frame_send_some(io->fd, frame, len, fds, nfds);
	if (len == 0)
		return 0;
	/* After GNUTLS_E_AGAIN the record is already sealed inside GnuTLS: the retry must be the
	 * same call. The caller's queue head still starts with those bytes. */
	size_t n = io->tls_again_len && io->tls_again_len <= len ? io->tls_again_len : len;
	for (;;) {
		ssize_t r = gnutls_record_send(io->tls, frame, n);
		if (r == GNUTLS_E_INTERRUPTED)
			continue;
		if (r == GNUTLS_E_AGAIN) {
			io->tls_again_len = n;
			return 0;
		}
		io->tls_again_len = 0;
		if (r < 0)
			return -EPIPE;
		return (long)r;
	}
}

static long tls_read(void *arg, void *buf, size_t len)
{
	gnutls_session_t s = arg;
	ssize_t r = gnutls_record_recv(s, buf, len);
	if (r >= 0)
		return (long)r;
	switch (r) {
	case GNUTLS_E_AGAIN:
		return -EAGAIN;
	case GNUTLS_E_INTERRUPTED:
		return -EINTR;
	case GNUTLS_E_PREMATURE_TERMINATION:
		return 0; /* closed without a TLS close_notify: as good as an EOF for us */
	default:
		return -EPROTO;
	}
}

int conn_io_read_frame(struct conn_io *io, struct ferry_frame_reader *r)
{
	if (!io->tls)
		return ferry_frame_read(io->fd, r);
	return ferry_frame_read_from(r, tls_read, io->tls);
}

bool conn_io_pending(const struct conn_io *io)
{
	return io->tls && gnutls_record_check_pending(io->tls) > 0;
}

void conn_io_close(struct conn_io *io)
{
	if (io->tls)
		gnutls_deinit(io->tls);
	io->tls = NULL;
	if (io->fd >= 0)
		close(io->fd);
	io->fd = -1;
}
