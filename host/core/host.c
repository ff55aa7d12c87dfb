/* libferry-host's entry points: creating the device (through the family serving cfg->gpu),
 * the one poll fd holding every context's kdev poll fd, dispatch, deadlines and stats. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "family.h"
#include "host_log.h"
#include "host_context.h"
#include "host_bo.h"
#include "shadow_quota.h"
#include "wait.h"
#include "fault_log.h"
#include "trace_host.h"
#include "host_capture.h"
#include "watchdog.h"
#include "ring.h"

int ferry_host_create(const struct ferry_host_config *cfg, struct ferry_host **out)
{
	struct ferry_host *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (cfg)
		h->cfg = *cfg;
	snprintf(h->gpu, sizeof(h->gpu), "%s", h->cfg.gpu ? h->cfg.gpu : "a630");
	h->cfg.gpu = h->gpu;
	if (!h->cfg.max_client_contexts)
		h->cfg.max_client_contexts = HOST_DEFAULT_MAX_CLIENT_CONTEXTS;
	if (!h->cfg.max_client_bos)
		h->cfg.max_client_bos = HOST_DEFAULT_MAX_CLIENT_BOS;
	if (!h->cfg.max_client_bo_mib)
		h->cfg.max_client_bo_mib = HOST_DEFAULT_MAX_CLIENT_BO_MIB;
	if (!h->cfg.max_client_shadow_mib)
		h->cfg.max_client_shadow_mib = HOST_DEFAULT_MAX_CLIENT_SHADOW_MIB;
	if (!h->cfg.max_client_shadow_ratio)
		h->cfg.max_client_shadow_ratio = HOST_DEFAULT_MAX_CLIENT_SHADOW_RATIO;
	h->shadow_trim_ns = INT64_MAX;
	if (!h->cfg.dispatch_pass_us)
		h->cfg.dispatch_pass_us = HOST_DEFAULT_DISPATCH_PASS_US;
	if (!h->cfg.max_client_fds)
		h->cfg.max_client_fds = HOST_DEFAULT_MAX_CLIENT_FDS;
	list_init(&h->clients);
	list_init(&h->timer_ctxs);
	list_init(&h->done_ctxs);
	ring_host_init(h);
	ferry_buf_init(&h->out);
	h->epfd = -1;
	watchdog_init(h);

	char why[256];
	int ret = gpu_device_create(h->gpu, &h->gpu_dev, why, sizeof(why));
	if (ret < 0) {
		host_log(h, FERRY_LOG_ERROR, "%s", why);
		goto fail;
	}
	/* Guests and captures get the part's name ("a630"), also for a render node. */
	snprintf(h->gpu, sizeof(h->gpu), "%s", gpu_device_model(h->gpu_dev));
	if (h->cfg.hangcheck_ms)
		gpu_device_set_hangcheck_ms(h->gpu_dev, h->cfg.hangcheck_ms);
	gpu_device_set_strict(h->gpu_dev, h->cfg.sim_strict);
	if (!gpu_device_is_simulated(h->gpu_dev))
		host_log(h, FERRY_LOG_WARN, "%s is a real kernel: %s (docs/real-board.md)", gpu_device_name(h->gpu_dev),
			 gpu_device_limits(h->gpu_dev));
	snprintf(h->device_name, sizeof(h->device_name), "%s", gpu_device_name(h->gpu_dev));
	h->fam = host_family_for_device(gpu_device_family(h->gpu_dev));
	if (!h->fam) {
		host_log(h, FERRY_LOG_ERROR, "no GPU family serves %s", h->device_name);
		ret = -ENODEV;
		goto fail;
	}
	/* The device and its probe: the family's. */
	ret = h->fam->host_init(h);
	if (ret < 0)
		goto fail;
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epfd < 0) {
		ret = -errno;
		goto fail;
	}
	*out = h;
	return 0;
fail:
	ferry_host_destroy(h);
	return ret;
}

