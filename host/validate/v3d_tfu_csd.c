/* TFU and CSD job checks: the kernel writes these registers unchecked ("the TFU is behind the
 * MMU"), and on V3D's single address space that MMU is shared by every client, so the host
 * relocates the address registers and bounds every surface / pointer against the submitting
 * context's BOs. Register facts: ferry/hw/v3d_cl.h (reference §6). */
#include <string.h>

#include "v3d_val_internal.h"

/* Applies REGISTER relocs to the registers regs[id] (NULL: not a register of this unit). The
 * field must be the register's top bits (an address above flag bits). */
static int relocate_regs(const struct v3dval_bo *bos, uint32_t nr_bos, const struct v3dval_reloc *relocs,
			 uint32_t nr_relocs, uint32_t *const regs[6], enum v3dval_list unit, struct v3dval_error *err)
{
	if (nr_relocs && !relocs)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_INPUT, 0, "relocation table missing");
	for (uint32_t i = 0; i < nr_relocs; i++) {
		const struct v3dval_reloc *r = &relocs[i];
		uint32_t target;
		if (r->kind != V3DVAL_RELOC_REGISTER || r->cl_offset >= 6 || !regs[r->cl_offset])
			return v3dval_fail_regs(err, unit, V3DVAL_ERR_RELOC, 0,
						"relocation %u does not name an address register of this unit", i);
		if (r->field_size == 0 || r->field_size > 32 || r->field_start + r->field_size != 32)
			return v3dval_fail_regs(err, unit, V3DVAL_ERR_RELOC, 0,
						"relocation %u: bits %u+%u are not an address field", i, r->field_start,
						r->field_size);
		if (v3dval_reloc_target(bos, nr_bos, r, &target))
			return v3dval_fail_regs(err, unit, V3DVAL_ERR_RELOC, 0, "relocation %u: bad BO index or offset", i);
		uint32_t *reg = regs[r->cl_offset];
		uint8_t bytes[4] = { (uint8_t)*reg, (uint8_t)(*reg >> 8), (uint8_t)(*reg >> 16), (uint8_t)(*reg >> 24) };
		v3d_cl_set_address(bytes, r->field_start, r->field_size, target);
		*reg = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
	}
	return 0;
}

static int check_surface(const struct v3dval_bo *bos, uint32_t nr_bos, enum v3dval_list unit, const char *reg,
			 uint32_t addr, uint64_t len, struct v3dval_error *err)
{
	if (v3dval_find_range(bos, nr_bos, addr, len) >= 0)
		return 0;
	return v3dval_fail_regs(err, unit, V3DVAL_ERR_ADDRESS, addr,
				"%s 0x%08x (+0x%llx bytes) outside the context's buffers", reg, addr,
				(unsigned long long)(len ? len : 1));
}

int v3dval_validate_tfu(int ver, const struct v3dval_bo *bos, uint32_t nr_bos,
			const struct v3d_tfu_regs *regs, const struct v3dval_reloc *relocs,
			uint32_t nr_relocs, struct v3d_tfu_regs *out, struct v3dval_error *err)
{
	const enum v3dval_list unit = V3DVAL_LIST_TFU;
	if (!v3d_ver_valid(ver))
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_INPUT, 0, "V3D version %d not supported", ver);
	if (v3dval_check_bos(bos, nr_bos, err))
		return -1;
	struct v3d_tfu_regs r = *regs;
	uint32_t *const reg_ptrs[6] = { &r.iia, &r.ica, &r.iua, &r.ioa, NULL, NULL };
	if (relocate_regs(bos, nr_bos, relocs, nr_relocs, reg_ptrs, unit, err))
		return -1;

	bool v71 = ver == V3D_VER_71;
	if (!v71 && r.ioc)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_INPUT, 0, "IOC is a V3D 7.1 register");
	struct v3d_tfu_fields f;
	v3d_tfu_fields(v71, r.icfg, r.ioa, r.ioc, r.ios, &f);
	uint32_t ttype = f.ttype, iformat = f.iformat, oformat = f.oformat, nummm = f.nummm, out_addr = f.out_addr;
	uint32_t width = f.width, height = f.height;
	if (width == 0 || height == 0)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_MALFORMED, 0, "IOS: empty output %ux%u", width, height);
	uint32_t cpp = v3d_texture_type_bytes(ttype);
	if (!cpp)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_UNSUPPORTED, 0, "texture type %u has no whole-byte texels",
					ttype);
	if ((r.coef[0] & V3D_TFU_COEF0_USECOEF) || r.ica || r.iua)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_UNSUPPORTED, r.ica ? r.ica : r.iua,
					"YUV input (ICA / IUA / USECOEF) is not validated");

	enum v3dval_layout in_layout, out_layout;
	if (!v3dval_layout_of(v3d_tfu_iformat_memory(iformat), &in_layout))
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_UNSUPPORTED, 0, "input format %u not validated", iformat);
	if (!v3dval_layout_of(v3d_tfu_oformat_memory(oformat), &out_layout))
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_UNSUPPORTED, 0, "output format %u not validated", oformat);

	/* IIS: pixels per row for raster input, the padded height in UIF blocks for UIF */
	uint64_t in_bytes = in_layout == V3DVAL_LAYOUT_RASTER
				    ? ((uint64_t)(height - 1) * r.iis + width) * cpp
				    : v3dval_tiled_bytes(in_layout, width, height, cpp, r.iis);
	if (check_surface(bos, nr_bos, unit, "input IIA", r.iia, in_bytes, err))
		return -1;

	uint64_t out_bytes;
	if (out_layout == V3DVAL_LAYOUT_RASTER) {
		/* 7.1: IOC.STRIDE pixels per row; 4.2 has no output stride: rows are width apart */
		uint64_t stride = v71 ? f.stride : width;
		out_bytes = ((uint64_t)(height - 1) * stride + width) * cpp;
	} else {
		uint32_t uif_h = v3dval_uif_block_h(cpp);
		/* 4.2: OPAD UIF blocks below the image's own padded height; 7.1: IOC.STRIDE is the height */
		uint64_t blocks = v71 ? f.stride : ((uint64_t)height + uif_h - 1) / uif_h + f.opad;
		out_bytes = v3dval_tiled_bytes(out_layout, width, height, cpp,
					       (out_layout == V3DVAL_LAYOUT_UIF || out_layout == V3DVAL_LAYOUT_UIF_XOR) ? blocks : 0);
	}
	/* Generated mip levels go below level 0 (Mesa lays levels out smallest first). Bound each by
	 * the widest padding (UIF) plus a page of alignment. */
	uint64_t below = 0;
	for (uint32_t k = 1; k <= nummm; k++) {
		uint32_t w = width >> k ? width >> k : 1, h = height >> k ? height >> k : 1;
		below += v3dval_tiled_bytes(V3DVAL_LAYOUT_UIF, w, h, cpp, 0) + 4096u;
	}
	if (below > out_addr)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_ADDRESS, out_addr,
					"output IOA 0x%08x: %u mip levels (0x%llx bytes) below address 0", out_addr, nummm,
					(unsigned long long)below);
	if (check_surface(bos, nr_bos, unit, "output IOA", (uint32_t)(out_addr - below), below + out_bytes, err))
		return -1;
	*out = r;
	return 0;
}

