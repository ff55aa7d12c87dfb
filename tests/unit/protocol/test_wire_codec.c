/* Codec tests: every kind round-trips, limits hold, and no input — truncated, random, mutated —
 * makes the decoder do anything but return an error or a valid message. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/submit_ring.h"
#include "ferry/wire.h"
#include "test.h"
#include "wire_samples.h"

/* Decoding needs an 8-byte aligned payload; encoded frames start 4 bytes into their buffer. */
static uint64_t scratch[(FERRY_MAX_FRAME_SIZE + 64) / 8];
#define SCRATCH ((uint8_t *)scratch)

static int decode_copy(const uint8_t *payload, size_t len, struct ferry_msg *m, const char **why)
{
	REQUIRE(len <= sizeof(scratch));
	if (len)
		memcpy(scratch, payload, len);
	return ferry_wire_decode(scratch, len, m, why);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Encodes m into a fresh buffer and checks the frame header; the payload starts at data + 4. */
static void encode_ok(const struct ferry_msg *m, struct ferry_buf *b)
{
	ferry_buf_init(b);
	int err = ferry_wire_encode(m, b);
	REQUIRE(err == 0);
	REQUIRE(b->len > FERRY_FRAME_HDR_SIZE);
	CHECK_EQ(rd32(b->data), b->len - FERRY_FRAME_HDR_SIZE);
}

static int is_inside(const void *p, const void *base, size_t len)
{
	const uint8_t *q = p, *b = base;
	return q >= b && q < b + len;
}

/* Where the Message table keeps its body_type byte (field 1), found through its vtable. */
static size_t body_type_offset(const uint8_t *p)
{
	uint32_t root = rd32(p);
	size_t vtable = (size_t)((int64_t)root - (int32_t)rd32(p + root));
	REQUIRE(rd16(p + vtable) >= 4 + 2 * 2);
	uint16_t field = rd16(p + vtable + 4 + 2 * 1);
	REQUIRE(field != 0);
	return root + field;
}

static void test_round_trip_every_kind(void)
{
	for (int k = FERRY_MSG_NONE + 1; k < FERRY_MSG_KIND_COUNT; k++) {
		struct ferry_msg in, out;
		struct ferry_buf b;
		sample_msg((enum ferry_msg_kind)k, &in);
		encode_ok(&in, &b);
		const uint8_t *payload = b.data + FERRY_FRAME_HDR_SIZE;
		size_t len = b.len - FERRY_FRAME_HDR_SIZE;
		CHECK(memcmp(payload + 4, "FRY1", 4) == 0);
		const char *why = NULL;
		int err = decode_copy(payload, len, &out, &why);
		CHECK_EQ(err, 0);
		if (err)
			fprintf(stderr, "  %s: %s\n", ferry_msg_kind_name((enum ferry_msg_kind)k), why);
		CHECK(same_msg(&in, &out));
		if (k == FERRY_MSG_MSM_SUBMIT) {
			/* Zero copy: the arrays are the frame's own bytes. */
			CHECK(is_inside(out.u.msm_submit.bos, scratch, len));
			CHECK(is_inside(out.u.msm_submit.cmds, scratch, len));
			CHECK(is_inside(out.u.msm_submit.relocs, scratch, len));
			CHECK(is_inside(out.u.msm_submit.in_fences, scratch, len));
			CHECK_EQ((uintptr_t)out.u.msm_submit.relocs % 8, 0);
			CHECK_EQ(out.u.msm_submit.relocs[1].bo_offset, 0xfedcba9876543210ull);
			CHECK_EQ(out.u.msm_submit.relocs[0].shift, -2);
		}
		if (k == FERRY_MSG_DEVICE_INFO) {
			CHECK(is_inside(out.u.device_info.params, scratch, len));
			CHECK_EQ((uintptr_t)out.u.device_info.params % 8, 0);
		}
		ferry_buf_free(&b);
	}
}

static void test_frames_append(void)
{
	struct ferry_buf b;
	struct ferry_msg m;
	ferry_buf_init(&b);
	sample_msg(FERRY_MSG_BO_CREATE, &m);
	REQUIRE(ferry_wire_encode(&m, &b) == 0);
	size_t first = b.len;
	sample_msg(FERRY_MSG_FENCE_SIGNALED, &m);
	REQUIRE(ferry_wire_encode(&m, &b) == 0);
	CHECK_EQ(rd32(b.data), first - FERRY_FRAME_HDR_SIZE);
	CHECK_EQ(rd32(b.data + first), b.len - first - FERRY_FRAME_HDR_SIZE);

	struct ferry_msg out;
	CHECK_EQ(decode_copy(b.data + first + 4, b.len - first - 4, &out, NULL), 0);
	CHECK(same_msg(&m, &out));

	ferry_buf_consume(&b, first);
	CHECK_EQ(decode_copy(b.data + 4, b.len - 4, &out, NULL), 0);
	CHECK(same_msg(&m, &out));
	ferry_buf_reset(&b);
	CHECK_EQ(b.len, 0);
	ferry_buf_free(&b);
}

static void test_empty_arrays_and_null_strings(void)
{
	struct ferry_msg in, out;
	struct ferry_buf b;

	memset(&in, 0, sizeof(in));
	in.kind = FERRY_MSG_MSM_SUBMIT;
	in.u.msm_submit.seqno = 5;
	encode_ok(&in, &b);
	REQUIRE(decode_copy(b.data + 4, b.len - 4, &out, NULL) == 0);
	CHECK_EQ(out.u.msm_submit.seqno, 5);
	CHECK_EQ(out.u.msm_submit.nr_bos, 0);
	CHECK_EQ(out.u.msm_submit.nr_cmds, 0);
	CHECK_EQ(out.u.msm_submit.nr_relocs, 0);
	CHECK_EQ(out.u.msm_submit.nr_in_fences, 0);
	CHECK(out.u.msm_submit.bos == NULL && out.u.msm_submit.cmds == NULL);
	CHECK(out.u.msm_submit.relocs == NULL && out.u.msm_submit.in_fences == NULL);
	ferry_buf_free(&b);

	/* Count 0 with a non-NULL pointer is fine too, and still comes back empty. */
	sample_msg(FERRY_MSG_MSM_SUBMIT, &in);
	in.u.msm_submit.nr_relocs = 0;
	encode_ok(&in, &b);
	REQUIRE(decode_copy(b.data + 4, b.len - 4, &out, NULL) == 0);
	CHECK_EQ(out.u.msm_submit.nr_relocs, 0);
	CHECK(out.u.msm_submit.relocs == NULL);
	CHECK_EQ(out.u.msm_submit.nr_bos, 3);
	ferry_buf_free(&b);

	sample_msg(FERRY_MSG_HELLO, &in);
	in.u.hello.token = NULL;
	encode_ok(&in, &b);
	REQUIRE(decode_copy(b.data + 4, b.len - 4, &out, NULL) == 0);
	CHECK(out.u.hello.token == NULL);
	ferry_buf_free(&b);

	sample_msg(FERRY_MSG_HELLO, &in);
	in.u.hello.token = "";
	encode_ok(&in, &b);
	REQUIRE(decode_copy(b.data + 4, b.len - 4, &out, NULL) == 0);
	CHECK(out.u.hello.token != NULL && out.u.hello.token[0] == '\0');
	ferry_buf_free(&b);

	/* Required strings never decode as NULL. */
	sample_msg(FERRY_MSG_DEVICE_INFO, &in);
	in.u.device_info.name = NULL;
	in.u.device_info.nr_params = 0;
	in.u.device_info.params = NULL;
	encode_ok(&in, &b);
	REQUIRE(decode_copy(b.data + 4, b.len - 4, &out, NULL) == 0);
	CHECK(out.u.device_info.name != NULL && out.u.device_info.name[0] == '\0');
	CHECK_EQ(out.u.device_info.nr_params, 0);
	CHECK(out.u.device_info.params == NULL);
	ferry_buf_free(&b);

	const enum ferry_msg_kind with_required[] = { FERRY_MSG_HELLO_REPLY, FERRY_MSG_ERROR, FERRY_MSG_FAULT_REPORT };
	for (size_t i = 0; i < sizeof(with_required) / sizeof(with_required[0]); i++) {
		sample_msg(with_required[i], &in);
		in.u.hello_reply.server = NULL;
		in.u.error.message = NULL;
		in.u.fault_report.text = NULL;
		encode_ok(&in, &b);
		REQUIRE(decode_copy(b.data + 4, b.len - 4, &out, NULL) == 0);
		const char *s = with_required[i] == FERRY_MSG_HELLO_REPLY ? out.u.hello_reply.server
				: with_required[i] == FERRY_MSG_ERROR     ? out.u.error.message
									  : out.u.fault_report.text;
		CHECK(s != NULL && s[0] == '\0');
		ferry_buf_free(&b);
	}
}

static void test_encode_rejects(void)
{
	struct ferry_buf b;
	struct ferry_msg m;
	ferry_buf_init(&b);
	REQUIRE(ferry_buf_append(&b, "xyz", 3) == 0);

	memset(&m, 0, sizeof(m));
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	m.kind = FERRY_MSG_KIND_COUNT;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	m.kind = (enum ferry_msg_kind)999;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	CHECK_EQ(b.len, 3);

	/* Strings: FERRY_MAX_STRING bytes pass, one more does not. */
	char *long_str = malloc(FERRY_MAX_STRING + 2);
	REQUIRE(long_str);
	memset(long_str, 'a', FERRY_MAX_STRING + 1);
	long_str[FERRY_MAX_STRING + 1] = '\0';
	sample_msg(FERRY_MSG_ERROR, &m);
	m.u.error.message = long_str;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	CHECK_EQ(b.len, 3);
	long_str[FERRY_MAX_STRING] = '\0';
	CHECK_EQ(ferry_wire_encode(&m, &b), 0);
	CHECK(b.len > 3 + FERRY_MAX_STRING);
	free(long_str);

	/* A count with no array behind it. */
	size_t before = b.len;
	sample_msg(FERRY_MSG_MSM_SUBMIT, &m);
	m.u.msm_submit.cmds = NULL;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	sample_msg(FERRY_MSG_DEVICE_INFO, &m);
	m.u.device_info.params = NULL;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	CHECK_EQ(b.len, before);

	/* A count far beyond the frame is refused before the array is read (it is 2 entries). */
	sample_msg(FERRY_MSG_MSM_SUBMIT, &m);
	m.u.msm_submit.nr_relocs = 0xffffffffu;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EMSGSIZE);
	sample_msg(FERRY_MSG_DEVICE_INFO, &m);
	m.u.device_info.nr_params = 0xffffffffu;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EMSGSIZE);

	/* Arrays that fit alone but not with the rest of the message. */
	uint32_t n = FERRY_MAX_FRAME_SIZE / sizeof(struct ferry_msm_submit_reloc);
	struct ferry_msm_submit_reloc *relocs = calloc(n, sizeof(*relocs));
	REQUIRE(relocs);
	sample_msg(FERRY_MSG_MSM_SUBMIT, &m);
	m.u.msm_submit.relocs = relocs;
	m.u.msm_submit.nr_relocs = n;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EMSGSIZE);
	CHECK_EQ(b.len, before);
	/* ...and the encoder is fine afterwards. */
	m.u.msm_submit.nr_relocs = 1000;
	CHECK_EQ(ferry_wire_encode(&m, &b), 0);
	free(relocs);

	CHECK_EQ(ferry_wire_encode(NULL, &b), -EINVAL);
	ferry_buf_free(&b);
}

