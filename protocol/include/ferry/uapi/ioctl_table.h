/* The ioctls ferry's DRM render nodes answer (the shim, and the simulated kernels behind the fake
 * kernel and ferryd), each by the kernel's own request: nr, argument size and direction, and a
 * name. One table, so the shim, the fake kernel and the real kernel agree on sizes and errnos. */
#ifndef FERRY_UAPI_IOCTL_TABLE_H
#define FERRY_UAPI_IOCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

enum ferry_ioctl_family {
	FERRY_IOCTL_CORE, /* the DRM core only (drm_ioctl.c, drm_prime.c, drm_syncobj.c) */
	FERRY_IOCTL_MSM,  /* the DRM core and msm's driver ioctls */
	FERRY_IOCTL_V3D,  /* the DRM core and v3d's driver ioctls */
};

struct ferry_ioctl {
	/* DRM_IOCTL_x as the kernel defines it: _IOC_SIZE is the kernel's struct (a shorter user
	 * struct is zero-extended, a longer one's tail ignored), _IOC_DIR says whether drm_ioctl
	 * copies the argument back. */
	uint32_t request;
	const char *name; /* "MSM_GEM_SUBMIT", "SYNCOBJ_WAIT", ... */
};

/* The entry for nr (the whole _IOC_NR: driver ioctls count from DRM_COMMAND_BASE) on a node of
 * family: the core ioctls every node offers, and the family's own; NULL for one it does not
 * offer (perfmons, SET_CLIENT_CAP, KMS ...). */
const struct ferry_ioctl *ferry_ioctl_find(enum ferry_ioctl_family family, unsigned nr);

static inline size_t ferry_ioctl_size(const struct ferry_ioctl *io)
{
	return _IOC_SIZE(io->request);
}

/* drm_ioctl copies the kernel's struct back only for a request both the kernel and the caller
 * declare _IOC_READ (a DRM_IOW ioctl such as msm's SUBMITQUEUE_QUERY never writes back). */
static inline bool ferry_ioctl_copies_out(const struct ferry_ioctl *io, unsigned long user_request)
{
	return (_IOC_DIR(io->request) & _IOC_READ) && (_IOC_DIR(user_request) & _IOC_READ);
}

/* What the 6.1 kernel answers a render client for a core nr (below DRM_COMMAND_BASE, or at or
 * after DRM_COMMAND_END) that no node offers: -EACCES for one its table has without
 * DRM_RENDER_ALLOW (SET_CLIENT_CAP, GET_UNIQUE, GEM_FLINK/OPEN, every MODE_* ...), -EINVAL for a
 * gap in the table or a number past it. */
int ferry_drm_core_unoffered_errno(unsigned nr);
/* The same for a whole call: drm_ioctl copies the argument in before drm_ioctl_permit refuses, so
 * a NULL argument of a request that carries data in (the caller's and the kernel's _IOC_WRITE,
 * a non-zero size) faults first: -EFAULT where the refusal would be -EACCES. */
int ferry_drm_core_unoffered_call(unsigned long request, const void *arg);
/* The core ioctl nrs of the 6.1 table that carry DRM_RENDER_ALLOW. */
bool ferry_drm_core_render_allowed(unsigned nr);

#endif
