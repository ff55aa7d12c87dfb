/* libferry: the guest side of ferry. A device/context/queue/BO/fence API over a transport to
 * ferryd. Ids are chosen here, so creating BOs and submitting never wait for a reply. */
#ifndef FERRY_FERRY_H
#define FERRY_FERRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ferry/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ferry_device;
struct ferry_context;
struct ferry_queue;
struct ferry_bo;

/* Every call returns 0 or a negative errno; ferry_device_last_error() then has the message
 * (the server's text for errors it reported). */

/* uri: "unix:PATH", or NULL for $FERRY_SOCKET, then the default
 * ($XDG_RUNTIME_DIR/ferry/ferryd.sock, else /tmp/ferry-$UID/ferryd.sock). Performs the handshake. */
int ferry_device_open(const char *uri, struct ferry_device **out);
void ferry_device_close(struct ferry_device *dev);
const char *ferry_device_last_error(const struct ferry_device *dev);
/* Bytes over a connection that shares no memory with ferryd (tcp:, docs/network.md), each way:
 * all frames, and of them the BoData range bytes before and after compression. */
struct ferry_wire_stats {
	uint64_t tx_frames, tx_bytes, tx_bo_data_raw, tx_bo_data_wire;
	uint64_t rx_frames, rx_bytes, rx_bo_data_raw, rx_bo_data_wire;
};
/* -ENOTSUP on a connection that shares memory (unix:, virtio:): nothing is copied there. */
int ferry_device_wire_stats(struct ferry_device *dev, struct ferry_wire_stats *out);
/* Fence waits that looked at the fence page before sleeping (FERRY_WAIT_SPIN_US, 10 by default;
 * only with a second CPU in the thread's affinity and shared memory), and of them the ones whose
 * fences signaled meanwhile (no sleep, no wakeup). */
struct ferry_wait_stats {
	uint64_t spins, spin_hits;
};
void ferry_device_wait_stats(struct ferry_device *dev, struct ferry_wait_stats *out);
/* The path ferry_device_open(NULL) would use; writes into buf. */
int ferry_default_socket_path(char *buf, size_t len);

/* Device query (cached after the first call). */
int ferry_device_info(struct ferry_device *dev, uint32_t *family, const char **name);
/* One family parameter (MSM_PARAM_* for msm). -EINVAL if the server did not report it. */
int ferry_device_param(struct ferry_device *dev, uint32_t param, uint64_t *value);

/* Contexts (one round trip: the fence page comes back). */
int ferry_context_create(struct ferry_device *dev, uint32_t family, uint32_t policy,
			 struct ferry_context **out);
void ferry_context_destroy(struct ferry_context *ctx);
/* True once the host marked the context lost (fault, hang, refused submit) or the connection to
 * the server was lost (ferryd or its board died, a balancer cut the session); submits then fail
 * and every fence the host has not signaled counts as failed: waits end, with -EIO for a lost
 * context, -EPIPE for a lost connection (as requests then; ferry_device_last_error says the
 * connection to the server was lost). */
bool ferry_context_lost(const struct ferry_context *ctx);
/* One round trip: 0 if the host took submit seqno of q, else the error it refused it with
 * (the validator's -EINVAL / -EPERM, ...). For callers that owe their own caller a verdict at
 * submit time, as a kernel's submit ioctl gives one. */
int ferry_queue_confirm(struct ferry_queue *q, uint32_t seqno);
/* msm: the GPU's always-on counter now, read on the host (the kernel's MSM_PARAM_TIMESTAMP): one
 * round trip. -EINVAL on V3D, which has none. */
int ferry_context_timestamp(struct ferry_context *ctx, uint64_t *ticks);
/* Submits of the context (only_queue: of queue queue_id) the host refused, as seen so far. */
uint32_t ferry_context_refusals(struct ferry_context *ctx, uint32_t queue_id, bool only_queue);
/* The context's submit ring (docs/protocol.md "Submit rings"; FERRY_RING=0 turns rings off):
 * whether it has one, frames it put in the ring, doorbells it rang, frames that went on the
 * socket instead (too large), and waits for room. */
