/* Rejection reports: the rule names and the one-line message naming packet, place and rule. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ferry/hw/adreno_pm4.h"
#include "pm4v_internal.h"

const char *pm4v_rule_text(enum pm4v_rule rule)
{
	switch (rule) {
	case PM4V_OK: return "ok";
	case PM4V_ERR_INPUT: return "invalid BO table";
	case PM4V_ERR_CMD: return "invalid cmd";
	case PM4V_ERR_RELOC: return "invalid reloc";
	case PM4V_ERR_BAD_TYPE: return "not a type-4 or type-7 header";
	case PM4V_ERR_PARITY: return "bad header parity";
	case PM4V_ERR_COUNT_OVERRUN: return "payload runs past the end of the stream";
	case PM4V_ERR_MALFORMED: return "malformed packet";
	case PM4V_ERR_PRIVILEGED: return "privileged packet";
	case PM4V_ERR_PROTECTED_REG: return "protected register";
	case PM4V_ERR_UNWRITTEN_REG: return "read of a register this submit did not write first";
	case PM4V_ERR_TARGET: return "command stream target outside the context's BOs";
	case PM4V_ERR_IB_SIZE: return "IB size above 0xFFFFF dwords";
	case PM4V_ERR_DEPTH: return "nesting too deep";
	case PM4V_ERR_ADDRESS: return "address outside the context's BOs";
	case PM4V_ERR_READONLY: return "write into a GPU read-only BO";
	case PM4V_ERR_COND_SKIP: return "conditional skip does not end on a packet boundary";
	case PM4V_ERR_LIMIT: return "submit exceeds validation limits";
	case PM4V_ERR_SHADOW: return "shadow allocation failed";
	case PM4V_ERR_NOMEM: return "out of memory";
	}
	return "unknown rule";
}

static void packet_name(char *buf, size_t len, uint32_t header)
{
	if (pm4_is_type7(header)) {
		const char *name = pm4_opcode_name(pm4_type7_opcode(header));
		if (name)
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "opcode 0x%02x", pm4_type7_opcode(header));
	} else if (pm4_is_type4(header)) {
		snprintf(buf, len, "PKT4 0x%05x", pm4_type4_reg(header));
	} else {
		snprintf(buf, len, "header 0x%08x", header);
	}
}

int pm4v_fail(struct pm4v_validator *v, const struct pm4v_where *w, enum pm4v_rule rule,
	      int bo_index, const char *detail, ...)
{
	struct pm4v_error *e = v->err;
	memset(e, 0, sizeof(*e));
	e->rule = rule;
	e->opcode = PM4V_NO_OPCODE;

	char what[96];
	size_t used;
	if (w) {
		const struct pm4v_stream *s = w->stream;
		e->header = w->header;
		if (pm4_is_type7(w->header)) {
			e->pkt_type = 7;
			e->opcode = pm4_type7_opcode(w->header);
		} else if (pm4_is_type4(w->header)) {
			e->pkt_type = 4;
		}
		e->bo_id = v->in->bos[s->bo].id;
		e->offset = s->bo_offset + (uint64_t)w->pos * 4u;
		e->level = s->level;
		e->draw_state = s->kind == PM4V_KIND_DRAW_STATE;
		packet_name(what, sizeof(what), w->header);
		used = (size_t)snprintf(e->msg, sizeof(e->msg), "%s at bo %u +0x%" PRIx64 " (IB%u%s): %s",
					what, e->bo_id, e->offset, e->level,
					e->draw_state ? " draw state" : "", pm4v_rule_text(rule));
	} else if (bo_index >= 0) {
		e->bo_id = v->in->bos[bo_index].id;
		used = (size_t)snprintf(e->msg, sizeof(e->msg), "bo %u: %s", e->bo_id,
					pm4v_rule_text(rule));
	} else {
		used = (size_t)snprintf(e->msg, sizeof(e->msg), "submit: %s", pm4v_rule_text(rule));
	}

	if (detail && used + 2 < sizeof(e->msg)) {
		e->msg[used++] = ':';
		e->msg[used++] = ' ';
		e->msg[used] = '\0';
		va_list ap;
		va_start(ap, detail);
		vsnprintf(e->msg + used, sizeof(e->msg) - used, detail, ap);
		va_end(ap);
	}
	return -1;
}
