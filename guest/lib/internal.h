/* libferry's private structures, shared by device/pump/context/bo/queue/submit/fence. One mutex
 * per device (dev->lock) guards all of them; one thread at a time (the "reader") waits on the
 * socket and the eventfds, others sleep on dev->cond until the reader broadcasts. */
#ifndef FERRY_GUEST_INTERNAL_H
#define FERRY_GUEST_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ferry/fence_page.h"
#include "ferry/submit_ring.h"
#include "ferry/ferry.h"
#include "transport.h"

#define FERRY_ERRMSG_LEN 256

/* A request whose reply someone will (or may) wait for, keyed by seq. */
struct ferry_pending {
	struct ferry_pending *next;
	uint32_t seq;
	enum ferry_msg_kind request;
	bool done;
	bool abandoned; /* the waiter went away: free it when the reply arrives */
	/* The reply, copied out of the frame. */
	enum ferry_msg_kind kind;
	struct ferry_msg msg;
	char *text; /* owned copy of the reply's string (server name, device name, error) */
	struct ferry_param *params;
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds;
};

/* An asynchronous request (no reply unless it failed), remembered so an ERROR can be tied back
 * to its context and, for submits, to its fence. */
struct ferry_async_req {
	uint32_t seq;
	enum ferry_msg_kind kind;
	uint32_t ctx_id;
	uint32_t queue_id;
	uint32_t seqno;
};
#define FERRY_ASYNC_RING 1024u

/* Errors of individual fences (from FENCE_SIGNALED events and rejected submits). */
struct ferry_fence_error {
	uint32_t seqno;
	int32_t error;
	bool refused; /* the host refused the submit (ERROR reply), else the fence failed */
};
#define FERRY_FENCE_ERRORS 64u

struct ferry_device {
	struct ferry_transport *transport;
	pthread_mutex_t lock;
	pthread_cond_t cond;     /* broadcast whenever the reader handled something */
	pthread_mutex_t send_lock; /* one frame at a time on the socket; also orders seqnos */
	struct ferry_buf send_buf;
	/* Frames sent on the socket (RingCreate not counted), under send_lock: the ring records'
	 * sock_seq (docs/protocol.md "Submit rings"). */
	uint32_t sock_frames;
	bool reader_active;
	int wake_fd; /* eventfd: pokes the reader */
	int epfd;    /* the reader's epoll set (pump.c) */
	int64_t wait_spin_ns;       /* fence waits look this long before sleeping (fence.c) */
	_Atomic uint32_t spin_skip;    /* waits left that sleep at once, after a spin in vain */
	_Atomic uint32_t spin_backoff; /* spin_skip after the next spin in vain, 0 after a hit */
	_Atomic uint64_t wait_spins, wait_spin_hits; /* ferry_device_wait_stats */
	int dead;    /* 0, or the negative errno that broke the connection */
	_Atomic uint32_t next_seq;
	uint32_t next_ctx_id;

	struct ferry_pending *pending;
	struct ferry_async_req async[FERRY_ASYNC_RING];
	uint32_t async_head;

	struct ferry_context *contexts;

	char server[128];
	uint64_t server_features;
	bool have_info;
	uint32_t family;
	char *name;
	struct ferry_param *params;
	uint32_t nr_params;

	char last_error[FERRY_ERRMSG_LEN];

	struct ferry_capture *capture; /* FERRY_CAPTURE / FERRY_CAPTURE_DIR, else NULL (capture.c) */
	/* An ERROR about no request (seq 0, request kind NONE): ferryd refusing the connection. */
	char refusal[FERRY_ERRMSG_LEN];
	bool bo_stash; /* BoCreateBatch and the stash are used (bo.c: ferry_bo_stash_setup) */
};

/* BOs of one BoCreateBatch: its reply (fds, iovas) is shared out when the first of them waits. */
struct ferry_bo_batch {
	struct ferry_pending *reply;
	struct ferry_bo *bos[FERRY_MAX_BO_BATCH]; /* NULL: freed before the reply was shared out */
	uint32_t first_id;
	uint32_t count;
	uint64_t size; /* each BO's size as asked (page-rounded) */
};

