/* libferry-host submits on the simulated a630, without sockets: queue and submit checks (errors
 * change nothing), execution and retire through dispatch (fence page, events, eventfd),
 * relocations, faults (report, -EIO, context lost), in-fences held host-side, wait deadlines,
 * and freeing a client with work in flight. */
#include <fcntl.h>

#include <ferry/submit_ring.h>

#include "host_harness.h"

#define MSM_BO_READ  1u
#define MSM_BO_WRITE 2u
#define CMD_BUF      1u

static struct ferry_host *host;

struct ctx_fixture {
	struct harness_client hc;
	struct ferry_fence_page *page;
	int eventfd;
	uint32_t *cmd, *data; /* bo 1 (cmds), bo 2 (data), 4096 bytes each */
	uint64_t cmd_iova, data_iova;
};

static void fixture_open_policy(struct ctx_fixture *f, const char *name, uint32_t policy)
{
	memset(f, 0, sizeof(*f));
	harness_connect(&f->hc, host, name);
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM, .policy = policy };
	struct rx_msg *r = harness_reply(&f->hc, harness_request(&f->hc, &m));
	REQUIRE(r && r->m.kind == FERRY_MSG_CONTEXT_CREATED && r->nfds == 2);
	f->page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, r->fds[0], 0);
	REQUIRE(f->page != MAP_FAILED);
	f->eventfd = dup(r->fds[1]);
	req_queue_create(&f->hc, 1, 0, 0);
	req_queue_create(&f->hc, 1, 1, 0);
	r = harness_reply(&f->hc, req_bo_create(&f->hc, 1, 1, 4096, MSM_BO_WC_FLAG));
	f->cmd = harness_bo_map(r);
	f->cmd_iova = r->m.u.bo_created.iova;
	r = harness_reply(&f->hc, req_bo_create(&f->hc, 1, 2, 4096, MSM_BO_WC_FLAG));
	f->data = harness_bo_map(r);
	f->data_iova = r->m.u.bo_created.iova;
	REQUIRE(harness_count(&f->hc, FERRY_MSG_ERROR) == 0);
	harness_clear(&f->hc);
}

static void fixture_open(struct ctx_fixture *f, const char *name)
{
	fixture_open_policy(f, name, FERRY_POLICY_VALIDATED);
}

static void fixture_close(struct ctx_fixture *f)
{
	munmap(f->cmd, 4096);
	munmap(f->data, 4096);
	munmap(f->page, FERRY_FENCE_PAGE_SIZE);
	close(f->eventfd);
	harness_disconnect(&f->hc);
}

static uint32_t emit_mem_write(uint32_t *cs, uint32_t at, uint64_t iova, uint32_t value)
{
	cs[at++] = pm4_type7_hdr(CP_MEM_WRITE, 3);
	cs[at++] = (uint32_t)iova;
	cs[at++] = (uint32_t)(iova >> 32);
	cs[at++] = value;
	return at;
}

/* Waits until *(u32 *)iova >= ref. */
static uint32_t emit_wait_mem_ge(uint32_t *cs, uint32_t at, uint64_t iova, uint32_t ref)
{
	cs[at++] = pm4_type7_hdr(CP_WAIT_REG_MEM, 6);
	cs[at++] = CP_WAIT_REG_MEM_0_FUNCTION(WRITE_GE) | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY);
	cs[at++] = (uint32_t)iova;
	cs[at++] = (uint32_t)(iova >> 32);
	cs[at++] = ref;
	cs[at++] = 0xffffffffu;
	cs[at++] = 0;
	return at;
}

struct submit_args {
	uint32_t queue, seqno, flags;
	uint32_t nr_bos, nr_cmds, nr_relocs, nr_in;
	struct ferry_msm_submit_bo bos[4];
	struct ferry_msm_submit_cmd cmds[4];
	struct ferry_msm_submit_reloc relocs[4];
	struct ferry_fence_ref in[4];
};

/* Both fixture BOs, one cmd of `dwords` dwords at byte offset `offset` of bo 1. */
static struct submit_args simple_submit(uint32_t queue, uint32_t seqno, uint32_t offset, uint32_t dwords)
{
	struct submit_args a = { .queue = queue, .seqno = seqno, .nr_bos = 2, .nr_cmds = 1 };
	a.bos[0] = (struct ferry_msm_submit_bo){ .bo_id = 1, .flags = MSM_BO_READ };
	a.bos[1] = (struct ferry_msm_submit_bo){ .bo_id = 2, .flags = MSM_BO_READ | MSM_BO_WRITE };
	a.cmds[0] = (struct ferry_msm_submit_cmd){ .type = CMD_BUF, .bo_index = 0, .offset = offset, .size = dwords * 4 };
	return a;
}

static struct ferry_msg submit_msg(const struct submit_args *a)
{
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = (struct ferry_msm_submit){
		.ctx_id = 1, .queue_id = a->queue, .seqno = a->seqno, .flags = a->flags,
		.nr_bos = a->nr_bos, .nr_cmds = a->nr_cmds, .nr_relocs = a->nr_relocs, .nr_in_fences = a->nr_in,
		.bos = a->bos, .cmds = a->cmds, .relocs = a->relocs, .in_fences = a->in,
	};
	return m;
}

static uint32_t req_submit(struct harness_client *hc, const struct submit_args *a)
{
	struct ferry_msg m = submit_msg(a);
	return harness_request(hc, &m);
}

/* The submit as a record of a submit ring (a frame's payload, without its length prefix). */
static void ring_put_submit(struct ferry_ring_producer *prod, uint32_t sock_seq, const struct submit_args *a)
{
	struct ferry_msg m = submit_msg(a);
	struct ferry_buf fb;
	ferry_buf_init(&fb);
	REQUIRE(ferry_wire_encode(&m, &fb) == 0);
	int err = 0;
	void *rec = ferry_ring_reserve(prod, (uint32_t)fb.len - 4, sock_seq, &err);
	REQUIRE(rec);
	memcpy(rec, fb.data + 4, fb.len - 4);
	ferry_buf_free(&fb);
	ferry_ring_publish(prod);
}

