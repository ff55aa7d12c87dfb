/* Sync files for both libraries: the fd a program gets is one end of a unix socket pair and a
 * fence is another pair, each written once, when it signals, with a record of its status.
 *
 * Why sockets (and not eventfds or pipes): a socket's inode is its own, so an fd names its sync
 * file however it was copied (dup, fork, and later SCM_RIGHTS); a reader can MSG_PEEK the status
 * record without consuming it, so every copy in every process sees it; and POLLHUP on the end
 * kept here says every copy of the program's end was closed. poll() on the program's end reports
 * POLLIN once the file's record is there, as the kernel's sync_file_poll does once all its fences
 * signaled. A fence's own socket lets a fork()ed child (no threads of the parent) see the
 * parent's fences signal: the parent's waiter thread writes, the child's copy becomes readable.
 *
 * One thread per pending backend fence waits on it (the backend's wait); one watcher thread per
 * process polls the fences of files not yet complete and writes their record.
 *
 * A file's record has a fence's layout, and the program's end is bound to an abstract socket
 * name that says what it is: a process that was handed the fd over a unix socket (and knows
 * nothing of it) takes it as one fence whose record is the file's. */

#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "sync_file.h"
#include "sim/sim_thread.h"

struct shim_fence {
	unsigned refs;                    /* sf_lock */
	const struct shim_fence_ops *ops; /* NULL: the stub */
	void *obj;                        /* NULL in a fork()ed child: the parent's */
	uint64_t context;
	uint32_t seqno;
	char timeline[32];
	int rd, wr;                       /* the record socket; wr -1 once written or not ours */
	bool signaled;                    /* the local view of the record (sf_lock) */
	int error;
	int64_t ts;
	dev_t fdev;                       /* another process's file: its socket (0, 0 otherwise) */
	ino_t fino;
	struct shim_fence *next_all;
};

struct sync_file {
	dev_t dev;
	ino_t ino;
	int keep;             /* the peer of the program's fd */
	char name[32];        /* SYNC_IOC_MERGE's name ("" for a file a submit or export made) */
	uint64_t array_ctx;   /* n > 1: the context of the fence array it stands for */
	uint32_t n;
	struct shim_fence **f;
	bool written;
	struct sync_file *next;
};

/* What a fence's socket carries once it signaled, and a file's once all its fences did (error:
 * the file's first error). */
struct fence_record {
	int32_t error;
	uint32_t pad;
	int64_t ts;
};

static pthread_mutex_t sf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sync_file *files;
static struct shim_fence *all_fences;
static bool watcher_running;
static int wake_fds[2] = { -1, -1 };
static uint64_t next_array_ctx = 1;
/* Fences freed under sf_lock whose backend objects are released after it (a backend's release
 * takes its own lock, which it may hold while it makes a sync file). */
static struct shim_fence *to_release;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static uint64_t next_name;     /* sf_lock */
static uint64_t next_foreign;  /* sf_lock: the context keys of other processes' files */

/* The abstract socket name of a sync file's fd (the leading NUL is sun_path[0]). */
static const char name_prefix[] = "ferry-sync-file/";

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void at_prepare(void)
{
	pthread_mutex_lock(&sf_lock);
}

static void at_parent(void)
{
	pthread_mutex_unlock(&sf_lock);
}

/* The child has none of the parent's threads: its watcher starts again when needed, and the
 * parent's fences are the parent's to signal (their write ends closed here, so a parent gone
 * before signaling shows as a hang-up, not as a fence pending for ever). */
static void at_child(void)
{
	pthread_mutex_init(&sf_lock, NULL);
	watcher_running = false;
	for (int i = 0; i < 2; i++)
		if (wake_fds[i] >= 0)
			close(wake_fds[i]);
	wake_fds[0] = wake_fds[1] = -1;
	for (struct shim_fence *f = all_fences; f; f = f->next_all) {
		if (f->wr >= 0)
			close(f->wr);
		f->wr = -1;
		f->obj = NULL;
	}
}

