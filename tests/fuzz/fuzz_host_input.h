/* The input layout of fuzz_host, shared by the target and the seed generator: one byte choosing
 * the simulated GPU (bit 0) and the form of what follows (bit 1), then records:
 *  - frames: a u16 little-endian length and that many payload bytes (a wire frame without its
 *    u32 length prefix), for the decoder's and the handlers' view of arbitrary bytes;
 *  - structured: a request as the guest library would encode it (FH_STRUCTURED), so mutations
 *    change field values and array contents instead of mostly breaking the FlatBuffer. */
#ifndef FERRY_FUZZ_HOST_INPUT_H
#define FERRY_FUZZ_HOST_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ferry/wire.h"
#include "v3d_cl_builder.h"

static const char *const fh_gpus[] = { "a630", "v3d-4.2" };
#define FH_NR_GPUS 2u
#define FH_MAX_FRAMES 64u
#define FH_STRUCTURED 0x2u

/* The requests a structured record can be. */
static const enum ferry_msg_kind fh_kinds[] = {
	FERRY_MSG_HELLO, FERRY_MSG_DEVICE_QUERY, FERRY_MSG_CONTEXT_CREATE, FERRY_MSG_CONTEXT_DESTROY,
	FERRY_MSG_QUEUE_CREATE, FERRY_MSG_QUEUE_CLOSE, FERRY_MSG_BO_CREATE, FERRY_MSG_BO_CLOSE, FERRY_MSG_BO_INFO,
	FERRY_MSG_BO_CPU_PREP, FERRY_MSG_MSM_SUBMIT, FERRY_MSG_FENCE_WAIT, FERRY_MSG_V3D_SUBMIT_CL,
	FERRY_MSG_V3D_SUBMIT_TFU, FERRY_MSG_V3D_SUBMIT_CSD, FERRY_MSG_BO_IMPORT, FERRY_MSG_TIMESTAMP_QUERY,
	FERRY_MSG_EXTERNAL_FENCE,
};
#define FH_NR_KINDS (sizeof(fh_kinds) / sizeof(fh_kinds[0]))

/* A structured record: u8 kind (index into fh_kinds), u32 seq, u8 field bytes, 4 x u16 array
 * bytes, then the message's union bytes (its fields; pointer values in them are ignored) and
 * the bytes of up to four arrays: msm submit bos, cmds, relocs, in_fences; V3D submit bo_ids,
 * in_fences; hello token. Counts are clamped to what the arrays hold. */
#define FH_NR_ARRAYS 4
#define FH_ARRAY_MAX 4096u
struct fh_record {
	struct ferry_msg m;
	uint64_t arrays[FH_NR_ARRAYS][FH_ARRAY_MAX / 8 + 1];
	size_t array_len[FH_NR_ARRAYS];
};

static inline uint32_t fh_fit(uint32_t n, size_t bytes, size_t elem)
{
	return n < bytes / elem ? n : (uint32_t)(bytes / elem);
}

