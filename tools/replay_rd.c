/* `ferry replay` of a freedreno .rd capture: every buffer is placed at its captured GPU address
 * (BoCreate.iova, the host's MSM_INFO_SET_IOVA) and filled with its captured contents; each
 * group of RD_CMDSTREAM_ADDRs becomes one submit (boundaries as cffdump/replay find them: the
 * first RD_GPUADDR after a RD_CMDSTREAM_ADDR starts a new submit). Buffers stay placed across
 * submits; one that a later submit lists at an overlapping address is closed first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "ferry/uapi/msm_drm.h"
#include "debug/rd_file.h"
#include "ferry/hw/addr64.h"
#include "replay.h"

#define RD_CTX   1u
#define RD_QUEUE 0u

struct rd_buffer {
	uint64_t iova;
	uint32_t size;
	const uint8_t *contents;
	size_t len;
};

struct rd_cmd {
	uint64_t iova;
	uint32_t dwords;
};

struct rd_submit {
	struct rd_buffer *bufs;
	uint32_t nr_bufs, cap_bufs;
	struct rd_cmd *cmds;
	uint32_t nr_cmds, cap_cmds;
};

static uint32_t rd_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A live BO holding [iova, iova + size), or NULL. */
static struct rc_bo *bo_covering(struct replay_conn *c, uint64_t iova, uint64_t size)
{
	for (uint32_t i = 0; i < c->nr_bos; i++) {
		struct rc_bo *b = &c->bos[i];
		if (b->live && b->ctx_id == RD_CTX && iova >= b->iova && size <= b->size && iova - b->iova <= b->size - size)
			return b;
	}
	return NULL;
}

static int place_buffer(struct replay *rp, const struct rd_buffer *buf, struct rc_bo **out)
{
	struct replay_conn *c = &rp->conn;
	struct rc_bo *bo = NULL;
	if (buf->iova > UINT64_MAX - buf->size - 4096) {
		fprintf(stderr, "ferry replay: %s: buffer at 0x%llx (%u bytes) wraps the address space\n", rp->path,
			(unsigned long long)buf->iova, buf->size);
		return -1;
	}
	for (uint32_t i = 0; i < c->nr_bos; i++) {
		struct rc_bo *b = &c->bos[i];
		if (b->live && b->ctx_id == RD_CTX && b->iova == buf->iova && b->size >= buf->size)
			bo = b;
	}
	if (!bo) {
		/* Whatever overlaps goes: the address space is the capture's now. */
		for (uint32_t i = 0; i < c->nr_bos; i++) {
			struct rc_bo *b = &c->bos[i];
			if (b->live && b->ctx_id == RD_CTX && b->iova < buf->iova + buf->size && buf->iova < b->iova + b->size)
				rc_close_bo(c, b);
		}
		struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATE };
		m.u.bo_create = (struct ferry_bo_create){
			.ctx_id = RD_CTX, .bo_id = ++rp->next_bo_id, .size = buf->size ? buf->size : 4096,
			.flags = MSM_BO_WC, .iova = buf->iova,
		};
		if (rc_request(c, &m) < 0) {
			fprintf(stderr, "ferry replay: %s: buffer at 0x%llx (%u bytes): %s\n", rp->path,
				(unsigned long long)buf->iova, buf->size, c->error);
			return -1;
		}
		bo = rc_find_bo(c, RD_CTX, m.u.bo_create.bo_id);
		if (!bo)
			return -1;
	}
	if (buf->contents) {
		if (rc_bo_mirror(c, bo) < 0) {
			fprintf(stderr, "ferry replay: %s: buffer at 0x%llx: %s\n", rp->path,
				(unsigned long long)buf->iova, c->error);
			return -1;
		}
		memcpy(bo->map, buf->contents, buf->len);
	}
	*out = bo;
	return 0;
}

static int flush_submit(struct replay *rp, struct rd_submit *sub)
{
	uint32_t n = sub->nr_bufs;
	struct ferry_msm_submit_bo *bos = calloc(n + 1, sizeof(*bos));
	struct ferry_msm_submit_cmd *cmds = calloc(sub->nr_cmds + 1, sizeof(*cmds));
	struct rc_bo **placed = calloc(n + 1, sizeof(*placed));
	int ret = bos && cmds && placed ? 0 : -1;
	uint32_t nr_bos = 0;
	for (uint32_t i = 0; ret == 0 && i < n; i++) {
		struct rc_bo *bo;
		ret = place_buffer(rp, &sub->bufs[i], &bo);
		if (ret < 0)
			break;
		bool dup = false;
		for (uint32_t j = 0; j < nr_bos; j++)
			dup |= placed[j] == bo;
		if (!dup) {
			placed[nr_bos] = bo;
			bos[nr_bos++] = (struct ferry_msm_submit_bo){ .bo_id = bo->bo_id,
								      .flags = MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE };
		}
	}
	for (uint32_t i = 0; ret == 0 && i < sub->nr_cmds; i++) {
		const struct rd_cmd *cs = &sub->cmds[i];
		struct rc_bo *bo = bo_covering(&rp->conn, cs->iova, (uint64_t)cs->dwords * 4);
		uint32_t idx = nr_bos;
		for (uint32_t j = 0; bo && j < nr_bos; j++)
			if (placed[j] == bo)
				idx = j;
		if (!bo || idx == nr_bos) {
			fprintf(stderr, "ferry replay: %s: submit %u: CMDSTREAM_ADDR 0x%llx (%u dwords) is in no buffer of the submit\n",
				rp->path, rp->submit_index, (unsigned long long)cs->iova, cs->dwords);
			ret = -1;
			break;
		}
		cmds[i] = (struct ferry_msm_submit_cmd){ .type = MSM_SUBMIT_CMD_BUF, .bo_index = idx,
							 .offset = (uint32_t)(cs->iova - bo->iova), .size = cs->dwords * 4 };
	}
	if (ret == 0) {
		struct ferry_msm_submit s = {
			.ctx_id = RD_CTX, .queue_id = RD_QUEUE, .nr_bos = nr_bos, .nr_cmds = sub->nr_cmds,
			.bos = bos, .cmds = cmds,
		};
		ret = replay_submit(rp, &s);
	}
	free(bos);
	free(cmds);
	free(placed);
	sub->nr_bufs = sub->nr_cmds = 0;
	return ret;
}

