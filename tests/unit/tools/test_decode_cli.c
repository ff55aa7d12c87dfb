/* Runs the real `ferry decode` (path in argv[1]) on files written to a temporary directory and
 * checks its exit codes and output: raw dumps, a fault report, an .rd capture, forced formats
 * and the errors for missing, empty, truncated and malformed files. */
#include <ftw.h>
#include <limits.h>
#include <unistd.h>

#include "cmd_output.h"
#include "decode_test_util.h"
#include "pm4_builder.h"
#include "rd_file.h"

static const char *ferry;
static char dir[] = "/tmp/ferry-decode-XXXXXX";

static void write_file(const char *name, const void *data, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	REQUIRE(f);
	REQUIRE(fwrite(data, 1, len, f) == len);
	REQUIRE(fclose(f) == 0);
}

/* Runs "ferry decode ARGS" in dir with stderr folded into stdout; returns the exit code. */
static int run(const char *args, char **output)
{
	return test_cmd_output(output, "cd '%s' && '%s' decode %s", dir, ferry, args);
}

static void test_raw(void)
{
	uint32_t w[16];
	struct pm4_builder b;
	pm4_builder_init(&b, w, 16);
	pm4_ib(&b, 0x100000000ull + 4 * 8, 2); /* an IB into the dump itself */
	pm4_mem_write(&b, 0x100000024ull, (const uint32_t[]){ 9 }, 1);
	REQUIRE(b.len == 8);
	pm4_wait_for_idle(&b);
	pm4_wait_for_me(&b);
	REQUIRE(pm4_builder_ok(&b));
	write_file("dump.bin", w, 4 * b.len);
	char *out;
	CHECK_EQ(run("--base 0x100000000 dump.bin", &out), 0);
	CHECK_HAS(out, "raw PM4 dump dump.bin: 10 dwords at 0x100000000");
	CHECK_HAS(out, "0x0000000100000000 dw 0     70bf8003  CP_INDIRECT_BUFFER (3 dwords)");
	CHECK_HAS(out, "--- IB2 at 0x100000020, 2 dwords ---");
	CHECK_HAS(out, "    0x0000000100000020 dw 0     70268000  CP_WAIT_FOR_IDLE");
	CHECK_HAS(out, "addr: 0x100000024 (bo 0 dump +0x24)");
	CHECK_HAS(out, "6 packets, 0 bad dwords skipped, 0 truncated packets, 1 IBs followed");
	free(out);
	CHECK_EQ(run("--no-follow dump.bin", &out), 0);
	CHECK_LACKS(out, "--- IB2");
	CHECK_HAS(out, "0x0000000000000010 dw 4 ");
	free(out);

	write_file("odd.bin", w, 7);
	CHECK_EQ(run("odd.bin", &out), 1);
	CHECK_HAS(out, "ferry decode: odd.bin: 7 bytes is not a whole number of dwords (raw PM4 dump)");
	free(out);
}

static void test_report(void)
{
	const char *text = "---\nkernel: 6.1.0-ferry-sim\nmodule: msm\ncomm: ferry\nrevision: 630 (6.3.0.2)\n"
			   "pagefault-info:\n  - iova=0x0000000180000000\n  - dir=WRITE\n  - type=TRANSLATION\n"
			   "  - source=CP\nsubmit:\n  queue: 0\n  fence: 1\n  prio: 1\ncrash-location:\n  ib-level: 1\n"
			   "  ib-iova: 0x0000000100000000\n  ib-size: 7\n  dword: 1\n  packet: CP_MEM_WRITE (0x3d)\n"
			   "  header: 0x703d8003\nregisters:\n  - { offset: 0x0024a0, value: 0x00000000, name: CP_IB1_BASE }\n";
	write_file("crash.devcore", text, strlen(text));
	char *out;
	CHECK_EQ(run("crash.devcore", &out), 0);
	CHECK_HAS(out, "fault report: GPU pagefault");
	CHECK_HAS(out, "ESTIMATED CRASH LOCATION! IB1 0x0000000100000000 dword 1: CP_MEM_WRITE (0x3d)");
	CHECK_HAS(out, "not in this report: BO contents");
	free(out);
	/* Forced formats are believed: binary data read as a report is a clear error. */
	CHECK_EQ(run("--format report dump.bin", &out), 1);
	CHECK_HAS(out, "ferry decode: dump.bin: malformed fault report: line 1: NUL byte: not a text report");
	free(out);

	const char *bad = "---\ncrash-location:\n  dword: lots\n";
	write_file("bad.devcore", bad, strlen(bad));
	CHECK_EQ(run("bad.devcore", &out), 1);
	CHECK_HAS(out, "ferry decode: bad.devcore: malformed fault report: line 3: bad crash-location dword");
	free(out);
}

static void test_rd(void)
{
	uint32_t cmd[4] = { pm4_type7_hdr(CP_WAIT_FOR_IDLE, 0), pm4_type7_hdr(CP_NOP, 0), 0, 0 };
	struct bytes b = { 0 };
	rd_put_dwords(&b, RD_GPU_ID, (const uint32_t[]){ 660 }, 1);
	rd_put_dwords(&b, RD_GPUADDR, (const uint32_t[]){ 0x1000, 16, 1 }, 3);
	rd_put_dwords(&b, RD_BUFFER_CONTENTS, cmd, 4);
	rd_put_dwords(&b, RD_CMDSTREAM_ADDR, (const uint32_t[]){ 0x1000, 2, 1 }, 3);
	write_file("cap.rd", b.p, b.len);
	char *out;
	CHECK_EQ(run("cap.rd", &out), 0);
	CHECK_HAS(out, "GPU_ID: 660");
	CHECK_HAS(out, "0x0000000100001004 dw 1     70108000  CP_NOP");
	CHECK_HAS(out, "1 submits, 1 cmdstreams, 2 packets");
	free(out);
	write_file("cut.rd", b.p, b.len - 2);
	CHECK_EQ(run("cut.rd", &out), 1);
	CHECK_HAS(out, "ferry decode: cut.rd: malformed .rd capture: section type 6 at offset");
	free(out);
	CHECK_EQ(run("--format rd crash.devcore", &out), 1);
	CHECK_HAS(out, "crash.devcore: not an .rd capture");
	free(out);
	free(b.p);
}

static void test_usage_errors(void)
{
	char *out;
	CHECK_EQ(run("missing.bin", &out), 1);
	CHECK_HAS(out, "ferry decode: missing.bin: cannot open: No such file or directory");
	free(out);
	write_file("empty.bin", "", 0);
	CHECK_EQ(run("empty.bin", &out), 1);
	CHECK_HAS(out, "ferry decode: empty.bin: empty file");
	free(out);
	CHECK_EQ(run("--format pdf dump.bin", &out), 2);
	CHECK_HAS(out, "unknown format 'pdf'");
	free(out);
	CHECK_EQ(run("--base nope dump.bin", &out), 2);
	CHECK_HAS(out, "bad --base 'nope'");
	free(out);
	CHECK_EQ(run("", &out), 2);
	CHECK_HAS(out, "usage: ferry decode");
	free(out);
	CHECK_EQ(run("--help", &out), 0);
	CHECK_HAS(out, "--format raw|report|rd");
	free(out);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	/* The commands run from the temporary directory: resolve the binary's path first. */
	static char ferry_path[4096];
	REQUIRE(realpath(argv[1], ferry_path));
	ferry = ferry_path;
	REQUIRE(mkdtemp(dir));
	RUN_TEST(test_raw);
	RUN_TEST(test_report);
	RUN_TEST(test_rd);
	RUN_TEST(test_usage_errors);
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	return test_finish();
}
