/* End to end through a real ferryd: BOs, an IB1->IB2 chain doing memory writes, a register
 * readback, timestamps and a copy; then a fault in a second (passthrough) context while the
 * first keeps completing submits — the validated first context is refused the same stream. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "itest.h"
#include "itest_certs.h"
#include "test.h"

#define SCRATCH_REG 0x887u /* CP_SCRATCH_REG(4) */

static struct ferryd_proc ferryd;
static struct itest_client a;
static const char *server_uri; /* ferryd.uri, or ferryd.tcp_uri with FERRY_ITEST_TCP */

static void test_chain(void)
{
	struct itest_bo ib1, ib2, data, ts;
	REQUIRE(itest_bo_new(a.ctx, 4096, &ib1) == 0);
	REQUIRE(itest_bo_new(a.ctx, 8192, &ib2) == 0);
	REQUIRE(itest_bo_new(a.ctx, 4096, &data) == 0);
	REQUIRE(itest_bo_new(a.ctx, 4096, &ts) == 0);
	CHECK(ferry_bo_size(ib2.bo) >= 8192);
	CHECK(ib1.iova != ib2.iova && data.iova != ts.iova);
	memset(data.cpu, 0, 4096);
	memset(ts.cpu, 0, 4096);

	struct pm4_builder b2;
	pm4_builder_init(&b2, ib2.cpu, 2048);
	uint32_t vals[8];
	for (int i = 0; i < 8; i++)
		vals[i] = 0x11110000u + (uint32_t)i;
	pm4_mem_write(&b2, data.iova, vals, 8);
	PM4_PKT4(&b2, SCRATCH_REG, 0xFEEDF00Du);
	pm4_reg_to_mem(&b2, SCRATCH_REG, 1, data.iova + 0x40, false);
	pm4_memcpy(&b2, data.iova + 0x80, data.iova, 8);
	pm4_event_write_ts(&b2, CACHE_FLUSH_TS, ts.iova, 0x77);
	struct pm4_builder b1;
	pm4_builder_init(&b1, ib1.cpu, 1024);
	pm4_ib(&b1, ib2.iova, b2.len);
	pm4_event_write_ts(&b1, CACHE_FLUSH_TS, ts.iova + 8, 0x78);
	REQUIRE(pm4_builder_ok(&b1) && pm4_builder_ok(&b2));

	struct ferry_bo *w[] = { ib2.bo, data.bo, ts.bo };
	uint32_t seqno;
	CHECK_EQ(itest_submit(&a, ib1.bo, 0, pm4_builder_bytes(&b1), w, 3, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(a.q, seqno, ITEST_WAIT_NS), 0);
	CHECK(ferry_fence_signaled(a.q, seqno));
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(data.cpu[i], vals[i]);
		CHECK_EQ(data.cpu[0x80 / 4 + i], vals[i]);
	}
	CHECK_EQ(data.cpu[0x80 / 4 + 8], 0);
	CHECK_EQ(data.cpu[0x40 / 4], 0xFEEDF00Du);
	CHECK_EQ(ts.cpu[0], 0x77);
	CHECK_EQ(ts.cpu[2], 0x78);

	/* cpu_prep on an idle BO answers at once. */
	CHECK_EQ(ferry_bo_cpu_prep(data.bo, MSM_PREP_READ, 1000000000ll), 0);

	ferry_bo_close(ib1.bo);
	ferry_bo_close(ib2.bo);
	ferry_bo_close(data.bo);
	ferry_bo_close(ts.bo);
}

/* A client whose context is passthrough: its stray write reaches the GPU and faults (a
 * validated context's would be refused at submit). */
static void open_passthrough(struct itest_client *c)
{
	memset(c, 0, sizeof(*c));
	REQUIRE(ferry_device_open(server_uri, &c->dev) == 0);
	REQUIRE(ferry_context_create(c->dev, FERRY_FAMILY_MSM, FERRY_POLICY_PASSTHROUGH, &c->ctx) == 0);
	REQUIRE(ferry_queue_create(c->ctx, 0, &c->q) == 0);
}

/* An address near the end of the device's GPU VA space, where no BO lies: a write there faults. */
static uint64_t outside_va(struct ferry_device *dev)
{
	uint64_t va_start = 0x100000000ull, va_size = 0xfff00000ull;
	ferry_device_param(dev, MSM_PARAM_VA_START, &va_start);
	ferry_device_param(dev, MSM_PARAM_VA_SIZE, &va_size);
	return va_start + va_size - 0x10000;
}

