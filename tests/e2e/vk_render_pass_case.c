/* Render passes without draws: loadOp CLEAR, storeOp STORE, then the attachments copied to
 * buffers. On Turnip the clear and the store are CP_BLIT in sysmem mode and CP_EVENT_WRITE BLIT
 * (RB_BLIT_*) clear + resolve in GMEM mode (TU_DEBUG=sysmem / gmem pick one); on v3dv a TLB clear
 * and store general. The render area is the whole image, so no driver needs a shader for it. */
#include "vk_render_pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rp_create(struct vk_ctx *ctx, struct rp *rp, const struct vk_img *color, const struct vk_img *depth)
{
	memset(rp, 0, sizeof(*rp));
	VkAttachmentDescription att[2];
	VkAttachmentReference cref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
	VkAttachmentReference dref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
	uint32_t n = 0;
	const struct vk_img *imgs[2] = {color, depth};
	for (int i = 0; i < 2; i++) {
		if (!imgs[i])
			continue;
		att[n++] = (VkAttachmentDescription){
			.format = imgs[i]->format,
			.samples = VK_SAMPLE_COUNT_1_BIT,
			.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
			.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
			.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
			.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
			.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
			.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		};
	}
	VkSubpassDescription sub = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.colorAttachmentCount = 1,
		.pColorAttachments = &cref,
		.pDepthStencilAttachment = depth ? &dref : NULL,
	};
	/* The stores finish before the copies that read them. */
	VkSubpassDependency dep = {
		.srcSubpass = 0,
		.dstSubpass = VK_SUBPASS_EXTERNAL,
		.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
				VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
		.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
		.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
				 VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
	};
	VkRenderPassCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = n,
		.pAttachments = att,
		.subpassCount = 1,
		.pSubpasses = &sub,
		.dependencyCount = 1,
		.pDependencies = &dep,
	};
	if (!vk_ok(vkCreateRenderPass(ctx->device, &info, NULL, &rp->pass), "vkCreateRenderPass"))
		return false;
	VkImageView views[2];
	for (uint32_t i = 0, v = 0; i < 2; i++) {
		if (!imgs[i])
			continue;
		VkImageViewCreateInfo vi = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
			.image = imgs[i]->image,
			.viewType = VK_IMAGE_VIEW_TYPE_2D,
			.format = imgs[i]->format,
			.subresourceRange = {imgs[i]->aspect, 0, 1, 0, 1},
		};
		if (!vk_ok(vkCreateImageView(ctx->device, &vi, NULL, &rp->views[v]), "vkCreateImageView"))
			goto fail;
		views[v] = rp->views[v];
		v++;
	}
	VkFramebufferCreateInfo fi = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = rp->pass,
		.attachmentCount = n,
		.pAttachments = views,
		.width = color->width,
		.height = color->height,
		.layers = 1,
	};
	if (!vk_ok(vkCreateFramebuffer(ctx->device, &fi, NULL, &rp->fb), "vkCreateFramebuffer"))
		goto fail;
	rp->width = color->width;
	rp->height = color->height;
	return true;
fail:
	rp_destroy(ctx, rp);
	return false;
}

void rp_destroy(struct vk_ctx *ctx, struct rp *rp)
{
	if (rp->fb)
		vkDestroyFramebuffer(ctx->device, rp->fb, NULL);
	for (int i = 0; i < 2; i++) {
		if (rp->views[i])
			vkDestroyImageView(ctx->device, rp->views[i], NULL);
	}
	if (rp->pass)
		vkDestroyRenderPass(ctx->device, rp->pass, NULL);
	memset(rp, 0, sizeof(*rp));
}

void rp_begin(VkCommandBuffer cmd, const struct rp *rp, const VkClearColorValue *color, float depth)
{
	VkClearValue clears[2] = {{.color = *color}, {.depthStencil = {depth, 0}}};
	VkRenderPassBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = rp->pass,
		.framebuffer = rp->fb,
		.renderArea = {{0, 0}, {rp->width, rp->height}},
		.clearValueCount = rp->views[1] ? 2 : 1,
		.pClearValues = clears,
	};
	vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
}

