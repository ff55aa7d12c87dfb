/* libferry contexts: creation (one round trip that returns the fence page and its eventfd),
 * the fence page mapping, fault reports and teardown. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

struct ferry_context *ferry_find_context(struct ferry_device *dev, uint32_t ctx_id)
{
	for (struct ferry_context *c = dev->contexts; c; c = c->next)
		if (c->id == ctx_id)
			return c;
	return NULL;
}

static int adopt_fence_page(struct ferry_context *ctx, struct ferry_pending *p)
{
	struct ferry_device *dev = ctx->dev;
	if (p->nfds < 2) {
		ferry_set_error(dev, "CONTEXT_CREATED carried %d fds, want 2", p->nfds);
		return -EPROTO;
	}
	void *page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			  p->fds[0], 0);
	if (page == MAP_FAILED) {
		int e = errno;
		ferry_set_error(dev, "cannot map the fence page: %s", strerror(e));
		return -e;
	}
	ctx->page = page;
	if (ctx->page->magic != FERRY_FENCE_PAGE_MAGIC) {
		ferry_set_error(dev, "fence page has bad magic 0x%08x", ctx->page->magic);
		return -EPROTO;
	}
	ctx->seqno_wake = ctx->page->version >= 2;
	/* The eventfd's file description is shared with the host, which only writes it, so
	 * making it non-blocking here cannot disturb the host. */
	int fl = fcntl(p->fds[1], F_GETFL);
	if (fl < 0 || fcntl(p->fds[1], F_SETFL, fl | O_NONBLOCK) < 0) {
		int e = errno;
		ferry_set_error(dev, "eventfd: %s", strerror(e));
		return -e;
	}
	int r = ferry_pump_watch(dev, p->fds[1]);
	if (r < 0) {
		ferry_set_error(dev, "epoll: %s", strerror(-r));
		return r;
	}
	ctx->event_fd = p->fds[1];
	p->fds[1] = -1;
	/* The mapping keeps the page alive; the memfd itself is not needed. */
	return 0;
}

int ferry_context_create(struct ferry_device *dev, uint32_t family, uint32_t policy,
			 struct ferry_context **out)
{
	*out = NULL;
	struct ferry_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->dev = dev;
	ctx->family = family;
	ctx->event_fd = -1;
	ctx->ring_doorbell = -1;
	ctx->next_bo_id = 1;
	pthread_mutex_lock(&dev->lock);
	ctx->id = dev->next_ctx_id++;
	pthread_mutex_unlock(&dev->lock);

	struct ferry_msg msg = { .kind = FERRY_MSG_CONTEXT_CREATE };
	msg.u.context_create.ctx_id = ctx->id;
	msg.u.context_create.family = family;
	msg.u.context_create.policy = policy;
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	if (r < 0) {
		free(ctx);
		return r;
	}
	pthread_mutex_lock(&dev->lock);
	bool host_has_it = p->kind == FERRY_MSG_CONTEXT_CREATED;
	if (host_has_it) {
		r = adopt_fence_page(ctx, p);
	} else {
		r = p->kind == FERRY_MSG_ERROR ? p->msg.u.error.error : -EPROTO;
		if (r >= 0)
			r = -EPROTO;
		ferry_set_error(dev, "context create failed: %s", p->text ? p->text : "bad reply");
	}
	ferry_pending_free(dev, p);
	if (r < 0) {
		pthread_mutex_unlock(&dev->lock);
		if (ctx->page)
			munmap(ctx->page, FERRY_FENCE_PAGE_SIZE);
		if (ctx->event_fd >= 0) {
			ferry_pump_unwatch(dev, ctx->event_fd);
			close(ctx->event_fd);
		}
		/* The host may have created it even though we could not use it. */
		if (host_has_it) {
			struct ferry_msg d = { .kind = FERRY_MSG_CONTEXT_DESTROY, .seq = ferry_next_seq(dev) };
			d.u.context_destroy.ctx_id = ctx->id;
			ferry_send(dev, &d);
		}
		free(ctx);
		return r;
	}
	pthread_mutex_unlock(&dev->lock);
	ferry_ring_setup(ctx); /* before anyone can submit on it */
	pthread_mutex_lock(&dev->lock);
	ctx->next = dev->contexts;
	dev->contexts = ctx;
	pthread_mutex_unlock(&dev->lock);
	*out = ctx;
	return 0;
}

