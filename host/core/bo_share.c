/* BO_IMPORT: a BO of any client's context comes into another context (of the same or another
 * client) when the importer hands back the fd of the BO's pages that the host gave out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "family.h"
#include "host_bo.h"

static uint32_t pages_bucket(const struct ferry_host *h, dev_t dev, ino_t ino)
{
	uint64_t k = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev;
	return (uint32_t)(k ^ (k >> 29)) & (h->pages_nbuckets - 1);
}

static int pages_grow(struct ferry_host *h)
{
	uint32_t n = h->pages_nbuckets ? h->pages_nbuckets * 2 : 256;
	struct host_bo **b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	struct host_bo **old = h->pages;
	uint32_t old_n = h->pages_nbuckets;
	h->pages = b;
	h->pages_nbuckets = n;
	for (uint32_t i = 0; i < old_n; i++) {
		struct host_bo *bo = old[i];
		while (bo) {
			struct host_bo *next = bo->pages_next;
			uint32_t k = pages_bucket(h, bo->pages_dev, bo->pages_ino);
			bo->pages_next = b[k];
			b[k] = bo;
			bo = next;
		}
	}
	free(old);
	return 0;
}

int bo_pages_add(struct ferry_host *h, struct host_bo *bo)
{
	if (h->pages_count >= h->pages_nbuckets && pages_grow(h) < 0)
		return -ENOMEM;
	uint32_t k = pages_bucket(h, bo->pages_dev, bo->pages_ino);
	bo->pages_next = h->pages[k];
	h->pages[k] = bo;
	h->pages_count++;
	return 0;
}

void bo_pages_del(struct ferry_host *h, struct host_bo *bo)
{
	if (!h->pages)
		return;
	for (struct host_bo **p = &h->pages[pages_bucket(h, bo->pages_dev, bo->pages_ino)]; *p; p = &(*p)->pages_next) {
		if (*p == bo) {
			*p = bo->pages_next;
			bo->pages_next = NULL;
			h->pages_count--;
			return;
		}
	}
}

void bo_pages_fini(struct ferry_host *h)
{
	free(h->pages);
	h->pages = NULL;
	h->pages_nbuckets = h->pages_count = 0;
}

/* The live BO whose pages are the file (dev, ino), in any context of any client. The fd is the
 * capability: the host hands it only to the context that made or imported the BO, and it
 * reaches anyone else only when that client passes it on. Ids are never consulted. */
static struct host_bo *find_by_pages(struct ferry_host *h, dev_t dev, ino_t ino)
{
	if (!h->pages)
		return NULL;
	for (struct host_bo *bo = h->pages[pages_bucket(h, dev, ino)]; bo; bo = bo->pages_next)
		if (bo->pages_ino == ino && bo->pages_dev == dev)
			return bo;
	return NULL;
}

static struct host_bo *find_by_handle(const struct host_ctx *ctx, uint32_t handle)
{
	for (uint32_t i = 0; i < ctx->bos.nbuckets; i++)
		for (struct host_bo *bo = ctx->bos.buckets[i]; bo; bo = bo->hash_next)
			if (bo->handle == handle)
				return bo;
	return NULL;
}

int bo_handle_import(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_bo_import *r = &m->u.bo_import;
	struct host_ctx *ctx;
	int tret = bo_new_target(c, r->ctx_id, r->bo_id, &ctx, why, n);
	if (tret < 0)
		return tret;
	int fd = c->in_nfds == 1 ? c->in_fds[0] : -1;
	if (fd < 0)
		HOST_FAIL(-EBADF, "bo import carries %d fds (exactly 1 expected: the BO's pages)", c->in_nfds);
	struct stat st;
	if (fstat(fd, &st) < 0)
		HOST_FAIL(-EBADF, "bo import: the fd cannot be examined");
	/* As drm_gem_prime_fd_to_handle for a file that is not one of the device's dma-bufs. */
	struct host_bo *src = find_by_pages(c->host, st.st_dev, st.st_ino);
	if (!src)
		HOST_FAIL(-EINVAL, "bo import: the fd is not the pages of a BO this server holds");

	int quota_ret = bo_quota_admit(c, src->size, why, n);
	if (quota_ret < 0)
		return quota_ret;

	struct host_bo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		HOST_FAIL(-ENOMEM, "out of memory");
	const struct host_family_ops *fam = c->host->fam;
	int ret = fam->bo_import(ctx, fd, &bo->handle, &bo->iova);
	char e[80];
	if (ret < 0) {
		/* A handle the open had before belongs to that BO; a new one is let go. */
		if (bo->handle && !find_by_handle(ctx, bo->handle)) {
			fam->bo_close(ctx, bo->handle);
		}
		free(bo);
		HOST_FAIL(ret, "kernel could not import the bo: %s", ferry_errno_text(ret, e, sizeof(e)));
	}
	/* The kernel gives an open the handle it already has for the object: one host BO per
	 * handle, so a second import into the same context is refused (the shim deduplicates). */
	struct host_bo *had = find_by_handle(ctx, bo->handle);
	if (had) {
		free(bo);
		HOST_FAIL(-EEXIST, "bo import: context %u has this BO already as bo %u", r->ctx_id, had->id);
	}
	bo->ctx = ctx;
	bo->id = r->bo_id;
	bo->flags = src->flags;
	bo->size = src->size;
	return bo_install(c, ctx, bo, m->seq, why, n);
}
