/* libferry-host without sockets: handshake, device query, contexts (fence page + eventfd), BOs,
 * id checks across contexts and clients, malformed frames, and teardown without leaks. */
#include <sys/eventfd.h>

#include "host_harness.h"

static struct ferry_host *host;

static void test_hello_and_device_query(void)
{
	struct harness_client hc;
	harness_connect(&hc, host, "t-hello");
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO };
	m.u.hello = (struct ferry_hello){ .version = FERRY_PROTOCOL_VERSION, .features = FERRY_FEATURE_FENCE_PAGE };
	uint32_t s = harness_request(&hc, &m);
	struct rx_msg *r = harness_reply(&hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_HELLO_REPLY);
	CHECK_EQ(r->m.u.hello_reply.version, FERRY_PROTOCOL_VERSION);
	CHECK(r->m.u.hello_reply.features & FERRY_FEATURE_FENCE_PAGE);
	CHECK(r->m.u.hello_reply.features & FERRY_FEATURE_MSM);
	CHECK(strstr(r->m.u.hello_reply.server, "a630") != NULL);

	m = (struct ferry_msg){ .kind = FERRY_MSG_HELLO };
	s = harness_request(&hc, &m); /* version 0 */
	CHECK_ERROR(&hc, s, -EPROTONOSUPPORT);

	m = (struct ferry_msg){ .kind = FERRY_MSG_DEVICE_QUERY };
	m.u.device_query.family = FERRY_FAMILY_MSM;
	s = harness_request(&hc, &m);
	r = harness_reply(&hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_DEVICE_INFO);
	CHECK_EQ(r->m.u.device_info.family, FERRY_FAMILY_MSM);
	CHECK(!strcmp(r->m.u.device_info.name, "a630"));
	bool gpu_id = false, va_start = false, prios = false;
	for (uint32_t i = 0; i < r->m.u.device_info.nr_params; i++) {
		const struct ferry_param *p = &r->m.u.device_info.params[i];
		if (p->id == 0x01) /* MSM_PARAM_GPU_ID */
			gpu_id = p->value == 630;
		if (p->id == 0x0e) /* MSM_PARAM_VA_START */
			va_start = p->value == 0x100000000ull;
		if (p->id == 0x07) /* MSM_PARAM_PRIORITIES */
			prios = p->value >= 1;
	}
	CHECK(gpu_id);
	CHECK(va_start);
	CHECK(prios);

	m = (struct ferry_msg){ .kind = FERRY_MSG_DEVICE_QUERY };
	m.u.device_query.family = FERRY_FAMILY_V3D;
	s = harness_request(&hc, &m);
	CHECK_ERROR(&hc, s, -ENODEV);
	harness_disconnect(&hc);
}

static void test_context_lifecycle(void)
{
	struct harness_client hc;
	harness_connect(&hc, host, "t-ctx");
	uint32_t s = req_context_create(&hc, 5);
	struct rx_msg *r = harness_reply(&hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_CONTEXT_CREATED);
	CHECK_EQ(r->m.u.context_created.ctx_id, 5);
	REQUIRE(r->nfds == 2);
	struct ferry_fence_page *page = mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, r->fds[0], 0);
	REQUIRE(page != MAP_FAILED);
	CHECK_EQ(page->magic, FERRY_FENCE_PAGE_MAGIC);
	CHECK_EQ(atomic_load(&page->lost), 0);
	/* The guest must not be able to shrink the page under the host. */
	CHECK(ftruncate(r->fds[0], 0) < 0);
	uint64_t v;
	CHECK(read(r->fds[1], &v, sizeof(v)) < 0 && errno == EAGAIN); /* a non-blocking eventfd */
	munmap(page, FERRY_FENCE_PAGE_SIZE);

	s = req_context_create(&hc, 5);
	CHECK_ERROR(&hc, s, -EEXIST);

	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 6, .family = FERRY_FAMILY_V3D };
	CHECK_ERROR(&hc, harness_request(&hc, &m), -ENODEV);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 6, .family = 77 };
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EINVAL);
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){
		.ctx_id = 6, .family = FERRY_FAMILY_MSM, .policy = FERRY_POLICY_PASSTHROUGH,
	};
	CHECK_ERROR(&hc, harness_request(&hc, &m), -EPERM);

	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 1);

	int before = hc.n;
	m = (struct ferry_msg){ .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy.ctx_id = 5;
	harness_request(&hc, &m);
	CHECK_EQ(hc.n, before); /* success has no reply */
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 0);
	m.seq = 0;
	CHECK_ERROR(&hc, harness_request(&hc, &m), -ENOENT);
	harness_disconnect(&hc);
}

