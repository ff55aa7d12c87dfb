/* The simulated V3D's scheduler and units: one worker thread drives five queues (bin, render,
 * tfu, csd, cache_clean), each running one job at a time as drm_sched does for v3d. A queue
 * picks the oldest job of an open (its entity FIFO) whose dependencies have all signaled,
 * round-robin across opens; jobs on different queues are ordered only by those dependencies
 * (syncobjs, implicit BO fences, render-after-bin, clean-after-render/csd).
 * Units: bin/render lists run on the CLE (v3d_cle.h) in slices, so both lists and other queues
 * interleave; TFU jobs run v3d_tfu.c; CSD jobs are validated and recorded but their QPU code is
 * NOT executed; cache_clean jobs complete at once. A job stopped by an MMU fault or a unit error
 * still completes (the real MMU redirects the access to a scratch page and the job carries on;
 * the kernel only logs it), and the simulator reports it (sim_v3d_report.c). Hangcheck: a list
 * still running after the period is aborted and its fence gets -ECANCELED. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_v3d_priv.h"
#include "v3d_tfu.h"

#define STALL_REPOLL_NS 1000000ull /* a list waiting on its semaphore is retried every 1 ms */

static int mem_read(void *ctx, uint32_t addr, void *dst, uint32_t len)
{
	return v3ds_mmu_read(ctx, addr, dst, len);
}

static int mem_write(void *ctx, uint32_t addr, const void *src, uint32_t len)
{
	return v3ds_mmu_write(ctx, addr, src, len);
}

static bool job_ready(const struct v3ds_job *job)
{
	for (uint32_t i = 0; i < job->nr_deps; i++)
		if (!job->deps[i]->signaled)
			return false;
	return true;
}

void v3ds_sched_push(struct sim_v3d_device *dev, struct v3ds_job *job)
{
	struct v3ds_entity *e = &job->open->entity[job->queue];
	job->next = NULL;
	if (e->tail)
		e->tail->next = job;
	else
		e->head = job;
	e->tail = job;
}

static const enum sim_v3d_trace_kind irq_kind[V3DS_NR_QUEUES] = {
	[V3D_BIN] = SIM_V3D_TRACE_BCL_IRQ,
	[V3D_RENDER] = SIM_V3D_TRACE_RCL_IRQ,
	[V3D_TFU] = SIM_V3D_TRACE_TFU_IRQ,
	[V3D_CSD] = SIM_V3D_TRACE_CSD_IRQ,
	[V3D_CACHE_CLEAN] = SIM_V3D_TRACE_CACHE_CLEAN_END,
};

/* Packets the CLE decoded by length and recorded without executing them (draws included). */
static uint64_t recorded_total(const struct v3d_cle_stats *cs)
{
	uint64_t n = 0;
	for (unsigned op = 0; op < 256; op++)
		n += cs->recorded[op];
	return n;
}

/* The job's work is over: the IRQ, its fence, the owner's wakeup. */
static void complete(struct sim_v3d_device *dev, struct v3ds_job *job, int error)
{
	struct v3ds_queue *q = &dev->queues[job->queue];
	v3ds_trace(dev, irq_kind[job->queue], job->queue, job->seqno, job->client, 0, 0);
	dev->stats.jobs_done[job->queue]++;
	sim_fence_signal(&dev->sync, job->done, error);
	/* The open whose SUBMIT_CL runs this step learns of it from done_here. */
	if (job->open == dev->here_open)
		job->open->done_here = true;
	else
		sim_wakeup_notify(&job->open->wakeup, "sim-v3d");
	q->running = NULL;
	q->stalled = false;
	v3ds_job_free(job);
}