/* Encodes a submit with count elements in one array (the encoder does not police the limits,
 * so tests can make over-limit frames) and decodes it. */
static int decode_submit_with(int which, uint32_t count, const char **why)
{
	static struct ferry_msm_submit_reloc big[FERRY_MAX_SUBMIT_RELOCS + 1];
	struct ferry_msg m, out;
	struct ferry_buf b;
	sample_msg(FERRY_MSG_MSM_SUBMIT, &m);
	struct ferry_msm_submit *s = &m.u.msm_submit;
	switch (which) {
	case 0: s->bos = (const void *)big; s->nr_bos = count; break;
	case 1: s->cmds = (const void *)big; s->nr_cmds = count; break;
	case 2: s->relocs = big; s->nr_relocs = count; break;
	case 3: s->in_fences = (const void *)big; s->nr_in_fences = count; break;
	}
	encode_ok(&m, &b);
	int err = decode_copy(b.data + 4, b.len - 4, &out, why);
	if (err == 0)
		CHECK(same_msg(&m, &out));
	else
		CHECK_EQ(out.kind, FERRY_MSG_NONE);
	ferry_buf_free(&b);
	return err;
}

static void test_decode_limits(void)
{
	const uint32_t limits[4] = { FERRY_MAX_SUBMIT_BOS, FERRY_MAX_SUBMIT_CMDS, FERRY_MAX_SUBMIT_RELOCS,
				     FERRY_MAX_SUBMIT_IN_FENCES };
	const char *names[4] = { "BOS", "CMDS", "RELOCS", "IN_FENCES" };
	for (int i = 0; i < 4; i++) {
		const char *why = NULL;
		CHECK_EQ(decode_submit_with(i, limits[i], &why), 0);
		why = NULL;
		CHECK_EQ(decode_submit_with(i, limits[i] + 1, &why), -EBADMSG);
		CHECK(why && strstr(why, names[i]));
	}

	static struct ferry_param params[FERRY_MAX_DEVICE_PARAMS + 1];
	struct ferry_msg m, out;
	struct ferry_buf b;
	const char *why = NULL;
	sample_msg(FERRY_MSG_DEVICE_INFO, &m);
	m.u.device_info.params = params;
	m.u.device_info.nr_params = FERRY_MAX_DEVICE_PARAMS;
	encode_ok(&m, &b);
	CHECK_EQ(decode_copy(b.data + 4, b.len - 4, &out, &why), 0);
	ferry_buf_free(&b);
	m.u.device_info.nr_params = FERRY_MAX_DEVICE_PARAMS + 1;
	encode_ok(&m, &b);
	CHECK_EQ(decode_copy(b.data + 4, b.len - 4, &out, &why), -EBADMSG);
	ferry_buf_free(&b);

	/* Oversized payloads are refused before anything is read. */
	CHECK_EQ(ferry_wire_decode(scratch, FERRY_MAX_FRAME_SIZE + 1, &out, &why), -EBADMSG);
	CHECK_EQ(ferry_wire_decode(NULL, 0, &out, &why), -EBADMSG);
	CHECK_EQ(ferry_wire_decode(scratch, 0, &out, NULL), -EBADMSG);
}