/* The stash (bo.c): BOs created ahead, in batches, for sizes a context makes again and again, so
 * ferry_bo_new hands out one whose pages are usually there already. Small BOs only; a few
 * classes per context, the least recently used one closed to make room. */
#define FERRY_STASH_CLASSES  4u
#define FERRY_STASH_MAX_SIZE (256u << 10)
#define FERRY_STASH_LOW      (FERRY_MAX_BO_BATCH + 1u) /* refill once fewer are left */
struct ferry_stash_class {
	uint64_t size; /* page-rounded; 0: unused */
	uint32_t flags;
	uint32_t uses;     /* creates of this class; stashing starts at the second */
	uint64_t last_use; /* ctx->stash_clock then */
	struct ferry_bo *bos; /* stashed, linked by stash_next */
	uint32_t nr;
};

struct ferry_queue {
	struct ferry_context *ctx;
	struct ferry_queue *next;
	uint32_t id;
	uint32_t last_seqno; /* guarded by dev->send_lock */
	struct ferry_fence_error errors[FERRY_FENCE_ERRORS];
	uint32_t nr_errors; /* total recorded; the ring keeps the last FERRY_FENCE_ERRORS */
	uint32_t nr_refused; /* submits of this queue the host refused */
	struct ferry_seqno_waiter *seqno_waiters; /* threads in ferry_fence_wait here (dev->lock) */
};

struct ferry_seqno_waiter {
	uint32_t seqno;
	struct ferry_seqno_waiter *next;
};

struct ferry_context {
	struct ferry_device *dev;
	struct ferry_context *next;
	uint32_t id;
	uint32_t family;
	struct ferry_fence_page *page;
	int event_fd;
	/* The host honors seqno waiters (fence page version 2), read once at create: the page is
	 * shared memory, and add / remove must agree on which words they moved. */
	bool seqno_wake;
	bool lost;
	uint32_t next_bo_id;
	uint8_t queue_used[FERRY_FENCE_PAGE_QUEUES];
	struct ferry_queue *queues;
	struct ferry_bo *bos;
	struct ferry_stash_class stash[FERRY_STASH_CLASSES];
	uint64_t stash_clock;
	struct ferry_fault_info **faults;
	unsigned nr_faults;
	uint32_t nr_refused; /* submits of this context the host refused (ERROR replies) */
	char last_error[FERRY_ERRMSG_LEN];
	/* Its submit ring (ring.c), all under dev->send_lock. A record's sock_seq is the host's
	 * count at RingCreated plus the socket frames sent since RingCreate went out. */
	bool has_ring;
	struct ferry_ring_producer ring;
	void *ring_mem;
	size_t ring_len;
	int ring_doorbell;
	bool ring_rung;           /* a doorbell went out when the ring's tail was ring_rung_tail */
	uint32_t ring_rung_tail;
	uint32_t ring_seq_base, ring_sock_at;
	struct ferry_ring_stats ring_stats;
	/* Submit scratch, grown on demand and kept (under send_lock): steady-state submits do not
	 * allocate. A BO is in the submit being built when its submit_mark is submit_gen. */
	struct ferry_msm_submit_bo *sub_bos;
	struct ferry_msm_submit_cmd *sub_cmds;
	uint32_t *sub_ids;
	uint32_t sub_bos_cap, sub_cmds_cap, sub_ids_cap;
	uint32_t submit_gen;
};