static void test_fault_isolation(void)
{
	struct itest_client b;
	open_passthrough(&b);
	struct itest_bo bib, aib, adata;
	REQUIRE(itest_bo_new(b.ctx, 4096, &bib) == 0);
	REQUIRE(itest_bo_new(a.ctx, 64 * 1024, &aib) == 0);
	REQUIRE(itest_bo_new(a.ctx, 4096, &adata) == 0);
	memset(adata.cpu, 0, 4096);

	uint64_t bad = outside_va(b.dev);

	struct pm4_builder bb;
	pm4_builder_init(&bb, bib.cpu, 1024);
	pm4_nop(&bb, 1);
	uint32_t fault_dword = bb.len;
	pm4_mem_write(&bb, bad, (const uint32_t[]){ 1 }, 1);
	REQUIRE(pm4_builder_ok(&bb));

	/* The validated context A is refused this stream at submit (its fence gets the error,
	 * nothing runs, A is not lost). */
	struct itest_bo arej;
	REQUIRE(itest_bo_new(a.ctx, 4096, &arej) == 0);
	memcpy(arej.cpu, bib.cpu, pm4_builder_bytes(&bb));
	uint32_t rejected;
	CHECK_EQ(itest_submit(&a, arej.bo, 0, pm4_builder_bytes(&bb), NULL, 0, &rejected), 0);
	CHECK_EQ(ferry_fence_wait(a.q, rejected, ITEST_WAIT_NS), -EINVAL);
	CHECK(strstr(ferry_device_last_error(a.dev), "CP_MEM_WRITE") != NULL);
	CHECK(!ferry_context_lost(a.ctx));
	ferry_bo_close(arej.bo);

	/* 200 tiny IBs in A, each writing its index; B's fault in the middle. */
	enum { N = 200, SLOT = 16 };
	uint32_t b_seqno = 0, a_last = 0;
	for (uint32_t i = 0; i < N; i++) {
		if (i == N / 2)
			CHECK_EQ(itest_submit(&b, bib.bo, 0, pm4_builder_bytes(&bb), NULL, 0, &b_seqno), 0);
		struct pm4_builder ba;
		pm4_builder_init(&ba, aib.cpu + i * SLOT, SLOT);
		uint32_t v = 0xA000u + i;
		pm4_mem_write(&ba, adata.iova + (i % 1024) * 4, &v, 1);
		CHECK_EQ(itest_submit(&a, aib.bo, i * SLOT * 4, pm4_builder_bytes(&ba), &adata.bo, 1,
				      &a_last), 0);
	}
	CHECK_EQ(ferry_fence_wait(a.q, a_last, ITEST_WAIT_NS), 0);
	for (uint32_t i = 0; i < N; i++)
		CHECK_EQ(adata.cpu[i], 0xA000u + i);
	CHECK_EQ(ferry_fence_wait(b.q, b_seqno, ITEST_WAIT_NS), -EIO);
	CHECK(ferry_context_lost(b.ctx));
	CHECK(!ferry_context_lost(a.ctx));

	const struct ferry_fault_info *f = itest_await_fault(b.dev, b.ctx);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(f->iova, bad);
		CHECK(f->flags & FERRY_FAULT_WRITE);
		CHECK_EQ(f->ib_iova, bib.iova);
		CHECK_EQ(f->ib_dword, fault_dword);
		CHECK_EQ(f->opcode, CP_MEM_WRITE);
		CHECK_EQ(f->seqno, b_seqno);
		CHECK(f->text && strlen(f->text) > 0);
	}
	CHECK(ferry_context_fault(a.ctx, 0) == NULL);
	/* A is still fully served. */
	CHECK(itest_client_works(&a, 0x600D));

	ferry_bo_close(bib.bo);
	itest_client_close(&b);
	ferry_bo_close(aib.bo);
	ferry_bo_close(adata.bo);
}

/* One queue, 300 submits in flight, the one at index bad_at faulting (and the one at bad2 too,
 * when not 0). The host retires fences in batches (the newest polled first, one fault query for
 * the batch) and learns of a fault only from the queue's fault count, read after several fences
 * may have retired together: the fault must still land on the submit the kernel's dump names,
 * the earlier ones reading done. msm keeps one crash state until it is read, so a second fault
 * before the host looked has none: it must still not read as success. */
