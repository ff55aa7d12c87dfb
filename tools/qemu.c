/* `ferry qemu`: runs an unmodified QEMU with ferry's renderer library (vmm-glue/'s
 * libvirglrenderer.so.1) first on its library path and the renderer's settings in its
 * environment, so a user never has to guess either (docs/vm.md). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "subcommands.h"

#define RENDERER "libvirglrenderer.so.1"

static void usage(void)
{
	fprintf(stderr,
		"usage: ferry qemu [--gpu a630|a660|v3d-4.2|v3d-7.1] [--sim-strict] [--v3d-tenancy exclusive|shared]\n"
		"                  [--allow-passthrough] [--renderer-dir DIR] [--log-level 0-3] -- QEMU [QEMU ARGS...]\n"
		"  Runs QEMU (e.g. qemu-system-x86_64 ... -device virtio-gpu-gl-pci -display gtk,gl=on) with\n"
		"  ferry's renderer library instead of virglrenderer. Guests reach ferry through virtio-gpu\n"
		"  (libferry's virtio: transport).\n");
}

static bool has_renderer(const char *dir)
{
	char p[PATH_MAX];
	int n = snprintf(p, sizeof(p), "%s/%s", dir, RENDERER);
	return n > 0 && (size_t)n < sizeof(p) && access(p, R_OK) == 0;
}

/* The renderer's directory: given, $FERRY_VG_DIR, or next to this program (build tree or
 * install). */
static int locate(const char *given, char *buf, size_t len)
{
	const char *env = getenv("FERRY_VG_DIR");
	const char *pick = given && given[0] ? given : env && env[0] ? env : NULL;
	if (pick) {
		snprintf(buf, len, "%s", pick);
		return has_renderer(buf) ? 0 : -ENOENT;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -ENOENT;
	self[n] = '\0';
	char *dir = dirname(self);
	static const char *const rel[] = { "../vmm-glue", "../lib/ferry", "../lib/x86_64-linux-gnu/ferry",
					   "../lib/aarch64-linux-gnu/ferry", "../lib64/ferry" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX];
		int w = snprintf(cand, sizeof(cand), "%s/%s", dir, rel[i]);
		if (w > 0 && (size_t)w < sizeof(cand) && has_renderer(cand) && realpath(cand, buf))
			return 0;
	}
	return -ENOENT;
}

int cmd_qemu(int argc, char **argv)
{
	const char *gpu = NULL, *tenancy = NULL, *dir_arg = NULL, *log_level = NULL;
	bool strict = false, passthrough = false;
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--sim-strict") == 0) {
			strict = true;
		} else if (strcmp(a, "--allow-passthrough") == 0) {
			passthrough = true;
		} else if (i + 1 < argc && strcmp(a, "--gpu") == 0) {
			gpu = argv[++i];
		} else if (i + 1 < argc && strcmp(a, "--v3d-tenancy") == 0) {
			tenancy = argv[++i];
		} else if (i + 1 < argc && strcmp(a, "--renderer-dir") == 0) {
			dir_arg = argv[++i];
		} else if (i + 1 < argc && strcmp(a, "--log-level") == 0) {
			log_level = argv[++i];
		} else {
			usage();
			return 2;
		}
	}
	if (i >= argc) {
		usage();
		return 2;
	}
	char dir[PATH_MAX];
	if (locate(dir_arg, dir, sizeof(dir)) < 0) {
		fprintf(stderr, "ferry qemu: no %s found (build vmm-glue/, or give --renderer-dir)\n", RENDERER);
		return 1;
	}
	const char *old = getenv("LD_LIBRARY_PATH");
	size_t need = strlen(dir) + (old ? strlen(old) + 1 : 0) + 1;
	char *path = malloc(need);
	if (!path)
		return 1;
	snprintf(path, need, "%s%s%s", dir, old && old[0] ? ":" : "", old && old[0] ? old : "");
	setenv("LD_LIBRARY_PATH", path, 1);
	free(path);
	if (gpu)
		setenv("FERRY_VG_GPU", gpu, 1);
	if (strict)
		setenv("FERRY_VG_SIM_STRICT", "1", 1);
	if (tenancy)
		setenv("FERRY_VG_V3D_TENANCY", tenancy, 1);
	if (passthrough)
		setenv("FERRY_VG_ALLOW_PASSTHROUGH", "1", 1);
	if (log_level)
		setenv("FERRY_VG_LOG_LEVEL", log_level, 1);
	bool gl_device = false;
	for (int k = i; k < argc; k++)
		gl_device |= strstr(argv[k], "virtio-gpu-gl") != NULL || strstr(argv[k], "virtio-vga-gl") != NULL;
	if (!gl_device)
		fprintf(stderr, "ferry qemu: note: QEMU loads the renderer only for -device virtio-gpu-gl-pci (or "
			"virtio-vga-gl) with a GL display (-display gtk,gl=on or sdl,gl=on)\n");
	execvp(argv[i], argv + i);
	fprintf(stderr, "ferry qemu: cannot run %s: %s\n", argv[i], strerror(errno));
	return 127;
}
