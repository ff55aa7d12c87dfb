/* Writes the fuzz targets' seed corpora from the tests' own traffic: fuzz_seeds TARGET DIR, where
 * TARGET is decode, host, pm4, v3d, capture or shim (the builders, wire samples and ioctl
 * sequences the unit tests use). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <drm.h>

#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"
#include "ferry/hw/v3d_cl.h"
#include "ferry/wire.h"
#include "fuzz_host_input.h"
#include "fuzz_pm4_input.h"
#include "fuzz_v3d_input.h"
#include "pm4_builder.h"
#include "rd_file.h"
#include "rd_writer.h"
#include "ferry/session_file.h"
#include "v3d_cl_builder.h"
#include "wire_samples.h"

static const char *out_dir;
static unsigned nr_written;

static void write_seed(const char *name, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
		exit(1);
	}
	nr_written++;
}

/* One message's frame payload (no u32 length prefix) appended to b. */
static void add_payload(struct ferry_buf *b, const struct ferry_msg *m, int with_len16)
{
	struct ferry_buf e;
	ferry_buf_init(&e);
	if (ferry_wire_encode(m, &e) != 0) {
		fprintf(stderr, "fuzz_seeds: cannot encode kind %d\n", m->kind);
		exit(1);
	}
	size_t n = e.len - FERRY_FRAME_HDR_SIZE;
	if (with_len16) {
		uint8_t len16[2] = { (uint8_t)n, (uint8_t)(n >> 8) };
		if (n > 0xffff || ferry_buf_append(b, len16, 2) != 0)
			exit(1);
	}
	if (ferry_buf_append(b, e.data + FERRY_FRAME_HDR_SIZE, n) != 0)
		exit(1);
	ferry_buf_free(&e);
}

/* ---- decode: every sample message of the wire codec tests ---- */
static void seeds_decode(void)
{
	for (int k = FERRY_MSG_NONE + 1; k < FERRY_MSG_KIND_COUNT; k++) {
		struct ferry_msg m;
		sample_msg((enum ferry_msg_kind)k, &m);
		struct ferry_buf b;
		ferry_buf_init(&b);
		add_payload(&b, &m, 0);
		char name[32];
		snprintf(name, sizeof(name), "msg-%02d", k);
		write_seed(name, b.data, b.len);
		ferry_buf_free(&b);
	}
}

/* ---- host: sessions as the host tests drive them, as frames and as structured records ---- */
static int host_structured;

/* m as a structured record (fuzz_host_input.h): its kind's index, seq, union bytes, arrays. */
static void add_record(struct ferry_buf *b, const struct ferry_msg *m)
{
	const void *arr[FH_NR_ARRAYS] = { NULL };
	size_t len[FH_NR_ARRAYS] = { 0 };
	switch (m->kind) {
	case FERRY_MSG_HELLO:
		if (m->u.hello.token) {
			arr[0] = m->u.hello.token;
			len[0] = strlen(m->u.hello.token);
		}
		break;
	case FERRY_MSG_MSM_SUBMIT: {
		const struct ferry_msm_submit *s = &m->u.msm_submit;
		arr[0] = s->bos, len[0] = s->nr_bos * sizeof(*s->bos);
		arr[1] = s->cmds, len[1] = s->nr_cmds * sizeof(*s->cmds);
		arr[2] = s->relocs, len[2] = s->nr_relocs * sizeof(*s->relocs);
		arr[3] = s->in_fences, len[3] = s->nr_in_fences * sizeof(*s->in_fences);
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_CL:
		arr[0] = m->u.v3d_submit_cl.bo_ids, len[0] = m->u.v3d_submit_cl.nr_bos * 4u;
		arr[1] = m->u.v3d_submit_cl.in_fences, len[1] = m->u.v3d_submit_cl.nr_in_fences * sizeof(struct ferry_fence_ref);
		break;
	case FERRY_MSG_V3D_SUBMIT_TFU:
		arr[0] = m->u.v3d_submit_tfu.bo_ids, len[0] = m->u.v3d_submit_tfu.nr_bos * 4u;
		arr[1] = m->u.v3d_submit_tfu.in_fences, len[1] = m->u.v3d_submit_tfu.nr_in_fences * sizeof(struct ferry_fence_ref);
		break;
	case FERRY_MSG_V3D_SUBMIT_CSD:
		arr[0] = m->u.v3d_submit_csd.bo_ids, len[0] = m->u.v3d_submit_csd.nr_bos * 4u;
		arr[1] = m->u.v3d_submit_csd.in_fences, len[1] = m->u.v3d_submit_csd.nr_in_fences * sizeof(struct ferry_fence_ref);
		break;
	default:
		break;
	}
	uint8_t kind = 0;
	while (kind < FH_NR_KINDS && fh_kinds[kind] != m->kind)
		kind++;
	if (kind == FH_NR_KINDS)
		return; /* not a request */
	uint8_t hdr[1 + 4 + 1 + 2 * FH_NR_ARRAYS] = { kind };
	memcpy(hdr + 1, &m->seq, 4);
	hdr[5] = (uint8_t)sizeof(m->u);
	for (int i = 0; i < FH_NR_ARRAYS; i++) {
		hdr[6 + 2 * i] = (uint8_t)len[i];
		hdr[7 + 2 * i] = (uint8_t)(len[i] >> 8);
	}
	if (ferry_buf_append(b, hdr, sizeof(hdr)) || ferry_buf_append(b, &m->u, sizeof(m->u)))
		exit(1);
	for (int i = 0; i < FH_NR_ARRAYS; i++)
		if (len[i] && ferry_buf_append(b, arr[i], len[i]))
			exit(1);
}

static void host_msg(struct ferry_buf *b, struct ferry_msg *m, uint32_t *seq)
{
	m->seq = (*seq)++;
	if (host_structured)
		add_record(b, m);
	else
		add_payload(b, m, 1);
}

static void session_start(struct ferry_buf *b, uint32_t *seq, int gpu, uint32_t family)
{
	uint8_t g = (uint8_t)(gpu | (host_structured ? FH_STRUCTURED : 0));
	ferry_buf_init(b);
	if (ferry_buf_append(b, &g, 1) != 0)
		exit(1);
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO };
	m.u.hello = (struct ferry_hello){ .version = 1 };
	host_msg(b, &m, seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_DEVICE_QUERY };
	m.u.device_query.family = family;
	host_msg(b, &m, seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = family };
	host_msg(b, &m, seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = 1, .queue_id = 1 };
	host_msg(b, &m, seq);
	for (uint32_t bo = 1; bo <= 3; bo++) {
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
		m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = bo, .size = 0x4000,
							  .flags = family == FERRY_FAMILY_MSM ? 0x20000u : 0 };
		host_msg(b, &m, seq);
	}
}

