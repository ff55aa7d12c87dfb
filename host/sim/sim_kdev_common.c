/* The struct kdev glue shared by the msm and v3d simulators (see sim_kdev_common.h). */
#include "sim_kdev_common.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>


int sim_kdev_munmap(struct kdev *kd, void *addr, size_t len)
{
	(void)kd;
	return munmap(addr, len) ? -errno : 0;
}

int sim_wakeup_init(struct sim_wakeup *w)
{
	atomic_init(&w->pending, false);
	w->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return w->fd < 0 ? -1 : 0;
}

void sim_wakeup_fini(struct sim_wakeup *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

void sim_wakeup_notify(struct sim_wakeup *w, const char *who)
{
	if (atomic_exchange(&w->pending, true))
		return;
	uint64_t one = 1;
	/* A full counter (never in practice) still leaves the fd readable, which is all we need. */
	if (write(w->fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		fprintf(stderr, "%s: eventfd write: %s\n", who, strerror(errno));
}

void sim_wakeup_drain(struct sim_wakeup *w, const char *who)
{
	uint64_t v;
	/* Non-blocking eventfd: one read drains every pending wakeup. Re-armed after the read: a
	 * completion between the two writes nothing, and the caller's check that follows the ack
	 * sees it (the retire and the check each hold the device lock). */
	if (read(w->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		fprintf(stderr, "%s: eventfd read: %s\n", who, strerror(errno));
	atomic_store(&w->pending, false);
}

void sim_unlock_keep_errno(struct sim_dev_lock *lock)
{
	int err = errno;
	sim_dev_unlock(lock);
	errno = err;
}

ssize_t sim_coredump_take(struct sim_dev_lock *lock, char **pending, char *buf, size_t len)
{
	/* Asked after every job that ended (the V3D host's fault check): without a report, that
	 * costs no trip through the device lock the GPU worker holds. A report published before
	 * the job's fence signaled is seen here, the caller having seen that fence under the lock. */
	if (!__atomic_load_n(pending, __ATOMIC_ACQUIRE))
		return -ENOENT;
	sim_dev_lock(lock);
	char *text = *pending;
	__atomic_store_n(pending, NULL, __ATOMIC_RELAXED);
	sim_dev_unlock(lock);
	if (!text)
		return -ENOENT;
	size_t n = 0;
	if (len) {
		n = strlen(text);
		if (n > len - 1)
			n = len - 1;
		memcpy(buf, text, n);
		buf[n] = '\0';
	}
	free(text);
	return (ssize_t)n;
}

int sim_drm_ioctl(struct sim_dev_lock *lock, void *open, enum ferry_ioctl_family family, unsigned long request,
		  void *arg, void *k, size_t kmax, int (*dispatch)(void *open, unsigned nr, void *k))
{
	unsigned nr = _IOC_NR(request);
	if (_IOC_TYPE(request) != DRM_IOCTL_BASE)
		return -ENOTTY;
	const struct ferry_ioctl *io = ferry_ioctl_find(family, nr);
	size_t ksize = io ? ferry_ioctl_size(io) : 0;
	if (!io || ksize > kmax)
		return nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END ? -EINVAL : ferry_drm_core_unoffered_call(request, arg);
	if (!arg)
		return -EFAULT;
	size_t usize = _IOC_SIZE(request);
	size_t n = usize < ksize ? usize : ksize;
	memset(k, 0, ksize);
	if (_IOC_DIR(request) & _IOC_WRITE)
		memcpy(k, arg, n);
	sim_dev_lock(lock);
	int ret = dispatch(open, nr, k);
	sim_dev_unlock(lock);
	if (ferry_ioctl_copies_out(io, request))
		memcpy(arg, k, n);
	return ret;
}
