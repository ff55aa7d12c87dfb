/* The V3D family's submits, retiring and fault reports (v3d_core.c). */
#ifndef FERRY_HOST_V3D_CORE_H
#define FERRY_HOST_V3D_CORE_H

#include "core/host_types.h"
#include "core/v3d/v3d_family.h"

struct v3d_job_desc {
	uint32_t kind; /* FERRY_QUEUE_KIND_V3D_CL / TFU / CSD */
	union {
		struct v3d_cl_job cl;
		struct v3d_tfu_job tfu;
		struct v3d_csd_job csd;
	} u;
};
int v3d_handle_submit_cl(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int v3d_handle_submit_tfu(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int v3d_handle_submit_csd(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* Validates (validated contexts: CLs into shadow copies) and sends a job, seqno of queue_id, to
 * the kernel; *sync gets its out-syncobj. A rejection is -EINVAL with the validator's message in
 * why. The job's shadows go back to the context's pool when v3d_fence_retire retires seqno. */
int v3d_job_flush(struct host_ctx *ctx, uint32_t queue_id, uint32_t seqno, const struct v3d_job_desc *job,
		  struct host_bo *const *bos, uint32_t nr_bos, uint32_t *sync, char *why, size_t n);
/* v3d_job_flush in two steps, for jobs held between them: validation (validated contexts; *run
 * then names the shadows in *set, else *run = *job and *set = NULL), and the kernel submit. A
 * set_queued set was queued for its seqno already and is left to retire with it. */
int v3d_job_prepare(struct host_ctx *ctx, const struct v3d_job_desc *job, struct host_bo *const *bos,
		    uint32_t nr_bos, struct v3d_job_desc *run, struct shadow_set **set, char *why, size_t n);
int v3d_job_run(struct host_ctx *ctx, uint32_t queue_id, uint32_t seqno, const struct v3d_job_desc *job,
		struct shadow_set *set, bool set_queued, struct host_bo *const *bos, uint32_t nr_bos, uint32_t *sync,
		char *why, size_t n);
/* A retiring fence of q: 0 done (status set: 0 or the fault's), -EBUSY not yet, or the
 * kernel's poll error (then nothing was freed). */
int v3d_fence_retire(struct host_queue *q, const struct pending_fence *f, int32_t *status);

/* The family's held_run: a held job (validated when it came) to the kernel. */
struct held_submit;
int v3d_held_run(struct host_queue *q, struct held_submit *hs, uint32_t *syncobj, char *why, size_t n);

#endif
