/* The address syntax of ferryd endpoints, parsed in one place for ferryd's --listen, libferry's
 * transports and every tool's --server. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/uri.h"

static int fail(char *why, size_t why_len, const char *uri, const char *reason)
{
	if (why && why_len)
		snprintf(why, why_len, "'%s': %s", uri, reason);
	return -EINVAL;
}

static int parse_tcp(const char *uri, const char *rest, struct ferry_uri *out, char *why, size_t why_len)
{
	const char *host = rest, *colon;
	size_t host_len;
	if (rest[0] == '[') {
		const char *close = strchr(rest, ']');
		if (!close || close[1] != ':')
			return fail(why, why_len, uri, "an IPv6 address is written [ADDR]:PORT");
		host = rest + 1;
		host_len = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = strrchr(rest, ':');
		if (!colon)
			return fail(why, why_len, uri, "want tcp:HOST:PORT");
		host_len = (size_t)(colon - rest);
		if (memchr(rest, ':', host_len))
			return fail(why, why_len, uri, "an IPv6 address is written [ADDR]:PORT");
	}
	if (host_len == 0)
		return fail(why, why_len, uri, "no host (use 0.0.0.0 or [::] for every address)");
	if (host_len >= sizeof(out->host))
		return fail(why, why_len, uri, "host name too long");
	const char *port = colon + 1;
	char *end;
	errno = 0;
	unsigned long p = strtoul(port, &end, 10);
	/* Digits only: strtoul would also take leading blanks and a sign. */
	if (!port[0] || strspn(port, "0123456789") != strlen(port) || *end || errno || p > 65535 || strlen(port) > 5)
		return fail(why, why_len, uri, "the port must be a number 0..65535");
	memcpy(out->host, host, host_len);
	out->host[host_len] = '\0';
	snprintf(out->port, sizeof(out->port), "%lu", p);
	out->kind = FERRY_URI_TCP;
	return 0;
}

int ferry_uri_parse(const char *uri, struct ferry_uri *out, char *why, size_t why_len)
{
	memset(out, 0, sizeof(*out));
	if (!uri || !uri[0])
		return fail(why, why_len, uri ? uri : "", "empty address");
	const char *path = NULL;
	if (strncmp(uri, "unix:", 5) == 0)
		path = uri + 5;
	else if (uri[0] == '/')
		path = uri;
	if (path) {
		if (!path[0])
			return fail(why, why_len, uri, "no socket path");
		if (strlen(path) >= sizeof(out->path))
			return fail(why, why_len, uri, "socket path too long (a unix socket path has 107 bytes at most)");
		snprintf(out->path, sizeof(out->path), "%s", path);
		out->kind = FERRY_URI_UNIX;
		return 0;
	}
	if (strncmp(uri, "tcp:", 4) == 0)
		return parse_tcp(uri, uri + 4, out, why, why_len);
	if (strncmp(uri, "virtio:", 7) == 0) {
		if (strlen(uri + 7) >= sizeof(out->path))
			return fail(why, why_len, uri, "node path too long");
		snprintf(out->path, sizeof(out->path), "%s", uri + 7);
		out->kind = FERRY_URI_VIRTIO;
		return 0;
	}
	return fail(why, why_len, uri, "unknown address; want unix:PATH, tcp:HOST:PORT or virtio:[NODE]");
}

bool ferry_uri_is_remote(const char *uri)
{
	return uri && strncmp(uri, "tcp:", 4) == 0;
}
