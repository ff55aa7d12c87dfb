/* ferryd's pieces: logging, the listening socket, client connections and the server state that
 * ties them to libferry-host in one epoll loop. */
#ifndef FERRYD_SERVER_H
#define FERRYD_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ferry/host.h>
#include <ferry/uri.h>
#include <ferry/wire.h>

/* A client whose unsent output grows past this is disconnected (it stopped reading). */
#define FERRYD_OUT_CAP (8u << 20)
/* The same for what a tcp client's memory mirror queues (BoData: client_conn.c). */
#define FERRYD_OUT_CAP_REMOTE ((size_t)1 << 30)
/* A connection's read buffer grows to its largest frame; past this it is freed once the client
 * has no more bytes waiting (client_conn.c), so a quiet client holds a small one at most. */
#define FERRYD_READ_KEEP_BYTES (256u << 10)
/* Back-pressure: while this much output, or this many fds (ours, dup'd to ride with queued
 * replies), wait for a client, its requests are not read, so it cannot make us generate more
 * replies; reading resumes once it has taken half of it. Only requests make replies with fds, so
 * the fds held for a slow reader stay near FERRYD_OUT_THROTTLE_FDS instead of filling our table. */
#define FERRYD_OUT_THROTTLE_BYTES (256u << 10)
#define FERRYD_OUT_THROTTLE_FDS 32u
/* A throttled client that takes nothing of its output for this long is disconnected: it is
 * stuck, and what it holds (its queue, its objects' fds) is better given back. */
#define FERRYD_STUCK_NS (10ll * 1000 * 1000 * 1000)
/* Defaults of --max-clients, and of --max-client-fds / --fd-reserve as fractions of the fd limit. */
#define FERRYD_DEFAULT_MAX_CLIENTS 256u
#define FERRYD_DEFAULT_MAX_CONNS_PER_PROCESS 32u
/* tcp: connections still authenticating (TLS handshake, HELLO) at once: at most this many, and
 * at most half of --max-clients (client_conn.c). */
#define FERRYD_MAX_PENDING_AUTH 32u
/* Connections accepted (or refused) per loop pass. */
#define FERRYD_ACCEPTS_PER_PASS 8u
/* Frames handled per client per wakeup, so one busy client cannot starve the others: a client
 * streaming cheap requests (say DEVICE_QUERY, ~8 us each) costs the others at most this many
 * per pass (64 made a good client's median round trip ~7x longer; 16, ~2x). */
#define FERRYD_FRAMES_PER_WAKEUP 16
/* Handling time one client gets per pass before the others are served: a submit can cost
 * milliseconds to validate, and the listen fds are level-triggered, so what is left in the
 * client's socket is simply reported again on the next epoll_wait. */
#define FERRYD_CLIENT_SLICE_NS (2 * 1000 * 1000)
/* Handling time of one pass shared by the clients whose sockets woke it (each gets at least one
 * frame): work finished meanwhile is retired after the pass, so 64 clients' slices in a row
 * (~17 ms of submits here) were what a light client's every wait took too. */
#define FERRYD_PASS_NS (1000 * 1000)
/* PM4 dwords of one submit validated per client per pass (--validate-slice): a legal submit
 * may carry 16 Mi dwords, hundreds of ms of validation, so a longer one is validated over
 * several passes (FERRY_HOST_IN_PROGRESS) with the other clients served in between. At the
 * validator's worst case (~30 ns a dword) this is about 1 ms. */
#define FERRYD_VALIDATE_SLICE_DWORDS (32u * 1024u)

/* ferryd gives freed memory back to the system this long after it last freed a connection. */
#define FERRYD_TRIM_DELAY_NS (1000ll * 1000 * 1000)

struct conn;
struct control;
struct ferryd_auth;

/* --listen: at most this many addresses (unix and tcp together). */
#define FERRYD_MAX_LISTENERS 16

/* One listening socket. remote: a network address (tcp:), whose clients pass no fds and share
 * no memory with ferryd. */
struct listener {
	int fd;
	bool remote;
	bool tls;            /* tcp: with TLS (not --insecure) */
	bool unlink_on_exit; /* a unix socket file ferryd created */
	char name[FERRY_URI_PATH_MAX + 8]; /* "unix:/run/..." or "tcp:127.0.0.1:7120" as bound */
	char path[FERRY_URI_PATH_MAX];     /* unix: the socket file */
};

/* At most one log line a second for something a client can make happen at will (a connection
 * flood must not become a log flood): the second of the last line, and events not logged since. */
struct log_limit {
	long sec;
	unsigned long suppressed;
};
/* true: log now, with *suppressed_since the events left out before this one (log.c). */
bool log_limit_pass(struct log_limit *l, unsigned long *suppressed_since);

