/* Sync files as Linux 6.1's msm and sync_file.c give them: GEM_SUBMIT with FENCE_FD_OUT returns a
 * pollable fd (POLLIN once the submit's fence signaled), FENCE_FD_IN holds a submit on another
 * queue until the fd's fences signaled, SYNC_IOC_FILE_INFO / SYNC_IOC_MERGE answer with the
 * kernel's fields and errnos, a hung submit's file reports an error status, a fork()ed child
 * polls and queries its parent's file, and syncobj sync-file exports are the same files. Every
 * "not yet" is made certain by a CP wait on a word the CPU writes, never by timing. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "pm4_builder.h"
#include "shim_test.h"
#include "test.h"

static struct st_env env;
static int fd = -1;
static struct st_bo ib, data;
static uint32_t *d;     /* data's words: [0..3] gates the CPU opens, [8..] results */
static uint32_t ib_next; /* next free dword of ib */

enum { GATE_A = 0, GATE_B = 1, NEVER = 2, RES = 8 };

static uint64_t word(uint32_t i)
{
	return data.gpu_addr + 4ull * i;
}

/* A program at the next free place of ib; returns its dword offset, *bytes its size. */
static uint32_t program(int gate, int copy_from, uint32_t dst, uint32_t value, uint32_t *bytes)
{
	struct pm4_builder b;
	uint32_t at = ib_next;
	pm4_builder_init(&b, (uint32_t *)ib.map + at, 64);
	if (gate >= 0)
		pm4_wait_mem_gte(&b, word((uint32_t)gate), 1);
	if (copy_from >= 0)
		pm4_memcpy(&b, word(dst), word((uint32_t)copy_from), 1);
	else
		pm4_mem_write(&b, word(dst), &value, 1);
	REQUIRE(pm4_builder_ok(&b));
	*bytes = pm4_builder_bytes(&b);
	ib_next += 64;
	REQUIRE(ib_next * 4 <= ib.size);
	return at;
}

static int submit(int dev, uint32_t queue, uint32_t at, uint32_t bytes, uint32_t flags, int *fence_fd)
{
	struct drm_msm_gem_submit_bo sb[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = ib.handle },
		{ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE, .handle = data.handle },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_offset = at * 4, .size = bytes };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | flags, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)sb,
		.cmds = (uintptr_t)&cmd, .queueid = queue, .fence_fd = *fence_fd,
	};
	int r = st_ioctl(dev, DRM_IOCTL_MSM_GEM_SUBMIT, &s);
	if (r == 0 && (flags & MSM_SUBMIT_FENCE_FD_OUT))
		*fence_fd = s.fence_fd;
	return r;
}

/* A submit on queue that waits for gate, then writes value to word dst; its sync file. */
static int gated(uint32_t queue, int gate, uint32_t dst, uint32_t value)
{
	uint32_t bytes, at = program(gate, -1, dst, value, &bytes);
	int f = -1;
	REQUIRE(submit(fd, queue, at, bytes, MSM_SUBMIT_FENCE_FD_OUT, &f) == 0);
	REQUIRE(f >= 0);
	return f;
}

static uint32_t queue_new(void)
{
	struct drm_msm_submitqueue q = { .prio = 0 };
	REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q) == 0);
	return q.id;
}

static void gates_reset(void)
{
	memset(d, 0, 4096);
}

static void open_gate(int g)
{
	__atomic_store_n(&d[g], 1, __ATOMIC_SEQ_CST);
}

#define WAIT_MS ((int)(ST_WAIT_NS / 1000000))

