/* The objects of libferry-host's core (host, client, context, BO, queue, wait) and its limits.
 * Not installed: embedders use ferry/host.h. */
#ifndef FERRY_HOST_TYPES_H
#define FERRY_HOST_TYPES_H

#include <stdarg.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ferry/fence_page.h>
#include <ferry/errno_text.h>
#include <ferry/host.h>
#include <ferry/wire.h>

#include "bo_table.h"
#include "fence_timeline.h"
#include "latency.h"
#include "list.h"
#include "trace.h"

/* A client that sends this many malformed frames, or this many failing requests in a row, is
 * disconnected. */
#define HOST_MAX_BAD_FRAMES    64u
#define HOST_MAX_ERROR_STREAK  4096u
/* Per-client quota defaults (ferry_host_config.max_client_*, ferryd --max-client-*). */
#define HOST_DEFAULT_MAX_CLIENT_CONTEXTS 16u
#define HOST_DEFAULT_MAX_CLIENT_BOS      16384u
#define HOST_DEFAULT_MAX_CLIENT_BO_MIB   4096u
#define HOST_DEFAULT_MAX_CLIENT_SHADOW_MIB   64u
#define HOST_DEFAULT_MAX_CLIENT_SHADOW_RATIO 2u
#define HOST_DEFAULT_MAX_CLIENT_FDS      4096u
/* ferry_host_config.dispatch_pass_us: completions are retired between dispatch passes, so with
 * 64 rings of 32 records an unbounded pass (~30 ms here) was what every retire waited for, a
 * light client's beside busy ones included (`ferry bench --clients 64`: 29 ms -> 2.3 ms). */
#define HOST_DEFAULT_DISPATCH_PASS_US    1000u
/* fds the host holds for a client's objects (ferry_host_config.max_client_fds). Only the
 * simulator is served: its BOs and shadow BOs are memfds of ours, and a context holds its
 * device open's eventfd and the guest's eventfd. Creating one also needs room for the fds its
 * reply carries (the embedder may queue copies) and, for a context, the fence page's memfd
 * until that reply is sent. */
#define HOST_FDS_PER_CTX       2u
#define HOST_FDS_PER_BO        1u
#define HOST_FDS_PER_SHADOW_BO 1u
#define HOST_FDS_CTX_CREATE    (HOST_FDS_PER_CTX + 1u + 2u)
#define HOST_FDS_BO_CREATE     (HOST_FDS_PER_BO + 1u)
/* A submit ring holds its doorbell eventfd; making one also needs its memfd until the reply is
 * sent, and the reply's two fds. */
#define HOST_FDS_PER_RING      1u
#define HOST_FDS_RING_CREATE   (HOST_FDS_PER_RING + 1u + 2u)
/* Host memory a guest can pin: deferred waits per client, held submits per context. */
#define HOST_MAX_WAITS_PER_CLIENT 1024u
#define HOST_MAX_HELD_PER_CTX     1024u
#define HOST_MAX_EXTERNAL_PER_CTX 1024u /* external fences not yet retired, per context */
/* The kernel's devcoredump text read per fault (ctx->fault_text); the report the guest gets
 * (the host's header plus this) is capped at FERRY_MAX_REPORT_TEXT too. */
#define HOST_FAULT_TEXT_MAX    FERRY_MAX_REPORT_TEXT
/* How often contexts whose kdev has no poll fd are polled while they have work in flight. */
#define HOST_POLL_INTERVAL_MS  2

/* Request handlers take (client, msg, why, n): on failure they write the reason into why and
 * return a negative errno, which client.c turns into the ERROR reply. */
#define HOST_FAIL(err, ...)                      \
	do {                                     \
		snprintf(why, n, __VA_ARGS__);   \
		return (err);                    \
	} while (0)

struct host_family_ops;
struct fault_log;

/* The fence-signal watchdog (watchdog.c): host-wide state, and per queue the oldest pending
 * fence it is timing. */
struct host_watchdog {
	int64_t timeout_ns;     /* 0: off */
	int64_t next_check_ns;  /* INT64_MAX: nothing was pending at the last check */
	uint64_t seen_submits;  /* stats.submits at the last check: new work re-arms an idle check */
	int64_t last_dump_ns;   /* host-wide rate limit (INT64_MIN: none yet) */
	uint64_t suppressed;    /* overdue fences not dumped since the last dump */
	struct dump_writer *writer; /* the thread writing dumps, made on the first one */
};
struct watchdog_track {
	bool armed;             /* the queue had pending work at the last check */
	bool reported;          /* the dump for this fence was written */
	uint32_t signaled;      /* the queue's last signaled seqno when timing started */
	int64_t since_ns;
};
/* Tracing (trace_host.c): off by default, switched at run time. */
struct host_trace {
	bool on;
	int64_t started_ns; /* kernel events older than this are not imported */
	struct trace_ring ring;
};
struct shadow_set;

struct gpu_device;

