/* Timeline syncobjs of the simulated kernels (drm_syncobj.c's timeline half and dma-fence-chain
 * of Linux 6.1): chain fences, points, and the four timeline ioctls. Everything here runs under
 * the owning device's lock, as sim_syncobj.h. */
#ifndef FERRY_SIM_SYNCOBJ_TIMELINE_H
#define FERRY_SIM_SYNCOBJ_TIMELINE_H

#include "sim_syncobj.h"

/* A WAIT_FOR_SUBMIT waiter queued on a syncobj (drm_syncobj's cb_list): it gets the fence of its
 * point the moment one is put in (a reference, or a signaled stub). */
struct sim_point_waiter {
	struct sim_point_waiter *next;
	uint64_t point;
	struct sim_fence *fence;
};

/* dma_fence_chain_find_seqno on fence f (NULL: none): 0 with *out the node of point (a
 * reference; a signaled stub when the point is already signaled and collected), or -EINVAL
 * (no fence, not a chain for a non-zero point, or the point not submitted yet). -ENOMEM. */
int sim_fence_find_point(struct sim_fence *f, uint64_t point, struct sim_fence **out);
/* drm_syncobj_add_point: a new chain node holding fence at point goes in s (ref taken). */
int sim_syncobj_add_point(struct sim_sync_dev *sd, struct sim_syncobj *s, struct sim_fence *fence, uint64_t point);
/* Hands the waiters queued on s the fence of their point, if it is there now. */
void sim_syncobj_notify_waiters(struct sim_syncobj *s);
/* After any fence of sd signaled: chain nodes drop signaled predecessors (as dma_fence_chain_walk
 * does) and signal once their fence and every predecessor did. */
void sim_chain_update(struct sim_sync_dev *sd);
/* The last reference to a chain fence went (sim_fence_put): frees it and what it alone held. */
void sim_chain_free(struct sim_fence *f);

int sim_syncobj_timeline_wait(struct sim_sync_dev *sd, struct sim_syncobj_table *t,
			      struct drm_syncobj_timeline_wait *a);
int sim_syncobj_query(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_timeline_array *a);
int sim_syncobj_timeline_signal(struct sim_sync_dev *sd, struct sim_syncobj_table *t,
				struct drm_syncobj_timeline_array *a);
int sim_syncobj_transfer(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_transfer *a);
/* drm_syncobj_find_fence for a submit's in-syncobj at point (flags 0): -ENOENT, -EINVAL, or 0
 * with *out a reference. */
int sim_syncobj_find_fence(struct sim_syncobj_table *t, uint32_t handle, uint64_t point, struct sim_fence **out);

#endif
