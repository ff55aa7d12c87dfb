/* The simulated msm kernel driver, ioctl by ioctl: success paths and the kernel's errnos. */
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "sim_helpers.h"

static struct sim_msm_device *dev;

static int param_ret(struct kdev *kd, uint32_t pipe, uint32_t param, uint32_t len, uint32_t pad)
{
	struct drm_msm_param p = { .pipe = pipe, .param = param, .len = len, .pad = pad };
	return kdev_ioctl(kd, DRM_IOCTL_MSM_GET_PARAM, &p);
}

static void test_params_a630_a660(void)
{
	struct sim_msm_device *d630, *d660, *bad;
	CHECK_EQ(sim_msm_device_create("a999", &bad), -EINVAL);
	REQUIRE(sim_msm_device_create("a630", &d630) == 0);
	REQUIRE(sim_msm_device_create("a660", &d660) == 0);
	CHECK(!strcmp(sim_msm_model(d630), "a630"));
	struct kdev *k = sim_msm_open(d630);
	REQUIRE(k);
	CHECK_EQ(get_param(k, MSM_PARAM_GPU_ID), 630);
	CHECK_EQ(get_param(k, MSM_PARAM_CHIP_ID), 0x06030002);
	CHECK_EQ(get_param(k, MSM_PARAM_GMEM_SIZE), 1 << 20);
	CHECK_EQ(get_param(k, MSM_PARAM_GMEM_BASE), 0x100000);
	CHECK_EQ(get_param(k, MSM_PARAM_VA_START), 0x100000000ll);
	CHECK_EQ(get_param(k, MSM_PARAM_VA_SIZE), 4ll << 30);
	CHECK_EQ(get_param(k, MSM_PARAM_PRIORITIES), 3);
	CHECK_EQ(get_param(k, MSM_PARAM_PP_PGTABLE), 0);
	CHECK_EQ(get_param(k, MSM_PARAM_FAULTS), 0);
	CHECK_EQ(get_param(k, MSM_PARAM_SUSPENDS), 0);
	CHECK(get_param(k, MSM_PARAM_MAX_FREQ) > 100000000);
	uint64_t t1 = get_param(k, MSM_PARAM_TIMESTAMP);
	usleep(2000);
	uint64_t t2 = get_param(k, MSM_PARAM_TIMESTAMP);
	CHECK(t2 > t1 + 19200); /* >= 1 ms of a 19.2 MHz counter */
	k->ops->close(k);
	k = sim_msm_open(d660);
	REQUIRE(k);
	CHECK_EQ(get_param(k, MSM_PARAM_GPU_ID), 660);
	CHECK_EQ(get_param(k, MSM_PARAM_CHIP_ID), 0x06060001);
	CHECK_EQ(get_param(k, MSM_PARAM_GMEM_SIZE), 0x180000);
	CHECK_EQ(get_param(k, MSM_PARAM_GMEM_BASE), 0);
	CHECK_EQ(get_param(k, MSM_PARAM_VA_SIZE), 16ll << 30);
	k->ops->close(k);
	sim_msm_device_destroy(d630);
	sim_msm_device_destroy(d660);
}

static void test_param_errors(void)
{
	struct kdev *k = sim_msm_open(dev);
	CHECK_EQ(param_ret(k, MSM_PIPE_2D0, MSM_PARAM_GPU_ID, 0, 0), -EINVAL);
	CHECK_EQ(param_ret(k, MSM_PIPE_3D0, MSM_PARAM_GPU_ID, 0, 1), -EINVAL);
	CHECK_EQ(param_ret(k, MSM_PIPE_3D0, MSM_PARAM_GPU_ID, 4, 0), -EINVAL);
	CHECK_EQ(param_ret(k, MSM_PIPE_3D0, 0, 0, 0), -EINVAL);
	CHECK_EQ(param_ret(k, MSM_PIPE_3D0, 0x10 /* HIGHEST_BANK_BIT: newer than 6.1 */, 0, 0), -EINVAL);
	CHECK_EQ(param_ret(k, MSM_PIPE_3D0, MSM_PARAM_COMM, 0, 0), -EINVAL); /* write-only */
	const char comm[] = "deqp-vk";
	struct drm_msm_param p = { .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_COMM, .value = (uintptr_t)comm,
				   .len = sizeof(comm) - 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SET_PARAM, &p), 0);
	p.len = 8192;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SET_PARAM, &p), -EINVAL);
	/* An empty name needs no pointer (UBSan flagged the memcpy from NULL; tests/fuzz/fuzz_shim). */
	p = (struct drm_msm_param){ .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_CMDLINE };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SET_PARAM, &p), 0);
	p = (struct drm_msm_param){ .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_SYSPROF, .value = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SET_PARAM, &p), -EPERM);
	p = (struct drm_msm_param){ .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_GPU_ID };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SET_PARAM, &p), -EINVAL);
	/* Unknown ioctls: in the driver range -EINVAL, elsewhere -ENOTTY. */
	uint64_t dummy[16] = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOWR(DRM_COMMAND_BASE + 0x0d, struct drm_msm_param), dummy), -EINVAL);
	CHECK_EQ(kdev_ioctl(k, _IOWR('x', 1, uint64_t), dummy), -ENOTTY);
	k->ops->close(k);
}

static int gem_new_ret(struct kdev *k, uint64_t size, uint32_t flags, uint32_t *handle)
{
	struct drm_msm_gem_new n = { .size = size, .flags = flags };
	int ret = kdev_ioctl(k, DRM_IOCTL_MSM_GEM_NEW, &n);
	if (handle)
		*handle = n.handle;
	return ret;
}

