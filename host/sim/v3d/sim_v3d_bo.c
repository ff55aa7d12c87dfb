/* BOs of the simulated v3d driver: memfd-backed pages mapped at creation into THE global GPU
 * address space (one drm_mm for every open, 128 KiB aligned, page 0 never used), handles per
 * open, fake mmap offsets, WAIT_BO on the BO's last job, GEM_CLOSE, PRIME export (a dup of the
 * memfd) and import (the same object, at the same GPU address, in any open of the device), and
 * the MMU: GPU reads and writes by address, reaching any BO of any open. */
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
#include "sim_v3d_priv.h"

struct v3ds_bo *v3ds_bo_lookup(struct v3ds_open *o, uint32_t handle)
{
	if (handle == 0 || handle > o->nr_bo_slots)
		return NULL;
	return o->bos[handle - 1];
}

void v3ds_bo_get(struct v3ds_bo *bo)
{
	bo->refs++;
}

void v3ds_bo_put(struct v3ds_bo *bo)
{
	if (--bo->refs)
		return;
	/* The PTEs live as long as the object: a job still holding it can reach it. */
	iova_alloc_free(&bo->dev->vm, bo->offset);
	if (bo->resv)
		sim_fence_put(bo->resv);
	sim_bo_memfd_release(bo->memfd, bo->map, bo->size);
	free(bo);
}

static int handle_alloc(struct v3ds_open *o, struct v3ds_bo *bo)
{
	for (uint32_t i = 0; i < o->nr_bo_slots; i++) {
		if (!o->bos[i]) {
			o->bos[i] = bo;
			return (int)(i + 1);
		}
	}
	uint32_t idx = o->nr_bo_slots;
	struct v3ds_bo **slots = sim_handle_slots_grow(o->bos, &o->nr_bo_slots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	o->bos = slots;
	o->bos[idx] = bo;
	return (int)(idx + 1);
}

static void memfd_name(const struct sim_v3d_device *dev, char *buf, size_t len)
{
	sim_drm_bo_memfd_name(buf, len, "ferry-v3d-bo", dev->serial);
}

/* A BO of size bytes (page aligned) at a new GPU address, its pages new (import_fd < 0) or
 * those of import_fd, with one reference and no handle yet. */
static int bo_new(struct sim_v3d_device *dev, uint64_t size, int import_fd, struct v3ds_bo **out)
{
	struct v3ds_bo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	bo->dev = dev;
	uint64_t offset;
	int ret = iova_alloc_alloc(&dev->vm, size, V3DS_GMP_ALIGN, bo, &offset);
	if (ret) {
		free(bo);
		return ret == -ENOMEM ? -ENOMEM : -ENOSPC; /* drm_mm found no hole */
	}
	bo->offset = (uint32_t)offset;
	if (import_fd < 0) {
		char name[48];
		memfd_name(dev, name, sizeof(name));
		ret = sim_bo_memfd_create(name, size, &bo->memfd, &bo->map);
	} else {
		ret = sim_prime_adopt_memfd(import_fd, size, &bo->memfd, &bo->map);
	}
	struct stat st;
	if (!ret && fstat(bo->memfd, &st)) {
		ret = -errno;
		sim_bo_memfd_release(bo->memfd, bo->map, size);
	}
	if (ret) {
		iova_alloc_free(&dev->vm, bo->offset);
		free(bo);
		return ret;
	}
	bo->memfd_dev = st.st_dev;
	bo->memfd_ino = st.st_ino;
	bo->size = size;
	bo->refs = 1;
	bo->mmap_offset = dev->next_mmap_offset;
	dev->next_mmap_offset += size;
	*out = bo;
	return 0;
}

int v3ds_ioctl_create_bo(struct v3ds_open *o, struct drm_v3d_create_bo *a)
{
	if (a->flags != 0)
		return -EINVAL;
	if (a->size == 0)
		return -EINVAL;
	uint64_t size = ((uint64_t)a->size + V3DS_PAGE_SIZE - 1) & ~(uint64_t)(V3DS_PAGE_SIZE - 1);
	struct v3ds_bo *bo;
	int ret = bo_new(o->dev, size, -1, &bo);
	if (ret)
		return ret;
	int h = handle_alloc(o, bo);
	if (h < 0) {
		v3ds_bo_put(bo);
		return h;
	}
	a->handle = (uint32_t)h;
	a->offset = bo->offset;
	return 0;
}

int v3ds_ioctl_mmap_bo(struct v3ds_open *o, struct drm_v3d_mmap_bo *a)
{
	if (a->flags != 0)
		return -EINVAL;
	struct v3ds_bo *bo = v3ds_bo_lookup(o, a->handle);
	if (!bo)
		return -ENOENT;
	a->offset = bo->mmap_offset;
	return 0;
}

int v3ds_ioctl_get_bo_offset(struct v3ds_open *o, struct drm_v3d_get_bo_offset *a)
{
	struct v3ds_bo *bo = v3ds_bo_lookup(o, a->handle);
	if (!bo)
		return -ENOENT;
	a->offset = bo->offset;
	return 0;
}

static bool bo_busy(const struct v3ds_bo *bo)
{
	return bo->resv && !bo->resv->signaled;
}

int v3ds_ioctl_wait_bo(struct v3ds_open *o, struct drm_v3d_wait_bo *a)
{
	if (a->pad != 0)
		return -EINVAL;
	uint64_t start = sim_now_ns();
	struct v3ds_bo *bo = v3ds_bo_lookup(o, a->handle);
	if (!bo)
		return -EINVAL; /* drm_gem_dma_resv_wait */
	int ret = 0;
	if (bo_busy(bo)) {
		uint64_t deadline = a->timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + a->timeout_ns;
		struct timespec abs = sim_abs_timespec(deadline);
		v3ds_bo_get(bo); /* the handle may be closed while we sleep */
		while (bo_busy(bo)) {
			if (a->timeout_ns == 0 ||
			    pthread_cond_timedwait(&o->dev->done_cond, &o->dev->lock.mutex, &abs) == ETIMEDOUT) {
				ret = bo_busy(bo) ? -ETIME : 0;
				break;
			}
		}
		v3ds_bo_put(bo);
	}
	/* The kernel takes the elapsed time off the caller's timeout (for a restarted ioctl). */
	uint64_t spent = sim_now_ns() - start;
	a->timeout_ns = spent < a->timeout_ns ? a->timeout_ns - spent : 0;
	/* Asked to wait past the scheduler's precision and still time left: -EAGAIN, as 6.1. */
	if (ret == -ETIME && a->timeout_ns)
		ret = -EAGAIN;
	return ret;
}

int v3ds_ioctl_gem_close(struct v3ds_open *o, struct drm_gem_close *a)
{
	struct v3ds_bo *bo = v3ds_bo_lookup(o, a->handle);
	if (!bo)
		return -EINVAL; /* drm_gem_handle_delete */
	o->bos[a->handle - 1] = NULL;
	v3ds_bo_put(bo);
	return 0;
}

int v3ds_ioctl_prime_handle_to_fd(struct v3ds_open *o, struct drm_prime_handle *a)
{
	struct v3ds_bo *bo = v3ds_bo_lookup(o, a->handle);
	return sim_bo_memfd_export(bo ? bo->memfd : -1, a->flags, &a->fd);
}

static bool bo_is(const struct v3ds_bo *bo, const struct stat *st)
{
	return bo && bo->memfd_dev == st->st_dev && bo->memfd_ino == st->st_ino;
}

/* drm_gem_prime_fd_to_handle: this open's handle when it has one for the object; else a new
 * handle to the same object when another open has it; else, for pages of one of this device's
 * BOs that no handle names any more, a new object over them (the kernel would still have the
 * old one, kept by its dma-buf: only its GPU address differs here). Anything else is not one
 * of this device's dma-bufs: -EINVAL. */
int v3ds_ioctl_prime_fd_to_handle(struct v3ds_open *o, struct drm_prime_handle *a)
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
	struct v3ds_bo *bo = NULL;
	for (struct v3ds_open *other = o->dev->opens; other && !bo; other = other->next)
		for (uint32_t i = 0; i < other->nr_bo_slots && !bo; i++)
			if (bo_is(other->bos[i], &st))
				bo = other->bos[i];
	if (bo) {
		v3ds_bo_get(bo);
	} else {
		char name[48];
		memfd_name(o->dev, name, sizeof(name));
		if (!sim_prime_fd_is_named(a->fd, name) || st.st_size <= 0 || st.st_size % V3DS_PAGE_SIZE)
			return -EINVAL;
		ret = bo_new(o->dev, (uint64_t)st.st_size, a->fd, &bo);
		if (ret)
			return ret;
	}
	int h = handle_alloc(o, bo);
	if (h < 0) {
		v3ds_bo_put(bo);
		return h;
	}
	a->handle = (uint32_t)h;
	return 0;
}

