/* The virgl_renderer_* entry points QEMU 7.2's virtio-gpu-gl device calls (reference §8.1), on
 * its main thread. They record resources, queue contexts, commands and fences for the worker and
 * return at once; nothing here blocks on guest work. Names and types are the ABI's; the bodies
 * are ferry's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/virtio.h"
#include "ferry/wire.h"
#include "vg.h"

#define VG_EXPORT __attribute__((visibility("default")))

/* The ABI's types, as virglrenderer.h declares them. */
struct virgl_box;
typedef void *virgl_renderer_gl_context;
struct virgl_renderer_gl_ctx_param;

struct virgl_renderer_callbacks {
	int version;
	void (*write_fence)(void *cookie, uint32_t fence);
	virgl_renderer_gl_context (*create_gl_context)(void *cookie, int scanout_idx,
						       struct virgl_renderer_gl_ctx_param *param);
	void (*destroy_gl_context)(void *cookie, virgl_renderer_gl_context ctx);
	int (*make_current)(void *cookie, int scanout_idx, virgl_renderer_gl_context ctx);
	int (*get_drm_fd)(void *cookie);                                                        /* version 2 */
	void (*write_context_fence)(void *cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id); /* 3 */
};

struct virgl_renderer_resource_create_args {
	uint32_t handle, target, format, bind, width, height, depth, array_size, last_level, nr_samples, flags;
};

struct virgl_renderer_resource_info {
	uint32_t handle, virgl_format, width, height, depth, flags, tex_id, stride;
	int drm_fourcc;
};

/* Transfers name a box within the resource; for a buffer, x and w are bytes. */
struct vg_box {
	uint32_t x, y, z, w, h, d;
};

static bool initialized;

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v && *v ? v : def;
}

/* A whole number setting in 0..max (unset or empty: def). A value that does not parse is an
 * error on QEMU's stderr, and the renderer does not start: it is never read as 0 or the default. */
static bool env_uint(const char *name, uint32_t def, uint32_t max, uint32_t *out)
{
	const char *v = getenv(name);
	if (!v || !*v) {
		*out = def;
		return true;
	}
	char *end;
	errno = 0;
	unsigned long x = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || x > max) {
		vg_log(FERRY_LOG_ERROR, "%s=%s: not a whole number in 0..%u", name, v, max);
		return false;
	}
	*out = (uint32_t)x;
	return true;
}

/* One of two words (unset or empty: the first); anything else as env_uint refuses it. */
static bool env_pick(const char *name, const char *off, const char *on, bool *out)
{
	const char *v = env_or(name, off);
	*out = strcmp(v, on) == 0;
	if (*out || strcmp(v, off) == 0)
		return true;
	vg_log(FERRY_LOG_ERROR, "%s=%s: expected %s or %s", name, v, off, on);
	return false;
}

/* The host's settings come from the environment QEMU was started with (`ferry qemu`, or
 * libvirt's <qemu:env>): FERRY_VG_GPU, FERRY_VG_SIM_STRICT, FERRY_VG_V3D_TENANCY,
 * FERRY_VG_ALLOW_PASSTHROUGH (ferryd's --allow-passthrough), FERRY_VG_LOG_LEVEL,
 * FERRY_VG_RING_LINGER_US (docs/vm.md). False when one of them is malformed (said on stderr). */
static bool config(struct vg_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->gpu, sizeof(cfg->gpu), "%s", env_or("FERRY_VG_GPU", "a630"));
	cfg->host.gpu = cfg->gpu;
	uint32_t level;
	/* At most 10 s of linger: longer would only keep the worker looking at idle rings. */
	/* Every setting looked at, so that each malformed one is said, not only the first. */
	int bad = !env_pick("FERRY_VG_SIM_STRICT", "0", "1", &cfg->host.sim_strict);
	bad += !env_pick("FERRY_VG_V3D_TENANCY", "exclusive", "shared", &cfg->host.v3d_shared_tenancy);
	bad += !env_pick("FERRY_VG_ALLOW_PASSTHROUGH", "0", "1", &cfg->host.allow_passthrough);
	bad += !env_uint("FERRY_VG_LOG_LEVEL", FERRY_LOG_WARN, FERRY_LOG_DEBUG, &level);
	bad += !env_uint("FERRY_VG_RING_LINGER_US", VG_RING_LINGER_DEFAULT_US, 10000000, &cfg->ring_linger_us);
	bool ok = bad == 0;
	cfg->host.log_level = (int)level;
	return ok;
}

