/* Timeline syncobjs through libdrm, as Linux 6.1's drm_syncobj.c answers them: the cap,
 * TIMELINE_SIGNAL / QUERY (LAST_SUBMITTED) / TIMELINE_WAIT (WAIT_ALL, WAIT_FOR_SUBMIT,
 * WAIT_AVAILABLE, first_signaled, absolute timeouts) / TRANSFER both ways, points out of order,
 * points in msm and v3d multisync submits, binary ioctls on timeline syncobjs, opaque fds that
 * keep their points, and the errnos for hostile arguments. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "shim_test.h"
#include "test.h"

static struct st_env env;
static int fd = -1;

#define ALL DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define FOR_SUBMIT DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
#define AVAILABLE DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE
#define LAST_SUBMITTED DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED

static uint32_t syncobj(bool signaled)
{
	uint32_t h = 0;
	REQUIRE(drmSyncobjCreate(fd, signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, &h) == 0);
	return h;
}

static int tl_wait(uint32_t *h, uint64_t *points, unsigned n, int64_t abs_ns, uint32_t flags, uint32_t *first)
{
	struct drm_syncobj_timeline_wait w = {
		.handles = (uintptr_t)h, .points = (uintptr_t)points, .count_handles = n, .timeout_nsec = abs_ns,
		.flags = flags, .first_signaled = 0xdead,
	};
	int r = st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
	if (first)
		*first = w.first_signaled;
	return r;
}

/* A wait that must not block: a deadline already near. */
static int tl_wait1(uint32_t h, uint64_t point, uint32_t flags)
{
	return tl_wait(&h, &point, 1, st_now_ns() + 20000000, flags, NULL);
}

static int tl_signal(uint32_t h, uint64_t point)
{
	struct drm_syncobj_timeline_array a = { .handles = (uintptr_t)&h, .points = (uintptr_t)&point, .count_handles = 1 };
	return st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a);
}

static uint64_t query(uint32_t h, uint32_t flags)
{
	uint64_t p = 0xfeedfacecafe;
	struct drm_syncobj_timeline_array a = { .handles = (uintptr_t)&h, .points = (uintptr_t)&p, .count_handles = 1,
						.flags = flags };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a), 0);
	return p;
}

static int transfer(uint32_t src, uint64_t src_point, uint32_t dst, uint64_t dst_point, uint32_t flags)
{
	struct drm_syncobj_transfer t = { .src_handle = src, .dst_handle = dst, .src_point = src_point,
					  .dst_point = dst_point, .flags = flags };
	return st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &t);
}

static void test_cap(void)
{
	uint64_t v = 7;
	CHECK_EQ(drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &v), 0);
	CHECK_EQ(v, 1);
}

static void test_signal_query_wait(void)
{
	uint32_t h = syncobj(false);
	CHECK_EQ(query(h, 0), 0); /* no fence: not a chain */
	CHECK_EQ(query(h, LAST_SUBMITTED), 0);
	CHECK_EQ(tl_wait1(h, 1, 0), -EINVAL); /* nothing submitted, no WAIT_FOR_SUBMIT */
	CHECK_EQ(tl_wait1(h, 1, FOR_SUBMIT), -ETIME);
	CHECK_EQ(tl_signal(h, 3), 0);
	CHECK_EQ(query(h, 0), 3);
	CHECK_EQ(query(h, LAST_SUBMITTED), 3);
	CHECK_EQ(tl_wait1(h, 1, 0), 0); /* an earlier point is covered by 3 */
	CHECK_EQ(tl_wait1(h, 3, ALL), 0);
	CHECK_EQ(tl_wait1(h, 0, 0), 0); /* point 0: the whole chain */
	CHECK_EQ(tl_wait1(h, 4, 0), -EINVAL); /* later than the last point */
	CHECK_EQ(tl_wait1(h, 4, FOR_SUBMIT), -ETIME);
	CHECK_EQ(tl_wait1(h, 4, FOR_SUBMIT | AVAILABLE), -ETIME);
	CHECK_EQ(tl_wait1(h, 3, FOR_SUBMIT | AVAILABLE), 0);
	/* A deadline of 0 polls; one in the past polls too. */
	uint64_t p4 = 4;
	CHECK_EQ(tl_wait(&h, &p4, 1, 0, FOR_SUBMIT, NULL), -ETIME);
	CHECK_EQ(tl_wait(&h, &p4, 1, 1, FOR_SUBMIT, NULL), -ETIME);
	/* In order: 5, 6; the binary wait sees the latest. */
	CHECK_EQ(tl_signal(h, 5), 0);
	CHECK_EQ(tl_signal(h, 6), 0);
	CHECK_EQ(query(h, 0), 6);
	CHECK_EQ(drmSyncobjWait(fd, &h, 1, 0, ALL, NULL), 0);
	/* 64-bit points compare as 64-bit numbers. */
	uint64_t big = (1ull << 63) + 5;
	CHECK_EQ(tl_signal(h, big), 0);
	CHECK_EQ(query(h, LAST_SUBMITTED), big);
	CHECK_EQ(query(h, 0), big);
	CHECK_EQ(tl_wait1(h, big, 0), 0);
	CHECK_EQ(tl_wait1(h, big + 1, 0), -EINVAL);
	CHECK_EQ(tl_wait1(h, UINT64_MAX, 0), -EINVAL);
	CHECK_EQ(tl_wait1(h, (uint32_t)big, 0), 0); /* a truncated point is an early one */
	CHECK_EQ(drmSyncobjDestroy(fd, h), 0);
}

