/* `ferry decode FILE.ferrycap`: lists a session capture's records and decodes its submits — PM4
 * for msm (the session's BO snapshots are the buffer table), CLIF-like for V3D (CL, TFU, CSD) —
 * with every address annotated with the buffer it falls in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/uapi/msm_drm.h"
#include "debug/pm4_decode.h"
#include "ferry/session_file.h"
#include "debug/v3d_decode.h"
#include "decode_session.h"

/* What the file says about one BO so far: its BoCreate and its latest snapshot. */
struct known_bo {
	uint32_t ctx_id, bo_id;
	uint64_t iova, size;
	const uint8_t *contents; /* latest snapshot taken at offset 0, or NULL */
	uint64_t contents_len;
	char name[32];
};

struct session_bos {
	struct known_bo *v;
	size_t n, cap;
};

static struct known_bo *find_bo(struct session_bos *t, uint32_t ctx_id, uint32_t bo_id, bool add)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].ctx_id == ctx_id && t->v[i].bo_id == bo_id)
			return &t->v[i];
	if (!add)
		return NULL;
	if (FERRY_ARRAY_RESERVE(t->v, t->cap, t->n + 1, 16))
		return NULL;
	struct known_bo *b = &t->v[t->n++];
	memset(b, 0, sizeof(*b));
	b->ctx_id = ctx_id;
	b->bo_id = bo_id;
	snprintf(b->name, sizeof(b->name), "bo%u", bo_id);
	return b;
}

static int v3d_version(const char *gpu)
{
	return strstr(gpu, "7.1") ? 71 : 42;
}

static void decode_msm_submit(const struct ferry_msm_submit *s, struct session_bos *t, bool follow)
{
	struct pm4_decode_bo *bos = calloc(s->nr_bos ? s->nr_bos : 1, sizeof(*bos));
	if (!bos) {
		printf("  (out of memory: not decoded)\n");
		return;
	}
	size_t nr = 0;
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		struct known_bo *b = find_bo(t, s->ctx_id, s->bos[i].bo_id, false);
		if (!b) {
			printf("  bo[%u]: bo %u (not created in this file)\n", i, s->bos[i].bo_id);
			continue;
		}
		printf("  bo[%u]: bo %u iova 0x%016llx size 0x%llx%s\n", i, b->bo_id, (unsigned long long)b->iova,
		       (unsigned long long)b->size, b->contents ? "" : " (no contents)");
		bos[nr++] = (struct pm4_decode_bo){ .iova = b->iova, .size = b->size, .id = b->bo_id,
						    .contents = b->contents, .contents_len = b->contents_len };
	}
	for (uint32_t i = 0; i < s->nr_cmds; i++) {
		const struct ferry_msm_submit_cmd *c = &s->cmds[i];
		printf("  cmd[%u]: type %u bo[%u] offset 0x%x size 0x%x\n", i, c->type, c->bo_index, c->offset, c->size);
		if (c->type == MSM_SUBMIT_CMD_IB_TARGET_BUF)
			continue; /* reached through the IBs */
		struct known_bo *b = c->bo_index < s->nr_bos ? find_bo(t, s->ctx_id, s->bos[c->bo_index].bo_id, false)
							    : NULL;
		if (!b || !b->contents || c->size % 4 || c->offset > b->contents_len ||
		    c->size > b->contents_len - c->offset) {
			printf("    (contents not in the capture: not decoded)\n");
			continue;
		}
		size_t n = c->size / 4;
		uint32_t *w = malloc(n ? n * 4 : 4);
		if (!w)
			continue;
		const uint8_t *p = b->contents + c->offset;
		for (size_t k = 0; k < n; k++)
			w[k] = (uint32_t)p[4 * k] | (uint32_t)p[4 * k + 1] << 8 | (uint32_t)p[4 * k + 2] << 16 |
			       (uint32_t)p[4 * k + 3] << 24;
		struct pm4_decode_options o = { .bos = bos, .nr_bos = nr, .follow_ibs = follow };
		pm4_decode(stdout, w, n, b->iova + c->offset, &o, NULL);
		free(w);
	}
	free(bos);
}

/* The V3D buffer table of a submit's bo_ids; NULL on allocation failure. */
static struct v3d_decode_buffer *v3d_buffers(uint32_t ctx_id, const uint32_t *ids, uint32_t nr_ids,
					     struct session_bos *t, size_t *nr)
{
	struct v3d_decode_buffer *bufs = calloc(nr_ids ? nr_ids : 1, sizeof(*bufs));
	if (!bufs)
		return NULL;
	*nr = 0;
	for (uint32_t i = 0; i < nr_ids; i++) {
		struct known_bo *b = find_bo(t, ctx_id, ids[i], false);
		if (!b || b->iova > UINT32_MAX || b->size > (1ull << 32) - b->iova) {
			printf("  bo %u: %s\n", ids[i], b ? "outside V3D's 4 GiB address space" : "not created in this file");
			continue;
		}
		printf("  bo %u: 0x%08llx size 0x%llx%s\n", b->bo_id, (unsigned long long)b->iova,
		       (unsigned long long)b->size, b->contents ? "" : " (no contents)");
		uint64_t clen = b->contents_len < b->size ? b->contents_len : b->size;
		bufs[(*nr)++] = (struct v3d_decode_buffer){ .addr = (uint32_t)b->iova, .size = (uint32_t)b->size,
							    .name = b->name, .contents = b->contents,
							    .contents_len = (uint32_t)clen };
	}
	return bufs;
}