void *v3ds_gem_mmap(struct v3ds_open *o, size_t len, int prot, int flags, uint64_t offset)
{
	for (uint32_t i = 0; i < o->nr_bo_slots; i++) {
		struct v3ds_bo *bo = o->bos[i];
		if (bo && bo->mmap_offset == offset)
			return sim_bo_memfd_mmap(bo->memfd, bo->size, len, prot, flags);
	}
	errno = EINVAL;
	return MAP_FAILED;
}

void v3ds_gem_close_all(struct v3ds_open *o)
{
	for (uint32_t i = 0; i < o->nr_bo_slots; i++) {
		if (o->bos[i]) {
			struct v3ds_bo *bo = o->bos[i];
			o->bos[i] = NULL;
			v3ds_bo_put(bo);
		}
	}
}

/* --- the MMU --- */

/* The BO bytes behind [addr, addr + len), or NULL when the range leaves the BO holding addr. */
static uint8_t *translate(struct sim_v3d_device *dev, uint32_t addr, uint32_t len)
{
	const struct iova_range *r = iova_alloc_find(&dev->vm, addr);
	if (!r)
		return NULL;
	const struct v3ds_bo *bo = r->owner;
	uint64_t off = (uint64_t)addr - r->start;
	if (off > bo->size || (uint64_t)len > bo->size - off)
		return NULL;
	return bo->map + off;
}

int v3ds_mmu_read(struct sim_v3d_device *dev, uint32_t addr, void *dst, uint32_t len)
{
	const uint8_t *p = translate(dev, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(dst, p, len);
	return 0;
}

int v3ds_mmu_write(struct sim_v3d_device *dev, uint32_t addr, const void *src, uint32_t len)
{
	uint8_t *p = translate(dev, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(p, src, len);
	return 0;
}

bool v3ds_mmu_mapped(struct sim_v3d_device *dev, uint32_t addr)
{
	return translate(dev, addr, 1) != NULL;
}
