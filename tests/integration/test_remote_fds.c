/* The fds ferryd's remote layer keeps for a tcp: client (a dup of each BO's fd, the fence page and
 * eventfd of each context) count in ferryd's fd estimate: with them near the fd limit, a new
 * connection is refused to keep --fd-reserve free, as it is for the host's own fds. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "itest.h"
#include "test.h"

#define FD_LIMIT 256
#define RESERVE 40
#define MAX_BOS 200

static void test_remote_fds_count(void)
{
	/* There the fake kernel, inside ferryd, holds an fd per GEM object that a real kernel would
	 * not, and that ferryd rightly does not count. */
	if (itest_sim_only("the fd estimate near the limit", "the fake kernel's own fds"))
		return;
	char path[PATH_MAX];
	REQUIRE(ferryd_locate(NULL, path, sizeof(path)) == 0);
	const char *const extra[] = { "--insecure", "--fd-reserve", "40", "--max-client-fds", "4096", NULL };
	struct ferryd_proc p;
	REQUIRE(ferryd_spawn_tcp(path, "a630", extra, true, 30000, &p) == 0);
	struct itest_client a;
	REQUIRE(itest_client_open(p.tcp_uri, &a) == 0);
	/* BOs until ferryd's real fds would leave less than the reserve for one more connection (once
	 * one BO is given back below). */
	struct ferry_bo *bos[MAX_BOS];
	int n = 0, used = 0;
	while (n < MAX_BOS && (used = itest_proc_fd_count(p.pid)) + RESERVE < FD_LIMIT + 2 &&
	       ferry_bo_new(a.ctx, 4096, MSM_BO_WC, &bos[n]) == 0) {
		uint64_t iova;
		if (ferry_bo_iova(bos[n++], &iova) < 0) /* waits for its BO_CREATED */
			break;
	}
	/* Its first BO given back leaves a hole low in ferryd's fd table, so the number of the next
	 * accepted fd no longer bounds how many are in use: only the count does. */
	REQUIRE(n >= 2);
	int before = itest_proc_fd_count(p.pid);
	ferry_bo_close(bos[0]);
	for (int i = 0; i < 100 && itest_proc_fd_count(p.pid) > before - 2; i++)
		usleep(20 * 1000);
	used = itest_proc_fd_count(p.pid);
	printf("  %d BOs of a tcp: client: ferryd holds %d fds of %d, reserve %d\n", n, used, FD_LIMIT, RESERVE);
	CHECK(used + RESERVE + 1 >= FD_LIMIT);
	struct ferry_device *dev = NULL;
	int r = ferry_device_open(p.uri, &dev);
	printf("  a new unix client: %d\n", r);
	CHECK(r < 0);
	if (r == 0)
		ferry_device_close(dev);
	/* Once they are given back, clients get in again. */
	for (int i = 1; i < n; i++)
		ferry_bo_close(bos[i]);
	itest_client_close(&a);
	r = -1;
	for (int i = 0; i < 60 && r < 0; i++) {
		usleep(50 * 1000);
		r = ferry_device_open(p.uri, &dev);
	}
	CHECK_EQ(r, 0);
	if (r == 0)
		ferry_device_close(dev);
	CHECK(itest_proc_alive(p.pid));
	if (test_failures)
		ferryd_dump_log(&p, 30);
	CHECK(itest_stop_ferryd(&p));
}

int main(void)
{
	/* ferryd raises its soft limit to the hard one: lower both. */
	struct rlimit rl = { FD_LIMIT, FD_LIMIT };
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("setrlimit");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	REQUIRE(setenv("FERRY_INSECURE", "1", 1) == 0);
	RUN_TEST(test_remote_fds_count);
	return itest_finish(test_finish(), 1);
}
