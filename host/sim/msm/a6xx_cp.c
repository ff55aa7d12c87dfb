/* The a6xx CP model: the packet fetch loop, the IB stack and memory access through a context's
 * address space. Packet semantics live in a6xx_cp_packets.c and a6xx_cp_draw.c; payload layouts
 * come from Mesa's src/freedreno/registers/adreno/adreno_pm4.xml (copied into protocol/include/ferry/hw:
 * bit fields in adreno_pm4.h, dword positions and lengths in adreno_pm4_payload.h).
 *
 * Packets Turnip (src/freedreno/vulkan/tu_*.cc) and freedreno a6xx (src/gallium/drivers/
 * freedreno/a6xx/) emit, and what the model does with each:
 *
 *   modeled (effect on memory, registers or control flow):
 *     type-4 register writes            register file
 *     CP_NOP                            skipped by its count (not counted as skipped)
 *     CP_INDIRECT_BUFFER(_PFD)          IB1 -> IB2 (no deeper, as a6xx)
 *     CP_INDIRECT_BUFFER_CHAIN          jump to another IB at the same level; loops are hangs
 *     CP_SET_DRAW_STATE                 groups (COUNT/ADDR, BINNING/GMEM/SYSMEM, DIRTY, DISABLE,
 *                                       DISABLE_ALL_GROUPS, LOAD_IMMED) run at the next draw
 *     CP_SET_MARKER                     render mode (RM6_*), IB1LIST markers; IFPC ignored
 *     CP_DRAW_INDX_OFFSET, CP_DRAW_INDIRECT, CP_DRAW_INDX_INDIRECT, CP_DRAW_INDIRECT_MULTI,
 *     CP_DRAW_AUTO                      draw state, then index / indirect / count buffers read
 *                                       through the address space; draws counted, nothing drawn
 *     CP_MEM_WRITE, CP_MEMCPY, CP_MEM_TO_MEM (NEG_A/B/C, DOUBLE, N sources)
 *     CP_REG_TO_MEM (CNT, 64B, ACCUMULATE; live always-on counter), CP_MEM_TO_REG, CP_REG_RMW
 *     CP_EVENT_WRITE                    *_TS events write the value; TIMESTAMP writes the 64-bit
 *                                       GPU timestamp (19.2 MHz always-on); IRQ counted
 *     CP_WAIT_REG_MEM, CP_WAIT_MEM_GTE  an unmet wait yields the GPU to other work
 *     CP_WAIT_FOR_IDLE, CP_WAIT_FOR_ME, CP_WAIT_MEM_WRITES
 *                                       no-ops: every earlier effect is already visible
 *     CP_REG_TEST, CP_COND_REG_EXEC (PRED_TEST, REG_COMPARE, RENDER_MODE), CP_COND_EXEC
 *     CP_COND_WRITE5 (WRITE_MEMORY)     compare as CP_WAIT_REG_MEM, then the write
 *     CP_SKIP_IB2_ENABLE_GLOBAL/_LOCAL  enables kept; the skip needs an empty visibility stream
 *                                       and binning is not modeled, so IB2s are never skipped
 *     CP_BLIT (BLIT_OP_SCALE)           the 2D engine on linear, TILE6_3 and UBWC single-sample
 *                                       surfaces: solid fills and same-format copies
 *                                       (a6xx_cp_blit.c, a6xx_cp_surface.c); other 2D work
 *                                       (scaling, conversion, MSAA, compressed UBWC blocks) is skipped
 *                                       and counted, memory untouched
 *     CP_EVENT_WRITE(BLIT)              GMEM clear / load / store from RB_BLIT_* (a6xx_cp_gmem.c);
 *                                       what it cannot do is counted as a skipped
 *                                       CP_EVENT_WRITE, memory untouched
 *     CP_SET_VISIBILITY_OVERRIDE        no-op: every bin is rendered either way
 *     CP_SET_MODE                       0 (rendering) is a no-op; 1 (binning) is counted
 *     CP_REG_WRITE                      the register write (its TRACKER is firmware bookkeeping)
 *   skipped and counted (sim_unmodeled.h; kind "state" for shader / binning state, "dispatch" for
 *   CP_EXEC_CS*, "packet" for the rest; under strict mode all but "state" fault the submit):
 *     CP_LOAD_STATE6(_GEOM/_FRAG)       shader state: shaders are not executed
 *     CP_EXEC_CS, CP_EXEC_CS_INDIRECT, CP_SET_SUBDRAW_SIZE
 *                                       compute / geometry work: not executed
 *     CP_SET_BIN_DATA5(_OFFSET)         visibility streams (binning not modeled)
 *     CP_DRAW_PRED_ENABLE_GLOBAL/_LOCAL, CP_DRAW_PRED_SET
 *                                       draw predication: draws always count
 *     CP_SET_PSEUDO_REG, CP_CONTEXT_REG_BUNCH, CP_INVALIDATE_STATE, CP_SET_AMBLE,
 *     CP_SCRATCH_WRITE, CP_SCRATCH_TO_REG, CP_REG_TO_SCRATCH, CP_RECORD_PFP_TIMESTAMP
 *                                       firmware-internal state the model does not keep
 *     CP_REG_TO_MEM_OFFSET_REG/_MEM     the offset's unit is not documented in adreno_pm4.xml
 *     CP_MEM_WRITE_CNTR, CP_WAIT_REG_EQ, CP_WAIT_TWO_REGS
 *                                       no payload layout in adreno_pm4.xml
 *     CP_START_BIN/CP_END_BIN, CP_THREAD_CONTROL, CP_EVENT_WRITE7 fields
 *                                       a650+/a7xx bin loops and BV/BR threads: not modeled
 *   privileged (kernel ring only; the validator denies them): CP_SMMU_TABLE_UPDATE,
 *     CP_SET_PROTECTED_MODE, CP_CONTEXT_SWITCH, ... are skipped and counted here too.
 */
