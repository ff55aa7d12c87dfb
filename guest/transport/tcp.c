/* The tcp: transport: a connection to a ferryd on another machine, TLS unless FERRY_INSECURE=1
 * (stream.c). No fds cross it and no memory is shared; the frames are the unix socket's. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ferry/uri.h"
#include <stdatomic.h>
#include <stdlib.h>

#include "stream.h"
#include "transport.h"

/* Connects to host:port (each address getaddrinfo gives, in order). fd or a negative errno. */
int ferry_tcp_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	int gai = getaddrinfo(host, port, &hints, &res);
	if (gai != 0)
		return gai == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	int err = ECONNREFUSED;
	int fd = -1;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		int r;
		do
			r = connect(fd, ai->ai_addr, ai->ai_addrlen);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			err = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return -err;
	int one = 1; /* a frame is a whole message: send it now */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* A server machine that vanishes (power, cable) sends no FIN: keepalive ends the connection
	 * (-ETIMEDOUT, every context lost) after 10 + 3 x 5 s idle instead of leaving a fence wait
	 * on it forever. A live ferryd's kernel answers the probes however busy ferryd is. */
	int idle = 10, intvl = 5, cnt = 3;
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	return fd;
}

int ferry_transport_tcp_open(const char *uri, struct ferry_transport **out)
{
	*out = NULL;
	ferry_transport_set_open_error("%s", "");
	struct ferry_uri u;
	char why[300];
	if (ferry_uri_parse(uri, &u, why, sizeof(why)) < 0) {
		ferry_transport_set_open_error("%s", why);
		return -EINVAL;
	}
	if (u.kind != FERRY_URI_TCP)
		return -EINVAL;
	const char *insecure = getenv("FERRY_INSECURE");
	bool plain = insecure && !strcmp(insecure, "1");
	if (plain) {
		static atomic_bool warned;
		if (!atomic_exchange(&warned, true))
			fprintf(stderr, "ferry: FERRY_INSECURE=1: %s in plain text, the server unverified\n", uri);
	}
	int fd = ferry_tcp_connect(u.host, u.port);
	if (fd < 0)
		return fd;
	char name[300];
	snprintf(name, sizeof(name), strchr(u.host, ':') ? "tcp:[%s]:%s" : "tcp:%s:%s", u.host, u.port);
	return plain ? ferry_stream_plain(fd, name, out) : ferry_stream_tls(fd, u.host, name, out);
}
