/* The PM4 validator and relocator: walks every dword an Adreno a6xx CP will read for one msm
 * submit, checks it against a policy, and produces host-private shadow copies to submit instead.
 * A pure library: no sockets, no kdev calls, no allocation per submit once warmed up.
 *
 * CONTRACT
 *
 * Input (struct pm4v_submit):
 *  - bos[]: every BO of the context, sorted by iova, non-overlapping, each with its host mapping
 *    (read-only is enough; NULL if the host cannot read it — such a BO can hold data but no
 *    commands), its id (for messages) and flags (PM4V_BO_GPU_READONLY). Checked on every call.
 *  - submit_bos[]: the submit's bo list, as indices into bos[].
 *  - cmds[] (struct ferry_msm_submit_cmd): {type, bo_index into submit_bos, byte offset, byte
 *    size}. MSM_SUBMIT_CMD_BUF and CTX_RESTORE_BUF are executed as IB1; IB_TARGET_BUF is only
 *    read if some stream points at it (as the kernel does).
 *  - relocs[] (struct ferry_msm_submit_reloc): the dword at byte submit_offset of the BO of
 *    cmds[cmd_index] (inside that cmd's range) becomes
 *        (u32)(((iova(submit_bos[bo_index]) + bo_offset) << shift) | or_value)
 *    (negative shift = right shift, |shift| >= 64 gives 0; equal offsets: the later entry wins).
 *    Relocs are applied to every shadow copy that covers that dword, never to the guest BO,
 *    and before validation, so relocated addresses are checked like any other.
 *  - a shadow allocator: alloc(ctx, size_bytes, &out) -> 0 and {iova, writable map} of
 *    size_bytes of GPU-visible memory from a pool the caller owns, or < 0. Called once per
 *    distinct stream. The iova must be 4-byte aligned. The caller should map the pool
 *    GPU-read-only (MSM_BO_GPU_READONLY) and never let the guest map it: packets whose
 *    addresses are computed at run time (shaders, CP_REG_TO_MEM_OFFSET_*, register-programmed
 *    addresses) are bounded only by the GPU page tables, which also hold the pool.
 *  - a policy (struct pm4v_policy; pm4v_policy_a6xx() fills the defaults for a GPU).
 *
 * Work: starting from each BUF / CTX_RESTORE_BUF cmd (level IB1), every stream is copied once
 * from the guest BO, a few KiB at a time, into a small scratch window, relocated, validated
 * there, and written to its shadow. The guest memory is read once per stream (a snapshot):
 * nothing the guest writes afterwards can change what was validated. Streams followed:
 * CP_INDIRECT_BUFFER and _PFD (one level deeper), CP_INDIRECT_BUFFER_CHAIN (same level),
 * CP_SET_DRAW_STATE groups (always IB2 level; no IB, chain or draw state inside them),
 * CP_SET_AMBLE pre/postambles (IB1 level). The same {iova, size, level, kind} is copied once
 * and every reference is rewritten to the copy.
 * Rules:
 *  - header type 4 or 7 with correct parity, count inside the stream (a type-4 count of 0 writes
 *    nothing, but its register must not be protected);
 *  - targets: 4-byte aligned, [iova, iova + dwords*4) inside one host-readable BO of the
 *    context (overflow-safe), IB_SIZE <= 0xFFFFF dwords, depth <= policy.max_ib_depth;
 *  - CP_COND_EXEC / CP_COND_REG_EXEC skip ranges end on a packet boundary inside the stream
 *    (else the CP would parse payload as headers);
 *  - opcodes in policy.deny (default: the packets the kernel keeps to its ringbuffer or that
 *    point at commands ferry does not follow), CP_SET_AMBLE of KMD type, CP_SET_PSEUDO_REG of
 *    the kernel's preemption registers, CP_SET_MARKER IB1LIST markers;
 *  - register writes (type 4, CP_REG_RMW, CP_MEM_TO_REG, CP_REG_WRITE, CP_SCRATCH_TO_REG,
 *    CP_COND_WRITE5 to a register) into any protected range, and register reads
 *    (CP_REG_TO_MEM, CP_REG_TO_SCRATCH, CP_REG_RMW sources, register polls and compares) from
 *    read-protected ranges;
 *  - memory operands of CP_MEM_WRITE, CP_EVENT_WRITE, CP_REG_TO_MEM, CP_MEM_TO_REG, CP_MEMCPY,
 *    CP_MEM_TO_MEM, CP_WAIT_REG_MEM, CP_WAIT_MEM_GTE, CP_COND_EXEC, CP_COND_WRITE5,
 *    CP_DRAW_INDX_OFFSET / CP_DRAW_INDX_INDIRECT index buffers, CP_DRAW_INDIRECT,
 *    CP_EXEC_CS_INDIRECT, CP_DRAW_PRED_SET and CP_SET_BIN_DATA5 lie inside one BO of the
 *    context, and writes not in a GPU_READONLY BO; so do the areas the GPU writes at an
 *    address a type-4 packet programs (policy.write_areas: a6xx VSC streams, RB_BLIT_DST).
 *    Other packets pass unchanged;
 *  - register reads by number (the read rule): only registers this submit wrote before in
 *    execution order, shared ones (counters, write-protected), and the hardware binner's
 *    per-pipe results after this submit's own binning-mode CP_SET_MODE, for a pipe whose config
 *    it wrote before the read (policy.bin_*).
 *  - bounded work: policy.max_walk_dwords dwords and policy.max_targets distinct streams.
 *
 * Output (struct pm4v_result): for each BUF / CTX_RESTORE_BUF cmd in order, {shadow iova, size,
 * type} to submit instead, and for every stream copied {shadow iova, size, guest iova, BO id and
 * offset, level} (to translate shadow addresses in fault reports back to the guest's). On rejection (-1) nothing outside shadow memory was written (the
 * caller discards this submit's shadow allocations) and *err names the packet, the BO id and
 * byte offset of its header, the level and the rule, with a formatted message such as
 * "CP_SMMU_TABLE_UPDATE at bo 3 +0x40 (IB1): privileged packet".
 *
 * A validator object is not thread-safe; use one per thread. Its buffers grow to the largest
 * submit seen and are then reused. */
