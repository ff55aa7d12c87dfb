/* Internals shared by the validator's files: the validator object, the stream table and the
 * helpers the packet walk uses to resolve targets, check addresses and report errors. */
#ifndef FERRY_PM4V_INTERNAL_H
#define FERRY_PM4V_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "pm4_validate.h"

enum pm4v_kind { PM4V_KIND_IB = 0, PM4V_KIND_DRAW_STATE = 1 };

/* One stream the CP reads: a top-level cmd, an IB / amble target or a draw-state group. */
struct pm4v_stream {
	uint64_t iova;        /* guest GPU address: the dedup key with dwords, level, kind */
	uint32_t dwords;
	uint8_t level;        /* 1 = IB1, 2 = IB2 */
	uint8_t kind;         /* enum pm4v_kind */
	uint32_t bo;          /* index into submit->bos */
	uint64_t bo_offset;   /* bytes */
	uint64_t shadow_iova;
	uint32_t *shadow_map;
	/* Where it runs, as a point in the submit's execution order (pm4v_exec_point): a
	 * top-level cmd's stream starts at (its index + 1, 0); a stream reached from another
	 * runs at the packet that points at it (or later, for draw state), so it gets that
	 * packet's point in the top-level stream it descends from. */
	uint64_t origin;
	uint32_t top;         /* 1 + index of a top-level cmd stream, 0 for any other */
};

/* A stream's identity besides its address, in one word a lookup compares at once. */
static inline uint64_t pm4v_stream_key(uint32_t dwords, unsigned level, unsigned kind)
{
	return dwords | (uint64_t)(level & 0xffu) << 32 | (uint64_t)(kind & 0xffu) << 40;
}

/* A slot of the stream table: the stream's address and key and its shadow next to its index,
 * so a lookup reads one slot. Live iff gen == the validator's gen (no clearing per submit). */
struct pm4v_slot {
	uint64_t iova;
	uint64_t key; /* pm4v_stream_key */
	uint32_t gen;
	uint32_t idx;
	uint64_t shadow_iova;
};

/* Execution-order key of dword pos of top-level stream top (1-based). */
static inline uint64_t pm4v_exec_point(uint32_t top, uint32_t pos)
{
	return (uint64_t)top << 32 | pos;
}

/* Registers whose first write a submit's register reads are checked against. */
#define PM4V_NR_TRACKED_REGS (PM4_PAYLOAD_REG_MASK + 1u)
/* One more slot after the registers: the start of this submit's hardware binning pass. */
#define PM4V_BINNING_SLOT PM4V_NR_TRACKED_REGS
#define PM4V_NR_WRITE_SLOTS (PM4V_NR_TRACKED_REGS + 1u)
struct pm4v_reg_write {
	uint64_t point;
	uint32_t gen;
	uint32_t local_pos, local_gen;
};

/* A reloc resolved to its value, sorted by (bo, offset, order). */
struct pm4v_reloc_ref {
	uint32_t bo;     /* index into submit->bos of the patched BO */
	uint32_t offset; /* byte offset in that BO */
	uint32_t order;  /* index in the submit, so equal offsets apply in submit order */
	uint32_t value;
};

/* A conditional skip whose target the walk has not reached yet. */
#define PM4V_MAX_OPEN_SKIPS 32u
struct pm4v_open_skip {
	uint32_t target; /* dword index where the CP resumes when it skips */
	uint32_t pos;    /* the conditional packet, for the report */
	uint32_t header;
};

/* Where a walk stopped at its budget continues (pm4v_validate_step). */
struct pm4v_walk_pos {
	uint32_t pos;
	uint32_t nr_skips;
	struct pm4v_open_skip skips[PM4V_MAX_OPEN_SKIPS];
	bool begun;   /* the stream's walk started (zeroed: a new stream) */
};

/* A protected register interval [first, last], merged and sorted. */
struct pm4v_interval {
	uint32_t first, last;
};

/* A summary of an interval list: one bit per block of 64 registers that any interval touches,
 * for registers below 2^20 (every type-4 register and count). A clear bit answers "none" without
 * the search; a set one sends the range to the exact search. */
