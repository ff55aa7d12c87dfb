/* The msm family behind the core's ops (family.h): the simulated Adreno device, one kdev open per
 * context, msm BOs and kernel submit queues, retiring with the fault check, and the validated
 * policy's hooks (msm_validation.c). The submit path is sched.c's. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device.h"
#include "backend/kdev.h"
#include "core/family.h"
#include "core/host_internal.h"
#include "core/msm/msm_capture.h"
#include "core/msm/msm_fault.h"
#include "core/msm/msm_submit.h"
#include "core/msm/msm_validation.h"
#include "ferry/uapi/msm_drm.h"

/* The core allocates ctx_size bytes and frees them as the struct host_ctx it sees. */
_Static_assert(offsetof(struct msm_host_ctx, base) == 0, "the generic context comes first");

static int msm_host_init(struct ferry_host *h)
{
	h->family_state = calloc(1, sizeof(struct msm_host));
	if (!h->family_state)
		return -ENOMEM;
	/* Probe through a throwaway open: every context's open sees the same device. */
	errno = 0;
	struct kdev *kd = gpu_device_open(h->gpu_dev);
	if (!kd)
		return errno ? -errno : -ENOMEM;
	int ret = msm_probe(kd, &msm_host(h)->dev);
	kd->ops->close(kd);
	if (ret < 0) {
		host_log(h, FERRY_LOG_ERROR, "probing %s failed: %s", h->gpu, strerror(-ret));
		return ret;
	}
	if (msm_host(h)->dev.va_size == 0)
		host_log(h, FERRY_LOG_WARN, "%s has no per-process address spaces: contexts are not isolated", h->gpu);
	host_log(h, FERRY_LOG_INFO, "serving %s (gpu id %llu, chip id 0x%llx)", h->device_name,
		 (unsigned long long)msm_host(h)->dev.gpu_id, (unsigned long long)msm_host(h)->dev.chip_id);
	return 0;
}

static void msm_host_fini(struct ferry_host *h)
{
	if (!h->family_state)
		return;
	validation_host_fini(h);
	free(h->family_state);
	h->family_state = NULL;
}

static const struct ferry_param *msm_params(const struct ferry_host *h, uint32_t *nr)
{
	*nr = msm_host(h)->dev.nr_params;
	return msm_host(h)->dev.params;
}

static void msm_rd_ids(const struct ferry_host *h, uint32_t *gpu_id, uint64_t *chip_id)
{
	*gpu_id = (uint32_t)msm_host(h)->dev.gpu_id;
	*chip_id = msm_host(h)->dev.chip_id;
}

static int msm_ctx_admit(struct ferry_host_client *c, char *why, size_t n)
{
	return 0;
}

static int msm_ctx_open(struct host_ctx *ctx, const char **step)
{
	struct ferry_host *h = ctx->client->host;
	/* The open returns NULL for any failure; errno tells an fd shortage from memory. */
	errno = 0;
	struct kdev *kd = gpu_device_open(h->gpu_dev);
	if (!kd)
		return errno ? -errno : -ENOMEM;
	*step = "GPU context";
	int ret = msm_ctx_create(kd, &msm_hctx(ctx)->msm);
	if (ret < 0)
		return ret;
	ctx->kd = kd;
	if (ctx->policy == FERRY_POLICY_VALIDATED)
		ret = validation_ctx_init(ctx);
	if (ret == 0)
		gpu_device_set_unmodeled_cb(h->gpu_dev, kd, ctx_unmodeled_note, ctx);
	return ret;
}

static void msm_ctx_drop_validation(struct host_ctx *ctx)
{
	validation_ctx_fini(ctx);
}

static void msm_ctx_close(struct host_ctx *ctx)
{
	if (msm_hctx(ctx)->msm)
		msm_ctx_destroy(msm_hctx(ctx)->msm);
	free(msm_hctx(ctx)->refs);
}

static int msm_ctx_poll_fd_op(struct host_ctx *ctx)
{
	return msm_ctx_poll_fd(msm_hctx(ctx)->msm);
}

static void msm_ctx_poll_ack_op(struct host_ctx *ctx)
{
	msm_ctx_poll_ack(msm_hctx(ctx)->msm);
}

static int msm_timestamp_op(struct host_ctx *ctx, uint64_t *ticks)
{
	return msm_timestamp(msm_hctx(ctx)->msm, ticks);
}

