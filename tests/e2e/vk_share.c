/* vk_share: Vulkan external memory, semaphores and fences between two processes, as a video
 * pipeline or a compositor and its client use them. The producer fills an exportable buffer on
 * the GPU (a fill and a copy from staging), signals an exportable semaphore and fence, and hands
 * the memory fd (DMA_BUF or OPAQUE_FD), the semaphore's and the fence's SYNC_FD over a unix socket
 * to a consumer it starts with --spawn (its own device; it shares no memory with the producer).
 * The consumer imports all three, waits for the fence, copies the imported buffer into its own
 * host-visible one with the semaphore as the submit's wait, and checks every byte.
 * With --sync opaque_fd the semaphore and fence are OPAQUE_FD ones (syncobjs), handed over before
 * the producer submits anything: the consumer's fence wait sees a submit of another process, and
 * its reset of the fence is seen by the producer.
 *
 *   vk_share [--memory dma_buf|opaque_fd] [--sync sync_fd|opaque_fd] --spawn 'COMMAND'
 *       (COMMAND + " --consumer FD ..." runs the consumer, through /bin/sh) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vk_context.h"

#define BUF_SIZE 65536u
#define FILL_WORD 0x5a5a1234u
#define WAIT_NS (60ull * 1000000000ull)

static uint32_t expected(uint32_t i)
{
	return i < BUF_SIZE / 8 ? FILL_WORD : 0x9e3779b9u * (i + 1);
}

static int send_fds(int sock, const int *fds, int n)
{
	char byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	char buf[CMSG_SPACE(3 * sizeof(int))];
	memset(buf, 0, sizeof(buf));
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = CMSG_SPACE((size_t)n * sizeof(int)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, (size_t)n * sizeof(int));
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

static int recv_fds(int sock, int *fds, int n)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	char buf[CMSG_SPACE(3 * sizeof(int))];
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof(buf) };
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN((size_t)n * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(c), (size_t)n * sizeof(int));
	return 0;
}

static uint32_t pick_type(const struct vk_ctx *ctx, uint32_t bits)
{
	for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (ctx->mem_props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
			return i;
	for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++)
		if (bits & (1u << i))
			return i;
	return UINT32_MAX;
}

/* A buffer over external memory: exported (import_fd < 0) or imported from import_fd. */
static bool external_buffer(struct vk_ctx *ctx, VkExternalMemoryHandleTypeFlagBits type, int import_fd,
			    VkBuffer *buf, VkDeviceMemory *mem)
{
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = type,
	};
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &ext, .size = BUF_SIZE,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	if (!vk_ok(vkCreateBuffer(ctx->device, &info, NULL, buf), "vkCreateBuffer(external)"))
		return false;
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(ctx->device, *buf, &req);
	uint32_t bits = req.memoryTypeBits;
	VkExportMemoryAllocateInfo exp = { .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, .handleTypes = type };
	VkImportMemoryFdInfoKHR imp = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, .handleType = type, .fd = import_fd,
	};
	if (import_fd >= 0 && type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT) {
		PFN_vkGetMemoryFdPropertiesKHR props_of =
			(PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(ctx->device, "vkGetMemoryFdPropertiesKHR");
		VkMemoryFdPropertiesKHR p = { .sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR };
		if (!props_of || !vk_ok(props_of(ctx->device, type, import_fd, &p), "vkGetMemoryFdPropertiesKHR"))
			return false;
		bits &= p.memoryTypeBits;
	}
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = import_fd >= 0 ? (const void *)&imp : (const void *)&exp,
		.allocationSize = req.size,
		.memoryTypeIndex = pick_type(ctx, bits),
	};
	if (alloc.memoryTypeIndex == UINT32_MAX) {
		fprintf(stderr, "no memory type for the external buffer (bits 0x%x)\n", bits);
		return false;
	}
	return vk_ok(vkAllocateMemory(ctx->device, &alloc, NULL, mem), import_fd >= 0 ? "vkAllocateMemory(import)" : "vkAllocateMemory(export)") &&
	       vk_ok(vkBindBufferMemory(ctx->device, *buf, *mem, 0), "vkBindBufferMemory");
}

