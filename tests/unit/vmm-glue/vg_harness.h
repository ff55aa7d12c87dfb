/* The harness of the VMM glue's tests: libvirglrenderer.so.1 dlopened and driven as QEMU 7.2
 * drives it (resources backed by scattered "guest pages", fences completed through GLib's default
 * main context), with the test program as the guest speaking ferry over docs/vm.md's packets.
 * A header of static functions, as test.h is: its checks count in the test that includes it. */
#ifndef FERRY_VG_HARNESS_H
#define FERRY_VG_HARNESS_H

#include <dlfcn.h>
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ferry/fence_page.h"
#include "ferry/virtio.h"
#include "ferry/wire.h"
#include "test.h"

/* The ABI, as QEMU sees it (callbacks version 3: newer QEMU's context fences too). */
struct cbs {
	int version;
	void (*write_fence)(void *cookie, uint32_t fence);
	void *create_gl_context, *destroy_gl_context, *make_current, *get_drm_fd;
	void (*write_context_fence)(void *cookie, uint32_t ctx, uint32_t ring_idx, uint64_t fence);
};
struct blob_args {
	uint32_t res_handle, ctx_id, blob_mem, blob_flags;
	uint64_t blob_id, size;
	const struct iovec *iovecs;
	uint32_t num_iovs;
};
struct create_args {
	uint32_t handle, target, format, bind, width, height, depth, array_size, last_level, nr_samples, flags;
};

struct res_info {
	uint32_t handle, virgl_format, width, height, depth, flags, tex_id, stride;
	int drm_fourcc;
};

static struct {
	int (*init)(void *, int, struct cbs *);
	void (*cleanup)(void *);
	void (*poll)(void);
	void (*get_cap_set)(uint32_t, uint32_t *, uint32_t *);
	void (*fill_caps)(uint32_t, uint32_t, void *);
	int (*context_create)(uint32_t, uint32_t, const char *);
	void (*context_destroy)(uint32_t);
	int (*submit_cmd)(void *, int, int);
	int (*create_fence)(int, uint32_t);
	int (*resource_create)(struct create_args *, struct iovec *, uint32_t);
	void (*resource_unref)(uint32_t);
	int (*attach_iov)(int, struct iovec *, int);
	void (*detach_iov)(int, struct iovec **, int *);
	void (*ctx_attach)(int, int);
	int (*transfer_write)(uint32_t, uint32_t, int, uint32_t, uint32_t, void *, uint64_t, struct iovec *, unsigned);
	int (*context_create_with_flags)(uint32_t, uint32_t, uint32_t, const char *);
	int (*context_create_fence)(uint32_t, uint32_t, uint32_t, uint64_t);
	int (*create_blob)(const struct blob_args *);
	int (*map)(uint32_t, void **, uint64_t *);
	int (*unmap)(uint32_t);
	int (*export_blob)(uint32_t, uint32_t *, int *);
	int (*get_info)(int, struct res_info *);
} vr;

#define SUBMIT_3D 0x207u
#define PAGE 4096u

static uint32_t last_fence;
static uint32_t next_fence = 1;

static inline void write_fence(void *cookie, uint32_t fence)
{
	(void)cookie;
	CHECK(fence >= last_fence); /* in order */
	last_fence = fence;
}

static uint64_t last_ctx_fence;

static inline void write_context_fence(void *cookie, uint32_t ctx, uint32_t ring_idx, uint64_t fence)
{
	(void)cookie;
	CHECK(ctx == 50 && ring_idx == 0 && fence >= last_ctx_fence);
	last_ctx_fence = fence;
}

static inline bool ctx_fence_written(void *arg)
{
	return last_ctx_fence >= *(uint64_t *)arg;
}

/* A guest resource: pages allocated one by one, attached in reverse address order. */
struct gres {
	uint32_t id;
	size_t size;
	struct iovec *iov;
	int niov;
};

