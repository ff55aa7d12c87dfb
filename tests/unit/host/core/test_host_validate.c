/* The validated and passthrough context policies in libferry-host, without sockets: rejections
 * (privileged packet, protected register, IB outside the context) name packet, offset and rule
 * and change nothing; relocations land in the shadow copies, never in the guest's BO; a held
 * submit runs what was validated when it arrived; passthrough needs the server's permission;
 * the shadow pool stops growing once warm; with a validation budget, a long submit is validated
 * over several calls while other clients are served. */
#include "host_harness.h"
#include "pm4_builder.h"

#define BO_READ  1u
#define BO_WRITE 2u
#define CMD_BUF  1u
#define BO_SIZE  65536u

static struct ferry_host *host;

struct fixture {
	struct harness_client hc;
	struct ferry_fence_page *page;
	uint32_t *cmd, *data; /* bo 1 (commands), bo 2 (data) */
	uint64_t cmd_iova, data_iova;
};

static void fixture_open_on(struct fixture *f, struct ferry_host *h, uint32_t policy)
{
	memset(f, 0, sizeof(*f));
	harness_connect(&f->hc, h, "t-validate");
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM, .policy = policy };
	struct rx_msg *r = harness_reply(&f->hc, harness_request(&f->hc, &m));
	REQUIRE(r && r->m.kind == FERRY_MSG_CONTEXT_CREATED && r->nfds == 2);
	f->page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, r->fds[0], 0);
	REQUIRE(f->page != MAP_FAILED);
	req_queue_create(&f->hc, 1, 0, 0);
	req_queue_create(&f->hc, 1, 1, 0);
	r = harness_reply(&f->hc, req_bo_create(&f->hc, 1, 1, BO_SIZE, MSM_BO_WC_FLAG));
	f->cmd = harness_bo_map(r);
	f->cmd_iova = r->m.u.bo_created.iova;
	r = harness_reply(&f->hc, req_bo_create(&f->hc, 1, 2, BO_SIZE, MSM_BO_WC_FLAG));
	f->data = harness_bo_map(r);
	f->data_iova = r->m.u.bo_created.iova;
	REQUIRE(harness_count(&f->hc, FERRY_MSG_ERROR) == 0);
	harness_clear(&f->hc);
}

static void fixture_open(struct fixture *f)
{
	fixture_open_on(f, host, FERRY_POLICY_VALIDATED);
}

static void fixture_close(struct fixture *f)
{
	munmap(f->cmd, BO_SIZE);
	munmap(f->data, BO_SIZE);
	munmap(f->page, FERRY_FENCE_PAGE_SIZE);
	harness_disconnect(&f->hc);
}

/* A builder writing bo 1 from dword `at`. */
static struct pm4_builder at_dword(struct fixture *f, uint32_t at)
{
	struct pm4_builder b;
	pm4_builder_init(&b, f->cmd + at, BO_SIZE / 4 - at);
	return b;
}

struct submit {
	uint32_t queue, seqno, flags, nr_cmds, nr_relocs, nr_in;
	struct ferry_msm_submit_cmd cmds[2];
	struct ferry_msm_submit_reloc relocs[4];
	struct ferry_fence_ref in[2];
};

/* One cmd: bo 1 from dword `at`, `dwords` long; bos 1 (READ) and 2 (READ|WRITE). */
static struct submit one_cmd(uint32_t queue, uint32_t seqno, uint32_t at, uint32_t dwords)
{
	return (struct submit){
		.queue = queue, .seqno = seqno, .nr_cmds = 1,
		.cmds = { { .type = CMD_BUF, .bo_index = 0, .offset = at * 4, .size = dwords * 4 } },
	};
}

static uint32_t send_submit(struct fixture *f, const struct submit *a)
{
	struct ferry_msm_submit_bo bos[2] = { { .bo_id = 1, .flags = BO_READ }, { .bo_id = 2, .flags = BO_READ | BO_WRITE } };
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = (struct ferry_msm_submit){
		.ctx_id = 1, .queue_id = a->queue, .seqno = a->seqno, .flags = a->flags,
		.nr_bos = 2, .nr_cmds = a->nr_cmds, .nr_relocs = a->nr_relocs, .nr_in_fences = a->nr_in,
		.bos = bos, .cmds = a->cmds, .relocs = a->relocs, .in_fences = a->in,
	};
	return harness_request(&f->hc, &m);
}

