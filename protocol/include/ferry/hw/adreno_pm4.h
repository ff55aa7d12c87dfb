/* Adreno a5xx+/a6xx PM4 packet encoding: header layout, opcodes, event ids and payload fields.
 * The one place these facts live; the CS builder, the CP model, the validator and the decoder
 * all include it. */
#ifndef FERRY_HW_ADRENO_PM4_H
#define FERRY_HW_ADRENO_PM4_H

#include <stdbool.h>
#include <stdint.h>

#define CP_TYPE4_PKT 0x40000000u
#define CP_TYPE7_PKT 0x70000000u

/* 1 iff popcount(v) is even: the field plus its parity bit then has an odd number of ones. */
static inline uint32_t pm4_odd_parity_bit(uint32_t v)
{
	v ^= v >> 16;
	v ^= v >> 8;
	v ^= v >> 4;
	return (~0x6996u >> (v & 0xf)) & 1u;
}

#define PM4_TYPE4_MAX_COUNT 0x7fu
#define PM4_TYPE7_MAX_COUNT 0x3fffu
#define PM4_TYPE4_REG_MASK  0x3ffffu

static inline uint32_t pm4_type4_hdr(uint32_t reg, uint32_t cnt)
{
	return CP_TYPE4_PKT | cnt | (pm4_odd_parity_bit(cnt) << 7) | ((reg & PM4_TYPE4_REG_MASK) << 8) |
	       (pm4_odd_parity_bit(reg) << 27);
}

static inline uint32_t pm4_type7_hdr(uint32_t op, uint32_t cnt)
{
	return CP_TYPE7_PKT | cnt | (pm4_odd_parity_bit(cnt) << 15) | ((op & 0x7fu) << 16) |
	       (pm4_odd_parity_bit(op) << 23);
}

/* Decoding. The *_ok predicates also check the parity bits. */
static inline bool pm4_is_type4(uint32_t h) { return (h & 0xf0000000u) == CP_TYPE4_PKT; }
static inline bool pm4_is_type7(uint32_t h) { return (h & 0xff000000u) == CP_TYPE7_PKT; }
static inline uint32_t pm4_type4_reg(uint32_t h) { return (h >> 8) & 0x7ffffu; }
static inline uint32_t pm4_type4_count(uint32_t h) { return h & 0x7fu; }
static inline uint32_t pm4_type7_opcode(uint32_t h) { return (h >> 16) & 0x7fu; }
static inline uint32_t pm4_type7_count(uint32_t h) { return h & 0x3fffu; }
static inline bool pm4_type4_parity_ok(uint32_t h)
{
	return ((h >> 7) & 1u) == pm4_odd_parity_bit(pm4_type4_count(h)) &&
	       ((h >> 27) & 1u) == pm4_odd_parity_bit(pm4_type4_reg(h));
}
static inline bool pm4_type7_parity_ok(uint32_t h)
{
	return ((h >> 15) & 1u) == pm4_odd_parity_bit(pm4_type7_count(h)) &&
	       ((h >> 23) & 1u) == pm4_odd_parity_bit(pm4_type7_opcode(h));
}

