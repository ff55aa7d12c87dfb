/* msm submits: MSM_SUBMIT past the shared envelope (sched.c), the kernel's view of its BOs and
 * cmds, validation into shadow copies (validated contexts), then to the kernel at once or held
 * by the scheduler until its in-fences signal (msm_held_run sends it then). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/host_context.h"
#include "core/sched.h"
#include "core/msm/msm_validation.h"
#include "core/trace_host.h"
#include "core/host_capture.h"
#include "core/msm/msm_submit.h"

/* The held copy of a submit: the message with its arrays after it. */
struct msm_held_job {
	struct ferry_msm_submit s; /* arrays point into this allocation */
};

/* The kernel's view of a submit's BOs (msm_submit_prepare), in the context's scratch. */
static int fill_refs(struct host_ctx *ctx, struct host_bo *const *bos, uint32_t nr)
{
	struct msm_host_ctx *mc = msm_hctx(ctx);
	if (nr > mc->refs_cap) {
		uint32_t want = mc->refs_cap ? mc->refs_cap : 64;
		while (want < nr)
			want *= 2;
		struct msm_submit_bo_ref *refs = realloc(mc->refs, (size_t)want * sizeof(*refs));
		if (!refs)
			return -ENOMEM;
		mc->refs = refs;
		mc->refs_cap = want;
	}
	for (uint32_t i = 0; i < nr; i++)
		mc->refs[i] = (struct msm_submit_bo_ref){ .handle = bos[i]->handle, .size = bos[i]->size };
	return 0;
}

/* memcpy that tolerates the NULL array a decoder may give for an empty vector. */
static void *copy_array(void *dst, const void *src, size_t len)
{
	if (len)
		memcpy(dst, src, len);
	return dst;
}

static size_t held_job_size(const struct ferry_msm_submit *s)
{
	/* Counts were checked against the FERRY_MAX_SUBMIT_* limits, so these sizes are small. */
	return sizeof(struct msm_held_job) + (size_t)s->nr_relocs * sizeof(*s->relocs) +
	       (size_t)s->nr_bos * sizeof(*s->bos) + (size_t)s->nr_cmds * sizeof(*s->cmds);
}

static void held_job_copy(struct msm_held_job *j, const struct ferry_msm_submit *s)
{
	char *mem = (char *)(j + 1);
	j->s = *s;
	j->s.relocs = copy_array(mem, s->relocs, (size_t)s->nr_relocs * sizeof(*s->relocs));
	mem += (size_t)s->nr_relocs * sizeof(*s->relocs);
	j->s.bos = copy_array(mem, s->bos, (size_t)s->nr_bos * sizeof(*s->bos));
	mem += (size_t)s->nr_bos * sizeof(*s->bos);
	j->s.cmds = copy_array(mem, s->cmds, (size_t)s->nr_cmds * sizeof(*s->cmds));
	j->s.in_fences = NULL;
	j->s.nr_in_fences = 0;
}

