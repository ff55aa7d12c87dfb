/* The V3D packet tables and the CL builder's encodings, checked against bytes computed by hand
 * from Mesa's v3d_packet.xml field positions, on 4.2 and 7.1. */
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "v3d_cl_builder.h"

static uint8_t buf[4096];
static struct v3d_clb b;

static void begin(int ver)
{
	memset(buf, 0xee, sizeof(buf));
	v3d_clb_init(&b, ver, buf, sizeof(buf), 0x10000);
}

#define EXPECT_BYTES(...)                                                                         \
	do {                                                                                      \
		static const uint8_t want[] = { __VA_ARGS__ };                                    \
		CHECK(v3d_clb_ok(&b));                                                            \
		CHECK_EQ(b.len, sizeof(want));                                                    \
		CHECK(memcmp(buf, want, sizeof(want)) == 0);                                      \
		if (memcmp(buf, want, sizeof(want)) != 0)                                         \
			for (unsigned _i = 0; _i < sizeof(want); _i++)                            \
				fprintf(stderr, "  [%u] %02x want %02x\n", _i, buf[_i], want[_i]); \
	} while (0)

static void test_lengths(void)
{
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_HALT), 1);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_BRANCH), 5);
	CHECK_EQ(v3d_cl_fixed_length(71, V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST), 9);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_STORE_TILE_BUFFER_GENERAL), 13);
	CHECK_EQ(v3d_cl_fixed_length(71, V3D_CL_LOAD_TILE_BUFFER_GENERAL), 13);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_CLEAR_TILE_BUFFERS), 2);
	CHECK_EQ(v3d_cl_fixed_length(71, V3D_CL_CLEAR_TILE_BUFFERS), 1);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_DEPTH_BOUNDS_TEST_LIMITS), 0);
	CHECK_EQ(v3d_cl_fixed_length(71, V3D_CL_DEPTH_BOUNDS_TEST_LIMITS), 9);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_CLIPPER_Z_SCALE_AND_OFFSET_NO_GUARDBAND), 0);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_L2T_CACHE_FLUSH_CONTROL), 10);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_INDEXED_INSTANCED_PRIM_LIST), 14);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_BRANCH_TO_EXPLICIT_SUPERTILE), 8);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_CFG_BITS), 4);
	CHECK_EQ(v3d_cl_fixed_length(42, V3D_CL_STENCIL_CFG), 6);
	CHECK_EQ(v3d_cl_fixed_length(42, 24), 0);  /* no such opcode */
	CHECK_EQ(v3d_cl_fixed_length(42, 200), 0);
	CHECK_EQ(v3d_cl_fixed_length(33, V3D_CL_HALT), 0); /* not a supported version */
	const uint8_t tf[] = { V3D_CL_TRANSFORM_FEEDBACK_SPECS, 0x83 };
	CHECK_EQ(v3d_cl_packet_length(42, tf, 2), 8);
	CHECK_EQ(v3d_cl_packet_length(42, tf, 1), 2);
	CHECK(strcmp(v3d_cl_opcode_name(71, V3D_CL_CLEAR_TILE_BUFFERS), "Clear Render Targets") == 0);
	CHECK(strcmp(v3d_cl_opcode_name(42, V3D_CL_CLEAR_TILE_BUFFERS), "Clear Tile Buffers") == 0);
	CHECK(v3d_cl_opcode_name(42, 28) == NULL);
	CHECK_EQ(v3d_cl_packet_lists(42, V3D_CL_STORE_TILE_BUFFER_GENERAL), V3D_CL_IN_RENDER);
	CHECK_EQ(v3d_cl_packet_lists(42, V3D_CL_VERTEX_ARRAY_PRIMS), V3D_CL_IN_BIN);
	CHECK_EQ(v3d_cl_packet_lists(42, V3D_CL_BRANCH), V3D_CL_IN_BOTH);
}

