/* pm4_opcode_name: every opcode of enum pm4_opcode has its own name, nothing else has one. */
#include <string.h>

#include "ferry/hw/adreno_pm4.h"
#include "test.h"

static void test_known_opcodes(void)
{
	CHECK(strcmp(pm4_opcode_name(CP_NOP), "CP_NOP") == 0);
	CHECK(strcmp(pm4_opcode_name(CP_INDIRECT_BUFFER), "CP_INDIRECT_BUFFER") == 0);
	CHECK(strcmp(pm4_opcode_name(CP_SET_DRAW_STATE), "CP_SET_DRAW_STATE") == 0);
	CHECK(strcmp(pm4_opcode_name(CP_SMMU_TABLE_UPDATE), "CP_SMMU_TABLE_UPDATE") == 0);
	CHECK(strcmp(pm4_opcode_name(CP_MEMCPY), "CP_MEMCPY") == 0);
	CHECK(strcmp(pm4_opcode_name(CP_REG_WR_NO_CTXT), "CP_REG_WR_NO_CTXT") == 0);
	CHECK(strcmp(pm4_opcode_name(CP_WAIT_REG_MEM), "CP_WAIT_REG_MEM") == 0);
}

static void test_every_slot(void)
{
	int named = 0;
	for (uint32_t op = 0; op < 0x80; op++) {
		const char *n = pm4_opcode_name(op);
		if (!n)
			continue;
		named++;
		CHECK(strncmp(n, "CP_", 3) == 0);
		for (uint32_t other = 0; other < op; other++) {
			const char *o = pm4_opcode_name(other);
			CHECK(!o || strcmp(o, n) != 0);
		}
	}
	/* enum pm4_opcode in adreno_pm4.h lists 77 opcodes. */
	CHECK_EQ(named, 77);
	CHECK(pm4_opcode_name(0) == NULL);
	CHECK(pm4_opcode_name(0x7f) == NULL);
	CHECK(pm4_opcode_name(0x80) == NULL);
	CHECK(pm4_opcode_name(0xffffffffu) == NULL);
}

int main(void)
{
	RUN_TEST(test_known_opcodes);
	RUN_TEST(test_every_slot);
	return test_finish();
}
