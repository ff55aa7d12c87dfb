/* Fence access from outside the simulated kernel's ioctls (the fake kernel's sync files): waits
 * and reference drops that take the device lock the way the simulator's own threads do. */
#include <stddef.h>

#include "sim_sync_fence.h"
#include "sim_worker.h"

/* Both devices keep their sim_sync_dev's lock inside a struct sim_dev_lock: taking it through
 * sim_dev_lock lets the GPU worker hand it over instead of being starved by it. */
static struct sim_dev_lock *dev_lock(struct sim_sync_dev *sd)
{
	return (struct sim_dev_lock *)((char *)sd->lock - offsetof(struct sim_dev_lock, mutex));
}

int sim_sync_fence_wait(struct sim_sync_dev *sd, struct sim_fence *f)
{
	struct sim_dev_lock *l = dev_lock(sd);
	sim_dev_lock(l);
	while (!f->signaled)
		pthread_cond_wait(sd->done_cond, sd->lock);
	int err = f->error;
	sim_dev_unlock(l);
	return err;
}

void sim_sync_fence_put_clear(struct sim_sync_dev *sd, struct sim_fence **f)
{
	struct sim_dev_lock *l = dev_lock(sd);
	sim_dev_lock(l);
	sim_fence_put(*f);
	*f = NULL;
	sim_dev_unlock(l);
}

void sim_sync_fence_signal(struct sim_sync_dev *sd, struct sim_fence *f, int error)
{
	struct sim_dev_lock *l = dev_lock(sd);
	sim_dev_lock(l);
	sim_fence_signal(sd, f, error);
	sim_fence_put(f);
	sim_dev_unlock(l);
}
