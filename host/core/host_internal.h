/* The objects of libferry-host's core (host, client, context, BO, queue, held submit, wait) and
 * the functions the core's files call on each other. Not installed: embedders use ferry/host.h. */
#ifndef FERRY_HOST_INTERNAL_H
#define FERRY_HOST_INTERNAL_H

#include <stdarg.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ferry/fence_page.h>
#include <ferry/errno_text.h>
#include <ferry/host.h>
#include <ferry/wire.h>

#include "backend/msm.h"
#include "backend/v3d.h"
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

struct sim_msm_device;
struct sim_v3d_device;
struct v3dval;
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
struct pm4v_validator;
struct pm4v_stream_copy;
struct shadow_set;
struct ctx_validation;

struct ferry_host {
	struct ferry_host_config cfg;
	char gpu[32];
	struct sim_msm_device *sim;
	struct msm_dev_info dev;
	char device_name[64];
	int epfd;            /* every context's kdev poll fd */
	struct list clients; /* ferry_host_client.link */
	struct list waits;   /* host_wait.link: deferred FENCE_WAIT / BO_CPU_PREP replies */
	struct list timer_ctxs; /* host_ctx.timer_link: contexts without a kdev poll fd */
	struct ferry_host_stats stats;
	struct ferry_buf out; /* encode scratch, reused for every frame sent */
	struct fault_log *fault_log; /* reports kept for operators (fault_log.c) */
	uint32_t next_client_id;
	struct host_watchdog wd;
	struct pm4v_validator *validator; /* shared by validated contexts; made on first use */
	struct host_trace trace;
	/* V3D (v3d_core.c): family is what cfg.gpu selected; sim is NULL when sim_v3d is set. */
	uint32_t family;
	struct sim_v3d_device *sim_v3d;
	struct v3d_dev_info v3d_dev;
	/* Exclusive tenancy: the client holding the device and how many V3D contexts it has. */
	struct ferry_host_client *v3d_holder;
	uint32_t v3d_holder_ctxs;
	struct v3dval *v3dval; /* the V3D CL validator (policy of the device's version) */
	struct host_capture *capture; /* capture.c: made on first use */
	int64_t shadow_trim_ns; /* shadow_quota.c: when a shadow pool next has idle chunks to drop */
	/* Every BO in a context's table by the inode of its pages (bo_share.c), so a BO_IMPORT's
	 * lookup costs a hash probe however many BOs the clients hold. Made on first use. */
	struct host_bo **pages;
	uint32_t pages_nbuckets, pages_count;
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
	uint64_t bo_bytes;
	uint64_t shadow_bytes; /* every shadow chunk of its contexts' pools (shadow_quota.c) */
	int64_t wd_last_dump_ns; /* its last watchdog dump (INT64_MIN: none), for the rate limit */
	uint32_t nr_fds; /* held for its objects (HOST_FDS_*), the embedder's not included */
	/* A frame whose handling stopped at the validation budget (ferry_host_client_resume):
	 * its copy, and the validator holding its progress (taken from the host's, so other
	 * clients validate meanwhile) for context val_ctx. */
	void *pending;
	size_t pending_len;
	bool resuming; /* handling pending again: its frame was captured and traced already */
	struct pm4v_validator *val_pending;
	struct host_ctx *val_ctx;
	/* The fds of the frame being handled (borrowed: closed after it; none on resume). */
	const int *in_fds;
	int in_nfds;
};

struct host_ctx;

struct host_bo {
	struct host_bo *hash_next;
	struct host_ctx *ctx;
	uint32_t id, handle, flags;
	uint32_t refs; /* the table's, plus held submits' and waits' */
	uint32_t held; /* how many submits held for in-fences list it (sched.c), so a cpu_prep
			* check is O(1) instead of a walk over every held submit's BOs */
	uint64_t size, iova;
	uint64_t submit_mark; /* duplicate detection within one submit's bos[] */
	void *map;            /* validated contexts: read-only host mapping, for the BO's lifetime */
	void *v3d_map;        /* validated V3D contexts: the same, through the v3d backend */
	dev_t pages_dev;      /* the file of the BO's pages as exported (fstat): what BO_IMPORT */
	ino_t pages_ino;      /* recognises an fd by (bo_share.c) */
	struct host_bo *pages_next; /* chain of ferry_host.pages, while in a context's table */
};

