/* Fences, syncobjs and the DRM core syncobj ioctls of the simulated kernels (see sim_syncobj.h).
 * Exported fds are socket pairs: the caller gets one end, the device keeps the other. The
 * caller's end's inode names the export when an fd comes back, a sync file's end is made
 * readable when its fence signals (so poll() on it behaves as on a sync_file), and POLLHUP on
 * the kept end tells that every copy of the caller's end is closed, so the export can be
 * dropped. (Not a pipe: writing to a pipe whose reader is gone raises SIGPIPE in the caller's
 * process; send(MSG_NOSIGNAL) does not.) Under the fake kernel, whose hooks make fds other
 * processes can use, opaque syncobj fds are its shared sockets instead. */
#include "sim_syncobj.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_handle_slots.h"
#include "sim_syncobj_timeline.h"
#include "sim_worker.h"

/* drm_syncobj_array_find copies count handles with kmalloc_array: past KMALLOC_MAX_SIZE the
 * allocation fails. Bounding the count the same way keeps a huge count from a huge calloc. */
#define SIM_SYNCOBJ_MAX_ARRAY ((4u << 20) / sizeof(void *))

struct sim_sync_export {
	struct sim_sync_export *next;
	int keep_fd;                 /* the device's end of the socket pair */
	dev_t st_dev;
	ino_t st_ino;
	struct sim_syncobj *syncobj; /* an opaque syncobj fd ... */
	struct sim_fence *fence;     /* ... or a sync file of this fence */
	bool readable;               /* sync file: the byte that makes it poll readable is in */
};

void sim_sync_dev_init(struct sim_sync_dev *sd, pthread_mutex_t *lock, pthread_cond_t *done_cond,
		       pthread_cond_t *work_cond)
{
	*sd = (struct sim_sync_dev){ .lock = lock, .done_cond = done_cond, .work_cond = work_cond };
}

static void share_free(struct sim_syncobj_share *sh)
{
	struct sim_syncobj_share **pp = &sh->sd->shared;
	while (*pp != sh)
		pp = &(*pp)->next;
	*pp = sh->next;
	close(sh->fd);
	free(sh);
}

static void export_free(struct sim_sync_export *e)
{
	close(e->keep_fd);
	if (e->syncobj)
		sim_syncobj_put(e->syncobj);
	sim_fence_put(e->fence);
	free(e);
}

void sim_sync_dev_fini(struct sim_sync_dev *sd)
{
	while (sd->shared) { /* only syncobjs something still holds past the device */
		sd->shared->s->share = NULL;
		share_free(sd->shared);
	}
	while (sd->exports) {
		struct sim_sync_export *e = sd->exports;
		sd->exports = e->next;
		export_free(e);
	}
}

/* --- fences --- */

struct sim_fence *sim_fence_new(void)
{
	struct sim_fence *f = calloc(1, sizeof(*f));
	if (f)
		f->refs = 1;
	return f;
}

struct sim_fence *sim_fence_get(struct sim_fence *f)
{
	f->refs++;
	return f;
}

void sim_fence_put(struct sim_fence *f)
{
	if (f && --f->refs == 0) {
		if (f->chain)
			sim_chain_free(f);
		else
			free(f);
	}
}

