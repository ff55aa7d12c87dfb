/* Internal structures of the simulated msm driver, shared by its files. One device mutex guards
 * everything below; the GPU worker holds it while it runs a slice of a submit. Symbols are
 * prefixed msms_ (the v3d simulator's are v3ds_; sim_* is what both share, in host/sim). */
#ifndef FERRY_SIM_MSM_PRIV_H
#define FERRY_SIM_MSM_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/kdev.h"
#include "ferry/uapi/msm_drm.h"
#include "a6xx_cp.h"
#include "sim/iova_alloc.h"
#include "sim/sim_drm_core.h"
#include "sim/sim_kdev_common.h"
#include "sim/sim_syncobj.h"
#include "sim/sim_unmodeled.h"
#include "sim/sim_worker.h"
#include "sim_msm.h"

#define MSMS_PAGE_SIZE 4096u
#define MSMS_NR_PRIORITIES 3u          /* 1 ring x NR_SCHED_PRIORITIES (6.1) */
#define MSMS_MAX_BO_SIZE (1ull << 32)  /* 6.1 sizes BOs with a uint32_t: cap below 4 GiB */
#define MSMS_MAX_SUBMIT_PACKETS (1ull << 26) /* a submit executing more is treated as hung */
/* A submit whose own CP time passes this many hangcheck periods is treated as hung. */
#define MSMS_RUN_HANG_PERIODS 4u
/* KGSL's dispatcher limits (adreno_dispatch.h): submits a context may have in flight on its
 * ring, and submits a ring holds. */
#define MSMS_CONTEXT_INFLIGHT 5u
#define MSMS_RING_SIZE 128u

struct sim_msm_model {
	const char *name;
	uint32_t gpu_id;
	uint32_t chip_id;
	uint32_t gmem_size;
	uint32_t gmem_base;
	uint64_t va_size;
	uint64_t max_freq;
	uint8_t core, major, minor, patch;
};
const struct sim_msm_model *sim_msm_model_find(const char *name);

struct msms_open;

struct msms_bo {
	struct msms_open *open;
	uint32_t handle;      /* 0 once the handle is closed */
	unsigned refs;        /* the handle + each pending submit that lists it */
	int memfd;
	dev_t memfd_dev;      /* the memfd's inode: which BO a PRIME fd names */
	ino_t memfd_ino;
	uint8_t *map;         /* the simulator's own mapping of the pages */
	uint64_t size;
	uint32_t flags;       /* MSM_BO_x */
	uint64_t iova;        /* 0: not mapped in the open's address space */
	uint64_t mmap_offset;
	uint32_t madv;
	unsigned active_readers, active_writers; /* pending submits, by MSM_SUBMIT_BO_x */
	uint64_t listed_gen;  /* the last GEM_SUBMIT (dev->submit_gen) that listed it */
	char name[32];
};

struct msms_submit_bo {
	struct msms_bo *bo;
	uint32_t flags;
};

struct msms_cmd {
	uint32_t type;
	uint64_t iova;
	uint32_t size_dw;
};

struct msms_queue;

struct msms_submit {
	struct msms_submit *next;      /* the context's drawqueue, in submission order */
	struct msms_submit *ring_next, *ring_prev; /* the priority ring's in-flight list, once issued */
	struct msms_queue *queue;
	/* What msms_dispatch_pick reads of every submit on the ring, up front (cp is large). */
	bool stalled;             /* the last slice ended in an unmet wait */
	uint64_t next_poll_ns;    /* stalled: do not retry before this... */
	uint64_t poll_gen;        /* ...unless dev->wake_gen moved on since it stalled */
	uint32_t fence;
	uint32_t timestamp;       /* the context's timestamp for this submit (memstore sop/eop) */
	bool issued;              /* on its ring */
	bool sop_written;
	bool fence_hashed;        /* in its queue's fence idr (queued, not yet freed) */
	struct msms_submit *hash_next, **hash_pprev;
	struct sim_sync_dev *sync;
	struct sim_fence *done;   /* signaled at retire; what out-syncobjs get */
	int lost_error;           /* a lose_on_fault open: this submit faulted (-EIO) or hung (-ETIMEDOUT) */
	struct sim_fence **deps;  /* in-syncobj fences: not issued to the ring before they signal */
	uint32_t nr_deps;
	uint32_t nr_bos;
	struct msms_submit_bo *bos;
	uint32_t nr_cmds;
	struct msms_cmd *cmds;
	uint32_t cmd_index;       /* next command buffer to start */
	bool running;             /* a command buffer is in cp */
	/* Its CP state (~2.7 KiB) from its first slice until it completes: a queue of thousands
	 * waiting to run holds none. */
	struct cp_exec *cp;
	uint64_t stall_since_ns;
	uint64_t loop_since_ns;   /* when its CP was first seen looping through an IB chain */
	uint64_t run_ns;          /* the CP worker's CPU time its slices took, summed */
};

