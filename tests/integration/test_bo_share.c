/* BO sharing between two ferry clients (msm): the fd of one client's BO, handed to another,
 * imports the same memory and GPU object there at that context's own iova; fds that are not a
 * live BO's pages, double imports and quota are refused as the kernel and ferryd say. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

static struct ferryd_proc ferryd;

/* c's GPU writes value at iova (a BO of c's context listed as written). */
static int gpu_write(struct itest_client *c, struct ferry_bo *target, uint64_t iova, uint32_t value)
{
	struct itest_bo ib;
	int r = itest_bo_new(c->ctx, 4096, &ib);
	if (r < 0)
		return r;
	struct pm4_builder b;
	pm4_builder_init(&b, ib.cpu, 1024);
	pm4_mem_write(&b, iova, &value, 1);
	uint32_t seqno = 0;
	r = pm4_builder_ok(&b) ? itest_submit(c, ib.bo, 0, pm4_builder_bytes(&b), &target, 1, &seqno) : -EINVAL;
	if (r == 0)
		r = ferry_fence_wait(c->q, seqno, ITEST_WAIT_NS);
	ferry_bo_close(ib.bo);
	return r;
}

static void test_same_memory_both_ways(void)
{
	struct itest_client a, b;
	REQUIRE(itest_client_open(ferryd.uri, &a) == 0);
	REQUIRE(itest_client_open(ferryd.uri, &b) == 0);
	struct itest_bo shared;
	REQUIRE(itest_bo_new(a.ctx, 8192, &shared) == 0);
	int fd = ferry_bo_fd(shared.bo);
	REQUIRE(fd >= 0);

	struct ferry_bo *imp = NULL;
	CHECK_EQ(ferry_bo_import(b.ctx, fd, &imp), 0);
	REQUIRE(imp);
	CHECK_EQ(ferry_bo_size(imp), 8192);
	void *p = NULL;
	uint64_t b_iova = 0;
	CHECK_EQ(ferry_bo_map(imp, &p), 0);
	CHECK_EQ(ferry_bo_iova(imp, &b_iova), 0);
	REQUIRE(p && b_iova);
	uint32_t *bcpu = p;

	/* CPU: each side sees the other's stores. */
	shared.cpu[0] = 0x11223344u;
	CHECK_EQ(bcpu[0], 0x11223344u);
	bcpu[2047] = 0xa5a5f00du;
	CHECK_EQ(shared.cpu[2047], 0xa5a5f00du);

	/* GPU: B writes through its own iova, A reads; A writes through its iova, B reads. */
	CHECK_EQ(gpu_write(&b, imp, b_iova + 4 * 5, 0xb0b0b0b0u), 0);
	CHECK_EQ(shared.cpu[5], 0xb0b0b0b0u);
	CHECK_EQ(gpu_write(&a, shared.bo, shared.iova + 4 * 6, 0xa0a0a0a0u), 0);
	CHECK_EQ(bcpu[6], 0xa0a0a0a0u);

	/* The same fd again into B is the BO B has already. */
	struct ferry_bo *again = NULL;
	CHECK_EQ(ferry_bo_import(b.ctx, fd, &again), -EEXIST);
	CHECK(strstr(ferry_device_last_error(b.dev), "already") != NULL);
	CHECK(again == NULL);

	/* The BO lives while any context holds it: A lets go of its BO and its context. */
	int keep = dup(fd);
	REQUIRE(keep >= 0);
	ferry_bo_close(shared.bo);
	itest_client_close(&a);
	CHECK_EQ(gpu_write(&b, imp, b_iova + 4 * 7, 0x77777777u), 0);
	CHECK_EQ(bcpu[7], 0x77777777u);
	CHECK_EQ(bcpu[0], 0x11223344u);

	/* A third client imports from B's holding (the same pages). */
	struct itest_client c;
	REQUIRE(itest_client_open(ferryd.uri, &c) == 0);
	struct ferry_bo *third = NULL;
	CHECK_EQ(ferry_bo_import(c.ctx, keep, &third), 0);
	void *cp = NULL;
	if (third && ferry_bo_map(third, &cp) == 0)
		CHECK_EQ(((uint32_t *)cp)[7], 0x77777777u);
	ferry_bo_close(third);

	/* Once no context holds it, its pages are no BO any more: refused (unlike the kernel,
	 * where the dma-buf fd alone keeps the object importable: ferryd imports only pages it
	 * knows, so a forged memfd can never pass). B's close is asynchronous: a round trip on
	 * B's connection makes sure ferryd handled it before C asks. */
	ferry_bo_close(imp);
	CHECK(itest_client_works(&b, 0xb1b1));
	struct ferry_bo *late = NULL;
	CHECK_EQ(ferry_bo_import(c.ctx, keep, &late), -EINVAL);
	CHECK(strstr(ferry_device_last_error(c.dev), "not the pages of a BO") != NULL);
	close(keep);
	CHECK(itest_client_works(&c, 0x5eed));
	itest_client_close(&c);
	itest_client_close(&b);
}

