/* What syncobj.c (binary syncobjs, fds) and syncobj_timeline.c (points, chains, waits) share:
 * the syncobj itself and the one lock every syncobj lives under. */
#ifndef FERRY_SHIM_SYNCOBJ_PRIV_H
#define FERRY_SHIM_SYNCOBJ_PRIV_H

#include <sys/types.h>

#include "shim_ferry.h"

struct shim_tfence;

struct shim_syncobj {
	unsigned refs;       /* handles (any open) + exported fds; under sync_lock */
	bool signaled;       /* no fence, but signaled (CREATE_SIGNALED, SIGNAL, released) */
	bool has_fence;
	int error;           /* signaled: the error of the fence it took (an imported failed file) */
	struct shim_fence_src fence;
	/* When set, the syncobj's fence is this one (a chain node of a timeline, or a fence taken
	 * from one), and the fields above only sum it up: signaled, or one fence it waits for. */
	struct shim_tfence *tl;
	/* Once exported or imported as an opaque fd: the socket that holds its state for every
	 * process (shared_syncobj.h; -1 before), the file that names it, and the generation of that
	 * state this syncobj last read or wrote (syncobj_share.c). */
	int share_fd;
	/* Orders this process's reads and writes of the shared state (taken before shim_sync_lock),
	 * so a pull cannot undo a local change made while it ran. */
	pthread_mutex_t share_lock;
	dev_t share_dev;
	ino_t share_ino;
	uint64_t share_gen;
	struct shim_syncobj *next_all;
};

/* syncobj.c: the lock of every syncobj, export and open's fence_users, and the condition
 * (CLOCK_MONOTONIC) broadcast on every install and release. shim_syncobj_lock_init before the
 * condition is used. */
extern pthread_mutex_t shim_sync_lock;
extern pthread_cond_t shim_sync_cond;
void shim_syncobj_lock_init(void);
/* A referenced syncobj of handle, or NULL; the reference goes with shim_syncobj_unref. */
struct shim_syncobj *shim_syncobj_ref(struct shim_dev *dev, uint32_t handle);
void shim_syncobj_unref(struct shim_syncobj *s);
void shim_syncobj_unref_locked(struct shim_syncobj *s);

/* syncobj_timeline.c, all with shim_sync_lock held: */
/* s got a binary fence (or none): its timeline fence goes, queued point waiters look again. */
void shim_timeline_installed_locked(struct shim_syncobj *s);
/* s is being freed. */
void shim_timeline_free_locked(struct shim_syncobj *s);
/* Fences of dev (q NULL: of any of its queues) count as signaled from now on. */
void shim_timeline_resolve_locked(struct shim_dev *dev, struct ferry_queue *q);

#endif
