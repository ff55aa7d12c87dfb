/* Submit rings through the VMM glue (docs/vm.md "Submit rings"), driven as QEMU 7.2 drives the
 * library: a ring resource whose pages lie in one run, and one whose pages are scattered over a
 * shared mapping (read through an alias), each carrying PM4 submits whose results land in the
 * guest's pages; records ordered against the EXECBUFFER stream; rings the glue must refuse (no
 * bind, too small, scattered private pages, a second ring) without harm; a bind of another
 * context's resource, which refuses its context as any bind does; a hostile ring index or
 * record that loses its own virtio-gpu context alone; a ring whose pages the guest detached; a
 * ring that just took records asks for no doorbell (it lingers) and still takes the next one. */
#include <sys/mman.h>

#include "ferry/submit_ring.h"
#include "ferry/uapi/msm_drm.h"
#include "pm4_builder.h"
#include "vg_harness.h"

/* A ferry context with a queue, an IB and a data BO on guest g. */
struct job {
	struct gres page, ib, data;
	uint64_t data_iova;
};

static void job_start(struct guest *g, struct job *j, uint32_t res0)
{
	gres_new(&j->page, res0, PAGE, g->ctx);
	gres_new(&j->ib, res0 + 1, PAGE, g->ctx);
	gres_new(&j->data, res0 + 2, PAGE, g->ctx);
	struct pkts p = { .len = 0 };
	pkt_bind(&p, FERRY_VIRTIO_BIND_FENCE_PAGE, j->page.id, 1, 0);
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE, .seq = g->seq++ };
	m.u.context_create = (struct ferry_context_create){ 1, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED };
	pkt_msg(&p, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE, .seq = g->seq++ };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = 1, .queue_id = 0 };
	pkt_msg(&p, &m);
	pkt_bind(&p, FERRY_VIRTIO_BIND_BO, j->ib.id, 1, 1);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE, .seq = g->seq++ };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = 1, .size = PAGE, .flags = MSM_BO_WC };
	pkt_msg(&p, &m);
	pkt_bind(&p, FERRY_VIRTIO_BIND_BO, j->data.id, 1, 2);
	m.seq = g->seq++;
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = 2, .size = PAGE, .flags = MSM_BO_WC };
	pkt_msg(&p, &m);
	execbuffer(g->ctx, p.buf, p.len);
	static struct want w;
	REQUIRE(expect(g, FERRY_MSG_CONTEXT_CREATED, &w));
	REQUIRE(expect(g, FERRY_MSG_BO_CREATED, &w));
	REQUIRE(expect(g, FERRY_MSG_BO_CREATED, &w));
	j->data_iova = w.msg.u.bo_created.iova;
}

static void job_end(struct job *j)
{
	gres_free(&j->page);
	gres_free(&j->ib);
	gres_free(&j->data);
}

/* A ring resource of FERRY_RING_HDR_SIZE + data bytes whose pages are given to the library in
 * the order of iov; mem is the guest's linear view of them. */
struct ring_res {
	uint32_t id;
	uint8_t *mem;   /* the guest's view */
	uint8_t *pool;  /* where the pages live */
	size_t len, pool_len;
	struct iovec *iov;
	int niov;
};

enum layout { ONE_RUN, SCATTERED_SHARED, SCATTERED_PRIVATE };

