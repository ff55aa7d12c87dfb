/* Decoding an .rd capture: walk its sections, keep the buffers (GPUADDR + BUFFER_CONTENTS) of
 * the current submit, and disassemble each CMDSTREAM_ADDR through pm4_decode with those buffers
 * as the address table, as cffdump does. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/hw/addr64.h"
#include "pm4_decode.h"
#include "rd_file.h"

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

struct rd_state {
	struct pm4_decode_bo *bufs;
	size_t nr_bufs, cap_bufs;
	bool new_submit;         /* a CMDSTREAM_ADDR was seen: the next GPUADDR starts a submit */
	unsigned submits, cmdstreams;
	uint64_t packets, bad_dwords, truncated;
};

static void print_text(FILE *out, const char *label, const uint8_t *p, uint32_t n)
{
	fprintf(out, "%s \"", label);
	for (uint32_t i = 0; i < n && i < 200 && p[i]; i++)
		fputc(p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' ? p[i] : '?', out);
	fprintf(out, "\"\n");
}

static int add_buffer(struct rd_state *st, const struct rd_section *s, char *err, size_t err_len)
{
	if (s->size < 8) {
		snprintf(err, err_len, "GPUADDR section at offset %zu has %u bytes (needs 8 or 12)", s->offset, s->size);
		return -1;
	}
	if (st->new_submit || st->submits == 0) {
		st->nr_bufs = 0;
		st->new_submit = false;
		st->submits++;
	}
	if (FERRY_ARRAY_RESERVE(st->bufs, st->cap_bufs, st->nr_bufs + 1, 16)) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	uint32_t hi = s->size >= 12 ? le32(s->payload + 8) : 0;
	st->bufs[st->nr_bufs] = (struct pm4_decode_bo){
		.iova = hw_addr64(le32(s->payload), hi), .size = le32(s->payload + 4), .id = (uint32_t)st->nr_bufs,
	};
	st->nr_bufs++;
	return 0;
}

static void decode_cmdstream(FILE *out, struct rd_state *st, const struct rd_section *s,
			     const struct rd_decode_options *opts)
{
	uint32_t hi = s->size >= 12 ? le32(s->payload + 8) : 0;
	uint64_t iova = hw_addr64(le32(s->payload), hi);
	uint32_t size_dw = le32(s->payload + 4);
	unsigned index = st->cmdstreams++;
	st->new_submit = true;
	fprintf(out, "\ncmdstream %u (submit %u) at 0x%016" PRIx64 ", %u dwords:\n", index,
		st->submits ? st->submits - 1 : 0, iova, size_dw);
	const struct pm4_decode_bo *bo = pm4_decode_find_bo(st->bufs, st->nr_bufs, iova);
	uint64_t off = bo ? iova - bo->iova : 0;
	if (!bo || !bo->contents || off >= bo->contents_len) {
		fprintf(out, "  (contents not in the capture: no BUFFER_CONTENTS for 0x%" PRIx64 ")\n", iova);
		return;
	}
	uint64_t avail = (bo->contents_len - off) / 4;
	uint64_t n = size_dw < avail ? size_dw : avail;
	if (n < size_dw)
		fprintf(out, "  (only %" PRIu64 " of %u dwords are in the capture)\n", n, size_dw);
	uint32_t *w = malloc(n ? (size_t)n * 4 : 4);
	if (!w) {
		fprintf(out, "  (out of memory)\n");
		return;
	}
	const uint8_t *src = (const uint8_t *)bo->contents + off;
	for (uint64_t i = 0; i < n; i++)
		w[i] = le32(src + 4 * i);
	struct pm4_decode_options o = { .bos = st->bufs, .nr_bos = st->nr_bufs, .follow_ibs = opts->follow_ibs };
	struct pm4_decode_stats stats;
	pm4_decode(out, w, (size_t)n, iova, &o, &stats);
	st->packets += stats.packets;
	st->bad_dwords += stats.bad_dwords;
	st->truncated += stats.truncated;
	free(w);
}

int rd_decode(FILE *out, const uint8_t *data, size_t len, const struct rd_decode_options *opts, char *err,
	      size_t err_len)
{
	static const struct rd_decode_options defaults = { .follow_ibs = true };
	if (!opts)
		opts = &defaults;
	struct rd_reader rd;
	rd_reader_init(&rd, data, len);
	struct rd_state st = { 0 };
	struct rd_section s;
	int ret = 0, r;
	bool have_gpu_id = false, have_chip_id = false;
	while ((r = rd_next_section(&rd, &s, err, err_len)) == 1) {
		switch (s.type) {
		case RD_GPU_ID:
			if (s.size >= 4 && !have_gpu_id) {
				fprintf(out, "GPU_ID: %u\n", le32(s.payload));
				have_gpu_id = true;
			}
			break;
		case RD_CHIP_ID:
			if (s.size >= 4 && !have_chip_id) {
				uint32_t hi = s.size >= 8 ? le32(s.payload + 4) : 0;
				fprintf(out, "CHIP_ID: 0x%016" PRIx64 "\n", hw_addr64(le32(s.payload), hi));
				have_chip_id = true;
			}
			break;
		case RD_CMD:
			print_text(out, "cmd:", s.payload, s.size);
			break;
		case RD_TEST:
			print_text(out, "test:", s.payload, s.size);
			break;
		case RD_GPUADDR:
			if (add_buffer(&st, &s, err, err_len)) {
				ret = -1;
				goto done;
			}
			break;
		case RD_BUFFER_CONTENTS:
			if (!st.nr_bufs || st.new_submit) {
				fprintf(out, "(BUFFER_CONTENTS at offset %zu without a GPUADDR before it: ignored)\n", s.offset);
				break;
			}
			st.bufs[st.nr_bufs - 1].contents = s.payload;
			st.bufs[st.nr_bufs - 1].contents_len = s.size;
			if (opts->list_buffers) {
				const struct pm4_decode_bo *b = &st.bufs[st.nr_bufs - 1];
				fprintf(out, "buffer %u: 0x%016" PRIx64 ", %" PRIu64 " bytes, %u bytes of contents\n", b->id,
					b->iova, b->size, s.size);
			}
			break;
		case RD_CMDSTREAM_ADDR:
			if (s.size < 8) {
				snprintf(err, err_len, "CMDSTREAM_ADDR section at offset %zu has %u bytes (needs 12)",
					 s.offset, s.size);
				ret = -1;
				goto done;
			}
			decode_cmdstream(out, &st, &s, opts);
			break;
		default:
			break; /* legacy and shader sections: nothing to disassemble */
		}
	}
	if (r < 0)
		ret = -1;
done:
	fprintf(out, "\n%u submits, %u cmdstreams, %" PRIu64 " packets, %" PRIu64 " bad dwords, %" PRIu64
		     " truncated packets\n",
		st.submits, st.cmdstreams, st.packets, st.bad_dwords, st.truncated);
	free(st.bufs);
	return ret;
}
