/* BO requests of a context: BO_CREATE / BO_CLOSE / BO_INFO, quotas, installing a new BO (export,
 * host mapping, table, reply), and the hooks that give the BO table its meaning. */
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "family.h"
#include "host_client.h"
#include "host_context.h"
#include "host_bo.h"

/* The table's removed hook: later submits and imports cannot name bo; held submits were validated
 * already and keep it alive. */
void host_bo_removed(void *arg, struct host_bo *bo)
{
	bo_pages_del(bo->ctx->client->host, bo);
	bo->ctx->client->host->fam->bo_removed(bo->ctx, bo);
}

/* The table's released hook: the last reference went. The kernel keeps BOs of in-flight submits
 * alive itself, so closing the handle is safe. */
void host_bo_released(void *arg, struct host_bo *bo)
{
	struct ferry_host *h = bo->ctx->client->host;
	h->fam->bo_unmap_host(bo);
	h->fam->bo_close(bo->ctx, bo->handle);
	h->stats.bos--;
	h->stats.bo_bytes -= bo->size;
	bo->ctx->client->nr_bos--;
	bo->ctx->client->bo_bytes -= bo->size;
	client_fds_add(bo->ctx->client, -(int)HOST_FDS_PER_BO);
	free(bo);
}


uint64_t bo_bytes_room(const struct ferry_host_client *c)
{
	/* c->bo_bytes never exceeds the cap, so the subtraction cannot wrap. */
	return ((uint64_t)c->host->cfg.max_client_bo_mib << 20) - c->bo_bytes;
}

int bo_quota_admit(struct ferry_host_client *c, uint64_t size, char *why, size_t n)
{
	const struct ferry_host_config *cfg = &c->host->cfg;
	if (c->nr_bos >= cfg->max_client_bos)
		HOST_FAIL(-EDQUOT, "client quota: at most %u BOs (ferryd --max-client-bos)", cfg->max_client_bos);
	if (size > bo_bytes_room(c))
		HOST_FAIL(-EDQUOT, "client quota: at most %u MiB of BOs (ferryd --max-client-bo-mib); %llu bytes in use, "
			  "%llu more asked", cfg->max_client_bo_mib, (unsigned long long)c->bo_bytes,
			  (unsigned long long)size);
	return client_fds_admit(c, HOST_FDS_BO_CREATE, why, n);
}

int bo_new_target(struct ferry_host_client *c, uint32_t ctx_id, uint32_t bo_id, struct host_ctx **out, char *why,
		  size_t n)
{
	struct host_ctx *ctx = client_lookup_ctx(c, ctx_id, why, n);
	if (!ctx)
		return -ENOENT;
	if (bo_id == 0)
		HOST_FAIL(-EINVAL, "bo id 0 is reserved");
	if (bo_table_find(&ctx->bos, bo_id))
		HOST_FAIL(-EEXIST, "bo id %u already exists in context %u", bo_id, ctx_id);
	*out = ctx;
	return 0;
}

int bo_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_bo_create *r = &m->u.bo_create;
	struct host_ctx *ctx;
	int tret = bo_new_target(c, r->ctx_id, r->bo_id, &ctx, why, n);
	if (tret < 0)
		return tret;
	const struct host_family_ops *fam = c->host->fam;
	uint64_t size;
	int cret = fam->bo_check(ctx, r, &size, why, n);
	if (cret < 0)
		return cret;

	int quota_ret = bo_quota_admit(c, size, why, n);
	if (quota_ret < 0)
		return quota_ret;

	struct host_bo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		HOST_FAIL(-ENOMEM, "out of memory");
	int ret = fam->bo_create(ctx, r, bo, size);
	if (ret < 0 && r->iova) {
		free(bo);
		HOST_FAIL(ret, "could not place a %llu-byte bo at iova 0x%llx (%s)", (unsigned long long)size,
			  (unsigned long long)r->iova, strerror(-ret));
	}
	char e[80];
	if (ret < 0) {
		free(bo);
		HOST_FAIL(ret, "kernel could not create a %llu-byte bo: %s", (unsigned long long)size,
			  ferry_errno_text(ret, e, sizeof(e)));
	}
	bo->ctx = ctx;
	bo->id = r->bo_id;
	bo->flags = r->flags;
	bo->size = size;
	return bo_install(c, ctx, bo, m->seq, why, n);
}

