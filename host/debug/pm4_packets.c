/* Payload decoders for the type-7 packets ferry knows: field names and values, addresses with
 * their BO, nested IBs / draw-state groups handed back to the walker. A payload shorter than its
 * packet needs is shown as hex with a note; dwords past the known fields are shown as hex too. */
#include <inttypes.h>
#include <stdio.h>

#include "ferry/hw/a6xx_regs.h"
#include "ferry/hw/adreno_pm4.h"
#include "ferry/hw/adreno_pm4_payload.h"
#include "pm4_decode_priv.h"

static bool need(struct pm4_dec *d, const struct pm4_pkt *k, uint32_t min)
{
	if (k->count >= min)
		return true;
	pm4_line(d, "!! short payload: %u dwords, this packet needs at least %u", k->count, min);
	pm4_hexdump(d, k->p, 0, k->count);
	return false;
}

static void rest_as_hex(struct pm4_dec *d, const struct pm4_pkt *k, uint32_t decoded)
{
	if (k->count > decoded) {
		pm4_line(d, "extra dwords:");
		pm4_hexdump(d, k->p, decoded, k->count - decoded);
	}
}

static void reg_field(struct pm4_dec *d, const char *label, uint32_t reg)
{
	char nb[48];
	const char *name = a6xx_reg_name(reg, nb, sizeof(nb));
	if (name)
		pm4_line(d, "%s: %s (0x%04x)", label, name, reg);
	else
		pm4_line(d, "%s: 0x%04x", label, reg);
}

static const char *wait_function_name(uint32_t f)
{
	static const char *const names[] = {
		[WRITE_ALWAYS] = "ALWAYS", [WRITE_LT] = "LT", [WRITE_LE] = "LE", [WRITE_EQ] = "EQ",
		[WRITE_NE] = "NE",         [WRITE_GE] = "GE", [WRITE_GT] = "GT",
	};
	return f < sizeof(names) / sizeof(names[0]) ? names[f] : "reserved";
}

/* CP_NOP: Mesa's markers and debug strings as text, zero filler summarised, anything else hex. */
static void decode_nop(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (k->count == 0)
		return;
	uint32_t from = 0;
	const char *marker = NULL;
	if (k->p[0] == CP_NOP_MESG)
		marker = "MESG";
	else if (k->p[0] == CP_NOP_BEGN)
		marker = "BEGN";
	else if (k->p[0] == CP_NOP_END)
		marker = "END";
	if (marker)
		from = 1;
	bool zero = true, text = true;
	for (uint32_t i = from; i < k->count; i++) {
		uint32_t v = k->p[i];
		if (v)
			zero = false;
		for (int b = 0; b < 4; b++) {
			unsigned c = (v >> (8 * b)) & 0xffu;
			if (c && (c < 0x20 || c > 0x7e))
				text = false;
		}
	}
	if (marker)
		pm4_line(d, "marker: %s", marker);
	if (from == k->count)
		return;
	if (zero) {
		pm4_line(d, "%u dwords of zero padding", k->count - from);
		return;
	}
	if (!text) {
		pm4_hexdump(d, k->p, from, k->count - from);
		return;
	}
	/* Printable bytes in little-endian order, up to the first NUL; bounded by the payload. */
	char s[257];
	size_t len = 0;
	bool cut = false;
	for (uint32_t i = from; i < k->count && !cut; i++) {
		for (int b = 0; b < 4; b++) {
			char c = (char)((k->p[i] >> (8 * b)) & 0xffu);
			if (!c || len + 1 >= sizeof(s)) {
				cut = true;
				break;
			}
			s[len++] = c;
		}
	}
	s[len] = '\0';
	pm4_line(d, "text: \"%s\"", s);
}

