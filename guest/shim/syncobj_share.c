/* Syncobjs shared with other processes through opaque fds (shared_syncobj.h): before an ioctl
 * reads a shared syncobj, the state another process wrote is taken in (as an IMPORT_SYNC_FILE of
 * its fence); after one changes it, the new fence is written out as a sync file. Points of a
 * timeline stay in the process; what crosses is the syncobj's current fence. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "ferry/uapi/msm_drm.h" /* <drm.h>: DRM_SYNCOBJ_WAIT_FLAGS_* */
#include "shared_syncobj.h"
#include "shim_ferry.h"
#include "sim/sim_syncobj.h" /* the pauses of a wait on a shared syncobj, as the fake kernel's */
#include "syncobj_priv.h"


static void say_once(int err, const char *what)
{
	static bool said;
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		shim_log(true, "a syncobj shared with another process could not be %s (%s); it keeps its local state "
			 "(said once)", what, strerror(-err));
}

/* handle's syncobj, referenced, with its shared socket; NULL when it is not shared. */
static struct shim_syncobj *shared_ref(struct shim_dev *dev, uint32_t handle, int *fd)
{
	struct shim_syncobj *s = shim_syncobj_ref(dev, handle);
	if (!s)
		return NULL;
	pthread_mutex_lock(&shim_sync_lock);
	*fd = s->share_fd;
	pthread_mutex_unlock(&shim_sync_lock);
	if (*fd < 0) {
		shim_syncobj_unref(s);
		return NULL;
	}
	return s;
}

static uint64_t known_gen(struct shim_syncobj *s)
{
	pthread_mutex_lock(&shim_sync_lock);
	uint64_t g = s->share_gen;
	pthread_mutex_unlock(&shim_sync_lock);
	return g;
}

static void set_gen(struct shim_syncobj *s, uint64_t gen)
{
	pthread_mutex_lock(&shim_sync_lock);
	s->share_gen = gen;
	pthread_mutex_unlock(&shim_sync_lock);
}

/* s->share_lock held: the state read goes into handle's syncobj, if handle still names s. */
static void apply_locked(struct shim_dev *dev, uint32_t handle, struct shim_syncobj *s, uint64_t gen, int sync_fd)
{
	struct shim_syncobj *now = shim_syncobj_ref(dev, handle);
	int r = now != s ? -ENOENT
		: sync_fd >= 0 ? shim_syncobj_import_sync_file(dev, sync_fd, handle) : shim_syncobj_reset(dev, handle);
	if (now)
		shim_syncobj_unref(now);
	if (sync_fd >= 0)
		close(sync_fd);
	if (r == 0)
		set_gen(s, gen);
	else if (r != -ENOENT)
		say_once(r, "read");
}

void shim_syncobj_take_state(struct shim_dev *dev, uint32_t handle, uint64_t gen, int sync_fd)
{
	struct shim_syncobj *s = shim_syncobj_ref(dev, handle);
	if (!s) {
		if (sync_fd >= 0)
			close(sync_fd);
		return;
	}
	pthread_mutex_lock(&s->share_lock);
	apply_locked(dev, handle, s, gen, sync_fd);
	pthread_mutex_unlock(&s->share_lock);
	shim_syncobj_unref(s);
}

bool shim_syncobj_pull(struct shim_dev *dev, uint32_t handle)
{
	int fd, sync_fd;
	uint64_t gen;
	struct shim_syncobj *s = shared_ref(dev, handle, &fd);
	if (!s)
		return false;
	pthread_mutex_lock(&s->share_lock);
	int r = shim_shared_syncobj_read(fd, known_gen(s), true, &gen, &sync_fd);
	if (r > 0)
		apply_locked(dev, handle, s, gen, sync_fd);
	else if (r < 0 && r != -EBUSY)
		say_once(r, "read");
	pthread_mutex_unlock(&s->share_lock);
	shim_syncobj_unref(s);
	return true;
}

void shim_syncobj_push(struct shim_dev *dev, uint32_t handle)
{
	int fd, sync_fd = -1;
	uint64_t gen;
	struct shim_syncobj *s = shared_ref(dev, handle, &fd);
	if (!s)
		return;
	pthread_mutex_lock(&s->share_lock);
	int r = shim_syncobj_export_sync_file(dev, handle, &sync_fd);
	if (r == -EINVAL)
		r = 0; /* no fence: that is the state to write */
	if (r == 0)
		r = shim_shared_syncobj_write(fd, sync_fd, &gen);
	if (sync_fd >= 0)
		close(sync_fd);
	if (r == 0)
		set_gen(s, gen);
	else
		say_once(r, "written");
	pthread_mutex_unlock(&s->share_lock);
	shim_syncobj_unref(s);
}

/* Between the slices of a wait: only a syncobj still without a fence looks again, so one found
 * stays waited for (as the kernel keeps the fence it found) whatever another process does. */
static void pull_unsubmitted(struct shim_dev *dev, const uint32_t *handles, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		struct shim_fence_src f;
		bool has;
		int error;
		if (shim_syncobj_peek(dev, handles[i], &f, &has, &error) == -EINVAL)
			shim_syncobj_pull(dev, handles[i]);
	}
}

int shim_syncobj_shared_wait(struct shim_dev *dev, const uint32_t *handles, const uint64_t *points, uint32_t count,
			     int64_t abs_timeout_ns, uint32_t flags, uint32_t *first)
{
	bool shared = false;
	for (uint32_t i = 0; i < count; i++)
		shared |= shim_syncobj_pull(dev, handles[i]);
	if (!shared || !(flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
		return shim_syncobj_timeline_wait(dev, handles, points, count, abs_timeout_ns, flags, first);
	/* Without WAIT_FOR_SUBMIT the kernel waits for the fences it found at the start, which the
	 * pulls above took in; with it, a fence submitted later in another process counts too. */
	int64_t pause = SIM_SHARED_POLL_FIRST_NS;
	for (;;) {
		int64_t now = shim_now_ns();
		int64_t until = abs_timeout_ns - now > pause ? now + pause : abs_timeout_ns;
		int r = shim_syncobj_timeline_wait(dev, handles, points, count, until, flags, first);
		if (r != -ETIME || until >= abs_timeout_ns)
			return r;
		pull_unsubmitted(dev, handles, count);
		if (pause < SIM_SHARED_POLL_LAST_NS)
			pause *= 2;
	}
}
