/* The validated policy of msm contexts (msm_validation.c): sorted BO table with host mappings,
 * shadow pool. */
#ifndef FERRY_HOST_MSM_VALIDATION_H
#define FERRY_HOST_MSM_VALIDATION_H

#include "core/host_types.h"
#include "core/msm/msm_family.h"

int validation_ctx_init(struct host_ctx *ctx);
void validation_ctx_fini(struct host_ctx *ctx);
void validation_host_fini(struct ferry_host *h);
/* Forgets the client's stopped validation, if any (its shadows go back to the pool). */
void validation_cancel(struct ferry_host_client *c);
/* BO create / close of a validated context (no-ops otherwise): map + insert, remove. */
int validation_bo_added(struct host_ctx *ctx, struct host_bo *bo);
void validation_bo_removed(struct host_ctx *ctx, struct host_bo *bo);
void validation_bo_unmap(struct host_bo *bo);
/* Validates and copies a submit whose envelope passed (bos[] resolved). 0 and *set (to queue
 * or release), or a negative errno with the validator's message in why. */
int validation_submit(struct host_ctx *ctx, const struct ferry_msm_submit *s, struct host_bo *const *bos,
		      struct shadow_set **set, char *why, size_t n);
/* The guest stream an in-flight shadow address of a validated context copies, or NULL. */
const struct pm4v_stream_copy *validation_guest_stream(const struct host_ctx *ctx, uint64_t shadow_iova);
/* After msm_submit_prepare: the kernel runs the set's shadows instead of the guest's cmds. */
int validation_use_shadows(struct host_ctx *ctx, const struct shadow_set *set);
/* The set's submit took seqno on queue / never reached the kernel. */
void validation_queue(struct host_ctx *ctx, struct shadow_set *set, uint32_t queue, uint32_t seqno);
void validation_release(struct host_ctx *ctx, struct shadow_set *set);
/* Seqno retired on queue; the queue went away. */
void validation_retired(struct host_ctx *ctx, uint32_t queue, uint32_t seqno);
void validation_queue_gone(struct host_ctx *ctx, uint32_t queue);
struct shadow_pool *validation_shadow_pool(const struct host_ctx *ctx);

#endif
