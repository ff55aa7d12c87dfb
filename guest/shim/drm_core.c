/* The DRM core ioctls a render node answers (drm_ioctl.c, drm_prime.c, drm_syncobj.c), for the
 * ferry shim: identity and caps from the served GPU, GEM handles and syncobjs from this open. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "shim_ferry.h"

/* DRM_IOCTL_VERSION: the kernel copies min(user length, actual) and reports the actual. */
static void copy_str(uint64_t ptr, size_t *user_len, const char *s)
{
	size_t n = strlen(s);
	if (ptr && *user_len)
		memcpy((void *)(uintptr_t)ptr, s, n < *user_len ? n : *user_len);
	*user_len = n;
}

static int core_version(struct shim_dev *dev, struct drm_version *v)
{
	bool msm = dev->family == SHIM_FAMILY_MSM;
	v->version_major = msm ? MSM_DRIVER_MAJOR : V3D_DRIVER_MAJOR;
	v->version_minor = msm ? MSM_DRIVER_MINOR : V3D_DRIVER_MINOR;
	v->version_patchlevel = msm ? MSM_DRIVER_PATCHLEVEL : V3D_DRIVER_PATCHLEVEL;
	copy_str((uintptr_t)v->name, &v->name_len, msm ? MSM_DRIVER_NAME : V3D_DRIVER_NAME);
	copy_str((uintptr_t)v->date, &v->date_len, msm ? MSM_DRIVER_DATE : V3D_DRIVER_DATE);
	copy_str((uintptr_t)v->desc, &v->desc_len, msm ? MSM_DRIVER_DESC : V3D_DRIVER_DESC);
	return 0;
}

static int core_get_cap(const struct shim_dev *dev, struct drm_get_cap *c)
{
	switch (c->capability) {
	case DRM_CAP_TIMESTAMP_MONOTONIC: c->value = 1; return 0;
	case DRM_CAP_PRIME: c->value = DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT; return 0;
	case DRM_CAP_SYNCOBJ: c->value = 1; return 0;
	/* Offered on both GPUs (6.1's msm and v3d lack DRIVER_SYNCOBJ_TIMELINE). */
	case DRM_CAP_SYNCOBJ_TIMELINE: c->value = 1; return 0;
	}
	/* The other caps are KMS ones: drm_getcap refuses them -EOPNOTSUPP for a driver without
	 * DRIVER_MODESET (v3d); msm has one, and answers as the fake kernel's (no display: -EINVAL). */
	c->value = 0;
	return dev->family == SHIM_FAMILY_MSM ? -EINVAL : -EOPNOTSUPP;
}

static int core_gem_close(struct shim_dev *dev, struct drm_gem_close *c)
{
	pthread_mutex_lock(&dev->lock);
	struct shim_bo *b = shim_bo_lookup(dev, c->handle);
	if (b)
		dev->bos[c->handle] = NULL;
	pthread_mutex_unlock(&dev->lock);
	if (!b)
		return -EINVAL;
	ferry_bo_close(b->bo);
	free(b);
	return 0;
}

