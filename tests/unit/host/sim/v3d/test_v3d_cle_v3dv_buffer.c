/* v3dv's (Mesa 22.3) vkCmdCopyBuffer / vkCmdFillBuffer / vkCmdUpdateBuffer jobs on the CLE: the
 * builder's lists are byte for byte what /work/notes/v3dv-buffer-cl.md transcribes from v3dv, the
 * job split follows v3dv's, and every job run bin then render over fake memory writes exactly the
 * destination bytes: all of them right, none outside the range, the source untouched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "v3dv_buffer_cases.h"
#include "v3d_cl_builder.h"
#include "v3d_fake_mem.h"

#define BCL_ADDR 0x00100000u
#define RCL_ADDR 0x00110000u
#define IND_ADDR 0x00120000u
#define TA_ADDR 0x00200000u
#define SRC_ADDR 0x01000000u
#define DST_ADDR 0x02000000u
#define CL_BO_SIZE 4096u /* v3dv's CL BOs: one page each for these small lists */
/* the largest job's tile memory as v3dv sizes it (the fill of 1000 x 1024: 256 tiles x 64 B, plus
 * 8 KiB and 512 KiB) */
#define TA_SIZE (16384u + 8192u + 512u * 1024u)

/* Independent transcription (from v3d_packet.xml's field definitions, not through ferry's builder)
 * of v3dv 22.3's lists for a 1000-byte copy at src+1 / dst+3 (R8UI 125 x 8) and a 4096-byte fill
 * of 0xdeadbeef at dst+4 (32 x 32), with the BOs at the addresses above. */
static const uint8_t golden_copy1000_bcl[14] = {
	0x77, 0x00, 0x78, 0x00, 0x00, 0x00, 0x00, 0x7c, 0x00, 0x07, 0x00, 0x13, 0x06, 0x04,
};
static const uint8_t golden_copy1000_rcl[98] = {
	0x79, 0x00, 0x7d, 0x00, 0x08, 0x00, 0x40, 0x00, 0x00, 0x79, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x79, 0x02, 0x00, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x7e, 0x04, 0x7b, 0x00, 0x00,
	0x20, 0x00, 0x7a, 0x00, 0x00, 0x02, 0x01, 0x02, 0x10, 0x00, 0x00, 0x7c, 0x00, 0x00, 0x00, 0x1a,
	0x1d, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1b, 0x7c, 0x00,
	0x00, 0x00, 0x1a, 0x1d, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x1b, 0x13, 0x14, 0x00, 0x00, 0x12, 0x00, 0x20, 0x00, 0x12, 0x00, 0x17, 0x00, 0x00, 0x17, 0x01,
	0x00, 0x0d,
};
static const uint8_t golden_copy1000_ind[32] = {
	0x7d, 0x1e, 0x00, 0x40, 0x02, 0xd0, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x1a, 0x15,
	0x00, 0x1d, 0x00, 0x40, 0x02, 0xd0, 0x07, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x02, 0x1b, 0x12,
};
static const uint8_t golden_fill4096_bcl[14] = {
	0x77, 0x00, 0x78, 0x00, 0x00, 0x00, 0x00, 0x1f, 0x00, 0x1f, 0x00, 0x13, 0x06, 0x04,
};
static const uint8_t golden_fill4096_rcl[106] = {
	0x79, 0x00, 0x20, 0x00, 0x20, 0x00, 0x40, 0x00, 0x00, 0x79, 0x03, 0xef, 0xbe, 0xad, 0xde, 0x00,
	0x00, 0x00, 0x79, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x79, 0x02, 0x00, 0xef, 0xbe,
	0xad, 0xde, 0x00, 0x00, 0x7e, 0x04, 0x7b, 0x00, 0x00, 0x20, 0x00, 0x7a, 0x00, 0x00, 0x01, 0x01,
	0x01, 0x10, 0x00, 0x00, 0x7c, 0x00, 0x00, 0x00, 0x1a, 0x1d, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x19, 0x03, 0x1b, 0x7c, 0x00, 0x00, 0x00, 0x1a, 0x1d, 0x08,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1b, 0x13, 0x14, 0x00, 0x00,
	0x12, 0x00, 0x13, 0x00, 0x12, 0x00, 0x17, 0x00, 0x00, 0x0d,
};
static const uint8_t golden_fill4096_ind[19] = {
	0x7d, 0x1a, 0x15, 0x00, 0x1d, 0x00, 0x20, 0x02, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00,
	0x02, 0x1b, 0x12,
};

