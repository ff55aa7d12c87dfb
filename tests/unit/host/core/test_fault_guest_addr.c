/* Fault and hang reports of validated contexts name the guest's command-stream addresses: the GPU
 * ran host shadow copies, but FAULT_REPORT's ib_iova, the ESTIMATED CRASH LOCATION, the "guest:"
 * line and the rewritten last-packets give the guest BO's iova + offset (IB1 and IB2, hang and CP
 * error), while the kernel's dump is kept below, with its shadow addresses, behind a note. */
#include "host_harness.h"

#define MSM_BO_READ  1u
#define MSM_BO_WRITE 2u
#define CMD_BUF      1u

/* Where the IB1 and the IB2 start in the cmd BO: nonzero, so a BO offset shows up. */
#define IB1_OFFSET 0x40u
#define IB2_OFFSET 0x400u

struct fixture {
	struct ferry_host *host;
	struct harness_client hc;
	uint32_t *cmd, *data;
	uint64_t cmd_iova, data_iova;
};

static void fixture_open(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	struct ferry_host_config cfg = {
		.gpu = "a630", .log_level = FERRY_LOG_ERROR, .hangcheck_ms = 100, .fence_timeout_ms = -1,
	};
	REQUIRE(ferry_host_create(&cfg, &f->host) == 0);
	harness_connect(&f->hc, f->host, "t-guest-addr");
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){
		.ctx_id = 1, .family = FERRY_FAMILY_MSM, .policy = FERRY_POLICY_VALIDATED,
	};
	struct rx_msg *r = harness_reply(&f->hc, harness_request(&f->hc, &m));
	REQUIRE(r && r->m.kind == FERRY_MSG_CONTEXT_CREATED);
	req_queue_create(&f->hc, 1, 0, 0);
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
	ferry_host_destroy(f->host);
}

/* Two CP_NOPs, then the packet that stops the CP: a CP_WAIT_REG_MEM on a data word that never
 * matches (hang) or a CP_SKIP_IB2_ENABLE_GLOBAL without its payload (CP error, which the
 * validator lets through: the packet is harmless). Returns the dword count; *stop_at the dword
 * of the stopping packet. */
static uint32_t emit_stop(struct fixture *f, uint32_t *cs, bool hang, uint32_t *stop_at)
{
	uint32_t at = 0;
	cs[at++] = pm4_type7_hdr(CP_NOP, 1);
	cs[at++] = 0;
	cs[at++] = pm4_type7_hdr(CP_NOP, 0);
	*stop_at = at;
	if (!hang) {
		cs[at++] = pm4_type7_hdr(CP_SKIP_IB2_ENABLE_GLOBAL, 0);
		return at;
	}
	cs[at++] = pm4_type7_hdr(CP_WAIT_REG_MEM, 6);
	cs[at++] = CP_WAIT_REG_MEM_0_FUNCTION(WRITE_EQ) | CP_WAIT_REG_MEM_0_POLL(POLL_MEMORY);
	cs[at++] = (uint32_t)(f->data_iova + 16);
	cs[at++] = (uint32_t)((f->data_iova + 16) >> 32);
	cs[at++] = 0x60;
	cs[at++] = 0xffffffffu;
	cs[at++] = 0;
	return at;
}

static void submit(struct fixture *f, uint32_t seqno, uint32_t ib1_dwords)
{
	struct ferry_msm_submit_bo bos[2] = {
		{ .bo_id = 1, .flags = MSM_BO_READ },
		{ .bo_id = 2, .flags = MSM_BO_READ | MSM_BO_WRITE },
	};
	struct ferry_msm_submit_cmd cmd = {
		.type = CMD_BUF, .bo_index = 0, .offset = IB1_OFFSET, .size = ib1_dwords * 4,
	};
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
	m.u.msm_submit = (struct ferry_msm_submit){
		.ctx_id = 1, .queue_id = 0, .seqno = seqno, .nr_bos = 2, .nr_cmds = 1, .bos = bos, .cmds = &cmd,
	};
	harness_request(&f->hc, &m);
}

static bool got_signal(struct harness_client *hc)
{
	return harness_count(hc, FERRY_MSG_FENCE_SIGNALED) > 0;
}

