/* The trace ring and its Chrome trace-event JSON export: host events as instants, kernel submit
 * → retire and GPU begin → end as complete ("X") spans, one timeline row per queue and engine. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/text.h"
#include "trace.h"

static const char *const kind_names[TRACE_KIND_COUNT] = {
	[TRACE_SUBMIT] = "submit",
	[TRACE_VALIDATED] = "validated",
	[TRACE_REJECTED] = "rejected",
	[TRACE_HELD] = "held",
	[TRACE_RELEASED] = "released",
	[TRACE_KERNEL_SUBMIT] = "kernel submit",
	[TRACE_RETIRE] = "retire",
	[TRACE_FAULT] = "fault",
	[TRACE_GPU_BEGIN] = "gpu begin",
	[TRACE_GPU_END] = "gpu end",
	[TRACE_GPU_INSTANT] = "gpu",
};

const char *trace_kind_name(uint32_t kind)
{
	return kind < TRACE_KIND_COUNT ? kind_names[kind] : "?";
}

int trace_ring_init(struct trace_ring *r)
{
	if (!r->ev) {
		r->ev = malloc((size_t)TRACE_RING_EVENTS * sizeof(*r->ev));
		if (!r->ev)
			return -ENOMEM;
	}
	r->next = 0;
	return 0;
}

void trace_ring_fini(struct trace_ring *r)
{
	free(r->ev);
	r->ev = NULL;
	r->next = 0;
}

void trace_ring_clear(struct trace_ring *r)
{
	r->next = 0;
}

size_t trace_json_escape(char *dst, size_t len, const char *s)
{
	size_t out = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char tmp[8];
		const char *rep = tmp;
		if (*p == '"')
			rep = "\\\"";
		else if (*p == '\\')
			rep = "\\\\";
		else if (*p == '\n')
			rep = "\\n";
		else if (*p == '\t')
			rep = "\\t";
		else if (*p < 0x20 || *p >= 0x7f)
			snprintf(tmp, sizeof(tmp), "\\u%04x", *p);
		else
			tmp[0] = (char)*p, tmp[1] = '\0';
		for (const char *c = rep; *c; c++, out++)
			if (len && out < len - 1)
				dst[out] = *c;
	}
	if (len)
		dst[out < len ? out : len - 1] = '\0';
	return out;
}

/* ---- output text (ferry_text) ---- */

static void put_string(struct ferry_text *b, const char *s)
{
	char small[256];
	size_t need = trace_json_escape(small, sizeof(small), s);
	if (need < sizeof(small)) {
		ferry_text_put(b, "\"%s\"", small);
		return;
	}
	char *big = malloc(need + 1);
	if (!big) {
		b->failed = true;
		return;
	}
	trace_json_escape(big, need + 1, s);
	ferry_text_put(b, "\"%s\"", big);
	free(big);
}

/* ---- timeline rows: a process per client, a thread per (context, queue, row kind, lane) ---- */

enum row_kind { ROW_QUEUE, ROW_RUN, ROW_GPU };
#define MAX_LANES 16u

struct row {
	bool used;
	uint32_t client, ctx, queue, kind, lane;
	const char *name; /* ROW_GPU: the engine */
	uint32_t tid;
	int64_t lane_end; /* span rows: where the lane's last span ended */
};

struct rows {
	struct row *slot;
	size_t cap; /* a power of two */
	uint32_t next_tid;
	struct ferry_text *meta;
	trace_client_label_fn label;
	void *arg;
	uint32_t *clients_named; /* small set of clients with a process_name */
	size_t nr_clients, cap_clients;
};

