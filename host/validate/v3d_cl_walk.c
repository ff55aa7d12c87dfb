/* The V3D control-list walker: copies every list the CLE will read out of the guest's BOs once,
 * follows branches, sub-lists and generic tile lists in execution order, applies relocations,
 * runs the packet rules (v3d_cl_packets.c) on the copy, and finally lays the copies out in shadow
 * memory with their branch targets repointed. Contract and rules: v3d_validate.h. */
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "v3d_val_internal.h"

/* How one list (top level, sub-list or generic tile list) is being walked. */
struct walk {
	enum v3dval_list list;
	enum v3dval_level level;
	bool in_call;         /* the CLE's single return register is in use */
	bool has_end;         /* ends when the packet pointer reaches `end` (CTnEA / tile list end) */
	uint32_t end;
	uint32_t first_seg;   /* out: the segment the list starts in */
	uint32_t end_seg, end_off; /* out: where `end` maps (after HALT / RETURN: the next byte) */
};

/* ---- lifecycle -------------------------------------------------------------------------------- */

struct v3dval *v3dval_create(const struct v3dval_policy *policy)
{
	if (!policy || !v3d_ver_valid(policy->ver))
		return NULL;
	struct v3dval *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->policy = *policy;
	v->readahead = v3d_cle_readahead(policy->ver);
	for (unsigned op = 0; op < 256; op++) {
		const struct v3d_cl_addr_field *f;
		v->op_len[op] = (uint8_t)v3d_cl_fixed_length(policy->ver, (uint8_t)op);
		v->op_nr_fields[op] = (uint8_t)v3d_cl_address_fields(policy->ver, (uint8_t)op, &f);
		v->op_fields[op] = f;
	}
	for (int k = 0; k <= V3D_CL_STRUCT_TEXTURE_SHADER_STATE; k++) {
		const struct v3d_cl_addr_field *f;
		v->struct_nr_fields[k] = (uint8_t)v3d_cl_struct_address_fields(policy->ver, (enum v3d_cl_struct)k, &f);
		v->struct_fields[k] = f;
		v->struct_size[k] = (uint8_t)v3d_cl_struct_size(policy->ver, (enum v3d_cl_struct)k);
	}
	v3dval_struct_words(v);
	static const unsigned shader_address[] = { V3D_CL_GL_SHADER_ADDRESS }; /* start, size */
	v->block_align = 1u << (32u - shader_address[1]);
	return v;
}

void v3dval_destroy(struct v3dval *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < v->cap_segs; i++)
		free(v->segs[i].buf);
	free(v->segs);
	free(v->lists);
	free(v->block_bytes);
	free(v->fixups);
	free(v->tlsbs);
	free(v->keys);
	free(v->applied);
	free(v->block_hash);
	free(v);
}

/* ---- segments and fixups ---------------------------------------------------------------------- */

static bool in_walked_list(const struct v3dval *v, uint32_t addr)
{
	for (uint32_t i = 0; i < v->nr_segs - v->nr_blocks; i++) {
		const struct v3dval_seg *s = &v->segs[v->lists[i]];
		if (addr >= s->start && addr < s->end)
			return true;
	}
	return false;
}

int v3dval_grow_segs(struct v3dval *v, const struct v3dval_where *w)
{
	/* New slots come zeroed (they own no copy yet); existing ones keep theirs across jobs. */
	if (FERRY_ARRAY_RESERVE(v->segs, v->cap_segs, v->nr_segs + 1, 16))
		return v3dval_fail(v, w, V3DVAL_ERR_NOMEM, 0, NULL);
	return 0;
}

uint32_t v3dval_new_seg(struct v3dval *v, uint32_t bo, uint32_t addr, enum v3dval_list list,
			enum v3dval_level level, const struct v3dval_where *w)
{
	uint32_t nr_lists = v->nr_segs - v->nr_blocks;
	if (nr_lists >= v->policy.max_segments) {
		v3dval_fail(v, w, V3DVAL_ERR_LIMIT, addr, "more than %u list segments", v->policy.max_segments);
		return V3DVAL_NO_SEG;
	}
	if (FERRY_ARRAY_RESERVE(v->lists, v->cap_lists, (size_t)nr_lists + 1, 16)) {
		v3dval_fail(v, w, V3DVAL_ERR_NOMEM, 0, NULL);
		return V3DVAL_NO_SEG;
	}
	uint32_t seg = v3dval_add_seg(v, bo, addr, list, level, w);
	if (seg != V3DVAL_NO_SEG)
		v->lists[nr_lists] = seg;
	return seg;
}

