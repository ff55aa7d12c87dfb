/* Image helpers shared by vk_image_ops' cases: everything here is plain Vulkan 1.1, so the same
 * calls run on Turnip and v3dv (through ferry) and on lavapipe. */
#include "vk_image_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t vk_format_cpp(VkFormat format)
{
	switch (format) {
	case VK_FORMAT_R8G8B8A8_UNORM: return 4;
	case VK_FORMAT_R32_UINT: return 4;
	case VK_FORMAT_R16G16B16A16_SFLOAT: return 8;
	case VK_FORMAT_D16_UNORM: return 2;
	case VK_FORMAT_D32_SFLOAT: return 4;
	default: return 0;
	}
}

const char *vk_format_short_name(VkFormat format)
{
	switch (format) {
	case VK_FORMAT_R8G8B8A8_UNORM: return "RGBA8_UNORM";
	case VK_FORMAT_R32_UINT: return "R32_UINT";
	case VK_FORMAT_R16G16B16A16_SFLOAT: return "RGBA16_SFLOAT";
	case VK_FORMAT_D16_UNORM: return "D16_UNORM";
	case VK_FORMAT_D32_SFLOAT: return "D32_SFLOAT";
	default: return "(format)";
	}
}

static bool is_depth(VkFormat format)
{
	return format == VK_FORMAT_D16_UNORM || format == VK_FORMAT_D32_SFLOAT;
}

bool vk_img_supported(struct vk_ctx *ctx, VkFormat format, VkImageTiling tiling,
		      VkFormatFeatureFlags features)
{
	VkFormatProperties props;
	vkGetPhysicalDeviceFormatProperties(ctx->phys, format, &props);
	VkFormatFeatureFlags have = tiling == VK_IMAGE_TILING_LINEAR ? props.linearTilingFeatures
								      : props.optimalTilingFeatures;
	if ((have & features) == features)
		return true;
	printf("  %s %s tiling lacks format features 0x%x (has 0x%x)\n", vk_format_short_name(format),
	       tiling == VK_IMAGE_TILING_LINEAR ? "linear" : "optimal", (unsigned)(features & ~have),
	       (unsigned)have);
	return false;
}

static bool pick_device_memory(const struct vk_ctx *ctx, uint32_t type_bits, uint32_t *out)
{
	/* Device-local first (where tiled and compressed layouts live), else anything allowed. */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++) {
			VkMemoryPropertyFlags f = ctx->mem_props.memoryTypes[i].propertyFlags;
			if (!(type_bits & (1u << i)))
				continue;
			if (pass == 1 || (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) {
				*out = i;
				return true;
			}
		}
	}
	return false;
}

bool vk_img_create(struct vk_ctx *ctx, struct vk_img *img, VkFormat format, uint32_t width,
		   uint32_t height, VkImageTiling tiling, VkImageUsageFlags usage)
{
	memset(img, 0, sizeof(*img));
	img->format = format;
	img->aspect = is_depth(format) ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
	img->tiling = tiling;
	img->width = width;
	img->height = height;
	img->cpp = vk_format_cpp(format);
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = format,
		.extent = {width, height, 1},
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = tiling,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (!vk_ok(vkCreateImage(ctx->device, &info, NULL, &img->image), "vkCreateImage"))
		return false;
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(ctx->device, img->image, &req);
	uint32_t type;
	if (!pick_device_memory(ctx, req.memoryTypeBits, &type)) {
		fprintf(stderr, "no memory type for an image (memoryTypeBits=0x%x)\n", req.memoryTypeBits);
		goto fail;
	}
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = type,
	};
	if (!vk_ok(vkAllocateMemory(ctx->device, &alloc, NULL, &img->memory), "vkAllocateMemory") ||
	    !vk_ok(vkBindImageMemory(ctx->device, img->image, img->memory, 0), "vkBindImageMemory"))
		goto fail;
	return true;
fail:
	vk_img_destroy(ctx, img);
	return false;
}

void vk_img_destroy(struct vk_ctx *ctx, struct vk_img *img)
{
	if (img->image)
		vkDestroyImage(ctx->device, img->image, NULL);
	if (img->memory)
		vkFreeMemory(ctx->device, img->memory, NULL);
	memset(img, 0, sizeof(*img));
}

void vk_img_barrier(VkCommandBuffer cmd, const struct vk_img *img, VkImageLayout from,
		    VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access,
		    VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage)
{
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = src_access,
		.dstAccessMask = dst_access,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = img->image,
		.subresourceRange = {img->aspect, 0, 1, 0, 1},
	};
	vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

