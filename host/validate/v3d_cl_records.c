/* Shader-state blocks named by GL_SHADER_STATE / _INCLUDING_GS: copied out of the guest like a
 * list, relocated, their code / uniform / attribute pointers checked, and shadowed so that what
 * the CLE reads is what was checked. The shaders themselves are not and cannot be confined
 * (v3d_validate.h, security model). */
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "v3d_val_internal.h"

static uint32_t block_key(uint32_t addr, uint8_t op, uint32_t attrs, uint32_t list)
{
	uint32_t h = addr * 0x9e3779b1u ^ ((uint32_t)op << 8 | attrs << 1 | list) * 0x85ebca6bu;
	return h ^ (h >> 15);
}

static bool block_matches(const struct v3dval_seg *s, uint32_t addr, uint8_t op, uint32_t attrs, uint32_t list)
{
	return s->block && s->start == addr && s->opcode == op && s->nr_attrs == attrs && s->list == list;
}

/* The block's segment, or V3DVAL_NO_SEG with *slot = the empty slot it would go to (UINT32_MAX:
 * no table yet), so that adding it needs no second probe. */
static uint32_t block_find(const struct v3dval *v, uint32_t addr, uint8_t op, uint32_t attrs, uint32_t list,
			   uint32_t *slot)
{
	*slot = UINT32_MAX;
	if (!v->block_hash_cap)
		return V3DVAL_NO_SEG;
	uint32_t mask = v->block_hash_cap - 1;
	for (uint32_t i = block_key(addr, op, attrs, list) & mask;; i = (i + 1) & mask) {
		uint32_t e = v->block_hash[i];
		if (!e) {
			*slot = i;
			return V3DVAL_NO_SEG;
		}
		if (block_matches(&v->segs[e - 1], addr, op, attrs, list))
			return e - 1;
	}
}

static void block_put(struct v3dval *v, uint32_t seg)
{
	const struct v3dval_seg *s = &v->segs[seg];
	uint32_t mask = v->block_hash_cap - 1;
	uint32_t i = block_key(s->start, s->opcode, s->nr_attrs, s->list) & mask;
	while (v->block_hash[i])
		i = (i + 1) & mask;
	v->block_hash[i] = seg + 1;
}

/* Keeps the table at most half full; *slot = UINT32_MAX when it was rebuilt (the slot block_find
 * gave no longer holds). */
static int block_reserve(struct v3dval *v, const struct v3dval_where *w, uint32_t *slot)
{
	if ((uint64_t)(v->nr_blocks + 1) * 2 <= v->block_hash_cap)
		return 0;
	*slot = UINT32_MAX;
	uint32_t cap = v->block_hash_cap ? v->block_hash_cap * 2 : 256;
	uint32_t *table = calloc(cap, sizeof(*table));
	if (!table)
		return v3dval_fail(v, w, V3DVAL_ERR_NOMEM, 0, NULL);
	free(v->block_hash);
	v->block_hash = table;
	v->block_hash_cap = cap;
	for (uint32_t i = 0; i < v->nr_segs; i++)
		if (v->segs[i].block)
			block_put(v, i);
	return 0;
}

/* Bytes an address field must reach inside the context: a QPU instruction (8 B) for shader code
 * (the 29-bit fields), a word for uniform, default-attribute and attribute pointers, which may
 * also be 0 when unused. */
static uint32_t field_need(const struct v3d_cl_addr_field *f)
{
	return f->size < 32 ? 8u : 4u;
}

