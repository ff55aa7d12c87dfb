/* GEM buffer objects of the simulated msm driver: memfd-backed pages, handles per open, the
 * open's GPU address space (GET_IOVA / SET_IOVA), fake mmap offsets, CPU_PREP against pending
 * submits, MADVISE, GEM_CLOSE, PRIME export (a dup of the memfd: how the host hands BO pages
 * to a guest) and PRIME import of the device's own exports. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim_bo_memfd.h"
#include "sim/sim_handle_slots.h"
#include "sim_msm_priv.h"

struct msms_bo *msms_bo_lookup(struct msms_open *o, uint32_t handle)
{
	if (handle == 0 || handle > o->nr_bo_slots)
		return NULL;
	return o->bos[handle - 1];
}

static void bo_unmap_iova(struct msms_bo *bo)
{
	if (bo->iova) {
		iova_alloc_free(&bo->open->vm, bo->iova);
		bo->iova = 0;
	}
}

void msms_bo_put(struct msms_bo *bo)
{
	if (--bo->refs)
		return;
	/* The GPU mapping lives as long as the object, as a pinned kernel BO would. */
	bo_unmap_iova(bo);
	sim_bo_memfd_release(bo->memfd, bo->map, bo->size);
	free(bo);
}

int msms_bo_get_iova(struct msms_bo *bo, uint64_t *iova)
{
	if (!bo->iova) {
		int ret = iova_alloc_alloc(&bo->open->vm, bo->size, MSMS_PAGE_SIZE, bo, &bo->iova);
		if (ret) {
			bo->iova = 0;
			return ret;
		}
	}
	*iova = bo->iova;
	return 0;
}

