/* The virtio-gpu transport (docs/vm.md): ferry frames go to the host in EXECBUFFERs, replies come
 * back through a guest-backed reply ring the host writes, and the fds a unix socket would carry
 * are made here: a BO's and a fence page's pages are guest-backed resources (exported as
 * dma-bufs for libferry to map), a context's eventfd is signaled by this transport's notifier
 * thread. The notifier sleeps on the fence fd of a NOTIFY EXECBUFFER, never spins. A submit
 * ring is a guest-backed resource too; its doorbell a KICK EXECBUFFER. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "virtgpu_ext.h" /* <drm.h>, <virtgpu_drm.h> and what 6.1 adds to them */

#include "ferry/array.h"
#include "ferry/fence_page.h"
#include "ferry/submit_ring.h"
#include "ferry/virtio.h"
#include "transport.h"

/* Bytes of the reply ring's data area: room for the largest frame, a power of two. */
#define RING_SIZE (2u << 20)
/* virgl's buffer target and a plain byte format: what the guest kernel passes through. */
#define PIPE_BUFFER 0u
#define VIRGL_FORMAT_R8_UNORM 64u
#define VIRGL_BIND_CUSTOM (1u << 17)

struct vobj {
	uint32_t kind; /* FERRY_VIRTIO_BIND_* */
	uint32_t ctx_id, bo_id;
	uint32_t seq; /* of the frame that makes the object: an Error for it frees the resource */
	uint32_t gem, res;
	struct vobj *next;
};

struct virtio_transport {
	struct ferry_transport base;
	char name[80];
	int fd;
	uint32_t ring_gem;
	uint8_t *ring_map;
	size_t ring_map_len;
	struct ferry_virtio_ring *ring;
	uint8_t *ring_data;
	uint64_t read_pos;
	uint64_t *frame; /* the frame recv handed out last (8-byte aligned) */
	size_t frame_cap;
	int poll_efd;
	pthread_t notifier;
	bool notifier_started;
	atomic_bool stop;
	pthread_mutex_t lock; /* objs, the send buffer */
	struct vobj *objs;
	/* Every context's eventfd is a copy of this one: a fence page update wakes libferry's pump,
	 * whose waiters all look at their own pages again. */
	int page_efd;
	/* Every submit ring's doorbell is a copy of this one: the notifier turns a ring into a KICK
	 * EXECBUFFER. */
	int bell_efd;
	/* A send failed part-way: the host holds a partial frame, the stream is out of step. */
	bool dead;
	/* The device has context types and host-visible blobs (newer VMMs; docs/vm.md): this
	 * context is of ferry's capset, BOs and fence pages are host blobs, EXECBUFFERs name ring 0.
	 * Untested: no VMM here offers them. */
	bool blobs;
	uint8_t *out;
	size_t out_len, out_cap;
};

int ferry_virtio_open_node(const char *path)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
}

/* As libdrm's drmIoctl: a signal (or a busy device) before the kernel took the request is no
 * answer, so the request goes again; EXECBUFFER is only queued once it returns 0. */
static int drm_ioctl(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r;
}

static void signal_efd(int fd)
{
	uint64_t one = 1;
	(void)!write(fd, &one, sizeof(one));
}

int ferry_virtio_execbuffer(int fd, const void *buf, size_t len, int *fence_fd)
{
	struct drm_virtgpu_execbuffer eb = {
		.flags = fence_fd ? VIRTGPU_EXECBUF_FENCE_FD_OUT : 0,
		.size = (uint32_t)len,
		.command = (uintptr_t)buf,
		.fence_fd = -1,
	};
	if (drm_ioctl(fd, DRM_IOCTL_VIRTGPU_EXECBUFFER, &eb) < 0)
		return -errno;
	if (fence_fd)
		*fence_fd = eb.fence_fd;
	return 0;
}

/* An EXECBUFFER of this transport's context: on ring 0 of its own fence sequence where the
 * device has context types. */