static bool record_and_submit(struct vk_ctx *ctx, VkCommandBuffer *cmd, void (*rec)(VkCommandBuffer, void *), void *arg,
			      VkSemaphore wait, VkSemaphore signal, VkFence fence)
{
	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = ctx->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1,
	};
	VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	if (!vk_ok(vkAllocateCommandBuffers(ctx->device, &alloc, cmd), "vkAllocateCommandBuffers") ||
	    !vk_ok(vkBeginCommandBuffer(*cmd, &begin), "vkBeginCommandBuffer"))
		return false;
	rec(*cmd, arg);
	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	VkSubmitInfo s = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.waitSemaphoreCount = wait ? 1 : 0, .pWaitSemaphores = &wait, .pWaitDstStageMask = &stage,
		.commandBufferCount = 1, .pCommandBuffers = cmd,
		.signalSemaphoreCount = signal ? 1 : 0, .pSignalSemaphores = &signal,
	};
	return vk_ok(vkEndCommandBuffer(*cmd), "vkEndCommandBuffer") &&
	       vk_ok(vkQueueSubmit(ctx->queue, 1, &s, fence), "vkQueueSubmit");
}

struct produce {
	VkBuffer staging, shared;
};

static void rec_produce(VkCommandBuffer cmd, void *p)
{
	struct produce *a = p;
	vkCmdFillBuffer(cmd, a->shared, 0, BUF_SIZE / 2, FILL_WORD);
	VkBufferCopy region = { .srcOffset = BUF_SIZE / 2, .dstOffset = BUF_SIZE / 2, .size = BUF_SIZE / 2 };
	vkCmdCopyBuffer(cmd, a->staging, a->shared, 1, &region);
}

struct consume {
	VkBuffer shared, dst;
};

static void rec_consume(VkCommandBuffer cmd, void *p)
{
	struct consume *a = p;
	VkBufferCopy region = { .size = BUF_SIZE };
	vkCmdCopyBuffer(cmd, a->shared, a->dst, 1, &region);
}

/* Both sides' device objects: waited for, then destroyed (VK_NULL_HANDLE ones skipped). */
static void destroy_objects(struct vk_ctx *ctx, VkSemaphore sem, VkFence fence, VkBuffer buf, VkDeviceMemory mem)
{
	if (!ctx->device)
		return;
	vkDeviceWaitIdle(ctx->device);
	if (sem)
		vkDestroySemaphore(ctx->device, sem, NULL);
	if (fence)
		vkDestroyFence(ctx->device, fence, NULL);
	if (buf)
		vkDestroyBuffer(ctx->device, buf, NULL);
	if (mem)
		vkFreeMemory(ctx->device, mem, NULL);
}

static bool check_ctx(const struct vk_ctx *ctx, bool dma_buf)
{
	if (ctx->external_memory_fd && ctx->external_semaphore_fd && ctx->external_fence_fd &&
	    (!dma_buf || ctx->external_memory_dma_buf))
		return true;
	fprintf(stderr, "the device lacks external memory/semaphore/fence fds%s\n", dma_buf ? " or dma-buf" : "");
	return false;
}

/* How the semaphore and fence cross: SYNC_FD (a sync file of submitted work) or OPAQUE_FD (the
 * syncobj itself, before anything was submitted to it). */
struct sync_kind {
	const char *name;
	VkExternalSemaphoreHandleTypeFlagBits sem;
	VkExternalFenceHandleTypeFlagBits fence;
	bool opaque;
};

static bool tell(int sock, char c)
{
	return write(sock, &c, 1) == 1;
}

static bool heard(int sock, char want)
{
	char c = 0;
	return read(sock, &c, 1) == 1 && c == want;
}

