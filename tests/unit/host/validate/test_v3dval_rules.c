/* V3D validator packet rules, each accepted and rejected on 4.2 and 7.1: unknown and forbidden
 * opcodes, packets in the wrong list, frame-level packets in sub-lists, address fields outside the
 * context / straddling a BO end / in another context's BO, load/store extents, draw-side address
 * packets, shader-state records, the binner's tile memory and implicit tile lists, 4 GiB edges. */
#include "v3d_val_internal.h" /* test_struct_word_reads: the derived word table */
#include "v3dval_harness.h"

#define CL 0x00100000u      /* lists: bcl +0, rcl +0x4000, sub-lists +0x8000 */
#define BCL CL
#define RCL (CL + 0x4000u)
#define SUB (CL + 0x8000u)
#define DATA 0x00200000u    /* 64 KiB */
#define DATA2 0x00210000u   /* 4 KiB, adjacent to DATA */
#define TA 0x00400000u      /* tile allocation memory, 128 KiB */
#define FOREIGN 0x00300000u /* another context's BO */
#define UNMAPPED 0x00500000u

static void setup(struct harness *h, int ver)
{
	h_init(h, ver);
	h_bo(h, CL, 0x10000);
	h_bo(h, DATA, 0x10000);
	h_bo(h, DATA2, 0x1000);
	h_foreign(h, FOREIGN, 0x10000);
	h_bo(h, TA, 0x20000);
}

/* rcl: Common 16x16, RT0, tile (0,0), store of `addr`, end of tile, END_OF_RENDERING */
static struct h_job store_job(struct harness *h, uint32_t addr, uint32_t stride)
{
	struct v3d_clb b;
	h_clb(h, &b, RCL, 0x4000);
	h_rcl_begin(h, &b, 16, 16);
	v3d_clb_tile_coordinates(&b, 0, 0);
	h_ls(&b, true, addr, stride);
	v3d_clb_op(&b, V3D_CL_END_OF_TILE_MARKER);
	h_rcl_end(&b);
	REQUIRE(v3d_clb_ok(&b));
	return (struct h_job){ .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&b) };
}

/* A bin list of the given raw packet bytes then FLUSH, with a minimal render list. */
static struct h_job bin_job(struct harness *h, const uint8_t *pkt, uint32_t len)
{
	struct v3d_clb b, r;
	h_clb(h, &b, BCL, 0x4000);
	v3d_clb_raw(&b, pkt, len);
	v3d_clb_op(&b, V3D_CL_FLUSH);
	h_clb(h, &r, RCL, 0x4000);
	h_rcl_begin(h, &r, 16, 16);
	h_rcl_end(&r);
	REQUIRE(v3d_clb_ok(&b) && v3d_clb_ok(&r));
	return (struct h_job){ .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&b), .rcl_start = RCL,
			       .rcl_end = v3d_clb_gpu_addr(&r) };
}

static uint32_t pack(uint8_t *pkt, uint8_t op, int ver)
{
	uint32_t len = v3d_cl_fixed_length(ver, op);
	memset(pkt, 0, 16);
	pkt[0] = op;
	return len;
}

static void test_accept_minimal(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct h_job j = store_job(&h, DATA, 64);
		H_ACCEPT(&h, &j);
		CHECK(h.res.rcl_start >= H_SHADOW_BASE);
		CHECK_EQ(h.res.rcl_end - h.res.rcl_start, j.rcl_end - j.rcl_start);
		CHECK_EQ(h.res.bcl_start, h.res.bcl_end);
		CHECK_EQ(h.res.nr_segments, 1);
		CHECK(memcmp(h_shadow_ptr(&h, h.res.rcl_start), h_ptr(&h, RCL), j.rcl_end - j.rcl_start) == 0);
		h_fini(&h);
	}
}

static void test_unknown_opcode(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t raw[16];
		/* 2 exists on neither version */
		raw[0] = 2;
		struct h_job j = bin_job(&h, raw, 1);
		H_REJECT(&h, &j, V3DVAL_ERR_UNKNOWN, "opcode 2 at bin list 0x00100000 (bo 100 +0x0)");
		/* Depth Bounds Test Limits exists on 7.1 only */
		uint32_t len = 9;
		memset(raw, 0, sizeof(raw));
		raw[0] = V3D_CL_DEPTH_BOUNDS_TEST_LIMITS;
		j = bin_job(&h, raw, len);
		if (ver == 42)
			H_REJECT(&h, &j, V3DVAL_ERR_UNKNOWN, NULL);
		else
			H_ACCEPT(&h, &j);
		h_fini(&h);
	}
}

static void test_forbidden_and_wrong_list(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t raw[16];
		/* forbidden everywhere */
		uint32_t len = pack(raw, V3D_CL_L2T_CACHE_FLUSH_CONTROL, ver);
		struct h_job j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, "L2T Cache Flush Control at bin list");
		len = pack(raw, V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST, ver);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, NULL);
		/* a render packet in the bin list */
		len = pack(raw, V3D_CL_STORE_TILE_BUFFER_GENERAL, ver);
		raw[1] = V3D_CL_BUFFER_NONE;
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, "Store Tile Buffer General at bin list 0x00100000 (bo 100 +0x0): not allowed in the bin list");
		len = pack(raw, V3D_CL_END_OF_RENDERING, ver);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, NULL);
		/* a bin packet in the render list */
		struct v3d_clb b;
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_vertex_array_prims(&b, 4, 3, 0);
		h_rcl_end(&b);
		j = (struct h_job){ .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&b) };
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, "Vertex Array Prims at render list");
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		struct v3d_clb_binning bcfg = { .width = 16, .height = 16, .num_rts = 1, .tile_w = 64, .tile_h = 64 };
		v3d_clb_tile_binning_mode_cfg(&b, &bcfg);
		h_rcl_end(&b);
		j.rcl_end = v3d_clb_gpu_addr(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, "Tile Binning Mode Cfg at render list");
		/* a policy can allow what the defaults refuse, and refuse what they allow */
		v3dval_policy_allow(&h.policy, V3DVAL_LIST_RENDER, V3D_CL_FLUSH_VCD_CACHE, false);
		h_set_policy(&h);
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_op(&b, V3D_CL_FLUSH_VCD_CACHE);
		h_rcl_end(&b);
		j.rcl_end = v3d_clb_gpu_addr(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, "Flush VCD cache");
		h_fini(&h);
	}
}

