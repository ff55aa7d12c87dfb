/* The simulated GPU: a worker thread that schedules submits across submitqueues and runs them
 * on the CP model in slices. Each pass picks the highest-priority queue with runnable work,
 * round-robin among queues of equal priority, and runs a slice of its head submit. A submit
 * whose CP is stuck in an unmet wait yields: its queue is re-polled after other work ran or 1 ms
 * passed, and a wait stuck longer than the hangcheck period is a hang. Faults and hangs are
 * counted like the kernel's recovery (queue faults and the address space's faults, feeding
 * MSM_PARAM_FAULTS), leave a devcoredump on the open, and retire the submit's fence. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ferry/hw/adreno_pm4.h"
#include "sim_msm_priv.h"

#define WAIT_REPOLL_NS 1000000ull /* 1 ms */

/* The per-open address space, as struct cp_mem sees it. */
static void *translate(void *ctx, uint64_t iova, uint64_t len, bool write, uint64_t *avail,
		       const char **fault_type)
{
	struct sim_open *o = ctx;
	const struct iova_range *r = iova_alloc_find(&o->vm, iova);
	if (!r) {
		*fault_type = "TRANSLATION";
		return NULL;
	}
	struct sim_bo *bo = r->owner;
	uint64_t off = iova - r->start;
	if (off >= bo->size) { /* unreachable: ranges are exactly the BO size */
		*fault_type = "TRANSLATION";
		return NULL;
	}
	if (write && (bo->flags & MSM_BO_GPU_READONLY)) {
		*fault_type = "PERMISSION";
		return NULL;
	}
	uint64_t left = bo->size - off;
	*avail = len < left ? len : left;
	return bo->map + off;
}

