/* The DRM core the node answers, through libdrm as Mesa calls it: device enumeration
 * (drmGetDevices2 / drmGetDevice2), drmGetVersion, drmGetCap, the syncobj family with the
 * kernel's errnos (absolute timeouts, wait all / any, WAIT_FOR_SUBMIT, reset, signal, opaque fds,
 * sync_file export / import) and PRIME. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "shim_test.h"
#include "test.h"

static struct st_env env;
static int fd = -1;

static void test_devices(void)
{
	drmDevicePtr devs[16];
	int n = drmGetDevices2(0, devs, 16);
	CHECK_EQ(n, env.msm ? 1 : 2);
	if (n <= 0)
		return;
	int render = -1, display = -1;
	for (int i = 0; i < n; i++) {
		if (devs[i]->available_nodes == (1 << DRM_NODE_RENDER))
			render = i;
		else if (devs[i]->available_nodes == (1 << DRM_NODE_PRIMARY))
			display = i;
	}
	REQUIRE(render >= 0);
	drmDevicePtr r = devs[render];
	CHECK_EQ(r->bustype, DRM_BUS_PLATFORM);
	CHECK(strcmp(r->nodes[DRM_NODE_RENDER], "/dev/dri/renderD128") == 0);
	CHECK(r->businfo.platform && r->businfo.platform->fullname[0] == '/');
	const char *want = env.msm ? "qcom,adreno-630.2" : "brcm,2711-v3d";
	if (env.msm && strcmp(env.gpu, "a630") != 0)
		want = "qcom,adreno-660.1";
	char *const *compat = r->deviceinfo.platform ? r->deviceinfo.platform->compatible : NULL;
	CHECK(compat && compat[0] && strcmp(compat[0], want) == 0);
	if (env.msm)
		CHECK(compat && compat[0] && compat[1] && strcmp(compat[1], "qcom,adreno") == 0 && !compat[2]);

	if (!env.msm) {
		/* The vc4 display beside the V3D: primary node only, and it does not open. */
		REQUIRE(display >= 0);
		drmDevicePtr d = devs[display];
		CHECK_EQ(d->bustype, DRM_BUS_PLATFORM);
		CHECK(strcmp(d->nodes[DRM_NODE_PRIMARY], "/dev/dri/card0") == 0);
		char *const *dc = d->deviceinfo.platform ? d->deviceinfo.platform->compatible : NULL;
		CHECK(dc && dc[0] && strcmp(dc[0], "brcm,bcm2711-vc5") == 0);
		errno = 0;
		CHECK(open(d->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC) == -1 && errno == EACCES);
	}
	drmFreeDevices(devs, n);

	/* drmGetDevice2 on the open fd describes the same device. */
	drmDevicePtr one = NULL;
	CHECK_EQ(drmGetDevice2(fd, 0, &one), 0);
	if (one) {
		CHECK(one->available_nodes & (1 << DRM_NODE_RENDER));
		CHECK(strcmp(one->nodes[DRM_NODE_RENDER], "/dev/dri/renderD128") == 0);
		CHECK(one->deviceinfo.platform && strcmp(one->deviceinfo.platform->compatible[0], want) == 0);
		drmFreeDevice(&one);
	}
	CHECK_EQ(drmGetNodeTypeFromFd(fd), DRM_NODE_RENDER);
}

