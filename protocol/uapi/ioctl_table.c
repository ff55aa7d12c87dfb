/* The ioctl table of ferry's DRM nodes (ferry/uapi/ioctl_table.h), and the 6.1 DRM core table
 * as a render node sees it: which core nrs exist and which a render client may call. */
#include "ferry/uapi/ioctl_table.h"

#include <errno.h>

#include <drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"

#define IOCTL(req, nm) { .request = (req), .name = (nm) }

/* The core ioctls every ferry node answers itself. */
static const struct ferry_ioctl core_ioctls[] = {
	IOCTL(DRM_IOCTL_VERSION, "VERSION"),
	IOCTL(DRM_IOCTL_GET_CAP, "GET_CAP"),
	IOCTL(DRM_IOCTL_GEM_CLOSE, "GEM_CLOSE"),
	IOCTL(DRM_IOCTL_PRIME_HANDLE_TO_FD, "PRIME_HANDLE_TO_FD"),
	IOCTL(DRM_IOCTL_PRIME_FD_TO_HANDLE, "PRIME_FD_TO_HANDLE"),
	IOCTL(DRM_IOCTL_SYNCOBJ_CREATE, "SYNCOBJ_CREATE"),
	IOCTL(DRM_IOCTL_SYNCOBJ_DESTROY, "SYNCOBJ_DESTROY"),
	IOCTL(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, "SYNCOBJ_HANDLE_TO_FD"),
	IOCTL(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, "SYNCOBJ_FD_TO_HANDLE"),
	IOCTL(DRM_IOCTL_SYNCOBJ_WAIT, "SYNCOBJ_WAIT"),
	IOCTL(DRM_IOCTL_SYNCOBJ_RESET, "SYNCOBJ_RESET"),
	IOCTL(DRM_IOCTL_SYNCOBJ_SIGNAL, "SYNCOBJ_SIGNAL"),
	IOCTL(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, "SYNCOBJ_TIMELINE_WAIT"),
	IOCTL(DRM_IOCTL_SYNCOBJ_QUERY, "SYNCOBJ_QUERY"),
	IOCTL(DRM_IOCTL_SYNCOBJ_TRANSFER, "SYNCOBJ_TRANSFER"),
	IOCTL(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, "SYNCOBJ_TIMELINE_SIGNAL"),
};

static const struct ferry_ioctl msm_ioctls[] = {
	IOCTL(DRM_IOCTL_MSM_GET_PARAM, "MSM_GET_PARAM"),
	IOCTL(DRM_IOCTL_MSM_SET_PARAM, "MSM_SET_PARAM"),
	IOCTL(DRM_IOCTL_MSM_GEM_NEW, "MSM_GEM_NEW"),
	IOCTL(DRM_IOCTL_MSM_GEM_INFO, "MSM_GEM_INFO"),
	IOCTL(DRM_IOCTL_MSM_GEM_CPU_PREP, "MSM_GEM_CPU_PREP"),
	IOCTL(DRM_IOCTL_MSM_GEM_CPU_FINI, "MSM_GEM_CPU_FINI"),
	IOCTL(DRM_IOCTL_MSM_GEM_SUBMIT, "MSM_GEM_SUBMIT"),
	IOCTL(DRM_IOCTL_MSM_WAIT_FENCE, "MSM_WAIT_FENCE"),
	IOCTL(DRM_IOCTL_MSM_GEM_MADVISE, "MSM_GEM_MADVISE"),
	IOCTL(DRM_IOCTL_MSM_SUBMITQUEUE_NEW, "MSM_SUBMITQUEUE_NEW"),
	IOCTL(DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, "MSM_SUBMITQUEUE_CLOSE"),
	IOCTL(DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, "MSM_SUBMITQUEUE_QUERY"),
};

/* Perfmons are not offered: SUPPORTS_PERFMON reads 0. SUBMIT_TFU is the size with the 7.1 tail;
 * the 80-byte 6.1 request is zero-extended to it. */
static const struct ferry_ioctl v3d_ioctls[] = {
	IOCTL(DRM_IOCTL_V3D_SUBMIT_CL, "V3D_SUBMIT_CL"),
	IOCTL(DRM_IOCTL_V3D_WAIT_BO, "V3D_WAIT_BO"),
	IOCTL(DRM_IOCTL_V3D_CREATE_BO, "V3D_CREATE_BO"),
	IOCTL(DRM_IOCTL_V3D_MMAP_BO, "V3D_MMAP_BO"),
	IOCTL(DRM_IOCTL_V3D_GET_PARAM, "V3D_GET_PARAM"),
	IOCTL(DRM_IOCTL_V3D_GET_BO_OFFSET, "V3D_GET_BO_OFFSET"),
	IOCTL(DRM_IOCTL_V3D_SUBMIT_TFU, "V3D_SUBMIT_TFU"),
	IOCTL(DRM_IOCTL_V3D_SUBMIT_CSD, "V3D_SUBMIT_CSD"),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct ferry_ioctl *find_in(const struct ferry_ioctl *t, size_t n, unsigned nr)
{
	for (size_t i = 0; i < n; i++)
		if (_IOC_NR(t[i].request) == nr)
			return &t[i];
	return NULL;
}

const struct ferry_ioctl *ferry_ioctl_find(enum ferry_ioctl_family family, unsigned nr)
{
	if (nr < DRM_COMMAND_BASE || nr >= DRM_COMMAND_END)
		return find_in(core_ioctls, COUNT(core_ioctls), nr);
	switch (family) {
	case FERRY_IOCTL_MSM: return find_in(msm_ioctls, COUNT(msm_ioctls), nr);
	case FERRY_IOCTL_V3D: return find_in(v3d_ioctls, COUNT(v3d_ioctls), nr);
	case FERRY_IOCTL_CORE: break;
	}
	return NULL;
}

/* The 6.1 core table (drm_ioctls[], arm64: no AGP entries) has nrs below DRM_CORE_IOCTL_COUNT. */
#define CORE_IOCTL_COUNT 0xcfu

bool ferry_drm_core_render_allowed(unsigned nr)
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

int ferry_drm_core_unoffered_errno(unsigned nr)
{
	/* drm_ioctl: no entry -> -EINVAL; drm_ioctl_permit: a render client calling an entry
	 * without DRM_RENDER_ALLOW -> -EACCES. */
	if (!in_core_table(nr) || ferry_drm_core_render_allowed(nr))
		return -EINVAL;
	return -EACCES;
}

int ferry_drm_core_unoffered_call(unsigned long request, const void *arg)
{
	unsigned nr = _IOC_NR(request);
	int err = ferry_drm_core_unoffered_errno(nr);
	/* SET_MASTER and DROP_MASTER are DRM_IO in the kernel's table: nothing is copied in. */
	bool kernel_in = nr != 0x1e && nr != 0x1f;
	if (err == -EACCES && !arg && kernel_in && (_IOC_DIR(request) & _IOC_WRITE) && _IOC_SIZE(request))
		return -EFAULT;
	return err;
}
