/* vk_fault_pipeline: many submits in flight around one that faults. 40 submits, each filling or
 * copying its own value into its own region, the one at --bad (default 25) copying from freed
 * memory, are queued behind a GPU-side gate and waited for together: VK_ERROR_DEVICE_LOST, every
 * region before the bad one written, the bad one not. --rounds times (default 3), each on a new
 * device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_context.h"

#define N_SUBMITS 40u
#define REGION 256u /* bytes per submit's destination region */
/* The freed allocation is large and the bad copy reads its end: allocations Turnip makes after the
 * free (submit-time command-stream BOs) reuse the freed addresses from the start, and a read of
 * reused memory does not fault (it copies whatever lives there now). */
#define FREED_SIZE (1u << 20)
#define FREED_OFF (FREED_SIZE - REGION)
#define WAIT_NS 10000000000ull

static uint32_t value_of(uint32_t i)
{
	return 0xC0DE0000u | i;
}

/* Index of the first region not holding its value, N_SUBMITS when all do. */
static uint32_t first_wrong(const uint8_t *map, uint32_t *wrong_count)
{
	uint32_t first = N_SUBMITS;
	*wrong_count = 0;
	for (uint32_t i = 0; i < N_SUBMITS; i++) {
		const uint8_t *r = map + (size_t)i * REGION;
		bool ok = true;
		for (uint32_t w = 0; w < REGION / 4 && ok; w++) {
			uint32_t v;
			memcpy(&v, r + w * 4, 4);
			ok = v == value_of(i);
		}
		if (!ok) {
			(*wrong_count)++;
			if (first == N_SUBMITS)
				first = i;
		}
	}
	return first;
}

