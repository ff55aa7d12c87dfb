/* The simulated msm kernel driver + Adreno a6xx GPU, presented as struct kdev opens.
 * One sim_msm_device is one GPU; each sim_msm_open() is one DRM fd with its own address space. */
#ifndef FERRY_SIM_MSM_H
#define FERRY_SIM_MSM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_unmodeled.h"

struct kdev;
struct sim_msm_device;

/* model: "a630" or "a660". Returns 0, -EINVAL for an unknown model, -ENOMEM. Starts the GPU
 * worker thread. */
int sim_msm_device_create(const char *model, struct sim_msm_device **out);
/* Stops the worker (pending submits are cancelled) and frees the device. Every open must have
 * been closed first. */
void sim_msm_device_destroy(struct sim_msm_device *dev);
/* A new open of the device: a fresh GPU address space, submitqueue 0, no BOs. NULL on ENOMEM. */
struct kdev *sim_msm_open(struct sim_msm_device *dev);
/* "a630", "a660". */
const char *sim_msm_model(const struct sim_msm_device *dev);

/* Model names the simulator knows, NULL-terminated. */
extern const char *const sim_msm_models[];

/* --- Simulator controls (no kernel equivalent; for tests, tools and ferryd options) --- */

/* Hangcheck period: a submit stalled in a CP wait, or looping through an IB chain, for longer
 * than this is a hang (counted as a fault, coredump with "hang:", fence retired). Default 500 ms, as DRM_MSM_HANGCHECK_DEFAULT_PERIOD;
 * 0 restores the default. */
void sim_msm_set_hangcheck_ms(struct sim_msm_device *dev, unsigned ms);
/* Work units (about one per dword fetched or moved) the GPU worker runs of one submit before it
 * looks at other queues. Default 65536; 0 restores the default. */
void sim_msm_set_slice_budget(struct sim_msm_device *dev, uint32_t units);

/* Strict mode (ferryd --sim-strict, FERRY_SIM_STRICT=1): a submit that contains work the model
 * does not execute (sim_unmodeled.h: draws, dispatches, skipped blits and packets; not state-only
 * packets) faults at that packet, as a GPU error: the open's fault counters (MSM_PARAM_FAULTS,
 * the queue's FAULTS) go up and its devcoredump has an "unmodeled:" section. Off by default. */
void sim_msm_set_strict(struct sim_msm_device *dev, bool strict);
struct sim_sync_file_hooks;
/* Sync files (the fake kernel's): FENCE_FD_IN/OUT and syncobj sync-file export/import use them. */
void sim_msm_set_sync_file_hooks(struct sim_msm_device *dev, const struct sim_sync_file_hooks *hooks);
/* The open's report of unexecuted work (sim_unmodeled.h: called on an ioctl thread of this open
 * with the counts of submits that retired); NULL stops it. */
void sim_msm_set_unmodeled_cb(struct kdev *kd, sim_unmodeled_fn fn, void *cookie);

struct sim_msm_cp_stats {
	uint64_t packets;        /* every packet executed or skipped */
	uint64_t type4_packets;  /* register-write packets */
	uint64_t skipped[128];   /* type-7 packets the model skipped unexecuted, by opcode */
	uint64_t retired;        /* submits retired (completed, faulted or hung) */
	uint64_t draws;          /* draws the CP executed (not rasterized) */
	uint64_t draw_state_runs; /* CP_SET_DRAW_STATE groups executed */
	uint64_t irqs;           /* CP_EVENT_WRITE IRQs raised */
	uint64_t cond_skips;     /* conditional-execution tests that skipped dwords */
	uint64_t ib_chains;      /* CP_INDIRECT_BUFFER_CHAIN jumps */
	/* The most GPU worker steps (slices) that ran while another thread waited for the device
	 * lock: how long an ioctl can be kept out, counted instead of timed. */
	uint64_t lock_wait_steps_max;
	/* Contexts the dispatcher looked at for a submit to issue onto the rings: only those with
	 * one (and room under their in-flight limit), not every context before every slice. */
	uint64_t issue_looks;
};
void sim_msm_get_cp_stats(struct sim_msm_device *dev, struct sim_msm_cp_stats *out);
/* A register as the CP sees it (CP_ALWAYS_ON_COUNTER is live). */
uint32_t sim_msm_read_reg(struct sim_msm_device *dev, uint32_t reg);

/* Stops (true) or resumes (false) the GPU: while paused, submits queue up in their contexts'
 * drawqueues and nothing runs, so a test can set up an exact scheduling situation. */
void sim_msm_set_paused(struct sim_msm_device *dev, bool paused);

/* Waits of this open for a fence not yet submitted end -EIO at end_ns (sim_syncobj_strand). */
void sim_msm_strand_waits(struct kdev *kd, int64_t end_ns);
/* A fault or hang of one of this open's submits makes it lost (sim_syncobj_table.lose_on_fault). */
void sim_msm_lose_on_fault(struct kdev *kd, int64_t grace_ns);

/* One context's memstore slot, read-only (kgsl_devmemstore): every submit gets the next
 * timestamp of its context (submitqueue); the ring writes soptimestamp when the CP starts it
 * and eoptimestamp when it completes (also after a fault or hang), and it retires once
 * eoptimestamp has reached it. */
struct sim_msm_memstore {
	uint32_t soptimestamp;
	uint32_t eoptimestamp;
	uint32_t queued;         /* the newest timestamp handed out */
};
/* kd: an open from sim_msm_open(); ctx: a submitqueue id of it, also a closed queue until its
 * last submit retired (then the queue and its slot are gone). 0 or -ENOENT. */
int sim_msm_memstore(struct kdev *kd, uint32_t ctx, struct sim_msm_memstore *out);

#endif
