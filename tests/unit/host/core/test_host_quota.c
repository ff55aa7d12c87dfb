/* Per-client quotas (ferry_host_config.max_client_*): each cap refuses with -EDQUOT and changes
 * nothing else, closing or destroying gives the quota back, and other clients are unaffected. */
#include "host_harness.h"

static struct ferry_host *small_host(void)
{
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR, .max_client_contexts = 3,
					 .max_client_bos = 5, .max_client_bo_mib = 1 };
	struct ferry_host *host = NULL;
	REQUIRE(ferry_host_create(&cfg, &host) == 0);
	return host;
}

static bool created(struct harness_client *hc, uint32_t seq, enum ferry_msg_kind kind)
{
	struct rx_msg *r = harness_reply(hc, seq);
	return r && r->m.kind == kind;
}

static void check_quota_error(struct harness_client *hc, uint32_t seq, const char *option)
{
	CHECK_ERROR(hc, seq, -EDQUOT);
	struct rx_msg *r = harness_reply(hc, seq);
	CHECK(r && r->m.kind == FERRY_MSG_ERROR && r->m.u.error.message &&
	      strstr(r->m.u.error.message, "client quota") && strstr(r->m.u.error.message, option));
}

static uint32_t req_context_destroy(struct harness_client *hc, uint32_t ctx_id)
{
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_DESTROY };
	m.u.context_destroy.ctx_id = ctx_id;
	return harness_request(hc, &m);
}

static uint32_t req_bo_close(struct harness_client *hc, uint32_t ctx_id, uint32_t bo_id)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CLOSE };
	m.u.bo_close = (struct ferry_bo_close){ .ctx_id = ctx_id, .bo_id = bo_id };
	return harness_request(hc, &m);
}

static void test_default_context_cap(void)
{
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR };
	struct ferry_host *host = NULL;
	REQUIRE(ferry_host_create(&cfg, &host) == 0);
	struct harness_client hc;
	harness_connect(&hc, host, "t-default");
	for (uint32_t id = 1; id <= 16; id++)
		CHECK(created(&hc, req_context_create(&hc, id), FERRY_MSG_CONTEXT_CREATED));
	uint32_t s = req_context_create(&hc, 17);
	check_quota_error(&hc, s, "at most 16 contexts (ferryd --max-client-contexts)");
	harness_disconnect(&hc);
	ferry_host_destroy(host);
}

static void test_context_cap(void)
{
	struct ferry_host *host = small_host();
	struct harness_client a, b;
	harness_connect(&a, host, "t-ctx-a");
	harness_connect(&b, host, "t-ctx-b");
	int fds_before = harness_open_fds();
	for (uint32_t id = 1; id <= 3; id++)
		CHECK(created(&a, req_context_create(&a, id), FERRY_MSG_CONTEXT_CREATED));
	harness_clear(&a);
	int fds_full = harness_open_fds();
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 3u);

	uint32_t s = req_context_create(&a, 4);
	check_quota_error(&a, s, "--max-client-contexts");
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 3u);
	CHECK_EQ(harness_open_fds(), fds_full); /* refused before opening anything */
	harness_clear(&a);

	/* Another client has its own quota. */
	for (uint32_t id = 1; id <= 3; id++)
		CHECK(created(&b, req_context_create(&b, id), FERRY_MSG_CONTEXT_CREATED));
	harness_clear(&b);

	/* Destroying one gives its slot back. */
	s = req_context_destroy(&a, 2);
	CHECK(harness_reply(&a, s) == NULL);
	CHECK(created(&a, req_context_create(&a, 4), FERRY_MSG_CONTEXT_CREATED));
	check_quota_error(&a, req_context_create(&a, 5), "--max-client-contexts");

	harness_disconnect(&a);
	harness_disconnect(&b);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.contexts, 0u);
	CHECK_EQ(harness_open_fds(), fds_before);
	ferry_host_destroy(host);
}

