/* libferry devices: finding and opening ferryd, the handshake, the cached device query, and
 * sending requests. The receive side (message pump) is in pump.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ferry/bo_mirror.h"
#include "internal.h"

void ferry_set_error(struct ferry_device *dev, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dev->last_error, sizeof(dev->last_error), fmt, ap);
	va_end(ap);
}

void ferry_set_connection_lost(struct ferry_device *dev, int err)
{
	/* Said so a user can tell a board that died (or a balancer that cut the session) from a
	 * refused request: every context of this device is lost. */
	ferry_set_error(dev, "connection to the server (%s) was lost: %s; every context on it is lost",
			dev->transport->name, dev->transport->error[0] ? dev->transport->error : strerror(-err));
}

void ferry_set_send_error(struct ferry_device *dev, enum ferry_msg_kind kind, int err)
{
	if (err == -EPIPE || err == -ECONNRESET)
		ferry_set_connection_lost(dev, err);
	else
		ferry_set_error(dev, "sending %s failed: %s", ferry_msg_kind_name(kind), strerror(-err));
}

const char *ferry_device_last_error(const struct ferry_device *dev)
{
	return dev->last_error;
}

uint32_t ferry_next_seq(struct ferry_device *dev)
{
	/* seq 0 is reserved for events. */
	uint32_t seq;
	do
		seq = atomic_fetch_add(&dev->next_seq, 1);
	while (seq == 0);
	return seq;
}

int ferry_send_locked(struct ferry_device *dev, const struct ferry_msg *msg, const int *fds,
		      int nfds)
{
	ferry_buf_reset(&dev->send_buf);
	int r = ferry_wire_encode(msg, &dev->send_buf);
	if (r < 0)
		return r;
	r = ferry_transport_send(dev->transport, dev->send_buf.data, dev->send_buf.len, fds, nfds);
	if (r == 0 && msg->kind != FERRY_MSG_RING_CREATE)
		dev->sock_frames++;
	if (r == 0 && dev->capture)
		ferry_capture_frame(dev, msg, dev->send_buf.data, dev->send_buf.len);
	return r;
}

int ferry_send(struct ferry_device *dev, const struct ferry_msg *msg)
{
	pthread_mutex_lock(&dev->send_lock);
	int r = ferry_send_locked(dev, msg, NULL, 0);
	pthread_mutex_unlock(&dev->send_lock);
	return r;
}

