/* The Adreno a6xx command processor (CP) model: executes PM4 from GPU memory, resumably, in
 * slices with a work budget. Memory is reached only through the caller's address-space callback;
 * the register file and packet statistics are GPU-global (struct cp_device), the execution state
 * (IB stack, draw-state groups, render mode, predicates) is per submit (struct cp_exec).
 * Shaders and rasterization are not modeled: draws are counted and their index / indirect
 * buffers are fetched (and bounds-checked through the address space), nothing is drawn. */
#ifndef FERRY_SIM_A6XX_CP_H
#define FERRY_SIM_A6XX_CP_H

#include <stdbool.h>
#include <stdint.h>

#include "a6xx_tiling.h"
#include "ferry/hw/adreno_pm4.h"
#include "sim/sim_unmodeled.h"

/* Type-4 headers decode 19-bit register offsets; the file covers all of them. */
#define CP_NUM_REGS (PM4_TYPE4_REG_DECODE_MASK + 1u)
/* The last packets each submit remembers for a fault / hang report. */
#define CP_LAST_PACKETS 16u

struct cp_device {
	uint32_t *regs;          /* CP_NUM_REGS entries */
	uint64_t packets;        /* packets executed (every type) */
	uint64_t type4_packets;
	uint64_t skipped[PM4_TYPE7_OPCODE_MASK + 1]; /* type-7 packets skipped unexecuted, by opcode */
	uint64_t draws;          /* draws executed (each draw of a multi-draw counts) */
	uint64_t draw_state_runs; /* draw-state groups executed */
	uint64_t irqs;           /* CP_EVENT_WRITE with the IRQ bit */
	uint64_t cond_skips;     /* CP_COND_REG_EXEC tests that failed (dwords skipped) */
	uint64_t ib_chains;      /* CP_INDIRECT_BUFFER_CHAIN jumps */
	uint32_t gmem_size;      /* bytes of GMEM each submit gets (MSM_PARAM_GMEM_SIZE) */
	bool strict;             /* work the model does not execute faults (CP_FAULT_UNMODELED) */
};

/* The address space of the context a submit runs in. translate() returns a host pointer to the
 * bytes at iova, with *avail (<= len, >= 1) of them contiguous, or NULL for a GPU fault with
 * *fault_type "TRANSLATION" (unmapped) or "PERMISSION" (write to a read-only mapping). */
struct cp_mem {
	void *ctx;
	void *(*translate)(void *ctx, uint64_t iova, uint64_t len, bool write, uint64_t *avail,
			   const char **fault_type);
};

enum cp_result {
	CP_RESULT_DONE,   /* the IB chain ran to its end */
	CP_RESULT_BUDGET, /* budget used up; call cp_run again to continue */
	CP_RESULT_WAIT,   /* a CP wait (WAIT_REG_MEM, WAIT_MEM_GTE) is not satisfied yet; retry later */
	CP_RESULT_FAULT,  /* stopped: see cp_exec.fault */
};

enum cp_fault_kind {
	CP_FAULT_NONE,
	CP_FAULT_PAGEFAULT, /* GPU access to an unmapped/read-only iova */
	CP_FAULT_OPCODE,    /* CP opcode error: bad header/parity, malformed packet, IB nesting */
	CP_FAULT_HANG,      /* set by the scheduler (hangcheck), never by cp_run */
	CP_FAULT_UNMODELED, /* strict mode: a packet whose work the model does not execute */
};

enum cp_frame_kind {
	CP_FRAME_IB1,
	CP_FRAME_IB2,
	CP_FRAME_DRAW_STATE, /* a CP_SET_DRAW_STATE group run at a draw (or LOAD_IMMED) */
};

struct cp_fault {
	enum cp_fault_kind kind;
	const char *reason;     /* CP_FAULT_OPCODE / HANG: what went wrong */
	uint64_t iova;          /* PAGEFAULT: the faulting address */
	bool write;
	const char *type;       /* PAGEFAULT: "TRANSLATION" or "PERMISSION" */
	/* Where the CP was: the packet being executed. */
	unsigned ib_level;      /* 1, 2, or 3 for a draw-state group run from IB2 (0: nothing ran) */
	enum cp_frame_kind frame_kind;
	unsigned group_id;      /* CP_FRAME_DRAW_STATE: the group */
	uint64_t ib_base;       /* base iova of that IB */
	uint32_t ib_size;       /* its size in dwords */
	uint32_t dword;         /* dword offset of the packet header in that IB */
	bool header_valid;
	uint32_t header;
	int opcode;             /* type-7 opcode, -1 for type-4, -2 for an invalid header */
	uint32_t reg;           /* type-4: first register */
};

struct cp_frame {
	uint64_t base;
	uint32_t size;    /* dwords */
	uint32_t pos;     /* dword offset of the next packet */
	enum cp_frame_kind kind;
	unsigned group_id; /* CP_FRAME_DRAW_STATE */
	bool started;     /* the packet at pos began and will be re-entered (wait, long copy, draw) */
	uint64_t progress; /* work done inside that packet (dwords copied, draws, groups) */
};

/* One CP_SET_DRAW_STATE group. `pending`: updated since it last ran, so the next draw in a
 * matching mode runs it; `ran_*`: what it last ran, for the firmware's "same as last time"
 * skip (see a6xx_cp_draw.c). */
struct cp_draw_state_group {
	uint64_t addr;
	uint32_t count;     /* dwords; 0 = disabled */
	uint32_t mode_mask; /* CP_DRAW_STATE_MODE_x */
	bool pending;
	uint64_t ran_addr;
	uint32_t ran_count;
};

