/* Everything the core's files declare for each other, for files that use most of it. Each header
 * holds the prototypes of the file (or files) it names. */
#ifndef FERRY_HOST_HOST_INTERNAL_H
#define FERRY_HOST_HOST_INTERNAL_H

#include "host_types.h"
#include "family.h"
#include "host_log.h"
#include "host_client.h"
#include "host_context.h"
#include "host_external_fence.h"
#include "host_bo.h"
#include "host_queue.h"
#include "sched.h"
#include "shadow_quota.h"
#include "wait.h"
#include "fault_log.h"
#include "sync_state.h"
#include "trace_host.h"
#include "host_capture.h"
#include "watchdog.h"

#endif
