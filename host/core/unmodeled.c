/* Work the simulated GPU did not execute, as the simulator reports it through each context's open
 * (a render node reports none):
 * counted per context and kind (and host-wide for `ferry status`), and warned about once per
 * context and kind so that an operator sees why a guest's pixels are missing. */
#include <string.h>

#include "host_internal.h"
#include "backend/device.h"

_Static_assert(FERRY_UNMODELED_KINDS == GPU_UNMODELED_KINDS, "one list of unmodeled-work kinds");
_Static_assert(FERRY_UNMODELED_KINDS <= 32, "unmodeled_warned has a bit per kind");

const char *ferry_host_unmodeled_kind_name(unsigned kind)
{
	return gpu_unmodeled_name(kind);
}

void ctx_unmodeled_note(void *cookie, unsigned kind, uint64_t count, const char *what)
{
	struct host_ctx *ctx = cookie;
	struct ferry_host *h = ctx->client->host;
	if (kind >= FERRY_UNMODELED_KINDS)
		return;
	ctx->unmodeled[kind] += count;
	h->stats.unmodeled[kind] += count;
	if (ctx->unmodeled_warned & (1u << kind))
		return;
	ctx->unmodeled_warned |= 1u << kind;
	/* State-only packets change nothing by themselves: said, not warned about. */
	int level = gpu_unmodeled_fails_strict(kind) ? FERRY_LOG_WARN : FERRY_LOG_INFO;
	host_log(h, level, "%s: context %u: %s (first: %s; counted as unmodeled-%s in `ferry status`; "
		 "ferryd --sim-strict fails such work; said once per context)",
		 ctx->client->peer, ctx->id, gpu_unmodeled_message(kind), what, gpu_unmodeled_name(kind));
}

void ferry_host_visit_contexts(const struct ferry_host *h, void (*fn)(void *arg, const struct ferry_host_ctx_stats *s),
			       void *arg)
{
	for (const struct list *cl = h->clients.next; cl != &h->clients; cl = cl->next) {
		const struct ferry_host_client *c = list_entry(cl, struct ferry_host_client, link);
		for (const struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
			const struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
			struct ferry_host_ctx_stats s = {
				.client = c->id, .ctx = ctx->id, .family = ctx->family, .lost = ctx->lost,
			};
			memcpy(s.unmodeled, ctx->unmodeled, sizeof(s.unmodeled));
			fn(arg, &s);
		}
	}
}
