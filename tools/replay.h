/* `ferry replay`'s parts: the command (replay.c: options, loading, the ferryd, each submit's
 * result and dumps), the .rd front end (replay_rd.c) and the session front end (replay_session.c). */
#ifndef FERRY_TOOLS_REPLAY_H
#define FERRY_TOOLS_REPLAY_H

#include <stdint.h>

#include "replay_conn.h"
#include "replay_v3d.h"

struct replay_override {
	uint32_t submit;
	uint8_t *data;
	size_t len;
};

#define REPLAY_MAX_QUEUES 64u

struct replay {
	const char *path;
	struct replay_conn conn;
	long first, last; /* submits [first, last] run (last < 0: to the end) */
	struct replay_override *overrides;
	uint32_t nr_overrides;
	const char *dump_dir;
	uint32_t rd_policy;    /* .rd: the context's policy (the file does not say) */
	bool session_policy;   /* session: every context gets rd_policy, not its recorded one */
	uint32_t submit_index; /* submits seen so far, run or not */
	uint32_t next_bo_id;   /* rd: BO ids handed out; session: override BOs */
	struct {
		uint32_t ctx_id, queue_id, seqno;
	} seqnos[REPLAY_MAX_QUEUES];
	uint32_t nr_seqnos;
	unsigned ran, faults, refused;
	struct rv3d v3d;       /* V3D sessions: captured BO addresses, for relocation */
};

/* One captured submit (its arrays may be replaced): renumbered, in-fences dropped (the replay
 * runs in order), overridden / skipped as the options say, waited for; prints the result.
 * 0, or -1 when ferryd refused it or the connection failed. */
int replay_submit(struct replay *rp, struct ferry_msm_submit *s);

/* One captured V3D submit (CL, TFU or CSD), already relocated: renumbered, in-fences dropped,
 * skipped as --first/--last say, waited for; prints the result like replay_submit. */
int replay_submit_v3d(struct replay *rp, struct ferry_msg *m);

/* .rd: checks every section first (0, or -1 with a message naming the file and the problem);
 * gpu_id from GPU_ID, else CHIP_ID. */
int replay_rd_check(const char *path, const uint8_t *data, size_t len, uint32_t *gpu_id);
const char *rd_gpu_name(uint32_t gpu_id);
int replay_rd(struct replay *rp, const uint8_t *data, size_t len);

/* Session: checks every record first; the header's device name in gpu (17 bytes). */
int replay_session_check(const char *path, const uint8_t *data, size_t len, char *gpu, uint32_t *family);
int replay_session(struct replay *rp, const uint8_t *data, size_t len);

#endif
