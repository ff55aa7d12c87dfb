/* The DRM core ioctls of the simulated msm render node: VERSION, GET_CAP, render-node
 * permissions, syncobjs (create/wait/reset/signal, fd and sync-file round trips), GEM_SUBMIT's
 * SYNCOBJ_IN gating and SYNCOBJ_OUT fences, and PRIME_FD_TO_HANDLE. */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim_helpers.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint32_t syncobj_new(struct kdev *k, bool signaled)
{
	struct drm_syncobj_create c = { .flags = signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0 };
	REQUIRE(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_CREATE, &c) == 0);
	return c.handle;
}

static int wait_syncobjs(struct kdev *k, const uint32_t *h, uint32_t n, uint32_t flags, int64_t timeout_ms,
			 uint32_t *first)
{
	struct drm_syncobj_wait w = { .handles = (uintptr_t)h, .count_handles = n, .flags = flags,
				      .timeout_nsec = now_ns() + timeout_ms * 1000000, .first_signaled = 77 };
	int ret = kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_WAIT, &w);
	if (first)
		*first = w.first_signaled;
	return ret;
}

static int syncobj_array(struct kdev *k, unsigned long req, uint32_t h)
{
	struct drm_syncobj_array a = { .handles = (uintptr_t)&h, .count_handles = 1 };
	return kdev_ioctl(k, req, &a);
}

static bool fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void test_version_and_caps(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct kdev *k = sim_msm_open(dev);
	REQUIRE(k);
	/* Sizes first, as drmGetVersion does; then a buffer too short for desc. */
	struct drm_version v = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_VERSION, &v), 0);
	CHECK_EQ(v.version_major, 1);
	CHECK_EQ(v.version_minor, 9);
	CHECK_EQ(v.version_patchlevel, 0);
	CHECK_EQ(v.name_len, 3);
	CHECK_EQ(v.date_len, 8);
	CHECK_EQ(v.desc_len, strlen("MSM Snapdragon DRM"));
	char name[8], date[16], desc[4];
	memset(name, 'x', sizeof(name));
	memset(desc, 'x', sizeof(desc));
	v = (struct drm_version){ .name = name, .name_len = sizeof(name), .date = date, .date_len = sizeof(date),
				  .desc = desc, .desc_len = 3 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_VERSION, &v), 0);
	CHECK(!memcmp(name, "msm", 3));
	CHECK_EQ(name[3], 'x'); /* no NUL written */
	CHECK(!memcmp(date, "20130625", 8));
	CHECK(!memcmp(desc, "MSM", 3));
	CHECK_EQ(desc[3], 'x'); /* cut to the caller's 3 bytes */
	CHECK_EQ(v.desc_len, strlen("MSM Snapdragon DRM"));

	struct drm_get_cap c = { .capability = DRM_CAP_SYNCOBJ, .value = 9 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), 0);
	CHECK_EQ(c.value, 1);
	c = (struct drm_get_cap){ .capability = DRM_CAP_SYNCOBJ_TIMELINE, .value = 9 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), 0);
	CHECK_EQ(c.value, 1); /* ferry offers timelines (6.1's msm does not) */
	c = (struct drm_get_cap){ .capability = DRM_CAP_PRIME };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), 0);
	CHECK_EQ(c.value, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
	c = (struct drm_get_cap){ .capability = DRM_CAP_TIMESTAMP_MONOTONIC };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), 0);
	CHECK_EQ(c.value, 1);
	c = (struct drm_get_cap){ .capability = 0x999 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_CAP, &c), -EINVAL);

	/* Core ioctls a render node may not call: -EACCES; table gaps: -EINVAL. */
	struct drm_set_client_cap cc = { .capability = DRM_CLIENT_CAP_UNIVERSAL_PLANES, .value = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SET_CLIENT_CAP, &cc), -EACCES);
	struct drm_unique u = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_GET_UNIQUE, &u), -EACCES);
	uint64_t dummy[8] = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOWR(0x0e, uint64_t), dummy), -EINVAL);
	CHECK_EQ(kdev_ioctl(k, DRM_IOWR(0xf0, uint64_t), dummy), -EINVAL);
	/* Timeline syncobjs: an empty array is -EINVAL, as drm_syncobj_query_ioctl's. */
	struct drm_syncobj_timeline_array ta = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_QUERY, &ta), -EINVAL);
	struct drm_syncobj_timeline_wait tw = { 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &tw), -EINVAL);
	k->ops->close(k);
	sim_msm_device_destroy(dev);
}

