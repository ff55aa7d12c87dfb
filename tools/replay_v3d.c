/* V3D half of `ferry replay`: V3D addresses are global and chosen by the kernel, so the replay's
 * BOs land elsewhere than the captured ones. Before each submit, every address field the job
 * reads — in the control lists it walks (branches, sub-lists, generic tile lists), the GL shader
 * state blocks they name, the submit's own registers (CL ranges and tile memory, TFU, CSD) — is
 * moved from its captured BO to the same offset in the replay's BO, in the replay's copy.
 * Addresses outside every captured BO (a fault's unmapped target) are left as they were. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ferry/hw/v3d_cl.h>

#include "ferry/array.h"
#include "replay_v3d.h"

#define WALK_MAX_DEPTH 8u
#define WALK_MAX_PACKETS (1u << 22)
#define GS_PREFIX_BYTES (16u + 4u + 8u + 8u) /* geometry + tessellation records before the GL one */

int rv3d_note_bo(struct rv3d *r, uint32_t ctx_id, uint32_t bo_id, uint64_t old_iova, uint64_t size)
{
	for (uint32_t i = 0; i < r->nr; i++) {
		if (r->bos[i].ctx_id == ctx_id && r->bos[i].bo_id == bo_id) {
			r->bos[i].old_iova = old_iova;
			r->bos[i].size = size;
			return 0;
		}
	}
	if (FERRY_ARRAY_RESERVE(r->bos, r->cap, (size_t)r->nr + 1, 16))
		return -1;
	r->bos[r->nr++] = (struct rv3d_bo){ .ctx_id = ctx_id, .bo_id = bo_id, .old_iova = old_iova, .size = size };
	return 0;
}

void rv3d_forget_bo(struct rv3d *r, uint32_t ctx_id, uint32_t bo_id)
{
	for (uint32_t i = 0; i < r->nr; i++) {
		if (r->bos[i].ctx_id == ctx_id && r->bos[i].bo_id == bo_id) {
			r->bos[i] = r->bos[--r->nr];
			return;
		}
	}
}

void rv3d_fini(struct rv3d *r)
{
	free(r->bos);
	free(r->seen);
	memset(r, 0, sizeof(*r));
}

/* ---- one submit's view: its listed BOs, old address -> new BO ---- */

struct job_bo {
	uint32_t old_addr, size, new_addr;
	uint8_t *map; /* the replay's mapping: captured contents, relocated in place */
};

struct walk {
	struct rv3d *r;
	int ver;
	struct job_bo *bos;
	uint32_t nr_bos;
	uint32_t packets;
	char *err;
	size_t err_len;
};

static const struct job_bo *bo_of(const struct walk *w, uint32_t addr, uint32_t len)
{
	for (uint32_t i = 0; i < w->nr_bos; i++) {
		const struct job_bo *b = &w->bos[i];
		if (addr >= b->old_addr && len <= b->size && addr - b->old_addr <= b->size - len)
			return b;
	}
	return NULL;
}

static uint32_t moved(const struct walk *w, uint32_t addr)
{
	const struct job_bo *b = bo_of(w, addr, 1);
	return b ? b->new_addr + (addr - b->old_addr) : addr;
}

/* A register that holds an address with flags in bits below `flag_bits`: the BO is looked up
 * with them cleared, the delta applied to the whole word (BOs are page aligned: low bits stay). */
static uint32_t moved_flags(const struct walk *w, uint32_t word, uint32_t flag_mask)
{
	const struct job_bo *b = bo_of(w, word & ~flag_mask, 1);
	return b ? word - b->old_addr + b->new_addr : word;
}

/* Each relocated place once: a list reached twice (a sub-list called per tile) must not move
 * twice. Keys are captured addresses, tagged with what was there. */
static bool seen_before(struct walk *w, uint64_t key)
{
	struct rv3d *r = w->r;
	if (r->nr_seen * 2 >= r->cap_seen) {
		uint32_t cap = r->cap_seen ? r->cap_seen * 2 : 1024;
		uint64_t *ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return true; /* cannot track: relocate nothing more rather than twice */
		for (uint32_t i = 0; i < r->cap_seen; i++) {
			uint64_t k = r->seen[i];
			if (!k)
				continue;
			uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
			while (ns[h])
				h = (h + 1) & (cap - 1);
			ns[h] = k;
		}
		free(r->seen);
		r->seen = ns;
		r->cap_seen = cap;
	}
	key |= 1ull << 63; /* never 0 */
	uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (r->cap_seen - 1);
	while (r->seen[h]) {
		if (r->seen[h] == key)
			return true;
		h = (h + 1) & (r->cap_seen - 1);
	}
	r->seen[h] = key;
	r->nr_seen++;
	return false;
}

#define KEY_PACKET 1ull
#define KEY_RECORD 2ull

