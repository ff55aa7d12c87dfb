/* The validator object and the per-submit driver: input checks, reloc resolution, the table of
 * streams (one shadow copy per distinct stream) and the copy -> relocate -> walk -> publish loop.
 * The packet rules themselves live in pm4_stream.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/uapi/msm_drm.h"
#include "ferry/hw/adreno_pm4.h"
#include "pm4v_internal.h"

static int cmp_interval(const void *a, const void *b)
{
	const struct pm4v_interval *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts and merges overlapping or adjacent intervals in place; returns the new count. */
static uint32_t merge_intervals(struct pm4v_interval *iv, uint32_t n)
{
	if (!n)
		return 0;
	qsort(iv, n, sizeof(*iv), cmp_interval);
	uint32_t out = 0;
	for (uint32_t i = 1; i < n; i++) {
		if (iv[out].last == UINT32_MAX || iv[i].first <= iv[out].last + 1) {
			if (iv[i].last > iv[out].last)
				iv[out].last = iv[i].last;
		} else {
			iv[++out] = iv[i];
		}
	}
	return out + 1;
}

static void summarize(const struct pm4v_interval *iv, uint32_t n, uint64_t *summary)
{
	for (uint32_t i = 0; i < n; i++) {
		if (iv[i].first >= PM4V_SUMMARY_REGS)
			continue;
		uint32_t last = iv[i].last < PM4V_SUMMARY_REGS ? iv[i].last : PM4V_SUMMARY_REGS - 1u;
		for (uint32_t b = iv[i].first >> PM4V_REG_BLOCK_SHIFT; b <= last >> PM4V_REG_BLOCK_SHIFT; b++)
			summary[b >> 6] |= 1ull << (b & 63);
	}
}

struct pm4v_validator *pm4v_create(const struct pm4v_policy *policy)
{
	struct pm4v_validator *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->policy = *policy;
	v->policy.protected_regs = NULL; /* not kept: the intervals below are our copy */

	v->policy.shared_regs = NULL;

	uint32_t n = policy->nr_protected_regs, ns = policy->nr_shared_regs;
	v->wprot = calloc(n + 1, sizeof(*v->wprot));
	v->rprot = calloc(n + 1, sizeof(*v->rprot));
	v->shared = calloc((size_t)n + ns + 1, sizeof(*v->shared));
	/* Large but touched only where registers are written: pages stay unbacked until then. */
	v->regs = calloc(PM4V_NR_WRITE_SLOTS, sizeof(*v->regs));
	if (!v->wprot || !v->rprot || !v->shared || !v->regs)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		const struct pm4v_reg_range *r = &policy->protected_regs[i];
		if (r->first > r->last)
			goto fail;
		v->wprot[v->nr_wprot++] = (struct pm4v_interval){ r->first, r->last };
		v->shared[v->nr_shared++] = (struct pm4v_interval){ r->first, r->last };
		if (r->read_protected)
			v->rprot[v->nr_rprot++] = (struct pm4v_interval){ r->first, r->last };
	}
	for (uint32_t i = 0; i < ns; i++) {
		const struct pm4v_reg_range *r = &policy->shared_regs[i];
		if (r->first > r->last)
			goto fail;
		v->shared[v->nr_shared++] = (struct pm4v_interval){ r->first, r->last };
	}
	v->nr_wprot = merge_intervals(v->wprot, v->nr_wprot);
	v->nr_rprot = merge_intervals(v->rprot, v->nr_rprot);
	v->nr_shared = merge_intervals(v->shared, v->nr_shared);
	summarize(v->wprot, v->nr_wprot, v->wprot_summary);
	summarize(v->rprot, v->nr_rprot, v->rprot_summary);
	for (uint32_t i = 0; i < policy->nr_write_areas && i < sizeof(policy->write_areas) / sizeof(policy->write_areas[0]); i++) {
		struct pm4v_interval a = { policy->write_areas[i].addr, policy->write_areas[i].addr };
		summarize(&a, 1, v->area_summary);
	}
	for (uint32_t i = 0; i < PM4V_SUMMARY_WORDS; i++)
		v->type4_summary[i] = v->wprot_summary[i] | v->area_summary[i];

	uint32_t slots = 0;
	if (FERRY_ARRAY_RESERVE(v->streams, v->cap_streams, 64, 16) ||
	    FERRY_ARRAY_RESERVE(v->slots, slots, 128, 16)) /* zeroed: gen 0 is never live */
		goto fail;
	v->slot_mask = slots - 1;
	return v;
