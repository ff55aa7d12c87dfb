/* Contexts: the per-client table keyed by client-chosen ids; each context is one kdev open (its
 * own GPU address space), a fence page memfd and an eventfd shared with the guest, its BOs and
 * queues. Also the progress step run whenever a context's work may have moved, and loss. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "family.h"
#include "host_log.h"
#include "host_client.h"
#include "host_context.h"
#include "host_bo.h"
#include "host_queue.h"
#include "sched.h"
#include "wait.h"
#include "trace_host.h"
#include "ring.h"

struct host_ctx *ctx_find(struct ferry_host_client *c, uint32_t id)
{
	for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
		struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
		if (ctx->id == id)
			return ctx;
	}
	return NULL;
}

struct host_ctx *client_lookup_ctx(struct ferry_host_client *c, uint32_t ctx_id, char *why, size_t n)
{
	struct host_ctx *ctx = ctx_find(c, ctx_id);
	if (!ctx)
		snprintf(why, n, "context %u does not exist", ctx_id);
	return ctx;
}

static int make_fence_page(struct host_ctx *ctx)
{
	ctx->page_fd = memfd_create("ferry-fence-page", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (ctx->page_fd < 0)
		return -errno;
	if (ftruncate(ctx->page_fd, FERRY_FENCE_PAGE_SIZE) < 0)
		return -errno;
	/* The guest gets this fd: it must not be able to shrink the file under the host's mapping
	 * (that would SIGBUS the host). */
	if (fcntl(ctx->page_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return -errno;
	void *p = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->page_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	ctx->page = p;
	ferry_fence_page_init(ctx->page);
	return 0;
}

int ctx_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_context_create *r = &m->u.context_create;
	struct ferry_host *h = c->host;
	if (ctx_find(c, r->ctx_id))
		HOST_FAIL(-EEXIST, "context %u already exists", r->ctx_id);
	const struct host_family_ops *fam = host_family_by_id(r->family);
	if (!fam)
		HOST_FAIL(-EINVAL, "unknown family %u", r->family);
	if (fam != h->fam)
		HOST_FAIL(-ENODEV, "this server has no %s device (it serves %s)", fam->name, h->device_name);
	if (r->policy == FERRY_POLICY_PASSTHROUGH && !h->cfg.allow_passthrough)
		HOST_FAIL(-EPERM, "passthrough policy (no command-stream validation, no shadow copies) is not "
			  "allowed by this server; it must be started with --allow-passthrough");
	if (r->policy != FERRY_POLICY_VALIDATED && r->policy != FERRY_POLICY_PASSTHROUGH)
		HOST_FAIL(-EINVAL, "unknown policy %u", r->policy);
	if (c->nr_contexts >= h->cfg.max_client_contexts)
		HOST_FAIL(-EDQUOT, "client quota: at most %u contexts (ferryd --max-client-contexts)",
			  h->cfg.max_client_contexts);
	int fds_ret = client_fds_admit(c, HOST_FDS_CTX_CREATE, why, n);
	if (fds_ret < 0)
		return fds_ret;
	int busy = h->fam->ctx_admit(c, why, n);
	if (busy < 0)
		return busy;

	/* The family's state embeds the context (offset 0): one allocation, freed as ctx. */
	struct host_ctx *ctx = calloc(1, h->fam->ctx_size);
	if (!ctx)
		HOST_FAIL(-ENOMEM, "out of memory");
	ctx->client = c;
	ctx->id = r->ctx_id;
	ctx->policy = r->policy;
	ctx->family = r->family;
	ctx->page_fd = ctx->event_fd = ctx->poll_fd = -1;
	list_init(&ctx->link);
	list_init(&ctx->timer_link);
	list_init(&ctx->done_link);
	list_init(&ctx->waits);
	int ret = bo_table_init(&ctx->bos, host_bo_removed, host_bo_released, ctx);
	const char *step = "GPU device open";
	if (ret == 0)
		ret = h->fam->ctx_open(ctx, &step);
	if (ret < 0) {
		char e[80];
		ctx_destroy(ctx, true);
		HOST_FAIL(ret, "could not set up context %u: %s: %s", r->ctx_id, step, ferry_errno_text(ret, e, sizeof(e)));
	}
	if (ret == 0) {
		step = "fence page memfd";
		ret = make_fence_page(ctx);
	}
	if (ret == 0) {
		step = "eventfd";
		ctx->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (ctx->event_fd < 0)
			ret = -errno;
	}
	if (ret < 0) {
		char e[80];
		ctx_destroy(ctx, true);
		HOST_FAIL(ret, "could not set up context %u: %s: %s", r->ctx_id, step, ferry_errno_text(ret, e, sizeof(e)));
	}
	client_fds_add(c, (int)HOST_FDS_PER_CTX);
	ctx->fds_counted = true;
	ctx->poll_fd = h->fam->ctx_poll_fd(ctx);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ctx };
	if (ctx->poll_fd < 0 || epoll_ctl(h->epfd, EPOLL_CTL_ADD, ctx->poll_fd, &ev) < 0) {
		ctx->poll_fd = -1; /* poll on a timer instead */
		list_add_tail(&h->timer_ctxs, &ctx->timer_link);
	}
	list_add_tail(&c->contexts, &ctx->link);
	h->stats.contexts++;
	c->nr_contexts++;

	struct ferry_msg reply = { .kind = FERRY_MSG_CONTEXT_CREATED, .seq = m->seq };
	reply.u.context_created.ctx_id = ctx->id;
	int fds[2] = { ctx->page_fd, ctx->event_fd };
	client_send(c, &reply, fds, 2);
	/* The mapping stays; the host needs no fd for the page any more. */
	close(ctx->page_fd);
	ctx->page_fd = -1;
	return 0;
}

