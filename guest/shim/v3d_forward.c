/* The v3d driver ioctls (Linux 6.1 uAPI) answered through libferry: BOs live in the device's one
 * global address space (CREATE_BO returns the address, so it waits for ferryd's answer), and
 * each engine (CL, TFU, CSD) is a ferry queue of this open. Syncobj waits become ferry in-fences
 * and out-syncobjs get the job's fence, as the kernel's scheduler dependencies. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ferry/uapi/v3d_drm.h"
#include "shim_ferry.h"

static struct ferry_queue *engine(struct shim_dev *dev, uint32_t kind)
{
	return shim_queue_get(dev, &dev->v3d_queues[kind], kind, 0);
}

static struct ferry_bo *bo_lookup(struct shim_dev *dev, uint32_t handle, uint64_t *iova)
{
	return shim_bo_get(dev, handle, NULL, iova);
}

static int create_bo(struct shim_dev *dev, struct drm_v3d_create_bo *a)
{
	if (a->flags || a->size == 0)
		return -EINVAL;
	/* The kernel's BOs are whole pages (v3d_bo_create: PAGE_ALIGN). */
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;
	struct ferry_bo *bo;
	int r = ferry_bo_new(dev->ctx, ((uint64_t)a->size + pg - 1) & ~(pg - 1), 0, &bo);
	if (r < 0)
		return r;
	uint64_t iova;
	r = ferry_bo_iova(bo, &iova);
	if (r == 0 && iova > UINT32_MAX)
		r = -EIO;
	uint32_t handle;
	if (r == 0)
		r = shim_bo_add(dev, bo, 0, &handle);
	if (r < 0) {
		ferry_bo_close(bo);
		return r;
	}
	pthread_mutex_lock(&dev->lock);
	shim_bo_lookup(dev, handle)->iova = iova;
	pthread_mutex_unlock(&dev->lock);
	a->handle = handle;
	a->offset = (uint32_t)iova;
	return 0;
}

static int get_param(struct drm_v3d_get_param *a)
{
	/* 6.1 wants value 0 on input only for the register params (UIFCFG .. CORE0_IDENT2). */
	if (a->pad || (a->param <= DRM_V3D_PARAM_V3D_CORE0_IDENT2 && a->value))
		return -EINVAL;
	if (a->param == DRM_V3D_PARAM_SUPPORTS_PERFMON) {
		a->value = 0; /* perfmons are not forwarded */
		return 0;
	}
	uint64_t v;
	if (ferry_device_param(shim_ferry_device(), a->param, &v) < 0)
		return -EINVAL;
	a->value = v;
	return 0;
}

static int wait_bo(struct shim_dev *dev, struct drm_v3d_wait_bo *a)
{
	if (a->pad)
		return -EINVAL;
	struct ferry_bo *bo = bo_lookup(dev, a->handle, NULL);
	if (!bo)
		return -EINVAL;
	int64_t t = a->timeout_ns > INT64_MAX ? -1 : (int64_t)a->timeout_ns;
	/* ferryd answers BO waits for V3D whatever the op; READ|WRITE is what a full wait means. */
	int r = ferry_bo_cpu_prep(bo, 0x3, t);
	return (r == -ETIMEDOUT || r == -EBUSY) ? -ETIME : r;
}

/* In- and out-syncobjs of one submit, from its single fields or its multisync extension. */
struct sync_set {
	uint32_t in[64];
	uint64_t in_point[64];
	uint32_t nr_in;
	uint32_t out[64];
	uint64_t out_point[64];
	uint32_t nr_out;
	bool multisync; /* from the extension, else the submit's single fields */
};

