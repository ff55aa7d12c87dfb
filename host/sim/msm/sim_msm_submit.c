/* Submitqueues, GEM_SUBMIT and WAIT_FENCE of the simulated msm driver, with 6.1's envelope
 * checks and errnos (msm_gem_submit.c, msm_submitqueue.c). Fences are per-queue seqnos: assigned
 * cyclically from 1, or chosen by userspace with MSM_SUBMIT_FENCE_SN_IN; a fence is "in use" until
 * its submit retires. SYNCOBJ_IN fences hold the submit (and the rest of its queue) off the ring
 * until they signal; SYNCOBJ_OUT syncobjs get the submit's fence, which signals at retire.
 * FENCE_FD_IN's fences hold it off likewise and FENCE_FD_OUT makes a sync file of its fence, when
 * the device has sync files (the fake kernel's; -EOPNOTSUPP otherwise). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_msm_priv.h"
#include "sim/sim_syncobj_timeline.h"

struct msms_queue *msms_queue_lookup(struct msms_open *o, uint32_t id)
{
	for (struct msms_queue *q = o->queues; q; q = q->open_next)
		if (q->id == id)
			return q->closed ? NULL : q;
	return NULL;
}

struct msms_queue *msms_queue_create(struct msms_open *o, uint32_t prio)
{
	if (o->next_queue_id == UINT32_MAX)
		return NULL; /* ids are not reused */
	struct msms_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	struct sim_msm_device *dev = o->dev;
	q->open = o;
	q->id = o->next_queue_id++;
	q->prio = prio;
	q->cyclic_next = 1;
	msms_fence_idr_init(&q->fences);
	q->seq = ++dev->queue_seq;
	q->open_next = o->queues;
	o->queues = q;
	/* Append, so round-robin order is creation order. */
	struct msms_queue **pq = &dev->queues;
	while (*pq)
		pq = &(*pq)->dev_next;
	*pq = q;
	return q;
}

void msms_queue_free(struct msms_queue *q)
{
	msms_fence_idr_fini(&q->fences);
	free(q);
}

bool msms_queue_maybe_free(struct msms_queue *q)
{
	if (!q->closed || q->head)
		return false;
	struct sim_msm_device *dev = q->open->dev;
	msms_dispatch_forget_queue(dev, q);
	for (struct msms_queue **pq = &dev->queues; *pq; pq = &(*pq)->dev_next) {
		if (*pq == q) {
			*pq = q->dev_next;
			break;
		}
	}
	for (struct msms_queue **pq = &q->open->queues; *pq; pq = &(*pq)->open_next) {
		if (*pq == q) {
			*pq = q->open_next;
			break;
		}
	}
	msms_queue_free(q);
	return true;
}

void msms_submit_free(struct msms_submit *s)
{
	if (s->fence_hashed)
		msms_fence_idr_remove(&s->queue->fences, s);
	if (s->done) {
		/* Not retired: cancelled with its open. Waiters elsewhere must not hang. */
		sim_fence_signal(s->sync, s->done, -ECANCELED);
		sim_fence_put(s->done);
	}
	for (uint32_t i = 0; i < s->nr_deps; i++)
		sim_fence_put(s->deps[i]);
	free(s->deps);
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		struct msms_bo *bo = s->bos[i].bo;
		if (s->bos[i].flags & MSM_SUBMIT_BO_WRITE)
			bo->active_writers--;
		else
			bo->active_readers--;
		msms_bo_put(bo);
	}
	if (s->cp)
		cp_exec_fini(s->cp);
	free(s->cp);
	free(s);
}

int msms_ioctl_submitqueue_new(struct msms_open *o, struct drm_msm_submitqueue *a)
{
	if (a->flags & ~MSM_SUBMITQUEUE_FLAGS)
		return -EINVAL;
	if (a->prio >= MSMS_NR_PRIORITIES)
		return -EINVAL;
	struct msms_queue *q = msms_queue_create(o, a->prio);
	if (!q)
		return -ENOMEM;
	a->id = q->id;
	return 0;
}