/* The generic tile list v3d and v3dv emit for every render job: Prim List Format and Set
 * InstanceID 0 (cl="B" in the xml) before the branch to the binner's list. The render list takes
 * Set InstanceID; Set PrimitiveID, which no driver puts there, stays refused. */
static struct h_job tile_list_job(struct harness *h, const uint8_t *pkt, uint32_t len)
{
	struct v3d_clb r, t;
	h_clb(h, &t, SUB, 0x4000);
	v3d_clb_op(&t, V3D_CL_TILE_COORDINATES_IMPLICIT);
	v3d_clb_op(&t, V3D_CL_END_OF_LOADS);
	static const uint8_t prim_list_format[2] = { V3D_CL_PRIM_LIST_FORMAT, 2 /* triangles */ };
	v3d_clb_raw(&t, prim_list_format, sizeof(prim_list_format));
	v3d_clb_raw(&t, pkt, len);
	h_ls(&t, true, DATA, 64);
	v3d_clb_op(&t, V3D_CL_END_OF_TILE_MARKER);
	v3d_clb_op(&t, V3D_CL_RETURN_FROM_SUB_LIST);
	h_clb(h, &r, RCL, 0x4000);
	h_rcl_begin(h, &r, 16, 16);
	v3d_clb_generic_tile_list(&r, SUB, v3d_clb_gpu_addr(&t));
	v3d_clb_supertile_coordinates(&r, 0, 0);
	h_rcl_end(&r);
	REQUIRE(v3d_clb_ok(&r) && v3d_clb_ok(&t));
	return (struct h_job){ .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&r) };
}

static void test_render_tile_list_packets(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t raw[16];
		uint32_t len = pack(raw, V3D_CL_SET_INSTANCEID, ver);
		struct h_job j = tile_list_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		len = pack(raw, V3D_CL_SET_PRIMITIVEID, ver);
		j = tile_list_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, "Set PrimitiveID at generic tile list");
		/* still a bin packet too */
		len = pack(raw, V3D_CL_SET_INSTANCEID, ver);
		j = bin_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		h_fini(&h);
	}
}

static void test_store_addresses(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		/* 16 x 16 RGBA8 at stride 64: 15 * 64 + 64 = 1024 bytes */
		struct h_job j = store_job(&h, DATA + 0x10000 - 1024, 64);
		H_ACCEPT(&h, &j); /* ends exactly at the BO's end */
		j = store_job(&h, DATA + 0x10000 - 1020, 64);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "(+0x400 bytes) outside the context's buffers");
		CHECK_EQ(h.err.bad_addr, DATA + 0x10000 - 1020);
		CHECK_EQ(h.err.opcode, V3D_CL_STORE_TILE_BUFFER_GENERAL);
		CHECK(h.err.in_bo && h.err.bo_id == 100 && h.err.list == V3DVAL_LIST_RENDER);
		/* straddling into an adjacent BO is still two BOs */
		j = store_job(&h, DATA2 - 512, 64);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		/* another context's BO, and nothing at all */
		j = store_job(&h, FOREIGN, 64);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Store Tile Buffer General at render list 0x0010401");
		j = store_job(&h, UNMAPPED, 64);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Address 0x00500000");
		/* a stride that makes the rows run past the end */
		j = store_job(&h, DATA, 0x1000);
		CHECK_EQ(h_validate(&h, &j), 0); /* 15 * 4 KiB + 64 fits in 64 KiB */
		j = store_job(&h, DATA, 0x1200);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		/* 4 GiB edges: rows that would wrap are rejected, not wrapped */
		j = store_job(&h, 0xfffffc00u, 64);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		j = store_job(&h, DATA, 0xfffff); /* 20-bit stride max */
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		h_fini(&h);
	}
}

/* Tiled, flipped and loads: the extent follows the memory format. */
static void test_load_store_formats(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct v3d_clb b;
		struct v3d_clb_ls ls = { .buffer = V3D_CL_BUFFER_RT0, .memory_format = V3D_CL_MEMORY_UIF_XOR,
					 .image_format = V3D_CL_FMT_RGBA8UI, .stride = 8 };
		/* UIF, cpp 4: utile 4x4, UIF block 8x8, columns 32 px: 16x16 -> 32 x max(8 * 8, 16) x 4 = 8 KiB */
		for (int k = 0; k < 2; k++) {
			ls.addr = DATA + 0x10000 - 8192 + (k ? 64 : 0);
			h_clb(&h, &b, RCL, 0x4000);
			h_rcl_begin(&h, &b, 16, 16);
			v3d_clb_tile_coordinates(&b, 0, 0);
			v3d_clb_load(&b, &ls);
			h_rcl_end(&b);
			struct h_job j = { .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&b) };
			if (k)
				H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Load Tile Buffer General");
			else
				H_ACCEPT(&h, &j);
		}
		/* Y flip: rows from height - 1 down; a height below the frame's would wrap */
		struct v3d_clb_ls flip = { .buffer = V3D_CL_BUFFER_RT0, .image_format = V3D_CL_FMT_RGBA8UI,
					   .stride = 64, .height = 32, .flip_y = true, .addr = DATA + 0x10000 - 2048 };
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_tile_coordinates(&b, 0, 0);
		v3d_clb_store(&b, &flip);
		h_rcl_end(&b);
		struct h_job j = { .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&b) };
		H_ACCEPT(&h, &j); /* 31 * 64 + 64 = 2048 */
		flip.addr += 4;
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_tile_coordinates(&b, 0, 0);
		v3d_clb_store(&b, &flip);
		h_rcl_end(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		flip.addr = DATA;
		flip.height = 8;
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_tile_coordinates(&b, 0, 0);
		v3d_clb_store(&b, &flip);
		h_rcl_end(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_MALFORMED, "Flip Y height 8");
		h_fini(&h);
	}
}