/* The decoder's ring-size rule is ferry_ring_size_ok's, for both ring messages. */
static void test_ring_sizes(void)
{
	const uint32_t sizes[] = { 0, 1, 4096, 8192, 16383, 16384, 16400, 32768, 65536, 3u << 14, 1u << 19,
				   1u << 20, (1u << 20) + 16, 1u << 21, 1u << 31, 0xffffffffu };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (int k = 0; k < 2; k++) {
			struct ferry_msg m, out;
			struct ferry_buf b;
			const char *why = NULL;
			sample_msg(k ? FERRY_MSG_RING_CREATED : FERRY_MSG_RING_CREATE, &m);
			if (k)
				m.u.ring_created.data_size = sizes[i];
			else
				m.u.ring_create.data_size = sizes[i];
			encode_ok(&m, &b);
			int err = decode_copy(b.data + 4, b.len - 4, &out, &why);
			CHECK_EQ(err, ferry_ring_size_ok(sizes[i]) ? 0 : -EBADMSG);
			if (err)
				CHECK(why && strstr(why, "data_size"));
			ferry_buf_free(&b);
		}
	}
}

static void test_decode_string_rules(void)
{
	char *token = malloc(FERRY_MAX_STRING + 1);
	REQUIRE(token);
	memset(token, 't', FERRY_MAX_STRING);
	token[FERRY_MAX_STRING] = '\0';

	struct ferry_msg m, out;
	struct ferry_buf b;
	const char *why = NULL;
	sample_msg(FERRY_MSG_HELLO, &m);
	m.u.hello.token = token;
	encode_ok(&m, &b);
	uint8_t *payload = b.data + 4;
	size_t len = b.len - 4;
	REQUIRE(decode_copy(payload, len, &out, &why) == 0);
	CHECK(same_msg(&m, &out));
	size_t str_at = (size_t)((const uint8_t *)out.u.hello.token - SCRATCH);
	CHECK_EQ(rd32(payload + str_at - 4), FERRY_MAX_STRING);

	/* One byte longer (the terminator becomes content; the pad byte after it terminates). */
	REQUIRE(str_at + FERRY_MAX_STRING + 1 < len && payload[str_at + FERRY_MAX_STRING + 1] == 0);
	wr32(payload + str_at - 4, FERRY_MAX_STRING + 1);
	why = NULL;
	CHECK_EQ(decode_copy(payload, len, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "FERRY_MAX_STRING"));
	wr32(payload + str_at - 4, FERRY_MAX_STRING);

	/* An embedded NUL would make the C string lie about its length. */
	payload[str_at + 10] = '\0';
	why = NULL;
	CHECK_EQ(decode_copy(payload, len, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "NUL"));
	ferry_buf_free(&b);
	free(token);
}

