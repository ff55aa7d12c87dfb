/* Queues (host_queue.c): request handlers, lookup, retiring and publishing retired seqnos,
 * freeing. */
#ifndef FERRY_HOST_HOST_QUEUE_H
#define FERRY_HOST_HOST_QUEUE_H

#include "host_types.h"

int queue_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int queue_handle_close(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
struct host_queue *queue_find(struct host_ctx *ctx, uint32_t id);
/* closing_ok: a queue the guest closed whose work is still in flight counts as existing. */
struct host_queue *client_lookup_queue(struct ferry_host_client *c, uint32_t ctx_id, uint32_t queue_id,
				       bool closing_ok, struct host_ctx **ctx_out, char *why, size_t n);
/* Polls the kernel for the queue's finished seqnos and retires them, in order. */
void queue_retire(struct host_queue *q);
/* q has work the host has not retired: on its timeline, or held for in-fences. */
bool queue_pending(const struct host_queue *q);
/* Frees a queue whose work has drained (or whose context is going away). */
void queue_free(struct host_queue *q);


#endif
