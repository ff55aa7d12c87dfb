/* The V3D control-list decoder: golden decodes of v3dv-shaped copy and fill jobs built with the
 * CL builder on 4.2 and 7.1, branch / sub-list following with buffer naming, cycles, unknown
 * opcodes, truncated packets, shader records, TFU/CSD registers, the version guess, and that every
 * field layout fits its packet. */
#include "decode_test_util.h"
#include "ferry/hw/v3d_cl.h"
#include "v3d_cl_builder.h"
#include "v3d_decode.h"
#include "v3d_decode_priv.h"

#define RCL_ADDR 0x140000u
#define TILE_LIST_ADDR 0x150000u
#define SRC_ADDR 0x200000u
#define DST_ADDR 0x300000u
#define TILE_ALLOC_ADDR 0x80000u

static char *decode_v3d(const struct v3d_decode_options *o, uint32_t start, uint32_t end,
			struct v3d_decode_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(v3d_decode_cl(f, o, start, end, st), 0);
	fclose(f);
	return buf;
}

/* Golden texts compare line by line so that a difference names its line. */
static void check_golden(const char *got, const char *want)
{
	test_checks++;
	if (!strcmp(got, want))
		return;
	test_failures++;
	const char *g = got, *w = want;
	int line = 1;
	while (*g && *w) {
		const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
		size_t gl = ge ? (size_t)(ge - g) : strlen(g), wl = we ? (size_t)(we - w) : strlen(w);
		if (gl != wl || memcmp(g, w, gl)) {
			fprintf(stderr, "golden mismatch at line %d:\n  got:  %.*s\n  want: %.*s\n", line, (int)gl, g,
				(int)wl, w);
			return;
		}
		g += gl + (ge ? 1 : 0);
		w += wl + (we ? 1 : 0);
		line++;
	}
	fprintf(stderr, "golden mismatch at line %d: got %s, want %s\n", line, *g ? g : "(end)", *w ? w : "(end)");
}

struct raster_lists {
	uint8_t bcl[4096], rcl[4096], tile_list[4096];
	struct v3d_clb b, r, t;
	struct v3d_decode_buffer bufs[6];
};

static const uint32_t fill_color[4] = { 0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00 };

/* v3dv's copy (or fill) of a 64x32 RGBA8UI raster image through RT0, 32 bpp. */
static void build_raster(struct raster_lists *l, int ver, bool fill)
{
	memset(l, 0, sizeof(*l));
	v3d_clb_init(&l->b, ver, l->bcl, sizeof(l->bcl), 0x60000);
	v3d_clb_init(&l->r, ver, l->rcl, sizeof(l->rcl), RCL_ADDR);
	v3d_clb_init(&l->t, ver, l->tile_list, sizeof(l->tile_list), TILE_LIST_ADDR);
	struct v3d_clb_raster_job job = {
		.width = 64, .height = 32, .format = V3D_CL_FMT_RGBA8UI, .bpp = V3D_INTERNAL_BPP_32,
		.type = ver == V3D_VER_42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
		.src_addr = SRC_ADDR, .src_stride = 256, .dst_addr = DST_ADDR, .dst_stride = 256,
		.clear_color = fill ? fill_color : NULL, .tile_alloc_addr = TILE_ALLOC_ADDR,
	};
	REQUIRE(v3d_clb_raster_bin(&l->b, &job));
	REQUIRE(v3d_clb_raster_render(&l->r, &l->t, &job));
	l->bufs[0] = (struct v3d_decode_buffer){ 0x60000, 4096, "CL", l->bcl, 4096 };
	l->bufs[1] = (struct v3d_decode_buffer){ RCL_ADDR, 4096, "CL", l->rcl, 4096 };
	l->bufs[2] = (struct v3d_decode_buffer){ TILE_LIST_ADDR, 4096, "CL", l->tile_list, 4096 };
	l->bufs[3] = (struct v3d_decode_buffer){ SRC_ADDR, 0x2000, "src", NULL, 0 };
	l->bufs[4] = (struct v3d_decode_buffer){ DST_ADDR, 0x2000, "dst", NULL, 0 };
	l->bufs[5] = (struct v3d_decode_buffer){ TILE_ALLOC_ADDR, 4096, "tile_alloc", NULL, 0 };
}

#define DUMMY_STORE                                                                                   \
	"STORE_TILE_BUFFER_GENERAL  buffer_to_store = none, memory_format = raster, flip_y = false, "     \
	"dither_mode = none, decimate_mode = sample0, output_image_format = srgb8_alpha8, "              \
	"clear_buffer_being_stored = false, channel_reverse = false, r_b_swap = false, "                 \
	"height_in_ub_or_stride = 0, height = 0, address = 0x00000000\n"
#define SUPERTILE_CFG                                                                                 \
	"MULTICORE_RENDERING_SUPERTILE_CFG  supertile_width_in_tiles = 1, supertile_height_in_tiles = 1, " \
	"total_frame_width_in_supertiles = 1, total_frame_height_in_supertiles = 1, "                    \
	"total_frame_width_in_tiles = 1, total_frame_height_in_tiles = 1, multicore_enable = false, "    \
	"supertile_raster_order = false, number_of_bin_tile_lists = 1\n"
#define RT0_STORE                                                                                     \
	"STORE_TILE_BUFFER_GENERAL  buffer_to_store = rt0, memory_format = raster, flip_y = false, "      \
	"dither_mode = none, decimate_mode = sample0, output_image_format = rgba8ui, "                   \
	"clear_buffer_being_stored = false, channel_reverse = false, r_b_swap = false, "                 \
	"height_in_ub_or_stride = 256, height = 0, address = [dst_0x300000 + 0x0]\n"

