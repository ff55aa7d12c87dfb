/* ferryd's listening sockets: the default unix path, a private directory for it, refusing to
 * steal the path from a live ferryd, removing a stale socket file left by a dead one; tcp: ones. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"
#include "conn_io.h"

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

int ferryd_listen_tcp(const struct ferry_uri *uri, struct listener *l)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	int gai = getaddrinfo(uri->host, uri->port, &hints, &res);
	if (gai != 0) {
		ferryd_log(FERRY_LOG_ERROR, "--listen tcp:%s:%s: %s", uri->host, uri->port, gai_strerror(gai));
		return -EADDRNOTAVAIL;
	}
	int err = EADDRNOTAVAIL;
	int fd = -1;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		int one = 1;
		/* A restarted ferryd must not wait out TIME_WAIT; [::] serves IPv6 only, as the operator
		 * may listen on 0.0.0.0 too. */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
			err = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		ferryd_log(FERRY_LOG_ERROR, "cannot listen on tcp:%s:%s: %s", uri->host, uri->port, strerror(err));
		return -err;
	}
	memset(l, 0, sizeof(*l));
	l->fd = fd;
	l->remote = true;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	if (ss.ss_family == AF_INET6)
		snprintf(l->name, sizeof(l->name), "tcp:[%s]:%s", host, port);
	else
		snprintf(l->name, sizeof(l->name), "tcp:%s:%s", host, port);
	return 0;
}

static bool insecure_tokens(const struct server *srv)
{
	return ferryd_auth_check(srv->auth, false, NULL, NULL) != NULL;
}

/* A tcp: listener is TLS unless --insecure; TLS needs credentials. 0, or -EINVAL (logged). */
static int listener_check_tls(const struct server *srv, const char *what)
{
	if (ferryd_auth_has_tls(srv->auth))
		return 0;
	ferryd_log(FERRY_LOG_ERROR, "%s: tcp: is served over TLS and needs --tls-creds DIR "
		   "(ca-cert.pem, server-cert.pem, server-key.pem; docs/network.md), or "
		   "--insecure for plain text", what);
	return -EINVAL;
}

int listener_secure(struct server *srv, struct listener *l, bool insecure)
{
	if (!l->remote)
		return 0;
	if (!insecure && listener_check_tls(srv, l->name) < 0)
		return -EINVAL;
	l->tls = !insecure;
	if (!l->tls)
		ferryd_log(FERRY_LOG_WARN, "%s: plain text (--insecure): anyone who can reach it reads what "
			   "crosses the wire%s", l->name, insecure_tokens(srv) ? ", and a token sent in clear can be replayed" :
			   " and drives the GPU: no authentication");
	return 0;
}

int listeners_open(struct server *srv, const char *const *uris, unsigned n, bool insecure)
{
	for (unsigned i = 0; i < n; i++) {
		struct ferry_uri u;
		char why[200];
		if (ferry_uri_parse(uris[i], &u, why, sizeof(why)) < 0) {
			ferryd_log(FERRY_LOG_ERROR, "--listen %s", why);
			return -EINVAL;
		}
		struct listener *l = &srv->listeners[srv->nr_listeners];
		if (u.kind == FERRY_URI_TCP) {
			if (insecure ? 0 : listener_check_tls(srv, uris[i]) < 0)
				return -EINVAL;
			int ret = ferryd_listen_tcp(&u, l);
			if (ret < 0)
				return ret;
			listener_secure(srv, l, insecure);
		} else {
			int fd = ferryd_listen(u.path);
			if (fd < 0)
				return fd;
			memset(l, 0, sizeof(*l));
			l->fd = fd;
			l->unlink_on_exit = true;
			snprintf(l->path, sizeof(l->path), "%s", u.path);
			snprintf(l->name, sizeof(l->name), "unix:%s", u.path);
		}
		srv->nr_listeners++;
	}
	return 0;
}

int listeners_watch(struct server *srv)
{
	for (unsigned i = 0; i < srv->nr_listeners; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &srv->listeners[i] };
		if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->listeners[i].fd, &ev) < 0)
			return -errno;
	}
	return 0;
}

void listeners_close(struct server *srv)
{
	for (unsigned i = 0; i < srv->nr_listeners; i++) {
		struct listener *l = &srv->listeners[i];
		if (l->unlink_on_exit)
			unlink(l->path);
		close(l->fd);
	}
	srv->nr_listeners = 0;
}
