/* `ferry trace` against a running ferryd: recording is off until `--start`; a workload on two
 * queues of one context (one submit held on the other queue's fence) is then exported with
 * `ferry trace -o FILE`, and check_trace.py ($TRACE_CHECK, run by $PYTHON) parses the JSON and
 * checks each queue's events are there and in order, with run and GPU spans. Then the same on
 * V3D (--gpu v3d-4.2): a CL copy (bin + render) and a TFU copy held on it, with the kernel's
 * bin / render / tfu jobs on the timeline. And ferryd --trace-file writing it at shutdown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry/uapi/v3d_drm.h"
#include "itest.h"
#include "cmd_output.h"
#include "test.h"
#include "v3d_cl_builder.h"

#define NR_A 4
#define NR_B 3

static struct ferryd_proc ferryd;

/* Runs a shell command; returns its exit status, the start of its output in out. */
static int run(const char *cmd, char *out, size_t len)
{
	char *all;
	int st = test_cmd_output(&all, "%s", cmd);
	REQUIRE(all);
	snprintf(out, len, "%s", all);
	free(all);
	return st;
}

static int ferry_trace_at(const struct ferryd_proc *p, const char *args, char *out, size_t len)
{
	const char *ferry = getenv("FERRY");
	REQUIRE(ferry && ferry[0]);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "'%s' trace --control '%s' %s", ferry, p->control, args);
	return run(cmd, out, len);
}

static int ferry_trace(const char *args, char *out, size_t len)
{
	return ferry_trace_at(&ferryd, args, out, len);
}

/* Runs check_trace.py on path with the given expectations; 0 when it passes. */
/* The kernel's GPU spans: on a render node they come from tracefs (root), which the fake kernel's
 * node does not have; ferryd's own spans are checked either way. */
static bool kernel_spans(void)
{
	return !itest_sim_only("kernel GPU spans in the trace", "the driver's events come from tracefs, which needs root");
}

static int check_trace(const char *path, const char *expect)
{
	const char *python = getenv("PYTHON"), *check = getenv("TRACE_CHECK");
	REQUIRE(python && check);
	char cmd[1024], out[4096];
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' %s", python, check, path, expect);
	int rc = run(cmd, out, sizeof(out));
	if (rc != 0)
		fprintf(stderr, "%s", out);
	return rc;
}

static int submit(struct ferry_queue *q, struct itest_bo *ib, uint32_t off, uint32_t bytes, struct itest_bo *data,
		  const struct ferry_fence_ref *in, uint32_t *seqno)
{
	struct ferry_submit_bo bo = { data->bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd cmd = { .bo = ib->bo, .offset = off, .size = bytes };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &bo, .nr_bos = 1, .in_fences = in,
				  .nr_in_fences = in ? 1 : 0 };
	return ferry_submit(q, &s, seqno);
}

/* One small IB per submit: write value to data[slot]; the first one waits for data[0] >= 1. */
static uint32_t build(struct itest_bo *ib, uint32_t index, struct itest_bo *data, bool wait_first, uint32_t *off)
{
	struct pm4_builder b;
	*off = index * 256;
	pm4_builder_init(&b, ib->cpu + index * 64, 64);
	if (wait_first)
		pm4_wait_mem_gte(&b, data->iova, 1);
	uint32_t v = 100 + index;
	pm4_mem_write(&b, data->iova + (8 + index) * 4, &v, 1);
	REQUIRE(pm4_builder_ok(&b));
	return pm4_builder_bytes(&b);
}

