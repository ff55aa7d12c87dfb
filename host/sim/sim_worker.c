/* The clock, device locking and GPU worker thread shared by the msm and v3d simulators (see
 * sim_worker.h). */
#include "sim_worker.h"

#include <sched.h>

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

void sim_device_sync_init(pthread_mutex_t *lock, pthread_cond_t *work_cond, pthread_cond_t *done_cond)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(lock, NULL);
	pthread_cond_init(work_cond, &ca);
	pthread_cond_init(done_cond, &ca);
	pthread_condattr_destroy(&ca);
}

void sim_device_sync_destroy(pthread_mutex_t *lock, pthread_cond_t *work_cond, pthread_cond_t *done_cond)
{
	pthread_cond_destroy(work_cond);
	pthread_cond_destroy(done_cond);
	pthread_mutex_destroy(lock);
}

static void *worker_main(void *arg)
{
	struct sim_worker *w = arg;
	pthread_mutex_lock(w->lock);
	while (!w->stop) {
		uint64_t next_wake = UINT64_MAX;
		if (w->step(w->ctx, sim_now_ns(), &next_wake)) {
			/* Let ioctl callers in between steps. */
			pthread_mutex_unlock(w->lock);
			if (w->yield_between_steps)
				sched_yield();
			pthread_mutex_lock(w->lock);
			continue;
		}
		if (next_wake == UINT64_MAX) {
			pthread_cond_wait(w->work_cond, w->lock);
		} else {
			struct timespec abs = sim_abs_timespec(next_wake);
			pthread_cond_timedwait(w->work_cond, w->lock, &abs);
		}
	}
	pthread_mutex_unlock(w->lock);
	return NULL;
}

int sim_worker_start(struct sim_worker *w)
{
	w->stop = false;
	int ret = pthread_create(&w->thread, NULL, worker_main, w);
	if (ret)
		return -ret;
	w->running = true;
	return 0;
}

void sim_worker_stop(struct sim_worker *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(w->lock);
	w->stop = true;
	pthread_cond_signal(w->work_cond);
	pthread_mutex_unlock(w->lock);
	pthread_join(w->thread, NULL);
	w->running = false;
}
