/* Work the simulated GPU does not execute, through a real ferryd: a draw (CP_DRAW_INDX_OFFSET)
 * and a compute dispatch (CP_EXEC_CS) on a630, a CSD job on v3d-4.2. Without --sim-strict their
 * fences signal cleanly, `ferry status` counts them per kind and per context, and the log warns
 * once per context and kind; with --sim-strict their fences fail with the GPU-error status (-EIO),
 * the guest gets a fault report naming the skipped work, and work the model does execute still
 * passes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include "ferry/hw/adreno_pm4.h"
#include "itest.h"
#include "test.h"

static char ferryd_path[4096];

static void start(struct ferryd_proc *p, const char *gpu, bool strict)
{
	const char *strict_args[] = { "--sim-strict", NULL };
	REQUIRE(ferryd_spawn(ferryd_path, gpu, strict ? strict_args : NULL, true, 30000, p) == 0);
}

/* The whole of a file (malloc'd, NUL-terminated), NULL if unreadable. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	(void)n;
	fclose(f);
	return buf;
}

static void stop(struct ferryd_proc *p, bool failed_before)
{
	if (test_failures != failed_before)
		ferryd_dump_log(p, 60);
	CHECK(itest_stop_ferryd(p));
}

static bool status_has(const struct ferryd_proc *p, const char *needle)
{
	int rc;
	char *text = itest_ferry_status(p, "", &rc);
	bool ok = rc == 0 && strstr(text, needle);
	if (!ok)
		fprintf(stderr, "`ferry status` lacks \"%s\":\n%s", needle, text);
	free(text);
	return ok;
}

/* The context's first fault report: sent before its fence signaled, so it is in the socket by
 * now; read it. */
static const struct ferry_fault_info *first_fault(struct ferry_device *dev, struct ferry_context *ctx)
{
	CHECK(ferry_device_poll_events(dev) >= 0);
	return ferry_context_fault(ctx, 0);
}

#define DRAW_WARNING "draw skipped: the simulated GPU does not execute shaders"
#define DISPATCH_WARNING "compute dispatch skipped: the simulated GPU does not execute shaders"

/* Builds: [draws x n_draws | CP_EXEC_CS if dispatch] then a CP_MEM_WRITE of marker to out. */
static uint32_t build(struct itest_bo *ib, uint64_t out, unsigned n_draws, bool dispatch, uint32_t marker)
{
	struct pm4_builder b;
	pm4_builder_init(&b, ib->cpu, 1024);
	for (unsigned i = 0; i < n_draws; i++)
		pm4_draw_auto_index(&b, DI_PT_TRILIST, 3, 1);
	if (dispatch)
		pm4_pkt7(&b, CP_EXEC_CS, (const uint32_t[]){ 0, 1, 1, 1 }, 4);
	pm4_mem_write(&b, out, &marker, 1);
	REQUIRE(pm4_builder_ok(&b));
	return pm4_builder_bytes(&b);
}

/* Submits and waits; returns the fence's status. */
static int run(struct itest_client *c, struct itest_bo *ib, uint32_t bytes, struct itest_bo *out)
{
	uint32_t seqno;
	struct ferry_bo *w[] = { out->bo };
	int r = itest_submit(c, ib->bo, 0, bytes, w, 1, &seqno);
	if (r < 0)
		return r;
	return ferry_fence_wait(c->q, seqno, ITEST_WAIT_NS);
}

