/* The sync-state dump's line format (docs/debugging.md), after Mali's csf_sync debugfs file
 * (seed 002): one line per pending operation of a queue — its id, whether it has started, what
 * it is, the object it waits on or signals, the object's live value, then after a pipe the
 * operation and the value it wants. Pure formatting: host/core/sync_state.c collects. */
#ifndef FERRY_DEBUG_SYNC_DUMP_H
#define FERRY_DEBUG_SYNC_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sync_cmd {
	SYNC_CMD_FENCE_WAIT,   /* a submit the host holds until an in-fence (another queue) signals */
	SYNC_CMD_WAIT_REG_MEM, /* the GPU polls memory or a register (CP_WAIT_REG_MEM) */
	SYNC_CMD_WAIT_MEM_GTE, /* the GPU polls memory (CP_WAIT_MEM_GTE) */
	SYNC_CMD_SIGNAL,       /* a submitted seqno awaiting retirement: its timeline will be set */
};

enum sync_obj_kind {
	SYNC_OBJ_MEMORY,   /* obj: a GPU address of the context */
	SYNC_OBJ_REGISTER, /* obj: a register offset (dwords) */
	SYNC_OBJ_TIMELINE, /* obj: a queue's fence timeline (its last signaled seqno is the live value) */
};

/* A queue id as the dump prints it: GPU-<client>-<context>-<queue>. */
struct sync_queue_id {
	uint32_t client, ctx, queue;
};

struct sync_op {
	struct sync_queue_id queue; /* the queue the operation is on */
	bool started;               /* exec:S, else exec:P */
	enum sync_cmd cmd;
	uint32_t seqno;             /* the submit the operation belongs to */
	enum sync_obj_kind obj_kind;
	uint64_t obj;               /* MEMORY: iova; REGISTER: offset */
	struct sync_queue_id timeline; /* TIMELINE: whose timeline */
	uint64_t live;
	uint64_t arg;               /* the wanted value (waits) or the value set (SIGNAL) */
	const char *op;             /* "eq", "ge", "gt", ..., "set" */
	bool has_mask;              /* WAIT_REG_MEM compares (live & mask) */
	uint32_t mask;
	bool is_signed;
};

const char *sync_cmd_name(enum sync_cmd cmd);

/* Formats one line (with its '\n') into buf, snprintf-style: returns the length the whole line
 * needs (buf holds a truncated copy when that is >= len), or -1 for an unknown cmd/obj kind. */
int sync_dump_line(const struct sync_op *op, char *buf, size_t len);

#endif