void v3dval_struct_words(struct v3dval *v)
{
	for (int k = 0; k <= V3D_CL_STRUCT_TEXTURE_SHADER_STATE; k++) {
		const struct v3d_cl_addr_field *f = v->struct_fields[k];
		size_t n = v->struct_nr_fields[k];
		v->words_ok[k] = n <= V3DVAL_MAX_WORD_FIELDS;
		for (size_t i = 0; i < n && v->words_ok[k]; i++) {
			unsigned end = f[i].start + f[i].size;
			if (f[i].size == 0 || f[i].size > 32 || end % 32u) {
				v->words_ok[k] = false;
				break;
			}
			v->struct_words[k][i] = (struct v3dval_word_field){
				.at = (uint16_t)(end / 8u - 4u), .need = (uint8_t)field_need(&f[i]),
				.mask = ~0u << (32u - f[i].size),
			};
		}
	}
	enum { GL = V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, ATTR = V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD,
	       GS = V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD };
	v->block_per_attr = v->struct_nr_fields[ATTR];
	for (int gs = 0; gs < 2; gs++) {
		struct v3dval_word_field *t = v->block_words[gs];
		uint32_t n = 0, prefix = gs ? V3DVAL_GS_PREFIX_BYTES : 0;
		v->block_words_ok[gs] = v->words_ok[GL] && v->words_ok[ATTR] && (!gs || v->words_ok[GS]);
		if (!v->block_words_ok[gs])
			continue;
		/* the order check_structs goes in, so the first field outside is the one it reports */
		for (uint32_t i = 0; gs && i < v->struct_nr_fields[GS]; i++, n++)
			t[n] = v->struct_words[GS][i];
		for (uint32_t i = 0; i < v->struct_nr_fields[GL]; i++, n++) {
			t[n] = v->struct_words[GL][i];
			t[n].at = (uint16_t)(t[n].at + prefix);
		}
		v->block_base[gs] = (uint8_t)n;
		for (uint32_t a = 0; a < V3DVAL_MAX_ATTRIBUTES; a++)
			for (uint32_t i = 0; i < v->block_per_attr; i++, n++) {
				t[n] = v->struct_words[ATTR][i];
				t[n].at = (uint16_t)(t[n].at + prefix + v->struct_size[GL] + a * v->struct_size[ATTR]);
			}
	}
}

/* The error for field `field` of the structure of `kind` at byte off of seg. */
static int struct_address_fails(struct v3dval *v, uint32_t seg, uint32_t off, enum v3d_cl_struct kind, size_t field,
				 uint32_t addr)
{
	return v3dval_fail_at(v, seg, off, v->segs[seg].opcode, V3DVAL_ERR_ADDRESS, addr,
			      "%s 0x%08x outside the context's buffers", v->struct_fields[kind][field].name, addr);
}

/* The address fields of `count` structures of `kind` one after the other from byte off of seg's
 * copy, each inside the context (field_need). */
static int check_structs(struct v3dval *v, uint32_t seg, uint32_t off, enum v3d_cl_struct kind, uint32_t count)
{
	const uint8_t *rec = v3dval_seg_bytes(v, &v->segs[seg]) + off;
	uint32_t stride = v->struct_size[kind];
	size_t n = v->struct_nr_fields[kind];
	if (!v->words_ok[kind]) {
		for (uint32_t r = 0; r < count; r++, rec += stride)
			for (size_t i = 0; i < n; i++) {
				const struct v3d_cl_addr_field *f = &v->struct_fields[kind][i];
				uint32_t addr = v3d_cl_get_address(rec, f->start, f->size), need = field_need(f);
				if ((need != 4 || addr) && v3dval_find_range_hint(v, addr, need) < 0)
					return struct_address_fails(v, seg, off + r * stride, kind, i, addr);
			}
		return 0;
	}
	/* = v3d_cl_get_address, for fields that end a word; the hint's range held in locals */
	const struct v3dval_word_field *words = v->struct_words[kind];
	uint32_t lo = v->hint_addr, size = v->hint_size;
	for (uint32_t r = 0; r < count; r++, rec += stride) {
		for (size_t i = 0; i < n; i++) {
			const uint8_t *b = rec + words[i].at;
			uint32_t addr = ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24) &
					words[i].mask;
			uint32_t need = words[i].need, rel = addr - lo;
			if ((need == 4 && addr == 0) || (rel < size && need <= size - rel))
				continue;
			if (v3dval_find_range_hint(v, addr, need) < 0)
				return struct_address_fails(v, seg, off + r * stride, kind, i, addr);
			lo = v->hint_addr;
			size = v->hint_size;
		}
	}
	return 0;
}

/* check_structs over all of a block's structures in one pass of the flat table
 * (v3dval_struct_words): 0 when every field is inside the context, else -1 with nothing reported
 * (the per-structure path then says which field). */
