/* The V3D family behind the core's ops (family.h): the simulated device behind cfg.gpu "v3d-*",
 * tenancy (one global GPU address space: exclusive by default), one kdev open per context, V3D BOs
 * and queues. Submits, retiring and fault reports are v3d_core.c's; validation v3d_validation.c's. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device.h"
#include "backend/kdev.h"
#include "core/family.h"
#include "core/host_internal.h"
#include "core/v3d/v3d_capture.h"
#include "core/v3d/v3d_core.h"
#include "core/v3d/v3d_validation.h"
#include "validate/v3d_validate.h"

/* The core allocates ctx_size bytes and frees them as the struct host_ctx it sees. */
_Static_assert(offsetof(struct v3d_host_ctx, base) == 0, "the generic context comes first");

static int v3d_host_init(struct ferry_host *h)
{
	h->family_state = calloc(1, sizeof(struct v3d_host));
	if (!h->family_state)
		return -ENOMEM;
	/* Probe through a throwaway open: every context's open sees the same device. */
	errno = 0;
	struct kdev *kd = gpu_device_open(h->gpu_dev);
	if (!kd)
		return errno ? -errno : -ENOMEM;
	int ret = v3d_probe(kd, &v3d_host(h)->dev);
	kd->ops->close(kd);
	if (ret < 0) {
		host_log(h, FERRY_LOG_ERROR, "probing %s failed: %s", h->gpu, strerror(-ret));
		return ret;
	}
	struct v3dval_policy policy;
	v3dval_policy_default(&policy, (int)v3d_host(h)->dev.ver);
	v3d_host(h)->val = v3dval_create(&policy);
	if (!v3d_host(h)->val) {
		host_log(h, FERRY_LOG_ERROR, "no V3D validator for version %u", v3d_host(h)->dev.ver);
		return -ENOMEM;
	}
	host_log(h, FERRY_LOG_INFO, "serving %s (V3D %u.%u, %s tenancy%s)", h->device_name, v3d_host(h)->dev.ver / 10,
		 v3d_host(h)->dev.ver % 10, h->cfg.v3d_shared_tenancy ? "shared" : "exclusive",
		 h->cfg.v3d_shared_tenancy ? ": one global GPU address space, trusted tenants only" : "");
	return 0;
}

static void v3d_host_fini(struct ferry_host *h)
{
	if (!h->family_state)
		return;
	if (v3d_host(h)->val)
		v3dval_destroy(v3d_host(h)->val);
	v3d_host(h)->val = NULL;
	free(h->family_state);
	h->family_state = NULL;
}

/* ---- tenancy ---- */

static int v3d_ctx_admit(struct ferry_host_client *c, char *why, size_t n)
{
	struct ferry_host *h = c->host;
	if (h->cfg.v3d_shared_tenancy || !v3d_host(h)->holder || v3d_host(h)->holder == c)
		return 0;
	HOST_FAIL(-EBUSY, "V3D device is held by client %u (exclusive tenancy; see docs/security.md)",
		  v3d_host(h)->holder->id);
}

static void v3d_tenancy_added(struct host_ctx *ctx)
{
	struct ferry_host *h = ctx->client->host;
	if (h->cfg.v3d_shared_tenancy)
		return;
	if (!v3d_host(h)->holder) {
		v3d_host(h)->holder = ctx->client;
		host_log(h, FERRY_LOG_INFO, "%s (client %u) now holds the V3D device", ctx->client->peer,
			 ctx->client->id);
	}
	v3d_host(h)->holder_ctxs++;
}

static void v3d_tenancy_removed(struct host_ctx *ctx)
{
	struct ferry_host *h = ctx->client->host;
	if (h->cfg.v3d_shared_tenancy || v3d_host(h)->holder != ctx->client || v3d_host(h)->holder_ctxs == 0)
		return;
	if (--v3d_host(h)->holder_ctxs == 0) {
		host_log(h, FERRY_LOG_INFO, "client %u released the V3D device", ctx->client->id);
		v3d_host(h)->holder = NULL;
	}
}

static const struct ferry_param *v3d_params(const struct ferry_host *h, uint32_t *nr)
{
	*nr = v3d_host(h)->dev.nr_params;
	return v3d_host(h)->dev.params;
}