/* Frame-level packets only at top level; load/store needs the frame; geometry fixed once used. */
static void test_frame_state(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct v3d_clb b;
		/* store before the Common config */
		h_clb(&h, &b, RCL, 0x4000);
		v3d_clb_tile_coordinates(&b, 0, 0);
		h_ls(&b, true, DATA, 64);
		h_rcl_end(&b);
		struct h_job j = { .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&b) };
		H_REJECT(&h, &j, V3DVAL_ERR_STATE, NULL);
		/* a bigger frame after tile work would widen every store already checked */
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_tile_coordinates(&b, 0, 0);
		h_ls(&b, true, DATA + 0x10000 - 1024, 64);
		h_rcl_begin(&h, &b, 4096, 4096);
		h_rcl_end(&b);
		j.rcl_end = v3d_clb_gpu_addr(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_STATE, "frame geometry changes");
		/* the same geometry again is fine (v3dv repeats per-layer config) */
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_tile_coordinates(&b, 0, 0);
		h_rcl_begin(&h, &b, 16, 16);
		h_rcl_end(&b);
		j.rcl_end = v3d_clb_gpu_addr(&b);
		H_ACCEPT(&h, &j);
		/* explicit tile coordinates outside the frame (they index the implicit tile lists) */
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_tile_coordinates(&b, 1, 0);
		h_rcl_end(&b);
		j.rcl_end = v3d_clb_gpu_addr(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_MALFORMED, "tile (1, 0) outside the frame's 1x1 tiles");
		/* a Common config inside a sub-list */
		struct v3d_clb s;
		h_clb(&h, &s, SUB, 0x1000);
		h_rcl_begin(&h, &s, 16, 16);
		v3d_clb_op(&s, V3D_CL_RETURN_FROM_SUB_LIST);
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_branch_to_sub_list(&b, SUB);
		h_rcl_end(&b);
		j.rcl_end = v3d_clb_gpu_addr(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_LEVEL, "Tile Rendering Mode Cfg at render sub-list 0x00108000");
		/* an undefined sub-packet id */
		uint8_t raw[9] = { V3D_CL_TILE_RENDERING_MODE_CFG, 7 };
		h_clb(&h, &b, RCL, 0x4000);
		v3d_clb_raw(&b, raw, 9);
		h_rcl_end(&b);
		j.rcl_end = v3d_clb_gpu_addr(&b);
		H_REJECT(&h, &j, V3DVAL_ERR_MALFORMED, "sub-packet id 7");
		h_fini(&h);
	}
}

/* The validator remembers which opcodes pass on their list and level test alone
 * (v3dval_packet_plain): what passed at the top of the render list must still be refused in a
 * render sub-list and in the bin list, by the same validator, after it passed. */
static void test_plain_packets_per_list_and_level(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct h_job j = store_job(&h, DATA, 64); /* END_OF_RENDERING at the top: passes */
		H_ACCEPT(&h, &j);
		struct v3d_clb s, b;
		h_clb(&h, &s, SUB, 0x1000);
		v3d_clb_op(&s, V3D_CL_END_OF_RENDERING);
		v3d_clb_op(&s, V3D_CL_RETURN_FROM_SUB_LIST);
		h_clb(&h, &b, RCL, 0x4000);
		h_rcl_begin(&h, &b, 16, 16);
		v3d_clb_branch_to_sub_list(&b, SUB);
		h_rcl_end(&b);
		REQUIRE(v3d_clb_ok(&s) && v3d_clb_ok(&b));
		j = (struct h_job){ .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&b) };
		H_REJECT(&h, &j, V3DVAL_ERR_LEVEL, "at render sub-list");
		uint8_t raw[16];
		uint32_t len = pack(raw, V3D_CL_END_OF_RENDERING, ver);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, "at bin list");
		j = store_job(&h, DATA, 64);
		H_ACCEPT(&h, &j);
		h_fini(&h);
	}
}

/* nr packets the validator learns as plain in the bin list (draw state with zero payloads, NOP,
 * cache flush), cycling; off[i] = where packet i starts. Returns the bytes. */
static uint32_t plain_packets(uint8_t *raw, int ver, uint32_t nr, uint32_t *off)
{
	static const uint8_t ops[] = {
		V3D_CL_CFG_BITS, V3D_CL_CLIP_WINDOW, V3D_CL_VIEWPORT_OFFSET, V3D_CL_NOP,
		V3D_CL_CLIPPER_XY_SCALING, V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET, V3D_CL_FLUSH_VCD_CACHE,
	};
	uint32_t n = 0;
	for (uint32_t i = 0; i < nr; i++) {
		off[i] = n;
		n += pack(raw + n, ops[i % sizeof(ops)], ver);
	}
	return n;
}

static const char *at_bin(char *buf, size_t size, const char *level, uint32_t addr)
{
	snprintf(buf, size, "at bin %s 0x%08x ", level, addr);
	return buf;
}

/* Once the validator met a list's plain opcodes it passes runs of them without the per-packet
 * path (plain_run in v3d_cl_walk.c): the same totals and shadows as the first, full walk, and
 * whatever interrupts a run is still refused at the packet it is at - a forbidden opcode, a
 * frame-level packet in a sub-list, an address outside the context, a relocation on or inside a
 * plain packet, the list's end address inside a packet, the walk-byte limit. */
