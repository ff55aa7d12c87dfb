/* The v3d DRM uAPI of Linux 6.1 (driver 1.0.0) plus the V3D 7.1 TFU tail (≈6.8): structs, flags,
 * params and ioctl numbers, with sizes, key offsets and request numbers pinned by _Static_assert
 * (Debian's libdrm ships no v3d_drm.h, so ferry carries its own). DRM core ioctls (GEM_CLOSE,
 * PRIME, SYNCOBJ_*) come from libdrm's <drm.h>. */
#ifndef FERRY_UAPI_V3D_DRM_H
#define FERRY_UAPI_V3D_DRM_H

#include <stddef.h>
#include <stdint.h>

#include <drm.h> /* DRM_IOWR/DRM_IOW, DRM_COMMAND_BASE, drm_gem_close, drm_prime_handle, syncobjs */

/* Ioctl numbers (offsets from DRM_COMMAND_BASE). */
#define DRM_V3D_SUBMIT_CL          0x00
#define DRM_V3D_WAIT_BO            0x01
#define DRM_V3D_CREATE_BO          0x02
#define DRM_V3D_MMAP_BO            0x03
#define DRM_V3D_GET_PARAM          0x04
#define DRM_V3D_GET_BO_OFFSET      0x05
#define DRM_V3D_SUBMIT_TFU         0x06
#define DRM_V3D_SUBMIT_CSD         0x07
#define DRM_V3D_PERFMON_CREATE     0x08
#define DRM_V3D_PERFMON_DESTROY    0x09
#define DRM_V3D_PERFMON_GET_VALUES 0x0a

/* Submit flags (SUBMIT_CL; SUBMIT_TFU and SUBMIT_CSD accept only EXTENSION). */
#define DRM_V3D_SUBMIT_CL_FLUSH_CACHE 0x01 /* queue a CACHE_CLEAN job (L2T flush) after the render job */
#define DRM_V3D_SUBMIT_EXTENSION      0x02 /* `extensions` points to a drm_v3d_extension chain */

/* Generic ioctl extension: a singly linked list through user pointers. */
struct drm_v3d_extension {
	uint64_t next;  /* user pointer to the next extension, 0 ends the chain */
	uint32_t id;    /* DRM_V3D_EXT_ID_x */
	uint32_t flags; /* must be zero */
};

#define DRM_V3D_EXT_ID_MULTI_SYNC 0x01
/* [new, ≈6.8] CPU-job extensions (SUBMIT_CPU); 6.1 rejects them as unknown ids. */
#define DRM_V3D_EXT_ID_CPU_INDIRECT_CSD            0x02
#define DRM_V3D_EXT_ID_CPU_TIMESTAMP_QUERY         0x03
#define DRM_V3D_EXT_ID_CPU_RESET_TIMESTAMP_QUERY   0x04
#define DRM_V3D_EXT_ID_CPU_COPY_TIMESTAMP_QUERY    0x05
#define DRM_V3D_EXT_ID_CPU_RESET_PERFORMANCE_QUERY 0x06
#define DRM_V3D_EXT_ID_CPU_COPY_PERFORMANCE_QUERY  0x07

/* A wait or signal semaphore: a binary syncobj (flags/point/mbz are not checked by 6.1, which has
 * no timeline syncobjs). */
struct drm_v3d_sem {
	uint32_t handle; /* syncobj */
	uint32_t flags;  /* reserved */
	uint64_t point;  /* timeline point: ignored */
	uint64_t mbz[2];
};

/* The queues of the v3d scheduler; multisync's wait_stage names one. */
enum v3d_queue {
	V3D_BIN,
	V3D_RENDER,
	V3D_TFU,
	V3D_CSD,
	V3D_CACHE_CLEAN,
	V3D_CPU, /* [new, ≈6.8] */
};

/* DRM_V3D_EXT_ID_MULTI_SYNC: replaces the single in/out sync fields of the submit. in_syncs
 * become dependencies of the job on queue wait_stage; every out_sync gets the last job's fence. */
