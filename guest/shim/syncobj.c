/* DRM syncobjs kept in the guest: a syncobj holds nothing, a "signaled" stub, or a ferry fence
 * (queue, seqno) a submit attached. Waiting is libferry's fence wait; WAIT_FOR_SUBMIT waits for
 * a fence to be attached first. Opaque syncobj fds work within this process only; sync files
 * are syncobj_sync_file.c's. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/uapi_msm.h" /* <drm.h>: DRM_SYNCOBJ_* flags */
#include "shim_ferry.h"

struct shim_syncobj {
	unsigned refs;       /* handles (any open) + exported fds; under sync_lock */
	bool signaled;       /* no fence, but signaled (CREATE_SIGNALED, SIGNAL, released) */
	bool has_fence;
	struct shim_fence_src fence;
	/* Every install counts here and the newest stays even after a reset, so a WAIT_FOR_SUBMIT
	 * waiter that slept through "installed, then reset" still gets it (as the kernel hands each
	 * installed fence to the queued waiters). */
	uint64_t installs;
	bool last_signaled;
	struct shim_fence_src last;
	struct shim_syncobj *next_all;
};

/* One lock for every syncobj, export and open's fence_users: syncobjs are shared between opens
 * and fds. Nothing here calls back into the shim while holding it, and libferry never calls
 * into syncobj.c, so taking libferry's lock inside it cannot deadlock. */
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_cond; /* CLOCK_MONOTONIC: broadcast on every install and release */
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
static struct shim_syncobj *all_syncobjs;

static void cond_init(void)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&sync_cond, &a);
	pthread_condattr_destroy(&a);
}

/* Opaque syncobj fds are one end of a socket pair; the library keeps the other. The caller's
 * end's inode names the syncobj when an fd comes back, and POLLHUP on the kept end says every
 * copy (dups included) was closed, so the export is collected. */
struct exported {
	ino_t ino;
	dev_t dev;
	int keep_fd;
	struct shim_syncobj *s;
	struct exported *next;
};
static struct exported *exports;

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
		if (!o->last_signaled && o->last.owner == dev && (!q || o->last.q == q))
			o->last_signaled = true;
	}
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
static void install(struct shim_syncobj *s, bool signaled, const struct shim_fence_src *f)
{
	pthread_once(&cond_once, cond_init);
	pthread_mutex_lock(&sync_lock);
	s->has_fence = f != NULL;
	s->signaled = signaled;
	if (f)
		s->fence = *f;
	if (f || signaled) {
		s->installs++;
		s->last_signaled = !f;
		if (f)
			s->last = *f;
	}
	pthread_cond_broadcast(&sync_cond);
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
}

int shim_syncobj_reset(struct shim_dev *dev, uint32_t handle)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	install(s, false, NULL);
	return 0;
}

int shim_syncobj_signal(struct shim_dev *dev, uint32_t handle)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	install(s, true, NULL);
	return 0;
}

int shim_syncobj_attach(struct shim_dev *dev, uint32_t handle, struct shim_fence_src f)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	install(s, false, &f);
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
	struct shim_fence_src f = s->fence;
	bool pending = s->has_fence && !ferry_fence_signaled(f.q, f.seqno);
	if (!s->has_fence && !s->signaled)
		r = -EINVAL; /* the kernel: "no fence" for an unsubmitted syncobj */
	bool foreign = pending && f.owner != dev;
	if (foreign)
		f.owner->fence_users++;
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	if (foreign) {
		/* Another open's queue is another ferry context: no in-fence can name it, so the
		 * dependency is kept by waiting here, before the submit goes out. */
		ferry_fence_wait(f.q, f.seqno, -1);
		pthread_mutex_lock(&sync_lock);
		f.owner->fence_users--;
		pthread_cond_broadcast(&sync_cond);
		pthread_mutex_unlock(&sync_lock);
	} else if (pending) {
		*out = f;
		*has = true;
	}
	return r;
}

/* DRM_SYNCOBJ_WAIT semantics: all or any; WAIT_FOR_SUBMIT lets unsubmitted syncobjs count as
 * "not yet" instead of -EINVAL; -ETIME when the absolute CLOCK_MONOTONIC deadline passes;
 * first_signaled is the first already signaled at entry, or for "any" the one that ended the
 * wait, else ~0. A failed fence counts as signaled (the error reaches the driver through its
 * own fault queries). */
