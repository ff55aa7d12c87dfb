/* The --check-pixels part of egl_surfaceless: FBO clears, glCopyTexSubImage2D and glBlitFramebuffer
 * read back and compared byte for byte. Needs a current GLES2 or GLES3 context. */
#ifndef FERRY_E2E_EGL_PIXEL_CHECKS_H
#define FERRY_E2E_EGL_PIXEL_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

struct pixel_result {
	unsigned run, passed;
	uint64_t bytes_checked;
};

/* Runs every check the context offers (glBlitFramebuffer only with GLES3); prints one line per
 * check. True when all that ran passed. */
bool egl_check_pixels(int gles_version, bool has_rgba8_renderbuffer, struct pixel_result *res);

#endif
