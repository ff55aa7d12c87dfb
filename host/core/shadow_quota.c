/* A client's shadow copies as host memory it is charged for: every shadow chunk of its contexts'
 * pools (msm and V3D) counts against max_client_shadow_mib + ratio x its BO bytes, and recycled
 * chunks beyond a small per-context reserve are destroyed after they sat idle, so memory comes
 * back after the submits retire rather than at disconnect. */
#include <errno.h>
#include <stdio.h>

#include "backend/shadow_pool.h"
#include "family.h"
#include "host_client.h"

/* Recycled shadow memory a context keeps however long it idles (one largest chunk: a submit
 * loop of ordinary size never makes a BO again), and how long the rest may sit unused. */
#define HOST_SHADOW_RESERVE_BYTES (4ull << 20)
#define HOST_SHADOW_IDLE_NS       (500ll * 1000 * 1000)

static uint64_t quota_of(const struct ferry_host_client *c)
{
	const struct ferry_host_config *cfg = &c->host->cfg;
	uint64_t floor = (uint64_t)cfg->max_client_shadow_mib << 20;
	uint64_t ratio = cfg->max_client_shadow_ratio;
	/* Saturating: floor + ratio * bo_bytes. */
	if (ratio && c->bo_bytes > (UINT64_MAX - floor) / ratio)
		return UINT64_MAX;
	return floor + ratio * c->bo_bytes;
}

static bool fits(const struct ferry_host_client *c, uint64_t bytes)
{
	uint64_t q = quota_of(c);
	return c->shadow_bytes <= q && bytes <= q - c->shadow_bytes;
}

/* Gives back every recycled chunk of the client's pools. */
static void reclaim(struct ferry_host_client *c)
{
	for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
		struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
		struct shadow_pool *p = c->host->fam->shadow_pool(ctx);
		if (p)
			shadow_pool_trim(p, INT64_MAX, 0);
	}
}

static int refuse(struct ferry_host_client *c, char *why, size_t n)
{
	const struct ferry_host_config *cfg = &c->host->cfg;
	c->host->stats.shadow_quota_refusals++;
	HOST_FAIL(-EDQUOT,
		  "client quota: shadow copies of at most %llu MiB (ferryd --max-client-shadow-mib %u + "
		  "--max-client-shadow-ratio %u x %llu KiB of BOs); %llu KiB held by submits in flight, "
		  "retry once they retired",
		  (unsigned long long)(quota_of(c) >> 20), cfg->max_client_shadow_mib, cfg->max_client_shadow_ratio,
		  (unsigned long long)(c->bo_bytes >> 10), (unsigned long long)(c->shadow_bytes >> 10));
}

/* The pool's charge hook: a shadow chunk costs its client its bytes (the shadow quota) and, on
 * the simulator, one host fd (--max-client-fds). */
static int charge(void *owner, int64_t bytes, char *why, size_t n)
{
	struct ferry_host_client *c = owner;
	if (bytes < 0) {
		uint64_t b = (uint64_t)-bytes;
		c->shadow_bytes -= b < c->shadow_bytes ? b : c->shadow_bytes;
		client_fds_add(c, -(int)HOST_FDS_PER_SHADOW_BO);
		return 0;
	}
	if (!fits(c, (uint64_t)bytes)) {
		/* Idle memory first: only what is really in flight makes a refusal. */
		reclaim(c);
		if (!fits(c, (uint64_t)bytes))
			return refuse(c, why, n);
	}
	int ret = client_fds_admit(c, HOST_FDS_PER_SHADOW_BO, why, n);
	if (ret < 0)
		return ret;
	c->shadow_bytes += (uint64_t)bytes;
	client_fds_add(c, (int)HOST_FDS_PER_SHADOW_BO);
	return 0;
}

void shadow_quota_setup(struct host_ctx *ctx, struct shadow_pool_config *cfg)
{
	cfg->charge = charge;
	cfg->owner = ctx->client;
	cfg->reserve_bytes = HOST_SHADOW_RESERVE_BYTES;
	cfg->idle_ns = HOST_SHADOW_IDLE_NS;
	cfg->trim_due_ns = &ctx->client->host->shadow_trim_ns;
}

void shadow_trim_check(struct ferry_host *h, int64_t now_ns)
{
	if (now_ns < h->shadow_trim_ns)
		return;
	/* Each pool lowers it again for what it still has to trim later. */
	h->shadow_trim_ns = INT64_MAX;
	for (struct list *cl = h->clients.next; cl != &h->clients; cl = cl->next) {
		struct ferry_host_client *c = list_entry(cl, struct ferry_host_client, link);
		for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
			struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
			struct shadow_pool *p = h->fam->shadow_pool(ctx);
			if (p)
				shadow_pool_trim(p, now_ns, HOST_SHADOW_RESERVE_BYTES);
		}
	}
}
