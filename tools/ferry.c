/* The `ferry` command line tool: dispatches to one subcommand per file (demo.c, bench.c). */
#include <stdio.h>
#include <string.h>

#include "subcommands.h"

static const struct ferry_subcommand subcommands[] = {
	{ "demo", "run a guest workload through a private ferryd and check every result", cmd_demo },
	{ "bench", "measure ferryd against the in-process simulator and the socket floor", cmd_bench },
	{ "decode", "disassemble PM4 or V3D control lists from a raw dump, a fault report or an .rd capture", cmd_decode },
	{ "status", "a running ferryd's status, sync-state dump, fault reports, watchdog", cmd_status },
	{ "trace", "start / stop a running ferryd's per-queue trace, fetch it as Chrome-trace JSON", cmd_trace },
	{ "capture", "start / stop / show a running ferryd's submit capture; run a program with a guest-side capture", cmd_capture },
	{ "replay", "replay an .rd or session capture on a private or remote ferryd", cmd_replay },
	{ "soak", "run good, faulting, hanging, killed and hostile clients; check ferryd returns to baseline", cmd_soak },
	{ "doctor", "check a board's msm or v3d render node for ferryd --gpu /dev/dri/renderDNNN", cmd_doctor },
	{ "qemu", "run QEMU with ferry's renderer library (virtio-gpu guests reach ferry)", cmd_qemu },
	{ "health-check", "the bytes of a load balancer's ferry handshake probe (HAProxy tcp-check lines)", cmd_health_check },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry [--help] [--version] <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-13s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "\n`ferry <command> --help` describes a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ferry %s\n", FERRY_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ferry: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
