/* Latency histograms of the host (latency.c): O(1) per observation, single-threaded like the
 * rest of the host's counters (the embedder's loop makes every observation). */
#ifndef FERRY_HOST_LATENCY_H
#define FERRY_HOST_LATENCY_H

#include <stdint.h>

#include <ferry/host.h>

struct host_latency {
	uint64_t count[FERRY_HOST_LATENCY_BUCKETS];
	uint64_t total, sum_ns;
};

/* Adds one observation of ns nanoseconds (negative counts as 0). */
void latency_observe(struct host_latency *l, int64_t ns);

#endif