VG_EXPORT int virgl_renderer_init(void *cookie, int flags, struct virgl_renderer_callbacks *cb)
{
	(void)flags;
	if (initialized)
		return 0;
	if (!cb || !cb->write_fence)
		return -EINVAL;
	struct vg_config cfg;
	if (!config(&cfg))
		return -EINVAL;
	int r = vg_fence_init(cb->write_fence, cb->version >= 3 ? cb->write_context_fence : NULL, cookie);
	if (r == 0 && (r = vg_worker_start(&cfg)) < 0)
		vg_fence_fini();
	if (r == 0) {
		initialized = true;
		vg_log(FERRY_LOG_INFO, "ferry renderer up: %s", vg_worker_device_name());
	}
	return r;
}

VG_EXPORT void virgl_renderer_cleanup(void *cookie)
{
	(void)cookie;
	if (!initialized)
		return;
	vg_worker_stop();
	vg_fence_fini();
	vg_res_free_all();
	initialized = false;
}

VG_EXPORT void virgl_renderer_poll(void)
{
	vg_fence_poll();
}

VG_EXPORT void virgl_renderer_reset(void)
{
	if (initialized)
		vg_worker_reset();
	vg_res_free_all();
}

VG_EXPORT void virgl_renderer_force_ctx_0(void)
{
}

/* QEMU asks at device creation, before init: ferry's capset content is fixed but for the
 * device name, filled once the host runs. */
static bool our_capset(uint32_t set)
{
	return set == 1 || set == FERRY_VIRTIO_CAPSET_ID || set == FERRY_VIRTIO_CAPSET_DRM;
}

VG_EXPORT void virgl_renderer_get_cap_set(uint32_t set, uint32_t *max_ver, uint32_t *max_size)
{
	bool ours = our_capset(set);
	if (max_ver)
		*max_ver = ours ? FERRY_VIRTIO_CAPSET_VERSION : 0;
	if (max_size)
		*max_size = ours ? (uint32_t)sizeof(struct ferry_virtio_caps) : 0;
}

VG_EXPORT void virgl_renderer_fill_caps(uint32_t set, uint32_t version, void *caps)
{
	(void)version;
	if (!caps || !our_capset(set))
		return;
	struct ferry_virtio_caps c = {
		.magic = FERRY_VIRTIO_CAPS_MAGIC,
		.version = FERRY_VIRTIO_VERSION,
		.wire_version = FERRY_PROTOCOL_VERSION,
		.max_execbuffer = FERRY_VIRTIO_MAX_EXECBUFFER,
	};
	snprintf(c.device, sizeof(c.device), "%s", initialized ? vg_worker_device_name() : "");
	memcpy(caps, &c, sizeof(c));
}

VG_EXPORT int virgl_renderer_context_create(uint32_t handle, uint32_t nlen, const char *name)
{
	(void)nlen;
	(void)name;
	if (!initialized || handle == 0)
		return EINVAL;
	uint64_t key = vg_res_ctx_begin(handle);
	return !key || vg_worker_ctx_create(handle, key, false) ? ENOMEM : 0;
}

/* Where the VMM has context types (CONTEXT_INIT): a context of one of ferry's capsets uses host
 * blobs for its BOs and fence pages (docs/vm.md, "Newer VMMs"; untested: no VMM here offers
 * them). Capset 0 is the plain context QEMU 7.2 makes. */
VG_EXPORT int virgl_renderer_context_create_with_flags(uint32_t ctx_id, uint32_t ctx_flags, uint32_t nlen,
							const char *name)
{
	uint32_t capset = ctx_flags & 0xffu;
	if (capset == 0)
		return virgl_renderer_context_create(ctx_id, nlen, name);
	if (!initialized || ctx_id == 0 || (capset != FERRY_VIRTIO_CAPSET_ID && capset != FERRY_VIRTIO_CAPSET_DRM))
		return -EINVAL;
	uint64_t key = vg_res_ctx_begin(ctx_id);
	return !key || vg_worker_ctx_create(ctx_id, key, true) ? -ENOMEM : 0;
}

VG_EXPORT void virgl_renderer_context_destroy(uint32_t handle)
{
	if (!initialized)
		return;
	vg_res_ctx_end(handle);
	(void)vg_worker_ctx_destroy(handle);
}

/* The fence QEMU creates right after a command is that command's. */
static uint32_t last_submit_ctx;
static bool last_submit_notify;