static struct rx_msg *find_signal(struct harness_client *hc, uint32_t queue, uint32_t seqno)
{
	for (int i = 0; i < hc->n; i++) {
		struct ferry_msg *m = &hc->msgs[i].m;
		if (m->kind == FERRY_MSG_FENCE_SIGNALED && m->u.fence_signaled.queue_id == queue &&
		    m->u.fence_signaled.seqno == seqno)
			return &hc->msgs[i];
	}
	return NULL;
}

static void test_queue_checks(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-queues");
	CHECK_ERROR(&f.hc, req_queue_create(&f.hc, 1, 0, 0), -EEXIST);
	CHECK_ERROR(&f.hc, req_queue_create(&f.hc, 1, FERRY_FENCE_PAGE_QUEUES, 0), -EINVAL);
	CHECK_ERROR(&f.hc, req_queue_create(&f.hc, 1, 2, 1000), -EINVAL);
	CHECK_ERROR(&f.hc, req_queue_create(&f.hc, 2, 2, 0), -ENOENT);
	struct ferry_msg m = { .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = 1, .queue_id = 2, .flags = 1 };
	CHECK_ERROR(&f.hc, harness_request(&f.hc, &m), -EINVAL);

	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CLOSE };
	m.u.queue_close = (struct ferry_queue_close){ .ctx_id = 1, .queue_id = 1 };
	int before = f.hc.n;
	harness_request(&f.hc, &m);
	CHECK_EQ(f.hc.n, before);
	m.seq = 0;
	CHECK_ERROR(&f.hc, harness_request(&f.hc, &m), -ENOENT);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 6);
	fixture_close(&f);
}

/* Every malformed submit is refused with an error naming the problem, and changes nothing. */
static void test_submit_checks(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-submit-checks");
	emit_mem_write(f.cmd, 0, f.data_iova, 0x1234);
	struct ferry_host_stats st0, st1;
	ferry_host_get_stats(host, &st0);

	struct submit_args a;
#define EXPECT_REFUSED(mutate, err)                                 \
	do {                                                        \
		a = simple_submit(0, 1, 0, 4);                      \
		mutate;                                             \
		CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), (err));   \
	} while (0)

	EXPECT_REFUSED(a.queue = 5, -ENOENT);
	EXPECT_REFUSED(a.queue = 1000, -ENOENT);
	EXPECT_REFUSED(a.seqno = 0, -EINVAL);
	EXPECT_REFUSED(a.flags = 0x80, -EINVAL);
	EXPECT_REFUSED(a.bos[1].bo_id = 99, -ENOENT);
	EXPECT_REFUSED(a.bos[1].bo_id = 1, -EINVAL);            /* listed twice */
	EXPECT_REFUSED(a.bos[1].flags = 0, -EINVAL);            /* neither READ nor WRITE */
	EXPECT_REFUSED(a.bos[1].flags = 0x100, -EINVAL);
	/* Without cmds the other counts are still checked: a reloc has no cmd to patch. */
	EXPECT_REFUSED((a.nr_cmds = 0, a.nr_relocs = 1, a.relocs[0] = (struct ferry_msm_submit_reloc){ 0 }), -EINVAL);
	EXPECT_REFUSED((a.nr_cmds = 0, a.bos[1].bo_id = 99), -ENOENT);
	EXPECT_REFUSED((a.nr_cmds = 0, a.bos[1].flags = 0), -EINVAL);
	EXPECT_REFUSED(a.cmds[0].type = 7, -EINVAL);
	EXPECT_REFUSED(a.cmds[0].bo_index = 2, -EINVAL);
	EXPECT_REFUSED(a.cmds[0].size = 0, -EINVAL);
	EXPECT_REFUSED(a.cmds[0].size = 6, -EINVAL);
	EXPECT_REFUSED(a.cmds[0].offset = 2, -EINVAL);
	EXPECT_REFUSED(a.cmds[0].offset = 4092, -EINVAL);       /* offset + size past the BO */
	EXPECT_REFUSED(a.cmds[0].offset = 0xfffffffcu, -EINVAL); /* would wrap in 32 bits */
	EXPECT_REFUSED((a.nr_relocs = 1, a.relocs[0] = (struct ferry_msm_submit_reloc){ .cmd_index = 1 }), -EINVAL);
	EXPECT_REFUSED((a.nr_relocs = 1, a.relocs[0] = (struct ferry_msm_submit_reloc){ .bo_index = 2 }), -EINVAL);
	EXPECT_REFUSED((a.nr_relocs = 1, a.relocs[0] = (struct ferry_msm_submit_reloc){ .submit_offset = 4094 }), -EINVAL);
	EXPECT_REFUSED((a.nr_relocs = 1, a.relocs[0] = (struct ferry_msm_submit_reloc){ .submit_offset = 4096 }), -EINVAL);
	EXPECT_REFUSED((a.nr_relocs = 1, a.relocs[0] = (struct ferry_msm_submit_reloc){ .shift = 64 }), -EINVAL);
	EXPECT_REFUSED((a.nr_relocs = 2, a.relocs[0] = (struct ferry_msm_submit_reloc){ .submit_offset = 8 },
			a.relocs[1] = (struct ferry_msm_submit_reloc){ .submit_offset = 4 }),
		       -EINVAL); /* unsorted */
	EXPECT_REFUSED((a.nr_in = 1, a.in[0] = (struct ferry_fence_ref){ .queue_id = 1, .seqno = 1 }), -EINVAL);
	EXPECT_REFUSED((a.nr_in = 1, a.in[0] = (struct ferry_fence_ref){ .queue_id = 9, .seqno = 0 }), -ENOENT);
#undef EXPECT_REFUSED

	/* The error names the field. */
	a = simple_submit(0, 1, 0, 4);
	a.cmds[0].bo_index = 2;
	struct rx_msg *r = harness_reply(&f.hc, req_submit(&f.hc, &a));
	REQUIRE(r && r->m.kind == FERRY_MSG_ERROR);
	CHECK(strstr(r->m.u.error.message, "bo_index") != NULL);
	CHECK_EQ(r->m.u.error.request_kind, FERRY_MSG_MSM_SUBMIT);

	ferry_host_get_stats(host, &st1);
	CHECK_EQ(st1.submits, st0.submits);
	CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 0);
	CHECK_EQ(f.data[0], 0);

	/* The same submit, corrected, goes through; then seqnos must increase. */
	a = simple_submit(0, 1, 0, 4);
	int before_errors = harness_count(&f.hc, FERRY_MSG_ERROR);
	req_submit(&f.hc, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), before_errors);
	CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), -EINVAL); /* seqno 1 again */
	a.seqno = 0x80000001u;                               /* "before" 1, wrap-aware */
	CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), -EINVAL);
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == 1, 10000);
	CHECK_EQ(f.data[0], 0x1234);
	fixture_close(&f);
}

