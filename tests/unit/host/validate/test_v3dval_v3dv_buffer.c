/* The validator on v3dv's (Mesa 22.3) buffer copy / fill / update jobs: each job is accepted with
 * the destination (and source) BO ending exactly at the transfer's last byte, its shadows run on
 * the CLE and write every destination byte right and nothing else; the same job with the BO one
 * byte shorter is rejected, naming the store (or the load) whose raster extent (rows - 1) x stride
 * + width x bytes per pixel leaves the BO. */
#include "v3dval_harness.h"

#include "v3dv_buffer_cases.h"

#define BCL 0x00100000u
#define RCL 0x00110000u
#define IND 0x00120000u
#define TA 0x00200000u
#define TS 0x00300000u
#define SRC 0x01000000u
#define DST 0x02000000u
#define CL_SIZE 4096u
#define TA_SIZE (16384u + 8192u + 512u * 1024u) /* v3dv's qms for the largest frame here */
#define TS_SIZE (256u * 256u)                   /* 256 B of tile state per tile, 256 tiles */
#define SENTINEL 0x3cu

enum shorten { SHORT_NONE, SHORT_DST, SHORT_SRC };

struct xfer_ctx {
	struct harness h;
	uint8_t *bcl, *rcl, *ind, *src, *dst;
	uint32_t src_size, dst_size;
};

/* The context: CL BOs, tile memory, the source BO ending at the last byte read and the
 * destination BO at the last byte written, one of them a byte short when asked. */
static void ctx_init(struct xfer_ctx *c, int ver, const struct v3dv_xfer *x, enum shorten sh)
{
	h_init(&c->h, ver);
	c->bcl = h_bo(&c->h, BCL, CL_SIZE);
	c->rcl = h_bo(&c->h, RCL, CL_SIZE);
	c->ind = h_bo(&c->h, IND, CL_SIZE);
	h_bo(&c->h, TA, TA_SIZE);
	h_bo(&c->h, TS, TS_SIZE);
	c->src = NULL;
	c->src_size = 0;
	if (!x->fill) {
		c->src_size = x->src_off + x->size - (sh == SHORT_SRC);
		c->src = h_bo(&c->h, SRC, c->src_size);
		uint32_t seed = 0x6b43a9b5u ^ x->size;
		for (uint32_t i = 0; i < c->src_size; i++) {
			seed = seed * 1103515245u + 12345u;
			c->src[i] = (uint8_t)(seed >> 16);
		}
	}
	c->dst_size = x->dst_off + x->size - (sh == SHORT_DST);
	c->dst = h_bo(&c->h, DST, c->dst_size);
	memset(c->dst, SENTINEL, c->dst_size);
}

/* Builds job j of x into the CL BOs and validates it: 0 or the rule. */
static int validate_job(struct xfer_ctx *c, const struct v3dv_xfer *x, const struct v3dv_xfer_job *j)
{
	int ver = c->h.ver;
	const uint32_t color[4] = { x->data, 0, 0, 0 };
	struct v3d_clb_raster_job job = v3dv_xfer_raster_job(ver, x, j, SRC, DST, TA, color);
	memset(c->bcl, 0, CL_SIZE);
	memset(c->rcl, 0, CL_SIZE);
	memset(c->ind, 0, CL_SIZE);
	struct v3d_clb bcl, rcl, ind;
	h_clb(&c->h, &bcl, BCL, CL_SIZE);
	h_clb(&c->h, &rcl, RCL, CL_SIZE);
	h_clb(&c->h, &ind, IND, CL_SIZE);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	uint32_t qms = v3d_clb_v3dv_tile_alloc_size(ver, &job), qts_size = v3d_clb_v3dv_tile_state_size(ver, &job);
	REQUIRE(qms <= TA_SIZE && qts_size <= TS_SIZE);
	struct h_job hj = { .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = RCL,
			    .rcl_end = v3d_clb_gpu_addr(&rcl), .qma = TA, .qms = qms, .qts = TS };
	return h_validate(&c->h, &hj);
}