static void test_plain_runs(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t raw[40 * 16 + 16];
		uint32_t off[40], n = plain_packets(raw, ver, 40, off);
		char where[64];
		struct h_job j = bin_job(&h, raw, n);
		H_ACCEPT(&h, &j); /* learns the plain opcodes */
		struct v3dval_cl_result cold = h.res;
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.packets, cold.packets);
		CHECK_EQ(h.res.bytes, cold.bytes);
		CHECK_EQ(h.res.bcl_end - h.res.bcl_start, j.bcl_end - j.bcl_start);
		CHECK(memcmp(h_shadow_ptr(&h, h.res.bcl_start), h_ptr(&h, BCL), n + 1) == 0);

		/* a forbidden opcode, and an address outside the context, after a run */
		uint32_t len = pack(raw + n, V3D_CL_L2T_CACHE_FLUSH_CONTROL, ver);
		j = bin_job(&h, raw, n + len);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, at_bin(where, sizeof(where), "list", BCL + n));
		len = pack(raw + n, V3D_CL_INDEX_BUFFER_SETUP, ver);
		v3d_cl_set_address(raw + n + 1, V3D_CL_INDEX_BUFFER_ADDRESS, FOREIGN);
		v3d_cl_set(raw + n + 1, V3D_CL_INDEX_BUFFER_SIZE, 16);
		j = bin_job(&h, raw, n + len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, at_bin(where, sizeof(where), "list", BCL + n));

		/* a relocation on a plain packet mid-run, and one inside another */
		j = bin_job(&h, raw, n);
		struct v3dval_reloc r = { .cl_bo = 0, .cl_offset = off[20], .bo_index = 1, .bo_offset = 0,
					  .field_start = 0, .field_size = 32, .kind = V3DVAL_RELOC_PACKET };
		j.relocs = &r;
		j.nr_relocs = 1;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, at_bin(where, sizeof(where), "list", BCL + off[20]));
		CHECK(h_contains(h.err.msg, "are not an address field"));
		r.cl_offset = off[21] + 1;
		H_REJECT(&h, &j, V3DVAL_ERR_RELOC, at_bin(where, sizeof(where), "list", BCL + off[21]));
		CHECK(h_contains(h.err.msg, "inside the packet"));

		/* the list's end inside a packet mid-run */
		j = bin_job(&h, raw, n);
		j.bcl_end = BCL + off[25] + 1;
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, at_bin(where, sizeof(where), "list", BCL + off[25]));
		CHECK(h_contains(h.err.msg, "straddles"));
		j.bcl_end = BCL + off[25]; /* on a packet boundary: ends there */
		H_ACCEPT(&h, &j);

		/* a frame-level packet after a run in a sub-list (learned there first) */
		struct v3d_clb s;
		h_clb(&h, &s, SUB, 0x1000);
		v3d_clb_raw(&s, raw, n);
		v3d_clb_op(&s, V3D_CL_RETURN_FROM_SUB_LIST);
		uint8_t call[16];
		uint32_t call_len = pack(call, V3D_CL_BRANCH_TO_SUB_LIST, ver);
		v3d_cl_set_address(call + 1, V3D_CL_BRANCH_ADDRESS, SUB);
		j = bin_job(&h, call, call_len);
		H_ACCEPT(&h, &j);
		h_clb(&h, &s, SUB, 0x1000);
		v3d_clb_raw(&s, raw, n);
		v3d_clb_number_of_layers(&s, 1);
		v3d_clb_op(&s, V3D_CL_RETURN_FROM_SUB_LIST);
		REQUIRE(v3d_clb_ok(&s));
		H_REJECT(&h, &j, V3DVAL_ERR_LEVEL, at_bin(where, sizeof(where), "sub-list", SUB + n));

		/* the walk-byte limit reached mid-run: refused at the packet that passes it */
		j = bin_job(&h, raw, n);
		h.policy.max_walk_bytes = off[30] + 1;
		h_set_policy(&h);
		struct h_job warm = bin_job(&h, raw, off[8]);
		h_validate(&h, &warm); /* learns the opcodes again, whether or not the whole job fits */
		j = bin_job(&h, raw, n);
		H_REJECT(&h, &j, V3DVAL_ERR_LIMIT, at_bin(where, sizeof(where), "list", BCL + off[30]));
		h_fini(&h);
	}
}

/* Draws repeated: runs of plain packets split by a packet with an address. Returns the bytes;
 * *third = where the last run's third packet is. */
static uint32_t repeated_draws(uint8_t *raw, int ver, uint32_t draws, uint32_t *third)
{
	static const uint8_t ops[] = { V3D_CL_CFG_BITS, V3D_CL_CLIP_WINDOW, V3D_CL_NOP, V3D_CL_FLUSH_VCD_CACHE,
				       V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET };
	uint32_t n = 0;
	for (uint32_t d = 0; d < draws; d++) {
		for (size_t i = 0; i < sizeof(ops); i++) {
			if (i == 2)
				*third = n;
			n += pack(raw + n, ops[i], ver);
		}
		uint32_t len = pack(raw + n, V3D_CL_INDEX_BUFFER_SETUP, ver);
		v3d_cl_set_address(raw + n + 1, V3D_CL_INDEX_BUFFER_ADDRESS, DATA);
		v3d_cl_set(raw + n + 1, V3D_CL_INDEX_BUFFER_SIZE, 16);
		n += len;
	}
	return n;
}

/* A run that starts as the last one did is taken whole when its opcodes sit where the last
 * run's did (v->memo in plain_run): one that then differs - a forbidden opcode, a plain one of
 * another length, the list's end address inside it - is walked as the packets are. */
