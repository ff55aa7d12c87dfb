/* The per-open handle tables of both simulators (handle h lives in slot h - 1): growing one. */
#ifndef FERRY_SIM_HANDLE_SLOTS_H
#define FERRY_SIM_HANDLE_SLOTS_H

#include <stddef.h>
#include <stdint.h>

/* Doubles a table of *nr pointer slots of slot_size bytes (64 slots when empty), the new ones
 * NULL, and sets *nr. Returns the new table, or NULL with the table untouched when out of memory
 * or past 1 << 24 slots (a bound on handles per open far above any real workload). */
void *sim_handle_slots_grow(void *slots, uint32_t *nr, size_t slot_size);

#endif
