/* Host events into the trace ring, and kernel trace points (trace_host.c). */
#ifndef FERRY_HOST_TRACE_HOST_H
#define FERRY_HOST_TRACE_HOST_H

#include "host_types.h"

/* trace_host.c: one host event into the ring (tracing on); kernel events of ctx into the ring. */
void trace_note(struct ferry_host *h, uint32_t client, uint32_t ctx, uint32_t queue, uint32_t kind, uint32_t seqno,
		int32_t status);
void trace_pull_kernel(struct host_ctx *ctx);
void trace_host_fini(struct ferry_host *h);
/* The hook the submit path calls: one predictable branch while tracing is off. */
static inline void trace_queue_event(struct host_queue *q, uint32_t kind, uint32_t seqno, int32_t status)
{
	struct ferry_host *h = q->ctx->client->host;
	if (h->trace.on)
		trace_note(h, q->ctx->client->id, q->ctx->id, q->id, kind, seqno, status);
}

#endif
