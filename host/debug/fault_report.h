/* Reading a fault/hang report: the devcoredump-like text the simulated msm device writes (format
 * at the top of host/sim/msm/sim_msm_coredump.c) and FERRY_MSG_FAULT_REPORT carries, plus msm's own
 * sections a real devcoredump has (bos: / ringbuffer: with !!ascii85 data). Parsed into a struct,
 * then printed crashdec-style with the command stream decoded where the report carries it. */
#ifndef FERRY_DEBUG_FAULT_REPORT_H
#define FERRY_DEBUG_FAULT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum fault_report_kind { FAULT_REPORT_UNKNOWN, FAULT_REPORT_PAGEFAULT, FAULT_REPORT_HANG, FAULT_REPORT_CP_ERROR };

struct fault_report_reg {
	uint32_t offset; /* bytes, as the kernel prints them */
	uint32_t value;
	char name[40];
};

/* Memory the report carries: a BO (bos:), a ringbuffer (ringbuffer:) or a packet dump. */
struct fault_report_mem {
	uint64_t iova;
	uint64_t size;      /* bytes it spans (from size:, else the decoded length) */
	char name[48];
	uint8_t *data;      /* decoded contents, little-endian dwords; may be shorter than size */
	size_t data_len;
	bool is_packets;    /* from a packet-dump section: decode as a stream, not a BO */
};

/* One entry of last-packets: a packet the CP began, oldest first (the last is the crash). */
struct fault_report_packet {
	uint64_t iova;
	uint32_t level, dword, header;
	bool has_header;
	char name[48];
};

struct fault_report {
	char comm[64];
	char revision[48];
	enum fault_report_kind kind;
	uint64_t fault_iova;
	bool has_fault_iova;
	char dir[16], type[32], source[32];
	char reason[160];                 /* hang / cp-error reason */
	bool has_submit;
	uint32_t queue, fence, prio;
	bool has_crash;
	uint32_t ib_level, ib_size, dword;
	uint64_t ib_iova;
	char packet[64];
	bool has_header;
	uint32_t header;
	char frame[48];                   /* "ib" or "draw-state group N" */
	/* Validated contexts: ferryd's "guest:" line maps the crash IB (a host shadow copy) back to
	 * the guest's own BO. */
	bool has_guest;
	uint64_t guest_ib_iova, guest_bo_offset, shadow_ib_iova;
	uint32_t guest_bo;
	struct fault_report_packet *packets;
	size_t nr_packets;
	char cp_state[1024];              /* the cp-state: section's lines, as reported */
	struct fault_report_reg *regs;
	size_t nr_regs;
	struct fault_report_mem *mems;
	size_t nr_mems;
	char other_sections[256];         /* names of sections not understood, space-separated */
};

/* True if text looks like such a report (a "---" / "kernel:" / "revision:" preamble or one of its
 * sections). */
bool fault_report_detect(const char *text, size_t len);

/* Parses len bytes of text (need not be NUL-terminated). Returns 0, or -1 with a reason in err
 * (malformed numbers, bad ascii85, out of memory, nothing recognisable). */
int fault_report_parse(const char *text, size_t len, struct fault_report *r, char *err, size_t err_len);
void fault_report_free(struct fault_report *r);

/* Summary, ESTIMATED CRASH LOCATION, decoded command stream where present (and what is missing),
 * registers. Returns 0, or -1 if writing failed. */
int fault_report_print(FILE *out, const struct fault_report *r, bool follow_ibs);

/* msm's ascii85 variant (one group per 32-bit word, 'z' for zero). Appends words as
 * little-endian bytes to *buf, which must be NULL/0 or have been grown only by this function.
 * Returns 0 or -1 on a bad character/group/ENOMEM (*buf stays the caller's to free). */
int fault_report_ascii85_decode(const char *s, size_t len, uint8_t **buf, size_t *buf_len);

#endif