/* ---- contexts ---- */

/* Validated V3D contexts run the CL/TFU/CSD validator into pooled shadows at submit time
 * (v3d_validation.c). */
static int v3d_ctx_open(struct host_ctx *ctx, const char **step)
{
	struct ferry_host *h = ctx->client->host;
	/* The open returns NULL for any failure; errno tells an fd shortage from memory. */
	errno = 0;
	struct kdev *kd = gpu_device_open(h->gpu_dev);
	if (!kd)
		return errno ? -errno : -ENOMEM;
	*step = "GPU context";
	int ret = v3d_ctx_create(kd, &v3d_hctx(ctx)->v3d);
	if (ret < 0)
		return ret;
	ctx->kd = kd;
	v3d_tenancy_added(ctx);
	gpu_device_set_unmodeled_cb(h->gpu_dev, kd, ctx_unmodeled_note, ctx);
	return 0;
}

static void v3d_ctx_drop_validation(struct host_ctx *ctx)
{
	v3d_shadows_fini(ctx);
}

static void v3d_ctx_close(struct host_ctx *ctx)
{
	free(v3d_hctx(ctx)->job_handles);
	free(v3d_hctx(ctx)->job_vbos);
	if (v3d_hctx(ctx)->v3d) {
		v3d_ctx_destroy(v3d_hctx(ctx)->v3d);
		v3d_tenancy_removed(ctx);
	}
}

static int v3d_ctx_poll_fd_op(struct host_ctx *ctx)
{
	return v3d_ctx_poll_fd(v3d_hctx(ctx)->v3d);
}

static void v3d_ctx_poll_ack_op(struct host_ctx *ctx)
{
	v3d_ctx_poll_ack(v3d_hctx(ctx)->v3d);
}

/* ---- BOs ---- */

static int v3d_bo_check(struct host_ctx *ctx, const struct ferry_bo_create *r, uint64_t *size, char *why, size_t n)
{
	*size = v3d_bo_round_size(r->size);
	if (r->size == 0 || *size == 0)
		HOST_FAIL(-EINVAL, "bo size %llu must be 1..%llu", (unsigned long long)r->size,
			  (unsigned long long)V3D_BO_MAX_SIZE);
	if (r->flags)
		HOST_FAIL(-EINVAL, "V3D BOs take no flags (flags 0x%x)", r->flags);
	if (r->iova)
		HOST_FAIL(-EINVAL, "V3D BOs cannot be placed (iova 0x%llx): V3D has one global address space",
			  (unsigned long long)r->iova);
	return 0;
}

static int v3d_bo_create(struct host_ctx *ctx, const struct ferry_bo_create *r, struct host_bo *bo, uint64_t size)
{
	return v3d_bo_new(v3d_hctx(ctx)->v3d, size, &bo->handle, &bo->iova);
}

static int v3d_bo_import_op(struct host_ctx *ctx, int fd, uint32_t *handle, uint64_t *iova)
{
	return v3d_bo_import(v3d_hctx(ctx)->v3d, fd, handle, iova);
}

static int v3d_bo_export_op(struct host_ctx *ctx, uint32_t handle, int *fd)
{
	return v3d_bo_export(v3d_hctx(ctx)->v3d, handle, fd);
}

static void v3d_bo_close_op(struct host_ctx *ctx, uint32_t handle)
{
	v3d_bo_close(v3d_hctx(ctx)->v3d, handle);
}

static int v3d_bo_map_op(struct host_ctx *ctx, struct host_bo *bo, void **map)
{
	return v3d_bo_map(v3d_hctx(ctx)->v3d, bo->handle, bo->size, false, map);
}

static void v3d_bo_unmap_op(struct host_ctx *ctx, struct host_bo *bo, void *map)
{
	v3d_bo_unmap(v3d_hctx(ctx)->v3d, map, bo->size);
}

/* The validator keeps no table of its own: jobs list their BOs. */
static void v3d_bo_removed(struct host_ctx *ctx, struct host_bo *bo)
{
}

static int v3d_bo_wait_poll_op(struct host_ctx *ctx, struct host_bo *bo, uint32_t op)
{
	return v3d_bo_wait_poll(v3d_hctx(ctx)->v3d, bo->handle);
}