static int tx_execbuffer(struct virtio_transport *t, const void *buf, size_t len, int *fence_fd)
{
	if (!t->blobs)
		return ferry_virtio_execbuffer(t->fd, buf, len, fence_fd);
	struct ferry_virtgpu_execbuffer_ring eb = {
		.flags = FERRY_VIRTGPU_EXECBUF_RING_IDX | (fence_fd ? VIRTGPU_EXECBUF_FENCE_FD_OUT : 0),
		.size = (uint32_t)len, .command = (uintptr_t)buf, .fence_fd = -1, .ring_idx = 0,
	};
	if (drm_ioctl(t->fd, FERRY_DRM_IOCTL_VIRTGPU_EXECBUFFER_RING, &eb) < 0)
		return -errno;
	if (fence_fd)
		*fence_fd = eb.fence_fd;
	return 0;
}

int ferry_virtio_resource_new(int fd, uint64_t size, uint32_t *gem, uint32_t *res)
{
	if (size == 0 || size > UINT32_MAX)
		return -EINVAL;
	struct drm_virtgpu_resource_create rc = {
		.target = PIPE_BUFFER, .format = VIRGL_FORMAT_R8_UNORM, .bind = VIRGL_BIND_CUSTOM,
		.width = (uint32_t)size, .height = 1, .depth = 1, .array_size = 1, .size = (uint32_t)size,
	};
	if (drm_ioctl(fd, DRM_IOCTL_VIRTGPU_RESOURCE_CREATE, &rc) < 0)
		return -errno;
	*gem = rc.bo_handle;
	*res = rc.res_handle;
	return 0;
}

