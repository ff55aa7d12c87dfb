/* End to end on 4.2 and 7.1: a v3dv-shaped raster copy job (v3d_clb_raster_bin / _render) built in
 * the guest's BOs, validated and relocated into shadows, then the guest rewrites its lists to
 * copy into another client's memory; the simulated CLE runs the shadows over fake GPU memory
 * (context BOs, another context's BO, and the shadows only, each shadow followed by unmapped
 * space) and produces the right bytes, leaving the other client untouched. */
#include "v3dval_harness.h"

#define BCL 0x00100000u
#define RCL 0x00110000u
#define IND 0x00120000u
#define TA 0x00200000u
#define TS 0x00240000u
#define SRC 0x01000000u
#define DST 0x02000000u
#define FOREIGN 0x03000000u
#define CL_SIZE 0x4000u

struct copy_case {
	uint32_t w, h, format, cpp, bpp, type42, type71;
};

static const struct copy_case cases[] = {
	{ 100, 70, V3D_CL_FMT_RGBA8UI, 4, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, V3D71_RT_8UI },
	{ 33, 129, V3D_CL_FMT_RGBA32UI, 16, V3D_INTERNAL_BPP_128, V3D_INTERNAL_TYPE_32UI, V3D71_RT_32UI },
	{ 1000, 3, V3D_CL_FMT_R8UI, 1, V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, V3D71_RT_8UI },
};

static uint32_t round_page(uint64_t n) { return (uint32_t)((n + 4095) & ~4095ull); }

static void run_case(int ver, const struct copy_case *cc)
{
	struct harness h;
	h_init(&h, ver);
	uint32_t stride = cc->w * cc->cpp + 8, size = round_page((uint64_t)stride * cc->h);
	struct v3d_clb_raster_job job = {
		.width = cc->w, .height = cc->h, .format = cc->format, .bpp = cc->bpp,
		.type = ver == 42 ? cc->type42 : cc->type71,
		.src_addr = SRC, .src_stride = stride, .dst_addr = DST, .dst_stride = stride, .tile_alloc_addr = TA,
	};
	uint32_t qms = v3d_clb_raster_tile_alloc_size(ver, &job);
	uint8_t *bcl_mem = h_bo(&h, BCL, CL_SIZE);
	uint8_t *rcl_mem = h_bo(&h, RCL, CL_SIZE);
	uint8_t *ind_mem = h_bo(&h, IND, CL_SIZE);
	h_bo(&h, TA, round_page((uint64_t)qms + 16384));
	h_bo(&h, TS, 0x10000);
	uint8_t *src = h_bo(&h, SRC, size);
	uint8_t *dst = h_bo(&h, DST, size);
	uint8_t *foreign = h_foreign(&h, FOREIGN, size);
	uint32_t seed = 0x9e3779b9u ^ cc->w;
	for (uint32_t i = 0; i < size; i++) {
		seed = seed * 1103515245u + 12345u;
		src[i] = (uint8_t)(seed >> 16);
	}
	memset(dst, 0xab, size);
	memset(foreign, 0xcd, size);

	struct v3d_clb bcl, rcl, ind;
	v3d_clb_init(&bcl, ver, bcl_mem, CL_SIZE, BCL);
	v3d_clb_init(&rcl, ver, rcl_mem, CL_SIZE, RCL);
	v3d_clb_init(&ind, ver, ind_mem, CL_SIZE, IND);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	struct h_job j = { .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = RCL,
			   .rcl_end = v3d_clb_gpu_addr(&rcl), .qma = TA, .qms = qms, .qts = TS };
	H_ACCEPT(&h, &j);
	CHECK_EQ(h.res.nr_segments, 3); /* bin, render, the generic tile list */
	CHECK(h.res.qma != TA && h_shadow_at(&h, h.res.qma) != NULL); /* host tile memory */
	uint8_t *ta_mem = h_ptr(&h, TA);
	memset(ta_mem, 0x5a, qms);

	/* After validation the guest points its store at another client and its branch elsewhere. */
	uint8_t *store = NULL;
	for (uint32_t off = 0; off + 13 <= ind.len; off++)
		if (ind_mem[off] == V3D_CL_STORE_TILE_BUFFER_GENERAL &&
		    v3d_cl_get_address(ind_mem + off + 1, V3D_CL_LS_ADDRESS) == DST)
			store = ind_mem + off;
	REQUIRE(store);
	v3d_cl_set_address(store + 1, V3D_CL_LS_ADDRESS, FOREIGN);
	memset(rcl_mem, V3D_CL_NOP, rcl.len);

	struct v3d_cle_fault fault;
	enum v3d_cle_status st = h_run(&h, &fault);
	CHECK_EQ(st, V3D_CLE_DONE);
	if (st != V3D_CLE_DONE)
		fprintf(stderr, "  ver %d %ux%u: %s at 0x%08x (packet 0x%08x op %u)\n", ver, cc->w, cc->h,
			fault.what ? fault.what : "?", fault.addr, fault.packet_addr, fault.opcode);
	unsigned bad = 0;
	for (uint32_t y = 0; y < cc->h; y++)
		bad += memcmp(dst + (size_t)y * stride, src + (size_t)y * stride, cc->w * cc->cpp) != 0;
	CHECK_EQ(bad, 0);
	unsigned touched = 0;
	for (uint32_t i = 0; i < size; i++)
		touched += foreign[i] != 0xcd;
	CHECK_EQ(touched, 0);
	/* the binner wrote its tile lists into the host's tile memory, not the guest's */
	unsigned ta_touched = 0;
	for (uint32_t i = 0; i < qms; i++)
		ta_touched += ta_mem[i] != 0x5a;
	CHECK_EQ(ta_touched, 0);
	h_fini(&h);
}