int v3dval_seg_reserve(struct v3dval *v, uint32_t seg, uint32_t len, const struct v3dval_where *w)
{
	struct v3dval_seg *s = &v->segs[seg];
	if (len <= s->cap)
		return 0;
	if (FERRY_ARRAY_RESERVE(s->buf, s->cap, len, 256))
		return v3dval_fail(v, w, V3DVAL_ERR_NOMEM, 0, NULL);
	return 0;
}

int v3dval_grow_fixups(struct v3dval *v, const struct v3dval_where *w)
{
	if (FERRY_ARRAY_RESERVE(v->fixups, v->cap_fixups, v->nr_fixups + 1, 16))
		return v3dval_fail(v, w, V3DVAL_ERR_NOMEM, 0, NULL);
	return 0;
}

/* A list starting at addr: in a host-readable context BO, and not inside anything walked. */
static uint32_t list_seg(struct v3dval *v, const struct walk *k, uint32_t addr, const struct v3dval_where *from)
{
	int bo = v3dval_find_bo(v->bos, v->nr_bos, addr);
	if (bo < 0 || !v->bos[bo].map) {
		v3dval_fail(v, from, V3DVAL_ERR_TARGET, addr, "list 0x%08x not inside a readable buffer of the context",
			    addr);
		return V3DVAL_NO_SEG;
	}
	if (in_walked_list(v, addr)) {
		v3dval_fail(v, from, V3DVAL_ERR_CYCLE, addr, "target 0x%08x already walked (cycle)", addr);
		return V3DVAL_NO_SEG;
	}
	return v3dval_new_seg(v, (uint32_t)bo, addr, k->list, k->level, from);
}

/* ---- relocations ------------------------------------------------------------------------------ */

static int key_cmp3(const struct v3dval_rkey *k, uint32_t kind, uint32_t bo, uint32_t off)
{
	if (k->kind != kind)
		return k->kind < kind ? -1 : 1;
	if (k->bo != bo)
		return k->bo < bo ? -1 : 1;
	if (k->off != off)
		return k->off < off ? -1 : 1;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct v3dval_rkey *ka = a, *kb = b;
	int c = key_cmp3(ka, kb->kind, kb->bo, kb->off);
	if (c)
		return c;
	return ka->idx < kb->idx ? -1 : ka->idx > kb->idx; /* equal positions: submission order */
}

static int prepare_relocs(struct v3dval *v)
{
	const struct v3dval_cl_submit *in = v->in;
	if (in->nr_relocs && !in->relocs)
		return v3dval_fail(v, NULL, V3DVAL_ERR_INPUT, 0, "relocation table missing");
	uint32_t cap = v->cap_relocs;
	if (FERRY_ARRAY_RESERVE(v->keys, cap, in->nr_relocs, 16) ||
	    FERRY_ARRAY_RESERVE(v->applied, v->cap_relocs, in->nr_relocs, 16))
		return v3dval_fail(v, NULL, V3DVAL_ERR_NOMEM, 0, NULL);
	for (uint32_t i = 0; i < in->nr_relocs; i++) {
		const struct v3dval_reloc *r = &in->relocs[i];
		uint32_t target;
		if (r->kind > V3DVAL_RELOC_RECORD || r->cl_bo >= v->nr_bos ||
		    v3dval_reloc_target(v->bos, v->nr_bos, r, &target) || !v3dval_field_ok(r->field_start, r->field_size, 64))
			return v3dval_fail(v, NULL, V3DVAL_ERR_RELOC, 0,
					   "relocation %u: bad kind, BO index, offset or field", i);
		v->keys[i] = (struct v3dval_rkey){ r->kind, r->cl_bo, r->cl_offset, i };
		v->applied[i] = 0;
	}
	if (in->nr_relocs > 1)
		qsort(v->keys, in->nr_relocs, sizeof(*v->keys), key_cmp);
	return 0;
}