static void make_readable(struct sim_sync_export *e)
{
	if (e->readable)
		return;
	/* Non-blocking, and one byte in an empty socket always fits. */
	if (send(e->keep_fd, "", 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
		e->readable = true;
}

void sim_fence_signal(struct sim_sync_dev *sd, struct sim_fence *f, int error)
{
	if (f->signaled)
		return;
	f->signaled = true;
	f->error = error;
	for (struct sim_sync_export *e = sd->exports; e; e = e->next)
		if (e->fence == f)
			make_readable(e);
	sim_chain_update(sd);
	pthread_cond_broadcast(sd->done_cond);
	if (!sd->work_muted)
		pthread_cond_signal(sd->work_cond);
}

/* A fence born signaled (dma_fence_get_stub / dma_fence_allocate_private_stub). */
static struct sim_fence *signaled_stub(void)
{
	struct sim_fence *f = sim_fence_new();
	if (f)
		f->signaled = true;
	return f;
}

/* --- syncobjs and handles --- */

struct sim_syncobj *sim_syncobj_get(struct sim_syncobj *s)
{
	s->refs++;
	return s;
}

void sim_syncobj_put(struct sim_syncobj *s)
{
	if (--s->refs)
		return;
	if (s->share)
		share_free(s->share);
	sim_fence_put(s->fence);
	free(s);
}

static void replace_local(struct sim_sync_dev *sd, struct sim_syncobj *s, struct sim_fence *f)
{
	if (f)
		sim_fence_get(f);
	sim_fence_put(s->fence);
	s->fence = f;
	sim_syncobj_notify_waiters(s);
	pthread_cond_broadcast(sd->done_cond);
}

/* Says once that a shared syncobj keeps its local state, and why. */
static void share_failed(int err, const char *what)
{
	static bool said;
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		fprintf(stderr, "ferry fake kernel: a syncobj shared with another process could not be %s (%s); "
			"it keeps its local state (said once)\n", what, strerror(-err));
}

bool sim_syncobj_pull(struct sim_syncobj *s)
{
	struct sim_syncobj_share *sh = s->share;
	if (!sh)
		return false;
	uint64_t gen;
	struct sim_fence *f = NULL;
	/* Under the device lock: never wait for another process's writer (the next look takes
	 * its state in). */
	int r = sh->sd->sync_files->share_read(sh->sd, sh->fd, sh->gen, false, &gen, &f);
	if (r < 0 && r != -EBUSY)
		share_failed(r, "read");
	if (r > 0) {
		sh->gen = gen;
		replace_local(sh->sd, s, f);
		sim_fence_put(f);
	}
	return true;
}

static void push(struct sim_syncobj *s)
{
	struct sim_syncobj_share *sh = s->share;
	uint64_t gen;
	int r = sh->sd->sync_files->share_write(sh->sd, sh->fd, s->fence, &gen);
	if (r < 0)
		share_failed(r, "written");
	else
		sh->gen = gen;
}

struct sim_syncobj *sim_syncobj_lookup(const struct sim_syncobj_table *t, uint32_t handle)
{
	if (handle == 0 || handle > t->nr)
		return NULL;
	struct sim_syncobj *s = t->slots[handle - 1];
	if (s)
		sim_syncobj_pull(s);
	return s;
}

void sim_syncobj_replace(struct sim_sync_dev *sd, struct sim_syncobj *s, struct sim_fence *f)
{
	replace_local(sd, s, f);
	if (s->share)
		push(s);
}

/* Installs a new reference to s in the lowest free handle. Returns the handle or -ENOMEM. */
static int handle_alloc(struct sim_syncobj_table *t, struct sim_syncobj *s)
{
	uint32_t idx = 0;
	while (idx < t->nr && t->slots[idx])
		idx++;
	if (idx == t->nr) {
		struct sim_syncobj **slots = sim_handle_slots_grow(t->slots, &t->nr, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		t->slots = slots;
	}
	t->slots[idx] = sim_syncobj_get(s);
	return (int)(idx + 1);
}

void sim_syncobj_table_fini(struct sim_syncobj_table *t)
{
	for (uint32_t i = 0; i < t->nr; i++)
		if (t->slots[i])
			sim_syncobj_put(t->slots[i]);
	free(t->slots);
	t->slots = NULL;
	t->nr = 0;
}

int sim_syncobj_create(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_create *a)
{
	(void)sd;
	if (a->flags & ~(uint32_t)DRM_SYNCOBJ_CREATE_SIGNALED)
		return -EINVAL;
	struct sim_syncobj *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->refs = 1;
	if (a->flags & DRM_SYNCOBJ_CREATE_SIGNALED) {
		s->fence = signaled_stub();
		if (!s->fence) {
			free(s);
			return -ENOMEM;
		}
	}
	int h = handle_alloc(t, s);
	sim_syncobj_put(s); /* the handle holds it now, or nothing does */
	if (h < 0)
		return h;
	a->handle = (uint32_t)h;
	return 0;
}

int sim_syncobj_destroy(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_destroy *a)
{
	(void)sd;
	if (a->pad)
		return -EINVAL;
	struct sim_syncobj *s = sim_syncobj_lookup(t, a->handle);
	if (!s)
		return -EINVAL;
	t->slots[a->handle - 1] = NULL;
	sim_syncobj_put(s);
	return 0;
}

/* --- exported fds --- */

static bool export_orphaned(const struct sim_sync_export *e)
{
	struct pollfd p = { .fd = e->keep_fd, .events = 0 };
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP | POLLNVAL));
}

/* Drops the exports whose fds the callers have all closed. */
static void exports_collect(struct sim_sync_dev *sd)
{
	for (struct sim_sync_export **pe = &sd->exports; *pe;) {
		struct sim_sync_export *e = *pe;
		if (export_orphaned(e)) {
			*pe = e->next;
			export_free(e);
		} else {
			pe = &e->next;
		}
	}
}

/* A new export of the syncobj s or of the fence f (references taken); *fd gets the caller's
 * end. */
static int export_new(struct sim_sync_dev *sd, struct sim_syncobj *s, struct sim_fence *f, int32_t *fd)
{
	exports_collect(sd);
	struct sim_sync_export *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)) {
		int err = -errno;
		free(e);
		return err;
	}
	struct stat st;
	if (fcntl(fds[1], F_SETFL, O_NONBLOCK) || fstat(fds[0], &st)) {
		int err = -errno;
		close(fds[0]);
		close(fds[1]);
		free(e);
		return err;
	}
	e->keep_fd = fds[1];
	e->st_dev = st.st_dev;
	e->st_ino = st.st_ino;
	e->syncobj = s ? sim_syncobj_get(s) : NULL;
	e->fence = f ? sim_fence_get(f) : NULL;
	if (f && f->signaled)
		make_readable(e);
	e->next = sd->exports;
	sd->exports = e;
	*fd = fds[0];
	return 0;
}

