/* `ferry demo`: starts a private ferryd on a simulated Adreno and drives a guest workload
 * through libferry: BOs, an IB1->IB2 chain of memory writes, timestamps, copies and a register
 * readback, async submits, then a GPU fault in a second context while the first keeps working.
 * Every result is checked; the exit code says whether all checks held. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/ferry.h"
#include "ferryd_spawn.h"
#include "pm4_builder.h"
#include "demo_v3d.h"
#include "node_probe.h"
#include "subcommands.h"

/* CP_SCRATCH_REG(4) on a6xx: unprotected, and not the one the kernel's fence sequence uses. */
#define DEMO_SCRATCH_REG 0x887u
#define WAIT_NS (10ll * 1000 * 1000 * 1000)
#define A_SUBMITS_DURING_FAULT 200u

static int checks, failures;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;
	checks++;
	if (ok)
		return;
	failures++;
	printf("    CHECK FAILED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double step_t0;
static int step_no;

static void step_begin(const char *what)
{
	printf("[%d] %s\n", ++step_no, what);
	fflush(stdout);
	step_t0 = now_ms();
}

static void step_end(void)
{
	printf("    (%.2f ms)\n", now_ms() - step_t0);
	fflush(stdout);
}

/* A BO with its mapping and GPU address. */
struct demo_bo {
	struct ferry_bo *bo;
	uint32_t *cpu;
	uint64_t iova;
};

static int demo_bo_new(struct ferry_context *ctx, uint64_t size, struct demo_bo *b)
{
	int r = ferry_bo_new(ctx, size, MSM_BO_WC, &b->bo);
	void *p = NULL;
	if (r == 0)
		r = ferry_bo_map(b->bo, &p);
	if (r == 0)
		r = ferry_bo_iova(b->bo, &b->iova);
	b->cpu = p;
	return r;
}

struct demo {
	struct ferry_device *dev;
	struct ferry_context *a, *b;
	struct ferry_queue *qa, *qb;
	struct demo_bo ib1, ib2, data, ts, dst, bib;
	uint64_t va_start, va_size;
};

static int step_chain(struct demo *d)
{
	step_begin("IB1 -> IB2 chain: CP_MEM_WRITE patterns, type-4 scratch write + CP_REG_TO_MEM, "
		   "CP_EVENT_WRITE timestamps, CP_MEMCPY");
	memset(d->data.cpu, 0, 4096);
	memset(d->ts.cpu, 0, 4096);
	memset(d->dst.cpu, 0xee, 4096);

	/* IB2: the work. */
	struct pm4_builder b2;
	pm4_builder_init(&b2, d->ib2.cpu, 1024);
	uint32_t pattern[16];
	for (uint32_t i = 0; i < 16; i++)
		pattern[i] = 0xC0DE0000u | (i * 0x111u);
	pm4_mem_write(&b2, d->data.iova, pattern, 16);
	pm4_event_write_ts(&b2, CACHE_FLUSH_TS, d->ts.iova + 0, 0x1001);
	PM4_PKT4(&b2, DEMO_SCRATCH_REG, 0x5CA7C4u);
	pm4_reg_to_mem(&b2, DEMO_SCRATCH_REG, 1, d->data.iova + 0x100, false);
	pm4_memcpy(&b2, d->dst.iova, d->data.iova, 16);
	pm4_event_write_ts(&b2, CACHE_FLUSH_TS, d->ts.iova + 8, 0x1002);
	/* IB1: a marker, the call into IB2, a final timestamp. */
	struct pm4_builder b1;
	pm4_builder_init(&b1, d->ib1.cpu, 1024);
	pm4_mem_write(&b1, d->data.iova + 0x200, (const uint32_t[]){ 0x1B1u }, 1);
	pm4_ib(&b1, d->ib2.iova, b2.len);
	pm4_event_write_ts(&b1, CACHE_FLUSH_TS, d->ts.iova + 16, 0x1003);
	check(pm4_builder_ok(&b1) && pm4_builder_ok(&b2), "PM4 builder error");
	printf("    IB1 %u dwords @0x%" PRIx64 ", IB2 %u dwords @0x%" PRIx64 "\n", b1.len,
	       d->ib1.iova, b2.len, d->ib2.iova);

	struct ferry_cmd cmd = { .bo = d->ib1.bo, .offset = 0, .size = pm4_builder_bytes(&b1) };
	struct ferry_submit_bo bos[] = {
		{ d->ib2.bo, MSM_SUBMIT_BO_READ },
		{ d->data.bo, MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE },
		{ d->ts.bo, MSM_SUBMIT_BO_WRITE },
		{ d->dst.bo, MSM_SUBMIT_BO_WRITE },
	};
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = bos, .nr_bos = 4 };
	uint32_t seqno;
	int r = ferry_submit(d->qa, &s, &seqno);
	check(r == 0, "submit: %s", ferry_device_last_error(d->dev));
	if (r < 0)
		return r;
	r = ferry_fence_wait(d->qa, seqno, WAIT_NS);
	check(r == 0, "fence %u wait: %d (%s)", seqno, r, strerror(-r));
	printf("    submit seqno %u retired: %s\n", seqno, r == 0 ? "ok" : strerror(-r));

	int bad = 0;
	for (uint32_t i = 0; i < 16; i++)
		bad += d->data.cpu[i] != pattern[i] || d->dst.cpu[i] != pattern[i];
	check(bad == 0, "%d pattern dwords wrong in data/dst", bad);
	check(d->dst.cpu[16] == 0xeeeeeeeeu, "CP_MEMCPY wrote past its 16 dwords");
	check(d->data.cpu[0x200 / 4] == 0x1B1u, "IB1 marker 0x%x", d->data.cpu[0x200 / 4]);
	check(d->data.cpu[0x100 / 4] == 0x5CA7C4u, "scratch readback 0x%x", d->data.cpu[0x100 / 4]);
	check(d->ts.cpu[0] == 0x1001 && d->ts.cpu[2] == 0x1002 && d->ts.cpu[4] == 0x1003,
	      "timestamps %x %x %x", d->ts.cpu[0], d->ts.cpu[2], d->ts.cpu[4]);
	printf("    data[0..3] = %08x %08x %08x %08x, copy matches: %s\n", d->data.cpu[0],
	       d->data.cpu[1], d->data.cpu[2], d->data.cpu[3], bad ? "NO" : "yes");
	printf("    scratch reg 0x%x read back as 0x%x; timestamps %#x %#x %#x\n", DEMO_SCRATCH_REG,
	       d->data.cpu[0x100 / 4], d->ts.cpu[0], d->ts.cpu[2], d->ts.cpu[4]);
	step_end();
	return 0;
}

