/* The render-node kdev's coredumps: the kernel's devcoredump of this node's device (msm's a6xx
 * crash state; v3d has none), read from /sys/class/devcoredump/devcd<N>/data and deleted by a write
 * to that file, as the devcoredump class documents. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render_node_priv.h"

#define DEVCD_DIR "/sys/class/devcoredump"

/* The highest devcd<N> whose failing_device is this node's device: N grows with every dump. */
static long newest_dump(const struct rn_kdev *k)
{
	DIR *d = opendir(DEVCD_DIR);
	if (!d)
		return -1;
	long best = -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "devcd", 5) != 0)
			continue;
		char *end;
		long n = strtol(e->d_name + 5, &end, 10);
		if (*end || n <= best)
			continue;
		char link[PATH_MAX], dev[PATH_MAX];
		snprintf(link, sizeof(link), DEVCD_DIR "/%.64s/failing_device", e->d_name);
		if (realpath(link, dev) && strcmp(dev, k->sysdev) == 0)
			best = n;
	}
	closedir(d);
	return best;
}

ssize_t render_node_coredump(struct kdev *kd, char *buf, size_t len)
{
	struct rn_kdev *k = (struct rn_kdev *)kd;
	/* v3d makes no devcoredump: nothing found there is a fault of a V3D open. */
	if (k->family != RENDER_NODE_MSM || !k->sysdev[0] || len == 0)
		return -ENOENT;
	long n = newest_dump(k);
	if (n < 0)
		return -ENOENT;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), DEVCD_DIR "/devcd%ld/data", n);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	size_t got = 0;
	while (got < len - 1) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	/* Any write frees the dump: the next fault's report must not find this one again. */
	if (pwrite(fd, "1", 1, 0) < 0) {
		/* Left for the kernel's own timeout (5 minutes) to free. */
	}
	close(fd);
	return got ? (ssize_t)got : -ENOENT;
}