static int parse_extensions(uint64_t ptr, struct sync_set *s, bool *multisync)
{
	*multisync = false;
	for (unsigned depth = 0; ptr; depth++) {
		if (depth > 16)
			return -EINVAL;
		const struct drm_v3d_extension *e = (const void *)(uintptr_t)ptr;
		if (e->flags)
			return -EINVAL;
		if (e->id != DRM_V3D_EXT_ID_MULTI_SYNC)
			return -EINVAL; /* unknown extension, as 6.1 */
		const struct drm_v3d_multi_sync *m = (const void *)e;
		/* v3d_get_multisync_submit_deps: one multisync, with something in it. */
		if (m->pad || *multisync || (!m->in_sync_count && !m->out_sync_count))
			return -EINVAL;
		if (m->in_sync_count > 64 || m->out_sync_count > 64)
			return -EINVAL;
		if ((m->in_sync_count && !m->in_syncs) || (m->out_sync_count && !m->out_syncs))
			return -EFAULT;
		const struct drm_v3d_sem *in = (const void *)(uintptr_t)m->in_syncs;
		const struct drm_v3d_sem *out = (const void *)(uintptr_t)m->out_syncs;
		/* Points as drm_syncobj takes them: ferry offers timelines (6.1's v3d passes 0). */
		for (uint32_t i = 0; i < m->in_sync_count; i++) {
			s->in_point[s->nr_in] = in[i].point;
			s->in[s->nr_in++] = in[i].handle;
		}
		for (uint32_t i = 0; i < m->out_sync_count; i++) {
			s->out_point[s->nr_out] = out[i].point;
			s->out[s->nr_out++] = out[i].handle;
		}
		*multisync = true;
		ptr = e->next;
	}
	return 0;
}

/* Multisync out-syncobjs must all exist (v3d_get_multisync_post_deps: -EINVAL); the single
 * out_sync field is looked up after the job and ignored when it names nothing. */
static int check_out(struct shim_dev *dev, const struct sync_set *s)
{
	for (uint32_t i = 0; s->multisync && i < s->nr_out; i++)
		if (!shim_syncobj_exists(dev, s->out[i]))
			return -EINVAL;
	return 0;
}

static int gather(struct shim_dev *dev, uint32_t flags, uint64_t ext, const uint32_t *in_single, uint32_t nr_single,
		  uint32_t out_single, struct sync_set *s)
{
	memset(s, 0, sizeof(*s));
	if (flags & DRM_V3D_SUBMIT_EXTENSION) {
		int r = parse_extensions(ext, s, &s->multisync);
		if (r < 0)
			return r;
		if ((r = check_out(dev, s)) < 0)
			return r;
	}
	if (!s->multisync) {
		for (uint32_t i = 0; i < nr_single; i++)
			if (in_single[i])
				s->in[s->nr_in++] = in_single[i];
		if (out_single)
			s->out[s->nr_out++] = out_single;
	}
	return 0;
}

/* Fences of this open's engines become in-fences (another open's are waited for by
 * shim_syncobj_in_fences). A handle that names no syncobj is skipped (the 6.1 kernel ignores
 * -ENOENT there); one without a fence at its point fails. */
static int in_fences(struct shim_dev *dev, const struct sync_set *s, struct shim_fence_list *l)
{
	for (uint32_t i = 0; i < s->nr_in; i++) {
		int r = shim_syncobj_in_fences(dev, s->in[i], s->in_point[i], l);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
	}
	return 0;
}

/* The kernel's submit ioctl answers at once, and v3dv learns of a lost device only from one (it
 * has no fault query to call after a wait): so a V3D submit waits for ferryd's verdict, one round
 * trip, and a refused job fails its ioctl with the validator's errno. */
static int confirm(struct ferry_queue *q, uint32_t seqno)
{
	int r = ferry_queue_confirm(q, seqno);
	if (r < 0)
		shim_log(false, "ferryd refused V3D job %u: %s", seqno, ferry_device_last_error(shim_ferry_device()));
	return r;
}

static void signal_out(struct shim_dev *dev, const struct sync_set *s, struct ferry_queue *q, uint32_t seqno)
{
	for (uint32_t i = 0; i < s->nr_out; i++)
		(void)shim_syncobj_attach_point(dev, s->out[i], (struct shim_fence_src){ q, seqno, dev }, s->out_point[i]);
}

