/* The msm DRM uAPI of Linux 6.1 (driver version 1.9.0): structs, flags and ioctl numbers, with
 * sizes, key offsets and request numbers pinned by _Static_assert (Debian's libdrm msm_drm.h is a
 * 4.15-era copy, so ferry carries its own). DRM core ioctls come from libdrm's <drm.h>. */
#ifndef FERRY_UAPI_MSM_DRM_H
#define FERRY_UAPI_MSM_DRM_H

#include <stddef.h>
#include <stdint.h>

#include <drm.h> /* DRM_IOWR/DRM_IOW, DRM_COMMAND_BASE, drm_gem_close, drm_prime_handle */

/* Pipes: GET_PARAM and GEM_SUBMIT carry the pipe id in the low bits of pipe / flags. */
#define MSM_PIPE_NONE     0x00
#define MSM_PIPE_2D0      0x01
#define MSM_PIPE_2D1      0x02
#define MSM_PIPE_3D0      0x10
#define MSM_PIPE_ID_MASK  0xffff
#define MSM_PIPE_ID(x)    ((x) & MSM_PIPE_ID_MASK)
#define MSM_PIPE_FLAGS(x) ((x) & ~MSM_PIPE_ID_MASK)

struct drm_msm_timespec {
	int64_t tv_sec;  /* seconds; ABSOLUTE CLOCK_MONOTONIC */
	int64_t tv_nsec; /* nanoseconds */
};

/* GET_PARAM / SET_PARAM ids. */
#define MSM_PARAM_GPU_ID           0x01 /* RO */
#define MSM_PARAM_GMEM_SIZE        0x02 /* RO */
#define MSM_PARAM_CHIP_ID          0x03 /* RO */
#define MSM_PARAM_MAX_FREQ         0x04 /* RO */
#define MSM_PARAM_TIMESTAMP        0x05 /* RO */
#define MSM_PARAM_GMEM_BASE        0x06 /* RO */
#define MSM_PARAM_PRIORITIES       0x07 /* RO: the # of priority levels */
#define MSM_PARAM_PP_PGTABLE       0x08 /* RO: deprecated, always 0 */
#define MSM_PARAM_FAULTS           0x09 /* RO */
#define MSM_PARAM_SUSPENDS         0x0a /* RO */
#define MSM_PARAM_SYSPROF          0x0b /* WO */
#define MSM_PARAM_COMM             0x0c /* WO: override for task->comm */
#define MSM_PARAM_CMDLINE          0x0d /* WO: override for task cmdline */
#define MSM_PARAM_VA_START         0x0e /* RO: start of valid GPU iova range */
#define MSM_PARAM_VA_SIZE          0x0f /* RO: size of valid GPU iova range (bytes) */
#define MSM_PARAM_NR_RINGS         MSM_PARAM_PRIORITIES /* backwards compat name */

struct drm_msm_param {
	uint32_t pipe;  /* in, MSM_PIPE_x */
	uint32_t param; /* in, MSM_PARAM_x */
	uint64_t value; /* out (get_param) or in (set_param) */
	uint32_t len;   /* zero for non-pointer params */
	uint32_t pad;   /* must be zero */
};

/* GEM_NEW flags. */
#define MSM_BO_SCANOUT          0x00000001 /* scanout capable */
#define MSM_BO_GPU_READONLY     0x00000002
#define MSM_BO_CACHE_MASK       0x000f0000
#define MSM_BO_CACHED           0x00010000
#define MSM_BO_WC               0x00020000
#define MSM_BO_UNCACHED         0x00040000 /* deprecated, use MSM_BO_WC */
#define MSM_BO_CACHED_COHERENT  0x00080000
#define MSM_BO_FLAGS (MSM_BO_SCANOUT | MSM_BO_GPU_READONLY | MSM_BO_CACHE_MASK)

struct drm_msm_gem_new {
	uint64_t size;   /* in */
	uint32_t flags;  /* in, mask of MSM_BO_x */
	uint32_t handle; /* out */
};

/* GEM_INFO sub-commands. */
#define MSM_INFO_GET_OFFSET 0x00 /* get mmap() offset, returned by value */
#define MSM_INFO_GET_IOVA   0x01 /* get iova, returned by value */
#define MSM_INFO_SET_NAME   0x02 /* set the debug name (by pointer) */
#define MSM_INFO_GET_NAME   0x03 /* get debug name, returned by pointer */
#define MSM_INFO_SET_IOVA   0x04 /* set the iova, passed by value */
#define MSM_INFO_GET_FLAGS  0x05 /* [new] get the MSM_BO_x flags, returned by value */