static void test_submit_executes_and_signals(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-exec");
	uint32_t at = emit_mem_write(f.cmd, 0, f.data_iova + 4, 0xfeed0001u);
	struct submit_args a = simple_submit(0, 1, 0, at);
	a.flags = FERRY_SUBMIT_NOTIFY;
	req_submit(&f.hc, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(host, find_signal(&f.hc, 0, 1), 10000);
	struct rx_msg *sig = find_signal(&f.hc, 0, 1);
	REQUIRE(sig);
	CHECK_EQ(sig->m.u.fence_signaled.status, 0);
	CHECK_EQ(sig->m.u.fence_signaled.ctx_id, 1);
	CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 1);
	CHECK_EQ(f.data[1], 0xfeed0001u);

	struct rx_msg *r = harness_reply(&f.hc, req_fence_wait(&f.hc, 1, 0, 1, 0));
	REQUIRE(r && r->m.kind == FERRY_MSG_STATUS_REPLY);
	CHECK_EQ(r->m.u.status_reply.error, 0);
	CHECK_ERROR(&f.hc, req_fence_wait(&f.hc, 1, 0, 2, 0), -EINVAL); /* never submitted */

	/* Without NOTIFY: no event, the page slot still advances; with waiters the eventfd fires. */
	atomic_store(&f.page->waiters, 1);
	at = emit_mem_write(f.cmd, 64, f.data_iova + 8, 0xfeed0002u);
	a = simple_submit(0, 2, 64 * 4, at - 64);
	harness_clear(&f.hc);
	req_submit(&f.hc, &a);
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == 2, 10000);
	CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 2);
	CHECK_EQ(f.data[2], 0xfeed0002u);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_FENCE_SIGNALED), 0);
	uint64_t v = 0;
	CHECK_EQ(read(f.eventfd, &v, sizeof(v)), 8);
	CHECK(v >= 1);

	/* Relocations: the address dwords of a CP_MEM_WRITE are patched with bo 2's iova + 16. */
	at = emit_mem_write(f.cmd, 128, 0, 0xfeed0003u);
	a = simple_submit(0, 3, 128 * 4, at - 128);
	a.nr_relocs = 2;
	a.relocs[0] = (struct ferry_msm_submit_reloc){
		.cmd_index = 0, .submit_offset = (128 + 1) * 4, .bo_index = 1, .bo_offset = 16, .shift = 0,
	};
	a.relocs[1] = (struct ferry_msm_submit_reloc){
		.cmd_index = 0, .submit_offset = (128 + 2) * 4, .bo_index = 1, .bo_offset = 16, .shift = -32,
	};
	req_submit(&f.hc, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == 3, 10000);
	CHECK_EQ(f.data[4], 0xfeed0003u);

	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK(st.submits >= 3);
	fixture_close(&f);
}

/* The read-only mappings of the simulated kernel's BO pages in this process: the validator's
 * (the kernel's, the shadow pool's and the harness's are writable). */
static int validator_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	REQUIRE(f);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " r--s ") && strstr(line, "memfd:ferry-msm-bo@"))
			n++;
	fclose(f);
	return n;
}

/* The validator's host mapping of a BO is made at the first submit after it came, not with the
 * BO: made and closed between submits, a BO costs ferryd no mmap. Every BO a submit could reach
 * (any of the context's, not only the listed ones) is mapped before it is validated. */
static void test_validation_maps_bos_at_submit(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-lazy-map");
	for (uint32_t id = 10; id < 18; id++)
		harness_reply(&f.hc, req_bo_create(&f.hc, 1, id, 8192, MSM_BO_WC_FLAG));
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	harness_clear(&f.hc);
	CHECK_EQ(validator_mappings(), 0);

	uint32_t at = emit_mem_write(f.cmd, 0, f.data_iova, 0x1a200001u);
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == 1, 10000);
	CHECK_EQ(f.data[0], 0x1a200001u);
	/* The 8, and the fixture's two, which no submit had reached before. */
	CHECK_EQ(validator_mappings(), 10);

	/* A BO that came after that submit, holding the next one's commands. */
	struct rx_msg *r = harness_reply(&f.hc, req_bo_create(&f.hc, 1, 20, 4096, MSM_BO_WC_FLAG));
	uint32_t *cs = harness_bo_map(r);
	at = emit_mem_write(cs, 0, f.data_iova + 4, 0x1a200002u);
	harness_clear(&f.hc);
	a = simple_submit(0, 2, 0, at);
	a.bos[0].bo_id = 20;
	req_submit(&f.hc, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == 2, 10000);
	CHECK_EQ(f.data[1], 0x1a200002u);
	CHECK_EQ(validator_mappings(), 11);
	munmap(cs, 4096);
	fixture_close(&f);
	CHECK_EQ(validator_mappings(), 0);
}

