/* An errno as every ferry error message names it: "Too many open files (EMFILE)". One helper for
 * the host library and its embedders, so a cause reads the same wherever it is reported. */
#ifndef FERRY_ERRNO_TEXT_H
#define FERRY_ERRNO_TEXT_H

#include <stdio.h>
#include <string.h>

/* err negative or positive; writes into buf (n bytes) and returns it. */
static inline const char *ferry_errno_text(int err, char *buf, size_t n)
{
	if (err < 0)
		err = -err;
	const char *name = strerrorname_np(err);
	snprintf(buf, n, "%s (%s)", strerror(err), name ? name : "?");
	return buf;
}

#endif
