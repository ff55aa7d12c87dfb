/* kdev.debug_state of the simulated msm device: every unretired submit of an open, whether the
 * CP has begun it, and — for a submit stalled in CP_WAIT_REG_MEM / CP_WAIT_MEM_GTE — what it
 * polls (address or register, live value, wanted value, compare). The line format is kdev.h's.
 * A real kernel has no such interface; this is the simulator's debugfs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ferry/hw/addr64.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"
#include "sim_msm_priv.h"

struct out {
	char *buf;
	size_t len, used;
};

/* Appends one whole line or nothing. */
static void put_line(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_line(struct out *o, const char *fmt, ...)
{
	if (o->used + 1 >= o->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->buf[o->used] = '\0'; /* did not fit: drop the partial line */
		return;
	}
	o->used += (size_t)n;
}

/* A dword of the open's address space as the CP would poll it; false if unmapped. */
static bool peek32(const struct msms_open *o, uint64_t iova, uint32_t *out)
{
	const struct iova_range *r = iova_alloc_find(&o->vm, iova);
	if (!r || (iova & 3u))
		return false;
	const struct msms_bo *bo = r->owner;
	uint64_t off = iova - r->start;
	if (off > bo->size || bo->size - off < 4)
		return false;
	*out = __atomic_load_n((const uint32_t *)(bo->map + off), __ATOMIC_ACQUIRE);
	return true;
}

static const char *op_name(uint32_t function)
{
	static const char *const names[] = { "always", "lt", "le", "eq", "ne", "ge", "gt" };
	return function < sizeof(names) / sizeof(names[0]) ? names[function] : "reserved";
}

/* The wait the stalled submit s polls, appended to line (" wait=..."), or nothing when the CP
 * is not at a wait packet it can read. */
static void describe_wait(struct sim_msm_device *dev, const struct msms_submit *s, char *line, size_t len)
{
	line[0] = '\0';
	const struct cp_exec *x = s->cp;
	if (!s->running || !s->stalled || !x || x->depth == 0)
		return;
	const struct cp_frame *fr = &x->ib[x->depth - 1];
	const struct msms_open *o = s->queue->open;
	uint64_t at = fr->base + 4ull * fr->pos;
	uint32_t header;
	if (fr->pos >= fr->size || !peek32(o, at, &header) || !pm4_is_type7(header))
		return;
	uint32_t opcode = pm4_type7_opcode(header), count = pm4_type7_count(header);
	/* The packets a submit stalls in are those with an address the CP waits on. */
	const struct pm4_payload *l = pm4_payload(opcode);
	uint32_t d[CP_WAIT_REG_MEM_LEN] = { 0 }; /* the longest of them */
	if (!pm4_payload_find(l, PM4_ADDR_WAIT) || l->len > sizeof(d) / sizeof(d[0]))
		return;
	uint32_t need = l->len;
	if (count < need || fr->size - fr->pos - 1 < need)
		return;
	for (uint32_t i = 0; i < need; i++)
		if (!peek32(o, at + 4ull * (1 + i), &d[i]))
			return;
	uint32_t live = 0;
	if (opcode == CP_WAIT_MEM_GTE) {
		uint64_t addr = hw_addr64_at(d + CP_WAIT_MEM_GTE_POLL_ADDR_DW);
		if (!peek32(o, addr, &live))
			return;
		snprintf(line, len, " wait=WAIT_MEM_GTE addr=0x%016llx live=0x%08x ref=0x%08x mask=0xffffffff op=ge signed",
			 (unsigned long long)addr, live, d[CP_WAIT_MEM_GTE_REF_DW]);
		return;
	}
	uint32_t ref = d[CP_WAIT_REG_MEM_REF_DW], mask = d[CP_WAIT_REG_MEM_MASK_DW];
	const char *sign = (d[0] & CP_WAIT_REG_MEM_0_SIGNED) ? " signed" : "";
	const char *op = op_name(CP_WAIT_REG_MEM_0_FUNCTION(d[0]));
	if (CP_WAIT_REG_MEM_0_GET_POLL(d[0]) == POLL_MEMORY) {
		uint64_t addr = hw_addr64_at(d + CP_WAIT_REG_MEM_POLL_ADDR_DW);
		if (!peek32(o, addr, &live))
			return;
		snprintf(line, len, " wait=WAIT_REG_MEM addr=0x%016llx live=0x%08x ref=0x%08x mask=0x%08x op=%s%s",
			 (unsigned long long)addr, live, ref, mask, op, sign);
	} else {
		uint32_t reg = d[CP_WAIT_REG_MEM_POLL_ADDR_DW] & PM4_PAYLOAD_REG_MASK;
		live = cp_reg_read(&dev->cp, reg);
		snprintf(line, len, " wait=WAIT_REG_MEM reg=0x%05x live=0x%08x ref=0x%08x mask=0x%08x op=%s%s", reg,
			 live, ref, mask, op, sign);
	}
}

ssize_t msms_debug_state(struct msms_open *o, char *buf, size_t len)
{
	if (!len)
		return -EINVAL;
	struct out out = { .buf = buf, .len = len };
	buf[0] = '\0';
	struct sim_msm_device *dev = o->dev;
	sim_dev_lock(&dev->lock);
	for (const struct msms_queue *q = dev->queues; q; q = q->dev_next) {
		if (q->open != o)
			continue;
		for (const struct msms_submit *s = q->head; s; s = s->next) {
			char wait[192];
			describe_wait(dev, s, wait, sizeof(wait));
			put_line(&out, "queue=%u fence=%u exec=%c%s\n", q->id, s->fence, s->sop_written ? 'S' : 'P',
				 wait);
		}
	}
	sim_dev_unlock(&dev->lock);
	return (ssize_t)out.used;
}
