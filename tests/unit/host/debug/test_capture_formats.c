/* The capture writers: .rd sections byte for byte against the format facts (type/size headers,
 * GPU_ID u32, CHIP_ID u64, GPUADDR {lo, size, hi}, CMDSTREAM_ADDR {lo, dwords, hi}, RD_CMD padded),
 * read back by the .rd reader and decoder, gzip round trip; the session format's writer and
 * reader, including truncated and corrupt input; BoCreate's iova on the wire. */
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/adreno_pm4.h"
#include "pm4_builder.h"
#include "rd_file.h"
#include "rd_writer.h"
#include "ferry/session_file.h"
#include "test.h"

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void test_rd_bytes(void)
{
	struct ferry_buf b;
	ferry_buf_init(&b);
	uint32_t ib[8];
	struct pm4_builder pb;
	pm4_builder_init(&pb, ib, 8);
	uint32_t v = 7;
	pm4_mem_write(&pb, 0x100002000ull, &v, 1);
	REQUIRE(pm4_builder_ok(&pb));
	REQUIRE(rd_write_device(&b, 630, 0) == 0);
	REQUIRE(rd_write_cmd(&b, "ferry test") == 0);
	REQUIRE(rd_write_buffer(&b, 0x100001000ull, 4096, ib, pm4_builder_bytes(&pb)) == 0);
	REQUIRE(rd_write_buffer(&b, 0x100002000ull, 4096, NULL, 0) == 0);
	REQUIRE(rd_write_cmdstream(&b, 0x100001000ull, pb.len) == 0);

	const uint8_t *p = b.data;
	CHECK_EQ(u32_at(p), 13u); /* RD_GPU_ID */
	CHECK_EQ(u32_at(p + 4), 4u);
	CHECK_EQ(u32_at(p + 8), 630u);
	p += 12;
	CHECK_EQ(u32_at(p), 14u); /* RD_CHIP_ID: gpu_id packed as core.major.minor.patch */
	CHECK_EQ(u32_at(p + 4), 8u);
	CHECK_EQ(u32_at(p + 8), 0x06030000u);
	CHECK_EQ(u32_at(p + 12), 0u);
	p += 16;
	CHECK_EQ(u32_at(p), 2u); /* RD_CMD: "ferry test\0" padded to 12 */
	CHECK_EQ(u32_at(p + 4), 12u);
	CHECK(!memcmp(p + 8, "ferry test\0\0", 12));
	p += 20;
	CHECK_EQ(u32_at(p), 3u); /* RD_GPUADDR {lo, size, hi} */
	CHECK_EQ(u32_at(p + 4), 12u);
	CHECK_EQ(u32_at(p + 8), 0x1000u);
	CHECK_EQ(u32_at(p + 12), 4096u);
	CHECK_EQ(u32_at(p + 16), 1u);
	p += 20;
	CHECK_EQ(u32_at(p), 12u); /* RD_BUFFER_CONTENTS */
	CHECK_EQ(u32_at(p + 4), pm4_builder_bytes(&pb));
	CHECK(!memcmp(p + 8, ib, pm4_builder_bytes(&pb)));
	p += 8 + pm4_builder_bytes(&pb);
	CHECK_EQ(u32_at(p), 3u); /* the second buffer: address only */
	p += 20;
	CHECK_EQ(u32_at(p), 6u); /* RD_CMDSTREAM_ADDR {lo, dwords, hi} */
	CHECK_EQ(u32_at(p + 4), 12u);
	CHECK_EQ(u32_at(p + 8), 0x1000u);
	CHECK_EQ(u32_at(p + 12), pb.len);
	CHECK_EQ(u32_at(p + 16), 1u);
	p += 20;
	CHECK_EQ((size_t)(p - b.data), b.len);

	/* The reader and the decoder take it; gzip'd too. */
	CHECK(rd_detect(b.data, b.len));
	char err[128];
	char *text = NULL;
	size_t tlen = 0;
	FILE *out = open_memstream(&text, &tlen);
	REQUIRE(out);
	struct rd_decode_options o = { .follow_ibs = true };
	CHECK_EQ(rd_decode(out, b.data, b.len, &o, err, sizeof(err)), 0);
	fclose(out);
	CHECK(text && strstr(text, "CP_MEM_WRITE"));
	free(text);
#ifdef FERRY_HAVE_ZLIB
	uint8_t *z, *back;
	size_t zlen, blen;
	REQUIRE(rd_gzip(b.data, b.len, &z, &zlen) == 0);
	CHECK(rd_is_gzip(z, zlen));
	REQUIRE(rd_gunzip(z, zlen, 1 << 20, &back, &blen, err, sizeof(err)) == 0);
	CHECK(blen == b.len && !memcmp(back, b.data, blen));
	free(z);
	free(back);
#endif
	/* Cut: the reader names the section that runs past the end. */
	struct rd_reader rr;
	struct rd_section s;
	rd_reader_init(&rr, b.data, b.len - 3);
	int r;
	while ((r = rd_next_section(&rr, &s, err, sizeof(err))) > 0)
		;
	CHECK_EQ(r, -1);
	ferry_buf_free(&b);
}