static void test_gem_new_flags(void)
{
	struct kdev *k = sim_msm_open(dev);
	uint32_t h;
	CHECK_EQ(gem_new_ret(k, 4096, 0, &h), -EINVAL); /* a cache mode is mandatory */
	CHECK_EQ(gem_new_ret(k, 4096, MSM_BO_CACHED | MSM_BO_WC, &h), -EINVAL);
	CHECK_EQ(gem_new_ret(k, 4096, MSM_BO_WC | 0x4, &h), -EINVAL); /* NO_SHARE is newer than 6.1 */
	CHECK_EQ(gem_new_ret(k, 4096, MSM_BO_WC | 0x100000, &h), -EINVAL);
	CHECK_EQ(gem_new_ret(k, 0, MSM_BO_WC, &h), -EINVAL);
	CHECK_EQ(gem_new_ret(k, 4ull << 30, MSM_BO_WC, &h), -EINVAL);
	CHECK_EQ(gem_new_ret(k, 4096, MSM_BO_CACHED, &h), 0);
	CHECK_EQ(gem_new_ret(k, 4096, MSM_BO_UNCACHED, &h), 0);
	CHECK_EQ(gem_new_ret(k, 4096, MSM_BO_CACHED_COHERENT | MSM_BO_SCANOUT, &h), 0);
	CHECK_EQ(gem_new_ret(k, 1, MSM_BO_WC | MSM_BO_GPU_READONLY, &h), 0);
	struct drm_msm_gem_info i = { .handle = h, .info = MSM_INFO_GET_FLAGS };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_INFO, &i), 0);
	CHECK_EQ(i.value, MSM_BO_WC | MSM_BO_GPU_READONLY);
	/* Page-aligned: a 1-byte BO maps a whole page, and two of them do not share iova pages. */
	i = (struct drm_msm_gem_info){ .handle = h, .info = MSM_INFO_GET_OFFSET };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_INFO, &i), 0);
	void *m = k->ops->mmap(k, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, i.value);
	CHECK(m != MAP_FAILED);
	CHECK(k->ops->mmap(k, 8192, PROT_READ, MAP_SHARED, i.value) == MAP_FAILED);
	CHECK(k->ops->mmap(k, 4096, PROT_READ, MAP_SHARED, i.value + 4096) == MAP_FAILED);
	if (m != MAP_FAILED)
		k->ops->munmap(k, m, 4096);
	k->ops->close(k);
}

static int info_ret(struct kdev *k, uint32_t handle, uint32_t info, uint64_t value, uint32_t len, uint64_t *out)
{
	struct drm_msm_gem_info i = { .handle = handle, .info = info, .value = value, .len = len };
	int ret = kdev_ioctl(k, DRM_IOCTL_MSM_GEM_INFO, &i);
	if (out)
		*out = i.value;
	return ret;
}

static void test_gem_info_and_set_iova(void)
{
	struct kdev *k = sim_msm_open(dev);
	const uint64_t va = 0x100000000ull, va_size = 4ull << 30;
	uint32_t a, b, c;
	REQUIRE(gem_new_ret(k, 0x10000, MSM_BO_WC, &a) == 0);
	REQUIRE(gem_new_ret(k, 0x10000, MSM_BO_WC, &b) == 0);
	REQUIRE(gem_new_ret(k, 0x1000, MSM_BO_WC, &c) == 0);
	uint64_t v;
	CHECK_EQ(info_ret(k, 999, MSM_INFO_GET_IOVA, 0, 0, &v), -ENOENT);
	CHECK_EQ(info_ret(k, a, 77, 0, 0, &v), -EINVAL);
	CHECK_EQ(info_ret(k, a, MSM_INFO_GET_IOVA, 0, 4, &v), -EINVAL);
	struct drm_msm_gem_info padded = { .handle = a, .info = MSM_INFO_GET_IOVA, .pad = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_INFO, &padded), -EINVAL);

	/* SET_IOVA: inside [VA_START, VA_START + VA_SIZE), page aligned, not taken. */
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_IOVA, va + 0x200000, 0, NULL), 0);
	CHECK_EQ(info_ret(k, a, MSM_INFO_GET_IOVA, 0, 0, &v), 0);
	CHECK_EQ(v, va + 0x200000);
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_IOVA, va + 0x200000, 0, NULL), 0);       /* same: fine */
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_IOVA, va + 0x400000, 0, NULL), -EBUSY);  /* has one */
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, va + 0x208000, 0, NULL), -EBUSY);  /* overlap */
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, va + 0x1f8000, 0, NULL), -EBUSY);  /* overlap */
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, va - 0x10000, 0, NULL), -ENOSPC);  /* below */
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, va + va_size - 0x8000, 0, NULL), -ENOSPC); /* crosses end */
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, va + 0x300800, 0, NULL), -ENOSPC); /* unaligned */
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, va + va_size - 0x10000, 0, NULL), 0); /* last slot */
	CHECK_EQ(info_ret(k, c, MSM_INFO_SET_IOVA, va + 0x210000, 0, NULL), 0);       /* adjacent */
	/* Clearing releases the range for another BO. */
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_IOVA, 0, 0, NULL), 0);
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, 0, 0, NULL), 0);
	CHECK_EQ(info_ret(k, b, MSM_INFO_SET_IOVA, va + 0x200000, 0, NULL), 0);
	/* GET_IOVA allocates inside the range and is stable. */
	uint64_t v2;
	CHECK_EQ(info_ret(k, a, MSM_INFO_GET_IOVA, 0, 0, &v), 0);
	CHECK_EQ(info_ret(k, a, MSM_INFO_GET_IOVA, 0, 0, &v2), 0);
	CHECK_EQ(v, v2);
	CHECK(v >= va && v + 0x10000 <= va + va_size);
	CHECK(v + 0x10000 <= va + 0x200000 || v >= va + 0x211000);

	/* Names. */
	char name[32] = "cmdstream";
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_NAME, (uintptr_t)name, 9, NULL), 0);
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_NAME, (uintptr_t)name, 32, NULL), -EINVAL);
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_NAME, 0, 0, NULL), 0); /* clears it, no pointer needed */
	CHECK_EQ(info_ret(k, a, MSM_INFO_SET_NAME, (uintptr_t)name, 9, NULL), 0);
	char out[32] = { 0 };
	struct drm_msm_gem_info gi = { .handle = a, .info = MSM_INFO_GET_NAME, .value = (uintptr_t)out, .len = 31 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_INFO, &gi), 0);
	CHECK_EQ(gi.len, 9);
	CHECK(!strcmp(out, "cmdstream"));
	gi.len = 3;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_INFO, &gi), -EINVAL);
	k->ops->close(k);
}

