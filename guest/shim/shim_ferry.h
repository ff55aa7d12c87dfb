/* libferry-shim.so's private state: one shim_dev per open of the render node, holding the ferry
 * context that open stands for, its GEM handles, submitqueues and syncobjs. */
#ifndef FERRY_SHIM_FERRY_H
#define FERRY_SHIM_FERRY_H

#include <pthread.h>

#include "ferry/ferry.h"
#include "shim.h"

struct shim_bo {
	struct ferry_bo *bo;
	uint64_t size;
	uint64_t iova;
	uint32_t flags; /* what the driver asked for (MSM_BO_* / V3D: 0) */
};

struct shim_syncobj;

struct shim_dev {
	pthread_mutex_t lock; /* the tables below; never held across a wait or a round trip */
	enum shim_family family;
	struct ferry_context *ctx;

	struct shim_bo **bos; /* index = GEM handle (0 unused) */
	uint32_t nr_bo_slots;

	struct shim_syncobj **syncobjs; /* index = syncobj handle (0 unused) */
	uint32_t nr_syncobj_slots;

	/* msm: queue 0 is the default queue every open has (made on first use); the others by
	 * index = submitqueue id. Closed queues stay in closed_queues until the open ends (a
	 * syncobj may still point at one of their fences). */
	struct ferry_queue *default_queue;
	struct ferry_queue **queues;
	uint32_t nr_queue_slots;
	struct ferry_queue **closed_queues;
	uint32_t nr_closed_queues, cap_closed_queues;

	/* Waits in other threads or opens that copied one of this open's fences (sync_lock). */
	unsigned fence_users;
	/* CLOCK_MONOTONIC ns of the first failed submit of this open or of the first wait that saw
	 * its context lost, 0 if neither (sync_lock). */
	int64_t submit_failed_ns;

	/* msm: the queue of the empty submits that join a sync file's fences for a syncobj
	 * (syncobj_sync_file.c), made on first use. */
	struct ferry_queue *join_queue;

	/* V3D: one queue per engine, made on first use. */
	struct ferry_queue *v3d_queues[FERRY_QUEUE_KIND_COUNT];

	/* external_fence.c: the external queue and its waiters' state, made on first use. */
	struct shim_external *external;
};

/* ferry_backend.c */
struct ferry_device *shim_ferry_device(void);
/* The device's faults as MSM_PARAM_FAULTS counts them (reports this open received). */
uint32_t shim_fault_count(struct shim_dev *dev, uint32_t queue_id, bool only_queue);
/* Slot tables (dev->lock held): the lowest free index >= 1 of *slots (grown as needed). */
int shim_slot_alloc(void ***slots, uint32_t *nr, void *item, uint32_t *index);
struct shim_bo *shim_bo_lookup(struct shim_dev *dev, uint32_t handle);
/* The ferry BO of a handle (and its size), or NULL; takes dev->lock. */
struct ferry_bo *shim_bo_get(struct shim_dev *dev, uint32_t handle, uint64_t *size, uint64_t *iova);
/* The queue in *slot (a field of dev), made on first use: of that kind and priority. */
struct ferry_queue *shim_queue_get(struct shim_dev *dev, struct ferry_queue **slot, uint32_t kind, uint32_t prio);
int shim_bo_add(struct shim_dev *dev, struct ferry_bo *bo, uint32_t flags, uint32_t *handle);
/* The fake mmap offset of a handle, and back. */
uint64_t shim_bo_mmap_offset(uint32_t handle);
/* Absolute CLOCK_MONOTONIC deadline (ns) -> relative timeout for libferry (>= 0). */
int64_t shim_timeout_from_abs(int64_t abs_ns);
int64_t shim_now_ns(void);

/* drm_core.c: DRM core ioctls (VERSION, caps, GEM_CLOSE, PRIME, the SYNCOBJ family).
 * Returns 1 if request was a core ioctl (its result in *ret), 0 if not. */
int shim_core_ioctl(struct shim_dev *dev, unsigned long request, void *arg, int *ret);