static void test_session_round_trip(void)
{
	struct ferry_buf b, scratch;
	ferry_buf_init(&b);
	ferry_buf_init(&scratch);
	REQUIRE(session_write_header(&b, FERRY_FAMILY_MSM, "a660") == 0);
	REQUIRE(session_write_record(&b, SESSION_REC_NOTE, 0, "client: x\n", 10) == 0);
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATE, .seq = 3 };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = 2, .size = 4096, .flags = 0x20000,
						  .iova = 0x100003000ull };
	REQUIRE(session_write_msg(&b, SESSION_FRAME_SYNTH, &m, &scratch) == 0);
	uint8_t data[5] = { 1, 2, 3, 4, 5 };
	REQUIRE(session_write_snapshot(&b, SESSION_SNAP_POST_MORTEM, 1, 2, 0x100003000ull, 8, data, 5) == 0);

	struct session_reader r;
	struct session_header h;
	struct session_record rec;
	char err[160];
	REQUIRE(session_reader_init(&r, b.data, b.len, &h, err, sizeof(err)) == 0);
	CHECK_EQ(h.version, SESSION_VERSION);
	CHECK_EQ(h.family, (uint32_t)FERRY_FAMILY_MSM);
	CHECK(!strcmp(h.gpu, "a660"));
	CHECK_EQ(session_next_record(&r, &rec, err, sizeof(err)), 1);
	CHECK(rec.type == SESSION_REC_NOTE && rec.len == 10 && !memcmp(rec.payload, "client: x\n", 10));
	CHECK_EQ(session_next_record(&r, &rec, err, sizeof(err)), 1);
	CHECK(rec.type == SESSION_REC_FRAME && rec.flags == SESSION_FRAME_SYNTH);
	CHECK_EQ(((uintptr_t)rec.payload - (uintptr_t)b.data) % 8, 0u);
	struct ferry_msg d;
	REQUIRE(ferry_wire_decode(rec.payload, rec.len, &d, NULL) == 0);
	CHECK(d.kind == FERRY_MSG_BO_CREATE && d.u.bo_create.iova == 0x100003000ull && d.u.bo_create.bo_id == 2);
	CHECK_EQ(session_next_record(&r, &rec, err, sizeof(err)), 1);
	struct session_snapshot snap;
	REQUIRE(session_parse_snapshot(&rec, &snap, err, sizeof(err)) == 0);
	CHECK(rec.flags == SESSION_SNAP_POST_MORTEM && snap.bo_id == 2 && snap.iova == 0x100003000ull &&
	      snap.offset == 8 && snap.len == 5 && !memcmp(snap.data, data, 5));
	CHECK_EQ(session_next_record(&r, &rec, err, sizeof(err)), 0);

	/* Every cut is an error naming "truncated", never a crash or a short record. */
	for (size_t cut = SESSION_HEADER_SIZE + 1; cut < b.len; cut++) {
		if (session_reader_init(&r, b.data, cut, &h, err, sizeof(err)) < 0)
			continue;
		int ret;
		while ((ret = session_next_record(&r, &rec, err, sizeof(err))) > 0)
			;
		if (r.pos != cut) {
			CHECK_EQ(ret, -1);
			CHECK(strstr(err, "truncated") != NULL);
		}
	}
	CHECK_EQ(session_reader_init(&r, b.data, 20, &h, err, sizeof(err)), -1);
	CHECK(strstr(err, "truncated header") != NULL);
	/* Corrupt: an unknown record type; a wrong magic; a future version. */
	uint8_t *bad = malloc(b.len);
	REQUIRE(bad);
	memcpy(bad, b.data, b.len);
	bad[SESSION_HEADER_SIZE] = 0x77;
	REQUIRE(session_reader_init(&r, bad, b.len, &h, err, sizeof(err)) == 0);
	CHECK_EQ(session_next_record(&r, &rec, err, sizeof(err)), -1);
	CHECK(strstr(err, "corrupt record at offset 32") != NULL);
	bad[0] = 'X';
	CHECK_EQ(session_reader_init(&r, bad, b.len, &h, err, sizeof(err)), -1);
	memcpy(bad, b.data, b.len);
	bad[8] = 9;
	CHECK_EQ(session_reader_init(&r, bad, b.len, &h, err, sizeof(err)), -1);
	CHECK(strstr(err, "version") != NULL);
	/* A huge announced length. */
	memcpy(bad, b.data, b.len);
	memset(bad + SESSION_HEADER_SIZE + 8, 0xff, 8);
	REQUIRE(session_reader_init(&r, bad, b.len, &h, err, sizeof(err)) == 0);
	CHECK_EQ(session_next_record(&r, &rec, err, sizeof(err)), -1);
	free(bad);
	ferry_buf_free(&b);
	ferry_buf_free(&scratch);
}

int main(void)
{
	RUN_TEST(test_rd_bytes);
	RUN_TEST(test_session_round_trip);
	return test_finish();
}