struct drm_msm_gem_info {
	uint32_t handle; /* in */
	uint32_t info;   /* in - one of MSM_INFO_* */
	uint64_t value;  /* in or out */
	uint32_t len;    /* in or out */
	uint32_t pad;
};

/* GEM_CPU_PREP ops. */
#define MSM_PREP_READ   0x01
#define MSM_PREP_WRITE  0x02
#define MSM_PREP_NOSYNC 0x04
#define MSM_PREP_FLAGS  (MSM_PREP_READ | MSM_PREP_WRITE | MSM_PREP_NOSYNC)

struct drm_msm_gem_cpu_prep {
	uint32_t handle;                 /* in */
	uint32_t op;                     /* in, mask of MSM_PREP_x */
	struct drm_msm_timespec timeout; /* in */
};

struct drm_msm_gem_cpu_fini {
	uint32_t handle; /* in */
};

/* GEM_SUBMIT. */
struct drm_msm_gem_submit_reloc {
	uint32_t submit_offset; /* in, offset from submit_bo */
	uint32_t or;            /* in, value OR'd with result */
	int32_t shift;          /* in, amount of left shift (can be negative) */
	uint32_t reloc_idx;     /* in, index of reloc_bo buffer */
	uint64_t reloc_offset;  /* in, offset from start of reloc_bo */
};

#define MSM_SUBMIT_CMD_BUF             0x0001
#define MSM_SUBMIT_CMD_IB_TARGET_BUF   0x0002
#define MSM_SUBMIT_CMD_CTX_RESTORE_BUF 0x0003

struct drm_msm_gem_submit_cmd {
	uint32_t type;          /* in, one of MSM_SUBMIT_CMD_x */
	uint32_t submit_idx;    /* in, index of submit_bo cmdstream buffer */
	uint32_t submit_offset; /* in, offset into submit_bo */
	uint32_t size;          /* in, cmdstream size */
	uint32_t pad;
	uint32_t nr_relocs;     /* in, number of submit_reloc's */
	uint64_t relocs;        /* in, ptr to array of submit_reloc's */
};

#define MSM_SUBMIT_BO_READ  0x0001
#define MSM_SUBMIT_BO_WRITE 0x0002
#define MSM_SUBMIT_BO_DUMP  0x0004
#define MSM_SUBMIT_BO_FLAGS (MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE | MSM_SUBMIT_BO_DUMP)

struct drm_msm_gem_submit_bo {
	uint32_t flags;    /* in, mask of MSM_SUBMIT_BO_x */
	uint32_t handle;   /* in, GEM handle */
	uint64_t presumed; /* in/out, presumed buffer address */
};

#define MSM_SUBMIT_NO_IMPLICIT 0x80000000 /* disable implicit sync */
#define MSM_SUBMIT_FENCE_FD_IN 0x40000000 /* enable input fence_fd */
#define MSM_SUBMIT_FENCE_FD_OUT 0x20000000 /* enable output fence_fd */
#define MSM_SUBMIT_SUDO        0x10000000 /* run submitted cmds from RB */
#define MSM_SUBMIT_SYNCOBJ_IN  0x08000000 /* enable input syncobj */
#define MSM_SUBMIT_SYNCOBJ_OUT 0x04000000 /* enable output syncobj */
#define MSM_SUBMIT_FENCE_SN_IN 0x02000000 /* userspace passes in seqno fence */
#define MSM_SUBMIT_FLAGS ( \
		MSM_SUBMIT_NO_IMPLICIT | \
		MSM_SUBMIT_FENCE_FD_IN | \
		MSM_SUBMIT_FENCE_FD_OUT | \
		MSM_SUBMIT_SUDO | \
		MSM_SUBMIT_SYNCOBJ_IN | \
		MSM_SUBMIT_SYNCOBJ_OUT | \
		MSM_SUBMIT_FENCE_SN_IN | \
		0)

#define MSM_SUBMIT_SYNCOBJ_RESET 0x00000001 /* Reset syncobj after wait. */
#define MSM_SUBMIT_SYNCOBJ_FLAGS (MSM_SUBMIT_SYNCOBJ_RESET | 0)

