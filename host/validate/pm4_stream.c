/* The packet walk over one stream (already copied to host memory and relocated): header,
 * parity and count checks, the per-packet rules (privilege, protected registers, memory
 * operands, conditional skips) and the rewriting of command-stream pointers to shadow copies.
 * A walk given a budget stops at a packet boundary and continues there on the next call. */
#include <inttypes.h>
#include <string.h>

#include "ferry/hw/addr64.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"
#include "pm4v_internal.h"

#define MAX_OPEN_SKIPS PM4V_MAX_OPEN_SKIPS
#define PENDING_WRITES 16u

struct walk {
	struct pm4v_validator *v;
	const struct pm4v_stream *s;
	uint32_t n;
	struct pm4v_where w; /* the packet being checked */
	struct pm4v_open_skip skips[MAX_OPEN_SKIPS];
	uint32_t nr_skips;
	/* A stream that is not top-level notes its register writes only for its own later reads
	 * (written_before): they wait here, in order, until a read or a stop of the walk needs them
	 * in v->regs, and are dropped unread when the stream ends - most draw-state groups write
	 * registers and read none. */
	struct { uint32_t first, count, pos; } pending[PENDING_WRITES];
	uint32_t nr_pending;
};

static int need(struct walk *k, uint32_t cnt, uint32_t min)
{
	if (cnt >= min)
		return 0;
	return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1, "%u payload dwords, %u needed", cnt,
			 min);
}

/* check_mem past its inline test: the search, and the reports. */
static int check_mem_slow(struct walk *k, uint64_t addr, uint64_t len, bool write, const char *what)
{
	if (!len)
		return 0;
	const struct pm4v_submit *in = k->v->in;
	int bo = pm4v_find_bo_hint(k->v, &k->v->bo_hint, addr, len);
	if (bo < 0) {
		pm4v_fail(k->v, &k->w, PM4V_ERR_ADDRESS, -1, "%s 0x%" PRIx64 " + 0x%" PRIx64, what,
			  addr, len);
		k->v->err->addr = addr;
		return -1;
	}
	if (write && (in->bos[bo].flags & PM4V_BO_GPU_READONLY)) {
		pm4v_fail(k->v, &k->w, PM4V_ERR_READONLY, -1, "%s 0x%" PRIx64 " in bo %u", what, addr,
			  in->bos[bo].id);
		k->v->err->addr = addr;
		return -1;
	}
	return 0;
}

/* Memory operand [addr, addr + len) read or written by the CP. Most land in the BO the previous
 * one did (pm4v_find_bo_hint): that answer inline, the rest in check_mem_slow. */
static inline int check_mem(struct walk *k, uint64_t addr, uint64_t len, bool write, const char *what)
{
	const struct pm4v_submit *in = k->v->in;
	uint32_t hint = k->v->bo_hint;
	if (hint < in->nr_bos) {
		const struct pm4v_bo *bo = &in->bos[hint];
		if (addr >= bo->iova && addr - bo->iova < bo->size && len <= bo->size - (addr - bo->iova) &&
		    !(write && (bo->flags & PM4V_BO_GPU_READONLY)))
			return 0;
	}
	return check_mem_slow(k, addr, len, write, what);
}

/* First register of [first, last] inside one of the sorted disjoint intervals, if any. */
static bool hits(const struct pm4v_interval *iv, uint32_t n, uint32_t first, uint32_t last,
		 uint32_t *reg)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* first interval ending at or after first */
		uint32_t mid = lo + (hi - lo) / 2;
		if (iv[mid].last < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || iv[lo].first > last)
		return false;
	*reg = iv[lo].first > first ? iv[lo].first : first;
	return true;
}

/* Whether the summary rules out every register of [first, last]. */
static inline bool summary_clear(const uint64_t *summary, uint32_t first, uint32_t last)
{
	if (last >= PM4V_SUMMARY_REGS)
		return false;
	for (uint32_t b = first >> PM4V_REG_BLOCK_SHIFT; b <= last >> PM4V_REG_BLOCK_SHIFT; b++)
		if (summary[b >> 6] & (1ull << (b & 63)))
			return false;
	return true;
}

static int check_regs(struct walk *k, uint32_t first, uint32_t count, bool write)
{
	const struct pm4v_validator *v = k->v;
	uint32_t reg;
	/* No overflow: first <= PM4_TYPE4_REG_DECODE_MASK, count <= 0x1000. */
	uint32_t last = first + (count ? count - 1 : 0);
	if (summary_clear(write ? v->wprot_summary : v->rprot_summary, first, last))
		return 0;
	if (!hits(write ? v->wprot : v->rprot, write ? v->nr_wprot : v->nr_rprot, first, last, &reg))
		return 0;
	pm4v_fail(k->v, &k->w, PM4V_ERR_PROTECTED_REG, -1, "%s 0x%05x", write ? "write to" : "read of",
		  reg);
	k->v->err->reg = reg;
	return -1;
}

/* Register writes [first, first + count) by the packet being checked, when they certainly run
 * before everything after them in the submit: in a top-level stream, outside every range a
 * condition may skip (a chain is always a stream's last packet). Only those make a register
 * readable (read_regs). */
static void note_slot(struct walk *k, uint32_t slot)
{
	struct pm4v_validator *v = k->v;
	struct pm4v_reg_write *w = &v->regs[slot];
	if (w->local_gen != v->stream_gen) {
		w->local_gen = v->stream_gen;
		w->local_pos = k->w.pos;
	}
	if (k->s->top && w->gen != v->gen) {
		w->gen = v->gen;
		w->point = pm4v_exec_point(k->s->top, k->w.pos);
	}
}

/* The local half of note_slot for registers [first, first + count) written at pos (first <
 * PM4V_NR_TRACKED_REGS; no overflow: first < 2^18, count <= 0x1000). */
