/* The msm driver ioctls (Linux 6.1 uAPI, driver 1.9) answered through libferry: GEM BOs are
 * ferry BOs, submitqueues are ferry queues and their fence seqnos are ferry seqnos. Every check
 * the kernel makes before queueing work is made here first, so the driver gets the kernel's
 * errno synchronously rather than a failed fence later. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ferry/array.h"
#include "ferry/uapi/msm_drm.h"
#include "shim_ferry.h"
#include "sync_file.h"

static struct ferry_queue *queue_lookup(struct shim_dev *dev, uint32_t id)
{
	if (id == 0)
		return shim_queue_get(dev, &dev->default_queue, FERRY_QUEUE_KIND_DEFAULT, 0);
	pthread_mutex_lock(&dev->lock);
	struct ferry_queue *q = id < dev->nr_queue_slots ? dev->queues[id] : NULL;
	pthread_mutex_unlock(&dev->lock);
	return q;
}

static struct ferry_bo *bo_lookup(struct shim_dev *dev, uint32_t handle, uint64_t *size)
{
	return shim_bo_get(dev, handle, size, NULL);
}

static int get_param(struct shim_dev *dev, struct drm_msm_param *p)
{
	if (p->pipe != MSM_PIPE_3D0 || p->pad || p->len)
		return -EINVAL;
	switch (p->param) {
	case MSM_PARAM_FAULTS:
		p->value = shim_fault_count(dev, 0, false);
		return 0;
	case MSM_PARAM_SUSPENDS:
		p->value = 0; /* the remote GPU's power state is not visible here */
		return 0;
	case MSM_PARAM_PP_PGTABLE:
		p->value = 0;
		return 0;
	case MSM_PARAM_TIMESTAMP:
		/* The GPU's clock is on the host: one round trip, as the kernel reads a register. */
		return ferry_context_timestamp(dev->ctx, &p->value);
	}
	uint64_t v;
	int r = ferry_device_param(shim_ferry_device(), p->param, &v);
	if (r < 0)
		return -EINVAL; /* what the kernel says for a parameter it does not know */
	p->value = v;
	return 0;
}

static int set_param(struct drm_msm_param *p)
{
	if (p->pipe != MSM_PIPE_3D0 || p->pad)
		return -EINVAL;
	switch (p->param) {
	case MSM_PARAM_COMM:
	case MSM_PARAM_CMDLINE:
		/* Only names the process in the kernel's crash dumps; ferryd names the client. */
		return 0;
	case MSM_PARAM_SYSPROF:
		return -EPERM; /* needs CAP_SYS_ADMIN on the host */
	}
	return -EINVAL;
}

static int gem_new(struct shim_dev *dev, struct drm_msm_gem_new *a)
{
	if (a->flags & ~(uint32_t)MSM_BO_FLAGS)
		return -EINVAL;
	if (a->size == 0)
		return -EINVAL;
	/* The kernel's BOs are whole pages (msm_gem_new: PAGE_ALIGN). */
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;
	if (a->size > UINT64_MAX - (pg - 1))
		return -EINVAL;
	struct ferry_bo *bo;
	int r = ferry_bo_new(dev->ctx, (a->size + pg - 1) & ~(pg - 1), a->flags, &bo);
	if (r < 0)
		return r;
	r = shim_bo_add(dev, bo, a->flags, &a->handle);
	if (r < 0)
		ferry_bo_close(bo);
	return r;
}