#ifndef FERRY_PM4_VALIDATE_H
#define FERRY_PM4_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/hw/adreno_pm4.h"
#include "ferry/wire.h"

#define PM4V_BO_GPU_READONLY (1u << 0)

struct pm4v_bo {
	uint64_t iova;
	uint64_t size;   /* bytes */
	const void *map; /* host mapping of the whole BO, or NULL */
	uint32_t id;
	uint32_t flags;  /* PM4V_BO_* */
};

struct pm4v_submit {
	const struct pm4v_bo *bos;
	uint32_t nr_bos;
	const uint32_t *submit_bos; /* submit bo i -> index into bos[] */
	uint32_t nr_submit_bos;
	const struct ferry_msm_submit_cmd *cmds;
	uint32_t nr_cmds;
	const struct ferry_msm_submit_reloc *relocs;
	uint32_t nr_relocs;
};

struct pm4v_shadow {
	uint64_t iova;
	void *map;
};

struct pm4v_shadow_allocator {
	int (*alloc)(void *ctx, uint32_t size_bytes, struct pm4v_shadow *out);
	void *ctx;
};

/* A register range [first, last]; read_protected: reads are denied too (CP_PROTECT "NORDWR"),
 * otherwise only writes ("RDONLY"). */
struct pm4v_reg_range {
	uint32_t first, last;
	bool read_protected;
};

