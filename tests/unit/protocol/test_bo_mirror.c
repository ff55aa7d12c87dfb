/* protocol/bo_mirror.c: the diff sends exactly the changed bytes (coalescing small gaps), splits
 * large ones into frames under the limit, compresses when it pays, and the apply takes back what
 * was sent; every bad BoData is refused without writing anything. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "ferry/bo_mirror.h"
#include "test.h"

#define SIZE (3u << 20)

static uint8_t *cur, *snap, *peer;
static unsigned frames;
static uint64_t raw_total;

/* Decodes each frame and applies it to peer, as a receiver would. */
static int sink(void *arg, const void *frame, size_t len)
{
	(void)arg;
	CHECK(len <= FERRY_MAX_FRAME_SIZE + FERRY_FRAME_HDR_SIZE);
	size_t plen = len - FERRY_FRAME_HDR_SIZE;
	uint8_t *p = aligned_alloc(8, (plen + 7) & ~(size_t)7);
	REQUIRE(p);
	memcpy(p, (const uint8_t *)frame + FERRY_FRAME_HDR_SIZE, plen);
	struct ferry_msg m;
	const char *why = NULL;
	int r = ferry_wire_decode(p, plen, &m, &why);
	CHECK_EQ(r, 0);
	if (r == 0) {
		CHECK_EQ(m.kind, FERRY_MSG_BO_DATA);
		CHECK_EQ(ferry_bo_mirror_apply(&m.u.bo_data, peer, NULL, SIZE, &why), 0);
		raw_total += m.u.bo_data.raw_len;
	}
	free(p);
	frames++;
	return 0;
}

static void push(struct ferry_wire_counters *tx)
{
	frames = 0;
	raw_total = 0;
	memset(tx, 0, sizeof(*tx));
	CHECK_EQ(ferry_bo_mirror_push(1, 2, 0, cur, snap, SIZE, sink, NULL, tx), 0);
	CHECK(memcmp(snap, cur, SIZE) == 0);
	CHECK(memcmp(peer, cur, SIZE) == 0);
}

static void test_exact_and_coalesced(void)
{
	struct ferry_wire_counters tx;
	push(&tx);
	CHECK_EQ(frames, 0); /* nothing changed: nothing sent */
	cur[5000] = 1;
	cur[5010] = 2; /* 9 bytes apart: one range of 11 */
	cur[SIZE - 1] = 3;
	push(&tx);
	CHECK_EQ(frames, 1);
	CHECK_EQ(tx.bo_data_raw, 12);
	cur[100] = 7;
	cur[100 + FERRY_BO_DIFF_GAP + 1] = 8; /* far enough apart: two ranges of one byte */
	push(&tx);
	CHECK_EQ(tx.bo_data_raw, 2);
}

static void test_split_and_zstd(void)
{
	struct ferry_wire_counters tx;
	/* 3 MiB of noise: several frames, none compressed. */
	uint32_t x = 12345;
	for (uint32_t i = 0; i < SIZE; i++) {
		x = x * 1103515245u + 12345u;
		cur[i] = (uint8_t)(x >> 16) | 1; /* never equal to the zero snapshot */
	}
	push(&tx);
	CHECK(frames >= 4);
	CHECK_EQ(tx.bo_data_raw, SIZE);
	CHECK(tx.bo_data_wire <= SIZE); /* compressed only where it saved */
	/* A compressible change: compressed well. */
	memset(cur, 0x42, 1 << 20);
	push(&tx);
	CHECK_EQ(tx.bo_data_raw, 1u << 20);
	CHECK(tx.bo_data_wire * 20 < tx.bo_data_raw);
}

static int apply(struct ferry_bo_data *d)
{
	memset(peer, 0, 4096);
	int r = ferry_bo_mirror_apply(d, peer, NULL, 4096, NULL);
	for (int i = 0; r < 0 && i < 4096; i++)
		if (peer[i])
			return 1; /* wrote something although refused */
	return r;
}

static int fail_left;

/* Refuses the first fail_left frames (the connection's queue out of memory), then takes them. */
static int flaky_sink(void *arg, const void *frame, size_t len)
{
	if (fail_left > 0) {
		fail_left--;
		return -ENOMEM;
	}
	return sink(arg, frame, len);
}

