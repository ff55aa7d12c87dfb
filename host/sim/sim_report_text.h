/* The simulators' fault reports (devcoredumps): the header both reports open with, and the
 * hand-off to the open's kdev.coredump slot. */
#ifndef FERRY_SIM_REPORT_TEXT_H
#define FERRY_SIM_REPORT_TEXT_H

#include "ferry/text.h" /* the report is a ferry_text, written with ferry_text_put */

/* "---", the kernel and module lines and the CLOCK_MONOTONIC time of capture. */
void sim_text_put_header(struct ferry_text *t, const char *module);
/* Hands the text to *slot unless an unread one is there: as msm keeps one crash state until it
 * is read, the first fault's report stays (it is the one that lost the context; later faults
 * show only in the fault counts). A failed text is dropped. t is empty afterwards. Under the
 * device lock. */
void sim_text_publish(struct ferry_text *t, char **slot);

#endif
