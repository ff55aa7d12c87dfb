/* vk_buffer_ops: transfer commands on any Vulkan device (lavapipe, or Turnip / v3dv through ferry),
 * two submits chained by a semaphore, every result byte and the timestamps checked; --bench times
 * submit+wait round trips. Exit status 0 only when everything matched. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_bench.h"
#include "vk_context.h"
#include "vk_plan.h"

#define TIMESTAMP_COUNT 3  /* start of submit 1, end of submit 1, end of submit 2 */

struct options {
	struct vk_ctx_options ctx;
	uint64_t timeout_ns;
	unsigned bench_iterations;  /* 0: the functional check */
	unsigned bench_depth;
};

struct run {
	struct vk_ctx *ctx;
	struct vk_buf bufs[PLAN_BUF_COUNT];
	VkCommandBuffer cmd[PLAN_CMDBUF_COUNT];
	VkSemaphore chain;
	VkFence done;
	VkQueryPool timestamps;  /* VK_NULL_HANDLE when the queue has no timestamp bits */
	uint64_t timeout_ns;
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: vk_buffer_ops [--device-name-contains STR] [--prefer-noncoherent]\n"
		"                     [--timeout-ms MS] [--bench N [--bench-depth D]]\n"
		"  --device-name-contains STR  use the first device whose name contains STR (else fail)\n"
		"  --prefer-noncoherent        host-visible memory without HOST_COHERENT where offered\n"
		"  --timeout-ms MS             vkWaitForFences timeout (default 60000)\n"
		"  --bench N                   time N submit+wait rounds and N pipelined submits instead\n"
		"  --bench-depth D             submits in flight in the pipelined part (default 16, max %u)\n",
		VK_BENCH_MAX_DEPTH);
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end = NULL;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || !end || *end || end == s || s[0] == '-' || v > max)
		return false;
	*out = v;
	return true;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{"device-name-contains", required_argument, NULL, 'd'},
		{"prefer-noncoherent", no_argument, NULL, 'n'},
		{"timeout-ms", required_argument, NULL, 't'},
		{"bench", required_argument, NULL, 'b'},
		{"bench-depth", required_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(opt, 0, sizeof(*opt));
	opt->timeout_ns = 60ull * 1000000000ull;
	opt->bench_depth = 16;
	int c;
	unsigned long v;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': opt->ctx.device_name_contains = optarg; break;
		case 'n': opt->ctx.prefer_noncoherent = true; break;
		case 't':
			if (!parse_uint(optarg, 24ul * 3600 * 1000, &v) || v == 0)
				goto bad;
			opt->timeout_ns = (uint64_t)v * 1000000ull;
			break;
		case 'b':
			if (!parse_uint(optarg, 10000000ul, &v) || v == 0)
				goto bad;
			opt->bench_iterations = (unsigned)v;
			break;
		case 'D':
			if (!parse_uint(optarg, VK_BENCH_MAX_DEPTH, &v) || v == 0)
				goto bad;
			opt->bench_depth = (unsigned)v;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "bad arguments\n");
	usage(stderr);
	return -1;
}

/* The writes of a command buffer become visible to the host after the fence (with the
 * invalidate for non-coherent memory). */
static void record_host_barrier(struct run *run, VkCommandBuffer cmd)
{
	VkBufferMemoryBarrier barriers[PLAN_BUF_COUNT];
	for (int b = 0; b < PLAN_BUF_COUNT; b++) {
		barriers[b] = (VkBufferMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.buffer = run->bufs[b].buffer,
			.offset = 0,
			.size = VK_WHOLE_SIZE,
		};
	}
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL,
			     PLAN_BUF_COUNT, barriers, 0, NULL);
}

static bool record(struct run *run)
{
	VkBuffer handles[PLAN_BUF_COUNT];
	for (int b = 0; b < PLAN_BUF_COUNT; b++)
		handles[b] = run->bufs[b].buffer;
	for (uint32_t c = 0; c < PLAN_CMDBUF_COUNT; c++) {
		VkCommandBuffer cmd = run->cmd[c];
		VkCommandBufferBeginInfo begin = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
			.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
		};
		if (!vk_ok(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer"))
			return false;
		if (run->timestamps && c == 0) {
			vkCmdResetQueryPool(cmd, run->timestamps, 0, TIMESTAMP_COUNT);
			vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, run->timestamps, 0);
		}
		plan_record(cmd, c, handles);
		if (run->timestamps)
			vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, run->timestamps, 1 + c);
		record_host_barrier(run, cmd);
		if (!vk_ok(vkEndCommandBuffer(cmd), "vkEndCommandBuffer"))
			return false;
	}
	return true;
}

