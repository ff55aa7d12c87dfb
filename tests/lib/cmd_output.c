/* test_cmd_output: one way for tests to run a command and read all it printed. */
#include "cmd_output.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ferry/array.h"

static void die(const char *what)
{
	fprintf(stderr, "test_cmd_output: %s\n", what);
	exit(1);
}

int test_cmd_output(char **out, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(cmd, sizeof(cmd) - sizeof(" 2>&1"), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(cmd) - sizeof(" 2>&1"))
		die("command line too long");
	strcat(cmd, " 2>&1");

	FILE *p = popen(cmd, "r");
	if (!p) {
		if (out)
			*out = NULL;
		return -1;
	}
	size_t cap = 0, used = 0, n;
	char *buf = NULL;
	do {
		if (FERRY_ARRAY_RESERVE(buf, cap, used + 2, 1 << 16))
			die("out of memory");
		n = fread(buf + used, 1, cap - 1 - used, p);
		used += n;
	} while (n > 0);
	buf[used] = '\0';
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	if (st == -1)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}