/* What crossed ferryd's client sockets, by transport (the metrics endpoint): frame bytes read and
 * written, connections served and refused at admission. */
/* Indexed by the listener's remote flag: 0 unix, 1 tcp. */
enum { FERRYD_XPORT_UNIX, FERRYD_XPORT_TCP, FERRYD_XPORTS };
struct ferryd_counters {
	uint64_t bytes_in[FERRYD_XPORTS], bytes_out[FERRYD_XPORTS];
	uint64_t accepted[FERRYD_XPORTS], refused[FERRYD_XPORTS];
};

struct metrics;

struct server {
	int epfd;
	struct listener listeners[FERRYD_MAX_LISTENERS];
	unsigned nr_listeners;
	int signal_fd;
	struct ferry_host *host;
	struct conn *conns; /* doubly linked through conn.prev/next */
	/* The connections each pass looks at (busy, throttled, dead, tcp:), through
	 * conn.watch_prev/watch_next: the loop's walks are proportional to these, not to all. */
	struct conn *watch;
	int64_t trim_at_ns; /* when to malloc_trim (conn_trim), 0: nothing freed since */
	unsigned next_conn_id;
	unsigned busy_conns; /* connections with a frame in progress: resumed every pass */
	bool stop;
	struct control *control; /* the operator's control socket, or NULL */
	struct capture_ctl *capture; /* capture_ctl.c */
	/* An fd kept open on /dev/null so that, when the fd table is full, one can be freed to accept
	 * and at once close (shed) a pending connection instead of spinning on a level-triggered
	 * EMFILE; -1 when it could not be re-opened. */
	int reserve_fd;
	struct log_limit accept_log; /* accept failures */
	/* Connection admission (client_conn.c): at most max_clients connections, at most
	 * max_conns_per_process of them from one peer process, and a new one only while fd_reserve
	 * fds stay free for the connected clients' kernel calls. */
	unsigned nr_conns, max_clients, max_conns_per_process;
	/* Of nr_conns, tcp: connections not yet through TLS and HELLO: at most
	 * ferryd_max_pending_auth(), so anyone who can reach a tcp: port cannot take every slot and
	 * lock out the local and already authenticated clients. */
	unsigned nr_pending_auth;
	unsigned long fd_limit, fd_reserve;
	/* fds in use = fds_base + what is counted live (connections, their queued fds, the host's
	 * client_fds, the remote layer's); fds_base is recalibrated from /proc/self/fd now and then. */
	long fds_base;
	unsigned long out_fds; /* queued with replies, all connections */
	unsigned accepts_since_count;
	long long fds_counted_ns;
	struct log_limit refuse_log; /* refused connections */
	struct ferryd_counters counters; /* client_conn.c counts, metrics.c shows */
	struct metrics *metrics; /* --metrics, or NULL */
	/* tcp: listeners' TLS credentials and tokens (auth.c), or NULL; refused/timed-out logins. */
	struct ferryd_auth *auth;
	struct log_limit auth_log;
	/* The eventfds of remote clients' contexts (remote.c), polled as one entry of epfd. */
	int remote_epfd;
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
/* Binds and listens on a tcp: address (port 0: the kernel picks; l->name tells which). Fills l,
 * returns 0 or a negative errno (logged). */
int ferryd_listen_tcp(const struct ferry_uri *uri, struct listener *l);
/* Opens every address of --socket / --listen into srv->listeners (tcp: needs TLS, that is
 * --tls-creds loaded into srv->auth, or insecure with a warning). 0 or a negative errno (logged). */
int listeners_open(struct server *srv, const char *const *uris, unsigned n, bool insecure);
/* A remote listener (from --listen or the service manager) made TLS, or plain with a warning
 * when insecure; -EINVAL (logged) when TLS is wanted and there are no credentials. */
int listener_secure(struct server *srv, struct listener *l, bool insecure);
/* Adds them to srv->epfd, each tagged with its struct listener. */
int listeners_watch(struct server *srv);
/* Closes them and removes the unix socket files ferryd made. Idempotent. */
void listeners_close(struct server *srv);

/* client_conn.c */
/* Opens srv->reserve_fd. */
void conn_reserve_fd_open(struct server *srv);
int conn_accept_all(struct server *srv, struct listener *l);
/* Counts ferryd's open fds (/proc/self/fd) and recalibrates srv->fds_base from it. */
void conn_count_fds(struct server *srv);
/* Handles epoll events of one connection; it may be marked dead. */
void conn_event(struct conn *c, unsigned events, int64_t slice_ns);
/* Continues, once per pass, each watched connection's frame in progress (and then reads its next
 * frames as conn_event would); reads the frames of TLS connections whose records GnuTLS
 * decrypted already, which their sockets do not poll readable for. */
void conn_resume_busy(struct server *srv);
/* A remote client has diff work pending (remote_resume): the loop must not sleep. */
bool conn_mirror_pending(const struct server *srv);
/* Gives the memory of freed connections back to the system, FERRYD_TRIM_DELAY_NS after the last
 * was freed. */
void conn_trim(struct server *srv);
/* Frees dead connections, after cutting off throttled ones stuck past FERRYD_STUCK_NS and
 * tcp: ones not authenticated by --auth-timeout-ms. */
void conn_reap_dead(struct server *srv);
/* timeout_ms (epoll's, -1 = none) lowered to the next stuck-client, authentication or trim
 * deadline, 0 while a TLS connection has decrypted bytes unread. */
int conn_timeout_ms(const struct server *srv, int timeout_ms);
void conn_free_all(struct server *srv);
struct ferry_wire_counters;
/* Bytes a remote connection moved each way (zeros for a unix one), for metrics. */
void conn_remote_counters(const struct conn *c, struct ferry_wire_counters *tx, struct ferry_wire_counters *rx);

/* diag_options.c: ferryd's hang/fault diagnostics options. */
struct diag_options {
	unsigned hangcheck_ms;
	unsigned fence_timeout_ms; /* 0 = watchdog off */
	unsigned max_reports;
	const char *crash_dir;     /* or NULL */
	const char *control;       /* --control, or NULL for <socket>.ctl */
	unsigned fence_dump_max_kib;          /* 0 = the host's default */
	unsigned fence_dump_interval_ms;
	unsigned fence_dump_host_interval_ms;
};
/* In the order of ferryd's option enum, from its --hangcheck-ms on (the fence-dump ones are
 * mapped one by one). */
enum { DIAG_OPT_HANGCHECK, DIAG_OPT_FENCE_TIMEOUT, DIAG_OPT_CRASH_DIR, DIAG_OPT_MAX_REPORTS, DIAG_OPT_CONTROL,
       DIAG_OPT_FENCE_DUMP_MAX_KIB, DIAG_OPT_FENCE_DUMP_INTERVAL, DIAG_OPT_FENCE_DUMP_HOST_INTERVAL };
/* Parses one of them into d; prints why and returns a negative errno when arg is bad. */
int parse_diag_option(int which, const char *arg, struct diag_options *d);
/* The control socket's path ("" for --control none). False (logged) when it does not fit. */
bool control_path_for(const struct diag_options *d, const char *socket_path, char *buf, size_t len);

/* control.c: the operator's control socket (<socket>.ctl). */
struct control_info {
	const char *socket;             /* the guests' socket, for `status` */
	unsigned hangcheck_ms;
	unsigned last_fence_timeout_ms; /* what `watchdog on` restores */
	const char *crash_dir;          /* or NULL */
	bool sim_strict;                /* --sim-strict */
};
/* Listens on path (mode 0600) and registers with srv->epfd. Returns 0 or a negative errno. */
int control_open(struct server *srv, const char *path, const struct control_info *info);
/* Serves on an inherited listening socket (socket activation; path is its file, not removed at
 * exit: the service manager's). 0 or a negative errno; fd is ours either way. */
int control_adopt(struct server *srv, int fd, const char *path, const struct control_info *info);
void control_close(struct server *srv);
/* Handles tag's epoll events if it is one of the control socket's; false if not. */
bool control_event(struct server *srv, void *tag, unsigned events);
/* timeout_ms (epoll's, -1 = none) lowered to the control connections' next deadline. */
int control_timeout_ms(const struct server *srv, int timeout_ms);
/* Drops control connections past their deadline or done. */
void control_expire(struct server *srv);

/* capture_ctl.c: submit capture (--capture-dir, --capture-trigger, the control's `capture`).
 * dir NULL = $XDG_RUNTIME_DIR/ferry/captures; trigger NULL = none. */
struct capture_ctl;
int capture_ctl_init(struct server *srv, const char *dir, const char *trigger);
void capture_ctl_fini(struct server *srv);
/* timeout_ms lowered to the trigger file's poll interval. */
int capture_ctl_timeout_ms(const struct server *srv, int timeout_ms);
/* Looks at the trigger file when its poll is due. */
void capture_ctl_poll(struct server *srv);
/* The control request's words after "capture": a malloc'd reply ("ok\n..." / "error: ...\n"). */
char *capture_ctl_request(struct server *srv, char *args);

/* trace_file.c: ferryd --trace-file, at shutdown. 0 or a negative errno (logged). */
int ferryd_write_trace(struct ferry_host *host, const char *path);

#endif