static void relocate_struct(struct walk *w, enum v3d_cl_struct kind, uint32_t addr)
{
	uint32_t size = v3d_cl_struct_size(w->ver, kind);
	const struct job_bo *b = bo_of(w, addr, size);
	if (!b || seen_before(w, (uint64_t)addr << 8 | KEY_RECORD << 4 | (uint64_t)kind))
		return;
	uint8_t *p = b->map + (addr - b->old_addr);
	const struct v3d_cl_addr_field *f;
	size_t nf = v3d_cl_struct_address_fields(w->ver, kind, &f);
	for (size_t i = 0; i < nf; i++) {
		uint32_t old = v3d_cl_get_address(p, f[i].start, f[i].size);
		if (old)
			v3d_cl_set_address(p, f[i].start, f[i].size, moved(w, old));
	}
}

static void shader_block(struct walk *w, uint8_t op, uint32_t addr, uint32_t attrs)
{
	uint32_t prefix = op == V3D_CL_GL_SHADER_STATE_INCLUDING_GS || op == V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS
				  ? GS_PREFIX_BYTES : 0;
	if (prefix)
		relocate_struct(w, V3D_CL_STRUCT_GEOMETRY_SHADER_RECORD, addr);
	relocate_struct(w, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD, addr + prefix);
	uint32_t gl = v3d_cl_struct_size(w->ver, V3D_CL_STRUCT_GL_SHADER_STATE_RECORD);
	for (uint32_t i = 0; i < attrs; i++)
		relocate_struct(w, V3D_CL_STRUCT_GL_SHADER_ATTRIBUTE_RECORD, addr + prefix + gl + 16u * i);
}

/* Walks the list at pc (captured address) to end (0: to HALT / RETURN / the end of the known
 * bytes), relocating every address field of every packet and following what the CLE follows. */
static int walk_list(struct walk *w, uint32_t pc, uint32_t end, unsigned depth)
{
	if (depth > WALK_MAX_DEPTH) {
		snprintf(w->err, w->err_len, "sub-lists nested deeper than %u at 0x%08x", WALK_MAX_DEPTH, pc);
		return -1;
	}
	for (;;) {
		if (end && pc == end)
			return 0;
		const struct job_bo *b = bo_of(w, pc, 1);
		if (!b) /* off every captured BO: the CLE faults there, as it did */
			return 0;
		if (seen_before(w, (uint64_t)pc << 8 | KEY_PACKET))
			return 0; /* walked from here already: the same packets follow */
		if (++w->packets > WALK_MAX_PACKETS) {
			snprintf(w->err, w->err_len, "more than %u packets", WALK_MAX_PACKETS);
			return -1;
		}
		uint8_t *p = b->map + (pc - b->old_addr);
		uint32_t avail = b->size - (pc - b->old_addr);
		uint32_t len = v3d_cl_packet_length(w->ver, p, avail);
		if (len == 0 || len > avail)
			return 0; /* unknown opcode or cut: the CLE stops there too, nothing more to move */
		uint8_t op = p[0];
		/* Targets are read before the fields move. */
		uint32_t target = len >= 5 ? v3d_cl_get_address(p + 1, V3D_CL_BRANCH_ADDRESS) : 0;
		uint32_t gtl_end = len >= 9 ? v3d_cl_get_address(p + 1, V3D_CL_GENERIC_TILE_LIST_END) : 0;
		uint32_t shader = 0, attrs = 0;
		if (op >= V3D_CL_GL_SHADER_STATE && op <= V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS) {
			shader = v3d_cl_get_address(p + 1, V3D_CL_GL_SHADER_ADDRESS);
			attrs = (uint32_t)v3d_cl_get(p + 1, V3D_CL_GL_SHADER_NUM_ATTRIBUTES);
		}
		const struct v3d_cl_addr_field *f;
		size_t nf = v3d_cl_address_fields(w->ver, op, &f);
		for (size_t i = 0; i < nf; i++) {
			uint32_t old = v3d_cl_get_address(p + 1, f[i].start, f[i].size);
			if (old)
				v3d_cl_set_address(p + 1, f[i].start, f[i].size, moved(w, old));
		}
		switch (op) {
		case 0: /* HALT */
			return 0;
		case V3D_CL_RETURN_FROM_SUB_LIST:
			if (depth > 0)
				return 0;
			break;
		case V3D_CL_BRANCH:
			pc = target;
			continue;
		case V3D_CL_BRANCH_TO_SUB_LIST:
		case V3D_CL_BRANCH_TO_AUTO_CHAINED_SUB_LIST:
			if (walk_list(w, target, 0, depth + 1) < 0)
				return -1;
			break;
		case V3D_CL_START_ADDRESS_OF_GENERIC_TILE_LIST:
			if (target && walk_list(w, target, gtl_end, depth + 1) < 0)
				return -1;
			break;
		case V3D_CL_GL_SHADER_STATE:
		case V3D_CL_GL_SHADER_STATE_INCLUDING_TS:
		case V3D_CL_GL_SHADER_STATE_INCLUDING_GS:
		case V3D_CL_GL_SHADER_STATE_INCLUDING_TS_GS:
			shader_block(w, op, shader, attrs > 16 ? 16 : attrs);
			break;
		default:
			break;
		}
		pc += len;
	}
}