static void test_version_and_caps(void)
{
	drmVersionPtr v = drmGetVersion(fd);
	REQUIRE(v != NULL);
	CHECK(strcmp(v->name, env.msm ? "msm" : "v3d") == 0);
	CHECK_EQ(v->version_major, 1);
	CHECK_EQ(v->version_minor, env.msm ? 9 : 0);
	CHECK_EQ(v->version_patchlevel, 0);
	CHECK(v->desc_len > 0 && v->date_len == 8);
	drmFreeVersion(v);

	/* A short buffer gets the first bytes; the length reported is the whole name's. */
	char name[2] = { 'x', 'x' };
	struct drm_version raw = { .name_len = 2, .name = name };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_VERSION, &raw), 0);
	CHECK_EQ(raw.name_len, 3);
	CHECK(memcmp(name, env.msm ? "ms" : "v3", 2) == 0);

	uint64_t val = 99;
	CHECK_EQ(drmGetCap(fd, DRM_CAP_SYNCOBJ, &val), 0);
	CHECK_EQ(val, 1);
	CHECK_EQ(drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &val), 0);
	CHECK_EQ(val, 1);
	CHECK_EQ(drmGetCap(fd, DRM_CAP_PRIME, &val), 0);
	CHECK_EQ(val, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT);
	CHECK_EQ(drmGetCap(fd, DRM_CAP_TIMESTAMP_MONOTONIC, &val), 0);
	CHECK_EQ(val, 1);
	/* SET_CLIENT_CAP has no DRM_RENDER_ALLOW: a render node refuses it. */
	errno = 0;
	CHECK(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1) == -1 && errno == EACCES);
	/* ... after copying its argument in: a bad pointer faults first, as drm_ioctl does. */
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SET_CLIENT_CAP, NULL), -EFAULT);
	/* A driver number the driver lacks is refused before its argument is looked at. */
	CHECK_EQ(st_ioctl(fd, _IOWR('d', DRM_COMMAND_BASE + 0x3f, int), NULL), -EINVAL);
	/* Not a DRM ioctl at all. */
	int dummy = 0;
	CHECK_EQ(st_ioctl(fd, _IOWR('x', 1, int), &dummy), -ENOTTY);
}

static uint32_t syncobj(bool signaled)
{
	uint32_t h = 0;
	REQUIRE(drmSyncobjCreate(fd, signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, &h) == 0);
	REQUIRE(h != 0);
	return h;
}

/* drmSyncobjWait returns -errno. */
static int wait_abs(uint32_t *h, unsigned n, int64_t abs_ns, uint32_t flags, uint32_t *first)
{
	return drmSyncobjWait(fd, h, n, abs_ns, flags, first);
}

static int wait_short(uint32_t h, uint32_t flags)
{
	return wait_abs(&h, 1, st_now_ns() + 50 * 1000 * 1000, flags, NULL);
}

#define ALL DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define FOR_SUBMIT DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT

