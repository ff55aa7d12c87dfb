/* The render-node kdev's devcoredumps on the fake kernel (libferry-fakekernel.so preloaded): a
 * dump names the open that faulted (its comm) and the process (cmdline), reading one leaves it
 * pending, another open never takes it, and the faulting open's take deletes it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ferry/hw/adreno_pm4.h>

#include "backend/render_node_priv.h"
#include "ferry/uapi/msm_drm.h"
#include "test.h"

#define NODE "/dev/dri/renderD128"

static int pending_dumps(void)
{
	DIR *d = opendir("/sys/class/devcoredump");
	if (!d)
		return 0;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strncmp(e->d_name, "devcd", 5) == 0;
	closedir(d);
	return n;
}

/* One job whose IB jumps to an unmapped address: a pagefault, and the device's dump. */
static void fault(struct kdev *kd)
{
	struct drm_msm_gem_new bo = { .size = 4096, .flags = MSM_BO_WC };
	REQUIRE(kd->ops->ioctl(kd, DRM_IOCTL_MSM_GEM_NEW, &bo) == 0);
	struct drm_msm_gem_info off = { .handle = bo.handle, .info = MSM_INFO_GET_OFFSET };
	REQUIRE(kd->ops->ioctl(kd, DRM_IOCTL_MSM_GEM_INFO, &off) == 0);
	uint32_t *map = kd->ops->mmap(kd, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, off.value);
	REQUIRE(map != MAP_FAILED);
	map[0] = pm4_type7_hdr(CP_INDIRECT_BUFFER, 3);
	map[1] = 0xf0000000u; /* 0x1f0000000: inside the VA range, never mapped */
	map[2] = 0x1;
	map[3] = 4;
	kd->ops->munmap(kd, map, 4096);
	struct drm_msm_gem_submit_bo sb = { .flags = MSM_SUBMIT_BO_READ, .handle = bo.handle };
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .size = 16 };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | MSM_SUBMIT_FENCE_FD_OUT, .fence_fd = -1,
		.bos = (uint64_t)(uintptr_t)&sb, .nr_bos = 1, .cmds = (uint64_t)(uintptr_t)&cmd, .nr_cmds = 1,
	};
	REQUIRE(kd->ops->ioctl(kd, DRM_IOCTL_MSM_GEM_SUBMIT, &s) == 0);
	struct pollfd p = { .fd = s.fence_fd, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 5000), 1);
	close(s.fence_fd);
}

static void test_dump_is_the_faulting_opens(void)
{
	struct kdev *kd = render_node_open(NODE, RENDER_NODE_MSM);
	if (!kd)
		fprintf(stderr, "%s: %s (run with libferry-fakekernel.so preloaded)\n", NODE, strerror(errno));
	REQUIRE(kd);
	struct kdev *other = render_node_open(NODE, RENDER_NODE_MSM);
	REQUIRE(other);
	const char *tag = ((struct rn_kdev *)kd)->comm_tag;
	CHECK(tag[0]);
	fault(kd);
	REQUIRE(pending_dumps() == 1);

	/* Reading data leaves the dump pending, as the kernel's. */
	int fd = open("/sys/class/devcoredump/devcd1/data", O_RDONLY);
	char head[512] = "";
	CHECK(fd >= 0 && read(fd, head, sizeof(head) - 1) > 0);
	if (fd >= 0)
		close(fd);
	CHECK(strstr(head, "\ncmdline: "));
	CHECK_EQ(pending_dumps(), 1);

	/* Another open of the same process never takes it, nor deletes it. */
	static char buf[1 << 20];
	CHECK_EQ(other->ops->coredump(other, buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(pending_dumps(), 1);

	/* The faulting open takes its own, naming it; the take deletes it. */
	CHECK(kd->ops->coredump(kd, buf, sizeof(buf)) > 0);
	char want[96];
	snprintf(want, sizeof(want), "\ncomm: %s\n", tag);
	CHECK(strstr(buf, want));
	CHECK(strstr(buf, "pagefault-info:"));
	CHECK_EQ(pending_dumps(), 0);
	CHECK_EQ(kd->ops->coredump(kd, buf, sizeof(buf)), -ENOENT);
	other->ops->close(other);
	kd->ops->close(kd);
}

int main(void)
{
	RUN_TEST(test_dump_is_the_faulting_opens);
	return test_finish();
}
