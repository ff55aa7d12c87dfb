/* Deferred FENCE_WAIT and BO_CPU_PREP replies (wait.c). */
#ifndef FERRY_HOST_WAIT_H
#define FERRY_HOST_WAIT_H

#include "host_types.h"

int wait_handle_fence(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int wait_handle_cpu_prep(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
void wait_check_ctx(struct host_ctx *ctx);
void wait_expire(struct ferry_host *h, int64_t now_ns);
/* Ends every wait on ctx: answered with status when reply, else dropped silently. */
void wait_drop_ctx(struct host_ctx *ctx, bool reply, int32_t status);
/* A queue is going away: waits on it are answered (its work all retired). */
void wait_queue_gone(struct host_queue *q);
int64_t wait_next_deadline(const struct ferry_host *h);
/* Frees the deadline heap and the kept waits (every wait has ended with its context). */
void wait_host_fini(struct ferry_host *h);

#endif