int ctx_handle_destroy(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	struct host_ctx *ctx = client_lookup_ctx(c, m->u.context_destroy.ctx_id, why, n);
	if (!ctx)
		return -ENOENT;
	ctx_destroy(ctx, false);
	return 0;
}

/* A read of the GPU's clock, as the kernel answers MSM_PARAM_TIMESTAMP: one ioctl, no wait. */
int ctx_handle_timestamp(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	struct host_ctx *ctx = client_lookup_ctx(c, m->u.timestamp_query.ctx_id, why, n);
	if (!ctx)
		return -ENOENT;
	const struct host_family_ops *fam = c->host->fam;
	if (!fam->timestamp)
		HOST_FAIL(-EINVAL, "this GPU has no timestamp parameter");
	uint64_t ticks = 0;
	int ret = fam->timestamp(ctx, &ticks);
	if (ret < 0)
		HOST_FAIL(ret, "the kernel did not give the GPU's timestamp: %s", strerror(-ret));
	struct ferry_msg r = { .kind = FERRY_MSG_STATUS_REPLY, .seq = m->seq };
	r.u.status_reply.value = ticks;
	client_send(c, &r, NULL, 0);
	return 0;
}

void ctx_destroy(struct host_ctx *ctx, bool client_gone)
{
	struct ferry_host *h = ctx->client->host;
	ring_free(ctx);
	wait_drop_ctx(ctx, !client_gone, -ECANCELED);
	if (h->trace.on)
		trace_pull_kernel(ctx); /* before its queues (their ids) and the open go */
	struct host_queue *q;
	ctx_for_each_queue(ctx, q)
		queue_free(q);
	/* Shadow BOs before the open: both go, and the kernel keeps in-flight ones alive. The
	 * validator's BO table before the BOs, so their removal does not edit it one by one. */
	h->fam->ctx_drop_validation(ctx);
	if (ctx->bos.buckets)
		bo_table_fini(&ctx->bos);
	if (ctx->poll_fd >= 0)
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, ctx->poll_fd, NULL);
	list_del(&ctx->timer_link);
	list_del(&ctx->done_link);
	/* Closing the open cancels or waits out its GPU work (kernel and simulator alike). */
	h->fam->ctx_close(ctx);
	if (ctx->page)
		munmap(ctx->page, FERRY_FENCE_PAGE_SIZE);
	if (ctx->page_fd >= 0)
		close(ctx->page_fd);
	if (ctx->event_fd >= 0)
		close(ctx->event_fd);
	if (ctx->fds_counted)
		client_fds_add(ctx->client, -(int)HOST_FDS_PER_CTX);
	free(ctx->bo_ptrs);
	free(ctx->fault_text);
	if (!list_empty(&ctx->link)) {
		list_del(&ctx->link);
		h->stats.contexts--;
		ctx->client->nr_contexts--;
	}
	free(ctx);
}

