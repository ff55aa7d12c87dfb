/* The V3D TFU facts of ferry/hw/v3d_cl.h: register fields decoded per version, the format codes'
 * layouts and names, and the texture type table the simulator, validator and decoder share. */
#include <string.h>

#include "ferry/hw/v3d_cl.h"
#include "test.h"

static void test_fields_42(void)
{
	/* NUMMM 2, TTYPE 101 (rgba8ui), IFORMAT UIF_XOR, OPAD 3; IOA 0x200000 + FORMAT 7 + DIMTW. */
	uint32_t icfg = 2u << 5 | 101u << 9 | 15u << 18 | 3u << 22, ioa = 0x200000u | 7u << 3 | 1u;
	struct v3d_tfu_fields f;
	v3d_tfu_fields(false, icfg, ioa, 0, 48u << 16 | 64u, &f);
	CHECK_EQ(f.nummm, 2u);
	CHECK_EQ(f.ttype, 101u);
	CHECK_EQ(f.iformat, (uint32_t)V3D_TFU_IFORMAT_UIF_XOR);
	CHECK_EQ(f.opad, 3u);
	CHECK_EQ(f.oformat, (uint32_t)V3D_TFU_OFORMAT_UIF_XOR);
	CHECK(f.dimtw);
	CHECK_EQ(f.out_addr, 0x200000u);
	CHECK_EQ(f.stride, 0u);
	CHECK_EQ(f.width, 64u);
	CHECK_EQ(f.height, 48u);
}

static void test_fields_71(void)
{
	uint32_t icfg = 4u << 16 | 11u << 23, ioc = 1u | 3u << 4 | 3u << 12 | 256u << 16;
	struct v3d_tfu_fields f;
	v3d_tfu_fields(true, icfg, 0x300007u, ioc, 1u << 16 | 1u, &f);
	CHECK_EQ(f.ttype, 4u);
	CHECK_EQ(f.iformat, (uint32_t)V3D_TFU_IFORMAT_LINEARTILE);
	CHECK_EQ(f.oformat, (uint32_t)V3D_TFU_OFORMAT_LINEARTILE);
	CHECK_EQ(f.nummm, 3u);
	CHECK(f.dimtw);
	CHECK_EQ(f.out_addr, 0x300007u); /* 7.1's IOA is the address itself */
	CHECK_EQ(f.stride, 256u);
	CHECK_EQ(f.opad, 0u);
}

/* What the encoders write, the decoder reads back. */
static void test_encoders_round_trip(void)
{
	struct v3d_tfu_fields f;
	v3d_tfu_fields(false, V3D42_TFU_ICFG_TTYPE_SET(113), 0x1000u, 0, V3D_TFU_IOS(640, 480), &f);
	CHECK_EQ(f.ttype, 113u);
	CHECK_EQ(f.width, 640u);
	CHECK_EQ(f.height, 480u);
	v3d_tfu_fields(true, V3D71_TFU_ICFG_OTYPE_SET(31), 0x1000u, V3D71_TFU_IOC_STRIDE_SET(1024), V3D_TFU_IOS(1, 2), &f);
	CHECK_EQ(f.ttype, 31u);
	CHECK_EQ(f.stride, 1024u);
	CHECK_EQ(f.width, 1u);
	CHECK_EQ(f.height, 2u);
}

static void test_formats(void)
{
	CHECK_EQ(v3d_tfu_iformat_memory(V3D_TFU_IFORMAT_RASTER), V3D_CL_MEMORY_RASTER);
	CHECK_EQ(v3d_tfu_iformat_memory(V3D_TFU_IFORMAT_UBLINEAR_2), V3D_CL_MEMORY_UBLINEAR_2);
	CHECK_EQ(v3d_tfu_iformat_memory(V3D_TFU_IFORMAT_UIF_XOR), V3D_CL_MEMORY_UIF_XOR);
	CHECK_EQ(v3d_tfu_iformat_memory(V3D_TFU_IFORMAT_SAND_128), -1);
	CHECK_EQ(v3d_tfu_iformat_memory(5), -1);
	CHECK_EQ(v3d_tfu_oformat_memory(V3D_TFU_OFORMAT_LINEARTILE), V3D_CL_MEMORY_LINEARTILE);
	CHECK_EQ(v3d_tfu_oformat_memory(V3D_TFU_OFORMAT_UIF_NO_XOR), V3D_CL_MEMORY_UIF_NO_XOR);
	CHECK_EQ(v3d_tfu_oformat_memory(1), -1);
	CHECK(strcmp(v3d_tfu_iformat_name(V3D_TFU_IFORMAT_SAND_256), "sand_256") == 0);
	CHECK(strcmp(v3d_tfu_oformat_name(V3D_TFU_OFORMAT_UIF_XOR), "uif_xor") == 0);
	CHECK(v3d_tfu_iformat_name(3) == NULL);
	CHECK(v3d_tfu_oformat_name(8) == NULL);
}

static void test_texture_types(void)
{
	CHECK(strcmp(v3d_texture_type_name(4), "rgba8") == 0);
	CHECK(strcmp(v3d_texture_type_name(115), "a1_rgb5") == 0);
	CHECK(v3d_texture_type_name(41) == NULL);
	CHECK(v3d_texture_type_name(128) == NULL);
	CHECK_EQ(v3d_texture_type_bytes(31), 16u);      /* rgba32f */
	CHECK_EQ(v3d_texture_type_bytes(22), 4u);       /* depth_comp24 */
	CHECK_EQ(v3d_texture_type_tfu_copy_bytes(22), 0u);
	CHECK_EQ(v3d_texture_type_bytes(48), 0u);       /* bc1: compressed */
	/* The copies the simulated TFU makes are a subset of the whole-byte types, at the same size. */
	int copies = 0;
	for (uint32_t t = 0; t < 130; t++) {
		uint32_t c = v3d_texture_type_tfu_copy_bytes(t);
		if (!c)
			continue;
		copies++;
		CHECK_EQ(c, v3d_texture_type_bytes(t));
		CHECK(v3d_texture_type_name(t) != NULL);
	}
	CHECK_EQ(copies, 43);
}

int main(void)
{
	RUN_TEST(test_fields_42);
	RUN_TEST(test_fields_71);
	RUN_TEST(test_encoders_round_trip);
	RUN_TEST(test_formats);
	RUN_TEST(test_texture_types);
	return test_finish();
}