void ferry_context_destroy(struct ferry_context *ctx)
{
	if (!ctx)
		return;
	struct ferry_device *dev = ctx->dev;
	struct ferry_msg msg = { .kind = FERRY_MSG_CONTEXT_DESTROY, .seq = ferry_next_seq(dev) };
	msg.u.context_destroy.ctx_id = ctx->id;
	pthread_mutex_lock(&dev->lock);
	/* Unlinked first, so messages still arriving for it are no longer routed here. */
	for (struct ferry_context **pp = &dev->contexts; *pp; pp = &(*pp)->next) {
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	}
	ferry_async_note(dev, msg.seq, msg.kind, ctx->id, 0, 0);
	/* Queues and BOs the caller left open go with the context: the host frees its side of
	 * them on CONTEXT_DESTROY, so only local state is released here. */
	while (ctx->bos) {
		struct ferry_bo *bo = ctx->bos;
		ctx->bos = bo->next;
		ferry_bo_free(bo);
	}
	while (ctx->queues) {
		struct ferry_queue *q = ctx->queues;
		ctx->queues = q->next;
		ferry_queue_free(q);
	}
	if (ctx->event_fd >= 0) {
		ferry_pump_unwatch(dev, ctx->event_fd);
		close(ctx->event_fd);
	}
	pthread_mutex_unlock(&dev->lock);
	if (!dev->dead)
		ferry_send(dev, &msg);
	ferry_wake_reader(dev);
	ferry_ring_teardown(ctx);
	free(ctx->sub_bos);
	free(ctx->sub_cmds);
	free(ctx->sub_ids);
	if (ctx->page)
		munmap(ctx->page, FERRY_FENCE_PAGE_SIZE);
	for (unsigned i = 0; i < ctx->nr_faults; i++) {
		free(ctx->faults[i]->text);
		free(ctx->faults[i]);
	}
	free(ctx->faults);
	free(ctx);
}

uint32_t ferry_context_refusals(struct ferry_context *ctx, uint32_t queue_id, bool only_queue)
{
	struct ferry_device *dev = ctx->dev;
	pthread_mutex_lock(&dev->lock);
	uint32_t n = ctx->nr_refused;
	if (only_queue) {
		struct ferry_queue *q = ferry_find_queue(ctx, queue_id);
		n = q ? q->nr_refused : 0;
	}
	pthread_mutex_unlock(&dev->lock);
	return n;
}

int ferry_context_timestamp(struct ferry_context *ctx, uint64_t *ticks)
{
	struct ferry_device *dev = ctx->dev;
	struct ferry_msg msg = { .kind = FERRY_MSG_TIMESTAMP_QUERY };
	msg.u.timestamp_query.ctx_id = ctx->id;
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&dev->lock);
	if (p->kind == FERRY_MSG_STATUS_REPLY) {
		r = p->msg.u.status_reply.error;
		*ticks = p->msg.u.status_reply.value;
	} else if (p->kind == FERRY_MSG_ERROR) {
		r = p->msg.u.error.error < 0 ? p->msg.u.error.error : -EIO;
	} else {
		r = -EPROTO;
	}
	ferry_pending_free(dev, p);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

bool ferry_context_lost(const struct ferry_context *ctx)
{
	struct ferry_device *dev = ctx->dev;
	pthread_mutex_lock(&dev->lock);
	/* A dead connection loses every context on it: nothing it submitted will be signaled. */
	bool lost = ctx->lost || dev->dead;
	pthread_mutex_unlock(&dev->lock);
	return lost || atomic_load(&ctx->page->lost) != 0;
}

void ferry_context_add_fault(struct ferry_context *ctx, const struct ferry_fault_report *r)
{
	ctx->lost = true;
	/* An array of pointers: reports handed out stay put when the array grows. */
	struct ferry_fault_info **arr = realloc(ctx->faults, (ctx->nr_faults + 1) * sizeof(*arr));
	if (!arr)
		return;
	ctx->faults = arr;
	struct ferry_fault_info *f = malloc(sizeof(*f));
	if (!f)
		return;
	*f = (struct ferry_fault_info){
		.queue_id = r->queue_id,
		.seqno = r->seqno,
		.flags = r->flags,
		.iova = r->iova,
		.ib_iova = r->ib_iova,
		.ib_dword = r->ib_dword,
		.ib_level = r->ib_level,
		.opcode = r->opcode,
		.text = strdup(r->text ? r->text : ""),
	};
	ctx->faults[ctx->nr_faults++] = f;
}

const struct ferry_fault_info *ferry_context_fault(struct ferry_context *ctx, unsigned index)
{
	struct ferry_device *dev = ctx->dev;
	pthread_mutex_lock(&dev->lock);
	const struct ferry_fault_info *f = index < ctx->nr_faults ? ctx->faults[index] : NULL;
	pthread_mutex_unlock(&dev->lock);
	return f;
}