struct drm_v3d_multi_sync {
	struct drm_v3d_extension base;
	uint64_t in_syncs;       /* user pointer to in_sync_count drm_v3d_sem */
	uint64_t out_syncs;      /* user pointer to out_sync_count drm_v3d_sem */
	uint32_t in_sync_count;
	uint32_t out_sync_count;
	uint32_t wait_stage;     /* enum v3d_queue */
	uint32_t pad;            /* must be zero */
};

struct drm_v3d_submit_cl {
	uint32_t bcl_start;       /* GPU address; bcl_start == bcl_end: no bin job */
	uint32_t bcl_end;         /* first byte after the BCL */
	uint32_t rcl_start;
	uint32_t rcl_end;         /* first byte after the RCL */
	uint32_t in_sync_bcl;     /* syncobj to wait on before the BCL, 0 = none */
	uint32_t in_sync_rcl;     /* syncobj to wait on before the RCL, 0 = none */
	uint32_t out_sync;        /* syncobj that gets the completion fence, 0 = none */
	uint32_t qma;             /* tile alloc memory address (CT0QMA) */
	uint32_t qms;             /* tile alloc memory size (CT0QMS) */
	uint32_t qts;             /* tile state data array address (CT0QTS) */
	uint64_t bo_handles;      /* user pointer to bo_handle_count u32 handles */
	uint32_t bo_handle_count; /* must be > 0 */
	uint32_t flags;           /* DRM_V3D_SUBMIT_x */
	uint32_t perfmon_id;      /* 0 = none */
	uint32_t pad;             /* must be zero */
	uint64_t extensions;      /* user pointer to a drm_v3d_extension chain */
};

struct drm_v3d_wait_bo {
	uint32_t handle;
	uint32_t pad;             /* must be zero */
	uint64_t timeout_ns;      /* RELATIVE; the kernel writes back what is left on -ERESTARTSYS */
};

struct drm_v3d_create_bo {
	uint32_t size;
	uint32_t flags;           /* must be zero */
	uint32_t handle;          /* out */
	uint32_t offset;          /* out: GPU address in the ONE global address space (never 0) */
};

struct drm_v3d_mmap_bo {
	uint32_t handle;
	uint32_t flags;           /* must be zero */
	uint64_t offset;          /* out: fake offset for mmap on the DRM fd */
};

enum drm_v3d_param {
	DRM_V3D_PARAM_V3D_UIFCFG,
	DRM_V3D_PARAM_V3D_HUB_IDENT1,
	DRM_V3D_PARAM_V3D_HUB_IDENT2,
	DRM_V3D_PARAM_V3D_HUB_IDENT3,
	DRM_V3D_PARAM_V3D_CORE0_IDENT0,
	DRM_V3D_PARAM_V3D_CORE0_IDENT1,
	DRM_V3D_PARAM_V3D_CORE0_IDENT2,
	DRM_V3D_PARAM_SUPPORTS_TFU,
	DRM_V3D_PARAM_SUPPORTS_CSD,
	DRM_V3D_PARAM_SUPPORTS_CACHE_FLUSH,
	DRM_V3D_PARAM_SUPPORTS_PERFMON,
	DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT,
	/* [new] params after 6.1: the 6.1 kernel answers -EINVAL. */
	DRM_V3D_PARAM_SUPPORTS_CPU_QUEUE,
	DRM_V3D_PARAM_MAX_PERF_COUNTERS,
	DRM_V3D_PARAM_SUPPORTS_SUPER_PAGES,
	DRM_V3D_PARAM_GLOBAL_RESET_COUNTER,
	DRM_V3D_PARAM_CONTEXT_RESET_COUNTER,
};

struct drm_v3d_get_param {
	uint32_t param;           /* enum drm_v3d_param */
	uint32_t pad;             /* must be zero */
	uint64_t value;           /* out; must be zero on input for register params */
};

struct drm_v3d_get_bo_offset {
	uint32_t handle;
	uint32_t offset;          /* out */
};

