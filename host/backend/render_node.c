/* The render-node kdev (render_node.h): ioctls through drmIoctl, mmap of the node at the kernel's
 * fake offsets, and a poll fd that is an epoll set of one sync_file per submitted job (msm:
 * GEM_SUBMIT's FENCE_FD_OUT; v3d: the job's out-syncobj exported as a sync_file), bounded per open,
 * plus a timer for jobs that got none. Coredumps come from /sys/class/devcoredump
 * (render_node_coredump.c), trace points from tracefs (render_node_trace.c). */
#include "render_node.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kdev.h"
#include "ferry/array.h"
#include "render_node_priv.h"
#include "ferry/uapi/msm_drm.h"
#include "ferry/uapi/v3d_drm.h"

static struct rn_kdev *rn(struct kdev *kd)
{
	return (struct rn_kdev *)kd;
}

int render_node_identify(int fd, enum render_node_family *family, char *name, size_t len)
{
	drmVersionPtr v = drmGetVersion(fd);
	if (!v)
		return errno ? -errno : -ENODEV;
	int ret = 0;
	if (v->name && strcmp(v->name, "msm") == 0)
		*family = RENDER_NODE_MSM;
	else if (v->name && strcmp(v->name, "v3d") == 0)
		*family = RENDER_NODE_V3D;
	else
		ret = -ENODEV;
	if (name && len)
		snprintf(name, len, "%s %d.%d.%d", v->name ? v->name : "?", v->version_major,
			 v->version_minor, v->version_patchlevel);
	drmFreeVersion(v);
	return ret;
}

/* ---- fence wakeups: one sync_file per job in the epoll set ---- */

/* Past this many sync_files an open keeps only the newest of each queue: a queue's fences signal
 * in order, so its newest one still wakes the owner, later (fds stay bounded per context). */
#define RN_MAX_FENCES 256

static void unwatch(struct rn_kdev *k, size_t i)
{
	epoll_ctl(k->epfd, EPOLL_CTL_DEL, k->fences[i].fd, NULL);
	close(k->fences[i].fd);
}

/* Drops every signaled sync_file (k->lock held): a sync_file stays readable once signaled
 * (level-triggered), so keeping it would wake the owner for ever. The epoll set says which are
 * ready, so an ack costs one epoll_wait, not a poll per job in flight. */
static void sweep_signaled(struct rn_kdev *k)
{
	struct epoll_event evs[64];
	int n;
	do {
		n = epoll_wait(k->epfd, evs, 64, 0);
		int ready = 0;
		for (int e = 0; e < n; e++)
			if (evs[e].data.fd != k->blind_fd)
				evs[ready++] = evs[e];
		if (!ready)
			return;
		/* One pass keeps the rest in submit order (drop_older_of_queue relies on it). */
		size_t kept = 0;
		for (size_t i = 0; i < k->nr_fences; i++) {
			bool signaled = false;
			for (int e = 0; e < ready && !signaled; e++)
				signaled = evs[e].data.fd == k->fences[i].fd;
			if (signaled)
				unwatch(k, i);
			else
				k->fences[kept++] = k->fences[i];
		}
		k->nr_fences = kept;
	} while (n == 64);
}

/* At the cap: drops the oldest fence of 'queue' (k->lock held). False if it has none. */
static bool drop_older_of_queue(struct rn_kdev *k, uint64_t queue)
{
	for (size_t i = 0; i < k->nr_fences; i++) {
		if (k->fences[i].queue != queue)
			continue;
		unwatch(k, i);
		memmove(&k->fences[i], &k->fences[i + 1], (k->nr_fences - i - 1) * sizeof(k->fences[0]));
		k->nr_fences--;
		return true;
	}
	return false;
}

