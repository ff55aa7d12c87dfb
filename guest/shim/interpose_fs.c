/* stat / access / readlink / realpath / directory listing for the paths ferry owns, and fstat
 * of fds standing for the node; everything else goes to libc. glibc 2.33+ exports stat & co as
 * functions; the __xstat family is what older binaries call. */
/* The plain and the 64 names are separate symbols to override; with 64-bit off_t they are the
 * same functions (this file is only built for LP64 targets). */
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interpose.h"
#include "shim.h"

_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "LP64 glibc: stat == stat64");

/* libc declares these paths nonnull; a NULL from a caller still must not crash here. */
static bool is_abs(const char *p)
{
	return p && p[0] == '/';
}

static bool is_empty(const char *p)
{
	return p && !*p;
}

/* 1 = answered (*st filled), -1 = answered with an error (errno set), 0 = not ours. */
static int vstat(const char *path, struct stat *st, bool follow)
{
	struct shim_vnode n;
	if (!shim_vfs_lookup(path, &n))
		return 0;
	if (n.kind == SHIM_VNODE_NONE) {
		errno = ENOENT;
		return -1;
	}
	if (n.kind == SHIM_VNODE_LINK && follow)
		n.kind = SHIM_VNODE_DIR; /* every link here points at a directory */
	shim_vfs_stat(&n, st);
	return 1;
}

static int fd_stat(int fd, struct stat *st)
{
	if (!shim_fd_dev(fd))
		return 0;
	struct shim_vnode n = { .kind = SHIM_VNODE_DEV };
	shim_vfs_stat(&n, st);
	return 1;
}

#define STAT_FN(name, follow)                                              \
	EXPORT int name(const char *path, struct stat *st)                 \
	{                                                                  \
		int r = vstat(path, st, follow);                           \
		if (r)                                                     \
			return r > 0 ? 0 : -1;                             \
		NEXT(int (*)(const char *, struct stat *), name);          \
		return next_##name(path, st);                              \
	}
STAT_FN(stat, true)
STAT_FN(lstat, false)

#define FSTAT_FN(name)                                                     \
	EXPORT int name(int fd, struct stat *st)                           \
	{                                                                  \
		if (fd_stat(fd, st))                                       \
			return 0;                                          \
		NEXT(int (*)(int, struct stat *), name);                   \
		return next_##name(fd, st);                                \
	}
FSTAT_FN(fstat)

#define FSTATAT_FN(name)                                                               \
	EXPORT int name(int dirfd, const char *path, struct stat *st, int flags)       \
	{                                                                              \
		int r = 0;                                                             \
		if ((flags & AT_EMPTY_PATH) && is_empty(path))                         \
			r = fd_stat(dirfd, st);                                        \
		else if (is_abs(path))                                                 \
			r = vstat(path, st, !(flags & AT_SYMLINK_NOFOLLOW));           \
		if (r)                                                                 \
			return r > 0 ? 0 : -1;                                         \
		NEXT(int (*)(int, const char *, struct stat *, int), name);            \
		return next_##name(dirfd, path, st, flags);                            \
	}
FSTATAT_FN(fstatat)

/* The 64 names take struct stat64, which is struct stat on LP64. */
EXPORT int stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return lstat(path, (struct stat *)st);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

/* The pre-2.33 glibc entry points (ver is _STAT_VER; the struct is the same on 64-bit). */
#define XSTAT_FN(name, follow)                                                 \
	EXPORT int name(int ver, const char *path, struct stat *st)            \
	{                                                                      \
		int r = vstat(path, st, follow);                               \
		if (r)                                                         \
			return r > 0 ? 0 : -1;                                 \
		NEXT(int (*)(int, const char *, struct stat *), name);         \
		return next_##name(ver, path, st);                             \
	}
XSTAT_FN(__xstat, true)
XSTAT_FN(__xstat64, true)
XSTAT_FN(__lxstat, false)
XSTAT_FN(__lxstat64, false)

#define FXSTAT_FN(name)                                                        \
	EXPORT int name(int ver, int fd, struct stat *st)                      \
	{                                                                      \
		if (fd_stat(fd, st))                                           \
			return 0;                                              \
		NEXT(int (*)(int, int, struct stat *), name);                  \
		return next_##name(ver, fd, st);                               \
	}
FXSTAT_FN(__fxstat)
FXSTAT_FN(__fxstat64)

