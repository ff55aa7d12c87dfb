/* gl_draw_traffic: a GLES3 frame on EGL's surfaceless platform that makes the command streams a GL
 * driver emits for real drawing - a texture upload, draws (arrays, indexed, instanced, textured)
 * with depth into a 512x512 texture FBO, glCopyTexSubImage2D, glBlitFramebuffer into a
 * renderbuffer FBO, glReadPixels - for the validator's regression corpus
 * (tools/corpus/cases.txt). The simulated GPUs do not run shaders, so pixels are not checked;
 * exit 0 when every GL and EGL call succeeded. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 512

static bool gl_ok(const char *what)
{
	GLenum err = glGetError();
	if (err == GL_NO_ERROR)
		return true;
	fprintf(stderr, "%s: GL error 0x%04x\n", what, (unsigned)err);
	return false;
}

static GLuint shader(GLenum type, const char *src)
{
	GLuint s = glCreateShader(type);
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	GLint ok = 0;
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[512] = "";
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		fprintf(stderr, "shader compile failed: %s\n", log);
		glDeleteShader(s);
		return 0;
	}
	return s;
}

static GLuint program(void)
{
	static const char *vs = "#version 300 es\n"
				"layout(location = 0) in vec2 pos;\n"
				"out vec2 uv;\n"
				"void main() {\n"
				"  vec2 p = pos + vec2(float(gl_InstanceID) * 0.1, 0.0);\n"
				"  uv = p * 0.5 + 0.5;\n"
				"  gl_Position = vec4(p, float(gl_InstanceID) * 0.1, 1.0);\n"
				"}\n";
	static const char *fs = "#version 300 es\n"
				"precision mediump float;\n"
				"uniform sampler2D tex;\n"
				"uniform vec4 tint;\n"
				"in vec2 uv;\n"
				"out vec4 color;\n"
				"void main() { color = texture(tex, uv) * tint; }\n";
	GLuint v = shader(GL_VERTEX_SHADER, vs), f = shader(GL_FRAGMENT_SHADER, fs);
	if (!v || !f)
		return 0;
	GLuint p = glCreateProgram();
	glAttachShader(p, v);
	glAttachShader(p, f);
	glLinkProgram(p);
	glDeleteShader(v);
	glDeleteShader(f);
	GLint ok = 0;
	glGetProgramiv(p, GL_LINK_STATUS, &ok);
	if (!ok) {
		fprintf(stderr, "program link failed\n");
		glDeleteProgram(p);
		return 0;
	}
	return p;
}

static bool frame(void)
{
	GLuint prog = program();
	if (!prog)
		return false;
	GLuint tex[3], fbo[2], rb[2], buf[2], vao;
	glGenTextures(3, tex);
	glGenFramebuffers(2, fbo);
	glGenRenderbuffers(2, rb);
	glGenBuffers(2, buf);
	glGenVertexArrays(1, &vao);
	/* tex[0]: the sampled texture, uploaded; tex[1]: the render target; tex[2]: the copy target */
	static GLubyte pixels[64 * 64 * 4];
	for (unsigned i = 0; i < sizeof(pixels); i++)
		pixels[i] = (GLubyte)(i * 7);
	for (int i = 0; i < 3; i++) {
		glBindTexture(GL_TEXTURE_2D, tex[i]);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
		int size = i == 0 ? 64 : SIZE;
		glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, size, size, 0, GL_RGBA, GL_UNSIGNED_BYTE, i == 0 ? pixels : NULL);
	}
	glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex[1], 0);
	glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, SIZE, SIZE);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[0]);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
	glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, SIZE, SIZE);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[1]);
	if (!gl_ok("setup") || glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
		return false;

	static const GLfloat verts[] = { -0.9f, -0.9f, 0.9f, -0.9f, 0.0f, 0.9f, -0.5f, 0.5f };
	static const GLushort indices[] = { 0, 1, 3, 1, 2, 3 };
	glBindVertexArray(vao);
	glBindBuffer(GL_ARRAY_BUFFER, buf[0]);
	glBufferData(GL_ARRAY_BUFFER, sizeof(verts), verts, GL_STATIC_DRAW);
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buf[1]);
	glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(indices), indices, GL_STATIC_DRAW);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
	glEnableVertexAttribArray(0);

	glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
	glViewport(0, 0, SIZE, SIZE);
	glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
	glClearDepthf(1.0f);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	glEnable(GL_DEPTH_TEST);
	glUseProgram(prog);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, tex[0]);
	glUniform1i(glGetUniformLocation(prog, "tex"), 0);
	glUniform4f(glGetUniformLocation(prog, "tint"), 1.0f, 0.5f, 0.25f, 1.0f);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glUniform4f(glGetUniformLocation(prog, "tint"), 0.5f, 1.0f, 0.5f, 1.0f);
	glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, NULL);
	glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, 3);
	glDisable(GL_DEPTH_TEST);
	if (!gl_ok("draws"))
		return false;

	glBindTexture(GL_TEXTURE_2D, tex[2]);
	glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, SIZE, SIZE);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo[0]);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo[1]);
	glBlitFramebuffer(0, 0, SIZE, SIZE, 0, 0, SIZE, SIZE, GL_COLOR_BUFFER_BIT, GL_NEAREST);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
	static GLubyte readback[SIZE * SIZE * 4];
	glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, readback);
	glFinish();
	bool ok = gl_ok("copies and readback");
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteVertexArrays(1, &vao);
	glDeleteBuffers(2, buf);
	glDeleteRenderbuffers(2, rb);
	glDeleteFramebuffers(2, fbo);
	glDeleteTextures(3, tex);
	glDeleteProgram(prog);
	return ok;
}

int main(void)
{
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL)
				     : EGL_NO_DISPLAY;
	EGLint major, minor;
	if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor) || !eglBindAPI(EGL_OPENGL_ES_API)) {
		fprintf(stderr, "EGL surfaceless display: error 0x%04x\n", (unsigned)eglGetError());
		return 1;
	}
	static const EGLint ctx_attribs[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE };
	EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attribs);
	if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
		fprintf(stderr, "GLES 3.0 context: EGL error 0x%04x\n", (unsigned)eglGetError());
		eglTerminate(dpy);
		return 1;
	}
	const char *renderer = (const char *)glGetString(GL_RENDERER);
	bool ok = frame();
	printf("gl_draw_traffic: %s renderer=\"%s\"\n", ok ? "DONE" : "FAIL", renderer ? renderer : "?");
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroyContext(dpy, ctx);
	eglTerminate(dpy);
	return ok ? 0 : 1;
}
