/* The GPU device factory (device.h): simulated parts from host/sim, render nodes through
 * render_node.c, `auto` through libdrm's device list. */
#include "device.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kdev.h"
#include "render_node.h"
#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "sim/msm/sim_msm.h"
#include "sim/v3d/sim_v3d.h"

_Static_assert(GPU_UNMODELED_KINDS == SIM_UNMODELED_KINDS, "one list of unmodeled-work kinds");

struct gpu_device {
	enum gpu_family family;
	struct sim_msm_device *msm;  /* simulated msm, else NULL */
	struct sim_v3d_device *v3d;  /* simulated V3D, else NULL */
	char node[64];               /* a render node's path, "" for a simulator */
	char name[160];              /* node (64) + " (" + driver version (64) + ")" */
	char model[32];              /* "a630", "v3d-4.2": the part, for guests and captures */
};

const char *const gpu_sim_models[] = { "a630", "a660", "v3d-4.2", "v3d-7.1", NULL };

static bool is_sim_model(const char *gpu)
{
	for (const char *const *m = sim_msm_models; *m; m++)
		if (!strcmp(*m, gpu))
			return true;
	for (const char *const *m = sim_v3d_models; *m; m++)
		if (!strcmp(*m, gpu))
			return true;
	return false;
}

bool gpu_name_valid(const char *gpu)
{
	return gpu && (is_sim_model(gpu) || !strcmp(gpu, "auto") || !strncmp(gpu, "/dev/", 5));
}

#define WHY(...) (why && why_len ? (void)snprintf(why, why_len, __VA_ARGS__) : (void)0)

/* The part behind a node, named as the simulated ones are ("a630", "v3d-7.1"), so guests and
 * captures see the same names on a board as on the simulator. */
static void node_model(int fd, enum render_node_family family, char *model, size_t len)
{
	if (family == RENDER_NODE_MSM) {
		struct drm_msm_param p = { .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_GPU_ID };
		if (drmIoctl(fd, DRM_IOCTL_MSM_GET_PARAM, &p) == 0 && p.value)
			snprintf(model, len, "a%llu", (unsigned long long)p.value);
		else
			snprintf(model, len, "msm");
		return;
	}
	struct drm_v3d_get_param i0 = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT0 };
	struct drm_v3d_get_param i1 = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT1 };
	/* IDENT0[31:24] = VER, IDENT1[3:0] = REV (as Mesa's v3d_get_device_info). */
	if (drmIoctl(fd, DRM_IOCTL_V3D_GET_PARAM, &i0) == 0 && drmIoctl(fd, DRM_IOCTL_V3D_GET_PARAM, &i1) == 0)
		snprintf(model, len, "v3d-%u.%u", (unsigned)(i0.value >> 24) & 0xff, (unsigned)i1.value & 0xf);
	else
		snprintf(model, len, "v3d");
}

/* Opens path once to learn its driver (and, model non-NULL, the part). */
static int probe_node(const char *path, enum render_node_family *family, char *ver, size_t ver_len, char *model,
		      size_t model_len)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int ret = render_node_identify(fd, family, ver, ver_len);
	if (ret == 0 && model)
		node_model(fd, *family, model, model_len);
	close(fd);
	return ret;
}

/* drmGetDevices2: the first render node whose driver is msm or v3d. -ENAMETOOLONG if the only
 * such nodes have paths that do not fit. */
static int find_auto(char *path, size_t len)
{
	drmDevicePtr devs[64];
	int max = (int)(sizeof(devs) / sizeof(devs[0]));
	int n = drmGetDevices2(0, devs, max);
	if (n < 0)
		return n;
	/* It returns how many devices there are, which may be more than it filled in. */
	if (n > max)
		n = max;
	int ret = -ENODEV;
	for (int i = 0; i < n && ret != 0; i++) {
		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		const char *node = devs[i]->nodes[DRM_NODE_RENDER];
		enum render_node_family f;
		if (probe_node(node, &f, NULL, 0, NULL, 0) != 0)
			continue;
		if (strlen(node) >= len) {
			ret = -ENAMETOOLONG;
			continue;
		}
		snprintf(path, len, "%s", node);
		ret = 0;
	}
	drmFreeDevices(devs, n);
	return ret;
}

