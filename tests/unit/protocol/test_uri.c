/* The one address parser (protocol/uri.c): unix paths, tcp HOST:PORT with names, IPv4 and
 * bracketed IPv6, the port's rules, and what is too long. */
#include <errno.h>
#include <string.h>

#include "ferry/uri.h"
#include "test.h"

static void ok(const char *uri, enum ferry_uri_kind kind, const char *a, const char *b)
{
	struct ferry_uri u;
	char why[200] = "";
	int r = ferry_uri_parse(uri, &u, why, sizeof(why));
	if (r != 0)
		fprintf(stderr, "  '%s' refused: %s\n", uri, why);
	CHECK_EQ(r, 0);
	CHECK_EQ(u.kind, kind);
	if (kind == FERRY_URI_TCP) {
		CHECK(strcmp(u.host, a) == 0);
		CHECK(strcmp(u.port, b) == 0);
	} else {
		CHECK(strcmp(u.path, a) == 0);
	}
}

static void bad(const char *uri, const char *needle)
{
	struct ferry_uri u;
	char why[300] = "";
	int r = ferry_uri_parse(uri, &u, why, sizeof(why));
	if (r != -EINVAL || !strstr(why, needle))
		fprintf(stderr, "  '%s': %d \"%s\", want -EINVAL with \"%s\"\n", uri, r, why, needle);
	CHECK_EQ(r, -EINVAL);
	CHECK(strstr(why, needle) != NULL);
}

static void test_unix_and_virtio(void)
{
	ok("unix:/run/ferry.sock", FERRY_URI_UNIX, "/run/ferry.sock", NULL);
	ok("/run/ferry.sock", FERRY_URI_UNIX, "/run/ferry.sock", NULL);
	ok("virtio:", FERRY_URI_VIRTIO, "", NULL);
	ok("virtio:/dev/dri/renderD128", FERRY_URI_VIRTIO, "/dev/dri/renderD128", NULL);
	bad("unix:", "no socket path");
	char longpath[200];
	memset(longpath, 'a', sizeof(longpath));
	memcpy(longpath, "unix:/", 6);
	longpath[5 + FERRY_URI_PATH_MAX] = '\0'; /* a path of FERRY_URI_PATH_MAX bytes: one too many */
	bad(longpath, "too long");
	longpath[5 + FERRY_URI_PATH_MAX - 1] = '\0';
	struct ferry_uri u;
	CHECK_EQ(ferry_uri_parse(longpath, &u, NULL, 0), 0);
	bad("", "empty");
	bad("http://x", "unknown address");
}

static void test_tcp(void)
{
	ok("tcp:board7:7120", FERRY_URI_TCP, "board7", "7120");
	ok("tcp:10.0.0.5:0", FERRY_URI_TCP, "10.0.0.5", "0");
	ok("tcp:[::1]:7120", FERRY_URI_TCP, "::1", "7120");
	ok("tcp:[fe80::1%eth0]:65535", FERRY_URI_TCP, "fe80::1%eth0", "65535");
	ok("tcp:h:007", FERRY_URI_TCP, "h", "7");
	bad("tcp:::1:7120", "[ADDR]:PORT");
	bad("tcp:[::1]7120", "[ADDR]:PORT");
	bad("tcp:[::1", "[ADDR]:PORT");
	bad("tcp:[]:7120", "no host");
	bad("tcp::7120", "no host");
	bad("tcp:board7", "tcp:HOST:PORT");
	bad("tcp:board7:", "port");
	bad("tcp:board7:65536", "port");
	bad("tcp:board7:-1", "port");
	bad("tcp:board7:+80", "port");
	bad("tcp:board7:80x", "port");
	bad("tcp:board7:123456", "port");
	/* strtoul's leniencies are not the syntax: a port is digits only. */
	bad("tcp:board7: 80", "port");
	bad("tcp:board7: +80", "port");
	bad("tcp:board7:\t80", "port");
	char host[FERRY_URI_HOST_MAX + 20];
	memcpy(host, "tcp:", 4);
	memset(host + 4, 'h', FERRY_URI_HOST_MAX);
	strcpy(host + 4 + FERRY_URI_HOST_MAX, ":1");
	bad(host, "too long");
	memcpy(host + 4 + FERRY_URI_HOST_MAX - 1, ":1", 3);
	struct ferry_uri u;
	CHECK_EQ(ferry_uri_parse(host, &u, NULL, 0), 0);
	CHECK_EQ(strlen(u.host), FERRY_URI_HOST_MAX - 1);
	CHECK(ferry_uri_is_remote("tcp:a:1"));
	CHECK(!ferry_uri_is_remote("unix:/a"));
	CHECK(!ferry_uri_is_remote(NULL));
}

int main(void)
{
	RUN_TEST(test_unix_and_virtio);
	RUN_TEST(test_tcp);
	return test_finish();
}