static void atfork_init(void)
{
	pthread_atfork(at_prepare, at_parent, at_child);
}

/* Reads f's record if it is there (sf_lock held). */
static bool refresh_locked(struct shim_fence *f)
{
	if (f->signaled)
		return true;
	struct fence_record rec;
	ssize_t r = recv(f->rd, &rec, sizeof(rec), MSG_PEEK | MSG_DONTWAIT);
	if (r == (ssize_t)sizeof(rec)) {
		f->signaled = true;
		/* Another process wrote it: an error as the kernel has them, or -EIO. */
		f->error = rec.error > 0 ? 0 : rec.error < -4095 ? -EIO : rec.error;
		f->ts = rec.ts;
	} else if (r == 0) {
		/* Every writer is gone without a record: the process that owned the fence ended. */
		f->signaled = true;
		f->error = -EPIPE;
		f->ts = now_ns();
	} else if (r > 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		/* A part of a record (records are written whole) or a socket that cannot carry one
		 * (another process's, named as ours): never ready otherwise, so failed. */
		f->signaled = true;
		f->error = -EPROTO;
		f->ts = now_ns();
	}
	return f->signaled;
}

/* The backends name a fence's timeline by an address (its queue's, or its own); FILE_INFO names
 * show a small number instead, as the kernel's context counter, so no address reaches whoever
 * holds the fd. A number lives while a fence of its context does, then goes to the next new
 * context: no live fence ever shares it with another context. 0 stays the stub's (sf_lock). */
struct context_slot {
	uint64_t key; /* 0: free */
	unsigned refs;
};
static struct context_slot *contexts;
static size_t nr_contexts;

static uint64_t context_get_locked(uint64_t key)
{
	if (!key)
		return 0;
	size_t free_slot = nr_contexts;
	for (size_t i = 0; i < nr_contexts; i++) {
		if (contexts[i].key == key) {
			contexts[i].refs++;
			return i + 1;
		}
		if (!contexts[i].key && free_slot == nr_contexts)
			free_slot = i;
	}
	if (free_slot == nr_contexts) {
		struct context_slot *c = realloc(contexts, (nr_contexts + 1) * sizeof(*c));
		if (!c)
			return 0; /* out of memory: named as the stub, merged as one with it */
		contexts = c;
		nr_contexts++;
	}
	contexts[free_slot] = (struct context_slot){ key, 1 };
	return free_slot + 1;
}

static void context_put_locked(uint64_t number)
{
	if (number && number <= nr_contexts && --contexts[number - 1].refs == 0)
		contexts[number - 1].key = 0;
}

static void fence_free(struct shim_fence *f)
{
	struct shim_fence **pp = &all_fences;
	while (*pp != f)
		pp = &(*pp)->next_all;
	*pp = f->next_all;
	close(f->rd);
	if (f->wr >= 0)
		close(f->wr);
	context_put_locked(f->context);
	f->next_all = to_release;
	to_release = f;
}

static void sf_unlock(void)
{
	struct shim_fence *r = to_release;
	to_release = NULL;
	pthread_mutex_unlock(&sf_lock);
	while (r) {
		struct shim_fence *next = r->next_all;
		if (r->obj && r->ops->release)
			r->ops->release(r->obj);
		free(r);
		r = next;
	}
}

static void put_locked(struct shim_fence *f)
{
	if (--f->refs == 0)
		fence_free(f);
}

void shim_fence_put(struct shim_fence *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&sf_lock);
	put_locked(f);
	sf_unlock();
}

