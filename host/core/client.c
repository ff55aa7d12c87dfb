/* Per-client dispatch: verify each frame with the codec, route each request kind to its handler
 * (submits: to the family's, family.h), turn failures into FERRY_MSG_ERROR replies, count malformed frames, drop abusive clients.
 *
 * Replies, per request (every reply echoes the request's seq; events carry seq 0):
 *   HELLO            -> HELLO_REPLY, or ERROR
 *   DEVICE_QUERY     -> DEVICE_INFO, or ERROR
 *   CONTEXT_CREATE   -> CONTEXT_CREATED (fds: fence page memfd, eventfd), or ERROR
 *   CONTEXT_DESTROY  -> nothing on success; ERROR on failure
 *   QUEUE_CREATE     -> nothing on success; ERROR on failure
 *   QUEUE_CLOSE      -> nothing on success; ERROR on failure
 *   BO_CREATE        -> BO_CREATED (fd: the BO's pages), or ERROR
 *   BO_CLOSE         -> nothing on success; ERROR on failure
 *   BO_INFO          -> BO_INFO_REPLY, or ERROR
 *   BO_IMPORT        -> BO_CREATED (fd: the BO's pages, this context's iova), or ERROR; the
 *                       request's one fd names the BO (bo_share.c)
 *   BO_CPU_PREP      -> STATUS_REPLY (0, -EBUSY for a poll, -ETIMEDOUT, -ECANCELED when the context
 *                       is destroyed first), or ERROR (bad ids or op)
 *   MSM_SUBMIT, V3D_SUBMIT_CL / TFU / CSD (the family's submit kinds)
 *                    -> nothing on success; ERROR on failure (with a validation budget set, the
 *                       frame may be handled over several ferry_host_client_resume calls).
 *                       Later, as events: FENCE_SIGNALED when
 *                       the submit asked FERRY_SUBMIT_NOTIFY or completed with an error, preceded
 *                       by FAULT_REPORT when it faulted or hung. Another family's submit kind
 *                       -> ERROR -EINVAL.
 *   FENCE_WAIT       -> STATUS_REPLY (0 or the fence's error, -ETIMEDOUT, -ECANCELED), or ERROR
 *   TIMESTAMP_QUERY  -> STATUS_REPLY (error 0, value: the msm GPU's always-on counter), or ERROR
 *   EXTERNAL_FENCE   -> nothing on success; ERROR on failure (host_external_fence.c)
 *   RING_CREATE      -> RING_CREATED (fds: the ring memfd, its doorbell eventfd), or ERROR (ring.c)
 *   a malformed frame -> ERROR with seq 0, request_kind NONE, -EBADMSG
 *   a reply or event kind sent to the host -> ERROR -EINVAL
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "family.h"
#include "host_log.h"
#include "host_context.h"
#include "host_external_fence.h"
#include "host_bo.h"
#include "host_queue.h"
#include "wait.h"
#include "host_capture.h"
#include "ring.h"

void client_send(struct ferry_host_client *c, const struct ferry_msg *m, const int *fds, int nfds)
{
	if (c->gone)
		return;
	struct ferry_host *h = c->host;
	ferry_buf_reset(&h->out);
	int ret = ferry_wire_encode(m, &h->out);
	if (ret < 0) {
		host_log(h, FERRY_LOG_ERROR, "%s: cannot encode %s: %d", c->peer, ferry_msg_kind_name(m->kind), ret);
		return;
	}
	if (c->ops.send(c->cookie, h->out.data, h->out.len, fds, nfds) != 0) {
		host_log(h, FERRY_LOG_INFO, "%s: client cannot take more; dropping it", c->peer);
		c->gone = true;
	}
}

int client_fds_admit(struct ferry_host_client *c, uint32_t need, char *why, size_t n)
{
	unsigned max = c->host->cfg.max_client_fds;
	uint64_t held = (uint64_t)c->nr_fds + (c->ops.held_fds ? c->ops.held_fds(c->cookie) : 0);
	if (held <= max && need <= max - held)
		return 0;
	snprintf(why, n, "client quota: at most %u fds held for one client (ferryd --max-client-fds); %llu held "
		 "(its objects and connection, replies queued for it), %u more needed",
		 max, (unsigned long long)held, need);
	return -EDQUOT;
}

void client_fds_add(struct ferry_host_client *c, int delta)
{
	/* Every decrement matches an earlier increment of the same object. */
	c->nr_fds = (uint32_t)((int64_t)c->nr_fds + delta);
	c->host->stats.client_fds = (uint64_t)((int64_t)c->host->stats.client_fds + delta);
}

