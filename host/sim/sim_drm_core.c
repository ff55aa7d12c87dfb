/* DRM core ioctls of the simulated render nodes (see sim_drm_core.h). */
#include "sim_drm_core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void copy_field(char *buf, __kernel_size_t *buf_len, const char *value)
{
	size_t full = strlen(value);
	size_t n = full < *buf_len ? full : *buf_len;
	*buf_len = full;
	if (n && buf)
		memcpy(buf, value, n);
}

int sim_drm_version(const struct sim_drm_driver *drv, struct drm_version *a)
{
	a->version_major = drv->major;
	a->version_minor = drv->minor;
	a->version_patchlevel = drv->patchlevel;
	copy_field(a->name, &a->name_len, drv->name);
	copy_field(a->date, &a->date_len, drv->date);
	copy_field(a->desc, &a->desc_len, drv->desc);
	return 0;
}

int sim_drm_get_cap(const struct sim_drm_driver *drv, struct drm_get_cap *a)
{
	a->value = 0;
	switch (a->capability) {
	case DRM_CAP_TIMESTAMP_MONOTONIC: a->value = 1; return 0;
	case DRM_CAP_PRIME: a->value = DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT; return 0;
	case DRM_CAP_SYNCOBJ: a->value = 1; return 0;
	case DRM_CAP_SYNCOBJ_TIMELINE: a->value = 1; return 0;
	default: return drv->modeset ? -EINVAL : -EOPNOTSUPP;
	}
}

uint32_t sim_drm_device_serial(void)
{
	static uint32_t next;
	return __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
}

void sim_drm_bo_memfd_name(char *buf, size_t len, const char *kind, uint32_t serial)
{
	snprintf(buf, len, "%s@%u", kind, serial);
}

int sim_prime_fd_stat(int fd, struct stat *st)
{
	if (fd < 0 || fstat(fd, st))
		return -EBADF;
	return 0;
}

bool sim_prime_fd_is_named(int fd, const char *name)
{
	char path[64], link[128], want[128];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	/* The kernel shows a memfd as "/memfd:<name> (deleted)". */
	snprintf(want, sizeof(want), "/memfd:%s (deleted)", name);
	return strcmp(link, want) == 0;
}

int sim_prime_adopt_memfd(int fd, uint64_t size, int *memfd, uint8_t **map)
{
	/* Only pages that cannot shrink under the mapping: every BO memfd of the sims is sealed
	 * against it, and a look-alike that is not could SIGBUS the CP worker. */
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return -EINVAL;
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return -errno;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dup_fd, 0);
	if (p == MAP_FAILED) {
		int err = errno == EACCES ? -EINVAL : -ENOMEM;
		close(dup_fd);
		return err;
	}
	*memfd = dup_fd;
	*map = p;
	return 0;
}