static void start(struct sim_v3d_device *dev, struct v3ds_job *job, uint64_t now)
{
	struct v3ds_queue *q = &dev->queues[job->queue];
	struct v3ds_entity *e = &job->open->entity[job->queue];
	e->head = job->next;
	if (!e->head)
		e->tail = NULL;
	job->next = NULL;
	q->running = job;
	q->rr_client = job->client;
	job->seqno = ++q->emit_seqno;
	job->start_ns = now;
	switch (job->queue) {
	case V3D_BIN:
	case V3D_RENDER: {
		const struct v3d_cle_stats *cs = v3d_cle_stats(dev->cle[job->queue]);
		job->cle_draws0 = cs->draws;
		job->cle_unmodeled0 = cs->unmodeled;
		job->cle_recorded0 = recorded_total(cs);
		v3ds_trace(dev, SIM_V3D_TRACE_SUBMIT_CL, job->queue, job->seqno, job->client, job->u.cl.start,
			   job->u.cl.end);
		struct v3d_cle_bin_regs regs = { .qma = job->u.cl.qma, .qms = job->u.cl.qms, .qts = job->u.cl.qts };
		v3d_cle_start(dev->cle[job->queue], job->queue == V3D_BIN ? V3D_CLE_BIN : V3D_CLE_RENDER,
			      job->u.cl.start, job->u.cl.end, job->queue == V3D_BIN ? &regs : NULL,
			      &job->u.cl.shared->sem);
		break;
	}
	case V3D_TFU:
		v3ds_trace(dev, SIM_V3D_TRACE_SUBMIT_TFU, V3D_TFU, job->seqno, job->client, job->u.tfu.iia, 0);
		break;
	case V3D_CSD:
		v3ds_trace(dev, SIM_V3D_TRACE_SUBMIT_CSD, V3D_CSD, job->seqno, job->client, job->u.csd.cfg[5],
			   job->u.csd.cfg[6]);
		break;
	default:
		v3ds_trace(dev, SIM_V3D_TRACE_CACHE_CLEAN_BEGIN, V3D_CACHE_CLEAN, job->seqno, job->client, 0, 0);
		break;
	}
}

/* The next job of the queue: the ready entity head of the open after the one that ran last
 * (by client id, wrapping), so one busy open cannot starve another. */
static struct v3ds_job *pick(struct sim_v3d_device *dev, enum v3d_queue qi)
{
	struct v3ds_job *after = NULL, *first = NULL;
	uint32_t last = dev->queues[qi].rr_client;
	for (struct v3ds_open *o = dev->opens; o; o = o->next) {
		struct v3ds_job *j = o->entity[qi].head;
		if (!j || !job_ready(j))
			continue;
		if (j->client > last && (!after || j->client < after->client))
			after = j;
		if (!first || j->client < first->client)
			first = j;
	}
	return after ? after : first;
}

/* --- units --- */


/* A job's unexecuted work (c) is counted for its open; in strict mode, a job that would otherwise
 * succeed fails with a job error naming the first kind that fails strict. Returns the fence
 * error. */
static int job_unmodeled(struct sim_v3d_device *dev, struct v3ds_job *job, const struct sim_unmodeled_counts *c,
			 const char *unit, int error)
{
	sim_unmodeled_sink_add(&job->open->unmodeled, c);
	struct v3ds_cl_submit *shared = job->queue == V3D_BIN || job->queue == V3D_RENDER ? job->u.cl.shared : NULL;
	/* The guest waits for the render job of a CL submit: a bin job strict mode failed fails it
	 * too (the real kernel would run it; the sim then says the submit's work was skipped). */
	if (!error && shared && job->queue == V3D_RENDER && shared->strict_error)
		return shared->strict_error;
	if (!dev->strict || error)
		return error;
	for (unsigned k = 0; k < SIM_UNMODELED_KINDS; k++) {
		if (!c->n[k] || !sim_unmodeled_fails_strict(k))
			continue;
		struct v3ds_fault f = {
			.kind = "job-error", .unit = unit, .opcode = -1, .where = c->what[k],
			.reason = sim_unmodeled_message(k), .unmodeled = true,
		};
		v3ds_report_fault(dev, job, &f);
		if (shared)
			shared->strict_error = -EIO;
		return -EIO;
	}
	return error;
}

/* The draws, the other recorded (state) packets and the tile loads / stores of a bin or render job
 * the CLE met but did not execute. */
static void cl_unmodeled(struct sim_v3d_device *dev, const struct v3ds_job *job, struct sim_unmodeled_counts *c)
{
	const struct v3d_cle_stats *cs = v3d_cle_stats(dev->cle[job->queue]);
	uint64_t draws = cs->draws - job->cle_draws0;
	sim_unmodeled_add(c, SIM_UNMODELED_DRAW, draws, "draw packet in a bin list");
	uint64_t recorded = recorded_total(cs) - job->cle_recorded0;
	sim_unmodeled_add(c, SIM_UNMODELED_STATE, recorded > draws ? recorded - draws : 0,
			  "state packet in a control list (recorded)");
	sim_unmodeled_add(c, SIM_UNMODELED_ENGINE, cs->unmodeled - job->cle_unmodeled0,
			  "tile buffer load/store or clear variant");
}