/* Index into v->keys of the first reloc at or after (kind, bo, off), or nr_relocs. */
static uint32_t relocs_from(const struct v3dval *v, enum v3dval_reloc_kind kind, uint32_t bo, uint32_t off)
{
	uint32_t lo = 0, hi = v->in->nr_relocs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (key_cmp3(&v->keys[mid], kind, bo, off) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t v3dval_relocs_in(struct v3dval *v, enum v3dval_reloc_kind kind, uint32_t bo, uint32_t off,
			  uint32_t len, uint32_t *first)
{
	uint32_t lo = relocs_from(v, kind, bo, off);
	*first = lo;
	uint32_t n = 0;
	uint64_t end = (uint64_t)off + len;
	while (lo + n < v->in->nr_relocs) {
		const struct v3dval_rkey *k = &v->keys[lo + n];
		if (k->kind != kind || k->bo != bo || k->off >= end)
			break;
		n++;
	}
	return n;
}

void v3dval_apply_reloc(struct v3dval *v, uint32_t sorted_index, uint8_t *bytes)
{
	const struct v3dval_reloc *r = &v->in->relocs[v->keys[sorted_index].idx];
	uint32_t target = 0;
	v3dval_reloc_target(v->bos, v->nr_bos, r, &target); /* checked in prepare_relocs */
	v3d_cl_set_address(bytes, r->field_start, r->field_size, target);
	if (!v->applied[sorted_index]) {
		v->applied[sorted_index] = 1;
		v->relocs_applied++;
	}
}

/* The PACKET relocs of the packet at byte `off` of its BO: each names one of its address fields. */
static int relocate_packet(struct v3dval *v, const struct v3dval_where *w, uint32_t bo, uint32_t off,
			   uint8_t *pkt, uint32_t len)
{
	if (!v->in->nr_relocs)
		return 0;
	uint32_t first, n = v3dval_relocs_in(v, V3DVAL_RELOC_PACKET, bo, off, len, &first);
	for (uint32_t i = first; i < first + n; i++) {
		const struct v3dval_reloc *r = &v->in->relocs[v->keys[i].idx];
		if (r->cl_offset != off)
			return v3dval_fail(v, w, V3DVAL_ERR_RELOC, 0, "relocation at bo +0x%x is inside the packet, not at it",
					   r->cl_offset);
		const struct v3d_cl_addr_field *fields = v->op_fields[pkt[0]];
		size_t nf = v->op_nr_fields[pkt[0]], f = 0;
		while (f < nf && !(fields[f].start == r->field_start && fields[f].size == r->field_size))
			f++;
		if (f == nf)
			return v3dval_fail(v, w, V3DVAL_ERR_RELOC, 0, "relocated bits %u+%u are not an address field",
					   r->field_start, r->field_size);
		v3dval_apply_reloc(v, i, pkt + 1);
	}
	return 0;
}

/* ---- the walk --------------------------------------------------------------------------------- */

static int walk(struct v3dval *v, struct walk *k, uint32_t start, const struct v3dval_where *from);

/* The list ended (end address, HALT or RETURN) at byte end_off of seg. */
static int walk_ended(struct v3dval *v, struct walk *k, uint32_t seg, uint32_t end_off, const struct v3dval_where *w,
		      int last_opcode)
{
	k->end_seg = seg;
	k->end_off = end_off;
	if (k->level == V3DVAL_LEVEL_TOP && k->list == V3DVAL_LIST_RENDER && v->policy.require_end_of_rendering &&
	    last_opcode != V3D_CL_END_OF_RENDERING)
		return v3dval_fail(v, w, V3DVAL_ERR_NO_END, 0, "render list ends without End of rendering");
	return 0;
}

/* A sub-list call: an already walked sub-list of this list type is reused (a job may call the
 * same secondary list many times); anything else walked before is a cycle. */
static int call_sub_list(struct v3dval *v, const struct walk *k, const struct v3dval_where *w, uint32_t target)
{
	if (k->in_call)
		return v3dval_fail(v, w, V3DVAL_ERR_NESTING, target,
				   "call inside a sub-list (the CLE has one return register)");
	for (uint32_t i = 0; i < v->nr_segs - v->nr_blocks; i++) {
		const struct v3dval_seg *s = &v->segs[v->lists[i]];
		if (s->entry && s->level == V3DVAL_LEVEL_SUB_LIST && s->list == k->list && s->start == target)
			return v3dval_add_fixup(v, w, V3D_CL_BRANCH_ADDRESS, v->lists[i], 0);
	}
	struct walk sub = { .list = k->list, .level = V3DVAL_LEVEL_SUB_LIST, .in_call = true };
	if (walk(v, &sub, target, w))
		return -1;
	v->segs[sub.first_seg].entry = true;
	return v3dval_add_fixup(v, w, V3D_CL_BRANCH_ADDRESS, sub.first_seg, 0);
}

/* START_ADDRESS_OF_GENERIC_TILE_LIST: the list is walked now; both addresses move to the shadow. */
static int generic_tile_list(struct v3dval *v, const struct walk *k, const struct v3dval_where *w, const uint8_t *pkt)
{
	uint32_t gstart = v3d_cl_get_address(pkt + 1, V3D_CL_GENERIC_TILE_LIST_START);
	uint32_t gend = v3d_cl_get_address(pkt + 1, V3D_CL_GENERIC_TILE_LIST_END);
	uint32_t first = V3DVAL_NO_SEG, end_seg = V3DVAL_NO_SEG, end_off = 0;
	for (uint32_t i = 0; i < v->nr_segs - v->nr_blocks && first == V3DVAL_NO_SEG; i++) {
		const struct v3dval_seg *s = &v->segs[v->lists[i]];
		if (s->entry && s->level == V3DVAL_LEVEL_TILE_LIST && s->start == gstart && s->entry_end == gend) {
			first = v->lists[i];
			end_seg = s->end_seg;
			end_off = s->end_off;
		}
	}
	if (first == V3DVAL_NO_SEG) {
		struct walk tl = { .list = k->list, .level = V3DVAL_LEVEL_TILE_LIST, .has_end = true, .end = gend };
		if (walk(v, &tl, gstart, w))
			return -1;
		first = tl.first_seg;
		end_seg = tl.end_seg;
		end_off = tl.end_off;
		struct v3dval_seg *s = &v->segs[first];
		s->entry = true;
		s->entry_end = gend;
		s->end_seg = end_seg;
		s->end_off = end_off;
	}
	if (v3dval_add_fixup(v, w, V3D_CL_GENERIC_TILE_LIST_START, first, 0))
		return -1;
	return v3dval_add_fixup(v, w, V3D_CL_GENERIC_TILE_LIST_END, end_seg, end_off);
}

/* Copies the guest's bytes of seg from its copy's fill mark *copied up to at least `need`, in
 * chunks so that a list is not copied packet by packet, never past the BO's end (the caller
 * checked need against it). Every byte is copied once and only the copy is read afterwards.
 * A chunk is as long as what the segment already holds (256 B at first, 4 KiB at most), so a
 * short list - a hostile job may make thousands - is not copied kilobytes ahead. */
static int fill(struct v3dval *v, uint32_t seg, uint32_t *copied, uint32_t need, const struct v3dval_where *w)
{
	struct v3dval_seg *s = &v->segs[seg];
	const struct v3dval_bo *bo = &v->bos[s->bo];
	uint32_t from = s->start + *copied; /* inside the BO: need - *copied bytes from it are */
	uint64_t room = (uint64_t)bo->addr + bo->size - from;
	uint32_t n = need - *copied;
	uint32_t chunk = *copied < 256u ? 256u : *copied > 4096u ? 4096u : *copied;
	if (n < chunk)
		n = room < chunk ? (uint32_t)room : chunk;
	if (v3dval_seg_reserve(v, seg, *copied + n, w))
		return -1;
	memcpy(v->segs[seg].buf + *copied, (const uint8_t *)bo->map + (from - bo->addr), n);
	*copied += n;
	return 0;
}

/* The run of packets at pc that the loop below would pass with no effect but their count: opcodes
 * v->run_len gives for the segment's list and level, wholly inside what is copied, before the
 * list's end address, within the walk-byte budget and short of the next PACKET relocation (a
 * relocated packet takes the full path, which applies or refuses it). The first packet past
 * those bounds is left to the full path, which then fails or passes it as it would have.
 * Returns the run's bytes; *last_opcode = its last packet's opcode. */
static uint32_t plain_run(struct v3dval *v, const struct walk *k, uint32_t seg, uint32_t pc, uint32_t copied,
			  int *last_opcode)
{
	struct v3dval_seg *s = &v->segs[seg];
	uint32_t pos = pc - s->start;
	const uint8_t *lens = v->run_len[s->list == V3DVAL_LIST_RENDER][s->level == V3DVAL_LEVEL_TOP];
	if (pos >= copied || !lens[s->buf[pos]])
		return 0;
	uint32_t stop = copied - pos; /* bytes the run may take */
	if (k->has_end && k->end >= pc && k->end - pc < stop)
		stop = k->end - pc;
	if (v->policy.max_walk_bytes - v->bytes < stop) /* v->bytes never exceeds the limit */
		stop = (uint32_t)(v->policy.max_walk_bytes - v->bytes);
	if (v->in->nr_relocs) {
		uint32_t off = pc - v->bos[s->bo].addr;
		uint32_t i = relocs_from(v, V3DVAL_RELOC_PACKET, s->bo, off);
		if (i < v->in->nr_relocs) {
			const struct v3dval_rkey *r = &v->keys[i];
			if (r->kind == V3DVAL_RELOC_PACKET && r->bo == s->bo && r->off - off < stop)
				stop = r->off - off;
		}
	}
	const uint8_t *p = s->buf + pos;
	uint32_t run = 0, n = 0, len, last = 0;
	/* One by one, each packet's position waits on the previous packet's length. A run that
	 * starts as the last one walked so did (draws repeat their state packets) is taken whole
	 * when every opcode is where the memo puts it: those are the packets the loop would
	 * walk, as each has a length (run_len entries never change once set) and they fit. */
	struct v3dval_run_memo *m = &v->memo;
	if (m->lens == lens && m->n && m->bytes <= stop) {
		bool same = true;
		for (uint32_t i = 0; i < m->n; i++)
			same &= p[m->off[i]] == m->op[i];
		if (same) {
			run = m->bytes;
			n = m->n;
			last = m->off[n - 1];
		}
	}
	if (!n) {
		m->lens = lens;
		for (; run < stop && (len = lens[p[run]]) != 0 && len <= stop - run; n++) {
			if (n < V3DVAL_MEMO_PACKETS) {
				m->op[n] = p[run];
				m->off[n] = (uint16_t)run;
				m->bytes = run + len;
			}
			last = run;
			run += len;
		}
		m->n = (uint8_t)(n < V3DVAL_MEMO_PACKETS ? n : V3DVAL_MEMO_PACKETS);
	}
	for (; run < stop && (len = lens[p[run]]) != 0 && len <= stop - run; n++) {
		last = run;
		run += len;
	}
	if (n)
		*last_opcode = p[last];
	v->bytes += run;
	v->packets += n;
	s->end = pc + run;
	return run;
}

static int walk(struct v3dval *v, struct walk *k, uint32_t start, const struct v3dval_where *from)
{
	uint32_t seg = list_seg(v, k, start, from);
	if (seg == V3DVAL_NO_SEG)
		return -1;
	k->first_seg = seg;
	uint32_t pc = start, copied = 0; /* copied: bytes of seg's copy filled from the guest */
	int last_opcode = -1;
	for (;;) {
		pc += plain_run(v, k, seg, pc, copied, &last_opcode);
		const struct v3dval_bo *bo = &v->bos[v->segs[seg].bo];
		uint32_t pos = pc - v->segs[seg].start;
		struct v3dval_where w = { seg, pos, -1 };
		if (k->has_end && pc == k->end)
			return walk_ended(v, k, seg, pos, &w, last_opcode);

		uint64_t avail = (uint64_t)bo->addr + bo->size - pc;
		if (avail == 0) {
			w.opcode = last_opcode;
			return v3dval_fail(v, &w, V3DVAL_ERR_NO_END, pc,
					   "list runs off the end of its buffer without reaching its end");
		}
		/* The opcode (and the byte TRANSFORM_FEEDBACK_SPECS' length needs) comes from the copy,
		 * then the rest: the length is decided on the copy, never on guest memory that may change. */
		uint32_t head = avail < 2 ? (uint32_t)avail : 2;
		if (pos + head > copied && fill(v, seg, &copied, pos + head, &w))
			return -1;
		uint8_t op = v->segs[seg].buf[pos];
		w.opcode = op;
		uint32_t len = v->op_len[op];
		if (op == V3D_CL_TRANSFORM_FEEDBACK_SPECS)
			len = v3d_cl_packet_length(v->policy.ver, v->segs[seg].buf + pos, head);
		if (len == 0)
			return v3dval_fail(v, &w, V3DVAL_ERR_UNKNOWN, 0, "opcode %u does not exist on V3D %d.%d", op,
					   v->policy.ver / 10, v->policy.ver % 10);
		if (len > avail)
			return v3dval_fail(v, &w, V3DVAL_ERR_NO_END, pc,
					   "packet of %u bytes runs past the end of its buffer", len);
		if (k->has_end && pc < k->end && (uint64_t)pc + len > k->end)
			return v3dval_fail(v, &w, V3DVAL_ERR_NO_END, k->end,
					   "packet straddles the list's end address 0x%08x", k->end);
		v->bytes += len;
		if (v->bytes > v->policy.max_walk_bytes)
			return v3dval_fail(v, &w, V3DVAL_ERR_LIMIT, 0, "more than %llu list bytes",
					   (unsigned long long)v->policy.max_walk_bytes);
		if (pos + len > copied && fill(v, seg, &copied, pos + len, &w))
			return -1;
		uint8_t *pkt = v->segs[seg].buf + pos;
		v->segs[seg].end = pc + len;
		v->packets++;

		if (relocate_packet(v, &w, v->segs[seg].bo, pc - bo->addr, pkt, len))
			return -1;
		const struct v3dval_seg *cur = &v->segs[seg];
		if (!v3dval_packet_plain(v, cur->list, cur->level == V3DVAL_LEVEL_TOP, op) &&
		    v3dval_check_packet(v, &w, pkt, len))
			return -1;

		switch (op) {
		case V3D_CL_HALT:
			return walk_ended(v, k, seg, pos + len, &w, last_opcode);
		case V3D_CL_RETURN_FROM_SUB_LIST:
			if (!k->in_call && k->level != V3DVAL_LEVEL_TILE_LIST)
				return v3dval_fail(v, &w, V3DVAL_ERR_NESTING, 0, "Return from sub-list with no sub-list");
			return walk_ended(v, k, seg, pos + len, &w, op);
		case V3D_CL_BRANCH: {
			uint32_t target = v3d_cl_get_address(pkt + 1, V3D_CL_BRANCH_ADDRESS);
			uint32_t next = list_seg(v, k, target, &w);
			if (next == V3DVAL_NO_SEG || v3dval_add_fixup(v, &w, V3D_CL_BRANCH_ADDRESS, next, 0))
				return -1;
			seg = next;
			pc = target;
			copied = 0;
			last_opcode = op;
			continue;
		}
		case V3D_CL_BRANCH_TO_SUB_LIST:
			if (call_sub_list(v, k, &w, v3d_cl_get_address(pkt + 1, V3D_CL_BRANCH_ADDRESS)))
				return -1;
			break;
		case V3D_CL_BRANCH_TO_IMPLICIT_TILE_LIST:
			if (k->in_call)
				return v3dval_fail(v, &w, V3DVAL_ERR_NESTING, 0,
						   "implicit tile list called inside a sub-list (one return register)");
			break;
		case V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST:
			if (generic_tile_list(v, k, &w, pkt))
				return -1;
			break;
		case V3D_CL_GL_SHADER_STATE:
		case V3D_CL_GL_SHADER_STATE_INCLUDING_TS:
		case V3D_CL_GL_SHADER_STATE_INCLUDING_GS:
		case V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS: {
			uint32_t block;
			uint32_t addr = v3d_cl_get_address(pkt + 1, V3D_CL_GL_SHADER_ADDRESS);
			uint32_t attrs = (uint32_t)v3d_cl_get(pkt + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES);
			if (v3dval_shader_block(v, &w, op, addr, attrs, &block) ||
			    v3dval_add_fixup(v, &w, V3D_CL_GL_SHADER_ADDRESS, block, 0))
				return -1;
			break;
		}
		default:
			/* the walker has nothing to do with it either; a variable length needs the full path */
			if (op != V3D_CL_TRANSFORM_FEEDBACK_SPECS &&
			    v3dval_packet_plain(v, cur->list, cur->level == V3DVAL_LEVEL_TOP, op))
				v->run_len[cur->list == V3DVAL_LIST_RENDER][cur->level == V3DVAL_LEVEL_TOP][op] = (uint8_t)len;
			break;
		}
		last_opcode = op;
		pc += len;
	}
}

/* ---- shadows ---------------------------------------------------------------------------------- */

static int alloc_shadow(struct v3dval *v, const struct v3dval_shadow_allocator *alloc, uint32_t size,
			struct v3dval_shadow *out)
{
	struct v3dval_shadow sh = { 0, NULL };
	if (alloc->alloc(alloc->ctx, size, &sh) < 0 || !sh.map)
		return v3dval_fail(v, NULL, V3DVAL_ERR_SHADOW, 0, "shadow allocation of %u bytes failed", size);
	if (sh.addr % V3DVAL_SHADOW_ALIGN || (uint64_t)sh.addr + size > (1ull << 32))
		return v3dval_fail(v, NULL, V3DVAL_ERR_SHADOW, sh.addr, "shadow 0x%08x misaligned or past 4 GiB", sh.addr);
	*out = sh;
	return 0;
}

/* Host-private tile memory for the bin job (policy.shadow_tile_memory): the PTB writes the tile
 * lists there and the render job's tile list bases are moved into it, so the implicit tile lists
 * the render job executes are out of the guest's reach. Both start zeroed: the PTB terminates
 * the lists only at the FLUSH that ends binning, and a bin list that stops before it (HALT, an
 * earlier end address) would otherwise leave the render job running whatever the recycled
 * shadow memory held (other jobs' lists, with addresses checked for another time); zeroes are
 * HALTs. The tile state array is zeroed as a fresh kernel BO would be. */
static int tile_memory_shadows(struct v3dval *v, const struct v3dval_shadow_allocator *alloc)
{
	const struct v3dval_cl_submit *in = v->in;
	v->qma_shadow = (struct v3dval_shadow){ in->qma, NULL };
	v->qts_shadow = (struct v3dval_shadow){ in->qts, NULL };
	if (!v->policy.shadow_tile_memory || in->bcl_start == in->bcl_end)
		return 0;
	if (in->qms) {
		if (alloc_shadow(v, alloc, in->qms + v->readahead, &v->qma_shadow))
			return -1;
		memset(v->qma_shadow.map, 0, (size_t)in->qms + v->readahead);
	}
	if (in->qts) {
		uint32_t size = v->tile_state_bytes ? v->tile_state_bytes : 256u;
		if (alloc_shadow(v, alloc, size, &v->qts_shadow))
			return -1;
		memset(v->qts_shadow.map, 0, size);
	}
	for (uint32_t i = 0; i < v->nr_tlsbs; i++) {
		const struct v3dval_tlsb *t = &v->tlsbs[i];
		if (!in->qms || t->addr < in->qma || t->addr - in->qma >= in->qms)
			continue; /* never used by an implicit tile list (check_job), left as it is */
		v3d_cl_set_address(v->segs[t->seg].buf + t->pos + 1, V3D_CL_TLSB_ADDRESS,
				   v->qma_shadow.addr + (t->addr - in->qma));
	}
	return 0;
}

static int make_shadows(struct v3dval *v, const struct v3dval_shadow_allocator *alloc)
{
	for (uint32_t i = 0; i < v->nr_segs - v->nr_blocks; i++) {
		struct v3dval_seg *s = &v->segs[v->lists[i]];
		/* lists get the CLE's read-ahead of zeroes (HALTs) so the prefetcher stays inside */
		if (alloc_shadow(v, alloc, s->end - s->start + v->readahead, &s->shadow))
			return -1;
	}
	if (v->nr_blocks) {
		/* no fixup patches a block: their copies go to the shadow as they are */
		struct v3dval_shadow blocks;
		if (alloc_shadow(v, alloc, v->block_used, &blocks))
			return -1;
		memcpy(blocks.map, v->block_bytes, v->block_used);
		for (uint32_t i = 0; i < v->nr_segs; i++) {
			struct v3dval_seg *s = &v->segs[i];
			if (s->block)
				s->shadow = (struct v3dval_shadow){ blocks.addr + s->at, (uint8_t *)blocks.map + s->at };
		}
	}
	if (tile_memory_shadows(v, alloc))
		return -1;
	for (uint32_t i = 0; i < v->nr_fixups; i++) {
		const struct v3dval_fixup *f = &v->fixups[i];
		uint32_t target = v->segs[f->target_seg].shadow.addr + f->target_off;
		v3d_cl_set_address(v->segs[f->seg].buf + f->pos, f->start, f->size, target);
	}
	for (uint32_t i = 0; i < v->nr_segs - v->nr_blocks; i++) {
		const struct v3dval_seg *s = &v->segs[v->lists[i]];
		uint32_t len = s->end - s->start;
		if (len)
			memcpy(s->shadow.map, s->buf, len);
		memset((uint8_t *)s->shadow.map + len, 0, v->readahead);
	}
	return 0;
}

/* ---- entry point ------------------------------------------------------------------------------ */

int v3dval_validate_cl(struct v3dval *v, const struct v3dval_cl_submit *submit,
		       const struct v3dval_shadow_allocator *alloc, struct v3dval_cl_result *result,
		       struct v3dval_error *err)
{
	v->err = err;
	v->in = submit;
	v->bos = submit->bos;
	v->nr_bos = submit->nr_bos;
	v->nr_segs = v->nr_fixups = v->nr_tlsbs = v->nr_blocks = v->block_used = 0;
	v->memo.n = 0;
	v->bytes = 0;
	v->packets = v->relocs_applied = v->tile_state_bytes = 0;
	memset(&v->frame, 0, sizeof(v->frame));
	v->bo_hint = UINT32_MAX;
	v->hint_addr = v->hint_size = 0;
	if (v->block_hash)
		memset(v->block_hash, 0, (size_t)v->block_hash_cap * sizeof(*v->block_hash));

	if (!alloc || !alloc->alloc)
		return v3dval_fail(v, NULL, V3DVAL_ERR_INPUT, 0, "no shadow allocator");
	if (v3dval_check_bos(submit->bos, submit->nr_bos, err) || prepare_relocs(v))
		return -1;

	bool bin = submit->bcl_start != submit->bcl_end;
	struct walk bcl = { .list = V3DVAL_LIST_BIN, .has_end = true, .end = submit->bcl_end };
	struct walk rcl = { .list = V3DVAL_LIST_RENDER, .has_end = true, .end = submit->rcl_end };
	if (bin && walk(v, &bcl, submit->bcl_start, NULL))
		return -1;
	if (walk(v, &rcl, submit->rcl_start, NULL))
		return -1;
	if (v3dval_check_job(v) || make_shadows(v, alloc))
		return -1;

	memset(result, 0, sizeof(*result));
	if (bin) {
		result->bcl_start = v->segs[bcl.first_seg].shadow.addr;
		result->bcl_end = v->segs[bcl.end_seg].shadow.addr + bcl.end_off;
	}
	result->rcl_start = v->segs[rcl.first_seg].shadow.addr;
	result->rcl_end = v->segs[rcl.end_seg].shadow.addr + rcl.end_off;
	result->qma = v->qma_shadow.addr;
	result->qms = submit->qms;
	result->qts = v->qts_shadow.addr;
	result->nr_blocks = v->nr_blocks;
	result->nr_segments = v->nr_segs - v->nr_blocks;
	result->bytes = v->bytes;
	result->packets = v->packets;
	result->relocs_applied = v->relocs_applied;
	return 0;
}