/* Type-7 opcodes (enum adreno_pm4_type3_packets, a6xx values). */
enum pm4_opcode {
	CP_NOP = 0x10,
	CP_RECORD_PFP_TIMESTAMP = 0x11,
	CP_WAIT_MEM_WRITES = 0x12,
	CP_WAIT_FOR_ME = 0x13,
	CP_WAIT_MEM_GTE = 0x14,
	CP_DRAW_PRED_ENABLE_GLOBAL = 0x19,
	CP_DRAW_PRED_ENABLE_LOCAL = 0x1a,
	CP_SKIP_IB2_ENABLE_GLOBAL = 0x1d,
	CP_REG_RMW = 0x21,
	CP_DRAW_INDX = 0x22,
	CP_SKIP_IB2_ENABLE_LOCAL = 0x23,
	CP_DRAW_AUTO = 0x24,
	CP_SET_STATE = 0x25,
	CP_WAIT_FOR_IDLE = 0x26,
	CP_DRAW_INDIRECT = 0x28,
	CP_DRAW_INDX_INDIRECT = 0x29,
	CP_DRAW_INDIRECT_MULTI = 0x2a,
	CP_BLIT = 0x2c,
	CP_SET_BIN_DATA5_OFFSET = 0x2e,
	CP_SET_BIN_DATA5 = 0x2f,
	CP_LOAD_STATE4 = 0x30,
	CP_RUN_OPENCL = 0x31,
	CP_LOAD_STATE6_GEOM = 0x32,
	CP_EXEC_CS = 0x33,
	CP_LOAD_STATE6_FRAG = 0x34,
	CP_SET_SUBDRAW_SIZE = 0x35,
	CP_LOAD_STATE6 = 0x36,
	CP_INDIRECT_BUFFER_PFD = 0x37,
	CP_DRAW_INDX_OFFSET = 0x38,
	CP_REG_TEST = 0x39,
	CP_INVALIDATE_STATE = 0x3b,
	CP_WAIT_REG_MEM = 0x3c,
	CP_MEM_WRITE = 0x3d,
	CP_REG_TO_MEM = 0x3e,
	CP_INDIRECT_BUFFER = 0x3f,
	CP_INTERRUPT = 0x40,
	CP_EXEC_CS_INDIRECT = 0x41,
	CP_MEM_TO_REG = 0x42,
	CP_SET_DRAW_STATE = 0x43,
	CP_COND_EXEC = 0x44,
	CP_COND_WRITE5 = 0x45,
	CP_EVENT_WRITE = 0x46,
	CP_COND_REG_EXEC = 0x47,
	CP_ME_INIT = 0x48,
	CP_REG_TO_SCRATCH = 0x4a,
	CP_SET_DRAW_INIT_FLAGS = 0x4b,
	CP_SCRATCH_WRITE = 0x4c,
	CP_SCRATCH_TO_REG = 0x4d,
	CP_DRAW_PRED_SET = 0x4e,
	CP_MEM_WRITE_CNTR = 0x4f,
	CP_START_BIN = 0x50,
	CP_END_BIN = 0x51,
	CP_WAIT_REG_EQ = 0x52,
	CP_SMMU_TABLE_UPDATE = 0x53,
	CP_CONTEXT_SWITCH = 0x54,
	CP_SET_AMBLE = 0x55,
	CP_SET_PSEUDO_REG = 0x56,
	CP_INDIRECT_BUFFER_CHAIN = 0x57,
	CP_CONTEXT_REG_BUNCH = 0x5c,
	CP_CONTEXT_UPDATE = 0x5e,
	CP_SET_PROTECTED_MODE = 0x5f,
	CP_WHERE_AM_I = 0x62,
	CP_SET_MODE = 0x63,
	CP_SET_VISIBILITY_OVERRIDE = 0x64,
	CP_SET_MARKER = 0x65,
	CP_SET_SECURE_MODE = 0x66,
	CP_CONTEXT_SWITCH_YIELD = 0x6b,
	CP_PREEMPT_DISABLE = 0x6c,
	CP_REG_WRITE = 0x6d,
	CP_BOOTSTRAP_UCODE = 0x6f,
	CP_WAIT_TWO_REGS = 0x70,
	CP_TEST_TWO_MEMS = 0x71,
	CP_REG_TO_MEM_OFFSET_REG = 0x72,
	CP_MEM_TO_MEM = 0x73,
	CP_REG_TO_MEM_OFFSET_MEM = 0x74,
	CP_MEMCPY = 0x75,
	CP_REG_WR_NO_CTXT = 0x78,
};

/* Name of a type-7 opcode, or NULL if ferry does not know it. Defined in protocol/hw/adreno_pm4.c. */
const char *pm4_opcode_name(uint32_t opcode);

/* CP_NOP payload markers Mesa uses. */
#define CP_NOP_MESG 0x4D455347u
#define CP_NOP_BEGN 0x4245474Eu
#define CP_NOP_END  0x454E4400u

/* CP_EVENT_WRITE (a5xx/a6xx) dw0. */
#define CP_EVENT_WRITE_0_EVENT(x)   ((x) & 0xffu)
#define CP_EVENT_WRITE_0_TIMESTAMP  (1u << 30)
#define CP_EVENT_WRITE_0_IRQ        (1u << 31)

