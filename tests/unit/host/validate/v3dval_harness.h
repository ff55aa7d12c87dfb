/* Test harness for the V3D validator: a context of fake BOs (host memory at chosen global
 * addresses), a shadow allocator that gives every shadow its own exactly-sized region (so the
 * CLE's read-ahead past a shadow faults unless the validator allocated the slack), a GPU memory
 * view over both for the simulated CLE, and helpers to run a submit. */
#ifndef FERRY_TESTS_V3DVAL_HARNESS_H
#define FERRY_TESTS_V3DVAL_HARNESS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "v3d_cl_builder.h"
#include "v3d_cle.h"
#include "v3d_validate.h"

#define H_MAX_BOS 32
#define H_MAX_SHADOWS 256
#define H_SHADOW_BASE 0xC0000000u

struct h_region {
	uint32_t addr, size;
	uint8_t *data;
};

struct harness {
	int ver;
	struct v3dval_bo bos[H_MAX_BOS];   /* the context's BOs, sorted */
	uint8_t *mem[H_MAX_BOS];
	uint32_t nr_bos;
	struct h_region foreign[4];        /* another context's BOs: GPU-visible, not in bos[] */
	uint32_t nr_foreign;
	struct h_region shadows[H_MAX_SHADOWS];
	uint32_t nr_shadows;
	uint32_t next_shadow;
	int fail_alloc_at;                 /* fail the n-th allocation (1-based), 0 never */
	uint32_t misalign;                 /* added to shadow addresses */
	struct v3dval *val;
	struct v3dval_policy policy;
	struct v3dval_cl_result res;
	struct v3dval_error err;
};

static inline void h_init(struct harness *h, int ver)
{
	memset(h, 0, sizeof(*h));
	h->ver = ver;
	h->next_shadow = H_SHADOW_BASE;
	v3dval_policy_default(&h->policy, ver);
	h->val = v3dval_create(&h->policy);
	REQUIRE(h->val);
}

/* Re-creates the validator after a policy change. */
static inline void h_set_policy(struct harness *h)
{
	v3dval_destroy(h->val);
	h->val = v3dval_create(&h->policy);
	REQUIRE(h->val);
}

static inline void h_free_shadows(struct harness *h)
{
	for (uint32_t i = 0; i < h->nr_shadows; i++)
		free(h->shadows[i].data);
	h->nr_shadows = 0;
	h->next_shadow = H_SHADOW_BASE;
}

static inline void h_fini(struct harness *h)
{
	for (uint32_t i = 0; i < h->nr_bos; i++)
		free(h->mem[i]);
	for (uint32_t i = 0; i < h->nr_foreign; i++)
		free(h->foreign[i].data);
	h_free_shadows(h);
	v3dval_destroy(h->val);
}

/* Adds a BO (addresses must be added in increasing order); returns its host memory. readable:
 * whether the host has a mapping (the validator's map pointer). */
static inline uint8_t *h_bo_ex(struct harness *h, uint32_t addr, uint32_t size, bool readable)
{
	REQUIRE(h->nr_bos < H_MAX_BOS);
	uint8_t *p = calloc(1, size);
	REQUIRE(p);
	h->bos[h->nr_bos] = (struct v3dval_bo){ addr, size, readable ? p : NULL, 100 + h->nr_bos };
	h->mem[h->nr_bos++] = p;
	return p;
}
static inline uint8_t *h_bo(struct harness *h, uint32_t addr, uint32_t size) { return h_bo_ex(h, addr, size, true); }

static inline uint8_t *h_foreign(struct harness *h, uint32_t addr, uint32_t size)
{
	REQUIRE(h->nr_foreign < 4);
	uint8_t *p = calloc(1, size);
	REQUIRE(p);
	h->foreign[h->nr_foreign++] = (struct h_region){ addr, size, p };
	return p;
}

static inline int h_bo_index(const struct harness *h, uint32_t addr)
{
	for (uint32_t i = 0; i < h->nr_bos; i++)
		if (addr >= h->bos[i].addr && addr - h->bos[i].addr < h->bos[i].size)
			return (int)i;
	return -1;
}

/* The host bytes at a context address. */
static inline uint8_t *h_ptr(struct harness *h, uint32_t addr)
{
	int i = h_bo_index(h, addr);
	REQUIRE(i >= 0);
	return h->mem[i] + (addr - h->bos[i].addr);
}

