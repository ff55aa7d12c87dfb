/* The DRM core's own ioctls as a 6.1 render node answers them for the simulated drivers
 * (drm_ioctl.c, drm_prime.c): VERSION, GET_CAP, and telling which BO a PRIME fd names. */
#ifndef FERRY_SIM_DRM_CORE_H
#define FERRY_SIM_DRM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <drm.h>

/* What struct drm_driver says of the driver. */
struct sim_drm_driver {
	const char *name, *date, *desc;
	int major, minor, patchlevel;
	bool modeset; /* DRIVER_MODESET: GET_CAP goes on to the KMS caps */
};

/* drm_version: the numbers, and name/date/desc copied as drm_copy_field does (min(length, the
 * caller's *_len) bytes, no NUL; *_len set to the full length; a NULL buffer skipped). */
int sim_drm_version(const struct sim_drm_driver *drv, struct drm_version *a);
/* drm_getcap for a driver with DRIVER_SYNCOBJ, DRIVER_SYNCOBJ_TIMELINE (which ferry offers on
 * both GPUs; 6.1's msm and v3d lack it), PRIME import and export. A KMS cap is -EOPNOTSUPP for a driver without DRIVER_MODESET (v3d);
 * for msm, whose real device has a display, the simulator has none and answers -EINVAL. */
int sim_drm_get_cap(const struct sim_drm_driver *drv, struct drm_get_cap *a);

/* A number unique to each simulated device of the process, for tagging its BO memfds. */
uint32_t sim_drm_device_serial(void);
/* "<kind>@<serial>": the memfd name of a BO of device serial, by which PRIME_FD_TO_HANDLE knows
 * the pages of one of the device's BOs even after every handle to it is gone. */
void sim_drm_bo_memfd_name(char *buf, size_t len, const char *kind, uint32_t serial);

/* PRIME_FD_TO_HANDLE's first step (dma_buf_get): -EBADF when fd is not open, else 0 with *st. */
int sim_prime_fd_stat(int fd, struct stat *st);
/* The fd is a memfd named `name` (sim_drm_bo_memfd_name). */
bool sim_prime_fd_is_named(int fd, const char *name);
/* Takes the pages of an imported BO memfd: a close-on-exec dup of fd in *memfd and its size
 * bytes mapped shared read-write in *map (released with sim_bo_memfd_release). 0 or a negative
 * errno with nothing left open. */
int sim_prime_adopt_memfd(int fd, uint64_t size, int *memfd, uint8_t **map);

#endif