static void note_local(struct pm4v_validator *v, uint32_t first, uint32_t count, uint32_t pos)
{
	uint32_t end = count < PM4V_NR_TRACKED_REGS - first ? first + count : PM4V_NR_TRACKED_REGS;
	uint32_t sgen = v->stream_gen;
	for (uint32_t r = first; r < end; r++) {
		struct pm4v_reg_write *w = &v->regs[r];
		if (w->local_gen != sgen) {
			w->local_gen = sgen;
			w->local_pos = pos;
		}
	}
}

/* The pending writes into v->regs, in the order they were made (the first one counts). */
static void flush_pending(struct walk *k)
{
	for (uint32_t i = 0; i < k->nr_pending; i++)
		note_local(k->v, k->pending[i].first, k->pending[i].count, k->pending[i].pos);
	k->nr_pending = 0;
}

static inline void note_writes(struct walk *k, uint32_t first, uint32_t count)
{
	if (k->nr_skips || first >= PM4V_NR_TRACKED_REGS)
		return;
	if (!k->s->top) {
		if (k->nr_pending == PENDING_WRITES)
			flush_pending(k);
		k->pending[k->nr_pending].first = first;
		k->pending[k->nr_pending].count = count;
		k->pending[k->nr_pending].pos = k->w.pos;
		k->nr_pending++;
		return;
	}
	/* note_slot for each register, its invariants hoisted (no overflow: first < 2^18,
	 * count <= 0x1000) */
	struct pm4v_validator *v = k->v;
	uint32_t end = count < PM4V_NR_TRACKED_REGS - first ? first + count : PM4V_NR_TRACKED_REGS;
	uint32_t sgen = v->stream_gen, pos = k->w.pos;
	uint32_t gen = v->gen;
	uint64_t point = pm4v_exec_point(k->s->top, pos);
	for (uint32_t r = first; r < end; r++) {
		struct pm4v_reg_write *w = &v->regs[r];
		if (w->local_gen != sgen) {
			w->local_gen = sgen;
			w->local_pos = pos;
		}
		if (w->gen != gen) {
			w->gen = gen;
			w->point = point;
		}
	}
}

/* Whether register r (or PM4V_BINNING_SLOT) certainly holds a value this submit put there
 * before the packet being checked: a write earlier in execution order (see note_writes), or
 * earlier in this stream. */
static bool written_before(const struct walk *k, uint32_t r)
{
	const struct pm4v_validator *v = k->v;
	if (r >= PM4V_NR_WRITE_SLOTS)
		return false;
	uint64_t point = k->s->top ? pm4v_exec_point(k->s->top, k->w.pos) : k->s->origin;
	const struct pm4v_reg_write *w = &v->regs[r];
	return (w->gen == v->gen && w->point < point) || (w->local_gen == v->stream_gen && w->local_pos < k->w.pos);
}

/* The one rule for every packet that reads registers by number (copies them to memory, polls,
 * tests or combines them): not read-protected, and either shared (a GPU-global counter, or
 * write-protected so no guest can have put anything there) or written by this submit earlier
 * in execution order. Registers keep what the last context wrote - the kernel does not reset
 * them between processes - so without the last condition one context could read another's
 * state (CP_SCRATCH, render state) back into its memory. */
static int read_regs(struct walk *k, uint32_t first, uint32_t count)
{
	if (check_regs(k, first, count, false))
		return -1;
	if (k->nr_pending)
		flush_pending(k);
	const struct pm4v_validator *v = k->v;
	const struct pm4v_policy *p = &v->policy;
	uint32_t last = first + (count ? count - 1 : 0), reg;
	uint64_t results = (uint64_t)p->nr_bin_result_arrays * p->nr_bin_pipes;
	for (uint32_t r = first; r <= last; r++) {
		if (hits(v->shared, v->nr_shared, r, r, &reg))
			continue;
		/* A binner result: what this submit wrote there itself, or what its own binning pass
		 * computed for a pipe it configured. */
		bool bin_result = r >= p->bin_results && r - p->bin_results < results;
		if (written_before(k, r) ||
		    (bin_result && written_before(k, PM4V_BINNING_SLOT) &&
		     written_before(k, p->bin_pipe_config + (r - p->bin_results) % p->nr_bin_pipes)))
			continue;
		pm4v_fail(k->v, &k->w, PM4V_ERR_UNWRITTEN_REG, -1,
			  "read of 0x%05x: it holds whatever the GPU's last context left there", r);
		k->v->err->reg = r;
		return -1;
	}
	return 0;
}

/* The poll source of CP_WAIT_REG_MEM / CP_COND_WRITE5 (dw0 POLL; POLL_ADDR an address or register):
 * memory, or - for POLL_REGISTER, and for POLL_SCRATCH and POLL_ON_CHIP, which the CP model
 * also reads as the register in dw1 - a register read under read_regs. */
static int poll_source(struct walk *k, const uint32_t *p)
{
	if (CP_WAIT_REG_MEM_0_GET_POLL(p[0]) == POLL_MEMORY)
		return check_mem(k, hw_addr64_at(p + CP_WAIT_REG_MEM_POLL_ADDR_DW), 4, false, "POLL_ADDR");
	return read_regs(k, p[CP_WAIT_REG_MEM_POLL_ADDR_DW] & PM4_PAYLOAD_REG_MASK, 1);
}

/* The CP continues at after + dwords when the condition fails: that must be a packet start. */
static int open_skip(struct walk *k, uint32_t after, uint32_t dwords)
{
	uint64_t target = (uint64_t)after + dwords;
	if (target > k->n)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_COND_SKIP, -1,
				 "skips %u dwords, past the end of the stream", dwords);
	if (!dwords)
		return 0;
	if (k->nr_skips == MAX_OPEN_SKIPS)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_LIMIT, -1, "more than %u open conditional ranges",
				 MAX_OPEN_SKIPS);
	k->skips[k->nr_skips++] = (struct pm4v_open_skip){ (uint32_t)target, k->w.pos, k->w.header };
	return 0;
}