static void test_address_fields(void)
{
	const struct v3d_cl_addr_field *f;
	CHECK_EQ(v3d_cl_address_fields(42, V3D_CL_GL_SHADER_STATE, &f), 1);
	CHECK_EQ(f[0].start, 5);
	CHECK_EQ(f[0].size, 27);
	/* relocating keeps the attribute count in the low bits */
	uint8_t p[4] = { 0xe3, 0xcd, 0xab, 0x00 }; /* 0x00abcde0 | 3 */
	CHECK_EQ(v3d_cl_get_address(p, f[0].start, f[0].size), 0x00abcde0u);
	v3d_cl_set_address(p, f[0].start, f[0].size, 0x12345600u);
	CHECK_EQ(p[0], 0x03);
	CHECK_EQ(p[1], 0x56);
	CHECK_EQ(p[3], 0x12);
	CHECK_EQ(v3d_cl_address_fields(71, V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST, &f), 2);
	CHECK_EQ(v3d_cl_address_fields(71, V3D_CL_MULTICORE_RENDERING_TILE_LIST_SET_BASE, &f), 1);
	CHECK_EQ(f[0].start, 6);
	CHECK_EQ(v3d_cl_address_fields(42, V3D_CL_LOAD_TILE_BUFFER_GENERAL, &f), 1);
	CHECK_EQ(f[0].start, 64);
	CHECK_EQ(v3d_cl_address_fields(42, V3D_CL_NOP, &f), 0);
	CHECK_EQ(v3d_cl_struct_size(42, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD), 36);
	CHECK_EQ(v3d_cl_struct_size(71, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD), 32);
	CHECK_EQ(v3d_cl_struct_address_fields(42, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, &f), 7);
	CHECK_EQ(v3d_cl_struct_address_fields(71, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, &f), 6);
	CHECK_EQ(f[0].start, 67);
	CHECK_EQ(f[0].size, 29);
	/* every field ends inside its structure */
	for (int ver = 42; ver <= 71; ver += 29)
		for (int s = V3D_CL_STRUCT_GL_SHADER_STATE_RECORD; s <= V3D_CL_STRUCT_TEXTURE_SHADER_STATE; s++) {
			size_t n = v3d_cl_struct_address_fields(ver, (enum v3d_cl_struct)s, &f);
			for (size_t i = 0; i < n; i++)
				CHECK(f[i].start + f[i].size <= v3d_cl_struct_size(ver, (enum v3d_cl_struct)s) * 8u);
		}
	/* and every packet's address field ends inside its packet */
	for (int ver = 42; ver <= 71; ver += 29)
		for (unsigned op = 0; op < 256; op++) {
			size_t n = v3d_cl_address_fields(ver, (uint8_t)op, &f);
			for (size_t i = 0; i < n; i++)
				CHECK(f[i].start + f[i].size <= (v3d_cl_fixed_length(ver, (uint8_t)op) - 1u) * 8u);
		}
}

static void test_control_packets(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		begin(ver);
		v3d_clb_branch(&b, 0x12345678);
		EXPECT_BYTES(16, 0x78, 0x56, 0x34, 0x12);
		begin(ver);
		v3d_clb_generic_tile_list(&b, 0x00100000, 0x00100040);
		EXPECT_BYTES(20, 0x00, 0x00, 0x10, 0x00, 0x40, 0x00, 0x10, 0x00);
		begin(ver);
		v3d_clb_tile_coordinates(&b, 5, 7);
		EXPECT_BYTES(124, 0x05, 0x70, 0x00);
		begin(ver);
		v3d_clb_supertile_coordinates(&b, 2, 3);
		EXPECT_BYTES(23, 2, 3);
		begin(ver);
		v3d_clb_tile_list_set_base(&b, 0x00100040, 1);
		EXPECT_BYTES(123, 0x41, 0x00, 0x10, 0x00);
		begin(ver);
		v3d_clb_gl_shader_state(&b, 0x00abcde0, 3);
		EXPECT_BYTES(64, 0xe3, 0xcd, 0xab, 0x00);
		begin(ver);
		const uint16_t specs[] = { 0x1234, 0xabcd };
		v3d_clb_transform_feedback_specs(&b, true, 2, specs);
		EXPECT_BYTES(74, 0x82, 0x34, 0x12, 0xcd, 0xab);
	}
	begin(42);
	v3d_clb_clear(&b, true, true);
	EXPECT_BYTES(25, 0x03);
	begin(71);
	v3d_clb_clear(&b, true, true);
	EXPECT_BYTES(25);
}

