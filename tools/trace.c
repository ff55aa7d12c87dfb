/* `ferry trace`: starts, stops or clears a running ferryd's trace, and fetches it as Chrome
 * trace-event JSON (open it in ui.perfetto.dev or chrome://tracing) through the control socket. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_client.h"
#include "ferry/ferry.h"
#include "subcommands.h"

#define TRACE_TIMEOUT_MS 30000

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry trace [options]\n"
		   "Control a running ferryd's per-queue trace and fetch it as Chrome-trace JSON.\n"
		   "With no option the trace is written to stdout.\n\n"
		   "  --server URI    ferryd's socket (unix:PATH; default $FERRY_SOCKET, then the default path;\n"
		   "                  the control socket is local, never tcp:)\n"
		   "  --control PATH  the control socket itself\n"
		   "  --start         start recording (off by default)\n"
		   "  --stop          stop recording (after fetching, when -o is given too)\n"
		   "  --clear         drop the recorded events (after fetching)\n"
		   "  --status        whether it records, events kept, events overwritten\n"
		   "  -o FILE         write the JSON to FILE ('-' = stdout)\n"
		   "  -h, --help      this text\n");
}

/* Sends one request; on "ok" returns 0 with the body in *body (malloc'd answer in *answer). */
static int ask(const char *path, const char *request, char **answer, const char **body)
{
	if (control_request(path, request, TRACE_TIMEOUT_MS, answer) < 0)
		return 1;
	const char *nl = strchr(*answer, '\n');
	size_t first = nl ? (size_t)(nl - *answer) : strlen(*answer);
	if (first == 2 && !strncmp(*answer, "ok", 2)) {
		*body = nl ? nl + 1 : "";
		return 0;
	}
	fprintf(stderr, "ferry trace: ferryd says: %.*s\n", (int)first, *answer);
	free(*answer);
	*answer = NULL;
	return 1;
}

static int simple(const char *path, const char *request, bool print)
{
	char *answer = NULL;
	const char *body;
	if (ask(path, request, &answer, &body))
		return 1;
	if (print)
		fputs(body, stdout);
	free(answer);
	return 0;
}

static int fetch(const char *path, const char *out)
{
	char *answer = NULL;
	const char *body;
	if (ask(path, "trace", &answer, &body))
		return 1;
	int rc = 0;
	if (!out || !strcmp(out, "-")) {
		fputs(body, stdout);
	} else {
		FILE *f = fopen(out, "w");
		if (!f || fputs(body, f) < 0 || fclose(f) != 0) {
			fprintf(stderr, "ferry trace: %s: %s\n", out, strerror(errno));
			rc = 1;
		}
	}
	free(answer);
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	enum { OPT_SERVER = 256, OPT_CONTROL, OPT_START, OPT_STOP, OPT_CLEAR, OPT_STATUS };
	static const struct option opts[] = {
		{ "server", required_argument, NULL, OPT_SERVER },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "start", no_argument, NULL, OPT_START },
		{ "stop", no_argument, NULL, OPT_STOP },
		{ "clear", no_argument, NULL, OPT_CLEAR },
		{ "status", no_argument, NULL, OPT_STATUS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *server = NULL, *control = NULL, *out = NULL;
	bool start = false, stop = false, clear = false, status = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SERVER: server = optarg; break;
		case OPT_CONTROL: control = optarg; break;
		case OPT_START: start = true; break;
		case OPT_STOP: stop = true; break;
		case OPT_CLEAR: clear = true; break;
		case OPT_STATUS: status = true; break;
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || (start && stop)) {
		usage(stderr);
		return 2;
	}

	char path[256];
	if (control_path_resolve("ferry trace", control, server, path, sizeof(path)) < 0)
		return 2;

	/* Start first, fetch, then stop / clear: `ferry trace -o f.json --stop --clear` takes what
	 * was recorded and leaves ferryd clean. */
	int rc = 0;
	if (start)
		rc |= simple(path, "trace start", false);
	if (out || !(start || stop || clear || status))
		rc |= fetch(path, out);
	if (stop)
		rc |= simple(path, "trace stop", false);
	if (clear)
		rc |= simple(path, "trace clear", false);
	if (status)
		rc |= simple(path, "trace status", true);
	return rc;
}
