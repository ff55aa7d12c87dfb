/* Which GPU the node stands for (asked of the backend once per process) and the shim's log. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

static pthread_once_t identify_once = PTHREAD_ONCE_INIT;
static struct shim_identity identity;
static bool identified;
/* A fork()ed child shares the parent's connection (or has no simulator threads): for it the
 * node does not exist, and the fds it inherited are plain fds (shim_fd_fork_child). */
static bool forked_child;

static void at_fork_child(void)
{
	forked_child = true;
	shim_fd_fork_child();
}

static void identify(void)
{
	pthread_atfork(NULL, NULL, at_fork_child);
	int r = shim_backend_identify(&identity);
	if (r < 0) {
		shim_log(true, "no GPU to present (%s): /dev/dri stays empty", strerror(-r));
		return;
	}
	identified = true;
	shim_log(false, "presenting /dev/dri/renderD128 as %s (%s)",
		 identity.family == SHIM_FAMILY_MSM ? "msm" : "v3d", identity.gpu);
}

const struct shim_identity *shim_identity(void)
{
	pthread_once(&identify_once, identify);
	return identified && !forked_child ? &identity : NULL;
}

void shim_log(bool error, const char *fmt, ...)
{
	static int debug = -1;
	if (debug < 0) {
		const char *e = getenv("FERRY_SHIM_DEBUG");
		debug = e && *e && strcmp(e, "0") != 0;
	}
	if (!error && !debug)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ferry-shim: %s\n", line);
}