struct drm_v3d_submit_tfu {
	uint32_t icfg;            /* the kernel ORs in IOC (bit 0); writing ICFG starts the job */
	uint32_t iia;             /* input image address */
	uint32_t iis;             /* input image stride */
	uint32_t ica;             /* input chroma address */
	uint32_t iua;             /* input U address */
	uint32_t ioa;             /* output address | flags (4.2) */
	uint32_t ios;             /* output size: height << 16 | width */
	uint32_t coef[4];         /* coef1-3 written only if coef[0] & USECOEF */
	uint32_t bo_handles[4];   /* [0] output BO, then inputs; 0-terminated */
	uint32_t in_sync;
	uint32_t out_sync;
	uint32_t flags;           /* only DRM_V3D_SUBMIT_EXTENSION */
	uint64_t extensions;
	struct {                  /* [new, ≈6.8] V3D 7.1 only; a 6.1 kernel never sees it */
		uint32_t ioc;     /* DIMTW | NUMMM << 4 | FORMAT << 12 | STRIDE << 16 */
		uint32_t pad;
	} v71;
};

/* The 6.1 size of drm_v3d_submit_tfu (up to extensions). drm_ioctl zero-extends a shorter user
 * struct, so both sizes reach the same handler. */
#define DRM_V3D_SUBMIT_TFU_SIZE_61 80u

struct drm_v3d_submit_csd {
	uint32_t cfg[7];          /* V3D_CSD_QUEUED_CFG0..6; writing CFG0 queues the dispatch */
	uint32_t coef[4];         /* unused by the hardware path */
	uint64_t bo_handles;      /* user pointer to bo_handle_count u32 handles */
	uint32_t bo_handle_count; /* must be > 0 */
	uint32_t in_sync;
	uint32_t out_sync;
	uint32_t perfmon_id;
	uint64_t extensions;
	uint32_t flags;           /* only DRM_V3D_SUBMIT_EXTENSION */
	uint32_t pad;             /* must be zero */
};

#define DRM_V3D_MAX_PERF_COUNTERS 32

struct drm_v3d_perfmon_create {
	uint32_t id;              /* out */
	uint32_t ncounters;       /* <= DRM_V3D_MAX_PERF_COUNTERS */
	uint8_t counters[DRM_V3D_MAX_PERF_COUNTERS];
};

struct drm_v3d_perfmon_destroy {
	uint32_t id;
};

struct drm_v3d_perfmon_get_values {
	uint32_t id;
	uint32_t pad;
	uint64_t values_ptr;      /* user pointer to ncounters u64 */
};

#define DRM_IOCTL_V3D_SUBMIT_CL      DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_SUBMIT_CL, struct drm_v3d_submit_cl)
#define DRM_IOCTL_V3D_WAIT_BO        DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_WAIT_BO, struct drm_v3d_wait_bo)
#define DRM_IOCTL_V3D_CREATE_BO      DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_CREATE_BO, struct drm_v3d_create_bo)
#define DRM_IOCTL_V3D_MMAP_BO        DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_MMAP_BO, struct drm_v3d_mmap_bo)
#define DRM_IOCTL_V3D_GET_PARAM      DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_GET_PARAM, struct drm_v3d_get_param)
#define DRM_IOCTL_V3D_GET_BO_OFFSET  DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_GET_BO_OFFSET, struct drm_v3d_get_bo_offset)
/* With the v71 tail (what current Mesa sends); the 6.1 request carries 80 bytes. */
#define DRM_IOCTL_V3D_SUBMIT_TFU     DRM_IOW(DRM_COMMAND_BASE + DRM_V3D_SUBMIT_TFU, struct drm_v3d_submit_tfu)
#define DRM_IOCTL_V3D_SUBMIT_TFU_61  _IOC(_IOC_WRITE, DRM_IOCTL_BASE, DRM_COMMAND_BASE + DRM_V3D_SUBMIT_TFU, \
					  DRM_V3D_SUBMIT_TFU_SIZE_61)
#define DRM_IOCTL_V3D_SUBMIT_CSD     DRM_IOW(DRM_COMMAND_BASE + DRM_V3D_SUBMIT_CSD, struct drm_v3d_submit_csd)
#define DRM_IOCTL_V3D_PERFMON_CREATE DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_PERFMON_CREATE, struct drm_v3d_perfmon_create)
#define DRM_IOCTL_V3D_PERFMON_DESTROY DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_PERFMON_DESTROY, \
					       struct drm_v3d_perfmon_destroy)
