/* The simulated msm device: device lifetime, opens (one per DRM fd, each its own GPU address
 * space) and the struct kdev vtable that dispatches ioctls to the handlers in sim_msm_*.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim_kdev_common.h"
#include "sim_msm_priv.h"

#define DEFAULT_HANGCHECK_MS 500u

/* DRM_IOCTL_VERSION of 6.1 (msm_drv.c: 1.9.0) and the driver features GET_CAP reports. */
static const struct sim_drm_driver msm_driver = {
	.name = MSM_DRIVER_NAME, .date = MSM_DRIVER_DATE, .desc = MSM_DRIVER_DESC,
	.major = MSM_DRIVER_MAJOR, .minor = MSM_DRIVER_MINOR, .patchlevel = MSM_DRIVER_PATCHLEVEL,
	.modeset = true,
};
#define DEFAULT_SLICE_BUDGET 16384u

uint64_t msms_timespec_ns(const struct drm_msm_timespec *ts)
{
	if (ts->tv_sec < 0)
		return 0;
	if ((uint64_t)ts->tv_sec > UINT64_MAX / 1000000000u - 1)
		return UINT64_MAX;
	int64_t nsec = ts->tv_nsec;
	uint64_t base = (uint64_t)ts->tv_sec * 1000000000u;
	if (nsec < 0)
		return (uint64_t)-nsec > base ? 0 : base - (uint64_t)-nsec;
	return (uint64_t)nsec > UINT64_MAX - base ? UINT64_MAX : base + (uint64_t)nsec;
}

int sim_msm_device_create(const char *model, struct sim_msm_device **out)
{
	*out = NULL;
	const struct sim_msm_model *m = model ? sim_msm_model_find(model) : NULL;
	if (!m)
		return -EINVAL;
	struct sim_msm_device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->model = m;
	dev->hangcheck_ms = DEFAULT_HANGCHECK_MS;
	dev->slice_budget = DEFAULT_SLICE_BUDGET;
	dev->cp.regs = calloc(CP_NUM_REGS, sizeof(uint32_t));
	dev->cp.gmem_size = m->gmem_size;
	if (!dev->cp.regs) {
		free(dev);
		return -ENOMEM;
	}
	sim_device_sync_init(&dev->lock, &dev->work_cond, &dev->done_cond);
	sim_sync_dev_init(&dev->sync, &dev->lock.mutex, &dev->done_cond, &dev->work_cond);
	dev->serial = sim_drm_device_serial();
	int ret = msms_gpu_start(dev);
	if (ret) {
		sim_device_sync_destroy(&dev->lock, &dev->work_cond, &dev->done_cond);
		free(dev->cp.regs);
		free(dev);
		return ret;
	}
	*out = dev;
	return 0;
}

void sim_msm_device_destroy(struct sim_msm_device *dev)
{
	if (!dev)
		return;
	msms_gpu_stop(dev);
	/* Opens must be closed first; queues left draining belong to no open any more. */
	while (dev->queues) {
		struct msms_queue *q = dev->queues;
		dev->queues = q->dev_next;
		while (q->head) {
			struct msms_submit *s = q->head;
			q->head = s->next;
			msms_submit_free(s);
		}
		msms_queue_free(q);
	}
	free(dev->cp_spare);
	sim_sync_dev_fini(&dev->sync);
	sim_device_sync_destroy(&dev->lock, &dev->work_cond, &dev->done_cond);
	free(dev->cp.regs);
	free(dev);
}

const char *sim_msm_model(const struct sim_msm_device *dev)
{
	return dev->model->name;
}

void sim_msm_set_hangcheck_ms(struct sim_msm_device *dev, unsigned ms)
{
	sim_dev_lock(&dev->lock);
	dev->hangcheck_ms = ms ? ms : DEFAULT_HANGCHECK_MS;
	pthread_cond_signal(&dev->work_cond);
	sim_dev_unlock(&dev->lock);
}

void sim_msm_set_slice_budget(struct sim_msm_device *dev, uint32_t units)
{
	sim_dev_lock(&dev->lock);
	dev->slice_budget = units ? units : DEFAULT_SLICE_BUDGET;
	sim_dev_unlock(&dev->lock);
}

/* sim_msm.h spells the opcode count as 128 to stay free of the PM4 header. */
_Static_assert(sizeof(((struct sim_msm_cp_stats *)0)->skipped) == sizeof(((struct cp_device *)0)->skipped),
	       "one skipped counter per type-7 opcode");

