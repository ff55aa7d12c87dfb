/* ferry over virtio-gpu without blob resources (QEMU 7.2's in-process renderer, docs/vm.md): the
 * capset content that announces ferry, the packets an EXECBUFFER carries, and the layout of the
 * guest-backed reply ring. Guest transport and VMM glue both read this header. */
#ifndef FERRY_VIRTIO_H
#define FERRY_VIRTIO_H

#include <stdint.h>

/* The capset QEMU 7.2 passes through to the guest (VIRGL2; VIRGL too, with the same content), so
 * a guest finds ferry by the magic at its start. */
#define FERRY_VIRTIO_CAPSET_ID      2u
/* Where the VMM offers context types (CONTEXT_INIT), a ferry context is made with this capset:
 * virtio-gpu's DRM native-context capset, which newer QEMU passes through (docs/vm.md). */
#define FERRY_VIRTIO_CAPSET_DRM     6u
#define FERRY_VIRTIO_CAPSET_VERSION 1u
#define FERRY_VIRTIO_CAPS_MAGIC     0x59525246u /* "FRRY" */
#define FERRY_VIRTIO_VERSION        1u

struct ferry_virtio_caps {
	uint32_t magic;
	uint32_t version;       /* FERRY_VIRTIO_VERSION */
	uint32_t wire_version;  /* FERRY_PROTOCOL_VERSION of the host */
	uint32_t max_execbuffer; /* the most bytes one EXECBUFFER may carry */
	char device[32];        /* e.g. "sim a630", NUL-terminated */
};

/* The guest kernel needs a control-queue slot per page of an EXECBUFFER; past ~1 MiB QEMU 7.2's
 * device stops (reference §8.2). Frames longer than this span several EXECBUFFERs. */
#define FERRY_VIRTIO_MAX_EXECBUFFER (1000u * 1024u)

/* An EXECBUFFER (a multiple of 4 bytes: QEMU passes whole dwords) is a sequence of packets, each
 * a header and len bytes padded to a multiple of 4, read in order. The first packet on a virtio-gpu context must be HELLO; a context that starts
 * otherwise (a virgl command stream) is refused and ignored from then on. */
enum ferry_virtio_op {
	FERRY_VIRTIO_HELLO = 1,      /* struct ferry_virtio_hello */
	FERRY_VIRTIO_STREAM = 2,     /* bytes of the ferry frame stream (docs/protocol.md), any split */
	FERRY_VIRTIO_BIND = 3,       /* struct ferry_virtio_bind: before the frame that needs it */
	FERRY_VIRTIO_NOTIFY = 4,     /* struct ferry_virtio_notify: this EXECBUFFER's fence waits */
	FERRY_VIRTIO_KICK = 5,       /* struct ferry_virtio_kick: the doorbell of a submit ring */
};

struct ferry_virtio_packet {
	uint32_t op;
	uint32_t len; /* data bytes, without the padding */
};

static inline uint32_t ferry_virtio_padded(uint32_t len)
{
	return (len + 3u) & ~3u;
}

/* The reply ring: a guest-backed resource attached to the context, FERRY_VIRTIO_RING_HEADER
 * bytes of header then a power-of-two data area. */
struct ferry_virtio_hello {
	uint32_t magic;         /* FERRY_VIRTIO_CAPS_MAGIC */
	uint32_t version;       /* FERRY_VIRTIO_VERSION */
	uint32_t ring_res;      /* resource id of the reply ring */
	uint32_t ring_size;     /* bytes of the ring's data area */
};

/* What a resource stands for, by the ferry ids of the frame that follows: the fence page of
 * context ctx_id (before its ContextCreate), the pages of BO bo_id (before its BoCreate), or the
 * submit ring of context ctx_id (before its RingCreate: FERRY_RING_HDR_SIZE + data_size bytes,
 * ferry/submit_ring.h). The resource must be attached to this virtio-gpu context and at least
 * as large. */
enum ferry_virtio_bind_kind {
	FERRY_VIRTIO_BIND_FENCE_PAGE = 1,
	FERRY_VIRTIO_BIND_BO = 2,
	FERRY_VIRTIO_BIND_RING = 3,
};

struct ferry_virtio_bind {
	uint32_t kind;
	uint32_t res;
	uint32_t ctx_id;
	uint32_t bo_id;
};

/* The fence of the EXECBUFFER carrying this completes once the ring holds bytes past read_pos
 * or the ring's page_gen is not page_gen (the guest passes what it last saw), or as soon as a
 * later fence of the device completes (virtio-gpu fences complete in order): the guest sleeps
 * on that fence's fd and looks again. */
struct ferry_virtio_notify {
	uint64_t read_pos;
	uint32_t page_gen;
	uint32_t pad;
};

/* The guest published records in the submit ring of ferry context ctx_id (every ring of this
 * virtio-gpu context: FERRY_VIRTIO_KICK_ALL) after the host asked to be woken (the ring's wakeup
 * word): the host looks at that ring. Needs no fence. */
#define FERRY_VIRTIO_KICK_ALL 0xffffffffu
struct ferry_virtio_kick {
	uint32_t ctx_id;
	uint32_t pad;
};

#define FERRY_VIRTIO_RING_HEADER 64u
#define FERRY_VIRTIO_RING_MAGIC  0x474e5246u /* "FRNG" */

/* The ring's header. The host writes data, then write_pos; the guest reads data up to
 * write_pos, then sets read_pos (the host checks it: never behind write_pos by more than the
 * ring, never ahead). page_gen is bumped after the host copied a newer fence page of the
 * client's contexts into their bound resources. */
struct ferry_virtio_ring {
	uint32_t magic;
	uint32_t size;
	uint64_t write_pos;
	uint64_t read_pos;
	uint32_t page_gen;
	uint32_t error;         /* non-zero: the host gave up on this context (a negative errno) */
};

_Static_assert(sizeof(struct ferry_virtio_ring) <= FERRY_VIRTIO_RING_HEADER, "ring header fits");

#endif