#define DRM_IOCTL_V3D_PERFMON_GET_VALUES DRM_IOWR(DRM_COMMAND_BASE + DRM_V3D_PERFMON_GET_VALUES, \
						  struct drm_v3d_perfmon_get_values)

/* Sizes (reference §1.3; x86-64 and arm64 are identical: all fields are fixed width). */
_Static_assert(sizeof(struct drm_v3d_extension) == 16, "drm_v3d_extension");
_Static_assert(offsetof(struct drm_v3d_extension, id) == 8, "drm_v3d_extension.id");
_Static_assert(sizeof(struct drm_v3d_sem) == 32, "drm_v3d_sem");
_Static_assert(offsetof(struct drm_v3d_sem, point) == 8, "drm_v3d_sem.point");
_Static_assert(sizeof(struct drm_v3d_multi_sync) == 48, "drm_v3d_multi_sync");
_Static_assert(offsetof(struct drm_v3d_multi_sync, in_syncs) == 16, "drm_v3d_multi_sync.in_syncs");
_Static_assert(offsetof(struct drm_v3d_multi_sync, in_sync_count) == 32, "drm_v3d_multi_sync.in_sync_count");
_Static_assert(offsetof(struct drm_v3d_multi_sync, wait_stage) == 40, "drm_v3d_multi_sync.wait_stage");
_Static_assert(sizeof(struct drm_v3d_submit_cl) == 72, "drm_v3d_submit_cl");
_Static_assert(offsetof(struct drm_v3d_submit_cl, qma) == 28, "drm_v3d_submit_cl.qma");
_Static_assert(offsetof(struct drm_v3d_submit_cl, bo_handles) == 40, "drm_v3d_submit_cl.bo_handles");
_Static_assert(offsetof(struct drm_v3d_submit_cl, flags) == 52, "drm_v3d_submit_cl.flags");
_Static_assert(offsetof(struct drm_v3d_submit_cl, pad) == 60, "drm_v3d_submit_cl.pad");
_Static_assert(offsetof(struct drm_v3d_submit_cl, extensions) == 64, "drm_v3d_submit_cl.extensions");
_Static_assert(sizeof(struct drm_v3d_wait_bo) == 16, "drm_v3d_wait_bo");
_Static_assert(offsetof(struct drm_v3d_wait_bo, timeout_ns) == 8, "drm_v3d_wait_bo.timeout_ns");
_Static_assert(sizeof(struct drm_v3d_create_bo) == 16, "drm_v3d_create_bo");
_Static_assert(offsetof(struct drm_v3d_create_bo, offset) == 12, "drm_v3d_create_bo.offset");
_Static_assert(sizeof(struct drm_v3d_mmap_bo) == 16, "drm_v3d_mmap_bo");
_Static_assert(offsetof(struct drm_v3d_mmap_bo, offset) == 8, "drm_v3d_mmap_bo.offset");
_Static_assert(sizeof(struct drm_v3d_get_param) == 16, "drm_v3d_get_param");
_Static_assert(offsetof(struct drm_v3d_get_param, value) == 8, "drm_v3d_get_param.value");
_Static_assert(sizeof(struct drm_v3d_get_bo_offset) == 8, "drm_v3d_get_bo_offset");
_Static_assert(sizeof(struct drm_v3d_submit_tfu) == 88, "drm_v3d_submit_tfu (with v71)");
_Static_assert(offsetof(struct drm_v3d_submit_tfu, coef) == 28, "drm_v3d_submit_tfu.coef");
_Static_assert(offsetof(struct drm_v3d_submit_tfu, bo_handles) == 44, "drm_v3d_submit_tfu.bo_handles");
_Static_assert(offsetof(struct drm_v3d_submit_tfu, in_sync) == 60, "drm_v3d_submit_tfu.in_sync");
_Static_assert(offsetof(struct drm_v3d_submit_tfu, flags) == 68, "drm_v3d_submit_tfu.flags");
_Static_assert(offsetof(struct drm_v3d_submit_tfu, extensions) == 72, "drm_v3d_submit_tfu.extensions");
_Static_assert(offsetof(struct drm_v3d_submit_tfu, v71) == DRM_V3D_SUBMIT_TFU_SIZE_61, "drm_v3d_submit_tfu.v71");
_Static_assert(sizeof(struct drm_v3d_submit_csd) == 88, "drm_v3d_submit_csd");
_Static_assert(offsetof(struct drm_v3d_submit_csd, coef) == 28, "drm_v3d_submit_csd.coef");
_Static_assert(offsetof(struct drm_v3d_submit_csd, bo_handles) == 48, "drm_v3d_submit_csd.bo_handles");
_Static_assert(offsetof(struct drm_v3d_submit_csd, in_sync) == 60, "drm_v3d_submit_csd.in_sync");
_Static_assert(offsetof(struct drm_v3d_submit_csd, extensions) == 72, "drm_v3d_submit_csd.extensions");
_Static_assert(offsetof(struct drm_v3d_submit_csd, flags) == 80, "drm_v3d_submit_csd.flags");
_Static_assert(sizeof(struct drm_v3d_perfmon_create) == 40, "drm_v3d_perfmon_create");
_Static_assert(sizeof(struct drm_v3d_perfmon_destroy) == 4, "drm_v3d_perfmon_destroy");
_Static_assert(sizeof(struct drm_v3d_perfmon_get_values) == 16, "drm_v3d_perfmon_get_values");

