/* CP model: render mode (CP_SET_MARKER), draw-state groups (CP_SET_DRAW_STATE) and the draw
 * packets. Nothing is rasterized: a draw runs its pending draw-state groups, reads what the CP
 * itself would fetch (index buffer, indirect arguments, draw counts) through the context's
 * address space, where an unmapped or out-of-BO read is a GPU fault, and is counted.
 *
 * Draw-state semantics, from the freedreno docs ("At draw time ... for any [group] with an update
 * since the last time they were executed, it executes the corresponding fragment"; a6xx tags each
 * group with the modes it runs in) and Turnip's tu6_emit_draw_state ("the firmware has an
 * 'optimization' which skips executing groups that are set to the same value as the last draw
 * ... Set the DIRTY bit to avoid this"): setting a group marks it pending unless it names the
 * same buffer it last ran and DIRTY is clear; a draw runs the pending groups whose mode mask
 * includes the current render mode, lowest group id first, each as its own command frame.
 * DISABLE clears a group, DISABLE_ALL_GROUPS every group, LOAD_IMMED runs the group at once and
 * leaves it disabled (as cffdec and freedreno's a5xx loadstate test use it).
 *
 * Render mode from CP_SET_MARKER, mapped as adreno_pm4.xml's CP_COND_REG_EXEC RENDER_MODE bits
 * document it: BINNING is RM6_BIN_VISIBILITY, SYSMEM is RM6_DIRECT_RENDER, GMEM "all others"
 * (the bin passes and compute); the kernel-only IB1LIST markers and IFPC markers leave it. */
#include <string.h>

#include "a6xx_cp_internal.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"

enum cp_result cp_exec_set_marker(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	uint32_t d;
	if (p->count < CP_DW0_LEN)
		return cp_opcode_fault(x, p, "CP_SET_MARKER without a payload");
	if (!cp_payload(m, x, p, 0, CP_DW0_LEN, &d))
		return CP_RESULT_FAULT;
	if (d & CP_SET_MARKER_0_IFPC_MODE)
		return CP_RESULT_DONE; /* power-collapse control: nothing the model keeps */
	uint32_t mode = CP_SET_MARKER_0_GET_MODE(d);
	switch (mode) {
	case RM6_DIRECT_RENDER:
		x->render_mode = CP_DRAW_STATE_MODE_SYSMEM;
		break;
	case RM6_BIN_VISIBILITY:
		x->render_mode = CP_DRAW_STATE_MODE_BINNING;
		break;
	case RM6_BIN_DIRECT:
	case RM6_BIN_RENDER_START:
	case RM6_BIN_END_OF_DRAWS:
	case RM6_BIN_RESOLVE:
	case RM6_BIN_RENDER_END:
	case RM6_COMPUTE:
		x->render_mode = CP_DRAW_STATE_MODE_GMEM;
		break;
	case RM6_IB1LIST_START:
		x->in_ib1list = true;
		return CP_RESULT_DONE;
	case RM6_IB1LIST_END:
		x->in_ib1list = false;
		return CP_RESULT_DONE;
	default:
		return CP_RESULT_DONE; /* RM6_BLIT2DSCALE: "no-op (at least on current sqe fw)" */
	}
	x->marker = mode;
	return CP_RESULT_DONE;
}

/* Runs group g's buffer now, as a frame above the packet's, and re-enters the packet after it. */
static enum cp_result run_group(struct cp_device *cp, struct cp_exec *x, const struct pkt *p, unsigned g)
{
	struct cp_draw_state_group *grp = &x->groups[g];
	if (x->depth >= CP_MAX_FRAMES)
		return cp_opcode_fault(x, p, "draw-state group nested too deep");
	if (grp->addr & 3u)
		return cp_opcode_fault(x, p, "draw-state group address not dword aligned");
	if (grp->addr > UINT64_MAX - 4ull * grp->count)
		return cp_opcode_fault(x, p, "draw-state group wraps the address space");
	grp->ran_addr = grp->addr;
	grp->ran_count = grp->count;
	grp->pending = false;
	p->frame->started = true;
	cp_push_frame(x, CP_FRAME_DRAW_STATE, grp->addr, grp->count, g);
	cp->draw_state_runs++;
	return CP_RESULT_MOVED;
}

