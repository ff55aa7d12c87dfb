/* The PM4 payload table (adreno_pm4_payload.h): every tabled packet is a named opcode, every
 * fixed field lies inside the length the table gives, addresses say what the CP does there, and
 * the per-opcode CP_DRAW_INDIRECT_MULTI layouts end with STRIDE. */
#include <string.h>

#include "ferry/hw/adreno_pm4_payload.h"
#include "test.h"

static uint32_t field_dwords(const struct pm4_payload_field *f)
{
	return f->kind == PM4_FIELD_ADDR ? 2u : 1u;
}

static void test_fields_inside(void)
{
	int tabled = 0;
	for (uint32_t op = 0; op <= PM4_TYPE7_OPCODE_MASK; op++) {
		const struct pm4_payload *l = pm4_payload(op);
		if (!l)
			continue;
		tabled++;
		CHECK(pm4_opcode_name(op) != NULL);
		CHECK(l->rule == PM4_LEN_FIXED || l->rule == PM4_LEN_MIN || l->rule == PM4_LEN_GROUPS);
		CHECK(l->rule != PM4_LEN_GROUPS || l->len > 0);
		for (uint32_t i = 0; i < l->nr_fields; i++) {
			const struct pm4_payload_field *f = &l->fields[i];
			CHECK(f->name && f->name[0]);
			CHECK((f->kind == PM4_FIELD_ADDR) == (f->use != PM4_ADDR_NONE));
			/* Optional fields of a MIN payload may sit in its longer forms. */
			if (!(f->optional && l->rule == PM4_LEN_MIN))
				CHECK(f->dw + field_dwords(f) <= l->len);
		}
	}
	CHECK(tabled > 40);
	CHECK(pm4_payload(0x80) == NULL);
	CHECK(pm4_payload(0xffffffffu) == NULL);
	CHECK(pm4_payload(CP_LOAD_STATE6) == NULL); /* not tabled: the walkers skip it by its count */
}

static void test_known_layouts(void)
{
	const struct pm4_payload *ib = pm4_payload(CP_INDIRECT_BUFFER);
	CHECK(ib && ib->rule == PM4_LEN_FIXED && ib->len == 3);
	const struct pm4_payload_field *f = pm4_payload_find(ib, PM4_ADDR_IB);
	CHECK(f && f->dw == CP_INDIRECT_BUFFER_BASE_DW && strcmp(f->name, "IB_BASE") == 0);

	const struct pm4_payload *ds = pm4_payload(CP_SET_DRAW_STATE);
	CHECK(ds && ds->rule == PM4_LEN_GROUPS && ds->len == 3);
	f = pm4_payload_find(ds, PM4_ADDR_DRAW_STATE);
	CHECK(f && f->dw == 1);

	/* The two packets a submit stalls in, and nothing else. */
	int waits = 0;
	for (uint32_t op = 0; op <= PM4_TYPE7_OPCODE_MASK; op++)
		if (pm4_payload_find(pm4_payload(op), PM4_ADDR_WAIT))
			waits++;
	CHECK_EQ(waits, 2);
	f = pm4_payload_find(pm4_payload(CP_WAIT_MEM_GTE), PM4_ADDR_WAIT);
	CHECK(f && f->dw == 1 && f->bytes == 4);

	f = pm4_payload_find(pm4_payload(CP_MEMCPY), PM4_ADDR_WRITE);
	CHECK(f && f->dw == 3 && strcmp(f->name, "DST") == 0);
	CHECK_EQ(pm4_payload(CP_COND_WRITE5)->len, 8);
	CHECK_EQ(pm4_payload(CP_SET_BIN_DATA5)->len, 7);
}

static void test_draw_indirect_multi(void)
{
	static const uint32_t ops[] = { INDIRECT_OP_NORMAL, INDIRECT_OP_INDEXED, INDIRECT_OP_INDIRECT_COUNT,
					INDIRECT_OP_INDIRECT_COUNT_INDEXED };
	static const uint32_t lens[] = { 6, 9, 8, 11 };
	for (unsigned i = 0; i < 4; i++) {
		struct cp_draw_indirect_multi_layout l = { 0 };
		CHECK(cp_draw_indirect_multi_layout(ops[i], &l));
		CHECK_EQ(l.len, lens[i]);
		CHECK(l.len <= CP_DRAW_INDIRECT_MULTI_MAX_LEN);
		CHECK_EQ(l.stride_dw, l.len - 1u);
		CHECK_EQ(l.indirect_dw, l.index_dw ? 6u : 3u);
		CHECK((l.index_dw != 0) == (l.max_indices_dw != 0));
	}
	struct cp_draw_indirect_multi_layout l;
	CHECK(!cp_draw_indirect_multi_layout(0, &l));
	CHECK(!cp_draw_indirect_multi_layout(0xf, &l));
}

int main(void)
{
	RUN_TEST(test_fields_inside);
	RUN_TEST(test_known_layouts);
	RUN_TEST(test_draw_indirect_multi);
	return test_finish();
}
