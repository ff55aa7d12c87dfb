/* The a6xx CP model: PM4 packet execution over a context's address space.
 *
 * Executed: type-4 register writes; CP_NOP; CP_INDIRECT_BUFFER(_PFD) (IB1 -> IB2, no deeper,
 * as on real a6xx where the ring is level 0); CP_MEM_WRITE; CP_EVENT_WRITE (a timestamp write
 * when the TIMESTAMP bit is set and the packet carries ADDR+value); CP_REG_TO_MEM (CNT, 64B,
 * ACCUMULATE); CP_MEM_TO_REG; CP_MEMCPY (resumable across slices); CP_WAIT_REG_MEM (memory and
 * register polls, all functions, mask; an unmet wait yields); CP_WAIT_FOR_IDLE/ME (no-ops: every
 * effect of earlier packets is already visible). Every other type-7 packet is skipped by its
 * count and counted, as the CP skips packets its firmware does not act on.
 * Not modeled: CP_MEM_TO_REG SHIFT_BY_2, CP_WAIT_REG_MEM WRITE_MEMORY, CP_PROTECT, draw state,
 * shaders. Poll sources SCRATCH/ON_CHIP are treated as register polls. */
#include "cp.h"

#include <string.h>
#include <time.h>

#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"

uint64_t cp_always_on_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* 19.2 ticks per microsecond = 192 per 10000 ns; split to avoid overflow. */
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return ns / 10000u * 192u + ns % 10000u * 192u / 10000u;
}

uint32_t cp_reg_read(const struct cp_device *cp, uint32_t reg)
{
	if (reg == REG_A6XX_CP_ALWAYS_ON_COUNTER)
		return (uint32_t)cp_always_on_ticks();
	if (reg == REG_A6XX_CP_ALWAYS_ON_COUNTER_HI)
		return (uint32_t)(cp_always_on_ticks() >> 32);
	return reg < CP_NUM_REGS ? cp->regs[reg] : 0;
}

static void reg_write(struct cp_device *cp, uint32_t reg, uint32_t val)
{
	if (reg < CP_NUM_REGS)
		cp->regs[reg] = val;
}

void cp_sync_ib_regs(struct cp_device *cp, const struct cp_exec *x)
{
	for (unsigned lvl = 0; lvl < 2; lvl++) {
		const struct cp_frame *f = &x->ib[lvl];
		bool live = x->depth > lvl;
		uint32_t base = lvl ? REG_A6XX_CP_IB2_BASE : REG_A6XX_CP_IB1_BASE;
		uint32_t rem = lvl ? REG_A6XX_CP_IB2_REM_SIZE : REG_A6XX_CP_IB1_REM_SIZE;
		cp->regs[base] = live ? (uint32_t)f->base : 0;
		cp->regs[base + 1] = live ? (uint32_t)(f->base >> 32) : 0;
		cp->regs[rem] = live ? f->size - f->pos : 0;
	}
}

void cp_exec_start_ib1(struct cp_exec *x, uint64_t iova, uint32_t size_dwords)
{
	x->ib[0] = (struct cp_frame){ .base = iova, .size = size_dwords & CP_INDIRECT_BUFFER_2_SIZE_MASK };
	x->depth = 1;
	x->pkt_progress = 0;
}

/* State of the packet being executed, for fault reports. */
struct pkt {
	struct cp_frame *frame;
	uint32_t header;
	uint32_t count; /* payload dwords */
};

static void locate(struct cp_exec *x, const struct pkt *p, bool header_valid)
{
	struct cp_fault *f = &x->fault;
	f->ib_level = x->depth;
	f->ib_base = p->frame->base;
	f->ib_size = p->frame->size;
	f->dword = p->frame->pos;
	f->header_valid = header_valid;
	f->header = p->header;
	if (!header_valid)
		f->opcode = -2;
	else if (pm4_is_type4(p->header))
		f->opcode = -1;
	else if (pm4_is_type7(p->header))
		f->opcode = (int)pm4_type7_opcode(p->header);
	else
		f->opcode = -2;
	f->reg = pm4_is_type4(p->header) ? pm4_type4_reg(p->header) : 0;
}

