/* TFU and CSD job checks on 4.2 and 7.1: raster and UIF surfaces inside / straddling /
 * outside / in another context, register relocations keeping IOA's and CFG5's flag bits, the
 * configurations refused (YUV, SAND, odd texel types), mip levels below level 0, workgroup
 * counts and batch counts (including products that overflow 32 bits), and 4 GiB edges. */
#include "v3dval_harness.h"

#define SRC 0x00100000u     /* 64 KiB */
#define DST 0x00200000u     /* 32 KiB */
#define CODE 0x00300000u    /* 4 KiB */
#define FOREIGN 0x00400000u /* not the context's */
#define TOP 0xffff0000u     /* 64 KiB ending at 4 GiB */

static const struct v3dval_bo bos[] = {
	{ SRC, 0x10000, NULL, 1 }, { DST, 0x8000, NULL, 2 }, { CODE, 0x1000, NULL, 3 }, { TOP, 0x10000, NULL, 4 },
};
#define NR_BOS 4u

/* A raster RGBA8 (type 4) copy of w x h pixels, input rows iis pixels apart. */
static struct v3d_tfu_regs raster_copy(int ver, uint32_t src, uint32_t iis, uint32_t dst, uint32_t w, uint32_t h)
{
	struct v3d_tfu_regs r = { .iia = src, .iis = iis, .ioa = dst, .ios = h << 16 | w };
	if (ver == 71) {
		r.icfg = 4u << 16;
		r.ioc = w << 16; /* raster, stride w */
	} else {
		r.icfg = 4u << 9;
	}
	return r;
}

static int tfu(int ver, const struct v3d_tfu_regs *r, const struct v3dval_reloc *rel, uint32_t nr,
	       struct v3d_tfu_regs *out, struct v3dval_error *err)
{
	int rc = v3dval_validate_tfu(ver, bos, NR_BOS, r, rel, nr, out, err);
	if (rc)
		CHECK(err->msg[0] && strncmp(err->msg, "TFU job: ", 9) == 0);
	return rc ? (int)err->rule : 0;
}

static void test_tfu_raster(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct v3d_tfu_regs r = raster_copy(ver, SRC, 64, DST, 64, 64), out;
		struct v3dval_error err;
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), 0);
		CHECK(memcmp(&out, &r, sizeof(r)) == 0);
		/* the input: 16 KiB from the end of SRC fits; one row more does not */
		r = raster_copy(ver, SRC + 0x10000 - 0x4000, 64, DST, 64, 64);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), 0);
		r = raster_copy(ver, SRC + 0x10000 - 0x4000, 65, DST, 64, 64);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_ADDRESS);
		CHECK(strstr(err.msg, "input IIA 0x0010c000") != NULL);
		r = raster_copy(ver, FOREIGN, 64, DST, 64, 64);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_ADDRESS);
		/* the output: DST is 32 KiB = 128 rows of 64 RGBA8 pixels */
		r = raster_copy(ver, SRC, 64, DST, 64, 128);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), 0);
		r = raster_copy(ver, SRC, 64, DST + 64, 64, 128);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_ADDRESS);
		CHECK(strstr(err.msg, "output IOA") != NULL);
		/* empty, odd texel types, YUV, SAND */
		r = raster_copy(ver, SRC, 64, DST, 0, 4);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_MALFORMED);
		r = raster_copy(ver, SRC, 64, DST, 64, 64);
		r.icfg = ver == 71 ? 25u << 16 : 25u << 9; /* R4 */
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_UNSUPPORTED);
		r = raster_copy(ver, SRC, 64, DST, 64, 64);
		r.ica = SRC + 0x8000;
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_UNSUPPORTED);
		r = raster_copy(ver, SRC, 64, DST, 64, 64);
		r.coef[0] = V3D_TFU_COEF0_USECOEF;
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_UNSUPPORTED);
		r = raster_copy(ver, SRC, 64, DST, 64, 64);
		r.icfg |= ver == 71 ? 1u << 23 : 1u << 18; /* SAND_128 */
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_UNSUPPORTED);
		/* IOC is 7.1's */
		r = raster_copy(ver, SRC, 64, DST, 64, 64);
		r.ioc = ver == 42 ? 1 : r.ioc;
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), ver == 42 ? V3DVAL_ERR_INPUT : 0);
		/* 4 GiB: the last 16 KiB fit, 64 bytes further would wrap */
		r = raster_copy(ver, SRC, 64, 0xffffc000u, 64, 64);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), 0);
		r = raster_copy(ver, SRC, 64, 0xffffc040u, 64, 64);
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_ADDRESS);
		r = raster_copy(ver, 0xffffff00u, 0xffffffffu, DST, 64, 64); /* stride x rows past 2^32 */
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_ADDRESS);
	}
}

