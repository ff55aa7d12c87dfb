/* The per-context shadow pool: chunks of host-private kernel BOs (the backend's shadow_bo_ops) in
 * six size classes (4 KiB to 4 MiB), bump-allocated by one submit at a time and shared by the
 * submits that follow while room is left, recycled when the last of them retires, and destroyed
 * when they stay unused beyond the pool's reserve. */
#include "shadow_pool.h"

#include <ferry/errno_text.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry/array.h"

#define SHADOW_MIN_SHIFT   12u /* 4 KiB */
#define SHADOW_NR_CLASSES  6u  /* x4 each: 4 KiB .. 4 MiB, the largest IB (0xfffff dwords) fits */
/* Later chunks of one submit grow a class each (many small draw-state copies then need few
 * BOs), up to this class (1 MiB). */
#define SHADOW_GROW_MAX_CLASS 4u
/* A chunk of its own (cfg.oversize), closed instead of recycled. */
#define SHADOW_OVERSIZE_CLASS SHADOW_NR_CLASSES
#define SHADOW_PAGE 4096u

struct shadow_chunk {
	struct shadow_chunk *next_free;
	uint32_t handle;
	uint32_t cls;
	uint64_t iova;
	uint8_t *map;
	uint32_t size, used;
	/* Sets holding it, plus one while it is the pool's open chunk: recycled at 0. Carves only
	 * ever grow used, so the shadows of every holder stay apart. */
	uint32_t refs;
	int64_t freed_ns; /* when it was last recycled: free lists are newest first */
};

struct shadow_fifo {
	struct shadow_set *head, *tail;
};

struct shadow_pool {
	struct shadow_pool_config cfg;
	uint64_t bytes;
	uint64_t free_bytes; /* of bytes, on the free lists */
	int64_t trim_due_ns; /* INT64_MAX: nothing above the reserve */
	struct shadow_chunk *free_chunks[SHADOW_NR_CLASSES];
	struct shadow_set *free_sets;
	struct shadow_set *cur; /* the submit being validated */
	/* The last chunk a submit carved from, whose room the next submits use first: a submit of
	 * a few hundred bytes then costs no chunk of its own (thousands of small submits in flight
	 * would otherwise hold a 4 KiB kernel BO each). */
	struct shadow_chunk *open;
	struct shadow_fifo *queues;
	uint32_t nr_queues;
	int last_err;        /* of the last failed carve, negative */
	char last_why[160];
};

/* Records why a carve failed and returns err, so every failure path names its cause. */
static int pool_fail(struct shadow_pool *p, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pool_fail(struct shadow_pool *p, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->last_why, sizeof(p->last_why), fmt, ap);
	va_end(ap);
	p->last_err = err;
	return err;
}

int shadow_pool_last_error(const struct shadow_pool *p, const char **why)
{
	*why = p->last_err ? p->last_why : "no shadow allocation failed";
	return p->last_err;
}

static uint32_t class_size(uint32_t cls)
{
	return 1u << (SHADOW_MIN_SHIFT + 2u * cls);
}

/* Smallest class holding size bytes, or SHADOW_NR_CLASSES if none does. */
static uint32_t class_for(uint32_t size)
{
	for (uint32_t c = 0; c < SHADOW_NR_CLASSES; c++)
		if (size <= class_size(c))
			return c;
	return SHADOW_NR_CLASSES;
}