static void test_syncobj_basics(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct kdev *k = sim_msm_open(dev);
	REQUIRE(k);
	uint32_t unsig = syncobj_new(k, false), sig = syncobj_new(k, true);
	CHECK_EQ(unsig, 1); /* the lowest free handle, from 1 */
	CHECK_EQ(sig, 2);
	struct drm_syncobj_create bad = { .flags = 2 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_CREATE, &bad), -EINVAL);

	uint32_t both[2] = { unsig, sig }, first;
	/* Fence-less without WAIT_FOR_SUBMIT: -EINVAL at once. */
	CHECK_EQ(wait_syncobjs(k, both, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 1000, &first), -EINVAL);
	CHECK_EQ(first, 77); /* untouched on error */
	/* WAIT_ALL with WAIT_FOR_SUBMIT times out with -ETIME; wait-any answers index 1. */
	CHECK_EQ(wait_syncobjs(k, both, 2,
			       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 20, NULL),
		 -ETIME);
	CHECK_EQ(wait_syncobjs(k, both, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 1000, &first), 0);
	CHECK_EQ(first, 1);
	/* A timeout in the past is a poll. */
	struct drm_syncobj_wait w = { .handles = (uintptr_t)&unsig, .count_handles = 1,
				      .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, .timeout_nsec = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_WAIT, &w), -ETIME);
	/* SIGNAL: WAIT_ALL succeeds, first_signaled is the first already signaled (0). */
	CHECK_EQ(syncobj_array(k, DRM_IOCTL_SYNCOBJ_SIGNAL, unsig), 0);
	CHECK_EQ(wait_syncobjs(k, both, 2, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 1000, &first), 0);
	CHECK_EQ(first, 0);
	/* RESET: fence-less again. */
	CHECK_EQ(syncobj_array(k, DRM_IOCTL_SYNCOBJ_RESET, unsig), 0);
	CHECK_EQ(wait_syncobjs(k, &unsig, 1, 0, 1000, NULL), -EINVAL);

	/* Argument errors. */
	uint32_t nothing = 99;
	CHECK_EQ(syncobj_array(k, DRM_IOCTL_SYNCOBJ_SIGNAL, nothing), -ENOENT);
	CHECK_EQ(syncobj_array(k, DRM_IOCTL_SYNCOBJ_RESET, 0), -ENOENT);
	struct drm_syncobj_array arr = { .handles = (uintptr_t)&sig, .count_handles = 0 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_RESET, &arr), -EINVAL);
	arr = (struct drm_syncobj_array){ .handles = (uintptr_t)&sig, .count_handles = 1, .pad = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_RESET, &arr), -EINVAL);
	arr = (struct drm_syncobj_array){ .handles = 0, .count_handles = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_SIGNAL, &arr), -EFAULT);
	CHECK_EQ(wait_syncobjs(k, &sig, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 0, NULL), -EINVAL);
	CHECK_EQ(wait_syncobjs(k, &sig, 0, 0, 0, NULL), -EINVAL);
	/* The failed RESET changed nothing: sig is still signaled. */
	CHECK_EQ(wait_syncobjs(k, &sig, 1, 0, 0, NULL), 0);
	struct drm_syncobj_destroy d = { .handle = sig, .pad = 1 };
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_DESTROY, &d), -EINVAL);
	d.pad = 0;
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_DESTROY, &d), 0);
	CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_DESTROY, &d), -EINVAL);
	CHECK_EQ(syncobj_new(k, false), sig); /* the freed handle is reused */
	k->ops->close(k); /* frees what is left */
	sim_msm_device_destroy(dev);
}