int ferry_default_socket_path(char *buf, size_t len)
{
	const char *env = getenv("FERRY_SOCKET");
	int n;
	if (env && env[0]) {
		/* $FERRY_SOCKET may be a URI or a plain path; a virtio: URI stays one. */
		const char *path = strncmp(env, "unix:", 5) == 0 ? env + 5 : env;
		n = snprintf(buf, len, "%s", path);
	} else if ((env = getenv("XDG_RUNTIME_DIR")) && env[0]) {
		n = snprintf(buf, len, "%s/ferry/ferryd.sock", env);
	} else {
		n = snprintf(buf, len, "/tmp/ferry-%u/ferryd.sock", (unsigned)getuid());
	}
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* FERRY_AUTH_TOKEN_FILE's token into buf (transport/auth_token.c): 1, 0 when unset, or a
 * negative errno (dev's error says why). */
static int auth_token(struct ferry_device *dev, char *buf, size_t len)
{
	char why[FERRY_ERRMSG_LEN];
	int r = ferry_auth_token(buf, len, why, sizeof(why));
	if (r < 0)
		ferry_set_error(dev, "%s", why);
	return r;
}

/* The reason a ferryd refused us, when a refusal came before the connection closed: read what
 * is left if the request itself failed first (ferryd may close as our HELLO goes out). */
static const char *refusal(struct ferry_device *dev)
{
	for (int i = 0; i < 8 && !dev->refusal[0]; i++) {
		struct ferry_transport_frame f;
		if (ferry_transport_recv(dev->transport, 200ll * 1000 * 1000, &f) != 1)
			break;
		struct ferry_msg m;
		const char *why;
		if (ferry_wire_decode(f.payload, f.len, &m, &why) == 0 && m.kind == FERRY_MSG_ERROR &&
		    m.u.error.message)
			snprintf(dev->refusal, sizeof(dev->refusal), "%s", m.u.error.message);
		for (int k = 0; k < f.nfds; k++)
			close(f.fds[k]);
	}
	return dev->refusal[0] ? dev->refusal : NULL;
}

static int handshake(struct ferry_device *dev)
{
	struct ferry_msg msg = { .kind = FERRY_MSG_HELLO };
	msg.u.hello.version = FERRY_PROTOCOL_VERSION;
	msg.u.hello.features = FERRY_FEATURE_FENCE_PAGE | FERRY_FEATURE_MSM | FERRY_FEATURE_BO_BATCH |
			       FERRY_FEATURE_SUBMIT_RING;
	/* Only a network ferryd asks for it; a local one would not, and need not see it. */
	char token[300] = "";
	if (strncmp(dev->transport->name, "tcp:", 4) == 0) {
		int t = auth_token(dev, token, sizeof(token));
		if (t < 0)
			return t;
		if (t > 0)
			msg.u.hello.token = token;
	}
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	explicit_bzero(token, sizeof(token));
	if (r < 0) {
		const char *no = refusal(dev);
		if (no)
			ferry_set_error(dev, "ferryd refused the connection: %s", no);
		else
			ferry_set_error(dev, "handshake with %s failed: %s", dev->transport->name,
					dev->transport->error[0] ? dev->transport->error : strerror(-r));
		return r;
	}
	pthread_mutex_lock(&dev->lock);
	if (p->kind == FERRY_MSG_HELLO_REPLY) {
		snprintf(dev->server, sizeof(dev->server), "%s", p->text ? p->text : "");
		dev->server_features = p->msg.u.hello_reply.features;
		if (p->msg.u.hello_reply.version != FERRY_PROTOCOL_VERSION) {
			ferry_set_error(dev, "server speaks protocol %u, we speak %u",
					p->msg.u.hello_reply.version, FERRY_PROTOCOL_VERSION);
			r = -EPROTO;
		} else if (!(dev->server_features & FERRY_FEATURE_FENCE_PAGE)) {
			ferry_set_error(dev, "server has no fence pages");
			r = -EPROTO;
		}
	} else {
		r = p->kind == FERRY_MSG_ERROR ? p->msg.u.error.error : -EPROTO;
		ferry_set_error(dev, "ferryd refused the connection: %s", p->text ? p->text : "unexpected reply");
	}
	ferry_pending_free(dev, p);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

int ferry_device_open(const char *uri, struct ferry_device **out)
{
	char path[4096];
	int r;
	*out = NULL;
	if (!uri) {
		r = ferry_default_socket_path(path, sizeof(path));
		if (r < 0)
			return r;
		uri = path;
	}
	struct ferry_device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&dev->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->send_lock, NULL);
	ferry_buf_init(&dev->send_buf);
	atomic_init(&dev->next_seq, 1);
	dev->next_ctx_id = 1;
	dev->epfd = -1;
	dev->wait_spin_ns = ferry_wait_spin_setting();
	dev->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (dev->wake_fd < 0) {
		r = -errno;
		goto fail;
	}
	r = ferry_transport_open(uri, &dev->transport);
	/* Nothing configured and no ferryd socket here: inside a VM whose virtio-gpu device is
	 * ferry's renderer, that is the way to the host. */
	if (r < 0 && uri == path && !(getenv("FERRY_SOCKET") && getenv("FERRY_SOCKET")[0]) &&
	    ferry_transport_open("virtio:", &dev->transport) == 0)
		r = 0;
	if (r < 0) {
		/* The caller has no device to ask: say why here, as for a failed handshake. */
		const char *why = ferry_transport_open_error();
		if (why[0])
			fprintf(stderr, "ferry: %s\n", why);
		goto fail;
	}
	dev->transport->send_blocked = ferry_pump_drain_if_idle;
	dev->transport->send_blocked_arg = dev;
	r = ferry_pump_setup(dev);
	if (r < 0) {
		fprintf(stderr, "ferry: epoll: %s\n", strerror(-r));
		goto fail;
	}
	r = handshake(dev);
	if (r < 0) {
		/* Keep the reason: the caller has no device to ask. */
		fprintf(stderr, "ferry: %s\n", dev->last_error);
		goto fail;
	}
	/* The header names the GPU, so the device query comes first. */
	if (getenv("FERRY_CAPTURE") || getenv("FERRY_CAPTURE_DIR")) {
		r = ferry_device_info(dev, NULL, NULL);
		if (r == 0)
			r = ferry_capture_open_env(dev);
		if (r < 0)
			goto fail;
	}
	ferry_bo_stash_setup(dev);
	*out = dev;
	return 0;
fail:
	ferry_device_close(dev);
	return r;
}

void ferry_device_close(struct ferry_device *dev)
{
	if (!dev)
		return;
	while (dev->contexts)
		ferry_context_destroy(dev->contexts);
	pthread_mutex_lock(&dev->lock);
	while (dev->pending)
		ferry_pending_free(dev, dev->pending);
	pthread_mutex_unlock(&dev->lock);
	ferry_capture_close(dev);
	ferry_transport_destroy(dev->transport);
	if (dev->wake_fd >= 0)
		close(dev->wake_fd);
	if (dev->epfd >= 0)
		close(dev->epfd);
	ferry_buf_free(&dev->send_buf);
	free(dev->name);
	free(dev->params);
	pthread_cond_destroy(&dev->cond);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->send_lock);
	free(dev);
}

static int query_device(struct ferry_device *dev)
{
	struct ferry_msg msg = { .kind = FERRY_MSG_DEVICE_QUERY };
	msg.u.device_query.family = FERRY_FAMILY_NONE;
	struct ferry_pending *p;
	int r = ferry_request(dev, &msg, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&dev->lock);
	if (p->kind == FERRY_MSG_DEVICE_INFO) {
		if (!dev->have_info) {
			dev->family = p->msg.u.device_info.family;
			dev->name = p->text;
			dev->params = p->params;
			dev->nr_params = p->msg.u.device_info.nr_params;
			p->text = NULL;
			p->params = NULL;
			dev->have_info = true;
		}
	} else {
		r = p->kind == FERRY_MSG_ERROR ? p->msg.u.error.error : -EPROTO;
		ferry_set_error(dev, "device query failed: %s", p->text ? p->text : "bad reply");
	}
	ferry_pending_free(dev, p);
	pthread_mutex_unlock(&dev->lock);
	return r;
}

int ferry_device_info(struct ferry_device *dev, uint32_t *family, const char **name)
{
	pthread_mutex_lock(&dev->lock);
	bool have = dev->have_info;
	pthread_mutex_unlock(&dev->lock);
	if (!have) {
		int r = query_device(dev);
		if (r < 0)
			return r;
	}
	if (family)
		*family = dev->family;
	if (name)
		*name = dev->name ? dev->name : "";
	return 0;
}

int ferry_device_param(struct ferry_device *dev, uint32_t param, uint64_t *value)
{
	int r = ferry_device_info(dev, NULL, NULL);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < dev->nr_params; i++) {
		if (dev->params[i].id == param) {
			*value = dev->params[i].value;
			return 0;
		}
	}
	ferry_set_error(dev, "server did not report param %u", param);
	return -EINVAL;
}

int ferry_device_wire_stats(struct ferry_device *dev, struct ferry_wire_stats *out)
{
	struct ferry_wire_counters tx, rx;
	if (ferry_transport_wire_counters(dev->transport, &tx, &rx) < 0)
		return -ENOTSUP;
	*out = (struct ferry_wire_stats){
		.tx_frames = tx.frames, .tx_bytes = tx.bytes, .tx_bo_data_raw = tx.bo_data_raw,
		.tx_bo_data_wire = tx.bo_data_wire, .rx_frames = rx.frames, .rx_bytes = rx.bytes,
		.rx_bo_data_raw = rx.bo_data_raw, .rx_bo_data_wire = rx.bo_data_wire,
	};
	return 0;
}
