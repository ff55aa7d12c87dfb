/* ferryd's listening socket: the default path, a private directory for it, refusing to steal
 * the path from a live ferryd, and removing a stale socket file left by a dead one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"

int ferryd_default_socket_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/ferry/ferryd.sock", xdg);
	else
		n = snprintf(buf, len, "/tmp/ferry-%u/ferryd.sock", (unsigned)getuid());
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Creates the socket's directory (mode 0700) if missing; an existing one must be a real
 * directory of ours, so nobody else can swap the socket under a client. */
static int prepare_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0; /* relative name in cwd, or directly under / */
	*slash = '\0';
	if (mkdir(dir, 0700) == 0)
		return 0;
	if (errno != EEXIST) {
		ferryd_log(FERRY_LOG_ERROR, "cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	struct stat st;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		ferryd_log(FERRY_LOG_ERROR, "%s is not a directory", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != getuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		ferryd_log(FERRY_LOG_ERROR, "%s is writable by others and not ours: refusing", dir);
		return -EPERM;
	}
	return 0;
}

/* 1 if something accepts connections on path, 0 if the file is a stale socket, <0 on error. */
static int probe_existing(const char *path, const struct sockaddr_un *addr)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		ferryd_log(FERRY_LOG_ERROR, "%s exists and is not a socket: refusing to replace it", path);
		return -EEXIST;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int ret = connect(fd, (const struct sockaddr *)addr, sizeof(*addr));
	int err = errno;
	close(fd);
	if (ret == 0)
		return 1;
	if (err == ECONNREFUSED) {
		ferryd_log(FERRY_LOG_INFO, "removing stale socket %s", path);
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	return -err;
}

int ferryd_listen(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(addr.sun_path)) {
		ferryd_log(FERRY_LOG_ERROR, "socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	int ret = prepare_dir(path);
	if (ret < 0)
		return ret;
	ret = probe_existing(path, &addr);
	if (ret == 1) {
		ferryd_log(FERRY_LOG_ERROR, "another ferryd is listening on %s", path);
		return -EADDRINUSE;
	}
	if (ret < 0) {
		if (ret != -EEXIST)
			ferryd_log(FERRY_LOG_ERROR, "cannot use %s: %s", path, strerror(-ret));
		return ret;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Only this user may connect: the socket file is created 0600. */
	mode_t old = umask(0177);
	ret = bind(fd, (const struct sockaddr *)&addr, sizeof(addr));
	int err = errno;
	umask(old);
	if (ret < 0 || listen(fd, 128) < 0) {
		if (ret == 0)
			err = errno;
		ferryd_log(FERRY_LOG_ERROR, "cannot listen on %s: %s", path, strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}
