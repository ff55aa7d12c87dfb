/* The simulated V3D tile buffer: poisoned colour / Z / stencil storage per tile, clears, and tile
 * loads and stores through v3d_tiling.c's layouts with the format handling described in
 * v3d_cle.h. */
#include "v3d_tlb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/v3d_cl.h"
#include "ferry/hw/v3d_tiling.h"

#define PAGE 4096u
#define PIXELS (V3D_TLB_TILE_MAX * V3D_TLB_TILE_MAX)

int v3d_mem_access(const struct v3d_cle_mem *mem, uint32_t addr, void *buf, uint32_t len, bool write,
		   uint32_t *fault_addr)
{
	uint8_t *p = buf;
	while (len) {
		uint32_t chunk = PAGE - (addr & (PAGE - 1));
		if (chunk > len)
			chunk = len;
		int r = write ? mem->write(mem->ctx, addr, p, chunk) : mem->read(mem->ctx, addr, p, chunk);
		if (r) {
			*fault_addr = addr;
			return -EFAULT;
		}
		addr += chunk;
		p += chunk;
		len -= chunk;
	}
	return 0;
}

/* ---- storage ---------------------------------------------------------------------------------- */

static void poison(void *buf, size_t bytes)
{
	uint32_t word = V3D_TLB_POISON;
	uint8_t *p = buf;
	for (size_t i = 0; i + 4 <= bytes; i += 4)
		memcpy(p + i, &word, 4);
}

static void *alloc_poisoned(void **slot, size_t bytes)
{
	if (!*slot) {
		*slot = malloc(bytes);
		if (*slot)
			poison(*slot, bytes);
	}
	return *slot;
}

static uint8_t *rt_buffer(struct v3d_tlb_rt *rt, unsigned index)
{
	return alloc_poisoned((void **)&rt->buf[index], V3D_TLB_BYTES);
}

static bool zs_buffers(struct v3d_tlb *t, unsigned index)
{
	if (!alloc_poisoned((void **)&t->z[index], PIXELS * sizeof(uint32_t)))
		return false;
	if (!t->s[index]) {
		t->s[index] = malloc(PIXELS);
		if (!t->s[index])
			return false;
		memset(t->s[index], V3D_TLB_POISON & 0xffu, PIXELS);
	}
	return true;
}

void v3d_tlb_reset(struct v3d_tlb *t)
{
	for (unsigned n = 0; n < V3D_TLB_MAX_RTS; n++) {
		struct v3d_tlb_rt *rt = &t->rt[n];
		uint8_t *keep[2] = { rt->buf[0], rt->buf[1] };
		memset(rt, 0, sizeof(*rt));
		for (unsigned i = 0; i < 2; i++) {
			rt->buf[i] = keep[i];
			if (keep[i])
				poison(keep[i], V3D_TLB_BYTES);
		}
	}
	for (unsigned i = 0; i < 2; i++) {
		if (t->z[i])
			poison(t->z[i], PIXELS * sizeof(uint32_t));
		if (t->s[i])
			memset(t->s[i], V3D_TLB_POISON & 0xffu, PIXELS);
	}
	t->depth_type = V3D_INTERNAL_DEPTH_32F;
	t->z_clear = 0;
	t->s_clear = 0;
}

void v3d_tlb_free(struct v3d_tlb *t)
{
	for (unsigned n = 0; n < V3D_TLB_MAX_RTS; n++) {
		free(t->rt[n].buf[0]);
		free(t->rt[n].buf[1]);
	}
	for (unsigned i = 0; i < 2; i++) {
		free(t->z[i]);
		free(t->s[i]);
	}
}

static uint8_t *tile_pixel(uint8_t *buf, uint32_t x, uint32_t y)
{
	return buf + ((size_t)y * V3D_TLB_TILE_MAX + x) * V3D_TLB_PIXEL_MAX;
}

bool v3d_tlb_clear_rt(struct v3d_tlb *t, unsigned n, unsigned index)
{
	struct v3d_tlb_rt *rt = &t->rt[n];
	uint8_t *buf = rt_buffer(rt, index);
	if (!buf)
		return false;
	for (uint32_t i = 0; i < PIXELS; i++)
		memcpy(buf + (size_t)i * V3D_TLB_PIXEL_MAX, rt->clear, V3D_TLB_PIXEL_MAX);
	return true;
}

/* ---- depth values --------------------------------------------------------------------------- */

static double depth_to_unit(uint32_t v, uint32_t type)
{
	float f;
	switch (type) {
	case V3D_INTERNAL_DEPTH_24: return (v & 0xffffffu) / 16777215.0;
	case V3D_INTERNAL_DEPTH_16: return (v & 0xffffu) / 65535.0;
	default: memcpy(&f, &v, 4); return f;
	}
}

