/* The simulators' fault reports (devcoredumps): the header both reports open with, and the
 * hand-off to the open's kdev.coredump slot. */
#ifndef FERRY_SIM_REPORT_TEXT_H
#define FERRY_SIM_REPORT_TEXT_H

#include "ferry/text.h" /* the report is a ferry_text, written with ferry_text_put */

/* "---", the kernel and module lines and the CLOCK_MONOTONIC time of capture. */
void sim_text_put_header(struct ferry_text *t, const char *module);
/* Hands the text to *slot, replacing an unread one (msm's capture keeps the first instead, and
 * does not get here while one is unread); a failed text is dropped and *slot left alone. t is
 * empty afterwards. */
void sim_text_publish(struct ferry_text *t, char **slot);

#endif
