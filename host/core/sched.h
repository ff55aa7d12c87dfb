/* The submit path and held submits (sched.c): submits wait there for their in-fences. */
#ifndef FERRY_HOST_SCHED_H
#define FERRY_HOST_SCHED_H

#include "host_types.h"
#include "v3d/v3d_core.h"

int sched_handle_submit(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* Sends held submits whose in-fences have signaled. Returns true if any left the scheduler. */
bool sched_release(struct host_ctx *ctx);
/* Retires every held submit of the context with status (in order, through the timelines). */
void sched_cancel(struct host_ctx *ctx, int32_t status);
/* Frees held submits without signaling (context teardown). */
void sched_free_queue(struct host_queue *q);
/* A queue is going away: held submits elsewhere stop waiting on it (its work all retired). */
void sched_forget_queue(struct host_queue *q);
bool sched_bo_held(struct host_ctx *ctx, const struct host_bo *bo);
/* Grows the context's per-submit scratch (kernel BO refs and host BO pointers, one capacity) to
 * at least nr entries; shared by the msm and V3D submit paths. */
int ctx_reserve_scratch(struct host_ctx *ctx, uint32_t nr);

/* Keeps a V3D job, validated (its shadows in set, NULL for passthrough), until its
 * in-fences (other queues of ctx) signal. */
int sched_hold_v3d(struct host_queue *q, uint32_t seqno, uint32_t flags, const struct v3d_job_desc *job,
		   struct shadow_set *set, struct host_bo *const *bos, uint32_t nr_bos, const struct ferry_fence_ref *in,
		   uint32_t nr_in);

/* For sync-state dumps: the first max held submits of q, oldest first, with the
 * in-fences they still wait for; returns how many q holds. */
struct sched_held_view {
	uint32_t seqno;
	uint32_t nr_in;
	const struct host_queue *in_q[FERRY_MAX_SUBMIT_IN_FENCES];
	uint32_t in_seqno[FERRY_MAX_SUBMIT_IN_FENCES];
};
uint32_t sched_visit_held(const struct host_queue *q, uint32_t max,
			  void (*fn)(void *arg, const struct sched_held_view *v), void *arg);

#endif
