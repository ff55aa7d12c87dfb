/* BO requests (host_bo.c: create, close, info, install, quotas, the table hooks; bo_share.c: import and the
 * host-wide index of BO pages). */
#ifndef FERRY_HOST_HOST_BO_H
#define FERRY_HOST_HOST_BO_H

#include "host_types.h"

/* host_bo.c */
void host_bo_removed(void *arg, struct host_bo *bo);
void host_bo_released(void *arg, struct host_bo *bo);
/* The context a new BO (BoCreate, BoImport) goes into: it exists, and bo_id is free and not 0.
 * 0, or -ENOENT / -EINVAL / -EEXIST with why. */
int bo_new_target(struct ferry_host_client *c, uint32_t ctx_id, uint32_t bo_id, struct host_ctx **out, char *why,
		  size_t n);
struct host_bo *client_lookup_bo(struct ferry_host_client *c, uint32_t ctx_id, uint32_t bo_id,
			       struct host_ctx **ctx_out, char *why, size_t n);
int bo_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* BO_CREATE_BATCH: count BOs of one size, all or none, answered by one BO_BATCH_CREATED. */
int bo_handle_create_batch(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int bo_handle_close(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int bo_handle_info(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* The client's BO quotas (count, bytes, fds) for one more BO of size bytes: 0 or -EDQUOT. */
int bo_quota_admit(struct ferry_host_client *c, uint64_t size, char *why, size_t n);
/* Bytes the client may still hold in BOs and submit rings (--max-client-bo-mib). */
uint64_t bo_bytes_room(const struct ferry_host_client *c);
/* A new BO with its kernel handle, iova, id, size and flags set: exported, host-mapped, put in
 * ctx's table and answered with BO_CREATED (+ its fd) to seq. Frees bo on failure. */
int bo_install(struct ferry_host_client *c, struct host_ctx *ctx, struct host_bo *bo, uint32_t seq, char *why,
	       size_t n);

/* bo_share.c */
int bo_handle_import(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* The pages index: bo enters when it enters its context's table and leaves when it leaves it. */
int bo_pages_add(struct ferry_host *h, struct host_bo *bo);
void bo_pages_del(struct ferry_host *h, struct host_bo *bo);
void bo_pages_fini(struct ferry_host *h);

#endif