/* A packet as the last-packets ring keeps it. */
struct cp_packet_record {
	uint64_t iova;      /* the header */
	uint32_t dword;     /* its offset in its IB */
	uint32_t header;
	uint8_t level;      /* 1, 2, 3 */
	uint8_t kind;       /* enum cp_frame_kind */
};

#define CP_MAX_FRAMES 3u

/* A surface the 2D engine or a GMEM resolve reads or writes (a6xx_cp_surface.c). */
struct cp_surf {
	uint64_t base, pitch;        /* pitch: bytes per texel row (linear) or as TILE6_3 takes it */
	uint32_t cpp;
	bool tiled, ubwc;
	struct a6xx_tile3 t;         /* tiled */
	uint64_t flags, flag_pitch;  /* ubwc: the flag buffer */
	uint32_t ubwc_bw, ubwc_bh;   /* ubwc: texels one flag byte covers */
};

/* The CP_BLIT being executed (a6xx_cp_blit.c), decoded from the 2D registers when it began: a large
 * blit spans slices, and the register file is shared with other contexts' submits that may run
 * in between. Rows done are the packet frame's progress. */
struct cp_blit_job {
	uint64_t dst, src;           /* first byte of the rectangle's first row in each surface */
	uint64_t dst_pitch, src_pitch;
	uint32_t row_bytes, rows;
	uint32_t cpp;                /* bytes per texel */
	bool fill;                   /* solid fill with texel, else copy from src */
	uint8_t texel[16];
	/* Set when either surface is tiled, or texels are rearranged or merged: texels are then
	 * moved one at a time. */
	bool texelwise;
	uint32_t swap_rb_bytes;      /* copy: bytes per channel of R and B to exchange, or 0 */
	bool partial;                /* D24S8 write keeping the bytes set in keep[] */
	uint8_t keep[16];
	struct cp_surf dsurf, ssurf;
	uint32_t dx0, dy0, sx0, sy0, width;
};

/* How many registers the 2D engine's and the GMEM resolve engine's state span (a6xx_cp_blit.c lists
 * the ranges). */
#define CP_2D_STATE_REGS 89u

/* One submit's CP state. Zero-initialize with cp_exec_init(), then cp_exec_start_ib1() per
 * command buffer. */
struct cp_exec {
	struct cp_frame ib[CP_MAX_FRAMES]; /* [0] IB1, [1] IB2 or a draw-state group, [2] group */
	unsigned depth;          /* frames in use */
	uint64_t packets;        /* packets this submit has executed */
	uint32_t spent;          /* work units the last cp_run took (may pass its budget) */
	struct cp_fault fault;
	/* Render mode as CP_SET_MARKER left it: a CP_DRAW_STATE_MODE_x bit. */
	uint32_t render_mode;
	uint32_t marker;         /* the last CP_SET_MARKER render-mode value */
	bool in_ib1list;         /* between RM6_IB1LIST_START and _END */
	uint32_t predicate;      /* CP_REG_TEST predicate bits */
	uint32_t skip_ib2_global, skip_ib2_local;
	struct cp_draw_state_group groups[CP_SET_DRAW_STATE_MAX_GROUPS];
	uint64_t draws;
	/* Work this submit met that the model does not execute, by enum sim_unmodeled_kind. */
	struct sim_unmodeled_counts unmodeled;
	/* IB chain loop detection: chain targets seen in this submit. */
	uint64_t chain_targets[8];
	unsigned nr_chain_targets;
	bool chain_loop;         /* a chain jumped back into an IB it already chained to */
	/* The last CP_LAST_PACKETS packets begun, oldest first from last_pos. */
	struct cp_packet_record last[CP_LAST_PACKETS];
	uint32_t last_pos, last_count;
	struct cp_blit_job blit;
	/* The 2D and GMEM blit registers as this submit left them at the end of its last slice:
	 * the register file is shared, and another context's submit may run between this one's
	 * setup and its CP_BLIT or BLIT event (real a6xx runs a submit to the end before
	 * switching). */
	uint32_t regs_2d[CP_2D_STATE_REGS];
	bool regs_2d_saved;
	/* This submit's GMEM (cp_device.gmem_size bytes), allocated at its first GMEM blit. */
	uint8_t *gmem;
};

void cp_exec_init(struct cp_exec *x);
/* Frees what executing allocated (the submit's GMEM); x can be initialized again after. */
void cp_exec_fini(struct cp_exec *x);
/* Starts executing an IB1 of size_dwords (the 20-bit IB_SIZE field applies) at iova. Draw state
 * and render mode carry over from the previous command buffer of the same submit. */
void cp_exec_start_ib1(struct cp_exec *x, uint64_t iova, uint32_t size_dwords);

/* Runs up to budget work units (a packet costs 1 + its dwords, plus the dwords it moves).
 * Safe to call again after BUDGET or WAIT; after DONE or FAULT start a new IB1 first. */
enum cp_result cp_run(struct cp_device *cp, const struct cp_mem *mem, struct cp_exec *x, uint32_t budget);

/* Register reads as the CP sees them (the always-on counter is live). */
uint32_t cp_reg_read(const struct cp_device *cp, uint32_t reg);
/* CP_ALWAYS_ON_COUNTER: 19.2 MHz ticks of CLOCK_MONOTONIC. */
uint64_t cp_always_on_ticks(void);
/* Copies the IB1/IB2 base and remaining size of x into the register file (what a coredump
 * shows). */
void cp_sync_ib_regs(struct cp_device *cp, const struct cp_exec *x);
/* Name of a render mode bit ("sysmem", "gmem", "binning") for reports. */
const char *cp_render_mode_name(uint32_t mode);

#endif