#define PM4V_REG_BLOCK_SHIFT 6u
#define PM4V_SUMMARY_REGS (1u << 20)
#define PM4V_SUMMARY_WORDS (PM4V_SUMMARY_REGS >> PM4V_REG_BLOCK_SHIFT >> 6)

#define PM4V_MEMO_SHIFT 8u
#define PM4V_MEMO_SLOTS (1u << PM4V_MEMO_SHIFT)
struct pm4v_memo {
	uint32_t header, stream_gen;
};

static inline uint32_t pm4v_memo_slot(uint32_t header)
{
	return (header * 0x9e3779b1u) >> (32u - PM4V_MEMO_SHIFT);
}

struct pm4v_validator {
	struct pm4v_policy policy;
	struct pm4v_interval *wprot, *rprot; /* write- / read-denied registers */
	uint32_t nr_wprot, nr_rprot;
	struct pm4v_interval *shared; /* readable without a write first (incl. write-protected) */
	uint32_t nr_shared;
	uint64_t wprot_summary[PM4V_SUMMARY_WORDS], rprot_summary[PM4V_SUMMARY_WORDS];
	/* the same summary of policy.write_areas' lo registers */
	uint64_t area_summary[PM4V_SUMMARY_WORDS];
	/* wprot_summary | area_summary: a type-4 write clear in it needs neither search */
	uint64_t type4_summary[PM4V_SUMMARY_WORDS];
	/* type-7 opcodes the walk found to have no rule (pm4_stream.c's pkt7): learned, as the
	 * policy is fixed for the validator's life */
	uint32_t plain_ops[(PM4_TYPE7_OPCODE_MASK + 1) / 32];
	/* Headers the walk of stream stream_gen met that need nothing again but their length:
	 * parity good, no rule to apply, every register they write noted (direct-mapped by
	 * pm4v_memo_slot; cleared when stream_gen wraps). */
	struct pm4v_memo memo[PM4V_MEMO_SLOTS];
	/* Per register, what read_regs checks a read against (no clearing per submit or stream):
	 * the execution point of this submit's first write that certainly runs (top-level stream,
	 * outside conditional ranges), valid iff gen == the validator's gen; and
	 * the position of the first such write in the stream being walked, valid iff local_gen ==
	 * stream_gen, so a stream that is not top-level may read back what it wrote itself. */
	struct pm4v_reg_write *regs; /* PM4V_NR_WRITE_SLOTS */
	uint32_t stream_gen;

	struct pm4v_stream *streams;
	uint32_t nr_streams, cap_streams;
	struct pm4v_slot *slots; /* open-addressing table of the streams */
	uint32_t slot_mask;
	uint32_t gen;

	/* A window on the stream being validated, in cached host memory: dwords [win_base,
	 * copied) of it. Small, so the walk and the copy out read what the copy in just wrote
	 * while it is still in the L1 cache; it holds at most a partial packet and a chunk. */
	uint32_t *scratch;

	struct pm4v_reloc_ref *relocs;
	uint32_t nr_relocs, cap_relocs;

	struct pm4v_out_cmd *out;
	uint32_t cap_out;

	struct pm4v_stream_copy *copies; /* the result's streams[] */
	uint32_t cap_copies;

	/* a submit stopped at its budget (pm4v_validate_step): what the next call continues */
	bool resuming;
	bool stream_open;       /* streams[next_stream] is open, walked up to walk_at */
	uint32_t copied;        /* dwords of it copied in from the guest (and relocated) */
	uint32_t published;     /* dwords of it copied out to its shadow */
	uint32_t win_base;      /* dword of it in scratch[0] */
	uint32_t next_stream;
	uint32_t nr_out;
	struct pm4v_walk_pos walk_at;

	/* per call */
	const struct pm4v_submit *in;
	const struct pm4v_shadow_allocator *alloc;
	struct pm4v_error *err;
	uint64_t walked;
	uint32_t relocs_applied;
	uint32_t bo_hint, target_hint; /* the BOs the last pm4v_find_bo_hint calls found */
};

/* Where a packet sits, for error reports. */
struct pm4v_where {
	const struct pm4v_stream *stream;
	uint32_t pos;    /* dword index of the header in the stream */
	uint32_t header;
};

