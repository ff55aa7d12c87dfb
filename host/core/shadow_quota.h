/* Shadow pools against the client's quotas, and their idle trimming (shadow_quota.c). */
#ifndef FERRY_HOST_SHADOW_QUOTA_H
#define FERRY_HOST_SHADOW_QUOTA_H

#include "host_types.h"

/* shadow_quota.c: the shadow pools' charge hook (shadow bytes and host fds against the client's
 * quotas) and idle trimming for ctx, and the host-wide trim pass ferry_host_dispatch runs when it
 * is due. */
struct shadow_pool_config;
void shadow_quota_setup(struct host_ctx *ctx, struct shadow_pool_config *cfg);
void shadow_trim_check(struct ferry_host *h, int64_t now_ns);

#endif