/* FaultReport.text has its own, larger limit (FERRY_MAX_REPORT_TEXT): a report of that size
 * round-trips, one byte more is refused on both sides, and other strings keep FERRY_MAX_STRING. */
static void test_fault_report_text_limit(void)
{
	char *text = malloc(FERRY_MAX_REPORT_TEXT + 2);
	REQUIRE(text);
	memset(text, 'r', FERRY_MAX_REPORT_TEXT + 1);
	text[FERRY_MAX_REPORT_TEXT] = '\0';

	struct ferry_msg m, out;
	struct ferry_buf b;
	const char *why = NULL;
	sample_msg(FERRY_MSG_FAULT_REPORT, &m);
	m.u.fault_report.text = text;
	encode_ok(&m, &b);
	CHECK(b.len - 4 <= FERRY_MAX_FRAME_SIZE);
	uint8_t *payload = b.data + 4;
	size_t len = b.len - 4;
	REQUIRE(decode_copy(payload, len, &out, &why) == 0);
	CHECK(same_msg(&m, &out));
	CHECK_EQ(strlen(out.u.fault_report.text), FERRY_MAX_REPORT_TEXT);

	/* The decoder refuses a length prefix one past the limit. */
	size_t str_at = (size_t)((const uint8_t *)out.u.fault_report.text - SCRATCH);
	CHECK_EQ(rd32(payload + str_at - 4), FERRY_MAX_REPORT_TEXT);
	REQUIRE(str_at + FERRY_MAX_REPORT_TEXT + 1 < len && payload[str_at + FERRY_MAX_REPORT_TEXT + 1] == 0);
	wr32(payload + str_at - 4, FERRY_MAX_REPORT_TEXT + 1);
	why = NULL;
	CHECK_EQ(decode_copy(payload, len, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "FERRY_MAX_REPORT_TEXT"));
	ferry_buf_free(&b);

	/* The encoder refuses one byte more. */
	ferry_buf_init(&b);
	text[FERRY_MAX_REPORT_TEXT] = 'r';
	text[FERRY_MAX_REPORT_TEXT + 1] = '\0';
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	CHECK_EQ(b.len, 0);

	/* The larger limit is FaultReport.text's alone: an ERROR message past FERRY_MAX_STRING still
	 * fails. */
	text[FERRY_MAX_STRING + 1] = '\0';
	sample_msg(FERRY_MSG_ERROR, &m);
	m.u.error.message = text;
	CHECK_EQ(ferry_wire_encode(&m, &b), -EINVAL);
	ferry_buf_free(&b);
	free(text);
}