static void decode_ib(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_INDIRECT_BUFFER_LEN))
		return;
	uint64_t base = hw_addr64_at(k->p + CP_INDIRECT_BUFFER_BASE_DW);
	uint32_t size = k->p[CP_INDIRECT_BUFFER_SIZE_DW] & CP_INDIRECT_BUFFER_2_SIZE_MASK;
	pm4_line_addr(d, "ib", base);
	pm4_line(d, "size: %u dwords", size);
	rest_as_hex(d, k, CP_INDIRECT_BUFFER_LEN);
	char kind[32];
	/* A chain jumps at the same level; IB and IB_PFD go one level down. */
	unsigned level = k->opcode == CP_INDIRECT_BUFFER_CHAIN ? k->level : k->level + 1;
	snprintf(kind, sizeof(kind), "%sIB%u", k->opcode == CP_INDIRECT_BUFFER_CHAIN ? "chained " : "", level);
	pm4_follow(d, kind, base, size, level);
}

static void decode_mem_write(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_MEM_WRITE_LEN))
		return;
	pm4_line_addr(d, "addr", hw_addr64_at(k->p + CP_MEM_WRITE_ADDR_DW));
	for (uint32_t i = CP_MEM_WRITE_DATA_DW; i < k->count; i++)
		pm4_line(d, "data[%u]: 0x%08x", i - CP_MEM_WRITE_DATA_DW, k->p[i]);
}

static void decode_event_write(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_EVENT_WRITE_LEN))
		return;
	uint32_t ev = CP_EVENT_WRITE_0_EVENT(k->p[0]);
	const char *name = pm4_decode_event_name(ev);
	pm4_line(d, "event: %s (0x%02x)%s%s", name ? name : "UNKNOWN", ev,
		 k->p[0] & CP_EVENT_WRITE_0_TIMESTAMP ? " TIMESTAMP" : "",
		 k->p[0] & CP_EVENT_WRITE_0_IRQ ? " IRQ" : "");
	uint32_t decoded = CP_EVENT_WRITE_LEN;
	if (k->count >= CP_EVENT_WRITE_ADDR_LEN) {
		pm4_line_addr(d, "addr", hw_addr64_at(k->p + CP_EVENT_WRITE_ADDR_DW));
		decoded = CP_EVENT_WRITE_ADDR_LEN;
	}
	if (k->count >= CP_EVENT_WRITE_VALUE_LEN) {
		uint32_t v = k->p[CP_EVENT_WRITE_VALUE_DW];
		pm4_line(d, "value: 0x%08x (%u)", v, v);
		decoded = CP_EVENT_WRITE_VALUE_LEN;
	}
	rest_as_hex(d, k, decoded);
}

static void decode_reg_to_mem(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_REG_TO_MEM_LEN))
		return;
	uint32_t d0 = k->p[0];
	reg_field(d, "reg", CP_REG_TO_MEM_0_REG(d0));
	pm4_line(d, "cnt: %u%s%s", CP_REG_TO_MEM_0_GET_CNT(d0), d0 & CP_REG_TO_MEM_0_64B ? " 64B" : "",
		 d0 & CP_REG_TO_MEM_0_ACCUMULATE ? " ACCUMULATE" : "");
	pm4_line_addr(d, "dest", hw_addr64_at(k->p + CP_REG_TO_MEM_DEST_DW));
	rest_as_hex(d, k, CP_REG_TO_MEM_LEN);
}

static void decode_mem_to_reg(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_MEM_TO_REG_LEN))
		return;
	uint32_t d0 = k->p[0];
	reg_field(d, "reg", CP_MEM_TO_REG_0_REG(d0));
	pm4_line(d, "cnt: %u%s", CP_MEM_TO_REG_0_GET_CNT(d0), d0 & CP_MEM_TO_REG_0_SHIFT_BY_2 ? " SHIFT_BY_2" : "");
	pm4_line_addr(d, "src", hw_addr64_at(k->p + CP_MEM_TO_REG_SRC_DW));
	rest_as_hex(d, k, CP_MEM_TO_REG_LEN);
}

