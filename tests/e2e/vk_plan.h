/* The transfer work vk_buffer_ops asks of the GPU, as one table that is both recorded into command
 * buffers and replayed on the CPU, so the expected bytes cannot drift from what was recorded. */
#ifndef FERRY_E2E_VK_PLAN_H
#define FERRY_E2E_VK_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

enum plan_buf { PLAN_A, PLAN_B, PLAN_C, PLAN_D, PLAN_BUF_COUNT };

enum plan_op_kind { PLAN_UPDATE, PLAN_FILL, PLAN_COPY, PLAN_BARRIER };

struct plan_op {
	enum plan_op_kind kind;
	enum plan_buf dst, src;          /* src: PLAN_COPY only */
	VkDeviceSize offset, size;       /* UPDATE/FILL: dst range (FILL size may be VK_WHOLE_SIZE) */
	uint32_t value;                  /* FILL: the 32-bit word; UPDATE: the pattern seed */
	const VkBufferCopy *regions;     /* COPY */
	uint32_t region_count;
};

/* Ops of command buffer 0 (submit 1) and 1 (submit 2, which reads what submit 1 wrote). */
#define PLAN_CMDBUF_COUNT 2
struct plan_list {
	const struct plan_op *ops;
	uint32_t count;
};
extern const struct plan_list plan_cmdbufs[PLAN_CMDBUF_COUNT];

extern const VkDeviceSize plan_buf_size[PLAN_BUF_COUNT];
extern const uint8_t plan_buf_init[PLAN_BUF_COUNT];  /* byte the CPU writes before submit 1 */

static inline char plan_buf_name(enum plan_buf b) { return (char)('A' + (int)b); }

/* The expected contents, plus for each byte which op wrote it last (-1: the CPU's init). */
struct plan_model {
	uint8_t *bytes[PLAN_BUF_COUNT];
	int32_t *writer[PLAN_BUF_COUNT];
};

/* Checks every op against the spec's rules and the buffer sizes; prints the first bad one. */
bool plan_validate(void);

bool plan_model_build(struct plan_model *m);
void plan_model_free(struct plan_model *m);

/* Writes "op #N (...)" describing the op that wrote byte `offset` of `buf` last. */
void plan_describe_writer(const struct plan_model *m, enum plan_buf buf, VkDeviceSize offset,
			  char *out, size_t out_size);

/* Records one command buffer's ops, a transfer->transfer barrier where the table says so. */
void plan_record(VkCommandBuffer cmd, uint32_t cmdbuf_index, const VkBuffer bufs[PLAN_BUF_COUNT]);

/* Totals over the table, for the summary line. */
uint32_t plan_count_kind(enum plan_op_kind kind);

#endif
