/* The V3D family's state: of the host (the device, tenancy, the CL validator), and of a context: the generic context embedded, the kernel context and the
 * validated policy's shadow pool beside it (v3d_family.c makes it; container_of gets it back). */
#ifndef FERRY_HOST_V3D_FAMILY_H
#define FERRY_HOST_V3D_FAMILY_H

#include <stddef.h>

#include "backend/v3d.h"

struct v3dval_bo;
#include "core/host_types.h"

struct v3d_host_ctx {
	struct host_ctx base;
	struct v3d_ctx *v3d;
	struct shadow_pool *pool; /* validated contexts: CL shadows (v3d_validation.c), made on first use */
	/* Per-job arrays, kept across jobs so a submit allocates nothing once they are big enough
	 * (both at most FERRY_MAX_SUBMIT_BOS + the shadows' chunks). */
	uint32_t *job_handles;           /* the kernel's bo_handles (v3d_core.c) */
	uint32_t cap_job_handles;
	struct v3dval_bo *job_vbos;      /* the validator's BOs sorted by address (v3d_validation.c) */
	uint32_t cap_job_vbos;
};

struct v3d_host {
	struct v3d_dev_info dev;
	/* Exclusive tenancy: the client holding the device and how many V3D contexts it has. */
	struct ferry_host_client *holder;
	uint32_t holder_ctxs;
	struct v3dval *val; /* the V3D CL validator (policy of the device's version) */
};

static inline struct v3d_host *v3d_host(const struct ferry_host *h)
{
	return h->family_state;
}

static inline struct v3d_host_ctx *v3d_hctx(const struct host_ctx *ctx)
{
	return (struct v3d_host_ctx *)((char *)ctx - offsetof(struct v3d_host_ctx, base));
}

#endif