static void session_end(struct ferry_buf *b, uint32_t *seq, const char *base)
{
	struct ferry_msg m = { .kind = FERRY_MSG_FENCE_WAIT };
	m.u.fence_wait = (struct ferry_fence_wait){ .ctx_id = 1, .queue_id = 1, .seqno = 1, .timeout_ns = 1000000 };
	host_msg(b, &m, seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_INFO };
	m.u.bo_info = (struct ferry_bo_info){ .ctx_id = 1, .bo_id = 2 };
	host_msg(b, &m, seq);
	/* An import without its fd (a fuzz input carries none): refused, nothing held. */
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_IMPORT };
	m.u.bo_import = (struct ferry_bo_import){ .ctx_id = 1, .bo_id = 9 };
	host_msg(b, &m, seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CLOSE };
	m.u.bo_close = (struct ferry_bo_close){ .ctx_id = 1, .bo_id = 3 };
	host_msg(b, &m, seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CLOSE };
	m.u.queue_close = (struct ferry_queue_close){ .ctx_id = 1, .queue_id = 1 };
	host_msg(b, &m, seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy.ctx_id = 1;
	host_msg(b, &m, seq);
	char name[64];
	snprintf(name, sizeof(name), "%s%s", base, host_structured ? "-structured" : "");
	write_seed(name, b->data, b->len);
	ferry_buf_free(b);
}