/* Builds "write value to iova" into ib at dword offset at; returns the bytes. */
static uint32_t write_ib(uint32_t *ib, uint32_t cap, uint64_t iova, uint32_t value)
{
	struct pm4_builder b;
	pm4_builder_init(&b, ib, cap);
	pm4_mem_write(&b, iova, &value, 1);
	return pm4_builder_ok(&b) ? pm4_builder_bytes(&b) : 0;
}

static int step_async(struct demo *d)
{
	enum { N = 32, SLOT_DWORDS = 16 };
	step_begin("32 asynchronous submits (no wait between them), then one wait for the last");
	/* Each submit has its own small IB in ib1 (after the chain's area). */
	uint32_t first = 0, last = 0;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t *ib = d->ib1.cpu + 256 + i * SLOT_DWORDS;
		uint32_t bytes = write_ib(ib, SLOT_DWORDS, d->data.iova + 0x400 + i * 4, 0xA5000000u | i);
		struct ferry_cmd cmd = { d->ib1.bo, (256 + i * SLOT_DWORDS) * 4, bytes, 0 };
		struct ferry_submit_bo bo = { d->data.bo, MSM_SUBMIT_BO_WRITE };
		struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &bo, .nr_bos = 1 };
		int r = ferry_submit(d->qa, &s, &last);
		check(r == 0, "async submit %u: %s", i, ferry_device_last_error(d->dev));
		if (r < 0)
			return r;
		if (i == 0)
			first = last;
	}
	int r = ferry_fence_wait(d->qa, last, WAIT_NS);
	check(r == 0, "wait for seqno %u: %d", last, r);
	bool all = true;
	for (uint32_t s = first; s != last + 1; s++)
		all &= ferry_fence_signaled(d->qa, s);
	check(all, "an earlier fence is not signaled although the last one is");
	int bad = 0;
	for (uint32_t i = 0; i < N; i++)
		bad += d->data.cpu[0x400 / 4 + i] != (0xA5000000u | i);
	check(bad == 0, "%d of %d async results wrong", bad, N);
	printf("    seqnos %u..%u all signaled in order: %s; %d/%d results correct\n", first, last,
	       all ? "yes" : "NO", N - bad, N);
	step_end();
	return 0;
}

