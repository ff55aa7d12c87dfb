/* `ferry bench --clients N` (bench_scale.c): many clients of one ferryd at once. */
#ifndef FERRY_TOOLS_BENCH_SCALE_H
#define FERRY_TOOLS_BENCH_SCALE_H

#include <stdbool.h>
#include <sys/types.h>

#define BENCH_SCALE_MAX_CLIENTS 1024
#define BENCH_SCALE_DEFAULT_MS 2000

/* Spawns ferryd and prints its memory per idle client, one client's pipelined rate against
 * clients pipelining at once, and submit+wait latency alone and beside them. Exit status. */
int bench_scale(const char *ferryd, const char *gpu, int clients, int duration_ms);

/* Connects clients idle clients (HELLO, a context, a queue each) to the ferryd at uri (pid
 * ferryd) and returns what each added to its memory, in bytes (a negative errno on failure);
 * *base_kib / *with_kib: ferryd_proc_mem_kib before and with them. */
long bench_scale_idle_kib(const char *uri, pid_t ferryd, int clients, long *base_kib, long *with_kib);

/* One client's figures: submits done (all waited for) in secs; p50/p99 of a probe's submit+wait. */
struct bench_scale_result {
	int index;
	int ok;
	unsigned long long submits;
	double secs;
	double p50_us, p99_us;
	char why[160];
};

/* clients processes (and one submit+wait probe, res[clients], when probe) each connect to uri and
 * pipeline CP_NOP submits for duration_ms, all started at once. res: clients (+1) entries.
 * 0 when every one of them finished its work, else a negative errno (each failure printed). */
int bench_scale_load(const char *uri, int clients, bool probe, int duration_ms, struct bench_scale_result *res);

#endif