struct ferry_bo {
	struct ferry_context *ctx;
	struct ferry_bo *prev, *next;
	uint32_t id;
	uint32_t flags;
	uint64_t size;
	struct ferry_pending *created; /* BO_CREATED not yet consumed */
	int create_error;
	bool ready;
	uint64_t iova;
	int fd;
	void *map;
	bool imported;
	bool mirrored; /* no shared memory: ferryd knows the guest maps it (BoMap answered) */
	struct ferry_bo_batch *batch; /* made by a BoCreateBatch whose reply is not shared out yet */
	bool from_batch;
	bool retried;  /* its create failed once and was sent again alone */
	bool stashed;  /* in ctx->stash, not handed out */
	struct ferry_bo *stash_next;
	uint32_t submit_mark, submit_index; /* submit.c: O(1) duplicate check while a submit is built */
};

/* ---- device.c ---- */
/* The connection to the server is gone (err: how it ended): the one message a user sees for it,
 * whichever path noticed first. */
void ferry_set_connection_lost(struct ferry_device *dev, int err);
/* A request could not be sent: the connection-lost message for a closed connection. */
void ferry_set_send_error(struct ferry_device *dev, enum ferry_msg_kind kind, int err);
void ferry_set_error(struct ferry_device *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint32_t ferry_next_seq(struct ferry_device *dev);
/* Encodes and sends msg (seq must be set) with fds; under send_lock. */
int ferry_send_locked(struct ferry_device *dev, const struct ferry_msg *msg, const int *fds,
		      int nfds);
int ferry_send(struct ferry_device *dev, const struct ferry_msg *msg);

/* ---- ring.c ---- (under dev->send_lock) */
/* After context create: a ring when the server offers them, memory is shared and FERRY_RING is
 * not "0". Failing to get one is not an error: frames go on the socket. */
void ferry_ring_setup(struct ferry_context *ctx);
void ferry_ring_teardown(struct ferry_context *ctx);
/* Sends a reply-less, fd-less frame of ctx: into its ring when it has one and the frame fits,
 * else on the socket. 0 or a negative errno (-EIO: the host broke the ring, the context is
 * lost). */
int ferry_send_ctx_locked(struct ferry_context *ctx, const struct ferry_msg *msg);
/* Before a thread sleeps on a fence of ctx (tries send_lock, so not under dev->lock; skipped
 * when another thread holds it): rings the doorbell when its ring holds records the host has
 * not taken. A host that just took records
 * does not ask for a doorbell for a while (it looks at the ring every tick instead, docs/vm.md
 * "Submit rings"), so the submit waited for may still sit there; rung now, it is taken while
 * this thread is on its way to sleep, often retired before it sleeps at all. */
void ferry_ring_kick_untaken(struct ferry_context *ctx);

/* ---- capture.c ---- (the guest-side capture; all under dev->send_lock) */
/* Opens the capture the environment asks for: 0 (none asked, or opened) or a negative errno. */
int ferry_capture_open_env(struct ferry_device *dev);
void ferry_capture_close(struct ferry_device *dev);
/* Records a request frame as sent (frame with its length prefix). */
void ferry_capture_frame(struct ferry_device *dev, const struct ferry_msg *msg, const void *frame, size_t len);
/* Before a submit's frame: a BoCreate for each listed BO the file lacks, and snapshots of the
 * first nr_always BOs (command buffers; every BO for V3D), of all with FERRY_CAPTURE_FULL. */
void ferry_capture_submit(struct ferry_context *ctx, struct ferry_bo *const *bos, uint32_t nr_bos,
			  uint32_t nr_always);

/* ---- pump.c ---- (all called with dev->lock held unless said otherwise) */
int64_t ferry_now_ns(void);
/* FERRY_WAIT_SPIN_US as nanoseconds for dev->wait_spin_ns (fence.c). */
int64_t ferry_wait_spin_setting(void);
/* Deadline from a relative timeout (< 0 = forever -> -1). */
int64_t ferry_deadline(int64_t timeout_ns);
struct ferry_pending *ferry_pending_add(struct ferry_device *dev, uint32_t seq,
					enum ferry_msg_kind request);
/* Unlinks and frees (closing unused fds). */
void ferry_pending_free(struct ferry_device *dev, struct ferry_pending *p);
/* Remembers an asynchronous request so an ERROR reply can be tied back. */
void ferry_async_note(struct ferry_device *dev, uint32_t seq, enum ferry_msg_kind kind,
		      uint32_t ctx_id, uint32_t queue_id, uint32_t seqno);
/* Sleeps until done(arg) is true, the deadline (-1 = never) passed, or the connection broke,
 * handling every message that arrives meanwhile. Returns 0 (done), -ETIMEDOUT or dev->dead. */
/* The transport's send_blocked hook (arg = the device): while a send waits for room, reads and
 * dispatches what arrived, unless another thread is the reader. */
bool ferry_pump_drain_if_idle(void *arg);
int ferry_pump_wait(struct ferry_device *dev, bool (*done)(void *arg), void *arg,
		    int64_t deadline_ns);
/* Sends a request and waits for its reply (lock NOT held on entry). On 0, *out is the pending
 * record holding the reply (kind may be FERRY_MSG_ERROR); the caller frees it with
 * ferry_pending_free under dev->lock. */
int ferry_request(struct ferry_device *dev, struct ferry_msg *msg, struct ferry_pending **out);
/* As ferry_request; *sock_at gets dev->sock_frames as the request went out. */
int ferry_request_at(struct ferry_device *dev, struct ferry_msg *msg, struct ferry_pending **out,
		     uint32_t *sock_at);
/* Pokes the reader: its waiters look at their conditions again. */
void ferry_wake_reader(struct ferry_device *dev);
/* The reader's epoll set: made once the transport is up; a context's eventfd joins it when the
 * context is made and leaves it before its close. */
int ferry_pump_setup(struct ferry_device *dev);
int ferry_pump_watch(struct ferry_device *dev, int event_fd);
void ferry_pump_unwatch(struct ferry_device *dev, int event_fd);

/* ---- context.c / queue.c / bo.c ---- */
struct ferry_context *ferry_find_context(struct ferry_device *dev, uint32_t ctx_id);
struct ferry_queue *ferry_find_queue(struct ferry_context *ctx, uint32_t queue_id);
void ferry_context_add_fault(struct ferry_context *ctx, const struct ferry_fault_report *r);
void ferry_queue_record_error(struct ferry_queue *q, uint32_t seqno, int32_t error, bool refused);
void ferry_queue_free(struct ferry_queue *q);
void ferry_bo_free(struct ferry_bo *bo);
/* On / off ctx->bos (dev->lock held). */
void ferry_bo_link(struct ferry_context *ctx, struct ferry_bo *bo);
void ferry_bo_unlink(struct ferry_bo *bo);

/* ---- bo_stash.c ---- */
/* Decides dev->bo_stash after the handshake (server feature, transport, FERRY_BO_STASH=0). */
void ferry_bo_stash_setup(struct ferry_device *dev);
/* A BO for ferry_bo_new from the stash (lock NOT held): 0, or -ENOENT when the caller should make
 * it alone (stash off, a large or first-seen size, no memory for a batch). */
int ferry_bo_stash_take(struct ferry_context *ctx, uint64_t size, uint32_t flags, struct ferry_bo **out);
/* Closes every stashed BO of ctx (lock NOT held). */
void ferry_bo_stash_trim(struct ferry_context *ctx);
/* The rest under dev->lock. */
bool ferry_bo_stash_nonempty(const struct ferry_context *ctx);
void ferry_bo_stash_remove(struct ferry_bo *bo);
/* bo leaves its batch; the last one out frees the batch (and its reply, now or on arrival). */
void ferry_bo_batch_drop(struct ferry_device *dev, struct ferry_bo *bo);
/* The batch's reply arrived: every BO of it still there gets its fd and iova, or the error. */
void ferry_bo_batch_resolve(struct ferry_device *dev, struct ferry_bo_batch *b);
/* Waits (once) for BO_CREATED; lock NOT held on entry. */
int ferry_bo_wait_created(struct ferry_bo *bo);

#endif
