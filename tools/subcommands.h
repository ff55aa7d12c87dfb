/* The `ferry` subcommands: each gets argv starting at its own name (argv[0]). */
#ifndef FERRY_TOOLS_SUBCOMMANDS_H
#define FERRY_TOOLS_SUBCOMMANDS_H

struct ferry_subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_soak(int argc, char **argv);
int cmd_qemu(int argc, char **argv);
int cmd_health_check(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

#endif
