/* Devcoredump text for a fault or hang of the simulated GPU, kept per open until read through
 * kdev.coredump. The format follows msm's a6xx devcoredump (msm_gpu_devcoredump_read +
 * adreno_show), plus two ferry sections the kernel cannot give (it does not know which submit or
 * packet was running):
 *
 *   ---
 *   kernel: 6.1.0-ferry-sim
 *   module: msm
 *   time: <sec>.<nsec>                 CLOCK_MONOTONIC at capture
 *   comm: <comm>                       MSM_PARAM_COMM, default "ferry"
 *   cmdline: <cmdline>                 MSM_PARAM_CMDLINE (line omitted if unset)
 *   revision: 630 (6.3.0.2)            revn (core.major.minor.patch)
 *   rbbm-status: 0x00000000
 *   pagefault-info:                    only for a GPU pagefault
 *     - iova=0x0000000100001000
 *     - dir=READ|WRITE
 *     - type=TRANSLATION|PERMISSION
 *     - source=CP
 *   hang:                              only for a hang (hangcheck), instead of pagefault-info
 *     - reason=<text>
 *   cp-error:                          only for a CP opcode error (bad header/parity, ...)
 *     - reason=<text>
 *   submit:                            ferry: the guilty submit
 *     queue: <submitqueue id>
 *     fence: <seqno>
 *     prio: <priority>
 *   crash-location:                    ferry: the packet the CP was executing
 *     ib-level: 1|2
 *     ib-iova: 0x<IB base>
 *     ib-size: <dwords>
 *     dword: <offset of the packet header in that IB, in dwords>
 *     packet: CP_MEM_WRITE (0x3d) | PKT4 reg=0x0883 | invalid
 *     header: 0x<header dword>          (omitted if the header could not be read)
 *     frame: ib | draw-state group <n>   ferry: what the CP was executing at that level
 *   last-packets:                      ferry: the last packets the CP began, oldest first; the
 *     - { iova: 0x.., level: 1, dword: 12, header: 0x70460004, packet: CP_EVENT_WRITE }
 *                                      last one is the crash location
 *   cp-state:                          ferry: CP state the model keeps per submit
 *     render-mode: sysmem|gmem|binning
 *     marker: <last CP_SET_MARKER mode>
 *     draws: <draws this submit executed>
 *     skip-ib2: <global> <local>
 *     predicate: 0x<CP_REG_TEST bits>
 *     draw-state: <group>:<count>@0x<addr>[<modes>][ pending] ...   (enabled groups)
 *   registers:                         as the kernel: byte offsets; the CP registers above,
 *     - { offset: 0x0024a0, value: 0x00001000, name: CP_IB1_BASE }   then every other nonzero
 *                                      register of the file (at most 512, name "?" if unknown)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"
#include "sim_msm_priv.h"
#include "sim/sim_report_text.h"

static const uint32_t dumped_regs[] = {
	REG_A6XX_RBBM_STATUS,
	REG_A6XX_CP_IB1_BASE, REG_A6XX_CP_IB1_BASE_HI, REG_A6XX_CP_IB1_REM_SIZE,
	REG_A6XX_CP_IB2_BASE, REG_A6XX_CP_IB2_BASE_HI, REG_A6XX_CP_IB2_REM_SIZE,
	REG_A6XX_CP_PROTECT_CNTL,
	REG_A6XX_CP_SCRATCH_REG(0), REG_A6XX_CP_SCRATCH_REG(1), REG_A6XX_CP_SCRATCH_REG(2),
	REG_A6XX_CP_SCRATCH_REG(3), REG_A6XX_CP_SCRATCH_REG(4), REG_A6XX_CP_SCRATCH_REG(5),
	REG_A6XX_CP_SCRATCH_REG(6), REG_A6XX_CP_SCRATCH_REG(7),
};

static bool is_dumped(uint32_t reg)
{
	for (size_t i = 0; i < sizeof(dumped_regs) / sizeof(dumped_regs[0]); i++)
		if (dumped_regs[i] == reg)
			return true;
	/* The always-on counter reads live; the register file copy means nothing. */
	return reg == REG_A6XX_CP_ALWAYS_ON_COUNTER || reg == REG_A6XX_CP_ALWAYS_ON_COUNTER_HI;
}

static void put_packet_name(struct ferry_text *t, uint32_t header)
{
	if (pm4_is_type7(header)) {
		const char *name = pm4_opcode_name(pm4_type7_opcode(header));
		ferry_text_put(t, "%s", name ? name : "UNKNOWN");
	} else if (pm4_is_type4(header)) {
		ferry_text_put(t, "PKT4 reg=0x%04x", pm4_type4_reg(header));
	} else {
		ferry_text_put(t, "invalid");
	}
}

static void put_last_packets(struct ferry_text *t, const struct cp_exec *x)
{
	ferry_text_put(t, "last-packets:\n");
	for (uint32_t i = 0; i < x->last_count; i++) {
		const struct cp_packet_record *r = &x->last[(x->last_pos + i) % CP_LAST_PACKETS];
		ferry_text_put(t, "  - { iova: 0x%016llx, level: %u, dword: %u, header: 0x%08x, packet: ",
		    (unsigned long long)r->iova, r->level, r->dword, r->header);
		put_packet_name(t, r->header);
		ferry_text_put(t, "%s }\n", r->kind == CP_FRAME_DRAW_STATE ? ", frame: draw-state" : "");
	}
}

