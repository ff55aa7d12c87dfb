/* ferry wire protocol: the C view of every message in ferry.fbs, the codec and the framing.
 * Nothing outside protocol/ sees FlatBuffers or C++; everyone else speaks these structs. */
#ifndef FERRY_WIRE_H
#define FERRY_WIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FERRY_PROTOCOL_VERSION 1u

/* Feature bits exchanged in the handshake. */
#define FERRY_FEATURE_FENCE_PAGE (1ull << 0) /* per-context shared fence page + eventfd */
#define FERRY_FEATURE_MSM        (1ull << 1)
#define FERRY_FEATURE_V3D        (1ull << 2)
/* The server mirrors memory for a client that shares none (tcp: BoMap, BoData, FenceUpdate;
 * docs/network.md). ferryd's remote layer adds it to the HelloReply of a tcp client. */
#define FERRY_FEATURE_REMOTE_MEMORY (1ull << 3)
/* Per-context submit rings in shared memory (RingCreate; docs/protocol.md "Submit rings"). */
#define FERRY_FEATURE_SUBMIT_RING (1ull << 4)
/* (bit 4: the submit ring.) The server takes BoCreateBatch (docs/protocol.md); over fd-passing
 * transports only: ferryd's remote layer does not offer it. */
#define FERRY_FEATURE_BO_BATCH (1ull << 5)

/* Largest frame payload either side accepts (the u32 length prefix not included). */
#define FERRY_MAX_FRAME_SIZE (1u << 20)
/* Most fds one frame may carry. */
#define FERRY_MAX_FRAME_FDS 4

/* Limits every host enforces on guest-supplied counts (checked before anything is allocated). */
#define FERRY_MAX_BO_BATCH        FERRY_MAX_FRAME_FDS /* BOs of one BoCreateBatch: one fd each */
#define FERRY_MAX_SUBMIT_BOS      4096u
#define FERRY_MAX_SUBMIT_CMDS     256u
#define FERRY_MAX_SUBMIT_RELOCS   16384u
#define FERRY_MAX_SUBMIT_IN_FENCES 64u
#define FERRY_MAX_STRING          4096u
/* FaultReport.text alone may be longer: a devcoredump-like report with its register file and last
 * packets runs to tens of KiB. Still well inside FERRY_MAX_FRAME_SIZE. */
#define FERRY_MAX_REPORT_TEXT     (256u * 1024u)
/* Most params one DEVICE_INFO reply may carry. */
#define FERRY_MAX_DEVICE_PARAMS   256u

/* Bytes of the little-endian u32 length that precedes every frame payload. */
#define FERRY_FRAME_HDR_SIZE 4u

enum ferry_family {
	FERRY_FAMILY_NONE = 0,
	FERRY_FAMILY_MSM = 1, /* Adreno, msm kernel uAPI */
	FERRY_FAMILY_V3D = 2, /* Broadcom V3D, v3d kernel uAPI */
};

/* Context policy (DESIGN §6). */
enum ferry_ctx_policy {
	FERRY_POLICY_VALIDATED = 0,
	FERRY_POLICY_PASSTHROUGH = 1,
};