void sim_msm_get_cp_stats(struct sim_msm_device *dev, struct sim_msm_cp_stats *out)
{
	sim_dev_lock(&dev->lock);
	out->packets = dev->cp.packets;
	out->type4_packets = dev->cp.type4_packets;
	memcpy(out->skipped, dev->cp.skipped, sizeof(out->skipped));
	out->retired = dev->retired;
	out->draws = dev->cp.draws;
	out->draw_state_runs = dev->cp.draw_state_runs;
	out->irqs = dev->cp.irqs;
	out->cond_skips = dev->cp.cond_skips;
	out->ib_chains = dev->cp.ib_chains;
	out->lock_wait_steps_max = dev->lock.wait_steps_max;
	out->issue_looks = dev->issue_looks;
	sim_dev_unlock(&dev->lock);
}

void sim_msm_set_paused(struct sim_msm_device *dev, bool paused)
{
	sim_dev_lock(&dev->lock);
	dev->paused = paused;
	pthread_cond_signal(&dev->work_cond);
	sim_dev_unlock(&dev->lock);
}

int sim_msm_memstore(struct kdev *kd, uint32_t ctx, struct sim_msm_memstore *out)
{
	struct msms_open *o = (struct msms_open *)kd;
	sim_dev_lock(&o->dev->lock);
	int ret = -ENOENT;
	for (const struct msms_queue *q = o->queues; q; q = q->open_next) {
		if (q->id != ctx)
			continue;
		const struct msms_memstore_slot *m = &q->memstore;
		*out = (struct sim_msm_memstore){ .soptimestamp = m->soptimestamp,
						  .eoptimestamp = m->eoptimestamp,
						  .queued = m->queued };
		ret = 0;
		break;
	}
	sim_dev_unlock(&o->dev->lock);
	return ret;
}

void sim_msm_strand_waits(struct kdev *kd, int64_t end_ns)
{
	struct msms_open *o = (struct msms_open *)kd;
	sim_dev_lock(&o->dev->lock);
	sim_syncobj_strand(&o->dev->sync, &o->syncobjs, end_ns);
	sim_dev_unlock(&o->dev->lock);
}

void sim_msm_lose_on_fault(struct kdev *kd, int64_t grace_ns)
{
	struct msms_open *o = (struct msms_open *)kd;
	sim_dev_lock(&o->dev->lock);
	o->syncobjs.lose_on_fault = true;
	o->syncobjs.lost_grace_ns = grace_ns;
	sim_dev_unlock(&o->dev->lock);
}

uint32_t sim_msm_read_reg(struct sim_msm_device *dev, uint32_t reg)
{
	sim_dev_lock(&dev->lock);
	uint32_t v = cp_reg_read(&dev->cp, reg);
	sim_dev_unlock(&dev->lock);
	return v;
}

/* --- kdev vtable --- */

static struct msms_open *to_open(struct kdev *kd)
{
	return (struct msms_open *)kd;
}

union sim_msm_ioctl_arg {
	struct drm_msm_param param;
	struct drm_msm_gem_new gem_new;
	struct drm_msm_gem_info gem_info;
	struct drm_msm_gem_cpu_prep cpu_prep;
	struct drm_msm_gem_cpu_fini cpu_fini;
	struct drm_msm_gem_submit submit;
	struct drm_msm_wait_fence wait_fence;
	struct drm_msm_gem_madvise madvise;
	struct drm_msm_submitqueue queue;
	struct drm_msm_submitqueue_query query;
	uint32_t queue_id;
	struct drm_gem_close gem_close;
	struct drm_prime_handle prime;
	struct drm_version version;
	struct drm_get_cap cap;
	struct drm_syncobj_wait syncobj_wait;
	struct drm_syncobj_handle syncobj_handle;
	struct drm_syncobj_timeline_wait syncobj_timeline_wait; /* the largest syncobj struct */
	struct drm_syncobj_timeline_array syncobj_timeline_array;
	struct drm_syncobj_transfer syncobj_transfer;
};