struct ferry_host {
	struct ferry_host_config cfg;
	char gpu[32];
	char device_name[64];
	int epfd;            /* every context's kdev poll fd */
	struct list clients; /* ferry_host_client.link */
	/* Deferred FENCE_WAIT / BO_CPU_PREP replies by deadline (a min-heap, host_wait.heap_idx):
	 * expiring them costs what expired, not a walk of all. wait_free: ended ones kept for reuse. */
	struct host_wait **wait_heap;
	uint32_t nr_waits, cap_waits;
	struct host_wait *wait_free;
	uint32_t nr_wait_free;
	struct list timer_ctxs; /* host_ctx.timer_link: contexts without a kdev poll fd */
	/* host_ctx.done_link: work retired inside the kernel call that submitted it (kdev done_here),
	 * told by no poll fd: checked in the next dispatch. */
	struct list done_ctxs;
	struct ferry_host_stats stats;
	struct ferry_buf out; /* encode scratch, reused for every frame sent */
	struct fault_log *fault_log; /* reports kept for operators (fault_log.c) */
	uint32_t next_client_id;
	struct host_watchdog wd;
	struct host_trace trace;
	const struct host_family_ops *fam; /* what cfg.gpu selected (family.h) */
	struct gpu_device *gpu_dev; /* backend/device.h: the simulator or render node cfg.gpu names */
	void *family_state; /* the family's host state (its host_init makes it) */
	struct host_capture *capture; /* host_capture.c: made on first use */
	int64_t shadow_trim_ns; /* shadow_quota.c: when a shadow pool next has idle chunks to drop */
	/* Every BO in a context's table by the inode of its pages (bo_share.c), so a BO_IMPORT's
	 * lookup costs a hash probe however many BOs the clients hold. Made on first use. */
	struct host_bo **pages;
	uint32_t pages_nbuckets, pages_count;
	struct host_latency latency[FERRY_HOST_LATENCY_KINDS]; /* latency.c */
	/* Submit rings (ring.c): every live one, those with records to take now, and the one
	 * buffer records are copied into (FERRY_RING_MAX_DATA / 4, made with the first ring). */
	struct list rings;
	struct list ring_work;
	struct list ring_work_idle; /* taken first in a pass (ring.c ring_queue_woken) */
	void *ring_buf;
};

struct ferry_host_client {
	struct ferry_host *host;
	struct list link;
	struct ferry_host_client_ops ops;
	void *cookie;
	char peer[64];
	uint32_t id;          /* for sync-state dumps: GPU-<client id>-<ctx>-<queue> */
	struct list contexts; /* host_ctx.link */
	bool gone;            /* send failed: nothing more is sent */
	uint32_t bad_frames;
	uint32_t error_streak;
	uint32_t nr_waits;
	/* Quota use (ferry_host_config.max_client_*): contexts, and BOs until their last ref goes. */
	uint32_t nr_contexts;
	uint32_t nr_bos;
	uint64_t bo_bytes; /* its BOs and the submit rings ferryd made for it (ring.c) */
	uint64_t shadow_bytes; /* every shadow chunk of its contexts' pools (shadow_quota.c) */
	int64_t wd_last_dump_ns; /* its last watchdog dump (INT64_MIN: none), for the rate limit */
	uint32_t nr_fds; /* held for its objects (HOST_FDS_*), the embedder's not included */
	/* A frame whose handling stopped at the validation budget (ferry_host_client_resume):
	 * its copy, and the family's state holding its progress (msm: a PM4 validator taken from
	 * the host's, so other clients validate meanwhile) for context submit_ctx. */
	void *pending;
	size_t pending_len;
	bool resuming; /* handling pending again: its frame was captured and traced already */
	void *submit_pending;
	struct host_ctx *submit_ctx;
	/* The fds of the frame being handled (borrowed: closed after it; none on resume). */
	int *in_fds;
	int in_nfds;
	/* Submit rings: socket frames handled so far (RingCreate not counted), the records'
	 * sock_seq (docs/protocol.md "Submit rings"). A socket frame that must wait for a ring
	 * record in progress is kept here with its fds until ferry_host_client_resume. */
	uint32_t sock_seq;
	void *deferred;
	size_t deferred_len;
	int deferred_fds[FERRY_MAX_FRAME_FDS];
	int deferred_nfds;
	bool rings_blocked; /* a ring record is in progress (pending): its rings wait */
	uint32_t rings_stalled; /* its rings whose next record waits for a socket frame (ring.c) */
};

struct host_ctx;
struct host_ring;

