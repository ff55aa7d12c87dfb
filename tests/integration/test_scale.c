/* 64 clients of one ferryd at once (tools/bench_scale.c, the engine of `ferry bench --clients`):
 * each its own process, connection, context and queue, all pipelining submits together, and every
 * one finishes its work; and ferryd's memory per idle client (HELLO, a context, a queue) stays
 * under 256 KiB, before and after that load. Rates are the bench's to print, not checked here. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_scale.h"
#include "itest.h"
#include "test.h"

enum { CLIENTS = 64, LOAD_MS = 700 };
#define IDLE_MAX_BYTES (256l << 10)

static struct ferryd_proc ferryd;

static void check_idle_memory(const char *when)
{
	long base = 0, with = 0;
	long per = bench_scale_idle_kib(ferryd.uri, ferryd.pid, CLIENTS, &base, &with);
	fprintf(stderr, "%s: ferryd %ld KiB, with %d idle clients %ld KiB: %ld bytes per idle client\n", when, base,
		CLIENTS, with, per);
	CHECK(per >= 0);
	CHECK(per <= IDLE_MAX_BYTES);
}

static void test_idle_memory(void)
{
	check_idle_memory("idle clients");
}

static void test_clients_pipelining_at_once(void)
{
	struct bench_scale_result *res = calloc(CLIENTS + 1, sizeof(*res));
	REQUIRE(res);
	CHECK_EQ(bench_scale_load(ferryd.uri, CLIENTS, true, LOAD_MS, res), 0);
	int done = 0;
	for (int i = 0; i <= CLIENTS; i++) {
		if (!res[i].ok || res[i].submits == 0)
			fprintf(stderr, "client %d: ok %d, %llu submits: %s\n", i, res[i].ok, res[i].submits, res[i].why);
		done += res[i].ok && res[i].submits > 0;
	}
	CHECK_EQ(done, CLIENTS + 1);
	free(res);
	/* What the load grew (read buffers, output queues, shadow pools) is not kept per idle client. */
	check_idle_memory("idle clients after the load");
}

int main(void)
{
	itest_start_ferryd(&ferryd);
	RUN_TEST(test_idle_memory);
	RUN_TEST(test_clients_pipelining_at_once);
	if (test_failures)
		ferryd_dump_log(&ferryd, 40);
	CHECK(itest_stop_ferryd(&ferryd));
	return test_finish();
}