static void test_bo_lifecycle(void)
{
	struct harness_client hc;
	harness_connect(&hc, host, "t-bo");
	req_context_create(&hc, 1);
	uint32_t s = req_bo_create(&hc, 1, 10, 5000, MSM_BO_WC_FLAG);
	struct rx_msg *r = harness_reply(&hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_BO_CREATED);
	CHECK_EQ(r->m.u.bo_created.ctx_id, 1);
	CHECK_EQ(r->m.u.bo_created.bo_id, 10);
	CHECK_EQ(r->m.u.bo_created.size, 8192);
	CHECK(r->m.u.bo_created.iova >= 0x100000000ull);
	uint64_t iova = r->m.u.bo_created.iova;
	uint32_t *map = harness_bo_map(r);
	map[100] = 0xabcd1234;
	CHECK_EQ(map[100], 0xabcd1234);
	munmap(map, 8192);

	s = req_bo_info(&hc, 1, 10);
	r = harness_reply(&hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_BO_INFO_REPLY);
	CHECK_EQ(r->m.u.bo_info_reply.size, 8192);
	CHECK_EQ(r->m.u.bo_info_reply.iova, iova);
	CHECK_EQ(r->m.u.bo_info_reply.flags, MSM_BO_WC_FLAG);

	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 1);
	CHECK_EQ(st.bo_bytes, 8192);

	CHECK_ERROR(&hc, req_bo_create(&hc, 1, 10, 4096, MSM_BO_WC_FLAG), -EEXIST);
	CHECK_ERROR(&hc, req_bo_create(&hc, 1, 0, 4096, MSM_BO_WC_FLAG), -EINVAL);
	CHECK_ERROR(&hc, req_bo_create(&hc, 1, 11, 0, MSM_BO_WC_FLAG), -EINVAL);
	CHECK_ERROR(&hc, req_bo_create(&hc, 1, 11, 1ull << 40, MSM_BO_WC_FLAG), -EINVAL);
	CHECK_ERROR(&hc, req_bo_create(&hc, 1, 11, 4096, 0), -EINVAL);               /* no cache mode */
	CHECK_ERROR(&hc, req_bo_create(&hc, 1, 11, 4096, 0x00030000u), -EINVAL);     /* two modes */
	CHECK_ERROR(&hc, req_bo_create(&hc, 1, 11, 4096, MSM_BO_WC_FLAG | 0x100), -EINVAL);
	CHECK_ERROR(&hc, req_bo_create(&hc, 9, 11, 4096, MSM_BO_WC_FLAG), -ENOENT);  /* no context 9 */
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 1);

	int before = hc.n;
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CLOSE };
	m.u.bo_close = (struct ferry_bo_close){ .ctx_id = 1, .bo_id = 10 };
	harness_request(&hc, &m);
	CHECK_EQ(hc.n, before);
	CHECK_ERROR(&hc, req_bo_info(&hc, 1, 10), -ENOENT);
	m.seq = 0;
	CHECK_ERROR(&hc, harness_request(&hc, &m), -ENOENT);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 0);
	CHECK_EQ(st.bo_bytes, 0);
	harness_disconnect(&hc);
}

/* Ids are per context and per client: nobody reaches another's objects by guessing ids. */
static void test_ids_are_scoped(void)
{
	struct harness_client a, b;
	harness_connect(&a, host, "t-ids-a");
	harness_connect(&b, host, "t-ids-b");
	req_context_create(&a, 1);
	req_context_create(&a, 2);
	struct rx_msg *ra = harness_reply(&a, req_bo_create(&a, 1, 7, 4096, MSM_BO_WC_FLAG));
	REQUIRE(ra && ra->m.kind == FERRY_MSG_BO_CREATED);

	CHECK_ERROR(&a, req_bo_info(&a, 2, 7), -ENOENT); /* another context of the same client */
	CHECK_ERROR(&b, req_bo_info(&b, 1, 7), -ENOENT); /* another client: no context 1 there */
	req_context_create(&b, 1);
	CHECK_ERROR(&b, req_bo_info(&b, 1, 7), -ENOENT); /* its own context 1 has no bo 7 */

	/* Same ids in another context are independent objects in another address space. */
	struct rx_msg *r = harness_reply(&b, req_bo_create(&b, 1, 7, 4096, MSM_BO_WC_FLAG));
	REQUIRE(r && r->m.kind == FERRY_MSG_BO_CREATED);
	uint32_t *pa = harness_bo_map(ra);
	uint32_t *pb = harness_bo_map(r);
	pa[0] = 1;
	pb[0] = 2;
	CHECK_EQ(pa[0], 1);
	munmap(pa, 4096);
	munmap(pb, 4096);

	/* Closing in one context leaves the other alone. */
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CLOSE };
	m.u.bo_close = (struct ferry_bo_close){ .ctx_id = 1, .bo_id = 7 };
	harness_request(&b, &m);
	r = harness_reply(&a, req_bo_info(&a, 1, 7));
	CHECK(r && r->m.kind == FERRY_MSG_BO_INFO_REPLY);
	harness_disconnect(&a);
	harness_disconnect(&b);
}