static int dispatch(void *open, unsigned nr, void *kv)
{
	struct msms_open *o = open;
	union sim_msm_ioctl_arg *k = kv;
	switch (nr) {
	case DRM_COMMAND_BASE + DRM_MSM_GET_PARAM: return msms_ioctl_get_param(o, &k->param);
	case DRM_COMMAND_BASE + DRM_MSM_SET_PARAM: return msms_ioctl_set_param(o, &k->param);
	case DRM_COMMAND_BASE + DRM_MSM_GEM_NEW: return msms_ioctl_gem_new(o, &k->gem_new);
	case DRM_COMMAND_BASE + DRM_MSM_GEM_INFO: return msms_ioctl_gem_info(o, &k->gem_info);
	case DRM_COMMAND_BASE + DRM_MSM_GEM_CPU_PREP: return msms_ioctl_gem_cpu_prep(o, &k->cpu_prep);
	case DRM_COMMAND_BASE + DRM_MSM_GEM_CPU_FINI: return msms_ioctl_gem_cpu_fini(o, &k->cpu_fini);
	case DRM_COMMAND_BASE + DRM_MSM_GEM_SUBMIT: return msms_ioctl_gem_submit(o, &k->submit);
	case DRM_COMMAND_BASE + DRM_MSM_WAIT_FENCE: return msms_ioctl_wait_fence(o, &k->wait_fence);
	case DRM_COMMAND_BASE + DRM_MSM_GEM_MADVISE: return msms_ioctl_gem_madvise(o, &k->madvise);
	case DRM_COMMAND_BASE + DRM_MSM_SUBMITQUEUE_NEW: return msms_ioctl_submitqueue_new(o, &k->queue);
	case DRM_COMMAND_BASE + DRM_MSM_SUBMITQUEUE_CLOSE: return msms_ioctl_submitqueue_close(o, &k->queue_id);
	case DRM_COMMAND_BASE + DRM_MSM_SUBMITQUEUE_QUERY: return msms_ioctl_submitqueue_query(o, &k->query);
	case _IOC_NR(DRM_IOCTL_GEM_CLOSE): return msms_ioctl_gem_close(o, &k->gem_close);
	case _IOC_NR(DRM_IOCTL_PRIME_HANDLE_TO_FD): return msms_ioctl_prime_handle_to_fd(o, &k->prime);
	case _IOC_NR(DRM_IOCTL_PRIME_FD_TO_HANDLE): return msms_ioctl_prime_fd_to_handle(o, &k->prime);
	case _IOC_NR(DRM_IOCTL_VERSION): return sim_drm_version(&msm_driver, &k->version);
	case _IOC_NR(DRM_IOCTL_GET_CAP): return sim_drm_get_cap(&msm_driver, &k->cap);
	}
	return sim_syncobj_ioctl(&o->dev->sync, &o->syncobjs, nr, k);
}

/* drm_ioctl's handling (sim_drm_ioctl). Handlers that may sleep (CPU_PREP, WAIT_FENCE,
 * SYNCOBJ_WAIT) drop the lock while they wait. */
static int sim_kdev_ioctl(struct kdev *kd, unsigned long request, void *arg)
{
	struct msms_open *o = to_open(kd);
	union sim_msm_ioctl_arg k;
	int ret = sim_drm_ioctl(&o->dev->lock, o, FERRY_IOCTL_MSM, request, arg, &k, sizeof(k), dispatch);
	/* Unexecuted work of submits that retired is reported before the caller sees them retired. */
	sim_unmodeled_sink_flush(&o->dev->lock, &o->unmodeled);
	return ret;
}

static void *sim_kdev_mmap(struct kdev *kd, size_t len, int prot, int flags, uint64_t offset)
{
	struct msms_open *o = to_open(kd);
	sim_dev_lock(&o->dev->lock);
	void *p = msms_gem_mmap(o, len, prot, flags, offset);
	sim_unlock_keep_errno(&o->dev->lock);
	return p;
}

static int sim_kdev_poll_fd(struct kdev *kd)
{
	return to_open(kd)->wakeup.fd;
}

static void sim_kdev_poll_ack(struct kdev *kd)
{
	sim_wakeup_drain(&to_open(kd)->wakeup, "sim-msm");
}

static void sim_kdev_submit_here(struct kdev *kd)
{
	to_open(kd)->submit_here = true;
}

static bool sim_kdev_done_here(struct kdev *kd)
{
	struct msms_open *o = to_open(kd);
	bool done = o->done_here;
	o->done_here = false;
	return done;
}