/* The export an fd the caller passed names, or NULL (a bad fd, or one this device did not
 * give out). */
static struct sim_sync_export *export_find(struct sim_sync_dev *sd, int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return NULL;
	for (struct sim_sync_export *e = sd->exports; e; e = e->next)
		if (e->st_dev == st.st_dev && e->st_ino == st.st_ino)
			return e;
	return NULL;
}

/* An fd of s's shared socket, made on first export (with s's fence so far). */
static int share_export(struct sim_sync_dev *sd, struct sim_syncobj *s, int32_t *fd)
{
	if (!s->share) {
		struct sim_syncobj_share *sh = calloc(1, sizeof(*sh));
		if (!sh)
			return -ENOMEM;
		struct stat st;
		int sfd = sd->sync_files->share_new();
		if (sfd < 0 || fstat(sfd, &st)) {
			int err = sfd < 0 ? sfd : -errno;
			if (sfd >= 0)
				close(sfd);
			free(sh);
			return err;
		}
		/* Its first record is known: no pull takes it in before the push below. */
		*sh = (struct sim_syncobj_share){ sd, s, sfd, st.st_dev, st.st_ino, SIM_SHARED_FIRST_GEN, sd->shared };
		sd->shared = sh;
		s->share = sh;
		push(s);
	}
	int f = fcntl(s->share->fd, F_DUPFD_CLOEXEC, 0);
	if (f < 0)
		return -errno;
	*fd = f;
	return 0;
}

/* FD_TO_HANDLE of a shared socket: the syncobj of this device that has it, else (another
 * process's, or one every handle here let go of) a new syncobj holding what the socket holds. */