static void seeds_host_once(void)
{
	struct ferry_buf b;
	uint32_t seq = 1;
	/* msm: a submit of the BO the fuzz target fills with CP_NOPs, one with a reloc, one without
	 * cmds (a fence alone, as Turnip sends), a BO prep. */
	session_start(&b, &seq, 0, FERRY_FAMILY_MSM);
	struct ferry_msm_submit_bo bos[2] = { { .bo_id = 1, .flags = 0x1 }, { .bo_id = 2, .flags = 0x3 } };
	struct ferry_msm_submit_cmd cmds[1] = { { .type = 1, .bo_index = 0, .offset = 0, .size = 64 } };
	struct ferry_msm_submit_reloc relocs[1] = { { .cmd_index = 0, .submit_offset = 8, .bo_index = 1 } };
	struct ferry_msg m = { .kind = FERRY_MSG_MSM_SUBMIT };
	for (uint32_t i = 0; i < 3; i++) {
		m = (struct ferry_msg){ .kind = FERRY_MSG_MSM_SUBMIT };
		m.u.msm_submit = (struct ferry_msm_submit){ .ctx_id = 1, .queue_id = 1, .seqno = 1 + i,
							    .flags = FERRY_SUBMIT_NOTIFY, .nr_bos = 2,
							    .nr_cmds = i < 2 ? 1 : 0, .nr_relocs = i == 1,
							    .bos = bos, .cmds = cmds, .relocs = relocs };
		host_msg(&b, &m, &seq);
	}
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CPU_PREP };
	m.u.bo_cpu_prep = (struct ferry_bo_cpu_prep){ .ctx_id = 1, .bo_id = 1, .op = 1, .timeout_ns = 1000000 };
	host_msg(&b, &m, &seq);
	session_end(&b, &seq, "session-msm");

	/* v3d: a CL job (the render list fuzz_host writes into every BO), a TFU copy and a CSD job.
	 * The addresses are where a fresh v3d-4.2 host puts the session's three BOs. */
	const uint32_t bo1 = 0x20000, bo2 = 0x40000, bo3 = 0x60000;
	static uint8_t rcl[256];
	uint32_t rcl_len = fh_v3d_rcl(rcl, sizeof(rcl));
	seq = 1;
	session_start(&b, &seq, 1, FERRY_FAMILY_V3D);
	for (uint32_t q = 2; q <= 3; q++) {
		m = (struct ferry_msg){ .kind = FERRY_MSG_QUEUE_CREATE };
		m.u.queue_create = (struct ferry_queue_create){ .ctx_id = 1, .queue_id = q,
								.kind = q == 2 ? FERRY_QUEUE_KIND_V3D_TFU : FERRY_QUEUE_KIND_V3D_CSD };
		host_msg(&b, &m, &seq);
	}
	uint32_t ids[3] = { 1, 2, 3 };
	m = (struct ferry_msg){ .kind = FERRY_MSG_V3D_SUBMIT_CL };
	m.u.v3d_submit_cl = (struct ferry_v3d_submit_cl){ .ctx_id = 1, .queue_id = 1, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY,
							  .bcl_start = bo1, .bcl_end = bo1, .rcl_start = bo1,
							  .rcl_end = bo1 + rcl_len, .nr_bos = 1, .bo_ids = ids };
	host_msg(&b, &m, &seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_V3D_SUBMIT_TFU };
	m.u.v3d_submit_tfu = (struct ferry_v3d_submit_tfu){ .ctx_id = 1, .queue_id = 2, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY,
							    .icfg = 4u << 9, .iia = bo2, .iis = 16, .ioa = bo1, /* bos[0]: the output */
							    .ios = 16u << 16 | 16u, .nr_bos = 3, .bo_ids = ids };
	host_msg(&b, &m, &seq);
	m = (struct ferry_msg){ .kind = FERRY_MSG_V3D_SUBMIT_CSD };
	m.u.v3d_submit_csd = (struct ferry_v3d_submit_csd){ .ctx_id = 1, .queue_id = 3, .seqno = 1, .flags = FERRY_SUBMIT_NOTIFY,
							    .cfg = { 1u << 16, 1u << 16, 1u << 16, 15u, 0, bo3, bo2 },
							    .nr_bos = 3, .bo_ids = ids };
	host_msg(&b, &m, &seq);
	session_end(&b, &seq, "session-v3d");

	/* Imports (fuzz_host hands each BO_IMPORT the newest BO's pages): into a second context,
	 * the same again (that context has it), and into the BO's own context. */
	for (int gpu = 0; gpu < (int)FH_NR_GPUS; gpu++) {
		uint32_t family = gpu ? FERRY_FAMILY_V3D : FERRY_FAMILY_MSM;
		seq = 1;
		session_start(&b, &seq, gpu, family);
		m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
		m.u.context_create = (struct ferry_context_create){ .ctx_id = 2, .family = family };
		host_msg(&b, &m, &seq);
		const uint32_t into[3][2] = { { 2, 7 }, { 2, 8 }, { 1, 9 } };
		for (int i = 0; i < 3; i++) {
			m = (struct ferry_msg){ .kind = FERRY_MSG_BO_IMPORT };
			m.u.bo_import = (struct ferry_bo_import){ .ctx_id = into[i][0], .bo_id = into[i][1] };
			host_msg(&b, &m, &seq);
		}
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CLOSE };
		m.u.bo_close = (struct ferry_bo_close){ .ctx_id = 2, .bo_id = 7 };
		host_msg(&b, &m, &seq);
		session_end(&b, &seq, gpu ? "session-import-v3d" : "session-import-msm");
	}

	/* Every sample request after a context exists, one session each. */
	for (int gpu = 0; gpu < (int)FH_NR_GPUS; gpu++)
		for (int k = FERRY_MSG_HELLO; k <= FERRY_MSG_FENCE_WAIT; k++) {
			seq = 1;
			session_start(&b, &seq, gpu, gpu ? FERRY_FAMILY_V3D : FERRY_FAMILY_MSM);
			sample_msg((enum ferry_msg_kind)k, &m);
			host_msg(&b, &m, &seq);
			char name[32];
			snprintf(name, sizeof(name), "sample-%d-%02d", gpu, k);
			session_end(&b, &seq, name);
		}
}

static void seeds_host(void)
{
	for (host_structured = 0; host_structured < 2; host_structured++)
		seeds_host_once();
}

