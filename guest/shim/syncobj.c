/* DRM syncobjs kept in the guest: a syncobj holds nothing, a "signaled" stub, or a ferry fence
 * (queue, seqno) a submit attached. Waiting is libferry's fence wait; WAIT_FOR_SUBMIT waits for
 * a fence to be attached first. Opaque syncobj fds work within this process only. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/uapi_msm.h" /* <drm.h>: DRM_SYNCOBJ_* flags */
#include "shim_ferry.h"

struct shim_syncobj {
	unsigned refs;       /* handles (any open) + exported fds; under sync_lock */
	bool signaled;       /* no fence, but signaled (CREATE_SIGNALED, SIGNAL, released) */
	bool has_fence;
	struct shim_fence_src fence;
	struct shim_syncobj *next_all;
};

/* One lock for every syncobj: they are shared between opens and fds. attach broadcasts. */
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_cond = PTHREAD_COND_INITIALIZER;
static struct shim_syncobj *all_syncobjs;

/* Exported fds, named by the inode of a memfd: an opaque syncobj fd names the syncobj (kept
 * until the process ends), a sync_file fd a snapshot of its fence (dropped when that fd is
 * closed). Neither works across processes; a sync_file here cannot be polled. */
struct exported {
	ino_t ino;
	dev_t dev;
	int fd;                    /* the number it was handed out as (sync_file only) */
	struct shim_syncobj *s;    /* opaque syncobj fd */
	bool sync_file;
	bool has_fence;            /* sync_file: a fence, else already signaled */
	struct shim_fence_src fence;
	struct exported *next;
};
static struct exported *exports;
static _Atomic unsigned nr_sync_files;

static void put_locked(struct shim_syncobj *s)
{
	if (--s->refs)
		return;
	struct shim_syncobj **pp = &all_syncobjs;
	while (*pp != s)
		pp = &(*pp)->next_all;
	*pp = s->next_all;
	free(s);
}

static struct shim_syncobj *lookup_locked(struct shim_dev *dev, uint32_t handle)
{
	return handle > 0 && handle < dev->nr_syncobj_slots ? dev->syncobjs[handle] : NULL;
}

static int add_handle(struct shim_dev *dev, struct shim_syncobj *s, uint32_t *handle)
{
	pthread_mutex_lock(&dev->lock);
	int r = shim_slot_alloc((void ***)&dev->syncobjs, &dev->nr_syncobj_slots, s, handle);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

int shim_syncobj_create(struct shim_dev *dev, bool signaled, uint32_t *handle)
{
	struct shim_syncobj *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->refs = 1;
	s->signaled = signaled;
	int r = add_handle(dev, s, handle);
	if (r < 0) {
		free(s);
		return r;
	}
	pthread_mutex_lock(&sync_lock);
	s->next_all = all_syncobjs;
	all_syncobjs = s;
	pthread_mutex_unlock(&sync_lock);
	return 0;
}

/* Takes the handle's syncobj out of dev's table (dev->lock taken here). */
static struct shim_syncobj *take(struct shim_dev *dev, uint32_t handle)
{
	pthread_mutex_lock(&dev->lock);
	struct shim_syncobj *s = lookup_locked(dev, handle);
	if (s)
		dev->syncobjs[handle] = NULL;
	pthread_mutex_unlock(&dev->lock);
	return s;
}

/* A referenced syncobj (caller puts it under sync_lock), or NULL. */
static struct shim_syncobj *get(struct shim_dev *dev, uint32_t handle)
{
	pthread_mutex_lock(&sync_lock);
	pthread_mutex_lock(&dev->lock);
	struct shim_syncobj *s = lookup_locked(dev, handle);
	if (s)
		s->refs++;
	pthread_mutex_unlock(&dev->lock);
	pthread_mutex_unlock(&sync_lock);
	return s;
}

static void put(struct shim_syncobj *s)
{
	pthread_mutex_lock(&sync_lock);
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
}

int shim_syncobj_destroy(struct shim_dev *dev, uint32_t handle)
{
	struct shim_syncobj *s = take(dev, handle);
	if (!s)
		return -EINVAL;
	put(s);
	return 0;
}

void shim_syncobj_destroy_all(struct shim_dev *dev)
{
	for (uint32_t h = 1; h < dev->nr_syncobj_slots; h++)
		if (dev->syncobjs[h])
			put(dev->syncobjs[h]);
	free(dev->syncobjs);
	dev->syncobjs = NULL;
	dev->nr_syncobj_slots = 0;
}

void shim_syncobj_release_dev(struct shim_dev *dev)
{
	pthread_mutex_lock(&sync_lock);
	for (struct shim_syncobj *s = all_syncobjs; s; s = s->next_all) {
		if (s->has_fence && s->fence.owner == dev) {
			s->has_fence = false;
			s->signaled = true;
		}
	}
	for (struct exported *e = exports; e; e = e->next)
		if (e->sync_file && e->has_fence && e->fence.owner == dev)
			e->has_fence = false;
	pthread_cond_broadcast(&sync_cond);
	pthread_mutex_unlock(&sync_lock);
}

int shim_syncobj_reset(struct shim_dev *dev, uint32_t handle)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&sync_lock);
	s->has_fence = false;
	s->signaled = false;
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	return 0;
}

