/* The GPU family behind the host (msm in msm/, V3D in v3d/): what the generic core asks of it, so
 * that contexts, BOs, queues, waits, captures and teardown never ask which family serves them. */
#ifndef FERRY_HOST_FAMILY_H
#define FERRY_HOST_FAMILY_H

#include "backend/device.h"
#include "host_types.h"

struct capture_buffers;
struct capture_file;
struct capture_submit;
struct held_submit;
struct shadow_pool;

/* A request handler: 0 (replies sent), -EINPROGRESS (stopped at the validation budget: the frame
 * comes again), or a negative errno with why. */
typedef int (*host_request_fn)(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);

/* A submit message kind (FERRY_MSG_*) the family takes, and its handler. */
struct host_submit_kind {
	uint32_t kind;
	host_request_fn handle;
};

struct host_family_ops {
	const char *name;  /* for messages: "msm", "V3D" */
	uint32_t family;   /* FERRY_FAMILY_* it serves */
	uint64_t feature;  /* FERRY_FEATURE_* it adds to HELLO */
	bool capture_rd;   /* captures can be written as .rd (else sessions only) */
	/* The ids an .rd capture's header names (capture_rd families). */
	void (*rd_ids)(const struct ferry_host *h, uint32_t *gpu_id, uint64_t *chip_id);
	/* Captures (capture_internal.h): one submit of the family appended to b (its formats, the
	 * file's opening when it is the first); the BO ids a submit message of the family lists
	 * (ids[i * stride bytes]), -EINVAL for another message. */
	int (*capture_build)(struct capture_buffers *b, struct capture_file *f, const struct capture_submit *a);
	int (*submit_bo_ids)(const struct ferry_msg *m, const uint32_t **ids, size_t *stride, uint32_t *nr);

	/* cfg.gpu names a device of this family. */
	enum gpu_family device_family; /* the devices (backend/device.h) it drives */
	/* The device (simulated: its only creation in the core), its probe, device_name, the
	 * "serving" log line; fini undoes what init made (also after a failed init). */
	int (*host_init)(struct ferry_host *h);
	void (*host_fini)(struct ferry_host *h);
	/* The device's GET_PARAM answers for DEVICE_INFO. */
	const struct ferry_param *(*params)(const struct ferry_host *h, uint32_t *nr);

	/* The size of the family's context state, which embeds struct host_ctx at offset 0. */
	size_t ctx_size;

	/* Contexts. admit: may c make one more (tenancy); 0 or an errno with why. open: the
	 * context's device open (ctx->kd), its GPU context and validator; step names what failed.
	 * close: all of that again, after the BOs and queues went. */
	int (*ctx_admit)(struct ferry_host_client *c, char *why, size_t n);
	int (*ctx_open)(struct host_ctx *ctx, const char **step);
	/* The validator's state and shadow pool go, before the context's BOs (so their removal
	 * does not edit the validator's table one by one). */
	void (*ctx_drop_validation)(struct host_ctx *ctx);
	void (*ctx_close)(struct host_ctx *ctx);
	int (*ctx_poll_fd)(struct host_ctx *ctx);
	void (*ctx_poll_ack)(struct host_ctx *ctx);
	/* NULL when the family has none. */
	int (*timestamp)(struct host_ctx *ctx, uint64_t *ticks);
	ssize_t (*debug_state)(struct host_ctx *ctx, char *buf, size_t cap);

