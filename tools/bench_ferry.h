/* What `ferry bench` measures through a ferry URI (bench.c), shared with the modes that run the
 * same loops over another transport (bench_vm.c). */
#ifndef FERRY_TOOLS_BENCH_FERRY_H
#define FERRY_TOOLS_BENCH_FERRY_H

#include <stdbool.h>

#include "ferry/ferry.h"

struct ferry_device;

struct figures {
	double rt_median_us, rt_p99_us; /* submit+wait of an empty IB */
	double pipelined_per_s;         /* submits per second, one wait at the end */
	double bo_cycles_per_s;         /* create+map+close per second */
	double bo_cycles_nostash_per_s; /* the same with libferry's BO stash off (FERRY_BO_STASH=0) */
	bool measure_nostash;           /* set by the caller that wants bo_cycles_nostash_per_s */
	/* Optional: called with end = false just before (a) and end = true once (b)'s last fence
	 * signalled, so a caller can count what (a) and (b) put on the wire (bench_network.c). */
	void (*mark)(void *arg, struct ferry_device *dev, bool end);
	void *mark_arg;
	/* Optional: the server's pid (bench.c's own ferryd); (b)'s CPU per submit is then measured
	 * there, outside and inside the simulated GPU (bench_cpu.h). cpu_ok says it was. */
	int cpu_pid;
	bool cpu_ok;
	double cpu_host_us, cpu_sim_us;
	/* The context's submit ring over (a) and (b) (FERRY_RING=0: off), and their submits. */
	struct ferry_ring_stats ring;
	uint64_t submits;
};

/* (a) submit+wait of a CP_NOP IB, (b) pipelined submits, (c) 64 KiB BO create+map+close, through
 * the server at uri. 0 or -errno. */
int bench_ferry(const char *uri, int iters, struct figures *f);

/* `ferry bench --vm`, inside a guest: the same through virtio-gpu against the guest's bare
 * EXECBUFFER + fence round trip measured in the same run. */
int bench_vm(const char *uri, int iters);

#endif
