/* The simulated v3d kernel driver + Broadcom V3D 4.2 (RPi4) / 7.1 (RPi5) GPU, presented as struct
 * kdev opens. One sim_v3d_device is one GPU with ONE global 4 GiB address space shared by every
 * open (as the hardware: any job can reach any BO of any open by address); each sim_v3d_open()
 * is one DRM fd with its own handles and syncobjs. */
#ifndef FERRY_SIM_V3D_H
#define FERRY_SIM_V3D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim_unmodeled.h"

struct kdev;
struct sim_v3d_device;

/* model: "v3d-4.2" or "v3d-7.1". Returns 0, -EINVAL for an unknown model, -ENOMEM. Starts the
 * GPU worker thread. */
int sim_v3d_device_create(const char *model, struct sim_v3d_device **out);
/* Stops the worker and frees the device. Every open must have been closed first. */
void sim_v3d_device_destroy(struct sim_v3d_device *dev);
/* A new open (DRM fd): no handles, no syncobjs. NULL on ENOMEM. */
struct kdev *sim_v3d_open(struct sim_v3d_device *dev);
/* "v3d-4.2", "v3d-7.1". */
const char *sim_v3d_model(const struct sim_v3d_device *dev);
/* 42 or 71 (Mesa's devinfo.ver: IDENT0.VER * 10 + IDENT1.REV). */
int sim_v3d_version(const struct sim_v3d_device *dev);
/* Model names the simulator knows, NULL-terminated. */
extern const char *const sim_v3d_models[];

/* --- Simulator controls (no kernel equivalent; for tests, tools and ferryd options) --- */

/* Hangcheck period: a bin or render list still running (a branch cycle, a semaphore never
 * released) this long after it started is a hang: aborted, its fence signaled with -ECANCELED,
 * reported. Default 500 ms (the v3d drm_sched timeout); 0 restores the default. Unlike 6.1,
 * which skips the reset while CTnCA keeps moving, a moving loop is a hang here too. */
void sim_v3d_set_hangcheck_ms(struct sim_v3d_device *dev, unsigned ms);
/* Stops (true) or resumes (false) the GPU: while paused no job starts, so a test can queue an
 * exact situation first. */
void sim_v3d_set_paused(struct sim_v3d_device *dev, bool paused);
/* Strict mode (ferryd --sim-strict, FERRY_SIM_STRICT=1): a job containing work the model does not
 * execute (draw packets in a bin list, tile loads / stores it skips, CSD dispatches) fails with a
 * job error: its fence signals -EIO and the open gets a report. Off by default. */
void sim_v3d_set_strict(struct sim_v3d_device *dev, bool strict);
struct sim_sync_file_hooks;
/* Sync files (the fake kernel's): FENCE_FD_IN/OUT and syncobj sync-file export/import use them. */
void sim_v3d_set_sync_file_hooks(struct sim_v3d_device *dev, const struct sim_sync_file_hooks *hooks);
/* The open's report of unexecuted work (sim_unmodeled.h: called on an ioctl thread of this open
 * with the counts of jobs that finished); NULL stops it. */
void sim_v3d_set_unmodeled_cb(struct kdev *kd, sim_unmodeled_fn fn, void *cookie);
/* The client id of an open (the ferry extension field of trace events and reports). */
uint32_t sim_v3d_client_id(struct kdev *kd);

struct sim_v3d_stats {
	uint64_t jobs_done[5];     /* completed jobs by enum v3d_queue (BIN..CACHE_CLEAN) */
	uint64_t mmu_faults;       /* jobs stopped by an access outside every BO */
	uint64_t hangs;            /* jobs aborted by hangcheck */
	uint64_t job_errors;       /* jobs refused by the unit (bad packet, unsupported TFU format) */
	uint64_t cle_packets;      /* control-list packets executed */
	uint64_t tfu_bytes;        /* bytes written by TFU jobs */
	uint64_t csd_dispatches;   /* CSD jobs recorded (skipped zero-size ones included) */
};
void sim_v3d_get_stats(struct sim_v3d_device *dev, struct sim_v3d_stats *out);
/* MMU faults + hangs + job errors of jobs submitted through this open. */
uint32_t sim_v3d_open_faults(struct kdev *kd);
/* Waits of this open for a fence not yet submitted end -EIO at end_ns (sim_syncobj_strand). */
void sim_v3d_strand_waits(struct kdev *kd, int64_t end_ns);
/* A fault of one of this open's jobs makes it lost (sim_syncobj_table.lose_on_fault). */
void sim_v3d_lose_on_fault(struct kdev *kd, int64_t grace_ns);