EXPORT int access(const char *path, int mode)
{
	struct shim_vnode n;
	if (shim_vfs_lookup(path, &n)) {
		if (n.kind == SHIM_VNODE_NONE) {
			errno = ENOENT;
			return -1;
		}
		if ((mode & W_OK) && n.kind != SHIM_VNODE_DEV) {
			errno = EACCES;
			return -1;
		}
		return 0;
	}
	NEXT(int (*)(const char *, int), access);
	return next_access(path, mode);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	if (is_abs(path)) {
		struct shim_vnode n;
		if (shim_vfs_lookup(path, &n))
			return access(path, mode);
	}
	NEXT(int (*)(int, const char *, int, int), faccessat);
	return next_faccessat(dirfd, path, mode, flags);
}

static ssize_t vreadlink(const char *path, char *buf, size_t len, bool *ours)
{
	struct shim_vnode n;
	*ours = shim_vfs_lookup(path, &n);
	if (!*ours)
		return 0;
	if (n.kind != SHIM_VNODE_LINK) {
		errno = n.kind == SHIM_VNODE_NONE ? ENOENT : EINVAL;
		return -1;
	}
	size_t t = strlen(n.target);
	if (t > len)
		t = len; /* readlink truncates silently */
	memcpy(buf, n.target, t);
	return (ssize_t)t;
}

EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
	bool ours;
	ssize_t r = vreadlink(path, buf, len, &ours);
	if (ours)
		return r;
	NEXT(ssize_t (*)(const char *, char *, size_t), readlink);
	return next_readlink(path, buf, len);
}

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	if (is_abs(path)) {
		bool ours;
		ssize_t r = vreadlink(path, buf, len, &ours);
		if (ours)
			return r;
	}
	NEXT(ssize_t (*)(int, const char *, char *, size_t), readlinkat);
	return next_readlinkat(dirfd, path, buf, len);
}

/* The _FORTIFY_SOURCE entry points: buflen is the real size of buf. */
EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen)
{
	bool ours;
	ssize_t r = vreadlink(path, buf, len < buflen ? len : buflen, &ours);
	if (ours)
		return r;
	NEXT(ssize_t (*)(const char *, char *, size_t, size_t), __readlink_chk);
	return next___readlink_chk(path, buf, len, buflen);
}

EXPORT ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len, size_t buflen)
{
	if (is_abs(path)) {
		bool ours;
		ssize_t r = vreadlink(path, buf, len < buflen ? len : buflen, &ours);
		if (ours)
			return r;
	}
	NEXT(ssize_t (*)(int, const char *, char *, size_t, size_t), __readlinkat_chk);
	return next___readlinkat_chk(dirfd, path, buf, len, buflen);
}

/* realpath of an owned path: links resolve to their target, the rest to the path itself (with
 * the node's /sys/dev/char entry left as is: nothing below it is a link but subsystem). */
static char *vrealpath(const char *path, char *resolved, bool *ours)
{
	struct shim_vnode n;
	*ours = shim_vfs_lookup(path, &n);
	if (!*ours)
		return NULL;
	if (n.kind == SHIM_VNODE_NONE) {
		errno = ENOENT;
		return NULL;
	}
	char tmp[PATH_MAX];
	if (n.kind == SHIM_VNODE_LINK) {
		snprintf(tmp, sizeof(tmp), "%s", n.content);
	} else if (!shim_vfs_normalize(path, tmp, sizeof(tmp))) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	char *out = resolved ? resolved : malloc(PATH_MAX);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(out, PATH_MAX, "%s", tmp);
	return out;
}

EXPORT char *realpath(const char *path, char *resolved)
{
	bool ours;
	char *r = vrealpath(path, resolved, &ours);
	if (ours)
		return r;
	static char *(*next)(const char *, char *);
	if (!next && !(next = (char *(*)(const char *, char *))next_sym("realpath"))) {
		errno = ENOSYS;
		return NULL;
	}
	return next(path, resolved);
}

EXPORT char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	bool ours;
	char tmp[PATH_MAX];
	char *r = vrealpath(path, tmp, &ours);
	if (ours) {
		if (!r)
			return NULL;
		if (!resolved)
			return strdup(tmp);
		if (strlen(tmp) >= resolvedlen) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		memcpy(resolved, tmp, strlen(tmp) + 1);
		return resolved;
	}
	static char *(*next)(const char *, char *, size_t);
	if (!next && !(next = (char *(*)(const char *, char *, size_t))next_sym("__realpath_chk"))) {
		errno = ENOSYS;
		return NULL;
	}
	return next(path, resolved, resolvedlen);
}

