/* The V3D control-list walker of `ferry decode`: prints a list packet by packet in a CLIF-like
 * form and follows the lists and records it points at (v3d_decode.h). Input is untrusted: every
 * read is bounded by a buffer's known contents, nesting by max_depth, work by max_bytes and
 * max_lists, and a branch back into a list still being executed is reported as a cycle. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/hw/v3d_cl.h"
#include "v3d_decode.h"
#include "v3d_decode_priv.h"

#define DEFAULT_MAX_DEPTH 4u
#define HARD_MAX_DEPTH 32u /* the walker recurses per sub-list: keep the C stack small */
#define DEFAULT_MAX_BYTES (1ull << 24)
#define DEFAULT_MAX_LISTS 4096u

/* A stretch of list already decoded; active while the frame that decoded it is still running,
 * so that a branch into it is a cycle rather than a second call. */
struct span {
	uint32_t start;
	uint64_t end;
	bool active;
};

struct ctx {
	FILE *out;
	const struct v3d_decode_options *o;
	int ver;
	unsigned max_depth;
	uint64_t bytes_left;
	uint32_t lists_left;
	struct span *spans;
	size_t nr_spans, cap_spans;
	struct v3d_decode_stats st;
};

enum frame_kind { FRAME_TOP, FRAME_SUB, FRAME_TILE_LIST };

/* ---- buffers and addresses ------------------------------------------------------------------ */

const struct v3d_decode_buffer *v3d_decode_find_buffer(const struct v3d_decode_buffer *bufs, size_t nr,
						       uint32_t addr)
{
	for (size_t i = 0; bufs && i < nr; i++)
		if (addr >= bufs[i].addr && (uint64_t)addr < (uint64_t)bufs[i].addr + bufs[i].size)
			return &bufs[i];
	return NULL;
}

void v3d_decode_buffer_name(char *buf, size_t len, const struct v3d_decode_buffer *b)
{
	snprintf(buf, len, "%s_0x%" PRIx32, b->name ? b->name : "buffer", b->addr);
}

void v3d_decode_format_addr(char *buf, size_t len, const struct v3d_decode_buffer *bufs, size_t nr,
			    uint32_t addr)
{
	const struct v3d_decode_buffer *b = addr ? v3d_decode_find_buffer(bufs, nr, addr) : NULL;
	if (!b) {
		snprintf(buf, len, "0x%08" PRIx32, addr);
		return;
	}
	char name[96];
	v3d_decode_buffer_name(name, sizeof(name), b);
	snprintf(buf, len, "[%s + 0x%" PRIx32 "]", name, addr - b->addr);
}

/* The known bytes at addr: a pointer and how many follow (within the buffer's size too). */
static const struct v3d_decode_buffer *contents_at(const struct v3d_decode_options *o, uint32_t addr,
						   const uint8_t **p, uint64_t *avail)
{
	for (size_t i = 0; o->buffers && i < o->nr_buffers; i++) {
		const struct v3d_decode_buffer *b = &o->buffers[i];
		uint64_t known = b->contents_len < b->size ? b->contents_len : b->size;
		if (!b->contents || addr < b->addr || (uint64_t)(addr - b->addr) >= known)
			continue;
		*p = (const uint8_t *)b->contents + (addr - b->addr);
		*avail = known - (addr - b->addr);
		return b;
	}
	return NULL;
}

/* ---- names and fields ----------------------------------------------------------------------- */

static void upper_snake(char *dst, size_t len, const char *src)
{
	size_t n = 0;
	for (; *src && n + 1 < len; src++) {
		unsigned char ch = (unsigned char)*src;
		if (isalnum(ch))
			dst[n++] = (char)toupper(ch);
		else if (n && dst[n - 1] != '_')
			dst[n++] = '_';
	}
	while (n && dst[n - 1] == '_')
		n--;
	dst[n] = '\0';
}

static int rmc_sub_id(int ver, const uint8_t *payload)
{
	return ver == V3D_VER_42 ? (int)v3d_cl_get(payload, V3D42_CL_RMC_SUB_ID)
				 : (int)v3d_cl_get(payload, V3D71_CL_RMC_SUB_ID);
}