static void fault_mid_pipeline(uint32_t bad_at, uint32_t bad2)
{
	struct itest_client b;
	open_passthrough(&b);
	enum { N = 300, SLOT = 16, GATE = 1000 };
	struct itest_bo ib, data;
	REQUIRE(itest_bo_new(b.ctx, (N + 1) * SLOT * 4, &ib) == 0);
	REQUIRE(itest_bo_new(b.ctx, 4096, &data) == 0);
	memset(data.cpu, 0, 4096);
	uint64_t bad = outside_va(b.dev);

	/* The first submit waits for a gate that a submit on a second queue opens: the rest queue
	 * behind it and then run in one go, so the host tends to find many of them done at once.
	 * (The GPU opens it, not the CPU: a tcp client's CPU writes reach the host with a submit.) */
	uint32_t seqno[N];
	for (uint32_t i = 0; i < N; i++) {
		struct pm4_builder pb;
		pm4_builder_init(&pb, ib.cpu + i * SLOT, SLOT);
		if (i == 0)
			pm4_wait_mem_gte(&pb, data.iova + GATE * 4, 1);
		uint32_t v = 0xB000u + i;
		pm4_mem_write(&pb, i == bad_at || (bad2 && i == bad2) ? bad : data.iova + i * 4, &v, 1);
		REQUIRE(pm4_builder_ok(&pb));
		CHECK_EQ(itest_submit(&b, ib.bo, i * SLOT * 4, pm4_builder_bytes(&pb), &data.bo, 1,
				      &seqno[i]), 0);
	}
	struct ferry_queue *opener;
	REQUIRE(ferry_queue_create(b.ctx, 0, &opener) == 0);
	struct pm4_builder pg;
	pm4_builder_init(&pg, ib.cpu + N * SLOT, SLOT);
	pm4_mem_write(&pg, data.iova + GATE * 4, (const uint32_t[]){ 1 }, 1);
	REQUIRE(pm4_builder_ok(&pg));
	struct ferry_submit_bo gate_bo = { data.bo, MSM_SUBMIT_BO_WRITE };
	struct ferry_cmd gate_cmd = { .bo = ib.bo, .offset = N * SLOT * 4, .size = pm4_builder_bytes(&pg) };
	struct ferry_submit gate = { .cmds = &gate_cmd, .nr_cmds = 1, .bos = &gate_bo, .nr_bos = 1 };
	uint32_t gate_seqno;
	CHECK_EQ(ferry_submit(opener, &gate, &gate_seqno), 0);
	/* Its fence may be told after the fault below lost the context: then with the error. */
	int gr = ferry_fence_wait(opener, gate_seqno, ITEST_WAIT_NS);
	CHECK(gr == 0 || gr == -EIO);
	for (uint32_t i = 0; i < bad_at; i++) {
		CHECK_EQ(ferry_fence_wait(b.q, seqno[i], ITEST_WAIT_NS), 0);
		CHECK_EQ(data.cpu[i], 0xB000u + i);
	}
	CHECK_EQ(ferry_fence_wait(b.q, seqno[bad_at], ITEST_WAIT_NS), -EIO);
	CHECK(ferry_context_lost(b.ctx));
	const struct ferry_fault_info *f = itest_await_fault(b.dev, b.ctx);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(f->seqno, seqno[bad_at]);
		CHECK_EQ(f->iova, bad);
		CHECK_EQ(f->ib_iova, ib.iova + bad_at * SLOT * 4);
	}
	/* Later ones ran too, and end: done, or the lost context's error once it was published. */
	for (uint32_t i = bad_at + 1; i < N; i++) {
		int r = ferry_fence_wait(b.q, seqno[i], ITEST_WAIT_NS);
		if (bad2 && i == bad2)
			CHECK_EQ(r, -EIO);
		else
			CHECK(r == 0 || r == -EIO);
	}
	ferry_queue_close(opener);
	ferry_bo_close(ib.bo);
	ferry_bo_close(data.bo);
	itest_client_close(&b);
}

/* Where the host happens to look is timing: several positions, each in its own context. */
static void test_fault_mid_pipeline(void)
{
	static const uint32_t at[] = { 200, 37, 257, 131 };
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		fault_mid_pipeline(at[i], 0);
}

/* Two faults the host tends to find in one look, the second right after the first or further. */
static void test_two_faults_mid_pipeline(void)
{
	static const uint32_t at[][2] = { { 150, 151 }, { 40, 230 }, { 0, 1 }, { 120, 299 } };
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		fault_mid_pipeline(at[i][0], at[i][1]);
}

static void test_device_info(void)
{
	uint32_t family = 0;
	const char *name = NULL;
	uint64_t gpu_id = 0;
	CHECK_EQ(ferry_device_info(a.dev, &family, &name), 0);
	CHECK_EQ(family, FERRY_FAMILY_MSM);
	CHECK(name && strstr(name, "630"));
	CHECK_EQ(ferry_device_param(a.dev, MSM_PARAM_GPU_ID, &gpu_id), 0);
	CHECK_EQ(gpu_id, 630);
	uint64_t v;
	CHECK_EQ(ferry_device_param(a.dev, 0xdead, &v), -EINVAL);
}

