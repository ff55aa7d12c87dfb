/* Internals shared by the V3D validator's files: the validator object, the walked segments and
 * their fixups, the per-job frame state, BO lookups, surface extents and error reporting. */
#ifndef FERRY_V3D_VAL_INTERNAL_H
#define FERRY_V3D_VAL_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "v3d_validate.h"

#define V3DVAL_NO_SEG UINT32_MAX
#define V3DVAL_MAX_TILE_LIST_SETS 16u
#define V3DVAL_MAX_ATTRIBUTES 16u
/* GS variant: geometry record, tess/geometry common params, bin and render shader params */
#define V3DVAL_GS_PREFIX_BYTES (16u + 4u + 8u + 8u)

/* A run of consecutive packets copied from one BO (a list segment), or one shader-state block. */
struct v3dval_seg {
	uint32_t start, end;  /* guest [start, end) copied so far */
	uint32_t bo;          /* index into bos[] */
	uint8_t list;         /* enum v3dval_list */
	uint8_t level;        /* enum v3dval_level */
	bool entry;           /* starts a sub-list / generic tile list (reusable by a later call) */
	bool block;           /* a shader-state block */
	uint32_t entry_end;   /* generic tile list: its end address (part of the reuse key) */
	uint32_t end_seg;     /* generic tile list entry: where its end address maps to */
	uint32_t end_off;
	uint8_t opcode;       /* block: the GL_SHADER_STATE* opcode */
	uint8_t nr_attrs;     /* block: attribute records */
	uint8_t *buf;         /* a list's copy; kept across jobs, grown on demand */
	uint32_t cap;
	uint32_t at;          /* block: where its copy is in v->block_bytes (v3dval_seg_bytes) and its
			       * shadow in the blocks' shadow */
	struct v3dval_shadow shadow;
};

/* A field of a copied packet to point at a shadow once shadows exist. */
struct v3dval_fixup {
	uint32_t seg, pos;    /* seg's copy, byte offset of the packet's payload */
	uint16_t start;
	uint8_t size;
	uint32_t target_seg, target_off;
};

struct v3dval_rkey {
	uint32_t kind, bo, off, idx;
};

struct v3dval_tlsb {
	uint32_t addr;
	uint32_t seg, pos;    /* where the packet is, for the error */
};

/* What the render / bin list configured, in execution order. */
struct v3dval_frame {
	bool common;                    /* TILE_RENDERING_MODE_CFG (Common) seen */
	uint32_t width, height;         /* pixels */
	uint32_t tile_w, tile_h;
	bool supertile_cfg;
	uint32_t frame_tiles_x, frame_tiles_y;
	bool block_size_set;
	uint32_t block;                 /* initial tile list block, bytes */
	bool frozen;                    /* tile work started: the frame geometry can no longer change */
	uint16_t tlsb_sets;             /* tile list sets given a base */
	bool implicit;                  /* BRANCH_TO_IMPLICIT_TILE_LIST used */

	bool tbm;                       /* TILE_BINNING_MODE_CFG seen */
	uint32_t bin_tiles_x, bin_tiles_y, bin_layers, bin_block;
};

/* Where the walker is, for rules and error messages. */
struct v3dval_where {
	uint32_t seg;         /* segment holding the packet */
	uint32_t pos;         /* byte offset of the opcode in that segment's copy */
	int opcode;
};

#define V3DVAL_MAX_WORD_FIELDS 8u
#define V3DVAL_MEMO_PACKETS 16u
#define V3DVAL_BLOCK_WORDS (2u * V3DVAL_MAX_WORD_FIELDS + V3DVAL_MAX_ATTRIBUTES * V3DVAL_MAX_WORD_FIELDS)

struct v3dval {
	struct v3dval_policy policy;
	uint32_t readahead;

	/* per call */
	const struct v3dval_cl_submit *in;
	const struct v3dval_bo *bos;
	uint32_t nr_bos;
	struct v3dval_error *err;
	struct v3dval_frame frame;
	uint64_t bytes;
	uint32_t packets, relocs_applied;
	uint32_t tile_state_bytes;      /* the bin job's TSDA: 256 B per tile and layer */
	struct v3dval_shadow qma_shadow, qts_shadow;

