/* libFuzzer target for the PM4 validator and the CP model: the input is one msm submit (cmds,
 * relocs, command bytes) in a small fixed BO set; what the validator accepts runs on the CP, and
 * a fresh validator gives the same answer (and shadows) as the one that met every input. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/uapi/msm_drm.h"
#include "fuzz_pm4_input.h"
#include "pm4_validate.h"
#include "sim/msm/a6xx_cp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define POOL_IOVA 0x800000000ull
#define POOL_SIZE (2u << 20)

struct fuzz_ctx {
	struct pm4v_bo bos[FP_NR_BOS];
	uint8_t *mem[FP_NR_BOS];
	uint8_t *pool;
	uint32_t pool_used;
	struct pm4v_validator *v[2]; /* a630, a660 */
	struct cp_device cp;
};

static struct fuzz_ctx *fx;

static void fuzz_init(void)
{
	static const uint64_t iova[FP_NR_BOS] = { FP_CMD_IOVA, FP_CMD2_IOVA, FP_DATA_IOVA, FP_RO_IOVA };
	static const uint64_t size[FP_NR_BOS] = { FP_CMD_SIZE, FP_CMD_SIZE, FP_DATA_SIZE, FP_RO_SIZE };
	/* One context for the whole run (libFuzzer never returns); zeroed per input instead. */
	fx = calloc(1, sizeof(*fx));
	if (!fx)
		abort();
	for (int i = 0; i < FP_NR_BOS; i++) {
		fx->mem[i] = calloc(1, size[i]);
		if (!fx->mem[i])
			abort();
		fx->bos[i] = (struct pm4v_bo){ .iova = iova[i], .size = size[i], .map = fx->mem[i], .id = 3u + (uint32_t)i,
					       .flags = i == FP_BO_RO ? PM4V_BO_GPU_READONLY : 0 };
	}
	fx->pool = calloc(1, POOL_SIZE);
	fx->cp.regs = calloc(CP_NUM_REGS, sizeof(uint32_t));
	struct pm4v_policy p;
	pm4v_policy_a6xx(&p, 630);
	fx->v[0] = pm4v_create(&p);
	pm4v_policy_a6xx(&p, 660);
	fx->v[1] = pm4v_create(&p);
	if (!fx->pool || !fx->cp.regs || !fx->v[0] || !fx->v[1])
		abort();
}

static int shadow_alloc(void *ctx, uint32_t size, struct pm4v_shadow *out)
{
	struct fuzz_ctx *c = ctx;
	uint32_t aligned = (size + 63u) & ~63u;
	if (aligned < size || aligned > POOL_SIZE - c->pool_used)
		return -1;
	out->iova = POOL_IOVA + c->pool_used;
	out->map = c->pool + c->pool_used;
	c->pool_used += aligned;
	return 0;
}

/* The GPU's view: the context's BOs and the shadow pool, which the GPU may only read (as the
 * host maps it MSM_BO_GPU_READONLY). */
static void *translate(void *ctx, uint64_t iova, uint64_t len, bool write, uint64_t *avail, const char **fault_type)
{
	struct fuzz_ctx *c = ctx;
	for (int i = 0; i < FP_NR_BOS; i++) {
		const struct pm4v_bo *b = &c->bos[i];
		if (iova >= b->iova && iova - b->iova < b->size) {
			if (write && (b->flags & PM4V_BO_GPU_READONLY)) {
				*fault_type = "PERMISSION";
				return NULL;
			}
			uint64_t left = b->size - (iova - b->iova);
			*avail = len < left ? len : left;
			return c->mem[i] + (iova - b->iova);
		}
	}
	if (iova >= POOL_IOVA && iova - POOL_IOVA < POOL_SIZE) {
		if (write) {
			*fault_type = "PERMISSION";
			return NULL;
		}
		uint64_t left = POOL_SIZE - (iova - POOL_IOVA);
		*avail = len < left ? len : left;
		return c->pool + (iova - POOL_IOVA);
	}
	*fault_type = "TRANSLATION";
	return NULL;
}