static void test_fault_reports_and_loses_context(void)
{
	struct ctx_fixture f;
	/* Passthrough: the validator would refuse the stray write below before the GPU saw it. */
	fixture_open_policy(&f, "t-fault", FERRY_POLICY_PASSTHROUGH);
	/* A second, innocent context of the same client. */
	REQUIRE(harness_reply(&f.hc, req_context_create(&f.hc, 2))->m.kind == FERRY_MSG_CONTEXT_CREATED);

	const uint64_t unmapped = 0x1f0000000ull; /* inside the VA range, no BO there */
	uint32_t at = emit_mem_write(f.cmd, 0, f.data_iova, 1);
	at = emit_mem_write(f.cmd, at, unmapped, 0xbad);
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(host, find_signal(&f.hc, 0, 1), 10000);

	struct rx_msg *fault = harness_find(&f.hc, FERRY_MSG_FAULT_REPORT);
	struct rx_msg *sig = find_signal(&f.hc, 0, 1);
	REQUIRE(fault && sig);
	CHECK(fault < sig); /* the report comes before the failed fence */
	const struct ferry_fault_report *fr = &fault->m.u.fault_report;
	CHECK_EQ(fr->ctx_id, 1);
	CHECK_EQ(fr->queue_id, 0);
	CHECK_EQ(fr->seqno, 1);
	CHECK_EQ(fr->iova, unmapped);
	CHECK(fr->flags & FERRY_FAULT_WRITE);
	CHECK(!(fr->flags & FERRY_FAULT_HANG));
	CHECK(fr->text && fr->text[0]);
	CHECK_EQ(sig->m.u.fence_signaled.status, -EIO);
	CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 1);
	CHECK_EQ(atomic_load(&f.page->slots[0].error_seqno), 1);
	CHECK_EQ(atomic_load(&f.page->slots[0].error), -EIO);
	CHECK(atomic_load(&f.page->lost) != 0);

	struct rx_msg *w = harness_reply(&f.hc, req_fence_wait(&f.hc, 1, 0, 1, 0));
	REQUIRE(w && w->m.kind == FERRY_MSG_STATUS_REPLY);
	CHECK_EQ(w->m.u.status_reply.error, -EIO);

	a.seqno = 2;
	CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), -EIO);

	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK(st.faults >= 1);

	/* Context 2 keeps working. */
	req_queue_create(&f.hc, 2, 0, 0);
	struct rx_msg *r = harness_reply(&f.hc, req_bo_create(&f.hc, 2, 1, 4096, MSM_BO_WC_FLAG));
	uint32_t *cmd2 = harness_bo_map(r);
	uint64_t iova2 = r->m.u.bo_created.iova;
	at = emit_mem_write(cmd2, 0, iova2 + 256, 0x600d);
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
	struct ferry_msm_submit_bo b = { .bo_id = 1, .flags = MSM_BO_READ | MSM_BO_WRITE };
	struct ferry_msm_submit_cmd c = { .type = CMD_BUF, .bo_index = 0, .offset = 0, .size = at * 4 };
	m.u.msm_submit = (struct ferry_msm_submit){
		.ctx_id = 2, .queue_id = 0, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY,
		.nr_bos = 1, .nr_cmds = 1, .bos = &b, .cmds = &c,
	};
	harness_clear(&f.hc);
	harness_request(&f.hc, &m);
	HARNESS_RUN_UNTIL(host, harness_find(&f.hc, FERRY_MSG_FENCE_SIGNALED), 10000);
	sig = harness_find(&f.hc, FERRY_MSG_FENCE_SIGNALED);
	REQUIRE(sig);
	CHECK_EQ(sig->m.u.fence_signaled.ctx_id, 2);
	CHECK_EQ(sig->m.u.fence_signaled.status, 0);
	CHECK_EQ(cmd2[64], 0x600d);
	munmap(cmd2, 4096);
	fixture_close(&f);
}

/* A submit waiting on another queue's fence is held host-side; waits answer at their deadline or
 * when satisfied. The GPU is kept busy by a CP_WAIT_REG_MEM the test releases from the CPU. */
static void test_in_fences_and_wait_deadlines(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-sched");
	/* queue 0: wait for data[0] >= 1, then data[1] = 0xa. queue 1: data[2] = 0xb. */
	uint32_t at = emit_wait_mem_ge(f.cmd, 0, f.data_iova, 1);
	at = emit_mem_write(f.cmd, at, f.data_iova + 4, 0xa);
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);

	uint32_t s = req_fence_wait(&f.hc, 1, 0, 1, 30 * 1000000ll);
	HARNESS_RUN_UNTIL(host, harness_reply(&f.hc, s), 10000);
	struct rx_msg *r = harness_reply(&f.hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_STATUS_REPLY);
	CHECK_EQ(r->m.u.status_reply.error, -ETIMEDOUT);

	uint32_t at2 = emit_mem_write(f.cmd, 64, f.data_iova + 8, 0xb);
	a = simple_submit(1, 1, 64 * 4, at2 - 64);
	a.nr_in = 1;
	a.in[0] = (struct ferry_fence_ref){ .queue_id = 0, .seqno = 1 };
	req_submit(&f.hc, &a);
	a.seqno = 2;
	a.in[0].seqno = 5; /* never submitted on queue 0: refused */
	CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), -EINVAL);
	/* Exactly 2^31 ahead is as unsubmitted as 4 ahead (wrap-aware compare, not accepted and held
	 * forever); likewise for a fence wait. */
	a.in[0].seqno = 1u + 0x80000000u;
	CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), -EINVAL);
	CHECK_ERROR(&f.hc, req_fence_wait(&f.hc, 1, 0, 1u + 0x80000000u, 0), -EINVAL);

	uint32_t wait_q1 = req_fence_wait(&f.hc, 1, 1, 1, -1);
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CPU_PREP };
	m.u.bo_cpu_prep = (struct ferry_bo_cpu_prep){ .ctx_id = 1, .bo_id = 2, .op = 2 /* WRITE */, .timeout_ns = 0 };
	uint32_t prep_poll = harness_request(&f.hc, &m);
	m.seq = 0;
	m.u.bo_cpu_prep.timeout_ns = -1;
	uint32_t prep_wait = harness_request(&f.hc, &m);
	r = harness_reply(&f.hc, prep_poll);
	REQUIRE(r && r->m.kind == FERRY_MSG_STATUS_REPLY);
	CHECK_EQ(r->m.u.status_reply.error, -EBUSY);
	CHECK(harness_reply(&f.hc, wait_q1) == NULL);
	CHECK(harness_reply(&f.hc, prep_wait) == NULL);
	CHECK_EQ(f.data[2], 0); /* held: not run yet */
	CHECK(ferry_host_next_timeout_ms(host) == -1); /* no deadline pending, the poll fd wakes us */

	__atomic_store_n(&f.data[0], 1, __ATOMIC_SEQ_CST); /* release queue 0 */
	HARNESS_RUN_UNTIL(host, harness_reply(&f.hc, wait_q1) && harness_reply(&f.hc, prep_wait), 10000);
	struct rx_msg *w1 = harness_reply(&f.hc, wait_q1), *w2 = harness_reply(&f.hc, prep_wait);
	REQUIRE(w1 && w2);
	if (harness_find(&f.hc, FERRY_MSG_FAULT_REPORT)) {
		/* Only if this machine stalled past the simulated hangcheck. */
		fprintf(stderr, "note: the blocked submit was declared hung; skipping value checks\n");
	} else {
		CHECK_EQ(w1->m.u.status_reply.error, 0);
		CHECK_EQ(w2->m.u.status_reply.error, 0);
		CHECK_EQ(f.data[1], 0xa);
		CHECK_EQ(f.data[2], 0xb);
		CHECK_EQ(atomic_load(&f.page->slots[1].signaled), 1);
	}
	fixture_close(&f);
}