	struct v3dval_seg *segs;
	uint32_t nr_segs, cap_segs, nr_blocks;
	/* the list segments' indices into segs[] in walk order (nr_segs - nr_blocks of them): what
	 * the cycle and reuse checks scan, not the shader-state blocks between them */
	uint32_t *lists;
	uint32_t cap_lists;
	/* the shader-state blocks' copies one after the other, each at a multiple of block_align
	 * (what GL_SHADER_STATE's address field can name), zeroes between: a block is small and
	 * there may be one per draw, so they share one buffer (kept across jobs) and one shadow
	 * laid out the same */
	uint8_t *block_bytes;
	uint32_t block_used, block_cap, block_align;
	struct v3dval_fixup *fixups;
	uint32_t nr_fixups, cap_fixups;
	struct v3dval_tlsb *tlsbs;
	uint32_t nr_tlsbs, cap_tlsbs;

	/* relocs sorted by (kind, cl_bo, cl_offset, index); applied[i] for relocs[keys[i].idx] */
	struct v3dval_rkey *keys;
	uint8_t *applied;
	uint32_t cap_relocs;

	/* block reuse: open-addressing hash of (addr, opcode, attrs) -> seg, rebuilt per call */
	uint32_t *block_hash;
	uint32_t block_hash_cap;

	/* per call: the BO the last range lookup found (draws point into few BOs), and its range
	 * (hint_size 0: none yet) */
	uint32_t bo_hint, hint_addr, hint_size;

	/* per opcode, from protocol/hw/v3d_cl.c at create (the per-packet lookups there are switches):
	 * fixed length for the version (0: unknown opcode) and the packet's address fields */
	uint8_t op_len[256];
	uint8_t op_nr_fields[256];
	const struct v3d_cl_addr_field *op_fields[256];
	/* the same per out-of-line structure (enum v3d_cl_struct), and its size in bytes */
	uint8_t struct_nr_fields[V3D_CL_STRUCT_TEXTURE_SHADER_STATE + 1];
	uint8_t struct_size[V3D_CL_STRUCT_TEXTURE_SHADER_STATE + 1];
	const struct v3d_cl_addr_field *struct_fields[V3D_CL_STRUCT_TEXTURE_SHADER_STATE + 1];
	/* struct_fields[] read as words, derived at create (v3dval_struct_words): a field that ends
	 * on a 32-bit boundary holds the high bits of that little-endian word, so its address is
	 * the word at byte `at` & mask, no shifts by field; need: the bytes it must reach in the
	 * context (8: shader code, 4: a pointer, which 0 may leave unused). words_ok[kind]: every
	 * field is so. */
	struct v3dval_word_field { uint16_t at; uint8_t need; uint32_t mask; } struct_words[V3D_CL_STRUCT_TEXTURE_SHADER_STATE + 1][V3DVAL_MAX_WORD_FIELDS];
	bool words_ok[V3D_CL_STRUCT_TEXTURE_SHADER_STATE + 1];
	/* The same fields for a whole shader-state block, GL_SHADER_STATE (0) or _INCLUDING_GS (1),
	 * in check order with `at` from the block's start: the GS record's, the GL record's, then
	 * block_per_attr per attribute record for up to V3DVAL_MAX_ATTRIBUTES of them; a block of
	 * n attribute records has block_base + n * block_per_attr. block_words_ok: all are words. */
	struct v3dval_word_field block_words[2][V3DVAL_BLOCK_WORDS];
	uint8_t block_base[2], block_per_attr;
	bool block_words_ok[2];
	/* Per list (bin 0, render 1) and top-level list or not, the opcodes whose
	 * v3dval_check_packet is its list and level test alone and passed: set by the cases that
	 * read neither payload nor job state (its default for packets without addresses, and the
	 * ones the walker follows), so a later packet of that opcode there would pass again (the
	 * policy is fixed at create). v3dval_packet_plain. */
	uint32_t plain[2][2][8];
	/* Per list and level as plain[]: the length of a plain opcode the walker does nothing with
	 * either (no control flow, a fixed length), else 0. Set by the walker as it meets them; a
	 * run of such packets needs nothing but its bytes counted (plain_run in v3d_cl_walk.c). */
	uint8_t run_len[2][2][256];
	/* The first packets of the last run plain_run walked one by one (lens: its run_len row;
	 * off: from the run's start; bytes: where the last of them ends), for a run repeating it. */
	struct v3dval_run_memo {
		const uint8_t *lens;
		uint32_t bytes;
		uint8_t n;
		uint8_t op[V3DVAL_MEMO_PACKETS];
		uint16_t off[V3DVAL_MEMO_PACKETS];
	} memo;
};

/* The bytes of seg's copy. */
static inline uint8_t *v3dval_seg_bytes(const struct v3dval *v, const struct v3dval_seg *s)
{
	return s->block ? v->block_bytes + s->at : s->buf;
}