/* poll() and FILE_INFO before and after the fence signals. */
static void test_poll_and_info(void)
{
	gates_reset();
	uint32_t q = queue_new();
	int f = gated(q, GATE_A, RES, 0x5f11e);
	CHECK(fcntl(f, F_GETFD) & FD_CLOEXEC);
	CHECK(!st_sync_ready(f, 0));
	struct sync_file_info i;
	struct sync_fence_info fi[2];
	CHECK_EQ(st_sync_info(f, &i, NULL, 0), 0); /* num_fences 0: the count and the whole's status */
	CHECK_EQ(i.num_fences, 1);
	CHECK_EQ(i.status, 0);
	/* "driver-timeline<context>-<seqno>", the context a small number (no address leaks). */
	char prefix[48];
	snprintf(prefix, sizeof(prefix), "ferry-queue%u", q);
	CHECK_EQ(strncmp(i.name, prefix, strlen(prefix)), 0);
	CHECK(strlen(i.name) <= strlen(prefix) + 8);
	memset(fi, 0xa5, sizeof(fi));
	CHECK_EQ(st_sync_info(f, &i, fi, 1), 0);
	CHECK_EQ(i.status, 0);
	CHECK_EQ(fi[0].status, 0);
	CHECK_EQ(fi[0].timestamp_ns, 0);
	char want[32];
	snprintf(want, sizeof(want), "queue%u", q);
	CHECK_EQ(strcmp(fi[0].obj_name, want), 0);
	CHECK_EQ(strcmp(fi[0].driver_name, "ferry"), 0);
	CHECK_EQ(fi[1].status, (int32_t)0xa5a5a5a5); /* only num_fences entries are written */
	CHECK_EQ(d[RES], 0);

	open_gate(GATE_A);
	CHECK(st_sync_ready(f, WAIT_MS));
	CHECK_EQ(d[RES], 0x5f11e);
	CHECK(st_sync_ready(f, 0)); /* level-triggered: polling does not consume it */
	CHECK_EQ(st_sync_info(f, &i, NULL, 0), 0);
	CHECK_EQ(i.status, 1);
	/* A huge num_fences is only a capacity: the one fence is written. */
	CHECK_EQ(st_sync_info(f, &i, fi, 0xffffffffu), 0);
	CHECK_EQ(i.num_fences, 1);
	CHECK_EQ(i.status, 1);
	CHECK_EQ(fi[0].status, 1);
	CHECK(fi[0].timestamp_ns != 0);

	/* The kernel's argument checks. */
	i = (struct sync_file_info){ .flags = 1 };
	CHECK(ioctl(f, SYNC_IOC_FILE_INFO, &i) < 0 && errno == EINVAL);
	i = (struct sync_file_info){ .pad = 1 };
	CHECK(ioctl(f, SYNC_IOC_FILE_INFO, &i) < 0 && errno == EINVAL);
	i = (struct sync_file_info){ .num_fences = 1 };
	CHECK(ioctl(f, SYNC_IOC_FILE_INFO, &i) < 0 && errno == EFAULT);

	/* A dup is the same file; closing one copy leaves the other. */
	int f2 = dup(f);
	REQUIRE(f2 >= 0);
	CHECK_EQ(close(f), 0);
	CHECK(st_sync_ready(f2, 0));
	CHECK_EQ(st_sync_info(f2, &i, NULL, 0), 0);
	CHECK_EQ(i.status, 1);
	CHECK_EQ(close(f2), 0);
	/* Closed, or never a sync file: the kernel's answers. */
	CHECK(ioctl(f2, SYNC_IOC_FILE_INFO, &i) < 0 && errno == EBADF);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	REQUIRE(devnull >= 0);
	i = (struct sync_file_info){ 0 };
	CHECK(ioctl(devnull, SYNC_IOC_FILE_INFO, &i) < 0 && errno == ENOTTY);
	CHECK_EQ(close(devnull), 0);
}