VG_EXPORT int virgl_renderer_submit_cmd(void *buffer, int ctx_id, int ndw)
{
	last_submit_ctx = 0;
	last_submit_notify = false;
	if (!initialized || ndw < 0 || (ndw && !buffer))
		return EINVAL;
	bool notify;
	int r = vg_worker_submit((uint32_t)ctx_id, buffer, (size_t)ndw * 4, &notify);
	if (r)
		return -r;
	last_submit_ctx = (uint32_t)ctx_id;
	last_submit_notify = notify;
	return 0;
}

#define VIRTIO_GPU_CMD_SUBMIT_3D 0x207u

/* Context fences (a VMM with CONTEXT_INIT): one ordered sequence per context and ring, completed
 * through write_context_fence. The fence QEMU creates right after a command is that command's. */
VG_EXPORT int virgl_renderer_context_create_fence(uint32_t ctx_id, uint32_t flags, uint32_t ring_idx,
						  uint64_t fence_id)
{
	(void)flags;
	if (!initialized || ctx_id == 0)
		return -EINVAL;
	bool notify = last_submit_notify && last_submit_ctx == ctx_id;
	last_submit_notify = false;
	return vg_worker_fence(ctx_id, ring_idx, fence_id, notify, notify ? ctx_id : 0) ? -ENOMEM : 0;
}

VG_EXPORT void virgl_renderer_context_poll(uint32_t ctx_id)
{
	(void)ctx_id;
	vg_fence_poll();
}

VG_EXPORT int virgl_renderer_context_get_poll_fd(uint32_t ctx_id)
{
	(void)ctx_id;
	return -1; /* completions arrive through GLib's main context */
}

/* Blob resources (untested here, as above). */
struct virgl_renderer_resource_create_blob_args {
	uint32_t res_handle, ctx_id, blob_mem, blob_flags;
	uint64_t blob_id, size;
	const struct iovec *iovecs;
	uint32_t num_iovs;
};

#define BLOB_MEM_GUEST 1u
#define BLOB_MEM_HOST3D 2u
#define BLOB_FD_TYPE_SHM 3u
#define MAP_CACHE_CACHED 1u

VG_EXPORT int virgl_renderer_resource_create_blob(const struct virgl_renderer_resource_create_blob_args *a)
{
	if (!initialized || !a || a->size == 0)
		return -EINVAL;
	if (a->blob_mem == BLOB_MEM_GUEST) {
		int r = vg_res_create(a->res_handle, a->size);
		if (r == 0 && a->num_iovs &&
		    (r = vg_res_attach_iov(a->res_handle, (struct iovec *)a->iovecs, (int)a->num_iovs)) != 0)
			vg_res_unref(a->res_handle);
		if (r == 0)
			vg_res_ctx_attach(a->ctx_id, a->res_handle);
		return -r;
	}
	if (a->blob_mem != BLOB_MEM_HOST3D)
		return -EINVAL;
	int fd;
	int r = vg_blob_take(a->ctx_id, a->blob_id, a->size, &fd);
	if (r == 0 && (r = -vg_res_create_blob(a->res_handle, fd, a->size)) == 0)
		vg_res_ctx_attach(a->ctx_id, a->res_handle);
	return r;
}

VG_EXPORT int virgl_renderer_resource_map(uint32_t res_handle, void **map, uint64_t *out_size)
{
	return map && out_size ? vg_res_map(res_handle, map, out_size) : -EINVAL;
}

VG_EXPORT int virgl_renderer_resource_unmap(uint32_t res_handle)
{
	return vg_res_unmap(res_handle);
}

VG_EXPORT int virgl_renderer_resource_get_map_info(uint32_t res_handle, uint32_t *map_info)
{
	(void)res_handle;
	if (!map_info)
		return -EINVAL;
	*map_info = MAP_CACHE_CACHED; /* shared memory pages */
	return 0;
}

VG_EXPORT int virgl_renderer_resource_export_blob(uint32_t res_id, uint32_t *fd_type, int *fd)
{
	if (!fd_type || !fd)
		return -EINVAL;
	int r = vg_res_export(res_id, fd);
	if (r == 0)
		*fd_type = BLOB_FD_TYPE_SHM;
	return r;
}

VG_EXPORT int virgl_renderer_create_fence(int client_fence_id, uint32_t cmd_type)
{
	if (!initialized)
		return EINVAL;
	bool notify = cmd_type == VIRTIO_GPU_CMD_SUBMIT_3D && last_submit_notify;
	int r = vg_worker_fence(0, 0, (uint32_t)client_fence_id, notify, notify ? last_submit_ctx : 0);
	last_submit_notify = false;
	return r ? ENOMEM : 0;
}

