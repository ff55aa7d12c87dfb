/* Capture and replay end to end: ferryd --capture-dir/--crash-dir/--capture-trigger; `ferry
 * capture` (control socket) captures submits as .rd and session files (mode 0600, guest
 * addresses); `ferry replay` runs them on a fresh ferryd with the same results (BO dumps), the
 * same fault at the same location (iova, IB, dword), --first/--last/--override; the trigger file's
 * N / -1 / 0; the fault report's own capture; truncated and corrupt captures fail clearly. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control_client.h"
#include "debug/rd_file.h"
#include "ferry/session_file.h"
#include "itest.h"
#include "cmd_output.h"
#include "test.h"

static struct ferryd_proc ferryd;
static char root[64], cap_dir[96], crash_dir[96], trigger[96], work[96];

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *ferry_bin(void)
{
	const char *f = getenv("FERRY");
	REQUIRE(f && f[0]);
	return f;
}

static char *control(const char *req)
{
	char *answer = NULL;
	REQUIRE(control_request(ferryd.control, req, 10000, &answer) == 0);
	return answer;
}

/* Files in dir ending in suffix, counted; the newest-named one's path in last (if given). */
static int count_files(const char *dir, const char *suffix, char *last, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	char best[256] = "";
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), s = strlen(suffix);
		if (l > s && !strcmp(e->d_name + l - s, suffix)) {
			n++;
			if (strcmp(e->d_name, best) > 0)
				snprintf(best, sizeof(best), "%s", e->d_name);
		}
	}
	closedir(d);
	if (last)
		snprintf(last, len, "%s/%s", dir, best);
	return n;
}

static void clear_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char path[512];
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

static uint32_t read_u32_at(const char *path, size_t off)
{
	uint32_t v = 0xffffffffu;
	int fd = open(path, O_RDONLY);
	if (fd >= 0) {
		if (pread(fd, &v, 4, (off_t)off) != 4)
			v = 0xfffffffeu;
		close(fd);
	}
	return v;
}

/* A client writing value to data[slot] per submit, from its own 64-byte slice of an IB BO. */
struct writer {
	struct itest_client c;
	struct itest_bo ib, data;
};

static void writer_open(struct writer *w, uint32_t policy)
{
	memset(w, 0, sizeof(*w));
	REQUIRE(ferry_device_open(ferryd.uri, &w->c.dev) == 0);
	REQUIRE(ferry_context_create(w->c.dev, FERRY_FAMILY_MSM, policy, &w->c.ctx) == 0);
	REQUIRE(ferry_queue_create(w->c.ctx, 0, &w->c.q) == 0);
	REQUIRE(itest_bo_new(w->c.ctx, 4096, &w->ib) == 0);
	REQUIRE(itest_bo_new(w->c.ctx, 4096, &w->data) == 0);
	memset(w->data.cpu, 0, 4096);
}

static void writer_close(struct writer *w)
{
	ferry_bo_close(w->ib.bo);
	ferry_bo_close(w->data.bo);
	itest_client_close(&w->c);
}

static int writer_submit(struct writer *w, uint32_t slot, uint32_t value, bool wait)
{
	struct pm4_builder pb;
	pm4_builder_init(&pb, w->ib.cpu + slot * 16, 16);
	pm4_mem_write(&pb, w->data.iova + 4ull * slot, &value, 1);
	REQUIRE(pm4_builder_ok(&pb));
	uint32_t seqno;
	int r = itest_submit(&w->c, w->ib.bo, slot * 64, pm4_builder_bytes(&pb), &w->data.bo, 1, &seqno);
	if (r == 0 && wait)
		r = ferry_fence_wait(w->c.q, seqno, ITEST_WAIT_NS);
	return r;
}