static void decode_v3d_submit(const struct ferry_msg *m, struct session_bos *t, int ver, bool follow)
{
	size_t nr = 0;
	struct v3d_decode_buffer *bufs;
	struct v3d_decode_options o = { .ver = ver, .follow = follow };
	if (m->kind == FERRY_MSG_V3D_SUBMIT_CL) {
		const struct ferry_v3d_submit_cl *s = &m->u.v3d_submit_cl;
		printf("  bcl 0x%08x..0x%08x rcl 0x%08x..0x%08x qma 0x%08x qms 0x%x qts 0x%08x\n", s->bcl_start,
		       s->bcl_end, s->rcl_start, s->rcl_end, s->qma, s->qms, s->qts);
		if (!(bufs = v3d_buffers(s->ctx_id, s->bo_ids, s->nr_bos, t, &nr)))
			return;
		o.buffers = bufs;
		o.nr_buffers = nr;
		if (s->bcl_start != s->bcl_end) {
			printf("  /* bin control list */\n");
			v3d_decode_cl(stdout, &o, s->bcl_start, s->bcl_end, NULL);
		}
		printf("  /* render control list */\n");
		v3d_decode_cl(stdout, &o, s->rcl_start, s->rcl_end, NULL);
	} else if (m->kind == FERRY_MSG_V3D_SUBMIT_TFU) {
		const struct ferry_v3d_submit_tfu *s = &m->u.v3d_submit_tfu;
		if (!(bufs = v3d_buffers(s->ctx_id, s->bo_ids, s->nr_bos, t, &nr)))
			return;
		o.buffers = bufs;
		o.nr_buffers = nr;
		struct v3d_tfu_regs r = { .icfg = s->icfg, .iia = s->iia, .iis = s->iis, .ica = s->ica,
					    .iua = s->iua, .ioa = s->ioa, .ios = s->ios, .ioc = s->v71_ioc };
		memcpy(r.coef, s->coef, sizeof(r.coef));
		v3d_decode_tfu(stdout, &o, &r);
	} else {
		const struct ferry_v3d_submit_csd *s = &m->u.v3d_submit_csd;
		if (!(bufs = v3d_buffers(s->ctx_id, s->bo_ids, s->nr_bos, t, &nr)))
			return;
		o.buffers = bufs;
		o.nr_buffers = nr;
		v3d_decode_csd(stdout, &o, s->cfg);
	}
	free(bufs);
}

static void print_frame(const struct ferry_msg *m, const struct session_record *rec)
{
	printf("@%zu FRAME%s %s", rec->offset, rec->flags & SESSION_FRAME_SYNTH ? " (synth)" : "",
	       ferry_msg_kind_name(m->kind));
	switch (m->kind) {
	case FERRY_MSG_CONTEXT_CREATE: printf(" ctx %u policy %u", m->u.context_create.ctx_id,
					      m->u.context_create.policy); break;
	case FERRY_MSG_QUEUE_CREATE: printf(" ctx %u queue %u kind %u", m->u.queue_create.ctx_id,
					    m->u.queue_create.queue_id, m->u.queue_create.kind); break;
	case FERRY_MSG_BO_CREATE: printf(" ctx %u bo %u size 0x%llx iova 0x%llx", m->u.bo_create.ctx_id,
					 m->u.bo_create.bo_id, (unsigned long long)m->u.bo_create.size,
					 (unsigned long long)m->u.bo_create.iova); break;
	case FERRY_MSG_BO_CLOSE: printf(" ctx %u bo %u", m->u.bo_close.ctx_id, m->u.bo_close.bo_id); break;
	case FERRY_MSG_MSM_SUBMIT: printf(" ctx %u queue %u seqno %u: %u bos, %u cmds", m->u.msm_submit.ctx_id,
					  m->u.msm_submit.queue_id, m->u.msm_submit.seqno, m->u.msm_submit.nr_bos,
					  m->u.msm_submit.nr_cmds); break;
	case FERRY_MSG_V3D_SUBMIT_CL: printf(" ctx %u queue %u seqno %u: %u bos", m->u.v3d_submit_cl.ctx_id,
					     m->u.v3d_submit_cl.queue_id, m->u.v3d_submit_cl.seqno,
					     m->u.v3d_submit_cl.nr_bos); break;
	case FERRY_MSG_V3D_SUBMIT_TFU: printf(" ctx %u queue %u seqno %u: %u bos", m->u.v3d_submit_tfu.ctx_id,
					      m->u.v3d_submit_tfu.queue_id, m->u.v3d_submit_tfu.seqno,
					      m->u.v3d_submit_tfu.nr_bos); break;
	case FERRY_MSG_V3D_SUBMIT_CSD: printf(" ctx %u queue %u seqno %u: %u bos", m->u.v3d_submit_csd.ctx_id,
					      m->u.v3d_submit_csd.queue_id, m->u.v3d_submit_csd.seqno,
					      m->u.v3d_submit_csd.nr_bos); break;
	default: break;
	}
	printf("\n");
}

