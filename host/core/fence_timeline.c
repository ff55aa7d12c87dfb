/* Per-queue fence timelines: the ring of submitted-but-unretired seqnos and the record of the last
 * retired one. Publishing a retired seqno is the owner's, through the timeline's retired callback. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <stdio.h>

#include <ferry/fence_page.h>

#include "fence_timeline.h"

void timeline_fini(struct fence_timeline *tl)
{
	free(tl->ring);
	tl->ring = NULL;
	tl->cap = tl->count = tl->head = 0;
}

int timeline_push(struct fence_timeline *tl, uint32_t seqno, uint32_t flags, int32_t status, bool in_kernel)
{
	if (tl->count == tl->cap) {
		/* Grows rarely (in-flight depth only), then the ring is reused. */
		uint32_t ncap = tl->cap ? tl->cap * 2 : 16;
		struct pending_fence *r = malloc((size_t)ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		for (uint32_t i = 0; i < tl->count; i++)
			r[i] = tl->ring[(tl->head + i) % tl->cap];
		free(tl->ring);
		tl->ring = r;
		tl->cap = ncap;
		tl->head = 0;
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* as host_now_ns: one vDSO call per submit */
	tl->ring[(tl->head + tl->count) % tl->cap] = (struct pending_fence){
		.seqno = seqno, .flags = flags, .status = status, .in_kernel = in_kernel,
		.submitted_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec,
	};
	tl->count++;
	return 0;
}

struct pending_fence *timeline_head(struct fence_timeline *tl)
{
	return tl->count ? &tl->ring[tl->head] : NULL;
}

struct pending_fence *timeline_at(struct fence_timeline *tl, uint32_t i)
{
	return &tl->ring[(tl->head + i) % tl->cap];
}

struct pending_fence *timeline_find(struct fence_timeline *tl, uint32_t seqno)
{
	for (uint32_t i = 0; i < tl->count; i++) {
		struct pending_fence *f = timeline_at(tl, i);
		if (f->seqno == seqno)
			return f;
	}
	return NULL;
}

bool timeline_set_status(struct fence_timeline *tl, uint32_t seqno, int32_t status)
{
	struct pending_fence *f = timeline_find(tl, seqno);
	if (f)
		f->status = status;
	return f != NULL;
}

void timeline_pop(struct fence_timeline *tl)
{
	tl->head = (tl->head + 1) % tl->cap;
	tl->count--;
}

bool timeline_passed(const struct fence_timeline *tl, uint32_t seqno)
{
	return ferry_seqno_passed(tl->signaled, seqno);
}

bool timeline_submitted(const struct fence_timeline *tl, uint32_t seqno)
{
	return ferry_seqno_passed(tl->last_submitted, seqno);
}

int timeline_check_new(const struct fence_timeline *tl, uint32_t seqno, char *why, size_t n)
{
	if (seqno == 0)
		return snprintf(why, n, "seqno 0 is reserved"), -EINVAL;
	if ((int32_t)(seqno - tl->last_submitted) <= 0)
		return snprintf(why, n, "seqno %u is not after the queue's last seqno %u", seqno, tl->last_submitted),
		       -EINVAL;
	/* Every seqno not yet retired lies in (signaled, last_submitted]. Keeping that window under
	 * 2^31 wide is what makes every wrap-aware comparison of them agree (ours, the kernel's
	 * fence_after(), the guest's): a seqno 2^31 past the oldest unretired one would make the
	 * kernel call that older fence "invalid" and a waiter think it had passed, while its
	 * submit - and the shadow copy it runs from - may still be on the GPU. */
	if (seqno - tl->signaled > (uint32_t)INT32_MAX)
		return snprintf(why, n, "seqno %u is 2^31 or more ahead of the queue's oldest unretired seqno %u: "
				"wait for earlier submits to retire first", seqno, tl->signaled + 1),
		       -EINVAL;
	return 0;
}

void timeline_init(struct fence_timeline *tl, timeline_retired_fn retired, void *arg)
{
	*tl = (struct fence_timeline){ .retired = retired, .retired_arg = arg };
}

void timeline_retire(struct fence_timeline *tl, uint32_t seqno, uint32_t flags, int32_t status)
{
	tl->signaled = seqno;
	if (timeline_in_fail_tail(tl, seqno)) {
		status = tl->fail_status;
	} else if (status) {
		tl->error_seqno = seqno;
		tl->error = status;
	}
	tl->retired(tl->retired_arg, seqno, flags, status);
}

void timeline_fail_after(struct fence_timeline *tl, uint32_t seqno, int32_t status)
{
	if (!status || (tl->fail_status && ferry_seqno_passed(seqno, tl->fail_after)))
		return;
	tl->fail_after = seqno;
	tl->fail_status = status;
}

bool timeline_in_fail_tail(const struct fence_timeline *tl, uint32_t seqno)
{
	return tl->fail_status && !ferry_seqno_passed(tl->fail_after, seqno);
}

int32_t timeline_status(const struct fence_timeline *tl, uint32_t seqno)
{
	if (timeline_in_fail_tail(tl, seqno))
		return tl->fail_status;
	return tl->error_seqno == seqno ? tl->error : 0;
}

void timeline_set_last_syncobj(struct fence_timeline *tl, uint32_t syncobj)
{
	if (tl->count)
		tl->ring[(tl->head + tl->count - 1) % tl->cap].syncobj = syncobj;
}

void timeline_set_last_submitted_ns(struct fence_timeline *tl, int64_t ns)
{
	if (tl->count)
		tl->ring[(tl->head + tl->count - 1) % tl->cap].submitted_ns = ns;
}
