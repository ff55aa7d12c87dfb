/* The register sets of V3D TFU and CSD submits, printed field by field with their addresses
 * annotated. Field positions: shared/reference/kernel-uapi-msm-v3d.md §6 and Mesa
 * src/broadcom/common/v3d_tfu.h (4.2: ICFG NUMMM<<5, TTYPE<<9, FORMAT<<18, OPAD<<22; IOA DIMTW b0,
 * FORMAT<<3; 7.1: ICFG OTYPE<<16, IFORMAT<<23; IOC DIMTW b0, NUMMM<<4, FORMAT<<12, STRIDE<<16);
 * texture data type names from v3d_packet.xml "Texture Data Formats". */
#include <inttypes.h>

#include "ferry/hw/v3d_cl.h"
#include "v3d_decode.h"

static const char *const tfu_input_formats[16] = {
	[0] = "raster", [1] = "sand_128", [2] = "sand_256", [11] = "lineartile", [12] = "ublinear_1",
	[13] = "ublinear_2", [14] = "uif_no_xor", [15] = "uif_xor",
};
static const char *const tfu_output_formats[8] = {
	[0] = "raster", [3] = "lineartile", [4] = "ublinear_1", [5] = "ublinear_2", [6] = "uif_no_xor",
	[7] = "uif_xor",
};
static const char *const texture_types[128] = {
	[0] = "r8", [1] = "r8_snorm", [2] = "rg8", [3] = "rg8_snorm", [4] = "rgba8", [5] = "rgba8_snorm",
	[6] = "rgb565", [7] = "rgba4", [8] = "rgb5_a1", [9] = "rgb10_a2", [10] = "r16", [11] = "r16_snorm",
	[12] = "rg16", [13] = "rg16_snorm", [14] = "rgba16", [15] = "rgba16_snorm", [16] = "r16f",
	[17] = "rg16f", [18] = "rgba16f", [19] = "r11f_g11f_b10f", [20] = "rgb9_e5", [21] = "depth_comp16",
	[22] = "depth_comp24", [23] = "depth_comp32f", [24] = "depth24_x8", [25] = "r4", [26] = "r1",
	[27] = "s8", [28] = "s16", [29] = "r32f", [30] = "rg32f", [31] = "rgba32f", [32] = "rgb8_etc2",
	[33] = "rgb8_punchthrough_alpha1", [34] = "r11_eac", [35] = "signed_r11_eac", [36] = "rg11_eac",
	[37] = "signed_rg11_eac", [38] = "rgba8_etc2_eac", [39] = "ycbcr_luma", [40] = "ycbcr_420_chroma",
	[48] = "bc1", [49] = "bc2", [50] = "bc3", [64] = "astc_4x4", [65] = "astc_5x4", [66] = "astc_5x5",
	[67] = "astc_6x5", [68] = "astc_6x6", [69] = "astc_8x5", [70] = "astc_8x6", [71] = "astc_8x8",
	[72] = "astc_10x5", [73] = "astc_10x6", [74] = "astc_10x8", [75] = "astc_10x10",
	[76] = "astc_12x10", [77] = "astc_12x12", [96] = "r8i", [97] = "r8ui", [98] = "rg8i",
	[99] = "rg8ui", [100] = "rgba8i", [101] = "rgba8ui", [102] = "r16i", [103] = "r16ui",
	[104] = "rg16i", [105] = "rg16ui", [106] = "rgba16i", [107] = "rgba16ui", [108] = "r32i",
	[109] = "r32ui", [110] = "rg32i", [111] = "rg32ui", [112] = "rgba32i", [113] = "rgba32ui",
	[114] = "rgb10_a2ui", [115] = "a1_rgb5",
};

static const char *name_of(const char *const *names, uint32_t n, uint32_t v)
{
	return v < n && names[v] ? names[v] : "?";
}

static void print_reg_addr(FILE *out, const struct v3d_decode_options *o, const char *reg, uint32_t addr,
			   const char *what)
{
	char a[128];
	v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, addr);
	fprintf(out, "  %s = %s  /* %s */\n", reg, a, what);
}