static int consumer(int sock, VkExternalMemoryHandleTypeFlagBits type, const struct sync_kind *sync)
{
	struct vk_ctx ctx;
	struct vk_ctx_options opt = { 0 };
	int fds[3] = { -1, -1, -1 };
	if (!vk_ctx_init(&ctx, &opt))
		return 1;
	int status = 1;
	VkBuffer shared = VK_NULL_HANDLE;
	VkDeviceMemory mem = VK_NULL_HANDLE;
	VkSemaphore sem = VK_NULL_HANDLE;
	VkFence fence = VK_NULL_HANDLE, done = VK_NULL_HANDLE;
	struct vk_buf dst = { 0 };
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	if (!check_ctx(&ctx, type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT) || recv_fds(sock, fds, 3) < 0) {
		fprintf(stderr, "consumer: no fds from the producer\n");
		goto out;
	}
	printf("consumer: got memory, semaphore and fence fds\n");
	/* Imports take the fds over when they succeed. */
	if (!external_buffer(&ctx, type, fds[0], &shared, &mem))
		goto out;
	fds[0] = -1;
	VkSemaphoreCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	PFN_vkImportSemaphoreFdKHR import_sem =
		(PFN_vkImportSemaphoreFdKHR)vkGetDeviceProcAddr(ctx.device, "vkImportSemaphoreFdKHR");
	PFN_vkImportFenceFdKHR import_fence = (PFN_vkImportFenceFdKHR)vkGetDeviceProcAddr(ctx.device, "vkImportFenceFdKHR");
	/* SYNC_FD imports are temporary by the spec; OPAQUE_FD ones here permanent: the consumer's
	 * semaphore and fence become the producer's syncobjs. */
	VkImportSemaphoreFdInfoKHR is = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
		.flags = sync->opaque ? 0 : VK_SEMAPHORE_IMPORT_TEMPORARY_BIT, .handleType = sync->sem, .fd = fds[1],
	};
	VkImportFenceFdInfoKHR ifd = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_FENCE_FD_INFO_KHR,
		.flags = sync->opaque ? 0 : VK_FENCE_IMPORT_TEMPORARY_BIT, .handleType = sync->fence, .fd = fds[2],
	};
	if (!vk_ok(vkCreateSemaphore(ctx.device, &si, NULL, &sem), "vkCreateSemaphore") ||
	    !vk_ok(vkCreateFence(ctx.device, &fi, NULL, &fence), "vkCreateFence") ||
	    !vk_ok(vkCreateFence(ctx.device, &fi, NULL, &done), "vkCreateFence"))
		goto out;
	is.semaphore = sem;
	ifd.fence = fence;
	if (!vk_ok(import_sem(ctx.device, &is), "vkImportSemaphoreFdKHR"))
		goto out;
	fds[1] = -1;
	if (!vk_ok(import_fence(ctx.device, &ifd), "vkImportFenceFdKHR"))
		goto out;
	fds[2] = -1;
	if (!vk_buf_create(&ctx, &dst, BUF_SIZE))
		goto out;
	memset(dst.map, 0, BUF_SIZE);
	if (!vk_buf_flush(&ctx, &dst))
		goto out;
	/* The copy waits for the producer's semaphore; the imported fence is the producer's too. An
	 * OPAQUE_FD pair came before the producer submitted: the fence wait comes first (a binary
	 * semaphore's signal must be submitted before a wait on it is), then the producer submits. */
	struct consume c = { shared, dst.buffer };
	if (sync->opaque) {
		VkResult st = vkGetFenceStatus(ctx.device, fence);
		printf("consumer: the producer's fence before its submit: %s\n", st == VK_NOT_READY ? "not ready" : "ready?");
		if (st != VK_NOT_READY || !tell(sock, 'r') || !vk_wait_fence(&ctx, fence, WAIT_NS, "the producer's fence"))
			goto out;
	}
	if (!record_and_submit(&ctx, &cmd, rec_consume, &c, sem, VK_NULL_HANDLE, done) ||
	    !vk_wait_fence(&ctx, fence, WAIT_NS, "the producer's fence") || !vk_wait_fence(&ctx, done, WAIT_NS, "the copy"))
		goto out;
	printf("consumer: the producer's fence signaled here\n");
	/* The fence is the producer's syncobj: resetting it here resets it there. */
	if (sync->opaque && !vk_ok(vkResetFences(ctx.device, 1, &fence), "vkResetFences"))
		goto out;
	if (!vk_buf_invalidate(&ctx, &dst))
		goto out;
	const uint32_t *w = (const uint32_t *)dst.map;
	uint32_t bad = 0;
	for (uint32_t i = 0; i < BUF_SIZE / 4; i++)
		if (w[i] != expected(i) && bad++ < 4)
			fprintf(stderr, "consumer: word %u is 0x%08x, wanted 0x%08x\n", i, w[i], expected(i));
	printf("consumer: %u of %u words differ\n", bad, BUF_SIZE / 4);
	status = bad ? 1 : 0;
