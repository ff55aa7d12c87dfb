/* Submit rings on the host (ring.c): a context's ring, its doorbell, and when its records are
 * taken (docs/protocol.md "Submit rings"). */
#ifndef FERRY_HOST_RING_H
#define FERRY_HOST_RING_H

#include <stdint.h>

#include "host_types.h"

/* The host's epoll (h->epfd) holds contexts' kdev poll fds (data.ptr: the host_ctx) and rings'
 * doorbells (data.ptr: the host_ring with this bit set; both are malloc'd, so the bit is free). */
#define RING_EPOLL_TAG ((uintptr_t)1)
static inline bool ring_epoll_tagged(const void *p)
{
	return ((uintptr_t)p & RING_EPOLL_TAG) != 0;
}

int ring_handle_create(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n);
/* The context goes: its ring with it. */
void ring_free(struct host_ctx *ctx);
/* A doorbell's epoll entry fired (tagged: its data.ptr). */
void ring_doorbell(struct ferry_host *h, void *tagged);
/* The context's work moved: a ring not armed for a doorbell is looked at in the next dispatch. */
void ring_ctx_progress(struct host_ctx *ctx);
/* Takes records from the rings that have some, a bounded batch each. */
void ring_dispatch(struct ferry_host *h);
/* Before a socket frame: every record written before it (sock_seq <= c->sock_seq). 0, or
 * FERRY_HOST_IN_PROGRESS (a record stopped at the validation budget), or -EPIPE (client gone). */
int ring_drain_client(struct ferry_host_client *c);
/* A socket frame was counted: rings whose next record waited for it are looked at again. */
void ring_client_counted(struct ferry_host_client *c);
/* The client's rings wait for nothing any more (its frame in progress finished). */
void ring_client_unblocked(struct ferry_host_client *c);
bool ring_work_pending(const struct ferry_host *h);
void ring_host_init(struct ferry_host *h);
void ring_host_fini(struct ferry_host *h);

#endif
