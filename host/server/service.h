/* ferryd as a service: sockets from the service manager (socket_activation.c), readiness
 * notification (notify.c) and the Prometheus metrics endpoint (metrics.c). */
#ifndef FERRYD_SERVICE_H
#define FERRYD_SERVICE_H

#include <stdbool.h>

#include "server.h"

/* socket_activation.c */
#define ACTIVATION_MAX_FDS (FERRYD_MAX_LISTENERS + 2u) /* client sockets, control, metrics */
#define ACTIVATION_NAME_MAX 64
struct activation {
	bool active; /* LISTEN_FDS was ours */
	struct listener listeners[FERRYD_MAX_LISTENERS]; /* the client sockets (unlink_on_exit false) */
	unsigned nr_listeners;
	int control_fd; /* named "control" (unix only), or -1 */
	char control_path[FERRY_URI_PATH_MAX]; /* its file ("" if abstract) */
	int metrics_fd; /* named "metrics", or -1 */
};
/* Takes the sockets LISTEN_PID / LISTEN_FDS / LISTEN_FDNAMES pass (and unsets them): each must
 * be a listening stream socket; unix or tcp ones (tcp: TLS or --insecure, listener_secure) are client
 * sockets unless named "control" or "metrics". Marks them close-on-exec and non-blocking.
 * 0 (nothing passed: a->active false), or a negative errno (logged; every passed fd closed). */
int activation_take(struct activation *a);
/* Closes what was not handed on (the fields set to -1 / 0 by their new owners). */
void activation_close(struct activation *a);

/* notify.c: the service manager's NOTIFY_SOCKET (sd_notify's datagrams, Type=notify). */
/* Reads and unsets NOTIFY_SOCKET; false (logged) when it is set but unusable. */
bool notify_init(void);
/* Sends one datagram of "KEY=VALUE\n" lines, best effort and never blocking. No-op without
 * NOTIFY_SOCKET. */
void notify_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void notify_fini(void);

/* metrics.c: GET /metrics in Prometheus text format, in ferryd's epoll loop. */
/* Listens on uri (unix:PATH or tcp:HOST:PORT; a non-loopback host is refused unless
 * allow_remote). 0 or a negative errno (logged). */
int metrics_open(struct server *srv, const char *uri, bool allow_remote);
/* Serves on an inherited listening socket (socket activation). */
int metrics_adopt(struct server *srv, int fd);
void metrics_close(struct server *srv);
/* Handles tag's epoll events if it is one of the metrics endpoint's; false if not. */
bool metrics_event(struct server *srv, void *tag, unsigned events);
/* timeout_ms lowered to the metrics connections' next deadline. */
int metrics_timeout_ms(const struct server *srv, int timeout_ms);
/* Drops metrics connections past their deadline or done. */
void metrics_expire(struct server *srv);
/* "tcp:127.0.0.1:9464" / "unix:/run/ferry/metrics.sock" as bound, or NULL. */
const char *metrics_address(const struct server *srv);

#endif
