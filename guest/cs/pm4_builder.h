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
/* CP_EVENT_WRITE of a *_TS event (CACHE_FLUSH_TS, RB_DONE_TS, ...): the CP writes the 32-bit
 * value to iova once the event completes (the kernel's fence write). */
void pm4_event_write_ts(struct pm4_builder *b, uint32_t event, uint64_t iova, uint32_t value);
/* CP_EVENT_WRITE with the TIMESTAMP bit: the CP writes its 64-bit GPU timestamp (19.2 MHz
 * always-on ticks) to iova instead of a value (Turnip's timestamp queries). */
void pm4_event_write_gpu_ts(struct pm4_builder *b, uint32_t event, uint64_t iova);
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

/* CP_INDIRECT_BUFFER_CHAIN: jump to another IB at the same level (must end the IB). */
void pm4_ib_chain(struct pm4_builder *b, uint64_t iova, uint32_t size_dwords);
/* CP_WAIT_MEM_GTE: wait until the dword at iova >= ref (signed). */
void pm4_wait_mem_gte(struct pm4_builder *b, uint64_t iova, uint32_t ref);
/* CP_REG_RMW: reg = ((reg & and_mask) rotl rotate) + add (add_not_or) or | value. */
void pm4_reg_rmw(struct pm4_builder *b, uint32_t reg, uint32_t and_mask, uint32_t value, uint32_t rotate,
		 bool add_not_or);
/* CP_MEM_TO_MEM: *dst = sum of *srcs[i] (negated where neg_mask bit i is set; bits 0-2 are
 * NEG_A/B/C), 64-bit values with is_64b. 1..16 sources. */
void pm4_mem_to_mem(struct pm4_builder *b, uint64_t dst, const uint64_t *srcs, uint32_t nr_srcs,
		    uint32_t neg_mask, bool is_64b);
/* CP_SET_MARKER render mode (enum a6xx_marker). */
void pm4_set_marker(struct pm4_builder *b, uint32_t mode);
/* One CP_SET_DRAW_STATE group: modes is CP_SET_DRAW_STATE_0_{BINNING,GMEM,SYSMEM} bits, flags
 * CP_SET_DRAW_STATE_0_{DIRTY,DISABLE,LOAD_IMMED}; count dwords (0..0xffff) at iova. */
void pm4_set_draw_state(struct pm4_builder *b, uint32_t group, uint32_t modes, uint32_t flags, uint64_t iova,
			uint32_t count);
void pm4_set_draw_state_disable_all(struct pm4_builder *b);
/* CP_DRAW_INDX_OFFSET with auto-generated indices. */
void pm4_draw_auto_index(struct pm4_builder *b, uint32_t prim, uint32_t num_vertices, uint32_t num_instances);
/* CP_DRAW_INDX_OFFSET from an index buffer of max_indices elements of index_size bytes (1, 2, 4). */
void pm4_draw_indexed(struct pm4_builder *b, uint32_t prim, uint32_t index_size, uint32_t num_indices,
		      uint32_t first_index, uint64_t index_iova, uint32_t max_indices);
/* CP_DRAW_INDIRECT: VkDrawIndirectCommand at iova. */
void pm4_draw_indirect(struct pm4_builder *b, uint32_t prim, uint64_t indirect_iova);
/* CP_DRAW_INDX_INDIRECT: VkDrawIndexedIndirectCommand at indirect_iova. */
void pm4_draw_indx_indirect(struct pm4_builder *b, uint32_t prim, uint32_t index_size, uint64_t index_iova,
			    uint32_t max_indices, uint64_t indirect_iova);
/* CP_DRAW_INDIRECT_MULTI, INDIRECT_OP_NORMAL or (count_iova != 0) INDIRECT_OP_INDIRECT_COUNT. */
void pm4_draw_indirect_multi(struct pm4_builder *b, uint32_t prim, uint32_t draw_count, uint64_t indirect_iova,
			     uint32_t stride, uint64_t count_iova);
/* CP_DRAW_INDIRECT_MULTI, INDIRECT_OP_INDEXED or (count_iova != 0) _INDIRECT_COUNT_INDEXED. */
void pm4_draw_indirect_multi_indexed(struct pm4_builder *b, uint32_t prim, uint32_t index_size,
				     uint64_t index_iova, uint32_t max_indices, uint32_t draw_count,
				     uint64_t indirect_iova, uint32_t stride, uint64_t count_iova);
/* CP_DRAW_AUTO: vertex count = (*count_iova - offset) / stride (a transform-feedback counter). */
void pm4_draw_auto(struct pm4_builder *b, uint32_t prim, uint32_t num_instances, uint64_t count_iova,
		   uint32_t offset, uint32_t stride);
/* CP_COND_REG_EXEC: the next `dwords` dwords run only in the given render modes
 * (CP_COND_REG_EXEC_0_{BINNING,GMEM,SYSMEM}) / only if reg0 == reg1 / only if predicate bit
 * pred_bit (set by CP_REG_TEST) is 1. */
void pm4_cond_exec_render_mode(struct pm4_builder *b, uint32_t modes, uint32_t dwords);
void pm4_cond_exec_reg_compare(struct pm4_builder *b, uint32_t reg0, uint32_t reg1, uint32_t dwords);
void pm4_cond_exec_predicate(struct pm4_builder *b, uint32_t pred_bit, uint32_t dwords);
/* CP_REG_TEST: predicate bit pred_bit = bit `bit` of reg. */
void pm4_reg_test(struct pm4_builder *b, uint32_t reg, uint32_t bit, uint32_t pred_bit);
/* CP_SKIP_IB2_ENABLE_GLOBAL / _LOCAL. */
void pm4_skip_ib2_enable(struct pm4_builder *b, bool global, uint32_t enable);

#endif