static void test_decode_rejects_bad_envelope(void)
{
	struct ferry_msg m, out;
	struct ferry_buf b;
	const char *why;
	sample_msg(FERRY_MSG_FENCE_WAIT, &m);
	encode_ok(&m, &b);
	uint8_t *payload = b.data + 4;
	size_t len = b.len - 4;
	size_t type_at = body_type_offset(payload);
	CHECK_EQ(payload[type_at], FERRY_MSG_FENCE_WAIT);

	/* A union member from a newer schema: rejected by name, not misread. */
	payload[type_at] = FERRY_MSG_KIND_COUNT;
	why = NULL;
	CHECK_EQ(decode_copy(payload, len, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "unknown"));
	CHECK_EQ(out.kind, FERRY_MSG_NONE);
	payload[type_at] = 0xff;
	CHECK_EQ(decode_copy(payload, len, &out, &why), -EBADMSG);
	payload[type_at] = FERRY_MSG_NONE;
	why = NULL;
	CHECK_EQ(decode_copy(payload, len, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "no body"));

	/* Another known kind over the same table: verified as that kind, so either a valid message
	 * or an error, never a crash. */
	for (int k = 1; k < FERRY_MSG_KIND_COUNT; k++) {
		payload[type_at] = (uint8_t)k;
		int err = decode_copy(payload, len, &out, &why);
		CHECK(err == 0 || err == -EBADMSG);
		if (err == 0)
			CHECK_EQ(out.kind, k);
	}
	payload[type_at] = FERRY_MSG_FENCE_WAIT;
	CHECK_EQ(decode_copy(payload, len, &out, NULL), 0);

	payload[4] = 'X';
	why = NULL;
	CHECK_EQ(decode_copy(payload, len, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "FRY1"));
	payload[4] = 'F';

	/* Misaligned payloads are refused, not read. */
	memcpy(SCRATCH + 4, payload, len);
	why = NULL;
	CHECK_EQ(ferry_wire_decode(SCRATCH + 4, len, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "aligned"));
	ferry_buf_free(&b);

	/* A misaligned array of 8-byte records inside an otherwise valid frame. */
	sample_msg(FERRY_MSG_DEVICE_INFO, &m);
	encode_ok(&m, &b);
	payload = b.data + 4;
	len = b.len - 4;
	REQUIRE(decode_copy(payload, len, &out, NULL) == 0);
	size_t params_at = (size_t)((const uint8_t *)out.u.device_info.params - SCRATCH);
	size_t vec_at = params_at - 4; /* the length word */
	size_t vec_bytes = 4 + 3 * sizeof(struct ferry_param);
	/* Find the uoffset that targets the vector: it lives in the DeviceInfo table. */
	size_t ref = 0;
	for (size_t i = 0; i + 4 <= len; i += 4)
		if (rd32(payload + i) != 0 && i + rd32(payload + i) == vec_at)
			ref = i;
	REQUIRE(ref != 0);
	/* Append a copy whose records start at 4 mod 8 and repoint the field at it. */
	size_t new_at = (len + 7) & ~(size_t)7;
	size_t new_len = new_at + vec_bytes + 4;
	uint8_t *moved = calloc(1, new_len);
	REQUIRE(moved);
	memcpy(moved, payload, len);
	memcpy(moved + new_at, payload + vec_at, vec_bytes);
	wr32(moved + ref, (uint32_t)(new_at - ref));
	why = NULL;
	int err = decode_copy(moved, new_len, &out, &why);
	CHECK_EQ(err, -EBADMSG);
	CHECK(why && strstr(why, "misaligned"));
	/* The same copy at an aligned spot is accepted: the rejection was for alignment alone. */
	memset(moved + new_at, 0, vec_bytes);
	memcpy(moved + new_at + 4, payload + vec_at, vec_bytes);
	wr32(moved + ref, (uint32_t)(new_at + 4 - ref));
	CHECK_EQ(decode_copy(moved, new_len, &out, NULL), 0);
	CHECK(same_msg(&m, &out));
	free(moved);
	ferry_buf_free(&b);
}

