/* CP model: the packets that move data between memory and registers, wait, or test conditions.
 * Layouts: Mesa's adreno_pm4.xml (see the macros in ferry/hw/adreno_pm4.h). */
#include <string.h>

#include "a6xx_cp_internal.h"
#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"

enum cp_result cp_exec_mem_write(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t *cost)
{
	uint32_t a[2];
	if (p->count < CP_MEM_WRITE_LEN)
		return cp_opcode_fault(x, p, "CP_MEM_WRITE without an address");
	if (!cp_payload(m, x, p, CP_MEM_WRITE_ADDR_DW, 2, a))
		return CP_RESULT_FAULT;
	uint64_t dst = hw_addr64_at(a);
	uint32_t chunk[256];
	for (uint32_t done = 0; done < p->count - CP_MEM_WRITE_DATA_DW;) {
		uint32_t n = p->count - CP_MEM_WRITE_DATA_DW - done;
		if (n > 256)
			n = 256;
		if (!cp_payload(m, x, p, CP_MEM_WRITE_DATA_DW + done, n, chunk))
			return CP_RESULT_FAULT;
		if (!cp_mem_write(m, x, p, dst + 4ull * done, chunk, 4ull * n))
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

/* TIMESTAMP: "write back timestamp instead of value from packet" (adreno_pm4.xml) - the 64-bit
 * GPU timestamp, which Turnip and freedreno read as 19.2 MHz always-on ticks. Without it, the
 * *_TS events write the packet's 32-bit value (the kernel's fence writes). Other events touch no
 * memory the model has (ZPASS_DONE's sample counts need rasterization). */
enum cp_result cp_exec_event_write(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				   const struct pkt *p, uint32_t *cost)
{
	uint32_t d[CP_EVENT_WRITE_VALUE_LEN];
	if (p->count < CP_EVENT_WRITE_LEN)
		return cp_opcode_fault(x, p, "CP_EVENT_WRITE without an event");
	uint32_t n = p->count < CP_EVENT_WRITE_VALUE_LEN ? p->count : CP_EVENT_WRITE_VALUE_LEN;
	if (!cp_payload(m, x, p, 0, n, d))
		return CP_RESULT_FAULT;
	if (d[0] & CP_EVENT_WRITE_0_TIMESTAMP) {
		if (n < CP_EVENT_WRITE_ADDR_LEN)
			return cp_opcode_fault(x, p, "CP_EVENT_WRITE TIMESTAMP without an address");
		uint64_t ts = cp_always_on_ticks();
		if (!cp_mem_write(m, x, p, hw_addr64_at(d + CP_EVENT_WRITE_ADDR_DW), &ts, 8))
			return CP_RESULT_FAULT;
	} else if (is_ts_event(CP_EVENT_WRITE_0_EVENT(d[0])) && n == CP_EVENT_WRITE_VALUE_LEN) {
		if (!cp_mem_write(m, x, p, hw_addr64_at(d + CP_EVENT_WRITE_ADDR_DW), &d[CP_EVENT_WRITE_VALUE_DW], 4))
			return CP_RESULT_FAULT;
	}
	if (d[0] & CP_EVENT_WRITE_0_IRQ)
		cp->irqs++;
	if (CP_EVENT_WRITE_0_EVENT(d[0]) == BLIT)
		return cp_exec_gmem_blit(cp, m, x, p, cost);
	return CP_RESULT_DONE;
}

enum cp_result cp_exec_reg_to_mem(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				  const struct pkt *p, uint32_t *cost)
{
	uint32_t d[CP_REG_TO_MEM_LEN];
	if (p->count < CP_REG_TO_MEM_LEN)
		return cp_opcode_fault(x, p, "CP_REG_TO_MEM shorter than 3 dwords");
	if (!cp_payload(m, x, p, 0, CP_REG_TO_MEM_LEN, d))
		return CP_RESULT_FAULT;
	uint32_t reg = CP_REG_TO_MEM_0_REG(d[0]);
	uint32_t cnt = CP_REG_TO_MEM_0_GET_CNT(d[0]);
	bool is_64b = d[0] & CP_REG_TO_MEM_0_64B;
	bool accumulate = d[0] & CP_REG_TO_MEM_0_ACCUMULATE;
	uint64_t dst = hw_addr64_at(d + CP_REG_TO_MEM_DEST_DW);
	/* One snapshot of the always-on counter so lo and hi read in one packet agree. */
	uint64_t aon = cp_always_on_ticks();
	uint32_t vals[CP_REG_TO_MEM_0_CNT_MASK];
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
		uint32_t old[CP_REG_TO_MEM_0_CNT_MASK];
		if (!cp_mem_read(m, x, p, dst, old, 4ull * cnt))
			return CP_RESULT_FAULT;
		uint32_t i = 0;
		if (is_64b) {
			for (; i + 1 < cnt; i += 2) {
				uint64_t sum = hw_addr64(old[i], old[i + 1]) + hw_addr64(vals[i], vals[i + 1]);
				hw_addr64_put(vals + i, sum);
			}
		}
		for (; i < cnt; i++)
			vals[i] += old[i];
	}
	if (cnt && !cp_mem_write(m, x, p, dst, vals, 4ull * cnt))
		return CP_RESULT_FAULT;
	*cost += cnt;
	return CP_RESULT_DONE;
}

enum cp_result cp_exec_mem_to_reg(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				  const struct pkt *p, uint32_t *cost)
{
	uint32_t d[CP_MEM_TO_REG_LEN];
	if (p->count < CP_MEM_TO_REG_LEN)
		return cp_opcode_fault(x, p, "CP_MEM_TO_REG shorter than 3 dwords");
	if (!cp_payload(m, x, p, 0, CP_MEM_TO_REG_LEN, d))
		return CP_RESULT_FAULT;
	uint32_t reg = CP_MEM_TO_REG_0_REG(d[0]);
	uint32_t cnt = CP_MEM_TO_REG_0_GET_CNT(d[0]);
	uint32_t vals[CP_MEM_TO_REG_0_CNT_MASK];
	if (cnt && !cp_mem_read(m, x, p, hw_addr64_at(d + CP_MEM_TO_REG_SRC_DW), vals, 4ull * cnt))
		return CP_RESULT_FAULT;
	for (uint32_t i = 0; i < cnt; i++)
		cp_reg_write(cp, reg + i, vals[i]);
	*cost += cnt;
	return CP_RESULT_DONE;
}

/* Copies in chunks, remembering progress in the frame so a huge copy spans slices. */
enum cp_result cp_exec_memcpy(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p, uint32_t budget,
			      uint32_t *cost)
{
	uint32_t d[CP_MEMCPY_LEN];
	if (p->count < CP_MEMCPY_LEN)
		return cp_opcode_fault(x, p, "CP_MEMCPY shorter than 5 dwords");
	if (!cp_payload(m, x, p, 0, CP_MEMCPY_LEN, d))
		return CP_RESULT_FAULT;
	uint64_t total = d[CP_MEMCPY_DWORDS_DW];
	uint64_t src = hw_addr64_at(d + CP_MEMCPY_SRC_DW), dst = hw_addr64_at(d + CP_MEMCPY_DST_DW);
	uint32_t chunk[1024];
	uint64_t *done = &p->frame->progress;
	while (*done < total) {
		if (*cost >= budget)
			return CP_RESULT_BUDGET;
		uint64_t n = total - *done;
		if (n > 1024)
			n = 1024;
		uint64_t off = 4 * *done;
		if (!cp_mem_read(m, x, p, src + off, chunk, 4 * n) || !cp_mem_write(m, x, p, dst + off, chunk, 4 * n))
			return CP_RESULT_FAULT;
		*done += n;
		*cost += (uint32_t)n;
	}
	return CP_RESULT_DONE;
}

/* dst = sum of the sources, each negated if its NEG bit says so. adreno_pm4.xml names NEG bits
 * for three sources (A, B, C); further sources are added as they are. */
enum cp_result cp_exec_mem_to_mem(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	uint32_t d[CP_MEM_TO_MEM_LEN];
	/* At least one source. */
	if (p->count < CP_MEM_TO_MEM_SRC_DW + 2 || (p->count - CP_MEM_TO_MEM_SRC_DW) % 2)
		return cp_opcode_fault(x, p, "CP_MEM_TO_MEM needs a destination and whole source addresses");
	if (!cp_payload(m, x, p, 0, CP_MEM_TO_MEM_LEN, d))
		return CP_RESULT_FAULT;
	bool dbl = d[0] & CP_MEM_TO_MEM_0_DOUBLE;
	uint32_t nsrc = (p->count - CP_MEM_TO_MEM_SRC_DW) / 2;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < nsrc; i++) {
		uint32_t a[2];
		if (!cp_payload(m, x, p, CP_MEM_TO_MEM_SRC_DW + 2 * i, 2, a))
			return CP_RESULT_FAULT;
		uint64_t v = 0;
		if (!cp_mem_read(m, x, p, hw_addr64_at(a), &v, dbl ? 8 : 4))
			return CP_RESULT_FAULT;
		if (i < 3 && (d[0] & (CP_MEM_TO_MEM_0_NEG_A << i)))
			v = 0 - v;
		sum += v;
	}
	if (!dbl)
		sum = (uint32_t)sum;
	if (!cp_mem_write(m, x, p, hw_addr64_at(d + CP_MEM_TO_MEM_DST_DW), &sum, dbl ? 8 : 4))
		return CP_RESULT_FAULT;
	return CP_RESULT_DONE;
}

