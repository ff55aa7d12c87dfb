/* V3D texture and TFU facts: the "Texture Data Formats" (Mesa v3d_packet.xml) with their texel
 * sizes and names, and the TFU's format codes (Mesa v3d_tfu.h), for the simulated TFU, the
 * validator and the decoder. */
#include <stddef.h>

#include "ferry/hw/v3d_cl.h"

struct texture_type {
	const char *name;
	uint8_t bytes;  /* per texel, whole-byte types only */
	bool tfu_copy;  /* the simulated TFU copies it byte for byte */
};

/* Indexed by the 7-bit type. The simulated TFU leaves out depth, stencil, YCbCr and A1_RGB5. */
static const struct texture_type types[128] = {
	[0] = { "r8", 1, true },
	[1] = { "r8_snorm", 1, true },
	[2] = { "rg8", 2, true },
	[3] = { "rg8_snorm", 2, true },
	[4] = { "rgba8", 4, true },
	[5] = { "rgba8_snorm", 4, true },
	[6] = { "rgb565", 2, true },
	[7] = { "rgba4", 2, true },
	[8] = { "rgb5_a1", 2, true },
	[9] = { "rgb10_a2", 4, true },
	[10] = { "r16", 2, true },
	[11] = { "r16_snorm", 2, true },
	[12] = { "rg16", 4, true },
	[13] = { "rg16_snorm", 4, true },
	[14] = { "rgba16", 8, true },
	[15] = { "rgba16_snorm", 8, true },
	[16] = { "r16f", 2, true },
	[17] = { "rg16f", 4, true },
	[18] = { "rgba16f", 8, true },
	[19] = { "r11f_g11f_b10f", 4, true },
	[20] = { "rgb9_e5", 4, true },
	[21] = { "depth_comp16", 2, false },
	[22] = { "depth_comp24", 4, false },
	[23] = { "depth_comp32f", 4, false },
	[24] = { "depth24_x8", 4, false },
	[25] = { "r4", 0, false },
	[26] = { "r1", 0, false },
	[27] = { "s8", 1, false },
	[28] = { "s16", 2, false },
	[29] = { "r32f", 4, true },
	[30] = { "rg32f", 8, true },
	[31] = { "rgba32f", 16, true },
	[32] = { "rgb8_etc2", 0, false },
	[33] = { "rgb8_punchthrough_alpha1", 0, false },
	[34] = { "r11_eac", 0, false },
	[35] = { "signed_r11_eac", 0, false },
	[36] = { "rg11_eac", 0, false },
	[37] = { "signed_rg11_eac", 0, false },
	[38] = { "rgba8_etc2_eac", 0, false },
	[39] = { "ycbcr_luma", 1, false },
	[40] = { "ycbcr_420_chroma", 2, false },
	[48] = { "bc1", 0, false },
	[49] = { "bc2", 0, false },
	[50] = { "bc3", 0, false },
	[64] = { "astc_4x4", 0, false },
	[65] = { "astc_5x4", 0, false },
	[66] = { "astc_5x5", 0, false },
	[67] = { "astc_6x5", 0, false },
	[68] = { "astc_6x6", 0, false },
	[69] = { "astc_8x5", 0, false },
	[70] = { "astc_8x6", 0, false },
	[71] = { "astc_8x8", 0, false },
	[72] = { "astc_10x5", 0, false },
	[73] = { "astc_10x6", 0, false },
	[74] = { "astc_10x8", 0, false },
	[75] = { "astc_10x10", 0, false },
	[76] = { "astc_12x10", 0, false },
	[77] = { "astc_12x12", 0, false },
	[96] = { "r8i", 1, true },
	[97] = { "r8ui", 1, true },
	[98] = { "rg8i", 2, true },
	[99] = { "rg8ui", 2, true },
	[100] = { "rgba8i", 4, true },
	[101] = { "rgba8ui", 4, true },
	[102] = { "r16i", 2, true },
	[103] = { "r16ui", 2, true },
	[104] = { "rg16i", 4, true },
	[105] = { "rg16ui", 4, true },
	[106] = { "rgba16i", 8, true },
	[107] = { "rgba16ui", 8, true },
	[108] = { "r32i", 4, true },
	[109] = { "r32ui", 4, true },
	[110] = { "rg32i", 8, true },
	[111] = { "rg32ui", 8, true },
	[112] = { "rgba32i", 16, true },
	[113] = { "rgba32ui", 16, true },
	[114] = { "rgb10_a2ui", 4, true },
	[115] = { "a1_rgb5", 2, false },
};

