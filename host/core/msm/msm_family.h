/* The msm family's state: of the host (the device, its probe, the PM4 validator), and of a context: the generic context embedded, the kernel context and the
 * validated policy's state beside it (msm_family.c makes it; container_of gets it back). */
#ifndef FERRY_HOST_MSM_FAMILY_H
#define FERRY_HOST_MSM_FAMILY_H

#include <stddef.h>

#include "backend/msm.h"
#include "core/host_types.h"

struct msm_host_ctx {
	struct host_ctx base;
	struct msm_ctx *msm;
	struct ctx_validation *val; /* validated policy only (msm_validation.c), else NULL */
	struct msm_submit_bo_ref *refs; /* submit scratch: the kernel's view of the BOs */
	uint32_t refs_cap;
};

struct msm_host {
	struct msm_dev_info dev;
	struct pm4v_validator *validator; /* shared by validated contexts; made on first use */
};

static inline struct msm_host *msm_host(const struct ferry_host *h)
{
	return h->family_state;
}

static inline struct msm_host_ctx *msm_hctx(const struct host_ctx *ctx)
{
	return (struct msm_host_ctx *)((char *)ctx - offsetof(struct msm_host_ctx, base));
}

#endif
