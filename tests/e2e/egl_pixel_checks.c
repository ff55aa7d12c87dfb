/* egl_surfaceless --check-pixels: clears of a texture-backed and a renderbuffer-backed FBO, a
 * texture upload, glCopyTexSubImage2D and (GLES3) a same-size glBlitFramebuffer, each read back
 * with glReadPixels and compared byte for byte with the image this file computes.
 * Only non-shader paths (Mesa 22.3): whole-surface clears (a scissored glClear is a quad drawn
 * with shaders by the state tracker on both drivers, so none is used); freedreno clears in GMEM
 * (CP_EVENT_WRITE BLIT clear + resolve) or sysmem (CP_BLIT fill), uploads, reads back, copies and
 * blits through its 2D engine (CP_BLIT) - u_blitter, a shader draw, is only its fallback for
 * conversions the 2D engine lacks, which same-format same-size copies avoid. v3d clears with the
 * TLB, stores with STORE general, tiles and detiles uploads and glReadPixels on the CPU, and copies
 * and blits with the TFU or the TLB before falling back to a u_blitter draw. The pattern texture
 * is what shows a tiling-address error; a uniform clear cannot. */
#include "egl_pixel_checks.h"

#include <GLES3/gl3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 128
#define H 80
#define IMG_BYTES (W * H * 4)

/* Colours whose float form times 255 is at least the integer, so rounding and truncating
 * conversions both give these bytes. */
static const GLubyte BG[4] = {51, 102, 153, 255};   /* 0.2 0.4 0.6 1.0 */
static const GLubyte OTHER[4] = {255, 0, 204, 102}; /* 1.0 0.0 0.8 0.4 */

struct target {
	GLuint fbo, tex, rb;
};

static bool gl_clean(const char *what)
{
	GLenum err = glGetError();
	if (err == GL_NO_ERROR)
		return true;
	printf("  %s: GL error 0x%04x\n", what, (unsigned)err);
	return false;
}

static void clear_color(const GLubyte c[4])
{
	glClearColor(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, c[3] / 255.0f);
}

static bool make_target(struct target *t, bool renderbuffer)
{
	memset(t, 0, sizeof(*t));
	glGenFramebuffers(1, &t->fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
	if (renderbuffer) {
		glGenRenderbuffers(1, &t->rb);
		glBindRenderbuffer(GL_RENDERBUFFER, t->rb);
		glRenderbufferStorage(GL_RENDERBUFFER, 0x8058 /* GL_RGBA8(_OES) */, W, H);
		glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb);
	} else {
		glGenTextures(1, &t->tex);
		glBindTexture(GL_TEXTURE_2D, t->tex);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
		glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
		glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->tex, 0);
	}
	GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	if (!gl_clean(renderbuffer ? "renderbuffer FBO setup" : "texture FBO setup"))
		return false;
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		printf("  framebuffer incomplete: 0x%04x\n", (unsigned)status);
		return false;
	}
	glViewport(0, 0, W, H);
	return true;
}

static void free_target(struct target *t)
{
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (t->fbo)
		glDeleteFramebuffers(1, &t->fbo);
	if (t->tex)
		glDeleteTextures(1, &t->tex);
	if (t->rb)
		glDeleteRenderbuffers(1, &t->rb);
	memset(t, 0, sizeof(*t));
}

static void fill_rect(GLubyte *img, int x0, int y0, int w, int h, const GLubyte c[4])
{
	for (int y = y0; y < y0 + h; y++)
		for (int x = x0; x < x0 + w; x++)
			memcpy(&img[(y * W + x) * 4], c, 4);
}

static void clear_target(const struct target *t, const GLubyte c[4])
{
	glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
	clear_color(c);
	glClear(GL_COLOR_BUFFER_BIT);
}

/* Bytes that differ per pixel and per channel (never uniform over a tile or a row). */
static void make_pattern(GLubyte *img)
{
	uint32_t x = 0x9e3779b9u;
	for (int i = 0; i < IMG_BYTES; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		img[i] = (GLubyte)(x >> 11);
	}
}

/* A texture target whose level 0 is uploaded from `img` (glTexImage2D with data). */
static bool make_pattern_target(struct target *t, const GLubyte *img)
{
	if (!make_target(t, false))
		return false;
	glBindTexture(GL_TEXTURE_2D, t->tex);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
	glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, img);
	return gl_clean("glTexSubImage2D of the pattern");
}

/* glReadPixels of the bound framebuffer into a buffer pre-filled with 0xa5, compared exactly. */
static bool read_and_compare(const char *what, const GLubyte *want, uint64_t *checked)
{
	static GLubyte got[IMG_BYTES];
	memset(got, 0xa5, sizeof(got));
	glPixelStorei(GL_PACK_ALIGNMENT, 4);
	glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, got);
	if (!gl_clean(what))
		return false;
	*checked += IMG_BYTES;
	int bad = 0, first = -1;
	for (int i = 0; i < IMG_BYTES; i++) {
		if (got[i] != want[i] && bad++ == 0)
			first = i;
	}
	if (bad == 0) {
		printf("  %s: all %d bytes match\n", what, IMG_BYTES);
		return true;
	}
	int px = first / 4, x = px % W, y = px / W;
	const GLubyte *g = &got[px * 4], *w = &want[px * 4];
	printf("  %s: first difference at byte %d (pixel %d,%d): want %u,%u,%u,%u got %u,%u,%u,%u; "
	       "%d of %d bytes differ\n", what, first, x, y, w[0], w[1], w[2], w[3], g[0], g[1], g[2],
	       g[3], bad, IMG_BYTES);
	return false;
}

