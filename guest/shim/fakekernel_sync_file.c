/* libferry-fakekernel.so's sync files: the simulated kernel's fences (sim_fence) held by the one
 * sync file implementation both libraries share (sync_file.c), through the hooks the simulated
 * msm and v3d kernels call for FENCE_FD_IN/OUT and syncobj sync-file export/import. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fakekernel_sync_file.h"
#include "shared_syncobj.h"
#include "sim/sim_sync_fence.h"
#include "sync_file.h"
#include "sim/sim_thread.h"

struct sim_obj {
	struct sim_sync_dev *sd;
	struct sim_fence *f; /* referenced until it signaled (device lock) */
};

/* The waiter drops the simulator's reference once the fence signaled, under the device lock it
 * holds then: release may run inside an ioctl that holds that lock, so it must not take it. */
static int obj_wait(void *p)
{
	struct sim_obj *o = p;
	struct sim_fence *f = o->f;
	int err = sim_sync_fence_wait(o->sd, f);
	sim_sync_fence_put_clear(o->sd, &o->f);
	return err;
}

static void obj_release(void *p)
{
	free(p);
}

static const struct shim_fence_ops sim_fence_ops = {
	.driver = "ferry",
	.wait = obj_wait,
	.release = obj_release,
};

/* Device lock held. */
static int hook_create(struct sim_sync_dev *sd, struct sim_fence *f, uint64_t context, uint32_t seqno,
		       uint32_t queue_id)
{
	char name[32];
	snprintf(name, sizeof(name), "queue%u", queue_id);
	if (!f || f->signaled) { /* ready at once, as the kernel's file of a signaled fence */
		struct shim_fence *sf = f ? shim_fence_new_signaled(&sim_fence_ops, context, seqno, name, f->error) : NULL;
		int fd = !f || sf ? shim_sync_file_create(sf) : -ENOMEM;
		shim_fence_put(sf);
		return fd;
	}
	struct sim_obj *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->sd = sd;
	o->f = sim_fence_get(f);
	struct shim_fence *sf = shim_fence_new(&sim_fence_ops, o, context, seqno, name);
	if (!sf) {
		sim_fence_put(f);
		free(o);
		return -ENOMEM;
	}
	/* The waiter's reference stays until f signals, which cannot happen while the lock is
	 * held: this put is never the last. */
	int fd = shim_sync_file_create(sf);
	shim_fence_put(sf);
	return fd;
}

struct bridge {
	struct sim_sync_dev *sd;
	struct sim_fence *f;
	struct shim_fence **fs;
	uint32_t n;
};

/* Signals the bridge fence once every fence of the file signaled, with the first error. */
static void *bridge_wait(void *p)
{
	struct bridge *b = p;
	int err = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		int e = shim_fence_wait(b->fs[i]);
		if (e < 0 && err == 0)
			err = e;
	}
	shim_sync_file_fences_free(b->fs, b->n);
	sim_sync_fence_signal(b->sd, b->f, err);
	free(b);
	return NULL;
}

/* A fence of this device that signals once fs[0..n) all did, as the kernel's dma_fence_array
 * (fs taken over, freed on failure). Device lock held. */
static struct sim_fence *bridge_new(struct sim_sync_dev *sd, struct shim_fence **fs, uint32_t n)
{
	struct bridge *b = malloc(sizeof(*b));
	struct sim_fence *f = b ? sim_fence_new() : NULL;
	if (f) {
		*b = (struct bridge){ sd, sim_fence_get(f), fs, n };
		if (sim_thread_spawn_detached(bridge_wait, b) == 0)
			return f;
		sim_fence_put(f);
		sim_fence_put(f);
		f = NULL;
	}
	free(b);
	shim_sync_file_fences_free(fs, n);
	return NULL;
}

/* Device lock held. Appends to *out (of *n). Fences of this device are waited for as they are;
 * the others (another process's file) through one bridge fence. */
