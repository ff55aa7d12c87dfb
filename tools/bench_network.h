/* `ferry bench --network`: the submit loops over unix, tcp+TLS, plain tcp and tcp+TLS across a
 * veth pair with a delay line, in one run (bench_network.c). */
#ifndef FERRY_TOOLS_BENCH_NETWORK_H
#define FERRY_TOOLS_BENCH_NETWORK_H

#include <stdbool.h>

/* ferryd: the binary to spawn; cross_dir: the aarch64 build for --vulkan. Prints the figures;
 * returns a process exit code (1 when a row that could run failed). */
int bench_network(const char *ferryd, const char *gpu, int iters, int delay_ms, bool vulkan, const char *cross_dir);

#endif