static int bo_list(struct shim_dev *dev, uint64_t ptr, uint32_t count, struct ferry_bo ***out)
{
	if (count == 0 || count > (1u << 20))
		return -EINVAL;
	const uint32_t *h = (const uint32_t *)(uintptr_t)ptr;
	if (!h)
		return -EFAULT;
	struct ferry_bo **bos = calloc(count, sizeof(*bos));
	if (!bos)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		bos[i] = bo_lookup(dev, h[i], NULL);
		if (!bos[i]) {
			free(bos);
			return -ENOENT;
		}
	}
	*out = bos;
	return 0;
}

static int submit_cl(struct shim_dev *dev, struct drm_v3d_submit_cl *a)
{
	if (a->pad || (a->flags & ~(uint32_t)(DRM_V3D_SUBMIT_CL_FLUSH_CACHE | DRM_V3D_SUBMIT_EXTENSION)))
		return -EINVAL;
	if (a->perfmon_id)
		return -ENOENT; /* no perfmon was ever created here */
	struct sync_set s;
	uint32_t single[2] = { a->in_sync_bcl, a->in_sync_rcl };
	int r = gather(dev, a->flags, a->extensions, single, 2, a->out_sync, &s);
	if (r < 0)
		return r;
	struct ferry_queue *q = engine(dev, FERRY_QUEUE_KIND_V3D_CL);
	if (!q)
		return -ENOMEM;
	struct ferry_bo **bos;
	if ((r = bo_list(dev, a->bo_handles, a->bo_handle_count, &bos)) < 0)
		return r;
	struct shim_fence_list in = { 0 };
	if ((r = in_fences(dev, &s, &in)) == 0) {
		struct ferry_v3d_cl cl = {
			.bcl_start = a->bcl_start, .bcl_end = a->bcl_end, .rcl_start = a->rcl_start, .rcl_end = a->rcl_end,
			.qma = a->qma, .qms = a->qms, .qts = a->qts, .bos = bos, .nr_bos = a->bo_handle_count,
			.in_fences = in.v, .nr_in_fences = in.n,
			.flags = (a->flags & DRM_V3D_SUBMIT_CL_FLUSH_CACHE) ? FERRY_V3D_SUBMIT_FLUSH_CACHE : 0,
		};
		uint32_t seqno;
		r = ferry_v3d_submit_cl(q, &cl, &seqno);
		if (r == 0)
			r = confirm(q, seqno);
		if (r == 0)
			signal_out(dev, &s, q, seqno);
	}
	free(in.v);
	free(bos);
	return r;
}

static int submit_tfu(struct shim_dev *dev, struct drm_v3d_submit_tfu *a)
{
	if (a->flags & ~(uint32_t)DRM_V3D_SUBMIT_EXTENSION)
		return -EINVAL;
	struct sync_set s;
	int r = gather(dev, a->flags, a->extensions, &a->in_sync, 1, a->out_sync, &s);
	if (r < 0)
		return r;
	struct ferry_bo *bos[4];
	uint32_t n = 0;
	for (; n < 4 && a->bo_handles[n]; n++) {
		bos[n] = bo_lookup(dev, a->bo_handles[n], NULL);
		if (!bos[n])
			return -ENOENT;
	}
	if (n == 0)
		return -EINVAL;
	struct ferry_queue *q = engine(dev, FERRY_QUEUE_KIND_V3D_TFU);
	if (!q)
		return -ENOMEM;
	struct shim_fence_list in = { 0 };
	if ((r = in_fences(dev, &s, &in)) < 0) {
		free(in.v);
		return r;
	}
	struct ferry_v3d_tfu t = {
		.icfg = a->icfg, .iia = a->iia, .iis = a->iis, .ica = a->ica, .iua = a->iua, .ioa = a->ioa,
		.ios = a->ios, .v71_ioc = a->v71.ioc, .bos = bos, .nr_bos = n, .in_fences = in.v, .nr_in_fences = in.n,
	};
	memcpy(t.coef, a->coef, sizeof(t.coef));
	uint32_t seqno;
	r = ferry_v3d_submit_tfu(q, &t, &seqno);
	free(in.v);
	if (r == 0)
		r = confirm(q, seqno);
	if (r == 0)
		signal_out(dev, &s, q, seqno);
	return r;
}

