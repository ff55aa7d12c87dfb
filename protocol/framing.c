/* Frames over a stream socket: u32 little-endian length, payload, and up to FERRY_MAX_FRAME_FDS
 * fds riding on the frame's first byte (SCM_RIGHTS). Reading and sending, blocking or not. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ferry/wire.h"

/* Control buffer for FERRY_MAX_FRAME_FDS fds plus the credentials a server with SO_PASSCRED
 * gets on every read. A sender attaching more fds either overflows it (MSG_CTRUNC: the kernel
 * closes what did not fit) or fills the credentials' room; the reader refuses both. */
union fd_control {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int) * FERRY_MAX_FRAME_FDS) + CMSG_SPACE(sizeof(struct ucred))];
};

/* First payload allocation; later frames grow it by doubling and it is kept between frames. */
#define PAYLOAD_MIN_CAP 4096u

void ferry_frame_reader_init(struct ferry_frame_reader *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < FERRY_MAX_FRAME_FDS; i++)
		r->fds[i] = -1;
	r->max_len = FERRY_MAX_FRAME_SIZE;
}

static void drop_fds(struct ferry_frame_reader *r)
{
	for (int i = 0; i < r->nfds; i++) {
		close(r->fds[i]);
		r->fds[i] = -1;
	}
	r->nfds = 0;
}

void ferry_frame_reader_fini(struct ferry_frame_reader *r)
{
	drop_fds(r);
	free(r->payload);
	ferry_frame_reader_init(r);
}

void ferry_frame_reader_next(struct ferry_frame_reader *r)
{
	for (int i = 0; i < FERRY_MAX_FRAME_FDS; i++)
		r->fds[i] = -1;
	r->nfds = 0;
	r->hdr_got = 0;
	r->len = 0;
	r->payload_got = 0;
}

static int frame_complete(const struct ferry_frame_reader *r)
{
	return r->hdr_got == FERRY_FRAME_HDR_SIZE && r->payload_got == r->len;
}

/* Keeps every SCM_RIGHTS fd that arrived. Any surplus or truncation poisons the frame: all of its
 * fds are closed so none leaks into the process. */
static int take_fds(struct ferry_frame_reader *r, struct msghdr *mh)
{
	int bad = (mh->msg_flags & MSG_CTRUNC) != 0;
	const char *control_end = (const char *)mh->msg_control + mh->msg_controllen;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		const char *data = (const char *)CMSG_DATA(c);
		size_t data_len = c->cmsg_len >= CMSG_LEN(0) ? c->cmsg_len - CMSG_LEN(0) : 0;
		if (data_len > (size_t)(control_end - data))
			data_len = (size_t)(control_end - data);
		size_t n = data_len / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;
			memcpy(&fd, data + i * sizeof(int), sizeof(fd));
			if (r->nfds < FERRY_MAX_FRAME_FDS) {
				r->fds[r->nfds++] = fd;
			} else {
				close(fd);
				bad = 1;
			}
		}
	}
	if (bad) {
		drop_fds(r);
		return -EBADMSG;
	}
	return 0;
}

static int ensure_payload_cap(struct ferry_frame_reader *r, uint32_t len)
{
	if (len <= r->payload_cap && r->payload)
		return 0;
	size_t cap = r->payload_cap ? r->payload_cap : PAYLOAD_MIN_CAP;
	while (cap < len)
		cap = cap > SIZE_MAX / 2 ? len : cap * 2; /* 32-bit hosts with a raised max_len */
	/* Nothing of the new frame is in the buffer yet, so no copy: malloc's alignment (at least
	 * that of uint64_t) is the 8 bytes the decoder needs. */
	uint8_t *p = malloc(cap);
	if (!p)
		return -ENOMEM;
	free(r->payload);
	r->payload = p;
	r->payload_cap = cap;
	return 0;
}

/* Takes n bytes just read into the header or payload; 0, or -EMSGSIZE / -ENOMEM. */
static int frame_advance(struct ferry_frame_reader *r, size_t n)
{
	if (r->hdr_got < FERRY_FRAME_HDR_SIZE) {
		r->hdr_got += n;
		if (r->hdr_got < FERRY_FRAME_HDR_SIZE)
			return 0;
		uint32_t len = (uint32_t)r->hdr[0] | (uint32_t)r->hdr[1] << 8 | (uint32_t)r->hdr[2] << 16 |
			       (uint32_t)r->hdr[3] << 24;
		if (len > r->max_len)
			return -EMSGSIZE;
		int err = ensure_payload_cap(r, len);
		if (err)
			return err;
		r->len = len;
		r->payload_got = 0;
	} else {
		r->payload_got += n;
	}
	return 0;
}