static inline bool v3dval_packet_plain(const struct v3dval *v, uint32_t list, bool top, uint8_t op)
{
	return v->plain[list == V3DVAL_LIST_RENDER][top][op >> 5] & (1u << (op & 31));
}

/* ---- BO table (v3d_val_common.c) ------------------------------------------------------------ */

/* 0 if bos[] is sorted, non-overlapping and below 4 GiB, else -1 with err (rule INPUT). */
int v3dval_check_bos(const struct v3dval_bo *bos, uint32_t nr_bos, struct v3dval_error *err);
/* Index of the BO containing addr, or -1. */
int v3dval_find_bo(const struct v3dval_bo *bos, uint32_t nr_bos, uint32_t addr);
/* Index of the one BO holding all of [addr, addr + len) (len >= 1), or -1 (outside, straddling
 * a BO end, or wrapping past 4 GiB). */
int v3dval_find_range(const struct v3dval_bo *bos, uint32_t nr_bos, uint32_t addr, uint64_t len);

/* v3dval_find_range over the call's BOs, trying the BO the previous lookup found first. */
static inline int v3dval_find_range_hint(struct v3dval *v, uint32_t addr, uint64_t len)
{
	/* the same test as v3dval_find_range's, on the one BO: an addr below it wraps to at least
	 * 4 GiB - hint_addr, past its size (a BO ends by 4 GiB, v3dval_check_bos) */
	uint32_t rel = addr - v->hint_addr;
	if (rel < v->hint_size && (len ? len : 1) <= (uint64_t)v->hint_size - rel)
		return (int)v->bo_hint;
	int i = v3dval_find_range(v->bos, v->nr_bos, addr, len);
	if (i >= 0) {
		v->bo_hint = (uint32_t)i;
		v->hint_addr = v->bos[i].addr;
		v->hint_size = v->bos[i].size;
	}
	return i;
}

/* Resolves a reloc's target (range checked). 0 or -1. */
int v3dval_reloc_target(const struct v3dval_bo *bos, uint32_t nr_bos, const struct v3dval_reloc *r,
			uint32_t *addr);
/* A field [start, start + size) of a `bytes`-byte payload that holds a whole address's high bits. */
bool v3dval_field_ok(uint32_t start, uint32_t size, uint32_t bytes);

/* ---- surfaces --------------------------------------------------------------------------------- */

enum v3dval_layout {
	V3DVAL_LAYOUT_RASTER, V3DVAL_LAYOUT_LINEARTILE, V3DVAL_LAYOUT_UBLINEAR_1,
	V3DVAL_LAYOUT_UBLINEAR_2, V3DVAL_LAYOUT_UIF, V3DVAL_LAYOUT_UIF_XOR,
};
/* Bytes a w x h surface of cpp-byte pixels covers in a tiled layout as Mesa lays it out (width
 * and height padded to utiles / UIF blocks, UIF columns of 4 blocks, UIF height at least
 * padded_h_blocks UIF blocks), and never less than the hardware can reach: with the UIF XOR,
 * odd columns flip bit 4 of the block row, which for a padded height that is not a multiple
 * of 32 blocks reaches past the column. 0 for a cpp the tiled layouts do not take. */
uint64_t v3dval_tiled_bytes(enum v3dval_layout layout, uint32_t w, uint32_t h, uint32_t cpp,
			    uint64_t padded_h_blocks);
/* Rows of UIF blocks for cpp (2 utiles high). */
uint32_t v3dval_uif_block_h(uint32_t cpp);
/* The surface layout of a memory format (enum v3d_cl_memory_format; the TFU's codes map to it
 * through v3d_tfu_*format_memory()); false for a value that is none. */
bool v3dval_layout_of(int memory_format, enum v3dval_layout *layout);

/* ---- errors ----------------------------------------------------------------------------------- */

/* Fills *err about the packet at w (NULL: not about a packet), returns -1. detail (printf) follows
 * the rule text after ": " when given. */
int v3dval_fail(struct v3dval *v, const struct v3dval_where *w, enum v3dval_rule rule, uint32_t bad_addr,
		const char *detail, ...) __attribute__((format(printf, 5, 6)));
