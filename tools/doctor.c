/* `ferry doctor`: checks a real board for ferry — finds the msm or v3d render node, checks the
 * driver, its version and the part against those ferry knows, runs one small job and waits for
 * its fence (the sync_file path ferryd's render-node kdev uses), and says what works, one line
 * each. Exit status 1 when anything ferryd needs failed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "ferry/hw/adreno_pm4.h"
#include "node_probe.h"
#include "subcommands.h"

static int failures;

static void line(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%-5s ", ok ? "ok" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures += !ok;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%-5s ", "note");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* Waits for a sync_file to signal (poll, as the kdev's epoll set does). */
static bool fence_fd_signals(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* ---- msm ---- */

/* A part and the CHIP_IDs it ships with (revisions: a630 is 6.3.0.1 or 6.3.0.2). */
struct msm_part {
	const char *name;
	uint64_t gpu_id, chip_id[2], gmem;
};
static const struct msm_part msm_parts[] = {
	{ "a630", 630, { 0x06030001, 0x06030002 }, 1u << 20 },
	{ "a660", 660, { 0x06060001, 0 }, 0x180000 },
};

static bool part_has_chip(const struct msm_part *p, uint64_t chip_id)
{
	return chip_id && (chip_id == p->chip_id[0] || chip_id == p->chip_id[1]);
}

static uint64_t msm_param(int fd, uint32_t param, int *err)
{
	struct drm_msm_param p = { .pipe = MSM_PIPE_3D0, .param = param };
	*err = node_ioctl(fd, DRM_IOCTL_MSM_GET_PARAM, &p);
	return p.value;
}

static void check_msm(int fd)
{
	int e1, e2, e3, e4;
	uint64_t gpu_id = msm_param(fd, MSM_PARAM_GPU_ID, &e1);
	uint64_t chip_id = msm_param(fd, MSM_PARAM_CHIP_ID, &e2);
	uint64_t gmem = msm_param(fd, MSM_PARAM_GMEM_SIZE, &e3);
	uint64_t va = msm_param(fd, MSM_PARAM_VA_SIZE, &e4);
	line(!e1 && !e2 && !e3, "parameters: GPU_ID %llu, CHIP_ID 0x%llx, GMEM %llu KiB",
	     (unsigned long long)gpu_id, (unsigned long long)chip_id, (unsigned long long)gmem / 1024);
	const struct msm_part *part = NULL;
	for (size_t i = 0; i < sizeof(msm_parts) / sizeof(msm_parts[0]); i++)
		if (gpu_id == msm_parts[i].gpu_id || part_has_chip(&msm_parts[i], chip_id))
			part = &msm_parts[i];
	if (!part) {
		line(false, "part: not one ferry knows (a630, a660): its validator and decoder are a6xx ones");
	} else {
		bool known = part_has_chip(part, chip_id);
		line(known, "part: %s (CHIP_ID 0x%llx %s)", part->name, (unsigned long long)chip_id,
		     known ? "is one of its revisions" : "is not a revision ferry knows");
		line(gmem == part->gmem, "GMEM: %llu KiB %s %s's %llu KiB", (unsigned long long)gmem / 1024,
		     gmem == part->gmem ? "as" : "differs from", part->name, (unsigned long long)part->gmem / 1024);
	}
	line(!e4 && va > 0, "per-process address spaces: %s",
	     !e4 && va ? "yes (contexts are isolated)" : "no (contexts would share one)");

	/* FAULTS counts every hang since boot that no context was blamed for too: compared, not
	 * expected to be 0. */
	int fe;
	uint64_t faults_before = msm_param(fd, MSM_PARAM_FAULTS, &fe);
	/* One BO holding a CP_NOP IB, one submit asking for a fence fd, the fence waited for twice. */
	struct drm_msm_gem_new bo = { .size = 4096, .flags = MSM_BO_WC };
	int r = node_ioctl(fd, DRM_IOCTL_MSM_GEM_NEW, &bo);
	struct drm_msm_gem_info off = { .handle = bo.handle, .info = MSM_INFO_GET_OFFSET };
	if (r == 0)
		r = node_ioctl(fd, DRM_IOCTL_MSM_GEM_INFO, &off);
	uint32_t *ib = MAP_FAILED;
	if (r == 0) {
		ib = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off.value);
		r = ib == MAP_FAILED ? -errno : 0;
	}
	line(r == 0, "BO: GEM_NEW, GEM_INFO(GET_OFFSET), mmap%s%s", r ? ": " : "", r ? strerror(-r) : "");
	if (r)
		return;
	/* CP_NOP with no payload. */
	ib[0] = pm4_type7_hdr(CP_NOP, 0);
	struct drm_msm_gem_submit_bo sbo = { .flags = MSM_SUBMIT_BO_READ, .handle = bo.handle };
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0, .size = 4 };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | MSM_SUBMIT_FENCE_FD_OUT, .fence_fd = -1, .queueid = 0,
		.nr_bos = 1, .bos = (uintptr_t)&sbo, .nr_cmds = 1, .cmds = (uintptr_t)&cmd,
	};
	r = node_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	line(r == 0 && s.fence_fd >= 0, "submit: a CP_NOP IB with FENCE_FD_OUT%s%s", r ? ": " : "",
	     r ? strerror(-r) : "");
	if (r == 0 && s.fence_fd >= 0) {
		line(fence_fd_signals(s.fence_fd, 5000), "fence: the submit's sync_file signals (poll)");
		close(s.fence_fd);
		struct drm_msm_wait_fence w = { .fence = s.fence, .queueid = 0 };
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		w.timeout.tv_sec = now.tv_sec + 1;
		w.timeout.tv_nsec = now.tv_nsec;
		r = node_ioctl(fd, DRM_IOCTL_MSM_WAIT_FENCE, &w);
		line(r == 0, "fence: WAIT_FENCE %u%s%s", s.fence, r ? ": " : "", r ? strerror(-r) : "");
		int e;
		uint64_t faults = msm_param(fd, MSM_PARAM_FAULTS, &e);
		line(!e && !fe && faults == faults_before, "faults: %llu before and after the submit%s",
		     (unsigned long long)faults, !e && !fe && faults != faults_before ? " (it grew: the NOP faulted)" : "");
	}
	munmap(ib, 4096);
	struct drm_gem_close c = { .handle = bo.handle };
	node_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/* ---- v3d ---- */