/* Called at each packet start pos (and at the stream end): closes the skips ending here and
 * rejects those that ended inside the previous packet. */
static int close_skips(struct walk *k, uint32_t pos)
{
	for (uint32_t i = 0; i < k->nr_skips;) {
		struct pm4v_open_skip *o = &k->skips[i];
		if (o->target > pos) {
			i++;
			continue;
		}
		if (o->target < pos) {
			struct pm4v_where w = { k->s, o->pos, o->header };
			return pm4v_fail(k->v, &w, PM4V_ERR_COND_SKIP, -1,
					 "resumes at dword %u, inside a packet", o->target);
		}
		*o = k->skips[--k->nr_skips];
	}
	return 0;
}

/* A type-4 write of values[0..cnt) from register first that sets a write area's address:
 * checked as the memory operand the GPU will write (pm4v_policy.write_areas). */
static int write_areas(struct walk *k, uint32_t first, uint32_t cnt, const uint32_t *values)
{
	const struct pm4v_policy *p = &k->v->policy;
	/* the loop below takes an area only if first <= addr <= first + cnt - 2 */
	if (cnt < 2 || summary_clear(k->v->area_summary, first, first + cnt - 2u))
		return 0;
	for (uint32_t i = 0; i < p->nr_write_areas && i < sizeof(p->write_areas) / sizeof(p->write_areas[0]); i++) {
		const struct pm4v_write_area *a = &p->write_areas[i];
		/* no overflow: first <= PM4_TYPE4_REG_DECODE_MASK, cnt < 2^7 */
		if (a->addr < first || a->addr + 1 >= first + cnt)
			continue;
		uint64_t addr = hw_addr64_at(values + (a->addr - first));
		if (!addr && a->zero_unused)
			continue;
		uint64_t extent = a->bytes ? a->bytes : 1;
		if (a->pitch && a->pitch >= first && a->pitch < first + cnt && a->count) {
			uint64_t pitch = values[a->pitch - first];
			bool limit = a->limit && a->limit >= first && a->limit < first + cnt;
			extent = (a->count - 1) * pitch + (limit ? (uint64_t)values[a->limit - first] + a->overrun : pitch);
		}
		if (check_mem(k, addr, extent ? extent : 1, true, a->name))
			return -1;
	}
	return 0;
}

static int ib(struct walk *k, uint32_t op, uint32_t *p, uint32_t cnt)
{
	const struct pm4v_stream *s = k->s;
	if (cnt != CP_INDIRECT_BUFFER_LEN)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1, "%u payload dwords, %u expected",
				 cnt, CP_INDIRECT_BUFFER_LEN);
	if (s->kind == PM4V_KIND_DRAW_STATE)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_DEPTH, -1, "not allowed in a draw-state group");
	uint32_t size = p[CP_INDIRECT_BUFFER_SIZE_DW];
	if (size > CP_INDIRECT_BUFFER_2_SIZE_MASK)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_IB_SIZE, -1, "0x%x dwords", size);
	unsigned level = op == CP_INDIRECT_BUFFER_CHAIN ? s->level : s->level + 1u;
	if (level > k->v->policy.max_ib_depth)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_DEPTH, -1, "IB%u (at most IB%u)", level,
				 k->v->policy.max_ib_depth);
	if (!size) /* the CP fetches nothing */
		return 0;
	uint64_t shadow;
	if (pm4v_target(k->v, &k->w, hw_addr64_at(p + CP_INDIRECT_BUFFER_BASE_DW), size, level, PM4V_KIND_IB, &shadow))
		return -1;
	hw_addr64_put(p + CP_INDIRECT_BUFFER_BASE_DW, shadow);
	return 0;
}

/* Each enabled group is a stream the CP runs at draw time, at IB2 level wherever it is set. */
static int draw_state(struct walk *k, uint32_t *p, uint32_t cnt)
{
	if (k->s->kind == PM4V_KIND_DRAW_STATE)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_DEPTH, -1, "not allowed in a draw-state group");
	if (cnt % CP_SET_DRAW_STATE_GROUP_LEN)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1,
				 "%u payload dwords, not whole groups", cnt);
	if (k->v->policy.max_ib_depth < 2)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_DEPTH, -1, "draw state needs IB2");
	for (uint32_t g = 0; g < cnt; g += CP_SET_DRAW_STATE_GROUP_LEN) {
		uint32_t dw0 = p[g + CP_SET_DRAW_STATE_GROUP_HDR_DW];
		uint32_t dwords = CP_SET_DRAW_STATE_0_COUNT(dw0);
		if (dw0 & (CP_SET_DRAW_STATE_0_DISABLE | CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS) ||
		    !dwords)
			continue; /* no address is used */
		uint64_t shadow;
		uint32_t *addr = p + g + CP_SET_DRAW_STATE_GROUP_ADDR_DW;
		if (!pm4v_target_known(k->v, hw_addr64_at(addr), dwords, 2, PM4V_KIND_DRAW_STATE, &shadow) &&
		    pm4v_target(k->v, &k->w, hw_addr64_at(addr), dwords, 2, PM4V_KIND_DRAW_STATE, &shadow))
			return -1;
		hw_addr64_put(addr, shadow);
	}
	return 0;
}

static int amble(struct walk *k, uint32_t *p, uint32_t cnt)
{
	if (need(k, cnt, CP_SET_AMBLE_LEN))
		return -1;
	if (CP_SET_AMBLE_2_GET_TYPE(p[CP_SET_AMBLE_SIZE_DW]) == KMD_AMBLE_TYPE)
		return pm4v_fail(k->v, &k->w, PM4V_ERR_PRIVILEGED, -1, "KMD amble");
	uint32_t dwords = CP_SET_AMBLE_2_DWORDS(p[CP_SET_AMBLE_SIZE_DW]);
	if (!dwords)
		return 0;
	uint64_t shadow;
	if (pm4v_target(k->v, &k->w, hw_addr64_at(p + CP_SET_AMBLE_ADDR_DW), dwords, 1, PM4V_KIND_IB, &shadow))
		return -1;
	hw_addr64_put(p + CP_SET_AMBLE_ADDR_DW, shadow);
	return 0;
}

