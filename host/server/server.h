/* ferryd's pieces: logging, the listening socket, client connections and the server state that
 * ties them to libferry-host in one epoll loop. */
#ifndef FERRYD_SERVER_H
#define FERRYD_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include <ferry/host.h>
#include <ferry/wire.h>

/* A client whose unsent output grows past this is disconnected (it stopped reading). */
#define FERRYD_OUT_CAP (8u << 20)
/* Frames handled per client per wakeup, so one busy client cannot starve the others. */
#define FERRYD_FRAMES_PER_WAKEUP 64

struct conn;

struct server {
	int epfd;
	int listen_fd;
	int signal_fd;
	struct ferry_host *host;
	struct conn *conns; /* doubly linked through conn.prev/next */
	unsigned next_conn_id;
	bool stop;
};

/* log.c */
extern int ferryd_log_level;
void ferryd_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ferryd_host_log_sink(void *cookie, int level, const char *msg);

/* listen.c */
int ferryd_default_socket_path(char *buf, size_t len);
/* Prepares the directory, refuses a path another ferryd listens on, removes a stale socket and
 * returns a non-blocking listening socket, or a negative errno (logged). */
int ferryd_listen(const char *path);

/* client_conn.c */
int conn_accept_all(struct server *srv);
/* Handles epoll events of one connection; it may be marked dead. */
void conn_event(struct conn *c, unsigned events);
void conn_reap_dead(struct server *srv);
void conn_free_all(struct server *srv);

#endif
