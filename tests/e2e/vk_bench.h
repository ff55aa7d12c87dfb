/* The submit-latency benchmark of vk_buffer_ops (--bench): submit+wait round trips and pipelined
 * submits of a small copy, printed as one machine-readable `bench ...` line. */
#ifndef FERRY_E2E_VK_BENCH_H
#define FERRY_E2E_VK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "vk_context.h"

#define VK_BENCH_MAX_DEPTH 64u

/* Runs `iterations` submit+wait rounds, then `iterations` submits kept `depth` deep; checks the
 * copied bytes at the end. Returns false on any Vulkan error, timeout or wrong byte. */
bool vk_bench_run(struct vk_ctx *ctx, unsigned iterations, unsigned depth, uint64_t timeout_ns);

#endif
