/* The render-node kdev's choice of devcoredump: only a dump whose header names this open (the
 * comm it set) or, without one, this process (comm and cmdline) is ever taken for a guest. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend/render_node_priv.h"
#include "test.h"

static void self_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\n'))
		n--;
	buf[n] = '\0';
}

static char dump[8192];

static const char *make(const char *comm, const char *cmdline)
{
	int n = snprintf(dump, sizeof(dump), "---\nkernel: 6.1.0\nmodule: msm\ntime: 1.000000000\n");
	if (comm)
		n += snprintf(dump + n, sizeof(dump) - (size_t)n, "comm: %s\n", comm);
	if (cmdline)
		n += snprintf(dump + n, sizeof(dump) - (size_t)n, "cmdline: %s\n", cmdline);
	snprintf(dump + n, sizeof(dump) - (size_t)n,
		 "revision: 630 (6.3.0.2)\nhang:\n  - reason=x\nsubmit:\n  queue: 1\n  fence: 2\n");
	return dump;
}

static void test_process(void)
{
	char comm[64], cmdline[4096];
	self_line("/proc/self/comm", comm, sizeof(comm));
	self_line("/proc/self/cmdline", cmdline, sizeof(cmdline));
	CHECK(render_node_dump_is_ours(make(comm, cmdline), ""));
	CHECK(render_node_dump_is_ours(make(comm, NULL), ""));
	CHECK(!render_node_dump_is_ours(make("someone-else", cmdline), ""));
	CHECK(!render_node_dump_is_ours(make(comm, "/usr/bin/other --flag"), ""));
	/* A dump that names nobody (no submit was found) is nobody's. */
	CHECK(!render_node_dump_is_ours(make(NULL, NULL), ""));
	/* Only the header counts: a "comm:" further down is not the dump's. */
	char late[256];
	snprintf(late, sizeof(late), "---\nkernel: 6.1.0\nhang:\n  - reason=x\ncomm: %s\n", comm);
	CHECK(!render_node_dump_is_ours(late, ""));
}

static void test_open_tag(void)
{
	char comm[64], cmdline[4096];
	self_line("/proc/self/comm", comm, sizeof(comm));
	self_line("/proc/self/cmdline", cmdline, sizeof(cmdline));
	/* An open that named itself takes only its own: not its sibling's, not the bare process's. */
	CHECK(render_node_dump_is_ours(make("ferryd[12.3]", cmdline), "ferryd[12.3]"));
	CHECK(!render_node_dump_is_ours(make("ferryd[12.4]", cmdline), "ferryd[12.3]"));
	CHECK(!render_node_dump_is_ours(make(comm, cmdline), "ferryd[12.3]"));
	CHECK(!render_node_dump_is_ours(make("ferryd[12.3]", "/usr/bin/other"), "ferryd[12.3]"));
}

int main(void)
{
	RUN_TEST(test_process);
	RUN_TEST(test_open_tag);
	return test_finish();
}