struct bo_table {
	struct host_bo **buckets;
	uint32_t nbuckets, count;
};

/* One submitted seqno not yet retired. Entries that never reached the kernel (cancelled, or
 * refused when released from the scheduler) carry their final status and retire in order. */
struct pending_fence {
	uint32_t seqno;
	uint32_t flags; /* FERRY_SUBMIT_* */
	int32_t status;
	bool in_kernel;
	bool poll_error_logged; /* the kernel's fence poll failed once: said in the log, not again */
	bool external;          /* an EXTERNAL queue's seqno the guest has not signaled yet */
	uint32_t syncobj; /* v3d: the out-syncobj that gets the job's fence (in_kernel only) */
};

struct fence_timeline {
	struct pending_fence *ring;
	uint32_t cap, head, count;
	uint32_t last_submitted; /* newest accepted seqno */
	/* The host's own record of the last retired seqno: the fence page is guest-writable, so the
	 * host never reads its state back from there. */
	uint32_t signaled;
	uint32_t error_seqno;
	int32_t error;
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
	struct msm_ctx *msm; /* family MSM */
	struct v3d_ctx *v3d; /* family V3D (then msm is NULL) */
	uint32_t family;
	int poll_fd;
	struct list timer_link;
	int page_fd, event_fd;
	struct ferry_fence_page *page;
	struct bo_table bos;
	struct host_queue *queues[FERRY_FENCE_PAGE_QUEUES];
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
	/* Per-context submit scratch, reused so steady-state submits do not allocate. */
	struct msm_submit_bo_ref *refs;
	struct host_bo **bo_ptrs;
	uint32_t scratch_cap;
	char *fault_text; /* scratch for the kernel's devcoredump (HOST_FAULT_TEXT_MAX), made on first fault */
	char lost_why[320]; /* set with lost: what the GPU did, for the errors of later submits */
	struct ctx_validation *val; /* validated policy only (validation.c), else NULL */
	struct shadow_pool *v3d_pool; /* validated V3D contexts: the shadow pool (v3d_validation.c), made on first use */
	struct kdev *kd;            /* the open behind msm / v3d (owned by them): kernel trace points */
	uint64_t trace_cursor;      /* kdev trace_read position */
	bool trace_unsupported;     /* trace_read said no once: not asked again */
	uint64_t unmodeled[FERRY_UNMODELED_KINDS]; /* work the simulator did not execute (unmodeled.c) */
	uint32_t unmodeled_warned;  /* kinds already warned about, a bit each */
};

struct host_wait {
	struct list link;
	struct ferry_host_client *client;
	struct host_ctx *ctx;
	enum ferry_msg_kind kind; /* FENCE_WAIT or BO_CPU_PREP */
	uint32_t seq;
	struct host_queue *queue;
	uint32_t seqno;
	struct host_bo *bo;
	uint32_t op;
	int64_t deadline_ns; /* CLOCK_MONOTONIC; INT64_MAX = none */
};