/* One context's memstore slot (KGSL's kgsl_devmemstore, the fields the model writes). */
struct msms_memstore_slot {
	uint32_t soptimestamp;    /* start of pipe: the newest submit the CP began */
	uint32_t eoptimestamp;    /* end of pipe: the newest submit that completed */
	uint32_t queued;          /* the newest timestamp handed out (kernel bookkeeping) */
};

/* The kernel's fence_idr: a queue's submits by fence (sim_msm_fence_idr.c). A drawqueue can
 * hold many thousands of submits, and its fences are looked up per submit, per WAIT_FENCE and per
 * retire, all under the device lock: the buckets keep up with the count. */
#define MSMS_FENCE_IDR_MIN_BITS 6
struct msms_fence_idr {
	struct msms_submit **buckets; /* small, or 2^(32 - shift) allocated */
	uint32_t shift;
	uint32_t count;
	struct msms_submit *small[1u << MSMS_FENCE_IDR_MIN_BITS];
};
void msms_fence_idr_init(struct msms_fence_idr *t);
void msms_fence_idr_fini(struct msms_fence_idr *t);
struct msms_submit *msms_fence_idr_find(const struct msms_fence_idr *t, uint32_t fence);
void msms_fence_idr_insert(struct msms_fence_idr *t, struct msms_submit *s);
void msms_fence_idr_remove(struct msms_fence_idr *t, struct msms_submit *s);

struct msms_queue {
	struct msms_open *open;    /* NULL once the open is gone */
	struct msms_queue *dev_next;
	struct msms_queue *open_next; /* the open's live queues */
	uint32_t id;
	uint32_t prio;
	uint32_t faults;
	uint32_t last_fence;      /* the newest fence submitted */
	uint32_t cyclic_next;     /* idr_alloc_cyclic cursor */
	bool closed;              /* SUBMITQUEUE_CLOSE'd: freed when drained */
	uint64_t seq;             /* creation order across the device: the round-robin key */
	uint32_t ts_queued;       /* the newest context timestamp handed out */
	/* Kept in the queue, not in a table by id: ids never come back (msm's queueid++), so a
	 * table grew with every queue an open ever made. Kernel-owned, never GPU-mapped. */
	struct msms_memstore_slot memstore;
	unsigned inflight;        /* submits issued to the ring, not yet retired */
	uint64_t vrun;            /* CP work (packets) this context ran: who is served next */
	struct msms_submit *head, *tail; /* the drawqueue: every submit not yet retired */
	/* The first submit not issued yet: issued ones are a prefix of the drawqueue (in order). */
	struct msms_submit *next_unissued;
	/* On dev->issuable[prio] while it has one to issue and room under MSMS_CONTEXT_INFLIGHT. */
	struct msms_queue *issue_next, *issue_prev;
	bool on_issue_list;
	/* The drawqueue's submits by fence. Last: the dispatcher's walks over every queue read
	 * only the fields above, a cache line or two, not past the inline buckets. */
	struct msms_fence_idr fences;
};

/* One ringbuffer per priority: the submits the dispatcher issued, oldest first. */
struct msms_ring {
	struct msms_submit *head, *tail;
	uint32_t count;
	uint64_t rr_last;         /* context seq that ran last: round-robin cursor */
	uint64_t vclock;          /* the largest vrun picked: where a context that idled resumes */
};