static void test_msm_counted(void)
{
	if (itest_sim_only("test_msm_counted", "only the simulator skips work it does not model"))
		return;
	bool failed = test_failures;
	struct ferryd_proc p;
	start(&p, "a630", false);
	struct itest_client c;
	REQUIRE(itest_client_open(p.uri, &c) == 0);
	struct itest_bo ib, out;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &out) == 0);

	/* Two submits of two draws each: four draws counted, one warning. */
	CHECK_EQ(run(&c, &ib, build(&ib, out.iova, 2, false, 0x11), &out), 0);
	CHECK_EQ(out.cpu[0], 0x11u);
	CHECK_EQ(run(&c, &ib, build(&ib, out.iova, 2, false, 0x12), &out), 0);
	CHECK_EQ(out.cpu[0], 0x12u);
	CHECK_EQ(run(&c, &ib, build(&ib, out.iova, 0, true, 0x13), &out), 0);
	CHECK_EQ(out.cpu[0], 0x13u);
	CHECK(!ferry_context_lost(c.ctx));
	CHECK(status_has(&p, "sim-strict: off\n"));
	CHECK(status_has(&p, "unmodeled-draw: 4\n"));
	CHECK(status_has(&p, "unmodeled-dispatch: 1\n"));
	CHECK(status_has(&p, " unmodeled-draw=4 unmodeled-dispatch=1 unmodeled-engine=0 unmodeled-packet=0 "
			     "unmodeled-state=0\n"));
	CHECK_EQ(itest_log_count(&p, DRAW_WARNING), 1);
	CHECK_EQ(itest_log_count(&p, DISPATCH_WARNING), 1);
	CHECK_EQ(itest_log_count(&p, "first: CP_DRAW_INDX_OFFSET"), 1);

	/* Another context is warned on its own, and counted on its own line. */
	struct itest_client c2;
	REQUIRE(itest_client_open(p.uri, &c2) == 0);
	struct itest_bo ib2, out2;
	REQUIRE(itest_bo_new(c2.ctx, 4096, &ib2) == 0);
	REQUIRE(itest_bo_new(c2.ctx, 4096, &out2) == 0);
	CHECK_EQ(run(&c2, &ib2, build(&ib2, out2.iova, 1, false, 0x21), &out2), 0);
	CHECK_EQ(itest_log_count(&p, DRAW_WARNING), 2);
	CHECK(status_has(&p, "unmodeled-draw: 5\n"));
	CHECK(status_has(&p, " unmodeled-draw=1 unmodeled-dispatch=0 "));
	itest_client_close(&c2);
	itest_client_close(&c);
	stop(&p, failed);
}

static void test_msm_strict(void)
{
	if (itest_sim_only("test_msm_strict", "only the simulator skips work it does not model"))
		return;
	bool failed = test_failures;
	struct ferryd_proc p;
	start(&p, "a630", true);
	struct itest_client c;
	REQUIRE(itest_client_open(p.uri, &c) == 0);
	struct itest_bo ib, out;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &out) == 0);

	/* Modeled work passes in strict mode. */
	CHECK_EQ(run(&c, &ib, build(&ib, out.iova, 0, false, 0x31), &out), 0);
	CHECK_EQ(out.cpu[0], 0x31u);
	/* A draw fails its fence; the CP stopped at it, so the write after it did not happen. */
	CHECK_EQ(run(&c, &ib, build(&ib, out.iova, 1, false, 0x32), &out), -EIO);
	CHECK_EQ(out.cpu[0], 0x31u);
	CHECK(ferry_context_lost(c.ctx));
	const struct ferry_fault_info *fi = first_fault(c.dev, c.ctx);
	CHECK(fi && fi->text && strstr(fi->text, DRAW_WARNING));
	CHECK(fi && fi->opcode == CP_DRAW_INDX_OFFSET);
	CHECK_EQ(itest_log_count(&p, "GPU error: unmodeled work (--sim-strict)"), 1);
	CHECK(status_has(&p, "sim-strict: on\n"));
	CHECK(status_has(&p, "faults: 1\n"));
	itest_client_close(&c);

	/* A compute dispatch too. */
	REQUIRE(itest_client_open(p.uri, &c) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &out) == 0);
	CHECK_EQ(run(&c, &ib, build(&ib, out.iova, 0, true, 0x41), &out), -EIO);
	CHECK_EQ(out.cpu[0], 0u);
	fi = first_fault(c.dev, c.ctx);
	CHECK(fi && fi->text && strstr(fi->text, DISPATCH_WARNING));
	CHECK(fi && fi->opcode == CP_EXEC_CS);
	CHECK(status_has(&p, "faults: 2\n"));
	itest_client_close(&c);
	stop(&p, failed);
}

