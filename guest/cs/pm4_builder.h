/* A PM4 (Adreno a6xx) command-stream builder over a caller-provided dword buffer. A packet that
 * does not fit, or whose fields are out of range, is not written at all and makes the builder's
 * error sticky, so a sequence of emits can be checked once at the end. */
#ifndef FERRY_CS_PM4_BUILDER_H
#define FERRY_CS_PM4_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/hw/adreno_pm4.h"

enum pm4_builder_error {
	PM4_BUILDER_OK = 0,
	PM4_BUILDER_OVERFLOW, /* a packet did not fit in the buffer */
	PM4_BUILDER_INVALID,  /* a count, register or opcode out of its field's range */
};

struct pm4_builder {
	uint32_t *buf;
	uint32_t capacity; /* dwords */
	uint32_t len;      /* dwords written */
	enum pm4_builder_error error;
};

void pm4_builder_init(struct pm4_builder *b, uint32_t *buf, uint32_t capacity_dwords);
static inline bool pm4_builder_ok(const struct pm4_builder *b) { return b->error == PM4_BUILDER_OK; }
/* Bytes written so far (what a submit cmd's size wants). */
static inline uint32_t pm4_builder_bytes(const struct pm4_builder *b) { return b->len * 4u; }

/* Type-4 register write of count consecutive registers starting at reg (count 1..0x7f). */
void pm4_pkt4(struct pm4_builder *b, uint32_t reg, const uint32_t *values, uint32_t count);
/* Type-7 packet: header plus count payload dwords (count 0..0x3fff). payload may be NULL when
 * count is 0. */
void pm4_pkt7(struct pm4_builder *b, uint32_t opcode, const uint32_t *payload, uint32_t count);

/* Variadic forms: PM4_PKT4(b, reg, v0, v1...) and PM4_PKT7(b, op, d0, d1...) / PM4_PKT7_0(b, op). */
#define PM4_PKT4(b, reg, ...)                                                                     \
	pm4_pkt4((b), (reg), (const uint32_t[]){ __VA_ARGS__ },                                   \
		 (uint32_t)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)))
#define PM4_PKT7(b, op, ...)                                                                      \
	pm4_pkt7((b), (op), (const uint32_t[]){ __VA_ARGS__ },                                    \
		 (uint32_t)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)))
#define PM4_PKT7_0(b, op) pm4_pkt7((b), (op), NULL, 0)

/* Common packets. iova arguments are GPU addresses, emitted lo then hi. */
void pm4_nop(struct pm4_builder *b, uint32_t padding_dwords); /* CP_NOP with zero filler */
void pm4_ib(struct pm4_builder *b, uint64_t iova, uint32_t size_dwords); /* CP_INDIRECT_BUFFER */
void pm4_mem_write(struct pm4_builder *b, uint64_t iova, const uint32_t *values, uint32_t count);
void pm4_event_write(struct pm4_builder *b, uint32_t event); /* one-dword form, no memory */
/* CP_EVENT_WRITE with the TIMESTAMP bit: the CP writes value to iova. */
void pm4_event_write_ts(struct pm4_builder *b, uint32_t event, uint64_t iova, uint32_t value);
/* CP_REG_TO_MEM: cnt registers (1..0xfff) from reg to iova; is_64b sets the 64B bit. */
void pm4_reg_to_mem(struct pm4_builder *b, uint32_t reg, uint32_t cnt, uint64_t iova, bool is_64b);
/* CP_MEM_TO_REG: cnt dwords (1..0x7ff) from iova to registers starting at reg. */
void pm4_mem_to_reg(struct pm4_builder *b, uint32_t reg, uint32_t cnt, uint64_t iova);
void pm4_memcpy(struct pm4_builder *b, uint64_t dst, uint64_t src, uint32_t dwords);
/* CP_WAIT_REG_MEM polling memory at iova until (value & mask) <function> ref. */
void pm4_wait_mem(struct pm4_builder *b, enum cp_wait_function function, uint64_t iova, uint32_t ref,
		  uint32_t mask);
/* CP_WAIT_REG_MEM polling register reg. */
void pm4_wait_reg(struct pm4_builder *b, enum cp_wait_function function, uint32_t reg, uint32_t ref,
		  uint32_t mask);
void pm4_wait_for_idle(struct pm4_builder *b);
void pm4_wait_for_me(struct pm4_builder *b);

#endif