const char *rd_gpu_name(uint32_t gpu_id)
{
	switch (gpu_id) {
	case 630: return "a630";
	case 660: return "a660";
	default: return NULL;
	}
}

int replay_rd_check(const char *path, const uint8_t *data, size_t len, uint32_t *gpu_id)
{
	struct rd_reader rd;
	struct rd_section s;
	char err[200];
	int ret;
	*gpu_id = 0;
	bool have_cmds = false;
	uint32_t last_size = 0;
	bool have_addr = false;
	rd_reader_init(&rd, data, len);
	while ((ret = rd_next_section(&rd, &s, err, sizeof(err))) > 0) {
		const char *bad = NULL;
		switch (s.type) {
		case RD_GPU_ID:
			if (s.size < 4)
				bad = "GPU_ID shorter than 4 bytes";
			else if (!*gpu_id)
				*gpu_id = rd_u32(s.payload);
			break;
		case RD_CHIP_ID:
			if (s.size < 8)
				bad = "CHIP_ID shorter than 8 bytes";
			else if (!*gpu_id) /* core.major.minor.patch */
				*gpu_id = s.payload[3] * 100 + s.payload[2] * 10 + s.payload[1];
			break;
		case RD_GPUADDR:
			if (s.size < 8)
				bad = "GPUADDR shorter than 8 bytes";
			else {
				last_size = rd_u32(s.payload + 4);
				have_addr = true;
			}
			break;
		case RD_BUFFER_CONTENTS:
			if (!have_addr)
				bad = "BUFFER_CONTENTS without a GPUADDR before it";
			else if (s.size > last_size)
				bad = "BUFFER_CONTENTS larger than its GPUADDR's size";
			break;
		case RD_CMDSTREAM_ADDR:
			if (s.size < 8)
				bad = "CMDSTREAM_ADDR shorter than 8 bytes";
			have_cmds = true;
			break;
		default:
			break;
		}
		if (bad) {
			fprintf(stderr, "ferry replay: %s: corrupt section at offset %zu: %s\n", path, s.offset, bad);
			return -1;
		}
	}
	if (ret < 0) {
		/* The reader's one failure is a section running past the end. */
		fprintf(stderr, "ferry replay: %s: truncated .rd: %s\n", path, err);
		return -1;
	}
	if (!have_cmds) {
		fprintf(stderr, "ferry replay: %s: no RD_CMDSTREAM_ADDR: nothing to replay\n", path);
		return -1;
	}
	return 0;
}

int replay_rd(struct replay *rp, const uint8_t *data, size_t len)
{
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = RD_CTX, .family = FERRY_FAMILY_MSM,
							    .policy = rp->rd_policy };
	if (rc_request(&rp->conn, &m) < 0) {
		fprintf(stderr, "ferry replay: context: %s\n", rp->conn.error);
		return -1;
	}
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = RD_CTX, .queue_id = RD_QUEUE };
	if (rc_request(&rp->conn, &m) < 0) {
		fprintf(stderr, "ferry replay: queue: %s\n", rp->conn.error);
		return -1;
	}
	struct rd_submit sub = { 0 };
	struct rd_reader rd;
	struct rd_section s;
	char err[200];
	int ret = 0;
	rd_reader_init(&rd, data, len);
	while (ret == 0 && rd_next_section(&rd, &s, err, sizeof(err)) > 0) {
		if (s.type == RD_GPUADDR) {
			if (sub.nr_cmds)
				ret = flush_submit(rp, &sub);
			if (ret == 0 && sub.nr_bufs == sub.cap_bufs)
				ret = FERRY_ARRAY_RESERVE(sub.bufs, sub.cap_bufs, sub.nr_bufs + 1, 16);
			if (ret < 0)
				break;
			uint32_t hi = s.size >= 12 ? rd_u32(s.payload + 8) : 0;
			sub.bufs[sub.nr_bufs++] = (struct rd_buffer){ .iova = hw_addr64(rd_u32(s.payload), hi),
								      .size = rd_u32(s.payload + 4) };
		} else if (s.type == RD_BUFFER_CONTENTS && sub.nr_bufs) {
			sub.bufs[sub.nr_bufs - 1].contents = s.payload;
			sub.bufs[sub.nr_bufs - 1].len = s.size;
		} else if (s.type == RD_CMDSTREAM_ADDR) {
			if (sub.nr_cmds == sub.cap_cmds && (ret = FERRY_ARRAY_RESERVE(sub.cmds, sub.cap_cmds, sub.nr_cmds + 1, 16)) < 0)
				break;
			uint32_t hi = s.size >= 12 ? rd_u32(s.payload + 8) : 0;
			sub.cmds[sub.nr_cmds++] = (struct rd_cmd){ .iova = hw_addr64(rd_u32(s.payload), hi),
								   .dwords = rd_u32(s.payload + 4) };
		}
	}
	if (ret == 0 && sub.nr_cmds)
		ret = flush_submit(rp, &sub);
	free(sub.bufs);
	free(sub.cmds);
	return ret;
}
