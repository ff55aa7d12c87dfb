/* The clock of the in-process validation rates (pm4_workload.c, v3d_workload.c): the thread's
 * CPU time, read between growing batches of iterations. */
#ifndef FERRY_TOOLS_BENCH_CLOCK_H
#define FERRY_TOOLS_BENCH_CLOCK_H

#include <time.h>

/* This thread's CPU time in seconds: a rate per CPU-second of validating (and of copying, for
 * the baseline), so that time the shared machine gives other processes does not count. */
static inline double bench_thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Iterations between two clock reads: doubled while under an eighth of the time, as a read of
 * the thread's CPU clock is a syscall that would weigh on a small copy. */
static inline unsigned bench_next_batch(unsigned batch, double elapsed, double seconds)
{
	return elapsed < seconds / 8 ? 2 * batch : batch;
}

#endif
