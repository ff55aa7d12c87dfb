/* egl_surfaceless --check-pixels: clears of a texture-backed and a renderbuffer-backed FBO,
 * glCopyTexSubImage2D and (GLES3) a same-size glBlitFramebuffer, each read back with glReadPixels
 * and compared byte for byte with the image this file computes.
 * Non-shader paths (Mesa 22.3): freedreno clears in GMEM (CP_EVENT_WRITE BLIT clear + resolve) and
 * reads tiled/UBWC textures back, copies and blits through its 2D engine (CP_BLIT); u_blitter (a
 * shader draw) is only its fallback for conversions the 2D engine lacks, which these avoid (same
 * format, same size, no scaling or flips). v3d clears with the TLB, stores with STORE general,
 * detiles on the CPU for glReadPixels, and copies/blits with the TFU or the TLB before falling back
 * to a u_blitter draw. */
#include "egl_pixel_checks.h"

#include <GLES3/gl3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 64
#define H 40
#define IMG_BYTES (W * H * 4)

/* Colours whose float form times 255 is at least the integer, so rounding and truncating
 * conversions both give these bytes. */
static const GLubyte BG[4] = {51, 102, 153, 255};   /* 0.2 0.4 0.6 1.0 */
static const GLubyte FG[4] = {255, 0, 204, 102};    /* 1.0 0.0 0.8 0.4 */
static const GLubyte OTHER[4] = {0, 153, 51, 204};  /* 0.0 0.6 0.2 0.8 */
/* The scissored rectangle of the clear check (window coordinates, origin bottom-left). */
#define FG_X 8
#define FG_Y 4
#define FG_W 24
#define FG_H 16

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

/* Background everywhere, FG in the scissored rectangle: what clear_target leaves. */
static void expect_cleared(GLubyte *img)
{
	fill_rect(img, 0, 0, W, H, BG);
	fill_rect(img, FG_X, FG_Y, FG_W, FG_H, FG);
}

static void clear_target(const struct target *t)
{
	glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
	clear_color(BG);
	glClear(GL_COLOR_BUFFER_BIT);
	glEnable(GL_SCISSOR_TEST);
	glScissor(FG_X, FG_Y, FG_W, FG_H);
	clear_color(FG);
	glClear(GL_COLOR_BUFFER_BIT);
	glDisable(GL_SCISSOR_TEST);
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

static bool check_clear(bool renderbuffer, uint64_t *checked)
{
	static GLubyte want[IMG_BYTES];
	struct target t;
	bool ok = make_target(&t, renderbuffer);
	if (ok) {
		clear_target(&t);
		expect_cleared(want);
		ok = read_and_compare(renderbuffer ? "glClear, renderbuffer FBO" : "glClear, texture FBO",
				      want, checked);
	}
	free_target(&t);
	return ok;
}

/* A region straddling the cleared rectangle's corner, copied to another place in a texture that
 * holds OTHER. */
#define CP_SX 20
#define CP_SY 10
#define CP_DX 3
#define CP_DY 22
#define CP_W 30
#define CP_H 15

static bool check_copy_tex(uint64_t *checked)
{
	static GLubyte want[IMG_BYTES], src_img[IMG_BYTES];
	struct target src, dst;
	bool ok = make_target(&src, false) && make_target(&dst, false);
	if (ok) {
		glBindFramebuffer(GL_FRAMEBUFFER, dst.fbo);
		clear_color(OTHER);
		glClear(GL_COLOR_BUFFER_BIT);
		clear_target(&src);  /* leaves src bound: glCopyTexSubImage2D reads from it */
		glBindTexture(GL_TEXTURE_2D, dst.tex);
		glCopyTexSubImage2D(GL_TEXTURE_2D, 0, CP_DX, CP_DY, CP_SX, CP_SY, CP_W, CP_H);
		ok = gl_clean("glCopyTexSubImage2D");
	}
	if (ok) {
		expect_cleared(src_img);
		fill_rect(want, 0, 0, W, H, OTHER);
		for (int y = 0; y < CP_H; y++)
			memcpy(&want[((CP_DY + y) * W + CP_DX) * 4], &src_img[((CP_SY + y) * W + CP_SX) * 4],
			       CP_W * 4);
		glBindFramebuffer(GL_FRAMEBUFFER, dst.fbo);
		ok = read_and_compare("glCopyTexSubImage2D into a texture", want, checked);
	}
	free_target(&src);
	free_target(&dst);
	return ok;
}

static bool check_blit(uint64_t *checked)
{
	static GLubyte want[IMG_BYTES];
	struct target src, dst;
	bool ok = make_target(&src, false) && make_target(&dst, true);
	if (ok) {
		glBindFramebuffer(GL_FRAMEBUFFER, dst.fbo);
		clear_color(OTHER);
		glClear(GL_COLOR_BUFFER_BIT);
		clear_target(&src);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, src.fbo);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, dst.fbo);
		glBlitFramebuffer(0, 0, W, H, 0, 0, W, H, GL_COLOR_BUFFER_BIT, GL_NEAREST);
		ok = gl_clean("glBlitFramebuffer");
	}
	if (ok) {
		expect_cleared(want);
		glBindFramebuffer(GL_FRAMEBUFFER, dst.fbo);
		ok = read_and_compare("glBlitFramebuffer texture FBO -> renderbuffer FBO", want, checked);
	}
	free_target(&src);
	free_target(&dst);
	return ok;
}

bool egl_check_pixels(int gles_version, bool has_rgba8_renderbuffer, struct pixel_result *res)
{
	memset(res, 0, sizeof(*res));
	bool ok = true;
	struct {
		const char *name;
		bool run;
		bool pass;
	} checks[4] = {
		{"clear_texture_fbo", true, false},
		{"clear_renderbuffer_fbo", has_rgba8_renderbuffer, false},
		{"copy_tex_sub_image", true, false},
		{"blit_framebuffer", gles_version >= 3, false},
	};
	for (int i = 0; i < 4; i++) {
		if (!checks[i].run && i == 3) {
			printf("check %s: not run (glBlitFramebuffer needs a GLES3 context)\n", checks[i].name);
			continue;
		}
		if (!checks[i].run) {
			/* Both drivers offer RGBA8 renderbuffers: missing, the check fails. */
			printf("check %s: FAIL (no GL_OES_rgb8_rgba8)\n", checks[i].name);
			res->run++;
			ok = false;
			continue;
		}
		switch (i) {
		case 0: checks[i].pass = check_clear(false, &res->bytes_checked); break;
		case 1: checks[i].pass = check_clear(true, &res->bytes_checked); break;
		case 2: checks[i].pass = check_copy_tex(&res->bytes_checked); break;
		default: checks[i].pass = check_blit(&res->bytes_checked); break;
		}
		printf("check %s: %s\n", checks[i].name, checks[i].pass ? "PASS" : "FAIL");
		res->run++;
		res->passed += checks[i].pass;
		ok &= checks[i].pass;
		while (glGetError() != GL_NO_ERROR)
			;  /* one check's error must not be blamed on the next */
	}
	return ok;
}
