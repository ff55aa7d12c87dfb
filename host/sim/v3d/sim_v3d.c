/* The simulated v3d device: models (ident registers of RPi4 / RPi5), device lifetime, opens, the
 * drm_ioctl argument copying and the struct kdev vtable that dispatches to sim_v3d_*.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim_kdev_common.h"
#include "sim_v3d_priv.h"

#define DEFAULT_HANGCHECK_MS 500u

/* DRM_IOCTL_VERSION and the driver features GET_CAP reports (v3d_drv.c, 6.1). */
static const struct sim_drm_driver v3d_driver = {
	.name = V3D_DRIVER_NAME, .date = V3D_DRIVER_DATE, .desc = V3D_DRIVER_DESC,
	.major = V3D_DRIVER_MAJOR, .minor = V3D_DRIVER_MINOR, .patchlevel = V3D_DRIVER_PATCHLEVEL,
	.modeset = false,
};

/* Reference §7.2. 4.2: a BCM2711 as Mesa's drm-shim has it (= real hardware). 7.1: a BCM2712
 * board as reported from the field: HUB_IDENT3 rev 10 (7.1.10, so CSD cfg[4] is the batch count
 * itself, Mesa's ver == 71 && rev >= 6 rule), CORE0_IDENT1 with 3 slices. */
static const struct v3ds_model models[] = {
	{ .name = "v3d-4.2", .ver = 42, .cl_readahead = 256,
	  .ident = { 0x00000045, 0x000e1124, 0x00000100, 0x00000e00, 0x04443356, 0x81001422, 0x40078121 } },
	{ .name = "v3d-7.1", .ver = 71, .cl_readahead = 1024,
	  .ident = { 0x00000045, 0x00081117, 0x00001900, 0x00020a00, 0x07443356, 0x81001431, 0xc0078101 } },
};

const char *const sim_v3d_models[] = { "v3d-4.2", "v3d-7.1", NULL };

int sim_v3d_device_create(const char *model, struct sim_v3d_device **out)
{
	*out = NULL;
	const struct v3ds_model *m = NULL;
	for (size_t i = 0; model && i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(models[i].name, model))
			m = &models[i];
	if (!m)
		return -EINVAL;
	struct sim_v3d_device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->model = m;
	dev->hangcheck_ms = DEFAULT_HANGCHECK_MS;
	dev->next_mmap_offset = 0x100000000ull; /* fake offsets, as drm_vma hands out */
	dev->next_client = 1;
	dev->trace = calloc(1, sizeof(*dev->trace));
	dev->csd = calloc(1, sizeof(*dev->csd));
	dev->cle[0] = v3d_cle_create(m->ver);
	dev->cle[1] = v3d_cle_create(m->ver);
	/* drm_mm_init(&v3d->mm, 1, pt_size / 4 - 1): page 0 is never handed out, so no BO sits at
	 * GPU address 0, which several units treat as "none". */
	int ret = -ENOMEM;
	if (!dev->trace || !dev->csd || !dev->cle[0] || !dev->cle[1] ||
	    iova_alloc_init(&dev->vm, V3DS_PAGE_SIZE, (1ull << 32) - V3DS_PAGE_SIZE))
		goto fail;
	sim_device_sync_init(&dev->lock, &dev->work_cond, &dev->done_cond);
	sim_sync_dev_init(&dev->sync, &dev->lock.mutex, &dev->done_cond, &dev->work_cond);
	dev->serial = sim_drm_device_serial();
	ret = v3ds_sched_start(dev);
	if (ret) {
		sim_device_sync_destroy(&dev->lock, &dev->work_cond, &dev->done_cond);
		iova_alloc_fini(&dev->vm);
		goto fail;
	}
	*out = dev;
	return 0;
fail:
	if (dev->cle[0])
		v3d_cle_destroy(dev->cle[0]);
	if (dev->cle[1])
		v3d_cle_destroy(dev->cle[1]);
	free(dev->trace);
	free(dev->csd);
	free(dev);
	return ret;
}

