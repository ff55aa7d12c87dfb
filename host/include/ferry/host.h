/* libferry-host: the host renderer as a library. It knows nothing about sockets or event loops:
 * an embedder (ferryd, the VMM glue) feeds it each client's frames and fds and gets replies,
 * events and wakeup needs back through callbacks and an fd to poll. */
#ifndef FERRY_HOST_H
#define FERRY_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ferry_host;
struct ferry_host_client;

enum ferry_log_level {
	FERRY_LOG_ERROR = 0,
	FERRY_LOG_WARN = 1,
	FERRY_LOG_INFO = 2,
	FERRY_LOG_DEBUG = 3,
};

struct ferry_host_config {
	/* Which GPU: "a630", "a660" (simulated msm), "v3d-4.2", "v3d-7.1" (simulated V3D). NULL = "a630". A later "/dev/dri/renderD128"
	 * selects a real render node. */
	const char *gpu;
	bool allow_passthrough; /* may a client ask for FERRY_POLICY_PASSTHROUGH */
	/* Log sink; NULL logs to stderr. level is enum ferry_log_level. It is also called from the
	 * host's dump-writer thread (the watchdog's sync-state dumps), concurrently with the
	 * embedder's own calls into the host: it must be thread-safe. */
	void (*log)(void *cookie, int level, const char *msg);
	void *log_cookie;
	int log_level; /* messages above this are dropped */
	/* Hangs and faults (0 = the default). hangcheck_ms: a submit making no progress this long
	 * is a hang (default 500). fence_timeout_ms: the fence-signal watchdog logs the sync-state
	 * dump of a context whose fence is this overdue (default 3000; < 0 = off).
	 * max_fault_reports: reports kept in memory (default 16). crash_dir: if set, each report
	 * is also written there as a file (mode 0600). */
	unsigned hangcheck_ms;
	int fence_timeout_ms;
	/* The watchdog's dumps are bounded, whatever a guest holds (0 = the default): at most
	 * fence_dump_max_kib KiB of dump lines each (default 64; a last line says what was left
	 * out), at most one per client per fence_dump_interval_ms (default 10000) and one per
	 * fence_dump_host_interval_ms host-wide (default 1000). They are written by a thread of the
	 * host, not by the caller of ferry_host_dispatch. */
	unsigned fence_dump_max_kib;
	unsigned fence_dump_interval_ms;
	unsigned fence_dump_host_interval_ms;
	unsigned max_fault_reports;
	const char *crash_dir;
	/* V3D ("v3d-4.2", "v3d-7.1"): false = exclusive tenancy (one client holds the device while it
	 * has V3D contexts; others are refused with -EBUSY), true = shared (trusted tenants only:
	 * V3D has one global address space, see docs/security.md). */
	bool v3d_shared_tenancy;
	/* Per-client quotas (0 = the default), so one client cannot exhaust the host's memory or fds;
	 * a request over one is refused with -EDQUOT before any kernel call. max_client_contexts
	 * (default 16); max_client_bos: BOs across all the client's contexts (default 16384);
	 * max_client_bo_mib: their total size in MiB (default 4096). */
	unsigned max_client_contexts;
	unsigned max_client_bos;
	unsigned max_client_bo_mib;
	/* The host memory a client's shadow copies (validated command streams, in flight plus
	 * recycled, over all its contexts) may hold: max_client_shadow_mib MiB (default 64) plus
	 * max_client_shadow_ratio (default 2) times the bytes of its BOs. A submit that would need
	 * more is refused with -EDQUOT once the client's idle shadows were given back. */
	unsigned max_client_shadow_mib;
	unsigned max_client_shadow_ratio;
	/* The most fds the host may hold for one client (0 = the default, 4096): each context's
	 * device open and eventfd, on the simulator one per BO and per shadow BO, an fd in flight
	 * while a reply carries it, plus what the embedder reports through ops.held_fds (its
	 * socket, replies queued with their fds). A request that would need more is refused with
	 * -EDQUOT before any kernel call; a submit needing a new shadow BO too. */
	unsigned max_client_fds;
	/* Validation budget: the PM4 dwords one call of ferry_host_client_handle / _resume walks
	 * for a submit before it stops and returns FERRY_HOST_IN_PROGRESS, so that an embedder
	 * serving many clients from one thread can serve the others in between. 0 = validate each
	 * submit whole in one call (an embedder that never calls ferry_host_client_resume). */
	uint32_t validate_slice_dwords;
	/* Simulated GPUs only: work the simulator does not execute (draws, dispatches, copy engine
	 * variants and packets it skips; docs/debugging.md) fails its job as a GPU error, so
	 * nothing passes on skipped work (ferryd --sim-strict). Without it such work is counted
	 * (ferry_host_stats.unmodeled, per context in ferry_host_visit_contexts) and warned about
	 * once per context and kind. */
	bool sim_strict;
	/* Submit rings (docs/protocol.md "Submit rings"): true = FERRY_FEATURE_SUBMIT_RING is not
	 * offered and RingCreate is refused (ferryd --no-submit-ring). */
	bool no_submit_ring;
	/* The time one ferry_host_dispatch spends taking submit-ring records before it retires
	 * what finished meanwhile (0 = the default, 1000 us): a context with nothing in flight
	 * whose ring woke goes first, so its submit+wait costs about two passes however many
	 * other rings are busy; rings not reached go first next time. */
	uint32_t dispatch_pass_us;
};