/* Either a clean error with a reason and a cleared message, or a message whose every pointer
 * can be read (ASan checks that). */
static void check_sane_decode(const uint8_t *bytes, size_t len, const struct ferry_msg *original, int *accepted)
{
	struct ferry_msg out;
	const char *why = NULL;
	int err = decode_copy(bytes, len, &out, &why);
	if (err == 0) {
		(*accepted)++;
		CHECK(out.kind > FERRY_MSG_NONE && out.kind < FERRY_MSG_KIND_COUNT);
		volatile uint64_t sink = touch_msg(&out);
		(void)sink;
		if (original)
			CHECK(same_msg(original, &out));
	} else {
		CHECK_EQ(err, -EBADMSG);
		CHECK(why != NULL);
		CHECK_EQ(out.kind, FERRY_MSG_NONE);
	}
}

static void test_truncated_every_length(void)
{
	int accepted = 0, total = 0;
	for (int k = 1; k < FERRY_MSG_KIND_COUNT; k++) {
		struct ferry_msg m;
		struct ferry_buf b;
		sample_msg((enum ferry_msg_kind)k, &m);
		encode_ok(&m, &b);
		size_t len = b.len - 4;
		for (size_t cut = 0; cut < len; cut++, total++) {
			int before = accepted;
			check_sane_decode(b.data + 4, cut, &m, &accepted);
			/* Only trailing alignment padding may be cut without losing the message
			 * (check_sane_decode already compared it with the original). */
			if (accepted != before)
				for (size_t i = cut; i < len; i++)
					CHECK_EQ(b.data[4 + i], 0);
		}
		ferry_buf_free(&b);
	}
	fprintf(stderr, "  %d truncations, %d accepted\n", total, accepted);
}

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: deterministic per seed, so a failure reproduces. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static void test_random_bytes(void)
{
	static uint8_t bytes[1024];
	int accepted = 0;
	for (uint64_t seed = 1; seed <= 5000; seed++) {
		uint64_t s = seed * 0x9E3779B97F4A7C15ull;
		size_t len = (size_t)(rng_next(&s) % sizeof(bytes));
		for (size_t i = 0; i < len; i++)
			bytes[i] = (uint8_t)rng_next(&s);
		/* Half the seeds get a plausible envelope so they reach past the identifier check. */
		if (seed % 2 == 0 && len >= 16) {
			wr32(bytes, (uint32_t)(8 + 4 * (rng_next(&s) % 8)));
			memcpy(bytes + 4, "FRY1", 4);
		}
		check_sane_decode(bytes, len, NULL, &accepted);
	}
	fprintf(stderr, "  5000 random inputs, %d accepted\n", accepted);

	/* Valid frames with a few random bytes splatted over them reach deeper than pure noise. */
	accepted = 0;
	for (uint64_t seed = 1; seed <= 5000; seed++) {
		uint64_t s = seed * 0xD1B54A32D192ED03ull;
		struct ferry_msg m;
		struct ferry_buf b;
		sample_msg((enum ferry_msg_kind)(1 + rng_next(&s) % (FERRY_MSG_KIND_COUNT - 1)), &m);
		encode_ok(&m, &b);
		size_t len = b.len - 4;
		REQUIRE(len <= sizeof(bytes));
		memcpy(bytes, b.data + 4, len);
		int splats = 1 + (int)(rng_next(&s) % 8);
		for (int i = 0; i < splats; i++)
			bytes[rng_next(&s) % len] = (uint8_t)rng_next(&s);
		check_sane_decode(bytes, len, NULL, &accepted);
		ferry_buf_free(&b);
	}
	fprintf(stderr, "  5000 splatted frames, %d accepted\n", accepted);
}