static void test_plain_run_memo(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t raw[4 * 64];
		uint32_t third, n = repeated_draws(raw, ver, 4, &third);
		char where[64];
		struct h_job j = bin_job(&h, raw, n);
		H_ACCEPT(&h, &j);
		H_ACCEPT(&h, &j);
		struct v3dval_cl_result same = h.res;
		/* the last draw's third packet forbidden */
		uint8_t nop = raw[third];
		raw[third] = V3D_CL_L2T_CACHE_FLUSH_CONTROL;
		j = bin_job(&h, raw, n);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, at_bin(where, sizeof(where), "list", BCL + third));
		/* a plain opcode one byte longer (the packet after it becomes a payload byte) */
		REQUIRE(v3d_cl_fixed_length(ver, V3D_CL_FLUSH_VCD_CACHE) == 1 && raw[third + 1] == V3D_CL_FLUSH_VCD_CACHE);
		raw[third] = V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET;
		uint32_t zlen = v3d_cl_fixed_length(ver, V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET);
		memset(raw + third + 1, 0, zlen - 1);
		raw[third + zlen] = V3D_CL_NOP; /* whatever it overlapped, the packets go on from here */
		for (uint32_t i = third + zlen + 1; i < n; i++)
			raw[i] = V3D_CL_NOP;
		j = bin_job(&h, raw, n);
		H_ACCEPT(&h, &j);
		struct v3dval_cl_result warm = h.res;
		struct harness cold;
		setup(&cold, ver);
		memcpy(h_ptr(&cold, CL), h_ptr(&h, CL), 0x10000);
		H_ACCEPT(&cold, &j); /* a validator with no memo and nothing learned */
		CHECK_EQ(warm.packets, cold.res.packets);
		CHECK_EQ(warm.bytes, cold.res.bytes);
		CHECK(warm.packets != same.packets);
		h_fini(&cold);
		/* the list's end inside the last run, where the memo's packets would still go on */
		n = repeated_draws(raw, ver, 4, &third);
		CHECK_EQ(raw[third], nop);
		j = bin_job(&h, raw, n);
		H_ACCEPT(&h, &j);
		uint32_t clip = third - v3d_cl_fixed_length(ver, V3D_CL_CLIP_WINDOW);
		j.bcl_end = BCL + third - 1;
		H_REJECT(&h, &j, V3DVAL_ERR_NO_END, at_bin(where, sizeof(where), "list", BCL + clip));
		CHECK(h_contains(h.err.msg, "straddles"));
		/* a memo made at the top of the render list, where End of rendering is plain, and a
		 * sub-list starting the same way, where it is refused */
		struct v3d_clb r, sub;
		h_clb(&h, &sub, SUB, 0x1000);
		v3d_clb_op(&sub, V3D_CL_NOP); /* a segment's first packet takes the full path: runs start after it */
		v3d_clb_op(&sub, V3D_CL_NOP);
		v3d_clb_op(&sub, V3D_CL_END_OF_RENDERING);
		v3d_clb_op(&sub, V3D_CL_RETURN_FROM_SUB_LIST);
		h_clb(&h, &r, RCL, 0x4000);
		h_rcl_begin(&h, &r, 16, 16);
		v3d_clb_tile_coordinates(&r, 0, 0); /* not plain: the run below starts after it */
		v3d_clb_op(&r, V3D_CL_NOP);
		v3d_clb_op(&r, V3D_CL_END_OF_RENDERING);
		v3d_clb_branch_to_sub_list(&r, SUB);
		h_rcl_end(&r);
		REQUIRE(v3d_clb_ok(&sub) && v3d_clb_ok(&r));
		j = (struct h_job){ .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&r) };
		for (int round = 0; round < 2; round++) /* the first learns, the second runs */
			H_REJECT(&h, &j, V3DVAL_ERR_LEVEL, "End of rendering at render sub-list");
		h_fini(&h);
	}
}

/* The struct address checks read a field that ends a 32-bit word as that word masked
 * (v3dval_struct_words): on random bytes that gives v3d_cl_get_address's answer for every
 * field of every structure that takes the word path, on both versions. */
static void test_struct_word_reads(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct v3dval_policy p;
		v3dval_policy_default(&p, ver);
		struct v3dval *v = v3dval_create(&p);
		REQUIRE(v);
		CHECK(v->words_ok[V3D_CL_STRUCT_GL_SHADER_STATE_RECORD]);
		CHECK(v->words_ok[V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD]);
		CHECK(v->words_ok[V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD]);
		srand(11);
		for (int k = 0; k <= V3D_CL_STRUCT_TEXTURE_SHADER_STATE; k++) {
			if (!v->words_ok[k])
				continue;
			for (int round = 0; round < 64; round++) {
				uint8_t rec[128];
				for (size_t b = 0; b < sizeof(rec); b++)
					rec[b] = (uint8_t)rand();
				for (size_t i = 0; i < v->struct_nr_fields[k]; i++) {
					const struct v3d_cl_addr_field *f = &v->struct_fields[k][i];
					const struct v3dval_word_field *w = &v->struct_words[k][i];
					REQUIRE(w->at + 4u <= sizeof(rec));
					uint32_t word = rec[w->at] | (uint32_t)rec[w->at + 1] << 8 |
							(uint32_t)rec[w->at + 2] << 16 | (uint32_t)rec[w->at + 3] << 24;
					CHECK_EQ(word & w->mask, v3d_cl_get_address(rec, f->start, f->size));
					CHECK_EQ(w->need, f->size < 32 ? 8u : 4u);
				}
			}
		}
		v3dval_destroy(v);
	}
}