static int hook_fences(struct sim_sync_dev *sd, int fd, struct sim_fence ***out, uint32_t *n)
{
	struct shim_fence **fs;
	uint32_t nf, nother = 0;
	int r = shim_sync_file_fences(fd, &fs, &nf);
	if (r < 0)
		return r;
	struct sim_fence **deps = realloc(*out, ((size_t)*n + nf + 1) * sizeof(*deps));
	struct shim_fence **other = deps ? calloc(nf, sizeof(*other)) : NULL;
	if (!other) {
		if (deps)
			*out = deps;
		shim_sync_file_fences_free(fs, nf);
		return -ENOMEM;
	}
	*out = deps;
	for (uint32_t i = 0; i < nf; i++) {
		int err;
		struct sim_obj *o = shim_fence_obj(fs[i], &sim_fence_ops);
		if (o && o->sd == sd) {
			if (o->f && !o->f->signaled)
				deps[(*n)++] = sim_fence_get(o->f);
		} else if (!shim_fence_signaled(fs[i], &err)) {
			other[nother++] = fs[i];
			fs[i] = NULL;
		}
	}
	shim_sync_file_fences_free(fs, nf);
	if (nother == 0) {
		free(other);
		return 0;
	}
	struct sim_fence *b = bridge_new(sd, other, nother);
	if (!b)
		return -ENOMEM;
	deps[(*n)++] = b;
	return 0;
}

/* Device lock held. A syncobj holds one fence: a file of several pending ones, or of another
 * process, is imported as a fence of this device that signals when they all did. */
static int hook_fence(struct sim_sync_dev *sd, int fd, struct sim_fence **out)
{
	struct shim_fence **fs;
	uint32_t nf;
	int r = shim_sync_file_fences(fd, &fs, &nf);
	if (r < 0)
		return r;
	struct sim_obj *o = nf == 1 ? shim_fence_obj(fs[0], &sim_fence_ops) : NULL;
	int err;
	if (o && o->sd == sd && o->f) {
		*out = sim_fence_get(o->f);
	} else if (nf == 1 && shim_fence_signaled(fs[0], &err)) {
		*out = sim_fence_new();
		if (*out)
			sim_fence_signal(sd, *out, err);
	} else {
		*out = bridge_new(sd, fs, nf);
		return *out ? 0 : -ENOMEM;
	}
	shim_sync_file_fences_free(fs, nf);
	return *out ? 0 : -ENOMEM;
}

/* Device lock held. The state's sync file becomes one fence of this device, as hook_fence. */
static int hook_share_read(struct sim_sync_dev *sd, int fd, uint64_t known, bool wait, uint64_t *gen,
			   struct sim_fence **f)
{
	int sync_fd;
	int r = shim_shared_syncobj_read(fd, known, wait, gen, &sync_fd);
	if (r <= 0)
		return r;
	*f = NULL;
	if (sync_fd >= 0) {
		int e = hook_fence(sd, sync_fd, f);
		close(sync_fd);
		if (e < 0)
			return e;
	}
	return 1;
}

/* Device lock held. */
static int hook_share_write(struct sim_sync_dev *sd, int fd, struct sim_fence *f, uint64_t *gen)
{
	int sync_fd = f ? hook_create(sd, f, (uint64_t)(uintptr_t)f, 0, 0) : -1;
	if (f && sync_fd < 0)
		return sync_fd;
	int r = shim_shared_syncobj_write(fd, sync_fd, gen);
	if (sync_fd >= 0)
		close(sync_fd);
	return r;
}

const struct sim_sync_file_hooks shim_fakekernel_sync_files = {
	.fences = hook_fences,
	.create = hook_create,
	.fence = hook_fence,
	.share_new = shim_shared_syncobj_new,
	.share_is = shim_shared_syncobj_is,
	.share_read = hook_share_read,
	.share_write = hook_share_write,
};
