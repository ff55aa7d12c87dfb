/* drm_ioctl's handling of an ioctl's argument struct, shared by the core, msm and v3d paths of
 * the shim and by the fake kernel. */
#include <string.h>
#include <sys/ioctl.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "shim.h"

bool shim_is_submit(enum shim_family family, unsigned long request)
{
	unsigned nr = _IOC_NR(request);
	if (nr < DRM_COMMAND_BASE)
		return false;
	nr -= DRM_COMMAND_BASE;
	if (family == SHIM_FAMILY_MSM)
		return nr == DRM_MSM_GEM_SUBMIT;
	return nr == DRM_V3D_SUBMIT_CL || nr == DRM_V3D_SUBMIT_TFU || nr == DRM_V3D_SUBMIT_CSD;
}

static size_t common(unsigned long request, size_t ksize)
{
	size_t usize = _IOC_SIZE(request);
	return usize < ksize ? usize : ksize;
}

void shim_ioctl_copy_in(unsigned long request, const void *user, void *k, size_t ksize)
{
	memset(k, 0, ksize);
	if (_IOC_DIR(request) & _IOC_WRITE)
		memcpy(k, user, common(request, ksize));
}

void shim_ioctl_copy_out(const struct ferry_ioctl *io, unsigned long request, void *user, const void *k)
{
	if (ferry_ioctl_copies_out(io, request))
		memcpy(user, k, common(request, ferry_ioctl_size(io)));
}
