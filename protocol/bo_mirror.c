/* BoData both ways (ferry/bo_mirror.h): the page-then-byte diff against the peer's snapshot and
 * the bounds-checked apply. One copy, used by ferryd's remote layer and the guest's tcp wrapper. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "ferry/bo_mirror.h"

#define PAGE 4096u
#define FRAME_RANGES 4096u
/* A changed byte costs a slice this many compared ones: it is copied, framed and offered to zstd
 * (level 1, ~3-4x slower than memcmp), so a slice of changed bytes costs about what one of
 * unchanged ones does. */
#define SEND_WEIGHT 3u

struct push {
	uint32_t ctx_id, bo_id, seq;
	ferry_frame_sink sink;
	void *arg;
	uint8_t *snap; /* gets a frame's ranges once the sink took the frame */
	struct ferry_wire_counters *tx;
	struct ferry_bo_range *ranges;
	uint8_t *raw;   /* FERRY_BO_DATA_FRAME_RAW */
	uint8_t *zbuf;  /* ZSTD_compressBound(FERRY_BO_DATA_FRAME_RAW) */
	size_t zcap;
	uint32_t nr;
	uint32_t raw_len;
	uint64_t sent_raw; /* of the frames flushed */
	struct ferry_buf frame;
};

static int flush(struct push *p)
{
	if (!p->nr)
		return 0;
	struct ferry_msg m = { .kind = FERRY_MSG_BO_DATA, .seq = p->seq };
	struct ferry_bo_data *d = &m.u.bo_data;
	*d = (struct ferry_bo_data){ .ctx_id = p->ctx_id, .bo_id = p->bo_id, .nr_ranges = p->nr, .ranges = p->ranges,
				     .raw_len = p->raw_len, .data_len = p->raw_len, .data = p->raw };
	if (p->raw_len >= FERRY_BO_ZSTD_MIN) {
		if (!p->zbuf) {
			p->zcap = ZSTD_compressBound(FERRY_BO_DATA_FRAME_RAW);
			p->zbuf = malloc(p->zcap);
		}
		if (p->zbuf) {
			size_t c = ZSTD_compress(p->zbuf, p->zcap, p->raw, p->raw_len, 1);
			if (!ZSTD_isError(c) && c <= (size_t)p->raw_len * 9 / 10) {
				d->flags = FERRY_BO_DATA_ZSTD;
				d->data = p->zbuf;
				d->data_len = (uint32_t)c;
			}
		}
	}
	ferry_buf_reset(&p->frame);
	int r = ferry_wire_encode(&m, &p->frame);
	if (r == 0)
		r = p->sink(p->arg, p->frame.data, p->frame.len);
	/* Only what the peer will have: a frame not taken is found different again next time. */
	if (r == 0) {
		uint64_t off = 0;
		for (uint32_t i = 0; i < p->nr; i++) {
			memcpy(p->snap + p->ranges[i].offset, p->raw + off, p->ranges[i].len);
			off += p->ranges[i].len;
		}
	}
	p->sent_raw += p->raw_len;
	if (r == 0 && p->tx) {
		p->tx->bo_data_frames++;
		p->tx->bo_data_raw += p->raw_len;
		p->tx->bo_data_wire += d->data_len;
	}
	p->nr = 0;
	p->raw_len = 0;
	return r;
}

/* Queues [start, end) of cur, in as many frames as it takes. */
static int add_range(struct push *p, const uint8_t *cur, uint64_t start, uint64_t end)
{
	while (start < end) {
		uint64_t room = FERRY_BO_DATA_FRAME_RAW - p->raw_len;
		uint64_t rec = (uint64_t)(p->nr + 1) * sizeof(struct ferry_bo_range);
		if (p->nr >= FRAME_RANGES || room <= rec + 64) {
			int r = flush(p);
			if (r)
				return r;
			continue;
		}
		uint64_t len = end - start;
		if (len > room - rec)
			len = room - rec;
		/* What is sent is what the snapshot records (flush), even if cur changes under us. */
		memcpy(p->raw + p->raw_len, cur + start, len);
		p->ranges[p->nr++] = (struct ferry_bo_range){ .offset = start, .len = (uint32_t)len };
		p->raw_len += (uint32_t)len;
		start += len;
	}
	return 0;
}