/* ---- pm4: streams from the PM4 builder in the fuzz target's BO set ---- */
#define STREAM_DW 1024u /* 4 KiB: IB1 at 0, IB2 at 0x800, a chained IB at 0xa00, a draw-state group at 0xc00 */

static void pm4_seed(const char *name, const uint32_t *stream, uint32_t ib1_bytes, int gpu_660,
		     const struct ferry_msm_submit_reloc *relocs, uint8_t nr_relocs)
{
	uint8_t buf[4 + sizeof(struct ferry_msm_submit_cmd) + FP_MAX_RELOCS * sizeof(struct ferry_msm_submit_reloc) + STREAM_DW * 4];
	struct ferry_msm_submit_cmd cmd = { 1 /* MSM_SUBMIT_CMD_BUF */, FP_BO_CMD, 0, ib1_bytes };
	size_t pos = 0;
	buf[pos++] = 1;
	buf[pos++] = nr_relocs;
	buf[pos++] = (uint8_t)gpu_660;
	buf[pos++] = 0;
	memcpy(buf + pos, &cmd, sizeof(cmd));
	pos += sizeof(cmd);
	memcpy(buf + pos, relocs, nr_relocs * sizeof(*relocs));
	pos += nr_relocs * sizeof(*relocs);
	memcpy(buf + pos, stream, STREAM_DW * 4);
	pos += STREAM_DW * 4;
	write_seed(name, buf, pos);
}

enum { PM4_MEM, PM4_EVENT, PM4_REGS, PM4_COPY, PM4_WAIT, PM4_IB, PM4_DRAW_STATE, PM4_DRAWS, PM4_COND, PM4_CHAIN,
       PM4_ALL, NR_PM4_SEEDS };
static const char *const pm4_names[NR_PM4_SEEDS] = { "mem", "event", "regs", "copy", "wait", "ib", "draw-state",
						      "draws", "cond", "chain", "all" };

static void pm4_emit(struct pm4_builder *b, uint32_t *stream, int which)
{
	const uint64_t data = FP_DATA_IOVA;
	uint32_t vals[4] = { 0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u };
	int all = which == PM4_ALL;
	if (all || which == PM4_MEM)
		pm4_mem_write(b, data + 0x100, vals, 4);
	if (all || which == PM4_EVENT) {
		pm4_event_write(b, 0x1f);
		pm4_event_write_ts(b, 0x15, data + 0x200, 7);
		pm4_event_write_gpu_ts(b, 0x15, data + 0x208);
	}
	if (all || which == PM4_REGS) {
		pm4_pkt4(b, 0x8800, vals, 2);
		pm4_reg_to_mem(b, 0x8800, 2, data + 0x300, false);
		pm4_mem_to_reg(b, 0x8801, 1, data + 0x100);
		pm4_reg_rmw(b, 0x8800, 0xff, 0x10, 0, true);
		pm4_reg_test(b, 0x8800, 4, 0);
	}
	if (all || which == PM4_COPY) {
		uint64_t srcs[2] = { data + 0x100, data + 0x108 };
		pm4_memcpy(b, data + 0x400, data + 0x100, 4);
		pm4_mem_to_mem(b, data + 0x500, srcs, 2, 0, true);
	}
	if (all || which == PM4_WAIT) {
		pm4_mem_write(b, data + 0x600, vals, 1);
		pm4_wait_mem(b, WRITE_EQ, data + 0x600, vals[0], 0xffffffffu);
		pm4_wait_mem_gte(b, data + 0x600, 1);
		pm4_wait_for_idle(b);
		pm4_wait_for_me(b);
	}
	if (all || which == PM4_IB) {
		struct pm4_builder ib2;
		pm4_builder_init(&ib2, stream + 0x200, 0x100);
		pm4_mem_write(&ib2, data + 0x700, vals, 2);
		pm4_nop(&ib2, 2);
		pm4_ib(b, FP_CMD_IOVA + 0x800, ib2.len);
		pm4_skip_ib2_enable(b, true, 0);
	}
	if (all || which == PM4_DRAW_STATE) {
		struct pm4_builder grp;
		pm4_builder_init(&grp, stream + 0x300, 0x100);
		pm4_pkt4(&grp, 0x8800, vals, 1);
		pm4_set_marker(b, RM6_DIRECT_RENDER);
		pm4_set_draw_state(b, 1, CP_SET_DRAW_STATE_0_SYSMEM | CP_SET_DRAW_STATE_0_GMEM, 0, FP_CMD_IOVA + 0xc00, grp.len);
		pm4_draw_auto_index(b, 4, 3, 1);
		pm4_set_draw_state_disable_all(b);
	}
	if (all || which == PM4_DRAWS) {
		pm4_draw_indexed(b, 4, 2, 6, 0, data + 0x1000, 64);
		pm4_draw_indirect(b, 4, data + 0x2000);
		pm4_draw_indx_indirect(b, 4, 2, data + 0x1000, 64, data + 0x2000);
	}
	if (all || which == PM4_COND) {
		pm4_cond_exec_render_mode(b, CP_COND_REG_EXEC_0_SYSMEM, 4);
		pm4_mem_write(b, data + 0x800, vals, 1);
		pm4_cond_exec_predicate(b, 0, 4);
		pm4_mem_write(b, data + 0x804, vals, 1);
	}
	if (all || which == PM4_CHAIN) {
		struct pm4_builder tail;
		pm4_builder_init(&tail, stream + 0x280, 0x80);
		pm4_mem_write(&tail, data + 0x900, vals, 1);
		pm4_ib_chain(b, FP_CMD_IOVA + 0xa00, tail.len);
	}
}

