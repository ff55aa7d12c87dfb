/* `ferry bench --vulkan`: the Vulkan submit loop of tests/e2e/vk_buffer_ops (vkQueueSubmit of a
 * small copy + vkWaitForFences, and pipelined submits) run by Debian's arm64 Mesa under
 * qemu-aarch64, three ways in one run: on the fake kernel (the simulated kernel in process, no
 * boundary: the baseline), through the shim and ferryd with a validated context, and with a
 * passthrough one. Every side runs under the same emulator, so the ratios compare like with like;
 * the absolute figures include qemu's cost. */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_vulkan.h"
#include "ferryd_spawn.h"

static double field(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	return p ? strtod(p + strlen(key), NULL) : 0.0;
}

int bench_vulkan_run(const char *cross_dir, const char *lib, const char *const *env, const char *icd, int iters,
		   struct vk_figures *out)
{
	char prog[PATH_MAX], preload[PATH_MAX + 16], icd_env[PATH_MAX], n[16];
	snprintf(prog, sizeof(prog), "%s/tests/e2e/vk_buffer_ops", cross_dir);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s/guest/shim/%s", cross_dir, lib);
	snprintf(icd_env, sizeof(icd_env), "VK_ICD_FILENAMES=%s", icd);
	snprintf(n, sizeof(n), "%d", iters);
	if (access(prog, X_OK) != 0) {
		fprintf(stderr, "bench: %s is missing (build the aarch64 cross dir: see README)\n", prog);
		return -ENOENT;
	}
	const char *argv[32];
	int a = 0;
	argv[a++] = "qemu-aarch64";
	argv[a++] = "-L";
	argv[a++] = "/";
	argv[a++] = "-E";
	argv[a++] = preload;
	argv[a++] = "-E";
	argv[a++] = icd_env;
	for (int i = 0; env[i] && a < 24; i++) {
		argv[a++] = "-E";
		argv[a++] = env[i];
	}
	argv[a++] = prog;
	argv[a++] = "--bench";
	argv[a++] = n;
	argv[a] = NULL;

	int pfd[2];
	if (pipe(pfd) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return e;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "bench: cannot run qemu-aarch64: %s\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	FILE *f = fdopen(pfd[0], "r");
	char line[1024];
	memset(out, 0, sizeof(*out));
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "using device[0]:", 16) == 0) {
			const char *d = strstr(line, "deviceName=\"");
			if (d) {
				snprintf(out->device, sizeof(out->device), "%s", d + 12);
				char *q = strchr(out->device, '"');
				if (q)
					*q = '\0';
			}
		} else if (strncmp(line, "bench ", 6) == 0) {
			out->wait_median_us = field(line, "submit_wait_us_median=");
			out->wait_p99_us = field(line, "submit_wait_us_p99=");
			out->pipelined_per_s = field(line, "pipelined_per_s=");
			out->ok = out->pipelined_per_s > 0;
		}
	}
	if (f)
		fclose(f);
	else
		close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !out->ok) {
		fprintf(stderr, "bench: vk_buffer_ops --bench with %s did not finish cleanly\n", lib);
		return -EIO;
	}
	return 0;
}

int bench_vulkan(const char *gpu, const char *ferryd, const char *cross_dir, int iters)
{
	bool v3d = strncmp(gpu, "v3d-", 4) == 0;
	const char *icd = v3d ? "/usr/share/vulkan/icd.d/broadcom_icd.aarch64.json"
			      : "/usr/share/vulkan/icd.d/freedreno_icd.aarch64.json";
	struct ferryd_proc proc = { .pid = -1 };
	const char *const extra[] = { "--allow-passthrough", NULL };
	if (ferryd_spawn(ferryd, gpu, extra, true, 10000, &proc) < 0)
		return 1;
	char gpu_env[64], sock_env[PATH_MAX];
	snprintf(gpu_env, sizeof(gpu_env), "FERRY_GPU=%s", gpu);
	snprintf(sock_env, sizeof(sock_env), "FERRY_SOCKET=%s", proc.socket);
	const char *const fk_env[] = { gpu_env, NULL };
	const char *const val_env[] = { sock_env, NULL };
	const char *const pass_env[] = { sock_env, "FERRY_POLICY=passthrough", NULL };

	struct vk_figures fk, val, pass;
	int r = bench_vulkan_run(cross_dir, "libferry-fakekernel.so", fk_env, icd, iters, &fk);
	if (r == 0)
		r = bench_vulkan_run(cross_dir, "libferry-shim.so", val_env, icd, iters, &val);
	if (r == 0)
		r = bench_vulkan_run(cross_dir, "libferry-shim.so", pass_env, icd, iters, &pass);
	int st = ferryd_stop(&proc, 5000);
	if (r < 0) {
		ferryd_dump_log(&proc, 20);
		return 1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "bench: ferryd did not exit cleanly\n");

	printf("ferry bench --vulkan: %s (%s), %d iterations, under qemu-aarch64 on every side\n", fk.device, gpu,
	       iters);
	printf("  vkQueueSubmit + vkWaitForFences, one small copy (median / p99 us):\n");
	printf("    fake kernel (no boundary)    %9.1f / %9.1f\n", fk.wait_median_us, fk.wait_p99_us);
	printf("    ferry, validated context     %9.1f / %9.1f   %.2fx the fake kernel's time\n", val.wait_median_us,
	       val.wait_p99_us, fk.wait_median_us > 0 ? val.wait_median_us / fk.wait_median_us : 0);
	printf("    ferry, passthrough context   %9.1f / %9.1f   %.2fx\n", pass.wait_median_us, pass.wait_p99_us,
	       fk.wait_median_us > 0 ? pass.wait_median_us / fk.wait_median_us : 0);
	printf("  pipelined submits (per second):\n");
	printf("    fake kernel                  %9.0f\n", fk.pipelined_per_s);
	printf("    ferry, validated context     %9.0f   %.2fx the fake kernel's rate\n", val.pipelined_per_s,
	       fk.pipelined_per_s > 0 ? val.pipelined_per_s / fk.pipelined_per_s : 0);
	printf("    ferry, passthrough context   %9.0f   %.2fx\n", pass.pipelined_per_s,
	       fk.pipelined_per_s > 0 ? pass.pipelined_per_s / fk.pipelined_per_s : 0);
	printf("  note: the fake kernel runs the simulated kernel and GPU (and their worker-thread wakeups)\n"
	       "  inside the emulated arm64 process, while ferryd runs them natively. Where that emulated\n"
	       "  work outweighs the boundary (V3D's tile-by-tile control lists, and often the a6xx CP\n"
	       "  thread), the baseline is the slower side. The boundary's own cost without emulation is\n"
	       "  what plain `ferry bench` measures (libferry through ferryd vs the simulator in process).\n");
	return 0;
}