/* ---- queues ---- */

/* V3D has no queue priorities in the uAPI; a queue is a timeline of one job type, its kernel
 * queue the job type's (no kernel object per host queue). */
static int v3d_queue_check(struct host_ctx *ctx, const struct ferry_queue_create *r, uint32_t *kind, char *why,
			   size_t n)
{
	const struct ferry_host *h = ctx->client->host;
	if (r->priority)
		HOST_FAIL(-EINVAL, "queue priority %u: V3D queues have none (must be 0)", r->priority);
	if (*kind == FERRY_QUEUE_KIND_DEFAULT)
		*kind = FERRY_QUEUE_KIND_V3D_CL;
	if (*kind != FERRY_QUEUE_KIND_V3D_CL && *kind != FERRY_QUEUE_KIND_V3D_TFU && *kind != FERRY_QUEUE_KIND_V3D_CSD)
		HOST_FAIL(-EINVAL, "queue kind %u is not a V3D queue kind (1 CL, 2 TFU, 3 CSD)", r->kind);
	if (*kind == FERRY_QUEUE_KIND_V3D_TFU && !v3d_host(h)->dev.has_tfu)
		HOST_FAIL(-ENODEV, "this V3D has no TFU");
	if (*kind == FERRY_QUEUE_KIND_V3D_CSD && !v3d_host(h)->dev.has_csd)
		HOST_FAIL(-ENODEV, "this V3D has no CSD");
	return 0;
}

static int v3d_queue_new(struct host_queue *q)
{
	q->faults = 0;
	return 0;
}

/* Syncobjs of unretired jobs go with the open (the context is going away). */
static void v3d_queue_close(struct host_queue *q)
{
}

static struct shadow_pool *v3d_shadow_pool(const struct host_ctx *ctx)
{
	return v3d_hctx(ctx)->pool;
}

static const struct host_submit_kind v3d_submits[] = {
	{ FERRY_MSG_V3D_SUBMIT_CL, v3d_handle_submit_cl },
	{ FERRY_MSG_V3D_SUBMIT_TFU, v3d_handle_submit_tfu },
	{ FERRY_MSG_V3D_SUBMIT_CSD, v3d_handle_submit_csd },
};

const struct host_family_ops v3d_family_ops = {
	.name = "V3D",
	.family = FERRY_FAMILY_V3D,
	.feature = FERRY_FEATURE_V3D,
	.capture_rd = false,
	.ctx_size = sizeof(struct v3d_host_ctx),
	.device_family = GPU_FAMILY_V3D,
	.host_init = v3d_host_init,
	.host_fini = v3d_host_fini,
	.params = v3d_params,
	.capture_build = v3d_capture_build,
	.submit_bo_ids = v3d_submit_bo_ids,
	.ctx_admit = v3d_ctx_admit,
	.ctx_open = v3d_ctx_open,
	.ctx_drop_validation = v3d_ctx_drop_validation,
	.ctx_close = v3d_ctx_close,
	.ctx_poll_fd = v3d_ctx_poll_fd_op,
	.ctx_poll_ack = v3d_ctx_poll_ack_op,
	.bo_check = v3d_bo_check,
	.bo_create = v3d_bo_create,
	.bo_import = v3d_bo_import_op,
	.bo_export = v3d_bo_export_op,
	.bo_close = v3d_bo_close_op,
	.bo_map = v3d_bo_map_op,
	.bo_unmap = v3d_bo_unmap_op,
	.bo_added = v3d_bo_added,
	.bo_removed = v3d_bo_removed,
	.bo_unmap_host = v3d_bo_unmap_host,
	.bo_wait_poll = v3d_bo_wait_poll_op,
	.queue_check = v3d_queue_check,
	.queue_new = v3d_queue_new,
	.queue_close = v3d_queue_close,
	.fence_retire = v3d_fence_retire,
	.submits = v3d_submits,
	.nr_submits = sizeof(v3d_submits) / sizeof(v3d_submits[0]),
	.held_run = v3d_held_run,
	.shadows_retired = v3d_shadows_retired,
	.shadows_queue_gone = v3d_shadows_queue_gone,
	.shadow_pool = v3d_shadow_pool,
};
