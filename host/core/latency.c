/* The host's latency histograms: submit to fence signal, FENCE_WAIT request to reply. Fixed
 * Prometheus-style buckets, so an observation is a handful of compares and two adds. */
#include <errno.h>

#include "host_types.h"
#include "latency.h"

/* 50 us .. 10 s in 1-2.5-5 steps: a simulated submit retires in tens of us, a hang at the
 * hangcheck (500 ms by default), a fence wait may last seconds. */
static const uint64_t bounds_ns[FERRY_HOST_LATENCY_BUCKETS - 1] = {
	50000ull, 100000ull, 250000ull, 500000ull,
	1000000ull, 2500000ull, 5000000ull, 10000000ull, 25000000ull, 50000000ull,
	100000000ull, 250000000ull, 500000000ull,
	1000000000ull, 2500000000ull, 5000000000ull, 10000000000ull,
};

void latency_observe(struct host_latency *l, int64_t ns)
{
	uint64_t v = ns < 0 ? 0 : (uint64_t)ns;
	/* Binary search over the 17 bounds: at most 5 compares. */
	unsigned lo = 0, hi = FERRY_HOST_LATENCY_BUCKETS - 1;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (v <= bounds_ns[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	l->count[lo]++;
	l->total++;
	l->sum_ns += v;
}

int ferry_host_get_latency(const struct ferry_host *h, unsigned kind, struct ferry_host_latency *out)
{
	if (kind >= FERRY_HOST_LATENCY_KINDS)
		return -EINVAL;
	const struct host_latency *l = &h->latency[kind];
	for (unsigned i = 0; i < FERRY_HOST_LATENCY_BUCKETS; i++) {
		out->le_ns[i] = i + 1 < FERRY_HOST_LATENCY_BUCKETS ? bounds_ns[i] : UINT64_MAX;
		out->count[i] = l->count[i];
	}
	out->total = l->total;
	out->sum_ns = l->sum_ns;
	return 0;
}