int shadow_pool_create(const struct shadow_pool_config *cfg, struct shadow_pool **out)
{
	if (!cfg->ops || !cfg->ops->create || !cfg->ops->destroy || !cfg->counters.chunks_created ||
	    !cfg->counters.bytes || cfg->align == 0 || (cfg->align & (cfg->align - 1)) || cfg->align > SHADOW_PAGE ||
	    cfg->idle_ns < 0)
		return -EINVAL;
	struct shadow_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->queues = calloc(cfg->nr_queues ? cfg->nr_queues : 1, sizeof(*p->queues));
	if (!p->queues) {
		free(p);
		return -ENOMEM;
	}
	p->cfg = *cfg;
	p->nr_queues = cfg->nr_queues;
	p->trim_due_ns = INT64_MAX;
	*out = p;
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void uncharge(struct shadow_pool *p, uint32_t size)
{
	if (p->cfg.charge)
		p->cfg.charge(p->cfg.owner, -(int64_t)size, NULL, 0);
}

static void chunk_destroy(struct shadow_pool *p, struct shadow_chunk *c)
{
	p->cfg.ops->destroy(p->cfg.dev, c->handle, c->map, c->size);
	p->bytes -= c->size;
	*p->cfg.counters.bytes -= c->size;
	uncharge(p, c->size);
	free(c);
}

/* *now, read from the clock the first time a caller needs it (0: not yet). */
static int64_t lazy_now(int64_t *now)
{
	if (!*now)
		*now = now_ns();
	return *now;
}

/* Drops one hold on c: the last one recycles it. */
static void chunk_put(struct shadow_pool *p, struct shadow_chunk *c, int64_t *now)
{
	if (--c->refs) {
		/* Only open now: nothing in flight lives in it, so it starts over. */
		if (c->refs == 1 && c == p->open)
			c->used = 0;
		return;
	}
	if (c->cls == SHADOW_OVERSIZE_CLASS) {
		chunk_destroy(p, c);
		return;
	}
	c->used = 0;
	c->freed_ns = lazy_now(now);
	c->next_free = p->free_chunks[c->cls];
	p->free_chunks[c->cls] = c;
	p->free_bytes += c->size;
}

/* More recycled than the reserve: a trim is due once the newest of them sat idle long enough. */
static void schedule_trim(struct shadow_pool *p, int64_t *nowp)
{
	if (!p->cfg.idle_ns || p->free_bytes <= p->cfg.reserve_bytes || p->trim_due_ns != INT64_MAX)
		return;
	int64_t now = lazy_now(nowp);
	p->trim_due_ns = now > INT64_MAX - p->cfg.idle_ns ? INT64_MAX - 1 : now + p->cfg.idle_ns;
	if (p->cfg.trim_due_ns && p->trim_due_ns < *p->cfg.trim_due_ns)
		*p->cfg.trim_due_ns = p->trim_due_ns;
}

/* Returns the set's chunks to the free lists and the set to its free list. */
static void set_recycle(struct shadow_pool *p, struct shadow_set *s)
{
	/* The clock only when a chunk is recycled or a trim scheduled: most sets share a chunk that
	 * others still hold. */
	int64_t now = 0;
	for (uint32_t i = 0; i < s->nr_chunks; i++)
		chunk_put(p, s->chunks[i], &now);
	if (s->nr_chunks)
		schedule_trim(p, &now);
	s->nr_chunks = 0;
	s->nr_cmds = 0;
	s->nr_streams = 0;
	s->next = p->free_sets;
	p->free_sets = s;
}

static void set_free(struct shadow_set *s)
{
	free(s->chunks);
	free(s->handles);
	free(s->cmds);
	free(s->streams);
	free(s);
}

/* The pool stops holding its open chunk. */
static void close_open(struct shadow_pool *p)
{
	struct shadow_chunk *c = p->open;
	if (!c)
		return;
	p->open = NULL;
	int64_t now = 0;
	chunk_put(p, c, &now);
	schedule_trim(p, &now);
}

void shadow_pool_destroy(struct shadow_pool *p)
{
	if (!p)
		return;
	shadow_pool_abort(p);
	for (uint32_t q = 0; q < p->nr_queues; q++)
		shadow_pool_drop_queue(p, q);
	close_open(p);
	while (p->free_sets) {
		struct shadow_set *s = p->free_sets;
		p->free_sets = s->next;
		set_free(s);
	}
	for (uint32_t c = 0; c < SHADOW_NR_CLASSES; c++) {
		while (p->free_chunks[c]) {
			struct shadow_chunk *ch = p->free_chunks[c];
			p->free_chunks[c] = ch->next_free;
			p->free_bytes -= ch->size;
			chunk_destroy(p, ch);
		}
	}
	free(p->queues);
	free(p);
}

int shadow_pool_begin(struct shadow_pool *p)
{
	shadow_pool_abort(p);
	p->last_err = 0; /* a failure is this submit's own */
	struct shadow_set *s = p->free_sets;
	if (s) {
		p->free_sets = s->next;
	} else {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
	}
	s->next = NULL;
	p->cur = s;
	return 0;
}

void shadow_pool_abort(struct shadow_pool *p)
{
	if (p->cur)
		set_recycle(p, p->cur);
	p->cur = NULL;
}

/* A new chunk of class cls, or of size bytes (page multiple) for SHADOW_OVERSIZE_CLASS. */
static int chunk_new(struct shadow_pool *p, uint32_t cls, uint32_t size, struct shadow_chunk **out)
{
	if (cls != SHADOW_OVERSIZE_CLASS)
		size = class_size(cls);
	if (size > p->cfg.max_bytes || p->bytes > p->cfg.max_bytes - size) {
		/* Recycled chunks of other classes may make room. */
		shadow_pool_trim(p, INT64_MAX, 0);
		if (size > p->cfg.max_bytes || p->bytes > p->cfg.max_bytes - size)
			return pool_fail(p, -ENOSPC,
					 "shadow pool full: the context holds %llu of its %llu MiB of shadow copies "
					 "(%u more bytes asked); retry once earlier submits retire",
					 (unsigned long long)p->bytes, (unsigned long long)(p->cfg.max_bytes >> 20), size);
	}
	if (p->cfg.charge) {
		char why[sizeof(p->last_why)] = "";
		int ret = p->cfg.charge(p->cfg.owner, size, why, sizeof(why));
		if (ret < 0)
			return pool_fail(p, ret, "%s", why[0] ? why : strerror(-ret));
	}
	struct shadow_chunk *c = calloc(1, sizeof(*c));
	if (!c) {
		uncharge(p, size);
		return pool_fail(p, -ENOMEM, "shadow chunk: out of memory");
	}
	void *map;
	int ret = p->cfg.ops->create(p->cfg.dev, size, &c->handle, &c->iova, &map);
	if (ret < 0) {
		free(c);
		uncharge(p, size);
		char e[80];
		return pool_fail(p, ret, "shadow BO create: %s", ferry_errno_text(ret, e, sizeof(e)));
	}
	c->map = map;
	c->cls = cls;
	c->size = size;
	p->bytes += size;
	*p->cfg.counters.bytes += size;
	(*p->cfg.counters.chunks_created)++;
	*out = c;
	return 0;
}

/* A chunk with room for size bytes for the current set: its last chunk, else a recycled or new
 * one of the class the request (and the set's growth) calls for. */
static int chunk_for(struct shadow_pool *p, uint32_t size, struct shadow_chunk **out)
{
	struct shadow_set *s = p->cur;
	struct shadow_chunk *last = s->nr_chunks ? s->chunks[s->nr_chunks - 1] : NULL;
	if (last && size <= last->size - last->used) {
		*out = last;
		return 0;
	}
	if (!last && p->open && size <= p->open->size - p->open->used) {
		if (FERRY_ARRAY_RESERVE(s->chunks, s->cap_chunks, 1, 8))
			return pool_fail(p, -ENOMEM, "shadow set: out of memory");
		p->open->refs++;
		s->chunks[s->nr_chunks++] = p->open;
		*out = p->open;
		return 0;
	}
	uint32_t cls = class_for(size);
	if (cls >= SHADOW_NR_CLASSES && !p->cfg.oversize)
		return pool_fail(p, -E2BIG, "shadow copy of %u bytes is larger than the largest shadow BO (%u)",
				 size, class_size(SHADOW_NR_CLASSES - 1));
	if (FERRY_ARRAY_RESERVE(s->chunks, s->cap_chunks, s->nr_chunks + 1, 8))
		return pool_fail(p, -ENOMEM, "shadow set: out of memory");
	if (cls >= SHADOW_NR_CLASSES) {
		uint64_t bytes = ((uint64_t)size + SHADOW_PAGE - 1) & ~(uint64_t)(SHADOW_PAGE - 1);
		if (bytes > UINT32_MAX)
			return pool_fail(p, -E2BIG, "shadow copy of %u bytes is too large", size);
		struct shadow_chunk *c;
		int ret = chunk_new(p, SHADOW_OVERSIZE_CLASS, (uint32_t)bytes, &c);
		if (ret < 0)
			return ret;
		c->refs = 1;
		s->chunks[s->nr_chunks++] = c;
		*out = c;
		return 0;
	}
	if (last) {
		uint32_t grown = last->cls + 1 < SHADOW_GROW_MAX_CLASS ? last->cls + 1 : SHADOW_GROW_MAX_CLASS;
		if (grown > cls)
			cls = grown;
	}
	struct shadow_chunk *c = p->free_chunks[cls];
	if (c) {
		p->free_chunks[cls] = c->next_free;
		p->free_bytes -= c->size;
	} else {
		int ret = chunk_new(p, cls, 0, &c);
		if (ret < 0)
			return ret;
	}
	c->refs = 1;
	s->chunks[s->nr_chunks++] = c;
	*out = c;
	return 0;
}

int shadow_pool_carve(struct shadow_pool *p, uint32_t size, uint64_t *gpu_addr, void **map)
{
	uint32_t align = p->cfg.align;
	if (!p->cur || size == 0 || size > UINT32_MAX - align)
		return pool_fail(p, -EINVAL, "bad shadow request (%u bytes)", size);
	/* Chunks start on a page, and every carve is a multiple of align: all stay aligned. */
	uint32_t aligned = (size + align - 1) & ~(align - 1);
	struct shadow_chunk *c = NULL;
	int ret = chunk_for(p, aligned, &c);
	if (ret < 0)
		return ret;
	*gpu_addr = c->iova + c->used;
	*map = c->map + c->used;
	c->used += aligned;
	return 0;
}

int shadow_pool_alloc(void *pool, uint32_t size, struct pm4v_shadow *out)
{
	uint64_t iova;
	void *map;
	int ret = shadow_pool_carve(pool, size, &iova, &map);
	if (ret < 0)
		return ret;
	out->iova = iova;
	out->map = map;
	return 0;
}

/* A set is handed out: its last chunk, if room is left, is where the next submits carve. */
static void adopt_open(struct shadow_pool *p, struct shadow_set *s)
{
	struct shadow_chunk *c = s->nr_chunks ? s->chunks[s->nr_chunks - 1] : NULL;
	if (!c || c == p->open || c->cls == SHADOW_OVERSIZE_CLASS || c->used >= c->size)
		return;
	close_open(p);
	c->refs++;
	p->open = c;
}

static int fill_handles(struct shadow_set *s)
{
	if (FERRY_ARRAY_RESERVE(s->handles, s->cap_handles, s->nr_chunks, 8))
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nr_chunks; i++)
		s->handles[i] = s->chunks[i]->handle;
	return 0;
}