int shim_syncobj_signal(struct shim_dev *dev, uint32_t handle)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&sync_lock);
	s->has_fence = false;
	s->signaled = true;
	pthread_cond_broadcast(&sync_cond);
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	return 0;
}

int shim_syncobj_attach(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&sync_lock);
	s->has_fence = true;
	s->signaled = false;
	s->fence = f;
	pthread_cond_broadcast(&sync_cond);
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	return 0;
}

int shim_syncobj_fence(struct shim_dev *dev, uint32_t handle, struct shim_fence_src *out, bool *has)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&sync_lock);
	int r = 0;
	*has = false;
	if (s->has_fence) {
		if (!ferry_fence_signaled(s->fence.q, s->fence.seqno)) {
			*out = s->fence;
			*has = true;
		}
	} else if (!s->signaled) {
		r = -EINVAL; /* the kernel: "no fence" for an unsubmitted syncobj */
	}
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	return r;
}

/* DRM_SYNCOBJ_WAIT semantics: all or any; WAIT_FOR_SUBMIT lets unsubmitted syncobjs count as
 * "not yet" instead of -EINVAL; -ETIME when the absolute deadline passes. A failed fence counts
 * as signaled (the error reaches the driver through its own fault queries). */
int shim_syncobj_wait(struct shim_dev *dev, const uint32_t *handles, uint32_t count, int64_t abs_timeout_ns,
		      uint32_t flags, uint32_t *first)
{
	bool wait_all = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	bool for_submit = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	struct shim_syncobj **objs = calloc(count, sizeof(*objs));
	struct ferry_fence_point *pts = calloc(count, sizeof(*pts));
	int r = 0;
	uint32_t got = 0;
	if (!objs || !pts) {
		r = -ENOMEM;
		goto out;
	}
	for (; got < count; got++) {
		objs[got] = get(dev, handles[got]);
		if (!objs[got]) {
			r = -ENOENT;
			goto out;
		}
	}
	int last_err = 0;
	for (;;) {
		pthread_mutex_lock(&sync_lock);
		uint32_t npts = 0, done = 0, unsubmitted = 0;
		int64_t first_done = -1;
		for (uint32_t i = 0; i < count; i++) {
			struct shim_syncobj *s = objs[i];
			bool d = s->signaled || (s->has_fence && ferry_fence_signaled(s->fence.q, s->fence.seqno));
			if (d) {
				done++;
				if (first_done < 0)
					first_done = i;
			} else if (s->has_fence) {
				pts[npts++] = (struct ferry_fence_point){ s->fence.q, s->fence.seqno };
			} else {
				unsubmitted++;
			}
		}
		if (unsubmitted && !for_submit) {
			pthread_mutex_unlock(&sync_lock);
			r = -EINVAL;
			break;
		}
		if ((wait_all && done == count) || (!wait_all && done > 0)) {
			pthread_mutex_unlock(&sync_lock);
			if (first)
				*first = wait_all ? 0 : (uint32_t)first_done;
			r = 0;
			break;
		}
		int64_t left = shim_timeout_from_abs(abs_timeout_ns);
		if (left == 0) {
			pthread_mutex_unlock(&sync_lock);
			r = -ETIME;
			break;
		}
		if (unsubmitted || npts == 0) {
			/* Something must be attached first; fences already there are re-checked every
			 * couple of ms meanwhile. */
			int64_t slice = npts ? 2000000 : left;
			int64_t until = shim_now_ns() + (slice < left ? slice : left);
			struct timespec ts = { until / 1000000000, until % 1000000000 };
			pthread_cond_timedwait(&sync_cond, &sync_lock, &ts);
			pthread_mutex_unlock(&sync_lock);
			continue;
		}
		pthread_mutex_unlock(&sync_lock);
		/* Fences on queues of several opens may span ferry devices only if they were
		 * different connections; this process has one. */
		int w = ferry_fence_wait_many(pts, npts, wait_all, left, NULL);
		if (w == -ETIMEDOUT)
			continue; /* the loop turns it into -ETIME after re-checking */
		/* 0 or a fence error: those fences are done, re-check. The same error twice with
		 * nothing done is the connection gone: report it rather than spin. */
		if (w < 0 && w == last_err) {
			r = w;
			break;
		}
		last_err = w;
	}
out:
	for (uint32_t i = 0; i < got; i++)
		put(objs[i]);
	free(objs);
	free(pts);
	return r;
}