/* One V3D client with a CSD queue; runs a 1x1x1 dispatch and returns its fence status. */
static int v3d_dispatch(const char *uri, struct ferry_device **dev, struct ferry_context **ctx)
{
	REQUIRE(ferry_device_open(uri, dev) == 0);
	REQUIRE(ferry_context_create(*dev, FERRY_FAMILY_V3D, FERRY_POLICY_VALIDATED, ctx) == 0);
	struct ferry_queue *q;
	REQUIRE(ferry_queue_create_kind(*ctx, FERRY_QUEUE_KIND_V3D_CSD, 0, &q) == 0);
	struct ferry_bo *shader;
	uint64_t addr;
	REQUIRE(ferry_bo_new(*ctx, 4096, 0, &shader) == 0);
	REQUIRE(ferry_bo_iova(shader, &addr) == 0);
	struct ferry_v3d_csd d = {
		/* 1x1x1 workgroups of 16 invocations: one batch (CFG4 = batches - 1 on 4.2). */
		.cfg = { 1u << 16, 1u << 16, 1u << 16, 16, 0, (uint32_t)addr, (uint32_t)addr + 256 },
		.bos = &shader, .nr_bos = 1,
	};
	uint32_t seqno;
	REQUIRE(ferry_v3d_submit_csd(q, &d, &seqno) == 0);
	return ferry_fence_wait(q, seqno, ITEST_WAIT_NS);
}

static void test_v3d_csd(void)
{
	if (itest_sim_only("test_v3d_csd", "only the simulator skips work it does not model"))
		return;
	bool failed = test_failures;
	struct ferryd_proc p;
	start(&p, "v3d-4.2", false);
	struct ferry_device *dev;
	struct ferry_context *ctx;
	CHECK_EQ(v3d_dispatch(p.uri, &dev, &ctx), 0);
	CHECK(!ferry_context_lost(ctx));
	CHECK(status_has(&p, "unmodeled-dispatch: 1\n"));
	CHECK(status_has(&p, " unmodeled-draw=0 unmodeled-dispatch=1 "));
	CHECK_EQ(itest_log_count(&p, DISPATCH_WARNING), 1);
	CHECK_EQ(itest_log_count(&p, "first: CSD job"), 1);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	stop(&p, failed);

	/* Strict, with a crash dir and the log at info: the job error is reported as msm's faults
	 * are, to the guest, to the crash dir with the job's capture, and to the log in full. */
	failed = test_failures;
	char crash_dir[] = "/tmp/ferry-test-crash-XXXXXX";
	REQUIRE(mkdtemp(crash_dir) != NULL);
	const char *args[] = { "--sim-strict", "--crash-dir", crash_dir, "--log-level", "info", NULL };
	REQUIRE(ferryd_spawn(ferryd_path, "v3d-4.2", args, true, 30000, &p) == 0);
	CHECK_EQ(v3d_dispatch(p.uri, &dev, &ctx), -EIO);
	CHECK(ferry_context_lost(ctx));
	const struct ferry_fault_info *fi = first_fault(dev, ctx);
	CHECK(fi && fi->text && strstr(fi->text, DISPATCH_WARNING));
	CHECK(fi && fi->text && strstr(fi->text, "mode=strict"));
	CHECK(status_has(&p, "faults: 1\n"));
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/ferry-report-%d-1.txt", crash_dir, (int)p.pid);
	char *file = slurp(path);
	CHECK(file != NULL);
	/* The file is the report the guest got, and it names its capture, which exists. */
	CHECK(file && fi && fi->text && strcmp(file, fi->text) == 0);
	char cap[PATH_MAX];
	snprintf(cap, sizeof(cap), "capture: %s/ferry-report-%d-1.ferrycap (post-mortem", crash_dir, (int)p.pid);
	CHECK(file && strstr(file, cap));
	snprintf(cap, sizeof(cap), "%s/ferry-report-%d-1.ferrycap", crash_dir, (int)p.pid);
	CHECK(access(cap, R_OK) == 0);
	free(file);
	CHECK_EQ(itest_log_count(&p, "report 1| job-error:"), 1);
	CHECK_EQ(itest_log_count(&p, "report 1| csd: cfg="), 0); /* indented in the report: "  csd: ..." */
	CHECK_EQ(itest_log_count(&p, "report 1|   csd: cfg=[0x00010000"), 1);
	CHECK(itest_log_count(&p, " in ") >= 1 && itest_log_count(&p, "/ferry-report-") >= 1);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	stop(&p, failed);
	unlink(path);
	unlink(cap);
	CHECK_EQ(rmdir(crash_dir), 0);
}

int main(void)
{
	REQUIRE(ferryd_locate(NULL, ferryd_path, sizeof(ferryd_path)) == 0);
	RUN_TEST(test_msm_counted);
	RUN_TEST(test_msm_strict);
	RUN_TEST(test_v3d_csd);
	return itest_finish(test_finish(), 3);
}
