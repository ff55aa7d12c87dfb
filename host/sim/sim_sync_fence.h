/* Fence access from outside the simulated kernel's ioctls (the fake kernel's sync files). */
#ifndef FERRY_SIM_SYNC_FENCE_H
#define FERRY_SIM_SYNC_FENCE_H

#include "sim_syncobj.h"

/* Blocks (device lock not held) until f signaled: 0 or its error. */
int sim_sync_fence_wait(struct sim_sync_dev *sd, struct sim_fence *f);
/* Drops the reference in *f and clears it, under the device lock (readers of *f hold it). */
void sim_sync_fence_put_clear(struct sim_sync_dev *sd, struct sim_fence **f);
/* Signals f with error and drops a reference (device lock not held). */
void sim_sync_fence_signal(struct sim_sync_dev *sd, struct sim_fence *f, int error);

#endif