int msms_ioctl_submitqueue_close(struct msms_open *o, uint32_t *id)
{
	if (*id == 0) /* the default queue cannot be closed */
		return -ENOENT;
	struct msms_queue *q = msms_queue_lookup(o, *id);
	if (!q)
		return -ENOENT;
	/* Pending work still runs, as the scheduler holds the queue; freed when drained. */
	q->closed = true;
	msms_queue_maybe_free(q);
	return 0;
}

int msms_ioctl_submitqueue_query(struct msms_open *o, struct drm_msm_submitqueue_query *a)
{
	if (a->pad)
		return -EINVAL;
	struct msms_queue *q = msms_queue_lookup(o, a->id);
	if (!q)
		return -ENOENT;
	if (a->param != MSM_SUBMITQUEUE_PARAM_FAULTS)
		return -EINVAL;
	uint32_t faults = q->faults;
	if (a->len == 0) { /* asks for the size */
		a->len = sizeof(faults);
		return 0;
	}
	uint32_t n = a->len < sizeof(faults) ? a->len : (uint32_t)sizeof(faults);
	a->len = n;
	if (!a->data)
		return -EFAULT;
	memcpy((void *)(uintptr_t)a->data, &faults, n);
	return 0;
}

static struct msms_submit *find_fence(const struct msms_queue *q, uint32_t fence)
{
	return msms_fence_idr_find(&q->fences, fence);
}

/* idr_alloc_cyclic(1, INT_MAX): the next free id from the cursor, wrapping. */
static uint32_t alloc_cyclic_fence(struct msms_queue *q)
{
	uint32_t id = q->cyclic_next;
	for (;;) {
		if (id == 0 || id > INT32_MAX - 1)
			id = 1;
		if (!find_fence(q, id))
			break;
		id++;
	}
	q->cyclic_next = id + 1;
	return id;
}

/* Wrap-aware "a is after b", as the kernel's fence_after(). */
static bool fence_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

bool msms_submit_deps_ready(const struct msms_submit *s)
{
	for (uint32_t i = 0; i < s->nr_deps; i++)
		if (!s->deps[i]->signaled)
			return false;
	return true;
}

void msms_submit_retired(struct msms_submit *s)
{
	/* msm signals a submit's fence when it retires, after a fault or hang too, with no error.
	 * The fake kernel's lost open (lose_on_fault) is ferryd's lost context, whose failing
	 * fence keeps its error (-EIO for a fault, -ETIMEDOUT for a hang) and whose later fences
	 * fail -EIO. */
	struct msms_open *o = s->queue->open;
	int err = 0;
	if (o && o->syncobjs.lose_on_fault && o->syncobjs.lost)
		err = s->lost_error ? s->lost_error : -EIO;
	sim_fence_signal(s->sync, s->done, err);
	sim_fence_put(s->done);
	s->done = NULL;
}

/* The kernel allocates the syncobj arrays with kcalloc(__GFP_NORETRY): a count past
 * KMALLOC_MAX_SIZE / 8 fails -ENOMEM before any entry is read. */
#define MSMS_MAX_SUBMIT_SYNCOBJS ((4u << 20) / sizeof(void *))

/* Entry i of a user syncobj array, as msm copies it: min(stride, sizeof) bytes over a
 * descriptor that starts zeroed (so a short stride leaves point 0). */
static int read_syncobj_desc(uint64_t array, uint32_t i, uint32_t stride, struct drm_msm_gem_submit_syncobj *desc)
{
	size_t n = stride < sizeof(*desc) ? stride : sizeof(*desc);
	if (!n)
		return 0;
	uint64_t off = (uint64_t)i * stride;
	if (!array || off > UINTPTR_MAX - array)
		return -EFAULT;
	memcpy(desc, (const void *)(uintptr_t)(array + off), n);
	return 0;
}

/* msm_parse_deps: every in-syncobj's fence becomes a dependency of s; the ones flagged
 * MSM_SUBMIT_SYNCOBJ_RESET go into *reset (referenced) to be reset once the submit is queued. */