void client_send_status(struct ferry_host_client *c, uint32_t seq, int32_t error)
{
	struct ferry_msg m = { .kind = FERRY_MSG_STATUS_REPLY, .seq = seq };
	m.u.status_reply.error = error;
	client_send(c, &m, NULL, 0);
}

static void send_error(struct ferry_host_client *c, uint32_t seq, uint32_t kind, int err, const char *why)
{
	struct ferry_msg m = { .kind = FERRY_MSG_ERROR, .seq = seq };
	m.u.error = (struct ferry_error){ .request_kind = kind, .error = err, .message = why };
	client_send(c, &m, NULL, 0);
}

static int handle_hello(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	if (m->u.hello.version == 0) {
		snprintf(why, n, "protocol version 0 is not supported (server speaks %u)", FERRY_PROTOCOL_VERSION);
		return -EPROTONOSUPPORT;
	}
	char server[128];
	snprintf(server, sizeof(server), "ferry-host %s (%s)", FERRY_VERSION, c->host->device_name);
	struct ferry_msg r = { .kind = FERRY_MSG_HELLO_REPLY, .seq = m->seq };
	r.u.hello_reply = (struct ferry_hello_reply){
		.version = FERRY_PROTOCOL_VERSION,
		.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_BO_BATCH | c->host->fam->feature |
			    (c->host->cfg.no_submit_ring ? 0 : FERRY_FEATURE_SUBMIT_RING),
		.server = server,
	};
	client_send(c, &r, NULL, 0);
	return 0;
}

static int handle_device_query(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	uint32_t family = m->u.device_query.family;
	struct ferry_host *h = c->host;
	if (family != FERRY_FAMILY_NONE && family != h->fam->family) {
		snprintf(why, n, "this server has no device of family %u (it serves %s)", family, c->host->device_name);
		return -ENODEV;
	}
	struct ferry_msg r = { .kind = FERRY_MSG_DEVICE_INFO, .seq = m->seq };
	r.u.device_info = (struct ferry_device_info){
		.family = h->fam->family,
		.name = h->gpu,
	};
	r.u.device_info.params = h->fam->params(h, &r.u.device_info.nr_params);
	client_send(c, &r, NULL, 0);
	return 0;
}

/* A submit of a family this server does not serve: no context here can take it. */
static int handle_foreign_submit(struct ferry_host_client *c, const struct ferry_msg *m, char *why, size_t n)
{
	const struct ferry_host *h = c->host;
	const struct host_family_ops *other = host_family_for_submit(m->kind);
	snprintf(why, n, "%s is a submit of %s contexts; this server serves %s (%s): use its submits",
		 ferry_msg_kind_name(m->kind), other->name, h->fam->name, h->device_name);
	return -EINVAL;
}

static host_request_fn handler_of(const struct ferry_host *h, enum ferry_msg_kind kind)
{
	host_request_fn submit = host_family_submit_handler(h->fam, kind);
	if (submit)
		return submit;
	if (host_family_for_submit(kind))
		return handle_foreign_submit;
	switch (kind) {
	case FERRY_MSG_HELLO: return handle_hello;
	case FERRY_MSG_DEVICE_QUERY: return handle_device_query;
	case FERRY_MSG_CONTEXT_CREATE: return ctx_handle_create;
	case FERRY_MSG_CONTEXT_DESTROY: return ctx_handle_destroy;
	case FERRY_MSG_QUEUE_CREATE: return queue_handle_create;
	case FERRY_MSG_QUEUE_CLOSE: return queue_handle_close;
	case FERRY_MSG_BO_CREATE: return bo_handle_create;
	case FERRY_MSG_BO_CREATE_BATCH: return bo_handle_create_batch;
	case FERRY_MSG_BO_CLOSE: return bo_handle_close;
	case FERRY_MSG_BO_INFO: return bo_handle_info;
	case FERRY_MSG_BO_IMPORT: return bo_handle_import;
	case FERRY_MSG_TIMESTAMP_QUERY: return ctx_handle_timestamp;
	case FERRY_MSG_EXTERNAL_FENCE: return external_fence_handle;
	case FERRY_MSG_BO_CPU_PREP: return wait_handle_cpu_prep;
	case FERRY_MSG_FENCE_WAIT: return wait_handle_fence;
	case FERRY_MSG_RING_CREATE: return ring_handle_create;
	default: return NULL;
	}
}

