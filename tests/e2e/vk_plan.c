/* The op table of vk_buffer_ops, its CPU model and its recording. The offsets are picked to hit
 * the edges a blitter-based implementation gets wrong: offsets that are not multiples of 64 (or of
 * 4, for copies), VK_WHOLE_SIZE on a buffer whose size is not a multiple of 4, a copy over 64 KiB,
 * updates at the 64 KiB limit, and writes that must land after earlier writes (barriers). */
#include "vk_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const VkDeviceSize plan_buf_size[PLAN_BUF_COUNT] = {204800, 70002, 100000, 170012};
const uint8_t plan_buf_init[PLAN_BUF_COUNT] = {0x3c, 0xcd, 0xee, 0x77};

static const VkBufferCopy copy_a_to_c[] = {
	{.srcOffset = 0, .dstOffset = 0, .size = 256},
	{.srcOffset = 1, .dstOffset = 1003, .size = 77},
	{.srcOffset = 4099, .dstOffset = 8190, .size = 70001},   /* > 64 KiB, both ends unaligned */
	{.srcOffset = 131073, .dstOffset = 80001, .size = 3},
	{.srcOffset = 200000, .dstOffset = 90000, .size = 4800}, /* ends at A's last byte */
};
/* Reads across two fills and the untouched gap between them. */
static const VkBufferCopy copy_b_to_c[] = {{.srcOffset = 4090, .dstOffset = 95000, .size = 1200}};
static const VkBufferCopy copy_c_to_d[] = {{.srcOffset = 0, .dstOffset = 0, .size = 100000}};
/* All of B, whose last two bytes no fill reaches (VK_WHOLE_SIZE rounds down to words). */
static const VkBufferCopy copy_b_to_d[] = {{.srcOffset = 0, .dstOffset = 100004, .size = 70002}};

#define UPDATE(buf, off, sz, seed) {.kind = PLAN_UPDATE, .dst = (buf), .offset = (off), .size = (sz), .value = (seed)}
#define FILL(buf, off, sz, word) {.kind = PLAN_FILL, .dst = (buf), .offset = (off), .size = (sz), .value = (word)}
#define COPY(from, to, list) {.kind = PLAN_COPY, .src = (from), .dst = (to), .regions = (list), \
	.region_count = sizeof(list) / sizeof((list)[0])}
#define BARRIER {.kind = PLAN_BARRIER}

static const struct plan_op cmdbuf0_ops[] = {
	/* A: a pattern over all of it, in updates of the 64 KiB maximum and one shorter */
	UPDATE(PLAN_A, 0, 65536, 1),
	UPDATE(PLAN_A, 65536, 65536, 1),
	UPDATE(PLAN_A, 131072, 65536, 1),
	UPDATE(PLAN_A, 196608, 8192, 1),
	FILL(PLAN_B, 0, 4096, 0x11223344u),
	FILL(PLAN_B, 4100, 1000, 0xa5a50f0fu),
	FILL(PLAN_B, 8196, VK_WHOLE_SIZE, 0xdeadbeefu),
	BARRIER,
	FILL(PLAN_B, 12, 52, 0x5a5a5a5au),  /* over the first fill: must land after it */
	COPY(PLAN_A, PLAN_C, copy_a_to_c),  /* reads the updates */
	BARRIER,
	COPY(PLAN_B, PLAN_C, copy_b_to_c),  /* reads the fills */
	UPDATE(PLAN_C, 96404, 1028, 2),
};

static const struct plan_op cmdbuf1_ops[] = {
	COPY(PLAN_C, PLAN_D, copy_c_to_d),  /* reads what submit 1 wrote: the semaphore's job */
	COPY(PLAN_B, PLAN_D, copy_b_to_d),
	BARRIER,
	FILL(PLAN_D, 50000, 64, 0x01020304u),  /* over copied bytes */
	UPDATE(PLAN_D, 100016, 16, 3),
	FILL(PLAN_D, 170008, 4, 0x0badf00du),  /* the buffer's last word */
};