static void test_gem_close_madvise_prime(void)
{
	struct kdev *k = sim_msm_open(dev);
	struct tbo b = tbo_new(k, 8192);
	b.cpu[0] = 0xc0ffee;
	b.cpu[2047] = 0x12345678;
	struct drm_prime_handle ph = { .handle = b.handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph), 0);
	REQUIRE(ph.fd >= 0);
	CHECK(fcntl(ph.fd, F_GETFD) & FD_CLOEXEC);
	uint32_t *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, ph.fd, 0);
	REQUIRE(m != MAP_FAILED);
	CHECK_EQ(m[0], 0xc0ffee);
	CHECK_EQ(m[2047], 0x12345678);
	m[1] = 42; /* and back: same pages */
	CHECK_EQ(b.cpu[1], 42);
	munmap(m, 8192);
	/* Whoever holds the exported fd cannot resize the pages under the GPU's mapping. */
	CHECK(ftruncate(ph.fd, 0) < 0 && errno == EPERM);
	CHECK(ftruncate(ph.fd, 1 << 20) < 0 && errno == EPERM);
	CHECK(fcntl(ph.fd, F_ADD_SEALS, F_SEAL_WRITE) < 0);
	CHECK_EQ(b.cpu[2047], 0x12345678);
	close(ph.fd);
	struct drm_prime_handle bad = { .handle = b.handle, .flags = 0x4 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_PRIME_HANDLE_TO_FD, &bad), -EINVAL);
	bad = (struct drm_prime_handle){ .handle = 999 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_PRIME_HANDLE_TO_FD, &bad), -ENOENT);

	struct drm_msm_gem_madvise mv = { .handle = b.handle, .madv = MSM_MADV_DONTNEED };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_MADVISE, &mv), 0);
	CHECK_EQ(mv.retained, 1);
	mv = (struct drm_msm_gem_madvise){ .handle = b.handle, .madv = 2 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_MADVISE, &mv), -EINVAL);
	mv = (struct drm_msm_gem_madvise){ .handle = 999, .madv = MSM_MADV_WILLNEED };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_MADVISE, &mv), -ENOENT);

	struct drm_msm_gem_cpu_fini fini = { .handle = b.handle };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_FINI, &fini), 0);
	uint32_t h = b.handle;
	tbo_free(k, &b);
	struct drm_gem_close c = { .handle = h };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GEM_CLOSE, &c), -EINVAL);
	CHECK_EQ(info_ret(k, h, MSM_INFO_GET_IOVA, 0, 0, NULL), -ENOENT);
	fini.handle = h;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_FINI, &fini), -ENOENT);
	k->ops->close(k);
}

static void test_submitqueues(void)
{
	struct kdev *k = sim_msm_open(dev);
	struct drm_msm_submitqueue q = { .flags = 1, .prio = 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q), -EINVAL);
	q = (struct drm_msm_submitqueue){ .prio = 3 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q), -EINVAL);
	uint32_t q1 = new_queue(k, 0), q2 = new_queue(k, 2);
	CHECK_EQ(q1, 1);
	CHECK_EQ(q2, 2);
	uint32_t id = 0;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id), -ENOENT);
	id = 77;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id), -ENOENT);
	id = q1;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id), 0);
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id), -ENOENT);
	struct drm_msm_submitqueue_query qq = { .id = q2, .param = MSM_SUBMITQUEUE_PARAM_FAULTS };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), 0);
	CHECK_EQ(qq.len, 0); /* the size goes into the kernel's copy: the ioctl is _IOW */
	CHECK_EQ(queue_faults(k, q2), 0);
	CHECK_EQ(queue_faults(k, 0), 0);
	qq = (struct drm_msm_submitqueue_query){ .id = q2, .param = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), -EINVAL);
	qq = (struct drm_msm_submitqueue_query){ .id = q1, .param = 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), -ENOENT);
	qq = (struct drm_msm_submitqueue_query){ .id = q2, .param = 0, .pad = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq), -EINVAL);
	/* Submitting to a closed queue. */
	struct tbo cmd = tbo_new(k, 4096);
	cmd.cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	CHECK_EQ(submit_ib_bos(k, q1, &cmd, 1, NULL, 0, NULL), -ENOENT);
	uint32_t f = submit_ib(k, q2, &cmd, 1);
	CHECK_EQ(wait_fence_ms(k, q2, f, 5000), 0);
	tbo_free(k, &cmd);
	k->ops->close(k);
}

/* Long BO lists (past the submit's on-stack copy): 40 BOs run, the same BO at both ends of the
 * list is -EINVAL, and so is one listed twice in a row; a refused list leaves no reference (every
 * BO still closes), and the next submit listing them all is fine. */
static void test_submit_long_bo_list(void)
{
	struct kdev *k = sim_msm_open(dev);
	enum { N = 40 };
	struct tbo t[N];
	struct drm_msm_gem_submit_bo bos[N];
	for (int i = 0; i < N; i++) {
		t[i] = tbo_new(k, 4096);
		bos[i] = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ, .handle = t[i].handle };
	}
	t[N - 1].cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	struct drm_msm_gem_submit_cmd c = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = N - 1, .size = 4 };
	struct drm_msm_gem_submit s = { .flags = MSM_PIPE_3D0, .nr_bos = N, .nr_cmds = 1,
					.bos = (uintptr_t)bos, .cmds = (uintptr_t)&c };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(wait_fence_ms(k, 0, s.fence, 5000), 0);
	bos[N - 1].handle = t[0].handle;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	bos[N - 1].handle = t[N - 1].handle;
	bos[21].handle = t[20].handle;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL);
	bos[21].handle = t[21].handle;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(wait_fence_ms(k, 0, s.fence, 5000), 0);
	for (int i = 0; i < N; i++)
		tbo_free(k, &t[i]);
	k->ops->close(k);
}

