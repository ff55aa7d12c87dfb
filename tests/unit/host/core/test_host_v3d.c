/* libferry-host on the simulated V3D without sockets: device query, V3D contexts and queue kinds,
 * BOs at global addresses, a v3dv-shaped CL copy retired through its out-syncobj, the envelope
 * rules of CL / TFU / CSD submits, and exclusive tenancy between two clients. */
#include "host_harness.h"
#include "ferry/uapi/v3d_drm.h"
#include "v3d_cl_builder.h"

static struct ferry_host *make_host(const char *gpu, bool shared)
{
	struct ferry_host_config cfg = { .gpu = gpu, .log_level = FERRY_LOG_ERROR, .v3d_shared_tenancy = shared };
	struct ferry_host *h = NULL;
	REQUIRE(ferry_host_create(&cfg, &h) == 0);
	return h;
}

static uint32_t req_v3d_context(struct harness_client *hc, uint32_t ctx_id)
{
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = ctx_id, .family = FERRY_FAMILY_V3D };
	return harness_request(hc, &m);
}

static uint32_t req_queue_kind(struct harness_client *hc, uint32_t ctx_id, uint32_t queue_id, uint32_t kind,
			       uint32_t prio)
{
	struct ferry_msg m = { .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = ctx_id, .queue_id = queue_id, .priority = prio,
							 .kind = kind };
	return harness_request(hc, &m);
}

struct hbo {
	uint8_t *cpu;
	uint32_t addr, size;
};

static struct hbo make_bo(struct harness_client *hc, uint32_t ctx, uint32_t id, uint32_t size)
{
	struct rx_msg *r = harness_reply(hc, req_bo_create(hc, ctx, id, size, 0));
	struct hbo b = { .cpu = harness_bo_map(r), .addr = (uint32_t)r->m.u.bo_created.iova,
			 .size = (uint32_t)r->m.u.bo_created.size };
	return b;
}

static void test_device_and_objects(void)
{
	struct ferry_host *host = make_host("v3d-7.1", false);
	CHECK(strstr(ferry_host_device_name(host), "v3d-7.1") != NULL);
	struct harness_client hc;
	harness_connect(&hc, host, "t-v3d");

	struct ferry_msg m = { .kind = FERRY_MSG_DEVICE_QUERY };
	m.u.device_query.family = FERRY_FAMILY_V3D;
	struct rx_msg *r = harness_reply(&hc, harness_request(&hc, &m));
	REQUIRE(r && r->m.kind == FERRY_MSG_DEVICE_INFO);
	CHECK_EQ(r->m.u.device_info.family, FERRY_FAMILY_V3D);
	bool ident0 = false, tfu = false;
	for (uint32_t i = 0; i < r->m.u.device_info.nr_params; i++) {
		const struct ferry_param *p = &r->m.u.device_info.params[i];
		if (p->id == DRM_V3D_PARAM_V3D_CORE0_IDENT0)
			ident0 = (p->value >> 24) == 7;
		if (p->id == DRM_V3D_PARAM_SUPPORTS_TFU)
			tfu = p->value == 1;
	}
	CHECK(ident0);
	CHECK(tfu);
	m = (struct ferry_msg){ .kind = FERRY_MSG_DEVICE_QUERY };
	m.u.device_query.family = FERRY_FAMILY_MSM;
	CHECK_ERROR(&hc, harness_request(&hc, &m), -ENODEV);

	CHECK_ERROR(&hc, req_context_create(&hc, 1), -ENODEV); /* msm on a V3D host */
	r = harness_reply(&hc, req_v3d_context(&hc, 2));
	REQUIRE(r && r->m.kind == FERRY_MSG_CONTEXT_CREATED);

	/* Queue kinds: default is CL; msm-style priorities and unknown kinds are refused. */
	CHECK(harness_reply(&hc, req_queue_kind(&hc, 2, 0, FERRY_QUEUE_KIND_DEFAULT, 0)) == NULL); /* no reply: ok */
	CHECK_ERROR(&hc, req_queue_kind(&hc, 2, 1, FERRY_QUEUE_KIND_V3D_TFU, 1), -EINVAL);
	CHECK_ERROR(&hc, req_queue_kind(&hc, 2, 1, 9, 0), -EINVAL);
	CHECK(harness_reply(&hc, req_queue_kind(&hc, 2, 1, FERRY_QUEUE_KIND_V3D_TFU, 0)) == NULL);

	/* BOs: no flags; addresses are the device's global offsets, distinct per BO. */
	CHECK_ERROR(&hc, req_bo_create(&hc, 2, 5, 4096, MSM_BO_WC_FLAG), -EINVAL);
	struct hbo a = make_bo(&hc, 2, 5, 4096), b = make_bo(&hc, 2, 6, 10000);
	CHECK(a.addr != 0 && b.addr != 0 && a.addr != b.addr);
	CHECK_EQ(b.size, 12288);

	/* An msm submit on a V3D context, and V3D submits that break the envelope. */
	m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 2, .queue_id = 0, .seqno = 1 };
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL);
	uint32_t ids[] = { 5 };
	m = (struct ferry_msg){ .kind = FERRY_MSG_V3D_SUBMIT_CL };
	m.u.v3d_submit_cl = (struct ferry_v3d_submit_cl){
		.ctx_id = 2, .queue_id = 0, .seqno = 1, .rcl_start = b.addr, .rcl_end = b.addr + 16,
		.nr_bos = 1, .bo_ids = ids,
	};
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL); /* RCL in a BO not listed */
	m.seq = 0;
	m.u.v3d_submit_cl.queue_id = 1;
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL); /* a TFU queue */
	m.seq = 0;
	m.u.v3d_submit_cl.queue_id = 0;
	m.u.v3d_submit_cl.nr_bos = 0;
	m.u.v3d_submit_cl.bo_ids = NULL;
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL); /* no BOs */
	uint32_t twice[] = { 5, 5 };
	m.seq = 0;
	m.u.v3d_submit_cl.nr_bos = 2;
	m.u.v3d_submit_cl.bo_ids = twice;
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL);
	m = (struct ferry_msg){ .kind = FERRY_MSG_V3D_SUBMIT_TFU };
	m.u.v3d_submit_tfu = (struct ferry_v3d_submit_tfu){
		.ctx_id = 2, .queue_id = 1, .seqno = 1, .iia = a.addr, .ioa = b.addr, .nr_bos = 1, .bo_ids = ids,
	};
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL); /* output outside bos[0] */
	harness_disconnect(&hc);
	ferry_host_destroy(host);
}

