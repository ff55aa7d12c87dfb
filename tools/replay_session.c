/* `ferry replay` of a ferry session capture: its frames go back to a ferryd in order (context,
 * queue and BO creation — msm BOs at their captured addresses, V3D ones where the kernel puts
 * them, the submits relocated (replay_v3d.c) — closes, submits), its BO snapshots
 * are written into the BOs before the submit that follows them. Waits, CPU preps and queries
 * of the original session are not replayed: every submit is waited for anyway. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/session_file.h"
#include "replay.h"

static int check_frame(const char *path, const struct session_record *rec, struct ferry_msg *m)
{
	const char *why = NULL;
	if (ferry_wire_decode(rec->payload, rec->len, m, &why) < 0) {
		fprintf(stderr, "ferry replay: %s: corrupt frame at offset %zu: %s\n", path, rec->offset,
			why ? why : "rejected by the verifier");
		return -1;
	}
	return 0;
}

int replay_session_check(const char *path, const uint8_t *data, size_t len, char *gpu, uint32_t *family)
{
	struct session_reader r;
	struct session_header hdr;
	struct session_record rec;
	char err[200];
	if (session_reader_init(&r, data, len, &hdr, err, sizeof(err)) < 0) {
		fprintf(stderr, "ferry replay: %s: %s\n", path, err);
		return -1;
	}
	memcpy(gpu, hdr.gpu, sizeof(hdr.gpu));
	*family = hdr.family;
	int ret;
	unsigned submits = 0;
	while ((ret = session_next_record(&r, &rec, err, sizeof(err))) > 0) {
		struct ferry_msg m;
		struct session_snapshot snap;
		if (rec.type == SESSION_REC_FRAME) {
			if (check_frame(path, &rec, &m) < 0)
				return -1;
			submits += m.kind == FERRY_MSG_MSM_SUBMIT || m.kind == FERRY_MSG_V3D_SUBMIT_CL ||
				   m.kind == FERRY_MSG_V3D_SUBMIT_TFU || m.kind == FERRY_MSG_V3D_SUBMIT_CSD;
		} else if (rec.type == SESSION_REC_BO_SNAPSHOT && session_parse_snapshot(&rec, &snap, err, sizeof(err)) < 0) {
			fprintf(stderr, "ferry replay: %s: %s\n", path, err);
			return -1;
		}
	}
	if (ret < 0) {
		fprintf(stderr, "ferry replay: %s: %s\n", path, err);
		return -1;
	}
	if (!submits) {
		fprintf(stderr, "ferry replay: %s: no submit: nothing to replay\n", path);
		return -1;
	}
	return 0;
}

static int apply_snapshot(struct replay *rp, const struct session_record *rec)
{
	struct session_snapshot snap;
	char err[200];
	if (session_parse_snapshot(rec, &snap, err, sizeof(err)) < 0) {
		fprintf(stderr, "ferry replay: %s: %s\n", rp->path, err);
		return -1;
	}
	struct rc_bo *bo = rc_find_bo(&rp->conn, snap.ctx_id, snap.bo_id);
	if (!bo || snap.offset > bo->size || snap.len > bo->size - snap.offset) {
		fprintf(stderr, "ferry replay: %s: snapshot at offset %zu: bo %u of context %u %s\n", rp->path, rec->offset,
			snap.bo_id, snap.ctx_id, bo ? "is smaller than the snapshot" : "was not created");
		return -1;
	}
	if (rc_bo_mirror(&rp->conn, bo) < 0) {
		fprintf(stderr, "ferry replay: %s: snapshot at offset %zu: %s\n", rp->path, rec->offset, rp->conn.error);
		return -1;
	}
	memcpy(bo->map + snap.offset, snap.data, snap.len);
	return 0;
}

static int forward(struct replay *rp, const struct session_record *rec, struct ferry_msg *m, bool v3d)
{
	if (v3d && m->kind == FERRY_MSG_BO_CREATE) {
		/* V3D places BOs itself: the captured address is kept for relocating the submits. */
		const struct ferry_bo_create *b = &m->u.bo_create;
		if (rv3d_note_bo(&rp->v3d, b->ctx_id, b->bo_id, b->iova, b->size) < 0) {
			fprintf(stderr, "ferry replay: %s: out of memory\n", rp->path);
			return -1;
		}
		m->u.bo_create.iova = 0;
	}
	if (!v3d && m->kind == FERRY_MSG_BO_CREATE && m->u.bo_create.iova) {
		/* The guest's address space had this range free again, so whatever BO the replay still
		 * holds there was closed in between; a capture records only what its submits need,
		 * not that close. */
		const struct ferry_bo_create *b = &m->u.bo_create;
		for (uint32_t i = 0; i < rp->conn.nr_bos; i++) {
			struct rc_bo *old = &rp->conn.bos[i];
			if (old->live && old->ctx_id == b->ctx_id && old->iova < b->iova + b->size &&
			    b->iova < old->iova + old->size && rc_close_bo(&rp->conn, old) < 0) {
				fprintf(stderr, "ferry replay: %s: closing bo %u for bo %u at offset %zu: %s\n", rp->path,
					old->bo_id, b->bo_id, rec->offset, rp->conn.error);
				return -1;
			}
		}
	}
	if (m->kind == FERRY_MSG_CONTEXT_CREATE && rp->session_policy) {
		m->u.context_create.policy = rp->rd_policy;
		printf("context %u: %s (--policy)\n", m->u.context_create.ctx_id,
		       rp->rd_policy == FERRY_POLICY_PASSTHROUGH ? "passthrough" : "validated");
	}
	if (v3d && m->kind == FERRY_MSG_BO_CLOSE)
		rv3d_forget_bo(&rp->v3d, m->u.bo_close.ctx_id, m->u.bo_close.bo_id);
	if (m->kind == FERRY_MSG_BO_CLOSE) {
		struct rc_bo *bo = rc_find_bo(&rp->conn, m->u.bo_close.ctx_id, m->u.bo_close.bo_id);
		if (bo)
			return rc_close_bo(&rp->conn, bo) < 0 ? -1 : 0;
	}
	if (rc_request(&rp->conn, m) < 0) {
		fprintf(stderr, "ferry replay: %s: %s at offset %zu: ferryd refused it: %s\n", rp->path,
			ferry_msg_kind_name(m->kind), rec->offset, rp->conn.error);
		return -1;
	}
	return 0;
}

