/* A GPU hang beside a busy neighbour: ferryd --hangcheck-ms 200; client A's context stalls in a
 * CP_WAIT_REG_MEM that never matches while client B completes 1000 submits with correct results.
 * A's fence fails -ETIMEDOUT, A gets a FAULT_REPORT (HANG, the WAIT packet's IB iova and dword,
 * the full report text), A's later submits fail, B is unaffected; `ferry decode` on the report
 * shows the ESTIMATED CRASH LOCATION, ferryd logs one summary line and keeps the report. A
 * validated context's hang (the GPU ran a host shadow copy) is reported at the guest's IB too. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control_client.h"
#include "itest.h"
#include "cmd_output.h"
#include "test.h"

#define B_SUBMITS 1000
#define B_BATCH 50

static struct ferryd_proc ferryd;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void start_ferryd(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	/* Passthrough for A (and validated for test_validated_hang): both name the guest's IB. */
	const char *extra[] = { "--hangcheck-ms", "200", "--allow-passthrough", "--log-level", "warn", NULL };
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) == 0);
}

/* Client B: B_SUBMITS submits, each writing its own value to its own slot. */
static bool run_neighbour(struct itest_client *b)
{
	struct itest_bo ib, data;
	REQUIRE(itest_bo_new(b->ctx, 64 * 1024, &ib) == 0);
	REQUIRE(itest_bo_new(b->ctx, 4 * B_SUBMITS, &data) == 0);
	memset(data.cpu, 0, 4 * B_SUBMITS);
	bool ok = true;
	for (uint32_t first = 0; first < B_SUBMITS && ok; first += B_BATCH) {
		uint32_t seqno = 0;
		for (uint32_t i = first; i < first + B_BATCH; i++) {
			/* Each submit its own 16-dword slice of the IB BO (64 KiB holds a batch many times). */
			uint32_t slot = i % 1024;
			struct pm4_builder pb;
			pm4_builder_init(&pb, ib.cpu + slot * 16, 16);
			uint32_t value = 0xB0000000u | i;
			pm4_mem_write(&pb, data.iova + 4ull * i, &value, 1);
			REQUIRE(pm4_builder_ok(&pb));
			int r = itest_submit(b, ib.bo, slot * 64, pm4_builder_bytes(&pb), &data.bo, 1, &seqno);
			if (r) {
				fprintf(stderr, "B submit %u: %d %s\n", i, r, ferry_device_last_error(b->dev));
				ok = false;
				break;
			}
		}
		if (ok && ferry_fence_wait(b->q, seqno, ITEST_WAIT_NS) != 0) {
			fprintf(stderr, "B batch at %u did not complete\n", first);
			ok = false;
		}
		for (uint32_t i = first; ok && i < first + B_BATCH; i++)
			if (data.cpu[i] != (0xB0000000u | i)) {
				fprintf(stderr, "B slot %u = 0x%08x\n", i, data.cpu[i]);
				ok = false;
			}
	}
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	return ok;
}

/* `ferry decode` on the report text: its output, NULL if it could not run. */
static char *decode_report(const char *text)
{
	const char *ferry = getenv("FERRY");
	if (!ferry || !ferry[0]) {
		fprintf(stderr, "FERRY is not set: cannot run `ferry decode`\n");
		return NULL;
	}
	char file[160];
	snprintf(file, sizeof(file), "%s/report.txt", ferryd.dir);
	FILE *f = fopen(file, "w");
	REQUIRE(f);
	fputs(text, f);
	fclose(f);
	char *out;
	int st = test_cmd_output(&out, "'%s' decode '%s'", ferry, file);
	REQUIRE(out);
	unlink(file);
	if (st != 0)
		fprintf(stderr, "ferry decode exited %d:\n%s\n", st, out);
	return out;
}