static uint32_t signaled(struct fixture *f, uint32_t queue)
{
	return atomic_load(&f->page->slots[queue].signaled);
}

/* The submit is refused with err, and the message names what the test expects. */
static void expect_rejected(struct fixture *f, const struct submit *a, int err, const char *const *words)
{
	struct rx_msg *r = harness_reply(&f->hc, send_submit(f, a));
	REQUIRE(r);
	CHECK_EQ(r->m.kind, FERRY_MSG_ERROR);
	if (r->m.kind != FERRY_MSG_ERROR)
		return;
	CHECK_EQ(r->m.u.error.error, err);
	CHECK_EQ(r->m.u.error.request_kind, FERRY_MSG_MSM_SUBMIT);
	for (const char *const *w = words; *w; w++) {
		if (!strstr(r->m.u.error.message, *w)) {
			fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", r->m.u.error.message, *w);
			CHECK(false);
		}
	}
}

/* Privileged packet, protected register, IB outside the context: each refused with a message
 * naming packet, BO + offset and rule; afterwards nothing has changed and the same seqno, with
 * a valid stream, runs. */
static void test_rejections_change_nothing(void)
{
	struct fixture f;
	fixture_open(&f);
	struct ferry_host_stats st0, st1;
	ferry_host_get_stats(host, &st0);

	struct pm4_builder b = at_dword(&f, 0);
	pm4_mem_write(&b, f.data_iova, (const uint32_t[]){ 0xbad1 }, 1);
	PM4_PKT7(&b, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0);
	struct submit a = one_cmd(0, 1, 0, b.len);
	expect_rejected(&f, &a, -EPERM, (const char *const[]){ "CP_SMMU_TABLE_UPDATE", "bo 1 +0x10", "privileged", NULL });

	b = at_dword(&f, 0);
	pm4_nop(&b, 1);
	PM4_PKT4(&b, 0x0000, 1); /* RBBM: CP_PROTECT'ed on every a6xx */
	a = one_cmd(0, 1, 0, b.len);
	expect_rejected(&f, &a, -EPERM, (const char *const[]){ "bo 1 +0x8", "protected", "0x0", NULL });

	/* An IB into memory that is no BO of this context. */
	b = at_dword(&f, 0);
	pm4_ib(&b, f.data_iova + 16 * BO_SIZE, 4);
	a = one_cmd(0, 1, 0, b.len);
	expect_rejected(&f, &a, -EINVAL, (const char *const[]){ "CP_INDIRECT_BUFFER", "bo 1 +0x0", NULL });
	/* ... or past the end of one. */
	b = at_dword(&f, 0);
	pm4_ib(&b, f.data_iova + BO_SIZE - 8, 4);
	a = one_cmd(0, 1, 0, b.len);
	expect_rejected(&f, &a, -EINVAL, (const char *const[]){ "CP_INDIRECT_BUFFER", NULL });

	ferry_host_get_stats(host, &st1);
	CHECK_EQ(st1.submits, st0.submits);
	CHECK_EQ(st1.validation_rejects, st0.validation_rejects + 4);
	CHECK_EQ(signaled(&f, 0), 0);
	CHECK_EQ(atomic_load(&f.page->slots[0].error_seqno), 0);
	CHECK_EQ(f.data[0], 0);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_FENCE_SIGNALED), 0);
	struct rx_msg *r = harness_reply(&f.hc, req_bo_info(&f.hc, 1, 1));
	CHECK(r && r->m.kind == FERRY_MSG_BO_INFO_REPLY);

	/* The seqno was not taken: a valid submit with it runs. */
	b = at_dword(&f, 0);
	pm4_mem_write(&b, f.data_iova, (const uint32_t[]){ 0x600d }, 1);
	a = one_cmd(0, 1, 0, b.len);
	int errors = harness_count(&f.hc, FERRY_MSG_ERROR);
	send_submit(&f, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), errors);
	HARNESS_RUN_UNTIL(host, signaled(&f, 0) == 1, 10000);
	CHECK_EQ(signaled(&f, 0), 1);
	CHECK_EQ(f.data[0], 0x600d);
	CHECK_EQ(atomic_load(&f.page->slots[0].error), 0);
	fixture_close(&f);
}

