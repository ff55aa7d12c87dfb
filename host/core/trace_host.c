/* The host side of tracing: switching it at run time, recording host events into the ring,
 * pulling each context's kernel trace points (kdev trace_read) and the libferry-host API that
 * exports the ring as Chrome-trace JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/kdev.h"
#include "host_log.h"

void trace_note(struct ferry_host *h, uint32_t client, uint32_t ctx, uint32_t queue, uint32_t kind, uint32_t seqno,
		int32_t status)
{
	struct trace_event e = {
		.ts_ns = host_now_ns(), .client = client, .ctx = ctx, .queue = queue, .seqno = seqno,
		.status = status, .kind = kind,
	};
	trace_ring_push(&h->trace.ring, &e);
}

/* The host queue id of a kernel submitqueue (msm), or TRACE_NO_QUEUE. */
static uint32_t host_queue_of(const struct host_ctx *ctx, uint32_t kernel_id)
{
	const struct host_queue *q;
	ctx_for_each_queue(ctx, q)
		if (q->kernel_id == kernel_id)
			return q->id;
	return TRACE_NO_QUEUE;
}

void trace_pull_kernel(struct host_ctx *ctx)
{
	struct ferry_host *h = ctx->client->host;
	if (!ctx->kd || !ctx->kd->ops->trace_read || ctx->trace_unsupported)
		return;
	struct kdev_trace_event ev[64];
	for (;;) {
		ssize_t n = ctx->kd->ops->trace_read(ctx->kd, &ctx->trace_cursor, ev, sizeof(ev) / sizeof(ev[0]));
		if (n < 0) {
			ctx->trace_unsupported = true;
			return;
		}
		for (ssize_t i = 0; i < n; i++) {
			/* Kernel events from before tracing was started (the cursor lags then) are not part of it. */
			if ((int64_t)ev[i].ts_ns < h->trace.started_ns)
				continue;
			uint32_t kind = ev[i].phase == KDEV_TRACE_BEGIN ? TRACE_GPU_BEGIN
					: ev[i].phase == KDEV_TRACE_END ? TRACE_GPU_END
									: TRACE_GPU_INSTANT;
			/* msm's events (engine "cp") name the submitqueue; v3d's name an engine the host
			 * has no queue id for. */
			uint32_t queue = ev[i].name && !strcmp(ev[i].name, "cp") ? host_queue_of(ctx, ev[i].queue)
										 : TRACE_NO_QUEUE;
			struct trace_event e = {
				.ts_ns = (int64_t)ev[i].ts_ns, .client = ctx->client->id, .ctx = ctx->id, .queue = queue,
				.seqno = ev[i].seqno, .kind = kind, .name = ev[i].name,
			};
			trace_ring_push(&h->trace.ring, &e);
		}
		if ((size_t)n < sizeof(ev) / sizeof(ev[0]))
			return;
	}
}

static void pull_all(struct ferry_host *h)
{
	for (struct list *l = h->clients.next; l != &h->clients; l = l->next) {
		struct ferry_host_client *c = list_entry(l, struct ferry_host_client, link);
		for (struct list *k = c->contexts.next; k != &c->contexts; k = k->next)
			trace_pull_kernel(list_entry(k, struct host_ctx, link));
	}
}

int ferry_host_trace_enable(struct ferry_host *h, bool on)
{
	if (on == h->trace.on)
		return 0;
	if (on) {
		if (!h->trace.ring.ev) {
			int ret = trace_ring_init(&h->trace.ring);
			if (ret < 0)
				return ret;
		}
		h->trace.started_ns = host_now_ns();
		h->trace.on = true;
	} else {
		pull_all(h); /* what the kernels recorded up to now belongs to the trace */
		h->trace.on = false;
	}
	host_log(h, FERRY_LOG_INFO, "trace %s", on ? "started" : "stopped");
	return 0;
}

bool ferry_host_trace_enabled(const struct ferry_host *h)
{
	return h->trace.on;
}

void ferry_host_trace_clear(struct ferry_host *h)
{
	trace_ring_clear(&h->trace.ring);
	h->trace.started_ns = host_now_ns();
}

void ferry_host_trace_counts(const struct ferry_host *h, uint64_t *events, uint64_t *dropped)
{
	*events = trace_ring_count(&h->trace.ring);
	*dropped = trace_ring_dropped(&h->trace.ring);
}

static const char *client_label(void *arg, uint32_t id)
{
	struct ferry_host *h = arg;
	for (struct list *l = h->clients.next; l != &h->clients; l = l->next) {
		struct ferry_host_client *c = list_entry(l, struct ferry_host_client, link);
		if (c->id == id)
			return c->peer[0] ? c->peer : NULL;
	}
	return NULL;
}

int ferry_host_trace_json(struct ferry_host *h, char **json, size_t *len)
{
	if (h->trace.on)
		pull_all(h);
	return trace_export_json(&h->trace.ring, client_label, h, json, len);
}

void trace_host_fini(struct ferry_host *h)
{
	trace_ring_fini(&h->trace.ring);
}