static void test_syncobj_basics(void)
{
	uint32_t unsig = syncobj(false), sig = syncobj(true);
	CHECK(unsig != sig);
	/* Unsubmitted: -EINVAL unless WAIT_FOR_SUBMIT, which then times out. */
	CHECK_EQ(wait_short(unsig, ALL), -EINVAL);
	CHECK_EQ(wait_short(unsig, 0), -EINVAL);
	int64_t t0 = st_now_ns();
	CHECK_EQ(wait_short(unsig, ALL | FOR_SUBMIT), -ETIME);
	CHECK(st_now_ns() - t0 >= 40 * 1000 * 1000); /* it did wait for (most of) the 50 ms */
	/* A deadline already past polls. */
	CHECK_EQ(wait_abs(&unsig, 1, 0, ALL | FOR_SUBMIT, NULL), -ETIME);
	CHECK_EQ(wait_abs(&sig, 1, 0, ALL, NULL), 0);

	/* Wait any: the signaled one ends it and is named. */
	uint32_t pair[2] = { unsig, sig };
	uint32_t first = 77;
	CHECK_EQ(wait_abs(pair, 2, st_now_ns() + ST_WAIT_NS, FOR_SUBMIT, &first), 0);
	CHECK_EQ(first, 1);
	CHECK_EQ(wait_abs(pair, 2, st_now_ns() + 50 * 1000 * 1000, ALL | FOR_SUBMIT, NULL), -ETIME);
	CHECK_EQ(wait_abs(pair, 2, 0, 0, NULL), -EINVAL); /* one without a fence, no FOR_SUBMIT */

	/* signal / reset, on arrays */
	CHECK_EQ(drmSyncobjSignal(fd, &unsig, 1), 0);
	first = 77;
	CHECK_EQ(wait_abs(pair, 2, st_now_ns() + ST_WAIT_NS, ALL, &first), 0);
	CHECK_EQ(wait_abs(pair, 2, st_now_ns() + ST_WAIT_NS, 0, &first), 0);
	CHECK_EQ(first, 0);
	CHECK_EQ(drmSyncobjReset(fd, pair, 2), 0);
	CHECK_EQ(wait_short(sig, ALL), -EINVAL);
	CHECK_EQ(wait_short(sig, ALL | FOR_SUBMIT), -ETIME);

	/* errnos */
	uint32_t bogus = 999;
	uint32_t h;
	CHECK_EQ(drmSyncobjCreate(fd, 0x2, &h), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(wait_short(bogus, ALL), -ENOENT);
	CHECK_EQ(wait_short(sig, 0x10), -EINVAL); /* unknown wait flag */
	CHECK_EQ(wait_abs(pair, 0, 0, ALL, NULL), -EINVAL);
	errno = 0;
	CHECK(drmSyncobjReset(fd, &bogus, 1) == -1 && errno == ENOENT);
	uint32_t mixed[2] = { sig, bogus };
	errno = 0;
	CHECK(drmSyncobjSignal(fd, mixed, 2) == -1 && errno == ENOENT);
	CHECK_EQ(wait_short(sig, ALL), -EINVAL); /* nothing was signaled: the lookup comes first */
	errno = 0;
	CHECK(drmSyncobjReset(fd, pair, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(drmSyncobjDestroy(fd, bogus) == -1 && errno == EINVAL);
	CHECK_EQ(drmSyncobjDestroy(fd, unsig), 0);
	errno = 0;
	CHECK(drmSyncobjDestroy(fd, unsig) == -1 && errno == EINVAL);
	CHECK_EQ(drmSyncobjDestroy(fd, sig), 0);
}

struct waiter {
	uint32_t handle;
	int result;
	atomic_bool done;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	w->result = wait_abs(&w->handle, 1, st_now_ns() + ST_WAIT_NS, ALL | FOR_SUBMIT, NULL);
	atomic_store(&w->done, true);
	return NULL;
}

static void test_wait_for_submit(void)
{
	struct st_job job;
	st_job_build(fd, env.msm, 0x5eed0001, &job);
	struct waiter w = { .handle = syncobj(false) };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, wait_thread, &w) == 0);
	st_sleep_ms(100);
	CHECK(!atomic_load(&w.done)); /* nothing to wait for yet: still waiting */
	CHECK_EQ(st_job_submit(fd, &job, 0, w.handle, NULL), 0);
	pthread_join(t, NULL);
	CHECK_EQ(w.result, 0);
	CHECK(st_job_done(&job));
	/* Now it has a signaled fence: a plain wait passes. */
	CHECK_EQ(wait_short(w.handle, ALL), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, w.handle), 0);
	st_job_free(fd, &job);
}

/* A WAIT_FOR_SUBMIT wait on a syncobj nothing is attached to sleeps: it must not spin. */
static void test_wait_for_submit_sleeps(void)
{
	uint32_t h = syncobj(false);
	struct timespec c0, c1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	CHECK_EQ(wait_abs(&h, 1, st_now_ns() + 300000000, FOR_SUBMIT, NULL), -ETIME);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	int64_t cpu_ms = (c1.tv_sec - c0.tv_sec) * 1000 + (c1.tv_nsec - c0.tv_nsec) / 1000000;
	CHECK(cpu_ms < 150); /* a spinning wait burns the whole 300 ms */
	CHECK_EQ(drmSyncobjDestroy(fd, h), 0);
}