static const char golden_rcl42[] =
	"@buffer CL_0x140000\n"
	"@format ctrllist  /* [CL_0x140000 + 0x0] 0x00140000, V3D 4.2 */\n"
	"0x00140000 +0x0000  TILE_RENDERING_MODE_CFG_COMMON  number_of_render_targets = 1, image_width_pixels = 64, "
	"image_height_pixels = 32, maximum_bpp_of_all_render_targets = 32, multisample_mode_4x = false, "
	"double_buffer_in_non_ms_mode = false, early_z_test_and_update_direction = lt_le, early_z_disable = true, "
	"internal_depth_type = depth_32f, early_depth_stencil_clear = false\n"
	"0x00140009 +0x0009  TILE_RENDERING_MODE_CFG_COLOR  render_target_0_internal_bpp = 32, "
	"render_target_0_internal_type = 8ui, render_target_0_clamp = none, render_target_1_internal_bpp = 32, "
	"render_target_1_internal_type = 8i, render_target_1_clamp = none, render_target_2_internal_bpp = 32, "
	"render_target_2_internal_type = 8i, render_target_2_clamp = none, render_target_3_internal_bpp = 32, "
	"render_target_3_internal_type = 8i, render_target_3_clamp = none\n"
	"0x00140012 +0x0012  TILE_RENDERING_MODE_CFG_ZS_CLEAR_VALUES  stencil_clear_value = 0, z_clear_value = 1\n"
	"0x0014001b +0x001b  TILE_LIST_INITIAL_BLOCK_SIZE  size_of_first_block_in_chained_tile_lists = 64b, "
	"use_auto_chained_tile_lists = true\n"
	"0x0014001d +0x001d  MULTICORE_RENDERING_TILE_LIST_SET_BASE  tile_list_set_number = 0, "
	"address = [tile_alloc_0x80000 + 0x0]\n"
	"0x00140022 +0x0022  " SUPERTILE_CFG
	"0x0014002b +0x002b  TILE_COORDINATES  tile_column_number = 0, tile_row_number = 0\n"
	"0x0014002f +0x002f  END_OF_LOADS\n"
	"0x00140030 +0x0030  " DUMMY_STORE
	"0x0014003d +0x003d  END_OF_TILE_MARKER\n"
	"0x0014003e +0x003e  TILE_COORDINATES  tile_column_number = 0, tile_row_number = 0\n"
	"0x00140042 +0x0042  END_OF_LOADS\n"
	"0x00140043 +0x0043  " DUMMY_STORE
	"0x00140050 +0x0050  END_OF_TILE_MARKER\n"
	"0x00140051 +0x0051  FLUSH_VCD_CACHE\n"
	"0x00140052 +0x0052  START_ADDRESS_OF_GENERIC_TILE_LIST  start = [CL_0x150000 + 0x0], "
	"end = [CL_0x150000 + 0x20]\n"
	"  @buffer CL_0x150000\n"
	"  @format ctrllist  /* [CL_0x150000 + 0x0] 0x00150000, generic tile list from 0x00140052 */\n"
	"  0x00150000 +0x0000  TILE_COORDINATES_IMPLICIT\n"
	"  0x00150001 +0x0001  LOAD_TILE_BUFFER_GENERAL  buffer_to_load = rt0, memory_format = raster, "
	"flip_y = false, decimate_mode = sample0, input_image_format = rgba8ui, force_alpha_1 = false, "
	"channel_reverse = false, r_b_swap = false, height_in_ub_or_stride = 256, height = 0, "
	"address = [src_0x200000 + 0x0]\n"
	"  0x0015000e +0x000e  END_OF_LOADS\n"
	"  0x0015000f +0x000f  BRANCH_TO_IMPLICIT_TILE_LIST  tile_list_set_number = 0\n"
	"  0x00150011 +0x0011  " RT0_STORE
	"  0x0015001e +0x001e  END_OF_TILE_MARKER\n"
	"  0x0015001f +0x001f  RETURN_FROM_SUB_LIST\n"
	"0x0014005b +0x005b  SUPERTILE_COORDINATES  column_number_in_supertiles = 0, row_number_in_supertiles = 0\n"
	"0x0014005e +0x005e  END_OF_RENDERING\n";

static const char golden_rcl71[] =
	"@buffer CL_0x140000\n"
	"@format ctrllist  /* [CL_0x140000 + 0x0] 0x00140000, V3D 7.1 */\n"
	"0x00140000 +0x0000  TILE_RENDERING_MODE_CFG_COMMON  number_of_render_targets = 1, image_width_pixels = 64, "
	"image_height_pixels = 32, multisample_mode_4x = false, double_buffer_in_non_ms_mode = false, "
	"depth_buffer_disable = false, early_z_test_and_update_direction = lt_le, early_z_disable = true, "
	"internal_depth_type = depth_32f, early_depth_stencil_clear = false, log2_tile_width = 64, "
	"log2_tile_height = 64\n"
	"0x00140009 +0x0009  TILE_RENDERING_MODE_CFG_RENDER_TARGET_PART1  render_target_number = 0, "
	"base_address = 0, stride = 32, internal_bpp = 32, internal_type_and_clamping = 8ui, "
	"clear_color_low_bits = 0x0\n"
	"0x00140012 +0x0012  TILE_RENDERING_MODE_CFG_ZS_CLEAR_VALUES  stencil_clear_value = 0, z_clear_value = 1\n"
	"0x0014001b +0x001b  TILE_LIST_INITIAL_BLOCK_SIZE  size_of_first_block_in_chained_tile_lists = 64b, "
	"use_auto_chained_tile_lists = true\n"
	"0x0014001d +0x001d  MULTICORE_RENDERING_TILE_LIST_SET_BASE  tile_list_set_number = 0, "
	"address = [tile_alloc_0x80000 + 0x0]\n"
	"0x00140022 +0x0022  " SUPERTILE_CFG
	"0x0014002b +0x002b  TILE_COORDINATES  tile_column_number = 0, tile_row_number = 0\n"
	"0x0014002f +0x002f  END_OF_LOADS\n"
	"0x00140030 +0x0030  " DUMMY_STORE
	"0x0014003d +0x003d  END_OF_TILE_MARKER\n"
	"0x0014003e +0x003e  TILE_COORDINATES  tile_column_number = 0, tile_row_number = 0\n"
	"0x00140042 +0x0042  END_OF_LOADS\n"
	"0x00140043 +0x0043  " DUMMY_STORE
	"0x00140050 +0x0050  END_OF_TILE_MARKER\n"
	"0x00140051 +0x0051  FLUSH_VCD_CACHE\n"
	"0x00140052 +0x0052  START_ADDRESS_OF_GENERIC_TILE_LIST  start = [CL_0x150000 + 0x0], "
	"end = [CL_0x150000 + 0x20]\n"
	"  @buffer CL_0x150000\n"
	"  @format ctrllist  /* [CL_0x150000 + 0x0] 0x00150000, generic tile list from 0x00140052 */\n"
	"  0x00150000 +0x0000  TILE_COORDINATES_IMPLICIT\n"
	"  0x00150001 +0x0001  LOAD_TILE_BUFFER_GENERAL  buffer_to_load = rt0, memory_format = raster, "
	"flip_y = false, decimate_mode = sample0, input_image_format = rgba8ui, force_alpha_1 = false, "
	"channel_reverse = false, r_b_swap = false, height_in_ub_or_stride = 256, height = 0, "
	"address = [src_0x200000 + 0x0]\n"
	"  0x0015000e +0x000e  END_OF_LOADS\n"
	"  0x0015000f +0x000f  BRANCH_TO_IMPLICIT_TILE_LIST  tile_list_set_number = 0\n"
	"  0x00150011 +0x0011  " RT0_STORE
	"  0x0015001e +0x001e  END_OF_TILE_MARKER\n"
	"  0x0015001f +0x001f  RETURN_FROM_SUB_LIST\n"
	"0x0014005b +0x005b  SUPERTILE_COORDINATES  column_number_in_supertiles = 0, row_number_in_supertiles = 0\n"
	"0x0014005e +0x005e  END_OF_RENDERING\n";

