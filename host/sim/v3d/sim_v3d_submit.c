/* SUBMIT_CL / SUBMIT_TFU / SUBMIT_CSD of the simulated v3d driver: the 6.1 kernel's argument
 * checks and errnos (v3d_gem.c), the multisync extension, and the job graph it builds:
 *   CL:  [bin] -> render [-> cache_clean with FLUSH_CACHE]; TFU: tfu; CSD: csd -> cache_clean.
 * As in 6.1, nothing the jobs will read is validated (the hardware is "behind the MMU"); the BO
 * list only holds the BOs alive and gives implicit sync. The implicit dependencies and the WRITE
 * fence go on the job that carries the BO list: the last job of the submit (render or
 * cache_clean for CL, cache_clean for CSD), exactly as 6.1 does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_syncobj_timeline.h"
#include "sim_v3d_priv.h"

/* The multisync extension, resolved. */
struct multisync {
	bool present;
	const struct drm_v3d_sem *in;
	uint32_t in_count;
	uint32_t wait_stage;
	struct sim_syncobj **out;
	uint64_t *out_points; /* 0: the job's fence replaces the syncobj's; else a new point */
	uint32_t out_count;
};

static void multisync_fini(struct multisync *ms)
{
	free(ms->out);
	free(ms->out_points);
}

static int parse_multisync(struct v3ds_open *o, const struct drm_v3d_multi_sync *ext, struct multisync *ms)
{
	if (ms->present)
		return -EINVAL; /* 6.1 silently took the last one (and leaked); newer kernels refuse */
	if (!ext->in_sync_count && !ext->out_sync_count)
		return -EINVAL; /* "Empty multisync extension" */
	if (ext->pad)
		return -EINVAL;
	if (ext->out_sync_count) {
		const struct drm_v3d_sem *out = (const struct drm_v3d_sem *)(uintptr_t)ext->out_syncs;
		if (!out)
			return -EFAULT;
		ms->out = calloc(ext->out_sync_count, sizeof(*ms->out));
		ms->out_points = calloc(ext->out_sync_count, sizeof(*ms->out_points));
		if (!ms->out || !ms->out_points) {
			multisync_fini(ms);
			ms->out = NULL;
			ms->out_points = NULL;
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < ext->out_sync_count; i++) {
			ms->out[i] = sim_syncobj_lookup(&o->syncobjs, out[i].handle);
			ms->out_points[i] = out[i].point;
			if (!ms->out[i]) {
				multisync_fini(ms);
				ms->out = NULL;
				ms->out_points = NULL;
				return -EINVAL;
			}
		}
		ms->out_count = ext->out_sync_count;
	}
	ms->in = (const struct drm_v3d_sem *)(uintptr_t)ext->in_syncs;
	if (ext->in_sync_count && !ms->in) {
		multisync_fini(ms);
		ms->out = NULL;
		ms->out_points = NULL;
		return -EFAULT;
	}
	ms->in_count = ext->in_sync_count;
	ms->wait_stage = ext->wait_stage; /* not range-checked by 6.1: an unknown stage waits nowhere */
	ms->present = true;
	return 0;
}

/* v3d_get_extensions: walks the user chain; unknown ids are -EINVAL. */
static int get_extensions(struct v3ds_open *o, uint64_t ptr, struct multisync *ms)
{
	unsigned guard = 0;
	while (ptr) {
		if (++guard > 64)
			return -EINVAL; /* a cycle in the chain: the kernel would loop; refuse */
		const struct drm_v3d_extension *ext = (const struct drm_v3d_extension *)(uintptr_t)ptr;
		switch (ext->id) {
		case DRM_V3D_EXT_ID_MULTI_SYNC: {
			int ret = parse_multisync(o, (const struct drm_v3d_multi_sync *)ext, ms);
			if (ret)
				return ret;
			break;
		}
		default:
			return -EINVAL;
		}
		ptr = ext->next;
	}
	return 0;
}

