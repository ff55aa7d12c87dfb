/* The guest's transport vtable: moves whole ferry frames (plus fds) to and from a ferryd.
 * libferry speaks only through this, so a TCP or virtio-gpu transport slots in beside unix. */
#ifndef FERRY_GUEST_TRANSPORT_H
#define FERRY_GUEST_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ferry/wire.h"

struct ferry_transport;

/* One received frame. payload is 8-byte aligned and valid until the next recv on the same
 * transport; the fds belong to the caller. */
struct ferry_transport_frame {
	const void *payload;
	size_t len;
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds;
};

struct ferry_transport_ops {
	/* Sends one whole encoded frame (length prefix included) with fds attached; blocks until
	 * it is all written. Safe against concurrent recv, not against another send. */
	int (*send)(struct ferry_transport *t, const void *frame, size_t len, const int *fds,
		    int nfds);
	/* Next frame: timeout_ns 0 = don't block, < 0 = forever. Returns 1 with *out filled,
	 * 0 when no whole frame arrived in time, or a negative errno (-EPIPE: server closed). */
	int (*recv)(struct ferry_transport *t, int64_t timeout_ns, struct ferry_transport_frame *out);
	/* An fd that polls readable when recv may have something, for callers that sleep on
	 * several fds at once. */
	int (*poll_fd)(const struct ferry_transport *t);
	void (*destroy)(struct ferry_transport *t);
	/* Optional: rings the doorbell of context ctx_id's submit ring from the calling thread, in
	 * place of a write to the doorbell fd its RingCreated carried (virtio-gpu: a KICK
	 * EXECBUFFER, without a hop through the notifier thread). 0 or -errno. */
	int (*ring_doorbell)(struct ferry_transport *t, uint32_t ctx_id);
};

struct ferry_transport {
	const struct ferry_transport_ops *ops;
	const char *name; /* for messages: "unix:/run/..." */
	/* Optional, set by the owner: called when send must wait for room. ferryd stops reading a
	 * client whose replies pile up unread, so a sender that is also the only reader would wait
	 * forever; this lets the owner read what arrived. Returns true if it read (and will again
	 * when woken), so send also wakes for incoming frames; false when another thread reads. */
	bool (*send_blocked)(void *arg);
	void *send_blocked_arg;
	/* Set by the transport when a send or recv failed with more to say than its errno ("the
	 * server at tcp:H:P expects TLS"); "" otherwise. */
	char error[256];
	/* Set by the transport: no memory is shared with ferryd (tcp). The fence pages and BO fds
	 * libferry gets are local copies remote.c keeps in step, so mapping a BO asks ferryd for its
	 * bytes (BoMap) and an unsignaled fence page is worth a look at the socket. */
	bool no_shared_memory;
	/* Set by the transport: frames carry fds as they are (unix), so a reply may bring several. */
	bool passes_fds;
};

/* Why the last ferry_transport_open of this thread failed, when the transport had more to say
 * than an errno ("TLS handshake with tcp:H:P failed: certificate not trusted (signer unknown)");
 * "" otherwise. */
const char *ferry_transport_open_error(void);
void ferry_transport_set_open_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Opens a transport by URI: "unix:PATH" (a bare absolute path is taken as unix too),
 * "tcp:HOST:PORT", "virtio:" (the first virtio-gpu render node whose host is ferry's) or
 * "virtio:/dev/dri/renderDNNN" (ferry/uri.h).
 * Returns 0, -EINVAL for an unknown scheme, or the connect error. */
int ferry_transport_open(const char *uri, struct ferry_transport **out);

struct ferry_virtio_caps;
/* virtio.c: path NULL or "" finds the node. -ENODEV when no node has ferry's capset. */
int ferry_transport_virtio_open(const char *path, struct ferry_transport **out);
/* 0 (and the capset in *caps, when not NULL) when the virtio-gpu node open at fd is served by
 * ferry's renderer; -ENODEV for another renderer, else the ioctl's error. */
int ferry_transport_virtio_probe(int fd, struct ferry_virtio_caps *caps);
/* virtio.c's device calls, for tools that speak to the device beside libferry (ferry bench --vm):
 * the node opened past the shim's /dev/dri interposition (the path always means the kernel's
 * node); an EXECBUFFER (fence_fd non-NULL: with an out-fence sync file); a guest-backed buffer
 * resource attached to this open's context. fd or 0, else -errno. */
int ferry_virtio_open_node(const char *path);
int ferry_virtio_execbuffer(int fd, const void *buf, size_t len, int *fence_fd);
int ferry_virtio_resource_new(int fd, uint64_t size, uint32_t *gem, uint32_t *res);
/* The first /dev/dri/renderD* whose virtio-gpu device is ferry's, into path; 0 or -ENODEV. */
int ferry_virtio_find_node(char *path, size_t len);

int ferry_transport_unix_open(const char *path, struct ferry_transport **out);
/* auth_token.c: FERRY_AUTH_TOKEN_FILE's token (its first line that is not blank or a # comment)
 * into buf, for Hello over tcp: 1, 0 when the variable is unset, or a negative errno with why. */
int ferry_auth_token(char *buf, size_t len, char *why, size_t why_len);
/* remote.c: wraps a transport that carries no fds (tcp) so libferry gets local fence pages and
 * BO memfds kept in step with ferryd's (docs/network.md). Takes ownership of inner, also on
 * failure. */
int ferry_transport_remote_wrap(struct ferry_transport *inner, struct ferry_transport **out);
struct ferry_wire_counters;
/* What a remote-wrapped transport moved each way (frames, bytes, BoData raw and on the wire);
 * -EINVAL for another transport. */
int ferry_transport_wire_counters(struct ferry_transport *t, struct ferry_wire_counters *tx,
				  struct ferry_wire_counters *rx);
/* tcp.c: "tcp:HOST:PORT", over TLS (stream.c) unless FERRY_INSECURE=1. Frames only, no fds. */
int ferry_transport_tcp_open(const char *uri, struct ferry_transport **out);
/* A connected TCP socket (TCP_NODELAY) to host:port, or a negative errno. */
int ferry_tcp_connect(const char *host, const char *port);
/* Wraps an already connected stream socket (takes ownership), e.g. one end of a socketpair. */
int ferry_transport_unix_from_fd(int fd, const char *name, struct ferry_transport **out);

static inline int ferry_transport_send(struct ferry_transport *t, const void *frame, size_t len,
				       const int *fds, int nfds)
{
	return t->ops->send(t, frame, len, fds, nfds);
}

static inline int ferry_transport_recv(struct ferry_transport *t, int64_t timeout_ns,
				       struct ferry_transport_frame *out)
{
	return t->ops->recv(t, timeout_ns, out);
}

static inline int ferry_transport_poll_fd(const struct ferry_transport *t)
{
	return t->ops->poll_fd(t);
}

static inline void ferry_transport_destroy(struct ferry_transport *t)
{
	if (t)
		t->ops->destroy(t);
}

#endif
