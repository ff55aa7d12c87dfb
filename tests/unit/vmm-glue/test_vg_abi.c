/* libvirglrenderer.so.1 (vmm-glue/) driven as QEMU 7.2 drives it, with this program as the guest:
 * it dlopens the library, calls the virgl_renderer_* functions QEMU imports with QEMU's argument
 * conventions, backs resources with scattered "guest pages", completes fences through GLib's
 * default main context, and speaks ferry over the packets of docs/vm.md. Checked: the capset, a
 * PM4 job whose bytes land in the guest's pages, a guest write and a GPU write in one page both
 * kept, NOTIFY fences held until a reply or a later fence, and a context that is not ferry's (or
 * breaks the rules) refused alone while the other keeps working. */
#include <stdatomic.h>

#include "ferry/uapi/msm_drm.h"
#include "pm4_builder.h"
#include "vg_harness.h"

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

/* A malformed setting in QEMU's environment is refused, not read as 0 or the default:
 * virgl_renderer_init fails with -EINVAL (QEMU then does not start the device) and says which
 * on stderr; the same library starts once the settings are right (harness_open after this). */
static void test_bad_settings(const char *path)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	REQUIRE(lib);
	int (*init)(void *, int, void *) = (int (*)(void *, int, void *))dlsym(lib, "virgl_renderer_init");
	REQUIRE(init);
	static const char *const bad[][2] = {
		{ "FERRY_VG_RING_LINGER_US", "1ms" },	 { "FERRY_VG_RING_LINGER_US", "-5" },
		{ "FERRY_VG_RING_LINGER_US", "20000000" }, { "FERRY_VG_LOG_LEVEL", "debug" },
		{ "FERRY_VG_LOG_LEVEL", "4" },		 { "FERRY_VG_SIM_STRICT", "yes" },
		{ "FERRY_VG_V3D_TENANCY", "open" },	 { "FERRY_VG_ALLOW_PASSTHROUGH", "true" },
	};
	struct cbs cb = { .version = 3, .write_fence = write_fence, .write_context_fence = write_context_fence };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i][0], bad[i][1], 1);
		CHECK_EQ(init(&cb, 0, &cb), -EINVAL);
		unsetenv(bad[i][0]);
	}
	dlclose(lib);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	test_bad_settings(argv[1]);
	harness_open(argv[1]);
	RUN_TEST(test_caps);
	RUN_TEST(test_scanout_info);
	RUN_TEST(test_job);
	RUN_TEST(test_refused);
	RUN_TEST(test_hostile);
	RUN_TEST(test_blobs);
	RUN_TEST(test_backlog);
	return harness_close();
}
