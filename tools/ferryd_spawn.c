/* Spawns and stops a private ferryd (see ferryd_spawn.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "ferryd_spawn.h"

static bool is_executable(const char *path)
{
	return access(path, X_OK) == 0;
}

int ferryd_locate(const char *explicit_path, char *buf, size_t len)
{
	if (explicit_path && explicit_path[0]) {
		snprintf(buf, len, "%s", explicit_path);
		return is_executable(buf) ? 0 : -ENOENT;
	}
	const char *env = getenv("FERRYD");
	if (env && env[0]) {
		snprintf(buf, len, "%s", env);
		return is_executable(buf) ? 0 : -ENOENT;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *dir = dirname(self);
		static const char *const rel[] = { "ferryd", "../host/server/ferryd",
						   "../../host/server/ferryd", "../sbin/ferryd" };
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			int w = snprintf(buf, len, "%s/%s", dir, rel[i]);
			if (w > 0 && (size_t)w < len && is_executable(buf))
				return 0;
		}
	}
	buf[0] = '\0';
	return -ENOENT;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The fake kernel's environment for a ferryd child: what --sim-strict and --hangcheck-ms would
 * have told ferryd's own simulator. */
static void fakekernel_env(const char *lib, const char *gpu, const char *const *extra)
{
	setenv("LD_PRELOAD", lib, 1);
	setenv("FERRY_GPU", gpu, 1);
	setenv("FERRY_FAKEKERNEL_FULL_UAPI", "1", 1);
	/* The preloaded library comes before libasan in an ASan build. */
	const char *asan = getenv("ASAN_OPTIONS");
	char opts[512];
	snprintf(opts, sizeof(opts), "%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
	for (int i = 0; extra && extra[i]; i++) {
		if (!strcmp(extra[i], "--sim-strict"))
			setenv("FERRY_SIM_STRICT", "1", 1);
		else if (!strcmp(extra[i], "--hangcheck-ms") && extra[i + 1])
			setenv("FERRY_SIM_HANGCHECK_MS", extra[i + 1], 1);
		else if (!strncmp(extra[i], "--hangcheck-ms=", 15))
			setenv("FERRY_SIM_HANGCHECK_MS", extra[i] + 15, 1);
	}
}

/* A listening tcp socket on 127.0.0.1 at fd 4 or above (so neither it nor the ready pipe can sit
 * on fd 3, where the child puts it), its address into uri. Returns the fd or a negative errno. */
static int tcp_listener(char *uri, size_t len)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	int fd = -1, r = 0;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 64) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &l) < 0 || (fd = fcntl(s, F_DUPFD_CLOEXEC, 4)) < 0)
		r = -errno;
	close(s);
	if (r < 0)
		return r;
	snprintf(uri, len, "tcp:127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
	return fd;
}

/* Puts the listener at fd 3 for ferryd's socket activation; in the child, before exec. */
static void pass_listener(int lfd)
{
	if (dup2(lfd, 3) < 0) /* dup2 leaves fd 3 without close-on-exec */
		_exit(127);
	char pid[24];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	unsetenv("LISTEN_FDNAMES");
}