/* Relocations are applied in the shadow copy: the GPU writes where the reloc says, the guest's
 * command BO keeps its zeros. Also through an IB2, which is copied and retargeted. */
static void test_relocs_in_shadows(void)
{
	struct fixture f;
	fixture_open(&f);
	struct pm4_builder b = at_dword(&f, 256); /* IB2 body: a write whose address is relocated */
	pm4_mem_write(&b, 0, (const uint32_t[]){ 0xfeed0002u }, 1);
	uint32_t ib2_dwords = b.len;
	b = at_dword(&f, 0);
	pm4_mem_write(&b, 0, (const uint32_t[]){ 0xfeed0001u }, 1);
	pm4_ib(&b, f.cmd_iova + 256 * 4, ib2_dwords);
	struct submit a = one_cmd(0, 1, 0, b.len);
	/* The IB2 is named as an IB_TARGET_BUF cmd so that relocs can patch it (as with msm). */
	a.nr_cmds = 2;
	a.cmds[1] = (struct ferry_msm_submit_cmd){ .type = 2 /* IB_TARGET_BUF */, .bo_index = 0, .offset = 256 * 4,
						   .size = ib2_dwords * 4 };
	a.nr_relocs = 4;
	/* dwords 1,2 = data + 0x40; dwords 257,258 (the IB2's) = data + 0x80. */
	a.relocs[0] = (struct ferry_msm_submit_reloc){ .submit_offset = 4, .bo_index = 1, .bo_offset = 0x40 };
	a.relocs[1] = (struct ferry_msm_submit_reloc){ .submit_offset = 8, .bo_index = 1, .bo_offset = 0x40, .shift = -32 };
	a.relocs[2] = (struct ferry_msm_submit_reloc){ .cmd_index = 1, .submit_offset = 257 * 4, .bo_index = 1, .bo_offset = 0x80 };
	a.relocs[3] = (struct ferry_msm_submit_reloc){ .cmd_index = 1, .submit_offset = 258 * 4, .bo_index = 1, .bo_offset = 0x80, .shift = -32 };
	send_submit(&f, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(host, signaled(&f, 0) == 1, 10000);
	CHECK_EQ(f.data[0x40 / 4], 0xfeed0001u);
	CHECK_EQ(f.data[0x80 / 4], 0xfeed0002u);
	CHECK_EQ(f.cmd[1], 0);
	CHECK_EQ(f.cmd[2], 0);
	CHECK_EQ(f.cmd[257], 0);
	CHECK_EQ(f.cmd[258], 0);
	/* Without the relocs the zero address is outside the context: refused. */
	a.seqno = 2;
	a.nr_relocs = 2;
	expect_rejected(&f, &a, -EINVAL, (const char *const[]){ "CP_MEM_WRITE", "bo 1 +0x400 (IB2)", NULL });
	fixture_close(&f);
}

/* A submit held for an in-fence was validated and copied when it arrived: rewriting the command
 * BO before it is released changes nothing. */
static void test_held_submit_runs_what_was_validated(void)
{
	struct fixture f;
	fixture_open(&f);
	struct pm4_builder b = at_dword(&f, 0); /* queue 0: wait for data[0] >= 1 */
	pm4_wait_mem(&b, WRITE_GE, f.data_iova, 1, 0xffffffffu);
	struct submit gate = one_cmd(0, 1, 0, b.len);
	send_submit(&f, &gate);

	b = at_dword(&f, 64); /* queue 1, behind queue 0's seqno 1: writes A */
	pm4_mem_write(&b, f.data_iova + 4, (const uint32_t[]){ 0xaaaa }, 1);
	struct submit a = one_cmd(1, 1, 64, b.len);
	a.nr_in = 1;
	a.in[0] = (struct ferry_fence_ref){ .queue_id = 0, .seqno = 1 };
	send_submit(&f, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);

	b = at_dword(&f, 64); /* the guest now rewrites it: B */
	pm4_mem_write(&b, f.data_iova + 4, (const uint32_t[]){ 0xbbbb }, 1);
	__atomic_store_n(&f.data[0], 1, __ATOMIC_SEQ_CST);
	HARNESS_RUN_UNTIL(host, signaled(&f, 1) == 1, 10000);
	CHECK_EQ(signaled(&f, 1), 1);
	CHECK_EQ(f.data[1], 0xaaaa);
	fixture_close(&f);
}

/* Passthrough needs --allow-passthrough (cfg.allow_passthrough); with it, the guest's stream
 * goes to the kernel as is: no shadow BOs, relocs applied by the kernel. */
static void test_passthrough_policy(void)
{
	struct harness_client hc;
	harness_connect(&hc, host, "t-no-passthrough");
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM,
							     .policy = FERRY_POLICY_PASSTHROUGH };
	struct rx_msg *r = harness_reply(&hc, harness_request(&hc, &m));
	REQUIRE(r);
	CHECK_EQ(r->m.kind, FERRY_MSG_ERROR);
	if (r->m.kind == FERRY_MSG_ERROR) {
		CHECK_EQ(r->m.u.error.error, -EPERM);
		CHECK(strstr(r->m.u.error.message, "--allow-passthrough") != NULL);
	}
	harness_disconnect(&hc);

	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR, .allow_passthrough = true };
	struct ferry_host *trusting = NULL;
	REQUIRE(ferry_host_create(&cfg, &trusting) == 0);
	struct fixture f;
	fixture_open_on(&f, trusting, FERRY_POLICY_PASSTHROUGH);
	struct pm4_builder b = at_dword(&f, 0);
	pm4_mem_write(&b, 0, (const uint32_t[]){ 0x7777 }, 1);
	struct submit a = one_cmd(0, 1, 0, b.len);
	a.nr_relocs = 2;
	a.relocs[0] = (struct ferry_msm_submit_reloc){ .submit_offset = 4, .bo_index = 1, .bo_offset = 0x20 };
	a.relocs[1] = (struct ferry_msm_submit_reloc){ .submit_offset = 8, .bo_index = 1, .bo_offset = 0x20, .shift = -32 };
	send_submit(&f, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(trusting, signaled(&f, 0) == 1, 10000);
	CHECK_EQ(f.data[0x20 / 4], 0x7777);
	struct ferry_host_stats st;
	ferry_host_get_stats(trusting, &st);
	CHECK_EQ(st.shadow_bos_created, 0);
	CHECK_EQ(st.validation_rejects, 0);
	/* Not parsed: a privileged packet is the kernel's and the GPU's business, not ferry's. */
	b = at_dword(&f, 64);
	PM4_PKT7(&b, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0);
	a = one_cmd(0, 2, 64, b.len);
	send_submit(&f, &a);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	fixture_close(&f);
	ferry_host_destroy(trusting);
}