static void test_copy_job_golden(int ver)
{
	struct raster_lists l;
	build_raster(&l, ver, false);
	struct v3d_decode_options o = { .ver = ver, .buffers = l.bufs, .nr_buffers = 6, .follow = true };
	struct v3d_decode_stats st;
	char *out = decode_v3d(&o, RCL_ADDR, RCL_ADDR + l.r.len, &st);
	check_golden(out, ver == V3D_VER_42 ? golden_rcl42 : golden_rcl71);
	CHECK_EQ(st.packets, 25);
	CHECK_EQ(st.lists, 2);
	CHECK_EQ(st.unknown + st.truncated + st.cycles + st.unavailable, 0);
	CHECK(!st.budget_exhausted);
	free(out);

	/* the bin list, decoded until HALT: the zeros after it are one blank run, as CLIF writes them */
	out = decode_v3d(&o, 0x60000, 0, &st);
	CHECK_HAS(out, "0x00060000 +0x0000  NUMBER_OF_LAYERS  number_of_layers = 1\n");
	if (ver == V3D_VER_42)
		CHECK_HAS(out, "0x00060002 +0x0002  TILE_BINNING_MODE_CFG  tile_allocation_initial_block_size = 64b, "
			       "tile_allocation_block_size = 64b, number_of_render_targets = 1, "
			       "maximum_bpp_of_all_render_targets = 32, multisample_mode_4x = false, "
			       "double_buffer_in_non_ms_mode = false, width_in_pixels = 64, height_in_pixels = 32\n");
	else
		CHECK_HAS(out, "0x00060002 +0x0002  TILE_BINNING_MODE_CFG  tile_allocation_initial_block_size = 64b, "
			       "tile_allocation_block_size = 64b, log2_tile_width = 64, log2_tile_height = 64, "
			       "width_in_pixels = 64, height_in_pixels = 32\n");
	CHECK_HAS(out, "0x0006000b +0x000b  FLUSH_VCD_CACHE\n0x0006000c +0x000c  START_TILE_BINNING\n"
		       "0x0006000d +0x000d  FLUSH\n0x0006000e +0x000e  HALT\n"
		       "@format blank 4081  /* 0x0006000f..0x00060fff, all zero */\n");
	free(out);
	/* with the submit's end address the CLE stops before the HALT */
	out = decode_v3d(&o, 0x60000, 0x60000 + l.b.len, &st);
	CHECK_LACKS(out, "HALT");
	CHECK_EQ(st.packets, 5);
	free(out);
	/* an end inside a packet: that packet is the last */
	out = decode_v3d(&o, 0x60000, 0x60004, &st);
	CHECK_HAS(out, "height_in_pixels = 32  /* runs past the list end 0x00060004 */\n");
	CHECK_LACKS(out, "FLUSH_VCD_CACHE");
	CHECK_EQ(st.packets, 2);
	free(out);
}

static void test_copy_job_42(void) { test_copy_job_golden(V3D_VER_42); }
static void test_copy_job_71(void) { test_copy_job_golden(V3D_VER_71); }

static void test_fill_job(void)
{
	struct raster_lists l;
	build_raster(&l, V3D_VER_42, true);
	struct v3d_decode_options o = { .ver = V3D_VER_42, .buffers = l.bufs, .nr_buffers = 6, .follow = true };
	char *out = decode_v3d(&o, RCL_ADDR, RCL_ADDR + l.r.len, NULL);
	/* 32 bpp: only part 1 of the 128-bit clear value (low 32 + next 24 bits) */
	CHECK_HAS(out, "TILE_RENDERING_MODE_CFG_CLEAR_COLORS_PART1  render_target_number = 0, "
		       "clear_color_low_32_bits = 0x11223344, clear_color_next_24_bits = 0x667788\n");
	CHECK_HAS(out, "  CLEAR_TILE_BUFFERS  clear_all_render_targets = true, clear_z_stencil_buffer = true\n");
	CHECK_LACKS(out, "LOAD_TILE_BUFFER_GENERAL");
	free(out);

	build_raster(&l, V3D_VER_71, true);
	o.ver = V3D_VER_71;
	out = decode_v3d(&o, RCL_ADDR, RCL_ADDR + l.r.len, NULL);
	CHECK_HAS(out, "TILE_RENDERING_MODE_CFG_RENDER_TARGET_PART1  render_target_number = 0, base_address = 0, "
		       "stride = 32, internal_bpp = 32, internal_type_and_clamping = 8ui, "
		       "clear_color_low_bits = 0x11223344\n");
	CHECK_HAS(out, "  CLEAR_RENDER_TARGETS\n");
	free(out);
}

