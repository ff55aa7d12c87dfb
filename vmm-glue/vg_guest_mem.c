/* Guest-backed resources: the iovecs QEMU attaches (pointers into its mapping of guest RAM,
 * valid until detach) and every copy to and from them, including the 3-way merge that keeps a
 * BO's guest pages and its host pages in step. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ferry/array.h"
#include "vg.h"

pthread_mutex_t vg_mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* Resource ids come from the guest: a hash table, so a guest with many cannot make lookups slow
 * for the others beyond the chain its own ids share. */
#define RES_BUCKETS 1024u
static struct vg_res *buckets[RES_BUCKETS];

/* Context ids come back: the guest kernel hands a destroyed one to the next process at once,
 * while work of the old context may still wait in the worker's queue. An attachment is to one
 * life of a context (its key: an epoch the main thread gives it at creation, and its id), so
 * that work finds nothing of the new one's. */
struct ctx_life {
	uint32_t ctx, epoch;
	struct ctx_life *next;
};
static struct ctx_life *lives;
static uint32_t last_epoch;


static struct vg_res **slot(uint32_t id)
{
	struct vg_res **pp = &buckets[(id * 2654435761u) >> 22];
	while (*pp && (*pp)->id != id)
		pp = &(*pp)->next;
	return pp;
}

struct vg_res *vg_res_find_locked(uint32_t id)
{
	return *slot(id);
}

int vg_res_create(uint32_t id, uint64_t size)
{
	if (id == 0)
		return EINVAL;
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res **pp = slot(id);
	int r = 0;
	if (*pp) {
		r = EINVAL; /* virglrenderer refuses an id in use */
	} else if (!(*pp = calloc(1, sizeof(**pp)))) {
		r = ENOMEM;
	} else {
		(*pp)->id = id;
		(*pp)->size = size;
		(*pp)->blob_fd = -1;
	}
	pthread_mutex_unlock(&vg_mem_lock);
	return r;
}

static void drop_linear(struct vg_res *r)
{
	if (r->lin && r->lin_owned)
		munmap(r->lin, r->lin_len);
	r->lin = NULL;
	r->lin_len = 0;
	r->lin_owned = false;
}

static void res_free(struct vg_res *r)
{
	drop_linear(r);
	if (r->map)
		munmap(r->map, r->size);
	if (r->blob_fd >= 0)
		close(r->blob_fd);
	free(r->ctxs);
	free(r);
}

int vg_res_create_blob(uint32_t id, int fd, uint64_t size)
{
	int r = vg_res_create(id, size);
	if (r) {
		close(fd);
		return r;
	}
	pthread_mutex_lock(&vg_mem_lock);
	vg_res_find_locked(id)->blob_fd = fd;
	pthread_mutex_unlock(&vg_mem_lock);
	return 0;
}

int vg_res_map(uint32_t id, void **map, uint64_t *size)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(id);
	int e = !r || r->blob_fd < 0 ? -EINVAL : 0;
	if (e == 0 && !r->map) {
		void *m = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->blob_fd, 0);
		if (m == MAP_FAILED)
			e = -errno;
		else
			r->map = m;
	}
	if (e == 0) {
		*map = r->map;
		*size = r->size;
	}
	pthread_mutex_unlock(&vg_mem_lock);
	return e;
}

int vg_res_unmap(uint32_t id)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(id);
	int e = !r || !r->map ? -EINVAL : 0;
	if (e == 0) {
		munmap(r->map, r->size);
		r->map = NULL;
	}
	pthread_mutex_unlock(&vg_mem_lock);
	return e;
}

int vg_res_export(uint32_t id, int *fd)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(id);
	int e = !r || r->blob_fd < 0 ? -EINVAL : 0;
	if (e == 0 && (*fd = fcntl(r->blob_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		e = -errno;
	pthread_mutex_unlock(&vg_mem_lock);
	return e;
}

void vg_res_unref(uint32_t id)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res **pp = slot(id);
	struct vg_res *r = *pp;
	if (r) {
		*pp = r->next;
		res_free(r);
	}
	pthread_mutex_unlock(&vg_mem_lock);
}

void vg_res_free_all(void)
{
	pthread_mutex_lock(&vg_mem_lock);
	for (uint32_t b = 0; b < RES_BUCKETS; b++) {
		while (buckets[b]) {
			struct vg_res *r = buckets[b];
			buckets[b] = r->next;
			res_free(r);
		}
	}
	while (lives) {
		struct ctx_life *l = lives;
		lives = l->next;
		free(l);
	}
	pthread_mutex_unlock(&vg_mem_lock);
}

int vg_res_attach_iov(uint32_t id, struct iovec *iov, int niov)
{
	if (niov < 0 || (niov > 0 && !iov))
		return EINVAL;
	uint64_t total = 0;
	for (int i = 0; i < niov; i++) {
		if (iov[i].iov_len > UINT64_MAX - total)
			return EINVAL;
		total += iov[i].iov_len;
	}
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(id);
	int e = 0;
	if (!r || r->iov)
		e = EINVAL;
	else
		r->iov = iov, r->niov = niov, r->iov_bytes = total;
	pthread_mutex_unlock(&vg_mem_lock);
	return e;
}

void vg_res_detach_iov(uint32_t id, struct iovec **iov, int *niov)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(id);
	if (iov)
		*iov = r ? r->iov : NULL;
	if (niov)
		*niov = r ? r->niov : 0;
	if (r) {
		drop_linear(r); /* QEMU may hand these pages back to the guest right after */
		r->iov = NULL, r->niov = 0, r->iov_bytes = 0;
	}
	pthread_mutex_unlock(&vg_mem_lock);
}