int v3d_decode_tfu(FILE *out, const struct v3d_decode_options *o, const struct v3d_decode_tfu *r)
{
	bool v71 = o->ver == V3D_VER_71;
	fprintf(out, "@format tfu  /* V3D %d.%d */\n", o->ver / 10, o->ver % 10);
	if (v71) {
		uint32_t otype = (r->icfg >> 16) & 0x7f, ifmt = (r->icfg >> 23) & 0xf;
		fprintf(out, "  icfg = 0x%08" PRIx32 "  ioc_irq = %u, output_type = %s (%u), input_format = %s (%u)\n",
			r->icfg, r->icfg & 1u, name_of(texture_types, 128, otype), otype,
			name_of(tfu_input_formats, 16, ifmt), ifmt);
	} else {
		uint32_t nummm = (r->icfg >> 5) & 0xf, ttype = (r->icfg >> 9) & 0x7f;
		uint32_t ifmt = (r->icfg >> 18) & 0xf, opad = (r->icfg >> 22) & 0xf;
		fprintf(out, "  icfg = 0x%08" PRIx32 "  ioc_irq = %u, number_of_mipmaps = %u, texture_type = %s (%u), "
			"input_format = %s (%u), output_padding = %u\n", r->icfg, r->icfg & 1u, nummm,
			name_of(texture_types, 128, ttype), ttype, name_of(tfu_input_formats, 16, ifmt), ifmt, opad);
	}
	print_reg_addr(out, o, "iia", r->iia, "input image, plane 0");
	fprintf(out, "  iis = %" PRIu32 "  /* input stride: raster pixels per row, UIF height in blocks */\n", r->iis);
	print_reg_addr(out, o, "ica", r->ica, "input chroma, plane 1");
	print_reg_addr(out, o, "iua", r->iua, "input U, plane 2");
	if (v71) {
		print_reg_addr(out, o, "ioa", r->ioa, "output image");
	} else {
		/* 4.2 keeps flags in IOA's low bits: DIMTW b0, FORMAT [5:3] */
		uint32_t fmt = (r->ioa >> 3) & 7;
		char a[128];
		v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, r->ioa & ~0x3fu);
		fprintf(out, "  ioa = 0x%08" PRIx32 "  address = %s, dimtw = %u, output_format = %s (%u)\n", r->ioa, a,
			r->ioa & 1u, name_of(tfu_output_formats, 8, fmt), fmt);
	}
	fprintf(out, "  ios = 0x%08" PRIx32 "  width = %" PRIu32 ", height = %" PRIu32 "\n", r->ios, r->ios & 0xffffu,
		r->ios >> 16);
	fprintf(out, "  coef0 = 0x%08" PRIx32 "  use_coefficients = %s\n", r->coef[0],
		r->coef[0] >> 31 ? "true" : "false");
	for (int i = 1; i < 4; i++)
		fprintf(out, "  coef%d = 0x%08" PRIx32 "\n", i, r->coef[i]);
	if (v71) {
		uint32_t fmt = (r->ioc >> 12) & 0xf;
		fprintf(out, "  ioc = 0x%08" PRIx32 "  dimtw = %u, number_of_mipmaps = %u, output_format = %s (%u), "
			"stride = %u\n", r->ioc, r->ioc & 1u, (r->ioc >> 4) & 0xfu,
			name_of(tfu_output_formats, 8, fmt), fmt, r->ioc >> 16);
	}
	return ferror(out) ? -1 : 0;
}

int v3d_decode_csd(FILE *out, const struct v3d_decode_options *o, const uint32_t cfg[7])
{
	static const char axis[3] = { 'x', 'y', 'z' };
	fprintf(out, "@format csd  /* V3D %d.%d */\n", o->ver / 10, o->ver % 10);
	for (int i = 0; i < 3; i++)
		fprintf(out, "  cfg%d = 0x%08" PRIx32 "  num_wgs_%c = %" PRIu32 "%s, wg_%c_offset = %" PRIu32 "\n", i,
			cfg[i], axis[i], cfg[i] >> 16, cfg[i] >> 16 ? "" : " (0: the kernel skips the job)", axis[i],
			cfg[i] & 0xffffu);
	uint32_t c3 = cfg[3];
	uint32_t wg_size = c3 & 0xffu, wgs_per_sg = (c3 >> 8) & 0xfu;
	fprintf(out, "  cfg3 = 0x%08" PRIx32 "  wg_size = %" PRIu32 ", wgs_per_sg = %" PRIu32 ", batches_per_sg = %"
		PRIu32 ", max_sg_id = %" PRIu32 ", overlap_with_prev = %s\n", c3, wg_size ? wg_size : 256u,
		wgs_per_sg ? wgs_per_sg : 16u, ((c3 >> 12) & 0xffu) + 1u, (c3 >> 20) & 0x3fu,
		(c3 >> 26) & 1u ? "true" : "false");
	/* 7.1.6 and later take the count without the minus one; the revision is not known here */
	fprintf(out, "  cfg4 = 0x%08" PRIx32 "  batches = %" PRIu64 "%s\n", cfg[4], (uint64_t)cfg[4] + 1,
		o->ver == V3D_VER_71 ? " (7.1.6+: the value itself)" : "");
	char a[128];
	v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, cfg[5] & ~7u);
	fprintf(out, "  cfg5 = 0x%08" PRIx32 "  shader_code_address = %s, threading = %s, single_seg = %s, "
		"propagate_nans = %s\n", cfg[5], a, cfg[5] & 1u ? "true" : "false", cfg[5] & 2u ? "true" : "false",
		cfg[5] & 4u ? "true" : "false");
	v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, cfg[6]);
	fprintf(out, "  cfg6 = 0x%08" PRIx32 "  uniforms_address = %s\n", cfg[6], a);
	return ferror(out) ? -1 : 0;
}