/* A frame the sink did not take is not in the snapshot: the next push sends its bytes again. */
static void test_failed_frame_not_recorded(void)
{
	struct ferry_wire_counters tx;
	push(&tx);
	for (uint32_t i = 0; i < 3000; i += 2)
		cur[70000 + i] ^= 0x5a;
	fail_left = 1;
	CHECK_EQ(ferry_bo_mirror_push(1, 2, 0, cur, snap, SIZE, flaky_sink, NULL, NULL), -ENOMEM);
	CHECK(memcmp(peer, cur, SIZE) != 0);
	push(&tx);
	CHECK_EQ(frames, 1);
}

static void test_refusals(void)
{
	uint8_t data[64] = { 9 };
	struct ferry_bo_range rg = { .offset = 4090, .len = 16 };
	struct ferry_bo_data d = { .nr_ranges = 1, .ranges = &rg, .raw_len = 16, .data_len = 16, .data = data };
	CHECK_EQ(apply(&d), -EINVAL); /* past the end */
	rg.offset = UINT64_MAX - 4;
	CHECK_EQ(apply(&d), -EINVAL); /* offset + len overflows */
	rg.offset = 0;
	d.raw_len = 15;
	CHECK_EQ(apply(&d), -EBADMSG); /* ranges and raw_len disagree */
	d.raw_len = 16;
	d.data_len = 8;
	CHECK_EQ(apply(&d), -EBADMSG); /* short data */
	d.flags = FERRY_BO_DATA_ZSTD;
	d.data_len = 64;
	CHECK_EQ(apply(&d), -EBADMSG); /* not zstd */
	/* A real zstd frame of the wrong size (raw_len lies). */
	uint8_t raw[32] = { 0 }, z[128];
	size_t zn = ZSTD_compress(z, sizeof(z), raw, sizeof(raw), 1);
	REQUIRE(!ZSTD_isError(zn));
	d.data = z;
	d.data_len = (uint32_t)zn;
	CHECK_EQ(apply(&d), -EBADMSG);
	d.raw_len = FERRY_BO_DATA_MAX_RAW + 1;
	CHECK_EQ(apply(&d), -EINVAL);
	/* And a good one. */
	rg.len = 32;
	d.raw_len = 32;
	CHECK_EQ(apply(&d), 0);
}

/* Encodes m and says whether the decoder takes it. */
static int roundtrip(const struct ferry_msg *m)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	size_t plen = b.len - FERRY_FRAME_HDR_SIZE;
	uint8_t *p = aligned_alloc(8, (plen + 7) & ~(size_t)7);
	REQUIRE(p);
	memcpy(p, b.data + FERRY_FRAME_HDR_SIZE, plen);
	struct ferry_msg out;
	int r = ferry_wire_decode(p, plen, &out, NULL);
	free(p);
	ferry_buf_free(&b);
	return r;
}

/* What the decoder itself refuses in the new messages. */
static void test_decoder_rules(void)
{
	struct ferry_fence_slot_update slot = { .queue_id = 127, .signaled = 1 };
	struct ferry_msg m = { .kind = FERRY_MSG_FENCE_UPDATE };
	m.u.fence_update = (struct ferry_fence_update){ .ctx_id = 1, .nr_slots = 1, .slots = &slot };
	CHECK_EQ(roundtrip(&m), 0);
	slot.queue_id = 128;
	CHECK_EQ(roundtrip(&m), -EBADMSG);
	uint8_t data[8] = { 0 };
	struct ferry_bo_range rg[2] = { { .offset = 0, .len = 4 }, { .offset = 8, .len = 4 } };
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_DATA };
	m.u.bo_data = (struct ferry_bo_data){ .nr_ranges = 2, .ranges = rg, .raw_len = 8, .data_len = 8, .data = data };
	CHECK_EQ(roundtrip(&m), 0);
	m.u.bo_data.raw_len = 7;
	CHECK_EQ(roundtrip(&m), -EBADMSG); /* ranges add up to 8 */
	m.u.bo_data.raw_len = 8;
	m.u.bo_data.flags = 2;
	CHECK_EQ(roundtrip(&m), -EBADMSG); /* unknown flag */
	m.u.bo_data.flags = 0;
	rg[1].len = 0;
	m.u.bo_data.raw_len = 4;
	m.u.bo_data.data_len = 4;
	CHECK_EQ(roundtrip(&m), -EBADMSG); /* empty range */
	rg[1] = (struct ferry_bo_range){ .offset = 8, .len = 4, .pad = 1 };
	m.u.bo_data.raw_len = 8;
	m.u.bo_data.data_len = 8;
	CHECK_EQ(roundtrip(&m), -EBADMSG); /* padding */
	rg[1].pad = 0;
	m.u.bo_data.data_len = 7;
	CHECK_EQ(roundtrip(&m), -EBADMSG); /* uncompressed data not raw_len */
}

