/* Sync files (Linux 6.1 drivers/dma-buf/sync_file.c) for both libraries: real pollable fds that
 * hold fences of either backend, with SYNC_IOC_MERGE and SYNC_IOC_FILE_INFO. */
#ifndef FERRY_SHIM_SYNC_FILE_H
#define FERRY_SHIM_SYNC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a backend's fence is: obj is the backend's own reference, given to the sync file code
 * with the fence and dropped through release once nothing here uses it. */
struct shim_fence_ops {
	const char *driver; /* sync_fence_info.driver_name */
	/* Blocks until the fence has signaled: 0, or the error it signaled with. Called on a
	 * thread of the sync file code, never with a lock of it held. */
	int (*wait)(void *obj);
	/* Called without any lock of the sync file code held, on whichever thread drops the
	 * last reference (possibly inside a backend's ioctl): it must not take a lock such a
	 * caller may hold. */
	void (*release)(void *obj);
};

struct shim_fence; /* refcounted; what a sync file holds */

/* A new fence of a backend (one reference for the caller). context + seqno name it as the
 * kernel's dma_fence does (merges keep one fence per context, the later); timeline is its
 * sync_fence_info.obj_name. NULL on failure (obj stays the caller's). */
struct shim_fence *shim_fence_new(const struct shim_fence_ops *ops, void *obj, uint64_t context, uint32_t seqno,
				  const char *timeline);
/* A fence of ops already signaled with error (0 or < 0), as the backend found it: a sync file of
 * it is ready at once, as the kernel's of a signaled fence. */
struct shim_fence *shim_fence_new_signaled(const struct shim_fence_ops *ops, uint64_t context, uint32_t seqno,
					   const char *timeline, int error);
void shim_fence_put(struct shim_fence *f);
/* The backend object behind f if it is a fence of ops made in this process, else NULL. */
void *shim_fence_obj(const struct shim_fence *f, const struct shim_fence_ops *ops);
/* Non-blocking: true and *error (0 or < 0) once f has signaled. */
bool shim_fence_signaled(struct shim_fence *f, int *error);
/* Blocks until f has signaled; 0 or its error. */
int shim_fence_wait(struct shim_fence *f);

/* A new sync file fd (O_CLOEXEC, as get_unused_fd_flags(O_CLOEXEC)) holding f (NULL: the
 * signaled stub fence, as drm_syncobj exports a signaled syncobj). The caller keeps its
 * reference. -errno on failure. */
int shim_sync_file_create(struct shim_fence *f);
/* The fences of sync file fd (references; free with shim_sync_file_fences_free, which skips
 * entries the caller set to NULL), or -EINVAL when fd is no sync file (sync_file_get_fence
 * failing). A file another process made is one fence here, of a context of its own, carrying
 * the file's status. */
int shim_sync_file_fences(int fd, struct shim_fence ***out, uint32_t *n);
void shim_sync_file_fences_free(struct shim_fence **f, uint32_t n);
/* An ioctl on fd that is not the node: 1 with *ret set (0 or -errno) when fd is a sync file
 * (of any process) and request one of its ioctls, 0 when the kernel should answer. */
int shim_sync_file_ioctl(int fd, unsigned long request, void *arg, int *ret);

#endif