struct pm4v_policy {
	uint32_t max_ib_depth;    /* 2: IB1 -> IB2 */
	uint32_t max_targets;     /* distinct streams per submit, top-level cmds included */
	uint64_t max_walk_dwords; /* dwords copied and walked per submit */
	const struct pm4v_reg_range *protected_regs; /* copied by pm4v_create */
	uint32_t nr_protected_regs;
	/* Registers any context may read although it did not write them: GPU-global counters
	 * that hold no context's data (copied by pm4v_create). Write-protected registers are
	 * readable too: no guest can have put anything in them. */
	const struct pm4v_reg_range *shared_regs;
	uint32_t nr_shared_regs;
	/* The hardware binner's per-pipe result registers (nr_bin_result_arrays arrays of
	 * nr_bin_pipes registers from bin_results; a6xx: VSC_STATE, VSC_PRIM_STRM_SIZE,
	 * VSC_DRAW_STRM_SIZE) and the pipes' config registers (bin_pipe_config + pipe). Besides
	 * what the submit wrote there itself, the read rule admits pipe i's results after this
	 * submit's own binning-mode CP_SET_MODE when pipe i's config was written before the read:
	 * only what its own binning pass computed for a pipe it set up. nr_bin_pipes 0: none. */
	uint32_t bin_results, nr_bin_result_arrays, bin_pipe_config, nr_bin_pipes;
	/* Memory the GPU writes at an address programmed into registers (a6xx: the VSC streams and
	 * stream sizes). A type-4 write that sets an area's address (lo and hi in one packet) is
	 * checked as a memory operand then: [addr, addr + extent) inside one writable BO, where
	 * extent is `bytes`, or with a pitch register (written in the same packet) (count - 1)
	 * pitches plus the last one's LIMIT + overrun (LIMIT in the same packet; else a pitch).
	 * An address set any other way (CP_MEM_TO_REG ...) is bounded by the page tables only. */
	struct pm4v_write_area {
		const char *name;
		uint32_t addr;     /* lo register; hi is addr + 1 */
		uint32_t pitch;    /* register, 0 for a fixed extent */
		uint32_t limit;    /* register, 0 for none */
		uint32_t count;    /* pitches */
		uint32_t overrun;  /* bytes written past LIMIT */
		uint32_t bytes;    /* fixed extent */
		bool zero_unused;  /* address 0 means "not used" (a flag buffer of a surface without) */
	} write_areas[6];
	uint32_t nr_write_areas;
	uint32_t deny[(PM4_TYPE7_OPCODE_MASK + 1) / 32]; /* bitmap of type-7 opcodes rejected as privileged */
};

/* Defaults for an a6xx GPU (gpu_id as MSM_PARAM_GPU_ID, e.g. 630, 660): the kernel's CP_PROTECT
 * table for that part, depth 2, 16 Mi dwords, 256 Ki streams, the default deny list. */
void pm4v_policy_a6xx(struct pm4v_policy *policy, uint32_t gpu_id);
static inline void pm4v_policy_deny(struct pm4v_policy *p, uint32_t opcode, bool deny)
{
	if (deny)
		p->deny[(opcode & PM4_TYPE7_OPCODE_MASK) >> 5] |= 1u << (opcode & 31);
	else
		p->deny[(opcode & PM4_TYPE7_OPCODE_MASK) >> 5] &= ~(1u << (opcode & 31));
}

/* The kernel's CP_PROTECT table for gpu_id (see a6xx_protect.c); *count set. */
const struct pm4v_reg_range *pm4v_a6xx_protect_table(uint32_t gpu_id, uint32_t *count);

enum pm4v_rule {
	PM4V_OK = 0,
	PM4V_ERR_INPUT,          /* BO table unsorted/overlapping, bad submit bo index */
	PM4V_ERR_CMD,            /* cmd type, alignment, size or range */
	PM4V_ERR_RELOC,          /* reloc index, alignment or range */
	PM4V_ERR_BAD_TYPE,       /* header neither type 4 nor type 7 */
	PM4V_ERR_PARITY,
	PM4V_ERR_COUNT_OVERRUN,  /* payload runs past the end of the stream */
	PM4V_ERR_MALFORMED,      /* payload too short / inconsistent for a packet ferry knows */
	PM4V_ERR_PRIVILEGED,
	PM4V_ERR_PROTECTED_REG,
	PM4V_ERR_UNWRITTEN_REG,  /* read of a register this submit did not write first */
	PM4V_ERR_TARGET,         /* IB / draw-state target not inside one readable context BO */
	PM4V_ERR_IB_SIZE,        /* > 0xFFFFF dwords */
	PM4V_ERR_DEPTH,          /* nesting too deep or not allowed at this level */
	PM4V_ERR_ADDRESS,        /* memory operand outside the context's BOs */
	PM4V_ERR_READONLY,       /* write into a GPU_READONLY BO */
	PM4V_ERR_COND_SKIP,      /* conditional skip not ending on a packet boundary */
	PM4V_ERR_LIMIT,          /* work caps */
	PM4V_ERR_SHADOW,         /* shadow allocator failed or returned a misaligned iova */
	PM4V_ERR_NOMEM,
};

