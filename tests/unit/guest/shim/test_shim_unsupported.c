/* What ferry's guest surface does not offer, and the errno each refusal carries: one table of
 * ioctls and flags, run through the shim and on the fake kernel (the same program in both modes,
 * each entry with one expected errno), so the two paths refuse alike. Supported calls are tested
 * elsewhere; an entry here is something a driver may try and must be told no, the same way. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "shim_test.h"
#include "test.h"

static struct st_env env;
static int fd = -1;
static struct st_bo bo;     /* a BO of the node's family, for arguments that name one */
static uint32_t syncobj;    /* an empty syncobj */

struct entry {
	const char *what;
	int family; /* 0: both, 1: msm only, 2: V3D only */
	unsigned long request;
	void (*fill)(void *arg); /* builds the argument (zeroed before) */
	size_t size;
	int err;
};

/* ---- DRM core ---- */

static void cap_dumb(void *p)
{
	((struct drm_get_cap *)p)->capability = DRM_CAP_DUMB_BUFFER;
}

static void wait_available(void *p)
{
	struct drm_syncobj_wait *w = p;
	w->handles = (uintptr_t)&syncobj;
	w->count_handles = 1;
	w->flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
}

static void nothing(void *p)
{
	(void)p;
}

/* ---- msm ---- */

static struct drm_msm_gem_submit_cmd msm_cmd;
static struct drm_msm_gem_submit_bo msm_bo;

static void msm_submit(void *p, uint32_t flags)
{
	struct drm_msm_gem_submit *s = p;
	msm_bo = (struct drm_msm_gem_submit_bo){ .flags = MSM_SUBMIT_BO_READ, .handle = bo.handle };
	msm_cmd = (struct drm_msm_gem_submit_cmd){ .type = MSM_SUBMIT_CMD_BUF, .size = 16 };
	s->flags = MSM_PIPE_3D0 | flags;
	s->nr_bos = 1;
	s->bos = (uintptr_t)&msm_bo;
	s->nr_cmds = 1;
	s->cmds = (uintptr_t)&msm_cmd;
	s->fence_fd = -1;
}

static void msm_sn_in(void *p)
{
	msm_submit(p, MSM_SUBMIT_FENCE_SN_IN);
	((struct drm_msm_gem_submit *)p)->fence = 1000;
}

static struct drm_msm_gem_submit_reloc msm_reloc;

static void msm_relocs(void *p)
{
	msm_submit(p, 0);
	msm_reloc = (struct drm_msm_gem_submit_reloc){ .reloc_idx = 0 };
	msm_cmd.nr_relocs = 1;
	msm_cmd.relocs = (uintptr_t)&msm_reloc;
}

static void msm_set_iova(void *p)
{
	struct drm_msm_gem_info *i = p;
	i->handle = bo.handle;
	i->info = MSM_INFO_SET_IOVA;
	i->value = 0x100000000ull + (64ull << 20);
}

/* ---- V3D ---- */

static void v3d_perfmon_create(void *p)
{
	struct drm_v3d_perfmon_create *c = p;
	c->ncounters = 1;
}

static const struct entry table[] = {
	/* A KMS cap: msm's real device has a display, the simulated one none (-EINVAL); v3d has no
	 * KMS at all (drm_getcap: -EOPNOTSUPP). */
	{ "GET_CAP DUMB_BUFFER (no display)", 1, DRM_IOCTL_GET_CAP, cap_dumb, sizeof(struct drm_get_cap), -EINVAL },
	{ "GET_CAP DUMB_BUFFER (no KMS)", 2, DRM_IOCTL_GET_CAP, cap_dumb, sizeof(struct drm_get_cap), -EOPNOTSUPP },
	{ "SYNCOBJ_WAIT WAIT_AVAILABLE (a timeline flag)", 0, DRM_IOCTL_SYNCOBJ_WAIT, wait_available,
	  sizeof(struct drm_syncobj_wait), -EINVAL },
	{ "MODE_GETRESOURCES (KMS, not render-allowed)", 0, DRM_IOCTL_MODE_GETRESOURCES, nothing,
	  sizeof(struct drm_mode_card_res), -EACCES },
	{ "GEM_SUBMIT FENCE_SN_IN (no userspace seqnos)", 1, DRM_IOCTL_MSM_GEM_SUBMIT, msm_sn_in,
	  sizeof(struct drm_msm_gem_submit), -EOPNOTSUPP },
	{ "GEM_SUBMIT cmd with relocs (none since msm 1.4)", 1, DRM_IOCTL_MSM_GEM_SUBMIT, msm_relocs,
	  sizeof(struct drm_msm_gem_submit), -EOPNOTSUPP },
	{ "GEM_INFO SET_IOVA (the host places BOs)", 1, DRM_IOCTL_MSM_GEM_INFO, msm_set_iova,
	  sizeof(struct drm_msm_gem_info), -EOPNOTSUPP },
	/* SUPPORTS_PERFMON reads 0, so drivers never ask; a driver ioctl the node lacks is -EINVAL. */
	{ "PERFMON_CREATE (no perfmons)", 2, DRM_IOCTL_V3D_PERFMON_CREATE, v3d_perfmon_create,
	  sizeof(struct drm_v3d_perfmon_create), -EINVAL },
};

static void test_table(void)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct entry *e = &table[i];
		if ((e->family == 1 && !env.msm) || (e->family == 2 && env.msm))
			continue;
		unsigned char arg[256];
		REQUIRE(e->size <= sizeof(arg));
		memset(arg, 0, sizeof(arg));
		e->fill(arg);
		int r = st_ioctl(fd, e->request, arg);
		if (r != e->err) {
			fprintf(stderr, "  %s: %s (%d), want %s (%d)\n", e->what, strerrorname_np(-r) ? strerrorname_np(-r) : "0",
				r, strerrorname_np(-e->err), e->err);
			CHECK(false);
		}
	}
}

int main(int argc, char **argv)
{
	st_setup(argc, argv, &env);
	fd = st_open_render();
	st_bo_new(fd, env.msm, 4096, &bo);
	REQUIRE(drmSyncobjCreate(fd, 0, &syncobj) == 0);
	RUN_TEST(test_table);
	CHECK_EQ(drmSyncobjDestroy(fd, syncobj), 0);
	st_bo_free(fd, &bo);
	CHECK_EQ(close(fd), 0);
	st_teardown(&env);
	return test_finish();
}
