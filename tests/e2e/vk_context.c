/* Vulkan setup shared by the e2e programs: no layers and no surface extensions, so the same code
 * runs on lavapipe, Turnip and v3dv, natively or through ferry's shim. */
#include "vk_context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *vk_result_name(VkResult r)
{
	switch (r) {
	case VK_SUCCESS: return "VK_SUCCESS";
	case VK_NOT_READY: return "VK_NOT_READY";
	case VK_TIMEOUT: return "VK_TIMEOUT";
	case VK_INCOMPLETE: return "VK_INCOMPLETE";
	case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
	case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
	case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
	case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
	case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
	case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
	case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
	case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
	case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
	case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
	case VK_ERROR_UNKNOWN: return "VK_ERROR_UNKNOWN";
	default: return "VkResult(other)";
	}
}

bool vk_ok(VkResult r, const char *what)
{
	if (r == VK_SUCCESS)
		return true;
	fprintf(stderr, "%s failed: %s (%d)\n", what, vk_result_name(r), (int)r);
	return false;
}

uint64_t vk_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool device_has_extension(VkPhysicalDevice phys, const char *name)
{
	uint32_t count = 0;
	if (vkEnumerateDeviceExtensionProperties(phys, NULL, &count, NULL) != VK_SUCCESS || count == 0)
		return false;
	VkExtensionProperties *exts = calloc(count, sizeof(*exts));
	if (!exts)
		return false;
	bool found = false;
	if (vkEnumerateDeviceExtensionProperties(phys, NULL, &count, exts) == VK_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; i++)
			found = strcmp(exts[i].extensionName, name) == 0;
	}
	free(exts);
	return found;
}

/* driverName is what tells Turnip from freedreno-on-something-else; it needs 1.2 or the
 * extension, which every driver this targets has. */
static void query_driver_name(VkPhysicalDevice phys, const VkPhysicalDeviceProperties *props,
			      char out[VK_MAX_DRIVER_NAME_SIZE])
{
	snprintf(out, VK_MAX_DRIVER_NAME_SIZE, "(unknown)");
	if (props->apiVersion < VK_API_VERSION_1_1)
		return;
	if (props->apiVersion < VK_API_VERSION_1_2 &&
	    !device_has_extension(phys, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME))
		return;
	VkPhysicalDeviceDriverProperties driver = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
	};
	VkPhysicalDeviceProperties2 props2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &driver,
	};
	vkGetPhysicalDeviceProperties2(phys, &props2);
	snprintf(out, VK_MAX_DRIVER_NAME_SIZE, "%s", driver.driverName);
}

static void print_device(const char *label, uint32_t index, const VkPhysicalDeviceProperties *p,
			 const char *driver_name)
{
	printf("%s[%u]: vendorID=0x%04x deviceID=0x%08x deviceName=\"%s\" driverName=\"%s\" "
	       "apiVersion=%u.%u.%u\n",
	       label, index, p->vendorID, p->deviceID, p->deviceName, driver_name,
	       VK_API_VERSION_MAJOR(p->apiVersion), VK_API_VERSION_MINOR(p->apiVersion),
	       VK_API_VERSION_PATCH(p->apiVersion));
}

static bool create_instance(struct vk_ctx *ctx)
{
	uint32_t loader_version = VK_API_VERSION_1_0;
	if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS ||
	    loader_version < VK_API_VERSION_1_1) {
		fprintf(stderr, "the Vulkan loader offers only 1.0; this program needs 1.1\n");
		return false;
	}
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "ferry-e2e",
		.applicationVersion = 1,
		.pEngineName = "ferry",
		.engineVersion = 1,
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	return vk_ok(vkCreateInstance(&info, NULL, &ctx->instance), "vkCreateInstance");
}

static bool pick_physical_device(struct vk_ctx *ctx, const char *name_contains)
{
	uint32_t count = 0;
	if (!vk_ok(vkEnumeratePhysicalDevices(ctx->instance, &count, NULL), "vkEnumeratePhysicalDevices"))
		return false;
	if (count == 0) {
		fprintf(stderr, "no Vulkan physical device (check VK_ICD_FILENAMES and the driver's log)\n");
		return false;
	}
	VkPhysicalDevice *devs = calloc(count, sizeof(*devs));
	if (!devs) {
		fprintf(stderr, "out of memory\n");
		return false;
	}
	bool picked = false;
	VkResult r = vkEnumeratePhysicalDevices(ctx->instance, &count, devs);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		vk_ok(r, "vkEnumeratePhysicalDevices");
		free(devs);
		return false;
	}
	for (uint32_t i = 0; i < count; i++) {
		VkPhysicalDeviceProperties p;
		char driver[VK_MAX_DRIVER_NAME_SIZE];
		vkGetPhysicalDeviceProperties(devs[i], &p);
		query_driver_name(devs[i], &p, driver);
		print_device("device", i, &p, driver);
		if (picked || (name_contains && !strstr(p.deviceName, name_contains)))
			continue;
		picked = true;
		ctx->phys = devs[i];
		ctx->props = p;
		memcpy(ctx->driver_name, driver, sizeof(driver));
	}
	free(devs);
	if (!picked) {
		fprintf(stderr, "no device whose name contains \"%s\"\n", name_contains);
		return false;
	}
	vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem_props);
	return true;
}

