/* egl_surfaceless: a GLES2 (or --gles 3) context on EGL's surfaceless platform (no window system,
 * no surface), a clear into a small texture-backed framebuffer and glFinish; --check-pixels instead
 * runs egl_pixel_checks.c (FBO clears, copies, blits read back byte for byte); --native-fence
 * ends the clear with an EGL_ANDROID_native_fence_sync fence whose sync file fd is polled, asked
 * for its status (SYNC_IOC_FILE_INFO) and waited on again on the GPU (a fence made from the fd).
 * Proves a GL driver (llvmpipe, or freedreno / v3d through ferry) initializes and completes work. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <getopt.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "egl_pixel_checks.h"

#define FB_SIZE 16
#define USAGE "usage: egl_surfaceless [--renderer-contains STR] [--check-pixels] [--gles 2|3] [--native-fence]\n"

struct options {
	const char *renderer_contains;
	bool check_pixels;
	int gles;  /* context version: 2 or 3 */
	bool native_fence;
};

/* Extension strings are space-separated names; a plain strstr would match prefixes. */
static bool has_extension(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += len) {
		bool starts = p == list || p[-1] == ' ';
		bool ends = p[len] == ' ' || p[len] == '\0';
		if (starts && ends)
			return true;
	}
	return false;
}

static bool egl_fail(const char *what)
{
	fprintf(stderr, "%s failed: EGL error 0x%04x\n", what, (unsigned)eglGetError());
	return false;
}

static bool gl_ok(const char *what)
{
	GLenum err = glGetError();
	if (err == GL_NO_ERROR)
		return true;
	fprintf(stderr, "%s: GL error 0x%04x\n", what, (unsigned)err);
	return false;
}

static EGLDisplay open_surfaceless_display(void)
{
	const char *client_exts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	if (!has_extension(client_exts, "EGL_EXT_platform_base") ||
	    !has_extension(client_exts, "EGL_MESA_platform_surfaceless")) {
		fprintf(stderr, "EGL client extensions lack EGL_EXT_platform_base or "
			"EGL_MESA_platform_surfaceless: \"%s\"\n", client_exts ? client_exts : "(none)");
		return EGL_NO_DISPLAY;
	}
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!get_platform_display) {
		fprintf(stderr, "eglGetProcAddress(eglGetPlatformDisplayEXT) returned NULL\n");
		return EGL_NO_DISPLAY;
	}
	EGLDisplay dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
	if (dpy == EGL_NO_DISPLAY)
		egl_fail("eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA)");
	return dpy;
}

/* A GLES2-renderable config; the surfaceless platform offers pbuffer configs, and with
 * EGL_KHR_no_config_context none is needed at all. */
static bool choose_config(EGLDisplay dpy, int gles, EGLConfig *config)
{
	const EGLint attribs[] = {
		EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
		EGL_RENDERABLE_TYPE, gles >= 3 ? 0x40 /* EGL_OPENGL_ES3_BIT */ : EGL_OPENGL_ES2_BIT,
		EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
		EGL_NONE,
	};
	EGLint count = 0;
	if (eglChooseConfig(dpy, attribs, config, 1, &count) && count > 0) {
		printf("config: pbuffer-capable GLES%d config\n", gles);
		return true;
	}
	if (has_extension(eglQueryString(dpy, EGL_EXTENSIONS), "EGL_KHR_no_config_context")) {
		printf("config: none matched; using EGL_NO_CONFIG_KHR\n");
		*config = EGL_NO_CONFIG_KHR;
		return true;
	}
	fprintf(stderr, "no GLES%d config and no EGL_KHR_no_config_context\n", gles);
	return false;
}

/* After the clear: a native fence (the driver's out-fence fd, FENCE_FD_OUT on msm), polled until
 * POLLIN and asked for its status, then a fence made from a dup of the fd and waited on by the
 * GPU (eglWaitSyncKHR: the driver's in-fence), and glFinish. */