static enum cp_result opcode_fault(struct cp_exec *x, const struct pkt *p, const char *reason)
{
	locate(x, p, true);
	x->fault.kind = CP_FAULT_OPCODE;
	x->fault.reason = reason;
	return CP_RESULT_FAULT;
}

static void pagefault(struct cp_exec *x, const struct pkt *p, bool header_valid, uint64_t iova, bool write,
		      const char *type)
{
	locate(x, p, header_valid);
	x->fault.kind = CP_FAULT_PAGEFAULT;
	x->fault.iova = iova;
	x->fault.write = write;
	x->fault.type = type;
}

/* Memory access through the address space; false after recording a pagefault. */
static bool mem_read(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova,
		     void *dst, uint64_t len)
{
	uint8_t *d = dst;
	while (len) {
		uint64_t avail = 0;
		const char *type = "TRANSLATION";
		const void *src = m->translate(m->ctx, iova, len, false, &avail, &type);
		if (!src) {
			pagefault(x, p, true, iova, false, type);
			return false;
		}
		memcpy(d, src, avail);
		d += avail;
		iova += avail;
		len -= avail;
	}
	return true;
}

static bool mem_write(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova,
		      const void *src, uint64_t len)
{
	const uint8_t *s = src;
	while (len) {
		uint64_t avail = 0;
		const char *type = "TRANSLATION";
		void *dst = m->translate(m->ctx, iova, len, true, &avail, &type);
		if (!dst) {
			pagefault(x, p, true, iova, true, type);
			return false;
		}
		memcpy(dst, s, avail);
		s += avail;
		iova += avail;
		len -= avail;
	}
	return true;
}

/* A dword another agent (CPU, another queue) may be writing: read it atomically when aligned. */
static bool mem_poll32(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint64_t iova,
		       uint32_t *out)
{
	uint64_t avail = 0;
	const char *type = "TRANSLATION";
	const void *src = m->translate(m->ctx, iova, 4, false, &avail, &type);
	if (!src) {
		pagefault(x, p, true, iova, false, type);
		return false;
	}
	if (avail >= 4 && ((uintptr_t)src & 3u) == 0) {
		*out = __atomic_load_n((const uint32_t *)src, __ATOMIC_ACQUIRE);
		return true;
	}
	return mem_read(m, x, p, iova, out, 4);
}

/* Reads payload dwords [first, first + n) of the current packet from the IB. */
static bool payload(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t first,
		    uint32_t n, uint32_t *dst)
{
	uint64_t iova = p->frame->base + 4ull * ((uint64_t)p->frame->pos + 1 + first);
	return mem_read(m, x, p, iova, dst, 4ull * n);
}

