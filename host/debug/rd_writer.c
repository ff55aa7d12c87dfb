/* The .rd writer: sections appended to a growable buffer (little-endian, no padding between
 * sections, as Mesa's rd_write_section), and gzip of a whole capture through zlib. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef FERRY_HAVE_ZLIB
#include <zlib.h>
#endif

#include "rd_file.h"
#include "rd_writer.h"

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

int rd_write_section(struct ferry_buf *out, uint32_t type, const void *payload, size_t size)
{
	if (size > UINT32_MAX - 8)
		return -EMSGSIZE;
	int ret = ferry_buf_reserve(out, 8 + size);
	if (ret < 0)
		return ret;
	uint8_t hdr[8];
	put_u32(hdr, type);
	put_u32(hdr + 4, (uint32_t)size);
	ferry_buf_append(out, hdr, sizeof(hdr));
	if (size)
		ferry_buf_append(out, payload, size);
	return 0;
}

int rd_write_device(struct ferry_buf *out, uint32_t gpu_id, uint64_t chip_id)
{
	if (!chip_id)
		chip_id = ((uint64_t)(gpu_id / 100 % 10) << 24) | ((uint64_t)(gpu_id / 10 % 10) << 16) |
			  ((uint64_t)(gpu_id % 10) << 8);
	uint8_t id[4], chip[8];
	put_u32(id, gpu_id);
	put_u32(chip, (uint32_t)chip_id);
	put_u32(chip + 4, (uint32_t)(chip_id >> 32));
	int ret = rd_write_section(out, RD_GPU_ID, id, sizeof(id));
	return ret < 0 ? ret : rd_write_section(out, RD_CHIP_ID, chip, sizeof(chip));
}

int rd_write_buffer(struct ferry_buf *out, uint64_t iova, uint32_t size, const void *contents, size_t len)
{
	if (len > size)
		return -EINVAL;
	uint8_t addr[12];
	put_u32(addr, (uint32_t)iova);
	put_u32(addr + 4, size);
	put_u32(addr + 8, (uint32_t)(iova >> 32));
	int ret = rd_write_section(out, RD_GPUADDR, addr, sizeof(addr));
	if (ret == 0 && contents)
		ret = rd_write_section(out, RD_BUFFER_CONTENTS, contents, len);
	return ret;
}

int rd_write_cmdstream(struct ferry_buf *out, uint64_t iova, uint32_t size_dwords)
{
	uint8_t cs[12];
	put_u32(cs, (uint32_t)iova);
	put_u32(cs + 4, size_dwords);
	put_u32(cs + 8, (uint32_t)(iova >> 32));
	return rd_write_section(out, RD_CMDSTREAM_ADDR, cs, sizeof(cs));
}

int rd_write_cmd(struct ferry_buf *out, const char *text)
{
	size_t len = strlen(text) + 1;
	size_t padded = (len + 3) & ~(size_t)3;
	char buf[256];
	if (padded > sizeof(buf))
		return -EINVAL;
	memset(buf, 0, padded);
	memcpy(buf, text, len);
	return rd_write_section(out, RD_CMD, buf, padded);
}

int rd_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
#ifdef FERRY_HAVE_ZLIB
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	/* 16 + MAX_WBITS: a gzip wrapper, which rd_gunzip and libarchive expect. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	uLong bound = deflateBound(&zs, (uLong)len);
	uint8_t *buf = malloc(bound);
	if (!buf || (size_t)(uInt)len != len || bound > UINT32_MAX) {
		free(buf);
		deflateEnd(&zs);
		return buf ? -EMSGSIZE : -ENOMEM;
	}
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = buf;
	zs.avail_out = (uInt)bound;
	int ret = deflate(&zs, Z_FINISH);
	if (ret != Z_STREAM_END) {
		free(buf);
		deflateEnd(&zs);
		return -EIO;
	}
	*out_len = zs.total_out;
	*out = buf;
	deflateEnd(&zs);
	return 0;
#else
	(void)in;
	(void)len;
	(void)out;
	(void)out_len;
	return -ENOTSUP;
#endif
}
