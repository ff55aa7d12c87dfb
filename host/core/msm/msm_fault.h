/* msm faults (msm_fault.c): the kernel's devcoredump read into the shared report. */
#ifndef FERRY_HOST_MSM_FAULT_H
#define FERRY_HOST_MSM_FAULT_H

#include <stdbool.h>

#include "core/host_types.h"

/* A fault on q, whose fault count was seen to go up as the fence *blamed retired: reported, the
 * context lost. Returns the fence status. *blamed comes back as the fence to carry it: the one the
 * kernel's dump names when that one is still pending on q (several fences retired before the
 * host looked, and the fault is a later one's; *placed true), else unchanged (*placed false: the
 * faulting submit is this one or a later one). 0, nothing reported: the fault is not placed and
 * an earlier fault of q already fails every fence after *blamed (set to that fault's seqno). */
int32_t msm_fault_report(struct host_queue *q, uint32_t *blamed, bool *placed);

#endif