/* Request numbers (reference §1.3). */
_Static_assert(DRM_IOCTL_V3D_SUBMIT_CL == 0xc0486440u, "SUBMIT_CL");
_Static_assert(DRM_IOCTL_V3D_WAIT_BO == 0xc0106441u, "WAIT_BO");
_Static_assert(DRM_IOCTL_V3D_CREATE_BO == 0xc0106442u, "CREATE_BO");
_Static_assert(DRM_IOCTL_V3D_MMAP_BO == 0xc0106443u, "MMAP_BO");
_Static_assert(DRM_IOCTL_V3D_GET_PARAM == 0xc0106444u, "GET_PARAM");
_Static_assert(DRM_IOCTL_V3D_GET_BO_OFFSET == 0xc0086445u, "GET_BO_OFFSET");
_Static_assert(DRM_IOCTL_V3D_SUBMIT_TFU == 0x40586446u, "SUBMIT_TFU (with v71)");
_Static_assert(DRM_IOCTL_V3D_SUBMIT_TFU_61 == 0x40506446u, "SUBMIT_TFU (6.1)");
_Static_assert(DRM_IOCTL_V3D_SUBMIT_CSD == 0x40586447u, "SUBMIT_CSD");
_Static_assert(DRM_IOCTL_V3D_PERFMON_CREATE == 0xc0286448u, "PERFMON_CREATE");
_Static_assert(DRM_IOCTL_V3D_PERFMON_DESTROY == 0xc0046449u, "PERFMON_DESTROY");
_Static_assert(DRM_IOCTL_V3D_PERFMON_GET_VALUES == 0xc010644au, "PERFMON_GET_VALUES");

/* Param ids are ABI (reference §3.2). */
_Static_assert(DRM_V3D_PARAM_SUPPORTS_TFU == 7, "SUPPORTS_TFU");
_Static_assert(DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT == 11, "SUPPORTS_MULTISYNC_EXT");
_Static_assert(DRM_V3D_PARAM_CONTEXT_RESET_COUNTER == 16, "CONTEXT_RESET_COUNTER");
_Static_assert(V3D_CACHE_CLEAN == 4, "v3d_queue");

/* What DRM_IOCTL_VERSION reports (drivers/gpu/drm/v3d/v3d_drv.c, Linux 6.1). */
#define V3D_DRIVER_NAME       "v3d"
#define V3D_DRIVER_DESC       "Broadcom V3D graphics"
#define V3D_DRIVER_DATE       "20180419"
#define V3D_DRIVER_MAJOR      1
#define V3D_DRIVER_MINOR      0
#define V3D_DRIVER_PATCHLEVEL 0

#endif
