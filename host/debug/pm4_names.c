/* Names of a6xx CP_EVENT_WRITE events for the decoder, keyed by the header's enum vgt_event_type
 * (opcode and register names live with their facts in protocol/). */
#include <stddef.h>

#include "ferry/hw/adreno_pm4.h"
#include "pm4_decode.h"

#define NAME(ev) [ev] = #ev
const char *pm4_decode_event_name(uint32_t event)
{
	/* EVENT is 8 bits wide; every a6xx event ferry names is below 0x40. */
	static const char *const names[0x40] = {
		NAME(CACHE_FLUSH_TS),
		NAME(CONTEXT_DONE),
		NAME(WT_DONE_TS),
		NAME(WRITE_PRIMITIVE_COUNTS),
		NAME(START_PRIMITIVE_CTRS),
		NAME(STOP_PRIMITIVE_CTRS),
		NAME(START_FRAGMENT_CTRS),
		NAME(STOP_FRAGMENT_CTRS),
		NAME(START_COMPUTE_CTRS),
		NAME(STOP_COMPUTE_CTRS),
		NAME(FLUSH_SO_0),
		NAME(FLUSH_SO_1),
		NAME(FLUSH_SO_2),
		NAME(FLUSH_SO_3),
		NAME(ZPASS_DONE),
		NAME(RB_DONE_TS),
		NAME(PC_CCU_INVALIDATE_DEPTH),
		NAME(PC_CCU_INVALIDATE_COLOR),
		NAME(PC_CCU_RESOLVE_TS),
		NAME(PC_CCU_FLUSH_DEPTH_TS),
		NAME(PC_CCU_FLUSH_COLOR_TS),
		NAME(BLIT),
		NAME(LRZ_CLEAR),
		NAME(LRZ_FLUSH),
		NAME(BLIT_OP_FILL_2D),
		NAME(BLIT_OP_COPY_2D),
		NAME(BLIT_OP_SCALE_2D),
		NAME(CONTEXT_DONE_2D),
		NAME(UNK_2C),
		NAME(UNK_2D),
		NAME(CACHE_INVALIDATE),
		NAME(LABEL),
	};
	return event < sizeof(names) / sizeof(names[0]) ? names[event] : NULL;
}
#undef NAME
