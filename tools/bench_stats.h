/* What every `ferry bench` mode measures with: a monotonic clock in µs and percentiles of a
 * sample of latencies. */
#ifndef FERRY_TOOLS_BENCH_STATS_H
#define FERRY_TOOLS_BENCH_STATS_H

/* CLOCK_MONOTONIC in µs. */
double bench_now_us(void);
/* The pct-th percentile (0..100, nearest rank) of v[0..n); sorts v in place. 0 if n <= 0. */
double bench_percentile(double *v, int n, double pct);

#endif
