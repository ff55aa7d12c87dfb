/* Starting a private ferryd for the CLI and the integration tests: a temporary socket in a
 * private directory, readiness through --ready-fd, SIGTERM + exit status at the end. */
#ifndef FERRY_TOOLS_FERRYD_SPAWN_H
#define FERRY_TOOLS_FERRYD_SPAWN_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct ferryd_proc {
	pid_t pid;
	/* Short enough for sockaddr_un (108 bytes) with the file name appended. */
	char dir[80];     /* private temp dir holding the socket and the log */
	char socket[96];
	char uri[104];    /* "unix:" + socket */
	char log[96];     /* ferryd's stderr, when captured */
	char control[100]; /* its operator control socket (socket + ".ctl") */
	char tcp_uri[40]; /* "tcp:127.0.0.1:PORT" from ferryd_spawn_tcp, else empty */
};

/* Finds the ferryd binary: explicit path, else $FERRYD, else next to this program
 * (/proc/self/exe), else the build tree's host/server/ferryd beside tools/. Writes the path into
 * buf; returns 0 or -ENOENT. */
int ferryd_locate(const char *explicit_path, char *buf, size_t len);

/* Starts ferryd --socket <tmp> --gpu <gpu> --ready-fd <n> [extra...] and waits (up to
 * timeout_ms) until it says it is ready. capture_log: send its stderr to p->log instead of
 * ours. Returns 0 or a negative errno (the reason is printed to stderr). */
int ferryd_spawn(const char *ferryd, const char *gpu, const char *const *extra, bool capture_log,
		 int timeout_ms, struct ferryd_proc *p);

/* ferryd_spawn with a tcp listener on 127.0.0.1 as well: the spawner binds and listens on a port
 * the kernel picks and hands the socket to ferryd as fd 3 by socket activation (LISTEN_FDS=1,
 * LISTEN_PID set in the child), so no other process can take the port between choosing and
 * listening. Its address goes to p->tcp_uri. TLS (--tls-creds ...) or --insecure belong in extra,
 * as for --listen tcp:. */
int ferryd_spawn_tcp(const char *ferryd, const char *gpu, const char *const *extra, bool capture_log,
		     int timeout_ms, struct ferryd_proc *p);

/* SIGTERM, then waits up to timeout_ms (then SIGKILL). Returns the exit status as waitpid's
 * wstatus (or -1), and removes the temp dir. */
int ferryd_stop(struct ferryd_proc *p, int timeout_ms);

/* Prints the last lines of the captured log to stderr (for failure diagnostics). */
void ferryd_dump_log(const struct ferryd_proc *p, int max_lines);

/* What a process (a ferryd) holds, from /proc: its open fds, and VmRSS in KiB; -1 if unknown. */
int ferryd_proc_fd_count(pid_t pid);
long ferryd_proc_rss_kib(pid_t pid);
/* Its resident memory in KiB with the shared pages it maps (fence pages, memfds) counted whole:
 * Rss of /proc/PID/smaps_rollup; -1 if unknown. */
long ferryd_proc_mem_kib(pid_t pid);

#endif
