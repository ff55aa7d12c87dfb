/* libferry's guest-side capture: the session as this process sends it, written to a .ferrycap
 * (the format ferryd's captures use, ferry/session_file.h) for `ferry replay`. It needs no control
 * socket, so it works the same whether ferryd is local or across a tcp connection.
 * Everything here runs under dev->send_lock, which already orders the frames on the wire. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ferry/array.h"
#include "ferry/session_file.h"
#include "internal.h"

struct capture_bo_id {
	uint32_t ctx_id, bo_id;
};

struct ferry_capture {
	int fd;
	char path[4096];
	bool full;
	bool header_written;
	struct ferry_buf rec, scratch;
	struct capture_bo_id *bos; /* BOs whose BoCreate is in the file */
	size_t nr_bos, cap_bos;
};

static _Atomic unsigned capture_seq;

/* Where this device's capture goes: FERRY_CAPTURE=PATH names the file (a second device of the
 * same process gets PATH.2, ...), FERRY_CAPTURE_DIR=DIR a fresh ferry-guest-<pid>-<n>.ferrycap. */
static int capture_path(char *buf, size_t len)
{
	const char *file = getenv("FERRY_CAPTURE");
	const char *dir = getenv("FERRY_CAPTURE_DIR");
	unsigned n = atomic_fetch_add(&capture_seq, 1) + 1;
	int w;
	if (file && file[0])
		w = n == 1 ? snprintf(buf, len, "%s", file) : snprintf(buf, len, "%s.%u", file, n);
	else if (dir && dir[0])
		w = snprintf(buf, len, "%s/ferry-guest-%ld-%u.ferrycap", dir, (long)getpid(), n);
	else
		return 0;
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 1;
}

int ferry_capture_open_env(struct ferry_device *dev)
{
	char path[4096];
	int r = capture_path(path, sizeof(path));
	if (r <= 0) {
		if (r < 0)
			fprintf(stderr, "ferry: capture: path too long\n");
		return r;
	}
	struct ferry_capture *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* Guest memory goes in: 0600, a fresh file, never through a symlink. */
	c->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (c->fd < 0) {
		r = -errno;
		fprintf(stderr, "ferry: capture: cannot create %s: %s\n", path, strerror(errno));
		free(c);
		return r;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	const char *full = getenv("FERRY_CAPTURE_FULL");
	c->full = full && full[0] && strcmp(full, "0") != 0;
	ferry_buf_init(&c->rec);
	ferry_buf_init(&c->scratch);
	dev->capture = c;
	return 0;
}

void ferry_capture_close(struct ferry_device *dev)
{
	struct ferry_capture *c = dev->capture;
	if (!c)
		return;
	dev->capture = NULL;
	if (c->fd >= 0)
		close(c->fd);
	ferry_buf_free(&c->rec);
	ferry_buf_free(&c->scratch);
	free(c->bos);
	free(c);
}

/* Writes what c->rec holds; a failed write ends the capture (the program goes on). */
static void flush(struct ferry_capture *c)
{
	size_t done = 0;
	while (c->fd >= 0 && done < c->rec.len) {
		ssize_t n = write(c->fd, c->rec.data + done, c->rec.len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "ferry: capture %s: write failed (%s): capture stopped\n", c->path,
				n < 0 ? strerror(errno) : "short write");
			close(c->fd);
			c->fd = -1;
		}
		done += n > 0 ? (size_t)n : 0;
	}
	ferry_buf_reset(&c->rec);
}

static void fail(struct ferry_capture *c, int err)
{
	fprintf(stderr, "ferry: capture %s: %s: capture stopped\n", c->path, strerror(-err));
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	ferry_buf_reset(&c->rec);
}

static ssize_t find_bo(const struct ferry_capture *c, uint32_t ctx_id, uint32_t bo_id)
{
	for (size_t i = 0; i < c->nr_bos; i++)
		if (c->bos[i].ctx_id == ctx_id && c->bos[i].bo_id == bo_id)
			return (ssize_t)i;
	return -1;
}

static void forget_bo(struct ferry_capture *c, size_t i)
{
	c->bos[i] = c->bos[--c->nr_bos];
}