static uint64_t v3d_param(int fd, uint32_t param, int *err)
{
	struct drm_v3d_get_param p = { .param = param };
	*err = node_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p);
	return p.value;
}

/* A 96 x 48 RGBA8 image (as `ferry demo`'s TFU copy). */
#define TFU_W 96u
#define TFU_H 48u
#define TFU_BYTES (TFU_W * TFU_H * 4u)

struct v3d_buf {
	uint32_t handle, addr;
	uint8_t *map;
};

static int v3d_buf_new(int fd, struct v3d_buf *b)
{
	struct drm_v3d_create_bo c = { .size = TFU_BYTES };
	int r = node_ioctl(fd, DRM_IOCTL_V3D_CREATE_BO, &c);
	if (r)
		return r;
	b->handle = c.handle;
	b->addr = c.offset;
	struct drm_v3d_mmap_bo m = { .handle = c.handle };
	r = node_ioctl(fd, DRM_IOCTL_V3D_MMAP_BO, &m);
	if (r)
		return r;
	b->map = mmap(NULL, TFU_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.offset);
	return b->map == MAP_FAILED ? -errno : 0;
}

static void check_v3d(int fd)
{
	int e0, e1, et;
	uint64_t ident0 = v3d_param(fd, DRM_V3D_PARAM_V3D_CORE0_IDENT0, &e0);
	uint64_t ident1 = v3d_param(fd, DRM_V3D_PARAM_V3D_CORE0_IDENT1, &e1);
	uint64_t tfu = v3d_param(fd, DRM_V3D_PARAM_SUPPORTS_TFU, &et);
	/* IDENT0[31:24] = VER, IDENT1[3:0] = REV, as Mesa's v3d_get_device_info. */
	unsigned ver = (unsigned)((ident0 >> 24) & 0xff) * 10 + (unsigned)(ident1 & 0xf);
	line(!e0 && !e1, "parameters: CORE0_IDENT0 0x%08llx, CORE0_IDENT1 0x%08llx (V3D %u.%u)",
	     (unsigned long long)ident0, (unsigned long long)ident1, ver / 10, ver % 10);
	line(ver == 42 || ver == 71, "part: %s", ver == 42 ? "V3D 4.2 (Raspberry Pi 4)" : ver == 71 ? "V3D 7.1 (Raspberry Pi 5)"
											: "not one ferry knows (V3D 4.2, 7.1)");
	line(!et && tfu, "TFU: %s", !et && tfu ? "offered" : "not offered (ferry's TFU queue needs it)");

	struct v3d_buf src = { 0 }, dst = { 0 };
	int r = v3d_buf_new(fd, &src);
	if (r == 0)
		r = v3d_buf_new(fd, &dst);
	line(r == 0, "BO: CREATE_BO, MMAP_BO, mmap%s%s", r ? ": " : "", r ? strerror(-r) : "");
	struct drm_syncobj_create sc = { 0 };
	if (r == 0)
		r = node_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc);
	if (r == 0 && !et && tfu) {
		/* A TFU raster copy, its fence in an out-syncobj. */
		for (uint32_t i = 0; i < TFU_BYTES; i++)
			src.map[i] = (uint8_t)(i * 7 + 1);
		memset(dst.map, 0, TFU_BYTES);
		struct drm_v3d_submit_tfu t = {
			.iia = src.addr, .iis = TFU_W, .ioa = dst.addr, .ios = (TFU_H << 16) | TFU_W,
			.bo_handles = { dst.handle, src.handle }, .out_sync = sc.handle,
		};
		/* Texture type 4 (RGBA8: 4-byte texels), raster in and out, as `ferry demo`. */
		if (ver >= 71) {
			t.icfg = 4u << 16;
			t.v71.ioc = TFU_W << 16;
		} else {
			t.icfg = 4u << 9;
		}
		r = node_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_TFU, &t);
		line(r == 0, "submit: a TFU copy%s%s", r ? ": " : "", r ? strerror(-r) : "");
		struct drm_syncobj_handle h = { .handle = sc.handle, .fd = -1,
						.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE };
		if (r == 0) {
			r = node_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);
			line(r == 0, "fence: out-syncobj exported as a sync_file%s%s", r ? ": " : "", r ? strerror(-r) : "");
		}
		if (r == 0) {
			line(fence_fd_signals(h.fd, 5000), "fence: the job's sync_file signals (poll)");
			close(h.fd);
			struct drm_syncobj_wait w = { .handles = (uintptr_t)&sc.handle, .count_handles = 1,
						      .timeout_nsec = INT64_MAX };
			r = node_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
			line(r == 0, "fence: SYNCOBJ_WAIT%s%s", r ? ": " : "", r ? strerror(-r) : "");
			line(memcmp(src.map, dst.map, TFU_BYTES) == 0, "TFU copy: the destination holds the source");
		}
	}
	if (sc.handle) {
		struct drm_syncobj_destroy d = { .handle = sc.handle };
		node_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
	}
	struct v3d_buf *bufs[] = { &src, &dst };
	for (int i = 0; i < 2; i++) {
		if (bufs[i]->map && bufs[i]->map != MAP_FAILED)
			munmap(bufs[i]->map, TFU_BYTES);
		if (bufs[i]->handle) {
			struct drm_gem_close c = { .handle = bufs[i]->handle };
			node_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry doctor [--gpu auto|/dev/dri/renderDNNN]\n"
		   "  Checks a board for ferryd --gpu on a render node: the node, its driver and version,\n"
		   "  the part (a630, a660, V3D 4.2, 7.1), one small job and its fence. One line per check;\n"
		   "  exit status 1 if any failed. See docs/real-board.md.\n");
}

