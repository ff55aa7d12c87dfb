/* The pages of a simulated BO as both simulators keep them: a size-sealed memfd mapped once into
 * the host, mapped again for kdev mmap, and dup'd for PRIME export. */
#ifndef FERRY_SIM_BO_MEMFD_H
#define FERRY_SIM_BO_MEMFD_H

#include <stddef.h>
#include <stdint.h>

/* Creates size bytes (page-rounded by the caller) named name, sealed against shrinking and
 * growing, and maps them shared read-write. Returns 0 with *memfd and *map set, or a negative
 * errno with nothing left open. */
int sim_bo_memfd_create(const char *name, uint64_t size, int *memfd, uint8_t **map);
/* Undoes sim_bo_memfd_create. */
void sim_bo_memfd_release(int memfd, uint8_t *map, uint64_t size);
/* kdev mmap of a BO of size bytes: len must be in (0, size]; MAP_FAILED with errno on failure. */
void *sim_bo_memfd_mmap(int memfd, uint64_t size, size_t len, int prot, int flags);
/* PRIME_HANDLE_TO_FD: checks the ioctl's flags and sets *fd to a close-on-exec dup of memfd.
 * memfd < 0 means no such handle. Returns 0 or a negative errno as the kernel does. */
int sim_bo_memfd_export(int memfd, uint32_t flags, int32_t *fd);

#endif
