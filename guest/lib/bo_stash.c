/* libferry's BO stash: BOs of the small sizes a context keeps making are created ahead, several
 * per BoCreateBatch, so ferry_bo_new hands out one whose pages usually came already. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void ferry_bo_stash_setup(struct ferry_device *dev)
{
	const char *env = getenv("FERRY_BO_STASH");
	/* A capture records what libferry sends and replays it to any ferryd: it keeps to BoCreate.
	 * virtio and tcp pass fds their own way (one BO a reply). */
	dev->bo_stash = (dev->server_features & FERRY_FEATURE_BO_BATCH) && dev->transport->passes_fds &&
			!dev->transport->no_shared_memory && !dev->capture && !(env && strcmp(env, "0") == 0);
}

/* Sends a BoCreateBatch of count BOs (lock NOT held). On 0, bos[] are new BOs on ctx->bos, not
 * stashed, their answer pending. */
static int batch_request(struct ferry_context *ctx, uint64_t size, uint32_t flags, uint32_t count,
			 struct ferry_bo **bos)
{
	struct ferry_device *dev = ctx->dev;
	struct ferry_bo_batch *b = calloc(1, sizeof(*b));
	uint32_t made = 0;
	for (; b && made < count; made++)
		if (!(bos[made] = calloc(1, sizeof(**bos))))
			break;
	if (!b || made < count) {
		while (made)
			free(bos[--made]);
		free(b);
		return -ENOMEM;
	}
	struct ferry_msg msg = { .kind = FERRY_MSG_BO_CREATE_BATCH, .seq = ferry_next_seq(dev) };
	pthread_mutex_lock(&dev->lock);
	b->reply = ferry_pending_add(dev, msg.seq, msg.kind);
	if (!b->reply) {
		pthread_mutex_unlock(&dev->lock);
		for (uint32_t i = 0; i < count; i++)
			free(bos[i]);
		free(b);
		return -ENOMEM;
	}
	/* The host takes consecutive ids, none 0, none past 2^32 - 1. */
	if (ctx->next_bo_id == 0 || ctx->next_bo_id > UINT32_MAX - (count - 1))
		ctx->next_bo_id = 1;
	b->first_id = ctx->next_bo_id;
	ctx->next_bo_id += count;
	b->count = count;
	b->size = size;
	for (uint32_t i = 0; i < count; i++) {
		struct ferry_bo *bo = bos[i];
		bo->ctx = ctx;
		bo->id = b->first_id + i;
		bo->size = size;
		bo->flags = flags;
		bo->fd = -1;
		bo->batch = b;
		bo->from_batch = true;
		b->bos[i] = bo;
		ferry_bo_link(ctx, bo);
	}
	pthread_mutex_unlock(&dev->lock);

	msg.u.bo_create_batch = (struct ferry_bo_create_batch){
		.ctx_id = ctx->id, .first_bo_id = b->first_id, .count = count, .size = size, .flags = flags,
	};
	int r = ferry_send(dev, &msg);
	if (r < 0) {
		ferry_set_send_error(dev, msg.kind, r);
		pthread_mutex_lock(&dev->lock);
		for (uint32_t i = 0; i < count; i++) {
			ferry_bo_unlink(bos[i]);
			ferry_bo_free(bos[i]);
		}
		pthread_mutex_unlock(&dev->lock);
	}
	return r;
}

void ferry_bo_batch_drop(struct ferry_device *dev, struct ferry_bo *bo)
{
	struct ferry_bo_batch *b = bo->batch;
	bo->batch = NULL;
	bool left = false;
	for (uint32_t i = 0; i < b->count; i++) {
		if (b->bos[i] == bo)
			b->bos[i] = NULL;
		else if (b->bos[i])
			left = true;
	}
	if (left)
		return;
	if (b->reply->done)
		ferry_pending_free(dev, b->reply);
	else
		b->reply->abandoned = true; /* the pump frees it (and its fds) on arrival */
	free(b);
}

void ferry_bo_batch_resolve(struct ferry_device *dev, struct ferry_bo_batch *b)
{
	struct ferry_pending *p = b->reply;
	const struct ferry_bo_batch_created *c = &p->msg.u.bo_batch_created;
	int err = 0;
	if (p->kind == FERRY_MSG_BO_BATCH_CREATED) {
		if (c->first_bo_id != b->first_id || c->count != b->count || p->nfds != (int)b->count ||
		    c->size < b->size) {
			err = -EPROTO;
			ferry_set_error(dev, "BOs %u..: malformed BO_BATCH_CREATED reply", b->first_id);
		}
	} else if (p->kind == FERRY_MSG_ERROR) {
		err = p->msg.u.error.error < 0 ? p->msg.u.error.error : -EIO;
		ferry_set_error(dev, "BOs %u..%u create failed: %s", b->first_id, b->first_id + b->count - 1,
				p->text ? p->text : "");
	} else {
		err = -EPROTO;
		ferry_set_error(dev, "BOs %u..: unexpected reply to BO_CREATE_BATCH", b->first_id);
	}
	for (uint32_t i = 0; i < b->count; i++) {
		struct ferry_bo *bo = b->bos[i];
		if (!bo)
			continue;
		bo->batch = NULL;
		if (err) {
			bo->create_error = err;
			continue;
		}
		bo->fd = p->fds[i];
		p->fds[i] = -1;
		bo->size = c->size;
		bo->iova = c->iova[i];
		bo->ready = true;
	}
	ferry_pending_free(dev, p);
	free(b);
}

