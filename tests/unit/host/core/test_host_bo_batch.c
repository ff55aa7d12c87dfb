/* BO_CREATE_BATCH: count BOs in one request, one reply with an fd each, zeroed pages; every
 * hostile count, id range or quota overrun is one ERROR that creates nothing. */
#include "host_harness.h"

static uint32_t req_batch(struct harness_client *hc, uint32_t ctx_id, uint32_t first, uint32_t count, uint64_t size)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATE_BATCH };
	m.u.bo_create_batch = (struct ferry_bo_create_batch){
		.ctx_id = ctx_id, .first_bo_id = first, .count = count, .size = size, .flags = MSM_BO_WC_FLAG,
	};
	return harness_request(hc, &m);
}

static uint32_t nr_bos(struct ferry_host *host)
{
	struct ferry_host_stats st;
	ferry_host_get_stats(host, &st);
	return (uint32_t)st.bos;
}

static void test_batch_creates_zeroed_bos(void)
{
	struct ferry_host *host = harness_host();
	struct harness_client hc;
	harness_connect(&hc, host, "t-batch");
	CHECK_EQ(harness_reply(&hc, req_context_create(&hc, 1))->m.kind, FERRY_MSG_CONTEXT_CREATED);
	harness_clear(&hc);
	int fds_before = harness_open_fds();

	uint32_t s = req_batch(&hc, 1, 10, FERRY_MAX_BO_BATCH, 65536 - 100);
	struct rx_msg *r = harness_reply(&hc, s);
	REQUIRE(r && r->m.kind == FERRY_MSG_BO_BATCH_CREATED);
	const struct ferry_bo_batch_created *c = &r->m.u.bo_batch_created;
	CHECK_EQ(c->ctx_id, 1u);
	CHECK_EQ(c->first_bo_id, 10u);
	CHECK_EQ(c->count, FERRY_MAX_BO_BATCH);
	CHECK_EQ(c->size, 65536u); /* page-rounded, as BoCreate */
	CHECK_EQ(r->nfds, (int)FERRY_MAX_BO_BATCH);
	CHECK_EQ(nr_bos(host), FERRY_MAX_BO_BATCH);
	for (uint32_t i = 0; i < c->count && (int)i < r->nfds; i++) {
		for (uint32_t j = 0; j < i; j++)
			CHECK(c->iova[i] != c->iova[j]);
		uint8_t *p = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fds[i], 0);
		REQUIRE(p != MAP_FAILED);
		bool zero = true;
		for (uint64_t k = 0; k < c->size; k++)
			zero &= p[k] == 0;
		CHECK(zero);
		p[0] = 0xaa; /* each is its own memory */
		munmap(p, c->size);
		struct rx_msg *info = harness_reply(&hc, req_bo_info(&hc, 1, 10 + i));
		REQUIRE(info && info->m.kind == FERRY_MSG_BO_INFO_REPLY);
		CHECK_EQ(info->m.u.bo_info_reply.iova, c->iova[i]);
	}
	for (uint32_t i = 0; i < FERRY_MAX_BO_BATCH; i++) {
		struct ferry_msg m = { .kind = FERRY_MSG_BO_CLOSE };
		m.u.bo_close = (struct ferry_bo_close){ .ctx_id = 1, .bo_id = 10 + i };
		CHECK(harness_reply(&hc, harness_request(&hc, &m)) == NULL);
	}
	CHECK_EQ(nr_bos(host), 0u);
	harness_clear(&hc);
	CHECK_EQ(harness_open_fds(), fds_before);
	harness_disconnect(&hc);
	ferry_host_destroy(host);
}

