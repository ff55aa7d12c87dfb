/* Adreno a6xx register offsets (in dwords, as PKT4 and CP_REG_TO_MEM address them) that ferry's
 * CP model, validator and decoders use. Every offset was checked against Mesa's
 * src/freedreno/registers/adreno/a6xx.xml; registers that could not be confirmed are left out. */
#ifndef FERRY_HW_A6XX_REGS_H
#define FERRY_HW_A6XX_REGS_H

#include <stdint.h>

#define REG_A6XX_RBBM_INT_0_STATUS      0x0201
#define REG_A6XX_RBBM_STATUS            0x0210

#define REG_A6XX_CP_RB_BASE             0x0800 /* 64-bit: lo, hi */
#define REG_A6XX_CP_RB_BASE_HI          0x0801
#define REG_A6XX_CP_RB_CNTL             0x0802
#define REG_A6XX_CP_RB_RPTR_ADDR        0x0804 /* 64-bit */
#define REG_A6XX_CP_RB_RPTR_ADDR_HI     0x0805
#define REG_A6XX_CP_RB_RPTR             0x0806
#define REG_A6XX_CP_RB_WPTR             0x0807
#define REG_A6XX_CP_SQE_CNTL            0x0808

#define REG_A6XX_CP_HW_FAULT            0x0821
#define REG_A6XX_CP_INTERRUPT_STATUS    0x0823
#define REG_A6XX_CP_PROTECT_STATUS      0x0824
#define REG_A6XX_CP_STATUS_1            0x0825
#define REG_A6XX_CP_SQE_INSTR_BASE      0x0830 /* 64-bit */
#define REG_A6XX_CP_SQE_INSTR_BASE_HI   0x0831
#define REG_A6XX_CP_MISC_CNTL           0x0840
#define REG_A6XX_CP_CHICKEN_DBG         0x0841
#define REG_A6XX_CP_ADDR_MODE_CNTL      0x0842
#define REG_A6XX_CP_DBG_ECO_CNTL        0x0843
#define REG_A6XX_CP_APRIV_CNTL          0x0844

#define REG_A6XX_CP_PROTECT_CNTL        0x084f
#define REG_A6XX_CP_PROTECT_BASE        0x0850 /* CP_PROTECT[32] */
#define A6XX_CP_PROTECT_COUNT           32
#define REG_A6XX_CP_PROTECT(n)          (REG_A6XX_CP_PROTECT_BASE + (n))

#define REG_A6XX_CP_SCRATCH_BASE        0x0883 /* CP_SCRATCH[8] */
#define A6XX_CP_SCRATCH_COUNT           8
#define REG_A6XX_CP_SCRATCH_REG(n)      (REG_A6XX_CP_SCRATCH_BASE + (n))

#define REG_A6XX_CP_CONTEXT_SWITCH_CNTL 0x08a0

#define REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE    0x0900 /* 64-bit */
#define REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE_HI 0x0901
#define REG_A6XX_CP_CRASH_DUMP_CNTL     0x0902
#define REG_A6XX_CP_CRASH_DUMP_STATUS   0x0903

#define REG_A6XX_CP_SQE_STAT_ADDR       0x0908
#define REG_A6XX_CP_SQE_STAT_DATA       0x0909
#define REG_A6XX_CP_DRAW_STATE_ADDR     0x090a
#define REG_A6XX_CP_DRAW_STATE_DATA     0x090b

#define REG_A6XX_CP_IB1_BASE            0x0928 /* 64-bit */
#define REG_A6XX_CP_IB1_BASE_HI         0x0929
#define REG_A6XX_CP_IB1_REM_SIZE        0x092a
#define REG_A6XX_CP_IB2_BASE            0x092b /* 64-bit */
#define REG_A6XX_CP_IB2_BASE_HI         0x092c
#define REG_A6XX_CP_IB2_REM_SIZE        0x092d
#define REG_A6XX_CP_SDS_BASE            0x092e /* 64-bit; SDS: CP_SET_DRAW_STATE */
#define REG_A6XX_CP_SDS_BASE_HI         0x092f
#define REG_A6XX_CP_SDS_REM_SIZE        0x0930
#define REG_A6XX_CP_MRB_BASE            0x0931 /* 64-bit */
#define REG_A6XX_CP_MRB_BASE_HI         0x0932
#define REG_A6XX_CP_MRB_REM_SIZE        0x0933
#define REG_A6XX_CP_IB1_INIT_SIZE       0x0943
#define REG_A6XX_CP_IB2_INIT_SIZE       0x0944