/* A newer libdrm's drm_syncobj_wait is longer (deadline_nsec came after 6.1); its request
 * number differs, and drm_ioctl still dispatches it on the number with the tail ignored. */
static void test_grown_struct(void)
{
	struct {
		struct drm_syncobj_wait w;
		uint64_t deadline_nsec;
	} big;
	uint32_t sig = syncobj(true);
	memset(&big, 0, sizeof(big));
	big.w.handles = (uintptr_t)&sig;
	big.w.count_handles = 1;
	big.w.timeout_nsec = st_now_ns() + 1000000;
	big.w.first_signaled = 77;
	unsigned long req = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, _IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT), sizeof(big));
	CHECK(req != DRM_IOCTL_SYNCOBJ_WAIT);
	CHECK_EQ(st_ioctl(fd, req, &big), 0);
	CHECK_EQ(big.w.first_signaled, 0);
	CHECK_EQ(drmSyncobjDestroy(fd, sig), 0);
}

static void test_syncobj_fds(void)
{
	uint32_t a = syncobj(false);
	int ofd = -1;
	CHECK_EQ(drmSyncobjHandleToFD(fd, a, &ofd), 0);
	REQUIRE(ofd >= 0);
	uint32_t b = 0;
	CHECK_EQ(drmSyncobjFDToHandle(fd, ofd, &b), 0);
	CHECK(b != 0 && b != a);
	/* The same syncobj under two handles. */
	CHECK_EQ(drmSyncobjSignal(fd, &a, 1), 0);
	CHECK_EQ(wait_short(b, ALL), 0);
	CHECK_EQ(drmSyncobjReset(fd, &b, 1), 0);
	CHECK_EQ(wait_short(a, ALL), -EINVAL);
	/* It outlives the first handle. */
	CHECK_EQ(drmSyncobjDestroy(fd, a), 0);
	CHECK_EQ(drmSyncobjSignal(fd, &b, 1), 0);
	CHECK_EQ(wait_short(b, ALL), 0);
	CHECK_EQ(close(ofd), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, b), 0);

	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	REQUIRE(devnull >= 0);
	uint32_t h = 0;
	errno = 0;
	CHECK(drmSyncobjFDToHandle(fd, devnull, &h) == -1 && errno == EINVAL);
	int bad_fd = -1;
	errno = 0;
	CHECK(drmSyncobjHandleToFD(fd, 999, &bad_fd) == -1 && errno == EINVAL);

	/* sync_file: a snapshot of the fence */
	uint32_t empty = syncobj(false);
	int sf = -1;
	errno = 0;
	CHECK(drmSyncobjExportSyncFile(fd, empty, &sf) == -1 && errno == EINVAL); /* no fence */
	errno = 0;
	CHECK(drmSyncobjExportSyncFile(fd, 999, &sf) == -1 && errno == ENOENT);

	struct st_job job;
	st_job_build(fd, env.msm, 0x5eed0002, &job);
	uint32_t out = syncobj(false);
	CHECK_EQ(st_job_submit(fd, &job, 0, out, NULL), 0);
	CHECK_EQ(drmSyncobjExportSyncFile(fd, out, &sf), 0);
	REQUIRE(sf >= 0);
	CHECK_EQ(drmSyncobjImportSyncFile(fd, empty, sf), 0);
	CHECK_EQ(wait_abs(&empty, 1, st_now_ns() + ST_WAIT_NS, ALL, NULL), 0);
	CHECK(st_job_done(&job));
	/* A real sync file: it polls ready once the fence signaled, and says so. */
	struct pollfd pfd = { .fd = sf, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, (int)(ST_WAIT_NS / 1000000)), 1);
	CHECK(pfd.revents & POLLIN);
	struct sync_file_info sfi = { 0 };
	CHECK_EQ(ioctl(sf, SYNC_IOC_FILE_INFO, &sfi), 0);
	CHECK_EQ(sfi.status, 1);
	CHECK_EQ(sfi.num_fences, 1);
	errno = 0;
	CHECK(drmSyncobjImportSyncFile(fd, 999, sf) == -1 && errno == ENOENT);
	errno = 0;
	CHECK(drmSyncobjImportSyncFile(fd, empty, devnull) == -1 && errno == EINVAL);
	CHECK_EQ(close(sf), 0);

	/* A dup of a sync_file names the same fence after the original is closed (v3d's GL
	 * driver dups them), and an export goes once every copy is closed. */
	CHECK_EQ(drmSyncobjExportSyncFile(fd, out, &sf), 0);
	int sf2 = dup(sf);
	REQUIRE(sf2 >= 0);
	CHECK_EQ(close(sf), 0);
	CHECK_EQ(drmSyncobjReset(fd, &empty, 1), 0);
	CHECK_EQ(drmSyncobjImportSyncFile(fd, empty, sf2), 0);
	CHECK_EQ(wait_abs(&empty, 1, st_now_ns() + ST_WAIT_NS, ALL, NULL), 0);
	CHECK_EQ(close(sf2), 0);

	/* A signaled syncobj exports a signaled sync_file; importing it signals the target. */
	uint32_t sig = syncobj(true), target = syncobj(false);
	CHECK_EQ(drmSyncobjExportSyncFile(fd, sig, &sf), 0);
	pfd = (struct pollfd){ .fd = sf, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(drmSyncobjImportSyncFile(fd, target, sf), 0);
	CHECK_EQ(wait_short(target, ALL), 0);
	CHECK_EQ(close(sf), 0);

	CHECK_EQ(close(devnull), 0);
	uint32_t all[] = { empty, out, sig, target };
	for (unsigned i = 0; i < 4; i++)
		CHECK_EQ(drmSyncobjDestroy(fd, all[i]), 0);
	st_job_free(fd, &job);
}