void ctx_mark_lost(struct host_ctx *ctx)
{
	if (ctx->lost)
		return;
	ctx->lost = true;
	/* Held submits never run on a lost context; they retire in order as cancelled. The page's
	 * word follows in ctx_publish_lost, once the failing fence's status is in its slot. */
	sched_cancel(ctx, -ECANCELED);
}

void ctx_publish_lost(struct host_ctx *ctx)
{
	if (!ctx->lost || ctx->lost_published)
		return;
	ctx->lost_published = true;
	/* The guest takes every fence not signaled by now as failed: its waits end. */
	atomic_fetch_add(&ctx->page->lost, 1);
	ctx->wake = true;
}

/* Whether a guest thread sleeps for what this pass signaled: any waiter takes any signal; a
 * seqno waiter only its queue reaching wake_at (or the loss). wake_at is the guest's word: a
 * wrong one only wakes (or not) that guest's own threads. */
static bool ctx_wake_due(struct host_ctx *ctx)
{
	if (atomic_load(&ctx->page->waiters) != 0)
		return true;
	if (atomic_load(&ctx->page->seqno_waiters) == 0)
		return false;
	if (ctx->lost_published) /* every wait ends */
		return true;
	struct host_queue *q;
	ctx_for_each_queue(ctx, q)
		if (ferry_fence_slot_wake_due(&ctx->page->slots[q->id]))
			return true;
	return false;
}

void ctx_done_here(struct host_ctx *ctx)
{
	if (list_empty(&ctx->done_link))
		list_add_tail(&ctx->client->host->done_ctxs, &ctx->done_link);
}

void ctx_wake_guest(struct host_ctx *ctx)
{
	if (!ctx->wake)
		return;
	/* The slots were stored seq_cst before these loads: a guest that raised a waiters word
	 * (after its wake_at) later will see them, one that raised it before gets the eventfd. */
	bool due = ctx_wake_due(ctx);
	ctx->wake = false;
	if (due) {
		uint64_t one = 1;
		if (write(ctx->event_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			host_log(ctx->client->host, FERRY_LOG_WARN, "eventfd write: %s", strerror(errno));
	}
}

void ctx_progress(struct host_ctx *ctx)
{
	do {
		struct host_queue *q;
		ctx_for_each_queue(ctx, q)
			if (q->tl.count)
				queue_retire(q);
		/* Retired fences may free held submits; released ones that failed retire at once.
		 * Nothing else makes a queue retire more now than it just did: the kernel's next
		 * completion wakes the poll fd, and polling again at once only costs kernel calls. */
	} while (sched_release(ctx));
	ctx_publish_lost(ctx);
	if (ctx->client->host->trace.on)
		trace_pull_kernel(ctx);
	ctx_wake_guest(ctx);
	wait_check_ctx(ctx);
	struct host_queue *q;
	ctx_for_each_queue(ctx, q)
		if (q->closing && q->tl.count == 0 && list_empty(&q->held))
			queue_free(q);
	ring_ctx_progress(ctx);
}