struct drm_msm_gem_submit_syncobj {
	uint32_t handle; /* in, syncobj handle */
	uint32_t flags;  /* in, from MSM_SUBMIT_SYNCOBJ_FLAGS */
	uint64_t point;  /* in, timepoint for timeline syncobjs */
};

struct drm_msm_gem_submit {
	uint32_t flags;           /* MSM_PIPE_x | MSM_SUBMIT_x */
	uint32_t fence;           /* out (or in with MSM_SUBMIT_FENCE_SN_IN flag) */
	uint32_t nr_bos;          /* in, number of submit_bo's */
	uint32_t nr_cmds;         /* in, number of submit_cmd's */
	uint64_t bos;             /* in, ptr to array of submit_bo's */
	uint64_t cmds;            /* in, ptr to array of submit_cmd's */
	int32_t fence_fd;         /* in/out fence fd (see MSM_SUBMIT_FENCE_FD_IN/OUT) */
	uint32_t queueid;         /* in, submitqueue id */
	uint64_t in_syncobjs;     /* in, ptr to array of drm_msm_gem_submit_syncobj */
	uint64_t out_syncobjs;    /* in, ptr to array of drm_msm_gem_submit_syncobj */
	uint32_t nr_in_syncobjs;  /* in, number of entries in in_syncobj */
	uint32_t nr_out_syncobjs; /* in, number of entries in out_syncobj. */
	uint32_t syncobj_stride;  /* in, stride of syncobj arrays. */
	uint32_t pad;             /* in, reserved for future use, always 0. */
};

/* WAIT_FENCE: the fence is a per-submitqueue seqno. */
struct drm_msm_wait_fence {
	uint32_t fence;                  /* in */
	uint32_t pad;                    /* 6.1: must be zero */
	struct drm_msm_timespec timeout; /* in */
	uint32_t queueid;                /* in, submitqueue id */
};

/* GEM_MADVISE. */
#define MSM_MADV_WILLNEED 0 /* backing pages are needed, status returned in 'retained' */
#define MSM_MADV_DONTNEED 1 /* backing pages not needed */
#define __MSM_MADV_PURGED 2 /* internal state */

struct drm_msm_gem_madvise {
	uint32_t handle;   /* in, GEM handle */
	uint32_t madv;     /* in, MSM_MADV_x */
	uint32_t retained; /* out, whether backing store still exists */
};

/* SUBMITQUEUE_NEW / CLOSE / QUERY. 6.1 defines no queue flags. */
#define MSM_SUBMITQUEUE_FLAGS (0)

struct drm_msm_submitqueue {
	uint32_t flags; /* in, MSM_SUBMITQUEUE_x */
	uint32_t prio;  /* in, Priority level */
	uint32_t id;    /* out, identifier */
};

#define MSM_SUBMITQUEUE_PARAM_FAULTS 0

struct drm_msm_submitqueue_query {
	uint64_t data;  /* in, user pointer to the result */
	uint32_t id;
	uint32_t param;
	uint32_t len;   /* in/out: size of data; 0 asks for the needed size */
	uint32_t pad;
};

/* Ioctl numbers (relative to DRM_COMMAND_BASE). 0x09 is unused. */
#define DRM_MSM_GET_PARAM         0x00
#define DRM_MSM_SET_PARAM         0x01
#define DRM_MSM_GEM_NEW           0x02
#define DRM_MSM_GEM_INFO          0x03
#define DRM_MSM_GEM_CPU_PREP      0x04
#define DRM_MSM_GEM_CPU_FINI      0x05
#define DRM_MSM_GEM_SUBMIT        0x06
#define DRM_MSM_WAIT_FENCE        0x07
#define DRM_MSM_GEM_MADVISE       0x08
#define DRM_MSM_SUBMITQUEUE_NEW   0x0A
#define DRM_MSM_SUBMITQUEUE_CLOSE 0x0B
#define DRM_MSM_SUBMITQUEUE_QUERY 0x0C