/* bo_install without the reply: *fd_out is the export the reply carries (the caller closes it). */
static int bo_install_quiet(struct ferry_host_client *c, struct host_ctx *ctx, struct host_bo *bo, int *fd_out,
			    char *why, size_t n)
{
	const struct host_family_ops *fam = c->host->fam;
	char e[80];
	bo->refs = 1;
	int fd = -1;
	const char *step = "export (PRIME dup)";
	int ret = fam->bo_export(ctx, bo->handle, &fd);
	struct stat st;
	if (ret == 0) {
		/* What a BoImport's fd is recognised by: the BO's pages as the kernel exports them. */
		step = "fstat of the export";
		ret = fstat(fd, &st) == 0 ? 0 : -errno;
		bo->pages_dev = st.st_dev;
		bo->pages_ino = st.st_ino;
	}
	if (ret == 0) {
		step = "host mapping (mmap)";
		ret = fam->bo_added(ctx, bo);
	}
	if (ret == 0) {
		step = "bo table";
		ret = bo_table_insert(&ctx->bos, bo);
		if (ret == 0) {
			ret = bo_pages_add(c->host, bo);
			if (ret < 0)
				bo_table_remove(&ctx->bos, bo); /* its removed hook takes it out of the validator's table */
		} else {
			fam->bo_removed(ctx, bo);
		}
	}
	if (ret < 0) {
		fam->bo_unmap_host(bo);
		fam->bo_close(ctx, bo->handle);
		uint32_t id = bo->id;
		free(bo);
		if (fd >= 0)
			close(fd);
		HOST_FAIL(ret, "bo %u: %s: %s", id, step, ferry_errno_text(ret, e, sizeof(e)));
	}
	client_fds_add(c, (int)HOST_FDS_PER_BO);
	c->host->stats.bos++;
	c->host->stats.bo_bytes += bo->size;
	c->nr_bos++;
	c->bo_bytes += bo->size;
	*fd_out = fd;
	return 0;
}

int bo_install(struct ferry_host_client *c, struct host_ctx *ctx, struct host_bo *bo, uint32_t seq, char *why,
	       size_t n)
{
	int fd;
	int ret = bo_install_quiet(c, ctx, bo, &fd, why, n);
	if (ret < 0)
		return ret;
	struct ferry_msg reply = { .kind = FERRY_MSG_BO_CREATED, .seq = seq };
	reply.u.bo_created = (struct ferry_bo_created){
		.ctx_id = ctx->id, .bo_id = bo->id, .size = bo->size, .iova = bo->iova,
	};
	client_send(c, &reply, &fd, 1);
	close(fd);
	return 0;
}

/* The quotas for count more BOs of size bytes each (count <= FERRY_MAX_BO_BATCH). */
static int bo_quota_admit_batch(struct ferry_host_client *c, uint64_t size, uint32_t count, char *why, size_t n)
{
	const struct ferry_host_config *cfg = &c->host->cfg;
	if (c->nr_bos >= cfg->max_client_bos || count > cfg->max_client_bos - c->nr_bos)
		HOST_FAIL(-EDQUOT, "client quota: at most %u BOs (ferryd --max-client-bos); %u held, a batch of %u asked",
			  cfg->max_client_bos, c->nr_bos, count);
	if (size > bo_bytes_room(c) / count)
		HOST_FAIL(-EDQUOT, "client quota: at most %u MiB of BOs (ferryd --max-client-bo-mib); %llu bytes in use, "
			  "%u x %llu more asked", cfg->max_client_bo_mib, (unsigned long long)c->bo_bytes, count,
			  (unsigned long long)size);
	/* Each BO holds its fds, and each reply fd is in flight until the client took it. */
	return client_fds_admit(c, count * HOST_FDS_BO_CREATE, why, n);
}

/* Undoes the first count BOs of a batch that could not be finished: the guest never hears of them. */
static void batch_undo(struct host_ctx *ctx, struct host_bo **bos, int *fds, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		bo_table_remove(&ctx->bos, bos[i]);
		bo_unref(bos[i]);
		close(fds[i]);
	}
}

