/* vk_image_traffic: the image work a Vulkan driver turns into blits, GMEM passes and TLB jobs -
 * clears of optimal and linear colour images and of a depth image, image<->image copies, a blit,
 * buffer<->image copies and a render pass with loadOp CLEAR / storeOp STORE and no draw, large
 * enough for several GMEM bins - in one submit. It makes traffic for the validator's regression
 * corpus (tools/corpus/cases.txt); run it with TU_DEBUG=gmem / sysmem to choose Turnip's path.
 * The readbacks are compared with what the operations should leave; --check makes a mismatch fail
 * (exit 1), else it is only reported, since the simulated GPUs do not model all of them yet. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_context.h"

#define W 256u
#define H 256u
#define RP_W 1024u /* the render pass: 4 MiB of RGBA8, more than a630's GMEM holds at once */
#define RP_H 1024u

struct img {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
};

static bool mem_type(struct vk_ctx *ctx, uint32_t bits, VkMemoryPropertyFlags want, uint32_t *out)
{
	for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (ctx->mem_props.memoryTypes[i].propertyFlags & want) == want) {
			*out = i;
			return true;
		}
	return false;
}

static bool img_create(struct vk_ctx *ctx, struct img *im, VkFormat fmt, uint32_t w, uint32_t h,
		       VkImageTiling tiling, VkImageUsageFlags usage, VkImageAspectFlags aspect)
{
	VkImageCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D, .format = fmt,
		.extent = { w, h, 1 }, .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = tiling, .usage = usage, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (!vk_ok(vkCreateImage(ctx->device, &ci, NULL, &im->image), "vkCreateImage"))
		return false;
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(ctx->device, im->image, &req);
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size };
	if (!mem_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &ai.memoryTypeIndex) &&
	    !mem_type(ctx, req.memoryTypeBits, 0, &ai.memoryTypeIndex)) {
		fprintf(stderr, "no memory type for an image\n");
		return false;
	}
	if (!vk_ok(vkAllocateMemory(ctx->device, &ai, NULL, &im->memory), "vkAllocateMemory") ||
	    !vk_ok(vkBindImageMemory(ctx->device, im->image, im->memory, 0), "vkBindImageMemory"))
		return false;
	if (!(usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT))
		return true;
	VkImageViewCreateInfo vi = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = im->image, .viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = fmt, .subresourceRange = { aspect, 0, 1, 0, 1 },
	};
	return vk_ok(vkCreateImageView(ctx->device, &vi, NULL, &im->view), "vkCreateImageView");
}

static void img_destroy(struct vk_ctx *ctx, struct img *im)
{
	if (im->view)
		vkDestroyImageView(ctx->device, im->view, NULL);
	if (im->image)
		vkDestroyImage(ctx->device, im->image, NULL);
	if (im->memory)
		vkFreeMemory(ctx->device, im->memory, NULL);
}

/* One barrier moving the whole image from `from` to `to`, every transfer access before and after. */
static void layout(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, VkImageLayout from, VkImageLayout to)
{
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		.oldLayout = from, .newLayout = to, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image, .subresourceRange = { aspect, 0, 1, 0, 1 },
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
			     NULL, 1, &b);
}

static VkBufferImageCopy region(uint32_t w, uint32_t h, VkDeviceSize offset)
{
	return (VkBufferImageCopy){ .bufferOffset = offset, .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
				    .imageExtent = { w, h, 1 } };
}

/* Counts pixels of an RGBA8 readback that are not `want`; reports the first. */
static unsigned mismatches(const char *what, const uint8_t *px, uint32_t n, const uint8_t want[4])
{
	unsigned bad = 0;
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(px + 4 * i, want, 4)) {
			if (!bad)
				printf("check: %s pixel %u: want %u,%u,%u,%u got %u,%u,%u,%u\n", what, i, want[0], want[1],
				       want[2], want[3], px[4 * i], px[4 * i + 1], px[4 * i + 2], px[4 * i + 3]);
			bad++;
		}
	printf("check: %s: %u of %u pixels as expected\n", what, n - bad, n);
	return bad;
}

