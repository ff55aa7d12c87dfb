/* struct kdev: the kernel driver as the backends see it. A real one wraps a DRM render-node fd;
 * a simulated one (host/sim) implements the same uAPI in process. Backends call only this. */
#ifndef FERRY_KDEV_H
#define FERRY_KDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct kdev;

/* One kernel trace point (kdev_ops.trace_read). */
enum kdev_trace_phase {
	KDEV_TRACE_BEGIN,   /* the GPU started the job */
	KDEV_TRACE_END,     /* the GPU finished it (its IRQ / end-of-pipe) */
	KDEV_TRACE_INSTANT, /* anything else the kernel traces (an ioctl, a reset) */
};
struct kdev_trace_event {
	uint64_t ts_ns;   /* CLOCK_MONOTONIC */
	uint32_t phase;   /* enum kdev_trace_phase */
	uint32_t queue;   /* msm: the submitqueue id; v3d: enum v3d_queue */
	uint32_t seqno;   /* that queue's fence seqno, 0 when not assigned yet */
	uint32_t pad;
	const char *name; /* static: "cp" (msm), "bin", "render", "tfu", "csd", "cache_clean", or
			   * the kernel's tracepoint name for instants */
};

struct kdev_ops {
	/* The DRM ioctl with the kernel's request number and argument struct (ferry/uapi/msm_drm.h,
	 * v3d_drm.h; DRM core ioctls from libdrm's drm.h). Returns 0 or a negative errno, as drmIoctl's -errno. */
	int (*ioctl)(struct kdev *kd, unsigned long request, void *arg);
	/* mmap of a BO through the fake offset GEM_INFO(GET_OFFSET) returned. MAP_FAILED on error
	 * with errno set. */
	void *(*mmap)(struct kdev *kd, size_t len, int prot, int flags, uint64_t offset);
	int (*munmap)(struct kdev *kd, void *addr, size_t len);
	/* An fd that becomes readable when some submitted work may have completed (the owner then
	 * polls fences with WAIT_FENCE timeout=now), or -1 if the owner must poll on a timer. */
	int (*poll_fd)(struct kdev *kd);
	/* Acknowledge a poll_fd wakeup (drain it). The owner checks its fences after each ack: a
	 * completion before the ack need not make the fd readable again (the simulators write it
	 * once between two acks). */
	void (*poll_ack)(struct kdev *kd);
	/* The newest devcoredump (text, msm's a6xx format) captured for this device open since the
	 * last call, copied into buf (NUL-terminated, truncated to len). Returns its length, or
	 * -ENOENT if none is pending. Render nodes read /sys/class/devcoredump/devcd* for it
	 * (render_node_coredump.c: the device's dumps, not only this open's). */
	ssize_t (*coredump)(struct kdev *kd, char *buf, size_t len);
	/* Optional (NULL = not supported): what the kernel knows of this open's unretired submits,
	 * for sync-state dumps. One line per submit, oldest first per submitqueue, into buf
	 * (NUL-terminated; a line that does not fit is left out whole):
	 *   queue=<submitqueue id> fence=<seqno> exec=<P|S>[ <wait>]
	 * exec S = the CP has begun it, P = not yet. <wait>, when the CP is polling in that submit:
	 *   wait=<WAIT_REG_MEM|WAIT_MEM_GTE> addr=0x<iova>|reg=0x<reg> live=0x<value now>
	 *   ref=0x<wanted> mask=0x<mask> op=<always|lt|le|eq|ne|ge|gt>[ signed]
	 * (the wait is over when (live & mask) op ref holds).
	 * Returns the length written, or a negative errno (-ENOTSUP: the kernel cannot tell, as
	 * real msm today). */
	ssize_t (*debug_state)(struct kdev *kd, char *buf, size_t len);
	void (*close)(struct kdev *kd);
	/* Optional (NULL = not supported): this open's kernel trace points (GPU job start / end),
	 * oldest first, from position *cursor on (0 = the oldest kept); advances *cursor past what
	 * it returns. Returns how many it wrote into ev (at most max), or a negative errno
	 * (-ENOTSUP: a render node without writable tracefs, where the drivers' tracepoints live;
	 * render_node_trace.c). Events older than the kernel's ring are lost. */
	ssize_t (*trace_read)(struct kdev *kd, uint64_t *cursor, struct kdev_trace_event *ev, size_t max);
	/* Optional (NULL = nothing to do): the owner would rather run the next GEM_SUBMIT (msm)
	 * or SUBMIT_CL (v3d) of this open itself than wake the GPU for it (msm: any submit; v3d:
	 * one that is all the context has in flight). A simulated GPU that is idle (nothing to run,
	 * no timer) then runs its first slice in the calling thread before the ioctl returns,
	 * instead of waking its worker: a submit+wait costs two thread wakeups (the guest's and
	 * ferryd's), not four, and a guest that keeps a few submits in flight none per submit.
	 * Owner's thread only, as the ioctl. */
	void (*submit_here)(struct kdev *kd);
	/* Optional, with submit_here: after the submit ioctl that followed it, whether work of this
	 * open retired in the calling thread during that ioctl. Its poll_fd was not written for
	 * that work: the owner checks its fences now, as after a poll_ack (which saves the fd's
	 * write, the epoll report of it and the ack's read). Clears the answer. Owner's thread
	 * only. */
	bool (*done_here)(struct kdev *kd);
};

struct kdev {
	const struct kdev_ops *ops;
	const char *name; /* "sim-msm a630", "/dev/dri/renderD128" */
};

static inline int kdev_ioctl(struct kdev *kd, unsigned long request, void *arg)
{
	return kd->ops->ioctl(kd, request, arg);
}

/* A submit ioctl. here: ask for submit_here, when the kdev has it; *done_here is then whether
 * work of the open retired in the call, told by no poll fd wakeup (done_here:
 * the caller checks its fences). The answer is asked after a failure too, so that it is cleared
 * for the next call, and taken only on success. */
static inline int kdev_submit_ioctl(struct kdev *kd, unsigned long request, void *arg, bool want_here, bool *done_here)
{
	const struct kdev_ops *ops = kd->ops;
	bool here = want_here && ops->submit_here;
	if (here)
		ops->submit_here(kd);
	int ret = kdev_ioctl(kd, request, arg);
	bool done = here && ops->done_here && ops->done_here(kd);
	if (done_here)
		*done_here = done && ret == 0;
	return ret;
}

#endif