void v3ds_job_free(struct v3ds_job *job)
{
	if (!job)
		return;
	for (uint32_t i = 0; i < job->nr_deps; i++)
		sim_fence_put(job->deps[i]);
	free(job->deps);
	for (uint32_t i = 0; i < job->nr_bos; i++)
		v3ds_bo_put(job->bos[i]);
	free(job->bos);
	sim_fence_put(job->done);
	if ((job->queue == V3D_BIN || job->queue == V3D_RENDER) && job->u.cl.shared &&
	    --job->u.cl.shared->refs == 0)
		free(job->u.cl.shared);
	free(job);
}

static int add_dep(struct v3ds_job *job, struct sim_fence *f)
{
	if (f->signaled)
		return 0;
	struct sim_fence **d = realloc(job->deps, (job->nr_deps + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	job->deps = d;
	job->deps[job->nr_deps++] = sim_fence_get(f);
	return 0;
}

/* drm_syncobj_find_fence at point (ferry offers DRIVER_SYNCOBJ_TIMELINE; 6.1's v3d passes 0): a
 * handle naming nothing (0 included) is no dependency; a syncobj without a fence at the point
 * fails the submit with -EINVAL. */
static int add_syncobj_dep(struct v3ds_open *o, struct v3ds_job *job, uint32_t handle, uint64_t point)
{
	struct sim_fence *f;
	int ret = sim_syncobj_find_fence(&o->syncobjs, handle, point, &f);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	ret = add_dep(job, f);
	sim_fence_put(f);
	return ret;
}

/* v3d_job_init: the job with its in-fences (the single in_sync, or the multisync in_syncs when
 * its wait_stage is this queue). */
static int job_init(struct v3ds_open *o, enum v3d_queue queue, uint32_t in_sync, const struct multisync *ms,
		    uint64_t serial, uint32_t out_sync, struct v3ds_job **out)
{
	struct v3ds_job *job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	job->queue = queue;
	job->open = o;
	job->client = o->client;
	job->submit_serial = serial;
	job->out_sync = out_sync;
	job->done = sim_fence_new();
	if (!job->done) {
		free(job);
		return -ENOMEM;
	}
	int ret = 0;
	if (ms && ms->present) {
		if (ms->in_count && ms->wait_stage == (uint32_t)queue)
			for (uint32_t i = 0; i < ms->in_count && !ret; i++)
				ret = add_syncobj_dep(o, job, ms->in[i].handle, ms->in[i].point);
	} else {
		ret = add_syncobj_dep(o, job, in_sync, 0);
	}
	if (ret) {
		v3ds_job_free(job);
		return ret;
	}
	*out = job;
	return 0;
}

/* v3d_lookup_bos: count 0 is -EINVAL ("Rendering requires BOs"), a bad handle -ENOENT. */
static int lookup_bos(struct v3ds_open *o, struct v3ds_job *job, uint64_t ptr, uint32_t count)
{
	if (count == 0)
		return -EINVAL;
	const uint32_t *handles = (const uint32_t *)(uintptr_t)ptr;
	if (!handles)
		return -EFAULT;
	job->bos = calloc(count, sizeof(*job->bos));
	if (!job->bos)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		struct v3ds_bo *bo = v3ds_bo_lookup(o, handles[i]);
		if (!bo)
			return -ENOENT;
		v3ds_bo_get(bo);
		job->bos[job->nr_bos++] = bo;
	}
	return 0;
}

/* v3d_lock_bo_reservations: the job waits for every earlier job that listed one of its BOs. */
static int add_implicit_deps(struct v3ds_job *job)
{
	for (uint32_t i = 0; i < job->nr_bos; i++) {
		if (job->bos[i]->resv) {
			int ret = add_dep(job, job->bos[i]->resv);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* v3d_attach_fences_and_unlock_reservation: the done fence becomes each BO's WRITE fence and
 * goes into the out syncobj(s). */
static void attach_fences(struct v3ds_open *o, struct v3ds_job *last, uint32_t out_sync, const struct multisync *ms)
{
	for (uint32_t i = 0; i < last->nr_bos; i++) {
		struct v3ds_bo *bo = last->bos[i];
		sim_fence_put(bo->resv);
		bo->resv = sim_fence_get(last->done);
	}
	if (ms->present) {
		for (uint32_t i = 0; i < ms->out_count; i++) {
			if (ms->out_points[i]) /* an allocation failure here loses the point, as msm's */
				(void)sim_syncobj_add_point(&o->dev->sync, ms->out[i], last->done, ms->out_points[i]);
			else
				sim_syncobj_replace(&o->dev->sync, ms->out[i], last->done);
		}
	} else {
		struct sim_syncobj *s = sim_syncobj_lookup(&o->syncobjs, out_sync);
		if (s)
			sim_syncobj_replace(&o->dev->sync, s, last->done);
	}
}

int v3ds_ioctl_submit_cl(struct v3ds_open *o, struct drm_v3d_submit_cl *a)
{
	struct sim_v3d_device *dev = o->dev;
	bool here = o->submit_here; /* for this call only, whatever it returns */
	o->submit_here = false;
	uint64_t serial = dev->next_submit_serial++;
	v3ds_trace(dev, SIM_V3D_TRACE_SUBMIT_CL_IOCTL, a->bcl_start != a->bcl_end ? V3D_BIN : V3D_RENDER, 0,
		   o->client, a->rcl_start, a->rcl_end);
	if (a->pad)
		return -EINVAL;
	if (a->flags & ~(uint32_t)(DRM_V3D_SUBMIT_CL_FLUSH_CACHE | DRM_V3D_SUBMIT_EXTENSION))
		return -EINVAL;
	if (o->syncobjs.lost)
		return -EIO; /* the fake kernel's lost open (lose_on_fault), as ferryd's lost context */
	struct multisync ms = { 0 };
	struct v3ds_job *bin = NULL, *render = NULL, *clean = NULL;
	struct v3ds_cl_submit *shared = NULL;
	int ret = 0;
	if (a->flags & DRM_V3D_SUBMIT_EXTENSION) {
		ret = get_extensions(o, a->extensions, &ms);
		if (ret)
			goto out;
	}
	shared = calloc(1, sizeof(*shared));
	if (!shared) {
		ret = -ENOMEM;
		goto out;
	}
	ret = job_init(o, V3D_RENDER, a->in_sync_rcl, &ms, serial, a->out_sync, &render);
	if (ret)
		goto out;
	render->u.cl.start = a->rcl_start;
	render->u.cl.end = a->rcl_end;
	render->u.cl.shared = shared; /* from here on the jobs own it */
	shared->refs = 1;
	shared = NULL;
	if (a->bcl_start != a->bcl_end) {
		ret = job_init(o, V3D_BIN, a->in_sync_bcl, &ms, serial, a->out_sync, &bin);
		if (ret)
			goto out;
		bin->u.cl.start = a->bcl_start;
		bin->u.cl.end = a->bcl_end;
		bin->u.cl.qma = a->qma;
		bin->u.cl.qms = a->qms;
		bin->u.cl.qts = a->qts;
		bin->u.cl.shared = render->u.cl.shared;
		bin->u.cl.shared->refs++;
	}
	if (a->flags & DRM_V3D_SUBMIT_CL_FLUSH_CACHE) {
		ret = job_init(o, V3D_CACHE_CLEAN, 0, NULL, serial, a->out_sync, &clean);
		if (ret)
			goto out;
	}
	struct v3ds_job *last = clean ? clean : render;
	ret = lookup_bos(o, last, a->bo_handles, a->bo_handle_count);
	if (ret)
		goto out;
	ret = add_implicit_deps(last);
	if (ret)
		goto out;
	if (a->perfmon_id) {
		ret = -ENOENT; /* perfmons are not modelled, so no id names one */
		goto out;
	}
	if (bin) {
		ret = add_dep(render, bin->done);
		if (ret)
			goto out;
	}
	if (clean) {
		ret = add_dep(clean, render->done);
		if (ret)
			goto out;
	}
	attach_fences(o, last, a->out_sync, &ms);
	if (bin)
		v3ds_sched_push(dev, bin);
	v3ds_sched_push(dev, render);
	if (clean)
		v3ds_sched_push(dev, clean);
	v3ds_sched_kick(dev, here ? o : NULL);
	bin = render = clean = NULL;
out:
	v3ds_job_free(bin);
	v3ds_job_free(render);
	v3ds_job_free(clean);
	free(shared);
	multisync_fini(&ms);
	return ret;
}

int v3ds_ioctl_submit_tfu(struct v3ds_open *o, struct drm_v3d_submit_tfu *a)
{
	struct sim_v3d_device *dev = o->dev;
	uint64_t serial = dev->next_submit_serial++;
	v3ds_trace(dev, SIM_V3D_TRACE_SUBMIT_TFU_IOCTL, V3D_TFU, 0, o->client, a->iia, 0);
	/* 6.1's check: any flags must include EXTENSION (other bits ride along unchecked). */
	if (a->flags && !(a->flags & DRM_V3D_SUBMIT_EXTENSION))
		return -EINVAL;
	if (o->syncobjs.lost)
		return -EIO;
	struct multisync ms = { 0 };
	struct v3ds_job *job = NULL;
	int ret = 0;
	if (a->flags & DRM_V3D_SUBMIT_EXTENSION) {
		ret = get_extensions(o, a->extensions, &ms);
		if (ret)
			goto out;
	}
	ret = job_init(o, V3D_TFU, a->in_sync, &ms, serial, a->out_sync, &job);
	if (ret)
		goto out;
	job->u.tfu = *a;
	/* bo_handles[0] is the output, then inputs, 0-terminated; none at all is allowed. */
	job->bos = calloc(4, sizeof(*job->bos));
	if (!job->bos) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < 4 && a->bo_handles[i]; i++) {
		struct v3ds_bo *bo = v3ds_bo_lookup(o, a->bo_handles[i]);
		if (!bo) {
			ret = -ENOENT;
			goto out;
		}
		v3ds_bo_get(bo);
		job->bos[job->nr_bos++] = bo;
	}
	ret = add_implicit_deps(job);
	if (ret)
		goto out;
	attach_fences(o, job, a->out_sync, &ms);
	v3ds_sched_push(dev, job);
	v3ds_sched_kick(dev, NULL);
	job = NULL;
out:
	v3ds_job_free(job);
	multisync_fini(&ms);
	return ret;
}

int v3ds_ioctl_submit_csd(struct v3ds_open *o, struct drm_v3d_submit_csd *a)
{
	struct sim_v3d_device *dev = o->dev;
	uint64_t serial = dev->next_submit_serial++;
	/* Both models have CSD (ver >= 41), so the 6.1 -EINVAL for older cores never applies. */
	v3ds_trace(dev, SIM_V3D_TRACE_SUBMIT_CSD_IOCTL, V3D_CSD, 0, o->client, a->cfg[5], a->cfg[6]);
	if (a->flags && !(a->flags & DRM_V3D_SUBMIT_EXTENSION))
		return -EINVAL;
	if (a->pad)
		return -EINVAL;
	if (o->syncobjs.lost)
		return -EIO;
	struct multisync ms = { 0 };
	struct v3ds_job *job = NULL, *clean = NULL;
	int ret = 0;
	if (a->flags & DRM_V3D_SUBMIT_EXTENSION) {
		ret = get_extensions(o, a->extensions, &ms);
		if (ret)
			goto out;
	}
	ret = job_init(o, V3D_CSD, a->in_sync, &ms, serial, a->out_sync, &job);
	if (ret)
		goto out;
	memcpy(job->u.csd.cfg, a->cfg, sizeof(job->u.csd.cfg));
	ret = job_init(o, V3D_CACHE_CLEAN, 0, NULL, serial, a->out_sync, &clean);
	if (ret)
		goto out;
	ret = lookup_bos(o, clean, a->bo_handles, a->bo_handle_count);
	if (ret)
		goto out;
	ret = add_implicit_deps(clean);
	if (ret)
		goto out;
	if (a->perfmon_id) {
		ret = -ENOENT;
		goto out;
	}
	ret = add_dep(clean, job->done);
	if (ret)
		goto out;
	attach_fences(o, clean, a->out_sync, &ms);
	v3ds_sched_push(dev, job);
	v3ds_sched_push(dev, clean);
	v3ds_sched_kick(dev, NULL);
	job = clean = NULL;
out:
	v3ds_job_free(job);
	v3ds_job_free(clean);
	multisync_fini(&ms);
	return ret;
}