/* The next structured record at *pos: 1 with *r filled, 0 at the end. */
static inline int fh_next_record(const uint8_t *data, size_t size, size_t *pos, struct fh_record *r)
{
	const size_t hdr = 1 + 4 + 1 + 2 * FH_NR_ARRAYS;
	if (size - *pos < hdr)
		return 0;
	const uint8_t *h = data + *pos;
	size_t need = h[5];
	for (int i = 0; i < FH_NR_ARRAYS; i++)
		need += (size_t)h[6 + 2 * i] | (size_t)h[7 + 2 * i] << 8;
	if (size - *pos - hdr < need)
		return 0;
	memset(&r->m, 0, sizeof(r->m));
	r->m.kind = fh_kinds[h[0] % FH_NR_KINDS];
	memcpy(&r->m.seq, h + 1, 4);
	const uint8_t *p = h + hdr;
	size_t n = h[5] < sizeof(r->m.u) ? h[5] : sizeof(r->m.u);
	memcpy(&r->m.u, p, n);
	p += h[5];
	for (int i = 0; i < FH_NR_ARRAYS; i++) {
		size_t len = (size_t)h[6 + 2 * i] | (size_t)h[7 + 2 * i] << 8;
		r->array_len[i] = len < FH_ARRAY_MAX ? len : FH_ARRAY_MAX;
		memset(r->arrays[i], 0, sizeof(r->arrays[i]));
		memcpy(r->arrays[i], p, r->array_len[i]);
		p += len;
	}
	*pos += hdr + need;

	/* The message's pointers: into the arrays, counts clamped to them. */
	struct ferry_msg *m = &r->m;
	const void *a0 = r->arrays[0], *a1 = r->arrays[1], *a2 = r->arrays[2], *a3 = r->arrays[3];
	switch (m->kind) {
	case FERRY_MSG_HELLO:
		m->u.hello.token = r->array_len[0] ? (const char *)a0 : NULL; /* NUL-terminated: one spare word */
		break;
	case FERRY_MSG_MSM_SUBMIT: {
		struct ferry_msm_submit *s = &m->u.msm_submit;
		s->nr_bos = fh_fit(s->nr_bos, r->array_len[0], sizeof(*s->bos));
		s->nr_cmds = fh_fit(s->nr_cmds, r->array_len[1], sizeof(*s->cmds));
		s->nr_relocs = fh_fit(s->nr_relocs, r->array_len[2], sizeof(*s->relocs));
		s->nr_in_fences = fh_fit(s->nr_in_fences, r->array_len[3], sizeof(*s->in_fences));
		s->bos = a0;
		s->cmds = a1;
		s->relocs = a2;
		s->in_fences = a3;
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_CL:
		m->u.v3d_submit_cl.nr_bos = fh_fit(m->u.v3d_submit_cl.nr_bos, r->array_len[0], 4);
		m->u.v3d_submit_cl.nr_in_fences = fh_fit(m->u.v3d_submit_cl.nr_in_fences, r->array_len[1],
							  sizeof(struct ferry_fence_ref));
		m->u.v3d_submit_cl.bo_ids = a0;
		m->u.v3d_submit_cl.in_fences = a1;
		break;
	case FERRY_MSG_V3D_SUBMIT_TFU:
		m->u.v3d_submit_tfu.nr_bos = fh_fit(m->u.v3d_submit_tfu.nr_bos, r->array_len[0], 4);
		m->u.v3d_submit_tfu.nr_in_fences = fh_fit(m->u.v3d_submit_tfu.nr_in_fences, r->array_len[1],
							   sizeof(struct ferry_fence_ref));
		m->u.v3d_submit_tfu.bo_ids = a0;
		m->u.v3d_submit_tfu.in_fences = a1;
		break;
	case FERRY_MSG_V3D_SUBMIT_CSD:
		m->u.v3d_submit_csd.nr_bos = fh_fit(m->u.v3d_submit_csd.nr_bos, r->array_len[0], 4);
		m->u.v3d_submit_csd.nr_in_fences = fh_fit(m->u.v3d_submit_csd.nr_in_fences, r->array_len[1],
							   sizeof(struct ferry_fence_ref));
		m->u.v3d_submit_csd.bo_ids = a0;
		m->u.v3d_submit_csd.in_fences = a1;
		break;
	default:
		break; /* no pointers */
	}
	(void)a2;
	(void)a3;
	return 1;
}

/* The next frame at *pos: 1 with *payload and *len set, 0 at the end (a truncated frame ends the input). */
static inline int fh_next_frame(const uint8_t *data, size_t size, size_t *pos, const uint8_t **payload, size_t *len)
{
	if (size - *pos < 2)
		return 0;
	size_t n = (size_t)data[*pos] | (size_t)data[*pos + 1] << 8;
	if (size - *pos - 2 < n)
		return 0;
	*payload = data + *pos + 2;
	*len = n;
	*pos += 2 + n;
	return 1;
}

/* What every V3D BO of fuzz_host starts with, as the guest would have written it (the input
 * cannot write BOs): a render list of a 16 x 16 frame that does nothing, so a submit's rcl can
 * point at it and pass validation. Returns its length (0 if it does not fit). */
static inline uint32_t fh_v3d_rcl(uint8_t *p, uint32_t cap)
{
	struct v3d_clb b;
	v3d_clb_init(&b, 42, p, cap, 0);
	struct v3d_clb_rendering common = { .width = 16, .height = 16, .num_rts = 1, .early_z_disable = true,
					    .tile_w = 64, .tile_h = 64 };
	struct v3d_clb_rt42 rts[4] = { { 0, V3D_INTERNAL_TYPE_8UI, 0 } };
	v3d_clb_rendering_mode_common(&b, &common);
	v3d42_clb_rendering_mode_color(&b, rts);
	v3d_clb_op(&b, V3D_CL_END_OF_RENDERING);
	return v3d_clb_ok(&b) ? b.len : 0;
}

#endif
