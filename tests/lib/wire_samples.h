/* One fully populated sample of every message kind, and a field-by-field comparison, shared by
 * the codec tests and the fuzzer's seed generation. */
#ifndef FERRY_TEST_WIRE_SAMPLES_H
#define FERRY_TEST_WIRE_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ferry/wire.h"

static const struct ferry_msm_submit_bo sample_bos[3] = {
	{ .bo_id = 11, .flags = 0x1 }, { .bo_id = 12, .flags = 0x2 }, { .bo_id = 0xfffffff0u, .flags = 0x3 },
};
static const struct ferry_msm_submit_cmd sample_cmds[2] = {
	{ .type = 1, .bo_index = 0, .offset = 0x100, .size = 0x40 },
	{ .type = 2, .bo_index = 2, .offset = 0, .size = 0x1000 },
};
static const struct ferry_msm_submit_reloc sample_relocs[2] = {
	{ .cmd_index = 0, .submit_offset = 8, .or_value = 0x3, .shift = -2, .bo_index = 1, .pad = 0,
	  .bo_offset = 0x123456789aull },
	{ .cmd_index = 1, .submit_offset = 16, .or_value = 0, .shift = 32, .bo_index = 2, .pad = 0,
	  .bo_offset = 0xfedcba9876543210ull },
};
static const struct ferry_fence_ref sample_fences[2] = {
	{ .queue_id = 1, .seqno = 41 }, { .queue_id = 127, .seqno = 0xffffffffu },
};
static const uint32_t sample_bo_ids[3] = { 21, 22, 0xfffffff1u };
static const struct ferry_bo_range sample_ranges[2] = {
	{ .offset = 0x10, .len = 3 }, { .offset = 0xfffffffff000ull, .len = 2 },
};
static const uint8_t sample_bytes[5] = { 1, 2, 3, 4, 5 };
static const struct ferry_fence_slot_update sample_slots[2] = {
	{ .queue_id = 0, .signaled = 7, .error_seqno = 0, .error = 0 },
	{ .queue_id = 127, .signaled = 0xffffffffu, .error_seqno = 0xfffffff0u, .error = -5 },
};
static const struct ferry_param sample_params[3] = {
	{ .id = 1, .pad = 0, .value = 0x06030000ull },
	{ .id = 4, .pad = 0, .value = 0x100000ull },
	{ .id = 7, .pad = 0, .value = 0xffffffffffffffffull },
};

