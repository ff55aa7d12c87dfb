/* vk_image_ops' empty_submit: a vkQueueSubmit without command buffers, only a fence, as
 * GStreamer's Vulkan elements use one. Turnip turns it into a GEM_SUBMIT with no commands, which
 * the msm kernel accepts and signals; the fence must signal with VK_SUCCESS. */
#include <stdio.h>

#include "vk_image_cases.h"

bool case_empty_submit(struct case_env *e)
{
	VkDevice dev = e->ctx->device;
	VkFence fence = VK_NULL_HANDLE;
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	if (!vk_ok(vkCreateFence(dev, &fi, NULL, &fence), "vkCreateFence"))
		return false;
	bool ok = true;
	for (int round = 0; round < 2 && ok; round++) {
		VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
		VkResult r = vkQueueSubmit(e->ctx->queue, 1, &si, fence);
		if (r == VK_SUCCESS)
			r = vkWaitForFences(dev, 1, &fence, VK_TRUE, e->timeout_ns);
		e->last_wait = vk_result_name(r);
		printf("  empty submit %d: %s\n", round + 1, e->last_wait);
		ok = r == VK_SUCCESS && vk_ok(vkResetFences(dev, 1, &fence), "vkResetFences");
	}
	vkDestroyFence(dev, fence, NULL);
	return ok;
}