static void signal_fence(struct shim_fence *f, int error)
{
	pthread_mutex_lock(&sf_lock);
	if (f->wr >= 0) {
		struct fence_record rec = { .error = error > 0 ? 0 : error, .ts = now_ns() };
		if (send(f->wr, &rec, sizeof(rec), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(rec))
			shim_log(true, "sync file: a fence's record could not be written (%s)", strerror(errno));
		close(f->wr);
		f->wr = -1;
	}
	refresh_locked(f);
	sf_unlock();
}

static void *fence_waiter(void *p)
{
	struct shim_fence *f = p;
	int err = f->ops->wait(f->obj);
	signal_fence(f, err);
	shim_fence_put(f);
	return NULL;
}

static struct shim_fence *fence_alloc(const struct shim_fence_ops *ops, void *obj, uint64_t context,
				      uint32_t seqno, const char *timeline)
{
	pthread_once(&atfork_once, atfork_init);
	struct shim_fence *f = calloc(1, sizeof(*f));
	int fds[2];
	if (!f || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		free(f);
		return NULL;
	}
	f->refs = 1;
	f->ops = ops;
	f->obj = obj;
	f->seqno = seqno;
	snprintf(f->timeline, sizeof(f->timeline), "%s", timeline);
	f->rd = fds[0];
	f->wr = fds[1];
	pthread_mutex_lock(&sf_lock);
	f->context = context_get_locked(context);
	f->next_all = all_fences;
	all_fences = f;
	sf_unlock();
	return f;
}

struct shim_fence *shim_fence_new(const struct shim_fence_ops *ops, void *obj, uint64_t context, uint32_t seqno,
				  const char *timeline)
{
	struct shim_fence *f = fence_alloc(ops, obj, context, seqno, timeline);
	if (!f)
		return NULL;
	pthread_mutex_lock(&sf_lock);
	f->refs++; /* the waiter's */
	sf_unlock();
	int r = sim_thread_spawn_detached(fence_waiter, f);
	if (r != 0) {
		pthread_mutex_lock(&sf_lock);
		f->obj = NULL; /* the caller's still */
		f->refs -= 2;
		fence_free(f);
		sf_unlock();
		return NULL;
	}
	return f;
}

struct shim_fence *shim_fence_new_signaled(const struct shim_fence_ops *ops, uint64_t context, uint32_t seqno,
					   const char *timeline, int error)
{
	struct shim_fence *f = fence_alloc(ops, NULL, context, seqno, timeline);
	if (f)
		signal_fence(f, error);
	return f;
}

/* dma_fence_get_stub: signaled, no error. */
static struct shim_fence *stub_new(void)
{
	return shim_fence_new_signaled(NULL, 0, 0, "stub", 0);
}

void *shim_fence_obj(const struct shim_fence *f, const struct shim_fence_ops *ops)
{
	return f->ops == ops ? f->obj : NULL;
}

bool shim_fence_signaled(struct shim_fence *f, int *error)
{
	pthread_mutex_lock(&sf_lock);
	bool s = refresh_locked(f);
	*error = f->error;
	sf_unlock();
	return s;
}

int shim_fence_wait(struct shim_fence *f)
{
	int err;
	while (!shim_fence_signaled(f, &err)) {
		struct pollfd p = { .fd = f->rd, .events = POLLIN };
		poll(&p, 1, -1);
	}
	return err;
}

/* ---- files ---- */

static void file_free(struct sync_file *sf)
{
	close(sf->keep);
	for (uint32_t i = 0; i < sf->n; i++)
		put_locked(sf->f[i]);
	free(sf->f);
	free(sf);
}

/* Drops the files whose every copy of the program's end is closed (sf_lock held). */
static void collect_locked(void)
{
	for (struct sync_file **pp = &files; *pp;) {
		struct sync_file *sf = *pp;
		struct pollfd p = { .fd = sf->keep, .events = 0 };
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
			*pp = sf->next;
			file_free(sf);
		} else {
			pp = &sf->next;
		}
	}
}

/* dma_fence_get_status of what the file holds: 0 while any fence is pending, then the first
 * error, else 1; as last read from the fences' records (sf_lock held). */
static int file_status_cached(struct sync_file *sf)
{
	int status = 1;
	for (uint32_t i = 0; i < sf->n; i++) {
		struct shim_fence *f = sf->f[i];
		if (!f->signaled)
			return 0;
		if (f->error < 0 && status == 1)
			status = f->error;
	}
	return status;
}

static void complete_one_locked(struct sync_file *sf);

