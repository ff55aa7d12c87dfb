/* Listening sockets handed over by a service manager (systemd's sd_listen_fds protocol, written
 * here so ferryd needs no libsystemd): LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES, fds from 3. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"
#include "service.h"

#define LISTEN_FDS_START 3

/* A decimal in [0, max], nothing else. */
static bool parse_count(const char *s, unsigned long max, unsigned long *out)
{
	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return false;
	unsigned long v = strtoul(s, NULL, 10);
	if (v > max)
		return false;
	*out = v;
	return true;
}

/* The i-th ':'-separated name of names (NULL = none) into buf; "" when missing. */
static void nth_name(const char *names, unsigned i, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const char *p = names; p; i--) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (i == 0) {
			snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
			return;
		}
		p = end ? end + 1 : NULL;
	}
}

/* Checks fd is a listening stream socket; *family gets its address family, and name a
 * "unix:PATH" / "tcp:HOST:PORT" label (path: the unix socket's file, "" when abstract or
 * unnamed). 0 or a negative errno (logged). */
static int inspect(int fd, const char *what, int *family, char *name, size_t name_len, char *path, size_t path_len)
{
	int type = 0, acc = 0;
	socklen_t l = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0) {
		int err = errno;
		ferryd_log(FERRY_LOG_ERROR, "socket activation: fd %d (%s) is not a socket: %s", fd, what, strerror(err));
		return -err;
	}
	l = sizeof(acc);
	if (type != SOCK_STREAM || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0 || !acc) {
		ferryd_log(FERRY_LOG_ERROR, "socket activation: fd %d (%s) is not a listening stream socket "
			   "(ListenStream= in the socket unit, Accept=no)", fd, what);
		return -ENOTSOCK;
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	*family = ss.ss_family;
	path[0] = '\0';
	if (ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)&ss;
		size_t plen = sl > offsetof(struct sockaddr_un, sun_path) ? sl - offsetof(struct sockaddr_un, sun_path) : 0;
		if (plen && un->sun_path[0]) {
			snprintf(path, path_len, "%.*s", (int)strnlen(un->sun_path, plen), un->sun_path);
			snprintf(name, name_len, "unix:%s", path);
		} else {
			snprintf(name, name_len, "unix:(abstract or unnamed, fd %d)", fd);
		}
		return 0;
	}
	if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
		char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
		snprintf(name, name_len, ss.ss_family == AF_INET6 ? "tcp:[%s]:%s" : "tcp:%s:%s", host, port);
		return 0;
	}
	ferryd_log(FERRY_LOG_ERROR, "socket activation: fd %d (%s) has address family %d; ferryd takes unix and "
		   "tcp sockets", fd, what, ss.ss_family);
	return -EAFNOSUPPORT;
}

static void close_all(struct activation *a)
{
	for (unsigned i = 0; i < a->nr_listeners; i++)
		close(a->listeners[i].fd);
	a->nr_listeners = 0;
	if (a->control_fd >= 0)
		close(a->control_fd);
	if (a->metrics_fd >= 0)
		close(a->metrics_fd);
	a->control_fd = a->metrics_fd = -1;
}

int activation_take(struct activation *a)
{
	memset(a, 0, sizeof(*a));
	a->control_fd = a->metrics_fd = -1;
	const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
	char *names = getenv("LISTEN_FDNAMES") ? strdup(getenv("LISTEN_FDNAMES")) : NULL;
	/* Whatever they say, they are not for the processes ferryd might start. */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	unsigned long pid, n;
	if (!fds_s) {
		free(names);
		return 0;
	}
	if (!parse_count(pid_s, 0x7fffffffUL, &pid) || (pid_t)pid != getpid()) {
		/* Meant for a parent that exec'd us without clearing them: not ours. */
		ferryd_log(FERRY_LOG_INFO, "socket activation: LISTEN_PID %s is not ours (%d): ignoring LISTEN_FDS",
			   pid_s ? pid_s : "(unset)", (int)getpid());
		free(names);
		return 0;
	}
	if (!parse_count(fds_s, ACTIVATION_MAX_FDS, &n)) {
		ferryd_log(FERRY_LOG_ERROR, "socket activation: LISTEN_FDS '%.32s' is not a count in 0..%u", fds_s,
			   ACTIVATION_MAX_FDS);
		free(names);
		return -EINVAL;
	}
	int ret = 0;
	for (unsigned i = 0; i < n; i++) {
		int fd = LISTEN_FDS_START + (int)i;
		int fl = fcntl(fd, F_GETFD);
		if (fl < 0) {
			ferryd_log(FERRY_LOG_ERROR, "socket activation: fd %d of LISTEN_FDS=%lu is not open", fd, n);
			ret = -EBADF;
			continue;
		}
		fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
		if (ret < 0) {
			close(fd);
			continue;
		}
		char what[ACTIVATION_NAME_MAX];
		nth_name(names, i, what, sizeof(what));
		int family = 0;
		char name[FERRY_URI_PATH_MAX + 8], path[FERRY_URI_PATH_MAX];
		ret = inspect(fd, what[0] ? what : "unnamed", &family, name, sizeof(name), path, sizeof(path));
		/* accept4 loops run until EAGAIN: the listening socket must not block. */
		int sfl = ret == 0 ? fcntl(fd, F_GETFL) : -1;
		if (ret == 0 && (sfl < 0 || fcntl(fd, F_SETFL, sfl | O_NONBLOCK) < 0))
			ret = -errno;
		if (ret < 0) {
			close(fd);
			continue;
		}
		if (!strcmp(what, "control") || !strcmp(what, "metrics")) {
			int *slot = what[0] == 'c' ? &a->control_fd : &a->metrics_fd;
			if (*slot >= 0 || (what[0] == 'c' && family != AF_UNIX)) {
				ferryd_log(FERRY_LOG_ERROR, "socket activation: %s", *slot >= 0 ?
					   "a second socket named the same (control / metrics are one each)" :
					   "the control socket must be a unix socket: it stays local");
				close(fd);
				ret = -EINVAL;
				continue;
			}
			*slot = fd;
			if (what[0] == 'c')
				snprintf(a->control_path, sizeof(a->control_path), "%s", path);
			ferryd_log(FERRY_LOG_INFO, "socket activation: %s socket %s", what, name);
			continue;
		}
		if (a->nr_listeners == FERRYD_MAX_LISTENERS) {
			ferryd_log(FERRY_LOG_ERROR, "socket activation: at most %d client sockets", FERRYD_MAX_LISTENERS);
			close(fd);
			ret = -EMFILE;
			continue;
		}
		bool remote = family != AF_UNIX;
		/* TLS or --insecure is decided with --listen's rule once credentials are loaded
		 * (listener_secure). */
		struct listener *l = &a->listeners[a->nr_listeners++];
		memset(l, 0, sizeof(*l));
		l->fd = fd;
		l->remote = remote;
		l->unlink_on_exit = false; /* the service manager's file */
		snprintf(l->name, sizeof(l->name), "%s", name);
		snprintf(l->path, sizeof(l->path), "%s", path);
	}
	free(names);
	if (ret < 0) {
		close_all(a);
		return ret;
	}
	a->active = true;
	return 0;
}

void activation_close(struct activation *a)
{
	close_all(a);
}