static void gem_close(int fd, uint32_t gem)
{
	if (!gem)
		return; /* a blob the host never got to make */
	struct drm_gem_close gc = { .handle = gem };
	drm_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

/* Stages a packet for the next EXECBUFFER (t->lock held). */
static int stage(struct virtio_transport *t, uint32_t op, const void *data, uint32_t len)
{
	size_t need = sizeof(struct ferry_virtio_packet) + ferry_virtio_padded(len);
	if (FERRY_ARRAY_RESERVE(t->out, t->out_cap, t->out_len + need, 4096))
		return -ENOMEM;
	struct ferry_virtio_packet p = { op, len };
	memcpy(t->out + t->out_len, &p, sizeof(p));
	memcpy(t->out + t->out_len + sizeof(p), data, len);
	memset(t->out + t->out_len + sizeof(p) + len, 0, ferry_virtio_padded(len) - len);
	t->out_len += need;
	return 0;
}

static int flush_out(struct virtio_transport *t)
{
	if (!t->out_len)
		return 0;
	int r = tx_execbuffer(t, t->out, t->out_len, NULL);
	t->out_len = 0;
	return r;
}

/* A resource for what the frame creates, bound before the frame (t->lock held). */
static int bind_for(struct virtio_transport *t, const struct ferry_msg *m)
{
	struct vobj o = { 0 };
	uint64_t size;
	if (m->kind == FERRY_MSG_RING_CREATE) {
		/* Host blobs would be the ring's memory there; the host answers no (docs/vm.md). */
		if (t->blobs)
			return 0;
		o = (struct vobj){ FERRY_VIRTIO_BIND_RING, m->u.ring_create.ctx_id, 0, m->seq, 0, 0, NULL };
		size = (uint64_t)FERRY_RING_HDR_SIZE + m->u.ring_create.data_size;
	} else if (m->kind == FERRY_MSG_CONTEXT_CREATE) {
		o = (struct vobj){ FERRY_VIRTIO_BIND_FENCE_PAGE, m->u.context_create.ctx_id, 0, m->seq, 0, 0, NULL };
		size = FERRY_FENCE_PAGE_SIZE;
	} else if (m->kind == FERRY_MSG_BO_CREATE) {
		o = (struct vobj){ FERRY_VIRTIO_BIND_BO, m->u.bo_create.ctx_id, m->u.bo_create.bo_id, m->seq, 0, 0, NULL };
		size = (m->u.bo_create.size + 4095) & ~(uint64_t)4095;
	} else {
		return 0;
	}
	struct vobj *n = malloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	/* With blobs the host's pages come once the object exists (substitute), and need no BIND. */
	int r = t->blobs ? 0 : ferry_virtio_resource_new(t->fd, size, &o.gem, &o.res);
	if (r < 0) {
		free(n);
		return r;
	}
	*n = o;
	n->next = t->objs;
	t->objs = n;
	if (t->blobs)
		return 0;
	struct ferry_virtio_bind b = { o.kind, o.res, o.ctx_id, o.bo_id };
	return stage(t, FERRY_VIRTIO_BIND, &b, sizeof(b));
}

/* Whether m ends o: a close sent for it (or its context), or the host's refusal of the frame
 * that was to make it. */
static bool ends(const struct vobj *o, const struct ferry_msg *m)
{
	switch (m->kind) {
	case FERRY_MSG_BO_CLOSE:
		return o->kind == FERRY_VIRTIO_BIND_BO && o->ctx_id == m->u.bo_close.ctx_id &&
		       o->bo_id == m->u.bo_close.bo_id;
	case FERRY_MSG_CONTEXT_DESTROY:
		return o->ctx_id == m->u.context_destroy.ctx_id;
	case FERRY_MSG_ERROR:
		return o->seq == m->seq && (m->u.error.request_kind == FERRY_MSG_BO_CREATE ||
					    m->u.error.request_kind == FERRY_MSG_CONTEXT_CREATE ||
					    m->u.error.request_kind == FERRY_MSG_RING_CREATE);
	default:
		return false;
	}
}

/* The objects m ends (t->lock held): their resources go (a close once it was sent). */
static void forget(struct virtio_transport *t, const struct ferry_msg *m)
{
	for (struct vobj **pp = &t->objs; *pp;) {
		struct vobj *o = *pp;
		if (ends(o, m)) {
			*pp = o->next;
			gem_close(t->fd, o->gem);
			free(o);
		} else {
			pp = &o->next;
		}
	}
}

static bool decode(const void *frame_payload, size_t len, struct ferry_msg *m, uint64_t **copy)
{
	*copy = malloc((len + 7) & ~(size_t)7);
	if (!*copy)
		return false;
	memcpy(*copy, frame_payload, len);
	return ferry_wire_decode(*copy, len, m, NULL) == 0;
}

static int virtio_send(struct ferry_transport *tr, const void *frame, size_t len, const int *fds, int nfds)
{
	struct virtio_transport *t = (struct virtio_transport *)tr;
	(void)fds;
	(void)nfds; /* no fd crosses virtio-gpu: a BoImport goes without and the host refuses it */
	if (len < FERRY_FRAME_HDR_SIZE)
		return -EINVAL;
	struct ferry_msg m;
	uint64_t *copy = NULL;
	bool known = decode((const uint8_t *)frame + FERRY_FRAME_HDR_SIZE, len - FERRY_FRAME_HDR_SIZE, &m, &copy);
	pthread_mutex_lock(&t->lock);
	int r = t->dead ? -EPIPE : known ? bind_for(t, &m) : 0;
	bool sent_some = false;
	const uint8_t *p = frame;
	size_t left = len;
	const size_t room = FERRY_VIRTIO_MAX_EXECBUFFER - 2 * sizeof(struct ferry_virtio_packet) - 64;
	while (r == 0 && left) {
		size_t n = left < room ? left : room;
		r = stage(t, FERRY_VIRTIO_STREAM, p, (uint32_t)n);
		if (r == 0)
			r = flush_out(t);
		if (r < 0 && sent_some)
			t->dead = true; /* the host has a partial frame: nothing after it would make sense */
		sent_some |= r == 0;
		p += n;
		left -= n;
	}
	if (r == 0 && known)
		forget(t, &m);
	t->out_len = 0;
	pthread_mutex_unlock(&t->lock);
	free(copy);
	return r;
}

/* The ring's bytes at pos (wrapping). */
static void ring_copy(struct virtio_transport *t, uint64_t pos, void *dst, size_t n)
{
	size_t at = (size_t)(pos & (RING_SIZE - 1));
	size_t first = RING_SIZE - at < n ? RING_SIZE - at : n;
	memcpy(dst, t->ring_data + at, first);
	memcpy((uint8_t *)dst + first, t->ring_data, n - first);
}

static int prime_fd(int fd, uint32_t gem)
{
	struct drm_prime_handle ph = { .handle = gem, .flags = DRM_CLOEXEC | DRM_RDWR, .fd = -1 };
	return drm_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph) < 0 ? -errno : ph.fd;
}

