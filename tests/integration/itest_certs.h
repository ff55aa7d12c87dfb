/* Test certificates for ferryd's TLS listeners, made at test time with certtool (gnutls-bin) in
 * a private temp dir: a CA, a server certificate for 127.0.0.1 / localhost, a client one, and the
 * directories ferryd's --tls-creds and the client's FERRY_TLS_CREDS take. */
#ifndef FERRY_ITEST_CERTS_H
#define FERRY_ITEST_CERTS_H

#include <stdbool.h>

/* The token itest_certs_make writes to DIR/tokens (ferryd's --auth-tokens) and DIR/good_token
 * (the client's FERRY_AUTH_TOKEN_FILE). */
#define ITEST_GOOD_TOKEN "s3cret-token-0123456789"

/* True when certtool runs here (tests without it skip). */
bool itest_have_certtool(void);

/* Runs a shell command (printf format); its exit status, -1 if it did not exit. */
int itest_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes text to DIR/NAME (REQUIREs success). */
void itest_write_file(const char *dir, const char *name, const char *text);

/* DIR/NAME-key.pem and DIR/NAME-cert.pem, signed by DIR/CA-{cert,key}.pem (CA NULL: self-signed),
 * with the certtool template TMPL (REQUIREs success). */
void itest_make_cert(const char *dir, const char *name, const char *ca, const char *tmpl);

/* A client credential directory DIR/NAME: ca-cert.pem from CA and, when CLIENT is given, its
 * certificate and key as client-cert.pem / client-key.pem (REQUIREs success). */
void itest_client_creds_dir(const char *dir, const char *name, const char *ca, const char *client);

/* In the existing directory DIR: the CA "ca", "server" (127.0.0.1, localhost) and "client";
 * DIR/srv (ferryd's --tls-creds), DIR/good (the CA and the client's pair), DIR/nocert (the CA
 * only, for a client that authenticates with a token), DIR/tokens and DIR/good_token. */
void itest_certs_make(const char *dir);

#endif
