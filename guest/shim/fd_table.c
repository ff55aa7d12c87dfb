/* The fds that stand for an open of the node. Each is a real fd (so the number is reserved and
 * close and poll behave), mapped here to the open file description it shares with its dups. A
 * fork()ed child forgets them all: its copies are plain fds there. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "shim.h"

#define SHIM_MAX_FD 65536

struct shim_open {
	struct shim_dev *dev;
	unsigned refs; /* fds pointing here; under table_lock */
};

/* Lookups (every ioctl) read without the lock; changes take it. */
static _Atomic(struct shim_open *) table[SHIM_MAX_FD];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static bool fd_ok(int fd)
{
	return fd >= 0 && fd < SHIM_MAX_FD;
}

int shim_fd_install(int fd, struct shim_dev *dev)
{
	if (!fd_ok(fd))
		return -EMFILE;
	struct shim_open *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->dev = dev;
	o->refs = 1;
	pthread_mutex_lock(&table_lock);
	struct shim_open *stale = atomic_exchange(&table[fd], o);
	pthread_mutex_unlock(&table_lock);
	/* A stale entry means the fd was closed behind our back (e.g. by a raw syscall). */
	if (stale)
		shim_log(true, "fd %d was reused while it still stood for the node", fd);
	return 0;
}

struct shim_dev *shim_fd_dev(int fd)
{
	if (!fd_ok(fd))
		return NULL;
	struct shim_open *o = atomic_load_explicit(&table[fd], memory_order_acquire);
	return o ? o->dev : NULL;
}

void shim_fd_dup(int oldfd, int newfd)
{
	if (!fd_ok(oldfd) || !fd_ok(newfd) || oldfd == newfd)
		return;
	pthread_mutex_lock(&table_lock);
	struct shim_open *o = atomic_load(&table[oldfd]);
	if (o) {
		o->refs++;
		atomic_store(&table[newfd], o);
	}
	pthread_mutex_unlock(&table_lock);
}

void shim_fd_forget(int fd)
{
	if (!fd_ok(fd))
		return;
	struct shim_dev *last = NULL;
	pthread_mutex_lock(&table_lock);
	struct shim_open *o = atomic_exchange(&table[fd], NULL);
	if (o && --o->refs == 0) {
		last = o->dev;
		free(o);
	}
	pthread_mutex_unlock(&table_lock);
	if (last)
		shim_backend_close(last);
}

void shim_fd_fork_child(void)
{
	/* Only this thread exists in the child; the parent's opens stay the parent's (nothing is
	 * closed or freed here, which would reach the parent's ferryd context). */
	for (int fd = 0; fd < SHIM_MAX_FD; fd++)
		atomic_store(&table[fd], NULL);
}
