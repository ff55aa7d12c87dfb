/* Syncobj fences as real sync files (sync_file.h) for libferry-shim.so: DRM_SYNCOBJ_HANDLE_TO_FD
 * with EXPORT_SYNC_FILE and DRM_SYNCOBJ_FD_TO_HANDLE with IMPORT_SYNC_FILE, as drm_syncobj.c's
 * drm_syncobj_export_sync_file / drm_syncobj_import_sync_file_fence. */
#include <errno.h>
#include <stdlib.h>

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

/* A syncobj here holds one libferry fence. A file of several pending ones (SYNC_IOC_MERGE makes
 * them) is joined on msm by an empty submit on the open's join queue with them as in-fences,
 * whose fence the syncobj gets: nothing blocks. Fences an in-fence cannot name (another open's,
 * or any on V3D, whose submits carry no empty job) are waited for here instead. */
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
	struct ferry_fence_ref *refs = calloc(n ? n : 1, sizeof(*refs));
	if (!refs) {
		shim_sync_file_fences_free(fs, n);
		return -ENOMEM;
	}
	uint32_t nrefs = 0, last_i = 0;
	struct shim_fence_src src, last = { 0 };
	bool msm = dev->family == SHIM_FAMILY_MSM;
	for (uint32_t i = 0; i < n; i++) {
		int err;
		if (shim_fence_signaled(fs[i], &err))
			continue;
		if (shim_ferry_fence_src(fs[i], msm ? dev : NULL, &src)) {
			refs[nrefs++] = (struct ferry_fence_ref){ ferry_queue_id(src.q), src.seqno };
			last = src;
			last_i = i;
		} else {
			shim_fence_wait(fs[i]);
		}
	}
	if (nrefs > 1 && msm) {
		struct ferry_queue *q = shim_queue_get(dev, &dev->join_queue, FERRY_QUEUE_KIND_DEFAULT, 0);
		struct ferry_submit s = { .in_fences = refs, .nr_in_fences = nrefs };
		uint32_t seqno;
		r = q ? ferry_submit(q, &s, &seqno) : -ENOMEM;
		if (r == 0)
			last = (struct shim_fence_src){ q, seqno, dev };
	} else if (nrefs > 1) {
		/* V3D: every fence but the last is waited for. */
		for (uint32_t i = 0; i < last_i; i++)
			shim_fence_wait(fs[i]);
	}
	shim_sync_file_fences_free(fs, n);
	free(refs);
	if (r < 0)
		return r;
	return nrefs == 0 ? shim_syncobj_signal(dev, handle) : shim_syncobj_attach(dev, handle, last);
}