static inline void gres_new(struct gres *r, uint32_t id, size_t size, uint32_t ctx)
{
	r->id = id;
	r->size = size;
	r->niov = (int)((size + PAGE - 1) / PAGE);
	r->iov = calloc((size_t)r->niov, sizeof(*r->iov));
	REQUIRE(r->iov);
	for (int i = 0; i < r->niov; i++) {
		r->iov[i].iov_len = size - (size_t)i * PAGE < PAGE ? size - (size_t)i * PAGE : PAGE;
		r->iov[i].iov_base = calloc(1, PAGE);
		REQUIRE(r->iov[i].iov_base);
	}
	struct create_args a = { .handle = id, .width = (uint32_t)size, .height = 1, .depth = 1, .array_size = 1 };
	REQUIRE(vr.resource_create(&a, NULL, 0) == 0);
	REQUIRE(vr.attach_iov((int)id, r->iov, r->niov) == 0);
	if (ctx)
		vr.ctx_attach((int)ctx, (int)id);
}

static inline void gres_free(struct gres *r)
{
	struct iovec *iov = NULL;
	int n = 0;
	vr.detach_iov((int)r->id, &iov, &n);
	CHECK(iov == r->iov && n == r->niov);
	vr.resource_unref(r->id);
	for (int i = 0; i < r->niov; i++)
		free(r->iov[i].iov_base);
	free(r->iov);
}

static inline void gres_rw(struct gres *r, size_t off, void *buf, size_t len, bool write)
{
	while (len) {
		size_t page = off / PAGE, in = off % PAGE, n = PAGE - in < len ? PAGE - in : len;
		uint8_t *p = (uint8_t *)r->iov[page].iov_base + in;
		if (write)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		off += n;
		len -= n;
		buf = (uint8_t *)buf + n;
	}
}

/* QEMU's main loop, for up to ms or until done(arg). */
static inline bool pump(bool (*done)(void *), void *arg, int ms)
{
	for (int i = 0; i < ms; i++) {
		while (g_main_context_iteration(NULL, FALSE))
			;
		vr.poll();
		if (done && done(arg))
			return true;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return done ? done(arg) : true;
}

static inline bool fence_written(void *arg)
{
	return last_fence >= *(uint32_t *)arg;
}

/* One EXECBUFFER with a fence, as the guest kernel sends them; returns the fence id. */
static inline uint32_t execbuffer(uint32_t ctx, const void *buf, size_t len)
{
	REQUIRE(len % 4 == 0);
	CHECK_EQ(vr.submit_cmd((void *)buf, (int)ctx, (int)(len / 4)), 0);
	uint32_t f = next_fence++;
	CHECK_EQ(vr.create_fence((int)f, SUBMIT_3D), 0);
	return f;
}

struct pkts {
	uint8_t buf[64 * 1024];
	size_t len;
};

static inline void pkt(struct pkts *p, uint32_t op, const void *data, uint32_t len)
{
	struct ferry_virtio_packet h = { op, len };
	REQUIRE(p->len + sizeof(h) + ferry_virtio_padded(len) <= sizeof(p->buf));
	memcpy(p->buf + p->len, &h, sizeof(h));
	memcpy(p->buf + p->len + sizeof(h), data, len);
	memset(p->buf + p->len + sizeof(h) + len, 0, ferry_virtio_padded(len) - len);
	p->len += sizeof(h) + ferry_virtio_padded(len);
}

static inline void pkt_msg(struct pkts *p, const struct ferry_msg *m)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	pkt(p, FERRY_VIRTIO_STREAM, b.data, (uint32_t)b.len);
	ferry_buf_free(&b);
}

static inline void pkt_bind(struct pkts *p, uint32_t kind, uint32_t res, uint32_t ctx_id, uint32_t bo_id)
{
	struct ferry_virtio_bind b = { kind, res, ctx_id, bo_id };
	pkt(p, FERRY_VIRTIO_BIND, &b, sizeof(b));
}

/* The guest's side of one ferry client: its virtio-gpu context and reply ring. */
struct guest {
	uint32_t ctx;
	struct gres ring;
	uint64_t read_pos;
	uint32_t seq;
};

#define RING_DATA (2u << 20)

static inline struct ferry_virtio_ring ring_header(struct guest *g)
{
	struct ferry_virtio_ring h;
	gres_rw(&g->ring, 0, &h, sizeof(h), false);
	return h;
}