/* 1000 submits of a stream with an IB2 and draw-state groups, in batches that each retire:
 * after the first batches the pool recycles and creates no BO. */
static void test_shadow_pool_steady_state(void)
{
	struct fixture f;
	fixture_open(&f);
	struct pm4_builder b = at_dword(&f, 8192); /* a draw-state group: register writes */
	PM4_PKT4(&b, 0x8800, 1, 2, 3);
	uint32_t group_dwords = b.len;
	b = at_dword(&f, 9216); /* IB2 */
	pm4_mem_write(&b, f.data_iova + 8, (const uint32_t[]){ 2 }, 1);
	uint32_t ib2_dwords = b.len;
	b = at_dword(&f, 0);
	pm4_set_draw_state(&b, 1, CP_SET_DRAW_STATE_0_SYSMEM | CP_SET_DRAW_STATE_0_GMEM, 0,
			   f.cmd_iova + 8192 * 4, group_dwords);
	pm4_ib(&b, f.cmd_iova + 9216 * 4, ib2_dwords);
	pm4_nop(&b, 3000); /* a bigger main stream: another size class */
	pm4_mem_write(&b, f.data_iova + 4, (const uint32_t[]){ 1 }, 1);
	uint32_t main_dwords = b.len;

	const uint32_t batch = 10, total = 1000, warm = 3 * batch;
	struct ferry_host_stats st;
	uint64_t created_warm = 0, bytes_warm = 0;
	for (uint32_t seqno = 1; seqno <= total; seqno++) {
		struct submit a = one_cmd(seqno % 2, (seqno + 1) / 2, 0, main_dwords);
		send_submit(&f, &a);
		if (seqno % batch == 0) {
			uint32_t want = seqno / 2;
			HARNESS_RUN_UNTIL(host, signaled(&f, 0) == want && signaled(&f, 1) == want, 10000);
			REQUIRE(signaled(&f, 0) == want && signaled(&f, 1) == want);
			harness_clear(&f.hc);
		}
		if (seqno == warm) {
			ferry_host_get_stats(host, &st);
			created_warm = st.shadow_bos_created;
			bytes_warm = st.shadow_bytes;
		}
	}
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	ferry_host_get_stats(host, &st);
	CHECK(created_warm > 0);
	CHECK_EQ(st.shadow_bos_created, created_warm);
	CHECK_EQ(st.shadow_bytes, bytes_warm);
	CHECK_EQ(f.data[1], 1);
	CHECK_EQ(f.data[2], 2);
	fixture_close(&f);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.shadow_bytes, 0); /* the context's pool went with it */
}

