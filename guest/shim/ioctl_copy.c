/* drm_ioctl's handling of an ioctl's argument struct, shared by the core, msm and v3d paths of
 * the shim and by the fake kernel. */
#include <string.h>
#include <sys/ioctl.h>

#include "shim.h"

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

void shim_ioctl_copy_out(unsigned long request, void *user, const void *k, size_t ksize)
{
	if (_IOC_DIR(request) & _IOC_READ)
		memcpy(user, k, common(request, ksize));
}
