/* What the libc overrides (interpose.c, interpose_fs.c) share: how a symbol is exported and
 * how the next definition (libc's) is found. */
#ifndef FERRY_SHIM_INTERPOSE_H
#define FERRY_SHIM_INTERPOSE_H

#include <dlfcn.h>
#include <errno.h>

#include "shim.h"

#define EXPORT __attribute__((visibility("default")))

static inline void *next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p)
		shim_log(true, "libc has no %s", name);
	return p;
}

/* Declares and resolves (once) next_<name>, the next definition of a symbol returning int or
 * ssize_t; returns -1/ENOSYS from the caller if there is none. */
#define NEXT(type, name)                                                   \
	static __typeof__(type) next_##name;                               \
	if (!next_##name)                                                  \
		next_##name = (__typeof__(type))next_sym(#name);           \
	if (!next_##name) {                                                \
		errno = ENOSYS;                                            \
		return -1;                                                 \
	}

#endif
