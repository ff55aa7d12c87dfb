/* Syncobj fences as real sync files (sync_file.h) for libferry-shim.so: DRM_SYNCOBJ_HANDLE_TO_FD
 * with EXPORT_SYNC_FILE and DRM_SYNCOBJ_FD_TO_HANDLE with IMPORT_SYNC_FILE, as drm_syncobj.c's
 * drm_syncobj_export_sync_file / drm_syncobj_import_sync_file_fence. */
#include <errno.h>

#include "shim_ferry.h"
#include "sync_file.h"

int shim_syncobj_export_sync_file(struct shim_dev *dev, uint32_t handle, int *fd)
{
	struct shim_fence_src src;
	bool has;
	int r = shim_syncobj_peek(dev, handle, &src, &has);
	if (r < 0)
		return r; /* drm_syncobj_find_fence: -ENOENT, or -EINVAL for no fence */
	struct shim_fence *f = NULL;
	if (has && !(f = shim_ferry_fence(src.owner, src.q, src.seqno, ferry_queue_id(src.q))))
		return -ENOMEM;
	r = shim_sync_file_create(f); /* signaled without a fence: the stub */
	shim_fence_put(f);
	if (r < 0)
		return r;
	*fd = r;
	return 0;
}

/* A syncobj here holds one libferry fence: of a file's fences not yet signaled, the last one
 * that is a libferry fence goes in and the others are waited for here (a file of several
 * pending fences comes only from SYNC_IOC_MERGE). */
int shim_syncobj_import_sync_file(struct shim_dev *dev, int fd, uint32_t handle)
{
	struct shim_fence **fs;
	uint32_t n;
	int r = shim_sync_file_fences(fd, &fs, &n);
	if (r < 0)
		return r; /* sync_file_get_fence: not a sync file */
	if (!shim_syncobj_exists(dev, handle)) {
		shim_sync_file_fences_free(fs, n);
		return -ENOENT;
	}
	int keep = -1, err;
	struct shim_fence_src src, kept;
	for (uint32_t i = 0; i < n; i++)
		if (!shim_fence_signaled(fs[i], &err) && shim_ferry_fence_src(fs[i], NULL, &src)) {
			keep = (int)i;
			kept = src;
		}
	for (uint32_t i = 0; i < n; i++)
		if ((int)i != keep)
			shim_fence_wait(fs[i]);
	shim_sync_file_fences_free(fs, n);
	return keep < 0 ? shim_syncobj_signal(dev, handle) : shim_syncobj_attach(dev, handle, kept);
}