struct want {
	struct guest *g;
	enum ferry_msg_kind kind;
	struct ferry_msg msg;
	uint64_t payload[4096];
};

/* Takes frames off the ring until one of w->kind (decoded into w->msg). */
static inline bool got_reply(void *arg)
{
	struct want *w = arg;
	struct guest *g = w->g;
	for (;;) {
		struct ferry_virtio_ring h = ring_header(g);
		if (h.write_pos - g->read_pos < 4)
			return false;
		uint32_t len;
		uint8_t hdr[4];
		for (int i = 0; i < 4; i++)
			gres_rw(&g->ring, FERRY_VIRTIO_RING_HEADER + ((g->read_pos + i) & (RING_DATA - 1)), &hdr[i], 1, false);
		memcpy(&len, hdr, 4);
		if (len > sizeof(w->payload) || h.write_pos - g->read_pos < 4 + (uint64_t)len)
			return false;
		for (uint32_t i = 0; i < len; i++)
			gres_rw(&g->ring, FERRY_VIRTIO_RING_HEADER + ((g->read_pos + 4 + i) & (RING_DATA - 1)),
				(uint8_t *)w->payload + i, 1, false);
		g->read_pos += 4 + len;
		gres_rw(&g->ring, offsetof(struct ferry_virtio_ring, read_pos), &g->read_pos, sizeof(g->read_pos), true);
		if (ferry_wire_decode(w->payload, len, &w->msg, NULL) == 0 && w->msg.kind == w->kind)
			return true;
	}
}

static inline bool expect(struct guest *g, enum ferry_msg_kind kind, struct want *w)
{
	w->g = g;
	w->kind = kind;
	bool ok = pump(got_reply, w, 5000);
	if (!ok)
		fprintf(stderr, "no reply of kind %d on context %u\n", kind, g->ctx);
	return ok;
}

static inline void guest_start(struct guest *g, uint32_t ctx, uint32_t ring_res)
{
	memset(g, 0, sizeof(*g));
	g->ctx = ctx;
	g->seq = 1;
	CHECK_EQ(vr.context_create(ctx, 4, "test"), 0);
	gres_new(&g->ring, ring_res, FERRY_VIRTIO_RING_HEADER + RING_DATA, ctx);
	struct pkts p = { .len = 0 };
	struct ferry_virtio_hello h = { FERRY_VIRTIO_CAPS_MAGIC, FERRY_VIRTIO_VERSION, ring_res, RING_DATA };
	pkt(&p, FERRY_VIRTIO_HELLO, &h, sizeof(h));
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO, .seq = g->seq++ };
	m.u.hello.version = FERRY_PROTOCOL_VERSION;
	m.u.hello.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM;
	pkt_msg(&p, &m);
	execbuffer(ctx, p.buf, p.len);
	static struct want w;
	CHECK(expect(g, FERRY_MSG_HELLO_REPLY, &w));
	CHECK_EQ(ring_header(g).magic, FERRY_VIRTIO_RING_MAGIC);
}

struct slot_wait {
	struct gres *page;
	uint32_t queue, seqno;
};

static inline bool slot_signaled(void *arg)
{
	struct slot_wait *s = arg;
	uint32_t v;
	gres_rw(s->page, offsetof(struct ferry_fence_page, slots) + s->queue * sizeof(struct ferry_fence_slot), &v,
		sizeof(v), false);
	return ferry_seqno_passed(v, s->seqno) && v != 0;
}

/* The context still answers a request, without an error in its ring. */
static inline void check_answers(struct guest *g)
{
	struct ferry_msg m = { .kind = FERRY_MSG_DEVICE_QUERY, .seq = g->seq++ };
	m.u.device_query.family = FERRY_FAMILY_NONE;
	struct pkts p = { .len = 0 };
	pkt_msg(&p, &m);
	execbuffer(g->ctx, p.buf, p.len);
	static struct want w;
	CHECK(expect(g, FERRY_MSG_DEVICE_INFO, &w));
	CHECK_EQ(ring_header(g).error, 0);
}

#define SYM(field, name) REQUIRE((*(void **)&vr.field = dlsym(vg_lib, name)) != NULL)

