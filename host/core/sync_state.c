/* Collecting the sync-state dump: for every queue of a context, in order, the pending
 * operations — FENCE_WAIT for each in-fence a held submit still waits for, the GPU wait a
 * submit in the kernel is polling (from the kernel's debug state, kdev.debug_state), and the
 * SIGNAL every unretired seqno owes its timeline — into a bounded snapshot (sync_state.h), then
 * formatted by host/debug/sync_dump.c within a byte cap. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "debug/sync_dump.h"
#include "ferry/wire.h"
#include "family.h"
#include "host_queue.h"
#include "sched.h"
#include "sync_state.h"

/* The kernel's debug state is read once per context into this much, doubled while lines were
 * left out, up to the limit's kstate_bytes. */
#define KSTATE_FIRST (16u * 1024u)
/* The operator's dump (`ferry status --sync`): on request, bounded too. */
#define SYNC_TEXT_MAX_BYTES (1u << 20)
static const struct sync_limits operator_limits = {
	.queues = UINT32_MAX, .submits = UINT32_MAX, .in_fences = UINT32_MAX, .ops = 16384,
	.kstate_submits = UINT32_MAX, .kstate_bytes = 4u << 20,
};

/* One submit as the kernel described it (kdev.h's line format). */
struct ksubmit {
	uint32_t queue, fence;
	bool started;
	bool waiting;
	enum sync_cmd cmd;
	enum sync_obj_kind obj_kind;
	uint64_t obj;
	uint32_t live, ref, mask;
	char op[8];
	bool is_signed;
};

struct kstate {
	bool supported; /* the kernel answered: a submit it does not list has finished */
	char *text;
	struct ksubmit *subs;
	size_t count;
};

static bool parse_hex(const char *v, uint64_t *out)
{
	if (strncmp(v, "0x", 2) != 0)
		return false;
	char *end;
	*out = strtoull(v + 2, &end, 16);
	return end != v + 2 && (*end == '\0' || *end == ' ');
}

/* Parses one line; false for a line this host does not understand (it is then left out). */
static bool parse_ksubmit(char *line, struct ksubmit *k)
{
	memset(k, 0, sizeof(*k));
	bool have_queue = false, have_fence = false;
	for (char *save = NULL, *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq) {
			if (!strcmp(tok, "signed"))
				k->is_signed = true;
			continue;
		}
		*eq = '\0';
		const char *key = tok, *v = eq + 1;
		uint64_t x = 0;
		if (!strcmp(key, "queue")) {
			have_queue = true;
			k->queue = (uint32_t)strtoul(v, NULL, 10);
		} else if (!strcmp(key, "fence")) {
			have_fence = true;
			k->fence = (uint32_t)strtoul(v, NULL, 10);
		} else if (!strcmp(key, "exec")) {
			k->started = v[0] == 'S';
		} else if (!strcmp(key, "wait")) {
			if (!strcmp(v, "WAIT_REG_MEM"))
				k->cmd = SYNC_CMD_WAIT_REG_MEM;
			else if (!strcmp(v, "WAIT_MEM_GTE"))
				k->cmd = SYNC_CMD_WAIT_MEM_GTE;
			else
				continue;
			k->waiting = true;
		} else if (!strcmp(key, "addr") && parse_hex(v, &x)) {
			k->obj_kind = SYNC_OBJ_MEMORY;
			k->obj = x;
		} else if (!strcmp(key, "reg") && parse_hex(v, &x)) {
			k->obj_kind = SYNC_OBJ_REGISTER;
			k->obj = x;
		} else if (!strcmp(key, "live") && parse_hex(v, &x)) {
			k->live = (uint32_t)x;
		} else if (!strcmp(key, "ref") && parse_hex(v, &x)) {
			k->ref = (uint32_t)x;
		} else if (!strcmp(key, "mask") && parse_hex(v, &x)) {
			k->mask = (uint32_t)x;
		} else if (!strcmp(key, "op")) {
			snprintf(k->op, sizeof(k->op), "%s", v);
		}
	}
	return have_queue && have_fence;
}