/* Where the next bytes go: never past this frame, so the next frame's fds (or bytes another
 * layer buffers) are never taken with it. */
static void frame_want(struct ferry_frame_reader *r, void **p, size_t *len)
{
	if (r->hdr_got < FERRY_FRAME_HDR_SIZE) {
		*p = r->hdr + r->hdr_got;
		*len = FERRY_FRAME_HDR_SIZE - r->hdr_got;
	} else {
		*p = r->payload + r->payload_got;
		*len = r->len - r->payload_got;
	}
}

int ferry_frame_read(int sock, struct ferry_frame_reader *r)
{
	for (;;) {
		if (frame_complete(r))
			return 1;

		struct iovec iov;
		frame_want(r, &iov.iov_base, &iov.iov_len);
		union fd_control control;
		struct msghdr mh = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = control.buf,
			.msg_controllen = sizeof(control.buf),
		};
		ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0) {
			int err = errno;
			if (err == EINTR)
				continue;
			if (err == EAGAIN || err == EWOULDBLOCK)
				return 0;
			drop_fds(r);
			return -err;
		}
		int err = take_fds(r, &mh);
		if (err)
			return err;
		if (n == 0) {
			int at_boundary = r->hdr_got == 0;
			drop_fds(r);
			return at_boundary ? -EPIPE : -ECONNRESET;
		}
		err = frame_advance(r, (size_t)n);
		if (err) {
			drop_fds(r);
			return err;
		}
	}
}

int ferry_frame_read_from(struct ferry_frame_reader *r, ferry_frame_read_fn read, void *arg)
{
	for (;;) {
		if (frame_complete(r))
			return 1;
		void *p;
		size_t want;
		frame_want(r, &p, &want);
		long n = read(arg, p, want);
		if (n == -EINTR)
			continue;
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return (int)n;
		if (n == 0)
			return r->hdr_got == 0 ? -EPIPE : -ECONNRESET;
		if ((size_t)n > want)
			return -EPROTO;
		int err = frame_advance(r, (size_t)n);
		if (err)
			return err;
	}
}

static int check_send_args(const void *frame, size_t len, const int *fds, int nfds)
{
	if (nfds < 0 || nfds > FERRY_MAX_FRAME_FDS || (nfds > 0 && !fds))
		return -EINVAL;
	if (len > 0 && !frame)
		return -EINVAL;
	/* fds need a byte to ride on. */
	if (len == 0 && nfds > 0)
		return -EINVAL;
	return 0;
}

static ssize_t send_chunk(int sock, const uint8_t *p, size_t n, const int *fds, int nfds, int flags)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };
	union fd_control control;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds > 0) {
		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	return sendmsg(sock, &mh, flags | MSG_NOSIGNAL);
}

int ferry_frame_send(int sock, const void *frame, size_t len, const int *fds, int nfds)
{
	int err = check_send_args(frame, len, fds, nfds);
	if (err)
		return err;
	const uint8_t *p = frame;
	size_t off = 0;
	while (off < len) {
		int first = off == 0;
		ssize_t n = send_chunk(sock, p + off, len - off, first ? fds : NULL, first ? nfds : 0, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				/* A non-blocking socket handed to the blocking call: wait for room. */
				struct pollfd pfd = { .fd = sock, .events = POLLOUT };
				if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
					return -errno;
				continue;
			}
			return -errno;
		}
		off += (size_t)n;
	}
	return 0;
}

long ferry_frame_send_some(int sock, const void *frame, size_t len, const int *fds, int nfds)
{
	int err = check_send_args(frame, len, fds, nfds);
	if (err)
		return err;
	if (len == 0)
		return 0;
	for (;;) {
		ssize_t n = send_chunk(sock, frame, len, fds, nfds, MSG_DONTWAIT);
		if (n >= 0)
			return (long)n;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -errno;
	}
}
