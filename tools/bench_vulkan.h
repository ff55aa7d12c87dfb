/* `ferry bench --vulkan`: Debian's arm64 Vulkan driver (Turnip or v3dv) under qemu-aarch64 running
 * the e2e program's submit loop through ferry (shim + ferryd) and on the fake kernel. */
#ifndef FERRY_TOOLS_BENCH_VULKAN_H
#define FERRY_TOOLS_BENCH_VULKAN_H

/* cross_dir: the aarch64 build holding libferry-shim.so, libferry-fakekernel.so and
 * tests/e2e/vk_buffer_ops. ferryd: the x86-64 ferryd to spawn. Returns a process exit code. */
#include <stdbool.h>

struct vk_figures {
	bool ok;
	double wait_median_us, wait_p99_us, pipelined_per_s;
	char device[96];
};

/* Runs cross_dir's vk_buffer_ops --bench iters under qemu-aarch64 with cross_dir/guest/shim/lib
 * preloaded, the Vulkan ICD file icd and env (NULL-terminated "NAME=value", at most 8); parses its
 * "bench" line into out. The child inherits the caller's network namespace. 0 or -errno. */
int bench_vulkan_run(const char *cross_dir, const char *lib, const char *const *env, const char *icd, int iters,
		     struct vk_figures *out);

int bench_vulkan(const char *gpu, const char *ferryd, const char *cross_dir, int iters);

#endif
