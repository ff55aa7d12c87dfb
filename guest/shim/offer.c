/* What ferry's guest surface does not offer, decided once for both backends: the shim, which has
 * no way to forward it, and the fake kernel, whose simulated kernel would take it (the baseline
 * must not offer more than ferry, or a driver's path would differ between the two). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ferry/uapi/msm_drm.h"
#include "shim.h"

bool shim_offers_timelines(void)
{
	const char *v = getenv("FERRY_SYNCOBJ_TIMELINE");
	return v && strcmp(v, "1") == 0;
}

static bool is_timeline_ioctl(unsigned long request)
{
	unsigned nr = _IOC_NR(request);
	return _IOC_TYPE(request) == DRM_IOCTL_BASE &&
	       (nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT) || nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_QUERY) ||
		nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TRANSFER) || nr == _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL));
}

void shim_offer_fixup(unsigned long request, void *arg, int ret)
{
	struct drm_get_cap c;
	if (ret || !arg || request != DRM_IOCTL_GET_CAP || shim_offers_timelines())
		return;
	memcpy(&c, arg, sizeof(c));
	if (c.capability == DRM_CAP_SYNCOBJ_TIMELINE) {
		c.value = 0;
		memcpy(arg, &c, sizeof(c));
	}
}

/* With timelines switched off, what 6.1 answers a driver without DRIVER_SYNCOBJ_TIMELINE: the
 * timeline ioctls and msm syncobj points are -EOPNOTSUPP (v3d's points are ignored, as 6.1's). */
static int timeline_not_offered(enum shim_family family, unsigned long request, const void *arg)
{
	if (is_timeline_ioctl(request))
		return -EOPNOTSUPP;
	if (family != SHIM_FAMILY_MSM || _IOC_NR(request) != DRM_COMMAND_BASE + DRM_MSM_GEM_SUBMIT)
		return 0;
	struct drm_msm_gem_submit s;
	shim_ioctl_copy_in(request, arg, &s, sizeof(s));
	uint32_t flags = MSM_PIPE_FLAGS(s.flags);
	/* Entries as msm copies them: min(stride, sizeof) bytes over a zeroed descriptor. A stride
	 * the backend refuses is left for it to refuse. */
	uint32_t stride = s.syncobj_stride;
	size_t copy = stride < sizeof(struct drm_msm_gem_submit_syncobj) ? stride : sizeof(struct drm_msm_gem_submit_syncobj);
	for (int out = 0; out < 2 && stride && stride <= 4096; out++) {
		uint64_t base = out ? s.out_syncobjs : s.in_syncobjs;
		uint32_t n = out ? s.nr_out_syncobjs : s.nr_in_syncobjs;
		if (!(flags & (out ? MSM_SUBMIT_SYNCOBJ_OUT : MSM_SUBMIT_SYNCOBJ_IN)) || !base || n > (1u << 16))
			continue;
		for (uint32_t i = 0; i < n; i++) {
			struct drm_msm_gem_submit_syncobj d = { 0 };
			memcpy(&d, (const char *)(uintptr_t)base + (size_t)i * stride, copy);
			if (d.point)
				return -EOPNOTSUPP;
		}
	}
	return 0;
}

int shim_not_offered(enum shim_family family, unsigned long request, const void *arg)
{
	if (_IOC_TYPE(request) != DRM_IOCTL_BASE || !arg)
		return 0;
	if (!shim_offers_timelines()) {
		int r = timeline_not_offered(family, request, arg);
		if (r)
			return r;
	}
	if (family != SHIM_FAMILY_MSM)
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