struct msms_open {
	struct kdev kdev;         /* first: the kdev pointer is the open */
	struct sim_msm_device *dev;
	struct msms_open *next;
	struct msms_bo **bos;      /* by handle - 1 */
	uint32_t nr_bo_slots;
	struct sim_syncobj_table syncobjs;
	struct iova_alloc vm;
	uint32_t next_queue_id;
	uint32_t faults;          /* faults/hangs attributed to this address space */
	struct sim_wakeup wakeup; /* kdev poll_fd */
	char *coredump;           /* pending devcoredump text, or NULL */
	char comm[64];
	char cmdline[4096]; /* as the kernel's dump: get_cmdline reads a page at most */
	/* The open's live queues (the kernel's per-file list): a submit or WAIT_FENCE looks its
	 * queue up here, among a few, not in the device's list of every client's queues. */
	struct msms_queue *queues;
	uint64_t next_mmap_offset;
	char name[48];
	struct kdev_trace_event *trace; /* CP start / end ring (SIM_MSM_TRACE_RING), made on first use */
	uint64_t trace_next;      /* events ever recorded: trace_read's cursor */
	struct sim_unmodeled_sink unmodeled; /* retired submits' unexecuted work, for the owner */
	bool submit_here;         /* kdev submit_here: owner's thread; the next GEM_SUBMIT takes it */
	bool done_here;           /* kdev done_here: its work retired in that GEM_SUBMIT (owner's thread) */
};

struct sim_msm_device {
	const struct sim_msm_model *model;
	struct sim_dev_lock lock; /* sim_worker.h: the GPU worker hands it over to waiters */
	pthread_cond_t work_cond;  /* wakes the GPU worker */
	pthread_cond_t done_cond;  /* broadcast when a submit retires (CLOCK_MONOTONIC waits) */
	struct sim_worker worker;
	struct sim_sync_dev sync;  /* syncobj fences and exports */
	uint32_t serial;           /* sim_drm_device_serial: tags BO memfds */
	struct msms_open *opens;
	struct msms_queue *queues;  /* every queue with an open or pending work */
	uint64_t wake_gen;         /* msms_dispatch_wake_stalled's: stalls before it are due */
	uint64_t queue_seq;
	struct msms_ring rings[MSMS_NR_PRIORITIES];
	struct msms_issue_list {
		struct msms_queue *head, *tail;
		uint32_t count;
	} issuable[MSMS_NR_PRIORITIES]; /* sim_msm_dispatch.c */
	uint64_t issue_looks;      /* contexts msms_dispatch_issue took off a list (sim_msm_cp_stats) */
	bool paused;               /* sim_msm_set_paused: the worker runs nothing */
	struct cp_device cp;
	uint32_t global_faults;
	uint32_t suspends;
	unsigned hangcheck_ms;
	uint32_t slice_budget;
	const struct msms_open *last_ctx; /* for CTX_RESTORE_BUF */
	uint64_t retired;
	struct msms_open *here_open; /* whose GEM_SUBMIT runs steps in its thread (run_here) */
	uint64_t submit_gen;        /* GEM_SUBMITs begun: a BO listed twice in one (listed_gen) */
	struct cp_exec *cp_spare;   /* the last completed submit's CP state, for the next one's */
};

/* Helpers shared across files (called with dev->lock held unless noted). */
/* Absolute CLOCK_MONOTONIC timespec -> ns, saturating (negative -> 0). */
uint64_t msms_timespec_ns(const struct drm_msm_timespec *ts);
struct msms_bo *msms_bo_lookup(struct msms_open *o, uint32_t handle);
void msms_bo_put(struct msms_bo *bo);
/* Gives bo an iova in its open's address space if it has none. */
int msms_bo_get_iova(struct msms_bo *bo, uint64_t *iova);
struct msms_queue *msms_queue_lookup(struct msms_open *o, uint32_t id);
struct msms_queue *msms_queue_create(struct msms_open *o, uint32_t prio);
/* Frees a queue unlinked from every list (its submits freed first). */
void msms_queue_free(struct msms_queue *q);
/* q leaves dev->queues: off the dispatcher's issuable list. */
void msms_dispatch_forget_queue(struct sim_msm_device *dev, struct msms_queue *q);
/* Frees q if it is closed (or orphaned) and has no pending work. Returns true if freed. */
bool msms_queue_maybe_free(struct msms_queue *q);
/* Frees s; its fence, if nobody retired it, signals -ECANCELED (the open went away). */
void msms_submit_free(struct msms_submit *s);
/* The dispatcher's hooks: every in-syncobj fence has signaled (the submit may go on the ring);
 * the submit retired (its fence signals, fault or not, as msm's do). */
bool msms_submit_deps_ready(const struct msms_submit *s);
void msms_submit_retired(struct msms_submit *s);