static bool compare(uint32_t function, bool is_signed, uint32_t v, uint32_t ref)
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

/* The poll of CP_WAIT_REG_MEM and CP_COND_WRITE5 (the same dw0..dw4 layout). */
static enum cp_result poll_compare(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				   const struct pkt *p, const uint32_t *d, bool *ok)
{
	uint32_t function = CP_WAIT_REG_MEM_0_FUNCTION(d[0]);
	if (function > WRITE_GT)
		return cp_opcode_fault(x, p, "reserved compare function");
	uint32_t value;
	if (CP_WAIT_REG_MEM_0_GET_POLL(d[0]) == POLL_MEMORY) {
		if (!cp_mem_poll32(m, x, p, hw_addr64_at(d + CP_WAIT_REG_MEM_POLL_ADDR_DW), &value))
			return CP_RESULT_FAULT;
	} else {
		/* SCRATCH / ON_CHIP sources are treated as register polls. */
		value = cp_reg_read(cp, d[CP_WAIT_REG_MEM_POLL_ADDR_DW] & PM4_PAYLOAD_REG_MASK);
	}
	*ok = compare(function, d[0] & CP_WAIT_REG_MEM_0_SIGNED, value & d[CP_WAIT_REG_MEM_MASK_DW],
		      d[CP_WAIT_REG_MEM_REF_DW]);
	return CP_RESULT_DONE;
}

