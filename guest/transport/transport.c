/* Picks a transport implementation from a URI scheme. */
#include <errno.h>
#include <string.h>

#include "transport.h"

int ferry_transport_open(const char *uri, struct ferry_transport **out)
{
	*out = NULL;
	if (!uri)
		return -EINVAL;
	if (strncmp(uri, "unix:", 5) == 0)
		return ferry_transport_unix_open(uri + 5, out);
	if (uri[0] == '/')
		return ferry_transport_unix_open(uri, out);
	if (strncmp(uri, "tcp:", 4) == 0) {
		struct ferry_transport *inner;
		int r = ferry_transport_tcp_open(uri, &inner);
		return r < 0 ? r : ferry_transport_remote_wrap(inner, out);
	}
	if (strncmp(uri, "virtio:", 7) == 0)
		return ferry_transport_virtio_open(uri + 7, out);
	return -EINVAL;
}