static bool record(VkCommandBuffer cmd, uint32_t i, uint32_t bad, VkEvent gate, const struct vk_buf *src,
		   const struct vk_buf *freed, const struct vk_buf *dst)
{
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	if (!vk_ok(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer"))
		return false;
	if (i == 0) {
		/* The GPU holds the first submit until the host sets the event (Turnip polls the
		 * event's memory with CP_WAIT_REG_MEM): all are queued before any runs, then run in one
		 * go, so ferryd finds the fault among fences done together from the first one on. A
		 * blame on the first fence found done then named seqno 1 in most runs tried (at most
		 * 13); without the gate anything from 5 to 26, now and then the right one. */
		VkMemoryBarrier host_to_transfer = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		};
		vkCmdWaitEvents(cmd, 1, &gate, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 1,
				&host_to_transfer, 0, NULL, 0, NULL);
	}
	VkDeviceSize off = (VkDeviceSize)i * REGION;
	if (i == bad) {
		VkBufferCopy region = {.srcOffset = FREED_OFF, .dstOffset = off, .size = REGION};
		vkCmdCopyBuffer(cmd, freed->buffer, dst->buffer, 1, &region);
	} else if (i % 2 == 0) {
		vkCmdFillBuffer(cmd, dst->buffer, off, REGION, value_of(i));
	} else {
		VkBufferCopy region = {.srcOffset = off, .dstOffset = off, .size = REGION};
		vkCmdCopyBuffer(cmd, src->buffer, dst->buffer, 1, &region);
	}
	return vk_ok(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
}

static void fill_values(uint8_t *map, uint32_t i, uint32_t count)
{
	for (uint32_t w = 0; w < count * REGION / 4; w++) {
		uint32_t v = value_of(i + w / (REGION / 4));
		memcpy(map + (size_t)w * 4, &v, 4);
	}
}

/* One device: the submits, the gate, the wait and the bytes. True when it passed. */
static bool run_round(uint32_t round, uint32_t bad, char *device, size_t device_len)
{
	struct vk_ctx ctx;
	struct vk_ctx_options opt = {0};
	if (!vk_ctx_init(&ctx, &opt))
		return false;
	snprintf(device, device_len, "%s", ctx.props.deviceName);
	struct vk_buf src = {0}, freed = {0}, dst = {0};
	/* One more than N_SUBMITS: the tail submit, after the gate opened (below). */
	VkCommandBuffer cmds[N_SUBMITS + 1] = {0};
	VkFence fences[N_SUBMITS + 1] = {0};
	VkEvent gate = VK_NULL_HANDLE;
	bool cmds_allocated = false;
	bool passed = false;
	const VkDeviceSize size = (VkDeviceSize)(N_SUBMITS + 1) * REGION;
	if (!vk_buf_create(&ctx, &src, size) || !vk_buf_create(&ctx, &freed, FREED_SIZE) ||
	    !vk_buf_create(&ctx, &dst, size))
		goto out;
	fill_values(src.map, 0, N_SUBMITS + 1);
	/* What the bad copy would write if it read the memory before it was freed: it must not. */
	fill_values(freed.map + FREED_OFF, bad, 1);
	memset(dst.map, 0, (size_t)size);
	if (!vk_buf_flush(&ctx, &src) || !vk_buf_flush(&ctx, &freed) || !vk_buf_flush(&ctx, &dst))
		goto out;

	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx.pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = N_SUBMITS + 1,
	};
	VkEventCreateInfo event_info = {.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
	if (!vk_ok(vkAllocateCommandBuffers(ctx.device, &alloc, cmds), "vkAllocateCommandBuffers"))
		goto out;
	cmds_allocated = true;
	if (!vk_ok(vkCreateEvent(ctx.device, &event_info, NULL, &gate), "vkCreateEvent"))
		goto out;
	VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	for (uint32_t i = 0; i <= N_SUBMITS; i++)
		if (!vk_ok(vkCreateFence(ctx.device, &fence_info, NULL, &fences[i]), "vkCreateFence"))
			goto out;
	for (uint32_t i = 0; i <= N_SUBMITS; i++)
		if (!record(cmds[i], i, bad, gate, &src, &freed, &dst))
			goto out;

	/* The use after free: the bad command buffer still names the buffer. */
	vkUnmapMemory(ctx.device, freed.memory);
	vkFreeMemory(ctx.device, freed.memory, NULL);
	freed.memory = VK_NULL_HANDLE;
	freed.map = NULL;

	/* Nothing runs before the gate opens, so no submit can have heard of the fault yet. */
	uint64_t t0 = vk_now_ns();
	for (uint32_t i = 0; i < N_SUBMITS; i++) {
		VkSubmitInfo submit = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &cmds[i],
		};
		VkResult sr = vkQueueSubmit(ctx.queue, 1, &submit, fences[i]);
		if (sr != VK_SUCCESS) {
			printf("vkQueueSubmit %u: %s before the gate opened\n", i, vk_result_name(sr));
			goto out;
		}
	}
	uint64_t queued_ms = (vk_now_ns() - t0) / 1000000u;
	if (!vk_ok(vkSetEvent(ctx.device, gate), "vkSetEvent"))
		goto out;
	/* One more submit after the gate: over tcp the host's copy of the event's memory changes only
	 * with a submit that lists its BO (Turnip lists every BO in every submit with commands; an
	 * empty one did not open the gate). The device may already be lost by now. */
	VkSubmitInfo tail_submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cmds[N_SUBMITS],
	};
	VkResult tail = vkQueueSubmit(ctx.queue, 1, &tail_submit, fences[N_SUBMITS]);
	printf("%u submits queued behind the gate in %llu ms; then vkSetEvent and one more submit: %s\n",
	       N_SUBMITS, (unsigned long long)queued_ms, vk_result_name(tail));
	if (tail != VK_SUCCESS && tail != VK_ERROR_DEVICE_LOST)
		goto out;

	t0 = vk_now_ns();
	/* The tail submit's fence was never handed to the driver if that submit failed. */
	uint32_t waited = tail == VK_SUCCESS ? N_SUBMITS + 1 : N_SUBMITS;
	VkResult wr = vkWaitForFences(ctx.device, waited, fences, VK_TRUE, WAIT_NS);
	uint64_t waited_ms = (vk_now_ns() - t0) / 1000000u;
	printf("vkWaitForFences(%u fences, 10 s): %s after %llu ms\n", waited, vk_result_name(wr),
	       (unsigned long long)waited_ms);

	/* A lost device's memory stays mapped: what the GPU wrote before the fault is readable. */
	vk_buf_invalidate(&ctx, &dst);
	uint32_t wrong;
	uint32_t first = first_wrong(dst.map, &wrong);
	printf("regions holding their value: %u of %u; first without it: %u\n", N_SUBMITS - wrong, N_SUBMITS,
	       first);
	if (first < N_SUBMITS) {
		uint32_t v;
		memcpy(&v, dst.map + (size_t)first * REGION, 4);
		printf("region %u starts with 0x%08x\n", first, v);
	}
	passed = wr == VK_ERROR_DEVICE_LOST && first == bad;
	if (passed)
		/* Every submit before the bad one wrote its value, the bad one wrote nothing of it. */
		printf("round %u: faulted submit: index %u of %u (submit number %u)\n", round, bad, N_SUBMITS, bad + 1);
	else
		printf("round %u: wanted VK_ERROR_DEVICE_LOST and regions 0..%u written, %u not\n", round, bad - 1, bad);
out:
	/* Work left behind a closed gate would hold vkDestroyDevice's idle wait until hangcheck. */
	if (gate)
		vkSetEvent(ctx.device, gate);
	/* A lost device still takes every destroy call (the spec requires it). */
	for (uint32_t i = 0; i <= N_SUBMITS; i++)
		if (fences[i])
			vkDestroyFence(ctx.device, fences[i], NULL);
	if (gate)
		vkDestroyEvent(ctx.device, gate, NULL);
	if (cmds_allocated)
		vkFreeCommandBuffers(ctx.device, ctx.pool, N_SUBMITS + 1, cmds);
	if (src.buffer)
		vk_buf_destroy(&ctx, &src);
	if (freed.buffer)
		vk_buf_destroy(&ctx, &freed);
	if (dst.buffer)
		vk_buf_destroy(&ctx, &dst);
	vk_ctx_fini(&ctx);
	return passed;
}

int main(int argc, char **argv)
{
	/* Line by line: a hang must still show how far the program got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	uint32_t bad = 25, rounds = 3;
	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--bad") == 0)
			bad = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0)
			rounds = (uint32_t)strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: vk_fault_pipeline [--bad INDEX] [--rounds N]\n");
			return 2;
		}
	}
	if (bad == 0 || bad >= N_SUBMITS || rounds == 0) {
		/* 0 would fault in the gated submit itself: nothing before it to check. */
		fprintf(stderr, "--bad must be in 1..%u, --rounds at least 1\n", N_SUBMITS - 1);
		return 2;
	}
	/* Each round on a new device (a new context for ferryd, its seqnos from 1 again): whether
	 * ferryd finds the fault among several fences done at once is timing, so more than one try. */
	char device[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE] = "";
	for (uint32_t r = 0; r < rounds; r++) {
		if (!run_round(r, bad, device, sizeof(device))) {
			printf("vk_fault_pipeline: FAIL in round %u\n", r);
			return 1;
		}
	}
	printf("vk_fault_pipeline: PASS device=\"%s\" rounds=%u faulted=%u\n", device, rounds, bad);
	return 0;
}
