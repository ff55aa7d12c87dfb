/* What every family's capture of a submit shares (the families' capture_build ops write the rest):
 * BO views, the session file's opening and the context, queue and BO creations the replay needs
 * first. Addresses and contents are the guest's BOs, never the validator's shadow copies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "capture_internal.h"
#include "ferry/session_file.h"

int capture_bo_view_open(struct host_bo *bo, struct capture_bo_view *v)
{
	v->bo = bo;
	v->own_map = NULL;
	if (bo->host_map) {
		v->data = bo->host_map;
		return 0;
	}
	int ret = bo->ctx->client->host->fam->bo_map(bo->ctx, bo, &v->own_map);
	if (ret < 0)
		v->own_map = NULL;
	v->data = v->own_map;
	return ret;
}

void capture_bo_view_close(struct capture_bo_view *v)
{
	if (v->own_map)
		v->bo->ctx->client->host->fam->bo_unmap(v->bo->ctx, v->bo, v->own_map);
	v->own_map = NULL;
}

static bool file_has_bo(struct capture_file *f, uint32_t bo_id, uint64_t iova, uint64_t size)
{
	for (uint32_t i = 0; i < f->nr_bos; i++)
		if (f->bos[i].id == bo_id)
			return f->bos[i].iova == iova && f->bos[i].size == size;
	return false;
}

static int file_note_bo(struct capture_file *f, uint32_t bo_id, uint64_t iova, uint64_t size, bool *replaced)
{
	*replaced = false;
	for (uint32_t i = 0; i < f->nr_bos; i++) {
		if (f->bos[i].id == bo_id) {
			f->bos[i].iova = iova;
			f->bos[i].size = size;
			*replaced = true;
			return 0;
		}
	}
	if (FERRY_ARRAY_RESERVE(f->bos, f->cap_bos, f->nr_bos + 1, 16))
		return -ENOMEM;
	f->bos[f->nr_bos++] = (struct capture_file_bo){ .id = bo_id, .iova = iova, .size = size };
	return 0;
}

int capture_session_prologue(struct capture_buffers *b, struct capture_file *f, struct host_queue *q,
			     struct host_bo *const *bos, uint32_t nr_bos)
{
	struct host_ctx *ctx = q->ctx;
	int ret = 0;
	if (!f->ctx_written) {
		struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE, .seq = 0 };
		m.u.context_create = (struct ferry_context_create){
			.ctx_id = ctx->id, .family = ctx->family, .policy = ctx->policy,
		};
		ret = session_write_msg(&b->session, SESSION_FRAME_SYNTH, &m, &b->scratch);
		if (ret < 0)
			return ret;
		f->ctx_written = true;
	}
	if (q->id < 64 && !(f->queues_written & (1ull << q->id))) {
		struct ferry_msg m = { .kind = FERRY_MSG_QUEUE_CREATE, .seq = 0 };
		m.u.queue_create = (struct ferry_queue_create){
			.ctx_id = ctx->id, .queue_id = q->id, .priority = q->prio, .flags = 0, .kind = q->kind,
		};
		ret = session_write_msg(&b->session, SESSION_FRAME_SYNTH, &m, &b->scratch);
		if (ret < 0)
			return ret;
		f->queues_written |= 1ull << q->id;
	}
	for (uint32_t i = 0; i < nr_bos; i++) {
		const struct host_bo *bo = bos[i];
		if (file_has_bo(f, bo->id, bo->iova, bo->size))
			continue;
		bool replaced;
		ret = file_note_bo(f, bo->id, bo->iova, bo->size, &replaced);
		if (ret < 0)
			return ret;
		struct ferry_msg m = { .seq = 0 };
		if (replaced) {
			/* The guest closed that id and made a new BO under it. */
			m.kind = FERRY_MSG_BO_CLOSE;
			m.u.bo_close = (struct ferry_bo_close){ .ctx_id = ctx->id, .bo_id = bo->id };
			ret = session_write_msg(&b->session, SESSION_FRAME_SYNTH, &m, &b->scratch);
			if (ret < 0)
				return ret;
		}
		/* Placed where it was: command streams hold absolute addresses (V3D cannot choose:
		 * its replay relocates them from this iova). */
		m.kind = FERRY_MSG_BO_CREATE;
		m.u.bo_create = (struct ferry_bo_create){
			.ctx_id = ctx->id, .bo_id = bo->id, .size = bo->size, .flags = bo->flags, .iova = bo->iova,
		};
		ret = session_write_msg(&b->session, SESSION_FRAME_SYNTH, &m, &b->scratch);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int capture_session_opening(struct capture_buffers *b, struct capture_file *f, struct host_ctx *ctx,
			    bool post_mortem, const char *extra_note)
{
	struct ferry_host *h = ctx->client->host;
	if (f->session_started)
		return 0;
	int ret = session_write_header(&b->session, ctx->family, h->gpu);
	if (ret < 0)
		return ret;
	char note[512];
	snprintf(note, sizeof(note), "device: %s\nclient: %s\ncontext: %u\nsnapshots: %s\n%s", h->device_name,
		 ctx->client->peer, ctx->id, post_mortem ? "post-mortem" : "submit-time", extra_note);
	ret = session_write_record(&b->session, SESSION_REC_NOTE, 0, note, strlen(note));
	if (ret < 0)
		return ret;
	f->session_started = true;
	return 0;
}