static int step_fault(struct demo *d)
{
	step_begin("GPU fault in context B (passthrough: CP_MEM_WRITE to an unmapped iova) while "
		   "context A completes 200 submits");
	/* Passthrough, so the stray write reaches the GPU: a validated context is refused it at
	 * submit (shown below). ferryd was started with --allow-passthrough. */
	int r = ferry_context_create(d->dev, FERRY_FAMILY_MSM, FERRY_POLICY_PASSTHROUGH, &d->b);
	check(r == 0, "context B: %s", ferry_device_last_error(d->dev));
	if (r < 0)
		return r;
	r = ferry_queue_create(d->b, 0, &d->qb);
	if (r == 0)
		r = demo_bo_new(d->b, 4096, &d->bib);
	check(r == 0, "context B setup: %s", ferry_device_last_error(d->dev));
	if (r < 0)
		return r;
	/* Unmapped: the top 64 KiB of the VA range, far above anything allocated. */
	uint64_t bad_iova = d->va_start + d->va_size - 0x10000;
	struct pm4_builder b;
	pm4_builder_init(&b, d->bib.cpu, 1024);
	pm4_nop(&b, 3);
	pm4_mem_write(&b, d->bib.iova + 0x800, (const uint32_t[]){ 0xB0B }, 1);
	uint32_t fault_dword = b.len;
	pm4_mem_write(&b, bad_iova, (const uint32_t[]){ 0xDEAD }, 1);
	pm4_mem_write(&b, d->bib.iova + 0x804, (const uint32_t[]){ 0xAF7E }, 1);
	check(pm4_builder_ok(&b), "PM4 builder error");
	printf("    B's IB @0x%" PRIx64 ": faulting CP_MEM_WRITE to 0x%" PRIx64 " at dword %u\n",
	       d->bib.iova, bad_iova, fault_dword);
	{
		/* The same stream from validated context A (its IB1 BO's second half) is refused. */
		memcpy(d->ib1.cpu + 512, d->bib.cpu, pm4_builder_bytes(&b));
		struct ferry_cmd cmd = { d->ib1.bo, 2048, pm4_builder_bytes(&b), 0 };
		struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };
		uint32_t seqno = 0;
		int rs = ferry_submit(d->qa, &s, &seqno);
		if (rs == 0)
			rs = ferry_fence_wait(d->qa, seqno, 10000000000ll);
		check(rs == -EINVAL, "validated context A: the stray write was not refused (%d)", rs);
		printf("    from validated context A the same IB is refused at submit:\n      %s\n",
		       ferry_device_last_error(d->dev));
	}

	/* Context A's work: each submit writes its index into its own dword. */
	uint32_t *aib = d->ib2.cpu + 512;
	for (uint32_t i = 0; i < A_SUBMITS_DURING_FAULT; i++)
		d->dst.cpu[i] = 0;
	struct ferry_submit_bo abo = { d->dst.bo, MSM_SUBMIT_BO_WRITE };
	uint32_t a_last = 0, b_seqno = 0;
	for (uint32_t i = 0; i < A_SUBMITS_DURING_FAULT; i++) {
		if (i == A_SUBMITS_DURING_FAULT / 2) {
			struct ferry_cmd cmd = { d->bib.bo, 0, pm4_builder_bytes(&b), 0 };
			struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1 };
			r = ferry_submit(d->qb, &s, &b_seqno);
			check(r == 0, "B submit: %s", ferry_device_last_error(d->dev));
		}
		/* 512 dwords of room in ib2 after its first 2 KiB; 8 dwords per tiny IB, reused
		 * only after the submit that used it retired. */
		uint32_t slot = i % 64;
		if (i >= 64) {
			r = ferry_fence_wait(d->qa, a_last - 63, WAIT_NS);
			check(r == 0, "A wait during fault: %d", r);
		}
		uint32_t bytes = write_ib(aib + slot * 8, 8, d->dst.iova + i * 4, 0xA0000000u | i);
		struct ferry_cmd cmd = { d->ib2.bo, (512 + slot * 8) * 4, bytes, 0 };
		struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &abo, .nr_bos = 1 };
		r = ferry_submit(d->qa, &s, &a_last);
		check(r == 0, "A submit %u: %s", i, ferry_device_last_error(d->dev));
		if (r < 0)
			return r;
	}
	r = ferry_fence_wait(d->qa, a_last, WAIT_NS);
	check(r == 0, "A's last submit: %d (%s)", r, strerror(-r));
	int bad = 0;
	for (uint32_t i = 0; i < A_SUBMITS_DURING_FAULT; i++)
		bad += d->dst.cpu[i] != (0xA0000000u | i);
	check(bad == 0, "%d of A's results wrong", bad);
	check(!ferry_context_lost(d->a), "context A was marked lost");
	printf("    context A: %u submits retired, %d results wrong, lost: %s\n",
	       A_SUBMITS_DURING_FAULT, bad, ferry_context_lost(d->a) ? "YES" : "no");

	int rb = ferry_fence_wait(d->qb, b_seqno, WAIT_NS);
	check(rb == -EIO, "B's fence: want -EIO, got %d (%s)", rb, strerror(-rb));
	printf("    context B: fence %u -> %d (%s), lost: %s\n", b_seqno, rb, strerror(-rb),
	       ferry_context_lost(d->b) ? "yes" : "NO");
	check(ferry_context_lost(d->b), "context B not marked lost");
	check(d->bib.cpu[0x800 / 4] == 0xB0B, "the write before the fault did not land");

	/* The report may trail the fence by a message; give the pump a moment. */
	const struct ferry_fault_info *f = NULL;
	for (int i = 0; i < 200 && !(f = ferry_context_fault(d->b, 0)); i++) {
		ferry_device_poll_events(d->dev);
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	check(f != NULL, "no fault report for context B");
	if (f) {
		printf("    fault report: iova 0x%" PRIx64 " %s, IB%u @0x%" PRIx64 " dword %u, "
		       "opcode 0x%x, queue %u seqno %u\n", f->iova,
		       (f->flags & FERRY_FAULT_WRITE) ? "WRITE" : "READ", f->ib_level, f->ib_iova,
		       f->ib_dword, f->opcode, f->queue_id, f->seqno);
		check(f->iova == bad_iova, "fault iova 0x%" PRIx64, f->iova);
		check(f->flags & FERRY_FAULT_WRITE, "fault not reported as a write");
		check(f->ib_iova == d->bib.iova, "fault IB 0x%" PRIx64 ", want 0x%" PRIx64,
		      f->ib_iova, d->bib.iova);
		check(f->ib_dword == fault_dword, "fault dword %u, want %u", f->ib_dword,
		      fault_dword);
		check(f->opcode == CP_MEM_WRITE, "fault opcode 0x%x", f->opcode);
		check(f->seqno == b_seqno, "fault seqno %u", f->seqno);
	}
	/* A keeps working after the fault too. */
	uint32_t bytes = write_ib(aib, 8, d->dst.iova + 0x800, 0xAF7E2);
	struct ferry_cmd cmd = { d->ib2.bo, 512 * 4, bytes, 0 };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &abo, .nr_bos = 1 };
	r = ferry_submit(d->qa, &s, &a_last);
	if (r == 0)
		r = ferry_fence_wait(d->qa, a_last, WAIT_NS);
	check(r == 0 && d->dst.cpu[0x800 / 4] == 0xAF7E2, "context A after the fault: %d", r);
	uint32_t dummy;
	r = ferry_submit(d->qb, &s, &dummy);
	check(r < 0, "a submit to the lost context B was accepted");
	printf("    after the fault: A still submits (%s); B refuses submits (%s)\n",
	       d->dst.cpu[0x800 / 4] == 0xAF7E2 ? "ok" : "FAILED", strerror(-r));
	step_end();
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry demo [--gpu a630|a660|v3d-4.2|v3d-7.1|/dev/dri/renderDNNN|auto] [--server URI] [--ferryd PATH]\n"
		   "  Starts ferryd on a simulated Adreno or V3D, or on a render node (a path or auto;\n"
		   "  its part picks the workload), unless --server names a running one;\n"
		   "  runs a checked guest workload through it and stops it. Exit 0 iff all checks "
		   "held.\n");
}

