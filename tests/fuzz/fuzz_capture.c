/* libFuzzer target for the capture readers: a ferry session file (records, their wire frames and
 * BO snapshots), a freedreno .rd file decoded with IBs followed, or either gzip-compressed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rd_file.h"
#include "ferry/session_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_session(const uint8_t *data, size_t size)
{
	struct session_reader r;
	struct session_header hdr;
	char err[256];
	if (session_reader_init(&r, data, size, &hdr, err, sizeof(err)) != 0) {
		if (!err[0])
			abort();
		return;
	}
	if (!memchr(hdr.gpu, 0, sizeof(hdr.gpu)))
		abort();
	struct session_record rec;
	int n;
	while ((n = session_next_record(&r, &rec, err, sizeof(err))) == 1) {
		if (rec.payload < data || rec.len > size || rec.payload + rec.len > data + size)
			abort();
		if (rec.type == SESSION_REC_FRAME) {
			/* What a replay does with a frame record: decode it (frames want 8-byte alignment,
			 * which the reader promises only for an aligned buffer). */
			void *copy = aligned_alloc(8, (rec.len + 8) & ~(size_t)7);
			if (!copy)
				abort();
			memcpy(copy, rec.payload, rec.len);
			struct ferry_msg msg;
			const char *why = NULL;
			if (rec.len <= FERRY_MAX_FRAME_SIZE && ferry_wire_decode(copy, rec.len, &msg, &why) != 0 && !why)
				abort();
			free(copy);
		} else if (rec.type == SESSION_REC_BO_SNAPSHOT) {
			struct session_snapshot snap;
			if (session_parse_snapshot(&rec, &snap, err, sizeof(err)) == 0 &&
			    (snap.data < rec.payload || snap.data + snap.len > rec.payload + rec.len))
				abort();
		}
	}
	if (n < 0 && !err[0])
		abort();
}

static void read_rd(const uint8_t *data, size_t size)
{
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		abort();
	char err[256] = "";
	struct rd_decode_options opts = { .follow_ibs = true, .list_buffers = true };
	if (rd_decode(out, data, size, &opts, err, sizeof(err)) != 0 && !err[0])
		abort();
	fclose(out);
	/* The section walk on its own, as `ferry decode` starts it. */
	(void)rd_detect(data, size);
	struct rd_reader rd;
	struct rd_section s;
	rd_reader_init(&rd, data, size);
	while (rd_next_section(&rd, &s, err, sizeof(err)) == 1)
		if (s.payload < data || s.payload + s.size > data + size)
			abort();
}

static void read_any(const uint8_t *data, size_t size)
{
	if (session_detect(data, size))
		read_session(data, size);
	else
		read_rd(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Session files are read from an 8-byte aligned buffer, as the tools' file loader gives. */
	uint8_t *copy = aligned_alloc(8, (size + 8) & ~(size_t)7);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	if (rd_is_gzip(copy, size)) {
		uint8_t *raw = NULL;
		size_t raw_len = 0;
		char err[256] = "";
		if (rd_gunzip(copy, size, 1u << 22, &raw, &raw_len, err, sizeof(err)) == 0) {
			read_any(raw, raw_len);
			free(raw);
		} else if (!err[0]) {
			abort();
		}
	} else {
		read_any(copy, size);
	}
	free(copy);
	return 0;
}