/* A: NOP, BRANCH -> B.  B: BRANCH_TO_SUB_LIST -> C, HALT.  C: NOP, RETURN. */
static void test_branch_following(void)
{
	static uint8_t a[64], b[64], c[64];
	struct v3d_clb ba, bb, bc;
	v3d_clb_init(&ba, V3D_VER_42, a, sizeof(a), 0x100000);
	v3d_clb_init(&bb, V3D_VER_42, b, sizeof(b), 0x200000);
	v3d_clb_init(&bc, V3D_VER_42, c, sizeof(c), 0x300040);
	v3d_clb_op(&ba, V3D_CL_NOP);
	v3d_clb_branch(&ba, 0x200000);
	v3d_clb_branch_to_sub_list(&bb, 0x300040);
	v3d_clb_op(&bb, V3D_CL_HALT);
	v3d_clb_op(&bc, V3D_CL_NOP);
	v3d_clb_op(&bc, V3D_CL_RETURN_FROM_SUB_LIST);
	REQUIRE(v3d_clb_ok(&ba) && v3d_clb_ok(&bb) && v3d_clb_ok(&bc));
	struct v3d_decode_buffer bufs[] = {
		{ 0x100000, 64, "CL", a, ba.len },
		{ 0x200000, 64, "chained", b, bb.len },
		{ 0x300000, 0x1000, "sub", NULL, 0 },       /* names the range, no contents */
		{ 0x300040, 64, "sub_contents", c, bc.len }, /* the contents inside it */
	};
	struct v3d_decode_options o = { .ver = V3D_VER_42, .buffers = bufs, .nr_buffers = 4, .follow = true };
	struct v3d_decode_stats st;
	char *out = decode_v3d(&o, 0x100000, 0, &st);
	check_golden(out,
		     "@buffer CL_0x100000\n"
		     "@format ctrllist  /* [CL_0x100000 + 0x0] 0x00100000, V3D 4.2 */\n"
		     "0x00100000 +0x0000  NOP\n"
		     "0x00100001 +0x0001  BRANCH  address = [chained_0x200000 + 0x0]\n"
		     "@buffer chained_0x200000\n"
		     "@format ctrllist  /* [chained_0x200000 + 0x0] 0x00200000, branch from 0x00100001 */\n"
		     "0x00200000 +0x0000  BRANCH_TO_SUB_LIST  address = [sub_0x300000 + 0x40]\n"
		     "  @buffer sub_0x300000\n"
		     "  @format ctrllist  /* [sub_0x300000 + 0x40] 0x00300040, sub-list from 0x00200000 */\n"
		     "  0x00300040 +0x0000  NOP\n"
		     "  0x00300041 +0x0001  RETURN_FROM_SUB_LIST\n"
		     "0x00200005 +0x0005  HALT\n");
	CHECK_EQ(st.lists, 3);
	CHECK_EQ(st.packets, 6);
	free(out);

	/* without following, the branch ends what can be decoded */
	o.follow = false;
	out = decode_v3d(&o, 0x100000, 0, &st);
	CHECK_HAS(out, "BRANCH  address = [chained_0x200000 + 0x0]\n/* branch not followed */\n");
	CHECK_LACKS(out, "@buffer chained");
	CHECK_EQ(st.lists, 1);
	free(out);

	/* a target whose contents are unknown is named but not followed */
	o.follow = true;
	o.nr_buffers = 1;
	out = decode_v3d(&o, 0x100000, 0, &st);
	CHECK_HAS(out, "BRANCH  address = 0x00200000\n/* branch target 0x00200000: contents not known, not followed */\n");
	CHECK_EQ(st.unavailable, 1);
	free(out);
}

static void test_cycles(void)
{
	/* A branches to B, B branches back into A */
	static uint8_t a[16], b[16];
	struct v3d_clb ba, bb;
	v3d_clb_init(&ba, V3D_VER_71, a, sizeof(a), 0x1000);
	v3d_clb_init(&bb, V3D_VER_71, b, sizeof(b), 0x2000);
	v3d_clb_op(&ba, V3D_CL_NOP);
	v3d_clb_branch(&ba, 0x2000);
	v3d_clb_op(&bb, V3D_CL_FLUSH);
	v3d_clb_branch(&bb, 0x1001);
	REQUIRE(v3d_clb_ok(&ba) && v3d_clb_ok(&bb));
	struct v3d_decode_buffer bufs[] = { { 0x1000, 16, "A", a, 16 }, { 0x2000, 16, "B", b, 16 } };
	struct v3d_decode_options o = { .ver = V3D_VER_71, .buffers = bufs, .nr_buffers = 2, .follow = true };
	struct v3d_decode_stats st;
	char *out = decode_v3d(&o, 0x1000, 0, &st);
	CHECK_HAS(out, "0x00002001 +0x0001  BRANCH  address = [A_0x1000 + 0x1]\n"
		       "/* CYCLE: branch target [A_0x1000 + 0x1] is inside a list still being executed "
		       "(from 0x00001000): not followed */\n");
	CHECK_EQ(st.cycles, 1);
	CHECK_EQ(st.packets, 4);
	free(out);

	/* a branch to itself */
	uint8_t self[5];
	struct v3d_clb bs;
	v3d_clb_init(&bs, V3D_VER_42, self, sizeof(self), 0x4000);
	v3d_clb_branch(&bs, 0x4000);
	REQUIRE(v3d_clb_ok(&bs));
	struct v3d_decode_buffer sb = { 0x4000, 5, "loop", self, 5 };
	struct v3d_decode_options so = { .ver = V3D_VER_42, .buffers = &sb, .nr_buffers = 1, .follow = true };
	out = decode_v3d(&so, 0x4000, 0, &st);
	CHECK_HAS(out, "/* CYCLE: branch target [loop_0x4000 + 0x0]");
	CHECK_EQ(st.cycles, 1);
	free(out);

	/* a sub-list calling itself is a cycle; calling the same sub-list twice is not */
	static uint8_t top[32], sub[16];
	struct v3d_clb bt, bsub;
	v3d_clb_init(&bt, V3D_VER_42, top, sizeof(top), 0x8000);
	v3d_clb_init(&bsub, V3D_VER_42, sub, sizeof(sub), 0x9000);
	v3d_clb_branch_to_sub_list(&bt, 0x9000);
	v3d_clb_branch_to_sub_list(&bt, 0x9000);
	v3d_clb_op(&bt, V3D_CL_HALT);
	v3d_clb_branch_to_sub_list(&bsub, 0x9000);
	v3d_clb_op(&bsub, V3D_CL_RETURN_FROM_SUB_LIST);
	REQUIRE(v3d_clb_ok(&bt) && v3d_clb_ok(&bsub));
	struct v3d_decode_buffer tb[] = { { 0x8000, 32, "top", top, 32 }, { 0x9000, 16, "sub", sub, 16 } };
	so.buffers = tb;
	so.nr_buffers = 2;
	out = decode_v3d(&so, 0x8000, 0, &st);
	CHECK_HAS(out, "  /* CYCLE: sub-list target [sub_0x9000 + 0x0] is inside a list still being executed");
	CHECK_HAS(out, "0x00008005 +0x0005  BRANCH_TO_SUB_LIST  address = [sub_0x9000 + 0x0]\n"
		       "  /* sub-list target [sub_0x9000 + 0x0]: decoded above */\n0x0000800a +0x000a  HALT\n");
	CHECK_EQ(st.cycles, 1);
	CHECK_EQ(st.lists, 2);
	free(out);
}