static void test_hang_beside_neighbour(void)
{
	struct itest_client a = { 0 }, b;
	REQUIRE(ferry_device_open(ferryd.uri, &a.dev) == 0);
	REQUIRE(ferry_context_create(a.dev, FERRY_FAMILY_MSM, FERRY_POLICY_PASSTHROUGH, &a.ctx) == 0);
	REQUIRE(ferry_queue_create(a.ctx, 0, &a.q) == 0);
	REQUIRE(itest_client_open(ferryd.uri, &b) == 0);

	struct itest_bo ib, sync;
	REQUIRE(itest_bo_new(a.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(a.ctx, 4096, &sync) == 0);
	sync.cpu[0] = 1;
	struct pm4_builder pb;
	pm4_builder_init(&pb, ib.cpu, 1024);
	pm4_nop(&pb, 3);
	uint32_t wait_dword = pb.len;
	pm4_wait_mem(&pb, WRITE_EQ, sync.iova, 0xdead, 0xffffffffu); /* never: nobody writes it */
	REQUIRE(pm4_builder_ok(&pb));
	uint32_t hang_seqno;
	int64_t t0 = now_ms();
	REQUIRE(itest_submit(&a, ib.bo, 0, pm4_builder_bytes(&pb), &sync.bo, 1, &hang_seqno) == 0);

	/* B runs its 1000 submits while A is stalled, and after. */
	CHECK(run_neighbour(&b));

	CHECK_EQ(ferry_fence_wait(a.q, hang_seqno, ITEST_WAIT_NS), -ETIMEDOUT);
	CHECK(ferry_fence_signaled(a.q, hang_seqno)); /* completed with the error, not timed out */
	CHECK(now_ms() - t0 >= 190);
	const struct ferry_fault_info *fi = itest_await_fault(a.dev, a.ctx);
	REQUIRE(fi);
	CHECK(fi->flags & FERRY_FAULT_HANG);
	CHECK_EQ(fi->seqno, hang_seqno);
	CHECK_EQ(fi->ib_iova, ib.iova);
	CHECK_EQ(fi->ib_dword, wait_dword);
	CHECK_EQ(fi->opcode, CP_WAIT_REG_MEM);
	char want[160];
	snprintf(want, sizeof(want), "ESTIMATED CRASH LOCATION: IB1 0x%016llx dword %u: CP_WAIT_REG_MEM",
		 (unsigned long long)ib.iova, wait_dword);
	CHECK(fi->text && strstr(fi->text, want));
	CHECK(fi->text && strstr(fi->text, "\nregisters:\n"));
	CHECK(ferry_context_lost(a.ctx));

	/* A's later submits fail; B's keep working. */
	uint32_t s2;
	CHECK(itest_submit(&a, ib.bo, 0, pm4_builder_bytes(&pb), &sync.bo, 1, &s2) < 0);
	CHECK(itest_client_works(&b, 0x600d));

	/* `ferry decode` reads the report the guest got. */
	char *out = fi->text ? decode_report(fi->text) : NULL;
	snprintf(want, sizeof(want), "ESTIMATED CRASH LOCATION! IB1 0x%016llx dword %u: CP_WAIT_REG_MEM",
		 (unsigned long long)ib.iova, wait_dword);
	CHECK(out && strstr(out, want));
	CHECK(out && strstr(out, "fault report: GPU hang"));
	free(out);

	/* ferryd: one warn line, and the report kept for the operator. */
	char *answer = NULL;
	REQUIRE(control_request(ferryd.control, "reports", 10000, &answer) == 0);
	CHECK(!strncmp(answer, "ok\nreport 1: ", 13));
	CHECK(strstr(answer, "GPU hang at IB1") != NULL);
	free(answer);
	REQUIRE(control_request(ferryd.control, "report 1", 10000, &answer) == 0);
	CHECK(!strncmp(answer, "ok\n", 3) && !strcmp(answer + 3, fi->text));
	free(answer);

	ferry_bo_close(ib.bo);
	ferry_bo_close(sync.bo);
	itest_client_close(&a);
	itest_client_close(&b);
}

/* A validated context: the GPU runs a shadow copy of the IB, yet the report names the guest's
 * IB (BO iova + offset), dword and BO. */
static void test_validated_hang(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0); /* validated: the default policy */
	struct itest_bo ib, sync;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &sync) == 0);
	const uint32_t offset = 0x100; /* the IB starts inside the BO */
	struct pm4_builder pb;
	pm4_builder_init(&pb, ib.cpu + offset / 4, 256);
	pm4_nop(&pb, 2);
	uint32_t wait_dword = pb.len;
	pm4_wait_mem(&pb, WRITE_EQ, sync.iova, 0xdead, 0xffffffffu);
	REQUIRE(pm4_builder_ok(&pb));
	uint32_t seqno;
	REQUIRE(itest_submit(&c, ib.bo, offset, pm4_builder_bytes(&pb), &sync.bo, 1, &seqno) == 0);
	/* A second queue's job, the same stall: queued behind the first on the GPU's one ring. The
	 * simulated CP lets a stalled wait yield to another queue (as a preempting CP would), so the
	 * second one stalls too; it comes 80 ms (80 hangcheck polls) later, so that the first is the
	 * one found hung, not whichever of two simultaneous stalls the poll order reaches first. */
	usleep(80 * 1000);
	struct ferry_queue *q2;
	REQUIRE(ferry_queue_create(c.ctx, 0, &q2) == 0);
	struct ferry_submit_bo sb = { sync.bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd cmd = { .bo = ib.bo, .offset = offset, .size = pm4_builder_bytes(&pb) };
	struct ferry_submit s2 = { .cmds = &cmd, .nr_cmds = 1, .bos = &sb, .nr_bos = 1 };
	uint32_t seqno2;
	REQUIRE(ferry_submit(q2, &s2, &seqno2) == 0);
	CHECK_EQ(ferry_fence_wait(c.q, seqno, ITEST_WAIT_NS), -ETIMEDOUT);
	/* The context is lost: the second job's fence ends failed (-EIO), never as run. libferry's
	 * own unit test pins that such fences end at once, whatever the host still does. */
	CHECK(ferry_context_lost(c.ctx));
	/* -EIO as soon as the loss is on the page; -ETIMEDOUT if this thread came back only after
	 * the GPU had run (and timed out) that job too, as a loaded CI machine can make it. */
	int r2 = ferry_fence_wait(q2, seqno2, ITEST_WAIT_NS);
	if (r2 != -EIO)
		CHECK_EQ(r2, -ETIMEDOUT);
	ferry_queue_close(q2);
	const struct ferry_fault_info *fi = itest_await_fault(c.dev, c.ctx);
	REQUIRE(fi);
	uint64_t guest_ib = ib.iova + offset;
	CHECK(fi->flags & FERRY_FAULT_HANG);
	CHECK_EQ(fi->ib_iova, guest_ib);
	CHECK_EQ(fi->ib_dword, wait_dword);
	CHECK_EQ(fi->ib_level, 1);
	char want[200];
	snprintf(want, sizeof(want), "ESTIMATED CRASH LOCATION: IB1 0x%016llx dword %u: CP_WAIT_REG_MEM",
		 (unsigned long long)guest_ib, wait_dword);
	CHECK(fi->text && strstr(fi->text, want));
	snprintf(want, sizeof(want), "\nguest: IB1 0x%016llx (bo %u +0x%x), shadow 0x", (unsigned long long)guest_ib,
		 ferry_bo_id(ib.bo), offset);
	CHECK(fi->text && strstr(fi->text, want));
	CHECK(fi->text && strstr(fi->text, "\nnote: validated context: "));

	/* The report, guest lines included, still decodes (decode itself reads the kernel's
	 * crash-location section, i.e. the shadow address). */
	char *out = fi->text ? decode_report(fi->text) : NULL;
	CHECK(out && strstr(out, "fault report: GPU hang"));
	free(out);

	ferry_bo_close(ib.bo);
	ferry_bo_close(sync.bo);
	itest_client_close(&c);
}

static bool log_has(const char *needle)
{
	FILE *f = fopen(ferryd.log, "r");
	if (!f)
		return false;
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

int main(void)
{
	start_ferryd();
	RUN_TEST(test_hang_beside_neighbour);
	RUN_TEST(test_validated_hang);
	CHECK(log_has("GPU hang; ESTIMATED CRASH LOCATION: IB1"));
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