void sim_v3d_device_destroy(struct sim_v3d_device *dev)
{
	if (!dev)
		return;
	v3ds_sched_stop(dev);
	sim_sync_dev_fini(&dev->sync);
	sim_device_sync_destroy(&dev->lock, &dev->work_cond, &dev->done_cond);
	iova_alloc_fini(&dev->vm);
	v3d_cle_destroy(dev->cle[0]);
	v3d_cle_destroy(dev->cle[1]);
	free(dev->trace);
	free(dev->csd);
	free(dev);
}

const char *sim_v3d_model(const struct sim_v3d_device *dev)
{
	return dev->model->name;
}

int sim_v3d_version(const struct sim_v3d_device *dev)
{
	return dev->model->ver;
}

void sim_v3d_set_hangcheck_ms(struct sim_v3d_device *dev, unsigned ms)
{
	sim_dev_lock(&dev->lock);
	dev->hangcheck_ms = ms ? ms : DEFAULT_HANGCHECK_MS;
	pthread_cond_signal(&dev->work_cond);
	sim_dev_unlock(&dev->lock);
}

void sim_v3d_set_paused(struct sim_v3d_device *dev, bool paused)
{
	sim_dev_lock(&dev->lock);
	dev->paused = paused;
	pthread_cond_signal(&dev->work_cond);
	sim_dev_unlock(&dev->lock);
}

void sim_v3d_get_stats(struct sim_v3d_device *dev, struct sim_v3d_stats *out)
{
	sim_dev_lock(&dev->lock);
	*out = dev->stats;
	sim_dev_unlock(&dev->lock);
}

static struct v3ds_open *to_open(struct kdev *kd)
{
	return (struct v3ds_open *)kd;
}

uint32_t sim_v3d_client_id(struct kdev *kd)
{
	return to_open(kd)->client;
}

uint32_t sim_v3d_open_faults(struct kdev *kd)
{
	struct v3ds_open *o = to_open(kd);
	sim_dev_lock(&o->dev->lock);
	uint32_t n = o->faults;
	sim_dev_unlock(&o->dev->lock);
	return n;
}

void sim_v3d_strand_waits(struct kdev *kd, int64_t end_ns)
{
	struct v3ds_open *o = to_open(kd);
	sim_dev_lock(&o->dev->lock);
	sim_syncobj_strand(&o->dev->sync, &o->syncobjs, end_ns);
	sim_dev_unlock(&o->dev->lock);
}

void sim_v3d_lose_on_fault(struct kdev *kd, int64_t grace_ns)
{
	struct v3ds_open *o = to_open(kd);
	sim_dev_lock(&o->dev->lock);
	o->syncobjs.lose_on_fault = true;
	o->syncobjs.lost_grace_ns = grace_ns;
	sim_dev_unlock(&o->dev->lock);
}

/* --- GET_PARAM --- */

static int ioctl_get_param(struct v3ds_open *o, struct drm_v3d_get_param *a)
{
	if (a->pad != 0)
		return -EINVAL;
	if (a->param <= DRM_V3D_PARAM_V3D_CORE0_IDENT2) {
		if (a->value != 0) /* register params must come in zeroed */
			return -EINVAL;
		a->value = o->dev->model->ident[a->param];
		return 0;
	}
	switch (a->param) {
	case DRM_V3D_PARAM_SUPPORTS_TFU:
	case DRM_V3D_PARAM_SUPPORTS_CSD: /* ver >= 41 on both models */
	case DRM_V3D_PARAM_SUPPORTS_CACHE_FLUSH:
	case DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT:
		a->value = 1;
		return 0;
	case DRM_V3D_PARAM_SUPPORTS_PERFMON:
		/* Performance counters are not modelled: say so, so Mesa does not create perfmons
		 * (the 6.1 kernel on real hardware answers 1). */
		a->value = 0;
		return 0;
	default:
		return -EINVAL; /* includes the params added after 6.1 */
	}
}

/* --- kdev vtable --- */

