/* Who may use a tcp: listener: ferryd's TLS credentials (QEMU's x509 directory layout), the
 * client certificate check, and the --auth-tokens list compared in constant time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/x509.h>

#include "conn_io.h"

/* A token: 16..256 printable ASCII characters, no spaces (docs/network.md). */
#define TOKEN_MIN 16u
#define TOKEN_MAX 256u

struct ferryd_auth {
	gnutls_certificate_credentials_t creds; /* NULL: no TLS */
	gnutls_priority_t prio;
	char **tokens;
	size_t nr_tokens;
	unsigned timeout_ms;
};

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

static int load_creds(struct ferryd_auth *a, const char *dir)
{
	char ca[4096], crl[4096], cert[4096], key[4096];
	if (snprintf(ca, sizeof(ca), "%s/ca-cert.pem", dir) >= (int)sizeof(ca) ||
	    snprintf(crl, sizeof(crl), "%s/ca-crl.pem", dir) >= (int)sizeof(crl) ||
	    snprintf(cert, sizeof(cert), "%s/server-cert.pem", dir) >= (int)sizeof(cert) ||
	    snprintf(key, sizeof(key), "%s/server-key.pem", dir) >= (int)sizeof(key)) {
		fprintf(stderr, "ferryd: --tls-creds %s: path too long\n", dir);
		return -ENAMETOOLONG;
	}
	const char *need[] = { ca, cert, key };
	for (int i = 0; i < 3; i++)
		if (!readable(need[i])) {
			fprintf(stderr, "ferryd: --tls-creds: cannot read %s: %s\n", need[i], strerror(errno));
			return -ENOENT;
		}
	int r = gnutls_certificate_allocate_credentials(&a->creds);
	if (r < 0)
		return -ENOMEM;
	r = gnutls_certificate_set_x509_trust_file(a->creds, ca, GNUTLS_X509_FMT_PEM);
	if (r <= 0) {
		fprintf(stderr, "ferryd: --tls-creds: %s: %s\n", ca, r < 0 ? gnutls_strerror(r) : "no certificate in it");
		return -EINVAL;
	}
	if (readable(crl)) {
		r = gnutls_certificate_set_x509_crl_file(a->creds, crl, GNUTLS_X509_FMT_PEM);
		if (r < 0) {
			fprintf(stderr, "ferryd: --tls-creds: %s: %s\n", crl, gnutls_strerror(r));
			return -EINVAL;
		}
	}
	r = gnutls_certificate_set_x509_key_file(a->creds, cert, key, GNUTLS_X509_FMT_PEM);
	if (r < 0) {
		fprintf(stderr, "ferryd: --tls-creds: %s / %s: %s\n", cert, key, gnutls_strerror(r));
		return -EINVAL;
	}
	r = gnutls_priority_init(&a->prio, "NORMAL:-VERS-TLS1.0:-VERS-TLS1.1", NULL);
	if (r < 0)
		return -EINVAL;
	return 0;
}

static bool token_ok(const char *t, size_t n)
{
	if (n < TOKEN_MIN || n > TOKEN_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (t[i] <= ' ' || t[i] > '~')
			return false;
	return true;
}

static int load_tokens(struct ferryd_auth *a, const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "ferryd: --auth-tokens %s: %s\n", path, strerror(errno));
		return -errno;
	}
	char line[1024];
	unsigned lineno = 0;
	int ret = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t n = strcspn(line, "\r\n");
		line[n] = '\0';
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		const char *t = line + strspn(line, " \t");
		n = strlen(t);
		if (n == 0 || t[0] == '#')
			continue;
		if (!token_ok(t, n)) {
			fprintf(stderr, "ferryd: --auth-tokens %s line %u: a token is %u..%u printable characters "
				"without spaces\n", path, lineno, TOKEN_MIN, TOKEN_MAX);
			ret = -EINVAL;
			break;
		}
		char **grown = realloc(a->tokens, (a->nr_tokens + 1) * sizeof(*grown));
		char *copy = strdup(t);
		if (!grown || !copy) {
			free(copy);
			if (grown)
				a->tokens = grown;
			ret = -ENOMEM;
			break;
		}
		a->tokens = grown;
		a->tokens[a->nr_tokens++] = copy;
	}
	fclose(f);
	if (ret == 0 && a->nr_tokens == 0) {
		fprintf(stderr, "ferryd: --auth-tokens %s holds no token\n", path);
		ret = -EINVAL;
	}
	return ret;
}

