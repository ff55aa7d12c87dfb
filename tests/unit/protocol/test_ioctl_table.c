/* The one ioctl table (ferry/uapi/ioctl_table.h): the kernel's sizes and directions, which nodes
 * offer what, and the errnos a render client gets for what no node offers. */
#include <errno.h>

#include <drm.h>

#include "ferry/uapi/ioctl_table.h"
#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "test.h"

static void test_sizes_and_directions(void)
{
	const struct ferry_ioctl *io = ferry_ioctl_find(FERRY_IOCTL_MSM, _IOC_NR(DRM_IOCTL_MSM_GEM_SUBMIT));
	REQUIRE(io);
	CHECK_EQ(ferry_ioctl_size(io), sizeof(struct drm_msm_gem_submit));
	CHECK(strcmp(io->name, "MSM_GEM_SUBMIT") == 0);
	CHECK(ferry_ioctl_copies_out(io, DRM_IOCTL_MSM_GEM_SUBMIT));
	/* A DRM_IOW ioctl never copies back, whatever the caller's request says. */
	io = ferry_ioctl_find(FERRY_IOCTL_MSM, _IOC_NR(DRM_IOCTL_MSM_SUBMITQUEUE_QUERY));
	REQUIRE(io);
	CHECK(!ferry_ioctl_copies_out(io, DRM_IOWR(_IOC_NR(DRM_IOCTL_MSM_SUBMITQUEUE_QUERY),
						   struct drm_msm_submitqueue_query)));
	io = ferry_ioctl_find(FERRY_IOCTL_MSM, _IOC_NR(DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE));
	REQUIRE(io);
	CHECK_EQ(ferry_ioctl_size(io), sizeof(uint32_t));
	/* SUBMIT_TFU with the 7.1 tail: the 6.1 request is zero-extended to it. */
	io = ferry_ioctl_find(FERRY_IOCTL_V3D, _IOC_NR(DRM_IOCTL_V3D_SUBMIT_TFU_61));
	REQUIRE(io);
	CHECK_EQ(ferry_ioctl_size(io), sizeof(struct drm_v3d_submit_tfu));
	CHECK(!ferry_ioctl_copies_out(io, DRM_IOCTL_V3D_SUBMIT_TFU));
	io = ferry_ioctl_find(FERRY_IOCTL_CORE, _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT));
	REQUIRE(io);
	CHECK_EQ(ferry_ioctl_size(io), sizeof(struct drm_syncobj_wait));
	CHECK(ferry_ioctl_copies_out(io, DRM_IOCTL_SYNCOBJ_WAIT));
}

static void test_offered(void)
{
	/* The core ioctls on every node; a driver nr only on its own family's. */
	CHECK(ferry_ioctl_find(FERRY_IOCTL_V3D, _IOC_NR(DRM_IOCTL_GEM_CLOSE)) != NULL);
	CHECK(ferry_ioctl_find(FERRY_IOCTL_MSM, _IOC_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL)) != NULL);
	CHECK(ferry_ioctl_find(FERRY_IOCTL_CORE, _IOC_NR(DRM_IOCTL_MSM_GET_PARAM)) == NULL);
	CHECK(ferry_ioctl_find(FERRY_IOCTL_MSM, DRM_COMMAND_BASE + 0x09) == NULL); /* msm's unused nr */
	CHECK(ferry_ioctl_find(FERRY_IOCTL_V3D, _IOC_NR(DRM_IOCTL_V3D_PERFMON_CREATE)) == NULL);
	CHECK(ferry_ioctl_find(FERRY_IOCTL_MSM, _IOC_NR(DRM_IOCTL_SET_CLIENT_CAP)) == NULL);
	unsigned core = 0, msm = 0, v3d = 0;
	for (unsigned nr = 0; nr < 0x100; nr++) {
		core += ferry_ioctl_find(FERRY_IOCTL_CORE, nr) != NULL;
		msm += ferry_ioctl_find(FERRY_IOCTL_MSM, nr) != NULL;
		v3d += ferry_ioctl_find(FERRY_IOCTL_V3D, nr) != NULL;
	}
	CHECK_EQ(core, 16);
	CHECK_EQ(msm, 16 + 12);
	CHECK_EQ(v3d, 16 + 8);
}

static void test_unoffered_errnos(void)
{
	CHECK_EQ(ferry_drm_core_unoffered_errno(_IOC_NR(DRM_IOCTL_SET_CLIENT_CAP)), -EACCES);
	/* A whole call: the argument is copied in before the permission check, so NULL faults. */
	struct drm_set_client_cap cc = { 0 };
	CHECK_EQ(ferry_drm_core_unoffered_call(DRM_IOCTL_SET_CLIENT_CAP, &cc), -EACCES);
	CHECK_EQ(ferry_drm_core_unoffered_call(DRM_IOCTL_SET_CLIENT_CAP, NULL), -EFAULT);
	CHECK_EQ(ferry_drm_core_unoffered_call(DRM_IOCTL_SET_MASTER, NULL), -EACCES); /* DRM_IO */
	CHECK_EQ(ferry_drm_core_unoffered_call(_IOWR('d', 0x0e, int), NULL), -EINVAL); /* no entry */
	CHECK_EQ(ferry_drm_core_unoffered_errno(_IOC_NR(DRM_IOCTL_MODE_GETRESOURCES)), -EACCES);
	CHECK_EQ(ferry_drm_core_unoffered_errno(0x0e), -EINVAL); /* a gap in the 6.1 table */
	CHECK_EQ(ferry_drm_core_unoffered_errno(0x30), -EINVAL); /* AGP, absent on arm64 */
	CHECK_EQ(ferry_drm_core_unoffered_errno(0xcf), -EINVAL); /* past the table */
	/* Every nr a node offers carries DRM_RENDER_ALLOW. */
	for (unsigned nr = 0; nr < 0x100; nr++)
		if (ferry_ioctl_find(FERRY_IOCTL_CORE, nr))
			CHECK(ferry_drm_core_render_allowed(nr));
}

int main(void)
{
	RUN_TEST(test_sizes_and_directions);
	RUN_TEST(test_offered);
	RUN_TEST(test_unoffered_errnos);
	return test_finish();
}
