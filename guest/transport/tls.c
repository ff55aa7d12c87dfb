/* TLS for the tcp: transport (GnuTLS): the server verified against the CA of FERRY_TLS_CREDS
 * (or ~/.config/ferry/tls, /etc/ferry/tls) and the URI's host; a client certificate when there is
 * one; the handshake's failures told in words. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "stream.h"

/* Thread safety: one thread may send while another receives. GnuTLS allows exactly that on one
 * session ("A gnutls_session_t object could also be shared by two threads, one sending, the
 * other receiving", GnuTLS manual, "Thread safety"), except during a TLS 1.2 rehandshake,
 * GNUTLS_AUTO_REAUTH, false start or termination: the handshake is over before the session is
 * shared, none of the others is asked for, and destroy alone ends it. So no lock. */

/* GnuTLS's transport: the socket, noting the server's first byte (a TLS server's is a record
 * type, 0x14..0x17; anything else is a plain ferryd answering in frames). Failures leave their
 * errno in the thread's errno, which GnuTLS reads by default: gnutls_transport_set_errno would
 * write one field shared by the sending and the receiving thread. */
static ssize_t tls_pull(gnutls_transport_ptr_t p, void *buf, size_t len)
{
	struct stream *s = p;
	ssize_t n = recv(s->sock, buf, len, 0);
	if (n > 0 && s->first_byte < 0)
		s->first_byte = ((uint8_t *)buf)[0];
	return n;
}

static int tls_pull_timeout(gnutls_transport_ptr_t p, unsigned ms)
{
	struct stream *s = p;
	struct pollfd pfd = { .fd = s->sock, .events = POLLIN };
	int r = poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);
	return r;
}

static ssize_t tls_push(gnutls_transport_ptr_t p, const void *buf, size_t len)
{
	struct stream *s = p;
	ssize_t n = send(s->sock, buf, len, MSG_NOSIGNAL);
	return n;
}

ssize_t ferry_tls_send(struct stream *s, const void *p, size_t len)
{
	for (;;) {
		ssize_t n = gnutls_record_send(s->tls, p, len);
		if (n == GNUTLS_E_INTERRUPTED)
			continue;
		if (n == GNUTLS_E_AGAIN)
			return 0; /* the same call again once there is room (gnutls_record_send(3)) */
		return n < 0 ? -EPIPE : n;
	}
}

long ferry_tls_read(void *arg, void *buf, size_t len)
{
	struct stream *s = arg;
	ssize_t r = gnutls_record_recv(s->tls, buf, len);
	if (r >= 0)
		return (long)r;
	if (r == GNUTLS_E_AGAIN)
		return -EAGAIN;
	if (r == GNUTLS_E_INTERRUPTED)
		return -EINTR;
	if (r == GNUTLS_E_PREMATURE_TERMINATION)
		return 0;
	snprintf(s->base.error, sizeof(s->base.error), "TLS with %.180s: %s", s->name, gnutls_strerror((int)r));
	return -EPROTO;
}