/* ioctl handlers (sim_msm_params.c, sim_msm_gem.c, sim_msm_submit.c). */
int msms_ioctl_get_param(struct msms_open *o, struct drm_msm_param *a);
int msms_ioctl_set_param(struct msms_open *o, struct drm_msm_param *a);
int msms_ioctl_gem_new(struct msms_open *o, struct drm_msm_gem_new *a);
int msms_ioctl_gem_info(struct msms_open *o, struct drm_msm_gem_info *a);
int msms_ioctl_gem_cpu_prep(struct msms_open *o, struct drm_msm_gem_cpu_prep *a);
int msms_ioctl_gem_cpu_fini(struct msms_open *o, struct drm_msm_gem_cpu_fini *a);
int msms_ioctl_gem_madvise(struct msms_open *o, struct drm_msm_gem_madvise *a);
int msms_ioctl_gem_close(struct msms_open *o, struct drm_gem_close *a);
int msms_ioctl_prime_handle_to_fd(struct msms_open *o, struct drm_prime_handle *a);
int msms_ioctl_prime_fd_to_handle(struct msms_open *o, struct drm_prime_handle *a);
int msms_ioctl_gem_submit(struct msms_open *o, struct drm_msm_gem_submit *a);
int msms_ioctl_wait_fence(struct msms_open *o, struct drm_msm_wait_fence *a);
int msms_ioctl_submitqueue_new(struct msms_open *o, struct drm_msm_submitqueue *a);
int msms_ioctl_submitqueue_close(struct msms_open *o, uint32_t *id);
int msms_ioctl_submitqueue_query(struct msms_open *o, struct drm_msm_submitqueue_query *a);
void *msms_gem_mmap(struct msms_open *o, size_t len, int prot, int flags, uint64_t offset);
/* Frees every BO of the open (at close, after its submits are gone). */
void msms_gem_close_all(struct msms_open *o);

/* The GPU (sim_msm_gpu.c). */
int msms_gpu_start(struct sim_msm_device *dev);
void msms_gpu_stop(struct sim_msm_device *dev);
/* Called after queueing work: wakes the worker, or with here (the open whose kdev submit_here
 * asked for it, else NULL) runs the first slice in this thread when the worker is idle. */
void msms_gpu_kick(struct sim_msm_device *dev, struct msms_open *here);
/* Drops every pending submit of the open's queues without running them. */
void msms_gpu_cancel_open(struct msms_open *o);

/* The dispatcher (sim_msm_dispatch.c), modeled on KGSL's adreno dispatcher. */
/* Moves submits from context drawqueues onto their priority's ring. */
void msms_dispatch_issue(struct sim_msm_device *dev);
void msms_dispatch_drop_unissued(struct sim_msm_device *dev, struct msms_submit *s);
/* s was appended to its queue's drawqueue: the next msms_dispatch_issue looks. */
void msms_dispatch_queued(struct sim_msm_device *dev, struct msms_submit *s);
/* The submit the CP runs next: the highest priority ring with a ready submit, round-robin among
 * contexts within it; NULL if none (*next_wake lowered to the next stalled poll). */
struct msms_submit *msms_dispatch_pick(struct sim_msm_device *dev, uint64_t now,
				       uint64_t *next_wake);
/* Memstore writes of the ring around each submit: start of pipe, end of pipe. */
/* sim_msm_trace.c (dev->lock held for record): phase is enum kdev_trace_phase. */
#define SIM_MSM_TRACE_RING 1024u
void msms_trace_record(struct msms_submit *s, uint32_t phase, uint64_t now_ns);
ssize_t msms_kdev_trace_read(struct kdev *kd, uint64_t *cursor, struct kdev_trace_event *ev, size_t max);
void msms_dispatch_sop(struct msms_submit *s, uint64_t now_ns);
void msms_dispatch_eop(struct msms_submit *s, uint64_t now_ns);
/* Retires the submits of q whose eoptimestamp was reached (only q's end of pipe moved). */
void msms_dispatch_retire(struct sim_msm_device *dev, struct msms_queue *q);
/* Unlinks s from its ring (cancel). */
void msms_dispatch_unlink(struct sim_msm_device *dev, struct msms_submit *s);
/* Wakes every stalled submit for an immediate re-poll. */
void msms_dispatch_wake_stalled(struct sim_msm_device *dev);

/* kdev.debug_state (sim_msm_debug_state.c): the open's unretired submits and what stalled ones
 * poll, in kdev.h's line format. Takes dev->lock. */
ssize_t msms_debug_state(struct msms_open *o, char *buf, size_t len);

/* Devcoredump text (sim_msm_coredump.c): stores it as the open's pending coredump, unless one
 * is unread (msm keeps the first). */
void msms_coredump_capture(struct sim_msm_device *dev, struct msms_open *o, const struct msms_submit *s,
			   const struct cp_fault *f);

#endif