const struct plan_list plan_cmdbufs[PLAN_CMDBUF_COUNT] = {
	{cmdbuf0_ops, sizeof(cmdbuf0_ops) / sizeof(cmdbuf0_ops[0])},
	{cmdbuf1_ops, sizeof(cmdbuf1_ops) / sizeof(cmdbuf1_ops[0])},
};

/* A byte that depends on seed and offset through a full mix, so a copy that lands shifted by any
 * amount, or reads the wrong place, shows. */
static uint8_t update_byte(uint32_t seed, VkDeviceSize offset)
{
	uint32_t x = seed * 0x9e3779b9u ^ (uint32_t)offset ^ (uint32_t)(offset >> 32);
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return (uint8_t)x;
}

/* vkCmdFillBuffer writes the word in host byte order; every target here is little-endian. */
static uint8_t fill_byte(uint32_t word, VkDeviceSize offset)
{
	return (uint8_t)(word >> (8 * (offset & 3)));
}

static VkDeviceSize fill_size(const struct plan_op *op)
{
	if (op->size != VK_WHOLE_SIZE)
		return op->size;
	return (plan_buf_size[op->dst] - op->offset) & ~(VkDeviceSize)3;
}

/* Fits [off, off+size) in a buffer of buf_size, without overflow. */
static bool in_range(VkDeviceSize off, VkDeviceSize size, VkDeviceSize buf_size)
{
	return off <= buf_size && size <= buf_size - off;
}

static bool ranges_overlap(VkDeviceSize a, VkDeviceSize a_size, VkDeviceSize b, VkDeviceSize b_size)
{
	return a < b + b_size && b < a + a_size;
}

static bool validate_op(const struct plan_op *op)
{
	VkDeviceSize dst_size = plan_buf_size[op->dst];
	switch (op->kind) {
	case PLAN_UPDATE:
		return op->offset % 4 == 0 && op->size % 4 == 0 && op->size > 0 && op->size <= 65536 &&
		       in_range(op->offset, op->size, dst_size);
	case PLAN_FILL:
		if (op->offset % 4 != 0 || op->offset >= dst_size)
			return false;
		return op->size == VK_WHOLE_SIZE ||
		       (op->size % 4 == 0 && op->size > 0 && in_range(op->offset, op->size, dst_size));
	case PLAN_COPY:
		if (op->src == op->dst || op->region_count == 0)
			return false;
		for (uint32_t i = 0; i < op->region_count; i++) {
			const VkBufferCopy *r = &op->regions[i];
			if (r->size == 0 || !in_range(r->srcOffset, r->size, plan_buf_size[op->src]) ||
			    !in_range(r->dstOffset, r->size, dst_size))
				return false;
			/* Overlapping destinations would make the result depend on region order. */
			for (uint32_t j = 0; j < i; j++) {
				if (ranges_overlap(r->dstOffset, r->size, op->regions[j].dstOffset,
						   op->regions[j].size))
					return false;
			}
		}
		return true;
	case PLAN_BARRIER:
		return true;
	}
	return false;
}

bool plan_validate(void)
{
	for (uint32_t c = 0; c < PLAN_CMDBUF_COUNT; c++) {
		for (uint32_t i = 0; i < plan_cmdbufs[c].count; i++) {
			if (!validate_op(&plan_cmdbufs[c].ops[i])) {
				fprintf(stderr, "internal: command buffer %u op %u breaks a vkCmd*Buffer rule\n",
					c, i);
				return false;
			}
		}
	}
	return true;
}

uint32_t plan_count_kind(enum plan_op_kind kind)
{
	uint32_t n = 0;
	for (uint32_t c = 0; c < PLAN_CMDBUF_COUNT; c++) {
		for (uint32_t i = 0; i < plan_cmdbufs[c].count; i++)
			n += plan_cmdbufs[c].ops[i].kind == kind;
	}
	return n;
}

/* Global op numbers run over both command buffers; the step number grows at every barrier and
 * command-buffer boundary, and ops of one step may run in any order or at once. */
