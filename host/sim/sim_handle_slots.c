/* Growing the simulators' per-open handle tables (see sim_handle_slots.h). */
#include "sim_handle_slots.h"

#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"

void *sim_handle_slots_grow(void *slots, uint32_t *nr, size_t slot_size)
{
	if (*nr > (1u << 23)) /* the table stays within 1 << 24 slots */
		return NULL;
	if (ferry_array_grow_u32(&slots, nr, (size_t)*nr + 1, slot_size, 64))
		return NULL;
	return slots;
}
