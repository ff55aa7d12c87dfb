/* Shared between the PM4 stream walker (pm4_decode.c) and the per-packet payload decoders
 * (pm4_packets.c): the decoder state, one packet's view, and the output helpers. */
#ifndef FERRY_DEBUG_PM4_DECODE_PRIV_H
#define FERRY_DEBUG_PM4_DECODE_PRIV_H

#include "ferry/hw/addr64.h"
#include "pm4_decode.h"

#define PM4_DECODE_DEPTH_CAP 8u /* nested streams below the top, whatever the options ask */

struct pm4_dec {
	FILE *out;
	const struct pm4_decode_options *opts;
	struct pm4_decode_stats *stats;
	uint64_t budget_left; /* dwords still allowed over all streams */
	unsigned max_depth;
	unsigned depth;       /* nesting below the top stream, for indentation and the limit */
};

struct pm4_pkt {
	uint64_t iova;      /* of the header */
	uint32_t header;
	bool type7;
	uint32_t opcode;    /* type-7 */
	uint32_t reg;       /* type-4 */
	const uint32_t *p;  /* payload */
	uint32_t count;     /* payload dwords, all present (truncated packets never reach a decoder) */
	unsigned level;     /* IB level of the stream it is in */
};

/* One payload line: indentation for the current depth, then the formatted text and a newline. */
void pm4_line(struct pm4_dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "name: 0x<iova> (bo N +0xOFF)" as a payload line. */
void pm4_line_addr(struct pm4_dec *d, const char *name, uint64_t iova);
/* Payload dwords [from, from + n) as hex, eight per line, labelled with their payload index. */
void pm4_hexdump(struct pm4_dec *d, const uint32_t *p, uint32_t from, uint32_t n);
/* Decodes the stream at iova (size_dw dwords) one level deeper, if following is on, the depth
 * allows and a BO has the contents; otherwise says why not. kind: "IB2", "draw state group 3". */
void pm4_follow(struct pm4_dec *d, const char *kind, uint64_t iova, uint64_t size_dw, unsigned level);

/* Type-7 payload decoders (pm4_packets.c): field lines for packets ferry knows, hex otherwise. */
void pm4_decode_type7_payload(struct pm4_dec *d, const struct pm4_pkt *pkt);

#endif
