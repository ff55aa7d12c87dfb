/* TFU job execution for the simulated V3D: register decoding for 4.2 and 7.1 (Mesa v3d_tfu.h
 * field layout, reference §6.2) and raster-to-raster copies through the MMU. See v3d_tfu.h for
 * what is and is not modelled. */
#include "v3d_tfu.h"

#include <errno.h>
#include <string.h>

/* ICFG / IOA / IOC fields. */
#define TFU42_ICFG_NUMMM(v)   (((v) >> 5) & 0xfu)
#define TFU42_ICFG_TTYPE(v)   (((v) >> 9) & 0x7fu)
#define TFU42_ICFG_IFORMAT(v) (((v) >> 18) & 0xfu)
#define TFU42_IOA_DIMTW       0x1u
#define TFU42_IOA_FORMAT(v)   (((v) >> 3) & 0x7u)
#define TFU42_IOA_ADDR_MASK   (~0x3fu)
#define TFU71_ICFG_OTYPE(v)   (((v) >> 16) & 0x7fu)
#define TFU71_ICFG_IFORMAT(v) (((v) >> 23) & 0xfu)
#define TFU71_IOC_DIMTW       0x1u
#define TFU71_IOC_NUMMM(v)    (((v) >> 4) & 0xfu)
#define TFU71_IOC_FORMAT(v)   (((v) >> 12) & 0xfu)
#define TFU71_IOC_STRIDE(v)   ((v) >> 16)
#define TFU_IFORMAT_RASTER    0u
#define TFU_OFORMAT_RASTER    0u
#define TFU_COEF0_USECOEF     (1u << 31)

#define CHUNK 4096u /* bytes moved per MMU access (at most V3D_CLE_MAX_ACCESS) */

uint32_t v3d_tfu_type_bpp(uint32_t ttype)
{
	switch (ttype) {
	case 0: case 1: /* R8, R8_SNORM */
	case 96: case 97: /* R8I, R8UI */
		return 1;
	case 2: case 3: /* RG8, RG8_SNORM */
	case 6: case 7: case 8: /* RGB565, RGBA4, RGB5A1 */
	case 10: case 11: case 16: /* R16, R16_SNORM, R16F */
	case 98: case 99: case 102: case 103: /* RG8I/UI, R16I/UI */
		return 2;
	case 4: case 5: case 9: /* RGBA8, RGBA8_SNORM, RGB10A2 */
	case 12: case 13: case 17: /* RG16, RG16_SNORM, RG16F */
	case 19: case 20: case 29: /* R11F_G11F_B10F, RGB9E5, R32F */
	case 100: case 101: case 104: case 105: case 108: case 109: case 114:
		return 4;
	case 14: case 15: case 18: case 30: /* RGBA16, RGBA16_SNORM, RGBA16F, RG32F */
	case 106: case 107: case 110: case 111:
		return 8;
	case 31: case 112: case 113: /* RGBA32F, RGBA32I, RGBA32UI */
		return 16;
	default:
		return 0;
	}
}

static void error(struct v3d_tfu_result *res, const char *reg, const char *reason)
{
	res->status = V3D_TFU_ERROR;
	res->reg = reg;
	res->reason = reason;
}

/* The first unmapped page of [addr, addr + len) (the access already failed as a whole). */
static uint32_t first_unmapped(const struct v3d_cle_mem *mem, uint32_t addr, uint32_t len)
{
	uint8_t b;
	uint64_t a = addr;
	uint64_t end = (uint64_t)addr + len;
	while (a < end) {
		if (mem->read(mem->ctx, (uint32_t)a, &b, 1))
			return (uint32_t)a;
		a = (a | 0xfffu) + 1; /* next page */
	}
	return (uint32_t)end; /* all mapped: the access failed where it wrapped past 4 GiB */
}

static void fault(struct v3d_tfu_result *res, const struct v3d_cle_mem *mem, uint64_t addr, uint32_t len,
		  bool write, const char *reg)
{
	res->status = V3D_TFU_FAULT;
	res->write = write;
	res->reg = reg;
	res->reason = write ? "write outside every BO" : "read outside every BO";
	/* Past 4 GiB there are no PTEs: the fault is where the access wraps. */
	if (addr >= (1ull << 32)) {
		res->addr = (uint32_t)addr;
		return;
	}
	uint64_t room = (1ull << 32) - addr;
	res->addr = first_unmapped(mem, (uint32_t)addr, len < room ? len : (uint32_t)room);
}

void v3d_tfu_run(int ver, const struct v3d_tfu_regs *r, const struct v3d_cle_mem *mem, struct v3d_tfu_result *res)
{
	memset(res, 0, sizeof(*res));
	uint32_t ttype, iformat, oformat, nummm, out_addr, out_stride;
	bool dimtw;
	uint32_t width = r->ios & 0xffffu, height = r->ios >> 16;
	if (ver >= 71) {
		ttype = TFU71_ICFG_OTYPE(r->icfg);
		iformat = TFU71_ICFG_IFORMAT(r->icfg);
		oformat = TFU71_IOC_FORMAT(r->ioc);
		nummm = TFU71_IOC_NUMMM(r->ioc);
		dimtw = r->ioc & TFU71_IOC_DIMTW;
		out_addr = r->ioa;
		out_stride = TFU71_IOC_STRIDE(r->ioc);
	} else {
		ttype = TFU42_ICFG_TTYPE(r->icfg);
		iformat = TFU42_ICFG_IFORMAT(r->icfg);
		oformat = TFU42_IOA_FORMAT(r->ioa);
		nummm = TFU42_ICFG_NUMMM(r->icfg);
		dimtw = r->ioa & TFU42_IOA_DIMTW;
		out_addr = r->ioa & TFU42_IOA_ADDR_MASK;
		out_stride = width;
	}
	const char *cfg_reg = ver >= 71 ? "IOC" : "IOA";
	if (iformat != TFU_IFORMAT_RASTER)
		return error(res, "ICFG", "input format not modelled (only RASTER)");
	if (oformat != TFU_OFORMAT_RASTER)
		return error(res, cfg_reg, "output format not modelled (only RASTER)");
	if (nummm != 0)
		return error(res, ver >= 71 ? "IOC" : "ICFG", "mipmap generation not modelled");
	if (r->coef[0] & TFU_COEF0_USECOEF)
		return error(res, "COEF0", "YUV conversion not modelled");
	uint32_t bpp = v3d_tfu_type_bpp(ttype);
	if (!bpp)
		return error(res, "ICFG", "texture type not modelled (only same-format byte copies)");
	if (dimtw)
		return; /* level 0 not written and no further levels: nothing to do */

	uint64_t row_bytes = (uint64_t)width * bpp;
	uint8_t buf[CHUNK];
	for (uint32_t y = 0; y < height; y++) {
		uint64_t src = r->iia + (uint64_t)y * r->iis * bpp;
		uint64_t dst = out_addr + (uint64_t)y * out_stride * bpp;
		for (uint64_t done = 0; done < row_bytes;) {
			uint32_t n = row_bytes - done < CHUNK ? (uint32_t)(row_bytes - done) : CHUNK;
			uint64_t s = src + done, d = dst + done;
			if (s + n > (1ull << 32) || mem->read(mem->ctx, (uint32_t)s, buf, n))
				return fault(res, mem, s, n, false, "IIA");
			if (d + n > (1ull << 32) || mem->write(mem->ctx, (uint32_t)d, buf, n))
				return fault(res, mem, d, n, true, "IOA");
			res->bytes_written += n;
			done += n;
		}
	}
}
