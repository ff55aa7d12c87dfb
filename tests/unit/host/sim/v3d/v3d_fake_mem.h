/* A fake V3D address space for CLE tests: a few buffers at fixed GPU addresses; an access not
 * entirely inside one of them is an MMU fault (-EFAULT), as struct v3d_cle_mem specifies. */
#ifndef FERRY_TEST_V3D_FAKE_MEM_H
#define FERRY_TEST_V3D_FAKE_MEM_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "v3d_cle.h"

#define FAKE_MAX_BOS 12

struct fake_bo {
	uint32_t addr, size;
	uint8_t *data;
};

struct fake_mem {
	struct fake_bo bos[FAKE_MAX_BOS];
	unsigned count;
	unsigned reads, writes;
};

static inline uint8_t *fake_bo_add(struct fake_mem *m, uint32_t addr, uint32_t size)
{
	if (m->count >= FAKE_MAX_BOS)
		abort();
	struct fake_bo *bo = &m->bos[m->count++];
	bo->addr = addr;
	bo->size = size;
	bo->data = calloc(1, size);
	if (!bo->data)
		abort();
	return bo->data;
}

static inline void fake_mem_free(struct fake_mem *m)
{
	for (unsigned i = 0; i < m->count; i++)
		free(m->bos[i].data);
	m->count = 0;
}

static inline uint8_t *fake_find(struct fake_mem *m, uint32_t addr, uint32_t len)
{
	for (unsigned i = 0; i < m->count; i++) {
		struct fake_bo *bo = &m->bos[i];
		if (addr >= bo->addr && (uint64_t)addr + len <= (uint64_t)bo->addr + bo->size)
			return bo->data + (addr - bo->addr);
	}
	return NULL;
}

static inline int fake_read(void *ctx, uint32_t addr, void *dst, uint32_t len)
{
	struct fake_mem *m = ctx;
	uint8_t *p = fake_find(m, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(dst, p, len);
	m->reads++;
	return 0;
}

static inline int fake_write(void *ctx, uint32_t addr, const void *src, uint32_t len)
{
	struct fake_mem *m = ctx;
	uint8_t *p = fake_find(m, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(p, src, len);
	m->writes++;
	return 0;
}

static inline struct v3d_cle_mem fake_mem_iface(struct fake_mem *m)
{
	return (struct v3d_cle_mem){ m, fake_read, fake_write };
}

/* Runs a list to completion (or a stop) with a generous packet budget per call. */
static inline enum v3d_cle_status run_until_stop(struct v3d_cle *cle, const struct v3d_cle_mem *mem,
						 uint32_t budget, unsigned max_calls)
{
	enum v3d_cle_status st = V3D_CLE_YIELD;
	for (unsigned i = 0; i < max_calls && st == V3D_CLE_YIELD; i++)
		st = v3d_cle_run(cle, mem, budget);
	return st;
}

#endif
