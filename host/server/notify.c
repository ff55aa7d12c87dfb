/* Readiness notification to the service manager: sd_notify's protocol written out (a datagram
 * of "KEY=VALUE" lines to the AF_UNIX socket NOTIFY_SOCKET names; '@' = abstract namespace). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "service.h"

static int notify_fd = -1;
static struct sockaddr_un notify_addr;
static socklen_t notify_len;

bool notify_init(void)
{
	const char *s = getenv("NOTIFY_SOCKET");
	if (!s)
		return true;
	char path[sizeof(notify_addr.sun_path) + 1];
	snprintf(path, sizeof(path), "%s", s);
	unsetenv("NOTIFY_SOCKET"); /* not for processes ferryd might start */
	size_t len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len < 2 || len > sizeof(notify_addr.sun_path)) {
		ferryd_log(FERRY_LOG_WARN, "NOTIFY_SOCKET '%.64s' is not an absolute or '@' abstract socket "
			   "address: readiness will not be notified", path);
		return false;
	}
	memset(&notify_addr, 0, sizeof(notify_addr));
	notify_addr.sun_family = AF_UNIX;
	memcpy(notify_addr.sun_path, path, len);
	if (path[0] == '@')
		notify_addr.sun_path[0] = '\0';
	/* An abstract name is exactly its bytes; a path ends at its NUL. */
	notify_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (path[0] == '/' && len < sizeof(notify_addr.sun_path)));
	notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (notify_fd < 0) {
		ferryd_log(FERRY_LOG_WARN, "NOTIFY_SOCKET: %s", strerror(errno));
		return false;
	}
	return true;
}

void notify_send(const char *fmt, ...)
{
	if (notify_fd < 0)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	ssize_t r;
	do
		r = sendto(notify_fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT, (const struct sockaddr *)&notify_addr,
			   notify_len);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		ferryd_log(FERRY_LOG_WARN, "NOTIFY_SOCKET: cannot send %.*s: %s", (int)strcspn(msg, "\n="), msg,
			   strerror(errno));
}

void notify_fini(void)
{
	if (notify_fd >= 0)
		close(notify_fd);
	notify_fd = -1;
}
