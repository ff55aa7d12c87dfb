/* The token a tcp: client presents in Hello (FERRY_AUTH_TOKEN_FILE): one reader for libferry's
 * handshake and for tools that say Hello themselves (ferry replay). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

int ferry_auth_token(char *buf, size_t len, char *why, size_t why_len)
{
	const char *path = getenv("FERRY_AUTH_TOKEN_FILE");
	if (!path || !path[0])
		return 0;
	FILE *f = fopen(path, "re");
	if (!f) {
		int e = errno;
		snprintf(why, why_len, "FERRY_AUTH_TOKEN_FILE %s: %s", path, strerror(e));
		return -e;
	}
	int found = 0;
	char line[1024];
	while (!found && fgets(line, sizeof(line), f)) {
		char *t = line + strspn(line, " \t");
		size_t n = strcspn(t, "\r\n");
		while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
			n--;
		t[n] = '\0';
		if (n && t[0] != '#') {
			snprintf(buf, len, "%s", t);
			found = 1;
		}
	}
	explicit_bzero(line, sizeof(line));
	fclose(f);
	if (!found) {
		snprintf(why, why_len, "FERRY_AUTH_TOKEN_FILE %s holds no token", path);
		return -EINVAL;
	}
	return 1;
}