static int handle_alloc(struct msms_open *o, struct msms_bo *bo)
{
	for (uint32_t i = 0; i < o->nr_bo_slots; i++) {
		if (!o->bos[i]) {
			o->bos[i] = bo;
			return (int)(i + 1);
		}
	}
	uint32_t idx = o->nr_bo_slots;
	struct msms_bo **slots = sim_handle_slots_grow(o->bos, &o->nr_bo_slots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	o->bos = slots;
	o->bos[idx] = bo;
	return (int)(idx + 1);
}

static void memfd_name(const struct sim_msm_device *dev, char *buf, size_t len)
{
	sim_drm_bo_memfd_name(buf, len, "ferry-msm-bo", dev->serial);
}

/* A BO of o over new pages (import_fd < 0) or over those of import_fd, with its handle. */
static int bo_new(struct msms_open *o, uint64_t size, uint32_t flags, int import_fd, struct msms_bo **out)
{
	struct msms_bo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	int ret;
	if (import_fd < 0) {
		char name[48];
		memfd_name(o->dev, name, sizeof(name));
		ret = sim_bo_memfd_create(name, size, &bo->memfd, &bo->map);
	} else {
		ret = sim_prime_adopt_memfd(import_fd, size, &bo->memfd, &bo->map);
	}
	if (ret) {
		free(bo);
		return ret;
	}
	struct stat st;
	if (fstat(bo->memfd, &st)) {
		ret = -errno;
		sim_bo_memfd_release(bo->memfd, bo->map, size);
		free(bo);
		return ret;
	}
	bo->memfd_dev = st.st_dev;
	bo->memfd_ino = st.st_ino;
	bo->open = o;
	bo->refs = 1;
	bo->size = size;
	bo->flags = flags;
	bo->madv = MSM_MADV_WILLNEED;
	int h = handle_alloc(o, bo);
	if (h < 0) {
		sim_bo_memfd_release(bo->memfd, bo->map, size);
		free(bo);
		return h;
	}
	bo->mmap_offset = o->next_mmap_offset;
	o->next_mmap_offset += size;
	bo->handle = (uint32_t)h;
	*out = bo;
	return 0;
}

int msms_ioctl_gem_new(struct msms_open *o, struct drm_msm_gem_new *a)
{
	if (a->flags & ~MSM_BO_FLAGS)
		return -EINVAL;
	switch (a->flags & MSM_BO_CACHE_MASK) {
	case MSM_BO_CACHED:
	case MSM_BO_WC:
	case MSM_BO_UNCACHED: /* deprecated; the kernel treats it as WC */
	case MSM_BO_CACHED_COHERENT: /* a6xx has cached-coherent */
		break;
	default:
		return -EINVAL; /* no cache mode, or more than one */
	}
	if (a->size == 0 || a->size > MSMS_MAX_BO_SIZE - MSMS_PAGE_SIZE)
		return -EINVAL;
	uint64_t size = (a->size + MSMS_PAGE_SIZE - 1) & ~(uint64_t)(MSMS_PAGE_SIZE - 1);

	struct msms_bo *bo;
	int ret = bo_new(o, size, a->flags, -1, &bo);
	if (ret)
		return ret;
	a->handle = bo->handle;
	return 0;
}

static int set_iova(struct msms_bo *bo, uint64_t iova)
{
	if (iova == 0) {
		bo_unmap_iova(bo);
		return 0;
	}
	if (bo->iova)
		return bo->iova == iova ? 0 : -EBUSY;
	if (iova & (MSMS_PAGE_SIZE - 1))
		return -ENOSPC; /* drm_mm finds no page-aligned hole starting there */
	int ret = iova_alloc_reserve(&bo->open->vm, iova, bo->size, bo);
	if (ret == -ERANGE || ret == -EINVAL)
		return -ENOSPC; /* outside [VA_START, VA_START + VA_SIZE) */
	if (ret)
		return ret; /* -EBUSY: the range is taken */
	bo->iova = iova;
	return 0;
}

int msms_ioctl_gem_info(struct msms_open *o, struct drm_msm_gem_info *a)
{
	if (a->pad)
		return -EINVAL;
	switch (a->info) {
	case MSM_INFO_GET_OFFSET:
	case MSM_INFO_GET_IOVA:
	case MSM_INFO_SET_IOVA:
	case MSM_INFO_GET_FLAGS:
		if (a->len) /* value is immediate */
			return -EINVAL;
		break;
	case MSM_INFO_SET_NAME:
	case MSM_INFO_GET_NAME:
		break;
	default:
		return -EINVAL;
	}
	struct msms_bo *bo = msms_bo_lookup(o, a->handle);
	if (!bo)
		return -ENOENT;
	switch (a->info) {
	case MSM_INFO_GET_OFFSET:
		a->value = bo->mmap_offset;
		return 0;
	case MSM_INFO_GET_IOVA:
		return msms_bo_get_iova(bo, &a->value);
	case MSM_INFO_SET_IOVA:
		return set_iova(bo, a->value);
	case MSM_INFO_GET_FLAGS:
		a->value = bo->flags;
		return 0;
	case MSM_INFO_SET_NAME: {
		if (a->len >= sizeof(bo->name))
			return -EINVAL;
		const char *src = (const char *)(uintptr_t)a->value;
		if (a->len && !src)
			return -EFAULT;
		if (a->len) /* len 0 may come with a NULL value */
			memcpy(bo->name, src, a->len);
		bo->name[a->len] = '\0';
		for (uint32_t i = 0; i < a->len; i++) {
			unsigned char c = (unsigned char)bo->name[i];
			if (c < 0x20 || c > 0x7e) { /* the kernel stops at the first unprintable */
				bo->name[i] = '\0';
				break;
			}
		}
		return 0;
	}
	case MSM_INFO_GET_NAME: {
		size_t n = strlen(bo->name);
		if (a->value && a->len < n)
			return -EINVAL;
		a->len = (uint32_t)n;
		if (a->value)
			memcpy((void *)(uintptr_t)a->value, bo->name, n);
		return 0;
	}
	}
	return -EINVAL;
}

static bool bo_busy(const struct msms_bo *bo, bool write)
{
	return bo->active_writers || (write && bo->active_readers);
}

int msms_ioctl_gem_cpu_prep(struct msms_open *o, struct drm_msm_gem_cpu_prep *a)
{
	if (a->op & ~MSM_PREP_FLAGS)
		return -EINVAL;
	struct msms_bo *bo = msms_bo_lookup(o, a->handle);
	if (!bo)
		return -ENOENT;
	bool write = a->op & MSM_PREP_WRITE;
	if (!bo_busy(bo, write))
		return 0;
	uint64_t deadline = msms_timespec_ns(&a->timeout);
	/* NOSYNC, or a deadline already past, is a zero-length wait: -EBUSY, as 6.1. */
	if ((a->op & MSM_PREP_NOSYNC) || deadline <= sim_now_ns())
		return -EBUSY;
	struct timespec abs = sim_abs_timespec(deadline);
	bo->refs++; /* the handle may be closed while we sleep */
	int ret = 0;
	while (bo_busy(bo, write)) {
		if (pthread_cond_timedwait(&o->dev->done_cond, &o->dev->lock.mutex, &abs) == ETIMEDOUT) {
			ret = bo_busy(bo, write) ? -ETIMEDOUT : 0;
			break;
		}
	}
	msms_bo_put(bo);
	return ret;
}

int msms_ioctl_gem_cpu_fini(struct msms_open *o, struct drm_msm_gem_cpu_fini *a)
{
	/* No cache maintenance to do, as in the kernel; only the handle is checked. */
	return msms_bo_lookup(o, a->handle) ? 0 : -ENOENT;
}

int msms_ioctl_gem_madvise(struct msms_open *o, struct drm_msm_gem_madvise *a)
{
	if (a->madv != MSM_MADV_WILLNEED && a->madv != MSM_MADV_DONTNEED)
		return -EINVAL;
	struct msms_bo *bo = msms_bo_lookup(o, a->handle);
	if (!bo)
		return -ENOENT;
	/* The simulator never purges (no shrinker), so the pages are always retained. */
	bo->madv = a->madv;
	a->retained = 1;
	return 0;
}

int msms_ioctl_gem_close(struct msms_open *o, struct drm_gem_close *a)
{
	struct msms_bo *bo = msms_bo_lookup(o, a->handle);
	if (!bo)
		return -EINVAL; /* drm_gem_handle_delete */
	o->bos[a->handle - 1] = NULL;
	bo->handle = 0;
	msms_bo_put(bo);
	return 0;
}

int msms_ioctl_prime_handle_to_fd(struct msms_open *o, struct drm_prime_handle *a)
{
	struct msms_bo *bo = msms_bo_lookup(o, a->handle);
	return sim_bo_memfd_export(bo ? bo->memfd : -1, a->flags, &a->fd);
}

static bool bo_is(const struct msms_bo *bo, const struct stat *st)
{
	return bo && bo->memfd_dev == st->st_dev && bo->memfd_ino == st->st_ino;
}

/* drm_gem_prime_fd_to_handle: this open's handle when it has the object; else the object comes
 * into this open. With per-process address spaces an msm object is mapped separately in each
 * open, so here it is a new BO of this open over the same pages (its flags copied; implicit
 * sync, i.e. CPU_PREP against the other open's submits, is not shared). Pages of one of this
 * device's BOs that no handle names any more are taken the same way, as MSM_BO_WC as
 * msm_gem_prime_import makes them. Anything else is not one of this device's dma-bufs. */
int msms_ioctl_prime_fd_to_handle(struct msms_open *o, struct drm_prime_handle *a)
{
	struct stat st;
	int ret = sim_prime_fd_stat(a->fd, &st);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < o->nr_bo_slots; i++) {
		if (bo_is(o->bos[i], &st)) {
			a->handle = i + 1;
			return 0;
		}
	}
	const struct msms_bo *src = NULL;
	for (struct msms_open *other = o->dev->opens; other && !src; other = other->next)
		for (uint32_t i = 0; i < other->nr_bo_slots && !src; i++)
			if (bo_is(other->bos[i], &st))
				src = other->bos[i];
	if (!src) {
		char name[48];
		memfd_name(o->dev, name, sizeof(name));
		if (!sim_prime_fd_is_named(a->fd, name))
			return -EINVAL;
	}
	if (st.st_size <= 0 || st.st_size % MSMS_PAGE_SIZE ||
	    (uint64_t)st.st_size > MSMS_MAX_BO_SIZE)
		return -EINVAL;
	struct msms_bo *bo;
	ret = bo_new(o, (uint64_t)st.st_size, src ? src->flags : MSM_BO_WC, a->fd, &bo);
	if (ret)
		return ret;
	a->handle = bo->handle;
	return 0;
}

void *msms_gem_mmap(struct msms_open *o, size_t len, int prot, int flags, uint64_t offset)
{
	for (uint32_t i = 0; i < o->nr_bo_slots; i++) {
		struct msms_bo *bo = o->bos[i];
		if (bo && bo->mmap_offset == offset)
			return sim_bo_memfd_mmap(bo->memfd, bo->size, len, prot, flags);
	}
	errno = EINVAL;
	return MAP_FAILED;
}

void msms_gem_close_all(struct msms_open *o)
{
	for (uint32_t i = 0; i < o->nr_bo_slots; i++) {
		struct msms_bo *bo = o->bos[i];
		if (bo) {
			o->bos[i] = NULL;
			bo->handle = 0;
			msms_bo_put(bo);
		}
	}
}