enum ferry_msg_kind {
	FERRY_MSG_NONE = 0,
	/* guest -> host requests */
	FERRY_MSG_HELLO,
	FERRY_MSG_DEVICE_QUERY,
	FERRY_MSG_CONTEXT_CREATE,
	FERRY_MSG_CONTEXT_DESTROY,
	FERRY_MSG_QUEUE_CREATE,
	FERRY_MSG_QUEUE_CLOSE,
	FERRY_MSG_BO_CREATE,
	FERRY_MSG_BO_CLOSE,
	FERRY_MSG_BO_INFO,
	FERRY_MSG_BO_CPU_PREP,
	FERRY_MSG_MSM_SUBMIT,
	FERRY_MSG_FENCE_WAIT,
	/* host -> guest replies (seq = the request's seq) */
	FERRY_MSG_HELLO_REPLY,
	FERRY_MSG_DEVICE_INFO,
	FERRY_MSG_CONTEXT_CREATED,
	FERRY_MSG_BO_CREATED,
	FERRY_MSG_BO_INFO_REPLY,
	FERRY_MSG_STATUS_REPLY,
	FERRY_MSG_ERROR,
	/* host -> guest events (seq = 0) */
	FERRY_MSG_FENCE_SIGNALED,
	FERRY_MSG_FAULT_REPORT,
	/* guest -> host requests added later (appended: the union's type values are ABI) */
	FERRY_MSG_V3D_SUBMIT_CL,
	FERRY_MSG_V3D_SUBMIT_TFU,
	FERRY_MSG_V3D_SUBMIT_CSD,
	FERRY_MSG_BO_IMPORT,
	FERRY_MSG_TIMESTAMP_QUERY,
	FERRY_MSG_EXTERNAL_FENCE,
	/* memory without shared pages (tcp): docs/network.md */
	FERRY_MSG_BO_DATA,     /* both ways */
	FERRY_MSG_BO_MAP,      /* guest -> host request */
	FERRY_MSG_FENCE_UPDATE, /* host -> guest event */
	/* submit rings (FERRY_FEATURE_SUBMIT_RING): docs/protocol.md "Submit rings" */
	FERRY_MSG_RING_CREATE,  /* guest -> host request */
	FERRY_MSG_RING_CREATED, /* host -> guest reply */
	FERRY_MSG_BO_CREATE_BATCH, /* guest -> host request (FERRY_FEATURE_BO_BATCH) */
	FERRY_MSG_BO_BATCH_CREATED, /* its reply */
	FERRY_MSG_KIND_COUNT
};

/* ---- requests ---- */

struct ferry_hello {
	uint32_t version;  /* FERRY_PROTOCOL_VERSION of the sender */
	uint64_t features; /* FERRY_FEATURE_* the guest understands */
	const char *token; /* optional auth token (TCP); NULL if absent */
};

struct ferry_device_query {
	uint32_t family; /* wanted family, or FERRY_FAMILY_NONE for "whatever the server has" */
};

struct ferry_context_create {
	uint32_t ctx_id; /* client-chosen, unique within the client */
	uint32_t family; /* enum ferry_family */
	uint32_t policy; /* enum ferry_ctx_policy */
};

struct ferry_context_destroy {
	uint32_t ctx_id;
};

/* A submit ring for a context (ferry/submit_ring.h): data_size a power of two in
 * FERRY_RING_MIN_DATA..FERRY_RING_MAX_DATA (the decoder checks). */
struct ferry_ring_create {
	uint32_t ctx_id;
	uint32_t data_size;
};

struct ferry_queue_create {
	uint32_t ctx_id;
	uint32_t queue_id; /* client-chosen, < FERRY_FENCE_PAGE_QUEUES (it indexes the fence page) */
	uint32_t priority; /* msm: 0 = highest, < MSM_PARAM_PRIORITIES; v3d: must be 0 */
	uint32_t flags;    /* must be 0 */
	uint32_t kind;     /* enum ferry_queue_kind (0 = the family's main engine) */
};

/* What a queue feeds (docs/protocol.md, "Queues"). Each queue is one timeline of seqnos. */
enum ferry_queue_kind {
	FERRY_QUEUE_KIND_DEFAULT = 0, /* msm: a submitqueue; v3d: same as V3D_CL */
	FERRY_QUEUE_KIND_V3D_CL = 1,  /* V3D bin + render: a seqno signals when its render completes */
	FERRY_QUEUE_KIND_V3D_TFU = 2, /* V3D texture formatting unit */
	FERRY_QUEUE_KIND_V3D_CSD = 3, /* V3D compute shader dispatch */
	/* No GPU work: the guest adds seqnos and signals them itself (ExternalFence), for fences
	 * the host cannot name (another process's sync file) that its submits wait on. */
	FERRY_QUEUE_KIND_EXTERNAL = 4,
	FERRY_QUEUE_KIND_COUNT
};

struct ferry_queue_close {
	uint32_t ctx_id;
	uint32_t queue_id;
};

struct ferry_bo_create {
	uint32_t ctx_id;
	uint32_t bo_id; /* client-chosen, non-zero, unique within the context */
	uint64_t size;
	uint32_t flags; /* msm: MSM_BO_* (a cache mode is required) */
	uint64_t iova;  /* 0: the host chooses; else the BO is placed there (replay: msm only) */
};

/* count BOs of one size and flags as ids first_bo_id .. first_bo_id + count - 1, all or none;
 * count 1..FERRY_MAX_BO_BATCH (the decoder does not check it: the host does). */