static void test_capture_and_replay(void)
{
	clear_dir(cap_dir);
	char *a = control("capture start --count 2");
	CHECK(!strncmp(a, "ok\ncapture: on\n", 15));
	free(a);
	struct writer w;
	writer_open(&w, FERRY_POLICY_VALIDATED);
	CHECK_EQ(writer_submit(&w, 1, 0x11111111u, true), 0);
	CHECK_EQ(writer_submit(&w, 2, 0x22222222u, true), 0);
	CHECK_EQ(writer_submit(&w, 3, 0x33333333u, true), 0); /* past the count: not captured */
	a = control("capture status");
	CHECK(strstr(a, "capture: off\n") && strstr(a, "captured: 2\n"));
	free(a);
	char rd[256], ses[256];
	CHECK_EQ(count_files(cap_dir, ".rd", rd, sizeof(rd)), 2);
	CHECK_EQ(count_files(cap_dir, ".ferrycap", ses, sizeof(ses)), 2);
	struct stat st;
	CHECK(stat(rd, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(stat(ses, &st) == 0 && (st.st_mode & 0777) == 0600);

	/* The .rd against the format facts: GPU_ID, CHIP_ID, CMD, GPUADDR(12 bytes) + contents,
	 * CMDSTREAM_ADDR at the guest's IB address (not a shadow) with the size in dwords. */
	int fd = open(rd, O_RDONLY);
	REQUIRE(fd >= 0);
	uint8_t buf[16384];
	ssize_t len = read(fd, buf, sizeof(buf));
	close(fd);
	REQUIRE(len > 0);
	uint32_t hdr[2];
	memcpy(hdr, buf, 8);
	CHECK_EQ(hdr[0], (uint32_t)RD_GPU_ID);
	CHECK_EQ(hdr[1], 4u);
	CHECK_EQ(buf[8] | buf[9] << 8, 630);
	struct rd_reader rr;
	struct rd_section s;
	char err[128];
	rd_reader_init(&rr, buf, (size_t)len);
	uint32_t order[16], n = 0;
	bool ib_seen = false, cs_ok = false;
	while (rd_next_section(&rr, &s, err, sizeof(err)) > 0 && n < 16) {
		order[n++] = s.type;
		if (s.type == RD_CHIP_ID)
			CHECK_EQ(s.size, 8u);
		if (s.type == RD_GPUADDR) {
			CHECK_EQ(s.size, 12u);
			uint32_t v[3];
			memcpy(v, s.payload, 12);
			if (((uint64_t)v[2] << 32 | v[0]) == w.ib.iova) {
				CHECK_EQ(v[1], 4096u);
				ib_seen = true;
			}
		}
		if (s.type == RD_CMDSTREAM_ADDR) {
			uint32_t v[3];
			memcpy(v, s.payload, 12);
			cs_ok = ((uint64_t)v[2] << 32 | v[0]) == w.ib.iova + 2 * 64 && v[1] == 4; /* slot 2: 4 dwords */
		}
	}
	CHECK(n >= 5 && order[0] == RD_GPU_ID && order[1] == RD_CHIP_ID && order[2] == RD_CMD && order[3] == RD_GPUADDR);
	CHECK(ib_seen);
	CHECK(cs_ok);
	char *out;
	CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s'", ferry_bin(), rd), 0);
	CHECK(strstr(out, "CP_MEM_WRITE") != NULL);
	free(out);
	/* The session decodes too: its records listed, the submit's PM4 from the BO snapshots, the
	 * write's target annotated with its BO. */
	CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s'", ferry_bin(), ses), 0);
	char bo_note[64]; /* the write lands in the first page of the data BO (bo 2) */
	snprintf(bo_note, sizeof(bo_note), "addr: 0x%llx", (unsigned long long)(w.data.iova >> 12));
	CHECK(strstr(out, "family msm") && strstr(out, "BO_SNAPSHOT") && strstr(out, "(synth)") &&
	      strstr(out, "CP_MEM_WRITE") && strstr(out, bo_note) && strstr(out, " (bo 2 +0x"));
	if (!strstr(out, bo_note))
		fprintf(stderr, "decode of %s said:\n%s\n", ses, out);
	free(out);

	/* Both formats replay on a fresh ferryd and write what the original wrote. */
	const char *files[2] = { rd, ses };
	for (int i = 0; i < 2; i++) {
		char dump[128];
		snprintf(dump, sizeof(dump), "%s/dump%d", work, i);
		int st2 = test_cmd_output(&out, "'%s' replay '%s' --dump-bo '%s'", ferry_bin(), files[i], dump);
		CHECK_EQ(st2, 0);
		CHECK(strstr(out, "submit 0: ") && strstr(out, "fence 0 ok"));
		if (st2)
			fprintf(stderr, "%s\n", out);
		free(out);
		char path[256];
		/* The data BO at its captured address: slot 2 written by the replayed submit. */
		int nb = 0;
		DIR *d = opendir(dump);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char want[64];
			snprintf(want, sizeof(want), "-0x%llx.bin", (unsigned long long)w.data.iova);
			size_t l = strlen(e->d_name);
			if (l > strlen(want) && !strcmp(e->d_name + l - strlen(want), want)) {
				REQUIRE(snprintf(path, sizeof(path), "%s/%s", dump, e->d_name) < (int)sizeof(path));
				CHECK_EQ(read_u32_at(path, 8), 0x22222222u);
				CHECK_EQ(read_u32_at(path, 12), 0u);
				nb++;
			}
		}
		if (d)
			closedir(d);
		CHECK_EQ(nb, 1);
	}
	writer_close(&w);
}

/* A BO imported from another client is captured like any BO of the submitting context (a
 * synthesized create at its iova there): the capture replays alone. */
static void test_capture_imported_bo(void)
{
	clear_dir(cap_dir);
	struct writer w;
	writer_open(&w, FERRY_POLICY_VALIDATED);
	struct itest_client b;
	REQUIRE(itest_client_open(ferryd.uri, &b) == 0);
	struct ferry_bo *imp = NULL;
	REQUIRE(ferry_bo_import(b.ctx, ferry_bo_fd(w.data.bo), &imp) == 0);
	uint64_t iova = 0;
	REQUIRE(ferry_bo_iova(imp, &iova) == 0);
	struct itest_bo ib;
	REQUIRE(itest_bo_new(b.ctx, 4096, &ib) == 0);
	struct pm4_builder pb;
	pm4_builder_init(&pb, ib.cpu, 16);
	uint32_t v = 0x12121212u;
	pm4_mem_write(&pb, iova + 4 * 4, &v, 1);
	REQUIRE(pm4_builder_ok(&pb));
	free(control("capture start --count 1"));
	uint32_t seqno;
	CHECK_EQ(itest_submit(&b, ib.bo, 0, pm4_builder_bytes(&pb), &imp, 1, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(b.q, seqno, ITEST_WAIT_NS), 0);
	CHECK_EQ(w.data.cpu[4], v);
	char ses[256];
	CHECK_EQ(count_files(cap_dir, ".ferrycap", ses, sizeof(ses)), 1);
	char dump[128], *out;
	snprintf(dump, sizeof(dump), "%s/dump-import", work);
	int st = test_cmd_output(&out, "'%s' replay '%s' --dump-bo '%s'", ferry_bin(), ses, dump);
	CHECK_EQ(st, 0);
	CHECK(strstr(out, "fence 0 ok") != NULL);
	if (st)
		fprintf(stderr, "%s\n", out);
	free(out);
	/* The imported BO at the importer's address with the replayed write (a BO the submit only
	 * writes gets no snapshot). */
	int nb = 0;
	DIR *d = opendir(dump);
	struct dirent *e;
	char want[64], path[256];
	snprintf(want, sizeof(want), "-0x%llx.bin", (unsigned long long)iova);
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > strlen(want) && !strcmp(e->d_name + l - strlen(want), want)) {
			REQUIRE(snprintf(path, sizeof(path), "%s/%s", dump, e->d_name) < (int)sizeof(path));
			CHECK_EQ(read_u32_at(path, 16), v);
			nb++;
		}
	}
	if (d)
		closedir(d);
	CHECK_EQ(nb, 1);
	ferry_bo_close(ib.bo);
	ferry_bo_close(imp);
	itest_client_close(&b);
	writer_close(&w);
}