static void test_bo_count_cap(void)
{
	struct ferry_host *host = small_host();
	struct harness_client a, b;
	harness_connect(&a, host, "t-bo-a");
	harness_connect(&b, host, "t-bo-b");
	CHECK(created(&a, req_context_create(&a, 1), FERRY_MSG_CONTEXT_CREATED));
	CHECK(created(&a, req_context_create(&a, 2), FERRY_MSG_CONTEXT_CREATED));
	CHECK(created(&b, req_context_create(&b, 1), FERRY_MSG_CONTEXT_CREATED));
	/* The cap counts across the client's contexts: 3 + 2. */
	for (uint32_t id = 1; id <= 5; id++)
		CHECK(created(&a, req_bo_create(&a, id <= 3 ? 1 : 2, id, 4096, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	harness_clear(&a);
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 5u);
	int fds_full = harness_open_fds();

	uint32_t s = req_bo_create(&a, 2, 6, 4096, MSM_BO_WC_FLAG);
	check_quota_error(&a, s, "at most 5 BOs (ferryd --max-client-bos)");
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 5u);
	CHECK_EQ(st.bo_bytes, 5u * 4096);
	CHECK_EQ(harness_open_fds(), fds_full);
	/* The refused id was not taken: the earlier BOs are intact, id 6 does not exist. */
	CHECK(created(&a, req_bo_info(&a, 1, 1), FERRY_MSG_BO_INFO_REPLY));
	CHECK_ERROR(&a, req_bo_info(&a, 2, 6), -ENOENT);
	harness_clear(&a);

	/* The other client is unaffected. */
	for (uint32_t id = 1; id <= 5; id++)
		CHECK(created(&b, req_bo_create(&b, 1, id, 4096, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	harness_clear(&b);

	/* Closing a BO frees its slot; destroying a context frees all of its BOs' slots. */
	CHECK(harness_reply(&a, req_bo_close(&a, 1, 2)) == NULL);
	CHECK(created(&a, req_bo_create(&a, 2, 6, 4096, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	check_quota_error(&a, req_bo_create(&a, 2, 7, 4096, MSM_BO_WC_FLAG), "--max-client-bos");
	harness_clear(&a);
	CHECK(harness_reply(&a, req_context_destroy(&a, 2)) == NULL); /* BOs 4, 5, 6 */
	for (uint32_t id = 10; id < 13; id++)
		CHECK(created(&a, req_bo_create(&a, 1, id, 4096, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	check_quota_error(&a, req_bo_create(&a, 1, 13, 4096, MSM_BO_WC_FLAG), "--max-client-bos");

	harness_disconnect(&a);
	harness_disconnect(&b);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 0u);
	CHECK_EQ(st.bo_bytes, 0u);
	ferry_host_destroy(host);
}

static void test_bo_bytes_cap(void)
{
	struct ferry_host *host = small_host();
	struct harness_client a, b;
	harness_connect(&a, host, "t-bytes-a");
	harness_connect(&b, host, "t-bytes-b");
	CHECK(created(&a, req_context_create(&a, 1), FERRY_MSG_CONTEXT_CREATED));
	CHECK(created(&b, req_context_create(&b, 1), FERRY_MSG_CONTEXT_CREATED));
	CHECK(created(&a, req_bo_create(&a, 1, 1, 512 << 10, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	CHECK(created(&a, req_bo_create(&a, 1, 2, 512 << 10, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED)); /* exactly 1 MiB */
	check_quota_error(&a, req_bo_create(&a, 1, 3, 4096, MSM_BO_WC_FLAG), "at most 1 MiB of BOs (ferryd --max-client-bo-mib)");
	/* A single BO over the whole cap. */
	check_quota_error(&a, req_bo_create(&a, 1, 3, 2 << 20, MSM_BO_WC_FLAG), "--max-client-bo-mib");
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 2u);
	CHECK_EQ(st.bo_bytes, 1u << 20);

	CHECK(created(&b, req_bo_create(&b, 1, 1, 1 << 20, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	check_quota_error(&b, req_bo_create(&b, 1, 2, 4096, MSM_BO_WC_FLAG), "--max-client-bo-mib");

	CHECK(harness_reply(&a, req_bo_close(&a, 1, 1)) == NULL);
	CHECK(created(&a, req_bo_create(&a, 1, 3, 256 << 10, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	CHECK(created(&a, req_bo_create(&a, 1, 4, 256 << 10, MSM_BO_WC_FLAG), FERRY_MSG_BO_CREATED));
	check_quota_error(&a, req_bo_create(&a, 1, 5, 4096, MSM_BO_WC_FLAG), "--max-client-bo-mib");

	harness_disconnect(&a);
	harness_disconnect(&b);
	ferry_host_get_stats(host, &st);
	CHECK_EQ(st.bos, 0u);
	CHECK_EQ(st.bo_bytes, 0u);
	ferry_host_destroy(host);
}

int main(void)
{
	RUN_TEST(test_default_context_cap);
	RUN_TEST(test_context_cap);
	RUN_TEST(test_bo_count_cap);
	RUN_TEST(test_bo_bytes_cap);
	return test_finish();
}
