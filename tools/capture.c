/* `ferry capture start|stop|status`: the operator's switch for a running ferryd's submit capture,
 * sent as one `capture ...` request over its control socket (mode 0600: only its owner);
 * `ferry capture run`: a program run with libferry's guest-side capture, for any ferryd. */
#include <errno.h>
#include <limits.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control_client.h"
#include "ferry/ferry.h"
#include "subcommands.h"

#define CAPTURE_TIMEOUT_MS 10000

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry capture start [options] | stop | status  [--server URI] [--control PATH]\n"
		   "       ferry capture run [--full] [--dir DIR] [--server URI] -- PROGRAM [ARGS...]\n"
		   "Capture a running ferryd's submits: msm as .rd and/or ferry session files, V3D as\n"
		   "session files (every BO a V3D submit lists is snapshotted).\n\n"
		   "  --client N         only this client (its id, as in `ferry status sync`; default all)\n"
		   "  --context N        only this context id (default all)\n"
		   "  --count N|-1       capture N submits, or until `ferry capture stop` (default -1)\n"
		   "  --full             every BO a submit lists, not only its command buffers\n"
		   "  --combined         one file per context instead of one per submit\n"
		   "  --gzip             gzip the .rd files (per-submit only)\n"
		   "  --dir DIR          where to write (default: ferryd's --capture-dir)\n"
		   "  --format F         rd, session or both (default both)\n"
		   "  --server URI       ferryd's socket: unix:PATH (start/stop/status: the control socket is\n"
		   "                     local), or tcp:HOST:PORT for run (default $FERRY_SOCKET, then the default)\n"
		   "  --control PATH     the control socket itself\n\n"
		   "`run` needs no control socket and works with a remote ferryd (tcp:HOST:PORT): libferry\n"
		   "in PROGRAM writes the session it sends, as the guest sees it, to\n"
		   "DIR/ferry-guest-<pid>-<n>.ferrycap (DIR default: the current directory). --full snapshots\n"
		   "every BO a submit lists, not only command buffers (V3D: always every BO).\n");
}

static int append(char *req, size_t len, const char *word)
{
	size_t have = strlen(req);
	if (have + 1 + strlen(word) + 1 > len)
		return -1;
	req[have] = ' ';
	strcpy(req + have + 1, word);
	return 0;
}

/* Runs argv[first..] with FERRY_CAPTURE_DIR set, then names the files it left. */
static int capture_run(int argc, char **argv)
{
	const char *dir = ".", *server = NULL;
	bool full = false;
	int i = 2;
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--full")) {
			full = true;
		} else if ((!strcmp(argv[i], "--dir") || !strcmp(argv[i], "--server")) && i + 1 < argc) {
			*(!strcmp(argv[i], "--dir") ? &dir : &server) = argv[i + 1];
			i++;
		} else {
			fprintf(stderr, "ferry capture run: unknown option or missing value '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "ferry capture run: no program (ferry capture run [options] -- PROGRAM [ARGS...])\n");
		return 2;
	}
	char abs[PATH_MAX];
	if (!realpath(dir, abs)) {
		fprintf(stderr, "ferry capture run: --dir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ferry capture run: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		setenv("FERRY_CAPTURE_DIR", abs, 1);
		unsetenv("FERRY_CAPTURE");
		if (full)
			setenv("FERRY_CAPTURE_FULL", "1", 1);
		else
			unsetenv("FERRY_CAPTURE_FULL");
		if (server)
			setenv("FERRY_SOCKET", server, 1);
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "ferry capture run: %s: %s\n", argv[i + 1], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = 0x7f00;
			break;
		}
	/* The program's own libferry names files by its pid; children it forked add their own. */
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "ferry-guest-%ld-", (long)pid);
	unsigned found = 0;
	DIR *d = opendir(abs);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			printf("capture: %s/%s\n", abs, e->d_name);
			found++;
		}
	if (d)
		closedir(d);
	if (!found)
		fprintf(stderr, "ferry capture run: %s left no capture in %s (did it open a ferry device?)\n",
			argv[i + 1], abs);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "ferry capture run: %s died of signal %d\n", argv[i + 1], WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int cmd_capture(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "run"))
		return capture_run(argc, argv);
	if (strcmp(verb, "start") && strcmp(verb, "stop") && strcmp(verb, "status")) {
		fprintf(stderr, "ferry capture: unknown action '%s'\n", verb);
		usage(stderr);
		return 2;
	}
	/* The control socket allows 256 bytes per request line. */
	char req[256] = "capture";
	append(req, sizeof(req), verb);
	const char *server = NULL, *control = NULL;
	for (int i = 2; i < argc; i++) {
		const char *w = argv[i];
		bool takes = !strcmp(w, "--client") || !strcmp(w, "--context") || !strcmp(w, "--count") ||
			     !strcmp(w, "--dir") || !strcmp(w, "--format") || !strcmp(w, "--server") ||
			     !strcmp(w, "--control");
		bool flag = !strcmp(w, "--full") || !strcmp(w, "--combined") || !strcmp(w, "--gzip");
		if (!takes && !flag) {
			fprintf(stderr, "ferry capture: unknown option '%s'\n", w);
			usage(stderr);
			return 2;
		}
		if (takes && i + 1 >= argc) {
			fprintf(stderr, "ferry capture: %s needs a value\n", w);
			return 2;
		}
		if (strcmp(verb, "start") && strcmp(w, "--server") && strcmp(w, "--control")) {
			fprintf(stderr, "ferry capture %s: %s is an option of start\n", verb, w);
			return 2;
		}
		if (!strcmp(w, "--server")) {
			server = argv[++i];
			continue;
		}
		if (!strcmp(w, "--control")) {
			control = argv[++i];
			continue;
		}
		char abs[PATH_MAX];
		const char *val = takes ? argv[++i] : NULL;
		if (!strcmp(w, "--dir")) {
			/* ferryd has its own working directory. */
			if (!realpath(val, abs)) {
				fprintf(stderr, "ferry capture: --dir %s: %s\n", val, strerror(errno));
				return 1;
			}
			val = abs;
		}
		if (append(req, sizeof(req), w) < 0 || (val && append(req, sizeof(req), val) < 0)) {
			fprintf(stderr, "ferry capture: request too long (the control socket takes 255 bytes)\n");
			return 1;
		}
	}

	char path[PATH_MAX];
	if (control_path_resolve("ferry capture", control, server, path, sizeof(path)) < 0)
		return 1;
	char *answer = NULL;
	if (control_request(path, req, CAPTURE_TIMEOUT_MS, &answer) < 0)
		return 1;
	int status = 0;
	if (strncmp(answer, "ok\n", 3)) {
		const char *nl = strchr(answer, '\n');
		fprintf(stderr, "ferry capture: ferryd says: %.*s\n", nl ? (int)(nl - answer) : (int)strlen(answer), answer);
		status = 1;
	} else {
		fputs(answer + 3, stdout);
	}
	free(answer);
	return status;
}