struct ferry_ring_stats {
	bool active;
	uint64_t records;
	uint64_t doorbells;
	uint64_t socket_frames;
	uint64_t full_waits;
};
void ferry_context_ring_stats(struct ferry_context *ctx, struct ferry_ring_stats *out);

/* Queues (no round trip). ferry_queue_create makes the family's main queue (msm submitqueue,
 * V3D CL); ferry_queue_create_kind names the engine (enum ferry_queue_kind: V3D_CL / TFU / CSD on
 * V3D; msm takes only DEFAULT; EXTERNAL on both, see below). V3D queues take priority 0. */
int ferry_queue_create(struct ferry_context *ctx, uint32_t priority, struct ferry_queue **out);
int ferry_queue_create_kind(struct ferry_context *ctx, uint32_t kind, uint32_t priority, struct ferry_queue **out);
void ferry_queue_close(struct ferry_queue *q);
/* External fences (a queue of kind FERRY_QUEUE_KIND_EXTERNAL): a seqno that signals when the
 * caller says so, for a fence the host cannot see (another process's sync file). Submits name
 * it in their in-fences like any other; seqnos retire in order. Neither call waits. */
int ferry_external_fence_add(struct ferry_queue *q, uint32_t *seqno);
int ferry_external_fence_signal(struct ferry_queue *q, uint32_t seqno, int32_t status);
uint32_t ferry_queue_id(const struct ferry_queue *q);
/* The seqno the next submit will take (submits use last + 1). */
uint32_t ferry_queue_next_seqno(const struct ferry_queue *q);

/* BOs. new is asynchronous; map / iova wait for the host's answer the first time only. */
int ferry_bo_new(struct ferry_context *ctx, uint64_t size, uint32_t flags, struct ferry_bo **out);
int ferry_bo_map(struct ferry_bo *bo, void **ptr);
int ferry_bo_iova(struct ferry_bo *bo, uint64_t *iova);
uint64_t ferry_bo_size(const struct ferry_bo *bo);
uint32_t ferry_bo_id(const struct ferry_bo *bo);
/* The BO's shared memory (a memfd ferryd passed), for callers that map it themselves (the uAPI
 * shim's mmap). Borrowed: valid until ferry_bo_close; waits for the host's answer the first time.
 * Returns the fd or a negative errno. */
int ferry_bo_fd(struct ferry_bo *bo);
/* Waits for the GPU to be done with the BO (MSM_PREP_* op). timeout_ns < 0 = forever. */
int ferry_bo_cpu_prep(struct ferry_bo *bo, uint32_t op, int64_t timeout_ns);
void ferry_bo_close(struct ferry_bo *bo);
/* The BO whose pages fd is (a ferry_bo_fd of any context on the same server, passed here by
 * its holder) comes into ctx as a new BO: the same memory and GPU object, at ctx's own iova on
 * msm, at its one global address on V3D. Waits for the host: -EINVAL when fd is not a BO's
 * pages, -EEXIST when ctx has that BO already (callers dedup, as the kernel's handles do). */
int ferry_bo_import(struct ferry_context *ctx, int fd, struct ferry_bo **out);

/* msm submit: one command buffer reference. */
struct ferry_cmd {
	struct ferry_bo *bo;
	uint32_t offset; /* bytes */
	uint32_t size;   /* bytes */
	uint32_t type;   /* MSM_SUBMIT_CMD_BUF (0 means BUF) */
};

struct ferry_submit_bo {
	struct ferry_bo *bo;
	uint32_t flags; /* MSM_SUBMIT_BO_READ / WRITE */
};

struct ferry_submit {
	const struct ferry_cmd *cmds;
	uint32_t nr_cmds; /* 0 is valid: a fence that signals after the queue's earlier submits */
	/* BOs the GPU touches besides the command BOs (those are added READ automatically). */
	const struct ferry_submit_bo *bos;
	uint32_t nr_bos;
	const struct ferry_fence_ref *in_fences; /* queue ids of this context + seqnos */
	uint32_t nr_in_fences;
	uint32_t flags; /* FERRY_SUBMIT_* */
};

/* Asynchronous: sends and returns. *seqno gets the fence seqno of this submit. */
int ferry_submit(struct ferry_queue *q, const struct ferry_submit *s, uint32_t *seqno);

