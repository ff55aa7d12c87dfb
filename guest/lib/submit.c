/* libferry msm submits: builds FERRY_MSG_MSM_SUBMIT (command BOs first, READ; then the
 * caller's BOs), takes the queue's next seqno and sends it. Never waits. A submit without
 * cmds is valid, as in the kernel: its fence signals once the queue's earlier work is done. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ferry/uapi/msm_drm.h" /* the one copy of the msm uAPI */

/* Index of bo in the list, adding it if new; merges flags. */
static uint32_t bo_index(struct ferry_msm_submit_bo *list, uint32_t *n, uint32_t bo_id,
			 uint32_t flags)
{
	for (uint32_t i = 0; i < *n; i++) {
		if (list[i].bo_id == bo_id) {
			list[i].flags |= flags;
			return i;
		}
	}
	list[*n] = (struct ferry_msm_submit_bo){ bo_id, flags };
	return (*n)++;
}

/* The guest-side capture's view of the submit: its command BOs first (always snapshotted). */
static void capture_submit(struct ferry_context *ctx, const struct ferry_submit *s)
{
	uint32_t n = s->nr_cmds + s->nr_bos; /* both bounded: no overflow */
	struct ferry_bo **list = calloc(n ? n : 1, sizeof(*list));
	if (!list)
		return;
	for (uint32_t i = 0; i < s->nr_cmds; i++)
		list[i] = s->cmds[i].bo;
	for (uint32_t i = 0; i < s->nr_bos; i++)
		list[s->nr_cmds + i] = s->bos[i].bo;
	ferry_capture_submit(ctx, list, n, s->nr_cmds);
	free(list);
}

int ferry_submit(struct ferry_queue *q, const struct ferry_submit *s, uint32_t *seqno)
{
	struct ferry_context *ctx = q->ctx;
	struct ferry_device *dev = ctx->dev;
	if (seqno)
		*seqno = 0;
	if (!s || s->nr_cmds > FERRY_MAX_SUBMIT_CMDS ||
	    s->nr_bos > FERRY_MAX_SUBMIT_BOS || s->nr_in_fences > FERRY_MAX_SUBMIT_IN_FENCES ||
	    (s->flags & ~FERRY_SUBMIT_FLAGS)) {
		ferry_set_error(dev, "submit: bad counts or flags");
		return -EINVAL;
	}
	if (ferry_context_lost(ctx)) {
		ferry_set_error(dev, "submit: context %u is lost", ctx->id);
		return -EIO;
	}

	uint32_t max_bos = s->nr_cmds + s->nr_bos; /* both bounded above: no overflow */
	/* At least one element each: calloc(0) may return NULL. */
	struct ferry_msm_submit_bo *bos = calloc(max_bos ? max_bos : 1, sizeof(*bos));
	struct ferry_msm_submit_cmd *cmds = calloc(s->nr_cmds ? s->nr_cmds : 1, sizeof(*cmds));
	if (!bos || !cmds) {
		free(bos);
		free(cmds);
		return -ENOMEM;
	}
	uint32_t nr_bos = 0;
	int r = 0;
	for (uint32_t i = 0; i < s->nr_cmds && r == 0; i++) {
		const struct ferry_cmd *c = &s->cmds[i];
		if (!c->bo || c->bo->ctx != ctx || c->size == 0 || (c->size & 3) || (c->offset & 3) ||
		    (uint64_t)c->offset + c->size > c->bo->size) {
			ferry_set_error(dev, "submit: cmd %u is outside its BO or misaligned", i);
			r = -EINVAL;
			break;
		}
		cmds[i].type = c->type ? c->type : MSM_SUBMIT_CMD_BUF;
		cmds[i].bo_index = bo_index(bos, &nr_bos, c->bo->id, MSM_SUBMIT_BO_READ);
		cmds[i].offset = c->offset;
		cmds[i].size = c->size;
	}
	for (uint32_t i = 0; i < s->nr_bos && r == 0; i++) {
		const struct ferry_submit_bo *b = &s->bos[i];
		if (!b->bo || b->bo->ctx != ctx) {
			ferry_set_error(dev, "submit: BO %u belongs to another context", i);
			r = -EINVAL;
			break;
		}
		bo_index(bos, &nr_bos, b->bo->id, b->flags);
	}
	if (r == 0 && nr_bos > FERRY_MAX_SUBMIT_BOS) {
		ferry_set_error(dev, "submit: more than %u BOs", FERRY_MAX_SUBMIT_BOS);
		r = -E2BIG;
	}
	if (r < 0) {
		free(bos);
		free(cmds);
		return r;
	}

	struct ferry_msg msg = { .kind = FERRY_MSG_MSM_SUBMIT, .seq = ferry_next_seq(dev) };
	struct ferry_msm_submit *m = &msg.u.msm_submit;
	m->ctx_id = ctx->id;
	m->queue_id = q->id;
	m->flags = s->flags;
	m->nr_bos = nr_bos;
	m->nr_cmds = s->nr_cmds;
	m->nr_in_fences = s->nr_in_fences;
	m->bos = bos;
	m->cmds = cmds;
	m->in_fences = s->in_fences;

	/* The seqno is taken and sent under one lock, so the host sees each queue's seqnos in
	 * increasing order even with several submitting threads. */
	pthread_mutex_lock(&dev->send_lock);
	if (dev->capture)
		capture_submit(ctx, s);
	m->seqno = q->last_seqno + 1;
	pthread_mutex_lock(&dev->lock);
	ferry_async_note(dev, msg.seq, msg.kind, ctx->id, q->id, m->seqno);
	pthread_mutex_unlock(&dev->lock);
	r = ferry_send_locked(dev, &msg, NULL, 0);
	if (r == 0) {
		q->last_seqno = m->seqno;
		if (seqno)
			*seqno = m->seqno;
	} else {
		ferry_set_error(dev, "submit: send failed: %s", strerror(-r));
	}
	pthread_mutex_unlock(&dev->send_lock);
	free(bos);
	free(cmds);
	return r;
}
