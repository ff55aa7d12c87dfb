/* Collecting the sync-state dump: for every queue of a context, in order, the pending
 * operations — FENCE_WAIT for each in-fence a held submit still waits for, the GPU wait a
 * submit in the kernel is polling (from the kernel's debug state, kdev.debug_state), and the
 * SIGNAL every unretired seqno owes its timeline — formatted by host/debug/sync_dump.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug/sync_dump.h"
#include "host_internal.h"

/* The kernel's debug state is read once per context into this much, doubled while lines were
 * left out, up to the most a dump may hold. */
#define KSTATE_FIRST (16u * 1024u)
#define KSTATE_MAX   (4u * 1024u * 1024u)

struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void text_line(struct text *t, const struct sync_op *op)
{
	if (t->failed)
		return;
	for (;;) {
		int n = sync_dump_line(op, t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0);
		if (n < 0)
			return;
		if (t->buf && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap - t->len <= (size_t)n)
			cap *= 2;
		char *nb = realloc(t->buf, cap);
		if (!nb) {
			t->failed = true;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
}

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
static void kstate_read(struct host_ctx *ctx, struct kstate *ks)
{
	memset(ks, 0, sizeof(*ks));
	ssize_t n = -ENOMEM;
	for (size_t cap = KSTATE_FIRST; cap <= KSTATE_MAX; cap *= 2) {
		char *buf = realloc(ks->text, cap);
		if (!buf)
			break;
		ks->text = buf;
		n = ctx->msm ? msm_debug_state(ctx->msm, buf, cap) : -ENOTSUP;
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
		.op = "set",
	};
}

/* Submits on the timeline: in the kernel (or already failed, awaiting their turn to retire). */
static void dump_timeline(struct text *t, const struct host_queue *q, const struct kstate *ks)
{
	const struct fence_timeline *tl = &q->tl;
	for (uint32_t i = 0; i < tl->count; i++) {
		const struct pending_fence *pf = &tl->ring[(tl->head + i) % tl->cap];
		const struct ksubmit *k = pf->in_kernel ? kstate_find(ks, q->kernel_id, pf->seqno) : NULL;
		bool blocked = false;
		if (k && k->waiting) {
			struct sync_op w = {
				.queue = queue_id_of(q), .started = true, .cmd = k->cmd, .seqno = pf->seqno,
				.obj_kind = k->obj_kind, .obj = k->obj, .live = k->live, .arg = k->ref,
				.op = k->op[0] ? k->op : "?", .has_mask = k->cmd == SYNC_CMD_WAIT_REG_MEM, .mask = k->mask,
				.is_signed = k->is_signed,
			};
			text_line(t, &w);
			blocked = true;
		}
		/* Started: the GPU has begun it (or finished it, when the kernel no longer lists a
		 * submit the host has not retired yet, or it never reached the kernel). */
		bool started = !blocked && (k ? k->started : (!pf->in_kernel || ks->supported));
		struct sync_op sig = signal_op(q, pf->seqno, started);
		text_line(t, &sig);
	}
}

struct held_dump {
	struct text *t;
	const struct host_queue *q;
	bool first;
};

static void dump_held_one(void *arg, const struct sched_held_view *v)
{
	struct held_dump *d = arg;
	for (uint32_t i = 0; i < v->nr_in; i++) {
		const struct host_queue *in = v->in_q[i];
		struct sync_op w = {
			.queue = queue_id_of(d->q), .started = d->first, .cmd = SYNC_CMD_FENCE_WAIT, .seqno = v->seqno,
			.obj_kind = SYNC_OBJ_TIMELINE, .timeline = queue_id_of(in), .live = in->tl.signaled,
			.arg = v->in_seqno[i], .op = "ge",
		};
		text_line(d->t, &w);
	}
	struct sync_op sig = signal_op(d->q, v->seqno, false);
	text_line(d->t, &sig);
	d->first = false;
}

static void dump_ctx(struct text *t, struct host_ctx *ctx)
{
	if (!ctx->nr_inflight)
		return;
	struct kstate ks;
	kstate_read(ctx, &ks);
	for (uint32_t id = 0; id < FERRY_FENCE_PAGE_QUEUES; id++) {
		const struct host_queue *q = ctx->queues[id];
		if (!q)
			continue;
		dump_timeline(t, q, &ks);
		/* Held submits wait behind everything on the timeline: the first one's wait is the
		 * live one only when the timeline is empty. */
		struct held_dump d = { .t = t, .q = q, .first = q->tl.count == 0 };
		sched_visit_held(q, dump_held_one, &d);
	}
	kstate_fini(&ks);
}

char *sync_state_text(struct ferry_host *h, struct host_ctx *only)
{
	struct text t = { 0 };
	if (only) {
		dump_ctx(&t, only);
	} else {
		for (struct list *cl = h->clients.next; cl != &h->clients; cl = cl->next) {
			struct ferry_host_client *c = list_entry(cl, struct ferry_host_client, link);
			for (struct list *l = c->contexts.next; l != &c->contexts; l = l->next)
				dump_ctx(&t, list_entry(l, struct host_ctx, link));
		}
	}
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	return t.buf ? t.buf : strdup("");
}

int ferry_host_sync_dump(struct ferry_host *h, char **text)
{
	*text = sync_state_text(h, NULL);
	return *text ? 0 : -ENOMEM;
}