#include <string.h>
#include <time.h>

#include "a6xx_cp_internal.h"
#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"

uint64_t cp_always_on_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* 19.2 ticks per microsecond = 192 per 10000 ns; split to avoid overflow. */
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return ns / 10000u * 192u + ns % 10000u * 192u / 10000u;
}

uint32_t cp_reg_read(const struct cp_device *cp, uint32_t reg)
{
	if (reg == REG_A6XX_CP_ALWAYS_ON_COUNTER)
		return (uint32_t)cp_always_on_ticks();
	if (reg == REG_A6XX_CP_ALWAYS_ON_COUNTER_HI)
		return (uint32_t)(cp_always_on_ticks() >> 32);
	return reg < CP_NUM_REGS ? cp->regs[reg] : 0;
}

void cp_reg_write(struct cp_device *cp, uint32_t reg, uint32_t val)
{
	if (reg < CP_NUM_REGS)
		cp->regs[reg] = val;
}

const char *cp_render_mode_name(uint32_t mode)
{
	switch (mode) {
	case CP_DRAW_STATE_MODE_BINNING: return "binning";
	case CP_DRAW_STATE_MODE_GMEM: return "gmem";
	case CP_DRAW_STATE_MODE_SYSMEM: return "sysmem";
	default: return "none";
	}
}

void cp_sync_ib_regs(struct cp_device *cp, const struct cp_exec *x)
{
	/* The IB registers show the innermost IB1 / IB2 frames; draw-state frames have none. */
	const struct cp_frame *ib[2] = { NULL, NULL };
	for (unsigned i = 0; i < x->depth; i++) {
		if (x->ib[i].kind == CP_FRAME_IB1)
			ib[0] = &x->ib[i];
		else if (x->ib[i].kind == CP_FRAME_IB2)
			ib[1] = &x->ib[i];
	}
	for (unsigned lvl = 0; lvl < 2; lvl++) {
		const struct cp_frame *f = ib[lvl];
		uint32_t base = lvl ? REG_A6XX_CP_IB2_BASE : REG_A6XX_CP_IB1_BASE;
		uint32_t rem = lvl ? REG_A6XX_CP_IB2_REM_SIZE : REG_A6XX_CP_IB1_REM_SIZE;
		hw_addr64_put(&cp->regs[base], f ? f->base : 0);
		cp->regs[rem] = f ? f->size - f->pos : 0;
	}
}

void cp_exec_init(struct cp_exec *x)
{
	memset(x, 0, sizeof(*x));
	/* Before any CP_SET_MARKER the model renders direct (sysmem): a stream that never says
	 * which pass it is in is not tiled. */
	x->render_mode = CP_DRAW_STATE_MODE_SYSMEM;
}

void cp_exec_start_ib1(struct cp_exec *x, uint64_t iova, uint32_t size_dwords)
{
	x->ib[0] = (struct cp_frame){ .base = iova, .size = size_dwords & CP_INDIRECT_BUFFER_2_SIZE_MASK,
				      .kind = CP_FRAME_IB1 };
	x->depth = 1;
	x->nr_chain_targets = 0;
	x->chain_loop = false;
}