static int gem_info(struct shim_dev *dev, struct drm_msm_gem_info *a)
{
	if (a->pad)
		return -EINVAL;
	switch (a->info) {
	case MSM_INFO_GET_OFFSET:
	case MSM_INFO_GET_IOVA:
	case MSM_INFO_SET_IOVA:
		if (a->len)
			return -EINVAL;
		break;
	case MSM_INFO_SET_NAME:
	case MSM_INFO_GET_NAME:
		break;
	default:
		return -EINVAL;
	}
	struct ferry_bo *bo = bo_lookup(dev, a->handle, NULL);
	if (!bo)
		return -ENOENT;
	switch (a->info) {
	case MSM_INFO_GET_OFFSET:
		a->value = shim_bo_mmap_offset(a->handle);
		return 0;
	case MSM_INFO_GET_IOVA: {
		uint64_t iova;
		int r = ferry_bo_iova(bo, &iova);
		if (r < 0)
			return r;
		a->value = iova;
		return 0;
	}
	case MSM_INFO_SET_NAME:
		return a->len >= 32 ? -EINVAL : 0; /* debug names stay with the driver */
	case MSM_INFO_GET_NAME:
		a->len = 0;
		return 0;
	}
	return -EINVAL;
}

static int cpu_prep(struct shim_dev *dev, struct drm_msm_gem_cpu_prep *a)
{
	if (a->op & ~(uint32_t)MSM_PREP_FLAGS)
		return -EINVAL;
	struct ferry_bo *bo = bo_lookup(dev, a->handle, NULL);
	if (!bo)
		return -ENOENT;
	int64_t abs = a->timeout.tv_sec * 1000000000 + a->timeout.tv_nsec;
	return ferry_bo_cpu_prep(bo, a->op, (a->op & MSM_PREP_NOSYNC) ? 0 : shim_timeout_from_abs(abs));
}

/* The in-syncobjs at their points: fences on this open's queues become ferry in-fences
 * (another open's are waited for by shim_syncobj_in_fences). */