/* log.c */
void host_log(struct ferry_host *h, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int64_t host_now_ns(void);

/* client.c */
void client_send(struct ferry_host_client *c, const struct ferry_msg *m, const int *fds, int nfds);
void client_send_status(struct ferry_host_client *c, uint32_t seq, int32_t error);
/* 0 if the client may take need more fds (max_client_fds, counting the embedder's), else
 * -EDQUOT with the reason in why. */
int client_fds_admit(struct ferry_host_client *c, uint32_t need, char *why, size_t n);
/* Counts fds the client's objects now hold (delta > 0) or no longer hold (delta < 0). */
void client_fds_add(struct ferry_host_client *c, int delta);

/* context.c */
int ctx_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int ctx_handle_destroy(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int ctx_handle_timestamp(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* external_fence.c */
int external_fence_handle(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* A closing EXTERNAL queue: its unsignaled fences fail with -ECANCELED (nothing can signal them). */
void external_fence_cancel(struct host_queue *q);
/* seqno of external queue q has signaled: retired, or signaled behind an earlier pending one.
 * Submits wait on that, so one slow foreign fence does not hold those waiting on later ones. */
bool external_fence_signaled(const struct host_queue *q, uint32_t seqno);
/* An in-fence (q, seqno) no longer holds a submit: retired, or (external) signaled. */
bool queue_fence_done(const struct host_queue *q, uint32_t seqno);
struct host_ctx *ctx_find(struct ferry_host_client *c, uint32_t id);
/* Request handlers' lookups: NULL with "context N does not exist" (or "bo / queue N does not exist
 * in context N") in why; the handler then fails with -ENOENT. */
struct host_ctx *client_lookup_ctx(struct ferry_host_client *c, uint32_t ctx_id, char *why, size_t n);
void ctx_destroy(struct host_ctx *ctx, bool client_gone);
/* Retires finished work, releases held submits, wakes the guest, answers waits, reaps queues. */
void ctx_progress(struct host_ctx *ctx);
void ctx_mark_lost(struct host_ctx *ctx);
/* Tells the guest (fence page) a context is lost: after the failing fence's slot was written. */
void ctx_publish_lost(struct host_ctx *ctx);
/* refusal.c: the validator refused seqno of q (ctx->refused was set): warns, at most once a
 * second per context. The caller completes the fence with err. */
void ctx_submit_refused(struct host_queue *q, uint32_t seqno, int err, const char *why);
void ctx_wake_guest(struct host_ctx *ctx);

/* bo_table.c */
int bo_table_init(struct bo_table *t);
/* Drops the table's reference of every BO. */
void bo_table_fini(struct bo_table *t);
/* The context a new BO (BoCreate, BoImport) goes into: it exists, and bo_id is free and not 0.
 * 0, or -ENOENT / -EINVAL / -EEXIST with why. */
int bo_new_target(struct ferry_host_client *c, uint32_t ctx_id, uint32_t bo_id, struct host_ctx **out, char *why,
		  size_t n);
struct host_bo *bo_table_find(const struct bo_table *t, uint32_t id);
int bo_table_insert(struct bo_table *t, struct host_bo *bo);
void bo_table_remove(struct bo_table *t, struct host_bo *bo);
void bo_ref(struct host_bo *bo);
void bo_unref(struct host_bo *bo);
struct host_bo *client_lookup_bo(struct ferry_host_client *c, uint32_t ctx_id, uint32_t bo_id,
			       struct host_ctx **ctx_out, char *why, size_t n);
int bo_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int bo_handle_close(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int bo_handle_info(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int bo_handle_import(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* The pages index: bo enters when it enters its context's table and leaves when it leaves it. */
int bo_pages_add(struct ferry_host *h, struct host_bo *bo);
void bo_pages_del(struct ferry_host *h, struct host_bo *bo);
void bo_pages_fini(struct ferry_host *h);
/* The client's BO quotas (count, bytes, fds) for one more BO of size bytes: 0 or -EDQUOT. */
int bo_quota_admit(struct ferry_host_client *c, uint64_t size, char *why, size_t n);
/* A new BO with its kernel handle, iova, id, size and flags set: exported, host-mapped, put in
 * ctx's table and answered with BO_CREATED (+ its fd) to seq. Frees bo on failure. */
int bo_install(struct ferry_host_client *c, struct host_ctx *ctx, struct host_bo *bo, uint32_t seq, char *why,
	       size_t n);

/* queue.c */
int queue_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int queue_handle_close(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
struct host_queue *queue_find(struct host_ctx *ctx, uint32_t id);
/* closing_ok: a queue the guest closed whose work is still in flight counts as existing. */
struct host_queue *client_lookup_queue(struct ferry_host_client *c, uint32_t ctx_id, uint32_t queue_id,
				       bool closing_ok, struct host_ctx **ctx_out, char *why, size_t n);
/* Polls the kernel for the queue's finished seqnos, in order. Returns true if any retired. */
bool queue_retire(struct host_queue *q);
/* q has work the host has not retired: on its timeline, or held for in-fences. */
bool queue_pending(const struct host_queue *q);
/* Frees a queue whose work has drained (or whose context is going away). */
void queue_free(struct host_queue *q);

/* fence_timeline.c */
void timeline_fini(struct fence_timeline *tl);
int timeline_push(struct fence_timeline *tl, uint32_t seqno, uint32_t flags, int32_t status, bool in_kernel);
struct pending_fence *timeline_head(struct fence_timeline *tl);
void timeline_pop(struct fence_timeline *tl);
/* Publishes a retired seqno: fence page slot, FENCE_SIGNALED event when asked for or failed. */
void timeline_signal(struct host_queue *q, uint32_t seqno, uint32_t flags, int32_t status);
bool timeline_passed(const struct fence_timeline *tl, uint32_t seqno);
/* seqno was submitted on this timeline (wrap-aware, judged like timeline_passed: a seqno
 * 2^31 ahead counts as not submitted, so it is refused rather than waited on forever). */
bool timeline_submitted(const struct fence_timeline *tl, uint32_t seqno);
/* A new submit's seqno: non-zero, after the last one, and less than 2^31 past the oldest
 * unretired one. 0 or -EINVAL with why. */
int timeline_check_new(const struct fence_timeline *tl, uint32_t seqno, char *why, size_t n);
/* Grows the context's per-submit scratch (kernel BO refs and host BO pointers, one capacity) to
 * at least nr entries; shared by the msm and V3D submit paths. */
int ctx_reserve_scratch(struct host_ctx *ctx, uint32_t nr);

/* sched.c */
int sched_handle_submit(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* Sends held submits whose in-fences have signaled. Returns true if any left the scheduler. */
bool sched_release(struct host_ctx *ctx);
/* Retires every held submit of the context with status (in order, through the timelines). */
void sched_cancel(struct host_ctx *ctx, int32_t status);
/* Frees held submits without signaling (context teardown). */
void sched_free_queue(struct host_queue *q);
/* A queue is going away: held submits elsewhere stop waiting on it (its work all retired). */
void sched_forget_queue(struct host_queue *q);
bool sched_bo_held(struct host_ctx *ctx, const struct host_bo *bo);

/* validation.c: the validated policy (sorted BO table with host mappings, shadow pool). */
int validation_ctx_init(struct host_ctx *ctx);
void validation_ctx_fini(struct host_ctx *ctx);
void validation_host_fini(struct ferry_host *h);
/* Forgets the client's stopped validation, if any (its shadows go back to the pool). */
void validation_cancel(struct ferry_host_client *c);
/* BO create / close of a validated context (no-ops otherwise): map + insert, remove. */
int validation_bo_added(struct host_ctx *ctx, struct host_bo *bo);
void validation_bo_removed(struct host_ctx *ctx, struct host_bo *bo);
void validation_bo_unmap(struct host_bo *bo);
/* Validates and copies a submit whose envelope passed (bos[] resolved). 0 and *set (to queue
 * or release), or a negative errno with the validator's message in why. */
int validation_submit(struct host_ctx *ctx, const struct ferry_msm_submit *s, struct host_bo *const *bos,
		      struct shadow_set **set, char *why, size_t n);
/* The guest stream an in-flight shadow address of a validated context copies, or NULL. */
const struct pm4v_stream_copy *validation_guest_stream(const struct host_ctx *ctx, uint64_t shadow_iova);
/* After msm_submit_prepare: the kernel runs the set's shadows instead of the guest's cmds. */
int validation_use_shadows(struct host_ctx *ctx, const struct shadow_set *set);
/* The set's submit took seqno on queue / never reached the kernel. */
void validation_queue(struct host_ctx *ctx, struct shadow_set *set, uint32_t queue, uint32_t seqno);
void validation_release(struct host_ctx *ctx, struct shadow_set *set);
/* Seqno retired on queue; the queue went away. */
void validation_retired(struct host_ctx *ctx, uint32_t queue, uint32_t seqno);
void validation_queue_gone(struct host_ctx *ctx, uint32_t queue);

/* shadow_quota.c: the shadow pools' charge hook (shadow bytes and host fds against the client's
 * quotas) and idle trimming for ctx, and the host-wide trim pass ferry_host_dispatch runs when it
 * is due. */
struct shadow_pool_config;
void shadow_quota_setup(struct host_ctx *ctx, struct shadow_pool_config *cfg);
void shadow_trim_check(struct ferry_host *h, int64_t now_ns);
struct shadow_pool *validation_shadow_pool(const struct host_ctx *ctx);

/* wait.c */
int wait_handle_fence(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int wait_handle_cpu_prep(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
void wait_check_ctx(struct host_ctx *ctx);
void wait_expire(struct ferry_host *h, int64_t now_ns);
/* Ends every wait on ctx: answered with status when reply, else dropped silently. */
void wait_drop_ctx(struct host_ctx *ctx, bool reply, int32_t status);
/* A queue is going away: waits on it are answered (its work all retired). */
void wait_queue_gone(struct host_queue *q);
int64_t wait_next_deadline(const struct ferry_host *h);

/* fault_log.c: a fault or hang of seqno on q — report to the guest (FAULT_REPORT) and the log,
 * keep it for operators, mark the context lost. Returns the fence status (-ETIMEDOUT for a
 * hang, else -EIO). */
int32_t fault_log_report(struct host_queue *q, uint32_t seqno);
/* fault_guest_addr.c: validated contexts' reports name the guest's stream, not the shadow. */
struct fault_guest_addr {
	uint64_t iova;      /* guest GPU address */
	uint32_t bo_id;
	uint64_t bo_offset; /* bytes */
	bool draw_state;
};
/* The guest address a shadow address of one of ctx's in-flight submits copies. */
bool fault_guest_address(const struct host_ctx *ctx, uint64_t shadow_iova, struct fault_guest_addr *out);
/* Validated contexts: malloc'd lines for the report header (the crash location as
 * "guest: IB1 0x... (bo N +0x...)", the dump's last-packets with guest addresses, and a note that
 * the dump's own addresses are shadows). NULL for other contexts or on ENOMEM. */
char *fault_guest_lines(const struct host_ctx *ctx, const struct msm_fault *f, const char *kernel_text);
/* The message for requests on a lost context ("context N lost after a GPU hang at ..."). */
const char *ctx_lost_reason(const struct host_ctx *ctx);
void fault_log_free(struct ferry_host *h);

/* v3d_core.c: the V3D family in the core (device, tenancy, submits, retire, faults). */
struct v3d_job_desc {
	uint32_t kind; /* FERRY_QUEUE_KIND_V3D_CL / TFU / CSD */
	union {
		struct v3d_cl_job cl;
		struct v3d_tfu_job tfu;
		struct v3d_csd_job csd;
	} u;
};
bool v3d_gpu_name(const char *gpu);
int v3d_host_init(struct ferry_host *h);
void v3d_host_fini(struct ferry_host *h);
/* Tenancy: may c create a V3D context (0, or -EBUSY with why); a V3D context came / went. */
int v3d_tenancy_admit(struct ferry_host_client *c, char *why, size_t n);
void v3d_tenancy_added(struct host_ctx *ctx);
void v3d_tenancy_removed(struct host_ctx *ctx);
int v3d_handle_submit_cl(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int v3d_handle_submit_tfu(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int v3d_handle_submit_csd(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* Validates (validated contexts: CLs into shadow copies) and sends a job, seqno of queue_id, to
 * the kernel; *sync gets its out-syncobj. A rejection is -EINVAL with the validator's message in
 * why. The job's shadows go back to the context's pool when v3d_fence_retire retires seqno. */
int v3d_job_flush(struct host_ctx *ctx, uint32_t queue_id, uint32_t seqno, const struct v3d_job_desc *job,
		  struct host_bo *const *bos, uint32_t nr_bos, uint32_t *sync, char *why, size_t n);
/* v3d_job_flush in two steps, for jobs held between them: validation (validated contexts; *run
 * then names the shadows in *set, else *run = *job and *set = NULL), and the kernel submit. A
 * set_queued set was queued for its seqno already and is left to retire with it. */
int v3d_job_prepare(struct host_ctx *ctx, const struct v3d_job_desc *job, struct host_bo *const *bos,
		    uint32_t nr_bos, struct v3d_job_desc *run, struct shadow_set **set, char *why, size_t n);
int v3d_job_run(struct host_ctx *ctx, uint32_t queue_id, uint32_t seqno, const struct v3d_job_desc *job,
		struct shadow_set *set, bool set_queued, struct host_bo *const *bos, uint32_t nr_bos, uint32_t *sync,
		char *why, size_t n);
/* v3d_validation.c. BO create / last unref of a V3D context: the validator's read-only host
 * mapping (validated contexts). */
int v3d_bo_added(struct host_ctx *ctx, struct host_bo *bo);
void v3d_bo_unmap_host(struct host_bo *bo);
/* Validates *job against the listed BOs; CLs are copied into shadows of the context's pool (job's
 * list addresses then name them). 0 and *set (its handles[] the shadow BOs; to queue or release),
 * or -EINVAL (-ENOMEM) with the validator's message in why. */
int v3d_validate_job(struct host_ctx *ctx, struct v3d_job_desc *job, struct host_bo *const *bos, uint32_t nr_bos,
		     struct shadow_set **set, char *why, size_t n);
/* The set's job took seqno on queue / never reached the kernel. */
void v3d_shadows_queue(struct host_ctx *ctx, struct shadow_set *set, uint32_t queue, uint32_t seqno);
void v3d_shadows_release(struct host_ctx *ctx, struct shadow_set *set);
/* Seqno retired on queue (its shadows are recycled); the queue went away; the context goes
 * (before its open). */
void v3d_shadows_retired(struct host_ctx *ctx, uint32_t queue, uint32_t seqno);
void v3d_shadows_queue_gone(struct host_ctx *ctx, uint32_t queue);
void v3d_shadows_fini(struct host_ctx *ctx);
/* A retiring fence of q: 0 done (status set: 0 or the fault's), -EBUSY not yet, or the
 * kernel's poll error (then nothing was freed). */
int v3d_fence_retire(struct host_queue *q, const struct pending_fence *f, int32_t *status);
/* sched.c: keeps a V3D job, validated (its shadows in set, NULL for passthrough), until its
 * in-fences (other queues of ctx) signal. */
int sched_hold_v3d(struct host_queue *q, uint32_t seqno, uint32_t flags, const struct v3d_job_desc *job,
		   struct shadow_set *set, struct host_bo *const *bos, uint32_t nr_bos, const struct ferry_fence_ref *in,
		   uint32_t nr_in);
/* fence_timeline.c: the syncobj of the entry pushed last. */
void timeline_set_last_syncobj(struct fence_timeline *tl, uint32_t syncobj);
/* fault_log.c, for other families' reports: the next report number (0 without a log), and
 * keeping a composed report for operators (takes text; freed when not kept). */
uint64_t fault_log_next_number(struct ferry_host *h);
/* Every family's report goes out the same way: written to cfg.crash_dir as
 * ferry-report-<pid>-<number>.txt (path gets its name, "" when not written), and logged in
 * full at info level, one line per message. */
void fault_log_write_crash_file(struct ferry_host *h, uint64_t number, const char *text, char *path, size_t len);
void fault_log_full(struct ferry_host *h, uint64_t number, const char *text);
void fault_log_keep_text(struct ferry_host *h, uint64_t number, char *text);

/* sched.c, for sync-state dumps: the first max held submits of q, oldest first, with the
 * in-fences they still wait for; returns how many q holds. */
struct sched_held_view {
	uint32_t seqno;
	uint32_t nr_in;
	const struct host_queue *in_q[FERRY_MAX_SUBMIT_IN_FENCES];
	uint32_t in_seqno[FERRY_MAX_SUBMIT_IN_FENCES];
};
uint32_t sched_visit_held(const struct host_queue *q, uint32_t max,
			  void (*fn)(void *arg, const struct sched_held_view *v), void *arg);

/* sync_state.c: the sync-state dump (format in host/debug/sync_dump.h) of one context, or of
 * every context when ctx is NULL. malloc'd text ("" when nothing is pending), NULL on ENOMEM. */
char *sync_state_text(struct ferry_host *h, struct host_ctx *ctx);

/* trace_host.c: one host event into the ring (tracing on); kernel events of ctx into the ring. */
void trace_note(struct ferry_host *h, uint32_t client, uint32_t ctx, uint32_t queue, uint32_t kind, uint32_t seqno,
		int32_t status);
void trace_pull_kernel(struct host_ctx *ctx);
void trace_host_fini(struct ferry_host *h);
/* The hook the submit path calls: one predictable branch while tracing is off. */
static inline void trace_queue_event(struct host_queue *q, uint32_t kind, uint32_t seqno, int32_t status)
{
	struct ferry_host *h = q->ctx->client->host;
	if (h->trace.on)
		trace_note(h, q->ctx->client->id, q->ctx->id, q->id, kind, seqno, status);
}

/* unmodeled.c: the simulator's reports of work it did not execute, counted per context and kind
 * and warned about once per context and kind. Attached when the context's open is made. */
void ctx_unmodeled_attach(struct host_ctx *ctx);

/* capture.c: the operator's submit capture and the captures attached to fault reports. The
 * frame being handled (client.c notes it) is what a capture records as the guest sent it. */
void capture_note_frame(struct ferry_host *h, const void *payload, size_t len);
/* An msm submit accepted (bos resolved, before it reaches the kernel): captured when a capture
 * matches; remembered for a fault's capture when a crash dir is set. */
void capture_submit(struct host_queue *q, const struct ferry_msm_submit *s, struct host_bo *const *bos);
/* A V3D submit (CL, TFU or CSD) about to reach the validator and the kernel: captured (session
 * format, every listed BO snapshotted) when a capture matches. */
void capture_submit_v3d(struct host_queue *q, uint32_t seqno, struct host_bo *const *bos, uint32_t nr_bos);
/* For a fault report of seqno on q: writes the submit's capture next to report number and
 * returns guest_lines (ownership taken) with a "capture: <path>" line appended. */
char *capture_fault_lines(struct host_queue *q, uint32_t seqno, uint64_t number, char *guest_lines);
void capture_host_fini(struct ferry_host *h);

/* watchdog.c */
void watchdog_init(struct ferry_host *h);
/* Writes what is queued and stops the dump writer (before anything else is torn down). */
void watchdog_fini(struct ferry_host *h);
/* Times every queue's oldest pending fence; logs the context's sync-state dump once per fence
 * overdue by the timeout. Cheap when called before its next check is due. */
void watchdog_check(struct ferry_host *h, int64_t now_ns);
/* When watchdog_check next has something to do (CLOCK_MONOTONIC ns), INT64_MAX if never. */
int64_t watchdog_next_ns(const struct ferry_host *h);
/* One queue's step: pending = it has unretired work, signaled = its last signaled seqno.
 * Returns true when the fence it times just became overdue (once per fence). */
bool watchdog_track_step(struct watchdog_track *t, bool pending, uint32_t signaled, int64_t now_ns,
			 int64_t timeout_ns);

#endif