struct ferry_bo_create_batch {
	uint32_t ctx_id;
	uint32_t first_bo_id;
	uint32_t count;
	uint64_t size;
	uint32_t flags;
};

struct ferry_bo_close {
	uint32_t ctx_id;
	uint32_t bo_id;
};

struct ferry_bo_info {
	uint32_t ctx_id;
	uint32_t bo_id;
};

/* fds[0]: a BO's pages as the host handed them out (BoCreated fds[0], passed on by its holder).
 * The BO comes into ctx_id as bo_id (client-chosen, as for BoCreate); the reply is BoCreated. */
struct ferry_bo_import {
	uint32_t ctx_id;
	uint32_t bo_id;
	/* No fd (tcp): src_bo_id non-zero imports this client's BO (src_ctx_id, src_bo_id). */
	uint32_t src_ctx_id;
	uint32_t src_bo_id;
};

/* BoData.flags: data is one zstd frame that decompresses to exactly raw_len bytes. */
#define FERRY_BO_DATA_ZSTD  (1u << 0)
#define FERRY_BO_DATA_FLAGS (FERRY_BO_DATA_ZSTD)
/* Most ranges one BoData may carry. */
#define FERRY_MAX_BO_DATA_RANGES 8192u

struct ferry_bo_range {
	uint64_t offset;
	uint32_t len;
	uint32_t pad; /* 0 */
};

/* Bytes of one BO, either way (docs/network.md): the ranges' bytes concatenated in data, raw_len
 * of them, zstd-compressed when flags has FERRY_BO_DATA_ZSTD (else data_len == raw_len). The
 * decoder checks that the ranges' lengths add up to raw_len without overflow; offsets against the
 * BO's size are the receiver's to check. */
struct ferry_bo_data {
	uint32_t ctx_id;
	uint32_t bo_id;
	uint32_t flags;
	uint32_t nr_ranges;
	const struct ferry_bo_range *ranges;
	uint32_t raw_len;
	uint32_t data_len;
	const uint8_t *data;
};

/* The guest maps the BO: the host replies with BoData of its non-zero content, then
 * STATUS_REPLY; from then on the BO is mirrored (docs/network.md). */
struct ferry_bo_map {
	uint32_t ctx_id;
	uint32_t bo_id;
};

struct ferry_fence_slot_update {
	uint32_t queue_id; /* < FERRY_FENCE_PAGE_QUEUES */
	uint32_t signaled;
	uint32_t error_seqno;
	int32_t error;
};

/* The fence page's changes, for a guest that has no shared page (tcp). */
struct ferry_fence_update {
	uint32_t ctx_id;
	uint32_t lost;
	uint32_t nr_slots; /* at most FERRY_FENCE_PAGE_QUEUES (128) */
	const struct ferry_fence_slot_update *slots;
};

/* msm: the GPU's always-on counter (19.2 MHz ticks, the kernel's MSM_PARAM_TIMESTAMP) read on the
 * host now; the reply is STATUS_REPLY with value. V3D has no such counter: -EINVAL. */
struct ferry_timestamp_query {
	uint32_t ctx_id;
};

/* On a queue of kind EXTERNAL. ADD: seqno (after the queue's last, as a submit's) is pending
 * until signaled; SIGNAL: the pending seqno has signaled with status (0 or a negative errno).
 * Seqnos retire in order, so one signaled before an earlier one waits for it. No reply on
 * success; ERROR otherwise (an ADD's error fails that seqno, as a refused submit's). */
enum ferry_external_fence_op {
	FERRY_EXTERNAL_FENCE_ADD = 0,
	FERRY_EXTERNAL_FENCE_SIGNAL = 1,
};

struct ferry_external_fence {
	uint32_t ctx_id;
	uint32_t queue_id;
	uint32_t seqno;
	uint32_t op;    /* enum ferry_external_fence_op */
	int32_t status; /* SIGNAL: 0 or a negative errno; ADD: 0 */
};

struct ferry_bo_cpu_prep {
	uint32_t ctx_id;
	uint32_t bo_id;
	uint32_t op;        /* FERRY_CPU_PREP_* */
	int64_t timeout_ns; /* relative; 0 = poll */
};

