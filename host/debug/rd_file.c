/* .rd section reader, format detection and gzip inflation (zlib when the build has it). */
#include <stdlib.h>
#include <string.h>

#include "rd_file.h"

#ifdef FERRY_HAVE_ZLIB
#include <zlib.h>
#endif

static uint32_t rd_le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int rd_next_section(struct rd_reader *rd, struct rd_section *s, char *err, size_t err_len)
{
	for (;;) {
		if (rd->pos == rd->len)
			return 0;
		if (rd->len - rd->pos < 8) {
			snprintf(err, err_len, "truncated section header at offset %zu (%zu bytes left)", rd->pos,
				 rd->len - rd->pos);
			return -1;
		}
		const uint8_t *h = rd->data + rd->pos;
		uint32_t type = rd_le32(h), size = rd_le32(h + 4);
		if (type == 0xffffffffu && size == 0xffffffffu) {
			rd->pos += 8;
			continue;
		}
		if (size > rd->len - rd->pos - 8) {
			snprintf(err, err_len, "section type %u at offset %zu claims %u bytes, only %zu remain", type,
				 rd->pos, size, rd->len - rd->pos - 8);
			return -1;
		}
		*s = (struct rd_section){ .type = type, .size = size, .payload = h + 8, .offset = rd->pos };
		rd->pos += 8 + (size_t)size;
		return 1;
	}
}

bool rd_detect(const uint8_t *data, size_t len)
{
	size_t pos = 0;
	/* Skip leading padding headers as the reader does. */
	while (len - pos >= 8 && rd_le32(data + pos) == 0xffffffffu && rd_le32(data + pos + 4) == 0xffffffffu)
		pos += 8;
	if (len - pos < 8)
		return false;
	uint32_t type = rd_le32(data + pos), size = rd_le32(data + pos + 4);
	bool starter = type == RD_GPU_ID || type == RD_CHIP_ID || type == RD_CMD || type == RD_TEST ||
		       type == RD_GPUADDR;
	return starter && size <= len - pos - 8 && size <= 4096;
}

bool rd_is_gzip(const uint8_t *data, size_t len)
{
	return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

int rd_gunzip(const uint8_t *in, size_t len, size_t max_out, uint8_t **out, size_t *out_len, char *err,
	      size_t err_len)
{
#ifdef FERRY_HAVE_ZLIB
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	/* 16 + MAX_WBITS: gzip wrapper only. */
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		snprintf(err, err_len, "zlib init failed");
		return -1;
	}
	size_t cap = len < (1u << 20) ? (1u << 20) : len * 4;
	if (cap > max_out)
		cap = max_out;
	uint8_t *buf = malloc(cap ? cap : 1);
	size_t used = 0;
	int ret = Z_OK;
	size_t in_pos = 0;
	while (buf) {
		/* zlib counts in uInt: feed and drain in chunks that fit. */
		if (zs.avail_in == 0 && in_pos < len) {
			size_t chunk = len - in_pos < (1u << 30) ? len - in_pos : (1u << 30);
			zs.next_in = (Bytef *)(uintptr_t)(in + in_pos);
			zs.avail_in = (uInt)chunk;
			in_pos += chunk;
		}
		if (used == cap) {
			if (cap >= max_out) {
				snprintf(err, err_len, "decompressed data exceeds %zu bytes", max_out);
				break;
			}
			size_t ncap = cap * 2 > max_out ? max_out : cap * 2;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		size_t room = cap - used < (1u << 30) ? cap - used : (1u << 30);
		zs.next_out = buf + used;
		zs.avail_out = (uInt)room;
		ret = inflate(&zs, Z_NO_FLUSH);
		used += room - zs.avail_out;
		if (ret == Z_STREAM_END) {
			inflateEnd(&zs);
			*out = buf;
			*out_len = used;
			return 0;
		}
		if (ret == Z_BUF_ERROR && zs.avail_in == 0 && in_pos == len) {
			snprintf(err, err_len, "truncated gzip stream");
			break;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			snprintf(err, err_len, "corrupt gzip stream (%s)", zs.msg ? zs.msg : "inflate error");
			break;
		}
	}
	if (!buf)
		snprintf(err, err_len, "out of memory inflating gzip stream");
	free(buf);
	inflateEnd(&zs);
	return -1;
#else
	(void)in;
	(void)len;
	(void)max_out;
	(void)out;
	(void)out_len;
	snprintf(err, err_len, "gzip-compressed file, but ferry was built without zlib");
	return -1;
#endif
}
