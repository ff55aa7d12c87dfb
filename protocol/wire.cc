// The codec between struct ferry_msg (wire.h) and ferry.fbs FlatBuffers: the only C++ in ferry
// outside generated code. Decoding verifies, checks each message's rules and points into the frame.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <type_traits>

#include "ferry/wire.h"
#include "ferry_generated.h"

namespace wire = ferry::wire;

// FERRY_FENCE_PAGE_QUEUES (fence_page.h is C11 atomics, not for C++).
constexpr uint32_t FERRY_FENCE_PAGE_QUEUES_WIRE = 128;
// ferry_ring_size_ok (submit_ring.h is C11 atomics too); test_wire_codec checks they agree.
static bool ring_size_ok(uint32_t v)
{
	return v >= 16u * 1024u && v <= (1u << 20) && (v & (v - 1)) == 0;
}

// ---- the C structs and the schema's structs are the same bytes (zero-copy decode) ----

static_assert(FLATBUFFERS_LITTLEENDIAN, "zero-copy arrays assume a little-endian host");

#define SAME_LAYOUT(c_type, fb_type)                                                   \
	static_assert(sizeof(c_type) == sizeof(fb_type), #c_type " size != " #fb_type); \
	static_assert(alignof(c_type) == alignof(fb_type), #c_type " align != " #fb_type)

SAME_LAYOUT(struct ferry_msm_submit_bo, wire::MsmSubmitBo);
SAME_LAYOUT(struct ferry_msm_submit_cmd, wire::MsmSubmitCmd);
SAME_LAYOUT(struct ferry_msm_submit_reloc, wire::MsmSubmitReloc);
SAME_LAYOUT(struct ferry_fence_ref, wire::FenceRef);
SAME_LAYOUT(struct ferry_param, wire::Param);
SAME_LAYOUT(struct ferry_bo_range, wire::BoRange);
SAME_LAYOUT(struct ferry_fence_slot_update, wire::FenceSlotUpdate);
static_assert(sizeof(struct ferry_msm_submit_reloc) == 32, "reloc is 32 bytes on the wire");
static_assert(sizeof(struct ferry_param) == 16, "param is 16 bytes on the wire");

// The union type value is the message kind, so mapping needs no table.
#define SAME_KIND(kind, member) static_assert((int)(kind) == (int)wire::Body_##member, #kind)
SAME_KIND(FERRY_MSG_NONE, NONE);
SAME_KIND(FERRY_MSG_HELLO, Hello);
SAME_KIND(FERRY_MSG_DEVICE_QUERY, DeviceQuery);
SAME_KIND(FERRY_MSG_CONTEXT_CREATE, ContextCreate);
SAME_KIND(FERRY_MSG_CONTEXT_DESTROY, ContextDestroy);
SAME_KIND(FERRY_MSG_QUEUE_CREATE, QueueCreate);
SAME_KIND(FERRY_MSG_QUEUE_CLOSE, QueueClose);
SAME_KIND(FERRY_MSG_BO_CREATE, BoCreate);
SAME_KIND(FERRY_MSG_BO_CLOSE, BoClose);
SAME_KIND(FERRY_MSG_BO_INFO, BoInfo);
SAME_KIND(FERRY_MSG_BO_CPU_PREP, BoCpuPrep);
SAME_KIND(FERRY_MSG_MSM_SUBMIT, MsmSubmit);
SAME_KIND(FERRY_MSG_FENCE_WAIT, FenceWait);
SAME_KIND(FERRY_MSG_HELLO_REPLY, HelloReply);
SAME_KIND(FERRY_MSG_DEVICE_INFO, DeviceInfo);
SAME_KIND(FERRY_MSG_CONTEXT_CREATED, ContextCreated);
SAME_KIND(FERRY_MSG_BO_CREATED, BoCreated);
SAME_KIND(FERRY_MSG_BO_INFO_REPLY, BoInfoReply);
SAME_KIND(FERRY_MSG_STATUS_REPLY, StatusReply);
SAME_KIND(FERRY_MSG_ERROR, Error);
SAME_KIND(FERRY_MSG_FENCE_SIGNALED, FenceSignaled);
SAME_KIND(FERRY_MSG_FAULT_REPORT, FaultReport);
SAME_KIND(FERRY_MSG_V3D_SUBMIT_CL, V3dSubmitCl);
SAME_KIND(FERRY_MSG_V3D_SUBMIT_TFU, V3dSubmitTfu);
SAME_KIND(FERRY_MSG_V3D_SUBMIT_CSD, V3dSubmitCsd);
SAME_KIND(FERRY_MSG_BO_IMPORT, BoImport);
SAME_KIND(FERRY_MSG_TIMESTAMP_QUERY, TimestampQuery);
SAME_KIND(FERRY_MSG_EXTERNAL_FENCE, ExternalFence);
SAME_KIND(FERRY_MSG_BO_DATA, BoData);
SAME_KIND(FERRY_MSG_BO_MAP, BoMap);
SAME_KIND(FERRY_MSG_FENCE_UPDATE, FenceUpdate);
SAME_KIND(FERRY_MSG_RING_CREATE, RingCreate);
SAME_KIND(FERRY_MSG_RING_CREATED, RingCreated);
SAME_KIND(FERRY_MSG_BO_CREATE_BATCH, BoCreateBatch);
SAME_KIND(FERRY_MSG_BO_BATCH_CREATED, BoBatchCreated);
static_assert((int)wire::Body_MAX == (int)FERRY_MSG_KIND_COUNT - 1, "every kind has a union member");

// The largest frame is far below the FlatBuffers limits the Verifier asserts on.
static_assert(FERRY_MAX_FRAME_SIZE < FLATBUFFERS_MAX_BUFFER_SIZE, "frame limit");
static_assert(FERRY_MAX_REPORT_TEXT + 4096 < FERRY_MAX_FRAME_SIZE, "a full fault report fits a frame");

static const char *const kind_names[FERRY_MSG_KIND_COUNT] = {
	"none",           "hello",           "device_query",  "context_create", "context_destroy",
	"queue_create",   "queue_close",     "bo_create",     "bo_close",       "bo_info",
	"bo_cpu_prep",    "msm_submit",      "fence_wait",    "hello_reply",    "device_info",
	"context_created", "bo_created",     "bo_info_reply", "status_reply",   "error",
	"fence_signaled", "fault_report",  "v3d_submit_cl", "v3d_submit_tfu", "v3d_submit_csd",
	"bo_import",      "timestamp_query", "external_fence", "bo_data",        "bo_map",
	"fence_update",   "ring_create",     "ring_created",  "bo_create_batch", "bo_batch_created",
};

// C callers may hand over any int in an enum ferry_msg_kind; in C++ an out-of-range enum value
// is undefined, so the kind is read as its underlying integer.
static unsigned kind_number(const enum ferry_msg_kind *kind)
{
	std::underlying_type<enum ferry_msg_kind>::type raw;
	static_assert(sizeof(raw) == sizeof(*kind), "enum size");
	memcpy(&raw, kind, sizeof(raw));
	return (unsigned)raw;
}

extern "C" const char *ferry_msg_kind_name(enum ferry_msg_kind kind)
{
	unsigned k = kind_number(&kind);
	return k < FERRY_MSG_KIND_COUNT ? kind_names[k] : "unknown";
}

// ---- encode ----

namespace {

struct encode_error {
	int err;
};

using Builder = flatbuffers::FlatBufferBuilder;

// Optional strings: NULL stays absent. limit is FERRY_MAX_STRING except for FaultReport.text.
flatbuffers::Offset<flatbuffers::String> optional_string(Builder &fbb, const char *s,
							 size_t limit = FERRY_MAX_STRING)
{
	if (!s)
		return 0;
	size_t n = strnlen(s, limit + 1);
	if (n > limit)
		throw encode_error{-EINVAL};
	return fbb.CreateString(s, n);
}

// Required strings: NULL is sent as "" so the receiver always has one.
flatbuffers::Offset<flatbuffers::String> required_string(Builder &fbb, const char *s,
							 size_t limit = FERRY_MAX_STRING)
{
	return optional_string(fbb, s ? s : "", limit);
}

// C records go out byte for byte: the layouts are asserted equal above. Empty arrays stay absent.
template <typename Wire, typename C>
flatbuffers::Offset<flatbuffers::Vector<const Wire *>> records(Builder &fbb, const C *items, uint32_t n)
{
	if (n == 0)
		return 0;
	if (!items)
		throw encode_error{-EINVAL};
	return fbb.CreateVectorOfStructs(reinterpret_cast<const Wire *>(items), n);
}

// Refuse before allocating anything when the arrays alone cannot fit in a frame. Each term is
// a u32 count times a record size, so the sum cannot overflow 64 bits.
void check_array_bytes(uint64_t bytes)
{
	if (bytes > FERRY_MAX_FRAME_SIZE)
		throw encode_error{-EMSGSIZE};
}

// A vector of u32 (BO ids, CSD cfg words); empty stays absent.
flatbuffers::Offset<flatbuffers::Vector<uint32_t>> words(Builder &fbb, const uint32_t *items, uint32_t n)
{
	if (n == 0)
		return 0;
	if (!items)
		throw encode_error{-EINVAL};
	return fbb.CreateVector(items, n);
}

flatbuffers::Offset<void> encode_body(Builder &fbb, const struct ferry_msg *m)
{
	const auto &u = m->u;
	switch (m->kind) {
	case FERRY_MSG_HELLO: {
		auto token = optional_string(fbb, u.hello.token);
		return wire::CreateHello(fbb, u.hello.version, u.hello.features, token).Union();
	}
	case FERRY_MSG_DEVICE_QUERY:
		return wire::CreateDeviceQuery(fbb, u.device_query.family).Union();
	case FERRY_MSG_CONTEXT_CREATE:
		return wire::CreateContextCreate(fbb, u.context_create.ctx_id, u.context_create.family,
						 u.context_create.policy)
			.Union();
	case FERRY_MSG_CONTEXT_DESTROY:
		return wire::CreateContextDestroy(fbb, u.context_destroy.ctx_id).Union();
	case FERRY_MSG_QUEUE_CREATE:
		return wire::CreateQueueCreate(fbb, u.queue_create.ctx_id, u.queue_create.queue_id,
					       u.queue_create.priority, u.queue_create.flags, u.queue_create.kind)
			.Union();
	case FERRY_MSG_QUEUE_CLOSE:
		return wire::CreateQueueClose(fbb, u.queue_close.ctx_id, u.queue_close.queue_id).Union();
	case FERRY_MSG_BO_CREATE:
		return wire::CreateBoCreate(fbb, u.bo_create.ctx_id, u.bo_create.bo_id, u.bo_create.size,
					    u.bo_create.flags, u.bo_create.iova)
			.Union();
	case FERRY_MSG_BO_CREATE_BATCH: {
		const struct ferry_bo_create_batch &b = u.bo_create_batch;
		return wire::CreateBoCreateBatch(fbb, b.ctx_id, b.first_bo_id, b.count, b.size, b.flags).Union();
	}
	case FERRY_MSG_BO_BATCH_CREATED: {
		const struct ferry_bo_batch_created &b = u.bo_batch_created;
		if (b.count > FERRY_MAX_BO_BATCH)
			throw encode_error{-EINVAL};
		auto iovas = fbb.CreateVector(b.iova, b.count);
		return wire::CreateBoBatchCreated(fbb, b.ctx_id, b.first_bo_id, b.size, iovas).Union();
	}
	case FERRY_MSG_BO_CLOSE:
		return wire::CreateBoClose(fbb, u.bo_close.ctx_id, u.bo_close.bo_id).Union();
	case FERRY_MSG_BO_INFO:
		return wire::CreateBoInfo(fbb, u.bo_info.ctx_id, u.bo_info.bo_id).Union();
	case FERRY_MSG_BO_IMPORT:
		return wire::CreateBoImport(fbb, u.bo_import.ctx_id, u.bo_import.bo_id, u.bo_import.src_ctx_id,
					    u.bo_import.src_bo_id)
			.Union();
	case FERRY_MSG_BO_DATA: {
		const struct ferry_bo_data &d = u.bo_data;
		check_array_bytes((uint64_t)d.nr_ranges * sizeof(*d.ranges) + d.data_len);
		auto ranges = records<wire::BoRange>(fbb, d.ranges, d.nr_ranges);
		flatbuffers::Offset<flatbuffers::Vector<uint8_t>> data = 0;
		if (d.data_len) {
			if (!d.data)
				throw encode_error{-EINVAL};
			data = fbb.CreateVector(d.data, d.data_len);
		}
		return wire::CreateBoData(fbb, d.ctx_id, d.bo_id, d.flags, ranges, d.raw_len, data).Union();
	}
	case FERRY_MSG_BO_MAP:
		return wire::CreateBoMap(fbb, u.bo_map.ctx_id, u.bo_map.bo_id).Union();
	case FERRY_MSG_RING_CREATE:
		return wire::CreateRingCreate(fbb, u.ring_create.ctx_id, u.ring_create.data_size).Union();
	case FERRY_MSG_RING_CREATED:
		return wire::CreateRingCreated(fbb, u.ring_created.ctx_id, u.ring_created.data_size,
					       u.ring_created.sock_seq)
			.Union();
	case FERRY_MSG_FENCE_UPDATE: {
		const struct ferry_fence_update &f = u.fence_update;
		check_array_bytes((uint64_t)f.nr_slots * sizeof(*f.slots));
		auto slots = records<wire::FenceSlotUpdate>(fbb, f.slots, f.nr_slots);
		return wire::CreateFenceUpdate(fbb, f.ctx_id, f.lost, slots).Union();
	}
	case FERRY_MSG_TIMESTAMP_QUERY:
		return wire::CreateTimestampQuery(fbb, u.timestamp_query.ctx_id).Union();
	case FERRY_MSG_EXTERNAL_FENCE: {
		const struct ferry_external_fence &e = u.external_fence;
		return wire::CreateExternalFence(fbb, e.ctx_id, e.queue_id, e.seqno, e.op, e.status).Union();
	}
	case FERRY_MSG_BO_CPU_PREP:
		return wire::CreateBoCpuPrep(fbb, u.bo_cpu_prep.ctx_id, u.bo_cpu_prep.bo_id,
					     u.bo_cpu_prep.op, u.bo_cpu_prep.timeout_ns)
			.Union();
	case FERRY_MSG_MSM_SUBMIT: {
		const struct ferry_msm_submit &s = u.msm_submit;
		check_array_bytes((uint64_t)s.nr_bos * sizeof(*s.bos) + (uint64_t)s.nr_cmds * sizeof(*s.cmds) +
				  (uint64_t)s.nr_relocs * sizeof(*s.relocs) +
				  (uint64_t)s.nr_in_fences * sizeof(*s.in_fences));
		auto bos = records<wire::MsmSubmitBo>(fbb, s.bos, s.nr_bos);
		auto cmds = records<wire::MsmSubmitCmd>(fbb, s.cmds, s.nr_cmds);
		auto relocs = records<wire::MsmSubmitReloc>(fbb, s.relocs, s.nr_relocs);
		auto in_fences = records<wire::FenceRef>(fbb, s.in_fences, s.nr_in_fences);
		return wire::CreateMsmSubmit(fbb, s.ctx_id, s.queue_id, s.seqno, s.flags, bos, cmds, relocs,
					     in_fences)
			.Union();
	}
	case FERRY_MSG_FENCE_WAIT:
		return wire::CreateFenceWait(fbb, u.fence_wait.ctx_id, u.fence_wait.queue_id,
					     u.fence_wait.seqno, u.fence_wait.timeout_ns)
			.Union();
	case FERRY_MSG_HELLO_REPLY: {
		auto server = required_string(fbb, u.hello_reply.server);
		return wire::CreateHelloReply(fbb, u.hello_reply.version, u.hello_reply.features, server)
			.Union();
	}
	case FERRY_MSG_DEVICE_INFO: {
		const struct ferry_device_info &d = u.device_info;
		check_array_bytes((uint64_t)d.nr_params * sizeof(*d.params));
		auto name = required_string(fbb, d.name);
		auto params = records<wire::Param>(fbb, d.params, d.nr_params);
		return wire::CreateDeviceInfo(fbb, d.family, name, params).Union();
	}
	case FERRY_MSG_CONTEXT_CREATED:
		return wire::CreateContextCreated(fbb, u.context_created.ctx_id).Union();
	case FERRY_MSG_BO_CREATED:
		return wire::CreateBoCreated(fbb, u.bo_created.ctx_id, u.bo_created.bo_id,
					     u.bo_created.size, u.bo_created.iova)
			.Union();
	case FERRY_MSG_BO_INFO_REPLY:
		return wire::CreateBoInfoReply(fbb, u.bo_info_reply.ctx_id, u.bo_info_reply.bo_id,
					       u.bo_info_reply.size, u.bo_info_reply.iova,
					       u.bo_info_reply.flags)
			.Union();
	case FERRY_MSG_STATUS_REPLY:
		return wire::CreateStatusReply(fbb, u.status_reply.error, u.status_reply.value).Union();
	case FERRY_MSG_ERROR: {
		auto message = required_string(fbb, u.error.message);
		return wire::CreateError(fbb, u.error.request_kind, u.error.error, message).Union();
	}
	case FERRY_MSG_FENCE_SIGNALED:
		return wire::CreateFenceSignaled(fbb, u.fence_signaled.ctx_id, u.fence_signaled.queue_id,
						 u.fence_signaled.seqno, u.fence_signaled.status)
			.Union();
	case FERRY_MSG_FAULT_REPORT: {
		const struct ferry_fault_report &f = u.fault_report;
		auto text = required_string(fbb, f.text, FERRY_MAX_REPORT_TEXT);
		return wire::CreateFaultReport(fbb, f.ctx_id, f.queue_id, f.seqno, f.flags, f.iova, f.ib_iova,
					       f.ib_dword, f.ib_level, f.opcode, f.source, text)
			.Union();
	}
	case FERRY_MSG_V3D_SUBMIT_CL: {
		const struct ferry_v3d_submit_cl &s = u.v3d_submit_cl;
		check_array_bytes((uint64_t)s.nr_bos * sizeof(*s.bo_ids) +
				  (uint64_t)s.nr_in_fences * sizeof(*s.in_fences));
		auto bos = words(fbb, s.bo_ids, s.nr_bos);
		auto in_fences = records<wire::FenceRef>(fbb, s.in_fences, s.nr_in_fences);
		return wire::CreateV3dSubmitCl(fbb, s.ctx_id, s.queue_id, s.seqno, s.flags, s.bcl_start, s.bcl_end,
					       s.rcl_start, s.rcl_end, s.qma, s.qms, s.qts, bos, in_fences)
			.Union();
	}
	case FERRY_MSG_V3D_SUBMIT_TFU: {
		const struct ferry_v3d_submit_tfu &s = u.v3d_submit_tfu;
		check_array_bytes((uint64_t)s.nr_bos * sizeof(*s.bo_ids) +
				  (uint64_t)s.nr_in_fences * sizeof(*s.in_fences));
		auto bos = words(fbb, s.bo_ids, s.nr_bos);
		auto in_fences = records<wire::FenceRef>(fbb, s.in_fences, s.nr_in_fences);
		return wire::CreateV3dSubmitTfu(fbb, s.ctx_id, s.queue_id, s.seqno, s.flags, s.icfg, s.iia, s.iis,
						s.ica, s.iua, s.ioa, s.ios, s.coef[0], s.coef[1], s.coef[2],
						s.coef[3], s.v71_ioc, bos, in_fences)
			.Union();
	}
	case FERRY_MSG_V3D_SUBMIT_CSD: {
		const struct ferry_v3d_submit_csd &s = u.v3d_submit_csd;
		check_array_bytes((uint64_t)s.nr_bos * sizeof(*s.bo_ids) +
				  (uint64_t)s.nr_in_fences * sizeof(*s.in_fences));
		auto cfg = fbb.CreateVector(s.cfg, FERRY_V3D_CSD_CFG_WORDS);
		auto bos = words(fbb, s.bo_ids, s.nr_bos);
		auto in_fences = records<wire::FenceRef>(fbb, s.in_fences, s.nr_in_fences);
		return wire::CreateV3dSubmitCsd(fbb, s.ctx_id, s.queue_id, s.seqno, s.flags, cfg, bos, in_fences)
			.Union();
	}
	case FERRY_MSG_NONE:
	case FERRY_MSG_KIND_COUNT:
		break;
	}
	throw encode_error{-EINVAL};
}

// A builder per thread, cleared between messages, so steady-state encoding does not allocate.
// One that grew for a rare large message gives its memory back.
constexpr size_t kBuilderKeep = 64 * 1024;

} // namespace

extern "C" int ferry_wire_encode(const struct ferry_msg *msg, struct ferry_buf *out)
{
	if (!msg || !out)
		return -EINVAL;
	unsigned kind = kind_number(&msg->kind);
	if (kind == FERRY_MSG_NONE || kind >= FERRY_MSG_KIND_COUNT)
		return -EINVAL;

	int err = 0;
	try {
		static thread_local Builder fbb(1024);
		fbb.Clear();
		try {
			auto body = encode_body(fbb, msg);
			auto root = wire::CreateMessage(fbb, msg->seq, (wire::Body)kind, body);
			wire::FinishMessageBuffer(fbb, root);
			size_t size = fbb.GetSize();
			if (size > FERRY_MAX_FRAME_SIZE) {
				err = -EMSGSIZE;
			} else {
				uint32_t len = (uint32_t)size;
				uint8_t hdr[FERRY_FRAME_HDR_SIZE] = { (uint8_t)len, (uint8_t)(len >> 8),
								      (uint8_t)(len >> 16), (uint8_t)(len >> 24) };
				err = ferry_buf_reserve(out, sizeof(hdr) + size);
				if (!err) {
					ferry_buf_append(out, hdr, sizeof(hdr));
					ferry_buf_append(out, fbb.GetBufferPointer(), size);
				}
			}
		} catch (const encode_error &e) {
			err = e.err;
		}
		// The builder has no capacity accessor; it grows by doubling, so size bounds it.
		if (fbb.GetSize() > kBuilderKeep / 2)
			fbb.Reset();
		else
			fbb.Clear();
	} catch (const std::bad_alloc &) {
		err = -ENOMEM;
	}
	return err;
}

// ---- decode ----

namespace {

struct decode_error {
	const char *why;
};

[[noreturn]] void reject(const char *why)
{
	throw decode_error{why};
}

const char *optional_string(const flatbuffers::String *s, size_t limit = FERRY_MAX_STRING)
{
	if (!s)
		return nullptr;
	if (s->size() > limit)
		reject(limit == FERRY_MAX_STRING ? "string longer than FERRY_MAX_STRING"
						 : "report text longer than FERRY_MAX_REPORT_TEXT");
	// The C side sees a NUL-terminated string: an embedded NUL would silently cut it short.
	if (memchr(s->c_str(), '\0', s->size()))
		reject("string contains a NUL byte");
	return s->c_str();
}

const char *required_string(const flatbuffers::String *s, size_t limit = FERRY_MAX_STRING)
{
	// The Verifier already rejects a missing (required) field; this keeps the promise local.
	if (!s)
		reject("required string missing");
	return optional_string(s, limit);
}

// Points the C array at the records inside the frame. The Verifier checked that the vector lies
// inside the buffer, but only aligned its length word to 4: records holding u64s need 8.
template <typename C, typename Wire>
void records(const flatbuffers::Vector<const Wire *> *v, uint32_t limit, const char *too_many, const C **items,
	     uint32_t *n)
{
	*items = nullptr;
	*n = 0;
	if (!v || v->size() == 0)
		return;
	if (v->size() > limit)
		reject(too_many);
	const uint8_t *data = v->Data();
	if ((uintptr_t)data % alignof(C) != 0)
		reject("array of records misaligned");
	*items = reinterpret_cast<const C *>(data);
	*n = v->size();
}

// Points the C array at a u32 vector inside the frame (the Verifier aligned it to 4).
void word_list(const flatbuffers::Vector<uint32_t> *v, uint32_t limit, const char *too_many, const uint32_t **items,
	       uint32_t *n)
{
	*items = nullptr;
	*n = 0;
	if (!v || v->size() == 0)
		return;
	if (v->size() > limit)
		reject(too_many);
	*items = v->data();
	*n = v->size();
}

void decode_body(const wire::Message *root, struct ferry_msg *m)
{
	auto &u = m->u;
	switch (root->body_type()) {
	case wire::Body_Hello: {
		auto b = root->body_as_Hello();
		u.hello.version = b->version();
		u.hello.features = b->features();
		u.hello.token = optional_string(b->token());
		return;
	}
	case wire::Body_DeviceQuery:
		u.device_query.family = root->body_as_DeviceQuery()->family();
		return;
	case wire::Body_ContextCreate: {
		auto b = root->body_as_ContextCreate();
		u.context_create.ctx_id = b->ctx_id();
		u.context_create.family = b->family();
		u.context_create.policy = b->policy();
		return;
	}
	case wire::Body_ContextDestroy:
		u.context_destroy.ctx_id = root->body_as_ContextDestroy()->ctx_id();
		return;
	case wire::Body_QueueCreate: {
		auto b = root->body_as_QueueCreate();
		u.queue_create.ctx_id = b->ctx_id();
		u.queue_create.queue_id = b->queue_id();
		u.queue_create.priority = b->priority();
		u.queue_create.flags = b->flags();
		u.queue_create.kind = b->kind();
		return;
	}
	case wire::Body_QueueClose: {
		auto b = root->body_as_QueueClose();
		u.queue_close.ctx_id = b->ctx_id();
		u.queue_close.queue_id = b->queue_id();
		return;
	}
	case wire::Body_BoCreate: {
		auto b = root->body_as_BoCreate();
		u.bo_create.ctx_id = b->ctx_id();
		u.bo_create.bo_id = b->bo_id();
		u.bo_create.size = b->size();
		u.bo_create.flags = b->flags();
		u.bo_create.iova = b->iova();
		return;
	}
	case wire::Body_BoClose: {
		auto b = root->body_as_BoClose();
		u.bo_close.ctx_id = b->ctx_id();
		u.bo_close.bo_id = b->bo_id();
		return;
	}
	case wire::Body_BoInfo: {
		auto b = root->body_as_BoInfo();
		u.bo_info.ctx_id = b->ctx_id();
		u.bo_info.bo_id = b->bo_id();
		return;
	}
	case wire::Body_TimestampQuery:
		u.timestamp_query.ctx_id = root->body_as_TimestampQuery()->ctx_id();
		return;
	case wire::Body_ExternalFence: {
		auto b = root->body_as_ExternalFence();
		u.external_fence = (struct ferry_external_fence){ b->ctx_id(), b->queue_id(), b->seqno(), b->op(), b->status() };
		return;
	}
	case wire::Body_BoImport: {
		auto b = root->body_as_BoImport();
		u.bo_import.ctx_id = b->ctx_id();
		u.bo_import.bo_id = b->bo_id();
		u.bo_import.src_ctx_id = b->src_ctx_id();
		u.bo_import.src_bo_id = b->src_bo_id();
		return;
	}
	case wire::Body_BoData: {
		auto b = root->body_as_BoData();
		struct ferry_bo_data &d = u.bo_data;
		d.ctx_id = b->ctx_id();
		d.bo_id = b->bo_id();
		d.flags = b->flags();
		if (d.flags & ~FERRY_BO_DATA_FLAGS)
			reject("BoData has unknown flags");
		records(b->ranges(), FERRY_MAX_BO_DATA_RANGES, "BoData has more than FERRY_MAX_BO_DATA_RANGES ranges",
			&d.ranges, &d.nr_ranges);
		d.raw_len = b->raw_len();
		auto data = b->data();
		d.data_len = data ? data->size() : 0;
		d.data = d.data_len ? data->data() : nullptr;
		uint64_t sum = 0; // at most 8192 u32s: no overflow in 64 bits
		for (uint32_t i = 0; i < d.nr_ranges; i++) {
			if (d.ranges[i].len == 0)
				reject("BoData has an empty range");
			if (d.ranges[i].pad != 0)
				reject("BoData range padding is not zero");
			sum += d.ranges[i].len;
		}
		if (sum != d.raw_len)
			reject("BoData ranges do not add up to raw_len");
		if (!(d.flags & FERRY_BO_DATA_ZSTD) && d.data_len != d.raw_len)
			reject("BoData data length is not raw_len");
		if ((d.flags & FERRY_BO_DATA_ZSTD) && d.raw_len && !d.data_len)
			reject("BoData compressed data missing");
		return;
	}
	case wire::Body_BoMap: {
		auto b = root->body_as_BoMap();
		u.bo_map.ctx_id = b->ctx_id();
		u.bo_map.bo_id = b->bo_id();
		return;
	}
	case wire::Body_RingCreate: {
		auto b = root->body_as_RingCreate();
		u.ring_create.ctx_id = b->ctx_id();
		u.ring_create.data_size = b->data_size();
		if (!ring_size_ok(u.ring_create.data_size))
			reject("RingCreate data_size is not a power of two in 16 KiB..1 MiB");
		return;
	}
	case wire::Body_RingCreated: {
		auto b = root->body_as_RingCreated();
		u.ring_created.ctx_id = b->ctx_id();
		u.ring_created.data_size = b->data_size();
		u.ring_created.sock_seq = b->sock_seq();
		if (!ring_size_ok(u.ring_created.data_size))
			reject("RingCreated data_size is not a power of two in 16 KiB..1 MiB");
		return;
	}
	case wire::Body_FenceUpdate: {
		auto b = root->body_as_FenceUpdate();
		struct ferry_fence_update &f = u.fence_update;
		f.ctx_id = b->ctx_id();
		f.lost = b->lost();
		records(b->slots(), FERRY_FENCE_PAGE_QUEUES_WIRE, "FenceUpdate has more than 128 slots", &f.slots,
			&f.nr_slots);
		for (uint32_t i = 0; i < f.nr_slots; i++)
			if (f.slots[i].queue_id >= FERRY_FENCE_PAGE_QUEUES_WIRE)
				reject("FenceUpdate names a queue past the fence page");
		return;
	}
	case wire::Body_BoCpuPrep: {
		auto b = root->body_as_BoCpuPrep();
		u.bo_cpu_prep.ctx_id = b->ctx_id();
		u.bo_cpu_prep.bo_id = b->bo_id();
		u.bo_cpu_prep.op = b->op();
		u.bo_cpu_prep.timeout_ns = b->timeout_ns();
		return;
	}
	case wire::Body_MsmSubmit: {
		auto b = root->body_as_MsmSubmit();
		struct ferry_msm_submit &s = u.msm_submit;
		s.ctx_id = b->ctx_id();
		s.queue_id = b->queue_id();
		s.seqno = b->seqno();
		s.flags = b->flags();
		records(b->bos(), FERRY_MAX_SUBMIT_BOS, "submit has more than FERRY_MAX_SUBMIT_BOS bos", &s.bos,
			&s.nr_bos);
		records(b->cmds(), FERRY_MAX_SUBMIT_CMDS, "submit has more than FERRY_MAX_SUBMIT_CMDS cmds",
			&s.cmds, &s.nr_cmds);
		records(b->relocs(), FERRY_MAX_SUBMIT_RELOCS,
			"submit has more than FERRY_MAX_SUBMIT_RELOCS relocs", &s.relocs, &s.nr_relocs);
		records(b->in_fences(), FERRY_MAX_SUBMIT_IN_FENCES,
			"submit has more than FERRY_MAX_SUBMIT_IN_FENCES in-fences", &s.in_fences,
			&s.nr_in_fences);
		return;
	}
	case wire::Body_FenceWait: {
		auto b = root->body_as_FenceWait();
		u.fence_wait.ctx_id = b->ctx_id();
		u.fence_wait.queue_id = b->queue_id();
		u.fence_wait.seqno = b->seqno();
		u.fence_wait.timeout_ns = b->timeout_ns();
		return;
	}
	case wire::Body_HelloReply: {
		auto b = root->body_as_HelloReply();
		u.hello_reply.version = b->version();
		u.hello_reply.features = b->features();
		u.hello_reply.server = required_string(b->server());
		return;
	}
	case wire::Body_DeviceInfo: {
		auto b = root->body_as_DeviceInfo();
		u.device_info.family = b->family();
		u.device_info.name = required_string(b->name());
		records(b->params(), FERRY_MAX_DEVICE_PARAMS, "device info has more than FERRY_MAX_DEVICE_PARAMS params",
			&u.device_info.params, &u.device_info.nr_params);
		return;
	}
	case wire::Body_ContextCreated:
		u.context_created.ctx_id = root->body_as_ContextCreated()->ctx_id();
		return;
	case wire::Body_BoCreateBatch: {
		auto b = root->body_as_BoCreateBatch();
		struct ferry_bo_create_batch &c = u.bo_create_batch;
		c.ctx_id = b->ctx_id();
		c.first_bo_id = b->first_bo_id();
		c.count = b->count();
		c.size = b->size();
		c.flags = b->flags();
		return;
	}
	case wire::Body_BoBatchCreated: {
		auto b = root->body_as_BoBatchCreated();
		struct ferry_bo_batch_created &c = u.bo_batch_created;
		c.ctx_id = b->ctx_id();
		c.first_bo_id = b->first_bo_id();
		c.size = b->size();
		auto v = b->iovas();
		if (!v || v->size() == 0)
			reject("BoBatchCreated has no BOs");
		if (v->size() > FERRY_MAX_BO_BATCH)
			reject("BoBatchCreated has more than FERRY_MAX_BO_BATCH BOs");
		// The Verifier aligns a vector's length word to 4 only; a u64 element needs 8.
		if ((uintptr_t)v->Data() % alignof(uint64_t) != 0)
			reject("BoBatchCreated iovas misaligned");
		c.count = v->size();
		for (uint32_t i = 0; i < c.count; i++)
			c.iova[i] = v->Get(i);
		return;
	}
	case wire::Body_BoCreated: {
		auto b = root->body_as_BoCreated();
		u.bo_created.ctx_id = b->ctx_id();
		u.bo_created.bo_id = b->bo_id();
		u.bo_created.size = b->size();
		u.bo_created.iova = b->iova();
		return;
	}
	case wire::Body_BoInfoReply: {
		auto b = root->body_as_BoInfoReply();
		u.bo_info_reply.ctx_id = b->ctx_id();
		u.bo_info_reply.bo_id = b->bo_id();
		u.bo_info_reply.size = b->size();
		u.bo_info_reply.iova = b->iova();
		u.bo_info_reply.flags = b->flags();
		return;
	}
	case wire::Body_StatusReply:
		u.status_reply.error = root->body_as_StatusReply()->error();
		u.status_reply.value = root->body_as_StatusReply()->value();
		return;
	case wire::Body_Error: {
		auto b = root->body_as_Error();
		u.error.request_kind = b->request_kind();
		u.error.error = b->error();
		u.error.message = required_string(b->message());
		return;
	}
	case wire::Body_FenceSignaled: {
		auto b = root->body_as_FenceSignaled();
		u.fence_signaled.ctx_id = b->ctx_id();
		u.fence_signaled.queue_id = b->queue_id();
		u.fence_signaled.seqno = b->seqno();
		u.fence_signaled.status = b->status();
		return;
	}
	case wire::Body_FaultReport: {
		auto b = root->body_as_FaultReport();
		struct ferry_fault_report &f = u.fault_report;
		f.ctx_id = b->ctx_id();
		f.queue_id = b->queue_id();
		f.seqno = b->seqno();
		f.flags = b->flags();
		f.iova = b->iova();
		f.ib_iova = b->ib_iova();
		f.ib_dword = b->ib_dword();
		f.ib_level = b->ib_level();
		f.opcode = b->opcode();
		f.source = b->source();
		f.text = required_string(b->text(), FERRY_MAX_REPORT_TEXT);
		return;
	}
	case wire::Body_V3dSubmitCl: {
		auto b = root->body_as_V3dSubmitCl();
		struct ferry_v3d_submit_cl &s = u.v3d_submit_cl;
		s.ctx_id = b->ctx_id();
		s.queue_id = b->queue_id();
		s.seqno = b->seqno();
		s.flags = b->flags();
		s.bcl_start = b->bcl_start();
		s.bcl_end = b->bcl_end();
		s.rcl_start = b->rcl_start();
		s.rcl_end = b->rcl_end();
		s.qma = b->qma();
		s.qms = b->qms();
		s.qts = b->qts();
		word_list(b->bos(), FERRY_MAX_SUBMIT_BOS, "submit has more than FERRY_MAX_SUBMIT_BOS bos", &s.bo_ids,
			  &s.nr_bos);
		records(b->in_fences(), FERRY_MAX_SUBMIT_IN_FENCES,
			"submit has more than FERRY_MAX_SUBMIT_IN_FENCES in-fences", &s.in_fences, &s.nr_in_fences);
		return;
	}
	case wire::Body_V3dSubmitTfu: {
		auto b = root->body_as_V3dSubmitTfu();
		struct ferry_v3d_submit_tfu &s = u.v3d_submit_tfu;
		s.ctx_id = b->ctx_id();
		s.queue_id = b->queue_id();
		s.seqno = b->seqno();
		s.flags = b->flags();
		s.icfg = b->icfg();
		s.iia = b->iia();
		s.iis = b->iis();
		s.ica = b->ica();
		s.iua = b->iua();
		s.ioa = b->ioa();
		s.ios = b->ios();
		s.coef[0] = b->coef0();
		s.coef[1] = b->coef1();
		s.coef[2] = b->coef2();
		s.coef[3] = b->coef3();
		s.v71_ioc = b->v71_ioc();
		word_list(b->bos(), FERRY_V3D_MAX_TFU_BOS, "TFU submit has more than FERRY_V3D_MAX_TFU_BOS bos",
			  &s.bo_ids, &s.nr_bos);
		records(b->in_fences(), FERRY_MAX_SUBMIT_IN_FENCES,
			"submit has more than FERRY_MAX_SUBMIT_IN_FENCES in-fences", &s.in_fences, &s.nr_in_fences);
		return;
	}
	case wire::Body_V3dSubmitCsd: {
		auto b = root->body_as_V3dSubmitCsd();
		struct ferry_v3d_submit_csd &s = u.v3d_submit_csd;
		s.ctx_id = b->ctx_id();
		s.queue_id = b->queue_id();
		s.seqno = b->seqno();
		s.flags = b->flags();
		auto cfg = b->cfg();
		if (!cfg || cfg->size() != FERRY_V3D_CSD_CFG_WORDS)
			reject("CSD submit must carry exactly 7 cfg words");
		for (uint32_t i = 0; i < FERRY_V3D_CSD_CFG_WORDS; i++)
			s.cfg[i] = cfg->Get(i);
		word_list(b->bos(), FERRY_MAX_SUBMIT_BOS, "submit has more than FERRY_MAX_SUBMIT_BOS bos", &s.bo_ids,
			  &s.nr_bos);
		records(b->in_fences(), FERRY_MAX_SUBMIT_IN_FENCES,
			"submit has more than FERRY_MAX_SUBMIT_IN_FENCES in-fences", &s.in_fences, &s.nr_in_fences);
		return;
	}
	case wire::Body_NONE:
		break;
	}
	reject("message body has an unknown type");
}

// Message -> body -> vector is the deepest any message goes; a little room for growth.
constexpr flatbuffers::uoffset_t kMaxDepth = 8;
constexpr flatbuffers::uoffset_t kMaxTables = 16;

} // namespace

extern "C" int ferry_wire_decode(const void *payload, size_t len, struct ferry_msg *msg, const char **why)
{
	const char *reason = nullptr;
	if (!msg) {
		if (why)
			*why = "no message to decode into";
		return -EBADMSG;
	}
	memset(msg, 0, sizeof(*msg));
	const uint8_t *buf = static_cast<const uint8_t *>(payload);

	if (!buf || len == 0)
		reason = "empty payload";
	else if (len > FERRY_MAX_FRAME_SIZE)
		reason = "payload larger than FERRY_MAX_FRAME_SIZE";
	else if ((uintptr_t)buf % 8 != 0)
		reason = "payload not 8-byte aligned";

	if (!reason) {
		flatbuffers::Verifier::Options opts;
		opts.max_depth = kMaxDepth;
		opts.max_tables = kMaxTables;
		opts.check_alignment = true;
		flatbuffers::Verifier verifier(buf, len, opts);
		if (len >= 8 && !wire::MessageBufferHasIdentifier(buf))
			reason = "not a ferry message (file identifier is not FRY1)";
		else if (!wire::VerifyMessageBuffer(verifier))
			reason = "FlatBuffers verification failed";
	}

	if (!reason) {
		const wire::Message *root = wire::GetMessage(buf);
		unsigned type = (unsigned)root->body_type();
		if (type == wire::Body_NONE)
			reason = "message has no body";
		else if (type > wire::Body_MAX)
			reason = "message body has an unknown type";
		else if (!root->body())
			reason = "message body type set but body missing";
		if (!reason) {
			msg->kind = (enum ferry_msg_kind)type;
			msg->seq = root->seq();
			try {
				decode_body(root, msg);
			} catch (const decode_error &e) {
				reason = e.why;
			}
		}
	}

	if (reason) {
		memset(msg, 0, sizeof(*msg));
		if (why)
			*why = reason;
		return -EBADMSG;
	}
	return 0;
}

// ---- field-order self-check ----

namespace {

template <typename C, typename Wire>
bool same_bytes(const char *name, const C &c, const Wire &w)
{
	if (memcmp(&c, &w, sizeof(c)) == 0)
		return true;
	fprintf(stderr, "ferry wire: %s differs between wire.h and ferry.fbs\n", name);
	return false;
}

} // namespace

extern "C" int ferry_wire_check_layout(void)
{
	bool ok = true;
	{
		struct ferry_msm_submit_bo c;
		memset(&c, 0, sizeof(c));
		c.bo_id = 0x01020304;
		c.flags = 0x05060708;
		ok &= same_bytes("msm_submit_bo", c, wire::MsmSubmitBo(0x01020304, 0x05060708));
	}
	{
		struct ferry_msm_submit_cmd c;
		memset(&c, 0, sizeof(c));
		c.type = 1;
		c.bo_index = 2;
		c.offset = 3;
		c.size = 4;
		ok &= same_bytes("msm_submit_cmd", c, wire::MsmSubmitCmd(1, 2, 3, 4));
	}
	{
		struct ferry_msm_submit_reloc c;
		memset(&c, 0, sizeof(c));
		c.cmd_index = 1;
		c.submit_offset = 2;
		c.or_value = 3;
		c.shift = -4;
		c.bo_index = 5;
		c.pad = 6;
		c.bo_offset = 0x0708090a0b0c0d0eull;
		ok &= same_bytes("msm_submit_reloc", c,
				 wire::MsmSubmitReloc(1, 2, 3, -4, 5, 6, 0x0708090a0b0c0d0eull));
	}
	{
		struct ferry_fence_ref c;
		memset(&c, 0, sizeof(c));
		c.queue_id = 7;
		c.seqno = 0x80000001u;
		ok &= same_bytes("fence_ref", c, wire::FenceRef(7, 0x80000001u));
	}
	{
		struct ferry_param c;
		memset(&c, 0, sizeof(c));
		c.id = 9;
		c.pad = 10;
		c.value = 0x1112131415161718ull;
		ok &= same_bytes("param", c, wire::Param(9, 10, 0x1112131415161718ull));
	}
	return ok ? 0 : -1;
}
