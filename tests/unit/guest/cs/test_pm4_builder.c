/* PM4 builder: header values against known encodings, parity round trips, payload layouts of
 * the helpers (also against the table in ferry/hw/adreno_pm4_payload.h, which the validator, the
 * CP model and the decoder read), and overflow/invalid-argument reporting. */
#include "ferry/hw/addr64.h"
#include "ferry/hw/adreno_pm4_payload.h"
#include "pm4_builder.h"
#include "test.h"

static void test_known_headers(void)
{
	uint32_t buf[64];
	struct pm4_builder b;
	pm4_builder_init(&b, buf, 64);
	PM4_PKT4(&b, 0x883, 0x1234);
	CHECK_EQ(buf[0], 0x48088301u);
	CHECK_EQ(buf[1], 0x1234u);
	CHECK_EQ(pm4_type7_hdr(CP_NOP, 0), 0x70108000u);
	CHECK_EQ(pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0), 0x70268000u);
	CHECK_EQ(pm4_type7_hdr(CP_WAIT_FOR_ME, 0), 0x70138000u);
	CHECK_EQ(pm4_type7_hdr(CP_INDIRECT_BUFFER, 3), 0x70bf8003u);
	CHECK_EQ(pm4_type7_hdr(CP_EVENT_WRITE, 1), 0x70460001u);
	CHECK_EQ(pm4_type7_hdr(CP_EVENT_WRITE, 4), 0x70460004u);
	CHECK_EQ(pm4_type7_hdr(CP_MEM_WRITE, 3), 0x703d8003u);
	CHECK_EQ(pm4_type7_hdr(CP_REG_TO_MEM, 3), 0x703e8003u);
	CHECK_EQ(pm4_type7_hdr(CP_MEM_TO_REG, 3), 0x70c28003u);
	CHECK_EQ(pm4_type7_hdr(CP_WAIT_REG_MEM, 6), 0x70bc8006u);
	CHECK_EQ(pm4_type7_hdr(CP_MEMCPY, 5), 0x70758005u);
	CHECK_EQ(pm4_type7_hdr(CP_SET_DRAW_STATE, 3), 0x70438003u);
	CHECK_EQ(pm4_type7_hdr(CP_DRAW_INDX_OFFSET, 7), 0x70380007u);
	CHECK_EQ(pm4_type7_hdr(CP_SMMU_TABLE_UPDATE, 4), 0x70d30004u);
	CHECK_EQ(pm4_type7_hdr(CP_SET_PROTECTED_MODE, 1), 0x70df0001u);
	CHECK_EQ(pm4_type7_hdr(CP_SET_MARKER, 1), 0x70e50001u);
	CHECK_EQ(pm4_type7_hdr(CP_EXEC_CS, 4), 0x70b30004u);
	/* The XML's own examples. */
	CHECK_EQ(pm4_type7_hdr(0x39, 1), 0x70b90001u);
	CHECK_EQ(pm4_type7_hdr(0x47, 2), 0x70c70002u);
	CHECK_EQ(pm4_type7_hdr(0x30, 11), 0x70b0000bu);
}

static void test_helpers_emit_exact_packets(void)
{
	uint32_t buf[128];
	struct pm4_builder b;
	pm4_builder_init(&b, buf, 128);
	pm4_nop(&b, 0);
	CHECK_EQ(buf[0], 0x70108000u);
	pm4_ib(&b, 0x123456789ull, 0x30);
	CHECK_EQ(buf[1], 0x70bf8003u);
	CHECK_EQ(buf[2], 0x23456789u);
	CHECK_EQ(buf[3], 0x1u);
	CHECK_EQ(buf[4], 0x30u);
	pm4_mem_write(&b, 0x100001000ull, (const uint32_t[]){ 7 }, 1);
	CHECK_EQ(buf[5], 0x703d8003u);
	CHECK_EQ(buf[6], 0x1000u);
	CHECK_EQ(buf[7], 0x1u);
	CHECK_EQ(buf[8], 7u);
	pm4_event_write_ts(&b, CACHE_FLUSH_TS, 0x100002000ull, 99);
	CHECK_EQ(buf[9], 0x70460004u);
	CHECK_EQ(buf[10], CACHE_FLUSH_TS); /* a value write: TIMESTAMP would write the GPU timestamp */
	CHECK_EQ(buf[11], 0x2000u);
	CHECK_EQ(buf[12], 1u);
	CHECK_EQ(buf[13], 99u);
	pm4_reg_to_mem(&b, 0x980, 2, 0x100003000ull, true);
	CHECK_EQ(buf[14], 0x703e8003u);
	CHECK_EQ(buf[15], 0x980u | (2u << 18) | (1u << 30));
	pm4_mem_to_reg(&b, 0x883, 3, 0x100004000ull);
	CHECK_EQ(buf[18], 0x70c28003u);
	CHECK_EQ(buf[19], 0x883u | (3u << 19));
	pm4_memcpy(&b, 0x100005000ull, 0x100006000ull, 16);
	CHECK_EQ(buf[22], 0x70758005u);
	CHECK_EQ(buf[23], 16u);
	CHECK_EQ(buf[24], 0x6000u); /* src first */
	CHECK_EQ(buf[26], 0x5000u);
	pm4_wait_mem(&b, WRITE_GE, 0x100007000ull, 5, 0xffffffffu);
	CHECK_EQ(buf[28], 0x70bc8006u);
	CHECK_EQ(buf[29], (uint32_t)WRITE_GE | (POLL_MEMORY << 4));
	CHECK_EQ(buf[32], 5u);
	CHECK_EQ(buf[33], 0xffffffffu);
	pm4_wait_for_idle(&b);
	CHECK_EQ(buf[35], 0x70268000u);
	pm4_wait_for_me(&b);
	CHECK_EQ(buf[36], 0x70138000u);
	pm4_event_write(&b, CACHE_INVALIDATE);
	CHECK_EQ(buf[37], 0x70460001u);
	CHECK_EQ(buf[38], (uint32_t)CACHE_INVALIDATE);
	CHECK(pm4_builder_ok(&b));
	CHECK_EQ(b.len, 39u);
	CHECK_EQ(pm4_builder_bytes(&b), 39u * 4);
}

