/* libvirglrenderer.so.1 for QEMU 7.2, built on libferry-host (docs/vm.md): what its files share.
 * QEMU calls the virgl_renderer_* entry points on its main thread (virgl_abi.c); they only record
 * resources and queue work. One worker thread (vg_worker.c) owns the ferry host and every
 * context (vg_context.c), reaches guest pages through the attached iovecs (vg_guest_mem.c) and
 * marks fences done; the main thread completes them in order (vg_fence.c). */
#ifndef FERRY_VG_H
#define FERRY_VG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ferry/host.h"

/* ---- resources (vg_guest_mem.c): guest-backed, under vg_mem_lock ---- */

/* The lock over the resource table and every access to guest pages through it: the main thread
 * takes it to attach, detach and free (QEMU may hand the pages back to the guest right after),
 * the worker while it copies. */
extern pthread_mutex_t vg_mem_lock;

struct vg_res {
	uint32_t id;
	uint64_t size;        /* what the guest asked for */
	int blob_fd;          /* a host blob's pages (vg_blob.c), else -1 */
	void *map;            /* its mapping while the guest has it mapped */
	struct iovec *iov;    /* QEMU's, lent until detach */
	int niov;
	uint64_t iov_bytes;
	/* A linear view of its first lin_len bytes (vg_res_linear_locked), dropped with the iovecs;
	 * lin_gen tells one view from a later one at the same address. */
	void *lin;
	size_t lin_len;
	bool lin_owned; /* an alias mapping of ours, else QEMU's own pointer */
	uint64_t lin_gen;
	uint64_t *ctxs;       /* the lives of virtio-gpu contexts it is attached to (their keys) */
	uint32_t nr_ctxs, cap_ctxs;
	struct vg_res *next;
};

int vg_res_create(uint32_t id, uint64_t size);
void vg_res_unref(uint32_t id);
int vg_res_attach_iov(uint32_t id, struct iovec *iov, int niov);
void vg_res_detach_iov(uint32_t id, struct iovec **iov, int *niov);
/* Main thread: a new life of context ctx (its key, 0 without memory); attachments go to the
 * current life; ctx_end detaches every life of ctx. */
uint64_t vg_res_ctx_begin(uint32_t ctx);
void vg_res_ctx_attach(uint32_t ctx, uint32_t id);
void vg_res_ctx_detach(uint32_t ctx, uint32_t id);
void vg_res_ctx_end(uint32_t ctx);
void vg_res_free_all(void);
/* A blob resource of host pages (fd taken over), and what the VMM does with one. */
int vg_res_create_blob(uint32_t id, int fd, uint64_t size);
int vg_res_map(uint32_t id, void **map, uint64_t *size);
int vg_res_unmap(uint32_t id);
int vg_res_export(uint32_t id, int *fd);
/* vg_mem_lock held: the resource, NULL when there is none. */
struct vg_res *vg_res_find_locked(uint32_t id);
bool vg_res_attached_locked(const struct vg_res *r, uint64_t key);
/* vg_mem_lock held: copies between linear memory and the resource's pages at off. False when
 * the range is not wholly backed. */
bool vg_res_read_locked(const struct vg_res *r, uint64_t off, void *dst, size_t len);
bool vg_res_write_locked(const struct vg_res *r, uint64_t off, const void *src, size_t len);
/* vg_mem_lock held: the resource's first len bytes (a multiple of the page size) as one linear
 * mapping, for memory both sides use in place (a submit ring). QEMU's pages are used as they
 * are when they lie in one run; else, where guest RAM is a shared mapping (memory-backend-memfd
 * share=on), its pages are mapped again side by side. -EXDEV when neither can be (guest RAM is
 * private and the pages are scattered), -EINVAL when the resource is not backed that far. The
 * view lives until the iovecs are detached or the resource freed: *gen names it. */
int vg_res_linear_locked(struct vg_res *r, size_t len, void **map, uint64_t *gen);
/* vg_mem_lock held: the view gen is still there. */
static inline bool vg_res_linear_alive_locked(const struct vg_res *r, uint64_t gen)
{
	return r && r->lin && r->lin_gen == gen;
}
/* vg_mem_lock held: the 3-way merge of a BO's guest pages, host pages and the copy both last
 * agreed on (docs/vm.md, "BO memory"): every byte the guest changed since goes to the host,
 * every other byte the host changed goes to the guest, and base becomes the result. len bytes
 * from off (host and base are the whole BO's). Returns the bytes that moved (both ways). */
uint64_t vg_res_merge_locked(const struct vg_res *r, uint8_t *host, uint8_t *base, size_t off, size_t len);

/* ---- host blobs (vg_blob.c) ---- */

/* Worker: fd's pages (a copy is kept) are what the guest of virtio-gpu context ctx gets for a
 * blob resource of id. */
int vg_blob_publish(uint32_t ctx, uint64_t id, int fd, uint64_t size);
void vg_blob_withdraw(uint32_t ctx, uint64_t id);
void vg_blob_withdraw_ctx(uint32_t ctx);
void vg_blob_withdraw_ferry_ctx(uint32_t ctx, uint32_t ctx_id);
/* Main thread: a copy of the fd of (ctx, id), whose pages hold at least size bytes. */
int vg_blob_take(uint32_t ctx, uint64_t id, uint64_t size, int *fd);
/* The blob id of a ferry object: a BO (bo_id), or the fence page of ctx_id (bo_id 0). */
static inline uint64_t vg_blob_id(uint32_t ctx_id, uint32_t bo_id)
{
	return (uint64_t)ctx_id << 32 | bo_id;
}