static void ring_res_new(struct ring_res *r, uint32_t id, uint32_t data, enum layout how, uint32_t ctx)
{
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->len = FERRY_RING_HDR_SIZE + data;
	r->niov = (int)(r->len / PAGE);
	r->iov = calloc((size_t)r->niov, sizeof(*r->iov));
	REQUIRE(r->iov);
	/* Scattered: every other page of a pool twice the size, so no two are neighbours. */
	r->pool_len = how == ONE_RUN ? r->len : 2 * r->len;
	int flags = how == SCATTERED_PRIVATE ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED | MAP_ANONYMOUS;
	r->pool = mmap(NULL, r->pool_len, PROT_READ | PROT_WRITE, flags, -1, 0);
	REQUIRE(r->pool != MAP_FAILED);
	for (int i = 0; i < r->niov; i++) {
		r->iov[i].iov_base = r->pool + (size_t)i * PAGE * (how == ONE_RUN ? 1 : 2);
		r->iov[i].iov_len = PAGE;
	}
	r->mem = r->pool;
	if (how == SCATTERED_SHARED) {
		/* The guest sees its pages in order (its own page tables): an alias of ours. */
		r->mem = mmap(NULL, r->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		REQUIRE(r->mem != MAP_FAILED);
		for (int i = 0; i < r->niov; i++)
			REQUIRE(mremap(r->iov[i].iov_base, 0, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, r->mem + (size_t)i * PAGE) !=
				MAP_FAILED);
	}
	struct create_args a = { .handle = id, .width = (uint32_t)r->len, .height = 1, .depth = 1, .array_size = 1 };
	REQUIRE(vr.resource_create(&a, NULL, 0) == 0);
	REQUIRE(vr.attach_iov((int)id, r->iov, r->niov) == 0);
	vr.ctx_attach((int)ctx, (int)id);
}

static void ring_res_free(struct ring_res *r)
{
	if (!r->iov)
		return;
	struct iovec *iov = NULL;
	int n = 0;
	vr.detach_iov((int)r->id, &iov, &n);
	vr.resource_unref(r->id);
	if (r->mem != r->pool)
		munmap(r->mem, r->len);
	munmap(r->pool, r->pool_len);
	free(r->iov);
	r->iov = NULL;
}

/* RingCreate for ferry context 1 (bound to res, 0: no bind): the host's answer. */
static struct ferry_msg ring_create(struct guest *g, uint32_t res, uint32_t data)
{
	struct pkts p = { .len = 0 };
	if (res)
		pkt_bind(&p, FERRY_VIRTIO_BIND_RING, res, 1, 0);
	struct ferry_msg m = { .kind = FERRY_MSG_RING_CREATE, .seq = g->seq++ };
	m.u.ring_create = (struct ferry_ring_create){ 1, data };
	pkt_msg(&p, &m);
	execbuffer(g->ctx, p.buf, p.len);
	static struct want w;
	w.g = g;
	w.kind = FERRY_MSG_RING_CREATED;
	/* Either kind ends the wait. */
	for (int i = 0; i < 5000; i++) {
		pump(NULL, NULL, 1);
		w.kind = FERRY_MSG_RING_CREATED;
		if (got_reply(&w))
			return w.msg;
		if (w.msg.kind == FERRY_MSG_ERROR && w.msg.seq == m.seq)
			return w.msg;
	}
	CHECK(!"no answer to RingCreate");
	return (struct ferry_msg){ 0 };
}

static void kick(struct guest *g, uint32_t ctx_id)
{
	struct pkts p = { .len = 0 };
	struct ferry_virtio_kick k = { ctx_id, 0 };
	pkt(&p, FERRY_VIRTIO_KICK, &k, sizeof(k));
	execbuffer(g->ctx, p.buf, p.len);
}

/* One MSM submit of the job (the IB writes value at data + off) as a ring record. Returns
 * whether the host asked for the doorbell. */
static bool ring_submit(struct ferry_ring_producer *prod, struct job *j, uint32_t seqno, uint32_t sock_seq,
			uint32_t off, uint32_t value)
{
	uint32_t cmds[16];
	struct pm4_builder b;
	pm4_builder_init(&b, cmds, 16);
	pm4_mem_write(&b, j->data_iova + off, &value, 1);
	REQUIRE(pm4_builder_ok(&b));
	/* Each submit's IB at its own offset: the one before may not have run yet. */
	uint32_t ib_off = (seqno % 32) * 64;
	gres_rw(&j->ib, ib_off, cmds, pm4_builder_bytes(&b), true);
	struct ferry_msm_submit_bo bos[2] = { { 1, MSM_SUBMIT_BO_READ }, { 2, MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE } };
	struct ferry_msm_submit_cmd cmd = { MSM_SUBMIT_CMD_BUF, 0, ib_off, pm4_builder_bytes(&b) };
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT, .seq = 0 };
	m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 0, .seqno = seqno, .nr_bos = 2,
						     .nr_cmds = 1, .bos = bos, .cmds = &cmd };
	struct ferry_buf fb;
	ferry_buf_init(&fb);
	REQUIRE(ferry_wire_encode(&m, &fb) == 0);
	int err;
	void *rec = ferry_ring_reserve(prod, (uint32_t)fb.len - 4, sock_seq, &err);
	REQUIRE(rec);
	memcpy(rec, fb.data + 4, fb.len - 4);
	ferry_buf_free(&fb);
	return ferry_ring_publish(prod);
}

static void wait_slot(struct job *j, uint32_t seqno)
{
	struct slot_wait sw = { &j->page, 0, seqno };
	CHECK(pump(slot_signaled, &sw, 5000));
}

static uint32_t data_word(struct job *j, uint32_t off)
{
	uint32_t v = 0;
	gres_rw(&j->data, off, &v, sizeof(v), false);
	return v;
}

