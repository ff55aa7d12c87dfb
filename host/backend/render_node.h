/* The render-node kdev: struct kdev over a real DRM render node (msm or v3d), the kernel's own
 * answers through drmIoctl, with sync_file fds as the poll fd's fence wakeups. */
#ifndef FERRY_RENDER_NODE_H
#define FERRY_RENDER_NODE_H

#include <stdbool.h>
#include <stddef.h>

struct kdev;

enum render_node_family { RENDER_NODE_MSM, RENDER_NODE_V3D };

/* Opens path (O_RDWR | O_CLOEXEC) as one kdev: one DRM file, its own GEM handles and (msm) its own
 * address space. NULL with errno set on failure (ENODEV: the driver is neither msm nor v3d). */
struct kdev *render_node_open(const char *path, enum render_node_family family);

/* The driver behind an already open node: 0 and *family, -ENODEV for another driver, or a
 * negative errno. name/len (may be NULL) receive "msm 1.9.0". */
int render_node_identify(int fd, enum render_node_family *family, char *name, size_t len);

#endif