static uint64_t addr64(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

static bool wait_compare(uint32_t function, bool is_signed, uint32_t v, uint32_t ref)
{
	int32_t sv = (int32_t)v, sr = (int32_t)ref;
	switch (function) {
	case WRITE_ALWAYS: return true;
	case WRITE_LT: return is_signed ? sv < sr : v < ref;
	case WRITE_LE: return is_signed ? sv <= sr : v <= ref;
	case WRITE_EQ: return v == ref;
	case WRITE_NE: return v != ref;
	case WRITE_GE: return is_signed ? sv >= sr : v >= ref;
	case WRITE_GT: return is_signed ? sv > sr : v > ref;
	default: return false;
	}
}

/* Per-packet handlers. They return DONE when the packet is complete (the caller advances past
 * it), or WAIT/BUDGET/FAULT. *cost accumulates the work they did beyond fetching. */

static enum cp_result exec_type4(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				 const struct pkt *p)
{
	uint32_t vals[PM4_TYPE4_MAX_COUNT];
	uint32_t reg = pm4_type4_reg(p->header);
	if (!payload(m, x, p, 0, p->count, vals))
		return CP_RESULT_FAULT;
	for (uint32_t i = 0; i < p->count; i++)
		reg_write(cp, reg + i, vals[i]);
	cp->type4_packets++;
	return CP_RESULT_DONE;
}

static enum cp_result exec_ib(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
			      const struct pkt *p)
{
	uint32_t d[3];
	if (p->count != 3)
		return opcode_fault(x, p, "CP_INDIRECT_BUFFER with a payload other than 3 dwords");
	if (x->depth >= 2)
		return opcode_fault(x, p, "CP_INDIRECT_BUFFER inside IB2 (a6xx nests IBs two deep)");
	if (!payload(m, x, p, 0, 3, d))
		return CP_RESULT_FAULT;
	uint64_t base = addr64(d[0], d[1]);
	uint32_t size = d[2] & CP_INDIRECT_BUFFER_2_SIZE_MASK;
	if (base & 3u)
		return opcode_fault(x, p, "CP_INDIRECT_BUFFER base not dword aligned");
	if (base > UINT64_MAX - 4ull * size)
		return opcode_fault(x, p, "CP_INDIRECT_BUFFER wraps the address space");
	/* Return address first: the parent resumes after this packet. */
	p->frame->pos += 1 + p->count;
	if (size) {
		x->ib[x->depth] = (struct cp_frame){ .base = base, .size = size };
		x->depth++;
	}
	cp_sync_ib_regs(cp, x);
	return CP_RESULT_BUDGET; /* tells the caller the position already moved */
}

static enum cp_result exec_mem_write(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p,
				     uint32_t *cost)
{
	uint32_t a[2];
	if (p->count < 2)
		return opcode_fault(x, p, "CP_MEM_WRITE without an address");
	if (!payload(m, x, p, 0, 2, a))
		return CP_RESULT_FAULT;
	uint64_t dst = addr64(a[0], a[1]);
	uint32_t chunk[256];
	for (uint32_t done = 0; done < p->count - 2;) {
		uint32_t n = p->count - 2 - done;
		if (n > 256)
			n = 256;
		if (!payload(m, x, p, 2 + done, n, chunk))
			return CP_RESULT_FAULT;
		if (!mem_write(m, x, p, dst + 4ull * done, chunk, 4ull * n))
			return CP_RESULT_FAULT;
		done += n;
	}
	*cost += p->count;
	return CP_RESULT_DONE;
}

static bool is_ts_event(uint32_t event)
{
	switch (event) {
	case CACHE_FLUSH_TS:
	case WT_DONE_TS:
	case RB_DONE_TS:
	case PC_CCU_RESOLVE_TS:
	case PC_CCU_FLUSH_DEPTH_TS:
	case PC_CCU_FLUSH_COLOR_TS:
		return true;
	default:
		return false;
	}
}

static enum cp_result exec_event_write(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	uint32_t d[4];
	if (p->count == 0)
		return opcode_fault(x, p, "CP_EVENT_WRITE without an event");
	uint32_t n = p->count < 4 ? p->count : 4;
	if (!payload(m, x, p, 0, n, d))
		return CP_RESULT_FAULT;
	bool ts = (d[0] & CP_EVENT_WRITE_0_TIMESTAMP) || is_ts_event(d[0] & 0xffu);
	/* Only the four-dword form carries ADDR and the value; the one-dword form touches no memory. */
	if (ts && n == 4 && !mem_write(m, x, p, addr64(d[1], d[2]), &d[3], 4))
		return CP_RESULT_FAULT;
	return CP_RESULT_DONE;
}

static enum cp_result exec_reg_to_mem(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				      const struct pkt *p, uint32_t *cost)
{
	uint32_t d[3];
	if (p->count < 3)
		return opcode_fault(x, p, "CP_REG_TO_MEM shorter than 3 dwords");
	if (!payload(m, x, p, 0, 3, d))
		return CP_RESULT_FAULT;
	uint32_t reg = d[0] & 0x3ffffu;
	uint32_t cnt = CP_REG_TO_MEM_0_GET_CNT(d[0]);
	bool is_64b = d[0] & CP_REG_TO_MEM_0_64B;
	bool accumulate = d[0] & CP_REG_TO_MEM_0_ACCUMULATE;
	uint64_t dst = addr64(d[1], d[2]);
	/* One snapshot of the always-on counter so lo and hi read in one packet agree. */
	uint64_t aon = cp_always_on_ticks();
	uint32_t vals[0xfff];
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t r = reg + i;
		if (r == REG_A6XX_CP_ALWAYS_ON_COUNTER)
			vals[i] = (uint32_t)aon;
		else if (r == REG_A6XX_CP_ALWAYS_ON_COUNTER_HI)
			vals[i] = (uint32_t)(aon >> 32);
		else
			vals[i] = cp_reg_read(cp, r);
	}
	if (accumulate && cnt) {
		uint32_t old[0xfff];
		if (!mem_read(m, x, p, dst, old, 4ull * cnt))
			return CP_RESULT_FAULT;
		uint32_t i = 0;
		if (is_64b) {
			for (; i + 1 < cnt; i += 2) {
				uint64_t sum = addr64(old[i], old[i + 1]) + addr64(vals[i], vals[i + 1]);
				vals[i] = (uint32_t)sum;
				vals[i + 1] = (uint32_t)(sum >> 32);
			}
		}
		for (; i < cnt; i++)
			vals[i] += old[i];
	}
	if (cnt && !mem_write(m, x, p, dst, vals, 4ull * cnt))
		return CP_RESULT_FAULT;
	*cost += cnt;
	return CP_RESULT_DONE;
}

