/* The simulated GPU: a worker thread that lets the dispatcher (sim_msm_dispatch.c) pick a submit
 * and runs a slice of it on the CP model. A submit whose CP is stuck in an unmet wait yields:
 * it is re-polled after other work ran or 1 ms passed. Hangcheck: a wait unmet for the
 * hangcheck period, an IB chain looping for the period, or a submit past the packet budget is a
 * hang. Faults and hangs are counted like the kernel's recovery (queue faults and the address
 * space's faults, feeding MSM_PARAM_FAULTS), leave a devcoredump on the open, and complete the
 * submit (its end-of-pipe timestamp is written, so it retires); other contexts keep running. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ferry/hw/adreno_pm4.h"
#include "sim_msm_priv.h"

#define WAIT_REPOLL_NS 1000000ull /* 1 ms */
/* CP budget units run between two looks for a thread waiting for the device lock. */
#define MSMS_PREEMPT_PIECE 4096u
/* What a submit_here submit may run in the submitting thread (ferryd's loop): a small job's
 * whole work, a big one's first piece (the worker goes on with the rest). */
#define MSMS_HERE_BUDGET 1024u
#define MSMS_HERE_STEPS 4u

/* The per-open address space, as struct cp_mem sees it. */
static void *translate(void *ctx, uint64_t iova, uint64_t len, bool write, uint64_t *avail,
		       const char **fault_type)
{
	struct msms_open *o = ctx;
	const struct iova_range *r = iova_alloc_find(&o->vm, iova);
	if (!r) {
		*fault_type = "TRANSLATION";
		return NULL;
	}
	struct msms_bo *bo = r->owner;
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

/* The submit's work is over (done, faulted or hung) at now_ns: end of pipe, then retire. */
static void complete(struct sim_msm_device *dev, struct msms_submit *s, uint64_t now_ns)
{
	dev->last_ctx = s->queue->open;
	if (s->cp) {
		/* Its state goes to the next submit: a stream of small ones allocates none. */
		sim_unmodeled_sink_add(&s->queue->open->unmodeled, &s->cp->unmodeled);
		cp_exec_fini(s->cp);
		if (!dev->cp_spare)
			dev->cp_spare = s->cp;
		else
			free(s->cp);
		s->cp = NULL;
		s->running = false;
	}
	msms_dispatch_sop(s, now_ns); /* a submit that faulted on its first fetch still began */
	msms_dispatch_eop(s, now_ns);
	msms_dispatch_retire(dev, s->queue);
}

/* Recovery: blame the queue and its address space, dump, complete. */
static void fault(struct sim_msm_device *dev, struct msms_submit *s, struct cp_fault *f)
{
	struct msms_queue *q = s->queue;
	if (s->cp)
		cp_sync_ib_regs(&dev->cp, s->cp);
	q->faults++;
	q->open->faults++;
	/* What ferryd's lost context gives the failing fence (the fake kernel's lose_on_fault). */
	s->lost_error = f->kind == CP_FAULT_HANG ? -ETIMEDOUT : -EIO;
	sim_syncobj_faulted(&dev->sync, &q->open->syncobjs);
	msms_coredump_capture(dev, q->open, s, f);
	complete(dev, s, sim_now_ns());
}

/* A hang located at the packet the CP is on, as crashdec's ESTIMATED CRASH LOCATION would. */
static void hang(struct sim_msm_device *dev, struct msms_submit *s, const char *reason)
{
	struct cp_fault f = { .kind = CP_FAULT_HANG, .reason = reason, .opcode = -2 };
	struct cp_exec *x = s->cp;
	if (x && x->depth) {
		struct cp_frame *fr = &x->ib[x->depth - 1];
		f.ib_level = x->depth;
		f.frame_kind = fr->kind;
		f.group_id = fr->group_id;
		f.ib_base = fr->base;
		f.ib_size = fr->size;
		f.dword = fr->pos;
		uint64_t avail;
		const char *type;
		const void *h = fr->pos < fr->size ? translate(s->queue->open, fr->base + 4ull * fr->pos, 4, false,
								&avail, &type)
						     : NULL;
		if (h && avail >= 4) {
			memcpy(&f.header, h, 4);
			f.header_valid = true;
			if (pm4_is_type7(f.header))
				f.opcode = (int)pm4_type7_opcode(f.header);
			else if (pm4_is_type4(f.header)) {
				f.opcode = -1;
				f.reg = pm4_type4_reg(f.header);
			}
		}
	}
	fault(dev, s, &f);
}

/* Starts the next command buffer the CP executes; false when none is left. IB_TARGET_BUFs are
 * reachable only from other IBs; a CTX_RESTORE_BUF runs only when another context ran last. */
static bool start_next_cmd(struct sim_msm_device *dev, struct msms_submit *s)
{
	while (s->cmd_index < s->nr_cmds) {
		const struct msms_cmd *c = &s->cmds[s->cmd_index++];
		if (c->type == MSM_SUBMIT_CMD_IB_TARGET_BUF)
			continue;
		if (c->type == MSM_SUBMIT_CMD_CTX_RESTORE_BUF && dev->last_ctx == s->queue->open)
			continue;
		cp_exec_start_ib1(s->cp, c->iova, c->size_dw);
		s->running = true;
		return true;
	}
	return false;
}

/* The worker thread's CPU time: what the CP model spent, not counting time it was preempted
 * (the machine is shared; a loaded one must not turn work into hangs). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs one slice of s (which may retire). Returns false if the slice only re-polled an unmet
 * wait, true if it did work others may be waiting for. */
static bool run_slice(struct sim_msm_device *dev, struct msms_submit *s, uint64_t now, uint32_t budget)
{
	struct msms_open *o = s->queue->open;
	struct cp_mem mem = { .ctx = o, .translate = translate };
	uint64_t period_ns = (uint64_t)dev->hangcheck_ms * 1000000u;
	if (!s->cp) {
		s->cp = dev->cp_spare ? dev->cp_spare : malloc(sizeof(*s->cp));
		dev->cp_spare = NULL;
		if (!s->cp) {
			hang(dev, s, "the simulator is out of memory for the submit's CP state");
			return true;
		}
		cp_exec_init(s->cp);
	}
	struct cp_exec *x = s->cp;
	uint64_t before = x->packets;
	/* A submit's first slice is timed by the monotonic clock (vDSO), later ones by the thread's
	 * CPU clock, which a preemption does not inflate: most submits end in their first slice, and
	 * the CPU clock is a syscall (0.35 us here) twice per command buffer. A preemption counts at
	 * most once per submit. */
	bool wall = before == 0;
	/* The slice's, over all the command buffers it gets to: many small ones do not make it
	 * longer (a submit_here slice runs in the submitting thread). */
	uint32_t left = budget;
	/* The wall clock as last read: the step's now, then each command buffer's end (a first
	 * slice's timing and the trace events share these reads, three fewer per submit). */
	uint64_t clock_ns = now;
	msms_dispatch_sop(s, now);
	for (;;) {
		if (!s->running && !start_next_cmd(dev, s)) {
			complete(dev, s, wall ? clock_ns : sim_now_ns());
			return true;
		}
		if (!left)
			return true; /* the next slice goes on with this command buffer */
		uint64_t t0 = wall ? clock_ns : thread_cpu_ns();
		/* In pieces, so that an ioctl arriving mid-slice waits for one piece, not the slice. */
		enum cp_result r;
		uint64_t ran = x->packets;
		do {
			uint32_t piece = left < MSMS_PREEMPT_PIECE ? left : MSMS_PREEMPT_PIECE;
			r = cp_run(&dev->cp, &mem, x, piece);
			/* What it took: a command buffer of a few packets leaves the rest of the slice to
			 * the next one. */
			left -= x->spent < piece ? x->spent : piece;
		} while (r == CP_RESULT_BUDGET && left && !sim_dev_lock_contended(&dev->lock));
		s->queue->vrun += x->packets - ran + 1; /* the dispatcher's fairness key */
		if (wall) {
			clock_ns = sim_now_ns();
			s->run_ns += clock_ns - t0;
		} else {
			s->run_ns += thread_cpu_ns() - t0;
		}
		dev->last_ctx = o;
		if (r == CP_RESULT_DONE) {
			s->running = false;
			s->stalled = false;
			continue; /* next command buffer in the same slice */
		}
		if (r == CP_RESULT_FAULT) {
			fault(dev, s, &x->fault);
			return true;
		}
		if (x->packets > MSMS_MAX_SUBMIT_PACKETS) {
			hang(dev, s, "submit exceeded the simulator's packet budget");
			return true;
		}
		/* 6.1's hangcheck kills a submit whose fence does not advance for a period while the
		 * GPU is busy with it; slices of other contexts interleave here, so the submit's own
		 * CP time counts, with slack (a blit of 4 GiB over one row is real work each slice). */
		if (s->run_ns >= MSMS_RUN_HANG_PERIODS * period_ns) {
			hang(dev, s, "hangcheck: submit ran too long");
			return true;
		}
		if (x->chain_loop) {
			if (!s->loop_since_ns)
				s->loop_since_ns = now;
			if (now - s->loop_since_ns >= period_ns) {
				hang(dev, s, "hangcheck: IB chain loop");
				return true;
			}
		}
		if (r == CP_RESULT_WAIT) {
			if (!s->stalled || x->packets != before) {
				s->stalled = true;
				s->stall_since_ns = now;
			}
			if (now - s->stall_since_ns >= period_ns) {
				hang(dev, s, "hangcheck: no progress");
				return true;
			}
			s->next_poll_ns = now + WAIT_REPOLL_NS;
			s->poll_gen = dev->wake_gen;
			return x->packets != before;
		}
		s->stalled = false; /* BUDGET: progress was made */
		return true;
	}
}

/* Issue what became runnable, run a slice of at most budget of the submit due next. */
static bool step_budget(struct sim_msm_device *dev, uint64_t now, uint64_t *next_wake, uint32_t budget)
{
	if (dev->paused)
		return false;
	msms_dispatch_issue(dev);
	struct msms_submit *s = msms_dispatch_pick(dev, now, next_wake);
	if (!s)
		return false;
	/* A slice that did more than re-poll a wait may have written what others wait on. */
	if (run_slice(dev, s, now, budget))
		msms_dispatch_wake_stalled(dev);
	return true;
}

/* One round of the worker (sim_worker.h). */
static bool gpu_step(void *arg, uint64_t now, uint64_t *next_wake)
{
	struct sim_msm_device *dev = arg;
	return step_budget(dev, now, next_wake, dev->slice_budget);
}

int msms_gpu_start(struct sim_msm_device *dev)
{
	dev->worker = (struct sim_worker){ .lock = &dev->lock, .work_cond = &dev->work_cond,
					   .step = gpu_step, .ctx = dev };
	return sim_worker_start(&dev->worker);
}

void msms_gpu_stop(struct sim_msm_device *dev)
{
	sim_worker_stop(&dev->worker);
}

/* The submit just queued, run here while the worker sleeps idle: true when the device is idle
 * again (all done, no timer), so the worker need not wake. The same steps the worker would take,
 * under the same lock, with a small budget: only which thread runs them differs. */
static bool run_here(struct sim_msm_device *dev, struct msms_open *o)
{
	if (!dev->worker.running || !dev->worker.idle)
		return false;
	bool idle = false;
	dev->sync.work_muted = true; /* a job its fences release runs in a step here, or the caller kicks */
	dev->here_open = o; /* its retires are told by done_here, not its poll fd */
	for (unsigned i = 0; i < MSMS_HERE_STEPS; i++) {
		uint64_t next_wake = UINT64_MAX;
		if (!step_budget(dev, sim_now_ns(), &next_wake, MSMS_HERE_BUDGET)) {
			idle = next_wake == UINT64_MAX;
			break;
		}
		atomic_fetch_add(&dev->lock.steps, 1);
	}
	dev->sync.work_muted = false;
	dev->here_open = NULL;
	return idle;
}

void msms_gpu_kick(struct sim_msm_device *dev, struct msms_open *here)
{
	if (here && run_here(dev, here))
		return;
	pthread_cond_signal(&dev->work_cond);
}

void msms_gpu_cancel_open(struct msms_open *o)
{
	struct sim_msm_device *dev = o->dev;
	for (struct msms_queue *q = dev->queues; q; q = q->dev_next) {
		if (q->open != o)
			continue;
		while (q->head) {
			struct msms_submit *s = q->head;
			q->head = s->next;
			msms_dispatch_drop_unissued(dev, s);
			msms_dispatch_unlink(dev, s);
			msms_submit_free(s);
		}
		q->tail = NULL;
	}
}