/* A validated stream may still fault the CP where the validator leaves things to the GPU (page
 * tables bound register-programmed addresses; packets it does not know pass unchanged), but the
 * CP must parse it as the validator did: same packet boundaries, same IB nesting. */
static void check_fault(const struct cp_exec *x)
{
	static const char *const parse_errors[] = {
		"type-4 header parity error", "type-7 header parity error", "invalid packet type",
		"packet runs past the end of its IB", "CP_INDIRECT_BUFFER inside a draw-state group",
		"CP_INDIRECT_BUFFER inside IB2 (a6xx nests IBs two deep)",
		"CP_INDIRECT_BUFFER_CHAIN is not the last packet of its IB", "draw-state group nested too deep",
	};
	const struct cp_fault *f = &x->fault;
	bool bad = false;
	for (size_t i = 0; f->kind == CP_FAULT_OPCODE && i < sizeof(parse_errors) / sizeof(parse_errors[0]); i++)
		bad |= strcmp(f->reason, parse_errors[i]) == 0;
	if (bad || getenv("FERRY_FUZZ_VERBOSE"))
		fprintf(stderr, "validated stream faulted: %s%s at IB%u 0x%llx dword %u (iova 0x%llx %s%s)\n",
			f->kind == CP_FAULT_OPCODE ? "opcode error: " : "page fault",
			f->kind == CP_FAULT_OPCODE ? f->reason : "", f->ib_level, (unsigned long long)f->ib_base, f->dword,
			(unsigned long long)f->iova, f->write ? "write " : "", f->type ? f->type : "");
	if (bad)
		abort();
}

/* Runs the validated command buffers in order, each with a bounded budget: an accepted stream
 * may legitimately loop (a WAIT that never holds, a long chain), which is the hangcheck's job. */
static void run_on_cp(const struct pm4v_result *res)
{
	static struct cp_exec x;
	struct cp_mem mem = { .ctx = fx, .translate = translate };
	cp_exec_init(&x);
	for (uint32_t i = 0; i < res->nr_cmds; i++) {
		cp_exec_start_ib1(&x, res->cmds[i].iova, res->cmds[i].size / 4u);
		enum cp_result r = CP_RESULT_BUDGET;
		for (int slice = 0; slice < 16 && r == CP_RESULT_BUDGET; slice++)
			r = cp_run(&fx->cp, &mem, &x, 1u << 14);
		if (r == CP_RESULT_FAULT && getenv("FERRY_FUZZ_TRIAGE"))
			fprintf(stderr, "TRIAGE cp fault kind %d: %s iova 0x%llx write %d type %s level %u op %d\n", x.fault.kind,
				x.fault.reason ? x.fault.reason : "-", (unsigned long long)x.fault.iova, x.fault.write,
				x.fault.type ? x.fault.type : "-", x.fault.ib_level, x.fault.opcode);
		if (r == CP_RESULT_FAULT)
			check_fault(&x);
		if (r != CP_RESULT_DONE)
			return;
	}
}

/* The long-lived validators have learned from every earlier input which opcodes have no rule and
 * memoize headers per stream (pm4_stream.c's walk): none of that may change an answer, so a
 * validator that has learned nothing must give the same - rule, place and message, or the same
 * result and shadow bytes (the pool is carved in the same order, so at the same places). So must
 * the fresh one stepped under a budget (pm4v_validate_step). */