/* A submit stopped at the validation budget that will not come back is forgotten. */
static void submit_cancel(struct ferry_host_client *c)
{
	if (c->host->fam->submit_cancel)
		c->host->fam->submit_cancel(c);
}

/* Keeps a socket frame (and its fds) that must wait for a ring record in progress. */
static int defer_frame(struct ferry_host_client *c, const void *payload, size_t len)
{
	c->deferred = aligned_alloc(8, (len + 8) & ~(size_t)7);
	if (!c->deferred)
		return -ENOMEM;
	memcpy(c->deferred, payload, len);
	c->deferred_len = len;
	c->deferred_nfds = 0;
	for (int i = 0; i < c->in_nfds; i++) {
		c->deferred_fds[c->deferred_nfds++] = c->in_fds[i];
		c->in_fds[i] = -1; /* ours now */
	}
	return FERRY_HOST_IN_PROGRESS;
}

int client_handle_msg(struct ferry_host_client *c, const struct ferry_msg *mp, const void *payload, size_t len)
{
	struct ferry_host *h = c->host;
	const struct ferry_msg m = *mp;
	char reason[256] = "";
	int ret;
	if (!c->resuming)
		capture_note_frame(h, payload, len);
	host_request_fn fn = handler_of(h, m.kind);
	if (!fn) {
		snprintf(reason, sizeof(reason), "%s is not a request", ferry_msg_kind_name(m.kind));
		ret = -EINVAL;
	} else {
		ret = fn(c, &m, reason, sizeof(reason));
	}
	if (ret == -EINPROGRESS) {
		/* Its validation stopped at the budget: the frame is handled again on resume, and
		 * nothing it asked for was done yet, so all of it reruns (cheap but the walk). */
		if (!c->pending) {
			c->pending = aligned_alloc(8, (len + 8) & ~(size_t)7);
			if (!c->pending) {
				submit_cancel(c);
				send_error(c, m.seq, m.kind, -ENOMEM, "out of memory");
				return c->gone ? -EPIPE : 0;
			}
			memcpy(c->pending, payload, len);
			c->pending_len = len;
		}
		return FERRY_HOST_IN_PROGRESS;
	}
	submit_cancel(c); /* a stopped submit that did not get back to its validation */
	if (ret < 0) {
		if (!reason[0])
			snprintf(reason, sizeof(reason), "%s", strerror(-ret));
		host_log(h, FERRY_LOG_DEBUG, "%s: %s seq %u failed: %s", c->peer, ferry_msg_kind_name(m.kind), m.seq,
			 reason);
		send_error(c, m.seq, m.kind, ret, reason);
		if (++c->error_streak > HOST_MAX_ERROR_STREAK)
			return -EPROTO;
	} else {
		c->error_streak = 0;
	}
	return c->gone ? -EPIPE : 0;
}

static int handle_aligned(struct ferry_host_client *c, const void *payload, size_t len)
{
	struct ferry_host *h = c->host;
	struct ferry_msg m;
	const char *why = "malformed";
	int dec = ferry_wire_decode(payload, len, &m, &why);
	if (!c->resuming && (dec < 0 || m.kind != FERRY_MSG_RING_CREATE)) {
		/* Ring records written before this frame go first (docs/protocol.md "Submit rings"). */
		int r = ring_drain_client(c);
		if (r == FERRY_HOST_IN_PROGRESS)
			return defer_frame(c, payload, len);
		if (r < 0)
			return r;
		c->sock_seq++;
		ring_client_counted(c);
	}
	if (dec < 0) {
		h->stats.bad_messages++;
		c->bad_frames++;
		char msg[160];
		snprintf(msg, sizeof(msg), "malformed frame: %s", why ? why : "rejected by the verifier");
		host_log(h, FERRY_LOG_WARN, "%s: %s", c->peer, msg);
		send_error(c, 0, FERRY_MSG_NONE, -EBADMSG, msg);
		return c->bad_frames > HOST_MAX_BAD_FRAMES ? -EPROTO : 0;
	}
	return client_handle_msg(c, &m, payload, len);
}

