/* `ferry bench --isolation` (bench_isolation.c): a good client's latencies through one ferryd,
 * alone and beside a misbehaving client. */
#ifndef FERRY_TOOLS_BENCH_ISOLATION_H
#define FERRY_TOOLS_BENCH_ISOLATION_H

/* Prints the figures; returns 0, or 1 if the good client could not even start. */
int bench_isolation(const char *uri, int iters);

#endif
