/* Memory over the network (docs/network.md): libferry on tcp: to a ferryd on 127.0.0.1 shares no
 * pages with it, yet CPU writes reach the GPU at submit, GPU writes come back by the fence, and
 * only changed bytes cross (counted); hostile BoData gets an ERROR and ferryd serves on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ferry/bo_mirror.h"
#include "ferry/wire.h"
#include "itest.h"
#include "itest_raw.h"
#include "test.h"
#include "transport.h"

static int64_t ferry_now_ns_for_test(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct ferryd_proc ferryd;
static char tcp_uri[64];
static struct itest_client a;

static void stats(struct ferry_wire_stats *s)
{
	REQUIRE(ferry_device_wire_stats(a.dev, s) == 0);
}

/* One submit of ib's first bytes with bos[] (WRITE), waited for. */
static int run(struct itest_bo *ib, uint32_t bytes, struct ferry_bo *const *w, uint32_t nw)
{
	uint32_t seqno;
	int r = itest_submit(&a, ib->bo, 0, bytes, w, nw, &seqno);
	return r < 0 ? r : ferry_fence_wait(a.q, seqno, ITEST_WAIT_NS);
}

/* The CPU fills src, the GPU copies it, the CPU reads dst: then 100 changed bytes cost ~100. */
static void test_copy_and_partial(void)
{
	struct itest_bo ib, src, dst;
	REQUIRE(itest_bo_new(a.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(a.ctx, 65536, &src) == 0);
	REQUIRE(itest_bo_new(a.ctx, 65536, &dst) == 0);
	for (uint32_t i = 0; i < 16384; i++)
		src.cpu[i] = 0x9e3779b9u * (i + 1); /* incompressible enough */
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	/* CP_MEMCPY moves at most a few KiB a packet in the model: 16 packets of 1 KiW. */
	for (uint32_t k = 0; k < 16; k++)
		pm4_memcpy(&b, dst.iova + k * 4096, src.iova + k * 4096, 1024);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_bo *w[] = { src.bo, dst.bo };
	struct ferry_wire_stats s0, s1, s2;
	stats(&s0);
	CHECK_EQ(run(&ib, pm4_builder_bytes(&b), w, 2), 0);
	stats(&s1);
	CHECK(memcmp(dst.cpu, src.cpu, 65536) == 0);
	/* The first time: the IB and the whole source went out, the whole copy came back. */
	CHECK(s1.tx_bo_data_raw - s0.tx_bo_data_raw >= 65536);
	CHECK(s1.rx_bo_data_raw - s0.rx_bo_data_raw >= 65536);

	/* 100 bytes in the middle of a page: 100 bytes go, 100 come back. */
	uint8_t *p = (uint8_t *)src.cpu;
	for (int i = 0; i < 100; i++)
		p[20000 + i] ^= 0x5a;
	CHECK_EQ(run(&ib, pm4_builder_bytes(&b), w, 2), 0);
	stats(&s2);
	CHECK(memcmp(dst.cpu, src.cpu, 65536) == 0);
	CHECK_EQ(s2.tx_bo_data_raw - s1.tx_bo_data_raw, 100);
	CHECK_EQ(s2.rx_bo_data_raw - s1.rx_bo_data_raw, 100);
	/* Frames, not pages: the whole exchange is a few hundred bytes. */
	CHECK(s2.tx_bytes - s1.tx_bytes < 1024);
	CHECK(s2.rx_bytes - s1.rx_bytes < 1024);
	fprintf(stderr, "100 changed bytes: %llu bytes sent, %llu received\n",
		(unsigned long long)(s2.tx_bytes - s1.tx_bytes), (unsigned long long)(s2.rx_bytes - s1.rx_bytes));

	/* BO_CPU_PREP answers after the data, as on unix. */
	CHECK_EQ(ferry_bo_cpu_prep(dst.bo, MSM_PREP_READ, 1000000000ll), 0);
	ferry_bo_close(ib.bo);
	ferry_bo_close(src.bo);
	ferry_bo_close(dst.bo);
}

/* One BO written by the CPU and the GPU at different times: neither side's bytes are lost. */
static void test_both_sides(void)
{
	struct itest_bo ib, m;
	REQUIRE(itest_bo_new(a.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(a.ctx, 8192, &m) == 0);
	m.cpu[0] = 0x11111111u;
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	pm4_memcpy(&b, m.iova + 4096, m.iova, 1);
	REQUIRE(pm4_builder_ok(&b));
	CHECK_EQ(run(&ib, pm4_builder_bytes(&b), &m.bo, 1), 0);
	CHECK_EQ(m.cpu[1024], 0x11111111u);
	m.cpu[8] = 0x22222222u; /* the CPU again, same BO */
	pm4_builder_init(&b, ib.cpu, 1024);
	pm4_memcpy(&b, m.iova + 4100, m.iova + 32, 1);
	uint32_t v = 0x33333333u;
	pm4_mem_write(&b, m.iova + 64, &v, 1);
	REQUIRE(pm4_builder_ok(&b));
	CHECK_EQ(run(&ib, pm4_builder_bytes(&b), &m.bo, 1), 0);
	CHECK_EQ(m.cpu[0], 0x11111111u);
	CHECK_EQ(m.cpu[8], 0x22222222u);
	CHECK_EQ(m.cpu[16], 0x33333333u);
	CHECK_EQ(m.cpu[1024], 0x11111111u);
	CHECK_EQ(m.cpu[1025], 0x22222222u);
	ferry_bo_close(ib.bo);
	ferry_bo_close(m.bo);
}

/* 200 BOs written by the CPU, one submit gathers a word of each. */
static void test_many_bos(void)
{
	enum { N = 200 };
	static struct itest_bo bo[N];
	struct itest_bo ib, out;
	REQUIRE(itest_bo_new(a.ctx, 16384, &ib) == 0);
	REQUIRE(itest_bo_new(a.ctx, 4096, &out) == 0);
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 4096);
	struct ferry_submit_bo sb[N + 1];
	for (int i = 0; i < N; i++) {
		REQUIRE(itest_bo_new(a.ctx, 4096, &bo[i]) == 0);
		bo[i].cpu[5] = 0xabc00000u + (uint32_t)i;
		pm4_memcpy(&b, out.iova + 4u * (uint32_t)i, bo[i].iova + 20, 1);
		sb[i] = (struct ferry_submit_bo){ bo[i].bo, MSM_SUBMIT_BO_READ };
	}
	sb[N] = (struct ferry_submit_bo){ out.bo, MSM_SUBMIT_BO_WRITE };
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_cmd cmd = { .bo = ib.bo, .offset = 0, .size = pm4_builder_bytes(&b) };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = sb, .nr_bos = N + 1 };
	uint32_t seqno;
	CHECK_EQ(ferry_submit(a.q, &s, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(a.q, seqno, ITEST_WAIT_NS), 0);
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += out.cpu[i] != 0xabc00000u + (uint32_t)i;
	CHECK_EQ(bad, 0);
	for (int i = 0; i < N; i++)
		ferry_bo_close(bo[i].bo);
	ferry_bo_close(ib.bo);
	ferry_bo_close(out.bo);
}

/* A compressible 1 MiB crosses as much less; polling a fence (no waiting) sees it signal. */
static void test_zstd_and_polling(void)
{
	struct itest_bo ib, big;
	REQUIRE(itest_bo_new(a.ctx, 4096, &ib) == 0);
	REQUIRE(itest_bo_new(a.ctx, 1 << 20, &big) == 0);
	for (uint32_t i = 0; i < (1u << 18); i++)
		big.cpu[i] = i % 7 == 0 ? 0x12345678u : i & 0xff;
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	uint32_t v = 0xcafef00du;
	pm4_mem_write(&b, big.iova + 4096, &v, 1);
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_wire_stats s0, s1;
	stats(&s0);
	uint32_t seqno;
	struct ferry_bo *w = big.bo;
	CHECK_EQ(itest_submit(&a, ib.bo, 0, pm4_builder_bytes(&b), &w, 1, &seqno), 0);
	int64_t end = ferry_now_ns_for_test() + ITEST_WAIT_NS;
	while (!ferry_fence_signaled(a.q, seqno) && ferry_now_ns_for_test() < end)
		usleep(1000);
	CHECK(ferry_fence_signaled(a.q, seqno));
	stats(&s1);
	CHECK_EQ(big.cpu[1024], 0xcafef00du);
	uint64_t raw = s1.tx_bo_data_raw - s0.tx_bo_data_raw, wire = s1.tx_bo_data_wire - s0.tx_bo_data_wire;
	fprintf(stderr, "1 MiB compressible: %llu raw bytes, %llu on the wire\n", (unsigned long long)raw,
		(unsigned long long)wire);
	CHECK(raw >= (1u << 20) - 4096);
	CHECK(wire * 10 < raw);
	ferry_bo_close(ib.bo);
	ferry_bo_close(big.bo);
}

/* NOTIFY events and a fault: the fence fails, the context is lost, as on unix. */
static void test_fault_and_notify(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(tcp_uri, &c) == 0);
	CHECK(itest_client_works(&c, 0x600dbeefu));
	struct itest_bo ib;
	REQUIRE(itest_bo_new(c.ctx, 4096, &ib) == 0);
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	uint32_t v = 1;
	pm4_mem_write(&b, 0xdead0000ull, &v, 1); /* no BO there: a fault */
	REQUIRE(pm4_builder_ok(&b));
	struct ferry_cmd cmd = { .bo = ib.bo, .offset = 0, .size = pm4_builder_bytes(&b) };
	struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .flags = FERRY_SUBMIT_NOTIFY };
	uint32_t seqno;
	int r = ferry_submit(c.q, &s, &seqno);
	if (r == 0) {
		int w = ferry_fence_wait(c.q, seqno, ITEST_WAIT_NS);
		CHECK(w < 0 && w != -ETIMEDOUT);
	} else {
		CHECK(r < 0); /* the validator refused it: also an error, not a hang */
	}
	ferry_bo_close(ib.bo);
	itest_client_close(&c);
	/* The other client is unaffected. */
	CHECK(itest_client_works(&a, 0x0badcafeu));
}

