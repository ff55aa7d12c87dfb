/* The v3d uAPI (Linux 6.1) as v3dv and the v3d GL driver use it: GET_PARAM, CREATE_BO /
 * MMAP_BO / GET_BO_OFFSET / WAIT_BO, a v3dv-shaped raster copy through SUBMIT_CL (bin + render
 * lists built with v3d_cl_builder) with its out-syncobj, the multisync extension (several out-
 * syncobjs, in-syncobjs chaining two jobs) and the kernel's errnos. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/v3d_drm.h"
#include "shim_test.h"
#include "test.h"

static struct st_env env;
static int fd = -1;

static int get_param(uint32_t param, uint64_t *value)
{
	struct drm_v3d_get_param p = { .param = param };
	int r = st_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p);
	*value = p.value;
	return r;
}

static void test_params(void)
{
	CHECK_EQ(st_v3d_ver(fd), strcmp(env.gpu, "v3d-7.1") == 0 ? 71 : 42);
	uint64_t v = 0;
	CHECK_EQ(get_param(DRM_V3D_PARAM_SUPPORTS_TFU, &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(get_param(DRM_V3D_PARAM_SUPPORTS_CSD, &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(get_param(DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT, &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(get_param(0x99, &v), -EINVAL);
	struct drm_v3d_get_param p = { .param = DRM_V3D_PARAM_SUPPORTS_TFU, .pad = 1 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_GET_PARAM, &p), -EINVAL);
}

static void test_bos(void)
{
	struct drm_v3d_create_bo c = { .size = 8192 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_CREATE_BO, &c), 0);
	CHECK(c.handle != 0 && c.offset != 0 && (c.offset & 4095) == 0);
	struct drm_v3d_create_bo bad = { .size = 4096, .flags = 1 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_CREATE_BO, &bad), -EINVAL);
	bad = (struct drm_v3d_create_bo){ .size = 0 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_CREATE_BO, &bad), -EINVAL);

	struct drm_v3d_get_bo_offset o = { .handle = c.handle };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o), 0);
	CHECK_EQ(o.offset, c.offset);
	o.handle = 999;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o), -ENOENT);

	struct drm_v3d_mmap_bo m = { .handle = c.handle };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_MMAP_BO, &m), 0);
	uint32_t *a = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.offset);
	uint32_t *b = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.offset);
	REQUIRE(a != MAP_FAILED && b != MAP_FAILED);
	a[100] = 0x3d3d3d3d;
	CHECK_EQ(b[100], 0x3d3d3d3d);
	munmap(a, 8192);
	munmap(b, 8192);
	errno = 0;
	CHECK(mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, fd, (off_t)m.offset) == MAP_FAILED && errno == EINVAL);
	struct drm_v3d_mmap_bo mb = { .handle = 999 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_MMAP_BO, &mb), -ENOENT);
	mb = (struct drm_v3d_mmap_bo){ .handle = c.handle, .flags = 1 };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_MMAP_BO, &mb), -EINVAL);

	/* A second BO lies elsewhere in the one address space. */
	struct st_bo other;
	st_bo_new(fd, false, 4096, &other);
	CHECK(other.gpu_addr >= c.offset + 8192u || other.gpu_addr + 4096 <= c.offset);

	struct drm_v3d_wait_bo w = { .handle = c.handle, .timeout_ns = ST_WAIT_NS };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_WAIT_BO, &w), 0); /* idle */
	w.handle = 999;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_WAIT_BO, &w), -EINVAL);

	struct drm_gem_close gc = { .handle = c.handle };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc), 0);
	o.handle = c.handle;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_GET_BO_OFFSET, &o), -ENOENT);
	st_bo_free(fd, &other);
}