/* first_signaled: the first entry done at entry, or for "any" the one that ended the wait. */
static void test_first_signaled(void)
{
	uint32_t h[3] = { syncobj(false), syncobj(false), syncobj(false) };
	CHECK_EQ(tl_signal(h[1], 2), 0);
	CHECK_EQ(tl_signal(h[2], 9), 0);
	uint64_t pts[3] = { 1, 2, 9 };
	uint32_t first = 0;
	CHECK_EQ(tl_wait(h, pts, 3, st_now_ns() + 20000000, FOR_SUBMIT, &first), 0);
	CHECK_EQ(first, 1);
	CHECK_EQ(tl_wait(h, pts, 3, st_now_ns() + 20000000, FOR_SUBMIT | ALL, NULL), -ETIME);
	CHECK_EQ(tl_wait(h, pts, 3, st_now_ns() + 20000000, ALL, NULL), -EINVAL); /* h[0] has nothing */
	CHECK_EQ(tl_signal(h[0], 1), 0);
	CHECK_EQ(tl_wait(h, pts, 3, st_now_ns() + 20000000, ALL, &first), 0);
	CHECK_EQ(first, 0);
	/* points NULL: every point 0. */
	CHECK_EQ(tl_wait(h, NULL, 3, st_now_ns() + 20000000, ALL, &first), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(drmSyncobjDestroy(fd, h[i]), 0);
}

static void test_errnos(void)
{
	uint32_t h = syncobj(true), bogus = 4242;
	uint64_t p = 1;
	CHECK_EQ(tl_wait(&h, &p, 1, 0, 0x8, NULL), -EINVAL);        /* unknown flag */
	CHECK_EQ(tl_wait(&h, &p, 0, 0, 0, NULL), -EINVAL);          /* no handles */
	CHECK_EQ(tl_wait(&bogus, &p, 1, 0, 0, NULL), -ENOENT);
	CHECK_EQ(tl_wait(NULL, &p, 1, 0, 0, NULL), -EFAULT);
	CHECK_EQ(tl_wait(&h, &p, 1u << 30, 0, 0, NULL), -ENOMEM);   /* drm_syncobj_array_find's bound */
	CHECK_EQ(tl_wait1(h, 1, 0), -EINVAL); /* a binary stub is no chain: no point 1 */
	CHECK_EQ(tl_wait1(h, 0, 0), 0);
	struct drm_syncobj_timeline_array a = { .handles = (uintptr_t)&h, .points = (uintptr_t)&p, .count_handles = 1 };
	a.flags = 2;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a), -EINVAL);
	a.flags = 1;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), -EINVAL); /* no flags here */
	a.flags = 0;
	a.count_handles = 0;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a), -EINVAL);
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), -EINVAL);
	a.count_handles = 1u << 30;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a), -ENOMEM);
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), -ENOMEM);
	a.count_handles = 1;
	a.handles = (uintptr_t)&bogus;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a), -ENOENT);
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), -ENOENT);
	a.handles = (uintptr_t)&h;
	a.points = 0;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a), -EFAULT); /* nowhere to write */
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a), 0); /* NULL points: point 0 */
	struct drm_syncobj_transfer t = { .src_handle = h, .dst_handle = h, .pad = 1 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &t), -EINVAL);
	CHECK_EQ(transfer(h, 0, bogus, 0, 0), -ENOENT);
	CHECK_EQ(transfer(bogus, 0, h, 0, 0), -ENOENT);
	CHECK_EQ(transfer(bogus, 0, h, 5, 0), -ENOENT);
	CHECK_EQ(drmSyncobjDestroy(fd, h), 0);
}

