/* vk_image_ops' transfer cases. Each takes the path the drivers serve without shaders (Mesa 22.3):
 *   Turnip: clears, copies and same-size blits go through the 2D engine (CP_BLIT, "r2d") for
 *     single-sample images; a clear-only render pass clears with CP_BLIT in sysmem mode and with
 *     CP_EVENT_WRITE BLIT (RB_BLIT_*) clears and resolves in GMEM mode (full render area, so no
 *     unaligned-store fallback). vkCmdClearAttachments in sysmem mode and multisampled images use
 *     shaders ("r3d") and are not used here.
 *   v3dv: clears run on the TLB (a render job that clears and stores); image->buffer copies on the
 *     TLB; buffer->image, image->image copies and same-size same-format blits try the TFU first,
 *     then the TLB; scaled, flipped or format-converting blits and copies the TFU/TLB cannot do
 *     fall back to shaders and are not used here.
 * Uniform clears cannot show a tiling-address error, so the copy cases move a pattern. */
#include "vk_image_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_image_util.h"

#define TRANSFER_USAGE (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)
#define XFER_FEATURES (VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT)

/* Optimal-tiling colour images are made the way applications make them (sampled and rendered
 * to as well): that is what lets Turnip pick UBWC and v3dv a UIF layout. */
static bool make_color(struct case_env *e, struct vk_img *img, VkFormat f, uint32_t w, uint32_t h,
		       VkImageTiling tiling)
{
	VkFormatFeatureFlags need = XFER_FEATURES;
	VkImageUsageFlags usage = TRANSFER_USAGE;
	if (tiling == VK_IMAGE_TILING_OPTIMAL) {
		need |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
		usage |= VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
	}
	return vk_img_supported(e->ctx, f, tiling, need) && vk_img_create(e->ctx, img, f, w, h, tiling, usage);
}

static bool make_depth(struct case_env *e, struct vk_img *img, VkFormat f, uint32_t w, uint32_t h)
{
	VkFormatFeatureFlags need = XFER_FEATURES | VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT;
	return vk_img_supported(e->ctx, f, VK_IMAGE_TILING_OPTIMAL, need) &&
	       vk_img_create(e->ctx, img, f, w, h, VK_IMAGE_TILING_OPTIMAL,
			     TRANSFER_USAGE | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT);
}

static size_t img_bytes(const struct vk_img *img)
{
	return (size_t)img->width * img->height * img->cpp;
}

/* A readback buffer pre-filled with a byte no case expects, so an untouched buffer fails. */
static bool make_readback(struct case_env *e, struct vk_buf *buf, size_t size)
{
	if (!vk_buf_create(e->ctx, buf, size))
		return false;
	memset(buf->map, 0xa5, size);
	return vk_buf_flush(e->ctx, buf);
}

/* Texel bytes that differ per position and per byte, never uniform across a tile. */
static void fill_pattern(uint8_t *p, size_t size, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1u;
	for (size_t i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)(x >> 8);
	}
}

static void fill_texels(uint8_t *p, size_t size, const uint8_t *texel, uint32_t cpp)
{
	for (size_t i = 0; i + cpp <= size; i += cpp)
		memcpy(p + i, texel, cpp);
}

static bool check(struct case_env *e, const char *what, const struct vk_img *img,
		  const struct vk_buf *buf, const uint8_t *want)
{
	size_t n = img_bytes(img);
	if (!vk_buf_invalidate(e->ctx, buf))
		return false;
	e->bytes_checked += n;
	bool ok = vk_compare_bytes(what, buf->map, want, n, (size_t)img->width * img->cpp, img->cpp);
	if (ok)
		printf("  %s: all %zu bytes match\n", what, n);
	return ok;
}

static bool submit(struct case_env *e, VkCommandBuffer cmd)
{
	VkResult r = vk_cmd_submit_wait(e->ctx, cmd, e->timeout_ns);
	e->last_wait = vk_result_name(r);
	return r == VK_SUCCESS;
}