static void test_submit_copy(void)
{
	struct st_job job;
	st_job_build(fd, false, 0x1234567, &job);
	CHECK(!st_job_done(&job)); /* the destination starts as filler */
	uint32_t out = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &out) == 0);
	CHECK_EQ(st_job_submit(fd, &job, 0, out, NULL), 0);
	CHECK_EQ(drmSyncobjWait(fd, &out, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	struct drm_v3d_wait_bo w = { .handle = job.bos[3].handle, .timeout_ns = ST_WAIT_NS };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_WAIT_BO, &w), 0);
	CHECK(st_job_done(&job));

	/* Again, waiting on the first one's syncobj through in_sync_bcl. */
	memset(job.bos[3].map, 0xab, job.bos[3].size);
	uint32_t out2 = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &out2) == 0);
	CHECK_EQ(st_job_submit(fd, &job, out, out2, NULL), 0);
	CHECK_EQ(drmSyncobjWait(fd, &out2, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK(st_job_done(&job));
	CHECK_EQ(drmSyncobjDestroy(fd, out), 0);
	CHECK_EQ(drmSyncobjDestroy(fd, out2), 0);
	st_job_free(fd, &job);
}

/* SUBMIT_CL of job with a multisync extension. */
static int submit_multisync(struct st_job *j, const uint32_t *in, uint32_t nin, const uint32_t *out, uint32_t nout,
			    struct drm_v3d_multi_sync *ms_override)
{
	struct drm_v3d_sem ins[4], outs[4];
	memset(ins, 0, sizeof(ins));
	memset(outs, 0, sizeof(outs));
	for (uint32_t i = 0; i < nin; i++)
		ins[i].handle = in[i];
	for (uint32_t i = 0; i < nout; i++)
		outs[i].handle = out[i];
	struct drm_v3d_multi_sync ms = {
		.base = { .id = DRM_V3D_EXT_ID_MULTI_SYNC },
		.in_syncs = (uintptr_t)ins, .out_syncs = (uintptr_t)outs,
		.in_sync_count = nin, .out_sync_count = nout, .wait_stage = V3D_BIN,
	};
	if (ms_override) {
		ms_override->in_syncs = ms.in_syncs;
		ms_override->out_syncs = ms.out_syncs;
		ms = *ms_override;
	}
	uint32_t handles[4];
	for (unsigned i = 0; i < 4; i++)
		handles[i] = j->bos[i].handle;
	struct drm_v3d_submit_cl s = {
		.bcl_start = (uint32_t)j->bos[0].gpu_addr, .bcl_end = j->bcl_end,
		.rcl_start = j->rcl_start, .rcl_end = j->rcl_end,
		.qma = (uint32_t)j->bos[1].gpu_addr, .qms = j->qms, .qts = (uint32_t)j->bos[1].gpu_addr,
		.bo_handles = (uintptr_t)handles, .bo_handle_count = 4,
		.flags = DRM_V3D_SUBMIT_EXTENSION, .extensions = (uintptr_t)&ms,
		/* Ignored with multisync: a syncobj that does not exist would otherwise be skipped. */
		.out_sync = 0,
	};
	return st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s);
}

static void test_multisync(void)
{
	struct st_job job;
	st_job_build(fd, false, 0x7654321, &job);
	uint32_t o1 = 0, o2 = 0, o3 = 0, unsub = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &o1) == 0);
	REQUIRE(drmSyncobjCreate(fd, 0, &o2) == 0);
	REQUIRE(drmSyncobjCreate(fd, 0, &o3) == 0);
	REQUIRE(drmSyncobjCreate(fd, 0, &unsub) == 0);
	uint32_t outs[2] = { o1, o2 };
	CHECK_EQ(submit_multisync(&job, NULL, 0, outs, 2, NULL), 0);
	CHECK_EQ(drmSyncobjWait(fd, outs, 2, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK(st_job_done(&job));

	/* A second job waiting on both (in-syncobjs of the wait stage). */
	memset(job.bos[3].map, 0xab, job.bos[3].size);
	CHECK_EQ(submit_multisync(&job, outs, 2, &o3, 1, NULL), 0);
	CHECK_EQ(drmSyncobjWait(fd, &o3, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK(st_job_done(&job));

	/* An in-syncobj without a fence fails the submit; one naming nothing is skipped (6.1). */
	CHECK_EQ(submit_multisync(&job, &unsub, 1, NULL, 0, NULL), -EINVAL);
	uint32_t none = 999;
	CHECK_EQ(submit_multisync(&job, &none, 1, NULL, 0, NULL), 0);

	struct drm_v3d_multi_sync bad = { .base = { .id = 0x7f }, .wait_stage = V3D_BIN };
	CHECK_EQ(submit_multisync(&job, NULL, 0, NULL, 0, &bad), -EINVAL); /* unknown extension */
	bad = (struct drm_v3d_multi_sync){ .base = { .id = DRM_V3D_EXT_ID_MULTI_SYNC, .flags = 1 } };
	CHECK_EQ(submit_multisync(&job, NULL, 0, NULL, 0, &bad), -EINVAL);
	bad = (struct drm_v3d_multi_sync){ .base = { .id = DRM_V3D_EXT_ID_MULTI_SYNC }, .pad = 1 };
	CHECK_EQ(submit_multisync(&job, NULL, 0, NULL, 0, &bad), -EINVAL);
	/* Drain before the BOs go. */
	struct drm_v3d_wait_bo w = { .handle = job.bos[3].handle, .timeout_ns = ST_WAIT_NS };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_WAIT_BO, &w), 0);

	uint32_t all[] = { o1, o2, o3, unsub };
	for (unsigned i = 0; i < 4; i++)
		CHECK_EQ(drmSyncobjDestroy(fd, all[i]), 0);
	st_job_free(fd, &job);
}

static void test_submit_errnos(void)
{
	struct st_job job;
	st_job_build(fd, false, 0xabcdef, &job);
	uint32_t handles[4];
	for (unsigned i = 0; i < 4; i++)
		handles[i] = job.bos[i].handle;
	struct drm_v3d_submit_cl ok = {
		.bcl_start = (uint32_t)job.bos[0].gpu_addr, .bcl_end = job.bcl_end,
		.rcl_start = job.rcl_start, .rcl_end = job.rcl_end,
		.qma = (uint32_t)job.bos[1].gpu_addr, .qms = job.qms, .qts = (uint32_t)job.bos[1].gpu_addr,
		.bo_handles = (uintptr_t)handles, .bo_handle_count = 4,
	};
	struct drm_v3d_submit_cl s = ok;
	s.bo_handle_count = 0;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s), -EINVAL);
	handles[2] = 999;
	s = ok;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s), -ENOENT);
	handles[2] = job.bos[2].handle;
	s = ok;
	s.flags = 0x10;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s), -EINVAL);
	s = ok;
	s.pad = 1;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s), -EINVAL);
	s = ok;
	s.perfmon_id = 3;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s), -ENOENT);
	/* The single in-sync naming no syncobj is skipped, as 6.1 does; the job runs. */
	s = ok;
	s.in_sync_bcl = 999;
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CL, &s), 0);
	struct drm_v3d_wait_bo w = { .handle = job.bos[3].handle, .timeout_ns = ST_WAIT_NS };
	CHECK_EQ(st_ioctl(fd, DRM_IOCTL_V3D_WAIT_BO, &w), 0);
	CHECK(st_job_done(&job));
	st_job_free(fd, &job);
}

