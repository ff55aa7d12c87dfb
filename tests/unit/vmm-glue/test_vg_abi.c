/* libvirglrenderer.so.1 (vmm-glue/) driven as QEMU 7.2 drives it, with this program as the guest:
 * it dlopens the library, calls the virgl_renderer_* functions QEMU imports with QEMU's argument
 * conventions, backs resources with scattered "guest pages", completes fences through GLib's
 * default main context, and speaks ferry over the packets of docs/vm.md. Checked: the capset, a
 * PM4 job whose bytes land in the guest's pages, a guest write and a GPU write in one page both
 * kept, NOTIFY fences held until a reply or a later fence, and a context that is not ferry's (or
 * breaks the rules) refused alone while the other keeps working. */
#include <dlfcn.h>
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/fence_page.h"
#include "ferry/virtio.h"
#include "ferry/wire.h"
#include "pm4_builder.h"
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

static void write_fence(void *cookie, uint32_t fence)
{
	(void)cookie;
	CHECK(fence >= last_fence); /* in order */
	last_fence = fence;
}

static uint64_t last_ctx_fence;

static void write_context_fence(void *cookie, uint32_t ctx, uint32_t ring_idx, uint64_t fence)
{
	(void)cookie;
	CHECK(ctx == 50 && ring_idx == 0 && fence >= last_ctx_fence);
	last_ctx_fence = fence;
}

static bool ctx_fence_written(void *arg)
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

static void gres_new(struct gres *r, uint32_t id, size_t size, uint32_t ctx)
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

static void gres_free(struct gres *r)
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

static void gres_rw(struct gres *r, size_t off, void *buf, size_t len, bool write)
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
static bool pump(bool (*done)(void *), void *arg, int ms)
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

static bool fence_written(void *arg)
{
	return last_fence >= *(uint32_t *)arg;
}

/* One EXECBUFFER with a fence, as the guest kernel sends them; returns the fence id. */
static uint32_t execbuffer(uint32_t ctx, const void *buf, size_t len)
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

static void pkt(struct pkts *p, uint32_t op, const void *data, uint32_t len)
{
	struct ferry_virtio_packet h = { op, len };
	REQUIRE(p->len + sizeof(h) + ferry_virtio_padded(len) <= sizeof(p->buf));
	memcpy(p->buf + p->len, &h, sizeof(h));
	memcpy(p->buf + p->len + sizeof(h), data, len);
	memset(p->buf + p->len + sizeof(h) + len, 0, ferry_virtio_padded(len) - len);
	p->len += sizeof(h) + ferry_virtio_padded(len);
}

static void pkt_msg(struct pkts *p, const struct ferry_msg *m)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	pkt(p, FERRY_VIRTIO_STREAM, b.data, (uint32_t)b.len);
	ferry_buf_free(&b);
}

static void pkt_bind(struct pkts *p, uint32_t kind, uint32_t res, uint32_t ctx_id, uint32_t bo_id)
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

static struct ferry_virtio_ring ring_header(struct guest *g)
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
static bool got_reply(void *arg)
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

static bool expect(struct guest *g, enum ferry_msg_kind kind, struct want *w)
{
	w->g = g;
	w->kind = kind;
	bool ok = pump(got_reply, w, 5000);
	if (!ok)
		fprintf(stderr, "no reply of kind %d on context %u\n", kind, g->ctx);
	return ok;
}

static void guest_start(struct guest *g, uint32_t ctx, uint32_t ring_res)
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

static bool slot_signaled(void *arg)
{
	struct slot_wait *s = arg;
	uint32_t v;
	gres_rw(s->page, offsetof(struct ferry_fence_page, slots) + s->queue * sizeof(struct ferry_fence_slot), &v,
		sizeof(v), false);
	return ferry_seqno_passed(v, s->seqno) && v != 0;
}

/* The context still answers a request, without an error in its ring. */
static void check_answers(struct guest *g)
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