static int gather_in_syncobjs(struct shim_dev *dev, const struct drm_msm_gem_submit *a, struct shim_fence_list *in)
{
	for (uint32_t i = 0; i < a->nr_in_syncobjs; i++) {
		struct drm_msm_gem_submit_syncobj d = { 0 };
		memcpy(&d, (const char *)(uintptr_t)a->in_syncobjs + (size_t)i * a->syncobj_stride,
		       a->syncobj_stride < sizeof(d) ? a->syncobj_stride : sizeof(d));
		if (d.flags & ~(uint32_t)MSM_SUBMIT_SYNCOBJ_FLAGS)
			return -EINVAL;
		int r = shim_syncobj_in_fences(dev, d.handle, d.point, in);
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_out_syncobjs(struct shim_dev *dev, const struct drm_msm_gem_submit *a)
{
	for (uint32_t i = 0; i < a->nr_out_syncobjs; i++) {
		struct drm_msm_gem_submit_syncobj d = { 0 };
		memcpy(&d, (const char *)(uintptr_t)a->out_syncobjs + (size_t)i * a->syncobj_stride,
		       a->syncobj_stride < sizeof(d) ? a->syncobj_stride : sizeof(d));
		if (d.flags)
			return -EINVAL;
		if (!shim_syncobj_exists(dev, d.handle))
			return -EINVAL; /* msm_parse_post_deps: drm_syncobj_find failing */
	}
	return 0;
}

static void after_submit(struct shim_dev *dev, const struct drm_msm_gem_submit *a, struct shim_fence_src f)
{
	for (uint32_t i = 0; (a->flags & MSM_SUBMIT_SYNCOBJ_IN) && i < a->nr_in_syncobjs; i++) {
		struct drm_msm_gem_submit_syncobj d = { 0 };
		memcpy(&d, (const char *)(uintptr_t)a->in_syncobjs + (size_t)i * a->syncobj_stride,
		       a->syncobj_stride < sizeof(d) ? a->syncobj_stride : sizeof(d));
		if (d.flags & MSM_SUBMIT_SYNCOBJ_RESET) {
			shim_syncobj_reset(dev, d.handle);
			shim_syncobj_push(dev, d.handle);
		}
	}
	for (uint32_t i = 0; (a->flags & MSM_SUBMIT_SYNCOBJ_OUT) && i < a->nr_out_syncobjs; i++) {
		struct drm_msm_gem_submit_syncobj d = { 0 };
		memcpy(&d, (const char *)(uintptr_t)a->out_syncobjs + (size_t)i * a->syncobj_stride,
		       a->syncobj_stride < sizeof(d) ? a->syncobj_stride : sizeof(d));
		/* msm_process_post_deps: a point that cannot get its chain node is lost, as an
		 * allocation failure after the submit went out cannot fail it. */
		(void)shim_syncobj_attach_point(dev, d.handle, f, d.point);
	}
}

static int gem_submit(struct shim_dev *dev, struct drm_msm_gem_submit *a)
{
	if (MSM_PIPE_ID(a->flags) != MSM_PIPE_3D0 || a->pad)
		return -EINVAL;
	uint32_t flags = MSM_PIPE_FLAGS(a->flags);
	if (flags & ~(uint32_t)MSM_SUBMIT_FLAGS)
		return -EINVAL;
	if (flags & MSM_SUBMIT_SUDO)
		return -EINVAL; /* needs CONFIG_DRM_MSM_GPU_SUDO and CAP_SYS_RAWIO */
	struct ferry_queue *q = queue_lookup(dev, a->queueid);
	if (!q)
		return -ENOENT;
	bool sync_in = flags & MSM_SUBMIT_SYNCOBJ_IN, sync_out = flags & MSM_SUBMIT_SYNCOBJ_OUT;
	if ((sync_in && a->nr_in_syncobjs) || (sync_out && a->nr_out_syncobjs)) {
		if (a->syncobj_stride == 0 || a->syncobj_stride > 4096)
			return -EINVAL;
		if ((sync_in && a->nr_in_syncobjs && !a->in_syncobjs) ||
		    (sync_out && a->nr_out_syncobjs && !a->out_syncobjs))
			return -EFAULT;
	}
	const struct drm_msm_gem_submit_bo *ubos = (const void *)(uintptr_t)a->bos;
	const struct drm_msm_gem_submit_cmd *ucmds = (const void *)(uintptr_t)a->cmds;
	if ((a->nr_bos && !ubos) || (a->nr_cmds && !ucmds))
		return -EFAULT;
	if (a->nr_bos > (1u << 20) || a->nr_cmds > (1u << 16))
		return -EINVAL;

	/* MSM_SUBMIT_FENCE_FD_IN: not a sync file is -EINVAL (sync_file_get_fence failing). */
	struct shim_fence **fd_in = NULL;
	uint32_t nfd_in = 0;
	int r = 0;
	if ((flags & MSM_SUBMIT_FENCE_FD_IN) && (r = shim_sync_file_fences(a->fence_fd, &fd_in, &nfd_in)) < 0)
		return r;
	struct ferry_submit_bo *bos = calloc(a->nr_bos ? a->nr_bos : 1, sizeof(*bos));
	uint64_t *sizes = calloc(a->nr_bos ? a->nr_bos : 1, sizeof(*sizes));
	struct ferry_cmd *cmds = calloc(a->nr_cmds ? a->nr_cmds : 1, sizeof(*cmds));
	struct shim_fence_list in = { 0 };
	if (!bos || !sizes || !cmds) {
		r = -ENOMEM;
		goto out;
	}
	/* Drivers list every BO they have on every submit: one lock for the whole table walk. */
	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < a->nr_bos && r == 0; i++) {
		struct shim_bo *b = shim_bo_lookup(dev, ubos[i].handle);
		if ((ubos[i].flags & ~(uint32_t)MSM_SUBMIT_BO_FLAGS) || !b) {
			r = -EINVAL; /* msm: bad flags, or "invalid handle" */
			break;
		}
		bos[i] = (struct ferry_submit_bo){ b->bo, ubos[i].flags & MSM_SUBMIT_BO_FLAGS };
		sizes[i] = b->size;
	}
	pthread_mutex_unlock(&dev->lock);
	if (r < 0)
		goto out;
	for (uint32_t i = 0; i < a->nr_cmds; i++) {
		const struct drm_msm_gem_submit_cmd *c = &ucmds[i];
		if ((c->type != MSM_SUBMIT_CMD_BUF && c->type != MSM_SUBMIT_CMD_IB_TARGET_BUF &&
		     c->type != MSM_SUBMIT_CMD_CTX_RESTORE_BUF) ||
		    c->submit_idx >= a->nr_bos || (c->size % 4) || (c->submit_offset % 4) || c->size == 0 ||
		    (uint64_t)c->submit_offset + c->size > sizes[c->submit_idx]) {
			r = -EINVAL;
			goto out;
		}
		cmds[i] = (struct ferry_cmd){ bos[c->submit_idx].bo, c->submit_offset, c->size, c->type };
	}
	if (sync_in && (r = gather_in_syncobjs(dev, a, &in)) < 0)
		goto out;
	if (sync_out && (r = check_out_syncobjs(dev, a)) < 0)
		goto out;
	/* Fences of this open are in-fences as they are; the others (another open's, another
	 * process's) become one fence of the open's external queue that ferryd waits on. */
	uint32_t nother = 0;
	for (uint32_t i = 0; i < nfd_in; i++) {
		int err;
		struct shim_fence_src src;
		if (shim_fence_signaled(fd_in[i], &err))
			continue;
		if (!shim_ferry_fence_src(fd_in[i], dev, &src)) {
			struct shim_fence *f = fd_in[i];
			fd_in[i] = fd_in[nother]; /* the others gather at the front */
			fd_in[nother++] = f;
		} else if ((r = shim_fence_list_add(&in, (struct ferry_fence_ref){ ferry_queue_id(src.q), src.seqno })) < 0) {
			goto out;
		}
	}
	if (nother) {
		struct shim_fence **other = malloc(nother * sizeof(*other));
		struct shim_fence_src src;
		if (!other) {
			r = -ENOMEM;
			goto out;
		}
		for (uint32_t i = 0; i < nother; i++) {
			other[i] = fd_in[i];
			fd_in[i] = NULL; /* the external fence has the reference now */
		}
		if ((r = shim_external_fence(dev, other, nother, &src)) < 0 ||
		    (r == 0 && (r = shim_fence_list_add(&in, (struct ferry_fence_ref){ ferry_queue_id(src.q), src.seqno })) < 0))
			goto out;
		r = 0;
	}
	struct ferry_submit s = {
		.cmds = cmds, .nr_cmds = a->nr_cmds, .bos = bos, .nr_bos = a->nr_bos,
		.in_fences = in.v, .nr_in_fences = in.n,
	};
	uint32_t seqno;
	r = ferry_submit(q, &s, &seqno);
	if (r < 0)
		goto out;
	a->fence = seqno;
	after_submit(dev, a, (struct shim_fence_src){ q, seqno, dev });
	if (flags & MSM_SUBMIT_FENCE_FD_OUT) {
		/* As the kernel after queueing: a sync file that cannot be made fails the ioctl. */
		struct shim_fence *f = shim_ferry_fence(dev, q, seqno, a->queueid);
		int fd = f ? shim_sync_file_create(f) : -ENOMEM;
		shim_fence_put(f);
		if (fd < 0)
			r = fd;
		else
			a->fence_fd = fd;
	}
out:
	shim_sync_file_fences_free(fd_in, nfd_in);
	free(bos);
	free(sizes);
	free(cmds);
	free(in.v);
	return r;
}

static int wait_fence(struct shim_dev *dev, struct drm_msm_wait_fence *a)
{
	if (a->pad)
		return -EINVAL;
	struct ferry_queue *q = queue_lookup(dev, a->queueid);
	if (!q)
		return -ENOENT;
	uint32_t last = ferry_queue_next_seqno(q) - 1;
	if ((int32_t)(a->fence - last) > 0)
		return -EINVAL; /* a fence never submitted, as msm_wait_fence refuses */
	int64_t abs = a->timeout.tv_sec * 1000000000 + a->timeout.tv_nsec;
	int r = ferry_fence_wait(q, a->fence, shim_timeout_from_abs(abs));
	if (r == -ETIMEDOUT && !ferry_fence_signaled(q, a->fence))
		return -ETIMEDOUT;
	return 0; /* a fence that completed with an error is still signaled */
}

static int gem_madvise(struct shim_dev *dev, struct drm_msm_gem_madvise *a)
{
	if (a->madv != MSM_MADV_WILLNEED && a->madv != MSM_MADV_DONTNEED)
		return -EINVAL;
	if (!bo_lookup(dev, a->handle, NULL))
		return -ENOENT;
	a->retained = 1; /* ferry never purges a BO's memory behind the driver's back */
	return 0;
}

/* Closed queues go for good once their last fence signaled and no wait uses them: libferry
 * has a bounded number of queue ids per context, and drivers cycle submitqueues. */
/* dev->lock held. */
static int closed_queue_add(struct shim_dev *dev, struct ferry_queue *q)
{
	if (FERRY_ARRAY_RESERVE(dev->closed_queues, dev->cap_closed_queues, dev->nr_closed_queues + 1, 8))
		return -ENOMEM;
	dev->closed_queues[dev->nr_closed_queues++] = q;
	return 0;
}

static void sweep_closed_queues(struct shim_dev *dev)
{
	/* The candidates leave the list while they are looked at (sync_lock is taken after, never
	 * under, dev->lock); the ones still in use go back. */
	pthread_mutex_lock(&dev->lock);
	uint32_t n = dev->nr_closed_queues;
	struct ferry_queue **cand = n ? malloc(n * sizeof(*cand)) : NULL;
	if (cand) {
		memcpy(cand, dev->closed_queues, n * sizeof(*cand));
		dev->nr_closed_queues = 0;
	}
	pthread_mutex_unlock(&dev->lock);
	if (!cand)
		return;
	uint32_t keep = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ferry_queue *q = cand[i];
		uint32_t last = ferry_queue_next_seqno(q) - 1;
		bool idle = last == 0 || ferry_fence_signaled(q, last);
		if (idle && shim_syncobj_forget_queue(dev, q)) {
			/* Sync files of its fences stop reading the queue before it goes. */
			shim_ferry_fences_release(dev, q);
			ferry_queue_close(q);
		}
		else
			cand[keep++] = q;
	}
	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < keep; i++)
		/* Out of memory: the queue stays open, unlisted, until the context ends (a leak,
		 * never a dangling fence). */
		if (closed_queue_add(dev, cand[i]) < 0)
			break;
	pthread_mutex_unlock(&dev->lock);
	free(cand);
}