/* What the host says to one client. frame is one whole encoded frame (ferry_wire_encode);
 * fds are lent for the call: the callee dups what it keeps. Returning non-zero means the client
 * cannot take more (it is then treated as gone: the embedder should disconnect it). */
struct ferry_host_client_ops {
	int (*send)(void *cookie, const void *frame, size_t len, const int *fds, int nfds);
	/* Optional: how many fds the embedder holds for this client now (its connection, fds of
	 * replies it queued); counted against max_client_fds. */
	unsigned (*held_fds)(void *cookie);
	/* Optional: the host left the client with a frame in progress outside a call of
	 * ferry_host_client_handle / _resume (a submit-ring record taken in ferry_host_dispatch
	 * stopped at the validation budget). The embedder then calls ferry_host_client_resume as if
	 * handle had returned FERRY_HOST_IN_PROGRESS. Without it such records are handled whole. */
	void (*busy)(void *cookie);
};

int ferry_host_create(const struct ferry_host_config *cfg, struct ferry_host **out);
/* Frees everything, including clients not yet freed. */
void ferry_host_destroy(struct ferry_host *host);

/* An fd the embedder polls for readability; when readable call ferry_host_dispatch(). */
int ferry_host_poll_fd(const struct ferry_host *host);
/* Retires completed work, signals fences, answers waits whose condition or deadline passed. */
void ferry_host_dispatch(struct ferry_host *host);
/* Milliseconds until the earliest pending deadline (a fence wait / cpu_prep timeout), or -1. */
int ferry_host_next_timeout_ms(const struct ferry_host *host);

/* Human-readable name of the device served, e.g. "sim a630". */
const char *ferry_host_device_name(const struct ferry_host *host);

struct ferry_host_client *ferry_host_client_new(struct ferry_host *host,
						const struct ferry_host_client_ops *ops, void *cookie,
						const char *peer_name);
/* Frees every context, queue and BO of the client; pending GPU work is waited out or
 * cancelled, never leaked. */
void ferry_host_client_free(struct ferry_host_client *client);

/* Handles one frame payload (after the length prefix; 8-byte aligned). Takes ownership of fds
 * (closes any it does not keep). Returns 0 when handled (errors went back to the client as
 * FERRY_MSG_ERROR replies), FERRY_HOST_IN_PROGRESS (below), or a negative errno when the client
 * broke the protocol so badly it must be disconnected (ferry_host_client_free it). */
int ferry_host_client_handle(struct ferry_host_client *client, const void *payload, size_t len,
			     int *fds, int nfds);

/* Returned by ferry_host_client_handle and ferry_host_client_resume when the frame's work (a
 * submit's validation, with ferry_host_config.validate_slice_dwords set) stopped at its budget.
 * The host kept what it needs of the frame. The embedder calls ferry_host_client_resume later
 * (e.g. once per pass of its loop, after serving other clients) until it returns 0 or an
 * error, as ferry_host_client_handle would have; meanwhile it hands this client no frame (its
 * requests are answered in order). */
#define FERRY_HOST_IN_PROGRESS 1
int ferry_host_client_resume(struct ferry_host_client *client);
/* Whether the client has a frame in progress. */
bool ferry_host_client_busy(const struct ferry_host_client *client);

/* --- Submit rings (docs/protocol.md "Submit rings") ---
 * On a socket the host makes a context's ring itself (RingCreate). An embedder whose guest
 * shares memory another way (the VM glue: a guest-backed resource) attaches it here. */

/* Makes mem (len bytes: FERRY_RING_HDR_SIZE + a data size ferry_ring_size_ok accepts) the ring
 * of context ctx_id. The host initializes the header (the guest's producer then inits with
 * init = false). The embedder keeps mem mapped until ring_detach or the context's destruction
 * (ferry_host_client_free, a ContextDestroy). *sock_seq: the client's count of frames handled so
 * far, the base the guest's records count from (RingCreated.sock_seq). There is no doorbell fd:
 * the embedder calls ferry_host_client_ring_kick when the guest rings. 0, -ENOENT (no such
 * context), -EEXIST (it has a ring), -EINVAL (bad size or memory), -EOPNOTSUPP (rings off). */
