/* The fence-signal watchdog (watchdog.c). */
#ifndef FERRY_HOST_WATCHDOG_H
#define FERRY_HOST_WATCHDOG_H

#include "host_types.h"

void watchdog_init(struct ferry_host *h);
/* Writes what is queued and stops the dump writer (before anything else is torn down). */
void watchdog_fini(struct ferry_host *h);
/* Times every queue's oldest pending fence; logs the context's sync-state dump once per fence
 * overdue by the timeout. Cheap when called before its next check is due. */
void watchdog_check(struct ferry_host *h, int64_t now_ns);
/* When watchdog_check next has something to do (CLOCK_MONOTONIC ns), INT64_MAX if never. */
int64_t watchdog_next_ns(const struct ferry_host *h);
/* One queue's step: pending = it has unretired work, signaled = its last signaled seqno.
 * Returns true when the fence it times just became overdue (once per fence). */
bool watchdog_track_step(struct watchdog_track *t, bool pending, uint32_t signaled, int64_t now_ns,
			 int64_t timeout_ns);

#endif
