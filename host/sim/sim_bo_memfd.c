/* The memfd-backed pages of the simulators' BOs (see sim_bo_memfd.h). */
#include "sim_bo_memfd.h"

#include <drm.h> /* DRM_CLOEXEC, DRM_RDWR */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int sim_bo_memfd_create(const char *name, uint64_t size, int *memfd, uint8_t **map)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/* The pages are exported to guests (PRIME): sealing the size means no holder of the fd can
	 * shrink it under the GPU's mapping (a SIGBUS in the host), and F_SEAL_SEAL stops anyone
	 * adding write seals that would break the host's later mappings. */
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int err = errno; /* ENOMEM, or the mapping limit: say which */
		close(fd);
		return -err;
	}
	*memfd = fd;
	*map = p;
	return 0;
}

void sim_bo_memfd_release(int memfd, uint8_t *map, uint64_t size)
{
	munmap(map, size);
	close(memfd);
}

void *sim_bo_memfd_mmap(int memfd, uint64_t size, size_t len, int prot, int flags)
{
	if (len == 0 || len > size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return mmap(NULL, len, prot, flags, memfd, 0);
}

int sim_bo_memfd_export(int memfd, uint32_t flags, int32_t *fd)
{
	if (flags & ~(uint32_t)(DRM_CLOEXEC | DRM_RDWR))
		return -EINVAL;
	if (memfd < 0)
		return -ENOENT;
	int dup_fd = fcntl(memfd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return -errno;
	*fd = dup_fd;
	return 0;
}