static void kstate_fini(struct kstate *ks)
{
	free(ks->text);
	free(ks->subs);
	memset(ks, 0, sizeof(*ks));
}

/* Reads and parses the kernel's view of ctx. Leaves ks empty when the kernel cannot tell. */
static void kstate_read(struct host_ctx *ctx, struct kstate *ks, size_t max)
{
	const struct host_family_ops *fam = ctx->client->host->fam;
	memset(ks, 0, sizeof(*ks));
	ssize_t n = -ENOMEM;
	for (size_t cap = KSTATE_FIRST; cap <= max; cap *= 2) {
		char *buf = realloc(ks->text, cap);
		if (!buf)
			break;
		ks->text = buf;
		n = fam->debug_state ? fam->debug_state(ctx, buf, cap) : -ENOTSUP;
		/* Whole lines only: a short answer is complete. */
		if (n < 0 || (size_t)n + 256 < cap)
			break;
	}
	if (n <= 0) {
		kstate_fini(ks);
		ks->supported = n == 0;
		return;
	}
	size_t lines = 0;
	for (ssize_t i = 0; i < n; i++)
		lines += ks->text[i] == '\n';
	ks->subs = calloc(lines + 1, sizeof(*ks->subs));
	if (!ks->subs) {
		kstate_fini(ks);
		return;
	}
	ks->supported = true;
	char *save = NULL;
	for (char *line = strtok_r(ks->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (ks->count <= lines && parse_ksubmit(line, &ks->subs[ks->count]))
			ks->count++;
}

static const struct ksubmit *kstate_find(const struct kstate *ks, uint32_t queue, uint32_t fence)
{
	for (size_t i = 0; i < ks->count; i++)
		if (ks->subs[i].queue == queue && ks->subs[i].fence == fence)
			return &ks->subs[i];
	return NULL;
}

static struct sync_queue_id queue_id_of(const struct host_queue *q)
{
	return (struct sync_queue_id){ .client = q->ctx->client->id, .ctx = q->ctx->id, .queue = q->id };
}

static struct sync_op signal_op(const struct host_queue *q, uint32_t seqno, bool started)
{
	return (struct sync_op){
		.queue = queue_id_of(q), .started = started, .cmd = SYNC_CMD_SIGNAL, .seqno = seqno,
		.obj_kind = SYNC_OBJ_TIMELINE, .timeline = queue_id_of(q), .live = q->tl.signaled, .arg = seqno,
	};
}

/* Room for n more lines (false: the snapshot is full, or out of memory). */
static bool snap_room(struct sync_snapshot *s, uint32_t n, const struct sync_limits *lim)
{
	if (s->failed || n > lim->ops || s->nr > lim->ops - n)
		return false;
	if (FERRY_ARRAY_RESERVE(s->ops, s->cap, (size_t)s->nr + n, 64)) {
		s->failed = true;
		return false;
	}
	return true;
}

static void snap_push(struct sync_snapshot *s, const struct sync_op *op, const char *opname)
{
	struct sync_snap_op *o = &s->ops[s->nr++];
	o->op = *op;
	o->op.op = NULL;
	snprintf(o->opname, sizeof(o->opname), "%s", opname ? opname : "?");
}

/* Submits on the timeline: in the kernel (or already failed, awaiting their turn to retire).
 * Returns how many were shown. */
static uint32_t snap_timeline(struct sync_snapshot *s, const struct host_queue *q, const struct kstate *ks,
			      const struct sync_limits *lim)
{
	const struct fence_timeline *tl = &q->tl;
	uint32_t i = 0;
	for (; i < tl->count && i < lim->submits; i++) {
		const struct pending_fence *pf = &tl->ring[(tl->head + i) % tl->cap];
		const struct ksubmit *k = pf->in_kernel ? kstate_find(ks, q->kernel_id, pf->seqno) : NULL;
		bool blocked = k && k->waiting;
		if (!snap_room(s, blocked ? 2 : 1, lim))
			break;
		if (blocked) {
			struct sync_op w = {
				.queue = queue_id_of(q), .started = true, .cmd = k->cmd, .seqno = pf->seqno,
				.obj_kind = k->obj_kind, .obj = k->obj, .live = k->live, .arg = k->ref,
				.has_mask = k->cmd == SYNC_CMD_WAIT_REG_MEM, .mask = k->mask, .is_signed = k->is_signed,
			};
			snap_push(s, &w, k->op[0] ? k->op : "?");
		}
		/* Started: the GPU has begun it (or finished it, when the kernel no longer lists a
		 * submit the host has not retired yet, or it never reached the kernel). */
		bool started = !blocked && (k ? k->started : (!pf->in_kernel || ks->supported));
		struct sync_op sig = signal_op(q, pf->seqno, started);
		snap_push(s, &sig, "set");
	}
	s->more_submits += tl->count - i;
	return i;
}

struct held_snap {
	struct sync_snapshot *s;
	const struct sync_limits *lim;
	const struct host_queue *q;
	bool first;
	uint32_t shown;
};

static void snap_held_one(void *arg, const struct sched_held_view *v)
{
	struct held_snap *d = arg;
	uint32_t waits = v->nr_in < d->lim->in_fences ? v->nr_in : d->lim->in_fences;
	if (!snap_room(d->s, waits + 1, d->lim)) {
		d->first = false;
		return;
	}
	for (uint32_t i = 0; i < waits; i++) {
		const struct host_queue *in = v->in_q[i];
		struct sync_op w = {
			.queue = queue_id_of(d->q), .started = d->first, .cmd = SYNC_CMD_FENCE_WAIT, .seqno = v->seqno,
			.obj_kind = SYNC_OBJ_TIMELINE, .timeline = queue_id_of(in), .live = in->tl.signaled,
			.arg = v->in_seqno[i],
		};
		snap_push(d->s, &w, "ge");
	}
	d->s->more_waits += v->nr_in - waits;
	struct sync_op sig = signal_op(d->q, v->seqno, false);
	snap_push(d->s, &sig, "set");
	d->first = false;
	d->shown++;
}

static void snap_queue(struct sync_snapshot *s, const struct host_queue *q, const struct kstate *ks,
		       const struct sync_limits *lim)
{
	uint32_t shown = snap_timeline(s, q, ks, lim);
	/* Held submits wait behind everything on the timeline: the first one's wait is the live
	 * one only when the timeline is empty. */
	struct held_snap d = { .s = s, .lim = lim, .q = q, .first = q->tl.count == 0 };
	uint32_t room = shown < q->tl.count ? 0 : lim->submits - shown;
	uint32_t held = sched_visit_held(q, room, snap_held_one, &d);
	s->more_submits += held - d.shown;
}

/* Submits the kernel may list for ctx (everything on its timelines, an upper bound). */
static uint64_t ctx_timeline_submits(const struct host_ctx *ctx)
{
	uint64_t n = 0;
	const struct host_queue *q;
	ctx_for_each_queue(ctx, q)
		n += q->tl.count;
	return n;
}

static uint64_t queue_submits(const struct host_queue *q)
{
	return q->tl.count + sched_visit_held(q, 0, NULL, NULL);
}

void sync_snapshot_ctx(struct sync_snapshot *s, struct host_ctx *ctx, const struct host_queue *first,
		       const struct sync_limits *lim)
{
	if (!ctx->nr_inflight)
		return;
	struct kstate ks = { 0 };
	/* The kernel's view costs what it lists: only when it is small, and the snapshot has room. */
	if (snap_room(s, 1, lim) && ctx_timeline_submits(ctx) <= lim->kstate_submits)
		kstate_read(ctx, &ks, lim->kstate_bytes);
	uint32_t shown = 0;
	if (first && queue_pending(first)) {
		snap_queue(s, first, &ks, lim);
		shown++;
	}
	const struct host_queue *q;
	ctx_for_each_queue(ctx, q) {
		if (q == first || !queue_pending(q))
			continue;
		if (shown >= lim->queues || !snap_room(s, 1, lim)) {
			s->more_queues++;
			s->more_submits += queue_submits(q);
			continue;
		}
		snap_queue(s, q, &ks, lim);
		shown++;
	}
	kstate_fini(&ks);
}

void sync_snapshot_fini(struct sync_snapshot *s)
{
	free(s->ops);
	memset(s, 0, sizeof(*s));
}

static bool same_queue(const struct sync_queue_id *a, const struct sync_queue_id *b)
{
	return a->client == b->client && a->ctx == b->ctx && a->queue == b->queue;
}

void sync_snapshot_format(const struct sync_snapshot *s, size_t max_bytes, const char *why,
			  void (*line)(void *arg, const char *text, size_t len), void *arg)
{
	char buf[512];
	size_t used = 0;
	uint32_t i = 0;
	for (; i < s->nr; i++) {
		struct sync_op op = s->ops[i].op;
		op.op = s->ops[i].opname;
		int n = sync_dump_line(&op, buf, sizeof(buf));
		if (n < 0)
			continue;
		size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
		if (len > max_bytes - used)
			break;
		used += len;
		line(arg, buf, len);
	}
	/* What the byte cap cut: whole queues, and submits (one SIGNAL line each). */
	uint64_t queues = s->more_queues, submits = s->more_submits;
	for (uint32_t k = i; k < s->nr; k++) {
		const struct sync_op *op = &s->ops[k].op;
		if (op->cmd == SYNC_CMD_SIGNAL)
			submits++;
		if (k == 0 || !same_queue(&op->queue, &s->ops[k - 1].op.queue))
			queues++;
	}
	if (!queues && !submits && !s->more_waits && !s->failed)
		return;
	int n = snprintf(buf, sizeof(buf), "\u2026 %llu more queues / %llu more submits not shown", (unsigned long long)queues,
			 (unsigned long long)submits);
	if (s->more_waits && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (and %llu more in-fence waits)",
			      (unsigned long long)s->more_waits);
	if (n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%s%s\n", why ? ": " : "", why ? why : "",
			      s->failed ? " (out of memory)" : "");
	if (n > 0)
		line(arg, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Lines into a ferry_buf; a failed append is remembered (b->data freed at the end). */
struct text {
	struct ferry_buf b;
	bool failed;
};

static void text_line(void *arg, const char *line, size_t len)
{
	struct text *t = arg;
	if (!t->failed && ferry_buf_append(&t->b, line, len) < 0)
		t->failed = true;
}

char *sync_state_text(struct ferry_host *h, struct host_ctx *only)
{
	struct sync_snapshot s = { 0 };
	if (only) {
		sync_snapshot_ctx(&s, only, NULL, &operator_limits);
	} else {
		for (struct list *cl = h->clients.next; cl != &h->clients; cl = cl->next) {
			struct ferry_host_client *c = list_entry(cl, struct ferry_host_client, link);
			for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next)
				sync_snapshot_ctx(&s, list_entry(l, struct host_ctx, link), NULL, &operator_limits);
		}
	}
	struct text t = { .failed = false };
	ferry_buf_init(&t.b);
	sync_snapshot_format(&s, SYNC_TEXT_MAX_BYTES, "the operator's dump is capped at 1 MiB / 16384 lines", text_line,
			     &t);
	sync_snapshot_fini(&s);
	if (t.failed || ferry_buf_append(&t.b, "", 1) < 0) { /* NUL-terminated, for the caller */
		ferry_buf_free(&t.b);
		return NULL;
	}
	return (char *)t.b.data;
}

int ferry_host_sync_dump(struct ferry_host *h, char **text)
{
	*text = sync_state_text(h, NULL);
	return *text ? 0 : -ENOMEM;
}
