/* libferry V3D submits: builds FERRY_MSG_V3D_SUBMIT_CL / _TFU / _CSD from the caller's BOs (their
 * ids; the host resolves them), takes the queue's next seqno and sends. Never waits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The BO list is checked here; its ids are written under send_lock into the context's scratch
 * (send_submit), so a steady stream of submits allocates nothing. */
static int check_bos(struct ferry_queue *q, struct ferry_bo *const *bos, uint32_t nr, uint32_t max)
{
	struct ferry_device *dev = q->ctx->dev;
	if (!bos || nr == 0 || nr > max) {
		ferry_set_error(dev, "V3D submit: needs 1..%u BOs (got %u)", max, nr);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < nr; i++) {
		if (!bos[i] || bos[i]->ctx != q->ctx) {
			ferry_set_error(dev, "V3D submit: BO %u belongs to another context", i);
			return -EINVAL;
		}
	}
	return 0;
}

/* The ids into the context's scratch (under send_lock). */
static uint32_t *bo_ids_locked(struct ferry_context *ctx, struct ferry_bo *const *bos, uint32_t nr)
{
	if (nr > ctx->sub_ids_cap) {
		uint32_t want = ctx->sub_ids_cap ? ctx->sub_ids_cap : 16;
		while (want < nr)
			want *= 2;
		uint32_t *p = realloc(ctx->sub_ids, (size_t)want * sizeof(*p));
		if (!p)
			return NULL;
		ctx->sub_ids = p;
		ctx->sub_ids_cap = want;
	}
	for (uint32_t i = 0; i < nr; i++)
		ctx->sub_ids[i] = bos[i]->id;
	return ctx->sub_ids;
}

static int common_checks(struct ferry_queue *q, uint32_t nr_in, uint32_t flags, uint32_t allowed, uint32_t *seqno)
{
	struct ferry_device *dev = q->ctx->dev;
	if (seqno)
		*seqno = 0;
	if (nr_in > FERRY_MAX_SUBMIT_IN_FENCES || (flags & ~allowed)) {
		ferry_set_error(dev, "V3D submit: bad in-fence count or flags");
		return -EINVAL;
	}
	if (ferry_context_lost(q->ctx)) {
		ferry_set_error(dev, "V3D submit: context %u is lost", q->ctx->id);
		return -EIO;
	}
	return 0;
}

/* Takes the seqno and sends under one lock (seqnos reach the host in order); *slot is where the
 * message keeps its seqno, *ids where it points to its BO ids. */
static int send_submit(struct ferry_queue *q, struct ferry_msg *msg, uint32_t *slot, uint32_t *seqno,
		       struct ferry_bo *const *bos, uint32_t nr_bos, const uint32_t **ids)
{
	struct ferry_device *dev = q->ctx->dev;
	pthread_mutex_lock(&dev->send_lock);
	*ids = bo_ids_locked(q->ctx, bos, nr_bos);
	if (!*ids) {
		pthread_mutex_unlock(&dev->send_lock);
		return -ENOMEM;
	}
	/* Lists, shader records, shaders and uniforms may sit in any of a V3D submit's BOs. */
	if (dev->capture)
		ferry_capture_submit(q->ctx, bos, nr_bos, nr_bos);
	*slot = q->last_seqno + 1;
	pthread_mutex_lock(&dev->lock);
	ferry_async_note(dev, msg->seq, msg->kind, q->ctx->id, q->id, *slot);
	pthread_mutex_unlock(&dev->lock);
	int r = ferry_send_ctx_locked(q->ctx, msg);
	if (r == 0) {
		q->last_seqno = *slot;
		if (seqno)
			*seqno = *slot;
	} else if (r != -EIO) {
		ferry_set_send_error(dev, msg->kind, r);
	}
	pthread_mutex_unlock(&dev->send_lock);
	return r;
}

