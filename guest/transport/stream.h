/* The tcp: transport's byte stream (stream.c): frames over a connected socket, plain or in a TLS
 * session (tls.c; tls_none.c in static builds, which cannot link GnuTLS). */
#ifndef FERRY_GUEST_STREAM_H
#define FERRY_GUEST_STREAM_H

#include <stdbool.h>
#include <sys/types.h>

#include "transport.h"

/* GnuTLS's handle types, named without its header. */
struct gnutls_session_int;
struct gnutls_certificate_credentials_st;

struct stream {
	struct ferry_transport base;
	int sock;
	struct gnutls_session_int *tls; /* NULL: plain */
	struct gnutls_certificate_credentials_st *creds;
	struct ferry_frame_reader reader;
	int frame_pending;
	bool first_checked; /* plain: the first bytes were looked at (a TLS record?) */
	int first_byte;     /* TLS: the first byte the server sent, -1 before any */
	char name[300];
};

/* Both take fd (connected) and close it on failure. name: "tcp:HOST:PORT", for messages. */
int ferry_stream_plain(int fd, const char *name, struct ferry_transport **out);
/* Verifies the server against the CA of FERRY_TLS_CREDS (or the default directories) and host;
 * presents client-cert.pem when there is one. Failing, ferry_transport_open_error() says why. */
int ferry_stream_tls(int fd, const char *host, const char *name, struct ferry_transport **out);

/* stream.c, for tls.c */
struct stream *ferry_stream_new(int fd, const char *name);
void ferry_stream_free(struct stream *s);
int64_t ferry_stream_now_ns(void);
/* poll: > 0 ready, 0 at the deadline (< 0: none), or a negative errno. */
int ferry_stream_wait(int fd, short events, int64_t deadline_ns);

/* tls.c, for stream.c: bytes taken (0: full, call again with the same arguments) or -errno; a
 * ferry_frame_read_fn on the session; ends the session. */
ssize_t ferry_tls_send(struct stream *s, const void *p, size_t len);
long ferry_tls_read(void *stream, void *buf, size_t len);
void ferry_tls_free(struct stream *s);

#endif