static void seeds_pm4(void)
{
	static uint32_t stream[STREAM_DW];
	char name[64];
	for (int which = 0; which < NR_PM4_SEEDS; which++)
		for (int gpu = 0; gpu < 2; gpu++) {
			memset(stream, 0, sizeof(stream));
			struct pm4_builder b;
			pm4_builder_init(&b, stream, 0x200);
			pm4_emit(&b, stream, which);
			if (!pm4_builder_ok(&b)) {
				fprintf(stderr, "fuzz_seeds: pm4 seed %s does not build\n", pm4_names[which]);
				exit(1);
			}
			snprintf(name, sizeof(name), "pm4-%s-a%d", pm4_names[which], gpu ? 660 : 630);
			pm4_seed(name, stream, b.len * 4, gpu, NULL, 0);
		}
	/* A relocated CP_MEM_WRITE: the address dwords come from relocs against the data BO. */
	memset(stream, 0, sizeof(stream));
	struct pm4_builder b;
	pm4_builder_init(&b, stream, 0x200);
	uint32_t v = 5;
	pm4_mem_write(&b, 0, &v, 1);
	struct ferry_msm_submit_reloc relocs[2] = {
		{ .cmd_index = 0, .submit_offset = 4, .bo_index = FP_BO_DATA, .bo_offset = 0x40 },
		{ .cmd_index = 0, .submit_offset = 8, .bo_index = FP_BO_DATA, .bo_offset = 0x40, .shift = -32 },
	};
	pm4_seed("pm4-reloc", stream, b.len * 4, 0, relocs, 2);
}

/* ---- v3d: v3dv-shaped raster copy and fill jobs, a TFU and a CSD job ---- */
#define V3D_BCL  0x000u /* offsets in the command BO */
#define V3D_RCL  0x400u
#define V3D_IND  0xc00u
#define V3D_CL_BYTES 0x1000u
#define V3D_SRC  (FV_DATA_ADDR + 0x00000u)
#define V3D_DST  (FV_DATA_ADDR + 0x10000u)
#define V3D_TA   (FV_DATA_ADDR + 0x40000u)
#define V3D_TS   (FV_DATA_ADDR + 0x80000u)

static void v3d_write(const char *name, const struct fv_header *h, const void *cl, size_t cl_len)
{
	uint8_t buf[sizeof(*h) + V3D_CL_BYTES];
	memcpy(buf, h, sizeof(*h));
	memcpy(buf + sizeof(*h), cl, cl_len);
	write_seed(name, buf, sizeof(*h) + cl_len);
}

