/* The Adreno a6xx command processor (CP) model: executes PM4 from GPU memory, resumably, in
 * slices with a work budget. Memory is reached only through the caller's address-space callback;
 * the register file and packet statistics are GPU-global (struct cp_device), the execution state
 * is per submit (struct cp_exec). Shaders, draws and rasterization are not modeled. */
#ifndef FERRY_SIM_CP_H
#define FERRY_SIM_CP_H

#include <stdbool.h>
#include <stdint.h>

/* Type-4 headers decode 19-bit register offsets; the file covers all of them. */
#define CP_NUM_REGS 0x80000u

struct cp_device {
	uint32_t *regs;          /* CP_NUM_REGS entries */
	uint64_t packets;        /* packets executed (every type) */
	uint64_t type4_packets;
	uint64_t skipped[128];   /* type-7 packets skipped unexecuted, by opcode */
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
	CP_RESULT_WAIT,   /* a CP_WAIT_REG_MEM is not satisfied yet; retry later */
	CP_RESULT_FAULT,  /* stopped: see cp_exec.fault */
};

enum cp_fault_kind {
	CP_FAULT_NONE,
	CP_FAULT_PAGEFAULT, /* GPU access to an unmapped/read-only iova */
	CP_FAULT_OPCODE,    /* CP opcode error: bad header/parity, malformed packet, IB nesting */
	CP_FAULT_HANG,      /* set by the scheduler (hangcheck), never by cp_run */
};

struct cp_fault {
	enum cp_fault_kind kind;
	const char *reason;     /* CP_FAULT_OPCODE / HANG: what went wrong */
	uint64_t iova;          /* PAGEFAULT: the faulting address */
	bool write;
	const char *type;       /* PAGEFAULT: "TRANSLATION" or "PERMISSION" */
	/* Where the CP was: the packet being executed. */
	unsigned ib_level;      /* 1 or 2 (0: no IB was running) */
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
	uint32_t size; /* dwords */
	uint32_t pos;  /* dword offset of the next packet */
};

/* One submit's CP state. Zero-initialize, then cp_exec_start_ib1() per command buffer. */
struct cp_exec {
	struct cp_frame ib[2];  /* [0] IB1, [1] IB2 */
	unsigned depth;         /* frames in use */
	uint64_t pkt_progress;  /* dwords done inside the current multi-slice packet (CP_MEMCPY) */
	uint64_t packets;       /* packets this submit has executed */
	struct cp_fault fault;
};

/* Starts executing an IB1 of size_dwords (the 20-bit IB_SIZE field applies) at iova. */
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

#endif