static bool run(struct case_env *e, bool with_depth)
{
	static const uint8_t k[4] = {0x5a, 0x00, 0xc3, 0xff};
	static const uint8_t dtexel[2] = {0x34, 0x12};
	const float depth = (float)0x1234 / 65535.0f;
	struct vk_img color = {0}, zs = {0};
	struct vk_buf cbuf = {0}, zbuf = {0};
	struct rp rp = {0};
	uint8_t *cwant = NULL, *zwant = NULL;
	bool ok = false;
	const VkImageUsageFlags tx = VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
	if (!vk_img_supported(e->ctx, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TILING_OPTIMAL,
			      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) ||
	    !vk_img_create(e->ctx, &color, VK_FORMAT_R8G8B8A8_UNORM, 64, 40, VK_IMAGE_TILING_OPTIMAL,
			   tx | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT))
		goto out;
	if (with_depth &&
	    (!vk_img_supported(e->ctx, VK_FORMAT_D16_UNORM, VK_IMAGE_TILING_OPTIMAL,
			       VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) ||
	     !vk_img_create(e->ctx, &zs, VK_FORMAT_D16_UNORM, 64, 40, VK_IMAGE_TILING_OPTIMAL,
			    tx | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT)))
		goto out;
	size_t cn = (size_t)64 * 40 * 4, zn = (size_t)64 * 40 * 2;
	if (!vk_buf_create(e->ctx, &cbuf, cn) || (with_depth && !vk_buf_create(e->ctx, &zbuf, zn)))
		goto out;
	memset(cbuf.map, 0xa5, cn);
	if (with_depth)
		memset(zbuf.map, 0xa5, zn);
	cwant = malloc(cn);
	zwant = malloc(zn);
	if (!cwant || !zwant || !vk_buf_flush(e->ctx, &cbuf) || (with_depth && !vk_buf_flush(e->ctx, &zbuf)))
		goto out;
	for (size_t i = 0; i < cn; i += 4)
		memcpy(cwant + i, k, 4);
	for (size_t i = 0; i < zn; i += 2)
		memcpy(zwant + i, dtexel, 2);
	if (!rp_create(e->ctx, &rp, &color, with_depth ? &zs : NULL))
		goto out;
	VkCommandBuffer cmd = vk_cmd_begin(e->ctx);
	if (!cmd)
		goto out;
	VkClearColorValue cv;
	for (int i = 0; i < 4; i++)
		cv.float32[i] = (float)k[i] / 255.0f;
	rp_begin(cmd, &rp, &cv, depth);
	vkCmdEndRenderPass(cmd);
	vk_img_to_buf(cmd, &color, cbuf.buffer);
	if (with_depth)
		vk_img_to_buf(cmd, &zs, zbuf.buffer);
	vk_host_read_barrier(cmd);
	VkResult r = vk_cmd_submit_wait(e->ctx, cmd, e->timeout_ns);
	e->last_wait = vk_result_name(r);
	if (r != VK_SUCCESS || !vk_buf_invalidate(e->ctx, &cbuf) ||
	    (with_depth && !vk_buf_invalidate(e->ctx, &zbuf)))
		goto out;
	e->bytes_checked += cn;
	ok = vk_compare_bytes("colour attachment RGBA8 64x40", cbuf.map, cwant, cn, 64 * 4, 4);
	if (ok)
		printf("  colour attachment RGBA8 64x40: all %zu bytes match\n", cn);
	if (with_depth) {
		e->bytes_checked += zn;
		bool zok = vk_compare_bytes("depth attachment D16 64x40", zbuf.map, zwant, zn, 64 * 2, 2);
		if (zok)
			printf("  depth attachment D16 64x40: all %zu bytes match\n", zn);
		ok = ok && zok;
	}
out:
	free(cwant);
	free(zwant);
	rp_destroy(e->ctx, &rp);
	vk_buf_destroy(e->ctx, &cbuf);
	vk_buf_destroy(e->ctx, &zbuf);
	vk_img_destroy(e->ctx, &color);
	vk_img_destroy(e->ctx, &zs);
	return ok;
}

bool case_render_pass_clear(struct case_env *e)
{
	return run(e, false);
}

bool case_render_pass_clear_depth(struct case_env *e)
{
	return run(e, true);
}
