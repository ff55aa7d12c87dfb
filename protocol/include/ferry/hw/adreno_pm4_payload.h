/* Payload layouts of the a6xx type-7 packets ferry knows (Mesa's adreno_pm4.xml): where each
 * field sits, how long a payload is, which dwords are addresses and what the CP does there, which
 * are register numbers and which are counts. The validator, the CP model, the decoder and the
 * debug-state dumper read every position from here; dw0 bit fields stay in adreno_pm4.h.
 *
 * Names: <PACKET>_<FIELD>_DW is a payload dword index (of the low dword for a 64-bit address:
 * hw_addr64_at(p + X_DW)); <PACKET>_LEN is the payload length, exact or minimum as the table
 * says (pm4_payload()); other *_LEN name the longer forms. */
#ifndef FERRY_HW_ADRENO_PM4_PAYLOAD_H
#define FERRY_HW_ADRENO_PM4_PAYLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/hw/adreno_pm4.h"

/* CP_INDIRECT_BUFFER, _PFD and _CHAIN: IB_BASE lo/hi, IB_SIZE (dwords, CP_INDIRECT_BUFFER_2_SIZE_MASK). */
enum { CP_INDIRECT_BUFFER_BASE_DW = 0, CP_INDIRECT_BUFFER_SIZE_DW = 2, CP_INDIRECT_BUFFER_LEN = 3 };

/* CP_SET_DRAW_STATE: whole groups of { dw0 (CP_SET_DRAW_STATE_0_*), ADDR lo/hi }. */
enum { CP_SET_DRAW_STATE_GROUP_HDR_DW = 0, CP_SET_DRAW_STATE_GROUP_ADDR_DW = 1, CP_SET_DRAW_STATE_GROUP_LEN = 3 };

/* CP_SET_AMBLE: ADDR lo/hi, then DWORDS and TYPE (CP_SET_AMBLE_2_*). */
enum { CP_SET_AMBLE_ADDR_DW = 0, CP_SET_AMBLE_SIZE_DW = 2, CP_SET_AMBLE_LEN = 3 };

/* CP_COND_REG_EXEC: dw0 MODE and REG0 / PRED_BIT / mode bits; PRED_TEST, RENDER_MODE and
 * THREAD_MODE: dw1 DWORDS; REG_COMPARE: dw1 REG1, dw2 DWORDS; REG_COMPARE_IMM: dw1 the value,
 * dw2 DWORDS. DWORDS under CP_COND_REG_EXEC_DWORDS_MASK. */
enum {
	CP_COND_REG_EXEC_DWORDS_DW = 1,
	CP_COND_REG_EXEC_REG1_DW = 1,
	CP_COND_REG_EXEC_COMPARE_DWORDS_DW = 2,
	CP_COND_REG_EXEC_LEN = 2,
	CP_COND_REG_EXEC_COMPARE_LEN = 3,
};

/* CP_COND_EXEC: ADDR0 (BOOL_ADDR) lo/hi, ADDR1 (TIMESTAMP_ADDR) lo/hi, REF, DWORDS. */
enum {
	CP_COND_EXEC_BOOL_ADDR_DW = 0,
	CP_COND_EXEC_TIMESTAMP_ADDR_DW = 2,
	CP_COND_EXEC_REF_DW = 4,
	CP_COND_EXEC_DWORDS_DW = 5,
	CP_COND_EXEC_LEN = 6,
};

/* CP_SET_MARKER, CP_SET_MODE, CP_SKIP_IB2_ENABLE_GLOBAL / _LOCAL, CP_BLIT (a6xx),
 * CP_SET_PROTECTED_MODE, CP_REG_TO_SCRATCH, CP_SCRATCH_TO_REG: dw0 alone. */
enum { CP_DW0_LEN = 1 };

/* CP_SET_BIN_DATA5: dw0 VSC_SIZE / VSC_N, BIN_DATA_ADDR lo/hi, BIN_SIZE_ADDRESS lo/hi,
 * BIN_PRIM_STRM lo/hi (all three read by the CP). */
enum {
	CP_SET_BIN_DATA5_DATA_DW = 1,
	CP_SET_BIN_DATA5_SIZE_ADDR_DW = 3,
	CP_SET_BIN_DATA5_PRIM_STRM_DW = 5,
	CP_SET_BIN_DATA5_LEN = 7,
};

/* CP_SET_PSEUDO_REG: whole triples of { PSEUDO_REG, the 64-bit value lo/hi }. */
enum { CP_SET_PSEUDO_REG_ID_DW = 0, CP_SET_PSEUDO_REG_VALUE_DW = 1, CP_SET_PSEUDO_REG_GROUP_LEN = 3 };