#define DRM_IOCTL_MSM_GET_PARAM    DRM_IOWR(DRM_COMMAND_BASE + DRM_MSM_GET_PARAM, struct drm_msm_param)
#define DRM_IOCTL_MSM_SET_PARAM    DRM_IOW (DRM_COMMAND_BASE + DRM_MSM_SET_PARAM, struct drm_msm_param)
#define DRM_IOCTL_MSM_GEM_NEW      DRM_IOWR(DRM_COMMAND_BASE + DRM_MSM_GEM_NEW, struct drm_msm_gem_new)
#define DRM_IOCTL_MSM_GEM_INFO     DRM_IOWR(DRM_COMMAND_BASE + DRM_MSM_GEM_INFO, struct drm_msm_gem_info)
#define DRM_IOCTL_MSM_GEM_CPU_PREP DRM_IOW (DRM_COMMAND_BASE + DRM_MSM_GEM_CPU_PREP, struct drm_msm_gem_cpu_prep)
#define DRM_IOCTL_MSM_GEM_CPU_FINI DRM_IOW (DRM_COMMAND_BASE + DRM_MSM_GEM_CPU_FINI, struct drm_msm_gem_cpu_fini)
#define DRM_IOCTL_MSM_GEM_SUBMIT   DRM_IOWR(DRM_COMMAND_BASE + DRM_MSM_GEM_SUBMIT, struct drm_msm_gem_submit)
#define DRM_IOCTL_MSM_WAIT_FENCE   DRM_IOW (DRM_COMMAND_BASE + DRM_MSM_WAIT_FENCE, struct drm_msm_wait_fence)
#define DRM_IOCTL_MSM_GEM_MADVISE  DRM_IOWR(DRM_COMMAND_BASE + DRM_MSM_GEM_MADVISE, struct drm_msm_gem_madvise)
#define DRM_IOCTL_MSM_SUBMITQUEUE_NEW   DRM_IOWR(DRM_COMMAND_BASE + DRM_MSM_SUBMITQUEUE_NEW, struct drm_msm_submitqueue)
#define DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE DRM_IOW (DRM_COMMAND_BASE + DRM_MSM_SUBMITQUEUE_CLOSE, uint32_t)
#define DRM_IOCTL_MSM_SUBMITQUEUE_QUERY DRM_IOW (DRM_COMMAND_BASE + DRM_MSM_SUBMITQUEUE_QUERY, struct drm_msm_submitqueue_query)

/* Layout pins (x86-64 and arm64 are identical: every field is fixed width). */
_Static_assert(sizeof(struct drm_msm_timespec) == 16, "drm_msm_timespec");
_Static_assert(sizeof(struct drm_msm_param) == 24, "drm_msm_param");
_Static_assert(offsetof(struct drm_msm_param, value) == 8, "drm_msm_param.value");
_Static_assert(offsetof(struct drm_msm_param, len) == 16, "drm_msm_param.len");
_Static_assert(sizeof(struct drm_msm_gem_new) == 16, "drm_msm_gem_new");
_Static_assert(offsetof(struct drm_msm_gem_new, handle) == 12, "drm_msm_gem_new.handle");
_Static_assert(sizeof(struct drm_msm_gem_info) == 24, "drm_msm_gem_info");
_Static_assert(offsetof(struct drm_msm_gem_info, value) == 8, "drm_msm_gem_info.value");
_Static_assert(offsetof(struct drm_msm_gem_info, len) == 16, "drm_msm_gem_info.len");
_Static_assert(sizeof(struct drm_msm_gem_cpu_prep) == 24, "drm_msm_gem_cpu_prep");
_Static_assert(offsetof(struct drm_msm_gem_cpu_prep, timeout) == 8, "drm_msm_gem_cpu_prep.timeout");
_Static_assert(sizeof(struct drm_msm_gem_cpu_fini) == 4, "drm_msm_gem_cpu_fini");
_Static_assert(sizeof(struct drm_msm_gem_submit_reloc) == 24, "drm_msm_gem_submit_reloc");
_Static_assert(offsetof(struct drm_msm_gem_submit_reloc, reloc_offset) == 16, "reloc.reloc_offset");
_Static_assert(sizeof(struct drm_msm_gem_submit_cmd) == 32, "drm_msm_gem_submit_cmd");
_Static_assert(offsetof(struct drm_msm_gem_submit_cmd, nr_relocs) == 20, "cmd.nr_relocs");
_Static_assert(offsetof(struct drm_msm_gem_submit_cmd, relocs) == 24, "cmd.relocs");
_Static_assert(sizeof(struct drm_msm_gem_submit_bo) == 16, "drm_msm_gem_submit_bo");
_Static_assert(offsetof(struct drm_msm_gem_submit_bo, presumed) == 8, "submit_bo.presumed");
_Static_assert(sizeof(struct drm_msm_gem_submit_syncobj) == 16, "drm_msm_gem_submit_syncobj");
_Static_assert(sizeof(struct drm_msm_gem_submit) == 72, "drm_msm_gem_submit");
_Static_assert(offsetof(struct drm_msm_gem_submit, bos) == 16, "submit.bos");
_Static_assert(offsetof(struct drm_msm_gem_submit, cmds) == 24, "submit.cmds");
_Static_assert(offsetof(struct drm_msm_gem_submit, fence_fd) == 32, "submit.fence_fd");
_Static_assert(offsetof(struct drm_msm_gem_submit, queueid) == 36, "submit.queueid");
_Static_assert(offsetof(struct drm_msm_gem_submit, in_syncobjs) == 40, "submit.in_syncobjs");
_Static_assert(offsetof(struct drm_msm_gem_submit, out_syncobjs) == 48, "submit.out_syncobjs");
_Static_assert(offsetof(struct drm_msm_gem_submit, nr_in_syncobjs) == 56, "submit.nr_in_syncobjs");
_Static_assert(offsetof(struct drm_msm_gem_submit, syncobj_stride) == 64, "submit.syncobj_stride");
_Static_assert(offsetof(struct drm_msm_gem_submit, pad) == 68, "submit.pad");
_Static_assert(sizeof(struct drm_msm_wait_fence) == 32, "drm_msm_wait_fence");
_Static_assert(offsetof(struct drm_msm_wait_fence, timeout) == 8, "wait_fence.timeout");
_Static_assert(offsetof(struct drm_msm_wait_fence, queueid) == 24, "wait_fence.queueid");
_Static_assert(sizeof(struct drm_msm_gem_madvise) == 12, "drm_msm_gem_madvise");
_Static_assert(sizeof(struct drm_msm_submitqueue) == 12, "drm_msm_submitqueue");
_Static_assert(sizeof(struct drm_msm_submitqueue_query) == 24, "drm_msm_submitqueue_query");
_Static_assert(offsetof(struct drm_msm_submitqueue_query, id) == 8, "submitqueue_query.id");

