/* libferry BOs: ids are chosen here, so creation is asynchronous; the first map/iova waits for
 * BO_CREATED (pages as an fd + GPU address), later ones are local. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

void ferry_bo_link(struct ferry_context *ctx, struct ferry_bo *bo)
{
	bo->prev = NULL;
	bo->next = ctx->bos;
	if (ctx->bos)
		ctx->bos->prev = bo;
	ctx->bos = bo;
}

void ferry_bo_unlink(struct ferry_bo *bo)
{
	if (bo->prev)
		bo->prev->next = bo->next;
	else
		bo->ctx->bos = bo->next;
	if (bo->next)
		bo->next->prev = bo->prev;
	bo->prev = bo->next = NULL;
}

/* BO_CREATE (fd < 0) or BO_IMPORT of fd: a new local BO with a fresh id, its answer pending. */
static int bo_request(struct ferry_context *ctx, uint64_t size, uint32_t flags, int fd, struct ferry_bo **out)
{
	struct ferry_device *dev = ctx->dev;
	*out = NULL;
	struct ferry_bo *bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	bo->ctx = ctx;
	bo->size = size;
	bo->flags = flags;
	bo->fd = -1;
	bo->imported = fd >= 0;

	struct ferry_msg msg = { .kind = fd < 0 ? FERRY_MSG_BO_CREATE : FERRY_MSG_BO_IMPORT,
				 .seq = ferry_next_seq(dev) };
	pthread_mutex_lock(&dev->lock);
	bo->id = ctx->next_bo_id++;
	if (bo->id == 0) /* 0 is not a valid id; skip it after a wrap */
		bo->id = ctx->next_bo_id++;
	bo->created = ferry_pending_add(dev, msg.seq, msg.kind);
	if (!bo->created) {
		pthread_mutex_unlock(&dev->lock);
		free(bo);
		return -ENOMEM;
	}
	ferry_bo_link(ctx, bo);
	pthread_mutex_unlock(&dev->lock);

	int r;
	if (fd < 0) {
		msg.u.bo_create.ctx_id = ctx->id;
		msg.u.bo_create.bo_id = bo->id;
		msg.u.bo_create.size = size;
		msg.u.bo_create.flags = flags;
		r = ferry_send(dev, &msg);
	} else {
		msg.u.bo_import.ctx_id = ctx->id;
		msg.u.bo_import.bo_id = bo->id;
		pthread_mutex_lock(&dev->send_lock);
		r = ferry_send_locked(dev, &msg, &fd, 1);
		pthread_mutex_unlock(&dev->send_lock);
	}
	if (r < 0) {
		ferry_set_send_error(dev, msg.kind, r);
		pthread_mutex_lock(&dev->lock);
		ferry_bo_unlink(bo);
		ferry_bo_free(bo);
		pthread_mutex_unlock(&dev->lock);
		return r;
	}
	*out = bo;
	return 0;
}

int ferry_bo_new(struct ferry_context *ctx, uint64_t size, uint32_t flags, struct ferry_bo **out)
{
	*out = NULL;
	if (size == 0)
		return -EINVAL;
	int r = ferry_bo_stash_take(ctx, size, flags, out);
	if (r != -ENOENT)
		return r;
	return bo_request(ctx, size, flags, -1, out);
}

int ferry_bo_import(struct ferry_context *ctx, int fd, struct ferry_bo **out)
{
	*out = NULL;
	if (fd < 0)
		return -EBADF;
	struct ferry_bo *bo;
	int r = bo_request(ctx, 0, 0, fd, &bo);
	if (r < 0)
		return r;
	/* Unlike a create, the caller needs the verdict now (PRIME_FD_TO_HANDLE's errno). */
	r = ferry_bo_wait_created(bo);
	if (r < 0) {
		ferry_bo_close(bo); /* a refused import sends nothing */
		return r;
	}
	*out = bo;
	return 0;
}

static bool bo_answered(void *arg)
{
	struct ferry_bo *bo = arg;
	return bo->ready || bo->create_error || (bo->created && bo->created->done) ||
	       (bo->batch && bo->batch->reply->done);
}

/* A create that failed (dev->lock held) is sent again alone, once, if the stash may be what was in
 * the way: a batch asks for more than the one BO, and stashed BOs count against the quotas. The
 * stash goes first, so ferryd has freed it by the time the BO_CREATE comes. Returns whether it
 * was sent. */