/* CP_MEM_WRITE: ADDR lo/hi, then the data dwords (written from ADDR on). */
enum { CP_MEM_WRITE_ADDR_DW = 0, CP_MEM_WRITE_DATA_DW = 2, CP_MEM_WRITE_LEN = 2 };

/* CP_EVENT_WRITE: dw0 EVENT / TIMESTAMP / IRQ; then ADDR lo/hi; then the 32-bit value. */
enum {
	CP_EVENT_WRITE_ADDR_DW = 1,
	CP_EVENT_WRITE_VALUE_DW = 3,
	CP_EVENT_WRITE_LEN = 1,
	CP_EVENT_WRITE_ADDR_LEN = 3,
	CP_EVENT_WRITE_VALUE_LEN = 4,
};

/* CP_REG_TO_MEM: dw0 REG / CNT / 64B / ACCUMULATE, DEST lo/hi. _OFFSET_REG adds dw3 OFFSET0 (a
 * register, or a scratch index); _OFFSET_MEM adds the OFFSET address lo/hi (read). */
enum {
	CP_REG_TO_MEM_DEST_DW = 1,
	CP_REG_TO_MEM_LEN = 3,
	CP_REG_TO_MEM_OFFSET_REG_OFFSET0_DW = 3,
	CP_REG_TO_MEM_OFFSET_REG_LEN = 4,
	CP_REG_TO_MEM_OFFSET_MEM_OFFSET_DW = 3,
	CP_REG_TO_MEM_OFFSET_MEM_LEN = 5,
};

/* CP_MEM_TO_REG: dw0 REG / CNT / SHIFT_BY_2, SRC lo/hi. */
enum { CP_MEM_TO_REG_SRC_DW = 1, CP_MEM_TO_REG_LEN = 3 };

/* CP_REG_RMW: dw0 DST_REG / ROTATE / flags, SRC0 (a value or a register), SRC1 (likewise). */
enum { CP_REG_RMW_SRC0_DW = 1, CP_REG_RMW_SRC1_DW = 2, CP_REG_RMW_LEN = 3 };

/* CP_REG_WRITE: TRACKER, the register, the value. */
enum { CP_REG_WRITE_TRACKER_DW = 0, CP_REG_WRITE_REG_DW = 1, CP_REG_WRITE_VALUE_DW = 2, CP_REG_WRITE_LEN = 3 };

/* CP_WAIT_REG_MEM: dw0 FUNCTION / SIGNED / POLL / WRITE_MEMORY, POLL_ADDR lo/hi (a register in
 * the low dword unless POLL_MEMORY), REF, MASK, optional DELAY_LOOP_CYCLES. CP_COND_WRITE5
 * starts with the same five dwords, then WRITE_ADDR lo/hi (a register in the low dword without
 * WRITE_MEMORY) and WRITE_DATA. */
enum {
	CP_WAIT_REG_MEM_POLL_ADDR_DW = 1,
	CP_WAIT_REG_MEM_REF_DW = 3,
	CP_WAIT_REG_MEM_MASK_DW = 4,
	CP_WAIT_REG_MEM_DELAY_DW = 5,
	CP_WAIT_REG_MEM_LEN = 5,
	CP_WAIT_REG_MEM_DELAY_LEN = 6,
	CP_COND_WRITE5_WRITE_ADDR_DW = 5,
	CP_COND_WRITE5_WRITE_DATA_DW = 7,
	CP_COND_WRITE5_LEN = 8,
};

/* CP_WAIT_MEM_GTE: dw0 reserved, POLL_ADDR lo/hi, REF (the CP reads all four). */
enum { CP_WAIT_MEM_GTE_POLL_ADDR_DW = 1, CP_WAIT_MEM_GTE_REF_DW = 3, CP_WAIT_MEM_GTE_LEN = 4 };

/* CP_WAIT_TWO_REGS: REG0, REG1, REF. */
enum { CP_WAIT_TWO_REGS_REG0_DW = 0, CP_WAIT_TWO_REGS_REG1_DW = 1, CP_WAIT_TWO_REGS_LEN = 3 };

/* CP_MEMCPY: DWORDS, SRC lo/hi, DST lo/hi. */
enum { CP_MEMCPY_DWORDS_DW = 0, CP_MEMCPY_SRC_DW = 1, CP_MEMCPY_DST_DW = 3, CP_MEMCPY_LEN = 5 };

/* CP_MEM_TO_MEM: dw0 NEG_A/B/C / DOUBLE, DST lo/hi, then whole source addresses lo/hi. */
enum { CP_MEM_TO_MEM_DST_DW = 1, CP_MEM_TO_MEM_SRC_DW = 3, CP_MEM_TO_MEM_LEN = 3 };