static bool native_fence(EGLDisplay dpy, char *what, size_t len)
{
	PFNEGLCREATESYNCKHRPROC create = (PFNEGLCREATESYNCKHRPROC)eglGetProcAddress("eglCreateSyncKHR");
	PFNEGLDESTROYSYNCKHRPROC destroy = (PFNEGLDESTROYSYNCKHRPROC)eglGetProcAddress("eglDestroySyncKHR");
	PFNEGLWAITSYNCKHRPROC wait = (PFNEGLWAITSYNCKHRPROC)eglGetProcAddress("eglWaitSyncKHR");
	PFNEGLDUPNATIVEFENCEFDANDROIDPROC dup_fd =
		(PFNEGLDUPNATIVEFENCEFDANDROIDPROC)eglGetProcAddress("eglDupNativeFenceFDANDROID");
	if (!has_extension(eglQueryString(dpy, EGL_EXTENSIONS), "EGL_ANDROID_native_fence_sync") || !create ||
	    !destroy || !wait || !dup_fd) {
		fprintf(stderr, "the display lacks EGL_ANDROID_native_fence_sync\n");
		return false;
	}
	EGLSyncKHR sync = create(dpy, EGL_SYNC_NATIVE_FENCE_ANDROID, NULL);
	if (sync == EGL_NO_SYNC_KHR)
		return egl_fail("eglCreateSyncKHR(EGL_SYNC_NATIVE_FENCE_ANDROID)");
	glFlush(); /* the fd exists once the fence's commands are flushed */
	int fd = dup_fd(dpy, sync);
	destroy(dpy, sync);
	if (fd < 0)
		return egl_fail("eglDupNativeFenceFDANDROID");
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 30000);
	struct sync_file_info info = { 0 };
	int ir = ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	bool ok = n == 1 && (p.revents & POLLIN) && ir == 0 && info.status == 1 && info.num_fences >= 1;
	snprintf(what, len, "poll=%d revents=0x%x status=%d num_fences=%u", n, (unsigned)p.revents, info.status,
		 info.num_fences);
	if (!ok) {
		fprintf(stderr, "native fence fd %d: %s\n", fd, what);
		close(fd);
		return false;
	}
	const EGLint attribs[] = { EGL_SYNC_NATIVE_FENCE_FD_ANDROID, dup(fd), EGL_NONE };
	close(fd);
	EGLSyncKHR in = create(dpy, EGL_SYNC_NATIVE_FENCE_ANDROID, attribs);
	if (in == EGL_NO_SYNC_KHR)
		return egl_fail("eglCreateSyncKHR(EGL_SYNC_NATIVE_FENCE_FD_ANDROID)");
	bool waited = wait(dpy, in, 0) == EGL_TRUE;
	destroy(dpy, in);
	if (!waited)
		return egl_fail("eglWaitSyncKHR");
	glClear(GL_COLOR_BUFFER_BIT);
	glFinish();
	return gl_ok("glClear/glFinish after the in-fence");
}

/* The smoke run: a clear, then glFinish (nothing read back). Only a whole-surface clear: a
 * scissored one is a shader draw in Mesa's state tracker, which a strict simulator fails. */
