/* Fault-report decoding: a report produced by a real fault of the simulated GPU (in process,
 * through the kdev ioctls), a report carrying BO contents (msm's bos: with ascii85) and a
 * packet dump, a hang report, and malformed reports. */
#include "decode_test_util.h"
#include "fault_report.h"
#include "sim_helpers.h"

#define UNMAPPED 0x180000000ull

static char *print_str(const struct fault_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(fault_report_print(f, r, true), 0);
	fclose(f);
	return buf;
}

static void test_real_sim_fault(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct kdev *k = sim_msm_open(dev);
	REQUIRE(k);
	struct tbo cmd = tbo_new(k, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, cmd.cpu, 1024);
	pm4_wait_for_idle(&b);
	pm4_mem_write(&b, UNMAPPED, (const uint32_t[]){ 0xbad }, 1);
	pm4_nop(&b, 1);
	REQUIRE(pm4_builder_ok(&b));
	uint32_t fence = submit_ib(k, 0, &cmd, b.len);
	CHECK_EQ(wait_fence_ms(k, 0, fence, 5000), 0);
	static char text[1 << 16];
	ssize_t n = k->ops->coredump(k, text, sizeof(text));
	REQUIRE(n > 0);

	CHECK(fault_report_detect(text, (size_t)n));
	struct fault_report r;
	char err[256];
	REQUIRE(fault_report_parse(text, (size_t)n, &r, err, sizeof(err)) == 0);
	CHECK_EQ(r.kind, FAULT_REPORT_PAGEFAULT);
	CHECK(r.has_fault_iova);
	CHECK_EQ(r.fault_iova, UNMAPPED);
	CHECK(strcmp(r.dir, "WRITE") == 0);
	CHECK(r.has_crash);
	CHECK_EQ(r.ib_level, 1);
	CHECK_EQ(r.ib_iova, cmd.iova);
	CHECK_EQ(r.dword, 1);
	CHECK(strstr(r.packet, "CP_MEM_WRITE") != NULL);
	CHECK(r.nr_regs > 0);
	/* last-packets: oldest first, the crash packet last. */
	REQUIRE(r.nr_packets >= 2);
	const struct fault_report_packet *lp = &r.packets[r.nr_packets - 1];
	CHECK_EQ(lp->iova, cmd.iova + 4);
	CHECK_EQ(lp->dword, 1);
	CHECK_EQ(lp->header, pm4_type7_hdr(CP_MEM_WRITE, 3));
	CHECK_EQ(r.packets[r.nr_packets - 2].header, pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0));

	char *t = print_str(&r);
	char line[160];
	snprintf(line, sizeof(line), "ESTIMATED CRASH LOCATION! IB1 0x%016llx dword 1: CP_MEM_WRITE (0x3d)",
		 (unsigned long long)cmd.iova);
	CHECK_HAS(t, "fault report: GPU pagefault");
	CHECK_HAS(t, "fault iova: 0x180000000");
	CHECK_HAS(t, "dir=WRITE type=TRANSLATION source=CP");
	CHECK_HAS(t, line);
	snprintf(line, sizeof(line), "  IB1 0x%016llx dw 1     703d8003  CP_MEM_WRITE (3 dwords)   <-- ESTIMATED CRASH LOCATION",
		 (unsigned long long)cmd.iova + 4);
	CHECK_HAS(t, line);
	CHECK_HAS(t, "last packets (oldest first):\n");
	CHECK_LACKS(t, "not in this report: BO contents (bos:/ringbuffer: with data), last packets");
	CHECK_HAS(t, "registers:\n");
	CHECK_HAS(t, "CP_IB1_BASE");
	size_t with_data = 0;
	for (size_t i = 0; i < r.nr_mems; i++)
		with_data += r.mems[i].data_len != 0;
	if (with_data == 0) {
		/* Today's simulator carries no BO contents: the header alone, and the report says so. */
		CHECK_HAS(t, "header 0x703d8003: CP_MEM_WRITE (3 dwords) (payload not in the report)");
		CHECK_HAS(t, "not in this report: BO contents");
	} else {
		snprintf(line, sizeof(line), "ESTIMATED CRASH LOCATION!\n0x%016llx dw 1 ", (unsigned long long)cmd.iova + 4);
		CHECK_HAS(t, line);
	}
	free(t);
	fault_report_free(&r);
	tbo_free(k, &cmd);
	k->ops->close(k);
	sim_msm_device_destroy(dev);
}