static void put_cp_state(struct ferry_text *t, const struct cp_exec *x)
{
	ferry_text_put(t, "cp-state:\n  render-mode: %s\n  marker: %u\n  draws: %llu\n  skip-ib2: %u %u\n"
	       "  predicate: 0x%08x\n  draw-state:",
	    cp_render_mode_name(x->render_mode), x->marker, (unsigned long long)x->draws, x->skip_ib2_global,
	    x->skip_ib2_local, x->predicate);
	for (unsigned g = 0; g < CP_SET_DRAW_STATE_MAX_GROUPS; g++) {
		const struct cp_draw_state_group *grp = &x->groups[g];
		if (!grp->count)
			continue;
		ferry_text_put(t, " %u:%u@0x%llx[%s%s%s]%s", g, grp->count, (unsigned long long)grp->addr,
		    grp->mode_mask & CP_DRAW_STATE_MODE_BINNING ? "B" : "",
		    grp->mode_mask & CP_DRAW_STATE_MODE_GMEM ? "G" : "",
		    grp->mode_mask & CP_DRAW_STATE_MODE_SYSMEM ? "S" : "", grp->pending ? " pending" : "");
	}
	ferry_text_put(t, "\n");
}

void msms_coredump_capture(struct sim_msm_device *dev, struct msms_open *o, const struct msms_submit *s,
			   const struct cp_fault *f)
{
	/* msm keeps one crash state until it is read (msm_gpu_crashstate_capture: a second fault
	 * finds gpu->crashstate set and captures nothing): the host learns of the later fault only
	 * from the fault counts. Under the device lock, as the reader's take is. */
	if (o->coredump)
		return;
	const struct sim_msm_model *m = dev->model;
	struct ferry_text t = { 0 };
	sim_text_put_header(&t, "msm");
	ferry_text_put(&t, "comm: %s\n", o->comm);
	if (o->cmdline[0])
		ferry_text_put(&t, "cmdline: %s\n", o->cmdline);
	ferry_text_put(&t, "revision: %u (%u.%u.%u.%u)\n", m->gpu_id, m->core, m->major, m->minor, m->patch);
	ferry_text_put(&t, "rbbm-status: 0x%08x\n", cp_reg_read(&dev->cp, REG_A6XX_RBBM_STATUS));
	switch (f->kind) {
	case CP_FAULT_PAGEFAULT:
		ferry_text_put(&t, "pagefault-info:\n  - iova=0x%016llx\n  - dir=%s\n  - type=%s\n  - source=CP\n",
		    (unsigned long long)f->iova, f->write ? "WRITE" : "READ", f->type ? f->type : "TRANSLATION");
		break;
	case CP_FAULT_HANG:
		ferry_text_put(&t, "hang:\n  - reason=%s (hangcheck period %u ms)\n", f->reason ? f->reason : "no progress",
		    dev->hangcheck_ms);
		break;
	case CP_FAULT_UNMODELED:
		ferry_text_put(&t, "unmodeled:\n  - reason=%s\n  - mode=strict (work the simulator does not execute "
		    "fails its submit)\n", f->reason ? f->reason : "work not executed");
		break;
	default:
		ferry_text_put(&t, "cp-error:\n  - reason=%s\n", f->reason ? f->reason : "opcode error");
		break;
	}
	ferry_text_put(&t, "submit:\n  queue: %u\n  fence: %u\n  prio: %u\n", s->queue->id, s->fence, s->queue->prio);
	if (f->ib_level) {
		ferry_text_put(&t, "crash-location:\n  ib-level: %u\n  ib-iova: 0x%016llx\n  ib-size: %u\n  dword: %u\n",
		    f->ib_level, (unsigned long long)f->ib_base, f->ib_size, f->dword);
		if (f->opcode >= 0) {
			const char *name = pm4_opcode_name((uint32_t)f->opcode);
			ferry_text_put(&t, "  packet: %s (0x%02x)\n", name ? name : "UNKNOWN", (unsigned)f->opcode);
		} else if (f->opcode == -1) {
			ferry_text_put(&t, "  packet: PKT4 reg=0x%04x\n", f->reg);
		} else {
			ferry_text_put(&t, "  packet: invalid\n");
		}
		if (f->header_valid)
			ferry_text_put(&t, "  header: 0x%08x\n", f->header);
		if (f->frame_kind == CP_FRAME_DRAW_STATE)
			ferry_text_put(&t, "  frame: draw-state group %u\n", f->group_id);
		else
			ferry_text_put(&t, "  frame: ib\n");
	}
	if (s->cp) { /* NULL: the submit failed before its first packet */
		put_last_packets(&t, s->cp);
		put_cp_state(&t, s->cp);
	}
	ferry_text_put(&t, "registers:\n");
	for (size_t i = 0; i < sizeof(dumped_regs) / sizeof(dumped_regs[0]); i++) {
		char nb[48];
		const char *name = a6xx_reg_name(dumped_regs[i], nb, sizeof(nb));
		ferry_text_put(&t, "  - { offset: 0x%06x, value: 0x%08x, name: %s }\n", dumped_regs[i] << 2,
		    cp_reg_read(&dev->cp, dumped_regs[i]), name ? name : "?");
	}
	unsigned extra = 0;
	for (uint32_t r = 0; r < CP_NUM_REGS && extra < 512; r++) {
		if (!dev->cp.regs[r] || is_dumped(r))
			continue;
		char nb[48];
		const char *name = a6xx_reg_name(r, nb, sizeof(nb));
		ferry_text_put(&t, "  - { offset: 0x%06x, value: 0x%08x, name: %s }\n", r << 2, dev->cp.regs[r],
		    name ? name : "?");
		extra++;
	}
	/* Out of memory loses only the dump: the fault is still counted. */
	sim_text_publish(&t, &o->coredump);
}