const char *pm4v_rule_text(enum pm4v_rule rule);

#define PM4V_NO_OPCODE 0xffffffffu

struct pm4v_error {
	enum pm4v_rule rule;
	uint32_t pkt_type;     /* 4, 7, or 0 when the error is not about a packet */
	uint32_t opcode;       /* type-7 opcode, or PM4V_NO_OPCODE */
	uint32_t header;       /* the raw header dword */
	uint32_t bo_id;        /* BO holding the stream */
	uint64_t offset;       /* byte offset of the header in that BO */
	uint32_t level;        /* 1 = IB1, 2 = IB2 */
	bool draw_state;       /* the stream is a draw-state group */
	uint32_t reg;          /* offending register (PROTECTED_REG) */
	uint64_t addr;         /* offending address (TARGET / ADDRESS / READONLY) */
	char msg[224];
};

struct pm4v_out_cmd {
	uint64_t iova; /* shadow */
	uint32_t size; /* bytes */
	uint32_t type; /* MSM_SUBMIT_CMD_BUF or CTX_RESTORE_BUF */
};

/* One stream copied into a shadow: what the caller needs to name, in a fault report, the guest's
 * address for a shadow address the GPU reports (same layout, so the same offset in both). */
struct pm4v_stream_copy {
	uint64_t shadow_iova;
	uint32_t size;        /* bytes */
	uint32_t bo_id;       /* the guest BO holding the stream */
	uint64_t guest_iova;  /* that BO's iova + bo_offset */
	uint64_t bo_offset;   /* bytes */
	uint8_t level;        /* 1 = IB1, 2 = IB2 */
	bool draw_state;      /* a CP_SET_DRAW_STATE group */
};

struct pm4v_result {
	const struct pm4v_out_cmd *cmds; /* owned by the validator, valid until its next call */
	uint32_t nr_cmds;
	uint32_t nr_streams;      /* shadow copies made */
	uint64_t dwords;          /* dwords copied and walked */
	uint32_t relocs_applied;
	const struct pm4v_stream_copy *streams; /* nr_streams entries, in the order copied; owned by
						 * the validator, valid until its next call */
};

struct pm4v_validator;

/* NULL on allocation failure or a policy with a bad protected range (first > last). */
struct pm4v_validator *pm4v_create(const struct pm4v_policy *policy);
void pm4v_destroy(struct pm4v_validator *v);

/* 0: *result filled. -1: rejected, *err filled (result untouched). */
int pm4v_validate(struct pm4v_validator *v, const struct pm4v_submit *submit,
		  const struct pm4v_shadow_allocator *alloc, struct pm4v_result *result,
		  struct pm4v_error *err);

/* The same work in bounded steps, so that one submit's validation cannot hold its caller for
 * long: each call walks about budget_dwords dwords (at least one packet; stream copies are
 * charged an eighth of their size), copies in from the guest (still once per dword) and out to
 * the shadow only about that much, and returns 1 when the submit is not done yet. The caller
 * then calls again, any time later, with a submit of the same contents and the same allocator
 * (the structs may be new copies) until it gets 0 or -1 as above; between calls the validator
 * must not be used for anything else, and the BOs, their mappings and the shadows allocated so
 * far must stay as they were. budget_dwords 0 = no limit. pm4v_validate forgets a stopped
 * submit and starts afresh; so does pm4v_validate_cancel (the caller discards the shadows). */
int pm4v_validate_step(struct pm4v_validator *v, const struct pm4v_submit *submit,
		       const struct pm4v_shadow_allocator *alloc, uint64_t budget_dwords,
		       struct pm4v_result *result, struct pm4v_error *err);
void pm4v_validate_cancel(struct pm4v_validator *v);
bool pm4v_validate_in_progress(const struct pm4v_validator *v);

#endif