static ssize_t msm_debug_state_op(struct host_ctx *ctx, char *buf, size_t cap)
{
	return msm_debug_state(msm_hctx(ctx)->msm, buf, cap);
}

static int msm_bo_check(struct host_ctx *ctx, const struct ferry_bo_create *r, uint64_t *size, char *why, size_t n)
{
	*size = msm_bo_round_size(r->size);
	if (r->size == 0 || *size == 0)
		HOST_FAIL(-EINVAL, "bo size %llu must be 1..%llu", (unsigned long long)r->size,
			  (unsigned long long)MSM_BO_MAX_SIZE);
	const char *flag_why;
	if (msm_bo_check_flags(r->flags, &flag_why) < 0)
		HOST_FAIL(-EINVAL, "%s (flags 0x%x)", flag_why, r->flags);
	return 0;
}

static int msm_bo_create(struct host_ctx *ctx, const struct ferry_bo_create *r, struct host_bo *bo, uint64_t size)
{
	if (r->iova) {
		/* Replay: the captured address, or nothing (-EBUSY when taken, as the kernel says). */
		bo->iova = r->iova;
		return msm_bo_new_at(msm_hctx(ctx)->msm, size, r->flags, r->iova, &bo->handle);
	}
	return msm_bo_new(msm_hctx(ctx)->msm, size, r->flags, &bo->handle, &bo->iova);
}

static int msm_bo_import_op(struct host_ctx *ctx, int fd, uint32_t *handle, uint64_t *iova)
{
	return msm_bo_import(msm_hctx(ctx)->msm, fd, handle, iova);
}

static int msm_bo_export_op(struct host_ctx *ctx, uint32_t handle, int *fd)
{
	return msm_bo_export(msm_hctx(ctx)->msm, handle, fd);
}

static void msm_bo_close_op(struct host_ctx *ctx, uint32_t handle)
{
	msm_bo_close(msm_hctx(ctx)->msm, handle);
}

static int msm_bo_map_op(struct host_ctx *ctx, struct host_bo *bo, void **map)
{
	return msm_bo_map(msm_hctx(ctx)->msm, bo->handle, bo->size, false, map);
}

static void msm_bo_unmap_op(struct host_ctx *ctx, struct host_bo *bo, void *map)
{
	msm_bo_unmap(msm_hctx(ctx)->msm, map, bo->size);
}

/* msm guests pass MSM_PREP_* through as the wire's op. */
_Static_assert(FERRY_CPU_PREP_READ == MSM_PREP_READ && FERRY_CPU_PREP_WRITE == MSM_PREP_WRITE &&
		       FERRY_CPU_PREP_NOSYNC == MSM_PREP_NOSYNC,
	       "the wire's cpu_prep ops are msm's");

/* The wire's FERRY_CPU_PREP_* op as GEM_CPU_PREP's (the poll adds NOSYNC itself). */
static int msm_bo_wait_poll(struct host_ctx *ctx, struct host_bo *bo, uint32_t op)
{
	uint32_t prep = ((op & FERRY_CPU_PREP_READ) ? MSM_PREP_READ : 0) |
			((op & FERRY_CPU_PREP_WRITE) ? MSM_PREP_WRITE : 0);
	return msm_bo_cpu_prep_poll(msm_hctx(ctx)->msm, bo->handle, prep);
}

static int msm_queue_check(struct host_ctx *ctx, const struct ferry_queue_create *r, uint32_t *kind, char *why,
			   size_t n)
{
	const struct ferry_host *h = ctx->client->host;
	if (*kind != FERRY_QUEUE_KIND_DEFAULT)
		HOST_FAIL(-EINVAL, "queue kind %u: msm queues take only kind 0", r->kind);
	if (r->priority >= msm_host(h)->dev.priorities)
		HOST_FAIL(-EINVAL, "queue priority %u must be < %u", r->priority, msm_host(h)->dev.priorities);
	return 0;
}

static int msm_queue_new_op(struct host_queue *q)
{
	struct host_ctx *ctx = q->ctx;
	int ret = msm_queue_new(msm_hctx(ctx)->msm, q->prio, &q->kernel_id);
	if (ret == 0 && msm_queue_faults(msm_hctx(ctx)->msm, q->kernel_id, &q->faults) < 0)
		q->faults = 0;
	return ret;
}