static int cond_reg_exec(struct walk *k, uint32_t *p, uint32_t cnt, uint32_t after)
{
	if (need(k, cnt, CP_COND_REG_EXEC_LEN))
		return -1;
	switch (CP_COND_REG_EXEC_0_GET_MODE(p[0])) {
	case PRED_TEST:
	case RENDER_MODE:
	case THREAD_MODE:
		/* DWORDS sits in dw1 in these modes; a longer packet also has the compare modes'
		 * field. Both must be safe places to resume. */
		if (open_skip(k, after, p[CP_COND_REG_EXEC_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK))
			return -1;
		return cnt >= CP_COND_REG_EXEC_COMPARE_LEN
			       ? open_skip(k, after, p[CP_COND_REG_EXEC_COMPARE_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK)
			       : 0;
	case REG_COMPARE:
		if (need(k, cnt, CP_COND_REG_EXEC_COMPARE_LEN) || read_regs(k, CP_COND_REG_EXEC_0_REG0(p[0]), 1) ||
		    read_regs(k, p[CP_COND_REG_EXEC_REG1_DW] & PM4_PAYLOAD_REG_MASK, 1))
			return -1;
		return open_skip(k, after, p[CP_COND_REG_EXEC_COMPARE_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK);
	case REG_COMPARE_IMM:
		if (need(k, cnt, CP_COND_REG_EXEC_COMPARE_LEN) || read_regs(k, CP_COND_REG_EXEC_0_REG0(p[0]), 1))
			return -1;
		return open_skip(k, after, p[CP_COND_REG_EXEC_COMPARE_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK);
	default:
		return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1, "compare mode %u",
				 CP_COND_REG_EXEC_0_GET_MODE(p[0]));
	}
}

static uint32_t index_bytes(uint32_t initiator)
{
	switch (CP_DRAW_INITIATOR_GET_INDEX_SIZE(initiator)) {
	case INDEX4_SIZE_8_BIT: return 1;
	case INDEX4_SIZE_16_BIT: return 2;
	default: return 4; /* 32-bit, or the invalid encoding counted at the widest */
	}
}

/* Registers a CP_REG_TO_MEM-style dw0 reads (and dwords it writes): CNT, 0 meaning 1, rounded
 * up to whole 64-bit values with 64B. */
static uint32_t reg_to_mem_count(uint32_t dw0)
{
	uint32_t n = CP_REG_TO_MEM_0_GET_CNT(dw0);
	n = n ? n : 1;
	if ((dw0 & CP_REG_TO_MEM_0_64B) && (n & 1u))
		n++;
	return n;
}

/* CP_DRAW_INDIRECT_MULTI (layouts in adreno_pm4_payload.h): the CP reads up to DRAW_COUNT records of
 * STRIDE bytes from INDIRECT (fewer if INDIRECT_COUNT says so: that is read at run time, so the
 * whole DRAW_COUNT range is checked), and, indexed, up to MAX_INDICES elements of INDEX. */
static int draw_indirect_multi(struct walk *k, const uint32_t *p, uint32_t cnt)
{
	if (need(k, cnt, CP_DRAW_INDIRECT_MULTI_LEN))
		return -1;
	uint32_t op = CP_DRAW_INDIRECT_MULTI_1_GET_OPCODE(p[CP_DRAW_INDIRECT_MULTI_OPCODE_DW]);
	struct cp_draw_indirect_multi_layout l;
	if (!cp_draw_indirect_multi_layout(op, &l))
		return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1, "indirect opcode %u", op);
	if (need(k, cnt, l.len))
		return -1;
	bool indexed = l.index_dw != 0;
	uint32_t stride = p[l.stride_dw], draws = p[CP_DRAW_INDIRECT_MULTI_DRAW_COUNT_DW];
	if (indexed && check_mem(k, hw_addr64_at(p + l.index_dw),
				 (uint64_t)p[l.max_indices_dw] * index_bytes(p[CP_DRAW_INITIATOR_DW]), false, "INDEX"))
		return -1;
	if (l.indirect_count_dw && check_mem(k, hw_addr64_at(p + l.indirect_count_dw), 4, false, "INDIRECT_COUNT"))
		return -1;
	if (!draws)
		return 0;
	/* < 2^64: (2^32 - 1) * (2^32 - 1) + 20. */
	uint64_t span = (uint64_t)(draws - 1) * stride +
			(indexed ? CP_DRAW_INDX_INDIRECT_RECORD_BYTES : CP_DRAW_INDIRECT_RECORD_BYTES);
	return check_mem(k, hw_addr64_at(p + l.indirect_dw), span, false, "INDIRECT");
}

static int pkt7(struct walk *k, uint32_t op, uint32_t *p, uint32_t cnt, uint32_t after)
{
	switch (op) {
	case CP_INDIRECT_BUFFER:
	case CP_INDIRECT_BUFFER_PFD:
		return ib(k, op, p, cnt);
	case CP_INDIRECT_BUFFER_CHAIN:
		/* The CP jumps and never comes back: whatever followed would be validated but never
		 * run, and the CP model refuses it (an opcode error), as the drivers never emit it. */
		if (after != k->n)
			return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1,
					 "CP_INDIRECT_BUFFER_CHAIN is not the last packet of its stream");
		return ib(k, op, p, cnt);
	case CP_SET_DRAW_STATE:
		return draw_state(k, p, cnt);
	case CP_SET_AMBLE:
		return amble(k, p, cnt);
	case CP_COND_REG_EXEC:
		return cond_reg_exec(k, p, cnt, after);
	case CP_COND_EXEC:
		if (need(k, cnt, CP_COND_EXEC_LEN) ||
		    check_mem(k, hw_addr64_at(p + CP_COND_EXEC_BOOL_ADDR_DW), 4, false, "BOOL_ADDR") ||
		    check_mem(k, hw_addr64_at(p + CP_COND_EXEC_TIMESTAMP_ADDR_DW), 4, false, "TIMESTAMP_ADDR"))
			return -1;
		return open_skip(k, after, p[CP_COND_EXEC_DWORDS_DW]);
	case CP_SET_MARKER: {
		if (need(k, cnt, CP_DW0_LEN))
			return -1;
		uint32_t mode = CP_SET_MARKER_0_GET_MODE(p[0]);
		if (!(p[0] & CP_SET_MARKER_0_IFPC_MODE) && (mode == RM6_IB1LIST_START || mode == RM6_IB1LIST_END))
			return pm4v_fail(k->v, &k->w, PM4V_ERR_PRIVILEGED, -1, "kernel-only marker %u", mode);
		return 0;
	}
	case CP_SET_MODE: {
		/* The binning pass it starts writes the binner's per-pipe results: this submit's own
		 * values from here on, for the read rule (with the pipe's config, read_regs). */
		const struct pm4v_policy *pol = &k->v->policy;
		if (need(k, cnt, CP_DW0_LEN))
			return -1;
		if ((p[0] & CP_SET_MODE_0_BINNING) && pol->nr_bin_pipes && !k->nr_skips)
			note_slot(k, PM4V_BINNING_SLOT);
		return 0;
	}
	case CP_SET_BIN_DATA5:
		/* The visibility streams the CP reads for this bin (their length is in memory, read
		 * at run time: the start is checked). */
		if (need(k, cnt, CP_SET_BIN_DATA5_LEN))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_SET_BIN_DATA5_DATA_DW), 4, false, "BIN_DATA_ADDR") ||
		       check_mem(k, hw_addr64_at(p + CP_SET_BIN_DATA5_SIZE_ADDR_DW), 4, false, "BIN_SIZE_ADDRESS") ||
		       check_mem(k, hw_addr64_at(p + CP_SET_BIN_DATA5_PRIM_STRM_DW), 4, false, "BIN_PRIM_STRM") ? -1 : 0;
	case CP_SET_PSEUDO_REG:
		if (cnt % CP_SET_PSEUDO_REG_GROUP_LEN)
			return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1,
					 "%u payload dwords, not whole triples", cnt);
		/* Ids up to COUNTER are the kernel's preemption records. */
		for (uint32_t i = CP_SET_PSEUDO_REG_ID_DW; i < cnt; i += CP_SET_PSEUDO_REG_GROUP_LEN)
			if (CP_SET_PSEUDO_REG_0_PSEUDO_REG(p[i]) <= COUNTER)
				return pm4v_fail(k->v, &k->w, PM4V_ERR_PRIVILEGED, -1,
						 "kernel pseudo register %u", CP_SET_PSEUDO_REG_0_PSEUDO_REG(p[i]));
		return 0;
	case CP_MEM_WRITE:
		if (need(k, cnt, CP_MEM_WRITE_LEN))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_MEM_WRITE_ADDR_DW), (uint64_t)(cnt - CP_MEM_WRITE_DATA_DW) * 4u,
				 true, "ADDR");
	case CP_EVENT_WRITE:
		if (cnt <= CP_EVENT_WRITE_LEN) /* the one-dword form has no address */
			return 0;
		if (need(k, cnt, CP_EVENT_WRITE_ADDR_LEN))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_EVENT_WRITE_ADDR_DW), (p[0] & CP_EVENT_WRITE_0_TIMESTAMP) ? 8 : 4,
				 true, "ADDR");
	case CP_REG_TO_MEM: {
		if (need(k, cnt, CP_REG_TO_MEM_LEN))
			return -1;
		uint32_t n = reg_to_mem_count(p[0]);
		return read_regs(k, CP_REG_TO_MEM_0_REG(p[0]), n) ||
		       check_mem(k, hw_addr64_at(p + CP_REG_TO_MEM_DEST_DW), (uint64_t)n * 4u, true, "DEST") ? -1 : 0;
	}
	case CP_REG_TO_MEM_OFFSET_REG:
	case CP_REG_TO_MEM_OFFSET_MEM: {
		/* The destination is DEST plus an offset known only when it runs: bounded by the page
		 * tables, like every run-time address (docs/security.md). The registers are not. */
		if (need(k, cnt, op == CP_REG_TO_MEM_OFFSET_MEM ? CP_REG_TO_MEM_OFFSET_MEM_LEN : CP_REG_TO_MEM_OFFSET_REG_LEN))
			return -1;
		if (read_regs(k, CP_REG_TO_MEM_0_REG(p[0]), reg_to_mem_count(p[0])))
			return -1;
		if (op == CP_REG_TO_MEM_OFFSET_MEM)
			return check_mem(k, hw_addr64_at(p + CP_REG_TO_MEM_OFFSET_MEM_OFFSET_DW), 4, false, "OFFSET");
		uint32_t offset0 = p[CP_REG_TO_MEM_OFFSET_REG_OFFSET0_DW];
		return (offset0 & CP_REG_TO_MEM_OFFSET_REG_3_SCRATCH) ? 0 : read_regs(k, offset0 & PM4_PAYLOAD_REG_MASK, 1);
	}
	case CP_MEM_TO_REG: {
		if (need(k, cnt, CP_MEM_TO_REG_LEN))
			return -1;
		uint32_t n = CP_MEM_TO_REG_0_GET_CNT(p[0]);
		n = n ? n : 1;
		if (check_regs(k, CP_MEM_TO_REG_0_REG(p[0]), n, true) ||
		    check_mem(k, hw_addr64_at(p + CP_MEM_TO_REG_SRC_DW), (uint64_t)n * 4u, false, "SRC"))
			return -1;
		note_writes(k, CP_MEM_TO_REG_0_REG(p[0]), n);
		return 0;
	}
	case CP_REG_RMW: /* dst = rotate(dst & src0) | src1: dst is read too */
		if (need(k, cnt, CP_REG_RMW_LEN) || check_regs(k, CP_REG_RMW_0_DST_REG(p[0]), 1, true) ||
		    read_regs(k, CP_REG_RMW_0_DST_REG(p[0]), 1))
			return -1;
		if ((p[0] & CP_REG_RMW_0_SRC0_IS_REG) && read_regs(k, p[CP_REG_RMW_SRC0_DW] & PM4_PAYLOAD_REG_MASK, 1))
			return -1;
		if ((p[0] & CP_REG_RMW_0_SRC1_IS_REG) && read_regs(k, p[CP_REG_RMW_SRC1_DW] & PM4_PAYLOAD_REG_MASK, 1))
			return -1;
		note_writes(k, CP_REG_RMW_0_DST_REG(p[0]), 1);
		return 0;
	case CP_REG_WRITE:
		if (need(k, cnt, CP_REG_WRITE_LEN) || check_regs(k, p[CP_REG_WRITE_REG_DW] & PM4_PAYLOAD_REG_MASK, 1, true))
			return -1;
		note_writes(k, p[CP_REG_WRITE_REG_DW] & PM4_PAYLOAD_REG_MASK, 1);
		return 0;
	case CP_SCRATCH_TO_REG:
		if (need(k, cnt, CP_DW0_LEN))
			return -1;
		return check_regs(k, CP_SCRATCH_TO_REG_0_REG(p[0]), CP_SCRATCH_TO_REG_0_GET_CNT(p[0]) + 1u, true);
	case CP_REG_TO_SCRATCH:
		if (need(k, cnt, CP_DW0_LEN))
			return -1;
		return read_regs(k, CP_REG_TO_SCRATCH_0_REG(p[0]), CP_REG_TO_SCRATCH_0_GET_CNT(p[0]) + 1u);
	case CP_WAIT_REG_MEM:
		if (need(k, cnt, CP_WAIT_REG_MEM_LEN))
			return -1;
		return poll_source(k, p);
	case CP_WAIT_MEM_GTE:
		if (need(k, cnt, CP_WAIT_MEM_GTE_LEN))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_WAIT_MEM_GTE_POLL_ADDR_DW), 4, false, "POLL_ADDR");
	case CP_COND_WRITE5:
		if (need(k, cnt, CP_COND_WRITE5_LEN) || poll_source(k, p))
			return -1;
		if (p[0] & CP_WAIT_REG_MEM_0_WRITE_MEMORY)
			return check_mem(k, hw_addr64_at(p + CP_COND_WRITE5_WRITE_ADDR_DW), 4, true, "WRITE_ADDR");
		/* Without WRITE_MEMORY: a register, written only if the test passes - so it does not
		 * count as written for read_regs. */
		return check_regs(k, p[CP_COND_WRITE5_WRITE_ADDR_DW] & PM4_PAYLOAD_REG_MASK, 1, true);
	case CP_MEMCPY: {
		if (need(k, cnt, CP_MEMCPY_LEN))
			return -1;
		uint64_t bytes = (uint64_t)p[CP_MEMCPY_DWORDS_DW] * 4u;
		return check_mem(k, hw_addr64_at(p + CP_MEMCPY_SRC_DW), bytes, false, "SRC") ||
		       check_mem(k, hw_addr64_at(p + CP_MEMCPY_DST_DW), bytes, true, "DST") ? -1 : 0;
	}
	case CP_MEM_TO_MEM: {
		if (need(k, cnt, CP_MEM_TO_MEM_LEN))
			return -1;
		if ((cnt - CP_MEM_TO_MEM_SRC_DW) % 2u)
			return pm4v_fail(k->v, &k->w, PM4V_ERR_MALFORMED, -1,
					 "%u payload dwords, not whole addresses", cnt);
		uint32_t size = (p[0] & CP_MEM_TO_MEM_0_DOUBLE) ? 8 : 4;
		if (check_mem(k, hw_addr64_at(p + CP_MEM_TO_MEM_DST_DW), size, true, "DST"))
			return -1;
		for (uint32_t i = CP_MEM_TO_MEM_SRC_DW; i < cnt; i += 2)
			if (check_mem(k, hw_addr64_at(p + i), size, false, "SRC"))
				return -1;
		return 0;
	}
	case CP_DRAW_INDX_OFFSET:
		/* Only the initiator is needed to know whether there is an index buffer. */
		if (need(k, cnt, CP_DRAW_INITIATOR_DW + 1))
			return -1;
		if (CP_DRAW_INITIATOR_GET_SOURCE_SELECT(p[CP_DRAW_INITIATOR_DW]) != DI_SRC_SEL_DMA) /* auto-index */
			return 0;
		if (need(k, cnt, CP_DRAW_INDX_OFFSET_DMA_LEN)) /* an indexed draw carries INDX_BASE and MAX_INDICES */
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_DRAW_INDX_OFFSET_INDX_BASE_DW),
				 (uint64_t)p[CP_DRAW_INDX_OFFSET_MAX_INDICES_DW] * index_bytes(p[CP_DRAW_INITIATOR_DW]), false,
				 "INDX_BASE");
	case CP_DRAW_INDX_INDIRECT:
		if (need(k, cnt, CP_DRAW_INDX_INDIRECT_LEN))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_DRAW_INDX_INDIRECT_INDX_BASE_DW),
				 (uint64_t)p[CP_DRAW_INDX_INDIRECT_MAX_INDICES_DW] * index_bytes(p[CP_DRAW_INITIATOR_DW]),
				 false, "INDX_BASE") ||
		       check_mem(k, hw_addr64_at(p + CP_DRAW_INDX_INDIRECT_INDIRECT_DW), CP_DRAW_INDX_INDIRECT_RECORD_BYTES,
				 false, "INDIRECT") ? -1 : 0;
	case CP_DRAW_INDIRECT:
		if (need(k, cnt, CP_DRAW_INDIRECT_LEN))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_DRAW_INDIRECT_INDIRECT_DW), CP_DRAW_INDIRECT_RECORD_BYTES, false,
				 "INDIRECT");
	case CP_DRAW_INDIRECT_MULTI:
		return draw_indirect_multi(k, p, cnt);
	case CP_DRAW_AUTO: /* the vertex count comes from a transform-feedback byte count */
		/* Checked up to the address it reads (the CP model wants all six dwords). */
		if (need(k, cnt, CP_DRAW_AUTO_NUM_VERTICES_BASE_DW + 2))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_DRAW_AUTO_NUM_VERTICES_BASE_DW), 4, false, "NUM_VERTICES_BASE");
	case CP_EXEC_CS_INDIRECT:
		/* Checked up to the address it reads (the CP model does not run dispatches). */
		if (need(k, cnt, CP_EXEC_CS_INDIRECT_ADDR_DW + 2))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_EXEC_CS_INDIRECT_ADDR_DW), CP_EXEC_CS_INDIRECT_ADDR_BYTES, false,
				 "ADDR");
	case CP_DRAW_PRED_SET:
		if (need(k, cnt, CP_DW0_LEN))
			return -1;
		if (CP_DRAW_PRED_SET_0_GET_SRC(p[0]) != PRED_SRC_MEM)
			return 0;
		if (need(k, cnt, CP_DRAW_PRED_SET_MEM_LEN))
			return -1;
		return check_mem(k, hw_addr64_at(p + CP_DRAW_PRED_SET_MEM_ADDR_DW), 8, false, "MEM_ADDR");
	case CP_REG_TEST:
		if (need(k, cnt, CP_DW0_LEN))
			return -1;
		if (p[0] & CP_REG_TEST_0_SOURCE_SCRATCH_MEM)
			return 0;
		return read_regs(k, CP_REG_TEST_0_REG(p[0]), 1);
	case CP_WAIT_TWO_REGS:
		/* Checked up to the registers it reads. */
		if (need(k, cnt, CP_WAIT_TWO_REGS_REG1_DW + 1))
			return -1;
		return read_regs(k, p[CP_WAIT_TWO_REGS_REG0_DW] & PM4_PAYLOAD_REG_MASK, 1) ||
		       read_regs(k, p[CP_WAIT_TWO_REGS_REG1_DW] & PM4_PAYLOAD_REG_MASK, 1) ? -1 : 0;
	default:
		/* Not known to ferry: passes, as on the CP. This switch is the one place that says
		 * which opcodes have rules: one that lands here has none, whatever its payload, so its
		 * later packets take plain_run (the deny test came first and is fixed per validator). */
		k->v->plain_ops[op >> 5] |= 1u << (op & 31);
		return 0;
	}
}

