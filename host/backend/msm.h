/* The msm backend: the msm kernel uAPI as libferry-host's core needs it, spoken through a
 * struct kdev only (it cannot tell a render node from the simulator). One msm_ctx = one open. */
#ifndef FERRY_BACKEND_MSM_H
#define FERRY_BACKEND_MSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ferry/wire.h>

struct kdev;
struct msm_ctx;

#define MSM_INFO_MAX_PARAMS 16

/* What GET_PARAM told us about the device; params the kernel rejects with -EINVAL are left out. */
struct msm_dev_info {
	uint32_t nr_params;
	struct ferry_param params[MSM_INFO_MAX_PARAMS];
	uint32_t priorities; /* MSM_PARAM_PRIORITIES, 1 if the kernel does not say */
	uint64_t va_start, va_size; /* 0 when the kernel has no per-process address spaces */
	uint64_t gpu_id, chip_id;
};

/* Reads the device's parameters through an open. Returns 0 or a negative errno. */
int msm_probe(struct kdev *kd, struct msm_dev_info *out);

/* Wraps an open; the msm_ctx owns kd from now on (msm_ctx_destroy closes it, also on failure). */
int msm_ctx_create(struct kdev *kd, struct msm_ctx **out);
/* Closes the open: the kernel (or sim) cancels or waits out its pending work. */
void msm_ctx_destroy(struct msm_ctx *mc);
int msm_ctx_poll_fd(struct msm_ctx *mc);
/* The GPU's always-on counter now (MSM_PARAM_TIMESTAMP). 0 or a negative errno. */
int msm_timestamp(struct msm_ctx *mc, uint64_t *ticks);
void msm_ctx_poll_ack(struct msm_ctx *mc);

/* BOs. size is rounded up to the page size by the caller's rules (msm_bo_round_size). */
uint64_t msm_bo_round_size(uint64_t size);
/* Largest BO the backend accepts (the 6.1 kernel keeps BO sizes in 32 bits). */
#define MSM_BO_MAX_SIZE (0xffffffffull & ~0xfffull)
/* Checks guest BO flags: only SCANOUT/GPU_READONLY plus exactly one cache mode. Returns 0 or
 * -EINVAL with *why set. */
int msm_bo_check_flags(uint32_t flags, const char **why);
int msm_bo_new(struct msm_ctx *mc, uint64_t size, uint32_t flags, uint32_t *handle, uint64_t *iova);
/* The same, placed at a chosen iova (MSM_INFO_SET_IOVA; replay): -EBUSY if the range is taken,
 * -ENOSPC outside the address space or unaligned. */
int msm_bo_new_at(struct msm_ctx *mc, uint64_t size, uint32_t flags, uint64_t iova, uint32_t *handle);
/* A dma-buf/memfd fd of the BO's pages (CLOEXEC, read-write). */
int msm_bo_export(struct msm_ctx *mc, uint32_t handle, int *fd);
/* PRIME_FD_TO_HANDLE of a dma-buf of this device into this open, and the iova it has here. The
 * handle may be one this open already had for the object (the kernel's dedup). *handle is set
 * (else 0) whenever the kernel gave one, also when the iova query then failed. */
int msm_bo_import(struct msm_ctx *mc, int fd, uint32_t *handle, uint64_t *iova);
void msm_bo_close(struct msm_ctx *mc, uint32_t handle);
/* Maps a BO into the host through the kernel's mmap offset (GEM_INFO GET_OFFSET): read-only
 * for guest BOs the validator reads, read-write for host-private shadow copies. */
int msm_bo_map(struct msm_ctx *mc, uint32_t handle, uint64_t size, bool writable, void **map);
void msm_bo_unmap(struct msm_ctx *mc, void *map, uint64_t size);
/* The shadow pool's BOs (shadow_pool.h; dev = the msm_ctx): GPU read-only, write-combined. */
struct shadow_bo_ops;
extern const struct shadow_bo_ops msm_shadow_bo_ops;
/* Non-blocking GEM_CPU_PREP: 0 when the BO is idle for op, -EBUSY when not, other -errno. */
int msm_bo_cpu_prep_poll(struct msm_ctx *mc, uint32_t handle, uint32_t op);

