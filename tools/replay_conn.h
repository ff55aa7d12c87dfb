/* The wire client `ferry replay` drives a ferryd with: raw protocol frames (it needs what libferry
 * does not offer, BOs placed at captured addresses and the guest's own submit frames) over
 * libferry's transports (unix:, tcp:), BOs mapped through the fds the transport hands over
 * (ferryd's memfds, or over tcp the transport's local copies), fences waited out, fault reports
 * collected. */
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
	bool mirrored; /* BoMap answered (transports without shared memory) */
};

struct rc_fault {
	bool have;
	struct ferry_fault_report r; /* r.text points to text */
	char *text;
};

struct ferry_transport;

struct replay_conn {
	struct ferry_transport *t;
	bool remote; /* the transport shares no memory with ferryd: BOs are mirrored (BoMap) */
	uint32_t seq;
	struct ferry_buf out;
	char device[64];
	struct rc_bo *bos;
	uint32_t nr_bos, cap_bos;
	struct rc_fault fault; /* the last FAULT_REPORT seen */
	char error[512];       /* the last ERROR reply's message */
	int32_t error_code;
};

/* Connects to uri ("unix:PATH", a path or "tcp:HOST:PORT") and says HELLO + DEVICE_QUERY.
 * 0 or -1 (printed). */
int rc_connect(struct replay_conn *c, const char *uri);
void rc_close(struct replay_conn *c);

/* A request that has no success reply (context create has one: its fds are closed here; bo
 * create's fd is mapped). Returns 0, or a negative errno with c->error set. */
int rc_request(struct replay_conn *c, struct ferry_msg *m);
/* Waits for seqno on queue (10 s), collecting a fault report. *status gets the fence status.
 * Returns 0, or a negative errno with c->error set (the wait itself failed). */
int rc_wait(struct replay_conn *c, uint32_t ctx_id, uint32_t queue_id, uint32_t seqno, int32_t *status);

struct rc_bo *rc_find_bo(struct replay_conn *c, uint32_t ctx_id, uint32_t bo_id);
/* Before the replay writes into or reads bo's mapping: over a transport without shared memory
 * (tcp) the mapping is a local copy that ferryd mirrors only once asked (BoMap, answered with
 * its bytes): from then on the next submit listing the BO carries the replay's writes and GPU
 * writes come back at fence signal (docs/network.md). Once per BO; nothing on unix. 0 or a
 * negative errno with c->error set. */
int rc_bo_mirror(struct replay_conn *c, struct rc_bo *bo);
/* Closes (BO_CLOSE) and unmaps. */
int rc_close_bo(struct replay_conn *c, struct rc_bo *bo);

#endif
