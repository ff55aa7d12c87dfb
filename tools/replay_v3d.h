/* `ferry replay` of V3D sessions (tools/replay_v3d.c): the captured BO addresses, and the
 * relocation of a submit's addresses from them to the replay's BOs. */
#ifndef FERRY_TOOLS_REPLAY_V3D_H
#define FERRY_TOOLS_REPLAY_V3D_H

#include <stddef.h>
#include <stdint.h>

#include <ferry/wire.h>

#include "replay_conn.h"

struct rv3d_bo {
	uint32_t ctx_id, bo_id;
	uint64_t old_iova, size; /* as captured (the session's BoCreate) */
};

struct rv3d {
	int ver; /* 42 or 71: from the session's device name */
	struct rv3d_bo *bos;
	uint32_t nr, cap;
	uint64_t *seen; /* places relocated during one submit (open addressing) */
	uint32_t nr_seen, cap_seen;
};

/* The captured address of a BO the session creates (again, when its id is reused). 0 or -1. */
int rv3d_note_bo(struct rv3d *r, uint32_t ctx_id, uint32_t bo_id, uint64_t old_iova, uint64_t size);
void rv3d_forget_bo(struct rv3d *r, uint32_t ctx_id, uint32_t bo_id);
void rv3d_fini(struct rv3d *r);

/* Relocates a V3D submit (m: CL, TFU or CSD; its scalar fields are rewritten) and every address
 * in the lists and shader state of its BOs' replay copies (conn's mappings, holding the captured
 * contents) from the captured BOs to the replay's. Call once per submit, after its snapshots
 * were written. 0, or -1 with err. */
int rv3d_relocate(struct rv3d *r, struct replay_conn *conn, struct ferry_msg *m, char *err, size_t err_len);

#endif
