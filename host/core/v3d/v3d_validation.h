/* V3D validated contexts (v3d_validation.c): BO host mappings, CL validation into shadows. */
#ifndef FERRY_HOST_V3D_VALIDATION_H
#define FERRY_HOST_V3D_VALIDATION_H

#include "core/host_types.h"
#include "core/v3d/v3d_core.h"

/* v3d_validation.c. BO create / last unref of a V3D context: the validator's read-only host
 * mapping (validated contexts). */
int v3d_bo_added(struct host_ctx *ctx, struct host_bo *bo);
void v3d_bo_unmap_host(struct host_bo *bo);
/* Validates *job against the listed BOs; CLs are copied into shadows of the context's pool (job's
 * list addresses then name them). 0 and *set (its handles[] the shadow BOs; to queue or release),
 * or -EINVAL (-ENOMEM) with the validator's message in why. */
int v3d_validate_job(struct host_ctx *ctx, struct v3d_job_desc *job, struct host_bo *const *bos, uint32_t nr_bos,
		     struct shadow_set **set, char *why, size_t n);
/* The set's job took seqno on queue / never reached the kernel. */
void v3d_shadows_queue(struct host_ctx *ctx, struct shadow_set *set, uint32_t queue, uint32_t seqno);
void v3d_shadows_release(struct host_ctx *ctx, struct shadow_set *set);
/* Seqno retired on queue (its shadows are recycled); the queue went away; the context goes
 * (before its open). */
void v3d_shadows_retired(struct host_ctx *ctx, uint32_t queue, uint32_t seqno);
void v3d_shadows_queue_gone(struct host_ctx *ctx, uint32_t queue);
void v3d_shadows_fini(struct host_ctx *ctx);

#endif
