/* libFuzzer target for ferry_wire_decode: any input must decode to an error or to a message
 * whose pointers are readable and which survives encode -> decode unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/wire.h"
#include "wire_samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Frames arrive in the reader's 8-byte aligned buffer; fuzz input has no such promise. */
	static uint64_t aligned[(FERRY_MAX_FRAME_SIZE + 8) / 8];
	static uint64_t again[(FERRY_MAX_FRAME_SIZE + 8) / 8];
	if (size > FERRY_MAX_FRAME_SIZE)
		return 0;
	if (size)
		memcpy(aligned, data, size);

	struct ferry_msg msg;
	const char *why = NULL;
	if (ferry_wire_decode(aligned, size, &msg, &why) != 0) {
		if (!why || msg.kind != FERRY_MSG_NONE)
			abort();
		return 0;
	}
	volatile uint64_t sink = touch_msg(&msg);
	(void)sink;

	/* Whatever the decoder accepts, the encoder must reproduce. */
	struct ferry_buf b;
	ferry_buf_init(&b);
	if (ferry_wire_encode(&msg, &b) != 0)
		abort();
	size_t len = b.len - FERRY_FRAME_HDR_SIZE;
	memcpy(again, b.data + FERRY_FRAME_HDR_SIZE, len);
	struct ferry_msg round;
	if (ferry_wire_decode(again, len, &round, &why) != 0 || !same_msg(&msg, &round))
		abort();
	ferry_buf_free(&b);
	return 0;
}
