/* PM4 (Adreno a6xx) disassembler: a dword stream at a GPU address to text, one line per packet
 * plus its decoded payload, GPU addresses annotated with the BO they fall in. Reads untrusted
 * captures, so every count is checked against what is present and output is bounded. */
#ifndef FERRY_DEBUG_PM4_DECODE_H
#define FERRY_DEBUG_PM4_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A buffer the decoder knows: for annotating addresses and, with contents, following IBs. */
struct pm4_decode_bo {
	uint64_t iova;
	uint64_t size;         /* bytes it spans in the GPU address space */
	uint32_t id;           /* printed as "bo <id>" */
	const char *name;      /* optional */
	const void *contents;  /* optional: bytes from iova on, little-endian dwords */
	uint64_t contents_len; /* bytes at contents (may be less than size: the rest is unknown) */
};

struct pm4_decode_options {
	const struct pm4_decode_bo *bos;
	size_t nr_bos;
	bool follow_ibs;        /* decode IB targets and draw-state groups found in bos with contents */
	unsigned top_level;     /* IB level of the stream given (1 = IB1); 0 means 1 */
	unsigned max_depth;     /* nested streams followed below the top; 0 means 3 */
	uint64_t max_dwords;    /* total dwords decoded over all streams; 0 means 1 << 24 */
	bool mark;              /* print "ESTIMATED CRASH LOCATION!" before the packet at mark_iova */
	uint64_t mark_iova;
};

struct pm4_decode_stats {
	uint64_t packets;          /* packet headers decoded */
	uint64_t bad_dwords;       /* dwords skipped as bad headers (bad type or parity) */
	uint64_t truncated;        /* packets whose payload ran past the end of their stream */
	uint64_t ibs_followed;     /* nested streams decoded */
	uint64_t ibs_unavailable;  /* nested streams whose contents were not available */
	uint64_t privileged;       /* packets only the kernel's ringbuffer may carry */
	bool budget_exhausted;     /* max_dwords reached: output stopped early */
	bool marked;               /* the mark was found on a packet header */
};

/* Decodes nr_dwords dwords (host order) that sit at base_iova. stats may be NULL. Returns 0, or -1
 * if writing to out failed. Never reads outside dwords[0..nr_dwords) or a BO's contents. */
int pm4_decode(FILE *out, const uint32_t *dwords, size_t nr_dwords, uint64_t base_iova,
	       const struct pm4_decode_options *opts, struct pm4_decode_stats *stats);

/* One header on its own: "CP_MEM_WRITE (3 dwords)", "PKT4 CP_SCRATCH_REG(0) (2 regs)" or why it
 * is not a valid header ("?? type-7 header with bad parity"). */
void pm4_decode_describe_header(uint32_t header, char *buf, size_t len);

/* The BO of the table that holds iova, or NULL. */
const struct pm4_decode_bo *pm4_decode_find_bo(const struct pm4_decode_bo *bos, size_t nr_bos, uint64_t iova);

/* Writes "0x<iova>" plus " (bo N +0xOFF)" / " (bo N name +0xOFF)" / " (no bo)" (the last only if
 * the table is not empty) into buf. */
void pm4_decode_format_addr(char *buf, size_t len, const struct pm4_decode_bo *bos, size_t nr_bos,
			    uint64_t iova);

/* Name of a CP_EVENT_WRITE event id on a6xx, or NULL. Register names come from a6xx_reg_name()
 * (ferry/hw/a6xx_regs.h), opcode names from pm4_opcode_name() and the packets only the kernel's
 * ringbuffer may execute from pm4_opcode_kernel_only() (ferry/hw/adreno_pm4.h). */
const char *pm4_decode_event_name(uint32_t event);

#endif