static int spawn(const char *ferryd, const char *gpu, const char *const *extra, bool capture_log,
		 int timeout_ms, bool tcp, struct ferryd_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = -1;
	const char *tmp = getenv("TMPDIR");
	/* A long $TMPDIR would not fit a socket address: fall back to /tmp. */
	if (!tmp || !tmp[0] || strlen(tmp) > sizeof(p->dir) - sizeof("/ferry-XXXXXX"))
		tmp = "/tmp";
	snprintf(p->dir, sizeof(p->dir), "%.*s/ferry-XXXXXX",
		 (int)(sizeof(p->dir) - sizeof("/ferry-XXXXXX")), tmp);
	if (!mkdtemp(p->dir)) {
		int e = errno;
		fprintf(stderr, "ferryd_spawn: mkdtemp: %s\n", strerror(e));
		p->dir[0] = '\0';
		return -e;
	}
	snprintf(p->socket, sizeof(p->socket), "%.80s/ferryd.sock", p->dir);
	snprintf(p->uri, sizeof(p->uri), "unix:%.96s", p->socket);
	snprintf(p->control, sizeof(p->control), "%.96s.ctl", p->socket);
	if (capture_log)
		snprintf(p->log, sizeof(p->log), "%.80s/ferryd.log", p->dir);

	int lfd = -1;
	if (tcp && (lfd = tcp_listener(p->tcp_uri, sizeof(p->tcp_uri))) < 0) {
		fprintf(stderr, "ferryd_spawn: a tcp listener on 127.0.0.1: %s\n", strerror(-lfd));
		p->tcp_uri[0] = '\0';
		rmdir(p->dir);
		return lfd;
	}
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) < 0) {
		int e = errno;
		if (lfd >= 0)
			close(lfd);
		rmdir(p->dir);
		return -e;
	}
	/* The child puts the listener on fd 3: the pipe's write end must not be there. */
	if (ready[1] < 4) {
		int moved = fcntl(ready[1], F_DUPFD_CLOEXEC, 4);
		if (moved < 0) {
			int e = errno;
			close(ready[0]);
			close(ready[1]);
			if (lfd >= 0)
				close(lfd);
			rmdir(p->dir);
			return -e;
		}
		close(ready[1]);
		ready[1] = moved;
	}
	char fdarg[16];
	snprintf(fdarg, sizeof(fdarg), "%d", ready[1]);

	const char *argv[32];
	int argc = 0;
	argv[argc++] = ferryd;
	argv[argc++] = "--socket";
	argv[argc++] = p->socket;
	argv[argc++] = "--ready-fd";
	argv[argc++] = fdarg;
	/* Render-node mode: ferryd serves /dev/dri/renderD128 of the fake kernel preloaded into it,
	 * which simulates gpu; the simulator's knobs reach that kernel through its environment. */
	const char *fakekernel = getenv("FERRYD_FAKEKERNEL");
	bool render_node = fakekernel && fakekernel[0];
	const char *sim_gpu = gpu ? gpu : "a630";
	if (render_node && gpu && strncmp(gpu, "/dev/", 5) != 0 && strcmp(gpu, "auto") != 0)
		gpu = "/dev/dri/renderD128";
	else
		render_node = false;
	if (gpu) {
		argv[argc++] = "--gpu";
		argv[argc++] = gpu;
	}
	for (int i = 0; extra && extra[i] && argc < 31; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;

	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(ready[0]);
		close(ready[1]);
		if (lfd >= 0)
			close(lfd);
		rmdir(p->dir);
		return -e;
	}
	if (pid == 0) {
		/* The write end must survive exec; everything else stays close-on-exec. */
		fcntl(ready[1], F_SETFD, 0);
		if (capture_log) {
			int lfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (lfd >= 0) {
				dup2(lfd, STDERR_FILENO);
				close(lfd);
			}
		}
		if (render_node)
			fakekernel_env(fakekernel, sim_gpu, extra);
		if (lfd >= 0)
			pass_listener(lfd);
		execv(ferryd, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", ferryd, strerror(errno));
		_exit(127);
	}
	close(ready[1]);
	if (lfd >= 0)
		close(lfd); /* ferryd's now */
	p->pid = pid;

	/* Ready = a byte on the pipe; EOF without one = it died or gave up. */
	long long deadline = now_ms() + timeout_ms;
	int r = -ETIMEDOUT;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0)
			break;
		struct pollfd pfd = { .fd = ready[0], .events = POLLIN };
		int pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		char c;
		ssize_t n = read(ready[0], &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		r = n == 1 ? 0 : -ECONNREFUSED;
		break;
	}
	close(ready[0]);
	if (r < 0) {
		fprintf(stderr, "ferryd_spawn: %s did not become ready (%s)\n", ferryd,
			r == -ETIMEDOUT ? "timeout" : "exited");
		if (capture_log)
			ferryd_dump_log(p, 20);
		ferryd_stop(p, 2000);
	}
	return r;
}

int ferryd_spawn(const char *ferryd, const char *gpu, const char *const *extra, bool capture_log,
		 int timeout_ms, struct ferryd_proc *p)
{
	return spawn(ferryd, gpu, extra, capture_log, timeout_ms, false, p);
}

int ferryd_spawn_tcp(const char *ferryd, const char *gpu, const char *const *extra, bool capture_log,
		     int timeout_ms, struct ferryd_proc *p)
{
	return spawn(ferryd, gpu, extra, capture_log, timeout_ms, true, p);
}

int ferryd_stop(struct ferryd_proc *p, int timeout_ms)
{
	int status = -1;
	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		long long deadline = now_ms() + timeout_ms;
		for (;;) {
			pid_t w = waitpid(p->pid, &status, WNOHANG);
			if (w == p->pid)
				break;
			if (w < 0 && errno != EINTR) {
				status = -1;
				break;
			}
			if (now_ms() >= deadline) {
				kill(p->pid, SIGKILL);
				waitpid(p->pid, &status, 0);
				fprintf(stderr, "ferryd_stop: ferryd ignored SIGTERM; killed\n");
				status = -1;
				break;
			}
			struct timespec ts = { 0, 5 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		p->pid = -1;
	}
	if (p->dir[0]) {
		unlink(p->socket);
		/* ferryd removes its control socket on a clean exit; not after SIGKILL. */
		unlink(p->control);
		if (p->log[0])
			unlink(p->log);
		rmdir(p->dir);
		p->dir[0] = '\0';
	}
	return status;
}

void ferryd_dump_log(const struct ferryd_proc *p, int max_lines)
{
	if (!p->log[0])
		return;
	FILE *f = fopen(p->log, "r");
	if (!f)
		return;
	/* Keep a ring of the last lines. */
	char **lines = calloc((size_t)max_lines, sizeof(char *));
	char buf[512];
	int n = 0;
	while (lines && fgets(buf, sizeof(buf), f)) {
		free(lines[n % max_lines]);
		lines[n % max_lines] = strdup(buf);
		n++;
	}
	fclose(f);
	if (!lines)
		return;
	int start = n > max_lines ? n - max_lines : 0;
	fprintf(stderr, "---- ferryd log (last %d lines) ----\n", n - start);
	for (int i = start; i < n; i++)
		fputs(lines[i % max_lines] ? lines[i % max_lines] : "\n", stderr);
	for (int i = 0; i < max_lines; i++)
		free(lines[i]);
	free(lines);
}

int ferryd_proc_fd_count(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

long ferryd_proc_rss_kib(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long kib = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

long ferryd_proc_mem_kib(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long kib = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Rss: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}