static void test_unknown_opcode(void)
{
	/* 2 is no packet; 93 (Depth Bounds Test Limits) exists on 7.1 only */
	const uint8_t cl[] = { V3D_CL_NOP, 2, V3D_CL_NOP };
	struct v3d_decode_buffer b = { 0x5000, sizeof(cl), "CL", cl, sizeof(cl) };
	struct v3d_decode_options o = { .ver = V3D_VER_42, .buffers = &b, .nr_buffers = 1, .follow = true };
	struct v3d_decode_stats st;
	char *out = decode_v3d(&o, 0x5000, 0, &st);
	CHECK_HAS(out, "0x00005000 +0x0000  NOP\n0x00005001 +0x0001  ?? unknown opcode 0x02 (no such V3D 4.2 packet): "
		       "decoding of this list stops, packet lengths are unknown past here\n");
	CHECK_EQ(st.unknown, 1);
	CHECK_EQ(st.packets, 1);
	free(out);

	uint8_t dbt[10] = { V3D_CL_DEPTH_BOUNDS_TEST_LIMITS };
	v3d_cl_set(dbt + 1, 0, 32, 0x3f000000); /* 0.5f */
	v3d_cl_set(dbt + 1, 32, 32, 0x3f800000); /* 1.0f */
	dbt[9] = V3D_CL_HALT;
	struct v3d_decode_buffer db = { 0x6000, sizeof(dbt), "CL", dbt, sizeof(dbt) };
	o.buffers = &db;
	out = decode_v3d(&o, 0x6000, 0, &st);
	CHECK_HAS(out, "?? unknown opcode 0x5d (no such V3D 4.2 packet)");
	CHECK_EQ(st.unknown, 1);
	free(out);
	o.ver = V3D_VER_71;
	out = decode_v3d(&o, 0x6000, 0, &st);
	CHECK_HAS(out, "DEPTH_BOUNDS_TEST_LIMITS  lower_test_limit = 0.5, upper_test_limit = 1\n0x00006009 +0x0009  HALT\n");
	CHECK_EQ(st.unknown, 0);
	free(out);
}

static void test_truncation(void)
{
	/* a 13-byte store with only 5 bytes known: reported, nothing past the contents read (ASan) */
	uint8_t full[13];
	struct v3d_clb b;
	v3d_clb_init(&b, V3D_VER_42, full, sizeof(full), 0x7000);
	struct v3d_clb_ls ls = { .buffer = V3D_CL_BUFFER_RT0, .image_format = V3D_CL_FMT_RGBA8, .stride = 64,
				 .addr = 0x7000 };
	REQUIRE(v3d_clb_store(&b, &ls));
	uint8_t *cut = malloc(5);
	REQUIRE(cut);
	memcpy(cut, full, 5);
	struct v3d_decode_buffer buf = { 0x7000, 4096, "CL", cut, 5 };
	struct v3d_decode_options o = { .ver = V3D_VER_42, .buffers = &buf, .nr_buffers = 1, .follow = true };
	struct v3d_decode_stats st;
	char *out = decode_v3d(&o, 0x7000, 0, &st);
	CHECK_HAS(out, "0x00007000 +0x0000  STORE_TILE_BUFFER_GENERAL  TRUNCATED: a 13-byte packet, only 5 bytes known\n");
	CHECK_EQ(st.truncated, 1);
	CHECK_EQ(st.packets, 0);
	free(out);
	free(cut);

	/* Transform Feedback Specs: its length comes from its count (5 specs = 12 bytes), 6 present */
	uint8_t *tf = malloc(6);
	REQUIRE(tf);
	tf[0] = V3D_CL_TRANSFORM_FEEDBACK_SPECS;
	tf[1] = 0x85; /* enable, 5 specs */
	memset(tf + 2, 0, 4);
	buf = (struct v3d_decode_buffer){ 0x7000, 6, "CL", tf, 6 };
	out = decode_v3d(&o, 0x7000, 0, &st);
	CHECK_HAS(out, "TRANSFORM_FEEDBACK_SPECS  TRUNCATED: a 12-byte packet, only 6 bytes known\n");
	CHECK_EQ(st.truncated, 1);
	free(out);
	/* and whole, with two specs */
	tf[1] = 0x82;
	tf[2] = 3;    /* first value 3 */
	tf[3] = 0x31; /* 2 values, buffer 3 */
	out = decode_v3d(&o, 0x7000, 0, &st);
	CHECK_HAS(out, "TRANSFORM_FEEDBACK_SPECS  number_of_16_bit_output_data_specs_following = 2, enable = true, "
		       "spec[0] = {first_shaded_vertex_value_to_output = 3, number_of_consecutive_vertex_values = 2, "
		       "output_buffer_to_write_to = 3, stream_number = 0}, spec[1] = {");
	CHECK_EQ(st.truncated, 0);
	free(out);
	free(tf);

	/* a sub-list that runs off the end of its buffer's contents */
	uint8_t top[6], sub[2] = { V3D_CL_NOP, V3D_CL_NOP };
	v3d_clb_init(&b, V3D_VER_42, top, sizeof(top), 0x1000);
	v3d_clb_branch_to_sub_list(&b, 0x2000);
	v3d_clb_op(&b, V3D_CL_HALT);
	REQUIRE(v3d_clb_ok(&b));
	struct v3d_decode_buffer two[] = { { 0x1000, 6, "CL", top, 6 }, { 0x2000, 2, "sub", sub, 2 } };
	o.buffers = two;
	o.nr_buffers = 2;
	out = decode_v3d(&o, 0x1000, 0, &st);
	CHECK_HAS(out, "  /* 0x00002002: the list runs past the known contents */\n0x00001005 +0x0005  HALT\n");
	CHECK_EQ(st.truncated, 1);
	free(out);
}