/* A BO shared into a second context of the same connection crosses by name; a foreign fd cannot. */
static void test_import(void)
{
	struct ferry_context *ctx2;
	struct ferry_queue *q2;
	REQUIRE(ferry_context_create(a.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx2) == 0);
	REQUIRE(ferry_queue_create(ctx2, 0, &q2) == 0);
	struct itest_bo src, ib;
	REQUIRE(itest_bo_new(a.ctx, 4096, &src) == 0);
	REQUIRE(itest_bo_new(ctx2, 4096, &ib) == 0);
	src.cpu[3] = 0x1234abcdu;
	/* The first context hands its bytes to ferryd with an empty submit listing the BO. */
	struct ferry_submit_bo sb = { src.bo, MSM_SUBMIT_BO_READ };
	struct ferry_submit s0 = { .bos = &sb, .nr_bos = 1 };
	uint32_t seqno;
	CHECK_EQ(ferry_submit(a.q, &s0, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(a.q, seqno, ITEST_WAIT_NS), 0);
	struct ferry_bo *imp = NULL;
	int fd = ferry_bo_fd(src.bo);
	REQUIRE(fd >= 0);
	CHECK_EQ(ferry_bo_import(ctx2, fd, &imp), 0);
	if (imp) {
		uint64_t iova;
		REQUIRE(ferry_bo_iova(imp, &iova) == 0);
		struct pm4_builder b;
		pm4_builder_init(&b, ib.cpu, 1024);
		pm4_memcpy(&b, iova + 16, iova + 12, 1);
		REQUIRE(pm4_builder_ok(&b));
		struct ferry_submit_bo wb = { imp, MSM_SUBMIT_BO_WRITE };
		struct ferry_cmd cmd = { .bo = ib.bo, .offset = 0, .size = pm4_builder_bytes(&b) };
		struct ferry_submit s = { .cmds = &cmd, .nr_cmds = 1, .bos = &wb, .nr_bos = 1 };
		void *p = NULL;
		CHECK_EQ(ferry_bo_map(imp, &p), 0);
		CHECK_EQ(ferry_submit(q2, &s, &seqno), 0);
		CHECK_EQ(ferry_fence_wait(q2, seqno, ITEST_WAIT_NS), 0);
		CHECK(p && ((uint32_t *)p)[4] == 0x1234abcdu);
		CHECK_EQ(src.cpu[4], 0x1234abcdu); /* the same pages locally too */
		ferry_bo_close(imp);
	}
	/* Any other fd has no way across a network. */
	int foreign = memfd_create("not-a-bo", MFD_CLOEXEC);
	REQUIRE(foreign >= 0);
	REQUIRE(ftruncate(foreign, 4096) == 0);
	struct ferry_bo *bad = NULL;
	CHECK_EQ(ferry_bo_import(ctx2, foreign, &bad), -EOPNOTSUPP);
	close(foreign);
	ferry_bo_close(ib.bo);
	ferry_bo_close(src.bo);
	ferry_queue_close(q2);
	ferry_context_destroy(ctx2);
	CHECK(itest_client_works(&a, 0x1e5u));
}

/* More BO bytes than ferryd's reply queue cap at once (16 MiB of noise, the answer to one
 * BoMap): the connection lives and the bytes arrive. */
static void test_big_mirror(void)
{
	enum { BIG = 16 << 20 };
	struct ferry_context *ctx2;
	REQUIRE(ferry_context_create(a.dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx2) == 0);
	struct itest_bo src;
	REQUIRE(itest_bo_new(a.ctx, BIG, &src) == 0);
	uint64_t x = 88172645463325252ull;
	for (uint32_t i = 0; i < BIG / 4; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		src.cpu[i] = (uint32_t)x;
	}
	struct ferry_submit_bo sb = { src.bo, MSM_SUBMIT_BO_READ };
	struct ferry_submit s0 = { .bos = &sb, .nr_bos = 1 };
	uint32_t seqno;
	CHECK_EQ(ferry_submit(a.q, &s0, &seqno), 0);
	CHECK_EQ(ferry_fence_wait(a.q, seqno, ITEST_WAIT_NS), 0);
	struct ferry_bo *imp = NULL;
	CHECK_EQ(ferry_bo_import(ctx2, ferry_bo_fd(src.bo), &imp), 0);
	struct ferry_wire_stats s1, s2;
	stats(&s1);
	void *p = NULL;
	if (imp)
		CHECK_EQ(ferry_bo_map(imp, &p), 0);
	stats(&s2);
	CHECK(s2.rx_bo_data_raw - s1.rx_bo_data_raw >= (uint64_t)BIG - 4096);
	CHECK(p && memcmp(p, src.cpu, BIG) == 0);
	if (imp)
		ferry_bo_close(imp);
	ferry_bo_close(src.bo);
	ferry_context_destroy(ctx2);
	CHECK(itest_client_works(&a, 0xb16u));
}

/* A tcp server that does not mirror memory (no FERRY_FEATURE_REMOTE_MEMORY): the open fails
 * with a clear error instead of waits that never end. */
static int old_listen = -1;

static void *old_server(void *arg)
{
	(void)arg;
	int fd = accept4(old_listen, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct ferry_frame_reader rd;
	ferry_frame_reader_init(&rd);
	for (int i = 0; i < 5000; i++) {
		int g = ferry_frame_read(fd, &rd);
		if (g < 0)
			break;
		if (g == 0) {
			usleep(1000);
			continue;
		}
		struct ferry_msg m;
		if (ferry_wire_decode(rd.payload, rd.len, &m, NULL) == 0 && m.kind == FERRY_MSG_HELLO) {
			struct ferry_msg rep = { .kind = FERRY_MSG_HELLO_REPLY, .seq = m.seq };
			rep.u.hello_reply = (struct ferry_hello_reply){ .version = FERRY_PROTOCOL_VERSION,
				.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM, .server = "old ferryd" };
			struct ferry_buf b;
			ferry_buf_init(&b);
			if (ferry_wire_encode(&rep, &b) == 0)
				ferry_frame_send(fd, b.data, b.len, NULL, 0);
			ferry_buf_free(&b);
		}
		ferry_frame_reader_next(&rd);
	}
	ferry_frame_reader_fini(&rd);
	close(fd);
	return NULL;
}

static void test_server_without_mirror(void)
{
	old_listen = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(old_listen >= 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	REQUIRE(bind(old_listen, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(old_listen, 1) == 0);
	REQUIRE(getsockname(old_listen, (struct sockaddr *)&sa, &sl) == 0);
	char uri[64];
	snprintf(uri, sizeof(uri), "tcp:127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, old_server, NULL) == 0);
	struct ferry_device *dev = NULL;
	int r = ferry_device_open(uri, &dev);
	CHECK_EQ(r, -EPROTONOSUPPORT);
	if (dev)
		ferry_device_close(dev);
	pthread_join(t, NULL);
	close(old_listen);
}

/* ---- hostile BoData on a raw connection ---- */

/* The next reply (events skipped; ERROR: its errno in *err), NONE on a dead connection. */
static enum ferry_msg_kind raw_reply(struct itest_raw *r, int *err)
{
	struct ferry_msg m;
	while (itest_raw_next(r, &m)) {
		if (m.kind == FERRY_MSG_ERROR && err)
			*err = m.u.error.error;
		if (m.kind != FERRY_MSG_FENCE_UPDATE && m.kind != FERRY_MSG_BO_DATA && m.kind != FERRY_MSG_FENCE_SIGNALED)
			return m.kind;
	}
	return FERRY_MSG_NONE;
}

static void test_hostile_bo_data(void)
{
	struct itest_raw r;
	REQUIRE(itest_raw_connect(&r, tcp_uri));
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO };
	m.u.hello = (struct ferry_hello){ .version = FERRY_PROTOCOL_VERSION, .features = FERRY_FEATURE_MSM };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_HELLO_REPLY);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_CONTEXT_CREATED);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = 5, .size = 4096, .flags = MSM_BO_WC };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_BO_CREATED);

	uint8_t bytes[64] = { 1, 2, 3 };
	struct ferry_bo_range rg = { .offset = 0, .len = 16 };
	int err = 0;
	/* Not mapped yet, and an unknown BO. */
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_DATA };
	m.u.bo_data = (struct ferry_bo_data){ .ctx_id = 1, .bo_id = 5, .nr_ranges = 1, .ranges = &rg, .raw_len = 16,
					      .data_len = 16, .data = bytes };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, &err), FERRY_MSG_ERROR);
	m.u.bo_data.bo_id = 99;
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, &err), FERRY_MSG_ERROR);
	CHECK_EQ(err, -ENOENT);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_MAP };
	m.u.bo_map = (struct ferry_bo_map){ .ctx_id = 1, .bo_id = 5 };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_STATUS_REPLY);

	struct ferry_bo_range bad[] = {
		{ .offset = 4090, .len = 16 },                 /* past the end */
		{ .offset = 0xfffffffffffffff8ull, .len = 16 }, /* offset + len overflows */
		{ .offset = 4096, .len = 1 },                  /* at the end */
	};
	for (unsigned i = 0; i < 3; i++) {
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_DATA };
		m.u.bo_data = (struct ferry_bo_data){ .ctx_id = 1, .bo_id = 5, .nr_ranges = 1, .ranges = &bad[i],
						      .raw_len = bad[i].len, .data_len = bad[i].len, .data = bytes };
		itest_raw_send(&r, &m);
		err = 0;
		CHECK_EQ(raw_reply(&r, &err), FERRY_MSG_ERROR);
		CHECK_EQ(err, -EINVAL);
	}
	/* Bad zstd, and a zstd frame whose size is not raw_len. */
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_DATA };
	m.u.bo_data = (struct ferry_bo_data){ .ctx_id = 1, .bo_id = 5, .flags = FERRY_BO_DATA_ZSTD, .nr_ranges = 1,
					      .ranges = &rg, .raw_len = 16, .data_len = 64, .data = bytes };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_ERROR);
	/* raw_len disagreeing with the ranges: the decoder refuses it. */
	m.u.bo_data.flags = 0;
	m.u.bo_data.raw_len = 8;
	m.u.bo_data.data_len = 8;
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_ERROR);
	/* A good one still works after all that. */
	m.u.bo_data = (struct ferry_bo_data){ .ctx_id = 1, .bo_id = 5, .nr_ranges = 1, .ranges = &rg, .raw_len = 16,
					      .data_len = 16, .data = bytes };
	itest_raw_send(&r, &m);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_INFO };
	m.u.bo_info = (struct ferry_bo_info){ .ctx_id = 1, .bo_id = 5 };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_BO_INFO_REPLY);

	/* 16 MiB of noise into BO 5 (resized: a new BO 6), imported by name as BO 7 of a second
	 * context, mapped while this client does not read: ferryd queues more than its reply cap
	 * of BO bytes and keeps the connection. */
	enum { BIG = 16 << 20, CHUNK = 512 << 10 };
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = 1, .bo_id = 6, .size = BIG, .flags = MSM_BO_WC };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_BO_CREATED);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_MAP };
	m.u.bo_map = (struct ferry_bo_map){ .ctx_id = 1, .bo_id = 6 };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_STATUS_REPLY);
	uint8_t *noise = malloc(CHUNK);
	REQUIRE(noise);
	uint64_t x = 88172645463325252ull;
	for (uint32_t off = 0; off < BIG; off += CHUNK) {
		for (uint32_t i = 0; i < CHUNK; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			noise[i] = (uint8_t)x | 1;
		}
		struct ferry_bo_range big = { .offset = off, .len = CHUNK };
		m = (struct ferry_msg){ .kind = FERRY_MSG_BO_DATA };
		m.u.bo_data = (struct ferry_bo_data){ .ctx_id = 1, .bo_id = 6, .nr_ranges = 1, .ranges = &big,
						      .raw_len = CHUNK, .data_len = CHUNK, .data = noise };
		itest_raw_send(&r, &m);
	}
	free(noise);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 2, .family = FERRY_FAMILY_MSM };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_CONTEXT_CREATED);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_IMPORT };
	m.u.bo_import = (struct ferry_bo_import){ .ctx_id = 2, .bo_id = 7, .src_ctx_id = 1, .src_bo_id = 6 };
	itest_raw_send(&r, &m);
	CHECK_EQ(raw_reply(&r, NULL), FERRY_MSG_BO_CREATED);
	m = (struct ferry_msg){ .kind = FERRY_MSG_BO_MAP };
	m.u.bo_map = (struct ferry_bo_map){ .ctx_id = 2, .bo_id = 7 };
	itest_raw_send(&r, &m);
	usleep(300 * 1000); /* ferryd answers while nobody reads */
	uint64_t got = 0;
	enum ferry_msg_kind k = FERRY_MSG_NONE;
	struct ferry_msg rm;
	while (k != FERRY_MSG_STATUS_REPLY && itest_raw_next(&r, &rm)) {
		k = rm.kind;
		if (k == FERRY_MSG_BO_DATA)
			got += rm.u.bo_data.raw_len;
	}
	CHECK_EQ(k, FERRY_MSG_STATUS_REPLY);
	CHECK(got >= (uint64_t)BIG);
	itest_raw_close(&r);
	CHECK(itest_proc_alive(ferryd.pid));
	CHECK(itest_client_works(&a, 0x5eed5eedu));
}

