/* Test certificates made with certtool (see itest_certs.h). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "itest_certs.h"

/* As test.h's REQUIRE, whose counters belong to the test's own file. */
#define REQUIRE(cond)                                                                         \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

int itest_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		return -1; /* a cut command would do something else */
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool itest_have_certtool(void)
{
	return itest_sh("certtool --version >/dev/null 2>&1") == 0;
}

void itest_write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	REQUIRE(f);
	fputs(text, f);
	REQUIRE(fclose(f) == 0);
}

void itest_make_cert(const char *dir, const char *name, const char *ca, const char *tmpl)
{
	char t[64];
	snprintf(t, sizeof(t), "%s.tmpl", name);
	itest_write_file(dir, t, tmpl);
	REQUIRE(itest_sh("cd %s && certtool --generate-privkey --key-type=ecdsa --outfile %s-key.pem >/dev/null 2>&1",
			 dir, name) == 0);
	if (!ca)
		REQUIRE(itest_sh("cd %s && certtool --generate-self-signed --load-privkey %s-key.pem --template %s "
				 "--outfile %s-cert.pem >/dev/null 2>&1", dir, name, t, name) == 0);
	else
		REQUIRE(itest_sh("cd %s && certtool --generate-certificate --load-privkey %s-key.pem "
				 "--load-ca-certificate %s-cert.pem --load-ca-privkey %s-key.pem --template %s "
				 "--outfile %s-cert.pem >/dev/null 2>&1", dir, name, ca, ca, t, name) == 0);
}

void itest_client_creds_dir(const char *dir, const char *name, const char *ca, const char *client)
{
	REQUIRE(itest_sh("mkdir -p %s/%s && cp %s/%s-cert.pem %s/%s/ca-cert.pem", dir, name, dir, ca, dir, name) == 0);
	if (client)
		REQUIRE(itest_sh("cp %s/%s-cert.pem %s/%s/client-cert.pem && cp %s/%s-key.pem %s/%s/client-key.pem",
				 dir, client, dir, name, dir, client, dir, name) == 0);
}

void itest_certs_make(const char *dir)
{
	itest_make_cert(dir, "ca", NULL, "cn = ferry test CA\nca\ncert_signing_key\nexpiration_days = 2\n");
	itest_make_cert(dir, "server", "ca", "cn = localhost\ndns_name = localhost\nip_address = 127.0.0.1\n"
			"tls_www_server\nsigning_key\nencryption_key\nexpiration_days = 2\n");
	itest_make_cert(dir, "client", "ca", "cn = good client\ntls_www_client\nsigning_key\nexpiration_days = 2\n");
	REQUIRE(itest_sh("mkdir -p %s/srv && cp %s/ca-cert.pem %s/server-cert.pem %s/server-key.pem %s/srv/",
			 dir, dir, dir, dir, dir) == 0);
	itest_client_creds_dir(dir, "good", "ca", "client");
	itest_client_creds_dir(dir, "nocert", "ca", NULL);
	itest_write_file(dir, "tokens", "# ferryd's tokens\n\n" ITEST_GOOD_TOKEN "\n  another-token-abcdefghij  \n");
	itest_write_file(dir, "good_token", "# mine\n" ITEST_GOOD_TOKEN "\n");
}
