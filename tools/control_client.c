/* The control-socket client (see control_client.h). */
#include "control_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ferry/array.h"
#include "ferry/ferry.h"
#include "ferry/uri.h"

#define ANSWER_MAX (64u << 20)

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for fd to be ready for events until deadline; 0, or -ETIMEDOUT / -errno. */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = fd, .events = events };
		int r = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

int control_path_of_uri(const char *uri, char *buf, size_t len)
{
	struct ferry_uri u;
	char why[128];
	/* A relative path stays a path here (the operator's own shell), though libferry wants it absolute. */
	if (ferry_uri_parse(uri, &u, why, sizeof(why)) == 0 && u.kind != FERRY_URI_UNIX)
		return -EREMOTE; /* the control socket is local only: it never listens on the network */
	if (!strncmp(uri, "tcp:", 4) || !strncmp(uri, "virtio:", 7))
		return -EINVAL;
	const char *path = strncmp(uri, "unix:", 5) == 0 ? uri + 5 : uri;
	int n = snprintf(buf, len, "%s.ctl", path);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int control_path_resolve(const char *cmd, const char *control, const char *server, char *path, size_t len)
{
	if (control) {
		snprintf(path, len, "%s", control);
		return 0;
	}
	char sock[240];
	const char *uri = server ? server : getenv("FERRY_SOCKET");
	if (!uri || !uri[0]) {
		if (ferry_default_socket_path(sock, sizeof(sock)) < 0) {
			fprintf(stderr, "%s: no default socket path; use --server or --control\n", cmd);
			return -1;
		}
		uri = sock;
	}
	int r = control_path_of_uri(uri, path, len);
	if (r == -EREMOTE) {
		fprintf(stderr,
			"%s: ferryd's operator control socket is local: it is never on the network, so %s\n"
			"cannot reach it. Run this on ferryd's machine (--control PATH, its <socket>.ctl).\n"
			"To capture a program's session from here, use `ferry capture run --server %s -- PROGRAM`.\n",
			cmd, uri, uri);
		return -1;
	}
	if (r < 0) {
		fprintf(stderr, "%s: %s is not a valid ferryd address; use --control\n", cmd, uri);
		return -1;
	}
	return 0;
}

static int send_all(int fd, const char *data, size_t len, long long deadline)
{
	while (len) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = wait_fd(fd, POLLOUT, deadline);
			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int control_request(const char *path, const char *request, int timeout_ms, char **answer)
{
	*answer = NULL;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "control socket path too long: %s\n", path);
		return -ENAMETOOLONG;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int e = errno;
		fprintf(stderr, "cannot connect to ferryd's control socket %s: %s\n", path, strerror(e));
		close(fd);
		return -e;
	}
	long long deadline = now_ms() + timeout_ms;
	size_t rlen = strlen(request);
	char *line = malloc(rlen + 2);
	int ret = line ? 0 : -ENOMEM;
	if (line) {
		memcpy(line, request, rlen);
		memcpy(line + rlen, "\n", 2);
		ret = send_all(fd, line, rlen + 1, deadline);
		free(line);
	}
	size_t cap = 4096, used = 0;
	char *buf = ret == 0 ? malloc(cap) : NULL;
	if (ret == 0 && !buf)
		ret = -ENOMEM;
	while (ret == 0) {
		if (used + 1 >= cap) {
			if (cap >= ANSWER_MAX) {
				ret = -EFBIG;
				break;
			}
			if (FERRY_ARRAY_RESERVE(buf, cap, cap + 1, 4096)) {
				ret = -ENOMEM;
				break;
			}
		}
		ssize_t n = recv(fd, buf + used, cap - 1 - used, MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			ret = wait_fd(fd, POLLIN, deadline);
			continue;
		}
		if (n < 0) {
			ret = -errno;
			break;
		}
		used += (size_t)n;
	}
	close(fd);
	if (ret < 0) {
		fprintf(stderr, "control request '%s' to %s failed: %s\n", request, path, strerror(-ret));
		free(buf);
		return ret;
	}
	buf[used] = '\0';
	*answer = buf;
	return 0;
}