enum cp_result cp_exec_wait_reg_mem(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				    const struct pkt *p)
{
	uint32_t d[CP_WAIT_REG_MEM_LEN];
	if (p->count < CP_WAIT_REG_MEM_LEN)
		return cp_opcode_fault(x, p, "CP_WAIT_REG_MEM shorter than 5 dwords");
	if (!cp_payload(m, x, p, 0, CP_WAIT_REG_MEM_LEN, d))
		return CP_RESULT_FAULT;
	bool ok = false;
	enum cp_result r = poll_compare(cp, m, x, p, d, &ok);
	if (r != CP_RESULT_DONE)
		return r;
	return ok ? CP_RESULT_DONE : CP_RESULT_WAIT;
}

enum cp_result cp_exec_wait_mem_gte(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	uint32_t d[CP_WAIT_MEM_GTE_LEN];
	if (p->count < CP_WAIT_MEM_GTE_LEN)
		return cp_opcode_fault(x, p, "CP_WAIT_MEM_GTE shorter than 4 dwords");
	if (!cp_payload(m, x, p, 0, CP_WAIT_MEM_GTE_LEN, d))
		return CP_RESULT_FAULT;
	uint32_t value;
	if (!cp_mem_poll32(m, x, p, hw_addr64_at(d + CP_WAIT_MEM_GTE_POLL_ADDR_DW), &value))
		return CP_RESULT_FAULT;
	return (int32_t)value >= (int32_t)d[CP_WAIT_MEM_GTE_REF_DW] ? CP_RESULT_DONE : CP_RESULT_WAIT;
}

static uint32_t rotl32(uint32_t v, uint32_t r)
{
	r &= 31u;
	return r ? (v << r) | (v >> (32u - r)) : v;
}