/* A report as a real msm devcoredump would carry it: the IB in bos: as ascii85. */
static void test_report_with_bo_contents(void)
{
	uint32_t cmd[8] = { pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0), pm4_type7_hdr(CP_MEM_WRITE, 3), 0x00001000, 1, 5,
			    pm4_type7_hdr(CP_NOP, 0), 0, 0 };
	struct bytes b = { 0 };
	bytes_str(&b, "---\nkernel: 6.1.0\nmodule: msm\ncomm: app\nrevision: 630 (6.3.0.2)\nrbbm-status: 0x0\n"
		      "pagefault-info:\n  - iova=0x0000000100001000\n  - dir=WRITE\n  - type=PERMISSION\n  - source=CP\n"
		      "submit:\n  queue: 3\n  fence: 7\n  prio: 1\n"
		      "crash-location:\n  ib-level: 1\n  ib-iova: 0x0000000100000000\n  ib-size: 6\n  dword: 1\n"
		      "  packet: CP_MEM_WRITE (0x3d)\n  header: 0x703d8003\n"
		      "bos:\n  - iova: 0x0000000100000000\n    size: 4096\n    name: cmdstream\n    data: !!ascii85 |\n     ");
	ascii85_put(&b, cmd, 8);
	bytes_str(&b, "\n  - iova: 0x0000000100001000\n    size: 4096\n    name: target\n"
		      "packet-dump:\n  - iova: 0x0000000100000000\n    dwords: [0x70268000, 0x703d8003, 0x00001000,\n"
		      "      0x00000001, 0x00000005]\n"
		      "mystery:\n  stuff: 1\n");
	struct fault_report r;
	char err[256];
	REQUIRE(fault_report_parse((const char *)b.p, b.len, &r, err, sizeof(err)) == 0);
	CHECK_EQ(r.nr_mems, 3);
	CHECK_EQ(r.queue, 3);
	CHECK_EQ(r.fence, 7);
	char *t = print_str(&r);
	CHECK_HAS(t, "fault iova: 0x100001000 (bo 1 target +0x0) dir=WRITE type=PERMISSION source=CP");
	CHECK_HAS(t, "submit: queue 3 fence 7 prio 1");
	CHECK_HAS(t, "ESTIMATED CRASH LOCATION! IB1 0x0000000100000000 dword 1: CP_MEM_WRITE (0x3d)");
	CHECK_HAS(t, "IB1 at 0x0000000100000000 (6 dwords):\n0x0000000100000000 dw 0     70268000  CP_WAIT_FOR_IDLE");
	CHECK_HAS(t, "ESTIMATED CRASH LOCATION!\n0x0000000100000004 dw 1     703d8003  CP_MEM_WRITE (3 dwords)\n"
		     "        addr: 0x100001000 (bo 1 target +0x0)");
	CHECK_HAS(t, "dw 5     70108000  CP_NOP");
	CHECK_LACKS(t, "dw 6 "); /* ib-size bounds the decode */
	CHECK_HAS(t, "packet-dump at 0x0000000100000000 (5 dwords):");
	CHECK_HAS(t, "data[0]: 0x00000005");
	CHECK_HAS(t, "sections not decoded: mystery");
	CHECK_LACKS(t, "not in this report:");
	free(t);
	fault_report_free(&r);
	free(b.p);
}

static void test_hang_report(void)
{
	const char *text = "---\nrevision: 660 (6.6.0.1)\nhang:\n  - reason=no progress (hangcheck period 500 ms)\n"
			   "crash-location:\n  ib-level: 2\n  ib-iova: 0x0000000100004000\n  ib-size: 6\n  dword: 0\n"
			   "  packet: CP_WAIT_REG_MEM (0x3c)\n  frame: draw-state group 4\n"
			   "last-packets:\n  - { iova: 0x0000000100003ffc, level: 2, dword: 1023, header: 0x70268000, packet: CP_WAIT_FOR_IDLE }\n"
			   "  - { iova: 0x0000000100004000, level: 2, dword: 0, header: 0x70bc8006, packet: CP_WAIT_REG_MEM }\n"
			   "cp-state:\n  render-mode: gmem\n  draw-state: 4:6@0x100004000[GMEM]\n"
			   "registers:\n  - { offset: 0x002084, value: 0x00000001, name: ? }\n";
	CHECK(fault_report_detect(text, strlen(text)));
	struct fault_report r;
	char err[256];
	REQUIRE(fault_report_parse(text, strlen(text), &r, err, sizeof(err)) == 0);
	char *t = print_str(&r);
	CHECK_HAS(t, "fault report: GPU hang");
	CHECK_HAS(t, "reason: no progress (hangcheck period 500 ms)");
	CHECK_HAS(t, "ESTIMATED CRASH LOCATION! IB2 0x0000000100004000 dword 0: CP_WAIT_REG_MEM (0x3c)");
	CHECK_HAS(t, "  executing: draw-state group 4");
	CHECK_HAS(t, "  IB2 0x0000000100003ffc dw 1023  70268000  CP_WAIT_FOR_IDLE (0 dwords)\n"
		     "  IB2 0x0000000100004000 dw 0     70bc8006  CP_WAIT_REG_MEM (6 dwords)   <-- ESTIMATED CRASH LOCATION");
	CHECK_HAS(t, "cp state:\n  render-mode: gmem\n  draw-state: 4:6@0x100004000[GMEM]\n");
	CHECK_HAS(t, "CP_HW_FAULT              (0x0821) = 0x00000001"); /* "?" resolved by the decoder */
	CHECK_HAS(t, "not in this report: BO contents (bos:/ringbuffer: with data)\n");
	free(t);
	fault_report_free(&r);
}