static int share_import(struct sim_sync_dev *sd, struct sim_syncobj_table *t, int fd, uint32_t *handle)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return -EINVAL;
	struct sim_syncobj_share *sh = sd->shared;
	while (sh && (sh->st_dev != st.st_dev || sh->st_ino != st.st_ino))
		sh = sh->next;
	struct sim_syncobj *s = sh ? sim_syncobj_get(sh->s) : NULL;
	if (!s) {
		if (!sd->sync_files->share_is(fd))
			return -EINVAL; /* not a syncobj file */
		uint64_t gen;
		struct sim_fence *f = NULL;
		int r = sd->sync_files->share_read(sd, fd, 0, true, &gen, &f); /* generation 0 is never written */
		if (r <= 0)
			return -EINVAL;
		s = calloc(1, sizeof(*s));
		sh = s ? calloc(1, sizeof(*sh)) : NULL;
		int copy = sh ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (copy < 0) {
			free(sh);
			free(s);
			sim_fence_put(f);
			return -ENOMEM;
		}
		*sh = (struct sim_syncobj_share){ sd, s, copy, st.st_dev, st.st_ino, gen, sd->shared };
		sd->shared = sh;
		s->refs = 1;
		s->share = sh;
		s->fence = f;
	} else {
		sim_syncobj_pull(s);
	}
	int h = handle_alloc(t, s);
	sim_syncobj_put(s);
	if (h < 0)
		return h;
	*handle = (uint32_t)h;
	return 0;
}

int sim_syncobj_handle_to_fd(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_handle *a)
{
	if (a->pad)
		return -EINVAL;
	if (a->flags != 0 && a->flags != DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE)
		return -EINVAL;
	struct sim_syncobj *s = sim_syncobj_lookup(t, a->handle);
	if (!a->flags && s && sd->sync_files && sd->sync_files->share_new)
		return share_export(sd, s, &a->fd);
	if (!a->flags)
		return s ? export_new(sd, s, NULL, &a->fd) : -EINVAL;
	/* drm_syncobj_export_sync_file: drm_syncobj_find_fence's errnos. */
	if (!s)
		return -ENOENT;
	if (!s->fence)
		return -EINVAL;
	if (sd->sync_files) {
		int fd = sd->sync_files->create(sd, s->fence, (uint64_t)(uintptr_t)s->fence, 0, 0);
		if (fd >= 0)
			a->fd = fd;
		return fd < 0 ? fd : 0;
	}
	return export_new(sd, NULL, s->fence, &a->fd);
}

int sim_syncobj_fd_to_handle(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_handle *a)
{
	if (a->pad)
		return -EINVAL;
	if (a->flags != 0 && a->flags != DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE)
		return -EINVAL;
	if (a->flags && sd->sync_files) {
		struct sim_fence *f;
		int r = sd->sync_files->fence(sd, a->fd, &f);
		if (r)
			return r;
		struct sim_syncobj *s = sim_syncobj_lookup(t, a->handle);
		if (s)
			sim_syncobj_replace(sd, s, f);
		sim_fence_put(f);
		return s ? 0 : -ENOENT;
	}
	if (!a->flags && sd->sync_files && sd->sync_files->share_new)
		return share_import(sd, t, a->fd, &a->handle);
	struct sim_sync_export *e = export_find(sd, a->fd);
	if (!a->flags) {
		if (!e || !e->syncobj)
			return -EINVAL; /* not a syncobj file */
		int h = handle_alloc(t, e->syncobj);
		if (h < 0)
			return h;
		a->handle = (uint32_t)h;
		return 0;
	}
	if (!e || !e->fence)
		return -EINVAL; /* sync_file_get_fence: not a sync file */
	struct sim_syncobj *s = sim_syncobj_lookup(t, a->handle);
	if (!s)
		return -ENOENT;
	sim_syncobj_replace(sd, s, e->fence);
	return 0;
}

/* --- arrays: WAIT, RESET, SIGNAL --- */

/* drm_syncobj_array_find: references to count syncobjs, -ENOENT for a handle naming none. */
int sim_syncobj_find_array(struct sim_syncobj_table *t, uint64_t ptr, uint32_t count, struct sim_syncobj ***out)
{
	if (count > SIM_SYNCOBJ_MAX_ARRAY)
		return -ENOMEM;
	const uint32_t *handles = (const uint32_t *)(uintptr_t)ptr;
	if (!handles)
		return -EFAULT;
	struct sim_syncobj **objs = calloc(count, sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		struct sim_syncobj *s = sim_syncobj_lookup(t, handles[i]);
		if (!s) {
			while (i-- > 0)
				sim_syncobj_put(objs[i]);
			free(objs);
			return -ENOENT;
		}
		objs[i] = sim_syncobj_get(s);
	}
	*out = objs;
	return 0;
}