static inline int h_alloc(void *ctx, uint32_t size, struct v3dval_shadow *out)
{
	struct harness *h = ctx;
	if (h->fail_alloc_at && (int)h->nr_shadows + 1 == h->fail_alloc_at)
		return -ENOSPC;
	if (h->nr_shadows >= H_MAX_SHADOWS)
		return -ENOSPC;
	uint8_t *p = malloc(size ? size : 1);
	if (!p)
		return -ENOMEM;
	memset(p, 0xa5, size); /* the validator must zero what it relies on */
	struct h_region *r = &h->shadows[h->nr_shadows++];
	r->addr = h->next_shadow + h->misalign;
	r->size = size;
	r->data = p;
	/* a 64 KiB unmapped gap after each shadow: read-ahead past it faults */
	h->next_shadow += ((size + 0xffffu) & ~0xffffu) + 0x10000u;
	out->addr = r->addr;
	out->map = p;
	return 0;
}

static inline struct h_region *h_shadow_at(struct harness *h, uint32_t addr)
{
	for (uint32_t i = 0; i < h->nr_shadows; i++)
		if (addr >= h->shadows[i].addr && addr - h->shadows[i].addr < h->shadows[i].size)
			return &h->shadows[i];
	return NULL;
}

static inline uint8_t *h_shadow_ptr(struct harness *h, uint32_t addr)
{
	struct h_region *r = h_shadow_at(h, addr);
	REQUIRE(r);
	return r->data + (addr - r->addr);
}

/* ---- GPU memory for the CLE: context BOs, foreign BOs and shadows --------------------------- */

static inline uint8_t *h_gpu_find(struct harness *h, uint32_t addr, uint32_t len)
{
	for (uint32_t i = 0; i < h->nr_bos; i++)
		if (addr >= h->bos[i].addr && (uint64_t)addr + len <= (uint64_t)h->bos[i].addr + h->bos[i].size)
			return h->mem[i] + (addr - h->bos[i].addr);
	for (uint32_t i = 0; i < h->nr_foreign; i++)
		if (addr >= h->foreign[i].addr && (uint64_t)addr + len <= (uint64_t)h->foreign[i].addr + h->foreign[i].size)
			return h->foreign[i].data + (addr - h->foreign[i].addr);
	for (uint32_t i = 0; i < h->nr_shadows; i++)
		if (addr >= h->shadows[i].addr && (uint64_t)addr + len <= (uint64_t)h->shadows[i].addr + h->shadows[i].size)
			return h->shadows[i].data + (addr - h->shadows[i].addr);
	return NULL;
}