/* The draw packets start with the draw initiator (CP_DRAW_INITIATOR_*). */
enum { CP_DRAW_INITIATOR_DW = 0 };

/* CP_DRAW_INDX_OFFSET: initiator, NUM_INSTANCES, NUM_INDICES, FIRST_INDX; with DI_SRC_SEL_DMA
 * also INDX_BASE lo/hi and MAX_INDICES (elements in the index buffer). */
enum {
	CP_DRAW_INDX_OFFSET_NUM_INSTANCES_DW = 1,
	CP_DRAW_INDX_OFFSET_NUM_INDICES_DW = 2,
	CP_DRAW_INDX_OFFSET_FIRST_INDX_DW = 3,
	CP_DRAW_INDX_OFFSET_INDX_BASE_DW = 4,
	CP_DRAW_INDX_OFFSET_MAX_INDICES_DW = 6,
	CP_DRAW_INDX_OFFSET_LEN = 3,
	CP_DRAW_INDX_OFFSET_DMA_LEN = 7,
};

/* The records CP_DRAW_INDIRECT* read: VkDrawIndirectCommand, VkDrawIndexedIndirectCommand. */
#define CP_DRAW_INDIRECT_RECORD_BYTES 16u
#define CP_DRAW_INDX_INDIRECT_RECORD_BYTES 20u

/* CP_DRAW_INDIRECT: initiator, INDIRECT lo/hi. */
enum { CP_DRAW_INDIRECT_INDIRECT_DW = 1, CP_DRAW_INDIRECT_LEN = 3 };

/* CP_DRAW_INDX_INDIRECT: initiator, INDX_BASE lo/hi, MAX_INDICES, INDIRECT lo/hi. */
enum {
	CP_DRAW_INDX_INDIRECT_INDX_BASE_DW = 1,
	CP_DRAW_INDX_INDIRECT_MAX_INDICES_DW = 3,
	CP_DRAW_INDX_INDIRECT_INDIRECT_DW = 4,
	CP_DRAW_INDX_INDIRECT_LEN = 6,
};

/* CP_DRAW_AUTO: initiator, NUM_INSTANCES, NUM_VERTICES_BASE lo/hi (a transform-feedback byte
 * count, read), NUM_VERTICES_OFFSET, STRIDE. */
enum {
	CP_DRAW_AUTO_NUM_INSTANCES_DW = 1,
	CP_DRAW_AUTO_NUM_VERTICES_BASE_DW = 2,
	CP_DRAW_AUTO_NUM_VERTICES_OFFSET_DW = 4,
	CP_DRAW_AUTO_STRIDE_DW = 5,
	CP_DRAW_AUTO_LEN = 6,
};

/* CP_DRAW_INDIRECT_MULTI: initiator, OPCODE | DST_OFF (CP_DRAW_INDIRECT_MULTI_1_*), DRAW_COUNT,
 * then a layout per opcode (cp_draw_indirect_multi_layout). */
enum {
	CP_DRAW_INDIRECT_MULTI_OPCODE_DW = 1,
	CP_DRAW_INDIRECT_MULTI_DRAW_COUNT_DW = 2,
	CP_DRAW_INDIRECT_MULTI_LEN = 3,
	CP_DRAW_INDIRECT_MULTI_MAX_LEN = 11, /* the longest layout below */
};

/* Where the fields of CP_DRAW_INDIRECT_MULTI sit for one opcode (0: the opcode has no such field):
 *   NORMAL:                 INDIRECT(3-4) STRIDE(5)
 *   INDEXED:                INDEX(3-4) MAX_INDICES(5) INDIRECT(6-7) STRIDE(8)
 *   INDIRECT_COUNT:         INDIRECT(3-4) INDIRECT_COUNT(5-6) STRIDE(7)
 *   INDIRECT_COUNT_INDEXED: INDEX(3-4) MAX_INDICES(5) INDIRECT(6-7) INDIRECT_COUNT(8-9) STRIDE(10)
 * STRIDE is always the last dword. */
struct cp_draw_indirect_multi_layout {
	uint8_t len; /* payload dwords */
	uint8_t index_dw, max_indices_dw, indirect_dw, indirect_count_dw, stride_dw;
};