static void decode_memcpy(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_MEMCPY_LEN))
		return;
	pm4_line(d, "dwords: %u", k->p[CP_MEMCPY_DWORDS_DW]);
	pm4_line_addr(d, "src", hw_addr64_at(k->p + CP_MEMCPY_SRC_DW));
	pm4_line_addr(d, "dst", hw_addr64_at(k->p + CP_MEMCPY_DST_DW));
	rest_as_hex(d, k, CP_MEMCPY_LEN);
}

static void decode_wait_reg_mem(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_WAIT_REG_MEM_LEN))
		return;
	static const char *const poll_names[] = {
		[POLL_REGISTER] = "REGISTER", [POLL_MEMORY] = "MEMORY", [POLL_SCRATCH] = "SCRATCH",
		[POLL_ON_CHIP] = "ON_CHIP",
	};
	uint32_t d0 = k->p[0];
	uint32_t poll = CP_WAIT_REG_MEM_0_GET_POLL(d0);
	pm4_line(d, "function: %s%s poll: %s%s", wait_function_name(CP_WAIT_REG_MEM_0_FUNCTION(d0)),
		 d0 & CP_WAIT_REG_MEM_0_SIGNED ? " (signed)" : "", poll_names[poll],
		 d0 & CP_WAIT_REG_MEM_0_WRITE_MEMORY ? " WRITE_MEMORY" : "");
	const uint32_t *poll_addr = k->p + CP_WAIT_REG_MEM_POLL_ADDR_DW;
	if (poll == POLL_MEMORY)
		pm4_line_addr(d, "poll_addr", hw_addr64_at(poll_addr));
	else if (poll == POLL_REGISTER)
		reg_field(d, "poll_reg", poll_addr[0] & PM4_PAYLOAD_REG_MASK);
	else
		pm4_line(d, "poll_addr: 0x%08x 0x%08x", poll_addr[0], poll_addr[1]);
	pm4_line(d, "ref: 0x%08x mask: 0x%08x", k->p[CP_WAIT_REG_MEM_REF_DW], k->p[CP_WAIT_REG_MEM_MASK_DW]);
	bool delay = k->count >= CP_WAIT_REG_MEM_DELAY_LEN;
	if (delay)
		pm4_line(d, "delay_loop_cycles: %u", k->p[CP_WAIT_REG_MEM_DELAY_DW]);
	rest_as_hex(d, k, delay ? CP_WAIT_REG_MEM_DELAY_LEN : CP_WAIT_REG_MEM_LEN);
}

static void decode_wait_mem_gte(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_WAIT_MEM_GTE_LEN))
		return;
	pm4_line_addr(d, "poll_addr", hw_addr64_at(k->p + CP_WAIT_MEM_GTE_POLL_ADDR_DW));
	pm4_line(d, "ref: 0x%08x (wait until *poll_addr >= ref, signed)", k->p[CP_WAIT_MEM_GTE_REF_DW]);
	rest_as_hex(d, k, CP_WAIT_MEM_GTE_LEN);
}

