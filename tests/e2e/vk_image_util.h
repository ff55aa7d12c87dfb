/* Image helpers for the e2e programs: device-local images, layout barriers, one-shot command
 * buffers, readback through a host-visible buffer, and the byte comparison every case reports. */
#ifndef FERRY_E2E_VK_IMAGE_UTIL_H
#define FERRY_E2E_VK_IMAGE_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "vk_context.h"

struct vk_img {
	VkImage image;
	VkDeviceMemory memory;
	VkFormat format;
	VkImageAspectFlags aspect;
	VkImageTiling tiling;
	uint32_t width, height;
	uint32_t cpp;  /* bytes per texel of the aspect copied to buffers */
};

/* Bytes per texel of the formats the cases use (the depth aspect for depth formats); 0 if
 * not one of them. */
uint32_t vk_format_cpp(VkFormat format);
const char *vk_format_short_name(VkFormat format);

/* Fails (with the reason printed) when the format lacks `features` for `tiling`: a case whose
 * format is not offered fails rather than passing without running. */
bool vk_img_supported(struct vk_ctx *ctx, VkFormat format, VkImageTiling tiling,
		      VkFormatFeatureFlags features);

bool vk_img_create(struct vk_ctx *ctx, struct vk_img *img, VkFormat format, uint32_t width,
		   uint32_t height, VkImageTiling tiling, VkImageUsageFlags usage);
void vk_img_destroy(struct vk_ctx *ctx, struct vk_img *img);

/* A full-image layout transition that makes writes of the earlier stage/access visible to the
 * later one. */
void vk_img_barrier(VkCommandBuffer cmd, const struct vk_img *img, VkImageLayout from,
		    VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access,
		    VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage);

/* Whole-image copies between an image in TRANSFER_{SRC,DST}_OPTIMAL and a tightly packed
 * buffer at offset 0. */
void vk_img_to_buf(VkCommandBuffer cmd, const struct vk_img *img, VkBuffer buf);
void vk_buf_to_img(VkCommandBuffer cmd, VkBuffer buf, const struct vk_img *img);

/* Transfer writes to these buffers become visible to the host. */
void vk_host_read_barrier(VkCommandBuffer cmd);

VkCommandBuffer vk_cmd_begin(struct vk_ctx *ctx);
/* Ends, submits with a fence and waits (timeout ends the process, see vk_wait_fences). Returns
 * the wait's VkResult (or the first failing call's); frees the command buffer. */
VkResult vk_cmd_submit_wait(struct vk_ctx *ctx, VkCommandBuffer cmd, uint64_t timeout_ns);

/* Compares `size` bytes; on a difference prints the first one as a texel position of an image
 * `row_bytes` wide. Returns true when all match. Prints nothing on success. */
bool vk_compare_bytes(const char *what, const uint8_t *got, const uint8_t *want, size_t size,
		      size_t row_bytes, uint32_t cpp);

/* Float to IEEE half for the values the cases use (normal numbers exact in 16 bits, and 0). */
uint16_t vk_half_from_float(float f);

#endif