int vg_res_linear_locked(struct vg_res *r, size_t len, void **map, uint64_t *gen)
{
	static uint64_t last_gen;
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (!r || r->blob_fd >= 0 || len == 0 || len % page || len > r->iov_bytes)
		return -EINVAL;
	if (r->lin && r->lin_len >= len) {
		*map = r->lin;
		*gen = r->lin_gen;
		return 0;
	}
	drop_linear(r);
	/* The pieces that hold [0, len): one run of QEMU's mapping is used in place. */
	bool one_run = true;
	size_t done = 0;
	for (int i = 0; i < r->niov && done < len; i++) {
		if (i > 0 && (uint8_t *)r->iov[i - 1].iov_base + r->iov[i - 1].iov_len != r->iov[i].iov_base)
			one_run = false;
		done += r->iov[i].iov_len;
	}
	if (one_run && (uintptr_t)r->iov[0].iov_base % page) {
		return -EINVAL; /* the header's atomics want it aligned; QEMU's pieces are pages */
	} else if (one_run) {
		r->lin = r->iov[0].iov_base;
		r->lin_owned = false;
	} else {
		/* Scattered guest pages: each piece mapped again at its place in a reserved range.
		 * mremap with old size 0 duplicates a mapping, which Linux allows only for shared
		 * ones (QEMU's guest RAM is private unless a shared memory backend was asked for). */
		uint8_t *base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (base == MAP_FAILED)
			return -ENOMEM;
		done = 0;
		int err = 0;
		for (int i = 0; i < r->niov && done < len && !err; i++) {
			size_t n = r->iov[i].iov_len < len - done ? r->iov[i].iov_len : len - done;
			if ((uintptr_t)r->iov[i].iov_base % page || n % page)
				err = -EXDEV;
			else if (mremap(r->iov[i].iov_base, 0, n, MREMAP_MAYMOVE | MREMAP_FIXED, base + done) == MAP_FAILED)
				err = errno == EINVAL ? -EXDEV : -errno;
			done += n;
		}
		if (err) {
			munmap(base, len);
			return err;
		}
		r->lin = base;
		r->lin_owned = true;
	}
	r->lin_len = len;
	r->lin_gen = ++last_gen;
	*map = r->lin;
	*gen = r->lin_gen;
	return 0;
}

static uint64_t key_of(uint32_t ctx, uint32_t epoch)
{
	return (uint64_t)epoch << 32 | ctx;
}

static struct ctx_life **life_slot(uint32_t ctx)
{
	struct ctx_life **pp = &lives;
	while (*pp && (*pp)->ctx != ctx)
		pp = &(*pp)->next;
	return pp;
}

/* vg_mem_lock held: the key of ctx's current life, 0 when it has none. */
static uint64_t key_locked(uint32_t ctx)
{
	struct ctx_life *l = *life_slot(ctx);
	return l ? key_of(ctx, l->epoch) : 0;
}

uint64_t vg_res_ctx_begin(uint32_t ctx)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct ctx_life **pp = life_slot(ctx);
	if (!*pp && (*pp = calloc(1, sizeof(**pp))))
		(*pp)->ctx = ctx;
	uint64_t key = 0;
	if (*pp) {
		if (++last_epoch == 0)
			++last_epoch;
		(*pp)->epoch = last_epoch;
		key = key_of(ctx, last_epoch);
	}
	pthread_mutex_unlock(&vg_mem_lock);
	return key;
}

bool vg_res_attached_locked(const struct vg_res *r, uint64_t key)
{
	for (uint32_t i = 0; key && i < r->nr_ctxs; i++)
		if (r->ctxs[i] == key)
			return true;
	return false;
}

void vg_res_ctx_attach(uint32_t ctx, uint32_t id)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(id);
	uint64_t key = key_locked(ctx);
	if (r && key && !vg_res_attached_locked(r, key)) {
		if (FERRY_ARRAY_RESERVE(r->ctxs, r->cap_ctxs, (size_t)r->nr_ctxs + 1, 2) == 0)
			r->ctxs[r->nr_ctxs++] = key;
	}
	pthread_mutex_unlock(&vg_mem_lock);
}