int shim_syncobj_wait(struct shim_dev *dev, const uint32_t *handles, uint32_t count, int64_t abs_timeout_ns,
		      uint32_t flags, uint32_t *first)
{
	pthread_once(&cond_once, cond_init);
	bool wait_all = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	bool for_submit = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	struct shim_syncobj **objs = calloc(count, sizeof(*objs));
	struct ferry_fence_point *pts = calloc(count, sizeof(*pts));
	struct shim_dev **users = calloc(count, sizeof(*users));
	uint64_t *seen = calloc(count, sizeof(*seen));
	/* Per entry: 0 unknown yet, 1 waiting on taken[i], 2 done. */
	uint8_t *state = calloc(count, 1);
	struct shim_fence_src *taken = calloc(count, sizeof(*taken));
	int r = 0;
	uint32_t got = 0, first_done = UINT32_MAX;
	if (!objs || !pts || !users || !seen || !state || !taken) {
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
	pthread_mutex_lock(&sync_lock);
	for (uint32_t i = 0; i < count; i++) {
		struct shim_syncobj *o = objs[i];
		seen[i] = o->installs;
		if (o->signaled || (o->has_fence && ferry_fence_signaled(o->fence.q, o->fence.seqno))) {
			state[i] = 2;
			if (first_done == UINT32_MAX)
				first_done = i;
		} else if (o->has_fence) {
			state[i] = 1;
			taken[i] = o->fence;
		} else if (!for_submit) {
			r = -EINVAL;
		}
	}
	pthread_mutex_unlock(&sync_lock);
	if (r)
		goto out;
	uint32_t result = first_done;
	for (;;) {
		pthread_mutex_lock(&sync_lock);
		uint32_t npts = 0, done = 0, unknown = 0;
		int64_t any = -1;
		for (uint32_t i = 0; i < count; i++) {
			struct shim_syncobj *o = objs[i];
			if (state[i] == 0 && (o->has_fence || o->signaled || o->installs != seen[i])) {
				/* A fence arrived (maybe already gone again: the newest install). */
				bool sig = o->has_fence ? false : o->signaled ? true : o->last_signaled;
				state[i] = sig ? 2 : 1;
				taken[i] = o->has_fence ? o->fence : o->last;
			}
			if (state[i] == 1 && ferry_fence_signaled(taken[i].q, taken[i].seqno))
				state[i] = 2;
			if (state[i] == 2) {
				done++;
				if (any < 0)
					any = i;
			} else if (state[i] == 1) {
				users[npts] = taken[i].owner;
				taken[i].owner->fence_users++;
				pts[npts++] = (struct ferry_fence_point){ taken[i].q, taken[i].seqno };
			} else {
				unknown++;
			}
		}
		bool over = wait_all ? done == count : done > 0;
		int64_t left = shim_timeout_from_abs(abs_timeout_ns);
		/* A syncobj still waiting for a fence to be submitted, on a lost context, will get
		 * none; after a failed submit it may be the failed one's. Either way the wait ends
		 * (-EIO), whatever its timeout, SHIM_STRANDED_GRACE_NS after the failure or the loss
		 * was first seen: the grace lets v3dv's submit thread fail its own submit first and
		 * mark the device lost, as it would on the kernel's ordering, because a wait that ends
		 * before that lets vkDestroyDevice drain a queue whose thread then stops without
		 * waking it (Mesa 22.3's vk_queue). Stronger than the kernel, which would sleep for
		 * ever (docs/guest-shim.md); fences already in count as failed: libferry ends them. */
		int64_t now = shim_now_ns();
		if (unknown && !dev->submit_failed_ns && ferry_context_lost(dev->ctx))
			dev->submit_failed_ns = now;
		bool stranded = unknown && dev->submit_failed_ns;
		int64_t stranded_end = stranded ? dev->submit_failed_ns + SHIM_STRANDED_GRACE_NS : INT64_MAX;
		bool lost = !over && unknown && now >= stranded_end;
		if (over || left == 0 || lost) {
			for (uint32_t k = 0; k < npts; k++)
				users[k]->fence_users--;
			pthread_cond_broadcast(&sync_cond);
			pthread_mutex_unlock(&sync_lock);
			if (over && !wait_all && result == UINT32_MAX)
				result = (uint32_t)any;
			r = over ? 0 : lost ? -EIO : -ETIME;
			break;
		}
		if (unknown || npts == 0) {
			for (uint32_t k = 0; k < npts; k++)
				users[k]->fence_users--;
			/* Something must be attached first; fences already there are re-checked every
			 * couple of ms meanwhile. */
			int64_t slice = npts ? 2000000 : left;
			if (slice > left)
				slice = left;
			int64_t until = slice > INT64_MAX - now ? INT64_MAX : now + slice;
			if (until > stranded_end)
				until = stranded_end;
			struct timespec ts = { until / 1000000000, until % 1000000000 };
			pthread_cond_timedwait(&sync_cond, &sync_lock, &ts);
			pthread_mutex_unlock(&sync_lock);
			continue;
		}
		pthread_mutex_unlock(&sync_lock);
		int w = ferry_fence_wait_many(pts, npts, wait_all, left, NULL);
		pthread_mutex_lock(&sync_lock);
		for (uint32_t k = 0; k < npts; k++)
			users[k]->fence_users--;
		pthread_cond_broadcast(&sync_cond);
		pthread_mutex_unlock(&sync_lock);
		/* 0, -ETIMEDOUT (the loop says -ETIME), or the error a fence completed with (a fault,
		 * a refusal: that fence is done, as the kernel's signaled-with-error): the loop
		 * re-checks. An error with no fence done is the connection gone: said, not spun on. */
		bool any_done = false;
		for (uint32_t k = 0; w < 0 && w != -ETIMEDOUT && k < npts && !any_done; k++)
			any_done = ferry_fence_signaled(pts[k].q, pts[k].seqno);
		if (w < 0 && w != -ETIMEDOUT && !any_done) {
			r = w;
			break;
		}
	}
	if (r == 0 && first)
		*first = result;
out:
	for (uint32_t i = 0; i < got; i++)
		put(objs[i]);
	free(objs);
	free(pts);
	free(users);
	free(seen);
	free(state);
	free(taken);
	return r;
}

/* Drops the exports whose fds the caller has closed, every copy (sync_lock held). */
static void collect_locked(void)
{
	for (struct exported **pp = &exports; *pp;) {
		struct exported *e = *pp;
		struct pollfd p = { .fd = e->keep_fd, .events = 0 };
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
			*pp = e->next;
			close(e->keep_fd);
			put_locked(e->s);
			free(e);
		} else {
			pp = &e->next;
		}
	}
}