/* Every job accepted and run: the destination holds the transfer, nothing else changed. */
static void run_exact(int ver, const struct v3dv_xfer *x)
{
	struct xfer_ctx c;
	ctx_init(&c, ver, x, SHORT_NONE);
	struct v3dv_xfer_job jobs[V3DV_XFER_MAX_JOBS];
	uint32_t n = v3dv_xfer_plan(x, jobs, V3DV_XFER_MAX_JOBS);
	REQUIRE(n >= 1 && n <= V3DV_XFER_MAX_JOBS);
	for (uint32_t j = 0; j < n; j++) {
		int rule = validate_job(&c, x, &jobs[j]);
		CHECK_EQ(rule, 0);
		if (rule) {
			fprintf(stderr, "  ver %d %s job %u: %s\n", ver, x->name, j, c.h.err.msg);
			continue;
		}
		CHECK_EQ(c.h.res.nr_segments, 3); /* bin, render, the generic tile list */
		struct v3d_cle_fault fault;
		enum v3d_cle_status st = h_run(&c.h, &fault);
		CHECK_EQ(st, V3D_CLE_DONE);
		if (st != V3D_CLE_DONE)
			fprintf(stderr, "  ver %d %s job %u: %s at 0x%08x\n", ver, x->name, j,
				fault.what ? fault.what : "?", fault.addr);
	}
	unsigned wrong = 0, outside = 0;
	for (uint32_t i = 0; i < x->size; i++)
		wrong += c.dst[x->dst_off + i] != v3dv_xfer_expected(x, c.src, i);
	for (uint32_t i = 0; i < x->dst_off; i++)
		outside += c.dst[i] != SENTINEL;
	CHECK_EQ(wrong, 0);
	CHECK_EQ(outside, 0);
	h_fini(&c.h);
}

/* With the destination (or source) BO one byte short, the job touching its last byte is rejected
 * at its store (load); the jobs before it still pass. */
static void run_short(int ver, const struct v3dv_xfer *x, enum shorten sh)
{
	struct xfer_ctx c;
	ctx_init(&c, ver, x, sh);
	struct v3dv_xfer_job jobs[V3DV_XFER_MAX_JOBS];
	uint32_t n = v3dv_xfer_plan(x, jobs, V3DV_XFER_MAX_JOBS);
	REQUIRE(n >= 1 && n <= V3DV_XFER_MAX_JOBS);
	for (uint32_t j = 0; j < n; j++) {
		int rule = validate_job(&c, x, &jobs[j]);
		if (j + 1 < n) {
			CHECK_EQ(rule, 0);
			continue;
		}
		CHECK_EQ(rule, V3DVAL_ERR_ADDRESS);
		const char *what = sh == SHORT_DST ? "Store Tile Buffer General at generic tile list"
						   : "Load Tile Buffer General at generic tile list";
		if (!strstr(c.h.err.msg, what)) {
			fprintf(stderr, "  ver %d %s: \"%s\" lacks \"%s\"\n", ver, x->name, c.h.err.msg, what);
			CHECK(0);
		}
		/* the message names the surface's start and its extent */
		uint32_t extent = jobs[j].width * jobs[j].height * jobs[j].item;
		uint32_t start = (sh == SHORT_DST ? DST + jobs[j].dst_off : SRC + jobs[j].src_off);
		char expect[64];
		snprintf(expect, sizeof(expect), "0x%08x (+0x%x bytes)", start, extent);
		if (!strstr(c.h.err.msg, expect)) {
			fprintf(stderr, "  ver %d %s: \"%s\" lacks \"%s\"\n", ver, x->name, c.h.err.msg, expect);
			CHECK(0);
		}
	}
	h_fini(&c.h);
}

static void test_accepted_and_exact(void)
{
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42)
		for (unsigned c = 0; c < V3DV_NR_XFERS; c++)
			run_exact(ver, &v3dv_xfers[c]);
}

static void test_one_byte_past_rejected(void)
{
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42) {
		for (unsigned c = 0; c < V3DV_NR_XFERS; c++) {
			run_short(ver, &v3dv_xfers[c], SHORT_DST);
			if (!v3dv_xfers[c].fill)
				run_short(ver, &v3dv_xfers[c], SHORT_SRC);
		}
	}
}

int main(void)
{
	RUN_TEST(test_accepted_and_exact);
	RUN_TEST(test_one_byte_past_rejected);
	return test_finish();
}