/* Submits through the ring: their writes reach the guest's BO pages, the first record after
 * idle asks for the doorbell, and a record that names a stream frame not yet sent waits for it. */
static void ring_jobs(enum layout how, uint32_t ctx, uint32_t res0)
{
	struct guest g;
	guest_start(&g, ctx, res0);
	struct job j;
	job_start(&g, &j, res0 + 1);
	struct ring_res rr;
	ring_res_new(&rr, res0 + 10, FERRY_RING_MIN_DATA, how, ctx);
	struct ferry_msg a = ring_create(&g, rr.id, FERRY_RING_MIN_DATA);
	REQUIRE(a.kind == FERRY_MSG_RING_CREATED);
	CHECK_EQ(a.u.ring_created.ctx_id, 1u);
	uint32_t base = a.u.ring_created.sock_seq;
	CHECK(base >= 5); /* Hello, ContextCreate, QueueCreate, two BoCreates; not RingCreate */
	struct ferry_ring_producer prod;
	REQUIRE(ferry_ring_producer_init(&prod, rr.mem, rr.len, false) == 0);

	/* Idle: the host asked for a doorbell before the first record. */
	pump(NULL, NULL, 20);
	CHECK(ring_submit(&prod, &j, 1, base, 0, 0x11111111u));
	kick(&g, 1);
	wait_slot(&j, 1);
	CHECK_EQ(data_word(&j, 0), 0x11111111u);

	/* Many, pipelined: the doorbell is needed rarely (only when the host found the ring idle). */
	uint32_t bells = 0;
	for (uint32_t s = 2; s <= 200; s++) {
		while (ferry_ring_used(&prod) > FERRY_RING_MIN_DATA / 2)
			pump(NULL, NULL, 1);
		if (ring_submit(&prod, &j, s, base, 4 * (s % 64), s)) {
			bells++;
			kick(&g, FERRY_VIRTIO_KICK_ALL);
		}
	}
	wait_slot(&j, 200);
	CHECK_EQ(data_word(&j, 4 * (200 % 64)), 200u);
	CHECK(bells < 100);
	CHECK_EQ(atomic_load(&((struct ferry_ring_header *)rr.mem)->consumed), 200u);

	/* The ring took records just now, so it lingers (FERRY_VG_RING_LINGER_US, 10 s here: main):
	 * not armed, the next record asks for no doorbell, and the worker takes it on its own. */
	CHECK(!ring_submit(&prod, &j, 201, base, 12, 0x5eedu));
	wait_slot(&j, 201);
	CHECK_EQ(data_word(&j, 12), 0x5eedu);

	/* A record after a stream frame the host has not seen waits for that frame. */
	CHECK(ring_submit(&prod, &j, 202, base + 1, 8, 0xabcdu) || true);
	kick(&g, 1);
	pump(NULL, NULL, 50);
	CHECK_EQ(atomic_load(&((struct ferry_ring_header *)rr.mem)->consumed), 201u);
	check_answers(&g); /* the stream frame it waited for */
	wait_slot(&j, 202);
	CHECK_EQ(data_word(&j, 8), 0xabcdu);
	CHECK_EQ(ring_header(&g).error, 0);
	vr.context_destroy(g.ctx);
	ring_res_free(&rr);
	job_end(&j);
	gres_free(&g.ring);
}

static void test_ring_one_run(void)
{
	ring_jobs(ONE_RUN, 70, 700);
}

static void test_ring_scattered_shared(void)
{
	ring_jobs(SCATTERED_SHARED, 71, 710);
}

