/* What ferry's guest surface does not offer, decided once for both backends: the shim, which has
 * no way to forward it, and the fake kernel, whose simulated kernel would take it (the baseline
 * must not offer more than ferry, or a driver's path would differ between the two). */
#include <errno.h>
#include <sys/ioctl.h>

#include "backend/uapi_msm.h"
#include "shim.h"

int shim_not_offered(enum shim_family family, unsigned long request, const void *arg)
{
	if (_IOC_TYPE(request) != DRM_IOCTL_BASE || !arg || family != SHIM_FAMILY_MSM)
		return 0;
	switch (_IOC_NR(request)) {
	case DRM_COMMAND_BASE + DRM_MSM_GEM_SUBMIT: {
		struct drm_msm_gem_submit s;
		shim_ioctl_copy_in(request, arg, &s, sizeof(s));
		/* Userspace-chosen seqnos: ferryd numbers each queue's fences itself (its fence page
		 * is indexed by them), so a seqno the guest picks would need a protocol message to
		 * reserve it on the host. Mesa 22.3 uses it only for virtio native contexts. */
		if (s.flags & MSM_SUBMIT_FENCE_SN_IN)
			return -EOPNOTSUPP;
		/* Relocations: every driver since msm 1.4 uses none, and the host does its own. A
		 * cmds array the kernel would refuse is left for the backend to refuse. */
		const struct drm_msm_gem_submit_cmd *c = (const void *)(uintptr_t)s.cmds;
		for (uint32_t k = 0; c && s.nr_cmds <= (1u << 16) && k < s.nr_cmds; k++)
			if (c[k].nr_relocs)
				return -EOPNOTSUPP;
		return 0;
	}
	case DRM_COMMAND_BASE + DRM_MSM_GEM_INFO: {
		struct drm_msm_gem_info i;
		shim_ioctl_copy_in(request, arg, &i, sizeof(i));
		/* The host places BOs; a driver choosing addresses would need them at creation. */
		return i.info == MSM_INFO_SET_IOVA ? -EOPNOTSUPP : 0;
	}
	}
	return 0;
}