int replay_session(struct replay *rp, const uint8_t *data, size_t len)
{
	struct session_reader r;
	struct session_header hdr;
	struct session_record rec;
	char err[200];
	if (session_reader_init(&r, data, len, &hdr, err, sizeof(err)) < 0)
		return -1; /* checked before */
	bool v3d = hdr.family == FERRY_FAMILY_V3D;
	while (session_next_record(&r, &rec, err, sizeof(err)) > 0) {
		int ret = 0;
		struct ferry_msg m;
		if (rec.type == SESSION_REC_BO_SNAPSHOT) {
			ret = apply_snapshot(rp, &rec);
		} else if (rec.type == SESSION_REC_FRAME) {
			if (check_frame(rp->path, &rec, &m) < 0)
				return -1;
			switch (m.kind) {
			case FERRY_MSG_CONTEXT_CREATE:
			case FERRY_MSG_CONTEXT_DESTROY:
			case FERRY_MSG_QUEUE_CREATE:
			case FERRY_MSG_QUEUE_CLOSE:
			case FERRY_MSG_BO_CREATE:
			case FERRY_MSG_BO_CLOSE:
				ret = forward(rp, &rec, &m, v3d);
				break;
			case FERRY_MSG_MSM_SUBMIT:
				ret = replay_submit(rp, &m.u.msm_submit);
				break;
			case FERRY_MSG_V3D_SUBMIT_CL:
			case FERRY_MSG_V3D_SUBMIT_TFU:
			case FERRY_MSG_V3D_SUBMIT_CSD:
				if (rv3d_relocate(&rp->v3d, &rp->conn, &m, err, sizeof(err)) < 0) {
					fprintf(stderr, "ferry replay: %s: %s at offset %zu: %s\n", rp->path,
						ferry_msg_kind_name(m.kind), rec.offset, err);
					return -1;
				}
				ret = replay_submit_v3d(rp, &m);
				break;
			case FERRY_MSG_BO_IMPORT:
				/* ferryd's captures record an imported BO as a BoCreate at its iova plus
				 * a snapshot; a raw import names pages of another process: not here. */
				fprintf(stderr, "ferry replay: %s: bo_import at offset %zu: an imported BO's pages "
					"are not in the capture (captures record imports as bo_create + snapshot)\n",
					rp->path, rec.offset);
				return -1;
			default:
				break; /* waits, queries: the replay waits for every submit itself */
			}
		}
		if (ret < 0)
			return -1;
	}
	return 0;
}