/* Index of the FENCE_SIGNALED event for (queue, seqno) among the received messages, or -1. */
static int signal_index(struct harness_client *hc, uint32_t queue, uint32_t seqno)
{
	struct rx_msg *m = find_signal(hc, queue, seqno);
	return m ? (int)(m - hc->msgs) : -1;
}

/* A submit without cmds (Turnip's vkQueueSubmit without command buffers) is accepted as the
 * kernel accepts it: its seqno signals only after the queue's earlier submits, with or without
 * BOs, and it can be held for another queue's fence and wait in turn. Both policies. */
static void empty_submits(uint32_t policy)
{
	struct ctx_fixture f;
	fixture_open_policy(&f, "t-empty", policy);
	/* queue 0: seqno 1 waits for data[0] >= 1, then data[1] = 0xa; seqnos 2 and 3 are empty. */
	uint32_t at = emit_wait_mem_ge(f.cmd, 0, f.data_iova, 1);
	at = emit_mem_write(f.cmd, at, f.data_iova + 4, 0xa);
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);
	a = (struct submit_args){ .queue = 0, .seqno = 2, .flags = FERRY_SUBMIT_NOTIFY };
	req_submit(&f.hc, &a);
	a = simple_submit(0, 3, 0, 4);
	a.nr_cmds = 0; /* BOs but no cmds */
	a.flags = FERRY_SUBMIT_NOTIFY;
	req_submit(&f.hc, &a);
	/* queue 1: an empty submit that waits for queue 0's seqno 2. */
	a = (struct submit_args){ .queue = 1, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY, .nr_in = 1 };
	a.in[0] = (struct ferry_fence_ref){ .queue_id = 0, .seqno = 2 };
	req_submit(&f.hc, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);

	/* While seqno 1 waits on the GPU, the empty ones behind it do not signal. */
	uint32_t s = req_fence_wait(&f.hc, 1, 0, 2, 30 * 1000000ll);
	HARNESS_RUN_UNTIL(host, harness_reply(&f.hc, s), 10000);
	struct rx_msg *r = harness_reply(&f.hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_STATUS_REPLY);
	CHECK_EQ(r->m.u.status_reply.error, -ETIMEDOUT);
	CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 0);
	CHECK_EQ(atomic_load(&f.page->slots[1].signaled), 0);
	CHECK(find_signal(&f.hc, 0, 2) == NULL);
	CHECK(find_signal(&f.hc, 1, 1) == NULL);

	__atomic_store_n(&f.data[0], 1, __ATOMIC_SEQ_CST); /* release seqno 1 */
	HARNESS_RUN_UNTIL(host, find_signal(&f.hc, 0, 3) && find_signal(&f.hc, 1, 1), 10000);
	if (harness_find(&f.hc, FERRY_MSG_FAULT_REPORT)) {
		/* Only if this machine stalled past the simulated hangcheck. */
		fprintf(stderr, "note: the blocked submit was declared hung; skipping order checks\n");
	} else {
		CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
		CHECK_EQ(f.data[1], 0xa);
		CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 3);
		CHECK_EQ(atomic_load(&f.page->slots[1].signaled), 1);
		int s2 = signal_index(&f.hc, 0, 2), s3 = signal_index(&f.hc, 0, 3), q1 = signal_index(&f.hc, 1, 1);
		REQUIRE(s2 >= 0 && s3 >= 0 && q1 >= 0);
		CHECK(s2 < s3);
		CHECK(s2 < q1);
		CHECK_EQ(f.hc.msgs[s2].m.u.fence_signaled.status, 0);
		CHECK_EQ(f.hc.msgs[s3].m.u.fence_signaled.status, 0);
		CHECK_EQ(f.hc.msgs[q1].m.u.fence_signaled.status, 0);
	}
	fixture_close(&f);
}

static void test_empty_submits(void)
{
	empty_submits(FERRY_POLICY_VALIDATED);
	empty_submits(FERRY_POLICY_PASSTHROUGH);
}

/* A guest cannot make a fence retire while its submit still runs by spreading its seqnos: a new
 * seqno 2^31 or more past the oldest unretired one is refused, waits on stalled seqnos time out,
 * and the stalled submit's shadow is not reused while the CP still reads it (issue: seqno 1
 * stalled, then 0x7fffffff and 0xfffffff0 made WAIT_FENCE call 1 "invalid", which retired it). */