static void decode_set_draw_state(struct pm4_dec *d, const struct pm4_pkt *k)
{
	uint32_t groups = k->count / CP_SET_DRAW_STATE_GROUP_LEN;
	for (uint32_t g = 0; g < groups; g++) {
		const uint32_t *e = k->p + CP_SET_DRAW_STATE_GROUP_LEN * g;
		uint32_t d0 = e[CP_SET_DRAW_STATE_GROUP_HDR_DW];
		uint32_t id = CP_SET_DRAW_STATE_0_GET_GROUP_ID(d0), count = CP_SET_DRAW_STATE_0_GET_COUNT(d0);
		uint64_t addr = hw_addr64_at(e + CP_SET_DRAW_STATE_GROUP_ADDR_DW);
		char a[160];
		pm4_decode_format_addr(a, sizeof(a), d->opts->bos, d->opts->nr_bos, addr);
		pm4_line(d, "group %u: count %u%s%s%s%s%s%s addr %s", id, count,
			 d0 & CP_SET_DRAW_STATE_0_DIRTY ? " DIRTY" : "", d0 & CP_SET_DRAW_STATE_0_DISABLE ? " DISABLE" : "",
			 d0 & CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS ? " DISABLE_ALL_GROUPS" : "",
			 d0 & CP_SET_DRAW_STATE_0_BINNING ? " BINNING" : "", d0 & CP_SET_DRAW_STATE_0_GMEM ? " GMEM" : "",
			 d0 & CP_SET_DRAW_STATE_0_SYSMEM ? " SYSMEM" : "", a);
		if (count && !(d0 & (CP_SET_DRAW_STATE_0_DISABLE | CP_SET_DRAW_STATE_0_DISABLE_ALL_GROUPS))) {
			char kind[40];
			snprintf(kind, sizeof(kind), "draw state group %u", id);
			pm4_follow(d, kind, addr, count, k->level + 1);
		}
	}
	if (k->count % CP_SET_DRAW_STATE_GROUP_LEN)
		pm4_line(d, "!! %u trailing dwords do not make a whole group", k->count % CP_SET_DRAW_STATE_GROUP_LEN);
	rest_as_hex(d, k, groups * CP_SET_DRAW_STATE_GROUP_LEN);
}

static void decode_draw_indx_offset(struct pm4_dec *d, const struct pm4_pkt *k)
{
	static const char *const src_names[4] = {
		[DI_SRC_SEL_DMA] = "DMA", [DI_SRC_SEL_IMMEDIATE] = "IMMEDIATE", [DI_SRC_SEL_AUTO_INDEX] = "AUTO_INDEX",
		[DI_SRC_SEL_AUTO_XFB] = "AUTO_XFB",
	};
	/* The a4xx+ encoding; the fourth value is reserved. */
	static const char *const size_names[4] = {
		[INDEX4_SIZE_8_BIT] = "8_BIT", [INDEX4_SIZE_16_BIT] = "16_BIT", [INDEX4_SIZE_32_BIT] = "32_BIT",
		[3] = "INVALID",
	};
	if (!need(d, k, CP_DRAW_INDX_OFFSET_LEN))
		return;
	uint32_t i0 = k->p[CP_DRAW_INITIATOR_DW];
	pm4_line(d, "initiator: prim_type %u source_select %s vis_cull %u index_size %s patch_type %u%s%s",
		 CP_DRAW_INITIATOR_GET_PRIM_TYPE(i0), src_names[CP_DRAW_INITIATOR_GET_SOURCE_SELECT(i0)],
		 CP_DRAW_INITIATOR_GET_VIS_CULL(i0), size_names[CP_DRAW_INITIATOR_GET_INDEX_SIZE(i0)],
		 CP_DRAW_INITIATOR_GET_PATCH_TYPE(i0), i0 & CP_DRAW_INITIATOR_GS_ENABLE ? " GS_ENABLE" : "",
		 i0 & CP_DRAW_INITIATOR_TESS_ENABLE ? " TESS_ENABLE" : "");
	pm4_line(d, "num_instances: %u num_indices: %u", k->p[CP_DRAW_INDX_OFFSET_NUM_INSTANCES_DW],
		 k->p[CP_DRAW_INDX_OFFSET_NUM_INDICES_DW]);
	/* The optional fields, each shown when the payload reaches past it. */
	uint32_t decoded = CP_DRAW_INDX_OFFSET_LEN;
	if (k->count > CP_DRAW_INDX_OFFSET_FIRST_INDX_DW) {
		pm4_line(d, "first_indx: %u", k->p[CP_DRAW_INDX_OFFSET_FIRST_INDX_DW]);
		decoded = CP_DRAW_INDX_OFFSET_FIRST_INDX_DW + 1;
	}
	if (k->count > CP_DRAW_INDX_OFFSET_INDX_BASE_DW + 1) {
		pm4_line_addr(d, "indx_base", hw_addr64_at(k->p + CP_DRAW_INDX_OFFSET_INDX_BASE_DW));
		decoded = CP_DRAW_INDX_OFFSET_INDX_BASE_DW + 2;
	}
	if (k->count > CP_DRAW_INDX_OFFSET_MAX_INDICES_DW) {
		pm4_line(d, "max_indices: %u", k->p[CP_DRAW_INDX_OFFSET_MAX_INDICES_DW]);
		decoded = CP_DRAW_INDX_OFFSET_MAX_INDICES_DW + 1;
	}
	rest_as_hex(d, k, decoded);
}