static int core_prime_to_fd(struct shim_dev *dev, struct drm_prime_handle *p)
{
	if (p->flags & ~(uint32_t)(DRM_CLOEXEC | DRM_RDWR))
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	struct shim_bo *b = shim_bo_lookup(dev, p->handle);
	struct ferry_bo *bo = b ? b->bo : NULL;
	pthread_mutex_unlock(&dev->lock);
	if (!bo)
		return -ENOENT;
	int fd = ferry_bo_fd(bo);
	if (fd < 0)
		return fd;
	int d = fcntl(fd, (p->flags & DRM_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
	if (d < 0)
		return -errno;
	p->fd = d;
	return 0;
}

/* Import: this open's own handle when it has the object already (the kernel's dedup), else the
 * BO comes in from whichever context of ferryd holds it (another open, another process): ferryd
 * recognises the fd as a BO's pages, never an id the guest names. */
static int core_prime_from_fd(struct shim_dev *dev, struct drm_prime_handle *p)
{
	struct stat want;
	if (fstat(p->fd, &want) < 0)
		return -EBADF;
	pthread_mutex_lock(&dev->lock);
	uint32_t n = dev->nr_bo_slots;
	pthread_mutex_unlock(&dev->lock);
	for (uint32_t h = 1; h < n; h++) {
		pthread_mutex_lock(&dev->lock);
		struct shim_bo *b = h < dev->nr_bo_slots ? dev->bos[h] : NULL;
		struct ferry_bo *bo = b ? b->bo : NULL;
		pthread_mutex_unlock(&dev->lock);
		int fd = bo ? ferry_bo_fd(bo) : -1;
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == want.st_ino && st.st_dev == want.st_dev) {
			p->handle = h;
			return 0;
		}
	}
	struct ferry_bo *bo;
	int r = ferry_bo_import(dev->ctx, p->fd, &bo);
	if (r < 0) {
		shim_log(false, "PRIME import refused by ferryd: %s", ferry_device_last_error(shim_ferry_device()));
		/* EEXIST cannot happen after the search above but for a race with another import
		 * of the same fd on this open: the kernel would give the same handle; say EINVAL. */
		return r == -EEXIST ? -EINVAL : r;
	}
	/* Filled in before the handle exists (the import waited for the address): V3D's
	 * GET_BO_OFFSET answers from this table. An imported msm object is write-combined, as
	 * msm_gem_prime_import makes it. */
	struct shim_bo *b = calloc(1, sizeof(*b));
	if (!b) {
		ferry_bo_close(bo);
		return -ENOMEM;
	}
	b->bo = bo;
	b->size = ferry_bo_size(bo);
	b->flags = dev->family == SHIM_FAMILY_MSM ? MSM_BO_WC : 0;
	ferry_bo_iova(bo, &b->iova);
	pthread_mutex_lock(&dev->lock);
	r = shim_slot_alloc((void ***)&dev->bos, &dev->nr_bo_slots, b, &p->handle);
	pthread_mutex_unlock(&dev->lock);
	if (r < 0) {
		free(b);
		ferry_bo_close(bo);
	}
	return r;
}

/* Counts as drm_syncobj_array_find bounds them (kmalloc_array past KMALLOC_MAX_SIZE: -ENOMEM),
 * so a hostile count never sizes an allocation. */
#define SHIM_SYNCOBJ_MAX_ARRAY ((4u << 20) / sizeof(void *))

static int core_syncobj_wait(struct shim_dev *dev, struct drm_syncobj_wait *w)
{
	uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	if (w->flags & ~known)
		return -EINVAL;
	if (w->count_handles == 0)
		return -EINVAL; /* 6.1 does not look at pad here */
	if (w->count_handles > SHIM_SYNCOBJ_MAX_ARRAY)
		return -ENOMEM;
	const uint32_t *handles = (const uint32_t *)(uintptr_t)w->handles;
	if (!handles)
		return -EFAULT;
	return shim_syncobj_wait(dev, handles, w->count_handles, w->timeout_nsec, w->flags, &w->first_signaled);
}

static int syncobj_array(struct shim_dev *dev, struct drm_syncobj_array *a, int (*op)(struct shim_dev *, uint32_t))
{
	if (a->pad || a->count_handles == 0)
		return -EINVAL;
	const uint32_t *h = (const uint32_t *)(uintptr_t)a->handles;
	if (!h)
		return -EFAULT;
	/* The kernel looks every handle up before touching any. */
	for (uint32_t i = 0; i < a->count_handles; i++)
		if (!shim_syncobj_exists(dev, h[i]))
			return -ENOENT;
	for (uint32_t i = 0; i < a->count_handles; i++) {
		op(dev, h[i]);
		shim_syncobj_push(dev, h[i]);
	}
	return 0;
}

static int timeline_wait(struct shim_dev *dev, struct drm_syncobj_timeline_wait *w)
{
	uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
			 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	if (w->flags & ~known)
		return -EINVAL;
	if (w->count_handles == 0)
		return -EINVAL; /* 6.1 does not look at pad */
	if (w->count_handles > SHIM_SYNCOBJ_MAX_ARRAY)
		return -ENOMEM;
	const uint32_t *handles = (const uint32_t *)(uintptr_t)w->handles;
	if (!handles)
		return -EFAULT;
	/* A NULL points array is every point 0, as the kernel takes it. */
	return shim_syncobj_shared_wait(dev, handles, (const uint64_t *)(uintptr_t)w->points, w->count_handles,
					w->timeout_nsec, w->flags, &w->first_signaled);
}

static int timeline_array(struct shim_dev *dev, struct drm_syncobj_timeline_array *a, bool query)
{
	if (query ? (a->flags & ~(uint32_t)DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED) : a->flags)
		return -EINVAL;
	if (a->count_handles == 0)
		return -EINVAL;
	if (a->count_handles > SHIM_SYNCOBJ_MAX_ARRAY)
		return -ENOMEM;
	const uint32_t *h = (const uint32_t *)(uintptr_t)a->handles;
	if (!h)
		return -EFAULT;
	uint64_t *points = (uint64_t *)(uintptr_t)a->points;
	if (!query) {
		int r = shim_syncobj_timeline_signal(dev, h, points, a->count_handles);
		for (uint32_t i = 0; r == 0 && i < a->count_handles; i++)
			shim_syncobj_push(dev, h[i]);
		return r;
	}
	for (uint32_t i = 0; i < a->count_handles; i++)
		if (!shim_syncobj_exists(dev, h[i]))
			return -ENOENT;
	for (uint32_t i = 0; i < a->count_handles; i++)
		shim_syncobj_pull(dev, h[i]);
	return points ? shim_syncobj_query(dev, h, points, a->count_handles, a->flags) : -EFAULT;
}

/* As drm_ioctl: dispatch on the number, so a newer libdrm whose struct grew (drm_syncobj_wait
 * gained deadline_nsec after 6.1) reaches the same handler with its tail ignored. */
int shim_core_ioctl(struct shim_dev *dev, unsigned long request, void *arg, int *ret)
{
	unsigned nr = _IOC_NR(request);
	if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END)
		return 0;
	const struct ferry_ioctl *io = ferry_ioctl_find(FERRY_IOCTL_CORE, nr);
	if (!io) {
		shim_log(false, "DRM core ioctl 0x%lx (nr 0x%x) is not offered on this node", request, nr);
		*ret = ferry_drm_core_unoffered_call(request, arg); /* as the kernel answers a render client */
		return 1;
	}
	if (!arg) {
		*ret = -EFAULT;
		return 1;
	}
	union {
		struct drm_version version;
		struct drm_get_cap cap;
		struct drm_gem_close gem_close;
		struct drm_prime_handle prime;
		struct drm_syncobj_create create;
		struct drm_syncobj_destroy destroy;
		struct drm_syncobj_handle handle;
		struct drm_syncobj_wait wait;
		struct drm_syncobj_array array;
		struct drm_syncobj_timeline_wait timeline_wait;
		struct drm_syncobj_timeline_array timeline_array;
		struct drm_syncobj_transfer transfer;
	} k;
	if (ferry_ioctl_size(io) > sizeof(k)) {
		*ret = -EINVAL;
		return 1;
	}
	shim_ioctl_copy_in(request, arg, &k, ferry_ioctl_size(io));
	switch (nr) {
	case _IOC_NR(DRM_IOCTL_VERSION): *ret = core_version(dev, &k.version); break;
	case _IOC_NR(DRM_IOCTL_GET_CAP): *ret = core_get_cap(dev, &k.cap); break;
	case _IOC_NR(DRM_IOCTL_GEM_CLOSE): *ret = core_gem_close(dev, &k.gem_close); break;
	case _IOC_NR(DRM_IOCTL_PRIME_HANDLE_TO_FD): *ret = core_prime_to_fd(dev, &k.prime); break;
	case _IOC_NR(DRM_IOCTL_PRIME_FD_TO_HANDLE): *ret = core_prime_from_fd(dev, &k.prime); break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_CREATE):
		*ret = (k.create.flags & ~(uint32_t)DRM_SYNCOBJ_CREATE_SIGNALED)
			       ? -EINVAL
			       : shim_syncobj_create(dev, k.create.flags & DRM_SYNCOBJ_CREATE_SIGNALED, &k.create.handle);
		break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY):
		*ret = k.destroy.pad ? -EINVAL : shim_syncobj_destroy(dev, k.destroy.handle);
		break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD):
		*ret = k.handle.pad ? -EINVAL : shim_syncobj_to_fd(dev, k.handle.handle, k.handle.flags, &k.handle.fd);
		break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE):
		*ret = k.handle.pad ? -EINVAL
				    : shim_syncobj_from_fd(dev, k.handle.fd, k.handle.flags, &k.handle.handle);
		break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT): *ret = core_syncobj_wait(dev, &k.wait); break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET): *ret = syncobj_array(dev, &k.array, shim_syncobj_reset); break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_SIGNAL): *ret = syncobj_array(dev, &k.array, shim_syncobj_signal); break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT): *ret = timeline_wait(dev, &k.timeline_wait); break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_QUERY): *ret = timeline_array(dev, &k.timeline_array, true); break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL): *ret = timeline_array(dev, &k.timeline_array, false); break;
	case _IOC_NR(DRM_IOCTL_SYNCOBJ_TRANSFER):
		if (k.transfer.pad) {
			*ret = -EINVAL;
			break;
		}
		shim_syncobj_pull(dev, k.transfer.src_handle);
		*ret = shim_syncobj_transfer(dev, k.transfer.src_handle, k.transfer.src_point, k.transfer.dst_handle,
					     k.transfer.dst_point, k.transfer.flags);
		if (*ret == 0)
			shim_syncobj_push(dev, k.transfer.dst_handle);
		break;
	}
	/* drm_ioctl copies back whatever the handler returned (VERSION's lengths, a wait's
	 * first_signaled). */
	shim_ioctl_copy_out(io, request, arg, &k);
	return 1;
}