_Static_assert(DRM_IOCTL_MSM_GET_PARAM == 0xc0186440u, "GET_PARAM nr");
_Static_assert(DRM_IOCTL_MSM_SET_PARAM == 0x40186441u, "SET_PARAM nr");
_Static_assert(DRM_IOCTL_MSM_GEM_NEW == 0xc0106442u, "GEM_NEW nr");
_Static_assert(DRM_IOCTL_MSM_GEM_INFO == 0xc0186443u, "GEM_INFO nr");
_Static_assert(DRM_IOCTL_MSM_GEM_CPU_PREP == 0x40186444u, "GEM_CPU_PREP nr");
_Static_assert(DRM_IOCTL_MSM_GEM_CPU_FINI == 0x40046445u, "GEM_CPU_FINI nr");
_Static_assert(DRM_IOCTL_MSM_GEM_SUBMIT == 0xc0486446u, "GEM_SUBMIT nr");
_Static_assert(DRM_IOCTL_MSM_WAIT_FENCE == 0x40206447u, "WAIT_FENCE nr");
_Static_assert(DRM_IOCTL_MSM_GEM_MADVISE == 0xc00c6448u, "GEM_MADVISE nr");
_Static_assert(DRM_IOCTL_MSM_SUBMITQUEUE_NEW == 0xc00c644au, "SUBMITQUEUE_NEW nr");
_Static_assert(DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE == 0x4004644bu, "SUBMITQUEUE_CLOSE nr");
_Static_assert(DRM_IOCTL_MSM_SUBMITQUEUE_QUERY == 0x4018644cu, "SUBMITQUEUE_QUERY nr");
/* What DRM_IOCTL_VERSION reports (drivers/gpu/drm/msm/msm_drv.c, Linux 6.1). Turnip wants
 * major 1 and checks the minor for features (1.9 = submitqueue priorities, syncobjs). */
#define MSM_DRIVER_NAME       "msm"
#define MSM_DRIVER_DESC       "MSM Snapdragon DRM"
#define MSM_DRIVER_DATE       "20130625"
#define MSM_DRIVER_MAJOR      1
#define MSM_DRIVER_MINOR      9
#define MSM_DRIVER_PATCHLEVEL 0

/* The DRM core ioctls the sim and backends use, from libdrm. */
_Static_assert(DRM_IOCTL_GEM_CLOSE == 0x40086409u, "GEM_CLOSE nr");
_Static_assert(DRM_IOCTL_PRIME_HANDLE_TO_FD == 0xc00c642du, "PRIME_HANDLE_TO_FD nr");

#endif