static void notify_open(struct sim_open *o)
{
	uint64_t one = 1;
	/* A full counter (never in practice) still leaves the fd readable, which is all we need. */
	if (write(o->eventfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		perror("sim-msm: eventfd write");
}

static void retire_head(struct sim_msm_device *dev, struct sim_queue *q)
{
	struct sim_submit *s = q->head;
	q->head = s->next;
	if (!q->head)
		q->tail = NULL;
	sim_submit_free(s);
	dev->retired++;
	struct sim_open *o = q->open;
	notify_open(o);
	sim_queue_maybe_free(q);
	pthread_cond_broadcast(&dev->done_cond);
}

/* Recovery: blame the queue and its address space, dump, retire. */
static void fault_head(struct sim_msm_device *dev, struct sim_queue *q, struct cp_fault *f)
{
	struct sim_submit *s = q->head;
	cp_sync_ib_regs(&dev->cp, &s->cp);
	q->faults++;
	q->open->faults++;
	sim_coredump_capture(dev, q->open, s, f);
	retire_head(dev, q);
}

/* Starts the next command buffer the CP executes; false when none is left. IB_TARGET_BUFs are
 * reachable only from other IBs; a CTX_RESTORE_BUF runs only when another context ran last. */
static bool start_next_cmd(struct sim_msm_device *dev, struct sim_submit *s)
{
	while (s->cmd_index < s->nr_cmds) {
		const struct sim_cmd *c = &s->cmds[s->cmd_index++];
		if (c->type == MSM_SUBMIT_CMD_IB_TARGET_BUF)
			continue;
		if (c->type == MSM_SUBMIT_CMD_CTX_RESTORE_BUF && dev->last_ctx == s->queue->open)
			continue;
		cp_exec_start_ib1(&s->cp, c->iova, c->size_dw);
		s->running = true;
		return true;
	}
	return false;
}

/* Runs one slice of q's head submit (q may be freed by it). Returns false if the slice only
 * re-polled an unmet wait, true if it did work others may be waiting for. */
static bool run_slice(struct sim_msm_device *dev, struct sim_queue *q, uint64_t now)
{
	struct sim_submit *s = q->head;
	struct sim_open *o = q->open;
	struct cp_mem mem = { .ctx = o, .translate = translate };
	uint32_t budget = dev->slice_budget;
	uint64_t before = s->cp.packets;
	for (;;) {
		if (!s->running && !start_next_cmd(dev, s)) {
			dev->last_ctx = o;
			retire_head(dev, q);
			return true;
		}
		enum cp_result r = cp_run(&dev->cp, &mem, &s->cp, budget);
		dev->last_ctx = o;
		if (r == CP_RESULT_DONE) {
			s->running = false;
			s->stalled = false;
			continue; /* next command buffer in the same slice */
		}
		if (r == CP_RESULT_FAULT) {
			fault_head(dev, q, &s->cp.fault);
			return true;
		}
		if (s->cp.packets > SIM_MAX_SUBMIT_PACKETS) {
			struct cp_fault f = s->cp.fault;
			f.kind = CP_FAULT_HANG;
			f.reason = "submit exceeded the simulator's packet budget";
			fault_head(dev, q, &f);
			return true;
		}
		if (r == CP_RESULT_WAIT) {
			if (!s->stalled || s->cp.packets != before) {
				s->stalled = true;
				s->stall_since_ns = now;
			}
			if (now - s->stall_since_ns >= (uint64_t)dev->hangcheck_ms * 1000000u) {
				struct cp_fault f = { 0 };
				/* Locate the hang at the wait packet, as a crashdec of a hung CP would. */
				struct cp_frame *fr = &s->cp.ib[s->cp.depth - 1];
				f.kind = CP_FAULT_HANG;
				f.reason = "hangcheck: no progress";
				f.ib_level = s->cp.depth;
				f.ib_base = fr->base;
				f.ib_size = fr->size;
				f.dword = fr->pos;
				f.header_valid = false;
				f.opcode = CP_WAIT_REG_MEM;
				uint64_t avail;
				const char *type;
				const void *h = translate(o, fr->base + 4ull * fr->pos, 4, false, &avail, &type);
				if (h && avail >= 4) {
					memcpy(&f.header, h, 4);
					f.header_valid = true;
				}
				fault_head(dev, q, &f);
				return true;
			}
			q->next_poll_ns = now + WAIT_REPOLL_NS;
			return s->cp.packets != before;
		}
		s->stalled = false; /* BUDGET: progress was made */
		return true;
	}
}

/* The queue to run next, or NULL. Stalled queues become eligible at next_poll_ns. */
static struct sim_queue *pick_queue(struct sim_msm_device *dev, uint64_t now, uint64_t *next_wake)
{
	for (uint32_t prio = 0; prio < SIM_NR_PRIORITIES; prio++) {
		struct sim_queue *first = NULL, *after = NULL;
		for (struct sim_queue *q = dev->queues; q; q = q->dev_next) {
			if (q->prio != prio || !q->head)
				continue;
			if (q->head->stalled && q->next_poll_ns > now) {
				if (q->next_poll_ns < *next_wake)
					*next_wake = q->next_poll_ns;
				continue;
			}
			if (!first || q->seq < first->seq)
				first = q;
			if (q->seq > dev->rr_last[prio] && (!after || q->seq < after->seq))
				after = q;
		}
		struct sim_queue *q = after ? after : first;
		if (q) {
			dev->rr_last[prio] = q->seq;
			return q;
		}
	}
	return NULL;
}

/* Work that made progress may satisfy someone's wait: re-poll stalled queues at once. */
static void wake_stalled(struct sim_msm_device *dev)
{
	for (struct sim_queue *q = dev->queues; q; q = q->dev_next)
		if (q->head && q->head->stalled)
			q->next_poll_ns = 0;
}

static void *gpu_worker(void *arg)
{
	struct sim_msm_device *dev = arg;
	pthread_mutex_lock(&dev->lock);
	while (!dev->stop) {
		uint64_t now = sim_now_ns();
		uint64_t next_wake = UINT64_MAX;
		struct sim_queue *q = pick_queue(dev, now, &next_wake);
		if (q) {
			/* A slice that did more than re-poll a wait may have written what others wait on. */
			if (run_slice(dev, q, now))
				wake_stalled(dev);
			/* Let ioctl callers in between slices. */
			pthread_mutex_unlock(&dev->lock);
			pthread_mutex_lock(&dev->lock);
			continue;
		}
		if (next_wake == UINT64_MAX) {
			pthread_cond_wait(&dev->work_cond, &dev->lock);
		} else {
			struct timespec abs = { .tv_sec = (time_t)(next_wake / 1000000000u),
						.tv_nsec = (long)(next_wake % 1000000000u) };
			pthread_cond_timedwait(&dev->work_cond, &dev->lock, &abs);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

int sim_gpu_start(struct sim_msm_device *dev)
{
	int ret = pthread_create(&dev->worker, NULL, gpu_worker, dev);
	if (ret)
		return -ret;
	dev->worker_running = true;
	return 0;
}

void sim_gpu_stop(struct sim_msm_device *dev)
{
	if (!dev->worker_running)
		return;
	pthread_mutex_lock(&dev->lock);
	dev->stop = true;
	pthread_cond_signal(&dev->work_cond);
	pthread_mutex_unlock(&dev->lock);
	pthread_join(dev->worker, NULL);
	dev->worker_running = false;
}

void sim_gpu_kick(struct sim_msm_device *dev)
{
	pthread_cond_signal(&dev->work_cond);
}

void sim_gpu_cancel_open(struct sim_open *o)
{
	struct sim_msm_device *dev = o->dev;
	for (struct sim_queue *q = dev->queues; q; q = q->dev_next) {
		if (q->open != o)
			continue;
		while (q->head) {
			struct sim_submit *s = q->head;
			q->head = s->next;
			sim_submit_free(s);
		}
		q->tail = NULL;
	}
}
