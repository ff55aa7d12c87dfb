/* Throughput of pm4v_validate (copy + relocate + validate into shadow) on a Turnip-like draw
 * stream of 64 KiB and 1 MiB (tools/pm4_workload.c; `ferry bench` prints the same figures next
 * to the cost through ferryd). A benchmark, not a test: it prints figures and checks only that
 * the stream passes. */
#include <stdio.h>

#include "pm4_workload.h"

static int run(uint32_t stream_bytes)
{
	struct pm4_workload_rate r;
	if (pm4_workload_validate_rate(stream_bytes, 0.5, &r) < 0)
		return 1;
	printf("stream %7u bytes: %8.1f us/submit, %7.0f MB/s of command stream, %7.0f MB/s of all "
	       "streams walked (%u streams, %llu dwords)\n",
	       r.stream_bytes, r.us_per_submit, r.mb_per_s, r.walked_mb_per_s, r.streams,
	       (unsigned long long)r.dwords);
	return 0;
}

int main(void)
{
	return run(64u << 10) || run(1u << 20);
}
