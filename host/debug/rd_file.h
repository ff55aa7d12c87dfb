/* freedreno's .rd capture format (Mesa redump.h): a stream of {u32 type, u32 size, payload}
 * sections, little-endian, optionally gzip-compressed. Reading (bounds-checked section by
 * section) and decoding the command streams it records. */
#ifndef FERRY_DEBUG_RD_FILE_H
#define FERRY_DEBUG_RD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rd_sect_type {
	RD_NONE = 0,
	RD_TEST = 1,
	RD_CMD = 2,
	RD_GPUADDR = 3,
	RD_CONTEXT = 4,
	RD_CMDSTREAM = 5,
	RD_CMDSTREAM_ADDR = 6,
	RD_PARAM = 7,
	RD_FLUSH = 8,
	RD_PROGRAM = 9,
	RD_VERT_SHADER = 10,
	RD_FRAG_SHADER = 11,
	RD_BUFFER_CONTENTS = 12,
	RD_GPU_ID = 13,
	RD_CHIP_ID = 14,
	RD_SHADER_LOG_BUFFER = 15,
	RD_CP_LOG_BUFFER = 16,
	RD_WRBUFFER = 17,
};

struct rd_section {
	uint32_t type;
	uint32_t size;
	const uint8_t *payload; /* size bytes, inside the reader's buffer */
	size_t offset;          /* of the section header in the file */
};

struct rd_reader {
	const uint8_t *data;
	size_t len;
	size_t pos;
};

static inline void rd_reader_init(struct rd_reader *rd, const uint8_t *data, size_t len)
{
	rd->data = data;
	rd->len = len;
	rd->pos = 0;
}

/* Next section: 1, 0 at a clean end, -1 (with err) for a section that runs past the end. The
 * {0xffffffff, 0xffffffff} padding headers writers emit are skipped. */
int rd_next_section(struct rd_reader *rd, struct rd_section *s, char *err, size_t err_len);

/* True if the bytes start like an .rd file: a first section of a type writers begin with
 * (GPU_ID, CHIP_ID, CMD, TEST, GPUADDR) whose size fits. */
bool rd_detect(const uint8_t *data, size_t len);

/* True if the bytes are gzip-compressed (magic 1f 8b). */
bool rd_is_gzip(const uint8_t *data, size_t len);

/* Inflates a gzip stream into a new buffer (at most max_out bytes, to refuse bombs). Returns 0, or
 * -1 with err (corrupt/truncated stream, too large, ENOMEM, built without zlib). */
int rd_gunzip(const uint8_t *in, size_t len, size_t max_out, uint8_t **out, size_t *out_len, char *err,
	      size_t err_len);

struct rd_decode_options {
	bool follow_ibs;
	bool list_buffers; /* print every GPUADDR of a submit */
};

/* Decodes every RD_CMDSTREAM_ADDR of the file against the buffers logged before it (submits are
 * delimited as cffdump does: the first GPUADDR after a CMDSTREAM_ADDR starts a new submit).
 * Returns 0, or -1 with err for a malformed file (output up to that point is kept). */
int rd_decode(FILE *out, const uint8_t *data, size_t len, const struct rd_decode_options *opts, char *err,
	      size_t err_len);

#endif