int ferry_bo_mirror_push_slice(uint32_t ctx_id, uint32_t bo_id, uint32_t seq, const uint8_t *cur, uint8_t *snap,
			       uint64_t size, uint64_t start_off, uint64_t budget, ferry_frame_sink sink, void *arg,
			       struct ferry_wire_counters *tx, uint64_t *next)
{
	struct push p = { .ctx_id = ctx_id, .bo_id = bo_id, .seq = seq, .sink = sink, .arg = arg, .snap = snap, .tx = tx };
	ferry_buf_init(&p.frame);
	bool open = false;
	uint64_t start = 0, end = 0;
	int r = 0;
	/* Whole pages from a page boundary: a slice ends on one, so the next starts on one. */
	uint64_t pg = start_off / PAGE * PAGE;
	if (!budget)
		budget = 1;
	uint64_t stop = budget < size - (pg < size ? pg : size) ? pg + budget : size;
	if (stop < size)
		stop = (stop + PAGE - 1) / PAGE * PAGE;
	if (stop > size)
		stop = size;
	uint64_t first = pg;
	for (; pg < stop && r == 0; pg += PAGE) {
		if (pg > first && budget != UINT64_MAX &&
		    (pg - first) + SEND_WEIGHT * (p.sent_raw + p.raw_len + (open ? end - start : 0)) >= budget)
			break; /* the changed bytes spent the budget: stop on this page boundary */
		uint64_t n = size - pg < PAGE ? size - pg : PAGE;
		if (memcmp(cur + pg, snap + pg, n) == 0)
			continue;
		if (!p.raw) {
			p.raw = malloc(FERRY_BO_DATA_FRAME_RAW);
			p.ranges = malloc(FRAME_RANGES * sizeof(*p.ranges));
			if (!p.raw || !p.ranges) {
				r = -ENOMEM;
				break;
			}
		}
		for (uint64_t i = pg; i < pg + n && r == 0; i++) {
			if (cur[i] == snap[i])
				continue;
			if (open && i - end < FERRY_BO_DIFF_GAP) {
				end = i + 1;
				continue;
			}
			if (open)
				r = add_range(&p, cur, start, end);
			open = true;
			start = i;
			end = i + 1;
		}
	}
	if (r == 0 && open)
		r = add_range(&p, cur, start, end);
	if (r == 0)
		r = flush(&p);
	free(p.raw);
	free(p.ranges);
	free(p.zbuf);
	ferry_buf_free(&p.frame);
	if (next)
		*next = pg < size ? pg : size;
	return r;
}

int ferry_bo_mirror_push(uint32_t ctx_id, uint32_t bo_id, uint32_t seq, const uint8_t *cur, uint8_t *snap,
			 uint64_t size, ferry_frame_sink sink, void *arg, struct ferry_wire_counters *tx)
{
	return ferry_bo_mirror_push_slice(ctx_id, bo_id, seq, cur, snap, size, 0, UINT64_MAX, sink, arg, tx, NULL);
}

int ferry_bo_mirror_apply(const struct ferry_bo_data *d, uint8_t *dst, uint8_t *snap, uint64_t size,
			  const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (d->raw_len > FERRY_BO_DATA_MAX_RAW) {
		*why = "BoData raw_len over FERRY_BO_DATA_MAX_RAW";
		return -EINVAL;
	}
	uint64_t sum = 0;
	for (uint32_t i = 0; i < d->nr_ranges; i++) {
		const struct ferry_bo_range *rg = &d->ranges[i];
		if (rg->offset > size || rg->len > size - rg->offset) {
			*why = "BoData range past the end of the BO";
			return -EINVAL;
		}
		sum += rg->len;
	}
	if (sum != d->raw_len) {
		*why = "BoData ranges do not add up to raw_len";
		return -EBADMSG;
	}
	const uint8_t *src = d->data;
	uint8_t *tmp = NULL;
	if (d->flags & FERRY_BO_DATA_ZSTD) {
		if (!d->data_len) {
			*why = "BoData compressed data missing";
			return -EBADMSG;
		}
		unsigned long long want = ZSTD_getFrameContentSize(d->data, d->data_len);
		if (want != d->raw_len) {
			*why = "BoData zstd frame does not say raw_len bytes";
			return -EBADMSG;
		}
		tmp = malloc(d->raw_len ? d->raw_len : 1);
		if (!tmp) {
			*why = "out of memory";
			return -ENOMEM;
		}
		size_t got = ZSTD_decompress(tmp, d->raw_len, d->data, d->data_len);
		if (ZSTD_isError(got) || got != d->raw_len) {
			free(tmp);
			*why = "BoData zstd data does not decompress to raw_len bytes";
			return -EBADMSG;
		}
		src = tmp;
	} else if (d->data_len != d->raw_len) {
		*why = "BoData data length is not raw_len";
		return -EBADMSG;
	}
	uint64_t off = 0;
	for (uint32_t i = 0; i < d->nr_ranges; i++) {
		const struct ferry_bo_range *rg = &d->ranges[i];
		memcpy(dst + rg->offset, src + off, rg->len);
		if (snap)
			memcpy(snap + rg->offset, src + off, rg->len);
		off += rg->len;
	}
	free(tmp);
	return 0;
}
