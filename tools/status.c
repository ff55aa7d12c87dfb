/* `ferry status`: asks a running ferryd, through its operator control socket, for its status,
 * the sync-state dump (--sync), its fault reports, or to change the fence-signal watchdog. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_client.h"
#include "ferry/ferry.h"
#include "subcommands.h"

#define STATUS_TIMEOUT_MS 10000

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry status [options]\n"
		   "Show a running ferryd's status through its control socket (<socket>.ctl).\n\n"
		   "  --server URI         ferryd's socket (unix:PATH; default $FERRY_SOCKET, then the default path;\n"
		   "                       the control socket is local: a tcp: ferryd needs --control on its machine)\n"
		   "  --control PATH       the control socket itself\n"
		   "  --sync               print the sync-state dump: every pending operation of every queue\n"
		   "  --watchdog on|off|MS turn the fence-signal watchdog on or off, or set its timeout\n"
		   "  --reports            list the fault/hang reports ferryd keeps\n"
		   "  --report N           print fault/hang report N in full (feed it to `ferry decode -`)\n"
		   "  -h, --help           this text\n");
}

/* Prints the body of an answer; returns the exit code (1 on "error: ..."). */
static int print_answer(const char *answer)
{
	const char *nl = strchr(answer, '\n');
	size_t first = nl ? (size_t)(nl - answer) : strlen(answer);
	if (first == 2 && !strncmp(answer, "ok", 2)) {
		fputs(nl ? nl + 1 : "", stdout);
		return 0;
	}
	fprintf(stderr, "ferry status: ferryd says: %.*s\n", (int)first, answer);
	return 1;
}

static int ask(const char *path, const char *request, bool empty_note)
{
	char *answer = NULL;
	if (control_request(path, request, STATUS_TIMEOUT_MS, &answer) < 0)
		return 1;
	int rc = print_answer(answer);
	if (rc == 0 && empty_note && !strcmp(answer, "ok\n"))
		printf("(no pending operations)\n");
	free(answer);
	return rc;
}

int cmd_status(int argc, char **argv)
{
	enum { OPT_SERVER = 256, OPT_CONTROL, OPT_SYNC, OPT_WATCHDOG, OPT_REPORTS, OPT_REPORT };
	static const struct option opts[] = {
		{ "server", required_argument, NULL, OPT_SERVER },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "sync", no_argument, NULL, OPT_SYNC },
		{ "watchdog", required_argument, NULL, OPT_WATCHDOG },
		{ "reports", no_argument, NULL, OPT_REPORTS },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *server = NULL, *control = NULL, *watchdog = NULL, *report = NULL;
	bool sync = false, reports = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SERVER: server = optarg; break;
		case OPT_CONTROL: control = optarg; break;
		case OPT_SYNC: sync = true; break;
		case OPT_WATCHDOG: watchdog = optarg; break;
		case OPT_REPORTS: reports = true; break;
		case OPT_REPORT: report = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	/* Arguments travel inside one request line: keep them to one plain word. */
	const char *args[] = { watchdog, report };
	for (size_t i = 0; i < 2; i++) {
		if (args[i] && (!args[i][0] || strlen(args[i]) > 32 || strcspn(args[i], " \t\r\n") != strlen(args[i]))) {
			fprintf(stderr, "ferry status: bad argument '%s'\n", args[i]);
			return 2;
		}
	}

	char path[256];
	if (control_path_resolve("ferry status", control, server, path, sizeof(path)) < 0)
		return 2;

	int rc = 0;
	char line[64];
	if (watchdog) {
		snprintf(line, sizeof(line), "watchdog %s", watchdog);
		rc |= ask(path, line, false);
	}
	if (!watchdog && !reports && !report)
		rc |= ask(path, "status", false);
	if (sync) {
		if (!watchdog && !reports && !report)
			printf("\nsync state:\n");
		rc |= ask(path, "sync", true);
	}
	if (reports)
		rc |= ask(path, "reports", false);
	if (report) {
		snprintf(line, sizeof(line), "report %s", report);
		rc |= ask(path, line, false);
	}
	return rc;
}
