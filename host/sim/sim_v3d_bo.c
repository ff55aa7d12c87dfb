/* BOs of the simulated v3d driver: memfd-backed pages mapped at creation into THE global GPU
 * address space (one drm_mm for every open, 128 KiB aligned, page 0 never used), handles per
 * open, fake mmap offsets, WAIT_BO on the BO's last job, GEM_CLOSE, PRIME export (a dup of the
 * memfd), and the MMU: GPU reads and writes by address, reaching any BO of any open. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sim_bo_memfd.h"
#include "sim_handle_slots.h"
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
		v3ds_fence_put(bo->resv);
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

int v3ds_ioctl_create_bo(struct v3ds_open *o, struct drm_v3d_create_bo *a)
{
	if (a->flags != 0)
		return -EINVAL;
	if (a->size == 0)
		return -EINVAL;
	uint64_t size = ((uint64_t)a->size + V3DS_PAGE_SIZE - 1) & ~(uint64_t)(V3DS_PAGE_SIZE - 1);
	struct v3ds_bo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	bo->dev = o->dev;
	uint64_t offset;
	int ret = iova_alloc_alloc(&o->dev->vm, size, V3DS_GMP_ALIGN, bo, &offset);
	if (ret) {
		free(bo);
		return ret == -ENOMEM ? -ENOMEM : -ENOSPC; /* drm_mm found no hole */
	}
	bo->offset = (uint32_t)offset;
	ret = sim_bo_memfd_create("ferry-v3d-bo", size, &bo->memfd, &bo->map);
	if (ret)
		goto fail_range;
	bo->size = size;
	bo->refs = 1;
	int h = handle_alloc(o, bo);
	if (h < 0) {
		ret = h;
		sim_bo_memfd_release(bo->memfd, bo->map, size);
		goto fail_range;
	}
	bo->mmap_offset = o->dev->next_mmap_offset;
	o->dev->next_mmap_offset += size;
	a->handle = (uint32_t)h;
	a->offset = bo->offset;
	return 0;
fail_range:
	iova_alloc_free(&o->dev->vm, bo->offset);
	free(bo);
	return ret;
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
			    pthread_cond_timedwait(&o->dev->done_cond, &o->dev->lock, &abs) == ETIMEDOUT) {
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