enum cp_result cp_exec_set_draw_state(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				      const struct pkt *p)
{
	if (p->count % CP_SET_DRAW_STATE_GROUP_LEN)
		return cp_opcode_fault(x, p, "CP_SET_DRAW_STATE payload is not whole groups of 3 dwords");
	/* progress: groups of this packet already handled (a LOAD_IMMED group re-enters). */
	for (uint32_t i = (uint32_t)p->frame->progress; i < p->count / CP_SET_DRAW_STATE_GROUP_LEN; i++) {
		uint32_t e[CP_SET_DRAW_STATE_GROUP_LEN];
		if (!cp_payload(m, x, p, CP_SET_DRAW_STATE_GROUP_LEN * i, CP_SET_DRAW_STATE_GROUP_LEN, e))
			return CP_RESULT_FAULT;
		uint32_t d0 = e[CP_SET_DRAW_STATE_GROUP_HDR_DW];
		unsigned g = CP_SET_DRAW_STATE_0_GET_GROUP_ID(d0);
		struct cp_draw_state_group *grp = &x->groups[g];
		if (d0 & CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS) {
			memset(x->groups, 0, sizeof(x->groups));
			continue;
		}
		if (d0 & CP_SET_DRAW_STATE_0_DISABLE) {
			memset(grp, 0, sizeof(*grp));
			continue;
		}
		uint64_t addr = hw_addr64_at(e + CP_SET_DRAW_STATE_GROUP_ADDR_DW);
		uint32_t count = CP_SET_DRAW_STATE_0_GET_COUNT(d0);
		if (d0 & CP_SET_DRAW_STATE_0_LOAD_IMMED) {
			if (p->frame->kind == CP_FRAME_DRAW_STATE)
				return cp_opcode_fault(x, p, "LOAD_IMMED inside a draw-state group");
			memset(grp, 0, sizeof(*grp));
			if (!count)
				continue;
			grp->addr = addr;
			grp->count = count;
			p->frame->progress = i + 1;
			enum cp_result r = run_group(cp, x, p, g);
			/* It ran once; it is not kept for later draws. */
			memset(grp, 0, sizeof(*grp));
			return r;
		}
		bool same = addr == grp->ran_addr && count == grp->ran_count;
		grp->addr = addr;
		grp->count = count;
		grp->mode_mask = CP_SET_DRAW_STATE_0_GET_ENABLE_MASK(d0);
		grp->pending = count && ((d0 & CP_SET_DRAW_STATE_0_DIRTY) || !same);
	}
	return CP_RESULT_DONE;
}

/* Fetches elements [first, first + num) of an index buffer of max_indices elements. The fetch is
 * bounded by MAX_INDICES ("max # of elements in index buffer"): elements past it are not read.
 * What is read must be mapped: an index buffer running off its BO is a GPU fault. */
static bool fetch_indices(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t base,
			  uint32_t first, uint32_t num, uint32_t max_indices, uint32_t elem, uint32_t *cost)
{
	if (first >= max_indices || num == 0)
		return true;
	uint64_t n = num < max_indices - first ? num : max_indices - first;
	uint64_t off = (uint64_t)first * elem, len = n * elem;
	if (base > UINT64_MAX - off - len) {
		/* Wrapping the 64-bit space reads unmapped memory at its top. */
		cp_mem_touch(m, x, p, UINT64_MAX & ~0xfffull, 1);
		return false;
	}
	*cost += (uint32_t)(len / 64);
	return cp_mem_touch(m, x, p, base + off, len);
}

static bool index_elem_size(uint32_t initiator, uint32_t *elem)
{
	switch (CP_DRAW_INITIATOR_GET_INDEX_SIZE(initiator)) {
	case INDEX4_SIZE_8_BIT: *elem = 1; return true;
	case INDEX4_SIZE_16_BIT: *elem = 2; return true;
	case INDEX4_SIZE_32_BIT: *elem = 4; return true;
	default: return false;
	}
}

/* Draws are counted as work the model does not execute (nothing is rasterized). */
static void count_draws(struct cp_device *cp, struct cp_exec *x, const struct pkt *p, uint64_t n)
{
	cp->draws += n;
	x->draws += n;
	sim_unmodeled_add(&x->unmodeled, SIM_UNMODELED_DRAW, n, pm4_opcode_name(p->opcode));
}

