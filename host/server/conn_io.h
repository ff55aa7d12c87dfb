/* One client connection's byte stream as ferryd's connection code sees it: the plain socket (unix
 * with fd passing, or --insecure tcp) or a TLS session over it (conn_io.c), and the TLS
 * credentials, client authentication and tokens of tcp: listeners (auth.c). */
#ifndef FERRYD_CONN_IO_H
#define FERRYD_CONN_IO_H

#include <stdbool.h>
#include <stddef.h>

#include <gnutls/gnutls.h>

#include "ferry/wire.h"

struct conn_io {
	int fd;
	gnutls_session_t tls; /* NULL: plain */
	/* A TLS record send that returned GNUTLS_E_AGAIN: GnuTLS wants the very same call again
	 * (gnutls_record_send(3)), so the next send of the queue head is cut to this length. */
	size_t tls_again_len;
};

/* Sends what the stream takes now of frame[0..len) (fds only on a plain socket, with the first
 * byte). Returns the bytes taken (0: full, wait for EPOLLOUT) or a negative errno. */
long conn_io_send(struct conn_io *io, const void *frame, size_t len, const int *fds, int nfds);
/* ferry_frame_read over the stream. */
int conn_io_read_frame(struct conn_io *io, struct ferry_frame_reader *r);
/* Bytes GnuTLS already decrypted and holds: the socket will not poll readable for them. */
bool conn_io_pending(const struct conn_io *io);
/* Ends the session (if any) and closes the fd. */
void conn_io_close(struct conn_io *io);

/* auth.c: --tls-creds, --auth-tokens, --auth-timeout-ms. */
struct ferryd_auth;
#define FERRYD_AUTH_TIMEOUT_MS_DEFAULT 10000u
/* The largest TLS handshake message a client may send (its certificate chain). */
#define FERRYD_HANDSHAKE_MAX_BYTES (64u << 10)
/* The first frame of a tcp: client (its HELLO) may be at most this long. */
#define FERRYD_HELLO_MAX_BYTES 4096u
/* Loads the credentials (creds_dir may be NULL: no TLS) and tokens (NULL: none). Prints why and
 * returns a negative errno when they cannot be used. */
int ferryd_auth_load(const char *creds_dir, const char *tokens_file, unsigned timeout_ms,
		     struct ferryd_auth **out);
void ferryd_auth_free(struct ferryd_auth *a);
bool ferryd_auth_has_tls(const struct ferryd_auth *a);
unsigned ferryd_auth_timeout_ms(const struct ferryd_auth *a);
/* A server session on fd (non-blocking), asking for a client certificate. 0 or -errno. */
int ferryd_auth_session(const struct ferryd_auth *a, struct conn_io *io);
/* After the handshake: NULL when the client presented no certificate, "" when it presented a
 * good one, else why it is refused ("client certificate expired", ...). */
const char *ferryd_auth_client_cert(struct conn_io *io);
/* The verdict on a client at its HELLO: NULL to serve it, else the reason to refuse it with.
 * cert: ferryd_auth_client_cert's answer (tls) ; token: Hello.token (may be NULL). */
const char *ferryd_auth_check(const struct ferryd_auth *a, bool tls, const char *cert, const char *token);

#endif