/* A validated context's report: ferryd's "guest:" line maps the shadow IB back to the guest BO,
 * and the crash location is printed with the guest's address. */
static void test_validated_context_report(void)
{
	const char *text = "ferry: client 1 context 1 queue 0 seqno 1\n"
			   "guest: IB2 0x0000000100002100 (bo 7 +0x100), shadow 0x0000000100400000\n"
			   "---\nrevision: 630 (6.3.0.2)\nhang:\n  - reason=no progress\n"
			   "crash-location:\n  ib-level: 2\n  ib-iova: 0x0000000100400000\n  ib-size: 6\n"
			   "  dword: 0\n  packet: CP_WAIT_REG_MEM (0x3c)\n";
	struct fault_report r;
	char err[256];
	REQUIRE(fault_report_parse(text, strlen(text), &r, err, sizeof(err)) == 0);
	CHECK(r.has_guest);
	CHECK_EQ(r.guest_ib_iova, 0x100002100ull);
	CHECK_EQ(r.guest_bo, 7);
	char *t = print_str(&r);
	CHECK_HAS(t, "ESTIMATED CRASH LOCATION! IB2 0x0000000100002100 (bo 7 +0x100) dword 0: CP_WAIT_REG_MEM (0x3c)");
	CHECK_HAS(t, "shadow copy at 0x0000000100400000");
	free(t);
	fault_report_free(&r);
	/* A draw-state group suffix parses the same; an unknown guest line changes nothing. */
	const char *ds = "guest: IB2 0x0000000100002100 (bo 7 +0x100, draw-state group), shadow 0x0000000100400000\n"
			 "crash-location:\n  ib-level: 2\n  ib-iova: 0x0000000100400000\n  dword: 0\n";
	REQUIRE(fault_report_parse(ds, strlen(ds), &r, err, sizeof(err)) == 0);
	CHECK(r.has_guest && r.guest_bo_offset == 0x100);
	fault_report_free(&r);
	const char *unk = "guest: unknown (IB 0x0000000100400000 is no shadow copy of a submit in flight)\n"
			  "crash-location:\n  ib-level: 1\n  ib-iova: 0x0000000100400000\n  dword: 3\n";
	REQUIRE(fault_report_parse(unk, strlen(unk), &r, err, sizeof(err)) == 0);
	CHECK(!r.has_guest);
	t = print_str(&r);
	CHECK_HAS(t, "ESTIMATED CRASH LOCATION! IB1 0x0000000100400000 dword 3");
	free(t);
	fault_report_free(&r);
}

static void test_malformed_reports(void)
{
	struct fault_report r;
	char err[256];
	const char *bad_num = "---\ncrash-location:\n  ib-iova: 0xzz\n";
	CHECK_EQ(fault_report_parse(bad_num, strlen(bad_num), &r, err, sizeof(err)), -1);
	CHECK_HAS(err, "line 3: bad crash-location ib-iova");
	const char *bad_a85 = "bos:\n  - iova: 0x1000\n    data: !!ascii85 |\n      ~~~~~\n";
	CHECK_EQ(fault_report_parse(bad_a85, strlen(bad_a85), &r, err, sizeof(err)), -1);
	CHECK_HAS(err, "line 4: bad ascii85 data in section bos");
	const char *bad_lp = "---\nlast-packets:\n  - { level: 1, dword: 0 }\n";
	CHECK_EQ(fault_report_parse(bad_lp, strlen(bad_lp), &r, err, sizeof(err)), -1);
	CHECK_HAS(err, "line 3: last-packets entry without a valid iova");
	const char *nothing = "hello\nworld\n";
	CHECK(!fault_report_detect(nothing, strlen(nothing)));
	CHECK_EQ(fault_report_parse(nothing, strlen(nothing), &r, err, sizeof(err)), -1);
	CHECK_HAS(err, "no report fields found");
	const char nul[] = "---\nkernel: x\0y\n";
	CHECK_EQ(fault_report_parse(nul, sizeof(nul) - 1, &r, err, sizeof(err)), -1);
	CHECK_HAS(err, "NUL byte");
}

static void test_ascii85(void)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	const char *s = "z s8W-! !!!!\"";
	REQUIRE(fault_report_ascii85_decode(s, strlen(s), &buf, &len) == 0);
	REQUIRE(len == 12);
	const uint8_t want[12] = { 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0 };
	CHECK(memcmp(buf, want, 12) == 0);
	CHECK_EQ(fault_report_ascii85_decode("s8W-\"", 5, &buf, &len), -1); /* > 0xffffffff */
	CHECK_EQ(fault_report_ascii85_decode("!!!", 3, &buf, &len), -1);    /* short group */
	free(buf);
}

int main(void)
{
	RUN_TEST(test_real_sim_fault);
	RUN_TEST(test_report_with_bo_contents);
	RUN_TEST(test_hang_report);
	RUN_TEST(test_validated_context_report);
	RUN_TEST(test_malformed_reports);
	RUN_TEST(test_ascii85);
	return test_finish();
}