/* Fills *m with a sample of kind where every field differs from its default. */
static inline void sample_msg(enum ferry_msg_kind kind, struct ferry_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->seq = 0x1000u + (uint32_t)kind;
	switch (kind) {
	case FERRY_MSG_HELLO:
		m->u.hello = (struct ferry_hello){ .version = 1, .features = 0x8000000000000007ull, .token = "s3cret" };
		break;
	case FERRY_MSG_DEVICE_QUERY:
		m->u.device_query.family = FERRY_FAMILY_MSM;
		break;
	case FERRY_MSG_CONTEXT_CREATE:
		m->u.context_create = (struct ferry_context_create){ .ctx_id = 3, .family = 2, .policy = 1 };
		break;
	case FERRY_MSG_CONTEXT_DESTROY:
		m->u.context_destroy.ctx_id = 0xdeadbeefu;
		break;
	case FERRY_MSG_QUEUE_CREATE:
		m->u.queue_create = (struct ferry_queue_create){ .ctx_id = 3, .queue_id = 127, .priority = 2, .flags = 9,
									     .kind = FERRY_QUEUE_KIND_V3D_TFU };
		break;
	case FERRY_MSG_QUEUE_CLOSE:
		m->u.queue_close = (struct ferry_queue_close){ .ctx_id = 4, .queue_id = 5 };
		break;
	case FERRY_MSG_BO_CREATE:
		m->u.bo_create = (struct ferry_bo_create){ .ctx_id = 3, .bo_id = 77, .size = 0x1234567890ull, .flags = 0x10000 };
		break;
	case FERRY_MSG_BO_CLOSE:
		m->u.bo_close = (struct ferry_bo_close){ .ctx_id = 3, .bo_id = 78 };
		break;
	case FERRY_MSG_BO_INFO:
		m->u.bo_info = (struct ferry_bo_info){ .ctx_id = 6, .bo_id = 79 };
		break;
	case FERRY_MSG_BO_IMPORT:
		m->u.bo_import = (struct ferry_bo_import){ .ctx_id = 7, .bo_id = 0x80000001u, .src_ctx_id = 8,
							   .src_bo_id = 9 };
		break;
	case FERRY_MSG_BO_DATA:
		m->u.bo_data = (struct ferry_bo_data){ .ctx_id = 3, .bo_id = 77, .flags = 0, .nr_ranges = 2,
						       .ranges = sample_ranges, .raw_len = 5, .data_len = 5,
						       .data = sample_bytes };
		break;
	case FERRY_MSG_BO_MAP:
		m->u.bo_map = (struct ferry_bo_map){ .ctx_id = 3, .bo_id = 0xfffffff2u };
		break;
	case FERRY_MSG_FENCE_UPDATE:
		m->u.fence_update = (struct ferry_fence_update){ .ctx_id = 3, .lost = 1, .nr_slots = 2,
								 .slots = sample_slots };
		break;
	case FERRY_MSG_RING_CREATE:
		m->u.ring_create = (struct ferry_ring_create){ .ctx_id = 0xfffffff3u, .data_size = 1u << 20 };
		break;
	case FERRY_MSG_RING_CREATED:
		m->u.ring_created = (struct ferry_ring_created){ .ctx_id = 3, .data_size = 16384, .sock_seq = 0xfffffffeu };
		break;
	case FERRY_MSG_BO_CREATE_BATCH:
		m->u.bo_create_batch = (struct ferry_bo_create_batch){ .ctx_id = 3, .first_bo_id = 0xfffffff0u, .count = 4,
									.size = 0x10000, .flags = 0x10000 };
		break;
	case FERRY_MSG_BO_BATCH_CREATED:
		m->u.bo_batch_created = (struct ferry_bo_batch_created){ .ctx_id = 3, .first_bo_id = 9, .size = 0x10000,
									  .count = 3, .iova = { 0x100000000ull, 2, 3 } };
		break;
	case FERRY_MSG_TIMESTAMP_QUERY:
		m->u.timestamp_query = (struct ferry_timestamp_query){ .ctx_id = 0xfffffff0u };
		break;
	case FERRY_MSG_EXTERNAL_FENCE:
		m->u.external_fence = (struct ferry_external_fence){ 3, 127, 0xfffffffeu, 1, -125 };
		break;
	case FERRY_MSG_BO_CPU_PREP:
		m->u.bo_cpu_prep = (struct ferry_bo_cpu_prep){ .ctx_id = 3, .bo_id = 80, .op = 2, .timeout_ns = -5 };
		break;
	case FERRY_MSG_MSM_SUBMIT:
		m->u.msm_submit = (struct ferry_msm_submit){
			.ctx_id = 3, .queue_id = 1, .seqno = 0xfffffffeu, .flags = FERRY_SUBMIT_NOTIFY,
			.nr_bos = 3, .nr_cmds = 2, .nr_relocs = 2, .nr_in_fences = 2,
			.bos = sample_bos, .cmds = sample_cmds, .relocs = sample_relocs, .in_fences = sample_fences,
		};
		break;
	case FERRY_MSG_FENCE_WAIT:
		m->u.fence_wait = (struct ferry_fence_wait){ .ctx_id = 3, .queue_id = 2, .seqno = 99, .timeout_ns = -1 };
		break;
	case FERRY_MSG_HELLO_REPLY:
		m->u.hello_reply = (struct ferry_hello_reply){ .version = 1, .features = 3, .server = "ferryd 0.1.0 (sim a630)" };
		break;
	case FERRY_MSG_DEVICE_INFO:
		m->u.device_info = (struct ferry_device_info){ .family = 1, .name = "a630", .nr_params = 3, .params = sample_params };
		break;
	case FERRY_MSG_CONTEXT_CREATED:
		m->u.context_created.ctx_id = 12;
		break;
	case FERRY_MSG_BO_CREATED:
		m->u.bo_created = (struct ferry_bo_created){ .ctx_id = 3, .bo_id = 77, .size = 0x2000, .iova = 0x100001000ull };
		break;
	case FERRY_MSG_BO_INFO_REPLY:
		m->u.bo_info_reply = (struct ferry_bo_info_reply){ .ctx_id = 3, .bo_id = 77, .size = 0x3000, .iova = 0x100004000ull, .flags = 0x40000 };
		break;
	case FERRY_MSG_STATUS_REPLY:
		m->u.status_reply.error = -110;
		m->u.status_reply.value = 0x123456789abcdef0ull;
		break;
	case FERRY_MSG_ERROR:
		m->u.error = (struct ferry_error){ .request_kind = FERRY_MSG_BO_CREATE, .error = -22, .message = "bo id 0 is reserved" };
		break;
	case FERRY_MSG_FENCE_SIGNALED:
		m->u.fence_signaled = (struct ferry_fence_signaled){ .ctx_id = 3, .queue_id = 1, .seqno = 42, .status = -5 };
		break;
	case FERRY_MSG_FAULT_REPORT:
		m->u.fault_report = (struct ferry_fault_report){
			.ctx_id = 3, .queue_id = 1, .seqno = 43, .flags = FERRY_FAULT_WRITE, .iova = 0xdead0000ull,
			.ib_iova = 0x100002000ull, .ib_dword = 17, .ib_level = 2, .opcode = 0x3d, .source = 1,
			.text = "ESTIMATED CRASH LOCATION: IB2 0x100002000 dword 17 (CP_MEM_WRITE)",
		};
		break;
	case FERRY_MSG_V3D_SUBMIT_CL:
		m->u.v3d_submit_cl = (struct ferry_v3d_submit_cl){
			.ctx_id = 5, .queue_id = 2, .seqno = 0xfffffffdu, .flags = FERRY_V3D_SUBMIT_CL_FLAGS,
			.bcl_start = 0x10000, .bcl_end = 0x10040, .rcl_start = 0x20000, .rcl_end = 0x20100,
			.qma = 0x30000, .qms = 0x8000, .qts = 0x40000, .nr_bos = 3, .nr_in_fences = 2,
			.bo_ids = sample_bo_ids, .in_fences = sample_fences,
		};
		break;
	case FERRY_MSG_V3D_SUBMIT_TFU:
		m->u.v3d_submit_tfu = (struct ferry_v3d_submit_tfu){
			.ctx_id = 5, .queue_id = 3, .seqno = 7, .flags = FERRY_SUBMIT_NOTIFY, .icfg = 0x1001,
			.iia = 0x50000, .iis = 64, .ica = 0x51000, .iua = 0x52000, .ioa = 0x60003, .ios = 0x100040,
			.coef = { 0x80000000u, 2, 3, 4 }, .v71_ioc = 0x40f000, .nr_bos = 2, .nr_in_fences = 1,
			.bo_ids = sample_bo_ids, .in_fences = sample_fences,
		};
		break;
	case FERRY_MSG_V3D_SUBMIT_CSD:
		m->u.v3d_submit_csd = (struct ferry_v3d_submit_csd){
			.ctx_id = 5, .queue_id = 4, .seqno = 8, .flags = FERRY_SUBMIT_NOTIFY,
			.cfg = { 1u << 16, 2u << 16, 3u << 16, 0x10f, 5, 0x70001, 0x80000 },
			.nr_bos = 3, .nr_in_fences = 2, .bo_ids = sample_bo_ids, .in_fences = sample_fences,
		};
		break;
	case FERRY_MSG_NONE:
	case FERRY_MSG_KIND_COUNT:
		break;
	}
}

