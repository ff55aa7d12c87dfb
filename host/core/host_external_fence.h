/* EXTERNAL queues, whose fences the guest signals (host_external_fence.c). */
#ifndef FERRY_HOST_HOST_EXTERNAL_FENCE_H
#define FERRY_HOST_HOST_EXTERNAL_FENCE_H

#include "host_types.h"

int external_fence_handle(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* A closing EXTERNAL queue: its unsignaled fences fail with -ECANCELED (nothing can signal them). */
void external_fence_cancel(struct host_queue *q);
/* seqno of external queue q has signaled: retired, or signaled behind an earlier pending one.
 * Submits wait on that, so one slow foreign fence does not hold those waiting on later ones. */
bool external_fence_signaled(const struct host_queue *q, uint32_t seqno);
/* An in-fence (q, seqno) no longer holds a submit: retired, or (external) signaled. */
bool queue_fence_done(const struct host_queue *q, uint32_t seqno);

#endif