/* summary_clear for the registers a type-4 packet at reg with cnt values writes, the loop
 * unrolled: such a packet ends below the summary's limit and spans at most three blocks, so the
 * first, middle and last block are all of them. */
_Static_assert(PM4_TYPE4_REG_DECODE_MASK + PM4_TYPE4_MAX_COUNT < PM4V_SUMMARY_REGS, "type-4 past the summary");
_Static_assert(PM4_TYPE4_MAX_COUNT - 1u <= 2u << PM4V_REG_BLOCK_SHIFT, "type-4 over more than 3 blocks");
static inline bool type4_clear(const uint64_t *summary, uint32_t reg, uint32_t cnt)
{
	uint32_t b0 = reg >> PM4V_REG_BLOCK_SHIFT, b2 = (reg + (cnt ? cnt - 1u : 0)) >> PM4V_REG_BLOCK_SHIFT;
	uint32_t b1 = b0 + ((b2 - b0) >> 1);
	return !(((summary[b0 >> 6] >> (b0 & 63)) | (summary[b1 >> 6] >> (b1 & 63)) | (summary[b2 >> 6] >> (b2 & 63))) &
		 1u);
}

/* The first open skip target below lim, else lim: where the walk must next run close_skips. */
static uint32_t skip_limit(const struct walk *k, uint32_t lim)
{
	for (uint32_t i = 0; i < k->nr_skips; i++)
		if (k->skips[i].target < lim)
			lim = k->skips[i].target;
	return lim;
}