int cmd_demo(int argc, char **argv)
{
	const char *gpu = "a630", *server = NULL, *ferryd_opt = NULL;
	static const struct option opts[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "server", required_argument, NULL, 's' },
		{ "ferryd", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			gpu = optarg;
			break;
		case 's':
			server = optarg;
			break;
		case 'f':
			ferryd_opt = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* A render node runs the workload of the part it is; ferryd is given the node itself. */
	char model[64], node[64];
	if (!strcmp(gpu, "auto") && node_find(node, sizeof(node)))
		gpu = node; /* ferryd serves the node probed here, whatever its own list says */
	if (!strncmp(gpu, "/dev/", 5) || !strcmp(gpu, "auto")) {
		char why[320];
		if (node_model(gpu, model, sizeof(model), why, sizeof(why)) < 0) {
			fprintf(stderr, "demo: %s\n", why);
			return 1;
		}
	} else {
		snprintf(model, sizeof(model), "%s", gpu);
	}
	if (!strcmp(model, "v3d-4.2") || !strcmp(model, "v3d-7.1")) {
		char path[PATH_MAX] = "";
		if (!server && ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "demo: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		return demo_v3d(gpu, !strcmp(model, "v3d-7.1") ? 71 : 42, server, path);
	}
	if (strcmp(model, "a630") != 0 && strcmp(model, "a660") != 0) {
		fprintf(stderr, "demo: --gpu must be a630, a660, v3d-4.2, v3d-7.1, a render node or auto\n");
		return 2;
	}
	double t_start = now_ms();
	struct ferryd_proc proc = { .pid = -1 };
	const char *uri = server;
	if (!uri) {
		char path[PATH_MAX];
		if (ferryd_locate(ferryd_opt, path, sizeof(path)) < 0) {
			fprintf(stderr, "demo: cannot find ferryd (use --ferryd or $FERRYD)\n");
			return 1;
		}
		step_begin("starting ferryd");
		const char *const extra[] = { "--allow-passthrough", NULL }; /* for context B */
		if (ferryd_spawn(path, gpu, extra, true, 10000, &proc) < 0)
			return 1;
		uri = proc.uri;
		printf("    %s --gpu %s, socket %s, pid %d\n", path, gpu, proc.socket, (int)proc.pid);
		step_end();
	}

	struct demo d = { 0 };
	step_begin("connecting, handshake, device query");
	int r = ferry_device_open(uri, &d.dev);
	check(r == 0, "cannot open %s: %s", uri, strerror(-r));
	if (r < 0)
		goto out;
	const char *name = NULL;
	uint32_t family = 0;
	uint64_t gpu_id = 0, chip_id = 0;
	r = ferry_device_info(d.dev, &family, &name);
	check(r == 0 && family == FERRY_FAMILY_MSM, "device info: %s", ferry_device_last_error(d.dev));
	check(ferry_device_param(d.dev, MSM_PARAM_GPU_ID, &gpu_id) == 0, "no GPU_ID");
	ferry_device_param(d.dev, MSM_PARAM_CHIP_ID, &chip_id);
	if (ferry_device_param(d.dev, MSM_PARAM_VA_START, &d.va_start) < 0 ||
	    ferry_device_param(d.dev, MSM_PARAM_VA_SIZE, &d.va_size) < 0 || d.va_size < 0x20000) {
		d.va_start = 0x100000000ull;
		d.va_size = 0xfff00000ull;
	}
	check(!server ? gpu_id == (uint64_t)atoi(model + 1) : true, "GPU_ID %" PRIu64 " for %s",
	      gpu_id, model);
	printf("    device '%s': GPU_ID %" PRIu64 ", CHIP_ID 0x%" PRIx64 ", VA 0x%" PRIx64 "+0x%"
	       PRIx64 "\n", name ? name : "?", gpu_id, chip_id, d.va_start, d.va_size);
	step_end();

	step_begin("context A, a queue, five 4 KiB BOs (created asynchronously, then mapped)");
	r = ferry_context_create(d.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &d.a);
	if (r == 0)
		r = ferry_queue_create(d.a, 0, &d.qa);
	struct demo_bo *all[] = { &d.ib1, &d.ib2, &d.data, &d.ts, &d.dst };
	for (size_t i = 0; i < 5 && r == 0; i++)
		r = ferry_bo_new(d.a, 4096, MSM_BO_WC, &all[i]->bo);
	for (size_t i = 0; i < 5 && r == 0; i++) {
		void *p;
		r = ferry_bo_map(all[i]->bo, &p);
		all[i]->cpu = p;
		if (r == 0)
			r = ferry_bo_iova(all[i]->bo, &all[i]->iova);
	}
	check(r == 0, "setup: %s", ferry_device_last_error(d.dev));
	if (r < 0)
		goto out;
	for (size_t i = 0; i < 5; i++)
		check(all[i]->iova >= d.va_start && all[i]->iova + 4096 <= d.va_start + d.va_size,
		      "BO iova 0x%" PRIx64 " outside the VA range", all[i]->iova);
	printf("    BO iovas: 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 "\n",
	       d.ib1.iova, d.ib2.iova, d.data.iova, d.ts.iova, d.dst.iova);
	step_end();

	if (step_chain(&d) < 0 || step_async(&d) < 0 || step_fault(&d) < 0)
		goto out;

	step_begin("closing BOs, queues and contexts");
	ferry_bo_close(d.bib.bo);
	ferry_queue_close(d.qb);
	ferry_context_destroy(d.b);
	d.b = NULL;
	for (size_t i = 0; i < 5; i++)
		ferry_bo_close(all[i]->bo);
	ferry_queue_close(d.qa);
	ferry_context_destroy(d.a);
	d.a = NULL;
	ferry_device_close(d.dev);
	d.dev = NULL;
	step_end();
out:
	if (d.dev)
		ferry_device_close(d.dev); /* frees what is left */
	if (proc.pid > 0) {
		step_begin("stopping ferryd with SIGTERM");
		if (failures)
			ferryd_dump_log(&proc, 30);
		int st = ferryd_stop(&proc, 10000);
		bool clean = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		check(clean, "ferryd did not exit 0 (status 0x%x)", st);
		printf("    ferryd exited %s\n", clean ? "with status 0" : "uncleanly");
		step_end();
	}
	printf("\ndemo %s: %d checks, %d failed (%.0f ms)\n", failures ? "FAILED" : "passed", checks,
	       failures, now_ms() - t_start);
	return failures ? 1 : 0;
}
