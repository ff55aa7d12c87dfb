/* The DRM core ioctls of the simulated v3d render node: VERSION, GET_CAP, render-node
 * permissions, syncobj fds and sync files (the v3d GL driver's fence path) and PRIME import. */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "v3dsim_util.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	REQUIRE(d);
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_version_and_caps(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-4.2", &dev) == 0);
	struct kdev *k = sim_v3d_open(dev);
	REQUIRE(k);
	char name[2] = { 'x', 'x' }, date[32] = { 0 }, desc[64] = { 0 };
	struct drm_version v = { .name = name, .name_len = 2, .date = date, .date_len = sizeof(date),
				 .desc = desc, .desc_len = sizeof(desc) };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_VERSION, &v), 0);
	CHECK_EQ(v.version_major, 1);
	CHECK_EQ(v.version_minor, 0);
	CHECK_EQ(v.version_patchlevel, 0);
	CHECK_EQ(v.name_len, 3);
	CHECK(!memcmp(name, "v3", 2)); /* cut to the 2 bytes given */
	CHECK_EQ(v.date_len, 8);
	CHECK(!strcmp(date, "20180419"));
	CHECK(!strcmp(desc, "Broadcom V3D graphics"));
	/* NULL buffers with lengths: only the lengths come back. */
	v = (struct drm_version){ .name_len = 10 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_VERSION, &v), 0);
	CHECK_EQ(v.name_len, 3);

	struct drm_get_cap c = { .capability = DRM_CAP_SYNCOBJ };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), 0);
	CHECK_EQ(c.value, 1);
	c = (struct drm_get_cap){ .capability = DRM_CAP_SYNCOBJ_TIMELINE, .value = 5 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), 0);
	CHECK_EQ(c.value, 1); /* ferry offers timelines (6.1's v3d does not) */
	c = (struct drm_get_cap){ .capability = DRM_CAP_PRIME };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), 0);
	CHECK_EQ(c.value, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
	/* A KMS cap on a driver without DRIVER_MODESET. */
	c = (struct drm_get_cap){ .capability = DRM_CAP_DUMB_BUFFER };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), -EOPNOTSUPP);

	struct drm_set_client_cap cc = { .capability = DRM_CLIENT_CAP_ATOMIC, .value = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SET_CLIENT_CAP, &cc), -EACCES);
	struct drm_gem_flink fl = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GEM_FLINK, &fl), -EACCES);
	struct drm_syncobj_transfer tr = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_TRANSFER, &tr), -ENOENT); /* no dst_handle 0 */
	k->ops->close(k);
	sim_v3d_device_destroy(dev);
}

/* What v3d_fence.c does for glFinish: export the out syncobj's fence as a sync file, import
 * it into a fresh syncobj, wait on that. */
static void test_sync_file_fence(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-4.2", &dev) == 0);
	struct kdev *k = sim_v3d_open(dev);
	REQUIRE(k);
	uint32_t out = syncobj_new(k, true);
	struct drm_syncobj_handle e = { .handle = out, .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
					.fd = -1 };
	REQUIRE(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e) == 0);
	struct pollfd p = { .fd = e.fd, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 0), 1); /* signaled: readable, as a sync_file */
	uint32_t w = syncobj_new(k, false);
	struct drm_syncobj_handle i = { .fd = e.fd, .handle = w,
					.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &i), 0);
	struct drm_syncobj_wait sw = { .handles = (uintptr_t)&w, .count_handles = 1, .timeout_nsec = INT64_MAX };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_WAIT, &sw), 0);
	close(e.fd);
	/* Many exports closed again do not pile up: each close lets the device drop its end. */
	int fds_before = open_fds();
	for (int n = 0; n < 2000; n++) {
		e = (struct drm_syncobj_handle){ .handle = out, .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE };
		REQUIRE(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e) == 0);
		close(e.fd);
	}
	CHECK(open_fds() <= fds_before + 1);
	/* Opaque syncobj fds: the same syncobj in another open. */
	struct kdev *k2 = sim_v3d_open(dev);
	REQUIRE(k2);
	e = (struct drm_syncobj_handle){ .handle = w };
	REQUIRE(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e) == 0);
	i = (struct drm_syncobj_handle){ .fd = e.fd };
	CHECK_EQ(kdev_ioctl(k2, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &i), 0);
	close(e.fd);
	struct drm_syncobj_array ra = { .handles = (uintptr_t)&i.handle, .count_handles = 1 };
	CHECK_EQ(kdev_ioctl(k2, DRM_IOCTL_SYNCOBJ_RESET, &ra), 0);
	sw = (struct drm_syncobj_wait){ .handles = (uintptr_t)&w, .count_handles = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_WAIT, &sw), -EINVAL); /* k sees k2's reset */
	k2->ops->close(k2);
	k->ops->close(k);
	sim_v3d_device_destroy(dev);
}

/* PRIME across opens: one object at one GPU address. */
static void test_prime_import(void)
{
	struct sim_v3d_device *dev;
	REQUIRE(sim_v3d_device_create("v3d-7.1", &dev) == 0);
	struct kdev *a = sim_v3d_open(dev), *b = sim_v3d_open(dev);
	REQUIRE(a && b);
	struct tbo x = tbo_new(a, 4096);
	struct drm_prime_handle e = { .handle = x.handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	REQUIRE(kdev_ioctl(a, DRM_IOCTL_PRIME_HANDLE_TO_FD, &e) == 0);
	struct drm_prime_handle i = { .fd = e.fd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), 0);
	CHECK_EQ(i.handle, x.handle);
	i = (struct drm_prime_handle){ .fd = e.fd };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), 0);
	/* One object: the same GPU address in both opens, alive while either holds it. */
	struct drm_v3d_get_bo_offset off = { .handle = i.handle };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_V3D_GET_BO_OFFSET, &off), 0);
	CHECK_EQ(off.offset, x.offset);
	x.map[100] = 0x42;
	tbo_free(a, &x);
	struct drm_v3d_mmap_bo m = { .handle = i.handle };
	REQUIRE(kdev_ioctl(b, DRM_IOCTL_V3D_MMAP_BO, &m) == 0);
	uint8_t *p = b->ops->mmap(b, 4096, PROT_READ, MAP_SHARED, m.offset);
	REQUIRE(p != MAP_FAILED);
	CHECK_EQ(p[100], 0x42);
	b->ops->munmap(b, p, 4096);
	close(e.fd);
	/* Not a BO of this device. */
	int mfd = memfd_create("ferry-v3d-bo", MFD_CLOEXEC);
	REQUIRE(mfd >= 0 && ftruncate(mfd, 4096) == 0);
	i = (struct drm_prime_handle){ .fd = mfd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), -EINVAL);
	close(mfd);
	i = (struct drm_prime_handle){ .fd = -1 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), -EBADF);
	a->ops->close(a);
	b->ops->close(b);
	sim_v3d_device_destroy(dev);
}

int main(void)
{
	RUN_TEST(test_version_and_caps);
	RUN_TEST(test_sync_file_fence);
	RUN_TEST(test_prime_import);
	return test_finish();
}
