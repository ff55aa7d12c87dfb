/* The tile buffer (TLB) of the simulated V3D: colour render targets and the Z / stencil buffers
 * of one tile, their clears, and LOAD/STORE_TILE_BUFFER_GENERAL between them and memory in every
 * layout of v3d_tiling.h. Part of the CLE (v3d_cle.c); what is modeled is listed in v3d_cle.h.
 *
 * Every render job starts with every buffer poisoned (V3D_TLB_POISON in each 32-bit word, its
 * low byte in each stencil byte), so nothing carries from one job to the next: pixels no load or
 * clear wrote store as the poison. */
#ifndef FERRY_SIM_V3D_TLB_H
#define FERRY_SIM_V3D_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include "v3d_cle.h" /* struct v3d_cle_mem */

#define V3D_TLB_MAX_RTS 8u   /* 7.1 has RT0..7, 4.2 RT0..3 */
#define V3D_TLB_TILE_MAX 64u /* tiles are at most 64x64 pixels */
#define V3D_TLB_PIXEL_MAX 16u
#define V3D_TLB_BYTES (V3D_TLB_TILE_MAX * V3D_TLB_TILE_MAX * V3D_TLB_PIXEL_MAX)
#define V3D_TLB_POISON 0xbaadf00du

struct v3d_tlb_rt {
	bool configured;
	uint32_t bpp_bytes;    /* pixel size in the tile buffer: 4, 8, 16 */
	uint32_t channel_bits; /* of the internal type: 8, 16, 32; 0 unknown */
	uint8_t clear[16];     /* the 128-bit clear value, little endian */
	uint8_t *buf[2];       /* [double-buffer index], V3D_TLB_BYTES each, allocated on first use */
};

struct v3d_tlb {
	struct v3d_tlb_rt rt[V3D_TLB_MAX_RTS];
	uint32_t *z[2];        /* depth per pixel in the internal depth type (float bits or unorm) */
	uint8_t *s[2];         /* stencil per pixel */
	uint32_t depth_type;   /* enum v3d_internal_depth_type */
	uint32_t z_clear;      /* float bits, as TILE_RENDERING_MODE_CFG carries it */
	uint8_t s_clear;
	uint8_t io[V3D_TLB_BYTES]; /* one tile's pixels on their way to or from memory */
};

/* The part of the frame a load or store covers and the frame facts it needs. */
struct v3d_tlb_tile {
	uint32_t x0, y0, w, h;  /* pixels of the image inside the current tile */
	unsigned index;         /* double-buffer index */
	uint32_t num_rts;
	bool msaa;
};

enum v3d_tlb_result { V3D_TLB_OK, V3D_TLB_UNMODELED, V3D_TLB_FAULT, V3D_TLB_NOMEM };

/* Keeps the allocations, forgets the configuration, poisons every buffer: a new render job. */
void v3d_tlb_reset(struct v3d_tlb *t);
void v3d_tlb_free(struct v3d_tlb *t);

/* Clears render target n / the Z and stencil buffers of buffer `index`. False: out of memory. */
bool v3d_tlb_clear_rt(struct v3d_tlb *t, unsigned n, unsigned index);
bool v3d_tlb_clear_zs(struct v3d_tlb *t, unsigned index);

/* One LOAD (store false) or STORE_TILE_BUFFER_GENERAL; payload is the packet after its opcode.
 * FAULT: *fault_addr is the first unmapped address and nothing was written to memory (a store
 * checks its whole footprint first). *bytes: bytes moved to or from memory. */
enum v3d_tlb_result v3d_tlb_load_store(struct v3d_tlb *t, const struct v3d_cle_mem *mem, const uint8_t *payload,
				       bool store, const struct v3d_tlb_tile *tile, uint32_t *fault_addr,
				       uint64_t *bytes);

/* Memory access split at 4 KiB pages (the MMU's granule); 32-bit address wrap. 0 or -EFAULT with
 * *fault_addr the first page that failed. */
int v3d_mem_access(const struct v3d_cle_mem *mem, uint32_t addr, void *buf, uint32_t len, bool write,
		   uint32_t *fault_addr);

#endif
