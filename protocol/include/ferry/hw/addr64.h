/* 64-bit GPU addresses split over two 32-bit words (low first), as PM4 payloads, a6xx register
 * pairs and capture records carry them: the one helper every reader and rewriter uses. */
#ifndef FERRY_HW_ADDR64_H
#define FERRY_HW_ADDR64_H

#include <stdint.h>

static inline uint64_t hw_addr64(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

/* The address in p[0] (low) and p[1] (high). */
static inline uint64_t hw_addr64_at(const uint32_t *p)
{
	return hw_addr64(p[0], p[1]);
}

static inline uint32_t hw_addr64_lo(uint64_t addr) { return (uint32_t)addr; }
static inline uint32_t hw_addr64_hi(uint64_t addr) { return (uint32_t)(addr >> 32); }

static inline void hw_addr64_put(uint32_t *p, uint64_t addr)
{
	p[0] = (uint32_t)addr;
	p[1] = (uint32_t)(addr >> 32);
}

#endif
