/* Fences and DRM syncobjs of the simulated v3d driver. A fence is a job's done-fence (dma_fence);
 * a syncobj is a per-open handle holding the newest fence put in it. Binary syncobjs only, as v3d
 * (no DRIVER_SYNCOBJ_TIMELINE): CREATE (optionally signaled), DESTROY, WAIT (all/any, absolute
 * CLOCK_MONOTONIC timeout, WAIT_FOR_SUBMIT), RESET, SIGNAL, with drm_syncobj.c's errnos. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_v3d_priv.h"

struct v3ds_fence *v3ds_fence_new(void)
{
	struct v3ds_fence *f = calloc(1, sizeof(*f));
	if (f)
		f->refs = 1;
	return f;
}

struct v3ds_fence *v3ds_fence_get(struct v3ds_fence *f)
{
	f->refs++;
	return f;
}

void v3ds_fence_put(struct v3ds_fence *f)
{
	if (f && --f->refs == 0)
		free(f);
}

void v3ds_fence_signal(struct sim_v3d_device *dev, struct v3ds_fence *f, int error)
{
	if (f->signaled)
		return;
	f->signaled = true;
	f->error = error;
	pthread_cond_broadcast(&dev->done_cond);
	pthread_cond_signal(&dev->work_cond); /* jobs waiting on it may be ready */
}

struct v3ds_syncobj *v3ds_syncobj_lookup(struct v3ds_open *o, uint32_t handle)
{
	if (handle == 0 || handle > o->nr_syncobj_slots)
		return NULL;
	return o->syncobjs[handle - 1];
}

void v3ds_syncobj_replace(struct v3ds_syncobj *s, struct v3ds_fence *f)
{
	if (f)
		v3ds_fence_get(f);
	v3ds_fence_put(s->fence);
	s->fence = f;
}

static int syncobj_handle_alloc(struct v3ds_open *o, struct v3ds_syncobj *s)
{
	for (uint32_t i = 0; i < o->nr_syncobj_slots; i++) {
		if (!o->syncobjs[i]) {
			o->syncobjs[i] = s;
			return (int)(i + 1);
		}
	}
	uint32_t n = o->nr_syncobj_slots ? o->nr_syncobj_slots * 2 : 32;
	if (n > (1u << 24))
		return -ENOMEM;
	struct v3ds_syncobj **slots = realloc(o->syncobjs, n * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	memset(slots + o->nr_syncobj_slots, 0, (n - o->nr_syncobj_slots) * sizeof(*slots));
	o->syncobjs = slots;
	uint32_t idx = o->nr_syncobj_slots;
	o->nr_syncobj_slots = n;
	o->syncobjs[idx] = s;
	return (int)(idx + 1);
}

/* A fence born signaled (dma_fence_get_stub). */
static struct v3ds_fence *signaled_stub(void)
{
	struct v3ds_fence *f = v3ds_fence_new();
	if (f)
		f->signaled = true;
	return f;
}

int v3ds_ioctl_syncobj_create(struct v3ds_open *o, struct drm_syncobj_create *a)
{
	if (a->flags & ~(uint32_t)DRM_SYNCOBJ_CREATE_SIGNALED)
		return -EINVAL;
	struct v3ds_syncobj *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (a->flags & DRM_SYNCOBJ_CREATE_SIGNALED) {
		s->fence = signaled_stub();
		if (!s->fence) {
			free(s);
			return -ENOMEM;
		}
	}
	int h = syncobj_handle_alloc(o, s);
	if (h < 0) {
		v3ds_fence_put(s->fence);
		free(s);
		return h;
	}
	a->handle = (uint32_t)h;
	return 0;
}

static void syncobj_free(struct v3ds_syncobj *s)
{
	v3ds_fence_put(s->fence);
	free(s);
}

int v3ds_ioctl_syncobj_destroy(struct v3ds_open *o, struct drm_syncobj_destroy *a)
{
	if (a->pad)
		return -EINVAL;
	struct v3ds_syncobj *s = v3ds_syncobj_lookup(o, a->handle);
	if (!s)
		return -EINVAL;
	o->syncobjs[a->handle - 1] = NULL;
	syncobj_free(s);
	return 0;
}

void v3ds_syncobj_destroy_all(struct v3ds_open *o)
{
	for (uint32_t i = 0; i < o->nr_syncobj_slots; i++) {
		if (o->syncobjs[i]) {
			syncobj_free(o->syncobjs[i]);
			o->syncobjs[i] = NULL;
		}
	}
}

/* Resolves a user handle array (drm_syncobj_array_find): -EINVAL count 0, -EFAULT no array,
 * -ENOENT a handle that names nothing. */
static int find_array(struct v3ds_open *o, uint64_t ptr, uint32_t count, struct v3ds_syncobj ***out)
{
	if (count == 0)
		return -EINVAL;
	const uint32_t *handles = (const uint32_t *)(uintptr_t)ptr;
	if (!handles)
		return -EFAULT;
	struct v3ds_syncobj **objs = calloc(count, sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		objs[i] = v3ds_syncobj_lookup(o, handles[i]);
		if (!objs[i]) {
			free(objs);
			return -ENOENT;
		}
	}
	*out = objs;
	return 0;
}

int v3ds_ioctl_syncobj_reset(struct v3ds_open *o, struct drm_syncobj_array *a)
{
	if (a->pad)
		return -EINVAL;
	struct v3ds_syncobj **objs;
	int ret = find_array(o, a->handles, a->count_handles, &objs);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < a->count_handles; i++)
		v3ds_syncobj_replace(objs[i], NULL);
	free(objs);
	return 0;
}