/* Submit queues. */
int msm_queue_new(struct msm_ctx *mc, uint32_t prio, uint32_t *kernel_id);
void msm_queue_close(struct msm_ctx *mc, uint32_t kernel_id);
/* The queue's fault counter (SUBMITQUEUE_QUERY FAULTS). */
int msm_queue_faults(struct msm_ctx *mc, uint32_t kernel_id, uint32_t *faults);
/* WAIT_FENCE with timeout = now: 0 signaled, -EBUSY not yet, other -errno. */
int msm_fence_poll(struct msm_ctx *mc, uint32_t kernel_id, uint32_t seqno);

/* A BO named by a submit's bos[] entry, as the core resolved it. */
struct msm_submit_bo_ref {
	uint32_t handle;
	uint64_t size;
};

/* Checks a decoded submit's envelope (cmd types, sizes, offsets, alignment, bo and reloc
 * indexes, reloc order, flags) against the resolved BOs (refs[i] for s->bos[i]) and builds
 * every kernel-visible array in the context's scratch memory. Nothing guest-supplied is used as
 * a pointer. Returns 0, or -EINVAL with a message naming the field in why. */
int msm_submit_prepare(struct msm_ctx *mc, const struct ferry_msm_submit *s,
		       const struct msm_submit_bo_ref *refs, char *why, size_t why_len);
/* A kernel cmd executing a host-made shadow copy: bo indexes the handles given to
 * msm_submit_use_shadows. */
struct msm_shadow_cmd {
	uint32_t type; /* MSM_SUBMIT_CMD_BUF or CTX_RESTORE_BUF */
	uint32_t bo;
	uint32_t offset, size; /* bytes */
};
/* Validated submits: after msm_submit_prepare, replaces the prepared cmds with cmds executing
 * shadow copies. The shadow BOs are appended to the bo list (READ); the guest's BOs stay in it
 * for implicit sync; no relocs reach the kernel (they were applied in the copies). Returns 0,
 * -EINVAL (nothing prepared, bad index) or -ENOMEM. */
int msm_submit_use_shadows(struct msm_ctx *mc, const uint32_t *handles, uint32_t nr_handles,
			   const struct msm_shadow_cmd *cmds, uint32_t nr_cmds);
/* Issues the submit prepared last on kernel queue kernel_id with fence seqno (FENCE_SN_IN).
 * here: an idle simulated GPU may run it in this thread (kdev submit_here); *done_here (if not
 * NULL) is then set when work retired during the call without a poll fd wakeup (kdev done_here:
 * the caller checks its fences). Returns 0 or the kernel's -errno. */
int msm_submit_flush(struct msm_ctx *mc, uint32_t kernel_id, uint32_t seqno, bool here, bool *done_here);

enum msm_fault_kind {
	MSM_FAULT_UNKNOWN = 0, /* FAULTS went up but the dump said nothing we know */
	MSM_FAULT_PAGEFAULT,
	MSM_FAULT_HANG,
	MSM_FAULT_CP_ERROR,    /* bad packet header, parity, opcode error */
	MSM_FAULT_UNMODELED,   /* the simulator in strict mode met work it does not execute */
};

/* A fault or hang, parsed from the kernel's devcoredump. */
struct msm_fault {
	enum msm_fault_kind kind;
	bool have_iova;   /* pagefault: iova/write valid */
	bool write;
	uint64_t iova;
	bool have_submit; /* the coredump named the submit */
	uint32_t queue_id, fence;
	bool have_location;
	uint64_t ib_iova;
	uint32_t ib_dword, ib_level, opcode;
};

/* Reads the pending coredump of the open (if any) into text (NUL-terminated) and parses it.
 * Returns 0, or -ENOENT if the kernel has none (f is then zeroed, text empty). */
int msm_read_fault(struct msm_ctx *mc, struct msm_fault *f, char *text, size_t text_len);
/* The parser alone (for tests). */
void msm_parse_coredump(const char *text, struct msm_fault *f);

/* The kernel's view of the open's unretired submits (kdev.debug_state, line format in kdev.h)
 * into buf. Returns the length, or -ENOTSUP when the kernel cannot tell. */
ssize_t msm_debug_state(struct msm_ctx *mc, char *buf, size_t len);

#endif