/* BoCpuPrep.op, for every family: wait until the GPU's reads / writes of the BO are done; NOSYNC
 * only polls. The values are msm's MSM_PREP_* (the msm guest driver passes those through). */
#define FERRY_CPU_PREP_READ   0x01u
#define FERRY_CPU_PREP_WRITE  0x02u
#define FERRY_CPU_PREP_NOSYNC 0x04u
#define FERRY_CPU_PREP_OPS    (FERRY_CPU_PREP_READ | FERRY_CPU_PREP_WRITE | FERRY_CPU_PREP_NOSYNC)

/* Arrays below are laid out exactly as the FlatBuffers structs of ferry.fbs (the codec
 * static-asserts it), so a decoded message points into the frame without copying. */
struct ferry_msm_submit_bo {
	uint32_t bo_id;
	uint32_t flags; /* MSM_SUBMIT_BO_READ / WRITE / DUMP */
};

struct ferry_msm_submit_cmd {
	uint32_t type;     /* MSM_SUBMIT_CMD_BUF / IB_TARGET_BUF / CTX_RESTORE_BUF */
	uint32_t bo_index; /* index into bos[] */
	uint32_t offset;   /* bytes into that BO */
	uint32_t size;     /* bytes */
};

struct ferry_msm_submit_reloc {
	uint32_t cmd_index;     /* which cmd's BO is patched */
	uint32_t submit_offset; /* byte offset into that cmd's BO */
	uint32_t or_value;
	int32_t shift;          /* negative = right shift */
	uint32_t bo_index;      /* whose iova is written (index into bos[]) */
	uint32_t pad;
	uint64_t bo_offset;
};

struct ferry_fence_ref {
	uint32_t queue_id; /* a queue of the same context */
	uint32_t seqno;
};

struct ferry_msm_submit {
	uint32_t ctx_id;
	uint32_t queue_id;
	uint32_t seqno; /* guest-chosen, increasing per queue (wrap-aware) */
	uint32_t flags; /* FERRY_SUBMIT_* */
	uint32_t nr_bos, nr_cmds, nr_relocs, nr_in_fences;
	const struct ferry_msm_submit_bo *bos;
	const struct ferry_msm_submit_cmd *cmds;
	const struct ferry_msm_submit_reloc *relocs;
	const struct ferry_fence_ref *in_fences;
};

/* Ask for a FENCE_SIGNALED event even when the fence completes without error. */
#define FERRY_SUBMIT_NOTIFY (1u << 0)
#define FERRY_SUBMIT_FLAGS  (FERRY_SUBMIT_NOTIFY)

/* V3D submits (FERRY_MSG_V3D_SUBMIT_*). Addresses are V3D GPU addresses (BoCreated.iova: the
 * one global address space); bo_ids lists this context's BOs the job uses. */
#define FERRY_V3D_SUBMIT_FLUSH_CACHE (1u << 1) /* CL only: an L2T cache clean after the render */
#define FERRY_V3D_SUBMIT_CL_FLAGS    (FERRY_SUBMIT_FLAGS | FERRY_V3D_SUBMIT_FLUSH_CACHE)
#define FERRY_V3D_MAX_TFU_BOS 4u
#define FERRY_V3D_CSD_CFG_WORDS 7u

struct ferry_v3d_submit_cl {
	uint32_t ctx_id;
	uint32_t queue_id; /* a FERRY_QUEUE_KIND_V3D_CL queue */
	uint32_t seqno;
	uint32_t flags;    /* FERRY_V3D_SUBMIT_CL_FLAGS */
	uint32_t bcl_start, bcl_end; /* equal: no bin job */
	uint32_t rcl_start, rcl_end;
	uint32_t qma, qms, qts;
	uint32_t nr_bos, nr_in_fences;
	const uint32_t *bo_ids;
	const struct ferry_fence_ref *in_fences;
};

struct ferry_v3d_submit_tfu {
	uint32_t ctx_id;
	uint32_t queue_id; /* a FERRY_QUEUE_KIND_V3D_TFU queue */
	uint32_t seqno;
	uint32_t flags;    /* FERRY_SUBMIT_FLAGS */
	uint32_t icfg, iia, iis, ica, iua, ioa, ios;
	uint32_t coef[4];
	uint32_t v71_ioc;  /* V3D 7.1 only */
	uint32_t nr_bos, nr_in_fences; /* nr_bos 1..FERRY_V3D_MAX_TFU_BOS: output first */
	const uint32_t *bo_ids;
	const struct ferry_fence_ref *in_fences;
};