static uint32_t depth_from_unit(double d, uint32_t type)
{
	if (type == V3D_INTERNAL_DEPTH_24 || type == V3D_INTERNAL_DEPTH_16) {
		double max = type == V3D_INTERNAL_DEPTH_24 ? 16777215.0 : 65535.0;
		if (!(d > 0.0)) /* NaN too */
			return 0;
		return d >= 1.0 ? (uint32_t)max : (uint32_t)(d * max + 0.5); /* round to nearest */
	}
	float f = (float)d;
	uint32_t v;
	memcpy(&v, &f, 4);
	return v;
}

/* A depth value between two representations: bit-exact when they are the same. */
static uint32_t depth_convert(uint32_t v, uint32_t from, uint32_t to)
{
	return from == to ? v : depth_from_unit(depth_to_unit(v, from), to);
}

bool v3d_tlb_clear_zs(struct v3d_tlb *t, unsigned index)
{
	if (!zs_buffers(t, index))
		return false;
	uint32_t z = depth_convert(t->z_clear, V3D_INTERNAL_DEPTH_32F, t->depth_type);
	for (uint32_t i = 0; i < PIXELS; i++)
		t->z[index][i] = z;
	memset(t->s[index], t->s_clear, PIXELS);
	return true;
}

/* ---- formats ---------------------------------------------------------------------------------- */

/* Colour formats whose bytes the tile buffer holds unconverted when the render target's internal
 * type has the same channel width. Returns the bytes per pixel and sets *channel_bits, 0 for a
 * format needing a conversion. */
static uint32_t raw_format(uint32_t format, uint32_t *channel_bits)
{
	switch (format) {
	case V3D_CL_FMT_RGBA32F: case V3D_CL_FMT_RGBA32I: case V3D_CL_FMT_RGBA32UI: *channel_bits = 32; return 16;
	case V3D_CL_FMT_RG32F: case V3D_CL_FMT_RG32I: case V3D_CL_FMT_RG32UI: *channel_bits = 32; return 8;
	case V3D_CL_FMT_R32F: case V3D_CL_FMT_R32I: case V3D_CL_FMT_R32UI: *channel_bits = 32; return 4;
	case V3D_CL_FMT_RGBA16F: case V3D_CL_FMT_RGBA16I: case V3D_CL_FMT_RGBA16UI: *channel_bits = 16; return 8;
	case V3D_CL_FMT_RG16F: case V3D_CL_FMT_RG16I: case V3D_CL_FMT_RG16UI: *channel_bits = 16; return 4;
	case V3D_CL_FMT_R16F: case V3D_CL_FMT_R16I: case V3D_CL_FMT_R16UI: *channel_bits = 16; return 2;
	case V3D_CL_FMT_RGBA8: case V3D_CL_FMT_RGBA8I: case V3D_CL_FMT_RGBA8UI: *channel_bits = 8; return 4;
	case V3D_CL_FMT_RGB8: *channel_bits = 8; return 3;
	case V3D_CL_FMT_RG8: case V3D_CL_FMT_RG8I: case V3D_CL_FMT_RG8UI: *channel_bits = 8; return 2;
	case V3D_CL_FMT_R8: case V3D_CL_FMT_R8I: case V3D_CL_FMT_R8UI: *channel_bits = 8; return 1;
	default: *channel_bits = 0; return 0;
	}
}

/* Depth / stencil memory formats: bytes per pixel and which parts they hold. D24S8 holds the
 * depth in bits 31:8 and the stencil in bits 7:0 (the order v3dv's buffer copies undo with
 * channel reverse + R/B swap). */
struct zs_format {
	uint32_t cpp;
	bool depth, stencil;
	uint32_t depth_type; /* how memory holds depth */
};

static bool zs_format(uint32_t format, struct zs_format *f)
{
	switch (format) {
	case V3D_CL_FMT_D32F: *f = (struct zs_format){ 4, true, false, V3D_INTERNAL_DEPTH_32F }; return true;
	case V3D_CL_FMT_D24S8: *f = (struct zs_format){ 4, true, true, V3D_INTERNAL_DEPTH_24 }; return true;
	case V3D_CL_FMT_D16: *f = (struct zs_format){ 2, true, false, V3D_INTERNAL_DEPTH_16 }; return true;
	case V3D_CL_FMT_S8: *f = (struct zs_format){ 1, false, true, 0 }; return true;
	default: return false;
	}
}

/* Channel order between memory and the tile buffer. Loads reverse then swap R/B; stores undo it
 * (swap then reverse), so a load and a store with the same flags round-trip. */
