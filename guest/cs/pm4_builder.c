/* PM4 builder: packet headers from adreno_pm4.h, bounds-checked writes into the caller's buffer. */
#include "pm4_builder.h"

#include <stddef.h>

#include "ferry/hw/addr64.h"

void pm4_builder_init(struct pm4_builder *b, uint32_t *buf, uint32_t capacity_dwords)
{
	b->buf = buf;
	b->capacity = buf ? capacity_dwords : 0;
	b->len = 0;
	b->error = PM4_BUILDER_OK;
}

static void fail(struct pm4_builder *b, enum pm4_builder_error e)
{
	if (b->error == PM4_BUILDER_OK)
		b->error = e;
}

/* Room for n more dwords (a packet is written whole or not at all). */
static bool reserve(struct pm4_builder *b, uint32_t n)
{
	if (b->error != PM4_BUILDER_OK)
		return false;
	if (n > b->capacity - b->len) {
		fail(b, PM4_BUILDER_OVERFLOW);
		return false;
	}
	return true;
}

void pm4_pkt4(struct pm4_builder *b, uint32_t reg, const uint32_t *values, uint32_t count)
{
	if (count == 0 || count > PM4_TYPE4_MAX_COUNT || reg > PM4_TYPE4_REG_MASK ||
	    reg + count - 1 > PM4_TYPE4_REG_MASK || !values) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	if (!reserve(b, 1 + count))
		return;
	b->buf[b->len++] = pm4_type4_hdr(reg, count);
	for (uint32_t i = 0; i < count; i++)
		b->buf[b->len++] = values[i];
}

void pm4_pkt7(struct pm4_builder *b, uint32_t opcode, const uint32_t *payload, uint32_t count)
{
	if (opcode > PM4_TYPE7_OPCODE_MASK || count > PM4_TYPE7_MAX_COUNT || (count && !payload)) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	if (!reserve(b, 1 + count))
		return;
	b->buf[b->len++] = pm4_type7_hdr(opcode, count);
	for (uint32_t i = 0; i < count; i++)
		b->buf[b->len++] = payload[i];
}

void pm4_nop(struct pm4_builder *b, uint32_t padding_dwords)
{
	if (padding_dwords > PM4_TYPE7_MAX_COUNT) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	if (!reserve(b, 1 + padding_dwords))
		return;
	b->buf[b->len++] = pm4_type7_hdr(CP_NOP, padding_dwords);
	for (uint32_t i = 0; i < padding_dwords; i++)
		b->buf[b->len++] = 0;
}

void pm4_ib(struct pm4_builder *b, uint64_t iova, uint32_t size_dwords)
{
	if (size_dwords > CP_INDIRECT_BUFFER_2_SIZE_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_INDIRECT_BUFFER, hw_addr64_lo(iova), hw_addr64_hi(iova), size_dwords);
}

void pm4_mem_write(struct pm4_builder *b, uint64_t iova, const uint32_t *values, uint32_t count)
{
	if (count == 0 || count > PM4_TYPE7_MAX_COUNT - 2 || !values) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	if (!reserve(b, 3 + count))
		return;
	b->buf[b->len++] = pm4_type7_hdr(CP_MEM_WRITE, 2 + count);
	b->buf[b->len++] = hw_addr64_lo(iova);
	b->buf[b->len++] = hw_addr64_hi(iova);
	for (uint32_t i = 0; i < count; i++)
		b->buf[b->len++] = values[i];
}

void pm4_event_write(struct pm4_builder *b, uint32_t event)
{
	PM4_PKT7(b, CP_EVENT_WRITE, CP_EVENT_WRITE_0_EVENT(event));
}

void pm4_event_write_ts(struct pm4_builder *b, uint32_t event, uint64_t iova, uint32_t value)
{
	PM4_PKT7(b, CP_EVENT_WRITE, CP_EVENT_WRITE_0_EVENT(event), hw_addr64_lo(iova), hw_addr64_hi(iova), value);
}

void pm4_event_write_gpu_ts(struct pm4_builder *b, uint32_t event, uint64_t iova)
{
	PM4_PKT7(b, CP_EVENT_WRITE, CP_EVENT_WRITE_0_EVENT(event) | CP_EVENT_WRITE_0_TIMESTAMP, hw_addr64_lo(iova),
		 hw_addr64_hi(iova), 0);
}

void pm4_reg_to_mem(struct pm4_builder *b, uint32_t reg, uint32_t cnt, uint64_t iova, bool is_64b)
{
	if (cnt == 0 || cnt > CP_REG_TO_MEM_0_CNT_MASK || reg > PM4_PAYLOAD_REG_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_REG_TO_MEM,
		 CP_REG_TO_MEM_0_REG(reg) | CP_REG_TO_MEM_0_CNT(cnt) | (is_64b ? CP_REG_TO_MEM_0_64B : 0),
		 hw_addr64_lo(iova), hw_addr64_hi(iova));
}