static void test_shader_records(void)
{
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42) {
		uint8_t cl[8];
		struct v3d_clb b;
		v3d_clb_init(&b, ver, cl, sizeof(cl), 0x10000);
		v3d_clb_gl_shader_state(&b, 0x20000, 1);
		v3d_clb_op(&b, V3D_CL_HALT);
		REQUIRE(v3d_clb_ok(&b));
		uint8_t rec[64] = { 0 };
		uint32_t gl_size = v3d_cl_struct_size(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
		const struct v3d_cl_addr_field *af;
		size_t n = v3d_cl_struct_address_fields(ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, &af);
		for (size_t i = 0; i < n; i++) /* every address into the code/uniforms buffer */
			v3d_cl_set_address(rec, af[i].start, af[i].size, 0x30000 + 0x100 * (uint32_t)i);
		v3d_cl_set(rec, 1, 1, 1);                         /* enable clipping */
		v3d_cl_set_address(rec + gl_size, 0, 32, 0x40010); /* attribute 0 address */
		v3d_cl_set(rec + gl_size, 64, 32, 12);             /* its stride */
		struct v3d_decode_buffer bufs[] = {
			{ 0x10000, 8, "CL", cl, 8 }, { 0x20000, 64, "shader_state", rec, (uint32_t)(gl_size + 16) },
			{ 0x30000, 0x1000, "code", NULL, 0 }, { 0x40000, 0x1000, "vertices", NULL, 0 },
		};
		struct v3d_decode_options o = { .ver = ver, .buffers = bufs, .nr_buffers = 4, .follow = true };
		struct v3d_decode_stats st;
		char *out = decode_v3d(&o, 0x10000, 0, &st);
		CHECK_HAS(out, "GL_SHADER_STATE  number_of_attribute_arrays = 1, address = [shader_state_0x20000 + 0x0]\n");
		char line[160];
		snprintf(line, sizeof(line), "  @format shader_record  /* [shader_state_0x20000 + 0x0] "
			 "GL_SHADER_STATE_RECORD, %u bytes */\n", gl_size);
		CHECK_HAS(out, line);
		CHECK_HAS(out, "    enable_clipping = true\n");
		CHECK_HAS(out, "    fragment_shader_code_address = [code_0x30000 + 0x");
		CHECK_HAS(out, "    coordinate_shader_uniforms_address = [code_0x30000 + 0x");
		snprintf(line, sizeof(line), "  @format shader_record  /* [shader_state_0x20000 + 0x%x] "
			 "GL_SHADER_STATE_ATTRIBUTE_RECORD[0], 16 bytes */\n", gl_size);
		CHECK_HAS(out, line);
		CHECK_HAS(out, "    address = [vertices_0x40000 + 0x10]\n");
		CHECK_HAS(out, "    stride = 12\n");
		if (ver == V3D_VER_42)
			CHECK_HAS(out, "    address_of_default_attribute_values = [code_0x30000 + 0x0]\n");
		else
			CHECK_LACKS(out, "default_attribute");
		CHECK_EQ(st.records, 2);
		free(out);

		/* two attributes declared, one present: the second is reported, not read */
		cl[0] = V3D_CL_GL_SHADER_STATE;
		v3d_cl_set(cl + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES, 2);
		out = decode_v3d(&o, 0x10000, 0, &st);
		snprintf(line, sizeof(line), "/* GL_SHADER_STATE_ATTRIBUTE_RECORD at [shader_state_0x20000 + 0x%x]: "
			 "contents not known, not decoded */", gl_size + 16);
		CHECK_HAS(out, line);
		CHECK_EQ(st.records, 2);
		CHECK_EQ(st.unavailable, 1);
		free(out);
	}
}

