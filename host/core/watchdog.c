/* The fence-signal watchdog, in the spirit of Mali's csf_sync fence-signal timeout (seed 002):
 * per queue it times the oldest pending fence, and when that fence has not signaled timeout
 * after it became the oldest, it writes the sync-state dump of the queue's context to the log,
 * once per overdue fence. A queue whose backlog keeps moving is never overdue.
 * The check is cheap and coarse: it scans the queues only every timeout/4 (at most 250 ms)
 * while work is pending, so a dump comes between timeout and timeout + that period late.
 * A guest decides how much state it has, so a dump is bounded: rate-limited per client and
 * host-wide, the loop copies only a capped snapshot (sync_state.h), and a writer thread formats
 * it within a byte cap and hands the lines to the log sink, off the embedder's loop. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "sync_state.h"

#define WATCHDOG_DEFAULT_MS 3000
#define WATCHDOG_MIN_PERIOD_NS (5ll * 1000 * 1000)
#define WATCHDOG_MAX_PERIOD_NS (250ll * 1000 * 1000)
/* Defaults of the dump's bounds (ferry_host_config.fence_dump_*). */
#define WATCHDOG_DUMP_MAX_KIB          64u
#define WATCHDOG_DUMP_INTERVAL_MS      10000u
#define WATCHDOG_DUMP_HOST_INTERVAL_MS 1000u
/* Snapshots waiting for the writer; a dump past them is dropped (counted as suppressed). */
#define WATCHDOG_MAX_QUEUED 2u
/* What one dump shows of the context: the overdue queue first. */
static const struct sync_limits dump_limits = {
	.queues = 16, .submits = 16, .in_fences = 8, .ops = 16 * 16 * 9,
	.kstate_submits = 256, .kstate_bytes = 64u * 1024u,
};

struct dump_job {
	struct dump_job *next;
	char header[768];
	struct sync_snapshot snap;
};

/* The writer thread and its queue of snapshots (made on the first dump). */
struct dump_writer {
	struct ferry_host *h;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;     /* a job came, or stop */
	pthread_cond_t idle;     /* the queue drained */
	struct dump_job *head, *tail;
	uint32_t queued;
	bool busy, stop;
	size_t max_bytes;
};

void watchdog_init(struct ferry_host *h)
{
	int ms = h->cfg.fence_timeout_ms;
	if (ms == 0)
		ms = WATCHDOG_DEFAULT_MS;
	h->wd.timeout_ns = ms < 0 ? 0 : (int64_t)ms * 1000000;
	h->wd.next_check_ns = INT64_MAX;
	h->wd.seen_submits = h->stats.submits;
	h->wd.last_dump_ns = INT64_MIN;
	if (!h->cfg.fence_dump_max_kib)
		h->cfg.fence_dump_max_kib = WATCHDOG_DUMP_MAX_KIB;
	if (!h->cfg.fence_dump_interval_ms)
		h->cfg.fence_dump_interval_ms = WATCHDOG_DUMP_INTERVAL_MS;
	if (!h->cfg.fence_dump_host_interval_ms)
		h->cfg.fence_dump_host_interval_ms = WATCHDOG_DUMP_HOST_INTERVAL_MS;
}