/* MERGE: the fences of both, one per queue (the later), signaled ones dropped (6.1). */
static void test_merge(void)
{
	gates_reset();
	uint32_t q1 = queue_new(), q2 = queue_new();
	int a = gated(q1, GATE_A, RES, 1), b = gated(q2, GATE_B, RES + 1, 2);
	int m = -1;
	CHECK_EQ(st_sync_merge(a, b, "both", &m), 0);
	REQUIRE(m >= 0);
	CHECK(fcntl(m, F_GETFD) & FD_CLOEXEC);
	struct sync_file_info i;
	struct sync_fence_info fi[2];
	CHECK_EQ(st_sync_info(m, &i, NULL, 0), 0);
	CHECK_EQ(i.num_fences, 2);
	CHECK_EQ(i.status, 0);
	CHECK_EQ(strcmp(i.name, "both"), 0);
	CHECK_EQ(st_sync_info(m, &i, fi, 1), -EINVAL); /* too few entries */
	CHECK_EQ(st_sync_info(m, &i, fi, 2), 0);
	CHECK_EQ(i.status, 0);

	/* With itself: the same fence once. */
	int self = -1;
	CHECK_EQ(st_sync_merge(a, a, "", &self), 0);
	CHECK_EQ(st_sync_info(self, &i, NULL, 0), 0);
	CHECK_EQ(i.num_fences, 1);
	CHECK_EQ(close(self), 0);

	open_gate(GATE_A);
	CHECK(st_sync_ready(a, WAIT_MS));
	CHECK(!st_sync_ready(m, 0)); /* b's gate is still shut */
	CHECK_EQ(st_sync_info(m, &i, fi, 2), 0);
	CHECK_EQ(i.status, 0);
	CHECK((fi[0].status == 1) != (fi[1].status == 1)); /* one signaled, one not */
	open_gate(GATE_B);
	CHECK(st_sync_ready(m, WAIT_MS));
	CHECK(st_sync_ready(b, 0));
	CHECK_EQ(st_sync_info(m, &i, fi, 2), 0);
	CHECK_EQ(i.status, 1);
	CHECK(fi[0].status == 1 && fi[1].status == 1);

	/* Both signaled: 6.1 merges to the signaled stub. */
	int s = -1;
	CHECK_EQ(st_sync_merge(a, b, "", &s), 0);
	CHECK(st_sync_ready(s, 0));
	CHECK_EQ(st_sync_info(s, &i, fi, 1), 0);
	CHECK_EQ(i.num_fences, 1);
	CHECK_EQ(i.status, 1);
	CHECK_EQ(strcmp(fi[0].driver_name, "stub"), 0);
	CHECK_EQ(close(s), 0);

	/* Two fences of one queue: the later stands for both. */
	gates_reset();
	int c = gated(q1, GATE_A, RES, 3), e = gated(q1, GATE_A, RES + 1, 4);
	CHECK_EQ(st_sync_merge(c, e, "", &s), 0);
	CHECK_EQ(st_sync_info(s, &i, NULL, 0), 0);
	CHECK_EQ(i.num_fences, 1);
	open_gate(GATE_A);
	CHECK(st_sync_ready(s, WAIT_MS));
	CHECK_EQ(close(s), 0);

	/* Errnos: fd2 not a sync file (ENOENT), flags or pad (EINVAL). */
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	REQUIRE(devnull >= 0);
	CHECK_EQ(st_sync_merge(a, devnull, "", &s), -ENOENT);
	CHECK_EQ(st_sync_merge(a, 12345, "", &s), -ENOENT);
	struct sync_merge_data md = { .fd2 = b, .flags = 1 };
	CHECK(ioctl(a, SYNC_IOC_MERGE, &md) < 0 && errno == EINVAL);
	md = (struct sync_merge_data){ .fd2 = b, .pad = 1 };
	CHECK(ioctl(a, SYNC_IOC_MERGE, &md) < 0 && errno == EINVAL);
	CHECK_EQ(close(devnull), 0);
	int all[] = { a, b, m, c, e };
	for (unsigned k = 0; k < 5; k++)
		CHECK_EQ(close(all[k]), 0);
}

/* FENCE_FD_OUT on one queue, FENCE_FD_IN on another: the second runs after the first. */
static void test_fd_in_orders(void)
{
	gates_reset();
	uint32_t q1 = queue_new(), q2 = queue_new();
	int a = gated(q1, GATE_A, RES, 0xa11ce);
	uint32_t bytes, at = program(-1, RES, RES + 1, 0, &bytes);
	int bf = a; /* FD_IN and FD_OUT share the field: in before out */
	CHECK_EQ(submit(fd, q2, at, bytes, MSM_SUBMIT_FENCE_FD_IN | MSM_SUBMIT_FENCE_FD_OUT, &bf), 0);
	REQUIRE(bf >= 0 && bf != a);
	CHECK(!st_sync_ready(bf, 0));
	CHECK_EQ(d[RES + 1], 0);
	open_gate(GATE_A);
	CHECK(st_sync_ready(bf, WAIT_MS));
	CHECK_EQ(d[RES], 0xa11ce);
	CHECK_EQ(d[RES + 1], 0xa11ce); /* copied after it was written */

	/* Not a sync file, or closed: -EINVAL, as sync_file_get_fence failing. */
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	REQUIRE(devnull >= 0);
	int in = devnull;
	CHECK_EQ(submit(fd, q2, at, bytes, MSM_SUBMIT_FENCE_FD_IN, &in), -EINVAL);
	CHECK_EQ(close(devnull), 0);
	in = devnull;
	CHECK_EQ(submit(fd, q2, at, bytes, MSM_SUBMIT_FENCE_FD_IN, &in), -EINVAL);
	in = -1;
	CHECK_EQ(submit(fd, q2, at, bytes, MSM_SUBMIT_FENCE_FD_IN, &in), -EINVAL);
	/* The node itself is no sync file either. */
	in = fd;
	CHECK_EQ(submit(fd, q2, at, bytes, MSM_SUBMIT_FENCE_FD_IN, &in), -EINVAL);
	CHECK_EQ(close(a), 0);
	CHECK_EQ(close(bf), 0);
}

