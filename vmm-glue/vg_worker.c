/* The renderer's worker thread: the only thread that calls into the ferry host. QEMU's main
 * thread queues contexts, EXECBUFFERs and fences here in its order; the worker handles them,
 * dispatches the host (retired work, fence pages, replies) and marks fences done. */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ferry/virtio.h"
#include "vg.h"

enum item_kind { ITEM_CTX_CREATE, ITEM_CTX_DESTROY, ITEM_SUBMIT, ITEM_FENCE, ITEM_RESET, ITEM_REFUSE };

/* Bytes of commands a context may have waiting for the worker (counted per bucket of context
 * ids): past it the guest sends faster than its commands are handled, and its context is
 * refused rather than the host's memory spent. */
#define QUEUE_CAP (64u << 20)
#define QUEUE_BUCKETS 1024u
static _Atomic uint64_t queued[QUEUE_BUCKETS];

struct item {
	enum item_kind kind;
	uint32_t ctx;      /* the virtio-gpu context (a NOTIFY fence's) */
	uint32_t tl_ctx, ring_idx;
	uint64_t fence_id; /* on sequence (tl_ctx, ring_idx) */
	bool notify;
	uint64_t key;      /* CTX_CREATE: the context's life (vg_res_ctx_begin) */
	bool blobs;        /* CTX_CREATE: of a capset with host blobs */
	size_t len;
	struct item *next;
	uint8_t data[];
};

static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static struct item *q_head, **q_tail = &q_head;
static int wake_fd = -1;
static pthread_t thread;
static bool running, stop;
static struct ferry_host *host;
static char device_name[64];
static int log_level = FERRY_LOG_WARN;

/* Worker-only: the virtio-gpu contexts. */
struct ctx_node {
	struct vg_ctx *c;
	struct ctx_node *next;
};
static struct ctx_node *ctxs;

void vg_log(int level, const char *fmt, ...)
{
	if (level > log_level)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ferry-vg: %s\n", msg);
}

static void host_log(void *cookie, int level, const char *msg)
{
	(void)cookie;
	vg_log(level, "%s", msg);
}

static void enqueue(struct item *it)
{
	pthread_mutex_lock(&qlock);
	*q_tail = it;
	q_tail = &it->next;
	pthread_mutex_unlock(&qlock);
	uint64_t one = 1;
	(void)!write(wake_fd, &one, sizeof(one));
}

static int push(enum item_kind kind, uint32_t ctx, const void *data, size_t len, struct item **out)
{
	struct item *it = malloc(sizeof(*it) + len);
	if (!it)
		return -ENOMEM;
	*it = (struct item){ .kind = kind, .ctx = ctx, .len = len };
	if (out) /* the caller fills the rest before it is queued */
		*out = it;
	if (len)
		memcpy(it->data, data, len);
	if (!out)
		enqueue(it);
	return 0;
}

int vg_worker_ctx_create(uint32_t ctx, uint64_t key, bool blobs)
{
	struct item *it;
	int r = push(ITEM_CTX_CREATE, ctx, NULL, 0, &it);
	if (r == 0) {
		it->key = key;
		it->blobs = blobs;
		enqueue(it);
	}
	return r;
}

int vg_worker_ctx_destroy(uint32_t ctx)
{
	return push(ITEM_CTX_DESTROY, ctx, NULL, 0, NULL);
}

/* Whether the EXECBUFFER carries a NOTIFY (its fence then waits): a walk of the packet headers,
 * bounded by the buffer; the worker checks everything else. */
static bool has_notify(const uint8_t *buf, size_t len)
{
	size_t off = 0;
	while (len - off >= sizeof(struct ferry_virtio_packet)) {
		struct ferry_virtio_packet p;
		memcpy(&p, buf + off, sizeof(p));
		off += sizeof(p);
		if (p.op == FERRY_VIRTIO_NOTIFY)
			return true;
		if (p.len > len - off || ferry_virtio_padded(p.len) > len - off)
			return false;
		off += ferry_virtio_padded(p.len);
	}
	return false;
}

int vg_worker_submit(uint32_t ctx, const void *buf, size_t len, bool *notify)
{
	*notify = has_notify(buf, len);
	_Atomic uint64_t *q = &queued[ctx % QUEUE_BUCKETS];
	if (atomic_fetch_add(q, len) + len > QUEUE_CAP) {
		atomic_fetch_sub(q, len);
		static bool said;
		if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
			vg_log(FERRY_LOG_WARN, "virtio-gpu context %u has more than %u MiB of commands waiting: refused "
			       "(said once)", ctx, QUEUE_CAP >> 20);
		(void)push(ITEM_REFUSE, ctx, NULL, 0, NULL);
		return -ENOBUFS;
	}
	int r = push(ITEM_SUBMIT, ctx, buf, len, NULL);
	if (r < 0)
		atomic_fetch_sub(q, len);
	return r;
}

