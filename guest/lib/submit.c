/* libferry msm submits: builds FERRY_MSG_MSM_SUBMIT (command BOs first, READ; then the
 * caller's BOs), takes the queue's next seqno and sends it (into the context's submit ring when
 * it has one). Never waits. A submit without cmds is valid, as in the kernel: its fence signals
 * once the queue's earlier work is done. Steady state allocates nothing: the arrays are the
 * context's scratch, and duplicate BOs are found by a mark in each BO (O(n)). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ferry/uapi/msm_drm.h" /* the one copy of the msm uAPI */

/* Index of bo in the list being built, adding it if new; merges flags. */
static uint32_t bo_index(struct ferry_context *ctx, uint32_t *n, struct ferry_bo *bo, uint32_t flags)
{
	if (bo->submit_mark == ctx->submit_gen) {
		ctx->sub_bos[bo->submit_index].flags |= flags;
		return bo->submit_index;
	}
	bo->submit_mark = ctx->submit_gen;
	bo->submit_index = *n;
	ctx->sub_bos[*n] = (struct ferry_msm_submit_bo){ bo->id, flags };
	return (*n)++;
}

/* Grows an array of the context's scratch to hold n elements. */
static int scratch(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	if (n <= *cap)
		return 0;
	uint32_t want = *cap ? *cap : 16;
	while (want < n)
		want *= 2;
	void *p = realloc(*arr, (size_t)want * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = want;
	return 0;
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

/* Fills the context's scratch for s (under send_lock): *nr_bos merged BOs. */
static int build(struct ferry_context *ctx, const struct ferry_submit *s, uint32_t *nr_bos)
{
	struct ferry_device *dev = ctx->dev;
	uint32_t max_bos = s->nr_cmds + s->nr_bos; /* both bounded: no overflow */
	if (scratch((void **)&ctx->sub_bos, &ctx->sub_bos_cap, max_bos, sizeof(*ctx->sub_bos)) < 0 ||
	    scratch((void **)&ctx->sub_cmds, &ctx->sub_cmds_cap, s->nr_cmds, sizeof(*ctx->sub_cmds)) < 0)
		return -ENOMEM;
	/* A new mark for this submit; at the wrap, no BO may keep an old mark that matches. */
	if (++ctx->submit_gen == 0) {
		pthread_mutex_lock(&dev->lock);
		for (struct ferry_bo *bo = ctx->bos; bo; bo = bo->next)
			bo->submit_mark = 0;
		pthread_mutex_unlock(&dev->lock);
		ctx->submit_gen = 1;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->nr_cmds; i++) {
		const struct ferry_cmd *c = &s->cmds[i];
		if (!c->bo || c->bo->ctx != ctx || c->size == 0 || (c->size & 3) || (c->offset & 3) ||
		    (uint64_t)c->offset + c->size > c->bo->size) {
			ferry_set_error(dev, "submit: cmd %u is outside its BO or misaligned", i);
			return -EINVAL;
		}
		ctx->sub_cmds[i] = (struct ferry_msm_submit_cmd){
			.type = c->type ? c->type : MSM_SUBMIT_CMD_BUF,
			.bo_index = bo_index(ctx, &n, c->bo, MSM_SUBMIT_BO_READ),
			.offset = c->offset,
			.size = c->size,
		};
	}
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		const struct ferry_submit_bo *b = &s->bos[i];
		if (!b->bo || b->bo->ctx != ctx) {
			ferry_set_error(dev, "submit: BO %u belongs to another context", i);
			return -EINVAL;
		}
		bo_index(ctx, &n, b->bo, b->flags);
	}
	if (n > FERRY_MAX_SUBMIT_BOS) {
		ferry_set_error(dev, "submit: more than %u BOs", FERRY_MAX_SUBMIT_BOS);
		return -E2BIG;
	}
	*nr_bos = n;
	return 0;
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

	/* Built, seqno taken and sent under one lock: the scratch is the context's, and the host
	 * sees each queue's seqnos in increasing order even with several submitting threads. */
	pthread_mutex_lock(&dev->send_lock);
	uint32_t nr_bos = 0;
	int r = build(ctx, s, &nr_bos);
	if (r < 0) {
		pthread_mutex_unlock(&dev->send_lock);
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
	m->bos = ctx->sub_bos;
	m->cmds = ctx->sub_cmds;
	m->in_fences = s->in_fences;
	if (dev->capture)
		capture_submit(ctx, s);
	m->seqno = q->last_seqno + 1;
	pthread_mutex_lock(&dev->lock);
	ferry_async_note(dev, msg.seq, msg.kind, ctx->id, q->id, m->seqno);
	pthread_mutex_unlock(&dev->lock);
	r = ferry_send_ctx_locked(ctx, &msg);
	if (r == 0) {
		q->last_seqno = m->seqno;
		if (seqno)
			*seqno = m->seqno;
	} else if (r != -EIO) {
		ferry_set_send_error(dev, FERRY_MSG_MSM_SUBMIT, r);
	}
	pthread_mutex_unlock(&dev->send_lock);
	return r;
}