/* A hung submit's file signals with an error (ferry loses the context, its fences fail). */
static void test_hang_status(void)
{
	int keep = fd;
	fd = st_open_render();
	struct st_bo keep_ib = ib, keep_data = data;
	st_bo_new(fd, true, 4096, &ib);
	st_bo_new(fd, true, 4096, &data);
	uint32_t *keep_d = d, keep_next = ib_next;
	d = (uint32_t *)data.map;
	ib_next = 0;
	gates_reset();
	int f = gated(0, NEVER, RES, 1);
	CHECK(st_sync_ready(f, WAIT_MS));
	struct sync_file_info i;
	struct sync_fence_info fi;
	CHECK_EQ(st_sync_info(f, &i, NULL, 0), 0);
	CHECK_EQ(i.status, -ETIMEDOUT); /* what a lost context's hung fence ends with */
	CHECK_EQ(st_sync_info(f, &i, &fi, 1), 0);
	CHECK_EQ(i.status, -ETIMEDOUT);
	CHECK_EQ(fi.status, -ETIMEDOUT);
	CHECK_EQ(d[RES], 0);
	CHECK_EQ(close(f), 0);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &data);
	CHECK_EQ(close(fd), 0);
	fd = keep;
	ib = keep_ib;
	data = keep_data;
	d = keep_d;
	ib_next = keep_next;
}

/* Shim mode: a stream ferryd's validator refuses is submitted as on the kernel (msm checks no
 * stream), and its sync file signals with the refusal's error. Its own fd: the context may be
 * lost after it. */
static void test_refused_status(void)
{
	if (env.mode != ST_MODE_SHIM)
		return; /* the fake kernel has no validator */
	int dev = st_open_render();
	struct st_bo rib, rdata;
	st_bo_new(dev, true, 4096, &rib);
	st_bo_new(dev, true, 4096, &rdata);
	struct pm4_builder b;
	pm4_builder_init(&b, (uint32_t *)rib.map, 1024);
	PM4_PKT7(&b, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0); /* privileged */
	REQUIRE(pm4_builder_ok(&b));
	struct drm_msm_gem_submit_bo sb = { .flags = MSM_SUBMIT_BO_READ, .handle = rib.handle };
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .size = pm4_builder_bytes(&b) };
	struct drm_msm_gem_submit s = {
		.flags = MSM_PIPE_3D0 | MSM_SUBMIT_FENCE_FD_OUT, .nr_bos = 1, .nr_cmds = 1,
		.bos = (uintptr_t)&sb, .cmds = (uintptr_t)&cmd, .fence_fd = -1,
	};
	CHECK_EQ(st_ioctl(dev, DRM_IOCTL_MSM_GEM_SUBMIT, &s), 0);
	REQUIRE(s.fence_fd >= 0);
	CHECK(st_sync_ready(s.fence_fd, WAIT_MS));
	struct sync_file_info i;
	CHECK_EQ(st_sync_info(s.fence_fd, &i, NULL, 0), 0);
	CHECK(i.status < 0);
	CHECK_EQ(close(s.fence_fd), 0);
	st_bo_free(dev, &rib);
	st_bo_free(dev, &rdata);
	CHECK_EQ(close(dev), 0);
}