struct ferry_v3d_submit_csd {
	uint32_t ctx_id;
	uint32_t queue_id; /* a FERRY_QUEUE_KIND_V3D_CSD queue */
	uint32_t seqno;
	uint32_t flags;    /* FERRY_SUBMIT_FLAGS */
	uint32_t cfg[FERRY_V3D_CSD_CFG_WORDS];
	uint32_t nr_bos, nr_in_fences;
	const uint32_t *bo_ids;
	const struct ferry_fence_ref *in_fences;
};

struct ferry_fence_wait {
	uint32_t ctx_id;
	uint32_t queue_id;
	uint32_t seqno;
	int64_t timeout_ns; /* relative; < 0 = forever */
};

/* ---- replies ---- */

struct ferry_hello_reply {
	uint32_t version;
	uint64_t features;
	const char *server; /* e.g. "ferryd 0.1.0 (sim a630)" */
};

struct ferry_param {
	uint32_t id; /* msm: MSM_PARAM_*; v3d: DRM_V3D_PARAM_* */
	uint32_t pad;
	uint64_t value;
};

struct ferry_device_info {
	uint32_t family;
	const char *name; /* "a630", "v3d-4.2", ... */
	uint32_t nr_params;
	const struct ferry_param *params;
};

/* fds[0] = fence page (memfd, FERRY_FENCE_PAGE_SIZE bytes), fds[1] = eventfd written when a
 * fence of this context signals while the page's waiters word is non-zero. */
struct ferry_context_created {
	uint32_t ctx_id;
};

/* fds[0] = the ring (sealed memfd: FERRY_RING_HDR_SIZE + data_size bytes), fds[1] = its
 * doorbell (eventfd). sock_seq: the host's count of this client's socket frames handled so far. */
struct ferry_ring_created {
	uint32_t ctx_id;
	uint32_t data_size;
	uint32_t sock_seq;
};

/* fds[0] = the BO's pages, mappable with mmap(size, MAP_SHARED, offset 0). */
struct ferry_bo_created {
	uint32_t ctx_id;
	uint32_t bo_id;
	uint64_t size; /* after page rounding */
	uint64_t iova; /* GPU address in this context's address space */
};

/* fds[i] = the pages of BO first_bo_id + i (mmap(size, MAP_SHARED, offset 0)), at iova[i]. */
struct ferry_bo_batch_created {
	uint32_t ctx_id;
	uint32_t first_bo_id;
	uint64_t size; /* of each, after page rounding */
	uint32_t count; /* 1..FERRY_MAX_BO_BATCH (the decoder rejects more) */
	uint64_t iova[FERRY_MAX_BO_BATCH];
};

struct ferry_bo_info_reply {
	uint32_t ctx_id;
	uint32_t bo_id;
	uint64_t size;
	uint64_t iova;
	uint32_t flags;
};

/* Result of a request that has only a status (cpu_prep, fence_wait). */
struct ferry_status_reply {
	int32_t error;  /* 0 or a negative errno (-ETIMEDOUT, -EBUSY, -EIO ...) */
	uint64_t value; /* TIMESTAMP_QUERY: the counter; 0 otherwise */
};

/* A request failed. seq names the request; for asynchronous requests (submit, bo_create, ...)
 * it is still the request's seq, so the guest can tie it back. */
struct ferry_error {
	uint32_t request_kind; /* enum ferry_msg_kind of the failed request, or NONE for framing */
	int32_t error;         /* negative errno */
	const char *message;   /* human-readable reason */
};

/* ---- events ---- */

struct ferry_fence_signaled {
	uint32_t ctx_id;
	uint32_t queue_id;
	uint32_t seqno;
	int32_t status; /* 0, or negative errno (-EIO fault, -ETIMEDOUT hang, -ECANCELED ...) */
};

#define FERRY_FAULT_WRITE (1u << 0) /* else a read */
#define FERRY_FAULT_HANG  (1u << 1) /* no fault address: the submit made no progress */

/* FaultReport.source. V3D reports name the packet in ib_iova (the CL packet's GPU address, or 0)
 * with ib_dword = 0 and ib_level = 0. */
