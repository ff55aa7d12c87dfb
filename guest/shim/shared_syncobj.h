/* Opaque syncobj fds that work in every process they reach, for both libraries: the fd is a
 * datagram socket connected to itself whose one queued message is the syncobj's state (its fence
 * as a sync file fd, or none), so the state lives as long as any process holds the fd, as a
 * kernel syncobj lives as long as its file. */
#ifndef FERRY_SHIM_SHARED_SYNCOBJ_H
#define FERRY_SHIM_SHARED_SYNCOBJ_H

#include <stdbool.h>
#include <stdint.h>

/* A new shared syncobj fd (O_CLOEXEC) with no fence, or -errno. */
int shim_shared_syncobj_new(void);
/* fd is a shared syncobj fd (of any process): a self-connected unix datagram socket holding a
 * state record. What it holds is still checked by every read. */
bool shim_shared_syncobj_is(int fd);
/* The state, when its generation is not known_gen: 1 with *gen and *sync_fd (a sync file fd the
 * caller closes, or -1: no fence); 0 when unchanged; -errno when fd holds no valid record (a
 * record another process wrote is checked: a bad one is -EPROTO) or a writer never put it back
 * (-EBUSY after a bounded wait). */
int shim_shared_syncobj_read(int fd, uint64_t known_gen, uint64_t *gen, int *sync_fd);
/* Replaces the state with sync_fd's fence (-1: no fence); *gen gets the new generation. */
int shim_shared_syncobj_write(int fd, int sync_fd, uint64_t *gen);

#endif