static bool setup(struct run *run)
{
	struct vk_ctx *ctx = run->ctx;
	for (int b = 0; b < PLAN_BUF_COUNT; b++) {
		struct vk_buf *buf = &run->bufs[b];
		if (!vk_buf_create(ctx, buf, plan_buf_size[b]))
			return false;
		memset(buf->map, plan_buf_init[b], (size_t)buf->size);
		if (!vk_buf_flush(ctx, buf))
			return false;
		printf("buffer %c: %llu bytes, memory type %u (%s)\n", plan_buf_name(b),
		       (unsigned long long)buf->size, buf->mem_type,
		       buf->coherent ? "coherent" : "non-coherent: flushed and invalidated");
	}
	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = PLAN_CMDBUF_COUNT,
	};
	VkSemaphoreCreateInfo sem_info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	if (!vk_ok(vkAllocateCommandBuffers(ctx->device, &alloc, run->cmd), "vkAllocateCommandBuffers") ||
	    !vk_ok(vkCreateSemaphore(ctx->device, &sem_info, NULL, &run->chain), "vkCreateSemaphore") ||
	    !vk_ok(vkCreateFence(ctx->device, &fence_info, NULL, &run->done), "vkCreateFence"))
		return false;
	if (ctx->queue_props.timestampValidBits == 0) {
		printf("timestamps: the queue family has timestampValidBits=0, timestamp check skipped\n");
		return true;
	}
	VkQueryPoolCreateInfo qp_info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = TIMESTAMP_COUNT,
	};
	return vk_ok(vkCreateQueryPool(ctx->device, &qp_info, NULL, &run->timestamps),
		     "vkCreateQueryPool");
}

static void teardown(struct run *run)
{
	VkDevice dev = run->ctx->device;
	vkDeviceWaitIdle(dev);
	if (run->timestamps)
		vkDestroyQueryPool(dev, run->timestamps, NULL);
	if (run->done)
		vkDestroyFence(dev, run->done, NULL);
	if (run->chain)
		vkDestroySemaphore(dev, run->chain, NULL);
	if (run->cmd[0])
		vkFreeCommandBuffers(dev, run->ctx->pool, PLAN_CMDBUF_COUNT, run->cmd);
	for (int b = 0; b < PLAN_BUF_COUNT; b++)
		vk_buf_destroy(run->ctx, &run->bufs[b]);
}

/* Submit 2 reads what submit 1 wrote; only the semaphore orders them, and only submit 2 has a
 * fence, so its signal also proves submit 1 finished. */
static bool submit_and_wait(struct run *run)
{
	VkSubmitInfo first = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &run->cmd[0],
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &run->chain,
	};
	VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	VkSubmitInfo second = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.waitSemaphoreCount = 1,
		.pWaitSemaphores = &run->chain,
		.pWaitDstStageMask = &wait_stage,
		.commandBufferCount = 1,
		.pCommandBuffers = &run->cmd[1],
	};
	if (!vk_ok(vkQueueSubmit(run->ctx->queue, 1, &first, VK_NULL_HANDLE), "vkQueueSubmit (1)") ||
	    !vk_ok(vkQueueSubmit(run->ctx->queue, 1, &second, run->done), "vkQueueSubmit (2)"))
		return false;
	if (!vk_wait_fence(run->ctx, run->done, run->timeout_ns, "the fence of submit 2"))
		return false;
	for (int b = 0; b < PLAN_BUF_COUNT; b++) {
		if (!vk_buf_invalidate(run->ctx, &run->bufs[b]))
			return false;
	}
	return true;
}