int main(void)
{
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	const char *const extra[] = { "--insecure", "--allow-passthrough", NULL };
	REQUIRE(setenv("FERRY_INSECURE", "1", 1) == 0); /* plain tcp on both ends: TLS is test_tls's */
	/* The listener is bound by the spawner and passed to ferryd: no port race. */
	REQUIRE(ferryd_spawn_tcp(path, "a630", extra, true, 30000, &ferryd) == 0);
	snprintf(tcp_uri, sizeof(tcp_uri), "%s", ferryd.tcp_uri);
	REQUIRE(itest_client_open(tcp_uri, &a) == 0);
	struct ferry_wire_stats s;
	CHECK_EQ(ferry_device_wire_stats(a.dev, &s), 0);
	RUN_TEST(test_copy_and_partial);
	RUN_TEST(test_both_sides);
	RUN_TEST(test_many_bos);
	RUN_TEST(test_zstd_and_polling);
	RUN_TEST(test_fault_and_notify);
	RUN_TEST(test_import);
	RUN_TEST(test_big_mirror);
	RUN_TEST(test_server_without_mirror);
	RUN_TEST(test_hostile_bo_data);
	itest_client_close(&a);
	CHECK(itest_proc_alive(ferryd.pid));
	if (test_failures)
		ferryd_dump_log(&ferryd, 60);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
