/* What one captured msm submit adds to a capture (the family's capture_build op): the .rd sections
 * (device once, RD_CMD, GPUADDR + contents per BO, CMDSTREAM_ADDR per command buffer) and the
 * session records (capture_build.c's opening and prologue, BO snapshots, the submit frame). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/capture_internal.h"
#include "core/msm/msm_capture.h"
#include "debug/rd_writer.h"
#include "ferry/session_file.h"
#include "ferry/uapi/msm_drm.h"

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

int msm_capture_build(struct capture_buffers *b, struct capture_file *f, const struct capture_submit *a)
{
	unsigned formats = a->formats;
	bool full = a->full, post_mortem = a->post_mortem;
	uint64_t full_budget = a->full_budget;
	struct host_queue *q = a->q;
	const struct ferry_msm_submit *s = &a->m->u.msm_submit;
	struct host_bo *const *bos = a->bos;
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
	if ((formats & FERRY_CAPTURE_SESSION) && (ret = capture_session_opening(b, f, ctx, post_mortem, truncated)) < 0)
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
		ret = capture_session_prologue(b, f, q, bos, s->nr_bos);
		if (ret < 0)
			return ret;
	}
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		struct host_bo *bo = bos[i];
		struct capture_bo_view v = { 0 };
		bool dump = bo_dumped(s, i, full, bo->size, full_budget, &spent) && capture_bo_view_open(bo, &v) == 0;
		if (formats & FERRY_CAPTURE_RD)
			ret = rd_write_buffer(&b->rd, bo->iova, (uint32_t)bo->size, dump ? v.data : NULL, bo->size);
		if (ret == 0 && dump && (formats & FERRY_CAPTURE_SESSION))
			ret = session_write_snapshot(&b->session, post_mortem ? SESSION_SNAP_POST_MORTEM : 0, ctx->id, bo->id,
						     bo->iova, 0, v.data, bo->size);
		capture_bo_view_close(&v);
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
		ret = session_write_frame_payload(&b->session, 0, a->frame, a->frame_len);
	return ret;
}

int msm_submit_bo_ids(const struct ferry_msg *m, const uint32_t **ids, size_t *stride, uint32_t *nr)
{
	if (m->kind != FERRY_MSG_MSM_SUBMIT)
		return -EINVAL;
	const struct ferry_msm_submit *s = &m->u.msm_submit;
	*ids = s->nr_bos ? &s->bos[0].bo_id : NULL;
	*stride = sizeof(*s->bos);
	*nr = s->nr_bos;
	return 0;
}