uint32_t v3d_texture_type_bytes(uint32_t ttype)
{
	return ttype < 128 ? types[ttype].bytes : 0;
}

const char *v3d_texture_type_name(uint32_t ttype)
{
	return ttype < 128 ? types[ttype].name : NULL;
}

uint32_t v3d_texture_type_tfu_copy_bytes(uint32_t ttype)
{
	return ttype < 128 && types[ttype].tfu_copy ? types[ttype].bytes : 0;
}

/* The layouts in enum v3d_cl_memory_format's order from LINEARTILE on: both format enums list
 * LINEARTILE, UBLINEAR_1, UBLINEAR_2, UIF_NO_XOR, UIF_XOR in a row. */
int v3d_tfu_iformat_memory(uint32_t iformat)
{
	if (iformat == V3D_TFU_IFORMAT_RASTER)
		return V3D_CL_MEMORY_RASTER;
	if (iformat >= V3D_TFU_IFORMAT_LINEARTILE && iformat <= V3D_TFU_IFORMAT_UIF_XOR)
		return V3D_CL_MEMORY_LINEARTILE + (int)(iformat - V3D_TFU_IFORMAT_LINEARTILE);
	return -1;
}

int v3d_tfu_oformat_memory(uint32_t oformat)
{
	if (oformat == V3D_TFU_OFORMAT_RASTER)
		return V3D_CL_MEMORY_RASTER;
	if (oformat >= V3D_TFU_OFORMAT_LINEARTILE && oformat <= V3D_TFU_OFORMAT_UIF_XOR)
		return V3D_CL_MEMORY_LINEARTILE + (int)(oformat - V3D_TFU_OFORMAT_LINEARTILE);
	return -1;
}

const char *v3d_tfu_iformat_name(uint32_t iformat)
{
	static const char *const names[16] = {
		[V3D_TFU_IFORMAT_RASTER] = "raster",         [V3D_TFU_IFORMAT_SAND_128] = "sand_128",
		[V3D_TFU_IFORMAT_SAND_256] = "sand_256",     [V3D_TFU_IFORMAT_LINEARTILE] = "lineartile",
		[V3D_TFU_IFORMAT_UBLINEAR_1] = "ublinear_1", [V3D_TFU_IFORMAT_UBLINEAR_2] = "ublinear_2",
		[V3D_TFU_IFORMAT_UIF_NO_XOR] = "uif_no_xor", [V3D_TFU_IFORMAT_UIF_XOR] = "uif_xor",
	};
	return iformat < 16 ? names[iformat] : NULL;
}

const char *v3d_tfu_oformat_name(uint32_t oformat)
{
	static const char *const names[8] = {
		[V3D_TFU_OFORMAT_RASTER] = "raster",         [V3D_TFU_OFORMAT_LINEARTILE] = "lineartile",
		[V3D_TFU_OFORMAT_UBLINEAR_1] = "ublinear_1", [V3D_TFU_OFORMAT_UBLINEAR_2] = "ublinear_2",
		[V3D_TFU_OFORMAT_UIF_NO_XOR] = "uif_no_xor", [V3D_TFU_OFORMAT_UIF_XOR] = "uif_xor",
	};
	return oformat < 8 ? names[oformat] : NULL;
}