static void test_cl_copy(int ver, const char *gpu)
{
	struct ferry_host *host = make_host(gpu, false);
	struct harness_client hc;
	harness_connect(&hc, host, "t-v3d-copy");
	REQUIRE(harness_reply(&hc, req_v3d_context(&hc, 1))->m.kind == FERRY_MSG_CONTEXT_CREATED);
	REQUIRE(harness_reply(&hc, req_queue_kind(&hc, 1, 3, FERRY_QUEUE_KIND_V3D_CL, 0)) == NULL);
	const uint32_t w = 40, h = 20, stride = w * 4;
	struct hbo cl = make_bo(&hc, 1, 1, 3 * 8192), src = make_bo(&hc, 1, 2, 8192), dst = make_bo(&hc, 1, 3, 8192);
	struct v3d_clb_raster_job job = {
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = src.addr, .src_stride = stride, .dst_addr = dst.addr, .dst_stride = stride,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(ver, &job);
	struct hbo ta = make_bo(&hc, 1, 4, qms + 16384);
	job.tile_alloc_addr = ta.addr;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, ver, cl.cpu, 8192, cl.addr);
	v3d_clb_init(&rcl, ver, cl.cpu + 8192, 8192, cl.addr + 8192);
	v3d_clb_init(&ind, ver, cl.cpu + 16384, 8192, cl.addr + 16384);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	for (uint32_t i = 0; i < src.size; i++)
		src.cpu[i] = (uint8_t)(i * 7 + 3);
	memset(dst.cpu, 0, dst.size);

	uint32_t ids[] = { 1, 2, 3, 4 };
	struct ferry_msg m = { .kind = FERRY_MSG_V3D_SUBMIT_CL };
	m.u.v3d_submit_cl = (struct ferry_v3d_submit_cl){
		.ctx_id = 1, .queue_id = 3, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY,
		.bcl_start = cl.addr, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = cl.addr + 8192,
		.rcl_end = v3d_clb_gpu_addr(&rcl), .qma = ta.addr, .qms = qms, .qts = ta.addr,
		.nr_bos = 4, .bo_ids = ids,
	};
	uint32_t s = harness_request(&hc, &m);
	CHECK(harness_reply(&hc, s) == NULL); /* asynchronous: no reply */
	HARNESS_RUN_UNTIL(host, harness_find(&hc, FERRY_MSG_FENCE_SIGNALED), 20000);
	struct rx_msg *ev = harness_find(&hc, FERRY_MSG_FENCE_SIGNALED);
	REQUIRE(ev);
	CHECK_EQ(ev->m.u.fence_signaled.queue_id, 3);
	CHECK_EQ(ev->m.u.fence_signaled.seqno, 1);
	CHECK_EQ(ev->m.u.fence_signaled.status, 0);
	CHECK(memcmp(dst.cpu, src.cpu, (size_t)stride * h) == 0);
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.submits, 1);
	CHECK_EQ(st.faults, 0);

	/* The seqno window (as for msm): with seqno 2 unretired, 0x80000000 is accepted but
	 * 0xfffffff0 (2^31 or more past 2) is refused; once both retired it is accepted. Nothing
	 * retires before HARNESS_RUN_UNTIL dispatches. */
	harness_clear(&hc);
	memset(dst.cpu, 0, dst.size);
	m.seq = 0;
	m.u.v3d_submit_cl.seqno = 2;
	CHECK(harness_reply(&hc, harness_request(&hc, &m)) == NULL);
	m.seq = 0;
	m.u.v3d_submit_cl.seqno = 0x80000000u;
	CHECK(harness_reply(&hc, harness_request(&hc, &m)) == NULL);
	m.seq = 0;
	m.u.v3d_submit_cl.seqno = 0xfffffff0u;
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL);
	HARNESS_RUN_UNTIL(host, harness_count(&hc, FERRY_MSG_FENCE_SIGNALED) == 2, 20000);
	CHECK_EQ(harness_count(&hc, FERRY_MSG_FENCE_SIGNALED), 2);
	CHECK(memcmp(dst.cpu, src.cpu, (size_t)stride * h) == 0);
	harness_clear(&hc);
	m.seq = 0;
	CHECK(harness_reply(&hc, harness_request(&hc, &m)) == NULL);
	HARNESS_RUN_UNTIL(host, harness_find(&hc, FERRY_MSG_FENCE_SIGNALED), 20000);
	ev = harness_find(&hc, FERRY_MSG_FENCE_SIGNALED);
	REQUIRE(ev);
	CHECK_EQ(ev->m.u.fence_signaled.seqno, 0xfffffff0u);
	CHECK_EQ(ev->m.u.fence_signaled.status, 0);

	/* A job held for another queue's fence is validated when it arrives, as msm submits are: a
	 * refused one is answered at once (the seqno not taken), not later as a failed fence. */
	harness_clear(&hc);
	memset(dst.cpu, 0, dst.size);
	REQUIRE(harness_reply(&hc, req_queue_kind(&hc, 1, 5, FERRY_QUEUE_KIND_V3D_CL, 0)) == NULL);
	m.seq = 0;
	m.u.v3d_submit_cl.seqno = 0xfffffff1u; /* unretired until the host dispatches */
	CHECK(harness_reply(&hc, harness_request(&hc, &m)) == NULL);
	struct ferry_fence_ref in = { .queue_id = 3, .seqno = 0xfffffff1u };
	struct ferry_msg held = m;
	held.seq = 0;
	held.u.v3d_submit_cl.queue_id = 5;
	held.u.v3d_submit_cl.seqno = 1;
	held.u.v3d_submit_cl.in_fences = &in;
	held.u.v3d_submit_cl.nr_in_fences = 1;
	uint8_t saved = cl.cpu[8192];
	cl.cpu[8192] = 0xff; /* no V3D packet has this opcode */
	CHECK_ERROR(&hc, harness_request(&hc, &held), -EINVAL);
	cl.cpu[8192] = saved;
	held.seq = 0;
	CHECK(harness_reply(&hc, harness_request(&hc, &held)) == NULL); /* the same seqno, now valid: held */
	HARNESS_RUN_UNTIL(host, harness_count(&hc, FERRY_MSG_FENCE_SIGNALED) == 2, 20000);
	CHECK_EQ(harness_count(&hc, FERRY_MSG_FENCE_SIGNALED), 2);
	for (int i = 0; i < hc.n; i++)
		if (hc.msgs[i].m.kind == FERRY_MSG_FENCE_SIGNALED)
			CHECK_EQ(hc.msgs[i].m.u.fence_signaled.status, 0);
	CHECK(memcmp(dst.cpu, src.cpu, (size_t)stride * h) == 0);
	harness_disconnect(&hc);
	ferry_host_destroy(host);
}