static void test_caps(void)
{
	uint32_t ver = 0, size = 0;
	vr.get_cap_set(FERRY_VIRTIO_CAPSET_ID, &ver, &size);
	CHECK_EQ(ver, FERRY_VIRTIO_CAPSET_VERSION);
	CHECK_EQ(size, sizeof(struct ferry_virtio_caps));
	vr.get_cap_set(4, &ver, &size); /* Venus: not ours */
	CHECK_EQ(ver, 0);
	struct ferry_virtio_caps c;
	memset(&c, 0, sizeof(c));
	vr.fill_caps(FERRY_VIRTIO_CAPSET_ID, 1, &c);
	CHECK_EQ(c.magic, FERRY_VIRTIO_CAPS_MAGIC);
	CHECK_EQ(c.wire_version, FERRY_PROTOCOL_VERSION);
	CHECK_EQ(c.max_execbuffer, FERRY_VIRTIO_MAX_EXECBUFFER);
	CHECK(strcmp(c.device, "sim a630") == 0);
}

/* The guest's console (fbcon) makes a 2D resource and sets it as the scanout. QEMU 7.2 then
 * asks for the resource's info, treats only -1 as failure and otherwise hands info.tex_id to its
 * GL display: seen in the VM, a positive errno made QEMU draw an uninitialized texture id and
 * abort at exit. */
static void test_scanout_info(void)
{
	struct create_args a = { .handle = 90, .target = 2 /* PIPE_TEXTURE_2D */, .format = 1,
				 .bind = 1u << 1, .width = 640, .height = 480, .depth = 1, .array_size = 1 };
	static uint8_t pages[640 * 480 * 4];
	struct iovec iov = { pages, sizeof(pages) };
	CHECK_EQ(vr.resource_create(&a, &iov, 1), 0);
	struct res_info info;
	memset(&info, 0xff, sizeof(info));
	CHECK_EQ(vr.get_info(90, &info), -1);
	CHECK_EQ(info.tex_id, 0);
	CHECK_EQ(info.width, 0);
	CHECK_EQ(vr.get_info(12345, &info), -1); /* no such resource */
	struct iovec *back = NULL;
	int n = 0;
	vr.detach_iov(90, &back, &n);
	CHECK(back == &iov && n == 1); /* QEMU frees what it attached */
	vr.resource_unref(90);
}

/* A PM4 job: CP_MEM_WRITE of a pattern into a data BO whose guest page also holds bytes the
 * guest wrote after the BO was made; both end up in the guest's pages. */