static void test_tfu_uif_and_mips(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		struct v3d_tfu_regs r = raster_copy(ver, SRC, 64, DST, 64, 64), out;
		struct v3dval_error err;
		/* UIF RGBA8 64x64: 8x8-pixel UIF blocks, 8 block rows of the image + padding. DST holds
		 * 32 KiB = 64 px x 128 rows x 4 B: 16 block rows. */
		for (uint32_t pad = 8; pad <= 9; pad++) {
			r = raster_copy(ver, SRC, 64, DST, 64, 64);
			if (ver == 71)
				r.ioc = V3D_TFU_OFORMAT_UIF_NO_XOR << 12 | (8u + pad) << 16;
			else {
				r.ioa |= V3D_TFU_OFORMAT_UIF_NO_XOR << 3;
				r.icfg |= pad << 22;
			}
			CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), pad == 8 ? 0 : V3DVAL_ERR_ADDRESS);
		}
		/* With the XOR, the odd column flips bit 4 of its block rows: rows 0..7 land on 16..23,
		 * past the 16-row column and the 32 KiB (Mesa only picks XOR for heights that are
		 * multiples of 32 block rows). The same padding that fits without XOR must not. */
		r = raster_copy(ver, SRC, 64, DST, 64, 64);
		if (ver == 71)
			r.ioc = V3D_TFU_OFORMAT_UIF_XOR << 12 | 16u << 16;
		else {
			r.ioa |= V3D_TFU_OFORMAT_UIF_XOR << 3;
			r.icfg |= 8u << 22;
		}
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_ADDRESS);
		/* mip levels are written below level 0 */
		r = raster_copy(ver, SRC, 64, DST, 32, 32);
		if (ver == 71)
			r.ioc = V3D_TFU_OFORMAT_UIF_XOR << 12 | 1u << 4; /* NUMMM 1 */
		else {
			r.ioa |= V3D_TFU_OFORMAT_UIF_XOR << 3;
			r.icfg |= 1u << 5;
		}
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), V3DVAL_ERR_ADDRESS);
		r.ioa += 0x4000;
		CHECK_EQ(tfu(ver, &r, NULL, 0, &out, &err), 0);
	}
}

static void test_tfu_relocs(void)
{
	/* 4.2: IOA's low 6 bits are DIMTW and the output format; an address field above them */
	struct v3d_tfu_regs r = raster_copy(42, 0, 64, V3D_TFU_OFORMAT_UIF_XOR << 3 | 1, 64, 64), out;
	struct v3dval_error err;
	struct v3dval_reloc rel[2] = {
		{ 0, V3DVAL_REG_TFU_IIA, 0, 0x100, 0, 32, V3DVAL_RELOC_REGISTER },
		{ 0, V3DVAL_REG_TFU_IOA, 1, 0, 6, 26, V3DVAL_RELOC_REGISTER },
	};
	CHECK_EQ(tfu(42, &r, rel, 2, &out, &err), 0);
	CHECK_EQ(out.iia, SRC + 0x100);
	CHECK_EQ(out.ioa, DST | V3D_TFU_OFORMAT_UIF_XOR << 3 | 1);
	CHECK_EQ(r.ioa, V3D_TFU_OFORMAT_UIF_XOR << 3 | 1); /* the input is not written */
	rel[1].field_start = 0;
	rel[1].field_size = 16; /* not the register's top bits */
	CHECK_EQ(tfu(42, &r, rel, 2, &out, &err), V3DVAL_ERR_RELOC);
	rel[1] = (struct v3dval_reloc){ 0, V3DVAL_REG_CSD_CFG5, 1, 0, 3, 29, V3DVAL_RELOC_REGISTER };
	CHECK_EQ(tfu(42, &r, rel, 2, &out, &err), V3DVAL_ERR_RELOC);
	rel[1] = (struct v3dval_reloc){ 0, V3DVAL_REG_TFU_IOA, 9, 0, 6, 26, V3DVAL_RELOC_REGISTER };
	CHECK_EQ(tfu(42, &r, rel, 2, &out, &err), V3DVAL_ERR_RELOC);
	/* a relocation to where the surface does not fit is caught after relocating */
	rel[1] = (struct v3dval_reloc){ 0, V3DVAL_REG_TFU_IOA, 1, 0x7000, 6, 26, V3DVAL_RELOC_REGISTER };
	CHECK_EQ(tfu(42, &r, rel, 2, &out, &err), V3DVAL_ERR_ADDRESS);
}

