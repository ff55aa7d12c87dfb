/* Keeping a BO's bytes in step across a connection that shares no memory (tcp): the diff that
 * turns "pages changed since the peer last saw them" into BoData frames, and the checked apply
 * of a received BoData. Shared by ferryd's remote layer and the guest's remote transport. */
#ifndef FERRY_BO_MIRROR_H
#define FERRY_BO_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include "ferry/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most bytes (before compression) one BoData frame carries: the ranges' data plus their records
 * stay well under FERRY_MAX_FRAME_SIZE. */
#define FERRY_BO_DATA_FRAME_RAW (960u * 1024u)
/* A receiver refuses a BoData whose raw_len is larger (bounds decompression). */
#define FERRY_BO_DATA_MAX_RAW (1u << 20)
/* Unchanged runs shorter than this between two changed ones are sent rather than cut: a range
 * record costs 16 bytes. */
#define FERRY_BO_DIFF_GAP 32u
/* Compress a frame's bytes when there are at least this many and zstd saves >= 10%. */
#define FERRY_BO_ZSTD_MIN 512u

/* Bytes that crossed one way: raw = BoData payload bytes before compression, wire = whole
 * frames as sent or received (BoData and every other frame). */
struct ferry_wire_counters {
	uint64_t frames;       /* all frames */
	uint64_t bytes;        /* all frames' bytes, length prefix included */
	uint64_t bo_data_frames;
	uint64_t bo_data_raw;  /* BoData range bytes before compression */
	uint64_t bo_data_wire; /* BoData data bytes as sent (compressed or not) */
};

/* Takes one encoded frame (length prefix included); 0 or a negative errno, which stops the push. */
typedef int (*ferry_frame_sink)(void *arg, const void *frame, size_t len);

/* Sends, as BoData frames (seq as given) through sink, every byte range where cur differs from
 * snap (both size bytes), copying into snap the ranges of each frame the sink took (a frame it
 * refused is found different again by the next push). Pages are compared first, a
 * differing page is narrowed to exact ranges, and ranges closer than FERRY_BO_DIFF_GAP are
 * coalesced. Frames carry at most FERRY_BO_DATA_FRAME_RAW raw bytes; zstd level 1 is used when it
 * pays. Counts what it sends in *tx (may be NULL). Returns 0 or a negative errno. */
int ferry_bo_mirror_push(uint32_t ctx_id, uint32_t bo_id, uint32_t seq, const uint8_t *cur, uint8_t *snap,
			 uint64_t size, ferry_frame_sink sink, void *arg, struct ferry_wire_counters *tx);

/* The same for part of the BO: compares whole pages from the page holding start_off, about
 * budget bytes of them (rounded up to a page; a changed byte, which is also sent, counts as 4
 * compared ones; UINT64_MAX: no limit), and sets *next (may be NULL) to where the next
 * slice starts: size when the BO is done. Ranges are cut at the slice's end, so a push done in
 * slices sends the same bytes as one push, in a few more frames. Lets a server bound the work
 * one client's BO costs per turn (ferryd: FERRYD_MIRROR_SLICE_BYTES). */
int ferry_bo_mirror_push_slice(uint32_t ctx_id, uint32_t bo_id, uint32_t seq, const uint8_t *cur, uint8_t *snap,
			       uint64_t size, uint64_t start_off, uint64_t budget, ferry_frame_sink sink, void *arg,
			       struct ferry_wire_counters *tx, uint64_t *next);

/* Applies a decoded BoData to dst (size bytes) and, when not NULL, to snap (same size): every
 * range checked against size (overflow-safe), compressed data bounded by raw_len and
 * FERRY_BO_DATA_MAX_RAW. Nothing is written unless the whole message is valid. Returns 0, or
 * -EINVAL / -EBADMSG / -ENOMEM with *why set. */
int ferry_bo_mirror_apply(const struct ferry_bo_data *d, uint8_t *dst, uint8_t *snap, uint64_t size,
			  const char **why);

#ifdef __cplusplus
}
#endif

#endif