static int check_block_words(struct v3dval *v, const uint8_t *block, bool gs, uint32_t nr_attrs)
{
	const struct v3dval_word_field *t = v->block_words[gs];
	uint32_t n = v->block_base[gs] + v->block_per_attr * nr_attrs; /* nr_attrs <= V3DVAL_MAX_ATTRIBUTES */
	uint32_t lo = v->hint_addr, size = v->hint_size;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *b = block + t[i].at;
		uint32_t addr = ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24) &
				t[i].mask;
		uint32_t need = t[i].need;
		/* rel + need in 64 bits: an addr below lo wraps rel to at least 4 GiB - lo, past size */
		if ((uint64_t)(addr - lo) + need <= size || (need == 4 && addr == 0))
			continue;
		if (v3dval_find_range_hint(v, addr, need) < 0)
			return -1;
		lo = v->hint_addr;
		size = v->hint_size;
	}
	return 0;
}

/* The block's structures one by one, each field's failure reported by name: blocks the one pass
 * (check_block_words) did not take, or refused. Out of line, as blocks normally pass that one. */
static __attribute__((noinline)) int check_block_structs(struct v3dval *v, uint32_t seg, uint32_t prefix,
							 uint32_t gl, uint32_t nr_attrs)
{
	if (prefix && check_structs(v, seg, 0, V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD, 1))
		return -1;
	if (check_structs(v, seg, prefix, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, 1) ||
	    check_structs(v, seg, prefix + gl, V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD, nr_attrs))
		return -1;
	/* the same fields passed here: had the one pass refused the block, refuse it still */
	const struct v3dval_seg *s = &v->segs[seg];
	if (v->block_words_ok[prefix != 0])
		return v3dval_fail_at(v, seg, 0, s->opcode, V3DVAL_ERR_ADDRESS, s->start, "shader state block checks disagree");
	return 0;
}

/* A block copied in 16-byte pieces, then 8 and 4, rather than by memcpy: the checks read the
 * copy's words right after, and a word inside one earlier store forwards from it, where the
 * overlapping stores a small memcpy ends with (and its call) make those loads wait. Blocks are
 * whole words; a tail would be copied. */
static void copy_words(uint8_t *dst, const uint8_t *src, uint32_t bytes)
{
	uint32_t i = 0;
	for (; i + 16 <= bytes; i += 16) {
		uint8_t piece[16];
		memcpy(piece, src + i, 16);
		memcpy(dst + i, piece, 16);
	}
	for (; i + 8 <= bytes; i += 8) {
		uint64_t pair;
		memcpy(&pair, src + i, 8);
		memcpy(dst + i, &pair, 8);
	}
	for (; i + 4 <= bytes; i += 4) {
		uint32_t word;
		memcpy(&word, src + i, 4);
		memcpy(dst + i, &word, 4);
	}
	if (i < bytes) /* not a libc call per block for nothing */
		memcpy(dst + i, src + i, bytes - i);
}

/* Which structure of the block starts at byte rel, or -1. */
static int struct_at(uint32_t rel, uint32_t prefix, uint32_t gl, uint32_t attrs, enum v3d_cl_struct *kind)
{
	if (prefix && rel == 0) {
		*kind = V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD;
		return 0;
	}
	if (rel == prefix) {
		*kind = V3D_CL_STRUCT_GL_SHADER_STATE_RECORD;
		return 0;
	}
	if (rel >= prefix + gl && (rel - prefix - gl) % 16u == 0 && (rel - prefix - gl) / 16u < attrs) {
		*kind = V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD;
		return 0;
	}
	return -1;
}

static int relocate_block(struct v3dval *v, uint32_t seg, uint32_t prefix, uint32_t gl)
{
	if (!v->in->nr_relocs)
		return 0;
	struct v3dval_seg *s = &v->segs[seg];
	uint32_t off = s->start - v->bos[s->bo].addr, len = s->end - s->start;
	uint32_t first, n = v3dval_relocs_in(v, V3DVAL_RELOC_RECORD, s->bo, off, len, &first);
	for (uint32_t i = first; i < first + n; i++) {
		const struct v3dval_reloc *r = &v->in->relocs[v->keys[i].idx];
		uint32_t rel = r->cl_offset - off;
		enum v3d_cl_struct kind;
		if (struct_at(rel, prefix, gl, s->nr_attrs, &kind))
			return v3dval_fail_at(v, seg, rel, s->opcode, V3DVAL_ERR_RELOC, 0,
					      "relocation at +0x%x does not start a shader state structure", rel);
		const struct v3d_cl_addr_field *fields = v->struct_fields[kind];
		size_t nf = v->struct_nr_fields[kind], f = 0;
		while (f < nf && !(fields[f].start == r->field_start && fields[f].size == r->field_size))
			f++;
		if (f == nf)
			return v3dval_fail_at(v, seg, rel, s->opcode, V3DVAL_ERR_RELOC, 0,
					      "relocated bits %u+%u are not an address field", r->field_start, r->field_size);
		v3dval_apply_reloc(v, i, v3dval_seg_bytes(v, s) + rel);
	}
	return 0;
}