static void test_copies(void)
{
	test_cl_copy(42, "v3d-4.2");
	test_cl_copy(71, "v3d-7.1");
}

static void test_tenancy(void)
{
	struct ferry_host *host = make_host("v3d-4.2", false);
	struct harness_client a, b;
	harness_connect(&a, host, "t-a");
	harness_connect(&b, host, "t-b");
	REQUIRE(harness_reply(&a, req_v3d_context(&a, 1))->m.kind == FERRY_MSG_CONTEXT_CREATED);
	uint32_t s = req_v3d_context(&b, 1);
	CHECK_ERROR(&b, s, -EBUSY);
	CHECK(strstr(harness_reply(&b, s)->m.u.error.message, "exclusive tenancy") != NULL);
	/* Disconnecting frees the device. */
	harness_disconnect(&a);
	CHECK_EQ(harness_reply(&b, req_v3d_context(&b, 1))->m.kind, FERRY_MSG_CONTEXT_CREATED);
	harness_disconnect(&b);
	ferry_host_destroy(host);

	host = make_host("v3d-4.2", true);
	harness_connect(&a, host, "t-a");
	harness_connect(&b, host, "t-b");
	CHECK_EQ(harness_reply(&a, req_v3d_context(&a, 1))->m.kind, FERRY_MSG_CONTEXT_CREATED);
	CHECK_EQ(harness_reply(&b, req_v3d_context(&b, 1))->m.kind, FERRY_MSG_CONTEXT_CREATED);
	harness_disconnect(&a);
	harness_disconnect(&b);
	ferry_host_destroy(host);
}

