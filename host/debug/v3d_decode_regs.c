/* The register sets of V3D TFU and CSD submits, printed field by field with their addresses
 * annotated. Fields, format and texture type names: ferry/hw/v3d_cl.h (v3d_tfu_fields() and the
 * TFU / CSD sections). */
#include <inttypes.h>

#include "ferry/hw/v3d_cl.h"
#include "v3d_decode.h"

static const char *known(const char *name)
{
	return name ? name : "?";
}

static void print_reg_addr(FILE *out, const struct v3d_decode_options *o, const char *reg, uint32_t addr,
			   const char *what)
{
	char a[128];
	v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, addr);
	fprintf(out, "  %s = %s  /* %s */\n", reg, a, what);
}

int v3d_decode_tfu(FILE *out, const struct v3d_decode_options *o, const struct v3d_tfu_regs *r)
{
	bool v71 = o->ver == V3D_VER_71;
	struct v3d_tfu_fields f;
	v3d_tfu_fields(v71, r->icfg, r->ioa, r->ioc, r->ios, &f);
	unsigned irq = (r->icfg & V3D_TFU_ICFG_IOC_IRQ) ? 1 : 0;
	fprintf(out, "@format tfu  /* V3D %d.%d */\n", o->ver / 10, o->ver % 10);
	if (v71) {
		fprintf(out, "  icfg = 0x%08" PRIx32 "  ioc_irq = %u, output_type = %s (%u), input_format = %s (%u)\n",
			r->icfg, irq, known(v3d_texture_type_name(f.ttype)), f.ttype, known(v3d_tfu_iformat_name(f.iformat)),
			f.iformat);
	} else {
		/* Shown as 4 bits (the simulator and the validator take every bit from 22 up). */
		uint32_t opad = f.opad & 0xfu;
		fprintf(out, "  icfg = 0x%08" PRIx32 "  ioc_irq = %u, number_of_mipmaps = %u, texture_type = %s (%u), "
			"input_format = %s (%u), output_padding = %u\n", r->icfg, irq, f.nummm,
			known(v3d_texture_type_name(f.ttype)), f.ttype, known(v3d_tfu_iformat_name(f.iformat)), f.iformat,
			opad);
	}
	print_reg_addr(out, o, "iia", r->iia, "input image, plane 0");
	fprintf(out, "  iis = %" PRIu32 "  /* input stride: raster pixels per row, UIF height in blocks */\n", r->iis);
	print_reg_addr(out, o, "ica", r->ica, "input chroma, plane 1");
	print_reg_addr(out, o, "iua", r->iua, "input U, plane 2");
	if (v71) {
		print_reg_addr(out, o, "ioa", r->ioa, "output image");
	} else {
		char a[128];
		v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, f.out_addr);
		fprintf(out, "  ioa = 0x%08" PRIx32 "  address = %s, dimtw = %u, output_format = %s (%u)\n", r->ioa, a,
			f.dimtw ? 1u : 0u, known(v3d_tfu_oformat_name(f.oformat)), f.oformat);
	}
	fprintf(out, "  ios = 0x%08" PRIx32 "  width = %" PRIu32 ", height = %" PRIu32 "\n", r->ios, f.width, f.height);
	fprintf(out, "  coef0 = 0x%08" PRIx32 "  use_coefficients = %s\n", r->coef[0],
		r->coef[0] & V3D_TFU_COEF0_USECOEF ? "true" : "false");
	for (int i = 1; i < 4; i++)
		fprintf(out, "  coef%d = 0x%08" PRIx32 "\n", i, r->coef[i]);
	if (v71) {
		fprintf(out, "  ioc = 0x%08" PRIx32 "  dimtw = %u, number_of_mipmaps = %u, output_format = %s (%u), "
			"stride = %u\n", r->ioc, f.dimtw ? 1u : 0u, f.nummm, known(v3d_tfu_oformat_name(f.oformat)), f.oformat,
			f.stride);
	}
	return ferror(out) ? -1 : 0;
}

int v3d_decode_csd(FILE *out, const struct v3d_decode_options *o, const uint32_t cfg[7])
{
	static const char axis[3] = { 'x', 'y', 'z' };
	fprintf(out, "@format csd  /* V3D %d.%d */\n", o->ver / 10, o->ver % 10);
	for (int i = 0; i < 3; i++)
		fprintf(out, "  cfg%d = 0x%08" PRIx32 "  num_wgs_%c = %" PRIu32 "%s, wg_%c_offset = %" PRIu32 "\n", i,
			cfg[i], axis[i], V3D_CSD_CFG012_WG_COUNT(cfg[i]),
			V3D_CSD_CFG012_WG_COUNT(cfg[i]) ? "" : " (0: the kernel skips the job)", axis[i],
			V3D_CSD_CFG012_WG_OFFSET(cfg[i]));
	uint32_t c3 = cfg[3];
	uint32_t wg_size = V3D_CSD_CFG3_WG_SIZE(c3), wgs_per_sg = V3D_CSD_CFG3_WGS_PER_SG(c3);
	fprintf(out, "  cfg3 = 0x%08" PRIx32 "  wg_size = %" PRIu32 ", wgs_per_sg = %" PRIu32 ", batches_per_sg = %"
		PRIu32 ", max_sg_id = %" PRIu32 ", overlap_with_prev = %s\n", c3, wg_size ? wg_size : 256u,
		wgs_per_sg ? wgs_per_sg : 16u, V3D_CSD_CFG3_BATCHES_PER_SG_M1(c3) + 1u, V3D_CSD_CFG3_MAX_SG_ID(c3),
		c3 & V3D_CSD_CFG3_OVERLAP_WITH_PREV ? "true" : "false");
	/* 7.1.6 and later take the count without the minus one; the revision is not known here */
	fprintf(out, "  cfg4 = 0x%08" PRIx32 "  batches = %" PRIu64 "%s\n", cfg[4], (uint64_t)cfg[4] + 1,
		o->ver == V3D_VER_71 ? " (7.1.6+: the value itself)" : "");
	char a[128];
	v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, cfg[5] & ~V3D_CSD_CFG5_FLAGS_MASK);
	fprintf(out, "  cfg5 = 0x%08" PRIx32 "  shader_code_address = %s, threading = %s, single_seg = %s, "
		"propagate_nans = %s\n", cfg[5], a, cfg[5] & 1u ? "true" : "false", cfg[5] & 2u ? "true" : "false",
		cfg[5] & 4u ? "true" : "false");
	v3d_decode_format_addr(a, sizeof(a), o->buffers, o->nr_buffers, cfg[6]);
	fprintf(out, "  cfg6 = 0x%08" PRIx32 "  uniforms_address = %s\n", cfg[6], a);
	return ferror(out) ? -1 : 0;
}