static int submitqueue_new(struct shim_dev *dev, struct drm_msm_submitqueue *a)
{
	if (a->flags & ~(uint32_t)MSM_SUBMITQUEUE_FLAGS)
		return -EINVAL;
	uint64_t prios = 0;
	if (ferry_device_param(shim_ferry_device(), MSM_PARAM_PRIORITIES, &prios) == 0 && a->prio >= prios)
		return -EINVAL;
	sweep_closed_queues(dev);
	struct ferry_queue *q;
	int r = ferry_queue_create(dev->ctx, a->prio, &q);
	if (r < 0)
		return r;
	pthread_mutex_lock(&dev->lock);
	r = shim_slot_alloc((void ***)&dev->queues, &dev->nr_queue_slots, q, &a->id);
	pthread_mutex_unlock(&dev->lock);
	if (r < 0)
		ferry_queue_close(q);
	return r;
}

static int submitqueue_close(struct shim_dev *dev, const uint32_t *id)
{
	if (*id == 0)
		return -ENOENT; /* the default queue cannot be closed */
	pthread_mutex_lock(&dev->lock);
	struct ferry_queue *q = *id < dev->nr_queue_slots ? dev->queues[*id] : NULL;
	int r = q ? closed_queue_add(dev, q) : -ENOENT;
	if (r == 0)
		dev->queues[*id] = NULL;
	pthread_mutex_unlock(&dev->lock);
	if (r == 0)
		sweep_closed_queues(dev);
	return r;
}

