/* Drives libferry-host directly, without sockets: requests are encoded and handed to
 * ferry_host_client_handle, and a fake send callback decodes and records every reply and event
 * (with dups of any fds) for the test to inspect. */
#ifndef FERRY_TEST_HOST_HARNESS_H
#define FERRY_TEST_HOST_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <ferry/fence_page.h>
#include <ferry/host.h>
#include <ferry/hw/adreno_pm4.h>
#include <ferry/wire.h>

#include "test.h"

#define HARNESS_MAX_MSGS 512

struct rx_msg {
	struct ferry_msg m;
	void *payload; /* decoded m points into this */
	int fds[FERRY_MAX_FRAME_FDS];
	int nfds;
};

struct harness_client {
	struct ferry_host_client *client;
	struct rx_msg msgs[HARNESS_MAX_MSGS];
	int n;
	int refuse_send; /* make send fail (the embedder "cannot take more") */
	uint32_t next_seq;
};

static inline int harness_send(void *cookie, const void *frame, size_t len, const int *fds, int nfds)
{
	struct harness_client *hc = cookie;
	if (hc->refuse_send)
		return -1;
	REQUIRE(len >= 4 && hc->n < HARNESS_MAX_MSGS);
	uint32_t plen;
	memcpy(&plen, frame, 4);
	REQUIRE(plen == len - 4);
	struct rx_msg *r = &hc->msgs[hc->n++];
	r->payload = aligned_alloc(8, (plen + 8) & ~7u);
	REQUIRE(r->payload);
	memcpy(r->payload, (const char *)frame + 4, plen);
	const char *why = NULL;
	int ret = ferry_wire_decode(r->payload, plen, &r->m, &why);
	if (ret)
		fprintf(stderr, "host sent an undecodable frame: %s\n", why ? why : "?");
	REQUIRE(ret == 0);
	r->nfds = nfds;
	for (int i = 0; i < nfds; i++) {
		r->fds[i] = dup(fds[i]);
		REQUIRE(r->fds[i] >= 0);
	}
	return 0;
}

static const struct ferry_host_client_ops harness_ops = { .send = harness_send };

static inline void harness_clear(struct harness_client *hc)
{
	for (int i = 0; i < hc->n; i++) {
		free(hc->msgs[i].payload);
		for (int j = 0; j < hc->msgs[i].nfds; j++)
			close(hc->msgs[i].fds[j]);
	}
	hc->n = 0;
}

static inline struct ferry_host *harness_host(void)
{
	struct ferry_host_config cfg = { .gpu = "a630", .log_level = FERRY_LOG_ERROR };
	struct ferry_host *host = NULL;
	REQUIRE(ferry_host_create(&cfg, &host) == 0);
	return host;
}

static inline void harness_connect(struct harness_client *hc, struct ferry_host *host, const char *name)
{
	memset(hc, 0, sizeof(*hc));
	hc->next_seq = 1;
	hc->client = ferry_host_client_new(host, &harness_ops, hc, name);
	REQUIRE(hc->client);
}

static inline void harness_disconnect(struct harness_client *hc)
{
	ferry_host_client_free(hc->client);
	hc->client = NULL;
	harness_clear(hc);
}

/* Encodes m (its seq set to a fresh one unless already non-zero), hands it to the host and
 * returns the seq used. */
static inline uint32_t harness_request(struct harness_client *hc, struct ferry_msg *m)
{
	if (!m->seq)
		m->seq = hc->next_seq++;
	struct ferry_buf b;
	ferry_buf_init(&b);
	REQUIRE(ferry_wire_encode(m, &b) == 0);
	size_t plen = b.len - 4;
	void *payload = aligned_alloc(8, (plen + 8) & ~(size_t)7);
	REQUIRE(payload);
	memcpy(payload, b.data + 4, plen);
	int ret = ferry_host_client_handle(hc->client, payload, plen, NULL, 0);
	CHECK_EQ(ret, 0);
	free(payload);
	ferry_buf_free(&b);
	return m->seq;
}

/* The reply to seq (not events), or NULL. */
static inline struct rx_msg *harness_reply(struct harness_client *hc, uint32_t seq)
{
	for (int i = 0; i < hc->n; i++)
		if (hc->msgs[i].m.seq == seq)
			return &hc->msgs[i];
	return NULL;
}

static inline int harness_count(struct harness_client *hc, enum ferry_msg_kind kind)
{
	int n = 0;
	for (int i = 0; i < hc->n; i++)
		n += hc->msgs[i].m.kind == kind;
	return n;
}

