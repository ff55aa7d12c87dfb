/* Hang/fault reporting, the sync-state dump and the fence-signal watchdog of libferry-host,
 * without sockets: the full report (header with the ESTIMATED CRASH LOCATION, registers) reaches
 * the guest past FERRY_MAX_STRING, is kept and written to the crash dir; later submits say why
 * the context is lost; the dump shows a GPU wait with its address, live and wanted values, a
 * host-held in-fence and the pending signals; the watchdog logs the dump once per overdue fence
 * (its trigger is also checked on a fake clock). */
#include <sys/stat.h>

#include "core/host_internal.h" /* struct watchdog_track, watchdog_track_step */
#include "host_harness.h"

#define MSM_BO_READ  1u
#define MSM_BO_WRITE 2u
#define CMD_BUF      1u

/* ---- a host whose log the test reads ---- */

static char logbuf[1 << 20];
static size_t loglen;
static struct ferry_host *log_host; /* its dump writer also logs: flushed before reading */

static void log_sink(void *cookie, int level, const char *msg)
{
	int n = snprintf(logbuf + loglen, sizeof(logbuf) - loglen, "%d %s\n", level, msg);
	if (n > 0 && (size_t)n < sizeof(logbuf) - loglen)
		loglen += (size_t)n;
}

static int log_count(const char *needle)
{
	if (log_host)
		ferry_host_flush_log(log_host);
	int n = 0;
	for (const char *p = logbuf; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static struct ferry_host *make_host(unsigned hangcheck_ms, int fence_timeout_ms, const char *crash_dir)
{
	struct ferry_host_config cfg = {
		.gpu = "a630", .log = log_sink, .log_level = FERRY_LOG_WARN, .allow_passthrough = true,
		.hangcheck_ms = hangcheck_ms, .fence_timeout_ms = fence_timeout_ms, .crash_dir = crash_dir,
		.max_fault_reports = 2,
	};
	struct ferry_host *h = NULL;
	REQUIRE(ferry_host_create(&cfg, &h) == 0);
	log_host = h;
	loglen = 0;
	logbuf[0] = '\0';
	return h;
}

/* ---- one client, context 1, queues 0 and 1, a cmd BO and a data BO ---- */

struct fixture {
	struct ferry_host *host;
	struct harness_client hc;
	uint32_t *cmd, *data;
	uint64_t cmd_iova, data_iova;
};

static void fixture_open(struct fixture *f, struct ferry_host *host, uint32_t policy)
{
	memset(f, 0, sizeof(*f));
	f->host = host;
	harness_connect(&f->hc, host, "t-hang");
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM, .policy = policy };
	struct rx_msg *r = harness_reply(&f->hc, harness_request(&f->hc, &m));
	REQUIRE(r && r->m.kind == FERRY_MSG_CONTEXT_CREATED);
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

static void fixture_close(struct fixture *f)
{
	munmap(f->cmd, 4096);
	munmap(f->data, 4096);
	harness_disconnect(&f->hc);
	log_host = NULL;
	ferry_host_destroy(f->host);
}

/* CP_NOPs, then a CP_WAIT_REG_MEM until data[word] == ref (under mask); returns the dword
 * count and the wait's dword offset in *wait_at. */
static uint32_t emit_wait(uint32_t *cs, uint32_t first, uint64_t iova, uint32_t ref, uint32_t mask,
			  uint32_t *wait_at)
{
	uint32_t at = first;
	cs[at++] = pm4_type7_hdr(CP_NOP, 2);
	cs[at++] = 0;
	cs[at++] = 0;
	*wait_at = at - first;
	cs[at++] = pm4_type7_hdr(CP_WAIT_REG_MEM, 6);
	cs[at++] = CP_WAIT_REG_MEM_0_FUNCTION(WRITE_EQ) | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY);
	cs[at++] = (uint32_t)iova;
	cs[at++] = (uint32_t)(iova >> 32);
	cs[at++] = ref;
	cs[at++] = mask;
	cs[at++] = 0;
	return at - first;
}

static uint32_t submit(struct fixture *f, uint32_t queue, uint32_t seqno, uint32_t offset, uint32_t dwords,
		       const struct ferry_fence_ref *in, uint32_t nr_in)
{
	struct ferry_msm_submit_bo bos[2] = {
		{ .bo_id = 1, .flags = MSM_BO_READ },
		{ .bo_id = 2, .flags = MSM_BO_READ | MSM_BO_WRITE },
	};
	struct ferry_msm_submit_cmd cmd = { .type = CMD_BUF, .bo_index = 0, .offset = offset, .size = dwords * 4 };
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = (struct ferry_msm_submit){
		.ctx_id = 1, .queue_id = queue, .seqno = seqno, .nr_bos = 2, .nr_cmds = 1, .bos = bos, .cmds = &cmd,
		.nr_in_fences = nr_in, .in_fences = in,
	};
	return harness_request(&f->hc, &m);
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

/* The hang report: what the guest gets, what the host keeps and writes, and what later submits
 * are told. */
static void test_hang_report(void)
{
	char dir[] = "/tmp/ferry-crash-XXXXXX";
	REQUIRE(mkdtemp(dir));
	struct fixture f;
	fixture_open(&f, make_host(100, -1, dir), FERRY_POLICY_PASSTHROUGH);
	/* 100 registers set first, so the register file alone outgrows FERRY_MAX_STRING. */
	const uint32_t nregs = 100, first_reg = 0xa800;
	f.cmd[0] = pm4_type4_hdr(first_reg, nregs);
	for (uint32_t i = 0; i < nregs; i++)
		f.cmd[1 + i] = 0xc0de0000u | i;
	uint32_t wait_at;
	uint32_t n = 1 + nregs + emit_wait(f.cmd, 1 + nregs, f.data_iova + 16, 0x60, 0xffffffffu, &wait_at);
	wait_at += 1 + nregs;
	submit(&f, 0, 1, 0, n, NULL, 0);
	HARNESS_RUN_UNTIL(f.host, find_signal(&f.hc, 0, 1), 30000);

	struct rx_msg *fault = harness_find(&f.hc, FERRY_MSG_FAULT_REPORT);
	struct rx_msg *sig = find_signal(&f.hc, 0, 1);
	REQUIRE(fault && sig);
	const struct ferry_fault_report *fr = &fault->m.u.fault_report;
	CHECK(fr->flags & FERRY_FAULT_HANG);
	CHECK_EQ(fr->ib_iova, f.cmd_iova);
	CHECK_EQ(fr->ib_dword, wait_at);
	CHECK_EQ(fr->ib_level, 1);
	CHECK_EQ(fr->opcode, CP_WAIT_REG_MEM);
	CHECK_EQ(sig->m.u.fence_signaled.status, -ETIMEDOUT);
	/* A hang is counted as one, besides the faults it is part of; its fence signaled (with its
	 * error) after about the hangcheck, which the submit latency histogram shows. */
	struct ferry_host_stats hs;
	ferry_host_get_stats(f.host, &hs);
	CHECK_EQ(hs.faults, 1);
	CHECK_EQ(hs.hangs, 1);
	CHECK_EQ(hs.fences_signaled, 1);
	struct ferry_host_latency lat;
	REQUIRE(ferry_host_get_latency(f.host, FERRY_HOST_LATENCY_SUBMIT, &lat) == 0);
	CHECK_EQ(lat.total, 1);
	CHECK(lat.sum_ns >= 100ull * 1000 * 1000); /* not before the 100 ms hangcheck */
	uint64_t in_buckets = 0;
	for (unsigned i = 0; i < FERRY_HOST_LATENCY_BUCKETS; i++) {
		in_buckets += lat.count[i];
		if (lat.count[i])
			CHECK(lat.le_ns[i] >= lat.sum_ns && (i == 0 || lat.le_ns[i - 1] < lat.sum_ns));
	}
	CHECK_EQ(in_buckets, 1);
	CHECK_EQ(lat.le_ns[0], 50000);
	CHECK_EQ(lat.le_ns[FERRY_HOST_LATENCY_BUCKETS - 2], 10000000000ull);
	CHECK_EQ(lat.le_ns[FERRY_HOST_LATENCY_BUCKETS - 1], UINT64_MAX);
	CHECK(ferry_host_get_latency(f.host, FERRY_HOST_LATENCY_KINDS, &lat) == -EINVAL);

	/* The whole report, registers included, past the ordinary string limit. */
	char want[160];
	snprintf(want, sizeof(want), "ESTIMATED CRASH LOCATION: IB1 0x%016llx dword %u: CP_WAIT_REG_MEM\n",
		 (unsigned long long)f.cmd_iova, wait_at);
	CHECK(strstr(fr->text, want) != NULL);
	CHECK(strstr(fr->text, "ferry-report: 1\n") == fr->text);
	CHECK(strstr(fr->text, "\nevent: GPU hang\n") != NULL);
	CHECK(strstr(fr->text, "\nhang:\n") != NULL);
	CHECK(strstr(fr->text, "\nlast-packets:\n") != NULL);
	CHECK(strstr(fr->text, "\nregisters:\n") != NULL);
	CHECK(strstr(fr->text, "name: CP_IB1_BASE") != NULL);
	CHECK(strstr(fr->text, "value: 0xc0de0063") != NULL); /* the last of them */
	CHECK(strlen(fr->text) > FERRY_MAX_STRING);

	/* Kept, numbered, written 0600; one warn line in the log. */
	CHECK_EQ(ferry_host_nr_fault_reports(f.host), 1);
	uint64_t number = 0;
	const char *kept = ferry_host_fault_report(f.host, 0, &number);
	REQUIRE(kept);
	CHECK_EQ(number, 1);
	CHECK(!strcmp(kept, fr->text));
	CHECK(ferry_host_fault_report(f.host, 1, NULL) == NULL);
	char path[256];
	snprintf(path, sizeof(path), "%s/ferry-report-%d-1.txt", dir, (int)getpid());
	struct stat st;
	REQUIRE(stat(path, &st) == 0);
	CHECK_EQ(st.st_mode & 0777, 0600);
	CHECK_EQ(st.st_size, (long long)strlen(kept));
	CHECK_EQ(log_count("GPU hang; ESTIMATED CRASH LOCATION: IB1"), 1);
	CHECK(strstr(logbuf, path) != NULL);

	/* Later submits say why. */
	harness_clear(&f.hc);
	uint32_t seq = submit(&f, 0, 2, 0, n, NULL, 0);
	struct rx_msg *err = harness_reply(&f.hc, seq);
	REQUIRE(err && err->m.kind == FERRY_MSG_ERROR);
	CHECK_EQ(err->m.u.error.error, -EIO);
	snprintf(want, sizeof(want), "context 1 lost after a GPU hang at IB1 0x%016llx dword %u: CP_WAIT_REG_MEM",
		 (unsigned long long)f.cmd_iova, wait_at);
	CHECK(strstr(err->m.u.error.message, want) != NULL);
	if (!strstr(err->m.u.error.message, want))
		fprintf(stderr, "error message: %s\n", err->m.u.error.message);

	/* The report's captures (.rd, .ferrycap) sit beside it: the directory goes whole. */
	const char *ext[] = { "txt", "rd", "ferrycap" };
	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/ferry-report-%d-1.%s", dir, (int)getpid(), ext[i]);
		unlink(path);
	}
	CHECK_EQ(rmdir(dir), 0);
	fixture_close(&f);
}

/* A page fault: the header names the faulting iova and direction, and so does the error of the
 * next submit. */
static void test_pagefault_report(void)
{
	struct fixture f;
	fixture_open(&f, make_host(0, -1, NULL), FERRY_POLICY_PASSTHROUGH);
	const uint64_t unmapped = 0x1f0000000ull;
	uint32_t *cs = f.cmd;
	cs[0] = pm4_type7_hdr(CP_NOP, 0);
	cs[1] = pm4_type7_hdr(CP_MEM_WRITE, 3);
	cs[2] = (uint32_t)unmapped;
	cs[3] = (uint32_t)(unmapped >> 32);
	cs[4] = 0xbad;
	submit(&f, 0, 1, 0, 5, NULL, 0);
	HARNESS_RUN_UNTIL(f.host, find_signal(&f.hc, 0, 1), 30000);
	struct rx_msg *fault = harness_find(&f.hc, FERRY_MSG_FAULT_REPORT);
	REQUIRE(fault);
	const char *text = fault->m.u.fault_report.text;
	CHECK(strstr(text, "\nevent: GPU write fault\nfence-status: -5\n") != NULL);
	CHECK(strstr(text, "\nfault-iova: 0x00000001f0000000 (write)\n") != NULL);
	char want[200];
	snprintf(want, sizeof(want), "ESTIMATED CRASH LOCATION: IB1 0x%016llx dword 1: CP_MEM_WRITE\n",
		 (unsigned long long)f.cmd_iova);
	CHECK(strstr(text, want) != NULL);
	struct ferry_host_stats hs;
	ferry_host_get_stats(f.host, &hs);
	CHECK_EQ(hs.faults, 1);
	CHECK_EQ(hs.hangs, 0); /* a page fault is no hang */
	harness_clear(&f.hc);
	struct rx_msg *err = harness_reply(&f.hc, submit(&f, 0, 2, 0, 5, NULL, 0));
	REQUIRE(err && err->m.kind == FERRY_MSG_ERROR);
	CHECK(strstr(err->m.u.error.message, "context 1 lost after a GPU write fault at iova 0x1f0000000 at IB1") != NULL);
	fixture_close(&f);
}

/* Only the newest max_fault_reports reports are kept; numbers keep counting. */
static void test_reports_ring(void)
{
	struct ferry_host *host = make_host(50, -1, NULL);
	for (uint32_t ctx = 0; ctx < 3; ctx++) {
		struct fixture f;
		fixture_open(&f, host, FERRY_POLICY_PASSTHROUGH);
		uint32_t wait_at;
		uint32_t n = emit_wait(f.cmd, 0, f.data_iova, 1, 0xffffffffu, &wait_at);
		submit(&f, 0, 1, 0, n, NULL, 0);
		HARNESS_RUN_UNTIL(host, find_signal(&f.hc, 0, 1), 30000);
		CHECK(harness_find(&f.hc, FERRY_MSG_FAULT_REPORT) != NULL);
		munmap(f.cmd, 4096);
		munmap(f.data, 4096);
		harness_disconnect(&f.hc);
	}
	CHECK_EQ(ferry_host_nr_fault_reports(host), 2);
	uint64_t a = 0, b = 0;
	CHECK(ferry_host_fault_report(host, 0, &a) != NULL);
	CHECK(ferry_host_fault_report(host, 1, &b) != NULL);
	CHECK_EQ(a, 2);
	CHECK_EQ(b, 3);
	log_host = NULL;
	ferry_host_destroy(host);
}

/* The dump while queue 0 polls memory and queue 1 holds a submit behind queue 0's fence. */
static void test_sync_dump(void)
{
	struct fixture f;
	fixture_open(&f, make_host(60000, -1, NULL), FERRY_POLICY_PASSTHROUGH);
	f.data[4] = 0x5;
	uint32_t wait_at;
	uint32_t n = emit_wait(f.cmd, 0, f.data_iova + 16, 0x60, 0xff, &wait_at);
	submit(&f, 0, 1, 0, n, NULL, 0);
	/* Queue 1: a plain submit held until queue 0's seqno 1 signals. */
	f.cmd[64] = pm4_type7_hdr(CP_NOP, 0);
	struct ferry_fence_ref in = { .queue_id = 0, .seqno = 1 };
	submit(&f, 1, 7, 256, 1, &in, 1);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);

	/* Until the GPU reports the wait (it stalls within a slice or two). */
	char *text = NULL;
	int64_t end = harness_now_ms() + 20000;
	for (;;) {
		free(text);
		REQUIRE(ferry_host_sync_dump(f.host, &text) == 0);
		if (strstr(text, "WAIT_REG_MEM") || harness_now_ms() > end)
			break;
		HARNESS_RUN_UNTIL(f.host, false, 5);
	}
	char want[1024];
	snprintf(want, sizeof(want),
		 "queue:GPU-1-1-0 exec:S cmd:WAIT_REG_MEM seqno:1 obj:0x%016llx live_value:0x0000000000000005 | "
		 "op:eq arg_value:0x0000000000000060 mask:0x000000ff\n"
		 "queue:GPU-1-1-0 exec:P cmd:SIGNAL seqno:1 obj:GPU-1-1-0 live_value:0x0000000000000000 | "
		 "op:set arg_value:0x0000000000000001\n"
		 "queue:GPU-1-1-1 exec:S cmd:FENCE_WAIT seqno:7 obj:GPU-1-1-0 live_value:0x0000000000000000 | "
		 "op:ge arg_value:0x0000000000000001\n"
		 "queue:GPU-1-1-1 exec:P cmd:SIGNAL seqno:7 obj:GPU-1-1-1 live_value:0x0000000000000000 | "
		 "op:set arg_value:0x0000000000000007\n",
		 (unsigned long long)(f.data_iova + 16));
	CHECK(!strcmp(text, want));
	if (strcmp(text, want))
		fprintf(stderr, "dump:\n%swanted:\n%s", text, want);
	free(text);

	/* The live value follows memory; satisfied, everything retires and the dump empties. */
	f.data[4] = 0x1234560 | 0x60; /* (live & 0xff) == 0x60 */
	end = harness_now_ms() + 20000;
	for (;;) {
		REQUIRE(ferry_host_sync_dump(f.host, &text) == 0);
		bool empty = !text[0];
		free(text);
		if (empty || harness_now_ms() > end)
			break;
		HARNESS_RUN_UNTIL(f.host, false, 5);
	}
	REQUIRE(ferry_host_sync_dump(f.host, &text) == 0);
	CHECK(!strcmp(text, ""));
	free(text);
	fixture_close(&f);
}