static void drop_pending(struct ferry_host_client *c)
{
	submit_cancel(c);
	free(c->pending);
	c->pending = NULL;
	c->pending_len = 0;
}

static void drop_deferred(struct ferry_host_client *c)
{
	for (int i = 0; i < c->deferred_nfds; i++)
		close(c->deferred_fds[i]);
	c->deferred_nfds = 0;
	free(c->deferred);
	c->deferred = NULL;
	c->deferred_len = 0;
}

static int handle_frame(struct ferry_host_client *c, const void *payload, size_t len)
{
	if (c->gone)
		return -EPIPE;
	if (c->pending || c->deferred) {
		host_log(c->host, FERRY_LOG_ERROR, "%s: a frame came while one is in progress (embedder bug)",
			 c->peer);
		return -EBUSY;
	}
	if (((uintptr_t)payload & 7) == 0)
		return handle_aligned(c, payload, len);
	/* The codec needs 8-byte alignment; an embedder that cannot give it pays for a copy. */
	void *copy = aligned_alloc(8, (len + 8) & ~(size_t)7);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, payload, len);
	int ret = handle_aligned(c, copy, len);
	free(copy);
	return ret;
}

int ferry_host_client_handle(struct ferry_host_client *c, const void *payload, size_t len, int *fds, int nfds)
{
	/* Only BO_IMPORT looks at a frame's fds (borrowed while it is handled); all are closed after. */
	c->in_fds = fds;
	c->in_nfds = nfds;
	int ret = handle_frame(c, payload, len);
	c->in_fds = NULL;
	c->in_nfds = 0;
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ret;
}

/* The socket frame that waited for ring records: handled as ferry_host_client_handle would. */
static int handle_deferred(struct ferry_host_client *c)
{
	void *payload = c->deferred;
	size_t len = c->deferred_len;
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds = c->deferred_nfds;
	memcpy(fds, c->deferred_fds, sizeof(fds));
	c->deferred = NULL;
	c->deferred_len = 0;
	c->deferred_nfds = 0;
	int ret = ferry_host_client_handle(c, payload, len, fds, nfds);
	free(payload);
	return ret;
}

int ferry_host_client_resume(struct ferry_host_client *c)
{
	if (!c->pending && !c->deferred)
		return 0;
	if (c->gone) {
		drop_pending(c);
		drop_deferred(c);
		return -EPIPE;
	}
	int ret = 0;
	if (c->pending) {
		c->resuming = true;
		ret = handle_aligned(c, c->pending, c->pending_len);
		c->resuming = false;
		if (ret == FERRY_HOST_IN_PROGRESS)
			return ret;
		drop_pending(c);
	}
	c->rings_blocked = false;
	if (ret >= 0 && c->deferred) {
		ret = ring_drain_client(c);
		if (ret == FERRY_HOST_IN_PROGRESS)
			return ret;
		if (ret >= 0)
			return handle_deferred(c);
	}
	drop_deferred(c);
	if (ret >= 0)
		ring_client_unblocked(c);
	return ret;
}

bool ferry_host_client_busy(const struct ferry_host_client *c)
{
	return c->pending != NULL || c->deferred != NULL;
}

struct ferry_host_client *ferry_host_client_new(struct ferry_host *h, const struct ferry_host_client_ops *ops,
						void *cookie, const char *peer_name)
{
	struct ferry_host_client *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->host = h;
	c->ops = *ops;
	c->cookie = cookie;
	snprintf(c->peer, sizeof(c->peer), "%s", peer_name ? peer_name : "client");
	list_init(&c->contexts);
	c->id = ++h->next_client_id;
	c->wd_last_dump_ns = INT64_MIN;
	list_add_tail(&h->clients, &c->link);
	h->stats.clients++;
	host_log(h, FERRY_LOG_INFO, "%s: connected", c->peer);
	return c;
}

void ferry_host_client_free(struct ferry_host_client *c)
{
	if (!c)
		return;
	struct ferry_host *h = c->host;
	c->gone = true; /* teardown sends nothing */
	drop_pending(c);
	drop_deferred(c);
	while (!list_empty(&c->contexts))
		ctx_destroy(list_entry(c->contexts.next, struct host_ctx, link), true);
	list_del(&c->link);
	h->stats.clients--;
	host_log(h, FERRY_LOG_INFO, "%s: disconnected", c->peer);
	free(c);
}