static void seeds_v3d(void)
{
	static uint8_t cl[V3D_CL_BYTES];
	char name[64];
	for (int ver = 42; ver <= 71; ver += 29)
		for (int fill = 0; fill < 2; fill++) {
			memset(cl, 0, sizeof(cl));
			static const uint32_t color[4] = { 0x01020304u, 0x05060708u, 0, 0 };
			struct v3d_clb_raster_job job = {
				.width = 16, .height = 16, .format = V3D_CL_FMT_RGBA8UI, .bpp = 0,
				.type = ver == 42 ? V3D_INTERNAL_TYPE_8UI : V3D71_RT_8UI,
				.src_addr = V3D_SRC, .src_stride = 72, .dst_addr = V3D_DST, .dst_stride = 72,
				.clear_color = fill ? color : NULL, .tile_alloc_addr = V3D_TA,
			};
			struct v3d_clb bcl, rcl, ind;
			v3d_clb_init(&bcl, ver, cl + V3D_BCL, V3D_RCL - V3D_BCL, FV_CL_ADDR + V3D_BCL);
			v3d_clb_init(&rcl, ver, cl + V3D_RCL, V3D_IND - V3D_RCL, FV_CL_ADDR + V3D_RCL);
			v3d_clb_init(&ind, ver, cl + V3D_IND, V3D_CL_BYTES - V3D_IND, FV_CL_ADDR + V3D_IND);
			if (!v3d_clb_raster_bin(&bcl, &job) || !v3d_clb_raster_render(&rcl, &ind, &job)) {
				fprintf(stderr, "fuzz_seeds: v3d seed does not build\n");
				exit(1);
			}
			struct fv_header h = {
				.ver71 = ver == 71, .job = FV_JOB_CL,
				.bcl_start = FV_CL_ADDR + V3D_BCL, .bcl_end = v3d_clb_gpu_addr(&bcl),
				.rcl_start = FV_CL_ADDR + V3D_RCL, .rcl_end = v3d_clb_gpu_addr(&rcl),
				.qma = V3D_TA, .qms = v3d_clb_raster_tile_alloc_size(ver, &job), .qts = V3D_TS,
			};
			snprintf(name, sizeof(name), "v3d%d-%s", ver, fill ? "fill" : "copy");
			v3d_write(name, &h, cl, V3D_CL_BYTES);
		}
	for (int ver = 42; ver <= 71; ver += 29) {
		/* A raster RGBA8 TFU copy of 16 x 16 pixels (the validator tests' shape). */
		struct v3d_tfu_regs r = { .iia = V3D_SRC, .iis = 16, .ioa = V3D_DST, .ios = 16u << 16 | 16u };
		if (ver == 71) {
			r.icfg = 4u << 16;
			r.ioc = 16u << 16;
		} else {
			r.icfg = 4u << 9;
		}
		struct fv_header h = { .ver71 = ver == 71, .job = FV_JOB_TFU };
		snprintf(name, sizeof(name), "v3d%d-tfu", ver);
		v3d_write(name, &h, &r, sizeof(r));
		/* A CSD dispatch of 1 x 1 x 1 workgroups of 16 invocations. */
		uint32_t cfg[8] = { 1u << 16, 1u << 16, 1u << 16, 15u, 0, V3D_SRC, V3D_DST, 0 };
		h.job = FV_JOB_CSD;
		snprintf(name, sizeof(name), "v3d%d-csd", ver);
		v3d_write(name, &h, cfg, sizeof(cfg));
	}
}

/* ---- capture: an .rd and a session file as the capture code writes them, and gzip'd ---- */
static void seeds_capture(void)
{
	static uint32_t stream[64];
	struct pm4_builder b;
	pm4_builder_init(&b, stream, 64);
	uint32_t v[2] = { 1, 2 };
	pm4_mem_write(&b, 0x100001000ull, v, 2);
	pm4_ib(&b, 0x100000100ull, 4);
	pm4_nop(&b, 3);
	struct ferry_buf rd;
	ferry_buf_init(&rd);
	if (rd_write_device(&rd, 630, 0x06030001ull) || rd_write_cmd(&rd, "fuzz_seeds") ||
	    rd_write_buffer(&rd, 0x100000000ull, sizeof(stream), stream, sizeof(stream)) ||
	    rd_write_buffer(&rd, 0x100001000ull, 0x1000, NULL, 0) ||
	    rd_write_cmdstream(&rd, 0x100000000ull, b.len)) {
		fprintf(stderr, "fuzz_seeds: cannot write the .rd seed\n");
		exit(1);
	}
	write_seed("capture.rd", rd.data, rd.len);
	uint8_t *gz = NULL;
	size_t gz_len = 0;
	if (rd_gzip(rd.data, rd.len, &gz, &gz_len) == 0) {
		write_seed("capture.rd.gz", gz, gz_len);
		free(gz);
	}
	ferry_buf_free(&rd);

	struct ferry_buf s, scratch;
	ferry_buf_init(&s);
	ferry_buf_init(&scratch);
	int err = session_write_header(&s, FERRY_FAMILY_MSM, "sim a630");
	for (int k = FERRY_MSG_CONTEXT_CREATE; k <= FERRY_MSG_FENCE_WAIT && !err; k++) {
		struct ferry_msg m;
		sample_msg((enum ferry_msg_kind)k, &m);
		err = session_write_msg(&s, k == FERRY_MSG_CONTEXT_CREATE ? SESSION_FRAME_SYNTH : 0, &m, &scratch);
	}
	if (!err)
		err = session_write_snapshot(&s, 0, 3, 77, 0x100000000ull, 0, stream, sizeof(stream));
	if (!err)
		err = session_write_record(&s, SESSION_REC_NOTE, 0, "gpu: a630\n", 10);
	if (err) {
		fprintf(stderr, "fuzz_seeds: cannot write the session seed\n");
		exit(1);
	}
	write_seed("capture.ferrycap", s.data, s.len);
	ferry_buf_free(&s);
	ferry_buf_free(&scratch);
}

/* ---- shim: ioctl sequences as the shim and fake-kernel tests make them ---- */
static struct ferry_buf shim_seq;

