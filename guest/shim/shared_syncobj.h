/* Opaque syncobj fds that work in every process they reach, for both libraries: the fd is a
 * datagram socket connected to itself whose one queued message is the syncobj's state (its fence
 * as a sync file fd, or none), so the state lives as long as any process holds the fd, as a
 * kernel syncobj lives as long as its file. */
#ifndef FERRY_SHIM_SHARED_SYNCOBJ_H
#define FERRY_SHIM_SHARED_SYNCOBJ_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_syncobj.h" /* SIM_SHARED_FIRST_GEN: what the fake kernel's hooks promise */

/* The generation of a new socket's first record; 0 is never written. */
#define SHIM_SHARED_SYNCOBJ_FIRST_GEN SIM_SHARED_FIRST_GEN

/* A new shared syncobj fd (O_CLOEXEC) with no fence at SHIM_SHARED_SYNCOBJ_FIRST_GEN, or -errno. */
int shim_shared_syncobj_new(void);
/* fd is a shared syncobj fd (of any process): a self-connected unix datagram socket holding a
 * state record. What it holds is still checked by every read. */
bool shim_shared_syncobj_is(int fd);
/* The state, when its generation is not known_gen: 1 with *gen and *sync_fd (a sync file fd the
 * caller closes, or -1: no fence); 0 when unchanged; -errno when fd holds no valid record (a
 * record another process wrote is checked: a bad one is -EPROTO) or a writer has it out (-EBUSY
 * at once without wait, else after a wait of at most 2 ms). */
int shim_shared_syncobj_read(int fd, uint64_t known_gen, bool wait, uint64_t *gen, int *sync_fd);
/* Replaces the state with sync_fd's fence (-1: no fence); *gen gets the new generation. On
 * failure the state stays as it was. */
int shim_shared_syncobj_write(int fd, int sync_fd, uint64_t *gen);

#endif