void ferry_host_destroy(struct ferry_host *h)
{
	if (!h)
		return;
	watchdog_fini(h);
	while (!list_empty(&h->clients))
		ferry_host_client_free(list_entry(h->clients.next, struct ferry_host_client, link));
	if (h->fam)
		h->fam->host_fini(h);
	gpu_device_destroy(h->gpu_dev);
	if (h->epfd >= 0)
		close(h->epfd);
	wait_host_fini(h);
	fault_log_free(h);
	capture_host_fini(h);
	trace_host_fini(h);
	ferry_buf_free(&h->out);
	ring_host_fini(h);
	bo_pages_fini(h);
	free(h);
}

int ferry_host_poll_fd(const struct ferry_host *h)
{
	return h->epfd;
}

/* Doorbells that rang in evs: their rings are queued for ring_dispatch. */
static void doorbell_events(struct ferry_host *h, const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++)
		if (ring_epoll_tagged(evs[i].data.ptr))
			ring_doorbell(h, evs[i].data.ptr);
}

/* Completions the kernel reported (a context's poll fd) in evs. */
static void ctx_events(struct ferry_host *h, const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		if (ring_epoll_tagged(evs[i].data.ptr))
			continue;
		struct host_ctx *ctx = evs[i].data.ptr;
		/* Drain first: completions after the check below re-arm the fd. */
		h->fam->ctx_poll_ack(ctx);
		ctx_progress(ctx);
	}
}

void ferry_host_dispatch(struct ferry_host *h)
{
	struct epoll_event evs[64];
	int n = epoll_wait(h->epfd, evs, 64, 0);
	/* Rings first (the doorbells that rang, and those with records left), as ferryd reads a
	 * socket's frames before it dispatches: a submit's in-fences are then judged before work
	 * that finished meanwhile is retired, as they would be had it come on the socket. */
	doorbell_events(h, evs, n);
	ring_dispatch(h);
	ctx_events(h, evs, n);
	/* Work the pass's submits completed inside the kernel call (a simulated GPU runs a lone
	 * submit in GEM_SUBMIT) retires now, not after another turn of the embedder's loop. */
	while (!list_empty(&h->done_ctxs)) {
		struct host_ctx *ctx = list_entry(h->done_ctxs.next, struct host_ctx, done_link);
		list_del(&ctx->done_link);
		ctx_progress(ctx);
	}
	for (struct list *l = h->timer_ctxs.next; l != &h->timer_ctxs; l = l->next) {
		struct host_ctx *ctx = list_entry(l, struct host_ctx, timer_link);
		/* As the epoll path: a kdev frees what it keeps for its wakeups (a render node's
		 * signaled sync_files) only on an ack. */
		h->fam->ctx_poll_ack(ctx);
		if (ctx->nr_inflight)
			ctx_progress(ctx);
	}
	int64_t now = host_now_ns();
	wait_expire(h, now);
	watchdog_check(h, now);
	shadow_trim_check(h, now);
}

int ferry_host_next_timeout_ms(const struct ferry_host *h)
{
	if (ring_work_pending(h) || !list_empty(&h->done_ctxs))
		return 0; /* rings with records left after their batch, or retired work to tell */
	int64_t ms = -1;
	int64_t deadline = wait_next_deadline(h);
	int64_t watchdog = watchdog_next_ns(h);
	if (watchdog < deadline)
		deadline = watchdog;
	if (h->shadow_trim_ns < deadline)
		deadline = h->shadow_trim_ns;
	if (deadline != INT64_MAX) {
		int64_t left = deadline - host_now_ns();
		ms = left <= 0 ? 0 : (left + 999999) / 1000000;
		if (ms > INT32_MAX)
			ms = INT32_MAX;
	}
	for (struct list *l = h->timer_ctxs.next; l != &h->timer_ctxs; l = l->next) {
		const struct host_ctx *ctx = list_entry(l, struct host_ctx, timer_link);
		if (ctx->nr_inflight && (ms < 0 || ms > HOST_POLL_INTERVAL_MS))
			ms = HOST_POLL_INTERVAL_MS;
	}
	return (int)ms;
}

const char *ferry_host_device_name(const struct ferry_host *h)
{
	return h->device_name;
}

void ferry_host_get_stats(const struct ferry_host *h, struct ferry_host_stats *out)
{
	*out = h->stats;
}