/* Drops the attachments of ctx (every life, or only key's). */
static void detach_locked(struct vg_res *r, uint32_t ctx, uint64_t key)
{
	for (uint32_t i = 0; i < r->nr_ctxs;) {
		if (key ? r->ctxs[i] == key : (uint32_t)r->ctxs[i] == ctx)
			r->ctxs[i] = r->ctxs[--r->nr_ctxs];
		else
			i++;
	}
}

void vg_res_ctx_detach(uint32_t ctx, uint32_t id)
{
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_res_find_locked(id);
	uint64_t key = key_locked(ctx);
	if (r && key)
		detach_locked(r, ctx, key);
	pthread_mutex_unlock(&vg_mem_lock);
}

void vg_res_ctx_end(uint32_t ctx)
{
	pthread_mutex_lock(&vg_mem_lock);
	for (uint32_t b = 0; b < RES_BUCKETS; b++)
		for (struct vg_res *r = buckets[b]; r; r = r->next)
			detach_locked(r, ctx, 0);
	struct ctx_life **pp = life_slot(ctx);
	if (*pp) {
		struct ctx_life *l = *pp;
		*pp = l->next;
		free(l);
	}
	pthread_mutex_unlock(&vg_mem_lock);
}

/* Calls fn on each piece of [off, off + len) of the resource's pages with the matching offset
 * into the caller's buffer. False when the range is not wholly backed. */
static bool walk(const struct vg_res *r, uint64_t off, size_t len,
		 void (*fn)(void *guest, size_t at, size_t n, void *arg), void *arg)
{
	if (off > r->iov_bytes || len > r->iov_bytes - off)
		return false;
	size_t done = 0;
	for (int i = 0; i < r->niov && done < len; i++) {
		size_t seg = r->iov[i].iov_len;
		if (off >= seg) {
			off -= seg;
			continue;
		}
		size_t n = seg - off < len - done ? seg - off : len - done;
		fn((uint8_t *)r->iov[i].iov_base + off, done, n, arg);
		done += n;
		off = 0;
	}
	return done == len;
}

static void read_piece(void *guest, size_t at, size_t n, void *arg)
{
	memcpy((uint8_t *)arg + at, guest, n);
}

static void write_piece(void *guest, size_t at, size_t n, void *arg)
{
	memcpy(guest, (const uint8_t *)arg + at, n);
}

bool vg_res_read_locked(const struct vg_res *r, uint64_t off, void *dst, size_t len)
{
	return walk(r, off, len, read_piece, dst);
}

bool vg_res_write_locked(const struct vg_res *r, uint64_t off, const void *src, size_t len)
{
	return walk(r, off, len, write_piece, (void *)src);
}

struct merge {
	uint8_t *host, *base;
	uint64_t moved;
};

/* Whole pages (the common case: nothing, or only one side, changed) compare at memcmp speed;
 * only pages both sides touched are merged byte by byte. */
static void merge_piece(void *guest, size_t at, size_t n, void *arg)
{
	struct merge *m = arg;
	uint8_t *g = guest, *h = m->host + at, *b = m->base + at;
	const size_t step = 4096;
	for (size_t o = 0; o < n; o += step) {
		size_t k = n - o < step ? n - o : step;
		bool g_same = memcmp(g + o, b + o, k) == 0;
		bool h_same = memcmp(h + o, b + o, k) == 0;
		if (g_same && h_same)
			continue;
		/* Each side's bytes are read once, into base, and the other side gets base's copy:
		 * whatever either writes meanwhile differs from base afterwards and moves at the next
		 * merge (a GPU write landing between two copies must not make base run ahead of the
		 * guest, or the next merge would take the guest's older bytes for a CPU write). */
		if (g_same) {
			memcpy(b + o, h + o, k);
			memcpy(g + o, b + o, k);
		} else if (h_same) {
			memcpy(b + o, g + o, k);
			memcpy(h + o, b + o, k);
		} else {
			/* Both wrote this page since they last agreed: the guest's bytes win where it
			 * wrote, the host's elsewhere (a CPU and a GPU writing different bytes of one
			 * page, as with a suballocated BO). */
			for (size_t i = o; i < o + k; i++) {
				uint8_t gv = g[i], hv = h[i];
				uint8_t v = gv != b[i] ? gv : hv;
				b[i] = v;
				if (v != hv)
					h[i] = v;
				if (v != gv)
					g[i] = v;
			}
		}
		m->moved += k;
	}
}

uint64_t vg_res_merge_locked(const struct vg_res *r, uint8_t *host, uint8_t *base, size_t off, size_t len)
{
	if (off >= r->iov_bytes)
		return 0;
	if (len > r->iov_bytes - off)
		len = (size_t)(r->iov_bytes - off);
	struct merge m = { host + off, base + off, 0 };
	walk(r, off, len, merge_piece, &m);
	return m.moved;
}