/* A submit of queue q writing value at dst (after waiting for *flag >= 1 when flag is given),
 * with in/out syncobj arrays of n_in/n_out entries at the given stride. */
struct submit_args {
	uint32_t queue;
	const struct tbo *flag;
	const void *in, *out;
	uint32_t n_in, n_out, stride;
	uint32_t fence; /* out */
};

static int submit_write(struct kdev *k, struct tbo *cmd, uint32_t dw_off, const struct tbo *dst, uint32_t value,
			struct submit_args *sa)
{
	struct pm4_builder b;
	pm4_builder_init(&b, cmd->cpu + dw_off, 64);
	if (sa->flag)
		pm4_wait_mem_gte(&b, sa->flag->iova, 1);
	pm4_mem_write(&b, dst->iova, &value, 1);
	REQUIRE(pm4_builder_ok(&b));
	struct drm_msm_gem_submit_bo bos[3] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = cmd->handle },
		{ .flags = MSM_SUBMIT_BO_WRITE, .handle = dst->handle },
		{ .flags = MSM_SUBMIT_BO_READ, .handle = sa->flag ? sa->flag->handle : 0 },
	};
	struct drm_msm_gem_submit_cmd c = { .type = MSM_SUBMIT_CMD_BUF, .submit_offset = dw_off * 4,
					    .size = b.len * 4 };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | (sa->in ? MSM_SUBMIT_SYNCOBJ_IN : 0) | (sa->out ? MSM_SUBMIT_SYNCOBJ_OUT : 0),
		.nr_bos = sa->flag ? 3 : 2, .nr_cmds = 1, .bos = (uintptr_t)bos, .cmds = (uintptr_t)&c,
		.queueid = sa->queue, .in_syncobjs = (uintptr_t)sa->in, .out_syncobjs = (uintptr_t)sa->out,
		.nr_in_syncobjs = sa->n_in, .nr_out_syncobjs = sa->n_out, .syncobj_stride = sa->stride,
	};
	int ret = kdev_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	sa->fence = s.fence;
	return ret;
}

