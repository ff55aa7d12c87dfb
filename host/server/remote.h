/* ferryd's remote layer: what stands in for shared memory between libferry-host and a client on
 * a tcp: listener (docs/network.md, "Memory over the network"). The host library stays fd-based;
 * this layer keeps the fence pages and BO fds the host hands out, mirrors the BOs the guest maps
 * and turns fence-page changes into FenceUpdate events. */
#ifndef FERRYD_REMOTE_H
#define FERRYD_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ferry/bo_mirror.h>

struct remote;

struct remote_ops {
	/* Queues one whole frame (no fds) for the client, after everything queued before it.
	 * 0 or -1 (the connection is dead). */
	int (*send)(void *cookie, const void *frame, size_t len);
};

/* epfd: an epoll set the context eventfds join (tag: the remote context); remote_events() is
 * called when it polls readable. NULL on ENOMEM. */
struct remote *remote_new(int epfd, const struct remote_ops *ops, void *cookie, const char *name);
void remote_free(struct remote *r);

/* A frame from the client (payload 8-byte aligned). Returns 1: hand it to the host with *fds /
 * *nfds (an import's BO fd, a dup the host takes); 0: consumed here (answered, maybe with an
 * ERROR); or a negative errno when the connection must close. */
int remote_in(struct remote *r, const void *payload, size_t len, int *fds, int *nfds);

/* The host sends frame with fds: first bring the client's view up to date (remote_sync), then
 * keep what the fds stand for. The frame then goes out without fds, as *out / *out_len (frame
 * itself, or the HelloReply with FERRY_FEATURE_REMOTE_MEMORY added). 0 or -1 (dead). */
int remote_out(struct remote *r, const void *frame, size_t len, const int *fds, int nfds, const void **out,
	       size_t *out_len);

/* Reads the fence pages: BoData for what retired submits wrote into mapped BOs, then
 * FenceUpdate for the changed slots. 0 or -1 (dead). */
int remote_sync(struct remote *r);

/* The eventfd set of epfd polled readable: drains it and syncs the contexts (and so the
 * connections) it names. Each entry's tag must be a remote context of a live remote. */
void remote_events(int epfd);

/* fds this layer holds for the client (fence page, eventfd, BO fds): they count against its
 * --max-client-fds. */
unsigned remote_held_fds(const struct remote *r);

/* Bytes that crossed the connection each way (frames, BoData raw and on the wire). */
void remote_get_counters(const struct remote *r, struct ferry_wire_counters *tx, struct ferry_wire_counters *rx);

#endif