/* The kernel-side argument of every ioctl the simulator knows, for drm_ioctl's copying. */
union v3ds_ioctl_arg {
	struct drm_v3d_submit_cl submit_cl;
	struct drm_v3d_wait_bo wait_bo;
	struct drm_v3d_create_bo create_bo;
	struct drm_v3d_mmap_bo mmap_bo;
	struct drm_v3d_get_param get_param;
	struct drm_v3d_get_bo_offset get_bo_offset;
	struct drm_v3d_submit_tfu submit_tfu;
	struct drm_v3d_submit_csd submit_csd;
	struct drm_gem_close gem_close;
	struct drm_prime_handle prime;
	struct drm_version version;
	struct drm_get_cap get_cap;
	struct drm_syncobj_create syncobj_create;
	struct drm_syncobj_destroy syncobj_destroy;
	struct drm_syncobj_handle syncobj_handle;
	struct drm_syncobj_wait syncobj_wait;
	struct drm_syncobj_array syncobj_array;
	struct drm_syncobj_timeline_wait syncobj_timeline_wait;
	struct drm_syncobj_timeline_array syncobj_timeline_array;
	struct drm_syncobj_transfer syncobj_transfer;
};

static int dispatch(void *open, unsigned nr, void *kv)
{
	struct v3ds_open *o = open;
	union v3ds_ioctl_arg *k = kv;
	switch (nr) {
	case DRM_COMMAND_BASE + DRM_V3D_SUBMIT_CL: return v3ds_ioctl_submit_cl(o, &k->submit_cl);
	case DRM_COMMAND_BASE + DRM_V3D_WAIT_BO: return v3ds_ioctl_wait_bo(o, &k->wait_bo);
	case DRM_COMMAND_BASE + DRM_V3D_CREATE_BO: return v3ds_ioctl_create_bo(o, &k->create_bo);
	case DRM_COMMAND_BASE + DRM_V3D_MMAP_BO: return v3ds_ioctl_mmap_bo(o, &k->mmap_bo);
	case DRM_COMMAND_BASE + DRM_V3D_GET_PARAM: return ioctl_get_param(o, &k->get_param);
	case DRM_COMMAND_BASE + DRM_V3D_GET_BO_OFFSET: return v3ds_ioctl_get_bo_offset(o, &k->get_bo_offset);
	case DRM_COMMAND_BASE + DRM_V3D_SUBMIT_TFU: return v3ds_ioctl_submit_tfu(o, &k->submit_tfu);
	case DRM_COMMAND_BASE + DRM_V3D_SUBMIT_CSD: return v3ds_ioctl_submit_csd(o, &k->submit_csd);
	case _IOC_NR(DRM_IOCTL_GEM_CLOSE): return v3ds_ioctl_gem_close(o, &k->gem_close);
	case _IOC_NR(DRM_IOCTL_PRIME_HANDLE_TO_FD): return v3ds_ioctl_prime_handle_to_fd(o, &k->prime);
	case _IOC_NR(DRM_IOCTL_PRIME_FD_TO_HANDLE): return v3ds_ioctl_prime_fd_to_handle(o, &k->prime);
	case _IOC_NR(DRM_IOCTL_VERSION): return sim_drm_version(&v3d_driver, &k->version);
	case _IOC_NR(DRM_IOCTL_GET_CAP): return sim_drm_get_cap(&v3d_driver, &k->get_cap);
	}
	return sim_syncobj_ioctl(&o->dev->sync, &o->syncobjs, nr, k);
}

/* drm_ioctl's handling (sim_drm_ioctl): the 80-byte 6.1 SUBMIT_TFU reaches the same handler as
 * the 88-byte one, and WAIT_BO's timeout goes back on -ETIME too. */
static int sim_kdev_ioctl(struct kdev *kd, unsigned long request, void *arg)
{
	struct v3ds_open *o = to_open(kd);
	union v3ds_ioctl_arg k;
	int ret = sim_drm_ioctl(&o->dev->lock, o, FERRY_IOCTL_V3D, request, arg, &k, sizeof(k), dispatch);
	/* Unexecuted work of jobs that finished is reported before the caller sees them done. */
	sim_unmodeled_sink_flush(&o->dev->lock, &o->unmodeled);
	return ret;
}