/* The envelope of GEM_SUBMIT: every check of 6.1's msm_ioctl_gem_submit. */
static void test_submit_envelope(void)
{
	struct kdev *k = sim_msm_open(dev);
	struct tbo cmd = tbo_new(k, 4096), data = tbo_new(k, 4096);
	cmd.cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	struct drm_msm_gem_submit_bo bos[3] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = cmd.handle },
		{ .flags = MSM_SUBMIT_BO_WRITE, .handle = data.handle },
	};
	struct drm_msm_gem_submit_cmd c = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0, .size = 4 };
	struct drm_msm_gem_submit base = { .flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1,
					   .bos = (uintptr_t)bos, .cmds = (uintptr_t)&c };
	struct drm_msm_gem_submit s = base;
#define SUBMIT() kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s)
	CHECK_EQ(SUBMIT(), 0);
	CHECK_EQ(s.fence, 1);
	s = base; s.pad = 1; CHECK_EQ(SUBMIT(), -EINVAL);
	s = base; s.flags = MSM_PIPE_2D0; CHECK_EQ(SUBMIT(), -EINVAL);
	s = base; s.flags |= 0x00010000; CHECK_EQ(SUBMIT(), -EINVAL);
	s = base; s.flags |= MSM_SUBMIT_SUDO; CHECK_EQ(SUBMIT(), -EINVAL);
	s = base; s.queueid = 9; CHECK_EQ(SUBMIT(), -ENOENT);
	s = base; s.flags |= MSM_SUBMIT_FENCE_FD_OUT; CHECK_EQ(SUBMIT(), -EOPNOTSUPP);
	s = base; s.flags |= MSM_SUBMIT_FENCE_FD_IN; CHECK_EQ(SUBMIT(), -EOPNOTSUPP);
	/* Syncobj flags with empty arrays are accepted; entries cannot resolve in the simulator. */
	s = base; s.flags |= MSM_SUBMIT_SYNCOBJ_IN | MSM_SUBMIT_SYNCOBJ_OUT; CHECK_EQ(SUBMIT(), 0);
	struct drm_msm_gem_submit_syncobj so = { .handle = 1, .flags = 2 };
	s = base; s.flags |= MSM_SUBMIT_SYNCOBJ_IN; s.in_syncobjs = (uintptr_t)&so; s.nr_in_syncobjs = 1;
	s.syncobj_stride = sizeof(so);
	CHECK_EQ(SUBMIT(), -EINVAL);
	so = (struct drm_msm_gem_submit_syncobj){ .handle = 1, .point = 5 };
	CHECK_EQ(SUBMIT(), -ENOENT); /* a point is looked up like point 0 (timelines are offered) */
	so = (struct drm_msm_gem_submit_syncobj){ .handle = 1 };
	CHECK_EQ(SUBMIT(), -ENOENT);
	s = base; s.flags |= MSM_SUBMIT_SYNCOBJ_OUT; s.out_syncobjs = (uintptr_t)&so; s.nr_out_syncobjs = 1;
	s.syncobj_stride = sizeof(so);
	so = (struct drm_msm_gem_submit_syncobj){ .handle = 1, .flags = MSM_SUBMIT_SYNCOBJ_RESET };
	CHECK_EQ(SUBMIT(), -EINVAL);
	/* BO table. */
	s = base; bos[1].flags = 0; CHECK_EQ(SUBMIT(), -EINVAL);
	bos[1].flags = MSM_SUBMIT_BO_DUMP; CHECK_EQ(SUBMIT(), -EINVAL);
	bos[1].flags = MSM_SUBMIT_BO_WRITE | 0x8; CHECK_EQ(SUBMIT(), -EINVAL); /* NO_IMPLICIT is 1.10 */
	bos[1].flags = MSM_SUBMIT_BO_WRITE | MSM_SUBMIT_BO_DUMP; CHECK_EQ(SUBMIT(), 0);
	s = base; bos[1].handle = 999; CHECK_EQ(SUBMIT(), -EINVAL);
	s = base; bos[1].handle = cmd.handle; CHECK_EQ(SUBMIT(), -EINVAL); /* listed twice */
	bos[1].handle = data.handle;
	/* Commands. */
	s = base; c.type = 4; CHECK_EQ(SUBMIT(), -EINVAL);
	c.type = 0; CHECK_EQ(SUBMIT(), -EINVAL);
	c.type = MSM_SUBMIT_CMD_BUF; c.size = 6; CHECK_EQ(SUBMIT(), -EINVAL);
	c.size = 0; CHECK_EQ(SUBMIT(), -EINVAL);
	c.size = 4; c.submit_idx = 2; CHECK_EQ(SUBMIT(), -EINVAL);
	c.submit_idx = 0; c.submit_offset = 4092; c.size = 8; CHECK_EQ(SUBMIT(), -EINVAL);
	c.submit_offset = 4092; c.size = 4; CHECK_EQ(SUBMIT(), 0);
	c.submit_offset = 0xfffffffc; c.size = 0xfffffffc; CHECK_EQ(SUBMIT(), -EINVAL); /* no wrap */
	c.submit_offset = 0; c.size = 4;
	c.type = MSM_SUBMIT_CMD_IB_TARGET_BUF; CHECK_EQ(SUBMIT(), 0);
	c.type = MSM_SUBMIT_CMD_CTX_RESTORE_BUF; CHECK_EQ(SUBMIT(), 0);
	c.type = MSM_SUBMIT_CMD_BUF;
	/* Relocs. */
	struct drm_msm_gem_submit_reloc r[2] = { { .submit_offset = 8, .reloc_idx = 1 },
						  { .submit_offset = 12, .reloc_idx = 1 } };
	c.nr_relocs = 2; c.relocs = (uintptr_t)r;
	s = base; r[0].submit_offset = 6; CHECK_EQ(SUBMIT(), -EINVAL);
	r[0].submit_offset = 16; CHECK_EQ(SUBMIT(), -EINVAL); /* decreasing */
	r[0].submit_offset = 4096; CHECK_EQ(SUBMIT(), -EINVAL); /* past the BO */
	r[0].submit_offset = 8; r[1].reloc_idx = 2; CHECK_EQ(SUBMIT(), -EINVAL);
	r[1].reloc_idx = 1; c.submit_offset = 2; CHECK_EQ(SUBMIT(), -EINVAL); /* cmd offset unaligned */
	c.submit_offset = 0; CHECK_EQ(SUBMIT(), 0);
