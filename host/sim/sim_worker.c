/* The clock, device locking and GPU worker thread shared by the msm and v3d simulators (see
 * sim_worker.h). */
#include "sim_worker.h"
#include "sim_thread.h"

#include <errno.h>
#include <unistd.h>

#include "ferry/cpu_relax.h"

uint64_t sim_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct timespec sim_abs_timespec(uint64_t deadline_ns)
{
	return (struct timespec){ .tv_sec = (time_t)(deadline_ns / 1000000000u),
				  .tv_nsec = (long)(deadline_ns % 1000000000u) };
}

/* How long a thread tries for the device lock (and the worker waits for the threads it handed
 * the lock to) before sleeping: the holder is the worker between two pieces or a thread in an
 * ioctl, each done within microseconds, while a sleep costs a futex wakeup on both sides (the
 * worker's handoff then a second one back). Only with another CPU to run the holder on. */
#define LOCK_SPIN_NS 5000u

static bool spin_allowed(void)
{
	static atomic_int cpus; /* 0: not asked yet (every thread that asks gets the same answer) */
	int n = atomic_load_explicit(&cpus, memory_order_relaxed);
	if (!n) {
		n = ferry_cpus_usable();
		atomic_store_explicit(&cpus, n, memory_order_relaxed);
	}
	return n > 1;
}

/* Spins until done(arg) or LOCK_SPIN_NS passed; whether done(arg) became true. */
static bool spin_until(bool (*done)(void *), void *arg)
{
	if (!spin_allowed())
		return done(arg);
	uint64_t until = 0;
	for (unsigned i = 0;; i++) {
		if (done(arg))
			return true;
		if ((i & 63) == 0) {
			uint64_t now = sim_now_ns();
			if (!until)
				until = now + LOCK_SPIN_NS;
			else if (now >= until)
				return false;
		}
		ferry_cpu_relax();
	}
}

/* Test, then test-and-set: a trylock is a locked compare-and-exchange, which takes the mutex's
 * cache line from the holder at every try, so a spinning waiter slows the holder's own work and
 * unlock. glibc's lock word (public in its pthread_mutex_t, 0 when free) is read instead until
 * the mutex looks free. */
static bool took_mutex(void *m)
{
#ifdef __GLIBC__
	if (__atomic_load_n(&((pthread_mutex_t *)m)->__data.__lock, __ATOMIC_RELAXED) != 0)
		return false;
#endif
	return pthread_mutex_trylock(m) == 0;
}

static void lock_mutex(pthread_mutex_t *m)
{
	if (!spin_until(took_mutex, m))
		pthread_mutex_lock(m);
}

void sim_dev_lock(struct sim_dev_lock *l)
{
	if (pthread_mutex_trylock(&l->mutex) == 0)
		return;
	atomic_fetch_add(&l->waiters, 1);
	uint64_t steps = atomic_load(&l->steps);
	lock_mutex(&l->mutex);
	steps = atomic_load(&l->steps) - steps;
	if (steps > l->wait_steps_max)
		l->wait_steps_max = steps;
	if (atomic_fetch_sub(&l->waiters, 1) == 1) {
		/* Under handoff_mutex, so the worker cannot miss it between its check and its wait. */
		pthread_mutex_lock(&l->handoff_mutex);
		pthread_cond_signal(&l->handoff_cond);
		pthread_mutex_unlock(&l->handoff_mutex);
	}
}

void sim_dev_unlock(struct sim_dev_lock *l)
{
	pthread_mutex_unlock(&l->mutex);
}

/* The most the worker stays off the lock for waiters that do not show up (a waiter preempted
 * on a loaded machine): the GPU must not stop behind one. */
#define HANDOFF_MAX_NS 10000000ull

static bool no_waiters(void *l)
{
	return atomic_load(&((struct sim_dev_lock *)l)->waiters) == 0;
}

/* Between two steps: unlock, and let every thread waiting for the lock have it before the
 * worker takes it again. A waiter woken by the unlock needs a wakeup's time to run; relocking at
 * once would win the mutex back, step after step. (noinline: GCC 12 with -fsanitize=address
 * misreads the atomic load once this is inlined into worker_main, -Wstringop-overflow.) */
__attribute__((noinline)) static void handoff(struct sim_dev_lock *l)
{
	pthread_mutex_unlock(&l->mutex);
	if (atomic_load(&l->waiters) && !spin_until(no_waiters, l)) {
		struct timespec until = sim_abs_timespec(sim_now_ns() + HANDOFF_MAX_NS);
		pthread_mutex_lock(&l->handoff_mutex);
		while (atomic_load(&l->waiters) &&
		       pthread_cond_timedwait(&l->handoff_cond, &l->handoff_mutex, &until) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&l->handoff_mutex);
	}
	lock_mutex(&l->mutex);
}

void sim_device_sync_init(struct sim_dev_lock *lock, pthread_cond_t *work_cond, pthread_cond_t *done_cond)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&lock->mutex, NULL);
	atomic_init(&lock->waiters, 0);
	atomic_init(&lock->steps, 0);
	lock->wait_steps_max = 0;
	pthread_mutex_init(&lock->handoff_mutex, NULL);
	pthread_cond_init(&lock->handoff_cond, &ca);
	pthread_cond_init(work_cond, &ca);
	pthread_cond_init(done_cond, &ca);
	pthread_condattr_destroy(&ca);
}

void sim_device_sync_destroy(struct sim_dev_lock *lock, pthread_cond_t *work_cond, pthread_cond_t *done_cond)
{
	pthread_cond_destroy(work_cond);
	pthread_cond_destroy(done_cond);
	pthread_mutex_destroy(&lock->mutex);
	pthread_mutex_destroy(&lock->handoff_mutex);
	pthread_cond_destroy(&lock->handoff_cond);
}

static void *worker_main(void *arg)
{
	struct sim_worker *w = arg;
	/* `ferry bench` tells the simulated GPU's CPU time from the host's by this name. */
	pthread_setname_np(pthread_self(), "ferry-sim-gpu");
	pthread_mutex_lock(&w->lock->mutex);
	while (!w->stop) {
		uint64_t next_wake = UINT64_MAX;
		if (w->step(w->ctx, sim_now_ns(), &next_wake)) {
			atomic_fetch_add(&w->lock->steps, 1);
			handoff(w->lock);
			continue;
		}
		if (next_wake == UINT64_MAX) {
			w->idle = true;
			pthread_cond_wait(w->work_cond, &w->lock->mutex);
			w->idle = false;
		} else {
			struct timespec abs = sim_abs_timespec(next_wake);
			pthread_cond_timedwait(w->work_cond, &w->lock->mutex, &abs);
		}
	}
	pthread_mutex_unlock(&w->lock->mutex);
	return NULL;
}

int sim_worker_start(struct sim_worker *w)
{
	w->stop = false;
	int ret = sim_thread_create(&w->thread, NULL, worker_main, w);
	if (ret)
		return -ret;
	w->running = true;
	return 0;
}

void sim_worker_stop(struct sim_worker *w)
{
	if (!w->running)
		return;
	sim_dev_lock(w->lock);
	w->stop = true;
	pthread_cond_signal(w->work_cond);
	sim_dev_unlock(w->lock);
	pthread_join(w->thread, NULL);
	w->running = false;
}
