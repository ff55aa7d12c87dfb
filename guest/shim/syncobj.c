/* DRM syncobjs kept in the guest: a syncobj holds nothing, a "signaled" stub, a ferry fence
 * (queue, seqno) a submit attached, or a timeline's chain (syncobj_timeline.c, where every wait
 * is). Opaque syncobj fds are shared_syncobj.h's sockets, kept in step by syncobj_share.c; sync
 * files are syncobj_sync_file.c's. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h" /* <drm.h>: DRM_SYNCOBJ_* flags */
#include "shared_syncobj.h"
#include "shim_ferry.h"
#include "syncobj_priv.h"

/* One lock for every syncobj, export and open's fence_users: syncobjs are shared between opens
 * and fds. Nothing here calls back into the shim while holding it, and libferry never calls
 * into syncobj.c, so taking libferry's lock inside it cannot deadlock. */
pthread_mutex_t shim_sync_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t shim_sync_cond; /* CLOCK_MONOTONIC: broadcast on every install and release */
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
/* This file's short names for them. */
#define sync_lock shim_sync_lock
#define sync_cond shim_sync_cond
static struct shim_syncobj *all_syncobjs;

static void cond_init(void)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&sync_cond, &a);
	pthread_condattr_destroy(&a);
}

static void put_locked(struct shim_syncobj *s)
{
	if (--s->refs)
		return;
	struct shim_syncobj **pp = &all_syncobjs;
	while (*pp != s)
		pp = &(*pp)->next_all;
	*pp = s->next_all;
	shim_timeline_free_locked(s);
	if (s->share_fd >= 0)
		close(s->share_fd);
	pthread_mutex_destroy(&s->share_lock);
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
	s->share_fd = -1;
	pthread_mutex_init(&s->share_lock, NULL);
	int r = add_handle(dev, s, handle);
	if (r < 0) {
		pthread_mutex_destroy(&s->share_lock);
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

struct shim_syncobj *shim_syncobj_ref(struct shim_dev *dev, uint32_t handle)
{
	return get(dev, handle);
}

void shim_syncobj_unref(struct shim_syncobj *s)
{
	put(s);
}

void shim_syncobj_unref_locked(struct shim_syncobj *s)
{
	put_locked(s);
}

void shim_syncobj_lock_init(void)
{
	pthread_once(&cond_once, cond_init);
}

bool shim_syncobj_exists(struct shim_dev *dev, uint32_t handle)
{
	pthread_mutex_lock(&dev->lock);
	bool r = lookup_locked(dev, handle) != NULL;
	pthread_mutex_unlock(&dev->lock);
	return r;
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

/* Marks every fence of queue q (q NULL: of any queue of dev) as signaled in syncobjs (sync_lock
 * held). */
static void resolve_locked(struct shim_dev *dev, struct ferry_queue *q)
{
	for (struct shim_syncobj *o = all_syncobjs; o; o = o->next_all) {
		if (o->has_fence && o->fence.owner == dev && (!q || o->fence.q == q)) {
			o->has_fence = false;
			o->signaled = true;
		}
	}
	shim_timeline_resolve_locked(dev, q);
	pthread_cond_broadcast(&sync_cond);
}

void shim_syncobj_release_dev(struct shim_dev *dev)
{
	pthread_once(&cond_once, cond_init);
	pthread_mutex_lock(&sync_lock);
	resolve_locked(dev, NULL);
	/* Waits elsewhere that copied one of this open's fences finish before its queues go. */
	while (dev->fence_users)
		pthread_cond_wait(&sync_cond, &sync_lock);
	pthread_mutex_unlock(&sync_lock);
}

void shim_syncobj_submit_failed(struct shim_dev *dev)
{
	pthread_once(&cond_once, cond_init);
	pthread_mutex_lock(&sync_lock);
	if (!dev->submit_failed_ns)
		dev->submit_failed_ns = shim_now_ns();
	pthread_cond_broadcast(&sync_cond);
	pthread_mutex_unlock(&sync_lock);
}

bool shim_syncobj_forget_queue(struct shim_dev *dev, struct ferry_queue *q)
{
	pthread_mutex_lock(&sync_lock);
	bool idle = dev->fence_users == 0;
	if (idle)
		resolve_locked(dev, q);
	pthread_mutex_unlock(&sync_lock);
	return idle;
}

/* Sets a referenced syncobj's state; broadcasts (sync_lock taken here). */
static void install(struct shim_syncobj *s, bool signaled, int error, const struct shim_fence_src *f)
{
	pthread_once(&cond_once, cond_init);
	pthread_mutex_lock(&sync_lock);
	s->has_fence = f != NULL;
	s->signaled = signaled;
	s->error = error;
	if (f)
		s->fence = *f;
	shim_timeline_installed_locked(s); /* hands queued WAIT_FOR_SUBMIT waiters the fence */
	pthread_cond_broadcast(&sync_cond);
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
}

int shim_syncobj_reset(struct shim_dev *dev, uint32_t handle)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	install(s, false, 0, NULL);
	return 0;
}

int shim_syncobj_signal(struct shim_dev *dev, uint32_t handle)
{
	return shim_syncobj_signal_error(dev, handle, 0);
}

int shim_syncobj_signal_error(struct shim_dev *dev, uint32_t handle, int error)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	install(s, true, error, NULL);
	return 0;
}

int shim_syncobj_attach(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	install(s, false, 0, &f);
	return 0;
}

/* DRM_SYNCOBJ_WAIT is the timeline wait at point 0 of every syncobj, as drm_syncobj.c has it. */
int shim_syncobj_wait(struct shim_dev *dev, const uint32_t *handles, uint32_t count, int64_t abs_timeout_ns,
		      uint32_t flags, uint32_t *first)
{
	return shim_syncobj_shared_wait(dev, handles, NULL, count, abs_timeout_ns, flags, first);
}

/* The syncobj whose shared fd names the same socket as fd, referenced, or NULL (sync_lock held). */
static struct shim_syncobj *find_shared_locked(const struct stat *st)
{
	for (struct shim_syncobj *o = all_syncobjs; o; o = o->next_all)
		if (o->share_fd >= 0 && o->share_ino == st->st_ino && o->share_dev == st->st_dev) {
			o->refs++;
			return o;
		}
	return NULL;
}

/* Gives s its shared socket, once: 1 when made now (the caller writes the state), 0 when it had
 * one, or -errno. */
static int share_locked(struct shim_syncobj *s)
{
	if (s->share_fd >= 0)
		return 0;
	struct stat st;
	int fd = shim_shared_syncobj_new();
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	s->share_fd = fd;
	s->share_dev = st.st_dev;
	s->share_ino = st.st_ino;
	/* The socket's first record is "no fence": known, so no pull takes it in before the push
	 * that follows writes this syncobj's state. */
	s->share_gen = SHIM_SHARED_SYNCOBJ_FIRST_GEN;
	return 1;
}

int shim_syncobj_to_fd(struct shim_dev *dev, uint32_t handle, uint32_t flags, int *fd)
{
	if (flags & ~(uint32_t)DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE)
		return -EINVAL;
	if (flags) {
		shim_syncobj_pull(dev, handle);
		return shim_syncobj_export_sync_file(dev, handle, fd);
	}
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -EINVAL; /* drm_syncobj_handle_to_fd */
	pthread_mutex_lock(&sync_lock);
	int r = share_locked(s);
	int f = r < 0 ? r : fcntl(s->share_fd, F_DUPFD_CLOEXEC, 0);
	if (f < 0 && r >= 0)
		f = -errno;
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	if (f < 0)
		return f;
	if (r == 1)
		shim_syncobj_push(dev, handle); /* the state it has so far */
	*fd = f;
	return 0;
}

/* A syncobj of another process (or one this process dropped since): a new one on a copy of its
 * socket, holding what the socket holds. */
static int import_shared(struct shim_dev *dev, int fd, const struct stat *st, uint32_t *handle)
{
	uint64_t gen;
	int sync_fd;
	int r = shim_shared_syncobj_read(fd, 0, true, &gen, &sync_fd); /* generation 0 is never written */
	if (r <= 0) {
		shim_log(true, "FD_TO_HANDLE: fd %d holds no syncobj state: %s", fd, strerror(r ? -r : EPROTO));
		return -EINVAL;
	}
	struct shim_syncobj *s = calloc(1, sizeof(*s));
	int copy = s ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (copy < 0) {
		free(s);
		if (sync_fd >= 0)
			close(sync_fd);
		return -ENOMEM;
	}
	*s = (struct shim_syncobj){ .refs = 1, .share_fd = copy, .share_dev = st->st_dev, .share_ino = st->st_ino };
	pthread_mutex_init(&s->share_lock, NULL);
	if ((r = add_handle(dev, s, handle)) < 0) {
		close(copy);
		pthread_mutex_destroy(&s->share_lock);
		free(s);
		if (sync_fd >= 0)
			close(sync_fd);
		return r;
	}
	pthread_mutex_lock(&sync_lock);
	s->next_all = all_syncobjs;
	all_syncobjs = s;
	pthread_mutex_unlock(&sync_lock);
	shim_syncobj_take_state(dev, *handle, gen, sync_fd);
	return 0;
}

int shim_syncobj_from_fd(struct shim_dev *dev, int fd, uint32_t flags, uint32_t *handle)
{
	if (flags & ~(uint32_t)DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE)
		return -EINVAL;
	if (flags) {
		int r = shim_syncobj_import_sync_file(dev, fd, *handle);
		if (r == 0)
			shim_syncobj_push(dev, *handle);
		return r;
	}
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -EINVAL; /* not a syncobj file */
	pthread_mutex_lock(&sync_lock);
	struct shim_syncobj *s = find_shared_locked(&st);
	pthread_mutex_unlock(&sync_lock);
	if (!s)
		return shim_shared_syncobj_is(fd) ? import_shared(dev, fd, &st, handle) : -EINVAL;
	int r = add_handle(dev, s, handle);
	if (r < 0)
		put(s);
	else
		shim_syncobj_pull(dev, *handle);
	return r;
}

int shim_syncobj_peek(struct shim_dev *dev, uint32_t handle, struct shim_fence_src *out, bool *has, int *error)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&sync_lock);
	int r = s->has_fence || s->signaled ? 0 : -EINVAL;
	*has = s->has_fence;
	*out = s->fence;
	*error = s->has_fence ? 0 : s->error;
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	return r;
}