static bool check_bytes(const struct run *run, const struct plan_model *want, uint64_t *checked)
{
	bool ok = true;
	for (int b = 0; b < PLAN_BUF_COUNT; b++) {
		const uint8_t *got = run->bufs[b].map;
		VkDeviceSize size = plan_buf_size[b], bad = 0, first = 0;
		for (VkDeviceSize k = 0; k < size; k++) {
			if (got[k] != want->bytes[b][k] && bad++ == 0)
				first = k;
		}
		*checked += size;
		if (bad == 0) {
			printf("check: buffer %c: all %llu bytes match\n", plan_buf_name(b),
			       (unsigned long long)size);
			continue;
		}
		char why[200];
		plan_describe_writer(want, b, first, why, sizeof(why));
		fprintf(stderr, "MISMATCH: buffer %c offset %llu: want 0x%02x got 0x%02x (%s); "
			"%llu of %llu bytes differ\n", plan_buf_name(b), (unsigned long long)first,
			want->bytes[b][first], got[first], why, (unsigned long long)bad,
			(unsigned long long)size);
		ok = false;
	}
	return ok;
}

/* Returns the summary word: "ok", "skipped" or "FAILED". */
static const char *check_timestamps(const struct run *run)
{
	if (!run->timestamps)
		return "skipped";
	uint64_t ts[TIMESTAMP_COUNT];
	VkResult r = vkGetQueryPoolResults(run->ctx->device, run->timestamps, 0, TIMESTAMP_COUNT,
					   sizeof(ts), ts, sizeof(ts[0]),
					   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
	if (!vk_ok(r, "vkGetQueryPoolResults"))
		return "FAILED";
	uint32_t bits = run->ctx->queue_props.timestampValidBits;
	uint64_t mask = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
	double period = (double)run->ctx->props.limits.timestampPeriod;
	for (int i = 0; i < TIMESTAMP_COUNT; i++)
		ts[i] &= mask;
	printf("timestamps: start=%" PRIu64 " end1=%" PRIu64 " end2=%" PRIu64 " period=%g ns "
	       "validBits=%u submit1=%.1f us submit1+2=%.1f us\n", ts[0], ts[1], ts[2], period, bits,
	       ts[1] >= ts[0] ? (double)(ts[1] - ts[0]) * period / 1e3 : -1.0,
	       ts[2] >= ts[0] ? (double)(ts[2] - ts[0]) * period / 1e3 : -1.0);
	bool ok = true;
	for (int i = 0; i < TIMESTAMP_COUNT; i++) {
		if (ts[i] == 0) {
			fprintf(stderr, "timestamp %d is zero though the queue has %u valid bits\n", i, bits);
			ok = false;
		}
		if (i > 0 && ts[i] < ts[i - 1]) {
			fprintf(stderr, "timestamp %d (%" PRIu64 ") is before timestamp %d (%" PRIu64 ")\n",
				i, ts[i], i - 1, ts[i - 1]);
			ok = false;
		}
	}
	return ok ? "ok" : "FAILED";
}

static int run_functional(struct vk_ctx *ctx, const struct options *opt)
{
	struct plan_model want;
	if (!plan_validate() || !plan_model_build(&want))
		return 1;
	struct run run = {.ctx = ctx, .timeout_ns = opt->timeout_ns};
	uint64_t checked = 0, t0 = 0, t1 = 0;
	const char *ts_result = "FAILED";
	bool bytes_ok = false;
	if (setup(&run) && record(&run)) {
		t0 = vk_now_ns();
		if (submit_and_wait(&run)) {
			t1 = vk_now_ns();
			bytes_ok = check_bytes(&run, &want, &checked);
			ts_result = check_timestamps(&run);
		}
	}
	teardown(&run);
	plan_model_free(&want);
	bool pass = bytes_ok && strcmp(ts_result, "FAILED") != 0;
	printf("vk_buffer_ops: %s device=\"%s\" driver=\"%s\" updates=%u fills=%u copies=%u "
	       "submits=2 bytes_checked=%" PRIu64 " timestamps=%s submit_to_fence_ms=%.1f\n",
	       pass ? "PASS" : "FAIL", ctx->props.deviceName, ctx->driver_name,
	       plan_count_kind(PLAN_UPDATE), plan_count_kind(PLAN_FILL), plan_count_kind(PLAN_COPY),
	       checked, ts_result, t1 > t0 ? (double)(t1 - t0) / 1e6 : 0.0);
	return pass ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct options opt;
	if (parse_options(argc, argv, &opt) != 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct vk_ctx ctx;
	if (!vk_ctx_init(&ctx, &opt.ctx))
		return 1;
	int status;
	if (opt.bench_iterations)
		status = vk_bench_run(&ctx, opt.bench_iterations, opt.bench_depth, opt.timeout_ns) ? 0 : 1;
	else
		status = run_functional(&ctx, &opt);
	vk_ctx_fini(&ctx);
	return status;
}
