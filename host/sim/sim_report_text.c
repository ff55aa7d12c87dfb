/* Report text for the simulators' devcoredumps (see sim_report_text.h). */
#include "sim_report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void sim_text_put_header(struct ferry_text *t, const char *module)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ferry_text_put(t, "---\nkernel: 6.1.0-ferry-sim\nmodule: %s\n", module);
	ferry_text_put(t, "time: %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
}

void sim_text_publish(struct ferry_text *t, char **slot)
{
	if (t->failed || *slot) {
		free(t->buf);
	} else {
		/* Atomic: sim_coredump_take looks without the device lock. */
		__atomic_store_n(slot, t->buf, __ATOMIC_RELEASE);
	}
	*t = (struct ferry_text){ 0 };
}
