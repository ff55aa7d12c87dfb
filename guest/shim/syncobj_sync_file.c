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
	int error;
	int r = shim_syncobj_peek(dev, handle, &src, &has, &error);
	if (r < 0)
		return r; /* drm_syncobj_find_fence: -ENOENT, or -EINVAL for no fence */
	struct shim_fence *f = NULL;
	if (has && !(f = shim_ferry_fence(src.owner, src.q, src.seqno, ferry_queue_id(src.q))))
		return -ENOMEM;
	if (!has && error < 0 && !(f = shim_fence_new_signaled(&shim_ferry_fence_ops, 0, 0, "imported", error)))
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
 * whose fence the syncobj gets; fences an in-fence cannot name (another open's, another
 * process's) join as one fence of the open's external queue. V3D submits carry no empty job:
 * several pending fences there become one external fence. Nothing blocks. */
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
	bool msm = dev->family == SHIM_FAMILY_MSM;
	/* The pending fences, to the front: on msm those an in-fence of this open cannot name
	 * first (they go to the external queue), then the others. */
	uint32_t npending = 0, nother = 0;
	int first_error = 0; /* of those already signaled: kept when nothing is pending */
	struct shim_fence_src src, last = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		int err;
		if (shim_fence_signaled(fs[i], &err)) {
			if (err < 0 && !first_error)
				first_error = err;
			continue;
		}
		struct shim_fence *f = fs[i];
		fs[i] = fs[npending];
		fs[npending++] = f;
		if (msm && !shim_ferry_fence_src(f, dev, &src)) {
			fs[npending - 1] = fs[nother];
			fs[nother++] = f;
		}
	}
	/* V3D: one fence it can hold as it is; any more become one external fence. */
	if (!msm)
		nother = npending == 1 && shim_ferry_fence_src(fs[0], NULL, &src) ? 0 : npending;
	struct ferry_fence_ref refs[2];
	uint32_t nrefs = 0;
	if (nother) {
		struct shim_fence **ext = malloc(nother * sizeof(*ext));
		if (!ext) {
			shim_sync_file_fences_free(fs, n);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < nother; i++) {
			ext[i] = fs[i];
			fs[i] = NULL;
		}
		if ((r = shim_external_fence(dev, ext, nother, &last)) < 0) {
			shim_sync_file_fences_free(fs, n);
			return r;
		}
		if (r == 0)
			refs[nrefs++] = (struct ferry_fence_ref){ ferry_queue_id(last.q), last.seqno };
		r = 0;
	}
	/* msm: the rest are this open's; several (with the external one) join in an empty submit. */
	struct ferry_fence_ref *many = NULL;
	uint32_t nmany = 0;
	if (npending > nother) {
		many = calloc(npending - nother + 1, sizeof(*many));
		if (!many) {
			shim_sync_file_fences_free(fs, n);
			return -ENOMEM;
		}
		if (nrefs)
			many[nmany++] = refs[0];
		for (uint32_t i = nother; i < npending; i++)
			if (shim_ferry_fence_src(fs[i], msm ? dev : NULL, &src)) {
				many[nmany++] = (struct ferry_fence_ref){ ferry_queue_id(src.q), src.seqno };
				last = src;
			}
	}
	shim_sync_file_fences_free(fs, n);
	if (nmany > 1) {
		struct ferry_queue *q = shim_queue_get(dev, &dev->join_queue, FERRY_QUEUE_KIND_DEFAULT, 0);
		struct ferry_submit s = { .in_fences = many, .nr_in_fences = nmany };
		uint32_t seqno;
		r = q ? ferry_submit(q, &s, &seqno) : -ENOMEM;
		if (r == 0)
			last = (struct shim_fence_src){ q, seqno, dev };
	}
	free(many);
	if (r < 0)
		return r;
	if (npending == 0)
		return shim_syncobj_signal_error(dev, handle, first_error);
	return nrefs == 0 && nmany == 0 ? shim_syncobj_signal(dev, handle) : shim_syncobj_attach(dev, handle, last);
}
