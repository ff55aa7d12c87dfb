/* PM4 builder: packet headers from adreno_pm4.h, bounds-checked writes into the caller's buffer. */
#include "pm4_builder.h"

#include <stddef.h>

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
	if (opcode > 0x7f || count > PM4_TYPE7_MAX_COUNT || (count && !payload)) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	if (!reserve(b, 1 + count))
		return;
	b->buf[b->len++] = pm4_type7_hdr(opcode, count);
	for (uint32_t i = 0; i < count; i++)
		b->buf[b->len++] = payload[i];
}

static inline uint32_t lo32(uint64_t v) { return (uint32_t)v; }
static inline uint32_t hi32(uint64_t v) { return (uint32_t)(v >> 32); }

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
	PM4_PKT7(b, CP_INDIRECT_BUFFER, lo32(iova), hi32(iova), size_dwords);
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
	b->buf[b->len++] = lo32(iova);
	b->buf[b->len++] = hi32(iova);
	for (uint32_t i = 0; i < count; i++)
		b->buf[b->len++] = values[i];
}

void pm4_event_write(struct pm4_builder *b, uint32_t event)
{
	PM4_PKT7(b, CP_EVENT_WRITE, CP_EVENT_WRITE_0_EVENT(event));
}

void pm4_event_write_ts(struct pm4_builder *b, uint32_t event, uint64_t iova, uint32_t value)
{
	PM4_PKT7(b, CP_EVENT_WRITE, CP_EVENT_WRITE_0_EVENT(event) | CP_EVENT_WRITE_0_TIMESTAMP, lo32(iova),
		 hi32(iova), value);
}

void pm4_reg_to_mem(struct pm4_builder *b, uint32_t reg, uint32_t cnt, uint64_t iova, bool is_64b)
{
	if (cnt == 0 || cnt > 0xfff || reg > 0x3ffff) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_REG_TO_MEM,
		 CP_REG_TO_MEM_0_REG(reg) | CP_REG_TO_MEM_0_CNT(cnt) | (is_64b ? CP_REG_TO_MEM_0_64B : 0),
		 lo32(iova), hi32(iova));
}

void pm4_mem_to_reg(struct pm4_builder *b, uint32_t reg, uint32_t cnt, uint64_t iova)
{
	if (cnt == 0 || cnt > 0x7ff || reg > 0x3ffff) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_MEM_TO_REG, CP_MEM_TO_REG_0_REG(reg) | CP_MEM_TO_REG_0_CNT(cnt), lo32(iova),
		 hi32(iova));
}

void pm4_memcpy(struct pm4_builder *b, uint64_t dst, uint64_t src, uint32_t dwords)
{
	PM4_PKT7(b, CP_MEMCPY, dwords, lo32(src), hi32(src), lo32(dst), hi32(dst));
}

static void wait_reg_mem(struct pm4_builder *b, enum cp_wait_function function, enum cp_poll_source poll,
			 uint64_t addr, uint32_t ref, uint32_t mask)
{
	if ((uint32_t)function > WRITE_GT) {
		fail(b, PM4_BUILDER_INVALID);
		return;
	}
	PM4_PKT7(b, CP_WAIT_REG_MEM, CP_WAIT_REG_MEM_0_FUNCTION(function) | CP_WAIT_REG_MEM_0_POLL(poll),
		 lo32(addr), hi32(addr), ref, mask, 16 /* DELAY_LOOP_CYCLES, as Mesa uses */);
}

void pm4_wait_mem(struct pm4_builder *b, enum cp_wait_function function, uint64_t iova, uint32_t ref,
		  uint32_t mask)
{
	wait_reg_mem(b, function, POLL_MEMORY, iova, ref, mask);
}

void pm4_wait_reg(struct pm4_builder *b, enum cp_wait_function function, uint32_t reg, uint32_t ref,
		  uint32_t mask)
{
	if (reg > 0x3ffff) {
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