static void test_load_store(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		begin(ver);
		struct v3d_clb_ls st = { .buffer = V3D_CL_BUFFER_RT0, .memory_format = V3D_CL_MEMORY_RASTER,
					 .image_format = V3D_CL_FMT_RGBA8UI, .stride = 256, .addr = 0xdeadbee0 };
		v3d_clb_store(&b, &st);
		/* format 34 at bit 12, stride 256 at bit 28 (= bit 36: byte 4 bit 4), address at 64 */
		EXPECT_BYTES(29, 0x00, 0x20, 0x02, 0x00, 0x10, 0x00, 0x00, 0x00, 0xe0, 0xbe, 0xad, 0xde);
		begin(ver);
		struct v3d_clb_ls ld = { .buffer = 1, .image_format = V3D_CL_FMT_R32UI, .flip_y = true,
					 .height = 100, .stride = 0x12345, .addr = 0x1000 };
		v3d_clb_load(&b, &ld);
		/* buffer 1, flip bit 7, format 17 at 12 (byte1 bits 4..7 = 1, byte2 bit 0 = 1),
		 * stride at 28: 0x12345 << 28, height 100 at 48 */
		EXPECT_BYTES(30, 0x81, 0x10, 0x01, 0x50, 0x34, 0x12, 0x64, 0x00, 0x00, 0x10, 0x00, 0x00);
	}
}

static void test_rendering_mode(void)
{
	struct v3d_clb_rendering common = { .width = 100, .height = 50, .num_rts = 1, .early_z_disable = true,
					    .tile_w = 64, .tile_h = 64 };
	begin(42);
	v3d_clb_rendering_mode_common(&b, &common);
	EXPECT_BYTES(121, 0x00, 0x64, 0x00, 0x32, 0x00, 0x40, 0x00, 0x00);
	begin(71);
	v3d_clb_rendering_mode_common(&b, &common);
	/* log2 tile width 3 at 52, height 3 at 55: byte 6 = 0x30 | 0x80, byte 7 = 0x01 */
	EXPECT_BYTES(121, 0x00, 0x64, 0x00, 0x32, 0x00, 0x40, 0xb0, 0x01);

	const uint32_t color[4] = { 0x11223344, 0xaabbccdd, 0x55667788, 0x99aabbcc };
	begin(42);
	v3d42_clb_clear_color(&b, 0, V3D_INTERNAL_BPP_32, color);
	EXPECT_BYTES(121, 0x03, 0x44, 0x33, 0x22, 0x11, 0xdd, 0xcc, 0xbb);
	begin(42);
	v3d42_clb_clear_color(&b, 1, V3D_INTERNAL_BPP_128, color);
	CHECK_EQ(b.len, 27);
	/* part 2: mid-low = color1 >> 24 | color2 << 8 = 0x667788aa, mid-high = color2 >> 24 | (color3 & 0xffff) << 8 */
	static const uint8_t part2[] = { 121, 0x14, 0xaa, 0x88, 0x77, 0x66, 0x55, 0xcc, 0xbb };
	CHECK(memcmp(buf + 9, part2, sizeof(part2)) == 0);
	static const uint8_t part3[] = { 121, 0x15, 0xaa, 0x99 };
	CHECK(memcmp(buf + 18, part3, sizeof(part3)) == 0);

	begin(42);
	struct v3d_clb_rt42 rts[4] = { { V3D_INTERNAL_BPP_32, V3D_INTERNAL_TYPE_8UI, 0 },
				       { V3D_INTERNAL_BPP_128, V3D_INTERNAL_TYPE_32F, 3 } };
	v3d42_clb_rendering_mode_color(&b, rts);
	/* RT0: bpp 0 @4, type 1 @6 -> 0x41; RT1: bpp 2 @12, type 10 @14, clamp 3 @18 */
	EXPECT_BYTES(121, 0x41, 0xa0, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00);

	begin(71);
	v3d71_clb_render_target(&b, 0, V3D_INTERNAL_BPP_32, V3D71_RT_8UI, 64, color);
	/* sub-id 2, stride 64*1/2 - 1 = 31 @18, type 4 @27, clear low bits @32 */
	EXPECT_BYTES(121, 0x02, 0x00, 0x7c, 0x20, 0x44, 0x33, 0x22, 0x11);

	begin(42);
	v3d_clb_zs_clear_values(&b, 1.0f, 0x5a);
	/* sub-id 2, stencil @8, z (0x3f800000) @16 */
	EXPECT_BYTES(121, 0x02, 0x5a, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00);
	begin(71);
	v3d_clb_zs_clear_values(&b, 1.0f, 0x5a);
	EXPECT_BYTES(121, 0x01, 0x5a, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00);
}