int pm4v_walk(struct pm4v_validator *v, const struct pm4v_stream *s, uint32_t *d, uint32_t base,
	      uint32_t avail, struct pm4v_walk_pos *at, uint64_t *budget)
{
	struct walk k; /* skips[] beyond nr_skips is never read: not cleared per stream */
	k.v = v;
	k.s = s;
	k.n = s->dwords;
	k.w = (struct pm4v_where){ .stream = s };
	if (!at->begun) { /* a new stream: nothing written in it yet (a resumed one keeps its own) */
		at->begun = true;
		if (++v->stream_gen == 0) { /* wrapped: forget every stream-local write for real */
			for (uint32_t r = 0; r < PM4V_NR_WRITE_SLOTS; r++)
				v->regs[r].local_gen = 0;
			memset(v->memo, 0, sizeof(v->memo));
			v->stream_gen = 1;
		}
	}
	const uint32_t *deny = v->policy.deny, *plain = v->plain_ops;
	const uint64_t *type4_summary = v->type4_summary;
	struct pm4v_memo *memo = v->memo;
	const uint32_t sgen = v->stream_gen;
	uint32_t pos = at->pos;
	k.nr_skips = at->nr_skips < MAX_OPEN_SKIPS ? at->nr_skips : MAX_OPEN_SKIPS;
	k.nr_pending = 0;
	if (k.nr_skips) /* a draw-state group has none: no call for nothing */
		memcpy(k.skips, at->skips, k.nr_skips * sizeof(k.skips[0]));
	const uint32_t fit = avail < k.n ? avail : k.n; /* a packet must end by here */
	/* Indexed by the stream's dword: d moved back by base, through an integer as the pointer
	 * may lie before the window (only dwords in it are read). */
	uint32_t *const sd = (uint32_t *)((uintptr_t)d - (uintptr_t)base * sizeof(*d));

	while (pos < k.n) {
		if ((budget && !*budget) || pos >= avail)
			goto stop;
		if (k.nr_skips && close_skips(&k, pos))
			return -1;
		/* Packets starting before lim need none of the tests above: it is the copy's end, the
		 * budget's, or the next open skip's target (every one is > pos after close_skips).
		 * Until then the loop below does only what each packet needs; in it, a packet with no
		 * rule to apply - a type-4 write no summary flags, an opcode without rules - costs its
		 * header tests and the note of its writes, and only its length test when this stream
		 * met the same header before (v->memo: a draw's state writes repeat draw after draw). */
		uint32_t lim = fit, start = pos;
		if (budget && *budget < lim - pos)
			lim = pos + (uint32_t)*budget;
		lim = skip_limit(&k, lim);
		do {
			uint32_t h = sd[pos], cnt;
			struct pm4v_memo *m = &memo[pm4v_memo_slot(h)];
			if (m->header == h && m->stream_gen == sgen) {
				/* type 4 or 7, bit 29 tells them apart. The next header's address waits
				 * for this count, so it is one AND after the load: a branch, which the
				 * CPU predicts as drivers repeat a packet pattern draw after draw (a
				 * select, even a conditional move, measured slower). */
				if (__builtin_expect(h & (1u << 29), 0)) {
					cnt = h & PM4_TYPE7_MAX_COUNT;
					if (cnt < fit - pos) {
						pos += 1 + cnt;
						continue;
					}
				} else {
					cnt = h & PM4_TYPE4_MAX_COUNT;
					if (cnt < fit - pos) {
						pos += 1 + cnt;
						continue;
					}
				}
			}
			k.w.pos = pos;
			k.w.header = h;
			if (pm4_is_type4(h)) {
				cnt = pm4_type4_count(h);
				if (!pm4_type4_parity_ok(h))
					return pm4v_fail(v, &k.w, PM4V_ERR_PARITY, -1, NULL);
				/* Count 0 is a header alone that writes nothing: Turnip's tu6_emit_fs_outputs
				 * writes SP_FS_OUTPUT_REG(0..n) with n = 0 for a fragment shader without
				 * outputs, as the CP model takes it. Its register is still checked below. */
				if (cnt >= fit - pos) { /* past the stream, or not all copied yet */
					if (cnt > k.n - pos - 1)
						return pm4v_fail(v, &k.w, PM4V_ERR_COUNT_OVERRUN, -1,
								 "%u dwords, %u left", cnt, k.n - pos - 1);
					goto partial;
				}
				uint32_t reg = pm4_type4_reg(h);
				if (type4_clear(type4_summary, reg, cnt)) { /* neither search can hit */
					note_writes(&k, reg, cnt);
					if (!k.nr_skips) /* else nothing was noted */
						*m = (struct pm4v_memo){ h, sgen };
				} else {
					uint32_t last = reg + (cnt ? cnt - 1u : 0);
					if (!summary_clear(v->wprot_summary, reg, last) && check_regs(&k, reg, cnt, true))
						return -1;
					if (cnt >= 2 && !summary_clear(v->area_summary, reg, reg + cnt - 2u) &&
					    write_areas(&k, reg, cnt, sd + pos + 1))
						return -1;
					note_writes(&k, reg, cnt);
				}
			} else if (pm4_is_type7(h)) {
				cnt = pm4_type7_count(h);
				if (!pm4_type7_parity_ok(h))
					return pm4v_fail(v, &k.w, PM4V_ERR_PARITY, -1, NULL);
				if (cnt >= fit - pos) {
					if (cnt > k.n - pos - 1)
						return pm4v_fail(v, &k.w, PM4V_ERR_COUNT_OVERRUN, -1,
								 "%u dwords, %u left", cnt, k.n - pos - 1);
					goto partial;
				}
				uint32_t op = pm4_type7_opcode(h);
				if (plain[op >> 5] & (1u << (op & 31))) {
					*m = (struct pm4v_memo){ h, sgen };
				} else {
					if (deny[op >> 5] & (1u << (op & 31)))
						return pm4v_fail(v, &k.w, PM4V_ERR_PRIVILEGED, -1, NULL);
					uint32_t nr_skips = k.nr_skips;
					if (pkt7(&k, op, sd + pos + 1, cnt, pos + 1 + cnt))
						return -1;
					if (k.nr_skips != nr_skips) /* it opened a skip: lim may come sooner */
						lim = skip_limit(&k, lim);
				}
			} else {
				return pm4v_fail(v, &k.w, PM4V_ERR_BAD_TYPE, -1, NULL);
			}
			pos += 1 + cnt;
		} while (pos < lim);
		if (budget)
			*budget -= *budget > pos - start ? pos - start : *budget;
		continue;
	partial:
		if (budget)
			*budget -= *budget > pos - start ? pos - start : *budget;
		goto stop;
	}
	/* the stream's pending writes are dropped: nothing in it reads any more */
	return k.nr_skips ? close_skips(&k, pos) : 0;
stop: /* at a packet boundary: close_skips runs again there when the walk continues */
	flush_pending(&k); /* the rest of the stream may read them */
	at->pos = pos;
	at->nr_skips = k.nr_skips;
	memcpy(at->skips, k.skips, k.nr_skips * sizeof(k.skips[0]));
	return 1;
}