static void cl_fault(struct sim_v3d_device *dev, struct v3ds_job *job, struct v3d_cle *cle, bool error)
{
	const struct v3d_cle_fault *cf = v3d_cle_fault(cle);
	struct v3ds_fault f = {
		.kind = error ? "job-error" : "mmu-fault",
		.unit = "CLE",
		.addr = cf ? cf->addr : 0,
		.write = cf ? cf->write : false,
		.packet_addr = cf ? cf->packet_addr : 0,
		.opcode = cf ? cf->opcode : -1,
		.where = cf ? cf->what : "?",
		.reason = error ? "invalid control list" : (cf && cf->write ? "write outside every BO"
									 : "read outside every BO"),
		.cle = v3d_cle_stats(cle),
	};
	v3ds_report_fault(dev, job, &f);
}

static void hang(struct sim_v3d_device *dev, struct v3ds_job *job, struct v3d_cle *cle, bool semaphore)
{
	v3ds_trace(dev, SIM_V3D_TRACE_RESET_BEGIN, job->queue, job->seqno, job->client, 0, 0);
	const struct v3d_cle_stats *st = v3d_cle_stats(cle);
	struct v3ds_fault f = {
		.kind = "hang",
		.unit = "CLE",
		.addr = st->current_addr,
		.packet_addr = st->current_addr,
		.opcode = -1,
		.where = semaphore ? "WAIT_ON_SEMAPHORE" : "running",
		.reason = semaphore ? "waited on the bin/render semaphore past the hangcheck period"
				    : "still running past the hangcheck period (a branch cycle?)",
		.cle = st,
	};
	v3ds_report_fault(dev, job, &f);
	enum v3d_queue queue = job->queue;
	uint32_t seqno = job->seqno, client = job->client;
	complete(dev, job, -ECANCELED);
	v3ds_trace(dev, SIM_V3D_TRACE_RESET_END, queue, seqno, client, 0, 0);
}

/* One slice of a bin or render list, of at most packets. Returns true if it made progress. */
static bool run_cl(struct sim_v3d_device *dev, struct v3ds_job *job, uint64_t now, uint64_t *next_wake,
		   uint32_t packets)
{
	struct v3ds_queue *q = &dev->queues[job->queue];
	struct v3d_cle *cle = dev->cle[job->queue];
	const struct v3d_cle_mem mem = { .ctx = dev, .read = mem_read, .write = mem_write };
	uint64_t before = v3d_cle_stats(cle)->packets;
	enum v3d_cle_status st = v3d_cle_run(cle, &mem, packets);
	dev->stats.cle_packets += v3d_cle_stats(cle)->packets - before;
	uint64_t deadline = job->start_ns + (uint64_t)dev->hangcheck_ms * 1000000u;
	struct sim_unmodeled_counts unmodeled = { 0 };
	switch (st) {
	case V3D_CLE_DONE:
		cl_unmodeled(dev, job, &unmodeled);
		complete(dev, job, job_unmodeled(dev, job, &unmodeled, "CLE", 0));
		return true;
	case V3D_CLE_FAULT:
	case V3D_CLE_ERROR:
		cl_fault(dev, job, cle, st == V3D_CLE_ERROR);
		cl_unmodeled(dev, job, &unmodeled);
		complete(dev, job, job_unmodeled(dev, job, &unmodeled, "CLE", st == V3D_CLE_ERROR ? -EIO : 0));
		return true;
	case V3D_CLE_WAIT_SEMAPHORE:
		if (now >= deadline) {
			hang(dev, job, cle, true);
			return true;
		}
		q->stalled = true;
		if (now + STALL_REPOLL_NS < *next_wake)
			*next_wake = now + STALL_REPOLL_NS;
		if (deadline < *next_wake)
			*next_wake = deadline;
		return false;
	case V3D_CLE_YIELD:
	default:
		q->stalled = false;
		if (now >= deadline) {
			hang(dev, job, cle, false);
		}
		return true;
	}
}