static void test_submit_syncobj_errors(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct kdev *k = sim_msm_open(dev);
	REQUIRE(k);
	struct tbo cmd = tbo_new(k, 4096), dst = tbo_new(k, 4096);
	uint32_t unsig = syncobj_new(k, false), sig = syncobj_new(k, true), out = syncobj_new(k, false);
	const uint32_t S = sizeof(struct drm_msm_gem_submit_syncobj);
	struct drm_msm_gem_submit_syncobj e_unsig = { .handle = unsig }, e_missing = { .handle = 77 },
					  e_sig_reset = { .handle = sig, .flags = MSM_SUBMIT_SYNCOBJ_RESET },
					  e_badflag = { .handle = sig, .flags = 2 }, e_point = { .handle = sig, .point = 1 },
					  e_out = { .handle = out }, e_out_flag = { .handle = out, .flags = 1 };
	struct submit_args a;
#define TRY(...) (a = (struct submit_args){ __VA_ARGS__ }, submit_write(k, &cmd, 0, &dst, 5, &a))
	CHECK_EQ(TRY(.in = &e_unsig, .n_in = 1, .stride = S), -EINVAL);   /* no fence */
	CHECK_EQ(TRY(.in = &e_missing, .n_in = 1, .stride = S), -ENOENT);
	CHECK_EQ(TRY(.in = &e_badflag, .n_in = 1, .stride = S), -EINVAL);
	CHECK_EQ(TRY(.in = &e_point, .n_in = 1, .stride = S), -EINVAL); /* a binary syncobj has no point 1 */
	CHECK_EQ(TRY(.in = &e_sig_reset, .n_in = 1, .stride = 0), -ENOENT); /* stride 0: handle 0 */
	CHECK_EQ(TRY(.in = (void *)0, .n_in = 1, .stride = S), 0);          /* no SYNCOBJ_IN flag: ignored */
	CHECK_EQ(TRY(.out = &e_missing, .n_out = 1, .stride = S), -EINVAL);
	CHECK_EQ(TRY(.out = &e_out_flag, .n_out = 1, .stride = S), -EINVAL);
	/* A good in-syncobj with RESET, then a bad out one: the submit fails and nothing changed. */
	struct sim_msm_memstore ms0;
	REQUIRE(sim_msm_memstore(k, 0, &ms0) == 0);
	CHECK_EQ(TRY(.in = &e_sig_reset, .n_in = 1, .out = &e_missing, .n_out = 1, .stride = S), -EINVAL);
	CHECK_EQ(wait_syncobjs(k, &sig, 1, 0, 0, NULL), 0); /* not reset */
	struct sim_msm_memstore ms1;
	REQUIRE(sim_msm_memstore(k, 0, &ms1) == 0);
	CHECK_EQ(ms1.queued, ms0.queued); /* nothing queued */
	/* A short stride reads only handle and flags; entries at a wide stride are found. */
	struct drm_msm_gem_submit_syncobj wide[3] = { { .handle = sig }, { .point = 9 }, { .handle = sig } };
	CHECK_EQ(TRY(.in = wide, .n_in = 2, .stride = 2 * S), 0);
	CHECK_EQ(TRY(.in = wide, .n_in = 2, .stride = S), -ENOENT); /* entry 1: handle 0 at point 9 */
	uint32_t narrow[4] = { sig, 0, sig, 0 }; /* {handle, flags} pairs: point never read */
	CHECK_EQ(TRY(.in = narrow, .n_in = 2, .stride = 8), 0);
	/* The good case: RESET empties the in-syncobj, the out-syncobj gets the submit's fence. */
	CHECK_EQ(TRY(.in = &e_sig_reset, .n_in = 1, .out = &e_out, .n_out = 1, .stride = S), 0);
	CHECK_EQ(wait_syncobjs(k, &sig, 1, 0, 0, NULL), -EINVAL);
	CHECK_EQ(wait_syncobjs(k, &out, 1, 0, 10000, NULL), 0);
	CHECK_EQ(wait_fence_ms(k, 0, a.fence, 0), 0); /* retired with the syncobj's fence */
	CHECK_EQ(dst.cpu[0], 5);
#undef TRY
	k->ops->close(k);
	sim_msm_device_destroy(dev);
}

/* An in-syncobj holds the submit off the GPU: gate gets the fence of a submit stuck in a CP
 * wait on a flag the CPU sets later; a submit on another queue waits on gate and must not
 * write before the flag is set. */
static void test_in_syncobj_gates(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a660", &dev) == 0);
	sim_msm_set_hangcheck_ms(dev, 60000);
	struct kdev *k = sim_msm_open(dev);
	REQUIRE(k);
	struct tbo cmd = tbo_new(k, 4096), dst = tbo_new(k, 4096), flag = tbo_new(k, 4096);
	volatile uint32_t *words = dst.cpu;
	uint32_t gate = syncobj_new(k, false), out = syncobj_new(k, false);
	const uint32_t S = sizeof(struct drm_msm_gem_submit_syncobj);
	struct drm_msm_gem_submit_syncobj e_gate = { .handle = gate }, e_out = { .handle = out };
	uint32_t q1 = new_queue(k, 1), q2 = new_queue(k, 1);
	struct submit_args a1 = { .queue = q1, .flag = &flag, .out = &e_gate, .n_out = 1, .stride = S };
	REQUIRE(submit_write(k, &cmd, 0, &dst, 0x1111, &a1) == 0);
	struct submit_args a2 = { .queue = q2, .in = &e_gate, .n_in = 1, .out = &e_out, .n_out = 1, .stride = S };
	REQUIRE(submit_write(k, &cmd, 64, &dst, 0x2222, &a2) == 0);
	/* Without the gate, q2's submit would run at once beside q1's stalled one. */
	CHECK_EQ(wait_fence_ms(k, q2, a2.fence, 100), -ETIMEDOUT);
	CHECK_EQ(words[0], 0);
	struct sim_msm_memstore m;
	REQUIRE(sim_msm_memstore(k, q2, &m) == 0);
	CHECK_EQ(m.soptimestamp, 0); /* the CP never began it */
	CHECK_EQ(wait_syncobjs(k, &out, 1, 0, 0, NULL), -ETIME);
	/* Release q1's submit: gate signals, q2's submit runs, out signals. */
	__atomic_store_n(&flag.cpu[0], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_syncobjs(k, &out, 1, 0, 10000, NULL), 0);
	CHECK_EQ(words[0], 0x2222);
	CHECK_EQ(wait_fence_ms(k, q1, a1.fence, 0), 0);
	k->ops->close(k);
	sim_msm_device_destroy(dev);
}