static void test_prime(void)
{
	struct st_bo bo;
	st_bo_new(fd, env.msm, 8192, &bo);
	int pfd = -1;
	CHECK_EQ(drmPrimeHandleToFD(fd, bo.handle, DRM_CLOEXEC | DRM_RDWR, &pfd), 0);
	REQUIRE(pfd >= 0);
	CHECK(fcntl(pfd, F_GETFD) & FD_CLOEXEC);
	uint32_t back = 0;
	CHECK_EQ(drmPrimeFDToHandle(fd, pfd, &back), 0);
	CHECK_EQ(back, bo.handle); /* the same object keeps its handle in this file */
	/* The dma-buf maps the same pages. */
	uint32_t *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		p[1000] = 0xfeedf00d;
		CHECK_EQ(((uint32_t *)bo.map)[1000], 0xfeedf00d);
		munmap(p, 8192);
	}
	int x = -1;
	errno = 0;
	CHECK(drmPrimeHandleToFD(fd, 999, DRM_CLOEXEC, &x) == -1 && errno == ENOENT);
	errno = 0;
	CHECK(drmPrimeHandleToFD(fd, bo.handle, 0x4, &x) == -1 && errno == EINVAL);
	CHECK_EQ(close(pfd), 0);

	/* GEM_CLOSE: once. */
	struct drm_gem_close c = { .handle = bo.handle };
	munmap(bo.map, bo.size);
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c), 0);
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c), -EINVAL);
	c.handle = 0;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c), -EINVAL);
}

int main(int argc, char **argv)
{
	st_setup(argc, argv, &env);
	fd = st_open_render();
	RUN_TEST(test_devices);
	RUN_TEST(test_version_and_caps);
	RUN_TEST(test_syncobj_basics);
	RUN_TEST(test_wait_for_submit);
	RUN_TEST(test_wait_for_submit_sleeps);
	RUN_TEST(test_grown_struct);
	RUN_TEST(test_syncobj_fds);
	RUN_TEST(test_prime);
	CHECK_EQ(close(fd), 0);
	st_teardown(&env);
	return test_finish();
}