static void test_job(void)
{
	struct guest g;
	guest_start(&g, 7, 100);
	struct gres page, ib, data;
	gres_new(&page, 101, PAGE, g.ctx);
	gres_new(&ib, 102, PAGE, g.ctx);
	gres_new(&data, 103, 2 * PAGE, g.ctx);
	struct pkts p = { .len = 0 };
	pkt_bind(&p, FERRY_VIRTIO_BIND_FENCE_PAGE, page.id, 1, 0);
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE, .seq = g.seq++ };
	m.u.context_create = (struct ferry_context_create){ 1, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED };
	pkt_msg(&p, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE, .seq = g.seq++ };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = 1, .queue_id = 0 };
	pkt_msg(&p, &m);
	pkt_bind(&p, FERRY_VIRTIO_BIND_BO, ib.id, 1, 1);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE, .seq = g.seq++ };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = 1, .size = PAGE, .flags = MSM_BO_WC };
	pkt_msg(&p, &m);
	pkt_bind(&p, FERRY_VIRTIO_BIND_BO, data.id, 1, 2);
	m.seq = g.seq++;
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = 2, .size = 2 * PAGE, .flags = MSM_BO_WC };
	pkt_msg(&p, &m);
	execbuffer(g.ctx, p.buf, p.len);
	static struct want w;
	REQUIRE(expect(&g, FERRY_MSG_CONTEXT_CREATED, &w));
	uint32_t magic;
	gres_rw(&page, 0, &magic, 4, false);
	CHECK_EQ(magic, FERRY_FENCE_PAGE_MAGIC);
	REQUIRE(expect(&g, FERRY_MSG_BO_CREATED, &w));
	uint64_t ib_iova = w.msg.u.bo_created.iova;
	REQUIRE(expect(&g, FERRY_MSG_BO_CREATED, &w));
	uint64_t data_iova = w.msg.u.bo_created.iova;
	/* The guest writes its bytes (a word past the GPU's, same page) and the commands. */
	uint32_t mine = 0x6e657473u;
	gres_rw(&data, PAGE + 64, &mine, 4, true);
	uint32_t cmds[64];
	struct pm4_builder b;
	pm4_builder_init(&b, cmds, 64);
	uint32_t v[4] = { 0xf3441001u, 0xf3441002u, 0xf3441003u, 0xf3441004u };
	pm4_mem_write(&b, data_iova + PAGE, v, 4);
	REQUIRE(pm4_builder_ok(&b));
	gres_rw(&ib, 0, cmds, pm4_builder_bytes(&b), true);
	struct ferry_msm_submit_bo bos[2] = { { 1, MSM_SUBMIT_BO_READ }, { 2, MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE } };
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, 0, 0, pm4_builder_bytes(&b) };
	m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT, .seq = g.seq++ };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 0, .seqno = 1, .nr_bos = 2, .nr_cmds = 1,
						     .bos = bos, .cmds = cmd.size ? &cmd : NULL };
	p.len = 0;
	pkt_msg(&p, &m);
	execbuffer(g.ctx, p.buf, p.len);
	(void)ib_iova;
	struct slot_wait sw = { &page, 0, 1 };
	CHECK(pump(slot_signaled, &sw, 5000));
	uint32_t got[4], kept;
	gres_rw(&data, PAGE, got, sizeof(got), false);
	gres_rw(&data, PAGE + 64, &kept, 4, false);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(got[i], v[i]);
	CHECK_EQ(kept, mine);

	/* NOTIFY: held while nothing changes, completed by a later fence of the device. */
	struct ferry_virtio_ring h = ring_header(&g);
	struct ferry_virtio_notify n = { .read_pos = h.write_pos, .page_gen = h.page_gen };
	p.len = 0;
	pkt(&p, FERRY_VIRTIO_NOTIFY, &n, sizeof(n));
	uint32_t held = execbuffer(g.ctx, p.buf, p.len);
	pump(NULL, NULL, 50);
	CHECK(last_fence < held);
	struct ferry_virtio_packet empty = { FERRY_VIRTIO_STREAM, 0 };
	uint32_t later = execbuffer(g.ctx, &empty, sizeof(empty));
	CHECK(pump(fence_written, &later, 5000));
	/* ... and by a reply to the context. */
	h = ring_header(&g);
	n = (struct ferry_virtio_notify){ .read_pos = h.write_pos, .page_gen = h.page_gen };
	p.len = 0;
	pkt(&p, FERRY_VIRTIO_NOTIFY, &n, sizeof(n));
	held = execbuffer(g.ctx, p.buf, p.len);
	pump(NULL, NULL, 20);
	CHECK(last_fence < held);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_INFO, .seq = g.seq++ };
	m.u.bo_info = (struct ferry_bo_info){ 1, 2 };
	p.len = 0;
	pkt_msg(&p, &m);
	CHECK_EQ(vr.submit_cmd(p.buf, (int)g.ctx, (int)(p.len / 4)), 0); /* a command without a fence */
	CHECK(pump(fence_written, &held, 5000));
	CHECK(expect(&g, FERRY_MSG_BO_INFO_REPLY, &w));

	vr.context_destroy(g.ctx);
	gres_free(&page);
	gres_free(&ib);
	gres_free(&data);
	gres_free(&g.ring);
}

/* A context whose first command is not ferry's (a virgl stream), and one that breaks the rules
 * later, are refused alone: their fences still complete, the other context keeps working. */