/* A passthrough raster copy writing to an unmapped address: an MMU fault, reported (fault-address
 * line), and the lost context's later requests say where, in V3D's words (the packet it ran). */
static void test_mmu_fault_lost_reason(void)
{
	const int ver = 42;
	struct ferry_host_config cfg = { .gpu = "v3d-4.2", .allow_passthrough = true };
	struct ferry_host *host = NULL;
	REQUIRE(ferry_host_create(&cfg, &host) == 0);
	struct harness_client hc;
	harness_connect(&hc, host, "t-v3d-fault");
	struct ferry_msg cm = { .kind = FERRY_MSG_CONTEXT_CREATE };
	cm.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_V3D,
							     .policy = FERRY_POLICY_PASSTHROUGH };
	REQUIRE(harness_reply(&hc, harness_request(&hc, &cm))->m.kind == FERRY_MSG_CONTEXT_CREATED);
	REQUIRE(harness_reply(&hc, req_queue_kind(&hc, 1, 3, FERRY_QUEUE_KIND_V3D_CL, 0)) == NULL);
	const uint32_t w = 40, h = 20, stride = w * 4;
	struct hbo cl = make_bo(&hc, 1, 1, 3 * 8192), src = make_bo(&hc, 1, 2, 8192);
	struct v3d_clb_raster_job job = {
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = V3D_INTERNAL_TYPE_8UI,
		.src_addr = src.addr, .src_stride = stride, .dst_addr = 0xf0000000u, .dst_stride = stride,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(ver, &job);
	struct hbo ta = make_bo(&hc, 1, 4, qms + 16384);
	job.tile_alloc_addr = ta.addr;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, ver, cl.cpu, 8192, cl.addr);
	v3d_clb_init(&rcl, ver, cl.cpu + 8192, 8192, cl.addr + 8192);
	v3d_clb_init(&ind, ver, cl.cpu + 16384, 8192, cl.addr + 16384);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	uint32_t ids[] = { 1, 2, 4 };
	struct ferry_msg m = { .kind = FERRY_MSG_V3D_SUBMIT_CL };
	m.u.v3d_submit_cl = (struct ferry_v3d_submit_cl){
		.ctx_id = 1, .queue_id = 3, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY,
		.bcl_start = cl.addr, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = cl.addr + 8192,
		.rcl_end = v3d_clb_gpu_addr(&rcl), .qma = ta.addr, .qms = qms, .qts = ta.addr,
		.nr_bos = 3, .bo_ids = ids,
	};
	CHECK(harness_reply(&hc, harness_request(&hc, &m)) == NULL);
	HARNESS_RUN_UNTIL(host, harness_find(&hc, FERRY_MSG_FAULT_REPORT), 20000);
	struct rx_msg *fr = harness_find(&hc, FERRY_MSG_FAULT_REPORT);
	REQUIRE(fr);
	CHECK(strstr(fr->m.u.fault_report.text, "fault-address: 0xf0000000") != NULL);
	m.seq = 0;
	m.u.v3d_submit_cl.seqno = 2;
	struct rx_msg *r = harness_reply(&hc, harness_request(&hc, &m));
	REQUIRE(r && r->m.kind == FERRY_MSG_ERROR);
	CHECK_EQ(r->m.u.error.error, -EIO);
	const char *why = r->m.u.error.message;
	CHECK(strstr(why, "context 1 lost after a GPU MMU fault at 0xf0000000 (render packet at 0x") == why);
	CHECK(strstr(why, "; queue 3 seqno 1); create a new context") != NULL);
	harness_disconnect(&hc);
	ferry_host_destroy(host);
}

int main(void)
{
	int fds = harness_open_fds();
	RUN_TEST(test_device_and_objects);
	RUN_TEST(test_copies);
	RUN_TEST(test_tenancy);
	RUN_TEST(test_mmu_fault_lost_reason);
	CHECK_EQ(harness_open_fds(), fds);
	return test_finish();
}
