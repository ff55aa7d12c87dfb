/* The shadow pool under validated V3D contexts: 1000 CL jobs (bin + render, with tile-memory
 * shadows) in batches that each retire create no shadow BO after warm-up and still copy right;
 * tile memory above the largest size class gets a BO of its own, closed when its job retires;
 * recycled shadows beyond the context's reserve are given back once idle, and the client's
 * shadow quota refuses a job with -EDQUOT naming it. */
#include <sys/mman.h>

#include "host_harness.h"
#include "v3d_cl_builder.h"

static uint32_t req_v3d_context(struct harness_client *hc, uint32_t ctx_id)
{
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = ctx_id, .family = FERRY_FAMILY_V3D,
							     .policy = FERRY_POLICY_VALIDATED };
	return harness_request(hc, &m);
}

static uint32_t req_cl_queue(struct harness_client *hc, uint32_t ctx_id, uint32_t queue_id)
{
	struct ferry_msg m = { .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = ctx_id, .queue_id = queue_id,
							 .kind = FERRY_QUEUE_KIND_V3D_CL };
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

/* One client, validated context 1, CL queue 3, a raster copy job (BOs 1..4) built once. */
struct fixture {
	struct ferry_host *host;
	struct harness_client hc;
	struct hbo cl, src, dst, ta;
	struct ferry_v3d_submit_cl submit;
	uint32_t ids[4];
	uint32_t stride, height;
};

static void fixture_open_cfg(struct fixture *f, int ver, const char *gpu, uint32_t qms_extra,
			     const struct ferry_host_config *base)
{
	struct ferry_host_config cfg = { 0 };
	if (base)
		cfg = *base;
	cfg.gpu = gpu;
	cfg.log_level = FERRY_LOG_ERROR;
	REQUIRE(ferry_host_create(&cfg, &f->host) == 0);
	harness_connect(&f->hc, f->host, "t-v3d-pool");
	REQUIRE(harness_reply(&f->hc, req_v3d_context(&f->hc, 1))->m.kind == FERRY_MSG_CONTEXT_CREATED);
	REQUIRE(harness_reply(&f->hc, req_cl_queue(&f->hc, 1, 3)) == NULL);
	const uint32_t w = 64, h = 32;
	f->stride = w * 4;
	f->height = h;
	f->cl = make_bo(&f->hc, 1, 1, 3 * 8192);
	f->src = make_bo(&f->hc, 1, 2, f->stride * h);
	f->dst = make_bo(&f->hc, 1, 3, f->stride * h);
	struct v3d_clb_raster_job job = {
		.width = w, .height = h, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = f->src.addr, .src_stride = f->stride, .dst_addr = f->dst.addr, .dst_stride = f->stride,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(ver, &job) + qms_extra;
	f->ta = make_bo(&f->hc, 1, 4, qms + 16384);
	job.tile_alloc_addr = f->ta.addr;
	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, ver, f->cl.cpu, 8192, f->cl.addr);
	v3d_clb_init(&rcl, ver, f->cl.cpu + 8192, 8192, f->cl.addr + 8192);
	v3d_clb_init(&ind, ver, f->cl.cpu + 16384, 8192, f->cl.addr + 16384);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	for (uint32_t i = 0; i < 4; i++)
		f->ids[i] = i + 1;
	f->submit = (struct ferry_v3d_submit_cl){
		.ctx_id = 1, .queue_id = 3, .bcl_start = f->cl.addr, .bcl_end = v3d_clb_gpu_addr(&bcl),
		.rcl_start = f->cl.addr + 8192, .rcl_end = v3d_clb_gpu_addr(&rcl), .qma = f->ta.addr, .qms = qms,
		.qts = f->ta.addr, .nr_bos = 4, .bo_ids = f->ids,
	};
}

static void fixture_open(struct fixture *f, int ver, const char *gpu, uint32_t qms_extra)
{
	fixture_open_cfg(f, ver, gpu, qms_extra, NULL);
}

static void fixture_close(struct fixture *f)
{
	const struct hbo *bos[] = { &f->cl, &f->src, &f->dst, &f->ta };
	for (uint32_t i = 0; i < 4; i++)
		munmap(bos[i]->cpu, bos[i]->size);
	harness_disconnect(&f->hc);
	ferry_host_destroy(f->host);
}

static void send_job(struct fixture *f, uint32_t seqno, bool notify)
{
	struct ferry_msg m = { .kind = FERRY_MSG_V3D_SUBMIT_CL };
	m.u.v3d_submit_cl = f->submit;
	m.u.v3d_submit_cl.seqno = seqno;
	m.u.v3d_submit_cl.flags = notify ? FERRY_SUBMIT_NOTIFY : 0;
	CHECK(harness_reply(&f->hc, harness_request(&f->hc, &m)) == NULL); /* accepted: no reply */
}

/* Waits for the FENCE_SIGNALED of seqno (sent with notify) and clears the client's messages. */
static void wait_signaled(struct fixture *f, uint32_t seqno)
{
	HARNESS_RUN_UNTIL(f->host, harness_find(&f->hc, FERRY_MSG_FENCE_SIGNALED), 20000);
	struct rx_msg *ev = harness_find(&f->hc, FERRY_MSG_FENCE_SIGNALED);
	REQUIRE(ev);
	CHECK_EQ(ev->m.u.fence_signaled.seqno, seqno);
	CHECK_EQ(ev->m.u.fence_signaled.status, 0);
	CHECK_EQ(harness_count(&f->hc, FERRY_MSG_ERROR), 0);
	harness_clear(&f->hc);
}

static void fill_src(struct fixture *f, uint32_t salt)
{
	for (uint32_t i = 0; i < f->src.size; i++)
		f->src.cpu[i] = (uint8_t)(i * 7 + salt);
	memset(f->dst.cpu, 0, f->dst.size);
}

static void test_steady_state(int ver, const char *gpu)
{
	struct fixture f;
	fixture_open(&f, ver, gpu, 0);
	const uint32_t batch = 10, total = 1000, warm = 3 * batch;
	struct ferry_host_stats st;
	uint64_t created_warm = 0, bytes_warm = 0;
	for (uint32_t seqno = 1; seqno <= total; seqno++) {
		if (seqno == total - batch + 1)
			fill_src(&f, 11); /* the last batch copies a new pattern */
		send_job(&f, seqno, seqno % batch == 0);
		if (seqno % batch == 0)
			wait_signaled(&f, seqno);
		if (seqno == warm) {
			ferry_host_get_stats(f.host, &st);
			created_warm = st.shadow_bos_created;
			bytes_warm = st.shadow_bytes;
		}
	}
	ferry_host_get_stats(f.host, &st);
	CHECK(created_warm > 0);
	CHECK_EQ(st.shadow_bos_created, created_warm);
	CHECK_EQ(st.shadow_bytes, bytes_warm);
	CHECK_EQ(st.submits, total);
	CHECK_EQ(st.faults, 0);
	CHECK_EQ(st.validation_rejects, 0);
	CHECK(memcmp(f.dst.cpu, f.src.cpu, (size_t)f.stride * f.height) == 0);
	/* The pool goes with the context. */
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy.ctx_id = 1;
	harness_request(&f.hc, &m);
	ferry_host_get_stats(f.host, &st);
	CHECK_EQ(st.shadow_bytes, 0);
	fixture_close(&f);
}

static void test_steady_state_both(void)
{
	test_steady_state(42, "v3d-4.2");
	test_steady_state(71, "v3d-7.1");
}

/* Tile memory of 5 MiB: above the 4 MiB class, so a BO of its own per job, gone at retire. */
static void test_oversize_tile_memory(void)
{
	struct fixture f;
	fixture_open(&f, 42, "v3d-4.2", 5u << 20);
	struct ferry_host_stats st;
	for (uint32_t seqno = 1; seqno <= 3; seqno++) {
		fill_src(&f, seqno);
		send_job(&f, seqno, true);
		ferry_host_get_stats(f.host, &st);
		CHECK(st.shadow_bytes > f.submit.qms); /* in flight: the tile memory shadow is held */
		wait_signaled(&f, seqno);
		CHECK(memcmp(f.dst.cpu, f.src.cpu, (size_t)f.stride * f.height) == 0);
		ferry_host_get_stats(f.host, &st);
		CHECK(st.shadow_bytes < (4u << 20)); /* retired: closed, only pooled chunks stay */
	}
	CHECK_EQ(st.faults, 0);
	fixture_close(&f);
}

static uint64_t shadow_bytes(struct fixture *f)
{
	struct ferry_host_stats st;
	ferry_host_get_stats(f->host, &st);
	return st.shadow_bytes;
}

/* Eight jobs in flight at once, each with ~1 MiB of tile memory (a 4 MiB chunk): once they
 * retired and the pool sat idle, only the context's reserve (4 MiB) stays. */
static void test_idle_shadows_given_back(void)
{
	struct fixture f;
	fixture_open(&f, 42, "v3d-4.2", 1u << 20);
	for (uint32_t seqno = 1; seqno <= 8; seqno++)
		send_job(&f, seqno, seqno == 8);
	uint64_t peak = shadow_bytes(&f);
	CHECK(peak >= 8ull * f.submit.qms);
	wait_signaled(&f, 8);
	HARNESS_RUN_UNTIL(f.host, shadow_bytes(&f) <= (4u << 20), 5000);
	CHECK(shadow_bytes(&f) <= (4u << 20));
	/* And the pool still works after giving memory back. */
	fill_src(&f, 5);
	send_job(&f, 9, true);
	wait_signaled(&f, 9);
	CHECK(memcmp(f.dst.cpu, f.src.cpu, (size_t)f.stride * f.height) == 0);
	fixture_close(&f);
}

/* --max-client-shadow-mib 8, ratio 1: jobs of ~1 MiB tile memory each are taken until their
 * shadows fill the quota; the next is refused with -EDQUOT and a message naming the quota
 * (nothing else changes), and goes through once the others retired. */
static void test_shadow_quota(void)
{
	const struct ferry_host_config base = { .max_client_shadow_mib = 8, .max_client_shadow_ratio = 1 };
	struct fixture f;
	fixture_open_cfg(&f, 42, "v3d-4.2", 1u << 20, &base);
	struct ferry_host_stats st;
	struct ferry_msg m = { .kind = FERRY_MSG_V3D_SUBMIT_CL };
	m.u.v3d_submit_cl = f.submit;
	uint32_t refused = 0;
	for (uint32_t seqno = 1; seqno <= 32 && !refused; seqno++) {
		m.u.v3d_submit_cl.seqno = seqno;
		uint32_t seq = harness_request(&f.hc, &m);
		if (harness_reply(&f.hc, seq))
			refused = seqno;
	}
	/* 8 MiB holds at least the tile memory of six jobs besides their control lists. */
	CHECK(refused > 6);
	struct rx_msg *r = harness_find(&f.hc, FERRY_MSG_ERROR);
	CHECK(r && r->m.u.error.error == -EDQUOT);
	CHECK(r && r->m.u.error.message && strstr(r->m.u.error.message, "client quota") &&
	      strstr(r->m.u.error.message, "--max-client-shadow-mib"));
	ferry_host_get_stats(f.host, &st);
	CHECK_EQ(st.shadow_quota_refusals, 1);
	CHECK_EQ(st.submits, refused - 1);
	CHECK(st.shadow_bytes <= (8u << 20) + st.bo_bytes);
	harness_clear(&f.hc);
	HARNESS_RUN_UNTIL(f.host, (ferry_host_get_stats(f.host, &st), st.fences_signaled >= refused - 1), 20000);
	CHECK(st.fences_signaled >= refused - 1);
	fill_src(&f, 3);
	send_job(&f, refused, true);
	wait_signaled(&f, refused);
	CHECK(memcmp(f.dst.cpu, f.src.cpu, (size_t)f.stride * f.height) == 0);
	fixture_close(&f);
}

int main(void)
{
	int fds = harness_open_fds();
	RUN_TEST(test_steady_state_both);
	RUN_TEST(test_oversize_tile_memory);
	RUN_TEST(test_idle_shadows_given_back);
	RUN_TEST(test_shadow_quota);
	CHECK_EQ(harness_open_fds(), fds);
	return test_finish();
}
