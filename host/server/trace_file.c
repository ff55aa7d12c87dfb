/* ferryd --trace-file: the host's trace, written as Chrome-trace JSON when ferryd shuts down
 * (mode 0600, like the crash dir: it names clients). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

int ferryd_write_trace(struct ferry_host *host, const char *path)
{
	char *json = NULL;
	size_t len = 0;
	int ret = ferry_host_trace_json(host, &json, &len);
	if (ret < 0) {
		ferryd_log(FERRY_LOG_ERROR, "trace file %s: %s", path, strerror(-ret));
		return ret;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		ferryd_log(FERRY_LOG_ERROR, "trace file %s: %s", path, strerror(errno));
		free(json);
		return ret;
	}
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, json + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			ferryd_log(FERRY_LOG_ERROR, "trace file %s: %s", path, strerror(-ret));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 && ret == 0) {
		ret = -errno;
		ferryd_log(FERRY_LOG_ERROR, "trace file %s: %s", path, strerror(errno));
	}
	if (ret == 0)
		ferryd_log(FERRY_LOG_INFO, "trace written to %s (%zu bytes)", path, len);
	free(json);
	return ret;
}
