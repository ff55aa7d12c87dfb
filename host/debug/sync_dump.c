/* Formatting sync-state dump lines (format in sync_dump.h and docs/debugging.md). */
#include "sync_dump.h"

#include <stdio.h>

const char *sync_cmd_name(enum sync_cmd cmd)
{
	switch (cmd) {
	case SYNC_CMD_FENCE_WAIT: return "FENCE_WAIT";
	case SYNC_CMD_WAIT_REG_MEM: return "WAIT_REG_MEM";
	case SYNC_CMD_WAIT_MEM_GTE: return "WAIT_MEM_GTE";
	case SYNC_CMD_SIGNAL: return "SIGNAL";
	}
	return NULL;
}

int sync_dump_line(const struct sync_op *op, char *buf, size_t len)
{
	const char *cmd = sync_cmd_name(op->cmd);
	if (!cmd)
		return -1;
	char obj[48];
	switch (op->obj_kind) {
	case SYNC_OBJ_MEMORY:
		snprintf(obj, sizeof(obj), "0x%016llx", (unsigned long long)op->obj);
		break;
	case SYNC_OBJ_REGISTER:
		snprintf(obj, sizeof(obj), "reg:0x%05llx", (unsigned long long)op->obj);
		break;
	case SYNC_OBJ_TIMELINE:
		snprintf(obj, sizeof(obj), "GPU-%u-%u-%u", op->timeline.client, op->timeline.ctx, op->timeline.queue);
		break;
	default:
		return -1;
	}
	char mask[24] = "";
	if (op->has_mask)
		snprintf(mask, sizeof(mask), " mask:0x%08x", op->mask);
	return snprintf(buf, len,
			"queue:GPU-%u-%u-%u exec:%c cmd:%s seqno:%u obj:%s live_value:0x%016llx | op:%s "
			"arg_value:0x%016llx%s%s\n",
			op->queue.client, op->queue.ctx, op->queue.queue, op->started ? 'S' : 'P', cmd, op->seqno,
			obj, (unsigned long long)op->live, op->op ? op->op : "?", (unsigned long long)op->arg, mask,
			op->is_signed ? " signed" : "");
}