#undef SUBMIT
	CHECK_EQ(wait_fence_ms(k, 0, s.fence, 5000), 0);
	tbo_free(k, &cmd);
	tbo_free(k, &data);
	k->ops->close(k);
}

static void test_relocs_applied(void)
{
	struct kdev *k = sim_msm_open(dev);
	struct tbo cmd = tbo_new(k, 4096), target = tbo_new(k, 8192);
	/* CP_MEM_WRITE whose address is patched: lo via shift 0, hi via shift -32. */
	cmd.cpu[0] = pm4_type7_hdr(CP_MEM_WRITE, 3);
	cmd.cpu[1] = 0xdeaddead;
	cmd.cpu[2] = 0xdeaddead;
	cmd.cpu[3] = 0x5eed;
	cmd.cpu[10] = 0;
	struct drm_msm_gem_submit_reloc r[3] = {
		{ .submit_offset = 4, .shift = 0, .reloc_idx = 1, .reloc_offset = 0x1010 },
		{ .submit_offset = 8, .shift = -32, .reloc_idx = 1, .reloc_offset = 0x1010 },
		{ .submit_offset = 40, .or = 0x3, .shift = 4, .reloc_idx = 1, .reloc_offset = 0x20 },
	};
	struct drm_msm_gem_submit_bo bos[2] = { { .flags = MSM_SUBMIT_BO_READ, .handle = cmd.handle },
						{ .flags = MSM_SUBMIT_BO_WRITE, .handle = target.handle } };
	struct drm_msm_gem_submit_cmd c = { .type = MSM_SUBMIT_CMD_BUF, .size = 16, .nr_relocs = 3,
					    .relocs = (uintptr_t)r };
	struct drm_msm_gem_submit s = { .flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1,
					.bos = (uintptr_t)bos, .cmds = (uintptr_t)&c };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(wait_fence_ms(k, 0, s.fence, 5000), 0);
	uint64_t dst = target.iova + 0x1010;
	CHECK_EQ(cmd.cpu[1], (uint32_t)dst);
	CHECK_EQ(cmd.cpu[2], (uint32_t)(dst >> 32));
	CHECK_EQ(cmd.cpu[10], (uint32_t)((target.iova + 0x20) << 4) | 3);
	CHECK_EQ(target.cpu[0x1010 / 4], 0x5eed);
	/* Presumed addresses that are right skip relocation (6.1's BO_VALID shortcut). */
	cmd.cpu[1] = 0x1111;
	bos[1].presumed = target.iova;
	bos[0].presumed = cmd.iova;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(cmd.cpu[1], 0x1111);
	/* The GPU then wrote to 0x1_0000_1111 (unmapped): a fault, the fence still retires. */
	CHECK_EQ(wait_fence_ms(k, 0, s.fence, 5000), 0);
	tbo_free(k, &cmd);
	tbo_free(k, &target);
	k->ops->close(k);
}

/* A queue whose submits wait on the GPU until the CPU writes 1 to flag[0] (an SN_IN submit
 * template in s, fence to be set): work that stays queued as long as a test wants. */
struct gated {
	struct kdev *k;
	uint32_t q;
	struct tbo cmd, flag;
	struct drm_msm_gem_submit_bo bos[2];
	struct drm_msm_gem_submit_cmd c;
	struct drm_msm_gem_submit s;
};

static void gated_init(struct gated *g)
{
	g->k = sim_msm_open(dev);
	g->q = new_queue(g->k, 1);
	g->cmd = tbo_new(g->k, 4096);
	g->flag = tbo_new(g->k, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, g->cmd.cpu, 1024);
	pm4_wait_mem(&b, WRITE_EQ, g->flag.iova, 1, 0xffffffff);
	REQUIRE(pm4_builder_ok(&b));
	g->bos[0] = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ, .handle = g->cmd.handle };
	g->bos[1] = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ, .handle = g->flag.handle };
	g->c = (struct drm_msm_gem_submit_cmd){ .type = MSM_SUBMIT_CMD_BUF, .size = b.len * 4 };
	g->s = (struct drm_msm_gem_submit){ .flags = MSM_PIPE_3D0 | MSM_SUBMIT_FENCE_SN_IN, .nr_bos = 2,
					    .nr_cmds = 1, .bos = (uintptr_t)g->bos, .cmds = (uintptr_t)&g->c,
					    .queueid = g->q };
}

static void gated_fini(struct gated *g)
{
	tbo_free(g->k, &g->cmd);
	tbo_free(g->k, &g->flag);
	g->k->ops->close(g->k);
}