void cp_push_frame(struct cp_exec *x, enum cp_frame_kind kind, uint64_t base, uint32_t size, unsigned group)
{
	x->ib[x->depth++] = (struct cp_frame){ .base = base, .size = size, .kind = kind, .group_id = group };
}

static void locate(struct cp_exec *x, const struct pkt *p, bool header_valid)
{
	struct cp_fault *f = &x->fault;
	f->ib_level = x->depth;
	f->frame_kind = p->frame->kind;
	f->group_id = p->frame->group_id;
	f->ib_base = p->frame->base;
	f->ib_size = p->frame->size;
	f->dword = p->frame->pos;
	f->header_valid = header_valid;
	f->header = p->header;
	if (!header_valid)
		f->opcode = -2;
	else if (pm4_is_type4(p->header))
		f->opcode = -1;
	else if (pm4_is_type7(p->header))
		f->opcode = (int)pm4_type7_opcode(p->header);
	else
		f->opcode = -2;
	f->reg = pm4_is_type4(p->header) ? pm4_type4_reg(p->header) : 0;
}

enum cp_result cp_opcode_fault(struct cp_exec *x, const struct pkt *p, const char *reason)
{
	locate(x, p, true);
	x->fault.kind = CP_FAULT_OPCODE;
	x->fault.reason = reason;
	return CP_RESULT_FAULT;
}

enum cp_result cp_unmodeled(struct cp_device *cp, struct cp_exec *x, const struct pkt *p, unsigned kind,
			    const char *what)
{
	sim_unmodeled_add(&x->unmodeled, kind, 1, what);
	if (!cp->strict || !sim_unmodeled_fails_strict(kind))
		return CP_RESULT_DONE;
	locate(x, p, true);
	x->fault.kind = CP_FAULT_UNMODELED;
	x->fault.reason = sim_unmodeled_message(kind);
	return CP_RESULT_FAULT;
}

/* Which kind of unexecuted work a skipped type-7 packet is (the table in the comment above). */
static unsigned skipped_kind(uint32_t opcode)
{
	switch (opcode) {
	case CP_EXEC_CS:
	case CP_EXEC_CS_INDIRECT:
		return SIM_UNMODELED_DISPATCH;
	case CP_LOAD_STATE6:
	case CP_LOAD_STATE6_GEOM:
	case CP_LOAD_STATE6_FRAG:
	case CP_SET_SUBDRAW_SIZE:
	case CP_SET_BIN_DATA5:
	case CP_SET_BIN_DATA5_OFFSET:
	case CP_SET_VISIBILITY_OVERRIDE:
	case CP_SET_MODE:
	case CP_DRAW_PRED_ENABLE_GLOBAL:
	case CP_DRAW_PRED_ENABLE_LOCAL:
	case CP_DRAW_PRED_SET:
		return SIM_UNMODELED_STATE;
	default:
		return SIM_UNMODELED_PACKET;
	}
}

static void pagefault(struct cp_exec *x, const struct pkt *p, bool header_valid, uint64_t iova, bool write,
		      const char *type)
{
	locate(x, p, header_valid);
	x->fault.kind = CP_FAULT_PAGEFAULT;
	x->fault.iova = iova;
	x->fault.write = write;
	x->fault.type = type;
}

bool cp_mem_read(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova, void *dst,
		 uint64_t len)
{
	uint8_t *d = dst;
	while (len) {
		uint64_t avail = 0;
		const char *type = "TRANSLATION";
		const void *src = m->translate(m->ctx, iova, len, false, &avail, &type);
		if (!src) {
			pagefault(x, p, true, iova, false, type);
			return false;
		}
		memcpy(d, src, avail);
		d += avail;
		iova += avail;
		len -= avail;
	}
	return true;
}

bool cp_mem_probe(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova, uint64_t len,
		  bool write)
{
	while (len) {
		uint64_t avail = 0;
		const char *type = "TRANSLATION";
		if (!m->translate(m->ctx, iova, len, write, &avail, &type)) {
			pagefault(x, p, true, iova, write, type);
			return false;
		}
		iova += avail;
		len -= avail;
	}
	return true;
}

bool cp_mem_touch(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova, uint64_t len)
{
	return cp_mem_probe(m, x, p, iova, len, false);
}