static void decode_set_marker(struct pm4_dec *d, const struct pm4_pkt *k)
{
#define NAME(v) [v] = #v
	static const char *const modes[CP_SET_MARKER_0_MODE_MASK + 1] = {
		NAME(RM6_DIRECT_RENDER),    NAME(RM6_BIN_VISIBILITY),   NAME(RM6_BIN_DIRECT),
		NAME(RM6_BIN_RENDER_START), NAME(RM6_BIN_END_OF_DRAWS), NAME(RM6_BIN_RESOLVE),
		NAME(RM6_BIN_RENDER_END),   NAME(RM6_COMPUTE),          NAME(RM6_BLIT2DSCALE),
		NAME(RM6_IB1LIST_START),    NAME(RM6_IB1LIST_END),
	};
#undef NAME
	if (!need(d, k, CP_DW0_LEN))
		return;
	uint32_t d0 = k->p[0];
	if (d0 & CP_SET_MARKER_0_IFPC_MODE) {
		bool disable = CP_SET_MARKER_0_GET_IFPC(d0) == IFPC_DISABLE;
		pm4_line(d, "ifpc_mode: %s", disable ? "IFPC_DISABLE" : "IFPC_ENABLE");
	} else {
		uint32_t m = CP_SET_MARKER_0_GET_MODE(d0);
		pm4_line(d, "mode: %s (%u)%s", modes[m] ? modes[m] : "UNKNOWN", m,
			 d0 & CP_SET_MARKER_0_USES_GMEM ? " USES_GMEM" : "");
		if (m == RM6_IB1LIST_START || m == RM6_IB1LIST_END) {
			pm4_line(d, "!! privileged marker: only the kernel sets it");
			d->stats->privileged++;
		}
	}
	rest_as_hex(d, k, CP_DW0_LEN);
}

static void decode_reg_rmw(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_REG_RMW_LEN))
		return;
	uint32_t d0 = k->p[0], src0 = k->p[CP_REG_RMW_SRC0_DW], src1 = k->p[CP_REG_RMW_SRC1_DW];
	reg_field(d, "dst_reg", CP_REG_RMW_0_DST_REG(d0));
	if (d0 & CP_REG_RMW_0_SRC0_IS_REG)
		reg_field(d, "src0 (and-mask) reg", src0 & PM4_PAYLOAD_REG_MASK);
	else
		pm4_line(d, "src0 (and-mask): 0x%08x", src0);
	if (d0 & CP_REG_RMW_0_SRC1_IS_REG)
		reg_field(d, d0 & CP_REG_RMW_0_SRC1_ADD ? "src1 (add) reg" : "src1 (or) reg", src1 & PM4_PAYLOAD_REG_MASK);
	else
		pm4_line(d, "src1 (%s): 0x%08x", d0 & CP_REG_RMW_0_SRC1_ADD ? "add" : "or", src1);
	pm4_line(d, "rotate: %u", CP_REG_RMW_0_GET_ROTATE(d0));
	rest_as_hex(d, k, CP_REG_RMW_LEN);
}

