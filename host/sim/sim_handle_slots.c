/* Growing the simulators' per-open handle tables (see sim_handle_slots.h). */
#include "sim_handle_slots.h"

#include <stdlib.h>
#include <string.h>

void *sim_handle_slots_grow(void *slots, uint32_t *nr, size_t slot_size)
{
	uint32_t n = *nr ? *nr * 2 : 64;
	if (n > (1u << 24))
		return NULL;
	char *grown = realloc(slots, (size_t)n * slot_size);
	if (!grown)
		return NULL;
	memset(grown + (size_t)*nr * slot_size, 0, (size_t)(n - *nr) * slot_size);
	*nr = n;
	return grown;
}