/* Syncobj fds and sync files, within an open and across opens of the device. */
static void test_syncobj_fds(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct kdev *a = sim_msm_open(dev), *b = sim_msm_open(dev);
	REQUIRE(a && b);
	uint32_t s = syncobj_new(a, false);
	struct drm_syncobj_handle h = { .handle = s, .fd = -1 };
	REQUIRE(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h) == 0);
	CHECK(h.fd >= 0);
	CHECK(fcntl(h.fd, F_GETFD) & FD_CLOEXEC);
	struct drm_syncobj_handle in = { .fd = h.fd };
	REQUIRE(kdev_ioctl(b, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &in) == 0);
	close(h.fd);
	/* One syncobj: signaled through b, seen through a; destroyed in a, still alive in b. */
	CHECK_EQ(syncobj_array(b, DRM_IOCTL_SYNCOBJ_SIGNAL, in.handle), 0);
	CHECK_EQ(wait_syncobjs(a, &s, 1, 0, 0, NULL), 0);
	struct drm_syncobj_destroy d = { .handle = s };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_DESTROY, &d), 0);
	CHECK_EQ(wait_syncobjs(b, &in.handle, 1, 0, 0, NULL), 0);
	CHECK_EQ(syncobj_array(b, DRM_IOCTL_SYNCOBJ_RESET, in.handle), 0);

	/* Sync files: export of a fence-less syncobj fails; a snapshot of an unsignaled fence
	 * polls readable once it signals, and imports into a syncobj of either open. */
	struct drm_syncobj_handle sf = { .handle = in.handle, .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sf), -EINVAL);
	sf.handle = 99;
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sf), -ENOENT);
	struct tbo cmd = tbo_new(b, 4096), dst = tbo_new(b, 4096), flag = tbo_new(b, 4096);
	sim_msm_set_hangcheck_ms(dev, 60000);
	const uint32_t S = sizeof(struct drm_msm_gem_submit_syncobj);
	struct drm_msm_gem_submit_syncobj e_out = { .handle = in.handle };
	struct submit_args sa = { .flag = &flag, .out = &e_out, .n_out = 1, .stride = S };
	REQUIRE(submit_write(b, &cmd, 0, &dst, 7, &sa) == 0);
	sf = (struct drm_syncobj_handle){ .handle = in.handle, .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE };
	REQUIRE(kdev_ioctl(b, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sf) == 0);
	CHECK(!fd_readable(sf.fd));
	uint32_t t = syncobj_new(a, false);
	struct drm_syncobj_handle imp = { .fd = sf.fd, .handle = t, .flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), 0);
	CHECK_EQ(wait_syncobjs(a, &t, 1, 0, 0, NULL), -ETIME);
	__atomic_store_n(&flag.cpu[0], 1, __ATOMIC_RELEASE);
	CHECK_EQ(wait_syncobjs(a, &t, 1, 0, 10000, NULL), 0);
	CHECK(fd_readable(sf.fd));
	/* Wrong kinds and strangers: -EINVAL; a missing target syncobj: -ENOENT. */
	imp.handle = 99;
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), -ENOENT);
	imp = (struct drm_syncobj_handle){ .fd = sf.fd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), -EINVAL); /* a sync file, not a syncobj */
	close(sf.fd);
	int p[2];
	REQUIRE(pipe(p) == 0);
	imp = (struct drm_syncobj_handle){ .fd = p[0] };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), -EINVAL);
	close(p[0]);
	close(p[1]);
	imp.fd = 12345;
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), -EINVAL);
	imp = (struct drm_syncobj_handle){ .fd = 0, .flags = 4 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), -EINVAL);
	h = (struct drm_syncobj_handle){ .handle = t, .pad = 1 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h), -EINVAL);
	h = (struct drm_syncobj_handle){ .handle = 99 };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h), -EINVAL);
	/* Another device's syncobj fd is foreign here. */
	struct sim_msm_device *dev2;
	REQUIRE(sim_msm_device_create("a630", &dev2) == 0);
	struct kdev *c = sim_msm_open(dev2);
	REQUIRE(c);
	h = (struct drm_syncobj_handle){ .handle = t };
	REQUIRE(kdev_ioctl(a, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h) == 0);
	imp = (struct drm_syncobj_handle){ .fd = h.fd };
	CHECK_EQ(kdev_ioctl(c, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &imp), -EINVAL);
	close(h.fd);
	c->ops->close(c);
	sim_msm_device_destroy(dev2);
	a->ops->close(a);
	b->ops->close(b);
	sim_msm_device_destroy(dev);
}