/* Clears a texture-backed FBO to one colour and a renderbuffer-backed one to another, then reads
 * both: a tile buffer or cache carried from one job to the next shows as the first holding the
 * second's colour. */
static bool check_clears(uint64_t *checked, bool *tex_ok, bool *rb_ok)
{
	static GLubyte want[IMG_BYTES];
	struct target tex, rb;
	*tex_ok = *rb_ok = false;
	if (make_target(&tex, false) && make_target(&rb, true)) {
		clear_target(&tex, BG);
		clear_target(&rb, OTHER);
		fill_rect(want, 0, 0, W, H, BG);
		glBindFramebuffer(GL_FRAMEBUFFER, tex.fbo);
		*tex_ok = read_and_compare("glClear, texture FBO", want, checked);
		fill_rect(want, 0, 0, W, H, OTHER);
		glBindFramebuffer(GL_FRAMEBUFFER, rb.fbo);
		*rb_ok = read_and_compare("glClear, renderbuffer FBO", want, checked);
	}
	free_target(&tex);
	free_target(&rb);
	return *tex_ok && *rb_ok;
}

static bool check_upload(uint64_t *checked)
{
	static GLubyte img[IMG_BYTES];
	struct target t;
	make_pattern(img);
	bool ok = make_pattern_target(&t, img);
	if (ok) {
		glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
		ok = read_and_compare("glTexSubImage2D pattern, read through its FBO", img, checked);
	}
	free_target(&t);
	return ok;
}

/* A region of the pattern copied into a texture that holds OTHER. v3d copies without shaders
 * (TLB blit) only a region at the same place in both surfaces whose corner is on a tile (64x64
 * here) and whose size is whole tiles or reaches the surface edge; freedreno's 2D engine takes
 * any region. The right half of the surface meets both. */
#define CP_SX 64
#define CP_SY 0
#define CP_DX CP_SX
#define CP_DY CP_SY
#define CP_W (W - CP_SX)
#define CP_H H

static bool check_copy_tex(uint64_t *checked)
{
	static GLubyte want[IMG_BYTES], img[IMG_BYTES];
	struct target src, dst;
	make_pattern(img);
	bool ok = make_pattern_target(&src, img) && make_target(&dst, false);
	if (ok) {
		clear_target(&dst, OTHER);
		glBindFramebuffer(GL_FRAMEBUFFER, src.fbo);  /* glCopyTexSubImage2D reads from it */
		glBindTexture(GL_TEXTURE_2D, dst.tex);
		glCopyTexSubImage2D(GL_TEXTURE_2D, 0, CP_DX, CP_DY, CP_SX, CP_SY, CP_W, CP_H);
		ok = gl_clean("glCopyTexSubImage2D");
	}
	if (ok) {
		fill_rect(want, 0, 0, W, H, OTHER);
		for (int y = 0; y < CP_H; y++)
			memcpy(&want[((CP_DY + y) * W + CP_DX) * 4], &img[((CP_SY + y) * W + CP_SX) * 4], CP_W * 4);
		glBindFramebuffer(GL_FRAMEBUFFER, dst.fbo);
		ok = read_and_compare("glCopyTexSubImage2D of a pattern region", want, checked);
	}
	free_target(&src);
	free_target(&dst);
	return ok;
}

static bool check_blit(uint64_t *checked)
{
	static GLubyte img[IMG_BYTES];
	struct target src, dst;
	make_pattern(img);
	bool ok = make_pattern_target(&src, img) && make_target(&dst, true);
	if (ok) {
		clear_target(&dst, OTHER);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, src.fbo);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, dst.fbo);
		glBlitFramebuffer(0, 0, W, H, 0, 0, W, H, GL_COLOR_BUFFER_BIT, GL_NEAREST);
		ok = gl_clean("glBlitFramebuffer");
	}
	if (ok) {
		glBindFramebuffer(GL_FRAMEBUFFER, dst.fbo);
		ok = read_and_compare("glBlitFramebuffer pattern texture FBO -> renderbuffer FBO", img, checked);
	}
	free_target(&src);
	free_target(&dst);
	return ok;
}

bool egl_check_pixels(int gles_version, bool has_rgba8_renderbuffer, struct pixel_result *res)
{
	memset(res, 0, sizeof(*res));
	bool results[5] = {false};
	const char *names[5] = {"clear_texture_fbo", "clear_renderbuffer_fbo", "upload_texture",
				"copy_tex_sub_image", "blit_framebuffer"};
	bool ran[5] = {true, true, true, true, gles_version >= 3};
	if (has_rgba8_renderbuffer) {
		check_clears(&res->bytes_checked, &results[0], &results[1]);
	} else {
		/* Both drivers offer RGBA8 renderbuffers: missing, the checks that need one fail. */
		printf("  no GL_OES_rgb8_rgba8: no RGBA8 renderbuffer\n");
	}
	while (glGetError() != GL_NO_ERROR)
		;  /* one check's error must not be blamed on the next */
	results[2] = check_upload(&res->bytes_checked);
	while (glGetError() != GL_NO_ERROR)
		;
	results[3] = check_copy_tex(&res->bytes_checked);
	while (glGetError() != GL_NO_ERROR)
		;
	if (ran[4] && has_rgba8_renderbuffer)
		results[4] = check_blit(&res->bytes_checked);
	bool ok = true;
	for (int i = 0; i < 5; i++) {
		if (!ran[i]) {
			printf("check %s: not run (glBlitFramebuffer needs a GLES3 context)\n", names[i]);
			continue;
		}
		printf("check %s: %s\n", names[i], results[i] ? "PASS" : "FAIL");
		res->run++;
		res->passed += results[i];
		ok &= results[i];
	}
	return ok;
}