static uint64_t row_hash(uint32_t client, uint32_t ctx, uint32_t queue, uint32_t kind, uint32_t lane, const char *name)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t v[5] = { client, ctx, queue, kind, lane };
	for (int i = 0; i < 5; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	for (const char *p = name; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void name_process(struct rows *rs, uint32_t client)
{
	for (size_t i = 0; i < rs->nr_clients; i++)
		if (rs->clients_named[i] == client)
			return;
	if (FERRY_ARRAY_RESERVE(rs->clients_named, rs->cap_clients, rs->nr_clients + 1, 16)) {
		rs->meta->failed = true;
		return;
	}
	rs->clients_named[rs->nr_clients++] = client;
	const char *label = rs->label ? rs->label(rs->arg, client) : NULL;
	char name[160];
	if (label)
		snprintf(name, sizeof(name), "client %" PRIu32 " %s", client, label);
	else
		snprintf(name, sizeof(name), "client %" PRIu32, client);
	ferry_text_put(rs->meta, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":0,\"args\":{\"name\":",
	     (uint64_t)client + 1);
	put_string(rs->meta, name);
	ferry_text_put(rs->meta, "}}");
}

static struct row *row_get(struct rows *rs, uint32_t client, uint32_t ctx, uint32_t queue, uint32_t kind,
			   uint32_t lane, const char *name)
{
	size_t mask = rs->cap - 1;
	for (size_t i = row_hash(client, ctx, queue, kind, lane, name) & mask;; i = (i + 1) & mask) {
		struct row *r = &rs->slot[i];
		if (r->used) {
			if (r->client == client && r->ctx == ctx && r->queue == queue && r->kind == kind &&
			    r->lane == lane && same_name(r->name, name))
				return r;
			continue;
		}
		/* New row: the table has room (sized for one row per event and span). */
		*r = (struct row){ .used = true, .client = client, .ctx = ctx, .queue = queue, .kind = kind,
				   .lane = lane, .name = name, .tid = ++rs->next_tid, .lane_end = INT64_MIN };
		name_process(rs, client);
		char qname[32] = "";
		if (queue != TRACE_NO_QUEUE)
			snprintf(qname, sizeof(qname), " queue %" PRIu32, queue);
		char tname[160], lname[16] = "";
		if (lane)
			snprintf(lname, sizeof(lname), " #%" PRIu32, lane + 1);
		if (kind == ROW_QUEUE)
			snprintf(tname, sizeof(tname), "ctx %" PRIu32 "%s", ctx, qname);
		else if (kind == ROW_RUN)
			snprintf(tname, sizeof(tname), "ctx %" PRIu32 "%s in flight%s", ctx, qname, lname);
		else
			snprintf(tname, sizeof(tname), "ctx %" PRIu32 "%s gpu %s%s", ctx, qname, name ? name : "?", lname);
		ferry_text_put(rs->meta, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu32 ",\"args\":{\"name\":",
		     (uint64_t)client + 1, r->tid);
		put_string(rs->meta, tname);
		ferry_text_put(rs->meta, "}}");
		/* Rows sort by creation: a queue's rows stay together. */
		ferry_text_put(rs->meta, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu32
			       ",\"args\":{\"sort_index\":%" PRIu32 "}}", (uint64_t)client + 1, r->tid, r->tid);
		return r;
	}
}

/* The first lane of a span row whose last span ended by start (overlapping submits of one queue
 * — several in flight at once — go to further lanes, as timeline viewers want nested spans). */
static struct row *span_row(struct rows *rs, const struct trace_event *e, uint32_t kind, int64_t start)
{
	struct row *r = NULL;
	for (uint32_t lane = 0; lane < MAX_LANES; lane++) {
		r = row_get(rs, e->client, e->ctx, e->queue, kind, lane, kind == ROW_GPU ? e->name : NULL);
		if (r->lane_end <= start)
			break;
	}
	return r;
}

/* ---- export ---- */

static void put_ts(struct ferry_text *b, const char *key, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	ferry_text_put(b, ",\"%s\":%" PRId64 ".%03" PRId64, key, ns / 1000, ns % 1000);
}

static void put_args(struct ferry_text *b, const struct trace_event *e)
{
	ferry_text_put(b, ",\"args\":{\"ctx\":%" PRIu32, e->ctx);
	if (e->queue != TRACE_NO_QUEUE)
		ferry_text_put(b, ",\"queue\":%" PRIu32, e->queue);
	ferry_text_put(b, ",\"seqno\":%" PRIu32, e->seqno);
	if (e->kind == TRACE_RETIRE || e->kind == TRACE_REJECTED || e->kind == TRACE_RELEASED ||
	    e->kind == TRACE_FAULT || e->status)
		ferry_text_put(b, ",\"status\":%" PRId32, e->status);
	ferry_text_put(b, "}}");
}

/* Span pairing key: same client/context/queue/seqno (and engine for GPU events), then time. */
struct span_key {
	const struct trace_event *e;
	uint32_t pos; /* in time order */
};

static int cmp_name(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_span_key(const void *pa, const void *pb)
{
	const struct span_key *a = pa, *b = pb;
	const struct trace_event *x = a->e, *y = b->e;
#define CMP_FIELD(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	CMP_FIELD(client);
	CMP_FIELD(ctx);
	CMP_FIELD(queue);
	bool gx = x->kind >= TRACE_GPU_BEGIN, gy = y->kind >= TRACE_GPU_BEGIN;
	if (gx != gy)
		return gx ? 1 : -1;
	if (gx) {
		int c = cmp_name(x->name, y->name);
		if (c)
			return c;
	}
	CMP_FIELD(seqno);
#undef CMP_FIELD
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int cmp_time(const void *pa, const void *pb)
{
	const struct span_key *a = pa, *b = pb;
	if (a->e->ts_ns != b->e->ts_ns)
		return a->e->ts_ns < b->e->ts_ns ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

struct span {
	const struct trace_event *begin, *end;
	uint32_t pos; /* the begin's position in time order */
};

static int cmp_span_start(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	if (a->begin->ts_ns != b->begin->ts_ns)
		return a->begin->ts_ns < b->begin->ts_ns ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

int trace_export_json(const struct trace_ring *r, trace_client_label_fn label, void *arg, char **json, size_t *len)
{
	size_t n = r->ev ? (size_t)trace_ring_count(r) : 0;
	uint64_t first = r->next - n;
	struct span_key *keys = calloc(n ? n : 1, sizeof(*keys));
	struct span *spans = calloc(n ? n : 1, sizeof(*spans));
	/* Rows: at most one per event (its queue row) plus one per span lane. */
	size_t cap = 64;
	while (cap < 4 * n + 64)
		cap *= 2;
	struct ferry_text meta = { 0 }, body = { 0 };
	struct rows rs = { .slot = calloc(cap, sizeof(struct row)), .cap = cap, .meta = &meta, .label = label, .arg = arg };
	int ret = -ENOMEM;
	if (!keys || !spans || !rs.slot)
		goto out;

	for (size_t i = 0; i < n; i++)
		keys[i] = (struct span_key){ .e = &r->ev[(first + i) & (TRACE_RING_EVENTS - 1)], .pos = (uint32_t)i };
	/* Kernel events are pulled after the fact: order everything by time (stable). */
	qsort(keys, n, sizeof(*keys), cmp_time);
	for (size_t i = 0; i < n; i++)
		keys[i].pos = (uint32_t)i;
	int64_t base = n ? keys[0].e->ts_ns : 0;

	ferry_text_put(&meta, "{\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\",\"base_ns\":%" PRId64
		    ",\"events\":%zu,\"dropped\":%" PRIu64 "},\n\"traceEvents\":[\n"
		    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"ferry host\"}}",
	     base, n, trace_ring_dropped(r));

	/* Instants, in time order, on their queue's row (GPU ones on the engine's row). */
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = keys[i].e;
		const char *name = trace_kind_name(e->kind);
		struct row *row;
		if (e->kind == TRACE_GPU_BEGIN || e->kind == TRACE_GPU_END)
			continue; /* spans below */
		if (e->kind == TRACE_GPU_INSTANT) {
			row = row_get(&rs, e->client, e->ctx, e->queue, ROW_GPU, 0, e->name);
			name = e->name ? e->name : name;
		} else {
			row = row_get(&rs, e->client, e->ctx, e->queue, ROW_QUEUE, 0, NULL);
		}
		ferry_text_put(&body, ",\n{\"name\":");
		put_string(&body, name);
		ferry_text_put(&body, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu32,
		     e->kind == TRACE_GPU_INSTANT ? "gpu" : "host", (uint64_t)e->client + 1, row->tid);
		put_ts(&body, "ts", e->ts_ns - base);
		put_args(&body, e);
	}

	/* Spans: group by key; a begin (kernel submit / GPU begin) pairs with the next end. */
	struct span_key *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		goto out;
	memcpy(sorted, keys, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_span_key);
	size_t nr_spans = 0;
	const struct span_key *open = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = sorted[i].e;
		if (open && cmp_span_key(&(struct span_key){ .e = open->e, .pos = 0 }, &(struct span_key){ .e = e, .pos = 0 }))
			open = NULL; /* another submit: an unmatched begin stays an instant */
		if (e->kind == TRACE_KERNEL_SUBMIT || e->kind == TRACE_GPU_BEGIN) {
			open = &sorted[i];
		} else if (open && ((e->kind == TRACE_RETIRE && open->e->kind == TRACE_KERNEL_SUBMIT) ||
				    (e->kind == TRACE_GPU_END && open->e->kind == TRACE_GPU_BEGIN))) {
			spans[nr_spans++] = (struct span){ .begin = open->e, .end = e, .pos = open->pos };
			open = NULL;
		}
	}
	free(sorted);
	qsort(spans, nr_spans, sizeof(*spans), cmp_span_start);
	for (size_t i = 0; i < nr_spans; i++) {
		const struct trace_event *b = spans[i].begin, *e = spans[i].end;
		bool gpu = b->kind == TRACE_GPU_BEGIN;
		struct row *row = span_row(&rs, b, gpu ? ROW_GPU : ROW_RUN, b->ts_ns);
		row->lane_end = e->ts_ns;
		char name[64];
		snprintf(name, sizeof(name), "%s %" PRIu32, gpu ? (b->name ? b->name : "gpu") : "run", b->seqno);
		ferry_text_put(&body, ",\n{\"name\":");
		put_string(&body, name);
		ferry_text_put(&body, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu32, gpu ? "gpu" : "host",
		     (uint64_t)b->client + 1, row->tid);
		put_ts(&body, "ts", b->ts_ns - base);
		put_ts(&body, "dur", e->ts_ns >= b->ts_ns ? e->ts_ns - b->ts_ns : 0);
		struct trace_event args = *b;
		args.status = e->status;
		args.kind = e->kind; /* a run span shows how it retired */
		put_args(&body, &args);
	}
	ferry_text_put(&body, "\n]}\n");
	if (body.failed)
		meta.failed = true;
	ferry_text_put(&meta, "%s", body.buf ? body.buf : "");
	if (meta.failed)
		goto out;
	*json = meta.buf;
	*len = meta.len;
	meta.buf = NULL;
	ret = 0;
out:
	free(meta.buf);
	free(body.buf);
	free(keys);
	free(spans);
	free(rs.slot);
	free(rs.clients_named);
	return ret;
}