static inline bool same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Arrays compare by content; NULL and empty are the same thing. */
static inline bool same_array(const void *a, const void *b, size_t n, size_t size)
{
	return n == 0 || (a && b && memcmp(a, b, n * size) == 0);
}

/* Field-by-field equality (no memcmp of structs: padding is unspecified). */
static inline bool same_msg(const struct ferry_msg *a, const struct ferry_msg *b)
{
	if (a->kind != b->kind || a->seq != b->seq)
		return false;
	const struct ferry_msg *x = a, *y = b;
#define EQ(f) (x->u.f == y->u.f)
	switch (a->kind) {
	case FERRY_MSG_HELLO:
		return EQ(hello.version) && EQ(hello.features) && same_str(x->u.hello.token, y->u.hello.token);
	case FERRY_MSG_DEVICE_QUERY:
		return EQ(device_query.family);
	case FERRY_MSG_CONTEXT_CREATE:
		return EQ(context_create.ctx_id) && EQ(context_create.family) && EQ(context_create.policy);
	case FERRY_MSG_CONTEXT_DESTROY:
		return EQ(context_destroy.ctx_id);
	case FERRY_MSG_QUEUE_CREATE:
		return EQ(queue_create.ctx_id) && EQ(queue_create.queue_id) && EQ(queue_create.priority) &&
		       EQ(queue_create.flags) && EQ(queue_create.kind);
	case FERRY_MSG_QUEUE_CLOSE:
		return EQ(queue_close.ctx_id) && EQ(queue_close.queue_id);
	case FERRY_MSG_BO_CREATE:
		return EQ(bo_create.ctx_id) && EQ(bo_create.bo_id) && EQ(bo_create.size) && EQ(bo_create.flags);
	case FERRY_MSG_BO_CLOSE:
		return EQ(bo_close.ctx_id) && EQ(bo_close.bo_id);
	case FERRY_MSG_BO_INFO:
		return EQ(bo_info.ctx_id) && EQ(bo_info.bo_id);
	case FERRY_MSG_BO_IMPORT:
		return EQ(bo_import.ctx_id) && EQ(bo_import.bo_id) && EQ(bo_import.src_ctx_id) &&
		       EQ(bo_import.src_bo_id);
	case FERRY_MSG_BO_DATA:
		return EQ(bo_data.ctx_id) && EQ(bo_data.bo_id) && EQ(bo_data.flags) && EQ(bo_data.nr_ranges) &&
		       EQ(bo_data.raw_len) && EQ(bo_data.data_len) &&
		       same_array(x->u.bo_data.ranges, y->u.bo_data.ranges, x->u.bo_data.nr_ranges,
				  sizeof(*x->u.bo_data.ranges)) &&
		       same_array(x->u.bo_data.data, y->u.bo_data.data, x->u.bo_data.data_len, 1);
	case FERRY_MSG_BO_MAP:
		return EQ(bo_map.ctx_id) && EQ(bo_map.bo_id);
	case FERRY_MSG_BO_CREATE_BATCH:
		return EQ(bo_create_batch.ctx_id) && EQ(bo_create_batch.first_bo_id) && EQ(bo_create_batch.count) &&
		       EQ(bo_create_batch.size) && EQ(bo_create_batch.flags);
	case FERRY_MSG_BO_BATCH_CREATED:
		return EQ(bo_batch_created.ctx_id) && EQ(bo_batch_created.first_bo_id) && EQ(bo_batch_created.size) &&
		       EQ(bo_batch_created.count) &&
		       same_array(x->u.bo_batch_created.iova, y->u.bo_batch_created.iova, x->u.bo_batch_created.count,
				  sizeof(x->u.bo_batch_created.iova[0]));
	case FERRY_MSG_FENCE_UPDATE:
		return EQ(fence_update.ctx_id) && EQ(fence_update.lost) && EQ(fence_update.nr_slots) &&
		       same_array(x->u.fence_update.slots, y->u.fence_update.slots, x->u.fence_update.nr_slots,
				  sizeof(*x->u.fence_update.slots));
	case FERRY_MSG_RING_CREATE:
		return EQ(ring_create.ctx_id) && EQ(ring_create.data_size);
	case FERRY_MSG_RING_CREATED:
		return EQ(ring_created.ctx_id) && EQ(ring_created.data_size) && EQ(ring_created.sock_seq);
	case FERRY_MSG_TIMESTAMP_QUERY:
		return EQ(timestamp_query.ctx_id);
	case FERRY_MSG_EXTERNAL_FENCE:
		return EQ(external_fence.ctx_id) && EQ(external_fence.queue_id) && EQ(external_fence.seqno) &&
		       EQ(external_fence.op) && EQ(external_fence.status);
	case FERRY_MSG_BO_CPU_PREP:
		return EQ(bo_cpu_prep.ctx_id) && EQ(bo_cpu_prep.bo_id) && EQ(bo_cpu_prep.op) &&
		       EQ(bo_cpu_prep.timeout_ns);
	case FERRY_MSG_MSM_SUBMIT: {
		const struct ferry_msm_submit *s = &x->u.msm_submit, *t = &y->u.msm_submit;
		return EQ(msm_submit.ctx_id) && EQ(msm_submit.queue_id) && EQ(msm_submit.seqno) &&
		       EQ(msm_submit.flags) && EQ(msm_submit.nr_bos) && EQ(msm_submit.nr_cmds) &&
		       EQ(msm_submit.nr_relocs) && EQ(msm_submit.nr_in_fences) &&
		       same_array(s->bos, t->bos, s->nr_bos, sizeof(*s->bos)) &&
		       same_array(s->cmds, t->cmds, s->nr_cmds, sizeof(*s->cmds)) &&
		       same_array(s->relocs, t->relocs, s->nr_relocs, sizeof(*s->relocs)) &&
		       same_array(s->in_fences, t->in_fences, s->nr_in_fences, sizeof(*s->in_fences));
	}
	case FERRY_MSG_FENCE_WAIT:
		return EQ(fence_wait.ctx_id) && EQ(fence_wait.queue_id) && EQ(fence_wait.seqno) &&
		       EQ(fence_wait.timeout_ns);
	case FERRY_MSG_HELLO_REPLY:
		return EQ(hello_reply.version) && EQ(hello_reply.features) &&
		       same_str(x->u.hello_reply.server, y->u.hello_reply.server);
	case FERRY_MSG_DEVICE_INFO:
		return EQ(device_info.family) && same_str(x->u.device_info.name, y->u.device_info.name) &&
		       EQ(device_info.nr_params) &&
		       same_array(x->u.device_info.params, y->u.device_info.params, x->u.device_info.nr_params,
				  sizeof(*x->u.device_info.params));
	case FERRY_MSG_CONTEXT_CREATED:
		return EQ(context_created.ctx_id);
	case FERRY_MSG_BO_CREATED:
		return EQ(bo_created.ctx_id) && EQ(bo_created.bo_id) && EQ(bo_created.size) && EQ(bo_created.iova);
	case FERRY_MSG_BO_INFO_REPLY:
		return EQ(bo_info_reply.ctx_id) && EQ(bo_info_reply.bo_id) && EQ(bo_info_reply.size) &&
		       EQ(bo_info_reply.iova) && EQ(bo_info_reply.flags);
	case FERRY_MSG_STATUS_REPLY:
		return EQ(status_reply.error) && EQ(status_reply.value);
	case FERRY_MSG_ERROR:
		return EQ(error.request_kind) && EQ(error.error) && same_str(x->u.error.message, y->u.error.message);
	case FERRY_MSG_FENCE_SIGNALED:
		return EQ(fence_signaled.ctx_id) && EQ(fence_signaled.queue_id) && EQ(fence_signaled.seqno) &&
		       EQ(fence_signaled.status);
	case FERRY_MSG_FAULT_REPORT:
		return EQ(fault_report.ctx_id) && EQ(fault_report.queue_id) && EQ(fault_report.seqno) &&
		       EQ(fault_report.flags) && EQ(fault_report.iova) && EQ(fault_report.ib_iova) &&
		       EQ(fault_report.ib_dword) && EQ(fault_report.ib_level) && EQ(fault_report.opcode) &&
		       EQ(fault_report.source) && same_str(x->u.fault_report.text, y->u.fault_report.text);
	case FERRY_MSG_V3D_SUBMIT_CL: {
		const struct ferry_v3d_submit_cl *s = &x->u.v3d_submit_cl, *t = &y->u.v3d_submit_cl;
		return s->ctx_id == t->ctx_id && s->queue_id == t->queue_id && s->seqno == t->seqno &&
		       s->flags == t->flags && s->bcl_start == t->bcl_start && s->bcl_end == t->bcl_end &&
		       s->rcl_start == t->rcl_start && s->rcl_end == t->rcl_end && s->qma == t->qma &&
		       s->qms == t->qms && s->qts == t->qts && s->nr_bos == t->nr_bos &&
		       s->nr_in_fences == t->nr_in_fences &&
		       same_array(s->bo_ids, t->bo_ids, s->nr_bos, sizeof(*s->bo_ids)) &&
		       same_array(s->in_fences, t->in_fences, s->nr_in_fences, sizeof(*s->in_fences));
	}
	case FERRY_MSG_V3D_SUBMIT_TFU: {
		const struct ferry_v3d_submit_tfu *s = &x->u.v3d_submit_tfu, *t = &y->u.v3d_submit_tfu;
		return s->ctx_id == t->ctx_id && s->queue_id == t->queue_id && s->seqno == t->seqno &&
		       s->flags == t->flags && s->icfg == t->icfg && s->iia == t->iia && s->iis == t->iis &&
		       s->ica == t->ica && s->iua == t->iua && s->ioa == t->ioa && s->ios == t->ios &&
		       memcmp(s->coef, t->coef, sizeof(s->coef)) == 0 && s->v71_ioc == t->v71_ioc &&
		       s->nr_bos == t->nr_bos && s->nr_in_fences == t->nr_in_fences &&
		       same_array(s->bo_ids, t->bo_ids, s->nr_bos, sizeof(*s->bo_ids)) &&
		       same_array(s->in_fences, t->in_fences, s->nr_in_fences, sizeof(*s->in_fences));
	}
	case FERRY_MSG_V3D_SUBMIT_CSD: {
		const struct ferry_v3d_submit_csd *s = &x->u.v3d_submit_csd, *t = &y->u.v3d_submit_csd;
		return s->ctx_id == t->ctx_id && s->queue_id == t->queue_id && s->seqno == t->seqno &&
		       s->flags == t->flags && memcmp(s->cfg, t->cfg, sizeof(s->cfg)) == 0 &&
		       s->nr_bos == t->nr_bos && s->nr_in_fences == t->nr_in_fences &&
		       same_array(s->bo_ids, t->bo_ids, s->nr_bos, sizeof(*s->bo_ids)) &&
		       same_array(s->in_fences, t->in_fences, s->nr_in_fences, sizeof(*s->in_fences));
	}
	case FERRY_MSG_NONE:
	case FERRY_MSG_KIND_COUNT:
		break;
	}
#undef EQ
	return false;
}

