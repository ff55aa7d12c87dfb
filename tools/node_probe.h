/* What a render node is, read with plain ioctls (the static `ferry` has no libdrm): its driver,
 * finding the first msm or v3d node, and which known part it is. Shared by doctor and demo. */
#ifndef FERRY_TOOLS_NODE_PROBE_H
#define FERRY_TOOLS_NODE_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* As drmIoctl: retried on EINTR / EAGAIN; 0 or a negative errno. */
int node_ioctl(int fd, unsigned long req, void *arg);

/* The driver's name and version (DRM_IOCTL_VERSION, as drmGetVersion). */
struct node_version {
	char name[32];
	int major, minor, patch;
};
int node_version(int fd, struct node_version *v);

/* The first render node (/dev/dri/renderD128..191, as libdrm's device list) whose driver is msm
 * or v3d, into path. */
bool node_find(char *path, size_t len);

/* gpu is "auto" or a /dev/dri path: the part it is, named as --gpu names the simulated ones
 * ("a630", "a660", "v3d-4.2", "v3d-7.1"), into model. 0, or a negative errno with the reason in
 * why (no node, not msm / v3d, a part ferry does not know). */
int node_model(const char *gpu, char *model, size_t len, char *why, size_t why_len);

#endif