/* A socket pair whose caller's end names a new export (filled by the caller under sync_lock). */
static int export_fd(struct exported **out)
{
	struct exported *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	int fds[2];
	struct stat st;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		free(e);
		return -errno;
	}
	if (fstat(fds[0], &st) < 0) {
		int err = -errno;
		close(fds[0]);
		close(fds[1]);
		free(e);
		return err;
	}
	e->ino = st.st_ino;
	e->dev = st.st_dev;
	e->keep_fd = fds[1];
	*out = e;
	return fds[0];
}

static struct exported *find_export_locked(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
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
	if (flags)
		return shim_syncobj_export_sync_file(dev, handle, fd);
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -EINVAL; /* drm_syncobj_handle_to_fd */
	struct exported *e = NULL;
	int f = export_fd(&e);
	if (f < 0) {
		put(s);
		return f;
	}
	pthread_mutex_lock(&sync_lock);
	collect_locked();
	e->s = s; /* the reference get() took */
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
	if (flags)
		return shim_syncobj_import_sync_file(dev, fd, *handle);
	pthread_mutex_lock(&sync_lock);
	struct exported *e = find_export_locked(fd);
	struct shim_syncobj *s = e ? e->s : NULL;
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

int shim_syncobj_peek(struct shim_dev *dev, uint32_t handle, struct shim_fence_src *out, bool *has)
{
	struct shim_syncobj *s = get(dev, handle);
	if (!s)
		return -ENOENT;
	pthread_mutex_lock(&sync_lock);
	int r = s->has_fence || s->signaled ? 0 : -EINVAL;
	*has = s->has_fence;
	*out = s->fence;
	put_locked(s);
	pthread_mutex_unlock(&sync_lock);
	return r;
}