/* In slices of 100000 bytes (rounded to pages), from an unaligned start: the same bytes reach
 * the peer as in one push, each slice ends on a page, and the last one says the BO is done. */
static void test_slices(void)
{
	memcpy(snap, cur, SIZE); /* the tests before may have left the peer behind */
	memcpy(peer, cur, SIZE);
	for (uint32_t i = 0; i < SIZE; i += 777)
		cur[i] ^= (uint8_t)(i * 13 + 1);
	cur[8191] ^= 0x55; /* a range across a page boundary, cut between slices or not */
	cur[8192] ^= 0x55;
	frames = 0;
	raw_total = 0;
	uint64_t off = 1, next = 0;
	unsigned slices = 0;
	while (off < SIZE) {
		CHECK_EQ(ferry_bo_mirror_push_slice(1, 2, 0, cur, snap, SIZE, off, 100000, sink, NULL, NULL, &next), 0);
		CHECK(next > off);
		CHECK(next == SIZE || next % 4096 == 0);
		CHECK(next - off / 4096 * 4096 <= 100000 + 4096);
		off = next;
		slices++;
	}
	CHECK_EQ(next, SIZE);
	CHECK(slices >= SIZE / (100000 + 4096));
	CHECK(memcmp(snap, cur, SIZE) == 0);
	CHECK(memcmp(peer, cur, SIZE) == 0);
	/* past the end, or budget 0: nothing to do, and said so */
	CHECK_EQ(ferry_bo_mirror_push_slice(1, 2, 0, cur, snap, SIZE, SIZE + 5, 100, sink, NULL, NULL, &next), 0);
	CHECK_EQ(next, SIZE);
	CHECK_EQ(ferry_bo_mirror_push_slice(1, 2, 0, cur, snap, SIZE, 0, 0, sink, NULL, NULL, &next), 0);
	CHECK_EQ(next, 4096);
	/* Changed bytes weigh 4: 1 MiB of budget over changed bytes covers about 256 KiB. */
	for (uint32_t i = 0; i < (2u << 20); i++)
		cur[i] = (uint8_t)(cur[i] + 1);
	CHECK_EQ(ferry_bo_mirror_push_slice(1, 2, 0, cur, snap, SIZE, 0, 1u << 20, sink, NULL, NULL, &next), 0);
	CHECK(next >= (256u << 10) && next <= (256u << 10) + 4096);
	off = next;
	while (off < SIZE) {
		CHECK_EQ(ferry_bo_mirror_push_slice(1, 2, 0, cur, snap, SIZE, off, 1u << 20, sink, NULL, NULL, &next), 0);
		off = next;
	}
	CHECK(memcmp(snap, cur, SIZE) == 0);
	CHECK(memcmp(peer, cur, SIZE) == 0);
}

int main(void)
{
	cur = calloc(1, SIZE);
	snap = calloc(1, SIZE);
	peer = calloc(1, SIZE);
	REQUIRE(cur && snap && peer);
	RUN_TEST(test_exact_and_coalesced);
	RUN_TEST(test_split_and_zstd);
	RUN_TEST(test_failed_frame_not_recorded);
	RUN_TEST(test_refusals);
	RUN_TEST(test_decoder_rules);
	RUN_TEST(test_slices);
	free(cur);
	free(snap);
	free(peer);
	return test_finish();
}