int cmd_doctor(int argc, char **argv)
{
	const char *gpu = "auto";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gpu") && i + 1 < argc) {
			gpu = argv[++i];
		} else if (!strncmp(argv[i], "--gpu=", 6)) {
			gpu = argv[i] + 6;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	char path[256];
	if (!strcmp(gpu, "auto")) {
		bool found = node_find(path, sizeof(path));
		line(found, "node: %s", found ? path : "no msm or v3d render node found");
		if (!found)
			return 1;
	} else {
		snprintf(path, sizeof(path), "%s", gpu);
	}
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		line(false, "open %s: %s", path, strerror(errno));
		return 1;
	}
	line(true, "open %s", path);
	struct node_version vb, *v = &vb;
	bool drm = node_version(fd, v) == 0;
	bool msm = drm && !strcmp(v->name, "msm");
	bool v3d = drm && !strcmp(v->name, "v3d");
	if (!msm && !v3d) {
		line(false, "driver: %s, not msm or v3d", drm ? v->name : "none (not a DRM device)");
	} else {
		/* What Linux 6.1 reports: the uAPI ferry's backends and validators follow. */
		bool new_enough = msm ? (v->major == 1 && v->minor >= 9) : v->major == 1;
		line(new_enough, "driver: %s %d.%d.%d%s", v->name, v->major, v->minor, v->patch, new_enough ? "" : msm ? " (ferry needs msm 1.9, Linux 6.1, or later)"
								  : " (ferry knows v3d 1.x)");
	}
	if (msm)
		check_msm(fd);
	else if (v3d)
		check_v3d(fd);
	close(fd);
	if (msm || v3d) {
		bool dc = access("/sys/class/devcoredump", R_OK) == 0;
		note("devcoredump: %s", msm ? dc ? "/sys/class/devcoredump readable: fault reports get the kernel's crash state"
						    : "/sys/class/devcoredump not readable: fault reports lack the kernel's crash state"
					 : "v3d reports no MMU faults and keeps no coredump: a faulting access goes to a scratch page and the job runs on");
		bool tf = access("/sys/kernel/tracing/instances", W_OK) == 0;
		note("trace: %s", tf ? "tracefs writable: `ferry trace` gets the driver's job events"
				     : "tracefs not writable (root needed): `ferry trace` has no kernel events");
		note("not on a real kernel: sync-state debug state, hang injection, --sim-strict, unmodeled-work counts");
	}
	printf("%s\n", failures ? "doctor: some checks FAILED" : "doctor: every check passed");
	return failures ? 1 : 0;
}