static void check_bytes(const struct v3d_clb *b, const uint8_t *golden, uint32_t len, const char *what)
{
	CHECK(v3d_clb_ok(b));
	CHECK_EQ(b->len, len);
	if (b->len != len || memcmp(b->buf, golden, len)) {
		CHECK(0);
		for (uint32_t i = 0; i < len && i < b->len; i++)
			if (b->buf[i] != golden[i]) {
				fprintf(stderr, "  %s: first difference at +0x%x: 0x%02x, v3dv 0x%02x\n", what, i,
					b->buf[i], golden[i]);
				break;
			}
	}
}

/* The builder's v3dv-shaped jobs are v3dv's bytes (4.2: the only version v3dv 22.3 drives). */
static void test_lists_are_v3dvs(void)
{
	static uint8_t bcl_mem[CL_BO_SIZE], rcl_mem[CL_BO_SIZE], ind_mem[CL_BO_SIZE];
	const uint32_t fill_color[4] = { 0xdeadbeefu, 0, 0, 0 };
	for (int which = 0; which < 2; which++) {
		const struct v3dv_xfer *x = &v3dv_xfers[which ? 3 : 0];
		struct v3dv_xfer_job jobs[V3DV_XFER_MAX_JOBS];
		REQUIRE(v3dv_xfer_plan(x, jobs, V3DV_XFER_MAX_JOBS) == 1);
		/* the fill's destination is the copy's: DST_ADDR + offset */
		struct v3d_clb_raster_job job =
			v3dv_xfer_raster_job(V3D_VER_42, x, &jobs[0], SRC_ADDR, DST_ADDR, TA_ADDR, fill_color);
		struct v3d_clb bcl, rcl, ind;
		v3d_clb_init(&bcl, V3D_VER_42, bcl_mem, CL_BO_SIZE, BCL_ADDR);
		v3d_clb_init(&rcl, V3D_VER_42, rcl_mem, CL_BO_SIZE, RCL_ADDR);
		v3d_clb_init(&ind, V3D_VER_42, ind_mem, CL_BO_SIZE, IND_ADDR);
		CHECK(v3d_clb_raster_bin(&bcl, &job));
		CHECK(v3d_clb_raster_render(&rcl, &ind, &job));
		if (which) {
			check_bytes(&bcl, golden_fill4096_bcl, sizeof(golden_fill4096_bcl), "fill bcl");
			check_bytes(&rcl, golden_fill4096_rcl, sizeof(golden_fill4096_rcl), "fill rcl");
			check_bytes(&ind, golden_fill4096_ind, sizeof(golden_fill4096_ind), "fill tile list");
		} else {
			check_bytes(&bcl, golden_copy1000_bcl, sizeof(golden_copy1000_bcl), "copy bcl");
			check_bytes(&rcl, golden_copy1000_rcl, sizeof(golden_copy1000_rcl), "copy rcl");
			check_bytes(&ind, golden_copy1000_ind, sizeof(golden_copy1000_ind), "copy tile list");
		}
	}
}

