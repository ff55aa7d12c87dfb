/* What the simulated V3D tells the outside: the trace ring (the kernel's v3d tracepoints with
 * CLOCK_MONOTONIC timestamps), the CSD dispatch records, and fault reports.
 *
 * The real v3d kernel only logs an MMU fault ("MMU error from client CLE ... at 0x..") and lets
 * the job carry on against a scratch page; it has no devcoredump. The simulator reports faults,
 * hangs and unit errors so ferry can hand them to the guest, through kdev.coredump, as text in
 * the spirit of the msm devcoredump (the newest report of the open is kept until read):
 *
 *   ---
 *   kernel: 6.1.0-ferry-sim
 *   module: v3d
 *   time: <sec>.<nsec>                  CLOCK_MONOTONIC at capture
 *   model: v3d-4.2 (ver 42)
 *   client: <sim_v3d_client_id>
 *   mmu-fault: | hang: | job-error:     what happened
 *     - address=0x<GPU address>         the faulting address (hang: the list's current address)
 *     - dir=READ|WRITE                  (mmu-fault only)
 *     - unit=CLE|TFU|CSD                the kernel's MMU client name for the unit
 *     - reason=<text>
 *   job:
 *     queue: bin|render|tfu|csd
 *     seqno: <the queue's fence seqno>
 *     submit: <ioctl serial of the device>
 *     out-sync: <that ioctl's out_sync handle>   (when it named one: which job, for the owner)
 *     cl: 0x<start>..0x<end>            bin/render
 *     tile-alloc: qma=0x.. qms=0x.. qts=0x..    bin
 *     tfu: icfg=0x.. iia=0x.. iis=<n> ioa=0x.. ios=0x.. ioc=0x..
 *     csd: cfg=[0x.., ... 7 words]
 *   crash-location:
 *     packet: 0x<address of the packet> CLE
 *     opcode: 0x<opcode>                CLE, when known
 *     what: <what the CLE was doing>    CLE ("CL fetch", "store tile buffer", ...)
 *     register: IIA|IOA|ICFG|IOC|COEF0|CFG5|CFG6    TFU / CSD
 *   last-packets:                       CLE: addresses of the last packets begun, oldest first
 *     - 0x<address>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_v3d_priv.h"
#include "sim/sim_report_text.h"

static const char *const trace_names[SIM_V3D_TRACE_KIND_COUNT] = {
	[SIM_V3D_TRACE_SUBMIT_CL_IOCTL] = "v3d_submit_cl_ioctl",
	[SIM_V3D_TRACE_SUBMIT_CL] = "v3d_submit_cl",
	[SIM_V3D_TRACE_BCL_IRQ] = "v3d_bcl_irq",
	[SIM_V3D_TRACE_RCL_IRQ] = "v3d_rcl_irq",
	[SIM_V3D_TRACE_SUBMIT_TFU_IOCTL] = "v3d_submit_tfu_ioctl",
	[SIM_V3D_TRACE_SUBMIT_TFU] = "v3d_submit_tfu",
	[SIM_V3D_TRACE_TFU_IRQ] = "v3d_tfu_irq",
	[SIM_V3D_TRACE_SUBMIT_CSD_IOCTL] = "v3d_submit_csd_ioctl",
	[SIM_V3D_TRACE_SUBMIT_CSD] = "v3d_submit_csd",
	[SIM_V3D_TRACE_CSD_IRQ] = "v3d_csd_irq",
	[SIM_V3D_TRACE_CACHE_CLEAN_BEGIN] = "v3d_cache_clean_begin",
	[SIM_V3D_TRACE_CACHE_CLEAN_END] = "v3d_cache_clean_end",
	[SIM_V3D_TRACE_RESET_BEGIN] = "v3d_reset_begin",
	[SIM_V3D_TRACE_RESET_END] = "v3d_reset_end",
};

const char *sim_v3d_trace_kind_name(uint32_t kind)
{
	return kind < SIM_V3D_TRACE_KIND_COUNT ? trace_names[kind] : "?";
}

void v3ds_trace(struct sim_v3d_device *dev, enum sim_v3d_trace_kind kind, enum v3d_queue queue,
		uint32_t seqno, uint32_t client, uint32_t a, uint32_t b)
{
	struct v3ds_trace_ring *r = dev->trace;
	uint64_t serial = r->next_serial++;
	r->ev[serial % SIM_V3D_TRACE_RING] = (struct sim_v3d_trace_event){
		.serial = serial, .ts_ns = sim_now_ns(), .kind = kind, .queue = queue,
		.seqno = seqno, .client = client, .a = a, .b = b,
	};
}

size_t sim_v3d_trace_read(struct sim_v3d_device *dev, uint64_t *cursor, struct sim_v3d_trace_event *out, size_t max)
{
	sim_dev_lock(&dev->lock);
	const struct v3ds_trace_ring *r = dev->trace;
	uint64_t oldest = r->next_serial > SIM_V3D_TRACE_RING ? r->next_serial - SIM_V3D_TRACE_RING : 0;
	uint64_t s = *cursor < oldest ? oldest : *cursor;
	size_t n = 0;
	for (; s < r->next_serial && n < max; s++)
		out[n++] = r->ev[s % SIM_V3D_TRACE_RING];
	*cursor = s;
	sim_dev_unlock(&dev->lock);
	return n;
}

void v3ds_csd_record(struct sim_v3d_device *dev, const struct sim_v3d_csd_dispatch *rec)
{
	struct v3ds_csd_ring *r = dev->csd;
	uint64_t serial = r->next_serial++;
	r->rec[serial % SIM_V3D_CSD_RING] = *rec;
	r->rec[serial % SIM_V3D_CSD_RING].serial = serial;
}

size_t sim_v3d_csd_read(struct sim_v3d_device *dev, uint64_t *cursor, struct sim_v3d_csd_dispatch *out, size_t max)
{
	sim_dev_lock(&dev->lock);
	const struct v3ds_csd_ring *r = dev->csd;
	uint64_t oldest = r->next_serial > SIM_V3D_CSD_RING ? r->next_serial - SIM_V3D_CSD_RING : 0;
	uint64_t s = *cursor < oldest ? oldest : *cursor;
	size_t n = 0;
	for (; s < r->next_serial && n < max; s++)
		out[n++] = r->rec[s % SIM_V3D_CSD_RING];
	*cursor = s;
	sim_dev_unlock(&dev->lock);
	return n;
}

/* --- reports --- */

