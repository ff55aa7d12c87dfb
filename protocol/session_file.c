/* The .ferrycap session format: writer (records appended to a buffer) and bounds-checked reader.
 * All integers little-endian; records start 8-byte aligned so frames decode in place. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ferry/session_file.h"

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

int session_write_header(struct ferry_buf *out, uint32_t family, const char *gpu)
{
	uint8_t hdr[SESSION_HEADER_SIZE] = { 0 };
	memcpy(hdr, SESSION_MAGIC, 8);
	put_u32(hdr + 8, SESSION_VERSION);
	put_u32(hdr + 12, family);
	size_t n = strnlen(gpu ? gpu : "", 16);
	memcpy(hdr + 16, gpu ? gpu : "", n);
	return ferry_buf_append(out, hdr, sizeof(hdr));
}

static int write_record_parts(struct ferry_buf *out, uint32_t type, uint32_t flags, const void *a, size_t alen,
			      const void *b, size_t blen)
{
	if (alen > SIZE_MAX / 2 || blen > SIZE_MAX / 2 - alen - 32)
		return -EMSGSIZE;
	size_t len = alen + blen;
	size_t pad = (8 - (len & 7)) & 7;
	int ret = ferry_buf_reserve(out, SESSION_RECORD_HDR + len + pad);
	if (ret < 0)
		return ret;
	uint8_t hdr[SESSION_RECORD_HDR];
	put_u32(hdr, type);
	put_u32(hdr + 4, flags);
	put_u64(hdr + 8, len);
	static const uint8_t zeros[8];
	ferry_buf_append(out, hdr, sizeof(hdr));
	if (alen)
		ferry_buf_append(out, a, alen);
	if (blen)
		ferry_buf_append(out, b, blen);
	if (pad)
		ferry_buf_append(out, zeros, pad);
	return 0;
}

int session_write_record(struct ferry_buf *out, uint32_t type, uint32_t flags, const void *payload, size_t len)
{
	return write_record_parts(out, type, flags, payload, len, NULL, 0);
}

int session_write_frame_payload(struct ferry_buf *out, uint32_t flags, const void *payload, size_t len)
{
	return write_record_parts(out, SESSION_REC_FRAME, flags, payload, len, NULL, 0);
}

int session_write_msg(struct ferry_buf *out, uint32_t flags, const struct ferry_msg *msg, struct ferry_buf *scratch)
{
	ferry_buf_reset(scratch);
	int ret = ferry_wire_encode(msg, scratch);
	if (ret < 0)
		return ret;
	/* The encoder's frame is the u32 length prefix and the payload. */
	return session_write_frame_payload(out, flags, scratch->data + 4, scratch->len - 4);
}

int session_write_snapshot(struct ferry_buf *out, uint32_t flags, uint32_t ctx_id, uint32_t bo_id, uint64_t iova,
			   uint64_t offset, const void *data, size_t len)
{
	uint8_t hdr[SESSION_SNAP_HDR];
	put_u32(hdr, ctx_id);
	put_u32(hdr + 4, bo_id);
	put_u64(hdr + 8, iova);
	put_u64(hdr + 16, offset);
	return write_record_parts(out, SESSION_REC_BO_SNAPSHOT, flags, hdr, sizeof(hdr), data, len);
}

bool session_detect(const uint8_t *data, size_t len)
{
	return len >= 8 && memcmp(data, SESSION_MAGIC, 8) == 0;
}

int session_reader_init(struct session_reader *r, const uint8_t *data, size_t len, struct session_header *hdr,
			char *err, size_t err_len)
{
	if (!session_detect(data, len)) {
		snprintf(err, err_len, "not a ferry session capture (no %s magic)", SESSION_MAGIC);
		return -1;
	}
	if (len < SESSION_HEADER_SIZE) {
		snprintf(err, err_len, "truncated header (%zu of %u bytes)", len, SESSION_HEADER_SIZE);
		return -1;
	}
	hdr->version = get_u32(data + 8);
	hdr->family = get_u32(data + 12);
	memcpy(hdr->gpu, data + 16, 16);
	hdr->gpu[16] = '\0';
	if (hdr->version != SESSION_VERSION) {
		snprintf(err, err_len, "unsupported session version %u (this reader knows %u)", hdr->version,
			 SESSION_VERSION);
		return -1;
	}
	r->data = data;
	r->len = len;
	r->pos = SESSION_HEADER_SIZE;
	return 0;
}

int session_next_record(struct session_reader *r, struct session_record *rec, char *err, size_t err_len)
{
	if (r->pos == r->len)
		return 0;
	size_t left = r->len - r->pos;
	if (left < SESSION_RECORD_HDR) {
		snprintf(err, err_len, "truncated record header at offset %zu (%zu bytes left)", r->pos, left);
		return -1;
	}
	const uint8_t *p = r->data + r->pos;
	uint64_t len = get_u64(p + 8);
	uint64_t padded = len + ((8 - (len & 7)) & 7);
	if (len > left - SESSION_RECORD_HDR || padded > left - SESSION_RECORD_HDR) {
		snprintf(err, err_len, "truncated record at offset %zu: %llu bytes announced, %zu left", r->pos,
			 (unsigned long long)len, left - SESSION_RECORD_HDR);
		return -1;
	}
	rec->type = get_u32(p);
	rec->flags = get_u32(p + 4);
	if (rec->type < SESSION_REC_FRAME || rec->type > SESSION_REC_NOTE) {
		snprintf(err, err_len, "corrupt record at offset %zu: unknown type %u", r->pos, rec->type);
		return -1;
	}
	rec->payload = p + SESSION_RECORD_HDR;
	rec->len = (size_t)len;
	rec->offset = r->pos;
	r->pos += SESSION_RECORD_HDR + (size_t)padded;
	return 1;
}

int session_parse_snapshot(const struct session_record *rec, struct session_snapshot *snap, char *err,
			   size_t err_len)
{
	if (rec->type != SESSION_REC_BO_SNAPSHOT || rec->len < SESSION_SNAP_HDR) {
		snprintf(err, err_len, "corrupt BO snapshot at offset %zu (%zu bytes)", rec->offset, rec->len);
		return -1;
	}
	snap->ctx_id = get_u32(rec->payload);
	snap->bo_id = get_u32(rec->payload + 4);
	snap->iova = get_u64(rec->payload + 8);
	snap->offset = get_u64(rec->payload + 16);
	snap->data = rec->payload + SESSION_SNAP_HDR;
	snap->len = rec->len - SESSION_SNAP_HDR;
	return 0;
}