/* false for an opcode the CP does not know. */
static inline bool cp_draw_indirect_multi_layout(uint32_t opcode, struct cp_draw_indirect_multi_layout *l)
{
	switch (opcode) {
	case INDIRECT_OP_NORMAL:
		*l = (struct cp_draw_indirect_multi_layout){ 6, 0, 0, 3, 0, 5 };
		return true;
	case INDIRECT_OP_INDEXED:
		*l = (struct cp_draw_indirect_multi_layout){ 9, 3, 5, 6, 0, 8 };
		return true;
	case INDIRECT_OP_INDIRECT_COUNT:
		*l = (struct cp_draw_indirect_multi_layout){ 8, 0, 0, 3, 5, 7 };
		return true;
	case INDIRECT_OP_INDIRECT_COUNT_INDEXED:
		*l = (struct cp_draw_indirect_multi_layout){ 11, 3, 5, 6, 8, 10 };
		return true;
	default:
		return false;
	}
}

/* CP_EXEC_CS_INDIRECT: dw0 reserved, ADDR lo/hi (the three group counts), the local size. */
enum { CP_EXEC_CS_INDIRECT_ADDR_DW = 1, CP_EXEC_CS_INDIRECT_LOCAL_SIZE_DW = 3, CP_EXEC_CS_INDIRECT_LEN = 4 };
#define CP_EXEC_CS_INDIRECT_ADDR_BYTES 12u

/* CP_DRAW_PRED_SET: dw0 SRC / TEST; with PRED_SRC_MEM, MEM_ADDR lo/hi (a 64-bit value). */
enum { CP_DRAW_PRED_SET_MEM_ADDR_DW = 1, CP_DRAW_PRED_SET_MEM_LEN = 3 };

/* CP_REG_TEST: dw0 REG / BIT / PRED_BIT / PRED_UPDATE; with PRED_UPDATE, PRED_MASK and PRED_VAL. */
enum { CP_REG_TEST_PRED_MASK_DW = 1, CP_REG_TEST_PRED_VAL_DW = 2, CP_REG_TEST_PRED_UPDATE_LEN = 3 };

/* CP_SMMU_TABLE_UPDATE: TTBR0 lo, TTBR0 hi and ASID, CONTEXTIDR, CONTEXTBANK. */
enum {
	CP_SMMU_TABLE_UPDATE_TTBR0_DW = 0, /* lo, then hi under CP_SMMU_TABLE_UPDATE_1_TTBR0_HI */
	CP_SMMU_TABLE_UPDATE_CONTEXTIDR_DW = 2,
	CP_SMMU_TABLE_UPDATE_CONTEXTBANK_DW = 3,
	CP_SMMU_TABLE_UPDATE_LEN = 4,
};

/* ---- the table: the same facts as data, for code that walks packets generically ---------- */

enum pm4_len_rule {
	PM4_LEN_UNTABLED, /* an empty slot: pm4_payload() answers NULL */
	PM4_LEN_FIXED,  /* exactly len dwords */
	PM4_LEN_MIN,    /* at least len; longer forms as the packet's comment above says */
	PM4_LEN_GROUPS, /* whole groups of len dwords */
};

enum pm4_field_kind {
	PM4_FIELD_ADDR,  /* a 64-bit GPU address, lo at dw, hi at dw + 1 */
	PM4_FIELD_REG,   /* a register number (under PM4_PAYLOAD_REG_MASK) */
	PM4_FIELD_COUNT, /* a count: dwords, registers, draws, elements */
	PM4_FIELD_VALUE, /* a value compared or written */
};

/* What the CP does at an address. */
enum pm4_addr_use {
	PM4_ADDR_NONE,
	PM4_ADDR_IB,         /* a command stream it runs */
	PM4_ADDR_DRAW_STATE, /* a draw-state group it runs at draw time */
	PM4_ADDR_READ,
	PM4_ADDR_WRITE,
	PM4_ADDR_WAIT,       /* read until a condition holds: the submit stalls there */
};

struct pm4_payload_field {
	uint8_t dw;       /* payload index (in a group for PM4_LEN_GROUPS) */
	uint8_t kind;     /* enum pm4_field_kind */
	uint8_t use;      /* enum pm4_addr_use for addresses */
	bool optional;    /* present or meaningful only in some forms (dw0 flags, a longer payload) */
	uint16_t bytes;   /* addresses: bytes accessed when fixed, 0 when a count or flag decides */
	const char *name; /* adreno_pm4.xml's field name */
};

struct pm4_payload {
	uint16_t len;     /* see rule */
	uint8_t rule;     /* enum pm4_len_rule */
	uint8_t nr_fields;
	const struct pm4_payload_field *fields;
};

/* The layout of type-7 opcode op, or NULL for one without a tabled payload. Defined in
 * protocol/hw/adreno_pm4_payload.c. */
const struct pm4_payload *pm4_payload(uint32_t opcode);

/* The first field of l used as use (PM4_ADDR_*), or NULL. */
const struct pm4_payload_field *pm4_payload_find(const struct pm4_payload *l, enum pm4_addr_use use);

#endif
