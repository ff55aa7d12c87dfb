/* libferry-shim.so's backend: the node is ferryd's GPU. The process holds one connection
 * (FERRY_SOCKET, else libferry's default path); each open of the node is one ferry context. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <drm.h>

#include "ferry/array.h"
#include "ferry/uapi/ioctl_table.h"
#include "shim_ferry.h"

static struct ferry_device *g_dev;

struct ferry_device *shim_ferry_device(void)
{
	return g_dev;
}

int shim_backend_identify(struct shim_identity *out)
{
	int r = ferry_device_open(NULL, &g_dev);
	if (r < 0) {
		char path[256] = "";
		ferry_default_socket_path(path, sizeof(path));
		const char *env = getenv("FERRY_SOCKET");
		shim_log(true, "cannot reach ferryd at %s: %s", env && *env ? env : path, strerror(-r));
		return r;
	}
	uint32_t family;
	const char *name;
	r = ferry_device_info(g_dev, &family, &name);
	if (r == 0 && family != FERRY_FAMILY_MSM && family != FERRY_FAMILY_V3D) {
		shim_log(true, "ferryd serves GPU family %u, which the shim does not know", family);
		r = -ENODEV;
	} else if (r < 0) {
		shim_log(true, "ferryd did not describe its GPU: %s", ferry_device_last_error(g_dev));
	}
	if (r < 0) {
		ferry_device_close(g_dev);
		g_dev = NULL;
		return r;
	}
	out->family = family == FERRY_FAMILY_MSM ? SHIM_FAMILY_MSM : SHIM_FAMILY_V3D;
	snprintf(out->gpu, sizeof(out->gpu), "%s", name);
	return 0;
}

int shim_backend_open(struct shim_dev **out)
{
	const struct shim_identity *id = shim_identity();
	if (!id)
		return -ENODEV;
	struct shim_dev *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	pthread_mutex_init(&dev->lock, NULL);
	dev->family = id->family;
	/* Validated unless the operator lets this guest through (ferryd --allow-passthrough). */
	const char *pol = getenv("FERRY_POLICY");
	uint32_t policy = pol && strcmp(pol, "passthrough") == 0 ? FERRY_POLICY_PASSTHROUGH : FERRY_POLICY_VALIDATED;
	int r = ferry_context_create(g_dev, id->family == SHIM_FAMILY_MSM ? FERRY_FAMILY_MSM : FERRY_FAMILY_V3D,
				     policy, &dev->ctx);
	if (r < 0) {
		shim_log(true, "ferryd refused a context: %s", ferry_device_last_error(g_dev));
		pthread_mutex_destroy(&dev->lock);
		free(dev);
		return r;
	}
	*out = dev;
	return 0;
}