/* The other GPU waits the simulator reports: CP_WAIT_MEM_GTE (signed ge) and a CP_WAIT_REG_MEM
 * polling a register. */
static void test_sync_dump_other_waits(void)
{
	struct fixture f;
	fixture_open(&f, make_host(60000, -1, NULL), FERRY_POLICY_PASSTHROUGH);
	f.data[8] = (uint32_t)-3;
	uint32_t *cs = f.cmd;
	cs[0] = pm4_type7_hdr(CP_WAIT_MEM_GTE, 4);
	cs[1] = 0;
	cs[2] = (uint32_t)(f.data_iova + 32);
	cs[3] = (uint32_t)((f.data_iova + 32) >> 32);
	cs[4] = 2;
	submit(&f, 0, 1, 0, 5, NULL, 0);
	/* CP_SCRATCH_REG(7) & 0xf0 > 0x70 (signed): the scratch register is never written here. */
	uint32_t *r = f.cmd + 64;
	r[0] = pm4_type7_hdr(CP_WAIT_REG_MEM, 6);
	r[1] = CP_WAIT_REG_MEM_0_FUNCTION(WRITE_GT) | CP_WAIT_REG_MEM_0_SIGNED | CP_WAIT_REG_MEM_0_POLL(POLL_REGISTER);
	r[2] = 0x88a;
	r[3] = 0;
	r[4] = 0x70;
	r[5] = 0xf0;
	r[6] = 0;
	submit(&f, 1, 1, 256, 7, NULL, 0);
	CHECK_EQ(harness_count(&f.hc, FERRY_MSG_ERROR), 0);

	char *text = NULL;
	for (int64_t end = harness_now_ms() + 20000;;) {
		free(text);
		REQUIRE(ferry_host_sync_dump(f.host, &text) == 0);
		if ((strstr(text, "WAIT_MEM_GTE") && strstr(text, "WAIT_REG_MEM")) || harness_now_ms() > end)
			break;
		HARNESS_RUN_UNTIL(f.host, false, 5);
	}
	char want[256];
	snprintf(want, sizeof(want),
		 "queue:GPU-1-1-0 exec:S cmd:WAIT_MEM_GTE seqno:1 obj:0x%016llx live_value:0x00000000fffffffd | "
		 "op:ge arg_value:0x0000000000000002 signed\n",
		 (unsigned long long)(f.data_iova + 32));
	CHECK(strstr(text, want) != NULL);
	CHECK(strstr(text, "queue:GPU-1-1-1 exec:S cmd:WAIT_REG_MEM seqno:1 obj:reg:0x0088a live_value:0x0000000000000000 | "
			   "op:gt arg_value:0x0000000000000070 mask:0x000000f0 signed\n") != NULL);
	if (test_failures)
		fprintf(stderr, "dump:\n%s", text);
	free(text);
	fixture_close(&f);
}

