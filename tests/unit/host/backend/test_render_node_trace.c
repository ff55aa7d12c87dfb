/* The render-node kdev's tracefs reader on lines in the formats Linux 6.1's msm and v3d trace
 * points print (drivers/gpu/drm/msm/msm_gpu_trace.h, drivers/gpu/drm/v3d/v3d_trace.h): the fake
 * kernel has no tracefs, so the parser is checked here on its own. */
#include <string.h>

#include "backend/render_node_priv.h"
#include "ferry/uapi/v3d_drm.h"
#include "test.h"

static void test_msm(void)
{
	struct kdev_trace_event ev;
	CHECK(render_node_trace_parse(RENDER_NODE_MSM,
				      "  ferryd-4242  [001] d..1.  1234.567890: msm_gpu_submit_flush: id=7 pid=4242 ring=1:99 ticks=123456",
				      &ev));
	CHECK_EQ(ev.phase, KDEV_TRACE_BEGIN);
	CHECK_EQ(ev.queue, 1); /* the ring: a priority level, not a submitqueue */
	CHECK_EQ(ev.seqno, 99);
	CHECK_EQ(ev.ts_ns, 1234567890000ull);
	CHECK(!strcmp(ev.name, "cp"));
	CHECK(render_node_trace_parse(RENDER_NODE_MSM,
				      "  <idle>-0  [000] d.h1.  1234.600000: msm_gpu_submit_retired: id=7 pid=4242 ring=1:99, elapsed=1000 ns mhz=0, start=1, end=2",
				      &ev));
	CHECK_EQ(ev.phase, KDEV_TRACE_END);
	CHECK_EQ(ev.seqno, 99);
	/* Another driver's event, a v3d event on msm, and lines that are not events. */
	CHECK(!render_node_trace_parse(RENDER_NODE_MSM, "  x-1  [000] ....  1.000000: msm_gpu_submit: id=7 pid=1 ring=0 bos=1 cmds=1", &ev));
	CHECK(!render_node_trace_parse(RENDER_NODE_MSM, "  x-1  [000] ....  1.000000: v3d_tfu_irq: dev=0, seqno=3", &ev));
	CHECK(!render_node_trace_parse(RENDER_NODE_MSM, "# tracer: nop", &ev));
	CHECK(!render_node_trace_parse(RENDER_NODE_MSM, "", &ev));
	CHECK(!render_node_trace_parse(RENDER_NODE_MSM, "  x-1  [000] ....  notatime: msm_gpu_submit_flush: id=1", &ev));
}

static void test_v3d(void)
{
	struct kdev_trace_event ev;
	CHECK(render_node_trace_parse(RENDER_NODE_V3D,
				      "  v3d_bin-80  [002] .....  55.000001: v3d_submit_cl: dev=0, BCL, seqno=12, 0x00010000..0x00010100",
				      &ev));
	CHECK_EQ(ev.queue, V3D_BIN);
	CHECK_EQ(ev.seqno, 12);
	CHECK(!strcmp(ev.name, "bin"));
	CHECK(render_node_trace_parse(RENDER_NODE_V3D,
				      "  v3d_render-81  [002] .....  55.000002: v3d_submit_cl: dev=0, RCL, seqno=13, 0x00020000..0x00020100",
				      &ev));
	CHECK_EQ(ev.queue, V3D_RENDER);
	CHECK_EQ(ev.phase, KDEV_TRACE_BEGIN);
	CHECK(!strcmp(ev.name, "render"));
	CHECK(render_node_trace_parse(RENDER_NODE_V3D, "  <idle>-0  [000] d.h1.  55.000100: v3d_rcl_irq: dev=0, seqno=13", &ev));
	CHECK_EQ(ev.queue, V3D_RENDER);
	CHECK_EQ(ev.phase, KDEV_TRACE_END);
	CHECK_EQ(ev.seqno, 13);
	CHECK(render_node_trace_parse(RENDER_NODE_V3D, "  <idle>-0  [000] d.h1.  55.000200: v3d_tfu_irq: dev=0, seqno=4", &ev));
	CHECK_EQ(ev.queue, V3D_TFU);
	/* The ioctl's own event is not a job start. */
	CHECK(!render_node_trace_parse(RENDER_NODE_V3D, "  ferryd-1  [000] .....  55.0: v3d_submit_cl_ioctl: dev=0, RCL 0x1..0x2", &ev));
}

int main(void)
{
	RUN_TEST(test_msm);
	RUN_TEST(test_v3d);
	return test_finish();
}