static void test_single_byte_mutations(void)
{
	static const uint8_t how[][2] = { { 0x01, 0 }, { 0x80, 0 }, { 0xff, 0 }, { 0, 1 }, { 0xff, 1 }, { 0x7f, 1 } };
	int accepted = 0, total = 0;
	uint8_t *copy = malloc(FERRY_MAX_FRAME_SIZE);
	REQUIRE(copy);
	for (int k = 1; k < FERRY_MSG_KIND_COUNT; k++) {
		struct ferry_msg m;
		struct ferry_buf b;
		sample_msg((enum ferry_msg_kind)k, &m);
		encode_ok(&m, &b);
		size_t len = b.len - 4;
		for (size_t at = 0; at < len; at++) {
			for (size_t h = 0; h < sizeof(how) / sizeof(how[0]); h++) {
				memcpy(copy, b.data + 4, len);
				copy[at] = how[h][1] ? how[h][0] : (uint8_t)(copy[at] ^ how[h][0]);
				check_sane_decode(copy, len, NULL, &accepted);
				total++;
			}
		}
		ferry_buf_free(&b);
	}
	free(copy);
	CHECK(accepted > 0); /* changing a scalar field still gives a valid message */
	CHECK(accepted < total);
	fprintf(stderr, "  %d mutations, %d accepted\n", total, accepted);
}

/* V3D submit rules: the TFU bo list is at most 4, the u32 arrays point into the frame, a
 * QueueCreate from an older sender (no kind field) decodes as kind 0. */
