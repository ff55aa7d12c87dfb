/* msm submits (msm_submit.c): the MSM_SUBMIT handler and the family's held_run. */
#ifndef FERRY_HOST_MSM_SUBMIT_H
#define FERRY_HOST_MSM_SUBMIT_H

#include "core/host_types.h"

struct held_submit;

int msm_handle_submit(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
int msm_held_run(struct host_queue *q, struct held_submit *hs, uint32_t *syncobj, char *why, size_t n);

#endif
