/* `ferry bench --vulkan`: Debian's arm64 Vulkan driver (Turnip or v3dv) under qemu-aarch64 running
 * the e2e program's submit loop through ferry (shim + ferryd) and on the fake kernel. */
#ifndef FERRY_TOOLS_BENCH_VULKAN_H
#define FERRY_TOOLS_BENCH_VULKAN_H

/* cross_dir: the aarch64 build holding libferry-shim.so, libferry-fakekernel.so and
 * tests/e2e/vk_buffer_ops. ferryd: the x86-64 ferryd to spawn. Returns a process exit code. */
int bench_vulkan(const char *gpu, const char *ferryd, const char *cross_dir, int iters);

#endif
