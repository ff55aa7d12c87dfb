/* The render-node kdev's coredumps: the kernel's devcoredump of this node's device (msm's a6xx
 * crash state; v3d has none), read from /sys/class/devcoredump/devcd<N>/data and deleted by a write
 * to that file, as the devcoredump class documents. A dump is per device, not per file: only one
 * newer than this open and naming this process (its comm:/cmdline: header) is taken. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "render_node_priv.h"
#include "ferry/uapi/msm_drm.h"

#define DEVCD_DIR "/sys/class/devcoredump"

/* The highest devcd<N> newer than 'after' whose failing_device is sysdev (any device if NULL):
 * N grows with every dump. */
static long newest_dump(const char *sysdev, long after)
{
	DIR *d = opendir(DEVCD_DIR);
	if (!d)
		return -1;
	long best = after;
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
		if (!sysdev || (realpath(link, dev) && strcmp(dev, sysdev) == 0))
			best = n;
	}
	closedir(d);
	return best > after ? best : -1;
}

/* /proc/self/<what> as one line: cmdline's NUL separators become spaces, as the kernel prints
 * it in a dump (kstrdup_quotable_cmdline); trailing separators and newlines dropped. */
static bool self_line(const char *what, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%s", what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\n'))
		n--;
	buf[n] = '\0';
	return true;
}

void render_node_coredump_init(struct rn_kdev *k)
{
	/* Dumps already pending belong to earlier opens or other processes. */
	long n = newest_dump(NULL, 0);
	k->devcd_base = n > 0 ? n : 0;
	k->comm_tag[0] = '\0';
	if (k->family != RENDER_NODE_MSM)
		return;
	/* msm names a file's crashes with the comm it set (MSM_PARAM_COMM, which 6.1 has) instead of the
	 * task's: one per open tells this open's dumps from other contexts' of the same process. */
	static atomic_uint opens;
	char comm[32];
	if (!self_line("self/comm", comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "ferryd");
	snprintf(k->comm_tag, sizeof(k->comm_tag), "%s[%ld.%u]", comm, (long)getpid(), atomic_fetch_add(&opens, 1) + 1);
	struct drm_msm_param p = {
		.pipe = MSM_PIPE_3D0, .param = MSM_PARAM_COMM,
		.value = (uint64_t)(uintptr_t)k->comm_tag, .len = (uint32_t)strlen(k->comm_tag),
	};
	if (drmIoctl(k->fd, DRM_IOCTL_MSM_SET_PARAM, &p) != 0)
		k->comm_tag[0] = '\0'; /* an older kernel: dumps name the process only */
}

/* The value of the dump's header line "key: value" (before its first section), or NULL. */
static const char *header_value(const char *text, const char *key, size_t *vlen)
{
	size_t klen = strlen(key);
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len > klen + 1 && strncmp(line, key, klen) == 0 && line[klen] == ':' && line[klen + 1] == ' ') {
			*vlen = len - klen - 2;
			return line + klen + 2;
		}
		/* Sections ("pagefault-info:", "registers:", ...) end the header. */
		if (len && line[len - 1] == ':')
			return NULL;
		if (!nl)
			break;
		line = nl + 1;
	}
	return NULL;
}

static bool value_is(const char *v, size_t vlen, const char *want)
{
	return v && strlen(want) == vlen && strncmp(v, want, vlen) == 0;
}

/* Whether the dump names this open: the comm it set (comm_tag, if any; else the submitting
 * thread's or the process's), and the process's cmdline where the dump gives one. A dump that
 * names nobody is nobody's to take. */
bool render_node_dump_is_ours(const char *text, const char *comm_tag)
{
	size_t clen, llen;
	const char *comm = header_value(text, "comm", &clen);
	const char *cmdline = header_value(text, "cmdline", &llen);
	char self[64], thread[64];
	bool comm_ok = comm_tag && comm_tag[0] ? value_is(comm, clen, comm_tag)
		: (self_line("self/comm", self, sizeof(self)) && value_is(comm, clen, self)) ||
		  (self_line("thread-self/comm", thread, sizeof(thread)) && value_is(comm, clen, thread));
	if (!comm_ok)
		return false;
	if (!cmdline)
		return true;
	char mine[4096];
	if (!self_line("self/cmdline", mine, sizeof(mine)))
		return false;
	if (value_is(cmdline, llen, mine))
		return true;
	/* A long cmdline may be cut (by the kernel at a page, by a simulator sooner): a long common
	 * prefix still names this process. */
	size_t mlen = strlen(mine);
	return llen >= 200 && mlen >= 200 && strncmp(cmdline, mine, llen < mlen ? llen : mlen) == 0;
}

ssize_t render_node_coredump(struct kdev *kd, char *buf, size_t len)
{
	struct rn_kdev *k = (struct rn_kdev *)kd;
	/* v3d makes no devcoredump: nothing found there is a fault of a V3D open. */
	if (k->family != RENDER_NODE_MSM || !k->sysdev[0] || len == 0)
		return -ENOENT;
	long n = newest_dump(k->sysdev, k->devcd_base);
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
	if (!got || !render_node_dump_is_ours(buf, k->comm_tag)) {
		/* Another process's crash: left pending for it (or the kernel's timeout), never shown. */
		buf[0] = '\0';
		close(fd);
		return -ENOENT;
	}
	/* Any write frees the dump: the next fault's report must not find this one again, and the
	 * kernel keeps no new dump for the device while one is pending. */
	if (pwrite(fd, "1", 1, 0) < 0) {
		/* Left for the kernel's own timeout (5 minutes) to free. */
	}
	close(fd);
	return (ssize_t)got;
}