struct waiter {
	uint32_t handle;
	uint64_t point;
	uint32_t flags;
	int result;
	atomic_bool done;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	w->result = tl_wait(&w->handle, &w->point, 1, st_now_ns() + ST_WAIT_NS, w->flags, NULL);
	atomic_store(&w->done, true);
	return NULL;
}

/* A WAIT_FOR_SUBMIT waiter on point 5 sleeps through points 3 and 4 and wakes at 5; the chain
 * then reads 5 whatever order points came in. */
static void test_points_out_of_order(void)
{
	struct waiter w = { .handle = syncobj(false), .point = 5, .flags = FOR_SUBMIT | ALL };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, wait_thread, &w) == 0);
	st_sleep_ms(50);
	CHECK_EQ(tl_signal(w.handle, 3), 0);
	st_sleep_ms(50);
	CHECK(!atomic_load(&w.done));
	CHECK_EQ(tl_signal(w.handle, 5), 0);
	pthread_join(t, NULL);
	CHECK_EQ(w.result, 0);
	/* An earlier point after a later one: a new context at the later point (dma_fence_chain_init),
	 * so the timeline does not go back. */
	CHECK_EQ(tl_signal(w.handle, 4), 0);
	CHECK_EQ(query(w.handle, 0), 5);
	CHECK_EQ(query(w.handle, LAST_SUBMITTED), 5);
	CHECK_EQ(tl_wait1(w.handle, 5, 0), 0);
	CHECK_EQ(tl_wait1(w.handle, 6, 0), -EINVAL);
	CHECK_EQ(drmSyncobjDestroy(fd, w.handle), 0);
}

/* WAIT_AVAILABLE with WAIT_FOR_SUBMIT returns once the point is submitted. */
static void test_wait_available(void)
{
	struct waiter w = { .handle = syncobj(false), .point = 2, .flags = FOR_SUBMIT | AVAILABLE };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, wait_thread, &w) == 0);
	st_sleep_ms(50);
	CHECK(!atomic_load(&w.done));
	CHECK_EQ(tl_signal(w.handle, 2), 0);
	pthread_join(t, NULL);
	CHECK_EQ(w.result, 0);
	CHECK_EQ(drmSyncobjDestroy(fd, w.handle), 0);
}

/* A queued WAIT_FOR_SUBMIT waiter is handed the fence as it is put in (the kernel's cb_list):
 * a point signaled and reset again while it sleeps still ends its wait, as does a binary
 * SIGNAL followed by a RESET. */
static void test_waiter_gets_fence_before_reset(void)
{
	for (int binary = 0; binary < 2; binary++) {
		struct waiter w = { .handle = syncobj(false), .point = binary ? 0 : 2, .flags = FOR_SUBMIT | ALL };
		pthread_t t;
		REQUIRE(pthread_create(&t, NULL, wait_thread, &w) == 0);
		st_sleep_ms(100);
		CHECK(!atomic_load(&w.done));
		if (binary)
			CHECK_EQ(drmSyncobjSignal(fd, &w.handle, 1), 0);
		else
			CHECK_EQ(tl_signal(w.handle, 2), 0);
		CHECK_EQ(drmSyncobjReset(fd, &w.handle, 1), 0);
		pthread_join(t, NULL);
		CHECK_EQ(w.result, 0);
		CHECK_EQ(drmSyncobjDestroy(fd, w.handle), 0);
	}
}

/* Binary ioctls on a timeline syncobj act on its latest fence, as the kernel's. */
static void test_binary_on_timeline(void)
{
	uint32_t h = syncobj(false);
	CHECK_EQ(tl_signal(h, 2), 0);
	CHECK_EQ(drmSyncobjWait(fd, &h, 1, st_now_ns() + 20000000, ALL, NULL), 0);
	CHECK_EQ(drmSyncobjReset(fd, &h, 1), 0);
	CHECK_EQ(query(h, 0), 0);
	CHECK_EQ(drmSyncobjWait(fd, &h, 1, 0, ALL, NULL), -EINVAL); /* reset: no fence */
	CHECK_EQ(drmSyncobjSignal(fd, &h, 1), 0);
	CHECK_EQ(query(h, LAST_SUBMITTED), 0); /* a plain stub, no chain */
	CHECK_EQ(tl_signal(h, 7), 0); /* a chain on top of the stub */
	CHECK_EQ(query(h, 0), 7);
	CHECK_EQ(drmSyncobjDestroy(fd, h), 0);
}

