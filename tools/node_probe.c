/* Render-node probing for the CLI (node_probe.h): plain ioctls, no libdrm. */
#include "node_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"

int node_ioctl(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r == 0 ? 0 : -errno;
}

int node_version(int fd, struct node_version *v)
{
	memset(v, 0, sizeof(*v));
	struct drm_version req = { .name = v->name, .name_len = sizeof(v->name) - 1 };
	int r = node_ioctl(fd, DRM_IOCTL_VERSION, &req);
	v->major = req.version_major;
	v->minor = req.version_minor;
	v->patch = req.version_patchlevel;
	v->name[sizeof(v->name) - 1] = '\0';
	return r;
}

bool node_find(char *path, size_t len)
{
	for (int minor = 128; minor < 192; minor++) {
		char p[64];
		snprintf(p, sizeof(p), "/dev/dri/renderD%d", minor);
		int fd = open(p, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct node_version v;
		bool ours = node_version(fd, &v) == 0 && (!strcmp(v.name, "msm") || !strcmp(v.name, "v3d"));
		close(fd);
		if (ours) {
			snprintf(path, len, "%s", p);
			return true;
		}
	}
	return false;
}

int node_model(const char *gpu, char *model, size_t len, char *why, size_t why_len)
{
	char path[256];
	if (!strcmp(gpu, "auto")) {
		if (!node_find(path, sizeof(path))) {
			snprintf(why, why_len, "no msm or v3d render node found");
			return -ENODEV;
		}
	} else {
		snprintf(path, sizeof(path), "%s", gpu);
	}
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(why, why_len, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	struct node_version v;
	int ret = node_version(fd, &v);
	if (ret == 0 && !strcmp(v.name, "msm")) {
		struct drm_msm_param p = { .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_GPU_ID };
		ret = node_ioctl(fd, DRM_IOCTL_MSM_GET_PARAM, &p);
		if (ret == 0 && (p.value == 630 || p.value == 660))
			snprintf(model, len, "a%u", (unsigned)p.value);
		else if (ret == 0)
			ret = -ENODEV;
		if (ret < 0)
			snprintf(why, why_len, "%s: msm GPU_ID %llu is not a part ferry knows (a630, a660)", path,
				 (unsigned long long)p.value);
	} else if (ret == 0 && !strcmp(v.name, "v3d")) {
		struct drm_v3d_get_param p0 = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT0 };
		struct drm_v3d_get_param p1 = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT1 };
		ret = node_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p0);
		if (ret == 0)
			ret = node_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p1);
		/* IDENT0[31:24] = VER, IDENT1[3:0] = REV, as Mesa's v3d_get_device_info. */
		unsigned ver = (unsigned)((p0.value >> 24) & 0xff) * 10 + (unsigned)(p1.value & 0xf);
		if (ret == 0 && (ver == 42 || ver == 71))
			snprintf(model, len, "v3d-%u.%u", ver / 10, ver % 10);
		else if (ret == 0)
			ret = -ENODEV;
		if (ret < 0)
			snprintf(why, why_len, "%s: V3D %u.%u is not a part ferry knows (4.2, 7.1)", path, ver / 10, ver % 10);
	} else {
		snprintf(why, why_len, "%s: driver %s, not msm or v3d", path, ret == 0 ? v.name : "none (not a DRM device)");
		ret = -ENODEV;
	}
	close(fd);
	return ret;
}