/* A memfd whose inode names an export (its entry filled by the caller under sync_lock). */
static int export_fd(struct exported **out)
{
	struct exported *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	int f = memfd_create("ferry-syncobj", MFD_CLOEXEC);
	struct stat st;
	if (f < 0 || fstat(f, &st) < 0) {
		int err = -errno;
		if (f >= 0)
			close(f);
		free(e);
		return err;
	}
	e->ino = st.st_ino;
	e->dev = st.st_dev;
	e->fd = f;
	*out = e;
	return f;
}

static struct exported *find_export_locked(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return NULL;
	struct exported *e = exports;
	while (e && (e->ino != st.st_ino || e->dev != st.st_dev))
		e = e->next;
	return e;
}

int shim_syncobj_to_fd(struct shim_dev *dev, uint32_t handle, uint32_t flags, int *fd)
{
	if (flags & ~(uint32_t)DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE)
		return -EINVAL;
	bool sync_file = flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return sync_file ? -ENOENT : -EINVAL; /* drm_syncobj_find_fence / drm_syncobj_handle_to_fd */
	struct exported *e = NULL;
	int f = export_fd(&e);
	if (f < 0) {
		put(s);
		return f;
	}
	pthread_mutex_lock(&sync_lock);
	if (sync_file) {
		if (!s->has_fence && !s->signaled) {
			pthread_mutex_unlock(&sync_lock);
			put(s);
			close(f);
			free(e);
			return -EINVAL; /* the kernel: no fence to export */
		}
		e->sync_file = true;
		e->has_fence = s->has_fence;
		e->fence = s->fence;
		put_locked(s);
		atomic_fetch_add(&nr_sync_files, 1);
	} else {
		e->s = s; /* the reference get() took */
	}
	e->next = exports;
	exports = e;
	pthread_mutex_unlock(&sync_lock);
	*fd = f;
	return 0;
}

int shim_syncobj_from_fd(struct shim_dev *dev, int fd, uint32_t flags, uint32_t *handle)
{
	if (flags & ~(uint32_t)DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE)
		return -EINVAL;
	pthread_mutex_lock(&sync_lock);
	struct exported *e = find_export_locked(fd);
	if (flags) {
		/* A sync_file's fence goes into an existing syncobj. */
		if (!e || !e->sync_file) {
			pthread_mutex_unlock(&sync_lock);
			return -EINVAL;
		}
		bool has = e->has_fence;
		struct shim_fence_src f = e->fence;
		pthread_mutex_unlock(&sync_lock);
		/* -ENOENT for a handle naming nothing, as drm_syncobj_import_sync_file_fence. */
		if (!has)
			return shim_syncobj_signal(dev, *handle);
		return shim_syncobj_attach(dev, *handle, f);
	}
	struct shim_syncobj *s = e && !e->sync_file ? e->s : NULL;
	if (s)
		s->refs++;
	pthread_mutex_unlock(&sync_lock);
	if (!s)
		return -EINVAL; /* not a syncobj fd of this process */
	int r = add_handle(dev, s, handle);
	if (r < 0)
		put(s);
	return r;
}

void shim_syncobj_fd_closed(int fd)
{
	if (atomic_load(&nr_sync_files) == 0)
		return;
	pthread_mutex_lock(&sync_lock);
	struct exported **pp = &exports;
	while (*pp && !((*pp)->sync_file && (*pp)->fd == fd))
		pp = &(*pp)->next;
	struct exported *e = *pp;
	struct stat st;
	/* The number may have been closed behind our back and reused: the inode tells. */
	if (e && fstat(fd, &st) == 0 && st.st_ino == e->ino && st.st_dev == e->dev) {
		*pp = e->next;
		free(e);
		atomic_fetch_sub(&nr_sync_files, 1);
	}
	pthread_mutex_unlock(&sync_lock);
}
