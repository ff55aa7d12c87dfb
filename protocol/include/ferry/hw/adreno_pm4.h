/* Adreno a5xx+/a6xx PM4 packet encoding: header layout, opcodes, event ids and the bit fields
 * inside payload dwords. The one place these facts live; the CS builder, the CP model, the
 * validator and the decoder all include it. Where each field sits in a payload (and how long a
 * payload is): adreno_pm4_payload.h. */
#ifndef FERRY_HW_ADRENO_PM4_H
#define FERRY_HW_ADRENO_PM4_H

#include <stdbool.h>
#include <stdint.h>

#define CP_TYPE4_PKT 0x40000000u
#define CP_TYPE7_PKT 0x70000000u

/* 1 iff popcount(v) is even: the field plus its parity bit then has an odd number of ones. */
static inline uint32_t pm4_odd_parity_bit(uint32_t v)
{
	return (uint32_t)!__builtin_parity(v); /* every header is checked: one instruction, not a fold */
}

#define PM4_TYPE4_MAX_COUNT 0x7fu
#define PM4_TYPE7_MAX_COUNT 0x3fffu
#define PM4_TYPE7_OPCODE_MASK 0x7fu /* opcodes 0..0x7f: a table indexed by opcode has 0x80 slots */
/* Type-4 register: Mesa's pkt4() emits 18 bits; the CP decodes bits 8..26 (19 bits). */
#define PM4_TYPE4_REG_MASK  0x3ffffu
#define PM4_TYPE4_REG_DECODE_MASK 0x7ffffu
/* The register fields inside type-7 payloads (REG, DST_REG, REG0, POLL_ADDR as a register...). */
#define PM4_PAYLOAD_REG_MASK 0x3ffffu

static inline uint32_t pm4_type4_hdr(uint32_t reg, uint32_t cnt)
{
	return CP_TYPE4_PKT | cnt | (pm4_odd_parity_bit(cnt) << 7) | ((reg & PM4_TYPE4_REG_MASK) << 8) |
	       (pm4_odd_parity_bit(reg) << 27);
}

static inline uint32_t pm4_type7_hdr(uint32_t op, uint32_t cnt)
{
	return CP_TYPE7_PKT | cnt | (pm4_odd_parity_bit(cnt) << 15) | ((op & PM4_TYPE7_OPCODE_MASK) << 16) |
	       (pm4_odd_parity_bit(op) << 23);
}

/* Decoding. The *_ok predicates also check the parity bits. */
static inline bool pm4_is_type4(uint32_t h) { return (h & 0xf0000000u) == CP_TYPE4_PKT; }
static inline bool pm4_is_type7(uint32_t h) { return (h & 0xff000000u) == CP_TYPE7_PKT; }
static inline uint32_t pm4_type4_reg(uint32_t h) { return (h >> 8) & PM4_TYPE4_REG_DECODE_MASK; }
static inline uint32_t pm4_type4_count(uint32_t h) { return h & 0x7fu; }
static inline uint32_t pm4_type7_opcode(uint32_t h) { return (h >> 16) & PM4_TYPE7_OPCODE_MASK; }
static inline uint32_t pm4_type7_count(uint32_t h) { return h & 0x3fffu; }
/* A field and its odd-parity bit together hold an odd number of ones: one parity per field
 * with its bit, on the header in place (validators check every header). Type 4: count[6:0] with
 * bit 7, register[26:8] with bit 27. */