VG_EXPORT int virgl_renderer_resource_create(struct virgl_renderer_resource_create_args *args, struct iovec *iov,
					     uint32_t num_iovs)
{
	if (!args)
		return EINVAL;
	/* ferry's BOs are buffers: width bytes. Anything else still gets guest pages to hold. */
	uint64_t size = (uint64_t)args->width * (args->height ? args->height : 1); /* < 2^64 */
	uint32_t depth = args->depth ? args->depth : 1;
	if (size > UINT64_MAX / depth)
		return EINVAL;
	size *= depth;
	int r = vg_res_create(args->handle, size);
	if (r == 0 && num_iovs && (r = vg_res_attach_iov(args->handle, iov, (int)num_iovs)) != 0)
		vg_res_unref(args->handle);
	return r;
}

VG_EXPORT void virgl_renderer_resource_unref(uint32_t res_handle)
{
	vg_res_unref(res_handle);
}

VG_EXPORT int virgl_renderer_resource_attach_iov(int res_handle, struct iovec *iov, int num_iovs)
{
	return vg_res_attach_iov((uint32_t)res_handle, iov, num_iovs);
}

VG_EXPORT void virgl_renderer_resource_detach_iov(int res_handle, struct iovec **iov, int *num_iovs)
{
	vg_res_detach_iov((uint32_t)res_handle, iov, num_iovs);
}

VG_EXPORT int virgl_renderer_resource_get_info(int res_handle, struct virgl_renderer_resource_info *info)
{
	(void)res_handle;
	/* Nothing here is a texture QEMU could scan out. QEMU 7.2's SET_SCANOUT takes only -1 as
	 * failure and otherwise hands info->tex_id to its GL display: anything else (EINVAL, as
	 * this returned before) made it draw an uninitialized texture id and abort at exit. */
	if (info)
		memset(info, 0, sizeof(*info));
	return -1;
}

VG_EXPORT void virgl_renderer_ctx_attach_resource(int ctx_id, int res_handle)
{
	vg_res_ctx_attach((uint32_t)ctx_id, (uint32_t)res_handle);
}

VG_EXPORT void virgl_renderer_ctx_detach_resource(int ctx_id, int res_handle)
{
	vg_res_ctx_detach((uint32_t)ctx_id, (uint32_t)res_handle);
}

/* Guest-backed resources have no host copy but the BOs' (kept in step at submit and retire), so
 * a transfer only checks its range: the guest's pages already are the resource. */
static int transfer(uint32_t handle, const struct virgl_box *box, uint64_t offset)
{
	struct vg_box b = { 0 };
	if (box)
		memcpy(&b, box, sizeof(b));
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(handle);
	int e = !r ? EINVAL : (offset > r->size || b.w > r->size - offset) ? EINVAL : 0;
	pthread_mutex_unlock(&vg_mem_lock);
	return e;
}

VG_EXPORT int virgl_renderer_transfer_read_iov(uint32_t handle, uint32_t ctx_id, uint32_t level, uint32_t stride,
					       uint32_t layer_stride, struct virgl_box *box, uint64_t offset,
					       struct iovec *iov, int iovec_cnt)
{
	(void)ctx_id, (void)level, (void)stride, (void)layer_stride, (void)iov, (void)iovec_cnt;
	return transfer(handle, box, offset);
}

VG_EXPORT int virgl_renderer_transfer_write_iov(uint32_t handle, uint32_t ctx_id, int level, uint32_t stride,
						uint32_t layer_stride, struct virgl_box *box, uint64_t offset,
						struct iovec *iovec, unsigned int iovec_cnt)
{
	(void)ctx_id, (void)level, (void)stride, (void)layer_stride, (void)iovec, (void)iovec_cnt;
	return transfer(handle, box, offset);
}

VG_EXPORT void *virgl_renderer_get_cursor_data(uint32_t resource_id, uint32_t *width, uint32_t *height)
{
	(void)resource_id;
	if (width)
		*width = 0;
	if (height)
		*height = 0;
	return NULL;
}

/* vhost-user-gpu's extra imports (reference §8.1): no textures, no poll fd of our own (fences
 * complete through GLib's main context). */
VG_EXPORT int virgl_renderer_get_fd_for_texture(uint32_t tex_id, int *fd)
{
	(void)tex_id;
	if (fd)
		*fd = -1;
	return EINVAL;
}

VG_EXPORT int virgl_renderer_get_poll_fd(void)
{
	return -1;
}