bool cp_mem_write(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova,
		  const void *src, uint64_t len)
{
	const uint8_t *s = src;
	while (len) {
		uint64_t avail = 0;
		const char *type = "TRANSLATION";
		void *dst = m->translate(m->ctx, iova, len, true, &avail, &type);
		if (!dst) {
			pagefault(x, p, true, iova, true, type);
			return false;
		}
		memcpy(dst, s, avail);
		s += avail;
		iova += avail;
		len -= avail;
	}
	return true;
}

bool cp_mem_poll32(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova, uint32_t *out)
{
	uint64_t avail = 0;
	const char *type = "TRANSLATION";
	const void *src = m->translate(m->ctx, iova, 4, false, &avail, &type);
	if (!src) {
		pagefault(x, p, true, iova, false, type);
		return false;
	}
	if (avail >= 4 && ((uintptr_t)src & 3u) == 0) {
		*out = __atomic_load_n((const uint32_t *)src, __ATOMIC_ACQUIRE);
		return true;
	}
	return cp_mem_read(m, x, p, iova, out, 4);
}

bool cp_payload(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t first, uint32_t n,
		uint32_t *dst)
{
	uint64_t iova = p->frame->base + 4ull * ((uint64_t)p->frame->pos + 1 + first);
	return cp_mem_read(m, x, p, iova, dst, 4ull * n);
}

static enum cp_result exec_type4(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				 const struct pkt *p)
{
	uint32_t vals[PM4_TYPE4_MAX_COUNT];
	uint32_t reg = pm4_type4_reg(p->header);
	if (!cp_payload(m, x, p, 0, p->count, vals))
		return CP_RESULT_FAULT;
	for (uint32_t i = 0; i < p->count; i++)
		cp_reg_write(cp, reg + i, vals[i]);
	cp->type4_packets++;
	return CP_RESULT_DONE;
}

/* CP_INDIRECT_BUFFER(_PFD) calls an IB2; CP_INDIRECT_BUFFER_CHAIN replaces the current IB. */
static enum cp_result exec_ib(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
			      const struct pkt *p, bool chain)
{
	uint32_t d[CP_INDIRECT_BUFFER_LEN];
	struct cp_frame *f = p->frame;
	if (p->count != CP_INDIRECT_BUFFER_LEN)
		return cp_opcode_fault(x, p, "CP_INDIRECT_BUFFER with a payload other than 3 dwords");
	if (f->kind == CP_FRAME_DRAW_STATE)
		return cp_opcode_fault(x, p, "CP_INDIRECT_BUFFER inside a draw-state group");
	if (!chain && f->kind == CP_FRAME_IB2)
		return cp_opcode_fault(x, p, "CP_INDIRECT_BUFFER inside IB2 (a6xx nests IBs two deep)");
	if (!cp_payload(m, x, p, 0, CP_INDIRECT_BUFFER_LEN, d))
		return CP_RESULT_FAULT;
	uint64_t base = hw_addr64_at(d + CP_INDIRECT_BUFFER_BASE_DW);
	uint32_t size = d[CP_INDIRECT_BUFFER_SIZE_DW] & CP_INDIRECT_BUFFER_2_SIZE_MASK;
	if (base & 3u)
		return cp_opcode_fault(x, p, "CP_INDIRECT_BUFFER base not dword aligned");
	if (base > UINT64_MAX - 4ull * size)
		return cp_opcode_fault(x, p, "CP_INDIRECT_BUFFER wraps the address space");
	if (chain) {
		if (f->pos + 1 + p->count != f->size)
			return cp_opcode_fault(x, p, "CP_INDIRECT_BUFFER_CHAIN is not the last packet of its IB");
		/* A chain back into an IB this submit already chained to is a loop (real drivers loop
		 * bins with CP_START_BIN, never with chains); hangcheck ends it after its period. */
		for (unsigned i = 0; i < x->nr_chain_targets; i++)
			if (x->chain_targets[i] == base)
				x->chain_loop = true;
		if (!x->chain_loop && x->nr_chain_targets < sizeof(x->chain_targets) / sizeof(x->chain_targets[0]))
			x->chain_targets[x->nr_chain_targets++] = base;
		cp->ib_chains++;
		f->base = base;
		f->size = size;
		f->pos = 0;
		f->started = false;
		cp_sync_ib_regs(cp, x);
		return CP_RESULT_MOVED;
	}
	/* Return address first: the parent resumes after this packet. */
	f->pos += 1 + p->count;
	f->started = false;
	if (size)
		cp_push_frame(x, CP_FRAME_IB2, base, size, 0);
	cp_sync_ib_regs(cp, x);
	return CP_RESULT_MOVED;
}