static VkBufferImageCopy whole_copy(const struct vk_img *img)
{
	return (VkBufferImageCopy){
		.bufferOffset = 0,
		.bufferRowLength = 0,
		.bufferImageHeight = 0,
		.imageSubresource = {img->aspect, 0, 0, 1},
		.imageOffset = {0, 0, 0},
		.imageExtent = {img->width, img->height, 1},
	};
}

void vk_img_to_buf(VkCommandBuffer cmd, const struct vk_img *img, VkBuffer buf)
{
	VkBufferImageCopy r = whole_copy(img);
	vkCmdCopyImageToBuffer(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &r);
}

void vk_buf_to_img(VkCommandBuffer cmd, VkBuffer buf, const struct vk_img *img)
{
	VkBufferImageCopy r = whole_copy(img);
	vkCmdCopyBufferToImage(cmd, buf, img->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r);
}

void vk_host_read_barrier(VkCommandBuffer cmd)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b,
			     0, NULL, 0, NULL);
}

VkCommandBuffer vk_cmd_begin(struct vk_ctx *ctx)
{
	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	if (!vk_ok(vkAllocateCommandBuffers(ctx->device, &alloc, &cmd), "vkAllocateCommandBuffers"))
		return VK_NULL_HANDLE;
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	if (!vk_ok(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer")) {
		vkFreeCommandBuffers(ctx->device, ctx->pool, 1, &cmd);
		return VK_NULL_HANDLE;
	}
	return cmd;
}

VkResult vk_cmd_submit_wait(struct vk_ctx *ctx, VkCommandBuffer cmd, uint64_t timeout_ns)
{
	VkFence fence = VK_NULL_HANDLE;
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkResult r = vkEndCommandBuffer(cmd);
	if (r == VK_SUCCESS)
		r = vkCreateFence(ctx->device, &fi, NULL, &fence);
	if (r == VK_SUCCESS) {
		VkSubmitInfo si = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			.commandBufferCount = 1,
			.pCommandBuffers = &cmd,
		};
		r = vkQueueSubmit(ctx->queue, 1, &si, fence);
		if (r != VK_SUCCESS)
			printf("  vkQueueSubmit: %s\n", vk_result_name(r));
	}
	if (r == VK_SUCCESS) {
		r = vkWaitForFences(ctx->device, 1, &fence, VK_TRUE, timeout_ns);
		if (r == VK_TIMEOUT) {
			/* A hung queue still uses the objects: nothing can be destroyed, so stop here. */
			printf("vkWaitForFences timed out after %.1f s\n", (double)timeout_ns / 1e9);
			exit(1);
		}
		if (r != VK_SUCCESS)
			printf("  vkWaitForFences: %s\n", vk_result_name(r));
	}
	if (fence)
		vkDestroyFence(ctx->device, fence, NULL);
	if (r == VK_SUCCESS)
		vkFreeCommandBuffers(ctx->device, ctx->pool, 1, &cmd);
	/* else the command buffer may still be pending on a lost device; the pool frees it. */
	return r;
}

bool vk_compare_bytes(const char *what, const uint8_t *got, const uint8_t *want, size_t size,
		      size_t row_bytes, uint32_t cpp)
{
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < size; i++) {
		if (got[i] != want[i] && bad++ == 0)
			first = i;
	}
	if (bad == 0)
		return true;
	size_t x = row_bytes ? (first % row_bytes) / cpp : 0, y = row_bytes ? first / row_bytes : 0;
	size_t t = first - first % cpp;  /* the texel holding the first difference */
	printf("  %s: first difference at byte %zu (texel %zu,%zu byte %zu): want 0x%02x got 0x%02x; "
	       "texel want", what, first, x, y, first % cpp, want[first], got[first]);
	for (uint32_t b = 0; b < cpp && t + b < size; b++)
		printf(" %02x", want[t + b]);
	printf(" got");
	for (uint32_t b = 0; b < cpp && t + b < size; b++)
		printf(" %02x", got[t + b]);
	printf("; %zu of %zu bytes differ\n", bad, size);
	return false;
}

uint16_t vk_half_from_float(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof(bits));
	uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
	int32_t exp = (int32_t)((bits >> 23) & 0xffu);
	uint32_t mant = bits & 0x7fffffu;
	if (exp == 0 && mant == 0)
		return sign;
	/* Only values whose half form is exact and normal are used: rebias the exponent and keep
	 * the top 10 mantissa bits. */
	int32_t e = exp - 127 + 15;
	if (e <= 0 || e >= 31 || (mant & 0x1fffu)) {
		fprintf(stderr, "vk_half_from_float: %g has no exact normal half\n", (double)f);
		abort();
	}
	return (uint16_t)(sign | (uint32_t)e << 10 | mant >> 13);
}
