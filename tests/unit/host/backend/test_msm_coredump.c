/* The msm backend's devcoredump parser: pagefault, hang and CP-error dumps in the a6xx format
 * (with ferry's submit and crash-location sections), and text it must not misread. */
#include "backend/msm.h"
#include "test.h"

static const char pagefault_dump[] =
	"---\n"
	"kernel: 6.1.0-ferry-sim\n"
	"module: msm\n"
	"time: 12.000000001\n"
	"comm: ferry\n"
	"revision: 630 (6.3.0.2)\n"
	"rbbm-status: 0x00000000\n"
	"pagefault-info:\n"
	"  - iova=0x00000001f0000000\n"
	"  - dir=WRITE\n"
	"  - type=TRANSLATION\n"
	"  - source=CP\n"
	"submit:\n"
	"  queue: 3\n"
	"  fence: 17\n"
	"  prio: 1\n"
	"crash-location:\n"
	"  ib-level: 1\n"
	"  ib-iova: 0x0000000100002000\n"
	"  ib-size: 8\n"
	"  dword: 4\n"
	"  packet: CP_LOAD_STATE6 (0x36)\n"
	"  header: 0x70360003\n"
	"registers:\n"
	"  - { offset: 0x0024a0, value: 0x00001000, name: CP_IB1_BASE }\n";

static const char hang_dump[] =
	"---\n"
	"kernel: 6.1.0-ferry-sim\n"
	"revision: 660 (6.6.0.1)\n"
	"hang:\n"
	"  - reason=no progress (hangcheck period 500 ms)\n"
	"submit:\n"
	"  queue: 1\n"
	"  fence: 2\n"
	"crash-location:\n"
	"  ib-level: 2\n"
	"  ib-iova: 0x0000000100004000\n"
	"  dword: 0\n"
	"  packet: PKT4 reg=0x0883\n";

static const char cp_error_dump[] =
	"---\n"
	"cp-error:\n"
	"  - reason=bad parity in packet header\n"
	"submit:\n"
	"  queue: 1\n"
	"  fence: 9\n"
	"crash-location:\n"
	"  ib-level: 1\n"
	"  ib-iova: 0x0000000100000000\n"
	"  dword: 2\n"
	"  packet: invalid\n";

static void test_pagefault(void)
{
	struct msm_fault f;
	msm_parse_coredump(pagefault_dump, &f);
	CHECK_EQ(f.kind, MSM_FAULT_PAGEFAULT);
	CHECK(f.have_iova);
	CHECK_EQ(f.iova, 0x1f0000000ull);
	CHECK(f.write);
	CHECK(f.have_submit);
	CHECK_EQ(f.queue_id, 3);
	CHECK_EQ(f.fence, 17);
	CHECK(f.have_location);
	CHECK_EQ(f.ib_level, 1);
	CHECK_EQ(f.ib_iova, 0x100002000ull);
	CHECK_EQ(f.ib_dword, 4);
	CHECK_EQ(f.opcode, 0x36);
}

static void test_hang(void)
{
	struct msm_fault f;
	msm_parse_coredump(hang_dump, &f);
	CHECK_EQ(f.kind, MSM_FAULT_HANG);
	CHECK(!f.have_iova);
	CHECK_EQ(f.queue_id, 1);
	CHECK_EQ(f.fence, 2);
	CHECK_EQ(f.ib_level, 2);
	CHECK_EQ(f.ib_iova, 0x100004000ull);
	CHECK_EQ(f.opcode, 0x100u | 0x883u);
}

static void test_cp_error_and_read_dir(void)
{
	struct msm_fault f;
	msm_parse_coredump(cp_error_dump, &f);
	CHECK_EQ(f.kind, MSM_FAULT_CP_ERROR);
	CHECK(!f.have_iova);
	CHECK_EQ(f.fence, 9);
	CHECK_EQ(f.ib_dword, 2);
	CHECK_EQ(f.opcode, 0);

	msm_parse_coredump("pagefault-info:\n  - iova=0000000100001000\n  - dir=READ\n", &f);
	CHECK_EQ(f.kind, MSM_FAULT_PAGEFAULT);
	CHECK_EQ(f.iova, 0x100001000ull); /* the kernel prints bare hex */
	CHECK(!f.write);
}

static void test_garbage(void)
{
	struct msm_fault f;
	msm_parse_coredump("", &f);
	CHECK_EQ(f.kind, MSM_FAULT_UNKNOWN);
	CHECK(!f.have_submit);
	/* Fields outside their section, and an overlong line, are ignored. */
	char big[1024];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	msm_parse_coredump("iova=0x1234\n  fence: 3\n", &f);
	CHECK(!f.have_iova);
	CHECK(!f.have_submit);
	msm_parse_coredump(big, &f);
	CHECK_EQ(f.kind, MSM_FAULT_UNKNOWN);
}

int main(void)
{
	RUN_TEST(test_pagefault);
	RUN_TEST(test_hang);
	RUN_TEST(test_cp_error_and_read_dir);
	RUN_TEST(test_garbage);
	return test_finish();
}
