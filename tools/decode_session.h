/* `ferry decode` of a .ferrycap session capture (tools/decode_session.c). */
#ifndef FERRY_TOOLS_DECODE_SESSION_H
#define FERRY_TOOLS_DECODE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Lists the records and decodes every submit to stdout. 0, or 1 with a message on stderr that
 * names the file and the offset of a truncated or corrupt record. */
int decode_session(const char *path, const uint8_t *data, size_t len, bool follow);

#endif