static int submitqueue_query(struct shim_dev *dev, struct drm_msm_submitqueue_query *a)
{
	if (a->pad)
		return -EINVAL;
	struct ferry_queue *q = queue_lookup(dev, a->id);
	if (!q)
		return -ENOENT;
	if (a->param != MSM_SUBMITQUEUE_PARAM_FAULTS)
		return -EINVAL;
	uint32_t faults = shim_fault_count(dev, ferry_queue_id(q), true);
	if (a->len == 0) {
		a->len = sizeof(faults);
		return 0;
	}
	uint32_t n = a->len < sizeof(faults) ? a->len : sizeof(faults);
	if (!a->data)
		return -EFAULT;
	memcpy((void *)(uintptr_t)a->data, &faults, n);
	a->len = n;
	return 0;
}

int shim_msm_ioctl(struct shim_dev *dev, unsigned long request, void *arg)
{
	const struct ferry_ioctl *io = ferry_ioctl_find(FERRY_IOCTL_MSM, _IOC_NR(request));
	unsigned nr = _IOC_NR(request) - DRM_COMMAND_BASE;
	union {
		struct drm_msm_param param;
		struct drm_msm_gem_new gem_new;
		struct drm_msm_gem_info gem_info;
		struct drm_msm_gem_cpu_prep cpu_prep;
		struct drm_msm_gem_submit submit;
		struct drm_msm_wait_fence wait;
		struct drm_msm_gem_madvise madvise;
		struct drm_msm_submitqueue queue;
		struct drm_msm_submitqueue_query query;
		uint32_t id;
	} k;
	if (!io || ferry_ioctl_size(io) > sizeof(k)) {
		shim_log(false, "msm ioctl nr 0x%x is not offered", nr);
		return -EINVAL;
	}
	shim_ioctl_copy_in(request, arg, &k, ferry_ioctl_size(io));
	int r;
	switch (nr) {
	case DRM_MSM_GET_PARAM: r = get_param(dev, &k.param); break;
	case DRM_MSM_SET_PARAM: r = set_param(&k.param); break;
	case DRM_MSM_GEM_NEW: r = gem_new(dev, &k.gem_new); break;
	case DRM_MSM_GEM_INFO: r = gem_info(dev, &k.gem_info); break;
	case DRM_MSM_GEM_CPU_PREP: r = cpu_prep(dev, &k.cpu_prep); break;
	case DRM_MSM_GEM_CPU_FINI: r = bo_lookup(dev, k.id, NULL) ? 0 : -ENOENT; break;
	case DRM_MSM_GEM_SUBMIT: r = gem_submit(dev, &k.submit); break;
	case DRM_MSM_WAIT_FENCE: r = wait_fence(dev, &k.wait); break;
	case DRM_MSM_GEM_MADVISE: r = gem_madvise(dev, &k.madvise); break;
	case DRM_MSM_SUBMITQUEUE_NEW: r = submitqueue_new(dev, &k.queue); break;
	case DRM_MSM_SUBMITQUEUE_CLOSE: r = submitqueue_close(dev, &k.id); break;
	case DRM_MSM_SUBMITQUEUE_QUERY: r = submitqueue_query(dev, &k.query); break;
	default: r = -EINVAL; break;
	}
	shim_ioctl_copy_out(io, request, arg, &k); /* whatever the result, as drm_ioctl */
	return r;
}

void shim_msm_close(struct shim_dev *dev)
{
	/* Queues go after the syncobjs that may point at them let go (shim_backend_close). */
	if (dev->default_queue)
		ferry_queue_close(dev->default_queue);
	if (dev->join_queue)
		ferry_queue_close(dev->join_queue);
	for (uint32_t i = 0; i < dev->nr_queue_slots; i++)
		if (dev->queues[i])
			ferry_queue_close(dev->queues[i]);
	for (uint32_t i = 0; i < dev->nr_closed_queues; i++)
		ferry_queue_close(dev->closed_queues[i]);
	free(dev->queues);
	free(dev->closed_queues);
}