static void test_tfu_csd(void)
{
	struct v3d_decode_buffer bufs[] = { { 0x100000, 0x10000, "src", NULL, 0 }, { 0x200000, 0x10000, "dst", NULL, 0 } };
	struct v3d_decode_options o = { .ver = V3D_VER_42, .buffers = bufs, .nr_buffers = 2 };
	/* 4.2: RGBA8UI (101) raster in, UIF_XOR (7) out with DIMTW */
	struct v3d_tfu_regs t = { .icfg = 101u << 9 | 1u, .iia = 0x100040, .iis = 64, .ioa = 0x200000 | 7u << 3 | 1u,
				    .ios = 32u << 16 | 64u };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(v3d_decode_tfu(f, &o, &t), 0);
	o.ver = V3D_VER_71;
	t.icfg = 101u << 16 | 15u << 23;
	t.ioa = 0x200000;
	t.ioc = 128u << 16 | 3u << 12 | 2u << 4;
	CHECK_EQ(v3d_decode_tfu(f, &o, &t), 0);
	uint32_t cfg[7] = { 4u << 16, 2u << 16 | 1u, 1u << 16, 0x00001140u, 7, 0x100000u | 5u, 0x200100 };
	CHECK_EQ(v3d_decode_csd(f, &o, cfg), 0);
	fclose(f);
	CHECK_HAS(buf, "@format tfu  /* V3D 4.2 */\n  icfg = 0x0000ca01  ioc_irq = 1, number_of_mipmaps = 0, "
		       "texture_type = rgba8ui (101), input_format = raster (0), output_padding = 0\n"
		       "  iia = [src_0x100000 + 0x40]  /* input image, plane 0 */\n");
	CHECK_HAS(buf, "  ioa = 0x00200039  address = [dst_0x200000 + 0x0], dimtw = 1, output_format = uif_xor (7)\n");
	CHECK_HAS(buf, "  ios = 0x00200040  width = 64, height = 32\n");
	CHECK_HAS(buf, "@format tfu  /* V3D 7.1 */\n  icfg = 0x07e50000  ioc_irq = 0, output_type = rgba8ui (101), "
		       "input_format = uif_xor (15)\n");
	CHECK_HAS(buf, "  ioc = 0x00803020  dimtw = 0, number_of_mipmaps = 2, output_format = lineartile (3), stride = 128\n");
	CHECK_HAS(buf, "  cfg1 = 0x00020001  num_wgs_y = 2, wg_y_offset = 1\n");
	CHECK_HAS(buf, "  cfg3 = 0x00001140  wg_size = 64, wgs_per_sg = 1, batches_per_sg = 2, max_sg_id = 0, "
		       "overlap_with_prev = false\n");
	CHECK_HAS(buf, "  cfg5 = 0x00100005  shader_code_address = [src_0x100000 + 0x0], threading = true, "
		       "single_seg = false, propagate_nans = true\n  cfg6 = 0x00200100  uniforms_address = [dst_0x200000 + 0x100]\n");
	free(buf);
}

static void test_version_guess(void)
{
	bool sure;
	/* 7.1-only packet */
	const uint8_t l71[] = { V3D_CL_DEPTH_BOUNDS_TEST_LIMITS, 0, 0, 0, 0, 0, 0, 0, 0, V3D_CL_HALT };
	CHECK_EQ(v3d_decode_guess_version(l71, sizeof(l71), &sure), V3D_VER_71);
	CHECK(sure);
	/* 4.2 clear colors part 3 (sub-id 5) does not exist on 7.1 */
	const uint8_t l42[] = { V3D_CL_TILE_RENDERING_MODE_CFG, 5, 0, 0, 0, 0, 0, 0, 0, V3D_CL_HALT };
	CHECK_EQ(v3d_decode_guess_version(l42, sizeof(l42), &sure), V3D_VER_42);
	CHECK(sure);
	/* a list both read alike */
	const uint8_t both[] = { V3D_CL_NOP, V3D_CL_FLUSH, V3D_CL_HALT };
	CHECK_EQ(v3d_decode_guess_version(both, sizeof(both), &sure), V3D_VER_42);
	CHECK(!sure);
	/* builder jobs read cleanly either way; the bits each version leaves outside its fields tell
	 * them apart (7.1's tile size sits in 4.2's padding, 7.1's 1-byte CLEAR is followed by a
	 * byte 4.2 would take as CLEAR's flags) */
	struct raster_lists l;
	for (int fill = 0; fill < 2; fill++) {
		build_raster(&l, V3D_VER_71, fill);
		CHECK_EQ(v3d_decode_guess_version(l.rcl, l.r.len, &sure), V3D_VER_71);
		CHECK(sure);
		build_raster(&l, V3D_VER_42, fill);
		CHECK_EQ(v3d_decode_guess_version(l.rcl, l.r.len, &sure), V3D_VER_42);
		CHECK(sure);
	}
}

/* Every field of every layout lies inside its packet (or record) on each version it is for, and
 * every packet with a payload has a layout: a typo in a table shows here, not as a misdecode. */
static void test_layout_tables(void)
{
	for (size_t i = 0; i < v3dd_nr_layouts; i++) {
		const struct v3dd_layout *l = &v3dd_layouts[i];
		for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42) {
			if (!(l->vers & (ver == V3D_VER_42 ? V3DD_VER42 : V3DD_VER71)))
				continue;
			uint32_t len = v3d_cl_fixed_length(ver, l->opcode);
			CHECK(len > 1);
			for (size_t k = 0; k < l->nr_fields; k++) {
				const struct v3dd_field *f = &l->fields[k];
				test_checks++;
				if (f->size == 0 || f->size > 64 || f->start + f->size > 8u * (len - 1)) {
					test_failures++;
					fprintf(stderr, "opcode %u field %s [%u +%u] outside %u payload bytes on %d\n",
						l->opcode, f->name, f->start, f->size, len - 1, ver);
				}
				if (f->kind == V3DD_ADDR)
					CHECK(f->size == 32 || (f->start + f->size) % 32 == 0);
			}
		}
	}
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42)
		for (unsigned op = 0; op < 256; op++) {
			uint32_t len = v3d_cl_fixed_length(ver, (uint8_t)op);
			if (len <= 1 || op == V3D_CL_TILE_RENDERING_MODE_CFG)
				continue;
			test_checks++;
			if (!v3dd_find_layout(ver, (uint8_t)op, -1)) {
				test_failures++;
				fprintf(stderr, "no field layout for opcode %u on %d\n", op, ver);
			}
		}
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42)
		for (int r = 0; r < V3DD_REC_COUNT; r++) {
			size_t nr;
			uint32_t size;
			const char *name;
			const struct v3dd_field *f = v3dd_record_fields(ver, (enum v3dd_record)r, &nr, &size, &name);
			REQUIRE(f && size);
			for (size_t k = 0; k < nr; k++)
				CHECK(f[k].start + f[k].size <= 8u * size);
		}
	/* the address fields the validator relocates are all printed as addresses */
	for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42)
		for (unsigned op = 0; op < 256; op++) {
			const struct v3d_cl_addr_field *af;
			size_t n = v3d_cl_address_fields(ver, (uint8_t)op, &af);
			const struct v3dd_layout *l = n ? v3dd_find_layout(ver, (uint8_t)op, -1) : NULL;
			for (size_t k = 0; k < n; k++) {
				bool found = false;
				for (size_t j = 0; l && j < l->nr_fields; j++)
					found |= l->fields[j].kind == V3DD_ADDR && l->fields[j].start == af[k].start &&
						 l->fields[j].size == af[k].size;
				test_checks++;
				if (!found) {
					test_failures++;
					fprintf(stderr, "opcode %u address field %s not decoded as an address on %d\n", op,
						af[k].name, ver);
				}
			}
		}
}

