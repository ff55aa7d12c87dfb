/* The host's log (host_log.c) and its clock. */
#ifndef FERRY_HOST_HOST_LOG_H
#define FERRY_HOST_HOST_LOG_H

#include "host_types.h"

void host_log(struct ferry_host *h, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int64_t host_now_ns(void);

#endif