/* The packet at pkt has a length the table allows and the address used as `use` where the table
 * puts it. */
static void check_tabled(const uint32_t *pkt, enum pm4_addr_use use, uint64_t want)
{
	CHECK(pm4_is_type7(pkt[0]));
	const struct pm4_payload *l = pm4_payload(pm4_type7_opcode(pkt[0]));
	CHECK(l != NULL);
	if (!l)
		return;
	uint32_t cnt = pm4_type7_count(pkt[0]);
	if (l->rule == PM4_LEN_FIXED)
		CHECK_EQ(cnt, l->len);
	else if (l->rule == PM4_LEN_GROUPS)
		CHECK_EQ(cnt % l->len, 0u);
	else
		CHECK(cnt >= l->len);
	const struct pm4_payload_field *f = pm4_payload_find(l, use);
	CHECK(f != NULL);
	if (f)
		CHECK_EQ(hw_addr64_at(pkt + 1 + f->dw), want);
}

static void test_helpers_match_payload_table(void)
{
	uint32_t buf[64];
	struct pm4_builder b;
#define EMIT(call)                     \
	pm4_builder_init(&b, buf, 64); \
	call;                          \
	CHECK(pm4_builder_ok(&b))
	EMIT(pm4_ib(&b, 0x100010000ull, 8));
	check_tabled(buf, PM4_ADDR_IB, 0x100010000ull);
	EMIT(pm4_ib_chain(&b, 0x100011000ull, 8));
	check_tabled(buf, PM4_ADDR_IB, 0x100011000ull);
	EMIT(pm4_mem_write(&b, 0x100012000ull, (const uint32_t[]){ 1, 2 }, 2));
	check_tabled(buf, PM4_ADDR_WRITE, 0x100012000ull);
	EMIT(pm4_event_write_ts(&b, CACHE_FLUSH_TS, 0x100013000ull, 5));
	check_tabled(buf, PM4_ADDR_WRITE, 0x100013000ull);
	EMIT(pm4_reg_to_mem(&b, 0x980, 2, 0x100014000ull, false));
	check_tabled(buf, PM4_ADDR_WRITE, 0x100014000ull);
	EMIT(pm4_mem_to_reg(&b, 0x883, 1, 0x100015000ull));
	check_tabled(buf, PM4_ADDR_READ, 0x100015000ull);
	EMIT(pm4_memcpy(&b, 0x100016000ull, 0x100017000ull, 4));
	check_tabled(buf, PM4_ADDR_READ, 0x100017000ull);
	check_tabled(buf, PM4_ADDR_WRITE, 0x100016000ull);
	EMIT(pm4_wait_mem(&b, WRITE_GE, 0x100018000ull, 1, ~0u));
	check_tabled(buf, PM4_ADDR_WAIT, 0x100018000ull);
	EMIT(pm4_wait_mem_gte(&b, 0x100019000ull, 1));
	check_tabled(buf, PM4_ADDR_WAIT, 0x100019000ull);
	EMIT(pm4_mem_to_mem(&b, 0x10001a000ull, (const uint64_t[]){ 0x10001b000ull }, 1, 0, false));
	check_tabled(buf, PM4_ADDR_WRITE, 0x10001a000ull);
	check_tabled(buf, PM4_ADDR_READ, 0x10001b000ull);
	EMIT(pm4_set_draw_state(&b, 3, CP_SET_DRAW_STATE_0_GMEM, 0, 0x10001c000ull, 4));
	check_tabled(buf, PM4_ADDR_DRAW_STATE, 0x10001c000ull);
	EMIT(pm4_draw_indexed(&b, DI_PT_TRILIST, 2, 3, 0, 0x10001d000ull, 3));
	check_tabled(buf, PM4_ADDR_READ, 0x10001d000ull);
	EMIT(pm4_draw_indirect(&b, DI_PT_TRILIST, 0x10001e000ull));
	check_tabled(buf, PM4_ADDR_READ, 0x10001e000ull);
	EMIT(pm4_draw_indx_indirect(&b, DI_PT_TRILIST, 4, 0x10001f000ull, 3, 0x100020000ull));
	check_tabled(buf, PM4_ADDR_READ, 0x10001f000ull);
	EMIT(pm4_draw_auto(&b, DI_PT_TRILIST, 1, 0x100021000ull, 0, 16));
	check_tabled(buf, PM4_ADDR_READ, 0x100021000ull);
#undef EMIT
}

