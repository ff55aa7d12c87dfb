/* Talking to ferryd's control socket (host/server/control.c, docs/debugging.md): one request
 * line per connection, the whole answer read until EOF. Used by `ferry status` and the tests. */
#ifndef FERRY_TOOLS_CONTROL_CLIENT_H
#define FERRY_TOOLS_CONTROL_CLIENT_H

#include <stddef.h>

/* Sends request (no newline) to the control socket at path and reads the answer, at most
 * 64 MiB, waiting up to timeout_ms in all. *answer is malloc'd and NUL-terminated: its first
 * line is "ok" or "error: ...". Returns 0, or a negative errno with a message on stderr. */
int control_request(const char *path, const char *request, int timeout_ms, char **answer);

/* The control socket of a ferryd URI ("unix:PATH" or a bare path): PATH + ".ctl". */
int control_path_of_uri(const char *uri, char *buf, size_t len);

/* The control socket a subcommand talks to: control when given, else that of server, else of
 * $FERRY_SOCKET, else of the default socket. Returns 0, or -1 with a message naming cmd
 * ("ferry status") on stderr. */
int control_path_resolve(const char *cmd, const char *control, const char *server, char *path, size_t len);

#endif
