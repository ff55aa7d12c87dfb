/* What one captured msm submit adds to a capture: the .rd sections (device once, RD_CMD, GPUADDR
 * + contents per BO, CMDSTREAM_ADDR per command buffer) and the session records (context, queue
 * and BO creation the replay needs first, BO snapshots, the submit frame). Addresses and
 * contents are the guest's BOs, never the validator's shadow copies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/uapi/msm_drm.h"
#include "backend/v3d.h"
#include "capture_internal.h"
#include "debug/rd_writer.h"
#include "debug/session_file.h"

/* A read-only view of a BO's pages: the validator's mapping when there is one, else a temporary
 * mapping through the backend. */
struct bo_view {
	const void *data;
	void *own_map;
	struct host_bo *bo;
};

static int bo_view_open(struct host_bo *bo, struct bo_view *v)
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

static void bo_view_close(struct bo_view *v)
{
	if (v->own_map)
		v->bo->ctx->client->host->fam->bo_unmap(v->bo->ctx, v->bo, v->own_map);
	v->own_map = NULL;
}

static bool is_cmd_bo(const struct ferry_msm_submit *s, uint32_t i)
{
	for (uint32_t c = 0; c < s->nr_cmds; c++)
		if (s->cmds[c].bo_index == i)
			return true;
	return false;
}

/* Is bos[i] one whose contents the capture keeps: a command buffer (any cmd names it) always;
 * with full, the others too while their total stays within budget (*spent: what they used so
 * far, never above budget). Called in bos[] order, so the same inputs make the same choices. */
static bool bo_dumped(const struct ferry_msm_submit *s, uint32_t i, bool full, uint64_t size, uint64_t budget,
		      uint64_t *spent)
{
	if (is_cmd_bo(s, i))
		return true;
	if (!full || size > budget - *spent)
		return false;
	*spent += size;
	return true;
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

static int session_prologue(struct capture_buffers *b, struct capture_file *f, struct host_queue *q,
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

/* The session file's header and NOTE, once per file. */
static int session_opening(struct capture_buffers *b, struct capture_file *f, struct host_ctx *ctx, bool post_mortem,
			   const char *extra_note)
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

int capture_build_submit(struct capture_buffers *b, struct capture_file *f, unsigned formats, bool full,
			 uint64_t full_budget, bool post_mortem, struct host_queue *q, const struct ferry_msm_submit *s,
			 struct host_bo *const *bos, const void *frame, size_t frame_len, uint32_t frame_flags)
{
	struct host_ctx *ctx = q->ctx;
	struct ferry_host *h = ctx->client->host;
	int ret = 0;
	/* What the budget leaves out, said in the NOTE so a reader knows the snapshots are partial. */
	char truncated[200] = "";
	uint64_t spent = 0, left_bytes = 0;
	uint32_t left = 0;
	for (uint32_t i = 0; full && i < s->nr_bos; i++) {
		if (!bo_dumped(s, i, full, bos[i]->size, full_budget, &spent)) {
			left++;
			left_bytes += bos[i]->size;
		}
	}
	if (left)
		snprintf(truncated, sizeof(truncated),
			 "truncated: %u BOs (%llu bytes) not copied; at most %llu bytes besides the command buffers\n",
			 left, (unsigned long long)left_bytes, (unsigned long long)full_budget);
	spent = 0;
	if ((formats & FERRY_CAPTURE_RD) && !f->rd_started) {
		uint32_t gpu_id;
		uint64_t chip_id;
		h->fam->rd_ids(h, &gpu_id, &chip_id);
		ret = rd_write_device(&b->rd, gpu_id, chip_id);
		if (ret < 0)
			return ret;
		f->rd_started = true;
	}
	if ((formats & FERRY_CAPTURE_SESSION) && (ret = session_opening(b, f, ctx, post_mortem, truncated)) < 0)
		return ret;
	if (formats & FERRY_CAPTURE_RD) {
		char cmd[200];
		snprintf(cmd, sizeof(cmd), "ferry %s/%u ctx=%u queue=%u: fence=%u%s", ctx->client->peer, ctx->client->id,
			 ctx->id, q->id, s->seqno, post_mortem ? " (post-mortem)" : "");
		ret = rd_write_cmd(&b->rd, cmd);
		if (ret < 0)
			return ret;
	}
	if (formats & FERRY_CAPTURE_SESSION) {
		ret = session_prologue(b, f, q, bos, s->nr_bos);
		if (ret < 0)
			return ret;
	}
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		struct host_bo *bo = bos[i];
		struct bo_view v = { 0 };
		bool dump = bo_dumped(s, i, full, bo->size, full_budget, &spent) && bo_view_open(bo, &v) == 0;
		if (formats & FERRY_CAPTURE_RD)
			ret = rd_write_buffer(&b->rd, bo->iova, (uint32_t)bo->size, dump ? v.data : NULL, bo->size);
		if (ret == 0 && dump && (formats & FERRY_CAPTURE_SESSION))
			ret = session_write_snapshot(&b->session, post_mortem ? SESSION_SNAP_POST_MORTEM : 0, ctx->id, bo->id,
						     bo->iova, 0, v.data, bo->size);
		bo_view_close(&v);
		if (ret < 0)
			return ret;
	}
	if (formats & FERRY_CAPTURE_RD) {
		for (uint32_t c = 0; c < s->nr_cmds; c++) {
			const struct ferry_msm_submit_cmd *cmd = &s->cmds[c];
			/* IB targets are reached through the IBs, as in the kernel's and Mesa's captures. */
			if (cmd->type == MSM_SUBMIT_CMD_IB_TARGET_BUF || cmd->bo_index >= s->nr_bos)
				continue;
			ret = rd_write_cmdstream(&b->rd, bos[cmd->bo_index]->iova + cmd->offset, cmd->size / 4);
			if (ret < 0)
				return ret;
		}
	}
	if (formats & FERRY_CAPTURE_SESSION)
		ret = session_write_frame_payload(&b->session, frame_flags, frame, frame_len);
	return ret;
}

int capture_build_v3d(struct capture_buffers *b, struct capture_file *f, bool post_mortem, struct host_queue *q,
		      struct host_bo *const *bos, uint32_t nr_bos, const void *frame, size_t frame_len)
{
	struct host_ctx *ctx = q->ctx;
	int ret = session_opening(b, f, ctx, post_mortem, "");
	if (ret == 0)
		ret = session_prologue(b, f, q, bos, nr_bos);
	/* Every listed BO: a V3D job's lists, shader records, shaders and uniforms may sit in any of
	 * them, and the replay relocates addresses inside all of them. */
	for (uint32_t i = 0; ret == 0 && i < nr_bos; i++) {
		struct bo_view v = { 0 };
		ret = bo_view_open(bos[i], &v);
		if (ret == 0)
			ret = session_write_snapshot(&b->session, post_mortem ? SESSION_SNAP_POST_MORTEM : 0, ctx->id,
						     bos[i]->id, bos[i]->iova, 0, v.data, bos[i]->size);
		bo_view_close(&v);
	}
	if (ret == 0)
		ret = session_write_frame_payload(&b->session, 0, frame, frame_len);
	return ret;
}
