/* The render-node kdev's job wakeups, on the fake kernel (libferry-fakekernel.so preloaded): the
 * sync_files an open watches stay bounded however many jobs it submits unacked, and a job with no
 * sync_file (a V3D job without an out-sync) still makes the poll fd readable. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/render_node_priv.h"
#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "test.h"

#define NODE "/dev/dri/renderD128"

static struct kdev *open_msm(void)
{
	struct kdev *kd = render_node_open(NODE, RENDER_NODE_MSM);
	if (!kd) {
		fprintf(stderr, "skip: %s: %s (run with libferry-fakekernel.so preloaded)\n", NODE, strerror(errno));
		return NULL;
	}
	return kd;
}

static int submit(struct kdev *kd, uint32_t flags)
{
	struct drm_msm_gem_submit s = { .flags = MSM_PIPE_3D0 | flags, .fence_fd = -1 };
	int ret = kd->ops->ioctl(kd, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	if (ret == 0 && (flags & MSM_SUBMIT_FENCE_FD_OUT))
		close(s.fence_fd);
	return ret;
}

static void test_bounded(void)
{
	struct kdev *kd = open_msm();
	REQUIRE(kd);
	struct rn_kdev *k = (struct rn_kdev *)kd;
	/* Never acked: only the sweep before growing and the cap keep the array in bounds. */
	for (int i = 0; i < 1000; i++)
		REQUIRE(submit(kd, 0) == 0);
	CHECK(k->nr_fences <= 256);
	CHECK(k->cap_fences <= 512);
	kd->ops->poll_ack(kd);
	struct pollfd p = { .fd = kd->ops->poll_fd(kd), .events = POLLIN };
	/* Every job ran: once acked, nothing is left to wake the owner. */
	for (int i = 0; i < 100 && k->nr_fences; i++) {
		usleep(10000);
		kd->ops->poll_ack(kd);
	}
	CHECK_EQ(k->nr_fences, 0);
	CHECK_EQ(poll(&p, 1, 0), 0);
	kd->ops->close(kd);
}

/* A V3D job without an out-sync has no sync_file to watch. */
static void test_blind_job_wakes(void)
{
	struct kdev *kd = render_node_open(NODE, RENDER_NODE_V3D);
	REQUIRE(kd);
	struct rn_kdev *k = (struct rn_kdev *)kd;
	struct drm_v3d_create_bo bo = { .size = 4096 };
	REQUIRE(kd->ops->ioctl(kd, DRM_IOCTL_V3D_CREATE_BO, &bo) == 0);
	struct drm_v3d_mmap_bo mb = { .handle = bo.handle };
	REQUIRE(kd->ops->ioctl(kd, DRM_IOCTL_V3D_MMAP_BO, &mb) == 0);
	uint8_t *map = kd->ops->mmap(kd, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mb.offset);
	REQUIRE(map != MAP_FAILED);
	memset(map, 1, 16); /* NOPs */
	kd->ops->munmap(kd, map, 4096);
	struct drm_v3d_submit_cl cl = {
		.rcl_start = bo.offset, .rcl_end = bo.offset + 16,
		.bo_handles = (uint64_t)(uintptr_t)&bo.handle, .bo_handle_count = 1,
	};
	uint64_t blind = k->blind_jobs;
	REQUIRE(kd->ops->ioctl(kd, DRM_IOCTL_V3D_SUBMIT_CL, &cl) == 0);
	CHECK_EQ(k->blind_jobs, blind + 1);
	struct pollfd p = { .fd = kd->ops->poll_fd(kd), .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 1000), 1);
	/* It keeps waking the owner while the job may still run. */
	kd->ops->poll_ack(kd);
	CHECK_EQ(poll(&p, 1, 1000), 1);
	kd->ops->close(kd);
}

int main(int argc, char **argv)
{
	/* The fake kernel is one GPU per process (FERRY_GPU): "v3d" runs the V3D half. */
	if (argc > 1 && strcmp(argv[1], "v3d") == 0)
		RUN_TEST(test_blind_job_wakes);
	else
		RUN_TEST(test_bounded);
	return test_finish();
}
