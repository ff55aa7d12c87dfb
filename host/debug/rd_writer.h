/* Writing freedreno .rd captures (the format of rd_file.h) into memory: one section at a time,
 * with helpers for the sections a submit needs, and optional gzip of a finished capture. */
#ifndef FERRY_DEBUG_RD_WRITER_H
#define FERRY_DEBUG_RD_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <ferry/wire.h>

/* One {u32 type, u32 size, payload} section appended to out. 0 or -ENOMEM / -EMSGSIZE (payload
 * over 4 GiB). */
int rd_write_section(struct ferry_buf *out, uint32_t type, const void *payload, size_t size);
/* RD_GPU_ID (u32) then RD_CHIP_ID (u64): what a file starts with. chip_id 0 writes the gpu_id
 * packed as a chip id (core.major.minor.patch = gpu_id/100, gpu_id/10%10, gpu_id%10, 0), as
 * newer readers look for RD_CHIP_ID first. */
int rd_write_device(struct ferry_buf *out, uint32_t gpu_id, uint64_t chip_id);
/* RD_GPUADDR in the 12-byte form {iova_lo, size, iova_hi}, then, when contents is non-NULL,
 * RD_BUFFER_CONTENTS with len bytes (len <= size). */
int rd_write_buffer(struct ferry_buf *out, uint64_t iova, uint32_t size, const void *contents, size_t len);
/* RD_CMDSTREAM_ADDR {iova_lo, size in dwords, iova_hi}. */
int rd_write_cmdstream(struct ferry_buf *out, uint64_t iova, uint32_t size_dwords);
/* RD_CMD: ASCII text, NUL-terminated and padded to 4 bytes as the kernel does. */
int rd_write_cmd(struct ferry_buf *out, const char *text);

/* gzip-compresses in (one gzip member, as zlib's gzopen writes). 0, -ENOMEM, or -ENOTSUP when
 * built without zlib. *out is malloc'd. */
int rd_gzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len);

#endif
