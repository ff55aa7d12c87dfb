/* The growable text the simulators write their fault reports (devcoredumps) into, with the header
 * both reports open with, and the hand-off to the open's kdev.coredump slot. */
#ifndef FERRY_SIM_REPORT_TEXT_H
#define FERRY_SIM_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct sim_text {
	char *buf; /* NUL-terminated once anything was put */
	size_t len, cap;
	bool failed; /* out of memory or a bad format: the text is incomplete, put does nothing */
};

void sim_text_put(struct sim_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "---", the kernel and module lines and the CLOCK_MONOTONIC time of capture. */
void sim_text_put_header(struct sim_text *t, const char *module);
/* Hands the text to *slot, replacing an unread one as devcoredump does; a failed text is dropped
 * and *slot left alone. t is empty afterwards. */
void sim_text_publish(struct sim_text *t, char **slot);

#endif