static bool draw_and_finish(EGLDisplay dpy, bool fence, char *fence_what, size_t len)
{
	GLuint tex = 0, fbo = 0;
	bool ok = false;
	glGenTextures(1, &tex);
	glBindTexture(GL_TEXTURE_2D, tex);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, FB_SIZE, FB_SIZE, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
	GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	if (!gl_ok("framebuffer setup"))
		goto out;
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "framebuffer incomplete: 0x%04x\n", (unsigned)status);
		goto out;
	}
	glViewport(0, 0, FB_SIZE, FB_SIZE);
	glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	glFinish();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!gl_ok("glClear/glFinish"))
		goto out;
	printf("glFinish returned after %.1f ms\n",
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	ok = !fence || native_fence(dpy, fence_what, len);
out:
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (fbo)
		glDeleteFramebuffers(1, &fbo);
	if (tex)
		glDeleteTextures(1, &tex);
	return ok;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{"renderer-contains", required_argument, NULL, 'r'},
		{"check-pixels", no_argument, NULL, 'p'},
		{"gles", required_argument, NULL, 'g'},
		{"native-fence", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(opt, 0, sizeof(*opt));
	opt->gles = 2;
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': opt->renderer_contains = optarg; break;
		case 'p': opt->check_pixels = true; break;
		case 'n': opt->native_fence = true; break;
		case 'g':
			if (strcmp(optarg, "2") != 0 && strcmp(optarg, "3") != 0)
				return -1;
			opt->gles = optarg[0] - '0';
			break;
		case 'h':
			printf(USAGE);
			exit(0);
		default: return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct options opt;
	if (parse_options(argc, argv, &opt) != 0) {
		fprintf(stderr, USAGE);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	EGLDisplay dpy = open_surfaceless_display();
	if (dpy == EGL_NO_DISPLAY)
		return 1;
	int status = 1;
	EGLContext ctx = EGL_NO_CONTEXT;
	EGLint major = 0, minor = 0;
	char renderer_name[256] = "-";  /* kept for the summary line after the context is gone */
	struct pixel_result pixels = {0};
	char fence_what[128] = "";
	if (!eglInitialize(dpy, &major, &minor)) {
		egl_fail("eglInitialize");
		return 1;
	}
	printf("EGL %d.%d vendor=\"%s\" version=\"%s\"\n", major, minor,
	       eglQueryString(dpy, EGL_VENDOR), eglQueryString(dpy, EGL_VERSION));
	if (!has_extension(eglQueryString(dpy, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context")) {
		fprintf(stderr, "the display lacks EGL_KHR_surfaceless_context\n");
		goto out;
	}
	EGLConfig config;
	if (!choose_config(dpy, opt.gles, &config))
		goto out;
	if (!eglBindAPI(EGL_OPENGL_ES_API)) {
		egl_fail("eglBindAPI(EGL_OPENGL_ES_API)");
		goto out;
	}
	const EGLint ctx_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, opt.gles, EGL_NONE};
	ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctx_attribs);
	if (ctx == EGL_NO_CONTEXT) {
		egl_fail(opt.gles >= 3 ? "eglCreateContext(GLES3)" : "eglCreateContext(GLES2)");
		goto out;
	}
	if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
		egl_fail("eglMakeCurrent(no surface)");
		goto out;
	}
	const char *renderer = (const char *)glGetString(GL_RENDERER);
	printf("GL_RENDERER=\"%s\"\nGL_VENDOR=\"%s\"\nGL_VERSION=\"%s\"\n", renderer ? renderer : "(null)",
	       (const char *)glGetString(GL_VENDOR), (const char *)glGetString(GL_VERSION));
	if (renderer)
		snprintf(renderer_name, sizeof(renderer_name), "%s", renderer);
	if (!renderer) {
		fprintf(stderr, "glGetString(GL_RENDERER) returned NULL\n");
	} else if (opt.renderer_contains && !strstr(renderer, opt.renderer_contains)) {
		fprintf(stderr, "GL_RENDERER \"%s\" does not contain \"%s\"\n", renderer,
			opt.renderer_contains);
	} else if (!opt.check_pixels) {
		status = draw_and_finish(dpy, opt.native_fence, fence_what, sizeof(fence_what)) ? 0 : 1;
	} else {
		const char *exts = (const char *)glGetString(GL_EXTENSIONS);
		bool rgba8 = opt.gles >= 3 || has_extension(exts, "GL_OES_rgb8_rgba8");
		status = egl_check_pixels(opt.gles, rgba8, &pixels) ? 0 : 1;
	}
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
out:
	if (ctx != EGL_NO_CONTEXT)
		eglDestroyContext(dpy, ctx);
	eglTerminate(dpy);
	printf("egl_surfaceless: %s renderer=\"%s\" pixels=%s gles=%d", status == 0 ? "PASS" : "FAIL",
	       renderer_name, opt.check_pixels ? "checked" : "not-checked", opt.gles);
	if (opt.check_pixels)
		printf(" checks=%u passed=%u bytes_checked=%llu", pixels.run, pixels.passed,
		       (unsigned long long)pixels.bytes_checked);
	if (opt.native_fence)
		printf(" native_fence=\"%s\"", fence_what);
	printf("\n");
	return status;
}