static void decode_mem_to_mem(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_MEM_TO_MEM_LEN))
		return;
	uint32_t d0 = k->p[0];
	pm4_line(d, "flags:%s%s%s%s%s%s", d0 & CP_MEM_TO_MEM_0_NEG_A ? " NEG_A" : "",
		 d0 & CP_MEM_TO_MEM_0_NEG_B ? " NEG_B" : "", d0 & CP_MEM_TO_MEM_0_NEG_C ? " NEG_C" : "",
		 d0 & CP_MEM_TO_MEM_0_DOUBLE ? " DOUBLE" : "",
		 d0 & CP_MEM_TO_MEM_0_WAIT_FOR_MEM_WRITES ? " WAIT_FOR_MEM_WRITES" : "", d0 ? "" : " none");
	pm4_line_addr(d, "dst", hw_addr64_at(k->p + CP_MEM_TO_MEM_DST_DW));
	uint32_t i = CP_MEM_TO_MEM_SRC_DW, src = 0;
	for (; i + 1 < k->count; i += 2, src++) {
		char label[16];
		if (src < 3)
			snprintf(label, sizeof(label), "src_%c", 'a' + (int)src);
		else
			snprintf(label, sizeof(label), "src[%u]", src);
		pm4_line_addr(d, label, hw_addr64_at(k->p + i));
	}
	rest_as_hex(d, k, i);
}