int v3dval_shader_block(struct v3dval *v, const struct v3dval_where *w, uint8_t op, uint32_t addr,
			uint32_t nr_attrs, uint32_t *seg_out)
{
	uint32_t list = v->segs[w->seg].list;
	if (op == V3D_CL_GL_SHADER_STATE_INCLUDING_TS || op == V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS)
		return v3dval_fail(v, w, V3DVAL_ERR_UNSUPPORTED, addr, "tessellation shader state is not validated");
	if (nr_attrs == 0 || nr_attrs > V3DVAL_MAX_ATTRIBUTES)
		return v3dval_fail(v, w, V3DVAL_ERR_MALFORMED, 0, "%u attribute arrays (1..%u)", nr_attrs,
				   V3DVAL_MAX_ATTRIBUTES);
	uint32_t slot, found = block_find(v, addr, op, nr_attrs, list, &slot);
	if (found != V3DVAL_NO_SEG) {
		*seg_out = found;
		return 0;
	}
	uint32_t prefix = op == V3D_CL_GL_SHADER_STATE_INCLUDING_GS ? V3DVAL_GS_PREFIX_BYTES : 0;
	uint32_t gl = v->struct_size[V3D_CL_STRUCT_GL_SHADER_STATE_RECORD];
	uint32_t total = prefix + gl + v->struct_size[V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD] * nr_attrs;
	int bo = v3dval_find_range_hint(v, addr, total);
	if (bo < 0 || !v->bos[bo].map)
		return v3dval_fail(v, w, V3DVAL_ERR_TARGET, addr,
				   "shader state 0x%08x (+%u bytes) not inside a readable buffer of the context", addr, total);
	if (v->nr_blocks >= v->policy.max_blocks)
		return v3dval_fail(v, w, V3DVAL_ERR_LIMIT, addr, "more than %u shader state blocks", v->policy.max_blocks);
	if (block_reserve(v, w, &slot))
		return -1;
	/* total is at most a few hundred bytes and max_blocks bounds the count: no overflow */
	uint32_t at = (v->block_used + v->block_align - 1) & ~(v->block_align - 1);
	if (at + total > v->block_cap && FERRY_ARRAY_RESERVE(v->block_bytes, v->block_cap, (size_t)at + total, 4096))
		return v3dval_fail(v, w, V3DVAL_ERR_NOMEM, 0, NULL);
	uint32_t seg = v3dval_new_block(v, (uint32_t)bo, addr, w);
	if (seg == V3DVAL_NO_SEG)
		return -1;
	struct v3dval_seg *s = &v->segs[seg];
	s->opcode = op;
	s->nr_attrs = (uint8_t)nr_attrs;
	/* The gap up to at gets zeroes, not an earlier job's bytes. It is under 32 bytes and a block
	 * is longer (reserved above), so 32 zeroes from block_used - stores the compiler makes inline,
	 * no libc call per block - cover it, and the copy then overwrites those from at. */
	uint8_t *gap = v->block_bytes + v->block_used;
	if (at - v->block_used <= 32u && total >= 32u)
		memset(gap, 0, 32);
	else
		memset(gap, 0, at - v->block_used);
	s->at = at;
	v->block_used = at + total;
	copy_words(v3dval_seg_bytes(v, s), (const uint8_t *)v->bos[bo].map + (addr - v->bos[bo].addr), total);
	s->end = addr + total;
	if (slot == UINT32_MAX)
		block_put(v, seg);
	else
		v->block_hash[slot] = seg + 1;

	if (relocate_block(v, seg, prefix, gl))
		return -1;
	bool gs = prefix != 0;
	if (!v->block_words_ok[gs] || check_block_words(v, v3dval_seg_bytes(v, s), gs, nr_attrs))
		if (check_block_structs(v, seg, prefix, gl, nr_attrs))
			return -1;
	*seg_out = seg;
	return 0;
}