void shim_backend_close(struct shim_dev *dev)
{
	/* Syncobjs and sync files let go of this open's fences before its queues go. */
	shim_ferry_fences_release(dev, NULL);
	shim_syncobj_release_dev(dev);
	shim_syncobj_destroy_all(dev);
	shim_external_close(dev);
	if (dev->family == SHIM_FAMILY_MSM)
		shim_msm_close(dev);
	else
		shim_v3d_close(dev);
	for (uint32_t i = 1; i < dev->nr_bo_slots; i++) {
		if (dev->bos[i]) {
			ferry_bo_close(dev->bos[i]->bo);
			free(dev->bos[i]);
		}
	}
	free(dev->bos);
	ferry_context_destroy(dev->ctx);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

int shim_backend_ioctl(struct shim_dev *dev, unsigned long request, void *arg)
{
	int ret = arg ? shim_not_offered(dev->family, request, arg) : 0;
	if (ret == 0 && shim_core_ioctl(dev, request, arg, &ret)) {
		shim_offer_fixup(request, arg, ret);
		return ret;
	}
	if (ret == 0 && !arg) {
		/* As drm_ioctl: a number the driver lacks is -EINVAL before anything is copied. */
		unsigned nr = _IOC_NR(request);
		enum ferry_ioctl_family fam = dev->family == SHIM_FAMILY_MSM ? FERRY_IOCTL_MSM : FERRY_IOCTL_V3D;
		return nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END && !ferry_ioctl_find(fam, nr) ? -EINVAL : -EFAULT;
	}
	if (ret == 0)
		ret = dev->family == SHIM_FAMILY_MSM ? shim_msm_ioctl(dev, request, arg) : shim_v3d_ioctl(dev, request, arg);
	if (ret < 0 && shim_is_submit(dev->family, request))
		shim_syncobj_submit_failed(dev);
	return ret;
}

/* Fake offsets carry the handle in the high half, as no BO reaches 4 GiB here. */
uint64_t shim_bo_mmap_offset(uint32_t handle)
{
	return (uint64_t)handle << 32;
}

void *shim_backend_mmap(struct shim_dev *dev, void *addr, size_t len, int prot, int flags, off_t offset)
{
	uint64_t off = (uint64_t)offset;
	uint32_t handle = (uint32_t)(off >> 32);
	uint64_t within = off & 0xffffffffu;
	pthread_mutex_lock(&dev->lock);
	struct shim_bo *b = shim_bo_lookup(dev, handle);
	struct ferry_bo *bo = b ? b->bo : NULL;
	uint64_t size = b ? b->size : 0;
	pthread_mutex_unlock(&dev->lock);
	/* As drm_gem_mmap's exact lookup: only a BO's own offset, for at most its size; anything
	 * else is EINVAL. */
	if (!bo || len == 0 || within != 0 || len > size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	/* Over tcp this makes ferryd mirror the BO (its bytes arrive before the call returns);
	 * locally it is the library's own mapping, made once. */
	void *lib_map;
	int r = ferry_bo_map(bo, &lib_map);
	if (r < 0) {
		errno = -r;
		return MAP_FAILED;
	}
	int fd = ferry_bo_fd(bo);
	if (fd < 0) {
		errno = -fd;
		return MAP_FAILED;
	}
	/* BOs are shared memory: a private mapping would hide the GPU's writes. */
	return mmap(addr, len, prot, (flags & ~MAP_PRIVATE) | MAP_SHARED, fd, 0);
}

uint32_t shim_fault_count(struct shim_dev *dev, uint32_t queue_id, bool only_queue)
{
	/* A lost connection to ferryd (its board died) is one more fault on every queue: the
	 * driver's next fault check after a wait declares the device lost, as for a GPU fault. */
	uint32_t n = ferry_device_poll_events(g_dev) < 0 ? 1 : 0;
	const struct ferry_fault_info *f;
	unsigned reports = 0;
	for (; (f = ferry_context_fault(dev->ctx, reports)) != NULL; reports++)
		if (!only_queue || f->queue_id == queue_id)
			n++;
	/* A submit ferryd refused ends like one that faulted: the driver's fault query is how it
	 * learns its device is lost (Turnip compares MSM_PARAM_FAULTS after every wait). */
	n += ferry_context_refusals(dev->ctx, queue_id, only_queue);
	/* Lost with no report here yet: over tcp ferryd sends the fence page's state (the loss)
	 * ahead of frames it held behind BO data, its FAULT_REPORT among them, so a wait can end
	 * on the loss first. msm counts a fault before it signals the fences (recover_worker), so
	 * the count moves now; the report, once read, takes this one's place. */
	if (n == 0 && reports == 0 && !only_queue && ferry_context_lost(dev->ctx))
		n = 1;
	return n;
}

int shim_slot_alloc(void ***slots, uint32_t *nr, void *item, uint32_t *index)
{
	uint32_t i = 1;
	while (i < *nr && (*slots)[i])
		i++;
	if (i >= *nr) {
		/* Slot 0 stays unused: handle 0 means none. */
		if (FERRY_ARRAY_RESERVE(*slots, *nr, (size_t)i + 1, 16))
			return -ENOMEM;
	}
	(*slots)[i] = item;
	*index = i;
	return 0;
}

struct shim_bo *shim_bo_lookup(struct shim_dev *dev, uint32_t handle)
{
	return handle > 0 && handle < dev->nr_bo_slots ? dev->bos[handle] : NULL;
}

struct ferry_bo *shim_bo_get(struct shim_dev *dev, uint32_t handle, uint64_t *size, uint64_t *iova)
{
	pthread_mutex_lock(&dev->lock);
	struct shim_bo *b = shim_bo_lookup(dev, handle);
	struct ferry_bo *bo = b ? b->bo : NULL;
	if (size)
		*size = b ? b->size : 0;
	if (iova)
		*iova = b ? b->iova : 0;
	pthread_mutex_unlock(&dev->lock);
	return bo;
}

struct ferry_queue *shim_queue_get(struct shim_dev *dev, struct ferry_queue **slot, uint32_t kind, uint32_t prio)
{
	pthread_mutex_lock(&dev->lock);
	struct ferry_queue *q = *slot;
	pthread_mutex_unlock(&dev->lock);
	if (q)
		return q;
	struct ferry_queue *made;
	if (ferry_queue_create_kind(dev->ctx, kind, prio, &made) < 0)
		return NULL;
	/* Two threads may race here: one queue wins, the other is dropped. */
	pthread_mutex_lock(&dev->lock);
	if (!*slot) {
		*slot = made;
		made = NULL;
	}
	q = *slot;
	pthread_mutex_unlock(&dev->lock);
	if (made)
		ferry_queue_close(made);
	return q;
}

int shim_bo_add(struct shim_dev *dev, struct ferry_bo *bo, uint32_t flags, uint32_t *handle)
{
	struct shim_bo *b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->bo = bo;
	b->size = ferry_bo_size(bo);
	b->flags = flags;
	pthread_mutex_lock(&dev->lock);
	int r = shim_slot_alloc((void ***)&dev->bos, &dev->nr_bo_slots, b, handle);
	pthread_mutex_unlock(&dev->lock);
	if (r < 0)
		free(b);
	return r;
}

int64_t shim_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t shim_timeout_from_abs(int64_t abs_ns)
{
	int64_t now = shim_now_ns();
	return abs_ns <= now ? 0 : abs_ns - now;
}

/* ferryd keeps the kernel's crash state to itself (fault reports): the node has no devcoredump. */
int shim_backend_devcd_list(unsigned *ids, int max)
{
	(void)ids;
	(void)max;
	return 0;
}

int shim_backend_devcd_read(unsigned id, char **text, size_t *len)
{
	return shim_backend_devcd_take(id, text, len);
}

int shim_backend_devcd_take(unsigned id, char **text, size_t *len)
{
	(void)id;
	(void)text;
	(void)len;
	return -ENOENT;
}