static bool bo_retry_alone(struct ferry_bo *bo)
{
	struct ferry_context *ctx = bo->ctx;
	struct ferry_device *dev = ctx->dev;
	bool stash_in_way = bo->create_error == -EDQUOT && ferry_bo_stash_nonempty(ctx);
	if (bo->retried || bo->imported || !(bo->from_batch || stash_in_way) || dev->dead)
		return false;
	bo->retried = true;
	pthread_mutex_unlock(&dev->lock);
	ferry_bo_stash_trim(ctx);
	struct ferry_msg msg = { .kind = FERRY_MSG_BO_CREATE, .seq = ferry_next_seq(dev) };
	msg.u.bo_create = (struct ferry_bo_create){
		.ctx_id = ctx->id, .bo_id = bo->id, .size = bo->size, .flags = bo->flags,
	};
	pthread_mutex_lock(&dev->lock);
	struct ferry_pending *p = ferry_pending_add(dev, msg.seq, msg.kind);
	if (!p)
		return false;
	pthread_mutex_unlock(&dev->lock);
	int r = ferry_send(dev, &msg);
	pthread_mutex_lock(&dev->lock);
	if (r < 0) {
		ferry_pending_free(dev, p);
		return false;
	}
	bo->created = p;
	bo->create_error = 0;
	return true;
}

int ferry_bo_wait_created(struct ferry_bo *bo)
{
	struct ferry_device *dev = bo->ctx->dev;
	pthread_mutex_lock(&dev->lock);
	int r;
again:
	r = ferry_pump_wait(dev, bo_answered, bo, -1);
	if (r == 0 && bo->batch) {
		ferry_bo_batch_resolve(dev, bo->batch);
	} else if (r == 0 && !bo->ready && !bo->create_error) {
		struct ferry_pending *p = bo->created;
		if (p->kind == FERRY_MSG_BO_CREATED && p->nfds >= 1 &&
		    p->msg.u.bo_created.bo_id == bo->id && p->msg.u.bo_created.size >= bo->size) {
			bo->fd = p->fds[0];
			p->fds[0] = -1;
			bo->size = p->msg.u.bo_created.size;
			bo->iova = p->msg.u.bo_created.iova;
			bo->ready = true;
		} else if (p->kind == FERRY_MSG_ERROR) {
			bo->create_error = p->msg.u.error.error < 0 ? p->msg.u.error.error : -EIO;
			ferry_set_error(dev, "BO %u create failed: %s", bo->id, p->text ? p->text : "");
		} else {
			bo->create_error = -EPROTO;
			ferry_set_error(dev, "BO %u: malformed BO_CREATED reply", bo->id);
		}
		ferry_pending_free(dev, p);
		bo->created = NULL;
	}
	if (r == 0 && bo->create_error && bo_retry_alone(bo))
		goto again;
	if (r == 0 && bo->create_error)
		r = bo->create_error;
	pthread_mutex_unlock(&dev->lock);
	return r;
}

/* A request answered by STATUS_REPLY: its error, or the ERROR's (dev->lock held). */
static int status_of(const struct ferry_pending *p)
{
	if (p->kind == FERRY_MSG_STATUS_REPLY)
		return p->msg.u.status_reply.error;
	if (p->kind == FERRY_MSG_ERROR)
		return p->msg.u.error.error < 0 ? p->msg.u.error.error : -EIO;
	return -EPROTO;
}

/* Over a transport without shared memory the pages are a local copy: ferryd sends its bytes
 * (BoMap's reply) and from then on mirrors the BO both ways (docs/network.md). */
static int bo_mirror(struct ferry_bo *bo)
{
	struct ferry_device *dev = bo->ctx->dev;
	pthread_mutex_lock(&dev->lock);
	bool done = bo->mirrored;
	pthread_mutex_unlock(&dev->lock);
	if (done)
		return 0;
	struct ferry_msg msg = { .kind = FERRY_MSG_BO_MAP };
	msg.u.bo_map.ctx_id = bo->ctx->id;
	msg.u.bo_map.bo_id = bo->id;
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&dev->lock);
	r = status_of(p);
	if (r == 0)
		bo->mirrored = true;
	else
		ferry_set_error(dev, "BO %u: ferryd cannot mirror it: %s", bo->id, strerror(-r));
	ferry_pending_free(dev, p);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

