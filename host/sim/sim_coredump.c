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
 *   registers:                         as the kernel: byte offsets
 *     - { offset: 0x0024a0, value: 0x00001000, name: CP_IB1_BASE }
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"
#include "sim_msm_priv.h"

struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *fmt, ...)
{
	if (t->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->buf && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap - t->len <= (size_t)n)
			cap *= 2;
		char *nb = realloc(t->buf, cap);
		if (!nb) {
			t->failed = true;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
}

static const uint32_t dumped_regs[] = {
	REG_A6XX_RBBM_STATUS,
	REG_A6XX_CP_IB1_BASE, REG_A6XX_CP_IB1_BASE_HI, REG_A6XX_CP_IB1_REM_SIZE,
	REG_A6XX_CP_IB2_BASE, REG_A6XX_CP_IB2_BASE_HI, REG_A6XX_CP_IB2_REM_SIZE,
	REG_A6XX_CP_PROTECT_CNTL,
	REG_A6XX_CP_SCRATCH_REG(0), REG_A6XX_CP_SCRATCH_REG(1), REG_A6XX_CP_SCRATCH_REG(2),
	REG_A6XX_CP_SCRATCH_REG(3), REG_A6XX_CP_SCRATCH_REG(4), REG_A6XX_CP_SCRATCH_REG(5),
	REG_A6XX_CP_SCRATCH_REG(6), REG_A6XX_CP_SCRATCH_REG(7),
};

void sim_coredump_capture(struct sim_msm_device *dev, struct sim_open *o, const struct sim_submit *s,
			  const struct cp_fault *f)
{
	const struct sim_msm_model *m = dev->model;
	struct text t = { 0 };
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	put(&t, "---\nkernel: 6.1.0-ferry-sim\nmodule: msm\n");
	put(&t, "time: %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
	put(&t, "comm: %s\n", o->comm);
	if (o->cmdline[0])
		put(&t, "cmdline: %s\n", o->cmdline);
	put(&t, "revision: %u (%u.%u.%u.%u)\n", m->gpu_id, m->core, m->major, m->minor, m->patch);
	put(&t, "rbbm-status: 0x%08x\n", cp_reg_read(&dev->cp, REG_A6XX_RBBM_STATUS));
	switch (f->kind) {
	case CP_FAULT_PAGEFAULT:
		put(&t, "pagefault-info:\n  - iova=0x%016llx\n  - dir=%s\n  - type=%s\n  - source=CP\n",
		    (unsigned long long)f->iova, f->write ? "WRITE" : "READ", f->type ? f->type : "TRANSLATION");
		break;
	case CP_FAULT_HANG:
		put(&t, "hang:\n  - reason=%s (hangcheck period %u ms)\n", f->reason ? f->reason : "no progress",
		    dev->hangcheck_ms);
		break;
	default:
		put(&t, "cp-error:\n  - reason=%s\n", f->reason ? f->reason : "opcode error");
		break;
	}
	put(&t, "submit:\n  queue: %u\n  fence: %u\n  prio: %u\n", s->queue->id, s->fence, s->queue->prio);
	if (f->ib_level) {
		put(&t, "crash-location:\n  ib-level: %u\n  ib-iova: 0x%016llx\n  ib-size: %u\n  dword: %u\n",
		    f->ib_level, (unsigned long long)f->ib_base, f->ib_size, f->dword);
		if (f->opcode >= 0) {
			const char *name = pm4_opcode_name((uint32_t)f->opcode);
			put(&t, "  packet: %s (0x%02x)\n", name ? name : "UNKNOWN", (unsigned)f->opcode);
		} else if (f->opcode == -1) {
			put(&t, "  packet: PKT4 reg=0x%04x\n", f->reg);
		} else {
			put(&t, "  packet: invalid\n");
		}
		if (f->header_valid)
			put(&t, "  header: 0x%08x\n", f->header);
	}
	put(&t, "registers:\n");
	for (size_t i = 0; i < sizeof(dumped_regs) / sizeof(dumped_regs[0]); i++) {
		char nb[32];
		const char *name = a6xx_reg_name(dumped_regs[i], nb, sizeof(nb));
		put(&t, "  - { offset: 0x%06x, value: 0x%08x, name: %s }\n", dumped_regs[i] << 2,
		    cp_reg_read(&dev->cp, dumped_regs[i]), name ? name : "?");
	}
	if (t.failed) {
		free(t.buf);
		return; /* out of memory: the fault is still counted, only the dump is lost */
	}
	/* Like devcoredump, the newest dump replaces an unread one. */
	free(o->coredump);
	o->coredump = t.buf;
}