static void ioctl_rec(unsigned long request, const void *arg, const void *pointed, size_t pointed_len)
{
	uint8_t hdr[5] = { (uint8_t)_IOC_NR(request), 0, (uint8_t)_IOC_SIZE(request), (uint8_t)pointed_len,
			   (uint8_t)(pointed_len >> 8) };
	if (ferry_buf_append(&shim_seq, hdr, 5) || ferry_buf_append(&shim_seq, arg, _IOC_SIZE(request)) ||
	    (pointed_len && ferry_buf_append(&shim_seq, pointed, pointed_len)))
		exit(1);
}

static void shim_common(void)
{
	struct drm_get_cap cap = { .capability = DRM_CAP_SYNCOBJ };
	ioctl_rec(DRM_IOCTL_GET_CAP, &cap, NULL, 0);
	struct drm_version ver = { .name_len = 16, .date_len = 16, .desc_len = 16 };
	ioctl_rec(DRM_IOCTL_VERSION, &ver, NULL, 0);
	struct drm_syncobj_create sc = { 0 };
	ioctl_rec(DRM_IOCTL_SYNCOBJ_CREATE, &sc, NULL, 0);
	struct drm_syncobj_handle sh = { .handle = 1 };
	ioctl_rec(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sh, NULL, 0);
	ioctl_rec(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &sh, NULL, 0);
	uint32_t handles[2] = { 1, 2 };
	struct drm_syncobj_wait sw = { .count_handles = 2, .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL };
	ioctl_rec(DRM_IOCTL_SYNCOBJ_WAIT, &sw, handles, sizeof(handles));
	struct drm_syncobj_array sa = { .count_handles = 1 };
	ioctl_rec(DRM_IOCTL_SYNCOBJ_SIGNAL, &sa, handles, sizeof(handles));
	ioctl_rec(DRM_IOCTL_SYNCOBJ_RESET, &sa, handles, sizeof(handles));
	struct drm_prime_handle ph = { .handle = 1, .flags = DRM_CLOEXEC | DRM_RDWR };
	ioctl_rec(DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, NULL, 0);
	ioctl_rec(DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph, NULL, 0);
	struct drm_syncobj_destroy sd = { .handle = 1 };
	ioctl_rec(DRM_IOCTL_SYNCOBJ_DESTROY, &sd, NULL, 0);
	struct drm_gem_close gc = { .handle = 1 };
	ioctl_rec(DRM_IOCTL_GEM_CLOSE, &gc, NULL, 0);
}