enum cp_result cp_exec_reg_rmw(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
			       const struct pkt *p)
{
	uint32_t d[CP_REG_RMW_LEN];
	if (p->count < CP_REG_RMW_LEN)
		return cp_opcode_fault(x, p, "CP_REG_RMW shorter than 3 dwords");
	if (!cp_payload(m, x, p, 0, CP_REG_RMW_LEN, d))
		return CP_RESULT_FAULT;
	uint32_t dst = CP_REG_RMW_0_DST_REG(d[0]), s0 = d[CP_REG_RMW_SRC0_DW], s1 = d[CP_REG_RMW_SRC1_DW];
	uint32_t src0 = d[0] & CP_REG_RMW_0_SRC0_IS_REG ? cp_reg_read(cp, s0 & PM4_PAYLOAD_REG_MASK) : s0;
	uint32_t src1 = d[0] & CP_REG_RMW_0_SRC1_IS_REG ? cp_reg_read(cp, s1 & PM4_PAYLOAD_REG_MASK) : s1;
	uint32_t v = rotl32(cp_reg_read(cp, dst) & src0, CP_REG_RMW_0_GET_ROTATE(d[0]));
	v = d[0] & CP_REG_RMW_0_SRC1_ADD ? v + src1 : v | src1;
	cp_reg_write(cp, dst, v);
	return CP_RESULT_DONE;
}

enum cp_result cp_exec_reg_test(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				const struct pkt *p)
{
	uint32_t d[CP_REG_TEST_PRED_UPDATE_LEN];
	if (p->count < CP_DW0_LEN)
		return cp_opcode_fault(x, p, "CP_REG_TEST without a payload");
	if (!cp_payload(m, x, p, 0, CP_DW0_LEN, d))
		return CP_RESULT_FAULT;
	if (d[0] & CP_REG_TEST_0_PRED_UPDATE) {
		if (p->count < CP_REG_TEST_PRED_UPDATE_LEN)
			return cp_opcode_fault(x, p, "CP_REG_TEST PRED_UPDATE without mask and value");
		if (!cp_payload(m, x, p, CP_DW0_LEN, CP_REG_TEST_PRED_UPDATE_LEN - CP_DW0_LEN, d + CP_DW0_LEN))
			return CP_RESULT_FAULT;
		uint32_t mask = d[CP_REG_TEST_PRED_MASK_DW];
		x->predicate = (x->predicate & ~mask) | (d[CP_REG_TEST_PRED_VAL_DW] & mask);
		return CP_RESULT_DONE;
	}
	uint32_t bit = CP_REG_TEST_0_GET_BIT(d[0]), pred_bit = CP_REG_TEST_0_GET_PRED_BIT(d[0]);
	uint32_t v = (cp_reg_read(cp, CP_REG_TEST_0_REG(d[0])) >> bit) & 1u;
	x->predicate = (x->predicate & ~(1u << pred_bit)) | (v << pred_bit);
	return CP_RESULT_DONE;
}

/* Skips the next n dwords of the packet's IB when a test failed. */
static enum cp_result skip_dwords(struct cp_device *cp, struct cp_exec *x, const struct pkt *p, uint32_t n)
{
	struct cp_frame *f = p->frame;
	uint64_t after = (uint64_t)f->pos + 1 + p->count;
	if (n > f->size - after)
		return cp_opcode_fault(x, p, "conditional execution skips past the end of its IB");
	f->pos = (uint32_t)(after + n);
	f->started = false;
	cp->cond_skips++;
	return CP_RESULT_MOVED;
}