static int file_status_locked(struct sync_file *sf)
{
	for (uint32_t i = 0; i < sf->n; i++)
		refresh_locked(sf->f[i]);
	return file_status_cached(sf);
}

/* Writes the record of every complete file not yet written, oldest first: a merged file is
 * newer than its inputs, so it never reads ready before them (sf_lock held). */
static void complete_locked(void)
{
	size_t n = 0;
	for (struct sync_file *sf = files; sf; sf = sf->next)
		n += !sf->written;
	struct sync_file *small[64], **v = n <= 64 ? small : malloc(n * sizeof(*v));
	if (!v)
		return; /* out of memory: the watcher's next pass */
	/* One snapshot of the fences for the whole pass: a fence signaling in the middle of it
	 * must not complete a newer file and leave an older one of the same fence. */
	size_t k = 0;
	for (struct sync_file *sf = files; sf; sf = sf->next)
		if (!sf->written) {
			v[k++] = sf;
			for (uint32_t i = 0; i < sf->n; i++)
				refresh_locked(sf->f[i]);
		}
	while (k)
		complete_one_locked(v[--k]);
	if (v != small)
		free(v);
}

static void complete_one_locked(struct sync_file *sf)
{
	if (sf->written)
		return;
	int32_t st = file_status_cached(sf);
	if (st == 0)
		return;
	struct fence_record rec = { .error = st < 0 ? st : 0, .ts = 0 };
	for (uint32_t i = 0; i < sf->n; i++)
		if (sf->f[i]->ts > rec.ts)
			rec.ts = sf->f[i]->ts;
	if (send(sf->keep, &rec, sizeof(rec), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(rec) || errno == EPIPE)
		sf->written = true;
}

/* Polls the fences of incomplete files (and the kept ends, to collect closed files). */
static void *watcher(void *unused)
{
	(void)unused;
	struct pollfd *p = NULL;
	size_t cap = 0;
	for (;;) {
		pthread_mutex_lock(&sf_lock);
		collect_locked();
		complete_locked();
		size_t n = 1;
		for (struct sync_file *sf = files; sf; sf = sf->next)
			n += 1 + (sf->written ? 0 : sf->n);
		if (n > cap) {
			struct pollfd *np = realloc(p, n * sizeof(*p));
			if (!np) {
				sf_unlock();
				shim_log(true, "sync file watcher: out of memory");
				sleep(1);
				continue;
			}
			p = np;
			cap = n;
		}
		n = 0;
		p[n++] = (struct pollfd){ .fd = wake_fds[0], .events = POLLIN };
		for (struct sync_file *sf = files; sf; sf = sf->next) {
			p[n++] = (struct pollfd){ .fd = sf->keep, .events = 0 };
			for (uint32_t i = 0; !sf->written && i < sf->n; i++)
				if (!sf->f[i]->signaled)
					p[n++] = (struct pollfd){ .fd = sf->f[i]->rd, .events = POLLIN };
		}
		sf_unlock();
		poll(p, n, -1);
		if (p[0].revents & POLLIN) {
			char buf[64];
			while (read(wake_fds[0], buf, sizeof(buf)) > 0)
				;
		}
	}
	return NULL;
}

/* Starts this process's watcher if needed and wakes it (sf_lock held). */
static int wake_locked(void)
{
	if (!watcher_running) {
		if (wake_fds[0] < 0 && pipe2(wake_fds, O_CLOEXEC | O_NONBLOCK) < 0)
			return -errno;
		int r = sim_thread_spawn_detached(watcher, NULL);
		if (r != 0)
			return -r;
		watcher_running = true;
	}
	ssize_t w = write(wake_fds[1], "", 1);
	(void)w; /* a full pipe already wakes it */
	return 0;
}

/* Binds the program's end of a new file to a name no other socket has: this process's id and a
 * counter starting at a random value (processes of other pid namespaces share the names). */
static void name_seed(void)
{
	uint64_t r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint64_t)now_ns();
	__atomic_store_n(&next_name, r, __ATOMIC_RELAXED);
}