int ferry_host_client_ring_attach(struct ferry_host_client *client, uint32_t ctx_id, void *mem, size_t len,
				  uint32_t *sock_seq);
/* The guest rang the doorbell of ctx_id's ring: the next ferry_host_dispatch drains it. */
void ferry_host_client_ring_kick(struct ferry_host_client *client, uint32_t ctx_id);
/* Stops reading ctx_id's ring; the host no longer touches its memory. */
void ferry_host_client_ring_detach(struct ferry_host_client *client, uint32_t ctx_id);
/* For an embedder spinning before it sleeps (ferryd --ring-spin-us): true when some ring has
 * records the host has not taken; they are drained by the next ferry_host_dispatch (whose
 * next_timeout is then 0). Cheap: two loads per ring. */
bool ferry_host_rings_poll(struct ferry_host *host);
struct ferry_host_ring_stats {
	uint64_t records;   /* frames taken from the ring */
	uint64_t doorbells; /* doorbell rings (eventfd reads or kicks) */
	uint64_t arms;      /* times the host asked for a doorbell before sleeping */
	uint64_t drains;    /* passes that looked at the ring */
	int32_t error;      /* 0, or the negative errno that broke the ring */
};
/* ctx_id's ring counters: 0, or -ENOENT when the context has no ring. */
int ferry_host_client_ring_stats(const struct ferry_host_client *client, uint32_t ctx_id,
				 struct ferry_host_ring_stats *out);

/* Kinds of work the simulated GPU does not execute: draw, dispatch, engine (copy / fill
 * variants), packet, state (state-only packets: counted, never failed by sim_strict). */
#define FERRY_UNMODELED_KINDS 5u
/* "draw", "dispatch", "engine", "packet", "state"; NULL past the end. */
const char *ferry_host_unmodeled_kind_name(unsigned kind);

/* Counters for tests and `ferry status`. */
struct ferry_host_stats {
	uint32_t clients;
	uint32_t contexts;
	uint32_t queues;
	uint32_t bos;
	uint64_t bo_bytes;
	uint64_t submits;
	uint64_t faults;
	uint64_t bad_messages;
	/* Validated policy: submits refused by the PM4 validator; shadow-copy BOs created (ever:
	 * flat in steady state, as the pool recycles them) and the bytes they hold now. */
	uint64_t validation_rejects;
	uint64_t shadow_bos_created;
	uint64_t shadow_bytes;
	/* Submits refused because the client's shadow quota was spent. */
	uint64_t shadow_quota_refusals;
	/* Fence-signal watchdog: dumps written, and overdue fences not dumped (rate limits). */
	uint64_t watchdog_dumps;
	uint64_t watchdog_dumps_suppressed;
	/* fds the host holds for all its clients, as max_client_fds counts them (the embedder's
	 * own not included). */
	uint64_t client_fds;
	/* Times a submit's validation stopped at the budget to let others be served. */
	uint64_t validation_pauses;
	/* Work the simulated GPU did not execute, by kind (FERRY_UNMODELED_KINDS), every context
	 * ever; ferry_host_visit_contexts gives each live context's share. */
	uint64_t unmodeled[FERRY_UNMODELED_KINDS];
	/* Of faults: those that were hangs (the rest are page faults, CP errors and the like). */
	uint64_t hangs;
	/* Seqnos of the GPU queues (not EXTERNAL ones) that signaled, with an error or not. */
	uint64_t fences_signaled;
	/* Submit rings: live ones; frames taken from all rings ever, doorbells, arms, broken rings. */
	uint32_t rings;
	uint64_t ring_records;
	uint64_t ring_doorbells;
	uint64_t ring_arms;
	uint64_t rings_broken;
};
void ferry_host_get_stats(const struct ferry_host *host, struct ferry_host_stats *out);

/* Latency histograms (ferryd's metrics endpoint): fixed buckets, upper bounds in ns, the last
 * one unbounded. SUBMIT: from a submit's acceptance to its fence signaling, for submits that
 * reached the GPU. FENCE_WAIT: from a FENCE_WAIT request to its reply (0 when answered at once). */
enum ferry_host_latency_kind { FERRY_HOST_LATENCY_SUBMIT = 0, FERRY_HOST_LATENCY_FENCE_WAIT = 1 };
#define FERRY_HOST_LATENCY_KINDS 2u
#define FERRY_HOST_LATENCY_BUCKETS 18u /* 17 bounds, 50 us .. 10 s, and +Inf */
struct ferry_host_latency {
	uint64_t le_ns[FERRY_HOST_LATENCY_BUCKETS];  /* upper bounds; the last is UINT64_MAX */
	uint64_t count[FERRY_HOST_LATENCY_BUCKETS];  /* observations in each bucket (not cumulative) */
	uint64_t total;                              /* observations */
	uint64_t sum_ns;
};
/* Copies histogram kind into *out; -EINVAL for an unknown kind. */
int ferry_host_get_latency(const struct ferry_host *host, unsigned kind, struct ferry_host_latency *out);