static ssize_t sim_kdev_coredump(struct kdev *kd, char *buf, size_t len)
{
	struct msms_open *o = to_open(kd);
	return sim_coredump_take(&o->dev->lock, &o->coredump, buf, len);
}

static ssize_t sim_kdev_debug_state(struct kdev *kd, char *buf, size_t len)
{
	return msms_debug_state(to_open(kd), buf, len);
}

static void sim_kdev_close(struct kdev *kd)
{
	struct msms_open *o = to_open(kd);
	struct sim_msm_device *dev = o->dev;
	sim_dev_lock(&dev->lock);
	msms_gpu_cancel_open(o);
	sim_syncobj_table_fini(&o->syncobjs);
	/* Queues that are now empty go away; msms_gpu_cancel_open left none pending. */
	for (struct msms_queue **pq = &dev->queues; *pq;) {
		struct msms_queue *q = *pq;
		if (q->open == o) {
			msms_dispatch_forget_queue(dev, q);
			*pq = q->dev_next;
			msms_queue_free(q);
		} else {
			pq = &q->dev_next;
		}
	}
	msms_gem_close_all(o);
	for (struct msms_open **po = &dev->opens; *po; po = &(*po)->next) {
		if (*po == o) {
			*po = o->next;
			break;
		}
	}
	if (dev->last_ctx == o)
		dev->last_ctx = NULL;
	pthread_cond_broadcast(&dev->done_cond);
	sim_dev_unlock(&dev->lock);
	iova_alloc_fini(&o->vm);
	sim_wakeup_fini(&o->wakeup);
	free(o->coredump);
	free(o->bos);
	free(o->trace);
	free(o);
}

static const struct kdev_ops sim_msm_kdev_ops = {
	.ioctl = sim_kdev_ioctl,
	.mmap = sim_kdev_mmap,
	.munmap = sim_kdev_munmap,
	.poll_fd = sim_kdev_poll_fd,
	.poll_ack = sim_kdev_poll_ack,
	.coredump = sim_kdev_coredump,
	.debug_state = sim_kdev_debug_state,
	.close = sim_kdev_close,
	.trace_read = msms_kdev_trace_read,
	.submit_here = sim_kdev_submit_here,
	.done_here = sim_kdev_done_here,
};

void sim_msm_set_strict(struct sim_msm_device *dev, bool strict)
{
	sim_dev_lock(&dev->lock);
	dev->cp.strict = strict;
	sim_dev_unlock(&dev->lock);
}

void sim_msm_set_unmodeled_cb(struct kdev *kd, sim_unmodeled_fn fn, void *cookie)
{
	struct msms_open *o = to_open(kd);
	sim_unmodeled_sink_set(&o->dev->lock, &o->unmodeled, fn, cookie);
}

struct kdev *sim_msm_open(struct sim_msm_device *dev)
{
	struct msms_open *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->dev = dev;
	if (sim_wakeup_init(&o->wakeup)) {
		free(o);
		return NULL;
	}
	/* Per-process pagetables: every open gets [VA_START, VA_START + VA_SIZE). */
	if (iova_alloc_init(&o->vm, 0x100000000ull, dev->model->va_size)) {
		sim_wakeup_fini(&o->wakeup);
		free(o);
		return NULL;
	}
	o->next_mmap_offset = 0x100000000ull; /* fake offsets, as drm_vma hands out */
	snprintf(o->name, sizeof(o->name), "sim-msm %s", dev->model->name);
	snprintf(o->comm, sizeof(o->comm), "%s", "ferry");
	o->kdev.ops = &sim_msm_kdev_ops;
	o->kdev.name = o->name;

	sim_dev_lock(&dev->lock);
	/* Queue 0, the default, at the middle priority as msm_submitqueue_init picks. */
	struct msms_queue *q0 = msms_queue_create(o, (MSMS_NR_PRIORITIES - 1 + 1) / 2);
	if (!q0) {
		sim_dev_unlock(&dev->lock);
		iova_alloc_fini(&o->vm);
		sim_wakeup_fini(&o->wakeup);
		free(o);
		return NULL;
	}
	o->next = dev->opens;
	dev->opens = o;
	sim_dev_unlock(&dev->lock);
	return &o->kdev;
}

void sim_msm_set_sync_file_hooks(struct sim_msm_device *dev, const struct sim_sync_file_hooks *hooks)
{
	dev->sync.sync_files = hooks;
}
