/* libFuzzer target for the V3D validator and the simulated CLE / TFU: the input is one SUBMIT_CL
 * (or TFU, or CSD) job in a small fixed BO set; what the validator accepts runs on the model, and
 * a CL job gets the same answer from a fresh validator as from the one that met every input. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_v3d_input.h"
#include "sim/v3d/v3d_cle.h"
#include "sim/v3d/v3d_tfu.h"
#include "v3d_validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SHADOWS 64u
#define SHADOW_BASE 0xC0000000u

struct region {
	uint32_t addr, size;
	uint8_t *data;
};

struct fuzz_ctx {
	struct v3dval_bo bos[FV_NR_BOS];
	uint8_t *mem[FV_NR_BOS];
	struct region shadows[MAX_SHADOWS];
	uint32_t nr_shadows, next_shadow;
	struct v3dval *val[2]; /* 4.2, 7.1 */
	struct v3d_cle *cle[2][2]; /* [version][bin, render] */
};

static struct fuzz_ctx *fx;

static void fuzz_init(void)
{
	static const uint32_t addr[FV_NR_BOS] = { FV_CL_ADDR, FV_DATA_ADDR, FV_NOMAP_ADDR };
	static const uint32_t size[FV_NR_BOS] = { FV_CL_SIZE, FV_DATA_SIZE, FV_NOMAP_SIZE };
	/* One context for the whole run (libFuzzer never returns); zeroed per input instead. */
	fx = calloc(1, sizeof(*fx));
	if (!fx)
		abort();
	for (int i = 0; i < FV_NR_BOS; i++) {
		fx->mem[i] = calloc(1, size[i]);
		if (!fx->mem[i])
			abort();
		fx->bos[i] = (struct v3dval_bo){ addr[i], size[i], i == FV_BO_NOMAP ? NULL : fx->mem[i], 100u + (uint32_t)i };
	}
	for (int v = 0; v < 2; v++) {
		struct v3dval_policy p;
		v3dval_policy_default(&p, v ? 71 : 42);
		fx->val[v] = v3dval_create(&p);
		fx->cle[v][0] = v3d_cle_create(v ? 71 : 42);
		fx->cle[v][1] = v3d_cle_create(v ? 71 : 42);
		if (!fx->val[v] || !fx->cle[v][0] || !fx->cle[v][1])
			abort();
	}
}

static int shadow_alloc(void *ctx, uint32_t size, struct v3dval_shadow *out)
{
	struct fuzz_ctx *c = ctx;
	if (c->nr_shadows >= MAX_SHADOWS || size > (64u << 20))
		return -ENOSPC;
	uint8_t *p = malloc(size ? size : 1);
	if (!p)
		return -ENOMEM;
	/* Garbage, not zeros: the validator must zero whatever the CLE may read. */
	memset(p, 0xa5, size);
	c->shadows[c->nr_shadows++] = (struct region){ c->next_shadow, size, p };
	out->addr = c->next_shadow;
	out->map = p;
	/* An unmapped gap after each shadow, so reading past one faults. */
	c->next_shadow += ((size + 0xffffu) & ~0xffffu) + 0x10000u;
	return 0;
}

static uint8_t *gpu_find(struct fuzz_ctx *c, uint32_t addr, uint32_t len)
{
	for (int i = 0; i < FV_NR_BOS; i++)
		if (addr >= c->bos[i].addr && (uint64_t)addr + len <= (uint64_t)c->bos[i].addr + c->bos[i].size)
			return c->mem[i] + (addr - c->bos[i].addr);
	for (uint32_t i = 0; i < c->nr_shadows; i++)
		if (addr >= c->shadows[i].addr && (uint64_t)addr + len <= (uint64_t)c->shadows[i].addr + c->shadows[i].size)
			return c->shadows[i].data + (addr - c->shadows[i].addr);
	return NULL;
}