/* X x Y x Z workgroups of wg_size invocations, one per supergroup; cfg[4] = batches - 1. */
static void csd_cfg(uint32_t cfg[8], uint32_t x, uint32_t y, uint32_t z, uint32_t wg_size)
{
	memset(cfg, 0, 8 * sizeof(uint32_t));
	cfg[0] = x << 16;
	cfg[1] = y << 16;
	cfg[2] = z << 16;
	cfg[3] = (wg_size & 0xffu) | 1u << 8;
	cfg[4] = (uint32_t)((wg_size + 15) / 16 * x * y * z - 1);
	cfg[5] = CODE | 0x5;
	cfg[6] = CODE + 0x100;
}

static int csd(int ver, const uint32_t cfg[8], const struct v3dval_reloc *rel, uint32_t nr, uint32_t out[8],
	       struct v3dval_error *err)
{
	int rc = v3dval_validate_csd(ver, bos, NR_BOS, cfg, rel, nr, out, err);
	if (rc)
		CHECK(err->msg[0] && strncmp(err->msg, "CSD job: ", 9) == 0);
	return rc ? (int)err->rule : 0;
}

static void test_csd(void)
{
	for (int ver = 42; ver <= 71; ver += 29) {
		uint32_t cfg[8], out[8];
		struct v3dval_error err;
		csd_cfg(cfg, 4, 2, 1, 64);
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), 0);
		CHECK(memcmp(cfg, out, sizeof(out)) == 0);
		/* 7.1.6+ takes the count without the minus one */
		cfg[4] += 1;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), ver == 71 ? 0 : V3DVAL_ERR_MALFORMED);
		cfg[4] += 1;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_MALFORMED);
		/* 0 workgroups reads as 65536 */
		csd_cfg(cfg, 4, 0, 1, 64);
		cfg[4] = 0;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_MALFORMED);
		CHECK(strstr(err.msg, "workgroup count Y is 0") != NULL);
		/* 65535^3 workgroups of 256: the batch count does not fit 32 bits, and nothing wraps */
		csd_cfg(cfg, 65535, 65535, 65535, 256);
		cfg[4] = 0xffffffffu;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_MALFORMED);
		/* supergroups of 4 workgroups of 24: 2 full (6 batches each) + 2 workgroups (3) = 15 */
		csd_cfg(cfg, 10, 1, 1, 24);
		cfg[3] = 24 | 4u << 8;
		cfg[4] = 14;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), 0);
		/* code and uniforms */
		csd_cfg(cfg, 1, 1, 1, 16);
		cfg[5] = CODE + 0x1000; /* just past the BO */
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_ADDRESS);
		CHECK(strstr(err.msg, "cfg[5] shader code") != NULL);
		cfg[5] = FOREIGN;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_ADDRESS);
		csd_cfg(cfg, 1, 1, 1, 16);
		cfg[6] = CODE + 2;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_MALFORMED);
		cfg[6] = FOREIGN;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_ADDRESS);
		cfg[6] = 0;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), 0);
		cfg[7] = 1;
		CHECK_EQ(csd(ver, cfg, NULL, 0, out, &err), V3DVAL_ERR_MALFORMED);
		/* relocations keep CFG5's flag bits */
		csd_cfg(cfg, 1, 1, 1, 16);
		cfg[5] = 0x5;
		cfg[6] = 0;
		struct v3dval_reloc rel[2] = {
			{ 0, V3DVAL_REG_CSD_CFG5, 2, 0x40, 3, 29, V3DVAL_RELOC_REGISTER },
			{ 0, V3DVAL_REG_CSD_CFG6, 2, 0x80, 0, 32, V3DVAL_RELOC_REGISTER },
		};
		CHECK_EQ(csd(ver, cfg, rel, 2, out, &err), 0);
		CHECK_EQ(out[5], (CODE + 0x40) | 0x5);
		CHECK_EQ(out[6], CODE + 0x80);
		rel[0].cl_offset = V3DVAL_REG_TFU_IIA;
		CHECK_EQ(csd(ver, cfg, rel, 2, out, &err), V3DVAL_ERR_RELOC);
	}
	uint32_t cfg[8] = { 0 }, out[8];
	struct v3dval_error err;
	CHECK_EQ(v3dval_validate_csd(33, bos, NR_BOS, cfg, NULL, 0, out, &err), -1);
	CHECK_EQ(err.rule, V3DVAL_ERR_INPUT);
}

int main(void)
{
	RUN_TEST(test_tfu_raster);
	RUN_TEST(test_tfu_uif_and_mips);
	RUN_TEST(test_tfu_relocs);
	RUN_TEST(test_csd);
	return test_finish();
}