static const struct plan_op *op_by_number(int32_t number, uint32_t *step)
{
	uint32_t s = 0;
	int32_t n = 0;
	for (uint32_t c = 0; c < PLAN_CMDBUF_COUNT; c++, s++) {
		for (uint32_t i = 0; i < plan_cmdbufs[c].count; i++, n++) {
			const struct plan_op *op = &plan_cmdbufs[c].ops[i];
			if (n == number) {
				*step = s;
				return op;
			}
			s += op->kind == PLAN_BARRIER;
		}
	}
	return NULL;
}

/* Within one step no op may read or write what another op of the step writes (the table would
 * then ask for a race the GPU may legally resolve either way). */
static bool model_write(struct plan_model *m, enum plan_buf b, VkDeviceSize k, uint8_t value,
			int32_t number, uint32_t step)
{
	int32_t prev = m->writer[b][k];
	uint32_t prev_step = UINT32_MAX;
	if (prev >= 0 && prev != number && op_by_number(prev, &prev_step) && prev_step == step) {
		fprintf(stderr, "internal: ops #%d and #%d write %c+%llu without a barrier\n", prev,
			number, plan_buf_name(b), (unsigned long long)k);
		return false;
	}
	m->bytes[b][k] = value;
	m->writer[b][k] = number;
	return true;
}

static bool model_read_ok(const struct plan_model *m, enum plan_buf b, VkDeviceSize k, uint32_t step)
{
	int32_t prev = m->writer[b][k];
	uint32_t prev_step = UINT32_MAX;
	if (prev >= 0 && op_by_number(prev, &prev_step) && prev_step == step) {
		fprintf(stderr, "internal: a copy reads %c+%llu that op #%d writes without a barrier\n",
			plan_buf_name(b), (unsigned long long)k, prev);
		return false;
	}
	return true;
}

static bool model_apply(struct plan_model *m, const struct plan_op *op, int32_t number, uint32_t step)
{
	switch (op->kind) {
	case PLAN_UPDATE:
		for (VkDeviceSize k = op->offset; k < op->offset + op->size; k++) {
			if (!model_write(m, op->dst, k, update_byte(op->value, k), number, step))
				return false;
		}
		return true;
	case PLAN_FILL:
		for (VkDeviceSize k = op->offset; k < op->offset + fill_size(op); k++) {
			if (!model_write(m, op->dst, k, fill_byte(op->value, k), number, step))
				return false;
		}
		return true;
	case PLAN_COPY:
		/* Every read is checked before any write, as the regions of one copy run together. */
		for (uint32_t i = 0; i < op->region_count; i++) {
			for (VkDeviceSize k = 0; k < op->regions[i].size; k++) {
				if (!model_read_ok(m, op->src, op->regions[i].srcOffset + k, step))
					return false;
			}
		}
		for (uint32_t i = 0; i < op->region_count; i++) {
			const VkBufferCopy *r = &op->regions[i];
			for (VkDeviceSize k = 0; k < r->size; k++) {
				if (!model_write(m, op->dst, r->dstOffset + k,
						 m->bytes[op->src][r->srcOffset + k], number, step))
					return false;
			}
		}
		return true;
	case PLAN_BARRIER:
		return true;
	}
	return false;
}

void plan_model_free(struct plan_model *m)
{
	for (int b = 0; b < PLAN_BUF_COUNT; b++) {
		free(m->bytes[b]);
		free(m->writer[b]);
		m->bytes[b] = NULL;
		m->writer[b] = NULL;
	}
}