fail:
	pm4v_destroy(v);
	return NULL;
}

void pm4v_destroy(struct pm4v_validator *v)
{
	if (!v)
		return;
	free(v->wprot);
	free(v->rprot);
	free(v->shared);
	free(v->regs);
	free(v->streams);
	free(v->slots);
	free(v->scratch);
	free(v->relocs);
	free(v->out);
	free(v->copies);
	free(v);
}

int pm4v_find_bo(const struct pm4v_submit *in, uint64_t addr, uint64_t len)
{
	uint32_t lo = 0, hi = in->nr_bos;
	while (lo < hi) { /* first BO with iova > addr */
		uint32_t mid = lo + (hi - lo) / 2;
		if (in->bos[mid].iova <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct pm4v_bo *bo = &in->bos[lo - 1];
	uint64_t off = addr - bo->iova;
	if (off > bo->size || len > bo->size - off)
		return -1;
	return (int)(lo - 1);
}

/* Doubles the slot table and re-inserts this submit's streams. */
static int grow_slots(struct pm4v_validator *v)
{
	uint64_t n = ((uint64_t)v->slot_mask + 1) * 2;
	if (n > UINT32_MAX)
		return -1;
	struct pm4v_slot *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	free(v->slots);
	v->slots = slots;
	v->slot_mask = (uint32_t)n - 1;
	/* The generation stays: the register writes (regs[].gen) are keyed on it too, and a fresh
	 * table's slots (gen 0) are dead under any generation. */
	for (uint32_t i = 0; i < v->nr_streams; i++) {
		const struct pm4v_stream *s = &v->streams[i];
		uint64_t key = pm4v_stream_key(s->dwords, s->level, s->kind);
		uint32_t h = pm4v_stream_hash(s->iova, key) & v->slot_mask;
		while (slots[h].gen == v->gen)
			h = (h + 1) & v->slot_mask;
		slots[h] = (struct pm4v_slot){ s->iova, key, v->gen, i, s->shadow_iova };
	}
	return 0;
}

/* Adds a stream known to lie inside readable BO bo; allocates its shadow. */
static int add_stream(struct pm4v_validator *v, const struct pm4v_where *w, uint64_t iova,
		      uint32_t dwords, unsigned level, enum pm4v_kind kind, int bo, uint32_t slot,
		      uint64_t *shadow_iova)
{
	const struct pm4v_policy *p = &v->policy;
	if (v->nr_streams >= p->max_targets)
		return pm4v_fail(v, w, PM4V_ERR_LIMIT, -1, "more than %u command streams",
				 p->max_targets);
	if (dwords > p->max_walk_dwords || v->walked > p->max_walk_dwords - dwords)
		return pm4v_fail(v, w, PM4V_ERR_LIMIT, -1, "more than %" PRIu64 " dwords to validate",
				 p->max_walk_dwords);
	if (v->nr_streams == v->cap_streams &&
	    FERRY_ARRAY_RESERVE(v->streams, v->cap_streams, v->nr_streams + 1, 16))
		return pm4v_fail(v, w, PM4V_ERR_NOMEM, -1, NULL);

	struct pm4v_shadow sh = { 0 };
	uint32_t bytes = dwords * 4u; /* dwords <= CP_INDIRECT_BUFFER_2_SIZE_MASK */
	if (v->alloc->alloc(v->alloc->ctx, bytes, &sh) != 0 || !sh.map)
		return pm4v_fail(v, w, PM4V_ERR_SHADOW, -1, "%u bytes", bytes);
	if (sh.iova % 4u || sh.iova > UINT64_MAX - bytes)
		return pm4v_fail(v, w, PM4V_ERR_SHADOW, -1, "bad shadow iova 0x%" PRIx64, sh.iova);

	const struct pm4v_bo *b = &v->in->bos[bo];
	/* A top-level cmd (no w) is numbered in submit order; anything else runs where it is
	 * pointed at from. */
	uint32_t top = w ? 0 : v->nr_streams + 1;
	uint64_t origin = !w ? pm4v_exec_point(top, 0)
		: w->stream->top ? pm4v_exec_point(w->stream->top, w->pos) : w->stream->origin;
	v->streams[v->nr_streams] = (struct pm4v_stream){
		.iova = iova, .dwords = dwords, .level = (uint8_t)level, .kind = (uint8_t)kind,
		.bo = (uint32_t)bo, .bo_offset = iova - b->iova,
		.shadow_iova = sh.iova, .shadow_map = sh.map, .origin = origin, .top = top,
	};
	v->slots[slot] = (struct pm4v_slot){ iova, pm4v_stream_key(dwords, level, kind), v->gen, v->nr_streams++,
					     sh.iova };
	v->walked += dwords;
	*shadow_iova = sh.iova;

	/* keep the table at most half full so probes stay short */
	if ((uint64_t)v->nr_streams * 2 > (uint64_t)v->slot_mask + 1 && grow_slots(v))
		return pm4v_fail(v, w, PM4V_ERR_NOMEM, -1, NULL);
	return 0;
}

int pm4v_target(struct pm4v_validator *v, const struct pm4v_where *w, uint64_t iova,
		uint32_t dwords, unsigned level, enum pm4v_kind kind, uint64_t *shadow_iova)
{
	uint64_t bytes = (uint64_t)dwords * 4u;
	if (iova % 4u) {
		int r = pm4v_fail(v, w, PM4V_ERR_TARGET, -1, "0x%" PRIx64 " not dword-aligned", iova);
		v->err->addr = iova;
		return r;
	}
	/* A stream already in the table passed the checks below with this submit's BOs. */
	uint32_t h;
	const struct pm4v_slot *known = pm4v_slot_find(v, iova, pm4v_stream_key(dwords, level, kind), &h);
	if (known) {
		*shadow_iova = known->shadow_iova;
		return 0;
	}
	int bo = pm4v_find_bo_hint(v, &v->target_hint, iova, bytes);
	if (bo < 0) {
		int r = pm4v_fail(v, w, PM4V_ERR_TARGET, -1, "0x%" PRIx64 " + 0x%" PRIx64 " bytes",
				  iova, bytes);
		v->err->addr = iova;
		return r;
	}
	if (!v->in->bos[bo].map) {
		int r = pm4v_fail(v, w, PM4V_ERR_TARGET, -1, "bo %u is not readable by the host",
				  v->in->bos[bo].id);
		v->err->addr = iova;
		return r;
	}
	return add_stream(v, w, iova, dwords, level, kind, bo, h, shadow_iova);
}

static int check_bos(struct pm4v_validator *v)
{
	const struct pm4v_submit *in = v->in;
	if (in->nr_bos > INT32_MAX)
		return pm4v_fail(v, NULL, PM4V_ERR_INPUT, -1, "%u BOs", in->nr_bos);
	for (uint32_t i = 0; i < in->nr_bos; i++) {
		const struct pm4v_bo *b = &in->bos[i];
		if (b->size && b->size - 1 > UINT64_MAX - b->iova)
			return pm4v_fail(v, NULL, PM4V_ERR_INPUT, (int)i, "wraps around 2^64");
		if (i && (b->iova < b[-1].iova || b->iova - b[-1].iova < b[-1].size))
			return pm4v_fail(v, NULL, PM4V_ERR_INPUT, (int)i,
					 "not sorted or overlaps the previous BO");
	}
	for (uint32_t i = 0; i < in->nr_submit_bos; i++)
		if (in->submit_bos[i] >= in->nr_bos)
			return pm4v_fail(v, NULL, PM4V_ERR_INPUT, -1, "submit bo %u: no such BO", i);
	return 0;
}

static int check_cmds(struct pm4v_validator *v)
{
	const struct pm4v_submit *in = v->in;
	for (uint32_t i = 0; i < in->nr_cmds; i++) {
		const struct ferry_msm_submit_cmd *c = &in->cmds[i];
		if (c->type != MSM_SUBMIT_CMD_BUF && c->type != MSM_SUBMIT_CMD_IB_TARGET_BUF &&
		    c->type != MSM_SUBMIT_CMD_CTX_RESTORE_BUF)
			return pm4v_fail(v, NULL, PM4V_ERR_CMD, -1, "cmd %u: type %u", i, c->type);
		if (c->bo_index >= in->nr_submit_bos)
			return pm4v_fail(v, NULL, PM4V_ERR_CMD, -1, "cmd %u: bo index %u of %u", i,
					 c->bo_index, in->nr_submit_bos);
		int bo = (int)in->submit_bos[c->bo_index];
		const struct pm4v_bo *b = &in->bos[bo];
		if (!c->size || c->size % 4u || c->offset % 4u)
			return pm4v_fail(v, NULL, PM4V_ERR_CMD, bo, "cmd %u: offset 0x%x size 0x%x", i,
					 c->offset, c->size);
		if (c->size / 4u > CP_INDIRECT_BUFFER_2_SIZE_MASK)
			return pm4v_fail(v, NULL, PM4V_ERR_IB_SIZE, bo, "cmd %u: %u dwords", i,
					 c->size / 4u);
		if (c->offset > b->size || c->size > b->size - c->offset)
			return pm4v_fail(v, NULL, PM4V_ERR_CMD, bo,
					 "cmd %u: 0x%x + 0x%x past the BO end 0x%" PRIx64, i,
					 c->offset, c->size, b->size);
		if (!b->map)
			return pm4v_fail(v, NULL, PM4V_ERR_CMD, bo, "cmd %u: BO not readable by the host",
					 i);
	}
	return 0;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct pm4v_reloc_ref *x = a, *y = b;
	if (x->bo != y->bo)
		return x->bo < y->bo ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static uint32_t reloc_value(uint64_t iova, int32_t shift, uint32_t or_value)
{
	if (shift <= -64 || shift >= 64)
		iova = 0;
	else if (shift < 0)
		iova >>= -shift;
	else
		iova <<= shift;
	return (uint32_t)iova | or_value;
}

static int prepare_relocs(struct pm4v_validator *v)
{
	const struct pm4v_submit *in = v->in;
	v->nr_relocs = 0;
	if (in->nr_relocs > v->cap_relocs &&
	    FERRY_ARRAY_RESERVE(v->relocs, v->cap_relocs, in->nr_relocs, 16))
		return pm4v_fail(v, NULL, PM4V_ERR_NOMEM, -1, NULL);
	for (uint32_t i = 0; i < in->nr_relocs; i++) {
		const struct ferry_msm_submit_reloc *r = &in->relocs[i];
		if (r->cmd_index >= in->nr_cmds || r->bo_index >= in->nr_submit_bos)
			return pm4v_fail(v, NULL, PM4V_ERR_RELOC, -1, "reloc %u: cmd %u / bo %u", i,
					 r->cmd_index, r->bo_index);
		const struct ferry_msm_submit_cmd *c = &in->cmds[r->cmd_index];
		uint32_t bo = in->submit_bos[c->bo_index];
		if (r->submit_offset % 4u || r->submit_offset < c->offset ||
		    r->submit_offset - c->offset >= c->size)
			return pm4v_fail(v, NULL, PM4V_ERR_RELOC, (int)bo,
					 "reloc %u: offset 0x%x outside cmd %u", i, r->submit_offset,
					 r->cmd_index);
		uint64_t target = in->bos[in->submit_bos[r->bo_index]].iova + r->bo_offset;
		v->relocs[v->nr_relocs++] = (struct pm4v_reloc_ref){
			.bo = bo, .offset = r->submit_offset, .order = i,
			.value = reloc_value(target, r->shift, r->or_value),
		};
	}
	if (v->nr_relocs > 1)
		qsort(v->relocs, v->nr_relocs, sizeof(*v->relocs), cmp_reloc);
	return 0;
}

/* Patches the relocs that land in dwords [from, to) of stream s, copied to d from its dword
 * base on. */
static void apply_relocs(struct pm4v_validator *v, const struct pm4v_stream *s, uint32_t *d,
			 uint32_t base, uint32_t from, uint32_t to)
{
	uint64_t start = s->bo_offset + (uint64_t)from * 4u, end = s->bo_offset + (uint64_t)to * 4u;
	if (!v->nr_relocs || start >= UINT32_MAX)
		return;
	uint32_t lo = 0, hi = v->nr_relocs;
	while (lo < hi) { /* first reloc >= (bo, start) */
		uint32_t mid = lo + (hi - lo) / 2;
		const struct pm4v_reloc_ref *r = &v->relocs[mid];
		if (r->bo < s->bo || (r->bo == s->bo && r->offset < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < v->nr_relocs; lo++) {
		const struct pm4v_reloc_ref *r = &v->relocs[lo];
		if (r->bo != s->bo || r->offset >= end)
			break;
		d[(r->offset - s->bo_offset) / 4u - base] = r->value;
		v->relocs_applied++;
	}
}

/* The most dwords one packet spans (a type-7 header and a 14-bit count). */
#define MAX_PACKET_DWORDS (1u + 0x3fffu)

/* Stream copies cost less per dword than the walk; charged so that many small streams still
 * spend a budget. */
#define COPY_COST_SHIFT 3u

/* Dwords copied in at a time, whenever the walk has run out of copied dwords: small enough that
 * the walk and the copy out read them from the L1 cache right after the copy in wrote them (8 KiB:
 * measured faster than 4 KiB or 16 KiB in `ferry bench` (d) on a 48 KiB L1). The fuzz build sets
 * a few dwords, so that its short streams move the window too. */
#ifdef PM4V_COPY_CHUNK_DWORDS
#define COPY_CHUNK_DWORDS PM4V_COPY_CHUNK_DWORDS
#else
#define COPY_CHUNK_DWORDS 2048u
#endif

/* The window (v->scratch): a chunk after what is left of the last one when the walk ran out,
 * which is no more than a packet that did not lie whole in it. */
#define WINDOW_DWORDS (COPY_CHUNK_DWORDS + MAX_PACKET_DWORDS)

static int run(struct pm4v_validator *v, struct pm4v_result *result, uint64_t *budget)
{
	const struct pm4v_submit *in = v->in;
	if (!v->resuming) {
		if (check_bos(v) || check_cmds(v) || prepare_relocs(v))
			return -1;
		if (in->nr_cmds > v->cap_out &&
		    FERRY_ARRAY_RESERVE(v->out, v->cap_out, in->nr_cmds, 16))
			return pm4v_fail(v, NULL, PM4V_ERR_NOMEM, -1, NULL);

		uint32_t nr_out = 0;
		for (uint32_t i = 0; i < in->nr_cmds; i++) {
			const struct ferry_msm_submit_cmd *c = &in->cmds[i];
			if (c->type == MSM_SUBMIT_CMD_IB_TARGET_BUF)
				continue;
			uint64_t iova = in->bos[in->submit_bos[c->bo_index]].iova + c->offset;
			uint64_t shadow;
			if (pm4v_target(v, NULL, iova, c->size / 4u, 1, PM4V_KIND_IB, &shadow))
				return -1;
			v->out[nr_out++] = (struct pm4v_out_cmd){ .iova = shadow, .size = c->size,
								  .type = c->type };
		}
		v->nr_out = nr_out;
		v->next_stream = 0;
		v->stream_open = false;
	}

	/* Breadth-first over the stream table: walking a stream appends the streams it points
	 * at, so no recursion and every stream is copied once. */
	for (uint32_t i = v->next_stream; i < v->nr_streams; i++) {
		struct pm4v_stream s = v->streams[i]; /* by value: the table may move */
		if (!v->stream_open) {
			if (budget && !*budget) {
				v->next_stream = i;
				return 1;
			}
			if (!v->scratch)
				v->scratch = malloc(WINDOW_DWORDS * sizeof(*v->scratch));
			if (!v->scratch)
				return pm4v_fail(v, NULL, PM4V_ERR_NOMEM, -1, NULL);
			/* skips[] past nr_skips is never read: not cleared per stream (a draw-state
			 * group is a few dozen dwords; the whole struct would be more to write) */
			v->walk_at.pos = 0;
			v->walk_at.nr_skips = 0;
			v->walk_at.begun = false;
			v->copied = 0;
			v->published = 0;
			v->win_base = 0;
			v->stream_open = true;
		}
		/* The window moves along the stream: copy in a chunk (once per dword: the
		 * snapshot) and relocate it when the walk ran out of copied dwords, walk, copy out
		 * what the walk finished. With a budget, the call ends where the walk stopped for
		 * it; the window keeps the rest for the next call. */
		bool more = v->copied == v->walk_at.pos;
		int r;
		do {
			if (more) {
				/* Only a packet the walk could not finish is left: to the front. */
				uint32_t keep = v->copied - v->published;
				/* cannot be: the window would overflow (see WINDOW_DWORDS), or the
				 * walk stopped with the whole stream copied and budget left */
				if (keep >= MAX_PACKET_DWORDS || v->copied == s.dwords)
					return pm4v_fail(v, NULL, PM4V_ERR_LIMIT, -1,
							 "%u dwords left in the window", keep);
				if (keep) /* none at a stream's start: no call for nothing */
					memmove(v->scratch, v->scratch + (v->published - v->win_base),
						keep * 4u);
				v->win_base = v->published;
				uint32_t want = s.dwords - v->copied > COPY_CHUNK_DWORDS
					? v->copied + COPY_CHUNK_DWORDS : s.dwords;
				const uint8_t *src = in->bos[s.bo].map;
				src += s.bo_offset + (uint64_t)v->copied * 4u;
				memcpy(v->scratch + keep, src,
				       ((size_t)want - v->copied) * 4u);
				apply_relocs(v, &s, v->scratch, v->win_base, v->copied, want);
				if (budget) {
					uint64_t cost = 1u + ((want - v->copied) >> COPY_COST_SHIFT);
					*budget -= *budget > cost ? cost : *budget - 1; /* still one packet now */
				}
				v->copied = want;
			}
			r = pm4v_walk(v, &s, v->scratch, v->win_base, v->copied, &v->walk_at,
				      budget);
			if (r < 0)
				return -1;
			uint32_t done = r > 0 ? v->walk_at.pos : s.dwords;
			memcpy(s.shadow_map + v->published,
			       v->scratch + (v->published - v->win_base),
			       ((size_t)done - v->published) * 4u);
			v->published = done;
			/* stopped with budget left: for want of copied dwords */
			more = r > 0 && (!budget || *budget);
		} while (more);
		if (r > 0) {
			v->next_stream = i;
			return 1;
		}
		v->stream_open = false;
	}

	if (v->nr_streams > v->cap_copies &&
	    FERRY_ARRAY_RESERVE(v->copies, v->cap_copies, v->nr_streams, 16))
		return pm4v_fail(v, NULL, PM4V_ERR_NOMEM, -1, NULL);
	for (uint32_t i = 0; i < v->nr_streams; i++) {
		const struct pm4v_stream *s = &v->streams[i];
		v->copies[i] = (struct pm4v_stream_copy){
			.shadow_iova = s->shadow_iova, .size = s->dwords * 4u, .bo_id = in->bos[s->bo].id,
			.guest_iova = s->iova, .bo_offset = s->bo_offset, .level = s->level,
			.draw_state = s->kind == PM4V_KIND_DRAW_STATE,
		};
	}

	*result = (struct pm4v_result){
		.cmds = v->out, .nr_cmds = v->nr_out, .nr_streams = v->nr_streams,
		.dwords = v->walked, .relocs_applied = v->relocs_applied, .streams = v->copies,
	};
	return 0;
}

int pm4v_validate_step(struct pm4v_validator *v, const struct pm4v_submit *submit,
		       const struct pm4v_shadow_allocator *alloc, uint64_t budget_dwords,
		       struct pm4v_result *result, struct pm4v_error *err)
{
	v->in = submit;
	v->alloc = alloc;
	v->err = err;
	v->bo_hint = v->target_hint = UINT32_MAX;
	if (!v->resuming) {
		v->walked = 0;
		v->relocs_applied = 0;
		v->nr_streams = 0;
		if (++v->gen == 0) { /* generation wrapped: forget every slot and write for real */
			for (uint32_t i = 0; i <= v->slot_mask; i++)
				v->slots[i].gen = 0;
			for (uint32_t r = 0; r < PM4V_NR_WRITE_SLOTS; r++)
				v->regs[r].gen = 0;
			v->gen = 1;
		}
	}
	uint64_t budget = budget_dwords;
	int r = run(v, result, budget_dwords ? &budget : NULL);
	v->resuming = r > 0;
	if (r <= 0)
		v->stream_open = false;
	v->in = NULL;
	v->alloc = NULL;
	v->err = NULL;
	return r;
}

int pm4v_validate(struct pm4v_validator *v, const struct pm4v_submit *submit,
		  const struct pm4v_shadow_allocator *alloc, struct pm4v_result *result,
		  struct pm4v_error *err)
{
	pm4v_validate_cancel(v);
	return pm4v_validate_step(v, submit, alloc, 0, result, err);
}

void pm4v_validate_cancel(struct pm4v_validator *v)
{
	v->resuming = false;
	v->stream_open = false;
}

bool pm4v_validate_in_progress(const struct pm4v_validator *v)
{
	return v->resuming;
}
