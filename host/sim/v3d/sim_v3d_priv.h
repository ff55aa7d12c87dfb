/* Internal structures of the simulated v3d driver, shared by its files. One device mutex guards
 * everything; the GPU worker holds it while it runs a slice of a job. Symbols are prefixed v3ds_
 * (the msm simulator's are msms_; sim_* is what both share, in host/sim). */
#ifndef FERRY_SIM_V3D_PRIV_H
#define FERRY_SIM_V3D_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/kdev.h"
#include "ferry/uapi/v3d_drm.h"
#include "sim/iova_alloc.h"
#include "sim/sim_drm_core.h"
#include "sim/sim_kdev_common.h"
#include "sim/sim_syncobj.h"
#include "sim/sim_unmodeled.h"
#include "sim/sim_worker.h"
#include "sim_v3d.h"
#include "v3d_cle.h"

#define V3DS_PAGE_SIZE 4096u
#define V3DS_GMP_ALIGN (128u * 1024u) /* the kernel aligns every BO to the GMP granularity */
#define V3DS_NR_QUEUES 5u              /* BIN, RENDER, TFU, CSD, CACHE_CLEAN */
#define V3DS_CL_SLICE_PACKETS 4096u    /* packets of one list run before the worker looks around */

struct v3ds_model {
	const char *name;
	int ver;                 /* 42, 71 */
	uint32_t ident[7];       /* GET_PARAM 0..6: UIFCFG, HUB_IDENT1..3, CORE0_IDENT0..2 */
	uint32_t cl_readahead;   /* CLE prefetch past the list end */
};

struct v3ds_bo {
	struct sim_v3d_device *dev;
	unsigned refs;           /* each handle + each queued job listing it */
	int memfd;
	dev_t memfd_dev;         /* the memfd's inode: which BO a PRIME fd names */
	ino_t memfd_ino;
	uint8_t *map;
	uint64_t size;           /* page aligned */
	uint32_t offset;         /* GPU address in the global space */
	uint64_t mmap_offset;    /* fake offset for kdev mmap */
	struct sim_fence *resv;  /* the last job that listed it (every job adds a WRITE fence) */
};

struct v3ds_open;

/* State shared by the bin and render job of one SUBMIT_CL. */
struct v3ds_cl_submit {
	unsigned refs;
	struct v3d_cle_semaphore sem;
	int strict_error;  /* strict mode failed the bin job: the render job's fence (the submit's) fails too */
};

struct v3ds_job {
	struct v3ds_job *next;       /* the entity's FIFO */
	enum v3d_queue queue;
	struct v3ds_open *open;
	uint32_t client;
	uint64_t submit_serial;      /* which ioctl made it (reports) */
	uint32_t out_sync;           /* that ioctl's out_sync handle, 0 for none (reports) */
	struct sim_fence *done;      /* signaled with 0, or -ECANCELED after a hang */
	struct sim_fence **deps;
	uint32_t nr_deps;
	struct v3ds_bo **bos;        /* held for the job's lifetime (the last job of a submit) */
	uint32_t nr_bos;
	uint32_t seqno;              /* assigned when it starts, per queue */
	uint64_t start_ns;
	uint64_t cle_draws0, cle_unmodeled0, cle_recorded0; /* bin / render: the CLE's counters when it started */
	union {
		struct {
			uint32_t start, end, qma, qms, qts;
			struct v3ds_cl_submit *shared;
		} cl;
		struct drm_v3d_submit_tfu tfu;
		struct {
			uint32_t cfg[7];
		} csd;
	} u;
};

/* A drm_sched entity: one per open and queue; jobs run in submission order. */
struct v3ds_entity {
	struct v3ds_job *head, *tail;
};

struct v3ds_open {
	struct kdev kdev;            /* first: the kdev pointer is the open */
	struct sim_v3d_device *dev;
	struct v3ds_open *next;
	uint32_t client;
	struct v3ds_bo **bos;        /* by handle - 1 */
	uint32_t nr_bo_slots;
	struct sim_syncobj_table syncobjs;
	struct v3ds_entity entity[V3DS_NR_QUEUES];
	uint32_t faults;
	struct sim_wakeup wakeup; /* kdev poll_fd */
	bool submit_here;            /* kdev submit_here: owner's thread; the next SUBMIT_CL takes it */
	bool done_here;              /* kdev done_here: its work completed in that SUBMIT_CL */
	char *coredump;              /* pending report text, or NULL */
	char name[48];
	struct sim_unmodeled_sink unmodeled; /* finished jobs' unexecuted work, for the owner */
};

struct v3ds_trace_ring {
	struct sim_v3d_trace_event ev[SIM_V3D_TRACE_RING];
	uint64_t next_serial;
};

struct v3ds_csd_ring {
	struct sim_v3d_csd_dispatch rec[SIM_V3D_CSD_RING];
	uint64_t next_serial;
};

struct v3ds_queue {
	struct v3ds_job *running;
	uint32_t emit_seqno;
	uint32_t rr_client;          /* round-robin cursor: the client that ran last */
	bool stalled;                /* the running list waits on a semaphore */
};