int v3ds_ioctl_syncobj_signal(struct v3ds_open *o, struct drm_syncobj_array *a)
{
	if (a->pad)
		return -EINVAL;
	struct v3ds_syncobj **objs;
	int ret = find_array(o, a->handles, a->count_handles, &objs);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < a->count_handles && !ret; i++) {
		struct v3ds_fence *f = signaled_stub();
		if (!f) {
			ret = -ENOMEM;
			break;
		}
		v3ds_syncobj_replace(objs[i], f);
		v3ds_fence_put(f);
	}
	free(objs);
	pthread_cond_broadcast(&o->dev->done_cond);
	pthread_cond_signal(&o->dev->work_cond);
	return ret;
}

/* drm_syncobj_array_wait_timeout: all (or any) of the syncobjs' fences signaled. The fences are
 * re-read on every wakeup, as the kernel's callbacks would see a replaced fence. */
int v3ds_ioctl_syncobj_wait(struct v3ds_open *o, struct drm_syncobj_wait *a)
{
	const uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	if (a->flags & ~known)
		return -EINVAL; /* WAIT_AVAILABLE needs timeline syncobjs, which v3d lacks */
	if (a->pad)
		return -EINVAL;
	struct v3ds_syncobj **objs;
	int ret = find_array(o, a->handles, a->count_handles, &objs);
	if (ret)
		return ret;
	bool wait_all = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	bool for_submit = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	/* Without WAIT_FOR_SUBMIT a syncobj with no fence is an error at once. */
	if (!for_submit) {
		for (uint32_t i = 0; i < a->count_handles; i++) {
			if (!objs[i]->fence) {
				free(objs);
				return -EINVAL;
			}
		}
	}
	uint64_t deadline = a->timeout_nsec < 0 ? 0 : (uint64_t)a->timeout_nsec;
	struct timespec abs = sim_abs_timespec(deadline);
	/* Syncobjs destroyed while we sleep must not be touched: re-resolve the handles after
	 * every wakeup. */
	const uint32_t *handles = (const uint32_t *)(uintptr_t)a->handles;
	for (;;) {
		uint32_t first = UINT32_MAX, done = 0;
		for (uint32_t i = 0; i < a->count_handles && !ret; i++) {
			struct v3ds_syncobj *s = v3ds_syncobj_lookup(o, handles[i]);
			if (!s)
				ret = -ENOENT;
			else if (s->fence && s->fence->signaled && done++ == 0)
				first = i;
		}
		if (ret)
			break;
		if (wait_all ? done == a->count_handles : done > 0) {
			a->first_signaled = wait_all ? 0 : first;
			break;
		}
		if (sim_now_ns() >= deadline) {
			ret = -ETIME;
			break;
		}
		pthread_cond_timedwait(&o->dev->done_cond, &o->dev->lock, &abs);
	}
	free(objs);
	return ret;
}
