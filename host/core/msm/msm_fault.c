/* msm faults: reading the kernel's devcoredump (the crash location in crashdec style, the guest's
 * addresses for validated contexts) into the shared report (fault_log.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <ferry/hw/adreno_pm4.h>

#include "core/host_log.h"
#include "core/fault_log.h"
#include "core/msm/msm_fault_guest_addr.h"

/* "CP_WAIT_REG_MEM" / "PKT4" / "opcode 0x7f" for a report's opcode field (type-7 opcodes are
 * 7 bits; wire.h reports a type-4 packet as 0x100|reg). */
static void packet_name(uint32_t opcode, char *buf, size_t len)
{
	if (opcode > PM4_TYPE7_OPCODE_MASK) {
		snprintf(buf, len, "PKT4 (register write)");
		return;
	}
	const char *name = pm4_opcode_name(opcode);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "opcode 0x%02x", opcode);
}

/* crashdec's ESTIMATED CRASH LOCATION, as a value: "IB1 0x0000000100000000 dword 12: CP_WAIT_REG_MEM". */
static void crash_location(const struct msm_fault *f, char *buf, size_t len)
{
	if (!f->have_location) {
		snprintf(buf, len, "unknown (the kernel's dump does not say)");
		return;
	}
	char pkt[48];
	packet_name(f->opcode, pkt, sizeof(pkt));
	snprintf(buf, len, "IB%u 0x%016llx dword %u: %s", f->ib_level, (unsigned long long)f->ib_iova, f->ib_dword,
		 pkt);
}

static const char *kind_name(const struct msm_fault *f)
{
	switch (f->kind) {
	case MSM_FAULT_HANG: return "hang";
	case MSM_FAULT_PAGEFAULT: return f->write ? "write fault" : "read fault";
	case MSM_FAULT_CP_ERROR: return "command-stream error";
	case MSM_FAULT_UNMODELED: return "error: unmodeled work (--sim-strict)";
	default: return "fault";
	}
}

int32_t msm_fault_report(struct host_queue *q, uint32_t *blamed, bool *placed)
{
	struct host_ctx *ctx = q->ctx;
	struct ferry_host *h = ctx->client->host;
	if (!ctx->fault_text)
		ctx->fault_text = malloc(HOST_FAULT_TEXT_MAX);
	char empty[1] = "";
	char *kernel_text = ctx->fault_text ? ctx->fault_text : empty;
	struct msm_fault f;
	if (msm_read_fault(msm_hctx(ctx)->msm, &f, kernel_text, ctx->fault_text ? HOST_FAULT_TEXT_MAX : 1) < 0)
		kernel_text[0] = '\0';
	/* The fault count is read after the fences a retire pass found done: the faulting submit
	 * may be any of them, and the dump says which. */
	*placed = f.have_submit && f.queue_id == q->kernel_id &&
		  (f.fence == *blamed || timeline_find(&q->tl, f.fence));
	if (*placed)
		*blamed = f.fence;
	if (!*placed && q->tl.fail_status && !timeline_in_fail_tail(&q->tl, *blamed)) {
		/* An earlier fault of this queue already fails every fence after it, and this one, being
		 * later (a queue faults in order), is among those: the fence retiring now ran before the
		 * first fault and must not carry it. A dump read here is someone else's. */
		if (kernel_text[0]) {
			uint64_t number = fault_log_next_number(h);
			host_log(h, FERRY_LOG_WARN, "report %llu: a coredump read for queue %u names no pending fence "
				 "of it: logged below, not sent", (unsigned long long)number, q->kernel_id);
			fault_log_full(h, number, kernel_text);
		}
		*blamed = q->tl.fail_after;
		return 0;
	}
	uint32_t seqno = *blamed;
	uint64_t number = fault_log_next_number(h);
	/* The dump may name another queue of this context (the job that hung beside the one the
	 * fence timeline blames): still this guest's own work. */
	bool own_queue = false;
	const struct host_queue *oq;
	if (f.have_submit)
		ctx_for_each_queue(ctx, oq)
			own_queue |= oq->kernel_id == f.queue_id;
	if (f.have_submit && (f.queue_id != q->kernel_id || f.fence != seqno) && own_queue)
		host_log(h, FERRY_LOG_DEBUG, "coredump names queue %u fence %u; attributing to seqno %u", f.queue_id,
			 f.fence, seqno);
	else if (f.have_submit && (f.queue_id != q->kernel_id || f.fence != seqno)) {
		/* Another context's (or an older job's) crash: its text is not this guest's to read. The
		 * operator gets it; the guest only the parsed fields. */
		host_log(h, FERRY_LOG_WARN,
			 "report %llu: the coredump names queue %u fence %u, not queue %u seqno %u: its text is "
			 "withheld from the guest and logged below",
			 (unsigned long long)number, f.queue_id, f.fence, q->kernel_id, seqno);
		fault_log_full(h, number, kernel_text); /* line by line: a log message holds 1 KiB */
		kernel_text[0] = '\0';
	}

	struct host_fault hf = {
		/* A hang is -ETIMEDOUT; a pagefault or a CP error (or an unreadable dump) is -EIO. */
		.kind = kind_name(&f), .status = f.kind == MSM_FAULT_HANG ? -ETIMEDOUT : -EIO,
		.kernel_text = kernel_text,
	};
	/* Validated contexts ran shadow copies: the location and the wire field name the guest's
	 * stream instead (the kernel's text stays as it is, below a note). */
	hf.guest_lines = fault_guest_lines(ctx, &f, kernel_text);
	struct fault_guest_addr guest_ib;
	if (f.have_location && fault_guest_address(ctx, f.ib_iova, &guest_ib))
		f.ib_iova = guest_ib.iova;
	crash_location(&f, hf.where, sizeof(hf.where));
	if (f.have_iova) {
		snprintf(hf.address_line, sizeof(hf.address_line), "fault-iova: 0x%016llx (%s)\n",
			 (unsigned long long)f.iova, f.write ? "write" : "read");
		snprintf(hf.at, sizeof(hf.at), " at iova 0x%llx", (unsigned long long)f.iova);
	}
	hf.wire = (struct ferry_fault_report){
		.flags = (f.kind == MSM_FAULT_HANG ? FERRY_FAULT_HANG : 0) | (f.have_iova && f.write ? FERRY_FAULT_WRITE : 0),
		.iova = f.iova,
		.ib_iova = f.ib_iova,
		.ib_dword = f.ib_dword,
		.ib_level = f.ib_level,
		.opcode = f.opcode,
		.source = 0,
	};
	return fault_log_report(q, seqno, number, &hf);
}
