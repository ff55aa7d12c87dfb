/* replay_conn: a blocking wire client. Each request that the host answers is followed by reading
 * frames until the answer with its seq; requests the host only answers on failure are followed
 * by a DEVICE_QUERY as a barrier, so an error is tied to the request that caused it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ferry/array.h"
#include "ferry/uri.h"
#include "replay_conn.h"
#include "transport.h"

/* Bounds every read: a fence wait is answered within its own 10 s timeout. */
#define RC_RECV_TIMEOUT_NS (30ll * 1000 * 1000 * 1000)

static int send_msg(struct replay_conn *c, struct ferry_msg *m)
{
	m->seq = ++c->seq;
	ferry_buf_reset(&c->out);
	int ret = ferry_wire_encode(m, &c->out);
	if (ret < 0) {
		snprintf(c->error, sizeof(c->error), "cannot encode %s: %s", ferry_msg_kind_name(m->kind), strerror(-ret));
		return ret;
	}
	ret = ferry_transport_send(c->t, c->out.data, c->out.len, NULL, 0);
	if (ret < 0)
		snprintf(c->error, sizeof(c->error), "send: %s", strerror(-ret));
	return ret;
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void note_fault(struct replay_conn *c, const struct ferry_fault_report *r)
{
	free(c->fault.text);
	c->fault.text = strdup(r->text ? r->text : "");
	c->fault.r = *r;
	c->fault.r.text = c->fault.text;
	c->fault.have = true;
}

static int add_bo(struct replay_conn *c, const struct ferry_bo_created *b, int fd)
{
	void *map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(c->error, sizeof(c->error), "mmap bo %u: %s", b->bo_id, strerror(errno));
		return -errno;
	}
	if (FERRY_ARRAY_RESERVE(c->bos, c->cap_bos, (size_t)c->nr_bos + 1, 32)) {
		munmap(map, b->size);
		return -ENOMEM;
	}
	c->bos[c->nr_bos++] = (struct rc_bo){
		.ctx_id = b->ctx_id, .bo_id = b->bo_id, .iova = b->iova, .size = b->size, .map = map, .live = true,
	};
	return 0;
}

/* Reads frames until the reply to done_seq. Events are noted; an ERROR for req_seq or done_seq
 * returns its code. */
static int await(struct replay_conn *c, uint32_t req_seq, uint32_t done_seq, struct ferry_msg *reply)
{
	for (;;) {
		struct ferry_transport_frame f;
		int ret = ferry_transport_recv(c->t, RC_RECV_TIMEOUT_NS, &f);
		if (ret == 0)
			ret = -ETIMEDOUT;
		if (ret < 0) {
			snprintf(c->error, sizeof(c->error), "connection to ferryd: %s", strerror(-ret));
			return ret;
		}
		int fds[FERRY_MAX_FRAME_FDS];
		int nfds = f.nfds;
		memcpy(fds, f.fds, sizeof(int) * (size_t)nfds);
		struct ferry_msg m;
		const char *why = NULL;
		if (ferry_wire_decode(f.payload, f.len, &m, &why) < 0) {
			close_fds(fds, nfds);
			snprintf(c->error, sizeof(c->error), "ferryd sent a malformed frame: %s", why ? why : "?");
			return -EBADMSG;
		}
		int result = 1;
		if (m.kind == FERRY_MSG_FAULT_REPORT) {
			note_fault(c, &m.u.fault_report);
		} else if (m.kind == FERRY_MSG_ERROR && (m.seq == req_seq || m.seq == done_seq || m.seq == 0)) {
			snprintf(c->error, sizeof(c->error), "%s: %s", ferry_msg_kind_name(m.u.error.request_kind),
				 m.u.error.message);
			c->error_code = m.u.error.error;
			result = m.u.error.error < 0 ? m.u.error.error : -EPROTO;
		} else if (m.kind == FERRY_MSG_ERROR) {
			/* An earlier request's error surfacing late: keep it for the report. */
			snprintf(c->error, sizeof(c->error), "%s: %s", ferry_msg_kind_name(m.u.error.request_kind),
				 m.u.error.message);
		} else if (m.seq == done_seq && m.kind != FERRY_MSG_FENCE_SIGNALED) {
			result = 0;
			if (m.kind == FERRY_MSG_BO_CREATED) {
				result = nfds >= 1 ? add_bo(c, &m.u.bo_created, fds[0]) : -EPROTO;
			} else if (m.kind == FERRY_MSG_DEVICE_INFO) {
				snprintf(c->device, sizeof(c->device), "%s", m.u.device_info.name);
			}
			if (reply)
				*reply = m; /* only scalars are used by callers */
		}
		close_fds(fds, nfds);
		if (result <= 0)
			return result;
	}
}

int rc_request(struct replay_conn *c, struct ferry_msg *m)
{
	c->error[0] = '\0';
	int ret = send_msg(c, m);
	if (ret < 0)
		return ret;
	bool answered = m->kind == FERRY_MSG_CONTEXT_CREATE || m->kind == FERRY_MSG_BO_CREATE ||
			m->kind == FERRY_MSG_DEVICE_QUERY || m->kind == FERRY_MSG_HELLO || m->kind == FERRY_MSG_BO_INFO;
	uint32_t seq = m->seq;
	if (!answered) {
		struct ferry_msg barrier = { .kind = FERRY_MSG_DEVICE_QUERY };
		barrier.u.device_query.family = FERRY_FAMILY_NONE;
		ret = send_msg(c, &barrier);
		if (ret < 0)
			return ret;
		/* Stops at an ERROR for the request, else at the barrier's reply. */
		return await(c, seq, barrier.seq, NULL);
	}
	return await(c, seq, seq, NULL);
}

