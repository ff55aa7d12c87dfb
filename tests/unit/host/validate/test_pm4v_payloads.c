/* Payload lengths the validator demands match what the CP (Mesa's adreno_pm4.xml, and the
 * simulator) reads: CP_WAIT_MEM_GTE has 4 payload dwords (REF is the fourth), CP_COND_WRITE5
 * has 8 (the CP_WAIT_REG_MEM five, WRITE_ADDR lo/hi, WRITE_DATA). A shorter packet would let the
 * CP read the next header as payload, so it is rejected as malformed. */
#include "pm4v_harness.h"

static void test_wait_mem_gte_payload(void)
{
	const uint64_t end = DATA_IOVA + DATA_SIZE;
	struct harness h;
	harness_init(&h);
	PM4_PKT7(&h.b, CP_WAIT_MEM_GTE, 0, LO(DATA_IOVA), HI(DATA_IOVA), 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	pm4_wait_mem_gte(&h.b, end - 4, 7); /* the builder emits the 4-dword form */
	EXPECT_OK(&h);

	harness_reset(&h);
	PM4_PKT7(&h.b, CP_WAIT_MEM_GTE, 0, LO(DATA_IOVA), HI(DATA_IOVA)); /* no REF */
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	CHECK_EQ(h.err.opcode, CP_WAIT_MEM_GTE);
	CHECK(strstr(h.err.msg, "CP_WAIT_MEM_GTE") != NULL);
	CHECK(strstr(h.err.msg, "4 needed") != NULL);

	harness_reset(&h);
	PM4_PKT7(&h.b, CP_WAIT_MEM_GTE, 0, LO(end), HI(end), 1);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_fini(&h);
}

static void test_cond_write5_payload(void)
{
	const uint32_t mem_poll = CP_WAIT_REG_MEM_0_FUNCTION(WRITE_EQ) | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY);
	const uint64_t end = DATA_IOVA + DATA_SIZE;
	struct harness h;
	harness_init(&h);
	/* Memory poll, memory write: all eight dwords. */
	PM4_PKT7(&h.b, CP_COND_WRITE5, mem_poll | CP_WAIT_REG_MEM_0_WRITE_MEMORY, LO(DATA_IOVA),
		 HI(DATA_IOVA), 1, 0xffffffffu, LO(DATA_IOVA + 4), HI(DATA_IOVA + 4), 0x55);
	EXPECT_OK(&h);

	harness_reset(&h); /* seven: WRITE_DATA missing */
	PM4_PKT7(&h.b, CP_COND_WRITE5, mem_poll | CP_WAIT_REG_MEM_0_WRITE_MEMORY, LO(DATA_IOVA),
		 HI(DATA_IOVA), 1, 0xffffffffu, LO(DATA_IOVA + 4), HI(DATA_IOVA + 4));
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	CHECK_EQ(h.err.opcode, CP_COND_WRITE5);
	CHECK(strstr(h.err.msg, "8 needed") != NULL);

	harness_reset(&h); /* the write target is checked like any memory operand */
	PM4_PKT7(&h.b, CP_COND_WRITE5, mem_poll | CP_WAIT_REG_MEM_0_WRITE_MEMORY, LO(DATA_IOVA),
		 HI(DATA_IOVA), 1, 0xffffffffu, LO(end), HI(end), 0x55);
	EXPECT_RULE(&h, PM4V_ERR_ADDRESS);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_WRITE5, mem_poll | CP_WAIT_REG_MEM_0_WRITE_MEMORY, LO(DATA_IOVA),
		 HI(DATA_IOVA), 1, 0xffffffffu, LO(RO_IOVA), HI(RO_IOVA), 0x55);
	EXPECT_RULE(&h, PM4V_ERR_READONLY);

	/* Without WRITE_MEMORY the target is a register: a protected one is refused, with eight
	 * dwords as well. */
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_WRITE5, mem_poll, LO(DATA_IOVA), HI(DATA_IOVA), 1, 0xffffffffu,
		 0x0000 /* RBBM: write-protected */, 0, 1);
	EXPECT_RULE(&h, PM4V_ERR_PROTECTED_REG);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_WRITE5, mem_poll, LO(DATA_IOVA), HI(DATA_IOVA), 1, 0xffffffffu,
		 0x8800, 0, 1);
	EXPECT_OK(&h);
	harness_reset(&h);
	PM4_PKT7(&h.b, CP_COND_WRITE5, mem_poll, LO(DATA_IOVA), HI(DATA_IOVA), 1, 0xffffffffu, 0x8800, 0);
	EXPECT_RULE(&h, PM4V_ERR_MALFORMED);
	harness_fini(&h);
}

int main(void)
{
	RUN_TEST(test_wait_mem_gte_payload);
	RUN_TEST(test_cond_write5_payload);
	return test_finish();
}