out:
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (dst.buffer)
		vk_buf_destroy(&ctx, &dst);
	destroy_objects(&ctx, sem, fence, shared, mem);
	destroy_objects(&ctx, VK_NULL_HANDLE, done, VK_NULL_HANDLE, VK_NULL_HANDLE);
	vk_ctx_fini(&ctx);
	return status;
}

/* Starts the consumer: COMMAND --consumer FD --memory M through /bin/sh, without this process's
 * LD_PRELOAD (COMMAND sets up the consumer's own). */
static pid_t spawn(const char *command, int sock, const char *memory, const char *sync)
{
	char cmd[4096];
	int n = snprintf(cmd, sizeof(cmd), "%s --consumer %d --memory %s --sync %s", command, sock, memory, sync);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		unsetenv("LD_PRELOAD");
		fcntl(sock, F_SETFD, 0); /* the consumer's end crosses the exec */
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int producer(const char *command, VkExternalMemoryHandleTypeFlagBits type, const char *memory,
		    const struct sync_kind *sync)
{
	struct vk_ctx ctx;
	struct vk_ctx_options opt = { 0 };
	if (!vk_ctx_init(&ctx, &opt))
		return 1;
	int status = 1, fds[3] = { -1, -1, -1 }, sv[2] = { -1, -1 };
	pid_t pid = -1;
	struct vk_buf staging = { 0 };
	VkBuffer shared = VK_NULL_HANDLE;
	VkDeviceMemory mem = VK_NULL_HANDLE;
	VkSemaphore sem = VK_NULL_HANDLE;
	VkFence fence = VK_NULL_HANDLE;
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	if (!check_ctx(&ctx, type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT) ||
	    !external_buffer(&ctx, type, -1, &shared, &mem) || !vk_buf_create(&ctx, &staging, BUF_SIZE))
		goto out;
	uint32_t *w = (uint32_t *)staging.map;
	for (uint32_t i = 0; i < BUF_SIZE / 4; i++)
		w[i] = expected(i);
	if (!vk_buf_flush(&ctx, &staging))
		goto out;
	VkExportSemaphoreCreateInfo es = { .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO, .handleTypes = sync->sem };
	VkSemaphoreCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &es };
	VkExportFenceCreateInfo ef = { .sType = VK_STRUCTURE_TYPE_EXPORT_FENCE_CREATE_INFO, .handleTypes = sync->fence };
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .pNext = &ef };
	if (!vk_ok(vkCreateSemaphore(ctx.device, &si, NULL, &sem), "vkCreateSemaphore(export)") ||
	    !vk_ok(vkCreateFence(ctx.device, &fi, NULL, &fence), "vkCreateFence(export)"))
		goto out;
	struct produce pr = { staging.buffer, shared };
	if (!sync->opaque && !record_and_submit(&ctx, &cmd, rec_produce, &pr, VK_NULL_HANDLE, sem, fence))
		goto out;
	PFN_vkGetMemoryFdKHR mem_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(ctx.device, "vkGetMemoryFdKHR");
	PFN_vkGetSemaphoreFdKHR sem_fd = (PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(ctx.device, "vkGetSemaphoreFdKHR");
	PFN_vkGetFenceFdKHR fence_fd = (PFN_vkGetFenceFdKHR)vkGetDeviceProcAddr(ctx.device, "vkGetFenceFdKHR");
	VkMemoryGetFdInfoKHR mg = { .sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR, .memory = mem, .handleType = type };
	VkSemaphoreGetFdInfoKHR sg = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR, .semaphore = sem, .handleType = sync->sem,
	};
	VkFenceGetFdInfoKHR fg = { .sType = VK_STRUCTURE_TYPE_FENCE_GET_FD_INFO_KHR, .fence = fence, .handleType = sync->fence };
	/* Exported while the work may still run (SYNC_FD) or before it is submitted (OPAQUE_FD): the
	 * consumer's waits are what order it. */
	if (!vk_ok(mem_fd(ctx.device, &mg, &fds[0]), "vkGetMemoryFdKHR") ||
	    !vk_ok(sem_fd(ctx.device, &sg, &fds[1]), "vkGetSemaphoreFdKHR") ||
	    !vk_ok(fence_fd(ctx.device, &fg, &fds[2]), "vkGetFenceFdKHR"))
		goto out;
	printf("producer: exported memory (%s), semaphore and fence (%s)\n", memory, sync->name);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    (pid = spawn(command, sv[1], memory, sync->name)) < 0 || send_fds(sv[0], fds, 3) < 0) {
		perror("producer: starting the consumer");
		goto out;
	}
	/* OPAQUE_FD: the work goes once the consumer holds the syncobjs and waits on the fence. */
	if (sync->opaque) {
		if (!heard(sv[0], 'r')) {
			fprintf(stderr, "producer: the consumer never said it waits\n");
			goto out;
		}
		if (!record_and_submit(&ctx, &cmd, rec_produce, &pr, VK_NULL_HANDLE, sem, fence))
			goto out;
		printf("producer: submitted after the consumer imported\n");
	}
	int st = -1;
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		goto out;
	}
	pid = -1;
	printf("producer: the consumer exited with %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	/* OPAQUE_FD: the consumer reset the fence after its wait; it is this process's fence. */
	VkResult fs = sync->opaque ? vkGetFenceStatus(ctx.device, fence) : VK_NOT_READY;
	if (sync->opaque)
		printf("producer: the fence after the consumer's reset: %s\n", fs == VK_NOT_READY ? "not ready" : "ready");
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && fs == VK_NOT_READY) {
		printf("vk_share: PASS device=\"%s\" memory=%s sync=%s\n", ctx.props.deviceName, memory, sync->name);
		status = 0;
	}
