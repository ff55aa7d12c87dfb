/* Work the simulated GPUs do not execute (draws, dispatches, engine variants, packets), by kind:
 * counted per submit / job, collected per open (DRM fd) and reported upward only through the
 * open's callback; in strict mode such work fails its job as a GPU error would. */
#ifndef FERRY_SIM_UNMODELED_H
#define FERRY_SIM_UNMODELED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim_worker.h"

enum sim_unmodeled_kind {
	SIM_UNMODELED_DRAW,     /* draws: no shader runs, nothing is rasterized */
	SIM_UNMODELED_DISPATCH, /* compute dispatches: CP_EXEC_CS(_INDIRECT), V3D CSD jobs */
	SIM_UNMODELED_ENGINE,   /* a copy / fill engine variant not reproduced (CP_BLIT layouts,
				 * V3D tile load/store formats, TFU configurations) */
	SIM_UNMODELED_PACKET,   /* any other packet whose effect on memory or registers is lost */
	SIM_UNMODELED_STATE,    /* state the model does not keep (shader state loads, binning
				 * state): no effect of its own, so strict mode lets it pass */
	SIM_UNMODELED_KINDS
};

/* "draw", "dispatch", "engine", "packet", "state"; NULL past the end. */
const char *sim_unmodeled_name(unsigned kind);
/* The one-line warning for a kind ("draw skipped: the simulated GPU does not execute shaders"). */
const char *sim_unmodeled_message(unsigned kind);
/* Whether strict mode fails a job that contains work of this kind. */
bool sim_unmodeled_fails_strict(unsigned kind);

/* Counts by kind, with the first thing of each kind met (static text: "CP_EXEC_CS", "CSD job"). */
struct sim_unmodeled_counts {
	uint64_t n[SIM_UNMODELED_KINDS];
	const char *what[SIM_UNMODELED_KINDS];
};
void sim_unmodeled_add(struct sim_unmodeled_counts *c, unsigned kind, uint64_t n, const char *what);
/* Whether any count is non-zero. */
bool sim_unmodeled_any(const struct sim_unmodeled_counts *c);

/* The upward report: count more of kind were met in jobs of the open the callback was set on;
 * what names the first of them. Called on the thread of a kdev call on that open (ioctl), never
 * on the GPU worker and never with the device lock held, so the owner needs no locking of its
 * own; it must not call back into the same open. */
typedef void (*sim_unmodeled_fn)(void *cookie, unsigned kind, uint64_t count, const char *what);

/* One open's callback and the counts of retired jobs not yet reported. */
struct sim_unmodeled_sink {
	sim_unmodeled_fn fn;
	void *cookie;
	struct sim_unmodeled_counts pending; /* under the device lock */
	atomic_bool has_pending;             /* read without it: the ioctl fast path */
};
/* Adds a retired job's counts (device lock held). Nothing is kept without a callback. */
void sim_unmodeled_sink_add(struct sim_unmodeled_sink *s, const struct sim_unmodeled_counts *c);
/* Sets the callback (takes the lock). */
void sim_unmodeled_sink_set(struct sim_dev_lock *lock, struct sim_unmodeled_sink *s, sim_unmodeled_fn fn,
			    void *cookie);
/* Reports what is pending through the callback; called at the end of every ioctl of the open,
 * without the lock held (it takes it only when something is pending). */
void sim_unmodeled_sink_flush(struct sim_dev_lock *lock, struct sim_unmodeled_sink *s);

#endif
