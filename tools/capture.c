/* `ferry capture start|stop|status`: the operator's switch for a running ferryd's submit capture,
 * sent as one `capture ...` request over its control socket (mode 0600: only its owner). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_client.h"
#include "ferry/ferry.h"
#include "subcommands.h"

#define CAPTURE_TIMEOUT_MS 10000

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry capture start [options] | stop | status  [--server URI] [--control PATH]\n"
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
		   "  --server URI       ferryd's socket (unix:PATH; default $FERRY_SOCKET, then the default)\n"
		   "  --control PATH     the control socket itself\n");
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

int cmd_capture(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *verb = argv[1];
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
