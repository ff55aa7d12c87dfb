/* TLS stand-in for static builds (ferry-static, the VM guest program): GnuTLS has no static
 * library on Debian, so tcp: there works only with FERRY_INSECURE=1. */
#include <errno.h>
#include <unistd.h>

#include "stream.h"

ssize_t ferry_tls_send(struct stream *s, const void *p, size_t len)
{
	(void)s, (void)p, (void)len;
	return -EPROTONOSUPPORT;
}

long ferry_tls_read(void *s, void *buf, size_t len)
{
	(void)s, (void)buf, (void)len;
	return -EPROTONOSUPPORT;
}

void ferry_tls_free(struct stream *s)
{
	(void)s;
}

int ferry_stream_tls(int fd, const char *host, const char *name, struct ferry_transport **out)
{
	(void)host;
	*out = NULL;
	close(fd);
	ferry_transport_set_open_error("%s: this static build of ferry has no TLS; FERRY_INSECURE=1 reaches a "
				       "plain ferryd --insecure", name);
	return -EPROTONOSUPPORT;
}