/* 256 small submits in flight at once (held behind a gate): their shadows share chunks (a few
 * BOs, not one each), never overlap (each writes its own value), and the chunks are reused by
 * the next round once these retired; then 4500 at once, more than a BO each would allow. */
static void test_shadow_pool_small_submits_share(void)
{
	struct fixture f;
	fixture_open(&f);
	const uint32_t n = 256, first_data = 1024;
	struct ferry_host_stats st0, st;
	ferry_host_get_stats(host, &st0);
	for (uint32_t round = 0; round < 2; round++) {
		__atomic_store_n(&f.data[0], 0, __ATOMIC_SEQ_CST);
		struct pm4_builder b = at_dword(&f, 0); /* queue 0: wait for data[0] >= 1 */
		pm4_wait_mem(&b, WRITE_GE, f.data_iova, 1, 0xffffffffu);
		struct submit gate = one_cmd(0, round + 1, 0, b.len);
		send_submit(&f, &gate);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t at = 1024 + i * 8;
			b = at_dword(&f, at);
			pm4_mem_write(&b, f.data_iova + 4ull * (first_data + i), (const uint32_t[]){ round << 16 | i }, 1);
			struct submit a = one_cmd(1, round * n + i + 1, at, b.len);
			if (i == 0) {
				a.nr_in = 1;
				a.in[0] = (struct ferry_fence_ref){ .queue_id = 0, .seqno = round + 1 };
			}
			send_submit(&f, &a);
		}
		CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
		ferry_host_get_stats(host, &st);
		/* 256 copies of 16 bytes and the gate's: one or two 4 KiB chunks (was one each) */
		CHECK(st.shadow_bos_created - st0.shadow_bos_created <= 4);
		CHECK(st.shadow_bytes - st0.shadow_bytes <= 16u << 10);
		__atomic_store_n(&f.data[0], 1, __ATOMIC_SEQ_CST);
		HARNESS_RUN_UNTIL(host, signaled(&f, 1) == (round + 1) * n, 10000);
		REQUIRE(signaled(&f, 1) == (round + 1) * n);
		for (uint32_t i = 0; i < n; i++)
			if (f.data[first_data + i] != (round << 16 | i)) {
				fprintf(stderr, "  round %u: data[%u] = 0x%x\n", round, first_data + i, f.data[first_data + i]);
				CHECK(false);
				break;
			}
		harness_clear(&f.hc);
	}
	/* More submits in flight than the client may hold fds (ferryd --max-client-fds, 4096): were
	 * each one a shadow BO, the later ones would be refused -EDQUOT (a flood then breaks its
	 * ring). Gated on their own queue, so the kernel holds them, not the host. */
	const uint32_t many = 4500, seq0 = 2 * n;
	unsigned errors = 0;
	__atomic_store_n(&f.data[0], 0, __ATOMIC_SEQ_CST);
	struct pm4_builder b = at_dword(&f, 0);
	pm4_wait_mem(&b, WRITE_GE, f.data_iova, 1, 0xffffffffu);
	struct submit gate = one_cmd(1, seq0 + 1, 0, b.len);
	send_submit(&f, &gate);
	b = at_dword(&f, 1024);
	pm4_mem_write(&b, f.data_iova + 4ull * first_data, (const uint32_t[]){ 0x600d }, 1);
	for (uint32_t i = 0; i < many; i++) {
		struct submit a = one_cmd(1, seq0 + i + 2, 1024, b.len);
		send_submit(&f, &a);
		if (f.hc.n > 256) { /* answers would be errors: counted, the first one shown */
			for (int k = 0; k < f.hc.n; k++)
				if (f.hc.msgs[k].m.kind == FERRY_MSG_ERROR && !errors++)
					fprintf(stderr, "  submit %u: %s\n", i, f.hc.msgs[k].m.u.error.message);
			harness_clear(&f.hc);
		}
	}
	CHECK_EQ(errors + harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	ferry_host_get_stats(host, &st);
	CHECK(st.shadow_bos_created - st0.shadow_bos_created <= 24);
	__atomic_store_n(&f.data[0], 1, __ATOMIC_SEQ_CST);
	HARNESS_RUN_UNTIL(host, signaled(&f, 1) == seq0 + many + 1, 20000);
	CHECK_EQ(signaled(&f, 1), seq0 + many + 1);
	CHECK_EQ(f.data[first_data], 0x600d);
	fixture_close(&f);
}