int main(int argc, char **argv)
{
	struct vk_ctx_options copt = { 0 };
	bool check = false;
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' }, { "device-name-contains", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'c') {
			check = true;
		} else if (c == 'd') {
			copt.device_name_contains = optarg;
		} else {
			fprintf(c == 'h' ? stdout : stderr, "usage: vk_image_traffic [--check] [--device-name-contains STR]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	struct vk_ctx ctx;
	if (!vk_ctx_init(&ctx, &copt))
		return 1;
	int status = 1;
	const VkFormat rgba = VK_FORMAT_R8G8B8A8_UNORM;
	const VkImageUsageFlags xfer = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	struct img a = { 0 }, b = { 0 }, lin = { 0 }, rp = { 0 }, depth = { 0 };
	struct vk_buf buf = { 0 };
	VkRenderPass pass = VK_NULL_HANDLE;
	VkFramebuffer fb = VK_NULL_HANDLE;
	VkCommandBuffer cb = VK_NULL_HANDLE;
	VkFence fence = VK_NULL_HANDLE;
	VkFormat dfmt = VK_FORMAT_D32_SFLOAT;
	VkFormatProperties fp;
	vkGetPhysicalDeviceFormatProperties(ctx.phys, dfmt, &fp);
	if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_DST_BIT))
		dfmt = VK_FORMAT_D16_UNORM;
	/* readbacks: a (W x H), b, rp's corner (W x H), lin */
	const VkDeviceSize plane = (VkDeviceSize)W * H * 4;
	if (!img_create(&ctx, &a, rgba, W, H, VK_IMAGE_TILING_OPTIMAL, xfer, VK_IMAGE_ASPECT_COLOR_BIT) ||
	    !img_create(&ctx, &b, rgba, W, H, VK_IMAGE_TILING_OPTIMAL, xfer, VK_IMAGE_ASPECT_COLOR_BIT) ||
	    !img_create(&ctx, &lin, rgba, W, H, VK_IMAGE_TILING_LINEAR, xfer, VK_IMAGE_ASPECT_COLOR_BIT) ||
	    !img_create(&ctx, &rp, rgba, RP_W, RP_H, VK_IMAGE_TILING_OPTIMAL, xfer | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
			VK_IMAGE_ASPECT_COLOR_BIT) ||
	    !img_create(&ctx, &depth, dfmt, W, H, VK_IMAGE_TILING_OPTIMAL, xfer, VK_IMAGE_ASPECT_DEPTH_BIT) ||
	    !vk_buf_create(&ctx, &buf, 5 * plane))
		goto out;
	memset(buf.map, 0x5a, 5 * plane);
	for (uint32_t i = 0; i < W * H; i++) /* plane 4: the upload source, a gradient */
		memcpy(buf.map + 4 * plane + 4 * i, (uint8_t[4]){ (uint8_t)i, (uint8_t)(i >> 8), 0x33, 0xff }, 4);
	if (!vk_buf_flush(&ctx, &buf))
		goto out;

	VkAttachmentDescription att = {
		.format = rgba, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	};
	VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
				     .pColorAttachments = &ref };
	VkRenderPassCreateInfo rpi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
				       .pAttachments = &att, .subpassCount = 1, .pSubpasses = &sub };
	if (!vk_ok(vkCreateRenderPass(ctx.device, &rpi, NULL, &pass), "vkCreateRenderPass"))
		goto out;
	VkFramebufferCreateInfo fbi = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = pass,
					.attachmentCount = 1, .pAttachments = &rp.view, .width = RP_W, .height = RP_H,
					.layers = 1 };
	if (!vk_ok(vkCreateFramebuffer(ctx.device, &fbi, NULL, &fb), "vkCreateFramebuffer"))
		goto out;
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					    .commandPool = ctx.pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					    .commandBufferCount = 1 };
	VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	if (!vk_ok(vkAllocateCommandBuffers(ctx.device, &cai, &cb), "vkAllocateCommandBuffers") ||
	    !vk_ok(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer"))
		goto out;

	const VkImageSubresourceRange color = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	const VkImageLayout dst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, src = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	/* clears: optimal a, linear lin, depth */
	layout(cb, a.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, dst);
	layout(cb, lin.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, dst);
	layout(cb, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED, dst);
	layout(cb, b.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, dst);
	vkCmdClearColorImage(cb, a.image, dst, &(VkClearColorValue){ .float32 = { 1, 0, 0, 1 } }, 1, &color);
	vkCmdClearColorImage(cb, lin.image, dst, &(VkClearColorValue){ .float32 = { 0, 0, 1, 1 } }, 1, &color);
	vkCmdClearDepthStencilImage(cb, depth.image, dst, &(VkClearDepthStencilValue){ 0.5f, 0 }, 1,
				    &(VkImageSubresourceRange){ VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 });
	/* the render pass clears rp to green and stores it */
	VkRenderPassBeginInfo rbi = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = pass, .framebuffer = fb,
		.renderArea = { { 0, 0 }, { RP_W, RP_H } }, .clearValueCount = 1,
		.pClearValues = &(VkClearValue){ .color.float32 = { 0, 1, 0, 1 } },
	};
	vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdEndRenderPass(cb);
	/* a -> b (copy), then the upload into b's lower half; a blit of rp's corner over a */
	layout(cb, a.image, VK_IMAGE_ASPECT_COLOR_BIT, dst, src);
	vkCmdCopyImage(cb, a.image, src, b.image, dst, 1,
		       &(VkImageCopy){ .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
				       .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 }, .extent = { W, H, 1 } });
	VkBufferImageCopy up = region(W, H / 2, 4 * plane);
	up.imageOffset.y = H / 2;
	vkCmdCopyBufferToImage(cb, buf.buffer, b.image, dst, 1, &up);
	layout(cb, a.image, VK_IMAGE_ASPECT_COLOR_BIT, src, dst);
	VkImageBlit blit = { .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
			     .srcOffsets = { { 0, 0, 0 }, { W, H, 1 } },
			     .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
			     .dstOffsets = { { 0, 0, 0 }, { W, H, 1 } } };
	vkCmdBlitImage(cb, rp.image, src, a.image, dst, 1, &blit, VK_FILTER_NEAREST);
	/* readbacks */
	layout(cb, a.image, VK_IMAGE_ASPECT_COLOR_BIT, dst, src);
	layout(cb, b.image, VK_IMAGE_ASPECT_COLOR_BIT, dst, src);
	layout(cb, lin.image, VK_IMAGE_ASPECT_COLOR_BIT, dst, src);
	VkBufferImageCopy r0 = region(W, H, 0), r1 = region(W, H, plane), r2 = region(W, H, 2 * plane),
			  r3 = region(W, H, 3 * plane);
	vkCmdCopyImageToBuffer(cb, a.image, src, buf.buffer, 1, &r0);
	vkCmdCopyImageToBuffer(cb, b.image, src, buf.buffer, 1, &r1);
	vkCmdCopyImageToBuffer(cb, rp.image, src, buf.buffer, 1, &r2);
	vkCmdCopyImageToBuffer(cb, lin.image, src, buf.buffer, 1, &r3);
	VkMemoryBarrier host = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
				 .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0, NULL);
	if (!vk_ok(vkEndCommandBuffer(cb), "vkEndCommandBuffer"))
		goto out;
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb };
	if (!vk_ok(vkCreateFence(ctx.device, &fci, NULL, &fence), "vkCreateFence") ||
	    !vk_ok(vkQueueSubmit(ctx.queue, 1, &si, fence), "vkQueueSubmit") ||
	    !vk_wait_fence(&ctx, fence, 60ull * 1000 * 1000 * 1000, "the image submit") || !vk_buf_invalidate(&ctx, &buf))
		goto out;

	static const uint8_t red[4] = { 255, 0, 0, 255 }, green[4] = { 0, 255, 0, 255 }, blue[4] = { 0, 0, 255, 255 };
	unsigned bad = mismatches("blit of the render pass's clear into a", buf.map, W * H, green);
	bad += mismatches("copy of a's clear into b, upper half", buf.map + plane, W * H / 2, red);
	unsigned up_bad = 0;
	for (uint32_t i = 0; i < W * H / 2; i++)
		up_bad += memcmp(buf.map + plane + plane / 2 + 4 * i, buf.map + 4 * plane + 4 * i, 4) != 0;
	printf("check: upload into b, lower half: %u of %u pixels as expected\n", W * H / 2 - up_bad, W * H / 2);
	bad += up_bad;
	bad += mismatches("render pass clear/store", buf.map + 2 * plane, W * H, green);
	bad += mismatches("linear image clear", buf.map + 3 * plane, W * H, blue);
	printf("vk_image_traffic: %s device=\"%s\" mismatched_pixels=%u\n", bad ? (check ? "FAIL" : "DONE") : "PASS",
	       ctx.props.deviceName, bad);
	status = bad && check ? 1 : 0;
out:
	if (fence)
		vkDestroyFence(ctx.device, fence, NULL);
	if (cb)
		vkFreeCommandBuffers(ctx.device, ctx.pool, 1, &cb);
	if (fb)
		vkDestroyFramebuffer(ctx.device, fb, NULL);
	if (pass)
		vkDestroyRenderPass(ctx.device, pass, NULL);
	vk_buf_destroy(&ctx, &buf);
	img_destroy(&ctx, &depth);
	img_destroy(&ctx, &rp);
	img_destroy(&ctx, &lin);
	img_destroy(&ctx, &b);
	img_destroy(&ctx, &a);
	vk_ctx_fini(&ctx);
	return status;
}