static void test_parity_round_trips(void)
{
	int bad = 0;
	for (uint32_t op = 0; op < 0x80; op++) {
		for (uint32_t cnt = 0; cnt <= PM4_TYPE7_MAX_COUNT; cnt++) {
			uint32_t h = pm4_type7_hdr(op, cnt);
			if (!pm4_is_type7(h) || !pm4_type7_parity_ok(h) || pm4_type7_opcode(h) != op ||
			    pm4_type7_count(h) != cnt)
				bad++;
			/* Flipping either parity bit must be detected. */
			if (pm4_type7_parity_ok(h ^ (1u << 15)) || pm4_type7_parity_ok(h ^ (1u << 23)))
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
	bad = 0;
	for (uint32_t reg = 0; reg <= PM4_TYPE4_REG_MASK; reg += 7) {
		for (uint32_t cnt = 1; cnt <= PM4_TYPE4_MAX_COUNT; cnt++) {
			uint32_t h = pm4_type4_hdr(reg, cnt);
			if (!pm4_is_type4(h) || !pm4_type4_parity_ok(h) || pm4_type4_reg(h) != reg ||
			    pm4_type4_count(h) != cnt)
				bad++;
			if (pm4_type4_parity_ok(h ^ (1u << 7)) || pm4_type4_parity_ok(h ^ (1u << 27)))
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
}

static void test_overflow_reported(void)
{
	uint32_t buf[8];
	struct pm4_builder b;
	pm4_builder_init(&b, buf, 4);
	pm4_mem_write(&b, 0x100000000ull, (const uint32_t[]){ 1 }, 1); /* 4 dwords: fits exactly */
	CHECK(pm4_builder_ok(&b));
	buf[4] = 0xdeadbeef;
	pm4_nop(&b, 0);
	CHECK_EQ(b.error, PM4_BUILDER_OVERFLOW);
	CHECK_EQ(b.len, 4u);
	CHECK_EQ(buf[4], 0xdeadbeefu); /* nothing written past the capacity */
	/* Sticky: later packets that would fit are refused too. */
	pm4_builder_init(&b, buf, 8);
	pm4_ib(&b, 0, 1);
	pm4_ib(&b, 0, 1); /* 8 dwords total: fits */
	CHECK(pm4_builder_ok(&b));
	pm4_builder_init(&b, buf, 5);
	pm4_ib(&b, 0, 1);
	pm4_ib(&b, 0, 1);
	CHECK_EQ(b.error, PM4_BUILDER_OVERFLOW);
	CHECK_EQ(b.len, 4u);
	pm4_builder_init(&b, NULL, 100);
	pm4_nop(&b, 0);
	CHECK_EQ(b.error, PM4_BUILDER_OVERFLOW);
}

static void test_invalid_fields(void)
{
	uint32_t buf[256];
	uint32_t vals[128] = { 0 };
	struct pm4_builder b;
	pm4_builder_init(&b, buf, 256);
	pm4_pkt4(&b, 0x883, vals, 0x80);
	CHECK_EQ(b.error, PM4_BUILDER_INVALID);
	pm4_builder_init(&b, buf, 256);
	pm4_pkt4(&b, 0x883, vals, 0);
	CHECK_EQ(b.error, PM4_BUILDER_INVALID);
	pm4_builder_init(&b, buf, 256);
	pm4_pkt4(&b, 0x40000, vals, 1);
	CHECK_EQ(b.error, PM4_BUILDER_INVALID);
	pm4_builder_init(&b, buf, 256);
	pm4_pkt7(&b, 0x80, NULL, 0);
	CHECK_EQ(b.error, PM4_BUILDER_INVALID);
	pm4_builder_init(&b, buf, 256);
	pm4_ib(&b, 0, 0x100000);
	CHECK_EQ(b.error, PM4_BUILDER_INVALID);
	CHECK_EQ(b.len, 0u);
	pm4_builder_init(&b, buf, 256);
	pm4_pkt4(&b, 0x883, vals, 0x7f);
	CHECK(pm4_builder_ok(&b));
	CHECK_EQ(b.len, 0x80u);
}

int main(void)
{
	RUN_TEST(test_known_headers);
	RUN_TEST(test_helpers_emit_exact_packets);
	RUN_TEST(test_helpers_match_payload_table);
	RUN_TEST(test_parity_round_trips);
	RUN_TEST(test_overflow_reported);
	RUN_TEST(test_invalid_fields);
	return test_finish();
}
