/* Host memory a guest may map as blob resources, where the VMM has them (docs/vm.md, "Newer
 * VMMs"): the worker publishes each ferry object's pages (a BO's, a context's fence page) under
 * the blob id the guest will ask for; QEMU's main thread takes a copy of the fd when the guest
 * creates the blob resource. One copy of the memory, no merge. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "vg.h"

struct blob {
	uint32_t ctx;
	uint64_t id;
	int fd;
	uint64_t size;
	struct blob *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct blob *blobs;

static struct blob **find(uint32_t ctx, uint64_t id)
{
	struct blob **pp = &blobs;
	while (*pp && ((*pp)->ctx != ctx || (*pp)->id != id))
		pp = &(*pp)->next;
	return pp;
}

static void drop(struct blob **pp)
{
	struct blob *b = *pp;
	*pp = b->next;
	close(b->fd);
	free(b);
}

int vg_blob_publish(uint32_t ctx, uint64_t id, int fd, uint64_t size)
{
	struct blob *b = malloc(sizeof(*b));
	int copy = b ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (copy < 0) {
		free(b);
		return -ENOMEM;
	}
	*b = (struct blob){ ctx, id, copy, size, NULL };
	pthread_mutex_lock(&lock);
	struct blob **pp = find(ctx, id);
	if (*pp)
		drop(pp); /* the newer object of that id wins */
	b->next = blobs;
	blobs = b;
	pthread_mutex_unlock(&lock);
	return 0;
}

void vg_blob_withdraw(uint32_t ctx, uint64_t id)
{
	pthread_mutex_lock(&lock);
	struct blob **pp = find(ctx, id);
	if (*pp)
		drop(pp);
	pthread_mutex_unlock(&lock);
}

/* Every blob of ctx, or (all false) only those of ferry context ctx_id. */
static void withdraw(uint32_t ctx, bool all, uint32_t ctx_id)
{
	pthread_mutex_lock(&lock);
	for (struct blob **pp = &blobs; *pp;) {
		if ((*pp)->ctx == ctx && (all || (*pp)->id >> 32 == ctx_id))
			drop(pp);
		else
			pp = &(*pp)->next;
	}
	pthread_mutex_unlock(&lock);
}

void vg_blob_withdraw_ctx(uint32_t ctx)
{
	withdraw(ctx, true, 0);
}

void vg_blob_withdraw_ferry_ctx(uint32_t ctx, uint32_t ctx_id)
{
	withdraw(ctx, false, ctx_id);
}

int vg_blob_take(uint32_t ctx, uint64_t id, uint64_t size, int *fd)
{
	pthread_mutex_lock(&lock);
	struct blob *b = *find(ctx, id);
	int r = !b ? -ENOENT : size == 0 || size > b->size ? -EINVAL : 0;
	if (r == 0 && (*fd = fcntl(b->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		r = -errno;
	pthread_mutex_unlock(&lock);
	return r;
}