/* CP_DRAW_INDIRECT_MULTI: resumable per draw (frame progress = 1 + draws done). */
static enum cp_result draw_indirect_multi(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
					  const struct pkt *p, uint32_t budget, uint32_t *cost)
{
	uint32_t d[CP_DRAW_INDIRECT_MULTI_MAX_LEN] = { 0 };
	if (p->count < CP_DRAW_INDIRECT_MULTI_LEN || !cp_payload(m, x, p, 0, CP_DRAW_INDIRECT_MULTI_LEN, d))
		return p->count < CP_DRAW_INDIRECT_MULTI_LEN
			       ? cp_opcode_fault(x, p, "CP_DRAW_INDIRECT_MULTI shorter than 3 dwords")
			       : CP_RESULT_FAULT;
	uint32_t op = CP_DRAW_INDIRECT_MULTI_1_GET_OPCODE(d[CP_DRAW_INDIRECT_MULTI_OPCODE_DW]);
	struct cp_draw_indirect_multi_layout l;
	if (!cp_draw_indirect_multi_layout(op, &l))
		return cp_opcode_fault(x, p, "CP_DRAW_INDIRECT_MULTI with an unknown opcode");
	if (p->count < l.len)
		return cp_opcode_fault(x, p, "CP_DRAW_INDIRECT_MULTI shorter than its opcode's layout");
	if (!cp_payload(m, x, p, CP_DRAW_INDIRECT_MULTI_LEN, l.len - CP_DRAW_INDIRECT_MULTI_LEN,
			d + CP_DRAW_INDIRECT_MULTI_LEN))
		return CP_RESULT_FAULT;
	bool indexed = l.index_dw != 0;
	uint64_t index_base = indexed ? hw_addr64_at(d + l.index_dw) : 0;
	uint32_t max_indices = indexed ? d[l.max_indices_dw] : 0;
	uint64_t indirect = hw_addr64_at(d + l.indirect_dw);
	uint32_t stride = d[l.stride_dw];
	uint64_t draw_count = d[CP_DRAW_INDIRECT_MULTI_DRAW_COUNT_DW];
	if (l.indirect_count_dw) {
		uint32_t c;
		if (!cp_mem_read(m, x, p, hw_addr64_at(d + l.indirect_count_dw), &c, 4))
			return CP_RESULT_FAULT;
		if (c < draw_count)
			draw_count = c;
	}
	uint32_t elem = 0;
	if (indexed && !index_elem_size(d[CP_DRAW_INITIATOR_DW], &elem))
		return cp_opcode_fault(x, p, "draw with a reserved index size");
	uint64_t *progress = &p->frame->progress;
	for (uint64_t i = *progress - 1; i < draw_count; i++) {
		if (*cost >= budget) {
			*progress = 1 + i;
			return CP_RESULT_BUDGET;
		}
		uint64_t off = i * stride; /* < 2^64: both factors < 2^32 */
		if (indirect > UINT64_MAX - off - CP_DRAW_INDX_INDIRECT_RECORD_BYTES) {
			cp_mem_touch(m, x, p, UINT64_MAX & ~0xfffull, 1);
			return CP_RESULT_FAULT;
		}
		uint32_t args[5]; /* VkDrawIndirectCommand / VkDrawIndexedIndirectCommand */
		if (!cp_mem_read(m, x, p, indirect + off, args,
				 indexed ? CP_DRAW_INDX_INDIRECT_RECORD_BYTES : CP_DRAW_INDIRECT_RECORD_BYTES))
			return CP_RESULT_FAULT;
		if (indexed && !fetch_indices(m, x, p, index_base, args[2], args[0], max_indices, elem, cost))
			return CP_RESULT_FAULT;
		count_draws(cp, x, p, 1);
		*cost += 1;
	}
	return CP_RESULT_DONE;
}

