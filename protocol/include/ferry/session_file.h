/* ferry's own capture format (".ferrycap"): a header, then records — the wire frames of a
 * context's session (as the guest sent them, or made by the host for state that existed before
 * the capture began) and snapshots of BO contents. Family-independent: a replay feeds the frames
 * back to a ferryd and writes the snapshots into the BOs. Layout in docs/debugging.md. */
#ifndef FERRY_DEBUG_SESSION_FILE_H
#define FERRY_DEBUG_SESSION_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ferry/wire.h>

#define SESSION_MAGIC       "FERRYCAP"
#define SESSION_VERSION     1u
#define SESSION_HEADER_SIZE 32u
#define SESSION_RECORD_HDR  16u

enum session_record_type {
	SESSION_REC_FRAME = 1,       /* one wire frame payload (FlatBuffer, no length prefix) */
	SESSION_REC_BO_SNAPSHOT = 2, /* u32 ctx_id, u32 bo_id, u64 iova, u64 offset, bytes */
	SESSION_REC_NOTE = 3,        /* text lines "key: value" */
};
/* FRAME flags */
#define SESSION_FRAME_SYNTH       (1u << 0) /* made by the host (state from before the capture) */
/* BO_SNAPSHOT flags */
#define SESSION_SNAP_POST_MORTEM  (1u << 0) /* read when the fault was reported, not at submit */
#define SESSION_SNAP_HDR          24u

struct session_header {
	uint32_t version;
	uint32_t family; /* enum ferry_family */
	char gpu[17];    /* device name, NUL-terminated */
};

struct session_record {
	uint32_t type, flags;
	const uint8_t *payload; /* inside the reader's buffer: 8-byte aligned if the buffer is */
	size_t len;
	size_t offset;          /* of the record header in the file */
};

struct session_snapshot {
	uint32_t ctx_id, bo_id;
	uint64_t iova, offset;
	const uint8_t *data;
	size_t len;
};

struct session_reader {
	const uint8_t *data;
	size_t len, pos;
};

/* --- writing (into memory) --- */
int session_write_header(struct ferry_buf *out, uint32_t family, const char *gpu);
int session_write_record(struct ferry_buf *out, uint32_t type, uint32_t flags, const void *payload, size_t len);
/* A frame payload as received (without its 4-byte length prefix). */
int session_write_frame_payload(struct ferry_buf *out, uint32_t flags, const void *payload, size_t len);
/* Encodes msg and writes it as a FRAME record (scratch is reused between calls). */
int session_write_msg(struct ferry_buf *out, uint32_t flags, const struct ferry_msg *msg, struct ferry_buf *scratch);
int session_write_snapshot(struct ferry_buf *out, uint32_t flags, uint32_t ctx_id, uint32_t bo_id, uint64_t iova,
			   uint64_t offset, const void *data, size_t len);

/* --- reading --- */
/* True if the bytes start with the session magic. */
bool session_detect(const uint8_t *data, size_t len);
/* Checks the header and positions the reader at the first record. 0 or -1 with err. */
int session_reader_init(struct session_reader *r, const uint8_t *data, size_t len, struct session_header *hdr,
			char *err, size_t err_len);
/* 1 and the next record, 0 at a clean end, -1 with err for a record that runs past the end or
 * has an unknown type. */
int session_next_record(struct session_reader *r, struct session_record *rec, char *err, size_t err_len);
/* Splits a BO_SNAPSHOT record. 0 or -1 with err (too short). */
int session_parse_snapshot(const struct session_record *rec, struct session_snapshot *snap, char *err,
			   size_t err_len);

#endif