int vg_worker_fence(uint32_t ctx, uint32_t ring_idx, uint64_t fence_id, bool notify, uint32_t notify_ctx)
{
	struct item *it;
	int r = push(ITEM_FENCE, notify_ctx, NULL, 0, &it);
	if (r == 0 && (r = vg_fence_create(ctx, ring_idx, fence_id, notify, notify_ctx)) < 0)
		free(it);
	if (r == 0) {
		it->tl_ctx = ctx;
		it->ring_idx = ring_idx;
		it->fence_id = fence_id;
		it->notify = notify;
		enqueue(it);
	}
	return r;
}

void vg_worker_reset(void)
{
	(void)push(ITEM_RESET, 0, NULL, 0, NULL);
}

const char *vg_worker_device_name(void)
{
	return device_name;
}

static struct vg_ctx *find(uint32_t id)
{
	for (struct ctx_node *n = ctxs; n; n = n->next)
		if (vg_ctx_id(n->c) == id)
			return n->c;
	return NULL;
}

static void drop(uint32_t id)
{
	for (struct ctx_node **pp = &ctxs; *pp; pp = &(*pp)->next) {
		if (vg_ctx_id((*pp)->c) == id) {
			struct ctx_node *n = *pp;
			*pp = n->next;
			uint64_t merged = vg_ctx_merged_bytes(n->c);
			vg_ctx_free(n->c);
			free(n);
			vg_fence_release_notify(id);
			/* What a vanished guest process left behind, for the operator (and the tests):
			 * its client went with its virtio-gpu context. */
			struct ferry_host_stats st;
			ferry_host_get_stats(host, &st);
			vg_log(FERRY_LOG_INFO, "virtio-gpu context %u gone: the host holds %u clients, %u contexts, %u BOs "
			       "(%llu bytes); its merges moved %llu bytes of BO pages", id, st.clients, st.contexts, st.bos,
			       (unsigned long long)st.bo_bytes, (unsigned long long)merged);
			return;
		}
	}
}

static void drop_all(void)
{
	while (ctxs)
		drop(vg_ctx_id(ctxs->c));
}

static void handle(struct item *it)
{
	struct vg_ctx *c = it->kind == ITEM_RESET ? NULL : find(it->ctx);
	switch (it->kind) {
	case ITEM_CTX_CREATE: {
		struct ctx_node *n = c ? NULL : malloc(sizeof(*n));
		if (n && (n->c = vg_ctx_new(host, it->ctx, it->key, it->blobs))) {
			n->next = ctxs;
			ctxs = n;
		} else {
			free(n);
			if (!c)
				vg_log(FERRY_LOG_ERROR, "context %u: out of memory", it->ctx);
		}
		break;
	}
	case ITEM_CTX_DESTROY:
		drop(it->ctx);
		break;
	case ITEM_SUBMIT:
		atomic_fetch_sub(&queued[it->ctx % QUEUE_BUCKETS], it->len);
		if (c)
			vg_ctx_submit(c, it->data, it->len);
		else
			vg_log(FERRY_LOG_WARN, "a command for context %u, which does not exist: ignored", it->ctx);
		break;
	case ITEM_REFUSE:
		if (c)
			vg_ctx_fail(c, -ENOBUFS, "its commands pile up faster than they are handled");
		break;
	case ITEM_FENCE:
		vg_fence_done(it->tl_ctx, it->ring_idx, it->fence_id);
		break;
	case ITEM_RESET:
		drop_all();
		break;
	}
}

static void update_all(void)
{
	for (struct ctx_node *n = ctxs; n; n = n->next) {
		vg_ctx_update(n->c);
		if (vg_ctx_notify_due(n->c) && vg_fence_release_notify(vg_ctx_id(n->c)))
			vg_ctx_notify_disarm(n->c);
	}
}

#define MAX_POLL 256

