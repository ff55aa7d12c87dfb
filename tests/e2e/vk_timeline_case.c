/* vk_image_ops' timeline_semaphore: timeline semaphores through the driver, as ffmpeg's Vulkan
 * filters use them. With DRM_CAP_SYNCOBJ_TIMELINE at 1 Turnip makes them native syncobj
 * timelines (points in its submits, TIMELINE_WAIT, QUERY, TIMELINE_SIGNAL), and an exportable one
 * (OPAQUE_FD) exports and imports; v3dv keeps emulating them. Values are checked after submits
 * that wait and signal, a host signal, a wait submitted before its signal, and an fd round trip. */
#include <stdio.h>
#include <unistd.h>

#include "vk_image_cases.h"

/* The VK_KHR_timeline_semaphore entry points: the instance asks for 1.1 only. */
static PFN_vkWaitSemaphoresKHR wait_semaphores;
static PFN_vkGetSemaphoreCounterValueKHR counter_value;
static PFN_vkSignalSemaphoreKHR signal_semaphore;

static bool submit(VkQueue q, VkSemaphore s, uint64_t wait_value, uint64_t signal_value)
{
	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
	VkTimelineSemaphoreSubmitInfo ts = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.waitSemaphoreValueCount = 1, .pWaitSemaphoreValues = &wait_value,
		.signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &signal_value,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts,
		.waitSemaphoreCount = 1, .pWaitSemaphores = &s, .pWaitDstStageMask = &stage,
		.signalSemaphoreCount = 1, .pSignalSemaphores = &s,
	};
	return vk_ok(vkQueueSubmit(q, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit (timeline)");
}

static bool wait_value(struct case_env *e, VkSemaphore s, uint64_t value)
{
	VkSemaphoreWaitInfo wi = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &s, .pValues = &value,
	};
	VkResult r = wait_semaphores(e->ctx->device, &wi, e->timeout_ns);
	e->last_wait = vk_result_name(r);
	uint64_t now = 0;
	bool ok = vk_ok(r, "vkWaitSemaphores") &&
		  vk_ok(counter_value(e->ctx->device, s, &now), "vkGetSemaphoreCounterValue");
	printf("  wait for %llu: %s, value %llu\n", (unsigned long long)value, e->last_wait, (unsigned long long)now);
	return ok && now >= value;
}

bool case_timeline_semaphore(struct case_env *e)
{
	VkDevice dev = e->ctx->device;
	wait_semaphores = (PFN_vkWaitSemaphoresKHR)vkGetDeviceProcAddr(dev, "vkWaitSemaphoresKHR");
	counter_value = (PFN_vkGetSemaphoreCounterValueKHR)vkGetDeviceProcAddr(dev, "vkGetSemaphoreCounterValueKHR");
	signal_semaphore = (PFN_vkSignalSemaphoreKHR)vkGetDeviceProcAddr(dev, "vkSignalSemaphoreKHR");
	if (!e->ctx->timeline_semaphores || !wait_semaphores || !counter_value || !signal_semaphore) {
		fprintf(stderr, "VK_KHR_timeline_semaphore not offered\n");
		return false;
	}
	VkExportSemaphoreCreateInfo exp = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		.initialValue = 1,
	};
	/* Exportable where the device says a timeline can be (native timelines only). */
	VkPhysicalDeviceExternalSemaphoreInfo q = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO, .pNext = &type,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkExternalSemaphoreProperties props = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES };
	vkGetPhysicalDeviceExternalSemaphoreProperties(e->ctx->phys, &q, &props);
	bool exportable = e->ctx->external_semaphore_fd &&
			  (props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT);
	printf("  OPAQUE_FD timeline semaphores: %s\n", exportable ? "exportable" : "not exportable");
	if (exportable)
		type.pNext = &exp;
	VkSemaphoreCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type };
	VkSemaphore s = VK_NULL_HANDLE, imported = VK_NULL_HANDLE;
	if (!vk_ok(vkCreateSemaphore(dev, &ci, NULL, &s), "vkCreateSemaphore (timeline)"))
		return false;
	bool ok = submit(e->ctx->queue, s, 1, 3) && wait_value(e, s, 3);
	VkSemaphoreSignalInfo sig = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = s, .value = 5 };
	ok = ok && vk_ok(signal_semaphore(dev, &sig), "vkSignalSemaphore") && wait_value(e, s, 5);
	ok = ok && submit(e->ctx->queue, s, 5, 8) && wait_value(e, s, 8);
	/* Wait-before-signal: the submit waits for 10, which the host signals afterwards. */
	ok = ok && submit(e->ctx->queue, s, 10, 12);
	sig.value = 10;
	ok = ok && vk_ok(signal_semaphore(dev, &sig), "vkSignalSemaphore") && wait_value(e, s, 12);
	if (ok && exportable) {
		VkSemaphoreGetFdInfoKHR gi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR, .semaphore = s,
					       .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT };
		int fd = -1;
		PFN_vkGetSemaphoreFdKHR get_fd = (PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(dev, "vkGetSemaphoreFdKHR");
		PFN_vkImportSemaphoreFdKHR import_fd =
			(PFN_vkImportSemaphoreFdKHR)vkGetDeviceProcAddr(dev, "vkImportSemaphoreFdKHR");
		type.pNext = NULL;
		type.initialValue = 0;
		ok = get_fd && import_fd && vk_ok(get_fd(dev, &gi, &fd), "vkGetSemaphoreFdKHR") &&
		     vk_ok(vkCreateSemaphore(dev, &ci, NULL, &imported), "vkCreateSemaphore (import)");
		VkImportSemaphoreFdInfoKHR ii = { .sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
						  .semaphore = imported, .fd = fd,
						  .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT };
		if (ok && vk_ok(import_fd(dev, &ii), "vkImportSemaphoreFdKHR"))
			fd = -1; /* the driver owns it now */
		else
			ok = false;
		if (fd >= 0)
			close(fd);
		/* The imported semaphore is the same timeline: its value, and a submit on it that the
		 * original sees. */
		ok = ok && wait_value(e, imported, 12) && submit(e->ctx->queue, imported, 12, 14) && wait_value(e, s, 14);
	}
	if (imported)
		vkDestroySemaphore(dev, imported, NULL);
	vkQueueWaitIdle(e->ctx->queue);
	vkDestroySemaphore(dev, s, NULL);
	return ok;
}
