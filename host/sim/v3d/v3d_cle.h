/* The control-list executor (CLE) of the simulated V3D 4.2 / 7.1: runs one bin (CT0) or render
 * (CT1) control list from GPU memory, resumably, in slices with a packet budget.
 *
 * What is modeled: control flow (HALT, NOP, FLUSH*, BRANCH, BRANCH_TO_SUB_LIST, RETURN, the generic
 * and implicit tile lists of the render CL), the bin/render semaphore, and the packets that move
 * memory without shaders: tile rendering mode config, clear colors and Z/S clear values, tile
 * buffer clears (colour; Z/S on 4.2), and LOAD/STORE_TILE_BUFFER_GENERAL between the tile buffer
 * (v3d_tlb.c) and memory in every layout of v3d_tiling.h (RASTER, LINEARTILE, UBLINEAR 1/2
 * columns, UIF with and without XOR; the stride field is the raster stride or the UIF padded
 * height in blocks). The tile buffer is real storage: it keeps its contents from tile to tile
 * within a job, as v3dv's fills rely on (double buffering alternates two buffers per
 * END_OF_TILE_MARKER), and every render job starts with it poisoned (V3D_TLB_POISON), so a render
 * CL that copies or fills memory produces the right bytes and nothing carries between jobs.
 * Render lists walk tiles as v3dv's meta copies do: SUPERTILE_COORDINATES runs the generic
 * tile list (START_ADDRESS_OF_GENERIC_TILE_LIST) once per tile of the supertile, clipped to the
 * frame; BRANCH_TO_IMPLICIT_TILE_LIST calls the tile's list in the tile allocation memory at
 * TILE_LIST_SET_BASE + (row * frame tiles x + column) * initial block size.
 * Sub-lists: the CLE has one return-address register per thread (CTnRA), so BRANCH_TO_SUB_LIST,
 * BRANCH_TO_IMPLICIT_TILE_LIST (and BRANCH_TO_AUTO_CHAINED_SUB_LIST, modeled as a sub-list call)
 * nest one level deep; a second call before the RETURN stops with V3D_CLE_ERROR, as does a RETURN
 * with nothing to return to. The generic tile list of a supertile walk is not a sub-list: it ends
 * at a RETURN or at its end address and the walk goes on with the next tile.
 * What is NOT modeled: shaders are not run and nothing is rasterized. Draw packets (GL shader
 * state, vertex array / indexed prims, ...) and state packets are decoded by their length,
 * recorded and counted, never executed. The binner (PTB) only terminates each tile's list (at the
 * FLUSH that ends binning it writes RETURN_FROM_SUB_LIST at the start of every tile's initial block
 * in qma, layer after layer, row-major), so the implicit tile lists hold no primitives.
 * Loads and stores: colour formats whose bytes the tile buffer holds unconverted (8/16/32-bit
 * channels of the render target's width: RGBA8(UI/I), R32UI, RGBA32F, RG16F, ...) with R/B swap,
 * channel reverse and Y flip; Z/S buffers (Z, stencil, both) in D32F, D24S8 (depth in bits 31:8,
 * stencil 7:0; a Z-only or stencil-only store keeps the other part's bytes), D16 and S8, the depth
 * converted to and from the internal depth type. A store checks its whole footprint before
 * writing, so a fault writes nothing. Counted in stats.unmodeled and skipped: MSAA and decimation,
 * format conversions (a memory format whose channel width differs from the render target's
 * internal type, packed formats such as BGR565 / RGB10_A2 / R11G11B10F / sRGB, D24 without
 * stencil), force-alpha loads, 3-byte pixels in a tiled layout, the reserved memory formats 6/7,
 * and 7.1's Z/S clear.
 *
 * Memory is reached only through struct v3d_cle_mem (the GPU MMU): a read or write outside any BO
 * stops the list with V3D_CLE_FAULT and a struct v3d_cle_fault naming the address, the direction,
 * the packet address and its opcode. An opcode the CLE does not know stops it with V3D_CLE_ERROR
 * (the hardware would hang or misparse). The CLE fetches the list in read-ahead chunks (256 B on
 * 4.2, 1024 B on 7.1) as the hardware prefetcher does, so a list that ends within read-ahead
 * distance of the end of its BO faults like the hardware would. */
#ifndef FERRY_SIM_V3D_CLE_H
#define FERRY_SIM_V3D_CLE_H

#include <stdbool.h>
#include <stdint.h>

/* Memory access through the GPU's MMU: return 0, or -EFAULT for an address range not entirely
 * inside one mapped BO (nothing is transferred then). The CLE never asks for more than
 * V3D_CLE_MAX_ACCESS bytes at once, and never for a range wrapping past 4 GiB. */
struct v3d_cle_mem {
	void *ctx;
	int (*read)(void *ctx, uint32_t addr, void *dst, uint32_t len);
	int (*write)(void *ctx, uint32_t addr, const void *src, uint32_t len);
};
#define V3D_CLE_MAX_ACCESS 4096u