/* The watchdog's trigger on a fake clock: never before the timeout, once per fence, re-armed by
 * progress, quiet when idle or off. */
static void test_watchdog_trigger(void)
{
	const int64_t ms = 1000000, timeout = 100 * ms;
	struct watchdog_track track = { 0 }, *w = &track;
	CHECK(!watchdog_track_step(w, false, 0, 0, timeout));
	CHECK(!watchdog_track_step(w, true, 0, 10 * ms, timeout)); /* arms at 10 ms */
	CHECK(!watchdog_track_step(w, true, 0, 109 * ms, timeout));
	CHECK(watchdog_track_step(w, true, 0, 110 * ms, timeout)); /* 100 ms overdue: once */
	CHECK(!watchdog_track_step(w, true, 0, 500 * ms, timeout));
	/* Progress (a new oldest fence) re-arms from now. */
	CHECK(!watchdog_track_step(w, true, 1, 600 * ms, timeout));
	CHECK(!watchdog_track_step(w, true, 1, 699 * ms, timeout));
	CHECK(watchdog_track_step(w, true, 1, 700 * ms, timeout));
	/* Idle, then new work with the same signaled value: timed from when it was seen. */
	CHECK(!watchdog_track_step(w, false, 1, 710 * ms, timeout));
	CHECK(!watchdog_track_step(w, true, 1, 720 * ms, timeout));
	CHECK(!watchdog_track_step(w, true, 1, 819 * ms, timeout));
	CHECK(watchdog_track_step(w, true, 1, 820 * ms, timeout));
	/* Off. */
	CHECK(!watchdog_track_step(w, true, 2, 900 * ms, 0));
	CHECK(!watchdog_track_step(w, true, 2, 9000 * ms, 0));
}