static inline int h_gpu_read(void *ctx, uint32_t addr, void *dst, uint32_t len)
{
	uint8_t *p = h_gpu_find(ctx, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(dst, p, len);
	return 0;
}

static inline int h_gpu_write(void *ctx, uint32_t addr, const void *src, uint32_t len)
{
	uint8_t *p = h_gpu_find(ctx, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(p, src, len);
	return 0;
}

/* ---- running the validator -------------------------------------------------------------------- */

struct h_job {
	uint32_t bcl_start, bcl_end, rcl_start, rcl_end, qma, qms, qts;
	const struct v3dval_reloc *relocs;
	uint32_t nr_relocs;
};

/* Validates (shadows of earlier runs are dropped first); returns 0 or the rule. */
static inline int h_validate(struct harness *h, const struct h_job *j)
{
	h_free_shadows(h);
	struct v3dval_cl_submit s = {
		.bos = h->bos, .nr_bos = h->nr_bos,
		.bcl_start = j->bcl_start, .bcl_end = j->bcl_end, .rcl_start = j->rcl_start, .rcl_end = j->rcl_end,
		.qma = j->qma, .qms = j->qms, .qts = j->qts, .relocs = j->relocs, .nr_relocs = j->nr_relocs,
	};
	struct v3dval_shadow_allocator a = { h_alloc, h };
	memset(&h->err, 0, sizeof(h->err));
	if (v3dval_validate_cl(h->val, &s, &a, &h->res, &h->err) == 0)
		return 0;
	CHECK(h->err.rule != V3DVAL_OK);
	CHECK(h->err.msg[0] != '\0');
	return (int)h->err.rule;
}

static inline bool h_contains(const char *msg, const char *text) { return !text || strstr(msg, text); }
/* For a message: text may be a NULL literal (no substring asked for). */
static inline const char *h_or_none(const char *text) { return text ? text : "(none)"; }

/* Checks a rejection: the rule, and (when given) a substring of the message. */
#define H_REJECT(h, job, rule_, text)                                                                  \
	do {                                                                                          \
		int _r = h_validate((h), (job));                                                      \
		CHECK_EQ(_r, (rule_));                                                                \
		if (_r != (int)(rule_))                                                               \
			fprintf(stderr, "  ver %d: got \"%s\"\n", (h)->ver, (h)->err.msg);            \
		else if (!h_contains((h)->err.msg, (text))) {                                         \
			fprintf(stderr, "  ver %d: message \"%s\" lacks \"%s\"\n", (h)->ver, (h)->err.msg, h_or_none(text)); \
			CHECK(0);                                                                     \
		}                                                                                     \
	} while (0)

#define H_ACCEPT(h, job)                                                                              \
	do {                                                                                          \
		int _r = h_validate((h), (job));                                                      \
		CHECK_EQ(_r, 0);                                                                      \
		if (_r)                                                                               \
			fprintf(stderr, "  ver %d: rejected: %s\n", (h)->ver, (h)->err.msg);          \
	} while (0)

/* Runs the shadow bin then render list on the CLE; returns the render status (bin must finish). */
static inline enum v3d_cle_status h_run(struct harness *h, struct v3d_cle_fault *fault_out)
{
	struct v3d_cle_mem mem = { h, h_gpu_read, h_gpu_write };
	struct v3d_cle *bin = v3d_cle_create(h->ver), *render = v3d_cle_create(h->ver);
	REQUIRE(bin && render);
	struct v3d_cle_semaphore sem = { 0 };
	enum v3d_cle_status st = V3D_CLE_DONE;
	if (h->res.bcl_start != h->res.bcl_end) {
		struct v3d_cle_bin_regs regs = { h->res.qma, h->res.qms, h->res.qts };
		v3d_cle_start(bin, V3D_CLE_BIN, h->res.bcl_start, h->res.bcl_end, &regs, &sem);
		for (int i = 0; i < 100000 && (st = v3d_cle_run(bin, &mem, 256)) == V3D_CLE_YIELD; i++)
			;
	}
	if (st == V3D_CLE_DONE) {
		v3d_cle_start(render, V3D_CLE_RENDER, h->res.rcl_start, h->res.rcl_end, NULL, &sem);
		for (int i = 0; i < 100000 && (st = v3d_cle_run(render, &mem, 256)) == V3D_CLE_YIELD; i++)
			;
	}
	const struct v3d_cle_fault *f = v3d_cle_fault(st == V3D_CLE_DONE ? render : render);
	if (!f)
		f = v3d_cle_fault(bin);
	if (fault_out)
		*fault_out = f ? *f : (struct v3d_cle_fault){ 0 };
	v3d_cle_destroy(bin);
	v3d_cle_destroy(render);
	return st;
}

/* ---- list building ------------------------------------------------------------------------------ */

static inline void h_clb(struct harness *h, struct v3d_clb *b, uint32_t addr, uint32_t cap)
{
	v3d_clb_init(b, h->ver, h_ptr(h, addr), cap, addr);
}

/* A minimal render list: Common config (w x h, RT0 32 bpp), RT config, then the caller's packets,
 * then END_OF_RENDERING via h_rcl_end(). */
static inline void h_rcl_begin(struct harness *h, struct v3d_clb *b, uint32_t w, uint32_t hgt)
{
	struct v3d_clb_rendering common = { .width = w, .height = hgt, .num_rts = 1, .max_bpp = 0,
					    .early_z_disable = true, .tile_w = 64, .tile_h = 64 };
	v3d_clb_rendering_mode_common(b, &common);
	if (h->ver == 42) {
		struct v3d_clb_rt42 rts[4] = { { 0, V3D_INTERNAL_TYPE_8UI, 0 } };
		v3d42_clb_rendering_mode_color(b, rts);
	} else {
		v3d71_clb_render_target(b, 0, 0, V3D71_RT_8UI, 64, NULL);
	}
}

static inline void h_rcl_end(struct v3d_clb *b) { v3d_clb_op(b, V3D_CL_END_OF_RENDERING); }

/* A raster RGBA8UI store or load of RT0. */
static inline void h_ls(struct v3d_clb *b, bool store, uint32_t addr, uint32_t stride)
{
	struct v3d_clb_ls ls = { .buffer = V3D_CL_BUFFER_RT0, .memory_format = V3D_CL_MEMORY_RASTER,
				 .image_format = V3D_CL_FMT_RGBA8UI, .stride = stride, .addr = addr };
	if (store)
		v3d_clb_store(b, &ls);
	else
		v3d_clb_load(b, &ls);
}

#endif
