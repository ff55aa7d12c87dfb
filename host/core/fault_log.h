/* Fault reports (fault_log.c): to the guest, the log, crash files and operators. */
#ifndef FERRY_HOST_FAULT_LOG_H
#define FERRY_HOST_FAULT_LOG_H

#include "host_types.h"

/* fault_log.c: a fault or hang of seqno on q — report to the guest (FAULT_REPORT) and the log,
 * keep it for operators, mark the context lost. Returns the fence status (-ETIMEDOUT for a
 * hang, else -EIO). */
int32_t fault_log_report(struct host_queue *q, uint32_t seqno);
/* The message for requests on a lost context ("context N lost after a GPU hang at ..."). */
const char *ctx_lost_reason(const struct host_ctx *ctx);
void fault_log_free(struct ferry_host *h);
/* fault_log.c, for other families' reports: the next report number (0 without a log), and
 * keeping a composed report for operators (takes text; freed when not kept). */
uint64_t fault_log_next_number(struct ferry_host *h);
/* Every family's report goes out the same way: written to cfg.crash_dir as
 * ferry-report-<pid>-<number>.txt (path gets its name, "" when not written), and logged in
 * full at info level, one line per message. */
void fault_log_write_crash_file(struct ferry_host *h, uint64_t number, const char *text, char *path, size_t len);
void fault_log_full(struct ferry_host *h, uint64_t number, const char *text);
void fault_log_keep_text(struct ferry_host *h, uint64_t number, char *text);

#endif
