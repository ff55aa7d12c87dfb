/* The family-neutral submit path (sched.c): the envelope check, and held submits waiting there
 * for their in-fences. */
#ifndef FERRY_HOST_SCHED_H
#define FERRY_HOST_SCHED_H

#include "host_types.h"

/* A submit's envelope, checked the same way for every family: the caller fills the request's
 * fields; submit_envelope_begin checks context, queue, flags, seqno and resolves the BO ids into
 * bos (ctx's scratch), submit_envelope_fences the in-fences and whether the submit is held. A
 * family check of its own (e.g. the kernel's view of the BOs) may go between the two. */
struct submit_envelope {
	uint32_t ctx_id, queue_id, seqno, flags, allowed_flags;
	uint32_t family;          /* FERRY_FAMILY_* of the message */
	const char *family_hint;  /* "an msm context: use the V3D submits", for the refusal */
	uint32_t kind;            /* the queue kind the message is for */
	const void *bo_ids;       /* nr_bos ids, bo_id_stride bytes apart */
	size_t bo_id_stride;
	uint32_t nr_bos;
	bool bos_required;
	const struct ferry_fence_ref *in;
	uint32_t nr_in;
	/* Out. */
	struct host_ctx *ctx;
	struct host_queue *q;
	struct host_bo **bos;
	bool held;                /* in-fences of other queues pending, or the queue holds work */
};
int submit_envelope_begin(struct ferry_host_client *c, struct submit_envelope *e, char *why, size_t n);
int submit_envelope_fences(struct submit_envelope *e, char *why, size_t n);
/* The submit took its seqno (sent to the kernel, or held). */
void submit_accepted(struct ferry_host_client *c, const struct submit_envelope *e);

struct held_in_fence {
	struct host_queue *q; /* NULL once that queue is gone (its work had all retired) */
	uint32_t seqno;
};
/* A submit kept until its in-fences signal; job is the family's copy (job_size bytes), which its
 * held_run sends to the kernel. */
struct held_submit {
	struct list link;
	uint32_t seqno, flags;
	struct host_bo **bos; /* one reference each */
	uint32_t nr_bos;
	struct held_in_fence *in;
	uint32_t nr_in;
	struct shadow_set *shadows; /* validated contexts: made when the message came; queued */
	void *job;
	int64_t submitted_ns; /* when it was accepted: its latency counts from there */
};
/* Holds e's submit (queued behind the queue's held ones): NULL on ENOMEM. */
struct held_submit *sched_hold(const struct submit_envelope *e, size_t job_size, struct shadow_set *shadows);

/* Sends held submits whose in-fences have signaled. Returns true if any left the scheduler. */
bool sched_release(struct host_ctx *ctx);
/* Retires every held submit of the context with status (in order, through the timelines). */
void sched_cancel(struct host_ctx *ctx, int32_t status);
/* Frees held submits without signaling (context teardown). */
void sched_free_queue(struct host_queue *q);
/* A queue is going away: held submits elsewhere stop waiting on it (its work all retired). */
void sched_forget_queue(struct host_queue *q);
bool sched_bo_held(struct host_ctx *ctx, const struct host_bo *bo);
/* Grows the context's per-submit scratch (host BO pointers) to at least nr entries. */
int ctx_reserve_scratch(struct host_ctx *ctx, uint32_t nr);

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