/* CP_COND_REG_EXEC, CP_COND_EXEC and CP_COND_WRITE5. */
enum cp_result cp_exec_cond_reg_exec(struct cp_device *cp, const struct cp_mem *m, struct cp_exec *x,
				     const struct pkt *p)
{
	uint32_t d[CP_COND_WRITE5_LEN]; /* the longest of the three */
	bool pass = false;
	uint32_t dwords;
	if (p->opcode == CP_COND_WRITE5) {
		if (p->count < CP_COND_WRITE5_LEN)
			return cp_opcode_fault(x, p, "CP_COND_WRITE5 shorter than 8 dwords");
		if (!cp_payload(m, x, p, 0, CP_COND_WRITE5_LEN, d))
			return CP_RESULT_FAULT;
		enum cp_result r = poll_compare(cp, m, x, p, d, &pass);
		if (r != CP_RESULT_DONE)
			return r;
		/* Only the memory form is modeled: a register write target is not documented. */
		if (pass && (d[0] & CP_WAIT_REG_MEM_0_WRITE_MEMORY) &&
		    !cp_mem_write(m, x, p, hw_addr64_at(d + CP_COND_WRITE5_WRITE_ADDR_DW), &d[CP_COND_WRITE5_WRITE_DATA_DW], 4))
			return CP_RESULT_FAULT;
		return CP_RESULT_DONE;
	}
	if (p->opcode == CP_COND_EXEC) {
		/* Executes the next DWORDS if *BOOL_ADDR != 0 and ACTIVE_TIMESTAMP is not behind
		 * *TIMESTAMP_ADDR: (ACTIVE_TIMESTAMP - *TIMESTAMP_ADDR) < 0x80000000. */
		if (p->count < CP_COND_EXEC_LEN)
			return cp_opcode_fault(x, p, "CP_COND_EXEC shorter than 6 dwords");
		if (!cp_payload(m, x, p, 0, CP_COND_EXEC_LEN, d))
			return CP_RESULT_FAULT;
		uint32_t b, ts;
		if (!cp_mem_poll32(m, x, p, hw_addr64_at(d + CP_COND_EXEC_BOOL_ADDR_DW), &b) ||
		    !cp_mem_poll32(m, x, p, hw_addr64_at(d + CP_COND_EXEC_TIMESTAMP_ADDR_DW), &ts))
			return CP_RESULT_FAULT;
		pass = b != 0 && d[CP_COND_EXEC_REF_DW] - ts < 0x80000000u;
		dwords = d[CP_COND_EXEC_DWORDS_DW];
	} else {
		if (p->count < CP_COND_REG_EXEC_LEN)
			return cp_opcode_fault(x, p, "CP_COND_REG_EXEC shorter than 2 dwords");
		if (!cp_payload(m, x, p, 0, CP_COND_REG_EXEC_LEN, d))
			return CP_RESULT_FAULT;
		switch (CP_COND_REG_EXEC_0_GET_MODE(d[0])) {
		case PRED_TEST:
			pass = (x->predicate >> CP_COND_REG_EXEC_0_GET_PRED_BIT(d[0])) & 1u;
			dwords = d[CP_COND_REG_EXEC_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK;
			break;
		case REG_COMPARE:
			if (p->count < CP_COND_REG_EXEC_COMPARE_LEN)
				return cp_opcode_fault(x, p, "CP_COND_REG_EXEC REG_COMPARE shorter than 3 dwords");
			if (!cp_payload(m, x, p, CP_COND_REG_EXEC_LEN, CP_COND_REG_EXEC_COMPARE_LEN - CP_COND_REG_EXEC_LEN,
					d + CP_COND_REG_EXEC_LEN))
				return CP_RESULT_FAULT;
			pass = cp_reg_read(cp, CP_COND_REG_EXEC_0_REG0(d[0])) ==
			       cp_reg_read(cp, d[CP_COND_REG_EXEC_REG1_DW] & PM4_PAYLOAD_REG_MASK);
			dwords = d[CP_COND_REG_EXEC_COMPARE_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK;
			break;
		case RENDER_MODE:
			pass = CP_COND_REG_EXEC_0_GET_RENDER_MODES(d[0]) & x->render_mode;
			dwords = d[CP_COND_REG_EXEC_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK;
			break;
		default:
			return cp_opcode_fault(x, p, "CP_COND_REG_EXEC with a mode a6xx does not have");
		}
	}
	return pass ? CP_RESULT_DONE : skip_dwords(cp, x, p, dwords);
}

enum cp_result cp_exec_skip_ib2_enable(const struct cp_mem *m, struct cp_exec *x, const struct pkt *p)
{
	uint32_t v;
	if (p->count < CP_DW0_LEN)
		return cp_opcode_fault(x, p, "CP_SKIP_IB2_ENABLE without a payload");
	if (!cp_payload(m, x, p, 0, CP_DW0_LEN, &v))
		return CP_RESULT_FAULT;
	if (p->opcode == CP_SKIP_IB2_ENABLE_GLOBAL)
		x->skip_ib2_global = v;
	else
		x->skip_ib2_local = v;
	return CP_RESULT_DONE;
}
