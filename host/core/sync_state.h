/* A bounded snapshot of the sync state (sync_state.c): what the loop copies out of the host's
 * queues — at most so many queues, submits per queue, waits per submit and lines in all, the
 * rest only counted — and its formatting, which needs no host state and may run elsewhere. */
#ifndef FERRY_HOST_SYNC_STATE_H
#define FERRY_HOST_SYNC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debug/sync_dump.h"

struct ferry_host;
struct host_ctx;
struct host_queue;

struct sync_limits {
	uint32_t queues;       /* per context */
	uint32_t submits;      /* per queue: timeline entries plus held submits */
	uint32_t in_fences;    /* FENCE_WAIT lines per held submit */
	uint32_t ops;          /* lines in the whole snapshot */
	uint32_t kstate_submits; /* read the kernel's debug state only with at most this many submits in it */
	size_t kstate_bytes;   /* and at most this much of it */
};

struct sync_snap_op {
	struct sync_op op; /* op.op is set from opname when formatting */
	char opname[8];
};

struct sync_snapshot {
	struct sync_snap_op *ops;
	uint32_t nr, cap;
	uint64_t more_queues;  /* queues with pending work left out */
	uint64_t more_submits; /* submits left out (of queues shown or not) */
	uint64_t more_waits;   /* in-fence waits left out of submits shown */
	bool failed;           /* out of memory: the snapshot is partial */
};

/* Adds ctx's pending operations to s within lim, first's queue first (first may be NULL). */
void sync_snapshot_ctx(struct sync_snapshot *s, struct host_ctx *ctx, const struct host_queue *first,
		       const struct sync_limits *lim);
void sync_snapshot_fini(struct sync_snapshot *s);
/* Calls line(arg, text, len) for each line (with its '\n') while they fit in max_bytes, then, if
 * anything was left out, once more with "… N more queues / M more submits not shown (why)". */
void sync_snapshot_format(const struct sync_snapshot *s, size_t max_bytes, const char *why,
			  void (*line)(void *arg, const char *text, size_t len), void *arg);

/* sync_state.c: the sync-state dump (format in host/debug/sync_dump.h) of one context, or of
 * every context when ctx is NULL. malloc'd text ("" when nothing is pending), NULL on ENOMEM. */
char *sync_state_text(struct ferry_host *h, struct host_ctx *ctx);

#endif
