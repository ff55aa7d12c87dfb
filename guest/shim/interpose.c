/* The libc entry points a DRM driver stack reaches the kernel through, overridden by LD_PRELOAD:
 * paths ferry owns (shim_vfs_lookup) and fds standing for the node (shim_fd_dev) are answered
 * here; everything else goes to the next definition (libc). munmap is not overridden: every BO
 * mapping handed out is a real shared-memory mapping that libc's munmap undoes. */
/* The plain and the 64 names are separate symbols to override; with 64-bit off_t they are the
 * same functions (this file is only built for LP64 targets). */
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interpose.h"
#include "shim.h"
#include "sync_file.h"

/* ---- opening ---- */

/* A memfd holding a virtual file's bytes, positioned at 0. */
static int vfile_fd(const struct shim_vnode *n, int flags)
{
	int fd = memfd_create("ferry-sysfs", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	if (write(fd, n->content, n->content_len) != (ssize_t)n->content_len || lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno ? errno : EIO;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* devcd<N>/data: the dump's text in a memfd. Reading leaves the dump pending; a write deletes
 * it, as the kernel's: a memfd cannot see the write, so the fd is remembered and its contents
 * compared at close (a program that fcloses a FILE goes past the close here: its dump stays). */
#define DEVCD_OPEN_MAX 16
static struct devcd_open {
	int fd;
	unsigned id;
	size_t len;
	char first;
} devcd_opens[DEVCD_OPEN_MAX];
static int nr_devcd_opens;
static pthread_mutex_t devcd_lock = PTHREAD_MUTEX_INITIALIZER;

static int devcd_fd(unsigned id, int flags)
{
	char *text;
	size_t len;
	int r = shim_backend_devcd_read(id, &text, &len);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	int fd = memfd_create("ferry-devcoredump", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len && lseek(fd, 0, SEEK_SET) == 0;
	int e = errno ? errno : EIO;
	char first = len ? text[0] : '\0';
	free(text);
	if (!ok) {
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	pthread_mutex_lock(&devcd_lock);
	if ((flags & O_ACCMODE) != O_RDONLY && nr_devcd_opens < DEVCD_OPEN_MAX) {
		devcd_opens[nr_devcd_opens++] = (struct devcd_open){ .fd = fd, .id = id, .len = len, .first = first };
	} else if ((flags & O_ACCMODE) != O_RDONLY) {
		/* No room to watch for the write: taken now, as before writes were seen. */
		shim_backend_devcd_take(id, NULL, NULL);
	}
	pthread_mutex_unlock(&devcd_lock);
	return fd;
}

/* close() of a devcd data fd: deletes the dump if anything was written to it. */
static void devcd_close(int fd)
{
	if (!__atomic_load_n(&nr_devcd_opens, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&devcd_lock);
	for (int i = 0; i < nr_devcd_opens; i++) {
		if (devcd_opens[i].fd != fd)
			continue;
		struct stat st;
		char first;
		bool written = fstat(fd, &st) < 0 || (size_t)st.st_size != devcd_opens[i].len ||
			       (devcd_opens[i].len && (pread(fd, &first, 1, 0) != 1 || first != devcd_opens[i].first));
		if (written)
			shim_backend_devcd_take(devcd_opens[i].id, NULL, NULL);
		devcd_opens[i] = devcd_opens[--nr_devcd_opens];
		break;
	}
	pthread_mutex_unlock(&devcd_lock);
}

static int node_open(int flags)
{
	/* The number comes from a real fd so nobody else gets it while the node is open. */
	int fd = open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
	if (fd < 0)
		return -1;
	struct shim_dev *dev;
	int r = shim_backend_open(&dev);
	if (r == 0) {
		r = shim_fd_install(fd, dev);
		if (r < 0)
			shim_backend_close(dev);
	}
	if (r < 0) {
		close(fd);
		errno = -r;
		return -1;
	}
	shim_log(false, "opened the render node as fd %d", fd);
	return fd;
}

/* open() of a path we own: -2 means "not ours". */
static int vopen(const char *path, int flags)
{
	struct shim_vnode n;
	if (!shim_vfs_lookup(path, &n))
		return -2;
	switch (n.kind) {
	case SHIM_VNODE_DEV:
		return node_open(flags);
	case SHIM_VNODE_FILE:
		if (n.devcd)
			return devcd_fd(n.devcd, flags);
		if ((flags & O_ACCMODE) != O_RDONLY) {
			errno = EACCES;
			return -1;
		}
		return vfile_fd(&n, flags);
	case SHIM_VNODE_NONE:
		errno = ENOENT;
		return -1;
	case SHIM_VNODE_DISPLAY:
		shim_log(false, "the display node is listed for v3dv but not offered");
		errno = EACCES;
		return -1;
	default:
		/* Directories are listed through opendir; an fd on one is not offered. */
		errno = EACCES;
		return -1;
	}
}

static int open_mode(int flags, va_list ap)
{
	return (flags & (O_CREAT | __O_TMPFILE)) ? va_arg(ap, int) : 0;
}

/* open, open64: the mode argument only exists with O_CREAT / O_TMPFILE. */
#define OPEN_FN(name)                                                              \
	EXPORT int name(const char *path, int flags, ...)                          \
	{                                                                          \
		va_list ap;                                                        \
		va_start(ap, flags);                                               \
		int mode = open_mode(flags, ap);                                   \
		va_end(ap);                                                        \
		int r = vopen(path, flags);                                        \
		if (r != -2)                                                       \
			return r;                                                  \
		NEXT(int (*)(const char *, int, ...), name);                       \
		return next_##name(path, flags, mode);                             \
	}
OPEN_FN(open)
OPEN_FN(open64)

/* The _FORTIFY_SOURCE entry points (no mode). */
#define OPEN2_FN(name)                                                             \
	EXPORT int name(const char *path, int flags)                               \
	{                                                                          \
		int r = vopen(path, flags);                                        \
		if (r != -2)                                                       \
			return r;                                                  \
		NEXT(int (*)(const char *, int), name);                            \
		return next_##name(path, flags);                                   \
	}
OPEN2_FN(__open_2)
OPEN2_FN(__open64_2)

/* openat with a relative path is relative to some directory fd: never ours. */
static int vopenat(int dirfd, const char *path, int flags)
{
	(void)dirfd;
	return path && path[0] == '/' ? vopen(path, flags) : -2;
}

#define OPENAT_FN(name)                                                            \
	EXPORT int name(int dirfd, const char *path, int flags, ...)               \
	{                                                                          \
		va_list ap;                                                        \
		va_start(ap, flags);                                               \
		int mode = open_mode(flags, ap);                                   \
		va_end(ap);                                                        \
		int r = vopenat(dirfd, path, flags);                               \
		if (r != -2)                                                       \
			return r;                                                  \
		NEXT(int (*)(int, const char *, int, ...), name);                  \
		return next_##name(dirfd, path, flags, mode);                      \
	}
OPENAT_FN(openat)
OPENAT_FN(openat64)

#define OPENAT2_FN(name)                                                           \
	EXPORT int name(int dirfd, const char *path, int flags)                    \
	{                                                                          \
		int r = vopenat(dirfd, path, flags);                               \
		if (r != -2)                                                       \
			return r;                                                  \
		NEXT(int (*)(int, const char *, int), name);                       \
		return next_##name(dirfd, path, flags);                            \
	}
OPENAT2_FN(__openat_2)
OPENAT2_FN(__openat64_2)

static FILE *vfopen(const char *path, const char *mode, bool *ours)
{
	struct shim_vnode n;
	*ours = shim_vfs_lookup(path, &n);
	if (!*ours)
		return NULL;
	if (n.kind != SHIM_VNODE_FILE) {
		errno = n.kind == SHIM_VNODE_NONE ? ENOENT : EACCES;
		return NULL;
	}
	if (strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+')) {
		errno = EACCES;
		return NULL;
	}
	int fd = vfile_fd(&n, strchr(mode, 'e') ? O_CLOEXEC : 0);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

#define FOPEN_FN(name)                                                                     \
	EXPORT FILE *name(const char *path, const char *mode)                              \
	{                                                                                  \
		bool ours;                                                                 \
		FILE *f = vfopen(path, mode, &ours);                                       \
		if (ours)                                                                  \
			return f;                                                          \
		static FILE *(*next)(const char *, const char *);                          \
		if (!next && !(next = (FILE * (*)(const char *, const char *)) next_sym(#name))) \
			return NULL;                                                       \
		return next(path, mode);                                                   \
	}
FOPEN_FN(fopen)
FOPEN_FN(fopen64)

/* ---- fd life ---- */

EXPORT int close(int fd)
{
	NEXT(int (*)(int), close);
	if (shim_fd_dev(fd))
		shim_fd_forget(fd);
	devcd_close(fd);
	return next_close(fd);
}

EXPORT int dup(int fd)
{
	NEXT(int (*)(int), dup);
	int r = next_dup(fd);
	if (r >= 0)
		shim_fd_dup(fd, r);
	return r;
}

EXPORT int dup2(int fd, int fd2)
{
	NEXT(int (*)(int, int), dup2);
	int r = next_dup2(fd, fd2);
	if (r >= 0 && fd != fd2) {
		if (shim_fd_dev(fd2))
			shim_fd_forget(fd2);
		shim_fd_dup(fd, fd2);
	}
	return r;
}

EXPORT int dup3(int fd, int fd2, int flags)
{
	NEXT(int (*)(int, int, int), dup3);
	int r = next_dup3(fd, fd2, flags);
	if (r >= 0) {
		if (shim_fd_dev(fd2))
			shim_fd_forget(fd2);
		shim_fd_dup(fd, fd2);
	}
	return r;
}

/* The name the one ioctl table gives request on the served GPU's node. */
static const char *ioctl_name(unsigned long request)
{
	const struct shim_identity *id = shim_identity();
	enum ferry_ioctl_family family = FERRY_IOCTL_CORE;
	if (id)
		family = id->family == SHIM_FAMILY_MSM ? FERRY_IOCTL_MSM : FERRY_IOCTL_V3D;
	const struct ferry_ioctl *io = ferry_ioctl_find(family, _IOC_NR(request));
	return io ? io->name : "not offered";
}

/* Every fcntl argument is an int or a pointer; long carries both here. */
#define FCNTL_FN(name)                                                             \
	EXPORT int name(int fd, int cmd, ...)                                      \
	{                                                                          \
		va_list ap;                                                        \
		va_start(ap, cmd);                                                 \
		long arg = va_arg(ap, long);                                       \
		va_end(ap);                                                        \
		NEXT(int (*)(int, int, ...), name);                                \
		int r = next_##name(fd, cmd, arg);                                 \
		if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))          \
			shim_fd_dup(fd, r);                                        \
		return r;                                                          \
	}
FCNTL_FN(fcntl)
FCNTL_FN(fcntl64)

/* ---- the kernel interface ---- */

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct shim_dev *dev = shim_fd_dev(fd);
	int r;
	if (!dev && shim_sync_file_ioctl(fd, request, arg, &r)) {
		if (r < 0) {
			errno = -r;
			return -1;
		}
		return r;
	}
	if (!dev) {
		NEXT(int (*)(int, unsigned long, ...), ioctl);
		return next_ioctl(fd, request, arg);
	}
	r = _IOC_TYPE(request) == 'd' ? shim_backend_ioctl(dev, request, arg) : -ENOTTY;
	if (r < 0) {
		/* Drivers print strerror at best ("Draw call returned Invalid argument"): with
		 * FERRY_SHIM_DEBUG=1 each failed call is named. ETIME/ETIMEDOUT are polls, not failures. */
		if (r != -ETIME && r != -ETIMEDOUT && r != -EAGAIN && r != -EINTR)
			shim_log(false, "ioctl %s (nr 0x%02x size %u): %s", ioctl_name(request),
				 (unsigned)_IOC_NR(request), (unsigned)_IOC_SIZE(request), strerror(-r));
		errno = -r;
		return -1;
	}
	return r;
}

static void *vmmap(void *addr, size_t len, int prot, int flags, int fd, off_t off, bool *ours)
{
	struct shim_dev *dev = fd >= 0 ? shim_fd_dev(fd) : NULL;
	*ours = dev != NULL;
	return dev ? shim_backend_mmap(dev, addr, len, prot, flags, off) : MAP_FAILED;
}

/* off_t is 64-bit here (LP64), so mmap and mmap64 take the same arguments. */
#define MMAP_FN(name)                                                                           \
	EXPORT void *name(void *addr, size_t len, int prot, int flags, int fd, off_t off)       \
	{                                                                                       \
		bool ours;                                                                      \
		void *p = vmmap(addr, len, prot, flags, fd, off, &ours);                        \
		if (ours)                                                                       \
			return p;                                                               \
		static void *(*next)(void *, size_t, int, int, int, off_t);                     \
		if (!next && !(next = (void *(*)(void *, size_t, int, int, int, off_t))next_sym(#name))) { \
			errno = ENOSYS;                                                         \
			return MAP_FAILED;                                                      \
		}                                                                               \
		return next(addr, len, prot, flags, fd, off);                                   \
	}
MMAP_FN(mmap)
MMAP_FN(mmap64)