/* FERRY_ITEST_TCP picks the transport: unset, the unix socket; "1" (or "plain"), tcp to
 * 127.0.0.1 with --insecure; "tls-cert", TLS with a client certificate; "tls-token", TLS with the
 * CA only and a token. tcp is a listener ferryd_spawn_tcp binds and passes, certificates are made
 * here (itest_certs.h); no memory is shared over tcp (docs/network.md). */
static char cert_dir[64];

static void tcp_setup(const char *mode, const char **extra, int *n, char *creds, char *tokens,
		      char *client_creds, char *token_file, size_t len)
{
	if (!strcmp(mode, "1") || !strcmp(mode, "plain")) {
		extra[(*n)++] = "--insecure";
		REQUIRE(setenv("FERRY_INSECURE", "1", 1) == 0); /* the client's side of --insecure */
		return;
	}
	bool cert = !strcmp(mode, "tls-cert");
	REQUIRE(cert || !strcmp(mode, "tls-token"));
	REQUIRE(itest_have_certtool());
	snprintf(cert_dir, sizeof(cert_dir), "/tmp/ferry-e2e-certs-XXXXXX");
	REQUIRE(mkdtemp(cert_dir));
	itest_certs_make(cert_dir);
	snprintf(creds, len, "%s/srv", cert_dir);
	extra[(*n)++] = "--tls-creds";
	extra[(*n)++] = creds;
	unsetenv("FERRY_INSECURE");
	if (cert) {
		snprintf(client_creds, len, "%s/good", cert_dir);
		unsetenv("FERRY_AUTH_TOKEN_FILE");
	} else {
		/* Tokens required: the CA alone would not get the client in. */
		snprintf(tokens, len, "%s/tokens", cert_dir);
		extra[(*n)++] = "--auth-tokens";
		extra[(*n)++] = tokens;
		snprintf(client_creds, len, "%s/nocert", cert_dir);
		snprintf(token_file, len, "%s/good_token", cert_dir);
		REQUIRE(setenv("FERRY_AUTH_TOKEN_FILE", token_file, 1) == 0);
	}
	REQUIRE(setenv("FERRY_TLS_CREDS", client_creds, 1) == 0);
}

int main(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	const char *mode = getenv("FERRY_ITEST_TCP");
	if (mode && !mode[0])
		mode = NULL;
	if (mode && mode[0] != '1' && strcmp(mode, "plain") && !itest_have_certtool()) {
		printf("SKIP: certtool (gnutls-bin) is not installed\n");
		return 77;
	}
	char creds[128], tokens[128], client_creds[128], token_file[128];
	/* info: ferryd says how a tcp client got in and what crossed the wire. */
	const char *extra[8] = { "--allow-passthrough", NULL };
	int n = 1;
	if (mode) {
		extra[n++] = "--log-level";
		extra[n++] = "info";
	}
	if (mode)
		tcp_setup(mode, extra, &n, creds, tokens, client_creds, token_file, sizeof(creds));
	extra[n] = NULL;
	if (mode)
		REQUIRE(ferryd_spawn_tcp(path, "a630", extra, true, 30000, &ferryd) == 0);
	else
		REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &ferryd) == 0);
	server_uri = mode ? ferryd.tcp_uri : ferryd.uri;
	REQUIRE(itest_client_open(server_uri, &a) == 0);
	RUN_TEST(test_device_info);
	RUN_TEST(test_chain);
	RUN_TEST(test_fault_isolation);
	RUN_TEST(test_fault_mid_pipeline);
	RUN_TEST(test_two_faults_mid_pipeline);
	itest_client_close(&a);
	CHECK(itest_proc_alive(ferryd.pid));
	/* The connection was what the mode says: ferryd names how each tcp client got in. */
	if (mode && !strcmp(mode, "tls-cert"))
		CHECK(itest_log_count(&ferryd, "authenticated (client certificate)") >= 1);
	else if (mode && !strcmp(mode, "tls-token"))
		CHECK(itest_log_count(&ferryd, "authenticated (token)") >= 1);
	else if (mode)
		CHECK(itest_log_count(&ferryd, "authenticated (none needed: --insecure)") >= 1);
	/* Logged when ferryd closes the connection, which may come a moment after ours. */
	for (int i = 0; mode && i < 500 && itest_log_count(&ferryd, ": wire: sent ") == 0; i++)
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	if (mode)
		CHECK(itest_log_count(&ferryd, ": wire: sent ") >= 1);
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	if (cert_dir[0])
		itest_sh("rm -rf %s", cert_dir);
	return test_finish();
}
