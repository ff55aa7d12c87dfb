/* What keeps a virtio-gpu guest's memory in step with the host's (docs/vm.md): each BO's guest
 * pages merge with its host pages before a submit that lists it and after that submit retired,
 * and the host's fence pages are copied to the guest's resources, a retired submit's BOs before
 * its seqno. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vg_ctx_priv.h"

static struct vg_bo **bo_slot(struct vg_ctx *c, uint32_t ctx_id, uint32_t bo_id)
{
	struct vg_bo **pp = &c->bos[(bo_id * 2654435761u ^ ctx_id) % VG_BO_BUCKETS];
	while (*pp && ((*pp)->ctx_id != ctx_id || (*pp)->bo_id != bo_id))
		pp = &(*pp)->next;
	return pp;
}

static void bo_free(struct vg_bo *b)
{
	if (b->host)
		munmap(b->host, b->size);
	free(b->base);
	free(b);
}

static struct vg_fctx *fctx_find(struct vg_ctx *c, uint32_t ctx_id)
{
	struct vg_fctx *f = c->fctxs;
	while (f && f->ctx_id != ctx_id)
		f = f->next;
	return f;
}

static void inflight_free(struct vg_inflight *i)
{
	free(i->bo_ids);
	free(i);
}

static void fctx_free(struct vg_fctx *f)
{
	while (f->inflight) {
		struct vg_inflight *i = f->inflight;
		f->inflight = i->next;
		inflight_free(i);
	}
	if (f->page)
		munmap(f->page, FERRY_FENCE_PAGE_SIZE);
	if (f->event_fd >= 0)
		close(f->event_fd);
	free(f);
}

/* Bytes merged under one hold of vg_mem_lock: QEMU's main thread, which takes it to attach,
 * detach and free resources, waits for at most one such piece. */
#define MERGE_CHUNK (256u << 10)

/* Guest and host pages of one BO agree after this (once per frame: a submit listing a BO many
 * times merges it once). */
static void merge(struct vg_ctx *c, uint32_t ctx_id, uint32_t bo_id)
{
	struct vg_bo *b = *bo_slot(c, ctx_id, bo_id);
	if (!b || b->merged_at == c->frame_no)
		return;
	b->merged_at = c->frame_no;
	for (size_t off = 0; off < b->size; off += MERGE_CHUNK) {
		size_t n = b->size - off < MERGE_CHUNK ? b->size - off : MERGE_CHUNK;
		pthread_mutex_lock(&vg_mem_lock);
		struct vg_res *r = vg_ctx_res_locked(c, b->res, 1);
		if (r)
			c->merged_bytes += vg_res_merge_locked(r, b->host, b->base, off, n);
		pthread_mutex_unlock(&vg_mem_lock);
		if (!r)
			break;
	}
}

/* The submit's BOs, and a record of them to merge again once it retired. */
static void submit_bos(struct vg_ctx *c, uint32_t ctx_id, uint32_t queue_id, uint32_t seqno, uint32_t n,
		       const void *bos, size_t stride)
{
	struct vg_fctx *f = fctx_find(c, ctx_id);
	/* A seqno on a queue the fence page has no slot for never retires; a refused one is swept
	 * by the next one that does. Past the cap the guest has more in flight than any driver. */
	if (f && (queue_id >= FERRY_FENCE_PAGE_QUEUES || f->nr_inflight >= VG_MAX_INFLIGHT))
		f = NULL;
	struct vg_inflight *i = f && n ? calloc(1, sizeof(*i)) : NULL;
	uint32_t *ids = i ? malloc(n * sizeof(*ids)) : NULL;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t id;
		memcpy(&id, (const uint8_t *)bos + (size_t)k * stride, sizeof(id));
		merge(c, ctx_id, id);
		if (ids)
			ids[k] = id;
	}
	if (!ids) {
		free(i);
		return; /* no memory: its BOs come back at the next submit that lists them */
	}
	*i = (struct vg_inflight){ queue_id, seqno, n, ids, NULL };
	*f->inflight_tail = i;
	f->inflight_tail = &i->next;
	f->nr_inflight++;
}