bool plan_model_build(struct plan_model *m)
{
	memset(m, 0, sizeof(*m));
	for (int b = 0; b < PLAN_BUF_COUNT; b++) {
		m->bytes[b] = malloc((size_t)plan_buf_size[b]);
		m->writer[b] = malloc((size_t)plan_buf_size[b] * sizeof(int32_t));
		if (!m->bytes[b] || !m->writer[b]) {
			fprintf(stderr, "out of memory\n");
			plan_model_free(m);
			return false;
		}
		memset(m->bytes[b], plan_buf_init[b], (size_t)plan_buf_size[b]);
		for (VkDeviceSize k = 0; k < plan_buf_size[b]; k++)
			m->writer[b][k] = -1;
	}
	int32_t number = 0;
	for (uint32_t c = 0; c < PLAN_CMDBUF_COUNT; c++) {
		for (uint32_t i = 0; i < plan_cmdbufs[c].count; i++, number++) {
			uint32_t step = 0;
			const struct plan_op *op = op_by_number(number, &step);
			if (!op || !model_apply(m, op, number, step)) {
				plan_model_free(m);
				return false;
			}
		}
	}
	return true;
}

void plan_describe_writer(const struct plan_model *m, enum plan_buf buf, VkDeviceSize offset,
			  char *out, size_t out_size)
{
	int32_t number = m->writer[buf][offset];
	uint32_t step = 0;
	const struct plan_op *op = number >= 0 ? op_by_number(number, &step) : NULL;
	if (!op) {
		snprintf(out, out_size, "written only by the CPU before submit 1 (0x%02x)",
			 plan_buf_init[buf]);
		return;
	}
	switch (op->kind) {
	case PLAN_UPDATE:
		snprintf(out, out_size, "last written by op #%d vkCmdUpdateBuffer %c+%llu, %llu bytes",
			 number, plan_buf_name(op->dst), (unsigned long long)op->offset,
			 (unsigned long long)op->size);
		return;
	case PLAN_FILL:
		snprintf(out, out_size, "last written by op #%d vkCmdFillBuffer %c+%llu, %llu bytes, 0x%08x",
			 number, plan_buf_name(op->dst), (unsigned long long)op->offset,
			 (unsigned long long)fill_size(op), op->value);
		return;
	case PLAN_COPY:
		for (uint32_t i = 0; i < op->region_count; i++) {
			const VkBufferCopy *r = &op->regions[i];
			if (offset >= r->dstOffset && offset - r->dstOffset < r->size) {
				snprintf(out, out_size, "last written by op #%d vkCmdCopyBuffer region %u: "
					 "%c+%llu -> %c+%llu, %llu bytes", number, i, plan_buf_name(op->src),
					 (unsigned long long)r->srcOffset, plan_buf_name(op->dst),
					 (unsigned long long)r->dstOffset, (unsigned long long)r->size);
				return;
			}
		}
		break;
	case PLAN_BARRIER:
		break;
	}
	snprintf(out, out_size, "last written by op #%d", number);
}

static void record_op(VkCommandBuffer cmd, const struct plan_op *op, const VkBuffer bufs[PLAN_BUF_COUNT])
{
	/* vkCmdUpdateBuffer copies the data into the command buffer, so one scratch array serves. */
	static uint8_t update_data[65536];
	switch (op->kind) {
	case PLAN_UPDATE:
		for (VkDeviceSize k = 0; k < op->size; k++)
			update_data[k] = update_byte(op->value, op->offset + k);
		vkCmdUpdateBuffer(cmd, bufs[op->dst], op->offset, op->size, update_data);
		return;
	case PLAN_FILL:
		vkCmdFillBuffer(cmd, bufs[op->dst], op->offset, op->size, op->value);
		return;
	case PLAN_COPY:
		vkCmdCopyBuffer(cmd, bufs[op->src], bufs[op->dst], op->region_count, op->regions);
		return;
	case PLAN_BARRIER: {
		VkMemoryBarrier barrier = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		};
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
				     1, &barrier, 0, NULL, 0, NULL);
		return;
	}
	}
}

void plan_record(VkCommandBuffer cmd, uint32_t cmdbuf_index, const VkBuffer bufs[PLAN_BUF_COUNT])
{
	const struct plan_list *list = &plan_cmdbufs[cmdbuf_index];
	for (uint32_t i = 0; i < list->count; i++)
		record_op(cmd, &list->ops[i], bufs);
}
