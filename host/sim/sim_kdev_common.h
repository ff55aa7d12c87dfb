/* The struct kdev glue both simulated devices share: unmapping, the per-open wakeup eventfd and
 * handing a pending coredump out to the caller. */
#ifndef FERRY_SIM_KDEV_COMMON_H
#define FERRY_SIM_KDEV_COMMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend/kdev.h"
#include "ferry/uapi/ioctl_table.h"
#include "sim_worker.h"

/* kdev_ops.ioctl as drm_ioctl does it, for both simulated devices: not a DRM ioctl -ENOTTY, a
 * driver nr the family's ioctl table (ferry/uapi/ioctl_table.h) lacks -EINVAL and a core one
 * what a render node gets (ferry_drm_core_unoffered_errno). Otherwise dispatch() runs under lock
 * on k, a zeroed copy of the table's size (a shorter user struct is zero-extended, a longer one's
 * tail ignored), and the result is copied back, whatever dispatch() returned, where the table's
 * direction says so. k is the caller's buffer of kmax bytes (its union of argument structs). */
int sim_drm_ioctl(struct sim_dev_lock *lock, void *open, enum ferry_ioctl_family family, unsigned long request,
		  void *arg, void *k, size_t kmax, int (*dispatch)(void *open, unsigned nr, void *k));

/* kdev_ops.munmap: BO mappings are plain mappings of the BO's memfd. */
int sim_kdev_munmap(struct kdev *kd, void *addr, size_t len);

/* An open's completion wakeup (kdev_ops.poll_fd): a non-blocking, close-on-exec eventfd written
 * once between two acks, not once per completion. The caller checks for completions after each
 * ack (kdev.h), so a completion that finds the fd still readable from an earlier one, not yet
 * acked, needs no write of its own: a pipelining open otherwise woke its reader and wrote and read
 * the counter for every submit. */
struct sim_wakeup {
	int fd;
	atomic_bool pending; /* written since the last ack */
};

/* 0, or -1 when no eventfd could be made. */
int sim_wakeup_init(struct sim_wakeup *w);
void sim_wakeup_fini(struct sim_wakeup *w);
/* Something completed (called under the device lock); who prefixes a failure message. */
void sim_wakeup_notify(struct sim_wakeup *w, const char *who);
/* kdev_ops.poll_ack's work: drains the fd, then re-arms the next completion's write. */
void sim_wakeup_drain(struct sim_wakeup *w, const char *who);

/* Unlocks lock leaving errno as it was, for a kdev_ops.mmap that fails with errno set. */
void sim_unlock_keep_errno(struct sim_dev_lock *lock);

/* Takes *pending (the open's coredump text, under lock) and copies it into buf, NUL-terminated
 * and cut to len - 1 bytes, then frees it. Returns the bytes copied or -ENOENT with none. */
ssize_t sim_coredump_take(struct sim_dev_lock *lock, char **pending, char *buf, size_t len);

#endif