static void test_hostile_batches(void)
{
	struct ferry_host *host = harness_host();
	struct harness_client hc;
	harness_connect(&hc, host, "t-batch-hostile");
	CHECK_EQ(harness_reply(&hc, req_context_create(&hc, 1))->m.kind, FERRY_MSG_CONTEXT_CREATED);
	CHECK_EQ(harness_reply(&hc, req_bo_create(&hc, 1, 7, 4096, MSM_BO_WC_FLAG))->m.kind, FERRY_MSG_BO_CREATED);
	harness_clear(&hc);
	int fds_before = harness_open_fds();

	CHECK_ERROR(&hc, req_batch(&hc, 1, 100, 0, 4096), -EINVAL);
	CHECK_ERROR(&hc, req_batch(&hc, 1, 100, FERRY_MAX_BO_BATCH + 1, 4096), -EINVAL);
	CHECK_ERROR(&hc, req_batch(&hc, 1, 100, UINT32_MAX, 4096), -EINVAL);
	CHECK_ERROR(&hc, req_batch(&hc, 1, 0, 2, 4096), -EINVAL);           /* id 0 */
	CHECK_ERROR(&hc, req_batch(&hc, 1, UINT32_MAX - 1, 3, 4096), -EINVAL); /* ids would wrap to 0 */
	CHECK_ERROR(&hc, req_batch(&hc, 1, 5, 4, 4096), -EEXIST);           /* 7 is taken: none made */
	CHECK_ERROR(&hc, req_batch(&hc, 9, 100, 2, 4096), -ENOENT);         /* no such context */
	CHECK_ERROR(&hc, req_batch(&hc, 1, 100, 2, 0), -EINVAL);            /* size 0 */
	struct rx_msg *r = harness_reply(&hc, req_batch(&hc, 1, 100, 2, UINT64_MAX));
	CHECK(r && r->m.kind == FERRY_MSG_ERROR);
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATE_BATCH };
	m.u.bo_create_batch = (struct ferry_bo_create_batch){ .ctx_id = 1, .first_bo_id = 100, .count = 2,
							      .size = 4096, .flags = 0xffffffffu };
	r = harness_reply(&hc, harness_request(&hc, &m));
	CHECK(r && r->m.kind == FERRY_MSG_ERROR); /* no cache mode / unknown flags */
	CHECK_EQ(nr_bos(host), 1u);
	CHECK_EQ(harness_count(&hc, FERRY_MSG_BO_BATCH_CREATED), 0);
	harness_clear(&hc);
	CHECK_EQ(harness_open_fds(), fds_before);

	/* The highest ids still work, and the context still takes a good batch. */
	r = harness_reply(&hc, req_batch(&hc, 1, UINT32_MAX - 1, 2, 4096));
	CHECK(r && r->m.kind == FERRY_MSG_BO_BATCH_CREATED && r->nfds == 2);
	CHECK_EQ(nr_bos(host), 3u);
	harness_disconnect(&hc);
	CHECK_EQ(nr_bos(host), 0u);
	ferry_host_destroy(host);
}

static void test_batch_quota(void)
{
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR, .max_client_bos = 5,
					 .max_client_bo_mib = 1 };
	struct ferry_host *host = NULL;
	REQUIRE(ferry_host_create(&cfg, &host) == 0);
	struct harness_client hc;
	harness_connect(&hc, host, "t-batch-quota");
	CHECK_EQ(harness_reply(&hc, req_context_create(&hc, 1))->m.kind, FERRY_MSG_CONTEXT_CREATED);
	for (uint32_t id = 1; id <= 2; id++)
		CHECK_EQ(harness_reply(&hc, req_bo_create(&hc, 1, id, 4096, MSM_BO_WC_FLAG))->m.kind,
			 FERRY_MSG_BO_CREATED);
	harness_clear(&hc);
	int fds_full = harness_open_fds();

	/* 2 held + 4 > 5: the whole batch is refused, nothing made. */
	uint32_t s = req_batch(&hc, 1, 10, 4, 4096);
	CHECK_ERROR(&hc, s, -EDQUOT);
	CHECK(strstr(harness_reply(&hc, s)->m.u.error.message, "--max-client-bos"));
	CHECK_EQ(nr_bos(host), 2u);
	/* Bytes: 4 x 512 KiB overruns 1 MiB even though each one alone would fit. */
	s = req_batch(&hc, 1, 10, 2, 512 << 10);
	CHECK_ERROR(&hc, s, -EDQUOT);
	CHECK(strstr(harness_reply(&hc, s)->m.u.error.message, "--max-client-bo-mib"));
	CHECK_EQ(nr_bos(host), 2u);
	harness_clear(&hc);
	CHECK_EQ(harness_open_fds(), fds_full);

	/* What fits is made: 3 more reach the cap exactly. */
	struct rx_msg *r = harness_reply(&hc, req_batch(&hc, 1, 10, 3, 4096));
	CHECK(r && r->m.kind == FERRY_MSG_BO_BATCH_CREATED && r->nfds == 3);
	CHECK_EQ(nr_bos(host), 5u);
	CHECK_ERROR(&hc, req_batch(&hc, 1, 20, 1, 4096), -EDQUOT);
	harness_disconnect(&hc);
	CHECK_EQ(nr_bos(host), 0u);
	ferry_host_destroy(host);
}

int main(void)
{
	RUN_TEST(test_batch_creates_zeroed_bos);
	RUN_TEST(test_hostile_batches);
	RUN_TEST(test_batch_quota);
	return test_finish();
}