void v3d_decode_packet_name(char *buf, size_t len, int ver, const uint8_t *p, uint32_t avail)
{
	const char *name = v3d_cl_opcode_name(ver, p[0]);
	if (!name) {
		snprintf(buf, len, "?? opcode 0x%02x", p[0]);
		return;
	}
	upper_snake(buf, len, name);
	if (p[0] != V3D_CL_TILE_RENDERING_MODE_CFG || avail < 2)
		return;
	int sub = rmc_sub_id(ver, p + 1);
	const struct v3dd_layout *l = v3dd_find_layout(ver, p[0], sub);
	size_t n = strlen(buf);
	if (l && l->suffix)
		snprintf(buf + n, len - n, "_%s", l->suffix);
	else
		snprintf(buf + n, len - n, "_SUB_ID_%d", sub);
}

static void print_float(FILE *out, uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof(f));
	fprintf(out, "%g", (double)f);
}

static void print_field(struct ctx *c, const struct v3dd_field *f, const uint8_t *base)
{
	uint64_t v = v3d_cl_get(base, f->start, f->size);
	fprintf(c->out, "%s = ", f->name);
	switch (f->kind) {
	case V3DD_HEX: fprintf(c->out, "0x%" PRIx64, v); break;
	case V3DD_BOOL: fputs(v ? "true" : "false", c->out); break;
	case V3DD_ADDR: {
		char a[128];
		v3d_decode_format_addr(a, sizeof(a), c->o->buffers, c->o->nr_buffers,
				       (uint32_t)(v << (32u - f->size)));
		fputs(a, c->out);
		break;
	}
	case V3DD_FLOAT: print_float(c->out, (uint32_t)v); break;
	case V3DD_F187: print_float(c->out, (uint32_t)v << 16); break;
	case V3DD_U14_8: fprintf(c->out, "%g", (double)v / 256.0); break;
	case V3DD_INT: {
		uint64_t sign = 1ull << (f->size - 1);
		fprintf(c->out, "%" PRId64, (int64_t)((v ^ sign) - sign));
		break;
	}
	case V3DD_MINUS1: fprintf(c->out, "%" PRIu64, v + 1); break;
	case V3DD_ENUM:
		if (v < f->nr_names && f->names[v])
			fputs(f->names[v], c->out);
		else
			fprintf(c->out, "%" PRIu64 " (?)", v);
		break;
	case V3DD_TILE_PX:
		if (v <= 3)
			fprintf(c->out, "%u", 8u << v);
		else
			fprintf(c->out, "%" PRIu64 " (?)", v);
		break;
	default: fprintf(c->out, "%" PRIu64, v); break;
	}
}

/* The fields of a packet of len bytes (all present), on the line already begun. */
static void print_packet_fields(struct ctx *c, const uint8_t *p, uint32_t len)
{
	int sub = p[0] == V3D_CL_TILE_RENDERING_MODE_CFG ? rmc_sub_id(c->ver, p + 1) : -1;
	const struct v3dd_layout *l = v3dd_find_layout(c->ver, p[0], sub);
	if (!l) {
		if (len > 1) {
			fputs("  payload =", c->out);
			for (uint32_t i = 1; i < len; i++)
				fprintf(c->out, " %02x", p[i]);
		}
		return;
	}
	for (size_t i = 0; i < l->nr_fields; i++) {
		fputs(i ? ", " : "  ", c->out);
		print_field(c, &l->fields[i], p + 1);
	}
	if (p[0] == V3D_CL_TRANSFORM_FEEDBACK_SPECS) {
		size_t nr;
		uint32_t size;
		const char *name;
		const struct v3dd_field *spec = v3dd_record_fields(c->ver, V3DD_REC_TF_SPEC, &nr, &size, &name);
		for (uint32_t off = 2, i = 0; spec && off + size <= len; off += size, i++) {
			fprintf(c->out, ", spec[%u] = {", i);
			for (size_t k = 0; k < nr; k++) {
				fputs(k ? ", " : "", c->out);
				print_field(c, &spec[k], p + off);
			}
			fputs("}", c->out);
		}
	}
}

/* ---- records -------------------------------------------------------------------------------- */

/* Prints the record at *addr (fields one per line) and advances *addr past it. false if its
 * bytes are not all known or the budget is spent. */
