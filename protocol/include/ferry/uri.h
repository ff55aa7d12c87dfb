/* Where a ferryd is: the one parser of the address syntax every tool, libferry, the shim and
 * ferryd's --listen share ("unix:PATH" or an absolute path, "tcp:HOST:PORT", "virtio:[NODE]"). */
#ifndef FERRY_URI_H
#define FERRY_URI_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ferry_uri_kind {
	FERRY_URI_UNIX = 1,
	FERRY_URI_TCP = 2,
	FERRY_URI_VIRTIO = 3,
};

/* sun_path's size: a unix path must fit a struct sockaddr_un. */
#define FERRY_URI_PATH_MAX 108
#define FERRY_URI_HOST_MAX 256

struct ferry_uri {
	enum ferry_uri_kind kind;
	char path[FERRY_URI_PATH_MAX]; /* unix: the socket; virtio: the node ("" = find it) */
	char host[FERRY_URI_HOST_MAX]; /* tcp: a name or address, without IPv6 brackets */
	char port[8];                  /* tcp: decimal 0..65535 (0 only where a listener may pick) */
};

/* Parses uri into *out. tcp: HOST may be a name, an IPv4 address or a bracketed IPv6 address
 * ("tcp:[::1]:7120"); PORT is required. Returns 0, or -EINVAL with the reason in why. */
int ferry_uri_parse(const char *uri, struct ferry_uri *out, char *why, size_t why_len);

/* Whether uri names a network address (tcp:): no fd passing, no shared memory. */
bool ferry_uri_is_remote(const char *uri);

#ifdef __cplusplus
}
#endif

#endif