/* The same for TFU / CSD register errors (no packet, no list). */
int v3dval_fail_regs(struct v3dval_error *err, enum v3dval_list list, enum v3dval_rule rule, uint32_t bad_addr,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "list 0x... (bo N +0x...)"-style message about a position with no packet (a record field). */
int v3dval_fail_at(struct v3dval *v, uint32_t seg, uint32_t pos, int opcode, enum v3dval_rule rule,
		   uint32_t bad_addr, const char *detail, ...) __attribute__((format(printf, 7, 8)));

/* ---- packets (v3d_cl_packets.c) --------------------------------------------------------------- */

/* Checks the packet at pkt (len bytes, already relocated) in the list / level of w against the
 * allow-list, the frame state and the address rules; updates the frame state. Control flow is
 * the walker's. 0 or -1. */
int v3dval_check_packet(struct v3dval *v, const struct v3dval_where *w, const uint8_t *pkt, uint32_t len);
/* End-of-job checks: the bin job's tile memory against its binning config, tile list bases. */
int v3dval_check_job(struct v3dval *v);
/* Copies and checks the shader-state block a GL_SHADER_STATE* packet names; *seg_out = its
 * segment (an existing one when the same block was already validated). 0 or -1. */
/* Fills v->struct_words / words_ok and the whole-block block_words from struct_fields (at create). */
void v3dval_struct_words(struct v3dval *v);
int v3dval_shader_block(struct v3dval *v, const struct v3dval_where *w, uint8_t opcode, uint32_t addr,
			uint32_t nr_attrs, uint32_t *seg_out);

/* ---- walker helpers (v3d_cl_walk.c) ---------------------------------------------------------- */

/* A new segment (zero bytes) at addr in bos[bo]; V3DVAL_NO_SEG after failing with err set. */
uint32_t v3dval_new_seg(struct v3dval *v, uint32_t bo, uint32_t addr, enum v3dval_list list,
			enum v3dval_level level, const struct v3dval_where *w);
/* Room for one more segment. 0 or -1 (NOMEM, err set). */
int v3dval_grow_segs(struct v3dval *v, const struct v3dval_where *w);
/* A segment (zero bytes) at addr in bos[bo], not counted as a list or block yet. Inline, as the
 * next one: a v3dv job has a block per draw. */
static inline uint32_t v3dval_add_seg(struct v3dval *v, uint32_t bo, uint32_t addr, enum v3dval_list list,
				      enum v3dval_level level, const struct v3dval_where *w)
{
	if (v->nr_segs >= v->cap_segs && v3dval_grow_segs(v, w))
		return V3DVAL_NO_SEG;
	struct v3dval_seg *s = &v->segs[v->nr_segs];
	uint8_t *buf = s->buf; /* a slot keeps its copy's buffer across jobs */
	uint32_t cap = s->cap;
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->cap = cap;
	s->start = s->end = addr;
	s->bo = bo;
	s->list = (uint8_t)list;
	s->level = (uint8_t)level;
	s->end_seg = V3DVAL_NO_SEG;
	return v->nr_segs++;
}
/* A new shader-state block segment (zero bytes) at addr, in w's list. */
static inline uint32_t v3dval_new_block(struct v3dval *v, uint32_t bo, uint32_t addr, const struct v3dval_where *w)
{
	uint32_t seg = v3dval_add_seg(v, bo, addr, (enum v3dval_list)v->segs[w->seg].list, V3DVAL_LEVEL_RECORD, w);
	if (seg != V3DVAL_NO_SEG) {
		v->segs[seg].block = true;
		v->nr_blocks++;
	}
	return seg;
}
/* Grows seg's copy to hold len bytes. 0 or -1 (NOMEM, err set). */
int v3dval_seg_reserve(struct v3dval *v, uint32_t seg, uint32_t len, const struct v3dval_where *w);
/* Room for one more fixup. 0 or -1 (NOMEM, err set). */
int v3dval_grow_fixups(struct v3dval *v, const struct v3dval_where *w);
/* Inline: a v3dv job has one per draw (its shader-state block), the array rarely grows. */
static inline int v3dval_add_fixup(struct v3dval *v, const struct v3dval_where *w, uint16_t start, uint8_t size,
				   uint32_t target_seg, uint32_t target_off)
{
	if (v->nr_fixups >= v->cap_fixups && v3dval_grow_fixups(v, w))
		return -1;
	v->fixups[v->nr_fixups++] = (struct v3dval_fixup){ w->seg, w->pos + 1u, start, size, target_seg, target_off };
	return 0;
}
/* The sorted relocs of kind whose cl_offset lies in [off, off + len) of bos[bo]: *first = index
 * into v->keys, returns how many. */
uint32_t v3dval_relocs_in(struct v3dval *v, enum v3dval_reloc_kind kind, uint32_t bo, uint32_t off,
			  uint32_t len, uint32_t *first);
/* Patches the field of r into bytes (holding the field's structure), marks it applied. */
void v3dval_apply_reloc(struct v3dval *v, uint32_t sorted_index, uint8_t *bytes);

#endif