static void record_packet(struct cp_exec *x, const struct cp_frame *f, uint32_t header)
{
	struct cp_packet_record *r = &x->last[(x->last_pos + x->last_count) % CP_LAST_PACKETS];
	if (x->last_count == CP_LAST_PACKETS)
		x->last_pos = (x->last_pos + 1) % CP_LAST_PACKETS;
	else
		x->last_count++;
	*r = (struct cp_packet_record){ .iova = f->base + 4ull * f->pos, .dword = f->pos, .header = header,
					.level = (uint8_t)x->depth, .kind = (uint8_t)f->kind };
}

/* Fetches and decodes the header at the top frame's position. */
static enum cp_result fetch(const struct cp_mem *m, struct cp_exec *x, struct pkt *p)
{
	struct cp_frame *f = p->frame;
	uint64_t hdr_iova = f->base + 4ull * f->pos;
	uint64_t avail;
	const char *type = "TRANSLATION";
	const void *h = m->translate(m->ctx, hdr_iova, 4, false, &avail, &type);
	if (!h) {
		pagefault(x, p, false, hdr_iova, false, type);
		return CP_RESULT_FAULT;
	}
	if (avail < 4) {
		if (!cp_mem_read(m, x, p, hdr_iova, &p->header, 4)) {
			x->fault.header_valid = false;
			return CP_RESULT_FAULT;
		}
	} else {
		memcpy(&p->header, h, 4);
	}
	if (!f->started)
		record_packet(x, f, p->header);
	if (pm4_is_type4(p->header)) {
		if (!pm4_type4_parity_ok(p->header))
			return cp_opcode_fault(x, p, "type-4 header parity error");
		p->count = pm4_type4_count(p->header);
		p->opcode = CP_OPCODE_TYPE4;
	} else if (pm4_is_type7(p->header)) {
		if (!pm4_type7_parity_ok(p->header))
			return cp_opcode_fault(x, p, "type-7 header parity error");
		p->opcode = pm4_type7_opcode(p->header);
		p->count = pm4_type7_count(p->header);
	} else {
		return cp_opcode_fault(x, p, "invalid packet type");
	}
	if (p->count > f->size - f->pos - 1)
		return cp_opcode_fault(x, p, "packet runs past the end of its IB");
	return CP_RESULT_DONE;
}

/* CP_REG_WRITE: TRACKER (firmware bookkeeping, e.g. LRZ tracking: no state the model keeps),
 * the register, the value. */
static enum cp_result exec_reg_write(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				     const struct pkt *p)
{
	uint32_t d[CP_REG_WRITE_LEN];
	if (p->count < CP_REG_WRITE_LEN)
		return cp_opcode_fault(x, p, "CP_REG_WRITE shorter than 3 dwords");
	if (!cp_payload(m, x, p, 0, CP_REG_WRITE_LEN, d))
		return CP_RESULT_FAULT;
	cp_reg_write(cp, d[CP_REG_WRITE_REG_DW] & PM4_PAYLOAD_REG_MASK, d[CP_REG_WRITE_VALUE_DW]);
	return CP_RESULT_DONE;
}

static enum cp_result exec_set_mode(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				    const struct pkt *p)
{
	uint32_t mode = 0;
	if (p->count && !cp_payload(m, x, p, 0, CP_DW0_LEN, &mode))
		return CP_RESULT_FAULT;
	if (!mode)
		return CP_RESULT_DONE;
	cp->skipped[p->opcode]++;
	return cp_unmodeled(cp, x, p, SIM_UNMODELED_STATE, "CP_SET_MODE(binning)");
}