void vg_sync_before_frame(struct vg_ctx *c, const struct ferry_msg *m)
{
	switch (m->kind) {
	case FERRY_MSG_MSM_SUBMIT: {
		const struct ferry_msm_submit *s = &m->u.msm_submit;
		submit_bos(c, s->ctx_id, s->queue_id, s->seqno, s->nr_bos, s->bos, sizeof(s->bos[0]));
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_CL: {
		const struct ferry_v3d_submit_cl *s = &m->u.v3d_submit_cl;
		submit_bos(c, s->ctx_id, s->queue_id, s->seqno, s->nr_bos, s->bo_ids, sizeof(uint32_t));
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_TFU: {
		const struct ferry_v3d_submit_tfu *s = &m->u.v3d_submit_tfu;
		submit_bos(c, s->ctx_id, s->queue_id, s->seqno, s->nr_bos, s->bo_ids, sizeof(uint32_t));
		break;
	}
	case FERRY_MSG_V3D_SUBMIT_CSD: {
		const struct ferry_v3d_submit_csd *s = &m->u.v3d_submit_csd;
		submit_bos(c, s->ctx_id, s->queue_id, s->seqno, s->nr_bos, s->bo_ids, sizeof(uint32_t));
		break;
	}
	default:
		break;
	}
}

void vg_sync_after_frame(struct vg_ctx *c, const struct ferry_msg *m)
{
	if (m->kind == FERRY_MSG_BO_CLOSE && c->blobs)
		vg_blob_withdraw(c->id, vg_blob_id(m->u.bo_close.ctx_id, m->u.bo_close.bo_id));
	if (m->kind == FERRY_MSG_CONTEXT_DESTROY && c->blobs)
		vg_blob_withdraw_ferry_ctx(c->id, m->u.context_destroy.ctx_id); /* its page and BOs */
	if (m->kind == FERRY_MSG_BO_CLOSE) {
		struct vg_bo **pp = bo_slot(c, m->u.bo_close.ctx_id, m->u.bo_close.bo_id);
		struct vg_bo *b = *pp;
		if (b) {
			*pp = b->next;
			bo_free(b);
		}
	} else if (m->kind == FERRY_MSG_CONTEXT_DESTROY) {
		uint32_t id = m->u.context_destroy.ctx_id;
		for (struct vg_fctx **pp = &c->fctxs; *pp; pp = &(*pp)->next) {
			if ((*pp)->ctx_id == id) {
				struct vg_fctx *f = *pp;
				*pp = f->next;
				fctx_free(f);
				break;
			}
		}
		for (uint32_t k = 0; k < VG_BO_BUCKETS; k++) {
			for (struct vg_bo **pp = &c->bos[k]; *pp;) {
				struct vg_bo *b = *pp;
				if (b->ctx_id == id) {
					*pp = b->next;
					bo_free(b);
				} else {
					pp = &b->next;
				}
			}
		}
	}
}

static void new_fctx(struct vg_ctx *c, uint32_t ctx_id, const int *fds, int nfds)
{
	/* With blobs the guest maps the host's page itself: nothing to copy, only to watch. */
	uint32_t res = c->blobs ? 0 : vg_ctx_take_bind(c, FERRY_VIRTIO_BIND_FENCE_PAGE, ctx_id, 0);
	if (c->blobs && nfds >= 2 && vg_blob_publish(c->id, vg_blob_id(ctx_id, 0), fds[0], FERRY_FENCE_PAGE_SIZE) < 0) {
		vg_ctx_fail(c, -ENOMEM, "cannot publish a fence page");
		return;
	}
	if ((!res && !c->blobs) || nfds < 2) {
		vg_log(FERRY_LOG_WARN, "virtio-gpu context %u: ferry context %u has no fence page bound: its fences "
		       "stay unseen", c->id, ctx_id);
		return;
	}
	struct vg_fctx *f = calloc(1, sizeof(*f));
	void *page = f ? mmap(NULL, FERRY_FENCE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0) : MAP_FAILED;
	int efd = page != MAP_FAILED ? fcntl(fds[1], F_DUPFD_CLOEXEC, 0) : -1;
	if (efd < 0) {
		if (page != MAP_FAILED)
			munmap(page, FERRY_FENCE_PAGE_SIZE);
		free(f);
		vg_ctx_fail(c, -ENOMEM, "cannot take a fence page in");
		return;
	}
	f->ctx_id = ctx_id;
	f->res = res;
	f->page = page;
	f->event_fd = efd;
	f->inflight_tail = &f->inflight;
	/* The host writes the eventfd only while someone waits: here someone always does, as
	 * every retire has BOs or a guest page to update. */
	atomic_store(&f->page->waiters, 1);
	f->next = c->fctxs;
	c->fctxs = f;
	/* The guest's page starts as the host's: magic, version, nothing signaled. */
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, res, FERRY_FENCE_PAGE_SIZE);
	if (r) {
		struct ferry_fence_page init;
		memset(&init, 0, sizeof(init));
		init.magic = f->page->magic;
		init.version = f->page->version;
		vg_res_write_locked(r, 0, &init, sizeof(init));
	}
	pthread_mutex_unlock(&vg_mem_lock);
}

static void new_bo(struct vg_ctx *c, const struct ferry_bo_created *bc, const int *fds, int nfds)
{
	if (c->blobs) {
		if (nfds >= 1 && vg_blob_publish(c->id, vg_blob_id(bc->ctx_id, bc->bo_id), fds[0], bc->size) < 0)
			vg_ctx_fail(c, -ENOMEM, "cannot publish a BO");
		return;
	}
	uint32_t res = vg_ctx_take_bind(c, FERRY_VIRTIO_BIND_BO, bc->ctx_id, bc->bo_id);
	if (!res || nfds < 1 || bc->size == 0 || bc->size > SIZE_MAX)
		return; /* no guest pages: nothing to keep in step */
	pthread_mutex_lock(&vg_mem_lock);
	bool fits = vg_ctx_res_locked(c, res, bc->size) != NULL;
	pthread_mutex_unlock(&vg_mem_lock);
	if (!fits) {
		vg_ctx_fail(c, -EINVAL, "a BO bound to a resource smaller than the BO");
		return;
	}
	struct vg_bo **pp = bo_slot(c, bc->ctx_id, bc->bo_id);
	if (*pp) {
		struct vg_bo *old = *pp;
		*pp = old->next;
		bo_free(old);
	}
	struct vg_bo *b = calloc(1, sizeof(*b));
	uint8_t *base = b ? calloc(1, (size_t)bc->size) : NULL;
	void *host = base ? mmap(NULL, (size_t)bc->size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0) : MAP_FAILED;
	if (host == MAP_FAILED) {
		free(base);
		free(b);
		vg_ctx_fail(c, -ENOMEM, "cannot take a BO's pages in");
		return;
	}
	*b = (struct vg_bo){ .ctx_id = bc->ctx_id, .bo_id = bc->bo_id, .res = res, .host = host, .base = base, .size = (size_t)bc->size };
	/* Both sides start from what each holds now (the host's fresh pages are zero; the guest
	 * may have written its pages already): the first merge moves the guest's bytes. */
	*bo_slot(c, bc->ctx_id, bc->bo_id) = b;
}

void vg_sync_reply(struct vg_ctx *c, const struct ferry_msg *m, const int *fds, int nfds)
{
	if (m->kind == FERRY_MSG_CONTEXT_CREATED)
		new_fctx(c, m->u.context_created.ctx_id, fds, nfds);
	else if (m->kind == FERRY_MSG_BO_CREATED)
		new_bo(c, &m->u.bo_created, fds, nfds);
}

/* Copies the changed slots of one ferry context's page to the guest, after merging the BOs of
 * the submits they retired. */
static bool sync_fctx(struct vg_ctx *c, struct vg_fctx *f)
{
	/* The guest's page is written in three steps: the changed slots' errors, then the lost
	 * word, then the signaled seqnos. The host writes a failing fence's error before its lost
	 * word, so that stays true; and a guest that sees a seqno signaled (its wait returns
	 * -EIO) sees the context lost with it, as over a socket, where both are in the page
	 * before the host's next message. */
	uint64_t changed_q[FERRY_FENCE_PAGE_QUEUES / 64] = { 0 };
	bool changed = false;
	uint32_t lost = atomic_load(&f->page->lost);
	for (uint32_t q = 0; q < FERRY_FENCE_PAGE_QUEUES; q++) {
		struct ferry_fence_slot *h = &f->page->slots[q];
		uint32_t sig = atomic_load(&h->signaled);
		uint32_t eseq = atomic_load(&h->error_seqno);
		int32_t err = atomic_load(&h->error);
		struct ferry_fence_slot *shown = &f->shown[q];
		if (sig == atomic_load(&shown->signaled) && eseq == atomic_load(&shown->error_seqno) &&
		    err == atomic_load(&shown->error))
			continue;
		/* Retired submits of this queue: their BOs first. */
		for (struct vg_inflight **pp = &f->inflight; *pp;) {
			struct vg_inflight *i = *pp;
			if (i->queue_id == q && ferry_seqno_passed(sig, i->seqno)) {
				for (uint32_t k = 0; k < i->nr_bos; k++)
					merge(c, f->ctx_id, i->bo_ids[k]);
				*pp = i->next;
				inflight_free(i);
				f->nr_inflight--;
			} else {
				pp = &i->next;
			}
		}
		f->inflight_tail = &f->inflight;
		while (*f->inflight_tail)
			f->inflight_tail = &(*f->inflight_tail)->next;
		atomic_store(&shown->error_seqno, eseq);
		atomic_store(&shown->error, err);
		atomic_store(&shown->signaled, sig);
		changed_q[q / 64] |= 1ull << (q % 64);
		changed = true;
	}
	bool lost_changed = lost != f->lost;
	if (!changed && !lost_changed)
		return false;
	f->lost = lost;
	pthread_mutex_lock(&vg_mem_lock);
	struct vg_res *r = vg_ctx_res_locked(c, f->res, FERRY_FENCE_PAGE_SIZE);
	if (r) {
		for (uint32_t q = 0; q < FERRY_FENCE_PAGE_QUEUES; q++) {
			if (!(changed_q[q / 64] & (1ull << (q % 64))))
				continue;
			size_t off = offsetof(struct ferry_fence_page, slots) + q * sizeof(struct ferry_fence_slot);
			struct ferry_fence_slot sl = { 0 };
			vg_res_read_locked(r, off, &sl, sizeof(sl));
			atomic_store(&sl.error_seqno, atomic_load(&f->shown[q].error_seqno));
			atomic_store(&sl.error, atomic_load(&f->shown[q].error));
			vg_res_write_locked(r, off, &sl, sizeof(sl)); /* signaled as the guest had it */
		}
		__atomic_thread_fence(__ATOMIC_RELEASE);
		if (lost_changed)
			vg_res_write_locked(r, offsetof(struct ferry_fence_page, lost), &lost, sizeof(lost));
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (uint32_t q = 0; q < FERRY_FENCE_PAGE_QUEUES; q++) {
			if (!(changed_q[q / 64] & (1ull << (q % 64))))
				continue;
			size_t off = offsetof(struct ferry_fence_page, slots) + q * sizeof(struct ferry_fence_slot) +
				     offsetof(struct ferry_fence_slot, signaled);
			uint32_t sig = atomic_load(&f->shown[q].signaled);
			vg_res_write_locked(r, off, &sig, sizeof(sig));
		}
	}
	pthread_mutex_unlock(&vg_mem_lock);
	return true;
}

bool vg_sync_pages(struct vg_ctx *c)
{
	bool changed = false;
	for (struct vg_fctx *f = c->fctxs; f; f = f->next)
		changed |= sync_fctx(c, f);
	return changed;
}

void vg_sync_free(struct vg_ctx *c)
{
	vg_blob_withdraw_ctx(c->id);
	while (c->fctxs) {
		struct vg_fctx *f = c->fctxs;
		c->fctxs = f->next;
		fctx_free(f);
	}
	for (uint32_t k = 0; k < VG_BO_BUCKETS; k++) {
		while (c->bos[k]) {
			struct vg_bo *b = c->bos[k];
			c->bos[k] = b->next;
			bo_free(b);
		}
	}
	c->nr_binds = 0;
}

bool vg_ctx_has_fctx(struct vg_ctx *c, uint32_t ctx_id)
{
	return fctx_find(c, ctx_id) != NULL;
}

bool vg_ctx_fctx_busy(struct vg_ctx *c, uint32_t ctx_id)
{
	const struct vg_fctx *f = fctx_find(c, ctx_id);
	return f && f->nr_inflight > 0;
}