static void *vg_lib;
static FILE *vg_logfile;
static int vg_err_fd = -1;
static struct cbs vg_cb;

/* Loads the library at path and initializes it as QEMU does; its log (stderr) goes to a file. */
static inline void harness_open(const char *path)
{
	vg_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!vg_lib)
		fprintf(stderr, "%s\n", dlerror());
	REQUIRE(vg_lib);
	SYM(init, "virgl_renderer_init");
	SYM(cleanup, "virgl_renderer_cleanup");
	SYM(poll, "virgl_renderer_poll");
	SYM(get_cap_set, "virgl_renderer_get_cap_set");
	SYM(fill_caps, "virgl_renderer_fill_caps");
	SYM(context_create, "virgl_renderer_context_create");
	SYM(context_destroy, "virgl_renderer_context_destroy");
	SYM(submit_cmd, "virgl_renderer_submit_cmd");
	SYM(create_fence, "virgl_renderer_create_fence");
	SYM(resource_create, "virgl_renderer_resource_create");
	SYM(resource_unref, "virgl_renderer_resource_unref");
	SYM(attach_iov, "virgl_renderer_resource_attach_iov");
	SYM(detach_iov, "virgl_renderer_resource_detach_iov");
	SYM(ctx_attach, "virgl_renderer_ctx_attach_resource");
	SYM(transfer_write, "virgl_renderer_transfer_write_iov");
	SYM(context_create_with_flags, "virgl_renderer_context_create_with_flags");
	SYM(context_create_fence, "virgl_renderer_context_create_fence");
	SYM(create_blob, "virgl_renderer_resource_create_blob");
	SYM(map, "virgl_renderer_resource_map");
	SYM(unmap, "virgl_renderer_resource_unmap");
	SYM(export_blob, "virgl_renderer_resource_export_blob");
	SYM(get_info, "virgl_renderer_resource_get_info");
	/* QEMU asks for capsets before init; the device name comes once the host runs. */
	uint32_t ver = 0, size = 0;
	vr.get_cap_set(FERRY_VIRTIO_CAPSET_ID, &ver, &size);
	CHECK_EQ(ver, FERRY_VIRTIO_CAPSET_VERSION);
	/* The library's log (its stderr) goes to a file: each vanished context's line says what the
	 * host still holds. */
	vg_logfile = tmpfile(); /* in $TMPDIR, gone when closed */
	int logfd = vg_logfile ? fileno(vg_logfile) : -1;
	vg_err_fd = dup(2);
	REQUIRE(logfd >= 0 && vg_err_fd >= 0);
	setenv("FERRY_VG_LOG_LEVEL", "2", 1);
	fflush(stderr);
	if (!getenv("VG_HARNESS_STDERR")) /* debugging: the log as it comes */
		dup2(logfd, 2);
	vg_cb = (struct cbs){ .version = 3, .write_fence = write_fence, .write_context_fence = write_context_fence };
	REQUIRE(vr.init(&vg_cb, 0, &vg_cb) == 0);
}

/* The library's log so far (NUL-terminated, static). */
static inline const char *harness_log(void)
{
	static char log[1 << 20];
	fflush(stderr);
	ssize_t n = pread(fileno(vg_logfile), log, sizeof(log) - 1, 0);
	log[n > 0 ? n : 0] = '\0';
	return log;
}

/* Cleans up as QEMU does at exit; every client gone, nothing of theirs is left in the host. */
static inline int harness_close(void)
{
	pump(NULL, NULL, 50);
	vr.cleanup(&vg_cb);
	const char *log = harness_log();
	dup2(vg_err_fd, 2);
	close(vg_err_fd);
	const char *last = NULL;
	for (const char *q = log; (q = strstr(q, " gone: ")); q++)
		last = q;
	CHECK(last && strncmp(last, " gone: the host holds 0 clients, 0 contexts, 0 BOs (0 bytes)", 60) == 0);
	if (test_failures)
		fprintf(stderr, "library log:\n%s\n", log);
	fclose(vg_logfile);
	dlclose(vg_lib);
	return test_finish();
}

#endif