int ferry_v3d_submit_cl(struct ferry_queue *q, const struct ferry_v3d_cl *s, uint32_t *seqno)
{
	int r = s ? common_checks(q, s->nr_in_fences, s->flags, FERRY_V3D_SUBMIT_CL_FLAGS, seqno) : -EINVAL;
	if (r < 0)
		return r;
	if ((r = check_bos(q, s->bos, s->nr_bos, FERRY_MAX_SUBMIT_BOS)) < 0)
		return r;
	struct ferry_msg msg = { .kind = FERRY_MSG_V3D_SUBMIT_CL, .seq = ferry_next_seq(q->ctx->dev) };
	msg.u.v3d_submit_cl = (struct ferry_v3d_submit_cl){
		.ctx_id = q->ctx->id, .queue_id = q->id, .flags = s->flags,
		.bcl_start = s->bcl_start, .bcl_end = s->bcl_end, .rcl_start = s->rcl_start, .rcl_end = s->rcl_end,
		.qma = s->qma, .qms = s->qms, .qts = s->qts,
		.nr_bos = s->nr_bos, .nr_in_fences = s->nr_in_fences, .bo_ids = NULL, .in_fences = s->in_fences,
	};
	return send_submit(q, &msg, &msg.u.v3d_submit_cl.seqno, seqno, s->bos, s->nr_bos, &msg.u.v3d_submit_cl.bo_ids);
}

int ferry_v3d_submit_tfu(struct ferry_queue *q, const struct ferry_v3d_tfu *s, uint32_t *seqno)
{
	int r = s ? common_checks(q, s->nr_in_fences, s->flags, FERRY_SUBMIT_FLAGS, seqno) : -EINVAL;
	if (r < 0)
		return r;
	if ((r = check_bos(q, s->bos, s->nr_bos, FERRY_V3D_MAX_TFU_BOS)) < 0)
		return r;
	struct ferry_msg msg = { .kind = FERRY_MSG_V3D_SUBMIT_TFU, .seq = ferry_next_seq(q->ctx->dev) };
	msg.u.v3d_submit_tfu = (struct ferry_v3d_submit_tfu){
		.ctx_id = q->ctx->id, .queue_id = q->id, .flags = s->flags,
		.icfg = s->icfg, .iia = s->iia, .iis = s->iis, .ica = s->ica, .iua = s->iua, .ioa = s->ioa,
		.ios = s->ios, .v71_ioc = s->v71_ioc,
		.nr_bos = s->nr_bos, .nr_in_fences = s->nr_in_fences, .bo_ids = NULL, .in_fences = s->in_fences,
	};
	memcpy(msg.u.v3d_submit_tfu.coef, s->coef, sizeof(s->coef));
	return send_submit(q, &msg, &msg.u.v3d_submit_tfu.seqno, seqno, s->bos, s->nr_bos, &msg.u.v3d_submit_tfu.bo_ids);
}

int ferry_v3d_submit_csd(struct ferry_queue *q, const struct ferry_v3d_csd *s, uint32_t *seqno)
{
	int r = s ? common_checks(q, s->nr_in_fences, s->flags, FERRY_SUBMIT_FLAGS, seqno) : -EINVAL;
	if (r < 0)
		return r;
	if ((r = check_bos(q, s->bos, s->nr_bos, FERRY_MAX_SUBMIT_BOS)) < 0)
		return r;
	struct ferry_msg msg = { .kind = FERRY_MSG_V3D_SUBMIT_CSD, .seq = ferry_next_seq(q->ctx->dev) };
	msg.u.v3d_submit_csd = (struct ferry_v3d_submit_csd){
		.ctx_id = q->ctx->id, .queue_id = q->id, .flags = s->flags,
		.nr_bos = s->nr_bos, .nr_in_fences = s->nr_in_fences, .bo_ids = NULL, .in_fences = s->in_fences,
	};
	memcpy(msg.u.v3d_submit_csd.cfg, s->cfg, sizeof(s->cfg));
	return send_submit(q, &msg, &msg.u.v3d_submit_csd.seqno, seqno, s->bos, s->nr_bos, &msg.u.v3d_submit_csd.bo_ids);
}