int gpu_device_create(const char *gpu, struct gpu_device **out, char *why, size_t why_len)
{
	struct gpu_device *d = calloc(1, sizeof(*d));
	if (!d) {
		WHY("out of memory");
		return -ENOMEM;
	}
	int ret;
	if (!strcmp(gpu, "auto") || !strncmp(gpu, "/dev/", 5)) {
		if (!strcmp(gpu, "auto")) {
			ret = find_auto(d->node, sizeof(d->node));
			if (ret == -ENAMETOOLONG) {
				WHY("the msm or v3d render node's path is longer than %zu bytes", sizeof(d->node) - 1);
				goto fail;
			}
			if (ret < 0) {
				WHY("no msm or v3d render node found");
				goto fail;
			}
		} else if (strlen(gpu) >= sizeof(d->node)) {
			/* A cut path would name another file. */
			WHY("%.32s...: a render node path is at most %zu bytes", gpu, sizeof(d->node) - 1);
			ret = -ENAMETOOLONG;
			goto fail;
		} else {
			snprintf(d->node, sizeof(d->node), "%s", gpu);
		}
		enum render_node_family f;
		char ver[64] = "";
		ret = probe_node(d->node, &f, ver, sizeof(ver), d->model, sizeof(d->model));
		if (ret < 0) {
			if (ret == -ENOTTY || ret == -EINVAL)
				WHY("%s is not a DRM device", d->node);
			else if (ret == -ENODEV)
				WHY("%s is driven by %s, not msm or v3d", d->node, ver[0] ? ver : "an unknown driver");
			else
				WHY("cannot open %s: %s", d->node, strerror(-ret));
			goto fail;
		}
		d->family = f == RENDER_NODE_V3D ? GPU_FAMILY_V3D : GPU_FAMILY_MSM;
		snprintf(d->name, sizeof(d->name), "%s (%s)", d->node, ver);
	} else if (!strncmp(gpu, "v3d-", 4)) {
		ret = sim_v3d_device_create(gpu, &d->v3d);
		if (ret < 0) {
			WHY("cannot create simulated GPU '%s': %s", gpu, strerror(-ret));
			goto fail;
		}
		d->family = GPU_FAMILY_V3D;
		snprintf(d->name, sizeof(d->name), "sim %s", sim_v3d_model(d->v3d));
		snprintf(d->model, sizeof(d->model), "%s", sim_v3d_model(d->v3d));
	} else {
		ret = sim_msm_device_create(gpu, &d->msm);
		if (ret < 0) {
			WHY("cannot create simulated GPU '%s': %s", gpu, strerror(-ret));
			goto fail;
		}
		d->family = GPU_FAMILY_MSM;
		snprintf(d->name, sizeof(d->name), "sim %s", sim_msm_model(d->msm));
		snprintf(d->model, sizeof(d->model), "%s", sim_msm_model(d->msm));
	}
	*out = d;
	return 0;
fail:
	gpu_device_destroy(d);
	return ret;
}

void gpu_device_destroy(struct gpu_device *d)
{
	if (!d)
		return;
	if (d->msm)
		sim_msm_device_destroy(d->msm);
	if (d->v3d)
		sim_v3d_device_destroy(d->v3d);
	free(d);
}

enum gpu_family gpu_device_family(const struct gpu_device *d)
{
	return d->family;
}

const char *gpu_device_name(const struct gpu_device *d)
{
	return d->name;
}

const char *gpu_device_model(const struct gpu_device *d)
{
	return d->model;
}

bool gpu_device_is_simulated(const struct gpu_device *d)
{
	return d->msm || d->v3d;
}

const char *gpu_device_limits(const struct gpu_device *d)
{
	if (gpu_device_is_simulated(d))
		return "";
	if (d->family == GPU_FAMILY_V3D)
		return "the v3d kernel reports no MMU faults to userspace (a faulting job only fails its "
		       "fence), keeps no devcoredump and no debug state; the simulator's hang injection, "
		       "--sim-strict and unmodeled-work counts do not apply";
	return "the msm kernel gives no debug state (sync-state dumps lack the CP's wait), its "
	       "devcoredump is read from /sys/class/devcoredump (root); the simulator's hang "
	       "injection, --sim-strict and unmodeled-work counts do not apply";
}

struct kdev *gpu_device_open(struct gpu_device *d)
{
	if (d->msm)
		return sim_msm_open(d->msm);
	if (d->v3d)
		return sim_v3d_open(d->v3d);
	return render_node_open(d->node, d->family == GPU_FAMILY_V3D ? RENDER_NODE_V3D : RENDER_NODE_MSM);
}

void gpu_device_set_hangcheck_ms(struct gpu_device *d, unsigned ms)
{
	if (d->msm)
		sim_msm_set_hangcheck_ms(d->msm, ms);
	if (d->v3d)
		sim_v3d_set_hangcheck_ms(d->v3d, ms);
}

void gpu_device_set_strict(struct gpu_device *d, bool strict)
{
	if (d->msm)
		sim_msm_set_strict(d->msm, strict);
	if (d->v3d)
		sim_v3d_set_strict(d->v3d, strict);
}

void gpu_device_set_unmodeled_cb(struct gpu_device *d, struct kdev *kd, gpu_unmodeled_fn fn, void *cookie)
{
	if (d->msm)
		sim_msm_set_unmodeled_cb(kd, fn, cookie);
	if (d->v3d)
		sim_v3d_set_unmodeled_cb(kd, fn, cookie);
}

const char *gpu_unmodeled_name(unsigned kind)
{
	return sim_unmodeled_name(kind);
}

const char *gpu_unmodeled_message(unsigned kind)
{
	return sim_unmodeled_message(kind);
}

bool gpu_unmodeled_fails_strict(unsigned kind)
{
	return sim_unmodeled_fails_strict(kind);
}
