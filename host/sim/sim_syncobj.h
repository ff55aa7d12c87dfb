/* Fences and DRM syncobjs shared by the simulated msm and v3d kernels (drm_syncobj.c of 6.1 for
 * a driver with DRIVER_SYNCOBJ and DRIVER_SYNCOBJ_TIMELINE; the timeline half is in
 * sim_syncobj_timeline.c). Everything here runs under the owning device's lock, which struct
 * sim_sync_dev names. */
#ifndef FERRY_SIM_SYNCOBJ_H
#define FERRY_SIM_SYNCOBJ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <drm.h>

/* A dma_fence: signaled once, with an error (0, -ECANCELED, -EIO). */
struct sim_fence {
	unsigned refs;
	bool signaled;
	int error;
	struct sim_chain *chain; /* a dma_fence_chain node (sim_syncobj_timeline.c), else NULL */
};

/* A drm_syncobj: refcounted (handles in any open of the device, exported fds, waiters) and
 * holding the newest fence put in it, or none. */
struct sim_syncobj {
	unsigned refs;
	struct sim_fence *fence;
	/* WAIT_FOR_SUBMIT waits (binary ones are the timeline wait at point 0) for a fence or point
	 * yet to be submitted: each install hands it to them, so a waiter that slept through
	 * "installed, then reset" still gets it, as the kernel's queued waiters do. */
	struct sim_point_waiter *waiters;
	/* Exported or imported as an opaque fd that other processes share (the sync_files hooks'
	 * share_* make them), else NULL. */
	struct sim_syncobj_share *share;
};

/* One open's handle table (handle h in slot h - 1; the lowest free handle is handed out, as
 * idr_alloc(1, 0)). */
struct sim_syncobj_table {
	struct sim_syncobj **slots;
	uint32_t nr;
	/* sim_syncobj_strand: from this CLOCK_MONOTONIC time on, a wait for a fence yet to be
	 * submitted to one of these syncobjs ends with -EIO (0: never). */
	int64_t stranded_ns;
	/* Set by the fake kernel's backend (never by ferryd's use of the simulator): a fault of one
	 * of the open's jobs makes it lost, as ferryd makes a context lost. Then its submits fail
	 * -EIO and its waits end: a fence not yet signaled counts as signaled at once (it will
	 * only ever fail), a syncobj without one ends the wait -EIO lost_grace_ns after the loss
	 * (the driver's submit thread fails its own submit first, as it would on a real loss). */
	bool lose_on_fault;
	int64_t lost_grace_ns;
	bool lost;
};

struct sim_sync_export;
struct sim_sync_dev;

/* Sync files, when the simulated kernel runs under the fake kernel (which supplies them; ferryd's
 * simulator has none: FENCE_FD_IN/OUT stay -EOPNOTSUPP there). Both are called with the device
 * lock held and never block. */
struct sim_sync_file_hooks {
	/* The fences of sync file fd as fences of this device (references), or -EINVAL when fd is
	 * not a sync file (sync_file_get_fence failing). */
	int (*fences)(struct sim_sync_dev *sd, int fd, struct sim_fence ***out, uint32_t *n);
	/* A new sync file fd holding f (referenced by it), named (context, seqno) on timeline
	 * "queue<queue_id>"; -errno on failure. */
	int (*create)(struct sim_sync_dev *sd, struct sim_fence *f, uint64_t context, uint32_t seqno, uint32_t queue_id);
	/* One fence (a reference) standing for all of sync file fd's, or -EINVAL. */
	int (*fence)(struct sim_sync_dev *sd, int fd, struct sim_fence **out);
	/* Opaque syncobj fds any process can import: a socket holding the syncobj's state (see
	 * guest/shim/shared_syncobj.h). A new one without a fence at generation
	 * SIM_SHARED_FIRST_GEN (an fd, or -errno); whether fd is one; its fence when the state's
	 * generation is not known (1 with *gen and *f, a reference or NULL for none; 0 when
	 * unchanged; -errno, -EBUSY while another process writes it: at once without wait, else
	 * after at most 2 ms); and writing f (NULL: none) as its state (at most 2 ms of waiting
	 * for a writer). */
	int (*share_new)(void);
	bool (*share_is)(int fd);
	int (*share_read)(struct sim_sync_dev *sd, int fd, uint64_t known, bool wait, uint64_t *gen,
			  struct sim_fence **f);
	int (*share_write)(struct sim_sync_dev *sd, int fd, struct sim_fence *f, uint64_t *gen);
};

/* A wait for a fence yet to be submitted to a shared syncobj is not woken by another process's
 * submit: it looks again after a pause that doubles from the first to the last (the shim's
 * syncobjs too). */
#define SIM_SHARED_POLL_FIRST_NS (1000 * 1000ll)
#define SIM_SHARED_POLL_LAST_NS (16 * 1000 * 1000ll)
/* The generation of a new shared socket's first record (never 0). */
#define SIM_SHARED_FIRST_GEN 1u