/* The child of a fork() polls and queries its parent's file. */
static void test_fork_child_polls(void)
{
	gates_reset();
	int f = gated(queue_new(), GATE_A, RES, 7);
	int go[2], said[2];
	REQUIRE(pipe(go) == 0 && pipe(said) == 0);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		int rc = 0;
		if (st_sync_ready(f, 0))
			rc |= 1;
		struct sync_file_info i;
		if (st_sync_info(f, &i, NULL, 0) != 0 || i.status != 0 || i.num_fences != 1)
			rc |= 2;
		char c = 'x';
		if (write(said[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			rc |= 4;
		if (!st_sync_ready(f, WAIT_MS))
			rc |= 8;
		struct sync_fence_info fi;
		if (st_sync_info(f, &i, &fi, 1) != 0 || i.status != 1 || fi.status != 1)
			rc |= 16;
		/* A merge in the child completes in the child. */
		int m = -1;
		if (st_sync_merge(f, f, "child", &m) != 0 || !st_sync_ready(m, WAIT_MS))
			rc |= 32;
		_exit(rc);
	}
	char c;
	CHECK_EQ(read(said[0], &c, 1), 1);
	open_gate(GATE_A);
	CHECK_EQ(write(go[1], "g", 1), 1);
	int st = -1;
	REQUIRE(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	CHECK(st_sync_ready(f, WAIT_MS));
	for (int k = 0; k < 2; k++) {
		close(go[k]);
		close(said[k]);
	}
	CHECK_EQ(close(f), 0);
}

/* A syncobj's fence exported as a sync file is the same pollable file; a merged file imports
 * into a syncobj that then waits for both. */
static void test_syncobj_sync_file(void)
{
	gates_reset();
	uint32_t q1 = queue_new(), q2 = queue_new();
	uint32_t s = 0, t = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &s) == 0 && drmSyncobjCreate(fd, 0, &t) == 0);
	uint32_t bytes, at = program(GATE_A, -1, RES, 9, &bytes);
	struct drm_msm_gem_submit_bo sb[2] = {
		{ .flags = MSM_SUBMIT_BO_READ, .handle = ib.handle },
		{ .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE, .handle = data.handle },
	};
	struct drm_msm_gem_submit_cmd cmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_offset = at * 4, .size = bytes };
	struct drm_msm_gem_submit_syncobj so = { .handle = s };
	struct drm_msm_gem_submit sub = {
		.flags = MSM_PIPE_3D0 | MSM_SUBMIT_SYNCOBJ_OUT, .nr_bos = 2, .nr_cmds = 1, .bos = (uintptr_t)sb,
		.cmds = (uintptr_t)&cmd, .queueid = q1, .out_syncobjs = (uintptr_t)&so, .nr_out_syncobjs = 1,
		.syncobj_stride = sizeof(so),
	};
	REQUIRE(st_ioctl(fd, DRM_IOCTL_MSM_GEM_SUBMIT, &sub) == 0);
	int f = -1;
	CHECK_EQ(drmSyncobjExportSyncFile(fd, s, &f), 0);
	REQUIRE(f >= 0);
	CHECK(!st_sync_ready(f, 0));
	int b = gated(q2, GATE_B, RES + 1, 10), m = -1;
	CHECK_EQ(st_sync_merge(f, b, "", &m), 0);
	CHECK_EQ(drmSyncobjImportSyncFile(fd, t, m), 0);
	open_gate(GATE_A);
	CHECK(st_sync_ready(f, WAIT_MS));
	CHECK_EQ(drmSyncobjWait(fd, &s, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK(!st_sync_ready(m, 0));
	open_gate(GATE_B);
	CHECK_EQ(drmSyncobjWait(fd, &t, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK_EQ(d[RES + 1], 10);
	CHECK(st_sync_ready(m, WAIT_MS));
	CHECK_EQ(close(f), 0);
	CHECK_EQ(close(b), 0);
	CHECK_EQ(close(m), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, s), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, t), 0);
}

int main(int argc, char **argv)
{
	st_setup(argc, argv, &env);
	REQUIRE(env.msm);
	fd = st_open_render();
	st_bo_new(fd, true, 64 * 1024, &ib);
	st_bo_new(fd, true, 4096, &data);
	d = (uint32_t *)data.map;
	RUN_TEST(test_poll_and_info);
	RUN_TEST(test_merge);
	RUN_TEST(test_fd_in_orders);
	RUN_TEST(test_fork_child_polls);
	RUN_TEST(test_syncobj_sync_file);
	RUN_TEST(test_hang_status);
	RUN_TEST(test_refused_status);
	st_bo_free(fd, &ib);
	st_bo_free(fd, &data);
	CHECK_EQ(close(fd), 0);
	st_teardown(&env);
	return test_finish();
}