static bool print_record(struct ctx *c, enum v3dd_record r, uint32_t *addr, unsigned depth, int index)
{
	size_t nr;
	uint32_t size;
	const char *rname;
	const struct v3dd_field *fields = v3dd_record_fields(c->ver, r, &nr, &size, &rname);
	const uint8_t *p;
	uint64_t avail;
	char where[128];
	v3d_decode_format_addr(where, sizeof(where), c->o->buffers, c->o->nr_buffers, *addr);
	int ind = (int)(2 * depth);
	if (!fields || !contents_at(c->o, *addr, &p, &avail) || avail < size) {
		fprintf(c->out, "%*s/* %s at %s: contents not known, not decoded */\n", ind, "", rname, where);
		c->st.unavailable++;
		return false;
	}
	if (c->bytes_left < size) {
		c->st.budget_exhausted = true;
		return false;
	}
	c->bytes_left -= size;
	c->st.records++;
	if (index >= 0)
		fprintf(c->out, "%*s@format shader_record  /* %s %s[%d], %u bytes */\n", ind, "", where, rname,
			index, size);
	else
		fprintf(c->out, "%*s@format shader_record  /* %s %s, %u bytes */\n", ind, "", where, rname, size);
	for (size_t i = 0; i < nr; i++) {
		fprintf(c->out, "%*s  ", ind, "");
		print_field(c, &fields[i], p);
		fputc('\n', c->out);
	}
	*addr += size;
	return true;
}

/* GL_SHADER_STATE*: the record(s) the packet points at, then its attribute records. Layout as
 * Mesa emits it: for the GS variant the geometry record, the common params and two sets of
 * shader params (bin, render) come first. */
static void print_shader_state(struct ctx *c, const uint8_t *p, unsigned depth)
{
	uint32_t addr = v3d_cl_get_address(p + 1, V3D_CL_GL_SHADER_ADDRESS);
	uint32_t nr_attrs = (uint32_t)v3d_cl_get(p + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES);
	if (p[0] == V3D_CL_GL_SHADER_STATE_INCLUDING_TS || p[0] == V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS) {
		fprintf(c->out, "%*s/* shader state with tessellation: record layout not decoded */\n",
			(int)(2 * depth), "");
		return;
	}
	if (p[0] == V3D_CL_GL_SHADER_STATE_INCLUDING_GS) {
		if (!print_record(c, V3DD_REC_GEOMETRY, &addr, depth, -1) ||
		    !print_record(c, V3DD_REC_TG_COMMON, &addr, depth, -1) ||
		    !print_record(c, V3DD_REC_TG_PARAMS, &addr, depth, 0) ||
		    !print_record(c, V3DD_REC_TG_PARAMS, &addr, depth, 1))
			return;
	}
	if (!print_record(c, V3DD_REC_GL_SHADER, &addr, depth, -1))
		return;
	for (uint32_t i = 0; i < nr_attrs; i++)
		if (!print_record(c, V3DD_REC_ATTRIBUTE, &addr, depth, (int)i))
			return;
}

/* ---- the walk ------------------------------------------------------------------------------- */

static struct span *find_span(struct ctx *c, uint32_t addr)
{
	for (size_t i = 0; i < c->nr_spans; i++)
		if (addr >= c->spans[i].start && addr < c->spans[i].end)
			return &c->spans[i];
	return NULL;
}

static struct span *open_span(struct ctx *c, uint32_t start)
{
	if (c->lists_left == 0) {
		c->st.budget_exhausted = true;
		return NULL;
	}
	if (FERRY_ARRAY_RESERVE(c->spans, c->cap_spans, c->nr_spans + 1, 16)) {
		c->st.budget_exhausted = true;
		return NULL;
	}
	c->lists_left--;
	c->st.lists++;
	struct span *s = &c->spans[c->nr_spans++];
	*s = (struct span){ .start = start, .end = start, .active = true };
	return s;
}

static void print_header(struct ctx *c, uint32_t addr, unsigned depth, const char *why)
{
	const struct v3d_decode_buffer *b = v3d_decode_find_buffer(c->o->buffers, c->o->nr_buffers, addr);
	char name[96] = "?", where[128];
	if (b)
		v3d_decode_buffer_name(name, sizeof(name), b);
	v3d_decode_format_addr(where, sizeof(where), c->o->buffers, c->o->nr_buffers, addr);
	int ind = (int)(2 * depth);
	fprintf(c->out, "%*s@buffer %s\n%*s@format ctrllist  /* %s 0x%08" PRIx32 "%s */\n", ind, "", name, ind,
		"", where, addr, why);
}