static void test_bin_address_packets(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint8_t raw[16];
		struct h_job j;
		/* index buffer: [addr, addr + size) */
		uint32_t len = pack(raw, V3D_CL_INDEX_BUFFER_SETUP, ver);
		v3d_cl_set_address(raw + 1, V3D_CL_INDEX_BUFFER_ADDRESS, DATA + 0xf000);
		v3d_cl_set(raw + 1, V3D_CL_INDEX_BUFFER_SIZE, 0x1000);
		j = bin_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		v3d_cl_set(raw + 1, V3D_CL_INDEX_BUFFER_SIZE, 0x1001);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Index Buffer Setup at bin list");
		v3d_cl_set(raw + 1, V3D_CL_INDEX_BUFFER_SIZE, 0xffffffffu); /* no 32-bit wrap */
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		/* indirect draws: (count - 1) * stride + record */
		len = pack(raw, V3D_CL_INDIRECT_INDEXED_INSTANCED_PRIM_LIST, ver);
		v3d_cl_set(raw + 1, V3D_CL_INDIRECT_COUNT, 3);
		v3d_cl_set(raw + 1, V3D_CL_INDIRECT_STRIDE_WORDS, 5);
		v3d_cl_set_address(raw + 1, V3D_CL_INDIRECT_ADDRESS, DATA + 0x10000 - 60);
		j = bin_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		v3d_cl_set_address(raw + 1, V3D_CL_INDIRECT_ADDRESS, DATA + 0x10000 - 56);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		v3d_cl_set(raw + 1, V3D_CL_INDIRECT_COUNT, 0x7fffffff); /* 31-bit count x 1020 B */
		v3d_cl_set(raw + 1, V3D_CL_INDIRECT_STRIDE_WORDS, 255);
		v3d_cl_set_address(raw + 1, V3D_CL_INDIRECT_ADDRESS, DATA);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		/* occlusion query: 0 disables it, else a word in a BO */
		len = pack(raw, V3D_CL_OCCLUSION_QUERY_COUNTER, ver);
		j = bin_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		v3d_cl_set_address(raw + 1, 0, 32, FOREIGN);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Occlusion Query Counter");
		v3d_cl_set_address(raw + 1, 0, 32, DATA2 + 0xffc);
		j = bin_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		/* transform feedback buffer: size in words */
		len = pack(raw, V3D_CL_TRANSFORM_FEEDBACK_BUFFER, ver);
		v3d_cl_set_address(raw + 1, 32, 32, DATA2);
		v3d_cl_set(raw + 1, 2, 30, 1024);
		j = bin_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		v3d_cl_set(raw + 1, 2, 30, 1025);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Transform Feedback Buffer");
		/* primitive counts: 32 B, 64 with the flag */
		len = pack(raw, V3D_CL_PRIMITIVE_COUNTS_FEEDBACK, ver);
		v3d_cl_set_address(raw + 1, 5, 27, DATA2 + 0x1000 - 32);
		j = bin_job(&h, raw, len);
		H_ACCEPT(&h, &j);
		v3d_cl_set(raw + 1, 4, 1, 1);
		j = bin_job(&h, raw, len);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		h_fini(&h);
	}
}

/* Fills every address field of a structure: code fields with `code`, data fields with `data`. */
static void fill_struct(int ver, uint8_t *p, enum v3d_cl_struct s, uint32_t code, uint32_t data)
{
	const struct v3d_cl_addr_field *f;
	size_t n = v3d_cl_struct_address_fields(ver, s, &f);
	for (size_t i = 0; i < n; i++)
		v3d_cl_set_address(p, f[i].start, f[i].size, f[i].size < 32 ? code : data);
}

#define REC (DATA + 0x100)
#define CODE (DATA + 0x1000)
#define UNIF (DATA + 0x2000)
#define VBO (DATA + 0x3000)

static struct h_job shader_job(struct harness *h, uint8_t op, uint32_t rec, uint32_t attrs)
{
	uint8_t raw[5] = { op };
	v3d_cl_set_address(raw + 1, V3D_CL_GL_SHADER_ADDRESS, rec);
	v3d_cl_set(raw + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, attrs);
	return bin_job(h, raw, 5);
}

/* A job's shader-state blocks share one shadow, each at a 32-byte step, zeroes between them
 * (never the bytes an earlier job's blocks left in the validator's copy); a block used twice is
 * there once. */
static void test_blocks_share_a_shadow(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint32_t gl = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
		for (uint32_t b = 0; b < 2; b++) {
			uint8_t *rec = h_ptr(&h, REC + 0x100 * b);
			fill_struct(ver, rec, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, CODE, UNIF);
			for (int i = 0; i < 3; i++)
				fill_struct(ver, rec + gl + 16 * i, V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD, 0, VBO + 4 * i);
		}
		/* first a job whose one block (3 records) fills what the next job's first leaves out */
		struct h_job j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 3);
		H_ACCEPT(&h, &j);
		uint8_t raw[15];
		for (int p = 0; p < 3; p++) {
			raw[5 * p] = V3D_CL_GL_SHADER_STATE;
			v3d_cl_set_address(raw + 5 * p + 1, V3D_CL_GL_SHADER_ADDRESS, p == 1 ? REC + 0x100 : REC);
			v3d_cl_set(raw + 5 * p + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, 1);
		}
		j = bin_job(&h, raw, sizeof(raw));
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.nr_blocks, 2);
		CHECK_EQ(h.nr_shadows, h.res.nr_segments + 1);
		uint8_t *pkt = h_shadow_ptr(&h, h.res.bcl_start);
		uint32_t a = v3d_cl_get_address(pkt + 1, V3D_CL_GL_SHADER_ADDRESS);
		uint32_t b = v3d_cl_get_address(pkt + 6, V3D_CL_GL_SHADER_ADDRESS);
		CHECK_EQ(v3d_cl_get_address(pkt + 11, V3D_CL_GL_SHADER_ADDRESS), a);
		REQUIRE(h_shadow_at(&h, a) && h_shadow_at(&h, a) == h_shadow_at(&h, b));
		uint32_t block = gl + 16;
		CHECK_EQ(b - a, (block + 31u) & ~31u);
		CHECK(memcmp(h_shadow_ptr(&h, a), h_ptr(&h, REC), block) == 0);
		CHECK(memcmp(h_shadow_ptr(&h, b), h_ptr(&h, REC + 0x100), block) == 0);
		unsigned nonzero = 0;
		for (uint32_t i = block; i < b - a; i++)
			nonzero += h_shadow_ptr(&h, a)[i] != 0;
		CHECK_EQ(nonzero, 0);
		h_fini(&h);
	}
}

