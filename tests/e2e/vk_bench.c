/* Measures what one queue submission costs end to end (vkQueueSubmit + vkWaitForFences + reset)
 * and how many submissions per second get through when kept in flight; `ferry bench` runs this
 * under the shim and under the fake kernel and divides. */
#include "vk_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_COPY_BYTES 4096u

struct bench {
	struct vk_ctx *ctx;
	struct vk_buf src, dst;  /* dst holds one BENCH_COPY_BYTES slot per ring entry */
	VkCommandBuffer cmd[VK_BENCH_MAX_DEPTH];
	VkFence fence[VK_BENCH_MAX_DEPTH];
	unsigned depth;
	uint64_t timeout_ns;
};

static bool record_slot(struct bench *b, unsigned slot)
{
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	if (!vk_ok(vkBeginCommandBuffer(b->cmd[slot], &begin), "vkBeginCommandBuffer"))
		return false;
	VkBufferCopy region = {
		.srcOffset = 0,
		.dstOffset = (VkDeviceSize)slot * BENCH_COPY_BYTES,
		.size = BENCH_COPY_BYTES,
	};
	vkCmdCopyBuffer(b->cmd[slot], b->src.buffer, b->dst.buffer, 1, &region);
	VkBufferMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = b->dst.buffer,
		.offset = region.dstOffset,
		.size = BENCH_COPY_BYTES,
	};
	vkCmdPipelineBarrier(b->cmd[slot], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
			     0, 0, NULL, 1, &to_host, 0, NULL);
	return vk_ok(vkEndCommandBuffer(b->cmd[slot]), "vkEndCommandBuffer");
}

static bool bench_setup(struct bench *b)
{
	struct vk_ctx *ctx = b->ctx;
	if (!vk_buf_create(ctx, &b->src, BENCH_COPY_BYTES) ||
	    !vk_buf_create(ctx, &b->dst, (VkDeviceSize)b->depth * BENCH_COPY_BYTES))
		return false;
	for (unsigned i = 0; i < BENCH_COPY_BYTES; i++)
		b->src.map[i] = (uint8_t)(i * 7u + 3u);
	memset(b->dst.map, 0, (size_t)b->dst.size);
	if (!vk_buf_flush(ctx, &b->src) || !vk_buf_flush(ctx, &b->dst))
		return false;
	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = b->depth,
	};
	if (!vk_ok(vkAllocateCommandBuffers(ctx->device, &alloc, b->cmd), "vkAllocateCommandBuffers"))
		return false;
	VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	for (unsigned i = 0; i < b->depth; i++) {
		if (!vk_ok(vkCreateFence(ctx->device, &fence_info, NULL, &b->fence[i]), "vkCreateFence") ||
		    !record_slot(b, i))
			return false;
	}
	return true;
}

static void bench_teardown(struct bench *b)
{
	struct vk_ctx *ctx = b->ctx;
	vkDeviceWaitIdle(ctx->device);
	for (unsigned i = 0; i < b->depth; i++) {
		if (b->fence[i])
			vkDestroyFence(ctx->device, b->fence[i], NULL);
	}
	if (b->cmd[0])
		vkFreeCommandBuffers(ctx->device, ctx->pool, b->depth, b->cmd);
	vk_buf_destroy(ctx, &b->dst);
	vk_buf_destroy(ctx, &b->src);
}

static bool submit_slot(struct bench *b, unsigned slot)
{
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &b->cmd[slot],
	};
	return vk_ok(vkQueueSubmit(b->ctx->queue, 1, &submit, b->fence[slot]), "vkQueueSubmit");
}