struct sim_v3d_device {
	const struct v3ds_model *model;
	struct sim_dev_lock lock; /* sim_worker.h: the GPU worker hands it over to waiters */
	pthread_cond_t work_cond;    /* wakes the worker */
	pthread_cond_t done_cond;    /* broadcast when a fence signals (CLOCK_MONOTONIC waits) */
	struct sim_worker worker;
	struct sim_sync_dev sync;    /* fences, syncobj exports */
	uint32_t serial;             /* sim_drm_device_serial: tags BO memfds */
	bool paused;
	struct iova_alloc vm;        /* THE address space: every BO of every open */
	uint64_t next_mmap_offset;
	struct v3ds_open *opens;
	uint32_t next_client;
	uint64_t next_submit_serial;
	struct v3ds_queue queues[V3DS_NR_QUEUES];
	struct v3d_cle *cle[2];      /* CT0 (bin), CT1 (render) */
	unsigned hangcheck_ms;
	struct sim_v3d_stats stats;
	struct v3ds_trace_ring *trace;
	struct v3ds_csd_ring *csd;
	bool strict;                 /* sim_v3d_set_strict */
	struct v3ds_open *here_open; /* whose SUBMIT_CL runs steps in its thread (v3ds_sched_kick) */
};

/* sim_v3d.c */
/* sim_v3d_kdev_trace.c: kdev_ops.trace_read (takes dev->lock through sim_v3d_trace_read) */
ssize_t v3ds_kdev_trace_read(struct kdev *kd, uint64_t *cursor, struct kdev_trace_event *ev, size_t max);

/* sim_v3d_bo.c (dev->lock held) */
struct v3ds_bo *v3ds_bo_lookup(struct v3ds_open *o, uint32_t handle);
void v3ds_bo_get(struct v3ds_bo *bo);
void v3ds_bo_put(struct v3ds_bo *bo);
/* The GPU's view of memory through the MMU: 0, or -EFAULT when [addr, addr + len) is not inside
 * one BO (nothing transferred). */
int v3ds_mmu_read(struct sim_v3d_device *dev, uint32_t addr, void *dst, uint32_t len);
int v3ds_mmu_write(struct sim_v3d_device *dev, uint32_t addr, const void *src, uint32_t len);
bool v3ds_mmu_mapped(struct sim_v3d_device *dev, uint32_t addr);
int v3ds_ioctl_create_bo(struct v3ds_open *o, struct drm_v3d_create_bo *a);
int v3ds_ioctl_mmap_bo(struct v3ds_open *o, struct drm_v3d_mmap_bo *a);
int v3ds_ioctl_get_bo_offset(struct v3ds_open *o, struct drm_v3d_get_bo_offset *a);
int v3ds_ioctl_wait_bo(struct v3ds_open *o, struct drm_v3d_wait_bo *a);
int v3ds_ioctl_gem_close(struct v3ds_open *o, struct drm_gem_close *a);
int v3ds_ioctl_prime_handle_to_fd(struct v3ds_open *o, struct drm_prime_handle *a);
int v3ds_ioctl_prime_fd_to_handle(struct v3ds_open *o, struct drm_prime_handle *a);
void *v3ds_gem_mmap(struct v3ds_open *o, size_t len, int prot, int flags, uint64_t offset);
void v3ds_gem_close_all(struct v3ds_open *o);

/* sim_v3d_submit.c (dev->lock held) */
int v3ds_ioctl_submit_cl(struct v3ds_open *o, struct drm_v3d_submit_cl *a);
int v3ds_ioctl_submit_tfu(struct v3ds_open *o, struct drm_v3d_submit_tfu *a);
int v3ds_ioctl_submit_csd(struct v3ds_open *o, struct drm_v3d_submit_csd *a);
void v3ds_job_free(struct v3ds_job *job);

/* sim_v3d_sched.c */
int v3ds_sched_start(struct sim_v3d_device *dev);
void v3ds_sched_stop(struct sim_v3d_device *dev);
/* Appends job to its open's entity (lock held); v3ds_sched_kick after the ioctl's last push. */
void v3ds_sched_push(struct sim_v3d_device *dev, struct v3ds_job *job);
/* After a submit ioctl pushed its jobs: wakes the worker, or with here (the open whose kdev
 * submit_here asked for it, else NULL) first runs their first bin / render slices in this thread
 * when the worker sleeps idle. */
void v3ds_sched_kick(struct sim_v3d_device *dev, struct v3ds_open *here);
/* Drops every queued or running job of the open; their fences signal -ECANCELED (lock held). */
void v3ds_sched_cancel_open(struct v3ds_open *o);

/* sim_v3d_report.c (dev->lock held) */
void v3ds_trace(struct sim_v3d_device *dev, enum sim_v3d_trace_kind kind, enum v3d_queue queue,
		uint32_t seqno, uint32_t client, uint32_t a, uint32_t b);
void v3ds_csd_record(struct sim_v3d_device *dev, const struct sim_v3d_csd_dispatch *rec);

/* What went wrong with a job, for its report. */
struct v3ds_fault {
	const char *kind;        /* "mmu-fault", "hang", "job-error" */
	const char *unit;        /* "CLE", "TFU", "CSD" */
	uint32_t addr;           /* faulting address (mmu-fault) */
	bool write;
	uint32_t packet_addr;    /* CLE: the packet being executed */
	int opcode;              /* CLE: its opcode, -1 if none */
	const char *where;       /* CLE: what it was doing; TFU/CSD: the register ("IIA", "CFG5") */
	const char *reason;      /* free text */
	const struct v3d_cle_stats *cle; /* CLE: last packets, or NULL */
	bool unmodeled;          /* strict mode failed the job for work not executed */
};
/* Counts the fault against the job's open and the device, and stores the report text as the
 * open's pending coredump. */
void v3ds_report_fault(struct sim_v3d_device *dev, const struct v3ds_job *job, const struct v3ds_fault *f);

#endif