static void test_fence_sn_in_and_wait_fence(void)
{
	struct gated g;
	gated_init(&g);
	struct kdev *k = g.k;
	uint32_t q = g.q;
	struct tbo flag = g.flag;
	struct drm_msm_gem_submit s = g.s;
	s.fence = 0;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL); /* fence 0 */
	s.fence = 100;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(s.fence, 100);
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL); /* 100 in use */
	s.fence = 101;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);

	struct drm_msm_wait_fence w = { .fence = 100, .timeout = abs_timeout_ms(0), .queueid = q };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), -ETIMEDOUT);
	w.timeout = abs_timeout_ms(30);
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), -ETIMEDOUT);
	w.fence = 102; /* after the queue's last fence */
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), -EINVAL);
	w.fence = 50; /* never used, not after last: treated as retired */
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), 0);
	w = (struct drm_msm_wait_fence){ .fence = 100, .pad = 1, .queueid = q };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), -EINVAL);
	w = (struct drm_msm_wait_fence){ .fence = 100, .queueid = 42 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), -ENOENT);

	/* cpu_prep: flag is only read by the pending submits; cmd likewise. */
	struct drm_msm_gem_cpu_prep p = { .handle = flag.handle, .op = MSM_PREP_READ | MSM_PREP_NOSYNC };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_PREP, &p), 0); /* no writers */
	p.op = MSM_PREP_WRITE | MSM_PREP_NOSYNC;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_PREP, &p), -EBUSY);
	p.op = MSM_PREP_WRITE;
	p.timeout = abs_timeout_ms(-10); /* already past: a zero-length wait */
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_PREP, &p), -EBUSY);
	p.timeout = abs_timeout_ms(30);
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_PREP, &p), -ETIMEDOUT);
	p.op = 0x10;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_PREP, &p), -EINVAL);
	p = (struct drm_msm_gem_cpu_prep){ .handle = 999, .op = MSM_PREP_READ };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_PREP, &p), -ENOENT);

	/* Release: both retire; the seqno can be reused once retired. */
	__atomic_store_n(&flag.cpu[0], 1, __ATOMIC_RELEASE);
	p = (struct drm_msm_gem_cpu_prep){ .handle = flag.handle, .op = MSM_PREP_WRITE,
					   .timeout = abs_timeout_ms(5000) };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_CPU_PREP, &p), 0);
	CHECK_EQ(wait_fence_ms(k, q, 100, 5000), 0);
	CHECK_EQ(wait_fence_ms(k, q, 101, 5000), 0);
	s.fence = 100;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(wait_fence_ms(k, q, 100, 5000), 0);
	/* last_fence is the newest submitted (100 again), so 101 now counts as "after" it. */
	CHECK_EQ(wait_fence_ms(k, q, 101, 0), -EINVAL);
	/* Without SN_IN the queue's cyclic allocator starts at 1. */
	s.flags = MSM_PIPE_3D0;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(s.fence, 1);
	CHECK_EQ(wait_fence_ms(k, q, 1, 5000), 0);
	CHECK_EQ(get_param(k, MSM_PARAM_FAULTS), 0);
	gated_fini(&g);
}

/* The cyclic allocator steps over a fence userspace chose that is still queued, and keeps
 * counting once it retired (its fast path walks no queue then). */
static void test_cyclic_fence_skips_sn_in(void)
{
	struct gated g;
	gated_init(&g);
	struct kdev *k = g.k;
	uint32_t q = g.q;
	struct tbo flag = g.flag;
	struct drm_msm_gem_submit s = g.s;
	s.fence = 2;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	s.flags = MSM_PIPE_3D0;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(s.fence, 1);
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	CHECK_EQ(s.fence, 3); /* 2 is queued */
	__atomic_store_n(&flag.cpu[0], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_fence_ms(k, q, 3, 5000), 0);
	for (uint32_t want = 4; want < 8; want++) {
		CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
		CHECK_EQ(s.fence, want);
	}
	CHECK_EQ(wait_fence_ms(k, q, 7, 5000), 0);
	gated_fini(&g);
}

/* Thousands of fences in use on one queue (a host pipelining far ahead of the GPU), spaced by
 * 4096 so that a table indexed by the fence's low bits would put them all in one chain: each
 * is found in use while queued, none after it retired, through the table's growth and its
 * shrinking once the queue drained. */
static void test_many_fences_in_use(void)
{
	struct gated g;
	gated_init(&g);
	struct kdev *k = g.k;
	uint32_t q = g.q;
	struct tbo flag = g.flag;
	struct drm_msm_gem_submit s = g.s;
	enum { N = 5000, STRIDE = 4096 };
	for (int round = 0; round < 2; round++) {
		__atomic_store_n(&flag.cpu[0], 0, __ATOMIC_RELEASE);
		/* Every submit waits for the flag, so all N stay queued until it is set. */
		for (uint32_t i = 1; i <= N; i++) {
			s.fence = i * STRIDE + (uint32_t)round;
			CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
		}
		for (uint32_t i = 1; i <= N; i += 97) {
			s.fence = i * STRIDE + (uint32_t)round;
			CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), -EINVAL); /* in use */
			struct drm_msm_wait_fence w = { .fence = s.fence, .timeout = abs_timeout_ms(0), .queueid = q };
			CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), -ETIMEDOUT);
			w.fence = s.fence + 1; /* between two in use, never used itself */
			CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_WAIT_FENCE, &w), 0);
		}
		__atomic_store_n(&flag.cpu[0], 1, __ATOMIC_RELEASE);
		CHECK_EQ(wait_fence_ms(k, q, N * STRIDE + (uint32_t)round, 30000), 0);
		for (uint32_t i = 1; i <= N; i += 97)
			CHECK_EQ(wait_fence_ms(k, q, i * STRIDE + (uint32_t)round, 0), 0);
	}
	/* Retired fences are free again: the table forgot them as it shrank. */
	for (uint32_t i = 1; i <= N; i += 499) {
		s.fence = i * STRIDE;
		CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	}
	CHECK_EQ(wait_fence_ms(k, q, s.fence, 30000), 0);
	gated_fini(&g);
}

/* A submit without cmds (Turnip's vkQueueSubmit without command buffers) is the kernel's too:
 * it gets the queue's next fence, which signals only once the submit before it retired, with
 * or without a BO list and a cmds pointer. */
static void test_empty_submit(void)
{
	struct kdev *k = sim_msm_open(dev);
	uint32_t q = new_queue(k, 1);
	struct tbo cmd = tbo_new(k, 4096), flag = tbo_new(k, 4096);
	struct pm4_builder b;
	pm4_builder_init(&b, cmd.cpu, 1024);
	pm4_wait_mem(&b, WRITE_EQ, flag.iova, 1, 0xffffffff); /* until the CPU writes 1 to flag[0] */
	REQUIRE(pm4_builder_ok(&b));
	const struct tbo *extra[] = { &flag };
	uint32_t gated = 0;
	REQUIRE(submit_ib_bos(k, q, &cmd, b.len, extra, 1, &gated) == 0);

	struct drm_msm_gem_submit_bo bo = { .flags = MSM_SUBMIT_BO_READ, .handle = flag.handle };
	struct drm_msm_gem_submit e = { .flags = MSM_PIPE_3D0, .queueid = q };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &e), 0);
	CHECK_EQ(e.fence, gated + 1);
	uint32_t bare = e.fence;
	e = (struct drm_msm_gem_submit){ .flags = MSM_PIPE_3D0, .queueid = q, .nr_bos = 1, .bos = (uintptr_t)&bo };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &e), 0);
	CHECK_EQ(e.fence, bare + 1);
	/* The BO table is still checked. */
	bo.handle = 999;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &e), -EINVAL);

	CHECK_EQ(wait_fence_ms(k, q, bare, 30), -ETIMEDOUT);
	CHECK_EQ(wait_fence_ms(k, q, bare + 1, 0), -ETIMEDOUT);
	__atomic_store_n(&flag.cpu[0], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_fence_ms(k, q, bare + 1, 5000), 0);
	CHECK_EQ(wait_fence_ms(k, q, gated, 0), 0);
	CHECK_EQ(get_param(k, MSM_PARAM_FAULTS), 0);
	tbo_free(k, &cmd);
	tbo_free(k, &flag);
	k->ops->close(k);
}

