/* The v3d backend: the v3d kernel uAPI as libferry-host's core needs it, spoken through a struct
 * kdev only (render node or simulator alike). One v3d_ctx = one open of the device. */
#ifndef FERRY_BACKEND_V3D_H
#define FERRY_BACKEND_V3D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ferry/wire.h>

struct kdev;
struct v3d_ctx;

#define V3D_INFO_MAX_PARAMS 20

/* What GET_PARAM told us; params the kernel rejects with -EINVAL are left out. */
struct v3d_dev_info {
	uint32_t nr_params;
	struct ferry_param params[V3D_INFO_MAX_PARAMS];
	uint32_t ver; /* 42, 71: CORE0_IDENT0.VER * 10 + CORE0_IDENT1.REV */
	bool has_tfu, has_csd, has_cache_flush;
};

int v3d_probe(struct kdev *kd, struct v3d_dev_info *out);

/* Wraps an open; the v3d_ctx owns kd from now on (closed by v3d_ctx_destroy, also on failure). */
int v3d_ctx_create(struct kdev *kd, struct v3d_ctx **out);
void v3d_ctx_destroy(struct v3d_ctx *vc);
int v3d_ctx_poll_fd(struct v3d_ctx *vc);
void v3d_ctx_poll_ack(struct v3d_ctx *vc);

/* BOs: page-rounded; the kernel's CREATE_BO takes a u32 size. */
#define V3D_BO_MAX_SIZE (0xffffffffull & ~0xfffull)
uint64_t v3d_bo_round_size(uint64_t size); /* 0 when above V3D_BO_MAX_SIZE */
/* *offset: the BO's GPU address in the device's one global address space. */
int v3d_bo_new(struct v3d_ctx *vc, uint64_t size, uint32_t *handle, uint64_t *offset);
int v3d_bo_export(struct v3d_ctx *vc, uint32_t handle, int *fd);
/* PRIME_FD_TO_HANDLE into this open; *offset is the object's one global address (GET_BO_OFFSET).
 * The handle may be one this open already had for the object; *handle is set (else 0) whenever
 * the kernel gave one, also when the offset query then failed. */
int v3d_bo_import(struct v3d_ctx *vc, int fd, uint32_t *handle, uint64_t *offset);
void v3d_bo_close(struct v3d_ctx *vc, uint32_t handle);
/* Maps a BO into the host through MMAP_BO's fake offset: read-only for guest BOs the validator
 * reads, read-write for host-private shadow copies. */
int v3d_bo_map(struct v3d_ctx *vc, uint32_t handle, uint64_t size, bool writable, void **map);
void v3d_bo_unmap(struct v3d_ctx *vc, void *map, uint64_t size);
/* The shadow pool's BOs (shadow_pool.h; dev = the v3d_ctx): plain BOs mapped writable. V3D has
 * no GPU-read-only BOs, and the binner writes the tile-memory shadows. */
struct shadow_bo_ops;
extern const struct shadow_bo_ops v3d_shadow_bo_ops;
/* WAIT_BO with timeout 0: 0 idle, -EBUSY busy, other -errno. */
int v3d_bo_wait_poll(struct v3d_ctx *vc, uint32_t handle);

/* A job as the core checked it; handles are kernel BO handles of this open (never guest data). */
struct v3d_cl_job {
	uint32_t bcl_start, bcl_end, rcl_start, rcl_end, qma, qms, qts;
	bool flush_cache;
};
struct v3d_tfu_job {
	uint32_t icfg, iia, iis, ica, iua, ioa, ios, coef[4], v71_ioc;
};
struct v3d_csd_job {
	uint32_t cfg[7];
};

/* Each submit takes a syncobj (a kept one, or a new one) that gets the job's completion fence
 * (*out_sync); poll it with v3d_sync_poll and give it back with v3d_sync_free once retired. Returns 0 or the kernel's -errno
 * (nothing to free then). v3d_submit_cl's alone: the job is all the context has in flight (kdev
 * submit_here); *done_here is then set when it completed during the call without a poll fd
 * wakeup (kdev done_here: the caller checks its fences). */
int v3d_submit_cl(struct v3d_ctx *vc, const struct v3d_cl_job *job, const uint32_t *handles, uint32_t nr,
		  uint32_t *out_sync, bool alone, bool *done_here);
/* handles: output BO first, then inputs; 1..4. */
int v3d_submit_tfu(struct v3d_ctx *vc, const struct v3d_tfu_job *job, const uint32_t *handles, uint32_t nr,
		   uint32_t *out_sync);
int v3d_submit_csd(struct v3d_ctx *vc, const struct v3d_csd_job *job, const uint32_t *handles, uint32_t nr,
		   uint32_t *out_sync);
/* SYNCOBJ_WAIT with timeout 0: 0 signaled, -EBUSY not yet, other -errno. */
int v3d_sync_poll(struct v3d_ctx *vc, uint32_t sync);
void v3d_sync_free(struct v3d_ctx *vc, uint32_t sync);

enum v3d_fault_kind {
	V3D_FAULT_UNKNOWN = 0,
	V3D_FAULT_MMU,       /* access outside every BO */
	V3D_FAULT_HANG,
	V3D_FAULT_JOB_ERROR, /* the unit refused the job */
};

/* A fault, parsed from the kernel's (simulator's) report text (kdev.coredump). */
struct v3d_fault {
	enum v3d_fault_kind kind;
	bool have_address, write;
	uint64_t address;
	char unit[8];   /* CLE, TFU, CSD */
	char queue[16]; /* bin, render, tfu, csd */
	bool have_packet;
	uint64_t packet;
	uint32_t opcode;
	uint32_t out_sync; /* the job's submit's out_sync handle, 0 when the report does not say */
};

/* Reads the open's pending report into text (NUL-terminated) and parses it. Returns 0, or
 * -ENOENT when none is pending (f zeroed, text empty). */
int v3d_read_fault(struct v3d_ctx *vc, struct v3d_fault *f, char *text, size_t text_len);
void v3d_parse_report(const char *text, struct v3d_fault *f);

#endif
