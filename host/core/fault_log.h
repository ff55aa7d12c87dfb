/* Fault reports (fault_log.c): to the guest, the log, crash files and operators. */
#ifndef FERRY_HOST_FAULT_LOG_H
#define FERRY_HOST_FAULT_LOG_H

#include "host_types.h"

/* A family's reading of a fault, for the one composer. */
struct host_fault {
	const char *kind;         /* "hang", "read fault", "MMU fault", ... */
	int32_t status;           /* the fence status: -ETIMEDOUT for a hang, else -EIO */
	char where[112];          /* the ESTIMATED CRASH LOCATION value */
	char address_line[128];   /* a header line on the faulting address ("" when none) */
	char at[48];              /* " at 0x..." in the log line and the lost reason ("" when none) */
	bool where_in_parens;     /* lost reason: "GPU <kind><at> (<where>; queue ...)" instead of
				   * "GPU <kind><at> at <where> (queue ...)" (where names a packet, not an address) */
	char *guest_lines;        /* more header lines, malloc'd (taken), or NULL */
	const char *kernel_text;  /* the kernel's report, below the header */
	struct ferry_fault_report wire; /* flags, addresses, opcode, source (ids and text are set here) */
};
/* A fault or hang of seqno on q, report number (fault_log_next_number): composed (header, the
 * family's lines, the submit's capture lines, the kernel's text), sent to the guest as
 * FAULT_REPORT, logged, written to the crash dir, kept for operators; the context is lost, and
 * every fence of q after seqno fails with f->status too. Returns f->status. */
int32_t fault_log_report(struct host_queue *q, uint32_t seqno, uint64_t number, struct host_fault *f);
/* After the report of seqno on q: the kernel counted a fault it did not say the submit of (no
 * crash state names it, or 'more' faults beyond the reported one). It is seqno's or a later
 * one's, and the report already fails every later fence: logged, the extra faults counted. */
void fault_log_unplaced(struct host_queue *q, uint32_t seqno, uint32_t more);
/* The message for requests on a lost context ("context N lost after a GPU hang at ..."). */
const char *ctx_lost_reason(const struct host_ctx *ctx);
void fault_log_free(struct ferry_host *h);
/* The next report number (0 without a log), and keeping a composed report for operators (takes
 * text; freed when not kept). */
uint64_t fault_log_next_number(struct ferry_host *h);
/* Every family's report goes out the same way: written to cfg.crash_dir as
 * ferry-report-<pid>-<number>.txt (path gets its name, "" when not written), and logged in
 * full at info level, one line per message. */
void fault_log_write_crash_file(struct ferry_host *h, uint64_t number, const char *text, char *path, size_t len);
void fault_log_full(struct ferry_host *h, uint64_t number, const char *text);
void fault_log_keep_text(struct ferry_host *h, uint64_t number, char *text);

#endif