static void test_refused(void)
{
	struct guest good;
	guest_start(&good, 20, 200);
	CHECK_EQ(vr.context_create(21, 5, "virgl"), 0);
	uint32_t virgl[8] = { 0x00010001u, 0x12345678u, 0, 0, 0, 0, 0, 0 }; /* a virgl-like command */
	uint32_t f = execbuffer(21, virgl, sizeof(virgl));
	CHECK(pump(fence_written, &f, 5000));

	struct guest bad;
	guest_start(&bad, 22, 220);
	struct gres other;
	gres_new(&other, 221, PAGE, good.ctx); /* attached to the good context only */
	struct pkts p = { .len = 0 };
	pkt_bind(&p, FERRY_VIRTIO_BIND_BO, other.id, 1, 1);
	f = execbuffer(bad.ctx, p.buf, p.len);
	CHECK(pump(fence_written, &f, 5000));
	CHECK(ring_header(&bad).error != 0);
	/* Garbage after refusal is ignored; a truncated packet on a fresh context too. */
	f = execbuffer(bad.ctx, virgl, sizeof(virgl));
	CHECK(pump(fence_written, &f, 5000));

	check_answers(&good);

	vr.context_destroy(21);
	vr.context_destroy(bad.ctx);
	vr.context_destroy(good.ctx);
	gres_free(&other);
	gres_free(&bad.ring);
	gres_free(&good.ring);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* What a hostile guest sends, on contexts of its own: random bytes, random packets, frames cut
 * short or announced past the limit, BINDs of resources it does not have, a ring read position
 * it could not have, out-of-range transfers. Every fence completes, nothing leaks (ASan), and
 * the good context keeps its results and keeps answering. */
static void test_hostile(void)
{
	struct guest good;
	guest_start(&good, 40, 400);
	uint32_t f = 0;
	for (uint32_t round = 0; round < 200; round++) {
		uint32_t ctx = 1000 + round;
		CHECK_EQ(vr.context_create(ctx, 4, "evil"), 0);
		struct pkts p = { .len = 0 };
		if (round % 4 != 0) {
			struct ferry_virtio_hello h = { FERRY_VIRTIO_CAPS_MAGIC, FERRY_VIRTIO_VERSION, 400, RING_DATA };
			pkt(&p, FERRY_VIRTIO_HELLO, &h, sizeof(h)); /* the good context's ring: not attached here */
		}
		uint32_t n = 1 + rnd() % 6;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t junk[64];
			uint32_t len = rnd() % sizeof(junk);
			for (uint32_t w = 0; w < 64; w++)
				junk[w] = rnd();
			if (k == 0 && round % 3 == 0)
				junk[0] = FERRY_MAX_FRAME_SIZE + 1 + rnd() % 1000; /* a frame past the limit */
			pkt(&p, 1 + rnd() % 5, junk, len);
		}
		if (round % 5 == 0) { /* a header that lies about its length */
			struct ferry_virtio_packet lie = { FERRY_VIRTIO_STREAM, 0x7ffffff0u };
			memcpy(p.buf + p.len, &lie, sizeof(lie));
			p.len += sizeof(lie);
		}
		f = execbuffer(ctx, p.buf, p.len);
		if (round % 7 == 0)
			vr.submit_cmd(p.buf, (int)ctx, -3); /* a negative dword count */
		vr.context_destroy(ctx);
	}
	CHECK(pump(fence_written, &f, 10000));
	/* A ferry context that moves its ring's read position past what the host wrote. */
	struct guest liar;
	guest_start(&liar, 41, 410);
	uint64_t bogus = ring_header(&liar).write_pos + 4096;
	gres_rw(&liar.ring, offsetof(struct ferry_virtio_ring, read_pos), &bogus, sizeof(bogus), true);
	struct ferry_msg m = { .kind = FERRY_MSG_DEVICE_QUERY, .seq = liar.seq++ };
	struct pkts p = { .len = 0 };
	pkt_msg(&p, &m);
	f = execbuffer(liar.ctx, p.buf, p.len);
	CHECK(pump(fence_written, &f, 5000));
	CHECK(pump(NULL, NULL, 20));
	CHECK(ring_header(&liar).error != 0);
	/* A frame cut short, then the context goes: the host keeps nothing of it. */
	struct guest cut;
	guest_start(&cut, 42, 420);
	uint8_t partial[8] = { 64, 0, 0, 0, 1, 2, 3, 4 };
	p.len = 0;
	pkt(&p, FERRY_VIRTIO_STREAM, partial, sizeof(partial));
	f = execbuffer(cut.ctx, p.buf, p.len);
	CHECK(pump(fence_written, &f, 5000));
	vr.context_destroy(cut.ctx);
	gres_free(&cut.ring);
	/* Transfers outside a resource are refused; inside, they are fine. */
	uint32_t box[6] = { 0, 0, 0, 4096, 1, 1 };
	CHECK_EQ(vr.transfer_write(good.ring.id, good.ctx, 0, 0, 0, box, 0, NULL, 0), 0);
	CHECK_EQ(vr.transfer_write(good.ring.id, good.ctx, 0, 0, 0, box, good.ring.size - 100, NULL, 0), EINVAL);
	box[3] = UINT32_MAX;
	CHECK_EQ(vr.transfer_write(good.ring.id, good.ctx, 0, 0, 0, box, 0, NULL, 0), EINVAL);
	CHECK_EQ(vr.transfer_write(987654u, good.ctx, 0, 0, 0, box, 0, NULL, 0), EINVAL);
	vr.context_destroy(liar.ctx);
	gres_free(&liar.ring);
	check_answers(&good); /* the good context still answers */
	vr.context_destroy(good.ctx);
	gres_free(&good.ring);
}