static void seeds_shim(void)
{
	uint8_t family = 0; /* msm */
	ferry_buf_init(&shim_seq);
	ferry_buf_append(&shim_seq, &family, 1);
	struct drm_msm_param gp = { .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_GPU_ID };
	ioctl_rec(DRM_IOCTL_MSM_GET_PARAM, &gp, NULL, 0);
	struct drm_msm_param sp = { .pipe = MSM_PIPE_3D0, .param = MSM_PARAM_COMM, .len = 4 };
	ioctl_rec(DRM_IOCTL_MSM_SET_PARAM, &sp, "fuzz", 4);
	struct drm_msm_gem_new gn = { .size = 4096, .flags = MSM_BO_WC };
	ioctl_rec(DRM_IOCTL_MSM_GEM_NEW, &gn, NULL, 0);
	ioctl_rec(DRM_IOCTL_MSM_GEM_NEW, &gn, NULL, 0);
	struct drm_msm_gem_info gi = { .handle = 1, .info = MSM_INFO_GET_IOVA };
	ioctl_rec(DRM_IOCTL_MSM_GEM_INFO, &gi, NULL, 0);
	gi = (struct drm_msm_gem_info){ .handle = 1, .info = MSM_INFO_SET_NAME, .len = 4 };
	ioctl_rec(DRM_IOCTL_MSM_GEM_INFO, &gi, "cmds", 4);
	struct drm_msm_submitqueue q = { .prio = 1 };
	ioctl_rec(DRM_IOCTL_MSM_SUBMITQUEUE_NEW, &q, NULL, 0);
	/* The pointed-to regions, 256 bytes each: bos, cmds, relocs, syncobjs. */
	static uint8_t regions[4 * 256];
	struct drm_msm_gem_submit_bo sbo[2] = { { .flags = MSM_SUBMIT_BO_READ, .handle = 1 },
						{ .flags = MSM_SUBMIT_BO_WRITE, .handle = 2 } };
	struct drm_msm_gem_submit_cmd scmd = { .type = MSM_SUBMIT_CMD_BUF, .submit_idx = 0, .size = 64 };
	struct drm_msm_gem_submit_syncobj sso = { .handle = 1 };
	memcpy(regions, sbo, sizeof(sbo));
	memcpy(regions + 256, &scmd, sizeof(scmd));
	memcpy(regions + 768, &sso, sizeof(sso));
	struct drm_msm_gem_submit sub = { .flags = MSM_PIPE_3D0, .nr_bos = 2, .nr_cmds = 1, .queueid = 1,
					  .nr_out_syncobjs = 1, .syncobj_stride = sizeof(sso) };
	ioctl_rec(DRM_IOCTL_MSM_GEM_SUBMIT, &sub, regions, sizeof(regions));
	struct drm_msm_wait_fence wf = { .fence = 1, .queueid = 1 };
	ioctl_rec(DRM_IOCTL_MSM_WAIT_FENCE, &wf, NULL, 0);
	struct drm_msm_submitqueue_query qq = { .id = 1, .param = MSM_SUBMITQUEUE_PARAM_FAULTS, .len = 4 };
	ioctl_rec(DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, &qq, NULL, 0);
	struct drm_msm_gem_cpu_prep cp = { .handle = 1, .op = MSM_PREP_READ };
	ioctl_rec(DRM_IOCTL_MSM_GEM_CPU_PREP, &cp, NULL, 0);
	struct drm_msm_gem_cpu_fini cf = { .handle = 1 };
	ioctl_rec(DRM_IOCTL_MSM_GEM_CPU_FINI, &cf, NULL, 0);
	struct drm_msm_gem_madvise mv = { .handle = 2, .madv = MSM_MADV_DONTNEED };
	ioctl_rec(DRM_IOCTL_MSM_GEM_MADVISE, &mv, NULL, 0);
	uint32_t qid = 1;
	ioctl_rec(DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, &qid, NULL, 0);
	shim_common();
	write_seed("shim-msm", shim_seq.data, shim_seq.len);
	ferry_buf_free(&shim_seq);

	family = 1; /* v3d */
	ferry_buf_init(&shim_seq);
	ferry_buf_append(&shim_seq, &family, 1);
	struct drm_v3d_get_param vp = { .param = DRM_V3D_PARAM_V3D_CORE0_IDENT0 };
	ioctl_rec(DRM_IOCTL_V3D_GET_PARAM, &vp, NULL, 0);
	struct drm_v3d_create_bo cb = { .size = 0x10000 };
	ioctl_rec(DRM_IOCTL_V3D_CREATE_BO, &cb, NULL, 0);
	ioctl_rec(DRM_IOCTL_V3D_CREATE_BO, &cb, NULL, 0);
	struct drm_v3d_get_bo_offset bo = { .handle = 1 };
	ioctl_rec(DRM_IOCTL_V3D_GET_BO_OFFSET, &bo, NULL, 0);
	struct drm_v3d_mmap_bo mb = { .handle = 1 };
	ioctl_rec(DRM_IOCTL_V3D_MMAP_BO, &mb, NULL, 0);
	uint32_t vh[2] = { 1, 2 };
	/* The first BO of a fresh v3d-4.2 is at 0x20000 (fuzz_host's seeds rely on the same). */
	struct drm_v3d_submit_cl cl = { .bcl_start = 0x20000, .bcl_end = 0x20000, .rcl_start = 0x20000,
					.rcl_end = 0x20010, .bo_handle_count = 2 };
	ioctl_rec(DRM_IOCTL_V3D_SUBMIT_CL, &cl, vh, sizeof(vh));
	struct drm_v3d_wait_bo wb = { .handle = 1, .timeout_ns = 1000000 };
	ioctl_rec(DRM_IOCTL_V3D_WAIT_BO, &wb, NULL, 0);
	struct drm_v3d_submit_tfu tfu = { .icfg = 4u << 9, .iia = 0x40000, .iis = 16, .ioa = 0x20000,
					  .ios = 16u << 16 | 16u, .bo_handles = { 1, 2 } };
	ioctl_rec(DRM_IOCTL_V3D_SUBMIT_TFU, &tfu, NULL, 0);
	struct drm_v3d_submit_csd csd = { .cfg = { 1u << 16, 1u << 16, 1u << 16, 15u, 0, 0x20000, 0x40000 },
					  .bo_handle_count = 2 };
	ioctl_rec(DRM_IOCTL_V3D_SUBMIT_CSD, &csd, vh, sizeof(vh));
	shim_common();
	write_seed("shim-v3d", shim_seq.data, shim_seq.len);
	ferry_buf_free(&shim_seq);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fuzz_seeds decode|host|pm4|v3d|capture|shim DIR\n");
		return 2;
	}
	out_dir = argv[2];
	if (mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
		perror(out_dir);
		return 1;
	}
	const char *t = argv[1];
	if (!strcmp(t, "decode"))
		seeds_decode();
	else if (!strcmp(t, "host"))
		seeds_host();
	else if (!strcmp(t, "pm4"))
		seeds_pm4();
	else if (!strcmp(t, "v3d"))
		seeds_v3d();
	else if (!strcmp(t, "capture"))
		seeds_capture();
	else if (!strcmp(t, "shim"))
		seeds_shim();
	else {
		fprintf(stderr, "fuzz_seeds: unknown target %s\n", t);
		return 2;
	}
	return nr_written ? 0 : 1;
}