/* Whether the target of a branch-like packet at `from` can be decoded: not a cycle, not already
 * decoded, known. Prints why not. */
static bool can_follow(struct ctx *c, uint32_t target, unsigned depth, const char *what)
{
	int ind = (int)(2 * depth);
	char where[128];
	v3d_decode_format_addr(where, sizeof(where), c->o->buffers, c->o->nr_buffers, target);
	const struct span *s = find_span(c, target);
	if (s && s->active) {
		fprintf(c->out, "%*s/* CYCLE: %s target %s is inside a list still being executed (from 0x%08" PRIx32
			"): not followed */\n", ind, "", what, where, s->start);
		c->st.cycles++;
		return false;
	}
	if (s) {
		fprintf(c->out, "%*s/* %s target %s: decoded above */\n", ind, "", what, where);
		return false;
	}
	const uint8_t *p;
	uint64_t avail;
	if (!contents_at(c->o, target, &p, &avail)) {
		fprintf(c->out, "%*s/* %s target %s: contents not known, not followed */\n", ind, "", what, where);
		c->st.unavailable++;
		return false;
	}
	return true;
}

/* After HALT at the top level: what the rest of the list's bytes are. */
static void print_tail(struct ctx *c, uint32_t addr, uint32_t end, unsigned depth)
{
	const uint8_t *p;
	uint64_t avail;
	if (!contents_at(c->o, addr, &p, &avail))
		return;
	if (end > addr && (uint64_t)(end - addr) < avail)
		avail = end - addr;
	uint64_t zeros = 0;
	while (zeros < avail && p[zeros] == 0)
		zeros++;
	int ind = (int)(2 * depth);
	if (zeros == avail)
		fprintf(c->out, "%*s@format blank %" PRIu64 "  /* 0x%08" PRIx32 "..0x%08" PRIx64 ", all zero */\n", ind,
			"", avail, addr, (uint64_t)addr + avail - 1);
	else
		fprintf(c->out, "%*s/* %" PRIu64 " bytes after HALT not decoded */\n", ind, "", avail);
}

static void walk(struct ctx *c, uint32_t addr, uint32_t end, enum frame_kind kind, unsigned depth, const char *why);

/* Decodes the target of a sub-list call or a generic tile list, one level deeper. */
static void follow_sub(struct ctx *c, uint32_t target, uint32_t end, enum frame_kind kind, unsigned depth,
		       uint32_t from, const char *what)
{
	if (!c->o->follow)
		return;
	if (depth + 1 > c->max_depth) {
		fprintf(c->out, "%*s/* %s: nesting deeper than %u, not followed */\n", (int)(2 * depth), "", what,
			c->max_depth);
		return;
	}
	if (!can_follow(c, target, depth + 1, what))
		return;
	char why[64];
	snprintf(why, sizeof(why), ", %s from 0x%08" PRIx32, what, from);
	walk(c, target, end, kind, depth + 1, why);
}

