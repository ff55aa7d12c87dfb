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

/* Bytes of mapped BOs one client's diff work compares per loop pass (remote_resume): a memcmp
 * of 4 MiB is ~0.2-0.5 ms, so a client whose submit wrote a 4 GiB BO costs the others that
 * much per pass instead of a second at once. */
#define FERRYD_MIRROR_SLICE_BYTES ((uint64_t)4 << 20)

struct remote_ops {
	/* Queues one whole BoData frame for the client, after everything queued before it.
	 * 0 or -1 (the connection is dead). */
	int (*send)(void *cookie, const void *frame, size_t len);
	/* The same for every other frame (the host's, this layer's replies and FenceUpdates). */
	int (*send_frame)(void *cookie, const void *frame, size_t len);
	/* Most bytes of frames held behind pending diff work; past it the connection is dead. */
	size_t held_cap;
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
 * itself, or the HelloReply with FERRY_FEATURE_REMOTE_MEMORY added); *out is NULL when the
 * frame is held here behind pending diff work (remote_resume sends it). 0 or -1 (dead). */
int remote_out(struct remote *r, const void *frame, size_t len, const int *fds, int nfds, const void **out,
	       size_t *out_len);

/* Reads the fence pages: queues the diff of what retired submits wrote into mapped BOs; when
 * none is pending, sends FenceUpdate for the changed slots. 0 or -1 (dead). */
int remote_sync(struct remote *r);

/* Diff work is pending (a sync's or a BoMap's): frames for the client are held, its requests
 * must not be read, and the loop must call remote_resume on its next pass without sleeping. */
bool remote_pending(const struct remote *r);

/* One slice of the pending diff work (FERRYD_MIRROR_SLICE_BYTES compared); once all is done,
 * the FenceUpdates and then the held frames, in order. 0 or -1 (dead). */
int remote_resume(struct remote *r);

/* Slices remote_resume ran, all clients (metric ferry_remote_mirror_slices_total). */
uint64_t remote_mirror_slices_total(void);

/* The eventfd set of epfd polled readable: drains it and syncs the contexts (and so the
 * connections) it names. Each entry's tag must be a remote context of a live remote. */
void remote_events(int epfd);

/* fds this layer holds for the client (fence page, eventfd, BO fds): they count against its
 * --max-client-fds. */
unsigned remote_held_fds(const struct remote *r);

/* Bytes that crossed the connection each way (frames, BoData raw and on the wire). */
void remote_get_counters(const struct remote *r, struct ferry_wire_counters *tx, struct ferry_wire_counters *rx);

#endif
