/* The a6xx CP_PROTECT register ranges the msm kernel driver programs, as validator policy, and
 * the default a6xx policy. Source: Linux drivers/gpu/drm/msm/adreno/a6xx_gpu.c (a6xx_protect[],
 * a650_protect[], a660_protect[], v6.1..v6.8; later moved to a6xx_catalog.c unchanged).
 * Each kernel entry is A6XX_PROTECT_RDONLY(reg, len) (writes fault) or
 * A6XX_PROTECT_NORDWR(reg, len) (reads and writes fault), covering registers reg..reg+len; the
 * kernel programs the last entry into the last CP_PROTECT slot, which makes it cover every
 * register from reg up ("infinite range"). */
#include "pm4_validate.h"

#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"

#define WR(reg, len) { (reg), (reg) + (len), false }  /* RDONLY: writes denied */
#define RW(reg, len) { (reg), (reg) + (len), true }   /* NORDWR: reads and writes denied */
#define FROM(reg)    { (reg), UINT32_MAX, true }      /* the last, unbounded entry */

/* a615, a616, a618, a619, a630, a640, a680 */
static const struct pm4v_reg_range protect_a630[] = {
	WR(0x00000, 0x04ff), WR(0x00501, 0x0005), WR(0x0050b, 0x02f4), RW(0x0050e, 0x0000),
	RW(0x00510, 0x0000), RW(0x00534, 0x0000), RW(0x00800, 0x0082), RW(0x008a0, 0x0008),
	RW(0x008ab, 0x0024), WR(0x008de, 0x00ae), RW(0x00900, 0x004d), RW(0x0098d, 0x0272),
	RW(0x00e00, 0x0001), RW(0x00e03, 0x000c), RW(0x03c00, 0x00c3), WR(0x03cc4, 0x1fff),
	RW(0x08630, 0x01cf), RW(0x08e00, 0x0000), RW(0x08e08, 0x0000), RW(0x08e50, 0x001f),
	RW(0x09624, 0x01db), RW(0x09e70, 0x0001), RW(0x09e78, 0x0187), RW(0x0a630, 0x01cf),
	RW(0x0ae02, 0x0000), RW(0x0ae50, 0x032f), RW(0x0b604, 0x0000), RW(0x0be02, 0x0001),
	RW(0x0be20, 0x17df), RW(0x0f000, 0x0bff), WR(0x0fc00, 0x1fff), FROM(0x11c00),
};

/* a620, a650 */
static const struct pm4v_reg_range protect_a650[] = {
	WR(0x00000, 0x04ff), WR(0x00501, 0x0005), WR(0x0050b, 0x02f4), RW(0x0050e, 0x0000),
	RW(0x00510, 0x0000), RW(0x00534, 0x0000), RW(0x00800, 0x0082), RW(0x008a0, 0x0008),
	RW(0x008ab, 0x0024), WR(0x008de, 0x00ae), RW(0x00900, 0x004d), RW(0x0098d, 0x0272),
	RW(0x00e00, 0x0001), RW(0x00e03, 0x000c), RW(0x03c00, 0x00c3), WR(0x03cc4, 0x1fff),
	RW(0x08630, 0x01cf), RW(0x08e00, 0x0000), RW(0x08e08, 0x0000), RW(0x08e50, 0x001f),
	RW(0x08e80, 0x027f), RW(0x09624, 0x01db), RW(0x09e60, 0x0011), RW(0x09e78, 0x0187),
	RW(0x0a630, 0x01cf), RW(0x0ae02, 0x0000), RW(0x0ae50, 0x032f), RW(0x0b604, 0x0000),
	RW(0x0b608, 0x0007), RW(0x0be02, 0x0001), RW(0x0be20, 0x17df), RW(0x0f000, 0x0bff),
	WR(0x0fc00, 0x1fff), RW(0x18400, 0x1fff), RW(0x1a800, 0x1fff), RW(0x1f400, 0x0443),
	WR(0x1f844, 0x007b), RW(0x1f887, 0x001b), FROM(0x1f8c0),
};

/* a635, a660 */
static const struct pm4v_reg_range protect_a660[] = {
	WR(0x00000, 0x04ff), WR(0x00501, 0x0005), WR(0x0050b, 0x02f4), RW(0x0050e, 0x0000),
	RW(0x00510, 0x0000), RW(0x00534, 0x0000), RW(0x00800, 0x0082), RW(0x008a0, 0x0008),
	RW(0x008ab, 0x0024), WR(0x008de, 0x00ae), RW(0x00900, 0x004d), RW(0x0098d, 0x0272),
	RW(0x00e00, 0x0001), RW(0x00e03, 0x000c), RW(0x03c00, 0x00c3), WR(0x03cc4, 0x1fff),
	RW(0x08630, 0x01cf), RW(0x08e00, 0x0000), RW(0x08e08, 0x0000), RW(0x08e50, 0x001f),
	RW(0x08e80, 0x027f), RW(0x09624, 0x01db), RW(0x09e60, 0x0011), RW(0x09e78, 0x0187),
	RW(0x0a630, 0x01cf), RW(0x0ae02, 0x0000), RW(0x0ae50, 0x012f), RW(0x0b604, 0x0000),
	RW(0x0b608, 0x0006), RW(0x0be02, 0x0001), RW(0x0be20, 0x015f), RW(0x0d000, 0x05ff),
	RW(0x0f000, 0x0bff), WR(0x0fc00, 0x1fff), RW(0x18400, 0x1fff), RW(0x1a400, 0x1fff),
	RW(0x1f400, 0x0443), WR(0x1f844, 0x007b), RW(0x1f860, 0x0000), RW(0x1f887, 0x001b),
	FROM(0x1f8c0),
};

