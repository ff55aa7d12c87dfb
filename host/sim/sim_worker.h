/* What both simulated devices run their GPU the same way with: the monotonic clock, the device
 * lock and its two condition variables, and the worker thread that steps the device under it. */
#ifndef FERRY_SIM_WORKER_H
#define FERRY_SIM_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: the clock of every deadline and of the condition variables below. */
uint64_t sim_now_ns(void);
/* An absolute CLOCK_MONOTONIC deadline in ns as pthread_cond_timedwait takes it. */
struct timespec sim_abs_timespec(uint64_t deadline_ns);

/* The device lock. A plain mutex is not fair: the worker unlocks between steps and locks again
 * at once, long before a thread the unlock woke is running (a cross-CPU wakeup costs tens of
 * µs), so an ioctl could wait out hundreds of GPU slices. Threads other than the worker take it
 * with sim_dev_lock, which counts them while they wait; the worker hands the lock over to them
 * between steps and cuts a step short when one arrives (sim_dev_lock_contended). */
struct sim_dev_lock {
	pthread_mutex_t mutex;
	atomic_uint waiters; /* threads blocked in sim_dev_lock */
	/* The worker sleeps on handoff_cond (under handoff_mutex) until the waiters have had the
	 * lock: sleeping, not spinning, leaves them a CPU to run on. */
	pthread_mutex_t handoff_mutex;
	pthread_cond_t handoff_cond;
	_Atomic uint64_t steps;  /* worker steps */
	uint64_t wait_steps_max; /* the most steps one sim_dev_lock waited through (under mutex) */
};

void sim_dev_lock(struct sim_dev_lock *l);
void sim_dev_unlock(struct sim_dev_lock *l);
/* Whether a thread waits for l (the holder should finish what it does soon). */
static inline bool sim_dev_lock_contended(struct sim_dev_lock *l)
{
	return atomic_load_explicit(&l->waiters, memory_order_relaxed) != 0;
}

/* The device lock, work_cond (wakes the worker) and done_cond (wakes waiters), the condition
 * variables on CLOCK_MONOTONIC so that deadlines do not move with the wall clock. */
void sim_device_sync_init(struct sim_dev_lock *lock, pthread_cond_t *work_cond, pthread_cond_t *done_cond);
void sim_device_sync_destroy(struct sim_dev_lock *lock, pthread_cond_t *work_cond, pthread_cond_t *done_cond);

struct sim_worker {
	struct sim_dev_lock *lock;
	pthread_cond_t *work_cond;
	/* One round over the device, lock held. Returns whether it did work (the worker then drops
	 * the lock, lets waiting threads in first, and goes again); else the worker sleeps on work_cond until a signal or
	 * until *next_wake_ns when the round lowered it from UINT64_MAX. */
	bool (*step)(void *ctx, uint64_t now_ns, uint64_t *next_wake_ns);
	void *ctx;
	pthread_t thread;
	bool running;
	bool stop; /* under *lock */
	/* Under *lock: asleep with nothing to do and no timer, so a thread holding the lock may run
	 * a step itself instead of waking it (submit_here: both simulators). */
	bool idle;
};

/* Starts the thread; the fields above `thread` must be set. Returns 0 or a negative errno. */
int sim_worker_start(struct sim_worker *w);
/* Asks the thread to stop after its current step and joins it; a no-op when not running. */
void sim_worker_stop(struct sim_worker *w);

#endif