void pm4_mem_to_reg(struct pm4_builder *b, uint32_t reg, uint32_t cnt, uint64_t iova)
{
	if (cnt == 0 || cnt > CP_MEM_TO_REG_0_CNT_MASK || reg > PM4_PAYLOAD_REG_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_MEM_TO_REG, CP_MEM_TO_REG_0_REG(reg) | CP_MEM_TO_REG_0_CNT(cnt), hw_addr64_lo(iova),
		 hw_addr64_hi(iova));
}

void pm4_memcpy(struct pm4_builder *b, uint64_t dst, uint64_t src, uint32_t dwords)
{
	PM4_PKT7(b, CP_MEMCPY, dwords, hw_addr64_lo(src), hw_addr64_hi(src), hw_addr64_lo(dst), hw_addr64_hi(dst));
}

static void wait_reg_mem(struct pm4_builder *b, enum cp_wait_function function, enum cp_poll_source poll,
			 uint64_t addr, uint32_t ref, uint32_t mask)
{
	if ((uint32_t)function > WRITE_GT) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_WAIT_REG_MEM, CP_WAIT_REG_MEM_0_FUNCTION(function) | CP_WAIT_REG_MEM_0_POLL(poll),
		 hw_addr64_lo(addr), hw_addr64_hi(addr), ref, mask, 16 /* DELAY_LOOP_CYCLES, as Mesa uses */);
}

void pm4_wait_mem(struct pm4_builder *b, enum cp_wait_function function, uint64_t iova, uint32_t ref,
		  uint32_t mask)
{
	wait_reg_mem(b, function, POLL_MEMORY, iova, ref, mask);
}

void pm4_wait_reg(struct pm4_builder *b, enum cp_wait_function function, uint32_t reg, uint32_t ref,
		  uint32_t mask)
{
	if (reg > PM4_PAYLOAD_REG_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	wait_reg_mem(b, function, POLL_REGISTER, reg, ref, mask);
}

void pm4_wait_for_idle(struct pm4_builder *b)
{
	PM4_PKT7_0(b, CP_WAIT_FOR_IDLE);
}

void pm4_wait_for_me(struct pm4_builder *b)
{
	PM4_PKT7_0(b, CP_WAIT_FOR_ME);
}

void pm4_ib_chain(struct pm4_builder *b, uint64_t iova, uint32_t size_dwords)
{
	if (size_dwords > CP_INDIRECT_BUFFER_2_SIZE_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_INDIRECT_BUFFER_CHAIN, hw_addr64_lo(iova), hw_addr64_hi(iova), size_dwords);
}

void pm4_wait_mem_gte(struct pm4_builder *b, uint64_t iova, uint32_t ref)
{
	PM4_PKT7(b, CP_WAIT_MEM_GTE, 0, hw_addr64_lo(iova), hw_addr64_hi(iova), ref);
}

void pm4_reg_rmw(struct pm4_builder *b, uint32_t reg, uint32_t and_mask, uint32_t value, uint32_t rotate,
		 bool add_not_or)
{
	if (reg > PM4_PAYLOAD_REG_MASK || rotate > 31) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_REG_RMW,
		 CP_REG_RMW_0_DST_REG(reg) | CP_REG_RMW_0_ROTATE(rotate) | (add_not_or ? CP_REG_RMW_0_SRC1_ADD : 0),
		 and_mask, value);
}

void pm4_mem_to_mem(struct pm4_builder *b, uint64_t dst, const uint64_t *srcs, uint32_t nr_srcs,
		    uint32_t neg_mask, bool is_64b)
{
	const uint32_t neg_bits = CP_MEM_TO_MEM_0_NEG_A | CP_MEM_TO_MEM_0_NEG_B | CP_MEM_TO_MEM_0_NEG_C;
	if (nr_srcs == 0 || nr_srcs > 16 || !srcs || (neg_mask & ~neg_bits)) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	uint32_t p[3 + 2 * 16];
	p[0] = neg_mask | (is_64b ? CP_MEM_TO_MEM_0_DOUBLE : 0);
	p[1] = hw_addr64_lo(dst);
	p[2] = hw_addr64_hi(dst);
	for (uint32_t i = 0; i < nr_srcs; i++) {
		p[3 + 2 * i] = hw_addr64_lo(srcs[i]);
		p[4 + 2 * i] = hw_addr64_hi(srcs[i]);
	}
	pm4_pkt7(b, CP_MEM_TO_MEM, p, 3 + 2 * nr_srcs);
}

