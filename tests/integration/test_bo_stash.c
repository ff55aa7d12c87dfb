/* libferry's BO stash through ferryd: BOs of a repeated size come from BoCreateBatch ahead of
 * need, each zeroed and the GPU's as usual; the stash counts against the client's quota but
 * gives way (a client still gets exactly --max-client-bos BOs), and goes with its context. And
 * BoClose, which libferry puts in the context's submit ring. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

#define BO_CAP 10
#define BO_SIZE 65536

static struct ferryd_proc ferryd;

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* The BO count of ferryd p (`ferry status`), or -1. */
static long host_bos_of(const struct ferryd_proc *p)
{
	char *out = itest_ferry_status(p, "", NULL);
	const char *at = out ? strstr(out, "\nbos: ") : NULL;
	long n = at ? strtol(at + 6, NULL, 10) : -1;
	free(out);
	return n;
}

/* ferryd's BO count (`ferry status`), or -1. */
static long host_bos(void)
{
	return host_bos_of(&ferryd);
}

static bool all_zero(const uint32_t *p, uint64_t size)
{
	for (uint64_t i = 0; i < size / 4; i++)
		if (p[i])
			return false;
	return true;
}

static void test_stashed_bos_are_fresh(void)
{
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	/* Closed BOs' pages never come back: each new one is zero, however often the size repeats. */
	for (int i = 0; i < 40; i++) {
		struct itest_bo b;
		REQUIRE(itest_bo_new(c.ctx, BO_SIZE, &b) == 0);
		CHECK_EQ(b.size, (uint64_t)BO_SIZE);
		CHECK(all_zero(b.cpu, b.size));
		memset(b.cpu, 0xa5, b.size);
		ferry_bo_close(b.bo);
	}
	/* Many at once: distinct memory, distinct GPU addresses. */
	static struct itest_bo held[12];
	for (int i = 0; i < 12; i++) {
		REQUIRE(itest_bo_new(c.ctx, BO_SIZE, &held[i]) == 0);
		CHECK(all_zero(held[i].cpu, held[i].size));
		held[i].cpu[0] = 0x1000u + (uint32_t)i;
		for (int j = 0; j < i; j++)
			CHECK(held[i].iova != held[j].iova && held[i].cpu != held[j].cpu);
	}
	for (int i = 0; i < 12; i++)
		CHECK_EQ(held[i].cpu[0], 0x1000u + (uint32_t)i);
	/* Ahead of need: ferryd holds more BOs than the client has open. */
	long stashed = host_bos();
	fprintf(stderr, "client holds 12 BOs, ferryd %ld\n", stashed);
	CHECK(stashed > 12);
	/* And they are the GPU's like any other (itest_client_works makes one of a new size). */
	CHECK(itest_client_works(&c, 0x57a5e001));
	for (int i = 0; i < 12; i++)
		ferry_bo_close(held[i].bo);
	itest_client_close(&c);
	/* The stash goes with the context. */
	long left = -1;
	for (int tries = 0; tries < 100 && left != 0; tries++) {
		left = host_bos();
		if (left != 0)
			sleep_ms(20);
	}
	CHECK_EQ(left, 0);
}

/* The stash gives way to the quota: exactly BO_CAP BOs, the next one -EDQUOT, and after closing
 * them the client gets BO_CAP again. */
static void fill_to_cap(struct itest_client *c, uint64_t size)
{
	static struct itest_bo bos[BO_CAP + 1];
	for (int round = 0; round < 2; round++) {
		int n = 0, err = 0;
		while (n <= BO_CAP) {
			err = itest_bo_new(c->ctx, size, &bos[n]);
			if (err < 0)
				break;
			CHECK(all_zero(bos[n].cpu, bos[n].size));
			n++;
		}
		CHECK_EQ(n, BO_CAP);
		CHECK_EQ(err, -EDQUOT);
		const char *why = ferry_device_last_error(c->dev);
		CHECK(why && strstr(why, "--max-client-bos"));
		for (int i = 0; i < n; i++)
			ferry_bo_close(bos[i].bo);
	}
}

static void test_stash_gives_way_to_quota(const char *ferryd_path)
{
	static struct ferryd_proc capped;
	char cap[16];
	snprintf(cap, sizeof(cap), "%d", BO_CAP);
	const char *const extra[] = { "--max-client-bos", cap, NULL };
	REQUIRE(ferryd_spawn(ferryd_path, "a630", extra, true, 30000, &capped) == 0);
	struct ferry_device *dev;
	struct ferry_context *ctx;
	REQUIRE(ferry_device_open(capped.uri, &dev) == 0);
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx) == 0);
	struct itest_client c = { .dev = dev, .ctx = ctx };
	fill_to_cap(&c, BO_SIZE);
	/* Another size while the first one's stash may still hold some. */
	fill_to_cap(&c, 3 * 4096);
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	if (test_failures)
		ferryd_dump_log(&capped, 20);
	CHECK(ferryd_stop(&capped, 20000) == 0);
}

/* libferry puts a BoClose in the context's ring (no socket frame), and ferryd still frees the
 * BO without any later frame to push it, and before any request sent after the close: with
 * --max-client-bos 1 every create after a close succeeds. */
static void test_closes_go_in_the_ring(const char *path)
{
	static struct ferryd_proc p;
	const char *const extra[] = { "--max-client-bos", "1", NULL };
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &p) == 0);
	struct ferry_device *dev;
	struct ferry_context *ctx;
	REQUIRE(ferry_device_open(p.uri, &dev) == 0);
	REQUIRE(ferry_context_create(dev, FERRY_FAMILY_MSM, FERRY_POLICY_VALIDATED, &ctx) == 0);
	const char *env = getenv("FERRY_RING");
	bool ring = !(env && strcmp(env, "0") == 0);
	/* Above the BO stash's sizes: each create is one BoCreate, each close one BoClose. */
	const uint64_t size = 320u << 10;
	struct itest_bo b;
	REQUIRE(itest_bo_new(ctx, size, &b) == 0);
	struct ferry_ring_stats s0, s1;
	ferry_context_ring_stats(ctx, &s0);
	ferry_bo_close(b.bo);
	ferry_context_ring_stats(ctx, &s1);
	uint64_t want = ring ? s0.records + 1 : 0;
	CHECK_EQ(s1.records, want);
	long left = -1;
	for (int tries = 0; tries < 200 && left != 0; tries++) {
		left = host_bos_of(&p);
		if (left != 0)
			usleep(10000);
	}
	CHECK_EQ(left, 0);
	for (int i = 0; i < 50; i++) {
		int r = itest_bo_new(ctx, size, &b);
		CHECK_EQ(r, 0);
		if (r < 0) {
			fprintf(stderr, "create %d: %s\n", i, ferry_device_last_error(dev));
			break;
		}
		ferry_bo_close(b.bo);
	}
	ferry_context_destroy(ctx);
	ferry_device_close(dev);
	if (test_failures)
		ferryd_dump_log(&p, 20);
	CHECK(ferryd_stop(&p, 20000) == 0);
}

int main(void)
{
	char path[PATH_MAX];
	if (ferryd_locate(NULL, path, sizeof(path)) < 0) {
		fprintf(stderr, "cannot find ferryd: set $FERRYD\n");
		return 1;
	}
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_stashed_bos_are_fresh);
	test_stash_gives_way_to_quota(path);
	test_closes_go_in_the_ring(path);
	if (test_failures)
		ferryd_dump_log(&ferryd, 30);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