/* The report text's line starting with key, copied into buf. */
static bool report_line(const char *text, const char *key, char *buf, size_t len)
{
	const char *p = strstr(text, key);
	if (!p)
		return false;
	const char *end = strchr(p, '\n');
	snprintf(buf, len, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	return true;
}

static char *newest_report(void)
{
	char path[256];
	if (count_files(crash_dir, ".txt", path, sizeof(path)) == 0)
		return NULL;
	FILE *f = fopen(path, "r");
	REQUIRE(f);
	char *text = calloc(1, 1 << 20);
	REQUIRE(text);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* A write to an address no BO holds: the fault, its report and its capture; replays of the
 * capture fault at the same place. With capture on, the capture is the submit-time one. */
static void fault_case(bool capture_on)
{
	clear_dir(crash_dir);
	clear_dir(cap_dir);
	if (capture_on)
		free(control("capture start --count 1 --full"));
	struct writer w;
	writer_open(&w, FERRY_POLICY_PASSTHROUGH);
	struct pm4_builder pb;
	pm4_builder_init(&pb, w.ib.cpu, 64);
	pm4_nop(&pb, 2);
	uint32_t v = 0xbad;
	pm4_mem_write(&pb, 0x7f00000000ull, &v, 1);
	REQUIRE(pm4_builder_ok(&pb));
	uint32_t seqno;
	REQUIRE(itest_submit(&w.c, w.ib.bo, 0, pm4_builder_bytes(&pb), &w.data.bo, 1, &seqno) == 0);
	CHECK_EQ(ferry_fence_wait(w.c.q, seqno, ITEST_WAIT_NS), -EIO);
	char *text = NULL;
	for (int64_t end = now_ms() + 10000; !text && now_ms() < end; usleep(20000))
		text = newest_report();
	REQUIRE(text);
	char iova_line[128], where[256], capline[1024];
	CHECK(report_line(text, "fault-iova: ", iova_line, sizeof(iova_line)));
	CHECK(strstr(iova_line, "0x0000007f00000000") != NULL);
	CHECK(report_line(text, "ESTIMATED CRASH LOCATION: ", where, sizeof(where)));
	REQUIRE(report_line(text, "capture: ", capline, sizeof(capline)));
	CHECK(strstr(capline, capture_on ? "snapshots at submit time" : "post-mortem") != NULL);
	char rd[256], ses[256];
	CHECK_EQ(count_files(crash_dir, ".rd", rd, sizeof(rd)), 1);
	CHECK_EQ(count_files(crash_dir, ".ferrycap", ses, sizeof(ses)), 1);
	CHECK(strstr(capline, rd) && strstr(capline, ses));
	struct stat st;
	CHECK(stat(rd, &st) == 0 && (st.st_mode & 0777) == 0600);

	/* Reproduced on a fresh ferryd: the same fault address and crash location, from the session
	 * (its passthrough context) and from the .rd (run passthrough on the private ferryd). */
	const char *files[2] = { ses, rd };
	for (int i = 0; i < 2; i++) {
		char *out;
		CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s'", ferry_bin(), files[i]), 0);
		char ib_hex[48];
		snprintf(ib_hex, sizeof(ib_hex), "ib 0x%016llx dword 3 ", (unsigned long long)w.ib.iova);
		CHECK(strstr(out, "fence -5 fault (EIO)") != NULL);
		CHECK(strstr(out, "iova 0x0000007f00000000") && strstr(out, ib_hex));
		CHECK(strstr(out, iova_line) != NULL);
		CHECK(strstr(out, where) != NULL);
		if (!strstr(out, where) || !strstr(out, ib_hex))
			fprintf(stderr, "report:\n%s\nreplay of %s:\n%s\n", text, files[i], out);
		free(out);
	}
	free(text);
	writer_close(&w);
}

static void test_fault_post_mortem(void)
{
	fault_case(false);
}

/* The post-mortem capture copies the command buffers whole but at most 64 MiB of the other BOs,
 * and says in its NOTE what it left out. */
static void test_fault_post_mortem_capped(void)
{
	clear_dir(crash_dir);
	struct writer w;
	writer_open(&w, FERRY_POLICY_PASSTHROUGH);
	struct itest_bo big[2];
	for (int i = 0; i < 2; i++)
		REQUIRE(itest_bo_new(w.c.ctx, 48u << 20, &big[i]) == 0);
	struct pm4_builder pb;
	pm4_builder_init(&pb, w.ib.cpu, 64);
	uint32_t v = 0xbad;
	pm4_mem_write(&pb, 0x7f00000000ull, &v, 1);
	REQUIRE(pm4_builder_ok(&pb));
	struct ferry_bo *writes[2] = { big[0].bo, big[1].bo };
	uint32_t seqno;
	REQUIRE(itest_submit(&w.c, w.ib.bo, 0, pm4_builder_bytes(&pb), writes, 2, &seqno) == 0);
	CHECK_EQ(ferry_fence_wait(w.c.q, seqno, ITEST_WAIT_NS), -EIO);
	char ses[256] = "";
	for (int64_t end = now_ms() + 10000; now_ms() < end; usleep(20000)) {
		char *text = newest_report();
		bool reported = text != NULL;
		free(text);
		if (reported && count_files(crash_dir, ".ferrycap", ses, sizeof(ses)) == 1)
			break;
	}
	REQUIRE(ses[0]);
	struct stat st;
	REQUIRE(stat(ses, &st) == 0);
	/* One 48 MiB BO copied, the other left out. */
	CHECK(st.st_size > (48 << 20) && st.st_size < (64 << 20));
	FILE *f = fopen(ses, "rb");
	REQUIRE(f);
	char *data = malloc((size_t)st.st_size);
	REQUIRE(data);
	size_t n = fread(data, 1, (size_t)st.st_size, f);
	fclose(f);
	CHECK(memmem(data, n, "truncated: 1 BOs (50331648 bytes) not copied", 44) != NULL);
	free(data);
	for (int i = 0; i < 2; i++)
		ferry_bo_close(big[i].bo);
	writer_close(&w);
}

static void test_fault_with_capture(void)
{
	fault_case(true);
}

static void write_trigger(const char *value)
{
	/* Written to a temp name and renamed in: the poller never sees a half-written file. */
	char tmp[128];
	snprintf(tmp, sizeof(tmp), "%s.tmp", trigger);
	FILE *f = fopen(tmp, "w");
	REQUIRE(f);
	fputs(value, f);
	fclose(f);
	REQUIRE(rename(tmp, trigger) == 0);
}

static bool wait_status(const char *want)
{
	for (int64_t end = now_ms() + 10000; now_ms() < end; usleep(20000)) {
		char *a = control("capture status");
		bool ok = strstr(a, want) != NULL;
		free(a);
		if (ok)
			return true;
	}
	return false;
}

static void test_trigger_file(void)
{
	clear_dir(cap_dir);
	struct writer w;
	writer_open(&w, FERRY_POLICY_VALIDATED);
	write_trigger("2\n");
	CHECK(wait_status("capture: on\n"));
	for (uint32_t i = 0; i < 3; i++)
		CHECK_EQ(writer_submit(&w, i, i + 1, true), 0);
	CHECK_EQ(count_files(cap_dir, ".ferrycap", NULL, 0), 2); /* N: the next N submits */
	CHECK(wait_status("capture: off\n"));

	write_trigger("-1\n");
	CHECK(wait_status("capture: on\n"));
	for (uint32_t i = 0; i < 3; i++)
		CHECK_EQ(writer_submit(&w, i, i + 1, true), 0);
	CHECK_EQ(count_files(cap_dir, ".ferrycap", NULL, 0), 5); /* -1: every submit */
	write_trigger("0\n");
	CHECK(wait_status("capture: off\n"));
	CHECK_EQ(writer_submit(&w, 4, 5, true), 0);
	CHECK_EQ(count_files(cap_dir, ".ferrycap", NULL, 0), 5); /* 0: stopped */
	writer_close(&w);
}

static void test_first_last_override(void)
{
	clear_dir(cap_dir);
	free(control("capture start --combined --format session"));
	struct writer w;
	writer_open(&w, FERRY_POLICY_VALIDATED);
	for (uint32_t i = 0; i < 3; i++)
		CHECK_EQ(writer_submit(&w, i, 0xa0 + i, true), 0);
	free(control("capture stop"));
	char ses[256];
	REQUIRE(count_files(cap_dir, ".ferrycap", ses, sizeof(ses)) == 1);
	CHECK_EQ(count_files(cap_dir, ".rd", NULL, 0), 0);

	char dump[128], *out, path[256];
	snprintf(dump, sizeof(dump), "%s/fl", work);
	CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s' --first 1 --last 1 --dump-bo '%s'", ferry_bin(), ses, dump), 0);
	CHECK(strstr(out, "submit 0: skipped") && strstr(out, "submit 2: skipped"));
	CHECK(strstr(out, "submit 1: ctx 1 queue 0 seqno 1") != NULL);
	free(out);
	/* Only submit 1 ran, so only slot 1 holds its value (the BOs were placed for all). */
	snprintf(path, sizeof(path), "%s/s0001-c1-b2-0x%llx.bin", dump, (unsigned long long)w.data.iova);
	CHECK_EQ(read_u32_at(path, 0), 0u);
	CHECK_EQ(read_u32_at(path, 4), 0xa1u);
	CHECK_EQ(read_u32_at(path, 8), 0u);

	/* --override 0=FILE: submit 0 runs FILE's dwords instead. */
	uint32_t words[16];
	struct pm4_builder pb;
	pm4_builder_init(&pb, words, 16);
	uint32_t v = 0x0c0ffee0;
	pm4_mem_write(&pb, w.data.iova + 60, &v, 1);
	REQUIRE(pm4_builder_ok(&pb));
	char ov[128];
	snprintf(ov, sizeof(ov), "%s/override.pm4", work);
	FILE *f = fopen(ov, "w");
	REQUIRE(f);
	fwrite(words, 1, pm4_builder_bytes(&pb), f);
	fclose(f);
	snprintf(dump, sizeof(dump), "%s/ov", work);
	CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s' --last 0 --override 0='%s' --dump-bo '%s'", ferry_bin(), ses, ov, dump), 0);
	CHECK(strstr(out, "overridden: fence 0 ok") != NULL);
	free(out);
	snprintf(path, sizeof(path), "%s/s0000-c1-b2-0x%llx.bin", dump, (unsigned long long)w.data.iova);
	CHECK_EQ(read_u32_at(path, 0), 0u);
	CHECK_EQ(read_u32_at(path, 60), 0x0c0ffee0u);
	writer_close(&w);
}

static void test_bad_captures(void)
{
	clear_dir(cap_dir);
	free(control("capture start --count 1"));
	struct writer w;
	writer_open(&w, FERRY_POLICY_VALIDATED);
	CHECK_EQ(writer_submit(&w, 0, 1, true), 0);
	writer_close(&w);
	char rd[256], ses[256], bad[256], *out;
	REQUIRE(count_files(cap_dir, ".rd", rd, sizeof(rd)) == 1);
	REQUIRE(count_files(cap_dir, ".ferrycap", ses, sizeof(ses)) == 1);
	const char *files[2] = { rd, ses };
	for (int i = 0; i < 2; i++) {
		struct stat st;
		REQUIRE(stat(files[i], &st) == 0);
		snprintf(bad, sizeof(bad), "%s/cut%d", work, i);
		CHECK_EQ(test_cmd_output(NULL, "head -c %lld '%s' > '%s'", (long long)st.st_size - 5, files[i], bad), 0);
		CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s'", ferry_bin(), bad), 1);
		CHECK(strstr(out, bad) && strstr(out, "truncated"));
		if (!strstr(out, "truncated"))
			fprintf(stderr, "replay of %s said:\n%s\n", bad, out);
		free(out);
		CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s'", ferry_bin(), bad), 1);
		CHECK(strstr(out, bad) && strstr(out, "truncated"));
		free(out);
	}
	/* A record of an unknown type right after the session header. */
	snprintf(bad, sizeof(bad), "%s/corrupt", work);
	CHECK_EQ(test_cmd_output(NULL, "cp '%s' '%s' && printf '\\377' | dd of='%s' bs=1 seek=32 conv=notrunc", ses, bad, bad), 0);
	CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s'", ferry_bin(), bad), 1);
	CHECK(strstr(out, bad) && strstr(out, "corrupt record at offset 32"));
	free(out);
	CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s'", ferry_bin(), bad), 1);
	CHECK(strstr(out, bad) && strstr(out, "corrupt record at offset 32"));
	free(out);
	CHECK_EQ(test_cmd_output(&out, "'%s' replay /dev/null", ferry_bin()), 1);
	free(out);

	/* A raw BoImport names pages of another process, which no file holds: refused by name. */
	struct ferry_buf f = { 0 }, scratch = { 0 };
	REQUIRE(session_write_header(&f, FERRY_FAMILY_MSM, "a630") == 0);
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE, .seq = 1 };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM };
	REQUIRE(session_write_msg(&f, 0, &m, &scratch) == 0);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_IMPORT, .seq = 2 };
	m.u.bo_import = (struct ferry_bo_import){ .ctx_id = 1, .bo_id = 5 };
	REQUIRE(session_write_msg(&f, 0, &m, &scratch) == 0);
	m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT, .seq = 3 };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 1, .seqno = 1 };
	REQUIRE(session_write_msg(&f, 0, &m, &scratch) == 0);
	snprintf(bad, sizeof(bad), "%s/import.ferrycap", work);
	FILE *fp = fopen(bad, "wb");
	REQUIRE(fp && fwrite(f.data, 1, f.len, fp) == f.len && fclose(fp) == 0);
	ferry_buf_free(&f);
	ferry_buf_free(&scratch);
	CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s'", ferry_bin(), bad), 1);
	CHECK(strstr(out, "bo_import at offset") && strstr(out, "not in the capture"));
	if (!strstr(out, "bo_import at offset"))
		fprintf(stderr, "replay of %s said:\n%s\n", bad, out);
	free(out);
}