/* The fds a unix socket would have carried with this reply. */
static void substitute(struct virtio_transport *t, const struct ferry_msg *m, struct ferry_transport_frame *out)
{
	out->nfds = 0;
	pthread_mutex_lock(&t->lock);
	for (struct vobj *o = t->objs; o; o = o->next) {
		bool page = m->kind == FERRY_MSG_CONTEXT_CREATED && o->kind == FERRY_VIRTIO_BIND_FENCE_PAGE &&
			    o->ctx_id == m->u.context_created.ctx_id;
		bool bo = m->kind == FERRY_MSG_BO_CREATED && o->kind == FERRY_VIRTIO_BIND_BO &&
			  o->ctx_id == m->u.bo_created.ctx_id && o->bo_id == m->u.bo_created.bo_id;
		bool ring = m->kind == FERRY_MSG_RING_CREATED && o->kind == FERRY_VIRTIO_BIND_RING &&
			    o->ctx_id == m->u.ring_created.ctx_id && o->gem;
		if (ring) {
			/* The ring's pages and its doorbell, as a socket's RingCreated carries them. */
			int f = prime_fd(t->fd, o->gem);
			int e = f >= 0 ? fcntl(t->bell_efd, F_DUPFD_CLOEXEC, 0) : -1;
			if (f >= 0 && e >= 0) {
				out->fds[out->nfds++] = f;
				out->fds[out->nfds++] = e;
			} else if (f >= 0) {
				close(f);
			}
			break;
		}
		if (!page && !bo)
			continue;
		if (t->blobs && !o->gem) {
			/* The host published the object's pages under this id when it made it. */
			struct ferry_virtgpu_resource_create_blob cb = {
				.blob_mem = FERRY_VIRTGPU_BLOB_MEM_HOST3D,
				.blob_flags = FERRY_VIRTGPU_BLOB_FLAG_USE_MAPPABLE | FERRY_VIRTGPU_BLOB_FLAG_USE_SHAREABLE,
				.size = page ? FERRY_FENCE_PAGE_SIZE : m->u.bo_created.size,
				.blob_id = (uint64_t)o->ctx_id << 32 | (page ? 0 : o->bo_id),
			};
			if (drm_ioctl(t->fd, FERRY_DRM_IOCTL_VIRTGPU_RESOURCE_CREATE_BLOB, &cb) < 0)
				break;
			o->gem = cb.bo_handle;
			o->res = cb.res_handle;
		}
		int f = prime_fd(t->fd, o->gem);
		if (f < 0)
			break;
		out->fds[out->nfds++] = f;
		int e = page ? fcntl(t->page_efd, F_DUPFD_CLOEXEC, 0) : -1;
		if (e >= 0)
			out->fds[out->nfds++] = e;
		break;
	}
	pthread_mutex_unlock(&t->lock);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int virtio_recv(struct ferry_transport *tr, int64_t timeout_ns, struct ferry_transport_frame *out)
{
	struct virtio_transport *t = (struct virtio_transport *)tr;
	int64_t deadline = timeout_ns < 0 ? -1 : now_ns() + timeout_ns;
	for (;;) {
		uint32_t err = __atomic_load_n(&t->ring->error, __ATOMIC_ACQUIRE);
		uint64_t wp = __atomic_load_n(&t->ring->write_pos, __ATOMIC_ACQUIRE);
		uint64_t avail = wp - t->read_pos;
		if (avail > RING_SIZE)
			return -EPROTO;
		if (avail >= FERRY_FRAME_HDR_SIZE) {
			uint32_t plen;
			ring_copy(t, t->read_pos, &plen, sizeof(plen));
			if (plen == 0 || plen > FERRY_MAX_FRAME_SIZE)
				return -EPROTO;
			if (avail >= FERRY_FRAME_HDR_SIZE + (uint64_t)plen) {
				if (plen > t->frame_cap) {
					uint64_t *f = realloc(t->frame, ((size_t)plen + 7) & ~(size_t)7);
					if (!f)
						return -ENOMEM;
					t->frame = f;
					t->frame_cap = ((size_t)plen + 7) & ~(size_t)7;
				}
				ring_copy(t, t->read_pos + FERRY_FRAME_HDR_SIZE, t->frame, plen);
				t->read_pos += FERRY_FRAME_HDR_SIZE + (uint64_t)plen;
				__atomic_store_n(&t->ring->read_pos, t->read_pos, __ATOMIC_RELEASE);
				out->payload = t->frame;
				out->len = plen;
				struct ferry_msg m;
				out->nfds = 0;
				if (ferry_wire_decode(t->frame, plen, &m, NULL) == 0) {
					substitute(t, &m, out);
					if (m.kind == FERRY_MSG_ERROR) {
						pthread_mutex_lock(&t->lock);
						forget(t, &m);
						pthread_mutex_unlock(&t->lock);
					}
				}
				return 1;
			}
		}
		if (err || t->dead)
			return -EPIPE; /* the host refused this context, or the stream broke: nothing more comes */
		if (timeout_ns == 0)
			return 0;
		int wait_ms = -1;
		if (deadline >= 0) {
			int64_t left = deadline - now_ns();
			if (left <= 0)
				return 0;
			wait_ms = (int)((left + 999999) / 1000000);
		}
		struct pollfd pfd = { .fd = t->poll_efd, .events = POLLIN };
		int r = poll(&pfd, 1, wait_ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		uint64_t v;
		(void)!read(t->poll_efd, &v, sizeof(v));
	}
}

static int virtio_poll_fd(const struct ferry_transport *tr)
{
	return ((const struct virtio_transport *)tr)->poll_efd;
}

/* The doorbell of a submit ring (FERRY_VIRTIO_KICK_ALL: every ring of this context): a KICK,
 * with no fence. */
static int kick(struct virtio_transport *t, uint32_t ctx_id)
{
	struct {
		struct ferry_virtio_packet p;
		struct ferry_virtio_kick k;
	} b = { { FERRY_VIRTIO_KICK, sizeof(struct ferry_virtio_kick) }, { ctx_id, 0 } };
	pthread_mutex_lock(&t->lock);
	int r = atomic_load(&t->stop) ? -EPIPE : tx_execbuffer(t, &b, sizeof(b), NULL);
	pthread_mutex_unlock(&t->lock);
	return r;
}

static int virtio_ring_doorbell(struct ferry_transport *tr, uint32_t ctx_id)
{
	return kick((struct virtio_transport *)tr, ctx_id);
}

/* Sleeps on a NOTIFY's fence until the host wrote a reply or a fence page, then wakes libferry's
 * reader (the transport's fd) and its fence waiters (the contexts' eventfds). */
static void *notifier(void *arg)
{
	struct virtio_transport *t = arg;
	uint64_t seen_pos = 0;
	uint32_t seen_gen = 0;
	uint8_t buf[sizeof(struct ferry_virtio_packet) + sizeof(struct ferry_virtio_notify)];
	for (;;) {
		uint64_t wp = __atomic_load_n(&t->ring->write_pos, __ATOMIC_ACQUIRE);
		uint32_t gen = __atomic_load_n(&t->ring->page_gen, __ATOMIC_ACQUIRE);
		uint32_t err = __atomic_load_n(&t->ring->error, __ATOMIC_ACQUIRE);
		if (wp != seen_pos || err)
			signal_efd(t->poll_efd);
		if (gen != seen_gen || err)
			signal_efd(t->page_efd);
		seen_pos = wp;
		seen_gen = gen;
		if (err)
			break;
		struct ferry_virtio_packet p = { FERRY_VIRTIO_NOTIFY, sizeof(struct ferry_virtio_notify) };
		struct ferry_virtio_notify n = { .read_pos = wp, .page_gen = gen };
		memcpy(buf, &p, sizeof(p));
		memcpy(buf + sizeof(p), &n, sizeof(n));
		/* stop is read and the NOTIFY sent under the lock virtio_destroy sets stop and sends
		 * its wake-up under: a NOTIFY is never the device's last fence after destroy began. */
		int fence = -1;
		pthread_mutex_lock(&t->lock);
		bool stopping = atomic_load(&t->stop);
		int r = stopping ? 0 : tx_execbuffer(t, buf, sizeof(buf), &fence);
		pthread_mutex_unlock(&t->lock);
		if (stopping)
			break;
		if (r < 0) {
			signal_efd(t->poll_efd);
			break;
		}
		/* Until the fence: each ring of a doorbell is one KICK (for every ring of this
		 * context: the host looks at those it asked to be woken for). */
		for (;;) {
			struct pollfd pfd[2] = { { .fd = fence, .events = POLLIN }, { .fd = t->bell_efd, .events = POLLIN } };
			if (poll(pfd, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (pfd[1].revents & POLLIN) {
				uint64_t v;
				if (read(t->bell_efd, &v, sizeof(v)) == sizeof(v))
					(void)kick(t, FERRY_VIRTIO_KICK_ALL);
			}
			if (pfd[0].revents)
				break;
		}
		close(fence);
	}
	return NULL;
}

static void virtio_destroy(struct ferry_transport *tr)
{
	struct virtio_transport *t = (struct virtio_transport *)tr;
	if (t->notifier_started) {
		/* Any later fence lets the notifier's held one complete; under the lock, so that no
		 * NOTIFY of the notifier's follows it. The kernel fences an EXECBUFFER only when asked
		 * for an out-fence (Debian's 6.1 does not fence the others), so one is asked for. */
		pthread_mutex_lock(&t->lock);
		atomic_store(&t->stop, true);
		struct ferry_virtio_packet p = { FERRY_VIRTIO_STREAM, 0 };
		int fence = -1;
		if (tx_execbuffer(t, &p, sizeof(p), &fence) == 0 && fence >= 0)
			close(fence);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->notifier, NULL);
	}
	while (t->objs) {
		struct vobj *o = t->objs;
		t->objs = o->next;
		gem_close(t->fd, o->gem);
		free(o);
	}
	if (t->page_efd >= 0)
		close(t->page_efd);
	if (t->bell_efd >= 0)
		close(t->bell_efd);
	if (t->ring_map)
		munmap(t->ring_map, t->ring_map_len);
	if (t->ring_gem)
		gem_close(t->fd, t->ring_gem);
	if (t->poll_efd >= 0)
		close(t->poll_efd);
	if (t->fd >= 0)
		close(t->fd);
	pthread_mutex_destroy(&t->lock);
	free(t->frame);
	free(t->out);
	free(t);
}

static const struct ferry_transport_ops virtio_ops = {
	.send = virtio_send,
	.recv = virtio_recv,
	.poll_fd = virtio_poll_fd,
	.destroy = virtio_destroy,
	.ring_doorbell = virtio_ring_doorbell,
};

int ferry_transport_virtio_probe(int fd, struct ferry_virtio_caps *caps)
{
	struct ferry_virtio_caps c;
	memset(&c, 0, sizeof(c));
	struct drm_virtgpu_get_caps gc = {
		.cap_set_id = FERRY_VIRTIO_CAPSET_ID, .cap_set_ver = FERRY_VIRTIO_CAPSET_VERSION,
		.addr = (uintptr_t)&c, .size = sizeof(c),
	};
	if (drm_ioctl(fd, DRM_IOCTL_VIRTGPU_GET_CAPS, &gc) < 0)
		return -errno;
	if (c.magic != FERRY_VIRTIO_CAPS_MAGIC)
		return -ENODEV;
	if (c.version != FERRY_VIRTIO_VERSION)
		return -EPROTONOSUPPORT;
	c.device[sizeof(c.device) - 1] = '\0';
	if (caps)
		*caps = c;
	return 0;
}

static uint64_t getparam(int fd, uint64_t param)
{
	int v = 0;
	struct drm_virtgpu_getparam gp = { .param = param, .value = (uintptr_t)&v };
	return drm_ioctl(fd, DRM_IOCTL_VIRTGPU_GETPARAM, &gp) < 0 ? 0 : (uint64_t)(unsigned)v;
}

/* Where the device has context types and host-visible blobs and its DRM capset is ferry's, this
 * open's context is made of that capset (before anything else makes it a plain one). */
static bool init_blob_context(int fd)
{
	if (!getparam(fd, FERRY_VIRTGPU_PARAM_CONTEXT_INIT) || !getparam(fd, FERRY_VIRTGPU_PARAM_RESOURCE_BLOB) ||
	    !getparam(fd, FERRY_VIRTGPU_PARAM_HOST_VISIBLE) ||
	    !(getparam(fd, FERRY_VIRTGPU_PARAM_SUPPORTED_CAPSET_IDS) & (1u << FERRY_VIRTIO_CAPSET_DRM)))
		return false;
	struct ferry_virtio_caps c;
	memset(&c, 0, sizeof(c));
	struct drm_virtgpu_get_caps gc = { .cap_set_id = FERRY_VIRTIO_CAPSET_DRM, .cap_set_ver = FERRY_VIRTIO_CAPSET_VERSION,
					   .addr = (uintptr_t)&c, .size = sizeof(c) };
	if (drm_ioctl(fd, DRM_IOCTL_VIRTGPU_GET_CAPS, &gc) < 0 || c.magic != FERRY_VIRTIO_CAPS_MAGIC)
		return false;
	struct ferry_virtgpu_context_set_param params[2] = {
		{ FERRY_VIRTGPU_CONTEXT_PARAM_CAPSET_ID, FERRY_VIRTIO_CAPSET_DRM },
		{ FERRY_VIRTGPU_CONTEXT_PARAM_NUM_RINGS, 1 },
	};
	struct ferry_virtgpu_context_init ci = { .num_params = 2, .ctx_set_params = (uintptr_t)params };
	return drm_ioctl(fd, FERRY_DRM_IOCTL_VIRTGPU_CONTEXT_INIT, &ci) == 0;
}

int ferry_virtio_find_node(char *path, size_t len)
{
	for (int minor = 128; minor < 192; minor++) {
		snprintf(path, len, "/dev/dri/renderD%d", minor);
		int fd = ferry_virtio_open_node(path);
		if (fd < 0)
			continue;
		int r = ferry_transport_virtio_probe(fd, NULL);
		close(fd);
		if (r == 0)
			return 0;
	}
	return -ENODEV;
}

int ferry_transport_virtio_open(const char *path, struct ferry_transport **out)
{
	*out = NULL;
	char found[64];
	if (!path || !path[0]) {
		int r = ferry_virtio_find_node(found, sizeof(found));
		if (r < 0)
			return r;
		path = found;
	}
	struct virtio_transport *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->fd = -1;
	t->poll_efd = -1;
	t->page_efd = -1;
	t->bell_efd = -1;
	pthread_mutex_init(&t->lock, NULL);
	t->base.ops = &virtio_ops;
	snprintf(t->name, sizeof(t->name), "virtio:%s", path);
	t->base.name = t->name;
	int r = 0;
	t->fd = ferry_virtio_open_node(path);
	if (t->fd < 0)
		r = -errno;
	if (r == 0)
		r = ferry_transport_virtio_probe(t->fd, NULL);
	if (r == 0)
		t->blobs = init_blob_context(t->fd);
	if (r == 0 && ((t->poll_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
		       (t->page_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
		       (t->bell_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0))
		r = -errno;
	uint32_t ring_res = 0;
	t->ring_map_len = FERRY_VIRTIO_RING_HEADER + RING_SIZE;
	if (r == 0)
		r = ferry_virtio_resource_new(t->fd, t->ring_map_len, &t->ring_gem, &ring_res);
	if (r == 0) {
		struct drm_virtgpu_map mp = { .handle = t->ring_gem };
		if (drm_ioctl(t->fd, DRM_IOCTL_VIRTGPU_MAP, &mp) < 0) {
			r = -errno;
		} else {
			void *m = mmap(NULL, t->ring_map_len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, (off_t)mp.offset);
			if (m == MAP_FAILED)
				r = -errno;
			else
				t->ring_map = m;
		}
	}
	if (r == 0) {
		t->ring = (struct ferry_virtio_ring *)t->ring_map;
		t->ring_data = t->ring_map + FERRY_VIRTIO_RING_HEADER;
		struct ferry_virtio_hello h = { FERRY_VIRTIO_CAPS_MAGIC, FERRY_VIRTIO_VERSION, ring_res, RING_SIZE };
		pthread_mutex_lock(&t->lock);
		r = stage(t, FERRY_VIRTIO_HELLO, &h, sizeof(h));
		if (r == 0)
			r = flush_out(t);
		pthread_mutex_unlock(&t->lock);
	}
	if (r == 0) {
		r = -pthread_create(&t->notifier, NULL, notifier, t);
		t->notifier_started = r == 0;
	}
	if (r < 0) {
		virtio_destroy(&t->base);
		return r;
	}
	*out = &t->base;
	return 0;
}