void pm4_set_marker(struct pm4_builder *b, uint32_t mode)
{
	if (mode > CP_SET_MARKER_0_MODE_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_SET_MARKER, CP_SET_MARKER_0_MODE(mode));
}

void pm4_set_draw_state(struct pm4_builder *b, uint32_t group, uint32_t modes, uint32_t flags, uint64_t iova,
			uint32_t count)
{
	const uint32_t mode_bits = CP_SET_DRAW_STATE_0_BINNING | CP_SET_DRAW_STATE_0_GMEM | CP_SET_DRAW_STATE_0_SYSMEM;
	const uint32_t flag_bits = CP_SET_DRAW_STATE_0_DIRTY | CP_SET_DRAW_STATE_0_DISABLE |
				   CP_SET_DRAW_STATE_0_LOAD_IMMED;
	if (group >= CP_SET_DRAW_STATE_MAX_GROUPS || (modes & ~mode_bits) || (flags & ~flag_bits) ||
	    count > CP_SET_DRAW_STATE_0_COUNT_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_SET_DRAW_STATE,
		 CP_SET_DRAW_STATE_0_COUNT(count) | modes | flags | CP_SET_DRAW_STATE_0_GROUP_ID(group),
		 hw_addr64_lo(iova), hw_addr64_hi(iova));
}

void pm4_set_draw_state_disable_all(struct pm4_builder *b)
{
	PM4_PKT7(b, CP_SET_DRAW_STATE, CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS, 0, 0);
}

static bool index_size_field(uint32_t index_size, uint32_t *field)
{
	switch (index_size) {
	case 1: *field = INDEX4_SIZE_8_BIT; return true;
	case 2: *field = INDEX4_SIZE_16_BIT; return true;
	case 4: *field = INDEX4_SIZE_32_BIT; return true;
	default: return false;
	}
}

static uint32_t initiator(uint32_t prim, uint32_t src, uint32_t index_field)
{
	return CP_DRAW_INITIATOR_PRIM_TYPE(prim) | CP_DRAW_INITIATOR_SOURCE_SELECT(src) |
	       CP_DRAW_INITIATOR_VIS_CULL(USE_VISIBILITY) | CP_DRAW_INITIATOR_INDEX_SIZE(index_field);
}

void pm4_draw_auto_index(struct pm4_builder *b, uint32_t prim, uint32_t num_vertices, uint32_t num_instances)
{
	PM4_PKT7(b, CP_DRAW_INDX_OFFSET, initiator(prim, DI_SRC_SEL_AUTO_INDEX, 0), num_instances, num_vertices);
}

void pm4_draw_indexed(struct pm4_builder *b, uint32_t prim, uint32_t index_size, uint32_t num_indices,
		      uint32_t first_index, uint64_t index_iova, uint32_t max_indices)
{
	uint32_t f;
	if (!index_size_field(index_size, &f)) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_DRAW_INDX_OFFSET, initiator(prim, DI_SRC_SEL_DMA, f), 1, num_indices, first_index,
		 hw_addr64_lo(index_iova), hw_addr64_hi(index_iova), max_indices);
}

void pm4_draw_indirect(struct pm4_builder *b, uint32_t prim, uint64_t indirect_iova)
{
	PM4_PKT7(b, CP_DRAW_INDIRECT, initiator(prim, DI_SRC_SEL_AUTO_INDEX, 0), hw_addr64_lo(indirect_iova),
		 hw_addr64_hi(indirect_iova));
}

void pm4_draw_indx_indirect(struct pm4_builder *b, uint32_t prim, uint32_t index_size, uint64_t index_iova,
			    uint32_t max_indices, uint64_t indirect_iova)
{
	uint32_t f;
	if (!index_size_field(index_size, &f)) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_DRAW_INDX_INDIRECT, initiator(prim, DI_SRC_SEL_DMA, f), hw_addr64_lo(index_iova),
		 hw_addr64_hi(index_iova), max_indices, hw_addr64_lo(indirect_iova), hw_addr64_hi(indirect_iova));
}

void pm4_draw_indirect_multi(struct pm4_builder *b, uint32_t prim, uint32_t draw_count, uint64_t indirect_iova,
			     uint32_t stride, uint64_t count_iova)
{
	uint32_t d0 = initiator(prim, DI_SRC_SEL_AUTO_INDEX, 0);
	if (count_iova)
		PM4_PKT7(b, CP_DRAW_INDIRECT_MULTI, d0, CP_DRAW_INDIRECT_MULTI_1_OPCODE(INDIRECT_OP_INDIRECT_COUNT),
			 draw_count, hw_addr64_lo(indirect_iova), hw_addr64_hi(indirect_iova), hw_addr64_lo(count_iova),
			 hw_addr64_hi(count_iova), stride);
	else
		PM4_PKT7(b, CP_DRAW_INDIRECT_MULTI, d0, CP_DRAW_INDIRECT_MULTI_1_OPCODE(INDIRECT_OP_NORMAL), draw_count,
			 hw_addr64_lo(indirect_iova), hw_addr64_hi(indirect_iova), stride);
}