int shadow_pool_take(struct shadow_pool *p, struct shadow_set **out)
{
	struct shadow_set *s = p->cur;
	if (!s)
		return -EINVAL;
	if (fill_handles(s) < 0)
		return -ENOMEM;
	s->nr_cmds = 0;
	p->cur = NULL;
	adopt_open(p, s);
	*out = s;
	return 0;
}

int shadow_pool_finish(struct shadow_pool *p, const struct pm4v_out_cmd *cmds, uint32_t nr_cmds,
		       struct shadow_set **out)
{
	struct shadow_set *s = p->cur;
	if (!s)
		return -EINVAL;
	if (fill_handles(s) < 0 || FERRY_ARRAY_RESERVE(s->cmds, s->cap_cmds, nr_cmds, 8))
		return -ENOMEM;
	for (uint32_t i = 0; i < nr_cmds; i++) {
		uint32_t k = 0;
		for (; k < s->nr_chunks; k++) {
			const struct shadow_chunk *c = s->chunks[k];
			if (cmds[i].iova >= c->iova && cmds[i].iova - c->iova <= c->used &&
			    cmds[i].size <= c->used - (cmds[i].iova - c->iova))
				break;
		}
		if (k == s->nr_chunks)
			return -EINVAL;
		s->cmds[i] = (struct msm_shadow_cmd){
			.type = cmds[i].type, .bo = k,
			.offset = (uint32_t)(cmds[i].iova - s->chunks[k]->iova), .size = cmds[i].size,
		};
	}
	s->nr_cmds = nr_cmds;
	p->cur = NULL;
	adopt_open(p, s);
	*out = s;
	return 0;
}