/* ---- validation in budgeted steps (ferry_host_config.validate_slice_dwords) ---- */

/* harness_request without its CHECK: the raw return of ferry_host_client_handle. */
static int raw_submit(struct fixture *f, const struct submit *a)
{
	struct ferry_msm_submit_bo bos[2] = { { .bo_id = 1, .flags = BO_READ }, { .bo_id = 2, .flags = BO_READ | BO_WRITE } };
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT, .seq = f->hc.next_seq++ };
	m.u.msm_submit = (struct ferry_msm_submit){
		.ctx_id = 1, .queue_id = a->queue, .seqno = a->seqno, .flags = a->flags,
		.nr_bos = 2, .nr_cmds = a->nr_cmds, .nr_relocs = a->nr_relocs,
		.bos = bos, .cmds = a->cmds, .relocs = a->relocs,
	};
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(&m, &b) == 0);
	size_t plen = b.len - 4;
	void *payload = aligned_alloc(8, (plen + 8) & ~(size_t)7);
	REQUIRE(payload);
	memcpy(payload, b.data + 4, plen);
	int ret = ferry_host_client_handle(f->hc.client, payload, plen, NULL, 0);
	memset(payload, 0xa5, plen); /* the host must have kept its own copy */
	free(payload);
	ferry_buf_free(&b);
	return ret;
}

/* Resumes until done; returns how many calls it took. */
static int resume_all(struct fixture *f)
{
	int calls = 0, ret;
	do {
		ret = ferry_host_client_resume(f->hc.client);
		calls++;
	} while (ret == FERRY_HOST_IN_PROGRESS && calls < 100000);
	CHECK_EQ(ret, 0);
	CHECK(!ferry_host_client_busy(f->hc.client));
	return calls;
}

/* dwords 0..: a write through a relocated address, a conditional skip over `skip` NOPs, `nops`
 * NOPs in all, an IB2 (at dword 8192) holding another relocated write, and `tail` (may be 0). */
