/* host_capture.c / capture_build.c: the state of an operator's capture and of the captures that go
 * with fault reports. */
#ifndef FERRY_HOST_CAPTURE_INTERNAL_H
#define FERRY_HOST_CAPTURE_INTERNAL_H

#include <limits.h>

#include "host_internal.h"

/* Submits remembered (their frames) for the capture a fault report gets, and the largest frame
 * remembered: at most 4 MiB of guest-chosen bytes held per ferryd. */
#define CAPTURE_RECENT 128u
#define CAPTURE_RECENT_MAX_FRAME (32u << 10)

struct capture_file_bo {
	uint32_t id;
	uint64_t iova, size;
};

/* One output (a per-submit file pair, or a combined one of a context): what it has already
 * said, so a combined file creates each context, queue and BO once. */
struct capture_file {
	struct capture_file *next;
	uint32_t client_id, ctx_id;
	bool rd_started, session_started, ctx_written;
	uint64_t queues_written; /* bit per queue id */
	struct capture_file_bo *bos;
	uint32_t nr_bos, cap_bos;
	char rd_path[PATH_MAX], session_path[PATH_MAX];
};

struct capture_buffers {
	struct ferry_buf rd, session, scratch;
};

/* Post-mortem captures copy the command buffers plus at most this many bytes of other BOs. */
#define CAPTURE_POST_MORTEM_OTHER_BYTES (64ull << 20)

/* Appends one submit to b (the file's first submit also writes the file's opening). frame is the
 * submit's wire payload. Command-buffer BOs are always copied; with full, the other BOs too, in
 * bos[] order while their total fits full_budget (those left out are counted in the NOTE when
 * it is written). 0 or a negative errno. */
int capture_build_submit(struct capture_buffers *b, struct capture_file *f, unsigned formats, bool full,
			 uint64_t full_budget, bool post_mortem, struct host_queue *q, const struct ferry_msm_submit *s,
			 struct host_bo *const *bos, const void *frame, size_t frame_len, uint32_t frame_flags);

/* Appends one V3D submit (CL, TFU or CSD: frame is its wire payload) to b's session: the
 * context, queue and BOs the file has not created yet, a snapshot of every listed BO, the frame.
 * V3D has no .rd. 0 or a negative errno. */
int capture_build_v3d(struct capture_buffers *b, struct capture_file *f, bool post_mortem, struct host_queue *q,
		      struct host_bo *const *bos, uint32_t nr_bos, const void *frame, size_t frame_len);

#endif