static void test_bad_options(void)
{
	const uint8_t cl[] = { V3D_CL_HALT };
	struct v3d_decode_buffer b = { 0x1000, 1, NULL, cl, 1 };
	struct v3d_decode_options o = { .ver = 33, .buffers = &b, .nr_buffers = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK_EQ(v3d_decode_cl(f, &o, 0x1000, 0, NULL), -2);
	o.ver = V3D_VER_42;
	CHECK_EQ(v3d_decode_cl(f, &o, 0x2000, 0, NULL), -2);
	CHECK_EQ(v3d_decode_cl(f, &o, 0x1000, 0, NULL), 0);
	fclose(f);
	CHECK_HAS(buf, "/* unknown V3D version 33 (42 or 71) */");
	CHECK_HAS(buf, "/* 0x00002000: not in a buffer with known contents */");
	CHECK_HAS(buf, "@buffer buffer_0x1000\n");
	free(buf);
}

/* Every field v3d_packet.xml defines is decoded: the only payload bits no field covers are the
 * ones the XML leaves out or names pad / unused (listed here per packet and version; the sub-id of
 * TILE_RENDERING_MODE_CFG, printed as the sub-packet's name, counts as covered). A field dropped
 * from a table, or a new one in a hardware revision, shows here. */
static void test_every_field_decoded(void)
{
	static const struct {
		uint8_t opcode;
		int8_t sub_id;
		uint8_t vers;
		const char *gaps; /* "lo-hi lo-hi ..." in payload bits */
	} reserved[] = {
		{ 25, -1, V3DD_VER42, "2-7" }, { 29, -1, V3DD_BOTH, "21-27" }, { 30, -1, V3DD_BOTH, "8-9 21-27" },
		{ 56, -1, V3DD_BOTH, "6-6" }, { 57, -1, V3DD_BOTH, "2-5" }, { 74, -1, V3DD_BOTH, "5-6" },
		{ 77, -1, V3DD_BOTH, "68-71" }, { 80, -1, V3DD_BOTH, "30-31" }, { 84, -1, V3DD_VER42, "28-31" },
		{ 91, -1, V3DD_BOTH, "4-15" }, { 96, -1, V3DD_VER42, "8-10 22-23" }, { 96, -1, V3DD_VER71, "8-9 16-17" },
		{ 120, -1, V3DD_VER42, "0-1 6-7 16-31" }, { 120, -1, V3DD_VER71, "0-1 6-7 14-31" },
		{ 121, 0, V3DD_VER42, "44-44 52-63" }, { 121, 1, V3DD_VER42, "36-63" }, { 121, 2, V3DD_VER42, "4-7 48-63" },
		{ 121, 5, V3DD_VER42, "53-63" }, { 121, 0, V3DD_VER71, "40-41 58-63" }, { 121, 1, V3DD_VER71, "4-7 48-63" },
		{ 121, 2, V3DD_VER71, "6-6" }, { 121, 3, V3DD_VER71, "6-23" }, { 121, 4, V3DD_VER71, "6-7" },
		{ 122, -1, V3DD_BOTH, "57-59" }, { 123, -1, V3DD_BOTH, "4-5" }, { 126, -1, V3DD_BOTH, "3-7" },
	};
	for (size_t i = 0; i < v3dd_nr_layouts; i++) {
		const struct v3dd_layout *l = &v3dd_layouts[i];
		for (int ver = V3D_VER_42; ver <= V3D_VER_71; ver += V3D_VER_71 - V3D_VER_42) {
			unsigned vbit = ver == V3D_VER_42 ? V3DD_VER42 : V3DD_VER71;
			uint32_t len = v3d_cl_fixed_length(ver, l->opcode);
			if (!(l->vers & vbit) || len <= 1 || len > 64)
				continue;
			unsigned bits = 8 * (len - 1);
			uint8_t covered[512] = { 0 };
			if (l->sub_id >= 0)
				memset(covered, 1, 4);
			for (size_t k = 0; k < l->nr_fields; k++)
				for (unsigned b = l->fields[k].start; b < l->fields[k].start + l->fields[k].size && b < bits; b++)
					covered[b] = 1;
			char gaps[256] = "";
			size_t n = 0;
			for (unsigned b = 0; b < bits && n < sizeof(gaps) - 16; b++) {
				if (covered[b])
					continue;
				unsigned e = b;
				while (e + 1 < bits && !covered[e + 1])
					e++;
				n += (size_t)snprintf(gaps + n, sizeof(gaps) - n, "%s%u-%u", n ? " " : "", b, e);
				b = e;
			}
			const char *want = "";
			for (size_t r = 0; r < sizeof(reserved) / sizeof(reserved[0]); r++)
				if (reserved[r].opcode == l->opcode && reserved[r].sub_id == l->sub_id && (reserved[r].vers & vbit))
					want = reserved[r].gaps;
			test_checks++;
			if (strcmp(gaps, want) != 0) {
				test_failures++;
				fprintf(stderr, "opcode %u sub %d on %d: bits no field covers \"%s\", reserved \"%s\"\n",
					l->opcode, l->sub_id, ver, gaps, want);
			}
		}
	}
}

int main(void)
{
	RUN_TEST(test_copy_job_42);
	RUN_TEST(test_copy_job_71);
	RUN_TEST(test_fill_job);
	RUN_TEST(test_branch_following);
	RUN_TEST(test_cycles);
	RUN_TEST(test_unknown_opcode);
	RUN_TEST(test_truncation);
	RUN_TEST(test_shader_records);
	RUN_TEST(test_tfu_csd);
	RUN_TEST(test_version_guess);
	RUN_TEST(test_layout_tables);
	RUN_TEST(test_every_field_decoded);
	RUN_TEST(test_bad_options);
	return test_finish();
}
