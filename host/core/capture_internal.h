/* host_capture.c / capture_build.c: the state of an operator's capture and of the captures that go
 * with fault reports, and what the families' capture builders (the capture_build op) share. */
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

/* One submit to capture, as the family's capture_build op gets it: m the decoded message (frame
 * its wire payload) of queue q, its listed BOs resolved in bos[]. formats: FERRY_CAPTURE_* to
 * write (only SESSION for families without .rd). With full, BOs besides those the family always
 * copies (msm: the command buffers) are copied too while their total fits full_budget.
 * post_mortem: the BOs are read now, not at submit time (said in the NOTE and the snapshots). */
struct capture_submit {
	unsigned formats;
	bool full, post_mortem;
	uint64_t full_budget;
	struct host_queue *q;
	const struct ferry_msg *m;
	struct host_bo *const *bos;
	uint32_t nr_bos;
	const void *frame;
	size_t frame_len;
};

/* A read-only view of a BO's pages: the validator's mapping when there is one, else a temporary
 * mapping through the family. */
struct capture_bo_view {
	const void *data;
	void *own_map;
	struct host_bo *bo;
};
int capture_bo_view_open(struct host_bo *bo, struct capture_bo_view *v);
void capture_bo_view_close(struct capture_bo_view *v);

/* The session file's header and NOTE (extra_note appended), once per file. */
int capture_session_opening(struct capture_buffers *b, struct capture_file *f, struct host_ctx *ctx,
			    bool post_mortem, const char *extra_note);
/* The context, queue and BO creations the replay needs before the submit, those the file has
 * not said yet. */
int capture_session_prologue(struct capture_buffers *b, struct capture_file *f, struct host_queue *q,
			     struct host_bo *const *bos, uint32_t nr_bos);

#endif
