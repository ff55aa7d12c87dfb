/* The 6.1 DRM core ioctl table as a render node sees it: which nrs exist and which a render
 * client may call. Pure facts, shared by the simulated kernels and the shim. */
#include <errno.h>

#include <drm.h>

#include "sim_drm_core.h"

/* The 6.1 core table (drm_ioctls[], arm64: no AGP entries): which nrs it has, and which of
 * those carry DRM_RENDER_ALLOW. DRM_CORE_IOCTL_COUNT is 0xcf. */
#define CORE_IOCTL_COUNT 0xcfu

bool sim_drm_core_render_allowed(unsigned nr)
{
	switch (nr) {
	case 0x00: /* VERSION */
	case 0x09: /* GEM_CLOSE */
	case 0x0c: /* GET_CAP */
	case 0x2d: /* PRIME_HANDLE_TO_FD */
	case 0x2e: /* PRIME_FD_TO_HANDLE */
		return true;
	default:
		/* SYNCOBJ_CREATE .. SIGNAL, TIMELINE_WAIT .. TIMELINE_SIGNAL */
		return (nr >= 0xbf && nr <= 0xc5) || (nr >= 0xca && nr <= 0xcd);
	}
}

static bool in_core_table(unsigned nr)
{
	if (nr >= CORE_IOCTL_COUNT)
		return false;
	if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END)
		return false;
	/* The gaps: 0x0e-0x0f, 0x2f-0x37 (AGP, absent on arm64), 0x3d-0x3e. */
	return !(nr == 0x0e || nr == 0x0f || (nr >= 0x2f && nr <= 0x37) || nr == 0x3d || nr == 0x3e);
}

int sim_drm_core_unhandled(unsigned nr)
{
	/* drm_ioctl: no entry -> -EINVAL; drm_ioctl_permit: a render client calling an entry
	 * without DRM_RENDER_ALLOW -> -EACCES. */
	if (!in_core_table(nr) || sim_drm_core_render_allowed(nr))
		return -EINVAL;
	return -EACCES;
}