static bool wait_and_reset(struct bench *b, unsigned slot)
{
	return vk_wait_fence(b->ctx, b->fence[slot], b->timeout_ns, "a benchmark submit") &&
	       vk_ok(vkResetFences(b->ctx->device, 1, &b->fence[slot]), "vkResetFences");
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted samples. */
static uint64_t percentile(const uint64_t *sorted, unsigned n, unsigned pct)
{
	uint64_t rank = ((uint64_t)n * pct + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

static bool run_round_trips(struct bench *b, unsigned iterations, uint64_t *samples)
{
	unsigned warmup = iterations < 10 ? 1 : 5;
	for (unsigned i = 0; i < warmup; i++) {
		if (!submit_slot(b, 0) || !wait_and_reset(b, 0))
			return false;
	}
	for (unsigned i = 0; i < iterations; i++) {
		uint64_t t0 = vk_now_ns();
		if (!submit_slot(b, 0) || !wait_and_reset(b, 0))
			return false;
		samples[i] = vk_now_ns() - t0;
	}
	return true;
}

/* Slot i % depth is reused only after its previous submission's fence; the rest stay queued. */
static bool run_pipelined(struct bench *b, unsigned iterations, uint64_t *elapsed_ns)
{
	uint64_t t0 = vk_now_ns();
	for (unsigned i = 0; i < iterations; i++) {
		unsigned slot = i % b->depth;
		if (i >= b->depth && !wait_and_reset(b, slot))
			return false;
		if (!submit_slot(b, slot))
			return false;
	}
	unsigned in_flight = iterations < b->depth ? iterations : b->depth;
	if (!vk_wait_fences(b->ctx, in_flight, b->fence, b->timeout_ns, "the last pipelined submits"))
		return false;
	*elapsed_ns = vk_now_ns() - t0;
	return vk_ok(vkResetFences(b->ctx->device, in_flight, b->fence), "vkResetFences");
}

static bool check_copies(struct bench *b, unsigned slots_used)
{
	if (!vk_buf_invalidate(b->ctx, &b->dst))
		return false;
	for (unsigned s = 0; s < slots_used; s++) {
		const uint8_t *got = b->dst.map + (size_t)s * BENCH_COPY_BYTES;
		for (unsigned i = 0; i < BENCH_COPY_BYTES; i++) {
			if (got[i] != b->src.map[i]) {
				fprintf(stderr, "bench: mismatch in slot %u at byte %u: want 0x%02x got 0x%02x\n",
					s, i, b->src.map[i], got[i]);
				return false;
			}
		}
	}
	return true;
}

/* Between the two parts, so the final check proves the pipelined submits wrote every slot. */
static bool clear_dst(struct bench *b)
{
	memset(b->dst.map, 0, (size_t)b->dst.size);
	return vk_buf_flush(b->ctx, &b->dst);
}

bool vk_bench_run(struct vk_ctx *ctx, unsigned iterations, unsigned depth, uint64_t timeout_ns)
{
	if (iterations == 0 || depth == 0 || depth > VK_BENCH_MAX_DEPTH) {
		fprintf(stderr, "bench: iterations must be > 0 and depth 1..%u\n", VK_BENCH_MAX_DEPTH);
		return false;
	}
	struct bench b = {.ctx = ctx, .depth = depth, .timeout_ns = timeout_ns};
	uint64_t *samples = calloc(iterations, sizeof(*samples));
	bool ok = samples != NULL;
	if (!ok)
		fprintf(stderr, "bench: out of memory\n");
	uint64_t pipelined_ns = 0;
	ok = ok && bench_setup(&b) && run_round_trips(&b, iterations, samples) && check_copies(&b, 1) &&
	     clear_dst(&b) && run_pipelined(&b, iterations, &pipelined_ns) &&
	     check_copies(&b, iterations < depth ? iterations : depth);
	if (ok) {
		uint64_t sum = 0;
		for (unsigned i = 0; i < iterations; i++)
			sum += samples[i];
		qsort(samples, iterations, sizeof(*samples), compare_u64);
		double pipelined_s = (double)pipelined_ns / 1e9;
		printf("bench iterations=%u copy_bytes=%u submit_wait_us_median=%.1f "
		       "submit_wait_us_p99=%.1f submit_wait_us_mean=%.1f submit_wait_us_min=%.1f "
		       "pipelined_depth=%u pipelined_per_s=%.1f pipelined_us_per_submit=%.1f\n",
		       iterations, BENCH_COPY_BYTES, (double)percentile(samples, iterations, 50) / 1e3,
		       (double)percentile(samples, iterations, 99) / 1e3,
		       (double)sum / iterations / 1e3, (double)samples[0] / 1e3, depth,
		       pipelined_s > 0 ? iterations / pipelined_s : 0.0,
		       (double)pipelined_ns / iterations / 1e3);
	}
	bench_teardown(&b);
	free(samples);
	return ok;
}