static void test_seqno_window(void)
{
	struct ctx_fixture f;
	struct ferry_host_stats st0, st;
	ferry_host_get_stats(host, &st0);
	fixture_open(&f, "t-seqno-window");
	/* seqno 1: wait for data[0] >= 1, then data[1] = 0xa. */
	uint32_t at = emit_wait_mem_ge(f.cmd, 0, f.data_iova, 1);
	at = emit_mem_write(f.cmd, at, f.data_iova + 4, 0xa);
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);
	/* 0x7fffffff: within 2^31 of seqno 1, accepted; data[2] = 0xb. */
	uint32_t at2 = emit_mem_write(f.cmd, 64, f.data_iova + 8, 0xb);
	a = simple_submit(0, 0x7fffffffu, 64 * 4, at2 - 64);
	uint32_t s = req_submit(&f.hc, &a);
	CHECK(harness_reply(&f.hc, s) == NULL);
	/* 0xfffffff0 is within 2^31 of 0x7fffffff but not of the unretired seqno 1: refused. */
	uint32_t at3 = emit_mem_write(f.cmd, 128, f.data_iova + 12, 0xc);
	a = simple_submit(0, 0xfffffff0u, 128 * 4, at3 - 128);
	CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), -EINVAL);

	/* Seqno 1 is still stalled: a zero-timeout wait on it, and on the later one, says so. */
	uint32_t w1 = req_fence_wait(&f.hc, 1, 0, 1, 0);
	uint32_t w2 = req_fence_wait(&f.hc, 1, 0, 0x7fffffffu, 0);
	HARNESS_RUN_UNTIL(host, harness_reply(&f.hc, w1) && harness_reply(&f.hc, w2), 10000);
	struct rx_msg *r1 = harness_reply(&f.hc, w1), *r2 = harness_reply(&f.hc, w2);
	REQUIRE(r1 && r2);
	CHECK_EQ(r1->m.u.status_reply.error, -ETIMEDOUT);
	CHECK_EQ(r2->m.u.status_reply.error, -ETIMEDOUT);
	/* Give dispatch time to (wrongly) retire it. */
	int64_t end = harness_now_ms() + 200;
	HARNESS_RUN_UNTIL(host, harness_now_ms() >= end, 1000);
	CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 0);
	CHECK(find_signal(&f.hc, 0, 1) == NULL);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.faults, st0.faults);

	__atomic_store_n(&f.data[0], 1, __ATOMIC_SEQ_CST); /* release seqno 1 */
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == 0x7fffffffu, 10000);
	if (harness_find(&f.hc, FERRY_MSG_FAULT_REPORT)) {
		fprintf(stderr, "note: the blocked submit was declared hung; skipping value checks\n");
	} else {
		CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 0x7fffffffu);
		CHECK_EQ(atomic_load(&f.page->slots[0].error), 0);
		CHECK_EQ(f.data[1], 0xa);
		CHECK_EQ(f.data[2], 0xb);
		CHECK_EQ(f.data[3], 0);
		/* Now 0xfffffff0 is less than 2^31 past the oldest unretired seqno: accepted, runs. */
		harness_clear(&f.hc);
		a = simple_submit(0, 0xfffffff0u, 128 * 4, at3 - 128);
		s = req_submit(&f.hc, &a);
		CHECK(harness_reply(&f.hc, s) == NULL);
		HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == 0xfffffff0u, 10000);
		CHECK_EQ(f.data[3], 0xc);
	}
	fixture_close(&f);
}

/* Register state does not cross contexts: client B leaves a value in CP_SCRATCH_REG(0) and a
 * render register; client A's CP_REG_TO_MEM of them is refused (-EPERM, nothing runs), while
 * reading back what A wrote itself in the same submit works. */
static void test_register_state_isolation(void)
{
	struct ctx_fixture a, b;
	fixture_open(&b, "t-regs-b");
	fixture_open(&a, "t-regs-a");
	uint32_t at = 0;
	b.cmd[at++] = pm4_type4_hdr(0x0883, 1);
	b.cmd[at++] = 0x5ec2e7u;
	b.cmd[at++] = pm4_type4_hdr(0xa800, 1);
	b.cmd[at++] = 0x5ec2e8u;
	at = emit_mem_write(b.cmd, at, b.data_iova, 1);
	struct submit_args s = simple_submit(0, 1, 0, at);
	req_submit(&b.hc, &s);
	HARNESS_RUN_UNTIL(host, atomic_load(&b.page->slots[0].signaled) == 1, 10000);
	CHECK_EQ(b.data[0], 1);

	const uint32_t regs[] = { 0x0883, 0xa800 };
	for (unsigned i = 0; i < 2; i++) {
		at = 0;
		a.cmd[at++] = pm4_type7_hdr(CP_REG_TO_MEM, 3);
		a.cmd[at++] = CP_REG_TO_MEM_0_REG(regs[i]) | CP_REG_TO_MEM_0_CNT(1);
		a.cmd[at++] = (uint32_t)a.data_iova;
		a.cmd[at++] = (uint32_t)(a.data_iova >> 32);
		s = simple_submit(0, 1, 0, at);
		CHECK_ERROR(&a.hc, req_submit(&a.hc, &s), -EPERM);
	}
	/* Written first by A itself: readable. */
	at = 0;
	a.cmd[at++] = pm4_type4_hdr(0x0883, 1);
	a.cmd[at++] = 0xa11ce;
	a.cmd[at++] = pm4_type7_hdr(CP_REG_TO_MEM, 3);
	a.cmd[at++] = CP_REG_TO_MEM_0_REG(0x0883) | CP_REG_TO_MEM_0_CNT(1);
	a.cmd[at++] = (uint32_t)a.data_iova;
	a.cmd[at++] = (uint32_t)(a.data_iova >> 32);
	s = simple_submit(0, 1, 0, at);
	req_submit(&a.hc, &s);
	HARNESS_RUN_UNTIL(host, atomic_load(&a.page->slots[0].signaled) == 1, 10000);
	CHECK_EQ(a.data[0], 0xa11ce);
	fixture_close(&a);
	fixture_close(&b);
}

/* Freeing a client with blocked GPU work, held submits and pending waits leaks nothing. */
static void test_client_free_with_pending_work(void)
{
	int fds_before = harness_open_fds();
	struct ctx_fixture f;
	fixture_open(&f, "t-free-pending");
	uint32_t at = emit_wait_mem_ge(f.cmd, 0, f.data_iova, 1);
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);
	a = simple_submit(1, 1, 0, at);
	a.nr_in = 1;
	a.in[0] = (struct ferry_fence_ref){ .queue_id = 0, .seqno = 1 };
	req_submit(&f.hc, &a);
	req_fence_wait(&f.hc, 1, 1, 1, -1);
	req_fence_wait(&f.hc, 1, 0, 1, 60 * 1000000000ll);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	/* Deferred waits pin host memory: a client gets a bounded number. */
	for (int i = 2; i < 1024; i++)
		req_fence_wait(&f.hc, 1, 0, 1, -1);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	CHECK_ERROR(&f.hc, req_fence_wait(&f.hc, 1, 0, 1, -1), -EAGAIN);
	CHECK(ferry_host_next_timeout_ms(host) > 0);
	fixture_close(&f);
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 0);
	CHECK_EQ(st.queues, 0);
	CHECK_EQ(st.bos, 0);
	CHECK_EQ(ferry_host_next_timeout_ms(host), -1);
	CHECK_EQ(harness_open_fds(), fds_before);
}

/* Destroying a context answers its pending waits with -ECANCELED. */
static void test_context_destroy_cancels_waits(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-destroy");
	uint32_t at = emit_wait_mem_ge(f.cmd, 0, f.data_iova, 1);
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);
	uint32_t w = req_fence_wait(&f.hc, 1, 0, 1, -1);
	CHECK(harness_reply(&f.hc, w) == NULL);
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy.ctx_id = 1;
	harness_request(&f.hc, &m);
	struct rx_msg *r = harness_reply(&f.hc, w);
	REQUIRE(r && r->m.kind == FERRY_MSG_STATUS_REPLY);
	CHECK_EQ(r->m.u.status_reply.error, -ECANCELED);
	fixture_close(&f);
}