static enum cp_result exec_mem_to_reg(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				      const struct pkt *p, uint32_t *cost)
{
	uint32_t d[3];
	if (p->count < 3)
		return opcode_fault(x, p, "CP_MEM_TO_REG shorter than 3 dwords");
	if (!payload(m, x, p, 0, 3, d))
		return CP_RESULT_FAULT;
	uint32_t reg = d[0] & 0x3ffffu;
	uint32_t cnt = CP_MEM_TO_REG_0_GET_CNT(d[0]);
	uint32_t vals[0x7ff];
	if (cnt && !mem_read(m, x, p, addr64(d[1], d[2]), vals, 4ull * cnt))
		return CP_RESULT_FAULT;
	for (uint32_t i = 0; i < cnt; i++)
		reg_write(cp, reg + i, vals[i]);
	*cost += cnt;
	return CP_RESULT_DONE;
}

/* Copies in chunks, remembering progress in x->pkt_progress so a huge copy spans slices. */
static enum cp_result exec_memcpy(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p,
				  uint32_t budget, uint32_t *cost)
{
	uint32_t d[5];
	if (p->count < 5)
		return opcode_fault(x, p, "CP_MEMCPY shorter than 5 dwords");
	if (!payload(m, x, p, 0, 5, d))
		return CP_RESULT_FAULT;
	uint64_t total = d[0];
	uint64_t src = addr64(d[1], d[2]), dst = addr64(d[3], d[4]);
	uint32_t chunk[1024];
	while (x->pkt_progress < total) {
		if (*cost >= budget)
			return CP_RESULT_BUDGET;
		uint64_t n = total - x->pkt_progress;
		if (n > 1024)
			n = 1024;
		uint64_t off = 4 * x->pkt_progress;
		if (!mem_read(m, x, p, src + off, chunk, 4 * n) || !mem_write(m, x, p, dst + off, chunk, 4 * n))
			return CP_RESULT_FAULT;
		x->pkt_progress += n;
		*cost += (uint32_t)n;
	}
	x->pkt_progress = 0;
	return CP_RESULT_DONE;
}

static enum cp_result exec_wait_reg_mem(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
					const struct pkt *p)
{
	uint32_t d[5];
	if (p->count < 5)
		return opcode_fault(x, p, "CP_WAIT_REG_MEM shorter than 5 dwords");
	if (!payload(m, x, p, 0, 5, d))
		return CP_RESULT_FAULT;
	uint32_t function = d[0] & 7u;
	if (function > WRITE_GT)
		return opcode_fault(x, p, "CP_WAIT_REG_MEM with a reserved function");
	uint32_t value;
	if (CP_WAIT_REG_MEM_0_GET_POLL(d[0]) == POLL_MEMORY) {
		if (!mem_poll32(m, x, p, addr64(d[1], d[2]), &value))
			return CP_RESULT_FAULT;
	} else {
		value = cp_reg_read(cp, d[1] & 0x3ffffu);
	}
	bool ok = wait_compare(function, d[0] & CP_WAIT_REG_MEM_0_SIGNED, value & d[4], d[3]);
	return ok ? CP_RESULT_DONE : CP_RESULT_WAIT;
}