static void test_malformed_frames(void)
{
	struct harness_client hc;
	harness_connect(&hc, host, "t-bad");
	struct ferry_host_stats st0, st1;
	ferry_host_get_stats(host, &st0);
	uint64_t junk[8] = { 0xdeadbeefdeadbeefull, 1, 2, 3, 4, 5, 6, 7 };
	CHECK_EQ(ferry_host_client_handle(hc.client, junk, sizeof(junk), NULL, 0), 0);
	struct rx_msg *r = harness_reply(&hc, 0);
	REQUIRE(r && r->m.kind == FERRY_MSG_ERROR);
	CHECK_EQ(r->m.u.error.error, -EBADMSG);
	CHECK_EQ(r->m.u.error.request_kind, FERRY_MSG_NONE);
	ferry_host_get_stats(host, &st1);
	CHECK_EQ(st1.bad_messages, st0.bad_messages + 1);

	/* fds attached to a request are closed, not leaked. */
	int fds_before = harness_open_fds();
	int extra[2] = { dup(0), dup(1) };
	CHECK_EQ(ferry_host_client_handle(hc.client, junk, sizeof(junk), extra, 2), 0);
	CHECK_EQ(harness_open_fds(), fds_before);

	/* A valid frame at a misaligned address is still handled (the host copies it). */
	struct ferry_msg q = { .kind = FERRY_MSG_DEVICE_QUERY, .seq = 4242 };
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(&q, &b) == 0);
	uint64_t *mis = calloc(1, b.len + 16);
	REQUIRE(mis);
	memcpy((char *)mis + 4, b.data + 4, b.len - 4);
	CHECK_EQ(ferry_host_client_handle(hc.client, (char *)mis + 4, b.len - 4, NULL, 0), 0);
	r = harness_reply(&hc, 4242);
	CHECK(r && r->m.kind == FERRY_MSG_DEVICE_INFO);
	free(mis);
	ferry_buf_free(&b);

	/* A reply kind is not a request. */
	struct ferry_msg m = { .kind = FERRY_MSG_STATUS_REPLY };
	uint32_t s = harness_request(&hc, &m);
	CHECK_ERROR(&hc, s, -EINVAL);

	/* A flood of garbage gets the client disconnected. */
	int ret = 0;
	for (int i = 0; i < 200 && ret == 0; i++) {
		harness_clear(&hc);
		ret = ferry_host_client_handle(hc.client, junk, sizeof(junk), NULL, 0);
	}
	CHECK(ret < 0);
	harness_disconnect(&hc);
}

/* A client whose send fails is treated as gone; the embedder then frees it. */
static void test_send_failure(void)
{
	struct harness_client hc;
	harness_connect(&hc, host, "t-sendfail");
	hc.refuse_send = 1;
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = 1, .family = FERRY_FAMILY_MSM };
	m.seq = 1;
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(&m, &b) == 0);
	void *payload = aligned_alloc(8, (b.len + 8) & ~(size_t)7);
	memcpy(payload, b.data + 4, b.len - 4);
	CHECK(ferry_host_client_handle(hc.client, payload, b.len - 4, NULL, 0) < 0);
	free(payload);
	ferry_buf_free(&b);
	harness_disconnect(&hc);
}

/* Freeing a client with contexts and BOs releases every fd and object. */
static void test_client_free_releases_everything(void)
{
	struct ferry_host_stats st;
	int fds_before = harness_open_fds();
	struct harness_client hc;
	harness_connect(&hc, host, "t-free");
	for (uint32_t c = 1; c <= 3; c++) {
		req_context_create(&hc, c);
		req_queue_create(&hc, c, 0, 0);
		for (uint32_t b = 1; b <= 5; b++)
			req_bo_create(&hc, c, b, 4096 * b, MSM_BO_WC_FLAG);
	}
	CHECK_EQ(harness_count(&hc, FERRY_MSG_ERROR), 0);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 3);
	CHECK_EQ(st.queues, 3);
	CHECK_EQ(st.bos, 15);
	harness_disconnect(&hc);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 0);
	CHECK_EQ(st.queues, 0);
	CHECK_EQ(st.bos, 0);
	CHECK_EQ(st.bo_bytes, 0);
	CHECK_EQ(harness_open_fds(), fds_before);
}

int main(void)
{
	host = harness_host();
	CHECK(strstr(ferry_host_device_name(host), "a630") != NULL);
	RUN_TEST(test_hello_and_device_query);
	RUN_TEST(test_context_lifecycle);
	RUN_TEST(test_bo_lifecycle);
	RUN_TEST(test_ids_are_scoped);
	RUN_TEST(test_malformed_frames);
	RUN_TEST(test_send_failure);
	RUN_TEST(test_client_free_releases_everything);
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.clients, 0);
	ferry_host_destroy(host);

	struct ferry_host_config bad = { .gpu = "a999", .log_level = -1 };
	struct ferry_host *h2 = NULL;
	CHECK(ferry_host_create(&bad, &h2) < 0);
	return test_finish();
}