out:
	if (pid > 0)
		waitpid(pid, NULL, 0);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	destroy_objects(&ctx, sem, fence, shared, mem);
	if (staging.buffer)
		vk_buf_destroy(&ctx, &staging);
	vk_ctx_fini(&ctx);
	return status;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *command = NULL, *memory = "dma_buf", *sync_name = "sync_fd";
	int consumer_fd = -1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--spawn") == 0)
			command = argv[i + 1];
		else if (strcmp(argv[i], "--consumer") == 0)
			consumer_fd = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--memory") == 0)
			memory = argv[i + 1];
		else if (strcmp(argv[i], "--sync") == 0)
			sync_name = argv[i + 1];
		else
			break;
	}
	VkExternalMemoryHandleTypeFlagBits type;
	if (strcmp(memory, "dma_buf") == 0)
		type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	else if (strcmp(memory, "opaque_fd") == 0)
		type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
	else
		command = NULL, consumer_fd = -1;
	static const struct sync_kind kinds[] = {
		{ "sync_fd", VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT, VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT, false },
		{ "opaque_fd", VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT, VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT, true },
	};
	const struct sync_kind *sync = NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(sync_name, kinds[i].name) == 0)
			sync = &kinds[i];
	if (!sync)
		command = NULL, consumer_fd = -1;
	if (consumer_fd >= 0)
		return consumer(consumer_fd, type, sync);
	if (!command) {
		fprintf(stderr, "usage: vk_share [--memory dma_buf|opaque_fd] [--sync sync_fd|opaque_fd] --spawn COMMAND\n");
		return 2;
	}
	return producer(command, type, memory, sync);
}
