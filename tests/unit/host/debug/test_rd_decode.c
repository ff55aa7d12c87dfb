/* .rd captures built by hand: sections, GPU_ID/CHIP_ID, buffers with and without contents, two
 * submits, IB following through the logged buffers, truncation errors, format detection and
 * (when built with zlib) gzip'd captures. */
#include "decode_test_util.h"
#include "pm4_builder.h"
#include "rd_file.h"

#ifdef FERRY_HAVE_ZLIB
#include <zlib.h>
#endif

#define CMD_IOVA  0x100000000ull
#define IB_IOVA   0x100002000ull
#define DATA_IOVA 0x100004000ull

static void put_gpuaddr(struct bytes *b, uint64_t iova, uint32_t size)
{
	rd_put_dwords(b, RD_GPUADDR, (const uint32_t[]){ (uint32_t)iova, size, (uint32_t)(iova >> 32) }, 3);
}

static struct bytes build_rd(void)
{
	uint32_t ib[16], cmd[16];
	struct pm4_builder bi, bc;
	pm4_builder_init(&bi, ib, 16);
	pm4_mem_write(&bi, DATA_IOVA + 0x10, (const uint32_t[]){ 0x77 }, 1);
	pm4_builder_init(&bc, cmd, 16);
	pm4_wait_for_idle(&bc);
	pm4_ib(&bc, IB_IOVA, bi.len);
	PM4_PKT7(&bc, CP_EVENT_WRITE, RB_DONE_TS | CP_EVENT_WRITE_0_TIMESTAMP, (uint32_t)DATA_IOVA,
		 (uint32_t)(DATA_IOVA >> 32), 1);
	REQUIRE(pm4_builder_ok(&bi) && pm4_builder_ok(&bc));

	struct bytes b = { 0 };
	bytes_u32(&b, 0xffffffffu); /* a padding header, as writers may emit */
	bytes_u32(&b, 0xffffffffu);
	rd_put_dwords(&b, RD_GPU_ID, (const uint32_t[]){ 630 }, 1);
	rd_put_dwords(&b, RD_CHIP_ID, (const uint32_t[]){ 0x06030001, 0 }, 2);
	rd_put(&b, RD_CMD, "app/42: fence=1\0\0\0\0", 16);
	put_gpuaddr(&b, CMD_IOVA, 4096);
	rd_put_dwords(&b, RD_BUFFER_CONTENTS, cmd, bc.len);
	put_gpuaddr(&b, IB_IOVA, 4096);
	rd_put_dwords(&b, RD_BUFFER_CONTENTS, ib, bi.len);
	put_gpuaddr(&b, DATA_IOVA, 4096); /* not dumped */
	rd_put_dwords(&b, RD_CMDSTREAM_ADDR, (const uint32_t[]){ (uint32_t)CMD_IOVA, bc.len, (uint32_t)(CMD_IOVA >> 32) }, 3);
	/* Second submit: its command buffer was not dumped. */
	rd_put(&b, RD_CMD, "app/42: fence=2\0", 16);
	put_gpuaddr(&b, CMD_IOVA + 0x8000, 4096);
	rd_put_dwords(&b, RD_CMDSTREAM_ADDR, (const uint32_t[]){ (uint32_t)(CMD_IOVA + 0x8000), 8, 1 }, 3);
	return b;
}

static char *rd_str(const uint8_t *data, size_t len, int *ret, char *err, size_t err_len)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	REQUIRE(f);
	struct rd_decode_options o = { .follow_ibs = true, .list_buffers = true };
	*ret = rd_decode(f, data, len, &o, err, err_len);
	fclose(f);
	return buf;
}