int msm_handle_submit(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_msm_submit *s = &m->u.msm_submit;
	struct submit_envelope e = {
		.ctx_id = s->ctx_id, .queue_id = s->queue_id, .seqno = s->seqno, .flags = s->flags,
		.allowed_flags = FERRY_SUBMIT_FLAGS, .family = FERRY_FAMILY_MSM,
		.family_hint = "an msm context: use the V3D submits", .kind = FERRY_QUEUE_KIND_DEFAULT,
		.bo_ids = s->nr_bos ? &s->bos[0].bo_id : NULL, .bo_id_stride = sizeof(*s->bos), .nr_bos = s->nr_bos,
		.in = s->in_fences, .nr_in = s->nr_in_fences,
	};
	int ret = submit_envelope_begin(c, &e, why, n);
	if (ret < 0)
		return ret;
	struct host_ctx *ctx = e.ctx;
	struct host_queue *q = e.q;
	if (fill_refs(ctx, e.bos, s->nr_bos) < 0)
		HOST_FAIL(-ENOMEM, "out of memory");
	ret = msm_submit_prepare(msm_hctx(ctx)->msm, s, msm_hctx(ctx)->refs, why, n);
	if (ret < 0)
		return ret;
	ret = submit_envelope_fences(&e, why, n);
	if (ret < 0)
		return ret;

	/* Last of the checks, as it is the costly one; a rejection leaves everything as it was
	 * (the seqno is not taken: the guest's library completes that fence with the error). */
	struct shadow_set *shadows = NULL;
	if (msm_hctx(ctx)->val) {
		ret = validation_submit(ctx, s, ctx->bo_ptrs, &shadows, why, n);
		if (ret == -EINPROGRESS) /* this frame comes again (client.c): nothing taken yet */
			return ret;
		trace_queue_event(q, ret < 0 ? TRACE_REJECTED : TRACE_VALIDATED, s->seqno, ret < 0 ? ret : 0);
		if (ret < 0 && ctx->refused)
			ctx_submit_refused(q, s->seqno, ret, why);
		if (ret < 0)
			return ret;
	}

	if (c->host->capture)
		capture_submit(q, s->seqno, m, ctx->bo_ptrs, s->nr_bos);

	if (!e.held) {
		ret = shadows ? validation_use_shadows(ctx, shadows) : 0;
		if (ret == 0)
			ret = timeline_push(&q->tl, s->seqno, s->flags, 0, true);
		if (ret < 0) {
			if (shadows)
				validation_release(ctx, shadows);
			HOST_FAIL(ret, "out of memory");
		}
		/* Noted before the call: the GPU may start it before the call returns. */
		trace_queue_event(q, TRACE_KERNEL_SUBMIT, s->seqno, 0);
		/* Here whatever else the context has in flight: an idle GPU (every submit before it
		 * retired or held off) then runs it in this thread instead of sleeping through a
		 * wakeup, which cost a guest that keeps a few submits in flight 2 us of CPU and the
		 * wakeup's latency per submit (`ferry bench --clients`). */
		bool done_here;
		ret = msm_submit_flush(msm_hctx(ctx)->msm, q->kernel_id, s->seqno, true, &done_here);
		if (done_here)
			ctx_done_here(ctx);
		if (ret < 0) {
			trace_queue_event(q, TRACE_REJECTED, s->seqno, ret);
			q->tl.count--; /* un-push: the kernel did not take it */
			if (shadows)
				validation_release(ctx, shadows);
			HOST_FAIL(ret, "kernel rejected the submit (%s)", strerror(-ret));
		}
		if (shadows)
			validation_queue(ctx, shadows, q->id, s->seqno);
	} else {
		struct held_submit *hs = sched_hold(&e, held_job_size(s), shadows);
		if (!hs) {
			if (shadows)
				validation_release(ctx, shadows);
			HOST_FAIL(-ENOMEM, "out of memory");
		}
		held_job_copy(hs->job, s);
		/* Recycled when this seqno retires, however it retires (run, refused, cancelled). */
		if (shadows)
			validation_queue(ctx, shadows, q->id, s->seqno);
	}
	submit_accepted(c, &e);
	return 0;
}

int msm_held_run(struct host_queue *q, struct held_submit *hs, uint32_t *syncobj, char *why, size_t n)
{
	struct host_ctx *ctx = q->ctx;
	const struct msm_held_job *j = hs->job;
	int ret = fill_refs(ctx, hs->bos, hs->nr_bos);
	if (ret < 0)
		HOST_FAIL(ret, "out of memory");
	ret = msm_submit_prepare(msm_hctx(ctx)->msm, &j->s, msm_hctx(ctx)->refs, why, n);
	if (ret == 0 && hs->shadows)
		ret = validation_use_shadows(ctx, hs->shadows);
	if (ret == 0) {
		trace_queue_event(q, TRACE_RELEASED, hs->seqno, 0);
		trace_queue_event(q, TRACE_KERNEL_SUBMIT, hs->seqno, 0);
		ret = msm_submit_flush(msm_hctx(ctx)->msm, q->kernel_id, hs->seqno, false, NULL);
	}
	if (ret < 0 && !why[0])
		snprintf(why, n, "%s", strerror(-ret));
	return ret;
}