static void test_hostile_fds(void)
{
	struct itest_client a, b;
	REQUIRE(itest_client_open(ferryd.uri, &a) == 0);
	REQUIRE(itest_client_open(ferryd.uri, &b) == 0);
	struct itest_bo mine;
	REQUIRE(itest_bo_new(a.ctx, 4096, &mine) == 0);
	struct ferry_bo *out = NULL;

	/* Someone's memfd of the same size, a plain file, a pipe: not a BO's pages. */
	int mfd = memfd_create("ferry-msm-bo@1", MFD_CLOEXEC);
	REQUIRE(mfd >= 0 && ftruncate(mfd, 4096) == 0);
	CHECK_EQ(ferry_bo_import(b.ctx, mfd, &out), -EINVAL);
	close(mfd);
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	REQUIRE(nul >= 0);
	CHECK_EQ(ferry_bo_import(b.ctx, nul, &out), -EINVAL);
	close(nul);
	int pfd[2];
	REQUIRE(pipe(pfd) == 0);
	CHECK_EQ(ferry_bo_import(b.ctx, pfd[0], &out), -EINVAL);
	close(pfd[0]);
	close(pfd[1]);
	/* No fd at all. */
	CHECK_EQ(ferry_bo_import(b.ctx, -1, &out), -EBADF);
	CHECK(out == NULL);

	/* A BO of the importer's own context is that BO (the shim dedups before asking). */
	CHECK_EQ(ferry_bo_import(a.ctx, ferry_bo_fd(mine.bo), &out), -EEXIST);

	/* Both clients still work, and nothing was charged for the refusals. */
	CHECK(itest_client_works(&a, 0x1234));
	CHECK(itest_client_works(&b, 0x4321));
	ferry_bo_close(mine.bo);
	itest_client_close(&a);
	itest_client_close(&b);
}

/* Many BOs (the host's index of their pages grows and rehashes): each one imports as itself, and
 * a closed one no more. */
static void test_many_bos(void)
{
	struct itest_client a, b;
	REQUIRE(itest_client_open(ferryd.uri, &a) == 0);
	REQUIRE(itest_client_open(ferryd.uri, &b) == 0);
	enum { N = 600 };
	static struct itest_bo bos[N];
	for (int i = 0; i < N; i++) {
		REQUIRE(itest_bo_new(a.ctx, 4096, &bos[i]) == 0);
		bos[i].cpu[0] = 0x1000u + (uint32_t)i;
	}
	int closed_fd = dup(ferry_bo_fd(bos[300].bo));
	REQUIRE(closed_fd >= 0);
	ferry_bo_close(bos[300].bo);
	bos[300].bo = NULL;
	CHECK(itest_client_works(&a, 0x600)); /* the close reached ferryd */
	struct ferry_bo *gone = NULL;
	CHECK_EQ(ferry_bo_import(b.ctx, closed_fd, &gone), -EINVAL);
	close(closed_fd);
	unsigned wrong = 0;
	for (int i = 0; i < N; i += 37) {
		if (!bos[i].bo)
			continue;
		struct ferry_bo *imp = NULL;
		void *p = NULL;
		if (ferry_bo_import(b.ctx, ferry_bo_fd(bos[i].bo), &imp) != 0 || ferry_bo_map(imp, &p) != 0 ||
		    ((uint32_t *)p)[0] != 0x1000u + (uint32_t)i)
			wrong++;
		ferry_bo_close(imp);
	}
	CHECK_EQ(wrong, 0);
	for (int i = 0; i < N; i++)
		ferry_bo_close(bos[i].bo);
	itest_client_close(&a);
	itest_client_close(&b);
}

/* The importer pays: an import counts against its --max-client-bos like a BO it made. */
static void test_quota_charges_importer(void)
{
	struct ferryd_proc q;
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	const char *const extra[] = { "--max-client-bos", "2", NULL };
	REQUIRE(ferryd_spawn(path, "a630", extra, true, 30000, &q) == 0);
	struct itest_client a, b;
	REQUIRE(itest_client_open(q.uri, &a) == 0);
	REQUIRE(itest_client_open(q.uri, &b) == 0);
	struct itest_bo x, y;
	REQUIRE(itest_bo_new(a.ctx, 4096, &x) == 0);
	REQUIRE(itest_bo_new(a.ctx, 4096, &y) == 0);
	struct ferry_bo *bx = NULL, *by = NULL, *filler = NULL;
	CHECK_EQ(ferry_bo_import(b.ctx, ferry_bo_fd(x.bo), &bx), 0);
	REQUIRE(ferry_bo_new(b.ctx, 4096, MSM_BO_WC, &filler) == 0);
	void *m;
	CHECK_EQ(ferry_bo_map(filler, &m), 0);
	CHECK_EQ(ferry_bo_import(b.ctx, ferry_bo_fd(y.bo), &by), -EDQUOT);
	CHECK(strstr(ferry_device_last_error(b.dev), "--max-client-bos") != NULL);
	ferry_bo_close(bx);
	CHECK_EQ(ferry_bo_import(b.ctx, ferry_bo_fd(y.bo), &by), 0);
	ferry_bo_close(by);
	ferry_bo_close(filler);
	ferry_bo_close(x.bo);
	ferry_bo_close(y.bo);
	itest_client_close(&a);
	itest_client_close(&b);
	CHECK(itest_stop_ferryd(&q));
}

int main(void)
{
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_same_memory_both_ways);
	RUN_TEST(test_hostile_fds);
	RUN_TEST(test_many_bos);
	RUN_TEST(test_quota_charges_importer);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