static int parse_in_syncobjs(struct msms_open *o, const struct drm_msm_gem_submit *a, struct msms_submit *s,
			     struct sim_syncobj ***reset)
{
	uint32_t count = a->nr_in_syncobjs;
	if (count > MSMS_MAX_SUBMIT_SYNCOBJS)
		return -ENOMEM;
	*reset = calloc(count ? count : 1, sizeof(**reset));
	/* After the FENCE_FD_IN fences, if any. */
	struct sim_fence **deps = realloc(s->deps, ((size_t)s->nr_deps + count + 1) * sizeof(*deps));
	if (deps)
		s->deps = deps;
	if (!*reset || !deps)
		return -ENOMEM;
	struct drm_msm_gem_submit_syncobj desc = { 0 };
	for (uint32_t i = 0; i < count; i++) {
		int ret = read_syncobj_desc(a->in_syncobjs, i, a->syncobj_stride, &desc);
		if (ret)
			return ret;
		if (desc.flags & ~MSM_SUBMIT_SYNCOBJ_FLAGS)
			return -EINVAL;
		/* drm_syncobj_find_fence at the point (ferry offers DRIVER_SYNCOBJ_TIMELINE), without
		 * WAIT_FOR_SUBMIT. */
		struct sim_fence *f;
		int fret = sim_syncobj_find_fence(&o->syncobjs, desc.handle, desc.point, &f);
		if (fret)
			return fret;
		if (!f->signaled)
			s->deps[s->nr_deps++] = f;
		else
			sim_fence_put(f);
		struct sim_syncobj *obj = sim_syncobj_lookup(&o->syncobjs, desc.handle);
		if (desc.flags & MSM_SUBMIT_SYNCOBJ_RESET)
			(*reset)[i] = sim_syncobj_get(obj);
	}
	return 0;
}

/* msm_parse_post_deps: the out-syncobjs (referenced), which get the submit's fence, at their
 * point in *points (0: replacing the fence). */
static int parse_out_syncobjs(struct msms_open *o, const struct drm_msm_gem_submit *a, struct sim_syncobj ***out,
			      uint64_t **points)
{
	uint32_t count = a->nr_out_syncobjs;
	if (count > MSMS_MAX_SUBMIT_SYNCOBJS)
		return -ENOMEM;
	*out = calloc(count ? count : 1, sizeof(**out));
	*points = calloc(count ? count : 1, sizeof(**points));
	if (!*out || !*points)
		return -ENOMEM;
	struct drm_msm_gem_submit_syncobj desc = { 0 };
	for (uint32_t i = 0; i < count; i++) {
		int ret = read_syncobj_desc(a->out_syncobjs, i, a->syncobj_stride, &desc);
		if (ret)
			return ret;
		if (desc.flags)
			return -EINVAL;
		struct sim_syncobj *obj = sim_syncobj_lookup(&o->syncobjs, desc.handle);
		if (!obj)
			return -EINVAL; /* drm_syncobj_find */
		(*out)[i] = sim_syncobj_get(obj);
		(*points)[i] = desc.point;
	}
	return 0;
}

static void put_syncobjs(struct sim_syncobj **objs, uint32_t count)
{
	for (uint32_t i = 0; objs && i < count; i++)
		if (objs[i])
			sim_syncobj_put(objs[i]);
	free(objs);
}

/* Applies one cmd's relocs in its BO as submit_reloc() does (6.1: the presumed-address shortcut
 * skips relocs whose target BO is where userspace presumed it). */
static int apply_relocs(struct msms_submit *s, const bool *bo_valid, struct msms_bo *cmd_bo,
			uint32_t cmd_offset, const struct drm_msm_gem_submit_cmd *c)
{
	if (!c->nr_relocs)
		return 0;
	if (cmd_offset % 4)
		return -EINVAL;
	if (!c->relocs)
		return -EFAULT;
	const struct drm_msm_gem_submit_reloc *relocs = (const void *)(uintptr_t)c->relocs;
	uint32_t last_offset = 0;
	for (uint32_t i = 0; i < c->nr_relocs; i++) {
		struct drm_msm_gem_submit_reloc r;
		memcpy(&r, &relocs[i], sizeof(r));
		if (r.submit_offset % 4)
			return -EINVAL;
		uint32_t off = r.submit_offset / 4;
		if (off >= cmd_bo->size / 4 || off < last_offset)
			return -EINVAL;
		if (r.reloc_idx >= s->nr_bos)
			return -EINVAL;
		if (bo_valid[r.reloc_idx])
			continue;
		uint64_t iova = s->bos[r.reloc_idx].bo->iova + r.reloc_offset;
		if (r.shift < 0)
			iova = r.shift <= -64 ? 0 : iova >> -r.shift;
		else
			iova = r.shift >= 64 ? 0 : iova << r.shift;
		uint32_t v = (uint32_t)iova | r.or;
		memcpy(cmd_bo->map + 4ull * off, &v, 4);
		last_offset = off;
	}
	return 0;
}

