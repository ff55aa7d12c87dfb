/* The V3D validator's shared pieces: the BO table (checks and lookups), relocation targets,
 * surface extents of the tiled layouts, and the rejection messages. */
#include <stdio.h>
#include <string.h>

#include "ferry/hw/v3d_tiling.h"
#include "v3d_val_internal.h"

#define GIB4 (1ull << 32)

int v3dval_check_bos(const struct v3dval_bo *bos, uint32_t nr_bos, struct v3dval_error *err)
{
	if (nr_bos && !bos)
		return v3dval_fail_regs(err, V3DVAL_LIST_BIN, V3DVAL_ERR_INPUT, 0, "BO table missing");
	for (uint32_t i = 0; i < nr_bos; i++) {
		uint64_t end = (uint64_t)bos[i].addr + bos[i].size;
		if (bos[i].size == 0 || end > GIB4)
			return v3dval_fail_regs(err, V3DVAL_LIST_BIN, V3DVAL_ERR_INPUT, bos[i].addr,
						"bo %u: empty or past 4 GiB", bos[i].id);
		if (i && (uint64_t)bos[i - 1].addr + bos[i - 1].size > bos[i].addr)
			return v3dval_fail_regs(err, V3DVAL_LIST_BIN, V3DVAL_ERR_INPUT, bos[i].addr,
						"bo %u: BO table unsorted or overlapping", bos[i].id);
	}
	return 0;
}