void sim_syncobj_put_array(struct sim_syncobj **objs, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		sim_syncobj_put(objs[i]);
	free(objs);
}

int sim_syncobj_reset(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_array *a)
{
	if (a->pad || a->count_handles == 0)
		return -EINVAL;
	struct sim_syncobj **objs;
	int ret = sim_syncobj_find_array(t, a->handles, a->count_handles, &objs);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < a->count_handles; i++)
		sim_syncobj_replace(sd, objs[i], NULL);
	sim_syncobj_put_array(objs, a->count_handles);
	return 0;
}

int sim_syncobj_signal(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_array *a)
{
	if (a->pad || a->count_handles == 0)
		return -EINVAL;
	struct sim_syncobj **objs;
	int ret = sim_syncobj_find_array(t, a->handles, a->count_handles, &objs);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < a->count_handles; i++) {
		struct sim_fence *f = signaled_stub();
		if (!f) {
			ret = -ENOMEM;
			break;
		}
		sim_syncobj_replace(sd, objs[i], f);
		sim_fence_put(f);
	}
	sim_syncobj_put_array(objs, a->count_handles);
	pthread_cond_signal(sd->work_cond); /* jobs gated on these may run */
	return ret;
}

/* drm_syncobj_array_wait_timeout: each entry keeps the fence it first saw; with WAIT_FOR_SUBMIT
 * an entry without one takes the first fence put in its syncobj later. first_signaled is the
 * first entry already signaled on entry, or (wait-any) the one that ended the wait. */
void sim_syncobj_strand(struct sim_sync_dev *sd, struct sim_syncobj_table *t, int64_t end_ns)
{
	if (end_ns <= 0)
		end_ns = 1;
	if (!t->stranded_ns || end_ns < t->stranded_ns)
		t->stranded_ns = end_ns;
	pthread_cond_broadcast(sd->done_cond);
}

void sim_syncobj_faulted(struct sim_sync_dev *sd, struct sim_syncobj_table *t)
{
	if (!t->lose_on_fault || t->lost)
		return;
	t->lost = true;
	int64_t end = (int64_t)sim_now_ns() + t->lost_grace_ns;
	if (!t->stranded_ns || end < t->stranded_ns)
		t->stranded_ns = end > 0 ? end : 1;
	pthread_cond_broadcast(sd->done_cond);
}

int sim_syncobj_wait(struct sim_sync_dev *sd, struct sim_syncobj_table *t, struct drm_syncobj_wait *a)
{
	/* As drm_syncobj_wait_ioctl: the timeline wait at point 0 of every handle (NULL points),
	 * without WAIT_AVAILABLE, which belongs to timeline waits. */
	if (a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE)
		return -EINVAL;
	struct drm_syncobj_timeline_wait tw = {
		.handles = a->handles, .timeout_nsec = a->timeout_nsec, .count_handles = a->count_handles,
		.flags = a->flags,
	};
	int ret = sim_syncobj_timeline_wait(sd, t, &tw);
	if (!ret)
		a->first_signaled = tw.first_signaled;
	return ret;
}

/* --- dispatch by ioctl nr --- */

int sim_syncobj_ioctl(struct sim_sync_dev *sd, struct sim_syncobj_table *t, unsigned nr, void *arg)
{
	switch (nr) {
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_CREATE): return sim_syncobj_create(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY): return sim_syncobj_destroy(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD): return sim_syncobj_handle_to_fd(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE): return sim_syncobj_fd_to_handle(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT): return sim_syncobj_wait(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET): return sim_syncobj_reset(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL): return sim_syncobj_signal(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT): return sim_syncobj_timeline_wait(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_QUERY): return sim_syncobj_query(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TRANSFER): return sim_syncobj_transfer(sd, t, arg);
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL): return sim_syncobj_timeline_signal(sd, t, arg);
	default: return -EINVAL;
	}
}