/* Graphics and compute queues can do every transfer command; a transfer-only family can too
 * (vkCmdFillBuffer there is 1.1 core). The universal family comes first when there is one. */
static bool pick_queue_family(struct vk_ctx *ctx)
{
	uint32_t count = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(ctx->phys, &count, NULL);
	VkQueueFamilyProperties *fams = calloc(count ? count : 1, sizeof(*fams));
	if (!fams) {
		fprintf(stderr, "out of memory\n");
		return false;
	}
	vkGetPhysicalDeviceQueueFamilyProperties(ctx->phys, &count, fams);
	static const VkQueueFlags preference[] = {
		VK_QUEUE_GRAPHICS_BIT, VK_QUEUE_COMPUTE_BIT, VK_QUEUE_TRANSFER_BIT,
	};
	bool found = false;
	for (size_t p = 0; p < sizeof(preference) / sizeof(preference[0]) && !found; p++) {
		for (uint32_t i = 0; i < count && !found; i++) {
			if (fams[i].queueCount == 0 || !(fams[i].queueFlags & preference[p]))
				continue;
			ctx->queue_family = i;
			ctx->queue_props = fams[i];
			found = true;
		}
	}
	free(fams);
	if (!found)
		fprintf(stderr, "the device has no queue family that can run transfer commands\n");
	return found;
}