enum cp_result cp_run(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x, uint32_t budget)
{
	uint32_t cost = 0;
	enum cp_result res = CP_RESULT_BUDGET;
	x->fault.kind = CP_FAULT_NONE;
	while (cost < budget) {
		if (x->depth == 0) {
			res = CP_RESULT_DONE;
			break;
		}
		struct cp_frame *f = &x->ib[x->depth - 1];
		if (f->pos >= f->size) {
			x->depth--; /* IB end: back to the parent (or done) */
			continue;
		}
		struct pkt p = { .frame = f };
		uint64_t hdr_iova = f->base + 4ull * f->pos;
		uint64_t avail;
		const char *type = "TRANSLATION";
		const void *h = m->translate(m->ctx, hdr_iova, 4, false, &avail, &type);
		if (!h || avail < 4) {
			if (!h) {
				pagefault(x, &p, false, hdr_iova, false, type);
				res = CP_RESULT_FAULT;
				break;
			}
			if (!mem_read(m, x, &p, hdr_iova, &p.header, 4)) {
				x->fault.header_valid = false;
				res = CP_RESULT_FAULT;
				break;
			}
		} else {
			memcpy(&p.header, h, 4);
		}

		uint32_t opcode = 0;
		bool type7 = false;
		if (pm4_is_type4(p.header)) {
			if (!pm4_type4_parity_ok(p.header)) {
				res = opcode_fault(x, &p, "type-4 header parity error");
				break;
			}
			p.count = pm4_type4_count(p.header);
		} else if (pm4_is_type7(p.header)) {
			if (!pm4_type7_parity_ok(p.header)) {
				res = opcode_fault(x, &p, "type-7 header parity error");
				break;
			}
			type7 = true;
			opcode = pm4_type7_opcode(p.header);
			p.count = pm4_type7_count(p.header);
		} else {
			res = opcode_fault(x, &p, "invalid packet type");
			break;
		}
		if (p.count > f->size - f->pos - 1) {
			res = opcode_fault(x, &p, "packet runs past the end of its IB");
			break;
		}

		cost += 1 + p.count;
		enum cp_result r = CP_RESULT_DONE;
		if (!type7) {
			r = exec_type4(cp, m, x, &p);
		} else {
			switch (opcode) {
			case CP_NOP:
			case CP_WAIT_FOR_IDLE:
			case CP_WAIT_FOR_ME:
				break;
			case CP_INDIRECT_BUFFER:
			case CP_INDIRECT_BUFFER_PFD:
				r = exec_ib(cp, m, x, &p);
				if (r == CP_RESULT_BUDGET) {
					cp->packets++;
					x->packets++;
					continue; /* position already advanced */
				}
				break;
			case CP_MEM_WRITE:
				r = exec_mem_write(m, x, &p, &cost);
				break;
			case CP_EVENT_WRITE:
				r = exec_event_write(m, x, &p);
				break;
			case CP_REG_TO_MEM:
				r = exec_reg_to_mem(cp, m, x, &p, &cost);
				break;
			case CP_MEM_TO_REG:
				r = exec_mem_to_reg(cp, m, x, &p, &cost);
				break;
			case CP_MEMCPY:
				r = exec_memcpy(m, x, &p, budget, &cost);
				break;
			case CP_WAIT_REG_MEM:
				r = exec_wait_reg_mem(cp, m, x, &p);
				break;
			default:
				cp->skipped[opcode]++;
				break;
			}
		}
		if (r != CP_RESULT_DONE) {
			res = r; /* FAULT, WAIT, or BUDGET inside a resumable packet: stay on it */
			break;
		}
		f->pos += 1 + p.count;
		cp->packets++;
		x->packets++;
	}
	cp_sync_ib_regs(cp, x);
	return res;
}