	/* BOs. check: a BO_CREATE's size (*size rounded), flags and placement; create: the kernel BO
	 * (bo->handle, bo->iova). */
	int (*bo_check)(struct host_ctx *ctx, const struct ferry_bo_create *r, uint64_t *size, char *why, size_t n);
	int (*bo_create)(struct host_ctx *ctx, const struct ferry_bo_create *r, struct host_bo *bo, uint64_t size);
	int (*bo_import)(struct host_ctx *ctx, int fd, uint32_t *handle, uint64_t *iova);
	int (*bo_export)(struct host_ctx *ctx, uint32_t handle, int *fd);
	void (*bo_close)(struct host_ctx *ctx, uint32_t handle);
	int (*bo_map)(struct host_ctx *ctx, struct host_bo *bo, void **map);
	void (*bo_unmap)(struct host_ctx *ctx, struct host_bo *bo, void *map);
	/* A BO entered / left the context (validated contexts: the validator's host mapping in
	 * bo->host_map and its table); its last reference went. */
	int (*bo_added)(struct host_ctx *ctx, struct host_bo *bo);
	void (*bo_removed)(struct host_ctx *ctx, struct host_bo *bo);
	void (*bo_unmap_host)(struct host_bo *bo);
	/* BO_CPU_PREP: 0 idle, -EBUSY not yet, or an error. */
	int (*bo_wait_poll)(struct host_ctx *ctx, struct host_bo *bo, uint32_t op);

	/* Queues (not EXTERNAL ones). check: a QUEUE_CREATE's kind and priority (*kind resolved);
	 * new / close: the kernel's queue, if the family has one per host queue. */
	int (*queue_check)(struct host_ctx *ctx, const struct ferry_queue_create *r, uint32_t *kind, char *why,
			   size_t n);
	int (*queue_new)(struct host_queue *q);
	void (*queue_close)(struct host_queue *q);
	/* A retiring fence in the kernel: 0 done (status: 0 or its fault's, reported), -EBUSY not
	 * yet, or the kernel's poll error. */
	int (*fence_retire)(struct host_queue *q, const struct pending_fence *f, int32_t *status);
	/* Optional, for retiring a run of fences in a few kernel calls (host_queue.c): the kernel
	 * says f is done (0), not yet (-EBUSY) or its poll error; and whether the queue's fault
	 * count moved from what fence_retire last saw (1, 0, or -errno), changing nothing. */
	int (*fence_poll)(struct host_queue *q, const struct pending_fence *f);
	int (*faults_moved)(struct host_queue *q);

	/* The submit kinds the family takes (client.c routes them here); a submit kind no entry
	 * names is another family's. */
	const struct host_submit_kind *submits;
	uint32_t nr_submits;
	/* Forgets the client's submit stopped at the validation budget, if any. NULL when the
	 * family's validation never stops. */
	void (*submit_cancel)(struct ferry_host_client *c);

	/* A held submit whose in-fences signaled: to the kernel (0, *syncobj its out-syncobj if
	 * the family retires through one), or an error with why. */
	/* Traces TRACE_RELEASED (0) and TRACE_KERNEL_SUBMIT just before the kernel call. */
	int (*held_run)(struct host_queue *q, struct held_submit *hs, uint32_t *syncobj, char *why, size_t n);

	/* Shadow copies: seqno of queue retired (its shadows go back to the pool); the queue went;
	 * the context's pool (NULL if none yet), for quota trimming. */
	void (*shadows_retired)(struct host_ctx *ctx, uint32_t queue, uint32_t seqno);
	void (*shadows_queue_gone)(struct host_ctx *ctx, uint32_t queue);
	struct shadow_pool *(*shadow_pool)(const struct host_ctx *ctx);
};

extern const struct host_family_ops msm_family_ops;
extern const struct host_family_ops v3d_family_ops;

/* The family serving gpu, or NULL. */
const struct host_family_ops *host_family_for_device(enum gpu_family family);
/* The handler of fam's submit kind, or NULL when fam does not take it. */
host_request_fn host_family_submit_handler(const struct host_family_ops *fam, uint32_t kind);
/* The family (any, served here or not) that takes submit kind, or NULL: not a submit. */
const struct host_family_ops *host_family_for_submit(uint32_t kind);
/* The family with FERRY_FAMILY_* id, or NULL. */
const struct host_family_ops *host_family_by_id(uint32_t family);

#endif