/* A submit that never finishes is declared hung by the (simulated) hangcheck: FAULT_REPORT with
 * FERRY_FAULT_HANG, the fence fails with -ETIMEDOUT, the context is lost. */
static void test_hang(void)
{
	struct ctx_fixture f;
	/* Passthrough, so the crash location is the guest's own IB (a validated context's names
	 * the shadow copy: see docs/security.md). */
	fixture_open_policy(&f, "t-hang", FERRY_POLICY_PASSTHROUGH);
	uint32_t at = emit_wait_mem_ge(f.cmd, 0, f.data_iova, 1); /* data[0] stays 0 */
	struct submit_args a = simple_submit(0, 1, 0, at);
	req_submit(&f.hc, &a);
	HARNESS_RUN_UNTIL(host, find_signal(&f.hc, 0, 1), 30000);
	struct rx_msg *fault = harness_find(&f.hc, FERRY_MSG_FAULT_REPORT);
	struct rx_msg *sig = find_signal(&f.hc, 0, 1);
	REQUIRE(fault && sig);
	CHECK(fault->m.u.fault_report.flags & FERRY_FAULT_HANG);
	CHECK_EQ(fault->m.u.fault_report.seqno, 1);
	CHECK(fault->m.u.fault_report.ib_iova == f.cmd_iova);
	CHECK_EQ(fault->m.u.fault_report.opcode, CP_WAIT_REG_MEM);
	CHECK_EQ(sig->m.u.fence_signaled.status, -ETIMEDOUT);
	CHECK(atomic_load(&f.page->lost) != 0);
	fixture_close(&f);
}

/* Closing a queue with work in flight keeps its id busy until that work retired (and signaled). */
static void test_queue_close_with_work_in_flight(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-qclose");
	uint32_t at = emit_wait_mem_ge(f.cmd, 0, f.data_iova, 1);
	at = emit_mem_write(f.cmd, at, f.data_iova + 4, 0x77);
	struct submit_args a = simple_submit(0, 1, 0, at);
	a.flags = FERRY_SUBMIT_NOTIFY;
	req_submit(&f.hc, &a);
	struct ferry_msg m = { .kind = FERRY_MSG_QUEUE_CLOSE };
	m.u.queue_close = (struct ferry_queue_close){ .ctx_id = 1, .queue_id = 0 };
	harness_request(&f.hc, &m);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	a.seqno = 2;
	CHECK_ERROR(&f.hc, req_submit(&f.hc, &a), -ENOENT);          /* closed for new work */
	CHECK_ERROR(&f.hc, req_queue_create(&f.hc, 1, 0, 0), -EBUSY); /* id still in use */
	__atomic_store_n(&f.data[0], 1, __ATOMIC_SEQ_CST);
	HARNESS_RUN_UNTIL(host, find_signal(&f.hc, 0, 1), 10000);
	struct rx_msg *sig = find_signal(&f.hc, 0, 1);
	REQUIRE(sig);
	CHECK_EQ(f.data[1], 0x77);
	int errors = harness_count(&f.hc, FERRY_MSG_ERROR);
	req_queue_create(&f.hc, 1, 0, 0); /* drained and reaped: the id is free again */
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), errors);
	CHECK_EQ(atomic_load(&f.page->slots[0].signaled), 0); /* a fresh timeline */
	fixture_close(&f);
}

/* A dispatch pass takes ring records for dispatch_pass_us at most, and a ring that woke for a
 * context with nothing in flight goes before busy rings: with a 1 us pass, one record per pass,
 * the idle context's before the 39 a busy context left. Everything still runs, in each ring's
 * order. (Unbounded passes in ring order made a light client's submit+wait beside 64 busy ones
 * ~30 ms.) */
/* A lone submit on an idle simulated GPU runs inside the kernel call (kdev submit_here), and the
 * simulator tells that by done_here, not by its poll fd: the one dispatch after the submit
 * retires it (the guest's page slot), with no poll of the host fd between. 20 such in a row;
 * a try the worker took instead (a busy machine) is waited out and not counted. */
static void test_lone_submit_retires_in_next_dispatch(void)
{
	struct ctx_fixture f;
	fixture_open(&f, "t-here");
	f.cmd[0] = pm4_type7_hdr(CP_NOP, 0);
	uint32_t seqno = 0, inline_done = 0;
	for (int i = 0; i < 1000 && inline_done < 20; i++) {
		struct submit_args a = simple_submit(0, ++seqno, 0, 1);
		req_submit(&f.hc, &a);
		ferry_host_dispatch(host);
		if (atomic_load(&f.page->slots[0].signaled) == seqno) {
			inline_done++;
			continue;
		}
		HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == seqno, 10000);
		REQUIRE(atomic_load(&f.page->slots[0].signaled) == seqno);
		usleep(2000); /* until the worker sleeps idle again */
	}
	CHECK_EQ(inline_done, 20u);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	fixture_close(&f);
}

/* A seqno waiter (fence page version 2) gets the eventfd when its queue reaches wake_at, not
 * for the retires before it; the loss of the context wakes it whatever wake_at says. */
static bool eventfd_written(int fd)
{
	uint64_t v;
	return read(fd, &v, sizeof(v)) == sizeof(v);
}

