/* vk_device_lost: a Vulkan application loses its device and must hear about it at once. It records
 * a buffer copy, frees the source's memory (invalid use: the GPU would read freed memory), submits
 * with a fence and waits with an infinite timeout. Passes when the submit or the wait reports
 * VK_ERROR_DEVICE_LOST and the wait returned within a second. */
#include <stdio.h>
#include <string.h>

#include "vk_context.h"

#define BUF_SIZE 65536u

int main(void)
{
	/* Line by line: a hang must still show how far the program got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct vk_ctx ctx;
	struct vk_ctx_options opt = {0};
	if (!vk_ctx_init(&ctx, &opt))
		return 1;
	struct vk_buf src = {0}, dst = {0};
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	VkFence fence = VK_NULL_HANDLE;
	int status = 1;
	if (!vk_buf_create(&ctx, &src, BUF_SIZE) || !vk_buf_create(&ctx, &dst, BUF_SIZE))
		goto out;
	memset(src.map, 0x5a, BUF_SIZE);
	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx.pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	if (!vk_ok(vkAllocateCommandBuffers(ctx.device, &alloc, &cmd), "vkAllocateCommandBuffers") ||
	    !vk_ok(vkCreateFence(ctx.device, &fence_info, NULL, &fence), "vkCreateFence") ||
	    !vk_ok(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer"))
		goto out;
	VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = BUF_SIZE};
	vkCmdCopyBuffer(cmd, src.buffer, dst.buffer, 1, &region);
	if (!vk_ok(vkEndCommandBuffer(cmd), "vkEndCommandBuffer"))
		goto out;

	/* The use after free: the command buffer still names the source. */
	vkUnmapMemory(ctx.device, src.memory);
	vkFreeMemory(ctx.device, src.memory, NULL);
	src.memory = VK_NULL_HANDLE;
	src.map = NULL;

	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cmd,
	};
	VkResult sr = vkQueueSubmit(ctx.queue, 1, &submit, fence);
	printf("vkQueueSubmit: %s\n", vk_result_name(sr));
	uint64_t t0 = vk_now_ns();
	VkResult wr = vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX);
	uint64_t waited_ms = (vk_now_ns() - t0) / 1000000u;
	printf("vkWaitForFences(UINT64_MAX): %s after %llu ms\n", vk_result_name(wr), (unsigned long long)waited_ms);
	if (wr == VK_ERROR_DEVICE_LOST && waited_ms < 1000) {
		printf("vk_device_lost: PASS device=\"%s\"\n", ctx.props.deviceName);
		status = 0;
	} else {
		printf("vk_device_lost: FAIL (wanted VK_ERROR_DEVICE_LOST within 1000 ms)\n");
	}
out:
	/* A lost device still takes every destroy call (the spec requires it). */
	if (fence)
		vkDestroyFence(ctx.device, fence, NULL);
	if (src.buffer)
		vk_buf_destroy(&ctx, &src);
	if (dst.buffer)
		vk_buf_destroy(&ctx, &dst);
	vk_ctx_fini(&ctx);
	return status;
}