static int name_file(int fd)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, name_seed);
	for (int tries = 0; tries < 8; tries++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		uint64_t k = __atomic_fetch_add(&next_name, 1, __ATOMIC_RELAXED);
		int len = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%s%ld/%016llx", name_prefix, (long)getpid(),
				   (unsigned long long)k);
		if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) == 0)
			return 0;
		if (errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

/* A new file over fences[0..n) (references taken over; freed on failure). */
static int file_new(struct shim_fence **fences, uint32_t n, const char *name, uint64_t array_ctx)
{
	struct sync_file *sf = calloc(1, sizeof(*sf));
	int fds[2] = { -1, -1 };
	struct stat st;
	int err = -ENOMEM;
	if (!sf)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0 || fstat(fds[0], &st) < 0) {
		err = -errno;
		goto fail;
	}
	if ((err = name_file(fds[0])) < 0) {
		/* A sandbox may forbid abstract sockets: the file still works in this process. */
		static bool said;
		if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
			shim_log(true, "sync file: no socket name (%s): other processes cannot take these files",
				 strerror(-err));
	}
	sf->dev = st.st_dev;
	sf->ino = st.st_ino;
	sf->keep = fds[1];
	sf->f = fences;
	sf->n = n;
	sf->array_ctx = array_ctx;
	snprintf(sf->name, sizeof(sf->name), "%s", name);
	pthread_mutex_lock(&sf_lock);
	collect_locked();
	sf->next = files;
	files = sf;
	complete_locked();
	err = sf->written ? 0 : wake_locked();
	if (err < 0) {
		files = sf->next;
		free(sf);
		sf = NULL;
	}
	if (err < 0) {
		for (uint32_t i = 0; i < n; i++)
			put_locked(fences[i]);
		free(fences);
	}
	sf_unlock();
	if (err < 0) {
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	return fds[0];
fail:
	free(sf);
	if (fds[0] >= 0) {
		close(fds[0]);
		close(fds[1]);
	}
	shim_sync_file_fences_free(fences, n);
	return err;
}

int shim_sync_file_create(struct shim_fence *f)
{
	struct shim_fence **a = malloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	if (f) {
		pthread_mutex_lock(&sf_lock);
		f->refs++;
		sf_unlock();
		a[0] = f;
	} else if (!(a[0] = stub_new())) {
		free(a);
		return -ENOMEM;
	}
	return file_new(a, 1, "", 0);
}

static struct sync_file *find_locked(int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return NULL;
	struct sync_file *sf = files;
	while (sf && (sf->ino != st.st_ino || sf->dev != st.st_dev))
		sf = sf->next;
	return sf;
}

/* A sync file of another process: its program's end carries that process's name for it. */
static bool is_foreign_file(int fd)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	size_t plen = sizeof(name_prefix) - 1;
	int type = 0;
	socklen_t tlen = sizeof(type);
	return getsockname(fd, (struct sockaddr *)&a, &len) == 0 && a.sun_family == AF_UNIX &&
	       len > offsetof(struct sockaddr_un, sun_path) + 1 + plen && a.sun_path[0] == '\0' &&
	       memcmp(a.sun_path + 1, name_prefix, plen) == 0 &&
	       getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 && type == SOCK_STREAM;
}

static const struct shim_fence_ops foreign_ops = { .driver = "ferry" };

/* Another process's file as one fence of its own context whose record is the file's: a copy of
 * the fd keeps the file alive there while a fence here uses it, so while it lives no other
 * socket has its inode, and the same file gives the same fence (merges keep it once, as the
 * kernel keeps a fence once) (sf_lock held). */
static struct shim_fence *foreign_new_locked(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return NULL;
	for (struct shim_fence *g = all_fences; g; g = g->next_all) {
		if (g->ops == &foreign_ops && g->fdev == st.st_dev && g->fino == st.st_ino) {
			g->refs++;
			return g;
		}
	}
	struct shim_fence *f = calloc(1, sizeof(*f));
	int rd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (!f || rd < 0) {
		free(f);
		if (rd >= 0)
			close(rd);
		return NULL;
	}
	f->refs = 1;
	f->ops = &foreign_ops;
	f->rd = rd;
	f->wr = -1;
	f->fdev = st.st_dev;
	f->fino = st.st_ino;
	snprintf(f->timeline, sizeof(f->timeline), "imported");
	/* Backend keys are addresses, which never have the top bit set in user space. */
	f->context = context_get_locked(++next_foreign | 1ull << 63);
	f->next_all = all_fences;
	all_fences = f;
	return f;
}