/* An opaque syncobj fd names the syncobj, points and all. */
static void test_fd_keeps_points(void)
{
	uint32_t h = syncobj(false), h2 = 0;
	CHECK_EQ(tl_signal(h, 4), 0);
	int sfd = -1;
	CHECK_EQ(drmSyncobjHandleToFD(fd, h, &sfd), 0);
	CHECK_EQ(drmSyncobjFDToHandle(fd, sfd, &h2), 0);
	CHECK_EQ(close(sfd), 0);
	CHECK(h2 != h);
	CHECK_EQ(query(h2, 0), 4);
	CHECK_EQ(tl_signal(h2, 6), 0);
	CHECK_EQ(query(h, 0), 6);
	CHECK_EQ(tl_wait1(h, 6, 0), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, h), 0);
	CHECK_EQ(query(h2, LAST_SUBMITTED), 6);
	CHECK_EQ(drmSyncobjDestroy(fd, h2), 0);
}

struct transfer_args {
	uint32_t src, dst;
	int result;
};

static void *transfer_thread(void *arg)
{
	struct transfer_args *t = arg;
	t->result = transfer(t->src, 20, t->dst, 21, FOR_SUBMIT);
	return NULL;
}

static void test_transfer(void)
{
	uint32_t src = syncobj(false), bin = syncobj(false), tl = syncobj(false);
	CHECK_EQ(transfer(src, 1, bin, 0, 0), -EINVAL); /* nothing at src point 1 */
	CHECK_EQ(transfer(src, 0, bin, 0, 0), -EINVAL); /* nothing at all */
	CHECK_EQ(tl_signal(src, 3), 0);
	/* timeline -> binary: the node of point 3 replaces bin's fence (a query sees its point). */
	CHECK_EQ(transfer(src, 3, bin, 0, 0), 0);
	CHECK_EQ(drmSyncobjWait(fd, &bin, 1, 0, ALL, NULL), 0);
	CHECK_EQ(query(bin, 0), 3);
	/* timeline -> timeline at another point. */
	CHECK_EQ(transfer(src, 3, tl, 8, 0), 0);
	CHECK_EQ(query(tl, 0), 8);
	CHECK_EQ(tl_wait1(tl, 8, 0), 0);
	/* binary -> timeline. */
	uint32_t stub = syncobj(true);
	CHECK_EQ(transfer(stub, 0, tl, 9, 0), 0);
	CHECK_EQ(query(tl, LAST_SUBMITTED), 9);
	/* Flag bits other than WAIT_FOR_SUBMIT are not looked at (6.1's find_fence). */
	CHECK_EQ(transfer(stub, 0, tl, 10, ALL), 0);
	CHECK_EQ(query(tl, 0), 10);
	/* WAIT_FOR_SUBMIT: the transfer waits for src's point 20 to be submitted. */
	struct transfer_args ta = { .src = src, .dst = tl, .result = 99 };
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, transfer_thread, &ta) == 0);
	st_sleep_ms(50);
	CHECK_EQ(query(tl, LAST_SUBMITTED), 10); /* not yet */
	CHECK_EQ(tl_signal(src, 20), 0);
	pthread_join(t, NULL);
	CHECK_EQ(ta.result, 0);
	CHECK_EQ(query(tl, 0), 21);
	CHECK_EQ(drmSyncobjDestroy(fd, src), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, bin), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, tl), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, stub), 0);
}

/* Points in submits: an out point gets the job's fence, an in point is waited for, a point not
 * submitted fails the submit -EINVAL. */