#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

const struct pm4v_reg_range *pm4v_a6xx_protect_table(uint32_t gpu_id, uint32_t *count)
{
	switch (gpu_id) {
	case 620:
	case 650:
		*count = N(protect_a650);
		return protect_a650;
	case 635:
	case 660:
		*count = N(protect_a660);
		return protect_a660;
	default: /* a615..a640, a680 and anything unknown: the base a6xx table */
		*count = N(protect_a630);
		return protect_a630;
	}
}

void pm4v_policy_a6xx(struct pm4v_policy *p, uint32_t gpu_id)
{
	*p = (struct pm4v_policy){
		.max_ib_depth = 2,
		.max_targets = 256u * 1024u,
		.max_walk_dwords = 16u * 1024u * 1024u,
	};
	p->protected_regs = pm4v_a6xx_protect_table(gpu_id, &p->nr_protected_regs);
	/* Readable without writing them first: the always-on counters (timestamps: every driver
	 * reads them) count time, not any context's data. The perf and primitive counters sit
	 * in write-protected RBBM space and are readable through that rule. */
	static const struct pm4v_reg_range shared[] = {
		{ REG_A6XX_CP_ALWAYS_ON_COUNTER, REG_A6XX_CP_ALWAYS_ON_CONTEXT_HI, false },
	};
	p->shared_regs = shared;
	p->nr_shared_regs = N(shared);
	/* Turnip (emit_vsc_overflow_test) and freedreno (fd6_gmem.c) read every used pipe's
	 * VSC_DRAW_STRM_SIZE / VSC_PRIM_STRM_SIZE right after their binning pass. */
	p->bin_results = REG_A6XX_VSC_STATE_REG(0);
	p->nr_bin_result_arrays = 3;
	p->bin_pipe_config = REG_A6XX_VSC_PIPE_CONFIG_REG(0);
	p->nr_bin_pipes = A6XX_VSC_PIPES;
	/* The binner writes pipe i's streams at ADDRESS + i x PITCH, up to LIMIT and a little past
	 * it (Turnip leaves VSC_PAD = 64 bytes for that, freedreno 64), and pipe i's draw-stream
	 * size at DRAW_STRM_SIZE_ADDRESS + 4 i. Both drivers size the buffers for all 32 pipes;
	 * freedreno writes address, pitch and limit in one packet, Turnip 22.3 the address alone. */
	p->write_areas[0] = (struct pm4v_write_area){
		.name = "VSC_PRIM_STRM_ADDRESS", .addr = REG_A6XX_VSC_PRIM_STRM_ADDRESS,
		.pitch = REG_A6XX_VSC_PRIM_STRM_PITCH, .limit = REG_A6XX_VSC_PRIM_STRM_LIMIT,
		.count = A6XX_VSC_PIPES, .overrun = 64,
	};
	p->write_areas[1] = (struct pm4v_write_area){
		.name = "VSC_DRAW_STRM_ADDRESS", .addr = REG_A6XX_VSC_DRAW_STRM_ADDRESS,
		.pitch = REG_A6XX_VSC_DRAW_STRM_PITCH, .limit = REG_A6XX_VSC_DRAW_STRM_LIMIT,
		.count = A6XX_VSC_PIPES, .overrun = 64,
	};
	p->write_areas[2] = (struct pm4v_write_area){
		.name = "VSC_DRAW_STRM_SIZE_ADDRESS", .addr = REG_A6XX_VSC_DRAW_STRM_SIZE_ADDRESS,
		.bytes = 4 * A6XX_VSC_PIPES,
	};
	/* GMEM resolves (CP_EVENT_WRITE BLIT) write the bin's pixels at RB_BLIT_DST and, for UBWC,
	 * their flags at RB_BLIT_FLAG_DST; how far depends on the scissor, bin and format in other
	 * packets, so only the start is checked here. The flags are written only with
	 * RB_BLIT_DST_INFO.FLAGS; for a surface without UBWC freedreno (fd6_emit_flag_reference)
	 * writes address 0, which no msm address space maps. */
	p->write_areas[3] = (struct pm4v_write_area){ .name = "RB_BLIT_DST", .addr = REG_A6XX_RB_BLIT_DST, .bytes = 1 };
	p->write_areas[4] = (struct pm4v_write_area){
		.name = "RB_BLIT_FLAG_DST", .addr = REG_A6XX_RB_BLIT_FLAG_DST, .bytes = 1, .zero_unused = true,
	};
	p->nr_write_areas = 5;

	/* What the kernel emits only from its own ringbuffer or that changes privilege or firmware. */
	for (uint32_t op = 0; op <= PM4_TYPE7_OPCODE_MASK; op++)
		if (pm4_opcode_kernel_only(op))
			pm4v_policy_deny(p, op, true);
	static const uint32_t also_denied[] = {
		/* writes a register bypassing context state: KGSL's pagetable switch writes the
		 * SMMU TTBR0 with it (adreno_iommu.c), and CP_PROTECT cannot vet its target */
		CP_REG_WR_NO_CTXT,
		/* point at command streams ferry does not follow (per-bin prefix IBs; a7xx's draw
		 * table) */
		CP_START_BIN, CP_FIXED_STRIDE_DRAW_TABLE,
	};
	for (uint32_t i = 0; i < N(also_denied); i++)
		pm4v_policy_deny(p, also_denied[i], true);
}