static inline struct rx_msg *harness_find(struct harness_client *hc, enum ferry_msg_kind kind)
{
	for (int i = 0; i < hc->n; i++)
		if (hc->msgs[i].m.kind == kind)
			return &hc->msgs[i];
	return NULL;
}

/* Expects seq's reply to be an ERROR with this errno. */
#define CHECK_ERROR(hc, seq, err)                                                         \
	do {                                                                              \
		struct rx_msg *_r = harness_reply((hc), (seq));                           \
		CHECK(_r != NULL);                                                        \
		if (_r) {                                                                 \
			CHECK_EQ(_r->m.kind, FERRY_MSG_ERROR);                            \
			if (_r->m.kind == FERRY_MSG_ERROR) {                              \
				CHECK_EQ(_r->m.u.error.error, (err));                     \
				CHECK(_r->m.u.error.message && _r->m.u.error.message[0]); \
			}                                                                 \
		}                                                                         \
	} while (0)

static inline int64_t harness_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the host's event loop (poll fd + deadlines) until cond holds or timeout_ms passes. */
#define HARNESS_RUN_UNTIL(host, cond, timeout_ms)                                                  \
	do {                                                                                       \
		int64_t _end = harness_now_ms() + (timeout_ms);                                    \
		while (!(cond) && harness_now_ms() < _end) {                                       \
			struct pollfd _p = { .fd = ferry_host_poll_fd(host), .events = POLLIN };   \
			int _t = ferry_host_next_timeout_ms(host);                                 \
			if (_t < 0 || _t > 50)                                                     \
				_t = 50;                                                           \
			poll(&_p, 1, _t);                                                          \
			ferry_host_dispatch(host);                                                 \
		}                                                                                  \
	} while (0)

static inline int harness_open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	REQUIRE(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* ---- request builders ---- */

static inline uint32_t req_context_create(struct harness_client *hc, uint32_t ctx_id)
{
	struct ferry_msg m = { .kind = FERRY_MSG_CONTEXT_CREATE };
	m.u.context_create = (struct ferry_context_create){ .ctx_id = ctx_id, .family = FERRY_FAMILY_MSM };
	return harness_request(hc, &m);
}

static inline uint32_t req_bo_create(struct harness_client *hc, uint32_t ctx_id, uint32_t bo_id, uint64_t size, uint32_t flags)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATE };
	m.u.bo_create = (struct ferry_bo_create){ .ctx_id = ctx_id, .bo_id = bo_id, .size = size, .flags = flags };
	return harness_request(hc, &m);
}

static inline uint32_t req_bo_info(struct harness_client *hc, uint32_t ctx_id, uint32_t bo_id)
{
	struct ferry_msg m = { .kind = FERRY_MSG_BO_INFO };
	m.u.bo_info = (struct ferry_bo_info){ .ctx_id = ctx_id, .bo_id = bo_id };
	return harness_request(hc, &m);
}

static inline uint32_t req_queue_create(struct harness_client *hc, uint32_t ctx_id, uint32_t queue_id, uint32_t prio)
{
	struct ferry_msg m = { .kind = FERRY_MSG_QUEUE_CREATE };
	m.u.queue_create = (struct ferry_queue_create){ .ctx_id = ctx_id, .queue_id = queue_id, .priority = prio };
	return harness_request(hc, &m);
}

static inline uint32_t req_fence_wait(struct harness_client *hc, uint32_t ctx_id, uint32_t queue_id, uint32_t seqno,
			       int64_t timeout_ns)
{
	struct ferry_msg m = { .kind = FERRY_MSG_FENCE_WAIT };
	m.u.fence_wait = (struct ferry_fence_wait){
		.ctx_id = ctx_id, .queue_id = queue_id, .seqno = seqno, .timeout_ns = timeout_ns,
	};
	return harness_request(hc, &m);
}

#define MSM_BO_WC_FLAG 0x00020000u /* MSM_BO_WC */

/* A context with a WC BO: returns the BO's mapping and fills iova / size. */
static inline void *harness_bo_map(struct rx_msg *created)
{
	REQUIRE(created && created->m.kind == FERRY_MSG_BO_CREATED && created->nfds == 1);
	void *p = mmap(NULL, created->m.u.bo_created.size, PROT_READ | PROT_WRITE, MAP_SHARED, created->fds[0], 0);
	REQUIRE(p != MAP_FAILED);
	return p;
}

#endif
