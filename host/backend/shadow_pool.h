/* The per-context shadow pool of both backends: host-private kernel BOs (never exported to the
 * guest) that hold the validated, relocated copies of a submit's command streams. Carved out of
 * size-classed chunks, which the following submits share while room is left and which are
 * recycled when the last submit carved from them retires, so steady-state submits create no BO
 * and small ones in flight need few; recycled chunks beyond a small reserve are destroyed once
 * they sat unused for a while, and every chunk is charged to its owner's quota. The BOs come
 * from a backend's shadow_bo_ops (msm, v3d). */
#ifndef FERRY_BACKEND_SHADOW_POOL_H
#define FERRY_BACKEND_SHADOW_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/msm.h"
#include "validate/pm4_validate.h"

struct shadow_pool;
struct shadow_chunk;

/* The shadows of one submit, and the kernel's view of them once finished. */
struct shadow_set {
	struct shadow_set *next; /* queue FIFO or free list */
	uint32_t queue, seqno;
	struct shadow_chunk **chunks;
	uint32_t nr_chunks, cap_chunks;
	uint32_t *handles; /* of chunks[], for the kernel bo list */
	uint32_t cap_handles;
	struct msm_shadow_cmd *cmds; /* msm (shadow_pool_finish) */
	uint32_t nr_cmds, cap_cmds;
	struct pm4v_stream_copy *streams; /* msm: shadow -> guest address of every stream copied */
	uint32_t nr_streams, cap_streams;
};

/* Host-wide counters the pool adds to (ferry_host_stats fields). */
struct shadow_pool_counters {
	uint64_t *chunks_created; /* kernel BOs created for shadows, ever */
	uint64_t *bytes;          /* shadow BO bytes currently held */
};

/* How a backend makes a shadow BO: size bytes (a multiple of 4 KiB), not exported, mapped
 * writable into the host, with its GPU address. create: 0 or -errno (nothing to undo then). */
struct shadow_bo_ops {
	int (*create)(void *dev, uint32_t size, uint32_t *handle, uint64_t *gpu_addr, void **map);
	void (*destroy)(void *dev, uint32_t handle, void *map, uint32_t size);
};

struct shadow_pool_config {
	const struct shadow_bo_ops *ops;
	void *dev;            /* the ops' first argument: the backend's open (msm_ctx, v3d_ctx) */
	uint32_t nr_queues;   /* queue ids are < nr_queues */
	/* The most shadow memory this context may hold (in flight plus recycled); beyond it the
	 * allocator fails and the submit is refused. */
	uint64_t max_bytes;
	uint32_t align;       /* every allocation starts on this boundary: a power of two, <= 4096 */
	/* Requests above the largest class (4 MiB) get a BO of their own, closed when its submit
	 * retires (V3D's tile memory can be larger); otherwise they fail with -E2BIG. */
	bool oversize;
	struct shadow_pool_counters counters;
	/* The owner's accounting of what each chunk costs it (a kernel BO of size bytes; NULL: none).
	 * charge is asked before a chunk is made (bytes > 0): 0, or a negative errno (-EDQUOT) with
	 * its reason in why, and the allocation fails with both; it is told when one is destroyed
	 * (bytes < 0, why NULL), which it cannot refuse. */
	int (*charge)(void *owner, int64_t bytes, char *why, size_t n);
	void *owner;
	/* Recycled chunks beyond reserve_bytes are destroyed once unused for idle_ns (0: never);
	 * *trim_due_ns (shared by every pool, may be NULL) is lowered to when that is next due, so
	 * the embedder's loop knows when to call shadow_pool_trim. */
	uint64_t reserve_bytes;
	int64_t idle_ns;
	int64_t *trim_due_ns;
};

/* 0, -ENOMEM, or -EINVAL for a bad config. */
int shadow_pool_create(const struct shadow_pool_config *cfg, struct shadow_pool **out);
/* Closes every shadow BO. The kernel keeps the BOs of in-flight submits alive itself. */
void shadow_pool_destroy(struct shadow_pool *p);

/* Starts collecting the shadows of one submit (abandons an unfinished one). 0 or -ENOMEM. */
int shadow_pool_begin(struct shadow_pool *p);
/* size bytes of the current submit's shadow memory, cfg.align aligned: its GPU address and
 * writable host map. 0, or -EINVAL, -E2BIG, -ENOSPC (pool cap), -ENOMEM, the charge hook's
 * refusal (-EDQUOT), or the kernel's -errno (e.g. -EMFILE when the host is out of fds). */
int shadow_pool_carve(struct shadow_pool *p, uint32_t size, uint64_t *gpu_addr, void **map);
/* Why the last failed carve of the current submit failed, naming its cause ("shadow BO create:
 * Too many open files (EMFILE)", "shadow pool full: ..."), and its negative errno (0 if none
 * failed since shadow_pool_begin). The
 * validators see only that an allocation failed; their callers report this instead. */
int shadow_pool_last_error(const struct shadow_pool *p, const char **why);
/* The PM4 validator's allocator (ctx = the pool): shadow_pool_carve. */
int shadow_pool_alloc(void *pool, uint32_t size, struct pm4v_shadow *out);
/* Rejected submit: its shadows go back to the pool. */
void shadow_pool_abort(struct shadow_pool *p);
/* Submit validated: hands out the current set, with handles[] (nr_chunks of them) the kernel
 * BOs its shadows live in, and no cmds. 0 or -ENOMEM. */
int shadow_pool_take(struct shadow_pool *p, struct shadow_set **out);
/* msm: validated submit: turns the validator's output (shadow iovas) into kernel cmds (shadow BO +
 * offset) in the current set and hands it out. 0, -ENOMEM, or -EINVAL if a cmd is not inside
 * one of this submit's shadows. */
int shadow_pool_finish(struct shadow_pool *p, const struct pm4v_out_cmd *cmds, uint32_t nr_cmds,
		       struct shadow_set **out);
/* Keeps the validator's stream table (pm4v_result.streams) with a finished set, for as long as
 * the set is in flight. 0 or -ENOMEM. */
int shadow_pool_keep_streams(struct shadow_set *set, const struct pm4v_stream_copy *streams, uint32_t nr);
/* The stream of an in-flight (queued) set whose shadow holds iova, or NULL. */
const struct pm4v_stream_copy *shadow_pool_lookup(const struct shadow_pool *p, uint64_t iova);
/* The set's submit got seqno on queue: it is recycled once that seqno retired. */
void shadow_pool_queue(struct shadow_pool *p, struct shadow_set *set, uint32_t queue, uint32_t seqno);
/* A finished set whose submit never reached the kernel (and was not queued). */
void shadow_pool_release(struct shadow_pool *p, struct shadow_set *set);
/* Seqno retired on queue (timelines retire in order): recycles every set up to it. */
void shadow_pool_retire(struct shadow_pool *p, uint32_t queue, uint32_t seqno);
/* The queue is gone: recycles all of its sets. */
void shadow_pool_drop_queue(struct shadow_pool *p, uint32_t queue);
/* Destroys recycled chunks unused since now_ns - cfg.idle_ns, coldest first, until at most keep
 * bytes are left recycled (now_ns INT64_MAX: every recycled chunk may go). Returns when the next
 * trim is due (INT64_MAX: nothing left above the reserve). */
int64_t shadow_pool_trim(struct shadow_pool *p, int64_t now_ns, uint64_t keep);

#endif