static void test_submit_points(void)
{
	uint32_t h = syncobj(false);
	CHECK_EQ(tl_signal(h, 1), 0);
	struct st_job a, b, c;
	st_job_build(fd, env.msm, 0x71e00001, &a);
	st_job_build(fd, env.msm, 0x71e00002, &b);
	st_job_build(fd, env.msm, 0x71e00003, &c);
	CHECK_EQ(st_job_submit_points(fd, &a, h, 1, h, 2), 0);
	CHECK_EQ(query(h, LAST_SUBMITTED), 2);
	CHECK_EQ(tl_wait(&h, (uint64_t[]){ 2 }, 1, st_now_ns() + ST_WAIT_NS, ALL, NULL), 0);
	CHECK(st_job_done(&a));
	CHECK_EQ(query(h, 0), 2);
	CHECK_EQ(st_job_submit_points(fd, &b, h, 2, h, 4), 0);
	CHECK_EQ(tl_wait(&h, (uint64_t[]){ 3 }, 1, st_now_ns() + ST_WAIT_NS, ALL, NULL), 0); /* 3 is 4's */
	CHECK(st_job_done(&b));
	CHECK_EQ(query(h, 0), 4);
	CHECK_EQ(st_job_submit_points(fd, &c, h, 9, 0, 0), -EINVAL); /* point 9 not submitted */
	CHECK(!st_job_done(&c));
	CHECK_EQ(query(h, LAST_SUBMITTED), 4); /* the failed submit added nothing */
	/* Point 0 of an out-syncobj replaces the chain with the job's fence. */
	CHECK_EQ(st_job_submit_points(fd, &c, h, 4, h, 0), 0);
	CHECK_EQ(drmSyncobjWait(fd, &h, 1, st_now_ns() + ST_WAIT_NS, ALL, NULL), 0);
	CHECK(st_job_done(&c));
	CHECK_EQ(query(h, LAST_SUBMITTED), 0);
	st_job_free(fd, &a);
	st_job_free(fd, &b);
	st_job_free(fd, &c);
	CHECK_EQ(drmSyncobjDestroy(fd, h), 0);
}

/* Without FERRY_SYNCOBJ_TIMELINE=1 (the default, for Turnip 22.3, which drops its points) both
 * backends answer as 6.1 does, cap 0 and the timeline ioctls and msm points -EOPNOTSUPP. Run in
 * a child with the variable set. */
static int child_off(bool msm)
{
	fd = st_open_render();
	uint64_t cap = 9;
	int r = drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap);
	uint32_t h = syncobj(true);
	uint64_t p = 0;
	struct drm_syncobj_timeline_array a = { .handles = (uintptr_t)&h, .points = (uintptr_t)&p, .count_handles = 1 };
	int sig = st_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a);
	int q = st_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &a);
	int w = tl_wait1(h, 0, 0);
	int t = transfer(h, 0, h, 0, 0);
	int sub = 0;
	if (msm) {
		struct st_job j;
		st_job_build(fd, true, 0x0ff, &j);
		sub = st_job_submit_points(fd, &j, 0, 0, h, 3);
		st_job_free(fd, &j);
	}
	fprintf(stderr, "child: cap=%d/%llu signal=%d query=%d wait=%d transfer=%d submit=%d\n", r,
		(unsigned long long)cap, sig, q, w, t, sub);
	close(fd);
	return 0;
}

static void test_switched_off(void)
{
	char out[4096];
	const char *args[] = { env.msm ? "--child-off-msm" : "--child-off", NULL };
	/* ferryd gives a V3D to one client at a time: the parent lets go of its open meanwhile. */
	CHECK_EQ(close(fd), 0);
	char want[256];
	snprintf(want, sizeof(want), "child: cap=0/0 signal=%d query=%d wait=%d transfer=%d submit=%d\n", -EOPNOTSUPP,
		 -EOPNOTSUPP, -EOPNOTSUPP, -EOPNOTSUPP, env.msm ? -EOPNOTSUPP : 0);
	/* Off when asked, and by default (empty, as unset: anything but 1). */
	const char *settings[] = { "FERRY_SYNCOBJ_TIMELINE=0", "FERRY_SYNCOBJ_TIMELINE=" };
	for (int i = 0; i < 2; i++) {
		int st = st_rerun(&env, args, settings[i], out, sizeof(out));
		CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		CHECK(strstr(out, want) != NULL);
		if (test_failures)
			fprintf(stderr, "%s: child's status 0x%x, stderr:\n%s\n", settings[i], (unsigned)st, out);
	}
	fd = st_open_render();
}

int main(int argc, char **argv)
{
	if (argc > 1 && strncmp(argv[1], "--child-off", 11) == 0)
		return child_off(strcmp(argv[1], "--child-off-msm") == 0);
	st_setup(argc, argv, &env);
	fd = st_open_render();
	RUN_TEST(test_cap);
	RUN_TEST(test_signal_query_wait);
	RUN_TEST(test_first_signaled);
	RUN_TEST(test_errnos);
	RUN_TEST(test_points_out_of_order);
	RUN_TEST(test_wait_available);
	RUN_TEST(test_waiter_gets_fence_before_reset);
	RUN_TEST(test_binary_on_timeline);
	RUN_TEST(test_fd_keeps_points);
	RUN_TEST(test_transfer);
	RUN_TEST(test_submit_points);
	RUN_TEST(test_switched_off);
	CHECK_EQ(close(fd), 0);
	st_teardown(&env);
	return test_finish();
}