#define REG_A6XX_CP_ALWAYS_ON_COUNTER    0x0980 /* 64-bit, 19.2 MHz */
#define REG_A6XX_CP_ALWAYS_ON_COUNTER_HI 0x0981
#define REG_A6XX_CP_ALWAYS_ON_CONTEXT    0x0982 /* 64-bit */
#define REG_A6XX_CP_ALWAYS_ON_CONTEXT_HI 0x0983
#define REG_A6XX_CP_AHB_CNTL            0x098d

/* CP_PROTECT_CNTL bits. */
#define A6XX_CP_PROTECT_CNTL_ACCESS_PROT_EN         (1u << 0)
#define A6XX_CP_PROTECT_CNTL_ACCESS_FAULT_ON_VIOL_EN (1u << 1)
#define A6XX_CP_PROTECT_CNTL_LAST_SPAN_INF_RANGE    (1u << 3)

/* Name of a register, or NULL if not in this table. Array members are formatted into buf as
 * "CP_SCRATCH_REG(3)" and the high halves of 64-bit registers get "_HI"; buf_len >= 32. A static
 * inline because this header is the only part of the table that protocol/ carries. */
static inline const char *a6xx_reg_name(uint32_t offset, char *buf, unsigned buf_len)
{
	static const struct { uint32_t offset; const char *name; } regs[] = {
		{ REG_A6XX_RBBM_INT_0_STATUS, "RBBM_INT_0_STATUS" },
		{ REG_A6XX_RBBM_STATUS, "RBBM_STATUS" },
		{ REG_A6XX_CP_RB_BASE, "CP_RB_BASE" },
		{ REG_A6XX_CP_RB_BASE_HI, "CP_RB_BASE_HI" },
		{ REG_A6XX_CP_RB_CNTL, "CP_RB_CNTL" },
		{ REG_A6XX_CP_RB_RPTR_ADDR, "CP_RB_RPTR_ADDR" },
		{ REG_A6XX_CP_RB_RPTR_ADDR_HI, "CP_RB_RPTR_ADDR_HI" },
		{ REG_A6XX_CP_RB_RPTR, "CP_RB_RPTR" },
		{ REG_A6XX_CP_RB_WPTR, "CP_RB_WPTR" },
		{ REG_A6XX_CP_SQE_CNTL, "CP_SQE_CNTL" },
		{ REG_A6XX_CP_HW_FAULT, "CP_HW_FAULT" },
		{ REG_A6XX_CP_INTERRUPT_STATUS, "CP_INTERRUPT_STATUS" },
		{ REG_A6XX_CP_PROTECT_STATUS, "CP_PROTECT_STATUS" },
		{ REG_A6XX_CP_STATUS_1, "CP_STATUS_1" },
		{ REG_A6XX_CP_SQE_INSTR_BASE, "CP_SQE_INSTR_BASE" },
		{ REG_A6XX_CP_SQE_INSTR_BASE_HI, "CP_SQE_INSTR_BASE_HI" },
		{ REG_A6XX_CP_MISC_CNTL, "CP_MISC_CNTL" },
		{ REG_A6XX_CP_CHICKEN_DBG, "CP_CHICKEN_DBG" },
		{ REG_A6XX_CP_ADDR_MODE_CNTL, "CP_ADDR_MODE_CNTL" },
		{ REG_A6XX_CP_DBG_ECO_CNTL, "CP_DBG_ECO_CNTL" },
		{ REG_A6XX_CP_APRIV_CNTL, "CP_APRIV_CNTL" },
		{ REG_A6XX_CP_PROTECT_CNTL, "CP_PROTECT_CNTL" },
		{ REG_A6XX_CP_CONTEXT_SWITCH_CNTL, "CP_CONTEXT_SWITCH_CNTL" },
		{ REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE, "CP_CRASH_DUMP_SCRIPT_BASE" },
		{ REG_A6XX_CP_CRASH_DUMP_SCRIPT_BASE_HI, "CP_CRASH_DUMP_SCRIPT_BASE_HI" },
		{ REG_A6XX_CP_CRASH_DUMP_CNTL, "CP_CRASH_DUMP_CNTL" },
		{ REG_A6XX_CP_CRASH_DUMP_STATUS, "CP_CRASH_DUMP_STATUS" },
		{ REG_A6XX_CP_SQE_STAT_ADDR, "CP_SQE_STAT_ADDR" },
		{ REG_A6XX_CP_SQE_STAT_DATA, "CP_SQE_STAT_DATA" },
		{ REG_A6XX_CP_DRAW_STATE_ADDR, "CP_DRAW_STATE_ADDR" },
		{ REG_A6XX_CP_DRAW_STATE_DATA, "CP_DRAW_STATE_DATA" },
		{ REG_A6XX_CP_IB1_BASE, "CP_IB1_BASE" },
		{ REG_A6XX_CP_IB1_BASE_HI, "CP_IB1_BASE_HI" },
		{ REG_A6XX_CP_IB1_REM_SIZE, "CP_IB1_REM_SIZE" },
		{ REG_A6XX_CP_IB2_BASE, "CP_IB2_BASE" },
		{ REG_A6XX_CP_IB2_BASE_HI, "CP_IB2_BASE_HI" },
		{ REG_A6XX_CP_IB2_REM_SIZE, "CP_IB2_REM_SIZE" },
		{ REG_A6XX_CP_SDS_BASE, "CP_SDS_BASE" },
		{ REG_A6XX_CP_SDS_BASE_HI, "CP_SDS_BASE_HI" },
		{ REG_A6XX_CP_SDS_REM_SIZE, "CP_SDS_REM_SIZE" },
		{ REG_A6XX_CP_MRB_BASE, "CP_MRB_BASE" },
		{ REG_A6XX_CP_MRB_BASE_HI, "CP_MRB_BASE_HI" },
		{ REG_A6XX_CP_MRB_REM_SIZE, "CP_MRB_REM_SIZE" },
		{ REG_A6XX_CP_IB1_INIT_SIZE, "CP_IB1_INIT_SIZE" },
		{ REG_A6XX_CP_IB2_INIT_SIZE, "CP_IB2_INIT_SIZE" },
		{ REG_A6XX_CP_ALWAYS_ON_COUNTER, "CP_ALWAYS_ON_COUNTER" },
		{ REG_A6XX_CP_ALWAYS_ON_COUNTER_HI, "CP_ALWAYS_ON_COUNTER_HI" },
		{ REG_A6XX_CP_ALWAYS_ON_CONTEXT, "CP_ALWAYS_ON_CONTEXT" },
		{ REG_A6XX_CP_ALWAYS_ON_CONTEXT_HI, "CP_ALWAYS_ON_CONTEXT_HI" },
		{ REG_A6XX_CP_AHB_CNTL, "CP_AHB_CNTL" },
	};
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (regs[i].offset == offset)
			return regs[i].name;
	const char *array = NULL;
	uint32_t index = 0;
	if (offset >= REG_A6XX_CP_PROTECT_BASE && offset < REG_A6XX_CP_PROTECT_BASE + A6XX_CP_PROTECT_COUNT) {
		array = "CP_PROTECT";
		index = offset - REG_A6XX_CP_PROTECT_BASE;
	} else if (offset >= REG_A6XX_CP_SCRATCH_BASE &&
		   offset < REG_A6XX_CP_SCRATCH_BASE + A6XX_CP_SCRATCH_COUNT) {
		array = "CP_SCRATCH_REG";
		index = offset - REG_A6XX_CP_SCRATCH_BASE;
	}
	if (!array || !buf || buf_len < 32)
		return NULL;
	/* Hand-formatted to keep this header free of stdio. */
	unsigned n = 0;
	while (array[n] && n < buf_len - 5) {
		buf[n] = array[n];
		n++;
	}
	buf[n++] = '(';
	if (index >= 10)
		buf[n++] = (char)('0' + index / 10);
	buf[n++] = (char)('0' + index % 10);
	buf[n++] = ')';
	buf[n] = '\0';
	return buf;
}

#endif