enum v3d_cle_kind {
	V3D_CLE_BIN,    /* CT0: the binning control list */
	V3D_CLE_RENDER, /* CT1: the render control list */
};

enum v3d_cle_status {
	V3D_CLE_DONE,           /* the list ran to its end address (or HALT) */
	V3D_CLE_YIELD,          /* budget used up; call v3d_cle_run again to continue */
	V3D_CLE_WAIT_SEMAPHORE, /* WAIT_ON_SEMAPHORE with the shared counter at 0; call again later */
	V3D_CLE_FAULT,          /* stopped by an MMU fault: see v3d_cle_fault() */
	V3D_CLE_ERROR,          /* stopped by an invalid packet or list: see v3d_cle_fault() */
};

/* Why the list stopped (FAULT or ERROR). For ERROR, addr == packet_addr and write == false. */
struct v3d_cle_fault {
	uint32_t addr;        /* the faulting GPU address */
	bool write;           /* the direction of the faulting access */
	uint32_t packet_addr; /* address of the packet being executed (or fetched) */
	uint8_t opcode;       /* its opcode (0 when the fetch of the opcode byte itself faulted) */
	const char *what;     /* static text: "CL fetch", "store tile buffer", "unknown opcode", ... */
};

/* Registers the kernel writes before kicking a list (V3D_CLE_CT0QMA/QMS/QTS for bin on 4.1+).
 * The render list gets none (its tile lists are found through packets), pass NULL. */
struct v3d_cle_bin_regs {
	uint32_t qma; /* tile allocation memory address */
	uint32_t qms; /* tile allocation memory size */
	uint32_t qts; /* tile state data array address (0: none) */
};

/* The semaphore between the bin and the render list of one core (INCREMENT_SEMAPHORE in the bin
 * list, WAIT_ON_SEMAPHORE in the render list). The caller owns it and hands the same one to both
 * lists of a job; the CLE is not thread-safe, run both lists from one thread. */
struct v3d_cle_semaphore {
	uint32_t count;
};

#define V3D_CLE_LAST_PACKETS 16u

struct v3d_cle_stats {
	uint64_t packets;                 /* packets executed (every opcode) */
	uint64_t by_opcode[256];          /* packets met, by opcode (executed or recorded) */
	uint64_t recorded[256];           /* of those, decoded by length and skipped, not executed */
	uint64_t unknown[256];            /* unknown opcodes met (each stops the list) */
	uint64_t unmodeled;               /* load/store/clear variants not modeled (skipped) */
	uint64_t draws;                   /* draw packets (prims lists) recorded */
	uint64_t tiles;                   /* tiles completed (END_OF_TILE_MARKER) */
	uint64_t bytes_loaded, bytes_stored;
	uint32_t current_addr;            /* address of the next packet (for hang reports) */
	uint32_t last_packets[V3D_CLE_LAST_PACKETS]; /* addresses of the last packets, ring */
	uint32_t last_packet_count;       /* packets in the ring (saturates at V3D_CLE_LAST_PACKETS) */
	uint32_t last_packet_head;        /* index the next packet address goes to */
};

struct v3d_cle;

/* ver: 42 (V3D 4.2, RPi4) or 71 (V3D 7.1, RPi5). NULL for another version or out of memory. */
struct v3d_cle *v3d_cle_create(int ver);
void v3d_cle_destroy(struct v3d_cle *cle);

/* Resets the executor's state (not its stats) and points it at [start, end): what the kernel does
 * by writing CTnCA and CTnEA. bin_regs: for V3D_CLE_BIN (NULL: no tile allocation memory, and the
 * FLUSH that ends binning stops with V3D_CLE_ERROR); ignored for render. sem: shared by the bin and
 * render lists of a job; NULL means a private counter starting at 0. Reaching `end` at top level
 * (not inside a sub-list or tile list) ends the list, as does HALT. */
void v3d_cle_start(struct v3d_cle *cle, enum v3d_cle_kind kind, uint32_t start, uint32_t end,
		   const struct v3d_cle_bin_regs *bin_regs, struct v3d_cle_semaphore *sem);

/* Executes at most budget_packets packets (0 means 1). Returns at once with the same status once
 * DONE, FAULT or ERROR was reached, until the next v3d_cle_start. */
enum v3d_cle_status v3d_cle_run(struct v3d_cle *cle, const struct v3d_cle_mem *mem,
				uint32_t budget_packets);

/* The fault or error that stopped the list, or NULL. */
const struct v3d_cle_fault *v3d_cle_fault(const struct v3d_cle *cle);
const struct v3d_cle_stats *v3d_cle_stats(const struct v3d_cle *cle);
void v3d_cle_reset_stats(struct v3d_cle *cle);
int v3d_cle_version(const struct v3d_cle *cle);

#endif