static void test_validated_copy_runs(void)
{
	for (int ver = 42; ver <= 71; ver += 29)
		for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
			run_case(ver, &cases[c]);
}

/* The unvalidated guest lists, changed the same way, would have written into the other client:
 * this is what the shadow prevented. */
static void test_guest_lists_would_escape(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		h_init(&h, ver);
		const struct copy_case *cc = &cases[0];
		uint32_t stride = cc->w * cc->cpp, size = round_page((uint64_t)stride * cc->h);
		struct v3d_clb_raster_job job = {
			.width = cc->w, .height = cc->h, .format = cc->format, .bpp = cc->bpp,
			.type = ver == 42 ? cc->type42 : cc->type71,
			.src_addr = SRC, .src_stride = stride, .dst_addr = FOREIGN, .dst_stride = stride,
			.tile_alloc_addr = TA,
		};
		uint32_t qms = v3d_clb_raster_tile_alloc_size(ver, &job);
		uint8_t *bcl_mem = h_bo(&h, BCL, CL_SIZE);
		uint8_t *rcl_mem = h_bo(&h, RCL, CL_SIZE);
		uint8_t *ind_mem = h_bo(&h, IND, CL_SIZE);
		h_bo(&h, TA, round_page((uint64_t)qms + 16384));
		h_bo(&h, SRC, size);
		uint8_t *foreign = h_foreign(&h, FOREIGN, size);
		memset(foreign, 0xcd, size);
		struct v3d_clb bcl, rcl, ind;
		v3d_clb_init(&bcl, ver, bcl_mem, CL_SIZE, BCL);
		v3d_clb_init(&rcl, ver, rcl_mem, CL_SIZE, RCL);
		v3d_clb_init(&ind, ver, ind_mem, CL_SIZE, IND);
		REQUIRE(v3d_clb_raster_bin(&bcl, &job));
		REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
		struct h_job j = { .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = RCL,
				   .rcl_end = v3d_clb_gpu_addr(&rcl), .qma = TA, .qms = qms };
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Store Tile Buffer General at generic tile list");
		/* run the guest's own lists, as a passthrough context would */
		h.res = (struct v3dval_cl_result){ .bcl_start = j.bcl_start, .bcl_end = j.bcl_end, .rcl_start = j.rcl_start,
						   .rcl_end = j.rcl_end, .qma = TA, .qms = qms };
		CHECK_EQ(h_run(&h, NULL), V3D_CLE_DONE);
		unsigned touched = 0;
		for (uint32_t i = 0; i < size; i++)
			touched += foreign[i] != 0xcd;
		CHECK(touched > 0);
		h_fini(&h);
	}
}

/* A bin job that stops before the FLUSH that ends binning never has the binner terminate its
 * tile lists, so the render job runs whatever the host's tile memory held before (the shadow
 * allocator recycles memory: other jobs' lists). The validator must hand over tile memory that
 * runs nothing it did not check. (Found by tests/fuzz/fuzz_v3d.) */
static void test_unbinned_tile_memory_runs_nothing(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		h_init(&h, ver);
		const struct copy_case *cc = &cases[0];
		uint32_t stride = cc->w * cc->cpp, size = round_page((uint64_t)stride * cc->h);
		struct v3d_clb_raster_job job = {
			.width = cc->w, .height = cc->h, .format = cc->format, .bpp = cc->bpp,
			.type = ver == 42 ? cc->type42 : cc->type71,
			.src_addr = SRC, .src_stride = stride, .dst_addr = DST, .dst_stride = stride,
			.tile_alloc_addr = TA,
		};
		uint32_t qms = v3d_clb_raster_tile_alloc_size(ver, &job);
		uint8_t *bcl_mem = h_bo(&h, BCL, CL_SIZE);
		uint8_t *rcl_mem = h_bo(&h, RCL, CL_SIZE);
		uint8_t *ind_mem = h_bo(&h, IND, CL_SIZE);
		h_bo(&h, TA, round_page((uint64_t)qms + 16384));
		h_bo(&h, TS, 0x10000);
		h_bo(&h, SRC, size);
		h_bo(&h, DST, size);
		struct v3d_clb bcl, rcl, ind;
		v3d_clb_init(&bcl, ver, bcl_mem, CL_SIZE, BCL);
		v3d_clb_init(&rcl, ver, rcl_mem, CL_SIZE, RCL);
		v3d_clb_init(&ind, ver, ind_mem, CL_SIZE, IND);
		REQUIRE(v3d_clb_raster_bin(&bcl, &job));
		REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
		REQUIRE(bcl_mem[bcl.len - 1] == V3D_CL_FLUSH);
		/* the bin list ends just before its FLUSH */
		struct h_job j = { .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&bcl) - 1, .rcl_start = RCL,
				   .rcl_end = v3d_clb_gpu_addr(&rcl), .qma = TA, .qms = qms, .qts = TS };
		H_ACCEPT(&h, &j);
		struct v3d_cle_fault fault;
		enum v3d_cle_status st = h_run(&h, &fault);
		CHECK_EQ(st, V3D_CLE_DONE);
		if (st != V3D_CLE_DONE)
			fprintf(stderr, "  ver %d: %s at 0x%08x (packet 0x%08x op %u)\n", ver,
				fault.what ? fault.what : "?", fault.addr, fault.packet_addr, fault.opcode);
		h_fini(&h);
	}
}

int main(void)
{
	RUN_TEST(test_validated_copy_runs);
	RUN_TEST(test_guest_lists_would_escape);
	RUN_TEST(test_unbinned_tile_memory_runs_nothing);
	return test_finish();
}