/* Rings the glue refuses: an Error answers, the context goes on, QEMU does not crash. */
static void test_ring_refused(void)
{
	struct guest g;
	guest_start(&g, 72, 720);
	struct job j;
	job_start(&g, &j, 721);
	struct ring_res small, scattered, theirs, good;
	ring_res_new(&small, 730, FERRY_RING_MIN_DATA, ONE_RUN, g.ctx);
	ring_res_new(&scattered, 731, FERRY_RING_MIN_DATA, SCATTERED_PRIVATE, g.ctx);
	ring_res_new(&theirs, 732, FERRY_RING_MIN_DATA, ONE_RUN, 0); /* attached to no context */
	ring_res_new(&good, 733, FERRY_RING_MIN_DATA, ONE_RUN, g.ctx);
	struct ferry_msg a = ring_create(&g, 0, FERRY_RING_MIN_DATA); /* nothing bound */
	CHECK(a.kind == FERRY_MSG_ERROR && a.u.error.request_kind == FERRY_MSG_RING_CREATE);
	a = ring_create(&g, small.id, 2 * FERRY_RING_MIN_DATA); /* the resource is too small */
	CHECK(a.kind == FERRY_MSG_ERROR && a.u.error.error == -EINVAL);
	a = ring_create(&g, scattered.id, FERRY_RING_MIN_DATA);
	CHECK(a.kind == FERRY_MSG_ERROR && a.u.error.error == -EXDEV);
	check_answers(&g);
	a = ring_create(&g, good.id, FERRY_RING_MIN_DATA);
	CHECK(a.kind == FERRY_MSG_RING_CREATED);
	a = ring_create(&g, small.id, FERRY_RING_MIN_DATA); /* a second one */
	CHECK(a.kind == FERRY_MSG_ERROR && a.u.error.error == -EEXIST);
	kick(&g, 12345u); /* a ring that is not there: nothing */
	/* The guest lets the ring's pages go while the host holds the ring: it is read no more. */
	ring_res_free(&good);
	kick(&g, 1);
	pump(NULL, NULL, 20);
	check_answers(&g);
	/* Binding a resource that is not its own refuses the context, as any BIND does. */
	struct pkts p = { .len = 0 };
	pkt_bind(&p, FERRY_VIRTIO_BIND_RING, theirs.id, 1, 0);
	uint32_t f = execbuffer(g.ctx, p.buf, p.len);
	CHECK(pump(fence_written, &f, 5000));
	CHECK(ring_header(&g).error != 0);
	vr.context_destroy(g.ctx);
	ring_res_free(&small);
	ring_res_free(&scattered);
	ring_res_free(&theirs);
	job_end(&j);
	gres_free(&g.ring);
}

/* A guest that writes an impossible tail loses its own virtio-gpu context; another goes on. */
static void test_ring_hostile(void)
{
	struct guest good, bad;
	guest_start(&good, 73, 740);
	guest_start(&bad, 74, 750);
	struct job j;
	job_start(&bad, &j, 751);
	struct ring_res rr;
	ring_res_new(&rr, 760, FERRY_RING_MIN_DATA, ONE_RUN, bad.ctx);
	struct ferry_msg a = ring_create(&bad, rr.id, FERRY_RING_MIN_DATA);
	REQUIRE(a.kind == FERRY_MSG_RING_CREATED);
	struct ferry_ring_header *h = (struct ferry_ring_header *)rr.mem;
	atomic_store(&h->tail, atomic_load(&h->head) + 3 * FERRY_RING_MIN_DATA);
	kick(&bad, 1);
	pump(NULL, NULL, 50);
	CHECK(ring_header(&bad).error != 0);
	CHECK(atomic_load(&h->error) < 0);
	check_answers(&good);
	/* A record whose frame is garbage, on a fresh ring of another life of the context. */
	vr.context_destroy(bad.ctx);
	ring_res_free(&rr);
	job_end(&j);
	gres_free(&bad.ring);
	guest_start(&bad, 74, 770);
	job_start(&bad, &j, 771);
	ring_res_new(&rr, 780, FERRY_RING_MIN_DATA, ONE_RUN, bad.ctx);
	a = ring_create(&bad, rr.id, FERRY_RING_MIN_DATA);
	REQUIRE(a.kind == FERRY_MSG_RING_CREATED);
	struct ferry_ring_producer prod;
	REQUIRE(ferry_ring_producer_init(&prod, rr.mem, rr.len, false) == 0);
	int err;
	uint8_t *rec = ferry_ring_reserve(&prod, 64, a.u.ring_created.sock_seq, &err);
	REQUIRE(rec);
	memset(rec, 0x5a, 64);
	ferry_ring_publish(&prod);
	kick(&bad, 1);
	pump(NULL, NULL, 50);
	CHECK(ring_header(&bad).error != 0);
	CHECK_EQ(atomic_load(&h->error), -EBADMSG);
	check_answers(&good);
	vr.context_destroy(bad.ctx);
	vr.context_destroy(good.ctx);
	ring_res_free(&rr);
	job_end(&j);
	gres_free(&bad.ring);
	gres_free(&good.ring);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	/* Long enough that a ring that just took records is surely still lingering when a check
	 * looks (the checks never wait for it to end). */
	setenv("FERRY_VG_RING_LINGER_US", "10000000", 1);
	harness_open(argv[1]);
	RUN_TEST(test_ring_one_run);
	RUN_TEST(test_ring_scattered_shared);
	RUN_TEST(test_ring_refused);
	RUN_TEST(test_ring_hostile);
	/* Each ring's record count and doorbells are logged as it goes. */
	CHECK(strstr(harness_log(), "records taken") != NULL);
	return harness_close();
}