int decode_session(const char *path, const uint8_t *data, size_t len, bool follow)
{
	struct session_reader r;
	struct session_header hdr;
	struct session_record rec;
	char err[200];
	if (session_reader_init(&r, data, len, &hdr, err, sizeof(err)) < 0) {
		fprintf(stderr, "ferry decode: %s: %s\n", path, err);
		return 1;
	}
	bool v3d = hdr.family == FERRY_FAMILY_V3D;
	int ver = v3d_version(hdr.gpu);
	printf("session capture %s: version %u, family %s, device %s\n", path, hdr.version,
	       v3d ? "v3d" : hdr.family == FERRY_FAMILY_MSM ? "msm" : "unknown", hdr.gpu);
	struct session_bos t = { 0 };
	int ret, status = 0;
	unsigned records = 0, submits = 0;
	while ((ret = session_next_record(&r, &rec, err, sizeof(err))) > 0) {
		records++;
		if (rec.type == SESSION_REC_NOTE) {
			printf("@%zu NOTE\n", rec.offset);
			size_t pos = 0;
			while (pos < rec.len) {
				const uint8_t *nl = memchr(rec.payload + pos, '\n', rec.len - pos);
				size_t end = nl ? (size_t)(nl - rec.payload) : rec.len;
				printf("  %.*s\n", (int)(end - pos), (const char *)rec.payload + pos);
				pos = end + 1;
			}
		} else if (rec.type == SESSION_REC_BO_SNAPSHOT) {
			struct session_snapshot snap;
			if (session_parse_snapshot(&rec, &snap, err, sizeof(err)) < 0) {
				ret = -1;
				break;
			}
			printf("@%zu BO_SNAPSHOT%s ctx %u bo %u iova 0x%llx offset 0x%llx: %zu bytes\n", rec.offset,
			       rec.flags & SESSION_SNAP_POST_MORTEM ? " (post-mortem)" : "", snap.ctx_id, snap.bo_id,
			       (unsigned long long)snap.iova, (unsigned long long)snap.offset, snap.len);
			struct known_bo *b = find_bo(&t, snap.ctx_id, snap.bo_id, true);
			if (!b) {
				snprintf(err, sizeof(err), "out of memory");
				ret = -1;
				break;
			}
			if (snap.offset == 0) {
				b->contents = snap.data;
				b->contents_len = snap.len;
				if (!b->iova)
					b->iova = snap.iova;
				if (b->size < snap.len)
					b->size = snap.len;
			}
		} else {
			struct ferry_msg m;
			const char *why = NULL;
			if (ferry_wire_decode(rec.payload, rec.len, &m, &why) < 0) {
				snprintf(err, sizeof(err), "corrupt frame at offset %zu: %s", rec.offset,
					 why ? why : "rejected by the verifier");
				ret = -1;
				break;
			}
			print_frame(&m, &rec);
			if (m.kind == FERRY_MSG_BO_CREATE) {
				struct known_bo *b = find_bo(&t, m.u.bo_create.ctx_id, m.u.bo_create.bo_id, true);
				if (b) {
					b->iova = m.u.bo_create.iova;
					b->size = m.u.bo_create.size;
					b->contents = NULL;
					b->contents_len = 0;
				}
			} else if (m.kind == FERRY_MSG_MSM_SUBMIT) {
				submits++;
				decode_msm_submit(&m.u.msm_submit, &t, follow);
			} else if (m.kind == FERRY_MSG_V3D_SUBMIT_CL || m.kind == FERRY_MSG_V3D_SUBMIT_TFU ||
				   m.kind == FERRY_MSG_V3D_SUBMIT_CSD) {
				submits++;
				decode_v3d_submit(&m, &t, ver, follow);
			}
		}
	}
	if (ret < 0) {
		fprintf(stderr, "ferry decode: %s: %s\n", path, err);
		status = 1;
	} else {
		printf("\n%u records, %u submits\n", records, submits);
	}
	free(t.v);
	if (ferror(stdout))
		status = 1;
	return status;
}