static struct submit long_stream(struct fixture *f, uint32_t seqno, uint32_t nops, uint32_t skip,
				 uint32_t tail_op)
{
	struct pm4_builder b = at_dword(f, 8192);
	pm4_mem_write(&b, 0, (const uint32_t[]){ 0xfeed0002u }, 1);
	uint32_t ib2_dwords = b.len;
	b = at_dword(f, 0);
	pm4_mem_write(&b, 0, (const uint32_t[]){ 0xfeed0001u }, 1);
	PM4_PKT7(&b, CP_COND_EXEC, (uint32_t)f->data_iova, (uint32_t)(f->data_iova >> 32),
		 (uint32_t)f->data_iova, (uint32_t)(f->data_iova >> 32), 0, skip);
	for (uint32_t i = 0; i < nops; i++)
		pm4_nop(&b, 0);
	pm4_ib(&b, f->cmd_iova + 8192 * 4, ib2_dwords);
	if (tail_op)
		PM4_PKT7_0(&b, tail_op);
	REQUIRE(pm4_builder_ok(&b));
	struct submit a = one_cmd(0, seqno, 0, b.len);
	a.nr_cmds = 2;
	a.cmds[1] = (struct ferry_msm_submit_cmd){ .type = 2 /* IB_TARGET_BUF */, .bo_index = 0, .offset = 8192 * 4,
						   .size = ib2_dwords * 4 };
	a.nr_relocs = 4;
	a.relocs[0] = (struct ferry_msm_submit_reloc){ .submit_offset = 4, .bo_index = 1, .bo_offset = 0x40 };
	a.relocs[1] = (struct ferry_msm_submit_reloc){ .submit_offset = 8, .bo_index = 1, .bo_offset = 0x40, .shift = -32 };
	a.relocs[2] = (struct ferry_msm_submit_reloc){ .cmd_index = 1, .submit_offset = 8193 * 4, .bo_index = 1, .bo_offset = 0x80 };
	a.relocs[3] = (struct ferry_msm_submit_reloc){ .cmd_index = 1, .submit_offset = 8194 * 4, .bo_index = 1, .bo_offset = 0x80, .shift = -32 };
	return a;
}

/* A long submit is validated over many calls; meanwhile another client is served (HELLO and a
 * submit of its own, validated with a validator of its own); the result is what whole
 * validation gives; rejections found late still change nothing; a client leaving mid-way
 * leaks nothing. */
static void test_validation_in_steps(void)
{
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR, .validate_slice_dwords = 256 };
	struct ferry_host *h = NULL;
	REQUIRE(ferry_host_create(&cfg, &h) == 0);
	struct fixture f, g;
	fixture_open_on(&f, h, FERRY_POLICY_VALIDATED);
	fixture_open_on(&g, h, FERRY_POLICY_VALIDATED);

	struct submit a = long_stream(&f, 1, 4000, 600, 0);
	CHECK_EQ(raw_submit(&f, &a), FERRY_HOST_IN_PROGRESS);
	CHECK(ferry_host_client_busy(f.hc.client));
	CHECK_EQ(f.hc.n, 0); /* no reply yet: not done, not refused */

	/* The other client is served in between. */
	struct ferry_msg hello = { .kind = FERRY_MSG_HELLO };
	hello.u.hello.version = FERRY_PROTOCOL_VERSION;
	struct rx_msg *r = harness_reply(&g.hc, harness_request(&g.hc, &hello));
	CHECK(r && r->m.kind == FERRY_MSG_HELLO_REPLY);
	struct pm4_builder b = at_dword(&g, 0);
	pm4_mem_write(&b, g.data_iova, (const uint32_t[]){ 0x600d }, 1);
	struct submit small = one_cmd(0, 1, 0, b.len);
	CHECK_EQ(raw_submit(&g, &small), 0);
	HARNESS_RUN_UNTIL(h, signaled(&g, 0) == 1, 10000);
	CHECK_EQ(g.data[0], 0x600d);
	CHECK_EQ(signaled(&f, 0), 0);

	CHECK(resume_all(&f) > 10);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(h, signaled(&f, 0) == 1, 10000);
	CHECK_EQ(f.data[0x40 / 4], 0xfeed0001u);
	CHECK_EQ(f.data[0x80 / 4], 0xfeed0002u);
	struct ferry_host_stats st;
	ferry_host_get_stats(h, &st);
	CHECK(st.validation_pauses > 10);

	/* A privileged packet at the very end: refused after many steps, seqno not taken. */
	a = long_stream(&f, 2, 4000, 600, CP_SMMU_TABLE_UPDATE);
	CHECK_EQ(raw_submit(&f, &a), FERRY_HOST_IN_PROGRESS);
	resume_all(&f);
	r = harness_find(&f.hc, FERRY_MSG_ERROR);
	CHECK(r && r->m.u.error.error == -EPERM && strstr(r->m.u.error.message, "CP_SMMU_TABLE_UPDATE"));
	harness_clear(&f.hc);
	/* A conditional skip that ends inside a packet, hundreds of dwords (and steps) later:
	 * the open skip survives the stops. */
	a = long_stream(&f, 2, 4000, 4002, 0); /* into the CP_INDIRECT_BUFFER after the NOPs */
	CHECK_EQ(raw_submit(&f, &a), FERRY_HOST_IN_PROGRESS);
	resume_all(&f);
	r = harness_find(&f.hc, FERRY_MSG_ERROR);
	CHECK(r && r->m.u.error.error == -EINVAL && strstr(r->m.u.error.message, "CP_COND_EXEC"));
	harness_clear(&f.hc);
	/* The same seqno, valid, runs. */
	a = long_stream(&f, 2, 4000, 600, 0);
	f.data[0x40 / 4] = 0;
	CHECK_EQ(raw_submit(&f, &a), FERRY_HOST_IN_PROGRESS);
	resume_all(&f);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);
	HARNESS_RUN_UNTIL(h, signaled(&f, 0) == 2, 10000);
	CHECK_EQ(f.data[0x40 / 4], 0xfeed0001u);

	/* Leaving with a submit in progress. */
	a = long_stream(&f, 3, 4000, 600, 0);
	CHECK_EQ(raw_submit(&f, &a), FERRY_HOST_IN_PROGRESS);
	CHECK_EQ(ferry_host_client_resume(f.hc.client), FERRY_HOST_IN_PROGRESS);
	fixture_close(&f);
	fixture_close(&g);
	ferry_host_get_stats(h, &st);
	CHECK_EQ(st.shadow_bytes, 0);
	ferry_host_destroy(h);
}