static void test_gzip_rd(void)
{
	clear_dir(cap_dir);
	free(control("capture start --count 1 --gzip --format rd"));
	struct writer w;
	writer_open(&w, FERRY_POLICY_VALIDATED);
	CHECK_EQ(writer_submit(&w, 0, 0x5a5a, true), 0);
	writer_close(&w);
	char rd[256], *out;
	REQUIRE(count_files(cap_dir, ".rd.gz", rd, sizeof(rd)) == 1);
	CHECK_EQ(count_files(cap_dir, ".ferrycap", NULL, 0), 0);
	uint8_t magic[2] = { 0 };
	int fd = open(rd, O_RDONLY);
	CHECK(fd >= 0 && read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
	if (fd >= 0)
		close(fd);
	CHECK_EQ(test_cmd_output(&out, "'%s' decode '%s'", ferry_bin(), rd), 0);
	CHECK(strstr(out, "CP_MEM_WRITE") != NULL);
	free(out);
	CHECK_EQ(test_cmd_output(&out, "'%s' replay '%s' --policy validated", ferry_bin(), rd), 0);
	CHECK(strstr(out, "fence 0 ok") != NULL);
	free(out);
	/* Combined files are appended to: one gzip member each would not be one .rd. */
	char *a = control("capture start --combined --gzip");
	CHECK(!strncmp(a, "error: ", 7));
	free(a);
}

static void test_operator_only(void)
{
	/* The switch is the control socket's (0600); the wire has no capture message at all. */
	struct stat st;
	REQUIRE(stat(ferryd.control, &st) == 0);
	CHECK_EQ(st.st_mode & 0077, 0u);
	for (int k = 0; k < FERRY_MSG_KIND_COUNT; k++)
		CHECK(strstr(ferry_msg_kind_name((enum ferry_msg_kind)k), "capture") == NULL);
	char *a = control("capture start --count 0");
	CHECK(!strncmp(a, "error: ", 7));
	free(a);
	a = control("capture start --dir relative");
	CHECK(!strncmp(a, "error: ", 7));
	free(a);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/ferry-capture-XXXXXX");
	REQUIRE(mkdtemp(root));
	snprintf(cap_dir, sizeof(cap_dir), "%s/cap", root);
	snprintf(crash_dir, sizeof(crash_dir), "%s/crash", root);
	snprintf(trigger, sizeof(trigger), "%s/trigger", root);
	snprintf(work, sizeof(work), "%s/work", root);
	REQUIRE(mkdir(crash_dir, 0700) == 0 && mkdir(work, 0700) == 0);
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	const char *extra[] = { "--capture-dir", cap_dir, "--crash-dir", crash_dir, "--capture-trigger", trigger,
				"--allow-passthrough", "--log-level", "warn", NULL };
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) == 0);
	RUN_TEST(test_operator_only);
	RUN_TEST(test_capture_and_replay);
	RUN_TEST(test_capture_imported_bo);
	RUN_TEST(test_fault_post_mortem);
	RUN_TEST(test_fault_post_mortem_capped);
	RUN_TEST(test_fault_with_capture);
	RUN_TEST(test_trigger_file);
	RUN_TEST(test_first_last_override);
	RUN_TEST(test_bad_captures);
	RUN_TEST(test_gzip_rd);
	/* A clean exit (under the sanitizers: no leak in the capture paths either). */
	int st = ferryd_stop(&ferryd, 10000);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		ferryd_dump_log(&ferryd, 40);
	test_cmd_output(NULL, "rm -rf '%s'", root);
	return test_finish();
}