static void test_binning_mode(void)
{
	struct v3d_clb_binning cfg = { .width = 100, .height = 50, .num_rts = 1, .tile_w = 32, .tile_h = 16 };
	begin(42);
	v3d_clb_tile_binning_mode_cfg(&b, &cfg);
	EXPECT_BYTES(120, 0x00, 0x00, 0x00, 0x00, 0x63, 0x00, 0x31, 0x00);
	begin(71);
	v3d_clb_tile_binning_mode_cfg(&b, &cfg);
	/* log2 width 2 @8, log2 height 1 @11 -> byte 1 = 0x02 | 0x08 */
	EXPECT_BYTES(120, 0x00, 0x0a, 0x00, 0x00, 0x63, 0x00, 0x31, 0x00);
}

static void test_errors(void)
{
	/* overflow: the packet that does not fit is not written, and later ones are refused */
	uint8_t small[6];
	struct v3d_clb s;
	v3d_clb_init(&s, 42, small, sizeof(small), 0);
	CHECK(v3d_clb_branch(&s, 0x1000));
	CHECK(!v3d_clb_branch(&s, 0x2000));
	CHECK_EQ(s.error, V3D_CLB_OVERFLOW);
	CHECK_EQ(s.len, 5);
	CHECK(!v3d_clb_op(&s, V3D_CL_HALT));
	CHECK_EQ(s.len, 5);

	/* a value too wide for its field, a misaligned address, an opcode of the other version */
	begin(42);
	CHECK(!v3d_clb_tile_coordinates(&b, 4096, 0));
	CHECK_EQ(b.error, V3D_CLB_INVALID);
	CHECK_EQ(b.len, 0);
	begin(42);
	CHECK(!v3d_clb_gl_shader_state(&b, 0x1004, 1));
	CHECK_EQ(b.error, V3D_CLB_INVALID);
	begin(42);
	CHECK(!v3d_clb_op(&b, V3D_CL_DEPTH_BOUNDS_TEST_LIMITS));
	begin(71);
	CHECK(!v3d_clb_op(&b, 24));
	begin(42);
	struct v3d_clb_ls ld = { .buffer = V3D_CL_BUFFER_RT0, .stride = 1u << 20 };
	CHECK(!v3d_clb_load(&b, &ld));
	begin(42);
	CHECK(!v3d71_clb_render_target(&b, 0, 0, 0, 64, NULL));
	begin(71);
	struct v3d_clb_rendering bad = { .width = 8, .height = 8, .num_rts = 1, .tile_w = 48, .tile_h = 64 };
	CHECK(!v3d_clb_rendering_mode_common(&b, &bad));
	struct v3d_clb v;
	v3d_clb_init(&v, 40, buf, sizeof(buf), 0);
	CHECK(!v3d_clb_ok(&v));
}

int main(void)
{
	RUN_TEST(test_lengths);
	RUN_TEST(test_address_fields);
	RUN_TEST(test_control_packets);
	RUN_TEST(test_load_store);
	RUN_TEST(test_rendering_mode);
	RUN_TEST(test_binning_mode);
	RUN_TEST(test_errors);
	return test_finish();
}