struct log_tally {
	int warns;
	char last[512];
};

static void tally_log(void *cookie, int level, const char *msg)
{
	struct log_tally *t = cookie;
	if (level == FERRY_LOG_WARN && strstr(msg, "submit refused")) {
		t->warns++;
		snprintf(t->last, sizeof(t->last), "%s", msg);
	}
}

/* A refusal is a warning naming context, queue, seqno, errno and the validator's reason, at most
 * one a second per context: three refusals in a row log once (twice if a second boundary falls
 * between them, never three times), and the context stays usable. */
static void test_refusal_is_logged(void)
{
	struct log_tally tally = { 0 };
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_INFO, .log = tally_log,
					 .log_cookie = &tally };
	struct ferry_host *h = NULL;
	REQUIRE(ferry_host_create(&cfg, &h) == 0);
	struct fixture f;
	fixture_open_on(&f, h, FERRY_POLICY_VALIDATED);
	struct pm4_builder b = at_dword(&f, 0);
	PM4_PKT7(&b, CP_SMMU_TABLE_UPDATE, 0, 0, 0, 0);
	struct submit a = one_cmd(0, 1, 0, b.len);
	for (int i = 0; i < 3; i++) {
		struct rx_msg *r = harness_reply(&f.hc, send_submit(&f, &a));
		CHECK(r && r->m.kind == FERRY_MSG_ERROR && r->m.u.error.error == -EPERM);
	}
	CHECK(tally.warns >= 1 && tally.warns <= 2);
	CHECK(strstr(tally.last, "context 1 queue 0 seqno 1: submit refused, Operation not permitted (EPERM)") != NULL);
	CHECK(strstr(tally.last, "CP_SMMU_TABLE_UPDATE") != NULL);
	fixture_close(&f);
	ferry_host_destroy(h);
}

int main(void)
{
	host = harness_host();
	RUN_TEST(test_refusal_is_logged);
	RUN_TEST(test_rejections_change_nothing);
	RUN_TEST(test_relocs_in_shadows);
	RUN_TEST(test_held_submit_runs_what_was_validated);
	RUN_TEST(test_passthrough_policy);
	RUN_TEST(test_shadow_pool_steady_state);
	RUN_TEST(test_shadow_pool_small_submits_share);
	RUN_TEST(test_validation_in_steps);
	ferry_host_destroy(host);
	return test_finish();
}
