/* msm faults (msm_fault.c): the kernel's devcoredump read into the shared report. */
#ifndef FERRY_HOST_MSM_FAULT_H
#define FERRY_HOST_MSM_FAULT_H

#include "core/host_types.h"

/* A fault of seqno on q (the queue's fault count went up): reported, the context lost. Returns
 * the fence status. */
int32_t msm_fault_report(struct host_queue *q, uint32_t seqno);

#endif