/* v3dv's split of each transfer: item size, frames, job count. */
static void test_job_split(void)
{
	for (unsigned c = 0; c < V3DV_NR_XFERS; c++) {
		const struct v3dv_xfer *x = &v3dv_xfers[c];
		struct v3dv_xfer_job jobs[V3DV_XFER_MAX_JOBS];
		uint32_t n = v3dv_xfer_plan(x, jobs, V3DV_XFER_MAX_JOBS);
		CHECK_EQ(n, x->nr_jobs);
		uint64_t covered = 0;
		for (uint32_t j = 0; j < n && j < V3DV_XFER_MAX_JOBS; j++) {
			CHECK_EQ(jobs[j].item, x->item);
			CHECK_EQ(jobs[j].width, x->frames[j][0]);
			CHECK_EQ(jobs[j].height, x->frames[j][1]);
			covered += (uint64_t)jobs[j].width * jobs[j].height * jobs[j].item;
		}
		CHECK_EQ(covered, x->size);
	}
	/* the frame rule's edges: the 4096 x 4096 cap, odd counts, one pixel */
	uint32_t w, h;
	v3d_clb_v3dv_frame(4096u * 4096u + 1u, &w, &h);
	CHECK(w == 4096 && h == 4096);
	v3d_clb_v3dv_frame(4096u * 4096u - 1u, &w, &h);
	CHECK(w == 4095 && h == 4096);
	v3d_clb_v3dv_frame(1, &w, &h);
	CHECK(w == 1 && h == 1);
	v3d_clb_v3dv_frame(4097, &w, &h); /* odd and too wide: 2048 x 2, then halved down to square */
	CHECK(w == 64 && h == 64);
	CHECK_EQ(v3d_clb_v3dv_copy_item_size(4, 8, 6), 2);
	CHECK_EQ(v3d_clb_v3dv_copy_item_size(4, 8, 12), 4);
	CHECK_EQ(v3d_clb_v3dv_copy_item_size(4, 9, 12), 1);
	CHECK_EQ(v3d_clb_v3dv_item_format(1), V3D_CL_FMT_R8UI);
	CHECK_EQ(v3d_clb_v3dv_item_format(2), V3D_CL_FMT_RG8UI);
	CHECK_EQ(v3d_clb_v3dv_item_format(4), V3D_CL_FMT_RGBA8UI);
}

#define SENTINEL 0xa7u

/* v3dv grows its supertiles (width and height in turn) until there are fewer than 256. */
static uint32_t supertiles(uint32_t tiles_x, uint32_t tiles_y)
{
	uint32_t sw = 1, sh = 1;
	for (;;) {
		uint32_t n = ((tiles_x + sw - 1) / sw) * ((tiles_y + sh - 1) / sh);
		if (n < 256)
			return n;
		if (sw < sh)
			sw++;
		else
			sh++;
	}
}