static void test_prime_import(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct kdev *a = sim_msm_open(dev), *b = sim_msm_open(dev);
	REQUIRE(a && b);
	struct tbo x = tbo_new(a, 8192);
	struct drm_prime_handle e = { .handle = x.handle, .flags = DRM_CLOEXEC | DRM_RDWR, .fd = -1 };
	REQUIRE(kdev_ioctl(a, DRM_IOCTL_PRIME_HANDLE_TO_FD, &e) == 0);
	/* Same open: the same handle. */
	struct drm_prime_handle i = { .fd = e.fd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), 0);
	CHECK_EQ(i.handle, x.handle);
	/* Another open: its own handle over the same pages, again the same on a second import. */
	i = (struct drm_prime_handle){ .fd = e.fd };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), 0);
	uint32_t hb = i.handle;
	i = (struct drm_prime_handle){ .fd = e.fd };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), 0);
	CHECK_EQ(i.handle, hb);
	struct drm_msm_gem_info gi = { .handle = hb, .info = MSM_INFO_GET_OFFSET };
	REQUIRE(kdev_ioctl(b, DRM_IOCTL_MSM_GEM_INFO, &gi) == 0);
	uint32_t *mb = b->ops->mmap(b, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, gi.value);
	REQUIRE(mb != MAP_FAILED);
	mb[1000] = 0xfeed;
	CHECK_EQ(x.cpu[1000], 0xfeed);
	gi = (struct drm_msm_gem_info){ .handle = hb, .info = MSM_INFO_GET_FLAGS };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_MSM_GEM_INFO, &gi), 0);
	CHECK_EQ(gi.value, MSM_BO_WC);
	b->ops->munmap(b, mb, 8192);
	/* Every handle gone: the fd still names the pages, and imports again. */
	tbo_free(a, &x);
	struct drm_gem_close gc = { .handle = hb };
	CHECK_EQ(kdev_ioctl(b, DRM_IOCTL_GEM_CLOSE, &gc), 0);
	i = (struct drm_prime_handle){ .fd = e.fd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), 0);
	CHECK(i.handle != 0);
	close(e.fd);
	/* Strangers: a memfd of nobody's, a closed fd, another device's BO. */
	int mfd = memfd_create("ferry-msm-bo", MFD_CLOEXEC);
	REQUIRE(mfd >= 0 && ftruncate(mfd, 4096) == 0);
	i = (struct drm_prime_handle){ .fd = mfd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), -EINVAL);
	close(mfd);
	i = (struct drm_prime_handle){ .fd = mfd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), -EBADF);
	struct sim_msm_device *dev2;
	REQUIRE(sim_msm_device_create("a630", &dev2) == 0);
	struct kdev *c = sim_msm_open(dev2);
	REQUIRE(c);
	struct tbo y = tbo_new(c, 4096);
	e = (struct drm_prime_handle){ .handle = y.handle, .flags = DRM_CLOEXEC };
	REQUIRE(kdev_ioctl(c, DRM_IOCTL_PRIME_HANDLE_TO_FD, &e) == 0);
	i = (struct drm_prime_handle){ .fd = e.fd };
	CHECK_EQ(kdev_ioctl(a, DRM_IOCTL_PRIME_FD_TO_HANDLE, &i), -EINVAL);
	close(e.fd);
	tbo_free(c, &y);
	c->ops->close(c);
	sim_msm_device_destroy(dev2);
	a->ops->close(a);
	b->ops->close(b);
	sim_msm_device_destroy(dev);
}