static void check_same(const char *what, int learned, const struct pm4v_result *lres,
		       const struct pm4v_error *lerr, int fresh, const struct pm4v_result *fres,
		       const struct pm4v_error *ferr, const uint8_t *fresh_pool, uint32_t fresh_used)
{
	bool same = learned == fresh;
	if (same && learned)
		same = lerr->rule == ferr->rule && lerr->offset == ferr->offset && strcmp(lerr->msg, ferr->msg) == 0;
	else if (same)
		same = lres->nr_cmds == fres->nr_cmds && lres->nr_streams == fres->nr_streams &&
		       lres->dwords == fres->dwords && lres->relocs_applied == fres->relocs_applied &&
		       fx->pool_used == fresh_used && memcmp(fx->pool, fresh_pool, fresh_used) == 0;
	if (!same) {
		fprintf(stderr, "%s validator: %d \"%s\" (%u streams, %llu dwords); "
			"fresh one: %d \"%s\" (%u, %llu)\n",
			what, learned, learned ? lerr->msg : "", learned ? 0 : lres->nr_streams,
			learned ? 0ull : (unsigned long long)lres->dwords, fresh, fresh ? ferr->msg : "",
			fresh ? 0 : fres->nr_streams, fresh ? 0ull : (unsigned long long)fres->dwords);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fx)
		fuzz_init();
	struct fp_input in;
	if (fp_parse(data, size, &in) != 0)
		return 0;
	memset(fx->mem[FP_BO_CMD], 0, FP_CMD_SIZE);
	memset(fx->mem[FP_BO_CMD2], 0, FP_CMD_SIZE);
	memset(fx->mem[FP_BO_DATA], 0, FP_DATA_SIZE);
	memset(fx->mem[FP_BO_RO], 0, FP_RO_SIZE);
	memset(fx->cp.regs, 0, CP_NUM_REGS * sizeof(uint32_t));
	size_t first = in.stream_len < FP_CMD_SIZE ? in.stream_len : FP_CMD_SIZE;
	memcpy(fx->mem[FP_BO_CMD], in.stream, first);
	memcpy(fx->mem[FP_BO_CMD2], in.stream + first, in.stream_len - first);

	static const uint32_t submit_bos[FP_NR_BOS] = { 0, 1, 2, 3 };
	struct pm4v_submit s = {
		.bos = fx->bos, .nr_bos = FP_NR_BOS, .submit_bos = submit_bos, .nr_submit_bos = FP_NR_BOS,
		.cmds = in.cmds, .nr_cmds = in.nr_cmds, .relocs = in.relocs, .nr_relocs = in.nr_relocs,
	};
	struct pm4v_shadow_allocator a = { shadow_alloc, fx };
	struct pm4v_result res;
	struct pm4v_error err;
	struct pm4v_policy p;
	pm4v_policy_a6xx(&p, in.gpu_660 ? 660 : 630);
	struct pm4v_validator *fresh = pm4v_create(&p);
	static uint8_t fresh_pool[POOL_SIZE];
	if (!fresh)
		abort();
	fx->pool_used = 0;
	struct pm4v_result fres;
	struct pm4v_error ferr;
	int fr = pm4v_validate(fresh, &s, &a, &fres, &ferr);
	uint32_t fresh_used = fx->pool_used;
	memcpy(fresh_pool, fx->pool, fresh_used);
	memset(fx->pool, 0, fresh_used);
	fx->pool_used = 0;
	/* Stepped under a budget (from the input's size, so mutations vary it), the same answer. */
	struct pm4v_result sres;
	struct pm4v_error serr;
	uint64_t budget = 1u + size % 61u;
	int sr;
	while ((sr = pm4v_validate_step(fresh, &s, &a, budget, &sres, &serr)) == 1)
		;
	check_same("stepped", sr, &sres, &serr, fr, &fres, &ferr, fresh_pool, fresh_used);
	pm4v_destroy(fresh);
	memset(fx->pool, 0, fx->pool_used);
	fx->pool_used = 0;
	int r = pm4v_validate(fx->v[in.gpu_660], &s, &a, &res, &err);
	check_same("learned", r, &res, &err, fr, &fres, &ferr, fresh_pool, fresh_used);
	if (r != 0) {
		/* A rejection always names its rule. */
		if (r != -1 || err.rule == PM4V_OK || !err.msg[0])
			abort();
		if (getenv("FERRY_FUZZ_VERBOSE")) /* to check that seeds pass */
			fprintf(stderr, "rejected: %s\n", err.msg);
	} else {
		run_on_cp(&res);
	}
	memset(fx->pool, 0, fx->pool_used);
	return 0;
}