enum cp_result cp_exec_draw(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
			    const struct pkt *p, uint32_t budget, uint32_t *cost)
{
	if (p->frame->kind == CP_FRAME_DRAW_STATE)
		return cp_opcode_fault(x, p, "draw packet inside a draw-state group");
	/* Strict mode fails the draw before anything of it runs. */
	if (cp->strict && p->frame->progress == 0 && !p->frame->started)
		return cp_unmodeled(cp, x, p, SIM_UNMODELED_DRAW, pm4_opcode_name(p->opcode));
	/* progress 0: the draw-state groups still run first. */
	if (p->frame->progress == 0) {
		for (unsigned g = 0; g < CP_SET_DRAW_STATE_MAX_GROUPS; g++) {
			const struct cp_draw_state_group *grp = &x->groups[g];
			if (grp->pending && grp->count && (grp->mode_mask & x->render_mode))
				return run_group(cp, x, p, g);
		}
		p->frame->progress = 1;
	}
	uint32_t d[CP_DRAW_INDX_OFFSET_DMA_LEN]; /* the longest fixed draw payload */
	uint32_t n = p->count < CP_DRAW_INDX_OFFSET_DMA_LEN ? p->count : CP_DRAW_INDX_OFFSET_DMA_LEN;
	if (n && !cp_payload(m, x, p, 0, n, d))
		return CP_RESULT_FAULT;
	uint32_t elem = 0;
	switch (p->opcode) {
	case CP_DRAW_INDX_OFFSET:
		if (n < CP_DRAW_INDX_OFFSET_LEN)
			return cp_opcode_fault(x, p, "CP_DRAW_INDX_OFFSET shorter than 3 dwords");
		if (CP_DRAW_INITIATOR_GET_SOURCE_SELECT(d[CP_DRAW_INITIATOR_DW]) == DI_SRC_SEL_DMA) {
			if (n < CP_DRAW_INDX_OFFSET_DMA_LEN)
				return cp_opcode_fault(x, p, "indexed CP_DRAW_INDX_OFFSET without an index buffer");
			if (!index_elem_size(d[CP_DRAW_INITIATOR_DW], &elem))
				return cp_opcode_fault(x, p, "draw with a reserved index size");
			if (!fetch_indices(m, x, p, hw_addr64_at(d + CP_DRAW_INDX_OFFSET_INDX_BASE_DW),
					   d[CP_DRAW_INDX_OFFSET_FIRST_INDX_DW], d[CP_DRAW_INDX_OFFSET_NUM_INDICES_DW],
					   d[CP_DRAW_INDX_OFFSET_MAX_INDICES_DW], elem, cost))
				return CP_RESULT_FAULT;
		}
		break;
	case CP_DRAW_INDIRECT: {
		uint32_t args[CP_DRAW_INDIRECT_RECORD_BYTES / 4];
		if (n < CP_DRAW_INDIRECT_LEN)
			return cp_opcode_fault(x, p, "CP_DRAW_INDIRECT shorter than 3 dwords");
		if (!cp_mem_read(m, x, p, hw_addr64_at(d + CP_DRAW_INDIRECT_INDIRECT_DW), args, sizeof(args)))
			return CP_RESULT_FAULT;
		break;
	}
	case CP_DRAW_INDX_INDIRECT: {
		uint32_t args[CP_DRAW_INDX_INDIRECT_RECORD_BYTES / 4];
		if (n < CP_DRAW_INDX_INDIRECT_LEN)
			return cp_opcode_fault(x, p, "CP_DRAW_INDX_INDIRECT shorter than 6 dwords");
		if (!index_elem_size(d[CP_DRAW_INITIATOR_DW], &elem))
			return cp_opcode_fault(x, p, "draw with a reserved index size");
		if (!cp_mem_read(m, x, p, hw_addr64_at(d + CP_DRAW_INDX_INDIRECT_INDIRECT_DW), args, sizeof(args)))
			return CP_RESULT_FAULT;
		if (!fetch_indices(m, x, p, hw_addr64_at(d + CP_DRAW_INDX_INDIRECT_INDX_BASE_DW), args[2], args[0],
				   d[CP_DRAW_INDX_INDIRECT_MAX_INDICES_DW], elem, cost))
			return CP_RESULT_FAULT;
		break;
	}
	case CP_DRAW_AUTO: {
		/* The vertex count comes from a transform-feedback byte count in memory. */
		uint32_t bytes;
		if (n < CP_DRAW_AUTO_LEN)
			return cp_opcode_fault(x, p, "CP_DRAW_AUTO shorter than 6 dwords");
		if (!cp_mem_read(m, x, p, hw_addr64_at(d + CP_DRAW_AUTO_NUM_VERTICES_BASE_DW), &bytes, 4))
			return CP_RESULT_FAULT;
		break;
	}
	default: /* CP_DRAW_INDIRECT_MULTI */
		return draw_indirect_multi(cp, m, x, p, budget, cost);
	}
	count_draws(cp, x, p, 1);
	return CP_RESULT_DONE;
}