static void test_separate_address_spaces(void)
{
	struct kdev *a = sim_msm_open(dev), *b = sim_msm_open(dev);
	struct tbo abo = tbo_new(a, 4096);
	struct tbo bcmd = tbo_new(b, 4096);
	/* Both spaces allocate alike, so b's only BO sits where a's first one is; a's second BO's
	 * iova is mapped in a but not in b. */
	CHECK_EQ(abo.iova, bcmd.iova);
	struct tbo adata = tbo_new(a, 4096);
	uint64_t target = adata.iova;
	struct pm4_builder pb;
	pm4_builder_init(&pb, bcmd.cpu, 1024);
	pm4_mem_write(&pb, target, (const uint32_t[]){ 0xbad }, 1);
	uint32_t f = submit_ib(b, 0, &bcmd, pb.len);
	CHECK_EQ(wait_fence_ms(b, 0, f, 5000), 0);
	CHECK_EQ(adata.cpu[0], 0);
	CHECK_EQ(get_param(b, MSM_PARAM_FAULTS), 1);
	CHECK_EQ(get_param(a, MSM_PARAM_FAULTS), 0);
	char text[8192];
	CHECK(b->ops->coredump(b, text, sizeof(text)) > 0);
	CHECK(a->ops->coredump(a, text, sizeof(text)) == -ENOENT);
	tbo_free(a, &abo);
	tbo_free(a, &adata);
	tbo_free(b, &bcmd);
	a->ops->close(a);
	b->ops->close(b);
}

static void test_poll_fd(void)
{
	struct kdev *k = sim_msm_open(dev);
	int fd = k->ops->poll_fd(k);
	REQUIRE(fd >= 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	struct tbo cmd = tbo_new(k, 4096);
	cmd.cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	uint32_t f = submit_ib(k, 0, &cmd, 1);
	CHECK_EQ(poll(&pfd, 1, 5000), 1);
	CHECK_EQ(wait_fence_ms(k, 0, f, 5000), 0);
	k->ops->poll_ack(k);
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	tbo_free(k, &cmd);
	k->ops->close(k);
}

/* kdev submit_here: with the GPU idle, the submit's first slice runs in the submitting thread, so
 * a small job has completed when GEM_SUBMIT returns, 100 times in a row (the worker's wakeup alone
 * takes longer than the next instruction), one of 16 command buffers too; done_here says so once
 * and the poll fd stays quiet (the caller checks its fences itself). A job that outlives that
 * slice (a CP wait on memory nobody wrote yet) goes on in the worker, which wakes the poll fd. */
static void test_submit_here(void)
{
	struct kdev *k = sim_msm_open(dev);
	struct tbo cmd = tbo_new(k, 4096), flag = tbo_new(k, 4096);
	cmd.cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	/* Until the worker sleeps idle (a loaded machine may not run it for a while); from then on
	 * only a kick wakes it, and a submit run here kicks nothing. */
	bool settled = false;
	for (int i = 0; i < 1000 && !settled; i++) {
		k->ops->submit_here(k);
		uint32_t f = submit_ib(k, 0, &cmd, 1);
		settled = wait_fence_ms(k, 0, f, 0) == 0;
		(void)k->ops->done_here(k); /* the worker may have run it: either way, cleared */
		if (!settled) {
			CHECK_EQ(wait_fence_ms(k, 0, f, 5000), 0);
			usleep(2000);
		}
	}
	REQUIRE(settled);
	struct pollfd pfd = { .fd = k->ops->poll_fd(k), .events = POLLIN };
	for (int i = 0; i < 100; i++) {
		k->ops->poll_ack(k);
		k->ops->submit_here(k);
		uint32_t f = submit_ib(k, 0, &cmd, 1);
		CHECK_EQ(wait_fence_ms(k, 0, f, 0), 0);
		CHECK(k->ops->done_here(k));
		CHECK(!k->ops->done_here(k)); /* told once */
		CHECK_EQ(poll(&pfd, 1, 0), 0);
	}
	/* A slice spends what its command buffers took: 16 small ones are one job run here. */
	struct drm_msm_gem_submit_bo bo0 = { .flags = MSM_SUBMIT_BO_READ, .handle = cmd.handle };
	struct drm_msm_gem_submit_cmd cmds[16];
	for (int i = 0; i < 16; i++)
		cmds[i] = (struct drm_msm_gem_submit_cmd){ .type = MSM_SUBMIT_CMD_BUF, .size = 4 };
	struct drm_msm_gem_submit many = { .flags = MSM_PIPE_3D0, .nr_bos = 1, .nr_cmds = 16,
					   .bos = (uintptr_t)&bo0, .cmds = (uintptr_t)cmds };
	k->ops->submit_here(k);
	REQUIRE(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &many) == 0);
	CHECK_EQ(wait_fence_ms(k, 0, many.fence, 0), 0);
	CHECK(k->ops->done_here(k));
	/* Stalled in the submitting thread's slice: the worker polls it on, and finishes it. */
	struct pm4_builder b;
	pm4_builder_init(&b, cmd.cpu + 64, 64);
	pm4_wait_mem(&b, WRITE_EQ, flag.iova, 1, 0xffffffff);
	uint32_t done = 0xd0e;
	pm4_mem_write(&b, flag.iova + 4, &done, 1);
	REQUIRE(pm4_builder_ok(&b));
	struct drm_msm_gem_submit_bo bos[2] = { { .flags = MSM_SUBMIT_BO_READ, .handle = cmd.handle },
						{ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE,
						  .handle = flag.handle } };
	struct drm_msm_gem_submit_cmd c = { .type = MSM_SUBMIT_CMD_BUF, .submit_offset = 256,
					    .size = pm4_builder_bytes(&b) };
	struct drm_msm_gem_submit s = { .flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1,
					.bos = (uintptr_t)bos, .cmds = (uintptr_t)&c };
	k->ops->poll_ack(k);
	k->ops->submit_here(k);
	REQUIRE(kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s) == 0);
	CHECK_EQ(wait_fence_ms(k, 0, s.fence, 0), -ETIMEDOUT);
	CHECK(!k->ops->done_here(k));
	__atomic_store_n(&flag.cpu[0], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_fence_ms(k, 0, s.fence, 5000), 0);
	CHECK_EQ(poll(&pfd, 1, 5000), 1); /* the worker retired it */
	CHECK_EQ(flag.cpu[1], 0xd0eu);
	tbo_free(k, &cmd);
	tbo_free(k, &flag);
	k->ops->close(k);
}

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd; /* large blocks are mmapped: hblkhd */
}