/* The file fd names: this process's, or another's as a one-fence file in *tmp (its fence
 * released with lookup_done). NULL with *err -EINVAL when fd is no sync file (sf_lock held). */
static struct sync_file *lookup_locked(int fd, struct sync_file *tmp, struct shim_fence **slot, int *err)
{
	struct sync_file *sf = find_locked(fd);
	*slot = NULL;
	*err = -EINVAL;
	if (sf)
		return sf;
	if (fd < 0 || !is_foreign_file(fd))
		return NULL;
	if (!(*slot = foreign_new_locked(fd))) {
		*err = -ENOMEM;
		return NULL;
	}
	*tmp = (struct sync_file){ .n = 1, .f = slot, .written = true, .keep = -1 };
	return tmp;
}

static void lookup_done_locked(struct shim_fence *slot)
{
	if (slot)
		put_locked(slot);
}

int shim_sync_file_fences(int fd, struct shim_fence ***out, uint32_t *n)
{
	pthread_mutex_lock(&sf_lock);
	struct sync_file tmp, *sf;
	struct shim_fence *slot;
	int err;
	struct shim_fence **a = NULL;
	if ((sf = lookup_locked(fd, &tmp, &slot, &err)) && !(a = calloc(sf->n, sizeof(*a))))
		err = -ENOMEM;
	if (a) {
		for (uint32_t i = 0; i < sf->n; i++) {
			a[i] = sf->f[i];
			a[i]->refs++;
		}
		*n = sf->n;
	}
	lookup_done_locked(slot);
	sf_unlock();
	*out = a;
	return a ? 0 : err;
}

void shim_sync_file_fences_free(struct shim_fence **f, uint32_t n)
{
	pthread_mutex_lock(&sf_lock);
	for (uint32_t i = 0; f && i < n; i++)
		if (f[i])
			put_locked(f[i]);
	sf_unlock();
	free(f);
}

/* ---- the ioctls ---- */

static int cmp_context(const void *a, const void *b)
{
	const struct shim_fence *x = *(struct shim_fence *const *)a, *y = *(struct shim_fence *const *)b;
	return x->context < y->context ? -1 : x->context > y->context;
}

/* sync_file_merge as 6.1's dma_fence_unwrap_merge: the fences of both not yet signaled, one per
 * context (the later seqno), by context; none left: the signaled stub (so an error of a fence
 * that signaled before the merge does not reach the merged file, as in 6.1). */
static int merge(struct sync_file *a, int fd2, struct sync_merge_data *d)
{
	if (d->flags || d->pad)
		return -EINVAL;
	struct sync_file tmp, *b;
	struct shim_fence *slot;
	int err;
	if (!(b = lookup_locked(fd2, &tmp, &slot, &err)))
		return err == -EINVAL ? -ENOENT : err;
	struct shim_fence **all = calloc((size_t)a->n + b->n + 1, sizeof(*all));
	if (!all || (uint64_t)a->n + b->n > 0x7fffffffu) {
		free(all);
		lookup_done_locked(slot);
		return -ENOMEM;
	}
	uint32_t n = 0;
	for (uint32_t k = 0; k < a->n + b->n; k++) {
		struct shim_fence *f = k < a->n ? a->f[k] : b->f[k - a->n];
		if (refresh_locked(f))
			continue;
		uint32_t j = 0;
		while (j < n && all[j]->context != f->context)
			j++;
		if (j == n)
			all[n++] = f;
		else if ((int32_t)(f->seqno - all[j]->seqno) > 0)
			all[j] = f;
	}
	qsort(all, n, sizeof(*all), cmp_context);
	for (uint32_t k = 0; k < n; k++)
		all[k]->refs++;
	lookup_done_locked(slot);
	char name[sizeof(d->name)];
	memcpy(name, d->name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	uint64_t ctx = n > 1 ? next_array_ctx++ : 0;
	sf_unlock();
	if (n == 0 && !(all[n++] = stub_new())) {
		free(all);
		pthread_mutex_lock(&sf_lock);
		return -ENOMEM;
	}
	int fd = file_new(all, n, name, ctx);
	pthread_mutex_lock(&sf_lock);
	if (fd < 0)
		return fd;
	d->fence = fd;
	return 0;
}

static void fence_info_locked(struct shim_fence *f, struct sync_fence_info *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->obj_name, sizeof(o->obj_name), "%s", f->timeline);
	snprintf(o->driver_name, sizeof(o->driver_name), "%s", f->ops ? f->ops->driver : "stub");
	o->status = refresh_locked(f) ? (f->error < 0 ? f->error : 1) : 0;
	o->timestamp_ns = f->signaled ? (uint64_t)f->ts : 0;
}

