/* A queue's fence timeline (fence_timeline.c): the ring of submitted-but-unretired seqnos and the
 * host's record of the last retired one. */
#ifndef FERRY_HOST_FENCE_TIMELINE_H
#define FERRY_HOST_FENCE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One submitted seqno not yet retired. Entries that never reached the kernel (cancelled, or
 * refused when released from the scheduler) carry their final status and retire in order. */
struct pending_fence {
	uint32_t seqno;
	uint32_t flags; /* FERRY_SUBMIT_* */
	int32_t status;
	bool in_kernel;
	bool poll_error_logged; /* the kernel's fence poll failed once: said in the log, not again */
	bool external;          /* an EXTERNAL queue's seqno the guest has not signaled yet */
	uint32_t syncobj; /* v3d: the out-syncobj that gets the job's fence (in_kernel only) */
	int64_t submitted_ns; /* when the guest's submit was accepted (the latency histogram) */
};

/* The owner's publishing of a retired seqno (fence page, events, shadow recycling). */
typedef void (*timeline_retired_fn)(void *arg, uint32_t seqno, uint32_t flags, int32_t status);

struct fence_timeline {
	struct pending_fence *ring;
	uint32_t cap, head, count;
	uint32_t last_submitted; /* newest accepted seqno */
	/* The host's own record of the last retired seqno: the fence page is guest-writable, so the
	 * host never reads its state back from there. */
	uint32_t signaled;
	uint32_t error_seqno;
	int32_t error;
	/* A failing tail (timeline_fail_after): every seqno after fail_after fails with fail_status
	 * (0: none). */
	uint32_t fail_after;
	int32_t fail_status;
	timeline_retired_fn retired;
	void *retired_arg;
};

void timeline_init(struct fence_timeline *tl, timeline_retired_fn retired, void *arg);
void timeline_fini(struct fence_timeline *tl);
int timeline_push(struct fence_timeline *tl, uint32_t seqno, uint32_t flags, int32_t status, bool in_kernel);
struct pending_fence *timeline_head(struct fence_timeline *tl);
void timeline_pop(struct fence_timeline *tl);
/* The i-th unretired entry from the oldest (i < count). */
struct pending_fence *timeline_at(struct fence_timeline *tl, uint32_t i);
/* The unretired entry of seqno, or NULL (a walk: for the rare paths, such as a fault). */
struct pending_fence *timeline_find(struct fence_timeline *tl, uint32_t seqno);
/* A fault found while an earlier fence retired: unretired seqno completes with status when it
 * retires. False (nothing set) when seqno is not pending. */
bool timeline_set_status(struct fence_timeline *tl, uint32_t seqno, int32_t status);
/* seqno retired with status (0, or its error, which the timeline records; in the failing tail,
 * the tail's status and no record): told to the owner. */
void timeline_retire(struct fence_timeline *tl, uint32_t seqno, uint32_t flags, int32_t status);
/* Every seqno after seqno fails with status when it retires: a fault whose submit nobody knows,
 * except that it is not before seqno. The record of the error at seqno (one per timeline) is
 * kept for seqno, so its waiters still read its own error. The earliest seqno wins. */
void timeline_fail_after(struct fence_timeline *tl, uint32_t seqno, int32_t status);
bool timeline_in_fail_tail(const struct fence_timeline *tl, uint32_t seqno);
/* The status a retired seqno ended with: its recorded error, the failing tail's, else 0. */
int32_t timeline_status(const struct fence_timeline *tl, uint32_t seqno);
bool timeline_passed(const struct fence_timeline *tl, uint32_t seqno);
/* seqno was submitted on this timeline (wrap-aware, judged like timeline_passed: a seqno
 * 2^31 ahead counts as not submitted, so it is refused rather than waited on forever). */
bool timeline_submitted(const struct fence_timeline *tl, uint32_t seqno);
/* A new submit's seqno: non-zero, after the last one, and less than 2^31 past the oldest
 * unretired one. 0 or -EINVAL with why. */
int timeline_check_new(const struct fence_timeline *tl, uint32_t seqno, char *why, size_t n);
/* The acceptance time of the entry pushed last, when it is not now (a submit held for its
 * in-fences is pushed when released). */
void timeline_set_last_submitted_ns(struct fence_timeline *tl, int64_t ns);
/* The syncobj of the entry pushed last. */
void timeline_set_last_syncobj(struct fence_timeline *tl, uint32_t syncobj);

#endif