static void *sim_kdev_mmap(struct kdev *kd, size_t len, int prot, int flags, uint64_t offset)
{
	struct v3ds_open *o = to_open(kd);
	sim_dev_lock(&o->dev->lock);
	void *p = v3ds_gem_mmap(o, len, prot, flags, offset);
	sim_unlock_keep_errno(&o->dev->lock);
	return p;
}

static int sim_kdev_poll_fd(struct kdev *kd)
{
	return to_open(kd)->wakeup.fd;
}

static void sim_kdev_poll_ack(struct kdev *kd)
{
	sim_wakeup_drain(&to_open(kd)->wakeup, "sim-v3d");
}

static void sim_kdev_submit_here(struct kdev *kd)
{
	to_open(kd)->submit_here = true;
}

static bool sim_kdev_done_here(struct kdev *kd)
{
	struct v3ds_open *o = to_open(kd);
	bool done = o->done_here;
	o->done_here = false;
	return done;
}

static ssize_t sim_kdev_coredump(struct kdev *kd, char *buf, size_t len)
{
	struct v3ds_open *o = to_open(kd);
	return sim_coredump_take(&o->dev->lock, &o->coredump, buf, len);
}

static void sim_kdev_close(struct kdev *kd)
{
	struct v3ds_open *o = to_open(kd);
	struct sim_v3d_device *dev = o->dev;
	sim_dev_lock(&dev->lock);
	v3ds_sched_cancel_open(o);
	sim_syncobj_table_fini(&o->syncobjs);
	v3ds_gem_close_all(o);
	for (struct v3ds_open **po = &dev->opens; *po; po = &(*po)->next) {
		if (*po == o) {
			*po = o->next;
			break;
		}
	}
	pthread_cond_broadcast(&dev->done_cond);
	sim_dev_unlock(&dev->lock);
	sim_wakeup_fini(&o->wakeup);
	free(o->coredump);
	free(o->bos);
	free(o);
}

static const struct kdev_ops sim_v3d_kdev_ops = {
	.ioctl = sim_kdev_ioctl,
	.mmap = sim_kdev_mmap,
	.munmap = sim_kdev_munmap,
	.poll_fd = sim_kdev_poll_fd,
	.poll_ack = sim_kdev_poll_ack,
	.coredump = sim_kdev_coredump,
	.close = sim_kdev_close,
	.trace_read = v3ds_kdev_trace_read,
	.submit_here = sim_kdev_submit_here,
	.done_here = sim_kdev_done_here,
};

void sim_v3d_set_strict(struct sim_v3d_device *dev, bool strict)
{
	sim_dev_lock(&dev->lock);
	dev->strict = strict;
	sim_dev_unlock(&dev->lock);
}

void sim_v3d_set_unmodeled_cb(struct kdev *kd, sim_unmodeled_fn fn, void *cookie)
{
	struct v3ds_open *o = to_open(kd);
	sim_unmodeled_sink_set(&o->dev->lock, &o->unmodeled, fn, cookie);
}

struct kdev *sim_v3d_open(struct sim_v3d_device *dev)
{
	struct v3ds_open *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->dev = dev;
	if (sim_wakeup_init(&o->wakeup)) {
		free(o);
		return NULL;
	}
	o->kdev.ops = &sim_v3d_kdev_ops;
	o->kdev.name = o->name;
	sim_dev_lock(&dev->lock);
	o->client = dev->next_client++;
	snprintf(o->name, sizeof(o->name), "sim-%s client %u", dev->model->name, o->client);
	o->next = dev->opens;
	dev->opens = o;
	sim_dev_unlock(&dev->lock);
	return &o->kdev;
}

void sim_v3d_set_sync_file_hooks(struct sim_v3d_device *dev, const struct sim_sync_file_hooks *hooks)
{
	dev->sync.sync_files = hooks;
}