/* sync_file_ioctl_fence_info: num_fences 0 asks for the count (and the status of the whole);
 * otherwise it must hold every fence, and the status is the first one not signaled cleanly. */
static int file_info(struct sync_file *sf, struct sync_file_info *info)
{
	if (info->flags || info->pad)
		return -EINVAL;
	if (!info->num_fences) {
		info->status = file_status_locked(sf);
	} else {
		if (info->num_fences < sf->n)
			return -EINVAL;
		struct sync_fence_info *out = (struct sync_fence_info *)(uintptr_t)info->sync_fence_info;
		if (!out)
			return -EFAULT;
		info->status = 1;
		for (uint32_t i = 0; i < sf->n; i++) {
			fence_info_locked(sf->f[i], &out[i]);
			if (info->status > 0)
				info->status = out[i].status;
		}
	}
	if (sf->name[0]) {
		snprintf(info->name, sizeof(info->name), "%s", sf->name);
	} else if (sf->n > 1) {
		snprintf(info->name, sizeof(info->name), "dma_fence_array-unbound%llu-1",
			 (unsigned long long)sf->array_ctx);
	} else {
		/* Cut to the 31 bytes of the field, as the kernel's snprintf into it. */
		struct shim_fence *f = sf->f[0];
		char buf[128];
		snprintf(buf, sizeof(buf), "%s-%s%llu-%lld", f->ops ? f->ops->driver : "stub", f->timeline,
			 (unsigned long long)f->context, (long long)f->seqno);
		size_t len = strnlen(buf, sizeof(info->name) - 1);
		memcpy(info->name, buf, len);
		info->name[len] = '\0';
	}
	info->num_fences = sf->n;
	return 0;
}

int shim_sync_file_ioctl(int fd, unsigned long request, void *arg, int *ret)
{
	if (_IOC_TYPE(request) != SYNC_IOC_MAGIC || (request != SYNC_IOC_MERGE && request != SYNC_IOC_FILE_INFO))
		return 0;
	pthread_mutex_lock(&sf_lock);
	struct sync_file tmp, *sf;
	struct shim_fence *slot;
	int err;
	if (!(sf = lookup_locked(fd, &tmp, &slot, &err))) {
		sf_unlock();
		if (err == -EINVAL)
			return 0;
		*ret = err;
		return 1;
	}
	if (!arg) {
		*ret = -EFAULT;
	} else if (request == SYNC_IOC_MERGE) {
		struct sync_merge_data d;
		memcpy(&d, arg, sizeof(d));
		*ret = merge(sf, d.fd2, &d);
		if (*ret == 0)
			memcpy(arg, &d, sizeof(d));
	} else {
		struct sync_file_info i;
		memcpy(&i, arg, sizeof(i));
		*ret = file_info(sf, &i);
		if (*ret == 0)
			memcpy(arg, &i, sizeof(i));
	}
	lookup_done_locked(slot);
	sf_unlock();
	return 1;
}