static const VkImageLayout XFER_DST = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
static const VkImageLayout XFER_SRC = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;

static void to_dst(VkCommandBuffer cmd, const struct vk_img *img)
{
	vk_img_barrier(cmd, img, VK_IMAGE_LAYOUT_UNDEFINED, XFER_DST, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
		       VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
}

static void dst_to_src(VkCommandBuffer cmd, const struct vk_img *img)
{
	vk_img_barrier(cmd, img, XFER_DST, XFER_SRC, VK_ACCESS_TRANSFER_WRITE_BIT,
		       VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		       VK_PIPELINE_STAGE_TRANSFER_BIT);
}

/* Clear colours exact in each format: UNORM8 k/255, half-exact floats, raw integers. */
static void rgba8_clear(const uint8_t k[4], VkClearColorValue *v)
{
	for (int i = 0; i < 4; i++)
		v->float32[i] = (float)k[i] / 255.0f;
}

/* Clears one colour image and reads it back: `texel` is what every texel must hold. */
static bool clear_and_check(struct case_env *e, VkFormat f, uint32_t w, uint32_t h, VkImageTiling tiling,
			    const VkClearColorValue *color, const uint8_t *texel)
{
	struct vk_img img = {0};
	struct vk_buf buf = {0};
	uint8_t *want = NULL;
	bool ok = false;
	if (!make_color(e, &img, f, w, h, tiling) || !make_readback(e, &buf, img_bytes(&img)))
		goto out;
	want = malloc(img_bytes(&img));
	if (!want)
		goto out;
	fill_texels(want, img_bytes(&img), texel, img.cpp);
	VkCommandBuffer cmd = vk_cmd_begin(e->ctx);
	if (!cmd)
		goto out;
	VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	to_dst(cmd, &img);
	vkCmdClearColorImage(cmd, img.image, XFER_DST, color, 1, &range);
	dst_to_src(cmd, &img);
	vk_img_to_buf(cmd, &img, buf.buffer);
	vk_host_read_barrier(cmd);
	char what[96];
	snprintf(what, sizeof(what), "%s %s %ux%u", vk_format_short_name(f),
		 tiling == VK_IMAGE_TILING_LINEAR ? "linear" : "optimal", w, h);
	ok = submit(e, cmd) && check(e, what, &img, &buf, want);
out:
	free(want);
	vk_buf_destroy(e->ctx, &buf);
	vk_img_destroy(e->ctx, &img);
	return ok;
}

static bool case_clear_linear(struct case_env *e)
{
	static const uint8_t k[4] = {0x12, 0x9a, 0xfe, 0x40};
	VkClearColorValue c;
	rgba8_clear(k, &c);
	return clear_and_check(e, VK_FORMAT_R8G8B8A8_UNORM, 64, 40, VK_IMAGE_TILING_LINEAR, &c, k);
}

/* Sizes that give v3d each of its layouts (LINEARTILE, UBLINEAR, UIF, UIF with XOR for tall
 * levels) and Turnip linear-for-small and TILE6_3+UBWC images. */
static bool case_clear_optimal(struct case_env *e)
{
	static const uint32_t sizes[][2] = {{4, 4}, {16, 16}, {64, 40}, {256, 256}};
	static const uint8_t k[4] = {0x33, 0xcc, 0x01, 0xff};
	VkClearColorValue c;
	rgba8_clear(k, &c);
	bool ok = true;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ok &= clear_and_check(e, VK_FORMAT_R8G8B8A8_UNORM, sizes[i][0], sizes[i][1],
				      VK_IMAGE_TILING_OPTIMAL, &c, k);
	return ok;
}

static bool case_clear_r32ui(struct case_env *e)
{
	VkClearColorValue c = {.uint32 = {0x89abcdefu, 1, 2, 3}};
	static const uint8_t texel[4] = {0xef, 0xcd, 0xab, 0x89};
	return clear_and_check(e, VK_FORMAT_R32_UINT, 64, 40, VK_IMAGE_TILING_OPTIMAL, &c, texel);
}

static bool case_clear_rgba16f(struct case_env *e)
{
	VkClearColorValue c = {.float32 = {0.5f, -2.0f, 1.0f, 0.25f}};
	uint8_t texel[8];
	for (int i = 0; i < 4; i++) {
		uint16_t h = vk_half_from_float(c.float32[i]);
		texel[2 * i] = (uint8_t)h;
		texel[2 * i + 1] = (uint8_t)(h >> 8);
	}
	return clear_and_check(e, VK_FORMAT_R16G16B16A16_SFLOAT, 64, 40, VK_IMAGE_TILING_OPTIMAL, &c, texel);
}

/* Clear A to one colour and B to another, then read both: a tile buffer or cache carried from
 * one job to the next shows up as A holding B's colour. */
static bool case_clear_two(struct case_env *e)
{
	static const uint8_t ka[4] = {0xff, 0x00, 0x80, 0xff}, kb[4] = {0x00, 0x7f, 0xff, 0x10};
	struct vk_img a = {0}, b = {0};
	struct vk_buf ba = {0}, bb = {0};
	uint8_t *wa = NULL, *wb = NULL;
	bool ok = false;
	if (!make_color(e, &a, VK_FORMAT_R8G8B8A8_UNORM, 64, 40, VK_IMAGE_TILING_OPTIMAL) ||
	    !make_color(e, &b, VK_FORMAT_R8G8B8A8_UNORM, 64, 40, VK_IMAGE_TILING_OPTIMAL) ||
	    !make_readback(e, &ba, img_bytes(&a)) || !make_readback(e, &bb, img_bytes(&b)))
		goto out;
	wa = malloc(img_bytes(&a));
	wb = malloc(img_bytes(&b));
	if (!wa || !wb)
		goto out;
	fill_texels(wa, img_bytes(&a), ka, 4);
	fill_texels(wb, img_bytes(&b), kb, 4);
	VkCommandBuffer cmd = vk_cmd_begin(e->ctx);
	if (!cmd)
		goto out;
	VkClearColorValue ca, cb;
	rgba8_clear(ka, &ca);
	rgba8_clear(kb, &cb);
	VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	to_dst(cmd, &a);
	to_dst(cmd, &b);
	vkCmdClearColorImage(cmd, a.image, XFER_DST, &ca, 1, &range);
	vkCmdClearColorImage(cmd, b.image, XFER_DST, &cb, 1, &range);
	dst_to_src(cmd, &a);
	dst_to_src(cmd, &b);
	vk_img_to_buf(cmd, &a, ba.buffer);
	vk_img_to_buf(cmd, &b, bb.buffer);
	vk_host_read_barrier(cmd);
	if (submit(e, cmd)) {
		bool oa = check(e, "image A (colour 1)", &a, &ba, wa);
		bool ob = check(e, "image B (colour 2)", &b, &bb, wb);
		ok = oa && ob;
	}
out:
	free(wa);
	free(wb);
	vk_buf_destroy(e->ctx, &ba);
	vk_buf_destroy(e->ctx, &bb);
	vk_img_destroy(e->ctx, &a);
	vk_img_destroy(e->ctx, &b);
	return ok;
}

static void clear_depth(VkCommandBuffer cmd, const struct vk_img *img, float depth)
{
	VkClearDepthStencilValue v = {.depth = depth};
	VkImageSubresourceRange range = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
	vkCmdClearDepthStencilImage(cmd, img->image, XFER_DST, &v, 1, &range);
}

static bool depth_clear_and_check(struct case_env *e, VkFormat f, float depth, const uint8_t *texel)
{
	struct vk_img img = {0};
	struct vk_buf buf = {0};
	uint8_t *want = NULL;
	bool ok = false;
	if (!make_depth(e, &img, f, 64, 40) || !make_readback(e, &buf, img_bytes(&img)))
		goto out;
	want = malloc(img_bytes(&img));
	if (!want)
		goto out;
	fill_texels(want, img_bytes(&img), texel, img.cpp);
	VkCommandBuffer cmd = vk_cmd_begin(e->ctx);
	if (!cmd)
		goto out;
	to_dst(cmd, &img);
	clear_depth(cmd, &img, depth);
	dst_to_src(cmd, &img);
	vk_img_to_buf(cmd, &img, buf.buffer);
	vk_host_read_barrier(cmd);
	char what[64];
	snprintf(what, sizeof(what), "%s 64x40", vk_format_short_name(f));
	ok = submit(e, cmd) && check(e, what, &img, &buf, want);
out:
	free(want);
	vk_buf_destroy(e->ctx, &buf);
	vk_img_destroy(e->ctx, &img);
	return ok;
}

static bool case_clear_d16(struct case_env *e)
{
	/* k/65535 converts back to k whatever the rounding mode. */
	static const uint8_t texel[2] = {0x21, 0x43};
	return depth_clear_and_check(e, VK_FORMAT_D16_UNORM, (float)0x4321 / 65535.0f, texel);
}

static bool case_clear_d32f(struct case_env *e)
{
	static const uint8_t texel[4] = {0x00, 0x00, 0xc0, 0x3e}; /* 0.375f */
	return depth_clear_and_check(e, VK_FORMAT_D32_SFLOAT, 0.375f, texel);
}

enum xfer_kind { XFER_BUF_TO_IMG, XFER_IMG_TO_IMG, XFER_BLIT };

/* A pattern goes buffer -> image A (-> image B by copy or blit) -> buffer; A is read back too, so
 * a failure says which step lost the bytes. */
static bool pattern_through(struct case_env *e, enum xfer_kind kind, uint32_t w, uint32_t h)
{
	struct vk_img a = {0}, b = {0};
	struct vk_buf src = {0}, ra = {0}, rb = {0};
	bool ok = false, two = kind != XFER_BUF_TO_IMG;
	const VkFormat f = VK_FORMAT_R8G8B8A8_UNORM;
	if (!make_color(e, &a, f, w, h, VK_IMAGE_TILING_OPTIMAL) ||
	    (two && !make_color(e, &b, f, w, h, VK_IMAGE_TILING_OPTIMAL)))
		goto out;
	if (kind == XFER_BLIT &&
	    !vk_img_supported(e->ctx, f, VK_IMAGE_TILING_OPTIMAL,
			      VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT))
		goto out;
	size_t n = img_bytes(&a);
	if (!vk_buf_create(e->ctx, &src, n) || !make_readback(e, &ra, n) ||
	    (two && !make_readback(e, &rb, n)))
		goto out;
	fill_pattern(src.map, n, w * 7919u + h);
	if (!vk_buf_flush(e->ctx, &src))
		goto out;
	VkCommandBuffer cmd = vk_cmd_begin(e->ctx);
	if (!cmd)
		goto out;
	to_dst(cmd, &a);
	vk_buf_to_img(cmd, src.buffer, &a);
	dst_to_src(cmd, &a);
	if (two) {
		to_dst(cmd, &b);
		VkImageSubresourceLayers sub = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
		if (kind == XFER_IMG_TO_IMG) {
			VkImageCopy r = {sub, {0, 0, 0}, sub, {0, 0, 0}, {w, h, 1}};
			vkCmdCopyImage(cmd, a.image, XFER_SRC, b.image, XFER_DST, 1, &r);
		} else {
			VkImageBlit r = {
				.srcSubresource = sub,
				.srcOffsets = {{0, 0, 0}, {(int32_t)w, (int32_t)h, 1}},
				.dstSubresource = sub,
				.dstOffsets = {{0, 0, 0}, {(int32_t)w, (int32_t)h, 1}},
			};
			vkCmdBlitImage(cmd, a.image, XFER_SRC, b.image, XFER_DST, 1, &r, VK_FILTER_NEAREST);
		}
		dst_to_src(cmd, &b);
		vk_img_to_buf(cmd, &b, rb.buffer);
	}
	vk_img_to_buf(cmd, &a, ra.buffer);
	vk_host_read_barrier(cmd);
	if (submit(e, cmd)) {
		char what[64];
		snprintf(what, sizeof(what), "buffer -> image A %ux%u -> buffer", w, h);
		ok = check(e, what, &a, &ra, src.map);
		if (two) {
			snprintf(what, sizeof(what), "image A -> %s image B -> buffer",
				 kind == XFER_BLIT ? "vkCmdBlitImage" : "vkCmdCopyImage");
			ok &= check(e, what, &b, &rb, src.map);
		}
	}
out:
	vk_buf_destroy(e->ctx, &src);
	vk_buf_destroy(e->ctx, &ra);
	vk_buf_destroy(e->ctx, &rb);
	vk_img_destroy(e->ctx, &a);
	vk_img_destroy(e->ctx, &b);
	return ok;
}

static bool case_copy_buffer_image(struct case_env *e)
{
	/* 45 texels: a row pitch of 180 bytes, not 64-byte aligned (Turnip copies it row by row). */
	bool ok = pattern_through(e, XFER_BUF_TO_IMG, 64, 40);
	return pattern_through(e, XFER_BUF_TO_IMG, 45, 27) && ok;
}

static bool case_copy_image_image(struct case_env *e)
{
	return pattern_through(e, XFER_IMG_TO_IMG, 64, 40);
}

static bool case_blit_image(struct case_env *e)
{
	return pattern_through(e, XFER_BLIT, 64, 40);
}


const struct image_case image_cases[] = {
	{"clear_linear", case_clear_linear, true, "vkCmdClearColorImage, RGBA8 linear 64x40"},
	{"clear_optimal", case_clear_optimal, true, "vkCmdClearColorImage, RGBA8 optimal 4x4..256x256"},
	{"clear_two_images", case_clear_two, true, "clear A and B to different colours, read both"},
	{"clear_r32_uint", case_clear_r32ui, true, "vkCmdClearColorImage, R32_UINT optimal"},
	{"clear_rgba16f", case_clear_rgba16f, true, "vkCmdClearColorImage, RGBA16_SFLOAT optimal"},
	{"clear_d16", case_clear_d16, true, "vkCmdClearDepthStencilImage D16, copy depth to buffer"},
	{"clear_d32f", case_clear_d32f, true, "vkCmdClearDepthStencilImage D32F, copy depth to buffer"},
	{"copy_buffer_image", case_copy_buffer_image, true, "pattern buffer -> optimal image -> buffer"},
	{"copy_image_image", case_copy_image_image, true, "pattern -> image A, vkCmdCopyImage A -> B"},
	{"blit_image", case_blit_image, true, "pattern -> image A, same-size vkCmdBlitImage A -> B"},
	{"render_pass_clear", case_render_pass_clear, true, "render pass loadOp CLEAR storeOp STORE, no draws"},
	{"render_pass_clear_depth", case_render_pass_clear_depth, true,
	 "render pass with colour + D16, both CLEAR/STORE, no draws"},
	{"empty_submit", case_empty_submit, true, "vkQueueSubmit with no command buffers, only a fence"},
	{"timeline_semaphore", case_timeline_semaphore, false,
	 "timeline semaphore: submits, host signal, wait-before-signal, OPAQUE_FD export/import"},
	{"draw", case_draw, false, "one vkCmdDraw of a full-size triangle (needs shaders)"},
	{"dispatch", case_dispatch, false, "one vkCmdDispatch writing a buffer (needs shaders)"},
};
const uint32_t image_case_count = sizeof(image_cases) / sizeof(image_cases[0]);
