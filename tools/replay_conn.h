/* The wire client `ferry replay` drives a ferryd with: raw protocol frames (it needs what libferry
 * does not offer, BOs placed at captured addresses and the guest's own submit frames), BOs
 * mapped through the memfds ferryd sends, fences waited out, fault reports collected. */
#ifndef FERRY_TOOLS_REPLAY_CONN_H
#define FERRY_TOOLS_REPLAY_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ferry/wire.h>

struct rc_bo {
	uint32_t ctx_id, bo_id;
	uint64_t iova, size;
	uint8_t *map;
	bool live;
};

struct rc_fault {
	bool have;
	struct ferry_fault_report r; /* r.text points to text */
	char *text;
};

struct replay_conn {
	int sock;
	uint32_t seq;
	struct ferry_frame_reader reader;
	struct ferry_buf out;
	char device[64];
	struct rc_bo *bos;
	uint32_t nr_bos, cap_bos;
	struct rc_fault fault; /* the last FAULT_REPORT seen */
	char error[512];       /* the last ERROR reply's message */
	int32_t error_code;
};

/* Connects to uri ("unix:PATH" or a path) and says HELLO + DEVICE_QUERY. 0 or -1 (printed). */
int rc_connect(struct replay_conn *c, const char *uri);
void rc_close(struct replay_conn *c);

/* A request that has no success reply (context create has one: its fds are closed here; bo
 * create's fd is mapped). Returns 0, or a negative errno with c->error set. */
int rc_request(struct replay_conn *c, struct ferry_msg *m);
/* Waits for seqno on queue (10 s), collecting a fault report. *status gets the fence status.
 * Returns 0, or a negative errno with c->error set (the wait itself failed). */
int rc_wait(struct replay_conn *c, uint32_t ctx_id, uint32_t queue_id, uint32_t seqno, int32_t *status);

struct rc_bo *rc_find_bo(struct replay_conn *c, uint32_t ctx_id, uint32_t bo_id);
/* Closes (BO_CLOSE) and unmaps. */
int rc_close_bo(struct replay_conn *c, struct rc_bo *bo);

#endif