void ferry_tls_free(struct stream *s)
{
	if (s->tls)
		gnutls_deinit(s->tls);
	if (s->creds)
		gnutls_certificate_free_credentials(s->creds);
	s->tls = NULL;
	s->creds = NULL;
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* FERRY_TLS_CREDS, else the first of ~/.config/ferry/tls and /etc/ferry/tls holding ca-cert.pem. */
static bool creds_dir(char *buf, size_t len)
{
	const char *env = getenv("FERRY_TLS_CREDS");
	if (env && env[0]) {
		snprintf(buf, len, "%s", env);
		return true;
	}
	char cand[2][4096];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	cand[0][0] = '\0';
	if (xdg && xdg[0] == '/')
		snprintf(cand[0], sizeof(cand[0]), "%s/ferry/tls", xdg);
	else if (home && home[0] == '/')
		snprintf(cand[0], sizeof(cand[0]), "%s/.config/ferry/tls", home);
	snprintf(cand[1], sizeof(cand[1]), "/etc/ferry/tls");
	for (int i = 0; i < 2; i++) {
		char ca[4200];
		snprintf(ca, sizeof(ca), "%s/ca-cert.pem", cand[i]);
		if (cand[i][0] && readable(ca)) {
			snprintf(buf, len, "%s", cand[i]);
			return true;
		}
	}
	return false;
}

static const char *verify_text(unsigned status)
{
	if (status & GNUTLS_CERT_SIGNER_NOT_FOUND)
		return "certificate not trusted (signer unknown)";
	if (status & GNUTLS_CERT_UNEXPECTED_OWNER)
		return "certificate not issued for this host name or address";
	if (status & GNUTLS_CERT_REVOKED)
		return "certificate revoked";
	if (status & GNUTLS_CERT_EXPIRED)
		return "certificate expired";
	if (status & GNUTLS_CERT_NOT_ACTIVATED)
		return "certificate not yet valid";
	return "certificate not trusted";
}

static bool is_ip(const char *host)
{
	return strspn(host, "0123456789.") == strlen(host) || strchr(host, ':');
}

static int tls_setup(struct stream *s, const char *host, char *dir)
{
	char ca[4200], cert[4200], key[4200];
	snprintf(ca, sizeof(ca), "%s/ca-cert.pem", dir);
	snprintf(cert, sizeof(cert), "%s/client-cert.pem", dir);
	snprintf(key, sizeof(key), "%s/client-key.pem", dir);
	if (!readable(ca)) {
		ferry_transport_set_open_error("TLS to %s needs the CA that signed ferryd's certificate: no readable %s "
					       "(FERRY_TLS_CREDS)", s->name, ca);
		return -ENOENT;
	}
	if (gnutls_certificate_allocate_credentials(&s->creds) < 0)
		return -ENOMEM;
	int r = gnutls_certificate_set_x509_trust_file(s->creds, ca, GNUTLS_X509_FMT_PEM);
	if (r <= 0) {
		ferry_transport_set_open_error("TLS to %s: cannot use %s: %s", s->name, ca,
					       r < 0 ? gnutls_strerror(r) : "no certificate in it");
		return -EINVAL;
	}
	/* Half a client credential (a key missing or unreadable) would go unnoticed here and come
	 * back as ferryd's "client certificate required": say which file is the trouble. */
	bool has_cert = access(cert, F_OK) == 0, has_key = access(key, F_OK) == 0;
	if (has_cert || has_key) {
		const char *bad = !has_cert || !readable(cert) ? cert : !has_key || !readable(key) ? key : NULL;
		if (bad) {
			int e = access(bad, F_OK) == 0 ? EACCES : ENOENT;
			ferry_transport_set_open_error("TLS to %s: a client certificate needs both %s and %s: %s: %s",
						       s->name, cert, key, bad, strerror(e));
			return -e;
		}
		r = gnutls_certificate_set_x509_key_file(s->creds, cert, key, GNUTLS_X509_FMT_PEM);
		if (r < 0) {
			ferry_transport_set_open_error("TLS to %s: cannot use %s / %s: %s", s->name, cert, key,
						       gnutls_strerror(r));
			return -EINVAL;
		}
	}
	if (gnutls_init(&s->tls, GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL) < 0)
		return -ENOMEM;
	if (gnutls_set_default_priority(s->tls) < 0 ||
	    gnutls_credentials_set(s->tls, GNUTLS_CRD_CERTIFICATE, s->creds) < 0)
		return -EINVAL;
	if (!is_ip(host))
		gnutls_server_name_set(s->tls, GNUTLS_NAME_DNS, host, strlen(host));
	/* The server's certificate must chain to the CA and name the host (or hold the IP). */
	gnutls_session_set_verify_cert(s->tls, host, 0);
	gnutls_transport_set_ptr(s->tls, s);
	gnutls_transport_set_pull_function(s->tls, tls_pull);
	gnutls_transport_set_pull_timeout_function(s->tls, tls_pull_timeout);
	gnutls_transport_set_push_function(s->tls, tls_push);
	return 0;
}

/* The handshake, blocking up to 10 s. */
static int tls_handshake(struct stream *s)
{
	int64_t deadline = ferry_stream_now_ns() + 10ll * 1000 * 1000 * 1000;
	for (;;) {
		int r = gnutls_handshake(s->tls);
		if (r == 0)
			return 0;
		if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
			int w = ferry_stream_wait(s->sock, gnutls_record_get_direction(s->tls) ? POLLOUT : POLLIN, deadline);
			if (w < 0)
				return w;
			if (w == 0) {
				ferry_transport_set_open_error("TLS handshake with %s failed: no answer within 10 s", s->name);
				return -ETIMEDOUT;
			}
			continue;
		}
		if (s->first_byte >= 0 && (s->first_byte < 0x14 || s->first_byte > 0x17)) {
			ferry_transport_set_open_error("the server at %s speaks plain TCP (ferryd --insecure); set "
						       "FERRY_INSECURE=1", s->name);
			return -EPROTO;
		}
		if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
			ferry_transport_set_open_error("TLS handshake with %s failed: %s", s->name,
						       verify_text(gnutls_session_get_verify_cert_status(s->tls)));
			return -EACCES;
		}
		if (s->first_byte < 0 && (r == GNUTLS_E_PREMATURE_TERMINATION || r == GNUTLS_E_PUSH_ERROR ||
					  r == GNUTLS_E_PULL_ERROR)) {
			ferry_transport_set_open_error("TLS handshake with %s failed: the server closed the connection "
						       "(a plain-TCP ferryd --insecure, or one that refused us)", s->name);
			return -ECONNRESET;
		}
		ferry_transport_set_open_error("TLS handshake with %s failed: %s", s->name, gnutls_strerror(r));
		return -EPROTO;
	}
}

int ferry_stream_tls(int fd, const char *host, const char *name, struct ferry_transport **out)
{
	*out = NULL;
	struct stream *s = ferry_stream_new(fd, name);
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	char dir[4096];
	if (!creds_dir(dir, sizeof(dir))) {
		ferry_transport_set_open_error("TLS to %s needs the CA that signed ferryd's certificate: ca-cert.pem "
					       "in $FERRY_TLS_CREDS, ~/.config/ferry/tls or /etc/ferry/tls "
					       "(FERRY_INSECURE=1 for a plain ferryd --insecure)", name);
		ferry_stream_free(s);
		return -ENOENT;
	}
	int r = tls_setup(s, host, dir);
	if (r == 0)
		r = tls_handshake(s);
	if (r < 0) {
		if (!ferry_transport_open_error()[0])
			ferry_transport_set_open_error("TLS to %s: %s", name, strerror(-r));
		ferry_stream_free(s);
		return r;
	}
	*out = &s->base;
	return 0;
}