static void test_seqno_waiter_woken_at_its_seqno(void)
{
	struct ctx_fixture f;
	fixture_open_policy(&f, "t-wake-at", FERRY_POLICY_PASSTHROUGH);
	REQUIRE(fcntl(f.eventfd, F_SETFL, fcntl(f.eventfd, F_GETFL) | O_NONBLOCK) == 0);
	CHECK_EQ(f.page->version, FERRY_FENCE_PAGE_VERSION);
	for (uint32_t i = 0; i < FERRY_FENCE_PAGE_QUEUES; i++)
		CHECK(!ferry_fence_slot_wake_due(&f.page->slots[i])); /* nothing due before asked */

	f.cmd[0] = pm4_type7_hdr(CP_NOP, 0);
	atomic_store(&f.page->slots[0].wake_at, 3);
	atomic_store(&f.page->seqno_waiters, 1);
	for (uint32_t seqno = 1; seqno <= 3; seqno++) {
		struct submit_args a = simple_submit(0, seqno, 0, 1);
		req_submit(&f.hc, &a);
		HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[0].signaled) == seqno, 10000);
		REQUIRE(atomic_load(&f.page->slots[0].signaled) == seqno);
		ferry_host_dispatch(host);
		CHECK_EQ(eventfd_written(f.eventfd), seqno == 3);
	}
	/* Now waiting for 100: a retire on queue 1, whose wake_at nobody set, wakes no one; the
	 * loss does. */
	atomic_store(&f.page->slots[0].wake_at, 100);
	struct submit_args a = simple_submit(1, 1, 0, 1);
	req_submit(&f.hc, &a);
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->slots[1].signaled) == 1, 10000);
	ferry_host_dispatch(host);
	CHECK(!eventfd_written(f.eventfd));
	const uint64_t unmapped = 0x1f0000000ull;
	uint32_t at = emit_mem_write(f.cmd, 16, unmapped, 0xbad);
	a = simple_submit(0, 4, 16 * 4, at - 16);
	req_submit(&f.hc, &a);
	HARNESS_RUN_UNTIL(host, atomic_load(&f.page->lost) != 0, 10000);
	ferry_host_dispatch(host);
	CHECK(atomic_load(&f.page->lost) != 0);
	CHECK(eventfd_written(f.eventfd));
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	fixture_close(&f);
}

static void test_ring_pass_bounded_idle_first(void)
{
	struct ferry_host *shared = host;
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR, .fence_timeout_ms = -1,
					 .dispatch_pass_us = 1 };
	REQUIRE(ferry_host_create(&cfg, &host) == 0);
	enum { BUSY, IDLE, N = 40 };
	struct ctx_fixture f[2];
	struct ferry_ring_producer prod[2];
	struct ferry_host_ring_stats st[2];
	uint32_t sock_seq[2];
	size_t len = FERRY_RING_HDR_SIZE + FERRY_RING_MIN_DATA;
	void *mem[2];
	for (int i = 0; i < 2; i++) {
		fixture_open(&f[i], i == BUSY ? "t-ring-busy" : "t-ring-idle");
		mem[i] = aligned_alloc(4096, len);
		REQUIRE(mem[i]);
		memset(mem[i], 0, len);
		REQUIRE(ferry_host_client_ring_attach(f[i].hc.client, 1, mem[i], len, &sock_seq[i]) == 0);
		REQUIRE(ferry_ring_producer_init(&prod[i], mem[i], len, false) == 0);
	}
	/* Busy submit s writes s to data[s] from its own 4 dwords of the command BO. */
	for (uint32_t s = 1; s <= N; s++) {
		emit_mem_write(f[BUSY].cmd, 4 * (s - 1), f[BUSY].data_iova + 4 * s, s);
		struct submit_args a = simple_submit(0, s, 16 * (s - 1), 4);
		ring_put_submit(&prod[BUSY], sock_seq[BUSY], &a);
	}
	ferry_host_client_ring_kick(f[BUSY].hc.client, 1);
	ferry_host_dispatch(host);
	REQUIRE(ferry_host_client_ring_stats(f[BUSY].hc.client, 1, &st[BUSY]) == 0);
	CHECK_EQ(st[BUSY].records, 1u); /* the pass ended after its first record */

	emit_mem_write(f[IDLE].cmd, 0, f[IDLE].data_iova, 0x1d1eu);
	struct submit_args a = simple_submit(0, 1, 0, 4);
	ring_put_submit(&prod[IDLE], sock_seq[IDLE], &a);
	ferry_host_client_ring_kick(f[IDLE].hc.client, 1);
	ferry_host_dispatch(host);
	REQUIRE(ferry_host_client_ring_stats(f[IDLE].hc.client, 1, &st[IDLE]) == 0);
	REQUIRE(ferry_host_client_ring_stats(f[BUSY].hc.client, 1, &st[BUSY]) == 0);
	CHECK_EQ(st[IDLE].records, 1u);
	CHECK_EQ(st[BUSY].records, 1u); /* the idle ring's record was the whole second pass */

	HARNESS_RUN_UNTIL(host, atomic_load(&f[BUSY].page->slots[0].signaled) == N &&
				       atomic_load(&f[IDLE].page->slots[0].signaled) == 1, 10000);
	CHECK_EQ(atomic_load(&f[BUSY].page->slots[0].signaled), (uint32_t)N);
	CHECK_EQ(atomic_load(&f[IDLE].page->slots[0].signaled), 1u);
	for (uint32_t s = 1; s <= N; s++)
		CHECK_EQ(f[BUSY].data[s], s);
	CHECK_EQ(f[IDLE].data[0], 0x1d1eu);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(harness_count(&f[i].hc, FERRY_MSG_ERROR), 0);
		ferry_host_client_ring_detach(f[i].hc.client, 1);
		fixture_close(&f[i]);
		free(mem[i]);
	}
	ferry_host_destroy(host);
	host = shared;
}

int main(void)
{
	/* Watchdog off: its check while work is pending would show in ferry_host_next_timeout_ms,
	 * which these tests read for wait deadlines (test_hang_report.c tests the watchdog). */
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR, .allow_passthrough = true,
					 .fence_timeout_ms = -1 };
	REQUIRE(ferry_host_create(&cfg, &host) == 0);
	RUN_TEST(test_queue_checks);
	RUN_TEST(test_submit_checks);
	RUN_TEST(test_submit_executes_and_signals);
	RUN_TEST(test_validation_maps_bos_at_submit);
	RUN_TEST(test_fault_reports_and_loses_context);
	RUN_TEST(test_in_fences_and_wait_deadlines);
	RUN_TEST(test_empty_submits);
	RUN_TEST(test_seqno_window);
	RUN_TEST(test_register_state_isolation);
	RUN_TEST(test_client_free_with_pending_work);
	RUN_TEST(test_context_destroy_cancels_waits);
	RUN_TEST(test_queue_close_with_work_in_flight);
	RUN_TEST(test_hang);
	RUN_TEST(test_ring_pass_bounded_idle_first);
	RUN_TEST(test_lone_submit_retires_in_next_dispatch);
	RUN_TEST(test_seqno_waiter_woken_at_its_seqno);
	ferry_host_destroy(host);
	return test_finish();
}
