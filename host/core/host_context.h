/* Contexts (host_context.c): request handlers, lookup, progress, loss; refusal warnings (refusal.c);
 * the simulator's unmodeled-work reports (unmodeled.c). */
#ifndef FERRY_HOST_HOST_CONTEXT_H
#define FERRY_HOST_HOST_CONTEXT_H

#include "host_types.h"

/* host_context.c */
int ctx_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int ctx_handle_destroy(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int ctx_handle_timestamp(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
struct host_ctx *ctx_find(struct ferry_host_client *c, uint32_t id);
/* Request handlers' lookups: NULL with "context N does not exist" (or "bo / queue N does not exist
 * in context N") in why; the handler then fails with -ENOENT. */
struct host_ctx *client_lookup_ctx(struct ferry_host_client *c, uint32_t ctx_id, char *why, size_t n);
void ctx_destroy(struct host_ctx *ctx, bool client_gone);
/* Retires finished work, releases held submits, wakes the guest, answers waits, reaps queues. */
void ctx_progress(struct host_ctx *ctx);
void ctx_mark_lost(struct host_ctx *ctx);
/* Tells the guest (fence page) a context is lost: after the failing fence's slot was written. */
void ctx_publish_lost(struct host_ctx *ctx);
void ctx_wake_guest(struct host_ctx *ctx);
/* The kernel retired some of ctx's work inside the call that submitted it and will not say so on
 * its poll fd (kdev done_here): ctx_progress runs in the next ferry_host_dispatch. */
void ctx_done_here(struct host_ctx *ctx);

/* refusal.c: the validator refused seqno of q (ctx->refused was set): warns, at most once a
 * second per context. The caller completes the fence with err. */
void ctx_submit_refused(struct host_queue *q, uint32_t seqno, int err, const char *why);

/* unmodeled.c: the simulator's reports of work it did not execute, counted per context and kind
 * and warned about once per context and kind: the family sets it as the open's sim_unmodeled_fn. */
void ctx_unmodeled_note(void *cookie, unsigned kind, uint64_t count, const char *what);

#endif
