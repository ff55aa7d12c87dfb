/* A raw wire client over tcp for integration tests that must see ferry's frames as they arrive
 * (libferry would consume BoData and FenceUpdate): connect, send, read the next frame. */
#ifndef FERRY_ITEST_RAW_H
#define FERRY_ITEST_RAW_H

#include <stdbool.h>
#include <stdint.h>

#include "ferry/wire.h"

struct itest_raw {
	int fd;
	struct ferry_frame_reader rd;
	uint32_t seq;
};

/* Connects to a "tcp:HOST:PORT" ferryd (plain: --insecure). false when it cannot. */
bool itest_raw_connect(struct itest_raw *r, const char *tcp_uri);
/* Sends m with the next seq (REQUIREs success); returns that seq. */
uint32_t itest_raw_send(struct itest_raw *r, struct ferry_msg *m);
/* The next frame, decoded into *m (its payload stays valid until the next call); false on a dead
 * connection, an undecodable frame or ~10 s of nothing. */
bool itest_raw_next(struct itest_raw *r, struct ferry_msg *m);
void itest_raw_close(struct itest_raw *r);

#endif