static void swizzle(uint8_t *px, uint32_t cpp, uint32_t channel_bytes, bool reverse, bool rb_swap, bool storing)
{
	uint32_t n = cpp / channel_bytes;
	uint8_t tmp[V3D_TLB_PIXEL_MAX];
	for (int step = 0; step < 2; step++) {
		bool do_reverse = (step == 0) != storing ? reverse : false;
		bool do_swap = (step == 0) != storing ? false : rb_swap;
		if (do_reverse) {
			memcpy(tmp, px, cpp);
			for (uint32_t c = 0; c < n; c++)
				memcpy(px + c * channel_bytes, tmp + (n - 1 - c) * channel_bytes, channel_bytes);
		}
		if (do_swap && n >= 3) {
			memcpy(tmp, px, channel_bytes);
			memcpy(px, px + 2 * channel_bytes, channel_bytes);
			memcpy(px + 2 * channel_bytes, tmp, channel_bytes);
		}
	}
}

/* ---- memory side ------------------------------------------------------------------------------- */

struct ls_mem {
	struct v3d_surface surf;
	uint32_t addr, height;
	bool flip;
};

/* Moves the tile's pixels between t->io (packed rows of tile->w pixels) and memory, one
 * contiguous run at a time. Addresses use the TLB's 32-bit arithmetic. */
static int tile_io(struct v3d_tlb *t, const struct v3d_cle_mem *mem, const struct ls_mem *m,
		   const struct v3d_tlb_tile *tile, bool write, uint32_t *fault_addr)
{
	uint32_t cpp = m->surf.cpp;
	for (uint32_t y = 0; y < tile->h; y++) {
		uint32_t row = tile->y0 + y;
		if (m->flip)
			row = m->height - 1u - row; /* wraps like the hardware's arithmetic */
		for (uint32_t x = 0; x < tile->w;) {
			uint32_t run = v3d_surface_run(&m->surf, tile->x0 + x);
			if (run > tile->w - x)
				run = tile->w - x;
			uint32_t addr = m->addr + (uint32_t)v3d_surface_offset(&m->surf, tile->x0 + x, row);
			uint8_t *p = t->io + ((size_t)y * tile->w + x) * cpp;
			if (v3d_mem_access(mem, addr, p, run * cpp, write, fault_addr))
				return -EFAULT;
			x += run;
		}
	}
	return 0;
}

/* ---- load / store ----------------------------------------------------------------------------- */

/* apply false: only say whether the packet is modeled (nothing changes). */
static enum v3d_tlb_result colour(struct v3d_tlb *t, const uint8_t *p, bool store, const struct v3d_tlb_tile *tile,
				  struct ls_mem *m, uint32_t buffer, bool apply)
{
	uint32_t channel_bits;
	uint32_t cpp = raw_format((uint32_t)v3d_cl_get(p, V3D_CL_LS_IMAGE_FORMAT), &channel_bits);
	struct v3d_tlb_rt *rt = buffer < V3D_TLB_MAX_RTS ? &t->rt[buffer] : NULL;
	if (!rt || buffer >= tile->num_rts || !rt->configured || cpp == 0 || channel_bits != rt->channel_bits ||
	    cpp > rt->bpp_bytes || (!store && v3d_cl_get(p, V3D_CL_LOAD_FORCE_ALPHA_1)))
		return V3D_TLB_UNMODELED;
	m->surf.cpp = cpp;
	if (!v3d_surface_valid(&m->surf))
		return V3D_TLB_UNMODELED; /* e.g. RGB8 in a tiled layout: no utile of 3-byte pixels */
	if (!apply)
		return V3D_TLB_OK;
	uint8_t *buf = rt_buffer(rt, tile->index);
	if (!buf)
		return V3D_TLB_NOMEM;
	bool reverse = v3d_cl_get(p, V3D_CL_LS_CHANNEL_REVERSE), rb_swap = v3d_cl_get(p, V3D_CL_LS_RB_SWAP);
	for (uint32_t y = 0; y < tile->h; y++) {
		for (uint32_t x = 0; x < tile->w; x++) {
			uint8_t *io = t->io + ((size_t)y * tile->w + x) * cpp, *px = tile_pixel(buf, x, y);
			if (store) {
				memcpy(io, px, cpp);
				swizzle(io, cpp, channel_bits / 8, reverse, rb_swap, true);
			} else {
				memset(px, 0, V3D_TLB_PIXEL_MAX);
				memcpy(px, io, cpp);
				swizzle(px, cpp, channel_bits / 8, reverse, rb_swap, false);
			}
		}
	}
	return V3D_TLB_OK;
}

/* Z / stencil: `depth` / `stencil` say which parts the buffer selector moves; a store into a
 * format holding both parts keeps the other part's memory bytes (t->io holds them already). */
