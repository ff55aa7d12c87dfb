/* Per-context BO table keyed by client-chosen ids, and BO references. An id is only ever looked up
 * in its own context's table, so another context's or another client's id is -ENOENT and never
 * reaches the kernel. What a BO leaving the table or its last reference means is the owner's
 * (the hooks given to bo_table_init). */
#include <errno.h>
#include <stdlib.h>

#include "host_types.h"

static uint32_t bucket_of(const struct bo_table *t, uint32_t id)
{
	return (id * 2654435761u) & (t->nbuckets - 1);
}

int bo_table_init(struct bo_table *t, bo_table_hook removed, bo_table_hook released, void *arg)
{
	t->removed = removed;
	t->released = released;
	t->arg = arg;
	t->nbuckets = 64;
	t->count = 0;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	return t->buckets ? 0 : -ENOMEM;
}

void bo_table_fini(struct bo_table *t)
{
	for (uint32_t i = 0; i < t->nbuckets && t->buckets; i++) {
		struct host_bo *bo = t->buckets[i];
		while (bo) {
			struct host_bo *next = bo->hash_next;
			bo->hash_next = NULL;
			t->removed(t->arg, bo);
			bo_unref(bo);
			bo = next;
		}
	}
	free(t->buckets);
	t->buckets = NULL;
	t->count = 0;
}

struct host_bo *bo_table_find(const struct bo_table *t, uint32_t id)
{
	for (struct host_bo *bo = t->buckets[bucket_of(t, id)]; bo; bo = bo->hash_next)
		if (bo->id == id)
			return bo;
	return NULL;
}

static int grow(struct bo_table *t)
{
	uint32_t n = t->nbuckets * 2;
	struct host_bo **b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	struct bo_table nt = *t;
	nt.buckets = b;
	nt.nbuckets = n;
	for (uint32_t i = 0; i < t->nbuckets; i++) {
		struct host_bo *bo = t->buckets[i];
		while (bo) {
			struct host_bo *next = bo->hash_next;
			uint32_t k = bucket_of(&nt, bo->id);
			bo->hash_next = b[k];
			b[k] = bo;
			bo = next;
		}
	}
	free(t->buckets);
	*t = nt;
	return 0;
}

int bo_table_insert(struct bo_table *t, struct host_bo *bo)
{
	if (t->count >= t->nbuckets && grow(t) < 0)
		return -ENOMEM;
	uint32_t k = bucket_of(t, bo->id);
	bo->hash_next = t->buckets[k];
	t->buckets[k] = bo;
	bo->table = t;
	t->count++;
	return 0;
}

void bo_table_remove(struct bo_table *t, struct host_bo *bo)
{
	struct host_bo **p = &t->buckets[bucket_of(t, bo->id)];
	for (; *p; p = &(*p)->hash_next) {
		if (*p == bo) {
			*p = bo->hash_next;
			bo->hash_next = NULL;
			t->count--;
			t->removed(t->arg, bo);
			return;
		}
	}
}

void bo_ref(struct host_bo *bo)
{
	bo->refs++;
}

void bo_unref(struct host_bo *bo)
{
	if (--bo->refs == 0)
		bo->table->released(bo->table->arg, bo);
}