/* The text between "\n<name>:\n" and the next top-level line, copied into out. */
static void section(const char *text, const char *name, char *out, size_t len)
{
	char key[64];
	snprintf(key, sizeof(key), "\n%s:\n", name);
	out[0] = '\0';
	const char *p = strstr(text, key);
	if (!p)
		return;
	p += strlen(key);
	const char *end = p;
	while (*end && (*end == ' ' || *end == '\t')) {
		const char *nl = strchr(end, '\n');
		end = nl ? nl + 1 : end + strlen(end);
	}
	size_t n = (size_t)(end - p) < len - 1 ? (size_t)(end - p) : len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* Runs one failing submit and checks that its report names the guest's stream. level 1: the
 * stopping packet is in the IB1; level 2: the IB1 calls an IB2 that holds it. */
static void check_report(unsigned level, bool hang)
{
	struct fixture f;
	fixture_open(&f);
	uint32_t stop_at, ib1_dwords;
	uint64_t stream_iova; /* guest address of the stream holding the stopping packet */
	uint32_t stream_offset;
	if (level == 1) {
		ib1_dwords = emit_stop(&f, f.cmd + IB1_OFFSET / 4, hang, &stop_at);
		stream_offset = IB1_OFFSET;
	} else {
		uint32_t ib2_dwords = emit_stop(&f, f.cmd + IB2_OFFSET / 4, hang, &stop_at);
		uint32_t *cs = f.cmd + IB1_OFFSET / 4;
		uint64_t ib2 = f.cmd_iova + IB2_OFFSET;
		cs[0] = pm4_type7_hdr(CP_NOP, 0);
		cs[1] = pm4_type7_hdr(CP_INDIRECT_BUFFER, 3);
		cs[2] = (uint32_t)ib2;
		cs[3] = (uint32_t)(ib2 >> 32);
		cs[4] = ib2_dwords;
		ib1_dwords = 5;
		stream_offset = IB2_OFFSET;
	}
	stream_iova = f.cmd_iova + stream_offset;
	submit(&f, 1, ib1_dwords);
	REQUIRE(harness_count(&f.hc, FERRY_MSG_ERROR) == 0);
	HARNESS_RUN_UNTIL(f.host, got_signal(&f.hc), 30000);

	struct rx_msg *fault = harness_find(&f.hc, FERRY_MSG_FAULT_REPORT);
	REQUIRE(fault);
	const struct ferry_fault_report *fr = &fault->m.u.fault_report;
	CHECK_EQ(!!(fr->flags & FERRY_FAULT_HANG), hang);
	CHECK_EQ(fr->ib_level, level);
	CHECK_EQ(fr->ib_iova, stream_iova);
	CHECK_EQ(fr->ib_dword, stop_at);
	CHECK_EQ(fr->opcode, hang ? CP_WAIT_REG_MEM : CP_SKIP_IB2_ENABLE_GLOBAL);

	const char *text = fr->text;
	char want[256];
	snprintf(want, sizeof(want), "\nESTIMATED CRASH LOCATION: IB%u 0x%016llx dword %u: %s\n", level,
		 (unsigned long long)stream_iova, stop_at, hang ? "CP_WAIT_REG_MEM" : "CP_SKIP_IB2_ENABLE_GLOBAL");
	CHECK(strstr(text, want) != NULL);
	snprintf(want, sizeof(want), "\nguest: IB%u 0x%016llx (bo 1 +0x%x), shadow 0x", level,
		 (unsigned long long)stream_iova, stream_offset);
	CHECK(strstr(text, want) != NULL);

	/* The guest's last packets: the stopping one last, at its guest address and BO offset. */
	char lines[4096];
	section(text, "guest-last-packets", lines, sizeof(lines));
	uint64_t stop_iova = stream_iova + stop_at * 4u;
	snprintf(want, sizeof(want), "iova: 0x%016llx, level: %u, dword: %u,", (unsigned long long)stop_iova, level,
		 stop_at);
	const char *last = strstr(lines, want);
	CHECK(last != NULL);
	snprintf(want, sizeof(want), "} (bo 1 +0x%x)\n", stream_offset + stop_at * 4u);
	CHECK(last && strstr(last, want) && !strchr(strstr(last, want) + strlen(want), '\n'));
	CHECK(strstr(lines, "not a shadow copy") == NULL);
	if (level == 2) { /* the IB1's CP_INDIRECT_BUFFER is there too, at the IB1's guest address */
		snprintf(want, sizeof(want), "iova: 0x%016llx, level: 1, dword: 1,",
			 (unsigned long long)(f.cmd_iova + IB1_OFFSET + 4));
		CHECK(strstr(lines, want) != NULL);
	}

	/* The kernel's dump is still there, unchanged: its addresses are the shadow's. */
	const char *note = strstr(text, "\nnote: validated context: ");
	const char *dump = strstr(text, "\n---\nkernel: ");
	CHECK(note && dump && note < dump);
	char crash[1024];
	section(text, "crash-location", crash, sizeof(crash));
	CHECK(strstr(crash, "ib-iova: 0x") != NULL);
	snprintf(want, sizeof(want), "ib-iova: 0x%016llx\n", (unsigned long long)stream_iova);
	CHECK(strstr(crash, want) == NULL);

	/* Later requests on the lost context name the guest address too. */
	harness_clear(&f.hc);
	submit(&f, 2, ib1_dwords);
	struct rx_msg *err = harness_find(&f.hc, FERRY_MSG_ERROR);
	REQUIRE(err);
	snprintf(want, sizeof(want), " at IB%u 0x%016llx dword %u:", level, (unsigned long long)stream_iova, stop_at);
	CHECK(strstr(err->m.u.error.message, want) != NULL);
	fixture_close(&f);
}

static void test_ib1_hang(void) { check_report(1, true); }
static void test_ib2_hang(void) { check_report(2, true); }
static void test_ib1_fault(void) { check_report(1, false); }
static void test_ib2_fault(void) { check_report(2, false); }

int main(void)
{
	RUN_TEST(test_ib1_hang);
	RUN_TEST(test_ib2_hang);
	RUN_TEST(test_ib1_fault);
	RUN_TEST(test_ib2_fault);
	return test_finish();
}