static const char *const queue_names[V3DS_NR_QUEUES] = { "bin", "render", "tfu", "csd", "cache_clean" };

void v3ds_report_fault(struct sim_v3d_device *dev, const struct v3ds_job *job, const struct v3ds_fault *f)
{
	if (!strcmp(f->kind, "mmu-fault"))
		dev->stats.mmu_faults++;
	else if (!strcmp(f->kind, "hang"))
		dev->stats.hangs++;
	else
		dev->stats.job_errors++;
	job->open->faults++;
	sim_syncobj_faulted(&dev->sync, &job->open->syncobjs);

	struct ferry_text t = { 0 };
	sim_text_put_header(&t, "v3d");
	ferry_text_put(&t, "model: %s (ver %d)\n", dev->model->name, dev->model->ver);
	ferry_text_put(&t, "client: %u\n", job->client);
	ferry_text_put(&t, "%s:\n", f->kind);
	ferry_text_put(&t, "  - address=0x%08x\n", f->addr);
	if (!strcmp(f->kind, "mmu-fault"))
		ferry_text_put(&t, "  - dir=%s\n", f->write ? "WRITE" : "READ");
	ferry_text_put(&t, "  - unit=%s\n", f->unit);
	ferry_text_put(&t, "  - reason=%s\n", f->reason ? f->reason : "?");
	if (f->unmodeled)
		ferry_text_put(&t, "  - mode=strict (work the simulator does not execute fails its job)\n");
	ferry_text_put(&t, "job:\n  queue: %s\n  seqno: %u\n  submit: %llu\n", queue_names[job->queue], job->seqno,
	    (unsigned long long)job->submit_serial);
	if (job->out_sync)
		ferry_text_put(&t, "  out-sync: %u\n", job->out_sync);
	switch (job->queue) {
	case V3D_BIN:
		ferry_text_put(&t, "  cl: 0x%08x..0x%08x\n", job->u.cl.start, job->u.cl.end);
		ferry_text_put(&t, "  tile-alloc: qma=0x%08x qms=0x%08x qts=0x%08x\n", job->u.cl.qma, job->u.cl.qms,
		    job->u.cl.qts);
		break;
	case V3D_RENDER:
		ferry_text_put(&t, "  cl: 0x%08x..0x%08x\n", job->u.cl.start, job->u.cl.end);
		break;
	case V3D_TFU: {
		const struct drm_v3d_submit_tfu *a = &job->u.tfu;
		ferry_text_put(&t, "  tfu: icfg=0x%08x iia=0x%08x iis=%u ioa=0x%08x ios=0x%08x ioc=0x%08x\n", a->icfg,
		    a->iia, a->iis, a->ioa, a->ios, dev->model->ver >= 71 ? a->v71.ioc : 0);
		break;
	}
	case V3D_CSD: {
		const uint32_t *c = job->u.csd.cfg;
		ferry_text_put(&t, "  csd: cfg=[0x%08x, 0x%08x, 0x%08x, 0x%08x, 0x%08x, 0x%08x, 0x%08x]\n", c[0], c[1],
		    c[2], c[3], c[4], c[5], c[6]);
		break;
	}
	default:
		break;
	}
	ferry_text_put(&t, "crash-location:\n");
	if (!strcmp(f->unit, "CLE")) {
		ferry_text_put(&t, "  packet: 0x%08x\n", f->packet_addr);
		if (f->opcode >= 0)
			ferry_text_put(&t, "  opcode: 0x%02x\n", (unsigned)f->opcode);
		ferry_text_put(&t, "  what: %s\n", f->where ? f->where : "?");
	} else {
		ferry_text_put(&t, "  register: %s\n", f->where ? f->where : "?");
	}
	if (f->cle && f->cle->last_packet_count) {
		ferry_text_put(&t, "last-packets:\n");
		uint32_t n = f->cle->last_packet_count;
		uint32_t head = f->cle->last_packet_head;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t idx = (head + V3D_CLE_LAST_PACKETS - n + i) % V3D_CLE_LAST_PACKETS;
			ferry_text_put(&t, "  - 0x%08x\n", f->cle->last_packets[idx]);
		}
	}
	sim_text_publish(&t, &job->open->coredump);
}
