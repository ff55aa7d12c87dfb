/* One virtio-gpu context speaking ferry: what vg_context.c (packets, frames, the reply ring) and
 * vg_sync.c (fence pages, BO pages, retired submits) share. Worker thread only. */
#ifndef FERRY_VG_CTX_PRIV_H
#define FERRY_VG_CTX_PRIV_H

#include "ferry/fence_page.h"
#include "ferry/virtio.h"
#include "ferry/wire.h"
#include "vg.h"

/* Binds wait for the reply that makes their object (ContextCreated, BoCreated). A guest cannot
 * make more than this wait at once: the oldest goes. */
#define VG_MAX_BINDS 64u
/* Replies the ring had no room for, per context: past this the guest is not reading. */
#define VG_MAX_BACKLOG (8u << 20)
#define VG_BO_BUCKETS 256u
/* Submits per ferry context whose BOs wait to be merged back (far above any driver's). */
#define VG_MAX_INFLIGHT 4096u

/* A submit whose BOs go back to the guest once its seqno retired. */
struct vg_inflight {
	uint32_t queue_id, seqno;
	uint32_t nr_bos;
	uint32_t *bo_ids;
	struct vg_inflight *next;
};

/* A ferry context of this client: the host's fence page and the guest resource it is copied to. */
struct vg_fctx {
	uint32_t ctx_id;
	uint32_t res;
	struct ferry_fence_page *page; /* the host's (mmap of ContextCreated fds[0]) */
	int event_fd;                  /* a dup of ContextCreated fds[1] */
	uint32_t lost;
	struct ferry_fence_slot shown[FERRY_FENCE_PAGE_QUEUES]; /* what the guest's page holds */
	struct vg_inflight *inflight, **inflight_tail;
	uint32_t nr_inflight;
	struct vg_fctx *next;
};

/* A BO whose guest pages and host pages are kept in step (vg_res_merge_locked). */
struct vg_bo {
	uint32_t ctx_id, bo_id, res;
	uint8_t *host;  /* mmap of BoCreated fds[0] */
	uint8_t *base;  /* what both last agreed on */
	size_t size;
	uint64_t merged_at; /* the frame it was last merged for */
	struct vg_bo *next;
};

struct vg_ctx {
	uint32_t id;
	uint64_t key; /* this life of the context: what its resources are attached to */
	struct ferry_host *host;
	struct ferry_host_client *client;
	enum { VG_NEW, VG_FERRY, VG_REFUSED } state;
	/* The VMM has blob resources and context types: BOs and fence pages are host memory the
	 * guest maps (vg_blob.c), not guest pages kept in step. */
	bool blobs;
	bool broken; /* the host gave up on the client: freed at the next update */
	/* The reply ring (FERRY_VIRTIO_HELLO). */
	uint32_t ring_res, ring_size;
	uint64_t write_pos;
	uint32_t page_gen;
	uint8_t *backlog;
	size_t backlog_len, backlog_cap;
	/* The guest's frame stream, a frame at a time. */
	uint8_t *acc;
	size_t acc_len, acc_cap;
	struct ferry_virtio_bind binds[VG_MAX_BINDS];
	uint32_t nr_binds;
	struct vg_fctx *fctxs;
	struct vg_bo *bos[VG_BO_BUCKETS];
	bool notify_armed;
	uint64_t notify_pos;
	uint32_t notify_gen;
	uint64_t merged_bytes;
	uint64_t frame_no; /* guest frames handled, and 1 + each update */
	/* Submit rings (vg_ring.c), and the stream frames handed to the host so far: a ring record
	 * is taken once that count reached the one it carries (docs/protocol.md "Submit rings"). */
	struct vg_sring *srings;
	uint64_t *frame_buf; /* the frame being handled, 8-byte aligned for the decoder */
	size_t frame_cap;    /* in u64s */
	uint32_t sock_seq;
	bool ring_more; /* records were left for the worker's next pass */
	bool ring_watch; /* a ring waits without a doorbell for work in flight to retire */
	bool ring_linger; /* a ring that just took records waits without a doorbell (a tick) */
};

/* vg_context.c (and vg_ctx_fail in vg.h: the client goes at the next update) */
/* vg_mem_lock held: the resource if it exists, is attached to this context and has len bytes. */
struct vg_res *vg_ctx_res_locked(const struct vg_ctx *c, uint32_t res, uint64_t len);

/* A guest frame (payload 8-byte aligned; m its decoding, NULL when it does not decode): handed
 * to the host between the BO merges it needs. From the stream or a submit ring. */
void vg_ctx_handle_frame(struct vg_ctx *c, const void *payload, uint32_t plen, const struct ferry_msg *m);
/* A frame of the glue's own into the reply ring (as the host's replies). */
void vg_ctx_reply(struct vg_ctx *c, const void *frame, size_t len);
/* page_gen moves, so the guest's notifier wakes its context eventfds. */
void vg_ctx_poke(struct vg_ctx *c);

/* vg_ring.c */
/* RingCreate (not handed to the host): the bound resource becomes the ring; the answer goes to
 * the reply ring. */
void vg_ring_create(struct vg_ctx *c, const struct ferry_msg *m);
/* A KICK packet: the ring it names is looked at. */
void vg_ring_kick(struct vg_ctx *c, const uint8_t *p, uint32_t len);
/* Takes what the rings hold that the stream allows (all: every such record, before a stream
 * frame; else a bounded batch per ring), then arms idle rings. True when records were left. */
bool vg_ring_drain(struct vg_ctx *c, bool all);
void vg_ring_drop(struct vg_ctx *c, uint32_t ctx_id);
void vg_ring_free_all(struct vg_ctx *c);
/* Records taken and doorbells heard, over the context's rings. */
uint64_t vg_ring_records(const struct vg_ctx *c, uint64_t *kicks);

/* vg_sync.c */
/* Whether ferry context ctx_id of this client exists (its ContextCreated came), and whether it
 * has submits whose retirement the worker waits for. */
bool vg_ctx_has_fctx(struct vg_ctx *c, uint32_t ctx_id);
bool vg_ctx_fctx_busy(struct vg_ctx *c, uint32_t ctx_id);
/* A guest frame, decoded: BOs of a submit go to the host first and are remembered until its
 * seqno retires; closes forget their objects. Called before the host handles the frame. */
void vg_sync_before_frame(struct vg_ctx *c, const struct ferry_msg *m);
void vg_sync_after_frame(struct vg_ctx *c, const struct ferry_msg *m);
/* A reply with fds: the objects a bind waited for. */
void vg_sync_reply(struct vg_ctx *c, const struct ferry_msg *m, const int *fds, int nfds);
/* Fence pages to the guest, BOs of retired submits first; true when anything changed. */
bool vg_sync_pages(struct vg_ctx *c);
/* vg_sync_pages, then the ring's page_gen bumped if anything changed (vg_context.c). */
void vg_ctx_publish_pages(struct vg_ctx *c);
void vg_sync_free(struct vg_ctx *c);
/* The bind of kind for (ctx_id, bo_id), taken out of the list; 0 when there is none. */
uint32_t vg_ctx_take_bind(struct vg_ctx *c, uint32_t kind, uint32_t ctx_id, uint32_t bo_id);

#endif