#define FERRY_FAULT_SOURCE_CP      0u /* Adreno command processor */
#define FERRY_FAULT_SOURCE_V3D_CLE 1u /* V3D control-list executor (bin / render) */
#define FERRY_FAULT_SOURCE_V3D_TFU 2u
#define FERRY_FAULT_SOURCE_V3D_CSD 3u

struct ferry_fault_report {
	uint32_t ctx_id;
	uint32_t queue_id;
	uint32_t seqno;
	uint32_t flags;     /* FERRY_FAULT_* */
	uint64_t iova;      /* faulting address */
	uint64_t ib_iova;   /* base of the IB (or CL) executing when it faulted */
	uint32_t ib_dword;  /* dword offset of the faulting packet's header in that IB */
	uint32_t ib_level;  /* 0 ring, 1 IB1, 2 IB2 */
	uint32_t opcode;    /* packet opcode (PM4 type-7 opcode, or 0x100|reg for type-4) */
	uint32_t source;    /* unit that faulted: FERRY_FAULT_SOURCE_* */
	const char *text;   /* full report, devcoredump-like; up to FERRY_MAX_REPORT_TEXT bytes */
};

struct ferry_msg {
	enum ferry_msg_kind kind;
	uint32_t seq; /* request id chosen by the guest; replies echo it; events carry 0 */
	union {
		struct ferry_hello hello;
		struct ferry_device_query device_query;
		struct ferry_context_create context_create;
		struct ferry_context_destroy context_destroy;
		struct ferry_queue_create queue_create;
		struct ferry_queue_close queue_close;
		struct ferry_bo_create bo_create;
		struct ferry_bo_close bo_close;
		struct ferry_bo_info bo_info;
		struct ferry_bo_cpu_prep bo_cpu_prep;
		struct ferry_msm_submit msm_submit;
		struct ferry_fence_wait fence_wait;
		struct ferry_hello_reply hello_reply;
		struct ferry_device_info device_info;
		struct ferry_context_created context_created;
		struct ferry_bo_created bo_created;
		struct ferry_bo_info_reply bo_info_reply;
		struct ferry_status_reply status_reply;
		struct ferry_error error;
		struct ferry_fence_signaled fence_signaled;
		struct ferry_fault_report fault_report;
		struct ferry_v3d_submit_cl v3d_submit_cl;
		struct ferry_v3d_submit_tfu v3d_submit_tfu;
		struct ferry_v3d_submit_csd v3d_submit_csd;
		struct ferry_bo_import bo_import;
		struct ferry_timestamp_query timestamp_query;
		struct ferry_external_fence external_fence;
		struct ferry_bo_data bo_data;
		struct ferry_bo_map bo_map;
		struct ferry_fence_update fence_update;
		struct ferry_ring_create ring_create;
		struct ferry_ring_created ring_created;
		struct ferry_bo_create_batch bo_create_batch;
		struct ferry_bo_batch_created bo_batch_created;
	} u;
};

const char *ferry_msg_kind_name(enum ferry_msg_kind kind);

/* ---- codec ---- */

/* A growable byte buffer. Encoding appends one whole frame: u32 little-endian length, then the
 * FlatBuffer. */
struct ferry_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void ferry_buf_init(struct ferry_buf *b);
void ferry_buf_free(struct ferry_buf *b);
void ferry_buf_reset(struct ferry_buf *b);
/* Drop the first n bytes (after they were sent). */
void ferry_buf_consume(struct ferry_buf *b, size_t n);
/* Make room for extra more bytes after len. Returns 0 or -ENOMEM (b unchanged). */
int ferry_buf_reserve(struct ferry_buf *b, size_t extra);
/* Append n bytes. Returns 0 or -ENOMEM (b unchanged). */
int ferry_buf_append(struct ferry_buf *b, const void *data, size_t n);

/* Appends one frame for msg to out. Returns 0, -EINVAL (message not encodable: unknown kind,
 * string too long) or -EMSGSIZE (frame would exceed FERRY_MAX_FRAME_SIZE), -ENOMEM. On error out
 * is unchanged. The nr_* counts say how many elements to write (an array pointer may be NULL only
 * when its count is 0); they are not held to FERRY_MAX_SUBMIT_* here, only to the frame size: the
 * limits are the decoder's to enforce, and tests need to produce over-limit frames. A NULL
 * string encodes as absent (optional fields) or as "" (required ones: server, name, message,
 * text). */