/* ---- fences (vg_fence.c) ---- */

/* Ordered sequences of fences: the device's (ctx 0: QEMU 7.2's write_fence) and, where the VMM
 * has context fences, one per context and ring (write_context_fence). A fence is done once the
 * worker handled what came before it; a NOTIFY fence waits for its condition too, or for a later
 * fence of its sequence to be done. */
int vg_fence_init(void (*write_fence)(void *cookie, uint32_t fence),
		  void (*write_context_fence)(void *cookie, uint32_t ctx, uint32_t ring_idx, uint64_t fence), void *cookie);
void vg_fence_fini(void);
/* Main thread: a fence after everything queued so far (ctx 0: the device's sequence). */
int vg_fence_create(uint32_t ctx, uint32_t ring_idx, uint64_t fence_id, bool notify, uint32_t notify_ctx);
/* Worker: the fence is done (all before it are handled). */
void vg_fence_done(uint32_t ctx, uint32_t ring_idx, uint64_t fence_id);
/* Worker: the held NOTIFY fences of ctx are due (or all, ctx 0); whether any was held. */
bool vg_fence_release_notify(uint32_t ctx);
/* Main thread: completes, per sequence, every fence that is done with none pending before it. */
void vg_fence_poll(void);

/* ---- the worker (vg_worker.c) ---- */

struct vg_config {
	struct ferry_host_config host;
	char gpu[32];
	uint32_t ring_linger_us; /* vg_ring_set_linger */
};

int vg_worker_start(const struct vg_config *cfg);
void vg_worker_stop(void);
/* Main thread: queue items for the worker, in order. buf is copied. */
int vg_worker_ctx_create(uint32_t ctx, uint64_t key, bool blobs);
int vg_worker_ctx_destroy(uint32_t ctx);
int vg_worker_submit(uint32_t ctx, const void *buf, size_t len, bool *notify);
/* A fence on sequence (ctx, ring_idx) (ctx 0: the device's); a NOTIFY one is notify_ctx's. */
int vg_worker_fence(uint32_t ctx, uint32_t ring_idx, uint64_t fence_id, bool notify, uint32_t notify_ctx);
/* Main thread: drop every context (device reset). */
void vg_worker_reset(void);
/* The device name the host serves ("sim a630"), for the capset. */
const char *vg_worker_device_name(void);

/* ---- contexts (vg_context.c), worker thread only ---- */

struct vg_ctx;
struct vg_ctx *vg_ctx_new(struct ferry_host *host, uint32_t id, uint64_t key, bool blobs);
void vg_ctx_free(struct vg_ctx *c);
uint32_t vg_ctx_id(const struct vg_ctx *c);
/* Bytes of BO pages its merges moved (both ways), for the log. */
uint64_t vg_ctx_merged_bytes(const struct vg_ctx *c);
/* Gives up on the context (the ring's error word and the log say why). */
void vg_ctx_fail(struct vg_ctx *c, int err, const char *why);
/* One EXECBUFFER's packets. */
void vg_ctx_submit(struct vg_ctx *c, const uint8_t *buf, size_t len);
/* After a host dispatch: fence pages to the guest (after the BOs of retired submits), replies
 * that waited for room, and whether a NOTIFY of this context is due. */
void vg_ctx_update(struct vg_ctx *c);
/* The NOTIFY condition the last submit of this context carried is met, or the context will never
 * see one met (not ferry, refused). Disarmed once a held fence was released for it. */
bool vg_ctx_notify_due(const struct vg_ctx *c);
void vg_ctx_notify_disarm(struct vg_ctx *c);
/* Replies wait for room in the ring: the guest frees it without waking the worker, which must
 * look again soon. */
bool vg_ctx_backlogged(const struct vg_ctx *c);
/* Its submit rings hold records the last pass left: the worker comes back without sleeping. */
bool vg_ctx_ring_more(const struct vg_ctx *c);
/* Within how many ns the worker looks at its rings again, 0 when a doorbell will say: a ring
 * not armed while work is in flight is looked at every ms, one lingering after it took records
 * every tick (vg_ring.c). */
uint64_t vg_ctx_ring_look_ns(const struct vg_ctx *c);
/* Submit rings (vg_ring.c): how long a ring that took records stays unarmed, looked at every
 * tick (vg_ring_tick_ns) rather than asking the guest for a doorbell; 0 arms at once. */
#define VG_RING_LINGER_DEFAULT_US 1000u
void vg_ring_set_linger(uint32_t us);
uint64_t vg_ring_tick_ns(void);
/* The eventfds of its ferry contexts (fence pages), for the worker's poll: up to max. */
int vg_ctx_event_fds(const struct vg_ctx *c, int *fds, int max);

/* Logging (vg_worker.c): "ferry-vg: ..." on stderr, or the host's log level. */
void vg_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