struct host_bo {
	struct host_bo *hash_next;
	struct bo_table *table; /* the table it was put in (its hooks) */
	struct host_ctx *ctx;
	uint32_t id, handle, flags;
	uint32_t refs; /* the table's, plus held submits' and waits' */
	uint32_t held; /* how many submits held for in-fences list it (sched.c), so a cpu_prep
			* check is O(1) instead of a walk over every held submit's BOs */
	uint64_t size, iova;
	uint64_t submit_mark; /* duplicate detection within one submit's bos[] */
	void *host_map;       /* validated contexts: the validator's read-only host mapping, or NULL
			       * (msm: until the context's next submit) until the family's
			       * bo_unmap_host */
	dev_t pages_dev;      /* the file of the BO's pages as exported (fstat): what BO_IMPORT */
	ino_t pages_ino;      /* recognises an fd by (bo_share.c) */
	struct host_bo *pages_next; /* chain of ferry_host.pages, while in a context's table */
};


struct host_queue {
	struct host_ctx *ctx;
	uint32_t id, kernel_id, prio;
	uint32_t faults; /* last SUBMITQUEUE_QUERY(FAULTS) */
	uint32_t kind;   /* enum ferry_queue_kind; v3d queues: never DEFAULT (resolved at create) */
	struct fence_timeline tl;
	struct list held; /* held_submit.link, FIFO */
	bool closing;     /* closed by the guest; freed when its work drained */
	struct watchdog_track wd;
};

struct host_ctx {
	struct ferry_host_client *client;
	struct list link;
	uint32_t id, policy;
	uint32_t family;     /* FERRY_FAMILY_*; the family's own state embeds this (family.h ctx_size) */
	int poll_fd;
	struct list timer_link;
	struct list done_link;  /* ferry_host.done_ctxs */
	struct list waits; /* host_wait.link: this context's deferred replies */
	int page_fd, event_fd;
	struct ferry_fence_page *page;
	struct bo_table bos;
	struct host_queue *queues[FERRY_FENCE_PAGE_QUEUES];
	uint64_t queue_mask[FERRY_FENCE_PAGE_QUEUES / 64]; /* bit id: queues[id] is set */
	uint32_t nr_inflight; /* pending + held submits over all queues */
	uint32_t nr_held;
	bool lost;
	bool lost_published; /* the fence page says so (ctx_publish_lost) */
	bool refused;        /* the validator refused the submit being handled (ctx_submit_refused) */
	int64_t refusal_log_sec; /* refusal warnings: the second of the last one, how many not logged */
	uint32_t refusals_unlogged;
	bool wake; /* a fence signaled since the eventfd was last considered */
	bool fds_counted; /* its HOST_FDS_PER_CTX are in client->nr_fds */
	uint64_t submit_mark;
	/* Per-context submit scratch (a submit's host BOs), reused so steady-state submits do not
	 * allocate. */
	struct host_bo **bo_ptrs;
	uint32_t scratch_cap;
	char *fault_text; /* scratch for the kernel's devcoredump (HOST_FAULT_TEXT_MAX), made on first fault */
	char lost_why[320]; /* set with lost: what the GPU did, for the errors of later submits */
	struct kdev *kd;            /* the family's device open (owned by its context): kernel trace points */
	uint64_t trace_cursor;      /* kdev trace_read position */
	bool trace_unsupported;     /* trace_read said no once: not asked again */
	uint64_t unmodeled[FERRY_UNMODELED_KINDS]; /* work the simulator did not execute (unmodeled.c) */
	uint32_t unmodeled_warned;  /* kinds already warned about, a bit each */
	struct host_ring *ring;     /* its submit ring (ring.c), or NULL */
};

_Static_assert(FERRY_FENCE_PAGE_QUEUES % 64 == 0, "queue_mask words");

/* The context's queue with the lowest id >= *id, its id in *id; NULL past the last. The paths run
 * on every completion visit the queues that exist, not all 128 slots. */
static inline struct host_queue *ctx_queue_from(const struct host_ctx *ctx, uint32_t *id)
{
	for (uint32_t w = *id / 64; w < FERRY_FENCE_PAGE_QUEUES / 64; w++) {
		uint64_t bits = ctx->queue_mask[w];
		if (w == *id / 64)
			bits &= ~0ull << (*id % 64);
		if (bits) {
			*id = w * 64 + (uint32_t)__builtin_ctzll(bits);
			return ctx->queues[*id];
		}
	}
	return NULL;
}

/* Every queue of ctx in id order; the body may free q (the next is found from the mask). */
#define ctx_for_each_queue(ctx, q) \
	for (uint32_t q##_id = 0; ((q) = ctx_queue_from((ctx), &q##_id)) != NULL; q##_id++)

struct host_wait {
	struct list link; /* host_ctx.waits, in arrival order */
	uint32_t heap_idx;
	struct ferry_host_client *client;
	struct host_ctx *ctx;
	enum ferry_msg_kind kind; /* FENCE_WAIT or BO_CPU_PREP */
	uint32_t seq;
	struct host_queue *queue;
	uint32_t seqno;
	struct host_bo *bo;
	uint32_t op;
	int64_t deadline_ns; /* CLOCK_MONOTONIC; INT64_MAX = none */
	int64_t started_ns;  /* FENCE_WAIT: when it came (its latency histogram) */
};

#endif