/* Queue ids are never reused (msm's queueid++), so nothing may be kept per id ever made: an
 * open creating and closing 200000 queues grows the heap by nothing per queue (a memstore table
 * by id grew 12 bytes a queue: 2.4 MB here). mallinfo2 sees glibc's heap, not ASan's. */
static void test_submitqueue_churn_keeps_nothing(void)
{
	struct kdev *k = sim_msm_open(dev);
	enum { ROUNDS = 200000 };
	size_t before = 0;
	for (uint32_t i = 0; i < ROUNDS; i++) {
		if (i == 1000)
			before = heap_in_use(); /* after the first allocations settled */
		uint32_t id = new_queue(k, 1);
		REQUIRE(kdev_ioctl(k, DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &id) == 0);
	}
	size_t after = heap_in_use();
	fprintf(stderr, "heap in use: %zu bytes before, %zu after %d more queues\n", before, after, ROUNDS - 1000);
	CHECK(after <= before + 64 * 1024);
	struct sim_msm_memstore ms;
	CHECK_EQ(sim_msm_memstore(k, ROUNDS, &ms), -ENOENT); /* closed with nothing in flight: gone */
	k->ops->close(k);
}

/* A submit holds its CP state (~2.7 KiB) only from its first slice until it completes: 4000
 * NOP submits queued behind a paused GPU grow the heap by their bookkeeping alone (under 1 KiB
 * each; with the state in every submit it was over 2.9 KiB), and run to completion after. */
static void test_queued_submits_hold_no_cp_state(void)
{
	struct kdev *k = sim_msm_open(dev);
	struct tbo cmd = tbo_new(k, 4096);
	cmd.cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	enum { QUEUED = 4000 };
	uint32_t f = submit_ib(k, 0, &cmd, 1); /* the first allocations settle */
	CHECK_EQ(wait_fence_ms(k, 0, f, 5000), 0);
	sim_msm_set_paused(dev, true);
	size_t before = heap_in_use();
	for (int i = 0; i < QUEUED; i++)
		f = submit_ib(k, 0, &cmd, 1);
	size_t after = heap_in_use();
	fprintf(stderr, "heap: %zu bytes per queued submit\n", (after - before) / QUEUED);
	CHECK(after - before < (size_t)QUEUED * 1024);
	sim_msm_set_paused(dev, false);
	CHECK_EQ(wait_fence_ms(k, 0, f, 10000), 0);
	tbo_free(k, &cmd);
	k->ops->close(k);
}

/* The poll fd is written once between two acks: 50 completions nobody acked leave a counter of
 * 1 (it was one write, and one wakeup of the reader, per retire), and after an ack the next
 * completion makes it readable again. */
static void test_poll_fd_written_once_per_ack(void)
{
	struct kdev *k = sim_msm_open(dev);
	int fd = k->ops->poll_fd(k);
	struct tbo cmd = tbo_new(k, 4096);
	cmd.cpu[0] = pm4_type7_hdr(CP_NOP, 0);
	k->ops->poll_ack(k);
	uint32_t f = 0;
	for (int i = 0; i < 50; i++) {
		f = submit_ib(k, 0, &cmd, 1);
		CHECK_EQ(wait_fence_ms(k, 0, f, 5000), 0); /* each retires on its own */
	}
	uint64_t count = 0;
	CHECK_EQ(read(fd, &count, sizeof(count)), (ssize_t)sizeof(count));
	CHECK_EQ(count, 1u);
	k->ops->poll_ack(k);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	f = submit_ib(k, 0, &cmd, 1);
	CHECK_EQ(poll(&pfd, 1, 5000), 1);
	CHECK_EQ(wait_fence_ms(k, 0, f, 5000), 0);
	tbo_free(k, &cmd);
	k->ops->close(k);
}

int main(void)
{
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	RUN_TEST(test_params_a630_a660);
	RUN_TEST(test_param_errors);
	RUN_TEST(test_gem_new_flags);
	RUN_TEST(test_gem_info_and_set_iova);
	RUN_TEST(test_gem_close_madvise_prime);
	RUN_TEST(test_submitqueues);
	RUN_TEST(test_submitqueue_churn_keeps_nothing);
	RUN_TEST(test_submit_envelope);
	RUN_TEST(test_submit_long_bo_list);
	RUN_TEST(test_relocs_applied);
	RUN_TEST(test_fence_sn_in_and_wait_fence);
	RUN_TEST(test_cyclic_fence_skips_sn_in);
	RUN_TEST(test_many_fences_in_use);
	RUN_TEST(test_empty_submit);
	RUN_TEST(test_separate_address_spaces);
	RUN_TEST(test_poll_fd);
	RUN_TEST(test_poll_fd_written_once_per_ack);
	RUN_TEST(test_submit_here);
	RUN_TEST(test_queued_submits_hold_no_cp_state);
	sim_msm_device_destroy(dev);
	return test_finish();
}