static int job_begin(struct rv3d *r, struct replay_conn *conn, uint32_t ctx_id, const uint32_t *ids, uint32_t nr,
		     struct walk *w, char *err, size_t err_len)
{
	memset(w, 0, sizeof(*w));
	w->r = r;
	w->ver = r->ver;
	w->err = err;
	w->err_len = err_len;
	w->bos = calloc(nr ? nr : 1, sizeof(*w->bos));
	if (!w->bos) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	r->nr_seen = 0;
	if (r->seen)
		memset(r->seen, 0, (size_t)r->cap_seen * sizeof(*r->seen));
	for (uint32_t i = 0; i < nr; i++) {
		const struct rv3d_bo *cb = NULL;
		for (uint32_t k = 0; k < r->nr && !cb; k++)
			if (r->bos[k].ctx_id == ctx_id && r->bos[k].bo_id == ids[i])
				cb = &r->bos[k];
		struct rc_bo *nb = rc_find_bo(conn, ctx_id, ids[i]);
		if (!cb || !nb || nb->size < cb->size || cb->old_iova > UINT32_MAX || cb->size > (1ull << 32) - cb->old_iova ||
		    nb->iova > UINT32_MAX) {
			snprintf(err, err_len, "bo %u of context %u was not created by the capture", ids[i], ctx_id);
			free(w->bos);
			w->bos = NULL;
			return -1;
		}
		/* Relocation writes into the replay's copy of any of the job's BOs. */
		if (rc_bo_mirror(conn, nb) < 0) {
			snprintf(err, err_len, "bo %u of context %u: %s", ids[i], ctx_id, conn->error);
			free(w->bos);
			w->bos = NULL;
			return -1;
		}
		w->bos[w->nr_bos++] = (struct job_bo){ .old_addr = (uint32_t)cb->old_iova, .size = (uint32_t)cb->size,
						       .new_addr = (uint32_t)nb->iova, .map = nb->map };
	}
	return 0;
}

int rv3d_relocate(struct rv3d *r, struct replay_conn *conn, struct ferry_msg *m, char *err, size_t err_len)
{
	struct walk w;
	int ret = 0;
	if (m->kind == FERRY_MSG_V3D_SUBMIT_CL) {
		struct ferry_v3d_submit_cl *s = &m->u.v3d_submit_cl;
		if (job_begin(r, conn, s->ctx_id, s->bo_ids, s->nr_bos, &w, err, err_len) < 0)
			return -1;
		if (s->bcl_start != s->bcl_end)
			ret = walk_list(&w, s->bcl_start, s->bcl_end, 0);
		if (ret == 0)
			ret = walk_list(&w, s->rcl_start, s->rcl_end, 0);
		bool bin = s->bcl_start != s->bcl_end;
		s->bcl_start = moved(&w, s->bcl_start);
		/* An end is one past the list: looked up by its last byte. */
		s->bcl_end = bin ? moved(&w, s->bcl_end - 1) + 1 : s->bcl_start;
		s->rcl_start = moved(&w, s->rcl_start);
		s->rcl_end = s->rcl_end ? moved(&w, s->rcl_end - 1) + 1 : 0;
		if (s->qma)
			s->qma = moved(&w, s->qma);
		if (s->qts)
			s->qts = moved(&w, s->qts);
	} else if (m->kind == FERRY_MSG_V3D_SUBMIT_TFU) {
		struct ferry_v3d_submit_tfu *s = &m->u.v3d_submit_tfu;
		if (job_begin(r, conn, s->ctx_id, s->bo_ids, s->nr_bos, &w, err, err_len) < 0)
			return -1;
		s->iia = s->iia ? moved(&w, s->iia) : 0;
		s->ica = s->ica ? moved(&w, s->ica) : 0;
		s->iua = s->iua ? moved(&w, s->iua) : 0;
		s->ioa = moved_flags(&w, s->ioa, V3D42_TFU_IOA_FLAGS_MASK);
	} else if (m->kind == FERRY_MSG_V3D_SUBMIT_CSD) {
		struct ferry_v3d_submit_csd *s = &m->u.v3d_submit_csd;
		if (job_begin(r, conn, s->ctx_id, s->bo_ids, s->nr_bos, &w, err, err_len) < 0)
			return -1;
		s->cfg[5] = moved_flags(&w, s->cfg[5], V3D_CSD_CFG5_FLAGS_MASK);
		if (s->cfg[6])
			s->cfg[6] = moved(&w, s->cfg[6]);
	} else {
		return 0;
	}
	free(w.bos);
	return ret;
}