static enum v3d_tlb_result zs(struct v3d_tlb *t, const uint8_t *p, bool store, const struct v3d_tlb_tile *tile,
			      struct ls_mem *m, uint32_t buffer, bool apply)
{
	struct zs_format f;
	if (!zs_format((uint32_t)v3d_cl_get(p, V3D_CL_LS_IMAGE_FORMAT), &f))
		return V3D_TLB_UNMODELED;
	bool depth = buffer != V3D_CL_BUFFER_STENCIL, stencil = buffer != V3D_CL_BUFFER_Z;
	if ((depth && !f.depth) || (stencil && !f.stencil))
		return V3D_TLB_UNMODELED;
	m->surf.cpp = f.cpp;
	if (!v3d_surface_valid(&m->surf))
		return V3D_TLB_UNMODELED;
	if (!apply)
		return V3D_TLB_OK;
	if (!zs_buffers(t, tile->index))
		return V3D_TLB_NOMEM;
	uint32_t *z = t->z[tile->index];
	uint8_t *s = t->s[tile->index];
	for (uint32_t y = 0; y < tile->h; y++) {
		for (uint32_t x = 0; x < tile->w; x++) {
			uint8_t *io = t->io + ((size_t)y * tile->w + x) * f.cpp;
			size_t i = (size_t)y * V3D_TLB_TILE_MAX + x;
			uint32_t word = 0;
			memcpy(&word, io, f.cpp);
			if (store) {
				if (depth) {
					uint32_t d = depth_convert(z[i], t->depth_type, f.depth_type);
					if (f.depth_type == V3D_INTERNAL_DEPTH_24)
						word = (word & 0xffu) | d << 8;
					else
						word = d;
				}
				if (stencil)
					word = (word & ~0xffu) | s[i];
				memcpy(io, &word, f.cpp);
			} else {
				if (depth) {
					uint32_t d = f.depth_type == V3D_INTERNAL_DEPTH_24 ? word >> 8 : word;
					z[i] = depth_convert(d, f.depth_type, t->depth_type);
				}
				if (stencil)
					s[i] = (uint8_t)word;
			}
		}
	}
	return V3D_TLB_OK;
}

enum v3d_tlb_result v3d_tlb_load_store(struct v3d_tlb *t, const struct v3d_cle_mem *mem, const uint8_t *p,
				       bool store, const struct v3d_tlb_tile *tile, uint32_t *fault_addr,
				       uint64_t *bytes)
{
	*bytes = 0;
	uint32_t buffer = (uint32_t)v3d_cl_get(p, V3D_CL_LS_BUFFER);
	uint32_t stride = (uint32_t)v3d_cl_get(p, V3D_CL_LS_STRIDE);
	struct ls_mem m = {
		/* the same field is the raster stride in bytes and the UIF padded height in blocks */
		.surf = { (enum v3d_cl_memory_format)v3d_cl_get(p, V3D_CL_LS_MEMORY_FORMAT), 0, stride, stride },
		.addr = v3d_cl_get_address(p, V3D_CL_LS_ADDRESS),
		.height = (uint32_t)v3d_cl_get(p, V3D_CL_LS_HEIGHT),
		.flip = v3d_cl_get(p, V3D_CL_LS_FLIP_Y),
	};
	bool is_zs = buffer == V3D_CL_BUFFER_Z || buffer == V3D_CL_BUFFER_STENCIL || buffer == V3D_CL_BUFFER_ZS;
	if (tile->msaa || v3d_cl_get(p, V3D_CL_LS_DECIMATE_MODE) != 0 || (!is_zs && buffer >= V3D_TLB_MAX_RTS))
		return V3D_TLB_UNMODELED;

	/* Decide whether the packet is modeled (and the pixel size) before touching memory. */
	enum v3d_tlb_result r = is_zs ? zs(t, p, store, tile, &m, buffer, false) : colour(t, p, store, tile, &m, buffer, false);
	if (r != V3D_TLB_OK)
		return r;
	uint64_t len = (uint64_t)tile->w * tile->h * m.surf.cpp;
	/* A store reads its footprint first too: a fault then writes nothing, and a Z-only or
	 * stencil-only store of D24S8 keeps the other part's bytes. */
	if (tile_io(t, mem, &m, tile, false, fault_addr))
		return V3D_TLB_FAULT;
	r = is_zs ? zs(t, p, store, tile, &m, buffer, true) : colour(t, p, store, tile, &m, buffer, true);
	if (r != V3D_TLB_OK)
		return r;
	if (store && tile_io(t, mem, &m, tile, true, fault_addr))
		return V3D_TLB_FAULT;
	*bytes = len;
	if (!store)
		return V3D_TLB_OK;
	if (v3d_cl_get(p, V3D_CL_STORE_CLEAR_BUFFER)) {
		bool ok = is_zs ? v3d_tlb_clear_zs(t, tile->index) : v3d_tlb_clear_rt(t, buffer, tile->index);
		if (!ok)
			return V3D_TLB_NOMEM;
	}
	return V3D_TLB_OK;
}