static inline bool pm4_type4_parity_ok(uint32_t h)
{
	return __builtin_parity(h & 0x000000ffu) && __builtin_parity(h & 0x0fffff00u);
}
/* Type 7: count[13:0] with bit 15, opcode[22:16] with bit 23. */
static inline bool pm4_type7_parity_ok(uint32_t h)
{
	return __builtin_parity(h & 0x0000bfffu) && __builtin_parity(h & 0x00ff0000u);
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

/* a7xx's CP_FIXED_STRIDE_DRAW_TABLE reuses the last opcode; not in enum pm4_opcode (a6xx), so it has
 * no name here, but the validator must still know the number. */
#define CP_FIXED_STRIDE_DRAW_TABLE 0x7fu

/* Name of a type-7 opcode, or NULL if ferry does not know it. Defined in protocol/hw/adreno_pm4.c. */
const char *pm4_opcode_name(uint32_t opcode);

/* Packets the msm kernel emits only from its own ringbuffer (a6xx_gpu.c: a6xx_cp_init,
 * a6xx_set_pagetable, update_shadow_rptr) or that switch privilege, security or firmware. */
static inline bool pm4_opcode_kernel_only(uint32_t opcode)
{
	switch (opcode) {
	case CP_ME_INIT:
	case CP_SMMU_TABLE_UPDATE:
	case CP_SET_PROTECTED_MODE:
	case CP_SET_SECURE_MODE:
	case CP_BOOTSTRAP_UCODE:
	case CP_CONTEXT_SWITCH:
	case CP_WHERE_AM_I:
		return true;
	default:
		return false;
	}
}

/* CP_NOP payload markers Mesa uses. */
#define CP_NOP_MESG 0x4D455347u
#define CP_NOP_BEGN 0x4245474Eu
#define CP_NOP_END  0x454E4400u

/* CP_EVENT_WRITE (a5xx/a6xx) dw0. */
#define CP_EVENT_WRITE_0_EVENT(x)   ((x) & 0xffu)
#define CP_EVENT_WRITE_0_TIMESTAMP  (1u << 30)
#define CP_EVENT_WRITE_0_IRQ        (1u << 31)

/* CP_EVENT_WRITE events, a6xx names of Mesa's vgt_event_type. */
enum vgt_event_type {
	CACHE_FLUSH_TS = 0x04,
	CONTEXT_DONE = 0x05,
	WT_DONE_TS = 0x08,
	WRITE_PRIMITIVE_COUNTS = 0x09,
	START_PRIMITIVE_CTRS = 0x0b,
	STOP_PRIMITIVE_CTRS = 0x0c,
	START_FRAGMENT_CTRS = 0x0d,
	STOP_FRAGMENT_CTRS = 0x0e,
	START_COMPUTE_CTRS = 0x0f,
	STOP_COMPUTE_CTRS = 0x10,
	FLUSH_SO_0 = 0x11,
	FLUSH_SO_1 = 0x12,
	FLUSH_SO_2 = 0x13,
	FLUSH_SO_3 = 0x14,
	ZPASS_DONE = 0x15,
	RB_DONE_TS = 0x16,
	PC_CCU_INVALIDATE_DEPTH = 0x18,
	PC_CCU_INVALIDATE_COLOR = 0x19,
	PC_CCU_RESOLVE_TS = 0x1a,
	PC_CCU_FLUSH_DEPTH_TS = 0x1c,
	PC_CCU_FLUSH_COLOR_TS = 0x1d,
	BLIT = 0x1e, /* resolve GMEM to sysmem ("CCU_RESOLVE" is the a7xx name) */
	LRZ_CLEAR = 0x25,
	LRZ_FLUSH = 0x26,
	BLIT_OP_FILL_2D = 0x27,
	BLIT_OP_COPY_2D = 0x28,
	BLIT_OP_SCALE_2D = 0x2a,
	CONTEXT_DONE_2D = 0x2b,
	UNK_2C = 0x2c,
	UNK_2D = 0x2d,
	CACHE_INVALIDATE = 0x31,
	LABEL = 0x3f,
};

/* CP_INDIRECT_BUFFER IB_SIZE, in dwords. */
#define CP_INDIRECT_BUFFER_2_SIZE_MASK 0xfffffu

/* CP_REG_TO_MEM dw0. Copies max(CNT, 1) registers. */
#define CP_REG_TO_MEM_0_REG(x)    ((x) & PM4_PAYLOAD_REG_MASK)
#define CP_REG_TO_MEM_0_CNT_MASK  0xfffu
#define CP_REG_TO_MEM_0_CNT(x)    (((x) & CP_REG_TO_MEM_0_CNT_MASK) << 18)
#define CP_REG_TO_MEM_0_64B       (1u << 30)
#define CP_REG_TO_MEM_0_ACCUMULATE (1u << 31)
#define CP_REG_TO_MEM_0_GET_CNT(dw) (((dw) >> 18) & CP_REG_TO_MEM_0_CNT_MASK)
/* CP_REG_TO_MEM_OFFSET_REG OFFSET0 (a register, or with this bit a scratch index). */
#define CP_REG_TO_MEM_OFFSET_REG_3_SCRATCH (1u << 19)

/* CP_MEM_TO_REG dw0. Copies max(CNT, 1) dwords. */
#define CP_MEM_TO_REG_0_REG(x)    ((x) & PM4_PAYLOAD_REG_MASK)
#define CP_MEM_TO_REG_0_CNT_MASK  0x7ffu
#define CP_MEM_TO_REG_0_CNT(x)    (((x) & CP_MEM_TO_REG_0_CNT_MASK) << 19)
#define CP_MEM_TO_REG_0_SHIFT_BY_2 (1u << 30)
#define CP_MEM_TO_REG_0_GET_CNT(dw) (((dw) >> 19) & CP_MEM_TO_REG_0_CNT_MASK)

/* CP_REG_TO_SCRATCH / CP_SCRATCH_TO_REG dw0: REG, first SCRATCH register, and CNT + 1 registers. */
#define CP_REG_TO_SCRATCH_0_REG(x)      ((x) & PM4_PAYLOAD_REG_MASK)
#define CP_REG_TO_SCRATCH_0_SCRATCH(x)  (((x) & 0x7u) << 20)
#define CP_REG_TO_SCRATCH_0_CNT(x)      (((x) & 0x7u) << 24)
#define CP_REG_TO_SCRATCH_0_GET_CNT(dw) (((dw) >> 24) & 0x7u)
#define CP_SCRATCH_TO_REG_0_REG(x)      ((x) & PM4_PAYLOAD_REG_MASK)
#define CP_SCRATCH_TO_REG_0_SCRATCH(x)  (((x) & 0x7u) << 20)
#define CP_SCRATCH_TO_REG_0_CNT(x)      (((x) & 0x7u) << 24)
#define CP_SCRATCH_TO_REG_0_GET_CNT(dw) (((dw) >> 24) & 0x7u)

/* CP_SET_MODE: dw0 bit 0 set starts the hardware binning pass, clear ends it (Turnip's
 * tu6_emit_binning_pass and freedreno's emit_binning_pass emit 1, then 0). */
#define CP_SET_MODE_0_BINNING 1u

/* CP_WAIT_REG_MEM dw0: function, signed compare, poll source, write-memory. */
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
/* CP_COND_WRITE5's dw0 is CP_WAIT_REG_MEM's, so its macros apply. */

/* Payload layouts below follow Mesa's src/freedreno/registers/adreno/adreno_pm4.xml (a6xx
 * variants). */

/* CP_EVENT_WRITE (a6xx): with TIMESTAMP the CP writes its 64-bit GPU timestamp to ADDR "instead of value from packet"; without it the
 * *_TS events write the 32-bit value. */

/* The draw initiator of the a4xx+ draw packets (vgt_draw_initiator_a4xx, dw0). */
#define CP_DRAW_INITIATOR_PRIM_TYPE(x)      ((x) & 0x3fu)
#define CP_DRAW_INITIATOR_GET_PRIM_TYPE(dw) ((dw) & 0x3fu)
#define CP_DRAW_INITIATOR_SOURCE_SELECT(x)  (((x) & 0x3u) << 6)
#define CP_DRAW_INITIATOR_GET_SOURCE_SELECT(dw) (((dw) >> 6) & 0x3u)
#define CP_DRAW_INITIATOR_VIS_CULL(x)       (((x) & 0x3u) << 8)
#define CP_DRAW_INITIATOR_GET_VIS_CULL(dw)  (((dw) >> 8) & 0x3u)
#define CP_DRAW_INITIATOR_INDEX_SIZE(x)     (((x) & 0x3u) << 10)
#define CP_DRAW_INITIATOR_GET_INDEX_SIZE(dw) (((dw) >> 10) & 0x3u)
#define CP_DRAW_INITIATOR_PATCH_TYPE(x)     (((x) & 0x3u) << 12)
#define CP_DRAW_INITIATOR_GET_PATCH_TYPE(dw) (((dw) >> 12) & 0x3u)
#define CP_DRAW_INITIATOR_GS_ENABLE         (1u << 16)
#define CP_DRAW_INITIATOR_TESS_ENABLE       (1u << 17)
enum pc_di_src_sel { DI_SRC_SEL_DMA = 0, DI_SRC_SEL_IMMEDIATE = 1, DI_SRC_SEL_AUTO_INDEX = 2,
		     DI_SRC_SEL_AUTO_XFB = 3 };
/* a4xx+ encoding (a2xx/a3xx's pc_di_index_size orders them 16, 32, 8: not for a6xx). */
enum a4xx_index_size { INDEX4_SIZE_8_BIT = 0, INDEX4_SIZE_16_BIT = 1, INDEX4_SIZE_32_BIT = 2 };
enum pc_di_primtype { DI_PT_POINTLIST = 9, DI_PT_LINELIST = 2, DI_PT_TRILIST = 4 };
enum pc_di_vis_cull_mode { IGNORE_VISIBILITY = 0, USE_VISIBILITY = 1 };

/* CP_DRAW_INDIRECT_MULTI dw1: OPCODE (the payload layout, cp_draw_indirect_multi_layout()) and
 * DST_OFF. */
enum a6xx_draw_indirect_opcode {
	INDIRECT_OP_NORMAL = 0x2,
	INDIRECT_OP_INDEXED = 0x4,
	INDIRECT_OP_INDIRECT_COUNT = 0x6,
	INDIRECT_OP_INDIRECT_COUNT_INDEXED = 0x7,
};
#define CP_DRAW_INDIRECT_MULTI_1_OPCODE(x)     ((x) & 0xfu)
#define CP_DRAW_INDIRECT_MULTI_1_GET_OPCODE(dw) ((dw) & 0xfu)
#define CP_DRAW_INDIRECT_MULTI_1_DST_OFF(x)    (((x) & 0x3fffu) << 8)

/* CP_DRAW_PRED_SET dw0: SRC, TEST; with PRED_SRC_MEM the 64-bit value at MEM_ADDR is tested
 * against 0. */
#define CP_DRAW_PRED_SET_0_SRC(x)      (((x) & 0xfu) << 4)
#define CP_DRAW_PRED_SET_0_GET_SRC(dw) (((dw) >> 4) & 0xfu)
#define CP_DRAW_PRED_SET_0_TEST(x)     (((x) & 0x1u) << 8)
enum cp_draw_pred_src { PRED_SRC_MEM = 5 };
enum cp_draw_pred_test { NE_0_PASS = 0, EQ_0_PASS = 1 };

/* CP_WAIT_MEM_GTE waits for *POLL_ADDR >= REF, signed. */

/* CP_REG_RMW: dst = ((dst & src0) rotl ROTATE) + src1 (SRC1_ADD) or | src1; sources are
 * registers when *_IS_REG. */
#define CP_REG_RMW_0_DST_REG(x)     ((x) & PM4_PAYLOAD_REG_MASK)
#define CP_REG_RMW_0_ROTATE(x)      (((x) & 0x1fu) << 24)
#define CP_REG_RMW_0_GET_ROTATE(dw) (((dw) >> 24) & 0x1fu)
#define CP_REG_RMW_0_SRC1_ADD       (1u << 29)
#define CP_REG_RMW_0_SRC1_IS_REG    (1u << 30)
#define CP_REG_RMW_0_SRC0_IS_REG    (1u << 31)

/* CP_MEM_TO_MEM: the values at the source addresses (SRC_A, SRC_B, SRC_C, ...) are summed into DST, each negated first if its NEG bit is set; DOUBLE makes every value 64-bit. */
#define CP_MEM_TO_MEM_0_NEG_A  (1u << 0)
#define CP_MEM_TO_MEM_0_NEG_B  (1u << 1)
#define CP_MEM_TO_MEM_0_NEG_C  (1u << 2)
#define CP_MEM_TO_MEM_0_DOUBLE (1u << 29)
#define CP_MEM_TO_MEM_0_WAIT_FOR_MEM_WRITES (1u << 30)

/* CP_BLIT dw0 OP (cp_blit_cmd). dw1-4 (SRC_X1/Y1, SRC_X2/Y2, DST_X1/Y1, DST_X2/Y2: 14-bit X in
 * bits 0-13, Y in 16-29) are the a5xx rectangles; a6xx BLIT_OP_SCALE ("used for mipmap
 * generation") takes its state from the GRAS_2D / RB_2D / SP_PS_2D registers, and Turnip and
 * freedreno emit dw0 alone. */
enum cp_blit_cmd { BLIT_OP_FILL = 0, BLIT_OP_COPY = 1, BLIT_OP_SCALE = 3 };
#define CP_BLIT_0_OP(x)      ((x) & 0xfu)
#define CP_BLIT_0_GET_OP(dw) ((dw) & 0xfu)

/* CP_SET_MARKER dw0 (a6xx): MARKER_MODE (bit 8) selects SET_RENDER_MODE (0: MODE in bits 0-3,
 * USES_GMEM bit 4) or SET_IFPC_MODE (1). */
#define CP_SET_MARKER_0_MODE_MASK    0xfu
#define CP_SET_MARKER_0_MODE(x)      ((x) & CP_SET_MARKER_0_MODE_MASK)
#define CP_SET_MARKER_0_GET_MODE(dw) ((dw) & CP_SET_MARKER_0_MODE_MASK)
#define CP_SET_MARKER_0_USES_GMEM    (1u << 4)
#define CP_SET_MARKER_0_IFPC_MODE    (1u << 8) /* MARKER_MODE = SET_IFPC_MODE */
/* With CP_SET_MARKER_0_IFPC_MODE, bit 0 is the IFPC mode. */
enum a6xx_ifpc_mode { IFPC_ENABLE = 0, IFPC_DISABLE = 1 };
#define CP_SET_MARKER_0_GET_IFPC(dw) ((dw) & 0x1u)
enum a6xx_marker {
	RM6_DIRECT_RENDER = 1,    /* sysmem ("RM6_BYPASS" in older Mesa) */
	RM6_BIN_VISIBILITY = 2,   /* the binning pass ("RM6_BINNING") */
	RM6_BIN_DIRECT = 3,
	RM6_BIN_RENDER_START = 4, /* ("RM6_GMEM") */
	RM6_BIN_END_OF_DRAWS = 5,
	RM6_BIN_RESOLVE = 6,
	RM6_BIN_RENDER_END = 7,
	RM6_COMPUTE = 8,
	RM6_BLIT2DSCALE = 12,
	RM6_IB1LIST_START = 13,   /* kernel-only markers around the IB1 list */
	RM6_IB1LIST_END = 14,
};

/* CP_COND_REG_EXEC dw0: MODE in bits 28-31. PRED_TEST: PRED_BIT 18-22. REG_COMPARE: REG0 0-17.
 * RENDER_MODE: BINNING/GMEM/SYSMEM bits 25-27 (the same mode bits as CP_SET_DRAW_STATE). The
 * next DWORDS dwords are skipped when the test fails. */
enum cp_cond_compare_mode {
	PRED_TEST = 1,
	REG_COMPARE = 2,
	RENDER_MODE = 3,
	REG_COMPARE_IMM = 4, /* a7xx: REG0 == an immediate */
	THREAD_MODE = 5,     /* a7xx: BV/BR/LPAC bits 25-27 */
};
#define CP_COND_REG_EXEC_0_MODE(x)      (((uint32_t)(x) & 0xfu) << 28)
#define CP_COND_REG_EXEC_0_GET_MODE(dw) (((dw) >> 28) & 0xfu)
#define CP_COND_REG_EXEC_0_REG0(x)      ((x) & PM4_PAYLOAD_REG_MASK)
#define CP_COND_REG_EXEC_0_PRED_BIT(x)  (((x) & 0x1fu) << 18)
#define CP_COND_REG_EXEC_0_GET_PRED_BIT(dw) (((dw) >> 18) & 0x1fu)
#define CP_COND_REG_EXEC_0_BINNING      (1u << 25)
#define CP_COND_REG_EXEC_0_GMEM         (1u << 26)
#define CP_COND_REG_EXEC_0_SYSMEM       (1u << 27)
/* BINNING | GMEM | SYSMEM shifted down: the CP_DRAW_STATE_MODE_x bits that pass the test. */
#define CP_COND_REG_EXEC_0_GET_RENDER_MODES(dw) (((dw) >> 25) & 0x7u)
#define CP_COND_REG_EXEC_DWORDS_MASK    0xffffffu

/* CP_REG_TEST dw0: REG 0-17, BIT 20-24, PRED_BIT 26-30 (gen3+), PRED_UPDATE bit 31 (then
 * pred = (pred & ~PRED_MASK) | (PRED_VAL & PRED_MASK)). Sets the predicate
 * CP_COND_REG_EXEC PRED_TEST reads. */
#define CP_REG_TEST_0_REG(x)       ((x) & PM4_PAYLOAD_REG_MASK)
#define CP_REG_TEST_0_SOURCE_SCRATCH_MEM (1u << 18) /* a7xx: REG is a scratch-memory offset */
#define CP_REG_TEST_0_BIT(x)       (((x) & 0x1fu) << 20)
#define CP_REG_TEST_0_GET_BIT(dw)  (((dw) >> 20) & 0x1fu)
#define CP_REG_TEST_0_PRED_BIT(x)  (((x) & 0x1fu) << 26)
#define CP_REG_TEST_0_GET_PRED_BIT(dw) (((dw) >> 26) & 0x1fu)
#define CP_REG_TEST_0_PRED_UPDATE  (1u << 31)

/* CP_COND_EXEC: the next DWORDS dwords run "if
 * the dword at ADDR0 is not equal to 0 and the dword at ADDR1 is less than REF (signed
 * comparison)". */

/* CP_SET_BIN_DATA5 (a6xx): dw0 VSC_SIZE bits 16..21, VSC_N bits 22..26; BIN_DATA_ADDR is the
 * bin's pipe's draw stream, BIN_SIZE_ADDRESS its size, BIN_PRIM_STRM the pipe's primitive
 * stream. CP_SET_BIN_DATA5_OFFSET: dw0 the same, then three offsets from VSC_DRAW_STRM_ADDRESS,
 * VSC_DRAW_STRM_SIZE_ADDRESS, VSC_PRIM_STRM_ADDRESS. */

/* CP_SKIP_IB2_ENABLE_GLOBAL / _LOCAL: "If both GLOBAL and LOCAL are 1 and nothing
 * is left in the visibility stream, then CP_INDIRECT_BUFFER will be skipped." */

/* CP_INDIRECT_BUFFER_CHAIN: the arguments of CP_INDIRECT_BUFFER; jumps to another buffer at the
 * same level (must end its IB). */

/* CP_SET_AMBLE DWORDS and TYPE. KMD_AMBLE_TYPE "can only be set by the RB (i.e.
 * the kernel) and executes with protected mode off". */
#define CP_SET_AMBLE_2_DWORDS_MASK  0xfffffu
#define CP_SET_AMBLE_2_DWORDS(x)    ((x) & CP_SET_AMBLE_2_DWORDS_MASK)
#define CP_SET_AMBLE_2_TYPE(x)      (((x) & 0x3u) << 20)
#define CP_SET_AMBLE_2_GET_TYPE(dw) (((dw) >> 20) & 0x3u)
enum amble_type {
	PREAMBLE_AMBLE_TYPE = 0,
	BIN_PREAMBLE_AMBLE_TYPE = 1,
	POSTAMBLE_AMBLE_TYPE = 2,
	KMD_AMBLE_TYPE = 3,
};

/* CP_SET_PSEUDO_REG ids: up to COUNTER the kernel's preemption records. */
#define CP_SET_PSEUDO_REG_0_PSEUDO_REG(x) ((x) & 0x7ffu)
enum pseudo_reg {
	SMMU_INFO = 0,
	NON_SECURE_SAVE_ADDR = 1,
	SECURE_SAVE_ADDR = 2,
	NON_PRIV_SAVE_ADDR = 3,
	COUNTER = 4,
};

/* CP_SMMU_TABLE_UPDATE dw1: TTBR0 hi (bits 0-15) and ASID. */
#define CP_SMMU_TABLE_UPDATE_1_TTBR0_HI(x)     ((x) & 0xffffu)
#define CP_SMMU_TABLE_UPDATE_1_GET_ASID(dw)    (((dw) >> 16) & 0xffffu)

/* CP_SET_DRAW_STATE group dw0. */
#define CP_SET_DRAW_STATE_0_COUNT_MASK 0xffffu
#define CP_SET_DRAW_STATE_0_COUNT(x)  ((x) & CP_SET_DRAW_STATE_0_COUNT_MASK)
#define CP_SET_DRAW_STATE_0_DIRTY     (1u << 16)
#define CP_SET_DRAW_STATE_0_DISABLE   (1u << 17)
#define CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS (1u << 18)
#define CP_SET_DRAW_STATE_0_LOAD_IMMED (1u << 19)
#define CP_SET_DRAW_STATE_0_BINNING   (1u << 20)
#define CP_SET_DRAW_STATE_0_GMEM      (1u << 21)
#define CP_SET_DRAW_STATE_0_SYSMEM    (1u << 22)
#define CP_SET_DRAW_STATE_0_GROUP_ID(x) (((x) & 0x1fu) << 24) /* bits 24-28 until a750 */
#define CP_SET_DRAW_STATE_0_GET_GROUP_ID(dw) (((dw) >> 24) & 0x1fu)
#define CP_SET_DRAW_STATE_0_GET_COUNT(dw) ((dw) & CP_SET_DRAW_STATE_0_COUNT_MASK)
/* The enable mask (BINNING | GMEM | SYSMEM) shifted down: the mode bits the CP compares. */
#define CP_SET_DRAW_STATE_0_GET_ENABLE_MASK(dw) (((dw) >> 20) & 0x7u)
#define CP_DRAW_STATE_MODE_BINNING 0x1u
#define CP_DRAW_STATE_MODE_GMEM    0x2u
#define CP_DRAW_STATE_MODE_SYSMEM  0x4u
#define CP_SET_DRAW_STATE_MAX_GROUPS 32u

#endif