/* More replies than the ring holds: the rest wait in the host and follow as the guest reads,
 * though reading wakes nothing (the guest only stores its read position). */
struct count {
	struct want w;
	uint32_t n;
};

static bool got_all(void *arg)
{
	struct count *c = arg;
	while (got_reply(&c->w))
		c->n++;
	return c->n >= 20000;
}

static void test_backlog(void)
{
	struct guest g;
	guest_start(&g, 60, 600);
	static struct pkts p;
	p.len = 0;
	for (uint32_t i = 0; i < 20000; i++) {
		struct ferry_msg m = { .kind = FERRY_MSG_DEVICE_QUERY, .seq = g.seq++ };
		pkt_msg(&p, &m);
		if (p.len > sizeof(p.buf) - 256) {
			execbuffer(g.ctx, p.buf, p.len);
			p.len = 0;
		}
	}
	execbuffer(g.ctx, p.buf, p.len);
	static struct count c;
	c.w = (struct want){ .g = &g, .kind = FERRY_MSG_DEVICE_INFO };
	CHECK(pump(got_all, &c, 10000));
	CHECK_EQ(c.n, 20000u);
	CHECK(g.read_pos > RING_DATA); /* the ring wrapped */
	CHECK_EQ(ring_header(&g).error, 0);
	vr.context_destroy(g.ctx);
	gres_free(&g.ring);
}

/* A VMM with context types, blobs and context fences (newer QEMU; none here runs without KVM):
 * a context of ferry's DRM capset gets its fence page and BOs as host blobs it maps, one copy,
 * and its fences complete on its own sequence. */
static uint64_t next_ctx_fence = 1;

static uint64_t ctx_execbuffer(uint32_t ctx, const void *buf, size_t len)
{
	CHECK_EQ(vr.submit_cmd((void *)buf, (int)ctx, (int)(len / 4)), 0);
	uint64_t f = next_ctx_fence++;
	CHECK_EQ(vr.context_create_fence(ctx, 0, 0, f), 0);
	return f;
}

static void *blob(uint32_t res, uint32_t ctx, uint32_t ctx_id, uint32_t bo_id, uint64_t size)
{
	struct blob_args a = { .res_handle = res, .ctx_id = ctx, .blob_mem = 2, .blob_flags = 1,
			       .blob_id = (uint64_t)ctx_id << 32 | bo_id, .size = size };
	CHECK_EQ(vr.create_blob(&a), 0);
	void *m = NULL;
	uint64_t got = 0;
	CHECK_EQ(vr.map(res, &m, &got), 0);
	CHECK_EQ(got, size);
	return m;
}