/* syncobj.c */
struct shim_fence_src {
	struct ferry_queue *q;
	uint32_t seqno;
	struct shim_dev *owner; /* the open (ferry context) the queue belongs to */
};
int shim_syncobj_create(struct shim_dev *dev, bool signaled, uint32_t *handle);
int shim_syncobj_destroy(struct shim_dev *dev, uint32_t handle);
bool shim_syncobj_exists(struct shim_dev *dev, uint32_t handle);
int shim_syncobj_wait(struct shim_dev *dev, const uint32_t *handles, uint32_t count, int64_t abs_timeout_ns,
		      uint32_t flags, uint32_t *first);
int shim_syncobj_reset(struct shim_dev *dev, uint32_t handle);
int shim_syncobj_signal(struct shim_dev *dev, uint32_t handle);
int shim_syncobj_to_fd(struct shim_dev *dev, uint32_t handle, uint32_t flags, int *fd);
/* flags 0: an opaque syncobj fd -> a new *handle; IMPORT_SYNC_FILE: the fd's fence into the
 * existing *handle. */
int shim_syncobj_from_fd(struct shim_dev *dev, int fd, uint32_t flags, uint32_t *handle);
/* The syncobj's fence without waiting: *has false when it is signaled without one; -ENOENT (no
 * such handle), -EINVAL (no fence: never submitted or reset). */
int shim_syncobj_peek(struct shim_dev *dev, uint32_t handle, struct shim_fence_src *out, bool *has, int *error);
/* SIGNAL, or (error < 0) signaled by a fence that failed, as an import of a failed sync file
 * leaves it: an export gives a file with that status. */
int shim_syncobj_signal_error(struct shim_dev *dev, uint32_t handle, int error);
/* syncobj_sync_file.c: DRM_SYNCOBJ_HANDLE_TO_FD's EXPORT_SYNC_FILE and FD_TO_HANDLE's
 * IMPORT_SYNC_FILE with real sync files (sync_file.h). */
int shim_syncobj_export_sync_file(struct shim_dev *dev, uint32_t handle, int *fd);
int shim_syncobj_import_sync_file(struct shim_dev *dev, int fd, uint32_t handle);
/* A closed queue of dev whose fences have all signaled: every syncobj fence on it counts as
 * signaled from now on. False (nothing done) while a wait elsewhere uses dev's fences. */
bool shim_syncobj_forget_queue(struct shim_dev *dev, struct ferry_queue *q);
/* Replaces the syncobj's fence with a submit's. */
int shim_syncobj_attach(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f);
/* A submit of dev failed. Turnip and v3dv call their device lost on that, but v3dv submits from
 * a thread while the application may already wait on a syncobj that submit was to fill: waits on
 * dev for a fence yet to be submitted end (-EIO) SHIM_STRANDED_GRACE_NS after the first failure,
 * time for the driver's submit thread to record the loss it then reports from the wait. */
void shim_syncobj_submit_failed(struct shim_dev *dev);
/* The open is ending: every syncobj fence on its queues counts as signaled from now on, and
 * waits elsewhere on them are over when this returns. */
void shim_syncobj_release_dev(struct shim_dev *dev);
void shim_syncobj_destroy_all(struct shim_dev *dev);

/* syncobj_share.c: syncobjs shared through opaque fds with other processes. Each is a no-op for
 * a syncobj never exported or imported as one. */
/* Takes in the state another process left in handle's shared syncobj; false when not shared. */
bool shim_syncobj_pull(struct shim_dev *dev, uint32_t handle);
/* Writes handle's current fence out for the other processes (after an ioctl changed it). */
void shim_syncobj_push(struct shim_dev *dev, uint32_t handle);
/* Applies a state read from the shared socket (sync_fd -1: no fence; closed here). */
void shim_syncobj_take_state(struct shim_dev *dev, uint32_t handle, uint64_t gen, int sync_fd);
/* shim_syncobj_timeline_wait after the pulls; with WAIT_FOR_SUBMIT on a shared syncobj, it looks
 * for another process's submits between bounded sleeps. */