EXPORT char *canonicalize_file_name(const char *path)
{
	bool ours;
	char *r = vrealpath(path, NULL, &ours);
	if (ours)
		return r;
	static char *(*next)(const char *);
	if (!next && !(next = (char *(*)(const char *))next_sym("canonicalize_file_name"))) {
		errno = ENOSYS;
		return NULL;
	}
	return next(path);
}

/* ---- directories: a listing of our own behind a DIR pointer libc never sees ---- */

struct shim_dir {
	struct shim_dir *next;
	const char *const *entries;
	unsigned pos; /* 0 ".", 1 "..", then entries */
	struct dirent64 ent;
};

static struct shim_dir *dirs;
static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct shim_dir *find_dir(void *d)
{
	pthread_mutex_lock(&dirs_lock);
	struct shim_dir *it = dirs;
	while (it && (void *)it != d)
		it = it->next;
	pthread_mutex_unlock(&dirs_lock);
	return it;
}

EXPORT DIR *opendir(const char *path)
{
	struct shim_vnode n;
	if (shim_vfs_lookup(path, &n)) {
		if (n.kind == SHIM_VNODE_LINK)
			n.kind = SHIM_VNODE_DIR;
		if (n.kind != SHIM_VNODE_DIR) {
			errno = n.kind == SHIM_VNODE_NONE ? ENOENT : ENOTDIR;
			return NULL;
		}
		static const char *const none[] = { NULL };
		struct shim_dir *d = calloc(1, sizeof(*d));
		if (!d) {
			errno = ENOMEM;
			return NULL;
		}
		d->entries = n.entries ? n.entries : none;
		pthread_mutex_lock(&dirs_lock);
		d->next = dirs;
		dirs = d;
		pthread_mutex_unlock(&dirs_lock);
		return (DIR *)d;
	}
	static DIR *(*next)(const char *);
	if (!next && !(next = (DIR * (*)(const char *)) next_sym("opendir"))) {
		errno = ENOSYS;
		return NULL;
	}
	return next(path);
}

static struct dirent64 *vreaddir(struct shim_dir *d)
{
	const char *name;
	unsigned char type = DT_DIR;
	if (d->pos == 0) {
		name = ".";
	} else if (d->pos == 1) {
		name = "..";
	} else {
		unsigned i = d->pos - 2;
		for (unsigned k = 0; k < i; k++)
			if (!d->entries[k])
				return NULL;
		name = d->entries[i];
		if (!name)
			return NULL;
		type = DT_UNKNOWN; /* readers stat what they find, as libdrm does */
	}
	d->pos++;
	memset(&d->ent, 0, sizeof(d->ent));
	d->ent.d_ino = 2000 + d->pos;
	d->ent.d_off = d->pos;
	d->ent.d_reclen = sizeof(d->ent);
	d->ent.d_type = type;
	snprintf(d->ent.d_name, sizeof(d->ent.d_name), "%s", name);
	return &d->ent;
}

EXPORT struct dirent *readdir(DIR *dir)
{
	struct shim_dir *d = find_dir(dir);
	if (d)
		return (struct dirent *)vreaddir(d);
	static struct dirent *(*next)(DIR *);
	if (!next && !(next = (struct dirent * (*)(DIR *)) next_sym("readdir")))
		return NULL;
	return next(dir);
}

EXPORT struct dirent64 *readdir64(DIR *dir)
{
	struct shim_dir *d = find_dir(dir);
	if (d)
		return vreaddir(d);
	static struct dirent64 *(*next)(DIR *);
	if (!next && !(next = (struct dirent64 * (*)(DIR *)) next_sym("readdir64")))
		return NULL;
	return next(dir);
}

EXPORT int closedir(DIR *dir)
{
	pthread_mutex_lock(&dirs_lock);
	struct shim_dir **pp = &dirs;
	while (*pp && (void *)*pp != (void *)dir)
		pp = &(*pp)->next;
	struct shim_dir *d = *pp;
	if (d)
		*pp = d->next;
	pthread_mutex_unlock(&dirs_lock);
	if (d) {
		free(d);
		return 0;
	}
	NEXT(int (*)(DIR *), closedir);
	return next_closedir(dir);
}

EXPORT void rewinddir(DIR *dir)
{
	struct shim_dir *d = find_dir(dir);
	if (d) {
		d->pos = 0;
		return;
	}
	static void (*next)(DIR *);
	if (!next)
		next = (void (*)(DIR *))next_sym("rewinddir");
	if (next)
		next(dir);
}

EXPORT int dirfd(DIR *dir)
{
	if (find_dir(dir)) {
		errno = ENOTSUP;
		return -1;
	}
	NEXT(int (*)(DIR *), dirfd);
	return next_dirfd(dir);
}