/* Reads every byte a decoded message points at, so ASan sees any pointer the decoder got wrong.
 * Returns a checksum to keep the reads alive. */
static inline uint64_t touch_msg(const struct ferry_msg *m)
{
	uint64_t sum = m->seq;
	const char *strs[2] = { NULL, NULL };
	switch (m->kind) {
	case FERRY_MSG_HELLO: strs[0] = m->u.hello.token; break;
	case FERRY_MSG_HELLO_REPLY: strs[0] = m->u.hello_reply.server; break;
	case FERRY_MSG_DEVICE_INFO:
		strs[0] = m->u.device_info.name;
		for (uint32_t i = 0; i < m->u.device_info.nr_params; i++)
			sum += m->u.device_info.params[i].id + m->u.device_info.params[i].value;
		break;
	case FERRY_MSG_ERROR: strs[0] = m->u.error.message; break;
	case FERRY_MSG_FAULT_REPORT: strs[0] = m->u.fault_report.text; break;
	case FERRY_MSG_MSM_SUBMIT: {
		const struct ferry_msm_submit *s = &m->u.msm_submit;
		for (uint32_t i = 0; i < s->nr_bos; i++)
			sum += s->bos[i].bo_id ^ s->bos[i].flags;
		for (uint32_t i = 0; i < s->nr_cmds; i++)
			sum += s->cmds[i].type + s->cmds[i].size;
		for (uint32_t i = 0; i < s->nr_relocs; i++)
			sum += s->relocs[i].bo_offset + (uint32_t)s->relocs[i].shift;
		for (uint32_t i = 0; i < s->nr_in_fences; i++)
			sum += s->in_fences[i].seqno;
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_CL:
		for (uint32_t i = 0; i < m->u.v3d_submit_cl.nr_bos; i++)
			sum += m->u.v3d_submit_cl.bo_ids[i];
		for (uint32_t i = 0; i < m->u.v3d_submit_cl.nr_in_fences; i++)
			sum += m->u.v3d_submit_cl.in_fences[i].seqno;
		break;
	case FERRY_MSG_V3D_SUBMIT_TFU:
		for (uint32_t i = 0; i < m->u.v3d_submit_tfu.nr_bos; i++)
			sum += m->u.v3d_submit_tfu.bo_ids[i];
		for (uint32_t i = 0; i < m->u.v3d_submit_tfu.nr_in_fences; i++)
			sum += m->u.v3d_submit_tfu.in_fences[i].seqno;
		break;
	case FERRY_MSG_V3D_SUBMIT_CSD:
		for (uint32_t i = 0; i < m->u.v3d_submit_csd.nr_bos; i++)
			sum += m->u.v3d_submit_csd.bo_ids[i];
		for (uint32_t i = 0; i < m->u.v3d_submit_csd.nr_in_fences; i++)
			sum += m->u.v3d_submit_csd.in_fences[i].seqno;
		break;
	default:
		break;
	}
	for (int i = 0; i < 2; i++)
		if (strs[i])
			sum += strlen(strs[i]);
	return sum;
}

#endif