static void run_tfu(struct sim_v3d_device *dev, struct v3ds_job *job)
{
	const struct drm_v3d_submit_tfu *a = &job->u.tfu;
	struct v3d_tfu_regs regs = {
		.icfg = a->icfg, .iia = a->iia, .iis = a->iis, .ica = a->ica, .iua = a->iua,
		.ioa = a->ioa, .ios = a->ios,
		/* The kernel writes COEF1-3 only with COEF0.USECOEF. */
		.coef = { a->coef[0], 0, 0, 0 },
		.ioc = dev->model->ver >= 71 ? a->v71.ioc : 0,
	};
	if (a->coef[0] & (1u << 31))
		memcpy(regs.coef, a->coef, sizeof(regs.coef));
	const struct v3d_cle_mem mem = { .ctx = dev, .read = mem_read, .write = mem_write };
	struct v3d_tfu_result res;
	v3d_tfu_run(dev->model->ver, &regs, &mem, &res);
	dev->stats.tfu_bytes += res.bytes_written;
	int error = 0;
	if (res.status != V3D_TFU_DONE) {
		struct v3ds_fault f = {
			.kind = res.status == V3D_TFU_FAULT ? "mmu-fault" : "job-error",
			.unit = "TFU",
			.addr = res.addr,
			.write = res.write,
			.opcode = -1,
			.where = res.reg,
			.reason = res.reason,
		};
		v3ds_report_fault(dev, job, &f);
		error = res.status == V3D_TFU_ERROR ? -EIO : 0;
	}
	/* A configuration the TFU model does not execute is unexecuted engine work (the job fails
	 * in any mode). */
	struct sim_unmodeled_counts unmodeled = { 0 };
	if (res.status == V3D_TFU_ERROR)
		sim_unmodeled_add(&unmodeled, SIM_UNMODELED_ENGINE, 1, res.reason ? res.reason : "TFU job");
	complete(dev, job, job_unmodeled(dev, job, &unmodeled, "TFU", error));
}

static void run_csd(struct sim_v3d_device *dev, struct v3ds_job *job)
{
	const uint32_t *cfg = job->u.csd.cfg;
	struct sim_v3d_csd_dispatch r = { .client = job->client, .seqno = job->seqno };
	memcpy(r.cfg, cfg, sizeof(r.cfg));
	uint64_t wgs = 1;
	for (int i = 0; i < 3; i++) {
		r.num_wgs[i] = cfg[i] >> 16;
		r.wg_offset[i] = cfg[i] & 0xffffu;
		wgs *= r.num_wgs[i];
	}
	r.wg_size = cfg[3] & 0xffu;
	r.wgs_per_sg = (cfg[3] >> 8) & 0xfu;
	/* CFG4 is "batches - 1", except on 7.1.6+ where it is the batch count (Mesa's rule). */
	uint32_t rev = (dev->model->ident[DRM_V3D_PARAM_V3D_HUB_IDENT3] >> 8) & 0xffu;
	bool count_is_exact = dev->model->ver == 71 && rev >= 6;
	r.batches = count_is_exact ? cfg[4] : cfg[4] + 1;
	uint64_t wg_size = r.wg_size ? r.wg_size : 256;
	uint64_t expected = (wg_size + 15) / 16 * wgs;
	r.expected_batches = expected > UINT32_MAX ? UINT32_MAX : (uint32_t)expected;
	r.shader_addr = cfg[5] & ~7u;
	r.shader_flags = cfg[5] & 7u;
	r.uniforms_addr = cfg[6];
	/* A zero workgroup count reads as 65536 in the hardware; the kernel does not start it. */
	r.skipped = wgs == 0;
	r.valid = !r.skipped && r.batches == r.expected_batches;
	bool faulted = false;
	if (!r.skipped) {
		/* The QPUs would fetch the shader (and read uniforms) first: an unmapped address is
		 * the fault they would take. Nothing else is executed. */
		const char *reg = NULL;
		uint32_t addr = 0;
		if (!v3ds_mmu_mapped(dev, r.shader_addr)) {
			reg = "CFG5";
			addr = r.shader_addr;
		} else if (r.uniforms_addr && !v3ds_mmu_mapped(dev, r.uniforms_addr)) {
			reg = "CFG6";
			addr = r.uniforms_addr;
		}
		if (reg) {
			r.valid = false;
			faulted = true;
			struct v3ds_fault f = {
				.kind = "mmu-fault", .unit = "CSD", .addr = addr, .opcode = -1, .where = reg,
				.reason = reg[3] == '5' ? "shader address outside every BO"
							: "uniforms address outside every BO",
			};
			v3ds_report_fault(dev, job, &f);
		}
	}
	dev->stats.csd_dispatches++;
	v3ds_csd_record(dev, &r);
	/* The QPU code is not run: a dispatch that starts is unexecuted work (unless it faulted). */
	struct sim_unmodeled_counts unmodeled = { 0 };
	if (!r.skipped && !faulted)
		sim_unmodeled_add(&unmodeled, SIM_UNMODELED_DISPATCH, 1, "CSD job");
	complete(dev, job, job_unmodeled(dev, job, &unmodeled, "CSD", 0));
}

/* --- the worker --- */

/* One round over the queues in mask: start what each idle queue may run, run a slice (CL lists:
 * of at most packets) of each queue's running job. */