/* --- Trace points (the kernel's v3d tracepoints: seed 004) --- */

enum sim_v3d_trace_kind {
	SIM_V3D_TRACE_SUBMIT_CL_IOCTL,   /* a = rcl_start, b = rcl_end (at the ioctl) */
	SIM_V3D_TRACE_SUBMIT_CL,         /* queue BIN/RENDER, a = start, b = end (job runs) */
	SIM_V3D_TRACE_BCL_IRQ,           /* the bin job completed */
	SIM_V3D_TRACE_RCL_IRQ,           /* the render job completed */
	SIM_V3D_TRACE_SUBMIT_TFU_IOCTL,  /* a = iia */
	SIM_V3D_TRACE_SUBMIT_TFU,
	SIM_V3D_TRACE_TFU_IRQ,
	SIM_V3D_TRACE_SUBMIT_CSD_IOCTL,  /* a = cfg[5], b = cfg[6] */
	SIM_V3D_TRACE_SUBMIT_CSD,
	SIM_V3D_TRACE_CSD_IRQ,
	SIM_V3D_TRACE_CACHE_CLEAN_BEGIN,
	SIM_V3D_TRACE_CACHE_CLEAN_END,
	SIM_V3D_TRACE_RESET_BEGIN,       /* hangcheck aborted a job (the kernel's reset) */
	SIM_V3D_TRACE_RESET_END,
	SIM_V3D_TRACE_KIND_COUNT
};

struct sim_v3d_trace_event {
	uint64_t serial;    /* 0, 1, 2, ... across the device: the read cursor */
	uint64_t ts_ns;     /* CLOCK_MONOTONIC */
	uint32_t kind;      /* enum sim_v3d_trace_kind */
	uint32_t queue;     /* enum v3d_queue of the job (ioctl events: the first job's queue) */
	uint32_t seqno;     /* the queue's fence seqno (0 for ioctl events: not assigned yet) */
	uint32_t client;    /* ferry: sim_v3d_client_id of the submitting open */
	uint32_t a, b;      /* per kind, see above */
};

/* "v3d_submit_cl_ioctl", "v3d_bcl_irq", ... as the kernel's event names. */
const char *sim_v3d_trace_kind_name(uint32_t kind);
/* Copies up to max events with serial >= *cursor, oldest first, and advances *cursor past them.
 * The ring keeps the newest SIM_V3D_TRACE_RING events; older ones are lost (a cursor that fell
 * behind resumes at the oldest kept event: compare serials to count the loss). */
#define SIM_V3D_TRACE_RING 8192u
size_t sim_v3d_trace_read(struct sim_v3d_device *dev, uint64_t *cursor,
			  struct sim_v3d_trace_event *out, size_t max);

/* --- CSD dispatch records (QPU code is NOT executed: a dispatch is validated and recorded) --- */

struct sim_v3d_csd_dispatch {
	uint64_t serial;          /* read cursor, as for trace events */
	uint32_t client;
	uint32_t seqno;           /* the CSD queue seqno */
	uint32_t num_wgs[3];      /* workgroups in X/Y/Z (cfg[0..2] >> 16) */
	uint32_t wg_offset[3];    /* cfg[0..2] & 0xffff */
	uint32_t wg_size;         /* cfg[3] [7:0] (0 means 256) */
	uint32_t wgs_per_sg;      /* cfg[3] [11:8] (0 means 16) */
	uint32_t batches;         /* batches the dispatch runs, decoded from cfg[4] for the version */
	uint32_t expected_batches; /* ceil(wg_size / 16) * workgroups, what Mesa programs */
	uint32_t shader_addr;     /* cfg[5] & ~7 */
	uint32_t shader_flags;    /* cfg[5] & 7: THREADING b0, SINGLE_SEG b1, PROPAGATE_NANS b2 */
	uint32_t uniforms_addr;   /* cfg[6] */
	uint32_t cfg[7];
	bool skipped;             /* a workgroup count was 0: the kernel does not start it */
	bool valid;               /* batches matched and both addresses were mapped */
};
#define SIM_V3D_CSD_RING 1024u
size_t sim_v3d_csd_read(struct sim_v3d_device *dev, uint64_t *cursor,
			struct sim_v3d_csd_dispatch *out, size_t max);

#endif
