/* A C-only program using ferry_wire_dep: proves the C++ codec (and libstdc++ with it) links into
 * plain C executables, as it must for ferryd, libferry and the shim. */
#include <errno.h>
#include <stdalign.h>
#include <string.h>

#include "ferry/wire.h"
#include "test.h"

static void test_encode_decode_from_c(void)
{
	struct ferry_msg in, out;
	memset(&in, 0, sizeof(in));
	in.kind = FERRY_MSG_HELLO;
	in.seq = 7;
	in.u.hello.version = FERRY_PROTOCOL_VERSION;
	in.u.hello.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM;
	in.u.hello.token = "from C";

	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(&in, &b) == 0);
	REQUIRE(b.len > FERRY_FRAME_HDR_SIZE);

	alignas(8) static uint8_t payload[256];
	size_t len = b.len - FERRY_FRAME_HDR_SIZE;
	REQUIRE(len <= sizeof(payload));
	memcpy(payload, b.data + FERRY_FRAME_HDR_SIZE, len);
	const char *why = NULL;
	CHECK_EQ(ferry_wire_decode(payload, len, &out, &why), 0);
	CHECK_EQ(out.kind, FERRY_MSG_HELLO);
	CHECK_EQ(out.seq, 7);
	CHECK_EQ(out.u.hello.version, FERRY_PROTOCOL_VERSION);
	CHECK_EQ(out.u.hello.features, FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM);
	CHECK(out.u.hello.token && strcmp(out.u.hello.token, "from C") == 0);
	ferry_buf_free(&b);

	/* An error path through the C++ (it throws and catches inside) also returns cleanly. */
	payload[len / 2] ^= 0xff;
	int err = ferry_wire_decode(payload, len / 2, &out, &why);
	CHECK_EQ(err, -EBADMSG);
	CHECK(why != NULL);
	CHECK_EQ(ferry_wire_check_layout(), 0);
}

int main(void)
{
	RUN_TEST(test_encode_decode_from_c);
	return test_finish();
}