static int submit_csd(struct shim_dev *dev, struct drm_v3d_submit_csd *a)
{
	if (a->pad || (a->flags & ~(uint32_t)DRM_V3D_SUBMIT_EXTENSION))
		return -EINVAL;
	if (a->perfmon_id)
		return -ENOENT;
	struct sync_set s;
	int r = gather(dev, a->flags, a->extensions, &a->in_sync, 1, a->out_sync, &s);
	if (r < 0)
		return r;
	struct ferry_queue *q = engine(dev, FERRY_QUEUE_KIND_V3D_CSD);
	if (!q)
		return -ENOMEM;
	struct ferry_bo **bos;
	if ((r = bo_list(dev, a->bo_handles, a->bo_handle_count, &bos)) < 0)
		return r;
	struct shim_fence_list in = { 0 };
	if ((r = in_fences(dev, &s, &in)) == 0) {
		struct ferry_v3d_csd c = { .bos = bos, .nr_bos = a->bo_handle_count, .in_fences = in.v,
					   .nr_in_fences = in.n };
		memcpy(c.cfg, a->cfg, sizeof(c.cfg));
		uint32_t seqno;
		r = ferry_v3d_submit_csd(q, &c, &seqno);
		if (r == 0)
			r = confirm(q, seqno);
		if (r == 0)
			signal_out(dev, &s, q, seqno);
	}
	free(in.v);
	free(bos);
	return r;
}

int shim_v3d_ioctl(struct shim_dev *dev, unsigned long request, void *arg)
{
	const struct ferry_ioctl *io = ferry_ioctl_find(FERRY_IOCTL_V3D, _IOC_NR(request));
	unsigned nr = _IOC_NR(request) - DRM_COMMAND_BASE;
	union {
		struct drm_v3d_submit_cl cl;
		struct drm_v3d_wait_bo wait;
		struct drm_v3d_create_bo create;
		struct drm_v3d_mmap_bo mmap;
		struct drm_v3d_get_param param;
		struct drm_v3d_get_bo_offset offset;
		struct drm_v3d_submit_tfu tfu;
		struct drm_v3d_submit_csd csd;
	} k;
	if (!io || ferry_ioctl_size(io) > sizeof(k)) {
		/* Perfmons included: SUPPORTS_PERFMON reads 0 here. */
		shim_log(false, "v3d ioctl nr 0x%x is not offered", nr);
		return -EINVAL;
	}
	shim_ioctl_copy_in(request, arg, &k, ferry_ioctl_size(io));
	int r;
	switch (nr) {
	case DRM_V3D_SUBMIT_CL: r = submit_cl(dev, &k.cl); break;
	case DRM_V3D_WAIT_BO: r = wait_bo(dev, &k.wait); break;
	case DRM_V3D_CREATE_BO: r = create_bo(dev, &k.create); break;
	case DRM_V3D_MMAP_BO:
		r = k.mmap.flags ? -EINVAL : bo_lookup(dev, k.mmap.handle, NULL) ? 0 : -ENOENT;
		if (r == 0)
			k.mmap.offset = shim_bo_mmap_offset(k.mmap.handle);
		break;
	case DRM_V3D_GET_PARAM: r = get_param(&k.param); break;
	case DRM_V3D_GET_BO_OFFSET: {
		uint64_t iova;
		r = bo_lookup(dev, k.offset.handle, &iova) ? 0 : -ENOENT;
		k.offset.offset = (uint32_t)iova;
		break;
	}
	case DRM_V3D_SUBMIT_TFU: r = submit_tfu(dev, &k.tfu); break;
	case DRM_V3D_SUBMIT_CSD: r = submit_csd(dev, &k.csd); break;
	default: r = -EINVAL; break;
	}
	shim_ioctl_copy_out(io, request, arg, &k); /* whatever the result, as drm_ioctl */
	return r;
}

void shim_v3d_close(struct shim_dev *dev)
{
	for (uint32_t k = 0; k < FERRY_QUEUE_KIND_COUNT; k++)
		if (dev->v3d_queues[k])
			ferry_queue_close(dev->v3d_queues[k]);
}