int msms_ioctl_gem_submit(struct msms_open *o, struct drm_msm_gem_submit *a)
{
	bool here = o->submit_here; /* for this call only, whatever it returns */
	o->submit_here = false;
	if (a->pad)
		return -EINVAL;
	if (MSM_PIPE_ID(a->flags) != MSM_PIPE_3D0)
		return -EINVAL;
	if (MSM_PIPE_FLAGS(a->flags) & ~MSM_SUBMIT_FLAGS)
		return -EINVAL;
	/* SUDO needs CONFIG_DRM_MSM_GPU_SUDO and CAP_SYS_RAWIO; 6.1 answers -EINVAL without them. */
	if (a->flags & MSM_SUBMIT_SUDO)
		return -EINVAL;
	struct msms_queue *q = msms_queue_lookup(o, a->queueid);
	if (!q)
		return -ENOENT;
	if (o->syncobjs.lost)
		return -EIO; /* the fake kernel's lost open (lose_on_fault), as ferryd's lost context */
	const struct sim_sync_file_hooks *sfh = o->dev->sync.sync_files;
	if ((a->flags & (MSM_SUBMIT_FENCE_FD_IN | MSM_SUBMIT_FENCE_FD_OUT)) && !sfh)
		return -EOPNOTSUPP;
	int ret;
	struct sim_syncobj **reset_objs = NULL, **out_objs = NULL;
	uint64_t *out_points = NULL;
	/* The submit, its BO list and its command buffers in one allocation, as submit_create()'s
	 * struct_size(): counts too large for memory are -ENOMEM before anything is read. */
	size_t bos_bytes, cmds_bytes, sz;
	if (__builtin_mul_overflow((size_t)a->nr_bos, sizeof(struct msms_submit_bo), &bos_bytes) ||
	    __builtin_mul_overflow((size_t)a->nr_cmds, sizeof(struct msms_cmd), &cmds_bytes) ||
	    __builtin_add_overflow(sizeof(struct msms_submit), bos_bytes, &sz) ||
	    __builtin_add_overflow(sz, cmds_bytes, &sz))
		return -ENOMEM;
	struct msms_submit *s = calloc(1, sz);
	if (!s)
		return -ENOMEM;
	s->bos = (struct msms_submit_bo *)(s + 1);
	s->cmds = (struct msms_cmd *)(s->bos + a->nr_bos);
	/* The caller's BO table, copied, and which presumed iovas hold: on the stack when small. */
	enum { SMALL_BOS = 16 };
	struct drm_msm_gem_submit_bo in_small[SMALL_BOS];
	bool valid_small[SMALL_BOS];
	struct drm_msm_gem_submit_bo *in = in_small;
	bool *bo_valid = valid_small;
	s->queue = q;
	s->sync = &o->dev->sync;
	/* The in-fence fd's fences are dependencies as in-syncobjs' are; not a sync file: -EINVAL. */
	if (a->flags & MSM_SUBMIT_FENCE_FD_IN) {
		ret = sfh->fences(&o->dev->sync, a->fence_fd, &s->deps, &s->nr_deps);
		if (ret)
			goto fail;
	}
	if (a->flags & MSM_SUBMIT_SYNCOBJ_IN) {
		ret = parse_in_syncobjs(o, a, s, &reset_objs);
		if (ret)
			goto fail;
	}
	if (a->flags & MSM_SUBMIT_SYNCOBJ_OUT) {
		ret = parse_out_syncobjs(o, a, &out_objs, &out_points);
		if (ret)
			goto fail;
	}
	s->done = sim_fence_new();
	if (!s->done) {
		ret = -ENOMEM;
		goto fail;
	}

	if (a->nr_bos > SMALL_BOS) {
		in = malloc((size_t)a->nr_bos * sizeof(*in));
		bo_valid = malloc((size_t)a->nr_bos * sizeof(*bo_valid));
		if (!in || !bo_valid) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	if ((a->nr_bos && !a->bos) || (a->nr_cmds && !a->cmds)) {
		ret = -EFAULT;
		goto fail;
	}

	/* BO table: flags first for every entry, then handles (submit_lookup_objects). */
	const struct drm_msm_gem_submit_bo *ubos = (const void *)(uintptr_t)a->bos;
	if (a->nr_bos)
		memcpy(in, ubos, (size_t)a->nr_bos * sizeof(*in));
	for (uint32_t i = 0; i < a->nr_bos; i++) {
		if ((in[i].flags & ~MSM_SUBMIT_BO_FLAGS) ||
		    !(in[i].flags & (MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE))) {
			ret = -EINVAL;
			goto fail;
		}
		s->bos[i].flags = in[i].flags;
	}
	/* A handle listed twice is -EINVAL ("already on submit list" at ww-lock time, after every
	 * lookup; the same errno as a bad handle, so found as the list is read): a BO carries the
	 * number of the last submit that listed it, not an O(n^2) compare. */
	uint64_t gen = ++o->dev->submit_gen;
	bool twice = false;
	for (uint32_t i = 0; i < a->nr_bos; i++) {
		struct msms_bo *bo = msms_bo_lookup(o, in[i].handle);
		if (!bo) {
			ret = -EINVAL;
			goto fail;
		}
		s->bos[i].bo = bo;
		bo->refs++;
		s->nr_bos = i + 1;
		twice |= bo->listed_gen == gen;
		bo->listed_gen = gen;
	}
	if (twice) {
		ret = -EINVAL;
		goto fail;
	}
	/* Pin: every listed BO gets an iova in this address space. */
	bool all_valid = true;
	for (uint32_t i = 0; i < s->nr_bos; i++) {
		uint64_t iova;
		ret = msms_bo_get_iova(s->bos[i].bo, &iova);
		if (ret)
			goto fail;
		bo_valid[i] = iova == in[i].presumed;
		all_valid &= bo_valid[i];
	}

	const struct drm_msm_gem_submit_cmd *ucmds = (const void *)(uintptr_t)a->cmds;
	for (uint32_t i = 0; i < a->nr_cmds; i++) {
		struct drm_msm_gem_submit_cmd c;
		memcpy(&c, &ucmds[i], sizeof(c));
		if (c.type != MSM_SUBMIT_CMD_BUF && c.type != MSM_SUBMIT_CMD_IB_TARGET_BUF &&
		    c.type != MSM_SUBMIT_CMD_CTX_RESTORE_BUF) {
			ret = -EINVAL;
			goto fail;
		}
		if (c.size % 4) {
			ret = -EINVAL;
			goto fail;
		}
		if (c.submit_idx >= s->nr_bos) {
			ret = -EINVAL;
			goto fail;
		}
		struct msms_bo *bo = s->bos[c.submit_idx].bo;
		uint64_t size_dw = c.size / 4, offset_dw = c.submit_offset / 4;
		if (size_dw == 0 || size_dw + offset_dw > bo->size / 4) {
			ret = -EINVAL;
			goto fail;
		}
		s->cmds[i].type = c.type;
		s->cmds[i].iova = bo->iova + offset_dw * 4;
		s->cmds[i].size_dw = (uint32_t)size_dw;
		if (!all_valid) {
			ret = apply_relocs(s, bo_valid, bo, c.submit_offset, &c);
			if (ret)
				goto fail;
		}
	}
	s->nr_cmds = a->nr_cmds;

	if (a->flags & MSM_SUBMIT_FENCE_SN_IN) {
		if (a->fence == 0 || find_fence(q, a->fence)) {
			ret = -EINVAL;
			goto fail;
		}
		s->fence = a->fence;
	} else {
		s->fence = alloc_cyclic_fence(q);
	}
	if (in != in_small)
		free(in);
	if (bo_valid != valid_small)
		free(bo_valid);

	for (uint32_t i = 0; i < s->nr_bos; i++) {
		if (s->bos[i].flags & MSM_SUBMIT_BO_WRITE)
			s->bos[i].bo->active_writers++;
		else
			s->bos[i].bo->active_readers++;
	}
	/* Into the context's drawqueue with its next timestamp; the dispatcher issues it. */
	s->timestamp = ++q->ts_queued;
	q->memstore.queued = s->timestamp;
	msms_fence_idr_insert(&q->fences, s);
	s->fence_hashed = true;
	if (q->tail)
		q->tail->next = s;
	else
		q->head = s;
	q->tail = s;
	msms_dispatch_queued(o->dev, s);
	a->fence = s->fence;
	q->last_fence = s->fence;
	/* Queued: in-syncobjs flagged RESET lose their fence, out-syncobjs get the submit's. */
	for (uint32_t i = 0; reset_objs && i < a->nr_in_syncobjs; i++)
		if (reset_objs[i])
			sim_syncobj_replace(&o->dev->sync, reset_objs[i], NULL);
	for (uint32_t i = 0; out_objs && i < a->nr_out_syncobjs; i++) {
		/* msm_process_post_deps: a point that cannot get its chain node is lost, as an
		 * allocation failure after the submit is queued cannot fail it. */
		if (out_points[i])
			(void)sim_syncobj_add_point(&o->dev->sync, out_objs[i], s->done, out_points[i]);
		else
			sim_syncobj_replace(&o->dev->sync, out_objs[i], s->done);
	}
	put_syncobjs(reset_objs, a->nr_in_syncobjs);
	put_syncobjs(out_objs, a->nr_out_syncobjs);
	free(out_points);
	/* As the kernel after queueing: a sync file that cannot be made fails the ioctl. */
	ret = 0;
	if (a->flags & MSM_SUBMIT_FENCE_FD_OUT) {
		int fd = sfh->create(&o->dev->sync, s->done, (uint64_t)(uintptr_t)q, s->fence, q->id);
		if (fd < 0)
			ret = fd;
		else
			a->fence_fd = fd;
	}
	msms_gpu_kick(o->dev, here ? o : NULL);
	return ret;

fail:
	if (in != in_small)
		free(in);
	if (bo_valid != valid_small)
		free(bo_valid);
	put_syncobjs(reset_objs, a->nr_in_syncobjs);
	put_syncobjs(out_objs, a->nr_out_syncobjs);
	free(out_points);
	for (uint32_t i = 0; i < s->nr_bos; i++)
		msms_bo_put(s->bos[i].bo);
	for (uint32_t i = 0; i < s->nr_deps; i++)
		sim_fence_put(s->deps[i]);
	free(s->deps);
	sim_fence_put(s->done); /* nobody saw it: no signal */
	free(s);
	return ret;
}

int msms_ioctl_wait_fence(struct msms_open *o, struct drm_msm_wait_fence *a)
{
	if (a->pad)
		return -EINVAL;
	struct msms_queue *q = msms_queue_lookup(o, a->queueid);
	if (!q)
		return -ENOENT;
	if (fence_after(a->fence, q->last_fence))
		return -EINVAL;
	if (!find_fence(q, a->fence))
		return 0; /* retired (or never used) */
	uint64_t deadline = msms_timespec_ns(&a->timeout);
	struct timespec abs = sim_abs_timespec(deadline);
	struct sim_msm_device *dev = o->dev;
	uint32_t fence = a->fence;
	uint64_t seq = q->seq;
	struct msms_queue *cur = q;
	for (;;) {
		if (!cur || !find_fence(cur, fence))
			return 0;
		if (deadline <= sim_now_ns())
			return -ETIMEDOUT;
		int r = pthread_cond_timedwait(&dev->done_cond, &dev->lock.mutex, &abs);
		/* The queue (and its open) may have gone while we slept: look it up again by its
		 * identity, in the device's list. */
		for (cur = dev->queues; cur && cur->seq != seq; cur = cur->dev_next)
			;
		if (r == ETIMEDOUT)
			return cur && find_fence(cur, fence) ? -ETIMEDOUT : 0;
	}
}
