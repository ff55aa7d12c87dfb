/* CPU time a process's threads spent, split into the simulated GPU's worker threads and the
 * rest, from /proc/<pid>/task/<tid>/schedstat: what `ferry bench` charges per pipelined submit. */
#ifndef FERRY_TOOLS_BENCH_CPU_H
#define FERRY_TOOLS_BENCH_CPU_H

#include <stdint.h>
#include <sys/types.h>

/* The name the simulators give their GPU worker threads (host/sim/sim_worker.c). */
#define BENCH_CPU_SIM_THREAD "ferry-sim-gpu"

struct bench_cpu {
	uint64_t sim_ns;   /* on CPU in threads named BENCH_CPU_SIM_THREAD */
	uint64_t other_ns; /* on CPU in every other thread */
};

/* Sums the live threads of pid (0: this process). 0 or -errno. A thread that exits between two
 * samples takes its time with it: the bench's threads live across the runs it measures. */
int bench_cpu_sample(pid_t pid, struct bench_cpu *out);

/* (after - before) per unit in microseconds, into *sim_us and *other_us. */
void bench_cpu_per(const struct bench_cpu *before, const struct bench_cpu *after, double units,
		   double *sim_us, double *other_us);

#endif