static void test_blobs(void)
{
	CHECK(vr.context_create_with_flags(51, 4, 4, "venus") != 0); /* not ours */
	REQUIRE(vr.context_create_with_flags(50, FERRY_VIRTIO_CAPSET_DRM, 4, "blob") == 0);
	struct guest g;
	memset(&g, 0, sizeof(g));
	g.ctx = 50;
	g.seq = 1;
	gres_new(&g.ring, 500, FERRY_VIRTIO_RING_HEADER + RING_DATA, g.ctx);
	struct pkts p = { .len = 0 };
	struct ferry_virtio_hello h = { FERRY_VIRTIO_CAPS_MAGIC, FERRY_VIRTIO_VERSION, 500, RING_DATA };
	pkt(&p, FERRY_VIRTIO_HELLO, &h, sizeof(h));
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO, .seq = g.seq++ };
	m.u.hello = (struct ferry_hello){ FERRY_PROTOCOL_VERSION, FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM, NULL };
	pkt_msg(&p, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE, .seq = g.seq++ };
	m.u.context_create = (struct ferry_context_create){ 1, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED };
	pkt_msg(&p, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE, .seq = g.seq++ };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = 1, .queue_id = 0 };
	pkt_msg(&p, &m);
	for (uint32_t bo = 1; bo <= 2; bo++) {
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE, .seq = g.seq++ };
		m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = bo, .size = PAGE, .flags = MSM_BO_WC };
		pkt_msg(&p, &m);
	}
	uint64_t f = ctx_execbuffer(g.ctx, p.buf, p.len);
	CHECK(pump(ctx_fence_written, &f, 5000));
	static struct want w;
	REQUIRE(expect(&g, FERRY_MSG_CONTEXT_CREATED, &w));
	REQUIRE(expect(&g, FERRY_MSG_BO_CREATED, &w));
	REQUIRE(expect(&g, FERRY_MSG_BO_CREATED, &w));
	uint64_t data_iova = w.msg.u.bo_created.iova;
	struct ferry_fence_page *page = blob(501, g.ctx, 1, 0, FERRY_FENCE_PAGE_SIZE);
	uint32_t *ib = blob(502, g.ctx, 1, 1, PAGE);
	uint32_t *data = blob(503, g.ctx, 1, 2, PAGE);
	REQUIRE(page && ib && data);
	CHECK_EQ(page->magic, FERRY_FENCE_PAGE_MAGIC);
	uint32_t type = 0;
	int fd = -1;
	CHECK_EQ(vr.export_blob(503, &type, &fd), 0);
	CHECK_EQ(type, 3u); /* shared memory */
	if (fd >= 0)
		close(fd);
	struct blob_args none = { .res_handle = 504, .ctx_id = g.ctx, .blob_mem = 2, .blob_id = 77, .size = PAGE };
	CHECK(vr.create_blob(&none) != 0); /* no such object */
	struct pm4_builder b;
	pm4_builder_init(&b, ib, 64);
	uint32_t v[2] = { 0xb10b0001u, 0xb10b0002u };
	pm4_mem_write(&b, data_iova + 16, v, 2);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_msm_submit_bo bos[2] = { { 1, MSM_SUBMIT_BO_READ }, { 2, MSM_SUBMIT_BO_WRITE } };
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, 0, 0, pm4_builder_bytes(&b) };
	m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT, .seq = g.seq++ };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 0, .seqno = 1, .nr_bos = 2, .nr_cmds = 1,
						     .bos = bos, .cmds = &cmd };
	p.len = 0;
	pkt_msg(&p, &m);
	ctx_execbuffer(g.ctx, p.buf, p.len);
	for (int i = 0; i < 5000 && atomic_load(&page->slots[0].signaled) < 1; i++)
		pump(NULL, NULL, 1);
	CHECK_EQ(atomic_load(&page->slots[0].signaled), 1u);
	CHECK_EQ(data[4], v[0]); /* the GPU's write, in the very pages the guest maps */
	CHECK_EQ(data[5], v[1]);
	vr.context_destroy(g.ctx);
	for (uint32_t r = 501; r <= 503; r++) {
		CHECK_EQ(vr.unmap(r), 0);
		vr.resource_unref(r);
	}
	gres_free(&g.ring);
}

#define SYM(field, name) REQUIRE((*(void **)&vr.field = dlsym(lib, name)) != NULL)

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		fprintf(stderr, "%s\n", dlerror());
	REQUIRE(lib);
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
	FILE *logfile = tmpfile(); /* in $TMPDIR, gone when closed */
	int logfd = logfile ? fileno(logfile) : -1;
	int err_fd = dup(2);
	REQUIRE(logfd >= 0 && err_fd >= 0);
	setenv("FERRY_VG_LOG_LEVEL", "2", 1);
	fflush(stderr);
	dup2(logfd, 2);
	struct cbs cb = { .version = 3, .write_fence = write_fence, .write_context_fence = write_context_fence };
	REQUIRE(vr.init(&cb, 0, &cb) == 0);
	RUN_TEST(test_caps);
	RUN_TEST(test_scanout_info);
	RUN_TEST(test_job);
	RUN_TEST(test_refused);
	RUN_TEST(test_hostile);
	RUN_TEST(test_blobs);
	RUN_TEST(test_backlog);
	pump(NULL, NULL, 50);
	vr.cleanup(&cb);
	fflush(stderr);
	dup2(err_fd, 2);
	close(err_fd);
	/* Every client gone, nothing of theirs is left in the host. */
	static char log[1 << 20];
	ssize_t n = pread(logfd, log, sizeof(log) - 1, 0);
	fclose(logfile);
	log[n > 0 ? n : 0] = '\0';
	const char *last = NULL;
	for (const char *q = log; (q = strstr(q, " gone: ")); q++)
		last = q;
	CHECK(last && strncmp(last, " gone: the host holds 0 clients, 0 contexts, 0 BOs (0 bytes)", 60) == 0);
	if (test_failures)
		fprintf(stderr, "library log:\n%s\n", log);
	dlclose(lib);
	return test_finish();
}