static void walk(struct ctx *c, uint32_t addr, uint32_t end, enum frame_kind kind, unsigned depth, const char *why)
{
	size_t first_span = c->nr_spans;
	size_t cur = first_span;
	int ind = (int)(2 * depth);
	if (!open_span(c, addr))
		return;
	print_header(c, addr, depth, why);
	for (;;) {
		if (end && addr == end)
			break;
		const uint8_t *p;
		uint64_t avail;
		const struct v3d_decode_buffer *b = contents_at(c->o, addr, &p, &avail);
		if (!b) {
			if (kind != FRAME_TOP || end) {
				fprintf(c->out, "%*s/* 0x%08" PRIx32 ": the list runs past the known contents */\n", ind,
					"", addr);
				c->st.truncated++;
			}
			break;
		}
		uint32_t avail32 = avail > UINT32_MAX ? UINT32_MAX : (uint32_t)avail;
		uint32_t len = v3d_cl_packet_length(c->ver, p, avail32);
		uint32_t off = addr - b->addr;
		if (len == 0) {
			fprintf(c->out, "%*s0x%08" PRIx32 " +0x%04" PRIx32 "  ?? unknown opcode 0x%02x (no such V3D %d.%d "
				"packet): decoding of this list stops, packet lengths are unknown past here\n", ind, "",
				addr, off, p[0], c->ver / 10, c->ver % 10);
			c->st.unknown++;
			break;
		}
		char name[96];
		v3d_decode_packet_name(name, sizeof(name), c->ver, p, avail32);
		if (len > avail) {
			fprintf(c->out, "%*s0x%08" PRIx32 " +0x%04" PRIx32 "  %s  TRUNCATED: a %" PRIu32 "-byte packet, only %"
				PRIu64 " bytes known\n", ind, "", addr, off, name, len, avail);
			c->st.truncated++;
			break;
		}
		if (c->bytes_left < len) {
			c->st.budget_exhausted = true;
			break;
		}
		c->bytes_left -= len;
		c->st.packets++;
		fprintf(c->out, "%*s0x%08" PRIx32 " +0x%04" PRIx32 "  %s", ind, "", addr, off, name);
		print_packet_fields(c, p, len);
		/* the CLE stops once its address reaches the end; a packet straddling it is its last */
		bool crosses_end = end && addr < end && (uint64_t)addr + len > end;
		if (crosses_end)
			fprintf(c->out, "  /* runs past the list end 0x%08" PRIx32 " */", end);
		fputc('\n', c->out);
		uint64_t next = (uint64_t)addr + len;
		c->spans[cur].end = next;
		if (crosses_end)
			break;

		uint8_t op = p[0];
		if (op == V3D_CL_HALT) {
			if (kind == FRAME_TOP && next <= UINT32_MAX)
				print_tail(c, (uint32_t)next, end, depth);
			break;
		}
		if (op == V3D_CL_RETURN_FROM_SUB_LIST) {
			if (kind == FRAME_TOP)
				fprintf(c->out, "%*s/* return from sub-list with no sub-list called: the CLE's return "
					"address is undefined here, decoding stops */\n", ind, "");
			break;
		}
		if (op == V3D_CL_BRANCH) {
			uint32_t target = v3d_cl_get_address(p + 1, V3D_CL_BRANCH_ADDRESS);
			if (!c->o->follow) {
				fprintf(c->out, "%*s/* branch not followed */\n", ind, "");
				break;
			}
			if (!can_follow(c, target, depth, "branch"))
				break;
			/* The CLE still stops at the submit's end address if the chain reaches it. */
			const struct v3d_decode_buffer *tb = v3d_decode_find_buffer(c->o->buffers, c->o->nr_buffers, target);
			if (end && !(tb && end >= target && (uint64_t)end <= (uint64_t)tb->addr + tb->size))
				end = 0;
			cur = c->nr_spans;
			char from[48];
			snprintf(from, sizeof(from), ", branch from 0x%08" PRIx32, addr);
			if (!open_span(c, target))
				break;
			print_header(c, target, depth, from);
			addr = target;
			continue;
		}
		if (op == V3D_CL_BRANCH_TO_SUB_LIST || op == V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST)
			follow_sub(c, v3d_cl_get_address(p + 1, V3D_CL_BRANCH_ADDRESS), 0, FRAME_SUB, depth, addr,
				   "sub-list");
		else if (op == V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST) {
			uint32_t start = v3d_cl_get_address(p + 1, V3D_CL_GENERIC_TILE_LIST_START);
			uint32_t tl_end = v3d_cl_get_address(p + 1, V3D_CL_GENERIC_TILE_LIST_END);
			if (c->o->follow && tl_end <= start)
				fprintf(c->out, "%*s/* generic tile list with end <= start: not followed */\n", ind, "");
			else
				follow_sub(c, start, tl_end, FRAME_TILE_LIST, depth, addr, "generic tile list");
		} else if (op >= V3D_CL_GL_SHADER_STATE && op <= V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS && c->o->follow)
			print_shader_state(c, p, depth + 1);
		if (next > UINT32_MAX) {
			fprintf(c->out, "%*s/* the list runs past the end of the 4 GiB address space */\n", ind, "");
			c->st.truncated++;
			break;
		}
		if (c->st.budget_exhausted)
			break;
		addr = (uint32_t)next;
	}
	for (size_t i = first_span; i < c->nr_spans; i++)
		c->spans[i].active = false;
}