/* The live watchdog: a short timeout, a stalled wait (hangcheck far away): the dump is logged
 * once, not before the timeout, and turning the watchdog off at run time silences it. */
static void test_watchdog_logs_dump(void)
{
	struct fixture f;
	fixture_open(&f, make_host(60000, 150, NULL), FERRY_POLICY_PASSTHROUGH);
	CHECK_EQ(ferry_host_fence_timeout(f.host), 150);
	uint32_t wait_at;
	uint32_t n = emit_wait(f.cmd, 0, f.data_iova + 8, 0x77, 0xffffffffu, &wait_at);
	int64_t t0 = harness_now_ms();
	submit(&f, 0, 1, 0, n, NULL, 0);
	HARNESS_RUN_UNTIL(f.host, log_count("fence-signal timeout") > 0, 20000);
	int64_t took = harness_now_ms() - t0;
	CHECK_EQ(log_count("fence-signal timeout"), 1);
	CHECK(took >= 150);
	CHECK(strstr(logbuf, "context 1 queue 0 seqno 1 has not signaled") != NULL);
	char want[160];
	snprintf(want, sizeof(want), "sync: queue:GPU-1-1-0 exec:S cmd:WAIT_REG_MEM seqno:1 obj:0x%016llx",
		 (unsigned long long)(f.data_iova + 8));
	CHECK(strstr(logbuf, want) != NULL);
	CHECK(strstr(logbuf, "sync: queue:GPU-1-1-0 exec:P cmd:SIGNAL seqno:1") != NULL);
	if (test_failures)
		fprintf(stderr, "log:\n%s", logbuf);

	/* Once per overdue fence. */
	HARNESS_RUN_UNTIL(f.host, false, 500);
	CHECK_EQ(log_count("fence-signal timeout"), 1);

	/* A new timeout re-times the fence; off silences it. */
	ferry_host_set_fence_timeout(f.host, 100);
	HARNESS_RUN_UNTIL(f.host, log_count("fence-signal timeout") > 1, 20000);
	CHECK_EQ(log_count("fence-signal timeout"), 2);
	ferry_host_set_fence_timeout(f.host, 0);
	CHECK_EQ(ferry_host_fence_timeout(f.host), 0);
	HARNESS_RUN_UNTIL(f.host, false, 400);
	CHECK_EQ(log_count("fence-signal timeout"), 2);

	fixture_close(&f);
}

int main(void)
{
	RUN_TEST(test_hang_report);
	RUN_TEST(test_pagefault_report);
	RUN_TEST(test_reports_ring);
	RUN_TEST(test_sync_dump);
	RUN_TEST(test_sync_dump_other_waits);
	RUN_TEST(test_watchdog_trigger);
	RUN_TEST(test_watchdog_logs_dump);
	return test_finish();
}
