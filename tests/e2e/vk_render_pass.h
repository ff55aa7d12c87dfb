/* A one-subpass render pass over a colour image and an optional depth image, both loadOp CLEAR /
 * storeOp STORE and left in TRANSFER_SRC_OPTIMAL: the clear-only cases and the draw case use it. */
#ifndef FERRY_E2E_VK_RENDER_PASS_H
#define FERRY_E2E_VK_RENDER_PASS_H

#include <stdbool.h>
#include <vulkan/vulkan.h>

#include "vk_context.h"
#include "vk_image_cases.h"
#include "vk_image_util.h"

struct rp {
	VkRenderPass pass;
	VkImageView views[2];  /* colour, depth (VK_NULL_HANDLE without one) */
	VkFramebuffer fb;
	uint32_t width, height;
};

bool rp_create(struct vk_ctx *ctx, struct rp *rp, const struct vk_img *color, const struct vk_img *depth);
void rp_destroy(struct vk_ctx *ctx, struct rp *rp);
/* Begins the pass over the whole framebuffer with these clear values. */
void rp_begin(VkCommandBuffer cmd, const struct rp *rp, const VkClearColorValue *color, float depth);

#endif