static struct ferry_stash_class *find_class(struct ferry_context *ctx, uint64_t size, uint32_t flags)
{
	for (unsigned i = 0; i < FERRY_STASH_CLASSES; i++)
		if (ctx->stash[i].size == size && ctx->stash[i].flags == flags)
			return &ctx->stash[i];
	return NULL;
}

/* Takes a class's stashed BOs off it (lock held): a list by stash_next, for stash_close. */
static struct ferry_bo *class_empty(struct ferry_stash_class *cls, struct ferry_bo *list)
{
	while (cls->bos) {
		struct ferry_bo *bo = cls->bos;
		cls->bos = bo->stash_next;
		bo->stashed = false;
		bo->stash_next = list;
		list = bo;
	}
	cls->nr = 0;
	return list;
}

static void stash_close(struct ferry_bo *list)
{
	while (list) {
		struct ferry_bo *bo = list;
		list = bo->stash_next;
		bo->stash_next = NULL;
		ferry_bo_close(bo);
	}
}

void ferry_bo_stash_remove(struct ferry_bo *bo)
{
	struct ferry_context *ctx = bo->ctx;
	for (unsigned i = 0; i < FERRY_STASH_CLASSES; i++) {
		for (struct ferry_bo **pp = &ctx->stash[i].bos; *pp; pp = &(*pp)->stash_next) {
			if (*pp == bo) {
				*pp = bo->stash_next;
				ctx->stash[i].nr--;
				bo->stash_next = NULL;
				bo->stashed = false;
				return;
			}
		}
	}
}

bool ferry_bo_stash_nonempty(const struct ferry_context *ctx)
{
	for (unsigned i = 0; i < FERRY_STASH_CLASSES; i++)
		if (ctx->stash[i].nr)
			return true;
	return false;
}

void ferry_bo_stash_trim(struct ferry_context *ctx)
{
	struct ferry_device *dev = ctx->dev;
	pthread_mutex_lock(&dev->lock);
	struct ferry_bo *list = NULL;
	for (unsigned i = 0; i < FERRY_STASH_CLASSES; i++)
		list = class_empty(&ctx->stash[i], list);
	pthread_mutex_unlock(&dev->lock);
	stash_close(list);
}

int ferry_bo_stash_take(struct ferry_context *ctx, uint64_t size, uint32_t flags, struct ferry_bo **out)
{
	struct ferry_device *dev = ctx->dev;
	if (!dev->bo_stash || size > FERRY_STASH_MAX_SIZE)
		return -ENOENT;
	uint64_t key = (size + 4095) & ~(uint64_t)4095;
	struct ferry_bo *evicted = NULL, *bo = NULL;
	pthread_mutex_lock(&dev->lock);
	struct ferry_stash_class *cls = find_class(ctx, key, flags);
	if (!cls) {
		/* A new size: it takes the least recently used class's place. */
		cls = &ctx->stash[0];
		for (unsigned i = 1; i < FERRY_STASH_CLASSES; i++)
			if (ctx->stash[i].last_use < cls->last_use)
				cls = &ctx->stash[i];
		evicted = class_empty(cls, NULL);
		*cls = (struct ferry_stash_class){ .size = key, .flags = flags };
	}
	cls->last_use = ++ctx->stash_clock;
	if (cls->uses < 2)
		cls->uses++;
	bool stashing = cls->uses >= 2;
	if (stashing && cls->bos) {
		bo = cls->bos;
		cls->bos = bo->stash_next;
		cls->nr--;
		bo->stash_next = NULL;
		bo->stashed = false;
	}
	bool refill = stashing && cls->nr < FERRY_STASH_LOW;
	pthread_mutex_unlock(&dev->lock);
	stash_close(evicted);
	if (!stashing)
		return -ENOENT; /* a size seen once: made alone, nothing kept ahead */

	if (refill || !bo) {
		struct ferry_bo *nb[FERRY_MAX_BO_BATCH];
		int r = batch_request(ctx, key, flags, FERRY_MAX_BO_BATCH, nb);
		if (r < 0) {
			*out = bo;
			return bo ? 0 : -ENOENT;
		}
		uint32_t i = 0;
		if (!bo)
			bo = nb[i++];
		pthread_mutex_lock(&dev->lock);
		/* Another thread may have given the class's place to another size meanwhile. */
		cls = find_class(ctx, key, flags);
		struct ferry_bo *spare = NULL;
		struct ferry_bo **tail = cls ? &cls->bos : NULL;
		while (tail && *tail)
			tail = &(*tail)->stash_next;
		for (; i < FERRY_MAX_BO_BATCH; i++) {
			/* Oldest first: those are the likeliest to have their pages already. */
			if (tail) {
				nb[i]->stashed = true;
				*tail = nb[i];
				tail = &nb[i]->stash_next;
				cls->nr++;
			} else {
				nb[i]->stash_next = spare;
				spare = nb[i];
			}
		}
		pthread_mutex_unlock(&dev->lock);
		stash_close(spare);
	}
	*out = bo;
	return 0;
}