int ferry_bo_map(struct ferry_bo *bo, void **ptr)
{
	struct ferry_device *dev = bo->ctx->dev;
	*ptr = NULL;
	int r = ferry_bo_wait_created(bo);
	if (r < 0)
		return r;
	if (dev->transport->no_shared_memory) {
		r = bo_mirror(bo);
		if (r < 0)
			return r;
	}
	pthread_mutex_lock(&dev->lock);
	if (!bo->map) {
		void *m = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, bo->fd, 0);
		if (m == MAP_FAILED) {
			r = -errno;
			ferry_set_error(dev, "mmap of BO %u failed: %s", bo->id, strerror(-r));
		} else {
			bo->map = m;
		}
	}
	*ptr = bo->map;
	pthread_mutex_unlock(&dev->lock);
	return r;
}

int ferry_bo_iova(struct ferry_bo *bo, uint64_t *iova)
{
	int r = ferry_bo_wait_created(bo);
	*iova = r < 0 ? 0 : bo->iova;
	return r;
}

int ferry_bo_fd(struct ferry_bo *bo)
{
	int r = ferry_bo_wait_created(bo);
	if (r < 0)
		return r;
	return bo->fd >= 0 ? bo->fd : -EBADF;
}

uint64_t ferry_bo_size(const struct ferry_bo *bo)
{
	return bo->size;
}

uint32_t ferry_bo_id(const struct ferry_bo *bo)
{
	return bo->id;
}

int ferry_bo_cpu_prep(struct ferry_bo *bo, uint32_t op, int64_t timeout_ns)
{
	struct ferry_device *dev = bo->ctx->dev;
	struct ferry_msg msg = { .kind = FERRY_MSG_BO_CPU_PREP };
	msg.u.bo_cpu_prep.ctx_id = bo->ctx->id;
	msg.u.bo_cpu_prep.bo_id = bo->id;
	msg.u.bo_cpu_prep.op = op;
	msg.u.bo_cpu_prep.timeout_ns = timeout_ns < 0 ? -1 : timeout_ns;
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&dev->lock);
	r = status_of(p);
	ferry_pending_free(dev, p);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

/* Releases the local side (dev->lock held, already unlinked). */
void ferry_bo_free(struct ferry_bo *bo)
{
	struct ferry_device *dev = bo->ctx->dev;
	if (bo->stashed)
		ferry_bo_stash_remove(bo);
	if (bo->batch)
		ferry_bo_batch_drop(dev, bo);
	if (bo->created) {
		/* BO_CREATED still on its way: the pump frees the record (and its fd) on arrival. */
		if (bo->created->done)
			ferry_pending_free(dev, bo->created);
		else
			bo->created->abandoned = true;
	}
	if (bo->map)
		munmap(bo->map, bo->size);
	if (bo->fd >= 0)
		close(bo->fd);
	free(bo);
}

void ferry_bo_close(struct ferry_bo *bo)
{
	if (!bo)
		return;
	struct ferry_context *ctx = bo->ctx;
	struct ferry_device *dev = ctx->dev;
	struct ferry_msg msg = { .kind = FERRY_MSG_BO_CLOSE, .seq = ferry_next_seq(dev) };
	msg.u.bo_close.ctx_id = ctx->id;
	msg.u.bo_close.bo_id = bo->id;

	pthread_mutex_lock(&dev->lock);
	bool exists_on_host = !bo->create_error;
	ferry_bo_unlink(bo);
	if (exists_on_host)
		ferry_async_note(dev, msg.seq, msg.kind, ctx->id, 0, 0);
	ferry_bo_free(bo);
	pthread_mutex_unlock(&dev->lock);
	if (exists_on_host && !dev->dead) {
		/* Into the context's ring when it has one: no reply and no fds, so a close costs no
		 * socket frame, and the ring's order against the socket means the host has freed the
		 * BO (and its quota) before it reads any request sent after this. */
		pthread_mutex_lock(&dev->send_lock);
		ferry_send_ctx_locked(ctx, &msg);
		pthread_mutex_unlock(&dev->send_lock);
	}
}