bool vk_ctx_init(struct vk_ctx *ctx, const struct vk_ctx_options *opt)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->prefer_noncoherent = opt->prefer_noncoherent;
	if (!create_instance(ctx))
		return false;
	if (!pick_physical_device(ctx, opt->device_name_contains) || !pick_queue_family(ctx))
		goto fail;
	print_device("using device", 0, &ctx->props, ctx->driver_name);
	printf("queue family %u: flags=0x%x count=%u timestampValidBits=%u timestampPeriod=%g ns\n",
	       ctx->queue_family, (unsigned)ctx->queue_props.queueFlags, ctx->queue_props.queueCount,
	       ctx->queue_props.timestampValidBits, (double)ctx->props.limits.timestampPeriod);

	float priority = 1.0f;
	VkDeviceQueueCreateInfo queue_info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = ctx->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	const char *exts[8];
	uint32_t nr_exts = 0;
	VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		.timelineSemaphore = VK_TRUE,
	};
	ctx->timeline_semaphores = device_has_extension(ctx->phys, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
	if (ctx->timeline_semaphores)
		exts[nr_exts++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
	ctx->external_semaphore_fd = device_has_extension(ctx->phys, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
	if (ctx->external_semaphore_fd)
		exts[nr_exts++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
	ctx->external_fence_fd = device_has_extension(ctx->phys, VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME);
	if (ctx->external_fence_fd)
		exts[nr_exts++] = VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME;
	ctx->external_memory_fd = device_has_extension(ctx->phys, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
	if (ctx->external_memory_fd)
		exts[nr_exts++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
	ctx->external_memory_dma_buf = ctx->external_memory_fd &&
				       device_has_extension(ctx->phys, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
	if (ctx->external_memory_dma_buf)
		exts[nr_exts++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
	VkDeviceCreateInfo dev_info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = ctx->timeline_semaphores ? &timeline : NULL,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue_info,
		.enabledExtensionCount = nr_exts,
		.ppEnabledExtensionNames = exts,
	};
	if (!vk_ok(vkCreateDevice(ctx->phys, &dev_info, NULL, &ctx->device), "vkCreateDevice"))
		goto fail;
	vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);

	VkCommandPoolCreateInfo pool_info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = ctx->queue_family,
	};
	if (!vk_ok(vkCreateCommandPool(ctx->device, &pool_info, NULL, &ctx->pool), "vkCreateCommandPool"))
		goto fail;
	return true;
fail:
	vk_ctx_fini(ctx);
	return false;
}

void vk_ctx_fini(struct vk_ctx *ctx)
{
	if (ctx->device) {
		vkDeviceWaitIdle(ctx->device);
		if (ctx->pool)
			vkDestroyCommandPool(ctx->device, ctx->pool, NULL);
		vkDestroyDevice(ctx->device, NULL);
	}
	if (ctx->instance)
		vkDestroyInstance(ctx->instance, NULL);
	memset(ctx, 0, sizeof(*ctx));
}

/* Coherent memory first unless asked otherwise; any host-visible type as the last resort. */
static bool pick_memory_type(const struct vk_ctx *ctx, uint32_t type_bits, uint32_t *out)
{
	const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
	const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++) {
			VkMemoryPropertyFlags f = ctx->mem_props.memoryTypes[i].propertyFlags;
			if (!(type_bits & (1u << i)) || !(f & visible))
				continue;
			bool is_coherent = (f & coherent) != 0;
			if (pass == 1 || is_coherent != ctx->prefer_noncoherent) {
				*out = i;
				return true;
			}
		}
	}
	return false;
}

bool vk_buf_create(struct vk_ctx *ctx, struct vk_buf *buf, VkDeviceSize size)
{
	return vk_buf_create_usage(ctx, buf, size, 0);
}

bool vk_buf_create_usage(struct vk_ctx *ctx, struct vk_buf *buf, VkDeviceSize size,
			 VkBufferUsageFlags extra_usage)
{
	memset(buf, 0, sizeof(*buf));
	buf->size = size;
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | extra_usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	if (!vk_ok(vkCreateBuffer(ctx->device, &info, NULL, &buf->buffer), "vkCreateBuffer"))
		return false;
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->device, buf->buffer, &req);
	if (!pick_memory_type(ctx, req.memoryTypeBits, &buf->mem_type)) {
		fprintf(stderr, "no host-visible memory type for a buffer (memoryTypeBits=0x%x)\n",
			req.memoryTypeBits);
		goto fail;
	}
	buf->coherent = (ctx->mem_props.memoryTypes[buf->mem_type].propertyFlags &
			 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = buf->mem_type,
	};
	if (!vk_ok(vkAllocateMemory(ctx->device, &alloc, NULL, &buf->memory), "vkAllocateMemory"))
		goto fail;
	if (!vk_ok(vkBindBufferMemory(ctx->device, buf->buffer, buf->memory, 0), "vkBindBufferMemory"))
		goto fail;
	void *map = NULL;
	if (!vk_ok(vkMapMemory(ctx->device, buf->memory, 0, VK_WHOLE_SIZE, 0, &map), "vkMapMemory"))
		goto fail;
	buf->map = map;
	return true;
fail:
	vk_buf_destroy(ctx, buf);
	return false;
}

void vk_buf_destroy(struct vk_ctx *ctx, struct vk_buf *buf)
{
	if (buf->map)
		vkUnmapMemory(ctx->device, buf->memory);
	if (buf->buffer)
		vkDestroyBuffer(ctx->device, buf->buffer, NULL);
	if (buf->memory)
		vkFreeMemory(ctx->device, buf->memory, NULL);
	memset(buf, 0, sizeof(*buf));
}

/* The whole mapping from offset 0 meets the nonCoherentAtomSize rules without rounding. */
static VkMappedMemoryRange whole_range(const struct vk_buf *buf)
{
	return (VkMappedMemoryRange){
		.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
		.memory = buf->memory,
		.offset = 0,
		.size = VK_WHOLE_SIZE,
	};
}

bool vk_buf_flush(struct vk_ctx *ctx, const struct vk_buf *buf)
{
	if (buf->coherent)
		return true;
	VkMappedMemoryRange range = whole_range(buf);
	return vk_ok(vkFlushMappedMemoryRanges(ctx->device, 1, &range), "vkFlushMappedMemoryRanges");
}

bool vk_buf_invalidate(struct vk_ctx *ctx, const struct vk_buf *buf)
{
	if (buf->coherent)
		return true;
	VkMappedMemoryRange range = whole_range(buf);
	return vk_ok(vkInvalidateMappedMemoryRanges(ctx->device, 1, &range),
		     "vkInvalidateMappedMemoryRanges");
}

bool vk_wait_fences(struct vk_ctx *ctx, uint32_t count, const VkFence *fences, uint64_t timeout_ns,
		    const char *what)
{
	VkResult r = vkWaitForFences(ctx->device, count, fences, VK_TRUE, timeout_ns);
	if (r == VK_TIMEOUT) {
		fprintf(stderr, "vkWaitForFences timed out after %.1f s waiting for %s: the GPU never "
			"signaled it (a hang, or a fence lost on the way back)\n",
			(double)timeout_ns / 1e9, what);
		/* Objects a hung queue still uses cannot be destroyed and vkDeviceWaitIdle would block
		 * for ever, so the process ends here. */
		exit(1);
	}
	return vk_ok(r, "vkWaitForFences");
}

bool vk_wait_fence(struct vk_ctx *ctx, VkFence fence, uint64_t timeout_ns, const char *what)
{
	return vk_wait_fences(ctx, 1, &fence, timeout_ns, what);
}