/* Shim mode (ferryd validates): a job the validator refuses fails its SUBMIT_CL at once with the
 * validator's errno, as v3dv needs to call its device lost, and leaves its out-syncobj without a
 * fence; the open stays usable. */
static void test_refused_job(void)
{
	if (env.mode != ST_MODE_SHIM)
		return; /* the fake kernel has no validator */
	struct st_job job;
	st_job_build(fd, false, 0x5eed, &job);
	uint8_t *rcl = job.bos[0].map + (job.rcl_start - (uint32_t)job.bos[0].gpu_addr);
	uint8_t saved = rcl[0];
	rcl[0] = 0xff; /* no V3D packet has this opcode */
	uint32_t out = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &out) == 0);
	CHECK_EQ(st_job_submit(fd, &job, 0, out, NULL), -EINVAL);
	CHECK_EQ(drmSyncobjWait(fd, &out, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), -EINVAL); /* no fence */
	rcl[0] = saved;
	CHECK_EQ(st_job_submit(fd, &job, 0, out, NULL), 0);
	CHECK_EQ(drmSyncobjWait(fd, &out, 1, st_now_ns() + ST_WAIT_NS, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL), 0);
	CHECK(st_job_done(&job));
	CHECK_EQ(drmSyncobjDestroy(fd, out), 0);
	st_job_free(fd, &job);
}

/* ferryd dies under the driver (a farm's board gone): v3dv learns of a lost device only from a
 * submit, so the next SUBMIT_CL fails (it waits for ferryd's verdict, which cannot come); a
 * WAIT_BO and a syncobj wait end at once instead of sleeping out their timeouts. The last test:
 * ferryd stays dead. */
static void test_server_lost(void)
{
	if (env.mode != ST_MODE_SHIM)
		return;
	struct st_job job;
	st_job_build(fd, false, 0x10577, &job);
	uint32_t out = 0;
	REQUIRE(drmSyncobjCreate(fd, 0, &out) == 0);
	REQUIRE(kill(env.ferryd.pid, SIGKILL) == 0);
	int st;
	REQUIRE(waitpid(env.ferryd.pid, &st, 0) == env.ferryd.pid);
	int64_t t0 = st_now_ns();
	int r = st_job_submit(fd, &job, 0, out, NULL);
	fprintf(stderr, "SUBMIT_CL after the kill: %s\n", strerror(-r));
	CHECK(r < 0);
	struct drm_v3d_wait_bo w = { .handle = job.bos[3].handle, .timeout_ns = ST_WAIT_NS };
	(void)st_ioctl(fd, DRM_IOCTL_V3D_WAIT_BO, &w); /* nothing pending on it: must not hang */
	r = drmSyncobjWait(fd, &out, 1, st_now_ns() + ST_WAIT_NS,
			   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	CHECK(r < 0 && r != -ETIME);
	CHECK_EQ(drmSyncobjDestroy(fd, out), 0);
	st_job_free(fd, &job);
	CHECK(st_now_ns() - t0 < ST_NS_PER_SEC);
	/* Reaped: teardown has nothing to stop, only ferryd's directory to remove. */
	env.ferryd.pid = -1;
	ferryd_stop(&env.ferryd, 0);
	env.has_ferryd = false;
}

int main(int argc, char **argv)
{
	st_setup(argc, argv, &env);
	REQUIRE(!env.msm);
	fd = st_open_render();
	RUN_TEST(test_params);
	RUN_TEST(test_bos);
	RUN_TEST(test_submit_copy);
	RUN_TEST(test_multisync);
	RUN_TEST(test_submit_errnos);
	RUN_TEST(test_refused_job);
	RUN_TEST(test_server_lost);
	CHECK_EQ(close(fd), 0);
	st_teardown(&env);
	return test_finish();
}
