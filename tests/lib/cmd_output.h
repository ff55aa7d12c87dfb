/* Tests that run a program (the ferry CLI, a shell line) and check what it printed. */
#ifndef FERRY_TEST_CMD_OUTPUT_H
#define FERRY_TEST_CMD_OUTPUT_H

/* Runs a shell command line (printf-style) with its stderr folded into its stdout. *out gets
 * everything it printed (malloc'd, NUL-terminated); with out NULL the output is dropped.
 * Returns its exit status, 128 + the signal that killed it, or -1 if it could not be run.
 * A command line too long for the buffer or no memory ends the test (exit 1). */
int test_cmd_output(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