static void msm_queue_close_op(struct host_queue *q)
{
	msm_queue_close(msm_hctx(q->ctx)->msm, q->kernel_id);
}

/* A fault shows as the queue's fault count going up (SUBMITQUEUE_QUERY FAULTS): msm_fault.c
 * reports it against the seqno its dump names, or the one retiring. msm keeps one crash state
 * until it is read, so a count that moved by more than one has faults no dump places. */
static int msm_fence_retire(struct host_queue *q, const struct pending_fence *pf, int32_t *status)
{
	struct host_ctx *ctx = q->ctx;
	int ret = msm_fence_poll(msm_hctx(ctx)->msm, q->kernel_id, pf->seqno);
	if (ret < 0)
		return ret;
	uint32_t faults;
	if (msm_queue_faults(msm_hctx(ctx)->msm, q->kernel_id, &faults) == 0 && faults != q->faults) {
		uint32_t moved = faults - q->faults;
		q->faults = faults;
		uint32_t blamed = pf->seqno;
		bool placed;
		int32_t st = msm_fault_report(q, &blamed, &placed);
		if (!st) {
			fault_log_unplaced(q, blamed, moved);
			return 0;
		}
		/* A later fence keeps it in the timeline until it retires (looked up after the report,
		 * which may cancel held submits: pushes onto the timeline). */
		if (blamed != pf->seqno && !timeline_set_status(&q->tl, blamed, st)) {
			blamed = pf->seqno;
			placed = false;
			timeline_fail_after(&q->tl, blamed, -EIO);
		}
		if (blamed == pf->seqno)
			*status = st;
		if (!placed || moved > 1)
			fault_log_unplaced(q, blamed, moved - 1);
	}
	return 0;
}

static int msm_fence_poll_op(struct host_queue *q, const struct pending_fence *pf)
{
	return msm_fence_poll(msm_hctx(q->ctx)->msm, q->kernel_id, pf->seqno);
}

static int msm_faults_moved(struct host_queue *q)
{
	uint32_t faults;
	int ret = msm_queue_faults(msm_hctx(q->ctx)->msm, q->kernel_id, &faults);
	return ret < 0 ? ret : faults != q->faults;
}

static const struct host_submit_kind msm_submits[] = { { FERRY_MSG_MSM_SUBMIT, msm_handle_submit } };

const struct host_family_ops msm_family_ops = {
	.name = "msm",
	.family = FERRY_FAMILY_MSM,
	.feature = FERRY_FEATURE_MSM,
	.capture_rd = true,
	.ctx_size = sizeof(struct msm_host_ctx),
	.device_family = GPU_FAMILY_MSM,
	.host_init = msm_host_init,
	.host_fini = msm_host_fini,
	.params = msm_params,
	.rd_ids = msm_rd_ids,
	.capture_build = msm_capture_build,
	.submit_bo_ids = msm_submit_bo_ids,
	.ctx_admit = msm_ctx_admit,
	.ctx_open = msm_ctx_open,
	.ctx_drop_validation = msm_ctx_drop_validation,
	.ctx_close = msm_ctx_close,
	.ctx_poll_fd = msm_ctx_poll_fd_op,
	.ctx_poll_ack = msm_ctx_poll_ack_op,
	.timestamp = msm_timestamp_op,
	.debug_state = msm_debug_state_op,
	.bo_check = msm_bo_check,
	.bo_create = msm_bo_create,
	.bo_import = msm_bo_import_op,
	.bo_export = msm_bo_export_op,
	.bo_close = msm_bo_close_op,
	.bo_map = msm_bo_map_op,
	.bo_unmap = msm_bo_unmap_op,
	.bo_added = validation_bo_added,
	.bo_removed = validation_bo_removed,
	.bo_unmap_host = validation_bo_unmap,
	.bo_wait_poll = msm_bo_wait_poll,
	.queue_check = msm_queue_check,
	.queue_new = msm_queue_new_op,
	.queue_close = msm_queue_close_op,
	.fence_retire = msm_fence_retire,
	.fence_poll = msm_fence_poll_op,
	.faults_moved = msm_faults_moved,
	.submits = msm_submits,
	.nr_submits = sizeof(msm_submits) / sizeof(msm_submits[0]),
	.submit_cancel = validation_cancel,
	.held_run = msm_held_run,
	.shadows_retired = validation_retired,
	.shadows_queue_gone = validation_queue_gone,
	.shadow_pool = validation_shadow_pool,
};