static void *worker(void *arg)
{
	(void)arg;
	struct pollfd pfd[MAX_POLL];
	for (;;) {
		int n = 0;
		pfd[n++] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = ferry_host_poll_fd(host), .events = POLLIN };
		int efds[MAX_POLL];
		for (struct ctx_node *c = ctxs; c && n < MAX_POLL; c = c->next) {
			int k = vg_ctx_event_fds(c->c, efds, MAX_POLL - n);
			for (int i = 0; i < k; i++)
				pfd[n++] = (struct pollfd){ .fd = efds[i], .events = POLLIN };
		}
		int timeout = ferry_host_next_timeout_ms(host);
		bool backlog = false, ring_more = false;
		uint64_t ring_look_ns = 0;
		for (struct ctx_node *c = ctxs; c; c = c->next) {
			backlog |= vg_ctx_backlogged(c->c);
			ring_more |= vg_ctx_ring_more(c->c);
			uint64_t ns = vg_ctx_ring_look_ns(c->c);
			if (ns && (!ring_look_ns || ns < ring_look_ns))
				ring_look_ns = ns;
		}
		/* Submit rings with records a bounded pass left: another pass at once. */
		if (ring_more)
			timeout = 0;
		/* The guest's reader frees ring room by a store, which wakes nothing here. */
		if (backlog && (timeout < 0 || timeout > 1))
			timeout = 1;
		/* Past MAX_POLL event fds, look at least every 10 ms (QEMU's own poll period). */
		if (n == MAX_POLL && (timeout < 0 || timeout > 10))
			timeout = 10;
		/* A ring not armed is looked at within its time (vg_ctx_ring_look_ns): a ms while
		 * its work runs, whether or not that work retires (it may wait for a record still
		 * in the ring); a tick while it lingers after taking records. */
		struct timespec ts, *tsp = NULL;
		if (timeout >= 0)
			ts = (struct timespec){ timeout / 1000, (long)(timeout % 1000) * 1000000 };
		if (ring_look_ns && (timeout < 0 || ring_look_ns < (uint64_t)timeout * 1000000u))
			ts = (struct timespec){ (time_t)(ring_look_ns / 1000000000u), (long)(ring_look_ns % 1000000000u) };
		if (timeout >= 0 || ring_look_ns)
			tsp = &ts;
		ppoll(pfd, (nfds_t)n, tsp, NULL);
		for (int i = 2; i < n; i++) {
			uint64_t v;
			if (pfd[i].revents & POLLIN)
				(void)!read(pfd[i].fd, &v, sizeof(v));
		}
		uint64_t v;
		(void)!read(wake_fd, &v, sizeof(v));
		pthread_mutex_lock(&qlock);
		struct item *list = q_head;
		q_head = NULL;
		q_tail = &q_head;
		bool quit = stop;
		pthread_mutex_unlock(&qlock);
		while (list) {
			struct item *it = list;
			list = it->next;
			handle(it);
			if (it->kind == ITEM_FENCE && it->notify) {
				struct vg_ctx *c = find(it->ctx);
				if (!c)
					vg_fence_release_notify(it->ctx);
				else if (vg_ctx_notify_due(c) && vg_fence_release_notify(it->ctx))
					vg_ctx_notify_disarm(c);
			}
			/* Completed work retires between submits, as ferryd's loop retires it between the
			 * messages it reads: a guest's backlog of pipelined submits otherwise holds all
			 * their shadow copies at once and hits the client's shadow quota. */
			if (it->kind == ITEM_SUBMIT)
				ferry_host_dispatch(host);
			free(it);
		}
		ferry_host_dispatch(host);
		update_all();
		if (quit)
			break;
	}
	drop_all();
	return NULL;
}

int vg_worker_start(const struct vg_config *cfg)
{
	if (running)
		return 0;
	log_level = cfg->host.log_level;
	vg_ring_set_linger(cfg->ring_linger_us);
	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0)
		return -errno;
	struct ferry_host_config hc = cfg->host;
	hc.log = host_log;
	int r = ferry_host_create(&hc, &host);
	if (r < 0) {
		vg_log(FERRY_LOG_ERROR, "cannot create the ferry host for %s: %s", hc.gpu ? hc.gpu : "a630", strerror(-r));
		close(wake_fd);
		wake_fd = -1;
		return r;
	}
	snprintf(device_name, sizeof(device_name), "%s", ferry_host_device_name(host));
	stop = false;
	if ((r = pthread_create(&thread, NULL, worker, NULL)) != 0) {
		ferry_host_destroy(host);
		host = NULL;
		close(wake_fd);
		wake_fd = -1;
		return -r;
	}
	running = true;
	return 0;
}

void vg_worker_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&qlock);
	stop = true;
	pthread_mutex_unlock(&qlock);
	uint64_t one = 1;
	(void)!write(wake_fd, &one, sizeof(one));
	pthread_join(thread, NULL);
	running = false;
	while (q_head) {
		struct item *it = q_head;
		q_head = it->next;
		if (it->kind == ITEM_SUBMIT)
			atomic_fetch_sub(&queued[it->ctx % QUEUE_BUCKETS], it->len);
		free(it);
	}
	q_tail = &q_head;
	ferry_host_destroy(host);
	host = NULL;
	close(wake_fd);
	wake_fd = -1;
}
