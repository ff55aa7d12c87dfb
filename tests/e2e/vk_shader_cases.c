/* The two cases that need shaders: one vkCmdDraw and one vkCmdDispatch, each writing bytes only a
 * shader can produce. A simulated GPU that does not run shaders must fail them: with its strict
 * mode the fence fails (the summary's last_wait says how), without it the bytes differ. The
 * SPIR-V is written out here instruction by instruction (SPIR-V 1.0, the Vulkan 1.0 subset). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_image_cases.h"
#include "vk_image_util.h"
#include "vk_render_pass.h"

/* One instruction's first word: its length in words and its opcode. */
#define OP(words, opcode) (((uint32_t)(words) << 16) | (uint32_t)(opcode))
enum {
	OpMemoryModel = 14, OpEntryPoint = 15, OpExecutionMode = 16, OpCapability = 17,
	OpTypeVoid = 19, OpTypeInt = 21, OpTypeFloat = 22, OpTypeVector = 23, OpTypeStruct = 30,
	OpTypePointer = 32, OpTypeFunction = 33, OpConstant = 43, OpConstantComposite = 44,
	OpFunction = 54, OpFunctionEnd = 56, OpVariable = 59, OpLoad = 61, OpStore = 62,
	OpAccessChain = 65, OpDecorate = 71, OpMemberDecorate = 72, OpLabel = 248, OpReturn = 253,
};
enum { SC_Input = 1, SC_Uniform = 2, SC_Output = 3 };
enum { DEC_Block_Buffer = 3, DEC_BuiltIn = 11, DEC_Location = 30, DEC_Binding = 33,
       DEC_DescriptorSet = 34, DEC_Offset = 35 };
#define SPIRV_HEADER(bound) 0x07230203u, 0x00010000u, 0u, (bound), 0u
#define MAIN_NAME 0x6e69616du, 0u /* "main" and its terminating zero, padded */

/* position = in_position (location 0) */
static const uint32_t vs_words[] = {
	SPIRV_HEADER(12),
	OP(2, OpCapability), 1 /* Shader */,
	OP(3, OpMemoryModel), 0 /* Logical */, 1 /* GLSL450 */,
	OP(7, OpEntryPoint), 0 /* Vertex */, 9, MAIN_NAME, 7, 8,
	OP(4, OpDecorate), 7, DEC_Location, 0,
	OP(4, OpDecorate), 8, DEC_BuiltIn, 0 /* Position */,
	OP(2, OpTypeVoid), 1,
	OP(3, OpTypeFunction), 2, 1,
	OP(3, OpTypeFloat), 3, 32,
	OP(4, OpTypeVector), 4, 3, 4,
	OP(4, OpTypePointer), 5, SC_Input, 4,
	OP(4, OpTypePointer), 6, SC_Output, 4,
	OP(4, OpVariable), 5, 7, SC_Input,
	OP(4, OpVariable), 6, 8, SC_Output,
	OP(5, OpFunction), 1, 9, 0, 2,
	OP(2, OpLabel), 10,
	OP(4, OpLoad), 4, 11, 7,
	OP(3, OpStore), 8, 11,
	OP(1, OpReturn),
	OP(1, OpFunctionEnd),
};

/* out_color (location 0) = a constant; its four OpConstant value words are at FS_COLOR_AT + 4 * i
 * (checked before use). */
#define FS_COLOR_AT 46
static const uint32_t fs_template[] = {
	SPIRV_HEADER(14),
	OP(2, OpCapability), 1,
	OP(3, OpMemoryModel), 0, 1,
	OP(6, OpEntryPoint), 4 /* Fragment */, 12, MAIN_NAME, 6,
	OP(3, OpExecutionMode), 12, 7 /* OriginUpperLeft */,
	OP(4, OpDecorate), 6, DEC_Location, 0,
	OP(2, OpTypeVoid), 1,
	OP(3, OpTypeFunction), 2, 1,
	OP(3, OpTypeFloat), 3, 32,
	OP(4, OpTypeVector), 4, 3, 4,
	OP(4, OpTypePointer), 5, SC_Output, 4,
	OP(4, OpVariable), 5, 6, SC_Output,
	OP(4, OpConstant), 3, 7, 0,
	OP(4, OpConstant), 3, 8, 0,
	OP(4, OpConstant), 3, 9, 0,
	OP(4, OpConstant), 3, 10, 0,
	OP(7, OpConstantComposite), 4, 11, 7, 8, 9, 10,
	OP(5, OpFunction), 1, 12, 0, 2,
	OP(2, OpLabel), 13,
	OP(3, OpStore), 6, 11,
	OP(1, OpReturn),
	OP(1, OpFunctionEnd),
};

