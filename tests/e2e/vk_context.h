/* Shared Vulkan setup for the e2e programs: instance, physical-device choice, one transfer-capable
 * queue, host-visible buffers (coherent or flushed), and VkResult reporting. */
#ifndef FERRY_E2E_VK_CONTEXT_H
#define FERRY_E2E_VK_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

struct vk_ctx {
	VkInstance instance;
	VkPhysicalDevice phys;
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties mem_props;
	char driver_name[VK_MAX_DRIVER_NAME_SIZE];
	uint32_t queue_family;
	VkQueueFamilyProperties queue_props;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	bool prefer_noncoherent;  /* pick HOST_VISIBLE without HOST_COHERENT where offered */
	/* VK_KHR_timeline_semaphore (its feature on), VK_KHR_external_{semaphore,fence,memory}_fd and
	 * VK_EXT_external_memory_dma_buf, enabled when the device offers them. */
	bool timeline_semaphores;
	bool external_semaphore_fd;
	bool external_fence_fd;
	bool external_memory_fd;
	bool external_memory_dma_buf;
};

struct vk_buf {
	VkBuffer buffer;
	VkDeviceMemory memory;
	uint8_t *map;
	VkDeviceSize size;
	uint32_t mem_type;
	bool coherent;
};

struct vk_ctx_options {
	const char *device_name_contains;  /* NULL: the first device */
	bool prefer_noncoherent;
};

const char *vk_result_name(VkResult r);

/* Reports "<what> failed: VK_ERROR_..." on stderr and returns false when r is not VK_SUCCESS. */
bool vk_ok(VkResult r, const char *what);

/* Creates everything up to the command pool; prints the devices and the chosen one. On failure
 * prints why, cleans up and returns false. */
bool vk_ctx_init(struct vk_ctx *ctx, const struct vk_ctx_options *opt);
void vk_ctx_fini(struct vk_ctx *ctx);

/* A transfer src+dst buffer of `size` bytes in its own host-visible allocation, mapped. */
bool vk_buf_create(struct vk_ctx *ctx, struct vk_buf *buf, VkDeviceSize size);
/* The same with more usages (vertex, storage). */
bool vk_buf_create_usage(struct vk_ctx *ctx, struct vk_buf *buf, VkDeviceSize size,
			 VkBufferUsageFlags extra_usage);
void vk_buf_destroy(struct vk_ctx *ctx, struct vk_buf *buf);

/* Host writes -> device (before a submit) and device writes -> host (after the fence); no-ops on
 * coherent memory. */
bool vk_buf_flush(struct vk_ctx *ctx, const struct vk_buf *buf);
bool vk_buf_invalidate(struct vk_ctx *ctx, const struct vk_buf *buf);

/* vkWaitForFences (all of them) with a finite timeout. A timeout is reported as such and ends the
 * process with status 1; other errors return false. */
bool vk_wait_fences(struct vk_ctx *ctx, uint32_t count, const VkFence *fences, uint64_t timeout_ns,
		    const char *what);
bool vk_wait_fence(struct vk_ctx *ctx, VkFence fence, uint64_t timeout_ns, const char *what);

/* Monotonic clock in nanoseconds. */
uint64_t vk_now_ns(void);

#endif