int bo_handle_create_batch(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_bo_create_batch *r = &m->u.bo_create_batch;
	if (r->count == 0 || r->count > FERRY_MAX_BO_BATCH)
		HOST_FAIL(-EINVAL, "a BO batch makes 1 to %u BOs, not %u", FERRY_MAX_BO_BATCH, r->count);
	if (r->first_bo_id == 0 || r->first_bo_id > UINT32_MAX - (r->count - 1))
		HOST_FAIL(-EINVAL, "bo ids %u..%u + %u: 0 is reserved and ids do not wrap", r->first_bo_id,
			  r->first_bo_id, r->count - 1);
	struct host_ctx *ctx;
	for (uint32_t i = 0; i < r->count; i++) {
		int tret = bo_new_target(c, r->ctx_id, r->first_bo_id + i, &ctx, why, n);
		if (tret < 0)
			return tret;
	}
	const struct host_family_ops *fam = c->host->fam;
	struct ferry_bo_create one = { .ctx_id = r->ctx_id, .bo_id = r->first_bo_id, .size = r->size,
				       .flags = r->flags };
	uint64_t size;
	int ret = fam->bo_check(ctx, &one, &size, why, n);
	if (ret < 0)
		return ret;
	ret = bo_quota_admit_batch(c, size, r->count, why, n);
	if (ret < 0)
		return ret;

	struct host_bo *bos[FERRY_MAX_BO_BATCH];
	int fds[FERRY_MAX_BO_BATCH];
	struct ferry_msg reply = { .kind = FERRY_MSG_BO_BATCH_CREATED, .seq = m->seq };
	reply.u.bo_batch_created = (struct ferry_bo_batch_created){
		.ctx_id = ctx->id, .first_bo_id = r->first_bo_id, .size = size, .count = r->count,
	};
	char e[80];
	for (uint32_t i = 0; i < r->count; i++) {
		struct host_bo *bo = calloc(1, sizeof(*bo));
		one.bo_id = r->first_bo_id + i;
		ret = bo ? fam->bo_create(ctx, &one, bo, size) : -ENOMEM;
		if (ret < 0) {
			free(bo);
			batch_undo(ctx, bos, fds, i);
			HOST_FAIL(ret, "kernel could not create a %llu-byte bo (%u of a batch of %u): %s",
				  (unsigned long long)size, i + 1, r->count, ferry_errno_text(ret, e, sizeof(e)));
		}
		bo->ctx = ctx;
		bo->id = one.bo_id;
		bo->flags = r->flags;
		bo->size = size;
		ret = bo_install_quiet(c, ctx, bo, &fds[i], why, n);
		if (ret < 0) {
			batch_undo(ctx, bos, fds, i);
			return ret;
		}
		bos[i] = bo;
		reply.u.bo_batch_created.iova[i] = bo->iova;
	}
	client_send(c, &reply, fds, (int)r->count);
	for (uint32_t i = 0; i < r->count; i++)
		close(fds[i]);
	return 0;
}

struct host_bo *client_lookup_bo(struct ferry_host_client *c, uint32_t ctx_id, uint32_t bo_id,
			       struct host_ctx **ctx_out, char *why, size_t n)
{
	struct host_ctx *ctx = client_lookup_ctx(c, ctx_id, why, n);
	if (!ctx)
		return NULL;
	struct host_bo *bo = bo_table_find(&ctx->bos, bo_id);
	if (!bo) {
		snprintf(why, n, "bo %u does not exist in context %u", bo_id, ctx_id);
		return NULL;
	}
	*ctx_out = ctx;
	return bo;
}

int bo_handle_close(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_bo_close *r = &m->u.bo_close;
	struct host_ctx *ctx;
	struct host_bo *bo = client_lookup_bo(c, r->ctx_id, r->bo_id, &ctx, why, n);
	if (!bo)
		return -ENOENT;
	bo_table_remove(&ctx->bos, bo);
	bo_unref(bo);
	return 0;
}

int bo_handle_info(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_bo_info *r = &m->u.bo_info;
	struct host_ctx *ctx;
	struct host_bo *bo = client_lookup_bo(c, r->ctx_id, r->bo_id, &ctx, why, n);
	if (!bo)
		return -ENOENT;
	struct ferry_msg reply = { .kind = FERRY_MSG_BO_INFO_REPLY, .seq = m->seq };
	reply.u.bo_info_reply = (struct ferry_bo_info_reply){
		.ctx_id = ctx->id, .bo_id = bo->id, .size = bo->size, .iova = bo->iova, .flags = bo->flags,
	};
	client_send(c, &reply, NULL, 0);
	return 0;
}