enum vgt_event_type {
	CACHE_FLUSH_TS = 0x04,
	WT_DONE_TS = 0x08,
	ZPASS_DONE = 0x15,
	RB_DONE_TS = 0x16,
	PC_CCU_INVALIDATE_DEPTH = 0x18,
	PC_CCU_INVALIDATE_COLOR = 0x19,
	PC_CCU_RESOLVE_TS = 0x1a,
	PC_CCU_FLUSH_DEPTH_TS = 0x1c,
	PC_CCU_FLUSH_COLOR_TS = 0x1d,
	CCU_RESOLVE = 0x1e,
	LRZ_CLEAR = 0x25,
	LRZ_FLUSH = 0x26,
	CACHE_INVALIDATE = 0x31,
	DEBUG_LABEL = 0x3f,
};

/* CP_INDIRECT_BUFFER: IB_BASE lo, hi; dw2 IB_SIZE in dwords. */
#define CP_INDIRECT_BUFFER_2_SIZE_MASK 0xfffffu

/* CP_REG_TO_MEM dw0. */
#define CP_REG_TO_MEM_0_REG(x)    ((x) & 0x3ffffu)
#define CP_REG_TO_MEM_0_CNT(x)    (((x) & 0xfffu) << 18)
#define CP_REG_TO_MEM_0_64B       (1u << 30)
#define CP_REG_TO_MEM_0_ACCUMULATE (1u << 31)
#define CP_REG_TO_MEM_0_GET_CNT(dw) (((dw) >> 18) & 0xfffu)

/* CP_MEM_TO_REG dw0. */
#define CP_MEM_TO_REG_0_REG(x)    ((x) & 0x3ffffu)
#define CP_MEM_TO_REG_0_CNT(x)    (((x) & 0x7ffu) << 19)
#define CP_MEM_TO_REG_0_SHIFT_BY_2 (1u << 30)
#define CP_MEM_TO_REG_0_GET_CNT(dw) (((dw) >> 19) & 0x7ffu)

/* CP_WAIT_REG_MEM dw0: function, signed compare, poll source, write-memory. Then POLL_ADDR
 * lo/hi, REF, MASK, DELAY_LOOP_CYCLES. */
enum cp_wait_function {
	WRITE_ALWAYS = 0,
	WRITE_LT = 1,
	WRITE_LE = 2,
	WRITE_EQ = 3,
	WRITE_NE = 4,
	WRITE_GE = 5,
	WRITE_GT = 6,
};
#define CP_WAIT_REG_MEM_0_FUNCTION(x) ((x) & 0x7u)
#define CP_WAIT_REG_MEM_0_SIGNED      (1u << 3)
#define CP_WAIT_REG_MEM_0_POLL(x)     (((x) & 0x3u) << 4)
#define CP_WAIT_REG_MEM_0_GET_POLL(dw) (((dw) >> 4) & 0x3u)
#define CP_WAIT_REG_MEM_0_WRITE_MEMORY (1u << 8)
enum cp_poll_source { POLL_REGISTER = 0, POLL_MEMORY = 1, POLL_SCRATCH = 2, POLL_ON_CHIP = 3 };

/* CP_SET_DRAW_STATE group dw0. */
#define CP_SET_DRAW_STATE_0_COUNT(x)  ((x) & 0xffffu)
#define CP_SET_DRAW_STATE_0_DIRTY     (1u << 16)
#define CP_SET_DRAW_STATE_0_DISABLE   (1u << 17)
#define CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS (1u << 18)
#define CP_SET_DRAW_STATE_0_LOAD_IMMED (1u << 19)
#define CP_SET_DRAW_STATE_0_BINNING   (1u << 20)
#define CP_SET_DRAW_STATE_0_GMEM      (1u << 21)
#define CP_SET_DRAW_STATE_0_SYSMEM    (1u << 22)
#define CP_SET_DRAW_STATE_0_GROUP_ID(x) (((x) & 0x1fu) << 24)

#endif