static void test_trace_two_queues(void)
{
	char out[4096];
	/* Off by default: a submit before --start leaves no events. */
	CHECK(ferry_trace("--status", out, sizeof(out)) == 0);
	CHECK(strstr(out, "trace: off") != NULL);

	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	CHECK(itest_client_works(&c, 0x1234));
	CHECK(ferry_trace("--start", out, sizeof(out)) == 0);
	CHECK(ferry_trace("--status", out, sizeof(out)) == 0);
	CHECK(strstr(out, "trace: on") && strstr(out, "events: 0\n"));

	struct ferry_queue *qb = NULL;
	REQUIRE(ferry_queue_create(c.ctx, 0, &qb) == 0);
	struct itest_bo ib, data;
	REQUIRE(itest_bo_new(c.ctx, 4096 * 2, &ib) == 0);
	REQUIRE(itest_bo_new(c.ctx, 4096, &data) == 0);
	memset(data.cpu, 0, 4096);

	/* Queue A: its first submit waits in the CP for the CPU; queue B's first submit waits on
	 * A's first fence, so the host holds it. */
	uint32_t seq_a[NR_A], seq_b[NR_B], off, bytes;
	for (uint32_t i = 0; i < NR_A; i++) {
		bytes = build(&ib, i, &data, i == 0, &off);
		REQUIRE(submit(c.q, &ib, off, bytes, &data, NULL, &seq_a[i]) == 0);
	}
	struct ferry_fence_ref dep = { .queue_id = ferry_queue_id(c.q), .seqno = seq_a[0] };
	for (uint32_t i = 0; i < NR_B; i++) {
		bytes = build(&ib, NR_A + i, &data, false, &off);
		REQUIRE(submit(qb, &ib, off, bytes, &data, i == 0 ? &dep : NULL, &seq_b[i]) == 0);
	}
	usleep(20 * 1000);
	__atomic_store_n(&data.cpu[0], 1u, __ATOMIC_RELEASE);
	CHECK_EQ(ferry_fence_wait(c.q, seq_a[NR_A - 1], ITEST_WAIT_NS), 0);
	CHECK_EQ(ferry_fence_wait(qb, seq_b[NR_B - 1], ITEST_WAIT_NS), 0);
	for (uint32_t i = 0; i < NR_A + NR_B; i++)
		CHECK_EQ(data.cpu[8 + i], 100 + i);

	char path[] = "/tmp/ferry-trace-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	char args[256];
	snprintf(args, sizeof(args), "-o '%s' --stop", path);
	CHECK_EQ(ferry_trace(args, out, sizeof(out)), 0);

	char expect[64];
	if (kernel_spans())
		snprintf(expect, sizeof(expect), "%u:%u %u:%u:held gpu=cp:%u", ferry_queue_id(c.q), NR_A, ferry_queue_id(qb),
			 NR_B, NR_A + NR_B);
	else
		snprintf(expect, sizeof(expect), "%u:%u:nocp %u:%u:held:nocp", ferry_queue_id(c.q), NR_A, ferry_queue_id(qb),
			 NR_B);
	CHECK_EQ(check_trace(path, expect), 0);

	/* Stopped: more work adds nothing; clear empties it; the export is still valid JSON. */
	CHECK(ferry_trace("--status", out, sizeof(out)) == 0);
	CHECK(strstr(out, "trace: off") != NULL);
	char *ev = strstr(out, "events: ");
	long before = ev ? atol(ev + 8) : -1;
	CHECK(before > 0);
	CHECK(itest_client_works(&c, 0x5678));
	CHECK(ferry_trace("--status", out, sizeof(out)) == 0);
	ev = strstr(out, "events: ");
	CHECK(ev && atol(ev + 8) == before);
	CHECK(ferry_trace("--clear --status", out, sizeof(out)) == 0);
	CHECK(strstr(out, "events: 0\n") != NULL);
	CHECK_EQ(ferry_trace(args, out, sizeof(out)), 0);
	const char *python = getenv("PYTHON");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "'%s' -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "sys.exit(any(e[\"ph\"] != \"M\" for e in d[\"traceEvents\"]))' '%s'", python, path);
	CHECK_EQ(run(cmd, out, sizeof(out)), 0);
	unlink(path);

	/* A bad argument is an error, ferryd stays up. */
	CHECK(ferry_trace("--start --stop", out, sizeof(out)) == 2);
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	ferry_queue_close(qb);
	itest_client_close(&c);
}

/* ---- V3D ---- */

#define CL_SIZE 16384u

struct vbo {
	struct ferry_bo *bo;
	uint8_t *cpu;
	uint32_t addr;
	uint32_t size;
};

static void vbo_new(struct ferry_context *ctx, uint32_t size, struct vbo *b)
{
	void *p = NULL;
	uint64_t iova = 0;
	REQUIRE(ferry_bo_new(ctx, size, 0, &b->bo) == 0);
	REQUIRE(ferry_bo_map(b->bo, &p) == 0);
	REQUIRE(ferry_bo_iova(b->bo, &iova) == 0);
	b->cpu = p;
	b->addr = (uint32_t)iova;
	b->size = size;
}

static void test_trace_v3d(void)
{
	struct ferryd_proc p;
	const char *path_ferryd = getenv("FERRYD");
	REQUIRE(path_ferryd);
	REQUIRE(ferryd_spawn(path_ferryd, "v3d-4.2", NULL, true, 30000, &p) == 0);
	char out[4096];
	CHECK_EQ(ferry_trace_at(&p, "--start", out, sizeof(out)), 0);

	struct ferry_device *dev;
	struct ferry_context *ctx;
	struct ferry_queue *cl, *tfu;
	REQUIRE(ferry_device_open(p.uri, &dev) == 0);
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_V3D, FERRY_POLICY_VALIDATED, &ctx) == 0);
	REQUIRE(ferry_queue_create_kind(ctx, FERRY_QUEUE_KIND_V3D_CL, 0, &cl) == 0);
	REQUIRE(ferry_queue_create_kind(ctx, FERRY_QUEUE_KIND_V3D_TFU, 0, &tfu) == 0);

	/* A CL copy of w x h RGBA8UI src -> dst (bin then render), then a TFU copy dst -> out that
	 * waits for it (held by the host until the CL's fence signals). */
	const uint32_t w = 64, h = 32, stride = w * 4;
	struct vbo lists, ta, src, dst, outb;
	vbo_new(ctx, 3 * CL_SIZE, &lists);
	vbo_new(ctx, 4096 * 2, &src);
	vbo_new(ctx, 4096 * 2, &dst);
	vbo_new(ctx, 4096 * 2, &outb);
	for (uint32_t i = 0; i < src.size; i++)
		src.cpu[i] = (uint8_t)(i * 7 + 1);
	struct v3d_clb_raster_job job = {
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = V3D_INTERNAL_TYPE_8UI, .src_addr = src.addr, .src_stride = stride,
		.dst_addr = dst.addr, .dst_stride = stride,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(42, &job);
	vbo_new(ctx, (qms + 16384 + 4095) & ~4095u, &ta);
	job.tile_alloc_addr = ta.addr;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, 42, lists.cpu, CL_SIZE, lists.addr);
	v3d_clb_init(&rcl, 42, lists.cpu + CL_SIZE, CL_SIZE, lists.addr + CL_SIZE);
	v3d_clb_init(&ind, 42, lists.cpu + 2 * CL_SIZE, CL_SIZE, lists.addr + 2 * CL_SIZE);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	struct ferry_bo *cl_bos[] = { lists.bo, ta.bo, src.bo, dst.bo };
	struct ferry_v3d_cl s = {
		.bcl_start = lists.addr, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = lists.addr + CL_SIZE,
		.rcl_end = v3d_clb_gpu_addr(&rcl), .qma = ta.addr, .qms = qms, .qts = ta.addr,
		.bos = cl_bos, .nr_bos = 4,
	};
	uint32_t cl_seqno = 0, tfu_seqno = 0;
	/* The small CL may finish before the TFU's submit reaches the host; an external fence the
	 * test signals after that submit makes the hold certain. */
	struct ferry_queue *ext;
	uint32_t ext_seqno;
	REQUIRE(ferry_queue_create_kind(ctx, FERRY_QUEUE_KIND_EXTERNAL, 0, &ext) == 0);
	REQUIRE(ferry_external_fence_add(ext, &ext_seqno) == 0);
	REQUIRE(ferry_v3d_submit_cl(cl, &s, &cl_seqno) == 0);
	struct ferry_fence_ref after[] = { { .queue_id = ferry_queue_id(cl), .seqno = cl_seqno },
					   { .queue_id = ferry_queue_id(ext), .seqno = ext_seqno } };
	struct ferry_bo *tfu_bos[] = { outb.bo, dst.bo };
	struct ferry_v3d_tfu t = {
		.icfg = 4u << 9 /* TTYPE; FORMAT 0 = raster */, .iia = dst.addr, .iis = w, .ioa = outb.addr,
		.ios = (h << 16) | w, .bos = tfu_bos, .nr_bos = 2, .in_fences = after, .nr_in_fences = 2,
	};
	REQUIRE(ferry_v3d_submit_tfu(tfu, &t, &tfu_seqno) == 0);
	CHECK_EQ(ferry_external_fence_signal(ext, ext_seqno, 0), 0);
	CHECK_EQ(ferry_fence_wait(cl, cl_seqno, ITEST_WAIT_NS), 0);
	CHECK_EQ(ferry_fence_wait(tfu, tfu_seqno, ITEST_WAIT_NS), 0);
	CHECK(memcmp(outb.cpu, src.cpu, (size_t)stride * h) == 0);

	char path[] = "/tmp/ferry-trace-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	char args[256];
	snprintf(args, sizeof(args), "-o '%s' --stop", path);
	CHECK_EQ(ferry_trace_at(&p, args, out, sizeof(out)), 0);
	/* The CL queue's seqno: its run span, and the GPU's bin then render, and the TFU. */
	char expect[128];
	snprintf(expect, sizeof(expect), "%u:1:nocp %u:1:held:nocp%s", ferry_queue_id(cl), ferry_queue_id(tfu),
		 kernel_spans() ? " gpu=bin:1 gpu=render:1 gpu=tfu:1" : "");
	CHECK_EQ(check_trace(path, expect), 0);
	unlink(path);

	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	int st = ferryd_stop(&p, 20000);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ferryd --trace-file: on from the start, written at shutdown. */
static void test_trace_file(void)
{
	char path[] = "/tmp/ferry-trace-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	const char *extra[] = { "--trace-file", path, NULL };
	struct ferryd_proc p;
	REQUIRE(ferryd_spawn(getenv("FERRYD"), "a630", extra, true, 30000, &p) == 0);
	struct itest_client c;
	REQUIRE(itest_client_open(p.uri, &c) == 0);
	CHECK(itest_client_works(&c, 0x4321));
	CHECK(itest_client_works(&c, 0x8765));
	char expect[32];
	snprintf(expect, sizeof(expect), kernel_spans() ? "%u:2 gpu=cp:2" : "%u:2:nocp", ferry_queue_id(c.q));
	itest_client_close(&c);
	int st = ferryd_stop(&p, 20000);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(check_trace(path, expect), 0);
	unlink(path);
}

int main(void)
{
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_trace_two_queues);
	CHECK(itest_stop_ferryd(&ferryd));
	RUN_TEST(test_trace_v3d);
	RUN_TEST(test_trace_file);
	return test_finish();
}
