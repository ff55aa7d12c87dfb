/* What one captured V3D submit (CL, TFU or CSD) adds to a capture (the family's capture_build op):
 * a session only, V3D having no .rd: capture_build.c's opening and prologue, a snapshot of every
 * listed BO, the submit frame. */
#include <errno.h>
#include <stddef.h>

#include "core/capture_internal.h"
#include "core/v3d/v3d_capture.h"
#include "ferry/session_file.h"

int v3d_capture_build(struct capture_buffers *b, struct capture_file *f, const struct capture_submit *a)
{
	bool post_mortem = a->post_mortem;
	struct host_queue *q = a->q;
	struct host_bo *const *bos = a->bos;
	uint32_t nr_bos = a->nr_bos;
	struct host_ctx *ctx = q->ctx;
	int ret = capture_session_opening(b, f, ctx, post_mortem, "");
	if (ret == 0)
		ret = capture_session_prologue(b, f, q, bos, nr_bos);
	/* Every listed BO: a V3D job's lists, shader records, shaders and uniforms may sit in any of
	 * them, and the replay relocates addresses inside all of them. */
	for (uint32_t i = 0; ret == 0 && i < nr_bos; i++) {
		struct capture_bo_view v = { 0 };
		ret = capture_bo_view_open(bos[i], &v);
		if (ret == 0)
			ret = session_write_snapshot(&b->session, post_mortem ? SESSION_SNAP_POST_MORTEM : 0, ctx->id,
						     bos[i]->id, bos[i]->iova, 0, v.data, bos[i]->size);
		capture_bo_view_close(&v);
	}
	if (ret == 0)
		ret = session_write_frame_payload(&b->session, 0, a->frame, a->frame_len);
	return ret;
}

int v3d_submit_bo_ids(const struct ferry_msg *m, const uint32_t **ids, size_t *stride, uint32_t *nr)
{
	switch (m->kind) {
	case FERRY_MSG_V3D_SUBMIT_CL: *ids = m->u.v3d_submit_cl.bo_ids; *nr = m->u.v3d_submit_cl.nr_bos; break;
	case FERRY_MSG_V3D_SUBMIT_TFU: *ids = m->u.v3d_submit_tfu.bo_ids; *nr = m->u.v3d_submit_tfu.nr_bos; break;
	case FERRY_MSG_V3D_SUBMIT_CSD: *ids = m->u.v3d_submit_csd.bo_ids; *nr = m->u.v3d_submit_csd.nr_bos; break;
	default: return -EINVAL;
	}
	*stride = sizeof(**ids);
	return 0;
}