/* Runs every job of x bin then render on one pair of CLEs (the simulator keeps one per queue). */
static void run_xfer(int ver, const struct v3dv_xfer *x)
{
	struct v3dv_xfer_job jobs[V3DV_XFER_MAX_JOBS];
	uint32_t n = v3dv_xfer_plan(x, jobs, V3DV_XFER_MAX_JOBS);
	REQUIRE(n >= 1 && n <= V3DV_XFER_MAX_JOBS);
	/* the destination BO leaves a page before and after the range for sentinels */
	uint32_t src_size = x->fill ? 0 : (x->src_off + x->size + 4095u) & ~4095u;
	uint32_t dst_size = (x->dst_off + x->size + 4096u + 4095u) & ~4095u;

	struct fake_mem mem = { 0 };
	uint8_t *bcl_mem = fake_bo_add(&mem, BCL_ADDR, CL_BO_SIZE);
	uint8_t *rcl_mem = fake_bo_add(&mem, RCL_ADDR, CL_BO_SIZE);
	uint8_t *ind_mem = fake_bo_add(&mem, IND_ADDR, CL_BO_SIZE);
	fake_bo_add(&mem, TA_ADDR, TA_SIZE);
	uint8_t *src = src_size ? fake_bo_add(&mem, SRC_ADDR, src_size) : NULL;
	uint8_t *dst = fake_bo_add(&mem, DST_ADDR, dst_size);
	struct v3d_cle_mem iface = fake_mem_iface(&mem);
	uint8_t *src_copy = NULL;
	if (src) {
		uint32_t seed = 0x2545f491u ^ x->size;
		for (uint32_t i = 0; i < src_size; i++) {
			seed = seed * 1664525u + 1013904223u;
			src[i] = (uint8_t)(seed >> 24);
		}
		src_copy = malloc(src_size);
		REQUIRE(src_copy);
		memcpy(src_copy, src, src_size);
	}
	memset(dst, SENTINEL, dst_size);

	struct v3d_cle *bin = v3d_cle_create(ver), *render = v3d_cle_create(ver);
	REQUIRE(bin && render);
	const uint32_t color[4] = { x->data, 0, 0, 0 };
	for (uint32_t j = 0; j < n; j++) {
		struct v3d_clb_raster_job job = v3dv_xfer_raster_job(ver, x, &jobs[j], SRC_ADDR, DST_ADDR, TA_ADDR, color);
		uint32_t qms = v3d_clb_v3dv_tile_alloc_size(ver, &job);
		REQUIRE(qms <= TA_SIZE);
		struct v3d_clb bcl, rcl, ind;
		v3d_clb_init(&bcl, ver, bcl_mem, CL_BO_SIZE, BCL_ADDR);
		v3d_clb_init(&rcl, ver, rcl_mem, CL_BO_SIZE, RCL_ADDR);
		v3d_clb_init(&ind, ver, ind_mem, CL_BO_SIZE, IND_ADDR);
		REQUIRE(v3d_clb_raster_bin(&bcl, &job));
		REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));

		struct v3d_cle_semaphore sem = { 0 };
		struct v3d_cle_bin_regs regs = { .qma = TA_ADDR, .qms = qms, .qts = 0 };
		v3d_cle_reset_stats(render);
		v3d_cle_start(bin, V3D_CLE_BIN, BCL_ADDR, v3d_clb_gpu_addr(&bcl), &regs, &sem);
		v3d_cle_start(render, V3D_CLE_RENDER, RCL_ADDR, v3d_clb_gpu_addr(&rcl), NULL, &sem);
		CHECK_EQ(run_until_stop(bin, &iface, 64, 100), V3D_CLE_DONE);
		enum v3d_cle_status st = run_until_stop(render, &iface, 1024, 100000);
		CHECK_EQ(st, V3D_CLE_DONE);
		if (st != V3D_CLE_DONE && v3d_cle_fault(render))
			fprintf(stderr, "  %s job %u: %s at 0x%08x\n", x->name, j, v3d_cle_fault(render)->what,
				v3d_cle_fault(render)->addr);

		const struct v3d_cle_stats *s = v3d_cle_stats(render);
		uint32_t tiles_x = (jobs[j].width + 63) / 64, tiles_y = (jobs[j].height + 63) / 64;
		uint64_t bytes = (uint64_t)jobs[j].width * jobs[j].height * jobs[j].item;
		CHECK_EQ(s->unmodeled, 0);
		CHECK_EQ(s->tiles, (uint64_t)tiles_x * tiles_y + 2); /* + the two GFXH-1742 dummy tiles */
		CHECK_EQ(s->by_opcode[V3D_CL_SUPERTILE_COORDINATES], supertiles(tiles_x, tiles_y));
		CHECK_EQ(s->bytes_stored, bytes);
		CHECK_EQ(s->bytes_loaded, x->fill ? 0 : bytes);
	}
	v3d_cle_destroy(bin);
	v3d_cle_destroy(render);

	unsigned wrong = 0, outside = 0;
	for (uint32_t i = 0; i < x->size; i++)
		if (dst[x->dst_off + i] != v3dv_xfer_expected(x, src_copy, i))
			wrong++;
	for (uint32_t i = 0; i < dst_size; i++)
		if ((i < x->dst_off || i >= x->dst_off + x->size) && dst[i] != SENTINEL)
			outside++;
	CHECK_EQ(wrong, 0);
	CHECK_EQ(outside, 0);
	if (x->dst_off)
		CHECK_EQ(dst[x->dst_off - 1], SENTINEL);
	CHECK_EQ(dst[x->dst_off + x->size], SENTINEL);
	if (src)
		CHECK(memcmp(src, src_copy, src_size) == 0);
	if (wrong || outside)
		fprintf(stderr, "  ver %d %s: %u wrong, %u outside\n", ver, x->name, wrong, outside);
	free(src_copy);
	fake_mem_free(&mem);
}

static void test_transfers_run(void)
{
	/* 4.2 is what v3dv 22.3 drives; the 7.1 lists of the same shape run the same way */
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42)
		for (unsigned c = 0; c < V3DV_NR_XFERS; c++)
			run_xfer(ver, &v3dv_xfers[c]);
}

int main(void)
{
	RUN_TEST(test_lists_are_v3dvs);
	RUN_TEST(test_job_split);
	RUN_TEST(test_transfers_run);
	return test_finish();
}