void ferry_capture_frame(struct ferry_device *dev, const struct ferry_msg *msg, const void *frame, size_t len)
{
	struct ferry_capture *c = dev->capture;
	if (!c || c->fd < 0 || len < 4)
		return;
	int r = 0;
	ssize_t i;
	switch (msg->kind) {
	case FERRY_MSG_HELLO:
	case FERRY_MSG_DEVICE_QUERY:
	case FERRY_MSG_BO_CREATE: /* written at the first submit listing the BO, with its iova */
	case FERRY_MSG_BO_IMPORT: /* written as a BoCreate + snapshot: the pages are another process's */
	case FERRY_MSG_BO_MAP:    /* the tcp transport's mirroring, not the session's */
		return;
	case FERRY_MSG_CONTEXT_CREATE:
		if (!c->header_written) {
			/* The family of the first context is the file's; the device name picks the
			 * simulated GPU a private replay runs. */
			r = session_write_header(&c->rec, msg->u.context_create.family, dev->name ? dev->name : "");
			if (r == 0) {
				char note[256];
				snprintf(note, sizeof(note), "device: %s\nclient: guest pid %ld via %s\nsnapshots: guest-side\n",
					 dev->name ? dev->name : "", (long)getpid(), dev->transport->name);
				r = session_write_record(&c->rec, SESSION_REC_NOTE, 0, note, strlen(note));
			}
			c->header_written = r == 0;
		}
		break;
	case FERRY_MSG_BO_CLOSE:
		/* The replay knows only the BOs the file created. */
		i = find_bo(c, msg->u.bo_close.ctx_id, msg->u.bo_close.bo_id);
		if (i < 0)
			return;
		forget_bo(c, (size_t)i);
		break;
	case FERRY_MSG_CONTEXT_DESTROY:
		for (size_t k = c->nr_bos; k-- > 0;)
			if (c->bos[k].ctx_id == msg->u.context_destroy.ctx_id)
				forget_bo(c, k);
		break;
	default:
		break;
	}
	if (!c->header_written)
		return;
	if (r == 0)
		r = session_write_frame_payload(&c->rec, 0, (const uint8_t *)frame + 4, len - 4);
	if (r < 0)
		fail(c, r);
	else
		flush(c);
}

/* The BO's address, size and pages as the guest has them (dev->lock held). */
struct bo_view {
	uint64_t iova, size;
	uint32_t flags;
	int fd;          /* dup'd, or -1 */
	const void *map; /* the guest's mapping, or NULL */
	bool imported;
};

static void view_bo(struct ferry_bo *bo, struct bo_view *v)
{
	*v = (struct bo_view){ .size = bo->size, .flags = bo->flags, .fd = -1, .imported = bo->imported };
	if (bo->ready) {
		v->iova = bo->iova;
		v->map = bo->map;
		if (!bo->map && bo->fd >= 0)
			v->fd = fcntl(bo->fd, F_DUPFD_CLOEXEC, 0);
	} else if (bo->created && bo->created->done && bo->created->kind == FERRY_MSG_BO_CREATED) {
		/* Never mapped nor asked for its address: the guest wrote nothing in it and no
		 * command names it by address, but the replay must still create it. */
		v->iova = bo->created->msg.u.bo_created.iova;
		v->size = bo->created->msg.u.bo_created.size;
	}
}

static int snapshot(struct ferry_capture *c, uint32_t ctx_id, uint32_t bo_id, const struct bo_view *v)
{
	const void *data = v->map;
	void *own = NULL;
	if (!data && v->fd >= 0 && v->size && v->size <= SIZE_MAX) {
		own = mmap(NULL, (size_t)v->size, PROT_READ, MAP_SHARED, v->fd, 0);
		if (own == MAP_FAILED)
			return -errno;
		data = own;
	}
	int r = data ? session_write_snapshot(&c->rec, 0, ctx_id, bo_id, v->iova, 0, data, (size_t)v->size) : 0;
	if (own)
		munmap(own, (size_t)v->size);
	return r;
}

void ferry_capture_submit(struct ferry_context *ctx, struct ferry_bo *const *bos, uint32_t nr_bos,
			  uint32_t nr_always)
{
	struct ferry_device *dev = ctx->dev;
	struct ferry_capture *c = dev->capture;
	if (!c || c->fd < 0 || !c->header_written)
		return;
	int r = 0;
	for (uint32_t i = 0; i < nr_bos && r == 0; i++) {
		struct ferry_bo *bo = bos[i];
		bool dup = false;
		for (uint32_t k = 0; k < i; k++)
			dup |= bos[k] == bo;
		if (dup)
			continue;
		struct bo_view v;
		pthread_mutex_lock(&dev->lock);
		view_bo(bo, &v);
		pthread_mutex_unlock(&dev->lock);
		if (find_bo(c, ctx->id, bo->id) < 0) {
			struct ferry_msg m = { .kind = FERRY_MSG_BO_CREATE, .seq = 0 };
			m.u.bo_create = (struct ferry_bo_create){
				.ctx_id = ctx->id, .bo_id = bo->id, .size = v.size, .flags = v.flags, .iova = v.iova,
			};
			r = FERRY_ARRAY_RESERVE(c->bos, c->cap_bos, c->nr_bos + 1, 32) ? -ENOMEM : 0;
			if (r == 0)
				r = session_write_msg(&c->rec, SESSION_FRAME_SYNTH, &m, &c->scratch);
			if (r == 0)
				c->bos[c->nr_bos++] = (struct capture_bo_id){ ctx->id, bo->id };
		}
		if (r == 0 && (i < nr_always || c->full || v.imported))
			r = snapshot(c, ctx->id, bo->id, &v);
		if (v.fd >= 0)
			close(v.fd);
	}
	if (r < 0)
		fail(c, r);
	else
		flush(c);
}