int ferry_wire_encode(const struct ferry_msg *msg, struct ferry_buf *out);

/* Verifies (FlatBuffers verifier plus the structural rules of each message: required fields,
 * counts matching vector lengths, string lengths) and decodes one frame payload (the bytes after
 * the length prefix). payload must be 8-byte aligned. Strings and arrays in *msg point into
 * payload and are valid while it is. Returns 0, or -EBADMSG with *why set to a static reason.
 * nr_* counts are the vector lengths; an absent or empty array decodes as count 0 and pointer
 * NULL, an absent optional string (hello.token) as NULL; required strings are never NULL. why may
 * be NULL. */
int ferry_wire_decode(const void *payload, size_t len, struct ferry_msg *msg, const char **why);

/* Returns 0 if every fixed record (submit bo/cmd/reloc, fence ref, param) has the same bytes in
 * its C struct and in its ferry.fbs struct, field by field; -1 (and a note on stderr) if not.
 * The sizes are checked at compile time; this also checks field order. Run by the unit tests. */
int ferry_wire_check_layout(void);

/* ---- framing over a stream socket ---- */

/* Incremental reader for one connection; handles partial reads and SCM_RIGHTS fds. A frame's
 * fds ride on its first byte, so they are the ones received while that frame is read. */
struct ferry_frame_reader {
	uint8_t hdr[4];
	size_t hdr_got;
	uint32_t len;      /* payload length, once the header is complete */
	uint8_t *payload;  /* 8-byte aligned, capacity >= len */
	size_t payload_cap;
	size_t payload_got;
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds;
	uint32_t max_len;  /* FERRY_MAX_FRAME_SIZE unless lowered */
};

void ferry_frame_reader_init(struct ferry_frame_reader *r);
/* Closes any fds still held and frees the buffer. */
void ferry_frame_reader_fini(struct ferry_frame_reader *r);

/* Reads what is available from sock (which may be non-blocking).
 * Returns 1 when a whole frame is ready: r->payload / r->len, and r->fds / r->nfds (ownership of
 *   the fds passes to the caller, who must call ferry_frame_reader_next() before reading again);
 * 0 when more bytes are needed (EAGAIN on a non-blocking socket);
 * -EPIPE on orderly EOF at a frame boundary, -ECONNRESET on EOF inside a frame,
 * -EMSGSIZE when the header announces more than max_len (the connection is unusable after),
 * -EBADMSG when a frame carries more than FERRY_MAX_FRAME_FDS fds or truncated control data,
 * or another negative errno from recvmsg.
 * After a negative return the frame's fds are closed and the stream is out of step: close the
 * connection (after sending an ERROR, if the peer should learn why). */
int ferry_frame_read(int sock, struct ferry_frame_reader *r);
/* The same over a stream that carries no fds (a TLS session): read(arg, buf, len) returns the
 * bytes it put in buf (never more than len, which never reaches past the current frame), 0 at
 * EOF, -EAGAIN when nothing is there now, or another negative errno. Same returns and checks
 * (max_len, -EMSGSIZE) as ferry_frame_read. */
typedef long (*ferry_frame_read_fn)(void *arg, void *buf, size_t len);
int ferry_frame_read_from(struct ferry_frame_reader *r, ferry_frame_read_fn read, void *arg);
/* Forget the current frame (its fds must have been taken by the caller). */
void ferry_frame_reader_next(struct ferry_frame_reader *r);

/* Blocking send of one whole encoded frame (as produced by ferry_wire_encode) with fds attached
 * to its first byte. Retries on EINTR and partial writes; uses MSG_NOSIGNAL.
 * Returns 0 or a negative errno. */
int ferry_frame_send(int sock, const void *frame, size_t len, const int *fds, int nfds);

/* Non-blocking variant for servers: sends as much of frame as the socket takes. Returns the
 * number of bytes written (fds go with the first byte, so they are sent iff the result is > 0),
 * 0 on EAGAIN, or a negative errno. */
long ferry_frame_send_some(int sock, const void *frame, size_t len, const int *fds, int nfds);

#ifdef __cplusplus
}
#endif

#endif