int v3dval_find_bo(const struct v3dval_bo *bos, uint32_t nr_bos, uint32_t addr)
{
	uint32_t lo = 0, hi = nr_bos;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (addr < bos[mid].addr)
			hi = mid;
		else if (addr - bos[mid].addr >= bos[mid].size)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

int v3dval_find_range(const struct v3dval_bo *bos, uint32_t nr_bos, uint32_t addr, uint64_t len)
{
	if (len == 0)
		len = 1;
	int i = v3dval_find_bo(bos, nr_bos, addr);
	if (i < 0)
		return -1;
	/* addr - bo.addr < size, so neither side overflows 64 bits */
	if ((uint64_t)(addr - bos[i].addr) + len > bos[i].size)
		return -1;
	return i;
}

int v3dval_reloc_target(const struct v3dval_bo *bos, uint32_t nr_bos, const struct v3dval_reloc *r,
			uint32_t *addr)
{
	if (r->bo_index >= nr_bos || r->bo_offset > bos[r->bo_index].size)
		return -1;
	uint64_t a = (uint64_t)bos[r->bo_index].addr + r->bo_offset;
	if (a >= GIB4)
		return -1;
	*addr = (uint32_t)a;
	return 0;
}

bool v3dval_field_ok(uint32_t start, uint32_t size, uint32_t bytes)
{
	return size >= 1 && size <= 32 && start + size <= bytes * 8u;
}

/* ---- surfaces ------------------------------------------------------------------------------- */

/* Mesa v3d_utile_width/height: a utile is 64 bytes. */
static bool utile(uint32_t cpp, uint32_t *w, uint32_t *h)
{
	switch (cpp) {
	case 1: *w = 8; *h = 8; return true;
	case 2: *w = 8; *h = 4; return true;
	case 4: *w = 4; *h = 4; return true;
	case 8: *w = 4; *h = 2; return true;
	case 16: *w = 2; *h = 2; return true;
	default: return false;
	}
}

uint32_t v3dval_uif_block_h(uint32_t cpp)
{
	uint32_t w, h;
	return utile(cpp, &w, &h) ? 2 * h : 0;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

bool v3dval_layout_of(int memory_format, enum v3dval_layout *layout)
{
	switch (memory_format) {
	case V3D_CL_MEMORY_RASTER: *layout = V3DVAL_LAYOUT_RASTER; return true;
	case V3D_CL_MEMORY_LINEARTILE: *layout = V3DVAL_LAYOUT_LINEARTILE; return true;
	case V3D_CL_MEMORY_UBLINEAR_1: *layout = V3DVAL_LAYOUT_UBLINEAR_1; return true;
	case V3D_CL_MEMORY_UBLINEAR_2: *layout = V3DVAL_LAYOUT_UBLINEAR_2; return true;
	case V3D_CL_MEMORY_UIF_NO_XOR: *layout = V3DVAL_LAYOUT_UIF; return true;
	case V3D_CL_MEMORY_UIF_XOR: *layout = V3DVAL_LAYOUT_UIF_XOR; return true;
	default: return false;
	}
}

uint64_t v3dval_tiled_bytes(enum v3dval_layout layout, uint32_t w, uint32_t h, uint32_t cpp,
			    uint64_t padded_h_blocks)
{
	uint32_t uw, uh;
	if (!utile(cpp, &uw, &uh))
		return 0;
	uint64_t pw, ph;
	switch (layout) {
	case V3DVAL_LAYOUT_LINEARTILE:
		pw = align_up(w, uw);
		ph = align_up(h, uh);
		break;
	case V3DVAL_LAYOUT_UBLINEAR_1:
		pw = align_up(w, 2u * uw);
		ph = align_up(h, 2u * uh);
		break;
	case V3DVAL_LAYOUT_UBLINEAR_2:
		pw = align_up(w, 4u * uw);
		ph = align_up(h, 2u * uh);
		break;
	case V3DVAL_LAYOUT_UIF:
	case V3DVAL_LAYOUT_UIF_XOR: {
		/* columns of 4 UIF blocks; the height the packet / register gives, or the image's */
		pw = align_up(w, 4u * 2u * uw);
		uint64_t given = padded_h_blocks * 2u * uh;
		ph = align_up(h, 2u * uh);
		if (given > ph)
			ph = given;
		uint64_t bytes = pw * ph * cpp;
		if (layout == V3DVAL_LAYOUT_UIF_XOR && w && h) {
			/* ph / (2 uh) < 2^37 / 2: the hardware field is narrower, clamp for the struct */
			uint64_t col_h = ph / (2u * uh);
			struct v3d_surface s = { .layout = V3D_CL_MEMORY_UIF_XOR, .cpp = cpp,
						 .uif_height_ub = col_h > UINT32_MAX ? UINT32_MAX : (uint32_t)col_h };
			uint64_t reach = v3d_surface_span(&s, w, h);
			if (reach > bytes)
				bytes = reach;
		}
		return bytes;
	}
	case V3DVAL_LAYOUT_RASTER:
	default:
		pw = w;
		ph = h;
		break;
	}
	return pw * ph * cpp; /* < 2^17 * 2^37 * 16: no overflow */
}

/* ---- errors --------------------------------------------------------------------------------- */

const char *v3dval_rule_text(enum v3dval_rule rule)
{
	switch (rule) {
	case V3DVAL_OK: return "ok";
	case V3DVAL_ERR_INPUT: return "invalid input";
	case V3DVAL_ERR_RELOC: return "invalid relocation";
	case V3DVAL_ERR_UNKNOWN: return "unknown opcode";
	case V3DVAL_ERR_FORBIDDEN: return "packet not allowed in this list";
	case V3DVAL_ERR_LEVEL: return "frame-level packet inside a sub-list or tile list";
	case V3DVAL_ERR_STATE: return "packet out of order";
	case V3DVAL_ERR_MALFORMED: return "malformed packet";
	case V3DVAL_ERR_TARGET: return "list or record outside the context's readable buffers";
	case V3DVAL_ERR_ADDRESS: return "address outside the context's buffers";
	case V3DVAL_ERR_CYCLE: return "branch target already walked (cycle)";
	case V3DVAL_ERR_NESTING: return "sub-list nesting";
	case V3DVAL_ERR_NO_END: return "list does not end";
	case V3DVAL_ERR_READAHEAD: return "CLE read-ahead leaves the buffer";
	case V3DVAL_ERR_LIMIT: return "job exceeds validation limits";
	case V3DVAL_ERR_SHADOW: return "shadow allocation failed";
	case V3DVAL_ERR_NOMEM: return "out of memory";
	case V3DVAL_ERR_UNSUPPORTED: return "configuration not supported by the validator";
	}
	return "unknown rule";
}

static const char *list_text(enum v3dval_list list, enum v3dval_level level)
{
	bool bin = list == V3DVAL_LIST_BIN;
	switch (level) {
	case V3DVAL_LEVEL_SUB_LIST: return bin ? "bin sub-list" : "render sub-list";
	case V3DVAL_LEVEL_TILE_LIST: return "generic tile list";
	case V3DVAL_LEVEL_RECORD: return bin ? "shader state (bin list)" : "shader state (render list)";
	case V3DVAL_LEVEL_TOP:
	default: return bin ? "bin list" : "render list";
	}
}

static void packet_text(char *buf, size_t len, int ver, int opcode)
{
	const char *name = opcode >= 0 ? v3d_cl_opcode_name(ver, (uint8_t)opcode) : NULL;
	if (opcode < 0)
		snprintf(buf, len, "Position");
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "opcode %d", opcode);
}

static int fail_va(struct v3dval *v, uint32_t seg_index, uint32_t pos, int opcode, enum v3dval_rule rule,
		   uint32_t bad_addr, const char *detail, va_list ap)
{
	struct v3dval_error *e = v->err;
	memset(e, 0, sizeof(*e));
	e->rule = rule;
	e->opcode = opcode;
	e->bad_addr = bad_addr;
	char what[64], why[160];
	if (detail)
		vsnprintf(why, sizeof(why), detail, ap);
	else
		snprintf(why, sizeof(why), "%s", v3dval_rule_text(rule));
	if (seg_index == V3DVAL_NO_SEG) {
		snprintf(e->msg, sizeof(e->msg), "%s", why);
		return -1;
	}
	const struct v3dval_seg *s = &v->segs[seg_index];
	const struct v3dval_bo *bo = &v->bos[s->bo];
	e->list = (enum v3dval_list)s->list;
	e->level = (enum v3dval_level)s->level;
	e->addr = s->start + pos;
	e->in_bo = true;
	e->bo_id = bo->id;
	e->bo_offset = e->addr - bo->addr;
	packet_text(what, sizeof(what), v->policy.ver, opcode);
	snprintf(e->msg, sizeof(e->msg), "%s at %s 0x%08x (bo %u +0x%x): %s", what,
		 list_text(e->list, e->level), e->addr, e->bo_id, e->bo_offset, why);
	return -1;
}

int v3dval_fail(struct v3dval *v, const struct v3dval_where *w, enum v3dval_rule rule, uint32_t bad_addr,
		const char *detail, ...)
{
	va_list ap;
	va_start(ap, detail);
	int r = fail_va(v, w ? w->seg : V3DVAL_NO_SEG, w ? w->pos : 0, w ? w->opcode : -1, rule, bad_addr,
			detail, ap);
	va_end(ap);
	return r;
}

int v3dval_fail_at(struct v3dval *v, uint32_t seg, uint32_t pos, int opcode, enum v3dval_rule rule,
		   uint32_t bad_addr, const char *detail, ...)
{
	va_list ap;
	va_start(ap, detail);
	int r = fail_va(v, seg, pos, opcode, rule, bad_addr, detail, ap);
	va_end(ap);
	return r;
}

int v3dval_fail_regs(struct v3dval_error *err, enum v3dval_list list, enum v3dval_rule rule, uint32_t bad_addr,
		     const char *fmt, ...)
{
	memset(err, 0, sizeof(*err));
	err->rule = rule;
	err->opcode = -1;
	err->list = list;
	err->bad_addr = bad_addr;
	char why[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	const char *unit = list == V3DVAL_LIST_TFU ? "TFU job: " : list == V3DVAL_LIST_CSD ? "CSD job: " : "";
	snprintf(err->msg, sizeof(err->msg), "%s%s", unit, why);
	return -1;
}