void ferry_host_set_fence_timeout(struct ferry_host *h, unsigned ms)
{
	h->wd.timeout_ns = (int64_t)ms * 1000000;
	/* Re-time every pending fence from the next check (a fence reported before may report
	 * again under the new timeout): the operator asked, so the rate limits start over too. */
	h->wd.last_dump_ns = INT64_MIN;
	for (struct list *cl = h->clients.next; cl != &h->clients; cl = cl->next) {
		struct ferry_host_client *c = list_entry(cl, struct ferry_host_client, link);
		c->wd_last_dump_ns = INT64_MIN;
		for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next) {
			struct host_ctx *ctx = list_entry(l, struct host_ctx, link);
			struct host_queue *q;
			ctx_for_each_queue(ctx, q)
				q->wd.armed = false;
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
	sched_visit_held(q, 1, first_held, &seqno);
	return seqno;
}

/* ---- the writer thread ---- */

static void log_sync_line(void *arg, const char *text, size_t len)
{
	struct ferry_host *h = arg;
	int n = len && text[len - 1] == '\n' ? (int)len - 1 : (int)len;
	host_log(h, FERRY_LOG_WARN, "sync: %.*s", n, text);
}

static void *writer_main(void *arg)
{
	struct dump_writer *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		struct dump_job *job = w->head;
		if (!job)
			break; /* stop, and nothing left to write */
		w->head = job->next;
		if (!w->head)
			w->tail = NULL;
		w->busy = true;
		pthread_mutex_unlock(&w->lock);
		/* host_log only reads the host's fixed config: the sink must take calls from this
		 * thread (ferry/host.h says so). */
		host_log(w->h, FERRY_LOG_WARN, "%s", job->header);
		char why[96];
		snprintf(why, sizeof(why), "dump capped at %zu KiB (--fence-dump-max-kib), 16 queues, 16 submits per queue",
			 w->max_bytes >> 10);
		sync_snapshot_format(&job->snap, w->max_bytes, why, log_sync_line, w->h);
		sync_snapshot_fini(&job->snap);
		free(job);
		pthread_mutex_lock(&w->lock);
		w->queued--;
		w->busy = false;
		if (!w->head)
			pthread_cond_broadcast(&w->idle);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static struct dump_writer *writer_get(struct ferry_host *h)
{
	if (h->wd.writer)
		return h->wd.writer;
	struct dump_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->h = h;
	w->max_bytes = (size_t)h->cfg.fence_dump_max_kib << 10;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	pthread_cond_init(&w->idle, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
		pthread_cond_destroy(&w->idle);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	h->wd.writer = w;
	return w;
}

void ferry_host_flush_log(struct ferry_host *h)
{
	struct dump_writer *w = h->wd.writer;
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->head || w->busy)
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void watchdog_fini(struct ferry_host *h)
{
	struct dump_writer *w = h->wd.writer;
	if (!w)
		return;
	/* What is queued is still written (at most WATCHDOG_MAX_QUEUED capped dumps). */
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->idle);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
	h->wd.writer = NULL;
}

/* ---- dumps ---- */

static bool due(int64_t last_ns, unsigned interval_ms, int64_t now_ns)
{
	return last_ns == INT64_MIN || now_ns - last_ns >= (int64_t)interval_ms * 1000000;
}

static void suppressed(struct ferry_host *h)
{
	h->wd.suppressed++;
	h->stats.watchdog_dumps_suppressed++;
}

/* q's fence is overdue: a bounded snapshot of its context for the writer, unless a rate limit
 * says not now. O(the snapshot's caps), whatever the guest holds. */
static void report(struct ferry_host *h, struct host_queue *q, int64_t now_ns, int64_t waited_ns)
{
	struct host_ctx *ctx = q->ctx;
	struct ferry_host_client *c = ctx->client;
	if (!due(c->wd_last_dump_ns, h->cfg.fence_dump_interval_ms, now_ns) ||
	    !due(h->wd.last_dump_ns, h->cfg.fence_dump_host_interval_ms, now_ns)) {
		suppressed(h);
		return;
	}
	struct dump_writer *w = writer_get(h);
	struct dump_job *job = w ? calloc(1, sizeof(*job)) : NULL;
	if (!job) {
		host_log(h, FERRY_LOG_WARN, "fence-signal timeout: %s context %u queue %u: no dump (out of memory)",
			 c->peer, ctx->id, q->id);
		suppressed(h);
		return;
	}
	pthread_mutex_lock(&w->lock);
	bool full = w->queued >= WATCHDOG_MAX_QUEUED;
	pthread_mutex_unlock(&w->lock);
	if (full) {
		free(job);
		suppressed(h);
		return;
	}
	c->wd_last_dump_ns = now_ns;
	h->wd.last_dump_ns = now_ns;
	h->stats.watchdog_dumps++;
	int n = snprintf(job->header, sizeof(job->header),
			 "fence-signal timeout: %s context %u queue %u seqno %u has not signaled after %lld ms "
			 "(last signaled %u); sync state of context %u (GPU-%u-%u-*)",
			 c->peer, ctx->id, q->id, oldest_seqno(q), (long long)(waited_ns / 1000000), q->tl.signaled,
			 ctx->id, c->id, ctx->id);
	if (h->wd.suppressed && n > 0 && (size_t)n < sizeof(job->header))
		n += snprintf(job->header + n, sizeof(job->header) - (size_t)n,
			      " [%llu overdue fences not dumped since the last dump: --fence-dump-interval-ms, "
			      "--fence-dump-host-interval-ms]",
			      (unsigned long long)h->wd.suppressed);
	if (n > 0 && (size_t)n < sizeof(job->header))
		snprintf(job->header + n, sizeof(job->header) - (size_t)n, ":");
	h->wd.suppressed = 0;
	sync_snapshot_ctx(&job->snap, ctx, q, &dump_limits);
	pthread_mutex_lock(&w->lock);
	w->queued++;
	if (w->tail)
		w->tail->next = job;
	else
		w->head = job;
	w->tail = job;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
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
			struct host_queue *q;
			ctx_for_each_queue(ctx, q) {
				/* An external queue runs nothing here: its fences are another process's
				 * work, and the submits waiting on them are timed on their own queues. */
				bool pending = q->kind != FERRY_QUEUE_KIND_EXTERNAL && queue_pending(q);
				busy |= pending;
				if (watchdog_track_step(&q->wd, pending, q->tl.signaled, now_ns, h->wd.timeout_ns))
					report(h, q, now_ns, now_ns - q->wd.since_ns);
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