/* One live context's counters (`ferry status`). */
struct ferry_host_ctx_stats {
	uint32_t client;        /* the client's id (as in sync-state dumps: GPU-<client>-<ctx>-<queue>) */
	uint32_t ctx;           /* the client's context id */
	uint32_t family;        /* FERRY_FAMILY_* */
	bool lost;
	uint64_t unmodeled[FERRY_UNMODELED_KINDS];
};
/* Calls fn for every live context, clients in creation order. */
void ferry_host_visit_contexts(const struct ferry_host *host,
			       void (*fn)(void *arg, const struct ferry_host_ctx_stats *s), void *arg);

/* --- Operator diagnostics (docs/debugging.md) --- */

/* The sync-state dump: one line per pending operation of every queue of every context, in the
 * format of docs/debugging.md. *text is malloc'd (the caller frees it; "" when nothing is
 * pending). Returns 0 or -ENOMEM. */
int ferry_host_sync_dump(struct ferry_host *host, char **text);
/* The fence-signal watchdog's timeout: ms > 0 sets it (and turns the watchdog on), 0 turns it
 * off. */
void ferry_host_set_fence_timeout(struct ferry_host *host, unsigned ms);
/* The current timeout in ms, 0 when the watchdog is off. */
unsigned ferry_host_fence_timeout(const struct ferry_host *host);
/* Waits until the watchdog's dumps queued so far were handed to the log sink. */
void ferry_host_flush_log(struct ferry_host *host);
/* Fault/hang reports kept in memory, oldest first: how many, and one by index (NULL past the
 * end). *number gets the report's running number (as in the log); the text stays owned by the
 * host until the report is dropped for a newer one. */
unsigned ferry_host_nr_fault_reports(const struct ferry_host *host);
const char *ferry_host_fault_report(const struct ferry_host *host, unsigned index, uint64_t *number);

/* Trace (docs/debugging.md): per-queue host events (submit, validated, held, released, kernel
 * submit, retire, fault) and the kernel's GPU job start / end, in a ring of the newest 64 Ki
 * events. Off until enabled; enable returns 0 or -ENOMEM (the ring, made once). Stopping keeps
 * the events; clear drops them. */
int ferry_host_trace_enable(struct ferry_host *host, bool on);
bool ferry_host_trace_enabled(const struct ferry_host *host);
void ferry_host_trace_clear(struct ferry_host *host);
/* Events kept, and events overwritten since the last clear. */
void ferry_host_trace_counts(const struct ferry_host *host, uint64_t *events, uint64_t *dropped);
/* The events as Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev). *json is malloc'd
 * (the caller frees it), NUL-terminated, *len bytes. Returns 0 or -ENOMEM. */
int ferry_host_trace_json(struct ferry_host *host, char **json, size_t *len);

/* Capture (docs/debugging.md, "Capture and replay"): the operator's switch, never a guest's.
 * While active, each msm submit of the matching client/context is written to dir as a freedreno
 * .rd file and/or a ferry session file (mode 0600: guest memory), until count submits were
 * captured (-1: until stopped). */
#define FERRY_CAPTURE_RD      (1u << 0)
#define FERRY_CAPTURE_SESSION (1u << 1)
struct ferry_host_capture_params {
	uint32_t client;  /* client id as in sync dumps / `status` (0 = every client) */
	uint32_t context; /* context id (0 = every context) */
	int64_t count;    /* submits to capture, > 0, or -1 for no limit */
	bool full;        /* every BO a submit lists, not only its command buffers */
	bool combined;    /* one file per context rather than one per submit */
	bool gzip;        /* .rd written gzip-compressed (per-submit files only) */
	unsigned formats; /* FERRY_CAPTURE_RD | FERRY_CAPTURE_SESSION; 0 = both */
	const char *dir;  /* created (mode 0700) when missing */
};
/* 0, or a negative errno with the reason in why (bad parameters, dir not usable, ENOMEM). */
int ferry_host_capture_start(struct ferry_host *host, const struct ferry_host_capture_params *p, char *why,
			     size_t why_len);
/* Returns true if a capture was active. */
bool ferry_host_capture_stop(struct ferry_host *host);
/* "key: value" lines (state, filters, counters, last file, last error); malloc'd, NULL on ENOMEM. */
char *ferry_host_capture_status(struct ferry_host *host);

#ifdef __cplusplus
}
#endif

#endif