static enum cp_result dispatch(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
			       const struct pkt *p, uint32_t budget, uint32_t *cost)
{
	if (p->opcode == CP_OPCODE_TYPE4)
		return exec_type4(cp, m, x, p);
	switch (p->opcode) {
	case CP_NOP:
	case CP_WAIT_FOR_IDLE:
	case CP_WAIT_FOR_ME:
	case CP_WAIT_MEM_WRITES:
		return CP_RESULT_DONE;
	case CP_INDIRECT_BUFFER:
	case CP_INDIRECT_BUFFER_PFD:
		return exec_ib(cp, m, x, p, false);
	case CP_INDIRECT_BUFFER_CHAIN:
		return exec_ib(cp, m, x, p, true);
	case CP_MEM_WRITE: return cp_exec_mem_write(m, x, p, cost);
	case CP_EVENT_WRITE: return cp_exec_event_write(cp, m, x, p, cost);
	case CP_REG_TO_MEM: return cp_exec_reg_to_mem(cp, m, x, p, cost);
	case CP_MEM_TO_REG: return cp_exec_mem_to_reg(cp, m, x, p, cost);
	case CP_MEMCPY: return cp_exec_memcpy(m, x, p, budget, cost);
	case CP_MEM_TO_MEM: return cp_exec_mem_to_mem(m, x, p);
	case CP_WAIT_REG_MEM: return cp_exec_wait_reg_mem(cp, m, x, p);
	case CP_WAIT_MEM_GTE: return cp_exec_wait_mem_gte(m, x, p);
	case CP_REG_RMW: return cp_exec_reg_rmw(cp, m, x, p);
	case CP_REG_TEST: return cp_exec_reg_test(cp, m, x, p);
	case CP_COND_REG_EXEC:
	case CP_COND_EXEC:
	case CP_COND_WRITE5:
		return cp_exec_cond_reg_exec(cp, m, x, p);
	case CP_SKIP_IB2_ENABLE_GLOBAL:
	case CP_SKIP_IB2_ENABLE_LOCAL:
		return cp_exec_skip_ib2_enable(m, x, p);
	case CP_BLIT: return cp_exec_blit(cp, m, x, p, budget, cost);
	case CP_REG_WRITE: return exec_reg_write(cp, m, x, p);
	case CP_SET_MODE:
		/* 0 is the mode the model always runs in; 1, the binning pass's, changes what draws
		 * do, which the model does not reproduce. */
		return exec_set_mode(cp, m, x, p);
	case CP_SET_VISIBILITY_OVERRIDE:
		/* 1 renders every bin whatever its visibility, which the model always does; with 0
		 * the stream decides, and the model never skips a bin (see CP_SKIP_IB2_ENABLE). */
		return CP_RESULT_DONE;
	case CP_SET_MARKER: return cp_exec_set_marker(m, x, p);
	case CP_SET_DRAW_STATE: return cp_exec_set_draw_state(cp, m, x, p);
	case CP_DRAW_INDX_OFFSET:
	case CP_DRAW_INDIRECT:
	case CP_DRAW_INDX_INDIRECT:
	case CP_DRAW_INDIRECT_MULTI:
	case CP_DRAW_AUTO:
		return cp_exec_draw(cp, m, x, p, budget, cost);
	default: {
		cp->skipped[p->opcode]++;
		const char *name = pm4_opcode_name(p->opcode);
		return cp_unmodeled(cp, x, p, skipped_kind(p->opcode), name ? name : "unknown type-7 packet");
	}
	}
}

enum cp_result cp_run(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x, uint32_t budget)
{
	uint32_t cost = 0;
	enum cp_result res = CP_RESULT_BUDGET;
	x->fault.kind = CP_FAULT_NONE;
	cp_blit_state_restore(cp, x);
	while (cost < budget) {
		if (x->depth == 0) {
			res = CP_RESULT_DONE;
			break;
		}
		struct cp_frame *f = &x->ib[x->depth - 1];
		if (f->pos >= f->size) {
			x->depth--; /* IB end: back to the parent (or done) */
			continue;
		}
		struct pkt p = { .frame = f };
		enum cp_result r = fetch(m, x, &p);
		if (r != CP_RESULT_DONE) {
			res = r;
			break;
		}
		cost += 1 + p.count;
		r = dispatch(cp, m, x, &p, budget, &cost);
		if (r == CP_RESULT_MOVED) {
			/* The handler moved the CP itself: a finished packet (IB call, chain, conditional
			 * skip) left started clear; one to re-enter (a draw or LOAD_IMMED running a
			 * draw-state group first) set it. */
			if (!f->started) {
				f->progress = 0;
				cp->packets++;
				x->packets++;
			}
			continue;
		}
		if (r != CP_RESULT_DONE) {
			f->started = true; /* FAULT, WAIT, or BUDGET inside a resumable packet: stay */
			res = r;
			break;
		}
		f->pos += 1 + p.count;
		f->started = false;
		f->progress = 0;
		cp->packets++;
		x->packets++;
	}
	cp_blit_state_save(cp, x);
	cp_sync_ib_regs(cp, x);
	x->spent = cost;
	return res;
}