static int gpu_read(void *ctx, uint32_t addr, void *dst, uint32_t len)
{
	uint8_t *p = gpu_find(ctx, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(dst, p, len);
	return 0;
}

static int gpu_write(void *ctx, uint32_t addr, const void *src, uint32_t len)
{
	uint8_t *p = gpu_find(ctx, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(p, src, len);
	return 0;
}

/* A validated list may still stop the CLE on what the validator leaves to the GPU (packets the
 * model does not execute, geometry that does not add up), but never by touching memory outside
 * the context's BOs and the shadows, or by a list the CLE parses differently from the validator. */
static void check_stop(const char *list, enum v3d_cle_status st, const struct v3d_cle *cle)
{
	static const char *const parse_errors[] = {
		"unknown opcode", "sub-list nested in a sub-list (one return register)",
		"Return from sub-list with no sub-list", "tile allocation memory smaller than the initial tile-list blocks",
	};
	if (st != V3D_CLE_FAULT && st != V3D_CLE_ERROR)
		return;
	const struct v3d_cle_fault *f = v3d_cle_fault(cle);
	bool bad = st == V3D_CLE_FAULT;
	for (size_t i = 0; i < sizeof(parse_errors) / sizeof(parse_errors[0]); i++)
		bad |= strcmp(f->what, parse_errors[i]) == 0;
	if (bad || getenv("FERRY_FUZZ_VERBOSE"))
		fprintf(stderr, "validated %s list stopped: %s at 0x%08x (%s, packet 0x%08x opcode %u)\n", list, f->what,
			f->addr, f->write ? "write" : "read", f->packet_addr, f->opcode);
	if (bad)
		abort();
}

/* Bin then render, each with a bounded budget: an accepted list may still run long (a tile walk
 * over a big frame), which is the hangcheck's business, not the fuzzer's. */
static void run_cl(int v, const struct v3dval_cl_result *res)
{
	struct v3d_cle_mem mem = { fx, gpu_read, gpu_write };
	struct v3d_cle_semaphore sem = { 0 };
	enum v3d_cle_status st = V3D_CLE_DONE;
	if (res->bcl_start != res->bcl_end) {
		struct v3d_cle_bin_regs regs = { res->qma, res->qms, res->qts };
		v3d_cle_start(fx->cle[v][0], V3D_CLE_BIN, res->bcl_start, res->bcl_end, &regs, &sem);
		st = V3D_CLE_YIELD;
		for (int i = 0; i < 64 && st == V3D_CLE_YIELD; i++)
			st = v3d_cle_run(fx->cle[v][0], &mem, 256);
		check_stop("bin", st, fx->cle[v][0]);
	}
	if (st != V3D_CLE_DONE)
		return;
	v3d_cle_start(fx->cle[v][1], V3D_CLE_RENDER, res->rcl_start, res->rcl_end, NULL, &sem);
	st = V3D_CLE_YIELD;
	for (int i = 0; i < 64 && st == V3D_CLE_YIELD; i++)
		st = v3d_cle_run(fx->cle[v][1], &mem, 256);
	check_stop("render", st, fx->cle[v][1]);
}

static void check_rejection(int r, const struct v3dval_error *err)
{
	/* A rejection always names its rule. */
	if (r != -1 || err->rule == V3DVAL_OK || !err->msg[0])
		abort();
	if (getenv("FERRY_FUZZ_VERBOSE")) /* to check that seeds pass */
		fprintf(stderr, "rejected: %s\n", err->msg);
}

/* What a validator answered, to hold against another's. */
struct answer {
	int r;
	struct v3dval_cl_result res;
	struct v3dval_error err;
};

/* The long-lived validator has learned from every earlier input which opcodes pass on their
 * list test alone, walks runs of them at once and remembers the last run (plain_run): none of
 * that may change an answer, so a validator that has learned nothing must give the same. */
static void check_same(const struct answer *learned, const struct answer *fresh)
{
	bool same = learned->r == fresh->r;
	if (same && learned->r)
		same = learned->err.rule == fresh->err.rule && strcmp(learned->err.msg, fresh->err.msg) == 0;
	else if (same)
		same = learned->res.bytes == fresh->res.bytes && learned->res.packets == fresh->res.packets &&
		       learned->res.nr_segments == fresh->res.nr_segments &&
		       learned->res.nr_blocks == fresh->res.nr_blocks &&
		       learned->res.relocs_applied == fresh->res.relocs_applied;
	if (!same) {
		fprintf(stderr, "learned validator: %d \"%s\"; fresh one: %d \"%s\"\n", learned->r,
			learned->r ? learned->err.msg : "", fresh->r, fresh->r ? fresh->err.msg : "");
		abort();
	}
}

static void fuzz_cl(const struct fv_input *in)
{
	int v = in->ver == 71;
	struct v3dval_cl_submit s = {
		.bos = fx->bos, .nr_bos = FV_NR_BOS,
		.bcl_start = in->h.bcl_start, .bcl_end = in->h.bcl_end,
		.rcl_start = in->h.rcl_start, .rcl_end = in->h.rcl_end,
		.qma = in->h.qma, .qms = in->h.qms, .qts = in->h.qts,
		.relocs = in->relocs, .nr_relocs = in->nr_relocs,
	};
	struct v3dval_shadow_allocator a = { shadow_alloc, fx };
	struct v3dval_policy p;
	v3dval_policy_default(&p, in->ver);
	struct v3dval *fresh = v3dval_create(&p);
	if (!fresh)
		abort();
	struct answer first, learned;
	first.r = v3dval_validate_cl(fresh, &s, &a, &first.res, &first.err);
	v3dval_destroy(fresh);
	for (uint32_t i = 0; i < fx->nr_shadows; i++)
		free(fx->shadows[i].data);
	fx->nr_shadows = 0;
	fx->next_shadow = SHADOW_BASE;
	learned.r = v3dval_validate_cl(fx->val[v], &s, &a, &learned.res, &learned.err);
	check_same(&learned, &first);
	if (learned.r)
		check_rejection(learned.r, &learned.err);
	else
		run_cl(v, &learned.res);
}

static void fuzz_tfu(const struct fv_input *in)
{
	struct v3d_tfu_regs regs = { 0 }, out;
	memcpy(&regs, in->cl, in->cl_len < sizeof(regs) ? in->cl_len : sizeof(regs));
	struct v3dval_error err;
	int r = v3dval_validate_tfu(in->ver, fx->bos, FV_NR_BOS, &regs, in->relocs, in->nr_relocs, &out, &err);
	if (r) {
		check_rejection(r, &err);
		return;
	}
	struct v3d_tfu_regs t = { out.icfg, out.iia, out.iis, out.ica, out.iua, out.ioa, out.ios,
				  { out.coef[0], out.coef[1], out.coef[2], out.coef[3] }, out.ioc };
	struct v3d_cle_mem mem = { fx, gpu_read, gpu_write };
	struct v3d_tfu_result res;
	v3d_tfu_run(in->ver, &t, &mem, &res);
}

static void fuzz_csd(const struct fv_input *in)
{
	uint32_t cfg[8] = { 0 }, out[8];
	memcpy(cfg, in->cl, in->cl_len < sizeof(cfg) ? in->cl_len : sizeof(cfg));
	struct v3dval_error err;
	int r = v3dval_validate_csd(in->ver, fx->bos, FV_NR_BOS, cfg, in->relocs, in->nr_relocs, out, &err);
	if (r)
		check_rejection(r, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fx)
		fuzz_init();
	struct fv_input in;
	if (fv_parse(data, size, &in) != 0)
		return 0;
	memset(fx->mem[FV_BO_CL], 0, FV_CL_SIZE);
	memset(fx->mem[FV_BO_DATA], 0, FV_DATA_SIZE);
	memset(fx->mem[FV_BO_NOMAP], 0, FV_NOMAP_SIZE);
	memcpy(fx->mem[FV_BO_CL], in.cl, in.cl_len);
	fx->next_shadow = SHADOW_BASE;
	if (in.job == FV_JOB_TFU)
		fuzz_tfu(&in);
	else if (in.job == FV_JOB_CSD)
		fuzz_csd(&in);
	else
		fuzz_cl(&in);
	for (uint32_t i = 0; i < fx->nr_shadows; i++)
		free(fx->shadows[i].data);
	fx->nr_shadows = 0;
	return 0;
}