/* buffer (set 0, binding 0) word 0 = CS_VALUE */
#define CS_VALUE 0xc0ffee42u
static const uint32_t cs_words[] = {
	SPIRV_HEADER(14),
	OP(2, OpCapability), 1,
	OP(3, OpMemoryModel), 0, 1,
	OP(5, OpEntryPoint), 5 /* GLCompute */, 11, MAIN_NAME,
	OP(6, OpExecutionMode), 11, 17 /* LocalSize */, 1, 1, 1,
	OP(3, OpDecorate), 4, DEC_Block_Buffer,
	OP(5, OpMemberDecorate), 4, 0, DEC_Offset, 0,
	OP(4, OpDecorate), 6, DEC_DescriptorSet, 0,
	OP(4, OpDecorate), 6, DEC_Binding, 0,
	OP(2, OpTypeVoid), 1,
	OP(3, OpTypeFunction), 2, 1,
	OP(4, OpTypeInt), 3, 32, 0,
	OP(3, OpTypeStruct), 4, 3,
	OP(4, OpTypePointer), 5, SC_Uniform, 4,
	OP(4, OpVariable), 5, 6, SC_Uniform,
	OP(4, OpTypeInt), 7, 32, 1,
	OP(4, OpConstant), 7, 8, 0,
	OP(4, OpConstant), 3, 9, CS_VALUE,
	OP(4, OpTypePointer), 10, SC_Uniform, 3,
	OP(5, OpFunction), 1, 11, 0, 2,
	OP(2, OpLabel), 12,
	OP(5, OpAccessChain), 10, 13, 6, 8,
	OP(3, OpStore), 13, 9,
	OP(1, OpReturn),
	OP(1, OpFunctionEnd),
};

static VkShaderModule make_module(struct vk_ctx *ctx, const uint32_t *words, size_t size)
{
	VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = words,
	};
	VkShaderModule m = VK_NULL_HANDLE;
	vk_ok(vkCreateShaderModule(ctx->device, &info, NULL, &m), "vkCreateShaderModule");
	return m;
}

static VkPipeline make_graphics(struct vk_ctx *ctx, VkRenderPass pass, VkPipelineLayout layout,
				VkShaderModule vs, VkShaderModule fs, uint32_t w, uint32_t h)
{
	VkPipelineShaderStageCreateInfo stages[2] = {
		{.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		 .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs, .pName = "main"},
		{.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		 .stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = fs, .pName = "main"},
	};
	VkVertexInputBindingDescription bind = {0, 16, VK_VERTEX_INPUT_RATE_VERTEX};
	VkVertexInputAttributeDescription attr = {0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0};
	VkPipelineVertexInputStateCreateInfo vi = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
		.vertexBindingDescriptionCount = 1, .pVertexBindingDescriptions = &bind,
		.vertexAttributeDescriptionCount = 1, .pVertexAttributeDescriptions = &attr,
	};
	VkPipelineInputAssemblyStateCreateInfo ia = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	};
	VkViewport viewport = {0, 0, (float)w, (float)h, 0, 1};
	VkRect2D scissor = {{0, 0}, {w, h}};
	VkPipelineViewportStateCreateInfo vp = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1, .pViewports = &viewport, .scissorCount = 1, .pScissors = &scissor,
	};
	VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f,
	};
	VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	VkPipelineColorBlendAttachmentState cba = {.colorWriteMask = 0xf};
	VkPipelineColorBlendStateCreateInfo cb = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1, .pAttachments = &cba,
	};
	VkGraphicsPipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = 2, .pStages = stages, .pVertexInputState = &vi, .pInputAssemblyState = &ia,
		.pViewportState = &vp, .pRasterizationState = &rs, .pMultisampleState = &ms,
		.pColorBlendState = &cb, .layout = layout, .renderPass = pass, .subpass = 0,
	};
	VkPipeline p = VK_NULL_HANDLE;
	vk_ok(vkCreateGraphicsPipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, &p),
	      "vkCreateGraphicsPipelines");
	return p;
}