static bool step_queues(struct sim_v3d_device *dev, uint64_t now, uint64_t *next_wake, unsigned mask,
			uint32_t packets)
{
	bool progress = false;
	if (dev->paused)
		return false;
	for (unsigned qi = 0; qi < V3DS_NR_QUEUES; qi++) {
		if (!(mask & (1u << qi)))
			continue;
		struct v3ds_queue *q = &dev->queues[qi];
		if (!q->running) {
			struct v3ds_job *job = pick(dev, (enum v3d_queue)qi);
			if (job) {
				start(dev, job, now);
				progress = true;
			}
		}
		struct v3ds_job *job = q->running;
		if (!job)
			continue;
		switch (job->queue) {
		case V3D_BIN:
		case V3D_RENDER:
			progress |= run_cl(dev, job, now, next_wake, packets);
			break;
		case V3D_TFU:
			run_tfu(dev, job);
			progress = true;
			break;
		case V3D_CSD:
			run_csd(dev, job);
			progress = true;
			break;
		default:
			complete(dev, job, 0);
			progress = true;
			break;
		}
	}
	return progress;
}

/* One round of the worker (sim_worker.h): every queue. */
static bool sched_step(void *arg, uint64_t now, uint64_t *next_wake)
{
	return step_queues(arg, now, next_wake, (1u << V3DS_NR_QUEUES) - 1, V3DS_CL_SLICE_PACKETS);
}

/* What a SUBMIT_CL run in the submitting thread (ferryd's loop) may do: a few rounds of the bin,
 * render and cache-clean queues with short list slices, a small job's whole work; TFU and CSD
 * jobs, whose step is the whole job, stay the worker's. */
#define V3DS_HERE_STEPS 8u
#define V3DS_HERE_PACKETS 256u
#define V3DS_HERE_QUEUES ((1u << V3D_BIN) | (1u << V3D_RENDER) | (1u << V3D_CACHE_CLEAN))

/* Nothing runs or waits to run: the worker may sleep on. */
static bool device_idle(const struct sim_v3d_device *dev)
{
	for (unsigned qi = 0; qi < V3DS_NR_QUEUES; qi++)
		if (dev->queues[qi].running)
			return false;
	for (const struct v3ds_open *o = dev->opens; o; o = o->next)
		for (unsigned qi = 0; qi < V3DS_NR_QUEUES; qi++)
			if (o->entity[qi].head)
				return false;
	return true;
}

/* The jobs just pushed, run here while the worker sleeps idle (the same steps under the same
 * lock); true when the device is idle again, so the worker need not wake. */
static bool run_here(struct sim_v3d_device *dev, struct v3ds_open *o)
{
	if (!dev->worker.running || !dev->worker.idle)
		return false;
	dev->sync.work_muted = true; /* a job its fences release runs in a step here, or the caller kicks */
	dev->here_open = o;
	for (unsigned i = 0; i < V3DS_HERE_STEPS; i++) {
		uint64_t next_wake = UINT64_MAX;
		if (!step_queues(dev, sim_now_ns(), &next_wake, V3DS_HERE_QUEUES, V3DS_HERE_PACKETS))
			break;
		atomic_fetch_add(&dev->lock.steps, 1);
	}
	dev->sync.work_muted = false;
	dev->here_open = NULL;
	return device_idle(dev);
}

void v3ds_sched_kick(struct sim_v3d_device *dev, struct v3ds_open *here)
{
	if (here && run_here(dev, here))
		return;
	pthread_cond_signal(&dev->work_cond);
}

int v3ds_sched_start(struct sim_v3d_device *dev)
{
	dev->worker = (struct sim_worker){ .lock = &dev->lock, .work_cond = &dev->work_cond,
					   .step = sched_step, .ctx = dev };
	return sim_worker_start(&dev->worker);
}

void v3ds_sched_stop(struct sim_v3d_device *dev)
{
	sim_worker_stop(&dev->worker);
}

void v3ds_sched_cancel_open(struct v3ds_open *o)
{
	struct sim_v3d_device *dev = o->dev;
	for (unsigned qi = 0; qi < V3DS_NR_QUEUES; qi++) {
		struct v3ds_queue *q = &dev->queues[qi];
		if (q->running && q->running->open == o) {
			struct v3ds_job *job = q->running;
			q->running = NULL;
			q->stalled = false;
			sim_fence_signal(&dev->sync, job->done, -ECANCELED);
			v3ds_job_free(job);
		}
		struct v3ds_entity *e = &o->entity[qi];
		while (e->head) {
			struct v3ds_job *job = e->head;
			e->head = job->next;
			sim_fence_signal(&dev->sync, job->done, -ECANCELED);
			v3ds_job_free(job);
		}
		e->tail = NULL;
	}
}