/* pm4_validate.c */
/* Finds or creates the shadow for a stream at iova of dwords (> 0) dwords; returns its shadow
 * iova in *shadow_iova, or -1 with the error set (at w). */
int pm4v_target(struct pm4v_validator *v, const struct pm4v_where *w, uint64_t iova,
		uint32_t dwords, unsigned level, enum pm4v_kind kind, uint64_t *shadow_iova);
/* Index into submit->bos of the BO holding [addr, addr + len), or -1. len > 0. */
int pm4v_find_bo(const struct pm4v_submit *in, uint64_t addr, uint64_t len);

/* One multiply, as the walk looks up two draw-state groups per draw: bits 32 and up of the
 * product, which mix the address's bits below them with the key's dwords (rotated to bit 16). */
static inline uint32_t pm4v_stream_hash(uint64_t iova, uint64_t key)
{
	return (uint32_t)(((iova ^ (key << 16 | key >> 48)) * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The live slot of stream (iova, key), or NULL with *free_slot where it would go. */
static inline const struct pm4v_slot *pm4v_slot_find(const struct pm4v_validator *v, uint64_t iova, uint64_t key,
						     uint32_t *free_slot)
{
	uint32_t h = pm4v_stream_hash(iova, key) & v->slot_mask;
	for (; v->slots[h].gen == v->gen; h = (h + 1) & v->slot_mask)
		if (v->slots[h].iova == iova && v->slots[h].key == key)
			return &v->slots[h];
	*free_slot = h;
	return NULL;
}

/* pm4v_target's answer for a stream already in this submit's table (then true), inline for the
 * walk; false sends the caller to pm4v_target, which checks and adds it. */
static inline bool pm4v_target_known(const struct pm4v_validator *v, uint64_t iova, uint32_t dwords, unsigned level,
				     enum pm4v_kind kind, uint64_t *shadow_iova)
{
	uint32_t unused;
	const struct pm4v_slot *s = pm4v_slot_find(v, iova, pm4v_stream_key(dwords, level, kind), &unused);
	if (s)
		*shadow_iova = s->shadow_iova;
	return s != NULL;
}

/* pm4v_find_bo on v->in, trying the BO the previous lookup through *hint found first: BOs do not
 * overlap, so one holding the range is the one the search would find. Memory operands and stream
 * targets keep a hint each (v->bo_hint, v->target_hint): a draw's index buffer and its new
 * draw-state groups sit in different BOs. */
static inline int pm4v_find_bo_hint(struct pm4v_validator *v, uint32_t *hint, uint64_t addr, uint64_t len)
{
	const struct pm4v_submit *in = v->in;
	if (*hint < in->nr_bos && len) {
		const struct pm4v_bo *bo = &in->bos[*hint];
		if (addr >= bo->iova && addr - bo->iova < bo->size && len <= bo->size - (addr - bo->iova))
			return (int)*hint;
	}
	int i = pm4v_find_bo(in, addr, len);
	if (i >= 0)
		*hint = (uint32_t)i;
	return i;
}

/* pm4_stream.c: validates stream s held in scratch (relocs applied), rewriting targets, from
 * *at (zeroed for a new stream). d holds the copy of dwords [base, avail) of the stream (d[0] is
 * dword base; *at's position is not below base): the walk stops before a packet that does not
 * lie whole in it. With budget, stops at the first packet boundary after *budget dwords were
 * walked (counting them down). Stopped, it saves where in *at and returns 1; else 0 at the end
 * of the stream, -1 on a rejection. */
int pm4v_walk(struct pm4v_validator *v, const struct pm4v_stream *s, uint32_t *d, uint32_t base,
	      uint32_t avail, struct pm4v_walk_pos *at, uint64_t *budget);

/* pm4v_error.c: fills v->err for a packet at w (w may be NULL for errors about cmds or relocs,
 * then bo_index names the BO or is -1); detail is printf-style, may be NULL. Returns -1. */
int pm4v_fail(struct pm4v_validator *v, const struct pm4v_where *w, enum pm4v_rule rule,
	      int bo_index, const char *detail, ...) __attribute__((format(printf, 5, 6)));

#endif