static void test_v3d_submits(void)
{
	struct ferry_msg in, out;
	struct ferry_buf b;
	const char *why = NULL;
	static const uint32_t five[5] = { 1, 2, 3, 4, 5 };

	sample_msg(FERRY_MSG_V3D_SUBMIT_TFU, &in);
	in.u.v3d_submit_tfu.bo_ids = five;
	in.u.v3d_submit_tfu.nr_bos = 5;
	encode_ok(&in, &b);
	CHECK_EQ(decode_copy(b.data + FERRY_FRAME_HDR_SIZE, b.len - FERRY_FRAME_HDR_SIZE, &out, &why), -EBADMSG);
	CHECK(why && strstr(why, "FERRY_V3D_MAX_TFU_BOS"));
	ferry_buf_free(&b);

	sample_msg(FERRY_MSG_V3D_SUBMIT_CL, &in);
	in.u.v3d_submit_cl.nr_bos = 0;
	in.u.v3d_submit_cl.bo_ids = NULL;
	encode_ok(&in, &b);
	size_t len = b.len - FERRY_FRAME_HDR_SIZE;
	CHECK_EQ(decode_copy(b.data + FERRY_FRAME_HDR_SIZE, len, &out, &why), 0);
	CHECK(same_msg(&in, &out));
	CHECK(out.u.v3d_submit_cl.bo_ids == NULL);
	ferry_buf_free(&b);

	sample_msg(FERRY_MSG_V3D_SUBMIT_CSD, &in);
	encode_ok(&in, &b);
	len = b.len - FERRY_FRAME_HDR_SIZE;
	CHECK_EQ(decode_copy(b.data + FERRY_FRAME_HDR_SIZE, len, &out, &why), 0);
	CHECK(is_inside(out.u.v3d_submit_csd.bo_ids, scratch, len));
	CHECK_EQ(out.u.v3d_submit_csd.cfg[6], 0x80000);
	ferry_buf_free(&b);

	/* Encoding a null array with a count is the caller's bug, refused. */
	sample_msg(FERRY_MSG_V3D_SUBMIT_CL, &in);
	in.u.v3d_submit_cl.bo_ids = NULL;
	ferry_buf_init(&b);
	CHECK_EQ(ferry_wire_encode(&in, &b), -EINVAL);
	CHECK_EQ(b.len, 0);
	ferry_buf_free(&b);

	sample_msg(FERRY_MSG_QUEUE_CREATE, &in);
	in.u.queue_create.kind = 0;
	encode_ok(&in, &b);
	CHECK_EQ(decode_copy(b.data + FERRY_FRAME_HDR_SIZE, b.len - FERRY_FRAME_HDR_SIZE, &out, &why), 0);
	CHECK_EQ(out.u.queue_create.kind, FERRY_QUEUE_KIND_DEFAULT);
	ferry_buf_free(&b);
	CHECK(strcmp(ferry_msg_kind_name(FERRY_MSG_V3D_SUBMIT_CSD), "v3d_submit_csd") == 0);
}

static void test_layout_and_names(void)
{
	CHECK_EQ(ferry_wire_check_layout(), 0);
	CHECK_EQ(sizeof(struct ferry_msm_submit_reloc), 32);
	CHECK_EQ(sizeof(struct ferry_param), 16);

	for (int a = 0; a < FERRY_MSG_KIND_COUNT; a++) {
		const char *na = ferry_msg_kind_name((enum ferry_msg_kind)a);
		REQUIRE(na != NULL);
		CHECK(strcmp(na, "unknown") != 0);
		for (int b = 0; b < a; b++)
			CHECK(strcmp(na, ferry_msg_kind_name((enum ferry_msg_kind)b)) != 0);
	}
	CHECK(strcmp(ferry_msg_kind_name(FERRY_MSG_MSM_SUBMIT), "msm_submit") == 0);
	CHECK(strcmp(ferry_msg_kind_name(FERRY_MSG_KIND_COUNT), "unknown") == 0);
	CHECK(strcmp(ferry_msg_kind_name((enum ferry_msg_kind)-1), "unknown") == 0);
}

int main(void)
{
	RUN_TEST(test_round_trip_every_kind);
	RUN_TEST(test_frames_append);
	RUN_TEST(test_empty_arrays_and_null_strings);
	RUN_TEST(test_encode_rejects);
	RUN_TEST(test_decode_limits);
	RUN_TEST(test_ring_sizes);
	RUN_TEST(test_decode_string_rules);
	RUN_TEST(test_fault_report_text_limit);
	RUN_TEST(test_decode_rejects_bad_envelope);
	RUN_TEST(test_truncated_every_length);
	RUN_TEST(test_random_bytes);
	RUN_TEST(test_single_byte_mutations);
	RUN_TEST(test_v3d_submits);
	RUN_TEST(test_layout_and_names);
	return test_finish();
}