static void test_decode_rd(void)
{
	struct bytes b = build_rd();
	CHECK(rd_detect(b.p, b.len));
	CHECK(!rd_is_gzip(b.p, b.len));
	char err[256];
	int ret;
	char *t = rd_str(b.p, b.len, &ret, err, sizeof(err));
	CHECK_EQ(ret, 0);
	CHECK_HAS(t, "GPU_ID: 630\n");
	CHECK_HAS(t, "CHIP_ID: 0x0000000006030001\n");
	CHECK_HAS(t, "cmd: \"app/42: fence=1\"");
	CHECK_HAS(t, "buffer 0: 0x0000000100000000, 4096 bytes, 40 bytes of contents");
	CHECK_HAS(t, "cmdstream 0 (submit 0) at 0x0000000100000000, 10 dwords:\n"
		     "0x0000000100000000 dw 0     70268000  CP_WAIT_FOR_IDLE");
	CHECK_HAS(t, "ib: 0x100002000 (bo 1 +0x0)");
	CHECK_HAS(t, "--- IB2 at 0x100002000, 4 dwords ---");
	CHECK_HAS(t, "        addr: 0x100004010 (bo 2 +0x10)");
	CHECK_HAS(t, "event: RB_DONE_TS (0x16) TIMESTAMP");
	CHECK_HAS(t, "cmdstream 1 (submit 1) at 0x0000000100008000, 8 dwords:\n"
		     "  (contents not in the capture: no BUFFER_CONTENTS for 0x100008000)");
	CHECK_HAS(t, "2 submits, 2 cmdstreams, 4 packets, 0 bad dwords, 0 truncated packets");
	free(t);

	/* Cut inside the last section: an error naming the section, output so far kept. */
	t = rd_str(b.p, b.len - 5, &ret, err, sizeof(err));
	CHECK_EQ(ret, -1);
	CHECK_HAS(err, "section type 6 at offset");
	CHECK_HAS(err, "claims 12 bytes, only 7 remain");
	CHECK_HAS(t, "cmdstream 0 (submit 0)");
	free(t);
	t = rd_str(b.p, 12, &ret, err, sizeof(err));
	CHECK_EQ(ret, -1);
	CHECK_HAS(err, "truncated section header at offset 8");
	free(t);

	/* A GPUADDR too short to hold an address. */
	struct bytes s = { 0 };
	rd_put_dwords(&s, RD_GPU_ID, (const uint32_t[]){ 630 }, 1);
	rd_put_dwords(&s, RD_GPUADDR, (const uint32_t[]){ 1 }, 1);
	t = rd_str(s.p, s.len, &ret, err, sizeof(err));
	CHECK_EQ(ret, -1);
	CHECK_HAS(err, "GPUADDR section at offset 12 has 4 bytes");
	free(t);
	free(s.p);
	free(b.p);
}

static void test_detect(void)
{
	uint32_t pm4[2] = { pm4_type7_hdr(CP_NOP, 1), 0 };
	CHECK(!rd_detect((const uint8_t *)pm4, sizeof(pm4)));
	const char *report = "---\nkernel: 6.1\n";
	CHECK(!rd_detect((const uint8_t *)report, strlen(report)));
	uint32_t huge[2] = { RD_GPU_ID, 0x7fffffff }; /* size past the end */
	CHECK(!rd_detect((const uint8_t *)huge, sizeof(huge)));
	CHECK(!rd_detect((const uint8_t *)huge, 3));
}

static void test_gzip(void)
{
#ifdef FERRY_HAVE_ZLIB
	struct bytes b = build_rd();
	/* Compress with a gzip wrapper, as Mesa's gzopen() writer does. */
	z_stream zs = { 0 };
	REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	uLong cap = deflateBound(&zs, (uLong)b.len);
	uint8_t *gz = malloc(cap);
	REQUIRE(gz);
	zs.next_in = b.p;
	zs.avail_in = (uInt)b.len;
	zs.next_out = gz;
	zs.avail_out = (uInt)cap;
	REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
	size_t gz_len = cap - zs.avail_out;
	deflateEnd(&zs);
	CHECK(rd_is_gzip(gz, gz_len));
	uint8_t *out = NULL;
	size_t out_len = 0;
	char err[256];
	REQUIRE(rd_gunzip(gz, gz_len, 1 << 20, &out, &out_len, err, sizeof(err)) == 0);
	CHECK_EQ(out_len, b.len);
	CHECK(memcmp(out, b.p, b.len) == 0);
	free(out);
	CHECK_EQ(rd_gunzip(gz, gz_len / 2, 1 << 20, &out, &out_len, err, sizeof(err)), -1);
	CHECK_HAS(err, "truncated gzip stream");
	CHECK_EQ(rd_gunzip(gz, gz_len, 16, &out, &out_len, err, sizeof(err)), -1);
	CHECK_HAS(err, "exceeds 16 bytes");
	gz[gz_len / 2] ^= 0xff;
	CHECK_EQ(rd_gunzip(gz, gz_len, 1 << 20, &out, &out_len, err, sizeof(err)), -1);
	free(gz);
	free(b.p);
#else
	fprintf(stderr, "built without zlib: gzip captures not tested\n");
#endif
}

int main(void)
{
	RUN_TEST(test_decode_rd);
	RUN_TEST(test_detect);
	RUN_TEST(test_gzip);
	return test_finish();
}