struct waiter {
	struct kdev *k;
	uint32_t h;
	int ret;
	atomic_int tid;
};

static void *wait_for_submit(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	w->ret = wait_syncobjs(w->k, &w->h, 1, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, 2000, NULL);
	return NULL;
}

/* Returns once the waiter thread sleeps (in its wait, on a loaded machine too): its state in
 * /proc reads S three times in a row. Bounded: gives up after 2 s, and the test may then fail. */
static void waiter_asleep(struct waiter *w)
{
	char path[64], stat[256];
	int seen = 0;
	for (int i = 0; i < 2000 && seen < 3; i++) {
		usleep(1000);
		int tid = atomic_load(&w->tid);
		if (!tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(stat, 1, sizeof(stat) - 1, f) : 0;
		if (f)
			fclose(f);
		stat[n] = '\0';
		const char *end = strrchr(stat, ')'); /* the state follows "(comm)" */
		seen = end && end[1] == ' ' && end[2] == 'S' ? seen + 1 : 0;
	}
}

/* A fence installed and reset again while a WAIT_FOR_SUBMIT waiter sleeps still ends its wait:
 * the kernel hands every installed fence to the queued waiters. */
static void test_wait_for_submit_sees_signal_then_reset(void)
{
	struct sim_msm_device *dev;
	REQUIRE(sim_msm_device_create("a630", &dev) == 0);
	struct kdev *k = sim_msm_open(dev);
	REQUIRE(k);
	for (int round = 0; round < 5; round++) {
		struct waiter w = { k, syncobj_new(k, false), 1, 0 };
		pthread_t th;
		REQUIRE(pthread_create(&th, NULL, wait_for_submit, &w) == 0);
		waiter_asleep(&w);
		CHECK_EQ(syncobj_array(k, DRM_IOCTL_SYNCOBJ_SIGNAL, w.h), 0);
		CHECK_EQ(syncobj_array(k, DRM_IOCTL_SYNCOBJ_RESET, w.h), 0);
		pthread_join(th, NULL);
		CHECK_EQ(w.ret, 0);
		struct drm_syncobj_destroy d = { .handle = w.h };
		CHECK_EQ(kdev_ioctl(k, DRM_IOCTL_SYNCOBJ_DESTROY, &d), 0);
	}
	k->ops->close(k);
	sim_msm_device_destroy(dev);
}

int main(void)
{
	RUN_TEST(test_version_and_caps);
	RUN_TEST(test_wait_for_submit_sees_signal_then_reset);
	RUN_TEST(test_syncobj_basics);
	RUN_TEST(test_submit_syncobj_errors);
	RUN_TEST(test_in_syncobj_gates);
	RUN_TEST(test_syncobj_fds);
	RUN_TEST(test_prime_import);
	return test_finish();
}
