/* Broadcom V3D 4.2 / 7.1 control-list decoder: a list (or a chain of lists) in known buffers to
 * CLIF-like text — buffers named by their GPU offsets ("@buffer CL_0x60000"), one line per packet
 * with its fields as `name = value`, addresses as `[buffer + 0xoff]` — following branches,
 * sub-lists, generic tile lists and GL shader state records into buffers whose contents are
 * known. Also the TFU and CSD register sets of a submit. Reads untrusted captures: never reads
 * outside a buffer's contents, bounds nesting and total work, reports cycles. */
#ifndef FERRY_DEBUG_V3D_DECODE_H
#define FERRY_DEBUG_V3D_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ferry/hw/v3d_cl.h" /* struct v3d_tfu_regs */

/* A buffer the decoder knows, for naming addresses and, with contents, for following lists. */
struct v3d_decode_buffer {
	uint32_t addr;         /* GPU address of its first byte */
	uint32_t size;         /* bytes it spans (addr + size may reach 2^32, not beyond) */
	const char *name;      /* shown as "<name>_0x<addr>" (CLIF style); NULL: "buffer" */
	const void *contents;  /* optional: bytes from addr on */
	uint32_t contents_len; /* bytes at contents (may be less than size: the rest is unknown) */
};

struct v3d_decode_options {
	int ver;                /* 42 or 71 */
	const struct v3d_decode_buffer *buffers;
	size_t nr_buffers;
	bool follow;            /* decode branch / sub-list / tile-list targets and shader records */
	unsigned max_depth;     /* sub-list nesting followed below the top; 0 means 4 */
	uint64_t max_bytes;     /* packet bytes decoded over all lists; 0 means 1 << 24 */
	uint32_t max_lists;     /* list segments (a start, a branch target...) decoded; 0 means 4096 */
};

struct v3d_decode_stats {
	uint64_t packets;          /* packets decoded */
	uint64_t lists;            /* list segments decoded (the top one, each branch/sub-list target) */
	uint64_t unknown;          /* lists stopped at an opcode the version does not have */
	uint64_t truncated;        /* lists stopped at a packet longer than the bytes known */
	uint64_t cycles;           /* branches back into a list being executed: reported, not followed */
	uint64_t unavailable;      /* targets / records outside every buffer with contents */
	uint64_t records;          /* shader state records decoded */
	bool budget_exhausted;     /* max_bytes or max_lists reached: output stopped early */
};

/* Decodes the list that starts at `start` in one of opts->buffers (with contents). `end` is the
 * address the CLE stops at (the submit's cl end), 0 to stop at HALT or where the known contents
 * end. stats may be NULL. Returns 0, -1 if writing to out failed, -2 for bad options (version,
 * start not in a buffer with contents: a line says why). */
int v3d_decode_cl(FILE *out, const struct v3d_decode_options *opts, uint32_t start, uint32_t end,
		  struct v3d_decode_stats *stats);

/* Prints every register with its fields and addresses annotated. Returns 0 or -1 (write error). */
int v3d_decode_tfu(FILE *out, const struct v3d_decode_options *opts, const struct v3d_tfu_regs *regs);
/* The seven CSD cfg words of a DRM_IOCTL_V3D_SUBMIT_CSD. Returns 0 or -1 (write error). */
int v3d_decode_csd(FILE *out, const struct v3d_decode_options *opts, const uint32_t cfg[7]);

/* The buffer of the table that holds addr, or NULL. */
const struct v3d_decode_buffer *v3d_decode_find_buffer(const struct v3d_decode_buffer *bufs, size_t nr,
						       uint32_t addr);
/* "CL_0x60000" for a buffer. */
void v3d_decode_buffer_name(char *buf, size_t len, const struct v3d_decode_buffer *b);
/* "[CL_0x60000 + 0x10]" or "0x00001234" outside every buffer (0 prints as 0x00000000). */
void v3d_decode_format_addr(char *buf, size_t len, const struct v3d_decode_buffer *bufs, size_t nr,
			    uint32_t addr);
/* CLIF name of the packet at p ("STORE_TILE_BUFFER_GENERAL", "TILE_RENDERING_MODE_CFG_COMMON"),
 * avail bytes readable (>= 1). Unknown opcodes give "?? opcode 0xNN". */
void v3d_decode_packet_name(char *buf, size_t len, int ver, const uint8_t *p, uint32_t avail);

/* Which version a raw list most likely is: walks it as 4.2 and as 7.1 and keeps the one that
 * decodes further without an unknown opcode or a sub-packet the version lacks. *sure is false
 * when both read the bytes alike (then 42). */
int v3d_decode_guess_version(const uint8_t *cl, size_t len, bool *sure);

#endif
