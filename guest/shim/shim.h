/* The DRM render-node interposer shared by libferry-shim.so (the uAPI forwarded to ferryd) and
 * libferry-fakekernel.so (the simulated kernels in process): the virtual /dev/dri + sysfs tree,
 * the table of fds that stand for the node, and the backend each library plugs in. */
#ifndef FERRY_SHIM_H
#define FERRY_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ferry/uapi/ioctl_table.h"

#define SHIM_DRM_MAJOR 226
#define SHIM_RENDER_MINOR 128

/* ---- what the backend serves (fixed for the life of the process) ---- */
enum shim_family { SHIM_FAMILY_MSM = 1, SHIM_FAMILY_V3D = 2 };

struct shim_identity {
	enum shim_family family;
	char gpu[32]; /* ferryd's --gpu name: "a630", "a660", "v3d-4.2", "v3d-7.1" */
};

/* ---- the backend: implemented once by each library ---- */
struct shim_dev; /* one open file description of the node */

/* Which GPU is served; called once, lazily (the shim connects to ferryd here). 0 or -errno. */
int shim_backend_identify(struct shim_identity *out);
/* A new open of the node. 0 or -errno. */
int shim_backend_open(struct shim_dev **out);
void shim_backend_close(struct shim_dev *dev);
/* Every ioctl on the node, with the kernel's request number. Returns 0 or -errno (the errno the
 * kernel would set). */
int shim_backend_ioctl(struct shim_dev *dev, unsigned long request, void *arg);
/* mmap of a BO through the fake offset the driver got from the kernel. MAP_FAILED + errno. */
void *shim_backend_mmap(struct shim_dev *dev, void *addr, size_t len, int prot, int flags, off_t offset);
/* The device's devcoredumps, as /sys/class/devcoredump/devcd<N> lists them: the pending ones'
 * numbers, oldest first (at most max; returns how many), one's text (a malloc'd copy; the dump
 * stays pending, as reading the kernel's does), and taken (gone after, as after the kernel's
 * delete; text may be NULL). The shim's backend has none. */
int shim_backend_devcd_list(unsigned *ids, int max);
int shim_backend_devcd_read(unsigned id, char **text, size_t *len);
int shim_backend_devcd_take(unsigned id, char **text, size_t *len);

/* ---- drm_ioctl's argument handling (ioctl_copy.c) ---- */
/* The handler works on k, a zeroed copy of the kernel's own size (io's, from the one ioctl table
 * ferry/uapi/ioctl_table.h): a shorter user struct is zero-extended and a longer one's tail
 * ignored (so newer and older uAPI headers both reach the same handler), and the result goes back
 * only where both the kernel's and the caller's request say _IOC_READ. */
void shim_ioctl_copy_in(unsigned long request, const void *user, void *k, size_t ksize);
void shim_ioctl_copy_out(const struct ferry_ioctl *io, unsigned long request, void *user, const void *k);
/* offer.c: 0, or the errno (-EOPNOTSUPP) for an ioctl or flag ferry's guest surface does not
 * offer; both backends ask before anything else, so they refuse alike. */
int shim_not_offered(enum shim_family family, unsigned long request, const void *arg);
/* Timeline syncobjs are offered only with FERRY_SYNCOBJ_TIMELINE=1. Off (the default), both
 * backends answer as 6.1's msm and v3d do: cap 0, the timeline ioctls and msm syncobj points
 * -EOPNOTSUPP (shim_not_offered). On by default they would break Debian 12's Turnip, which
 * submits native timelines without their points (with the cap at 0 it emulates them). */
bool shim_offers_timelines(void);
/* After the backend answered: GET_CAP(SYNCOBJ_TIMELINE) reads 0 when timelines are off. */
void shim_offer_fixup(unsigned long request, void *arg, int ret);
/* request submits GPU work for family (msm GEM_SUBMIT, v3d SUBMIT_CL / TFU / CSD). */
bool shim_is_submit(enum shim_family family, unsigned long request);
/* After a failed submit, how long a wait for a fence not yet submitted on that open still sleeps
 * before it ends with EIO (both backends). Turnip and v3dv call their device lost on a failed
 * submit, but v3dv submits from a thread while the application may already wait on a syncobj that
 * submit was to fill; on the kernel that wait sleeps for ever. The grace lets the driver's submit
 * thread record the loss first, so the wait reports VK_ERROR_DEVICE_LOST. */
#define SHIM_STRANDED_GRACE_NS (100ll * 1000 * 1000)

/* ---- identity (identity.c) ---- */
/* NULL until identified; identification failing is remembered (the node then does not exist). */
const struct shim_identity *shim_identity(void);
/* "ferry-shim" messages on stderr, only with FERRY_SHIM_DEBUG=1 (or always for errors). */
void shim_log(bool error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the virtual file tree (node_vfs.c) ---- */
enum shim_vnode_kind {
	SHIM_VNODE_NONE,
	SHIM_VNODE_DEV,     /* the render node */
	SHIM_VNODE_DISPLAY, /* V3D only: the vc4 display's primary node, listed but not openable */
	SHIM_VNODE_DIR,
	SHIM_VNODE_FILE,
	SHIM_VNODE_LINK,
};

struct shim_vnode {
	enum shim_vnode_kind kind;
	char target[128];    /* LINK: what readlink returns */
	char content[1024];  /* FILE: the file's bytes */
	size_t content_len;
	const char *const *entries; /* DIR: names, NULL-terminated */
	unsigned devcd;      /* FILE: not 0 = devcd<N>/data, its bytes that dump's (read at open) */
};

/* Classifies an absolute path (after a cheap prefix test; relative paths are never ours): true
 * when the path is
 * one ferry owns (under /dev/dri or the node's sysfs), with *out saying what it is (NONE =
 * hidden / does not exist). False = not ours: the real file system answers. */
bool shim_vfs_lookup(const char *path, struct shim_vnode *out);
/* Copies path without repeated or trailing slashes; false if it does not fit. */
bool shim_vfs_normalize(const char *path, char *out, size_t n);
/* stat of a vnode as the kernel would fill it. */
void shim_vfs_stat(const struct shim_vnode *n, struct stat *st);

/* ---- fds standing for the node (fd_table.c) ---- */
/* Registers fd (a real fd the library opened to hold the number) as an open of dev. */
int shim_fd_install(int fd, struct shim_dev *dev);
/* The device behind fd, or NULL if fd is not ours. */
struct shim_dev *shim_fd_dev(int fd);
/* dup/dup2/fcntl(F_DUPFD) made newfd a copy of oldfd (if oldfd is ours). */
void shim_fd_dup(int oldfd, int newfd);
/* fd is being closed (or replaced by dup2); drops the device when its last fd goes. */
void shim_fd_forget(int fd);
/* In a fork()ed child: every fd of the parent's opens becomes a plain fd. */
void shim_fd_fork_child(void);

#endif