static void test_shader_state(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		uint32_t gl = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
		uint8_t *rec = h_ptr(&h, REC);
		fill_struct(ver, rec, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, CODE, UNIF);
		for (int i = 0; i < 2; i++)
			fill_struct(ver, rec + gl + 16 * i, V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD, 0, VBO);
		struct h_job j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 2);
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.nr_blocks, 1);
		/* the packet now names the shadow block, which holds the record */
		uint8_t *pkt = h_shadow_ptr(&h, h.res.bcl_start);
		uint32_t shadow_rec = v3d_cl_get_address(pkt + 1, V3D_CL_GL_SHADER_ADDRESS);
		CHECK(shadow_rec != REC && shadow_rec % 32 == 0);
		CHECK_EQ(v3d_cl_get(pkt + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES), 2);
		CHECK(memcmp(h_shadow_ptr(&h, shadow_rec), rec, gl + 32) == 0);
		/* passed in the bin list (v3dval_packet_plain there now), still refused in the render list */
		struct v3d_clb r;
		h_clb(&h, &r, RCL, 0x4000);
		h_rcl_begin(&h, &r, 16, 16);
		v3d_clb_gl_shader_state(&r, REC, 2);
		h_rcl_end(&r);
		REQUIRE(v3d_clb_ok(&r));
		struct h_job rj = { .rcl_start = RCL, .rcl_end = v3d_clb_gpu_addr(&r) };
		H_REJECT(&h, &rj, V3DVAL_ERR_FORBIDDEN, "GL Shader State at render list");
		/* the record itself straddling its BO's end */
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, DATA + 0x10000 - 32, 2);
		H_REJECT(&h, &j, V3DVAL_ERR_TARGET, "GL Shader State at bin list");
		/* in another context's BO */
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, FOREIGN, 1);
		H_REJECT(&h, &j, V3DVAL_ERR_TARGET, NULL);
		/* a code address outside */
		const struct v3d_cl_addr_field *f;
		v3d_cl_struct_address_fields(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, &f);
		size_t code_field = ver == 42 ? 1 : 0; /* the fragment shader code */
		v3d_cl_set_address(rec, f[code_field].start, f[code_field].size, FOREIGN);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 2);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Fragment Shader Code Address 0x00300000 outside");
		CHECK_EQ(h.err.level, V3DVAL_LEVEL_RECORD);
		v3d_cl_set_address(rec, f[code_field].start, f[code_field].size, CODE);
		/* an attribute address outside (in the second record) */
		v3d_cl_set_address(rec + gl + 16, 0, 32, UNMAPPED);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 2);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Address 0x00500000");
		CHECK_EQ(h.err.addr, REC + gl + 16);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 1); /* only one record read: fine */
		H_ACCEPT(&h, &j);
		v3d_cl_set_address(rec + gl + 16, 0, 32, VBO);
		/* uniforms 0 is allowed (unused), code 0 is not */
		uint8_t saved[64];
		memcpy(saved, rec, sizeof(saved));
		v3d_cl_set_address(rec, f[code_field + 1].start, f[code_field + 1].size, 0);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 2);
		H_ACCEPT(&h, &j);
		v3d_cl_set_address(rec, f[code_field].start, f[code_field].size, 0);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 2);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, NULL);
		memcpy(rec, saved, sizeof(saved));
		/* attribute count */
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 0);
		H_REJECT(&h, &j, V3DVAL_ERR_MALFORMED, "0 attribute arrays");
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 17);
		H_REJECT(&h, &j, V3DVAL_ERR_MALFORMED, NULL);
		/* tessellation variants are refused */
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE_INCLUDING_TS, REC, 1);
		H_REJECT(&h, &j, V3DVAL_ERR_FORBIDDEN, NULL);
		/* the GS variant: geometry record + parameters before the GL record */
		uint8_t *gsrec = h_ptr(&h, DATA + 0x400);
		fill_struct(ver, gsrec, V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD, CODE, UNIF);
		fill_struct(ver, gsrec + 36, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, CODE, UNIF);
		fill_struct(ver, gsrec + 36 + gl, V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD, 0, VBO);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE_INCLUDING_GS, DATA + 0x400, 1);
		H_ACCEPT(&h, &j);
		v3d_cl_set_address(gsrec, 3, 29, UNMAPPED);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE_INCLUDING_GS, DATA + 0x400, 1);
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Geometry Bin Mode Shader Code Address");
		/* a record on a BO the host cannot read cannot be copied, hence not validated */
		h_fini(&h);
		h_init(&h, ver);
		h_bo(&h, CL, 0x10000);
		h_bo_ex(&h, DATA, 0x10000, false);
		j = shader_job(&h, V3D_CL_GL_SHADER_STATE, REC, 1);
		H_REJECT(&h, &j, V3DVAL_ERR_TARGET, "not inside a readable buffer");
		h_fini(&h);
	}
}

/* A v3dv-shaped copy of w x h RGBA8UI pixels at frame size, tile memory at ta_addr. */
static void raster_copy_lists(struct harness *h, uint32_t w, uint32_t hgt, uint32_t ta_addr, struct h_job *j)
{
	struct v3d_clb_raster_job job = {
		.width = w, .height = hgt, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = h->ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = DATA, .src_stride = w * 4, .dst_addr = DATA + 0x8000, .dst_stride = w * 4,
		.tile_alloc_addr = ta_addr,
	};
	struct v3d_clb bcl, rcl, ind;
	h_clb(h, &bcl, BCL, 0x4000);
	h_clb(h, &rcl, RCL, 0x4000);
	h_clb(h, &ind, SUB, 0x4000);
	REQUIRE(v3d_clb_raster_bin(&bcl, &job));
	REQUIRE(v3d_clb_raster_render(&rcl, &ind, &job));
	*j = (struct h_job){ .bcl_start = BCL, .bcl_end = v3d_clb_gpu_addr(&bcl), .rcl_start = RCL,
			     .rcl_end = v3d_clb_gpu_addr(&rcl), .qma = ta_addr,
			     .qms = v3d_clb_raster_tile_alloc_size(h->ver, &job) };
}

