/* The fence-signal watchdog, in the spirit of Mali's csf_sync fence-signal timeout (seed 002):
 * per queue it times the oldest pending fence, and when that fence has not signaled timeout
 * after it became the oldest, it writes the sync-state dump of the queue's context to the log,
 * once per overdue fence. A queue whose backlog keeps moving is never overdue.
 * The check is cheap and coarse: it scans the queues only every timeout/4 (at most 250 ms)
 * while work is pending, so a dump comes between timeout and timeout + that period late. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"

#define WATCHDOG_DEFAULT_MS 3000
#define WATCHDOG_MIN_PERIOD_NS (5ll * 1000 * 1000)
#define WATCHDOG_MAX_PERIOD_NS (250ll * 1000 * 1000)

void watchdog_init(struct ferry_host *h)
{
	int ms = h->cfg.fence_timeout_ms;
	if (ms == 0)
		ms = WATCHDOG_DEFAULT_MS;
	h->wd.timeout_ns = ms < 0 ? 0 : (int64_t)ms * 1000000;
	h->wd.next_check_ns = INT64_MAX;
	h->wd.seen_submits = h->stats.submits;
}

void ferry_host_set_fence_timeout(struct ferry_host *h, unsigned ms)
{
	h->wd.timeout_ns = (int64_t)ms * 1000000;
	/* Re-time every pending fence from the next check (a fence reported before may report
	 * again under the new timeout). */
	for (struct list *cl = h->clients.next; cl != &h->clients; cl = cl->next) {
		struct ferry_host_client *c = list_entry(cl, struct ferry_host_client, link);
		for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
			struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
			for (uint32_t id = 0; id < FERRY_FENCE_PAGE_QUEUES; id++)
				if (ctx->queues[id])
					ctx->queues[id]->wd.armed = false;
		}
	}
	h->wd.next_check_ns = 0;
}

unsigned ferry_host_fence_timeout(const struct ferry_host *h)
{
	return (unsigned)(h->wd.timeout_ns / 1000000);
}

bool watchdog_track_step(struct watchdog_track *t, bool pending, uint32_t signaled, int64_t now_ns,
			 int64_t timeout_ns)
{
	if (!pending) {
		t->armed = false;
		return false;
	}
	if (!t->armed || t->signaled != signaled) {
		/* A new oldest fence: time it from now (never earlier than it really began). */
		*t = (struct watchdog_track){ .armed = true, .signaled = signaled, .since_ns = now_ns };
		return false;
	}
	if (t->reported || timeout_ns <= 0 || now_ns - t->since_ns < timeout_ns)
		return false;
	t->reported = true;
	return true;
}

static int64_t period_ns(const struct ferry_host *h)
{
	int64_t p = h->wd.timeout_ns / 4;
	return p < WATCHDOG_MIN_PERIOD_NS ? WATCHDOG_MIN_PERIOD_NS : p > WATCHDOG_MAX_PERIOD_NS ? WATCHDOG_MAX_PERIOD_NS : p;
}

static bool queue_pending(const struct host_queue *q)
{
	return q->tl.count || !list_empty(&q->held);
}

/* The overdue seqno: the oldest on the timeline, else the first held one. */
static void first_held(void *arg, const struct sched_held_view *v)
{
	uint32_t *seqno = arg;
	if (!*seqno)
		*seqno = v->seqno;
}

static uint32_t oldest_seqno(const struct host_queue *q)
{
	if (q->tl.count)
		return q->tl.ring[q->tl.head].seqno;
	uint32_t seqno = 0;
	sched_visit_held(q, first_held, &seqno);
	return seqno;
}

static void report(struct ferry_host *h, struct host_queue *q, int64_t waited_ns)
{
	struct host_ctx *ctx = q->ctx;
	host_log(h, FERRY_LOG_WARN,
		 "fence-signal timeout: %s context %u queue %u seqno %u has not signaled after %lld ms "
		 "(last signaled %u); sync state of context %u (GPU-%u-%u-*):",
		 ctx->client->peer, ctx->id, q->id, oldest_seqno(q), (long long)(waited_ns / 1000000), q->tl.signaled,
		 ctx->id, ctx->client->id, ctx->id);
	char *text = sync_state_text(h, ctx);
	if (!text) {
		host_log(h, FERRY_LOG_WARN, "sync: (out of memory)");
		return;
	}
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		int n = end ? (int)(end - line) : (int)strlen(line);
		host_log(h, FERRY_LOG_WARN, "sync: %.*s", n, line);
		line += n + (end ? 1 : 0);
	}
	free(text);
}

void watchdog_check(struct ferry_host *h, int64_t now_ns)
{
	if (!h->wd.timeout_ns)
		return;
	/* Idle at the last check: only new submits can change that. */
	bool new_work = h->stats.submits != h->wd.seen_submits;
	if (now_ns < h->wd.next_check_ns && !(h->wd.next_check_ns == INT64_MAX && new_work))
		return;
	h->wd.seen_submits = h->stats.submits;
	bool busy = false;
	for (struct list *cl = h->clients.next; cl != &h->clients; cl = cl->next) {
		struct ferry_host_client *c = list_entry(cl, struct ferry_host_client, link);
		for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
			struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
			for (uint32_t id = 0; id < FERRY_FENCE_PAGE_QUEUES; id++) {
				struct host_queue *q = ctx->queues[id];
				if (!q)
					continue;
				bool pending = queue_pending(q);
				busy |= pending;
				if (watchdog_track_step(&q->wd, pending, q->tl.signaled, now_ns, h->wd.timeout_ns))
					report(h, q, now_ns - q->wd.since_ns);
			}
		}
	}
	h->wd.next_check_ns = busy ? now_ns + period_ns(h) : INT64_MAX;
}

int64_t watchdog_next_ns(const struct ferry_host *h)
{
	if (!h->wd.timeout_ns)
		return INT64_MAX;
	/* An idle watchdog is re-armed from ferry_host_dispatch when submits arrive. */
	if (h->wd.next_check_ns == INT64_MAX && h->stats.submits != h->wd.seen_submits)
		return 0;
	return h->wd.next_check_ns;
}