void pm4_draw_indirect_multi_indexed(struct pm4_builder *b, uint32_t prim, uint32_t index_size,
				     uint64_t index_iova, uint32_t max_indices, uint32_t draw_count,
				     uint64_t indirect_iova, uint32_t stride, uint64_t count_iova)
{
	uint32_t f;
	if (!index_size_field(index_size, &f)) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	uint32_t d0 = initiator(prim, DI_SRC_SEL_DMA, f);
	if (count_iova)
		PM4_PKT7(b, CP_DRAW_INDIRECT_MULTI, d0,
			 CP_DRAW_INDIRECT_MULTI_1_OPCODE(INDIRECT_OP_INDIRECT_COUNT_INDEXED), draw_count,
			 hw_addr64_lo(index_iova), hw_addr64_hi(index_iova), max_indices, hw_addr64_lo(indirect_iova),
			 hw_addr64_hi(indirect_iova), hw_addr64_lo(count_iova), hw_addr64_hi(count_iova), stride);
	else
		PM4_PKT7(b, CP_DRAW_INDIRECT_MULTI, d0, CP_DRAW_INDIRECT_MULTI_1_OPCODE(INDIRECT_OP_INDEXED), draw_count,
			 hw_addr64_lo(index_iova), hw_addr64_hi(index_iova), max_indices, hw_addr64_lo(indirect_iova),
			 hw_addr64_hi(indirect_iova), stride);
}

void pm4_draw_auto(struct pm4_builder *b, uint32_t prim, uint32_t num_instances, uint64_t count_iova,
		   uint32_t offset, uint32_t stride)
{
	PM4_PKT7(b, CP_DRAW_AUTO, initiator(prim, DI_SRC_SEL_AUTO_XFB, 0), num_instances, hw_addr64_lo(count_iova),
		 hw_addr64_hi(count_iova), offset, stride);
}

static void cond_exec(struct pm4_builder *b, uint32_t dw0, uint32_t dwords)
{
	if (dwords > CP_COND_REG_EXEC_DWORDS_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_COND_REG_EXEC, dw0, dwords);
}

void pm4_cond_exec_render_mode(struct pm4_builder *b, uint32_t modes, uint32_t dwords)
{
	const uint32_t bits = CP_COND_REG_EXEC_0_BINNING | CP_COND_REG_EXEC_0_GMEM | CP_COND_REG_EXEC_0_SYSMEM;
	if (modes & ~bits) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	cond_exec(b, CP_COND_REG_EXEC_0_MODE(RENDER_MODE) | modes, dwords);
}

void pm4_cond_exec_reg_compare(struct pm4_builder *b, uint32_t reg0, uint32_t reg1, uint32_t dwords)
{
	if (reg0 > PM4_PAYLOAD_REG_MASK || reg1 > PM4_PAYLOAD_REG_MASK || dwords > CP_COND_REG_EXEC_DWORDS_MASK) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_COND_REG_EXEC, CP_COND_REG_EXEC_0_MODE(REG_COMPARE) | CP_COND_REG_EXEC_0_REG0(reg0), reg1,
		 dwords);
}

void pm4_cond_exec_predicate(struct pm4_builder *b, uint32_t pred_bit, uint32_t dwords)
{
	if (pred_bit > 31) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	cond_exec(b, CP_COND_REG_EXEC_0_MODE(PRED_TEST) | CP_COND_REG_EXEC_0_PRED_BIT(pred_bit), dwords);
}

void pm4_reg_test(struct pm4_builder *b, uint32_t reg, uint32_t bit, uint32_t pred_bit)
{
	if (reg > PM4_PAYLOAD_REG_MASK || bit > 31 || pred_bit > 31) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_REG_TEST, CP_REG_TEST_0_REG(reg) | CP_REG_TEST_0_BIT(bit) | CP_REG_TEST_0_PRED_BIT(pred_bit));
}

void pm4_skip_ib2_enable(struct pm4_builder *b, bool global, uint32_t enable)
{
	PM4_PKT7(b, global ? CP_SKIP_IB2_ENABLE_GLOBAL : CP_SKIP_IB2_ENABLE_LOCAL, enable);
}