/* Batches of 16 invocations the dispatch runs: per supergroup when WGS_PER_SG packs several
 * workgroups (newer Mesa), else per workgroup. */
static uint64_t csd_batches(uint64_t wgs, uint32_t wg_size, uint32_t wgs_per_sg)
{
	uint64_t per_sg = ((uint64_t)wgs_per_sg * wg_size + 15) / 16;
	uint64_t whole = wgs / wgs_per_sg, rem = wgs % wgs_per_sg;
	return per_sg * whole + (rem * wg_size + 15) / 16;
}

int v3dval_validate_csd(int ver, const struct v3dval_bo *bos, uint32_t nr_bos, const uint32_t cfg[8],
			const struct v3dval_reloc *relocs, uint32_t nr_relocs, uint32_t out_cfg[8],
			struct v3dval_error *err)
{
	const enum v3dval_list unit = V3DVAL_LIST_CSD;
	if (!v3d_ver_valid(ver))
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_INPUT, 0, "V3D version %d not supported", ver);
	if (v3dval_check_bos(bos, nr_bos, err))
		return -1;
	uint32_t c[8];
	memcpy(c, cfg, sizeof(c));
	uint32_t *const reg_ptrs[6] = { NULL, NULL, NULL, NULL, &c[5], &c[6] };
	if (relocate_regs(bos, nr_bos, relocs, nr_relocs, reg_ptrs, unit, err))
		return -1;

	uint64_t wgs = 1;
	for (int i = 0; i < 3; i++) {
		uint32_t n = V3D_CSD_CFG012_WG_COUNT(c[i]);
		if (n == 0)
			return v3dval_fail_regs(err, unit, V3DVAL_ERR_MALFORMED, 0,
						"cfg[%d]: workgroup count %c is 0 (the hardware reads 65536)", i, 'X' + i);
		wgs *= n; /* three 16-bit factors: below 2^48 */
	}
	uint32_t wg_size = V3D_CSD_CFG3_WG_SIZE(c[3]) ? V3D_CSD_CFG3_WG_SIZE(c[3]) : 256;
	uint32_t wgs_per_sg = V3D_CSD_CFG3_WGS_PER_SG(c[3]) ? V3D_CSD_CFG3_WGS_PER_SG(c[3]) : 16;
	uint64_t per_wg = csd_batches(wgs, wg_size, 1), per_sg = csd_batches(wgs, wg_size, wgs_per_sg);
	uint64_t got = c[4];
	/* cfg[4] is the count minus one; 7.1.6+ take the count itself */
	bool ok = got + 1 == per_wg || got + 1 == per_sg ||
		  (ver == V3D_VER_71 && (got == per_wg || got == per_sg));
	if (!ok)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_MALFORMED, 0,
					"cfg[4] = %u does not match %llu batches of %llu workgroups of %u invocations",
					c[4], (unsigned long long)per_sg, (unsigned long long)wgs, wg_size);
	if (check_surface(bos, nr_bos, unit, "cfg[5] shader code", c[5] & ~V3D_CSD_CFG5_FLAGS_MASK, 8, err))
		return -1;
	if (c[6] & 3u)
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_MALFORMED, c[6], "cfg[6] uniforms 0x%08x not 4-byte aligned",
					c[6]);
	if (c[6] && check_surface(bos, nr_bos, unit, "cfg[6] uniforms", c[6], 4, err))
		return -1;
	if (c[7])
		return v3dval_fail_regs(err, unit, V3DVAL_ERR_MALFORMED, 0, "cfg[7] must be 0 (the kernel writes CFG7 as 0)");
	memcpy(out_cfg, c, sizeof(c));
	return 0;
}