int rc_wait(struct replay_conn *c, uint32_t ctx_id, uint32_t queue_id, uint32_t seqno, int32_t *status)
{
	struct ferry_msg m = { .kind = FERRY_MSG_FENCE_WAIT };
	m.u.fence_wait = (struct ferry_fence_wait){
		.ctx_id = ctx_id, .queue_id = queue_id, .seqno = seqno, .timeout_ns = 10ll * 1000 * 1000 * 1000,
	};
	int ret = send_msg(c, &m);
	if (ret < 0)
		return ret;
	struct ferry_msg reply;
	ret = await(c, m.seq, m.seq, &reply);
	if (ret < 0)
		return ret;
	*status = reply.kind == FERRY_MSG_STATUS_REPLY ? reply.u.status_reply.error : -EPROTO;
	return 0;
}

int rc_connect(struct replay_conn *c, const char *uri)
{
	memset(c, 0, sizeof(*c));
	ferry_buf_init(&c->out);
	struct ferry_uri u;
	char why[200];
	if (ferry_uri_parse(uri, &u, why, sizeof(why)) < 0) {
		fprintf(stderr, "ferry replay: --server %s\n", why);
		return -1;
	}
	if (u.kind == FERRY_URI_VIRTIO) {
		/* virtio-gpu takes libferry's requests, not a replay's BOs at chosen addresses. */
		fprintf(stderr, "ferry replay: %s: replay needs a ferryd socket (unix:PATH or tcp:HOST:PORT)\n", uri);
		return -1;
	}
	int ret = ferry_transport_open(uri, &c->t);
	if (ret < 0) {
		const char *more = ferry_transport_open_error();
		fprintf(stderr, "ferry replay: cannot connect to %s: %s\n", uri, more[0] ? more : strerror(-ret));
		c->t = NULL;
		return -1;
	}
	c->remote = c->t->no_shared_memory;
	struct ferry_msg m = { .kind = FERRY_MSG_HELLO };
	m.u.hello = (struct ferry_hello){ .version = FERRY_PROTOCOL_VERSION, .features = FERRY_FEATURE_FENCE_PAGE };
	/* A network ferryd may want the token libferry would present. */
	char token[300] = "";
	if (u.kind == FERRY_URI_TCP) {
		ret = ferry_auth_token(token, sizeof(token), why, sizeof(why));
		if (ret < 0) {
			fprintf(stderr, "ferry replay: %s\n", why);
			return -1;
		}
		if (ret > 0)
			m.u.hello.token = token;
	}
	ret = rc_request(c, &m);
	explicit_bzero(token, sizeof(token));
	if (ret < 0) {
		fprintf(stderr, "ferry replay: hello: %s%s%s\n", c->error, c->t->error[0] ? ": " : "", c->t->error);
		return -1;
	}
	m = (struct ferry_msg){ .kind = FERRY_MSG_DEVICE_QUERY };
	if (rc_request(c, &m) < 0) {
		fprintf(stderr, "ferry replay: device query: %s\n", c->error);
		return -1;
	}
	return 0;
}

struct rc_bo *rc_find_bo(struct replay_conn *c, uint32_t ctx_id, uint32_t bo_id)
{
	for (uint32_t i = 0; i < c->nr_bos; i++)
		if (c->bos[i].live && c->bos[i].ctx_id == ctx_id && c->bos[i].bo_id == bo_id)
			return &c->bos[i];
	return NULL;
}

int rc_bo_mirror(struct replay_conn *c, struct rc_bo *bo)
{
	if (!c->remote || bo->mirrored)
		return 0;
	struct ferry_msg m = { .kind = FERRY_MSG_BO_MAP };
	m.u.bo_map = (struct ferry_bo_map){ .ctx_id = bo->ctx_id, .bo_id = bo->bo_id };
	c->error[0] = '\0';
	int ret = send_msg(c, &m);
	struct ferry_msg reply;
	if (ret == 0)
		ret = await(c, m.seq, m.seq, &reply);
	if (ret == 0 && reply.kind != FERRY_MSG_STATUS_REPLY)
		ret = -EPROTO;
	if (ret == 0 && reply.u.status_reply.error < 0)
		ret = reply.u.status_reply.error;
	if (ret < 0 && !c->error[0])
		snprintf(c->error, sizeof(c->error), "bo_map of bo %u: %s", bo->bo_id, strerror(-ret));
	bo->mirrored = ret == 0;
	return ret;
}

int rc_close_bo(struct replay_conn *c, struct rc_bo *bo)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CLOSE };
	m.u.bo_close = (struct ferry_bo_close){ .ctx_id = bo->ctx_id, .bo_id = bo->bo_id };
	munmap(bo->map, bo->size);
	bo->map = NULL;
	bo->live = false;
	return rc_request(c, &m);
}

void rc_close(struct replay_conn *c)
{
	for (uint32_t i = 0; i < c->nr_bos; i++)
		if (c->bos[i].live)
			munmap(c->bos[i].map, c->bos[i].size);
	free(c->bos);
	free(c->fault.text);
	ferry_buf_free(&c->out);
	ferry_transport_destroy(c->t);
	c->t = NULL;
}