/* Clears a 64x40 RGBA8 attachment to one colour and draws a triangle covering it in another:
 * every texel must hold the fragment shader's colour. */
bool case_draw(struct case_env *e)
{
	static const uint8_t clear_k[4] = {0x10, 0x20, 0x30, 0x40}, draw_k[4] = {0xf0, 0x80, 0x08, 0xff};
	static const float tri[3][4] = {{-1, -1, 0, 1}, {3, -1, 0, 1}, {-1, 3, 0, 1}};
	const uint32_t w = 64, h = 40;
	struct vk_ctx *ctx = e->ctx;
	struct vk_img color = {0};
	struct vk_buf vbuf = {0}, rb = {0};
	struct rp rp = {0};
	VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
	VkPipelineLayout layout = VK_NULL_HANDLE;
	VkPipeline pipe = VK_NULL_HANDLE;
	uint8_t *want = NULL;
	bool ok = false;
	uint32_t fs_words[sizeof(fs_template) / sizeof(fs_template[0])];
	memcpy(fs_words, fs_template, sizeof(fs_words));
	for (int i = 0; i < 4; i++) {
		uint32_t at = FS_COLOR_AT + 4 * (uint32_t)i;
		if (fs_words[at - 3] != OP(4, OpConstant) || fs_words[at - 1] != 7u + (uint32_t)i) {
			fprintf(stderr, "fragment shader template: no colour constant at word %u\n", at);
			abort();
		}
		float f = (float)draw_k[i] / 255.0f;
		memcpy(&fs_words[at], &f, 4);
	}
	VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
	size_t n = (size_t)w * h * 4;
	if (!vk_img_create(ctx, &color, VK_FORMAT_R8G8B8A8_UNORM, w, h, VK_IMAGE_TILING_OPTIMAL,
			   VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT) ||
	    !rp_create(ctx, &rp, &color, NULL) ||
	    !vk_buf_create_usage(ctx, &vbuf, sizeof(tri), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT) ||
	    !vk_buf_create(ctx, &rb, n) || !(want = malloc(n)))
		goto out;
	memcpy(vbuf.map, tri, sizeof(tri));
	memset(rb.map, 0xa5, n);
	for (size_t i = 0; i < n; i += 4)
		memcpy(want + i, draw_k, 4);
	if (!vk_buf_flush(ctx, &vbuf) || !vk_buf_flush(ctx, &rb))
		goto out;
	vs = make_module(ctx, vs_words, sizeof(vs_words));
	fs = make_module(ctx, fs_words, sizeof(fs_words));
	if (!vs || !fs || !vk_ok(vkCreatePipelineLayout(ctx->device, &li, NULL, &layout), "vkCreatePipelineLayout"))
		goto out;
	pipe = make_graphics(ctx, rp.pass, layout, vs, fs, w, h);
	if (!pipe)
		goto out;
	VkCommandBuffer cmd = vk_cmd_begin(ctx);
	if (!cmd)
		goto out;
	VkClearColorValue cv;
	for (int i = 0; i < 4; i++)
		cv.float32[i] = (float)clear_k[i] / 255.0f;
	rp_begin(cmd, &rp, &cv, 1.0f);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
	VkDeviceSize zero = 0;
	vkCmdBindVertexBuffers(cmd, 0, 1, &vbuf.buffer, &zero);
	vkCmdDraw(cmd, 3, 1, 0, 0);
	vkCmdEndRenderPass(cmd);
	vk_img_to_buf(cmd, &color, rb.buffer);
	vk_host_read_barrier(cmd);
	VkResult r = vk_cmd_submit_wait(ctx, cmd, e->timeout_ns);
	e->last_wait = vk_result_name(r);
	printf("  draw: fence wait %s\n", e->last_wait);
	if (r != VK_SUCCESS || !vk_buf_invalidate(ctx, &rb))
		goto out;
	e->bytes_checked += n;
	ok = vk_compare_bytes("drawn RGBA8 64x40 (want the fragment shader's colour)", rb.map, want, n,
			      (size_t)w * 4, 4);
	if (ok)
		printf("  drawn RGBA8 64x40: all %zu bytes match\n", n);
out:
	free(want);
	if (pipe)
		vkDestroyPipeline(ctx->device, pipe, NULL);
	if (layout)
		vkDestroyPipelineLayout(ctx->device, layout, NULL);
	if (vs)
		vkDestroyShaderModule(ctx->device, vs, NULL);
	if (fs)
		vkDestroyShaderModule(ctx->device, fs, NULL);
	rp_destroy(ctx, &rp);
	vk_buf_destroy(ctx, &vbuf);
	vk_buf_destroy(ctx, &rb);
	vk_img_destroy(ctx, &color);
	return ok;
}