static void test_tile_memory(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct harness h;
		setup(&h, ver);
		struct h_job j;
		/* 64 x 32 pixels of 64x64 tiles: 1 tile, qms 64 */
		raster_copy_lists(&h, 64, 32, TA, &j);
		H_ACCEPT(&h, &j);
		/* The binner started without this job's own binning config: refused (it would run on
		 * the config the hardware still holds, unbounded by qms/qts). */
		uint8_t pkt[16];
		struct h_job nocfg = bin_job(&h, pkt, pack(pkt, V3D_CL_START_TILE_BINNING, ver));
		nocfg.qma = TA;
		nocfg.qms = 64;
		H_REJECT(&h, &nocfg, V3DVAL_ERR_STATE, "without a Tile Binning Mode Cfg");
		raster_copy_lists(&h, 64, 32, TA, &j);
		j.qts = TA + 0x10000;
		H_ACCEPT(&h, &j);
		j.qts = TA + 0x20000 - 128; /* 256 B per tile */
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "tile state qts");
		j.qts = 0;
		j.qms = 32; /* below the binning config's initial blocks */
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "qms 0x20 below");
		j.qms = 64;
		j.qma = FOREIGN;
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "tile allocation memory qma 0x00300000");
		/* the render list's tile list base outside [qma, qma + qms) */
		raster_copy_lists(&h, 64, 32, TA + 0x1000, &j);
		j.qma = TA;
		H_REJECT(&h, &j, V3DVAL_ERR_ADDRESS, "Multicore Rendering Tile List Set Base at render list");
		/* by default the bin job gets host tile memory: the render list's base moves into it */
		raster_copy_lists(&h, 64, 32, TA, &j);
		j.qts = TA + 0x10000;
		memset(h_ptr(&h, TA + 0x10000), 0x77, 256);
		H_ACCEPT(&h, &j);
		CHECK(h.res.qma >= H_SHADOW_BASE && h.res.qts >= H_SHADOW_BASE && h.res.qms == j.qms);
		struct h_region *qma_shadow = h_shadow_at(&h, h.res.qma);
		REQUIRE(qma_shadow);
		CHECK_EQ(qma_shadow->size, j.qms + v3d_cle_readahead(ver));
		CHECK_EQ(h_shadow_ptr(&h, h.res.qts)[255], 0); /* zeroed, not the guest's bytes */
		unsigned bases = 0;
		for (uint32_t s = 0; s < h.nr_shadows; s++)
			for (uint32_t o = 0; o + 5 <= h.shadows[s].size && h.shadows[s].addr == h.res.rcl_start; o++)
				if (h.shadows[s].data[o] == V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE &&
				    v3d_cl_get_address(h.shadows[s].data + o + 1, V3D_CL_TLSB_ADDRESS) == h.res.qma)
					bases++;
		CHECK_EQ(bases, 1);
		j.qts = 0;
		h.policy.max_tile_memory = 32;
		h_set_policy(&h);
		H_REJECT(&h, &j, V3DVAL_ERR_LIMIT, "above the 0x20 bytes of tile memory allowed");
		/* without shadowing, the guest's own BO is prefetched: the last tile list needs
		 * read-ahead inside it */
		h.policy.max_tile_memory = 64u << 20;
		h.policy.shadow_tile_memory = false;
		h_set_policy(&h);
		H_ACCEPT(&h, &j);
		CHECK_EQ(h.res.qma, TA);
		uint32_t ra = v3d_cle_readahead(ver);
		raster_copy_lists(&h, 64, 32, TA + 0x20000 - ra, &j);
		H_ACCEPT(&h, &j);
		raster_copy_lists(&h, 64, 32, TA + 0x20000 - ra + 64, &j);
		H_REJECT(&h, &j, V3DVAL_ERR_READAHEAD, "read-ahead");
		/* implicit tile lists with no bin job to write them */
		raster_copy_lists(&h, 64, 32, TA, &j);
		j.bcl_start = j.bcl_end = 0;
		H_REJECT(&h, &j, V3DVAL_ERR_STATE, "without a bin list");
		h_fini(&h);
	}
}

static void test_bo_table(void)
{
	struct harness h;
	h_init(&h, 42);
	h_bo(&h, CL, 0x10000);
	h_bo(&h, CL + 0x8000, 0x1000); /* overlaps the first */
	struct h_job j = { .rcl_start = CL, .rcl_end = CL + 1 };
	H_REJECT(&h, &j, V3DVAL_ERR_INPUT, "unsorted or overlapping");
	h_fini(&h);
	h_init(&h, 71);
	h_bo(&h, 0xffff0000u, 0x10000); /* ends exactly at 4 GiB: fine */
	struct v3d_clb b;
	h_clb(&h, &b, 0xffff0000u, 0x10000);
	h_rcl_begin(&h, &b, 16, 16);
	h_rcl_end(&b);
	j = (struct h_job){ .rcl_start = 0xffff0000u, .rcl_end = v3d_clb_gpu_addr(&b) };
	H_ACCEPT(&h, &j);
	h.bos[0].size = 0x10001; /* past 4 GiB */
	H_REJECT(&h, &j, V3DVAL_ERR_INPUT, "past 4 GiB");
	h.bos[0].size = 0x10000;
	h_fini(&h);
	struct v3dval_policy p;
	v3dval_policy_default(&p, 33);
	CHECK(v3dval_create(&p) == NULL);
}

int main(void)
{
	RUN_TEST(test_accept_minimal);
	RUN_TEST(test_unknown_opcode);
	RUN_TEST(test_forbidden_and_wrong_list);
	RUN_TEST(test_render_tile_list_packets);
	RUN_TEST(test_store_addresses);
	RUN_TEST(test_load_store_formats);
	RUN_TEST(test_frame_state);
	RUN_TEST(test_plain_packets_per_list_and_level);
	RUN_TEST(test_plain_runs);
	RUN_TEST(test_plain_run_memo);
	RUN_TEST(test_bin_address_packets);
	RUN_TEST(test_shader_state);
	RUN_TEST(test_blocks_share_a_shadow);
	RUN_TEST(test_struct_word_reads);
	RUN_TEST(test_tile_memory);
	RUN_TEST(test_bo_table);
	return test_finish();
}