/* Watches fd (owned from here on) as the wakeup of a job on 'queue'. False if it could not be. */
static bool watch_fence(struct rn_kdev *k, int fd, uint64_t queue)
{
	if (fd < 0)
		return false;
	pthread_mutex_lock(&k->lock);
	if (k->nr_fences == k->cap_fences || k->nr_fences >= RN_MAX_FENCES)
		sweep_signaled(k);
	if (k->nr_fences >= RN_MAX_FENCES)
		drop_older_of_queue(k, queue);
	if (FERRY_ARRAY_RESERVE(k->fences, k->cap_fences, k->nr_fences + 1, 16))
		goto fail;
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	if (epoll_ctl(k->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		goto fail;
	k->fences[k->nr_fences++] = (struct rn_fence){ .fd = fd, .queue = queue };
	pthread_mutex_unlock(&k->lock);
	return true;
fail:
	pthread_mutex_unlock(&k->lock);
	close(fd);
	return false;
}

/* A job with no sync_file (none could be made or watched, or a V3D multisync without out-syncs)
 * would never wake its owner: the blind timer, in the epoll set, makes the poll fd readable at
 * once and then every RN_BLIND_POLL_MS so the owner polls its jobs, until RN_BLIND_NS after the
 * last such job (a longer one is found by the next wakeup or ferryd's watchdog). */
#define RN_BLIND_POLL_MS 10
#define RN_BLIND_NS (30 * 1000000000ll)

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void blind_job(struct rn_kdev *k)
{
	pthread_mutex_lock(&k->lock);
	k->blind_until_ns = now_ns() + RN_BLIND_NS;
	struct itimerspec its = {
		.it_value = { .tv_nsec = 1 },
		.it_interval = { .tv_nsec = RN_BLIND_POLL_MS * 1000000l },
	};
	if (k->blind_fd >= 0)
		timerfd_settime(k->blind_fd, 0, &its, NULL);
	k->blind_jobs++;
	pthread_mutex_unlock(&k->lock);
}

/* k->lock held: reads the expiries (the fd stops being readable) and stops after the window. */
static void blind_ack(struct rn_kdev *k)
{
	if (k->blind_fd < 0 || !k->blind_until_ns)
		return;
	uint64_t expiries;
	if (read(k->blind_fd, &expiries, sizeof(expiries)) < 0) {
		/* EAGAIN: not expired since the last ack */
	}
	if (now_ns() >= k->blind_until_ns) {
		struct itimerspec off = { 0 };
		timerfd_settime(k->blind_fd, 0, &off, NULL);
		k->blind_until_ns = 0;
	}
}

static int rn_poll_fd(struct kdev *kd)
{
	return rn(kd)->epfd;
}

static void rn_poll_ack(struct kdev *kd)
{
	struct rn_kdev *k = rn(kd);
	pthread_mutex_lock(&k->lock);
	sweep_signaled(k);
	blind_ack(k);
	pthread_mutex_unlock(&k->lock);
}

/* ---- ioctls ---- */

static int drm_ioctl(struct rn_kdev *k, unsigned long request, void *arg)
{
	return drmIoctl(k->fd, request, arg) == 0 ? 0 : -errno;
}

/* GEM_SUBMIT always asks for an out-fence fd, which is kept as the job's wakeup; the caller sees
 * one only if it asked (then it gets a dup of its own). */
static int msm_submit(struct rn_kdev *k, struct drm_msm_gem_submit *s)
{
	struct drm_msm_gem_submit req = *s;
	bool asked = s->flags & MSM_SUBMIT_FENCE_FD_OUT;
	req.flags |= MSM_SUBMIT_FENCE_FD_OUT;
	int ret = drm_ioctl(k, DRM_IOCTL_MSM_GEM_SUBMIT, &req);
	if (ret < 0)
		return ret;
	int ours = req.fence_fd;
	if (asked) {
		ours = fcntl(req.fence_fd, F_DUPFD_CLOEXEC, 0);
	} else {
		req.fence_fd = s->fence_fd;
		req.flags = s->flags;
	}
	*s = req;
	if (!watch_fence(k, ours, req.queueid))
		blind_job(k);
	return 0;
}

/* The syncobj that gets a V3D job's fence: the multisync extension's first out-sync, else the
 * submit's out_sync. 0 if none. */
static uint32_t v3d_out_syncobj(uint32_t flags, uint64_t extensions, uint32_t out_sync)
{
	if (!(flags & DRM_V3D_SUBMIT_EXTENSION))
		return out_sync;
	for (const struct drm_v3d_extension *e = (const void *)(uintptr_t)extensions; e;
	     e = (const void *)(uintptr_t)e->next) {
		if (e->id != DRM_V3D_EXT_ID_MULTI_SYNC)
			continue;
		const struct drm_v3d_multi_sync *ms = (const void *)e;
		const struct drm_v3d_sem *out = (const void *)(uintptr_t)ms->out_syncs;
		return ms->out_sync_count && out ? out[0].handle : 0;
	}
	return out_sync;
}

/* queue: the job's kind (the V3D_SUBMIT ioctl), whose jobs the kernel runs in order. */
static void v3d_watch_syncobj(struct rn_kdev *k, uint32_t syncobj, uint64_t queue)
{
	struct drm_syncobj_handle h = {
		.handle = syncobj,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	if (!syncobj || drm_ioctl(k, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h) < 0 || !watch_fence(k, h.fd, queue))
		blind_job(k);
}

static int rn_ioctl(struct kdev *kd, unsigned long request, void *arg)
{
	struct rn_kdev *k = rn(kd);
	if (k->family == RENDER_NODE_MSM && request == DRM_IOCTL_MSM_GEM_SUBMIT)
		return msm_submit(k, arg);
	int ret = drm_ioctl(k, request, arg);
	if (ret < 0 || k->family != RENDER_NODE_V3D)
		return ret;
	if (request == DRM_IOCTL_V3D_SUBMIT_CL) {
		const struct drm_v3d_submit_cl *s = arg;
		v3d_watch_syncobj(k, v3d_out_syncobj(s->flags, s->extensions, s->out_sync), request);
	} else if (request == DRM_IOCTL_V3D_SUBMIT_TFU) {
		const struct drm_v3d_submit_tfu *s = arg;
		v3d_watch_syncobj(k, v3d_out_syncobj(s->flags, s->extensions, s->out_sync), request);
	} else if (request == DRM_IOCTL_V3D_SUBMIT_CSD) {
		const struct drm_v3d_submit_csd *s = arg;
		v3d_watch_syncobj(k, v3d_out_syncobj(s->flags, s->extensions, s->out_sync), request);
	}
	return 0;
}

static void *rn_mmap(struct kdev *kd, size_t len, int prot, int flags, uint64_t offset)
{
	return mmap(NULL, len, prot, flags, rn(kd)->fd, (off_t)offset);
}

static int rn_munmap(struct kdev *kd, void *addr, size_t len)
{
	(void)kd;
	return munmap(addr, len);
}

static ssize_t rn_debug_state(struct kdev *kd, char *buf, size_t len)
{
	(void)kd;
	(void)buf;
	(void)len;
	return -ENOTSUP;
}

static void rn_close(struct kdev *kd)
{
	struct rn_kdev *k = rn(kd);
	for (size_t i = 0; i < k->nr_fences; i++)
		close(k->fences[i].fd);
	free(k->fences);
	render_node_trace_fini(k);
	if (k->blind_fd >= 0)
		close(k->blind_fd);
	close(k->epfd);
	close(k->fd);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

static const struct kdev_ops rn_ops = {
	.ioctl = rn_ioctl,
	.mmap = rn_mmap,
	.munmap = rn_munmap,
	.poll_fd = rn_poll_fd,
	.poll_ack = rn_poll_ack,
	.coredump = render_node_coredump,
	.debug_state = rn_debug_state,
	.close = rn_close,
	.trace_read = render_node_trace_read,
};

/* The node's device in sysfs, as devcoredump's failing_device links resolve. */
static void find_sysfs_device(struct rn_kdev *k)
{
	struct stat st;
	char link[96];
	k->sysdev[0] = '\0';
	if (fstat(k->fd, &st) < 0 || !S_ISCHR(st.st_mode))
		return;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, k->sysdev))
		k->sysdev[0] = '\0';
}

struct kdev *render_node_open(const char *path, enum render_node_family family)
{
	struct rn_kdev *k = calloc(1, sizeof(*k));
	if (!k) {
		errno = ENOMEM;
		return NULL;
	}
	if (strlen(path) >= sizeof(k->path)) {
		/* The name is the path: a cut one would mislead the operator. */
		free(k);
		errno = ENAMETOOLONG;
		return NULL;
	}
	k->fd = open(path, O_RDWR | O_CLOEXEC);
	if (k->fd < 0) {
		int e = errno;
		free(k);
		errno = e;
		return NULL;
	}
	enum render_node_family found;
	int ret = render_node_identify(k->fd, &found, NULL, 0);
	if (ret == 0 && found != family)
		ret = -ENODEV;
	k->epfd = ret == 0 ? epoll_create1(EPOLL_CLOEXEC) : -1;
	if (ret == 0 && k->epfd < 0)
		ret = -errno;
	if (ret < 0) {
		if (k->epfd >= 0)
			close(k->epfd);
		close(k->fd);
		free(k);
		errno = -ret;
		return NULL;
	}
	/* Without the blind timer a job that gets no sync_file waits for another's wakeup. */
	k->blind_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = k->blind_fd };
	if (k->blind_fd >= 0 && epoll_ctl(k->epfd, EPOLL_CTL_ADD, k->blind_fd, &ev) < 0) {
		close(k->blind_fd);
		k->blind_fd = -1;
	}
	pthread_mutex_init(&k->lock, NULL);
	k->family = family;
	snprintf(k->path, sizeof(k->path), "%s", path);
	k->base.ops = &rn_ops;
	k->base.name = k->path;
	find_sysfs_device(k);
	render_node_coredump_init(k);
	render_node_trace_init(k);
	return &k->base;
}
