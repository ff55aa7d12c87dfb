/* Per-queue trace events (DESIGN.md §7): the bounded ring the host records into, and its export
 * as Chrome trace-event JSON. Independent of struct ferry_host so tests can drive it directly. */
#ifndef FERRY_HOST_TRACE_H
#define FERRY_HOST_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Events kept; older ones are overwritten (and counted as dropped). A power of two. */
#define TRACE_RING_EVENTS (64u * 1024u)

enum trace_kind {
	TRACE_SUBMIT,        /* the SUBMIT message arrived */
	TRACE_VALIDATED,     /* the validator accepted it (validated contexts) */
	TRACE_REJECTED,      /* the validator refused it (status) */
	TRACE_HELD,          /* kept by the scheduler: in-fences not signaled yet */
	TRACE_RELEASED,      /* left the scheduler (status: refused / cancelled when not 0) */
	TRACE_KERNEL_SUBMIT, /* handed to the kernel: starts the run span */
	TRACE_RETIRE,        /* its fence signaled (status): ends the run span */
	TRACE_FAULT,         /* the GPU faulted or hung in it */
	TRACE_GPU_BEGIN,     /* kernel trace points (kdev trace_read): name is the engine */
	TRACE_GPU_END,
	TRACE_GPU_INSTANT,   /* name is the kernel's tracepoint */
	TRACE_KIND_COUNT
};

/* queue is the host queue id; for GPU events of a kernel queue the host has no id for (v3d's
 * bin / render / tfu), TRACE_NO_QUEUE and the engine name tell the timeline row. */
#define TRACE_NO_QUEUE UINT32_MAX

struct trace_event {
	int64_t ts_ns; /* CLOCK_MONOTONIC */
	uint32_t client, ctx, queue, seqno;
	int32_t status;
	uint32_t kind;    /* enum trace_kind */
	const char *name; /* GPU events: a static string from the kernel side; else NULL */
};

struct trace_ring {
	struct trace_event *ev; /* TRACE_RING_EVENTS, or NULL before the first start */
	uint64_t next;          /* events pushed since the last clear */
};

const char *trace_kind_name(uint32_t kind);

int trace_ring_init(struct trace_ring *r);
void trace_ring_fini(struct trace_ring *r);
void trace_ring_clear(struct trace_ring *r);
/* Overwrites the oldest event when full. No allocation, no syscall. */
static inline void trace_ring_push(struct trace_ring *r, const struct trace_event *e)
{
	r->ev[r->next & (TRACE_RING_EVENTS - 1)] = *e;
	r->next++;
}
static inline uint64_t trace_ring_count(const struct trace_ring *r)
{
	return r->next < TRACE_RING_EVENTS ? r->next : TRACE_RING_EVENTS;
}
static inline uint64_t trace_ring_dropped(const struct trace_ring *r)
{
	return r->next - trace_ring_count(r);
}

/* Names a client's timeline process ("client 3 unix:pid 123"); NULL = just "client N". */
typedef const char *(*trace_client_label_fn)(void *arg, uint32_t client);

/* The ring as Chrome trace-event JSON ({"traceEvents":[...]}): "M" events naming processes
 * (clients) and threads (queues), "i" instants for each host event, "X" spans from kernel
 * submit to retire (rows "queue N in flight", split in lanes when submits overlap) and from
 * GPU begin to end. Timestamps in µs from the oldest event. *json is malloc'd, NUL-terminated.
 * Returns 0 or -ENOMEM. */
int trace_export_json(const struct trace_ring *r, trace_client_label_fn label, void *arg, char **json, size_t *len);

/* JSON string body of s (no quotes) into dst (NUL-terminated, truncated to len): '"', '\\' and
 * control characters escaped; bytes >= 0x80 as \u00XX so any input gives valid JSON. Returns
 * the length the whole escape needs. */
size_t trace_json_escape(char *dst, size_t len, const char *s);

#endif