int shadow_pool_keep_streams(struct shadow_set *set, const struct pm4v_stream_copy *streams, uint32_t nr)
{
	if (FERRY_ARRAY_RESERVE(set->streams, set->cap_streams, nr, 8))
		return -ENOMEM;
	if (nr)
		memcpy(set->streams, streams, (size_t)nr * sizeof(*streams));
	set->nr_streams = nr;
	return 0;
}

const struct pm4v_stream_copy *shadow_pool_lookup(const struct shadow_pool *p, uint64_t iova)
{
	/* Only at fault time, so a linear scan: shadows of sets in flight never overlap (chunks are
	 * recycled only after their set retired). */
	for (uint32_t q = 0; q < p->nr_queues; q++)
		for (const struct shadow_set *s = p->queues[q].head; s; s = s->next)
			for (uint32_t i = 0; i < s->nr_streams; i++) {
				const struct pm4v_stream_copy *c = &s->streams[i];
				if (iova >= c->shadow_iova && iova - c->shadow_iova < c->size)
					return c;
			}
	return NULL;
}

void shadow_pool_queue(struct shadow_pool *p, struct shadow_set *set, uint32_t queue, uint32_t seqno)
{
	if (queue >= p->nr_queues) {
		set_recycle(p, set); /* cannot happen: queue ids are checked before */
		return;
	}
	set->queue = queue;
	set->seqno = seqno;
	set->next = NULL;
	struct shadow_fifo *f = &p->queues[queue];
	if (f->tail)
		f->tail->next = set;
	else
		f->head = set;
	f->tail = set;
}