static void decode_cond_reg_exec(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_COND_REG_EXEC_LEN))
		return;
	uint32_t d0 = k->p[0], mode = CP_COND_REG_EXEC_0_GET_MODE(d0), decoded = CP_COND_REG_EXEC_LEN, dwords;
	switch (mode) {
	case PRED_TEST:
		pm4_line(d, "mode: PRED_TEST pred_bit %u", CP_COND_REG_EXEC_0_GET_PRED_BIT(d0));
		dwords = k->p[CP_COND_REG_EXEC_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK;
		break;
	case RENDER_MODE:
		pm4_line(d, "mode: RENDER_MODE passes for:%s%s%s", d0 & CP_COND_REG_EXEC_0_BINNING ? " BINNING" : "",
			 d0 & CP_COND_REG_EXEC_0_GMEM ? " GMEM" : "", d0 & CP_COND_REG_EXEC_0_SYSMEM ? " SYSMEM" : "");
		dwords = k->p[CP_COND_REG_EXEC_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK;
		break;
	case REG_COMPARE:
		if (!need(d, k, CP_COND_REG_EXEC_COMPARE_LEN))
			return;
		reg_field(d, "mode: REG_COMPARE reg0", CP_COND_REG_EXEC_0_REG0(d0));
		reg_field(d, "reg1", k->p[CP_COND_REG_EXEC_REG1_DW] & PM4_PAYLOAD_REG_MASK);
		dwords = k->p[CP_COND_REG_EXEC_COMPARE_DWORDS_DW] & CP_COND_REG_EXEC_DWORDS_MASK;
		decoded = CP_COND_REG_EXEC_COMPARE_LEN;
		break;
	default: {
		pm4_line(d, "mode: %u (unknown on a6xx)", mode);
		bool compare = k->count >= CP_COND_REG_EXEC_COMPARE_LEN;
		dwords = k->p[compare ? CP_COND_REG_EXEC_COMPARE_DWORDS_DW : CP_COND_REG_EXEC_DWORDS_DW] &
			 CP_COND_REG_EXEC_DWORDS_MASK;
		decoded = compare ? CP_COND_REG_EXEC_COMPARE_LEN : CP_COND_REG_EXEC_LEN;
		break;
	}
	}
	pm4_line(d, "conditionally executes the next %u dwords", dwords);
	rest_as_hex(d, k, decoded);
}

static void decode_set_amble(struct pm4_dec *d, const struct pm4_pkt *k)
{
	static const char *const types[4] = {
		[PREAMBLE_AMBLE_TYPE] = "PREAMBLE", [BIN_PREAMBLE_AMBLE_TYPE] = "BIN_PREAMBLE",
		[POSTAMBLE_AMBLE_TYPE] = "POSTAMBLE", [KMD_AMBLE_TYPE] = "KMD",
	};
	if (!need(d, k, CP_SET_AMBLE_LEN))
		return;
	pm4_line_addr(d, "addr", hw_addr64_at(k->p + CP_SET_AMBLE_ADDR_DW));
	uint32_t size = k->p[CP_SET_AMBLE_SIZE_DW], type = CP_SET_AMBLE_2_GET_TYPE(size);
	pm4_line(d, "dwords: %u type: %s", CP_SET_AMBLE_2_DWORDS(size), types[type]);
	if (type == KMD_AMBLE_TYPE) {
		pm4_line(d, "!! privileged amble type: only the kernel's ringbuffer sets it");
		d->stats->privileged++;
	}
	rest_as_hex(d, k, CP_SET_AMBLE_LEN);
}

static void decode_smmu_table_update(struct pm4_dec *d, const struct pm4_pkt *k)
{
	if (!need(d, k, CP_SMMU_TABLE_UPDATE_LEN))
		return;
	const uint32_t *ttbr0 = k->p + CP_SMMU_TABLE_UPDATE_TTBR0_DW;
	pm4_line(d, "ttbr0: 0x%04x%08x asid: %u contextidr: 0x%08x contextbank: %u",
		 CP_SMMU_TABLE_UPDATE_1_TTBR0_HI(ttbr0[1]), ttbr0[0], CP_SMMU_TABLE_UPDATE_1_GET_ASID(ttbr0[1]),
		 k->p[CP_SMMU_TABLE_UPDATE_CONTEXTIDR_DW], k->p[CP_SMMU_TABLE_UPDATE_CONTEXTBANK_DW]);
	rest_as_hex(d, k, CP_SMMU_TABLE_UPDATE_LEN);
}

void pm4_decode_type7_payload(struct pm4_dec *d, const struct pm4_pkt *k)
{
	switch (k->opcode) {
	case CP_NOP: decode_nop(d, k); break;
	case CP_INDIRECT_BUFFER:
	case CP_INDIRECT_BUFFER_PFD:
	case CP_INDIRECT_BUFFER_CHAIN: decode_ib(d, k); break;
	case CP_MEM_WRITE: decode_mem_write(d, k); break;
	case CP_EVENT_WRITE: decode_event_write(d, k); break;
	case CP_REG_TO_MEM: decode_reg_to_mem(d, k); break;
	case CP_MEM_TO_REG: decode_mem_to_reg(d, k); break;
	case CP_MEMCPY: decode_memcpy(d, k); break;
	case CP_WAIT_REG_MEM: decode_wait_reg_mem(d, k); break;
	case CP_WAIT_MEM_GTE: decode_wait_mem_gte(d, k); break;
	case CP_SET_DRAW_STATE: decode_set_draw_state(d, k); break;
	case CP_DRAW_INDX_OFFSET: decode_draw_indx_offset(d, k); break;
	case CP_SET_MARKER: decode_set_marker(d, k); break;
	case CP_REG_RMW: decode_reg_rmw(d, k); break;
	case CP_MEM_TO_MEM: decode_mem_to_mem(d, k); break;
	case CP_COND_REG_EXEC: decode_cond_reg_exec(d, k); break;
	case CP_SET_AMBLE: decode_set_amble(d, k); break;
	case CP_SMMU_TABLE_UPDATE: decode_smmu_table_update(d, k); break;
	case CP_SET_PROTECTED_MODE:
		if (need(d, k, CP_DW0_LEN)) {
			pm4_line(d, "protected mode: %s", k->p[0] ? "on" : "off");
			rest_as_hex(d, k, CP_DW0_LEN);
		}
		break;
	default: pm4_hexdump(d, k->p, 0, k->count); break;
	}
}
