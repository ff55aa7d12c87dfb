/* The clock of the in-process validation rates (pm4_workload.c, v3d_workload.c): the thread's
 * CPU time, read between growing batches of steps. */
#ifndef FERRY_TOOLS_BENCH_CLOCK_H
#define FERRY_TOOLS_BENCH_CLOCK_H

#include <stdbool.h>
#include <time.h>

/* This thread's CPU time in seconds: a rate per CPU-second of validating (and of copying, for
 * the baseline), so that time the shared machine gives other processes does not count. */
static inline double bench_thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs step(arg) until `seconds` of this thread's CPU time passed, reading the clock between
 * batches that double while under an eighth of it (a read of the thread's CPU clock is a
 * syscall, which would weigh on a small copy): the CPU seconds per step, or -1 once a step
 * returned false. */
static inline double bench_cpu_per_step(double seconds, bool (*step)(void *arg), void *arg)
{
	unsigned steps = 0, batch = 1;
	double t0 = bench_thread_cpu_s(), t1;
	do {
		for (unsigned b = 0; b < batch; b++, steps++)
			if (!step(arg))
				return -1;
		t1 = bench_thread_cpu_s();
		if (t1 - t0 < seconds / 8)
			batch *= 2;
	} while (t1 - t0 < seconds);
	return (t1 - t0) / steps;
}

#endif