int shim_syncobj_shared_wait(struct shim_dev *dev, const uint32_t *handles, const uint64_t *points, uint32_t count,
			     int64_t abs_timeout_ns, uint32_t flags, uint32_t *first);

/* syncobj_timeline.c: points and waits (Linux 6.1's timeline syncobjs). */
/* SYNCOBJ_WAIT (points NULL) and TIMELINE_WAIT, flags already checked, count > 0. */
int shim_syncobj_timeline_wait(struct shim_dev *dev, const uint32_t *handles, const uint64_t *points, uint32_t count,
			       int64_t abs_timeout_ns, uint32_t flags, uint32_t *first);
int shim_syncobj_query(struct shim_dev *dev, const uint32_t *handles, uint64_t *points, uint32_t count, uint32_t flags);
int shim_syncobj_timeline_signal(struct shim_dev *dev, const uint32_t *handles, const uint64_t *points, uint32_t count);
int shim_syncobj_transfer(struct shim_dev *dev, uint32_t src, uint64_t src_point, uint32_t dst, uint64_t dst_point,
			  uint32_t flags);
/* A submit's out-syncobj: point 0 replaces its fence (shim_syncobj_attach), else a new point; a
 * shared syncobj's new fence is then written out for the other processes. */
int shim_syncobj_attach_point(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f, uint64_t point);
/* A submit's in-syncobj at point (drm_syncobj_find_fence), after taking in what another process
 * left in a shared one: the fences of this open it waits for
 * are appended to l (another open's are waited for here: no ferry in-fence can name them).
 * -ENOENT (no such syncobj), -EINVAL (nothing submitted at that point). */
struct shim_fence_list {
	struct ferry_fence_ref *v;
	uint32_t n, cap;
};
int shim_syncobj_in_fences(struct shim_dev *dev, uint32_t handle, uint64_t point, struct shim_fence_list *l);
/* Appends f to l: 0 or -ENOMEM. */
int shim_fence_list_add(struct shim_fence_list *l, struct ferry_fence_ref f);

/* ferry_fence.c: libferry fences as sync file fences (sync_file.h). */
struct shim_fence;
extern const struct shim_fence_ops shim_ferry_fence_ops;
/* A sync file fence for (q, seqno) of dev; queue_id names its timeline. NULL on ENOMEM. */
struct shim_fence *shim_ferry_fence(struct shim_dev *dev, struct ferry_queue *q, uint32_t seqno, uint32_t queue_id);
/* True and *src when f is a fence of a still open queue of dev (NULL: of any open). */
struct shim_fence_src;
bool shim_ferry_fence_src(struct shim_fence *f, struct shim_dev *dev, struct shim_fence_src *src);
/* dev is closing, or (q not NULL) only its queue q: their fences count as what they are now
 * (unfinished: -ECANCELED) from here on, and no wait on them is in progress when this returns. */
void shim_ferry_fences_release(struct shim_dev *dev, struct ferry_queue *q);

/* external_fence.c: fences[0..n) (references, array taken over in every case) as one seqno of
 * dev's external queue that signals once they all did, with the first error: 0 and *out. 1 when
 * the queue is full (fences that never signal hold it) and they were waited for here instead. */
struct shim_external;
int shim_external_fence(struct shim_dev *dev, struct shim_fence **fences, uint32_t n, struct shim_fence_src *out);
/* The open is closing: its external queue goes (ferryd cancels what is left); waiters still
 * running signal nothing. */
void shim_external_close(struct shim_dev *dev);

/* msm_forward.c / v3d_forward.c: the driver's own ioctls. */
int shim_msm_ioctl(struct shim_dev *dev, unsigned long request, void *arg);
int shim_v3d_ioctl(struct shim_dev *dev, unsigned long request, void *arg);
void shim_msm_close(struct shim_dev *dev);
void shim_v3d_close(struct shim_dev *dev);

#endif