/* A syncobj's shared fd (in its device's list, to find it when the fd comes back). */
struct sim_syncobj_share {
	struct sim_sync_dev *sd;
	struct sim_syncobj *s;
	int fd;
	dev_t st_dev;
	ino_t st_ino;
	uint64_t gen; /* of the state last read or written */
	struct sim_syncobj_share *next;
};

/* The device's side: its lock and the conditions fence signals broadcast, and the fds exported
 * from syncobjs (opaque syncobj fds and sync files), which only opens of this device import. */
struct sim_sync_dev {
	pthread_mutex_t *lock;
	pthread_cond_t *done_cond;   /* waiters (SYNCOBJ_WAIT, WAIT_BO, ...) */
	pthread_cond_t *work_cond;   /* the GPU worker: jobs gated on a fence may be ready */
	/* Under *lock: the lock's holder runs the GPU's steps itself until nothing is ready, or
	 * wakes the worker when it stops short (the simulators' submit_here), so a fence it signals need
	 * not wake the worker too. */
	bool work_muted;
	struct sim_sync_export *exports;
	struct sim_syncobj_share *shared;
	/* Every live chain node, oldest first, and the next fence context (sim_syncobj_timeline.c). */
	struct sim_chain *chains_oldest, *chains_newest;
	uint64_t next_context;
	bool chains_updating;
	const struct sim_sync_file_hooks *sync_files; /* NULL: none */
};

void sim_sync_dev_init(struct sim_sync_dev *sd, pthread_mutex_t *lock, pthread_cond_t *done_cond,
		       pthread_cond_t *work_cond);
/* Drops every export (closes the kept socket ends). */
void sim_sync_dev_fini(struct sim_sync_dev *sd);

struct sim_fence *sim_fence_new(void);
struct sim_fence *sim_fence_get(struct sim_fence *f);
void sim_fence_put(struct sim_fence *f);
/* Signals f once with error and wakes every waiter and the worker. */
void sim_fence_signal(struct sim_sync_dev *sd, struct sim_fence *f, int error);

/* The syncobj behind handle, or NULL. No reference is taken. A shared syncobj first takes in the
 * state another process left (sim_syncobj_pull). */
struct sim_syncobj *sim_syncobj_lookup(const struct sim_syncobj_table *t, uint32_t handle);
/* Takes in the fence another process put in s's shared fd, if it changed; false when s is not
 * shared. */
bool sim_syncobj_pull(struct sim_syncobj *s);
/* drm_syncobj_replace_fence (f may be NULL: reset). Wakes WAIT_FOR_SUBMIT waiters; a shared
 * syncobj's fd gets the new fence. */
void sim_syncobj_replace(struct sim_sync_dev *sd, struct sim_syncobj *s, struct sim_fence *f);
struct sim_syncobj *sim_syncobj_get(struct sim_syncobj *s);
void sim_syncobj_put(struct sim_syncobj *s);
/* Drops every handle of the table and frees it (at close). */
void sim_syncobj_table_fini(struct sim_syncobj_table *t);

/* The DRM core syncobj ioctls (drm_syncobj.c), returning 0 or the kernel's negative errno.
 * HANDLE_TO_FD gives one end of a socket pair naming the syncobj (or, with EXPORT_SYNC_FILE, a
 * sync file: the device's sync_files hooks make it when set, else a snapshot of its fence that
 * becomes readable once the fence signals); FD_TO_HANDLE takes such an fd of the same device
 * back. Fds of another device, or real kernel sync files, are -EINVAL. */
int sim_syncobj_create(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_create *a);
int sim_syncobj_destroy(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_destroy *a);
int sim_syncobj_handle_to_fd(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_handle *a);
int sim_syncobj_fd_to_handle(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_handle *a);
/* Sleeps on sd->done_cond (dropping sd->lock) while it waits. */
/* The open's submit failed (the caller, which knows the driver above, decides): waits on t for a
 * fence not yet submitted end -EIO at end_ns instead of sleeping on; the earliest end stays. */
void sim_syncobj_strand(struct sim_sync_dev *sd, struct sim_syncobj_table *t, int64_t end_ns);
/* A job of the open faulted or hung (its device lock held): lost, when lose_on_fault. */
void sim_syncobj_faulted(struct sim_sync_dev *sd, struct sim_syncobj_table *t);
int sim_syncobj_wait(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_wait *a);
int sim_syncobj_reset(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_array *a);
int sim_syncobj_signal(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_array *a);
/* drm_syncobj_array_find: references to count syncobjs of t (-ENOENT, -EFAULT, -ENOMEM). */
int sim_syncobj_find_array(struct sim_syncobj_table *t, uint64_t ptr, uint32_t count, struct sim_syncobj ***out);
void sim_syncobj_put_array(struct sim_syncobj **objs, uint32_t count);

/* Dispatches syncobj ioctl nr with the kernel's argument struct (sized by ferry/uapi/ioctl_table.h);
 * -EINVAL for an nr that is not a syncobj one. */
int sim_syncobj_ioctl(struct sim_sync_dev *sd, struct sim_syncobj_table *t, unsigned nr, void *arg);

#endif