/* One workgroup stores CS_VALUE to word 0 of a storage buffer the host filled with 0xa5. */
bool case_dispatch(struct case_env *e)
{
	struct vk_ctx *ctx = e->ctx;
	struct vk_buf buf = {0};
	VkShaderModule cs = VK_NULL_HANDLE;
	VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
	VkPipelineLayout layout = VK_NULL_HANDLE;
	VkPipeline pipe = VK_NULL_HANDLE;
	VkDescriptorPool pool = VK_NULL_HANDLE;
	VkDescriptorSet set = VK_NULL_HANDLE;
	bool ok = false;
	if (!vk_buf_create_usage(ctx, &buf, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT))
		goto out;
	memset(buf.map, 0xa5, 64);
	if (!vk_buf_flush(ctx, &buf))
		goto out;
	VkDescriptorSetLayoutBinding b = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
	VkDescriptorSetLayoutCreateInfo dsli = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b,
	};
	VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
	VkDescriptorPoolCreateInfo dpi = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1, .poolSizeCount = 1,
		.pPoolSizes = &ps,
	};
	cs = make_module(ctx, cs_words, sizeof(cs_words));
	if (!cs || !vk_ok(vkCreateDescriptorSetLayout(ctx->device, &dsli, NULL, &dsl), "vkCreateDescriptorSetLayout") ||
	    !vk_ok(vkCreateDescriptorPool(ctx->device, &dpi, NULL, &pool), "vkCreateDescriptorPool"))
		goto out;
	VkPipelineLayoutCreateInfo li = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &dsl,
	};
	VkDescriptorSetAllocateInfo dai = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = pool,
		.descriptorSetCount = 1, .pSetLayouts = &dsl,
	};
	if (!vk_ok(vkCreatePipelineLayout(ctx->device, &li, NULL, &layout), "vkCreatePipelineLayout") ||
	    !vk_ok(vkAllocateDescriptorSets(ctx->device, &dai, &set), "vkAllocateDescriptorSets"))
		goto out;
	VkDescriptorBufferInfo dbi = {buf.buffer, 0, VK_WHOLE_SIZE};
	VkWriteDescriptorSet wr = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &dbi,
	};
	vkUpdateDescriptorSets(ctx->device, 1, &wr, 0, NULL);
	VkComputePipelineCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			  .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = cs, .pName = "main"},
		.layout = layout,
	};
	if (!vk_ok(vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &ci, NULL, &pipe),
		   "vkCreateComputePipelines"))
		goto out;
	VkCommandBuffer cmd = vk_cmd_begin(ctx);
	if (!cmd)
		goto out;
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	vkCmdDispatch(cmd, 1, 1, 1);
	VkMemoryBarrier mb = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT, .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
			     &mb, 0, NULL, 0, NULL);
	VkResult r = vk_cmd_submit_wait(ctx, cmd, e->timeout_ns);
	e->last_wait = vk_result_name(r);
	printf("  dispatch: fence wait %s\n", e->last_wait);
	if (r != VK_SUCCESS || !vk_buf_invalidate(ctx, &buf))
		goto out;
	uint8_t want[64];
	memset(want, 0xa5, sizeof(want));
	const uint32_t v = CS_VALUE;
	memcpy(want, &v, 4);  /* little-endian on every target */
	e->bytes_checked += sizeof(want);
	ok = vk_compare_bytes("storage buffer (want word 0 = 0xc0ffee42)", buf.map, want, sizeof(want), 0, 4);
	if (ok)
		printf("  storage buffer: all 64 bytes match\n");
out:
	if (pipe)
		vkDestroyPipeline(ctx->device, pipe, NULL);
	if (layout)
		vkDestroyPipelineLayout(ctx->device, layout, NULL);
	if (pool)
		vkDestroyDescriptorPool(ctx->device, pool, NULL);
	if (dsl)
		vkDestroyDescriptorSetLayout(ctx->device, dsl, NULL);
	if (cs)
		vkDestroyShaderModule(ctx->device, cs, NULL);
	vk_buf_destroy(ctx, &buf);
	return ok;
}
