/* A context's BO table (bo_table.c): BOs by guest id, with their reference counts. */
#ifndef FERRY_HOST_BO_TABLE_H
#define FERRY_HOST_BO_TABLE_H

#include <stdint.h>

struct host_bo;

/* The owner's hooks: removed, bo left the table (closed, or the table is going); released, its
 * last reference went (the owner closes and frees it). */
typedef void (*bo_table_hook)(void *arg, struct host_bo *bo);

struct bo_table {
	struct host_bo **buckets;
	uint32_t nbuckets, count;
	bo_table_hook removed, released;
	void *arg;
};

int bo_table_init(struct bo_table *t, bo_table_hook removed, bo_table_hook released, void *arg);
/* Removes every BO and drops the table's reference of it. */
void bo_table_fini(struct bo_table *t);
struct host_bo *bo_table_find(const struct bo_table *t, uint32_t id);
int bo_table_insert(struct bo_table *t, struct host_bo *bo);
void bo_table_remove(struct bo_table *t, struct host_bo *bo);
void bo_ref(struct host_bo *bo);
void bo_unref(struct host_bo *bo);

#endif