int v3d_decode_cl(FILE *out, const struct v3d_decode_options *opts, uint32_t start, uint32_t end,
		  struct v3d_decode_stats *stats)
{
	struct ctx c = { .out = out, .o = opts, .ver = opts->ver };
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!v3d_ver_valid(opts->ver)) {
		fprintf(out, "/* unknown V3D version %d (42 or 71) */\n", opts->ver);
		return -2;
	}
	const uint8_t *p;
	uint64_t avail;
	if (!contents_at(opts, start, &p, &avail)) {
		fprintf(out, "/* 0x%08" PRIx32 ": not in a buffer with known contents */\n", start);
		return -2;
	}
	c.max_depth = opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH;
	if (c.max_depth > HARD_MAX_DEPTH)
		c.max_depth = HARD_MAX_DEPTH;
	c.bytes_left = opts->max_bytes ? opts->max_bytes : DEFAULT_MAX_BYTES;
	c.lists_left = opts->max_lists ? opts->max_lists : DEFAULT_MAX_LISTS;
	char why[48];
	snprintf(why, sizeof(why), ", V3D %d.%d", opts->ver / 10, opts->ver % 10);
	walk(&c, start, end, FRAME_TOP, 0, why);
	if (c.st.budget_exhausted)
		fprintf(out, "/* decoding budget exhausted: output stops here */\n");
	free(c.spans);
	if (stats)
		*stats = c.st;
	return ferror(out) ? -1 : 0;
}

/* ---- version guess -------------------------------------------------------------------------- */

/* Payload bits of a packet no field of its layout covers: zero in anything a driver packs, so
 * bits there say the bytes were read with the wrong version's layouts. */
static uint32_t stray_bits(int ver, const uint8_t *p, uint32_t len)
{
	int sub = p[0] == V3D_CL_TILE_RENDERING_MODE_CFG ? rmc_sub_id(ver, p + 1) : -1;
	const struct v3dd_layout *l = v3dd_find_layout(ver, p[0], sub);
	if (!l || len < 2 || len > 16)
		return 0;
	uint8_t covered[15] = { 0 };
	uint32_t bits = 8 * (len - 1);
	if (sub >= 0)
		covered[0] = ver == V3D_VER_42 ? 0x0f : 0x07;
	for (size_t i = 0; i < l->nr_fields; i++)
		for (uint32_t b = l->fields[i].start; b < (uint32_t)l->fields[i].start + l->fields[i].size && b < bits; b++)
			covered[b >> 3] |= (uint8_t)(1u << (b & 7));
	uint32_t stray = 0;
	for (uint32_t i = 0; i + 1 < len; i++)
		stray += (uint32_t)__builtin_popcount((unsigned)(p[1 + i] & ~covered[i]));
	return stray;
}

/* How far the bytes read cleanly as `ver` (a packet stream ending at HALT or at the end, every
 * opcode known, every rendering-mode sub-packet one the version has), and how many payload bits
 * fell outside every field on the way. */
static size_t quiet_walk(int ver, const uint8_t *cl, size_t len, bool *clean, uint64_t *stray)
{
	size_t pos = 0;
	*clean = true;
	*stray = 0;
	while (pos < len) {
		size_t left = len - pos;
		uint32_t avail = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
		uint32_t n = v3d_cl_packet_length(ver, cl + pos, avail);
		if (n == 0 || n > left) {
			*clean = false;
			break;
		}
		if (cl[pos] == V3D_CL_TILE_RENDERING_MODE_CFG &&
		    !v3dd_find_layout(ver, cl[pos], rmc_sub_id(ver, cl + pos + 1))) {
			*clean = false;
			break;
		}
		*stray += stray_bits(ver, cl + pos, n);
		pos += n;
		if (cl[pos - n] == V3D_CL_HALT)
			break;
	}
	return pos;
}

int v3d_decode_guess_version(const uint8_t *cl, size_t len, bool *sure)
{
	bool clean42, clean71;
	uint64_t stray42, stray71;
	size_t n42 = quiet_walk(V3D_VER_42, cl, len, &clean42, &stray42);
	size_t n71 = quiet_walk(V3D_VER_71, cl, len, &clean71, &stray71);
	*sure = true;
	if (clean42 != clean71)
		return clean42 ? V3D_VER_42 : V3D_VER_71;
	if (n42 != n71)
		return n42 > n71 ? V3D_VER_42 : V3D_VER_71;
	if (stray42 != stray71)
		return stray42 < stray71 ? V3D_VER_42 : V3D_VER_71;
	*sure = false;
	return V3D_VER_42;
}