int ferryd_auth_load(const char *creds_dir, const char *tokens_file, unsigned timeout_ms,
		     struct ferryd_auth **out)
{
	*out = NULL;
	struct ferryd_auth *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->timeout_ms = timeout_ms ? timeout_ms : FERRYD_AUTH_TIMEOUT_MS_DEFAULT;
	int r = 0;
	if (creds_dir)
		r = load_creds(a, creds_dir);
	if (r == 0 && tokens_file)
		r = load_tokens(a, tokens_file);
	if (r < 0) {
		ferryd_auth_free(a);
		return r;
	}
	*out = a;
	return 0;
}

void ferryd_auth_free(struct ferryd_auth *a)
{
	if (!a)
		return;
	if (a->creds)
		gnutls_certificate_free_credentials(a->creds);
	if (a->prio)
		gnutls_priority_deinit(a->prio);
	for (size_t i = 0; i < a->nr_tokens; i++) {
		explicit_bzero(a->tokens[i], strlen(a->tokens[i]));
		free(a->tokens[i]);
	}
	free(a->tokens);
	free(a);
}

bool ferryd_auth_has_tls(const struct ferryd_auth *a)
{
	return a && a->creds;
}

unsigned ferryd_auth_timeout_ms(const struct ferryd_auth *a)
{
	return a ? a->timeout_ms : FERRYD_AUTH_TIMEOUT_MS_DEFAULT;
}

int ferryd_auth_session(const struct ferryd_auth *a, struct conn_io *io)
{
	gnutls_session_t s;
	if (gnutls_init(&s, GNUTLS_SERVER | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL) < 0)
		return -ENOMEM;
	if (gnutls_priority_set(s, a->prio) < 0 ||
	    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, a->creds) < 0) {
		gnutls_deinit(s);
		return -EINVAL;
	}
	/* Asked for, not required: a client may come with a token instead. Our CA's name is not
	 * sent, so a client offers the certificate it has even from another CA, and hears why it
	 * is refused instead of "certificate required". */
	gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
	gnutls_certificate_send_x509_rdn_sequence(s, 1);
	/* What an unauthenticated peer can make GnuTLS buffer: a handshake message (its
	 * certificate chain) of at most this much. */
	gnutls_handshake_set_max_packet_length(s, FERRYD_HANDSHAKE_MAX_BYTES);
	gnutls_transport_set_int(s, io->fd);
	gnutls_handshake_set_timeout(s, 0);
	io->tls = s;
	io->tls_again_len = 0;
	return 0;
}

const char *ferryd_auth_client_cert(struct conn_io *io)
{
	unsigned n = 0;
	if (!gnutls_certificate_get_peers(io->tls, &n) || n == 0)
		return NULL;
	unsigned status = 0;
	if (gnutls_certificate_verify_peers2(io->tls, &status) < 0)
		return "client certificate unusable";
	if (status == 0)
		return "";
	if (status & GNUTLS_CERT_REVOKED)
		return "client certificate revoked";
	if (status & GNUTLS_CERT_EXPIRED)
		return "client certificate expired";
	if (status & GNUTLS_CERT_NOT_ACTIVATED)
		return "client certificate not yet valid";
	if (status & GNUTLS_CERT_SIGNER_NOT_FOUND)
		return "client certificate not signed by ferryd's CA";
	return "client certificate not trusted";
}

/* Constant time in the candidate's bytes and over all tokens: no early exit tells an attacker
 * how much of a guess was right. */
static bool token_matches(const struct ferryd_auth *a, const char *token)
{
	size_t cl = strnlen(token, TOKEN_MAX + 1);
	unsigned ok = 0;
	for (size_t i = 0; i < a->nr_tokens; i++) {
		const char *t = a->tokens[i];
		size_t tl = strlen(t);
		unsigned d = tl != cl;
		for (size_t k = 0; k < tl; k++)
			d |= (unsigned char)t[k] ^ (unsigned char)(k < cl ? token[k] : 0);
		ok |= d == 0;
	}
	return ok != 0;
}

const char *ferryd_auth_check(const struct ferryd_auth *a, bool tls, const char *cert, const char *token)
{
	if (tls && cert && cert[0])
		return cert; /* a certificate presented must be good, whatever else comes */
	if (tls && cert)
		return NULL;
	if (!a || a->nr_tokens == 0)
		return tls ? "client certificate required" : NULL;
	if (!token || !token[0])
		return tls ? "client certificate or token required" : "token required";
	return token_matches(a, token) ? NULL : "wrong token";
}