/* V3D submits (asynchronous, like ferry_submit: *seqno is the queue's next seqno; a host
 * rejection completes that fence with the error). Addresses are V3D GPU addresses
 * (ferry_bo_iova: the device's one global address space). bos lists every BO of this context the
 * job touches (at least one). V3D device parameters are DRM_V3D_PARAM_* for ferry_device_param. */
struct ferry_v3d_cl {
	uint32_t bcl_start, bcl_end; /* equal (e.g. 0, 0): no bin job */
	uint32_t rcl_start, rcl_end;
	uint32_t qma, qms, qts;      /* tile alloc / tile state, for the bin job */
	struct ferry_bo *const *bos;
	uint32_t nr_bos;
	const struct ferry_fence_ref *in_fences;
	uint32_t nr_in_fences;
	uint32_t flags; /* FERRY_SUBMIT_NOTIFY | FERRY_V3D_SUBMIT_FLUSH_CACHE */
};
/* On a FERRY_QUEUE_KIND_V3D_CL queue: bin then render; the seqno signals when render is done. */
int ferry_v3d_submit_cl(struct ferry_queue *q, const struct ferry_v3d_cl *s, uint32_t *seqno);

struct ferry_v3d_tfu {
	uint32_t icfg, iia, iis, ica, iua, ioa, ios, coef[4];
	uint32_t v71_ioc; /* V3D 7.1 only */
	struct ferry_bo *const *bos; /* output BO first, then inputs; 1..FERRY_V3D_MAX_TFU_BOS */
	uint32_t nr_bos;
	const struct ferry_fence_ref *in_fences;
	uint32_t nr_in_fences;
	uint32_t flags; /* FERRY_SUBMIT_NOTIFY */
};
int ferry_v3d_submit_tfu(struct ferry_queue *q, const struct ferry_v3d_tfu *s, uint32_t *seqno);

struct ferry_v3d_csd {
	uint32_t cfg[FERRY_V3D_CSD_CFG_WORDS];
	struct ferry_bo *const *bos;
	uint32_t nr_bos;
	const struct ferry_fence_ref *in_fences;
	uint32_t nr_in_fences;
	uint32_t flags; /* FERRY_SUBMIT_NOTIFY */
};
int ferry_v3d_submit_csd(struct ferry_queue *q, const struct ferry_v3d_csd *s, uint32_t *seqno);

/* Non-blocking: a memory read of the fence page. */
bool ferry_fence_signaled(struct ferry_queue *q, uint32_t seqno);
/* Sleeps (never spins) until seqno signaled or timeout_ns passed (< 0 = forever). Returns 0,
 * -ETIMEDOUT, or the fence's error (-EIO for a GPU fault, ...). */
int ferry_fence_wait(struct ferry_queue *q, uint32_t seqno, int64_t timeout_ns);

/* Waits for several fences (all of one device) at once: all of them (wait_all) or any one.
 * Returns 0 (then *first, if not NULL, is the index of a signaled entry: the first in array order
 * for "any", 0 for "all"), -ETIMEDOUT, or the error a fence completed with (a failed fence counts
 * as done). -EINVAL if the entries span devices. */
struct ferry_fence_point {
	struct ferry_queue *q;
	uint32_t seqno;
};
int ferry_fence_wait_many(const struct ferry_fence_point *fences, uint32_t count, bool wait_all,
			  int64_t timeout_ns, uint32_t *first);

/* Fault reports received for this context, oldest first; NULL when none. The report stays owned
 * by the context until it is destroyed. */
struct ferry_fault_info {
	uint32_t queue_id;
	uint32_t seqno;
	uint32_t flags; /* FERRY_FAULT_* */
	uint64_t iova;
	uint64_t ib_iova;
	uint32_t ib_dword;
	uint32_t ib_level;
	uint32_t opcode;
	char *text;
};
const struct ferry_fault_info *ferry_context_fault(struct ferry_context *ctx, unsigned index);
/* Reads and handles any pending messages from the server without blocking. Returns 0, or the
 * connection's error once it is lost (-EPIPE when the server closed or reset it). */
int ferry_device_poll_events(struct ferry_device *dev);

#ifdef __cplusplus
}
#endif

#endif