void shadow_pool_release(struct shadow_pool *p, struct shadow_set *set)
{
	set_recycle(p, set);
}

void shadow_pool_retire(struct shadow_pool *p, uint32_t queue, uint32_t seqno)
{
	if (queue >= p->nr_queues)
		return;
	struct shadow_fifo *f = &p->queues[queue];
	/* Wrap-aware "set->seqno <= seqno", as ferry_seqno_passed. */
	while (f->head && (int32_t)(seqno - f->head->seqno) >= 0) {
		struct shadow_set *s = f->head;
		f->head = s->next;
		if (!f->head)
			f->tail = NULL;
		set_recycle(p, s);
	}
}

void shadow_pool_drop_queue(struct shadow_pool *p, uint32_t queue)
{
	if (queue >= p->nr_queues)
		return;
	struct shadow_fifo *f = &p->queues[queue];
	while (f->head) {
		struct shadow_set *s = f->head;
		f->head = s->next;
		set_recycle(p, s);
	}
	f->tail = NULL;
}

int64_t shadow_pool_trim(struct shadow_pool *p, int64_t now_ns, uint64_t keep)
{
	int64_t next = INT64_MAX;
	/* Unused memory is due back: so is the open chunk, once no set in flight holds it (the
	 * next submit takes a recycled chunk instead, no dearer). */
	if (p->open && p->open->refs == 1)
		close_open(p);
	/* Largest classes first: the most memory back for the fewest kernel calls. */
	for (uint32_t cls = SHADOW_NR_CLASSES; cls-- > 0;) {
		for (struct shadow_chunk **pc = &p->free_chunks[cls]; *pc;) {
			struct shadow_chunk *c = *pc;
			if (p->free_bytes <= keep)
				break;
			/* freed_ns <= now_ns always (one clock), so the difference cannot overflow. */
			if (now_ns - c->freed_ns < p->cfg.idle_ns) {
				int64_t due = c->freed_ns + p->cfg.idle_ns;
				if (due < next)
					next = due;
				pc = &c->next_free;
				continue;
			}
			*pc = c->next_free;
			p->free_bytes -= c->size;
			chunk_destroy(p, c);
		}
	}
	if (p->free_bytes <= p->cfg.reserve_bytes || !p->cfg.idle_ns)
		next = INT64_MAX;
	p->trim_due_ns = next;
	if (next != INT64_MAX && p->cfg.trim_due_ns && next < *p->cfg.trim_due_ns)
		*p->cfg.trim_due_ns = next;
	return next;
}
